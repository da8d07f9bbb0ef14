/*
 * literal.c - literals written in the document, made into values once
 * and shared. A generated or exported flat graph writes the same few
 * attribute values (paddings, strides, dilations, shapes, 0.0) at every
 * operation; each distinct one is made once here and looked up by a hash
 * of its syntax afterwards, so the values of a million-operation graph
 * take the space of the distinct literals. Values are never modified
 * once made, so sharing them is safe.
 *
 * Shared: integers (not the 2^63 that only its minus sign makes valid),
 * reals, negative numbers, logicals, strings of at most 16 bytes (border
 * modes, not most labels, which differ at every variable), and arrays and
 * tuples of those. The table keeps the first LIT_MAX_SHARED distinct
 * literals: the attribute values a graph repeats appear early, and what is
 * still new after that many (short labels, mostly) is made each time, so
 * that a million labels do not make a table of a million slots, and the
 * table stays small enough to be looked up in the processor's cache.
 */
#include "flatten/flatten_internal.h"

#include <stdlib.h>
#include <string.h>

enum { LIT_MAX_STRING = 16, LIT_MAX_SHARED = 1 << 14 };

typedef struct LitSlot {
	uint64_t hash;
	const Value *v;          /* NULL: free */
} LitSlot;

/* h and the n bytes at p, mixed eight at a time. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (;; b += 8, n -= 8) {
		uint64_t w = 0;
		memcpy(&w, b, n < 8 ? n : 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15u;
		h ^= h >> 29;
		if (n <= 8)
			return h;
	}
}

/* Whether a minus sign before e makes a number literal (not the 2^63 that
 * only its minus sign makes valid: evaluated as written). */
static bool negated(const AstExpr *e)
{
	return (e->kind == AST_INT && e->op == 0) || e->kind == AST_REAL;
}

/* Whether e is a literal shared here, and its hash (*h, chained). */
static bool literal_hash(const AstExpr *e, uint64_t *h)
{
	uint8_t kind = e->kind;
	*h = mix(*h, &kind, 1);
	switch (ast_kind(e)) {
	case AST_INT:
		*h = mix(*h, &e->u.ival, sizeof(e->u.ival));
		return e->op != 1;
	case AST_REAL:
		*h = mix(*h, &e->u.rval, sizeof(e->u.rval));
		return true;
	case AST_BOOL: {
		uint8_t b = e->u.bval;
		*h = mix(*h, &b, 1);
		return true;
	}
	case AST_STRING:
		*h = mix(*h, e->u.str.s, e->u.str.len);
		return e->u.str.len <= LIT_MAX_STRING;
	case AST_UNARY: /* a negative number */
		return e->op == AST_OP_MINUS && negated(e->u.bin.a) &&
		       literal_hash(e->u.bin.a, h);
	case AST_ARRAY:
	case AST_TUPLE:
		*h = mix(*h, &e->u.list.n, sizeof(e->u.list.n));
		for (size_t i = 0; i < e->u.list.n; i++)
			if (!literal_hash(e->u.list.items[i], h))
				return false;
		return true;
	case AST_IDENT:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return false;
	}
	return false; /* not reached: every kind is a case */
}

