/*
 * parse.c - the parser driver: token feed with a bracket stack, syntax
 * error messages, and the syntax-level checks that follow parsing (spec
 * 3.2 and Appendix A): left-hand sides, default values, document
 * structure (3.2.4) and extension gating (3.2.2, 3.2.3).
 */
#include "grammar/parse.h"

#include "grammar/parse_internal.h"

#include <stdlib.h>
#include <string.h>

#define KHR_FRAGMENTS "KHR_enable_fragment_definitions"
#define KHR_OPERATORS "KHR_enable_operator_expressions"

void avec_push(AVec *v, const void *elem, size_t size)
{
	v->data = util_grow_array(v->data, &v->cap, v->len, size, 4);
	memcpy((char *)v->data + v->len * size, elem, size);
	v->len++;
}

void *avec_finish(Arena *a, AVec *v, size_t size)
{
	void *out = NULL;
	if (v->len) {
		out = arena_array(a, v->len, size);
		memcpy(out, v->data, v->len * size);
	}
	avec_drop(v);
	return out;
}

void avec_drop(AVec *v)
{
	free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

/* ---- node helpers for the grammar ----------------------------------- */

AstExpr *ps_expr(ParseState *ps, AstExprKind kind, Loc loc)
{
	AstExpr *e = ast_expr(ps->arena, kind, loc);
	return e;
}

void ps_too_deep(ParseState *ps, Loc loc)
{
	ps->syntax_errors = true;
	if (ps->too_deep)
		return;
	ps->too_deep = true;
	Diag *d = diag_add(ps->diags, DIAG_E0216, loc,
			   "nested too deeply (the limit is %d levels)",
			   PARSE_MAX_DEPTH);
	diag_hint(ps->diags, d,
		  "split the expression into several assignments");
}

bool ps_depth(ParseState *ps, AstExpr *parent, const AstExpr *child)
{
	if (!child)
		return true;
	if (child->depth + 1 > parent->depth)
		parent->depth = child->depth + 1;
	if (parent->depth > PARSE_MAX_DEPTH) {
		ps_too_deep(ps, parent->loc);
		return false;
	}
	return true;
}

bool ps_type_depth(ParseState *ps, AstType *parent, const AstType *child)
{
	if (child->depth + 1 > parent->depth)
		parent->depth = child->depth + 1;
	if (parent->depth > PARSE_MAX_DEPTH) {
		ps_too_deep(ps, parent->loc);
		return false;
	}
	return true;
}

AstExpr *ps_unary(ParseState *ps, AstOp op, AstExpr *a, Loc loc)
{
	/* -9223372036854775808: the one integer whose magnitude is not an
	 * integer literal on its own (spec 3.1: in flat syntax the minus
	 * sign is part of the literal) */
	if (op == AST_OP_MINUS && a->kind == AST_INT && a->op == 1 &&
	    !a->parens && a->loc.off == loc.off + 1) {
		a->op = 0;
		a->loc = loc;
		ps->int_min_pending--;
		return a;
	}
	AstExpr *e = ps_expr(ps, AST_UNARY, loc);
	e->op = (uint8_t)op;
	e->u.bin.a = a;
	return ps_depth(ps, e, a) ? e : NULL;
}

AstExpr *ps_binary(ParseState *ps, AstOp op, AstExpr *a, AstExpr *b, Loc loc)
{
	AstExpr *e = ps_expr(ps, AST_BINARY, loc);
	e->op = (uint8_t)op;
	e->u.bin.a = a;
	e->u.bin.b = b;
	return ps_depth(ps, e, a) && ps_depth(ps, e, b) ? e : NULL;
}

AstExpr *ps_list(ParseState *ps, AstExprKind kind, AVec *items, Loc loc)
{
	AstExpr *e = ps_expr(ps, kind, loc);
	e->u.list.n = items->len;
	e->u.list.items = avec_finish(ps->arena, items, sizeof(AstExpr *));
	for (size_t i = 0; i < e->u.list.n; i++)
		if (!ps_depth(ps, e, e->u.list.items[i]))
			return NULL;
	return e;
}

AstExpr *ps_invoke(ParseState *ps, Loc loc, const char *name, AVec *args)
{
	AstExpr *e = ps_expr(ps, AST_INVOKE, loc);
	e->u.inv.name = name;
	e->u.inv.nargs = (uint32_t)args->len;
	e->u.inv.args = avec_finish(ps->arena, args, sizeof(AstArg));
	for (size_t i = 0; i < e->u.inv.nargs; i++)
		if (!ps_depth(ps, e, e->u.inv.args[i].value))
			return NULL;
	return e;
}

AstExpr *ps_comprehension(ParseState *ps, Loc loc, AVec *iters,
			  AstExpr *cond, AstExpr *value)
{
	AstExpr *e = ps_expr(ps, AST_COMPREHENSION, loc);
	e->u.comp.niters = (uint32_t)iters->len;
	e->u.comp.iters = avec_finish(ps->arena, iters, sizeof(AstIter));
	e->u.comp.cond = cond;
	e->u.comp.value = value;
	for (size_t i = 0; i < e->u.comp.niters; i++)
		if (!ps_depth(ps, e, e->u.comp.iters[i].iterable))
			return NULL;
	return ps_depth(ps, e, cond) && ps_depth(ps, e, value) ? e : NULL;
}

AstBody *ps_body(ParseState *ps, Loc loc, AVec *stmts)
{
	AstBody *b = ARENA_NEW(ps->arena, AstBody);
	b->loc = loc;
	b->nstmts = stmts->len;
	b->stmts = avec_finish(ps->arena, stmts, sizeof(AstAssign));
	return b;
}

static void push_item(ParseState *ps, const AstItem *it)
{
	avec_push(&ps->items, it, sizeof(*it));
}

void ps_version(ParseState *ps, Loc loc, Loc number, bool is_int)
{
	AstItem it = { .kind = AST_ITEM_VERSION, .loc = loc,
		       .version_loc = number, .version_is_int = is_int };
	push_item(ps, &it);
}

void ps_extension(ParseState *ps, Loc loc, AVec *names)
{
	AstItem it = { .kind = AST_ITEM_EXTENSION, .loc = loc };
	it.nexts = names->len;
	it.exts = avec_finish(ps->arena, names, sizeof(AstExtension));
	push_item(ps, &it);
}

void ps_def(ParseState *ps, Loc loc, AstDef *def)
{
	AstItem it = { .kind = AST_ITEM_DEF, .loc = loc, .def = def };
	push_item(ps, &it);
}

/* ---- token feed ----------------------------------------------------- */

/* Brackets open at once count toward the nesting limit: parentheses make
 * no node of their own, so the depth of the tree alone would let the
 * parser's stack overflow first. */
static void bracket_push(ParseState *ps, const Token *t)
{
	uint32_t depth = (ps->nbrackets ? ps->brackets[ps->nbrackets - 1].depth : 0) + (t->kind != TK_LBRACE);
	if (depth > PARSE_MAX_DEPTH)
		ps_too_deep(ps, t->loc);
	ARRAY_RESERVE(ps->brackets, ps->nbrackets, ps->capbrackets, 16);
	ps->brackets[ps->nbrackets].kind = t->kind;
	ps->brackets[ps->nbrackets].loc = t->loc;
	ps->brackets[ps->nbrackets].depth = depth;
	ps->nbrackets++;
}

static TokKind closer_of(TokKind open)
{
	return open == TK_LPAREN     ? TK_RPAREN
	       : open == TK_LBRACKET ? TK_RBRACKET
				     : TK_RBRACE;
}

/* Applies the bracket-stack effect of the token handed out last. It is
 * deferred to the next read so that an error reported at a token still
 * sees the brackets that were open before it. */
static void apply_pending(ParseState *ps)
{
	const Token *t = &ps->cur;
	switch (ps->pending) {
	case BR_NONE:
		break;
	case BR_PUSH:
		bracket_push(ps, t);
		break;
	case BR_POP:
		if (ps->nbrackets)
			ps->nbrackets--;
		break;
	case BR_TO_BRACE:
		while (ps->nbrackets &&
		       ps->brackets[ps->nbrackets - 1].kind != TK_LBRACE)
			ps->nbrackets--;
		break;
	case BR_THROUGH_BRACE:
		while (ps->nbrackets &&
		       ps->brackets[ps->nbrackets - 1].kind != TK_LBRACE)
			ps->nbrackets--;
		if (ps->nbrackets)
			ps->nbrackets--;
		break;
	case BR_CLEAR:
		ps->nbrackets = 0;
		break;
	}
	ps->pending = BR_NONE;
	if (ps->pending_toplevel != TK_EOF) {
		ps->toplevel = ps->pending_toplevel;
		ps->pending_toplevel = TK_EOF;
	}
}

static const OpenBracket *bracket_top(const ParseState *ps)
{
	return ps->nbrackets ? &ps->brackets[ps->nbrackets - 1] : NULL;
}

void ps_next_token(ParseState *ps, Token *out)
{
	apply_pending(ps);
	Token t;
	ps->redelivered = false;
	if (ps->inject_semi) {
		/* The parser discarded the token after a missing ';' (see
		 * ps_syntax_error): hand it a ';' where one belongs, then
		 * that token again, so the next statement is parsed. */
		ps->inject_semi = false;
		ps->redeliver = true;
		ps->held = ps->cur;
		memset(&t, 0, sizeof(t));
		t.kind = TK_SEMI;
		t.loc = loc_end(ps->prev.loc);
	} else if (ps->redeliver) {
		ps->redeliver = false;
		ps->redelivered = true;
		t = ps->held;
	} else if (diag_limit_reached(ps->diags) || ps->too_deep) {
		/* Enough errors, or nested too deeply: end the parse here. */
		memset(&t, 0, sizeof(t));
		t.kind = TK_EOF;
		t.loc = loc_make(ps->file, ps->file->len, 0);
	} else {
		lex_next(ps->lx, &t);
	}
	if (t.kind == TK_ERROR)
		ps->syntax_errors = true;
	ps->prev = ps->cur;
	ps->cur = t;

	const OpenBracket *top = bracket_top(ps);
	switch (t.kind) {
	case TK_LPAREN:
	case TK_LBRACKET:
	case TK_LBRACE:
		ps->pending = BR_PUSH;
		break;
	case TK_RPAREN:
	case TK_RBRACKET:
		if (top && closer_of(top->kind) == t.kind)
			ps->pending = BR_POP;
		break;
	case TK_RBRACE:
		ps->pending = BR_THROUGH_BRACE;
		break;
	case TK_SEMI:
		ps->pending = BR_TO_BRACE;
		break;
	case TK_KW_VERSION:
	case TK_KW_EXTENSION:
	case TK_KW_FRAGMENT:
	case TK_KW_GRAPH:
		ps->pending_toplevel = t.kind;
		ps->pending = BR_CLEAR;
		break;
	default:
		break;
	}
	*out = t;
}

/* ---- syntax error messages ------------------------------------------ */

static bool is_expr_start(TokKind k)
{
	switch (k) {
	case TK_IDENT:
	case TK_INT:
	case TK_REAL:
	case TK_STRING:
	case TK_TRUE:
	case TK_FALSE:
	case TK_LPAREN:
	case TK_LBRACKET:
	case TK_PLUS:
	case TK_MINUS:
	case TK_NOT:
	case TK_KW_SHAPE_OF:
	case TK_KW_LENGTH_OF:
	case TK_KW_RANGE_OF:
	case TK_KW_INTEGER:
	case TK_KW_SCALAR:
	case TK_KW_LOGICAL:
	case TK_KW_STRING:
		return true;
	default:
		return false;
	}
}

static bool is_type_start(TokKind k)
{
	switch (k) {
	case TK_KW_INTEGER:
	case TK_KW_SCALAR:
	case TK_KW_LOGICAL:
	case TK_KW_STRING:
	case TK_QUESTION:
	case TK_KW_TENSOR:
	case TK_LPAREN:
		return true;
	default:
		return false;
	}
}

/* Tokens that would continue what came before (binary operators,
 * subscripts, invocation brackets, if-else): left out of "expected"
 * lists unless nothing else is expected. */
static bool is_continuation(TokKind k)
{
	switch (k) {
	case TK_PLUS:
	case TK_MINUS:
	case TK_STAR:
	case TK_SLASH:
	case TK_CARET:
	case TK_LT:
	case TK_LE:
	case TK_GT:
	case TK_GE:
	case TK_EQ:
	case TK_NE:
	case TK_AND:
	case TK_OR:
	case TK_KW_IN:
	case TK_KW_IF:
	case TK_LBRACKET:
	case TK_LPAREN:
	case TK_GENERIC_LT:
		return true;
	default:
		return false;
	}
}

static bool is_closer(TokKind k)
{
	return k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE;
}

/* The source text of a token for "near '...'", shortened. */
static void put_token_text(StrBuf *b, const Token *t)
{
	size_t n = t->loc.len;
	const char *s = t->loc.file->text + t->loc.off;
	if (n > 32) {
		sb_put_escaped(b, s, 29);
		sb_puts(b, "...");
	} else {
		sb_put_escaped(b, s, n);
	}
}

static void put_linecol(StrBuf *b, Loc loc)
{
	unsigned line, col;
	source_linecol(loc.file, loc.off, &line, &col);
	sb_printf(b, "%u:%u", line, col);
}

/* "a, b or c" */
static void put_alternatives(StrBuf *b, const char **items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			sb_puts(b, i + 1 == n ? " or " : ", ");
		sb_puts(b, items[i]);
	}
}

