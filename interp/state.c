/*
 * state.c - the operations of tract's dialect that keep state from run to
 * run, as in a session of tract (sema/tract/TRACT-NOTES.md C.2): the
 * caches of tract_transformers_dyn_kv_cache (growing: its past length is
 * a symbol the run binds, dynamic.c) and tract_transformers_window_kv_sdpa
 * (ring buffers of keys and values of fixed capacity, attended over),
 * and the hidden state tract_core_gru_seq carries unless it resets every
 * turn.
 * Each cycle of nnef-run is one call of the session; the state lives as
 * long as the interpreter.
 */
#include "interp/interp_internal.h"
#include "interp/real.h"

#include <math.h>
#include <string.h>

/* A cache along one axis of a tensor: `len` valid slots of `cap`. */
typedef struct Cache {
	void *data;
	int64_t len, cap;
	int64_t cursor;        /* a ring's next slot to write */
} Cache;

struct StepState {
	Cache kv[2];           /* dyn_kv_cache: kv[0]; window: keys, values */
};

/* This file is compiled twice (the window's attention computes with
 * reals): what does not compute, once. */
#if INTERP_REAL == 32
void interp_free_states(Interp *it)
{
	for (size_t i = 0; i < it->nsteps; i++) {
		StepState *st = it->steps[i].state;
		if (!st)
			continue;
		util_free(st->kv[0].data);
		util_free(st->kv[1].data);
		util_free(st);
		it->steps[i].state = NULL;
	}
}

void interp_plan_states(Interp *it)
{
	for (size_t i = 0; i < it->nsteps; i++) {
		ShapeOp p = (ShapeOp)it->steps[i].op->prim;
		if (p == SHAPE_OP_TRACT_TRANSFORMERS_DYN_KV_CACHE ||
		    p == SHAPE_OP_TRACT_TRANSFORMERS_WINDOW_KV_SDPA ||
		    p == SHAPE_OP_TRACT_CORE_GRU_SEQ)
			it->steps[i].state = util_calloc(1, sizeof(StepState));
	}
}

int64_t interp_cache_length(const Step *s)
{
	return s->state ? s->state->kv[0].len : 0;
}

void *interp_step_memory(Interp *it, const Step *s, size_t bytes, bool *first)
{
	Cache *c = &s->state->kv[0];
	*first = c->data == NULL;
	if (!c->data && !(c->data = util_try_malloc(bytes ? bytes : 1)))
		interp_fail(it, s, DIAG_E1305, "%s: cannot allocate %zu bytes for its state", s->op->frag->name, bytes);
	return c->data;
}

#endif

/* The extents before, along and after axis of t. */
static void split_at(const ITensor *t, size_t axis, int64_t *pre, int64_t *post)
{
	*pre = dims_volume(t->dims, axis);
	*post = dims_volume(t->dims + axis + 1, t->rank - axis - 1);
}

/* ---- tract_transformers_dyn_kv_cache -------------------------------------------- */

enum { KV_INPUT, KV_NAME, KV_AXIS };

#if INTERP_REAL == 32
/* dyn_kv_cache(input, name, axis, ...): the cache (empty at first)
 * followed by input along axis; the result is the cache of the next run. */
bool kern_tract_dyn_kv_cache(Interp *it, const Step *s)
{
	Cache *c = &s->state->kv[0];
	const ITensor *in = s->in[KV_INPUT].t;
	ITensor *out = s->out[0];
	size_t axis = (size_t)karg_int(s, KV_AXIS), es = interp_item_size(it, out->dtype);
	int64_t old = c->len, add = in->dims[axis], now = out->dims[axis], pre, post;
	split_at(in, axis, &pre, &post);
	for (int64_t p = 0; p < pre; p++) {
		char *o = (char *)out->data + (size_t)(p * now * post) * es;
		if (old)
			memcpy(o, (const char *)c->data + (size_t)(p * old * post) * es, (size_t)(old * post) * es);
		memcpy(o + (size_t)(old * post) * es, (const char *)in->data + (size_t)(p * add * post) * es, (size_t)(add * post) * es);
	}
	void *grown = util_try_malloc(out->count ? out->count * es : 1);
	if (!grown) {
		interp_fail(it, s, DIAG_E1305, "%s: cannot allocate %zu bytes for its cache", s->op->frag->name, out->count * es);
		return false;
	}
	memcpy(grown, out->data, out->count * es);
	util_free(c->data);
	c->data = grown;
	c->len = c->cap = now;
	return true;
}
#endif

/* ---- tract_transformers_window_kv_sdpa ------------------------------------------- */

