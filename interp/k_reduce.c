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

/* sum_reduce (input 0, axes 1, normalize 2), max_reduce, min_reduce. */
bool TWIN(kern_reduce_f32, kern_reduce_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	ShapeOp op = s->op->prim;
	size_t R = in->rank, naxes = karg_len(s, 1);
	int64_t dims[INTERP_MAX_RANK];
	for (size_t d = 0; d < R; d++)
		dims[d] = in->dims[d];
	double *cur = interp_scratch(it, s, in->count, sizeof(double));
	if (!cur)
		return false;
	const real *x = in->data;
	for (size_t i = 0; i < in->count; i++)
		cur[i] = x[i];
	double volume = 1;
	for (size_t i = 0; i < naxes; i++) {
		size_t a = (size_t)karg_item(s, 1, i);
		int64_t outer = dims_volume(dims, a), n = dims[a];
		int64_t inner = dims_volume(dims + a + 1, R - a - 1);
		volume *= (double)n;
		for (int64_t o = 0; o < outer; o++) {
			double *dst = cur + o * inner;
			const double *src = cur + o * n * inner;
			if (dst != src)
				memmove(dst, src, (size_t)inner * sizeof(double));
			for (int64_t j = 1; j < n; j++) {
				const double *row = src + j * inner;
				if (op == SHAPE_OP_SUM_REDUCE)
					for (int64_t k = 0; k < inner; k++)
						dst[k] += row[k];
				else if (op == SHAPE_OP_MAX_REDUCE)
					for (int64_t k = 0; k < inner; k++)
						dst[k] = row[k] > dst[k] ? row[k] : dst[k];
				else
					for (int64_t k = 0; k < inner; k++)
						dst[k] = row[k] < dst[k] ? row[k] : dst[k];
			}
		}
		dims[a] = 1;
	}
	bool mean = op == SHAPE_OP_SUM_REDUCE && karg_bool(s, 2);
	real *y = out->data;
	for (size_t i = 0; i < out->count; i++)
		y[i] = (real)(mean ? cur[i] / volume : cur[i]);
	interp_release(it, cur);
	return true;
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

/* The sample position of output index i of h in [lo, hi] by method. */
static double roi_point(int64_t i, int64_t h, double lo, double hi,
			int method)
{
	if (method == 2) /* aligned: the ends map to the ends */
		return h == 1 ? lo : lo + (double)i * (hi - lo) / (double)(h - 1);
	if (method == 1) /* symmetric: cell centres */
		return lo + ((double)i + 0.5) * (hi - lo) / (double)h - 0.5;
	return lo + (double)i * (hi - lo) / (double)h; /* asymmetric */
}

/* roi_resample: input 0, rois 1, batch_index 2, output_size 3, method 4.
 * The spec gives the methods' names only ("The interpolation methods are
 * the same as described in Up and Down-Sampling"); nnefkit samples
 * output index i of size h of a region [lo, hi] (input coordinates) at
 * lo + i (hi - lo) / h (asymmetric), lo + (i + 0.5) (hi - lo) / h - 0.5
 * (symmetric), lo + i (hi - lo) / (h - 1) (aligned), interpolating
 * multilinearly between the nearest input positions, clamped to the
 * input (border 'replicate'). */
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
