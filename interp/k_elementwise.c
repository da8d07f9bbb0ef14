/*
 * k_elementwise.c - element-wise kernels on reals (compiled for float and
 * double, interp/real.h): the unary (spec 4.2.1) and binary (4.2.2)
 * operations with broadcasting, comparisons, cast (1.0.5 4.5.8) and pad
 * (4.5.5).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* What each element-wise operation computes, one enum per family: the
 * kernel table (kernels.def) sends only the operations of a family to its
 * kernel, which switches over the family's enum, so the compiler checks
 * that every function is computed and nothing falls to a default. */
typedef enum UnaryFn {
	UN_NONE, UN_NEG, UN_RCP, UN_EXP, UN_LOG, UN_SIN, UN_COS, UN_TAN,
	UN_SINH, UN_COSH, UN_TANH, UN_ASIN, UN_ACOS, UN_ATAN, UN_ASINH,
	UN_ACOSH, UN_ATANH, UN_ABS, UN_SIGN, UN_FLOOR, UN_CEIL, UN_ROUND,
} UnaryFn;
typedef enum ArithFn { AR_NONE, AR_ADD, AR_SUB, AR_MUL, AR_DIV, AR_POW } ArithFn;
typedef enum CompareFn { CMP_NONE, CMP_LT, CMP_GT, CMP_LE, CMP_GE, CMP_EQ, CMP_NE } CompareFn;

static const uint8_t unary_fn[SHAPE_OP_COUNT] = {
	[SHAPE_OP_NEG] = UN_NEG, [SHAPE_OP_RCP] = UN_RCP, [SHAPE_OP_EXP] = UN_EXP,
	[SHAPE_OP_LOG] = UN_LOG, [SHAPE_OP_SIN] = UN_SIN, [SHAPE_OP_COS] = UN_COS,
	[SHAPE_OP_TAN] = UN_TAN, [SHAPE_OP_SINH] = UN_SINH, [SHAPE_OP_COSH] = UN_COSH,
	[SHAPE_OP_TANH] = UN_TANH, [SHAPE_OP_ASIN] = UN_ASIN, [SHAPE_OP_ACOS] = UN_ACOS,
	[SHAPE_OP_ATAN] = UN_ATAN, [SHAPE_OP_ASINH] = UN_ASINH, [SHAPE_OP_ACOSH] = UN_ACOSH,
	[SHAPE_OP_ATANH] = UN_ATANH, [SHAPE_OP_ABS] = UN_ABS, [SHAPE_OP_SIGN] = UN_SIGN,
	[SHAPE_OP_FLOOR] = UN_FLOOR, [SHAPE_OP_CEIL] = UN_CEIL, [SHAPE_OP_ROUND] = UN_ROUND,
};
static const uint8_t arith_fn[SHAPE_OP_COUNT] = {
	[SHAPE_OP_ADD] = AR_ADD, [SHAPE_OP_SUB] = AR_SUB, [SHAPE_OP_MUL] = AR_MUL,
	[SHAPE_OP_DIV] = AR_DIV, [SHAPE_OP_POW] = AR_POW,
};
static const uint8_t compare_fn[SHAPE_OP_COUNT] = {
	[SHAPE_OP_LT] = CMP_LT, [SHAPE_OP_GT] = CMP_GT, [SHAPE_OP_LE] = CMP_LE,
	[SHAPE_OP_GE] = CMP_GE, [SHAPE_OP_EQ] = CMP_EQ, [SHAPE_OP_NE] = CMP_NE,
};

static UnaryFn unary_of(const Step *s)
{
	UnaryFn f = unary_fn[s->op->prim];
	assert(f != UN_NONE);
	return f;
}

static ArithFn arith_of(const Step *s)
{
	ArithFn f = arith_fn[s->op->prim];
	assert(f != AR_NONE);
	return f;
}

static CompareFn compare_of(const Step *s)
{
	CompareFn f = compare_fn[s->op->prim];
	assert(f != CMP_NONE);
	return f;
}

#define UNARY(expr)                                   \
	for (int64_t i = 0; i < n; i++) {             \
		real v = x[i];                        \
		y[i] = (expr);                        \
	}                                             \
	break;

/* ---- the walk of an element-wise step, split among threads ---------------------- */

/* Items of a result from which an element-wise step is split among the
 * interpreter's threads (fewer cost less than waking them). */
#define EW_PARALLEL_ITEMS 32768

/* An element-wise step: its operands broadcast to its result (s->out[0]),
 * and a function computing a piece of one row of the walk: z[0..n) from
 * a and b, whose items advance by sa and sb (1, or 0 for a broadcast). */
