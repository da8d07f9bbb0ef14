/*
 * token_feed.c - the parser's side of the bison grammar (grammar.y): the lists
 * and nodes its actions build, the token feed with its bracket stack (for
 * "expected ')' to close '(' at 3:14") and its recovery from a missing
 * ';', and the wording of syntax errors (spec Appendix A). Reads tokens
 * from the lexer; writes AST nodes to the arena and diagnostics to the
 * DiagList. The checks that follow parsing are in parse.c.
 */
#include "grammar/parse_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- lists under construction --------------------------------------- */

void ast_vec_grow(AVec *v, size_t size)
{
	if (v->borrowed && v->len == v->cap) {
		void *heap = util_malloc(2 * v->cap * size); /* a few items */
		memcpy(heap, v->data, v->len * size);
		v->data = heap;
		v->cap *= 2;
		v->borrowed = false;
	}
	v->data = util_grow_array(v->data, &v->cap, v->len, size, 4);
}

void *ast_vec_finish(Arena *a, AVec *v, size_t size)
{
	void *out = NULL;
	if (v->len) {
		out = arena_array(a, v->len, size);
		memcpy(out, v->data, v->len * size);
	}
	ast_vec_drop(v);
	return out;
}

void ast_vec_drop(AVec *v)
{
	if (!v->borrowed)
		util_free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
	v->borrowed = false;
}

/* ---- node helpers for the grammar ----------------------------------- */

AstExpr *parse_expr(ParseState *ps, AstExprKind kind, Loc loc)
{
	AstExpr *e = ast_expr(ps->arena, kind, loc);
	return e;
}

void parse_too_deep(ParseState *ps, Loc loc)
{
	ps->syntax_errors = true;
	if (ps->too_deep)
		return;
	ps->too_deep = true;
	Diag *d = diag_add(ps->diags, DIAG_E0216, loc, "nested too deeply (the limit is %u levels; raise it with --max-nesting)", ps->max_nesting);
	diag_hint(ps->diags, d,
		  "split the expression into several assignments");
}

/* The depth of a node at loc (*depth) that holds a child of depth
 * child_depth; false past the limit, after reporting it. */
static bool add_depth(ParseState *ps, uint32_t *depth, uint32_t child_depth,
		      Loc loc)
{
	if (child_depth + 1 > *depth)
		*depth = child_depth + 1;
	if (*depth > ps->max_nesting) {
		parse_too_deep(ps, loc);
		return false;
	}
	return true;
}

bool parse_depth(ParseState *ps, AstExpr *parent, const AstExpr *child)
{
	if (!child)
		return true;
	return add_depth(ps, &parent->depth, child->depth, parent->loc);
}

bool parse_type_depth(ParseState *ps, AstType *parent, const AstType *child)
{
	return add_depth(ps, &parent->depth, child->depth, parent->loc);
}

AstExpr *parse_unary(ParseState *ps, AstOp op, AstExpr *a, Loc loc)
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
	AstExpr *e = parse_expr(ps, AST_UNARY, loc);
	e->op = (uint8_t)op;
	e->u.bin.a = a;
	return parse_depth(ps, e, a) ? e : NULL;
}

AstExpr *parse_binary(ParseState *ps, AstOp op, AstExpr *a, AstExpr *b, Loc loc)
{
	AstExpr *e = parse_expr(ps, AST_BINARY, loc);
	e->op = (uint8_t)op;
	e->u.bin.a = a;
	e->u.bin.b = b;
	return parse_depth(ps, e, a) && parse_depth(ps, e, b) ? e : NULL;
}

AstExpr *parse_list(ParseState *ps, AstExprKind kind, AVec *items, Loc loc)
{
	AstExpr *e = parse_expr(ps, kind, loc);
	e->u.list.n = items->len;
	e->u.list.items = ast_vec_finish(ps->arena, items, sizeof(AstExpr *));
	for (size_t i = 0; i < e->u.list.n; i++)
		if (!parse_depth(ps, e, e->u.list.items[i]))
			return NULL;
	return e;
}

AstExpr *parse_invoke(ParseState *ps, Loc loc, const char *name, AVec *args)
{
	AstExpr *e = parse_expr(ps, AST_INVOKE, loc);
	e->u.inv.name = name;
	e->u.inv.nargs = (uint32_t)args->len;
	e->u.inv.args = ast_vec_finish(ps->arena, args, sizeof(AstArg));
	for (size_t i = 0; i < e->u.inv.nargs; i++)
		if (!parse_depth(ps, e, e->u.inv.args[i].value))
			return NULL;
	return e;
}

