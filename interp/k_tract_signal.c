/*
 * k_tract_signal.c - kernels of tract's operations that resample or
 * transform signals (the rows are in interp/tract_math.def with those of
 * k_tract_math.c): resize (tract_core and tract_onnx), grid_sample (both),
 * fft, stft, and tract_onnx_lrn. What each computes is what tract
 * computes (sema/tract/TRACT-NOTES.md); coordinates are computed in f32 as
 * tract computes them, so that both precisions pick the same neighbours.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* Item i of t as a real (integers and logicals converted). */
static inline real sg_item(const ITensor *t, size_t i)
{
	return t->dtype == TY_SCALAR ? ((const real *)t->data)[i]
	     : t->dtype == TY_INTEGER ? (real)((const int64_t *)t->data)[i]
				      : (real)((const uint8_t *)t->data)[i];
}

/* Stores v as item i of out (integers as Rust's `as` converts a float to
 * the result's datum type). */
static inline void sg_store(const Step *s, ITensor *out, size_t i, real v)
{
	if (out->dtype == TY_SCALAR)
		((real *)out->data)[i] = v;
	else if (out->dtype == TY_INTEGER)
		((int64_t *)out->data)[i] = dtype_real_to((DType)s->op->results[0]->u.t->datum, (double)v);
	else
		((uint8_t *)out->data)[i] = v != R(0.0);
}

/* A float as Rust's `as isize` converts it: truncated, saturating, NaN
 * as 0. */
static inline int64_t f2i(float x)
{
	return dtype_real_to_int((double)x);
}

static inline int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A numeric attribute as tract holds it (an f32). */
static inline float attr_f32(const Value *v)
{
	return v->kind == VAL_INT ? (float)v->u.i : v->kind == VAL_BOOL ? (float)v->u.b : (float)v->u.s;
}

/* ---- resize ------------------------------------------------------------------------------- */

enum { RS_HALF_PIXEL, RS_ALIGN_CORNERS, RS_ASYMMETRIC, RS_PYTORCH_HALF_PIXEL };
enum { RS_LINEAR, RS_NEAREST, RS_CUBIC };
enum { RS_FLOOR, RS_CEIL, RS_ROUND_PREFER_FLOOR, RS_ROUND_PREFER_CEIL };

/* The modes of a resize. */
typedef struct RsMode {
	int coord, interp, nearest;
	bool onnx;           /* tract_onnx_resize's neighbours (see rs_taps) */
	float a;             /* the cubic coefficient */
	bool exclude;        /* cubic taps outside get weight 0 */
} RsMode;

/* Up to four (index, weight) taps of one output position. */
typedef struct RsTap {
	int64_t idx[4];
	float w[4];
	int n;
} RsTap;

static int rs_pick(const Step *s, size_t p, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (interp_karg_is(s, p, names[i]))
			return i;
	return 0;
}

/* The input coordinate of output position xo (f32, tract's
 * CoordTransformer). */
static float rs_coord(int ct, int64_t xo, float scale, int64_t len_in,
			     int64_t len_out)
{
	float x = (float)xo;
	if (ct == RS_ALIGN_CORNERS) {
		float width = scale * (float)len_in;
		return width == 1.0f ? 0.0f : x * ((float)len_in - 1.0f) / (width - 1.0f);
	}
	if (ct == RS_ASYMMETRIC)
		return x / scale;
	if (ct == RS_PYTORCH_HALF_PIXEL && len_out <= 1)
		return 0.0f;
	return (x + 0.5f) / scale - 0.5f;
}

/* Keys' cubic convolution kernel with coefficient a. */
static float rs_cubic(float s, float a)
{
	float x = fabsf(s);
	if (x <= 1.0f)
		return (a + 2.0f) * x * x * x - (a + 3.0f) * x * x + 1.0f;
	if (x <= 2.0f)
		return a * x * x * x - 5.0f * a * x * x + 8.0f * a * x - 4.0f * a;
	return 0.0f;
}

/* The taps of input coordinate x on an axis of len items. tract_core:
 * left = floor(x) and right = floor(x) + 1, both clamped to the axis,
 * frac = x - floor(x). tract_onnx: left = x truncated (negative: 0),
 * clamped, right = left + 1 clamped, frac = x - left (so the first
 * positions of half_pixel extrapolate). Cubic (both): floor(x) - 1 ...
 * floor(x) + 2, clamped (with exclude_outside, taps outside get weight 0
 * and the weights are renormalized). */
