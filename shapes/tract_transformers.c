/*
 * tract_transformers.c - shapes of the operations of tract's registry
 * tract_transformers (sema/tract/TRACT-NOTES.md C.2): sdpa, apply_rope,
 * scaled_masked_softmax, causal_conv1d_update and gdn_recurrent (with
 * their tract_qwen35_ aliases), dyn_kv_cache, quantized_dyn_kv_cache,
 * window_kv_sdpa and tract_moe_ffn. The checks are those of tract's
 * deserializers and of the ops' result facts; those tract makes only
 * when it runs are made here when the extents are known.
 */
#include "shapes/tract_internal.h"

/* A logical attribute tract reads as a bool (a number: non-zero). */
static bool truthy(const Value *v)
{
	return v->kind == VAL_BOOL ? v->u.b : v->kind == VAL_INT ? v->u.i != 0 : false;
}

/* Fails (E0942 at p) for tensor p whose axis ax is `x`, not `want`. */
static bool bad_extent(ShapeCall *c, int p, size_t ax, int64_t want,
		       const char *why)
{
	const Shape *s = shape_in(c, p);
	return shape_fail(c, DIAG_E0942, p, "'%s' has shape %s; its axis %zu must be %s (%s)", shape_pname(c, p), shape_shape_str(c, s), ax, shape_dim_text(c, want), why);
}

/* Axis ax of tensor p is want, or not known to differ (E0942). */
static bool extent_is(ShapeCall *c, int p, size_t ax, int64_t want,
		      const char *why)
{
	return !shape_clash(shape_in(c, p)->dims[ax], want) || bad_extent(c, p, ax, want, why);
}

/* ---- sdpa ----------------------------------------------------------------------- */

/* The mask of sdpa: tract removes its leading axes until rank 2, each
 * of which must be 1. *m receives its last two extents. */
static bool sdpa_mask(ShapeCall *c, int64_t m[2])
{
	const Shape *mask = shape_in(c, 3);
	if (mask->rank < 2)
		return shape_fail(c, DIAG_E0906, 3, "the mask has shape %s; it must have rank 2 (after leading axes of extent 1)", shape_shape_str(c, mask));
	for (uint32_t d = 0; d + 2 < mask->rank; d++) {
		if (!shape_plain_dim(c, 3, mask->dims[d], "a leading extent of the mask"))
			return false;
		if (mask->dims[d] != 1)
			return shape_fail(c, DIAG_E0942, 3, "the mask has shape %s; tract removes its leading axes to make it of rank 2, and they must have extent 1 (axis %u is %lld)", shape_shape_str(c, mask), d, (long long)mask->dims[d]);
	}
	m[0] = mask->dims[mask->rank - 2];
	m[1] = mask->dims[mask->rank - 1];
	return true;
}

/* The head counts of a rank-4 sdpa: numbers; k and v with the same
 * number; q's a multiple of it (grouped-query attention). */
static bool sdpa_heads(ShapeCall *c, const Shape *q, const Shape *k,
		       const Shape *v)
{
	if (!shape_plain_dim(c, 0, q->dims[1], "the number of heads of q") ||
	    !shape_plain_dim(c, 1, k->dims[1], "the number of heads of k") ||
	    !shape_plain_dim(c, 2, v->dims[1], "the number of heads of v"))
		return false;
	if (k->dims[1] != v->dims[1])
		return shape_fail(c, DIAG_E0942, 2, "k has %lld heads and v %lld (shapes %s and %s); they must have the same number", (long long)k->dims[1], (long long)v->dims[1], shape_shape_str(c, k), shape_shape_str(c, v));
	if (k->dims[1] == 0 || q->dims[1] % k->dims[1] != 0)
		return shape_fail(c, DIAG_E0942, 0, "q has %lld heads and k %lld; q's must be a multiple of k's (grouped-query attention shares each k head among that many q heads)", (long long)q->dims[1], (long long)k->dims[1]);
	return true;
}

/* The extents the products need to agree: q's and k's last axes (d_k),
 * k's and v's sequence axes (s_k), and the batches (broadcast). */
