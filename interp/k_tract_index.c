/*
 * k_tract_index.c - kernels of tract's operations: gathers, scatters, selections and reductions (k_tract_index.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 *
 * Indices are read as tract casts them: to i64 (gather, gather_elements,
 * scatter_elements, scatter_nd, trilu's k), then to i32 (gather_nd), or
 * straight to i32 (one_hot); reals truncate toward zero and saturate, NaN
 * gives 0 (Rust's `as`). gather, gather_elements, scatter_elements and
 * one_hot count a negative index from the end; gather_nd and scatter_nd
 * do not (tract fails on it). An index out of range is E1301.
 *
 * Kernels that only move items (KERNEL_ANY rows) are compiled once, in
 * the float compilation; the others (KERNEL rows) twice (interp/real.h).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if INTERP_REAL == 32
#define REAL_MAX FLT_MAX
#else
#define REAL_MAX DBL_MAX
#endif

/* ---- shared helpers --------------------------------------------------------------- */

static inline size_t esz(const Interp *it, const ITensor *t)
{
	return interp_item_size(it, t->dtype);
}

/* Rust's `x as i64`: truncation toward zero, saturating; NaN is 0. */
static inline int64_t sat_i64(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* Item i of t cast to i64 as tract casts indices. */
static inline int64_t index_i64(const Interp *it, const ITensor *t, size_t i)
{
	if (t->dtype == TY_INTEGER)
		return ((const int64_t *)t->data)[i];
	return sat_i64(interp_value(it, t, i));
}

/* An i64 wrapped to i32 (Rust's `as i32`). */
static inline int64_t wrap_i32(int64_t x)
{
	return (int32_t)(uint32_t)(uint64_t)x;
}

/* Item i of t cast straight to i32: integers wrap, reals saturate. */
static inline int64_t index_i32(const Interp *it, const ITensor *t, size_t i)
{
	if (t->dtype == TY_INTEGER)
		return wrap_i32(((const int64_t *)t->data)[i]);
	double x = interp_value(it, t, i);
	if (x != x)
		return 0;
	return x >= 2147483647.0 ? INT32_MAX : x <= -2147483648.0 ? INT32_MIN : (int64_t)x;
}

/* Index *k along an extent n, a negative one counted from the end;
 * false when outside. */
static inline bool wrap_index(int64_t *k, int64_t n)
{
	if (*k < 0)
		*k += n;
	return *k >= 0 && *k < n;
}

/* The next row-major position pos of dims[0..rank). */
static inline void next_pos(int64_t *pos, const int64_t *dims, size_t rank)
{
	for (size_t d = rank; d-- > 0;) {
		if (++pos[d] < dims[d])
			return;
		pos[d] = 0;
	}
}

/* Copies the item at src[si] of tensor `from` into out[oi], converted to
 * out's data type when the two differ. */
static inline void put_item(const Interp *it, ITensor *out, size_t oi,
			    const ITensor *from, size_t si)
{
	if (from->dtype == out->dtype) {
		size_t es = esz(it, out);
		memcpy((char *)out->data + oi * es, (const char *)from->data + si * es, es);
		return;
	}
	double x = interp_value(it, from, si);
	if (out->dtype == TY_INTEGER)
		((int64_t *)out->data)[oi] = sat_i64(x);
	else if (out->dtype == TY_LOGICAL)
		((uint8_t *)out->data)[oi] = x != 0;
	else if (it->rsize == sizeof(float))
		((float *)out->data)[oi] = (float)x;
	else
		((double *)out->data)[oi] = x;
}

/* out = from, item by item (converted when the types differ). */
static inline void copy_items(const Interp *it, ITensor *out, const ITensor *from)
{
	if (from->dtype == out->dtype) {
		memcpy(out->data, from->data, out->count * esz(it, out));
		return;
	}
	for (size_t i = 0; i < out->count; i++)
		put_item(it, out, i, from, i);
}

/* Fails (E1301) when an axis other than `axis` of the indices ix is longer
 * than the input's: a position of the indices names an item there. */
static inline bool indices_fit(Interp *it, const Step *s, const ITensor *in,
			       const ITensor *ix, size_t axis)
{
	if (ix->count == 0)
		return true;
	for (size_t d = 0; d < in->rank; d++)
		if (d != axis && ix->dims[d] > in->dims[d]) {
			interp_fail(it, s, DIAG_E1301, "%s: the indices have extent %lld along axis %zu, beyond the input's %lld: their positions there are indices too", s->op->frag->name, (long long)ix->dims[d], d, (long long)in->dims[d]);
			return false;
		}
	return true;
}

/* Attribute p as a number: the tensor the executor passes for it, or its
 * literal value. */
static inline bool attr_number(Interp *it, const Step *s, size_t p,
			       int64_t *i, double *x)
{
	const ITensor *t = s->in[p].t;
	const Value *v = karg(s, p);
	if (t && t->data && t->count == 1) {
		*i = index_i64(it, t, 0);
		*x = interp_value(it, t, 0);
	} else if (v->kind == VAL_INT) {
		*i = v->u.i;
		*x = (double)v->u.i;
	} else if (v->kind == VAL_SCALAR) {
		*i = sat_i64(v->u.s);
		*x = v->u.s;
	} else if (v->kind == VAL_BOOL) {
		*i = v->u.b;
		*x = v->u.b;
	} else {
		interp_fail(it, s, DIAG_E1302, "%s: '%s' is not a number known when the graph runs", s->op->frag->name, s->op->frag->params[p].name);
		return false;
	}
	return true;
}

/* The scatters' reduction: the argument `reduction` when the declaration
 * has it (tract's newer registries), else none. */
typedef enum Reduction {
	RED_NONE,
	RED_ADD,
	RED_MUL,
	RED_MIN,
	RED_MAX,
} Reduction;

static inline bool reduction_of(Interp *it, const Step *s, Reduction *r)
{
	static const char *const names[] = { "none", "add", "mul", "min", "max" };
	const SemaFrag *f = s->op->frag;
	*r = RED_NONE;
	for (size_t p = 0; p < f->nparams; p++) {
		if (strcmp(f->params[p].name, "reduction") != 0)
			continue;
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (interp_karg_is(s, p, names[k])) {
				*r = (Reduction)k;
				return true;
			}
		interp_fail(it, s, DIAG_E1302, "%s: reduction '%.*s' is not one of tract's: none, add, mul, min, max", f->name, (int)karg(s, p)->n, karg(s, p)->u.str);
		return false;
	}
	return true;
}

/* ---- gathers, trilu, broadcast, dyn_slice, downsample, force_eval: items of any type - */

#if INTERP_REAL == 32

/* Fills out (contiguous, rank dims) item by item from src at offset
 * base plus sum(i_d * ist[d]) (strides in items, maybe 0 or negative). */
static inline void strided_copy(void *out, const void *src, const int64_t *dims,
				size_t rank, int64_t base, const int64_t *ist,
				size_t es)
{
	int64_t pos[INTERP_MAX_RANK] = { 0 }, off = base;
	int64_t n = dims_volume(dims, rank);
	char *o = out;
	const char *x = src;
	for (int64_t i = 0; i < n; i++) {
		memcpy(o + i * (int64_t)es, x + off * (int64_t)es, es);
		for (size_t d = rank; d-- > 0;) {
			off += ist[d];
			if (++pos[d] < dims[d])
				break;
			off -= ist[d] * dims[d];
			pos[d] = 0;
		}
	}
}

/* gather(input 0, indices 1, axis 2): out[i.., j.., k..] =
 * input[i.., indices[j..], k..]; a negative index adds the extent. */
bool kern_tract_gather(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	size_t axis = (size_t)karg_int(s, 2), es = esz(it, in);
	int64_t n = in->dims[axis], outer = dims_volume(in->dims, axis);
	size_t inner = (size_t)dims_volume(in->dims + axis + 1, in->rank - axis - 1) * es;
	int64_t *k = interp_scratch(it, s, ix->count, sizeof(int64_t));
	if (!k)
		return false;
	for (size_t j = 0; j < ix->count; j++) {
		int64_t raw = index_i64(it, ix, j);
		k[j] = raw;
		if (!wrap_index(&k[j], n)) {
			interp_release(it, k);
			interp_fail(it, s, DIAG_E1301, "tract_core_gather: index %lld (item %zu of the indices) is outside [-%lld, %lld), the extent of axis %zu of the input", (long long)raw, j, (long long)n, (long long)n, axis);
			return false;
		}
	}
	char *o = s->out[0]->data;
	const char *x = in->data;
	for (int64_t p = 0; p < outer; p++)
		for (size_t j = 0; j < ix->count; j++) {
			memcpy(o, x + ((size_t)p * (size_t)n + (size_t)k[j]) * inner, inner);
			o += inner;
		}
	interp_release(it, k);
	return true;
}

/* gather_elements(input 0, indices 1, axis 2): out[p] = input[p with
 * p[axis] = indices[p]]; out has the indices' shape. */
bool kern_tract_gather_elements(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	size_t axis = (size_t)karg_int(s, 2), es = esz(it, in), R = in->rank;
	if (!indices_fit(it, s, in, ix, axis))
		return false;
	int64_t st[INTERP_MAX_RANK], pos[INTERP_MAX_RANK] = { 0 };
	dims_strides(in->dims, R, st);
	char *o = s->out[0]->data;
	const char *x = in->data;
	for (size_t j = 0; j < ix->count; j++, next_pos(pos, ix->dims, R)) {
		int64_t raw = index_i64(it, ix, j), k = raw, off = 0;
		if (!wrap_index(&k, in->dims[axis])) {
			interp_fail(it, s, DIAG_E1301, "tract_core_gather_elements: index %lld (item %zu of the indices) is outside [-%lld, %lld), the extent of axis %zu of the input", (long long)raw, j, (long long)in->dims[axis], (long long)in->dims[axis], axis);
			return false;
		}
		for (size_t d = 0; d < R; d++)
			off += (d == axis ? k : pos[d]) * st[d];
		memcpy(o + j * es, x + (size_t)off * es, es);
	}
	return true;
}

/* gather_nd(input 0, indices 1, batch_dims 2): ONNX GatherND. Within
 * each batch item, each index tuple (the indices' last axis, k items)
 * selects the slice input[t0, .., tk-1, ...]. tract casts the indices to
 * i32 and does not count negative ones from the end. */
bool kern_tract_gather_nd(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	size_t b = (size_t)karg_int(s, 2), q = ix->rank, es = esz(it, in);
	size_t k = (size_t)ix->dims[q - 1], R = in->rank;
	int64_t batch = dims_volume(in->dims, b);
	int64_t rem = dims_volume(ix->dims + b, q - 1 - b);
	int64_t slice = dims_volume(in->dims + b + k, R - b - k);
	int64_t per_batch = dims_volume(in->dims + b, R - b);
	int64_t st[INTERP_MAX_RANK];
	for (size_t j = 0; j < k; j++)
		st[j] = dims_volume(in->dims + b + j + 1, R - b - j - 1);
	char *o = s->out[0]->data;
	const char *x = in->data;
	for (int64_t bt = 0; bt < batch; bt++)
		for (int64_t r = 0; r < rem; r++) {
			size_t first = (size_t)(bt * rem + r) * k;
			int64_t off = bt * per_batch;
			for (size_t j = 0; j < k; j++) {
				int64_t c = wrap_i32(index_i64(it, ix, first + j));
				if (c < 0 || c >= in->dims[b + j]) {
					interp_fail(it, s, DIAG_E1301, "tract_core_gather_nd: index %lld (item %zu of the indices) is outside [0, %lld), the extent of axis %zu of the input (tract counts no negative index from the end here)", (long long)c, first + j, (long long)in->dims[b + j], b + j);
					return false;
				}
				off += c * st[j];
			}
			memcpy(o, x + (size_t)off * es, (size_t)slice * es);
			o += (size_t)slice * es;
		}
	return true;
}

/* trilu(input 0, k 1, upper 2): on the last two axes (row i, column j),
 * upper keeps j - i >= k, lower keeps j - i <= k; the rest is zero. */
bool kern_tract_trilu(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t es = esz(it, in), R = in->rank;
	bool upper = karg_bool(s, 2);
	int64_t rows = in->dims[R - 2], cols = in->dims[R - 1];
	int64_t k = index_i64(it, s->in[1].t, 0), lim = rows + cols;
	k = k > lim ? lim : k < -lim ? -lim : k;
	memcpy(out->data, in->data, out->count * es);
	int64_t mats = dims_volume(in->dims, R - 2);
	char *o = out->data;
	for (int64_t m = 0; m < mats; m++)
		for (int64_t i = 0; i < rows; i++, o += cols * (int64_t)es) {
			/* the zeroed columns: [0, i + k) or (i + k, cols) */
			int64_t lo = upper ? 0 : i + k + 1, hi = upper ? i + k : cols;
			lo = lo < 0 ? 0 : lo;
			hi = hi > cols ? cols : hi;
			if (lo < hi)
				memset(o + lo * (int64_t)es, 0, (size_t)(hi - lo) * es);
		}
	return true;
}

/* broadcast(input 0, shape 1): numpy's broadcast to the result's shape
 * (leading axes added to the input, extents of 1 repeated). */
bool kern_tract_broadcast(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t R = out->rank, r = in->rank;
	int64_t st[INTERP_MAX_RANK], ist[INTERP_MAX_RANK];
	dims_strides(in->dims, r, st);
	for (size_t d = 0; d < R; d++) {
		size_t j = d + r - R;
		ist[d] = d + r < R || in->dims[j] == 1 ? 0 : st[j];
	}
	if (out->count)
		strided_copy(out->data, in->data, out->dims, R, 0, ist, esz(it, in));
	return true;
}

/* dyn_slice(input 0, start 1, end 2, len 3, axis 4): input[.., start:end,
 * ..] along axis; tract requires 0 <= start <= end <= extent and end -
 * start = len. */
bool kern_tract_dyn_slice(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 4);
	int64_t start, end;
	double unused;
	if (!attr_number(it, s, 1, &start, &unused) || !attr_number(it, s, 2, &end, &unused))
		return false;
	int64_t d = in->dims[axis], len = out->dims[axis];
	if (start < 0 || end < start || end > d) {
		interp_fail(it, s, DIAG_E1301, "tract_core_dyn_slice: the slice from %lld to %lld along axis %zu is not within [0, %lld], the input's extent", (long long)start, (long long)end, axis, (long long)d);
		return false;
	}
	if (end - start != len) {
		interp_fail(it, s, DIAG_E1301, "tract_core_dyn_slice: the slice from %lld to %lld along axis %zu holds %lld items, not len = %lld", (long long)start, (long long)end, axis, (long long)(end - start), (long long)len);
		return false;
	}
	int64_t st[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, st);
	if (out->count)
		strided_copy(out->data, in->data, out->dims, out->rank, start * st[axis], st, esz(it, in));
	return true;
}

