/*
 * parse.c - parse_document: runs the parser (grammar.y, fed by
 * token_feed.c), then the syntax-level checks the grammar alone cannot
 * express (spec 3.2 and Appendix A): the literal 2^63 without its minus
 * sign, left-hand sides and default values, the document structure
 * (3.2.4) and extension gating (3.2.2, 3.2.3). The AST it returns lists
 * the document's graph, fragments and extensions.
 */
#include "grammar/parse.h"

#include "grammar/parse_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KHR_FRAGMENTS "KHR_enable_fragment_definitions"
#define KHR_OPERATORS "KHR_enable_operator_expressions"

/* ---- 2^63 without its minus sign ------------------------------------- */

static void find_int_min(const AstExpr *e, void *ctx)
{
	ParseState *ps = ctx;
	if (e->kind == AST_INT && e->op == 1) {
		ps->syntax_errors = true;
		diag_add(ps->diags, DIAG_E0108, e->loc,
			 "integer literal '9223372036854775808' is out of range (the largest integer is %lld)",
			 (long long)INT64_MAX);
	}
	ast_visit_children(e, find_int_min, ps);
}

static void check_int_min(ParseState *ps, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstDef *d = doc->items[i].def;
		if (doc->items[i].kind == AST_ITEM_QUANT)
			find_int_min(doc->items[i].call, ps);
		if (doc->items[i].kind != AST_ITEM_DEF)
			continue;
		for (size_t k = 0; k < d->nparams; k++)
			if (d->params[k].def)
				find_int_min(d->params[k].def, ps);
		for (size_t k = 0; d->body && k < d->body->nstmts; k++) {
			find_int_min(d->body->stmts[k].lhs, ps);
			find_int_min(d->body->stmts[k].rhs, ps);
		}
	}
}

/* ---- left-hand sides and default values ----------------------------- */

static const char *describe_expr(const AstExpr *e)
{
	if (e->parens && e->kind != AST_TUPLE)
		return "a parenthesized expression";
	switch (ast_kind(e)) {
	case AST_IDENT:
		return "an identifier";
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
		return "a literal";
	case AST_ARRAY:
		return "an array";
	case AST_TUPLE:
		return "a parenthesized tuple";
	case AST_UNARY:
	case AST_BINARY:
		return "an operator expression";
	case AST_SUBSCRIPT:
		return "a subscript";
	case AST_IFELSE:
		return "an if-else expression";
	case AST_COMPREHENSION:
		return "an array comprehension";
	case AST_BUILTIN:
		return "a built-in function call";
	case AST_INVOKE:
		return "an invocation";
	}
	return "an expression";
}

/* The first item of an array or tuple that `bad` rejects, or NULL: the
 * shared step of the validators below. */
static const AstExpr *first_bad_item(const AstExpr *e,
				     const AstExpr *(*bad)(const AstExpr *))
{
	for (size_t i = 0; i < e->u.list.n; i++) {
		const AstExpr *b = bad(e->u.list.items[i]);
		if (b)
			return b;
	}
	return NULL;
}

/* <lvalue-expr> ::= <identifier> | <array-lvalue-expr> | <tuple-lvalue-expr>
 * Returns the first sub-expression that is not one, or NULL. A tuple's
 * own parentheses are part of its syntax; extra ones, as in ((a, b)), are
 * a <paren-expr> and not an lvalue. */
static const AstExpr *bad_lvalue(const AstExpr *e)
{
	switch (ast_kind(e)) {
	case AST_IDENT:
		return e->parens ? e : NULL;
	case AST_ARRAY:
	case AST_TUPLE:
		if (e->parens)
			return e;
		return first_bad_item(e, bad_lvalue);
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
	case AST_UNARY:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return e;
	}
	return e; /* not reached: every kind is a case */
}

static void check_lvalues(ParseState *ps, const AstBody *body)
{
	for (size_t i = 0; i < body->nstmts; i++) {
		const AstExpr *bad = bad_lvalue(body->stmts[i].lhs);
		if (!bad)
			continue;
		ps->syntax_errors = true; /* the grammar's <lvalue-expr> */
		Diag *d = diag_add(ps->diags, DIAG_E0205, bad->loc,
				   "invalid left-hand side: %s cannot be assigned to",
				   describe_expr(bad));
		diag_hint(ps->diags, d,
			  "the left-hand side is an identifier, or an array or tuple of identifiers");
	}
}

static bool is_number(const AstExpr *e)
{
	return e->kind == AST_INT || e->kind == AST_REAL;
}

/* A minus sign written directly before a numeric literal ("-1"): part of
 * the literal in flat syntax (spec 3.1). */
