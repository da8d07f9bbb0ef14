/*
 * check_lexer.c - the scanner (spec 3.1 Lexical Elements): every keyword,
 * operator and syntactic character, every literal form, comments, white
 * space, escapes, locations and each lexical error; and that the tokens
 * read by hand (lex_set_quick) are those of the flex tables, over every
 * test document and across the ends of flex's buffer.
 */
#include "lexer/lexer.h"
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_TOKS = 256 };

typedef struct Lexed {
	Arena arena;
	Interner interner;
	DiagList diags;
	SourceFile *src;
	Token toks[MAX_TOKS];
	size_t n; /* tokens before TK_EOF */
} Lexed;

/* A lexer over text, with l's arena, interner and diagnostics (no token
 * read yet). */
static Lexer *lexer_over(Lexed *l, const char *text, size_t len)
{
	memset(l, 0, sizeof(*l));
	arena_init(&l->arena);
	intern_init(&l->interner, &l->arena);
	diag_list_init(&l->diags, 0);
	l->src = source_from_memory("t.nnef", text, len);
	return lex_new(l->src, &l->arena, &l->interner, &l->diags);
}

static void lex_text_n(Lexed *l, const char *text, size_t len)
{
	Lexer *lx = lexer_over(l, text, len);
	for (;;) {
		Token t;
		lex_next(lx, &t);
		if (t.kind == TK_EOF) {
			l->toks[l->n] = t;
			break;
		}
		ck_assert_uint_lt(l->n, MAX_TOKS - 1);
		l->toks[l->n++] = t;
	}
	lex_free(lx);
}

static void lex_text(Lexed *l, const char *text)
{
	lex_text_n(l, text, strlen(text));
}

static void lexed_free(Lexed *l)
{
	diag_list_free(&l->diags);
	intern_free(&l->interner);
	arena_free(&l->arena);
	source_free(l->src);
}

/* The single token of text, which must lex without diagnostics. */
static TokKind only_kind(const char *text)
{
	Lexed l;
	lex_text(&l, text);
	ck_assert_msg(l.n == 1, "'%s' gave %zu tokens", text, l.n);
	ck_assert_msg(l.diags.len == 0, "'%s' gave diagnostics", text);
	TokKind k = l.toks[0].kind;
	lexed_free(&l);
	return k;
}

START_TEST(every_keyword)
{
	static const struct {
		const char *s;
		TokKind k;
	} kw[] = {
		{ "version", TK_KW_VERSION },     { "extension", TK_KW_EXTENSION },
		{ "graph", TK_KW_GRAPH },         { "fragment", TK_KW_FRAGMENT },
		{ "tensor", TK_KW_TENSOR },       { "integer", TK_KW_INTEGER },
		{ "scalar", TK_KW_SCALAR },       { "logical", TK_KW_LOGICAL },
		{ "string", TK_KW_STRING },       { "shape_of", TK_KW_SHAPE_OF },
		{ "length_of", TK_KW_LENGTH_OF }, { "range_of", TK_KW_RANGE_OF },
		{ "for", TK_KW_FOR },             { "in", TK_KW_IN },
		{ "yield", TK_KW_YIELD },         { "if", TK_KW_IF },
		{ "else", TK_KW_ELSE },
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		ck_assert_int_eq(only_kind(kw[i].s), kw[i].k);
		ck_assert(lex_is_keyword(kw[i].k));
		ck_assert_str_eq(lex_token_spelling(kw[i].k), kw[i].s);
	}
	/* 17 keywords in spec 3.1, and nothing else is one */
	ck_assert_uint_eq(sizeof(kw) / sizeof(kw[0]), 17);
	ck_assert(!lex_is_keyword(TK_TRUE));
	ck_assert(!lex_is_keyword(TK_IDENT));
}
END_TEST

START_TEST(logical_literals)
{
	ck_assert_int_eq(only_kind("true"), TK_TRUE);
	ck_assert_int_eq(only_kind("false"), TK_FALSE);
	ck_assert_int_eq(only_kind("True"), TK_IDENT);
}
END_TEST

