/*
 * k_tract_math.c - kernels of tract's operations: element-wise math, einsum, resize, signal processing and recurrent helpers (k_tract_math.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 *
 * This file: the unit element-wise operations (round_even, erf,
 * hard_swish, is_nan, is_inf, pow_const), the bitwise ones (bitnot,
 * bitand, bitor, bitxor, xor, tract_shl, tract_shr), einsum and the legacy
 * matmul, and the recurrent cells (gru_epilogue, lstm_epilogue, gru_seq).
 * Resize, grid_sample, fft, stft and lrn are in k_tract_signal.c.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------ */

/* Fails (E1302) unless tensor t holds reals: tract runs the operation on
 * floating-point tensors only. */
static bool need_reals(Interp *it, const Step *s, const ITensor *t,
			      const char *what)
{
	if (t->dtype == TY_SCALAR)
		return true;
	interp_fail(it, s, DIAG_E1302, "%s: '%s' holds %s; tract runs this operation on floating-point tensors only", s->op->frag->name, what, t->dtype == TY_INTEGER ? "integers" : "logicals");
	return false;
}

/* A numeric attribute (integer or real) as a real. */
static inline double attr_real(const Value *v)
{
	return v->kind == VAL_INT ? (double)v->u.i : v->kind == VAL_BOOL ? (double)v->u.b : v->u.s;
}

static inline real sigmoid(real x)
{
	return R(1.0) / (R(1.0) + R(exp)(-x));
}

/* ---- unit element-wise operations on reals ----------------------------------------------- */

/* tract_core_round_even: round half to even (tract's round_ties_to_even),
 * whatever the floating-point rounding mode. */
static inline real round_even(real x)
{
	real f = R(floor)(x), d = x - f;
	real r = d > R(0.5) ? f + R(1.0) : d < R(0.5) ? f
	       : R(fmod)(f, R(2.0)) == R(0.0) ? f : f + R(1.0);
	return r == R(0.0) ? R(copysign)(R(0.0), x) : r; /* -0.5 gives -0 */
}

/* tract_core_erf: tract's approximation (linalg's erf kernel, Abramowitz
 * and Stegun 7.1.28: 1 - 1/(1 + a1 x + ... + a6 x^6)^16 on |x|, the sign
 * restored), absolute error below 3e-7. */
static inline real erf_tract(real x)
{
	real a = R(fabs)(x);
	real y = R(0.0000430638) * a;
	y = (R(0.0002765672) + y) * a;
	y = (R(0.0001520143) + y) * a;
	y = (R(0.0092705272) + y) * a;
	y = (R(0.0422820123) + y) * a;
	y = (R(0.0705230784) + y) * a;
	real p = y + R(1.0);
	p = p * p;
	p = p * p;
	p = p * p;
	p = p * p;
	return R(copysign)(R(1.0) - R(1.0) / p, x);
}

bool TWIN(kern_tract_round_even_f32, kern_tract_round_even_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "x"))
		return false;
	const real *x = in->data;
	real *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++)
		y[i] = round_even(x[i]);
	return true;
}

bool TWIN(kern_tract_erf_f32, kern_tract_erf_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "x"))
		return false;
	const real *x = in->data;
	real *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++)
		y[i] = erf_tract(x[i]);
	return true;
}

/* tract_core_hard_swish: x * max(0, min(1, x / 6 + 1/2)). */
bool TWIN(kern_tract_hard_swish_f32, kern_tract_hard_swish_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "x"))
		return false;
	const real *x = in->data;
	real *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++) {
		real g = R(1.0) / R(6.0) * x[i] + R(0.5);
		g = g < R(1.0) ? g : R(1.0);
		y[i] = x[i] * (g > R(0.0) ? g : R(0.0));
	}
	return true;
}

/* tract_core_pow_const: x ^ exponent, the exponent an f32 constant as
 * tract holds it. */
bool TWIN(kern_tract_pow_const_f32, kern_tract_pow_const_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "input"))
		return false;
	real e = (real)(float)attr_real(karg(s, 1));
	const real *x = in->data;
	real *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++)
		y[i] = R(pow)(x[i], e);
	return true;
}

/* tract_core_is_nan, tract_onnx_is_nan: true where x is NaN. */
bool TWIN(kern_tract_is_nan_f32, kern_tract_is_nan_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "x"))
		return false;
	const real *x = in->data;
	uint8_t *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++)
		y[i] = x[i] != x[i];
	return true;
}