static bool is_signed_number(const AstExpr *e)
{
	return e->kind == AST_UNARY && e->op == AST_OP_MINUS && !e->parens &&
	       is_number(e->u.bin.a) && !e->u.bin.a->parens &&
	       e->u.bin.a->loc.off == e->loc.off + 1;
}

/* <literal-expr> ::= <literal> | <array-literal-expr> | <tuple-literal-expr>
 * with a leading minus on numbers (spec 3.1: in compositional syntax it is
 * a unary minus before the literal, with the same result). */
static const AstExpr *bad_literal(const AstExpr *e)
{
	if (e->parens && e->kind != AST_TUPLE)
		return e;
	switch (ast_kind(e)) {
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
		return NULL;
	case AST_UNARY:
		return e->op == AST_OP_MINUS && is_number(e->u.bin.a) &&
				       !e->u.bin.a->parens
			       ? NULL
			       : e;
	case AST_ARRAY:
	case AST_TUPLE:
		return first_bad_item(e, bad_literal);
	case AST_IDENT:
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return e;
	}
	return e; /* not reached: every kind is a case */
}

static void check_defaults(ParseState *ps, const AstDef *def)
{
	for (size_t i = 0; i < def->nparams; i++) {
		const AstExpr *dv = def->params[i].def;
		const AstExpr *bad = dv ? bad_literal(dv) : NULL;
		if (!bad)
			continue;
		ps->syntax_errors = true; /* the grammar's <literal-expr> */
		Diag *d = diag_add(ps->diags, DIAG_E0206, bad->loc,
				   "default value of '%s' must be a literal expression, not %s",
				   def->params[i].name, describe_expr(bad));
		diag_hint(ps->diags, d,
			  "defaults are built from literals, arrays and tuples only");
	}
}

/* ---- document structure (spec 3.2.4) -------------------------------- */

static bool parse_uint(const char *s, size_t n, int *out)
{
	long v = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > 1000000)
			return false;
	}
	*out = (int)v;
	return true;
}

/* <version> ::= "version" <numeric-literal> ";" where the literal is
 * major.minor. */
static void check_version(ParseState *ps, AstDoc *doc, const AstItem *it)
{
	const char *s = ps->file->text + it->version_loc.off;
	size_t n = it->version_loc.len;
	const char *dot = memchr(s, '.', n);
	int major, minor;
	if (it->version_is_int || !dot ||
	    !parse_uint(s, (size_t)(dot - s), &major) ||
	    !parse_uint(dot + 1, n - (size_t)(dot - s) - 1, &minor)) {
		Diag *d = diag_add(ps->diags, DIAG_E0207, it->version_loc,
				   "malformed version number '%.*s': expected major.minor",
				   (int)(n > 32 ? 32 : n), s);
		diag_hint(ps->diags, d, "write 'version 1.0;'");
		return;
	}
	doc->version_major = major;
	doc->version_minor = minor;
	if (major != 1) {
		Diag *d = diag_add(ps->diags, DIAG_E0208, it->version_loc,
				   "unsupported NNEF version %d.%d", major,
				   minor);
		diag_hint(ps->diags, d, "nnefkit reads NNEF 1.x documents");
	} else if (minor != 0) {
		diag_add(ps->diags, DIAG_W0305, it->version_loc,
			 "unknown NNEF version 1.%d; reading it as 1.0", minor);
	}
}

