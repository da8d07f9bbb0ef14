/*
 * k_tract_quant.c - kernels of tract's operations: quantized matrix
 * products and convolutions.
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 *
 * tract_core_einsum_q, tract_core_qmatmul and tract_core_qconv, on
 * integer tensors (i8, u8...) whose quantization comes as explicit
 * arguments (zero points a0, b0, c0; scales a_scale, b_scale, c_scale).
 * They compute as the plan tract runs (core/src/ops/einsum/
 * einsum_matmul.rs `dequant`, core/src/ops/cnn/conv/conv.rs
 * `wire_as_quant_im2col`, core/src/ops/matmul/quant.rs): the sum of
 * (a - a0)(b - b0) in wrapping i32 arithmetic, plus the bias (cast to
 * i32); then the Scale operation by a_scale * b_scale / c_scale (f32,
 * multiplied then divided): |acc| * scale in f32, rounded half to even,
 * the sign put back (core/src/ops/quant.rs `scale_by`), cast to i32
 * saturating; plus c0; clamped to the range of the output's type when
 * it is narrower than i32 (`clamp_and_cast_to`).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* ---- quantization parameters -------------------------------------------------------------- */

enum { Q_BIAS, Q_A0, Q_ASCALE, Q_B0, Q_BSCALE, Q_C0, Q_CSCALE, Q_N };

static const char *const q_names[Q_N] = { "bias", "a0", "a_scale", "b0", "b_scale", "c0", "c_scale" };

/* One parameter: a tensor of n items (rank 0 or 1), or a literal; per
 * axis (n > 1) along the index of letter `letter`. */
typedef struct QArg {
	const ITensor *t;
	double lit;
	size_t n;
	unsigned char letter;
} QArg;

/* Reads parameter p (a tensor, or a number given for an attribute). */
static bool q_arg(Interp *it, const Step *s, size_t p, size_t which, QArg *q)
{
	const ITensor *t = s->in[p].t;
	memset(q, 0, sizeof(*q));
	q->n = 1;
	if (t && t->data) {
		if (t->rank > 1 || t->count == 0) {
			interp_fail(it, s, DIAG_E1302, "%s: '%s' has rank %u and %zu items; tract takes a quantization parameter of rank 0 or 1, not empty", s->op->frag->name, q_names[which], t->rank, t->count);
			return false;
		}
		q->t = t;
		q->n = t->count;
		return true;
	}
	const Value *v = karg(s, p);
	if (v->kind == VAL_INT)
		q->lit = (double)v->u.i;
	else if (v->kind == VAL_SCALAR)
		q->lit = v->u.s;
	else {
		interp_fail(it, s, DIAG_E1302, "%s: '%s' is not a number known when the graph runs", s->op->frag->name, q_names[which]);
		return false;
	}
	return true;
}

/* Item i of q (0 when it has one). */
static inline double q_at(const Interp *it, const QArg *q, int64_t i)
{
	if (!q->t)
		return q->lit;
	return interp_value(it, q->t, q->n == 1 ? 0 : (size_t)i);
}

/* A zero point or the bias as tract casts it: to i32 (reals truncated,
 * saturating). */
static inline int64_t q_int(const Interp *it, const QArg *q, int64_t i)
{
	return dtype_real_to(DT_I32, q_at(it, q, i));
}

/* The i32 accumulator acc requantized by scale (f32) and zero point c0
 * into datum type d (the clamp of integer types narrower than 32 bits). */
static int64_t q_requant(uint32_t acc, float scale, int64_t c0, DType d)
{
	int32_t a = (int32_t)acc;
	float x = fabsf((float)a) * scale;
	float r = floorf(x), f = x - r;
	if (f > 0.5f || (f == 0.5f && fmodf(r, 2.0f) != 0.0f))
		r += 1.0f;
	int64_t v = dtype_real_to(DT_I32, a < 0 ? -(double)r : (double)r);
	v = (int32_t)(uint32_t)((uint64_t)v + (uint64_t)c0);
	if (dtype_is_integer(d) && dtype_bits(d) < 32) {
		int64_t lo = dtype_class(d) == DTC_UNSIGNED ? 0 : -((int64_t)1 << (dtype_bits(d) - 1));
		int64_t hi = dtype_class(d) == DTC_UNSIGNED ? ((int64_t)1 << dtype_bits(d)) - 1 : ((int64_t)1 << (dtype_bits(d) - 1)) - 1;
		v = v < lo ? lo : v > hi ? hi : v;
	}
	return v;
}

