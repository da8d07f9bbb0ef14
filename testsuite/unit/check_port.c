/*
 * check_port.c - the portability report (port/): the tables against the
 * standard library (every standard operation has a row in every table,
 * each row well-formed), target names, the rows of ONNX operator sets,
 * every kind of condition on real operations with its message, and whole
 * reports through nnef.h.
 */
#include "api/api_internal.h"
#include "grammar/parse.h"
#include "port/port.h"
#include "sema/sema.h"
#include "shapes/shapes.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The standard library's fragments (spec chapter 4 and 1.0.3-1.0.5). */
typedef struct Stdlib {
	Arena a;
	Interner in;
	DiagList dl;
	SourceFile *src;
	ParseResult r;
} Stdlib;

static void stdlib_open(Stdlib *s)
{
	arena_init(&s->a);
	intern_init(&s->in, &s->a);
	diag_list_init(&s->dl, 0);
	s->src = sema_stdlib_source();
	s->r = parse_document(s->src, PARSE_FRAGMENTS, NULL, &s->a, &s->in, &s->dl);
	ck_assert_uint_eq(s->dl.nerrors, 0);
}

static void stdlib_close(Stdlib *s)
{
	source_free(s->src);
	diag_list_free(&s->dl);
	intern_free(&s->in);
	arena_free(&s->a);
}

static const AstDef *stdlib_def(const Stdlib *s, const char *name)
{
	for (size_t i = 0; i < s->r.doc->nitems; i++) {
		const AstItem *it = &s->r.doc->items[i];
		if (it->kind == AST_ITEM_DEF && strcmp(it->def->name, name) == 0)
			return it->def;
	}
	return NULL;
}

/* One row checked against the declaration d of its operation. */
static void check_row(const PortTarget *t, const PortRow *r, const AstDef *d)
{
	ck_assert_msg(d, "%s: '%s' is not a standard operation", t->name, r->op);
	ck_assert_msg(r->kind != PORT_EXPAND || d->body, "%s: primitive '%s' cannot be expanded", t->name, r->op);
	if (r->kind == PORT_MAP)
		ck_assert_msg(r->target_op && *r->target_op && r->cite && *r->cite, "%s: '%s' maps to no operation or cites nothing", t->name, r->op);
	if (r->kind == PORT_NONE)
		ck_assert_msg(r->note && *r->note, "%s: '%s' is not expressible without saying why", t->name, r->op);
	ck_assert_msg(t->versioned ? r->since >= t->min_version && r->since <= t->max_version : r->since == 0, "%s: '%s' has a bad since", t->name, r->op);
	const char *params[32];
	ck_assert_uint_le(d->nparams, 32);
	for (size_t k = 0; k < d->nparams; k++)
		params[k] = d->params[k].name;
	char why[256];
	ck_assert_msg(!port_lint(r->checks, params, d->nparams, why, sizeof(why)), "%s: '%s': %s", t->name, r->op, why);
	ck_assert_msg(r->kind == PORT_MAP || !*r->checks, "%s: '%s' has conditions but maps to nothing", t->name, r->op);
}

/* Every standard operation has a row in every table (several in a table
 * of versions, at distinct versions), and every row is well-formed. */
START_TEST(every_operation_has_a_row_in_every_table)
{
	Stdlib s;
	stdlib_open(&s);
	size_t defs = 0;
	for (size_t i = 0; i < s.r.doc->nitems; i++)
		defs += s.r.doc->items[i].kind == AST_ITEM_DEF;
	ck_assert_uint_ge(defs, 118);
	for (size_t ti = 0; ti < port_ntargets; ti++) {
		const PortTarget *t = &port_targets[ti];
		for (size_t i = 0; i < t->nrows; i++) {
			check_row(t, &t->rows[i], stdlib_def(&s, t->rows[i].op));
			for (size_t k = 0; k < i; k++)
				ck_assert_msg(strcmp(t->rows[k].op, t->rows[i].op) != 0 || (t->versioned && t->rows[k].since != t->rows[i].since), "%s: '%s' has two rows of one version", t->name, t->rows[i].op);
		}
		for (size_t i = 0; i < s.r.doc->nitems; i++) {
			const AstItem *it = &s.r.doc->items[i];
			if (it->kind != AST_ITEM_DEF)
				continue;
			unsigned earliest;
			port_row(t, t->max_version, it->def->name, &earliest);
			ck_assert_msg(earliest, "%s has no row for '%s'", t->name, it->def->name);
		}
	}
	stdlib_close(&s);
}
END_TEST

