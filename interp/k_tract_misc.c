/*
 * k_tract_misc.c - kernels of tract's operations: mixture of experts,
 * non-max suppression, lookups and the other operations of tract_onnx.
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 *
 * Compiled for float and double (interp/real.h). tract computes the
 * mixture of experts in f32 (an f16 x is converted and its result rounded
 * back by the executor); here it computes in the run's precision, sums in
 * double. Attributes tract reads as f32 are rounded to float first.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------- */

/* Whether an optional parameter was left out (its default, false). */
static bool attr_absent(const Value *v)
{
	return v->kind == VAL_BOOL && !v->u.b;
}

/* A number attribute as tract reads it: an f32. */
static double attr_f32(const Value *v)
{
	double x = v->kind == VAL_SCALAR ? v->u.s : v->kind == VAL_INT ? (double)v->u.i : 0.0;
	return (double)(float)x;
}

/* Item i of t as an integer (a real truncated toward zero). */
static int64_t item_int(const ITensor *t, size_t i)
{
	if (t->dtype == TY_INTEGER)
		return ((const int64_t *)t->data)[i];
	if (t->dtype == TY_LOGICAL)
		return ((const uint8_t *)t->data)[i];
	return (int64_t)((const real *)t->data)[i];
}

/* Writes integer v as item i of t, whatever items t holds. */
static void put_int(ITensor *t, size_t i, int64_t v)
{
	if (t->dtype == TY_INTEGER)
		((int64_t *)t->data)[i] = v;
	else if (t->dtype == TY_LOGICAL)
		((uint8_t *)t->data)[i] = v != 0;
	else
		((real *)t->data)[i] = (real)v;
}

/* ---- tract_transformers: moe_ffn --------------------------------------------------------- */

/* Parameters of tract_moe_ffn, in declaration order. */
enum {
	MOE_X, MOE_WG, MOE_W1, MOE_W2, MOE_W3, MOE_WG_BIAS, MOE_W1_BIAS, MOE_W3_BIAS,
	MOE_W2_BIAS, MOE_K, MOE_ACTIVATION, MOE_GATE, MOE_ALPHA, MOE_LIMIT, MOE_LAYOUT,
	MOE_TENSORS = MOE_K
};

typedef enum MoeGate { MOE_SOFTMAX_TOPK, MOE_SOFTMAX_ALL, MOE_SIGMOID, MOE_RAW } MoeGate;
typedef enum MoeAct { MOE_SILU, MOE_GELU, MOE_RELU } MoeAct;

typedef struct Moe {
	const ITensor *t[MOE_TENSORS]; /* NULL: not given */
	int64_t T, D, E, H, k;
	bool linear, clamped;
	MoeGate gate;
	MoeAct act;
	double alpha, limit;
} Moe;

static const char *const moe_names[MOE_TENSORS] = {
	"x", "wg", "w1", "w2", "w3", "wg_bias", "w1_bias", "w3_bias", "w2_bias"
};

/* Whether extents a and b agree, else fails naming them (tract: "MoE
 * dimensions disagree"). */
static bool moe_agree(Interp *it, const Step *s, int64_t a, int64_t b, const char *what)
{
	if (a == b)
		return true;
	interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: %s: %lld versus %lld (tract: \"MoE dimensions disagree\")", what, (long long)a, (long long)b);
	return false;
}

/* The options of step s (tract's MoeFfn::validate_facts, in its order but
 * for the types and ranks, checked first); false after reporting. */
