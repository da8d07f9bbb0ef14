/*
 * window.c - shapes of the sliding-window operations (spec 4.3): conv and
 * deconv (4.3.1), box and debox (4.3.2), argmax_pool, sample and desample
 * (4.3.3), multilinear_upsample (4.3.4).
 *
 * Per windowed dimension, with filter size f, dilation d, stride s and
 * padding (p, q), fd = (f - 1) * d + 1 and (spec 4.3 "Output Shape
 * Calculation"):
 *   down-scaled  x = floor((p + X + q - fd) / s) + 1,  p + X + q >= fd
 *   up-scaled    X = (x - 1) * s + fd - (p + q)
 * With padding = [] the padding is computed ("Automatic Padding
 * Calculation") so that x = ceil(X / s): t = max((x - 1) * s + fd - X, 0),
 * p = floor(t / 2), q = ceil(t / 2). For the reverse operations the spec
 * leaves X open in that case (every X in ((x - 1) * s, x * s] down-scales
 * to x): nnefkit takes output_shape when given, else X = x * s.
 */
#include "shapes/shapes_internal.h"

#include <string.h>

static const char *const border4[] = { "constant", "replicate", "reflect",
				       "reflect-even", NULL };
static const char *const border5[] = { "ignore", "constant", "replicate",
				       "reflect", "reflect-even", NULL };
static const char *const border_constant[] = { "constant", NULL };

/* The parameters of one sliding-window invocation; -1 for a parameter the
 * op does not have. */
typedef struct Window {
	bool reverse;
	size_t rank;            /* of the input (and output) */
	size_t first;           /* first windowed dimension */
	const int64_t *size;    /* rank - first filter extents */
	int p_size;             /* the parameter giving size (the filter for
				   conv) */
	int p_padding, p_stride, p_dilation, p_output_shape;
} Window;

static int64_t opt_item(const ShapeCall *c, int p, size_t i, int64_t dflt)
{
	if (p < 0 || shape_len(c->args[p]) == 0)
		return dflt;
	return shape_item(c->args[p], i);
}

/* Down-scales extent X of windowed dimension i (with padding p, q);
 * *x receives the result. */
static bool down_scale(ShapeCall *c, const Window *w, size_t i, int64_t X,
		       int64_t p, int64_t q, int64_t fd, int64_t s, int64_t *x)
{
	int64_t total;
	if (!shape_add(c, w->p_padding, p, X, &total) ||
	    !shape_add(c, w->p_padding, total, q, &total))
		return false;
	if (total < fd)
		return shape_fail(c, DIAG_E0915, -1,
			       "in dimension %zu the window (%lld wide after dilation) is larger than the padded input (%s = %lld)",
			       w->first + i, (long long)fd,
			       shape_sum3(c, p, X, q), (long long)total);
	*x = (total - fd) / s + 1;
	return true;
}

/* The automatic padding of spec 4.3 for up-scaled extent X. */
static bool auto_padding(ShapeCall *c, const Window *w, int64_t X, int64_t fd,
			 int64_t s, int64_t *p, int64_t *q)
{
	int64_t x = shape_ceildiv(X, s), t;
	if (!shape_mul(c, w->p_stride, x - 1, s, &t) || !shape_add(c, -1, t, fd, &t))
		return false;
	t = t - X > 0 ? t - X : 0;
	*p = t / 2;
	*q = t - *p;
	return true;
}

/* The result extent of windowed dimension i for an input extent e known
 * only when the model runs, by the same formulas on expressions: down-
 * scaled floor((p + e + q - fd) / s) + 1, or ceil(e / s) with automatic
 * padding; up-scaled (e - 1) * s + fd - (p + q), or e * s. That the
 * window fits is checked when the model runs. */
