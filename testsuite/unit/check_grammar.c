/*
 * check_grammar.c - the parser (spec 3.2, Appendix A.2): every production,
 * operator precedence and associativity (spec 3.3.3 Built-in Operators) by
 * the shape of the AST, left-hand sides, default values, document
 * structure and extension gating.
 */
#include "lexer/lexer.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPOSITIONAL                                                         \
	"version 1.0;\n"                                                      \
	"extension KHR_enable_fragment_definitions "                          \
	"KHR_enable_operator_expressions;\n"

/* The S-expression of the right-hand side of "y = <expr>;" in a
 * compositional graph; fails the test on any diagnostic. */
static char *rhs_of(const char *expr)
{
	char text[4096];
	snprintf(text, sizeof(text),
		 COMPOSITIONAL "graph G( x ) -> ( y )\n{\n  y = %s;\n}\n", expr);
	TestDoc t;
	tdoc_parse(&t, text, PARSE_DOCUMENT);
	ck_assert_msg(t.diags.len == 0, "'%s':\n%s", expr,
		      sb_str(&t.rendered));
	ck_assert_ptr_nonnull(t.res.doc->graph);
	ck_assert_uint_eq(t.res.doc->graph->body->nstmts, 1);
	StrBuf b;
	sb_init(&b);
	ast_print_expr(&b, t.res.doc->graph->body->stmts[0].rhs);
	char *s = strdup(sb_str(&b));
	sb_free(&b);
	tdoc_free(&t);
	return s;
}

#define EXPECT_SHAPE(expr, shape)                                   \
	do {                                                        \
		char *got_ = rhs_of(expr);                          \
		ck_assert_msg(strcmp(got_, (shape)) == 0,            \
			      "'%s' parsed as %s, want %s", (expr),  \
			      got_, (shape));                         \
		free(got_);                                         \
	} while (0)

/* Every binary level of spec 3.3.3, lowest to highest:
 * { in }, { &&, || }, { <, <=, >, >=, ==, != }, { +, - }, { *, / }, { ^ } */
START_TEST(precedence_levels)
{
	EXPECT_SHAPE("a + b * c", "(+ a (* b c))");
	EXPECT_SHAPE("a * b + c", "(+ (* a b) c)");
	EXPECT_SHAPE("a * b ^ c", "(* a (^ b c))");
	EXPECT_SHAPE("a ^ b * c", "(* (^ a b) c)");
	EXPECT_SHAPE("a / b - c", "(- (/ a b) c)");
	EXPECT_SHAPE("a + b < c * d", "(< (+ a b) (* c d))");
	EXPECT_SHAPE("a < b && c >= d", "(&& (< a b) (>= c d))");
	EXPECT_SHAPE("a == b || c != d", "(|| (== a b) (!= c d))");
	EXPECT_SHAPE("a <= b + 1", "(<= a (+ b 1))");
	EXPECT_SHAPE("a > b - 1", "(> a (- b 1))");
	EXPECT_SHAPE("x in a && b", "(in x (&& a b))");
	EXPECT_SHAPE("a || b in c", "(in (|| a b) c)");
	EXPECT_SHAPE("i + 1 in [2, 4]", "(in (+ i 1) [2 4])");
}
END_TEST

START_TEST(associativity)
{
	EXPECT_SHAPE("a - b - c", "(- (- a b) c)");
	EXPECT_SHAPE("a / b / c", "(/ (/ a b) c)");
	EXPECT_SHAPE("a + b - c + d", "(+ (- (+ a b) c) d)");
	/* ^ is right-associative (the spec is silent; mathematical use) */
	EXPECT_SHAPE("a ^ b ^ c", "(^ a (^ b c))");
	/* && and || share a level and associate to the left */
	EXPECT_SHAPE("a && b || c", "(|| (&& a b) c)");
	EXPECT_SHAPE("a || b && c", "(&& (|| a b) c)");
	EXPECT_SHAPE("a < b == c", "(== (< a b) c)");
	EXPECT_SHAPE("a in b in c", "(in (in a b) c)");
}
END_TEST

START_TEST(unary_operators)
{
	EXPECT_SHAPE("-a", "(- a)");
	EXPECT_SHAPE("+a", "(+ a)");
	EXPECT_SHAPE("!a", "(! a)");
	EXPECT_SHAPE("-a * b", "(* (- a) b)");
	EXPECT_SHAPE("-a ^ b", "(- (^ a b))");
	EXPECT_SHAPE("a ^ -b", "(^ a (- b))");
	EXPECT_SHAPE("!a && b", "(&& (! a) b)");
	EXPECT_SHAPE("- -a", "(- (- a))");
	EXPECT_SHAPE("-a[0]", "(- (index a 0))");
	EXPECT_SHAPE("-1", "(- 1)");
	EXPECT_SHAPE("a - -1", "(- a (- 1))");
}
END_TEST

/* <if-else-expr>: lowest precedence, right-associative. */
START_TEST(if_else)
{
	EXPECT_SHAPE("a if c else b", "(if c a b)");
	EXPECT_SHAPE("a + b if c else d", "(if c (+ a b) d)");
	EXPECT_SHAPE("a if c else b + d", "(if c a (+ b d))");
	EXPECT_SHAPE("a if c else b if d else e", "(if c a (if d b e))");
	EXPECT_SHAPE("a if b if c else d else e", "(if (if c b d) a e)");
	EXPECT_SHAPE("a if x in l else b", "(if (in x l) a b)");
	EXPECT_SHAPE("(a if c else b) + 1", "(+ (if c a b) 1)");
}
END_TEST

/* <subscript-expr>: index, or range with optional ends. */
START_TEST(subscripts)
{
	EXPECT_SHAPE("a[i]", "(index a i)");
	EXPECT_SHAPE("a[1:3]", "(slice a 1 3)");
	EXPECT_SHAPE("a[1:]", "(slice a 1 _)");
	EXPECT_SHAPE("a[:2]", "(slice a _ 2)");
	EXPECT_SHAPE("a[:]", "(slice a _ _)");
	EXPECT_SHAPE("a[1][2]", "(index (index a 1) 2)");
	EXPECT_SHAPE("a[i + 1:length_of(a) - 1]",
		     "(slice a (+ i 1) (- (length_of a) 1))");
	EXPECT_SHAPE("f(x)[0]", "(index (call f x) 0)");
	EXPECT_SHAPE("(a + b)[0]", "(index (+ a b) 0)");
	EXPECT_SHAPE("[1, 2][0]", "(index [1 2] 0)");
	EXPECT_SHAPE("'abc'[1:]", "(slice 'abc' 1 _)");
	EXPECT_SHAPE("t[0] + t[1]", "(+ (index t 0) (index t 1))");
}
END_TEST