START_TEST(identifiers)
{
	static const char *ids[] = { "x", "_", "_a1", "conv2d", "A_B_9",
				     "versions", "in_", "graph2", "iff",
				     "tensor_", "shape_of_x" };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		Lexed l;
		lex_text(&l, ids[i]);
		ck_assert_uint_eq(l.n, 1);
		ck_assert_int_eq(l.toks[0].kind, TK_IDENT);
		ck_assert_str_eq(l.toks[0].v.ident, ids[i]);
		lexed_free(&l);
	}
	/* the same spelling is the same pointer */
	Lexed l;
	lex_text(&l, "abc abc abd");
	ck_assert_ptr_eq(l.toks[0].v.ident, l.toks[1].v.ident);
	ck_assert_ptr_ne(l.toks[0].v.ident, l.toks[2].v.ident);
	lexed_free(&l);
}
END_TEST

START_TEST(every_operator_and_syntactic_character)
{
	static const struct {
		const char *s;
		TokKind k;
	} ops[] = {
		{ "+", TK_PLUS },    { "-", TK_MINUS },   { "*", TK_STAR },
		{ "/", TK_SLASH },   { "^", TK_CARET },   { "<", TK_LT },
		{ "<=", TK_LE },     { ">", TK_GT },      { ">=", TK_GE },
		{ "==", TK_EQ },     { "!=", TK_NE },     { "&&", TK_AND },
		{ "||", TK_OR },     { "!", TK_NOT },     { "(", TK_LPAREN },
		{ ")", TK_RPAREN },  { "[", TK_LBRACKET }, { "]", TK_RBRACKET },
		{ "{", TK_LBRACE },  { "}", TK_RBRACE },  { ":", TK_COLON },
		{ "=", TK_ASSIGN },  { ",", TK_COMMA },   { ";", TK_SEMI },
		{ "->", TK_ARROW },  { "?", TK_QUESTION },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		ck_assert_int_eq(only_kind(ops[i].s), ops[i].k);
		ck_assert_str_eq(lex_token_spelling(ops[i].k), ops[i].s);
	}
}
END_TEST

START_TEST(longest_match_between_operators)
{
	Lexed l;
	lex_text(&l, "a<=b>=c==d!=e->f- >g=h<-1");
	TokKind want[] = { TK_IDENT, TK_LE,    TK_IDENT, TK_GE,     TK_IDENT,
			   TK_EQ,    TK_IDENT, TK_NE,    TK_IDENT,  TK_ARROW,
			   TK_IDENT, TK_MINUS, TK_GT,    TK_IDENT,  TK_ASSIGN,
			   TK_IDENT, TK_LT,    TK_MINUS, TK_INT };
	ck_assert_uint_eq(l.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.n; i++)
		ck_assert_int_eq(l.toks[i].kind, want[i]);
	lexed_free(&l);
}
END_TEST

/* '<' opening a generic argument is told apart from less-than by what
 * follows: a type name or '?', then '>'. */
START_TEST(generic_angle_bracket)
{
	Lexed l;
	lex_text(&l, "f<scalar>(x) tensor<?> g< integer >(y)");
	ck_assert_int_eq(l.toks[1].kind, TK_GENERIC_LT);
	ck_assert_int_eq(l.toks[2].kind, TK_KW_SCALAR);
	ck_assert_int_eq(l.toks[3].kind, TK_GT);
	ck_assert_int_eq(l.toks[8].kind, TK_GENERIC_LT);
	ck_assert_int_eq(l.toks[9].kind, TK_QUESTION);
	ck_assert_int_eq(l.toks[12].kind, TK_GENERIC_LT);
	lexed_free(&l);

	/* comparisons stay comparisons */
	lex_text(&l, "a < b  a<integer(b)  tensor<>  f<? = scalar>");
	ck_assert_int_eq(l.toks[1].kind, TK_LT);
	ck_assert_int_eq(l.toks[4].kind, TK_LT);
	ck_assert_int_eq(l.toks[10].kind, TK_LT);
	ck_assert_int_eq(l.toks[11].kind, TK_GT);
	ck_assert_int_eq(l.toks[13].kind, TK_LT);
	lexed_free(&l);
}
END_TEST

/* <numeric-literal>: integer without '.' or exponent, real otherwise. */
START_TEST(integer_literals)
{
	static const struct {
		const char *s;
		int64_t v;
	} ints[] = { { "0", 0 },     { "7", 7 },     { "007", 7 },
		     { "1234567890", 1234567890 },
		     { "9223372036854775807", INT64_MAX } };
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		Lexed l;
		lex_text(&l, ints[i].s);
		ck_assert_uint_eq(l.n, 1);
		ck_assert_int_eq(l.toks[0].kind, TK_INT);
		ck_assert_int_eq(l.toks[0].v.i, ints[i].v);
		ck_assert_uint_eq(l.diags.len, 0);
		lexed_free(&l);
	}
}
END_TEST

