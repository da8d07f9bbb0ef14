/*
 * k_reduce.c - reductions (spec 4.4) and the region-of-interest
 * operations (4.6), compiled for float and double (interp/real.h).
 *
 * sum, max and min reduce one axis at a time (4.4: "these reductions are
 * separable"), accumulating in double whatever the precision. argmax and
 * argmin over several axes give the position in the reduced sub-tensor,
 * row-major over the reduced axes, of the first extreme value.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sum_reduce, max_reduce, min_reduce --------------------------------------------- */

/* Items read by a pass from which it is split among threads. */
#define REDUCE_PARALLEL_ITEMS 32768

/* Output items a pass computes together, each in its own accumulator:
 * along the kept inner axis, or across outer rows when the reduced axis
 * is the last (whose sums would otherwise wait on each other). */
#define REDUCE_LANES 64

/* One pass: reduces axis n of [outer, n, inner] to [outer, inner]. Its
 * source is the input (x) or the previous pass's sums (src); its result
 * the next pass's source (dst) or, the last pass, the step's (y). */
typedef struct ReducePass {
	ShapeOp op;
	const real *x;
	const double *src;
	double *dst;
	real *y;
	bool mean;
	double volume;          /* mean: the last pass divides by it */
	int64_t outer, n, inner;
} ReducePass;

/* v[r] = source item at + r * ls, r < len, in double. */
static void lanes_load(const ReducePass *p, int64_t at, int64_t ls,
		       double *v, int64_t len)
{
	if (p->x && ls == 1)
		for (int64_t r = 0; r < len; r++)
			v[r] = (double)p->x[at + r];
	else if (p->x)
		for (int64_t r = 0; r < len; r++)
			v[r] = (double)p->x[at + r * ls];
	else
		for (int64_t r = 0; r < len; r++)
			v[r] = p->src[at + r * ls];
}

static void lanes_combine(ShapeOp op, double *acc, const double *v,
			  int64_t len)
{
	if (op == SHAPE_OP_SUM_REDUCE)
		for (int64_t r = 0; r < len; r++)
			acc[r] += v[r];
	else if (op == SHAPE_OP_MAX_REDUCE)
		for (int64_t r = 0; r < len; r++)
			acc[r] = v[r] > acc[r] ? v[r] : acc[r];
	else
		for (int64_t r = 0; r < len; r++)
			acc[r] = v[r] < acc[r] ? v[r] : acc[r];
}

/* Output items q + r, r < len, of a pass, each from its n source items
 * at + r * ls + t * ts in the order of t. */
static void reduce_lanes(const ReducePass *p, int64_t at, int64_t ls,
			 int64_t ts, int64_t q, int64_t len)
{
	double acc[REDUCE_LANES], v[REDUCE_LANES];
	lanes_load(p, at, ls, acc, len);
	for (int64_t t = 1; t < p->n; t++) {
		lanes_load(p, at + t * ts, ls, v, len);
		lanes_combine(p->op, acc, v, len);
	}
	if (p->dst)
		memcpy(p->dst + q, acc, (size_t)len * sizeof(double));
	else
		for (int64_t r = 0; r < len; r++)
			p->y[q + r] = (real)(p->mean ? acc[r] / p->volume : acc[r]);
}

/* Output items [lo, hi) of a pass (item o * inner + k). */
static void reduce_range(const ReducePass *p, int64_t lo, int64_t hi)
{
	int64_t n = p->n, inner = p->inner;
	for (int64_t q = lo, len; q < hi; q += len) {
		int64_t o = q / inner, k = q % inner;
		len = inner == 1 ? hi - q : inner - k < hi - q ? inner - k : hi - q;
		if (len > REDUCE_LANES)
			len = REDUCE_LANES;
		if (inner == 1) /* lanes across rows */
			reduce_lanes(p, o * n, n, 1, q, len);
		else
			reduce_lanes(p, o * n * inner + k, 1, inner, q, len);
	}
}

static void reduce_part(void *ctx, int part, int parts)
{
	const ReducePass *p = ctx;
	int64_t items = p->outer * p->inner;
	reduce_range(p, items * part / parts, items * (part + 1) / parts);
}

