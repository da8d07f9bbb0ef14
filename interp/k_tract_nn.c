/*
 * k_tract_nn.c - kernels of tract's operations: transformer and activation kernels (k_tract_nn.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 *
 * Compiled for float and double (interp/real.h). tract computes these
 * operations in f32 (f16 inputs converted, results rounded back); here
 * they compute in the run's precision, sums of many terms in double, and
 * the executor rounds f16 results to half precision after the step.
 * Attributes tract stores as f32 (scales, eps, alpha, limit) are rounded
 * to float first in both precisions, as tract reads them.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------- */

/* A number attribute as tract reads it: an f32. */
static double attr_f32(const Value *v)
{
	double x = v->kind == VAL_SCALAR ? v->u.s : v->kind == VAL_INT ? (double)v->u.i : 0.0;
	return (double)(float)x;
}

/* A logical attribute (a number: non-zero). */
static bool attr_truthy(const Value *v)
{
	return v->kind == VAL_BOOL ? v->u.b : v->kind == VAL_INT ? v->u.i != 0 : false;
}

/* Whether an optional parameter was left out (its default, false). */
static bool attr_absent(const Value *v)
{
	return v->kind == VAL_BOOL && !v->u.b;
}

/* The strides (in items) of operand t walked over the shape `dims` (rank
 * R), broadcast numpy-style: axes aligned at the end, an extent of 1 (or
 * a missing axis) repeated. */
static void numpy_strides(const ITensor *t, const int64_t *dims, size_t R,
			  int64_t *st)
{
	int64_t own[INTERP_MAX_RANK];
	dims_strides(t->dims, t->rank, own);
	for (size_t d = 0; d < R; d++) {
		int64_t od = (int64_t)d - (int64_t)R + (int64_t)t->rank;
		st[d] = od >= 0 && t->dims[od] != 1 && dims[d] != 1 ? own[od] : 0;
	}
}

/* Advances the row-major position idx over dims (rank R) and the offsets
 * off[k] of n operands with strides st[k]. */
static void walk_next(const int64_t *dims, size_t R, int64_t *idx, size_t n,
		      int64_t st[][INTERP_MAX_RANK], int64_t *off)
{
	for (size_t d = R; d-- > 0;) {
		for (size_t k = 0; k < n; k++)
			off[k] += st[k][d];
		if (++idx[d] < dims[d])
			return;
		for (size_t k = 0; k < n; k++)
			off[k] -= st[k][d] * dims[d];
		idx[d] = 0;
	}
}

/* Whether t's extents broadcast to `dims` (rank R) numpy-style, each
 * equal or 1, and t of rank at most R; fails (E1301) naming `what`. */
static bool fits(Interp *it, const Step *s, const ITensor *t, const int64_t *dims,
		 size_t R, const char *what)
{
	bool ok = t->rank <= R;
	for (size_t d = 0; ok && d < t->rank; d++) {
		int64_t e = t->dims[d], want = dims[R - t->rank + d];
		ok = e == want || e == 1;
	}
	if (!ok)
		interp_fail(it, s, DIAG_E1301, "%s: %s of rank %u does not broadcast to the shape of the result (its extents must equal the result's or be 1)", s->op->frag->name, what, t->rank);
	return ok;
}

/* Softmax (log: log-softmax) of the items x[base + off[r]], r < n, into y
 * at the same places. tract: m = max, e = exp(x - m), softmax e / sum(e),
 * log-softmax x - m - log(sum(e)); here the sum is in double. All -inf
 * gives NaN, as in tract. */
static void softmax_span(const real *x, real *y, int64_t base, const int64_t *off,
			 int64_t n, bool log_)
{
	if (n == 0)
		return;
	double m = -INFINITY, sum = 0;
	for (int64_t r = 0; r < n; r++)
		if ((double)x[base + off[r]] > m)
			m = x[base + off[r]];
	for (int64_t r = 0; r < n; r++)
		sum += exp((double)x[base + off[r]] - m);
	if (log_) {
		double l = log(sum);
		for (int64_t r = 0; r < n; r++)
			y[base + off[r]] = (real)((double)x[base + off[r]] - m - l);
	} else {
		double inv = 1.0 / sum;
		for (int64_t r = 0; r < n; r++)
			y[base + off[r]] = (real)(exp((double)x[base + off[r]] - m) * inv);
	}
}