/* tract_core_is_inf, tract_onnx_isinf(input, detect_positive,
 * detect_negative): (dp and x = +inf) or (dn and x = -inf). */
bool TWIN(kern_tract_is_inf_f32, kern_tract_is_inf_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (!need_reals(it, s, in, "input"))
		return false;
	bool dp = karg_bool(s, 1), dn = karg_bool(s, 2);
	const real *x = in->data;
	uint8_t *y = s->out[0]->data;
	for (size_t i = 0; i < in->count; i++)
		y[i] = (dp && x[i] == (real)INFINITY) || (dn && x[i] == -(real)INFINITY);
	return true;
}

/* ---- bitwise operations (integers and logicals) ------------------------------------------- */

#if INTERP_REAL == 32

/* Item i of an integer or logical tensor as an int64. */
static inline int64_t int_item(const ITensor *t, int64_t i)
{
	return t->dtype == TY_LOGICAL ? (int64_t)((const uint8_t *)t->data)[i]
				      : ((const int64_t *)t->data)[i];
}

/* Fails (E1302) when t holds reals (or, with `logicals` false, logicals):
 * tract's bitwise operations run on integers and booleans. */
static bool need_bits(Interp *it, const Step *s, const ITensor *t, bool logicals)
{
	if (t->dtype == TY_INTEGER || (logicals && t->dtype == TY_LOGICAL))
		return true;
	interp_fail(it, s, DIAG_E1302, "%s: an operand holds %s; tract runs this operation on integers%s only", s->op->frag->name, t->dtype == TY_SCALAR ? "reals" : "logicals", logicals ? " and booleans" : "");
	return false;
}

/* tract_core_bitnot: bitwise not on integers (the executor wraps narrow
 * types), logical not on booleans. */
bool kern_tract_bitnot(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	if (!need_bits(it, s, in, true))
		return false;
	for (size_t i = 0; i < out->count; i++) {
		int64_t v = int_item(in, (int64_t)i);
		if (out->dtype == TY_LOGICAL)
			((uint8_t *)out->data)[i] = v == 0;
		else
			((int64_t *)out->data)[i] = ~v;
	}
	return true;
}

/* The shift amount tract applies: Rust's shift of a `bits`-wide integer
 * in a release build keeps the low bits of the amount (b mod bits). */
static inline unsigned shift_amount(int64_t b, unsigned bits)
{
	return (unsigned)((uint64_t)b & (bits - 1));
}

/* One item of a binary bitwise operation op on a and b; `bits` and
 * `is_unsigned` describe the operating type (for the shifts). */
static int64_t bit_op(ShapeOp op, int64_t a, int64_t b, unsigned bits,
		      bool is_unsigned)
{
	if (op == SHAPE_OP_TRACT_CORE_BITAND)
		return a & b;
	if (op == SHAPE_OP_TRACT_CORE_BITOR)
		return a | b;
	if (op == SHAPE_OP_TRACT_SHL)
		return (int64_t)((uint64_t)a << shift_amount(b, bits));
	if (op == SHAPE_OP_TRACT_SHR) {
		unsigned n = shift_amount(b, bits);
		if (is_unsigned) {
			uint64_t u = (uint64_t)a;
			if (bits < 64)
				u &= ((uint64_t)1 << bits) - 1;
			return (int64_t)(u >> n);
		}
		return a < 0 ? ~(~a >> n) : a >> n;
	}
	return a ^ b; /* bitxor, xor */
}

/* tract_core_bitand, tract_core_bitor, tract_core_bitxor (integers and
 * booleans), tract_core_xor (booleans), tract_shl and tract_shr
 * (integers: the amount taken modulo the width of the operating type,
 * right shifts arithmetic for signed types and logical for unsigned ones).
 * Ranks equalized by trailing unit axes, then broadcast (notes B.7). */
bool kern_tract_bitwise(Interp *it, const Step *s)
{
	ShapeOp op = s->op->prim;
	bool shift = op == SHAPE_OP_TRACT_SHL || op == SHAPE_OP_TRACT_SHR;
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	ITensor *out = s->out[0];
	if (!need_bits(it, s, ops[0], !shift) || !need_bits(it, s, ops[1], !shift))
		return false;
	DType dt = (DType)s->op->results[0]->u.t->datum;
	unsigned bits = dtype_is_integer(dt) && dtype_bits(dt) ? dtype_bits(dt) : 64;
	bool is_unsigned = dt != DT_NONE && dtype_class(dt) == DTC_UNSIGNED;
	Bcast bc;
	interp_bcast_init(&bc, out, ops, 2);
	size_t o = 0;
	for (int64_t r = 0; r < bc.rows; r++, interp_bcast_next(&bc))
		for (int64_t i = 0; i < bc.inner; i++, o++) {
			int64_t a = int_item(ops[0], bc.off[0] + i * bc.st[0]);
			int64_t b = int_item(ops[1], bc.off[1] + i * bc.st[1]);
			int64_t v = bit_op(op, a, b, bits, is_unsigned);
			if (out->dtype == TY_LOGICAL)
				((uint8_t *)out->data)[o] = v != 0;
			else
				((int64_t *)out->data)[o] = v;
		}
	return true;
}

