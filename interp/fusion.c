/*
 * fusion.c - operations the executor runs as one, with the same results
 * as the primitives: an argmax_pool whose indices only a sample with the
 * same window reads becomes a max pooling at the sample (spec 4.3); a
 * comparison whose result only a select of its two operands reads (max,
 * min, and so relu and clamp) is computed by the select (4.2). Not with
 * keep_all (--dump-all writes every tensor); with statistics, a
 * tensor bound to a name of the graph is never the one fused away (its
 * items must exist when its step ends). And reshape, squeeze and
 * unsqueeze give views of their input where its buffer outlives them.
 */
#include "interp/interp_internal.h"

#include <string.h>

static uint32_t tensor_index(const Interp *it, const ITensor *t)
{
	return (uint32_t)(t - it->t);
}

/* The step that runs what s computes: a step fused into one that is
 * itself fused (a comparison into a select inside a chain) is run by
 * the step at the end. */
static const Step *runner_of(const Step *s)
{
	while (s->fused_into)
		s = s->fused_into;
	return s;
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
	producer->fused_into = s;
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
	if (ix >= it->g->ntensors || readers[ix] != 1 || it->pinned[ix] || interp_watched(it, ix))
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
	if (ix >= it->g->ntensors || readers[ix] != 1 || it->pinned[ix] || interp_watched(it, ix))
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

/* ---- chains of element-wise steps ---------------------------------------------------- */

/* Whether s can be a link of a chain: an element-wise step on reals of
 * a kernel the chain runs (unary, binary arithmetic but pow, a select
 * with its comparison fused in), whose operands are reals of known
 * shapes and whose result has the shape `like` (NULL: any). */
static bool chain_link(const Interp *it, const Step *s, const ITensor *like)
{
	ShapeOp p = s->op->prim;
	InterpPrecision prec = it->opt.precision;
	if (!s->run || s->dynamic || s->nout != 1 || s->out[0]->dtype != TY_SCALAR || s->state)
		return false;
	size_t first = 0, n = 2;
	if (s->run == interp_kernel(SHAPE_OP_NEG, prec)) /* kern_unary */
		n = 1;
	else if (s->run == interp_kernel(SHAPE_OP_ADD, prec) && p != SHAPE_OP_POW) /* kern_binary */
		n = 2;
	else if (s->run == (prec == INTERP_DOUBLE ? kern_select_compare_f64 : kern_select_compare_f32))
		first = 1;
	else
		return false;
	for (size_t i = first; i < first + n; i++)
		if (!s->in[i].t || s->in[i].t->dtype != TY_SCALAR)
			return false;
	if (!like)
		return true;
	const ITensor *o = s->out[0];
	if (o->rank != like->rank)
		return false;
	for (size_t d = 0; d < o->rank; d++)
		if (o->dims[d] != like->dims[d])
			return false;
	return true;
}

/* The parameter of s that reads tensor t alone (-1: none, or more). */
static int reads_once(const Step *s, const ITensor *t)
{
	int found = -1;
	for (size_t a = 0; a < s->op->frag->nparams; a++)
		if (s->in[a].t == t && !(a < 32 && (s->unread >> a & 1))) {
			if (found >= 0)
				return -1;
			found = (int)a;
		}
	return found;
}

/* Whether step t, between two links of a chain, may run before the
 * chain's end as it does: it does not read the chain's last result (no
 * other link result has another reader), and it neither updates, nor
 * may become a view (interp_plan_view), nor has shapes known late. */
static bool passable(const Step *t, const Step *prev)
{
	ShapeOp p = t->op->prim;
	if (t->dynamic || p == SHAPE_OP_UPDATE || p == SHAPE_OP_RESHAPE ||
	    p == SHAPE_OP_SQUEEZE || p == SHAPE_OP_UNSQUEEZE || t->nested)
		return false;
	for (size_t a = 0; a < t->op->frag->nparams; a++) {
		if (t->in[a].t == prev->out[0])
			return false;
		for (size_t k = 0; k < t->in[a].n && t->in[a].items; k++)
			if (t->in[a].items[k] == prev->out[0])
				return false;
	}
	return true;
}

/* Whether a link of c reads t: a tensor the chain reads when it runs. */
static bool chain_reads(const Chain *c, const ITensor *t)
{
	for (size_t l = 0; l < c->n; l++)
		for (size_t a = 0; a < c->links[l].s->op->frag->nparams; a++)
			if (c->links[l].s->in[a].t == t)
				return true;
	return false;
}

/* Steps a chain may pass between two links (a batch normalization's
 * variance and epsilon come between its subtraction and division). */
#define CHAIN_MAX_PASSED 4

/* Chains of steps i < j < ... each reading the one before as its only
 * reader, with at most a few other steps between two links (those that
 * run nothing, and passable ones): the last link runs them all in one
 * pass (kern_chain), the other links nothing; the steps passed run as
 * before, ahead of the chain. What the chain reads and a step from the
 * first link to the last frees is freed by the last instead, since the
 * chain reads its operands when it runs. */
static void fuse_chains(Interp *it, const size_t *effective_readers)
{
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		if (!chain_link(it, s, NULL))
			continue;
		Chain c = { .n = 1 };
		c.links[0] = (ChainLink){ s, -1 };
		size_t last = i, passed = 0;
		for (size_t j = i + 1; j < it->nsteps && c.n < CHAIN_MAX_LINKS; j++) {
			Step *t = &it->steps[j];
			if (!t->run)
				continue;
			const Step *prev = c.links[c.n - 1].s;
			uint32_t ix = tensor_index(it, prev->out[0]);
			int param = reads_once(t, prev->out[0]);
			if (param < 0 || effective_readers[ix] != 1 || it->pinned[ix] || interp_watched(it, ix) ||
			    !chain_link(it, t, s->out[0])) {
				if (passed++ < CHAIN_MAX_PASSED && passable(t, prev))
					continue;
				break;
			}
			c.links[c.n++] = (ChainLink){ t, param };
			last = j;
			passed = 0;
		}
		if (c.n < 2)
			continue;
		Step *end = &it->steps[last];
		Chain *keep = arena_alloc(&it->arena, sizeof(Chain));
		*keep = c;
		size_t nfrees = 0;
		for (size_t k = i; k <= last; k++)
			nfrees += it->steps[k].nfrees;
		uint32_t *frees = arena_array(&it->arena, nfrees ? nfrees : 1, sizeof(uint32_t));
		nfrees = 0;
		for (size_t k = i, l = 0; k <= last; k++) {
			Step *m = &it->steps[k];
			size_t kept = 0;
			for (size_t f = 0; f < m->nfrees; f++)
				if (k == last || chain_reads(&c, &it->t[m->frees[f]]))
					frees[nfrees++] = m->frees[f];
				else
					m->frees[kept++] = m->frees[f];
			m->nfrees = kept;
			if (l < c.n && c.links[l].s == m && k < last) {
				m->run = NULL;
				m->fused_into = end;
				l++;
			}
		}
		end->frees = frees;
		end->nfrees = nfrees;
		end->unread |= 1u << c.links[c.n - 1].param;
		end->chain = keep;
		end->run = it->opt.precision == INTERP_DOUBLE ? kern_chain_f64 : kern_chain_f32;
		i = last;
	}
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
	/* the readers that still read: not those fused into another */
	memset(readers, 0, (it->nt ? it->nt : 1) * sizeof(size_t));
	for (size_t i = 0; i < it->nsteps; i++) {
		const Step *s = &it->steps[i];
		for (size_t a = 0; s->run && a < s->op->frag->nparams; a++) {
			const KArg *ka = &s->in[a];
			if (ka->t && !(a < 32 && (s->unread >> a & 1)))
				readers[tensor_index(it, ka->t)]++;
			for (size_t k = 0; k < ka->n && ka->items; k++)
				readers[tensor_index(it, ka->items[k])]++;
		}
	}
	fuse_chains(it, readers);
	for (size_t i = 0; i < it->nsteps; i++)
		if (it->steps[i].fused_into)
			((Step *)runner_of(&it->steps[i]))->nfused++;
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

/* ---- the plan, as the user sees it ---------------------------------------------------- */

const char *interp_plan_method(const Interp *it, size_t i)
{
	return interp_conv_by_winograd(it, &it->steps[i]) ? "Winograd F(2x2, 3x3)" : NULL;
}

size_t interp_plan_count(const Interp *it)
{
	return it->nsteps;
}

const FlatOp *interp_plan_step(const Interp *it, size_t i, InterpHow *how,
			       const FlatOp **by, size_t *nfused)
{
	const Step *s = &it->steps[i];
	*by = NULL;
	*nfused = 0;
	if (s->fused_into) {
		*how = INTERP_FUSED;
		*by = runner_of(s)->op;
	} else if (s->view)
		*how = INTERP_VIEW;
	else if (s->run)
		*how = INTERP_RUNS;
	else
		*how = INTERP_NOTHING;
	*nfused = s->nfused;
	return s->op;
}
