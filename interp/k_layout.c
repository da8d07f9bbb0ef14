/*
 * k_layout.c - kernels that move items of any data type (1, 4 or 8 bytes):
 * copy and the reshaping family (spec 4.5.1), transpose (4.5.2), split,
 * concat, stack, unstack (4.5.3), slice (4.5.4, with the 1.0.5 stride),
 * tile (4.5.6), gather (1.0.5 4.5.7), select (4.2.3), the logical
 * operations (4.2.1, 4.2.2) and reductions (4.4), and the border
 * extension behind pad (4.5.5) and the sliding windows.
 */
#include "interp/interp_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t esize(const Interp *it, const ITensor *t)
{
	return interp_item_size(it, t->dtype);
}

/* Copies n items of es bytes from src (stride sst items) to dst
 * (contiguous). */
static void copy_strided(void *dst, const void *src, int64_t sst, int64_t n,
			 size_t es)
{
	if (sst == 1) {
		memcpy(dst, src, (size_t)n * es);
		return;
	}
	switch (es) {
	case 8:
		for (int64_t i = 0; i < n; i++)
			((uint64_t *)dst)[i] = ((const uint64_t *)src)[i * sst];
		break;
	case 4:
		for (int64_t i = 0; i < n; i++)
			((uint32_t *)dst)[i] = ((const uint32_t *)src)[i * sst];
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			((uint8_t *)dst)[i] = ((const uint8_t *)src)[i * sst];
		break;
	}
}

/* Fills out (contiguous, rank dims) from src where output index i_d
 * reads src at sum(start[d] + i_d * step[d]) * st[d]... expressed as an
 * input offset `base` plus per-dimension strides `ist` (items, may be
 * negative or zero). The last dimension is copied row by row. */
static void gather_rows(void *out, const void *src, const int64_t *dims,
			size_t rank, int64_t base, const int64_t *ist,
			size_t es)
{
	if (rank == 0) {
		memcpy(out, (const char *)src + base * (int64_t)es, es);
		return;
	}
	int64_t idx[INTERP_MAX_RANK] = { 0 };
	int64_t inner = dims[rank - 1], rows = dims_volume(dims, rank - 1);
	int64_t off = base;
	char *o = out;
	for (int64_t r = 0; r < rows; r++) {
		copy_strided(o, (const char *)src + off * (int64_t)es,
			     ist[rank - 1], inner, es);
		o += inner * (int64_t)es;
		for (size_t d = rank - 1; d-- > 0;) {
			off += ist[d];
			if (++idx[d] < dims[d])
				break;
			off -= ist[d] * dims[d];
			idx[d] = 0;
		}
	}
}

/* copy, reshape, squeeze, unsqueeze: the row-major order is kept. */
bool kern_copy(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	if (s->out[0]->data != in->data) /* else a view (interp_plan_view) */
		memcpy(s->out[0]->data, in->data, in->count * esize(it, in));
	return true;
}

/* 4.5.2: output[i_axes[0], ..., i_axes[n-1]] = input[i_0, ..., i_n-1]. */
bool kern_transpose(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t st[INTERP_MAX_RANK], ist[INTERP_MAX_RANK];
	dims_strides(in->dims, in->rank, st);
	size_t n = karg_len(s, 1);
	for (size_t k = 0; k < out->rank; k++)
		ist[k] = st[k < n ? (size_t)karg_item(s, 1, k) : k];
	gather_rows(out->data, in->data, out->dims, out->rank, 0, ist,
		    esize(it, in));
	return true;
}

/* The product of the extents before `axis`. */
static int64_t outer_of(const ITensor *t, size_t axis)
{
	return dims_volume(t->dims, axis < t->rank ? axis : t->rank);
}

/* split and unstack: each output takes its section of every outer row
 * (values[i] = value[:, sigma_i:sigma_i+1, :]). */
bool kern_split(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	size_t es = esize(it, in);
	int64_t outer = outer_of(in, (size_t)karg_int(s, 1));
	const char *src = in->data;
	for (int64_t o = 0; o < outer; o++)
		for (size_t k = 0; k < s->nout; k++) {
			size_t n = s->out[k]->count / (size_t)outer * es;
			memcpy((char *)s->out[k]->data + (size_t)o * n, src, n);
			src += n;
		}
	return true;
}

