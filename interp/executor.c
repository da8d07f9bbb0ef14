/*
 * executor.c - the executor: a plan of steps over the flat graph (one per
 * operation, in its topological order), buffers allocated when a step
 * runs and freed after their last reader, the activations placed in one
 * block planned before running, and variable updates applied when the
 * cycle ends (spec 4.8). The kernels of 4.1 and 4.8 are in k_tensor.c,
 * the fusion of operations in fusion.c.
 */
#include "interp/interp_internal.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- helpers ------------------------------------------------------------------ */

size_t interp_item_size(const Interp *it, TypeKind k)
{
	return k == TY_SCALAR ? it->rsize : k == TY_INTEGER ? 8 : 1;
}

void interp_fail(Interp *it, const Step *s, DiagCode code, const char *fmt,
		 ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(it->diags, diag_code_level(code), code,
			    s ? flat_op_loc(s->op) : loc_make(NULL, 0, 0), fmt, ap);
	va_end(ap);
	if (s)
		flat_note_frames(it->diags, d, flat_op_frame(s->op));
}

/* Buffers (weights, activations) come from malloc, which reuses what a
 * step freed for the next without faulting in fresh pages, aligned for
 * vector loads; never huge pages, which cost several times more after the
 * host of a virtual machine has taken memory back (util/heap.c). */
enum { BUFFER_ALIGN = 64 };

static void *alloc_or_fail(Interp *it, const Step *s, size_t n, size_t size)
{
	void *p = NULL;
	if (n == 0)
		n = 1;
	if (n <= SIZE_MAX / size)
		p = util_try_aligned(n * size, BUFFER_ALIGN);
	if (!p)
		interp_fail(it, s, DIAG_E1305, "%s: cannot allocate %zu bytes", s ? s->op->frag->name : "nnef-run", n * size);
	return p;
}

/* Scratch memory is kept between steps (in blocks reused by size) so
 * that a run does not fault in fresh pages for every operation. */
void *interp_scratch(Interp *it, const Step *s, size_t n, size_t size)
{
	size_t bytes = (n ? n : 1) > SIZE_MAX / size ? SIZE_MAX : (n ? n : 1) * size;
	ScratchBlock *best = NULL;
	for (size_t i = 0; i < it->nblocks; i++) {
		ScratchBlock *b = &it->blocks[i];
		if (!b->used && b->size >= bytes && (!best || b->size < best->size))
			best = b;
	}
	if (best) {
		best->used = true;
		return best->p;
	}
	/* unused blocks too small for this request are given back */
	size_t k = 0;
	for (size_t i = 0; i < it->nblocks; i++) {
		if (!it->blocks[i].used)
			util_free(it->blocks[i].p);
		else
			it->blocks[k++] = it->blocks[i];
	}
	it->nblocks = k;
	void *p = alloc_or_fail(it, s, bytes, 1);
	if (!p)
		return NULL;
	it->blocks = util_realloc(it->blocks, (it->nblocks + 1) * sizeof(*it->blocks));
	it->blocks[it->nblocks++] = (ScratchBlock){ p, bytes, true };
	return p;
}

void interp_release(Interp *it, void *p)
{
	for (size_t i = 0; p && i < it->nblocks; i++)
		if (it->blocks[i].p == p)
			it->blocks[i].used = false;
}

bool interp_alloc(Interp *it, ITensor *t)
{
	if (t->data)
		return true;
	size_t es = interp_item_size(it, t->dtype);
	const Step *s = it->step_now < it->nsteps ? &it->steps[it->step_now] : NULL;
	t->data = alloc_or_fail(it, s, t->count, es);
	return t->data != NULL;
}

