/*
 * tract_core.c - shapes of the operations of tract's registry tract_core
 * that work element by element or rearrange a tensor
 * (sema/tract/TRACT-NOTES.md C.1): the unit, binary and attributed
 * element-wise operations, the reductions, broadcast, downsample,
 * dyn_slice, gather, gather_elements, gather_nd, scatter_elements,
 * scatter_nd, one_hot, range, topk, trilu, softmax and log_softmax,
 * rms_norm and scaled_rms_norm, fft and stft, force_eval, load and store,
 * the complex views and clamped_swiglu. Each checks what tract checks
 * when it loads the operation (its deserializer and the op's result
 * facts), and what tract would fail on when it runs when the extents are
 * known.
 */
#include "shapes/tract_internal.h"

#include <math.h>

/* ---- element-wise ---------------------------------------------------------- */

/* The datum types tract's element-wise kernels compute on: bit operations
 * on integers and booleans (shifts on integers only), the others on
 * floats; a tensor of another type fails when tract runs the operation,
 * and is refused here where its type is known (E0940). */
static bool op_in(ShapeOp op, const ShapeOp *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i] == op)
			return true;
	return false;
}

static bool datum_fits(ShapeCall *c)
{
	static const ShapeOp bits[] = {
		SHAPE_OP_TRACT_CORE_BITAND, SHAPE_OP_TRACT_CORE_BITOR, SHAPE_OP_TRACT_CORE_BITXOR,
		SHAPE_OP_TRACT_CORE_BITNOT, SHAPE_OP_TRACT_CORE_XOR,
	};
	static const ShapeOp shifts[] = { SHAPE_OP_TRACT_SHL, SHAPE_OP_TRACT_SHR };
	static const ShapeOp floats[] = {
		SHAPE_OP_TRACT_CORE_ROUND_EVEN, SHAPE_OP_TRACT_CORE_ERF, SHAPE_OP_TRACT_CORE_HARD_SWISH,
		SHAPE_OP_TRACT_CORE_IS_NAN, SHAPE_OP_TRACT_CORE_IS_INF, SHAPE_OP_TRACT_ONNX_IS_NAN,
		SHAPE_OP_TRACT_ONNX_ISINF,
	};
	DType d = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	const char *takes = NULL;
	if (d == DT_NONE)
		return true;
	if (op_in(c->op, bits, sizeof(bits) / sizeof(*bits)) && dtype_is_float(d))
		takes = "integers and booleans";
	else if (op_in(c->op, shifts, sizeof(shifts) / sizeof(*shifts)) && (dtype_is_float(d) || d == DT_BOOL))
		takes = "integers";
	else if (op_in(c->op, floats, sizeof(floats) / sizeof(*floats)) && !dtype_is_float(d))
		takes = "floats";
	if (!takes)
		return true;
	return shape_fail(c, DIAG_E0940, 0, "the input is %s, but this operation computes on %s (tract fails on it when it runs)", dtype_name(d), takes);
}

/* The unit element-wise operations (round_even, erf, hard_swish, bitnot,
 * is_nan), those with attributes (is_inf, pow_const), gelu_approx, silu
 * and their aliases: the input's shape; predicates (SF_COMPARE) give
 * logicals. */
bool shape_tract_elementwise(ShapeCall *c)
{
	if (!datum_fits(c))
		return false;
	if (shape_op_flags(c->op) & SF_COMPARE)
		c->dtypes[0] = DT_BOOL;
	return shape_keep_shape(c, -1);
}

/* The binary operations (xor, bitand, bitor, bitxor, tract_shl,
 * tract_shr): tract equalizes the ranks by appending unit axes at the end
 * (notes B.7), then broadcast axis by axis; xor gives logicals. */
bool shape_tract_binary(ShapeCall *c)
{
	if (!datum_fits(c))
		return false;
	if (shape_op_flags(c->op) & SF_COMPARE)
		c->dtypes[0] = DT_BOOL;
	if (!c->known)
		return shape_unknown(c);
	Shape out;
	if (!shape_broadcast(c, 1, shape_in(c, 0), "'x'", shape_in(c, 1), "'y'", true, &out))
		return false;
	return shape_result(c, out.dims, out.rank);
}