/* downsample(input 0, axis 1, stride 2, modulo 3): along axis, the items
 * modulo, modulo + stride, ...; a negative stride walks [modulo, extent)
 * backwards from its last item (ndarray's slice with a negative step). */
bool kern_tract_downsample(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 1);
	int64_t stride = karg_int(s, 2), modulo = karg_int(s, 3);
	if (out->count == 0)
		return true;
	int64_t st[INTERP_MAX_RANK], ist[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, st);
	for (size_t d = 0; d < in->rank; d++)
		ist[d] = st[d];
	ist[axis] = stride * st[axis];
	int64_t first = stride > 0 ? modulo : in->dims[axis] - 1;
	strided_copy(out->data, in->data, out->dims, out->rank, first * st[axis], ist, esz(it, in));
	return true;
}

/* force_eval(inputs 0, slots 1): tract evaluates every input and passes
 * on those not listed in slots; the result is the first of them. */
bool kern_tract_force_eval(Interp *it, const Step *s)
{
	ITensor *out = s->out[0];
	size_t j = 0, n = s->in[0].n;
	for (; j < n; j++) {
		bool listed = false;
		for (size_t i = 0; i < karg_len(s, 1); i++)
			listed |= karg_item(s, 1, i) == (int64_t)j;
		if (!listed)
			break;
	}
	if (j == n)
		j = 0;
	const ITensor *in = s->in[0].items[j];
	if (in->count != out->count || in->dtype != out->dtype) {
		interp_fail(it, s, DIAG_E1302, "tract_core_force_eval: input %zu, which tract passes on, does not have the result's shape and type (those of input 0)", j);
		return false;
	}
	memcpy(out->data, in->data, out->count * esz(it, out));
	return true;
}

