/*
 * dat_quant_parse.c - parsing the quantization file graph.quant (spec 5.3
 * Quantization File Format):
 *
 *   "filter1": linear_quantize(min = -2.0, max = 2.5, bits = 8);
 *
 * One entry per tensor: its name in quotes, ':', a quantization operation
 * whose arguments are all named (the tensor itself is not an argument),
 * ';'. Values are literals: numbers (with a sign), logicals, strings, and
 * (1.0.5) nested arrays of them for per-channel parameters. The tokens
 * are those of the NNEF lexer (spec 3.1). Whether the names and the
 * operations make sense is checked against the graph by model/.
 */
#include "datfile/datfile.h"
#include "lexer/lexer.h"

#include <string.h>

enum { MAX_NESTING = 64 };

typedef struct QParser {
	Lexer *lx;
	Token tok;
	Arena *arena;
	DiagList *diags;
	bool failed;
} QParser;

static void advance(QParser *p)
{
	lex_next(p->lx, &p->tok);
}

/* Reports "expected X" at the current token; returns false. */
static bool expected(QParser *p, const char *what)
{
	if (p->tok.kind != TK_ERROR) /* the lexer has said why */
		diag_add(p->diags, DIAG_E1201, p->tok.loc, "expected %s in graph.quant, not %s", what, lex_token_desc(p->tok.kind));
	p->failed = true;
	return false;
}

static bool expect(QParser *p, TokKind kind, const char *what)
{
	if (p->tok.kind != kind)
		return expected(p, what);
	advance(p);
	return true;
}

static QuantValue *new_value(QParser *p, QuantValKind kind, Loc loc)
{
	QuantValue *v = ARENA_NEW(p->arena, QuantValue);
	v->kind = kind;
	v->loc = loc;
	return v;
}

static QuantValue *parse_value(QParser *p, unsigned depth);

/* '[' value {',' value} ']' */
static QuantValue *parse_array(QParser *p, unsigned depth)
{
	Loc start = p->tok.loc;
	advance(p);
	QuantValue **items = NULL;
	size_t n = 0, cap = 0;
	while (p->tok.kind != TK_RBRACKET) {
		if (n && !expect(p, TK_COMMA, "',' or ']' in the array"))
			return NULL;
		QuantValue *v = parse_value(p, depth + 1);
		if (!v)
			return NULL;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			QuantValue **grown = ARENA_ARRAY(p->arena, QuantValue *, cap);
			if (n)
				memcpy(grown, items, n * sizeof(*items));
			items = grown;
		}
		items[n++] = v;
	}
	QuantValue *a = new_value(p, QV_ARRAY, loc_join(start, p->tok.loc));
	advance(p);
	a->u.list.items = items;
	a->u.list.n = n;
	return a;
}

static QuantValue *parse_value(QParser *p, unsigned depth)
{
	if (depth > MAX_NESTING) {
		expected(p, "a value nested less deeply");
		return NULL;
	}
	Loc loc = p->tok.loc;
	bool minus = p->tok.kind == TK_MINUS;
	if (minus)
		advance(p);
	QuantValue *v = NULL;
	switch (p->tok.kind) {
	case TK_INT:
		v = new_value(p, QV_INT, loc_join(loc, p->tok.loc));
		v->u.i = minus ? (p->tok.int_min ? p->tok.v.i : -p->tok.v.i) : p->tok.v.i;
		if (p->tok.int_min && !minus)
			return expected(p, "an integer in range"), NULL;
		break;
	case TK_REAL:
		v = new_value(p, QV_REAL, loc_join(loc, p->tok.loc));
		v->u.r = minus ? -p->tok.v.r : p->tok.v.r;
		break;
	case TK_TRUE:
	case TK_FALSE:
	case TK_STRING:
		if (minus)
			return expected(p, "a number after '-'"), NULL;
		v = new_value(p, p->tok.kind == TK_STRING ? QV_STRING : QV_BOOL, loc);
		if (p->tok.kind == TK_STRING) {
			v->u.str.s = p->tok.v.str.s;
			v->u.str.len = p->tok.v.str.len;
		} else {
			v->u.b = p->tok.kind == TK_TRUE;
		}
		break;
	case TK_LBRACKET:
		if (minus)
			return expected(p, "a number after '-'"), NULL;
		return parse_array(p, depth);
	case TK_IDENT:
		diag_add(p->diags, DIAG_E1201, p->tok.loc, "'%s' is an identifier; arguments in graph.quant are literals (numbers, logicals, strings, arrays), not tensors", p->tok.v.ident);
		p->failed = true;
		return NULL;
	default:
		expected(p, "a literal value");
		return NULL;
	}
	advance(p);
	return v;
}