static void rs_taps(const RsMode *m, float x, int64_t len, RsTap *t)
{
	if (m->interp == RS_CUBIC) {
		int64_t xf = f2i(floorf(x));
		float f = x - (float)xf, sum = 0.0f;
		t->n = 4;
		for (int j = 0; j < 4; j++) {
			int64_t raw = xf + j - 1;
			t->w[j] = rs_cubic(f - (float)(j - 1), m->a);
			t->idx[j] = clampi(raw, 0, len - 1);
			if (m->exclude && (raw < 0 || raw >= len)) {
				t->w[j] = 0.0f; /* tract reads no item there */
				t->idx[j] = -1;
			}
			sum += t->w[j];
		}
		if (m->exclude && sum != 0.0f)
			for (int j = 0; j < 4; j++)
				t->w[j] /= sum;
		return;
	}
	int64_t left, right;
	float frac;
	if (m->onnx) {
		left = x > 0.0f ? clampi(f2i(x), 0, len - 1) : 0;
		right = left + 1 < len ? left + 1 : len - 1;
		frac = x - (float)left;
	} else {
		int64_t xf = f2i(floorf(x));
		left = clampi(xf, 0, len - 1);
		right = clampi(xf + 1, 0, len - 1);
		frac = x - (float)xf;
	}
	if (m->interp == RS_LINEAR) {
		t->n = 2;
		t->idx[0] = left;
		t->idx[1] = right;
		t->w[0] = 1.0f - frac;
		t->w[1] = frac;
		return;
	}
	bool take_right = m->nearest == RS_CEIL ? true
			: m->nearest == RS_ROUND_PREFER_FLOOR ? frac > 0.5f
			: m->nearest == RS_ROUND_PREFER_CEIL ? frac >= 0.5f : false;
	t->n = 1;
	t->idx[0] = take_right ? right : left;
	t->w[0] = 1.0f;
}

/* Resamples src (dims) along axis a to n positions into dst. */
static void rs_axis(const RsMode *m, const real *src, real *dst,
			   const int64_t *dims, size_t rank, size_t a, int64_t n,
			   float scale, RsTap *taps)
{
	int64_t len = dims[a];
	int64_t outer = dims_volume(dims, a), inner = dims_volume(dims + a + 1, rank - a - 1);
	for (int64_t xo = 0; xo < n; xo++)
		rs_taps(m, rs_coord(m->coord, xo, scale, len, n), len, &taps[xo]);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t xo = 0; xo < n; xo++) {
			const RsTap *t = &taps[xo];
			real *y = dst + (o * n + xo) * inner;
			for (int64_t i = 0; i < inner; i++) {
				const real *x = src + o * len * inner + i;
				if (t->n == 1) {
					y[i] = x[t->idx[0] * inner];
					continue;
				}
				if (t->n == 2) {
					y[i] = x[t->idx[0] * inner] * (real)t->w[0] +
					       x[t->idx[1] * inner] * (real)t->w[1];
					continue;
				}
				real acc = R(0.0);
				for (int k = 0; k < t->n; k++)
					if (t->idx[k] >= 0)
						acc += (real)t->w[k] * x[t->idx[k] * inner];
				y[i] = acc;
			}
		}
}

/* The modes of step s (tract_core_resize or tract_onnx_resize). */
static void rs_mode(const Step *s, bool onnx, RsMode *m)
{
	static const char *const coords[] = { "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel" };
	static const char *const interps[] = { "linear", "nearest", "cubic" };
	static const char *const nearests[] = { "floor", "ceil", "round_prefer_floor", "round_prefer_ceil" };
	size_t p = onnx ? 2 : 3;
	m->coord = rs_pick(s, p, coords, 4);
	m->interp = rs_pick(s, p + 1, interps, 3);
	m->nearest = rs_pick(s, p + 2, nearests, 4);
	m->onnx = onnx;
	m->a = onnx ? attr_f32(karg(s, 5)) : -0.75f;
	m->exclude = onnx && karg_bool(s, 6);
}

/* tract_core_resize(input, scales, sizes, coord_transformer, interpolator,
 * nearest_mode) and tract_onnx_resize(input, scales, coord_transformer,
 * interpolator, nearest_mode, cubic_coeff_a, exclude_outside): each axis
 * whose scale is not 1 resampled in turn, in axis order, on reals. The
 * scales are the given ones (f32), or out / in (f32) with sizes. */