typedef struct Ew Ew;
typedef void (*EwPiece)(const Ew *e, const real *a, const real *b,
			real *z, int64_t n, int64_t sa, int64_t sb);
struct Ew {
	Bcast bc;
	const real *x, *y;
	real *z;
	int fn;               /* the family's function */
	bool plain;           /* libm's functions (--plain) */
	EwPiece piece;
	int64_t count;
};

/* Items [lo, hi) of the result, row piece by row piece. */
static void ew_range(const Ew *e, int64_t lo, int64_t hi)
{
	Bcast bc = e->bc;
	int64_t n = bc.inner, sa = bc.st[0], sb = bc.nops > 1 ? bc.st[1] : 0;
	int64_t i0 = lo % n;
	interp_bcast_seek(&bc, lo / n);
	while (lo < hi) {
		int64_t len = n - i0 < hi - lo ? n - i0 : hi - lo;
		e->piece(e, e->x + bc.off[0] + i0 * sa,
			 bc.nops > 1 ? e->y + bc.off[1] + i0 * sb : NULL,
			 e->z + lo, len, sa, sb);
		lo += len;
		i0 = 0;
		interp_bcast_next(&bc);
	}
}

static void ew_part(void *ctx, int part, int parts)
{
	const Ew *e = ctx;
	ew_range(e, e->count * part / parts, e->count * (part + 1) / parts);
}

/* Runs the piece over the result of s from its nops (1 or 2) operands
 * s->in[first ...], on the interpreter's threads when the result is
 * large. Each item is computed alone, so the split changes nothing. */
static void ew_run(Interp *it, const Step *s, size_t first, size_t nops,
		   int fn, EwPiece piece)
{
	const ITensor *ops[2] = { s->in[first].t, nops > 1 ? s->in[first + 1].t : NULL };
	Ew e = { .x = ops[0]->data, .y = nops > 1 ? ops[1]->data : NULL,
		 .z = s->out[0]->data, .fn = fn, .plain = it->opt.plain, .piece = piece,
		 .count = (int64_t)s->out[0]->count };
	interp_bcast_init(&e.bc, s->out[0], ops, nops);
	if (e.count == 0)
		return;
	int parts = e.count >= EW_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts, ew_part, &e);
}

/* ---- integers (tract's dialect) -------------------------------------------------- */

/* tract computes integers in their own type, wrapping (Rust's wrapping
 * arithmetic in its binary kernels); the executor wraps each result to
 * its width, so 64-bit wrapping arithmetic here gives the same items.
 * Unsigned arithmetic avoids C's undefined signed overflow. */
static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* a^b by squaring, wrapping; a negative exponent gives what the
 * reciprocal truncates to (1 for 1, ±1 for -1, else 0). */
static int64_t int_pow(int64_t a, int64_t b)
{
	if (b < 0)
		return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
	int64_t r = 1;
	for (; b; b >>= 1, a = wrap_mul(a, a))
		if (b & 1)
			r = wrap_mul(r, a);
	return r;
}

static bool int_unary(const Step *s)
{
	const int64_t *x = s->in[0].t->data;
	int64_t *y = s->out[0]->data;
	size_t n = s->out[0]->count;
	UnaryFn fn = unary_of(s);
	for (size_t i = 0; i < n; i++) {
		int64_t v = x[i];
		switch (fn) {
		case UN_NEG: y[i] = wrap_sub(0, v); break;
		case UN_ABS: y[i] = v < 0 ? wrap_sub(0, v) : v; break;
		case UN_SIGN: y[i] = (v > 0) - (v < 0); break;
		case UN_FLOOR:
		case UN_CEIL:
		case UN_ROUND: y[i] = v; break;
		/* the declarations take only reals for these */
		case UN_NONE: case UN_RCP: case UN_EXP: case UN_LOG: case UN_SIN:
		case UN_COS: case UN_TAN: case UN_SINH: case UN_COSH: case UN_TANH:
		case UN_ASIN: case UN_ACOS: case UN_ATAN: case UN_ASINH:
		case UN_ACOSH: case UN_ATANH:
			return false;
		}
	}
	return true;
}

/* Integer add, sub, mul, div (truncating, as Rust divides), pow; a
 * division by zero fails at its operation. */