/* argmax_reduce_last, argmin_reduce_last, product_reduce(input, axes):
 * the reduced axes kept with extent 1; the arg reductions give i64
 * indices along their one axis. */
bool shape_tract_reduce(ShapeCall *c)
{
	if (c->op != SHAPE_OP_TRACT_CORE_PRODUCT_REDUCE) {
		c->dtypes[0] = DT_I64;
		if (shape_len(c->args[1]) != 1)
			return shape_fail(c, DIAG_E0907, 1, "'axes' has %u items; %s finds the index of its extremum along one axis", c->args[1]->n, shape_op_name(c->op));
	}
	return shape_reduce(c);
}

/* ---- shapes of tensors ---------------------------------------------------------- */

/* broadcast(input, shape): numpy's broadcast of the input's shape and
 * `shape` (whose items may be symbols). */
bool shape_tract_broadcast(ShapeCall *c)
{
	if (!shape_check_items_min(c, 1, 0, DIAG_E0901))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Value *shape = c->args[1];
	size_t n = shape_len(shape);
	int64_t *dims = shape_dims(c, n);
	for (size_t i = 0; i < n; i++)
		dims[i] = shape_item_dim(shape, i);
	Shape to = { dims, (uint32_t)n, true }, out;
	if (!shape_broadcast(c, 1, shape_in(c, 0), "the input", &to, "'shape'", false, &out))
		return false;
	return shape_result(c, out.dims, out.rank);
}

/* downsample(input, axis, stride, modulo): along axis, items modulo,
 * modulo + |stride|, ...: ceil((d - modulo) / |stride|) of them (none
 * when d <= modulo). */
bool shape_tract_downsample(ShapeCall *c)
{
	int64_t stride, modulo;
	if (!shape_plain_int(c, 2, &stride) || !shape_plain_min(c, 3, 0, &modulo))
		return false;
	if (stride == 0 || stride == INT64_MIN)
		return shape_fail(c, DIAG_E0908, 2, "'stride' is %lld; it must be a non-zero number", (long long)stride);
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 1, in->rank, "the input", &axis))
		return false;
	int64_t *dims = shape_dims(c, in->rank), d = in->dims[axis], step = stride < 0 ? -stride : stride;
	shape_copy(dims, in->dims, in->rank);
	if (!dim_is_symbolic(d)) {
		dims[axis] = d <= modulo ? 0 : shape_ceildiv(d - modulo, step);
	} else if (!shape_dim_sub(c, 3, d, modulo, &dims[axis]) ||
		   !shape_dim_ceil_div(c, 2, dims[axis], step, &dims[axis])) {
		return false;
	}
	return shape_result(c, dims, in->rank);
}

/* dyn_slice(input, start, end, len, axis): the input with extent len
 * along axis (start and end may be computed when the model runs, where
 * end - start must be len). */
