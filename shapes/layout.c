/*
 * layout.c - shapes of the tensor shape operations (spec 4.5): reshape,
 * squeeze, unsqueeze (4.5.1), transpose (4.5.2), split, concat, stack,
 * unstack (4.5.3), slice (4.5.4, with the stride of 1.0.4), pad (4.5.5),
 * tile (4.5.6), gather (4.5.7, 1.0.4).
 */
#include "shapes/shapes_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- 4.5.1 Reshaping ---------------------------------------------------- */

/* The range [axis_start, axis_start + axis_count) of the input that
 * reshape replaces. */
static bool reshape_range(ShapeCall *c, const Shape *in, size_t *start,
			  size_t *count)
{
	int64_t s = shape_int(c->args[2]), n = shape_int(c->args[3]);
	if (s < 0 || (uint64_t)s > in->rank)
		return shape_fail(c, DIAG_E0910, 2,
			       "axis_start is %lld; it must lie in [0, %u], the rank of the input",
			       (long long)s, in->rank);
	if (n < -1 || (n >= 0 && (uint64_t)n > in->rank - (uint64_t)s))
		return shape_fail(c, DIAG_E0910, 3,
			       "axis_count is %lld; with axis_start = %lld it must be -1 or lie in [0, %lld]",
			       (long long)n, (long long)s,
			       (long long)(in->rank - (uint64_t)s));
	*start = (size_t)s;
	*count = n < 0 ? in->rank - (size_t)s : (size_t)n;
	return true;
}

/* "Items in the shape array must all be non-negative or it must contain
 * at most one -1 item." A 0 item inherits the input's extent; a -1 item
 * is the quotient of the volumes. */
/* reshape with extents known only when the model runs (in the input or
 * in 'shape'): the same rules, computed on expressions; an inferred -1
 * must divide exactly. */
static bool reshape_symbolic(ShapeCall *c, const Shape *range, size_t minus,
			     int64_t *mid, size_t n)
{
	int64_t volume = 1, known = 1;
	for (size_t i = 0; i < range->rank; i++)
		if (!shape_dim_mul(c, 0, volume, range->dims[i], &volume))
			return false;
	for (size_t i = 0; i < n; i++)
		if (i != minus && !shape_dim_mul(c, 1, known, mid[i], &known))
			return false;
	if (minus != SIZE_MAX) {
		if (!shape_dim_exact_div(c, volume, known, &mid[minus])) {
			shape_fail(c, DIAG_E0917, 1, "the other items of 'shape' give %s, which does not divide the volume %s of ", shape_dim_text(c, known), shape_dim_text(c, volume));
			shape_put_shape(c, range);
			return false;
		}
		return true;
	}
	if (known == volume)
		return true;
	shape_fail(c, DIAG_E0917, 1, "cannot reshape ");
	shape_put_shape(c, range);
	sb_printf(c->msg, " (volume %s) to ", shape_dim_text(c, volume));
	Shape to = { mid, (uint32_t)n, true };
	shape_put_shape(c, &to);
	sb_printf(c->msg, " (volume %s)", shape_dim_text(c, known));
	return false;
}