/* The offsets of the positions of t spanned by the axes marked (or, with
 * `unmarked`, not marked) in on[], row-major; *n of them. NULL after
 * reporting. */
static int64_t *span_offsets(Interp *it, const Step *s, const ITensor *t,
			     const bool *on, bool unmarked, int64_t *n)
{
	int64_t st[INTERP_MAX_RANK], dims[INTERP_MAX_RANK], sst[INTERP_MAX_RANK];
	int64_t pos[INTERP_MAX_RANK] = { 0 };
	size_t k = 0;
	dims_strides(t->dims, t->rank, st);
	for (size_t d = 0; d < t->rank; d++)
		if (on[d] != unmarked) {
			dims[k] = t->dims[d];
			sst[k++] = st[d];
		}
	*n = dims_volume(dims, k);
	int64_t *off = interp_scratch(it, s, (size_t)(*n ? *n : 1), sizeof(int64_t));
	if (!off)
		return NULL;
	for (int64_t r = 0; r < *n; r++) {
		off[r] = 0;
		for (size_t j = 0; j < k; j++)
			off[r] += pos[j] * sst[j];
		for (size_t j = k; j-- > 0;) {
			if (++pos[j] < dims[j])
				break;
			pos[j] = 0;
		}
	}
	return off;
}

/* ---- tract_core: softmax, log_softmax ------------------------------------------------ */

/* The axes of softmax (parameter 1), marked in on[]: tract needs numbers
 * known when it loads the graph (a literal array); a tensor of integers
 * (a wire, which tract refuses) is read all the same. */
static bool softmax_axes(Interp *it, const Step *s, size_t rank, bool *on)
{
	const Value *v = karg(s, 1);
	const ITensor *t = s->in[1].t;
	size_t n = v->kind == VAL_ARRAY ? v->n : v->kind == VAL_INT ? 1 : t ? t->count : 0;
	for (size_t d = 0; d < rank; d++)
		on[d] = false;
	for (size_t i = 0; i < n; i++) {
		int64_t a = v->kind == VAL_ARRAY ? v->u.items[i]->u.i
			  : v->kind == VAL_INT ? v->u.i : ((const int64_t *)t->data)[i];
		if (a < 0 || (uint64_t)a >= rank) {
			interp_fail(it, s, DIAG_E1301, "%s: axis %lld is out of range for the input of rank %zu", s->op->frag->name, (long long)a, rank);
			return false;
		}
		on[a] = true;
	}
	return true;
}

/* softmax(x, axes, exp), log_softmax(x, axes): over the sub-tensors the
 * axes span (tract's Softmax and LogSoftmax). exp = "fast_compact" makes
 * tract use an approximate exponential (Schraudolph's); nnef-run uses the
 * exact one in every case, so such results differ from tract's by that
 * approximation. */
bool TWIN(kern_tract_softmax_f32, kern_tract_softmax_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	bool on[INTERP_MAX_RANK];
	if (!softmax_axes(it, s, in->rank, on))
		return false;
	int64_t nin, nout;
	int64_t *inner = span_offsets(it, s, in, on, false, &nin);
	if (!inner)
		return false;
	int64_t *outer = span_offsets(it, s, in, on, true, &nout);
	if (!outer) {
		interp_release(it, inner);
		return false;
	}
	bool log_ = s->op->prim == SHAPE_OP_TRACT_CORE_LOG_SOFTMAX;
	for (int64_t o = 0; o < nout && in->count; o++)
		softmax_span(in->data, s->out[0]->data, outer[o], inner, nin, log_);
	interp_release(it, outer);
	interp_release(it, inner);
	return true;
}

/* scaled_masked_softmax(input, mask, scale): softmax over axis 2 of
 * input * scale + mask, the mask broadcast numpy-style (tract: Mul, Add,
 * then Softmax over axis 2, in the input's type; scale an f32 cast to
 * it). */
