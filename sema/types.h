/*
 * types.h - the NNEF type system (spec 3.3.1 Type System and Type Checking).
 *
 * Types are interned in a TypeTable, so two types are equal exactly when
 * their pointers are. The generic type '?' is a type of its own: inside a
 * generic fragment it stands for the fragment's (unknown) type parameter;
 * in a callee's signature it is the parameter to be bound at a call.
 */
#ifndef NNEF_TYPES_H
#define NNEF_TYPES_H

#include "grammar/ast.h"
#include "util/util.h"

typedef enum TypeKind {
	TY_INTEGER,     /* primitive types */
	TY_SCALAR,
	TY_LOGICAL,
	TY_STRING,
	TY_GENERIC,     /* '?' */
	TY_TENSOR,      /* item: data type (a primitive or '?'); NULL for tensor<> */
	TY_ARRAY,       /* item */
	TY_TUPLE,       /* items, n >= 2 */
	TY_EMPTY_ARRAY, /* the type of the literal [] (spec 3.3.1) */
} TypeKind;

typedef struct Type Type;
struct Type {
	TypeKind kind;
	const Type *item;   /* TY_TENSOR (NULL: unbound), TY_ARRAY */
	const Type **items; /* TY_TUPLE */
	size_t n;           /* TY_TUPLE */
	bool has_tensor;    /* a tensor type appears in it */
	bool has_generic;   /* '?' appears in it */
};

typedef struct TypeTable {
	Arena *arena;
	const Type *prim[5];   /* TY_INTEGER .. TY_GENERIC */
	const Type *empty_array;
	const Type *unbound_tensor;
	Type **slots;          /* interned compound types, open addressing */
	size_t cap, count;
} TypeTable;

void ty_init(TypeTable *tt, Arena *arena);
void ty_free(TypeTable *tt);

const Type *ty_prim(const TypeTable *tt, TypeKind kind);
const Type *ty_tensor(TypeTable *tt, const Type *item);
const Type *ty_array(TypeTable *tt, const Type *item);
const Type *ty_tuple(TypeTable *tt, const Type **items, size_t n);
/* The type written in a declaration. */
const Type *ty_from_ast(TypeTable *tt, const AstType *t);
const Type *ty_from_typename(const TypeTable *tt, AstTypeName name);

static inline bool ty_is_primitive(const Type *t)
{
	return t->kind <= TY_GENERIC;
}

/* An attribute type contains no tensor type (spec 3.3.1). */
static inline bool ty_is_attribute(const Type *t)
{
	return !t->has_tensor;
}

/* Every leaf of t is a tensor: a tensor, or arrays and tuples of them. */
bool ty_all_tensors(const Type *t);
/* A tuple (at any depth) whose items mix tensor and attribute types;
 * returns that tuple or NULL. */
const Type *ty_mixed_tuple(const Type *t);
/* An unbound tensor<> anywhere in t. */
bool ty_has_unbound_tensor(const Type *t);

/* Whether a value of type `from` may be passed where `to` is expected
 * (spec 3.3.1 Type Casting). '?' in `to` is the parameter being bound:
 * *binding is what it is bound to (NULL when not yet), updated by the
 * call. On a conflict (? already bound to something else, which `from`
 * would need) *conflict receives the other candidate and the result is
 * false. Pass binding == NULL when `to` has no parameter to bind: a '?'
 * in `to` then only accepts '?' itself. */
bool ty_castable(const Type *from, const Type *to, const Type **binding,
		 const Type **conflict);
/* The casts tract's dialect allows beyond ty_castable's, which tract
 * performs when it loads a model (nnef-tract(7)): a tensor of any data
 * type where a tensor is expected; a literal, or an array of literals or
 * tensors, where a tensor is expected (a constant tensor); a tensor where
 * an attribute is expected (its value, which must be known when the
 * model is loaded); and so item by item in arrays and tuples. '?' in `to`
 * is bound as ty_castable binds it, a conflicting data type ignored. */
bool ty_castable_tract(const Type *from, const Type *to,
		       const Type **binding);
/* Whether every leaf of t is a primitive type or a tensor (what tract
 * makes a constant tensor of). */
bool ty_tensor_like(const Type *t);

/* The common type of spec 3.3.1: b if a casts to b, a if b casts to a,
 * else NULL. */
const Type *ty_common(const Type *a, const Type *b);
/* t with '?' replaced by `with` (which may itself be '?'). */
const Type *ty_bind(TypeTable *tt, const Type *t, const Type *with);

void ty_print(StrBuf *out, const Type *t);
/* The type as text, in the arena. */
const char *ty_str(Arena *a, const Type *t);

#endif