/* <comprehension-expr>: several iterators, optional filter. */
START_TEST(comprehensions)
{
	EXPECT_SHAPE("[for i in a yield i * 2]",
		     "(for (i a) (yield (* i 2)))");
	EXPECT_SHAPE("[for i in a, j in b yield i + j]",
		     "(for (i a) (j b) (yield (+ i j)))");
	EXPECT_SHAPE("[for i in range_of(a) if i > 0 yield a[i]]",
		     "(for (i (range_of a)) (if (> i 0)) (yield (index a i)))");
	/* the 'if' after an iterable belongs to the comprehension (3.2.3) */
	EXPECT_SHAPE("[for i in a if c yield x if c else y]",
		     "(for (i a) (if c) (yield (if c x y)))");
	EXPECT_SHAPE("[for i in a + b yield i]", "(for (i (+ a b)) (yield i))");
	EXPECT_SHAPE("[for i in (a if c else b) yield i]",
		     "(for (i (if c a b)) (yield i))");
	EXPECT_SHAPE("[for i in a yield [for j in i yield j]]",
		     "(for (i a) (yield (for (j i) (yield j))))");
}
END_TEST

START_TEST(literals_arrays_tuples)
{
	EXPECT_SHAPE("3", "3");
	EXPECT_SHAPE("2.5", "2.5");
	EXPECT_SHAPE("1e3", "1000.0");
	EXPECT_SHAPE("'it\\'s'", "'it\\'s'");
	EXPECT_SHAPE("true", "true");
	EXPECT_SHAPE("false", "false");
	EXPECT_SHAPE("[]", "[]");
	EXPECT_SHAPE("[1, [2, 3], []]", "[1 [2 3] []]");
	EXPECT_SHAPE("(1, 'a')", "(tuple 1 'a')");
	EXPECT_SHAPE("((1, 2), [(3, 4)])", "(tuple (tuple 1 2) [(tuple 3 4)])");
	EXPECT_SHAPE("(a)", "a");
	EXPECT_SHAPE("((a + b))", "(+ a b)");
}
END_TEST

START_TEST(builtins)
{
	EXPECT_SHAPE("shape_of(x)", "(shape_of x)");
	EXPECT_SHAPE("length_of([1])", "(length_of [1])");
	EXPECT_SHAPE("range_of('ab')", "(range_of 'ab')");
	EXPECT_SHAPE("integer(2.5)", "(integer 2.5)");
	EXPECT_SHAPE("scalar(1)", "(scalar 1)");
	EXPECT_SHAPE("logical(0)", "(logical 0)");
	EXPECT_SHAPE("string(1) + 'x'", "(+ (string 1) 'x')");
	/* a builtin call is not a generic argument */
	EXPECT_SHAPE("a < integer(b)", "(< a (integer b))");
}
END_TEST

/* <invocation> ::= <identifier> ["<" <type-name> ">"] "(" <argument-list> ")" */
START_TEST(invocations)
{
	EXPECT_SHAPE("f(x)", "(call f x)");
	EXPECT_SHAPE("f(x, y, size = [3, 3], border = 'constant')",
		     "(call f x y (size= [3 3]) (border= 'constant'))");
	EXPECT_SHAPE("f<scalar>(x)", "(call f<scalar> x)");
	EXPECT_SHAPE("f<integer>(shape = [1])", "(call f<integer> (shape= [1]))");
	EXPECT_SHAPE("f<?>(x)", "(call f<?> x)");
	EXPECT_SHAPE("f<logical>(x) && g<string>(y)",
		     "(&& (call f<logical> x) (call g<string> y))");
	EXPECT_SHAPE("f(g(x), h(y, k = 1))", "(call f (call g x) (call h y (k= 1)))");
	EXPECT_SHAPE("f(a = b + 1)", "(call f (a= (+ b 1)))");
	EXPECT_SHAPE("f(x) + g(x)", "(+ (call f x) (call g x))");
	EXPECT_SHAPE("a < b", "(< a b)");
}
END_TEST

static char *doc_of(const char *text, size_t *ndiags)
{
	TestDoc t;
	tdoc_parse(&t, text, PARSE_DOCUMENT);
	*ndiags = t.diags.len;
	StrBuf b;
	sb_init(&b);
	ast_print_doc(&b, t.res.doc);
	if (t.diags.len)
		sb_printf(&b, "--\n%s", sb_str(&t.rendered));
	char *s = strdup(sb_str(&b));
	sb_free(&b);
	tdoc_free(&t);
	return s;
}

/* <fragment-definition>, <generic-declaration>, <parameter>, <type-spec> */
START_TEST(fragment_declarations)
{
	size_t n;
	char *s = doc_of(
		COMPOSITIONAL
		"fragment f<? = scalar>( x: tensor<?>, s: integer[][] = [[1], []],\n"
		"  t: (integer, scalar)[] = [(1, 2.0)], u: tensor<> ,\n"
		"  v: (tensor<scalar>, tensor<integer>), w: ?, b: logical = true,\n"
		"  n: integer = -1, z: string = 'a' )\n"
		"-> ( y: tensor<?>, ys: tensor<scalar>[] );\n"
		"fragment g<?>( x: tensor<?> ) -> ( y: tensor<?> )\n"
		"{\n  y = x;\n}\n"
		"graph G( x ) -> ( y ) { x = external(shape = [1]); y = g(x); }\n",
		&n);
	ck_assert_msg(n == 0, "%s", s);
	ck_assert_str_eq(
		s,
		"(version 1.0)\n"
		"(extension KHR_enable_fragment_definitions "
		"KHR_enable_operator_expressions)\n"
		"(fragment f<?=scalar> ((x tensor<?>) (s integer[][] = [[1] []]) "
		"(t (integer,scalar)[] = [(tuple 1 2.0)]) (u tensor<>) "
		"(v (tensor<scalar>,tensor<integer>)) (w ?) (b logical = true) "
		"(n integer = (- 1)) (z string = 'a')) -> ((y tensor<?>) "
		"(ys tensor<scalar>[])) ;)\n"
		"(fragment g<?> ((x tensor<?>)) -> ((y tensor<?>))\n"
		"  (= y x))\n"
		"(graph G (x) -> (y)\n"
		"  (= x (call external (shape= [1])))\n"
		"  (= y (call g x)))\n");
	free(s);
}
END_TEST