#endif /* INTERP_REAL == 32 */

/* ---- scatters: kernels with arithmetic (the reductions) -------------------------- */

/* out[oi] combined with item ui of updates by r (tract's: a NaN never
 * wins a min or max; integers wrap). */
static void combine(Interp *it, ITensor *out, size_t oi,
			   const ITensor *up, size_t ui, Reduction r)
{
	if (r == RED_NONE || out->dtype == TY_LOGICAL) {
		put_item(it, out, oi, up, ui);
	} else if (out->dtype == TY_INTEGER) {
		int64_t *d = (int64_t *)out->data + oi;
		int64_t u = index_i64(it, up, ui);
		if (r == RED_ADD)
			*d = (int64_t)((uint64_t)*d + (uint64_t)u);
		else if (r == RED_MUL)
			*d = (int64_t)((uint64_t)*d * (uint64_t)u);
		else if (r == RED_MIN ? u < *d : u > *d)
			*d = u;
	} else {
		real *d = (real *)out->data + oi;
		real u = (real)interp_value(it, up, ui);
		if (r == RED_ADD)
			*d += u;
		else if (r == RED_MUL)
			*d *= u;
		else if (r == RED_MIN ? u < *d : u > *d)
			*d = u;
	}
}

/* Checks that reduction r applies to the result's type (tract reduces
 * numbers only). */