bool shape_reshape(ShapeCall *c)
{
	const Value *shape = c->args[1];
	size_t n = shape_len(shape), minus = SIZE_MAX;
	bool symbolic = false;
	for (size_t i = 0; i < n; i++) {
		if (shape_item_symbolic(shape, i)) {
			symbolic = true;
			continue;
		}
		int64_t v = shape_item(shape, i);
		if (v < -1)
			return shape_fail(c, DIAG_E0917, 1,
				       "item %zu of 'shape' is %lld; items are extents, 0 (keep the input's) or -1 (infer)",
				       i, (long long)v);
		if (v == -1 && minus != SIZE_MAX)
			return shape_fail(c, DIAG_E0917, 1,
				       "'shape' has -1 at items %zu and %zu; at most one extent can be inferred",
				       minus, i);
		if (v == -1)
			minus = i;
	}
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t start = 0, count = 0;
	if (!reshape_range(c, in, &start, &count))
		return false;
	Shape range = { in->dims + start, (uint32_t)count, true };
	int64_t volume, known = 1;
	size_t rank = in->rank - count + n;
	int64_t *dims = shape_dims(c, rank);
	shape_copy(dims, in->dims, start);
	int64_t *mid = dims + start;
	symbolic |= shape_is_symbolic(&range);
	for (size_t i = 0; i < n; i++) {
		mid[i] = shape_item_dim(shape, i);
		if (mid[i] == 0) {
			if (i >= count)
				return shape_fail(c, DIAG_E0917, 1,
					       "item %zu of 'shape' is 0, but the reshaped range of the input has only %zu dimension%s",
					       i, count, count == 1 ? "" : "s");
			mid[i] = range.dims[i];
		}
	}
	if (symbolic) {
		if (!reshape_symbolic(c, &range, minus, mid, n))
			return false;
		shape_copy(dims + start + n, in->dims + start + count,
			in->rank - start - count);
		return shape_result(c, dims, rank);
	}
	shape_volume(&range, &volume);
	for (size_t i = 0; i < n; i++)
		if (mid[i] > 0 && !shape_mul(c, 1, known, mid[i], &known))
			return false;
	if (minus != SIZE_MAX) {
		if (known == 0 || volume % known != 0) {
			shape_fail(c, DIAG_E0917, 1,
				"the other items of 'shape' give %lld, which does not divide the volume %lld of ",
				(long long)known, (long long)volume);
			shape_put_shape(c, &range);
			return false;
		}
		mid[minus] = volume / known;
		known = volume;
	}
	if (known != volume) {
		shape_fail(c, DIAG_E0917, 1, "cannot reshape ");
		shape_put_shape(c, &range);
		sb_printf(c->msg, " (volume %lld) to ", (long long)volume);
		Shape to = { mid, (uint32_t)n, true };
		shape_put_shape(c, &to);
		sb_printf(c->msg, " (volume %lld)", (long long)known);
		return false;
	}
	shape_copy(dims + start + n, in->dims + start + count,
		in->rank - start - count);
	return shape_result(c, dims, rank);
}

/* squeeze: "Items in axes must be non-negative and less than the rank of
 * input"; only singleton dimensions can be removed. */