static bool int_binary(Interp *it, const Step *s)
{
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	Bcast bc;
	interp_bcast_init(&bc, s->out[0], ops, 2);
	const int64_t *x = ops[0]->data, *y = ops[1]->data;
	int64_t *z = s->out[0]->data;
	ArithFn fn = arith_of(s);
	for (int64_t r = 0; r < bc.rows; r++, interp_bcast_next(&bc), z += bc.inner) {
		const int64_t *a = x + bc.off[0], *b = y + bc.off[1];
		for (int64_t i = 0; i < bc.inner; i++) {
			int64_t p = a[i * bc.st[0]], q = b[i * bc.st[1]];
			switch (fn) {
			case AR_ADD: z[i] = wrap_add(p, q); break;
			case AR_SUB: z[i] = wrap_sub(p, q); break;
			case AR_MUL: z[i] = wrap_mul(p, q); break;
			case AR_DIV:
				if (q == 0) {
					interp_fail(it, s, DIAG_E1310, "div: an integer division by zero");
					return false;
				}
				z[i] = q == -1 ? wrap_sub(0, p) : p / q;
				break;
			case AR_POW: z[i] = int_pow(p, q); break;
			case AR_NONE: return false;
			}
		}
	}
	return true;
}

/* Comparisons of integers or of logicals. */
static bool int_compare(const Step *s)
{
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	bool logical = ops[0]->dtype == TY_LOGICAL;
	Bcast bc;
	interp_bcast_init(&bc, s->out[0], ops, 2);
	uint8_t *z = s->out[0]->data;
	CompareFn fn = compare_of(s);
	for (int64_t r = 0; r < bc.rows; r++, interp_bcast_next(&bc), z += bc.inner)
		for (int64_t i = 0; i < bc.inner; i++) {
			int64_t ia = bc.off[0] + i * bc.st[0], ib = bc.off[1] + i * bc.st[1];
			int64_t p = logical ? ((const uint8_t *)ops[0]->data)[ia] : ((const int64_t *)ops[0]->data)[ia];
			int64_t q = logical ? ((const uint8_t *)ops[1]->data)[ib] : ((const int64_t *)ops[1]->data)[ib];
			switch (fn) {
			case CMP_LT: z[i] = p < q; break;
			case CMP_GT: z[i] = p > q; break;
			case CMP_LE: z[i] = p <= q; break;
			case CMP_GE: z[i] = p >= q; break;
			case CMP_EQ: z[i] = p == q; break;
			case CMP_NE: z[i] = p != q; break;
			case CMP_NONE: return false;
			}
		}
	return true;
}

/* ---- reals ---------------------------------------------------------------------------- */

/* 4.2.1 (with the 1.0.4 trigonometric and hyperbolic functions). round
 * is floor(x + 0.5), as the spec defines it. Integers (tract's dialect):
 * neg, abs, sign. */
/* y[i] = fn(x[i]) for i in [0, n). */
VECTOR_CLONES static void unary_piece(UnaryFn fn, const real *x, real *y, int64_t n)
{
	switch (fn) {
	case UN_NEG: UNARY(-v)
	case UN_RCP: UNARY(R(1.0) / v)
	case UN_EXP: UNARY(R(exp)(v))
	case UN_LOG: UNARY(R(log)(v))
	case UN_SIN: UNARY(R(sin)(v))
	case UN_COS: UNARY(R(cos)(v))
	case UN_TAN: UNARY(R(tan)(v))
	case UN_SINH: UNARY(R(sinh)(v))
	case UN_COSH: UNARY(R(cosh)(v))
	case UN_TANH: UNARY(R(tanh)(v))
	case UN_ASIN: UNARY(R(asin)(v))
	case UN_ACOS: UNARY(R(acos)(v))
	case UN_ATAN: UNARY(R(atan)(v))
	case UN_ASINH: UNARY(R(asinh)(v))
	case UN_ACOSH: UNARY(R(acosh)(v))
	case UN_ATANH: UNARY(R(atanh)(v))
	case UN_ABS: UNARY(R(fabs)(v))
	case UN_SIGN: UNARY(v > 0 ? R(1.0) : v < 0 ? R(-1.0) : R(0.0))
	case UN_FLOOR: UNARY(R(floor)(v))
	case UN_CEIL: UNARY(R(ceil)(v))
	case UN_ROUND: UNARY(R(floor)(v + R(0.5)))
	case UN_NONE:
		break;
	}
}

#if INTERP_REAL == 32
/* y[i] = e^x[i] for floats, in a loop the compiler vectorizes (libm's
 * expf is a call per item): computed in double, x = k ln2 + r with |r|
 * <= ln2 / 2, e^r by its Taylor polynomial to r^11 (relative error below
 * 1e-14), scaled by 2^k through the exponent's bits; then rounded to
 * float, which gives the float nearest e^x but where e^x lies within
 * 1e-14 of halfway between two floats. Beyond the range of floats the
 * argument is clamped first: 0 below, infinity above; NaN stays NaN. */