bool TWIN(kern_tract_scaled_masked_softmax_f32, kern_tract_scaled_masked_softmax_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *mask = s->in[1].t;
	ITensor *out = s->out[0];
	if (!fits(it, s, mask, in->dims, in->rank, "the mask"))
		return false;
	double scale = attr_f32(karg(s, 2));
	int64_t st[1][INTERP_MAX_RANK], idx[INTERP_MAX_RANK] = { 0 }, off[1] = { 0 };
	numpy_strides(mask, in->dims, in->rank, st[0]);
	const real *x = in->data, *m = mask->data;
	real *y = out->data;
	for (size_t i = 0; i < in->count; i++) {
		y[i] = (real)((double)x[i] * scale + (double)m[off[0]]);
		walk_next(in->dims, in->rank, idx, 1, st, off);
	}
	/* then softmax over axis 2 (the input has rank 3), in place */
	int64_t n = in->dims[2], rows = n ? (int64_t)in->count / n : 0;
	int64_t *seq = interp_scratch(it, s, (size_t)(n ? n : 1), sizeof(int64_t));
	if (!seq)
		return false;
	for (int64_t j = 0; j < n; j++)
		seq[j] = j;
	for (int64_t r = 0; r < rows; r++)
		softmax_span(y, y, r * n, seq, n, false);
	interp_release(it, seq);
	return true;
}

/* ---- tract_core: rms_norm, scaled_rms_norm ------------------------------------------- */

/* y = x / sqrt(mean(x^2 over axis) + eps), times scale[...] when scale is
 * given (its items along the axis when it holds one per position of it,
 * else broadcast numpy-style). */
static void rms_norm(const ITensor *in, real *y, size_t axis, double eps,
		     const ITensor *scale, const int64_t *sst)
{
	int64_t outer = dims_volume(in->dims, axis), n = in->dims[axis];
	int64_t inner = dims_volume(in->dims + axis + 1, in->rank - axis - 1);
	const real *x = in->data, *w = scale ? scale->data : NULL;
	bool along = scale && scale->count == (size_t)n;
	int64_t st[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, st);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t base = o * n * inner + i;
			double ss = 0;
			for (int64_t j = 0; j < n; j++) {
				double v = x[base + j * inner];
				ss += v * v;
			}
			/* tract: rsqrt(mean_of_squares + eps) times x */
			double r = 1.0 / sqrt(ss / (double)n + eps);
			for (int64_t j = 0; j < n; j++) {
				int64_t p = base + j * inner;
				double v = (double)x[p] * r;
				if (along) {
					v *= (double)w[j];
				} else if (w) {
					int64_t so = 0, rest = p;
					for (size_t d = 0; d < in->rank; d++) {
						so += rest / st[d] * sst[d];
						rest %= st[d];
					}
					v *= (double)w[so];
				}
				y[p] = (real)v;
			}
		}
}

/* rms_norm(input, axis, eps) and tract_transformers_rms_norm: computed
 * in f32 by tract (f16 inputs converted, the result cast back). */
bool TWIN(kern_tract_rms_norm_f32, kern_tract_rms_norm_f64)(Interp *it, const Step *s)
{
	(void)it;
	rms_norm(s->in[0].t, s->out[0]->data, (size_t)karg_int(s, 1),
		 attr_f32(karg(s, 2)), NULL, NULL);
	return true;
}

/* scaled_rms_norm(input, scale, axis, eps, out_dt, scale_dt): rms_norm
 * times the scale along the axis (tract's fused ScaledRmsNorm: (x * r) *
 * gamma in f32, one rounding to out_dt at the write; the executor rounds
 * to out_dt). scale_dt only says the type the scale is stored in. */
bool TWIN(kern_tract_scaled_rms_norm_f32, kern_tract_scaled_rms_norm_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *scale = s->in[1].t;
	size_t axis = (size_t)karg_int(s, 2);
	int64_t sst[INTERP_MAX_RANK] = { 0 };
	if (scale->count != (size_t)in->dims[axis]) {
		if (!fits(it, s, scale, in->dims, in->rank, "the scale"))
			return false;
		numpy_strides(scale, in->dims, in->rank, sst);
	}
	rms_norm(in, s->out[0]->data, axis, attr_f32(karg(s, 3)), scale, sst);
	return true;
}