static const char *semi_context(const ParseState *ps)
{
	const OpenBracket *top = bracket_top(ps);
	if (top)
		return "assignment";
	switch (ps->toplevel) {
	case TK_KW_VERSION:
		return "the version statement";
	case TK_KW_EXTENSION:
		return "the extension names";
	default:
		return "the fragment declaration";
	}
}

void ps_syntax_error(ParseState *ps, const TokKind *expected, size_t n)
{
	ps->syntax_errors = true;
	const Token *la = &ps->cur;
	if (ps->redelivered)
		return;
	bool has[TK_COUNT] = { false };
	for (size_t i = 0; i < n; i++)
		has[expected[i]] = true;

	const OpenBracket *top = bracket_top(ps);
	bool at_stmt_level = !top || top->kind == TK_LBRACE;
	bool at_eof = la->kind == TK_EOF;
	Loc after_prev = ps->prev.loc.file ? loc_end(ps->prev.loc)
					   : loc_make(ps->file, 0, 0);
	Loc where = at_eof ? after_prev : la->loc;
	StrBuf msg;
	sb_init(&msg);
	Diag *d;

	/* A missing ';' at the end of a statement: point where it belongs,
	 * and let the parser go on as if it were there. */
	if (has[TK_SEMI] && at_stmt_level && la->kind != TK_SEMI &&
	    !(ps->toplevel == TK_KW_FRAGMENT && has[TK_LBRACE] && !top)) {
		sb_printf(&msg, "expected ';' after %s", semi_context(ps));
		if (at_eof)
			sb_puts(&msg, " at end of input");
		d = diag_add(ps->diags, DIAG_E0202, after_prev, "%s",
			     sb_str(&msg));
		if (la->kind == TK_COMMA && top)
			diag_hint(ps->diags, d,
				  "a tuple on the right-hand side must be "
				  "parenthesized, as in 'x = (a, b);'");
		else if (la->kind == TK_ASSIGN && has[TK_EQ])
			diag_hint(ps->diags, d, "to compare, use '=='");
		/* In a body, the parser recovers at the next ';' and would
		 * drop la; unless la ends the body (or the input) it is
		 * handed back after a ';'. (At the top level, the version
		 * and extension statements recover without dropping it.) */
		if (top && la->kind != TK_RBRACE && !at_eof)
			ps->inject_semi = true;
		sb_free(&msg);
		return;
	}

	/* A keyword where a name belongs. */
	const Token *kw = NULL;
	if (lex_is_keyword(la->kind) && has[TK_IDENT])
		kw = la;
	else if (lex_is_keyword(ps->prev.kind) && has[TK_LPAREN] &&
		 (la->kind == TK_ASSIGN || la->kind == TK_COMMA ||
		  la->kind == TK_RPAREN || la->kind == TK_COLON))
		/* a built-in name ('string', 'integer'...) used as a name:
		 * the parser wanted '(' for the built-in call */
		kw = &ps->prev;
	if (kw) {
		d = diag_add(ps->diags, DIAG_E0204, kw->loc,
			     "'%s' is a keyword and cannot be used as an "
			     "identifier",
			     lex_token_spelling(kw->kind));
		diag_hint(ps->diags, d, "choose another name, e.g. '%s_'",
			  lex_token_spelling(kw->kind));
		sb_free(&msg);
		return;
	}

	bool expr_start = has[TK_IDENT] && has[TK_INT] && has[TK_LPAREN];
	bool type_start = has[TK_KW_TENSOR] && has[TK_QUESTION];
	bool stmt_start = expr_start && top && top->kind == TK_LBRACE &&
			  (ps->prev.kind == TK_LBRACE || ps->prev.kind == TK_SEMI);
	const char *items[TK_COUNT + 2];
	size_t nitems = 0;
	TokKind closer = top ? closer_of(top->kind) : TK_COUNT;
	bool mentions_closer = false;

	if (expr_start)
		items[nitems++] = stmt_start ? "an assignment" : "an expression";
	if (type_start)
		items[nitems++] = "a type";

	/* Tokens that would continue what came before are listed only when
	 * nothing else is expected; closing brackets come last, the end of
	 * input after them. */
	bool significant = false;
	for (size_t i = 0; i < n; i++) {
		TokKind k = expected[i];
		if ((expr_start && is_expr_start(k)) ||
		    (type_start && is_type_start(k)))
			continue;
		if (!is_continuation(k))
			significant = true;
	}
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			TokKind k = expected[i];
			if ((expr_start && is_expr_start(k)) ||
			    (type_start && is_type_start(k)))
				continue;
			if (significant && is_continuation(k))
				continue;
			/* '=' after a name in an argument list starts a named
			 * argument; it only clutters "expected ',' or ')'". */
			if (k == TK_ASSIGN && has[TK_RPAREN])
				continue;
			int k_pass = k == TK_EOF ? 2 : is_closer(k) ? 1 : 0;
			if (k_pass != pass)
				continue;
			items[nitems++] = lex_token_desc(k);
			if (k == closer)
				mentions_closer = true;
		}
	}

	if (nitems == 0) {
		sb_puts(&msg, "unexpected ");
		if (at_eof)
			sb_puts(&msg, "end of input");
		else {
			sb_putc(&msg, '\'');
			put_token_text(&msg, la);
			sb_putc(&msg, '\'');
		}
	} else {
		sb_puts(&msg, "expected ");
		put_alternatives(&msg, items, nitems);
		if (mentions_closer) {
			sb_printf(&msg, " to close '%s' at ",
				  lex_token_spelling(top->kind));
			put_linecol(&msg, top->loc);
		}
		if (at_eof) {
			sb_puts(&msg, " at end of input");
		} else {
			sb_puts(&msg, " near '");
			put_token_text(&msg, la);
			sb_putc(&msg, '\'');
		}
	}
	d = diag_add(ps->diags, mentions_closer ? DIAG_E0203 : DIAG_E0201,
		     where, "%s", sb_str(&msg));
	if (la->kind == TK_ASSIGN && has[TK_EQ])
		diag_hint(ps->diags, d, "to compare, use '=='");
	else if (la->kind == TK_RPAREN && ps->prev.kind == TK_LPAREN &&
		 expr_start)
		diag_hint(ps->diags, d,
			  "an invocation takes at least one argument, and '()' "
			  "is not an expression");
	else if (la->kind == TK_RBRACE && ps->prev.kind == TK_LBRACE)
		diag_hint(ps->diags, d,
			  "a body holds at least one assignment");
	sb_free(&msg);
}