static void check_structure(ParseState *ps, AstDoc *doc)
{
	const AstItem *items = doc->items;
	size_t n = doc->nitems;
	const AstItem *first_version = NULL, *first_def = NULL;
	const AstDef *graph = NULL;
	AVec frags = { 0 };

	if (n == 0) {
		if (ps->syntax_errors)
			return;
		Diag *d = diag_add(ps->diags, DIAG_E0217,
				   loc_make(ps->file, 0, 0),
				   "empty document: expected a version statement and a graph definition");
		diag_hint(ps->diags, d,
			  "a minimal document is 'version 1.0; graph G( x ) -> ( x ) { x = external(shape = [1]); }'");
		return;
	}

	for (size_t i = 0; i < n; i++) {
		const AstItem *it = &items[i];
		switch (it->kind) {
		case AST_ITEM_VERSION:
			if (first_version) {
				Diag *d = diag_add(ps->diags, DIAG_E0210,
						   it->loc,
						   "more than one version statement");
				diag_note(ps->diags, d, first_version->loc,
					  true, "the first one is here");
				break;
			}
			first_version = it;
			if (i > 0) {
				Diag *d = diag_add(
					ps->diags, DIAG_E0209, it->loc,
					"the version statement must come first in the document");
				diag_hint(ps->diags, d,
					  "move it before every other statement");
			}
			check_version(ps, doc, it);
			break;
		case AST_ITEM_EXTENSION:
			if (first_def) {
				Diag *d = diag_add(
					ps->diags, DIAG_E0211, it->loc,
					"extension statement after a %s definition",
					first_def->def->is_graph ? "graph"
								 : "fragment");
				diag_note(ps->diags, d,
					  first_def->def->keyword_loc, false,
					  "the first definition is here");
				diag_hint(ps->diags, d,
					  "extensions are listed right after the version statement");
			}
			break;
		case AST_ITEM_DEF:
			if (!first_def)
				first_def = it;
			if (it->def->is_graph) {
				if (graph) {
					Diag *d = diag_add(
						ps->diags, DIAG_E0214,
						it->def->keyword_loc,
						"more than one graph definition");
					diag_note(ps->diags, d,
						  graph->keyword_loc, true,
						  "the graph '%s' is defined here",
						  graph->name);
					diag_hint(ps->diags, d,
						  "a document holds exactly one graph");
				} else {
					graph = it->def;
				}
			} else {
				if (graph) {
					Diag *d = diag_add(
						ps->diags, DIAG_E0212,
						it->def->keyword_loc,
						"fragment '%s' is defined after the graph",
						it->def->name);
					diag_hint(ps->diags, d,
						  "fragment definitions come before the graph definition");
				}
				AstDef *f = it->def;
				ast_vec_push(&frags, &f, sizeof(f));
			}
			break;
		case AST_ITEM_QUANT: /* only after TK_QUANT_FILE */
			break;
		}
	}
	if (!first_version && !ps->syntax_errors) {
		Diag *d = diag_add(ps->diags, DIAG_E0209,
				   loc_make(ps->file, items[0].loc.off, 0),
				   "the document does not start with a version statement");
		diag_hint(ps->diags, d, "add 'version 1.0;' as the first line");
	}
	if (!graph && !ps->syntax_errors) {
		Diag *d = diag_add(ps->diags, DIAG_E0213,
				   loc_end(items[n - 1].loc),
				   "the document has no graph definition");
		diag_hint(ps->diags, d,
			  "a document ends with 'graph name( inputs ) -> ( outputs ) { ... }'");
	}
	doc->graph = (AstDef *)graph;
	doc->nfragments = frags.len;
	doc->fragments = ast_vec_finish(ps->arena, &frags, sizeof(AstDef *));
}

static void fragments_only(ParseState *ps, AstDoc *doc)
{
	AVec frags = { 0 };
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind == AST_ITEM_DEF && !it->def->is_graph) {
			AstDef *f = it->def;
			ast_vec_push(&frags, &f, sizeof(f));
		} else {
			diag_add(ps->diags, DIAG_E0201, it->loc,
				 "only fragment definitions are allowed here");
		}
	}
	doc->nfragments = frags.len;
	doc->fragments = ast_vec_finish(ps->arena, &frags, sizeof(AstDef *));
}

/* ---- extensions (spec 3.2.2, 3.2.3) --------------------------------- */

/* One name of an extension line: the two KHR extensions enable
 * syntax; a vendor directive (vendor.c) or a registry it names is
 * recognized; any other name is unknown (W0303). */
static void extension_name(ParseState *ps, AstDoc *doc, const AstItem *it,
			   const VendorDirective *vd, const AstExtension *e,
			   ParseResult *res)
{
	if (strcmp(e->name, KHR_FRAGMENTS) == 0) {
		res->fragment_defs = true;
		return;
	}
	if (strcmp(e->name, KHR_OPERATORS) == 0) {
		res->operator_exprs = true;
		return;
	}
	if (doc->vendor.nextensions++ == 0)
		doc->vendor.first_line = loc_make(it->loc.file, it->loc.off, 9);
	if (vd)
		return;
	Diag *d = diag_add(ps->diags, DIAG_W0303, e->loc, "unknown extension '%s'; constructs it allows are not recognized", e->name);
	StrBuf known;
	sb_init(&known);
	parse_vendor_directive_list(&known);
	diag_hint(ps->diags, d, "nnefkit knows KHR_enable_fragment_definitions and KHR_enable_operator_expressions, and the vendor extensions %s", sb_str(&known));
	sb_free(&known);
}

/* An extension line whose names are followed by an expression: the
 * assertion of a vendor directive (counted, reported once by
 * vendor_report), or an error. */