static bool moe_options(Interp *it, const Step *s, Moe *m)
{
	const char *fail = NULL;
	bool w3 = m->t[MOE_W3] != NULL;
	m->clamped = !attr_absent(karg(s, MOE_LIMIT));
	m->alpha = attr_absent(karg(s, MOE_ALPHA)) ? 1.0 : attr_f32(karg(s, MOE_ALPHA));
	m->limit = m->clamped ? attr_f32(karg(s, MOE_LIMIT)) : INFINITY;
	m->act = interp_karg_is(s, MOE_ACTIVATION, "gelu") ? MOE_GELU : interp_karg_is(s, MOE_ACTIVATION, "relu") ? MOE_RELU : MOE_SILU;
	m->gate = interp_karg_is(s, MOE_GATE, "softmax_topk") ? MOE_SOFTMAX_TOPK : interp_karg_is(s, MOE_GATE, "softmax_all") ? MOE_SOFTMAX_ALL : interp_karg_is(s, MOE_GATE, "sigmoid") ? MOE_SIGMOID : MOE_RAW;
	m->linear = !attr_absent(karg(s, MOE_LAYOUT)) && interp_karg_is(s, MOE_LAYOUT, "linear");
	m->k = karg_int(s, MOE_K);
	if (m->t[MOE_W3_BIAS] && !w3)
		fail = "w3_bias is given without w3 (tract: \"MoeFfn w3_bias requires w3\")";
	else if (m->clamped && !w3)
		fail = "act_limit (clamped SwiGLU) is given without w3 (tract: \"clamped activation requires w3\")";
	else if (!interp_karg_is(s, MOE_ACTIVATION, "silu") && !interp_karg_is(s, MOE_ACTIVATION, "gelu") && !interp_karg_is(s, MOE_ACTIVATION, "relu") && !(w3 && interp_karg_is(s, MOE_ACTIVATION, "swiglu")))
		fail = "the activation is not one of silu, gelu, relu, or swiglu with w3 (tract: \"Unsupported MoE activation\")";
	else if (!isfinite(m->alpha) || (m->clamped && !isfinite(m->limit)))
		fail = "act_alpha or act_limit is not finite (tract: \"MoE activation parameters must be finite\")";
	else if (m->clamped && !(m->limit > 0))
		fail = "act_limit is not positive (tract: \"MoE activation limit must be positive\")";
	if (fail) {
		interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: %s", fail);
		return false;
	}
	for (size_t p = 0; p < MOE_TENSORS; p++) {
		const ITensor *t = m->t[p];
		if (t && (t->dtype != TY_SCALAR || (t->datum != DT_NONE && t->datum != DT_F32 && t->datum != DT_F16))) {
			interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: '%s' holds %s items; tract computes with f16 or f32 tensors only (\"Unsupported MoE datum type\")", moe_names[p], t->datum != DT_NONE ? dtype_name((DType)t->datum) : "non-real");
			return false;
		}
	}
	return true;
}

/* Reads the geometry of step s and checks it as tract does; false after
 * reporting. */
static bool moe_setup(Interp *it, const Step *s, Moe *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t p = 0; p < MOE_TENSORS; p++)
		m->t[p] = attr_absent(karg(s, p)) ? NULL : s->in[p].t;
	if (!moe_options(it, s, m))
		return false;
	const ITensor *x = m->t[MOE_X], *wg = m->t[MOE_WG], *w1 = m->t[MOE_W1], *w2 = m->t[MOE_W2];
	if ((x->rank != 2 && x->rank != 3) || (wg->rank != 2 && wg->rank != 3) || w1->rank != 3 || w2->rank != 3) {
		interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: x has rank %u, wg %u, w1 %u and w2 %u; tract needs x [T, D] or [B, S, D], wg [E, D] or [1, E, D], and experts of rank 3", x->rank, wg->rank, w1->rank, w2->rank);
		return false;
	}
	m->D = x->dims[x->rank - 1];
	m->T = x->rank == 3 ? x->dims[0] * x->dims[1] : x->dims[0];
	m->E = wg->dims[wg->rank - 2];
	size_t dax = m->linear ? 2 : 1, hax = m->linear ? 1 : 2;
	m->H = w1->dims[hax];
	if ((wg->rank == 3 && !moe_agree(it, s, wg->dims[0], 1, "the leading extent of a rank-3 wg")) ||
	    !moe_agree(it, s, m->D, wg->dims[wg->rank - 1], "the features of x and wg") ||
	    !moe_agree(it, s, m->E, w1->dims[0], "the experts of wg and w1") ||
	    !moe_agree(it, s, m->E, w2->dims[0], "the experts of wg and w2"))
		return false;
	if (m->E <= 0 || m->k > m->E) {
		interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: k is %lld for %lld experts (tract: \"MoE k exceeds expert count\")", (long long)m->k, (long long)m->E);
		return false;
	}
	if (!moe_agree(it, s, m->D, w1->dims[dax], "the features of x and w1") ||
	    !moe_agree(it, s, m->D, w2->dims[hax], "the features of x and w2") ||
	    !moe_agree(it, s, m->H, w2->dims[dax], "the hidden extents of w1 and w2"))
		return false;
	if (m->D <= 0 || m->H <= 0) {
		interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: %lld features and %lld hidden units (tract: \"MoE feature dimensions must be positive\")", (long long)m->D, (long long)m->H);
		return false;
	}
	const ITensor *w3 = m->t[MOE_W3];
	if (w3 && (w3->rank != 3 || !moe_agree(it, s, w3->dims[0], w1->dims[0], "the shapes of w3 and w1") || !moe_agree(it, s, w3->dims[1], w1->dims[1], "the shapes of w3 and w1") || !moe_agree(it, s, w3->dims[2], w1->dims[2], "the shapes of w3 and w1"))) {
		if (w3->rank != 3)
			interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: w3 has rank %u (tract: \"MoE w3 must have rank 3\")", w3->rank);
		return false;
	}
	const ITensor *bg = m->t[MOE_WG_BIAS];
	if (bg && (bg->rank != 1 || bg->dims[0] != m->E)) {
		interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: wg_bias has rank %u; tract needs [E], E = %lld (\"MoE router bias must be [E]\")", bg->rank, (long long)m->E);
		return false;
	}
	static const int bias_p[3] = { MOE_W1_BIAS, MOE_W3_BIAS, MOE_W2_BIAS };
	for (size_t i = 0; i < 3; i++) {
		const ITensor *b = m->t[bias_p[i]];
		int64_t width = i < 2 ? m->H : m->D;
		if (b && (b->rank != 2 || b->dims[0] != m->E || b->dims[1] != width)) {
			interp_fail(it, s, DIAG_E1301, "tract_moe_ffn: %s has rank %u; tract needs [E, %s] = [%lld, %lld] (\"MoE expert bias must be [E,width]\")", moe_names[bias_p[i]], b->rank, i < 2 ? "H" : "D", (long long)m->E, (long long)width);
			return false;
		}
	}
	return true;
}

