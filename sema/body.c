/*
 * body.c - the bodies of fragments and of the graph: assignments and the
 * rules of identifier usage (spec 3.3.2 Assignments, Identifier Usage in
 * the Graph and Fragment Body).
 */
#include "sema/sema_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- identifier table ------------------------------------------------- */

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(Binding) == 24, "the graph's body may bind millions of names: keep Binding at 24 bytes");
#endif

void sema_env_init(Env *env)
{
	memset(env, 0, sizeof(*env));
	pmap_init(&env->map);
	arena_init(&env->arena);
}

static void sema_env_init_graph(Env *env)
{
	sema_env_init(env);
	env->on_names = true;
}

void sema_env_free(Env *env)
{
	for (size_t i = 0; i < env->nbound; i++)
		*intern_data(env_bound(env, i)->name, IDATA_SEMA_GRAPH) = NULL;
	util_free(env->blocks);
	pmap_free(&env->map);
	arena_free(&env->arena);
}

Binding *sema_env_find(Env *env, const char *name)
{
	if (env->on_names)
		return *intern_data(name, IDATA_SEMA_GRAPH);
	bool found;
	return pmap_get(&env->map, name, &found);
}

static Binding *sema_env_add(Env *env, const char *name)
{
	Binding *b;
	if (env->on_names) {
		size_t i = env->nbound++;
		if (i % ENV_BLOCK == 0) {
			size_t k = i / ENV_BLOCK;
			ARRAY_RESERVE(env->blocks, k, env->capblocks, 16);
			env->blocks[k] = ARENA_ARRAY(&env->arena, Binding, ENV_BLOCK);
		}
		b = env_bound(env, i);
		*intern_data(name, IDATA_SEMA_GRAPH) = b;
	} else {
		b = ARENA_NEW(&env->arena, Binding);
		pmap_put(&env->map, name, b);
	}
	b->name = name;
	return b;
}

/* ---- assignments ------------------------------------------------------ */

/* tract's dialect: the tensor type a literal, or an array of literals or
 * tensors, is taken as (the data type of its first leaf). */
static const Type *tract_tensor_type(Ctx *c, const Type *t)
{
	while (t->kind == TY_ARRAY)
		t = t->item;
	if (t->kind == TY_TENSOR)
		return t;
	if (t->kind == TY_EMPTY_ARRAY)
		return ty_tensor(c->tt, ty_prim(c->tt, TY_SCALAR));
	return ty_tensor(c->tt, t);
}

static const char *tstr(Ctx *c, const Type *t)
{
	return ty_str(c->arena, t);
}

static bool is_external_call(const Ctx *c, const AstExpr *rhs)
{
	return rhs && rhs->kind == AST_INVOKE && !rhs->parens &&
	       sema_is_external(c, rhs->u.inv.name);
}

/* tract's dialect: an identifier assigned again names the new value from
 * there on, as in tract (W0311, once per document with a count). */
static void reassigned(Ctx *c, const AstExpr *lhs, const Binding *b)
{
	if (c->reassigned) {
		c->reassigned_more++;
		return;
	}
	c->reassigned = diag_add(c->diags, DIAG_W0311, lhs->loc, "'%s' is assigned a second time; tract's dialect takes the new value from here on", lhs->u.ident);
	diag_note(c->diags, c->reassigned, bind_decl(c, b), true, "the first assignment is here");
	diag_hint(c->diags, c->reassigned, "Khronos NNEF assigns every identifier once; a new name keeps the document portable");
}

/* An identifier on a left-hand side receives a value of type t (NULL when
 * the right-hand side had an error). `rhs` is the right-hand side when
 * the identifier is the whole left-hand side, else NULL; `call` is the
 * invocation the value comes from, if any. */