static bool window_symbolic(ShapeCall *c, const Window *w, size_t i,
			    int64_t e, int64_t fd, int64_t *out)
{
	int64_t s = opt_item(c, w->p_stride, i, 1);
	bool auto_pad = shape_len(c->args[w->p_padding]) == 0;
	int64_t pq = 0;
	if (!auto_pad)
		pq = shape_pair(c->args[w->p_padding], i, 0) +
		     shape_pair(c->args[w->p_padding], i, 1);
	if (!w->reverse) {
		if (auto_pad)
			return shape_dim_ceil_div(c, 0, e, s, out);
		int64_t t;
		return shape_dim_offset(c, w->p_padding, e, pq - fd, &t) &&
		       shape_dim_div(c, w->p_stride, t, s, &t) &&
		       shape_dim_offset(c, -1, t, 1, out);
	}
	if (w->p_output_shape >= 0 && shape_len(c->args[w->p_output_shape]) != 0) {
		*out = shape_item(c->args[w->p_output_shape], w->first + i);
		return true;
	}
	if (auto_pad)
		return shape_dim_mul(c, w->p_stride, e, s, out);
	int64_t t;
	return shape_dim_offset(c, 0, e, -1, &t) && shape_dim_mul(c, w->p_stride, t, s, &t) &&
	       shape_dim_offset(c, w->p_padding, t, fd - pq, out);
}

/* The result extent of windowed dimension i for input extent e. */
static bool window_extent(ShapeCall *c, const Window *w, size_t i, int64_t e,
			  int64_t *out)
{
	size_t d = w->first + i;
	int64_t s = opt_item(c, w->p_stride, i, 1);
	int64_t dil = opt_item(c, w->p_dilation, i, 1);
	int64_t fd, p = 0, q = 0;
	if (dim_is_symbolic(w->size[i]))
		return shape_fail(c, DIAG_E0913, w->p_size, "the window's extent in dimension %zu is %s; it must be a number known when the model is loaded", d, shape_dim_text(c, w->size[i]));
	if (!shape_mul(c, w->p_dilation, w->size[i] - 1, dil, &fd))
		return false;
	fd += 1;
	if (dim_is_symbolic(e))
		return window_symbolic(c, w, i, e, fd, out);
	bool auto_pad = shape_len(c->args[w->p_padding]) == 0;
	if (!auto_pad) {
		p = shape_pair(c->args[w->p_padding], i, 0);
		q = shape_pair(c->args[w->p_padding], i, 1);
	}
	if (!w->reverse) {
		if (auto_pad && !auto_padding(c, w, e, fd, s, &p, &q))
			return false;
		return down_scale(c, w, i, e, p, q, fd, s, out);
	}
	int64_t X;
	bool given = w->p_output_shape >= 0 &&
		     shape_len(c->args[w->p_output_shape]) != 0;
	if (given) {
		X = shape_item(c->args[w->p_output_shape], d);
	} else if (auto_pad) {
		if (!shape_mul(c, w->p_stride, e, s, &X))
			return false;
	} else {
		/* X = (x - 1) * s + fd - (p + q) */
		int64_t pq;
		if (!shape_mul(c, w->p_stride, e - 1, s, &X) ||
		    !shape_add(c, -1, X, fd, &X) ||
		    !shape_add(c, w->p_padding, p, q, &pq))
			return false;
		if (__builtin_sub_overflow(X, pq, &X))
			return shape_fail(c, DIAG_E0929, w->p_padding,
				       "the output extent in dimension %zu exceeds 2^63 - 1",
				       d);
		if (X < 1)
			return shape_fail(c, DIAG_E0915, -1,
				       "in dimension %zu the output extent (%lld - 1) * %lld + %lld - (%lld + %lld) = %lld is not positive",
				       d, (long long)e, (long long)s,
				       (long long)fd, (long long)p,
				       (long long)q, (long long)X);
		*out = X;
		return true;
	}
	if (auto_pad && !auto_padding(c, w, X, fd, s, &p, &q))
		return false;
	if (given) {
		/* "applying the down-scaled shape calculation to
		 * output_shape must result in the shape of input" */
		int64_t x;
		if (!down_scale(c, w, i, X, p, q, fd, s, &x))
			return false;
		if (x != e)
			return shape_fail(c, DIAG_E0916, w->p_output_shape,
				       "'output_shape' item %zu is %lld, which down-scales to %lld, not to the input's %lld",
				       d, (long long)X, (long long)x,
				       (long long)e);
	}
	*out = X;
	return true;
}

