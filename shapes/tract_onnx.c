/*
 * tract_onnx.c - shapes of the operations of tract's registry tract_onnx
 * (sema/tract/TRACT-NOTES.md C.3) that are not shared with tract_core:
 * lrn, ml_direct_lookup, ml_reverse_lookup, ml_tree_ensemble_classifier,
 * multinomial, non_max_suppression, non_zero, random. (is_nan and isinf
 * are element-wise, tract_core.c; grid_sample and resize are tract_core's
 * with a few more modes, tract_nn.c.)
 */
#include "shapes/tract_internal.h"

/* lrn(input, alpha, beta, bias, size): across the channels (axis 1); the
 * input's shape. */
bool shape_tract_lrn(ShapeCall *c)
{
	int64_t size;
	if (!shape_plain_min(c, 4, 1, &size))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (in->rank < 2)
		return shape_fail(c, DIAG_E0906, 0, "the input has rank %u; lrn normalizes across its channels, axis 1", in->rank);
	return shape_result_as(c, in);
}

/* ml_direct_lookup(input, values, fallback): values[input] (fallback out
 * of range): the input's shape, the type of values, which fallback
 * shares. */
bool shape_tract_ml_direct_lookup(ShapeCall *c)
{
	if (!shape_same_dtype(c, 1, 2))
		return false;
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[1] : DT_NONE;
	return shape_keep_shape(c, -1);
}

/* ml_reverse_lookup(input, keys, fallback): the index of each item among
 * the keys: i32 of the input's shape. */
bool shape_tract_ml_reverse_lookup(ShapeCall *c)
{
	c->dtypes[0] = DT_I32;
	return shape_keep_shape(c, -1);
}

/* ml_tree_ensemble_classifier(input, trees, nodes, leaves,
 * max_used_feature, n_classes, aggregate_fn): input [N, F] read as f32;
 * the result f32 [N, n_classes]. */
bool shape_tract_ml_tree_ensemble(ShapeCall *c)
{
	static const char *const aggregates[] = { "SUM", "AVERAGE", "MAX", "MIN", NULL };
	int64_t max_used, n_classes;
	if (!shape_plain_min(c, 4, 0, &max_used) || !shape_plain_min(c, 5, 1, &n_classes) ||
	    !shape_check_enum(c, 6, aggregates))
		return false;
	c->dtypes[0] = DT_F32;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (!shape_need_rank(c, 0, 2))
		return false;
	if (!dim_is_symbolic(in->dims[1]) && in->dims[1] < max_used)
		return shape_fail(c, DIAG_E0942, 0, "the input %s has %lld features, but the trees read up to feature %lld", shape_shape_str(c, in), (long long)in->dims[1], (long long)max_used);
	int64_t *dims = shape_dims(c, 2);
	dims[0] = in->dims[0];
	dims[1] = n_classes;
	return shape_result(c, dims, 2);
}

/* multinomial(input, dtype, sample_size, seed): input [batch, classes]
 * of numbers known when the model is loaded; the result [batch,
 * sample_size] of i32 (dtype 6) or i64 (dtype 7). */
bool shape_tract_multinomial(ShapeCall *c)
{
	int64_t dtype, samples;
	if (!shape_plain_int(c, 1, &dtype) || !shape_plain_min(c, 2, 1, &samples))
		return false;
	if (dtype != 6 && dtype != 7)
		return shape_fail(c, DIAG_E0908, 1, "'dtype' is %lld; multinomial gives i32 (6) or i64 (7)", (long long)dtype);
	c->dtypes[0] = dtype == 6 ? DT_I32 : DT_I64;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (!shape_need_rank(c, 0, 2) || !shape_plain_dim(c, 0, in->dims[0], "the batch of the input") ||
	    !shape_plain_dim(c, 0, in->dims[1], "the number of classes of the input"))
		return false;
	int64_t *dims = shape_dims(c, 2);
	dims[0] = in->dims[0];
	dims[1] = samples;
	return shape_result(c, dims, 2);
}

/* non_max_suppression(boxes, scores, max_output_boxes_per_class,
 * iou_threshold, score_threshold, center_point_box): boxes [B, N, 4],
 * scores [B, C, N]; the result i64 [n, 3], rows (batch, class, box), n
 * the symbol tract names `n` (shared by every such operation). */
