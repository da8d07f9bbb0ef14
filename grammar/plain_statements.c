/*
 * plain_statements.c - reading the plain assignments of a streamed graph
 * body without the parser tables.
 *
 * Most of a large document is assignments in flat syntax (spec 3.2,
 * "flat" graph definition): an identifier, '=', one invocation whose
 * arguments are identifiers, literals and arrays or tuples of them, ';'.
 * While a body is streamed (parse_document_streamed), the token feed
 * reads each such assignment here by recursive descent, builds the very
 * nodes the grammar's actions would build (with the same helpers of
 * token_feed.c, the same locations and depths), hands the assignment over
 * like parse_stmt, and gives the parser one TK_STMT token in its place.
 *
 * Anything else declines, and the tokens read so far go to the parser,
 * which reads the statement as it always does. What this reader knows is
 * fenced by the token table: every token of a statement is matched here
 * against a kind named with KNOWN(), and KNOWN() of a kind that
 * lexer/tokens.def does not mark PLAIN does not compile; so a statement
 * holding any other token (an operator, a keyword, a token the lexer
 * reported, one added to the language since) matches no rule and
 * declines. So do the variants of a plain token that are not plain (an
 * identifier written i"...", a vendor construct; the integer 2^63, which
 * only a '-' before it makes valid), and every statement in tract's
 * dialect: this reader knows Khronos NNEF only. Nested brackets beyond
 * the limit decline too. Declining is always safe, and a streamed pass
 * ends at the first diagnostic of any kind (the model is then checked
 * whole, without this reader), so this file never reports anything
 * itself. NNEF_REFERENCE_PARSER=1 turns this reader off (parse.c).
 */
#include "grammar/parse_internal.h"

#include <string.h>

/* Deeper brackets decline, so that the recursion here stays shallow. */
enum { FAST_MAX_BRACKETS = 64 };
/* The text behind the parse is given back in steps of this many bytes. */
enum { FAST_FORGET_BYTES = 128 << 10 };

/* READER_TK_...: the reader tokens.def gives each kind. */
enum {
	TABLES = 0,
	PLAIN = 1,
#define TOKEN(kind, spelling, desc, reader) READER_##kind = reader,
#include "lexer/tokens.def"
#undef TOKEN
};

/* The token kind k, which this reader may name only if tokens.def marks
 * it PLAIN: for any other the array's size is -1, and the file does not
 * compile. A constant expression, for case labels. */
#define KNOWN(k) ((TokKind)((k) + 0 * sizeof(char[READER_##k == PLAIN ? 1 : -1])))

typedef struct Reader {
	ParseState *ps;
	size_t pos;      /* the next token, an index into ps->ahead */
	uint32_t depth;  /* '(' and '[' open */
} Reader;

/* Room read ahead at once: more than the tokens of most statements. */
enum { FAST_RUN = 32 };

/* peek_at for a token not read yet: the statement's tokens up to its ';'
 * at once, where the lexer can. */
static const Token *read_ahead(Reader *r, size_t k)
{
	ParseState *ps = r->ps;
	while (ps->nahead <= r->pos + k) {
		if (ps->capahead - ps->nahead < FAST_RUN)
			ARRAY_RESERVE(ps->ahead, ps->nahead + FAST_RUN - 1,
				      ps->capahead, 32);
		size_t got = lex_run(ps->lx, &ps->ahead[ps->nahead], FAST_RUN);
		if (!got)
			lex_next(ps->lx, &ps->ahead[ps->nahead]);
		ps->nahead += got ? got : 1;
	}
	return &ps->ahead[r->pos + k];
}

/* The token k places ahead, read from the lexer when not read yet. */
static inline const Token *peek_at(Reader *r, size_t k)
{
	ParseState *ps = r->ps;
	if (r->pos + k < ps->nahead)
		return &ps->ahead[r->pos + k];
	return read_ahead(r, k);
}

static TokKind peek(Reader *r)
{
	return peek_at(r, 0)->kind;
}

/* The next token (a copy: reading more may move the buffer). */
static inline Token take(Reader *r)
{
	Token t = *peek_at(r, 0);
	r->pos++;
	return t;
}