static bool numbers_only(Interp *it, const Step *s, Reduction r)
{
	if (r == RED_NONE || s->out[0]->dtype != TY_LOGICAL)
		return true;
	interp_fail(it, s, DIAG_E1302, "%s: a reduction other than 'none' needs numbers, not logicals", s->op->frag->name);
	return false;
}

/* scatter_elements(input 0, indices 1, updates 2, axis 3): out = input,
 * then for each position p of updates (row-major), out[p with p[axis] =
 * indices[p]] = updates[p] (or combined by the reduction); a negative
 * index adds the extent; the last write wins. */
bool TWIN(kern_tract_scatter_elements_f32, kern_tract_scatter_elements_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t, *up = s->in[2].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 3), R = in->rank;
	Reduction r;
	if (!reduction_of(it, s, &r) || !numbers_only(it, s, r) || !indices_fit(it, s, in, ix, axis))
		return false;
	copy_items(it, out, in);
	int64_t st[INTERP_MAX_RANK], pos[INTERP_MAX_RANK] = { 0 };
	dims_strides(in->dims, R, st);
	for (size_t j = 0; j < ix->count; j++, next_pos(pos, ix->dims, R)) {
		int64_t raw = index_i64(it, ix, j), k = raw, off = 0;
		if (!wrap_index(&k, in->dims[axis])) {
			interp_fail(it, s, DIAG_E1301, "tract_core_scatter_elements: index %lld (item %zu of the indices) is outside [-%lld, %lld), the extent of axis %zu of the input", (long long)raw, j, (long long)in->dims[axis], (long long)in->dims[axis], axis);
			return false;
		}
		for (size_t d = 0; d < R; d++)
			off += (d == axis ? k : pos[d]) * st[d];
		combine(it, out, (size_t)off, up, j, r);
	}
	return true;
}