#endif

/* ---- einsum, matmul ------------------------------------------------------------------------ */

/* An einsum: its operands, each axis labelled by a letter (a byte below
 * 128); axes of one letter are one index (repeated in an operand: its
 * diagonal); letters of the output are kept, the others summed over. */
typedef struct EsPlan {
	size_t nin;
	const ITensor *const *in;
	const unsigned char *lab;  /* nin rows of INTERP_MAX_RANK labels */
	const unsigned char *olab; /* the output's labels, one per axis */
} EsPlan;

enum { ES_LETTERS = 128 };

/* Steps the multi-index idx[0..n) over ext (the last fastest), keeping
 * off[i] = sum_j idx[j] * st[j * nin + i] for the nin operands. */
static void es_step(int64_t *idx, const int64_t *ext, size_t n,
			   const int64_t *st, size_t nin, int64_t *off)
{
	for (size_t j = n; j-- > 0;) {
		for (size_t i = 0; i < nin; i++)
			off[i] += st[j * nin + i];
		if (++idx[j] < ext[j])
			return;
		for (size_t i = 0; i < nin; i++)
			off[i] -= st[j * nin + i] * ext[j];
		idx[j] = 0;
	}
}

/* What the operands say of each letter: its extent (the first other than
 * 1, as tract's output shape takes it), its stride in each operand (the
 * sum over the axes it labels; 0 along an axis of extent 1, which
 * broadcasts) and which operands hold it (bit i, bit 30 for all the
 * operands from the 31st; bit 31: the output). */
typedef struct EsLetters {
	int64_t ext[ES_LETTERS];
	uint32_t where[ES_LETTERS];
	int64_t *st; /* ES_LETTERS rows of nin strides */
	size_t nc;   /* the letters summed over, in code order */
	unsigned char cl[ES_LETTERS];
} EsLetters;

static void es_letters(const EsPlan *p, const ITensor *out, EsLetters *l)
{
	memset(l->where, 0, sizeof(l->where));
	memset(l->st, 0, ES_LETTERS * p->nin * sizeof(int64_t));
	for (int c = 0; c < ES_LETTERS; c++)
		l->ext[c] = 1;
	for (size_t i = 0; i < p->nin; i++) {
		const ITensor *t = p->in[i];
		int64_t st[INTERP_MAX_RANK];
		dims_strides(t->dims, t->rank, st);
		for (size_t k = 0; k < t->rank; k++) {
			unsigned c = p->lab[i * INTERP_MAX_RANK + k];
			if (t->dims[k] != 1 && l->ext[c] == 1)
				l->ext[c] = t->dims[k];
			if (t->dims[k] != 1)
				l->st[c * p->nin + i] += st[k];
			l->where[c] |= 1u << (i < 30 ? i : 30);
		}
	}
	for (size_t k = 0; k < out->rank; k++)
		l->where[p->olab[k]] |= 1u << 31;
	l->nc = 0;
	for (int c = 0; c < ES_LETTERS; c++)
		if (l->where[c] && !(l->where[c] >> 31))
			l->cl[l->nc++] = (unsigned char)c;
}

/* The extents and strides of the walk of the generic loop: the output's
 * letters in its order, then the summed ones. */
static void es_walk(const EsPlan *p, const ITensor *out,
			   const EsLetters *l, int64_t *ext, int64_t *st)
{
	size_t n = 0, nin = p->nin;
	for (size_t k = 0; k < out->rank + l->nc; k++, n++) {
		unsigned c = k < out->rank ? p->olab[k] : l->cl[k - out->rank];
		ext[n] = l->ext[c];
		memcpy(st + n * nin, l->st + c * nin, nin * sizeof(int64_t));
	}
}

/* The generic einsum on reals: each output item the sum, over the summed
 * letters, of the product of the operands' items (tract's reference
 * evaluation). off holds 2 * nin offsets. */