bool TWIN(kern_tract_resize_f32, kern_tract_resize_f64)(Interp *it, const Step *s)
{
	bool onnx = s->op->prim == SHAPE_OP_TRACT_ONNX_RESIZE;
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t rank = in->rank;
	if (out->count == 0)
		return true;
	RsMode m;
	rs_mode(s, onnx, &m);
	float scale[INTERP_MAX_RANK];
	const ITensor *sc = karg(s, 1)->kind == VAL_BOOL ? NULL : s->in[1].t;
	for (size_t a = 0; a < rank; a++)
		scale[a] = sc && sc->count == rank ? (float)sg_item(sc, a)
						   : (float)out->dims[a] / (float)in->dims[a];
	/* the largest intermediate tensor and the longest resampled axis */
	int64_t dims[INTERP_MAX_RANK], big = (int64_t)in->count, taps_n = 1;
	memcpy(dims, in->dims, rank * sizeof(int64_t));
	for (size_t a = 0; a < rank; a++)
		if (scale[a] != 1.0f) {
			dims[a] = out->dims[a];
			int64_t v = dims_volume(dims, rank);
			big = v > big ? v : big;
			taps_n = out->dims[a] > taps_n ? out->dims[a] : taps_n;
		}
	real *buf = interp_scratch(it, s, 2 * (size_t)big, sizeof(real));
	RsTap *taps = buf ? interp_scratch(it, s, (size_t)taps_n, sizeof(RsTap)) : NULL;
	if (!taps) {
		interp_release(it, buf);
		return false;
	}
	real *cur = buf, *next = buf + big;
	for (size_t i = 0; i < in->count; i++)
		cur[i] = sg_item(in, i);
	memcpy(dims, in->dims, rank * sizeof(int64_t));
	for (size_t a = 0; a < rank; a++) {
		if (scale[a] == 1.0f)
			continue;
		rs_axis(&m, cur, next, dims, rank, a, out->dims[a], scale[a], taps);
		dims[a] = out->dims[a];
		real *t = cur;
		cur = next;
		next = t;
	}
	for (size_t i = 0; i < out->count; i++)
		sg_store(s, out, i, cur[i]);
	interp_release(it, taps);
	interp_release(it, buf);
	return true;
}

/* ---- grid_sample --------------------------------------------------------------------------- */

