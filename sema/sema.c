/*
 * sema.c - the semantic analysis driver: the standard library, the table
 * of operations, the rules for declarations (spec 3.3.2 Declarations),
 * then every body (body.c) and expression (expr.c).
 */
#include "sema/sema.h"

#include "sema/sema_internal.h"

#include <stdlib.h>
#include <string.h>

/* Generated from sema/stdlib.nnef by the build (build/sema/stdlib_text.c). */
extern const unsigned char sema_stdlib_text[];
extern const size_t sema_stdlib_len;

SourceFile *sema_stdlib_source(void)
{
	return source_from_memory("stdlib.nnef",
				  (const char *)sema_stdlib_text,
				  sema_stdlib_len);
}

/* ---- the table of operations ----------------------------------------- */

/* Frees what a SemaFrag holds outside the arena. */
static void drop_frag(SemaFrag *f)
{
	pmap_free(&f->param_index);
	pmap_free(&f->result_index);
}

const SemaFrag *sema_lookup(const SemaProgram *prog, const char *name)
{
	bool found;
	if (!prog->table.cap)
		return NULL;
	return pmap_get(&prog->table, name, &found);
}

bool sema_is_symbol(const SemaProgram *prog, const char *name)
{
	return ast_is_symbol(prog->doc, name) ||
	       (prog->implicit_symbols.cap && pmap_has(&prog->implicit_symbols, name));
}

void sema_free(SemaProgram *prog)
{
	pmap_free(&prog->implicit_symbols);
	for (size_t i = 0; i < prog->nassumed; i++)
		source_free(prog->assumed[i]);
	util_free(prog->assumed);
	for (size_t i = 0; i < prog->nfrags; i++)
		drop_frag(prog->frags[i]);
	pmap_free(&prog->table);
	util_free(prog->frags);
	ty_free(&prog->types);
	memset(prog, 0, sizeof(*prog));
}

bool sema_castable(const Ctx *c, const Type *from, const Type *to,
		   const Type **binding, const Type **conflict)
{
	if (!sema_tract(c))
		return ty_castable(from, to, binding, conflict);
	return ty_castable_tract(from, to, binding);
}

bool sema_is_external(const Ctx *c, const char *name)
{
	return name == c->external ||
	       (sema_tract(c) && name == c->tract_external);
}

/* ---- suggestions ------------------------------------------------------ */

/* Edit distance of a and b counting a swap of neighbours as one edit
 * (optimal string alignment), or max + 1 when larger than max. */
static size_t edit_distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > lb + max || lb > la + max || la > 63 || lb > 63)
		return max + 1;
	size_t d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb] > max ? max + 1 : d[la][lb];
}

