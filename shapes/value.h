/*
 * value.h - the values the flattener computes at compile time (spec 3.3.3)
 * and the shape functions read as argument values, and the symbolic
 * integers (tract's dialect) a value or an extent may be. Defined here, at
 * the lowest stage that reads them, so that shapes/ and flatten/ share them
 * without a cycle; flatten/ makes them (its evaluator) and prints them.
 */
#ifndef NNEF_VALUE_H
#define NNEF_VALUE_H

#include "util/util.h"

/* ---- symbolic integers (dim.c) ------------------------------------------ */

/* An integer known only when the model runs, in tract's dialect: a symbol
 * (extension tract_symbol S;) or an expression of symbols (S + P, 2 * S,
 * (S + 1) / 2, max(S, 1)), in canonical form, made once in a DimTable:
 * equal expressions are the same pointer. */
typedef struct DimExpr DimExpr;
typedef struct DimTable DimTable;

DimTable *dim_table_new(void);
void dim_table_free(DimTable *t);

const DimExpr *dim_const(DimTable *t, int64_t v);
/* The symbol `name` (interned: its characters outlive the table). */
const DimExpr *dim_symbol(DimTable *t, const char *name);
/* Arithmetic; NULL when a coefficient does not fit in 64 bits. dim_div
 * and dim_ceil_div divide by k > 0, rounding down and up. */
const DimExpr *dim_add(DimTable *t, const DimExpr *a, const DimExpr *b);
const DimExpr *dim_sub(DimTable *t, const DimExpr *a, const DimExpr *b);
const DimExpr *dim_mul(DimTable *t, const DimExpr *a, const DimExpr *b);
const DimExpr *dim_div(DimTable *t, const DimExpr *a, int64_t k);
const DimExpr *dim_ceil_div(DimTable *t, const DimExpr *a, int64_t k);
/* a / b when b divides a exactly as expressions (S * 8 / S = 8, (2 * S +
 * 2) / (S + 1) = 2), else NULL. */
const DimExpr *dim_exact_div(DimTable *t, const DimExpr *a, const DimExpr *b);
const DimExpr *dim_max(DimTable *t, const DimExpr *a, const DimExpr *b);
const DimExpr *dim_min(DimTable *t, const DimExpr *a, const DimExpr *b);
/* What is known of the value of an expression, every symbol being at
 * least 0 (extents; tract proves signs so): lo <= e when has_lo, e <= hi
 * when has_hi (both for a constant). */
typedef struct DimBounds {
	bool has_lo, has_hi;
	int64_t lo, hi;
} DimBounds;
void dim_bounds(const DimExpr *e, DimBounds *b);
/* e, made in t (e may be of another table). */
const DimExpr *dim_import(DimTable *t, const DimExpr *e);
/* Whether e is a constant, and which. */
bool dim_is_const(const DimExpr *e, int64_t *v);
/* The name of e when it is a lone symbol, else NULL. */
const char *dim_symbol_name(const DimExpr *e);
/* The value of e with each symbol's value as value() gives it (false
 * when it gives none, or on overflow). */
bool dim_eval(const DimExpr *e,
	      bool (*value)(void *ctx, const char *name, int64_t *out),
	      void *ctx, int64_t *out);
/* Calls fn for each symbol e holds (repeated as often as it appears). */
void dim_symbols(const DimExpr *e, void (*fn)(void *ctx, const char *name),
		 void *ctx);
/* Writes e: "2*S+P-1", "(S+1)/2", "max(S,1)"; with spaced, as an NNEF
 * expression: "2 * S + P - 1". */
void dim_print(StrBuf *out, const DimExpr *e, bool spaced);
/* e as dim_print writes it unspaced, made once (lives in t). */
const char *dim_text(DimTable *t, const DimExpr *e);
/* The text dim_text made of e (NULL if it was not made). */
const char *dim_text_of(const DimExpr *e);

/* An extent is an int64_t: a known one is itself (>= 0); one known only
 * when the model runs is the bitwise complement of its expression's
 * address (< 0), so that equal extents are equal integers. */
int64_t dim_encode(const DimExpr *e);
static inline bool dim_is_symbolic(int64_t d)
{
	return d < 0;
}
static inline const DimExpr *dim_expr_of(int64_t d)
{
	return (const DimExpr *)(uintptr_t)~(uint64_t)d;
}
/* The expression of extent d (a constant for a known one). */
const DimExpr *dim_decode(DimTable *t, int64_t d);

/* ---- compile-time values (spec 3.3.3) ---------------------------------- */

typedef enum ValKind {
	VAL_INT,    /* u.i */
	VAL_SCALAR, /* u.s */
	VAL_BOOL,   /* u.b */
	VAL_STR,    /* u.str (not NUL-terminated; may share storage) */
	VAL_ARRAY,  /* u.list */
	VAL_TUPLE,  /* u.list */
	VAL_TENSOR, /* u.t */
	VAL_SYMBOL, /* an integer known only when the model runs: a symbol of
		      the vendor extension tract_symbol, or in tract's
		      dialect an expression of symbols; u.dim (its text
		      made: dim_text_of) */
} ValKind;

/* A tensor of the flat graph; defined by flatten/ (shapes never look
 * inside it: the shapes of tensor arguments are passed separately). */
typedef struct FlatTensor FlatTensor;
typedef struct Value Value;

/* 16 bytes: a flat graph has a value per tensor. */
struct Value {
	ValKind kind;
	uint32_t n;             /* VAL_STR: the length in bytes;
				   VAL_ARRAY, VAL_TUPLE: the number of items
				   (at most VALUE_MAX_ITEMS) */
	union {
		int64_t i;
		double s;
		bool b;
		const char *str;        /* VAL_STR: n bytes */
		const DimExpr *dim;     /* VAL_SYMBOL */
		/* VAL_ARRAY, VAL_TUPLE: items may point into another
		 * array's storage: a slice costs O(1) */
		const Value *const *items;
		FlatTensor *t;
	} u;
};

#define VALUE_MAX_ITEMS UINT32_MAX

/* Deep equality (spec 3.3.3: 'in' compares arrays and tuples by items). */
bool value_equal(const Value *a, const Value *b);
/* Whether v is, or holds at any depth, a value of that kind. */
bool value_holds(const Value *v, ValKind kind);

#endif
