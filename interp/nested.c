/*
 * nested.c - the operations of tract's dialect that run another graph
 * (sema/tract/TRACT-NOTES.md, C.1): tract_core_scan runs its body, a
 * fragment of the document flattened at the shapes of one iteration, once
 * per iteration with the loop's states; tract_core_submodel runs the model
 * inside the model. Each is one step of the plan (one line of --profile,
 * under its name), and the graph it runs has an interpreter of its own,
 * planned with the step.
 */
#include "interp/interp_internal.h"

#include <string.h>

enum { P_BODY, P_SCAN, P_FULL, P_STATE, P_OUTPUT, P_SKIP, P_RESET };

/* How a parameter of a scan's body is bound: by its tuple of `scan` (a
 * chunk per iteration), `full` (the whole tensor every iteration) or
 * `state` (the initializer, then the result of the iteration before). */
typedef enum Bind { B_SCAN, B_FULL, B_STATE } Bind;

typedef struct BodyParam {
	Bind bind;
	size_t tuple;          /* its tuple in its list */
	int64_t axis, chunk;   /* B_SCAN */
	long result;           /* B_STATE: the body result that updates it */
} BodyParam;

typedef struct BodyOutput {
	long result;           /* the body result it gives */
	bool full;             /* every iteration's, concatenated (else the
				  last one's) */
	int64_t axis, chunk;
} BodyOutput;

typedef struct Nested {
	Interp *in;            /* runs the graph */
	FlatGraph *g;          /* a scan's body, flattened here */
	bool sub;              /* a submodel (else a scan) */
	InterpHost subhost;    /* a submodel: the host of the model inside */
	const SemaFrag *body;
	BodyParam *params;     /* one per parameter of the body */
	BodyOutput *outs;      /* one per output tuple */
	size_t nouts;
	int64_t iterations;
	bool reset;            /* reset_every_turn: states start again from
				  their initializers on every run */
	bool started;          /* the states hold the last run's */
} Nested;

/* ---- planning -------------------------------------------------------------------- */

/* The body result named by the string v, or -1. */
static long body_result(const SemaFrag *body, const Value *v)
{
	for (size_t k = 0; k < body->nresults; k++)
		if (flat_scan_names(v, body->results[k].name))
			return (long)k;
	return -1;
}

/* Binds body parameter i by the first tuple of scan, full or state that
 * names it (the flattener checked there is exactly one). */
static bool bind_param(const Step *s, const SemaFrag *body, size_t i,
		       BodyParam *bp)
{
	static const int lists[] = { P_SCAN, P_FULL, P_STATE };
	for (size_t l = 0; l < 3; l++) {
		const Value *list = karg(s, (size_t)lists[l]);
		for (size_t k = 0; k < list->n; k++) {
			const Value *tuple = list->u.items[k];
			if (!flat_scan_names(tuple->u.items[0], body->params[i].name))
				continue;
			bp->bind = (Bind)l;
			bp->tuple = k;
			if (bp->bind == B_SCAN) {
				bp->axis = tuple->u.items[2]->u.i;
				bp->chunk = tuple->u.items[3]->u.i;
			} else if (bp->bind == B_STATE) {
				bp->result = body_result(body, tuple->u.items[2]);
			}
			return true;
		}
	}
	return false;
}

/* The outer tensor that binds parameter bp. */
static const ITensor *bound_tensor(const Step *s, const BodyParam *bp)
{
	static const int lists[] = { P_SCAN, P_FULL, P_STATE };
	return s->in[lists[bp->bind]].items[bp->tuple];
}

static bool plan_outputs(Nested *n, const Step *s)
{
	const Value *outs = karg(s, P_OUTPUT);
	n->nouts = outs->n;
	n->outs = util_calloc(outs->n ? outs->n : 1, sizeof(*n->outs));
	for (size_t k = 0; k < outs->n; k++) {
		const Value *tuple = outs->u.items[k];
		BodyOutput *o = &n->outs[k];
		o->result = body_result(n->body, tuple->u.items[0]);
		o->full = tuple->u.items[1]->n == 4 && memcmp(tuple->u.items[1]->u.str, "full", 4) == 0;
		o->axis = tuple->n > 2 ? tuple->u.items[2]->u.i : 0;
		o->chunk = tuple->n > 3 ? tuple->u.items[3]->u.i : 1;
		if (o->result < 0)
			return false;
	}
	return true;
}

