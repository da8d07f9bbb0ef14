/*
 * k_window.c - the sliding-window kernels other than conv (compiled for
 * float and double, interp/real.h): box and debox (spec 4.3.2),
 * argmax_pool, sample and desample (4.3.3), multilinear_upsample (4.3.4),
 * and the max pooling that an argmax_pool followed by a sample computes.
 *
 * box and debox are separable (4.3.2: "equivalent to a sequence of
 * 1-dimensional box filters"), and so is the maximum of a window: they
 * run as one pass per dimension the window changes. Border modes map
 * each index of the extended input to the input (border_index); outside
 * values are 0 under 'constant' and are left out under 'ignore' (a
 * normalized box then divides by the number of values it took; a window
 * with none gives 0).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Marks in a pass table: the tap reads nothing ('ignore', or 'constant'
 * for a sum) or the constant 0 ('constant' for a maximum). */
#define TAP_SKIP (-1)
#define TAP_ZERO (-2)

typedef enum PassMode { PASS_SUM, PASS_MAX } PassMode;

/* One 1-dimensional pass along axis a: dims (current extents) change
 * along a from w->X/x to the other side. */
typedef struct Pass {
	int64_t outer, inner, n_in, n_out, f;
	int64_t *tap;          /* n_out x f input indices or marks */
	real *scale;           /* n_out factors (normalization) */
	int64_t s, d, p;       /* the window along the axis */
	int64_t lo, hi;        /* the outputs whose taps all read input
				  i * s + j * d - p, with no border */
} Pass;

static bool pass_table(Interp *it, const Step *s, Pass *ps,
			      const Win *w, size_t a, bool reverse,
			      PassMode mode, bool normalize)
{
	ps->tap = interp_scratch(it, s, (size_t)(ps->n_out * ps->f), sizeof(int64_t));
	ps->scale = interp_scratch(it, s, (size_t)ps->n_out, sizeof(real));
	if (!ps->tap || !ps->scale)
		return false;
	for (int64_t i = 0; i < ps->n_out; i++) {
		int64_t valid = 0;
		for (int64_t j = 0; j < ps->f; j++) {
			int64_t src, t = TAP_SKIP;
			if (!reverse) {
				src = i * w->s[a] + j * w->d[a] - w->p[a];
			} else {
				int64_t num = i + w->p[a] - j * w->d[a];
				src = num % w->s[a] == 0 ? num / w->s[a] : INT64_MIN;
			}
			if (src != INT64_MIN) {
				t = border_index(src, ps->n_in, w->border);
				if (t < 0 && w->border == BORDER_CONSTANT && mode == PASS_MAX)
					t = TAP_ZERO;
			}
			ps->tap[i * ps->f + j] = t;
			valid += t >= 0 || (t == TAP_ZERO);
		}
		real sc = R(1.0);
		if (normalize)
			sc = w->border == BORDER_IGNORE ? (valid ? R(1.0) / (real)valid : R(0.0))
							: R(1.0) / (real)ps->f;
		ps->scale[i] = sc;
	}
	ps->s = w->s[a];
	ps->d = w->d[a];
	ps->p = w->p[a];
	ps->lo = ps->hi = 0;
	if (!reverse) {
		/* 0 <= i s - p and i s + (f - 1) d - p < n_in */
		int64_t lo = ps->p > 0 ? (ps->p + ps->s - 1) / ps->s : 0;
		int64_t top = ps->n_in - 1 - (ps->f - 1) * ps->d + ps->p;
		int64_t hi = top >= 0 ? top / ps->s + 1 : 0;
		ps->lo = lo < ps->n_out ? lo : ps->n_out;
		ps->hi = hi < ps->n_out ? hi : ps->n_out;
		ps->hi = ps->hi > ps->lo ? ps->hi : ps->lo;
	}
	return true;
}

/* Output i of a row along the last dimension, through the tap table
 * (inlined into pass_run_last's clones: called, it made the max
 * poolings of googlenet 2.5 times slower). */
static inline __attribute__((always_inline)) real
pass_item(const Pass *ps, const real *row, int64_t i, PassMode mode)
{
	const int64_t *tap = ps->tap + i * ps->f;
	real acc = 0;
	bool any = false;
	for (int64_t j = 0; j < ps->f; j++) {
		if (tap[j] == TAP_SKIP)
			continue;
		real v = tap[j] == TAP_ZERO ? 0 : row[tap[j]];
		if (!any)
			acc = v;
		else if (mode == PASS_MAX)
			acc = v > acc ? v : acc;
		else
			acc += v;
		any = true;
	}
	return acc * ps->scale[i];
}