/* ---- tract_core: activations ------------------------------------------------------------ */

/* silu(input) and tract_transformers_silu: x * sigmoid(x) = x / (1 +
 * exp(-x)) (tract: its vectorized kernel, in f32 or f16). */
bool TWIN(kern_tract_silu_f32, kern_tract_silu_f64)(Interp *it, const Step *s)
{
	(void)it;
	const real *x = s->in[0].t->data;
	real *y = s->out[0]->data;
	for (size_t i = 0; i < s->out[0]->count; i++)
		y[i] = (real)((double)x[i] / (1.0 + exp(-(double)x[i])));
	return true;
}

/* gelu_approx(input, fast_impl) and tract_transformers_gelu_approx:
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^p))), p = 3, or 2 with
 * fast_impl (tract computes in f32; f16 converted and rounded back). */
bool TWIN(kern_tract_gelu_approx_f32, kern_tract_gelu_approx_f64)(Interp *it, const Step *s)
{
	(void)it;
	const real *x = s->in[0].t->data;
	real *y = s->out[0]->data;
	bool fast = attr_truthy(karg(s, 1));
	double k = sqrt(2.0 / 3.14159265358979323846);
	for (size_t i = 0; i < s->out[0]->count; i++) {
		double v = x[i], p = fast ? v * v : v * v * v;
		y[i] = (real)(0.5 * v * (1.0 + tanh(k * (v + 0.044715 * p))));
	}
	return true;
}

/* clamped_swiglu(gate, up, alpha, limit): g = min(gate, limit) (a NaN gate
 * gives limit, as Rust's f32::min), u = clamp(up, -limit, limit) (NaN
 * stays NaN); out = (u + 1) * g / (1 + exp(-alpha * g)). tract computes in
 * f32 and gives f32. */
bool TWIN(kern_tract_clamped_swiglu_f32, kern_tract_clamped_swiglu_f64)(Interp *it, const Step *s)
{
	(void)it;
	const real *gate = s->in[0].t->data, *up = s->in[1].t->data;
	real *y = s->out[0]->data;
	double alpha = attr_f32(karg(s, 2)), limit = attr_f32(karg(s, 3));
	for (size_t i = 0; i < s->out[0]->count; i++) {
		double g = fmin((double)gate[i], limit), u = up[i];
		u = u < -limit ? -limit : u > limit ? limit : u;
		y[i] = (real)((u + 1.0) * (g / (1.0 + exp(-alpha * g))));
	}
	return true;
}

/* ---- tract_transformers: apply_rope ------------------------------------------------------ */

/* apply_rope(input, cos, sin): x * cos + rotate_half(x) * sin, cos and sin
 * broadcast numpy-style; rotate_half(x) = concat(-x[m:2m], x[0:m]) over
 * the last axis of extent 2m (tract: Mul, Mul, Add in the input's
 * type). */
bool TWIN(kern_tract_apply_rope_f32, kern_tract_apply_rope_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *c = s->in[1].t, *sn = s->in[2].t;
	ITensor *out = s->out[0];
	size_t R = in->rank;
	if (!fits(it, s, c, in->dims, R, "'cos'") || !fits(it, s, sn, in->dims, R, "'sin'"))
		return false;
	int64_t st[2][INTERP_MAX_RANK], idx[INTERP_MAX_RANK] = { 0 }, off[2] = { 0, 0 };
	numpy_strides(c, in->dims, R, st[0]);
	numpy_strides(sn, in->dims, R, st[1]);
	int64_t last = in->dims[R - 1], m = last / 2;
	const real *x = in->data, *cv = c->data, *sv = sn->data;
	real *y = out->data;
	for (size_t i = 0; i < out->count; i++) {
		int64_t j = idx[R - 1], row = (int64_t)i - j;
		double rot = j < m ? -(double)x[row + j + m] : (double)x[row + j - m];
		y[i] = (real)((double)x[i] * (double)cv[off[0]] + rot * (double)sv[off[1]]);
		walk_next(in->dims, R, idx, 2, st, off);
	}
	return true;
}