/* ---- 2^63 without its minus sign ------------------------------------- */

static void find_int_min(const AstExpr *e, void *ctx)
{
	ParseState *ps = ctx;
	if (e->kind == AST_INT && e->op == 1) {
		ps->syntax_errors = true;
		diag_add(ps->diags, DIAG_E0108, e->loc,
			 "integer literal '9223372036854775808' is out of range "
			 "(the largest integer is %lld)",
			 (long long)INT64_MAX);
	}
	ast_visit_children(e, find_int_min, ps);
}

static void check_int_min(ParseState *ps, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstDef *d = doc->items[i].def;
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
	default:
		return e;
	}
}

static void check_lvalues(ParseState *ps, const AstBody *body)
{
	for (size_t i = 0; i < body->nstmts; i++) {
		const AstExpr *bad = bad_lvalue(body->stmts[i].lhs);
		if (!bad)
			continue;
		ps->syntax_errors = true; /* the grammar's <lvalue-expr> */
		Diag *d = diag_add(ps->diags, DIAG_E0205, bad->loc,
				   "invalid left-hand side: %s cannot be "
				   "assigned to",
				   describe_expr(bad));
		diag_hint(ps->diags, d,
			  "the left-hand side is an identifier, or an array "
			  "or tuple of identifiers");
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
	default:
		return e;
	}
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
				   "default value of '%s' must be a literal "
				   "expression, not %s",
				   def->params[i].name, describe_expr(bad));
		diag_hint(ps->diags, d,
			  "defaults are built from literals, arrays and "
			  "tuples only");
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
				   "malformed version number '%.*s': expected "
				   "major.minor",
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
				   "empty document: expected a version "
				   "statement and a graph definition");
		diag_hint(ps->diags, d,
			  "a minimal document is 'version 1.0; graph G( x ) "
			  "-> ( x ) { x = external(shape = [1]); }'");
		return;
	}

	for (size_t i = 0; i < n; i++) {
		const AstItem *it = &items[i];
		switch (it->kind) {
		case AST_ITEM_VERSION:
			if (first_version) {
				Diag *d = diag_add(ps->diags, DIAG_E0210,
						   it->loc,
						   "more than one version "
						   "statement");
				diag_note(ps->diags, d, first_version->loc,
					  true, "the first one is here");
				break;
			}
			first_version = it;
			if (i > 0) {
				Diag *d = diag_add(
					ps->diags, DIAG_E0209, it->loc,
					"the version statement must come "
					"first in the document");
				diag_hint(ps->diags, d,
					  "move it before every other "
					  "statement");
			}
			check_version(ps, doc, it);
			break;
		case AST_ITEM_EXTENSION:
			if (first_def) {
				Diag *d = diag_add(
					ps->diags, DIAG_E0211, it->loc,
					"extension statement after a %s "
					"definition",
					first_def->def->is_graph ? "graph"
								 : "fragment");
				diag_note(ps->diags, d,
					  first_def->def->keyword_loc, false,
					  "the first definition is here");
				diag_hint(ps->diags, d,
					  "extensions are listed right after "
					  "the version statement");
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
						"more than one graph "
						"definition");
					diag_note(ps->diags, d,
						  graph->keyword_loc, true,
						  "the graph '%s' is defined "
						  "here",
						  graph->name);
					diag_hint(ps->diags, d,
						  "a document holds exactly "
						  "one graph");
				} else {
					graph = it->def;
				}
			} else {
				if (graph) {
					Diag *d = diag_add(
						ps->diags, DIAG_E0212,
						it->def->keyword_loc,
						"fragment '%s' is defined "
						"after the graph",
						it->def->name);
					diag_hint(ps->diags, d,
						  "fragment definitions come "
						  "before the graph "
						  "definition");
				}
				AstDef *f = it->def;
				avec_push(&frags, &f, sizeof(f));
			}
			break;
		}
	}
	if (!first_version && !ps->syntax_errors) {
		Diag *d = diag_add(ps->diags, DIAG_E0209,
				   loc_make(ps->file, items[0].loc.off, 0),
				   "the document does not start with a "
				   "version statement");
		diag_hint(ps->diags, d, "add 'version 1.0;' as the first line");
	}
	if (!graph && !ps->syntax_errors) {
		Diag *d = diag_add(ps->diags, DIAG_E0213,
				   loc_end(items[n - 1].loc),
				   "the document has no graph definition");
		diag_hint(ps->diags, d,
			  "a document ends with 'graph name( inputs ) -> ( "
			  "outputs ) { ... }'");
	}
	doc->graph = (AstDef *)graph;
	doc->nfragments = frags.len;
	doc->fragments = avec_finish(ps->arena, &frags, sizeof(AstDef *));
}

