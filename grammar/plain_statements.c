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
 * fenced by the token table: it sees only the tokens lexer/tokens.def
 * marks PLAIN; any other (an operator, a keyword, a token the lexer
 * reported, one added to the language since), and the lexical variants
 * of a plain token that are not plain (an identifier written i"...", a
 * vendor construct; the integer 2^63, which only a '-' before it makes
 * valid), it sees as TK_ERROR, which no rule here accepts. It reads
 * Khronos NNEF only: in tract's dialect every statement is the parser's.
 * Nested brackets beyond the limit decline too. Declining is always
 * safe, and a streamed pass ends at the first diagnostic of any kind
 * (the model is then checked whole, without this reader), so this file
 * never reports anything itself. NNEF_REFERENCE_PARSER=1 turns this
 * reader off (parse.c).
 */
#include "grammar/parse_internal.h"

#include <string.h>

/* Deeper brackets decline, so that the recursion here stays shallow. */
enum { FAST_MAX_BRACKETS = 64 };
/* The text behind the parse is given back in steps of this many bytes. */
enum { FAST_FORGET_BYTES = 128 << 10 };

typedef struct Reader {
	ParseState *ps;
	size_t pos;      /* the next token, an index into ps->ahead */
	size_t known;    /* ps->ahead[0..known) are tokens this reader knows */
	uint32_t depth;  /* '(' and '[' open */
} Reader;

/* The tokens this reader knows: those tokens.def marks PLAIN. */
enum { TABLES = 0, PLAIN = 1 };

static const bool plain_token[] = {
#define TOKEN(kind, spelling, desc, reader) [kind] = reader,
#include "lexer/tokens.def"
#undef TOKEN
};

_Static_assert(sizeof(plain_token) == TK_COUNT, "plain_token out of sync");

/* What the reader sees in place of a token it does not know (TK_ERROR,
 * which it never accepts). */
static const Token unknown = { .kind = TK_ERROR };

/* Whether the reader knows t: a PLAIN token that is not an identifier
 * written i"..." nor the integer 2^63 (the parser folds it with its '-'). */
static bool knows(const Token *t)
{
	return plain_token[t->kind] && !t->quoted && !t->int_min;
}

/* Room read ahead at once: more than the tokens of most statements. */
enum { FAST_RUN = 32 };

/* peek_at for a token not read yet, or not known: the statement's tokens
 * up to its ';' at once, where the lexer can. */
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
	while (r->known < ps->nahead && knows(&ps->ahead[r->known]))
		r->known++;
	return r->pos + k < r->known ? &ps->ahead[r->pos + k] : &unknown;
}

/* The token k places ahead, read from the lexer when not read yet;
 * `unknown` from the first token the reader does not know on. */
static inline const Token *peek_at(Reader *r, size_t k)
{
	if (r->pos + k < r->known)
		return &r->ps->ahead[r->pos + k];
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
		if (t.kind != TK_COMMA)
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
	if (peek(r) == TK_RBRACKET) {
		Token close = take(r);
		r->depth--;
		return parse_expr(ps, AST_ARRAY, loc_join(open, close.loc));
	}
	AstExpr *buf[8];
	AVec v = AVEC_IN(buf);
	Loc end;
	if (!items(r, &v, TK_RBRACKET, &end))
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
	if (t.kind == TK_RPAREN) {
		r->depth--;
		first->loc = loc_join(open, t.loc);
		first->parens = true;
		return first;
	}
	if (t.kind != TK_COMMA)
		return NULL;
	AstExpr *buf[8];
	AVec v = AVEC_IN(buf);
	ast_vec_push(&v, &first, sizeof(first));
	Loc end;
	if (!items(r, &v, TK_RPAREN, &end))
		return NULL;
	return parse_list(r->ps, AST_TUPLE, &v, loc_join(open, end));
}

/* The type argument of "name<T>(": '<' already taken. */
static bool type_arg(Reader *r, uint8_t *name)
{
	switch (take(r).kind) {
	case TK_KW_INTEGER: *name = AST_TN_INTEGER; break;
	case TK_KW_SCALAR: *name = AST_TN_SCALAR; break;
	case TK_KW_LOGICAL: *name = AST_TN_LOGICAL; break;
	case TK_KW_STRING: *name = AST_TN_STRING; break;
	case TK_QUESTION: *name = AST_TN_GENERIC; break;
	default: return false;
	}
	return take(r).kind == TK_GT;
}

/* One argument: "name = operand" or "operand". */
static bool argument(Reader *r, AVec *args)
{
	AstArg a = { 0 };
	if (peek(r) == TK_IDENT && peek_at(r, 1)->kind == TK_ASSIGN) {
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
	if (peek(r) == TK_GENERIC_LT) {
		take(r);
		if (!type_arg(r, &generic))
			return NULL;
		has_generic = true;
	}
	if (take(r).kind != TK_LPAREN || !open_bracket(r))
		return NULL;
	AstArg buf[8];
	AVec args = AVEC_IN(buf);
	for (;;) {
		if (!argument(r, &args))
			break;
		Token t = take(r);
		if (t.kind == TK_RPAREN) {
			r->depth--;
			AstExpr *e = parse_invoke(r->ps, loc_join(name->loc, t.loc),
						  name->v.ident, &args);
			if (e && has_generic) {
				e->u.inv.has_generic = true;
				e->u.inv.generic = generic;
			}
			return e;
		}
		if (t.kind != TK_COMMA)
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
	case TK_IDENT:
		if (peek(r) == TK_LPAREN || peek(r) == TK_GENERIC_LT)
			return invocation(r, &t);
		e = parse_expr(ps, AST_IDENT, t.loc);
		e->u.ident = t.v.ident;
		return e;
	case TK_INT:
		e = parse_expr(ps, AST_INT, t.loc);
		e->u.ival = t.v.i;
		return e;
	case TK_REAL:
		e = parse_expr(ps, AST_REAL, t.loc);
		e->u.rval = t.v.r;
		return e;
	case TK_STRING:
		e = parse_expr(ps, AST_STRING, t.loc);
		e->u.str.s = t.v.str.s;
		e->u.str.len = t.v.str.len;
		return e;
	case TK_TRUE:
	case TK_FALSE:
		e = parse_expr(ps, AST_BOOL, t.loc);
		e->u.bval = t.kind == TK_TRUE;
		return e;
	case TK_MINUS:
		e = operand(r);
		return e ? parse_unary(ps, AST_OP_MINUS, e, loc_join(t.loc, e->loc)) : NULL;
	case TK_LBRACKET:
		return array(r, t.loc);
	case TK_LPAREN:
		return paren(r, t.loc);
	default:
		return NULL;
	}
}

/* "lhs = rhs ;" with both sides operands. */
static bool assignment(Reader *r, AstAssign *s)
{
	s->lhs = operand(r);
	if (!s->lhs || take(r).kind != TK_ASSIGN)
		return false;
	s->rhs = operand(r);
	if (!s->rhs)
		return false;
	Token semi = take(r);
	if (semi.kind != TK_SEMI)
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
	Reader r = { ps, 0, 0, 0 };
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