/* scatter_nd(input 0, indices 1, updates 2): ONNX ScatterND: out = input,
 * then for each index tuple t (the indices' last axis, k items; in
 * row-major order) the slice out[t0, .., tk-1, ...] = the matching slice
 * of updates (or combined by the reduction). No negative index counts
 * from the end. */
bool TWIN(kern_tract_scatter_nd_f32, kern_tract_scatter_nd_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t, *up = s->in[2].t;
	ITensor *out = s->out[0];
	Reduction r;
	if (!reduction_of(it, s, &r) || !numbers_only(it, s, r))
		return false;
	copy_items(it, out, in);
	size_t q = ix->rank, k = (size_t)ix->dims[q - 1], R = in->rank;
	int64_t rows = dims_volume(ix->dims, q - 1);
	int64_t slice = dims_volume(in->dims + k, R - k);
	int64_t st[INTERP_MAX_RANK];
	dims_strides(in->dims, R, st);
	for (int64_t t = 0; t < rows; t++) {
		int64_t off = 0;
		for (size_t j = 0; j < k; j++) {
			size_t item = (size_t)t * k + j;
			int64_t c = index_i64(it, ix, item);
			if (c < 0 || c >= in->dims[j]) {
				interp_fail(it, s, DIAG_E1301, "tract_core_scatter_nd: index %lld (item %zu of the indices) is outside [0, %lld), the extent of axis %zu of the input (tract counts no negative index from the end here)", (long long)c, item, (long long)in->dims[j], j);
				return false;
			}
			off += c * st[j];
		}
		for (int64_t e = 0; e < slice; e++)
			combine(it, out, (size_t)(off + e), up, (size_t)(t * slice + e), r);
	}
	return true;
}