bool shape_tract_dyn_slice(ShapeCall *c)
{
	const ShInt *len, *start, *end;
	size_t nl = 0, ns = 0, ne = 0;
	ShKnown kl = shape_known_ints(c, 3, &len, &nl, c->arena);
	if (kl == SH_KNOWN_OTHER || (kl == SH_KNOWN_OK && nl != 1))
		return shape_fail(c, DIAG_E0908, 3, "'len' must be one integer (an extent, maybe symbolic)");
	if (kl == SH_KNOWN_OK && !len[0].sym && len[0].v < 0)
		return shape_fail(c, DIAG_E0908, 3, "'len' is %lld; it must be non-negative", (long long)len[0].v);
	if (kl == SH_KNOWN_OK && shape_known_ints(c, 1, &start, &ns, c->arena) == SH_KNOWN_OK &&
	    shape_known_ints(c, 2, &end, &ne, c->arena) == SH_KNOWN_OK && ns == 1 && ne == 1 &&
	    (c->dims || (!start[0].sym && !end[0].sym && !len[0].sym))) {
		/* end - start is len when the model runs: known to differ? */
		int64_t span, want;
		bool differ = false;
		if (!start[0].sym && !end[0].sym && !len[0].sym) {
			differ = !__builtin_sub_overflow(end[0].v, start[0].v, &span) && span != len[0].v;
		} else {
			const DimExpr *e = dim_sub(c->dims, shape_int_expr(c, end[0]), shape_int_expr(c, start[0]));
			differ = e && dim_is_const(e, &span) && dim_is_const(shape_int_expr(c, len[0]), &want) && span != want;
		}
		if (differ)
			return shape_fail(c, DIAG_E0908, 3, "'len' is %s but the slice from %s to %s holds %lld items", len[0].sym ? shape_dim_text(c, len[0].v) : arena_printf(c->arena, "%lld", (long long)len[0].v), start[0].sym ? shape_dim_text(c, start[0].v) : arena_printf(c->arena, "%lld", (long long)start[0].v), end[0].sym ? shape_dim_text(c, end[0].v) : arena_printf(c->arena, "%lld", (long long)end[0].v), (long long)span);
	}
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 4, in->rank, "the input", &axis))
		return false;
	if (kl != SH_KNOWN_OK)
		return shape_data_dependent(c, 0, "the extent along axis %zu is 'len', whose value is computed when the model runs", axis);
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank);
	dims[axis] = len[0].v;
	return shape_result(c, dims, in->rank);
}

/* ---- gathering and scattering ----------------------------------------------- */

/* gather(input, indices, axis): input[:axis] ++ indices ++
 * input[axis+1:]. */
bool shape_tract_gather(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *ix = shape_in(c, 1);
	size_t axis;
	if (!shape_axis(c, 2, in->rank, "the input", &axis))
		return false;
	size_t rank = in->rank - 1 + ix->rank;
	int64_t *dims = shape_dims(c, rank);
	shape_copy(dims, in->dims, axis);
	shape_copy(dims + axis, ix->dims, ix->rank);
	shape_copy(dims + axis + ix->rank, in->dims + axis + 1, in->rank - axis - 1);
	return shape_result(c, dims, rank);
}

/* gather_elements(input, indices, axis): indices of the input's rank;
 * the result has their shape. */
bool shape_tract_gather_elements(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 2, in->rank, "the input", &axis) || !shape_need_rank(c, 1, in->rank))
		return false;
	return shape_result_as(c, shape_in(c, 1));
}

/* Fails (E0942 at p) saying that extent `ia` of a and `ib` of b differ. */
static bool extents_differ(ShapeCall *c, int p, const char *a, size_t ia,
			   int64_t x, const char *b, size_t ib, int64_t y,
			   const char *why)
{
	return shape_fail(c, DIAG_E0942, p, "axis %zu of %s is %s but axis %zu of %s is %s; %s", ia, a, shape_dim_text(c, x), ib, b, shape_dim_text(c, y), why);
}

/* The last extent k of indices (rank q >= 1, p) for gather_nd and
 * scatter_nd: a number, b + k at most the input's rank. */
static bool index_depth(ShapeCall *c, int p, int64_t b, int64_t *k)
{
	const Shape *in = shape_in(c, 0), *ix = shape_in(c, p);
	if (ix->rank == 0)
		return shape_fail(c, DIAG_E0906, p, "the indices have rank 0; their last axis holds index tuples");
	*k = ix->dims[ix->rank - 1];
	if (!shape_plain_dim(c, p, *k, "the length of the index tuples (the indices' last extent)"))
		return false;
	if (*k + b > (int64_t)in->rank || (uint64_t)b >= ix->rank)
		return shape_fail(c, DIAG_E0942, p, "the indices %s index tuples of %lld items%s; the input has rank %u", shape_shape_str(c, ix), (long long)*k, b ? arena_printf(c->arena, " after %lld batch axes", (long long)b) : "", in->rank);
	return true;
}

/* gather_nd(input, indices, batch_dims): ONNX GatherND: with q the rank
 * of indices and k their last extent, indices[:q-1] ++
 * input[batch_dims + k:]. */
