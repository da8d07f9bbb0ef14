/*
 * tract_misc.c - what the shape functions of tract's operations share
 * (tract_internal.h), and the shapes of the operations of the registries
 * tract_pulse (sema/tract/TRACT-NOTES.md C.4: delay, mask, pulse_pad) and
 * tract_resource (C.5: tract_resource_get).
 */
#include "shapes/tract_internal.h"

#include <math.h>
#include <string.h>

/* ---- arguments ------------------------------------------------------------ */

bool shape_absent(const ShapeCall *c, int p)
{
	const Value *v = c->args[p];
	return !v || (v->kind == VAL_BOOL && !v->u.b);
}

/* The items of v, flattened (nested arrays and tuples in row-major
 * order), at most `cap`; false when there are more. */
static bool flatten_items(const Value *v, const Value **out, size_t cap,
			  size_t *n)
{
	if (v->kind != VAL_ARRAY && v->kind != VAL_TUPLE) {
		if (*n == cap)
			return false;
		out[(*n)++] = v;
		return true;
	}
	for (uint32_t i = 0; i < v->n; i++)
		if (!flatten_items(v->u.items[i], out, cap, n))
			return false;
	return true;
}

/* Counts the leaves of v. */
static size_t count_items(const Value *v)
{
	if (v->kind != VAL_ARRAY && v->kind != VAL_TUPLE)
		return 1;
	size_t n = 0;
	for (uint32_t i = 0; i < v->n; i++)
		n += count_items(v->u.items[i]);
	return n;
}

/* The leaves of argument p: those of its attribute value, or the known
 * items of its tensor. Returns false when they are not known. */
static bool leaves(const ShapeCall *c, int p, const Value **items,
		   size_t *n, Arena *arena)
{
	const Value *v = c->args[p];
	if (v && v->kind != VAL_TENSOR) {
		size_t cap = count_items(v);
		const Value **list = ARENA_ARRAY(arena, const Value *, cap ? cap : 1);
		*n = 0;
		flatten_items(v, list, cap, n);
		*items = NULL;
		/* copy the pointers' targets: the callers read Values */
		Value *copy = ARENA_ARRAY(arena, Value, cap ? cap : 1);
		for (size_t i = 0; i < *n; i++)
			copy[i] = *list[i];
		*items = copy;
		return true;
	}
	if (!c->values || !c->values[p].items)
		return false;
	*items = c->values[p].items;
	*n = c->values[p].n;
	return true;
}

/* What a leaf value is as a number: an integer (*i, and *r), a real that
 * is not a whole number (*r), a symbol (*i), or none. */
typedef enum Number { NUM_NONE, NUM_INT, NUM_REAL, NUM_SYMBOL } Number;

static Number number_of(const Value *v, ShInt *i, double *r)
{
	*i = (ShInt){ 0, false };
	switch (v->kind) {
	case VAL_INT:
		i->v = v->u.i;
		*r = (double)v->u.i;
		return NUM_INT;
	case VAL_BOOL:
		i->v = v->u.b;
		*r = v->u.b;
		return NUM_INT;
	case VAL_SCALAR:
		*r = v->u.s;
		if (!(v->u.s == floor(v->u.s) && fabs(v->u.s) < 9e18))
			return NUM_REAL;
		i->v = (int64_t)v->u.s;
		return NUM_INT;
	case VAL_SYMBOL:
		*i = (ShInt){ dim_encode(v->u.dim), true };
		return NUM_SYMBOL;
	case VAL_STR:
	case VAL_ARRAY:
	case VAL_TUPLE:
	case VAL_TENSOR:
		return NUM_NONE;
	}
	return NUM_NONE;
}

/* The leaves of argument p as numbers: integers (reals false) or reals
 * (reals true). */
static ShKnown known_numbers(const ShapeCall *c, int p, bool reals,
			     ShInt **ints, double **r, size_t *n, Arena *arena)
{
	const Value *vals;
	if (!leaves(c, p, &vals, n, arena))
		return SH_KNOWN_NOT;
	*ints = ARENA_ARRAY(arena, ShInt, *n ? *n : 1);
	*r = ARENA_ARRAY(arena, double, *n ? *n : 1);
	for (size_t i = 0; i < *n; i++) {
		Number k = number_of(&vals[i], &(*ints)[i], &(*r)[i]);
		if (k == NUM_NONE || k == (reals ? NUM_SYMBOL : NUM_REAL))
			return SH_KNOWN_OTHER;
	}
	return SH_KNOWN_OK;
}

ShKnown shape_known_ints(const ShapeCall *c, int p, const ShInt **items,
		      size_t *n, Arena *arena)
{
	ShInt *ints;
	double *r;
	ShKnown k = known_numbers(c, p, false, &ints, &r, n, arena);
	*items = ints;
	return k;
}

ShKnown shape_known_reals(const ShapeCall *c, int p, const double **items,
		       size_t *n, Arena *arena)
{
	ShInt *ints;
	double *r;
	ShKnown k = known_numbers(c, p, true, &ints, &r, n, arena);
	*items = r;
	return k;
}