/* Checks the attributes that do not depend on shapes: stride and
 * dilation items positive, output_shape items positive. */
static bool window_attrs(ShapeCall *c, const Window *w)
{
	return shape_check_items_min(c, w->p_stride, 1, DIAG_E0908) &&
	       shape_check_items_min(c, w->p_dilation, 1, DIAG_E0908) &&
	       (w->p_output_shape < 0 ||
		shape_check_items_min(c, w->p_output_shape, 1, DIAG_E0901));
}

/* Checks the lengths of padding, stride, dilation (one per windowed
 * dimension, or none) and output_shape (rank items or none). */
static bool window_lengths(ShapeCall *c, const Window *w, const char *what)
{
	size_t n = w->rank - w->first;
	return shape_check_len(c, w->p_padding, n, true, what) &&
	       shape_check_len(c, w->p_stride, n, true, what) &&
	       shape_check_len(c, w->p_dilation, n, true, what) &&
	       (w->p_output_shape < 0 ||
		shape_check_len(c, w->p_output_shape, w->rank, true,
			     "the rank of the input"));
}

/* Fills dims[first..rank) with the windowed extents of input `in`. */
static bool window_dims(ShapeCall *c, const Window *w, const Shape *in,
			int64_t *dims)
{
	for (size_t i = 0; i + w->first < w->rank; i++)
		if (!window_extent(c, w, i, in->dims[w->first + i],
				   &dims[w->first + i]))
			return false;
	return true;
}

/* ---- 4.3.1 Convolution and Deconvolution -------------------------------- */

/* "The channel dimension of bias must equal the batch dimension of filter
 * or must be singular. In all other dimensions, bias must have singular
 * shape." For deconv the output's channels are C = filter[1] * groups,
 * not filter[0]: bias is compared with the output's channel dimension,
 * which is what the sentence means for conv and the only shape that can
 * be added to a deconv's output. */
static bool check_bias(ShapeCall *c, const Shape *bias, size_t rank,
		       int64_t channels)
{
	/* tract takes a bias of one extent per output channel, [C], as the
	 * [1, C] of the spec (it removes trailing unit axes, then adds the
	 * bias per channel) */
	if (c->tract_rules && bias->rank == 1 &&
	    (bias->dims[0] == channels || bias->dims[0] == 1))
		return true;
	bool ok = bias->rank <= rank;
	for (uint32_t d = 0; d < bias->rank && ok; d++)
		ok = bias->dims[d] == 1 || (d == 1 && bias->dims[d] == channels);
	if (ok)
		return true;
	shape_fail(c, DIAG_E0914, 2, "the bias has shape ");
	shape_put_shape(c, bias);
	sb_printf(c->msg, "; it must be singular in every dimension but the channel dimension (1), which must be %lld or 1",
		  (long long)channels);
	shape_hint(c, "a bias of shape [1, %lld] fits", (long long)channels);
	return false;
}