AstExpr *parse_comprehension(ParseState *ps, Loc loc, AVec *iters,
			     AstExpr *cond, AstExpr *value)
{
	AstExpr *e = parse_expr(ps, AST_COMPREHENSION, loc);
	e->u.comp.niters = (uint32_t)iters->len;
	e->u.comp.iters = ast_vec_finish(ps->arena, iters, sizeof(AstIter));
	e->u.comp.cond = cond;
	e->u.comp.value = value;
	for (size_t i = 0; i < e->u.comp.niters; i++)
		if (!parse_depth(ps, e, e->u.comp.iters[i].iterable))
			return NULL;
	return parse_depth(ps, e, cond) && parse_depth(ps, e, value) ? e : NULL;
}

AstBody *parse_body(ParseState *ps, Loc loc, AVec *stmts)
{
	if (ps->streaming) { /* the end of the graph's body */
		ps->streaming = false;
		ps->streamed = true;
		ps->arena = ps->main_arena;
	}
	AstBody *b = ARENA_NEW(ps->arena, AstBody);
	b->loc = loc;
	b->nstmts = stmts->len;
	b->stmts = ast_vec_finish(ps->arena, stmts, sizeof(AstAssign));
	return b;
}

static void push_item(ParseState *ps, const AstItem *it)
{
	ast_vec_push(&ps->items, it, sizeof(*it));
}

void parse_version(ParseState *ps, Loc loc, Loc number, bool is_int)
{
	AstItem it = { .kind = AST_ITEM_VERSION, .loc = loc,
		       .version_loc = number, .version_is_int = is_int };
	push_item(ps, &it);
}

void parse_extension(ParseState *ps, Loc loc, AVec *names)
{
	AstItem it = { .kind = AST_ITEM_EXTENSION, .loc = loc,
		       .expr = ps->ext_expr };
	ps->ext_expr = (Loc){ 0 };
	it.nexts = names->len;
	it.exts = ast_vec_finish(ps->arena, names, sizeof(AstExtension));
	push_item(ps, &it);
}

void parse_def(ParseState *ps, Loc loc, AstDef *def)
{
	AstItem it = { .kind = AST_ITEM_DEF, .loc = loc, .def = def };
	push_item(ps, &it);
}

void parse_quant_entry(ParseState *ps, Loc loc, const Token *tensor,
		       AstExpr *call)
{
	AstItem it = { .kind = AST_ITEM_QUANT, .loc = loc,
		       .tensor = intern_bytes(ps->interner, tensor->v.str.s, tensor->v.str.len),
		       .tensor_loc = tensor->loc, .call = call };
	push_item(ps, &it);
}

/* ---- token feed ----------------------------------------------------- */

/* Brackets open at once count toward the nesting limit: parentheses make
 * no node of their own, so the depth of the tree alone would let the
 * parser's stack overflow first. */