static void fragments_only(ParseState *ps, AstDoc *doc)
{
	AVec frags = { 0 };
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind == AST_ITEM_DEF && !it->def->is_graph) {
			AstDef *f = it->def;
			avec_push(&frags, &f, sizeof(f));
		} else {
			diag_add(ps->diags, DIAG_E0201, it->loc,
				 "only fragment definitions are allowed "
				 "here");
		}
	}
	doc->nfragments = frags.len;
	doc->fragments = avec_finish(ps->arena, &frags, sizeof(AstDef *));
}

/* ---- extensions (spec 3.2.2, 3.2.3) --------------------------------- */

static void collect_extensions(ParseState *ps, AstDoc *doc, ParseResult *res)
{
	AVec all = { 0 };
	PtrMap seen; /* name -> first AstExtension */
	pmap_init(&seen);
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_EXTENSION)
			continue;
		bool comma_reported = false;
		for (size_t j = 0; j < it->nexts; j++) {
			AstExtension *e = &it->exts[j];
			if (e->after_comma && !comma_reported) {
				comma_reported = true;
				Diag *d = diag_add_level(
					ps->diags,
					ps->lenient ? DIAG_WARNING : DIAG_ERROR,
					DIAG_E0215, e->comma_loc,
					"extension names are separated by "
					"white space, not commas");
				if (ps->lenient)
					diag_hint(ps->diags, d,
						  "accepted because of "
						  "--lenient; without it this "
						  "is an error");
				else
					diag_hint(ps->diags, d,
						  "write 'extension %s %s;'",
						  it->exts[0].name, e->name);
			}
			bool dup;
			const AstExtension *o = pmap_get(&seen, e->name, &dup);
			if (dup) {
				Diag *d = diag_add(ps->diags, DIAG_W0304, e->loc,
						   "extension '%s' is listed "
						   "more than once",
						   e->name);
				diag_note(ps->diags, d, o->loc, false,
					  "first listed here");
				continue;
			}
			pmap_put(&seen, e->name, e);
			avec_push(&all, &e, sizeof(e));
			if (strcmp(e->name, KHR_FRAGMENTS) == 0) {
				res->fragment_defs = true;
			} else if (strcmp(e->name, KHR_OPERATORS) == 0) {
				res->operator_exprs = true;
			} else {
				Diag *d = diag_add(
					ps->diags, DIAG_W0303, e->loc,
					"unknown extension '%s'; constructs it "
					"allows are not recognized",
					e->name);
				diag_hint(ps->diags, d,
					  "nnefkit knows " KHR_FRAGMENTS
					  " and " KHR_OPERATORS);
			}
		}
	}
	pmap_free(&seen);
	doc->nexts = all.len;
	doc->exts = avec_finish(ps->arena, &all, sizeof(AstExtension *));
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
	default:
		return e;
	}
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
		sb_puts(b, "an invocation inside an expression");
		return;
	default:
		if (rhs)
			sb_printf(b, "%s as the right-hand side of an "
				     "assignment",
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
			first_rhs = rhs;
		}
	}
	if (!first)
		return;
	StrBuf what;
	sb_init(&what);
	describe_construct(&what, first, first_rhs);
	Diag *d = diag_add(ps->diags, DIAG_E0302, first->loc,
			   "%s requires 'extension " KHR_OPERATORS ";'",
			   sb_str(&what));
	diag_hint(ps->diags, d,
		  "add 'extension " KHR_OPERATORS
		  ";' after the version statement");
	if (more)
		diag_note(ps->diags, d, loc_make(NULL, 0, 0), false,
			  "%zu more assignment%s use%s operator expressions",
			  more, more == 1 ? "" : "s", more == 1 ? "s" : "");
	sb_free(&what);
}