/* <graph-definition> and <lvalue-expr> forms: identifier, array, tuple
 * with or without parentheses, nested. */
START_TEST(graph_and_lvalues)
{
	size_t n;
	char *s = doc_of("version 1.0;\n"
			 "graph net( a, b ) -> ( c, d )\n{\n"
			 "  a = external(shape = [1]);\n"
			 "  b = external<integer>(shape = [1]);\n"
			 "  c, d = f(a);\n"
			 "  [e, f] = split(a, axis = 0, ratios = [1, 1]);\n"
			 "  (g, [h, i]) = k(a);\n"
			 "  ([j], l) = k(a, p = (1, -2), q = [true, 'x', 1.5]);\n"
			 "  [] = nothing(b);\n"
			 "}\n",
			 &n);
	ck_assert_msg(n == 0, "%s", s);
	ck_assert_str_eq(s,
			 "(version 1.0)\n"
			 "(graph net (a b) -> (c d)\n"
			 "  (= a (call external (shape= [1])))\n"
			 "  (= b (call external<integer> (shape= [1])))\n"
			 "  (= (tuple c d) (call f a))\n"
			 "  (= [e f] (call split a (axis= 0) (ratios= [1 1])))\n"
			 "  (= (tuple g [h i]) (call k a))\n"
			 "  (= (tuple [j] l) (call k a (p= (tuple 1 (- 2))) "
			 "(q= [true 'x' 1.5])))\n"
			 "  (= [] (call nothing b)))\n");
	free(s);
}
END_TEST

START_TEST(extension_lists)
{
	size_t n;
	char *s = doc_of("version 1.0;\n"
			 "extension KHR_enable_fragment_definitions;\n"
			 "extension KHR_enable_operator_expressions vendor_x;\n"
			 "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
			 &n);
	ck_assert_uint_eq(n, 1); /* vendor_x: unknown extension warning */
	ck_assert(strstr(s, "(extension KHR_enable_operator_expressions "
			    "vendor_x)\n"));
	ck_assert(strstr(s, "warning[W0303]: unknown extension 'vendor_x'"));
	free(s);
}
END_TEST

/* Vendor directives (grammar/vendor.c) and what vendors write on an
 * extension line: a registry's name is a vendor extension, a symbol is
 * not an extension at all, an assertion is kept as the line's expression
 * and the parser sees only the names; a line without its ';' is the
 * parser's to report. */
START_TEST(vendor_extension_lines)
{
	TestDoc t;
	tdoc_parse(&t, "version 1.0;\n"
		       "extension tract_registry tract_core;\n"
		       "extension tract_symbol S, N;\n"
		       "extension tract_assert S >= 1 && N > 2;\n"
		       "extension tract_registry tract_pulse;\n"
		       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
		       PARSE_DOCUMENT);
	/* no W0303 for what is recognized; the assertion is an error
	 * (E0307) without --lenient; the comma is E0215 */
	ck_assert_uint_eq(tdoc_count(&t, DIAG_W0303), 0);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_W0304), 0);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_E0215), 1);
	const Diag *d = tdoc_find(&t, DIAG_E0307);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(tdoc_pos(d), "4:24");
	ck_assert_uint_eq(d->loc.len, strlen("S >= 1 && N > 2"));
	const AstDoc *doc = t.res.doc;
	ck_assert_uint_eq(doc->nexts, 5); /* registry, core, symbol, assert, pulse */
	ck_assert_uint_eq(doc->vendor.nsymbols, 2);
	ck_assert_str_eq(doc->vendor.symbols[1]->name, "N");
	ck_assert_uint_eq(doc->vendor.use[VENDOR_ASSERT].count, 1);
	ck_assert_uint_eq(doc->vendor.nextensions, 5);
	ck_assert_str_eq(tdoc_pos(&(Diag){ .loc = doc->vendor.first_line }), "2:1");
	tdoc_free(&t);

	/* any other line: the name before the operator starts the
	 * expression */
	tdoc_parse(&t, "version 1.0;\nextension ACME_a ACME_b x + 1;\n"
		       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
		       PARSE_DOCUMENT);
	d = tdoc_find(&t, DIAG_E0307);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(tdoc_pos(d), "2:25");
	ck_assert_uint_eq(tdoc_count(&t, DIAG_W0303), 2);
	ck_assert_uint_eq(t.res.doc->nexts, 2);
	tdoc_free(&t);

	/* after a comma, the expression still starts at its name; with no
	 * name before it, the parser says what it expected, as before */
	tdoc_parse(&t, "version 1.0;\nextension ACME_a, x + 1;\n"
		       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
		       PARSE_DOCUMENT);
	d = tdoc_find(&t, DIAG_E0307);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(tdoc_pos(d), "2:19");
	ck_assert_uint_eq(d->loc.len, 5);
	tdoc_free(&t);
	tdoc_parse(&t, "version 1.0;\nextension 1 + 2;\nextension ACME_b;\n"
		       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
		       PARSE_DOCUMENT);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_E0307), 0);
	ck_assert_uint_ge(tdoc_count(&t, DIAG_E0201), 1);
	tdoc_free(&t);

	/* without its ';': a syntax error as before */
	tdoc_parse(&t, "version 1.0;\nextension ACME_a x + 1\n"
		       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
		       PARSE_DOCUMENT);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_E0307), 0);
	ck_assert_uint_ge(tdoc_count(&t, DIAG_E0202) + tdoc_count(&t, DIAG_E0201), 1);
	tdoc_free(&t);
}
END_TEST

/* A document parses as the spec's flat grammar (A.1) when it uses no
 * extension; everything here is flat. */