/* name '=' value */
static bool parse_arg(QParser *p, QuantArg *arg)
{
	if (p->tok.kind != TK_IDENT)
		return expected(p, "a named argument (name = value)");
	arg->name = p->tok.v.ident;
	arg->loc = p->tok.loc;
	advance(p);
	if (p->tok.kind != TK_ASSIGN) {
		diag_add(p->diags, DIAG_E1201, p->tok.loc, "expected '=' after '%s': arguments in graph.quant are given by name, and the tensor itself is not an argument", arg->name);
		p->failed = true;
		return false;
	}
	advance(p);
	arg->value = parse_value(p, 0);
	return arg->value != NULL;
}

/* '"tensor"' ':' op '(' args ')' ';' */
static bool parse_entry(QParser *p, QuantEntry *e)
{
	memset(e, 0, sizeof(*e));
	if (p->tok.kind != TK_STRING)
		return expected(p, "a tensor name in quotes");
	e->tensor = p->tok.v.str.s;
	e->tensor_loc = p->tok.loc;
	advance(p);
	if (!expect(p, TK_COLON, "':' after the tensor name"))
		return false;
	if (p->tok.kind != TK_IDENT)
		return expected(p, "the name of a quantization operation");
	e->op = p->tok.v.ident;
	e->op_loc = p->tok.loc;
	advance(p);
	if (!expect(p, TK_LPAREN, "'(' after the operation"))
		return false;
	size_t cap = 0;
	while (p->tok.kind != TK_RPAREN) {
		if (e->nargs && !expect(p, TK_COMMA, "',' or ')' after an argument"))
			return false;
		if (e->nargs == cap) {
			cap = cap ? 2 * cap : 8;
			QuantArg *grown = ARENA_ARRAY(p->arena, QuantArg, cap);
			if (e->nargs)
				memcpy(grown, e->args, e->nargs * sizeof(*grown));
			e->args = grown;
		}
		if (!parse_arg(p, &e->args[e->nargs++]))
			return false;
	}
	advance(p);
	return expect(p, TK_SEMI, "';' after the entry");
}

bool dat_quant_parse(const SourceFile *f, Arena *arena, Interner *interner,
		 DiagList *diags, QuantFile *out)
{
	QParser p = { lex_new(f, arena, interner, diags), { 0 }, arena, diags,
		      false };
	memset(out, 0, sizeof(*out));
	size_t cap = 0;
	advance(&p);
	while (p.tok.kind != TK_EOF && !diag_limit_reached(diags)) {
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			QuantEntry *grown = ARENA_ARRAY(arena, QuantEntry, cap);
			if (out->n)
				memcpy(grown, out->entries, out->n * sizeof(*grown));
			out->entries = grown;
		}
		if (parse_entry(&p, &out->entries[out->n])) {
			out->n++;
			continue;
		}
		/* skip to the next entry */
		while (p.tok.kind != TK_SEMI && p.tok.kind != TK_EOF)
			advance(&p);
		if (p.tok.kind == TK_SEMI)
			advance(&p);
	}
	lex_free(p.lx);
	return !p.failed;
}