bool interp_karg_is(const Step *s, size_t p, const char *str)
{
	const Value *v = s->args[p];
	size_t n = strlen(str);
	return v->kind == VAL_STR && v->n == n &&
	       memcmp(v->u.str, str, n) == 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- planning ------------------------------------------------------------------- */

static uint32_t add_tensor(Interp *it)
{
	if (it->nt == it->capt) {
		it->capt = it->capt ? 2 * it->capt : 64;
		it->t = util_realloc(it->t, it->capt * sizeof(*it->t));
		it->pinned = util_realloc(it->pinned, it->capt * sizeof(bool));
		it->owned = util_realloc(it->owned, it->capt * sizeof(bool));
	}
	uint32_t i = (uint32_t)it->nt++;
	memset(&it->t[i], 0, sizeof(it->t[i]));
	it->pinned[i] = false;
	it->owned[i] = true;
	return i;
}

/* The items of literal v, flattened in row-major order, as doubles into
 * out[*k...] (cap at most). */
static void literal_item(const Value *v, size_t *k, double *out, size_t cap)
{
	if (v->kind == VAL_ARRAY) {
		for (size_t i = 0; i < v->n; i++)
			literal_item(v->u.items[i], k, out, cap);
		return;
	}
	double x = v->kind == VAL_SCALAR ? v->u.s
		 : v->kind == VAL_INT ? (double)v->u.i
		 : v->kind == VAL_BOOL ? (double)v->u.b : 0.0;
	if (*k < cap)
		out[*k] = x;
	(*k)++;
}

/* A tensor holding literal v: rank 0 for a number (spec 3.3.1: a literal
 * where a tensor is expected has the singleton shape); in tract's
 * dialect, an array of numbers (nested: of rank its depth) is the tensor
 * of its items, as tract reads it. Returns its index. */
static uint32_t literal_tensor(Interp *it, const Value *v, TypeKind want)
{
	uint32_t i = add_tensor(it);
	ITensor *t = &it->t[i];
	int64_t dims[INTERP_MAX_RANK];
	uint32_t rank = 0;
	const Value *first = v;
	for (; first->kind == VAL_ARRAY && rank < INTERP_MAX_RANK; first = first->n ? first->u.items[0] : first) {
		dims[rank++] = first->n;
		if (!first->n)
			break;
	}
	if (want != TY_SCALAR && want != TY_INTEGER && want != TY_LOGICAL)
		want = first->kind == VAL_SCALAR ? TY_SCALAR
		     : first->kind == VAL_INT ? TY_INTEGER : TY_LOGICAL;
	size_t count = (size_t)dims_volume(dims, rank), k = 0;
	double *x = util_malloc((count ? count : 1) * sizeof(double));
	literal_item(v, &k, x, count);
	t->dtype = want;
	t->rank = rank;
	if (rank) {
		int64_t *kept = arena_array(&it->arena, rank, sizeof(int64_t));
		memcpy(kept, dims, rank * sizeof(int64_t));
		t->dims = kept;
	}
	t->count = count;
	t->data = util_malloc((count ? count : 1) * 8);
	for (size_t n = 0; n < count; n++) {
		if (want == TY_SCALAR && it->rsize == 4)
			((float *)t->data)[n] = (float)x[n];
		else if (want == TY_SCALAR)
			((double *)t->data)[n] = x[n];
		else if (want == TY_INTEGER)
			((int64_t *)t->data)[n] = (int64_t)x[n];
		else
			((uint8_t *)t->data)[n] = x[n] != 0.0;
	}
	/* integers beyond 2^53 are not held exactly by a double */
	if (want == TY_INTEGER && rank == 0 && v->kind == VAL_INT)
		*(int64_t *)t->data = v->u.i;
	util_free(x);
	it->pinned[i] = true;
	return i;
}

/* The data type a tensor parameter declares (TY_GENERIC bound by the
 * op); TY_TENSOR when it accepts any. */
static TypeKind param_dtype(const FlatOp *op, const Type *t)
{
	if (t->kind == TY_ARRAY)
		t = t->item;
	if (t->kind != TY_TENSOR || !t->item)
		return TY_TENSOR;
	if (t->item->kind == TY_GENERIC)
		return op->generic ? (TypeKind)(op->generic - 1) : TY_TENSOR;
	return t->item->kind;
}

/* The data type a tensor of the flat graph holds: in tract's dialect, that
 * of its datum type (a tensor<scalar> of datum type bool holds logicals). */
static TypeKind tensor_kind(const FlatTensor *ft)
{
	if (ft->datum == DT_NONE || ft->datum == DT_STRING)
		return flat_tensor_kind(ft);
	DType d = (DType)ft->datum;
	return d == DT_BOOL ? TY_LOGICAL : dtype_is_integer(d) ? TY_INTEGER : TY_SCALAR;
}

/* tract's dialect: the data type of a literal given for tensor parameter
 * p, which tract casts to the type of the operation's tensors: the
 * result's where p is declared as the result is (add, select's values),
 * else another parameter's of the same declaration (comparisons). */
static TypeKind literal_kind(const FlatOp *op, size_t p, TypeKind want)
{
	const SemaFrag *f = op->frag;
	const Type *ty = f->params[p].type;
	const Value *r = op->results[0];
	/* the scales of the quantized products stay reals beside their
	 * integer operands and result */
	bool quant = op->prim == SHAPE_OP_TRACT_CORE_EINSUM_Q ||
		     op->prim == SHAPE_OP_TRACT_CORE_QCONV || op->prim == SHAPE_OP_TRACT_CORE_QMATMUL;
	if (quant && flat_op_args(op)[p]->kind == VAL_SCALAR)
		return TY_SCALAR;
	if (f->nresults && f->results[0].type == ty && r && r->kind == VAL_TENSOR)
		return tensor_kind(r->u.t);
	for (size_t q = 0; q < f->nparams; q++) {
		const Value *v = flat_op_args(op)[q];
		if (q != p && f->params[q].type == ty && v->kind == VAL_TENSOR)
			return tensor_kind(v->u.t);
	}
	return want;
}

/* The tensor index of value v given for a tensor parameter. */
static uint32_t arg_tensor(Interp *it, const Value *v, TypeKind want)
{
	if (v->kind == VAL_TENSOR)
		return flat_tensor_id(v->u.t);
	return literal_tensor(it, v, want);
}

/* Per parameter: tensor indices (UINT32_MAX: an attribute). Pointers
 * into it->t are set once every tensor exists. */
typedef struct PlanArg {
	uint32_t *idx;
	size_t n;
	bool array;
} PlanArg;

static PlanArg *plan_args(Interp *it, const FlatOp *op)
{
	const SemaFrag *f = op->frag;
	PlanArg *pa = arena_array(&it->arena, f->nparams ? f->nparams : 1,
				  sizeof(*pa));
	for (size_t p = 0; p < f->nparams; p++) {
		const Type *ty = f->params[p].type;
		const Value *v = flat_op_args(op)[p];
		memset(&pa[p], 0, sizeof(pa[p]));
		if (!ty->has_tensor) {
			/* tract's dialect: a tensor given for an attribute
			 * (trilu's k from an input) is read by the kernel */
			if (v->kind == VAL_TENSOR) {
				pa[p].n = 1;
				pa[p].idx = arena_alloc(&it->arena, sizeof(uint32_t));
				pa[p].idx[0] = flat_tensor_id(v->u.t);
			}
			continue;
		}
		TypeKind want = param_dtype(op, ty);
		if (it->host.dialect == DIALECT_TRACT && v->kind != VAL_TENSOR)
			want = literal_kind(op, p, want);
		if (ty->kind == TY_ARRAY && v->kind == VAL_ARRAY &&
		    ty->item->kind == TY_TUPLE) {
			/* tract_core_scan's (name, wire, ...) tuples: the
			 * wire of each */
			pa[p].array = true;
			pa[p].n = v->n;
			pa[p].idx = arena_array(&it->arena, pa[p].n ? pa[p].n : 1,
						sizeof(uint32_t));
			for (size_t k = 0; k < pa[p].n; k++) {
				const Value *w = v->u.items[k]->u.items[1];
				pa[p].idx[k] = arg_tensor(it, w, w->kind == VAL_TENSOR ? TY_TENSOR : w->kind == VAL_INT ? TY_INTEGER : w->kind == VAL_BOOL ? TY_LOGICAL : TY_SCALAR);
			}
		} else if (ty->kind == TY_ARRAY && v->kind == VAL_ARRAY) {
			pa[p].array = true;
			pa[p].n = v->n;
			pa[p].idx = arena_array(&it->arena, pa[p].n ? pa[p].n : 1,
						sizeof(uint32_t));
			for (size_t k = 0; k < pa[p].n; k++)
				pa[p].idx[k] = arg_tensor(it, v->u.items[k], want);
		} else {
			pa[p].n = 1;
			pa[p].idx = arena_alloc(&it->arena, sizeof(uint32_t));
			pa[p].idx[0] = arg_tensor(it, v, want);
		}
	}
	return pa;
}

/* The tensors of op's results, in order (array results: their items). */
static size_t result_tensors(const FlatOp *op, uint32_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t r = 0; r < op->frag->nresults; r++) {
		const Value *v = op->results[r];
		if (v->kind == VAL_TENSOR) {
			if (n < cap)
				out[n] = flat_tensor_id(v->u.t);
			n++;
		} else if (v->kind == VAL_ARRAY) {
			for (size_t k = 0; k < v->n; k++) {
				if (n < cap)
					out[n] = flat_tensor_id(v->u.items[k]->u.t);
				n++;
			}
		}
	}
	return n;
}