VECTOR_CLONES static void exp_floats(const float *restrict x,
				     float *restrict y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float c = x[i] < -104.0f ? -104.0f : x[i]; /* selects of floats, */
		float d = c > 89.0f ? 89.0f : c;           /* which vectorize */
		double v = d;
		/* k = round(v / ln2), in the low bits of kd's mantissa */
		double kd = v * 0x1.71547652b82fep0 + 0x1.8p52;
		uint64_t kb;
		memcpy(&kb, &kd, sizeof(kb));
		kd -= 0x1.8p52;
		double r = (v - kd * 0x1.62e42fefa3800p-1) - kd * 0x1.ef35793c7673p-45;
		double p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 +
			   r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 +
			   r * (1.0 / 3628800 + r * (1.0 / 39916800)))))))))));
		uint64_t sb = (kb + 1023) << 52; /* 2^k: k + 1023 in the exponent */
		double scale;
		memcpy(&scale, &sb, sizeof(scale));
		y[i] = (float)(p * scale);
	}
}
#endif

static void unary_ew(const Ew *e, const real *a, const real *b, real *z,
		     int64_t n, int64_t sa, int64_t sb)
{
	(void)b;
	(void)sa;
	(void)sb;
#if INTERP_REAL == 32
	if (e->fn == UN_EXP && !e->plain) {
		exp_floats(a, z, n);
		return;
	}
#endif
	unary_piece((UnaryFn)e->fn, a, z, n);
}

bool TWIN(kern_unary_f32, kern_unary_f64)(Interp *it, const Step *s)
{
	if (s->in[0].t->dtype == TY_INTEGER)
		return int_unary(s);
	ew_run(it, s, 0, 1, unary_of(s), unary_ew);
	return true;
}

/* One row of a broadcast binary operation, the common stride patterns
 * written out so that the compiler vectorizes them. */
#define BINARY_ROW(T, F)                                                      \
	do {                                                                  \
		if (sa && sb)                                                 \
			for (int64_t i = 0; i < n; i++)                       \
				z[i] = F(a[i], b[i]);                         \
		else if (sa) {                                                \
			real bv = b[0];                                       \
			for (int64_t i = 0; i < n; i++)                       \
				z[i] = F(a[i], bv);                           \
		} else if (sb) {                                              \
			real av = a[0];                                       \
			for (int64_t i = 0; i < n; i++)                       \
				z[i] = F(av, b[i]);                           \
		} else                                                        \
			for (int64_t i = 0; i < n; i++)                       \
				z[i] = F(a[0], b[0]);                         \
	} while (0)

#define F_ADD(p, q) ((p) + (q))
#define F_SUB(p, q) ((p) - (q))
#define F_MUL(p, q) ((p) * (q))
#define F_DIV(p, q) ((p) / (q))
#define F_POW(p, q) R(pow)((p), (q))
#define F_LT(p, q) ((p) < (q))
#define F_GT(p, q) ((p) > (q))
#define F_LE(p, q) ((p) <= (q))
#define F_GE(p, q) ((p) >= (q))
#define F_EQ(p, q) ((p) == (q))
#define F_NE(p, q) ((p) != (q))
/* select(p CMP q, p, q): max and min as the standard library defines them */
#define F_SEL_LT(p, q) ((p) < (q) ? (p) : (q))
#define F_SEL_GT(p, q) ((p) > (q) ? (p) : (q))
#define F_SEL_LE(p, q) ((p) <= (q) ? (p) : (q))
#define F_SEL_GE(p, q) ((p) >= (q) ? (p) : (q))

/* pow with a single exponent that has an exact cheaper form (x^2 is x*x,
 * x^0.5 the correctly rounded square root): the batch normalization and
 * local response normalization compounds call it on whole tensors. */
static bool pow_special(const real *x, real e, real *z, size_t n)
{
	if (e == R(2.0))
		for (size_t i = 0; i < n; i++)
			z[i] = x[i] * x[i];
	else if (e == R(0.5))
		for (size_t i = 0; i < n; i++)
			z[i] = R(sqrt)(x[i]);
	else if (e == R(1.0))
		for (size_t i = 0; i < n; i++)
			z[i] = x[i];
	else
		return false;
	return true;
}

/* tract's dialect: t converted to data type k (integers and logicals to
 * reals, reals truncated to integers as Rust's `as`), in scratch. */