START_TEST(real_literals)
{
	static const struct {
		const char *s;
		double v;
	} reals[] = { { "1.0", 1.0 },     { "1e3", 1000.0 },
		      { "1.5E-2", 0.015 }, { "2e+2", 200.0 },
		      { "0.25", 0.25 },    { "3.5e1", 35.0 },
		      { "1e-400", 0.0 } };
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		Lexed l;
		lex_text(&l, reals[i].s);
		ck_assert_uint_eq(l.n, 1);
		ck_assert_int_eq(l.toks[0].kind, TK_REAL);
		ck_assert_double_eq(l.toks[0].v.r, reals[i].v);
		ck_assert_uint_eq(l.diags.len, 0);
		lexed_free(&l);
	}
}
END_TEST

/* The minus sign is never part of a token: in flat syntax the parser
 * joins it to the literal (spec 3.1). */
START_TEST(minus_is_separate_token)
{
	Lexed l;
	lex_text(&l, "-1 -2.5");
	ck_assert_uint_eq(l.n, 4);
	ck_assert_int_eq(l.toks[0].kind, TK_MINUS);
	ck_assert_int_eq(l.toks[1].kind, TK_INT);
	ck_assert_int_eq(l.toks[2].kind, TK_MINUS);
	ck_assert_int_eq(l.toks[3].kind, TK_REAL);
	lexed_free(&l);
}
END_TEST

static void expect_lex_error(const char *text, DiagCode code,
			     const char *pos, const char *msg_part)
{
	Lexed l;
	lex_text(&l, text);
	ck_assert_msg(l.diags.len >= 1, "no diagnostic for '%s'", text);
	const Diag *d = l.diags.items[0];
	ck_assert_msg(d->code == code, "'%s': got %s, want %s", text,
		      diag_code_name(d->code), diag_code_name(code));
	ck_assert_str_eq(tdoc_pos(d), pos);
	ck_assert_msg(strstr(d->msg, msg_part), "'%s': message '%s'", text,
		      d->msg);
	lexed_free(&l);
}

START_TEST(malformed_numbers)
{
	expect_lex_error("x = 1.;", DIAG_E0107, "1:5", "no digits after");
	expect_lex_error("x = .5;", DIAG_E0107, "1:5", "no integer part");
	expect_lex_error("x = 1e;", DIAG_E0107, "1:5", "exponent without");
	expect_lex_error("x = 2E+;", DIAG_E0107, "1:5", "exponent without");
	expect_lex_error("x = 3x;", DIAG_E0107, "1:5", "'3x'");
	expect_lex_error("x = 1.2.3;", DIAG_E0107, "1:5", "'1.2.3'");
	expect_lex_error("\n  9223372036854775809", DIAG_E0108, "2:3",
			 "out of range");
	expect_lex_error("99999999999999999999", DIAG_E0108, "1:1",
			 "out of range");
	expect_lex_error("1e999", DIAG_E0109, "1:1", "out of range");
	/* malformed numbers come out as TK_ERROR */
	Lexed l;
	lex_text(&l, "1.");
	ck_assert_int_eq(l.toks[0].kind, TK_ERROR);
	lexed_free(&l);
}
END_TEST

/* <string-literal>: either quote; the start quote and '\' are escaped. */
START_TEST(string_literals)
{
	static const struct {
		const char *src, *value;
	} strs[] = {
		{ "'abc'", "abc" },
		{ "\"abc\"", "abc" },
		{ "''", "" },
		{ "'it\\'s'", "it's" },
		{ "\"say \\\"hi\\\"\"", "say \"hi\"" },
		{ "'a\\\\b'", "a\\b" },
		{ "'say \"hi\"'", "say \"hi\"" },
		{ "\"it's\"", "it's" },
		{ "'\\\"'", "\"" },
		{ "'# not a comment'", "# not a comment" },
		{ "'conv1/filter-0.5'", "conv1/filter-0.5" },
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		Lexed l;
		lex_text(&l, strs[i].src);
		ck_assert_msg(l.n == 1, "%s", strs[i].src);
		ck_assert_int_eq(l.toks[0].kind, TK_STRING);
		ck_assert_str_eq(l.toks[0].v.str.s, strs[i].value);
		ck_assert_uint_eq(l.toks[0].v.str.len, strlen(strs[i].value));
		ck_assert_uint_eq(l.diags.len, 0);
		lexed_free(&l);
	}
}
END_TEST