/* ---- tract_transformers: sdpa ---------------------------------------------------------- */

/* The geometry of an sdpa: rank 3 [b, s, d] has one head. */
typedef struct Sdpa {
	int64_t nb, hq, hk, g, sq, sk, d, dv;
	double scale;
	const ITensor *mask;
	int64_t mq, mk;        /* the mask's last two extents */
	bool causal;
} Sdpa;

/* Row i of the attention weights, in place: softmax over the keys of
 * scores * scale + mask (tract: ScaledMaskedSoftmax when a mask is given
 * or made, else Softmax of the scaled scores: the same values). The
 * causal mask is -inf where key j > (s_k - s_q) + i. */
static void attention_row(const Sdpa *a, real *row, int64_t i)
{
	const real *m = a->mask ? (const real *)a->mask->data + (a->mq == 1 ? 0 : i) * a->mk : NULL;
	int64_t limit = a->causal ? a->sk - a->sq + i : a->sk;
	double mx = -INFINITY, sum = 0;
	for (int64_t j = 0; j < a->sk; j++) {
		double x = (double)row[j] * a->scale;
		if (m)
			x += (double)m[a->mk == 1 ? 0 : j];
		if (j > limit)
			x = -INFINITY;
		row[j] = (real)x;
		if (x > mx)
			mx = x;
	}
	for (int64_t j = 0; j < a->sk; j++)
		sum += exp((double)row[j] - mx);
	double inv = 1.0 / sum;
	for (int64_t j = 0; j < a->sk; j++)
		row[j] = (real)(exp((double)row[j] - mx) * inv);
}

/* Reads the geometry of step s; false after reporting. */
static bool sdpa_setup(Interp *it, const Step *s, Sdpa *a)
{
	const ITensor *q = s->in[0].t, *k = s->in[1].t, *v = s->in[2].t;
	size_t r = q->rank;
	memset(a, 0, sizeof(*a));
	a->nb = q->dims[0];
	a->hq = r == 4 ? q->dims[1] : 1;
	a->hk = r == 4 ? k->dims[1] : 1;
	a->g = a->hk ? a->hq / a->hk : 1;
	a->sq = q->dims[r - 2];
	a->sk = k->dims[r - 2];
	a->d = q->dims[r - 1];
	a->dv = v->dims[r - 1];
	a->causal = attr_truthy(karg(s, 7));
	/* scale: given, or 1 / sqrt(d_k) computed in f32 (d_k: k's last
	 * extent) */
	const Value *sc = karg(s, 4);
	a->scale = !attr_absent(sc) ? attr_f32(sc)
		 : (double)(1.0f / sqrtf((float)k->dims[r - 1]));
	if (attr_absent(karg(s, 3)))
		return true;
	/* tract drops the mask's leading axes (extent 1) to make it [q, k],
	 * then broadcasts it over the scores */
	a->mask = s->in[3].t;
	uint32_t mr = a->mask->rank;
	a->mq = mr >= 2 ? a->mask->dims[mr - 2] : 1;
	a->mk = mr >= 1 ? a->mask->dims[mr - 1] : 1;
	if ((a->mq != 1 && a->mq != a->sq) || (a->mk != 1 && a->mk != a->sk) ||
	    a->mask->count != (size_t)(a->mq * a->mk)) {
		interp_fail(it, s, DIAG_E1301, "%s: the mask has %zu items in rows of %lld; it must broadcast to the scores, %lld queries by %lld keys", s->op->frag->name, a->mask->count, (long long)a->mk, (long long)a->sq, (long long)a->sk);
		return false;
	}
	return true;
}

/* sdpa(q, k, v, mask, scale, datum_type, acc_datum_type, is_causal):
 * per batch and q head h (k and v head h / g, g = h_q / h_k: grouped-query
 * attention), out = softmax(q k^T * scale + mask) v. The batches of k and
 * v broadcast (extent 1). tract accumulates both products in
 * acc_datum_type (f32 or f16) and casts to q's type; here they are
 * computed in the run's precision (an f16 acc_datum_type is not
 * emulated). */