/* ---- one_hot, range ------------------------------------------------------------------ */

/* Value v (an attribute) stored as item i of t. */
static void put_value(ITensor *t, size_t i, const Value *v)
{
	double x = v->kind == VAL_INT ? (double)v->u.i : v->kind == VAL_BOOL ? (double)v->u.b : v->u.s;
	if (t->dtype == TY_INTEGER)
		((int64_t *)t->data)[i] = v->kind == VAL_INT ? v->u.i : sat_i64(x);
	else if (t->dtype == TY_LOGICAL)
		((uint8_t *)t->data)[i] = x != 0;
	else
		((real *)t->data)[i] = (real)x;
}

/* one_hot(input 0, axis 1, dim 2, value_off 3, value_on 4): a new axis of
 * extent dim at axis; out holds value_on where its coordinate there is
 * the input's value (cast to i32; a negative one adds dim), value_off
 * elsewhere. The result has value_off's type; value_on is converted to it
 * by value. */
bool TWIN(kern_tract_one_hot_f32, kern_tract_one_hot_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, 1);
	int64_t dim = karg_int(s, 2);
	int64_t inner = dims_volume(in->dims + axis, in->rank - axis);
	for (size_t i = 0; i < out->count; i++)
		put_value(out, i, karg(s, 3));
	for (size_t j = 0; j < in->count; j++) {
		int64_t raw = index_i32(it, in, j), c = raw;
		if (!wrap_index(&c, dim)) {
			interp_fail(it, s, DIAG_E1301, "tract_core_one_hot: value %lld (item %zu of the input) is outside [-%lld, %lld), the extent 'dim' of the new axis", (long long)raw, j, (long long)dim, (long long)dim);
			return false;
		}
		int64_t o = (int64_t)j / inner, i = (int64_t)j % inner;
		put_value(out, (size_t)((o * dim + c) * inner + i), karg(s, 4));
	}
	return true;
}

/* range(start 0, end 1, step 2): start, start + step, ... as many as the
 * result holds (its length is the shape rule's); integers add in i64
 * (wrapping), reals accumulate in the precision of the run, as tract
 * adds the step to the previous item. */