/* Runs a pass, split among threads by output items when it is large:
 * each output item is reduced by one part, in the order of the axis. */
static void reduce_run(Interp *it, ReducePass *p)
{
	int64_t items = p->outer * p->inner;
	int parts = items * p->n >= REDUCE_PARALLEL_ITEMS ? interp_threads(it) : 1;
	if (parts > items)
		parts = (int)items;
	interp_parallel(it, parts, reduce_part, p);
}

/* Runs passes ps[0 .. np) from s's input to its result, through two
 * buffers of doubles; false after reporting. */
static bool reduce_passes(Interp *it, const Step *s, ReducePass *ps,
			  size_t np, double volume)
{
	double *buf[2] = { NULL, NULL };
	size_t size = (size_t)(ps[0].outer * ps[0].inner);
	for (size_t i = 0; i < 2 && i + 1 < np; i++)
		if (!(buf[i] = interp_scratch(it, s, size, sizeof(double)))) {
			interp_release(it, buf[0]);
			return false;
		}
	for (size_t i = 0; i < np; i++) {
		ps[i].op = s->op->prim;
		ps[i].x = i == 0 ? s->in[0].t->data : NULL;
		ps[i].src = i == 0 ? NULL : buf[(i - 1) % 2];
		ps[i].dst = i + 1 < np ? buf[i % 2] : NULL;
		ps[i].y = i + 1 < np ? NULL : s->out[0]->data;
		ps[i].mean = ps[i].op == SHAPE_OP_SUM_REDUCE && karg_bool(s, 2);
		ps[i].volume = volume;
		reduce_run(it, &ps[i]);
	}
	interp_release(it, buf[1]);
	interp_release(it, buf[0]);
	return true;
}

/* sum_reduce (input 0, axes 1, normalize 2), max_reduce, min_reduce:
 * one pass per axis of extent above 1, in the order of axes, each
 * accumulating in double from the previous pass's doubles; with no such
 * axis, one pass of extent 1 (a copy through double). */
bool TWIN(kern_reduce_f32, kern_reduce_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	size_t R = in->rank, naxes = karg_len(s, 1);
	int64_t dims[INTERP_MAX_RANK];
	for (size_t d = 0; d < R; d++)
		dims[d] = in->dims[d];
	if (in->count == 0) { /* nothing to reduce */
		memset(s->out[0]->data, 0, s->out[0]->count * sizeof(real));
		return true;
	}
	ReducePass ps[INTERP_MAX_RANK + 1];
	size_t np = 0;
	double volume = 1;
	for (size_t i = 0; i < naxes; i++) {
		size_t a = (size_t)karg_item(s, 1, i);
		int64_t n = dims[a];
		volume *= (double)n;
		if (n > 1) /* a distinct axis: np stays below R */
			ps[np++] = (ReducePass){ .outer = dims_volume(dims, a), .n = n,
				.inner = dims_volume(dims + a + 1, R - a - 1) };
		dims[a] = 1;
	}
	if (np == 0)
		ps[np++] = (ReducePass){ .outer = (int64_t)in->count, .n = 1, .inner = 1 };
	return reduce_passes(it, s, ps, np, volume);
}

/* argmax_reduce, argmin_reduce: input 0, axes 1. */
bool TWIN(kern_arg_reduce_f32, kern_arg_reduce_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t R = in->rank;
	bool is_max = s->op->prim == SHAPE_OP_ARGMAX_REDUCE;
	int64_t st[INTERP_MAX_RANK];
	dims_strides(in->dims, R, st);
	/* the offsets of the reduced positions, row-major over the reduced
	 * axes (out->dims is 1 along them) */
	int64_t rdims[INTERP_MAX_RANK], rst[INTERP_MAX_RANK], pos[INTERP_MAX_RANK] = { 0 };
	size_t nr = 0;
	for (size_t d = 0; d < R; d++)
		if (out->dims[d] == 1 && in->dims[d] != 1) {
			rdims[nr] = in->dims[d];
			rst[nr++] = st[d];
		}
	int64_t rvol = dims_volume(rdims, nr);
	int64_t *roff = interp_scratch(it, s, (size_t)rvol, sizeof(int64_t));
	if (!roff)
		return false;
	for (int64_t r = 0; r < rvol; r++) {
		roff[r] = 0;
		for (size_t k = 0; k < nr; k++)
			roff[r] += pos[k] * rst[k];
		for (size_t k = nr; k-- > 0;) {
			if (++pos[k] < rdims[k])
				break;
			pos[k] = 0;
		}
	}
	const real *x = in->data;
	int64_t *y = out->data;
	int64_t opos[INTERP_MAX_RANK] = { 0 };
	for (size_t q = 0; q < out->count; q++) {
		int64_t base = 0;
		for (size_t d = 0; d < R; d++)
			base += opos[d] * st[d];
		int64_t bi = 0;
		real best = x[base];
		for (int64_t r = 1; r < rvol; r++) {
			real v = x[base + roff[r]];
			if (is_max ? v > best : v < best) {
				best = v;
				bi = r;
			}
		}
		y[q] = bi;
		for (size_t d = R; d-- > 0;) {
			if (++opos[d] < out->dims[d])
				break;
			opos[d] = 0;
		}
	}
	interp_release(it, roff);
	return true;
}