START_TEST(string_errors)
{
	expect_lex_error("x = 'abc\ny = 1;", DIAG_E0104, "1:5",
			 "before the end of the line");
	expect_lex_error("x = \"abc", DIAG_E0104, "1:5",
			 "before the end of the input");
	expect_lex_error("'abc\\", DIAG_E0104, "1:1", "unterminated");
	expect_lex_error("'a\\nb'", DIAG_E0105, "1:3", "'\\n'");
	expect_lex_error("'a\tb'", DIAG_E0106, "1:3", "'\\t'");
	expect_lex_error("'a\x7f'", DIAG_E0106, "1:3", "'\\x7F'");
	expect_lex_error("'caf\xc3\xa9'", DIAG_E0106, "1:5", "'\\xC3'");
	/* a bad escape is reported, but the string is still a string */
	Lexed l;
	lex_text(&l, "'a\\qb' x");
	ck_assert_int_eq(l.toks[0].kind, TK_STRING);
	ck_assert_str_eq(l.toks[0].v.str.s, "aqb");
	ck_assert_int_eq(l.toks[1].kind, TK_IDENT);
	lexed_free(&l);
	/* an unterminated string is an error token; lexing goes on at the
	 * next line */
	lex_text(&l, "'abc\nx");
	ck_assert_int_eq(l.toks[0].kind, TK_ERROR);
	ck_assert_int_eq(l.toks[1].kind, TK_IDENT);
	lexed_free(&l);
}
END_TEST

START_TEST(comments_and_white_space)
{
	Lexed l;
	lex_text(&l, "# leading comment\n"
		     "a # trailing, with 'quotes' and \xc3\xa9\n"
		     "b\t\v\f c # ends at form feed\fd\r\n"
		     "e#no space\n"
		     "#last line without newline");
	ck_assert_uint_eq(l.n, 5);
	const char *want[] = { "a", "b", "c", "d", "e" };
	for (size_t i = 0; i < 5; i++) {
		ck_assert_int_eq(l.toks[i].kind, TK_IDENT);
		ck_assert_str_eq(l.toks[i].v.ident, want[i]);
	}
	ck_assert_uint_eq(l.diags.len, 0);
	lexed_free(&l);
}
END_TEST

START_TEST(stray_characters)
{
	expect_lex_error("a @ b", DIAG_E0101, "1:3", "'@'");
	expect_lex_error("a & b", DIAG_E0101, "1:3", "'&'");
	expect_lex_error("a | b", DIAG_E0101, "1:3", "'|'");
	expect_lex_error("a.b", DIAG_E0101, "1:2", "'.'");
	expect_lex_error("x = $", DIAG_E0101, "1:5", "'$'");
	expect_lex_error("x = caf\xc3\xa9;", DIAG_E0102, "1:8", "non-ASCII");
	expect_lex_error("a\x01", DIAG_E0103, "1:2", "0x01");
	expect_lex_error("a\rb", DIAG_E0103, "1:2", "0x0D");
	expect_lex_error("a\x1b", DIAG_E0103, "1:2", "0x1B");

	/* A run of non-ASCII bytes is one error; lexing goes on. */
	Lexed l;
	lex_text(&l, "\xe2\x82\xac x");
	ck_assert_uint_eq(l.diags.len, 1);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_int_eq(l.toks[0].kind, TK_ERROR);
	ck_assert_uint_eq(l.toks[0].loc.len, 3);
	ck_assert_int_eq(l.toks[1].kind, TK_IDENT);
	lexed_free(&l);
}
END_TEST

START_TEST(nul_bytes)
{
	Lexed l;
	lex_text_n(&l, "a\0b'\0'", 6);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_int_eq(l.toks[1].kind, TK_ERROR);
	ck_assert_int_eq(l.toks[2].kind, TK_IDENT);
	ck_assert_int_eq(l.toks[3].kind, TK_STRING);
	ck_assert_uint_eq(l.diags.len, 2);
	ck_assert_int_eq(l.diags.items[0]->code, DIAG_E0103);
	ck_assert_int_eq(l.diags.items[1]->code, DIAG_E0106);
	lexed_free(&l);
}
END_TEST