static void assign_ident(Ctx *c, const AstExpr *lhs, const Type *t,
			 const AstExpr *rhs, const AstExpr *call)
{
	const char *name = lhs->u.ident;
	Binding *b = sema_env_find(&c->env, name);
	bool in_graph = c->frag == NULL;

	if (b && (b->kind == BIND_PARAM || b->defined) && sema_tract(c)) {
		reassigned(c, lhs, b);
		if (b->kind == BIND_PARAM)
			b->kind = BIND_LOCAL;
		b->defined = false; /* assigned below */
	}
	if (b && b->kind == BIND_PARAM) {
		Diag *d = diag_add(c->diags, DIAG_E0704, lhs->loc,
				   "'%s' is a parameter of '%s' and cannot be assigned",
				   name, c->frag->name);
		diag_note(c->diags, d, bind_decl(c, b), false,
			  "the parameter is declared here");
		return;
	}
	if (b && b->defined) {
		Diag *d = diag_add(c->diags, DIAG_E0703, lhs->loc,
				   "'%s' is assigned a second time", name);
		diag_note(c->diags, d, bind_decl(c, b), true,
			  "the first assignment is here");
		diag_hint(c->diags, d,
			  "every identifier is assigned exactly once; choose a new name");
		return;
	}

	/* external <-> graph parameters, one to one (not re-checked when
	 * the value already had an error) */
	bool is_ext = is_external_call(c, rhs);
	if (in_graph && t && b && b->kind == BIND_GRAPH_PARAM && !is_ext) {
		Diag *d = rhs && rhs->kind == AST_INVOKE && !rhs->parens
			? diag_add(c->diags, DIAG_E0706, lhs->loc, "the graph parameter '%s' is defined by '%s', not 'external'", name, rhs->u.inv.name)
			: diag_add(c->diags, DIAG_E0706, lhs->loc, "the graph parameter '%s' is defined by an expression, not by 'external'", name);
		diag_hint(c->diags, d, "write '%s = external(shape = [...]);'",
			  name);
	}
	if (in_graph && is_ext && (!b || b->kind != BIND_GRAPH_PARAM)) {
		Diag *d = diag_add(c->diags, DIAG_E0707, lhs->loc,
				   "'%s' receives the result of 'external' but is not a graph parameter",
				   name);
		diag_hint(c->diags, d,
			  "list '%s' among the graph's parameters, or use 'variable' for stored data",
			  name);
	}

	/* tract's dialect: a literal, or an array of literals or tensors,
	 * is a constant tensor; a tensor array (of one tensor, checked when
	 * flattening) the tensor it holds */
	if (in_graph && t && t->kind != TY_TENSOR && sema_tract(c) &&
	    ty_tensor_like(t))
		t = tract_tensor_type(c, t);
	/* graph identifiers are single tensors */
	if (in_graph && t && t->kind != TY_TENSOR) {
		Diag *d = diag_add(c->diags, DIAG_E0709, lhs->loc,
				   "'%s' would be of type %s; identifiers in the graph body are single tensors",
				   name, tstr(c, t));
		if (t->kind == TY_ARRAY || t->kind == TY_TUPLE)
			diag_hint(c->diags, d,
				  "unpack it into tensors, as in '[a, b] = ...' or 'a, b = ...'");
		else
			diag_hint(c->diags, d,
				  "write compile-time values directly into the arguments that use them");
		t = NULL;
	}

	/* spec 1.0.5: a single identifier may take a whole tensor array only
	 * when its length is known, i.e. not from a primitive */
	if (t && call && t->kind == TY_ARRAY && call->u.inv.call &&
	    !call->u.inv.call->callee->def->body && !sema_tract(c)) {
		Diag *d = diag_add(c->diags, DIAG_E0712, lhs->loc,
				   "'%s' would take a tensor array of unknown length from the primitive '%s'",
				   name, call->u.inv.name);
		diag_hint(c->diags, d,
			  "name its items, as in '[a, b] = %s(...)'",
			  call->u.inv.name);
		t = NULL;
	}

	if (b && b->kind == BIND_RESULT) {
		if (t && b->type && !sema_castable(c, t, b->type, NULL, NULL)) {
			Diag *d = diag_add(c->diags, DIAG_E0711, lhs->loc,
					   "'%s' is a result of type %s, but is assigned %s",
					   name, tstr(c, b->type),
					   tstr(c, t));
			diag_note(c->diags, d, bind_decl(c, b), false,
				  "the result is declared here");
		}
		b->defined = true; /* its type stays the one declared */
		bind_set_decl(b, lhs->loc);
		return;
	}
	if (!b) {
		b = sema_env_add(&c->env, name);
		b->kind = BIND_LOCAL;
	}
	b->defined = true;
	b->type = t;
	bind_set_decl(b, lhs->loc);
}

/* A left-hand side against the value's type (spec 3.3.2 Assignments: the
 * left-hand side is structurally equivalent to the value, or a single
 * identifier takes a whole sub-structure). `rhs` is the matching part of
 * the right-hand side expression when known. */