static bool convert(Interp *it, const Step *s, const ITensor *t, TypeKind k,
			   ITensor *out)
{
	*out = *t;
	out->dtype = k;
	out->data = interp_scratch(it, s, t->count, k == TY_SCALAR ? sizeof(real) : sizeof(int64_t));
	if (!out->data)
		return false;
	for (size_t i = 0; i < t->count; i++) {
		double v = interp_value(it, t, i);
		if (k == TY_SCALAR)
			((real *)out->data)[i] = (real)v;
		else
			((int64_t *)out->data)[i] = t->dtype == TY_INTEGER ? ((const int64_t *)t->data)[i] : dtype_real_to_int(v);
	}
	return true;
}

/* tract's dialect: the two operands of a binary operation of two data
 * types (an i64 beside an f32) are cast to its operating type k, as tract
 * casts them, then computed by `run`. */
static bool in_kind(Interp *it, const Step *s, TypeKind k,
			   bool (*run)(Interp *, const Step *))
{
	Step c = *s;
	KArg in[2] = { s->in[0], s->in[1] };
	ITensor conv[2];
	bool converted[2] = { false, false }, ok = true;
	for (int p = 0; p < 2 && ok; p++)
		if (s->in[p].t->dtype != k) {
			ok = convert(it, s, s->in[p].t, k, &conv[p]);
			converted[p] = ok;
			in[p].t = &conv[p];
		}
	c.in = in;
	ok = ok && run(it, &c);
	for (int p = 0; p < 2; p++)
		if (converted[p])
			interp_release(it, conv[p].data);
	return ok;
}

VECTOR_CLONES static void arith_ew(const Ew *e, const real *a, const real *b,
				   real *z, int64_t n, int64_t sa, int64_t sb)
{
	switch ((ArithFn)e->fn) {
	case AR_ADD: BINARY_ROW(real, F_ADD); break;
	case AR_SUB: BINARY_ROW(real, F_SUB); break;
	case AR_MUL: BINARY_ROW(real, F_MUL); break;
	case AR_DIV: BINARY_ROW(real, F_DIV); break;
	case AR_POW: BINARY_ROW(real, F_POW); break;
	case AR_NONE: break;
	}
}

/* 4.2.2: add, sub, mul, div, pow; broadcasting with trailing singleton
 * dimensions. */
bool TWIN(kern_binary_f32, kern_binary_f64)(Interp *it, const Step *s)
{
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	if (ops[0]->dtype != ops[1]->dtype || ops[0]->dtype != s->out[0]->dtype)
		return in_kind(it, s, s->out[0]->dtype, TWIN(kern_binary_f32, kern_binary_f64));
	if (ops[0]->dtype == TY_INTEGER)
		return int_binary(it, s);
	ArithFn fn = arith_of(s);
	if (fn == AR_POW && ops[1]->count == 1 &&
	    ops[0]->count == s->out[0]->count &&
	    pow_special(ops[0]->data, *(const real *)ops[1]->data,
			       s->out[0]->data, s->out[0]->count))
		return true;
	ew_run(it, s, 0, 2, fn, arith_ew);
	return true;
}

/* 4.2.2 comparisons: scalars in, logicals out. */
bool TWIN(kern_compare_f32, kern_compare_f64)(Interp *it, const Step *s)
{
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	if (ops[0]->dtype != ops[1]->dtype)
		return in_kind(it, s, ops[0]->dtype == TY_SCALAR || ops[1]->dtype == TY_SCALAR ? TY_SCALAR : TY_INTEGER, TWIN(kern_compare_f32, kern_compare_f64));
	if (ops[0]->dtype != TY_SCALAR)
		return int_compare(s);
	Bcast bc;
	interp_bcast_init(&bc, s->out[0], ops, 2);
	const real *x = ops[0]->data, *y = ops[1]->data;
	uint8_t *z = s->out[0]->data;
	CompareFn fn = compare_of(s);
	int64_t n = bc.inner, sa = bc.st[0], sb = bc.st[1];
	for (int64_t r = 0; r < bc.rows; r++, interp_bcast_next(&bc), z += n) {
		const real *a = x + bc.off[0], *b = y + bc.off[1];
		switch (fn) {
		case CMP_LT: BINARY_ROW(uint8_t, F_LT); break;
		case CMP_GT: BINARY_ROW(uint8_t, F_GT); break;
		case CMP_LE: BINARY_ROW(uint8_t, F_LE); break;
		case CMP_GE: BINARY_ROW(uint8_t, F_GE); break;
		case CMP_EQ: BINARY_ROW(uint8_t, F_EQ); break;
		case CMP_NE: BINARY_ROW(uint8_t, F_NE); break;
		case CMP_NONE: return false;
		}
	}
	return true;
}

