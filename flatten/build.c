/*
 * build.c - building the flat graph: runs the evaluator over the graph's
 * body (on a thread with a large stack, so deep recursions such as add_n
 * over thousands of tensors are limited by --max-depth, not by the C
 * stack), binds the graph's results, and names every tensor.
 *
 * Names are deterministic: a tensor bound to a graph identifier takes its
 * name; any other tensor is named, when it is created, after the
 * assignment it comes from: the caller's identifier, then the fragment's
 * local name or the operation ("y_m" for the local m of a compound
 * assigned to y, "y_sum_reduce" for an intermediate), with "_2", "_3"...
 * added if a name is taken. The graph's identifiers are reserved first.
 */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "flatten/flatten_internal.h"

#include <assert.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { EVAL_STACK = 1 << 30, STACK_MARGIN = 1 << 20 };

/* ---- naming ----------------------------------------------------------- */

/* A name's IDATA_FLAT slot holds the value of the graph identifier it is
 * (a Value *, 8-byte aligned) and, in the two low bits, whether the name is
 * taken: by a graph identifier, reserved before anything is named, or by
 * a generated tensor name. One slot, not two: a million names. */
enum { NAME_FREE, NAME_GRAPH, NAME_GENERATED, NAME_BITS = 3 };

static uintptr_t flat_slot(const char *name)
{
	return (uintptr_t)*intern_data(name, IDATA_FLAT);
}

static void set_flat_slot(const char *name, uintptr_t bits)
{
	*intern_data(name, IDATA_FLAT) = (void *)bits;
}

static unsigned name_mark(const char *name)
{
	return (unsigned)(flat_slot(name) & NAME_BITS);
}

static void mark_name(const char *name, unsigned mark)
{
	set_flat_slot(name, (flat_slot(name) & ~(uintptr_t)NAME_BITS) | mark);
}

const Value *flat_graph_value(const char *name)
{
	return (const Value *)(flat_slot(name) & ~(uintptr_t)NAME_BITS);
}

void flat_set_graph_value(Flattener *F, const char *name, const Value *v)
{
	(void)F;
	assert(((uintptr_t)v & NAME_BITS) == 0);
	set_flat_slot(name, (uintptr_t)v | name_mark(name));
}

/* Every slot this flattening set, back to NULL (a sweep of the interner
 * costs what a list of the names set would, without the list). */
static void clear_names(Flattener *F)
{
	intern_clear_data(F->interner, IDATA_FLAT);
}

static bool taken(const char *name)
{
	return name_mark(name) != NAME_FREE;
}

const char *flat_unique_name(Flattener *F, const char *hint)
{
	if (F->dry) /* a check-only expansion takes no name */
		return arena_strdup(F->arena, hint); /* hints do not last */
	const char *base = intern_own(F->interner, F->arena, hint, strlen(hint));
	const char *name = base;
	if (taken(name)) {
		/* suffix counters keep naming linear when a base repeats
		 * (each level of a recursion names its sum after the same
		 * assignment) */
		void **next = pmap_ref(&F->counters, base);
		uintptr_t k = *next ? (uintptr_t)*next : 2;
		StrBuf b;
		sb_init(&b);
		do {
			sb_clear(&b);
			sb_printf(&b, "%s_%lu", base, (unsigned long)k++);
			name = intern_cstr(F->interner, sb_str(&b));
		} while (taken(name));
		sb_free(&b);
		*pmap_ref(&F->counters, base) = (void *)k;
	}
	mark_name(name, NAME_GENERATED);
	return name;
}

bool flat_is_result(const Flattener *F, const char *name)
{
	return pmap_has(&F->results, name);
}

static void reserve_lhs(Flattener *F, const AstExpr *lhs)
{
	if (lhs->kind == AST_IDENT) {
		mark_name(lhs->u.ident, NAME_GRAPH);
	} else if (lhs->kind == AST_ARRAY || lhs->kind == AST_TUPLE) {
		for (size_t i = 0; i < lhs->u.list.n; i++)
			reserve_lhs(F, lhs->u.list.items[i]);
	}
}