static bool open_bracket(Reader *r)
{
	r->depth++;
	return r->depth <= r->ps->max_nesting && r->depth <= FAST_MAX_BRACKETS;
}

static AstExpr *operand(Reader *r);

/* The items of a list up to its closer (which is taken, its location in
 * *end): operand (',' operand)*. False (v dropped) on anything else. */
static bool items(Reader *r, AVec *v, TokKind closer, Loc *end)
{
	for (;;) {
		AstExpr *e = operand(r);
		if (!e)
			break;
		ast_vec_push(v, &e, sizeof(e));
		Token t = take(r);
		if (t.kind == closer) {
			*end = t.loc;
			r->depth--;
			return true;
		}
		if (t.kind != KNOWN(TK_COMMA))
			break;
	}
	ast_vec_drop(v);
	return false;
}

/* '[' already taken: "[]" or "[a, b, ...]". */
static AstExpr *array(Reader *r, Loc open)
{
	ParseState *ps = r->ps;
	if (!open_bracket(r))
		return NULL;
	if (peek(r) == KNOWN(TK_RBRACKET)) {
		Token close = take(r);
		r->depth--;
		return parse_expr(ps, AST_ARRAY, loc_join(open, close.loc));
	}
	AstExpr *buf[8];
	AVec v = AVEC_IN(buf);
	Loc end;
	if (!items(r, &v, KNOWN(TK_RBRACKET), &end))
		return NULL;
	return parse_list(ps, AST_ARRAY, &v, loc_join(open, end));
}

/* '(' already taken: "(a)" or "(a, b, ...)". */
static AstExpr *paren(Reader *r, Loc open)
{
	if (!open_bracket(r))
		return NULL;
	AstExpr *first = operand(r);
	if (!first)
		return NULL;
	Token t = take(r);
	if (t.kind == KNOWN(TK_RPAREN)) {
		r->depth--;
		first->loc = loc_join(open, t.loc);
		first->parens = true;
		return first;
	}
	if (t.kind != KNOWN(TK_COMMA))
		return NULL;
	AstExpr *buf[8];
	AVec v = AVEC_IN(buf);
	ast_vec_push(&v, &first, sizeof(first));
	Loc end;
	if (!items(r, &v, KNOWN(TK_RPAREN), &end))
		return NULL;
	return parse_list(r->ps, AST_TUPLE, &v, loc_join(open, end));
}

/* The type argument of "name<T>(": '<' already taken. */
static bool type_arg(Reader *r, uint8_t *name)
{
	switch (take(r).kind) {
	case KNOWN(TK_KW_INTEGER): *name = AST_TN_INTEGER; break;
	case KNOWN(TK_KW_SCALAR): *name = AST_TN_SCALAR; break;
	case KNOWN(TK_KW_LOGICAL): *name = AST_TN_LOGICAL; break;
	case KNOWN(TK_KW_STRING): *name = AST_TN_STRING; break;
	case KNOWN(TK_QUESTION): *name = AST_TN_GENERIC; break;
	default: return false; /* any other token, TABLES ones too */
	}
	return take(r).kind == KNOWN(TK_GT);
}

/* One argument: "name = operand" or "operand". */
static bool argument(Reader *r, AVec *args)
{
	AstArg a = { 0 };
	if (peek(r) == KNOWN(TK_IDENT) &&
	    peek_at(r, 1)->kind == KNOWN(TK_ASSIGN)) {
		Token name = take(r);
		take(r);
		a.name = name.v.ident;
		a.name_loc = name.loc;
	}
	a.value = operand(r);
	if (!a.value)
		return false;
	ast_vec_push(args, &a, sizeof(a));
	return true;
}

/* An invocation of the identifier `name`, at its optional type argument
 * or its '('. */
