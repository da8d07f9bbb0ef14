/*
 * check_flatten.c - compile-time values and the evaluator (spec 3.3.3):
 * deep equality and literal printing, casts and arithmetic as the flat
 * output shows them, laziness, linear recursion, the depth limits, and
 * the determinism of names. Exact outputs of whole documents are in
 * testsuite/golden/flatten/.
 */
#include "model/model.h"
#include "flatten/flatten_internal.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER                                                                \
	"version 1.0;\n"                                                      \
	"extension KHR_enable_fragment_definitions "                          \
	"KHR_enable_operator_expressions;\n"

/* Flattens text; returns the flat document (malloc'd) or NULL, and the
 * rendered diagnostics in *diags (malloc'd). */
static char *flatten_text(const char *text, size_t max_depth, char **diags)
{
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	opt.flatten.max_depth = max_depth;
	model_check_text(&m, "t.nnef", text, strlen(text), &opt);
	StrBuf b;
	sb_init(&b);
	model_render_diags(&m, "test", &b, false, true);
	*diags = strdup(sb_str(&b));
	char *out = NULL;
	if (m.flat) {
		sb_clear(&b);
		flat_print(&b, m.flat, false);
		out = strdup(sb_str(&b));
	}
	sb_free(&b);
	model_free(&m);
	return out;
}

/* The flat form of "y = op(x, value = <attr>);" for an attribute
 * expression: its evaluated value as printed. */
static char *eval_attr(const char *expr)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 HEADER "graph G( x ) -> ( y )\n{\n"
			"  x = external(shape = [1]);\n"
			"  y = constant(shape = [1], value = [%s]);\n}\n",
		 expr);
	char *diags;
	char *out = flatten_text(text, 0, &diags);
	ck_assert_msg(out != NULL, "%s:\n%s", expr, diags);
	free(diags);
	const char *v = strstr(out, "value = [");
	ck_assert_ptr_nonnull(v);
	v += 9;
	const char *end = strstr(v, "]);");
	char *r = strndup(v, (size_t)(end - v));
	free(out);
	return r;
}

#define EXPECT_VALUE(expr, want)                                        \
	do {                                                            \
		char *got_ = eval_attr(expr);                           \
		ck_assert_msg(strcmp(got_, (want)) == 0,                 \
			      "%s evaluated to %s, want %s", (expr), got_,  \
			      (want));                                    \
		free(got_);                                             \
	} while (0)

START_TEST(value_equality_and_printing)
{
	Value i1 = { .kind = VAL_INT, .u.i = 1 }, i2 = { .kind = VAL_INT, .u.i = 1 };
	Value s1 = { .kind = VAL_SCALAR, .u.s = 1.0 };
	ck_assert(value_equal(&i1, &i2));
	ck_assert(!value_equal(&i1, &s1)); /* no implicit casts */
	const Value *items[2] = { &i1, &s1 };
	Value t1 = { .kind = VAL_TUPLE, .n = 2, .u.items = items };
	Value t2 = t1;
	ck_assert(value_equal(&t1, &t2));
	Value str = { .kind = VAL_STR, .n = 5, .u.str = "it's\\" };
	StrBuf b;
	sb_init(&b);
	flat_print_value(&b, &t1);
	sb_putc(&b, ' ');
	flat_print_value(&b, &str);
	ck_assert_str_eq(sb_str(&b), "(1, 1.0) 'it\\'s\\\\'");
	sb_free(&b);
}
END_TEST

