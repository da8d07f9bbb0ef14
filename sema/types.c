/*
 * types.c - interned NNEF types, casts and common types (spec 3.3.1).
 *
 * Casting rules, as the specification lists them (all others disallowed):
 *   - a primitive casts to the tensor of that data type;
 *   - any primitive casts to '?', any bound tensor to tensor<?>;
 *   - any tensor casts to the unbound tensor<>;
 *   - an array casts to an array whose item type it casts to; the type of
 *     [] casts to every array type, and nothing else casts to it;
 *   - a tuple casts to a tuple of the same length, item by item.
 * Chains of these apply as well (integer to tensor<?> binds ? = integer;
 * a primitive to tensor<> goes through its tensor type).
 */
#include "sema/types.h"

#include <stdlib.h>
#include <string.h>

static Type *new_type(Arena *a, TypeKind kind)
{
	Type *t = ARENA_NEW(a, Type);
	t->kind = kind;
	return t;
}

void ty_init(TypeTable *tt, Arena *arena)
{
	memset(tt, 0, sizeof(*tt));
	tt->arena = arena;
	for (int k = TY_INTEGER; k <= TY_GENERIC; k++) {
		Type *t = new_type(arena, (TypeKind)k);
		t->has_generic = k == TY_GENERIC;
		tt->prim[k] = t;
	}
	tt->empty_array = new_type(arena, TY_EMPTY_ARRAY);
	Type *u = new_type(arena, TY_TENSOR);
	u->has_tensor = true;
	tt->unbound_tensor = u;
	tt->cap = 64;
	tt->slots = util_calloc(tt->cap, sizeof(*tt->slots));
}

void ty_free(TypeTable *tt)
{
	util_free(tt->slots);
	tt->slots = NULL;
}

const Type *ty_prim(const TypeTable *tt, TypeKind kind)
{
	return tt->prim[kind];
}

static size_t type_hash(TypeKind kind, const Type *item, const Type **items,
			size_t n)
{
	size_t h = (size_t)kind * 0x9E3779B97F4A7C15u;
	h ^= (size_t)(uintptr_t)item + (h << 6) + (h >> 2);
	for (size_t i = 0; i < n; i++)
		h ^= (size_t)(uintptr_t)items[i] + (h << 6) + (h >> 2);
	return h;
}