static bool plan_scan(Interp *it, Step *s, Nested *n)
{
	const Value *bv = karg(s, P_BODY);
	n->body = it->host.fragment ? it->host.fragment(it->host.ctx, bv->u.str, bv->n) : NULL;
	if (!n->body || !n->body->def->body || n->body->is_std || n->body->is_registry) {
		interp_fail(it, s, DIAG_E1302, "tract_core_scan: the body '%.*s' is not a fragment of the document with a body", (int)bv->n, bv->u.str);
		return false;
	}
	if (karg_int(s, P_SKIP) != 0) {
		interp_fail(it, s, DIAG_E1302, "tract_core_scan: skip is %lld; nnef-run runs scans whose outputs keep every iteration (skip = 0)", (long long)karg_int(s, P_SKIP));
		return false;
	}
	n->reset = karg_bool(s, P_RESET);
	size_t np = n->body->nparams;
	n->params = util_calloc(np ? np : 1, sizeof(*n->params));
	FlatParam *fp = util_calloc(np ? np : 1, sizeof(*fp));
	/* the shapes of the body's inputs: kept by its graph */
	int64_t *dims = arena_array(&it->arena, np * INTERP_MAX_RANK + 1, sizeof(*dims));
	bool counted = false, ok = plan_outputs(n, s);
	for (size_t i = 0; ok && i < np; i++) {
		BodyParam *bp = &n->params[i];
		ok = bind_param(s, n->body, i, bp) && (bp->bind != B_STATE || bp->result >= 0);
		if (!ok)
			break;
		const ITensor *t = bound_tensor(s, bp);
		int64_t *d = dims + i * INTERP_MAX_RANK;
		memcpy(d, t->dims, t->rank * sizeof(*d));
		if (bp->bind == B_SCAN) {
			int64_t step = bp->chunk < 0 ? -bp->chunk : bp->chunk;
			d[bp->axis] = step;
			if (!counted)
				n->iterations = t->dims[bp->axis] / step;
			counted = true;
		}
		fp[i] = (FlatParam){ .kind = t->dtype, .datum = t->datum, .dims = d, .rank = t->rank };
	}
	if (ok && !counted) {
		interp_fail(it, s, DIAG_E1302, "tract_core_scan: nothing is scanned, so the number of iterations is not known");
		ok = false;
	} else if (!ok) {
		interp_fail(it, s, DIAG_E1302, "tract_core_scan: the tuples do not bind the body '%s' as the check found", n->body->name);
	}
	if (ok && it->host.flatten_fragment)
		n->g = it->host.flatten_fragment(it->host.ctx, n->body, fp, flat_op_loc(s->op), &it->arena, it->diags);
	util_free(fp);
	if (!n->g)
		return false;
	InterpOptions o = it->opt;
	o.keep_all = o.profile = o.statistics = false;
	o.progress = NULL;
	n->in = interp_new_body(it, n->g, &o);
	return n->in != NULL;
}

static bool plan_submodel(Interp *it, Step *s, Nested *n)
{
	const Value *label = karg(s, 1);
	n->sub = true;
	const FlatGraph *g = it->host.submodel ? it->host.submodel(it->host.ctx, label->u.str, label->n, &n->subhost) : NULL;
	if (!g) {
		interp_fail(it, s, DIAG_E1302, "tract_core_submodel: the model '%.*s' inside this one is not valid", (int)label->n, label->u.str);
		return false;
	}
	InterpOptions o = it->opt;
	o.keep_all = o.profile = o.statistics = false;
	o.progress = NULL;
	n->in = interp_new(g, &n->subhost, &o, it->diags);
	return n->in != NULL;
}

bool interp_plan_nested(Interp *it, Step *s)
{
	Nested *n = util_calloc(1, sizeof(*n));
	s->nested = n;
	if (s->op->prim == SHAPE_OP_TRACT_CORE_SUBMODEL)
		return plan_submodel(it, s, n);
	return plan_scan(it, s, n);
}

void interp_free_nested(Step *s)
{
	Nested *n = s->nested;
	if (!n)
		return;
	interp_free(n->in);
	flat_graph_free(n->g);
	util_free(n->params);
	util_free(n->outs);
	util_free(n);
	s->nested = NULL;
}