/* Arithmetic, casts and built-ins as spec 3.3.3 defines them. */
START_TEST(scalar_values)
{
	EXPECT_VALUE("1.5 * 2.0", "3.0");
	EXPECT_VALUE("scalar(7)", "7.0");
	EXPECT_VALUE("scalar(true)", "1.0");
	EXPECT_VALUE("scalar('2.5e1')", "25.0");
	EXPECT_VALUE("scalar('-3')", "-3.0");
	EXPECT_VALUE("2.0 ^ 10.0", "1024.0");
	EXPECT_VALUE("-0.5", "-0.5");
	EXPECT_VALUE("1.0 if 'a' + 'b' == 'ab' else 2.0", "1.0");
	/* arrays compare deeply with 'in' ('==' takes primitives) */
	EXPECT_VALUE("1.0 if [1, 2] + [3] in [[1, 2, 3]] else 2.0", "1.0");
	EXPECT_VALUE("1.0 if [1, 2] in [[1, 2, 3]] else 2.0", "2.0");
}
END_TEST

START_TEST(integer_values)
{
	char text[512];
	static const struct {
		const char *expr, *want;
	} cases[] = {
		/* "truncated to the closest smaller integer" */
		{ "integer(-2.5)", "-3" },
		{ "integer(2.5)", "2" },
		{ "integer(-2.0)", "-2" },
		{ "integer('42')", "42" },
		{ "integer(true)", "1" },
		{ "7 / 2", "3" },
		{ "-7 / 2", "-3" },
		{ "2 ^ 10", "1024" },
		{ "length_of([1, 2, 3])", "3" },
		{ "length_of('abcd')", "4" },
		{ "[10, 20, 30][1]", "20" },
		{ "length_of([1, 2][2:2])", "0" },
		{ "length_of([1, 2, 3][2:1])", "0" },
		{ "length_of([1, 2] * 3)", "6" },
		{ "length_of('ab' * 2)", "4" },
		{ "length_of('abc'[1:])", "2" },
		{ "(5, 6)[1]", "6" },
		{ "1 if 3 in [1, 2, 3] else 0", "1" },
		{ "1 if [1, 2] in [[1, 2], [3]] else 0", "1" },
		{ "1 if logical('') else 0", "0" },
		{ "1 if logical(0.5) else 0", "1" },
		{ "length_of(string(12) + string(1.5) + string(true))", "9" },
		{ "range_of([7, 8, 9])[2]", "2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 HEADER "graph G( x ) -> ( y )\n{\n"
				"  x = external(shape = [1]);\n"
				"  y = constant<integer>(shape = [1], value = [%s]);\n}\n",
			 cases[i].expr);
		char *diags;
		char *out = flatten_text(text, 0, &diags);
		ck_assert_msg(out != NULL, "%s:\n%s", cases[i].expr, diags);
		char want[128];
		snprintf(want, sizeof(want), "value = [%s]", cases[i].want);
		ck_assert_msg(strstr(out, want), "%s: got\n%s", cases[i].expr, out);
		free(out);
		free(diags);
	}
}
END_TEST

/* An if-else evaluates only the branch it takes (spec 3.3.3). */
START_TEST(lazy_if_else)
{
	char *diags;
	char *out = flatten_text(
		HEADER "graph G( x ) -> ( y )\n{\n"
		       "  x = external(shape = [1]);\n"
		       "  y = reshape(x, shape = [[1, 2][5] if false else 1]);\n}\n",
		0, &diags);
	ck_assert_msg(out != NULL, "%s", diags);
	ck_assert(strstr(out, "shape = [1]"));
	free(out);
	free(diags);
	out = flatten_text(
		HEADER "graph G( x ) -> ( y )\n{\n"
		       "  x = external(shape = [1]);\n"
		       "  y = reshape(x, shape = [[1, 2][5] if true else 1]);\n}\n",
		0, &diags);
	ck_assert_ptr_null(out);
	ck_assert(strstr(diags, "error[E0801]: index 5 is out of range for an "
				"array of length 2"));
	free(diags);
}
END_TEST

/* Value errors inside expansions carry one note per enclosing call. */
START_TEST(errors_with_expansion_notes)
{
	char *diags;
	char *out = flatten_text(
		HEADER
		"fragment inner( x: tensor<scalar>, k: integer ) -> ( y: tensor<scalar> )\n"
		"{\n  y = reshape(x, shape = [10 / k]);\n}\n"
		"fragment outer( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		"{\n  y = inner(x, k = 0);\n}\n"
		"graph G( x ) -> ( y )\n{\n"
		"  x = external(shape = [1]);\n"
		"  y = outer(x);\n}\n",
		0, &diags);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(diags,
			 "t.nnef:5:27: error[E0802]: division by zero\n"
			 " 5 |   y = reshape(x, shape = [10 / k]);\n"
			 "   |                           ^~~~~~\n"
			 "note: in expansion of 'inner' at t.nnef:9:7\n"
			 "note: in expansion of 'outer' at t.nnef:14:7\n");
	free(diags);
}
END_TEST

/* add_n recurses once per tensor over slices that share storage: 20,000
 * tensors flatten into 20,000 additions. */
START_TEST(linear_recursion)
{
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		    "  x = external(shape = [1]);\n  y = add_n([x");
	for (int i = 0; i < 20000; i++)
		sb_puts(&b, ", x");
	sb_puts(&b, "]);\n}\n");
	char *diags;
	char *out = flatten_text(sb_str(&b), 0, &diags);
	ck_assert_msg(out != NULL, "%.2000s", diags);
	size_t adds = 0;
	for (const char *p = out; (p = strstr(p, " = add(")); p++)
		adds++;
	ck_assert_uint_eq(adds, 20001);
	free(out);
	free(diags);
	sb_free(&b);
}
END_TEST