const char *sema_suggest(const char *name, const char *const *candidates,
			 size_t n)
{
	size_t len = strlen(name);
	size_t max = len <= 3 ? 1 : len <= 6 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = max + 1;
	for (size_t i = 0; i < n; i++) {
		if (!candidates[i] || candidates[i] == name)
			continue;
		size_t d = edit_distance(name, candidates[i], max);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best;
}

/* ---- declarations ----------------------------------------------------- */

static const char *type_text(Ctx *c, const Type *t)
{
	return ty_str(c->arena, t);
}

/* Whether, and where first, a declaration uses the generic type '?'. */
typedef struct GenericUse {
	bool used;         /* a parameter or result type holds '?' */
	bool located;      /* `first` is set */
	Loc first;         /* the first type written with '?' */
} GenericUse;

/* Records the use of '?' in t, written as ast (NULL for the implicit
 * tensor types of a graph). */
static void note_generic(GenericUse *g, const Type *t, const AstType *ast)
{
	g->used |= t->has_generic;
	if (t->has_generic && !g->located && ast) {
		g->first = ast->loc;
		g->located = true;
	}
}

/* E0512: t, written as ast, is a tuple type mixing tensors and
 * attributes. Returns true when reported. */
static bool check_mixed_tuple(Ctx *c, const Type *t, const AstType *ast)
{
	if (sema_tract(c))
		return false; /* tract's tuples mix them (tract_core_scan) */
	const Type *mixed = ty_mixed_tuple(t);
	if (mixed)
		diag_add(c->diags, DIAG_E0512, ast->loc,
			 "the tuple type %s mixes tensors and attributes",
			 type_text(c, mixed));
	return mixed != NULL;
}

/* A new SemaFrag for def, its parameters and results not filled in yet;
 * a default generic type must be a primitive type (spec 3.3.2
 * Declarations). */
static SemaFrag *new_frag(Ctx *c, const AstDef *def, bool is_std)
{
	SemaFrag *f = ARENA_NEW(c->arena, SemaFrag);
	f->name = def->name;
	f->def = def;
	f->is_std = is_std;
	f->is_generic = def->is_generic;
	f->nparams = def->nparams;
	f->nresults = def->nresults;
	f->params = ARENA_ARRAY(c->arena, SemaParam, def->nparams);
	f->results = ARENA_ARRAY(c->arena, SemaParam, def->nresults);
	if (def->is_generic && def->has_generic_default) {
		if (def->generic_default == AST_TN_GENERIC)
			diag_add(c->diags, DIAG_E0513, def->generic_loc,
				 "the default generic type of '%s' must be a primitive type, not '?'",
				 def->name);
		else
			f->generic_default =
				ty_from_typename(c->tt, def->generic_default);
	}
	return f;
}

/* A fragment parameter p of type t: no tuple of tensors and attributes,
 * tensors before attributes (*first_attr: the first attribute so far),
 * a default value that casts to the type (spec 3.3.2 Declarations). */
static void check_param(Ctx *c, const AstParam *p, const Type *t,
			const AstParam **first_attr)
{
	check_mixed_tuple(c, t, p->type);
	if (ty_is_attribute(t)) {
		if (!*first_attr)
			*first_attr = p;
	} else if (*first_attr && !sema_tract(c)) {
		Diag *d = diag_add(c->diags, DIAG_E0506, p->loc,
				   "tensor parameter '%s' follows the attribute '%s'",
				   p->name, (*first_attr)->name);
		diag_hint(c->diags, d,
			  "parameters of tensor type come before attributes");
	}
	if (p->def) {
		const Type *dt = sema_literal(c, p->def);
		const Type *binding = NULL;
		if (dt && !sema_castable(c, dt, t, &binding, NULL) &&
		    !sema_absent(c, p->def))
			diag_add(c->diags, DIAG_E0509, p->def->loc,
				 "default value of '%s' is %s, which does not cast to its type %s",
				 p->name, type_text(c, dt), type_text(c, t));
	}
}

/* The parameters of f: their types (a graph's are tensors), unique names
 * (f->param_index), and for a fragment the rules of check_param. */
static void declare_params(Ctx *c, SemaFrag *f, GenericUse *gen)
{
	const AstDef *def = f->def;
	const AstParam *first_attr = NULL;
	pmap_init(&f->param_index);
	for (size_t i = 0; i < def->nparams; i++) {
		const AstParam *p = &def->params[i];
		SemaParam *sp = &f->params[i];
		sp->name = p->name;
		sp->loc = p->loc;
		/* graph parameters are implicitly tensors (spec 3.3.2) */
		sp->type = p->type ? ty_from_ast(c->tt, p->type)
				   : ty_tensor(c->tt, NULL);
		sp->def = p->def;
		note_generic(gen, sp->type, p->type);
		bool dup;
		uintptr_t first = (uintptr_t)pmap_get(&f->param_index, p->name, &dup);
		if (dup) {
			Diag *d = diag_add(c->diags, DIAG_E0504, p->loc,
					   "parameter '%s' of '%s' is declared twice",
					   p->name, def->name);
			diag_note(c->diags, d, def->params[first - 1].loc, false,
				  "the first '%s' is here", p->name);
		} else {
			pmap_put(&f->param_index, p->name, (void *)(i + 1));
		}
		if (!def->is_graph)
			check_param(c, p, sp->type, &first_attr);
	}
}

/* The name of result i of f: not a parameter's (f->name_clash), not
 * another result's (f->result_index). */
static void check_result_name(Ctx *c, SemaFrag *f, size_t i)
{
	const AstDef *def = f->def;
	const AstParam *r = &def->results[i];
	bool clash;
	uintptr_t pi = (uintptr_t)pmap_get(&f->param_index, r->name, &clash);
	bool dup;
	uintptr_t first = (uintptr_t)pmap_get(&f->result_index, r->name, &dup);
	if (clash && sema_tract(c) && !def->body) {
		/* tract keeps parameters and results apart (tract_core_einsum's
		 * 'output' is both) */
		pmap_put(&f->result_index, r->name, (void *)(i + 1));
	} else if (clash) {
		f->name_clash = true;
		Diag *d = diag_add(c->diags, DIAG_E0505, r->loc,
				   "'%s' is both a parameter and a result of '%s'",
				   r->name, def->name);
		diag_note(c->diags, d, def->params[pi - 1].loc, false,
			  "the parameter '%s' is here", r->name);
	} else if (dup) {
		Diag *d = diag_add(c->diags, DIAG_E0505, r->loc,
				   "result '%s' of '%s' is declared twice",
				   r->name, def->name);
		diag_note(c->diags, d, def->results[first - 1].loc, false,
			  "the first '%s' is here", r->name);
	} else {
		pmap_put(&f->result_index, r->name, (void *)(i + 1));
	}
}

/* A fragment result r of type t: tensors only, each with a data type
 * (spec 3.3.2 Declarations). */
static void check_result_type(Ctx *c, const AstDef *def, const AstParam *r,
			      const Type *t)
{
	if (check_mixed_tuple(c, t, r->type))
		return;
	/* tract_core_properties returns (string, tensor<scalar>)[] */
	if (!ty_all_tensors(t) && !sema_tract(c))
		diag_add(c->diags, DIAG_E0507, r->type->loc,
			 "result '%s' of '%s' is of type %s; results of fragments are tensors",
			 r->name, def->name, type_text(c, t));
	else if (ty_has_unbound_tensor(t))
		diag_add(c->diags, DIAG_E0508, r->type->loc,
			 "result '%s' of '%s' is of the unbound type %s; results need a data type",
			 r->name, def->name, type_text(c, t));
}

/* The results of f: their types (a graph's are tensors), unique names,
 * for a fragment the rules of check_result_type; then f->result_type,
 * the single result's type or the tuple of all. */
static void declare_results(Ctx *c, SemaFrag *f, GenericUse *gen)
{
	const AstDef *def = f->def;
	const Type **rtypes = ARENA_ARRAY(c->arena, const Type *,
					  def->nresults ? def->nresults : 1);
	pmap_init(&f->result_index);
	for (size_t i = 0; i < def->nresults; i++) {
		const AstParam *r = &def->results[i];
		SemaParam *sr = &f->results[i];
		sr->name = r->name;
		sr->loc = r->loc;
		sr->type = def->is_graph ? ty_tensor(c->tt, NULL)
					 : ty_from_ast(c->tt, r->type);
		rtypes[i] = sr->type;
		note_generic(gen, sr->type, r->type);
		check_result_name(c, f, i);
		if (!def->is_graph)
			check_result_type(c, def, r, sr->type);
	}
	f->result_type = def->nresults == 1
				 ? rtypes[0]
				 : ty_tuple(c->tt, rtypes, def->nresults);
}

/* A fragment uses '?' exactly when it is declared generic (spec 3.3.2
 * Generic Types). */
static void check_generic_use(Ctx *c, const AstDef *def,
			      const GenericUse *gen)
{
	if (gen->used && !def->is_generic) {
		Diag *d = diag_add(c->diags, DIAG_E0510, gen->first,
				   "'%s' uses the generic type '?' but is not declared generic",
				   def->name);
		diag_hint(c->diags, d, "declare it as 'fragment %s<?>(...)'",
			  def->name);
	} else if (!gen->used && def->is_generic) {
		diag_add(c->diags, DIAG_E0511, def->generic_loc,
			 "'%s' is declared generic but no parameter or result uses '?'",
			 def->name);
	}
}

/* Builds the SemaFrag of a declaration and checks the rules of spec
 * 3.3.2 Declarations; a fragment with errors is marked bad. */
static SemaFrag *declare(Ctx *c, const AstDef *def, bool is_std)
{
	size_t errors_before = c->diags->nerrors + c->diags->dropped_errors;
	GenericUse gen = { .first = def->name_loc };
	SemaFrag *f = new_frag(c, def, is_std);
	declare_params(c, f, &gen);
	declare_results(c, f, &gen);
	if (def->is_graph)
		return f;
	check_generic_use(c, def, &gen);
	f->bad = c->diags->nerrors + c->diags->dropped_errors != errors_before;
	return f;
}

/* Equal literal expressions (default values). */
static bool literal_equal(const AstExpr *a, const AstExpr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->op != b->op)
		return false;
	switch (ast_kind(a)) {
	case AST_INT:
		return a->u.ival == b->u.ival;
	case AST_REAL:
		return a->u.rval == b->u.rval;
	case AST_BOOL:
		return a->u.bval == b->u.bval;
	case AST_STRING:
		return a->u.str.len == b->u.str.len &&
		       memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
	case AST_UNARY:
		return literal_equal(a->u.bin.a, b->u.bin.a);
	case AST_ARRAY:
	case AST_TUPLE:
		if (a->u.list.n != b->u.list.n)
			return false;
		for (size_t i = 0; i < a->u.list.n; i++)
			if (!literal_equal(a->u.list.items[i], b->u.list.items[i]))
				return false;
		return true;
	case AST_IDENT:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return false;
	}
	return false; /* not reached: every kind is a case */
}