bool flat_literal_equals(const AstExpr *e, const Value *v)
{
	const AstExpr *a = e->u.bin.a;
	switch (ast_kind(e)) {
	case AST_INT:
		return v->kind == VAL_INT && v->u.i == e->u.ival;
	case AST_REAL: /* the same bits: 0.0 and -0.0 differ */
		return v->kind == VAL_SCALAR &&
		       memcmp(&v->u.s, &e->u.rval, sizeof(double)) == 0;
	case AST_BOOL:
		return v->kind == VAL_BOOL && v->u.b == e->u.bval;
	case AST_STRING:
		return v->kind == VAL_STR && v->n == e->u.str.len &&
		       (!e->u.str.len ||
			memcmp(v->u.str, e->u.str.s, e->u.str.len) == 0);
	case AST_UNARY:
		if (e->op != AST_OP_MINUS || !negated(a))
			return false;
		if (a->kind == AST_INT)
			return v->kind == VAL_INT && v->u.i == -a->u.ival;
		double neg = -a->u.rval;
		return v->kind == VAL_SCALAR &&
		       memcmp(&v->u.s, &neg, sizeof(double)) == 0;
	case AST_ARRAY:
	case AST_TUPLE:
		if (v->kind != (e->kind == AST_ARRAY ? VAL_ARRAY : VAL_TUPLE) ||
		    v->n != e->u.list.n)
			return false;
		for (size_t i = 0; i < e->u.list.n; i++)
			if (!flat_literal_equals(e->u.list.items[i],
						 v->u.items[i]))
				return false;
		return true;
	case AST_IDENT:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return false;
	}
	return false; /* not reached: every kind is a case */
}

/* The value of the literal e, made (its items shared too). */
static const Value *make(Flattener *F, const AstExpr *e)
{
	switch (ast_kind(e)) {
	case AST_INT:
		return flat_val_int(F, e->u.ival);
	case AST_REAL:
		return flat_val_scalar(F, e->u.rval);
	case AST_BOOL:
		return flat_val_bool(F, e->u.bval);
	case AST_STRING:
		return flat_val_str(F, e->u.str.s, e->u.str.len);
	case AST_UNARY:
		if (e->u.bin.a->kind == AST_INT)
			return flat_val_int(F, -e->u.bin.a->u.ival);
		return flat_val_scalar(F, -e->u.bin.a->u.rval);
	case AST_IDENT:
	case AST_ARRAY:
	case AST_TUPLE:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE: {
		size_t n = e->u.list.n;
		const Value **items = ARENA_ARRAY(F->arena, const Value *, n ? n : 1);
		for (size_t i = 0; i < n; i++)
			items[i] = flat_literal(F, e->u.list.items[i]);
		return flat_val_list(F, e->kind == AST_ARRAY ? VAL_ARRAY : VAL_TUPLE,
				items, n);
	}
	}
	return NULL; /* not reached: every kind is a case */
}

static void grow(Flattener *F)
{
	size_t cap = F->caplits ? 2 * F->caplits : 64;
	LitSlot *slots = util_calloc(cap, sizeof(*slots));
	for (size_t i = 0; i < F->caplits; i++) {
		if (!F->lits[i].v)
			continue;
		size_t j = F->lits[i].hash & (cap - 1);
		while (slots[j].v)
			j = (j + 1) & (cap - 1);
		slots[j] = F->lits[i];
	}
	util_free(F->lits);
	F->lits = slots;
	F->caplits = cap;
}

const Value *flat_literal(Flattener *F, const AstExpr *e)
{
	uint64_t h = 0xCBF29CE484222325u;
	if (!literal_hash(e, &h))
		return NULL;
	if (F->nlits < LIT_MAX_SHARED && (F->nlits + 1) * 2 > F->caplits)
		grow(F);
	size_t i = h & (F->caplits - 1);
	for (; F->lits[i].v; i = (i + 1) & (F->caplits - 1))
		if (F->lits[i].hash == h && flat_literal_equals(e, F->lits[i].v))
			return F->lits[i].v;
	const Value *v = make(F, e);
	if (F->nlits >= LIT_MAX_SHARED)
		return v;
	/* making the items may have filled the table: find the slot again */
	if ((F->nlits + 1) * 2 > F->caplits)
		grow(F);
	i = h & (F->caplits - 1);
	while (F->lits[i].v)
		i = (i + 1) & (F->caplits - 1);
	F->lits[i] = (LitSlot){ h, v };
	F->nlits++;
	return v;
}

void flat_literals_free(Flattener *F)
{
	util_free(F->lits);
	F->lits = NULL;
	F->nlits = F->caplits = 0;
}
