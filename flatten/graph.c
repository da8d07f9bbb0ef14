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

static size_t name_slot(const NameSet *s, const char *name)
{
	size_t h = (size_t)(uintptr_t)name * 0x9E3779B97F4A7C15u;
	return (h >> 17) & (s->cap - 1);
}

static bool name_has(const NameSet *s, const char *name)
{
	size_t i = name_slot(s, name);
	while (s->slots[i]) {
		if (s->slots[i] == name)
			return true;
		i = (i + 1) & (s->cap - 1);
	}
	return false;
}

static void name_add(NameSet *s, const char *name)
{
	if ((s->count + 1) * 2 > s->cap) {
		NameSet big = { util_calloc(s->cap * 2, sizeof(char *)),
				s->cap * 2, 0 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i])
				name_add(&big, s->slots[i]);
		free(s->slots);
		*s = big;
	}
	size_t i = name_slot(s, name);
	while (s->slots[i] && s->slots[i] != name)
		i = (i + 1) & (s->cap - 1);
	if (!s->slots[i])
		s->count++;
	s->slots[i] = name;
}

/* The next suffix for a name base; counters keep naming linear when a
 * base repeats (each level of a recursion names its sum after the same
 * assignment). */
static unsigned *counter(Counters *c, const char *key)
{
	if ((c->count + 1) * 2 > c->cap) {
		Counters big = { util_calloc(c->cap * 2, sizeof(char *)),
				 util_calloc(c->cap * 2, sizeof(unsigned)),
				 c->cap * 2, 0 };
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->keys[i])
				continue;
			*counter(&big, c->keys[i]) = c->next[i];
		}
		free(c->keys);
		free(c->next);
		*c = big;
	}
	size_t i = (((size_t)(uintptr_t)key * 0x9E3779B97F4A7C15u) >> 17) &
		   (c->cap - 1);
	while (c->keys[i] && c->keys[i] != key)
		i = (i + 1) & (c->cap - 1);
	if (!c->keys[i]) {
		c->keys[i] = key;
		c->next[i] = 2;
		c->count++;
	}
	return &c->next[i];
}

const char *flat_unique_name(Flattener *F, const char *hint)
{
	const char *base = intern_cstr(F->interner, hint);
	const char *name = base;
	if (name_has(&F->used, name)) {
		unsigned *k = counter(&F->counters, base);
		StrBuf b;
		sb_init(&b);
		do {
			sb_clear(&b);
			sb_printf(&b, "%s_%u", base, (*k)++);
			name = intern_cstr(F->interner, sb_str(&b));
		} while (name_has(&F->used, name));
		sb_free(&b);
	}
	name_add(&F->used, name);
	return name;
}

bool flat_is_result(const Flattener *F, const char *name)
{
	return name_has(&F->results, name);
}

/* The identifiers of the graph are reserved before anything is named. */
static void reserve_lhs(Flattener *F, const AstExpr *lhs)
{
	if (lhs->kind == AST_IDENT) {
		name_add(&F->used, lhs->u.ident);
	} else if (lhs->kind == AST_ARRAY || lhs->kind == AST_TUPLE) {
		for (size_t i = 0; i < lhs->u.list.n; i++)
			reserve_lhs(F, lhs->u.list.items[i]);
	}
}

static void reserve_graph_names(Flattener *F, const AstDef *graph)
{
	for (size_t i = 0; i < graph->nparams; i++)
		name_add(&F->used, graph->params[i].name);
	for (size_t i = 0; i < graph->nresults; i++) {
		name_add(&F->used, graph->results[i].name);
		name_add(&F->results, graph->results[i].name);
	}
	for (size_t i = 0; i < graph->body->nstmts; i++)
		reserve_lhs(F, graph->body->stmts[i].lhs);
}

/* ---- the graph -------------------------------------------------------- */

/* Document fragments the output declares: custom operations and kept
 * compounds, with what the kept bodies call, in document order. */