/* Same parameters (names, types, default values) and results (names,
 * types): what --lenient accepts as a harmless redefinition. */
static bool same_signature(const SemaFrag *a, const SemaFrag *b)
{
	if (a->nparams != b->nparams || a->nresults != b->nresults ||
	    a->is_generic != b->is_generic ||
	    a->generic_default != b->generic_default)
		return false;
	for (size_t i = 0; i < a->nparams; i++)
		if (a->params[i].name != b->params[i].name ||
		    a->params[i].type != b->params[i].type ||
		    !literal_equal(a->params[i].def, b->params[i].def))
			return false;
	for (size_t i = 0; i < a->nresults; i++)
		if (a->results[i].name != b->results[i].name ||
		    a->results[i].type != b->results[i].type)
			return false;
	return true;
}

static void add_frag(SemaProgram *prog, SemaFrag *f, size_t *n)
{
	prog->frags[(*n)++] = f;
	pmap_put(&prog->table, f->name, f);
}

/* Registers the document's fragments: unique names (spec 3.3.2: each
 * fragment declaration must have a unique name), no redefinition of a
 * standard operation (accepted with --lenient when the signature is the
 * same; the document's definition then replaces the standard one when it
 * has a body). */
static void register_doc_fragments(Ctx *c, const AstDoc *doc, size_t *n,
				   bool registry)
{
	for (size_t i = 0; i < doc->nfragments; i++) {
		const AstDef *def = doc->fragments[i];
		if (def->broken)
			continue;
		SemaFrag *f = declare(c, def, false);
		f->is_registry = registry;
		const SemaFrag *old = sema_lookup(c->prog, def->name);
		if (old && !registry && (old->is_std || old->is_registry) &&
		    sema_tract(c)) {
			/* tract looks for an operation among the document's
			 * fragments first: the document's definition is used */
			add_frag(c->prog, f, n);
			continue;
		}
		if (old && !old->is_std) {
			Diag *d = diag_add(c->diags, DIAG_E0501, def->name_loc,
					   "fragment '%s' is defined twice",
					   def->name);
			diag_note(c->diags, d, old->def->name_loc, true,
				  "the first definition is here");
			drop_frag(f);
			continue;
		}
		if (old) {
			bool same = same_signature(old, f);
			if (c->opt->lenient && same) {
				Diag *d = diag_add_level(
					c->diags, DIAG_WARNING, DIAG_E0502,
					def->name_loc,
					"'%s' redefines a standard operation with the same signature; %s",
					def->name,
					def->body ? "this definition is used"
						  : "the standard definition is used");
				diag_hint(c->diags, d,
					  "accepted because of --lenient; without it this is an error");
				if (!def->body) {
					drop_frag(f);
					continue;
				}
			} else {
				Diag *d = diag_add(
					c->diags, DIAG_E0502, def->name_loc,
					"'%s' is a standard operation and cannot be redefined",
					def->name);
				diag_note(c->diags, d, old->def->name_loc,
					  false,
					  "the standard declaration is here");
				if (same)
					diag_hint(c->diags, d,
						  "the signature is the standard one: remove the definition, or pass --lenient to accept it");
				else
					diag_hint(c->diags, d,
						  "rename it; its signature differs from the standard one");
				drop_frag(f);
				continue;
			}
		}
		add_frag(c->prog, f, n);
	}
}

