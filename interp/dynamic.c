/*
 * dynamic.c - shapes known only when the graph runs (tract's dialect): the
 * count of tract_onnx_non_zero, the k of a tract_core_topk given as a
 * tensor, the extent of a tract_core_dyn_slice, and everything computed
 * from them. Their results have no shape when the graph is built; each
 * such step runs the shape function of its operation (shapes/), as the
 * check does, on its inputs' shapes and now known values, just before its
 * kernel, and its results are allocated at those shapes. They live
 * outside the planned block of activations.
 */
#include "interp/interp_internal.h"

#include <string.h>

/* Values handed to shape functions: a tensor of more items than this is
 * not read for them (its results' shapes stay unknown: E1309). */
enum { KNOWN_ITEMS_MAX = 1 << 20 };

bool interp_plan_dynamic(Interp *it)
{
	const FlatGraph *g = it->g;
	bool any = false, ok = true;
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		for (size_t k = 0; k < s->nout; k++) {
			size_t t = (size_t)(s->out[k] - it->t);
			if (t >= g->ntensors || flat_tensor(g, t)->known)
				continue;
			s->dynamic = true;
			s->out[k]->rank = 0;
			s->out[k]->dims = NULL;
			s->out[k]->count = 0;
		}
		if (s->dynamic && (shape_op_flags((ShapeOp)s->op->prim) & SF_NESTED)) {
			interp_fail(it, s, DIAG_E1309, "'%s' gives results whose shapes are known only when the model runs: nnef-run runs scans and submodels whose shapes are known before", s->op->frag->name);
			ok = false;
		}
		any |= s->dynamic;
	}
	if (any) {
		it->dyn_dims = util_calloc(g->ntensors ? g->ntensors : 1, sizeof(*it->dyn_dims));
		arena_init(&it->run_arena);
	}
	return ok;
}

void interp_free_dynamic(Interp *it)
{
	if (!it->dyn_dims)
		return;
	for (size_t t = 0; t < it->g->ntensors; t++)
		util_free(it->dyn_dims[t]);
	util_free(it->dyn_dims);
	dim_table_free(it->dimtab);
	arena_free(&it->run_arena);
}

static Shape shape_of(const ITensor *t)
{
	Shape s = { t->dims, t->rank, true };
	return s;
}

/* The items of t, as shape functions read known values; none for a large
 * tensor. */
static ShapeKnown known_items(Interp *it, const ITensor *t)
{
	ShapeKnown k = { NULL, 0 };
	if (!t->data || t->count > KNOWN_ITEMS_MAX)
		return k;
	Value *items = arena_array(&it->run_arena, t->count ? t->count : 1, sizeof(Value));
	for (size_t i = 0; i < t->count; i++) {
		memset(&items[i], 0, sizeof(items[i]));
		switch (t->dtype) {
		case TY_INTEGER:
			items[i].kind = VAL_INT;
			items[i].u.i = ((const int64_t *)t->data)[i];
			break;
		case TY_LOGICAL:
			items[i].kind = VAL_BOOL;
			items[i].u.b = ((const uint8_t *)t->data)[i] != 0;
			break;
		default:
			items[i].kind = VAL_SCALAR;
			items[i].u.s = interp_value(it, t, i);
			break;
		}
	}
	k.items = items;
	k.n = (uint32_t)t->count;
	return k;
}

/* Gives result t of step s the shape sh (and datum type d when the graph
 * did not know it). */
static bool set_shape(Interp *it, const Step *s, ITensor *t, const Shape *sh,
		      DType d)
{
	size_t i = (size_t)(t - it->t);
	int64_t n = 1;
	bool fits = sh->known && !shape_is_symbolic(sh) && sh->rank <= INTERP_MAX_RANK &&
		    shape_volume(sh, &n);
	if (!fits) {
		interp_fail(it, s, DIAG_E1309, "'%s': the shape of its result '%s' is not known even when it runs", s->op->frag->name, flat_tensor(it->g, i)->name);
		return false;
	}
	if (!it->dyn_dims[i])
		it->dyn_dims[i] = util_malloc(INTERP_MAX_RANK * sizeof(int64_t));
	if (sh->rank)
		memcpy(it->dyn_dims[i], sh->dims, sh->rank * sizeof(int64_t));
	if (t->data && it->owned[i]) /* the last run's, of another size */
		util_free(t->data);
	t->data = NULL;
	t->rank = sh->rank;
	t->dims = it->dyn_dims[i];
	t->count = (size_t)n;
	if (t->datum == DT_NONE)
		t->datum = (uint8_t)d;
	return true;
}

bool interp_infer_step(Interp *it, const Step *s)
{
	enum { MAXP = 16 };
	const FlatOp *op = s->op;
	const SemaFrag *f = op->frag;
	ShapeIn in[MAXP];
	Shape one[MAXP];
	DType dtypes[MAXP];
	ShapeKnown values[MAXP];
	arena_reset(&it->run_arena);
	for (size_t p = 0; p < f->nparams && p < MAXP; p++) {
		const KArg *ka = &s->in[p];
		in[p] = (ShapeIn){ NULL, 0 };
		dtypes[p] = DT_NONE;
		values[p] = (ShapeKnown){ NULL, 0 };
		if (ka->items) {
			Shape *items = arena_array(&it->run_arena, ka->n ? ka->n : 1, sizeof(Shape));
			for (size_t k = 0; k < ka->n; k++)
				items[k] = shape_of(ka->items[k]);
			in[p] = (ShapeIn){ items, ka->n };
			dtypes[p] = ka->n ? (DType)ka->items[0]->datum : DT_NONE;
		} else if (ka->t) {
			one[p] = shape_of(ka->t);
			in[p] = (ShapeIn){ &one[p], 1 };
			dtypes[p] = (DType)ka->t->datum;
			values[p] = known_items(it, ka->t);
		}
	}
	if (!it->dimtab)
		it->dimtab = dim_table_new();
	StrBuf msg, hint;
	sb_init(&msg);
	sb_init(&hint);
	ShapeCall c = { .op = (ShapeOp)op->prim, .args = flat_op_args(op), .in = in,
			.arena = &it->run_arena, .msg = &msg, .hint = &hint,
			.tract_rules = it->m->dialect == DIALECT_TRACT, .dims = it->dimtab,
			.in_dtypes = dtypes, .values = values, .lenient = it->m->lenient };
	bool valid = shape_infer(&c), ok = valid && c.known && !c.data_dependent;
	if (!valid) /* the values break the operation's rules (topk's k) */
		interp_fail(it, s, DIAG_E1301, "%s: %s", f->name, sb_str(&msg));
	else if (!ok)
		interp_fail(it, s, DIAG_E1309, "'%s': the shapes of its results cannot be computed when it runs: %s", f->name, msg.len ? sb_str(&msg) : "its inputs' shapes are not known");
	sb_free(&msg);
	sb_free(&hint);
	uint64_t flags = shape_op_flags((ShapeOp)op->prim);
	for (size_t k = 0; ok && k < s->nout; k++) {
		const Shape *sh = flags & (SF_ARRAY_RESULT | SF_TUPLE_RESULT)
				  ? (c.outs && k < c.nouts ? &c.outs[k] : NULL) : &c.out;
		static const Shape unknown = { NULL, 0, false };
		DType d = c.dtypes[(flags & SF_TUPLE_RESULT) && k < SHAPE_MAX_RESULTS ? k : 0];
		ok = set_shape(it, s, s->out[k], sh ? sh : &unknown, d);
	}
	return ok;
}