bool shape_squeeze(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	const Value *axes = c->args[1];
	const bool *removed = shape_check_axes(c, 1, in->rank, 0, "the input");
	if (!removed)
		return false;
	for (size_t i = 0; i < shape_len(axes); i++) {
		int64_t a = shape_item(axes, i);
		if (in->dims[a] != 1) {
			shape_fail(c, DIAG_E0918, 1,
				"axis %lld of the input has extent %s; only singleton axes can be squeezed (the input is ",
				(long long)a, shape_dim_text(c, in->dims[a]));
			shape_put_shape(c, in);
			sb_putc(c->msg, ')');
			return false;
		}
	}
	size_t rank = in->rank - shape_len(axes), k = 0;
	int64_t *dims = shape_dims(c, rank);
	for (uint32_t d = 0; d < in->rank; d++)
		if (!removed[d])
			dims[k++] = in->dims[d];
	return shape_result(c, dims, rank);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* unsqueeze as tract and NNEF-Tools read it: the axes, in ascending
 * order, inserted one after another, each at most the rank so far (an
 * axis listed twice inserts two dimensions there). */
static bool unsqueeze_in_turn(ShapeCall *c, const Shape *in, size_t n)
{
	int64_t *axes = shape_dims(c, n);
	for (size_t i = 0; i < n; i++)
		axes[i] = shape_item(c->args[1], i);
	qsort(axes, n, sizeof *axes, cmp_i64);
	int64_t *dims = shape_dims(c, in->rank + n);
	shape_copy(dims, in->dims, in->rank);
	size_t rank = in->rank;
	for (size_t i = 0; i < n; i++) {
		int64_t a = axes[i];
		if (a < 0 || (uint64_t)a > rank)
			return shape_fail(c, DIAG_E0910, 1, "axis %lld in 'axes' is out of range: the axes are inserted in ascending order, and before it the result has %zu dimension%s", (long long)a, rank, rank == 1 ? "" : "s");
		memmove(dims + a + 1, dims + a, (rank - (size_t)a) * sizeof *dims);
		dims[a] = 1;
		rank++;
	}
	return shape_result(c, dims, rank);
}

/* unsqueeze: "Items in axes must be non-negative and less than the rank of
 * output"; they are the positions of the new singleton dimensions, a set.
 * tract and NNEF-Tools insert them one after another instead, so that an
 * axis may repeat: tract's dialect reads them so, and --lenient too, with
 * the repetition reported as E0911 in a warning. */
bool shape_unsqueeze(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	const Value *axes = c->args[1];
	size_t rank = in->rank + shape_len(axes), k = 0;
	if (c->tract_rules || c->lenient) {
		for (size_t i = 0; i < shape_len(axes); i++)
			for (size_t j = 0; j < i; j++) {
				if (shape_item(axes, i) != shape_item(axes, j))
					continue;
				if (!c->tract_rules) { /* a warning */
					shape_fail(c, DIAG_E0911, 1, "axis %lld is listed twice in 'axes': --lenient reads it as tract and NNEF-Tools do, two dimensions inserted there one after the other", (long long)shape_item(axes, i));
					c->deviation = true;
				}
				return unsqueeze_in_turn(c, in, shape_len(axes));
			}
	}
	const bool *added = shape_check_axes(c, 1, rank, -1, "the output");
	if (!added) {
		if (c->code == DIAG_E0911)
			shape_hint(c, "tract and NNEF-Tools insert the axes one after another, so that a repeated axis adds two dimensions: --lenient or --dialect=tract reads it so");
		return false;
	}
	int64_t *dims = shape_dims(c, rank);
	for (size_t d = 0; d < rank; d++)
		dims[d] = added[d] ? 1 : in->dims[k++];
	return shape_result(c, dims, rank);
}

/* ---- 4.5.2 Transposing -------------------------------------------------- */

/* "If the axes array has n items, it must be a permutation of the integers
 * from 0 to n-1 (inclusive). The length of axes must be less than or equal
 * to the rank of input." */
bool shape_transpose(ShapeCall *c)
{
	const Value *axes = c->args[1];
	size_t n = shape_len(axes);
	bool *seen = ARENA_ARRAY(c->arena, bool, n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		int64_t a = shape_item(axes, i);
		bool in_range = a >= 0 && (uint64_t)a < n;
		if (in_range && !seen[a]) {
			seen[a] = true;
			continue;
		}
		return shape_fail(c, DIAG_E0919, 1,
			       "'axes' has %zu items, so it must be a permutation of 0..%zu; item %zu is %lld%s",
			       n, n ? n - 1 : 0, i, (long long)a,
			       in_range ? ", listed twice" : "");
	}
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (n > in->rank)
		return shape_fail(c, DIAG_E0907, 1,
			       "'axes' has %zu items, more than the rank %u of the input",
			       n, in->rank);
	int64_t *dims = shape_dims(c, in->rank);
	for (size_t d = 0; d < in->rank; d++)
		dims[d] = d < n ? in->dims[shape_item(axes, d)] : in->dims[d];
	return shape_result(c, dims, in->rank);
}

/* ---- 4.5.3 Splitting and Concatenation ------------------------------------ */

/* An axis attribute (parameter p) within [0, limit). */
static bool check_axis(ShapeCall *c, int p, size_t limit, const char *what)
{
	int64_t a = shape_int(c->args[p]);
	if (a >= 0 && (uint64_t)a < limit)
		return true;
	return shape_fail(c, DIAG_E0910, p,
		       "axis %lld is out of range: %s has %zu dimension%s",
		       (long long)a, what, limit, limit == 1 ? "" : "s");
}

/* split: "Items in ratios must be positive. The sum of ratios must divide
 * the extent of value along dimension axis without remainder." */
bool shape_split(ShapeCall *c)
{
	const Value *ratios = c->args[2];
	if (shape_len(ratios) == 0)
		return shape_fail(c, DIAG_E0907, 2,
			       "'ratios' is empty; it needs an item per result");
	if (!shape_check_items_min(c, 2, 1, DIAG_E0908))
		return false;
	size_t n = shape_len(ratios);
	c->outs = ARENA_ARRAY(c->arena, Shape, n);
	c->nouts = n;
	if (!c->known) {
		for (size_t i = 0; i < n; i++)
			c->outs[i].known = false;
		return true;
	}
	const Shape *in = shape_in(c, 0);
	if (!check_axis(c, 1, in->rank, "the input"))
		return false;
	size_t axis = (size_t)shape_int(c->args[1]);
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!shape_add(c, 2, sum, shape_item(ratios, i), &sum))
			return false;
	int64_t unit;
	if (dim_is_symbolic(in->dims[axis])) {
		/* S / sum: exact when it can be told (2 * S / 2), else the
		 * quotient, checked when the model runs */
		if (!shape_dim_exact_div(c, in->dims[axis], sum, &unit) &&
		    !shape_dim_div(c, 2, in->dims[axis], sum, &unit))
			return false;
		for (size_t i = 0; i < n; i++) {
			int64_t *dims = shape_dims(c, in->rank);
			shape_copy(dims, in->dims, in->rank);
			if (!shape_dim_mul(c, 2, unit, shape_item(ratios, i), &dims[axis]))
				return false;
			c->outs[i] = (Shape){ dims, in->rank, true };
		}
		return true;
	}
	if (in->dims[axis] % sum != 0)
		return shape_fail(c, DIAG_E0920, 2,
			       "the ratios add up to %lld, which does not divide the extent %lld of axis %zu",
			       (long long)sum, (long long)in->dims[axis], axis);
	unit = in->dims[axis] / sum;
	for (size_t i = 0; i < n; i++) {
		int64_t *dims = shape_dims(c, in->rank);
		shape_copy(dims, in->dims, in->rank);
		dims[axis] = unit * shape_item(ratios, i);
		c->outs[i] = (Shape){ dims, in->rank, true };
	}
	return true;
}

