/*
 * check_dot.c - the flat graph as Graphviz DOT (flatten/dot.c): the whole
 * output of a tiny graph, array results, outputs also consumed, custom
 * operations of unknown shape, kept compounds and their arguments, literal
 * arguments, the weights folded into their consumers, the escaping of
 * strings, determinism, a graph of many operations, and the bundled
 * examples drawn by `dot -Tsvg` (weights folded or not) when Graphviz is
 * installed.
 */
#include "model/model.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DOT_PROGRAM "/usr/bin/dot"

/* Checks text (which must be valid) and returns its flat graph as DOT
 * (malloc'd), the weights folded with fold; *nops receives the flat
 * graph's number of operations. */
static char *dot_text_as(const char *text, bool keep_standard, bool fold, size_t *nops)
{
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	opt.flatten.keep_standard = keep_standard;
	model_check_text(&m, "t.nnef", text, strlen(text), &opt);
	StrBuf b;
	sb_init(&b);
	if (!m.flat) {
		model_render_diags(&m, "test", &b, false, true);
		ck_abort_msg("not flattened:\n%s", sb_str(&b));
	}
	flat_print_dot(&b, m.flat, fold);
	if (nops)
		*nops = m.flat->nops;
	char *out = strdup(sb_str(&b));
	sb_free(&b);
	model_free(&m);
	return out;
}

static char *dot_text(const char *text, bool keep_standard, size_t *nops)
{
	return dot_text_as(text, keep_standard, false, nops);
}

/* Whether the line [l, end) holds " -> ". Searched within the line:
 * strstr on the rest of the text made count_lines quadratic (ASan's strstr
 * measures the whole haystack at each call). */
static bool has_arrow(const char *l, const char *end)
{
	for (const char *p = l; p + 4 <= end; p++)
		if (memcmp(p, " -> ", 4) == 0)
			return true;
	return false;
}

/* The number of lines of dot that declare a node whose name starts with
 * prefix ("op", "out"), or with prefix NULL, that are edges. */
static size_t count_lines(const char *dot, const char *prefix)
{
	size_t n = 0;
	for (const char *l = dot; *l; l = strchr(l, '\n') + 1) {
		const char *end = strchr(l, '\n');
		ck_assert_ptr_nonnull(end); /* every line ends */
		bool edge = has_arrow(l, end);
		if (!prefix) {
			n += edge;
			continue;
		}
		size_t k = strlen(prefix);
		if (!edge && strncmp(l, "  ", 2) == 0 &&
		    strncmp(l + 2, prefix, k) == 0 && l[2 + k] >= '0' &&
		    l[2 + k] <= '9')
			n++;
	}
	return n;
}