/* Unbounded recursion is an error at --max-depth, reported with an
 * abbreviated chain of expansions, not a crash. */
START_TEST(depth_limit)
{
	static const char *doc =
		HEADER
		"fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		"{\n  y = f(x) + 1.0;\n}\n"
		"graph G( x ) -> ( y ) { x = external(shape = [1]); y = f(x); }\n";
	char *diags;
	ck_assert_ptr_null(flatten_text(doc, 50, &diags));
	ck_assert(strstr(diags, "error[E0806]: compound expansions nested more "
				"than 50 deep"));
	ck_assert(strstr(diags, "note: ... 40 more expansions ..."));
	free(diags);
	/* the default limit, and the stack behind it, hold too (skipped by
	 * make memcheck, where 100,000 expansions take minutes) */
	if (getenv("NNEF_TEST_LIGHT"))
		return;
	ck_assert_ptr_null(flatten_text(doc, 0, &diags));
	ck_assert(strstr(diags, "nested more than 100000 deep"));
	free(diags);
}
END_TEST

/* Names are derived from assignments and are the same on every run. */
START_TEST(deterministic_names)
{
	static const char *doc =
		HEADER "graph G( x ) -> ( y, y_m )\n{\n"
		       "  x = external(shape = [1, 4]);\n"
		       "  y_m = copy(x);\n"
		       "  y = softmax(x);\n}\n";
	char *d1, *d2;
	char *a = flatten_text(doc, 0, &d1);
	char *b = flatten_text(doc, 0, &d2);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a, b);
	/* softmax's local m would be y_m, which the graph uses already */
	ck_assert(strstr(a, "    y_m_2 = max_reduce(x, axes = [1]);\n"));
	ck_assert(strstr(a, "    y_e_sub = sub(x, y_m_2);\n"));
	ck_assert(strstr(a, "    y = div(y_e, y_sum_reduce);\n"));
	free(a);
	free(b);
	free(d1);
	free(d2);
}
END_TEST

/* Literals are made once and shared (literal.c), while the table holds
 * fewer than 2^14 of them: what is new after that is made each time, and
 * what was shared stays shared. 20,000 variables of one shape and distinct
 * labels: the shape of the last is the value of the first's, every label
 * is its own. */