static void es_loop_real(const EsPlan *p, const real *const *x,
				ITensor *out, const int64_t *ext,
				const int64_t *st, size_t nc, int64_t *off)
{
	size_t nin = p->nin, no = out->rank;
	int64_t io[INTERP_MAX_RANK] = { 0 }, ic[ES_LETTERS];
	int64_t *coff = off + nin;
	int64_t csize = dims_volume(ext + no, nc);
	real *y = out->data;
	memset(off, 0, nin * sizeof(int64_t));
	for (size_t o = 0; o < out->count; o++) {
		real acc = R(0.0);
		memset(ic, 0, sizeof(ic));
		memcpy(coff, off, nin * sizeof(int64_t));
		for (int64_t c = 0; c < csize; c++) {
			real prod = R(1.0);
			for (size_t i = 0; i < nin; i++)
				prod *= x[i][coff[i]];
			acc += prod;
			es_step(ic, ext + no, nc, st + no * nin, nin, coff);
		}
		y[o] = acc;
		es_step(io, ext, no, st, nin, off);
	}
}

/* The same on integers (an integer accumulator): wrapping arithmetic, as
 * tract's i32 sums wrap (the executor wraps the result to its width). */
static void es_loop_int(const EsPlan *p, const int64_t *const *x,
			       ITensor *out, const int64_t *ext,
			       const int64_t *st, size_t nc, int64_t *off)
{
	size_t nin = p->nin, no = out->rank;
	int64_t io[INTERP_MAX_RANK] = { 0 }, ic[ES_LETTERS];
	int64_t *coff = off + nin;
	int64_t csize = dims_volume(ext + no, nc);
	int64_t *y = out->data;
	memset(off, 0, nin * sizeof(int64_t));
	for (size_t o = 0; o < out->count; o++) {
		uint64_t acc = 0;
		memset(ic, 0, sizeof(ic));
		memcpy(coff, off, nin * sizeof(int64_t));
		for (int64_t c = 0; c < csize; c++) {
			uint64_t prod = 1;
			for (size_t i = 0; i < nin; i++)
				prod *= (uint64_t)x[i][coff[i]];
			acc += prod;
			es_step(ic, ext + no, nc, st + no * nin, nin, coff);
		}
		y[o] = (int64_t)acc;
		es_step(io, ext, no, st, nin, off);
	}
}

/* dst (row-major over ext[0..nk)) = the sum over ext[nk..nk + nr) of
 * src's items at the strides st (one per dimension). */
static void es_pack(real *dst, const real *src, const int64_t *ext,
			   const int64_t *st, size_t nk, size_t nr)
{
	int64_t idx[ES_LETTERS] = { 0 }, ri[ES_LETTERS], off = 0;
	int64_t nkeep = dims_volume(ext, nk), nred = dims_volume(ext + nk, nr);
	for (int64_t j = 0; j < nkeep; j++) {
		real acc = R(0.0);
		int64_t roff = off;
		memset(ri, 0, sizeof(ri));
		for (int64_t r = 0; r < nred; r++) {
			acc = nr ? acc + src[roff] : src[roff];
			es_step(ri, ext + nk, nr, st + nk, 1, &roff);
		}
		dst[j] = acc;
		es_step(idx, ext, nk, st, 1, &off);
	}
}

/* Appends to ext/st (at *n) the letters of class `want` (bits of
 * l->where: A = 1, B = 2, output = 1 << 31), in the order of `order`
 * (len letters); returns the product of their extents. */
static int64_t es_class(const EsLetters *l, const unsigned char *order,
			       size_t len, uint32_t want, size_t operand,
			       int64_t *ext, int64_t *st, size_t *n)
{
	int64_t v = 1;
	bool seen[ES_LETTERS] = { false };
	for (size_t k = 0; k < len; k++) {
		unsigned c = order[k];
		if (seen[c] || (l->where[c] & (3u | 1u << 31)) != want)
			continue;
		seen[c] = true;
		ext[*n] = l->ext[c];
		st[*n] = l->st[c * 2 + operand];
		(*n)++;
		v *= l->ext[c];
	}
	return v;
}

/* Letter classes of a two-operand einsum (bits of EsLetters.where). */
#define ES_A 1u
#define ES_B 2u
#define ES_O (1u << 31)

/* Two operands on reals, through GEMM: A packed as [batch, m, k] and B as
 * [batch, k, n] (letters held by one operand only and summed over are
 * summed while packing), one product per batch item, the result scattered
 * to the output's order. */