/* A scalar as an integer: "truncated to the closest smaller integer
 * value" (spec 3.3.3, integer(x: scalar)); NaN gives 0 and values beyond
 * the 64-bit range the nearest end of it. */
static int64_t to_integer(real v)
{
	if (v != v)
		return 0;
	real f = R(floor)(v);
	if (f >= R(9223372036854775807.0))
		return INT64_MAX;
	if (f < R(-9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)f;
}

/* 1.0.5 4.5.8: each item converted as the built-in functions scalar(),
 * integer() and logical() convert (spec 3.3.3). */
bool TWIN(kern_cast_f32, kern_cast_f64)(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t n = out->count;
	const real *xr = in->data;
	const int64_t *xi = in->data;
	const uint8_t *xl = in->data;
	real *yr = out->data;
	int64_t *yi = out->data;
	uint8_t *yl = out->data;
	for (size_t i = 0; i < n; i++) {
		if (out->dtype == TY_SCALAR)
			yr[i] = in->dtype == TY_SCALAR ? xr[i]
			      : in->dtype == TY_INTEGER ? (real)xi[i] : (real)xl[i];
		else if (out->dtype == TY_INTEGER)
			yi[i] = in->dtype == TY_SCALAR ? to_integer(xr[i])
			      : in->dtype == TY_INTEGER ? xi[i] : (int64_t)xl[i];
		else
			yl[i] = in->dtype == TY_SCALAR ? xr[i] != 0
			      : in->dtype == TY_INTEGER ? xi[i] != 0 : xl[i];
	}
	return true;
}

/* ---- pad ------------------------------------------------------------------------- */

/* Items of a pad's result from which it is split among threads. */
#define PAD_PARALLEL_ITEMS 32768

/* A pad, row by row of its result's last dimension: per dimension d, the
 * input index map[d][i] that output index i reads (-1: the constant).
 * Output indices [c0, c1) of the last dimension read the input row's
 * items c0 - lo .. c1 - lo - 1, in order. */
typedef struct PadJob {
	const ITensor *in;
	ITensor *out;
	const int64_t *map[INTERP_MAX_RANK];
	int64_t st[INTERP_MAX_RANK];  /* the input's strides */
	int64_t lo, c0, c1;
	real value;
} PadJob;

/* One row of the result from its input row (NULL: outside the input). */
static void pad_row(const PadJob *j, real *y, const real *row)
{
	int64_t inner = j->out->dims[j->out->rank - 1];
	const int64_t *m = j->map[j->out->rank - 1];
	if (!row) {
		for (int64_t i = 0; i < inner; i++)
			y[i] = j->value;
		return;
	}
	for (int64_t i = 0; i < j->c0; i++)
		y[i] = m[i] < 0 ? j->value : row[m[i]];
	if (j->c1 > j->c0)
		memcpy(y + j->c0, row + (j->c0 - j->lo), (size_t)(j->c1 - j->c0) * sizeof(real));
	for (int64_t i = j->c1; i < inner; i++)
		y[i] = m[i] < 0 ? j->value : row[m[i]];
}

/* Rows [r0, r1) of the result. */
static void pad_rows(const PadJob *j, int64_t r0, int64_t r1)
{
	size_t R = j->out->rank;
	const int64_t *dims = j->out->dims;
	int64_t idx[INTERP_MAX_RANK], inner = dims[R - 1];
	for (size_t d = R - 1, r = (size_t)r0; d-- > 0;) {
		idx[d] = (int64_t)(r % (size_t)dims[d]);
		r /= (size_t)dims[d];
	}
	const real *x = j->in->data;
	real *y = (real *)j->out->data + r0 * inner;
	for (int64_t r = r0; r < r1; r++, y += inner) {
		int64_t off = 0;
		bool outside = false;
		for (size_t d = 0; d + 1 < R; d++) {
			int64_t m = j->map[d][idx[d]];
			outside |= m < 0;
			off += m * j->st[d];
		}
		pad_row(j, y, outside ? NULL : x + off);
		for (size_t d = R - 1; d-- > 0;) {
			if (++idx[d] < dims[d])
				break;
			idx[d] = 0;
		}
	}
}

static void pad_part(void *ctx, int part, int parts)
{
	const PadJob *j = ctx;
	int64_t rows = dims_volume(j->out->dims, j->out->rank - 1);
	pad_rows(j, rows * part / parts, rows * (part + 1) / parts);
}

/* The items pad adds before dimension d (negative: cuts). */
static int64_t pad_before(const Step *s, size_t d)
{
	return karg(s, 1)->u.items[d]->u.items[0]->u.i;
}

/* Fills j's maps (in scratch memory, which it returns: NULL after
 * reporting), strides and the bounds of the last dimension's copy. */
static int64_t *pad_plan(Interp *it, const Step *s, PadJob *j)
{
	const ITensor *in = j->in, *out = j->out;
	size_t R = out->rank, total = 0;
	for (size_t d = 0; d < R; d++)
		total += (size_t)out->dims[d];
	int64_t *maps = interp_scratch(it, s, total, sizeof(int64_t));
	if (!maps)
		return NULL;
	Border border = interp_border_of(s, 2);
	for (size_t d = 0, at = 0; d < R; at += (size_t)out->dims[d], d++) {
		int64_t lo = pad_before(s, d);
		for (int64_t i = 0; i < out->dims[d]; i++)
			maps[at + (size_t)i] = border_index(i - lo, in->dims[d], border);
		j->map[d] = maps + at;
	}
	dims_strides(in->dims, R, j->st);
	/* the output indices that read the input row as it is, within the
	 * output row */
	int64_t inner = out->dims[R - 1], X = in->dims[R - 1];
	j->lo = pad_before(s, R - 1);
	j->c0 = j->lo < 0 ? 0 : j->lo < inner ? j->lo : inner;
	j->c1 = j->lo + X < inner ? j->lo + X : inner;
	if (j->c1 < j->c0)
		j->c1 = j->c0;
	return maps;
}

/* 4.5.5: the border of (p_k, q_k) items by the border mode; 'constant'
 * takes `value`. A large result is split among the threads by rows. */
bool TWIN(kern_pad_f32, kern_pad_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t R = out->rank;
	PadJob j = { .in = in, .out = out, .value = (real)karg(s, 3)->u.s };
	if (out->count == 0)
		return true;
	if (R == 0) {
		memcpy(out->data, in->data, sizeof(real));
		return true;
	}
	int64_t *maps = pad_plan(it, s, &j);
	if (!maps)
		return false;
	int64_t rows = (int64_t)out->count / out->dims[R - 1];
	int parts = out->count >= PAD_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts > rows ? (int)rows : parts, pad_part, &j);
	interp_release(it, maps);
	return true;
}