START_TEST(token_locations)
{
	Lexed l;
	lex_text(&l, "version 1.0;\n  x = f( 'ab' );");
	static const struct {
		unsigned off, len;
	} want[] = { { 0, 7 },  { 8, 3 },  { 11, 1 }, { 15, 1 }, { 17, 1 },
		     { 19, 1 }, { 20, 1 }, { 22, 4 }, { 27, 1 }, { 28, 1 } };
	ck_assert_uint_eq(l.n, 10);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_uint_eq(l.toks[i].loc.off, want[i].off);
		ck_assert_uint_eq(l.toks[i].loc.len, want[i].len);
	}
	unsigned line, col;
	source_linecol(l.src, l.toks[3].loc.off, &line, &col);
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(col, 3);
	/* end of input is a point at the end */
	ck_assert_uint_eq(l.toks[l.n].loc.off, 29);
	ck_assert_uint_eq(l.toks[l.n].loc.len, 0);
	lexed_free(&l);
}
END_TEST

START_TEST(eof_is_sticky)
{
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	DiagList dl;
	diag_list_init(&dl, 0);
	SourceFile *f = source_from_memory("t", "x", 1);
	Lexer *lx = lex_new(f, &a, &in, &dl);
	Token t;
	lex_next(lx, &t);
	ck_assert_int_eq(t.kind, TK_IDENT);
	for (int i = 0; i < 3; i++) {
		lex_next(lx, &t);
		ck_assert_int_eq(t.kind, TK_EOF);
	}
	lex_free(lx);
	source_free(f);
	diag_list_free(&dl);
	intern_free(&in);
	arena_free(&a);
}
END_TEST

/* Identifiers written i"..." (a vendor extension: tract's names with '/'
 * and '.'): one identifier token spelled as the string, marked quoted,
 * counted; "i" alone, or followed by a space, stays what it was. */
START_TEST(quoted_identifiers)
{
	Lexed l;
	lex_text(&l, "i\"a/b.c\" = i \"s\"; i\"x\\\"y\" i\"a/b.c\"");
	ck_assert_uint_eq(l.diags.len, 0);
	ck_assert_uint_eq(l.n, 7);
	ck_assert_int_eq(l.toks[0].kind, TK_IDENT);
	ck_assert(l.toks[0].quoted);
	ck_assert_str_eq(l.toks[0].v.ident, "a/b.c");
	ck_assert_uint_eq(l.toks[0].loc.off, 0);
	ck_assert_uint_eq(l.toks[0].loc.len, 8);
	ck_assert_int_eq(l.toks[2].kind, TK_IDENT);
	ck_assert(!l.toks[2].quoted);
	ck_assert_int_eq(l.toks[3].kind, TK_STRING);
	ck_assert_str_eq(l.toks[5].v.ident, "x\"y");
	ck_assert_ptr_eq(l.toks[6].v.ident, l.toks[0].v.ident); /* interned */
	lexed_free(&l);

	/* i"" names nothing: E0110 at the token */
	lex_text(&l, "  i\"\" ");
	ck_assert_uint_eq(l.diags.len, 1);
	ck_assert_int_eq(l.diags.items[0]->code, DIAG_E0110);
	ck_assert_str_eq(tdoc_pos(l.diags.items[0]), "1:3");
	ck_assert_int_eq(l.toks[0].kind, TK_ERROR);
	lexed_free(&l);

	/* what can be written as it is, and what must be quoted */
	ck_assert(lex_is_plain_identifier("conv1_filter"));
	ck_assert(lex_is_plain_identifier("_x9"));
	ck_assert(!lex_is_plain_identifier("conv1/filter"));
	ck_assert(!lex_is_plain_identifier("1x"));
	ck_assert(!lex_is_plain_identifier("graph"));
	ck_assert(!lex_is_plain_identifier("true"));
	ck_assert(!lex_is_plain_identifier(""));
}
END_TEST

START_TEST(token_descriptions)
{
	ck_assert_str_eq(lex_token_desc(TK_IDENT), "identifier");
	ck_assert_str_eq(lex_token_desc(TK_RPAREN), "')'");
	ck_assert_str_eq(lex_token_desc(TK_EOF), "end of input");
	ck_assert_ptr_null(lex_token_spelling(TK_STRING));
	for (int k = 0; k < TK_COUNT; k++)
		ck_assert_ptr_nonnull(lex_token_desc((TokKind)k));
}
END_TEST