/* Whether an identifier of lhs was taken by a generated name: possible
 * only when the body comes one statement at a time, so that the
 * identifier could not be reserved first. */
static bool lhs_name_taken(Flattener *F, const AstExpr *lhs)
{
	if (lhs->kind == AST_IDENT)
		return name_mark(lhs->u.ident) == NAME_GENERATED;
	if (lhs->kind == AST_ARRAY || lhs->kind == AST_TUPLE)
		for (size_t i = 0; i < lhs->u.list.n; i++)
			if (lhs_name_taken(F, lhs->u.list.items[i]))
				return true;
	return false;
}

static void reserve_graph_names(Flattener *F, const AstDef *graph)
{
	for (size_t i = 0; i < graph->nparams; i++)
		mark_name(graph->params[i].name, NAME_GRAPH);
	for (size_t i = 0; i < graph->nresults; i++) {
		mark_name(graph->results[i].name, NAME_GRAPH);
		pmap_put(&F->results, graph->results[i].name, NULL);
	}
	for (size_t i = 0; graph->body && i < graph->body->nstmts; i++)
		reserve_lhs(F, graph->body->stmts[i].lhs);
}

/* ---- the graph -------------------------------------------------------- */

/* Document fragments the output declares: custom operations and kept
 * compounds, with what the kept bodies call, in document order. */
static void mark_used(PtrMap *used, const SemaFrag *f);

static void mark_expr(const AstExpr *e, void *ctx)
{
	if (e->kind == AST_INVOKE && e->u.inv.call)
		mark_used(ctx, e->u.inv.call->callee);
	ast_visit_children(e, mark_expr, ctx);
}

static void mark_used(PtrMap *used, const SemaFrag *f)
{
	/* the standard library's and the registries' need no declaration */
	if (f->is_std || f->is_registry || pmap_has(used, f))
		return;
	pmap_put(used, f, NULL);
	for (size_t i = 0; f->def->body && i < f->def->body->nstmts; i++)
		mark_expr(f->def->body->stmts[i].rhs, used);
}

void flat_mark_declared(Flattener *F, const SemaFrag *f)
{
	mark_used(&F->used, f);
}

static void collect_declared(Flattener *F)
{
	PtrMap *used = &F->used;
	F->g->keep = ARENA_ARRAY(F->arena, const SemaFrag *,
				 used->count ? used->count : 1);
	for (size_t i = 0; i < F->prog->nfrags; i++)
		if (pmap_has(used, F->prog->frags[i]))
			F->g->keep[F->g->nkeep++] = F->prog->frags[i];
}

/* The flattening of the graph, begun: the Flattener and the graph's scope. */
struct FlatStream {
	Flattener F;
	Scope s;
	size_t errors_before;
	bool streamed;            /* the body comes one statement at a time:
				     its names are reserved as they come */
	bool fragment;            /* a fragment flattened as a graph
				     (flatten_fragment): bound there */
};

typedef struct DeepJob {
	void (*fn)(void *ctx);
	void *ctx;
	UtilThreadState state; /* the heap, and a failed allocation */
} DeepJob;

static void *deep_thread(void *arg)
{
	DeepJob *job = arg;
	util_thread_run(&job->state, job->fn, job->ctx);
	return NULL;
}

void flatten_run_deep(void (*fn)(void *ctx), void *ctx)
{
	pthread_attr_t attr;
	pthread_t th;
	DeepJob job = { fn, ctx, { 0 } };
	util_thread_save(&job.state);
	if (pthread_attr_init(&attr) == 0) {
		bool ok = pthread_attr_setstacksize(&attr, EVAL_STACK) == 0 &&
			  pthread_create(&th, &attr, deep_thread, &job) == 0;
		pthread_attr_destroy(&attr);
		if (ok) {
			pthread_join(th, NULL);
			util_thread_resume(&job.state); /* fails here if it did there */
			return;
		}
	}
	fn(ctx); /* within this thread's stack (flatten_begin) */
}