static bool sdpa_products(ShapeCall *c, const Shape *q, const Shape *k,
			  const Shape *v)
{
	uint32_t r = q->rank;
	if (shape_clash(q->dims[r - 1], k->dims[r - 1]))
		return shape_fail(c, DIAG_E0924, 1, "q %s and k %s do not agree: q's last extent is %s, k's %s (scores are q times k transposed)", shape_shape_str(c, q), shape_shape_str(c, k), shape_dim_text(c, q->dims[r - 1]), shape_dim_text(c, k->dims[r - 1]));
	if (shape_clash(k->dims[r - 2], v->dims[r - 2]))
		return shape_fail(c, DIAG_E0924, 2, "k %s and v %s do not agree: they hold %s and %s keys (axis %u)", shape_shape_str(c, k), shape_shape_str(c, v), shape_dim_text(c, k->dims[r - 2]), shape_dim_text(c, v->dims[r - 2]), r - 2);
	for (int p = 1; p <= 2; p++) {
		int64_t b = shape_in(c, p)->dims[0];
		if (shape_clash(q->dims[0], b) && q->dims[0] != 1 && b != 1)
			return shape_fail(c, DIAG_E0905, p, "the batch of q %s and of '%s' %s do not broadcast (%s and %s)", shape_shape_str(c, q), shape_pname(c, p), shape_shape_str(c, shape_in(c, p)), shape_dim_text(c, q->dims[0]), shape_dim_text(c, b));
	}
	return true;
}

/* sdpa(q, k, v, mask, scale, datum_type, acc_datum_type, is_causal):
 * q, k, v of rank 3 [b, s, d] or 4 [b, h, s, d]; no mask when causal, a
 * causal mask needs plain sequence lengths; the result [b, s_q, d_v] or
 * [b, h_q, s_q, d_v] of q's datum type. */
bool shape_tract_sdpa(ShapeCall *c)
{
	DType dt, acc;
	if (!shape_tract_dtype(c, 5, &dt) || !shape_tract_dtype(c, 6, &acc))
		return false;
	bool causal = truthy(c->args[7]), has_mask = !shape_absent(c, 3);
	if (causal && has_mask)
		return shape_fail(c, DIAG_E0943, 3, "a causal sdpa makes its own mask; tract refuses one given as well (\"Mask cannot be provided if is_causal=true\")");
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	if (!c->known)
		return shape_unknown(c);
	const Shape *q = shape_in(c, 0), *k = shape_in(c, 1), *v = shape_in(c, 2);
	uint32_t r = q->rank;
	if (r != 3 && r != 4)
		return shape_fail(c, DIAG_E0906, 0, "q has shape %s; sdpa needs q, k and v of rank 3 [b, s, d] or 4 [b, h, s, d]", shape_shape_str(c, q));
	if (k->rank != r || v->rank != r)
		return shape_fail(c, DIAG_E0906, k->rank != r ? 1 : 2, "q, k and v have shapes %s, %s and %s; they must have the same rank (tract: \"Q, K and V should have the same rank\")", shape_shape_str(c, q), shape_shape_str(c, k), shape_shape_str(c, v));
	int64_t m[2] = { 1, 1 };
	if ((has_mask && !sdpa_mask(c, m)) || (r == 4 && !sdpa_heads(c, q, k, v)) ||
	    !sdpa_products(c, q, k, v))
		return false;
	int64_t sq = q->dims[r - 2], sk = k->dims[r - 2];
	if (causal) {
		if (!shape_plain_dim(c, 0, sq, "the length of the query sequence (a causal mask is made of numbers)") ||
		    !shape_plain_dim(c, 1, sk, "the length of the key sequence (a causal mask is made of numbers)"))
			return false;
		if (sk < sq)
			return shape_fail(c, DIAG_E0942, 1, "k holds %lld keys for %lld queries; a causal sdpa needs at least as many keys as queries", (long long)sk, (long long)sq);
	}
	if (has_mask && ((shape_clash(m[0], sq) && m[0] != 1) || (shape_clash(m[1], sk) && m[1] != 1)))
		return shape_fail(c, DIAG_E0905, 3, "the mask %s does not broadcast to the scores [%s, %s] (queries by keys)", shape_shape_str(c, shape_in(c, 3)), shape_dim_text(c, sq), shape_dim_text(c, sk));
	int64_t *dims = shape_dims(c, r);
	shape_copy(dims, q->dims, r - 1);
	dims[r - 1] = v->dims[r - 1];
	return shape_result(c, dims, r);
}