bool TWIN(kern_tract_range_f32, kern_tract_range_f64)(Interp *it, const Step *s)
{
	ITensor *out = s->out[0];
	int64_t i0, is;
	double x0, xs, unused;
	int64_t iunused;
	if (!attr_number(it, s, 0, &i0, &x0) || !attr_number(it, s, 1, &iunused, &unused) ||
	    !attr_number(it, s, 2, &is, &xs))
		return false;
	if (out->dtype == TY_INTEGER) {
		int64_t *y = out->data;
		uint64_t v = (uint64_t)i0;
		for (size_t i = 0; i < out->count; i++, v += (uint64_t)is)
			y[i] = (int64_t)v;
	} else {
		real *y = out->data, v = (real)x0, step = (real)xs;
		for (size_t i = 0; i < out->count; i++, v += step)
			y[i] = v;
	}
	return true;
}

/* ---- topk -------------------------------------------------------------------------- */

typedef struct TopItem {
	real r;
	int64_t n;
	int64_t idx;
} TopItem;

/* Orders for topk: by value, ties by position (a stable sort, as tract's);
 * NaN after every number. */
static int top_cmp(const TopItem *a, const TopItem *b, bool ints,
			  bool largest)
{
	int c;
	if (ints) {
		c = (a->n > b->n) - (a->n < b->n);
	} else {
		bool na = isnan(a->r), nb = isnan(b->r);
		if (na || nb)
			return na != nb ? (na ? 1 : -1) : (a->idx > b->idx) - (a->idx < b->idx);
		c = (a->r > b->r) - (a->r < b->r);
	}
	if (largest)
		c = -c;
	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static int top_real_asc(const void *a, const void *b)
{
	return top_cmp(a, b, false, false);
}

static int top_real_desc(const void *a, const void *b)
{
	return top_cmp(a, b, false, true);
}

static int top_int_asc(const void *a, const void *b)
{
	return top_cmp(a, b, true, false);
}

static int top_int_desc(const void *a, const void *b)
{
	return top_cmp(a, b, true, true);
}

/* topk(input 0, k 1, axis 2, largest 3): along axis, the k largest (or
 * smallest) items, best first, equal items in their order, and their
 * positions (i64). k is the result's extent along axis. */
bool TWIN(kern_tract_topk_f32, kern_tract_topk_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *val = s->out[0], *pos = s->out[1];
	size_t axis = (size_t)karg_int(s, 2);
	bool largest = karg_bool(s, 3), ints = in->dtype != TY_SCALAR;
	int64_t n = in->dims[axis], k = val->dims[axis];
	int64_t outer = dims_volume(in->dims, axis);
	int64_t inner = dims_volume(in->dims + axis + 1, in->rank - axis - 1);
	TopItem *row = interp_scratch(it, s, (size_t)n, sizeof(*row));
	if (!row)
		return false;
	int (*cmp)(const void *, const void *) = ints ? (largest ? top_int_desc : top_int_asc)
						      : (largest ? top_real_desc : top_real_asc);
	int64_t *y = pos->data;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			for (int64_t j = 0; j < n; j++) {
				size_t at = (size_t)((o * n + j) * inner + i);
				row[j].idx = j;
				row[j].n = ints ? index_i64(it, in, at) : 0;
				row[j].r = ints ? 0 : ((const real *)in->data)[at];
			}
			qsort(row, (size_t)n, sizeof(*row), cmp);
			for (int64_t j = 0; j < k && j < n; j++) {
				size_t at = (size_t)((o * k + j) * inner + i);
				y[at] = row[j].idx;
				put_item(it, val, at, in, (size_t)((o * n + row[j].idx) * inner + i));
			}
		}
	interp_release(it, row);
	return true;
}

/* ---- reductions: argmax_reduce_last, argmin_reduce_last, product_reduce ------------- */

/* The offsets of the reduced positions of `in` (axes: attribute 1),
 * row-major over the reduced axes in axis order, and the strides of in;
 * NULL after reporting. */