static bool es_gemm(Interp *it, const Step *s, const EsPlan *p,
			   const real *const *x, const EsLetters *l, ITensor *out)
{
	int64_t ea[ES_LETTERS], sa[ES_LETTERS], eb[ES_LETTERS], sb[ES_LETTERS];
	size_t na = 0, nb = 0, ra = p->in[0]->rank, rb = p->in[1]->rank;
	const unsigned char *la = p->lab, *lb = p->lab + INTERP_MAX_RANK;
	int64_t scratch_e[ES_LETTERS], scratch_s[ES_LETTERS];
	int64_t Bt = es_class(l, p->olab, out->rank, ES_A | ES_B | ES_O, 0, ea, sa, &na);
	es_class(l, p->olab, out->rank, ES_A | ES_B | ES_O, 1, eb, sb, &nb);
	int64_t M = es_class(l, p->olab, out->rank, ES_A | ES_O, 0, ea, sa, &na);
	int64_t K = es_class(l, la, ra, ES_A | ES_B, 0, ea, sa, &na);
	es_class(l, la, ra, ES_A | ES_B, 1, eb, sb, &nb);
	int64_t N = es_class(l, p->olab, out->rank, ES_B | ES_O, 1, eb, sb, &nb);
	size_t ka = na, kb = nb;
	es_class(l, la, ra, ES_A, 0, ea, sa, &na);
	es_class(l, lb, rb, ES_B, 1, eb, sb, &nb);
	real *y = out->data;
	if (K == 0) {
		for (size_t i = 0; i < out->count; i++)
			y[i] = R(0.0);
		return true;
	}
	/* is the output [batch, m, n] already (letters of extent 1 aside)? */
	int rank_of[ES_LETTERS], last = 0;
	bool direct = true;
	for (size_t k = 0; k < out->rank; k++) {
		uint32_t w = l->where[p->olab[k]];
		int cls = w == (ES_A | ES_B | ES_O) ? 0 : w == (ES_A | ES_O) ? 1 : w == (ES_B | ES_O) ? 2 : -1;
		rank_of[p->olab[k]] = cls;
		if (cls >= 0 && cls < last)
			direct = false;
		if (cls > last)
			last = cls;
	}
	real *pa = interp_scratch(it, s, (size_t)(Bt * M * K), sizeof(real));
	real *pb = pa ? interp_scratch(it, s, (size_t)(Bt * K * N), sizeof(real)) : NULL;
	real *c = direct ? y : pb ? interp_scratch(it, s, (size_t)(Bt * M * N), sizeof(real)) : NULL;
	if (!c) {
		interp_release(it, pa);
		interp_release(it, pb);
		return false;
	}
	es_pack(pa, x[0], ea, sa, ka, na - ka);
	es_pack(pb, x[1], eb, sb, kb, nb - kb);
	for (int64_t b = 0; b < Bt; b++)
		GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, R(1.0),
		     pa + b * M * K, (int)K, pb + b * K * N, (int)N, R(0.0), c + b * M * N, (int)N);
	if (!direct) {
		/* strides in c of the output's letters: [batch, m, n] row-major */
		int64_t cst[ES_LETTERS] = { 0 }, acc = 1;
		for (int cls = 2; cls >= 0; cls--)
			for (size_t k = out->rank; k-- > 0;)
				if (rank_of[p->olab[k]] == cls) {
					cst[p->olab[k]] = acc;
					acc *= l->ext[p->olab[k]];
				}
		for (size_t k = 0; k < out->rank; k++) {
			scratch_e[k] = out->dims[k];
			scratch_s[k] = rank_of[p->olab[k]] >= 0 ? cst[p->olab[k]] : 0;
		}
		int64_t idx[INTERP_MAX_RANK] = { 0 }, off = 0;
		for (size_t o = 0; o < out->count; o++) {
			y[o] = c[off];
			es_step(idx, scratch_e, out->rank, scratch_s, 1, &off);
		}
		interp_release(it, c);
	}
	interp_release(it, pa);
	interp_release(it, pb);
	return true;
}

/* Item i of t as a real (integers and logicals converted). */
static inline real real_item(const ITensor *t, size_t i)
{
	return t->dtype == TY_SCALAR ? ((const real *)t->data)[i]
	     : t->dtype == TY_INTEGER ? (real)((const int64_t *)t->data)[i]
				      : (real)((const uint8_t *)t->data)[i];
}