/* The lowest address of this thread's stack, asked of the thread library
 * once per thread (for the main thread it reads /proc/self/maps); 0 when
 * it cannot tell. */
static uintptr_t stack_low(size_t *size)
{
	static _Thread_local uintptr_t low;
	static _Thread_local size_t extent;
	static _Thread_local bool asked;
	if (!asked) {
		asked = true;
		pthread_attr_t attr;
		void *addr;
		if (pthread_getattr_np(pthread_self(), &attr) == 0) {
			if (pthread_attr_getstack(&attr, &addr, &extent) == 0)
				low = (uintptr_t)addr;
			pthread_attr_destroy(&attr);
		}
	}
	*size = extent;
	return low;
}

/* The C stack the evaluator may use from here: what is left of this
 * thread's stack (the deep thread's, a worker's or the main one's), less
 * a margin; where the thread library cannot tell, the stack limit's. */
static void stack_guard(Flattener *F)
{
	char here;
	F->stack_base = (uintptr_t)&here;
	size_t size;
	uintptr_t low = stack_low(&size);
	if (low) {
		uintptr_t left = F->stack_base - low;
		if (F->stack_base > low && left <= size) {
			F->stack_budget = left > 2 * STACK_MARGIN
						  ? left - 2 * STACK_MARGIN
						  : left / 2;
			return;
		}
	}
	struct rlimit rl;
	size_t limit = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		limit = (size_t)rl.rlim_cur;
	F->stack_budget = limit > 2 * STACK_MARGIN ? limit - 2 * STACK_MARGIN
						   : limit / 2;
}

FlatStream *flatten_begin(const SemaProgram *prog, Arena *arena,
			  Interner *interner, DiagList *diags,
			  const FlattenOptions *opt)
{
	FlatStream *fs = util_calloc(1, sizeof(*fs));
	Flattener *F = &fs->F;
	F->prog = prog;
	F->tt = (TypeTable *)&prog->types;
	F->arena = arena;
	F->interner = interner;
	F->diags = diags;
	F->opt = opt;
	arena_init(&F->hints);
	F->copy_name = intern_cstr(interner, "copy");
	pmap_init(&F->defaults);
	F->kept = util_calloc(opt->nkeep ? opt->nkeep : 1, sizeof(*F->kept));
	pmap_init(&F->results);
	pmap_init(&F->counters);
	pmap_init(&F->used);
	pmap_init(&F->known);
	F->tract = prog->doc->dialect == DIALECT_TRACT;
	flat_shapes_init(F);
	for (size_t i = 0; i < opt->nkeep; i++) {
		const SemaFrag *f = sema_lookup(prog, intern_cstr(interner,
								  opt->keep[i]));
		if (f)
			F->kept[F->nkept++] = f;
	}
	F->g = ARENA_NEW(arena, FlatGraph);
	F->g->graph = prog->doc->graph;
	F->root = ARENA_NEW(arena, Frame);
	F->root->loc = prog->doc->graph->loc;
	F->g->prog = prog;
	fs->errors_before = diags->nerrors;
	fs->streamed = !prog->doc->graph->body;
	stack_guard(F);
	reserve_graph_names(F, prog->doc->graph);
	flat_quant_init(F);
	fs->s.prefix = "";
	return fs;
}

bool flatten_stmt(FlatStream *fs, const AstAssign *st)
{
	Flattener *F = &fs->F;
	if (diag_limit_reached(F->diags) || F->too_deep)
		return false;
	if (fs->streamed) {
		/* reserve the names now, unless one was taken */
		if (lhs_name_taken(F, st->lhs))
			return false;
		reserve_lhs(F, st->lhs);
	}
	flat_eval_stmt(F, st, &fs->s);
	if (F->quants.count)
		flat_quant_stmt(F, st->lhs, &fs->s);
	arena_reset(&F->hints);
	return F->diags->nerrors - F->quant_errors == fs->errors_before && !F->too_deep;
}

