/*
 * dynamic.c - shapes known only when the graph runs (tract's dialect): the
 * count of tract_onnx_non_zero, the k of a tract_core_topk given as a
 * tensor, the extent of a tract_core_dyn_slice, and everything computed
 * from them. Their results have no shape when the graph is built; each
 * such step runs the shape function of its operation (shapes/), as the
 * check does, on its inputs' shapes and now known values, just before its
 * kernel, and its results are allocated at those shapes. They live
 * outside the planned block of activations.
 *
 * The same steps run the shapes that hold a symbol the run binds: the
 * past length of a tract_transformers_dyn_kv_cache, which is the length
 * of its cache when it runs (0 the first time, then growing by each
 * run's input, as in a session of tract). Their shapes are the check's,
 * evaluated with the symbols' values; their arguments holding symbols
 * are given to the kernels with the values in their place.
 */
#include "interp/interp_internal.h"

#include <string.h>

/* Values handed to shape functions: a tensor of more items than this is
 * not read for them (its results' shapes stay unknown: E1309). */
enum { KNOWN_ITEMS_MAX = 1 << 20 };

/* A symbol the run binds, and its value once bound. */
typedef struct RunSymbol {
	const char *name;
	int64_t value;
	bool bound;
} RunSymbol;

enum { KV_INPUT, KV_NAME, KV_AXIS, KV_DATUM, KV_PAST, KV_SEQUENCE };

/* The symbol a dyn_kv_cache binds: the extent of past_sequence_shape
 * along its axis, when it is a lone symbol. */
static const char *cache_symbol(const FlatOp *op)
{
	const Value *past = flat_op_args(op)[KV_PAST];
	int64_t axis = flat_op_args(op)[KV_AXIS]->u.i;
	if (axis < 0 || (uint64_t)axis >= past->n || past->u.items[axis]->kind != VAL_SYMBOL)
		return NULL;
	return dim_symbol_name(past->u.items[axis]->u.dim);
}

/* An operation whose kernel gives its results their shapes (the count
 * of boxes non_max_suppression keeps is its work), binding the symbols
 * the check wrote there (tract's n). */
static bool self_shaping(const FlatOp *op)
{
	return op->prim == SHAPE_OP_TRACT_ONNX_NON_MAX_SUPPRESSION;
}

static void add_run_symbol(Interp *it, const char *name)
{
	for (size_t k = 0; name && k < it->nsyms; k++)
		if (strcmp(it->syms[k].name, name) == 0)
			return;
	if (!name)
		return;
	it->syms = util_realloc(it->syms, (it->nsyms + 1) * sizeof(*it->syms));
	it->syms[it->nsyms++] = (RunSymbol){ name, 0, false };
}

/* The lone symbol of extent d, or NULL. */
static const char *lone_symbol(int64_t d)
{
	return dim_is_symbolic(d) ? dim_symbol_name(dim_expr_of(d)) : NULL;
}

void interp_find_run_symbols(Interp *it)
{
	for (size_t i = 0; i < it->g->nops; i++) {
		const FlatOp *op = it->g->ops[i];
		if (op->prim == SHAPE_OP_TRACT_TRANSFORMERS_DYN_KV_CACHE)
			add_run_symbol(it, cache_symbol(op));
		for (size_t r = 0; self_shaping(op) && r < op->frag->nresults; r++) {
			const Value *v = op->results[r];
			const FlatTensor *t = v && v->kind == VAL_TENSOR ? v->u.t : NULL;
			for (uint32_t d = 0; t && t->known && d < t->rank; d++)
				add_run_symbol(it, lone_symbol(t->dims[d]));
		}
	}
}

static RunSymbol *run_symbol(const Interp *it, const char *name)
{
	for (size_t k = 0; k < it->nsyms; k++)
		if (strcmp(it->syms[k].name, name) == 0)
			return &it->syms[k];
	return NULL;
}

typedef struct BoundCheck {
	const Interp *it;
	bool ok;
} BoundCheck;

static void check_symbol(void *ctx, const char *name)
{
	BoundCheck *c = ctx;
	c->ok &= run_symbol(c->it, name) != NULL;
}

bool interp_dims_run_bound(const Interp *it, const int64_t *dims, uint32_t rank)
{
	BoundCheck c = { it, it->nsyms > 0 };
	for (uint32_t d = 0; d < rank && c.ok; d++)
		if (dim_is_symbolic(dims[d]))
			dim_symbols(dim_expr_of(dims[d]), check_symbol, &c);
	return c.ok;
}

bool interp_value_run_bound(const Interp *it, const Value *v)
{
	BoundCheck c = { it, it->nsyms > 0 };
	if (v->kind == VAL_SYMBOL)
		dim_symbols(v->u.dim, check_symbol, &c);
	else if (v->kind == VAL_ARRAY || v->kind == VAL_TUPLE)
		for (size_t i = 0; i < v->n && c.ok; i++)
			c.ok = interp_value_run_bound(it, v->u.items[i]);
	return c.ok;
}

static bool symbol_value(void *ctx, const char *name, int64_t *out)
{
	const RunSymbol *r = run_symbol(ctx, name);
	if (!r || !r->bound)
		return false;
	*out = r->value;
	return true;
}

/* v with the symbols the run bound replaced by their values; NULL when
 * one has none yet. */
