/*
 * shapes_internal.h - what the shape functions of each op family share:
 * reading attribute values, checked 64-bit arithmetic, result extents,
 * and reporting the first broken rule. Every shape function has the
 * signature of ShapeFn and returns false after shape_fail.
 */
#ifndef NNEF_SHAPES_INTERNAL_H
#define NNEF_SHAPES_INTERNAL_H

#include "shapes/shapes.h"

#include <assert.h>

typedef bool (*ShapeFn)(ShapeCall *c);

/* One declaration per row of primitives.def. */
#define SHAPE_PRIM(id, name, fn, flags, ...) bool fn(ShapeCall *c);
#include "shapes/primitives.def"
#undef SHAPE_PRIM

/* ---- reporting ------------------------------------------------------- */

/* Records the error (code, the parameter at fault or -1, message); returns
 * false so that a shape function can `return shape_fail(...)`. */
bool shape_fail(ShapeCall *c, DiagCode code, int param, const char *fmt, ...)
	UTIL_PRINTF(4, 5);
void shape_hint(ShapeCall *c, const char *fmt, ...) UTIL_PRINTF(2, 3);
/* The name of parameter p of c's op, for messages: the tensor the user
 * named as its argument when the caller says so (c->arg_name). Recorded
 * in c->named. */
const char *shape_pname(ShapeCall *c, int p);
/* The argument of parameter p by its role ("the variable"), followed by
 * the name the user gave it when there is one and it is not the
 * parameter's own ("the variable 'state'"). */
const char *shape_role(ShapeCall *c, int p, const char *role);
/* "a + b - d" for a + b + d, in the arena (for messages). */
const char *shape_sum3(ShapeCall *c, int64_t a, int64_t b, int64_t d);
/* Appends the shape as "[1,3,224,224]" to the message. */
void shape_put_shape(ShapeCall *c, const Shape *s);
/* A shape as text in the arena (for use in a message's arguments). */
const char *shape_shape_str(ShapeCall *c, const Shape *s);

/* ---- attribute values ------------------------------------------------- */

static inline size_t shape_len(const Value *v)
{
	assert(v->kind == VAL_ARRAY);
	return v->n;
}

/* Item i of an integer array. */
static inline int64_t shape_item(const Value *v, size_t i)
{
	assert(v->kind == VAL_ARRAY && i < v->n &&
	       v->u.items[i]->kind == VAL_INT);
	return v->u.items[i]->u.i;
}

/* Item k (0 or 1) of pair i of a padding array: a tuple, or in tract's
 * declarations (integer[][]) an array of two. */
static inline int64_t shape_pair(const Value *v, size_t i, int k)
{
	assert(v->kind == VAL_ARRAY && i < v->n);
	const Value *t = v->u.items[i];
	assert((t->kind == VAL_TUPLE || t->kind == VAL_ARRAY) && t->n == 2);
	return t->u.items[k]->u.i;
}

static inline int64_t shape_int(const Value *v)
{
	assert(v->kind == VAL_INT);
	return v->u.i;
}

static inline bool shape_bool(const Value *v)
{
	assert(v->kind == VAL_BOOL);
	return v->u.b;
}

/* Whether the string attribute v is one of the NULL-terminated `allowed`;
 * if not, fails with E0909 naming them. */
bool shape_check_enum(ShapeCall *c, int p, const char *const *allowed);
bool shape_str_is(const Value *v, const char *s);

/* Every item of the integer array of parameter p is > 0 (min 1) or >= 0
 * (min 0); fails with `code` naming the first that is not. */
bool shape_check_items_min(ShapeCall *c, int p, int64_t min, DiagCode code);
/* The integer array of parameter p has `want` items (or none, when
 * empty_ok); `what` says what the count is ("the rank of the input"). */
bool shape_check_len(ShapeCall *c, int p, size_t want, bool empty_ok,
		  const char *what);
/* Integer array p lists axes: each in [0, limit), none twice. Returns
 * which of the limit axes it lists, or NULL after failing. `what` is
 * what has the limit axes: the argument of parameter `of` by its role
 * (shape_role), or with `of` -1 a description ("the output"). */
