/*
 * tract_internal.h - what the shape functions of tract's operations
 * (tract_core.c, tract_nn.c, tract_transformers.c, tract_onnx.c,
 * tract_misc.c; sema/tract/TRACT-NOTES.md, parts B and C) share: reading
 * optional parameters and values tract reads as numbers, the checks
 * tract makes on datum types, ranks and axes, results known only when the
 * model runs, and several results. The helpers live in tract_misc.c.
 */
#ifndef NNEF_SHAPES_TRACT_INTERNAL_H
#define NNEF_SHAPES_TRACT_INTERNAL_H

#include "shapes/shapes_internal.h"

/* Whether optional parameter p was not given: its value is `false` (what
 * tract reads as "absent", notes B.3), or there is none. */
bool shape_absent(const ShapeCall *c, int p);

/* What is known of the integers of argument p. */
typedef enum ShKnown {
	SH_KNOWN_NOT,   /* not known when the graph is built */
	SH_KNOWN_OK,    /* known: the items */
	SH_KNOWN_OTHER, /* known, but not all integers (reals, strings) */
} ShKnown;

/* An integer as tract reads it: a number (which may be negative), or an
 * expression of symbols (v is then its extent's code, dim_is_symbolic). */
typedef struct ShInt {
	int64_t v;
	bool sym;
} ShInt;

/* The integers of argument p, in row-major order: an attribute's integer,
 * symbol, logical (0 or 1) or array of them, or the known items of a
 * tensor argument (c->values). Reals that are whole numbers count as
 * integers. */
ShKnown shape_known_ints(const ShapeCall *c, int p, const ShInt **items,
		      size_t *n, Arena *arena);
/* x as an expression (in c->dims). */
const DimExpr *shape_int_expr(ShapeCall *c, ShInt x);
/* The same read as reals (symbols are not reals). */
ShKnown shape_known_reals(const ShapeCall *c, int p, const double **items,
		       size_t *n, Arena *arena);

/* The plain integer attribute p (tract converts it to a number: notes
 * C.0): an integer, a logical (0 or 1), or a tensor whose single item is
 * known. A symbol, or a value not known, fails with E0935. */
bool shape_plain_int(ShapeCall *c, int p, int64_t *out);
/* The same, at least `min` (E0908 otherwise). */
bool shape_plain_min(ShapeCall *c, int p, int64_t min, int64_t *out);
/* The real attribute p (an integer or a real). */
double shape_real(const Value *v);
/* The plain axis attribute p within [0, limit) (tract's axes are unsigned:
 * no negative axes); `what` names the tensor ("the input"). */
bool shape_axis(ShapeCall *c, int p, size_t limit, const char *what,
	     size_t *axis);

/* Whether extents a and b are known to differ (both known numbers). */
static inline bool shape_clash(int64_t a, int64_t b)
{
	return !dim_is_symbolic(a) && !dim_is_symbolic(b) && a != b;
}
/* Extent d (of what, at parameter p) must be a number known when the
 * model is loaded (E0935). */
bool shape_plain_dim(ShapeCall *c, int p, int64_t d, const char *what);
/* Tensor parameter p has rank `rank` (E0906). */
bool shape_need_rank(ShapeCall *c, int p, uint32_t rank);

/* The datum type of tensor parameter p is one of allowed[0..n) when it is
 * known (E0940); `why` ends the message ("tract computes it in f32"). */
bool shape_dtype_in(ShapeCall *c, int p, const DType *allowed, size_t n,
		 const char *why);
/* Tensor parameters p and q have the same datum type when both are known
 * (E0940). */
bool shape_same_dtype(ShapeCall *c, int p, int q);

/* The result has the shape of the input (parameter 0), after checking
 * the plain axis attribute p_axis (-1: none) against its rank. */
bool shape_keep_shape(ShapeCall *c, int p_axis);
/* Several results (SF_TUPLE_RESULT): n of them, not known yet. */
void shape_outs(ShapeCall *c, size_t n);
/* Result k has extents dims (not copied). */
bool shape_out(ShapeCall *c, size_t k, const int64_t *dims, size_t rank);
/* The results (n of them, 0 for the single result of a row without
 * SF_TUPLE_RESULT) depend on the values of the inputs: unknown, with msg
 * saying on what. */
bool shape_data_dependent(ShapeCall *c, size_t n, const char *fmt, ...)
	UTIL_PRINTF(3, 4);
/* The results are not known (an input's shape is not): n as above. */
bool shape_unknown_n(ShapeCall *c, size_t n);

/* The broadcast of shapes a and b (named na and nb): the lower rank gets
 * leading unit axes (numpy's rule), or trailing ones (tract's binary
 * operations, notes B.7); then per axis the extents are equal or one of
 * them 1, E0905 at parameter p otherwise. Extents known only when the
 * model runs broadcast as they will: a known extent other than 1 wins,
 * two symbolic ones give their max. */
bool shape_broadcast(ShapeCall *c, int p, const Shape *a, const char *na,
		  const Shape *b, const char *nb, bool trailing, Shape *out);

#endif