static const Value *resolved(Interp *it, const Value *v)
{
	if (v->kind == VAL_SYMBOL) {
		Value *x = arena_array(&it->run_arena, 1, sizeof(Value));
		memset(x, 0, sizeof(*x));
		x->kind = VAL_INT;
		return dim_eval(v->u.dim, symbol_value, it, &x->u.i) ? x : NULL;
	}
	if ((v->kind != VAL_ARRAY && v->kind != VAL_TUPLE) || !value_holds(v, VAL_SYMBOL))
		return v;
	Value *x = arena_array(&it->run_arena, 1, sizeof(Value));
	*x = *v;
	const Value **items = arena_array(&it->run_arena, v->n ? v->n : 1, sizeof(*items));
	for (size_t i = 0; i < v->n; i++)
		if (!(items[i] = resolved(it, v->u.items[i])))
			return NULL;
	x->u.items = items;
	return x;
}

bool interp_plan_dynamic(Interp *it)
{
	const FlatGraph *g = it->g;
	bool any = false, ok = true;
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		for (size_t p = 0; p < s->op->frag->nparams; p++)
			s->symbolic_args |= value_holds(flat_op_args(s->op)[p], VAL_SYMBOL);
		s->dynamic = s->symbolic_args;
		if (s->op->prim == SHAPE_OP_TRACT_TRANSFORMERS_DYN_KV_CACHE)
			s->dynamic = true;
		for (size_t k = 0; k < s->nout; k++) {
			size_t t = (size_t)(s->out[k] - it->t);
			if (t >= g->ntensors)
				continue;
			const FlatTensor *ft = flat_tensor(g, t);
			Shape sh = flat_tensor_shape(ft);
			if (ft->known && !shape_is_symbolic(&sh))
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
	util_free(it->syms);
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
		case TY_SCALAR:
		case TY_STRING:
		case TY_GENERIC:
		case TY_TENSOR:
		case TY_ARRAY:
		case TY_TUPLE:
		case TY_EMPTY_ARRAY:
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

/* The shapes of s's results by its operation's shape function, on its
 * inputs' shapes and values; false after reporting. */
static bool infer_shapes(Interp *it, const Step *s)
{
	enum { MAXP = 16 };
	const FlatOp *op = s->op;
	const SemaFrag *f = op->frag;
	ShapeIn in[MAXP];
	Shape one[MAXP];
	DType dtypes[MAXP];
	ShapeKnown values[MAXP];
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
	ShapeCall c = { .op = (ShapeOp)op->prim, .args = s->args, .in = in,
			.arena = &it->run_arena, .msg = &msg, .hint = &hint,
			.tract_rules = it->host.dialect == DIALECT_TRACT, .dims = it->dimtab,
			.in_dtypes = dtypes, .values = values, .lenient = it->host.lenient };
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

/* The check's shape of result t, its symbols evaluated; false when it
 * has no shape or a symbol no value. */
static bool evaluated_shape(Interp *it, const ITensor *t, Shape *out)
{
	size_t i = (size_t)(t - it->t);
	const FlatTensor *ft = flat_tensor(it->g, i);
	if (!ft->known || ft->rank > INTERP_MAX_RANK)
		return false;
	int64_t *dims = arena_array(&it->run_arena, ft->rank ? ft->rank : 1, sizeof(int64_t));
	for (uint32_t d = 0; d < ft->rank; d++) {
		dims[d] = ft->dims[d];
		if (dim_is_symbolic(dims[d]) &&
		    !dim_eval(dim_expr_of(dims[d]), symbol_value, it, &dims[d]))
			return false;
	}
	*out = (Shape){ dims, ft->rank, true };
	return true;
}

bool interp_infer_step(Interp *it, Step *s)
{
	arena_reset(&it->run_arena);
	if (s->op->prim == SHAPE_OP_TRACT_TRANSFORMERS_DYN_KV_CACHE) {
		/* its past length is its cache's */
		RunSymbol *r = run_symbol(it, cache_symbol(s->op) ? cache_symbol(s->op) : "");
		if (r) {
			r->value = interp_cache_length(s);
			r->bound = true;
		}
	}
	s->args = flat_op_args(s->op);
	if (s->symbolic_args) {
		const SemaFrag *f = s->op->frag;
		const Value **args = arena_array(&it->run_arena, f->nparams ? f->nparams : 1, sizeof(*args));
		for (size_t p = 0; p < f->nparams; p++)
			if (!(args[p] = resolved(it, flat_op_args(s->op)[p]))) {
				interp_fail(it, s, DIAG_E1309, "'%s': its argument '%s' holds a symbol that has no value yet when it runs", f->name, f->params[p].name);
				return false;
			}
		s->args = args;
	}
	if (self_shaping(s->op)) { /* its kernel says */
		static const Shape empty = { NULL, 0, true };
		for (size_t k = 0; k < s->nout; k++)
			if (!set_shape(it, s, s->out[k], &empty, DT_NONE))
				return false;
		return true;
	}
	bool evaluated = true;
	for (size_t k = 0; k < s->nout && evaluated; k++) {
		Shape sh;
		evaluated = evaluated_shape(it, s->out[k], &sh) &&
			    set_shape(it, s, s->out[k], &sh, DT_NONE);
	}
	return evaluated || infer_shapes(it, s);
}


bool interp_shape_result(Interp *it, const Step *s, size_t k,
			 const int64_t *dims, uint32_t rank)
{
	ITensor *t = s->out[k];
	Shape sh = { dims, rank, true };
	if (!set_shape(it, s, t, &sh, DT_NONE))
		return false;
	const FlatTensor *ft = flat_tensor(it->g, (size_t)(t - it->t));
	for (uint32_t d = 0; ft->known && ft->rank == rank && d < rank; d++) {
		RunSymbol *r = lone_symbol(ft->dims[d]) ? run_symbol(it, lone_symbol(ft->dims[d])) : NULL;
		if (r) {
			r->value = dims[d];
			r->bound = true;
		}
	}
	return interp_alloc(it, t);
}