START_TEST(literal_table_bound)
{
	enum { N = 20000 };
	StrBuf doc;
	sb_init(&doc);
	sb_printf(&doc, "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external(shape = [1]);\n");
	for (int i = 0; i < N; i++)
		sb_printf(&doc, "  w%d = variable(shape = [3, 2], label = 'layer%d/w');\n", i, i);
	sb_printf(&doc, "  y = copy(x);\n}\n");
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	model_check_text(&m, "t.nnef", sb_str(&doc), doc.len, &opt);
	ck_assert_ptr_nonnull(m.flat);
	const FlatGraph *g = m.flat;
	ck_assert_uint_eq(g->nops, N + 2);
	const FlatOp *first = g->ops[1], *last = g->ops[N];
	ck_assert_ptr_eq(flat_op_args(first)[0], flat_op_args(last)[0]); /* shape = [3, 2] */
	const Value *label = flat_op_args(last)[1];
	ck_assert_int_eq(label->kind, VAL_STR);
	ck_assert_uint_eq(label->n, 12);
	ck_assert(memcmp(label->u.str, "layer19999/w", 12) == 0);
	ck_assert_uint_eq(last->results[0]->u.t->dims[1], 2);
	model_free(&m);
	sb_free(&doc);
}
END_TEST

/* The table itself: 20,000 distinct strings given to flat_literal leave
 * 2^14 in it; the first is found again, the last is made again. A string
 * of more than 16 bytes is not shared. */
START_TEST(literal_table_size)
{
	enum { N = 20000 };
	Arena arena;
	arena_init(&arena);
	Flattener F;
	memset(&F, 0, sizeof(F));
	F.arena = &arena;
	AstExpr *e = ARENA_ARRAY(&arena, AstExpr, N);
	const Value **v = ARENA_ARRAY(&arena, const Value *, N);
	for (int i = 0; i < N; i++) {
		char *t = arena_printf(&arena, "s%d", i);
		e[i].kind = AST_STRING;
		e[i].u.str.s = t;
		e[i].u.str.len = strlen(t);
		v[i] = flat_literal(&F, &e[i]);
	}
	ck_assert_uint_eq(F.nlits, 1 << 14);
	ck_assert_uint_le(F.caplits, 1 << 15);
	ck_assert_ptr_eq(flat_literal(&F, &e[0]), v[0]);
	const Value *again = flat_literal(&F, &e[N - 1]);
	ck_assert_ptr_ne(again, v[N - 1]);
	ck_assert(value_equal(again, v[N - 1]));
	AstExpr longer = { .kind = AST_STRING };
	longer.u.str.s = "seventeen bytes!!";
	longer.u.str.len = 17;
	ck_assert_ptr_null(flat_literal(&F, &longer));
	longer.u.str.len = 16;
	ck_assert_ptr_nonnull(flat_literal(&F, &longer));
	flat_literals_free(&F);
	arena_free(&arena);
}
END_TEST

/* A compile-time value holds at most 2^32 - 1 items (Value.n, spec 3.3.3
 * values kept in 16 bytes): concatenating past that is E0809 before
 * anything is built, whatever the budget. The operands are made by hand:
 * building them for real would take gigabytes. */