bool TWIN(kern_tract_sdpa_f32, kern_tract_sdpa_f64)(Interp *it, const Step *s)
{
	const ITensor *k = s->in[1].t, *v = s->in[2].t;
	ITensor *out = s->out[0];
	Sdpa a;
	if (!sdpa_setup(it, s, &a))
		return false;
	if (out->count == 0)
		return true;
	int64_t ld = a.d ? a.d : 1, nsc = a.sq * a.sk;
	real *sc = interp_scratch(it, s, (size_t)(nsc ? nsc : 1), sizeof(real));
	if (!sc)
		return false;
	for (int64_t b = 0; b < a.nb; b++)
		for (int64_t h = 0; h < a.hq; h++) {
			int64_t kb = k->dims[0] == 1 ? 0 : b, vb = v->dims[0] == 1 ? 0 : b;
			const real *qp = (const real *)s->in[0].t->data + (b * a.hq + h) * a.sq * a.d;
			const real *kp = (const real *)k->data + (kb * a.hk + h / a.g) * a.sk * a.d;
			const real *vp = (const real *)v->data + (vb * a.hk + h / a.g) * a.sk * a.dv;
			real *op = (real *)out->data + (b * a.hq + h) * a.sq * a.dv;
			if (a.sk == 0) {
				memset(op, 0, (size_t)(a.sq * a.dv) * sizeof(real));
				continue;
			}
			if (a.d == 0)
				memset(sc, 0, (size_t)nsc * sizeof(real));
			else
				GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)a.sq, (int)a.sk,
				     (int)a.d, R(1.0), qp, (int)ld, kp, (int)ld, R(0.0), sc, (int)a.sk);
			for (int64_t i = 0; i < a.sq; i++)
				attention_row(&a, sc + i * a.sk, i);
			GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)a.sq, (int)a.dv,
			     (int)a.sk, R(1.0), sc, (int)a.sk, vp, (int)a.dv, R(0.0), op, (int)a.dv);
		}
	interp_release(it, sc);
	return true;
}

/* ---- tract_transformers: Qwen3.5's recurrent layers -------------------------------------- */

/* causal_conv1d_update(input, weight, initial_state) and its tract_qwen35_
 * alias: one decode step of a depthwise causal convolution of 4 taps with
 * SiLU. Per channel c (rows of 4 in weight and state): final_state[c] =
 * (state[c,1], state[c,2], state[c,3], input[c]); s = sum of final_state[c,
 * t] * weight[c, t]; output[c] = s / (1 + exp(-s)). tract reads f16,
 * sums in f32, rounds the output to f16 (the executor does). */
bool TWIN(kern_tract_causal_conv1d_update_f32, kern_tract_causal_conv1d_update_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *w = s->in[1].t, *st = s->in[2].t;
	size_t C = in->count;
	if (w->rank == 0 || w->dims[w->rank - 1] != 4 || w->count != 4 * C || st->count != 4 * C) {
		interp_fail(it, s, DIAG_E1301, "%s: the weight has %zu items and the state %zu; with %zu channels both need %zu (4 taps per channel)", s->op->frag->name, w->count, st->count, C, 4 * C);
		return false;
	}
	const real *x = in->data, *wv = w->data, *sv = st->data;
	real *y = s->out[0]->data, *fs = s->out[1]->data;
	for (size_t c = 0; c < C; c++) {
		size_t b = 4 * c;
		double sum = 0;
		for (size_t t = 0; t < 3; t++) {
			fs[b + t] = sv[b + t + 1];
			sum += (double)sv[b + t + 1] * (double)wv[b + t];
		}
		fs[b + 3] = x[c];
		sum += (double)x[c] * (double)wv[b + 3];
		y[c] = (real)(sum / (1.0 + exp(-sum)));
	}
	return true;
}

/* One step si of one value head h of batch bi of the gated delta rule
 * (see kern_tract_gdn_recurrent); state: that head's w x w matrix. */