/* dst[i] for i in [0, n): the taps r0[i s + j d] for j in [0, f), in
 * order (inlined with s a constant 1, then contiguous). */
static inline __attribute__((always_inline)) void
pass_interior(const real *r0, real *dst, int64_t n, int64_t s, int64_t f, int64_t d,
	      PassMode mode)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = r0[i * s];
	for (int64_t j = 1; j < f; j++) {
		const real *rj = r0 + j * d;
		if (mode == PASS_MAX)
			for (int64_t i = 0; i < n; i++)
				dst[i] = rj[i * s] > dst[i] ? rj[i * s] : dst[i];
		else
			for (int64_t i = 0; i < n; i++)
				dst[i] += rj[i * s];
	}
}

/* The pass along the last dimension (rows of one item), rows [o0, o1):
 * taps read single values. The outputs clear of the border take their
 * taps in the same order, tap by tap over the run of them, which the
 * compiler vectorizes. */
VECTOR_CLONES static void pass_run_last(const Pass *ps, const real *in, real *out,
					PassMode mode, int64_t o0, int64_t o1)
{
	int64_t lo = ps->lo, hi = ps->hi, s = ps->s, n = ps->n_out;
	if (s == 1 && n == ps->n_in && hi > lo && o1 > o0) {
		/* rows of the same length: the interior of all of them as one
		 * run, the items it got wrong at the rows' ends set after */
		int64_t k0 = o0 * n + lo, k1 = (o1 - 1) * n + hi;
		pass_interior(in + k0 - ps->p, out + k0, k1 - k0, 1, ps->f, ps->d, mode);
		if (ps->scale[lo] != R(1.0)) /* the same for all taps inside */
			for (int64_t k = k0; k < k1; k++)
				out[k] *= ps->scale[lo];
		for (int64_t o = o0; o < o1; o++) {
			for (int64_t i = 0; i < lo; i++)
				out[o * n + i] = pass_item(ps, in + o * n, i, mode);
			for (int64_t i = hi; i < n; i++)
				out[o * n + i] = pass_item(ps, in + o * n, i, mode);
		}
		return;
	}
	for (int64_t o = o0; o < o1; o++) {
		const real *row = in + o * ps->n_in;
		real *dst = out + o * n;
		for (int64_t i = 0; i < lo; i++)
			dst[i] = pass_item(ps, row, i, mode);
		for (int64_t i = hi; i < n; i++)
			dst[i] = pass_item(ps, row, i, mode);
		if (hi == lo)
			continue;
		const real *r0 = row + lo * s - ps->p;
		if (s == 1)
			pass_interior(r0, dst + lo, hi - lo, 1, ps->f, ps->d, mode);
		else
			pass_interior(r0, dst + lo, hi - lo, s, ps->f, ps->d, mode);
		for (int64_t i = lo; i < hi; i++)
			dst[i] *= ps->scale[i];
	}
}

/* Output items from which a pass is split among threads. */
#define PASS_PARALLEL_ITEMS 32768

/* A pass split among threads by its outer index. */
typedef struct PassJob {
	const Pass *ps;
	const real *in;
	real *out;
	PassMode mode;
} PassJob;

/* Rows [o0, o1) of a pass. */
static void pass_rows(const Pass *ps, const real *in, real *out,
		      PassMode mode, int64_t o0, int64_t o1)
{
	int64_t inner = ps->inner;
	if (inner == 1) {
		pass_run_last(ps, in, out, mode, o0, o1);
		return;
	}
	for (int64_t o = o0; o < o1; o++)
		for (int64_t i = 0; i < ps->n_out; i++) {
			real *dst = out + (o * ps->n_out + i) * inner;
			const int64_t *tap = ps->tap + i * ps->f;
			bool any = false;
			for (int64_t j = 0; j < ps->f; j++) {
				if (tap[j] == TAP_SKIP)
					continue;
				const real *src = in + (o * ps->n_in + tap[j]) * inner;
				if (!any) {
					if (tap[j] == TAP_ZERO)
						memset(dst, 0, (size_t)inner * sizeof(real));
					else
						memcpy(dst, src, (size_t)inner * sizeof(real));
					any = true;
				} else if (tap[j] == TAP_ZERO) {
					for (int64_t k = 0; k < inner; k++)
						dst[k] = dst[k] > 0 ? dst[k] : 0;
				} else if (mode == PASS_MAX) {
					for (int64_t k = 0; k < inner; k++)
						dst[k] = src[k] > dst[k] ? src[k] : dst[k];
				} else {
					for (int64_t k = 0; k < inner; k++)
						dst[k] += src[k];
				}
			}
			if (!any)
				memset(dst, 0, (size_t)inner * sizeof(real));
			else if (ps->scale[i] != R(1.0))
				for (int64_t k = 0; k < inner; k++)
					dst[k] *= ps->scale[i];
		}
}