START_TEST(flat_document_needs_no_extension)
{
	TestDoc t;
	tdoc_parse(&t,
		   "version 1.0;\n"
		   "graph G( input ) -> ( output )\n{\n"
		   "  input = external<scalar>(shape = [1, 3]);\n"
		   "  w = constant(shape = [1, 3], value = [-1.0, 0.5, -2]);\n"
		   "  p = pad(input, padding = [(0, 0), (1, -1)], border = 'constant');\n"
		   "  output = f(p, flags = [true, false], t = ('a', 1));\n"
		   "}\n",
		   PARSE_DOCUMENT);
	ck_assert_msg(t.diags.len == 0, "%s", sb_str(&t.rendered));
	ck_assert(!t.res.fragment_defs);
	ck_assert(!t.res.operator_exprs);
	ck_assert(t.res.syntax_ok);
	tdoc_free(&t);
}
END_TEST

/* Each construct beyond A.1 needs KHR_enable_operator_expressions. */
START_TEST(operator_expressions_are_gated)
{
	static const struct {
		const char *stmt, *what, *pos;
	} cases[] = {
		{ "y = x + 1;", "the operator '+'", "4:7" },
		{ "y = f(-x);", "the operator '-'", "4:9" },
		{ "y = f(x, s = - 1);", "the operator '-'", "4:16" },
		{ "y = f(g(x));", "the invocation of 'g' inside an expression", "4:9" },
		{ "y = f(x) if true else x;", "an if-else expression", "4:7" },
		{ "y = f(x, s = [for i in [1] yield i]);",
		  "an array comprehension", "4:16" },
		{ "y = f(x, s = a[0]);", "a subscript", "4:16" },
		{ "y = f(x, s = length_of([1]));",
		  "the built-in function 'length_of'", "4:16" },
		{ "y = f((x));", "a parenthesized expression", "4:9" },
		{ "y = x;", "an identifier as the right-hand side", "4:7" },
		/* at the assignment: before the type error at y (E0709) */
		{ "y = [x];", "an array as the right-hand side", "4:3" },
		{ "y = (f(x));", "a parenthesized expression", "4:7" },
		{ "y = f(x, s = [(1, 2 * 3)]);", "the operator '*'", "4:21" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
			 "x = external(shape = [1]);\n  %s\n}\n",
			 cases[i].stmt);
		/* the statement is on line 5; the table gives its column */
		TestDoc t;
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		ck_assert_msg(t.diags.len == 1, "%s:\n%s", cases[i].stmt,
			      sb_str(&t.rendered));
		const Diag *d = t.diags.items[0];
		ck_assert_int_eq(d->code, DIAG_E0302);
		ck_assert_msg(strstr(d->msg, cases[i].what), "%s: %s",
			      cases[i].stmt, d->msg);
		ck_assert(strstr(d->msg, "KHR_enable_operator_expressions"));
		char want[16];
		snprintf(want, sizeof(want), "5:%s", strchr(cases[i].pos, ':') + 1);
		ck_assert_str_eq(tdoc_pos(d), want);
		tdoc_free(&t);

		/* with the extension, the same statement is accepted */
		snprintf(text, sizeof(text),
			 "version 1.0;\nextension KHR_enable_operator_expressions;\n"
			 "graph G( x ) -> ( y )\n{\n"
			 "x = external(shape = [1]);\n  %s\n}\n",
			 cases[i].stmt);
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		ck_assert_msg(t.diags.len == 0, "%s", sb_str(&t.rendered));
		tdoc_free(&t);
	}
}
END_TEST

START_TEST(fragments_are_gated)
{
	TestDoc t;
	tdoc_parse(&t,
		   "version 1.0;\nextension KHR_enable_operator_expressions;\n"
		   "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
		   "fragment g( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
		   "graph G( x ) -> ( y ) { x = external(shape = [1]); y = f(x); }\n",
		   PARSE_DOCUMENT);
	/* reported once, at the first fragment */
	ck_assert_uint_eq(t.diags.len, 1);
	ck_assert_int_eq(t.diags.items[0]->code, DIAG_E0301);
	ck_assert_str_eq(tdoc_pos(t.diags.items[0]), "3:1");
	tdoc_free(&t);
}
END_TEST

/* Only identifiers, arrays and tuples of them are left-hand sides. */
START_TEST(invalid_left_hand_sides)
{
	static const struct {
		const char *lhs, *what;
	} cases[] = {
		{ "1", "a literal" },
		{ "'s'", "a literal" },
		{ "f(x)", "an invocation" },
		{ "a[0]", "a subscript" },
		{ "a + b", "an operator expression" },
		{ "(a)", "a parenthesized expression" },
		{ "[a, 1]", "a literal" },
		{ "a, b + c", "an operator expression" },
		{ "((a, b))", "a parenthesized tuple" },
		{ "a if c else b", "an if-else expression" },
		{ "length_of(a)", "a built-in function call" },
		{ "[for i in a yield i]", "an array comprehension" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 COMPOSITIONAL "graph G( x ) -> ( y )\n{\n"
				       "  %s = g(x);\n}\n",
			 cases[i].lhs);
		TestDoc t;
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		const Diag *d = tdoc_find(&t, DIAG_E0205);
		ck_assert_msg(d != NULL, "%s:\n%s", cases[i].lhs,
			      sb_str(&t.rendered));
		ck_assert_uint_eq(t.diags.nerrors, 1);
		ck_assert_msg(strstr(d->msg, cases[i].what), "%s: %s",
			      cases[i].lhs, d->msg);
		tdoc_free(&t);
	}
}
END_TEST

/* -9223372036854775808 is an integer literal; its magnitude alone is out
 * of range (spec 3.1: in flat syntax the minus sign belongs to the
 * literal). */
START_TEST(smallest_integer)
{
	EXPECT_SHAPE("-9223372036854775808", "-9223372036854775808");
	EXPECT_SHAPE("[1, -9223372036854775808]", "[1 -9223372036854775808]");
	static const char *bad[] = { "9223372036854775808",
				     "- 9223372036854775808",
				     "-(9223372036854775808)",
				     "1 - 9223372036854775808" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 COMPOSITIONAL "graph G( x ) -> ( y )\n{\n  y = %s;\n}\n",
			 bad[i]);
		TestDoc t;
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		ck_assert_msg(tdoc_count(&t, DIAG_E0108) == 1, "%s:\n%s", bad[i],
			      sb_str(&t.rendered));
		tdoc_free(&t);
	}
}
END_TEST