static bool type_matches(const Type *t, TypeKind kind, const Type *item,
			 const Type **items, size_t n)
{
	if (t->kind != kind || t->item != item || t->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (t->items[i] != items[i])
			return false;
	return true;
}

static void grow(TypeTable *tt)
{
	size_t cap = tt->cap * 2;
	Type **slots = util_calloc(cap, sizeof(*slots));
	for (size_t i = 0; i < tt->cap; i++) {
		Type *t = tt->slots[i];
		if (!t)
			continue;
		size_t j = type_hash(t->kind, t->item, t->items, t->n) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = t;
	}
	util_free(tt->slots);
	tt->slots = slots;
	tt->cap = cap;
}

static const Type *intern_type(TypeTable *tt, TypeKind kind, const Type *item,
			       const Type **items, size_t n)
{
	size_t i = type_hash(kind, item, items, n) & (tt->cap - 1);
	while (tt->slots[i]) {
		if (type_matches(tt->slots[i], kind, item, items, n))
			return tt->slots[i];
		i = (i + 1) & (tt->cap - 1);
	}
	Type *t = new_type(tt->arena, kind);
	t->item = item;
	t->n = n;
	if (n) {
		const Type **copy = ARENA_ARRAY(tt->arena, const Type *, n);
		memcpy(copy, items, n * sizeof(*copy));
		t->items = copy;
	}
	t->has_tensor = kind == TY_TENSOR || (item && item->has_tensor);
	t->has_generic = item && item->has_generic;
	for (size_t k = 0; k < n; k++) {
		t->has_tensor |= items[k]->has_tensor;
		t->has_generic |= items[k]->has_generic;
	}
	tt->slots[i] = t;
	if (++tt->count * 2 > tt->cap)
		grow(tt);
	return t;
}

const Type *ty_tensor(TypeTable *tt, const Type *item)
{
	if (!item)
		return tt->unbound_tensor;
	return intern_type(tt, TY_TENSOR, item, NULL, 0);
}

const Type *ty_array(TypeTable *tt, const Type *item)
{
	return intern_type(tt, TY_ARRAY, item, NULL, 0);
}

const Type *ty_tuple(TypeTable *tt, const Type **items, size_t n)
{
	return intern_type(tt, TY_TUPLE, NULL, items, n);
}

const Type *ty_from_typename(const TypeTable *tt, AstTypeName name)
{
	switch (name) {
	case AST_TN_INTEGER:
		return tt->prim[TY_INTEGER];
	case AST_TN_SCALAR:
		return tt->prim[TY_SCALAR];
	case AST_TN_LOGICAL:
		return tt->prim[TY_LOGICAL];
	case AST_TN_STRING:
		return tt->prim[TY_STRING];
	case AST_TN_GENERIC:
		return tt->prim[TY_GENERIC];
	}
	return tt->prim[TY_GENERIC];
}

const Type *ty_from_ast(TypeTable *tt, const AstType *t)
{
	switch (t->kind) {
	case AST_TYPE_NAME:
		return ty_from_typename(tt, t->name);
	case AST_TYPE_TENSOR:
		return ty_tensor(tt, t->has_item ? ty_from_typename(tt, t->name)
						 : NULL);
	case AST_TYPE_ARRAY:
		return ty_array(tt, ty_from_ast(tt, t->item));
	case AST_TYPE_TUPLE: {
		const Type **v = ARENA_ARRAY(tt->arena, const Type *, t->nitems);
		for (size_t i = 0; i < t->nitems; i++)
			v[i] = ty_from_ast(tt, t->items[i]);
		return ty_tuple(tt, v, t->nitems);
	}
	}
	return tt->prim[TY_GENERIC];
}

bool ty_all_tensors(const Type *t)
{
	switch (t->kind) {
	case TY_TENSOR:
		return true;
	case TY_ARRAY:
		return ty_all_tensors(t->item);
	case TY_TUPLE:
		for (size_t i = 0; i < t->n; i++)
			if (!ty_all_tensors(t->items[i]))
				return false;
		return true;
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_GENERIC:
	case TY_EMPTY_ARRAY:
		return false;
	}
	return false;
}

const Type *ty_mixed_tuple(const Type *t)
{
	switch (t->kind) {
	case TY_ARRAY:
		return ty_mixed_tuple(t->item);
	case TY_TUPLE: {
		bool tensors = false, attrs = false;
		for (size_t i = 0; i < t->n; i++) {
			const Type *inner = ty_mixed_tuple(t->items[i]);
			if (inner)
				return inner;
			if (t->items[i]->kind == TY_EMPTY_ARRAY)
				continue;
			if (t->items[i]->has_tensor)
				tensors = true;
			else
				attrs = true;
		}
		return tensors && attrs ? t : NULL;
	}
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_GENERIC:
	case TY_TENSOR:
	case TY_EMPTY_ARRAY:
		return NULL;
	}
	return NULL;
}

bool ty_has_unbound_tensor(const Type *t)
{
	switch (t->kind) {
	case TY_TENSOR:
		return t->item == NULL;
	case TY_ARRAY:
		return ty_has_unbound_tensor(t->item);
	case TY_TUPLE:
		for (size_t i = 0; i < t->n; i++)
			if (ty_has_unbound_tensor(t->items[i]))
				return true;
		return false;
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_GENERIC:
	case TY_EMPTY_ARRAY:
		return false;
	}
	return false;
}

/* Binds the parameter '?' to `what`, or checks an existing binding. */
static bool bind_generic(const Type *what, const Type **binding,
			 const Type **conflict)
{
	if (!binding)
		return what->kind == TY_GENERIC;
	if (!*binding) {
		*binding = what;
		return true;
	}
	if (*binding == what)
		return true;
	if (conflict)
		*conflict = what;
	return false;
}

bool ty_castable(const Type *from, const Type *to, const Type **binding,
		 const Type **conflict)
{
	if (to->kind == TY_GENERIC) {
		/* any primitive (or the caller's own '?') casts to '?' */
		if (!ty_is_primitive(from))
			return false;
		return bind_generic(from, binding, conflict);
	}
	if (from == to && !to->has_generic)
		return true;
	switch (to->kind) {
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
		return from == to;
	case TY_TENSOR:
		if (!to->item) /* tensor<>: any tensor, and primitives */
			return from->kind == TY_TENSOR || ty_is_primitive(from);
		if (from->kind == TY_TENSOR) {
			if (!from->item)
				return false; /* unbound to bound */
			if (to->item->kind == TY_GENERIC)
				return bind_generic(from->item, binding,
						    conflict);
			return from->item == to->item;
		}
		if (ty_is_primitive(from)) {
			if (to->item->kind == TY_GENERIC)
				return bind_generic(from, binding, conflict);
			return from == to->item;
		}
		return false;
	case TY_ARRAY:
		if (from->kind == TY_EMPTY_ARRAY)
			return true;
		if (from->kind != TY_ARRAY)
			return false;
		return ty_castable(from->item, to->item, binding, conflict);
	case TY_TUPLE:
		if (from->kind != TY_TUPLE || from->n != to->n)
			return false;
		for (size_t i = 0; i < to->n; i++)
			if (!ty_castable(from->items[i], to->items[i], binding,
					 conflict))
				return false;
		return true;
	case TY_EMPTY_ARRAY:
		return from->kind == TY_EMPTY_ARRAY;
	case TY_GENERIC:
		return false;
	}
	return false;
}

bool ty_tensor_like(const Type *t)
{
	switch (t->kind) {
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_TENSOR:
	case TY_EMPTY_ARRAY:
		return true;
	case TY_ARRAY:
		return ty_tensor_like(t->item);
	case TY_TUPLE:
	case TY_GENERIC:
		return false;
	}
	return false;
}

/* Binds an unbound '?' to what, if it is a primitive; a binding already
 * made stays (tract ignores data types here). */
static bool bind_loosely(const Type *what, const Type **binding)
{
	if (binding && !*binding && what && ty_is_primitive(what) &&
	    what->kind != TY_GENERIC)
		*binding = what;
	return true;
}

bool ty_castable_tract(const Type *from, const Type *to,
		       const Type **binding)
{
	const Type *conflict = NULL;
	if (ty_castable(from, to, binding, &conflict))
		return true;
	switch (to->kind) {
	case TY_TENSOR:
		if (from->kind == TY_TENSOR)
			return bind_loosely(from->item, binding);
		if (ty_is_primitive(from))
			return bind_loosely(from, binding);
		if ((from->kind != TY_ARRAY && from->kind != TY_EMPTY_ARRAY) ||
		    !ty_tensor_like(from))
			return false;
		while (from->kind == TY_ARRAY) /* its items' data type */
			from = from->item;
		return bind_loosely(from->kind == TY_TENSOR ? from->item : from,
				    binding);
	case TY_LOGICAL: /* tract reads a flag from a number (not 0) */
		return from->kind == TY_TENSOR || from->kind == TY_INTEGER;
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_STRING:
		return from->kind == TY_TENSOR;
	case TY_ARRAY:
		if (from->kind == TY_TENSOR)
			return true; /* a one-item array of its value */
		return from->kind == TY_ARRAY &&
		       ty_castable_tract(from->item, to->item, binding);
	case TY_TUPLE:
		if (from->kind != TY_TUPLE || from->n != to->n)
			return false;
		for (size_t i = 0; i < to->n; i++)
			if (!ty_castable_tract(from->items[i], to->items[i],
					       binding))
				return false;
		return true;
	case TY_GENERIC:
		return from->kind == TY_TENSOR && bind_loosely(from->item, binding);
	case TY_EMPTY_ARRAY:
		return false;
	}
	return false;
}

const Type *ty_common(const Type *a, const Type *b)
{
	if (a == b)
		return a;
	if (ty_castable(a, b, NULL, NULL))
		return b;
	if (ty_castable(b, a, NULL, NULL))
		return a;
	return NULL;
}

const Type *ty_bind(TypeTable *tt, const Type *t, const Type *with)
{
	if (!t->has_generic || !with)
		return t;
	switch (t->kind) {
	case TY_GENERIC:
		return with;
	case TY_TENSOR:
		return ty_tensor(tt, ty_bind(tt, t->item, with));
	case TY_ARRAY:
		return ty_array(tt, ty_bind(tt, t->item, with));
	case TY_TUPLE: {
		const Type **v = ARENA_ARRAY(tt->arena, const Type *, t->n);
		for (size_t i = 0; i < t->n; i++)
			v[i] = ty_bind(tt, t->items[i], with);
		return ty_tuple(tt, v, t->n);
	}
	case TY_INTEGER:
	case TY_SCALAR:
	case TY_LOGICAL:
	case TY_STRING:
	case TY_EMPTY_ARRAY:
		return t;
	}
	return t;
}

void ty_print(StrBuf *out, const Type *t)
{
	switch (t->kind) {
	case TY_INTEGER:
		sb_puts(out, "integer");
		return;
	case TY_SCALAR:
		sb_puts(out, "scalar");
		return;
	case TY_LOGICAL:
		sb_puts(out, "logical");
		return;
	case TY_STRING:
		sb_puts(out, "string");
		return;
	case TY_GENERIC:
		sb_puts(out, "?");
		return;
	case TY_TENSOR:
		sb_puts(out, "tensor<");
		if (t->item)
			ty_print(out, t->item);
		sb_putc(out, '>');
		return;
	case TY_ARRAY:
		ty_print(out, t->item);
		sb_puts(out, "[]");
		return;
	case TY_TUPLE:
		sb_putc(out, '(');
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				sb_puts(out, ", ");
			ty_print(out, t->items[i]);
		}
		sb_putc(out, ')');
		return;
	case TY_EMPTY_ARRAY:
		sb_puts(out, "[]");
		return;
	}
}

const char *ty_str(Arena *a, const Type *t)
{
	StrBuf b;
	sb_init(&b);
	ty_print(&b, t);
	const char *s = arena_strdup(a, sb_str(&b));
	sb_free(&b);
	return s;
}