static void pass_part(void *ctx, int part, int parts)
{
	const PassJob *j = ctx;
	int64_t n = j->ps->outer;
	pass_rows(j->ps, j->in, j->out, j->mode, n * part / parts, n * (part + 1) / parts);
}

/* Runs a pass, on the threads when it is large enough. */
static void pass_run(Interp *it, const Pass *ps, const real *in, real *out, PassMode mode)
{
	PassJob j = { ps, in, out, mode };
	int64_t items = ps->outer * ps->n_out * ps->inner;
	int parts = ps->outer > 1 && items >= PASS_PARALLEL_ITEMS ? interp_threads(it) : 1;
	if (parts > ps->outer)
		parts = (int)ps->outer;
	interp_parallel(it, parts, pass_part, &j);
}

/* Runs the passes from in to out: one per dimension whose window is not
 * the identity, the last into out. */
static bool separable(Interp *it, const Step *s, const ITensor *in,
			     ITensor *out, const Win *w, bool reverse,
			     PassMode mode, bool normalize)
{
	int64_t dims[INTERP_MAX_RANK];
	size_t R = in->rank, last = R;
	for (size_t a = 0; a < R; a++) {
		dims[a] = in->dims[a];
		int64_t n_out = reverse ? w->X[a] : w->x[a];
		if (!(w->f[a] == 1 && w->s[a] == 1 && w->p[a] == 0 && n_out == in->dims[a]))
			last = a;
	}
	if (last == R) {
		memcpy(out->data, in->data, out->count * sizeof(real));
		return true;
	}
	const real *cur = in->data;
	real *buf = NULL;
	for (size_t a = 0; a <= last; a++) {
		int64_t n_out = reverse ? w->X[a] : w->x[a];
		bool identity = w->f[a] == 1 && w->s[a] == 1 && w->p[a] == 0 &&
				n_out == dims[a];
		if (identity)
			continue;
		Pass ps = { .outer = dims_volume(dims, a),
			    .inner = dims_volume(dims + a + 1, R - a - 1),
			    .n_in = dims[a], .n_out = n_out, .f = w->f[a] };
		real *next = a == last ? out->data
				       : interp_scratch(it, s, (size_t)(ps.outer * n_out * ps.inner), sizeof(real));
		bool ok = next && pass_table(it, s, &ps, w, a, reverse, mode, normalize);
		if (ok)
			pass_run(it, &ps, cur, next, mode);
		interp_release(it, ps.tap);
		interp_release(it, ps.scale);
		interp_release(it, buf);
		if (!ok) {
			if (next != out->data)
				interp_release(it, next);
			return false;
		}
		buf = next == out->data ? NULL : next;
		cur = next;
		dims[a] = n_out;
	}
	return true;
}

/* box: input 0, size 1, border 2, padding 3, stride 4, dilation 5,
 * normalize 6; debox: ... output_shape 6, normalize 7. */
bool TWIN(kern_box_f32, kern_box_f64)(Interp *it, const Step *s)
{
	bool reverse = s->op->prim == SHAPE_OP_DEBOX;
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t size[INTERP_MAX_RANK];
	for (size_t d = 0; d < in->rank; d++)
		size[d] = karg_item(s, 1, d);
	Win w;
	interp_win_setup(&w, s, 0, size, 2, 3, 4, 5, reverse ? out : in, reverse ? in : out);
	return separable(it, s, in, out, &w, reverse, PASS_SUM,
				karg_bool(s, reverse ? 7 : 6));
}

/* The sample step of a fused max pooling: input 0, index 1 (not
 * computed), size 2, border 3, padding 4, stride 5, dilation 6. */
bool TWIN(kern_max_pool_f32, kern_max_pool_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t size[INTERP_MAX_RANK];
	for (size_t d = 0; d < in->rank; d++)
		size[d] = karg_item(s, 2, d);
	Win w;
	interp_win_setup(&w, s, 0, size, 3, 4, 5, 6, in, out);
	return separable(it, s, in, out, &w, false, PASS_MAX, false);
}

/* ---- 4.3.3 index based sampling ----------------------------------------------------- */

/* Per dimension and down-scaled index i and tap j, the input index
 * i * s + j * d - p reads (border_index: -1 outside). */
typedef struct TapMap {
	int64_t *map[INTERP_MAX_RANK];
	int64_t *store;
	int64_t st[INTERP_MAX_RANK]; /* the input's strides */
} TapMap;