bool interp_load_nested(Interp *it, bool random_missing, uint64_t seed)
{
	for (size_t i = 0; i < it->nsteps; i++) {
		Nested *n = it->steps[i].nested;
		if (n && n->sub && !interp_load_variables(n->in, random_missing, seed))
			return false;
	}
	return true;
}

/* ---- running ----------------------------------------------------------------------- */

/* Copies `len` items along axis, from index `from` of `src` (whose extent
 * there is sd) to index `to` of `dst` (extent dd): the slab of a chunk. */
static void copy_slab(const ITensor *src, int64_t sd, int64_t from,
		      ITensor *dst, int64_t dd, int64_t to, int64_t axis,
		      int64_t len, size_t es)
{
	int64_t pre = dims_volume(src->dims, (size_t)axis);
	int64_t post = dims_volume(src->dims + axis + 1, src->rank - (size_t)axis - 1);
	size_t row = (size_t)(len * post) * es;
	for (int64_t p = 0; p < pre; p++)
		memcpy((char *)dst->data + (size_t)((p * dd + to) * post) * es,
		       (const char *)src->data + (size_t)((p * sd + from) * post) * es, row);
}

static void copy_whole(ITensor *dst, const ITensor *src, size_t es)
{
	if (dst->data != src->data)
		memmove(dst->data, src->data, src->count * es);
}

/* The inputs of the body for iteration i. */
static void feed_body(Interp *it, const Step *s, Nested *n, int64_t i)
{
	for (size_t p = 0; p < n->body->nparams; p++) {
		const BodyParam *bp = &n->params[p];
		const ITensor *src = bound_tensor(s, bp);
		ITensor *dst = interp_input(n->in, p);
		size_t es = interp_item_size(it, src->dtype);
		if (bp->bind == B_SCAN) {
			int64_t step = bp->chunk < 0 ? -bp->chunk : bp->chunk;
			int64_t c = bp->chunk < 0 ? n->iterations - 1 - i : i;
			copy_slab(src, src->dims[bp->axis], c * step, dst, step, 0, bp->axis, step, es);
		} else if (i == 0 && (bp->bind == B_FULL || !n->started || n->reset)) {
			copy_whole(dst, src, es);
		}
	}
}

/* After iteration i: the states for the next, the outputs' slabs. */
static void take_results(Interp *it, const Step *s, Nested *n, int64_t i)
{
	for (size_t p = 0; p < n->body->nparams; p++) {
		const BodyParam *bp = &n->params[p];
		if (bp->bind != B_STATE)
			continue;
		const ITensor *r = interp_output(n->in, (size_t)bp->result);
		copy_whole(interp_input(n->in, p), r, interp_item_size(it, r->dtype));
	}
	for (size_t k = 0; k < n->nouts; k++) {
		const BodyOutput *o = &n->outs[k];
		const ITensor *r = interp_output(n->in, (size_t)o->result);
		ITensor *out = s->out[k];
		size_t es = interp_item_size(it, r->dtype);
		if (!o->full) {
			if (i == n->iterations - 1)
				copy_whole(out, r, es);
			continue;
		}
		int64_t step = r->dims[o->axis];
		int64_t c = o->chunk < 0 ? n->iterations - 1 - i : i;
		copy_slab(r, step, 0, out, out->dims[o->axis], c * step, o->axis, step, es);
	}
}

/* tract_core_scan(body, scan, full, state, output, ...): the body run once
 * per iteration; the states of one iteration are the next one's inputs,
 * and persist from run to run unless reset_every_turn. */
bool kern_tract_scan(Interp *it, const Step *s)
{
	Nested *n = s->nested;
	for (int64_t i = 0; i < n->iterations; i++) {
		feed_body(it, s, n, i);
		if (!interp_run(n->in))
			return false;
		take_results(it, s, n, i);
	}
	n->started = true;
	return true;
}

/* tract_core_submodel(input, label): the model inside, run on the inputs
 * given, its outputs the results. */
bool kern_tract_submodel(Interp *it, const Step *s)
{
	Nested *n = s->nested;
	for (size_t k = 0; k < s->in[0].n; k++) {
		const ITensor *src = s->in[0].items[k];
		copy_whole(interp_input(n->in, k), src, interp_item_size(it, src->dtype));
	}
	if (!interp_run(n->in))
		return false;
	for (size_t k = 0; k < s->nout; k++) {
		const ITensor *r = interp_output(n->in, k);
		copy_whole(s->out[k], r, interp_item_size(it, r->dtype));
	}
	return true;
}