/* concat: "The rank of values[i] must be the same. The shapes of values[i]
 * for all dimensions other than axis must be the same." */
bool shape_concat(ShapeCall *c)
{
	const ShapeIn *v = &c->in[0];
	if (v->n == 0)
		return shape_fail(c, DIAG_E0907, 0,
			       "'values' is empty; there is nothing to concatenate");
	if (!c->known)
		return shape_unknown(c);
	const Shape *first = &v->items[0];
	if (!check_axis(c, 1, first->rank, "values[0]"))
		return false;
	size_t axis = (size_t)shape_int(c->args[1]);
	int64_t sum = 0;
	for (size_t k = 0; k < v->n; k++) {
		const Shape *s = &v->items[k];
		bool ok = s->rank == first->rank;
		for (uint32_t d = 0; d < s->rank && ok; d++)
			ok = d == axis || s->dims[d] == first->dims[d];
		if (!ok) {
			shape_fail(c, s->rank == first->rank ? DIAG_E0922
							  : DIAG_E0906,
				0, "values[%zu] has shape ", k);
			shape_put_shape(c, s);
			sb_puts(c->msg, " and values[0] has ");
			shape_put_shape(c, first);
			if (s->rank == first->rank)
				sb_printf(c->msg, "; they may differ only along axis %zu", axis);
			else
				sb_puts(c->msg, "; their ranks differ");
			return false;
		}
		if (!shape_dim_add(c, 0, sum, s->dims[axis], &sum))
			return false;
	}
	int64_t *dims = shape_dims(c, first->rank);
	shape_copy(dims, first->dims, first->rank);
	dims[axis] = sum;
	return shape_result(c, dims, first->rank);
}

/* stack: "the rank of output is the rank of input plus 1. The axis must be
 * non-negative and less than the rank of output." The values are stacked
 * as they are, so their shapes must be equal. */
bool shape_stack(ShapeCall *c)
{
	const ShapeIn *v = &c->in[0];
	if (v->n == 0)
		return shape_fail(c, DIAG_E0907, 0,
			       "'values' is empty; there is nothing to stack");
	if (!c->known)
		return shape_unknown(c);
	const Shape *first = &v->items[0];
	if (!check_axis(c, 1, first->rank + 1, "the output"))
		return false;
	for (size_t k = 1; k < v->n; k++)
		if (!shape_equal(&v->items[k], first)) {
			shape_fail(c, DIAG_E0922, 0, "values[%zu] has shape ", k);
			shape_put_shape(c, &v->items[k]);
			sb_puts(c->msg, " and values[0] has ");
			shape_put_shape(c, first);
			sb_puts(c->msg, "; stacked tensors must have equal shapes");
			return false;
		}
	size_t axis = (size_t)shape_int(c->args[1]), rank = first->rank + 1;
	int64_t *dims = shape_dims(c, rank);
	for (size_t d = 0, k = 0; d < rank; d++)
		dims[d] = d == axis ? (int64_t)v->n : first->dims[k++];
	return shape_result(c, dims, rank);
}

/* unstack: "the rank of output is the rank of input minus 1. The axis must
 * be non-negative and less than the rank of input." One result per index
 * along axis. */