/* Groups and channels: *outc receives the output's channels. */
static bool conv_channels(ShapeCall *c, bool reverse, const Shape *in,
			  const Shape *filter, int p_groups, int64_t *outc)
{
	int64_t groups = shape_int(c->args[p_groups]);
	int64_t inc = in->dims[1];
	if (dim_is_symbolic(inc) || dim_is_symbolic(filter->dims[0]) ||
	    dim_is_symbolic(filter->dims[1]))
		return shape_fail(c, DIAG_E0913, dim_is_symbolic(inc) ? 0 : 1, "the channels of the input (%s) and of the filter (%s, %s) must be numbers known when the model is loaded", shape_dim_text(c, inc), shape_dim_text(c, filter->dims[0]), shape_dim_text(c, filter->dims[1]));
	if (inc == 0)
		return shape_fail(c, DIAG_E0913, 0, "the input has no channels (its channel dimension is empty)");
	if (!reverse) {
		/* input (B, C, ...), filter (c, C/G, ...): output c */
		int64_t G = groups ? groups : inc;
		if (filter->dims[0] % G != 0)
			return shape_fail(c, DIAG_E0912, p_groups,
				       groups ? "groups = %lld does not divide the filter's batch dimension %lld"
					      : "with groups = 0 (one group per input channel: %lld), the filter's batch dimension %lld must be a multiple of it",
				       (long long)G, (long long)filter->dims[0]);
		int64_t want;
		if (!shape_mul(c, 1, filter->dims[1], G, &want))
			return false;
		if (want != inc)
			return shape_fail(c, DIAG_E0913, 1,
				       "the filter's channel dimension %lld times %lld group%s is %lld, but the input has %lld channels",
				       (long long)filter->dims[1], (long long)G,
				       G == 1 ? "" : "s", (long long)want,
				       (long long)inc);
		*outc = filter->dims[0];
		return true;
	}
	/* deconv: input (B, c, ...), filter (c, C/G, ...): output C. The
	 * spec's sentences are written for conv; read for the reverse
	 * mapping, the input's channels are the filter's batch dimension. */
	if (filter->dims[0] != inc)
		return shape_fail(c, DIAG_E0913, 1,
			       "the filter's batch dimension is %lld, but the input has %lld channels (deconv maps them to the filter's channel dimension)",
			       (long long)filter->dims[0], (long long)inc);
	int64_t G = groups ? groups : inc;
	if (inc % G != 0)
		return shape_fail(c, DIAG_E0912, p_groups,
			       "groups = %lld does not divide the filter's batch dimension %lld",
			       (long long)G, (long long)inc);
	return shape_mul(c, 1, filter->dims[1], G, outc);
}

/* conv and deconv: input 0, filter 1, bias 2, border 3, padding 4,
 * stride 5, dilation 6, then output_shape 7 (deconv) and groups. */
bool shape_conv(ShapeCall *c)
{
	bool reverse = c->op == SHAPE_OP_DECONV;
	int p_groups = reverse ? 8 : 7;
	Window w = { .reverse = reverse, .first = 2, .p_size = 1,
		     .p_padding = 4, .p_stride = 5, .p_dilation = 6,
		     .p_output_shape = reverse ? 7 : -1 };
	if (!shape_check_enum(c, 3, border4) || !window_attrs(c, &w))
		return false;
	if (shape_int(c->args[p_groups]) < 0)
		return shape_fail(c, DIAG_E0908, p_groups,
			       "groups is %lld; it must be non-negative (0 means one group per channel)",
			       (long long)shape_int(c->args[p_groups]));
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0), *filter = shape_in(c, 1);
	if (in->rank < 2)
		return shape_fail(c, DIAG_E0906, 0,
			       "%s has rank %u; %s needs a batch and a channel dimension (rank 2 at least)",
			       shape_role(c, 0, "the input"), in->rank, shape_op_name(c->op));
	if (filter->rank != in->rank)
		return shape_fail(c, DIAG_E0906, 1,
			       "%s has rank %u but %s has rank %u; they must be equal",
			       shape_role(c, 1, "the filter"), filter->rank, shape_role(c, 0, "the input"), in->rank);
	w.rank = in->rank;
	w.size = filter->dims + 2;
	if (!window_lengths(c, &w, "the number of spatial dimensions"))
		return false;
	int64_t outc;
	if (!conv_channels(c, reverse, in, filter, p_groups, &outc))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	dims[0] = in->dims[0];
	dims[1] = outc;
	if (!window_dims(c, &w, in, dims))
		return false;
	if (reverse && shape_len(c->args[7]) != 0) {
		const Value *os = c->args[7];
		for (int d = 0; d < 2; d++)
			if (shape_item(os, (size_t)d) != dims[d])
				return shape_fail(c, DIAG_E0916, 7,
					       "'output_shape' item %d is %lld, but the output's %s is %lld",
					       d, (long long)shape_item(os, (size_t)d),
					       d ? "channel dimension"
						 : "batch dimension",
					       (long long)dims[d]);
	}
	if (!check_bias(c, shape_in(c, 2), in->rank, outc))
		return false;
	return shape_result(c, dims, in->rank);
}