/* The combined scale a_scale * b_scale / c_scale, in f32 as tract forms it
 * (core/src/ops/matmul/quant.rs `combine_scales`). */
static inline float q_scale(const Interp *it, const QArg *q, int64_t ia, int64_t ib, int64_t ic)
{
	float ab = (float)q_at(it, &q[Q_ASCALE], ia) * (float)q_at(it, &q[Q_BSCALE], ib);
	return ab / (float)q_at(it, &q[Q_CSCALE], ic);
}

/* Stores v as item o of out (integers, or reals for a floating-point
 * output type). */
static inline void q_store(ITensor *out, size_t o, int64_t v)
{
	if (out->dtype == TY_INTEGER)
		((int64_t *)out->data)[o] = v;
	else if (out->dtype == TY_SCALAR)
		((real *)out->data)[o] = (real)v;
	else
		((uint8_t *)out->data)[o] = v != 0;
}

/* Fails (E1302) unless t holds integers (tract's quantized products read
 * i8 and u8 items). */
static bool q_need_ints(Interp *it, const Step *s, const ITensor *t, const char *what)
{
	if (t->dtype == TY_INTEGER)
		return true;
	interp_fail(it, s, DIAG_E1302, "%s: '%s' holds %s; tract runs quantized products on integer tensors (i8, u8)", s->op->frag->name, what, t->dtype == TY_SCALAR ? "reals" : "logicals");
	return false;
}

/* ---- two-operand quantized contraction (einsum_q, qmatmul) ------------------------------ */

enum { QL = 128 };

/* Letters of A (la), B (lb) and the output (lo); parameter letters in
 * q[k].letter. */
typedef struct QPlan {
	const ITensor *a, *b;
	ITensor *out;
	unsigned char la[INTERP_MAX_RANK], lb[INTERP_MAX_RANK], lo[INTERP_MAX_RANK];
	QArg q[Q_N];
} QPlan;

/* Checks the per-axis parameters: each of n > 1 items needs a letter of
 * that extent, held by its operand (a0: A; b0: B) or by the output (bias,
 * scales, c0), as tract positions them. */
static bool qp_check(Interp *it, const Step *s, const QPlan *p, const int64_t *ext,
			    const bool *in_a, const bool *in_b, const bool *in_o)
{
	for (size_t k = 0; k < Q_N; k++) {
		const QArg *q = &p->q[k];
		if (q->n == 1)
			continue;
		const bool *where = k == Q_A0 ? in_a : k == Q_B0 ? in_b : in_o;
		const char *whose = k == Q_A0 ? "A" : k == Q_B0 ? "B" : "the output";
		if (!q->letter || !where[q->letter]) {
			interp_fail(it, s, DIAG_E1302, "%s: '%s' has %zu items but no letter of %s in the expression places them (per-axis parameters take the letter of their axis in their slot of the expression)", s->op->frag->name, q_names[k], q->n, whose);
			return false;
		}
		if ((int64_t)q->n != ext[q->letter]) {
			interp_fail(it, s, DIAG_E1301, "%s: '%s' has %zu items along axis '%c', of extent %lld", s->op->frag->name, q_names[k], q->n, q->letter, (long long)ext[q->letter]);
			return false;
		}
	}
	return true;
}

/* Offset in a tensor of labels lab (its dims, row-major) of the index idx
 * of each letter; axes of extent 1 broadcast. */
static inline int64_t q_offset(const ITensor *t, const unsigned char *lab, const int64_t *idx)
{
	int64_t off = 0;
	for (size_t k = 0; k < t->rank; k++)
		off = off * t->dims[k] + (t->dims[k] == 1 ? 0 : idx[lab[k]]);
	return off;
}

/* Steps idx over the letters let[0..n) of extents ext (the last fastest);
 * false when it wrapped around. */
static inline bool q_next(int64_t *idx, const unsigned char *let, size_t n, const int64_t *ext)
{
	for (size_t j = n; j-- > 0;) {
		if (++idx[let[j]] < ext[let[j]])
			return true;
		idx[let[j]] = 0;
	}
	return false;
}