bool shape_unstack(ShapeCall *c)
{
	if (!c->known)
		return true; /* outs = NULL: the number is not known */
	const Shape *in = shape_in(c, 0);
	if (!check_axis(c, 1, in->rank, "the input"))
		return false;
	size_t axis = (size_t)shape_int(c->args[1]);
	int64_t n = in->dims[axis];
	if (dim_is_symbolic(n))
		return true; /* outs = NULL: the number is known when it runs */
	int64_t *dims = shape_dims(c, in->rank - 1);
	for (size_t d = 0, k = 0; d < in->rank; d++)
		if (d != axis)
			dims[k++] = in->dims[d];
	c->outs = ARENA_ARRAY(c->arena, Shape, n ? (size_t)n : 1);
	c->nouts = (size_t)n;
	for (int64_t i = 0; i < n; i++)
		c->outs[i] = (Shape){ dims, in->rank - 1, true };
	return true;
}

/* ---- 4.5.4 Slicing (1.0.5) ----------------------------------------------- */

/* The extent of slice item i along an axis of extent x (stride st). The
 * spec's "(end - begin) / stride, rounding down" undercounts when the
 * stride does not divide the range (0:5:2 takes 0, 2 and 4); nnefkit
 * counts the indices begin, begin + stride, ... before end. */
/* The extent of slice item i when the extent x, begin or end is known
 * only when the model runs: negative known bounds count from the end (and
 * a known end of 0 under legacy_end is the end); the bounds are taken to
 * lie within the axis (checked when the model runs); the count of
 * indices is ceil((end - begin) / stride). */
static bool slice_symbolic(ShapeCall *c, size_t i, int64_t x, int64_t st,
			   bool legacy_end, int64_t *out)
{
	const Value *bv = c->args[2]->u.items[i], *ev = c->args[3]->u.items[i];
	int64_t b = shape_item_dim(c->args[2], i), e = shape_item_dim(c->args[3], i);
	if (bv->kind == VAL_INT && bv->u.i < 0 &&
	    !shape_dim_offset(c, 2, x, bv->u.i, &b))
		return false;
	if (ev->kind == VAL_INT && ev->u.i == 0 && legacy_end)
		e = x;
	else if (ev->kind == VAL_INT && ev->u.i < 0 &&
		 !shape_dim_offset(c, 3, x, ev->u.i, &e))
		return false;
	int64_t span;
	if (!(st > 0 ? shape_dim_sub(c, 3, e, b, &span)
		     : shape_dim_sub(c, 3, b, e, &span)))
		return false;
	return shape_dim_ceil_div(c, 3, span, st > 0 ? st : -st, out);
}

static bool slice_extent(ShapeCall *c, size_t i, int64_t x, int64_t st,
			 bool legacy_end, int64_t *out)
{
	if (dim_is_symbolic(x) || shape_item_symbolic(c->args[2], i) ||
	    shape_item_symbolic(c->args[3], i))
		return slice_symbolic(c, i, x, st, legacy_end, out);
	int64_t b = shape_item(c->args[2], i), e = shape_item(c->args[3], i);
	if (legacy_end && e == 0)
		e = x; /* "end[i] == 0 ... slicing until the end" */
	if (b < 0)
		b += x;
	if (e < 0)
		e += x;
	if (st > 0 ? e < b : b < e)
		return shape_fail(c, DIAG_E0923, 3,
			       "item %zu slices from %lld to %lld with stride %lld; with a %s stride, end must be %s begin (after adding the extent %lld to negative values)",
			       i, (long long)shape_item(c->args[2], i),
			       (long long)shape_item(c->args[3], i), (long long)st,
			       st > 0 ? "positive" : "negative",
			       st > 0 ? "at least" : "at most", (long long)x);
	/* "Any value larger than x is treated as x. Any value less than 0
	 * (after addition of x) is treated as -1." A forward slice starts at
	 * 0 at the earliest; a backward one at x - 1 at the latest. */
	int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? x : x - 1;
	b = b < lo ? lo : b > hi ? hi : b;
	e = e < lo ? lo : e > hi ? hi : e;
	int64_t span = st > 0 ? e - b : b - e, step = st > 0 ? st : -st;
	*out = span <= 0 ? 0 : (span - 1) / step + 1;
	return true;
}