static void extension_expression(ParseState *ps, AstDoc *doc,
				 const AstItem *it, const VendorDirective *vd)
{
	if (vd && vd->args == VENDOR_ARGS_EXPRESSION && ps->dialect == DIALECT_TRACT) {
		size_t bad;
		const char *text = it->expr.file->text + it->expr.off;
		if (!parse_vendor_assertion(text, it->expr.len, &bad)) {
			Diag *d = diag_add(ps->diags, DIAG_E0313, loc_make(it->expr.file, it->expr.off + bad, bad < it->expr.len ? 1 : 0), "the assertion '%.*s' is not one tract reads", (int)it->expr.len, text);
			diag_hint(ps->diags, d, "tract reads EXPR OP EXPR, OP one of == <= >= < >, each level of + - * / with one operator at most (a+(b+c)), / by an integer");
		}
	}
	if (vd && vd->args == VENDOR_ARGS_EXPRESSION) {
		AstVendorUse *u = &doc->vendor.use[VENDOR_ASSERT];
		if (u->count++ == 0) {
			u->first = it->expr;
			u->name = vd->name;
		}
		return;
	}
	const char *text = it->expr.file->text + it->expr.off;
	Diag *d = diag_add(ps->diags, DIAG_E0307, it->expr, "an extension line lists extension names, but '%.*s' is an expression", (int)it->expr.len, text);
	diag_hint(ps->diags, d, "write 'extension NAME NAME ...;'");
}

/* The comma deviation (E0215): reported once per line. */
static void extension_comma(ParseState *ps, const AstItem *it,
			    const AstExtension *e)
{
	Diag *d = diag_add_level(ps->diags,
				 ps->lenient ? DIAG_WARNING : DIAG_ERROR,
				 DIAG_E0215, e->comma_loc,
				 "extension names are separated by white space, not commas");
	if (ps->lenient)
		diag_hint(ps->diags, d,
			  "accepted because of --lenient; without it this is an error");
	else
		diag_hint(ps->diags, d, "write 'extension %s %s;'",
			  it->exts[0].name, e->name);
}

static void collect_extensions(ParseState *ps, AstDoc *doc, ParseResult *res)
{
	AVec all = { 0 }, symbols = { 0 }, registries = { 0 };
	PtrMap seen; /* name -> first AstExtension */
	pmap_init(&seen);
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_EXTENSION || !it->nexts)
			continue;
		const VendorDirective *vd = parse_vendor_directive(it->exts[0].name);
		if (it->expr.len)
			extension_expression(ps, doc, it, vd);
		bool comma_reported = false;
		for (size_t j = 0; j < it->nexts; j++) {
			AstExtension *e = &it->exts[j];
			if (e->after_comma && !comma_reported) {
				comma_reported = true;
				extension_comma(ps, it, e);
			}
			if (j > 0 && vd && vd->args == VENDOR_ARGS_SYMBOLS) {
				ast_vec_push(&symbols, &e, sizeof(e));
				continue;
			}
			if (j > 0 && vd && vd->args == VENDOR_ARGS_REGISTRIES)
				ast_vec_push(&registries, &e, sizeof(e));
			bool dup;
			const AstExtension *o = pmap_get(&seen, e->name, &dup);
			if (dup && j == 0 && vd)
				continue; /* a directive has a line for each use */
			if (dup) {
				Diag *d = diag_add(ps->diags, DIAG_W0304, e->loc,
						   "extension '%s' is listed more than once",
						   e->name);
				diag_note(ps->diags, d, o->loc, false,
					  "first listed here");
				continue;
			}
			pmap_put(&seen, e->name, e);
			ast_vec_push(&all, &e, sizeof(e));
			extension_name(ps, doc, it, vd, e, res);
		}
	}
	pmap_free(&seen);
	doc->nexts = all.len;
	doc->exts = ast_vec_finish(ps->arena, &all, sizeof(AstExtension *));
	doc->vendor.nsymbols = symbols.len;
	doc->vendor.symbols = ast_vec_finish(ps->arena, &symbols, sizeof(AstExtension *));
	doc->vendor.nregistries = registries.len;
	doc->vendor.registries = ast_vec_finish(ps->arena, &registries, sizeof(AstExtension *));
}

/* The first construct of e that the flat grammar (Appendix A.1) lacks, as
 * an argument value: identifiers, literals (with a sign directly before a
 * number), arrays and tuples of those. */
static const AstExpr *non_flat_arg(const AstExpr *e)
{
	if (e->parens && e->kind != AST_TUPLE)
		return e;
	switch (ast_kind(e)) {
	case AST_IDENT:
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
		return NULL;
	case AST_UNARY:
		return is_signed_number(e) ? NULL : e;
	case AST_ARRAY:
	case AST_TUPLE:
		return first_bad_item(e, non_flat_arg);
	case AST_BINARY:
	case AST_SUBSCRIPT:
	case AST_IFELSE:
	case AST_COMPREHENSION:
	case AST_BUILTIN:
	case AST_INVOKE:
		return e;
	}
	return e; /* not reached: every kind is a case */
}