const bool *shape_check_axes(ShapeCall *c, int p, size_t limit, int of,
			  const char *what);

/* ---- shapes ------------------------------------------------------------ */

/* The shape of the single tensor of parameter p. */
static inline const Shape *shape_in(const ShapeCall *c, int p)
{
	assert(c->in[p].n == 1);
	return &c->in[p].items[0];
}

/* Fresh extents for a result of the given rank. */
int64_t *shape_dims(ShapeCall *c, size_t rank);
/* Sets the (single) result; extents are not copied. */
bool shape_result(ShapeCall *c, const int64_t *dims, size_t rank);
/* The result is a copy of s (shares its extents). */
bool shape_result_as(ShapeCall *c, const Shape *s);
/* The results are not known (an input's shape is not). */
bool shape_unknown(ShapeCall *c);

/* Copies n extents (src may be NULL when n is 0). */
static inline void shape_copy(int64_t *dst, const int64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

/* Extent d of s, with trailing singleton dimensions (spec 2.2). */
static inline int64_t shape_extent(const Shape *s, size_t d)
{
	return d < s->rank ? s->dims[d] : 1;
}

/* Checked arithmetic: on overflow, fails with E0929 at parameter p. */
bool shape_add(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out);
bool shape_mul(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out);

/* ---- extents known only when the model runs (SF_SYMBOLIC) ------------------ */

/* An extent (or an item of an integer array that may hold symbolic
 * integers) as text in the arena: "224", "S+1". */
const char *shape_dim_text(ShapeCall *c, int64_t d);
/* Whether item i of integer array v is symbolic (VAL_SYMBOL), and the
 * item as an extent: the integer, or its expression's code. Only for
 * parameters of SF_SYMP. */
static inline bool shape_item_symbolic(const Value *v, size_t i)
{
	assert(v->kind == VAL_ARRAY && i < v->n);
	return v->u.items[i]->kind == VAL_SYMBOL;
}
static inline int64_t shape_item_dim(const Value *v, size_t i)
{
	const Value *x = v->u.items[i];
	return x->kind == VAL_SYMBOL ? dim_encode(x->u.dim) : x->u.i;
}
/* The datum type the string attribute p names (tract's spelling), or a
 * failure (E0933) naming the ones there are. */
bool shape_tract_dtype(ShapeCall *c, int p, DType *out);
/* Extent arithmetic, symbolic or not (a or b symbolic needs c->dims):
 * sums, differences (a - b, which must not be negative when both are
 * known), products, and floor and ceiling division by k > 0. False
 * after failing with E0929 on overflow. */
bool shape_dim_add(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out);
bool shape_dim_sub(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out);
bool shape_dim_mul(ShapeCall *c, int p, int64_t a, int64_t b, int64_t *out);
bool shape_dim_div(ShapeCall *c, int p, int64_t a, int64_t k, int64_t *out);
bool shape_dim_ceil_div(ShapeCall *c, int p, int64_t a, int64_t k,
		     int64_t *out);
/* a / b for extents whose quotient is exact as expressions (S * 8 / S =
 * 8); false (without failing) when it is not, or b is 0. */
bool shape_dim_exact_div(ShapeCall *c, int64_t a, int64_t b, int64_t *out);
/* Extent d plus the number k, which may be negative (a padding, a bound
 * counted from the end): an extent (E0915 when it is a negative number,
 * E0929 on overflow). The functions above take extents only: a negative
 * number there would read as a symbol's code. */
bool shape_dim_offset(ShapeCall *c, int p, int64_t d, int64_t k, int64_t *out);
/* The volume of the result extents fits in 63 bits (E0929 otherwise). */
bool shape_check_volume(ShapeCall *c, int p, const int64_t *dims, size_t rank);

/* Floor and ceiling division for b > 0. */
static inline int64_t shape_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t shape_ceildiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a > 0) ? q + 1 : q;
}

#endif