/* The graph's parameters and results, bound. */
static void bind_graph(Flattener *F)
{
	const AstDef *graph = F->prog->doc->graph;
	FlatGraph *g = F->g;
	g->ninputs = graph->nparams;
	g->inputs = ARENA_ARRAY(F->arena, FlatTensor *, g->ninputs ? g->ninputs : 1);
	for (size_t i = 0; i < graph->nparams; i++) {
		bool quantized; /* the input as fed, not its quantized value */
		const Value *v = pmap_get(&F->raw, graph->params[i].name, &quantized);
		if (!quantized)
			v = flat_graph_value(graph->params[i].name);
		g->inputs[i] = v && v->kind == VAL_TENSOR ? v->u.t : NULL;
	}
	g->noutputs = graph->nresults;
	g->outputs = ARENA_ARRAY(F->arena, const Value *,
				 g->noutputs ? g->noutputs : 1);
	for (size_t i = 0; i < graph->nresults; i++)
		g->outputs[i] = flat_graph_value(graph->results[i].name);
}

/* *array, made part of the arena (one item of room when it was never
 * grown); *array becomes NULL. */
static void *adopt(Flattener *F, void **array)
{
	void *a = *array ? *array : arena_alloc(F->arena, sizeof(void *));
	if (*array)
		arena_adopt(F->arena, a);
	*array = NULL;
	return a;
}

FlatGraph *flatten_end(FlatStream *fs)
{
	Flattener *F = &fs->F;
	FlatGraph *g = F->g;
	if (!fs->fragment)
		bind_graph(F);
	flat_shape_notes(F);
	bool ok = F->diags->nerrors - F->quant_errors == fs->errors_before && !F->too_deep;
	if (ok && F->dimtab) /* the text of every symbolic extent, for the API */
		for (size_t i = 0; i < F->ntensors; i++) {
			const FlatTensor *t = &F->tensor_blocks[i / FLAT_TENSOR_BLOCK][i % FLAT_TENSOR_BLOCK];
			for (uint32_t d = 0; t->known && d < t->rank; d++)
				if (dim_is_symbolic(t->dims[d]))
					dim_text(F->dimtab, dim_expr_of(t->dims[d]));
		}
	if (ok && F->tract) { /* its properties, which tract reads */
		const SemaFrag *p = sema_lookup(F->prog, intern_cstr(F->interner, "tract_core_properties"));
		if (p && !p->is_std && !p->is_registry)
			flat_mark_declared(F, p);
	}
	if (ok) {
		collect_declared(F);
		/* the arrays as they grew become the graph's (a copy would
		 * double them at the peak) */
		g->nops = F->nops;
		g->ops = adopt(F, (void **)&F->ops);
		g->ntensors = F->ntensors;
		g->tensor_blocks = adopt(F, (void **)&F->tensor_blocks);
		g->nvars = F->nvars;
		g->vars = adopt(F, (void **)&F->vars);
		g->dims = F->dimtab;
		F->dimtab = NULL;
		g->nquant = F->nquant;
		g->quant = ARENA_ARRAY(F->arena, FlatQuant *, F->nquant ? F->nquant : 1);
		if (F->nquant)
			memcpy(g->quant, F->quant, F->nquant * sizeof(*g->quant));
		g->quantized = F->opt->quantize;
	}
	dim_table_free(F->dimtab);
	pmap_free(&F->known);
	util_free(F->ops);
	util_free(F->vars);
	util_free(F->tensor_blocks);
	util_free(F->iter_names);
	util_free(F->iter_values);
	util_free(F->kept);
	util_free(F->exps);
	pmap_free(&F->defaults);
	clear_names(F);
	pmap_free(&F->results);
	pmap_free(&F->counters);
	pmap_free(&F->used);
	flat_quant_free(F);
	flat_literals_free(F);
	flat_shapes_free(F);
	arena_free(&F->hints);
	util_free(fs);
	return ok ? g : NULL;
}