static void gdn_step(const real *q, const real *k, const real *v, double decay,
		     double beta, double *state, real *out, int64_t w, double *qn,
		     double *kn)
{
	double qs = 0, ks = 0;
	for (int64_t i = 0; i < w; i++) {
		qs += (double)q[i] * (double)q[i];
		ks += (double)k[i] * (double)k[i];
	}
	double qi = 1.0 / sqrt(qs + 1e-6), ki = 1.0 / sqrt(ks + 1e-6);
	double scale = 1.0 / sqrt((double)w);
	for (int64_t i = 0; i < w; i++) {
		qn[i] = (double)q[i] * qi * scale;
		kn[i] = (double)k[i] * ki;
	}
	for (int64_t col = 0; col < w; col++) {
		double kv = 0, res = 0;
		for (int64_t row = 0; row < w; row++)
			kv += kn[row] * state[row * w + col] * decay;
		double delta = ((double)v[col] - kv) * beta;
		for (int64_t row = 0; row < w; row++) {
			double next = state[row * w + col] * decay + kn[row] * delta;
			state[row * w + col] = next;
			res += qn[row] * next;
		}
		out[col] = (real)res;
	}
}

/* gdn_recurrent(query, key, value, log_decay, beta, initial_state) and its
 * tract_qwen35_ alias: the gated delta rule over the steps of axis 1. q, k
 * [b, S, hk, w], v [b, S, hv, w] (value head h reads q/k head h / (hv /
 * hk)), log_decay and beta [b, S, hv], state [b, hv, w, w]. Per step:
 * q and k L2-normalized (eps 1e-6 under the root), q also divided by
 * sqrt(w); decay = exp(log_decay); per column j: kv = sum_i k_i S[i,j]
 * decay; delta = (v_j - kv) beta; S[i,j] = S[i,j] decay + k_i delta;
 * out_j = sum_i q_i S[i,j]. tract computes all in f32; here in double,
 * the results rounded to the run's precision. */
bool TWIN(kern_tract_gdn_recurrent_f32, kern_tract_gdn_recurrent_f64)(Interp *it, const Step *s)
{
	const ITensor *q = s->in[0].t, *k = s->in[1].t, *v = s->in[2].t;
	const ITensor *g = s->in[3].t, *be = s->in[4].t, *st0 = s->in[5].t;
	int64_t nb = q->dims[0], S = q->dims[1], hk = q->dims[2], w = q->dims[3];
	int64_t hv = v->dims[2];
	if (hk == 0 || hv % hk != 0 || st0->count != (size_t)(nb * hv * w * w) ||
	    g->count != (size_t)(nb * S * hv) || be->count != (size_t)(nb * S * hv)) {
		interp_fail(it, s, DIAG_E1301, "%s: the shapes do not agree at run time (query heads %lld, value heads %lld, head width %lld)", s->op->frag->name, (long long)hk, (long long)hv, (long long)w);
		return false;
	}
	int64_t G = hv / hk, sw = w * w;
	size_t nstate = st0->count;
	double *state = interp_scratch(it, s, nstate + 2 * (size_t)w + 1, sizeof(double));
	if (!state)
		return false;
	double *qn = state + nstate, *kn = qn + w;
	const real *s0 = st0->data, *gv = g->data, *bv = be->data;
	for (size_t i = 0; i < nstate; i++)
		state[i] = s0[i];
	real *y = s->out[0]->data, *fs = s->out[1]->data;
	for (int64_t b = 0; b < nb; b++)
		for (int64_t si = 0; si < S; si++)
			for (int64_t h = 0; h < hv; h++) {
				int64_t vo = ((b * S + si) * hv + h) * w;
				int64_t qo = ((b * S + si) * hk + h / G) * w;
				int64_t go = (b * S + si) * hv + h;
				gdn_step((const real *)q->data + qo, (const real *)k->data + qo,
					 (const real *)v->data + vo, exp((double)gv[go]),
					 (double)bv[go], state + (b * hv + h) * sw, y + vo, w, qn, kn);
			}
	for (size_t i = 0; i < nstate; i++)
		fs[i] = (real)state[i];
	interp_release(it, state);
	return true;
}