/* ---- operations of vendor extensions assumed (--lenient) --------------- */

/* The parameters of the declaration assumed from a call: a tensor for
 * each positional argument (input, or input1, input2...), the argument's
 * type for each named one. False when an argument has no type (its error
 * was reported) or cannot be a parameter. */
static bool assumed_params(Ctx *c, const AstExpr *e, StrBuf *b)
{
	size_t npos = 0, k = 0;
	bool ok = true;
	for (size_t i = 0; i < e->u.inv.nargs; i++)
		npos += !e->u.inv.args[i].name;
	/* every argument is checked once, whatever comes of it */
	for (size_t i = 0; i < e->u.inv.nargs; i++) {
		const AstArg *a = &e->u.inv.args[i];
		const Type *t = sema_expr(c, a->value, false);
		if (!t || t->kind == TY_EMPTY_ARRAY ||
		    (!a->name && t->kind != TY_TENSOR && t->kind > TY_LOGICAL))
			ok = false;
		if (!ok)
			continue;
		sb_puts(b, i ? ", " : " ");
		if (a->name)
			sb_printf(b, "%s: %s", a->name, ty_str(c->arena, t));
		else if (npos == 1)
			sb_printf(b, "input: ");
		else
			sb_printf(b, "input%zu: ", ++k);
		if (!a->name)
			sb_printf(b, t->kind == TY_TENSOR ? "%s" : "tensor<%s>", ty_str(c->arena, t));
	}
	return ok;
}