/* tract's dialect: whether t's datum type is one nnef-run does not compute
 * (strings; the quantized types, whose arithmetic it does not have). */
static bool unrunnable_datum(const FlatTensor *t)
{
	DType d = (DType)t->datum;
	return d == DT_STRING || d == DT_QU8 || d == DT_QI8 || d == DT_QI32;
}

/* A result's tensor (an array result's first item), or NULL. */
static const FlatTensor *first_tensor(const Value *v)
{
	return v->kind == VAL_TENSOR ? v->u.t : v->n ? v->u.items[0]->u.t : NULL;
}

/* Why op cannot run, reported; false when it can. */
static bool cannot_run(Interp *it, const FlatOp *op)
{
	if (op->prim == SHAPE_OP_NONE) {
		Diag *d = diag_add(it->diags, DIAG_E1302, flat_op_loc(op), "'%s' is a custom operation: nnef-run has kernels for the standard primitives only, so the graph cannot be run", op->frag->name);
		flat_note_frames(it->diags, d, flat_op_frame(op));
		return true;
	}
	if (!interp_has_kernel((ShapeOp)op->prim, INTERP_FLOAT)) {
		Diag *d = diag_add(it->diags, DIAG_E1302, flat_op_loc(op), "'%s' is an operation of tract's registries, which nnef-run checks but has no kernel for yet, so the graph cannot be run", op->frag->name);
		flat_note_frames(it->diags, d, flat_op_frame(op));
		return true;
	}
	for (size_t r = 0; r < op->frag->nresults; r++) {
		const FlatTensor *t = first_tensor(op->results[r]);
		Shape shape = t ? flat_tensor_shape(t) : (Shape){ NULL, 0, false };
		if (t && shape.known && shape_is_symbolic(&shape) &&
		    !interp_dims_run_bound(it, shape.dims, shape.rank)) {
			StrBuf b;
			sb_init(&b);
			shape_print(&b, &shape);
			Diag *d = diag_add(it->diags, DIAG_E1309, flat_op_loc(op), "'%s' gives '%s' of shape %s, known only when the model runs: nnef-run needs every shape, so the graph cannot be run", op->frag->name, t->name, sb_str(&b));
			sb_free(&b);
			diag_hint(it->diags, d, "give the graph's inputs fixed shapes with --input-shape");
			flat_note_frames(it->diags, d, flat_op_frame(op));
			return true;
		}
		if (!t || !unrunnable_datum(t))
			continue;
		Diag *d = diag_add(it->diags, DIAG_E1302, flat_op_loc(op), "'%s' gives '%s' of datum type %s, which nnef-run does not compute (it computes booleans, integers and floats of every width), so the graph cannot be run", op->frag->name, t->name, dtype_name((DType)t->datum));
		flat_note_frames(it->diags, d, flat_op_frame(op));
		return true;
	}
	for (size_t a = 0; a < op->frag->nparams; a++)
		if (value_holds(flat_op_args(op)[a], VAL_SYMBOL) &&
		    !interp_value_run_bound(it, flat_op_args(op)[a])) {
			Diag *d = diag_add(it->diags, DIAG_E1309, flat_op_loc(op), "'%s' is given an extent of unknown value (a symbol of tract_symbol): nnef-run needs every shape, so the graph cannot be run", op->frag->name);
			diag_hint(it->diags, d, "give the graph's inputs fixed shapes with --input-shape, and the other extents fixed values");
			flat_note_frames(it->diags, d, flat_op_frame(op));
			return true;
		}
	for (size_t r = 0; r < op->frag->nresults; r++) {
		const FlatTensor *t = first_tensor(op->results[r]);
		if (t && t->rank > INTERP_MAX_RANK) {
			diag_add(it->diags, DIAG_E1304, flat_op_loc(op), "'%s' gives a tensor of rank %u; nnef-run runs tensors of rank %d at most", op->frag->name, t->rank, INTERP_MAX_RANK);
			return true;
		}
	}
	return false;
}