static bool tap_map(Interp *it, const Step *s, TapMap *tm,
			   const Win *w, const ITensor *up)
{
	size_t total = 0;
	for (size_t d = 0; d < w->rank; d++)
		total += (size_t)(w->x[d] * w->f[d]);
	tm->store = interp_scratch(it, s, total, sizeof(int64_t));
	if (!tm->store)
		return false;
	int64_t acc = 1;
	for (size_t d = w->rank, at = total; d-- > 0;) {
		at -= (size_t)(w->x[d] * w->f[d]);
		tm->map[d] = tm->store + at;
		for (int64_t i = 0; i < w->x[d]; i++)
			for (int64_t j = 0; j < w->f[d]; j++)
				tm->map[d][i * w->f[d] + j] = border_index(
					i * w->s[d] + j * w->d[d] - w->p[d], w->X[d], w->border);
		tm->st[d] = acc;
		acc *= up->dims[d];
	}
	return true;
}

/* The input offset of down-scaled position pos[] and tap jj (row-major
 * over the window), or -1 when it lies outside. */
static int64_t tap_offset(const TapMap *tm, const Win *w,
				 const int64_t *pos, int64_t jj)
{
	int64_t off = 0;
	for (size_t d = w->rank; d-- > 0;) {
		int64_t j = jj % w->f[d];
		jj /= w->f[d];
		int64_t m = tm->map[d][pos[d] * w->f[d] + j];
		if (m < 0)
			return -1;
		off += m * tm->st[d];
	}
	return off;
}

static void next_pos(int64_t *pos, const int64_t *dims, size_t rank)
{
	for (size_t d = rank; d-- > 0;) {
		if (++pos[d] < dims[d])
			return;
		pos[d] = 0;
	}
}

/* argmax_pool: input 0, size 1, border 2, padding 3, stride 4,
 * dilation 5. "If there are multiple equal maximal values, only the first
 * index is stored"; outside values are 0 ('constant') or left out
 * ('ignore': a window with none gives index 0). */
bool TWIN(kern_argmax_pool_f32, kern_argmax_pool_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t size[INTERP_MAX_RANK], pos[INTERP_MAX_RANK] = { 0 };
	for (size_t d = 0; d < in->rank; d++)
		size[d] = karg_item(s, 1, d);
	Win w;
	interp_win_setup(&w, s, 0, size, 2, 3, 4, 5, in, out);
	TapMap tm;
	if (!tap_map(it, s, &tm, &w, in))
		return false;
	int64_t fvol = dims_volume(size, in->rank);
	const real *x = in->data;
	int64_t *y = out->data;
	for (size_t q = 0; q < out->count; q++, next_pos(pos, out->dims, out->rank)) {
		real best = 0;
		int64_t bj = 0;
		bool found = false;
		for (int64_t jj = 0; jj < fvol; jj++) {
			int64_t off = tap_offset(&tm, &w, pos, jj);
			if (off < 0 && w.border == BORDER_IGNORE)
				continue;
			real v = off < 0 ? 0 : x[off];
			if (!found || v > best) {
				best = v;
				bj = jj;
				found = true;
			}
		}
		y[q] = bj;
	}
	interp_release(it, tm.store);
	return true;
}

/* An index of the window must lie in [0, fvol). */
static bool index_ok(Interp *it, const Step *s, const ITensor *ix,
		     int64_t fvol)
{
	const int64_t *v = ix->data;
	for (size_t q = 0; q < ix->count; q++)
		if (v[q] < 0 || v[q] >= fvol) {
			interp_fail(it, s, DIAG_E1301, "%s: index %lld (item %zu) is outside the window's %lld positions", s->op->frag->name, (long long)v[q], q, (long long)fvol);
			return false;
		}
	return true;
}

/* The window of sample or desample (size 2, border 3, padding 4, stride
 * 5, dilation 6) over `up` (the windowed tensor) giving `down`, its taps,
 * and the indices (input 1) checked against the window's volume. */
static bool sample_setup(Interp *it, const Step *s, Win *w,
				TapMap *tm, const ITensor *up,
				const ITensor *down)
{
	int64_t size[INTERP_MAX_RANK];
	for (size_t d = 0; d < up->rank; d++)
		size[d] = karg_item(s, 2, d);
	interp_win_setup(w, s, 0, size, 3, 4, 5, 6, up, down);
	return index_ok(it, s, s->in[1].t, dims_volume(size, up->rank)) &&
	       tap_map(it, s, tm, w, up);
}