bool shape_tract_gather_nd(ShapeCall *c)
{
	int64_t b, k;
	if (!shape_plain_min(c, 2, 0, &b))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *ix = shape_in(c, 1);
	if (!index_depth(c, 1, b, &k))
		return false;
	for (int64_t d = 0; d < b; d++)
		if (shape_clash(in->dims[d], ix->dims[d]))
			return extents_differ(c, 1, "the indices", (size_t)d, ix->dims[d], "the input", (size_t)d, in->dims[d], "the batch axes must agree");
	size_t rank = ix->rank - 1 + in->rank - (size_t)(b + k);
	int64_t *dims = shape_dims(c, rank);
	shape_copy(dims, ix->dims, ix->rank - 1);
	shape_copy(dims + ix->rank - 1, in->dims + b + k, in->rank - (size_t)(b + k));
	return shape_result(c, dims, rank);
}

/* Whether shapes a and b may be equal (same rank, no extents known to
 * differ). */
static bool may_equal(const Shape *a, const Shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (uint32_t d = 0; d < a->rank; d++)
		if (shape_clash(a->dims[d], b->dims[d]))
			return false;
	return true;
}

/* Fails (E0927 at p) for updates whose shape is not `want`. */
static bool updates_mismatch(ShapeCall *c, int p, const Shape *want,
			     const char *why)
{
	shape_fail(c, DIAG_E0927, p, "'%s' has shape ", shape_pname(c, p));
	shape_put_shape(c, shape_in(c, p));
	sb_puts(c->msg, "; it must be ");
	shape_put_shape(c, want);
	sb_printf(c->msg, " (%s)", why);
	return false;
}

/* scatter_elements(input, indices, updates, axis): the input's shape;
 * indices and updates of one shape and of the input's rank. */
/* The reductions of tract's scatters (core/scatter.rs). */
static const char *const scatter_reductions[] = { "none", "add", "mul", "min", "max", NULL };

bool shape_tract_scatter_elements(ShapeCall *c)
{
	if (!shape_check_enum(c, 4, scatter_reductions))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 3, in->rank, "the input", &axis) || !shape_need_rank(c, 1, in->rank))
		return false;
	if (!may_equal(shape_in(c, 2), shape_in(c, 1)))
		return updates_mismatch(c, 2, shape_in(c, 1), "the shape of the indices");
	return shape_result_as(c, in);
}

/* scatter_nd(input, indices, updates): the input's shape; updates of
 * shape indices[:q-1] ++ input[k:] (ONNX ScatterND). */
bool shape_tract_scatter_nd(ShapeCall *c)
{
	if (!shape_check_enum(c, 3, scatter_reductions))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *ix = shape_in(c, 1);
	int64_t k;
	if (!index_depth(c, 1, 0, &k))
		return false;
	size_t rank = ix->rank - 1 + in->rank - (size_t)k;
	int64_t *dims = shape_dims(c, rank);
	shape_copy(dims, ix->dims, ix->rank - 1);
	shape_copy(dims + ix->rank - 1, in->dims + k, in->rank - (size_t)k);
	Shape want = { dims, (uint32_t)rank, true };
	if (!may_equal(shape_in(c, 2), &want))
		return updates_mismatch(c, 2, &want, "the indices' leading axes, then the input's axes past the index tuples");
	return shape_result_as(c, in);
}

/* one_hot(input, axis, dim, value_off, value_on): a new axis of extent
 * dim at `axis`; the items have value_off's type. */
bool shape_tract_one_hot(ShapeCall *c)
{
	int64_t dim;
	if (!shape_plain_min(c, 2, 1, &dim))
		return false;
	const Value *off = c->args[3];
	c->dtypes[0] = off->kind == VAL_INT ? DT_I32 : off->kind == VAL_BOOL ? DT_BOOL : DT_F32;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis, rank = in->rank + 1;
	if (!shape_axis(c, 1, rank, "the output", &axis))
		return false;
	int64_t *dims = shape_dims(c, rank);
	for (size_t d = 0, k = 0; d < rank; d++)
		dims[d] = d == axis ? dim : in->dims[k++];
	return shape_result(c, dims, rank);
}

