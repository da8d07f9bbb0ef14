/*
 * roi_matmul_update.c - shapes of the region-of-interest operations (spec 4.6), matrix
 * multiplication (4.7) and variable updates (4.8).
 */
#include "shapes/shapes_internal.h"

/* ---- 4.6 Region-of-Interest Operations ---------------------------------- */

/* rois (N, 2 * M) and batch_index (N, 1), M spatial dimensions. The spec
 * writes batch_index as (N, 1); a shape (N) is the same tensor (trailing
 * singleton dimensions, spec 2.2) and is accepted too. */
static bool roi_args(ShapeCall *c, size_t m, int64_t *n)
{
	const Shape *rois = shape_in(c, 1), *bi = shape_in(c, 2);
	if (rois->rank != 2 || rois->dims[1] != (int64_t)(2 * m)) {
		shape_fail(c, DIAG_E0928, 1, "'rois' has shape ");
		shape_put_shape(c, rois);
		sb_printf(c->msg, "; it must be (N, %zu): N regions of %zu coordinates for %zu spatial dimension%s",
			  2 * m, 2 * m, m, m == 1 ? "" : "s");
		return false;
	}
	*n = rois->dims[0];
	if (!(bi->rank == 1 || (bi->rank == 2 && bi->dims[1] == 1)) ||
	    bi->dims[0] != *n) {
		shape_fail(c, DIAG_E0928, 2, "'batch_index' has shape ");
		shape_put_shape(c, bi);
		sb_printf(c->msg, "; it must be (%lld, 1) or (%lld), one batch index per region",
			  (long long)*n, (long long)*n);
		return false;
	}
	return true;
}

/* avg_roi_pool, max_roi_pool, roi_resample: input 0, rois 1,
 * batch_index 2, output_size 3, method 4 (roi_resample). The output is
 * (N, C, output_size...). */
bool shape_roi(ShapeCall *c)
{
	static const char *const methods[] = { "symmetric", "asymmetric",
					       "aligned", NULL };
	if (!shape_check_items_min(c, 3, 1, DIAG_E0908))
		return false;
	if (c->op == SHAPE_OP_ROI_RESAMPLE && !shape_check_enum(c, 4, methods))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (in->rank < 3)
		return shape_fail(c, DIAG_E0906, 0,
			       "%s has rank %u; it must have a batch, a channel and at least one spatial dimension",
			       shape_role(c, 0, "the input"), in->rank);
	size_t m = in->rank - 2;
	int64_t n;
	if (!shape_check_len(c, 3, m, false, "the number of spatial dimensions") ||
	    !roi_args(c, m, &n))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	dims[0] = n;
	dims[1] = in->dims[1];
	for (size_t i = 0; i < m; i++)
		dims[2 + i] = shape_item(c->args[3], i);
	return shape_result(c, dims, in->rank);
}

/* ---- 4.7 Matrix Multiplication ------------------------------------------ */

/* "The rank of A and B must be at least 2 and they must be equal." The
 * first r - 2 dimensions broadcast as for binary operations; the agreeing
 * dimensions depend on transposeA and transposeB. */
bool shape_matmul(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *a = shape_in(c, 0), *b = shape_in(c, 1);
	if (a->rank < 2 || a->rank != b->rank) {
		shape_fail(c, DIAG_E0906, a->rank < 2 ? 0 : 1, "%s has shape ", shape_role(c, 0, "A"));
		shape_put_shape(c, a);
		sb_printf(c->msg, " and %s ", shape_role(c, 1, "B"));
		shape_put_shape(c, b);
		sb_puts(c->msg, "; their ranks must be equal and at least 2");
		return false;
	}
	uint32_t r = a->rank;
	bool ta = shape_bool(c->args[2]), tb = shape_bool(c->args[3]);
	int64_t *dims = shape_dims(c, r);
	for (uint32_t d = 0; d + 2 < r; d++) {
		int64_t x = a->dims[d], y = b->dims[d];
		if (x != y && x != 1 && y != 1) {
			shape_fail(c, DIAG_E0905, 1, "the batch dimensions of %s ", shape_role(c, 0, "A"));
			shape_put_shape(c, a);
			sb_printf(c->msg, " and %s ", shape_role(c, 1, "B"));
			shape_put_shape(c, b);
			sb_printf(c->msg,
				  " do not broadcast: dimension %u is %s and %s",
				  d, shape_dim_text(c, x), shape_dim_text(c, y));
			return false;
		}
		dims[d] = x == 1 ? y : x;
	}
	int64_t ka = a->dims[r - (ta ? 2 : 1)], kb = b->dims[r - (tb ? 1 : 2)];
	if (ka != kb) {
		shape_fail(c, DIAG_E0924, 1, "%s ", shape_role(c, 0, "A"));
		shape_put_shape(c, a);
		sb_printf(c->msg, "%s and %s ", ta ? " (transposed)" : "", shape_role(c, 1, "B"));
		shape_put_shape(c, b);
		sb_printf(c->msg,
			  "%s do not agree: A' has %s columns, B' has %s rows",
			  tb ? " (transposed)" : "", shape_dim_text(c, ka),
			  shape_dim_text(c, kb));
		return false;
	}
	dims[r - 2] = a->dims[r - (ta ? 1 : 2)];
	dims[r - 1] = b->dims[r - (tb ? 2 : 1)];
	return shape_result(c, dims, r);
}

/* ---- 4.8 Variable Updates ------------------------------------------------ */

/* "The rank and shape of value must equal the shape of variable." (That
 * the first argument is a variable, and is updated once, are rules across
 * operations: the flattener checks them.) */
bool shape_update(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *var = shape_in(c, 0), *val = shape_in(c, 1);
	if (!shape_equal(var, val)) {
		shape_fail(c, DIAG_E0927, 1, "%s has shape ", shape_role(c, 1, "the new value"));
		shape_put_shape(c, val);
		sb_printf(c->msg, " but %s has ", shape_role(c, 0, "the variable"));
		shape_put_shape(c, var);
		sb_puts(c->msg, "; they must be equal");
		return false;
	}
	return shape_result_as(c, var);
}