/* ---- 4.6 Region-of-Interest Operations ------------------------------------------- */

/* The batch item of region n, checked. */
static bool roi_batch(Interp *it, const Step *s, int64_t n,
			     int64_t *b)
{
	const ITensor *bi = s->in[2].t, *in = s->in[0].t;
	*b = ((const int64_t *)bi->data)[n];
	if (*b >= 0 && *b < in->dims[0])
		return true;
	interp_fail(it, s, DIAG_E1301, "%s: region %lld has batch index %lld, outside [0, %lld), the input's batch", s->op->frag->name, (long long)n, (long long)*b, (long long)in->dims[0]);
	return false;
}

/* avg_roi_pool, max_roi_pool: input 0, rois 1, batch_index 2,
 * output_size 3. Coordinates are rounded (floor(v + 0.5)); a region of
 * extent r in a dimension of output size p has cells ceil(r / p) wide
 * (at least 1), strided floor(r / p); cell i starts at start + i *
 * stride. The spec's "(c_H + i * s_H, ...)" cannot mean the cell size
 * as the origin; nnefkit reads it as the region's start. Values outside
 * the input count as 0 ('constant', avg_pool's and max_pool's default
 * border); an average divides by the cell's volume. */
bool TWIN(kern_roi_pool_f32, kern_roi_pool_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *rois = s->in[1].t;
	ITensor *out = s->out[0];
	bool is_max = s->op->prim == SHAPE_OP_MAX_ROI_POOL;
	size_t m = in->rank - 2;
	int64_t N = out->dims[0], C = in->dims[1];
	int64_t ist[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, ist);
	const real *x = in->data, *r = rois->data;
	real *y = out->data;
	int64_t pvol = dims_volume(out->dims + 2, m);
	for (int64_t n = 0; n < N; n++) {
		int64_t b, start[INTERP_MAX_RANK], cell[INTERP_MAX_RANK], stride[INTERP_MAX_RANK];
		if (!roi_batch(it, s, n, &b))
			return false;
		int64_t cvol = 1;
		for (size_t k = 0; k < m; k++) {
			int64_t lo = (int64_t)floor((double)r[n * 2 * (int64_t)m + (int64_t)k] + 0.5);
			int64_t hi = (int64_t)floor((double)r[n * 2 * (int64_t)m + (int64_t)(m + k)] + 0.5);
			int64_t ext = hi > lo ? hi - lo : 0, p = out->dims[2 + k];
			start[k] = lo;
			cell[k] = ext % p ? ext / p + 1 : ext / p;
			if (cell[k] < 1)
				cell[k] = 1;
			stride[k] = ext / p;
			cvol *= cell[k];
		}
		for (int64_t c = 0; c < C; c++)
			for (int64_t q = 0; q < pvol; q++) {
				/* cell q, and each of its positions t */
				double accum = is_max ? -INFINITY : 0;
				for (int64_t t = 0; t < cvol; t++) {
					int64_t off = b * ist[0] + c * ist[1], qq = q, tt = t;
					bool inside = true;
					for (size_t k = m; k-- > 0;) {
						int64_t i = qq % out->dims[2 + k], j = tt % cell[k];
						qq /= out->dims[2 + k];
						tt /= cell[k];
						int64_t pos = start[k] + i * stride[k] + j;
						inside &= pos >= 0 && pos < in->dims[2 + k];
						off += pos * ist[2 + k];
					}
					double v = inside ? (double)x[off] : 0.0;
					accum = is_max ? (v > accum ? v : accum) : accum + v;
				}
				*y++ = (real)(is_max ? accum : accum / (double)cvol);
			}
	}
	return true;
}