static void describe_construct(StrBuf *b, const AstExpr *e, bool rhs)
{
	if (e->parens && e->kind != AST_TUPLE) {
		sb_puts(b, "a parenthesized expression");
		return;
	}
	switch (ast_kind(e)) {
	case AST_UNARY:
	case AST_BINARY:
		sb_printf(b, "the operator '%s'", ast_op_spelling((AstOp)e->op));
		return;
	case AST_SUBSCRIPT:
		sb_puts(b, "a subscript");
		return;
	case AST_IFELSE:
		sb_puts(b, "an if-else expression");
		return;
	case AST_COMPREHENSION:
		sb_puts(b, "an array comprehension");
		return;
	case AST_BUILTIN:
		sb_printf(b, "the built-in function '%s'",
			  ast_builtin_name((AstBuiltin)e->u.bi.which));
		return;
	case AST_INVOKE:
		sb_printf(b, "the invocation of '%s' inside an expression", e->u.inv.name);
		return;
	case AST_IDENT:
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
	case AST_ARRAY:
	case AST_TUPLE:
		if (rhs)
			sb_printf(b, "%s as the right-hand side of an assignment",
				  describe_expr(e));
		else
			sb_puts(b, describe_expr(e));
		return;
	}
}

/* The first non-flat construct in an assignment's right-hand side; *rhs
 * tells whether it is the right-hand side itself. */
static const AstExpr *non_flat_stmt(const AstAssign *s, bool *rhs)
{
	const AstExpr *r = s->rhs;
	*rhs = true;
	if (r->kind != AST_INVOKE || r->parens)
		return r;
	*rhs = false;
	for (size_t i = 0; i < r->u.inv.nargs; i++) {
		const AstExpr *bad = non_flat_arg(r->u.inv.args[i].value);
		if (bad)
			return bad;
	}
	return NULL;
}

bool parse_body_needs_operators(const AstBody *body)
{
	for (size_t j = 0; body && j < body->nstmts; j++) {
		bool rhs;
		if (non_flat_stmt(&body->stmts[j], &rhs))
			return true;
	}
	return false;
}

static void gate_operators(ParseState *ps, const AstDoc *doc)
{
	const AstExpr *first = NULL;
	const AstAssign *first_stmt = NULL;
	bool first_rhs = false;
	size_t more = 0;
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF || !it->def->body)
			continue;
		const AstBody *body = it->def->body;
		for (size_t j = 0; j < body->nstmts; j++) {
			bool rhs;
			const AstExpr *bad = non_flat_stmt(&body->stmts[j], &rhs);
			if (!bad)
				continue;
			if (first) {
				more++;
				continue;
			}
			first = bad;
			first_stmt = &body->stmts[j];
			first_rhs = rhs;
		}
	}
	if (!first)
		return;
	StrBuf what;
	sb_init(&what);
	describe_construct(&what, first, first_rhs);
	/* an array or tuple as the whole right-hand side: at the assignment,
	 * so that it comes before the type error that follows from it at the
	 * left-hand side (E0709, not a single tensor) */
	bool list = first_rhs && (first->kind == AST_ARRAY || first->kind == AST_TUPLE);
	Diag *d = diag_add(ps->diags, DIAG_E0302, list ? first_stmt->loc : first->loc,
			   "%s requires 'extension KHR_enable_operator_expressions;'",
			   sb_str(&what));
	diag_hint(ps->diags, d,
		  "add 'extension KHR_enable_operator_expressions;' after the version statement");
	if (more)
		diag_note(ps->diags, d, loc_make(NULL, 0, 0), false,
			  "%zu more assignment%s use%s operator expressions",
			  more, more == 1 ? "" : "s", more == 1 ? "s" : "");
	sb_free(&what);
}

static void gate_fragments(ParseState *ps, const AstDoc *doc)
{
	const AstDef *first = NULL;
	size_t more = 0;
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF || it->def->is_graph)
			continue;
		if (first)
			more++;
		else
			first = it->def;
	}
	if (!first)
		return;
	Diag *d = diag_add(ps->diags, DIAG_E0301, first->keyword_loc, "the definition of the fragment '%s' requires 'extension KHR_enable_fragment_definitions;'", first->name);
	diag_hint(ps->diags, d,
		  "add 'extension KHR_enable_fragment_definitions;' after the version statement");
	if (more)
		diag_note(ps->diags, d, loc_make(NULL, 0, 0), false, "%zu more fragment definition%s in this document", more, more == 1 ? "" : "s");
}

/* ---- entry point ---------------------------------------------------- */

/* After the rest of a diagnostic about the first of `count` vendor
 * constructs of a kind: how many more there are. */