START_TEST(default_values_are_literals)
{
	static const char *good[] = { "1", "-1", "-2.5", "'a'", "true", "[]",
				      "[1, -2]", "[(1, 'a')]", "(1, [2.0])" };
	static const char *bad[] = { "1 + 1", "x", "[a]", "f(1)", "(1)",
				     "-(1)", "!true", "length_of([])" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 COMPOSITIONAL "fragment f( x: tensor<scalar>, a: ? = %s )"
				       " -> ( y: tensor<scalar> );\n"
				       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
			 good[i]);
		TestDoc t;
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		ck_assert_msg(t.diags.len == 0, "%s", sb_str(&t.rendered));
		tdoc_free(&t);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 COMPOSITIONAL "fragment f( x: tensor<scalar>, a: ? = %s )"
				       " -> ( y: tensor<scalar> );\n"
				       "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n",
			 bad[i]);
		TestDoc t;
		tdoc_parse(&t, text, PARSE_DOCUMENT);
		ck_assert_msg(tdoc_count(&t, DIAG_E0206) == 1, "%s:\n%s",
			      bad[i], sb_str(&t.rendered));
		tdoc_free(&t);
	}
}
END_TEST

/* <document> ::= <version> <extension>* <fragment-definition>* <graph-definition> */
START_TEST(document_structure)
{
	static const struct {
		const char *text;
		DiagCode code;
		const char *pos;
	} cases[] = {
		{ "graph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0209, "1:1" },
		{ "version 1.0;", DIAG_E0213, "1:13" },
		{ "version 1;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0207, "1:9" },
		{ "version 1.0e0;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0207, "1:9" },
		{ "version 2.0;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0208, "1:9" },
		{ "version 1.0;\nversion 1.0;\n"
		  "graph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0210, "2:1" },
		{ "version 1.0;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }\n"
		  "graph H( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0214, "3:1" },
		{ "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
		  "graph G( x ) -> ( x ) { x = external(shape = [1]); }\n"
		  "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> );",
		  DIAG_E0212, "4:1" },
		{ "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
		  "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
		  "extension KHR_enable_operator_expressions;\n"
		  "graph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0211, "4:1" },
		{ "version 1.0;\nextension KHR_enable_fragment_definitions, "
		  "KHR_enable_operator_expressions;\n"
		  "graph G( x ) -> ( x ) { x = external(shape = [1]); }",
		  DIAG_E0215, "2:42" },
		{ "# nothing but a comment\n", DIAG_E0217, "1:1" },
		{ "", DIAG_E0217, "1:1" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TestDoc t;
		tdoc_parse(&t, cases[i].text, PARSE_DOCUMENT);
		const Diag *d = tdoc_find(&t, cases[i].code);
		ck_assert_msg(d != NULL, "case %zu: want %s, got:\n%s", i,
			      diag_code_name(cases[i].code),
			      sb_str(&t.rendered));
		ck_assert_uint_eq(t.diags.nerrors, 1);
		ck_assert_msg(strcmp(tdoc_pos(d), cases[i].pos) == 0,
			      "case %zu: at %s, want %s", i, tdoc_pos(d),
			      cases[i].pos);
		tdoc_free(&t);
	}
}
END_TEST

START_TEST(version_warnings)
{
	TestDoc t;
	tdoc_parse(&t,
		   "version 1.1;\n"
		   "extension KHR_enable_operator_expressions "
		   "KHR_enable_operator_expressions;\n"
		   "graph G( x ) -> ( x ) { x = external(shape = [1]); }",
		   PARSE_DOCUMENT);
	ck_assert_uint_eq(t.diags.nerrors, 0);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_W0305), 1);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_W0304), 1);
	ck_assert_int_eq(t.res.doc->version_major, 1);
	ck_assert_int_eq(t.res.doc->version_minor, 1);
	tdoc_free(&t);
}
END_TEST

/* The standard library is parsed in fragment mode: no version, all
 * extensions on, anything but fragments rejected. */
START_TEST(fragment_mode)
{
	TestDoc t;
	tdoc_parse(&t,
		   "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		   "{ y = x + 1.0 if true else x; }\n"
		   "fragment g( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n",
		   PARSE_FRAGMENTS);
	ck_assert_msg(t.diags.len == 0, "%s", sb_str(&t.rendered));
	ck_assert_uint_eq(t.res.doc->nfragments, 2);
	tdoc_free(&t);
	tdoc_parse(&t, "version 1.0;\n", PARSE_FRAGMENTS);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_E0201), 1);
	tdoc_free(&t);
}
END_TEST

/* Nesting beyond the limit is an error, not a stack overflow, whether it
 * trips the AST depth check or bison's own stack. */
START_TEST(deep_nesting)
{
	static const char *open[] = { "[", "(", "-", "f(", "a + (" };
	static const char *close[] = { "]", ")", "", ")", ")" };
	for (size_t k = 0; k < 5; k++) {
		size_t depth = k == 1 ? 20000 : 1500;
		StrBuf b;
		sb_init(&b);
		sb_puts(&b, COMPOSITIONAL "graph G( x ) -> ( y ) { y = ");
		for (size_t i = 0; i < depth; i++)
			sb_puts(&b, open[k]);
		sb_puts(&b, "1");
		for (size_t i = 0; i < depth; i++)
			sb_puts(&b, close[k]);
		sb_puts(&b, "; }\n");
		TestDoc t;
		tdoc_parse(&t, sb_str(&b), PARSE_DOCUMENT);
		ck_assert_msg(tdoc_count(&t, DIAG_E0216) == 1, "case %zu:\n%s",
			      k, sb_str(&t.rendered));
		tdoc_free(&t);
		sb_free(&b);
	}
	/* type specifications nest too: integer[][]... */
	{
		StrBuf tb;
		sb_init(&tb);
		sb_puts(&tb, COMPOSITIONAL "fragment f( x: integer");
		for (size_t i = 0; i < 5000; i++)
			sb_puts(&tb, "[]");
		sb_puts(&tb, " ) -> ( y: tensor<scalar> );\n"
			     "graph G( x ) -> ( y ) { y = f(x); }\n");
		TestDoc tt;
		tdoc_parse(&tt, sb_str(&tb), PARSE_DOCUMENT);
		ck_assert_uint_eq(tdoc_count(&tt, DIAG_E0216), 1);
		tdoc_free(&tt);
		sb_free(&tb);
	}
	/* long flat chains are fine: left-associative operators do not
	 * nest the parser stack... */
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, COMPOSITIONAL "graph G( x ) -> ( y ) { y = [");
	for (size_t i = 0; i < 100000; i++)
		sb_puts(&b, "1, ");
	sb_puts(&b, "1]; }\n");
	TestDoc t;
	tdoc_parse(&t, sb_str(&b), PARSE_DOCUMENT);
	ck_assert_msg(t.diags.len == 0, "%s", sb_str(&t.rendered));
	tdoc_free(&t);
	sb_free(&b);
	/* ...but a chain of 2000 additions is 2000 levels deep */
	sb_init(&b);
	sb_puts(&b, COMPOSITIONAL "graph G( x ) -> ( y ) { y = 1");
	for (size_t i = 0; i < 2000; i++)
		sb_puts(&b, " + 1");
	sb_puts(&b, "; }\n");
	tdoc_parse(&t, sb_str(&b), PARSE_DOCUMENT);
	ck_assert_uint_eq(tdoc_count(&t, DIAG_E0216), 1);
	tdoc_free(&t);
	sb_free(&b);
}
END_TEST

/* The nesting limit is an option (ParseOptions.max_nesting, the tools'
 * --max-nesting): 5 levels accept [[[[1]]]] in a call and refuse one
 * more bracket, at the bracket that goes past the limit; values above
 * PARSE_MAX_NESTING count as that bound. */
START_TEST(nesting_limit_option)
{
	const char *ok = "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external(shape = [1]);\n  y = constant(shape = [1], value = [[[1.0]]]);\n}\n";
	const char *deep = "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external(shape = [1]);\n  y = constant(shape = [1], value = [[[[[1.0]]]]]);\n}\n";
	ParseOptions po = { .max_nesting = 5 };
	for (int i = 0; i < 2; i++) {
		const char *text = i ? deep : ok;
		Arena a;
		Interner in;
		DiagList dl;
		arena_init(&a);
		intern_init(&in, &a);
		diag_list_init(&dl, 0);
		SourceFile *f = source_from_memory("t.nnef", text, strlen(text));
		parse_document(f, PARSE_DOCUMENT, &po, &a, &in, &dl);
		if (!i) {
			ck_assert_uint_eq(dl.len, 0);
		} else {
			ck_assert_uint_eq(dl.len, 1);
			ck_assert_int_eq(dl.items[0]->code, DIAG_E0216);
			ck_assert_str_eq(dl.items[0]->msg, "nested too deeply (the limit is 5 levels; raise it with --max-nesting)");
			ck_assert_str_eq(tdoc_pos(dl.items[0]), "5:41");
		}
		source_free(f);
		diag_list_free(&dl);
		intern_free(&in);
		arena_free(&a);
	}
}
END_TEST

/* Error recovery: errors in several statements are all reported, in
 * order, and the correct statements around them are kept. */
START_TEST(recovery_keeps_going)
{
	TestDoc t;
	tdoc_parse(&t,
		   "version 1.0;\n"
		   "graph G( x ) -> ( y )\n{\n"
		   "  x = external(shape = [1]);\n"
		   "  a = f(x;\n"
		   "  b = f(x);\n"
		   "  c = f(x) d = g(x);\n"
		   "  in = f(x);\n"
		   "  y = f(x, [1, 2);\n"
		   "  z = f(b);\n"
		   "}\n",
		   PARSE_DOCUMENT);
	ck_assert_uint_eq(t.diags.nerrors, 4);
	ck_assert_int_eq(t.diags.items[0]->code, DIAG_E0203);
	ck_assert_str_eq(tdoc_pos(t.diags.items[0]), "5:10");
	ck_assert_int_eq(t.diags.items[1]->code, DIAG_E0202);
	ck_assert_str_eq(tdoc_pos(t.diags.items[1]), "7:11");
	ck_assert_int_eq(t.diags.items[2]->code, DIAG_E0204);
	ck_assert_str_eq(tdoc_pos(t.diags.items[2]), "8:3");
	ck_assert_int_eq(t.diags.items[3]->code, DIAG_E0203);
	ck_assert_str_eq(tdoc_pos(t.diags.items[3]), "9:17");
	ck_assert(strstr(t.diags.items[3]->msg, "to close '[' at 9:12"));
	/* x, b, d (after the missing ';') and z survive */
	ck_assert_uint_eq(t.res.doc->graph->body->nstmts, 4);
	ck_assert(!t.res.syntax_ok);
	tdoc_free(&t);
}
END_TEST

START_TEST(max_errors_stops_parsing)
{
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "version 1.0;\ngraph G( x ) -> ( y )\n{\n");
	for (int i = 0; i < 100; i++)
		sb_puts(&b, "  a = f(x;\n");
	sb_puts(&b, "}\n");
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	DiagList dl;
	diag_list_init(&dl, 5);
	SourceFile *f = source_from_memory("t", sb_str(&b), b.len);
	parse_document(f, PARSE_DOCUMENT, NULL, &a, &in, &dl);
	ck_assert_uint_eq(dl.nerrors, 5);
	ck_assert(diag_limit_reached(&dl));
	source_free(f);
	diag_list_free(&dl);
	intern_free(&in);
	arena_free(&a);
	sb_free(&b);
}
END_TEST