typedef struct Marking {
	const Flattener *F;
	bool *used; /* by index in prog->frags */
} Marking;

static void mark_used(Marking *m, const SemaFrag *f);

static void mark_expr(const AstExpr *e, void *ctx)
{
	Marking *m = ctx;
	if (e->kind == AST_INVOKE && e->u.inv.call)
		mark_used(m, e->u.inv.call->callee);
	ast_visit_children(e, mark_expr, m);
}

static void mark_used(Marking *m, const SemaFrag *f)
{
	const SemaProgram *prog = m->F->prog;
	if (f->is_std)
		return;
	size_t idx = 0;
	while (idx < prog->nfrags && prog->frags[idx] != f)
		idx++;
	if (idx == prog->nfrags || m->used[idx])
		return;
	m->used[idx] = true;
	for (size_t i = 0; f->def->body && i < f->def->body->nstmts; i++)
		mark_expr(f->def->body->stmts[i].rhs, m);
}

static void collect_declared(Flattener *F)
{
	bool *used = util_calloc(F->prog->nfrags ? F->prog->nfrags : 1, 1);
	Marking m = { F, used };
	for (size_t i = 0; i < F->nops; i++)
		mark_used(&m, F->ops[i]->frag);
	size_t n = 0;
	for (size_t i = 0; i < F->prog->nfrags; i++)
		n += used[i];
	F->g->keep = ARENA_ARRAY(F->arena, const SemaFrag *, n ? n : 1);
	for (size_t i = 0; i < F->prog->nfrags; i++)
		if (used[i])
			F->g->keep[F->g->nkeep++] = F->prog->frags[i];
	free(used);
}

static void flatten_main(Flattener *F)
{
	const AstDef *graph = F->prog->doc->graph;
	reserve_graph_names(F, graph);
	Scope s;
	memset(&s, 0, sizeof(s));
	s.prefix = "";
	venv_init(&s.env);
	eval_body(F, graph->body, &s);

	FlatGraph *g = F->g;
	g->ninputs = graph->nparams;
	g->inputs = ARENA_ARRAY(F->arena, FlatTensor *, g->ninputs ? g->ninputs : 1);
	for (size_t i = 0; i < graph->nparams; i++) {
		bool found;
		const Value *v = venv_get(&s.env, graph->params[i].name, &found);
		g->inputs[i] = v && v->kind == VAL_TENSOR ? v->u.t : NULL;
	}
	g->noutputs = graph->nresults;
	g->outputs = ARENA_ARRAY(F->arena, const Value *,
				 g->noutputs ? g->noutputs : 1);
	for (size_t i = 0; i < graph->nresults; i++) {
		bool found;
		g->outputs[i] = venv_get(&s.env, graph->results[i].name, &found);
	}
	venv_free(&s.env);
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
	F.external_name = intern_cstr(interner, "external");
	F.variable_name = intern_cstr(interner, "variable");
	F.constant_name = intern_cstr(interner, "constant");
	F.dcap = 64;
	F.dkeys = util_calloc(F.dcap, sizeof(*F.dkeys));
	F.dvals = util_calloc(F.dcap, sizeof(*F.dvals));
	F.kept = util_calloc(opt->nkeep ? opt->nkeep : 1, sizeof(*F.kept));
	F.used = (NameSet){ util_calloc(256, sizeof(char *)), 256, 0 };
	F.results = (NameSet){ util_calloc(16, sizeof(char *)), 16, 0 };
	F.counters = (Counters){ util_calloc(256, sizeof(char *)),
				 util_calloc(256, sizeof(unsigned)), 256, 0 };
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
	free(F.dkeys);
	free(F.dvals);
	free(F.kept);
	free(F.used.slots);
	free(F.results.slots);
	free(F.counters.keys);
	free(F.counters.next);
	return ok ? g : NULL;
}