/* The key of Rust's f32::total_cmp (negative NaN first, positive NaN
 * last). */
static int64_t total_key(double v)
{
	int64_t b;
	memcpy(&b, &v, sizeof(b));
	return b < 0 ? b ^ INT64_MAX : b;
}

/* Whether expert a (logit la) is routed before expert b (tract's
 * select_routes: larger logits first, equal ones (+0 and -0 too) by the
 * lower index). */
static bool moe_before(double la, int64_t a, double lb, int64_t b)
{
	if (la == lb)
		return a < b;
	return total_key(la) > total_key(lb);
}

/* The gate weights w[0..k) of the experts sel[0..k) chosen among the
 * logits l[0..E) (tract's GateMode::weights). */
static void moe_gate(const Moe *m, const double *l, const int64_t *sel, double *w)
{
	double mx = -INFINITY, sum = 0;
	switch (m->gate) {
	case MOE_RAW:
		for (int64_t r = 0; r < m->k; r++)
			w[r] = l[sel[r]];
		return;
	case MOE_SIGMOID:
		for (int64_t r = 0; r < m->k; r++)
			w[r] = 1.0 / (1.0 + exp(-l[sel[r]]));
		return;
	case MOE_SOFTMAX_TOPK:
		for (int64_t r = 0; r < m->k; r++)
			mx = fmax(mx, l[sel[r]]);
		for (int64_t r = 0; r < m->k; r++)
			sum += w[r] = exp(l[sel[r]] - mx);
		for (int64_t r = 0; r < m->k; r++)
			w[r] /= sum;
		return;
	case MOE_SOFTMAX_ALL:
		for (int64_t e = 0; e < m->E; e++)
			mx = fmax(mx, l[e]);
		for (int64_t e = 0; e < m->E; e++)
			sum += exp(l[e] - mx);
		for (int64_t r = 0; r < m->k; r++)
			w[r] = exp(l[sel[r]] - mx) / sum;
		return;
	}
}

/* h[j] = sum_d x[d] w[e, d, j] (+ bias[e, j]) with w of step input p,
 * [E, D, H] (canonical) or [E, H, D] (linear). */
static void moe_project_in(const Moe *m, const real *x, int64_t e, size_t p, size_t pb, double *h)
{
	const real *w = m->t[p]->data;
	for (int64_t j = 0; j < m->H; j++) {
		double acc = 0;
		for (int64_t d = 0; d < m->D; d++)
			acc += (double)x[d] * (double)w[m->linear ? (e * m->H + j) * m->D + d : (e * m->D + d) * m->H + j];
		if (m->t[pb])
			acc += ((const real *)m->t[pb]->data)[e * m->H + j];
		h[j] = acc;
	}
}