static void init_tensors(Interp *it)
{
	const FlatGraph *g = it->g;
	for (size_t i = 0; i < g->ntensors; i++) {
		uint32_t k = add_tensor(it);
		const FlatTensor *ft = flat_tensor(g, i);
		ITensor *t = &it->t[k];
		t->dtype = tensor_kind(ft);
		t->datum = ft->datum;
		t->rank = ft->rank;
		t->dims = ft->dims;
		t->count = (size_t)dims_volume(ft->dims, ft->rank);
	}
}

/* The variables, one per label (the graph's vars: the first variable
 * operation of each), and the step of each variable and update
 * operation. */
static void init_vars(Interp *it, bool body)
{
	const FlatGraph *g = it->g;
	it->nvars = body ? 0 : g->nvars; /* a scan's body: none */
	it->vars = util_calloc(g->nvars ? g->nvars : 1, sizeof(*it->vars));
	for (size_t i = 0; i < g->nvars; i++) {
		IVar *v = &it->vars[i];
		const Value *label = flat_op_args(g->vars[i])[1];
		v->op = g->vars[i];
		v->ft = g->vars[i]->results[0]->u.t;
		v->label = arena_strndup(&it->arena, label->u.str, label->n);
		v->value.dtype = tensor_kind(v->ft);
		v->value.datum = v->ft->datum;
		v->value.rank = v->ft->rank;
		v->value.dims = v->ft->dims;
		v->value.count = (size_t)dims_volume(v->ft->dims, v->ft->rank);
	}
}

/* The variable of variable operation op (op->var counts from 1). */
static uint32_t var_index(const Interp *it, const FlatOp *op)
{
	return op->var && op->var <= it->g->nvars ? op->var - 1 : 0;
}

/* Builds the steps; returns false after reporting what cannot run. */
static bool plan(Interp *it, bool body)
{
	const FlatGraph *g = it->g;
	bool ok = true;
	interp_find_run_symbols(it);
	for (size_t i = 0; i < g->nops; i++)
		if (cannot_run(it, g->ops[i]))
			ok = false;
	if (!ok)
		return false;
	init_tensors(it);
	init_vars(it, body);
	it->nsteps = g->nops;
	it->steps = util_calloc(g->nops ? g->nops : 1, sizeof(*it->steps));
	PlanArg **args = util_calloc(g->nops ? g->nops : 1, sizeof(*args));
	uint32_t **outs = util_calloc(g->nops ? g->nops : 1, sizeof(*outs));
	for (size_t i = 0; i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		Step *s = &it->steps[i];
		s->op = op;
		s->args = flat_op_args(op);
		s->run = interp_kernel(op->prim, it->opt.precision);
		args[i] = plan_args(it, op);
		s->nout = result_tensors(op, NULL, 0);
		outs[i] = arena_array(&it->arena, s->nout ? s->nout : 1, sizeof(uint32_t));
		result_tensors(op, outs[i], s->nout);
		if (op->prim == SHAPE_OP_VARIABLE)
			s->var = var_index(it, op);
		else if (op->prim == SHAPE_OP_UPDATE)
			s->var = var_index(it, flat_op_args(op)[0]->u.t->producer);
	}
	/* it->t is final now: point the steps at it */
	for (size_t i = 0; i < g->nops; i++) {
		Step *s = &it->steps[i];
		size_t np = s->op->frag->nparams;
		s->in = arena_array(&it->arena, np ? np : 1, sizeof(KArg));
		for (size_t p = 0; p < np; p++) {
			PlanArg *pa = &args[i][p];
			memset(&s->in[p], 0, sizeof(KArg));
			if (!pa->idx)
				continue;
			if (pa->array) {
				s->in[p].n = pa->n;
				s->in[p].items = arena_array(&it->arena, pa->n ? pa->n : 1, sizeof(ITensor *));
				for (size_t k = 0; k < pa->n; k++)
					s->in[p].items[k] = &it->t[pa->idx[k]];
			} else {
				s->in[p].t = &it->t[pa->idx[0]];
				s->in[p].n = 1;
			}
		}
		s->out = arena_array(&it->arena, s->nout ? s->nout : 1, sizeof(ITensor *));
		for (size_t k = 0; k < s->nout; k++)
			s->out[k] = &it->t[outs[i][k]];
	}
	util_free(args);
	util_free(outs);
	for (size_t i = 0; i < g->nops; i++)
		if ((shape_op_flags((ShapeOp)g->ops[i]->prim) & SF_NESTED) &&
		    !interp_plan_nested(it, &it->steps[i]))
			ok = false;
	return ok;
}

/* ---- lifetimes ---------------------------------------------------------------------- */