/* ---- rope, masked softmax --------------------------------------------------------- */

/* apply_rope(input, cos, sin): x * cos + rotate_half(x) * sin, broadcast
 * numpy-style; the input's shape and type; the last extent even. */
bool shape_tract_apply_rope(ShapeCall *c)
{
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	Shape out;
	if (!shape_broadcast(c, 1, in, "the input", shape_in(c, 1), "'cos'", false, &out) ||
	    !shape_broadcast(c, 2, in, "the input", shape_in(c, 2), "'sin'", false, &out))
		return false;
	if (in->rank == 0)
		return shape_fail(c, DIAG_E0906, 0, "the input has rank 0; apply_rope rotates the halves of its last axis");
	int64_t last = in->dims[in->rank - 1];
	if (!dim_is_symbolic(last) && last % 2 != 0)
		return shape_fail(c, DIAG_E0942, 0, "the input %s has an odd last extent; apply_rope rotates its two halves", shape_shape_str(c, in));
	return shape_result_as(c, in);
}

/* scaled_masked_softmax(input, mask, scale): the input's shape and type;
 * input and mask of rank 3 and of one datum type, the mask broadcast
 * (numpy-style) to the input. */
bool shape_tract_scaled_masked_softmax(ShapeCall *c)
{
	if (!shape_same_dtype(c, 0, 1))
		return false;
	if (!c->known)
		return shape_unknown(c);
	if (!shape_need_rank(c, 0, 3) || !shape_need_rank(c, 1, 3))
		return false;
	const Shape *in = shape_in(c, 0), *mask = shape_in(c, 1);
	Shape out;
	if (!shape_broadcast(c, 1, in, "the input", mask, "the mask", false, &out))
		return false;
	for (uint32_t d = 0; d < in->rank; d++)
		if (out.dims[d] != in->dims[d])
			return shape_fail(c, DIAG_E0905, 1, "the mask %s is larger than the input %s along axis %u; it must broadcast to the input", shape_shape_str(c, mask), shape_shape_str(c, in), d);
	return shape_result_as(c, in);
}

/* ---- Qwen3.5's recurrent layers ----------------------------------------------------- */

/* causal_conv1d_update(input, weight, initial_state) and its alias: all
 * f16; (output, final_state) of the shapes of input and initial_state; a
 * kernel of width 4 and a state of 4 items per channel (one per item of
 * input). */
bool shape_tract_causal_conv1d_update(ShapeCall *c)
{
	static const DType f16[] = { DT_F16 };
	for (int p = 0; p < 3; p++)
		if (!shape_dtype_in(c, p, f16, 1, "tract's kernel is f16 only"))
			return false;
	c->dtypes[0] = c->dtypes[1] = DT_F16;
	if (!c->known)
		return shape_unknown_n(c, 2);
	const Shape *in = shape_in(c, 0), *w = shape_in(c, 1), *st = shape_in(c, 2);
	if (w->rank == 0)
		return shape_fail(c, DIAG_E0906, 1, "the weight has rank 0; its last axis is the kernel's width");
	if (!extent_is(c, 1, w->rank - 1, 4, "tract's kernel convolves 4 taps"))
		return false;
	int64_t channels, vw, vs;
	if (shape_volume(in, &channels) && channels <= INT64_MAX / 4) {
		if (shape_volume(w, &vw) && vw != 4 * channels)
			return shape_fail(c, DIAG_E0942, 1, "the weight %s holds %lld items; it needs 4 per channel, %lld for the %lld channels of the input", shape_shape_str(c, w), (long long)vw, (long long)(4 * channels), (long long)channels);
		if (shape_volume(st, &vs) && vs != 4 * channels)
			return shape_fail(c, DIAG_E0942, 2, "the state %s holds %lld items; it needs 4 per channel, %lld for the %lld channels of the input", shape_shape_str(c, st), (long long)vs, (long long)(4 * channels), (long long)channels);
	}
	shape_outs(c, 2);
	return shape_out(c, 0, in->dims, in->rank) && shape_out(c, 1, st->dims, st->rank);
}