/* ---- the tokens read by hand are flex's -------------------------------- */

/* How token_dump reads: with the flex tables, by hand (lex_next), or in
 * runs up to a ';' (lex_run, as the reader of plain assignments does),
 * lex_next where a run stops short. */
enum { READ_FLEX, READ_QUICK, READ_RUNS };

/* The next token of lx read the way `how`: runs of at most 5 tokens (so
 * that runs also stop short of a ';') kept in buf, *n of them, *at the
 * next. */
static void next_token(Lexer *lx, int how, Token *buf, size_t *n, size_t *at,
		       Token *t)
{
	if (how == READ_RUNS && *at == *n) {
		*n = lex_run(lx, buf, 5);
		*at = 0;
	}
	if (*at < *n)
		*t = buf[(*at)++];
	else
		lex_next(lx, t);
}

/* Every token of src (kind, place, flags, value) and every diagnostic, a
 * line each. */
static void token_dump(const SourceFile *src, int how, StrBuf *out)
{
	Arena a;
	Interner in;
	DiagList d;
	arena_init(&a);
	intern_init(&in, &a);
	diag_list_init(&d, 0);
	Lexer *lx = lex_new(src, &a, &in, &d);
	lex_set_quick(lx, how != READ_FLEX);
	Token buf[5], t;
	size_t n = 0, at = 0;
	for (TokKind k = TK_ERROR; k != TK_EOF;) {
		next_token(lx, how, buf, &n, &at, &t);
		k = t.kind;
		sb_printf(out, "%d %u+%u %d%d ", (int)k, t.loc.off, t.loc.len,
			  t.int_min, t.quoted);
		if (k == TK_IDENT)
			sb_puts(out, t.v.ident);
		else if (k == TK_INT)
			sb_printf(out, "%lld", (long long)t.v.i);
		else if (k == TK_REAL)
			sb_printf(out, "%a", t.v.r);
		else if (k == TK_STRING)
			sb_put_escaped(out, t.v.str.s, t.v.str.len);
		sb_putc(out, '\n');
	}
	for (size_t i = 0; i < d.len; i++)
		sb_printf(out, "E%d %u+%u %s\n", (int)d.items[i]->code,
			  d.items[i]->loc.off, d.items[i]->loc.len,
			  d.items[i]->msg);
	lex_free(lx);
	diag_list_free(&d);
	intern_free(&in);
	arena_free(&a);
}

/* Whether the file at path lexes the same six ways: with the flex tables,
 * by hand or in runs, from a copy in memory or mapped (fed to flex 64 KiB
 * at a time). */
static bool lexes_the_same(const char *path)
{
	int fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	struct stat sb;
	ck_assert_int_eq(fstat(fd, &sb), 0);
	size_t len = (size_t)sb.st_size;
	char *text = malloc(len + 1);
	ck_assert_uint_eq((size_t)read(fd, text, len), len);
	SourceFile *copy = source_from_memory(path, text, len);
	char *mapped = len ? util_map_file(fd, len) : NULL;
	SourceFile *map = mapped ? source_from_mapping(path, mapped, len) : NULL;
	close(fd);
	StrBuf want, got;
	sb_init(&want);
	sb_init(&got);
	token_dump(copy, READ_FLEX, &want);
	token_dump(copy, READ_QUICK, &got);
	bool same = test_same_text(path, "flex and quick tokens", "flex", &want, "quick", &got);
	sb_clear(&got);
	token_dump(copy, READ_RUNS, &got);
	same = same && test_same_text(path, "flex tokens and tokens in runs", "flex", &want, "runs", &got);
	for (int how = READ_FLEX; map && how <= READ_RUNS; how++) {
		sb_clear(&got);
		token_dump(map, how, &got);
		same = same && test_same_text(path, "tokens of a copy and of the mapped file", "copy", &want, "mapped", &got);
	}
	sb_free(&want);
	sb_free(&got);
	source_free(copy);
	if (map)
		source_free(map);
	util_free(mapped);
	free(text);
	return same;
}

static bool lexes_the_same_entry(const char *path, void *ctx)
{
	(void)ctx;
	size_t n = strlen(path);
	if (n == 0 || path[n - 1] != '/')
		return lexes_the_same(path);
	char graph[4096];
	snprintf(graph, sizeof(graph), "%sgraph.nnef", path);
	return access(graph, R_OK) != 0 || lexes_the_same(graph);
}