/* The results: tensor<scalar>, one per item of a tuple the call is
 * assigned to whole. */
static void assumed_results(const Ctx *c, const AstExpr *e, StrBuf *b)
{
	const AstExpr *lhs = c->stmt && c->stmt->rhs == e ? c->stmt->lhs : NULL;
	size_t n = lhs && lhs->kind == AST_TUPLE ? lhs->u.list.n : 1;
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, i ? ", output" : " output");
		if (n > 1)
			sb_printf(b, "%zu", i + 1);
		sb_puts(b, ": tensor<scalar>");
	}
}

const SemaFrag *sema_assume_declaration(Ctx *c, const AstExpr *e,
					const char *ext)
{
	const char *name = e->u.inv.name;
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "fragment %s(", name);
	bool ok = assumed_params(c, e, &b);
	sb_puts(&b, " ) -> (");
	assumed_results(c, e, &b);
	sb_puts(&b, " );");
	SemaFrag *f = NULL;
	DiagMark mark = diag_mark(c->diags);
	size_t before = diag_count(c->diags);
	if (ok) {
		char *text = arena_strndup(c->arena, sb_str(&b), b.len);
		SourceFile *src = source_from_memory("<declaration assumed by --lenient>", text, b.len);
		SemaProgram *prog = c->prog;
		prog->assumed = util_realloc(prog->assumed, (prog->nassumed + 1) * sizeof(*prog->assumed));
		prog->assumed[prog->nassumed++] = src;
		ParseResult r = parse_document(src, PARSE_FRAGMENTS, NULL, c->arena, c->interner, c->diags);
		if (diag_count(c->diags) == before && r.doc->nfragments == 1)
			f = declare(c, r.doc->fragments[0], false);
		if (f && !f->bad) {
			prog->frags = util_realloc(prog->frags, (prog->nfrags + 1) * sizeof(*prog->frags));
			add_frag(prog, f, &prog->nfrags);
		} else {
			/* no declaration can be made of it (two arguments of
			 * one name...): the call is an unknown operation */
			diag_rewind(c->diags, mark);
			if (f)
				drop_frag(f);
			f = NULL;
		}
	}
	if (f && sema_vendor_use(c, VENDOR_OPERATION, e->loc, name)) {
		Diag *d = diag_add(c->diags, DIAG_W0309, e->loc, "'%s' of the vendor extension '%s' is not declared: taken as the custom operation '%s'", name, ext, sb_str(&b));
		diag_hint(c->diags, d, "give its true declaration with --declarations FILE");
		c->assumed_warning = d;
	}
	sb_free(&b);
	return f;
}

