/*
 * fusion.c - operations the executor runs as one, with the same results
 * as the primitives: an argmax_pool whose indices only a sample with the
 * same window reads becomes a max pooling at the sample (spec 4.3); a
 * comparison whose result only a select of its two operands reads (max,
 * min, and so relu and clamp) is computed by the select (4.2). Not with
 * keep_all (--dump-all writes every tensor). And reshape, squeeze and
 * unsqueeze give views of their input where its buffer outlives them.
 */
#include "interp/interp_internal.h"

static uint32_t tensor_index(const Interp *it, const ITensor *t)
{
	return (uint32_t)(t - it->t);
}

/* An argmax_pool whose indices only a sample with the same window
 * reads computes nothing: the sample becomes a max pooling (the value
 * at the index of the maximum is the maximum). */
static bool same_window(const FlatOp *a, const FlatOp *s)
{
	/* argmax_pool: input, size, border, padding, stride, dilation;
	 * sample: input, index, then the same five */
	if (flat_op_args(a)[0] != flat_op_args(s)[0] && !(flat_op_args(a)[0]->kind == VAL_TENSOR &&
	    flat_op_args(s)[0]->kind == VAL_TENSOR && flat_op_args(a)[0]->u.t == flat_op_args(s)[0]->u.t))
		return false;
	for (size_t p = 1; p <= 5; p++)
		if (!value_equal(flat_op_args(a)[p], flat_op_args(s)[p + 1]))
			return false;
	return true;
}

/* The step that computes tensor ix, or NULL (an input, a literal). */
static Step *producer_step(Interp *it, Step **by_tensor, uint32_t ix)
{
	return ix < it->nt ? by_tensor[ix] : NULL;
}

/* Step s takes over the work of producer (which then runs nothing): it
 * runs kernel k32 or k64 by the precision, not reading parameter p. */
static void fuse_into(Interp *it, Step *s, Step *producer, size_t p,
		      Kernel k32, Kernel k64)
{
	producer->run = NULL;
	s->unread = 1u << p;
	s->fused_from = producer->op;
	s->run = it->opt.precision == INTERP_DOUBLE ? k64 : k32;
}

/* An argmax_pool whose indices only a sample with the same window reads:
 * the sample runs a max pooling, the argmax_pool nothing. */
static void fuse_max_pool(Interp *it, Step *s, const size_t *readers,
			  Step **by_tensor)
{
	if (s->op->prim != SHAPE_OP_SAMPLE || !s->in[1].t)
		return;
	uint32_t ix = tensor_index(it, s->in[1].t);
	if (ix >= it->g->ntensors || readers[ix] != 1 || it->pinned[ix])
		return;
	Step *as = producer_step(it, by_tensor, ix);
	if (!as || as->op->prim != SHAPE_OP_ARGMAX_POOL || as->dynamic ||
	    !same_window(as->op, s->op))
		return;
	fuse_into(it, s, as, 1, kern_max_pool_f32, kern_max_pool_f64);
}

/* A comparison of x and y whose result only a select of x and y reads
 * (the standard library's max and min: select(x > y, x, y)): the select
 * compares item by item, the comparison computes nothing. Reals only. */
static void fuse_select(Interp *it, Step *s, const size_t *readers,
			Step **by_tensor)
{
	if (s->op->prim != SHAPE_OP_SELECT || s->dynamic || !s->in[0].t ||
	    !s->in[1].t || !s->in[2].t || s->out[0]->dtype != TY_SCALAR)
		return;
	uint32_t ix = tensor_index(it, s->in[0].t);
	if (ix >= it->g->ntensors || readers[ix] != 1 || it->pinned[ix])
		return;
	Step *cs = producer_step(it, by_tensor, ix);
	if (!cs || cs->dynamic || !cs->in[0].t || !cs->in[1].t)
		return;
	ShapeOp p = cs->op->prim;
	if (p != SHAPE_OP_GT && p != SHAPE_OP_LT && p != SHAPE_OP_GE && p != SHAPE_OP_LE)
		return;
	const Value *const *ca = flat_op_args(cs->op), *const *sa = flat_op_args(s->op);
	if (!value_equal(ca[0], sa[1]) || !value_equal(ca[1], sa[2]) ||
	    cs->in[0].t->dtype != TY_SCALAR || cs->in[1].t->dtype != TY_SCALAR ||
	    s->in[1].t->dtype != TY_SCALAR || s->in[2].t->dtype != TY_SCALAR)
		return;
	fuse_into(it, s, cs, 0, kern_select_compare_f32, kern_select_compare_f64);
}

void interp_fuse(Interp *it)
{
	if (it->opt.keep_all || it->opt.plain)
		return;
	size_t *readers = util_calloc(it->nt ? it->nt : 1, sizeof(size_t));
	Step **by_tensor = util_calloc(it->nt ? it->nt : 1, sizeof(Step *));
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		for (size_t a = 0; a < s->op->frag->nparams; a++) {
			const KArg *ka = &s->in[a];
			if (ka->t)
				readers[tensor_index(it, ka->t)]++;
			for (size_t k = 0; k < ka->n && ka->items; k++)
				readers[tensor_index(it, ka->items[k])]++;
		}
		for (size_t k = 0; k < s->nout; k++)
			by_tensor[tensor_index(it, s->out[k])] = s;
	}
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		if (s->run) {
			fuse_max_pool(it, s, readers, by_tensor);
			fuse_select(it, s, readers, by_tensor);
		}
	}
	util_free(by_tensor);
	util_free(readers);
}

/* ---- views --------------------------------------------------------------------------- */

InterpView interp_plan_view(const Interp *it, const Step *s, bool updates)
{
	ShapeOp p = s->op->prim;
	if ((p != SHAPE_OP_RESHAPE && p != SHAPE_OP_SQUEEZE && p != SHAPE_OP_UNSQUEEZE) ||
	    !s->run || s->dynamic || s->nout != 1 || !s->in[0].t || it->opt.keep_all ||
	    it->opt.plain)
		return VIEW_NONE;
	uint32_t a = tensor_index(it, s->in[0].t), b = tensor_index(it, s->out[0]);
	if (it->pinned[b] || !it->owned[b] || s->in[0].t->dtype != s->out[0]->dtype ||
	    s->in[0].t->count != s->out[0]->count)
		return VIEW_NONE;
	if (it->pinned[a])
		return updates ? VIEW_NONE : VIEW_PINNED;
	if (!it->owned[a] || it->offset[a] < 0)
		return VIEW_NONE;
	for (size_t k = 0; k < s->nfrees; k++)
		if (s->frees[k] == a)
			return VIEW_TAKES;
	return VIEW_NONE;
}