/* An operation whose result is a graph input, given by the caller. */
static bool is_input(ShapeOp p)
{
	return p == SHAPE_OP_EXTERNAL || p == SHAPE_OP_TRACT_CORE_EXTERNAL;
}

static uint32_t tensor_index(const Interp *it, const ITensor *t)
{
	return (uint32_t)(t - it->t);
}

/* Pins what must outlive its readers: inputs, outputs, variables,
 * update results, constants; with keep_all, everything. Then gives each
 * step the tensors whose last reader (or producer, when none reads
 * them) it is. */
static void plan_lifetimes(Interp *it)
{
	const FlatGraph *g = it->g;
	it->ninputs = g->ninputs;
	it->inputs = util_calloc(g->ninputs ? g->ninputs : 1, sizeof(uint32_t));
	for (size_t i = 0; i < g->ninputs; i++) {
		it->inputs[i] = flat_tensor_id(g->inputs[i]);
		it->pinned[it->inputs[i]] = true;
	}
	it->noutputs = g->noutputs;
	it->outputs = util_calloc(g->noutputs ? g->noutputs : 1, sizeof(uint32_t));
	for (size_t i = 0; i < g->noutputs; i++) {
		const Value *v = g->outputs[i];
		it->outputs[i] = v->kind == VAL_TENSOR ? flat_tensor_id(v->u.t)
						       : literal_tensor(it, v, TY_TENSOR);
		it->pinned[it->outputs[i]] = true;
	}
	size_t *last = util_calloc(it->nt ? it->nt : 1, sizeof(size_t));
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		ShapeOp p = s->op->prim;
		for (size_t k = 0; k < s->nout; k++) {
			uint32_t t = tensor_index(it, s->out[k]);
			last[t] = i;
			if (p == SHAPE_OP_VARIABLE || p == SHAPE_OP_UPDATE ||
			    p == SHAPE_OP_CONSTANT || is_input(p) ||
			    it->opt.keep_all)
				it->pinned[t] = true;
			if (p == SHAPE_OP_VARIABLE)
				it->owned[t] = false;
		}
		for (size_t a = 0; a < s->op->frag->nparams; a++) {
			const KArg *ka = &s->in[a];
			if (ka->t)
				last[tensor_index(it, ka->t)] = i;
			for (size_t k = 0; k < ka->n && ka->items; k++)
				last[tensor_index(it, ka->items[k])] = i;
		}
	}
	size_t *count = util_calloc(it->nsteps ? it->nsteps : 1, sizeof(size_t));
	for (size_t t = 0; t < it->g->ntensors; t++)
		if (!it->pinned[t])
			count[last[t]]++;
	for (size_t i = 0; i < it->nsteps; i++)
		it->steps[i].frees = arena_array(&it->arena, count[i] ? count[i] : 1, sizeof(uint32_t));
	for (size_t t = 0; t < it->g->ntensors; t++)
		if (!it->pinned[t]) {
			Step *s = &it->steps[last[t]];
			s->frees[s->nfrees++] = (uint32_t)t;
		}
	util_free(count);
	util_free(last);
}

/* ---- the activations' memory ------------------------------------------------------ */

typedef struct Hole {
	size_t off, size;
} Hole;

typedef struct Layout {
	Hole *holes;           /* free ranges below top, by offset */
	size_t nholes;
	size_t top, peak;
} Layout;

/* First fit; a hole at the top may grow. */
static size_t layout_place(Layout *l, size_t size)
{
	for (size_t i = 0; i < l->nholes; i++) {
		Hole *h = &l->holes[i];
		bool at_top = h->off + h->size == l->top;
		if (h->size >= size || at_top) {
			size_t off = h->off;
			if (h->size > size) {
				h->off += size;
				h->size -= size;
			} else {
				if (at_top)
					l->top = off + size;
				memmove(h, h + 1, (l->nholes - i - 1) * sizeof(*h));
				l->nholes--;
			}
			l->peak = l->top > l->peak ? l->top : l->peak;
			return off;
		}
	}
	size_t off = l->top;
	l->top += size;
	l->peak = l->top > l->peak ? l->top : l->peak;
	return off;
}

/* Gives a range back, merging it with its neighbours. */
static void layout_free(Layout *l, size_t off, size_t size)
{
	size_t i = 0;
	while (i < l->nholes && l->holes[i].off < off)
		i++;
	l->holes = util_realloc(l->holes, (l->nholes + 1) * sizeof(*l->holes));
	memmove(l->holes + i + 1, l->holes + i, (l->nholes - i) * sizeof(*l->holes));
	l->holes[i] = (Hole){ off, size };
	l->nholes++;
	if (i + 1 < l->nholes && off + size == l->holes[i + 1].off) {
		l->holes[i].size += l->holes[i + 1].size;
		memmove(l->holes + i + 1, l->holes + i + 2, (l->nholes - i - 2) * sizeof(*l->holes));
		l->nholes--;
	}
	if (i > 0 && l->holes[i - 1].off + l->holes[i - 1].size == off) {
		l->holes[i - 1].size += l->holes[i].size;
		memmove(l->holes + i, l->holes + i + 1, (l->nholes - i - 1) * sizeof(*l->holes));
		l->nholes--;
	}
}

static bool in_arena(const Interp *it, size_t t)
{
	return it->offset && it->offset[t] >= 0;
}

/* The bytes a run needs at least (the planned block, every tensor kept
 * whole, the variables) must fit in this machine's memory: touching more
 * would end in the kernel's out-of-memory killer, not in a message. */