/* Runs plan p: each output item the wrapping i32 sum over the letters
 * absent from the output of (a - a0)(b - b0), plus the bias, requantized
 * to the output's datum type. */
static bool qp_run(Interp *it, const Step *s, QPlan *p)
{
	const ITensor *a = p->a, *b = p->b;
	ITensor *out = p->out;
	if (!q_need_ints(it, s, a, "A") || !q_need_ints(it, s, b, "B"))
		return false;
	int64_t ext[QL], idx[QL];
	bool in_a[QL] = { false }, in_b[QL] = { false }, in_o[QL] = { false };
	for (int c = 0; c < QL; c++)
		ext[c] = 1;
	for (size_t k = 0; k < a->rank; k++) {
		in_a[p->la[k]] = true;
		if (a->dims[k] != 1 && ext[p->la[k]] == 1)
			ext[p->la[k]] = a->dims[k];
	}
	for (size_t k = 0; k < b->rank; k++) {
		in_b[p->lb[k]] = true;
		if (b->dims[k] != 1 && ext[p->lb[k]] == 1)
			ext[p->lb[k]] = b->dims[k];
	}
	for (size_t k = 0; k < out->rank; k++)
		in_o[p->lo[k]] = true;
	if (!qp_check(it, s, p, ext, in_a, in_b, in_o))
		return false;
	unsigned char sum[QL];
	size_t ns = 0;
	for (int c = 0; c < QL; c++)
		if ((in_a[c] || in_b[c]) && !in_o[c])
			sum[ns++] = (unsigned char)c;
	int64_t nsum = 1;
	for (size_t j = 0; j < ns; j++)
		nsum *= ext[sum[j]];
	memset(idx, 0, sizeof(idx));
	DType d = (DType)out->datum;
	const QArg *q = p->q;
	const int64_t *ai = a->data, *bi = b->data;
	for (size_t o = 0; o < out->count; o++) {
		uint32_t acc = 0;
		for (int64_t c = 0; c < nsum; c++) {
			int64_t x = ai[q_offset(a, p->la, idx)] - q_int(it, &q[Q_A0], idx[q[Q_A0].letter]);
			int64_t y = bi[q_offset(b, p->lb, idx)] - q_int(it, &q[Q_B0], idx[q[Q_B0].letter]);
			acc += (uint32_t)(uint64_t)(x * y);
			q_next(idx, sum, ns, ext);
		}
		acc += (uint32_t)(uint64_t)q_int(it, &q[Q_BIAS], idx[q[Q_BIAS].letter]);
		float scale = q_scale(it, q, idx[q[Q_ASCALE].letter], idx[q[Q_BSCALE].letter], idx[q[Q_CSCALE].letter]);
		q_store(out, o, q_requant(acc, scale, q_int(it, &q[Q_C0], idx[q[Q_C0].letter]), d));
		q_next(idx, p->lo, out->rank, ext);
	}
	return true;
}

/* The letters of einsum_q's expression (checked by the shape function):
 * spaces ignored; comma-separated slots, A's, B's, then (when written, as
 * tract writes them) one per parameter bias, a0, a_scale, b0, b_scale,
 * c0, c_scale, empty or the letter of its axis; "->" and the output's
 * letters; without "->", the letters occurring once in A and B, in code
 * order. */
static void qp_parse(const Value *e, QPlan *p)
{
	size_t slot = 0, k = 0, o = 0;
	bool arrow = false;
	unsigned count[QL] = { 0 };
	for (size_t i = 0; i < e->n; i++) {
		unsigned char ch = (unsigned char)e->u.str[i];
		if (ch == ' ' || ch >= QL)
			continue;
		if (ch == '-' && i + 1 < e->n && e->u.str[i + 1] == '>') {
			arrow = true;
			i++;
		} else if (ch == ',') {
			if (!arrow) {
				slot++;
				k = 0;
			}
		} else if (arrow) {
			if (o < INTERP_MAX_RANK)
				p->lo[o++] = ch;
		} else if (slot < 2 && k < INTERP_MAX_RANK) {
			(slot ? p->lb : p->la)[k++] = ch;
			count[ch]++;
		} else if (slot >= 2 && slot < 2 + Q_N) {
			p->q[slot - 2].letter = ch;
		}
	}
	if (!arrow)
		for (unsigned c = 0; c < QL; c++)
			if (count[c] == 1 && o < INTERP_MAX_RANK)
				p->lo[o++] = (unsigned char)c;
}