enum { GS_BILINEAR, GS_NEAREST, GS_BICUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

typedef struct GsCtx {
	int mode, pad;
	bool align;
	size_t k;                    /* spatial axes */
	const int64_t *size;         /* their extents */
	int64_t st[INTERP_MAX_RANK]; /* their strides in the input */
	const real *x;               /* the (batch, channel) plane */
} GsCtx;

/* Round half to even, in f32. */
static inline float gs_round_even(float x)
{
	float f = floorf(x), d = x - f;
	if (d != 0.5f)
		return d > 0.5f ? f + 1.0f : f;
	return fmodf(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

/* The bounds of pixel coordinates on an axis of `size` items. */
static inline void gs_bounds(const GsCtx *g, int64_t size, float *lo, float *hi)
{
	*lo = g->align ? 0.0f : -0.5f;
	*hi = g->align ? (float)size - 1.0f : (float)size - 0.5f;
}

/* x reflected between lo and hi (tract's gs_reflect). */
static float gs_reflect(float x, float lo, float hi)
{
	float rng = hi - lo;
	if (rng == 0.0f)
		return lo;
	if (x < lo || x > hi) {
		float dx = x < lo ? lo - x : x - hi;
		int64_t n = f2i(dx / rng);
		float r = dx - (float)n * rng;
		bool even = n % 2 == 0;
		return x < lo ? (even ? lo + r : hi - r) : (even ? hi - r : lo + r);
	}
	return x;
}

/* The item at integer coordinates c under the padding mode: zeros
 * outside, the nearest edge (border), or the reflected index. */
static real gs_pixel(const GsCtx *g, const int64_t *c)
{
	int64_t off = 0;
	for (size_t d = 0; d < g->k; d++) {
		int64_t v = c[d], n = g->size[d];
		if (g->pad == GS_ZEROS && (v < 0 || v >= n))
			return R(0.0);
		if (g->pad == GS_BORDER)
			v = v < 0 ? 0 : v > n - 1 ? n - 1 : v;
		if (g->pad == GS_REFLECTION) {
			float lo, hi;
			gs_bounds(g, n, &lo, &hi);
			v = f2i(gs_reflect((float)v, lo, hi));
			v = v < 0 ? 0 : v;
		}
		off += v * g->st[d];
	}
	return g->x[off];
}

/* The coordinates mapped by the padding mode, when one is out of bounds. */
static void gs_pad(const GsCtx *g, float *c)
{
	bool oob = false;
	for (size_t d = 0; d < g->k; d++) {
		float lo, hi;
		gs_bounds(g, g->size[d], &lo, &hi);
		oob |= c[d] < lo || c[d] > hi;
	}
	for (size_t d = 0; oob && d < g->k; d++) {
		float lo, hi;
		gs_bounds(g, g->size[d], &lo, &hi);
		if (g->pad == GS_BORDER)
			c[d] = c[d] < 0.0f ? 0.0f : c[d] > hi + lo ? hi + lo : c[d];
		else if (g->pad == GS_REFLECTION)
			c[d] = gs_reflect(c[d], lo, hi);
	}
}

/* Keys' cubic weights (a = -0.75) of the four taps around offset x. */
static void gs_cubic(float x, float *w)
{
	const float a = -0.75f;
	float p1 = x + 1.0f, m1 = 1.0f - x, m2 = 2.0f - x;
	w[0] = ((a * p1 - 5.0f * a) * p1 + 8.0f * a) * p1 - 4.0f * a;
	w[1] = ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
	w[2] = ((a + 2.0f) * m1 - (a + 3.0f)) * m1 * m1 + 1.0f;
	w[3] = ((a * m2 - 5.0f * a) * m2 + 8.0f * a) * m2 - 4.0f * a;
}

/* One sample at pixel coordinates pc (one per spatial axis). */
static real gs_sample(const GsCtx *g, const float *pc)
{
	float c[INTERP_MAX_RANK];
	int64_t ic[INTERP_MAX_RANK];
	memcpy(c, pc, g->k * sizeof(float));
	if (g->mode == GS_NEAREST) {
		for (size_t d = 0; d < g->k; d++)
			c[d] = gs_round_even(c[d]);
		gs_pad(g, c);
		for (size_t d = 0; d < g->k; d++)
			ic[d] = f2i(c[d]);
		return gs_pixel(g, ic);
	}
	gs_pad(g, c);
	if (g->mode == GS_BICUBIC) {
		int64_t x0 = f2i(floorf(c[0])) - 1, y0 = f2i(floorf(c[1])) - 1;
		float wx[4], wy[4];
		gs_cubic(c[0] - (float)x0 - 1.0f, wx);
		gs_cubic(c[1] - (float)y0 - 1.0f, wy);
		real acc = R(0.0);
		for (int h = 0; h < 4; h++) {
			real v = R(0.0);
			for (int w = 0; w < 4; w++) {
				ic[0] = x0 + w;
				ic[1] = y0 + h;
				v += (real)wx[w] * gs_pixel(g, ic);
			}
			acc += (real)wy[h] * v;
		}
		return acc;
	}
	real acc = R(0.0);
	for (uint64_t corner = 0; corner < ((uint64_t)1 << g->k); corner++) {
		float w = 1.0f;
		for (size_t d = 0; d < g->k; d++) {
			int64_t lo = f2i(floorf(c[d]));
			bool up = (corner >> d) & 1;
			ic[d] = up ? lo + 1 : lo;
			w *= up ? c[d] - (float)lo : (float)(lo + 1) - c[d];
		}
		acc += (real)w * gs_pixel(g, ic);
	}
	return acc;
}

/* tract_core_grid_sample, tract_onnx_grid_sample(input, grid, mode,
 * padding_mode, align_corners): input [N, C, D1..Dk], grid [N, O1..Ok,
 * k] whose last axis holds coordinates in x, y... order (the last spatial
 * axis first); each normalized g maps to (g + 1) / 2 (D - 1) (aligned) or
 * ((g + 1) D - 1) / 2; nearest rounds half to even, bilinear weighs the
 * 2^k corners, bicubic (k = 2) the 4 x 4 neighbourhood. */
bool TWIN(kern_tract_grid_sample_f32, kern_tract_grid_sample_f64)(Interp *it, const Step *s)
{
	static const char *const modes[] = { "bilinear", "nearest", "bicubic" };
	static const char *const pads[] = { "zeros", "border", "reflection" };
	const ITensor *in = s->in[0].t, *grid = s->in[1].t;
	ITensor *out = s->out[0];
	GsCtx g;
	g.mode = rs_pick(s, 2, modes, 3);
	g.pad = rs_pick(s, 3, pads, 3);
	g.align = karg_bool(s, 4);
	g.k = in->rank - 2;
	g.size = in->dims + 2;
	dims_strides(g.size, g.k, g.st);
	int64_t N = in->dims[0], C = in->dims[1];
	int64_t ivol = dims_volume(g.size, g.k), ovol = dims_volume(out->dims + 2, g.k);
	real *in_real = NULL;
	if (in->dtype != TY_SCALAR) {
		in_real = interp_scratch(it, s, in->count, sizeof(real));
		if (!in_real)
			return false;
		for (size_t i = 0; i < in->count; i++)
			in_real[i] = sg_item(in, i);
	}
	const real *x = in_real ? in_real : in->data;
	float pc[INTERP_MAX_RANK];
	for (int64_t n = 0; n < N; n++)
		for (int64_t p = 0; p < ovol; p++) {
			for (size_t d = 0; d < g.k; d++) {
				float gv = (float)sg_item(grid, (size_t)((n * ovol + p) * (int64_t)g.k) + (g.k - 1 - d));
				float sz = (float)g.size[d];
				pc[d] = g.align ? (gv + 1.0f) / 2.0f * (sz - 1.0f) : ((gv + 1.0f) * sz - 1.0f) / 2.0f;
			}
			for (int64_t c = 0; c < C; c++) {
				g.x = x + (n * C + c) * ivol;
				sg_store(s, out, (size_t)((n * C + c) * ovol + p), gs_sample(&g, pc));
			}
		}
	interp_release(it, in_real);
	return true;
}

#define SG_PI 3.14159265358979323846

/* ---- fft, stft -------------------------------------------------------------------------------- */

/* The twiddles of an n-point transform: tw[k] = exp(-+2 pi i k / n)
 * (re, im), computed in double. */
static void twiddles(real *tw, int64_t n, bool inverse)
{
	double sign = inverse ? 1.0 : -1.0;
	for (int64_t k = 0; k < n; k++) {
		double t = sign * 2.0 * SG_PI * (double)k / (double)n;
		tw[2 * k] = (real)cos(t);
		tw[2 * k + 1] = (real)sin(t);
	}
}

/* The discrete Fourier transform of the n complex numbers v (re, im
 * interleaved) with the twiddles tw of n points, unnormalized in both
 * directions (rustfft's): radix 2 when n is a power of two, the direct sum
 * otherwise (tmp: 2n reals). */
static void dft(real *v, int64_t n, const real *tw, real *tmp)
{
	if (n <= 1)
		return;
	if ((n & (n - 1)) != 0) {
		for (int64_t k = 0; k < n; k++) {
			real re = R(0.0), im = R(0.0);
			for (int64_t j = 0, q = 0; j < n; j++, q = (q + k) % n) {
				real c = tw[2 * q], sn = tw[2 * q + 1];
				re += v[2 * j] * c - v[2 * j + 1] * sn;
				im += v[2 * j] * sn + v[2 * j + 1] * c;
			}
			tmp[2 * k] = re;
			tmp[2 * k + 1] = im;
		}
		memcpy(v, tmp, (size_t)(2 * n) * sizeof(real));
		return;
	}
	for (int64_t i = 1, j = 0; i < n; i++) {
		int64_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			real t0 = v[2 * i], t1 = v[2 * i + 1];
			v[2 * i] = v[2 * j];
			v[2 * i + 1] = v[2 * j + 1];
			v[2 * j] = t0;
			v[2 * j + 1] = t1;
		}
	}
	for (int64_t len = 2; len <= n; len <<= 1)
		for (int64_t k = 0; k < len / 2; k++) {
			real c = tw[2 * (k * (n / len))], sn = tw[2 * (k * (n / len)) + 1];
			for (int64_t i = 0; i < n; i += len) {
				real *a = v + 2 * (i + k), *b = v + 2 * (i + k + len / 2);
				real br = b[0] * c - b[1] * sn, bi = b[0] * sn + b[1] * c;
				b[0] = a[0] - br;
				b[1] = a[1] - bi;
				a[0] += br;
				a[1] += bi;
			}
		}
}

/* tract_core_fft(input, axis, inverse): the DFT along axis of the complex
 * numbers held by the last axis (re, im). */
bool TWIN(kern_tract_fft_f32, kern_tract_fft_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 1);
	bool inverse = karg_bool(s, 2);
	int64_t len = in->dims[axis], outer = dims_volume(in->dims, axis);
	int64_t inner = dims_volume(in->dims + axis + 1, in->rank - axis - 2);
	if (out->count == 0)
		return true;
	real *v = interp_scratch(it, s, (size_t)(6 * len), sizeof(real));
	if (!v)
		return false;
	twiddles(v + 4 * len, len, inverse);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			for (int64_t j = 0; j < len; j++)
				for (int q = 0; q < 2; q++)
					v[2 * j + q] = sg_item(in, (size_t)(((o * len + j) * inner + i) * 2 + q));
			dft(v, len, v + 4 * len, v + 2 * len);
			for (int64_t j = 0; j < len; j++)
				for (int q = 0; q < 2; q++)
					sg_store(s, out, (size_t)(((o * len + j) * inner + i) * 2 + q), v[2 * j + q]);
		}
	interp_release(it, v);
	return true;
}