struct SemaGraph {
	Ctx c;
	SemaFrag *graph;          /* NULL when its body is not checked */
	size_t errors_before;
};

SemaGraph *sema_begin(SemaProgram *prog, const AstDoc *doc,
		      const AstDoc *stdlib, Arena *arena, Interner *interner,
		      DiagList *diags, const SemaOptions *opt)
{
	memset(prog, 0, sizeof(*prog));
	pmap_init(&prog->implicit_symbols);
	ty_init(&prog->types, arena);
	prog->doc = doc;
	prog->stdlib = stdlib;
	SemaGraph *sg = util_calloc(1, sizeof(*sg));
	sg->errors_before = diags->nerrors;

	Ctx *c = &sg->c;
	c->prog = prog;
	c->tt = &prog->types;
	c->arena = arena;
	c->interner = interner;
	c->diags = diags;
	c->opt = opt;
	c->external = intern_cstr(interner, "external");
	c->variable = intern_cstr(interner, "variable");
	c->update = intern_cstr(interner, "update");
	c->tract_external = intern_cstr(interner, "tract_core_external");

	size_t total = stdlib->nfragments + doc->nfragments;
	for (size_t k = 0; k < opt->ndeclarations; k++)
		total += opt->declarations[k]->nfragments;
	prog->frags = util_calloc(total ? total : 1, sizeof(*prog->frags));
	pmap_init(&prog->table);
	size_t n = 0;
	c->in_stdlib = true;
	for (size_t i = 0; i < stdlib->nfragments; i++)
		add_frag(prog, declare(c, stdlib->fragments[i], true), &n);
	c->in_stdlib = false;
	/* --declarations: as if the document defined them first */
	for (size_t k = 0; k < opt->ndeclarations; k++)
		register_doc_fragments(c, opt->declarations[k], &n,
				       k < opt->nregistries);
	register_doc_fragments(c, doc, &n, false);
	prog->nfrags = n;

	/* Bodies: the standard library's (their types annotate the AST for
	 * flattening), the document's fragments', then the graph's. */
	for (size_t i = 0; i < prog->nfrags && !diag_limit_reached(diags); i++) {
		const SemaFrag *f = prog->frags[i];
		if (!f->def->body || f->name_clash)
			continue;
		c->in_stdlib = f->is_std || f->is_registry;
		c->frag = f;
		sema_body(c, f);
	}
	c->in_stdlib = false;
	c->frag = NULL;
	if (doc->graph && !doc->graph->broken && !diag_limit_reached(diags)) {
		sg->graph = declare(c, doc->graph, false);
		if (sg->graph->name_clash) {
			drop_frag(sg->graph);
			sg->graph = NULL;
		} else {
			sema_body_begin(c, sg->graph);
		}
	}
	return sg;
}

void sema_stmt(SemaGraph *sg, AstAssign *s, Arena *scratch)
{
	if (!sg->graph || diag_limit_reached(sg->c.diags))
		return;
	/* what the program keeps (types, bindings) has arenas of its own */
	Arena *arena = sg->c.arena;
	if (scratch)
		sg->c.arena = scratch;
	sema_body_stmt(&sg->c, s);
	sg->c.arena = arena;
}

bool sema_vendor_use(Ctx *c, AstVendorKind k, Loc loc, const char *name)
{
	AstVendorUse *u = &c->vendor[k];
	if (u->count++)
		return false;
	u->first = loc;
	u->name = name;
	return true;
}

/* What the summary calls each kind of vendor construct: one, several. */
static const char *const vendor_words[VENDOR_NKINDS][2] = {
	[VENDOR_QUOTED] = { "quoted identifier", "quoted identifiers" },
	[VENDOR_OPERATION] = { "call to a vendor operation", "calls to vendor operations" },
	[VENDOR_SYMBOL] = { "use of a symbol", "uses of symbols" },
	[VENDOR_ASSERT] = { "assertion", "assertions" },
};

/* "3 calls to vendor operations (the first, 'tract_core_gelu', at
 * 12:22)". */