static void bracket_push(ParseState *ps, const Token *t)
{
	uint32_t depth = (ps->nbrackets ? ps->brackets[ps->nbrackets - 1].depth : 0) + (t->kind != TK_LBRACE);
	if (depth > ps->max_nesting)
		parse_too_deep(ps, t->loc);
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

/* Tokens that end the search for the ';' of an extension line. */
static bool ends_line(TokKind k)
{
	return k == TK_EOF || k == TK_KW_VERSION || k == TK_KW_EXTENSION ||
	       k == TK_KW_FRAGMENT || k == TK_KW_GRAPH || k == TK_LBRACE ||
	       k == TK_RBRACE;
}

/* An extension line holds names, but vendors write arguments there that
 * are not names (tract_assert T >= 0;). After its 'extension', reads the
 * line ahead to its ';': when something other than names follows them,
 * the parser gets the names and the ';' only, and the rest is kept as
 * the line's expression (parse_extension) for the checks to judge. A line
 * without its ';' goes to the parser as it is. */
static void read_extension_line(ParseState *ps)
{
	ps->ext_expr = (Loc){ 0 };
	if (ps->ahead_pos < ps->nahead)
		return;
	ps->nahead = ps->ahead_pos = 0;
	size_t n = 0;
	do {
		ARRAY_RESERVE(ps->ahead, ps->nahead, ps->capahead, 16);
		lex_next(ps->lx, &ps->ahead[ps->nahead++]);
		n = ps->nahead - 1;
	} while (ps->ahead[n].kind != TK_SEMI && !ends_line(ps->ahead[n].kind) &&
		 n < 4096);
	const Token *tk = ps->ahead;
	size_t k = 0;
	while (k < n && (tk[k].kind == TK_IDENT || tk[k].kind == TK_COMMA))
		k++;
	if (tk[n].kind != TK_SEMI || k == n)
		return;
	const VendorDirective *d = tk[0].kind == TK_IDENT ? parse_vendor_directive(tk[0].v.ident) : NULL;
	bool assertion = d && d->args == VENDOR_ARGS_EXPRESSION;
	size_t start = assertion ? 1 : k;
	if (!assertion && k > 0 && tk[k - 1].kind == TK_IDENT)
		start = k - 1; /* "N + 1": the name before the operator */
	size_t cut = start; /* the names end before a trailing comma */
	while (cut > 0 && tk[cut - 1].kind == TK_COMMA)
		cut--;
	if (cut == 0)
		return; /* no name: the parser says what it expected */
	ps->ext_expr = loc_join(tk[start].loc, tk[n - 1].loc);
	ps->ahead[cut] = ps->ahead[n];
	ps->nahead = cut + 1;
}

/* Whether the next token starts an assignment of a streamed body: the
 * last one opened the body or ended an assignment, and the body's '{' is
 * the one bracket open. */
static bool at_statement(const ParseState *ps)
{
	TokKind k = ps->cur.kind;
	return ps->streaming && ps->nbrackets == 1 &&
	       ps->brackets[0].kind == TK_LBRACE &&
	       (k == TK_LBRACE || k == TK_SEMI || k == TK_STMT);
}

void parse_next_token(ParseState *ps, Token *out)
{
	apply_pending(ps);
	Token t;
	ps->redelivered = false;
	if (ps->quant_start) {
		/* a quantization file: its grammar, from the first token */
		ps->quant_start = false;
		ps->toplevel = TK_QUANT_FILE;
		memset(&t, 0, sizeof(t));
		t.kind = TK_QUANT_FILE;
		t.loc = loc_make(ps->file, 0, 0);
	} else if (ps->inject_semi) {
		/* The parser discarded the token after a missing ';' (see
		 * parse_syntax_error): hand it a ';' where one belongs, then
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
	} else if (ps->ahead_pos < ps->nahead) {
		t = ps->ahead[ps->ahead_pos++];
	} else if (!at_statement(ps) || !parse_plain_stmt(ps, &t)) {
		if (ps->ahead_pos < ps->nahead)
			t = ps->ahead[ps->ahead_pos++];
		else
			lex_next(ps->lx, &t);
	}
	if (t.kind == TK_ERROR)
		ps->syntax_errors = true;
	/* the name of the fragment being declared, for a declaration
	 * broken past it */
	if (t.kind == TK_KW_FRAGMENT)
		ps->frag_name = NULL;
	else if (t.kind == TK_IDENT && ps->cur.kind == TK_KW_FRAGMENT && !ps->redelivered)
		ps->frag_name = t.v.ident;
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
	case TK_KW_EXTENSION:
		if (!ps->redelivered)
			read_extension_line(ps);
		ps->pending_toplevel = t.kind;
		ps->pending = BR_CLEAR;
		break;
	case TK_KW_VERSION:
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
	case TK_QUANT_FILE:
		return "the entry";
	default:
		return "the fragment declaration";
	}
}

/* What a syntax error's message is made of. */
typedef struct SyntaxError {
	const Token *la;          /* the token the parser cannot take */
	const OpenBracket *top;   /* the innermost open bracket, or NULL */
	const TokKind *expected;  /* the tokens it would take there */
	size_t n;
	bool has[TK_COUNT];       /* has[k]: k is among them */
	bool at_eof;              /* la is the end of input */
	Loc after_prev;           /* right after the token before la */
	bool expr_start;          /* an expression may start at la */
	bool type_start;          /* a type may start at la */
} SyntaxError;

/* A missing ';' at the end of a statement (E0202): points where it
 * belongs, and lets the parser go on as if it were there. Returns false
 * when this is not the error. */
static bool missing_semi(ParseState *ps, const SyntaxError *se)
{
	const Token *la = se->la;
	const OpenBracket *top = se->top;
	bool at_stmt_level = !top || top->kind == TK_LBRACE;
	if (!se->has[TK_SEMI] || !at_stmt_level || la->kind == TK_SEMI ||
	    (ps->toplevel == TK_KW_FRAGMENT && se->has[TK_LBRACE] && !top))
		return false;
	StrBuf msg;
	sb_init(&msg);
	sb_printf(&msg, "expected ';' after %s", semi_context(ps));
	if (se->at_eof)
		sb_puts(&msg, " at end of input");
	Diag *d = diag_add(ps->diags, DIAG_E0202, se->after_prev, "%s",
			   sb_str(&msg));
	sb_free(&msg);
	if (la->kind == TK_COMMA && top)
		diag_hint(ps->diags, d,
			  "a tuple on the right-hand side must be parenthesized, as in 'x = (a, b);'");
	else if (la->kind == TK_ASSIGN && se->has[TK_EQ])
		diag_hint(ps->diags, d, "to compare, use '=='");
	/* In a body, the parser recovers at the next ';' and would drop la;
	 * unless la ends the body (or the input) it is handed back after a
	 * ';'. (At the top level, the version and extension statements
	 * recover without dropping it.) */
	if (top && la->kind != TK_RBRACE && !se->at_eof)
		ps->inject_semi = true;
	return true;
}

/* A keyword where a name belongs (E0204). Returns false when this is not
 * the error. */
static bool keyword_as_name(ParseState *ps, const SyntaxError *se)
{
	const Token *la = se->la;
	const Token *kw = NULL;
	if (lex_is_keyword(la->kind) && se->has[TK_IDENT])
		kw = la;
	else if (lex_is_keyword(ps->prev.kind) && se->has[TK_LPAREN] &&
		 (la->kind == TK_ASSIGN || la->kind == TK_COMMA ||
		  la->kind == TK_RPAREN || la->kind == TK_COLON))
		/* a built-in name ('string', 'integer'...) used as a name:
		 * the parser wanted '(' for the built-in call */
		kw = &ps->prev;
	if (!kw)
		return false;
	Diag *d = diag_add(ps->diags, DIAG_E0204, kw->loc,
			   "'%s' is a keyword and cannot be used as an identifier",
			   lex_token_spelling(kw->kind));
	diag_hint(ps->diags, d, "choose another name, e.g. '%s_'",
		  lex_token_spelling(kw->kind));
	return true;
}

/* Whether the expected token k is summed up by "an expression" or "a
 * type" in the message. */
static bool summed_up(const SyntaxError *se, TokKind k)
{
	return (se->expr_start && is_expr_start(k)) ||
	       (se->type_start && is_type_start(k));
}

/* The items of "expected a, b or c" into items: "an expression" or "an
 * assignment", "a type", then the tokens not summed up by them. Tokens
 * that would continue what came before are listed only when nothing
 * else is expected; closing brackets come last, the end of input after
 * them. *mentions_closer: the closer of the innermost bracket is listed. */
static size_t expected_items(const ParseState *ps, const SyntaxError *se,
			     const char **items, bool *mentions_closer)
{
	const OpenBracket *top = se->top;
	bool stmt_start = se->expr_start && top && top->kind == TK_LBRACE &&
			  (ps->prev.kind == TK_LBRACE || ps->prev.kind == TK_SEMI);
	TokKind closer = top ? closer_of(top->kind) : TK_COUNT;
	size_t nitems = 0;
	if (se->expr_start)
		items[nitems++] = stmt_start ? "an assignment" : "an expression";
	if (se->type_start)
		items[nitems++] = "a type";
	bool significant = false;
	for (size_t i = 0; i < se->n; i++)
		if (!summed_up(se, se->expected[i]) &&
		    !is_continuation(se->expected[i]))
			significant = true;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < se->n; i++) {
			TokKind k = se->expected[i];
			if (summed_up(se, k))
				continue;
			if (significant && is_continuation(k))
				continue;
			/* '=' after a name in an argument list starts a named
			 * argument; it only clutters "expected ',' or ')'". */
			if (k == TK_ASSIGN && se->has[TK_RPAREN])
				continue;
			int k_pass = k == TK_EOF ? 2 : is_closer(k) ? 1 : 0;
			if (k_pass != pass)
				continue;
			items[nitems++] = lex_token_desc(k);
			if (k == closer)
				*mentions_closer = true;
		}
	}
	return nitems;
}

