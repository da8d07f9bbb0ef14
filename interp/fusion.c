/*
 * fusion.c - operations the executor runs as one: an argmax_pool whose
 * indices only a sample with the same window reads becomes a max pooling
 * at the sample (spec 4.3; the same results as the two primitives).
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

void interp_fuse_max_pools(Interp *it)
{
	if (it->opt.keep_all)
		return;
	size_t *readers = util_calloc(it->nt ? it->nt : 1, sizeof(size_t));
	for (size_t i = 0; i < it->nsteps; i++)
		for (size_t a = 0; a < it->steps[i].op->frag->nparams; a++) {
			const KArg *ka = &it->steps[i].in[a];
			if (ka->t)
				readers[tensor_index(it, ka->t)]++;
			for (size_t k = 0; k < ka->n && ka->items; k++)
				readers[tensor_index(it, ka->items[k])]++;
		}
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		if (s->op->prim != SHAPE_OP_SAMPLE || !s->in[1].t)
			continue;
		uint32_t ix = tensor_index(it, s->in[1].t);
		if (ix >= it->g->ntensors || readers[ix] != 1 || it->pinned[ix])
			continue;
		FlatOp *a = flat_tensor(it->g, ix)->producer;
		if (!a || a->prim != SHAPE_OP_ARGMAX_POOL || !same_window(a, s->op))
			continue;
		Step *as = &it->steps[0];
		while (as->op != a)
			as++;
		as->run = NULL;
		s->fused = true;
		s->run = it->opt.precision == INTERP_DOUBLE ? kern_max_pool_f64
							    : kern_max_pool_f32;
	}
	util_free(readers);
}