bool shape_slice(ShapeCall *c)
{
	const Value *axes = c->args[1], *stride = c->args[4];
	size_t n = shape_len(axes);
	if (shape_len(c->args[2]) != n || shape_len(c->args[3]) != n)
		return shape_fail(c, DIAG_E0907, shape_len(c->args[2]) != n ? 2 : 3,
			       "'axes', 'begin' and 'end' have %zu, %zu and %zu items; they must have the same length",
			       n, shape_len(c->args[2]), shape_len(c->args[3]));
	if (shape_len(stride) != 0 && shape_len(stride) != n)
		return shape_fail(c, DIAG_E0907, 4,
			       "'stride' has %zu item%s; it needs %zu (one per axis) or none",
			       shape_len(stride), shape_len(stride) == 1 ? "" : "s", n);
	bool all_one = true;
	for (size_t i = 0; i < shape_len(stride); i++) {
		if (shape_item(stride, i) == 0)
			return shape_fail(c, DIAG_E0908, 4,
				       "item %zu of 'stride' is 0; strides must be non-zero",
				       i);
		all_one &= shape_item(stride, i) == 1;
	}
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	/* axes listed twice would slice one axis twice: nnefkit requires
	 * them unique, as for every other axes attribute */
	if (!shape_check_axes(c, 1, in->rank, 0, "the input"))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank);
	for (size_t i = 0; i < n; i++) {
		size_t a = (size_t)shape_item(axes, i);
		int64_t st = shape_len(stride) ? shape_item(stride, i) : 1;
		/* tract reads an end of 0 as the end whatever the stride */
		if (!slice_extent(c, i, in->dims[a], st, all_one || c->tract_rules, &dims[a]))
			return false;
	}
	return shape_result(c, dims, in->rank);
}

/* ---- 4.5.5 Padding, 4.5.6 Tiling, 4.5.7 Gathering ------------------------- */

/* pad: input 0, padding 1, border 2, value 3. One (p, q) pair per
 * dimension; the extent becomes x + p + q. Border Modes lists 'ignore'
 * too, but it leaves border values out of a calculation, and pad has none
 * to leave them out of: its output would be undefined there, so nnefkit
 * accepts the other four. */
bool shape_pad(ShapeCall *c)
{
	static const char *const borders[] = { "constant", "replicate",
					       "reflect", "reflect-even", NULL };
	if (!shape_check_enum(c, 2, borders))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (!shape_check_len(c, 1, in->rank, false, "the rank of the input"))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	for (size_t d = 0; d < in->rank; d++) {
		int64_t p = shape_pair(c->args[1], d, 0), q = shape_pair(c->args[1], d, 1);
		if (dim_is_symbolic(in->dims[d])) {
			if (!shape_dim_offset(c, 1, in->dims[d], p + q, &dims[d]))
				return false;
			continue;
		}
		if (!shape_add(c, 1, in->dims[d], p, &dims[d]) ||
		    !shape_add(c, 1, dims[d], q, &dims[d]))
			return false;
		if (dims[d] < 1)
			return shape_fail(c, DIAG_E0915, 1,
				       "padding (%lld, %lld) leaves dimension %zu with extent %s = %lld",
				       (long long)p, (long long)q, d,
				       shape_sum3(c, in->dims[d], p, q),
				       (long long)dims[d]);
	}
	return shape_result(c, dims, in->rank);
}

/* tile: "The length of repeats must equal the rank of input. The items in
 * repeats must be strictly positive." */
bool shape_tile(ShapeCall *c)
{
	if (!shape_check_items_min(c, 1, 1, DIAG_E0908))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (!shape_check_len(c, 1, in->rank, false, "the rank of the input"))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	for (size_t d = 0; d < in->rank; d++)
		if (!shape_dim_mul(c, 1, in->dims[d], shape_item_dim(c->args[1], d), &dims[d]))
			return false;
	return shape_result(c, dims, in->rank);
}

/* gather: "The value of axis must be non-negative" (and less than the rank
 * of input, for input.shape[axis] to be replaced); the output shape is
 * input[:axis] ++ indices ++ input[axis+1:]. */
bool shape_gather(ShapeCall *c)
{
	if (shape_int(c->args[2]) < 0)
		return shape_fail(c, DIAG_E0910, 2,
			       "axis %lld is negative",
			       (long long)shape_int(c->args[2]));
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *ix = shape_in(c, 1);
	if (!check_axis(c, 2, in->rank, "the input"))
		return false;
	size_t axis = (size_t)shape_int(c->args[2]);
	size_t rank = in->rank - 1 + ix->rank;
	int64_t *dims = shape_dims(c, rank);
	shape_copy(dims, in->dims, axis);
	shape_copy(dims + axis, ix->dims, ix->rank);
	shape_copy(dims + axis + ix->rank, in->dims + axis + 1,
		in->rank - axis - 1);
	return shape_result(c, dims, rank);
}