/* select(x CMP y, x, y) with the comparison x CMP y fused in (fusion.c:
 * the standard library's max and min, and so relu and clamp): one pass,
 * no buffer of logicals, the same items as the two primitives. */
VECTOR_CLONES static void select_compare_ew(const Ew *e, const real *a,
					    const real *b, real *z, int64_t n,
					    int64_t sa, int64_t sb)
{
	switch ((CompareFn)e->fn) {
	case CMP_LT: BINARY_ROW(real, F_SEL_LT); break;
	case CMP_GT: BINARY_ROW(real, F_SEL_GT); break;
	case CMP_LE: BINARY_ROW(real, F_SEL_LE); break;
	case CMP_GE: BINARY_ROW(real, F_SEL_GE); break;
	case CMP_EQ: case CMP_NE: case CMP_NONE: break;
	}
}

bool TWIN(kern_select_compare_f32, kern_select_compare_f64)(Interp *it, const Step *s)
{
	assert(s->fused_from && s->unread == 1u);
	CompareFn fn = compare_fn[s->fused_from->prim];
	assert(fn >= CMP_LT && fn <= CMP_GE);
	ew_run(it, s, 1, 2, fn, select_compare_ew);
	return true;
}

/* ---- chains of element-wise steps (fusion.c) ---------------------------------------- */

/* Items a chain computes at a time, through buffers on the stack. */
#define CHAIN_ITEMS 256

typedef enum LinkKind { LINK_UNARY, LINK_ARITH, LINK_SELECT } LinkKind;

/* An operand from memory: its items for a range of the result's. */
typedef struct ChainOperand {
	const real *data;
	Bcast bc;               /* the operand against the result */
	bool whole;             /* the result's shape: no walk needed */
} ChainOperand;

typedef struct LinkRun {
	LinkKind kind;
	Ew e;                   /* its function (e.fn), for the pieces */
	int slot[2];            /* each operand: -1 the previous link's
				   result, else an index into ops */
	ChainOperand ops[2];
} LinkRun;

typedef struct ChainRun {
	LinkRun links[CHAIN_MAX_LINKS];
	size_t n;
	real *z;
	int64_t count;
} ChainRun;

/* The items [a, a + n) of operand o: in place when it has the result's
 * shape, one item (*step 0) when they are all the same item, else
 * gathered into buf. */