/* A deterministic stream of random and mutated inputs: the parser must
 * never crash, hang or leak (run under the sanitizers by make check
 * SANITIZE=...), and every input either parses or gets a diagnostic. */
/* ---- plain assignments read without the tables (plain_statements.c) -- */

/* Everything of a node: kind, operator, parentheses, depth, location,
 * value, and its children the same way. */
static void dump_expr(StrBuf *out, const AstExpr *e);

static void dump_child(const AstExpr *c, void *ctx)
{
	dump_expr(ctx, c);
}

static void dump_expr(StrBuf *out, const AstExpr *e)
{
	sb_printf(out, "(%d op%d p%d d%u @%u+%u", e->kind, e->op, e->parens,
		  e->depth, e->loc.off, e->loc.len);
	switch (e->kind) {
	case AST_IDENT:
		sb_printf(out, " %s", e->u.ident);
		break;
	case AST_INT:
		sb_printf(out, " %lld", (long long)e->u.ival);
		break;
	case AST_REAL:
		sb_printf(out, " %a", e->u.rval);
		break;
	case AST_STRING:
		sb_printf(out, " '%.*s'", (int)e->u.str.len, e->u.str.s);
		break;
	case AST_BOOL:
		sb_printf(out, " %d", e->u.bval);
		break;
	case AST_INVOKE:
		sb_printf(out, " %s g%d:%d", e->u.inv.name, e->u.inv.has_generic,
			  e->u.inv.generic);
		for (size_t i = 0; i < e->u.inv.nargs; i++) {
			const AstArg *a = &e->u.inv.args[i];
			sb_printf(out, " [%s@%u+%u] ", a->name ? a->name : "",
				  a->name_loc.off, a->name_loc.len);
			dump_expr(out, a->value);
		}
		break;
	default:
		ast_visit_children(e, dump_child, out);
		break;
	}
	sb_putc(out, ')');
}