/* Expert e on token row x: y[0..D) (tract's reference MoeFfn::eval). */
static void moe_expert(const Moe *m, const real *x, int64_t e, double *h, double *u, double *y)
{
	moe_project_in(m, x, e, MOE_W1, MOE_W1_BIAS, h);
	if (m->t[MOE_W3])
		moe_project_in(m, x, e, MOE_W3, MOE_W3_BIAS, u);
	for (int64_t j = 0; j < m->H; j++) {
		double v = h[j];
		if (m->clamped) {
			/* gpt-oss: f32::min (a NaN gate gives the limit), clamp */
			double g = fmin(v, m->limit), up = u[j];
			up = up < -m->limit ? -m->limit : up > m->limit ? m->limit : up;
			h[j] = (up + 1.0) * (g / (1.0 + exp(-m->alpha * g)));
			continue;
		}
		switch (m->act) {
		case MOE_SILU:
			v = v / (1.0 + exp(-v));
			break;
		case MOE_GELU:
			v = 0.5 * v * (1.0 + tanh((double)(float)0.79788456080286536 * (v + 0.044715 * v * v * v)));
			break;
		case MOE_RELU:
			v = fmax(v, 0.0);
			break;
		}
		h[j] = m->t[MOE_W3] ? v * u[j] : v;
	}
	const real *w2 = m->t[MOE_W2]->data;
	for (int64_t d = 0; d < m->D; d++) {
		double acc = 0;
		for (int64_t j = 0; j < m->H; j++)
			acc += h[j] * (double)w2[m->linear ? (e * m->D + d) * m->H + j : (e * m->H + j) * m->D + d];
		if (m->t[MOE_W2_BIAS])
			acc += ((const real *)m->t[MOE_W2_BIAS]->data)[e * m->D + d];
		y[d] = acc;
	}
}

/* tract_moe_ffn(x, wg, w1, w2, w3, wg_bias, w1_bias, w3_bias, w2_bias, k,
 * activation, gate, act_alpha, act_limit, expert_layout): per token, the
 * router logits x wg^T (+ wg_bias), the k experts of largest logits, gate
 * weights by `gate`, and the sum over them (in expert order) of weight *
 * FFN_e(x): act(x w1_e + b1) [* (x w3_e + b3)] w2_e + b2, or the clamped
 * SwiGLU when act_limit is given. */
bool TWIN(kern_tract_moe_ffn_f32, kern_tract_moe_ffn_f64)(Interp *it, const Step *s)
{
	Moe m;
	if (!moe_setup(it, s, &m))
		return false;
	/* doubles: logits [E], weights [k], h and u [H], y and acc [D]; then
	 * int64: the slot of each expert among the chosen [E], the chosen [k] */
	size_t nd = (size_t)(2 * m.E + 2 * m.k + 2 * m.H + 2 * m.D);
	double *l = interp_scratch(it, s, nd, sizeof(double));
	if (!l)
		return false;
	double *w = l + m.E, *h = w + m.k, *u = h + m.H, *y = u + m.H, *acc = y + m.D;
	int64_t *slot = (int64_t *)(acc + m.D), *selp = slot + m.E;
	const real *x = m.t[MOE_X]->data, *wg = m.t[MOE_WG]->data;
	real *out = s->out[0]->data;
	for (int64_t t = 0; t < m.T; t++) {
		const real *xt = x + t * m.D;
		for (int64_t e = 0; e < m.E; e++) {
			double a = 0;
			for (int64_t d = 0; d < m.D; d++)
				a += (double)xt[d] * (double)wg[e * m.D + d];
			if (m.t[MOE_WG_BIAS])
				a = (double)(real)a + (double)((const real *)m.t[MOE_WG_BIAS]->data)[e];
			l[e] = (double)(real)a; /* tract's logits are f32 */
			slot[e] = -1;
		}
		for (int64_t r = 0; r < m.k; r++) {
			int64_t best = -1;
			for (int64_t e = 0; e < m.E; e++)
				if (slot[e] < 0 && (best < 0 || moe_before(l[e], e, l[best], best)))
					best = e;
			selp[r] = best;
			slot[best] = r;
		}
		moe_gate(&m, l, selp, w);
		for (int64_t d = 0; d < m.D; d++)
			acc[d] = 0;
		for (int64_t e = 0; e < m.E; e++) {
			if (slot[e] < 0)
				continue;
			moe_expert(&m, xt, e, h, u, y);
			for (int64_t d = 0; d < m.D; d++)
				acc[d] += w[slot[e]] * y[d];
		}
		for (int64_t d = 0; d < m.D; d++)
			out[t * m.D + d] = (real)acc[d];
	}
	interp_release(it, l);
	return true;
}