/* tract_core_stft(input, axis, frame, stride, window): frames of `frame`
 * items every `stride` along axis, each multiplied by the window (centred
 * with zeros around it when shorter than the frame; none when absent),
 * then transformed forward; axis becomes [frames, frame]. */
bool TWIN(kern_tract_stft_f32, kern_tract_stft_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	const ITensor *win = karg(s, 4)->kind == VAL_BOOL ? NULL : s->in[4].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 1);
	int64_t frame = karg_int(s, 2), stride = karg_int(s, 3);
	int64_t len = in->dims[axis], frames = out->dims[axis];
	int64_t outer = dims_volume(in->dims, axis);
	int64_t inner = dims_volume(in->dims + axis + 1, in->rank - axis - 2);
	int64_t wlen = win ? (int64_t)win->count : 0, pad = wlen < frame ? (frame - wlen) / 2 : 0;
	if (out->count == 0)
		return true;
	real *v = interp_scratch(it, s, (size_t)(6 * frame), sizeof(real));
	if (!v)
		return false;
	twiddles(v + 4 * frame, frame, false);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++)
			for (int64_t f = 0; f < frames; f++) {
				for (int64_t j = 0; j < frame; j++) {
					real w = !win ? R(1.0) : j < pad || j >= pad + wlen ? R(0.0) : sg_item(win, (size_t)(j - pad));
					for (int q = 0; q < 2; q++)
						v[2 * j + q] = w * sg_item(in, (size_t)(((o * len + f * stride + j) * inner + i) * 2 + q));
				}
				dft(v, frame, v + 4 * frame, v + 2 * frame);
				for (int64_t j = 0; j < frame; j++)
					for (int q = 0; q < 2; q++)
						sg_store(s, out, (size_t)((((o * frames + f) * frame + j) * inner + i) * 2 + q), v[2 * j + q]);
			}
	interp_release(it, v);
	return true;
}