bool shape_tract_non_max_suppression(ShapeCall *c)
{
	int64_t max_out, center;
	if (!shape_plain_min(c, 2, 0, &max_out) || !shape_plain_int(c, 5, &center))
		return false;
	if (center != 0 && center != 1)
		return shape_fail(c, DIAG_E0908, 5, "'center_point_box' is %lld; it is 0 (corners y1, x1, y2, x2) or 1 (centre and size)", (long long)center);
	c->dtypes[0] = DT_I64;
	if (!c->known)
		return shape_unknown(c);
	const Shape *boxes = shape_in(c, 0), *scores = shape_in(c, 1);
	if (!shape_need_rank(c, 0, 3) || !shape_need_rank(c, 1, 3))
		return false;
	if (shape_clash(boxes->dims[2], 4))
		return shape_fail(c, DIAG_E0942, 0, "the boxes %s have %s coordinates each; non_max_suppression reads 4", shape_shape_str(c, boxes), shape_dim_text(c, boxes->dims[2]));
	if (shape_clash(boxes->dims[0], scores->dims[0]) || shape_clash(boxes->dims[1], scores->dims[2]))
		return shape_fail(c, DIAG_E0942, 1, "the boxes %s ([batch, boxes, 4]) and the scores %s ([batch, classes, boxes]) disagree", shape_shape_str(c, boxes), shape_shape_str(c, scores));
	if (!c->dims)
		return shape_data_dependent(c, 0, "the number of boxes kept depends on the values of the boxes and scores");
	int64_t *dims = shape_dims(c, 2);
	dims[0] = dim_encode(dim_symbol(c->dims, "n"));
	dims[1] = 3;
	return shape_result(c, dims, 2);
}

/* non_zero(input, count_symbol): the coordinates of the non-zero items,
 * i64 [rank, count]: known when the input's items are. */
bool shape_tract_non_zero(ShapeCall *c)
{
	c->dtypes[0] = DT_I64;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	const ShapeKnown *v = c->values ? &c->values[0] : NULL;
	int64_t count = 0;
	for (uint32_t i = 0; v && v->items && i < v->n; i++) {
		const Value *x = &v->items[i];
		switch (x->kind) {
		case VAL_INT:
			count += x->u.i != 0;
			break;
		case VAL_SCALAR:
			count += x->u.s != 0;
			break;
		case VAL_BOOL:
			count += x->u.b;
			break;
		case VAL_SYMBOL:
		case VAL_STR:
		case VAL_ARRAY:
		case VAL_TUPLE:
		case VAL_TENSOR:
			v = NULL;
			break;
		}
	}
	if (!v || !v->items) {
		const Value *sym = c->args[1];
		if (!shape_absent(c, 1) && sym->kind == VAL_STR)
			return shape_data_dependent(c, 0, "the number of non-zero items of the input (tract's symbol '%.*s') is known only from its values", (int)(sym->n > 60 ? 60 : sym->n), sym->u.str);
		return shape_data_dependent(c, 0, "the number of non-zero items of the input is known only from its values");
	}
	int64_t *dims = shape_dims(c, 2);
	dims[0] = in->rank;
	dims[1] = count;
	return shape_result(c, dims, 2);
}

/* random(datum_type, shape, dist, parameters, seed): a tensor of
 * datum_type and shape (whose items may be symbols); dist 'normal' (mean,
 * std) or 'uniform' (low, high): two parameters. */
bool shape_tract_random(ShapeCall *c)
{
	static const char *const dists[] = { "normal", "uniform", NULL };
	if (!shape_tract_dtype(c, 0, &c->dtypes[0]) || !shape_check_items_min(c, 1, 0, DIAG_E0901) ||
	    !shape_check_enum(c, 2, dists))
		return false;
	if (shape_len(c->args[3]) != 2)
		return shape_fail(c, DIAG_E0907, 3, "'parameters' has %u item%s; random needs two (tract: \"Random expect two parameters\")", c->args[3]->n, c->args[3]->n == 1 ? "" : "s");
	const Value *shape = c->args[1];
	size_t n = shape_len(shape);
	int64_t *dims = shape_dims(c, n);
	for (size_t i = 0; i < n; i++)
		dims[i] = shape_item_dim(shape, i);
	return shape_result(c, dims, n);
}