START_TEST(target_names)
{
	unsigned v;
	ck_assert_ptr_nonnull(port_target_find("openvx", &v));
	ck_assert_ptr_nonnull(port_target_find("coreml", &v));
	ck_assert_ptr_nonnull(port_target_find("openvino", &v));
	ck_assert_ptr_nonnull(port_target_find("onnx:13", &v));
	ck_assert_uint_eq(v, 13);
	ck_assert_ptr_nonnull(port_target_find("onnx:1", &v));
	const char *bad[] = { "onnx", "onnx:", "onnx:0", "onnx:24", "onnx:13x", "onnx:-1", "onnx: 9", "openvx:1", "OpenVX", "openvino2", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(!port_target_find(bad[i], &v), "'%s' accepted", bad[i]);
		ck_assert_ptr_nonnull(nnef_target_check(bad[i]));
	}
	ck_assert_ptr_null(nnef_target_check("onnx:23"));
	ck_assert_str_eq(nnef_target_check("onnx:99"), "must be openvx, openvino, coreml or onnx:N (an ONNX operator set from 1 to 23)");
}
END_TEST

/* An operation's row in an ONNX operator set is the latest row at most
 * that version. */
START_TEST(onnx_rows_by_version)
{
	unsigned v, earliest;
	const PortTarget *t = port_target_find("onnx:13", &v);
	ck_assert_uint_eq(port_row(t, 12, "softmax", NULL)->since, 1);
	ck_assert_uint_eq(port_row(t, 13, "softmax", NULL)->since, 13);
	ck_assert_uint_eq(port_row(t, 23, "softmax", NULL)->since, 13);
	ck_assert_ptr_null(port_row(t, 11, "le", &earliest));
	ck_assert_uint_eq(earliest, 12);
	ck_assert_ptr_nonnull(port_row(t, 12, "le", NULL));
	ck_assert_ptr_null(port_row(t, 23, "no_such_op", &earliest));
	ck_assert_uint_eq(earliest, 0);
}
END_TEST

static const char cond_doc[] =
	"version 1.0;\n"
	"extension KHR_enable_operator_expressions;\n"
	"graph G( x, v ) -> ( c, d, p, q, s, t, u, m, b, l, k, e )\n"
	"{\n"
	"    x = external(shape = [1, 4, 8, 8]);\n"
	"    v = external(shape = [1, 4]);\n"
	"    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
	"    c = conv(x, w, border = 'reflect', padding = [(0, 1), (1, 1)], groups = 2, dilation = [2, 1]);\n"
	"    d = conv(x, w, stride = [2, 2], groups = 2);\n"
	"    p = max_pool(x, size = [1, 2, 2, 2], border = 'ignore');\n"
	"    q = max_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore');\n"
	"    s = softmax(x, axes = [1, 2]);\n"
	"    t = transpose(x, axes = [0, 2, 3, 1]);\n"
	"    u = add(x, v);\n"
	"    m = matmul(x, x);\n"
	"    b = select(gt(x, 0.0), x, 0.0);\n"
	"    l = local_response_normalization(x, size = [1, 3, 3, 1]);\n"
	"    k = clamp(x, 0.0, reshape(v, shape = [1, 4, 1, 1]));\n"
	"    e = prelu(x, v);\n"
	"}\n";

/* The message of the first condition of checks that the first operation
 * named op of g breaks ("" when none). */
static const char *broken(const nnef_graph *g, const char *op, size_t nth, const char *checks)
{
	static char buf[256];
	for (size_t i = 0; i < nnef_graph_op_count(g); i++) {
		const nnef_op *o = nnef_graph_op(g, i);
		if (strcmp(nnef_op_name(o), op) == 0 && nth-- == 0)
			return port_check(checks, api_op(o), "onnx", buf, sizeof(buf)) ? buf : "";
	}
	ck_abort_msg("no operation '%s'", op);
	return NULL;
}