static bool stream_begin(void *ctx, const ParseResult *so_far)
{
	(void)ctx;
	(void)so_far;
	return true;
}

static bool stream_stmt(void *ctx, AstAssign *s, Arena *scratch)
{
	(void)scratch;
	sb_printf(ctx, "@%u+%u ", s->loc.off, s->loc.len);
	dump_expr(ctx, s->lhs);
	dump_expr(ctx, s->rhs);
	sb_putc(ctx, '\n');
	return true;
}

/* Every statement of text as the streamed parse hands it over, read with
 * or without the fast reader, in a dialect; *fast: how many it read. */
static void stream_dump_in(const char *text, size_t len, Dialect dialect,
			   bool tables_only, StrBuf *out, size_t *fast)
{
	Arena arena;
	Interner in;
	DiagList diags;
	arena_init(&arena);
	intern_init(&in, &arena);
	diag_list_init(&diags, 100);
	SourceFile *src = source_from_memory("test.nnef", text, len);
	ParseOptions po = { .dialect = dialect, .tables_only = tables_only };
	ParseStream stream = { stream_begin, stream_stmt, out, NULL };
	ParseResult res = parse_document_streamed(src, &po, &arena, &in,
						  &diags, &stream);
	sb_printf(out, "streamed %d, %zu diagnostics\n", res.streamed,
		  diag_count(&diags));
	*fast = res.fast_stmts;
	diag_list_free(&diags);
	source_free(src);
	intern_free(&in);
	arena_free(&arena);
}

/* Both readings of text in a dialect hand over the same statements;
 * returns how many the fast reader read (-1 when they differ). */
static long both_readings_in(const char *name, const char *text,
			     size_t len, Dialect dialect)
{
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	size_t fast = 0, none = 0;
	stream_dump_in(text, len, dialect, true, &a, &none);
	stream_dump_in(text, len, dialect, false, &b, &fast);
	bool same = none == 0 &&
		    test_same_text(name, "the readings", "tables", &a, "fast", &b);
	sb_free(&a);
	sb_free(&b);
	return same ? (long)fast : -1;
}

static long both_readings(const char *name, const char *text, size_t len)
{
	return both_readings_in(name, text, len, DIALECT_KHRONOS);
}

static bool file_both_readings(const char *path, void *ctx)
{
	size_t *fast = ctx;
	char full[4200];
	size_t n = strlen(path);
	snprintf(full, sizeof(full), "%s%s", path,
		 path[n - 1] == '/' ? "graph.nnef" : "");
	FILE *f = fopen(full, "rb");
	if (!f)
		return true; /* a folder without a graph: not this test's */
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	long k = both_readings(full, buf, len);
	if (k < 0)
		return false;
	*fast += (size_t)k;
	return true;
}

START_TEST(fast_reader_builds_what_the_tables_build)
{
	/* what it reads, and what it leaves to the tables (operators, a
	 * subscript, a comprehension, an unparenthesized tuple, a call in
	 * a call), interleaved */
	const char *text = COMPOSITIONAL
		"graph G( x ) -> ( y, z )\n{\n"
		"  x = external<scalar>(shape = [1, 2, 3]);\n"
		"  a = conv(x, b, padding = [(0, 1), (-1, 2)], border = 'constant');\n"
		"  [b, c] = split(x, axis = -2, ratios = [1, 1]);\n"
		"  (d, e) = f<scalar>(1.5e3, -2.0, true, false, \"s\", []);\n"
		"  g = (x);  h = ((1, 2), [[3]]);\n"
		"  k = x + 1;\n  m = -x;\n  n = x[0];\n"
		"  p = [for i in [1] yield i];\n"
		"  q, r = s;\n  t = add(relu(x), x);\n"
		"  y = u<integer>(-(3), v = 'w');\n  z = x;\n"
		/* lists past the reader's buffers of 8 items */
		"  w = f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, a = [1, 2, 3, 4, 5, 6, 7, 8, 9, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)]);\n}\n";
	long fast = both_readings("text", text, strlen(text));
	ck_assert_int_eq(fast, 11);

	/* every golden document, the examples and the corpus */
	static const char *const dirs[] = { "syntax", "sema", "flatten",
					    "shapes", "run", "nets", "lenient" };
	char dir[4096];
	size_t n = 0, bad = 0, nfast = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/golden/%s", test_srcdir(), dirs[i]);
		n += test_each_entry(dir, ".nnef", file_both_readings, &nfast, &bad);
	}
	snprintf(dir, sizeof(dir), "%s/../examples", test_srcdir());
	n += test_each_entry(dir, "/", file_both_readings, &nfast, &bad);
	const char *corpus = test_corpus();
	if (corpus) {
		snprintf(dir, sizeof(dir), "%s/nnef-tools-examples", corpus);
		n += test_each_entry(dir, ".nnef", file_both_readings, &nfast, &bad);
		snprintf(dir, sizeof(dir), "%s/openvx-cts-nnef", corpus);
		n += test_each_entry(dir, "/", file_both_readings, &nfast, &bad);
	}
	ck_assert_uint_gt(n, 200);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_gt(nfast, 1000);
}
END_TEST

/* The tokens of lexer/tokens.def, with the reader that may read them. */
enum { TABLES = 0, PLAIN = 1 };

static const struct {
	TokKind kind;
	const char *spelling;
	bool plain;
} token_def[] = {
#define TOKEN(kind, spelling, desc, reader) { kind, spelling, reader },
#include "lexer/tokens.def"
#undef TOKEN
};