static void vendor_more(ParseState *ps, Diag *d, size_t count)
{
	if (count > 1)
		diag_note(ps->diags, d, loc_make(NULL, 0, 0), false, "%zu more in this document, not reported one by one", count - 1);
}

/* The vendor constructs the parse sees, quoted identifiers and assertions
 * on extension lines: one diagnostic each kind whatever their number, an
 * error, or with --lenient a warning that they are accepted. */
static void vendor_constructs(ParseState *ps, AstDoc *doc)
{
	AstVendorUse *q = &doc->vendor.use[VENDOR_QUOTED];
	q->count = ps->lx ? lex_quoted(ps->lx, &q->first) : ps->nquoted;
	if (!ps->lx)
		q->first = ps->first_quoted;
	if (ps->dialect == DIALECT_TRACT)
		return; /* the dialect's own constructs */
	if (q->count) {
		int n = (int)q->first.len;
		const char *text = q->first.file->text + q->first.off;
		Diag *d = ps->lenient
			? diag_add(ps->diags, DIAG_W0309, q->first, "%.*s is a quoted identifier, a vendor extension: taken as the identifier it quotes", n, text)
			: diag_add(ps->diags, DIAG_E0308, q->first, "%.*s is a quoted identifier, a vendor extension: NNEF identifiers are letters, digits and '_'", n, text);
		vendor_more(ps, d, q->count);
		if (!ps->lenient)
			diag_hint(ps->diags, d, "--lenient takes quoted identifiers as identifiers and checks the rest");
	}
	AstVendorUse *a = &doc->vendor.use[VENDOR_ASSERT];
	if (a->count) {
		int n = (int)a->first.len;
		const char *text = a->first.file->text + a->first.off;
		Diag *d = ps->lenient
			? diag_add(ps->diags, DIAG_W0309, a->first, "the assertion '%.*s' of %s, a vendor extension, is noted, not checked", n, text, a->name)
			: diag_add(ps->diags, DIAG_E0307, a->first, "an extension line lists extension names, but '%.*s' is an expression: an assertion of %s, a vendor extension", n, text, a->name);
		vendor_more(ps, d, a->count);
		if (!ps->lenient)
			diag_hint(ps->diags, d, "--lenient notes assertions and checks the rest");
	}
}

/* tract's dialect: what tract does not evaluate (its resolver has no case
 * for it, and fails to load the document): unary operators (a minus
 * written against a number is part of the literal, -1 or -inf), the
 * logical operators and 'in', subscripts, if-else, comprehensions and
 * the built-in functions. Each is an error at its place. */
static void tract_construct(const AstExpr *e, void *ctx)
{
	ParseState *ps = ctx;
	const char *what = NULL;
	switch (ast_kind(e)) {
	case AST_UNARY:
		if (!is_signed_number(e) &&
		    !(e->op == AST_OP_MINUS && e->u.bin.a->kind == AST_IDENT &&
		      strcmp(e->u.bin.a->u.ident, "inf") == 0 &&
		      e->u.bin.a->loc.off == e->loc.off + 1))
			what = e->op == AST_OP_NOT ? "the operator '!'" : "a unary operator";
		break;
	case AST_BINARY:
		if (e->op == AST_OP_AND || e->op == AST_OP_OR || e->op == AST_OP_IN)
			what = e->op == AST_OP_IN ? "the operator 'in'" : "the logical operators '&&' and '||'";
		break;
	case AST_SUBSCRIPT:
		what = "a subscript";
		break;
	case AST_IFELSE:
		what = "an if-else expression";
		break;
	case AST_COMPREHENSION:
		what = "an array comprehension";
		break;
	case AST_BUILTIN:
		what = "a built-in function";
		break;
	case AST_IDENT:
	case AST_INT:
	case AST_REAL:
	case AST_STRING:
	case AST_BOOL:
	case AST_ARRAY:
	case AST_TUPLE:
	case AST_INVOKE:
		break;
	}
	if (what) {
		Diag *d = diag_add(ps->diags, DIAG_E0312, e->loc, "%s: tract's dialect does not evaluate it (tract fails to load such a document)", what);
		diag_hint(ps->diags, d, "tract evaluates identifiers, literals, arrays, tuples, invocations and the operators + - * / ^ < > <= >= == !=");
		return; /* one error for the outermost */
	}
	ast_visit_children(e, tract_construct, ctx);
}

static void tract_constructs(ParseState *ps, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF || !it->def->body)
			continue;
		for (size_t j = 0; j < it->def->body->nstmts; j++)
			tract_construct(it->def->body->stmts[j].rhs, ps);
	}
}