START_TEST(concatenation_past_the_item_limit)
{
	Arena arena;
	arena_init(&arena);
	Interner in;
	intern_init(&in, &arena);
	DiagList diags;
	diag_list_init(&diags, 0);
	FlattenOptions opt = { .max_value_bytes = INT64_MAX };
	Flattener F;
	memset(&F, 0, sizeof(F));
	F.arena = &arena;
	F.interner = &in;
	F.diags = &diags;
	F.opt = &opt;
	Scope graph;
	memset(&graph, 0, sizeof(graph));
	const char *x = intern_cstr(&in, "x");
	Value big = { .kind = VAL_STR, .n = 3000000000u, .u.str = "x" };
	flat_set_graph_value(&F, x, &big);
	static const char text[] = "graph g() -> () {\n  y = x + x;\n}\n";
	SourceFile *src = source_from_memory("t.nnef", text, strlen(text));
	Type string = { .kind = TY_STRING };
	AstExpr id = { .kind = AST_IDENT, .type = &string, .u.ident = x };
	AstExpr plus = { .kind = AST_BINARY, .op = AST_OP_PLUS, .type = &string,
			 .loc = loc_make(src, 24, 5), .u.bin = { &id, &id } };
	ck_assert_ptr_null(flat_eval_expr(&F, &plus, &graph, NULL));
	ck_assert_uint_eq(diags.len, 1);
	ck_assert_int_eq(diags.items[0]->code, DIAG_E0809);
	unsigned line, col;
	source_linecol(diags.items[0]->loc.file, diags.items[0]->loc.off, &line, &col);
	ck_assert_uint_eq(line, 2); /* at the '+' expression, 2:7 */
	ck_assert_uint_eq(col, 7);
	ck_assert_uint_eq(diags.items[0]->loc.len, 5);
	ck_assert_str_eq(diags.items[0]->msg, "concatenating 3000000000 and 3000000000 items is too large: a value holds at most 4294967295");
	*intern_data(x, IDATA_FLAT) = NULL;
	diag_list_free(&diags);
	source_free(src);
	intern_free(&in);
	arena_free(&arena);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* 4.1.3: the first variable of each label is found in a table keyed by a
 * hash of the label ignoring case. Two labels of one hash are still two
 * variables, also when the table grows with both in it. */
START_TEST(labels_with_one_hash)
{
	enum { N = 1 << 21 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	ck_assert_ptr_nonnull(keys);
	char buf[32];
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "v%u", i);
		keys[i] = (uint64_t)flat_label_hash(buf, (size_t)n) << 32 | i;
	}
	qsort(keys, N, sizeof(*keys), cmp_u64);
	size_t k = 0;
	while (k + 1 < N && keys[k] >> 32 != keys[k + 1] >> 32)
		k++;
	ck_assert_uint_lt(k + 1, N); /* a pair exists among 2^21 */
	unsigned a = (unsigned)(keys[k] & 0xffffffffu), b = (unsigned)(keys[k + 1] & 0xffffffffu);
	free(keys);
	StrBuf doc;
	sb_init(&doc);
	sb_printf(&doc, "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external(shape = [1]);\n");
	sb_printf(&doc, "  a = variable(shape = [1], label = 'v%u');\n", a);
	sb_printf(&doc, "  b = variable(shape = [2], label = 'V%u');\n", b);
	for (int i = 0; i < 200; i++)
		sb_printf(&doc, "  w%d = variable(shape = [3], label = 'w%d');\n", i, i);
	sb_printf(&doc, "  y = copy(x);\n}\n");
	char *diags;
	char *out = flatten_text(sb_str(&doc), 0, &diags);
	ck_assert_msg(out != NULL, "%s", diags);
	ck_assert_str_eq(diags, "");
	snprintf(buf, sizeof(buf), "label = 'V%u'", b);
	ck_assert_ptr_nonnull(strstr(out, buf));
	free(out);
	free(diags);
	sb_free(&doc);
}
END_TEST

Suite *flatten_suite(void)
{
	Suite *s = suite_create("flatten");
	TCase *tc = tcase_create("values");
	tcase_add_test(tc, value_equality_and_printing);
	tcase_add_test(tc, scalar_values);
	tcase_add_test(tc, integer_values);
	tcase_add_test(tc, lazy_if_else);
	tcase_add_test(tc, errors_with_expansion_notes);
	suite_add_tcase(s, tc);
	tc = tcase_create("expansion");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, linear_recursion);
	tcase_add_test(tc, depth_limit);
	tcase_add_test(tc, deterministic_names);
	tcase_add_test(tc, labels_with_one_hash);
	tcase_add_test(tc, literal_table_bound);
	tcase_add_test(tc, literal_table_size);
	tcase_add_test(tc, concatenation_past_the_item_limit);
	suite_add_tcase(s, tc);
	return s;
}