/* ---- concat, stack ----------------------------------------------------------------- */

/* Items of a concat's result from which it is split among threads
 * (fewer cost less than waking them). */
#define CONCAT_PARALLEL_ITEMS 32768

/* A concat's result seen as rows of `row` bytes, one per outer index,
 * each the inputs' sections of that index one after another. */
typedef struct ConcatJob {
	ITensor *const *items;
	size_t nin;
	int64_t outer;
	size_t es, row;
	char *dst;
} ConcatJob;

/* Bytes [lo, hi) of the result. */
static void concat_range(const ConcatJob *j, size_t lo, size_t hi)
{
	for (size_t o = lo / j->row, at = o * j->row; at < hi; o++)
		for (size_t k = 0; k < j->nin && at < hi; k++) {
			const ITensor *x = j->items[k];
			size_t n = x->count / (size_t)j->outer * j->es;
			size_t a = lo > at ? lo : at, b = hi < at + n ? hi : at + n;
			if (a < b)
				memcpy(j->dst + a, (const char *)x->data + o * n + (a - at), b - a);
			at += n;
		}
}

static void concat_part(void *ctx, int part, int parts)
{
	const ConcatJob *j = ctx;
	size_t size = (size_t)j->outer * j->row;
	concat_range(j, size * (size_t)part / (size_t)parts,
		     size * (size_t)(part + 1) / (size_t)parts);
}

/* concat and stack: the reverse of split and unstack. A large result is
 * split among the threads by byte ranges. */
bool kern_concat(Interp *it, const Step *s)
{
	ITensor *out = s->out[0];
	ConcatJob j = { .items = s->in[0].items, .nin = s->in[0].n, .es = esize(it, out),
			.outer = outer_of(out, (size_t)karg_int(s, 1)), .dst = out->data };
	size_t size = out->count * j.es;
	if (size == 0)
		return true;
	j.row = size / (size_t)j.outer;
	int parts = out->count >= CONCAT_PARALLEL_ITEMS ? interp_threads(it) : 1;
	interp_parallel(it, parts, concat_part, &j);
	return true;
}

/* 4.5.4 (1.0.5): the first index of axis item i (as the shape function
 * computes the extent: negative values add the extent, then clamp). */
static int64_t slice_begin(const Step *s, size_t i, int64_t x, int64_t st)
{
	int64_t b = karg_item(s, 2, i);
	if (b < 0)
		b += x;
	int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? x : x - 1;
	return b < lo ? lo : b > hi ? hi : b;
}

bool kern_slice(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	int64_t st[INTERP_MAX_RANK], ist[INTERP_MAX_RANK], base = 0;
	dims_strides(in->dims, in->rank, st);
	for (size_t d = 0; d < in->rank; d++)
		ist[d] = st[d];
	for (size_t i = 0; i < karg_len(s, 1); i++) {
		size_t a = (size_t)karg_item(s, 1, i);
		int64_t step = karg_len(s, 4) ? karg_item(s, 4, i) : 1;
		base += slice_begin(s, i, in->dims[a], step) * st[a];
		ist[a] = step * st[a];
	}
	if (out->count)
		gather_rows(out->data, in->data, out->dims, out->rank, base,
			    ist, esize(it, in));
	return true;
}

/* 4.5.6: output[..., i, ...] = input[..., i mod x_k, ...]. */
bool kern_tile(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	ITensor *out = s->out[0];
	size_t es = esize(it, in), R = out->rank;
	if (R == 0) {
		memcpy(out->data, in->data, es);
		return true;
	}
	int64_t st[INTERP_MAX_RANK], idx[INTERP_MAX_RANK] = { 0 };
	dims_strides(in->dims, in->rank, st);
	int64_t inner = out->dims[R - 1], x = in->dims[R - 1];
	int64_t rows = dims_volume(out->dims, R - 1);
	char *o = out->data;
	for (int64_t r = 0; r < rows; r++) {
		int64_t off = 0;
		for (size_t d = 0; d + 1 < R; d++)
			off += idx[d] % in->dims[d] * st[d];
		for (int64_t j = 0; j < inner; j += x)
			memcpy(o + j * (int64_t)es,
			       (const char *)in->data + off * (int64_t)es,
			       (size_t)x * es);
		o += inner * (int64_t)es;
		for (size_t d = R - 1; d-- > 0;) {
			if (++idx[d] < out->dims[d])
				break;
			idx[d] = 0;
		}
	}
	return true;
}