/* "fragment f() -> (...)": tract's dialect declares tract_core_properties
 * so; Khronos NNEF needs one parameter at least (spec 3.2.2
 * <parameter-list>), a syntax error. */
static void no_params(ParseState *ps, const AstDef *def)
{
	if (ps->dialect == DIALECT_TRACT)
		return;
	ps->syntax_errors = true;
	Diag *d = diag_add(ps->diags, DIAG_E0201, def->params_loc, "the fragment's parameter list is empty; it needs one parameter at least (spec 3.2.2)");
	if (strcmp(def->name, "tract_core_properties") == 0)
		diag_hint(ps->diags, d, "tract's dialect of NNEF declares '%s' so: check the document with --dialect=tract", def->name);
}

/* The entries of a quantization file (spec 5.3): "the quantization
 * algorithm string must not contain an argument for the tensor to be
 * quantized, but all other parameters must be provided as named
 * arguments with compile-time expressions (no tensor ids)". The
 * expressions are those of the document, operators included; sema
 * checks that they are compile-time ones. */
static void check_quant_entries(ParseState *ps, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstExpr *call = doc->items[i].call;
		if (doc->items[i].kind != AST_ITEM_QUANT)
			continue;
		if (ast_kind(call) != AST_INVOKE || call->parens) {
			diag_add(ps->diags, DIAG_E1201, call->loc, "expected the invocation of a quantization operation after ':' in graph.quant, not %s", describe_expr(call));
			continue;
		}
		for (size_t k = 0; k < call->u.inv.nargs; k++)
			if (!call->u.inv.args[k].name) {
				diag_add(ps->diags, DIAG_E1201, call->u.inv.args[k].value->loc, "a positional argument; arguments in graph.quant are given by name, and the tensor itself is not an argument (spec 5.3)");
				break;
			}
	}
}

/* The checks that follow parsing, on a whole document (or, for a
 * streamed parse, on the document up to the graph's declaration). */
static void check_document(ParseState *ps, AstDoc *doc, ParseMode mode,
			   ParseResult *res)
{
	if (ps->int_min_pending)
		check_int_min(ps, doc);
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF)
			continue;
		if (it->def->body)
			check_lvalues(ps, it->def->body);
		check_defaults(ps, it->def);
		if (it->def->no_params)
			no_params(ps, it->def);
	}
	if (mode == PARSE_QUANT) {
		check_quant_entries(ps, doc);
	} else if (mode == PARSE_FRAGMENTS) {
		fragments_only(ps, doc);
		res->fragment_defs = res->operator_exprs = true;
	} else {
		check_structure(ps, doc);
		collect_extensions(ps, doc, res);
		vendor_constructs(ps, doc);
		/* tract's dialect has both without the KHR lines */
		if (ps->dialect == DIALECT_TRACT) {
			res->fragment_defs = res->operator_exprs = true;
			tract_constructs(ps, doc);
		}
		if (!res->fragment_defs)
			gate_fragments(ps, doc);
		if (!res->operator_exprs)
			gate_operators(ps, doc);
	}
}

/* Whether a diagnostic was reported since the parse began. */
static bool reported(const ParseState *ps)
{
	return diag_count(ps->diags) != ps->diags_before;
}

/* The arena of the next statement of a stream: the scratch arena,
 * reset, or the stream's. False: the stream stops. */
static bool stmt_arena(ParseState *ps)
{
	if (!ps->stream->arena) {
		arena_reset(&ps->scratch);
		return true;
	}
	Arena *a = ps->stream->arena(ps->stream->ctx);
	ps->arena = a ? a : &ps->scratch;
	return a != NULL;
}

bool parse_graph_begin(ParseState *ps, AstDef *graph)
{
	if (!ps->stream)
		return true;
	if (ps->syntax_errors || ps->too_deep || reported(ps))
		return false;
	AstDoc *doc = ARENA_NEW(ps->arena, AstDoc);
	doc->file = ps->file;
	doc->dialect = ps->dialect;
	doc->nitems = ps->items.len + 1;
	doc->items = ARENA_ARRAY(ps->arena, AstItem, doc->nitems);
	if (ps->items.len)
		memcpy(doc->items, ps->items.data, ps->items.len * sizeof(AstItem));
	doc->items[ps->items.len] = (AstItem){ .kind = AST_ITEM_DEF, .loc = graph->loc, .def = graph };
	doc->version_major = doc->version_minor = -1;
	ParseResult res;
	memset(&res, 0, sizeof(res));
	res.doc = doc;
	check_document(ps, doc, PARSE_DOCUMENT, &res);
	res.syntax_ok = !ps->syntax_errors;
	/* a document that declares vendor extensions is checked whole */
	if (reported(ps) || !res.syntax_ok || doc->vendor.nextensions ||
	    !ps->stream->begin(ps->stream->ctx, &res))
		return false;
	ps->operators = res.operator_exprs;
	ps->streaming = true;
	ps->main_arena = ps->arena;
	ps->arena = &ps->scratch;
	return stmt_arena(ps);
}

