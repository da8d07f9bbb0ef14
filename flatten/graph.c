/*
 * graph.c - building the flat graph: runs the evaluator over the graph's
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
#include "flatten/flatten_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { EVAL_STACK = 1 << 30, STACK_MARGIN = 1 << 20 };

/* ---- naming ----------------------------------------------------------- */

const char *flat_unique_name(Flattener *F, const char *hint)
{
	if (F->dry)
		return hint; /* a check-only expansion takes no name */
	const char *base = intern_cstr(F->interner, hint);
	const char *name = base;
	if (pmap_has(&F->used, name)) {
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
		} while (pmap_has(&F->used, name));
		sb_free(&b);
		*pmap_ref(&F->counters, base) = (void *)k;
	}
	pmap_put(&F->used, name, NULL);
	return name;
}

bool flat_is_result(const Flattener *F, const char *name)
{
	return pmap_has(&F->results, name);
}

/* The identifiers of the graph are reserved before anything is named. */
static void reserve_lhs(Flattener *F, const AstExpr *lhs)
{
	if (lhs->kind == AST_IDENT) {
		pmap_put(&F->used, lhs->u.ident, NULL);
	} else if (lhs->kind == AST_ARRAY || lhs->kind == AST_TUPLE) {
		for (size_t i = 0; i < lhs->u.list.n; i++)
			reserve_lhs(F, lhs->u.list.items[i]);
	}
}

static void reserve_graph_names(Flattener *F, const AstDef *graph)
{
	for (size_t i = 0; i < graph->nparams; i++)
		pmap_put(&F->used, graph->params[i].name, NULL);
	for (size_t i = 0; i < graph->nresults; i++) {
		pmap_put(&F->used, graph->results[i].name, NULL);
		pmap_put(&F->results, graph->results[i].name, NULL);
	}
	for (size_t i = 0; i < graph->body->nstmts; i++)
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
	if (f->is_std || pmap_has(used, f))
		return;
	pmap_put(used, f, NULL);
	for (size_t i = 0; f->def->body && i < f->def->body->nstmts; i++)
		mark_expr(f->def->body->stmts[i].rhs, used);
}

static void collect_declared(Flattener *F)
{
	PtrMap used;
	pmap_init(&used);
	for (size_t i = 0; i < F->nops; i++)
		mark_used(&used, F->ops[i]->frag);
	F->g->keep = ARENA_ARRAY(F->arena, const SemaFrag *,
				 used.count ? used.count : 1);
	for (size_t i = 0; i < F->prog->nfrags; i++)
		if (pmap_has(&used, F->prog->frags[i]))
			F->g->keep[F->g->nkeep++] = F->prog->frags[i];
	pmap_free(&used);
}

static void flatten_main(Flattener *F)
{
	const AstDef *graph = F->prog->doc->graph;
	reserve_graph_names(F, graph);
	Scope s;
	memset(&s, 0, sizeof(s));
	s.prefix = "";
	pmap_init(&s.env);
	eval_body(F, graph->body, &s);

	FlatGraph *g = F->g;
	g->ninputs = graph->nparams;
	g->inputs = ARENA_ARRAY(F->arena, FlatTensor *, g->ninputs ? g->ninputs : 1);
	for (size_t i = 0; i < graph->nparams; i++) {
		bool found;
		const Value *v = pmap_get(&s.env, graph->params[i].name, &found);
		g->inputs[i] = v && v->kind == VAL_TENSOR ? v->u.t : NULL;
	}
	g->noutputs = graph->nresults;
	g->outputs = ARENA_ARRAY(F->arena, const Value *,
				 g->noutputs ? g->noutputs : 1);
	for (size_t i = 0; i < graph->nresults; i++) {
		bool found;
		g->outputs[i] = pmap_get(&s.env, graph->results[i].name, &found);
	}
	pmap_free(&s.env);
}

static void *flatten_thread(void *arg)
{
	Flattener *F = arg;
	char base;
	F->stack_base = (uintptr_t)&base;
	flatten_main(F);
	return NULL;
}

/* Runs the evaluator on a thread of its own with a 1 GiB stack (address
 * space, used only as deep as the recursion goes); where that is not
 * possible, on this thread within its stack limit. */
static void run_evaluator(Flattener *F)
{
	pthread_attr_t attr;
	pthread_t th;
	if (pthread_attr_init(&attr) == 0) {
		F->stack_budget = EVAL_STACK - STACK_MARGIN;
		bool ok = pthread_attr_setstacksize(&attr, EVAL_STACK) == 0 &&
			  pthread_create(&th, &attr, flatten_thread, F) == 0;
		pthread_attr_destroy(&attr);
		if (ok) {
			pthread_join(th, NULL);
			return;
		}
	}
	struct rlimit rl;
	size_t limit = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		limit = (size_t)rl.rlim_cur;
	F->stack_budget = limit > 2 * STACK_MARGIN ? limit - 2 * STACK_MARGIN
						   : limit / 2;
	char base;
	F->stack_base = (uintptr_t)&base;
	flatten_main(F);
}

FlatGraph *flatten_graph(const SemaProgram *prog, Arena *arena,
			 Interner *interner, DiagList *diags,
			 const FlattenOptions *opt)
{
	if (!prog->doc->graph || !prog->doc->graph->body)
		return NULL;
	Flattener F;
	memset(&F, 0, sizeof(F));
	F.prog = prog;
	F.tt = (TypeTable *)&prog->types;
	F.arena = arena;
	F.interner = interner;
	F.diags = diags;
	F.opt = opt;
	F.copy_name = intern_cstr(interner, "copy");
	pmap_init(&F.defaults);
	F.kept = util_calloc(opt->nkeep ? opt->nkeep : 1, sizeof(*F.kept));
	pmap_init(&F.used);
	pmap_init(&F.results);
	pmap_init(&F.counters);
	flat_shapes_init(&F);
	for (size_t i = 0; i < opt->nkeep; i++) {
		const SemaFrag *f = sema_lookup(prog, intern_cstr(interner,
								  opt->keep[i]));
		if (f)
			F.kept[F.nkept++] = f;
	}
	FlatGraph *g = ARENA_NEW(arena, FlatGraph);
	g->graph = prog->doc->graph;
	g->prog = prog;
	F.g = g;

	size_t errors_before = diags->nerrors;
	run_evaluator(&F);
	flat_shape_notes(&F);
	bool ok = diags->nerrors == errors_before && !F.too_deep;
	if (ok) {
		/* a tensor bound to a graph identifier takes its name */
		for (size_t i = 0; i < F.ntensors; i++)
			if (F.tensors[i]->gname)
				F.tensors[i]->name = F.tensors[i]->gname;
		collect_declared(&F);
		g->nops = F.nops;
		g->ops = ARENA_ARRAY(arena, FlatOp *, F.nops ? F.nops : 1);
		if (F.nops)
			memcpy(g->ops, F.ops, F.nops * sizeof(*g->ops));
		g->ntensors = F.ntensors;
		g->tensors = ARENA_ARRAY(arena, FlatTensor *,
					 F.ntensors ? F.ntensors : 1);
		if (F.ntensors)
			memcpy(g->tensors, F.tensors,
			       F.ntensors * sizeof(*g->tensors));
	}
	free(F.ops);
	free(F.tensors);
	free(F.iter_names);
	free(F.iter_values);
	free(F.kept);
	pmap_free(&F.defaults);
	pmap_free(&F.used);
	pmap_free(&F.results);
	pmap_free(&F.counters);
	flat_shapes_free(&F);
	return ok ? g : NULL;
}