/* ---- range, topk, trilu ----------------------------------------------------- */

/* The datum type of range's result: f32 when a bound is real, else i64
 * (tdim bounds give i64 when the model runs); a bound whose tensor's type
 * is known decides. */
static DType range_dtype(const ShapeCall *c)
{
	DType t = DT_I64;
	for (int p = 0; p < 3; p++) {
		DType in = c->in_dtypes ? c->in_dtypes[p] : DT_NONE;
		const Value *v = c->args[p];
		if (dtype_is_float(in))
			return in;
		if (v && v->kind == VAL_SCALAR)
			t = DT_F32;
		if (c->values && c->values[p].items && c->values[p].n && c->values[p].items[0].kind == VAL_SCALAR)
			t = DT_F32;
	}
	return t;
}

/* The length of a range of reals (a bound or the step is not a whole
 * number). */
static bool range_reals(ShapeCall *c, int64_t *dims)
{
	const double *r[3];
	size_t n[3];
	for (int p = 0; p < 3; p++)
		if (shape_known_reals(c, p, &r[p], &n[p], c->arena) != SH_KNOWN_OK)
			return shape_data_dependent(c, 0, "the length of the range depends on '%s', known only when the model runs", shape_pname(c, p));
	if (r[2][0] == 0)
		return shape_fail(c, DIAG_E0908, 2, "'step' is 0; a range needs a non-zero step");
	double len = ceil((r[1][0] - r[0][0]) / r[2][0]);
	if (!(len < 9e18))
		return shape_fail(c, DIAG_E0929, 1, "the range from %g to %g by %g has too many items", r[0][0], r[1][0], r[2][0]);
	dims[0] = len > 0 ? (int64_t)len : 0;
	return shape_result(c, dims, 1);
}

/* range(start, end, step): rank 1, ceil((end - start) / step) items (none
 * when that is not positive). Computed for numbers; for symbolic start
 * and end with a number for step; else known only when the model runs. */
bool shape_tract_range(ShapeCall *c)
{
	c->dtypes[0] = range_dtype(c);
	const ShInt *v[3];
	size_t n[3] = { 0, 0, 0 };
	ShKnown k[3];
	for (int p = 0; p < 3; p++)
		k[p] = shape_known_ints(c, p, &v[p], &n[p], c->arena);
	for (int p = 0; p < 3; p++)
		if (k[p] != SH_KNOWN_NOT && n[p] != 1)
			return shape_fail(c, DIAG_E0908, p, "'%s' has %zu items; range needs one number", shape_pname(c, p), n[p]);
	int64_t *dims = shape_dims(c, 1);
	if (k[0] == SH_KNOWN_OTHER || k[1] == SH_KNOWN_OTHER || k[2] == SH_KNOWN_OTHER)
		return range_reals(c, dims);
	if (k[2] == SH_KNOWN_OK && !v[2][0].sym && v[2][0].v == 0)
		return shape_fail(c, DIAG_E0908, 2, "'step' is 0; a range needs a non-zero step");
	for (int p = 0; p < 3; p++)
		if (k[p] != SH_KNOWN_OK || (p == 2 && v[2][0].sym))
			return shape_data_dependent(c, 0, "the length of the range depends on '%s', known only when the model runs", shape_pname(c, p));
	ShInt start = v[0][0], end = v[1][0];
	int64_t step = v[2][0].v, span;
	if (step == INT64_MIN)
		return shape_fail(c, DIAG_E0929, 2, "'step' is too large");
	if (start.sym || end.sym) {
		const DimExpr *e = dim_sub(c->dims, shape_int_expr(c, end), shape_int_expr(c, start));
		if (e && step < 0)
			e = dim_sub(c->dims, dim_const(c->dims, 0), e);
		if (!e)
			return shape_fail(c, DIAG_E0929, 1, "the length of the range has a coefficient beyond 2^63 - 1");
		if (!dim_is_const(e, &span)) {
			if (!shape_dim_ceil_div(c, 2, dim_encode(e), step > 0 ? step : -step, &dims[0]))
				return false;
			return shape_result(c, dims, 1);
		}
		/* a constant span, made positive for the step's direction */
		step = step > 0 ? step : -step;
	} else if (__builtin_sub_overflow(end.v, start.v, &span) || span == INT64_MIN) {
		return shape_fail(c, DIAG_E0929, 1, "the range from %lld to %lld has too many items", (long long)start.v, (long long)end.v);
	}
	if (span == 0 || (span > 0) != (step > 0))
		dims[0] = 0;
	else
		dims[0] = step > 0 ? shape_ceildiv(span, step) : shape_ceildiv(-span, -step);
	return shape_result(c, dims, 1);
}