static void assign(Ctx *c, const AstExpr *lhs, const Type *t,
		   const AstExpr *rhs, const AstExpr *call, bool whole)
{
	if (lhs->kind == AST_IDENT) {
		assign_ident(c, lhs, t, whole ? rhs : NULL, call);
		return;
	}
	if (lhs->kind != AST_ARRAY && lhs->kind != AST_TUPLE)
		return; /* reported by the parser (E0205) */
	bool is_array = lhs->kind == AST_ARRAY;
	size_t n = lhs->u.list.n;
	const AstExpr *sub_rhs = rhs && rhs->kind == lhs->kind && !rhs->parens
					 ? rhs
					 : NULL;
	if (t) {
		bool ok;
		if (is_array)
			ok = t->kind == TY_ARRAY ||
			     (t->kind == TY_EMPTY_ARRAY && n == 0);
		else
			ok = (t->kind == TY_TUPLE && t->n == n) ||
			     /* tract: the tensors of an array, its length
			      * checked when flattening */
			     (t->kind == TY_ARRAY && sema_tract(c));
		if (ok && sub_rhs && sub_rhs->u.list.n != n)
			ok = false;
		if (!ok) {
			const char *what = is_array ? "an array" : "a tuple";
			Diag *d;
			if (t->kind == (is_array ? TY_ARRAY : TY_TUPLE) ||
			    (sub_rhs && sub_rhs->u.list.n != n))
				d = diag_add(c->diags, DIAG_E0701, lhs->loc,
					     "the left-hand side has %zu item%s but the value has %zu",
					     n, n == 1 ? "" : "s",
					     sub_rhs ? sub_rhs->u.list.n : t->n);
			else
				d = diag_add(c->diags, DIAG_E0701, lhs->loc,
					     "the left-hand side is %s but the value is of type %s",
					     what, tstr(c, t));
			(void)d;
			t = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const Type *item = NULL;
		if (t)
			item = t->kind == TY_ARRAY ? t->item : t->items[i];
		const AstExpr *r = sub_rhs ? sub_rhs->u.list.items[i] : NULL;
		const AstExpr *rc = r && r->kind == AST_INVOKE ? r : call;
		assign(c, lhs->u.list.items[i], item, r, rc, false);
	}
}

/* ---- bodies ----------------------------------------------------------- */

static void declare_names(Ctx *c, const SemaFrag *f)
{
	bool graph = f->def->is_graph;
	for (size_t i = 0; i < f->nresults; i++) {
		if (sema_env_find(&c->env, f->results[i].name))
			continue; /* reported with the declaration */
		Binding *b = sema_env_add(&c->env, f->results[i].name);
		b->kind = graph ? BIND_GRAPH_RESULT : BIND_RESULT;
		b->type = graph ? NULL : f->results[i].type;
		bind_set_decl(b, f->results[i].loc);
	}
	for (size_t i = 0; i < f->nparams; i++) {
		if (sema_env_find(&c->env, f->params[i].name))
			continue; /* reported with the declaration */
		Binding *b = sema_env_add(&c->env, f->params[i].name);
		b->kind = graph ? BIND_GRAPH_PARAM : BIND_PARAM;
		b->defined = !graph;
		b->type = graph ? NULL : f->params[i].type;
		bind_set_decl(b, f->params[i].loc);
	}
}

/* Records the identifiers a left-hand side assigns. */
static void note_assigned(Ctx *c, const AstExpr *lhs)
{
	if (lhs->kind == AST_IDENT) {
		if (!sema_env_find(&c->assigned, lhs->u.ident)) {
			Binding *b = sema_env_add(&c->assigned, lhs->u.ident);
			bind_set_decl(b, lhs->loc);
		}
	} else if (lhs->kind == AST_ARRAY || lhs->kind == AST_TUPLE) {
		for (size_t i = 0; i < lhs->u.list.n; i++)
			note_assigned(c, lhs->u.list.items[i]);
	}
}

void sema_body_begin(Ctx *c, const SemaFrag *f)
{
	const AstBody *body = f->def->body;
	c->file = f->def->loc.file;
	if (f->def->is_graph)
		sema_env_init_graph(&c->env);
	else
		sema_env_init(&c->env);
	sema_env_init(&c->assigned);
	for (size_t i = 0; body && i < body->nstmts; i++)
		note_assigned(c, body->stmts[i].lhs);
	declare_names(c, f);
}

void sema_body_stmt(Ctx *c, AstAssign *s)
{
	c->stmt = s;
	const Type *t = sema_expr(c, s->rhs, true);
	const AstExpr *call = s->rhs->kind == AST_INVOKE && !s->rhs->parens
				      ? s->rhs
				      : NULL;
	assign(c, s->lhs, t, s->rhs, call, true);
}

void sema_body_end(Ctx *c, const SemaFrag *f)
{
	bool graph = f->def->is_graph;
	for (size_t i = 0; i < f->nparams && graph; i++) {
		Binding *b = sema_env_find(&c->env, f->params[i].name);
		if (b && b->kind == BIND_GRAPH_PARAM && !b->defined) {
			Diag *d = diag_add(c->diags, DIAG_E0706,
					   f->params[i].loc,
					   "the graph parameter '%s' is never defined",
					   f->params[i].name);
			diag_hint(c->diags, d,
				  "define it with '%s = external(shape = [...]);'",
				  f->params[i].name);
		}
	}
	for (size_t i = 0; i < f->nresults; i++) {
		Binding *b = sema_env_find(&c->env, f->results[i].name);
		if (!b || b->defined || b->decl_off != f->results[i].loc.off)
			continue; /* assigned, or a duplicate name */
		if (b->kind == BIND_GRAPH_RESULT)
			diag_add(c->diags, DIAG_E0710, f->results[i].loc,
				 "the graph result '%s' is never assigned",
				 f->results[i].name);
		else if (b->kind == BIND_RESULT)
			diag_add(c->diags, DIAG_E0705, f->results[i].loc,
				 "the result '%s' of '%s' is never assigned",
				 f->results[i].name, f->name);
	}
	sema_env_free(&c->env);
	sema_env_free(&c->assigned);
}

void sema_body(Ctx *c, const SemaFrag *f)
{
	const AstBody *body = f->def->body;
	sema_body_begin(c, f);
	for (size_t i = 0; i < body->nstmts && !diag_limit_reached(c->diags);
	     i++)
		sema_body_stmt(c, &body->stmts[i]);
	sema_body_end(c, f);
}