static void gate_fragments(ParseState *ps, const AstDoc *doc)
{
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF || it->def->is_graph)
			continue;
		Diag *d = diag_add(ps->diags, DIAG_E0301, it->def->keyword_loc,
				   "fragment definitions require 'extension "
				   KHR_FRAGMENTS ";'");
		diag_hint(ps->diags, d,
			  "add 'extension " KHR_FRAGMENTS
			  ";' after the version statement");
		return;
	}
}

/* ---- entry point ---------------------------------------------------- */

ParseResult parse_document(const SourceFile *file, ParseMode mode,
			   bool lenient, Arena *arena, Interner *interner,
			   DiagList *diags)
{
	ParseState ps;
	memset(&ps, 0, sizeof(ps));
	ps.file = file;
	ps.arena = arena;
	ps.interner = interner;
	ps.diags = diags;
	ps.lenient = lenient;
	ps.lx = lex_new(file, arena, interner, diags);
	ps.toplevel = TK_EOF;
	ps.pending_toplevel = TK_EOF;

	int rc = nnef_yyparse(&ps);
	if (rc != 0)
		ps.syntax_errors = true;
	lex_free(ps.lx);
	free(ps.brackets);

	ParseResult res;
	memset(&res, 0, sizeof(res));
	AstDoc *doc = ARENA_NEW(arena, AstDoc);
	doc->file = file;
	doc->nitems = ps.items.len;
	doc->items = avec_finish(arena, &ps.items, sizeof(AstItem));
	doc->version_major = doc->version_minor = -1;
	res.doc = doc;

	if (ps.too_deep) {
		/* Later checks recurse on expressions: stop here. */
		doc->nitems = 0;
		return res;
	}

	if (ps.int_min_pending)
		check_int_min(&ps, doc);
	for (size_t i = 0; i < doc->nitems; i++) {
		const AstItem *it = &doc->items[i];
		if (it->kind != AST_ITEM_DEF)
			continue;
		if (it->def->body)
			check_lvalues(&ps, it->def->body);
		check_defaults(&ps, it->def);
	}
	if (mode == PARSE_FRAGMENTS) {
		fragments_only(&ps, doc);
		res.fragment_defs = res.operator_exprs = true;
	} else {
		check_structure(&ps, doc);
		collect_extensions(&ps, doc, &res);
		if (!res.fragment_defs)
			gate_fragments(&ps, doc);
		if (!res.operator_exprs)
			gate_operators(&ps, doc);
	}
	res.syntax_ok = !ps.syntax_errors;
	return res;
}