/* topk(input, k, axis, largest): values (the input's type) and their i64
 * indices, the input's shape with extent k along axis. */
bool shape_tract_topk(ShapeCall *c)
{
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	c->dtypes[1] = DT_I64;
	const ShInt *k;
	size_t n = 0;
	ShKnown known = shape_known_ints(c, 1, &k, &n, c->arena);
	if (known == SH_KNOWN_OTHER || (known == SH_KNOWN_OK && n != 1))
		return shape_fail(c, DIAG_E0908, 1, "'k' must be one integer");
	if (known == SH_KNOWN_OK && !k[0].sym && k[0].v < 0)
		return shape_fail(c, DIAG_E0908, 1, "'k' is %lld; it must be non-negative", (long long)k[0].v);
	if (!c->known)
		return shape_unknown_n(c, 2);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 2, in->rank, "the input", &axis))
		return false;
	if (known != SH_KNOWN_OK)
		return shape_data_dependent(c, 2, "the extent along axis %zu is k, whose value is computed when the model runs", axis);
	if (!dim_is_symbolic(in->dims[axis]) && !k[0].sym && k[0].v > in->dims[axis])
		return shape_fail(c, DIAG_E0908, 1, "k is %lld, more than the %lld items along axis %zu of the input", (long long)k[0].v, (long long)in->dims[axis], axis);
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank);
	dims[axis] = k[0].v;
	shape_outs(c, 2);
	return shape_out(c, 0, dims, in->rank) && shape_out(c, 1, dims, in->rank);
}

/* trilu(input, k, upper): the input's shape; the triangle is taken on
 * the last two axes. */
bool shape_tract_trilu(ShapeCall *c)
{
	const ShInt *k;
	size_t n = 0;
	ShKnown known = shape_known_ints(c, 1, &k, &n, c->arena);
	if (known == SH_KNOWN_OTHER || (known == SH_KNOWN_OK && n != 1))
		return shape_fail(c, DIAG_E0908, 1, "'k' must be one integer (the diagonal's offset)");
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (in->rank < 2)
		return shape_fail(c, DIAG_E0906, 0, "the input has rank %u; trilu works on its last two axes", in->rank);
	return shape_result_as(c, in);
}

/* ---- normalizations ---------------------------------------------------------- */

/* softmax(x, axes, exp), log_softmax(x, axes): the input's shape; axes
 * (when known) plain numbers of the input's axes. */
bool shape_tract_softmax(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	const ShInt *axes;
	size_t n = 0;
	ShKnown k = shape_known_ints(c, 1, &axes, &n, c->arena);
	if (k == SH_KNOWN_OTHER)
		return shape_fail(c, DIAG_E0908, 1, "'axes' must hold integers");
	for (size_t i = 0; k == SH_KNOWN_OK && i < n; i++) {
		if (axes[i].sym)
			return shape_fail(c, DIAG_E0935, 1, "axis %s is known only when the model runs; tract needs numbers in 'axes'", shape_dim_text(c, axes[i].v));
		if (axes[i].v < 0 || (uint64_t)axes[i].v >= in->rank)
			return shape_fail(c, DIAG_E0910, 1, "axis %lld in 'axes' is out of range: the input has %u dimension%s (tract reads axes as unsigned numbers)", (long long)axes[i].v, in->rank, in->rank == 1 ? "" : "s");
	}
	return shape_result_as(c, in);
}