static AstExpr *invocation(Reader *r, const Token *name)
{
	uint8_t generic = 0;
	bool has_generic = false;
	if (peek(r) == KNOWN(TK_GENERIC_LT)) {
		take(r);
		if (!type_arg(r, &generic))
			return NULL;
		has_generic = true;
	}
	if (take(r).kind != KNOWN(TK_LPAREN) || !open_bracket(r))
		return NULL;
	AstArg buf[8];
	AVec args = AVEC_IN(buf);
	for (;;) {
		if (!argument(r, &args))
			break;
		Token t = take(r);
		if (t.kind == KNOWN(TK_RPAREN)) {
			r->depth--;
			AstExpr *e = parse_invoke(r->ps, loc_join(name->loc, t.loc),
						  name->v.ident, &args);
			if (e && has_generic) {
				e->u.inv.has_generic = true;
				e->u.inv.generic = generic;
			}
			return e;
		}
		if (t.kind != KNOWN(TK_COMMA))
			break;
	}
	ast_vec_drop(&args);
	return NULL;
}

/* An identifier, a literal, an array, a parenthesized expression or a
 * tuple, an invocation, or '-' before one of them; what follows is for
 * the caller to take. NULL: decline. */
static AstExpr *operand(Reader *r)
{
	ParseState *ps = r->ps;
	Token t = take(r);
	AstExpr *e;
	switch (t.kind) {
	case KNOWN(TK_IDENT):
		if (t.quoted)
			return NULL; /* i"...": a vendor construct */
		if (peek(r) == KNOWN(TK_LPAREN) ||
		    peek(r) == KNOWN(TK_GENERIC_LT))
			return invocation(r, &t);
		e = parse_expr(ps, AST_IDENT, t.loc);
		e->u.ident = t.v.ident;
		return e;
	case KNOWN(TK_INT):
		if (t.int_min)
			return NULL; /* the parser folds it with its '-' */
		e = parse_expr(ps, AST_INT, t.loc);
		e->u.ival = t.v.i;
		return e;
	case KNOWN(TK_REAL):
		e = parse_expr(ps, AST_REAL, t.loc);
		e->u.rval = t.v.r;
		return e;
	case KNOWN(TK_STRING):
		e = parse_expr(ps, AST_STRING, t.loc);
		e->u.str.s = t.v.str.s;
		e->u.str.len = t.v.str.len;
		return e;
	case KNOWN(TK_TRUE):
	case KNOWN(TK_FALSE):
		e = parse_expr(ps, AST_BOOL, t.loc);
		e->u.bval = t.kind == KNOWN(TK_TRUE);
		return e;
	case KNOWN(TK_MINUS):
		e = operand(r);
		return e ? parse_unary(ps, AST_OP_MINUS, e, loc_join(t.loc, e->loc)) : NULL;
	case KNOWN(TK_LBRACKET):
		return array(r, t.loc);
	case KNOWN(TK_LPAREN):
		return paren(r, t.loc);
	default: /* any other token, TABLES ones too */
		return NULL;
	}
}

/* "lhs = rhs ;" with both sides operands. */
static bool assignment(Reader *r, AstAssign *s)
{
	s->lhs = operand(r);
	if (!s->lhs || take(r).kind != KNOWN(TK_ASSIGN))
		return false;
	s->rhs = operand(r);
	if (!s->rhs)
		return false;
	Token semi = take(r);
	if (semi.kind != KNOWN(TK_SEMI))
		return false;
	s->loc = loc_join(s->lhs->loc, semi.loc);
	return true;
}

bool parse_plain_stmt(ParseState *ps, Token *out)
{
	if (ps->tables_only || ps->dialect != DIALECT_KHRONOS ||
	    ps->syntax_errors || ps->too_deep || ps->int_min_pending ||
	    diag_count(ps->diags) != ps->diags_before)
		return false;
	ps->nahead = ps->ahead_pos = 0;
	Reader r = { ps, 0, 0 };
	AstAssign s;
	memset(&s, 0, sizeof(s));
	if (!assignment(&r, &s) || diag_count(ps->diags) != ps->diags_before)
		return false; /* the tokens read go to the parser */
	ps->nahead = 0;
	ps->fast_stmts++;
	if (s.loc.off - ps->forgotten >= FAST_FORGET_BYTES) {
		source_forget(ps->file, s.loc.off);
		ps->forgotten = s.loc.off;
	}
	ps->fast_stop = !parse_stmt(ps, NULL, &s);
	memset(out, 0, sizeof(*out));
	out->kind = TK_STMT;
	out->loc = s.loc;
	return true;
}