/* Item i of t as an integer (reals as Rust's `as` converts them). */
static inline int64_t item_as_int(const ITensor *t, size_t i)
{
	return t->dtype == TY_INTEGER ? ((const int64_t *)t->data)[i]
	     : t->dtype == TY_LOGICAL ? (int64_t)((const uint8_t *)t->data)[i]
				      : dtype_real_to_int((double)((const real *)t->data)[i]);
}

/* Runs plan p into out: the operands converted to the accumulator's type
 * (out's: reals, or integers for an integer accumulator), then GEMM for
 * two operands on reals, the generic loop otherwise. */
static bool es_run(Interp *it, const Step *s, const EsPlan *p, ITensor *out)
{
	size_t nin = p->nin, nw = out->rank + ES_LETTERS;
	if (out->dtype == TY_LOGICAL) {
		interp_fail(it, s, DIAG_E1302, "%s: tract does not sum booleans (the accumulator type is bool)", s->op->frag->name);
		return false;
	}
	if (out->count == 0)
		return true;
	/* one block: the letters' strides, the walk's extents and strides,
	 * 2 * nin offsets, nin pointers to the converted operands */
	size_t words = ES_LETTERS * nin + nw + nw * nin + 2 * nin + nin;
	int64_t *w = interp_scratch(it, s, words, sizeof(int64_t));
	if (!w)
		return false;
	EsLetters l;
	l.st = w;
	int64_t *ext = w + ES_LETTERS * nin, *st = ext + nw, *off = st + nw * nin;
	void **x = (void **)(off + 2 * nin);
	es_letters(p, out, &l);
	bool ok = true, reals = out->dtype == TY_SCALAR;
	for (size_t i = 0; i < nin; i++) {
		const ITensor *t = p->in[i];
		x[i] = NULL;
		if (t->dtype == (reals ? TY_SCALAR : TY_INTEGER)) {
			x[i] = t->data;
			continue;
		}
		x[i] = interp_scratch(it, s, t->count, reals ? sizeof(real) : sizeof(int64_t));
		if (!x[i]) {
			ok = false;
			break;
		}
		for (size_t k = 0; k < t->count; k++)
			if (reals)
				((real *)x[i])[k] = real_item(t, k);
			else
				((int64_t *)x[i])[k] = item_as_int(t, k);
	}
	if (ok && reals && nin == 2) {
		ok = es_gemm(it, s, p, (const real *const *)x, &l, out);
	} else if (ok) {
		es_walk(p, out, &l, ext, st);
		if (reals)
			es_loop_real(p, (const real *const *)x, out, ext, st, l.nc, off);
		else
			es_loop_int(p, (const int64_t *const *)x, out, ext, st, l.nc, off);
	}
	for (size_t i = 0; i < nin; i++)
		if (x[i] && x[i] != p->in[i]->data)
			interp_release(it, x[i]);
	interp_release(it, w);
	return ok;
}

/* tract's einsum expression (core/src/axes/mapping.rs), already checked
 * by the shape function: spaces ignored; one string of letters per
 * operand, separated by commas; "->" and the output's letters (commas
 * there ignored); without "->", the output holds the letters that occur
 * once in all the operands, in code order. */
static void es_parse(const Value *e, size_t nin, unsigned char *lab,
			    unsigned char *olab)
{
	size_t i = 0, k = 0, o = 0;
	bool arrow = false;
	unsigned count[ES_LETTERS] = { 0 };
	for (size_t q = 0; q < e->n; q++) {
		unsigned char ch = (unsigned char)e->u.str[q];
		if (ch == ' ' || ch >= ES_LETTERS)
			continue;
		if (ch == '-' && !arrow) {
			arrow = true;
			while (q + 1 < e->n && e->u.str[q + 1] != '>')
				q++;
			q++;
		} else if (ch == ',') {
			if (!arrow && i + 1 < nin) {
				i++;
				k = 0;
			}
		} else if (arrow) {
			if (o < INTERP_MAX_RANK)
				olab[o++] = ch;
		} else if (k < INTERP_MAX_RANK) {
			lab[i * INTERP_MAX_RANK + k++] = ch;
			count[ch]++;
		}
	}
	if (!arrow)
		for (unsigned c = 0; c < ES_LETTERS; c++)
			if (count[c] == 1 && o < INTERP_MAX_RANK)
				olab[o++] = (unsigned char)c;
}