/* ---- 4.3.2 - 4.3.3 box, debox, argmax_pool, sample, desample ------------ */

/* Every dimension is windowed; size has one item per dimension. sample
 * and desample have `index` as parameter 1, which shifts the others. */
bool shape_window(ShapeCall *c)
{
	bool indexed = c->op == SHAPE_OP_SAMPLE || c->op == SHAPE_OP_DESAMPLE;
	int b = indexed ? 1 : 0;
	bool reverse = shape_op_flags(c->op) & SF_REVERSE;
	Window w = { .reverse = reverse, .first = 0, .p_size = 1 + b,
		     .p_padding = 3 + b, .p_stride = 4 + b,
		     .p_dilation = 5 + b, .p_output_shape = reverse ? 6 + b : -1 };
	/* 4.3.3 lists for sample only 'constant', 'replicate', 'reflect' and
	 * 'reflect-even', yet max_pool (4.9.3) passes its border to sample,
	 * and border = 'ignore' is the usual max_pool (the conformance cases
	 * use it). The spec contradicts itself; nnefkit accepts 'ignore' for
	 * sample: with the indices argmax_pool computes under 'ignore', no
	 * border position is ever sampled. */
	const char *const *borders = c->op == SHAPE_OP_DESAMPLE ? border_constant
								 : border5;
	if (!shape_check_items_min(c, w.p_size, 1, DIAG_E0908) ||
	    !shape_check_enum(c, 2 + b, borders) || !window_attrs(c, &w))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	w.rank = in->rank;
	if (!shape_check_len(c, w.p_size, in->rank, false, "the rank of the input") ||
	    !window_lengths(c, &w, "the rank of the input"))
		return false;
	const Value *size = c->args[w.p_size];
	int64_t *fs = shape_dims(c, in->rank);
	for (size_t i = 0; i < in->rank; i++)
		fs[i] = shape_item(size, i);
	w.size = fs;
	int64_t *dims = shape_dims(c, in->rank);
	if (!window_dims(c, &w, in, dims))
		return false;
	if (indexed) {
		/* "The shape of index must be the same as that of output for
		 * sample and that of input for desample." */
		Shape out = { dims, in->rank, true };
		const Shape *want = reverse ? in : &out;
		const Shape *index = shape_in(c, 1);
		if (!shape_equal(index, want)) {
			shape_fail(c, DIAG_E0927, 1, "the index has shape ");
			shape_put_shape(c, index);
			sb_printf(c->msg, "; it must have the shape of the %s, ",
				  reverse ? "input" : "output");
			shape_put_shape(c, want);
			return false;
		}
	}
	return shape_result(c, dims, in->rank);
}

/* ---- 4.3.4 Up and Down-Sampling ------------------------------------------ */

/* multilinear_upsample: input 0, factor 1, method 2, border 3. "For
 * up-sampling, X = x * f" in each spatial dimension. */
bool shape_upsample(ShapeCall *c)
{
	static const char *const methods[] = { "asymmetric", "symmetric",
					       "aligned", NULL };
	if (!shape_check_items_min(c, 1, 1, DIAG_E0908) ||
	    !shape_check_enum(c, 2, methods) || !shape_check_enum(c, 3, border4))
		return false;
	if (!c->known)
		return shape_unknown(c);
	const Shape *in = shape_in(c, 0);
	if (in->rank < 2)
		return shape_fail(c, DIAG_E0906, 0,
			       "%s has rank %u; multilinear_upsample needs a batch and a channel dimension",
			       shape_role(c, 0, "the input"), in->rank);
	if (!shape_check_len(c, 1, in->rank - 2, false,
			  "the number of spatial dimensions"))
		return false;
	int64_t *dims = shape_dims(c, in->rank);
	dims[0] = in->dims[0];
	dims[1] = in->dims[1];
	for (size_t d = 2; d < in->rank; d++)
		if (!shape_mul(c, 1, in->dims[d], shape_item(c->args[1], d - 2),
			    &dims[d]))
			return false;
	return shape_result(c, dims, in->rank);
}