/* The sample position of output index i of h in the region [lo, hi) by
 * method: those of multilinear_upsample (spec 4.3.4) with the factor
 * h / (hi - lo), shifted by lo. The region's rows are lo .. hi - 1, so
 * 'aligned' maps the first and last outputs to rows lo and hi - 1; a
 * region of one row or less (or h = 1) gives lo throughout, as
 * multilinear_upsample does for an extent of 1. */
static double roi_point(int64_t i, int64_t h, double lo, double hi,
			int method)
{
	if (method == 2) /* aligned: the ends map to the first and last rows */
		return h == 1 || hi - lo <= 1 ? lo : lo + (double)i * (hi - lo - 1) / (double)(h - 1);
	if (method == 1) /* symmetric: cell centres */
		return lo + ((double)i + 0.5) * (hi - lo) / (double)h - 0.5;
	return lo + (double)i * (hi - lo) / (double)h; /* asymmetric */
}

/* roi_resample: input 0, rois 1, batch_index 2, output_size 3, method 4.
 * The spec gives the methods' names only ("The interpolation methods are
 * the same as described in Up and Down-Sampling"); nnefkit samples
 * output index i of size h of a region [lo, hi) (input coordinates) at
 * lo + i (hi - lo) / h (asymmetric), lo + (i + 0.5) (hi - lo) / h - 0.5
 * (symmetric), lo + i (hi - lo - 1) / (h - 1) (aligned), interpolating
 * multilinearly between the nearest input positions, clamped to the
 * input (border 'replicate'). For the whole map and h a multiple of the
 * extent this is multilinear_upsample with border 'replicate'. */
bool TWIN(kern_roi_resample_f32, kern_roi_resample_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *rois = s->in[1].t;
	ITensor *out = s->out[0];
	int method = interp_karg_is(s, 4, "aligned") ? 2 : interp_karg_is(s, 4, "symmetric") ? 1 : 0;
	size_t m = in->rank - 2;
	int64_t N = out->dims[0], C = in->dims[1];
	int64_t ist[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, ist);
	const real *x = in->data, *r = rois->data;
	real *y = out->data;
	int64_t pvol = dims_volume(out->dims + 2, m);
	for (int64_t n = 0; n < N; n++) {
		int64_t b;
		if (!roi_batch(it, s, n, &b))
			return false;
		for (int64_t c = 0; c < C; c++)
			for (int64_t q = 0; q < pvol; q++) {
				int64_t j0[INTERP_MAX_RANK], j1[INTERP_MAX_RANK], qq = q;
				double u[INTERP_MAX_RANK];
				for (size_t k = m; k-- > 0;) {
					int64_t h = out->dims[2 + k], X = in->dims[2 + k];
					double lo = (double)r[n * 2 * (int64_t)m + (int64_t)k];
					double hi = (double)r[n * 2 * (int64_t)m + (int64_t)(m + k)];
					double t = roi_point(qq % h, h, lo, hi, method);
					qq /= h;
					double fl = floor(t);
					u[k] = t - fl;
					j0[k] = border_index((int64_t)fl, X, BORDER_REPLICATE);
					j1[k] = border_index((int64_t)fl + 1, X, BORDER_REPLICATE);
				}
				double v = 0;
				for (int64_t corner = 0; corner < ((int64_t)1 << m); corner++) {
					double wgt = 1;
					int64_t off = b * ist[0] + c * ist[1];
					for (size_t k = 0; k < m; k++) {
						bool up = (corner >> k) & 1;
						wgt *= up ? u[k] : 1 - u[k];
						off += (up ? j1[k] : j0[k]) * ist[2 + k];
					}
					if (wgt != 0)
						v += wgt * (double)x[off];
				}
				*y++ = (real)v;
			}
	}
	return true;
}