/* tract_core_einsum(inputs, expr, acc, output): the sum over the letters
 * absent from the output of the product of the operands, accumulated in
 * acc (the result's datum type: reals, or integers for an integer acc); a
 * letter of extent 1 in one operand broadcasts, also when it is summed. */
bool TWIN(kern_tract_einsum_f32, kern_tract_einsum_f64)(Interp *it, const Step *s)
{
	size_t nin = s->in[0].n;
	unsigned char *lab = interp_scratch(it, s, (nin ? nin : 1) * INTERP_MAX_RANK, 1);
	if (!lab)
		return false;
	unsigned char olab[INTERP_MAX_RANK];
	memset(lab, 0, (nin ? nin : 1) * INTERP_MAX_RANK);
	memset(olab, 0, sizeof(olab));
	es_parse(karg(s, 1), nin, lab, olab);
	EsPlan p = { nin, (const ITensor *const *)s->in[0].items, lab, olab };
	bool ok = es_run(it, s, &p, s->out[0]);
	interp_release(it, lab);
	return ok;
}

/* tract_core_matmul(A, B, axes): axes = [a_m, a_k, b_k, b_n, c_m, c_n];
 * the other axes of A, B and the result are batch axes matched in order,
 * broadcast when of extent 1; the result has A's datum type. (tract loads
 * it as an einsum of the same meaning.) */
bool TWIN(kern_tract_matmul_f32, kern_tract_matmul_f64)(Interp *it, const Step *s)
{
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	ITensor *out = s->out[0];
	unsigned char lab[2 * INTERP_MAX_RANK], olab[INTERP_MAX_RANK];
	int64_t ax[6];
	for (size_t i = 0; i < 6; i++)
		ax[i] = karg_item(s, 2, i);
	static const unsigned char name[6] = { 'M', 'K', 'K', 'N', 'M', 'N' };
	for (size_t t = 0; t < 3; t++) {
		unsigned char *row = t < 2 ? lab + t * INTERP_MAX_RANK : olab;
		unsigned char batch = 'a';
		for (int64_t k = 0; k < (int64_t)out->rank; k++)
			row[k] = k == ax[2 * t] ? name[2 * t] : k == ax[2 * t + 1] ? name[2 * t + 1] : batch++;
	}
	EsPlan p = { 2, ops, lab, olab };
	return es_run(it, s, &p, out);
}

/* ---- recurrent cells ------------------------------------------------------------------------ */

/* One GRU cell (ONNX gate order z, r, n; linear_before_reset): per row of
 * h items, from xh and rh rows of 3h, and the previous state hp. tract
 * uses its rational sigmoid and tanh; these are the exact functions. */
static void gru_rows(int64_t h, size_t rows, const real *xh, const real *rh,
			    const real *hp, real *y)
{
	for (size_t r = 0; r < rows; r++, xh += 3 * h, rh += 3 * h, hp += h, y += h)
		for (int64_t j = 0; j < h; j++) {
			real z = sigmoid(xh[j] + rh[j]);
			real g = sigmoid(xh[h + j] + rh[h + j]);
			real n = R(tanh)(xh[2 * h + j] + g * rh[2 * h + j]);
			y[j] = n + z * (hp[j] - n);
		}
}

/* tract_core_gru_epilogue(xh, rh, h_prev, hidden): rows = |h_prev| /
 * hidden (the shapes checked that xh and rh hold 3 * hidden per row). */
bool TWIN(kern_tract_gru_epilogue_f32, kern_tract_gru_epilogue_f64)(Interp *it, const Step *s)
{
	const ITensor *xh = s->in[0].t, *rh = s->in[1].t, *hp = s->in[2].t;
	if (!need_reals(it, s, xh, "xh") || !need_reals(it, s, rh, "rh") ||
	    !need_reals(it, s, hp, "h_prev"))
		return false;
	int64_t h = karg_int(s, 3);
	gru_rows(h, hp->count / (size_t)h, xh->data, rh->data, hp->data, s->out[0]->data);
	return true;
}

/* tract_core_lstm_epilogue(preact, c_prev, hidden): per row, gates i, o,
 * f, c on the 4h axis: C = sigma(f) c_prev + sigma(i) tanh(c);
 * H = sigma(o) tanh(C). Results (ht, ct). */