/* tract_core_einsum_q(inputs, expr, acc, output, bias, a0, a_scale, b0,
 * b_scale, c0, c_scale): inputs [A, B]; the result has datum type
 * `output`. */
bool TWIN(kern_tract_einsum_q_f32, kern_tract_einsum_q_f64)(Interp *it, const Step *s)
{
	QPlan p;
	memset(&p, 0, sizeof(p));
	p.a = s->in[0].items[0];
	p.b = s->in[0].items[1];
	p.out = s->out[0];
	for (size_t k = 0; k < Q_N; k++)
		if (!q_arg(it, s, 4 + k, k, &p.q[k]))
			return false;
	qp_parse(karg(s, 1), &p);
	return qp_run(it, s, &p);
}

/* tract_core_qmatmul(A, B, bias, axes, a0, a_scale, b0, b_scale, c0,
 * c_scale, output_type): axes = [a_m, a_k, b_k, b_n, c_m, c_n], the other
 * axes batch axes matched in order (as tract_core_matmul); parameters per
 * tensor (the legacy axes give them no letter). */
bool TWIN(kern_tract_qmatmul_f32, kern_tract_qmatmul_f64)(Interp *it, const Step *s)
{
	QPlan p;
	memset(&p, 0, sizeof(p));
	p.a = s->in[0].t;
	p.b = s->in[1].t;
	p.out = s->out[0];
	static const size_t pos[Q_N] = { 2, 4, 5, 6, 7, 8, 9 };
	for (size_t k = 0; k < Q_N; k++)
		if (!q_arg(it, s, pos[k], k, &p.q[k]))
			return false;
	int64_t ax[6];
	for (size_t i = 0; i < 6; i++)
		ax[i] = karg_item(s, 3, i);
	static const unsigned char name[6] = { 'M', 'K', 'K', 'N', 'M', 'N' };
	for (size_t t = 0; t < 3; t++) {
		unsigned char *row = t == 0 ? p.la : t == 1 ? p.lb : p.lo;
		unsigned char batch = 'a';
		for (int64_t k = 0; k < (int64_t)p.out->rank; k++)
			row[k] = k == ax[2 * t] ? name[2 * t] : k == ax[2 * t + 1] ? name[2 * t + 1] : batch++;
	}
	return qp_run(it, s, &p);
}

/* ---- qconv -------------------------------------------------------------------------------- */

/* The padding before each spatial axis: given, or tract's SAME_UPPER
 * (total max((y - 1) s + (f - 1) d + 1 - x, 0), the smaller half before). */
static void qc_pad(const Step *s, const ITensor *x, const ITensor *w, const ITensor *y,
			  const int64_t *st, const int64_t *dl, int64_t *pad)
{
	const Value *pv = karg(s, 6);
	for (size_t i = 0; i + 2 < x->rank; i++) {
		if (pv->n) {
			pad[i] = pv->u.items[i]->u.items[0]->u.i;
			continue;
		}
		int64_t total = (y->dims[2 + i] - 1) * st[i] + (w->dims[2 + i] - 1) * dl[i] + 1 - x->dims[2 + i];
		pad[i] = total > 0 ? total / 2 : 0;
	}
}

/* One output item of qconv: batch nb, output channel oc of group g, at
 * the spatial position of output offset `sp`; the input beyond the
 * padded border holds x0 (tract's im2col pads with it), adding nothing. */