const DimExpr *shape_int_expr(ShapeCall *c, ShInt x)
{
	return x.sym ? dim_expr_of(x.v) : dim_const(c->dims, x.v);
}

bool shape_plain_int(ShapeCall *c, int p, int64_t *out)
{
	const ShInt *items;
	size_t n = 0;
	ShKnown k = shape_known_ints(c, p, &items, &n, c->arena);
	if (k == SH_KNOWN_OK && n == 1 && !items[0].sym) {
		*out = items[0].v;
		return true;
	}
	if (k == SH_KNOWN_OK && n == 1)
		return shape_fail(c, DIAG_E0935, p, "'%s' is %s; tract needs a number known when the model is loaded", shape_pname(c, p), shape_dim_text(c, items[0].v));
	if (k == SH_KNOWN_NOT)
		return shape_fail(c, DIAG_E0935, p, "'%s' is not known when the model is loaded; tract needs a number there", shape_pname(c, p));
	return shape_fail(c, DIAG_E0908, p, "'%s' must be one integer", shape_pname(c, p));
}

bool shape_plain_min(ShapeCall *c, int p, int64_t min, int64_t *out)
{
	if (!shape_plain_int(c, p, out))
		return false;
	if (*out >= min)
		return true;
	return shape_fail(c, DIAG_E0908, p, "'%s' is %lld; it must be %s", shape_pname(c, p), (long long)*out, min == 1 ? "positive" : min == 0 ? "non-negative" : "larger");
}

double shape_real(const Value *v)
{
	if (v->kind == VAL_INT)
		return (double)v->u.i;
	if (v->kind == VAL_BOOL)
		return v->u.b;
	return v->kind == VAL_SCALAR ? v->u.s : 0.0;
}

bool shape_axis(ShapeCall *c, int p, size_t limit, const char *what,
	     size_t *axis)
{
	int64_t a;
	if (!shape_plain_int(c, p, &a))
		return false;
	if (a >= 0 && (uint64_t)a < limit) {
		*axis = (size_t)a;
		return true;
	}
	if (a < 0)
		return shape_fail(c, DIAG_E0910, p, "'%s' is %lld; tract reads axes as unsigned numbers, so negative axes are not counted from the end", shape_pname(c, p), (long long)a);
	return shape_fail(c, DIAG_E0910, p, "axis %lld is out of range: %s has %zu dimension%s", (long long)a, what, limit, limit == 1 ? "" : "s");
}

/* ---- shapes and datum types ----------------------------------------------- */

bool shape_plain_dim(ShapeCall *c, int p, int64_t d, const char *what)
{
	if (!dim_is_symbolic(d))
		return true;
	return shape_fail(c, DIAG_E0935, p, "%s is %s, known only when the model runs; tract needs a number known when the model is loaded", what, shape_dim_text(c, d));
}

bool shape_need_rank(ShapeCall *c, int p, uint32_t rank)
{
	const Shape *s = shape_in(c, p);
	if (s->rank == rank)
		return true;
	shape_fail(c, DIAG_E0906, p, "'%s' has shape ", shape_pname(c, p));
	shape_put_shape(c, s);
	sb_printf(c->msg, "; it must have rank %u", rank);
	return false;
}