/* "unexpected 'x'", or "expected a or b [to close '(' at 3:14] near 'x'",
 * "... at end of input". */
static void put_message(StrBuf *msg, const SyntaxError *se,
			const char **items, size_t nitems, bool mentions_closer)
{
	if (nitems == 0) {
		sb_puts(msg, "unexpected ");
		if (se->at_eof)
			sb_puts(msg, "end of input");
		else {
			sb_putc(msg, '\'');
			put_token_text(msg, se->la);
			sb_putc(msg, '\'');
		}
		return;
	}
	sb_puts(msg, "expected ");
	put_alternatives(msg, items, nitems);
	if (mentions_closer) {
		sb_printf(msg, " to close '%s' at ",
			  lex_token_spelling(se->top->kind));
		put_linecol(msg, se->top->loc);
	}
	if (se->at_eof) {
		sb_puts(msg, " at end of input");
	} else {
		sb_puts(msg, " near '");
		put_token_text(msg, se->la);
		sb_putc(msg, '\'');
	}
}

/* The hint for the usual mistakes behind a syntax error. */
static void syntax_hint(ParseState *ps, const SyntaxError *se, Diag *d)
{
	const Token *la = se->la;
	if (la->kind == TK_ASSIGN && se->has[TK_EQ])
		diag_hint(ps->diags, d, "to compare, use '=='");
	else if (la->kind == TK_RPAREN && ps->prev.kind == TK_LPAREN &&
		 se->expr_start)
		diag_hint(ps->diags, d,
			  "an invocation takes at least one argument, and '()' is not an expression");
	else if (la->kind == TK_RBRACE && ps->prev.kind == TK_LBRACE)
		diag_hint(ps->diags, d, "a body holds at least one assignment");
	else if (ps->toplevel == TK_QUANT_FILE && !se->top)
		diag_hint(ps->diags, d, "each entry of graph.quant is '\"tensor\": operation(name = value, ...);' (spec 5.3)");
}