/* The datum types gdn_recurrent accepts: all f32, or query, key, value
 * and beta f16 with log_decay f32 and the state f16 or f32. */
static bool gdn_dtypes(ShapeCall *c)
{
	static const DType floats[] = { DT_F16, DT_F32 }, f32[] = { DT_F32 }, f16[] = { DT_F16 };
	for (int p = 0; p < 6; p++)
		if (!shape_dtype_in(c, p, floats, 2, "tract computes it in f32"))
			return false;
	DType q = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	if (q == DT_NONE)
		return true;
	const char *why = q == DT_F32 ? "with a query of f32, every input is f32" : "with a query of f16, key, value and beta are f16, log_decay f32 and the state f16 or f32";
	for (int p = 1; p < 6; p++) {
		const DType *allowed = q == DT_F32 || p == 3 ? f32 : f16;
		size_t n = 1;
		if (q == DT_F16 && p == 5) {
			allowed = floats;
			n = 2;
		}
		if (!shape_dtype_in(c, p, allowed, n, why))
			return false;
	}
	return true;
}

/* gdn_recurrent(query, key, value, log_decay, beta, initial_state) and
 * its alias: query and key [b, S, hk, w] of one shape, value [b, S, hv,
 * w] with hv a multiple of hk, log_decay and beta of b * S * hv items,
 * state [b, hv, w, w]; (output, final_state): value's shape in query's
 * type, and the state's shape and type. */
bool shape_tract_gdn_recurrent(ShapeCall *c)
{
	if (!gdn_dtypes(c))
		return false;
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	c->dtypes[1] = c->in_dtypes ? c->in_dtypes[5] : DT_NONE;
	if (!c->known)
		return shape_unknown_n(c, 2);
	const Shape *q = shape_in(c, 0), *v = shape_in(c, 2), *st = shape_in(c, 5);
	if (!shape_need_rank(c, 0, 4) || !shape_need_rank(c, 2, 4) || !shape_need_rank(c, 5, 4))
		return false;
	if (!shape_equal(shape_in(c, 1), q)) {
		shape_fail(c, DIAG_E0927, 1, "the key has shape %s and the query %s; they must be equal", shape_shape_str(c, shape_in(c, 1)), shape_shape_str(c, q));
		return false;
	}
	static const char *const axes[] = { "the batch", "the sequence", "", "the head width" };
	for (size_t d = 0; d < 4; d++)
		if (d != 2 && !extent_is(c, 2, d, q->dims[d], axes[d]))
			return false;
	if (!dim_is_symbolic(v->dims[2]) && !dim_is_symbolic(q->dims[2]) &&
	    (q->dims[2] == 0 || v->dims[2] % q->dims[2] != 0))
		return bad_extent(c, 2, 2, q->dims[2], "a multiple of the query's heads");
	int64_t want = 1, have;
	for (size_t d = 0; d < 3 && want >= 0; d++)
		want = dim_is_symbolic(v->dims[d]) || __builtin_mul_overflow(want, v->dims[d], &want) ? -1 : want;
	for (int p = 3; p <= 4 && want >= 0; p++)
		if (shape_volume(shape_in(c, p), &have) && have != want)
			return shape_fail(c, DIAG_E0942, p, "'%s' %s holds %lld items; it needs one per batch, step and value head: %lld", shape_pname(c, p), shape_shape_str(c, shape_in(c, p)), (long long)have, (long long)want);
	if (!extent_is(c, 5, 0, v->dims[0], "the batch") || !extent_is(c, 5, 1, v->dims[2], "the value heads") ||
	    !extent_is(c, 5, 2, q->dims[3], "the head width") || !extent_is(c, 5, 3, q->dims[3], "the head width"))
		return false;
	shape_outs(c, 2);
	return shape_out(c, 0, v->dims, v->rank) && shape_out(c, 1, st->dims, st->rank);
}

/* ---- caches ------------------------------------------------------------------------- */

/* The integer array p (a sequence shape) of the input's rank. */
static bool sequence_shape(ShapeCall *c, int p, uint32_t rank)
{
	return shape_check_items_min(c, p, 0, DIAG_E0901) &&
	       shape_check_len(c, p, rank, false, "the rank of the input");
}