static uint32_t qc_item(const ITensor *x, const ITensor *w,
			       int64_t nb, int64_t oc, int64_t g, const int64_t *opos,
			       const int64_t *st, const int64_t *dl, const int64_t *pad,
			       int64_t x0, int64_t w0)
{
	size_t ns = x->rank - 2;
	int64_t cin = w->dims[1], ksz = dims_volume(w->dims + 2, ns);
	const int64_t *xi = x->data, *wi = w->data;
	int64_t xsp = dims_volume(x->dims + 2, ns);
	uint32_t acc = 0;
	for (int64_t ci = 0; ci < cin; ci++) {
		const int64_t *xc = xi + (nb * x->dims[1] + g * cin + ci) * xsp;
		const int64_t *wc = wi + (oc * cin + ci) * ksz;
		for (int64_t kk = 0; kk < ksz; kk++) {
			int64_t rem = kk, off = 0;
			bool inside = true;
			for (size_t d = ns; d-- > 0;) {
				int64_t kd = rem % w->dims[2 + d];
				rem /= w->dims[2 + d];
				int64_t pos = opos[d] * st[d] + kd * dl[d] - pad[d];
				if (pos < 0 || pos >= x->dims[2 + d])
					inside = false;
				off += pos * dims_volume(x->dims + 3 + d, ns - 1 - d);
			}
			if (inside)
				acc += (uint32_t)(uint64_t)((xc[off] - x0) * (wc[kk] - w0));
		}
	}
	return acc;
}

/* tract_core_qconv(input, filter, bias, group, dilation, stride, padding,
 * border, a0, a_scale, b0, b_scale, c0, c_scale): NCHW input with zero
 * point a0 and scale a_scale, OIHW filter with b0 and b_scale (b_scale
 * per tensor or per output channel), bias per tensor or per output
 * channel; the result has the input's datum type, zero point c0 and
 * scale c_scale. Out-of-border items count as the input's zero point
 * whatever `border` says (tract pads the quantized im2col with a0). */
bool TWIN(kern_tract_qconv_f32, kern_tract_qconv_f64)(Interp *it, const Step *s)
{
	const ITensor *x = s->in[0].t, *w = s->in[1].t;
	ITensor *y = s->out[0];
	if (!q_need_ints(it, s, x, "input") || !q_need_ints(it, s, w, "filter"))
		return false;
	QArg q[Q_N];
	for (size_t k = 0; k < Q_N; k++)
		if (!q_arg(it, s, k == Q_BIAS ? 2 : 7 + k, k, &q[k]))
			return false;
	int64_t O = w->dims[0];
	for (size_t k = 0; k < Q_N; k++) {
		bool per_oc = k == Q_BIAS || k == Q_BSCALE;
		if (q[k].n == 1 || (per_oc && (int64_t)q[k].n == O))
			continue;
		interp_fail(it, s, DIAG_E1302, per_oc ? "%s: '%s' has %zu items; tract takes one, or one per output channel (%lld)" : "%s: '%s' has %zu items; tract takes one", s->op->frag->name, q_names[k], q[k].n, (long long)O);
		return false;
	}
	size_t ns = x->rank - 2;
	int64_t st[INTERP_MAX_RANK], dl[INTERP_MAX_RANK], pad[INTERP_MAX_RANK], opos[INTERP_MAX_RANK];
	for (size_t i = 0; i < ns; i++) {
		st[i] = karg_len(s, 5) ? karg_item(s, 5, i) : 1;
		dl[i] = karg_len(s, 4) ? karg_item(s, 4, i) : 1;
	}
	qc_pad(s, x, w, y, st, dl, pad);
	int64_t group = karg_int(s, 3), G = group ? group : O, opg = O / G;
	int64_t x0 = q_int(it, &q[Q_A0], 0), w0 = q_int(it, &q[Q_B0], 0);
	int64_t c0 = q_int(it, &q[Q_C0], 0), ysp = dims_volume(y->dims + 2, ns);
	DType d = (DType)y->datum;
	size_t o = 0;
	for (int64_t nb = 0; nb < y->dims[0]; nb++)
		for (int64_t oc = 0; oc < O; oc++) {
			float scale = q_scale(it, q, 0, oc, 0);
			uint32_t bias = (uint32_t)(uint64_t)q_int(it, &q[Q_BIAS], oc);
			for (int64_t sp = 0; sp < ysp; sp++, o++) {
				for (size_t i = ns, rem = (size_t)sp; i-- > 0;) {
					opos[i] = (int64_t)rem % y->dims[2 + i];
					rem /= (size_t)y->dims[2 + i];
				}
				uint32_t acc = qc_item(x, w, nb, oc, oc / opg, opos, st, dl, pad, x0, w0);
				q_store(y, o, q_requant(acc + bias, scale, c0, d));
			}
		}
	return true;
}