void flat_graph_free(FlatGraph *g)
{
	if (!g)
		return;
	dim_table_free(g->dims);
	g->dims = NULL;
}

/* *array, of no room yet, with room for n items when that can be had. */
static void *reserve(void *array, size_t *cap, size_t n, size_t size)
{
	if (array || n <= *cap || n > SIZE_MAX / 4 / size)
		return array;
	void *room = util_try_malloc(n * size);
	if (room)
		*cap = n;
	return room;
}

void flatten_reserve(FlatStream *fs, size_t n)
{
	Flattener *F = &fs->F;
	F->ops = reserve(F->ops, &F->capops, n, sizeof(*F->ops));
	F->vars = reserve(F->vars, &F->capvars, n, sizeof(*F->vars));
}

/* The whole graph body, on the deep stack. */
typedef struct Whole {
	const SemaProgram *prog;
	Arena *arena;
	Interner *interner;
	DiagList *diags;
	const FlattenOptions *opt;
	FlatGraph *g;
} Whole;

static void flatten_whole(void *ctx)
{
	Whole *w = ctx;
	FlatStream *fs = flatten_begin(w->prog, w->arena, w->interner,
				       w->diags, w->opt);
	const AstBody *body = w->prog->doc->graph->body;
	for (size_t i = 0; i < body->nstmts; i++)
		if (!flatten_stmt(fs, &body->stmts[i]) &&
		    (diag_limit_reached(w->diags) || fs->F.too_deep))
			break;
	w->g = flatten_end(fs);
}

FlatGraph *flatten_graph(const SemaProgram *prog, Arena *arena,
			 Interner *interner, DiagList *diags,
			 const FlattenOptions *opt)
{
	if (!prog->doc->graph || !prog->doc->graph->body)
		return NULL;
	Whole w = { prog, arena, interner, diags, opt, NULL };
	flatten_run_deep(flatten_whole, &w);
	return w.g;
}

/* ---- a fragment as a graph -------------------------------------------------------- */

FlatGraph *flatten_fragment(const SemaProgram *prog, Arena *arena,
			    Interner *interner, DiagList *diags,
			    const FlattenOptions *opt, const SemaFrag *f,
			    const FlatParam *params, Loc at)
{
	FlatStream *fs = flatten_begin(prog, arena, interner, diags, opt);
	Flattener *F = &fs->F;
	fs->fragment = true;
	FlatGraph *g = F->g;
	g->ninputs = f->nparams;
	g->inputs = ARENA_ARRAY(arena, FlatTensor *, f->nparams ? f->nparams : 1);
	const Value **args = ARENA_ARRAY(arena, const Value *, f->nparams ? f->nparams : 1);
	for (size_t i = 0; i < f->nparams; i++) {
		const FlatParam *p = &params[i];
		g->inputs[i] = NULL;
		if (p->value) {
			args[i] = p->value;
			continue;
		}
		FlatTensor *t = flat_new_tensor(F, ty_prim(F->tt, p->kind), NULL, f->params[i].name);
		Shape shape = { p->dims, p->rank, true };
		flat_set_shape(F, t, &shape, NULL);
		t->datum = p->datum;
		g->inputs[i] = t;
		args[i] = &t->value;
	}
	AstExpr call;
	memset(&call, 0, sizeof(call));
	call.loc = at;
	const Value *res = flat_expand(F, &call, &fs->s, f, args);
	g->noutputs = f->nresults;
	g->outputs = ARENA_ARRAY(arena, const Value *, f->nresults ? f->nresults : 1);
	for (size_t k = 0; k < f->nresults; k++)
		g->outputs[k] = !res ? NULL : f->nresults == 1 ? res : res->u.items[k];
	FlatGraph *done = flatten_end(fs);
	if (done && !res) { /* an error was reported */
		flat_graph_free(done);
		done = NULL;
	}
	return done;
}