static bool memory_fits(Interp *it)
{
	double need = (double)it->block_size;
	for (size_t t = 0; t < it->nt; t++)
		if (it->pinned[t] && it->owned[t])
			need += (double)it->t[t].count * (double)interp_item_size(it, it->t[t].dtype);
	for (size_t i = 0; i < it->nvars; i++)
		need += (double)it->vars[i].value.count * (double)interp_item_size(it, it->vars[i].value.dtype);
	if (it->opt.max_memory) {
		if (need <= (double)it->opt.max_memory)
			return true;
		diag_add(it->diags, DIAG_E1305, loc_make(NULL, 0, 0), "running this graph needs %.0f bytes of memory at least (its tensors and variables), more than the %llu bytes --max-memory allows", need, (unsigned long long)it->opt.max_memory);
		return false;
	}
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	double have = pages > 0 && size > 0 ? (double)pages * (double)size : 0;
	if (have == 0 || need <= have)
		return true;
	diag_add(it->diags, DIAG_E1305, loc_make(NULL, 0, 0), "running this graph needs %.3g GB of memory at least (its tensors and variables), more than the %.3g GB this machine has (--max-memory sets another limit)", need * 1e-9, have * 1e-9);
	return false;
}

/* Whether t's items are brought back to a narrower datum type after its
 * step (tract's f16, narrow integers). */
static bool needs_narrowing(const ITensor *t)
{
	DType d = (DType)t->datum;
	return (t->dtype == TY_SCALAR && d == DT_F16) ||
	       (t->dtype == TY_INTEGER && dtype_is_integer(d) && dtype_bits(d) < 64);
}

/* Places every tensor that is neither pinned nor kept (keep_all) at an
 * offset of one block, simulating the run: a tensor's range is taken
 * when its producer runs and given back after its last reader. The block
 * is allocated and touched now, so that running faults in no page. */
static bool plan_memory(Interp *it)
{
	it->offset = util_malloc((it->nt ? it->nt : 1) * sizeof(int64_t));
	for (size_t t = 0; t < it->nt; t++)
		it->offset[t] = -1;
	if (it->opt.keep_all)
		return true;
	Layout l = { 0 };
	bool updates = false;
	for (size_t i = 0; i < it->nsteps; i++)
		updates = updates || it->steps[i].op->prim == SHAPE_OP_UPDATE;
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		ShapeOp p = s->op->prim;
		InterpView view = interp_plan_view(it, s, updates);
		/* a result brought back to a narrow datum type after the step
		 * would round its input's buffer in place */
		if (view != VIEW_NONE && needs_narrowing(s->out[0]))
			view = VIEW_NONE;
		uint32_t taken = view == VIEW_TAKES ? tensor_index(it, s->in[0].t) : UINT32_MAX;
		s->view = view != VIEW_NONE;
		if (view == VIEW_TAKES) /* the result has the input's place */
			it->offset[tensor_index(it, s->out[0])] = it->offset[taken];
		else if (view == VIEW_PINNED) /* the result points at the input */
			it->owned[tensor_index(it, s->out[0])] = false;
		for (size_t k = 0; !s->view && s->run && !s->dynamic && !is_input(p) && p != SHAPE_OP_VARIABLE && k < s->nout; k++) {
			size_t t = tensor_index(it, s->out[k]);
			if (it->pinned[t] || !it->owned[t])
				continue;
			size_t bytes = s->out[k]->count * interp_item_size(it, s->out[k]->dtype);
			it->offset[t] = (int64_t)layout_place(&l, (bytes + 63) / 64 * 64);
		}
		for (size_t k = 0; k < s->nfrees; k++) {
			uint32_t t = s->frees[k];
			if (in_arena(it, t) && t != taken) {
				size_t bytes = it->t[t].count * interp_item_size(it, it->t[t].dtype);
				layout_free(&l, (size_t)it->offset[t], (bytes + 63) / 64 * 64);
			}
		}
	}
	util_free(l.holes);
	it->block_size = l.peak;
	if (!memory_fits(it))
		return false;
	if (l.peak) {
		it->block = alloc_or_fail(it, NULL, l.peak, 1);
		if (!it->block)
			return false;
		memset(it->block, 0, l.peak);
	}
	return true;
}

/* An interpreter for g: the graph given (a body: a scan's, which has no
 * variables and whose graph.quant was reported with its graph's). */
static Interp *new_interp(const FlatGraph *g, const InterpHost *host,
			  bool body, const InterpOptions *opt, DiagList *diags)
{
	Interp *it = util_calloc(1, sizeof(*it));
	it->host = *host;
	it->g = g;
	it->diags = diags;
	it->opt = *opt;
	it->rsize = opt->precision == INTERP_DOUBLE ? 8 : 4;
	arena_init(&it->arena);
	if (!plan(it, body) || !interp_plan_dynamic(it)) {
		interp_free(it);
		return NULL;
	}
	interp_plan_states(it);
	if (opt->statistics) {
		it->stats = util_calloc(g->ntensors ? g->ntensors : 1, sizeof(*it->stats));
		it->stats_taken = util_calloc(g->ntensors ? g->ntensors : 1, sizeof(bool));
	}
	plan_lifetimes(it);
	interp_fuse(it);
	if (!plan_memory(it)) {
		interp_free(it);
		return NULL;
	}
	if (!body && g->nquant && !g->quantized)
		diag_add(diags, DIAG_W1311, g->quant[0]->loc, "graph.quant quantizes %zu tensor%s, but quantization is turned off: %s computed in floating point (quantized tensor files are still decoded with graph.quant)", g->nquant, g->nquant == 1 ? "" : "s", g->nquant == 1 ? "it is" : "they are");
	if (opt->precision == INTERP_DOUBLE)
		interp_gemm_warm_up_f64(it);
	else
		interp_gemm_warm_up_f32(it);
	return it;
}