/* ---- tract_onnx: category mappers ----------------------------------------------------------- */

/* tract_onnx_ml_direct_lookup(input, values, fallback)
 * (ml/category_mapper.rs, DirectLookup): output[p] = values[input[p]]
 * (values flattened), or the fallback where input[p] is out of range (a
 * negative index too: tract converts it to usize). tract reads the input
 * as i32 and looks up only hashable items (integers, bool, string: not
 * reals, "is not Hash"). */
bool TWIN(kern_tract_ml_direct_lookup_f32, kern_tract_ml_direct_lookup_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *vals = s->in[1].t, *fb = s->in[2].t;
	ITensor *out = s->out[0];
	if (in->dtype != TY_INTEGER || in->datum != DT_I32) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_direct_lookup: the input holds %s items; tract reads the indices as i32 only", in->datum != DT_NONE ? dtype_name((DType)in->datum) : in->dtype == TY_SCALAR ? "real" : in->dtype == TY_LOGICAL ? "logical" : "i64");
		return false;
	}
	if (vals->dtype == TY_SCALAR || fb->dtype == TY_SCALAR) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_direct_lookup: the values are reals (%s); tract looks up hashable items only: integers, bool, string (\"is not Hash\")", vals->datum != DT_NONE ? dtype_name((DType)vals->datum) : "f32");
		return false;
	}
	if (fb->count != 1) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_direct_lookup: the fallback has %zu items; tract reads one", fb->count);
		return false;
	}
	int64_t fallback = item_int(fb, 0);
	for (size_t i = 0; i < out->count; i++) {
		int64_t ix = item_int(in, i);
		put_int(out, i, ix >= 0 && (uint64_t)ix < vals->count ? item_int(vals, (size_t)ix) : fallback);
	}
	return true;
}

/* tract_onnx_ml_reverse_lookup(input, keys, fallback)
 * (ml/category_mapper.rs@4a14cc1b, load_reverse_lookup): tract's loader
 * reads `keys` as one integer and `fallback` as a tensor and gives them
 * to ReverseLookup::new(keys table, fallback index) swapped: the table
 * searched is the value of `fallback` (flattened; a literal integer is a
 * one-item i32 table), the index given when nothing matches is `keys` (as
 * i32). output[p] = the first i with table[i] = input[p], else that
 * index; i32. The input must have the table's type; reals are refused
 * ("is not Hash"). */
bool TWIN(kern_tract_ml_reverse_lookup_f32, kern_tract_ml_reverse_lookup_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *keys = s->in[1].t, *table = s->in[2].t;
	const Value *kv = karg(s, 1), *fv = karg(s, 2);
	ITensor *out = s->out[0];
	if (keys ? keys->dtype != TY_INTEGER || keys->count != 1 : kv->kind != VAL_INT) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_reverse_lookup: 'keys' is not one integer; tract's loader reads it as one, the index given to unknown items (it swaps keys and fallback)");
		return false;
	}
	int64_t one = table ? 0 : fv->u.i;
	DType tdt = table ? (DType)table->datum : DT_I32;
	if ((table ? table->dtype == TY_SCALAR : fv->kind != VAL_INT) || in->dtype == TY_SCALAR) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_reverse_lookup: the table searched (tract's loader takes it from 'fallback', swapping keys and fallback) or the input holds reals; tract searches hashable items only: integers, bool, string (\"is not Hash\")");
		return false;
	}
	if ((tdt != DT_NONE && in->datum != DT_NONE && tdt != (DType)in->datum) || (table && table->dtype != in->dtype)) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_ml_reverse_lookup: the input holds %s items, the table searched (from 'fallback': tract's loader swaps keys and fallback) %s items; tract needs one type", in->datum != DT_NONE ? dtype_name((DType)in->datum) : "integer", tdt != DT_NONE ? dtype_name(tdt) : "integer");
		return false;
	}
	size_t n = table ? table->count : 1;
	int64_t miss = (int32_t)(uint32_t)(keys ? item_int(keys, 0) : kv->u.i);
	for (size_t i = 0; i < out->count; i++) {
		int64_t v = item_int(in, i), r = miss;
		for (size_t j = 0; j < n; j++)
			if ((table ? item_int(table, j) : one) == v) {
				r = (int64_t)j;
				break;
			}
		put_int(out, i, r);
	}
	return true;
}