bool TWIN(kern_tract_lstm_epilogue_f32, kern_tract_lstm_epilogue_f64)(Interp *it, const Step *s)
{
	const ITensor *pre = s->in[0].t, *cp = s->in[1].t;
	if (!need_reals(it, s, pre, "preact") || !need_reals(it, s, cp, "c_prev"))
		return false;
	int64_t h = karg_int(s, 2);
	size_t rows = cp->count / (size_t)h;
	const real *p = pre->data, *c = cp->data;
	real *ht = s->out[0]->data, *ct = s->out[1]->data;
	for (size_t r = 0; r < rows; r++, p += 4 * h, c += h, ht += h, ct += h)
		for (int64_t j = 0; j < h; j++) {
			real ig = sigmoid(p[j]), og = sigmoid(p[h + j]);
			real fg = sigmoid(p[2 * h + j]), cg = R(tanh)(p[3 * h + j]);
			ct[j] = fg * c[j] + ig * cg;
			ht[j] = R(tanh)(ct[j]) * og;
		}
	return true;
}

/* tract_core_gru_seq(x, w, r, b, initial_h, hidden, chunk, has_bias,
 * reset_every_turn): the GRU of gru_epilogue over x [batch, T, in], w
 * [3h, in], r [3h, h], b (when has_bias: Wb then Rb, 6h items); each step
 * xh = x_t w' + Wb, rh = h r' + Rb; backwards when chunk < 0. Results y
 * [batch, T, h] and y_h [batch, 1, h]. The state starts from initial_h;
 * as in a session of tract, the next run starts where this one ended,
 * unless reset_every_turn (interp/state.c keeps it). */
bool TWIN(kern_tract_gru_seq_f32, kern_tract_gru_seq_f64)(Interp *it, const Step *s)
{
	const ITensor *x = s->in[0].t, *w = s->in[1].t, *r = s->in[2].t, *b = s->in[3].t;
	const ITensor *h0 = s->in[4].t;
	if (!need_reals(it, s, x, "x") || !need_reals(it, s, w, "w") ||
	    !need_reals(it, s, r, "r") || !need_reals(it, s, h0, "initial_h"))
		return false;
	int64_t h = karg_int(s, 5), chunk = karg_int(s, 6);
	bool bias = karg(s, 7)->kind == VAL_BOOL ? karg_bool(s, 7) : karg_int(s, 7) != 0;
	int64_t batch = x->dims[0], T = x->dims[1], in = x->dims[2];
	size_t n = (size_t)(batch * 3 * h);
	real *xh = interp_scratch(it, s, 2 * n + 2 * (size_t)(batch * h), sizeof(real));
	if (!xh)
		return false;
	real *rh = xh + n, *hc = rh + n, *hn = hc + batch * h;
	real *y = s->out[0]->data, *yh = s->out[1]->data;
	/* the state: initial_h, or unless it resets every turn, where the
	 * last run left it (tract keeps it in the session) */
	bool first, reset = karg(s, 8)->kind == VAL_BOOL ? karg_bool(s, 8) : karg_int(s, 8) != 0;
	real *kept = interp_step_memory(it, s, (size_t)(batch * h) * sizeof(real), &first);
	if (!kept) {
		interp_release(it, xh);
		return false;
	}
	for (int64_t i = 0; i < batch * h; i++)
		hc[i] = first || reset ? real_item(h0, (size_t)i) : kept[i];
	for (int64_t step = 0; batch > 0 && step < T; step++) {
		int64_t t = chunk < 0 ? T - 1 - step : step;
		const real *xt = (const real *)x->data + t * in;
		if (in == 0)
			memset(xh, 0, n * sizeof(real));
		else
			GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)batch, (int)(3 * h), (int)in, R(1.0),
			     xt, (int)(T * in), w->data, (int)in, R(0.0), xh, (int)(3 * h));
		GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)batch, (int)(3 * h), (int)h, R(1.0),
		     hc, (int)h, r->data, (int)h, R(0.0), rh, (int)(3 * h));
		for (int64_t i = 0; bias && i < batch; i++)
			for (int64_t j = 0; j < 3 * h; j++) {
				xh[i * 3 * h + j] += real_item(b, (size_t)j);
				rh[i * 3 * h + j] += real_item(b, (size_t)(3 * h + j));
			}
		gru_rows(h, (size_t)batch, xh, rh, hc, hn);
		for (int64_t i = 0; i < batch; i++)
			memcpy(y + (i * T + t) * h, hn + i * h, (size_t)h * sizeof(real));
		real *tmp = hc;
		hc = hn;
		hn = tmp;
	}
	memcpy(yh, hc, (size_t)(batch * h) * sizeof(real));
	memcpy(kept, hc, (size_t)(batch * h) * sizeof(real));
	interp_release(it, xh);
	return true;
}