bool parse_stmt(ParseState *ps, AVec *stmts, AstAssign *s)
{
	if (!ps->streaming) {
		ast_vec_push(stmts, s, sizeof(*s));
		return true;
	}
	/* the checks of a whole document, on this statement; any
	 * diagnostic ends the stream */
	Loc quoted;
	if (ps->syntax_errors || ps->too_deep || ps->int_min_pending ||
	    lex_quoted(ps->lx, &quoted))
		return false;
	AstBody one = { s, 1, s->loc };
	bool rhs;
	check_lvalues(ps, &one);
	if (ps->dialect == DIALECT_TRACT)
		tract_construct(s->rhs, ps);
	if (reported(ps) || (!ps->operators && non_flat_stmt(s, &rhs)))
		return false;
	bool go = ps->stream->stmt(ps->stream->ctx, s, ps->arena);
	if (!go || reported(ps)) {
		ps->arena = &ps->scratch;
		return false;
	}
	return stmt_arena(ps);
}

/* NNEF_REFERENCE_PARSER=1 in the environment (parse.h), read once. */
static bool reference_only;

static void read_reference_only(void)
{
	const char *v = getenv("NNEF_REFERENCE_PARSER");
	reference_only = v && strcmp(v, "1") == 0;
}

static ParseResult parse(const SourceFile *file, ParseMode mode,
			 const ParseOptions *opt, Arena *arena,
			 Interner *interner, DiagList *diags,
			 const ParseStream *stream)
{
	ParseState ps;
	memset(&ps, 0, sizeof(ps));
	ps.file = file;
	ps.arena = arena;
	ps.interner = interner;
	ps.diags = diags;
	ps.lenient = opt && opt->lenient;
	ps.dialect = opt ? opt->dialect : DIALECT_KHRONOS;
	static pthread_once_t reference_once = PTHREAD_ONCE_INIT;
	pthread_once(&reference_once, read_reference_only);
	ps.tables_only = (opt && opt->tables_only) || reference_only;
	ps.max_nesting = opt && opt->max_nesting ? opt->max_nesting : PARSE_DEFAULT_NESTING;
	if (ps.max_nesting > PARSE_MAX_NESTING)
		ps.max_nesting = PARSE_MAX_NESTING;
	ps.stream = stream;
	ps.diags_before = diag_count(diags);
	arena_init(&ps.scratch);
	ps.lx = lex_new(file, arena, interner, diags);
	if (reference_only)
		lex_set_quick(ps.lx, false); /* every token by the flex rules */
	ps.toplevel = TK_EOF;
	ps.pending_toplevel = TK_EOF;
	ps.quant_start = mode == PARSE_QUANT;

	int rc = parse_yyparse(&ps);
	if (rc != 0)
		ps.syntax_errors = true;
	ps.nquoted = lex_quoted(ps.lx, &ps.first_quoted);
	lex_free(ps.lx);
	ps.lx = NULL;
	util_free(ps.brackets);
	util_free(ps.ahead);
	ps.arena = arena;
	arena_free(&ps.scratch);

	ParseResult res;
	memset(&res, 0, sizeof(res));
	AstDoc *doc = ARENA_NEW(arena, AstDoc);
	doc->file = file;
	doc->dialect = ps.dialect;
	doc->nitems = ps.items.len;
	doc->items = ast_vec_finish(arena, &ps.items, sizeof(AstItem));
	doc->version_major = doc->version_minor = -1;
	res.doc = doc;
	res.streamed = stream && ps.streamed && rc == 0;
	res.fast_stmts = ps.fast_stmts;

	if (ps.too_deep) {
		/* Later checks recurse on expressions: stop here. */
		doc->nitems = 0;
		return res;
	}
	check_document(&ps, doc, mode, &res);
	res.syntax_ok = !ps.syntax_errors;
	return res;
}

ParseResult parse_document(const SourceFile *file, ParseMode mode,
			   const ParseOptions *opt, Arena *arena,
			   Interner *interner, DiagList *diags)
{
	return parse(file, mode, opt, arena, interner, diags, NULL);
}

ParseResult parse_document_streamed(const SourceFile *file,
				    const ParseOptions *opt, Arena *arena,
				    Interner *interner, DiagList *diags,
				    const ParseStream *stream)
{
	return parse(file, PARSE_DOCUMENT, opt, arena, interner, diags,
		     stream);
}