START_TEST(quick_tokens_are_flex_tokens)
{
	static const char *const dirs[] = {
		"golden/syntax", "golden/sema", "golden/flatten", "golden/shapes",
		"golden/run", "golden/nets", "golden/lenient", "vendor",
		"fuzz/regressions/parse",
	};
	char dir[4096];
	size_t n = 0, bad = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", test_srcdir(), dirs[i]);
		n += test_each_entry(dir, ".nnef", lexes_the_same_entry, NULL, &bad);
	}
	snprintf(dir, sizeof(dir), "%s/../examples", test_srcdir());
	n += test_each_entry(dir, "/", lexes_the_same_entry, NULL, &bad);
	const char *corpus = test_corpus();
	if (corpus) {
		snprintf(dir, sizeof(dir), "%s/openvx-cts-nnef", corpus);
		n += test_each_entry(dir, "/", lexes_the_same_entry, NULL, &bad);
		snprintf(dir, sizeof(dir), "%s/nnef-tools-examples", corpus);
		n += test_each_entry(dir, ".nnef", lexes_the_same_entry, NULL, &bad);
	}
	ck_assert_uint_gt(n, 300);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* Every form of token, and every lexical error, at every offset from
 * the ends of flex's buffers, and next to every other: a text of some
 * 300 KiB whose pieces are shifted at each round. */
START_TEST(quick_tokens_across_buffer_ends)
{
	/* unterminated strings and comments end at their line */
	static const char *const pieces[] = {
		"name", "version", "versions", "i", "x_1", "_", "true", "falsey",
		"0", "12", "9223372036854775808", "99999999999999999999",
		"1.5", "0.25e3", "1e5", "2.5e-3", "12abc", "1.", "1.2.3", ".5",
		"'abc'", "\"a'b\"", "'es\\'c'", "'bad\\q'", "'tab\there'",
		"'open\n", "\"\n", "i\"quoted id\"", "i\"\"", "#note\n", "# x\f",
		"\r\n", "\r", "<scalar>", "< integer\n>", "<?>", "<scalarx>",
		"<=", "<", ">=", ">", "==", "=", "!=", "!", "->", "-", "&&", "&",
		"||", "|", "(", ")", "[", "]", "{", "}", ",", ";", ":", "?", "+",
		"*", "/", "^", ".", "$", "\x80\xff", "\t", "\v",
	};
	char path[] = "/tmp/nnef-check-lexer-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	size_t np = sizeof(pieces) / sizeof(pieces[0]);
	for (size_t round = 0; ftell(f) < 300 << 10; round++)
		for (size_t i = 0; i < np; i++) {
			fputs(pieces[(i + round) % np], f);
			fprintf(f, "%*s", (int)((i * 7 + round) % 3), "");
		}
	fputc('\0', f);
	fputs(" tail", f);
	ck_assert_int_eq(fclose(f), 0);
	bool same = lexes_the_same(path);
	unlink(path);
	ck_assert(same);
}
END_TEST

/* A run ends at its ';', and short of a number that may be out of range
 * (reported only when lex_next reads it, as the parser may never ask
 * for it) and of what flex reads: lex_next then reads on. */
START_TEST(runs_end_at_semicolons_and_before_errors)
{
	const char *text = "a = f(1, 'x');\nb = 99999999999999999999; c = 1.5e3;\n";
	Lexed l, r;
	lex_text(&l, text); /* the tokens lex_next gives, for comparison */
	Lexer *lx = lexer_over(&r, text, strlen(text));
	const DiagList *d = &r.diags;
	Token run[16];
	ck_assert_uint_eq(lex_run(lx, run, 16), 0); /* flex loads its buffer */
	lex_next(lx, &run[0]); /* a */
	ck_assert_uint_eq(lex_run(lx, run + 1, 16), 8); /* = f ( 1 , 'x' ) ; */
	ck_assert_int_eq(run[8].kind, TK_SEMI);
	ck_assert_uint_eq(lex_run(lx, run + 9, 16), 2); /* b = */
	ck_assert_uint_eq(d->len, 0);
	ck_assert_uint_eq(lex_run(lx, run + 11, 16), 0);
	lex_next(lx, &run[11]); /* the number, reported now */
	ck_assert_uint_eq(d->len, 1);
	ck_assert_int_eq(d->items[0]->code, DIAG_E0108);
	ck_assert_uint_eq(lex_run(lx, run + 12, 16), 1); /* ; */
	ck_assert_uint_eq(lex_run(lx, run + 13, 1), 1); /* c (at most 1) */
	ck_assert_uint_eq(lex_run(lx, run + 14, 16), 1); /* = */
	ck_assert_uint_eq(lex_run(lx, run + 15, 16), 0); /* an exponent: flex's */
	lex_next(lx, &run[15]);
	for (size_t i = 0; i < 16; i++) {
		ck_assert_int_eq(run[i].kind, l.toks[i].kind);
		ck_assert_uint_eq(run[i].loc.off, l.toks[i].loc.off);
		ck_assert_uint_eq(run[i].loc.len, l.toks[i].loc.len);
	}
	ck_assert_ptr_eq(run[2].v.ident, intern_cstr(&r.interner, "f"));
	ck_assert_str_eq(run[6].v.str.s, "x");
	lex_free(lx);
	lexed_free(&r);
	lexed_free(&l);
}
END_TEST