/* rms_norm(input, axis, eps) and its alias: the input's shape. */
bool shape_tract_rms_norm(ShapeCall *c)
{
	return shape_keep_shape(c, 1);
}

/* A datum type attribute that may be empty ("" = unchanged). */
static bool optional_dtype(ShapeCall *c, int p, DType *out)
{
	*out = DT_NONE;
	if (c->args[p]->kind != VAL_STR || c->args[p]->n == 0)
		return true;
	return shape_tract_dtype(c, p, out);
}

/* scaled_rms_norm(input, scale, axis, eps, out_dt, scale_dt): rms_norm
 * times scale; the result has type out_dt (when given). */
bool shape_tract_scaled_rms_norm(ShapeCall *c)
{
	DType scale_dt;
	if (!optional_dtype(c, 4, &c->dtypes[0]) || !optional_dtype(c, 5, &scale_dt))
		return false;
	return shape_keep_shape(c, 2);
}

/* ---- fft, stft ------------------------------------------------------------------ */

/* The input of fft and stft: complex numbers as a last axis of 2 (real and
 * imaginary parts); axis one of the others. */
static bool complex_input(ShapeCall *c, size_t *axis)
{
	const Shape *in = shape_in(c, 0);
	if (in->rank < 2)
		return shape_fail(c, DIAG_E0906, 0, "the input has rank %u; %s needs an axis to transform and a last axis of 2 holding real and imaginary parts", in->rank, shape_op_name(c->op));
	if (shape_clash(in->dims[in->rank - 1], 2))
		return shape_fail(c, DIAG_E0942, 0, "the input %s has a last extent of %s; %s reads complex numbers as a last axis of 2 (real and imaginary parts)", shape_shape_str(c, in), shape_dim_text(c, in->dims[in->rank - 1]), shape_op_name(c->op));
	return shape_axis(c, 1, in->rank - 1, "the input (without its last axis of complex parts)", axis);
}

/* fft(input, axis, inverse): the input's shape. */
bool shape_tract_fft(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	size_t axis;
	if (!complex_input(c, &axis))
		return false;
	return shape_result_as(c, shape_in(c, 0));
}

/* stft(input, axis, frame, stride, window): axis replaced by (n_frames,
 * frame), n_frames = (d - frame) / stride + 1; the window, when given,
 * holds frame items. */
bool shape_tract_stft(ShapeCall *c)
{
	int64_t frame, stride;
	if (!shape_plain_min(c, 2, 1, &frame) || !shape_plain_min(c, 3, 1, &stride))
		return false;
	if (!c->known)
		return shape_unknown(c);
	if (!shape_absent(c, 4) && c->in[4].n == 1) {
		const Shape *w = shape_in(c, 4);
		if (w->rank != 1 || shape_clash(w->dims[0], frame))
			return shape_fail(c, DIAG_E0942, 4, "the window has shape %s; it must hold one factor per item of a frame: [%lld]", shape_shape_str(c, w), (long long)frame);
	}
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!complex_input(c, &axis))
		return false;
	int64_t d = in->dims[axis], frames;
	if (!dim_is_symbolic(d) && d < frame)
		return shape_fail(c, DIAG_E0915, 2, "a frame of %lld items is longer than axis %zu of the input (%lld)", (long long)frame, axis, (long long)d);
	if (!shape_dim_sub(c, 2, d, frame, &frames) || !shape_dim_div(c, 3, frames, stride, &frames) ||
	    !shape_dim_add(c, 3, frames, 1, &frames))
		return false;
	int64_t *dims = shape_dims(c, in->rank + 1);
	for (size_t i = 0; i < in->rank + 1; i++)
		dims[i] = i < axis ? in->dims[i] : i == axis ? frames : i == axis + 1 ? frame : in->dims[i - 1];
	return shape_result(c, dims, in->rank + 1);
}

/* ---- state and evaluation order ------------------------------------------------ */