/* A statement holding a token the fast reader does not know (tokens.def
 * marks it TABLES: every keyword and operator of today not in flat
 * syntax, and any token added since) is left to the parser tables,
 * which read it as they always do; so is every statement in tract's
 * dialect, and an identifier written i"...". */
START_TEST(fast_reader_declines_what_it_does_not_know)
{
	char text[512];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(token_def) / sizeof(token_def[0]); i++) {
		if (token_def[i].plain || !token_def[i].spelling)
			continue;
		snprintf(text, sizeof(text), "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1]);\n  y = f(x, %s x);\n  z = f(x);\n}\n", token_def[i].spelling);
		/* the first statement only (a diagnostic ends the fast reads) */
		ck_assert_int_eq(both_readings(token_def[i].spelling, text, strlen(text)), 1);
		n++;
	}
	ck_assert_uint_gt(n, 25); /* keywords and operators */

	const char *quoted = "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1]);\n  y = f(i\"x\");\n}\n";
	ck_assert_int_eq(both_readings("quoted", quoted, strlen(quoted)), 1);

	/* tract's dialect: none read fast; the unary minus is reported (tract
	 * does not evaluate it), which a fast read would have let through */
	const char *tract = "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1]);\n  y = f(-x);\n}\n";
	ck_assert_int_eq(both_readings_in("tract", tract, strlen(tract), DIALECT_TRACT), 0);
	StrBuf out;
	sb_init(&out);
	size_t fast = 0;
	stream_dump_in(tract, strlen(tract), DIALECT_TRACT, false, &out, &fast);
	ck_assert_ptr_nonnull(strstr(sb_str(&out), "streamed 0, 1 diagnostics"));
	sb_free(&out);
	ck_assert_int_eq(both_readings("khronos", tract, strlen(tract)), 2);
}
END_TEST

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

START_TEST(random_inputs_never_crash)
{
	static const char *seed =
		COMPOSITIONAL
		"fragment f<? = scalar>( x: tensor<?>, s: integer[] = [1, -2] )\n"
		"-> ( y: tensor<?> )\n{\n"
		"  y = x[0] + g(x, k = [for i in s if i > 0 yield i ^ 2]) "
		"if length_of(s) > 0 else 'a\\'b';\n}\n"
		"graph G( x ) -> ( y ) { x = external(shape = [1]); "
		"[a, (b, c)] = f<scalar>(x); y = a; }\n";
	static const char alphabet[] =
		"abcxyz019_.'\"\\#()[]{}<>=!&|+-*/^:;,? \t\n\r\x01\xc3";
	size_t seedlen = strlen(seed);
	char buf[1024];
	for (int round = 0; round < 3000; round++) {
		size_t n;
		if (round % 3 == 0) {
			/* random bytes from the alphabet */
			n = rng() % 200;
			for (size_t i = 0; i < n; i++)
				buf[i] = alphabet[rng() % (sizeof(alphabet) - 1)];
		} else {
			/* the seed with a few bytes changed, cut or doubled */
			memcpy(buf, seed, seedlen);
			n = seedlen;
			int edits = 1 + (int)(rng() % 4);
			for (int e = 0; e < edits; e++) {
				size_t at = rng() % n;
				switch (rng() % 3) {
				case 0:
					buf[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
					break;
				case 1:
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
					break;
				default:
					if (n + 1 < sizeof(buf)) {
						memmove(buf + at + 1, buf + at, n - at);
						n++;
					}
				}
			}
		}
		Arena a;
		arena_init(&a);
		Interner in;
		intern_init(&in, &a);
		DiagList dl;
		diag_list_init(&dl, 20);
		SourceFile *f = source_from_memory("fuzz", buf, n);
		ParseResult r = parse_document(f, PARSE_DOCUMENT, NULL, &a, &in, &dl);
		ck_assert_ptr_nonnull(r.doc);
		if (!r.syntax_ok)
			ck_assert_uint_gt(dl.nerrors, 0);
		StrBuf out;
		sb_init(&out);
		DiagRenderOpts o = { .show_warnings = true, .show_source = true };
		diag_render_all(&dl, &out, &o);
		sb_free(&out);
		source_free(f);
		diag_list_free(&dl);
		intern_free(&in);
		arena_free(&a);
	}
}
END_TEST

Suite *grammar_suite(void)
{
	Suite *s = suite_create("grammar");
	TCase *tc = tcase_create("expressions");
	tcase_add_test(tc, precedence_levels);
	tcase_add_test(tc, associativity);
	tcase_add_test(tc, unary_operators);
	tcase_add_test(tc, if_else);
	tcase_add_test(tc, subscripts);
	tcase_add_test(tc, comprehensions);
	tcase_add_test(tc, literals_arrays_tuples);
	tcase_add_test(tc, smallest_integer);
	tcase_add_test(tc, builtins);
	tcase_add_test(tc, invocations);
	suite_add_tcase(s, tc);
	tc = tcase_create("definitions");
	tcase_add_test(tc, fragment_declarations);
	tcase_add_test(tc, graph_and_lvalues);
	tcase_add_test(tc, extension_lists);
	tcase_add_test(tc, vendor_extension_lines);
	tcase_add_test(tc, invalid_left_hand_sides);
	tcase_add_test(tc, default_values_are_literals);
	tcase_add_test(tc, fragment_mode);
	suite_add_tcase(s, tc);
	tc = tcase_create("document");
	tcase_add_test(tc, flat_document_needs_no_extension);
	tcase_add_test(tc, operator_expressions_are_gated);
	tcase_add_test(tc, fragments_are_gated);
	tcase_add_test(tc, document_structure);
	tcase_add_test(tc, version_warnings);
	suite_add_tcase(s, tc);
	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, deep_nesting);
	tcase_add_test(tc, nesting_limit_option);
	tcase_add_test(tc, recovery_keeps_going);
	tcase_add_test(tc, max_errors_stops_parsing);
	tcase_add_test(tc, random_inputs_never_crash);
	TEST_ADD_CORPUS_PART(tc, fast_reader_builds_what_the_tables_build);
	tcase_add_test(tc, fast_reader_declines_what_it_does_not_know);
	suite_add_tcase(s, tc);
	return s;
}