Interp *interp_new(const FlatGraph *g, const InterpHost *host,
		   const InterpOptions *opt, DiagList *diags)
{
	Interp *it = new_interp(g, host, false, opt, diags);
	if (it)
		interp_pool_start(it);
	return it;
}

Interp *interp_new_body(const Interp *it, const FlatGraph *g,
			const InterpOptions *opt)
{
	return new_interp(g, &it->host, true, opt, it->diags);
}

void interp_free(Interp *it)
{
	if (!it)
		return;
	interp_pool_free(it);
	for (size_t i = 0; i < it->nt; i++)
		if (it->owned[i] && !in_arena(it, i))
			util_free(it->t[i].data);
	for (size_t i = 0; i < it->nblocks; i++)
		util_free(it->blocks[i].p);
	util_free(it->blocks);
	util_free(it->block);
	util_free(it->offset);
	for (size_t i = 0; i < it->nvars; i++)
		util_free(it->vars[i].value.data);
	util_free(it->vars);
	util_free(it->t);
	util_free(it->pinned);
	util_free(it->owned);
	for (size_t i = 0; i < it->nsteps; i++)
		interp_free_nested(&it->steps[i]);
	interp_free_dynamic(it);
	interp_free_states(it);
	util_free(it->steps);
	util_free(it->updates);
	util_free(it->inputs);
	util_free(it->outputs);
	util_free(it->times);
	util_free(it->stats);
	util_free(it->stats_taken);
	arena_free(&it->arena);
	util_free(it);
}

/* ---- running ------------------------------------------------------------------------ */

/* Frees what a previous run left that no one keeps. */
static void release_unpinned(Interp *it)
{
	for (size_t i = 0; i < it->nt; i++)
		if (!it->pinned[i] && it->owned[i]) {
			if (!in_arena(it, i))
				util_free(it->t[i].data);
			it->t[i].data = NULL;
		}
}

/* Brings t's items back to its datum type (tract's dialect): f16 values
 * rounded to half precision, narrow integers wrapped to their width, as
 * tract computes them (each operation's result in the type it has). */
/* x rounded to the nearest half-precision value (ties to even), from
 * its bits: a float holds every half exactly, so one rounding suffices
 * (dtype_round does the same in double precision, several times
 * slower). */
static float round_half(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof(u));
	uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return x; /* NaN */
	if (a >= 0x477ff000u) /* 65520 and beyond: infinite */
		return sign ? -INFINITY : INFINITY;
	if (a < 0x38800000u) { /* below 2^-14: multiples of 2^-24 */
		float q = nearbyintf(fabsf(x) * 16777216.0f) * 5.9604644775390625e-08f;
		return sign ? -q : q;
	}
	uint32_t rest = a & 0x1fffu; /* the 13 bits a half does not keep */
	a &= ~0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (a & 0x2000u)))
		a += 0x2000u;
	u = sign | a;
	memcpy(&x, &u, sizeof(x));
	return x;
}

static void narrow_items(const Interp *it, ITensor *t)
{
	DType d = (DType)t->datum;
	if (t->dtype == TY_SCALAR && d == DT_F16) {
		if (it->rsize == 4)
			for (size_t i = 0; i < t->count; i++)
				((float *)t->data)[i] = round_half(((float *)t->data)[i]);
		else
			for (size_t i = 0; i < t->count; i++)
				((double *)t->data)[i] = dtype_round(DT_F16, ((double *)t->data)[i]);
	} else if (t->dtype == TY_INTEGER && dtype_bits(d) < 64 && dtype_is_integer(d)) {
		for (size_t i = 0; i < t->count; i++)
			((int64_t *)t->data)[i] = dtype_wrap(d, ((int64_t *)t->data)[i]);
	}
}

/* What every kernel relies on: each tensor argument computed (its items
 * there, as many as its shape holds; those of a producer fused in are
 * not read)
 * and each result allocated (but an input's or a variable's, which its
 * kernel provides). */
static bool step_ready(const Step *s)
{
	const SemaFrag *f = s->op->frag;
	for (size_t i = 0; i < f->nparams; i++) {
		if (i < 32 && (s->unread >> i & 1))
			continue;
		const ITensor *t = s->in[i].t;
		if (t && (t->count != (size_t)dims_volume(t->dims, t->rank) ||
			  (t->count && !t->data)))
			return false;
		for (size_t j = 0; s->in[i].items && j < s->in[i].n; j++) {
			const ITensor *u = s->in[i].items[j];
			if (u->count && !u->data)
				return false;
		}
	}
	ShapeOp p = s->op->prim;
	for (size_t k = 0; k < s->nout && !is_input(p) && p != SHAPE_OP_VARIABLE; k++)
		if (s->out[k]->count && !s->out[k]->data)
			return false;
	return true;
}