static void vendor_phrase(StrBuf *b, AstVendorKind k, const AstVendorUse *u)
{
	unsigned line, col;
	source_linecol(u->first.file, u->first.off, &line, &col);
	if (b->len)
		sb_puts(b, ", ");
	bool named = u->name && k != VENDOR_ASSERT;
	sb_printf(b, "%zu %s (", u->count, vendor_words[k][u->count > 1]);
	if (u->count > 1)
		sb_puts(b, named ? "the first, " : "the first ");
	if (named)
		sb_printf(b, "'%s'%s", u->name, u->count > 1 ? ", " : " ");
	sb_printf(b, "at %u:%u)", line, col);
}

static void sema_vendor_summary(Ctx *c)
{
	const AstVendor *v = &c->prog->doc->vendor;
	if (sema_tract(c))
		return; /* the dialect's own constructs */
	size_t assumed = c->vendor[VENDOR_OPERATION].count;
	if (c->opt->lenient && assumed > 1)
		diag_note(c->diags, c->assumed_warning, loc_make(NULL, 0, 0), false, "%zu more vendor operation%s taken so, each declared by its first call (nnef-flatten writes each declaration)", assumed - 1, assumed == 2 ? " is" : "s are");
	if (c->opt->lenient || !v->nextensions)
		return;
	AstVendorUse use[VENDOR_NKINDS];
	memcpy(use, c->vendor, sizeof(use));
	use[VENDOR_QUOTED] = v->use[VENDOR_QUOTED];
	use[VENDOR_ASSERT] = v->use[VENDOR_ASSERT];
	StrBuf uses, exts;
	sb_init(&uses);
	sb_init(&exts);
	for (int k = 0; k < VENDOR_NKINDS; k++)
		if (use[k].count)
			vendor_phrase(&uses, (AstVendorKind)k, &use[k]);
	const AstDoc *doc = c->prog->doc;
	for (size_t i = 0; i < doc->nexts; i++)
		if (strncmp(doc->exts[i]->name, "KHR_", 4) != 0)
			sb_printf(&exts, "%s%s", exts.len ? ", " : "", doc->exts[i]->name);
	if (uses.len) {
		Diag *d = diag_add(c->diags, DIAG_E0306, v->first_line, "this document uses vendor extensions (%s): %s; standard NNEF has none of these, and only the first of each kind is reported; it is written in tract's dialect of NNEF, which --dialect=tract reads", sb_str(&exts), sb_str(&uses));
		diag_hint(c->diags, d, "check it with --dialect=tract; or --lenient accepts these constructs as deviations from Khronos NNEF, so that the rest of the document is checked (vendor operations are then declared by their first call, or by --declarations FILE)");
	}
	sb_free(&uses);
	sb_free(&exts);
}

bool sema_end(SemaGraph *sg)
{
	Ctx *c = &sg->c;
	sema_vendor_summary(c);
	if (sg->graph) {
		sema_body_end(c, sg->graph);
		drop_frag(sg->graph);
	}
	util_free(c->iters);
	if (c->reassigned_more)
		diag_note(c->diags, c->reassigned, loc_make(NULL, 0, 0), false,
			  "%zu more identifier%s assigned again in this document",
			  c->reassigned_more, c->reassigned_more == 1 ? " is" : "s are");
	if (c->named_tensor_more)
		diag_note(c->diags, c->named_tensor_warning, loc_make(NULL, 0, 0),
			  false, "%zu more tensor%s given by name in this document",
			  c->named_tensor_more,
			  c->named_tensor_more == 1 ? " is" : "s are");
	bool ok = c->diags->nerrors == sg->errors_before;
	util_free(sg);
	return ok;
}

bool sema_check(SemaProgram *prog, const AstDoc *doc, const AstDoc *stdlib,
		Arena *arena, Interner *interner, DiagList *diags,
		const SemaOptions *opt)
{
	SemaGraph *sg = sema_begin(prog, doc, stdlib, arena, interner, diags,
				   opt);
	const AstBody *body = doc->graph && sg->graph ? doc->graph->body : NULL;
	for (size_t i = 0; body && i < body->nstmts; i++)
		sema_stmt(sg, &body->stmts[i], NULL);
	return sema_end(sg);
}