/* dyn_kv_cache(input, name, axis, datum_type, past_sequence_shape,
 * input_sequence_shape) and quantized_dyn_kv_cache(input, name, axis,
 * bits, per_channel, datum_type, past_sequence_shape,
 * input_sequence_shape): the input's shape with past[axis] +
 * input_sequence[axis] along axis (the cache grows by each call's input);
 * the quantized one on [B, H, S, D] along axis 2, with 4 or 8 bits. */
bool shape_tract_dyn_kv_cache(ShapeCall *c)
{
	bool quant = c->op == SHAPE_OP_TRACT_TRANSFORMERS_QUANTIZED_DYN_KV_CACHE;
	int p_dt = quant ? 5 : 3, p_past = quant ? 6 : 4, p_in = p_past + 1;
	DType dt;
	if (!shape_tract_dtype(c, p_dt, &dt))
		return false;
	if (quant) {
		int64_t bits, per_channel;
		if (!shape_plain_int(c, 3, &bits) || !shape_plain_int(c, 4, &per_channel))
			return false;
		if (bits != 4 && bits != 8)
			return shape_fail(c, DIAG_E0908, 3, "'bits' is %lld; the quantized cache stores 4 or 8 bits", (long long)bits);
	}
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	size_t axis;
	if (!shape_axis(c, 2, in->rank, "the input", &axis) ||
	    !sequence_shape(c, p_past, in->rank) || !sequence_shape(c, p_in, in->rank))
		return false;
	if (quant && !shape_need_rank(c, 0, 4))
		return false;
	if (quant && axis != 2)
		return shape_fail(c, DIAG_E0910, 2, "'axis' is %zu; the quantized cache grows [B, H, S, D] along its sequence axis, 2", axis);
	int64_t *dims = shape_dims(c, in->rank);
	shape_copy(dims, in->dims, in->rank);
	if (!shape_dim_add(c, p_past, shape_item_dim(c->args[p_past], axis), shape_item_dim(c->args[p_in], axis), &dims[axis]))
		return false;
	return shape_result(c, dims, in->rank);
}

/* window_kv_sdpa(q, k, v, axis, window, scale): q's shape; q, k, v of one
 * rank; a window of at least one item. */
bool shape_tract_window_kv_sdpa(ShapeCall *c)
{
	int64_t window;
	if (!shape_plain_min(c, 4, 1, &window))
		return false;
	c->dtypes[0] = c->in_dtypes ? c->in_dtypes[0] : DT_NONE;
	if (!c->known)
		return shape_unknown(c);
	const Shape *q = shape_in(c, 0);
	if (shape_in(c, 1)->rank != q->rank || shape_in(c, 2)->rank != q->rank)
		return shape_fail(c, DIAG_E0906, shape_in(c, 1)->rank != q->rank ? 1 : 2, "q, k and v have shapes %s, %s and %s; they must have the same rank", shape_shape_str(c, q), shape_shape_str(c, shape_in(c, 1)), shape_shape_str(c, shape_in(c, 2)));
	size_t axis;
	if (!shape_axis(c, 3, q->rank, "k", &axis))
		return false;
	return shape_result_as(c, q);
}

/* tract_moe_ffn(x, wg, w1, w2, w3, wg_bias, w1_bias, w3_bias, w2_bias,
 * k, activation, gate, act_alpha, act_limit, expert_layout): x's shape;
 * k positive, gate and expert_layout among tract's. */
bool shape_tract_moe_ffn(ShapeCall *c)
{
	static const char *const gates[] = { "softmax_topk", "softmax_all", "sigmoid", "raw", NULL };
	static const char *const layouts[] = { "canonical", "linear", NULL };
	int64_t k;
	if (!shape_plain_int(c, 9, &k))
		return false;
	if (k <= 0)
		return shape_fail(c, DIAG_E0908, 9, "'k' is %lld; the number of experts per token must be positive (tract: \"k must be positive\")", (long long)k);
	if (!shape_check_enum(c, 11, gates) || (!shape_absent(c, 14) && !shape_check_enum(c, 14, layouts)))
		return false;
	return shape_keep_shape(c, -1);
}