/* Each kind of condition of port.h, held and broken, with its message. */
START_TEST(conditions_and_their_messages)
{
	nnef_options o;
	nnef_options_init(&o);
	const char *keep[] = { "max_pool", "softmax", "local_response_normalization", "clamp", "prelu" };
	o.keep = keep;
	o.n_keep = 5;
	nnef_model *m = nnef_model_load_text("cond.nnef", cond_doc, strlen(cond_doc), &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	const nnef_graph *g = nnef_model_graph(m);
	const struct {
		const char *op;
		size_t nth;
		const char *checks, *message;
	} cases[] = {
		{ "conv", 0, "border=constant,ignore", "border = 'reflect' is not expressible (constant,ignore only)" },
		{ "conv", 0, "groups=1", "groups = 2 is not expressible (1 only)" },
		{ "conv", 0, "dilation=1", "dilation = 2 is not expressible (1 only)" },
		{ "conv", 0, "sym:padding", "asymmetric padding (0, 1) is not expressible (one value per axis for both sides)" },
		/* automatic padding of a 3x3 filter at stride 2 on 8: (0, 1) */
		{ "conv", 1, "sym:padding", "asymmetric padding (0, 1) is not expressible (one value per axis for both sides)" },
		{ "conv", 1, "border=ignore groups=2 dilation=1", "border = 'constant' is not expressible (ignore only)" },
		{ "conv", 0, "rank=3..4", "" },
		{ "conv", 0, "rank=5", "tensors of rank 4 are not supported (rank 5)" },
		{ "conv", 0, "dtype=scalar", "" },
		{ "conv", 0, "dtype=integer", "tensors of type scalar are not supported (integer only)" },
		{ "max_pool", 0, "spatial:size", "a size over the batch or channel axis is not expressible (spatial axes only)" },
		{ "max_pool", 1, "spatial:size spatial:stride spatial:padding", "" },
		/* the border of a window whose automatic padding is zero does
		 * not matter */
		{ "max_pool", 1, "border=constant", "" },
		{ "max_pool", 0, "border=constant", "border = 'ignore' is not expressible (constant only)" },
		{ "softmax", 0, "count:axes=1", "axes of 2 items is not expressible (1 only)" },
		{ "softmax", 0, "trailing:axes", "axes other than the last axes is not expressible" },
		{ "transpose", 0, "swap2:axes", "a permutation of more than two axes is not expressible (axes swaps two)" },
		{ "add", 0, "bcast=numpy", "broadcasting a rank-2 operand to rank 4 is not expressible as written: NNEF aligns the first axes, onnx the last (needs a reshape)" },
		{ "add", 0, "bcast=none", "broadcasting is not expressible (operands of one shape only)" },
		{ "matmul", 0, "bcast=none", "" },
		{ "select", 0, "bcast=unidir", "" },
		{ "prelu", 0, "bcast=unidir", "broadcasting a rank-2 operand to rank 4 is not expressible as written: NNEF aligns the first axes, onnx the last (needs a reshape)" },
		{ "local_response_normalization", 0, "axis1:size", "a size beyond the channel axis is not expressible (across channels only)" },
		{ "clamp", 0, "const:a", "" },
		{ "clamp", 0, "const:b", "b computed by the graph is not expressible (a constant only)" },
		{ "conv", 0, "border=constant,ignore groups=2", "border = 'reflect' is not expressible (constant,ignore only)" },
		/* what the tables may not hold */
		{ "conv", 0, "groups", "table: condition 'groups' is not known" },
		{ "conv", 0, "sym:stride", "table: condition 'sym:stride' is not known" },
		{ "conv", 0, "bcast=all", "table: condition 'bcast=all' is not known" },
		{ "conv", 0, "size=1", "table: 'conv' has no parameter 'size'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(strcmp(broken(g, cases[i].op, cases[i].nth, cases[i].checks), cases[i].message) == 0, "%s %s: got \"%s\"", cases[i].op, cases[i].checks, broken(g, cases[i].op, cases[i].nth, cases[i].checks));
	nnef_model_free(m);
}
END_TEST

static const char report_doc[] =
	"version 1.0;\n"
	"extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n"
	"fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
	"graph G( x ) -> ( y, z )\n"
	"{\n"
	"    x = external(shape = [1, 4, 8, 8]);\n"
	"    a = relu(x);\n"
	"    b = le(a, x);\n"
	"    c = mystery(a);\n"
	"    y = select(b, c, gelu(x));\n"
	"    z = pad(x, padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'reflect-even');\n"
	"}\n";

/* A whole report through nnef.h: compounds the target has are kept, the
 * others expanded; problems counted, with their first location. */
START_TEST(report_through_the_api)
{
	nnef_options o;
	nnef_options_init(&o);
	const char *targets[] = { "onnx:11", "openvx" };
	o.targets = targets;
	o.n_targets = 2;
	nnef_model *m = nnef_model_load_text("report.nnef", report_doc, strlen(report_doc), &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	ck_assert_uint_eq(nnef_model_port_count(m), 2);
	const nnef_port *p = nnef_model_port(m, 0);
	ck_assert_str_eq(nnef_port_target(p), "onnx:11");
	ck_assert(!nnef_port_failed(p));
	/* external relu le mystery mul sigmoid mul select pad: gelu expanded
	 * (x * sigmoid(1.702 * x)), relu kept whole */
	ck_assert_uint_eq(nnef_port_operations(p), 9);
	ck_assert_uint_eq(nnef_port_portable(p), 6);
	ck_assert_uint_eq(nnef_port_problem_count(p), 3);
	nnef_port_use u = nnef_port_problem(p, 0);
	ck_assert_str_eq(u.op, "le");
	ck_assert_str_eq(u.problem, "needs ONNX operator set 12 or later");
	ck_assert_uint_eq(u.first.line, 8);
	ck_assert_uint_eq(u.first.column, 9);
	u = nnef_port_problem(p, 1);
	ck_assert_str_eq(u.op, "mystery");
	ck_assert_str_eq(u.problem, "not a standard operation: onnx has no operation for it");
	u = nnef_port_problem(p, 2);
	ck_assert_str_eq(u.op, "pad");
	ck_assert_str_eq(u.problem, "border = 'reflect-even' is not expressible (constant,reflect,replicate only)");
	ck_assert_str_eq(u.target_op, "Pad");
	u = nnef_port_mapping(p, 1);
	ck_assert_str_eq(u.op, "relu");
	ck_assert_str_eq(u.target_op, "Relu");
	ck_assert_uint_eq(u.count, 1);
	char *text = nnef_port_render(p);
	ck_assert_ptr_nonnull(strstr(text, "onnx:11: 6/9 operations portable; 3 need rewriting\n"));
	ck_assert_ptr_nonnull(strstr(text, "  report.nnef:8:9: le: needs ONNX operator set 12 or later: 1 operation\n"));
	free(text);
	p = nnef_model_port(m, 1);
	ck_assert_str_eq(nnef_port_target(p), "openvx");
	ck_assert_uint_lt(nnef_port_portable(p), nnef_port_operations(p));
	char *json = nnef_report_json((const nnef_model *const *)&m, 1, 0);
	ck_assert_ptr_nonnull(strstr(json, "\"portability\": ["));
	ck_assert_ptr_nonnull(strstr(json, "\"problem\": \"needs ONNX operator set 12 or later\", \"count\": 1, \"first\": {\"file\": \"report.nnef\", \"line\": 8"));
	free(json);
	nnef_model_free(m);
}
END_TEST

/* No report of an invalid model, and none without targets. */
START_TEST(no_report_without_a_valid_graph)
{
	nnef_options o;
	nnef_options_init(&o);
	const char *targets[] = { "coreml" };
	o.targets = targets;
	o.n_targets = 1;
	const char bad[] = "version 1.0;\ngraph G( x ) -> ( y ) { x = external(shape = [1]); y = relu(z); }\n";
	nnef_model *m = nnef_model_load_text("bad.nnef", bad, strlen(bad), &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_INVALID);
	ck_assert_uint_eq(nnef_model_port_count(m), 0);
	ck_assert_ptr_null(nnef_model_port(m, 0));
	nnef_model_free(m);
	o.n_targets = 0;
	m = nnef_model_load_text("doc.nnef", report_doc, strlen(report_doc), &o);
	ck_assert_uint_eq(nnef_model_port_count(m), 0);
	nnef_model_free(m);
}
END_TEST

Suite *port_suite(void)
{
	Suite *s = suite_create("port");
	TCase *tc = tcase_create("port");
	tcase_add_test(tc, every_operation_has_a_row_in_every_table);
	tcase_add_test(tc, target_names);
	tcase_add_test(tc, onnx_rows_by_version);
	tcase_add_test(tc, conditions_and_their_messages);
	tcase_add_test(tc, report_through_the_api);
	tcase_add_test(tc, no_report_without_a_valid_graph);
	suite_add_tcase(s, tc);
	return s;
}