/* The hand-read lexer finds keywords (and true, false) by a hash of their
 * length and first and last characters: each keyword, and names that
 * share its slot or most of its spelling, read by hand as by flex. */
START_TEST(quick_keywords)
{
	StrBuf text, want, got;
	sb_init(&text);
	sb_puts(&text, "begin ");
	for (TokKind k = TK_TRUE; k <= TK_KW_ELSE; k++) {
		const char *s = lex_token_spelling(k);
		size_t n = strlen(s);
		sb_printf(&text, "%s %sx x%s %.*s ", s, s, s, (int)(n - 1), s);
		/* the same length, first and last characters: the same slot */
		sb_printf(&text, "%c%.*s%s ", s[0], (int)(n > 2 ? n - 2 : 0), "________", n > 1 ? s + n - 1 : "");
		if (n > 2)
			sb_printf(&text, "%.*s%c%s ", (int)(n / 2), s, s[n / 2] == 'q' ? 'z' : 'q', s + n / 2 + 1);
	}
	sb_puts(&text, "end\n");
	SourceFile *src = source_from_memory("kw.nnef", sb_str(&text), text.len);
	sb_init(&want);
	sb_init(&got);
	token_dump(src, READ_FLEX, &want);
	token_dump(src, READ_QUICK, &got);
	ck_assert(test_same_text("kw.nnef", "flex and quick tokens", "flex", &want, "quick", &got));
	/* and every keyword is one */
	for (TokKind k = TK_TRUE; k <= TK_KW_ELSE; k++) {
		char line[64];
		snprintf(line, sizeof(line), "\n%d ", (int)k);
		ck_assert_msg(strstr(sb_str(&got), line), "%s", lex_token_spelling(k));
	}
	sb_free(&want);
	sb_free(&got);
	sb_free(&text);
	source_free(src);
}
END_TEST

Suite *lexer_suite(void)
{
	Suite *s = suite_create("lexer");
	TCase *tc = tcase_create("tokens");
	tcase_add_test(tc, every_keyword);
	tcase_add_test(tc, logical_literals);
	tcase_add_test(tc, identifiers);
	tcase_add_test(tc, every_operator_and_syntactic_character);
	tcase_add_test(tc, longest_match_between_operators);
	tcase_add_test(tc, generic_angle_bracket);
	tcase_add_test(tc, token_descriptions);
	tcase_add_test(tc, quoted_identifiers);
	suite_add_tcase(s, tc);
	tc = tcase_create("literals");
	tcase_add_test(tc, integer_literals);
	tcase_add_test(tc, real_literals);
	tcase_add_test(tc, minus_is_separate_token);
	tcase_add_test(tc, malformed_numbers);
	tcase_add_test(tc, string_literals);
	tcase_add_test(tc, string_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, comments_and_white_space);
	tcase_add_test(tc, stray_characters);
	tcase_add_test(tc, nul_bytes);
	tcase_add_test(tc, token_locations);
	tcase_add_test(tc, eof_is_sticky);
	suite_add_tcase(s, tc);
	tc = tcase_create("quick");
	tcase_set_timeout(tc, 120);
	TEST_ADD_CORPUS_PART(tc, quick_tokens_are_flex_tokens);
	tcase_add_test(tc, quick_tokens_across_buffer_ends);
	tcase_add_test(tc, quick_keywords);
	tcase_add_test(tc, runs_end_at_semicolons_and_before_errors);
	suite_add_tcase(s, tc);
	return s;
}