enum { W_Q, W_K, W_V, W_AXIS, W_WINDOW, W_SCALE };

/* Appends the `add` slots of t along axis to ring c of `window` slots,
 * overwriting the oldest: only the last `window` of a longer t stay. */
static bool ring_push(Interp *it, const Step *s, Cache *c, const ITensor *t,
		      size_t axis, int64_t window)
{
	size_t es = interp_item_size(it, t->dtype);
	int64_t pre, post, add = t->dims[axis];
	split_at(t, axis, &pre, &post);
	if (!c->data) {
		size_t bytes = (size_t)(pre * window * post) * es;
		if (!(c->data = util_try_malloc(bytes ? bytes : 1))) {
			interp_fail(it, s, DIAG_E1305, "%s: cannot allocate %zu bytes for its cache", s->op->frag->name, bytes);
			return false;
		}
		c->cap = window;
	}
	int64_t first = add > window ? add - window : 0;
	for (int64_t j = first; j < add; j++) { /* slot by slot: at most window */
		for (int64_t p = 0; p < pre; p++)
			memcpy((char *)c->data + (size_t)((p * window + c->cursor) * post) * es,
			       (const char *)t->data + (size_t)((p * add + j) * post) * es, (size_t)post * es);
		c->cursor = (c->cursor + 1) % window;
	}
	c->len = c->len + (add - first) < window ? c->len + (add - first) : window;
	return true;
}

/* Attention of one query row q (d items) over the n cached keys and
 * values of one head (contiguous rows of d items), into o:
 * softmax(q.k * scale) . v, in double. */
static void attend(const real *q, const real *k, const real *v, int64_t n,
		   int64_t d, double scale, double *w, real *o)
{
	double m = -INFINITY, sum = 0;
	for (int64_t j = 0; j < n; j++) {
		double dot = 0;
		for (int64_t x = 0; x < d; x++)
			dot += (double)q[x] * (double)k[j * d + x];
		w[j] = dot * scale;
		m = w[j] > m ? w[j] : m;
	}
	for (int64_t j = 0; j < n; j++)
		sum += (w[j] = exp(w[j] - m));
	for (int64_t x = 0; x < d; x++) {
		double acc = 0;
		for (int64_t j = 0; j < n; j++)
			acc += w[j] * (double)v[j * d + x];
		o[x] = (real)(acc / sum);
	}
}

/* window_kv_sdpa(q, k, v, axis, window, scale): k and v appended to
 * rings of `window` slots along axis (the sequence axis of [B, H, S, D]),
 * then q attends over every cached slot, not causally (attention over a
 * set does not depend on the ring's order); q's heads grouped over k's;
 * scale given or 1/sqrt(D) (f32, as tract keeps it). */
bool TWIN(kern_tract_window_kv_sdpa_f32, kern_tract_window_kv_sdpa_f64)(Interp *it, const Step *s)
{
	StepState *st = s->state;
	const ITensor *q = s->in[W_Q].t, *k = s->in[W_K].t, *v = s->in[W_V].t;
	size_t axis = (size_t)karg_int(s, W_AXIS);
	int64_t window = karg_int(s, W_WINDOW);
	if (q->rank != 4 || axis != 2 || k->dims[1] == 0 || q->dims[1] % k->dims[1] != 0) {
		interp_fail(it, s, DIAG_E1301, "%s: nnef-run attends [B, H, S, D] tensors along axis 2, q's heads a multiple of k's", s->op->frag->name);
		return false;
	}
	if (!ring_push(it, s, &st->kv[0], k, axis, window) || !ring_push(it, s, &st->kv[1], v, axis, window))
		return false;
	int64_t B = q->dims[0], H = q->dims[1], S = q->dims[2], D = q->dims[3], KH = k->dims[1];
	int64_t n = st->kv[0].len, group = H / KH;
	const Value *sv = karg(s, W_SCALE);
	double scale = sv->kind == VAL_SCALAR ? (double)(float)sv->u.s : (double)(1.0f / sqrtf((float)D));
	double *w = interp_scratch(it, s, (size_t)(n ? n : 1), sizeof(double));
	if (!w)
		return false;
	const real *kc = st->kv[0].data, *vc = st->kv[1].data;
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < H; h++) {
			int64_t kh = b * KH + h / group;
			for (int64_t i = 0; i < S; i++) {
				int64_t row = ((b * H + h) * S + i) * D;
				attend((const real *)q->data + row, kc + kh * window * D,
				       vc + kh * window * D, n, D, scale, w, (real *)s->out[0]->data + row);
			}
		}
	interp_release(it, w);
	return true;
}