/* 1.0.5 4.5.7: output[p.., i.., q..] = input[p.., indices[i..], q..];
 * "Elements of the tensor indices must be non-negative (only possible to
 * check in run-time)", and less than the extent. */
bool kern_gather(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t, *ix = s->in[1].t;
	size_t axis = (size_t)karg_int(s, 2), es = esize(it, in);
	int64_t outer = outer_of(in, axis), n = in->dims[axis];
	size_t inner = (size_t)dims_volume(in->dims + axis + 1, in->rank - axis - 1) * es;
	const int64_t *idx = ix->data;
	char *o = s->out[0]->data;
	for (size_t j = 0; j < ix->count; j++)
		if (idx[j] < 0 || idx[j] >= n) {
			interp_fail(it, s, DIAG_E1301, "gather: index %lld (item %zu of the indices) is outside [0, %lld), the extent of axis %zu", (long long)idx[j], j, (long long)n, axis);
			return false;
		}
	for (int64_t p = 0; p < outer; p++)
		for (size_t j = 0; j < ix->count; j++) {
			memcpy(o, (const char *)in->data + ((size_t)p * (size_t)n + (size_t)idx[j]) * inner, inner);
			o += inner;
		}
	return true;
}

/* ---- logical ---------------------------------------------------------------------- */

bool kern_not(Interp *it, const Step *s)
{
	(void)it;
	const uint8_t *x = s->in[0].t->data;
	uint8_t *y = s->out[0]->data;
	for (size_t i = 0; i < s->out[0]->count; i++)
		y[i] = !x[i];
	return true;
}

bool kern_logic(Interp *it, const Step *s)
{
	(void)it;
	const ITensor *ops[2] = { s->in[0].t, s->in[1].t };
	Bcast b;
	interp_bcast_init(&b, s->out[0], ops, 2);
	const uint8_t *x = ops[0]->data, *y = ops[1]->data;
	uint8_t *z = s->out[0]->data;
	bool and = s->op->prim == SHAPE_OP_AND;
	for (int64_t r = 0; r < b.rows; r++, interp_bcast_next(&b)) {
		const uint8_t *a = x + b.off[0], *c = y + b.off[1];
		for (int64_t i = 0; i < b.inner; i++)
			z[i] = and ? (a[i * b.st[0]] & c[i * b.st[1]])
				   : (a[i * b.st[0]] | c[i * b.st[1]]);
		z += b.inner;
	}
	return true;
}

#define SELECT_LOOP(T)                                                         \
	for (int64_t r = 0; r < b.rows; r++, interp_bcast_next(&b)) {          \
		const uint8_t *c = cond + b.off[0];                            \
		const T *t = (const T *)tv + b.off[1];                         \
		const T *f = (const T *)fv + b.off[2];                         \
		T *o = (T *)out;                                               \
		for (int64_t i = 0; i < b.inner; i++)                          \
			o[i] = c[i * b.st[0]] ? t[i * b.st[1]] : f[i * b.st[2]]; \
		out = (char *)out + b.inner * (int64_t)sizeof(T);              \
	}

/* 4.2.3: output = true_value where condition, false_value elsewhere,
 * every argument broadcast. */
bool kern_select(Interp *it, const Step *s)
{
	const ITensor *ops[3] = { s->in[0].t, s->in[1].t, s->in[2].t };
	Bcast b;
	interp_bcast_init(&b, s->out[0], ops, 3);
	const uint8_t *cond = ops[0]->data;
	const void *tv = ops[1]->data, *fv = ops[2]->data;
	void *out = s->out[0]->data;
	switch (esize(it, s->out[0])) {
	case 8:
		SELECT_LOOP(uint64_t)
		break;
	case 4:
		SELECT_LOOP(uint32_t)
		break;
	default:
		SELECT_LOOP(uint8_t)
		break;
	}
	return true;
}

