/*
 * k_tract_io.c - kernels of tract's operations: sources, casts, shapes and nested graphs (k_tract_io.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <string.h>

/* tract_core_cast(input, to): each item converted as Rust's `as` converts
 * it (tract's casts between numbers): floats truncated toward zero and
 * saturated to an integer type's range, integers wrapped to their width,
 * anything non-zero true; to a float, rounded to its precision. The
 * executor then holds the result in its datum type (f16 rounding, integer
 * wrapping). */
bool TWIN(kern_tract_cast_f32, kern_tract_cast_f64)(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	DType to = (DType)out->datum;
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
			yi[i] = in->dtype == TY_SCALAR ? dtype_real_to(to, (double)xr[i])
			      : in->dtype == TY_INTEGER ? xi[i] : (int64_t)xl[i];
		else
			yl[i] = in->dtype == TY_SCALAR ? xr[i] != 0
			      : in->dtype == TY_INTEGER ? xi[i] != 0 : xl[i];
	}
	return true;
}

#if INTERP_REAL == 32
/* tract_core_shape_of(input): input's extents, as integers (all known
 * when the step runs: every shape is bound before the run). */
bool kern_tract_shape_of(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *in = s->in[0].t;
	int64_t *y = s->out[0]->data;
	for (uint32_t d = 0; d < in->rank; d++)
		y[d] = in->dims[d];
	return true;
}
#endif

#if INTERP_REAL == 32
/* tract_onnx_non_zero(input): the coordinates of input's non-zero items,
 * one column per item in row-major order ([rank, count], i64; ONNX's
 * NonZero). Its shape is known when it runs (dynamic.c). */
bool kern_tract_non_zero(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t *y = out->data;
	size_t n = out->count / (in->rank ? in->rank : 1), j = 0;
	int64_t idx[INTERP_MAX_RANK] = { 0 };
	for (size_t i = 0; i < in->count; i++) {
		if (interp_value(it, in, i) != 0.0 && j < n) {
			for (uint32_t d = 0; d < in->rank; d++)
				y[d * n + j] = idx[d];
			j++;
		}
		for (uint32_t d = in->rank; d-- > 0;) /* the next coordinate */
			if (++idx[d] < in->dims[d])
				break;
			else
				idx[d] = 0;
	}
	return true;
}
#endif