/* ---- tract_onnx: non_max_suppression ---------------------------------------------------------- */

/* One non-max suppression (non_max_suppression.rs, eval_t): boxes [B, N,
 * 4] and scores [B, C, N] as doubles holding items of type dt, whose
 * arithmetic is emulated (each result rounded to f32 or f16; f64 kept). */
typedef struct Nms {
	int64_t B, C, N, max_out; /* max_out: 0 is unlimited */
	double iou, score;
	bool has_score, center;
	DType dt;
} Nms;

static double nms_r(const Nms *q, double v)
{
	return q->dt == DT_F64 ? v : dtype_round(q->dt, v);
}

/* The extent [lo, hi] of coordinates a and b (tract's get_min_max: a NaN
 * keeps the order given). */
static void nms_span(double a, double b, double *lo, double *hi)
{
	*lo = a >= b ? b : a;
	*hi = a >= b ? a : b;
}

/* A box as x0, x1, y0, y1 (tract's BoxRepr: corners y1, x1, y2, x2, or
 * centre and size xc, yc, w, h). */
static void nms_corners(const Nms *q, const double *b, double *c)
{
	if (!q->center) {
		nms_span(b[1], b[3], &c[0], &c[1]);
		nms_span(b[0], b[2], &c[2], &c[3]);
		return;
	}
	double hw = nms_r(q, b[2] / 2), hh = nms_r(q, b[3] / 2);
	c[0] = nms_r(q, b[0] - hw);
	c[1] = nms_r(q, b[0] + hw);
	c[2] = nms_r(q, b[1] - hh);
	c[3] = nms_r(q, b[1] + hh);
}

/* Whether box a suppresses box b: their intersection over union is above
 * the threshold (tract's should_suppress_by_iou; Float::max and min skip
 * NaNs, as fmax and fmin). */
static bool nms_suppress(const Nms *q, const double *a, const double *b)
{
	double p[4], r[4];
	nms_corners(q, a, p);
	nms_corners(q, b, r);
	double iy0 = fmax(p[2], r[2]), iy1 = fmin(p[3], r[3]);
	if (iy1 <= iy0)
		return false;
	double ix0 = fmax(p[0], r[0]), ix1 = fmin(p[1], r[1]);
	if (ix1 <= ix0)
		return false;
	double inter = nms_r(q, nms_r(q, ix1 - ix0) * nms_r(q, iy1 - iy0));
	if (signbit(inter))
		return false;
	double a1 = nms_r(q, nms_r(q, p[1] - p[0]) * nms_r(q, p[3] - p[2]));
	double a2 = nms_r(q, nms_r(q, r[1] - r[0]) * nms_r(q, r[3] - r[2]));
	double uni = nms_r(q, nms_r(q, a1 + a2) - inter);
	if (signbit(a1) || signbit(a2) || signbit(uni))
		return false;
	return nms_r(q, inter / uni) > q->iou;
}

/* Runs the suppression: per batch and class, the candidates (score above
 * the threshold, if given) by decreasing score (a stable sort: equal
 * scores, and NaNs, keep the boxes' order), each kept unless a box kept
 * before in its class suppresses it, at most max_out. Writes rows (batch,
 * class, box) to rows (NULL: none) and returns their count. cand and kept
 * hold N indices each. */