/* force_eval(inputs, slots): passes its inputs through (the result is the
 * first that is not a slot); slots index them. */
bool shape_tract_force_eval(ShapeCall *c)
{
	const ShapeIn *v = &c->in[0];
	if (v->n == 0)
		return shape_fail(c, DIAG_E0907, 0, "'inputs' is empty; force_eval passes its inputs through");
	const Value *slots = c->args[1];
	for (size_t i = 0; i < shape_len(slots); i++)
		if (shape_item(slots, i) < 0 || (uint64_t)shape_item(slots, i) >= v->n)
			return shape_fail(c, DIAG_E0908, 1, "slot %lld is not one of the %zu inputs", (long long)shape_item(slots, i), v->n);
	if (!c->known)
		return shape_unknown(c);
	/* the result is the first input that is not a slot (tract passes
	 * those on) */
	for (size_t i = 0; i < v->n; i++) {
		bool slot = false;
		for (size_t k = 0; k < shape_len(slots) && !slot; k++)
			slot = (uint64_t)shape_item(slots, k) == i;
		if (!slot)
			return shape_result_as(c, &v->items[i]);
	}
	return shape_fail(c, DIAG_E0907, 1, "every input is a slot: force_eval passes on the inputs that are not, and would give nothing");
}

/* load(input, id): the value stored in slot id, or input's: the shape of
 * the first input. */
bool shape_tract_load(ShapeCall *c)
{
	if (c->in[0].n == 0)
		return shape_fail(c, DIAG_E0907, 0, "'input' is empty; load falls back to its first tensor");
	if (!c->known)
		return shape_unknown(c);
	return shape_result_as(c, &c->in[0].items[0]);
}

/* store(input, state, id): stores state in slot id, passes input
 * through. */
bool shape_tract_store(ShapeCall *c)
{
	return shape_keep_shape(c, -1);
}

/* ---- complex views, clamped_swiglu ----------------------------------------------- */

/* complex_to_inner_dim(input): a last axis of 2 added (real and imaginary
 * parts); inner_dim_to_complex(input): that axis removed. */
bool shape_tract_complex(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (c->op == SHAPE_OP_TRACT_CORE_COMPLEX_TO_INNER_DIM) {
		int64_t *dims = shape_dims(c, in->rank + 1);
		shape_copy(dims, in->dims, in->rank);
		dims[in->rank] = 2;
		return shape_result(c, dims, in->rank + 1);
	}
	if (in->rank == 0 || shape_clash(in->dims[in->rank - 1], 2))
		return shape_fail(c, in->rank ? DIAG_E0942 : DIAG_E0906, 0, "the input has shape %s; inner_dim_to_complex reads a last axis of 2 (real and imaginary parts)", shape_shape_str(c, in));
	return shape_result(c, in->dims, in->rank - 1);
}

/* clamped_swiglu(gate, up, alpha, limit): f32 of gate's shape; gate and
 * up of one shape, both f16 or f32; alpha finite, limit finite and
 * positive. */
bool shape_tract_clamped_swiglu(ShapeCall *c)
{
	static const DType floats[] = { DT_F16, DT_F32 };
	double alpha = shape_real(c->args[2]), limit = shape_real(c->args[3]);
	c->dtypes[0] = DT_F32;
	if (!isfinite(alpha))
		return shape_fail(c, DIAG_E0908, 2, "'alpha' is %g; it must be finite", alpha);
	if (!isfinite(limit) || limit <= 0)
		return shape_fail(c, DIAG_E0908, 3, "'limit' is %g; it must be finite and positive", limit);
	if (!shape_dtype_in(c, 0, floats, 2, "tract computes it in f32") ||
	    !shape_dtype_in(c, 1, floats, 2, "tract computes it in f32"))
		return false;
	if (!c->known)
		return shape_unknown(c);
	if (!may_equal(shape_in(c, 1), shape_in(c, 0)))
		return updates_mismatch(c, 1, shape_in(c, 0), "the shape of 'gate': clamped_swiglu does not broadcast");
	return shape_result_as(c, shape_in(c, 0));
}