static int64_t *reduced_offsets(Interp *it, const Step *s, const ITensor *in,
				       int64_t *st, int64_t *rvol)
{
	bool red[INTERP_MAX_RANK] = { false };
	for (size_t i = 0; i < karg_len(s, 1); i++)
		red[karg_item(s, 1, i)] = true;
	int64_t rdims[INTERP_MAX_RANK], rst[INTERP_MAX_RANK], p[INTERP_MAX_RANK] = { 0 };
	size_t nr = 0;
	dims_strides(in->dims, in->rank, st);
	for (size_t d = 0; d < in->rank; d++)
		if (red[d]) {
			rdims[nr] = in->dims[d];
			rst[nr++] = st[d];
		}
	*rvol = dims_volume(rdims, nr);
	int64_t *roff = interp_scratch(it, s, (size_t)*rvol, sizeof(int64_t));
	if (!roff)
		return NULL;
	for (int64_t r = 0; r < *rvol; r++, next_pos(p, rdims, nr)) {
		roff[r] = 0;
		for (size_t j = 0; j < nr; j++)
			roff[r] += p[j] * rst[j];
	}
	return roff;
}

/* The position of the extremum among the n items at base + roff[r]:
 * tract folds from (0, the type's lowest (highest) finite value) and
 * takes an item greater (less) than or equal to the best: the last
 * extremum; NaN never wins, nor -inf (+inf) over the start. */
static int64_t arg_last(const Interp *it, const ITensor *in, int64_t base,
			       const int64_t *roff, int64_t n, bool is_max)
{
	int64_t bi = 0;
	if (in->dtype == TY_SCALAR) {
		const real *x = in->data;
		real best = is_max ? -REAL_MAX : REAL_MAX;
		for (int64_t r = 0; r < n; r++) {
			real v = x[base + roff[r]];
			if (is_max ? v >= best : v <= best) {
				best = v;
				bi = r;
			}
		}
		return bi;
	}
	int64_t best = is_max ? INT64_MIN : INT64_MAX;
	for (int64_t r = 0; r < n; r++) {
		int64_t v = index_i64(it, in, (size_t)(base + roff[r]));
		if (is_max ? v >= best : v <= best) {
			best = v;
			bi = r;
		}
	}
	return bi;
}

/* argmax_reduce_last, argmin_reduce_last, product_reduce (input 0, axes
 * 1): the reduced axes kept with extent 1. The arg reductions give the
 * position (i64) in the reduced sub-tensor, row-major, of the last
 * extremum; the product multiplies in the input's type (reals in the
 * precision of the run, integers wrapping, logicals: and), in row-major
 * order. */
bool TWIN(kern_tract_reduce_f32, kern_tract_reduce_f64)(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	ShapeOp op = s->op->prim;
	int64_t st[INTERP_MAX_RANK], rvol, opos[INTERP_MAX_RANK] = { 0 };
	int64_t *roff = reduced_offsets(it, s, in, st, &rvol);
	if (!roff)
		return false;
	for (size_t q = 0; q < out->count; q++, next_pos(opos, out->dims, out->rank)) {
		int64_t base = 0;
		for (size_t d = 0; d < in->rank; d++)
			base += opos[d] * st[d];
		if (op != SHAPE_OP_TRACT_CORE_PRODUCT_REDUCE) {
			((int64_t *)out->data)[q] = arg_last(it, in, base, roff, rvol, op == SHAPE_OP_TRACT_CORE_ARGMAX_REDUCE_LAST);
		} else if (in->dtype == TY_SCALAR) {
			real acc = 1;
			for (int64_t r = 0; r < rvol; r++)
				acc *= ((const real *)in->data)[base + roff[r]];
			((real *)out->data)[q] = acc;
		} else if (in->dtype == TY_INTEGER) {
			uint64_t acc = 1;
			for (int64_t r = 0; r < rvol; r++)
				acc *= (uint64_t)((const int64_t *)in->data)[base + roff[r]];
			((int64_t *)out->data)[q] = (int64_t)acc;
		} else {
			uint8_t acc = 1;
			for (int64_t r = 0; r < rvol; r++)
				acc &= ((const uint8_t *)in->data)[base + roff[r]];
			((uint8_t *)out->data)[q] = acc;
		}
	}
	interp_release(it, roff);
	return true;
}