static const real *operand_items(const ChainOperand *o, int64_t a, int64_t n,
				 real *buf, int64_t *step)
{
	*step = 1;
	if (o->whole)
		return o->data + a;
	const Bcast *bc = &o->bc;
	int64_t inner = bc->inner, st = bc->st[0], i0 = a % inner, row = a / inner;
	if (st == 0 && i0 + n <= inner) {
		*step = 0;
		return o->data + interp_bcast_offset(bc, 0, row);
	}
	for (int64_t done = 0; done < n; row++) {
		int64_t len = inner - i0 < n - done ? inner - i0 : n - done;
		const real *src = o->data + interp_bcast_offset(bc, 0, row) + i0 * st;
		if (st)
			memcpy(buf + done, src, (size_t)len * sizeof(real));
		else
			for (int64_t k = 0; k < len; k++)
				buf[done + k] = src[0];
		done += len;
		i0 = 0;
	}
	return buf;
}

/* Items [a, a + n) of every link in turn, the last into the result. */
static void chain_block(const ChainRun *r, int64_t a, int64_t n)
{
	real v[2][CHAIN_ITEMS], buf[2][CHAIN_ITEMS];
	int cur = 0;
	for (size_t k = 0; k < r->n; k++) {
		const LinkRun *l = &r->links[k];
		const real *in[2] = { NULL, NULL };
		int64_t st[2] = { 1, 1 };
		for (int i = 0; i < 2; i++)
			if (l->slot[i] == -1)
				in[i] = v[cur];
			else if (l->slot[i] >= 0)
				in[i] = operand_items(&l->ops[l->slot[i]], a, n, buf[l->slot[i]], &st[i]);
		real *z = k + 1 == r->n ? r->z + a : v[1 - cur];
		l->e.piece(&l->e, in[0], in[1], z, n, st[0], st[1]);
		cur = 1 - cur;
	}
}

static void chain_part(void *ctx, int part, int parts)
{
	const ChainRun *r = ctx;
	int64_t lo = r->count * part / parts, hi = r->count * (part + 1) / parts;
	for (int64_t a = lo; a < hi; a += CHAIN_ITEMS)
		chain_block(r, a, hi - a < CHAIN_ITEMS ? hi - a : CHAIN_ITEMS);
}

/* The link of step s: its family's function and where each operand
 * comes from (param: the parameter holding the previous link's result). */
static void link_init(LinkRun *l, const Step *s, int param, const ITensor *out,
		      bool plain)
{
	ShapeOp p = s->op->prim;
	size_t first = 0, nops = 2;
	memset(l, 0, sizeof(*l));
	if (unary_fn[p] != UN_NONE) {
		l->kind = LINK_UNARY;
		l->e = (Ew){ .fn = unary_fn[p], .plain = plain, .piece = unary_ew };
		nops = 1;
	} else if (arith_fn[p] != AR_NONE) {
		l->kind = LINK_ARITH;
		l->e = (Ew){ .fn = arith_fn[p], .piece = arith_ew };
	} else {
		assert(p == SHAPE_OP_SELECT && s->fused_from);
		l->kind = LINK_SELECT;
		l->e = (Ew){ .fn = compare_fn[s->fused_from->prim], .piece = select_compare_ew };
		first = 1;
	}
	int nmem = 0;
	l->slot[1] = -2;
	for (size_t i = 0; i < nops; i++) {
		if ((int)(first + i) == param) {
			l->slot[i] = -1;
			continue;
		}
		const ITensor *t = s->in[first + i].t;
		ChainOperand *o = &l->ops[nmem];
		o->data = t->data;
		o->whole = t->count == out->count;
		interp_bcast_init(&o->bc, out, &t, 1);
		l->slot[i] = nmem++;
	}
}

/* The steps of s->chain as one pass: each item goes through every link
 * in order, computed as the steps compute it, so the result is the same
 * bits; the intermediate results are never written. */
bool TWIN(kern_chain_f32, kern_chain_f64)(Interp *it, const Step *s)
{
	const Chain *c = s->chain;
	assert(c && c->n >= 2 && c->n <= CHAIN_MAX_LINKS && c->links[c->n - 1].s == s);
	ChainRun r = { .n = c->n, .z = s->out[0]->data, .count = (int64_t)s->out[0]->count };
	for (size_t k = 0; k < c->n; k++)
		link_init(&r.links[k], c->links[k].s, c->links[k].param, s->out[0], it->opt.plain);
	int parts = r.count >= EW_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts, chain_part, &r);
	return true;
}