/* all_reduce, any_reduce: one pass per reduced axis (the reductions are
 * separable, spec 4.4). */
bool kern_logic_reduce(Interp *it, const Step *s)
{
	const ITensor *in = s->in[0].t;
	bool all = s->op->prim == SHAPE_OP_ALL_REDUCE;
	uint8_t *cur = interp_scratch(it, s, in->count, 1);
	if (!cur)
		return false;
	memcpy(cur, in->data, in->count);
	int64_t dims[INTERP_MAX_RANK];
	for (size_t d = 0; d < in->rank; d++)
		dims[d] = in->dims[d];
	for (size_t i = 0; i < karg_len(s, 1); i++) {
		size_t a = (size_t)karg_item(s, 1, i);
		int64_t outer = dims_volume(dims, a), n = dims[a];
		int64_t inner = dims_volume(dims + a + 1, in->rank - a - 1);
		for (int64_t o = 0; o < outer; o++) {
			uint8_t *dst = cur + o * inner;
			const uint8_t *src = cur + o * n * inner;
			if (dst != src)
				memmove(dst, src, (size_t)inner);
			for (int64_t j = 1; j < n; j++)
				for (int64_t k = 0; k < inner; k++)
					dst[k] = all ? (dst[k] & src[j * inner + k])
						     : (dst[k] | src[j * inner + k]);
		}
		dims[a] = 1;
	}
	memcpy(s->out[0]->data, cur, s->out[0]->count);
	interp_release(it, cur);
	return true;
}

/* ---- border extension ----------------------------------------------------------------- */

#define PAD_ROW(T)                                                           \
	for (int64_t i = 0; i < inner; i++)                                  \
		((T *)o)[i] = m[i] < 0 ? *(const T *)value                   \
				       : ((const T *)row)[m[i]];

void interp_pad_items(const ITensor *in, ITensor *out, const int64_t *lo,
		      Border border, const void *value, size_t es)
{
	size_t R = out->rank;
	if (R == 0) {
		memcpy(out->data, in->data, es);
		return;
	}
	/* per dimension, the input index each output index reads (-1:
	 * the constant) */
	int64_t total = 0, st[INTERP_MAX_RANK], *map[INTERP_MAX_RANK];
	for (size_t d = 0; d < R; d++)
		total += out->dims[d];
	int64_t *maps = util_malloc((size_t)total * sizeof(int64_t));
	dims_strides(in->dims, in->rank, st);
	for (size_t d = 0, at = 0; d < R; at += (size_t)out->dims[d], d++) {
		map[d] = maps + at;
		for (int64_t i = 0; i < out->dims[d]; i++)
			map[d][i] = border_index(i - lo[d], in->dims[d], border);
	}
	int64_t idx[INTERP_MAX_RANK] = { 0 }, inner = out->dims[R - 1];
	int64_t rows = dims_volume(out->dims, R - 1);
	char *o = out->data;
	const char *src = in->data;
	for (int64_t r = 0; r < rows; r++) {
		int64_t off = 0;
		bool outside = false;
		for (size_t d = 0; d + 1 < R; d++) {
			int64_t m = map[d][idx[d]];
			outside |= m < 0;
			off += m * st[d];
		}
		const int64_t *m = map[R - 1];
		const char *row = outside ? src : src + off * (int64_t)es;
		switch (outside ? 0 : es) {
		case 8:
			PAD_ROW(uint64_t)
			break;
		case 4:
			PAD_ROW(uint32_t)
			break;
		case 1:
			PAD_ROW(uint8_t)
			break;
		default:
			for (int64_t i = 0; i < inner; i++)
				memcpy(o + i * (int64_t)es, value, es);
			break;
		}
		o += inner * (int64_t)es;
		for (size_t d = R - 1; d-- > 0;) {
			if (++idx[d] < out->dims[d])
				break;
			idx[d] = 0;
		}
	}
	util_free(maps);
}