bool shape_dtype_in(ShapeCall *c, int p, const DType *allowed, size_t n,
		 const char *why)
{
	DType t = c->in_dtypes ? c->in_dtypes[p] : DT_NONE;
	if (t == DT_NONE)
		return true;
	for (size_t i = 0; i < n; i++)
		if (allowed[i] == t)
			return true;
	shape_fail(c, DIAG_E0940, p, "'%s' is a tensor of %s; it must be of ", shape_pname(c, p), dtype_name(t));
	for (size_t i = 0; i < n; i++)
		sb_printf(c->msg, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", dtype_name(allowed[i]));
	sb_printf(c->msg, " (%s)", why);
	return false;
}

bool shape_same_dtype(ShapeCall *c, int p, int q)
{
	DType a = c->in_dtypes ? c->in_dtypes[p] : DT_NONE;
	DType b = c->in_dtypes ? c->in_dtypes[q] : DT_NONE;
	if (a == DT_NONE || b == DT_NONE || a == b)
		return true;
	return shape_fail(c, DIAG_E0940, q, "'%s' is a tensor of %s and '%s' of %s; they must be of the same datum type", shape_pname(c, p), dtype_name(a), shape_pname(c, q), dtype_name(b));
}

/* ---- results ---------------------------------------------------------------- */

void shape_outs(ShapeCall *c, size_t n)
{
	assert(n <= SHAPE_MAX_RESULTS);
	c->outs = ARENA_ARRAY(c->arena, Shape, n);
	c->nouts = n;
}

bool shape_out(ShapeCall *c, size_t k, const int64_t *dims, size_t rank)
{
	assert(k < c->nouts);
	if (!shape_check_volume(c, -1, dims, rank))
		return false;
	c->outs[k] = (Shape){ dims, (uint32_t)rank, true };
	return true;
}

bool shape_unknown_n(ShapeCall *c, size_t n)
{
	if (n)
		shape_outs(c, n);
	return shape_unknown(c);
}

bool shape_data_dependent(ShapeCall *c, size_t n, const char *fmt, ...)
{
	c->data_dependent = true;
	sb_clear(c->msg);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(c->msg, fmt, ap);
	va_end(ap);
	return shape_unknown_n(c, n);
}

/* Extent d of s in a result of rank `rank`: s aligned at the end
 * (numpy) or at the start (trailing unit axes added), 1 outside it. */
static int64_t aligned(const Shape *s, uint32_t d, uint32_t rank,
		       bool trailing)
{
	if (trailing)
		return d < s->rank ? s->dims[d] : 1;
	return d + s->rank >= rank ? s->dims[d + s->rank - rank] : 1;
}

bool shape_broadcast(ShapeCall *c, int p, const Shape *a, const char *na,
		  const Shape *b, const char *nb, bool trailing, Shape *out)
{
	uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
	int64_t *dims = shape_dims(c, rank);
	for (uint32_t d = 0; d < rank; d++) {
		int64_t x = aligned(a, d, rank, trailing), y = aligned(b, d, rank, trailing);
		if (x == y || y == 1) {
			dims[d] = x;
		} else if (x == 1) {
			dims[d] = y;
		} else if (!shape_clash(x, y)) {
			/* one known only when the model runs: a known extent
			 * other than 1 wins; two symbols broadcast to their
			 * max (they must be equal, or one 1) */
			if (!dim_is_symbolic(x))
				dims[d] = x;
			else if (!dim_is_symbolic(y))
				dims[d] = y;
			else
				dims[d] = dim_encode(dim_max(c->dims, dim_expr_of(x), dim_expr_of(y)));
		} else {
			shape_fail(c, DIAG_E0905, p, "%s ", na);
			shape_put_shape(c, a);
			sb_printf(c->msg, " and %s ", nb);
			shape_put_shape(c, b);
			sb_printf(c->msg, " do not broadcast: with %s unit axes added, axis %u is %s in one and %s in the other", trailing ? "trailing" : "leading", d, shape_dim_text(c, x), shape_dim_text(c, y));
			shape_hint(c, "along each axis the extents must be equal, or one of them 1");
			return false;
		}
	}
	*out = (Shape){ dims, rank, true };
	return true;
}

bool shape_keep_shape(ShapeCall *c, int p_axis)
{
	if (!c->known)
		return shape_unknown(c);
	size_t axis;
	if (p_axis >= 0 && !shape_axis(c, p_axis, shape_in(c, 0)->rank, "the input", &axis))
		return false;
	return shape_result_as(c, shape_in(c, 0));
}

/* ---- tract_pulse (C.4) ------------------------------------------------------- */

/* tract_pulse_delay(input, axis, delay, overlap): the axis grows by
 * overlap frames of history. */
bool shape_tract_pulse_delay(ShapeCall *c)
{
	int64_t delay, overlap;
	if (!shape_plain_min(c, 2, 0, &delay) || !shape_plain_min(c, 3, 0, &overlap))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 1, in->rank, "the input", &axis))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank);
	if (!shape_dim_add(c, 3, in->dims[axis], overlap, &dims[axis]))
		return false;
	return shape_result(c, dims, in->rank);
}

/* tract_pulse_mask(input, axis, begin, end, value): the input's shape;
 * end may be a symbol (resolved when the model runs). */
bool shape_tract_pulse_mask(ShapeCall *c)
{
	int64_t begin;
	if (!shape_plain_min(c, 2, 0, &begin))
		return false;
	return shape_keep_shape(c, 1);
}

/* tract_pulse_pulse_pad(input, axis, before, after, begin_input,
 * end_input, border, value, overlap): the input's shape; border
 * 'constant', 'replicated' or 'reflect'. */
bool shape_tract_pulse_pad(ShapeCall *c)
{
	static const char *const borders[] = { "constant", "replicated", "reflect", NULL };
	int64_t before, begin_input, overlap;
	if (!shape_plain_min(c, 2, 0, &before) ||
	    !shape_plain_min(c, 4, 0, &begin_input) ||
	    !shape_plain_min(c, 8, 0, &overlap) || !shape_check_enum(c, 6, borders))
		return false;
	return shape_keep_shape(c, 1);
}

/* ---- tract_resource (C.5) ------------------------------------------------------ */

/* tract_resource_get(label, key): a value read from a file of the model
 * when it is loaded; its shape is that of the value found there. */
bool shape_tract_resource_get(ShapeCall *c)
{
	const Value *label = c->args[0], *key = c->args[1];
	if (label->n == 0)
		return shape_fail(c, DIAG_E0908, 0, "the label is empty; it names a resource (a file) of the model");
	return shape_data_dependent(c, 0, "the shape of the value of key '%.*s' in the resource '%.*s', a file of the model read when it is loaded", (int)(key->n > 60 ? 60 : key->n), key->u.str, (int)(label->n > 60 ? 60 : label->n), label->u.str);
}