static size_t count_str(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

#define EXPECT_LINE(dot, line)                                           \
	ck_assert_msg(strstr((dot), "\n" line "\n") != NULL,               \
		      "missing line\n%s\nin\n%s", line, (dot))

/* The whole output of a convolution and a relu (expanded into gt and
 * select): node styles, attribute lines, edge labels, the sink. */
START_TEST(tiny_graph_whole_output)
{
	size_t nops;
	char *dot = dot_text(
		"version 1.0;\n"
		"graph G( x ) -> ( y )\n{\n"
		"  x = external(shape = [1, 3, 8, 8]);\n"
		"  f = variable(shape = [4, 3, 3, 3], label = 'conv/filter');\n"
		"  c = conv(x, f, 0.0, padding = [(1, 1), (1, 1)]);\n"
		"  y = relu(c);\n}\n",
		false, &nops);
	ck_assert_uint_eq(nops, 5);
	ck_assert_str_eq(dot,
		"digraph \"G\" {\n"
		"  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n"
		"  edge [fontname=\"Helvetica\", fontsize=9];\n"
		"  op0 [label=\"x\", shape=ellipse, style=filled, fillcolor=\"#cfe2f3\"];\n"
		"  op1 [label=\"conv/filter\", shape=cylinder, style=filled, fillcolor=\"#fff2cc\"];\n"
		"  op2 [label=\"conv\\npadding = [(1, 1), (1, 1)]\"];\n"
		"  op0 -> op2 [label=\"x: [1,3,8,8]\"];\n"
		"  op1 -> op2 [label=\"f: [4,3,3,3]\"];\n"
		"  op3 [label=\"gt\\ny = 0.0\"];\n"
		"  op2 -> op3 [label=\"c: [1,4,8,8]\"];\n"
		"  op4 [label=\"select\\nfalse_value = 0.0\"];\n"
		"  op3 -> op4 [label=\"y_gt: logical[1,4,8,8]\"];\n"
		"  op2 -> op4 [label=\"c: [1,4,8,8]\"];\n"
		"  out0 [label=\"y\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];\n"
		"  op4 -> out0 [label=\"y: [1,4,8,8]\"];\n"
		"}\n");
	free(dot);
}
END_TEST

/* split's result is an array: each item is an edge from the split node;
 * an item that is an output and also consumed has both edges. */
START_TEST(array_results_and_consumed_outputs)
{
	size_t nops;
	char *dot = dot_text(
		"version 1.0;\n"
		"graph G( x ) -> ( a, y )\n{\n"
		"  x = external(shape = [2, 6]);\n"
		"  [a, b, c] = split(x, axis = 1, ratios = [1, 1, 1]);\n"
		"  y = concat([a, b, c], axis = 1);\n}\n",
		false, &nops);
	ck_assert_uint_eq(nops, 3);
	EXPECT_LINE(dot, "  op1 [label=\"split\\naxis = 1\\nratios = [1, 1, 1]\"];");
	EXPECT_LINE(dot, "  op0 -> op1 [label=\"x: [2,6]\"];");
	EXPECT_LINE(dot, "  op1 -> op2 [label=\"a: [2,2]\"];\n"
			 "  op1 -> op2 [label=\"b: [2,2]\"];\n"
			 "  op1 -> op2 [label=\"c: [2,2]\"];");
	EXPECT_LINE(dot, "  out0 [label=\"a\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];\n"
			 "  op1 -> out0 [label=\"a: [2,2]\"];\n"
			 "  out1 [label=\"y\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];\n"
			 "  op2 -> out1 [label=\"y: [2,6]\"];");
	ck_assert_uint_eq(count_lines(dot, "op"), 3);
	ck_assert_uint_eq(count_lines(dot, "out"), 2);
	ck_assert_uint_eq(count_lines(dot, NULL), 6);
	free(dot);
}
END_TEST

/* Literal arguments are not edges (a primitive shows those that are not
 * defaults); a tensor passed twice is one edge; constants are small
 * plain nodes; integer and logical tensors carry their type. */
START_TEST(literals_constants_and_types)
{
	size_t nops;
	char *dot = dot_text(
		"version 1.0;\n"
		"graph G( x ) -> ( y, n )\n{\n"
		"  x = external(shape = [1, 4]);\n"
		"  k = constant(shape = [1], value = [0.5]);\n"
		"  s = add(x, x);\n"
		"  t = mul(s, k);\n"
		"  y = add(t, 1.0);\n"
		"  i = variable<integer>(shape = [1, 4], label = 'i');\n"
		"  n = copy(i);\n}\n",
		false, &nops);
	ck_assert_uint_eq(nops, 7);
	EXPECT_LINE(dot, "  op1 [label=\"constant\\n[0.5]\", shape=plain, fontsize=9];");
	EXPECT_LINE(dot, "  op2 [label=\"add\"];\n"
			 "  op0 -> op2 [label=\"x: [1,4]\"];\n"
			 "  op3 [label=\"mul\"];");
	EXPECT_LINE(dot, "  op2 -> op3 [label=\"s: [1,4]\"];\n"
			 "  op1 -> op3 [label=\"k: [1]\"];");
	EXPECT_LINE(dot, "  op4 [label=\"add\\ny = 1.0\"];\n"
			 "  op3 -> op4 [label=\"t: [1,4]\"];\n"
			 "  op5 [label=\"i\", shape=cylinder, style=filled, fillcolor=\"#fff2cc\"];");
	EXPECT_LINE(dot, "  op5 -> op6 [label=\"i: integer[1,4]\"];");
	EXPECT_LINE(dot, "  op6 -> out1 [label=\"n: integer[1,4]\"];");
	ck_assert_uint_eq(count_lines(dot, NULL), 7);
	free(dot);
}
END_TEST

/* A custom operation is a dashed box and its result's shape is not
 * known; a kept compound is a rounded box; both show their arguments
 * that are not tensors nor defaults as primitives do. */
START_TEST(custom_and_kept_operations)
{
	char *dot = dot_text(
		"version 1.0;\n"
		"extension KHR_enable_fragment_definitions;\n"
		"fragment mystery( x: tensor<scalar>, k: integer = 1, s: string = 'a' ) -> ( y: tensor<scalar> );\n"
		"graph G( x, z ) -> ( y, p )\n{\n"
		"  x = external(shape = [2, 3]);\n"
		"  m = mystery(x, k = 4);\n"
		"  y = relu(m);\n"
		"  z = external(shape = [1, 2, 4, 4]);\n"
		"  p = max_pool(z, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);\n}\n",
		true, NULL);
	EXPECT_LINE(dot, "  op1 [label=\"mystery\\nk = 4\", style=dashed];\n"
			 "  op0 -> op1 [label=\"x: [2,3]\"];\n"
			 "  op2 [label=\"relu\", style=rounded];\n"
			 "  op1 -> op2 [label=\"m: [?]\"];");
	EXPECT_LINE(dot, "  op4 [label=\"max_pool\\nsize = [1, 1, 2, 2]\\nstride = [1, 1, 2, 2]\", style=rounded];\n"
			 "  op3 -> op4 [label=\"z: [1,2,4,4]\"];");
	EXPECT_LINE(dot, "  op2 -> out0 [label=\"y: [?]\"];");
	free(dot);
}
END_TEST

/* Folding the weights: a variable or constant an operation takes is a
 * line of that operation's label ("LABEL: SHAPE", "NAME: SHAPE = VALUE"),
 * once however often it is passed (the variance of batch_normalization,
 * passed as its mean too), in each operation taking it (k), with no node
 * and no edge; one that is also an output keeps its node (b), and a kept
 * compound lists those it takes. */
START_TEST(fold_weights_whole_output)
{
	size_t nops;
	char *dot = dot_text_as(
		"version 1.0;\n"
		"graph G( x ) -> ( y, b )\n{\n"
		"  x = external(shape = [1, 3, 8, 8]);\n"
		"  f = variable(shape = [4, 3, 3, 3], label = 'conv/filter');\n"
		"  b = variable(shape = [1, 4], label = 'conv/bias');\n"
		"  k = constant(shape = [1, 4, 1, 1], value = [0.5]);\n"
		"  c = conv(x, f, b, padding = [(1, 1), (1, 1)]);\n"
		"  e = mul(c, k);\n"
		"  d = add(e, k);\n"
		"  v = variable(shape = [1, 4], label = 'bn/variance');\n"
		"  y = batch_normalization(d, v, v, 0.0, 1.0, epsilon = 0.001);\n}\n",
		true, true, &nops);
	ck_assert_uint_eq(nops, 9);
	ck_assert_str_eq(dot,
		"digraph \"G\" {\n"
		"  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n"
		"  edge [fontname=\"Helvetica\", fontsize=9];\n"
		"  op0 [label=\"x\", shape=ellipse, style=filled, fillcolor=\"#cfe2f3\"];\n"
		"  op2 [label=\"conv/bias\", shape=cylinder, style=filled, fillcolor=\"#fff2cc\"];\n"
		"  op4 [label=\"conv\\npadding = [(1, 1), (1, 1)]\\nconv/filter: [4,3,3,3]\"];\n"
		"  op0 -> op4 [label=\"x: [1,3,8,8]\"];\n"
		"  op2 -> op4 [label=\"b: [1,4]\"];\n"
		"  op5 [label=\"mul\\nk: [1,4,1,1] = [0.5]\"];\n"
		"  op4 -> op5 [label=\"c: [1,4,8,8]\"];\n"
		"  op6 [label=\"add\\nk: [1,4,1,1] = [0.5]\"];\n"
		"  op5 -> op6 [label=\"e: [1,4,8,8]\"];\n"
		"  op8 [label=\"batch_normalization\\noffset = 0.0\\nscale = 1.0\\nepsilon = 0.001\\nbn/variance: [1,4]\", style=rounded];\n"
		"  op6 -> op8 [label=\"d: [1,4,8,8]\"];\n"
		"  out0 [label=\"y\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];\n"
		"  op8 -> out0 [label=\"y: [1,4,8,8]\"];\n"
		"  out1 [label=\"b\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];\n"
		"  op2 -> out1 [label=\"b: [1,4]\"];\n"
		"}\n");
	free(dot);
	/* a tensor passed twice is one line */
	dot = dot_text_as(
		"version 1.0;\n"
		"graph G( x ) -> ( y )\n{\n"
		"  x = external(shape = [2]);\n"
		"  w = variable(shape = [2], label = 'w');\n"
		"  y = add(w, w);\n}\n",
		false, true, NULL);
	EXPECT_LINE(dot, "  op2 [label=\"add\\nw: [2]\"];\n"
			 "  out0 [label=\"y\", shape=doubleoctagon, style=filled, fillcolor=\"#d9ead3\"];");
	ck_assert_uint_eq(count_lines(dot, "op"), 2);
	ck_assert_uint_eq(count_lines(dot, NULL), 1);
	free(dot);
}
END_TEST

/* Quotes, backslashes and line breaks are escaped. NNEF identifiers
 * cannot hold them and labels only backslashes, so a tensor name is
 * changed by hand to try the others. */
START_TEST(strings_are_escaped)
{
	static const char text[] =
		"version 1.0;\n"
		"graph G( x ) -> ( y )\n{\n"
		"  x = external(shape = [2]);\n"
		"  w = variable(shape = [2], label = 'a\\\\b');\n"
		"  y = add(x, w);\n}\n";
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	model_check_text(&m, "t.nnef", text, strlen(text), &opt);
	ck_assert_ptr_nonnull(m.flat);
	ck_assert_uint_ge(m.flat->ntensors, 1);
	ck_assert_str_eq(flat_tensor(m.flat, 0)->name, "x");
	flat_tensor(m.flat, 0)->name = "say \"x\"\\\nnow";
	StrBuf b;
	sb_init(&b);
	flat_print_dot(&b, m.flat, false);
	const char *dot = sb_str(&b);
	EXPECT_LINE(dot, "  op0 [label=\"say \\\"x\\\"\\\\\\nnow\", shape=ellipse, style=filled, fillcolor=\"#cfe2f3\"];");
	EXPECT_LINE(dot, "  op1 [label=\"a\\\\b\", shape=cylinder, style=filled, fillcolor=\"#fff2cc\"];");
	EXPECT_LINE(dot, "  op0 -> op2 [label=\"say \\\"x\\\"\\\\\\nnow: [2]\"];");
	sb_free(&b);
	model_free(&m);
}
END_TEST

/* Many operations: one tensor consumed by every operation and a long
 * chain (the writer finds producers and consumers by tensor id, so this
 * stays linear); the same document gives the same text twice. */
START_TEST(many_operations)
{
	enum { N = 20000 };
	StrBuf doc;
	sb_init(&doc);
	sb_puts(&doc, "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		      "  x = external(shape = [1]);\n  t0 = copy(x);\n");
	for (int i = 1; i < N; i++)
		sb_printf(&doc, "  t%d = add(t%d, x);\n", i, i - 1);
	sb_printf(&doc, "  y = copy(t%d);\n}\n", N - 1);
	size_t nops;
	char *a = dot_text(sb_str(&doc), false, &nops);
	char *b = dot_text(sb_str(&doc), false, NULL);
	ck_assert_uint_eq(nops, N + 2);
	ck_assert_uint_eq(count_lines(a, "op"), nops);
	/* copy of x, two per add, the last copy, the sink */
	ck_assert_uint_eq(count_lines(a, NULL), 1 + 2 * (N - 1) + 1 + 1);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	sb_free(&doc);
}
END_TEST

/* Runs dot -Tsvg on the text; returns the SVG (malloc'd), or NULL when
 * dot fails. */
static char *run_dot(const char *dot)
{
	char path[] = "/tmp/nnef-check-dot-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t len = strlen(dot);
	ck_assert_int_eq(write(fd, dot, len), (ssize_t)len);
	close(fd);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), DOT_PROGRAM " -Tsvg %s", path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	StrBuf svg;
	sb_init(&svg);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		sb_putn(&svg, buf, n);
	int status = pclose(p);
	unlink(path);
	char *out = NULL;
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		out = strdup(sb_str(&svg));
	sb_free(&svg);
	return out;
}

/* The bundled examples: an operation node per flat operation, or with
 * the weights folded, none for their variables (each consumed, none an
 * output); when Graphviz is installed, dot draws every node and edge
 * written. */
START_TEST(examples_drawn_by_dot)
{
	static const char *const examples[] = {
		"examples/tiny_convnet/graph.nnef",
		"examples/residual_block/graph.nnef",
	};
	const char *ex = examples[_i / 2];
	bool fold = _i % 2;
	char *text = test_read_source_file(ex);
	ck_assert_msg(text != NULL, "cannot read %s", ex);
	size_t nops;
	char *dot = dot_text_as(text, false, fold, &nops);
	size_t nodes = count_lines(dot, "op");
	size_t variables = count_str(text, "= variable");
	ck_assert_uint_ge(variables, 6);
	ck_assert_uint_eq(nodes, fold ? nops - variables : nops);
	ck_assert_uint_eq(count_str(dot, "shape=cylinder"), fold ? 0 : variables);
	ck_assert_uint_eq(count_lines(dot, "out"), 1);
	nodes += 1;
	if (access(DOT_PROGRAM, X_OK) == 0) {
		char *svg = run_dot(dot);
		ck_assert_msg(svg != NULL, "%s: dot -Tsvg failed", ex);
		ck_assert_uint_eq(count_str(svg, "class=\"node\""), nodes);
		ck_assert_uint_eq(count_str(svg, "class=\"edge\""),
				  count_lines(dot, NULL));
		free(svg);
	}
	free(dot);
	free(text);
}
END_TEST

Suite *dot_suite(void)
{
	Suite *s = suite_create("dot");
	TCase *tc = tcase_create("dot");
	tcase_add_test(tc, tiny_graph_whole_output);
	tcase_add_test(tc, array_results_and_consumed_outputs);
	tcase_add_test(tc, literals_constants_and_types);
	tcase_add_test(tc, custom_and_kept_operations);
	tcase_add_test(tc, fold_weights_whole_output);
	tcase_add_test(tc, strings_are_escaped);
	suite_add_tcase(s, tc);
	tc = tcase_create("graphs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, many_operations);
	tcase_add_loop_test(tc, examples_drawn_by_dot, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