/* A syntax error at ps->cur: a missing ';' or a keyword used as a name,
 * else "expected ..." (E0201), or E0203 when it names an unclosed
 * bracket. */
/* "graph G() -> ()": an empty list where the grammar wants one
 * identifier at least (spec 3.2.1: <identifier-list> ::= <identifier>
 * ("," <identifier>)*; a fragment's <parameter-list> likewise). */
static bool empty_list(ParseState *ps, const SyntaxError *se)
{
	const OpenBracket *top = se->top;
	if (se->la->kind != TK_RPAREN || ps->prev.kind != TK_LPAREN || !top ||
	    top->kind != TK_LPAREN || ps->nbrackets != 1 ||
	    (ps->toplevel != TK_KW_GRAPH && ps->toplevel != TK_KW_FRAGMENT))
		return false;
	/* after "->": the results */
	const char *text = ps->file->text;
	size_t at = top->loc.off;
	while (at > 0 && strchr(" \t\r\n", text[at - 1]))
		at--;
	bool results = at >= 2 && text[at - 2] == '-' && text[at - 1] == '>';
	const char *what = ps->toplevel == TK_KW_GRAPH ? "graph" : "fragment";
	const char *list = results ? "result" : "parameter";
	diag_add(ps->diags, DIAG_E0201, loc_join(ps->prev.loc, se->la->loc), "the %s's %s list is empty; it needs one %s at least (spec %s)", what, list, list, ps->toplevel == TK_KW_GRAPH ? "3.2.1" : "3.2.2");
	return true;
}

void parse_syntax_error(ParseState *ps, const TokKind *expected, size_t n)
{
	ps->syntax_errors = true;
	if (ps->redelivered)
		return;
	SyntaxError se = { .la = &ps->cur, .top = bracket_top(ps),
			   .expected = expected, .n = n };
	for (size_t i = 0; i < n; i++)
		se.has[expected[i]] = true;
	se.at_eof = se.la->kind == TK_EOF;
	se.after_prev = ps->prev.loc.file ? loc_end(ps->prev.loc)
					  : loc_make(ps->file, 0, 0);
	if (missing_semi(ps, &se) || keyword_as_name(ps, &se) ||
	    empty_list(ps, &se))
		return;
	se.expr_start = se.has[TK_IDENT] && se.has[TK_INT] && se.has[TK_LPAREN];
	se.type_start = se.has[TK_KW_TENSOR] && se.has[TK_QUESTION];

	const char *items[TK_COUNT + 2];
	bool mentions_closer = false;
	size_t nitems = expected_items(ps, &se, items, &mentions_closer);
	StrBuf msg;
	sb_init(&msg);
	put_message(&msg, &se, items, nitems, mentions_closer);
	Diag *d = diag_add(ps->diags, mentions_closer ? DIAG_E0203 : DIAG_E0201,
			   se.at_eof ? se.after_prev : se.la->loc, "%s",
			   sb_str(&msg));
	sb_free(&msg);
	syntax_hint(ps, &se, d);
}