/* ---- lrn -------------------------------------------------------------------------------------- */

/* tract_onnx_lrn(input, alpha, beta, bias, size): across the channels
 * (axis 1): x / (bias + alpha / size * S)^beta, S the sum of squares over
 * channels c - floor((size - 1) / 2) ... c + ceil((size - 1) / 2), cut
 * at the ends. */
bool TWIN(kern_tract_lrn_f32, kern_tract_lrn_f64)(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *in = s->in[0].t;
	real alpha = (real)attr_f32(karg(s, 1)), beta = (real)attr_f32(karg(s, 2));
	real bias = (real)attr_f32(karg(s, 3));
	int64_t size = karg_int(s, 4);
	int64_t N = in->dims[0], C = in->dims[1], inner = dims_volume(in->dims + 2, in->rank - 2);
	int64_t before = (size - 1) / 2, after = size / 2;
	for (int64_t n = 0; n < N; n++)
		for (int64_t c = 0; c < C; c++)
			for (int64_t i = 0; i < inner; i++) {
				int64_t lo = c - before < 0 ? 0 : c - before, hi = c + after > C - 1 ? C - 1 : c + after;
				real sum = R(0.0);
				for (int64_t q = lo; q <= hi; q++) {
					real v = sg_item(in, (size_t)((n * C + q) * inner + i));
					sum += v * v;
				}
				real x = sg_item(in, (size_t)((n * C + c) * inner + i));
				sg_store(s, s->out[0], (size_t)((n * C + c) * inner + i), x / R(pow)(bias + alpha / (real)size * sum, beta));
			}
	return true;
}