/* sample: input 0, index 1, size 2, border 3, padding 4, stride 5,
 * dilation 6: output[i] = input~[i * s + index[i] * d - p]. */
bool TWIN(kern_sample_f32, kern_sample_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	ITensor *out = s->out[0];
	int64_t pos[INTERP_MAX_RANK] = { 0 };
	Win w;
	TapMap tm;
	if (!sample_setup(it, s, &w, &tm, in, out))
		return false;
	const real *x = in->data;
	const int64_t *index = ix->data;
	real *y = out->data;
	for (size_t q = 0; q < out->count; q++, next_pos(pos, out->dims, out->rank)) {
		int64_t off = tap_offset(&tm, &w, pos, index[q]);
		y[q] = off < 0 ? 0 : x[off];
	}
	interp_release(it, tm.store);
	return true;
}

/* desample: input 0, index 1, size 2, border 3, padding 4, stride 5,
 * dilation 6, output_shape 7: each input value is added at the position
 * its index names (the spec's sum over the taps j with index = j). */
bool TWIN(kern_desample_f32, kern_desample_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	ITensor *out = s->out[0];
	int64_t pos[INTERP_MAX_RANK] = { 0 };
	Win w;
	TapMap tm;
	if (!sample_setup(it, s, &w, &tm, out, in))
		return false;
	const real *x = in->data;
	const int64_t *index = ix->data;
	real *y = out->data;
	memset(y, 0, out->count * sizeof(real));
	for (size_t q = 0; q < in->count; q++, next_pos(pos, in->dims, in->rank)) {
		int64_t off = tap_offset(&tm, &w, pos, index[q]);
		if (off >= 0)
			y[off] += x[q];
	}
	interp_release(it, tm.store);
	return true;
}

/* ---- 4.3.4 multilinear_upsample ---------------------------------------------------------- */

/* Output index i of factor f reads input positions j and j + 1 (of x)
 * with weights 1 - u and u, j and u by the method (spec 4.3.4). */
static void upsample_point(int64_t i, int64_t f, int64_t x, int method,
			   int64_t *j, double *u)
{
	double t;
	if (method == 2) { /* aligned */
		if (x == 1) {
			*j = 0;
			*u = 0;
			return;
		}
		double g = (double)(x * f - 1) / (double)(x - 1);
		t = (double)i / g;
	} else if (method == 1) { /* symmetric */
		t = ((double)i - (double)(f - 1) / 2) / (double)f;
	} else {
		t = (double)i / (double)f;
	}
	double fl = floor(t);
	*j = (int64_t)fl;
	*u = t - fl;
}

/* multilinear_upsample: input 0, factor 1, method 2, border 3; one pass
 * per spatial dimension. */
bool TWIN(kern_upsample_f32, kern_upsample_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int method = interp_karg_is(s, 2, "aligned") ? 2 : interp_karg_is(s, 2, "symmetric") ? 1 : 0;
	Border border = interp_border_of(s, 3);
	int64_t dims[INTERP_MAX_RANK];
	size_t R = in->rank;
	for (size_t d = 0; d < R; d++)
		dims[d] = in->dims[d];
	const real *cur = in->data;
	real *buf = NULL;
	for (size_t a = 2; a < R; a++) {
		int64_t f = karg_item(s, 1, a - 2), x = dims[a], X = x * f;
		int64_t outer = dims_volume(dims, a), inner = dims_volume(dims + a + 1, R - a - 1);
		real *next = interp_scratch(it, s, (size_t)(outer * X * inner), sizeof(real));
		if (!next) {
			interp_release(it, buf);
			return false;
		}
		for (int64_t i = 0; i < X; i++) {
			int64_t j;
			double u;
			upsample_point(i, f, x, method, &j, &u);
			int64_t j0 = border_index(j, x, border), j1 = border_index(j + 1, x, border);
			real w0 = (real)(1 - u), w1 = (real)u;
			for (int64_t o = 0; o < outer; o++) {
				real *dst = next + (o * X + i) * inner;
				const real *row = cur + o * x * inner;
				for (int64_t k = 0; k < inner; k++)
					dst[k] = 0;
				if (j0 >= 0)
					for (int64_t k = 0; k < inner; k++)
						dst[k] += w0 * row[j0 * inner + k];
				if (j1 >= 0)
					for (int64_t k = 0; k < inner; k++)
						dst[k] += w1 * row[j1 * inner + k];
			}
		}
		interp_release(it, buf);
		buf = next;
		cur = next;
		dims[a] = X;
	}
	memcpy(out->data, cur, out->count * sizeof(real));
	interp_release(it, buf);
	return true;
}