static bool run_step(Interp *it, Step *s)
{
	ShapeOp p = s->op->prim;
	if (s->dynamic && !interp_infer_step(it, s))
		return false;
	if (s->view) /* the input's buffer, its items in the same order */
		s->out[0]->data = s->in[0].t->data;
	else if (!is_input(p) && p != SHAPE_OP_VARIABLE)
		for (size_t k = 0; k < s->nout; k++) {
			size_t t = tensor_index(it, s->out[k]);
			if (in_arena(it, t))
				s->out[k]->data = it->block + it->offset[t];
			else if (!interp_alloc(it, s->out[k]))
				return false;
		}
	assert(step_ready(s));
	if (!s->run(it, s))
		return false;
	if (!is_input(p) && p != SHAPE_OP_VARIABLE)
		for (size_t k = 0; k < s->nout; k++)
			if (needs_narrowing(s->out[k]))
				narrow_items(it, s->out[k]);
	return true;
}

/* The statistics of the results of step s that are bound to names of
 * the graph, taken now that it has run (before any buffer is freed). */
static void take_stats(Interp *it, const Step *s)
{
	for (size_t k = 0; k < s->nout; k++) {
		uint32_t t = tensor_index(it, s->out[k]);
		if (!interp_watched(it, t))
			continue;
		it->stats[t] = (UtilStats){ 0 };
		interp_stats_add(it, s->out[k], &it->stats[t]);
		it->stats_taken[t] = s->out[k]->data != NULL || s->out[k]->count == 0;
	}
}

bool interp_run(Interp *it)
{
	release_unpinned(it);
	if (it->stats_taken)
		memset(it->stats_taken, 0, it->g->ntensors * sizeof(bool));
	it->nupdates = 0;
	if (it->opt.profile && !it->times)
		it->times = util_calloc(it->nsteps ? it->nsteps : 1, sizeof(*it->times));
	for (size_t i = 0; i < it->nsteps; i++) {
		Step *s = &it->steps[i];
		if (it->opt.interrupt && atomic_load_explicit(it->opt.interrupt, memory_order_relaxed)) {
			diag_add(it->diags, DIAG_E1312, loc_make(NULL, 0, 0), "the run was interrupted, before step %zu of %zu", i + 1, it->nsteps);
			it->step_now = it->nsteps;
			return false;
		}
		it->step_now = i;
		double t0 = it->opt.profile ? now() : 0;
		if (s->run && !run_step(it, s)) {
			it->step_now = it->nsteps;
			return false;
		}
		if (it->opt.profile)
			it->times[i] = (InterpOpTime){ s->op, now() - t0 };
		if (s->run && it->stats) /* not part of the step's time */
			take_stats(it, s);
		if (it->opt.progress)
			it->opt.progress(it->opt.progress_ctx, i + 1, it->nsteps);
		for (size_t k = 0; k < s->nfrees; k++) {
			ITensor *t = &it->t[s->frees[k]];
			if (it->owned[s->frees[k]]) {
				if (!in_arena(it, s->frees[k]))
					util_free(t->data);
				t->data = NULL;
			}
		}
	}
	it->step_now = it->nsteps;
	it->ntimes = it->opt.profile ? it->nsteps : 0;
	/* spec 4.8: "After executing all operations in the current graph
	 * cycle, the content of variable is replaced with the content of
	 * value." */
	for (size_t i = 0; i < it->nupdates; i++) {
		IVar *v = &it->vars[it->updates[i].var];
		memcpy(v->value.data, it->updates[i].result->data,
		       v->value.count * interp_item_size(it, v->value.dtype));
	}
	return true;
}

/* ---- accessors ---------------------------------------------------------------------- */

size_t interp_ninputs(const Interp *it) { return it->ninputs; }
size_t interp_noutputs(const Interp *it) { return it->noutputs; }
size_t interp_ntensors(const Interp *it) { return it->g->ntensors; }
size_t interp_nvariables(const Interp *it) { return it->nvars; }
InterpPrecision interp_precision(const Interp *it) { return it->opt.precision; }

static const char *tensor_name(const FlatTensor *t)
{
	return t->name;
}

const char *interp_input_name(const Interp *it, size_t i)
{
	return it->g->graph->params[i].name;
}

ITensor *interp_input(Interp *it, size_t i)
{
	ITensor *t = &it->t[it->inputs[i]];
	interp_alloc(it, t);
	return t;
}

const char *interp_output_name(const Interp *it, size_t i)
{
	return it->g->graph->results[i].name;
}

const ITensor *interp_output(const Interp *it, size_t i)
{
	return &it->t[it->outputs[i]];
}

const char *interp_tensor_name(const Interp *it, size_t i)
{
	return tensor_name(flat_tensor(it->g, i));
}

const ITensor *interp_tensor(const Interp *it, size_t i)
{
	return &it->t[i];
}

const char *interp_variable_label(const Interp *it, size_t i)
{
	return it->vars[i].label;
}

const ITensor *interp_variable(const Interp *it, size_t i)
{
	return &it->vars[i].value;
}

double interp_value(const Interp *it, const ITensor *t, size_t i)
{
	switch (t->dtype) {
	case TY_SCALAR:
		return it->rsize == 4 ? ((const float *)t->data)[i]
				      : ((const double *)t->data)[i];
	case TY_INTEGER:
		return (double)((const int64_t *)t->data)[i];
	case TY_LOGICAL:
	case TY_STRING:
	case TY_GENERIC:
	case TY_TENSOR:
	case TY_ARRAY:
	case TY_TUPLE:
	case TY_EMPTY_ARRAY:
		return ((const uint8_t *)t->data)[i];
	}
	return 0; /* not reached: every kind is a case */
}

const InterpOpTime *interp_op_times(const Interp *it, size_t *n)
{
	*n = it->ntimes;
	return it->times;
}