static size_t nms_select(const Nms *q, const double *boxes, const double *scores,
			 int64_t *cand, int64_t *kept, int64_t *rows)
{
	size_t n = 0;
	int64_t limit = q->max_out == 0 ? INT64_MAX : q->max_out;
	for (int64_t b = 0; b < q->B; b++)
		for (int64_t c = 0; c < q->C; c++) {
			const double *sc = scores + (b * q->C + c) * q->N;
			int64_t nc = 0, nk = 0;
			for (int64_t i = 0; i < q->N; i++)
				if (!q->has_score || sc[i] > q->score)
					cand[nc++] = i;
			for (int64_t i = 1; i < nc; i++) {
				int64_t v = cand[i], j = i;
				for (; j > 0 && sc[cand[j - 1]] < sc[v]; j--)
					cand[j] = cand[j - 1];
				cand[j] = v;
			}
			for (int64_t i = 0; i < nc && nk < limit; i++) {
				const double *bx = boxes + (b * q->N + cand[i]) * 4;
				bool sup = false;
				for (int64_t j = 0; j < nk && !sup; j++)
					sup = nms_suppress(q, bx, boxes + (b * q->N + kept[j]) * 4);
				if (sup)
					continue;
				kept[nk++] = cand[i];
				if (rows) {
					rows[3 * n] = b;
					rows[3 * n + 1] = c;
					rows[3 * n + 2] = cand[i];
				}
				n++;
			}
		}
	return n;
}

/* A number parameter given as a literal or as a tensor of one item. */
static bool nms_number(Interp *it, const Step *s, size_t p, double *v)
{
	const ITensor *t = s->in[p].t;
	const Value *a = karg(s, p);
	if (t && t->data) {
		if (t->count != 1) {
			interp_fail(it, s, DIAG_E1301, "tract_onnx_non_max_suppression: parameter %zu has %zu items; tract reads one (to_scalar)", p + 1, t->count);
			return false;
		}
		*v = interp_value(it, t, 0);
		return true;
	}
	*v = a->kind == VAL_SCALAR ? a->u.s : a->kind == VAL_INT ? (double)a->u.i : 0.0;
	return true;
}

/* tract_onnx_non_max_suppression(boxes, scores, max_output_boxes_per_class,
 * iou_threshold, score_threshold, center_point_box): the rows (batch,
 * class, box) of the boxes kept, i64 [n, 3]: n, known only from the
 * values, is the kernel's to say (interp_shape_result binds tract's
 * symbol n to it for the steps after). */
bool TWIN(kern_tract_non_max_suppression_f32, kern_tract_non_max_suppression_f64)(Interp *it, const Step *s)
{
	const ITensor *bt = s->in[0].t, *st = s->in[1].t;
	ITensor *out = s->out[0];
	if (bt->dtype != TY_SCALAR || st->dtype != TY_SCALAR || (bt->datum != st->datum && bt->datum != DT_NONE && st->datum != DT_NONE)) {
		interp_fail(it, s, DIAG_E1301, "tract_onnx_non_max_suppression: tract needs boxes and scores of one real type (f16, f32 or f64)");
		return false;
	}
	Nms q = { .B = bt->dims[0], .N = bt->dims[1], .C = st->dims[1],
		  .center = karg_int(s, 5) == 1, .has_score = !attr_absent(karg(s, 4)),
		  .dt = bt->datum == DT_F64 || bt->datum == DT_F16 ? (DType)bt->datum : DT_F32 };
	double mo = 0;
	if (!nms_number(it, s, 2, &mo) || !nms_number(it, s, 3, &q.iou) ||
	    (q.has_score && !nms_number(it, s, 4, &q.score)))
		return false;
	q.max_out = (int64_t)mo;
	q.iou = nms_r(&q, q.iou);
	q.score = nms_r(&q, q.score);
	size_t nb = bt->count, ns = st->count, ni = (size_t)(q.N ? q.N : 1);
	double *v = interp_scratch(it, s, nb + ns + 2 * ni + 1, sizeof(double));
	if (!v)
		return false;
	for (size_t i = 0; i < nb; i++)
		v[i] = interp_value(it, bt, i);
	for (size_t i = 0; i < ns; i++)
		v[nb + i] = interp_value(it, st, i);
	int64_t *cand = (int64_t *)(v + nb + ns), *kept = cand + ni;
	size_t n = nms_select(&q, v, v + nb, cand, kept, NULL);
	int64_t dims[2] = { (int64_t)n, 3 };
	bool ok = interp_shape_result(it, s, 0, dims, 2);
	if (ok)
		nms_select(&q, v, v + nb, cand, kept, (int64_t *)out->data);
	interp_release(it, v);
	return ok;
}
