/*
 * check_api.c - the public interface, nnef.h, used as a program outside
 * the library would: models from memory and from disk, diagnostics and
 * their locations, the flat graph and its values, tensor files, the
 * runner, and the JSON and SARIF reports.
 */
#include "api/nnef.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char conv_doc[] =
	"version 1.0;\n"
	"graph G( x ) -> ( y, parts )\n"
	"{\n"
	"    x = external(shape = [1, 2, 4, 4]);\n"
	"    w = variable(shape = [3, 2, 3, 3], label = 'w');\n"
	"    c = conv(x, w, padding = [(1, 1), (1, 1)]);\n"
	"    y = relu(c);\n"
	"    [a, b] = split(y, axis = 1, ratios = [1, 2]);\n"
	"    parts = add(a, 1.5);\n"
	"}\n";

static nnef_model *load(const char *text)
{
	nnef_options o;
	nnef_options_init(&o);
	nnef_model *m = nnef_model_load_text("api.nnef", text, strlen(text), &o);
	ck_assert_ptr_nonnull(m);
	return m;
}

static const nnef_op *find_op(const nnef_graph *g, const char *name)
{
	for (size_t i = 0; i < nnef_graph_op_count(g); i++)
		if (strcmp(nnef_op_name(nnef_graph_op(g, i)), name) == 0)
			return nnef_graph_op(g, i);
	return NULL;
}

START_TEST(test_graph)
{
	nnef_model *m = load(conv_doc);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	ck_assert_uint_eq(nnef_diags_count(nnef_model_diags(m)), 0);
	const nnef_graph *g = nnef_model_graph(m);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(nnef_graph_name(g), "G");
	ck_assert_uint_eq(nnef_graph_input_count(g), 1);
	ck_assert_str_eq(nnef_tensor_info_name(nnef_graph_input(g, 0)), "x");
	ck_assert_uint_eq(nnef_graph_output_count(g), 2);
	const nnef_tensor_info *y = nnef_graph_output(g, 0);
	ck_assert_str_eq(nnef_tensor_info_name(y), "y");
	ck_assert(nnef_tensor_info_shape_known(y));
	ck_assert_uint_eq(nnef_tensor_info_rank(y), 4);
	ck_assert_int_eq(nnef_tensor_info_dim(y, 1), 3);
	ck_assert_int_eq(nnef_tensor_info_dtype(y), NNEF_SCALAR);
	/* relu is expanded: y is made by select */
	ck_assert_str_eq(nnef_op_name(nnef_tensor_info_producer(y)), "select");
	ck_assert(nnef_op_is_primitive(nnef_tensor_info_producer(y)));
	const nnef_op *conv = find_op(g, "conv");
	ck_assert_ptr_nonnull(conv);
	nnef_location l = nnef_op_location(conv);
	ck_assert_uint_eq(l.line, 6);
	ck_assert_uint_eq(l.column, 9);
	ck_assert_ptr_null(nnef_op_compound(conv));
	ck_assert_str_eq(nnef_op_compound(nnef_tensor_info_producer(y)), "relu");
	/* arguments: every parameter, defaults included */
	size_t pad = 0;
	while (pad < nnef_op_arg_count(conv) && strcmp(nnef_op_arg_name(conv, pad), "padding") != 0)
		pad++;
	ck_assert_uint_lt(pad, nnef_op_arg_count(conv));
	const nnef_value *v = nnef_op_arg(conv, pad);
	ck_assert_int_eq(nnef_value_kind_of(v), NNEF_VALUE_ARRAY);
	ck_assert_uint_eq(nnef_value_item_count(v), 2);
	const nnef_value *t0 = nnef_value_item(v, 0);
	ck_assert_int_eq(nnef_value_kind_of(t0), NNEF_VALUE_TUPLE);
	ck_assert_int_eq(nnef_value_integer(nnef_value_item(t0, 1)), 1);
	ck_assert_int_eq(nnef_value_kind_of(nnef_op_arg(conv, 0)), NNEF_VALUE_TENSOR);
	ck_assert_str_eq(nnef_tensor_info_name(nnef_value_tensor(nnef_op_arg(conv, 0))), "x");
	const nnef_value *border = nnef_op_arg(conv, 3);
	size_t len;
	ck_assert_str_eq(nnef_op_arg_name(conv, 3), "border");
	const char *text = nnef_value_string(border, &len);
	ck_assert_uint_eq(len, 8);
	ck_assert_int_eq(memcmp(text, "constant", 8), 0);
	/* split: one result, an array of two tensors */
	const nnef_op *split = find_op(g, "split");
	ck_assert_uint_eq(nnef_op_result_count(split), 1);
	ck_assert_uint_eq(nnef_value_item_count(nnef_op_result(split, 0)), 2);
	nnef_model_free(m);
}
END_TEST

/* nnef_options.declarations (--declarations): the vendor document of
 * testsuite/vendor is valid with --lenient and its declarations; the
 * declared compound is expanded (its operations name it), the custom
 * operation stays, its results' shapes unknown. */
START_TEST(test_declarations)
{
	char path[4096], decl[4096];
	snprintf(path, sizeof(path), "%s/vendor/encoder.nnef", test_srcdir());
	snprintf(decl, sizeof(decl), "%s/vendor/declarations", test_srcdir());
	const char *decls[] = { decl };
	nnef_options o;
	nnef_options_init(&o);
	nnef_model *m = nnef_model_load(path, &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_INVALID); /* vendor */
	nnef_model_free(m);
	/* --lenient alone: gelu is a custom operation its call declares */
	o.lenient = true;
	m = nnef_model_load(path, &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	ck_assert_ptr_nonnull(find_op(nnef_model_graph(m), "tract_core_gelu"));
	nnef_model_free(m);
	o.declarations = decls;
	o.n_declarations = 1;
	m = nnef_model_load(path, &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	const nnef_graph *g = nnef_model_graph(m);
	const nnef_op *erf = find_op(g, "tract_core_erf");
	ck_assert_ptr_nonnull(erf);
	ck_assert(!nnef_op_is_primitive(erf));
	ck_assert(!nnef_tensor_info_shape_known(nnef_graph_output(g, 0)));
	const nnef_op *sig = find_op(g, "exp");
	ck_assert_ptr_nonnull(sig);
	ck_assert_str_eq(nnef_op_compound(sig), "tract_core_gelu");
	ck_assert_str_eq(nnef_tensor_info_name(nnef_graph_input(g, 0)), "tokens");
	nnef_model_free(m);
}
END_TEST

START_TEST(test_diagnostics)
{
	nnef_model *m = load("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2])\n    y = copy(x);\n}\n");
	ck_assert_int_eq(nnef_model_status(m), NNEF_INVALID);
	ck_assert_ptr_null(nnef_model_graph(m));
	ck_assert_ptr_null(nnef_model_print_flat(m, 0));
	const nnef_diags *ds = nnef_model_diags(m);
	ck_assert_uint_eq(nnef_diags_errors(ds), 1);
	ck_assert_uint_eq(nnef_diags_count(ds), 1);
	const nnef_diag *d = nnef_diags_get(ds, 0);
	ck_assert_int_eq(nnef_diag_level(d), NNEF_ERROR);
	ck_assert_str_eq(nnef_diag_code(d), "E0202");
	ck_assert_str_eq(nnef_diag_message(d), "expected ';' after assignment");
	nnef_location l = nnef_diag_location(d);
	ck_assert_str_eq(l.file, "api.nnef");
	ck_assert_uint_eq(l.line, 4);
	ck_assert_uint_eq(l.column, 30);
	ck_assert_str_eq(nnef_diag_file(d), "api.nnef");
	char *text = nnef_diags_render(ds, "prog", NNEF_RENDER_SOURCE);
	ck_assert_ptr_nonnull(strstr(text, "api.nnef:4:30: error[E0202]: expected ';' after assignment\n 4 |"));
	free(text);
	nnef_model_free(m);
	/* max_errors lists the first errors only and counts the others */
	nnef_options o;
	nnef_options_init(&o);
	o.max_errors = 1;
	const char *two = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = foo(x);\n    z = bar(x);\n}\n";
	m = nnef_model_load_text("two.nnef", two, strlen(two), &o);
	ds = nnef_model_diags(m);
	ck_assert_uint_ge(nnef_diags_errors(ds), 2);
	ck_assert_uint_eq(nnef_diags_hidden_errors(ds), nnef_diags_errors(ds) - 1);
	size_t listed = 0;
	for (size_t i = 0; i < nnef_diags_count(ds); i++)
		listed += nnef_diag_level(nnef_diags_get(ds, i)) == NNEF_ERROR;
	ck_assert_uint_eq(listed, 1);
	nnef_model_free(m);
}
END_TEST

START_TEST(test_printing_and_reports)
{
	nnef_model *m = load(conv_doc);
	char *flat = nnef_model_print_flat(m, NNEF_PRINT_SHAPES);
	ck_assert_ptr_nonnull(strstr(flat, "c = conv(x, w,"));
	ck_assert_ptr_nonnull(strstr(flat, "# scalar[1,3,4,4]"));
	free(flat);
	char *shapes = nnef_model_print_shapes(m, NNEF_PRINT_ALL_TENSORS);
	ck_assert_ptr_nonnull(strstr(shapes, "parts: scalar[1,1,4,4]\n"));
	ck_assert_ptr_nonnull(strstr(shapes, "y_gt: logical[1,3,4,4]\n"));
	free(shapes);
	/* by default the tensors the document names: not relu's comparison */
	shapes = nnef_model_print_shapes(m, 0);
	ck_assert_str_eq(shapes, "x: scalar[1,2,4,4]\nw: scalar[3,2,3,3]\nc: scalar[1,3,4,4]\ny: scalar[1,3,4,4]\n"
				 "a: scalar[1,1,4,4]\nb: scalar[1,2,4,4]\nparts: scalar[1,1,4,4]\n");
	free(shapes);
	const nnef_graph *gr = nnef_model_graph(m);
	size_t named = 0;
	for (size_t i = 0; i < nnef_graph_tensor_count(gr); i++)
		named += nnef_tensor_info_named(nnef_graph_tensor(gr, i));
	ck_assert_uint_eq(named, 7);
	ck_assert_uint_eq(nnef_graph_tensor_count(gr), 8);
	char *dot = nnef_model_print_dot(m, 0);
	ck_assert_ptr_nonnull(strstr(dot, "digraph \"G\" {"));
	ck_assert_ptr_nonnull(strstr(dot, "shape=cylinder"));
	free(dot);
	dot = nnef_model_print_dot(m, NNEF_DOT_FOLD_WEIGHTS);
	ck_assert_ptr_null(strstr(dot, "shape=cylinder"));
	ck_assert_ptr_nonnull(strstr(dot, "\\nw: [3,2,3,3]\"];"));
	free(dot);
	nnef_model *bad = load("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = nosuch(x);\n}\n");
	const nnef_model *both[] = { m, bad };
	char *json = nnef_report_json(both, 2, NNEF_REPORT_SHAPES);
	ck_assert_ptr_nonnull(strstr(json, "\"verdict\": \"valid\""));
	ck_assert_ptr_nonnull(strstr(json, "\"verdict\": \"invalid\""));
	ck_assert_ptr_nonnull(strstr(json, "{\"name\": \"parts\", \"type\": \"scalar\", \"shape\": [1, 1, 4, 4]}"));
	ck_assert_ptr_null(strstr(json, "\"y_gt\""));
	free(json);
	json = nnef_report_json(both, 2, NNEF_REPORT_SHAPES | NNEF_REPORT_ALL_TENSORS);
	ck_assert_ptr_nonnull(strstr(json, "{\"name\": \"y_gt\", \"type\": \"logical\", \"shape\": [1, 3, 4, 4]}"));
	ck_assert_ptr_nonnull(strstr(json, "{\"name\": \"parts\", \"type\": \"scalar\", \"shape\": [1, 1, 4, 4]}"));
	ck_assert_ptr_nonnull(strstr(json, "\"file\": \"api.nnef\", \"line\": 5, \"column\": 9"));
	free(json);
	char *sarif = nnef_report_sarif(both, 2, 0);
	ck_assert_ptr_nonnull(strstr(sarif, "\"version\": \"2.1.0\""));
	ck_assert_ptr_nonnull(strstr(sarif, "\"region\": {\"startLine\": 5, \"startColumn\": 9"));
	free(sarif);
	nnef_model_free(bad);
	nnef_model_free(m);
}
END_TEST

START_TEST(test_tensor_files)
{
	int64_t dims[] = { 2, 3 };
	nnef_tensor *t = nnef_tensor_new(NNEF_SCALAR, dims, 2);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(nnef_tensor_count(t), 6);
	for (size_t i = 0; i < 6; i++)
		nnef_tensor_scalars(t)[i] = 0.25 * (double)i - 1;
	ck_assert_ptr_null(nnef_tensor_integers(t));
	char path[] = "/tmp/nnef_api_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	nnef_diags *ds = nnef_diags_new();
	ck_assert(nnef_tensor_write(t, path, NNEF_WRITE_DOUBLE, ds));
	nnef_tensor *back = nnef_tensor_read(path, 0, ds);
	ck_assert_ptr_nonnull(back);
	ck_assert_str_eq(nnef_tensor_file_type(back), "float64");
	ck_assert_uint_eq(nnef_tensor_rank(back), 2);
	ck_assert_int_eq(nnef_tensor_dim(back, 1), 3);
	for (size_t i = 0; i < 6; i++)
		ck_assert_double_eq(nnef_tensor_get(back, i), 0.25 * (double)i - 1);
	nnef_tensor_free(back);
	/* integers at 32 bits */
	nnef_tensor *n = nnef_tensor_new(NNEF_INTEGER, dims, 2);
	nnef_tensor_integers(n)[5] = -7;
	ck_assert(nnef_tensor_write(n, path, NNEF_WRITE_INT32, ds));
	back = nnef_tensor_read(path, 0, ds);
	ck_assert_str_eq(nnef_tensor_file_type(back), "int32");
	ck_assert_int_eq(nnef_tensor_integers(back)[5], -7);
	nnef_tensor_free(back);
	nnef_tensor_free(n);
	ck_assert_uint_eq(nnef_diags_count(ds), 0);
	/* a file that is not a tensor file */
	FILE *fp = fopen(path, "wb");
	fputs("not a tensor", fp);
	fclose(fp);
	ck_assert_ptr_null(nnef_tensor_read(path, 0, ds));
	ck_assert_uint_ge(nnef_diags_errors(ds), 1);
	nnef_diags_clear(ds);
	ck_assert_uint_eq(nnef_diags_count(ds), 0);
	ck_assert_ptr_null(nnef_tensor_read("/nonexistent/t.dat", 0, ds));
	ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E0001");
	ck_assert_ptr_null(nnef_diag_file(nnef_diags_get(ds, 0))); /* no model */
	unlink(path);
	nnef_diags_free(ds);
	nnef_tensor_free(t);
	int64_t zero[] = { 0 };
	ck_assert_ptr_null(nnef_tensor_new(NNEF_SCALAR, zero, 1));
}
END_TEST

/* The plan: max of an exp is a comparison fused into its select, the exp
 * fused into the same pass; with plain, everything runs on its own. */
START_TEST(test_runner_plan)
{
	const char *doc = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 2]);\n    e = exp(x);\n    y = max(e, 1.0);\n}\n";
	nnef_model *m = load(doc);
	nnef_diags *ds = nnef_diags_new();
	for (int plain = 0; plain < 2; plain++) {
		nnef_run_options ro;
		nnef_run_options_init(&ro);
		ro.plain = plain;
		nnef_runner *r = nnef_runner_new(m, &ro, ds);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(nnef_runner_plan_count(r), 4);
		static const char *names[] = { "external", "exp", "gt", "select" };
		nnef_plan_how how;
		const nnef_op *by, *select = NULL;
		size_t nfused;
		for (size_t i = 0; i < 4; i++) {
			const nnef_op *op = nnef_runner_plan_op(r, i, &how, &by, &nfused);
			ck_assert_str_eq(nnef_op_name(op), names[i]);
			if (i == 3)
				select = op;
		}
		for (size_t i = 1; i < 3; i++) {
			nnef_runner_plan_op(r, i, &how, &by, NULL);
			ck_assert_int_eq(how, plain ? NNEF_PLAN_RUNS : NNEF_PLAN_FUSED);
			ck_assert_ptr_eq(by, plain ? NULL : select);
		}
		nnef_runner_plan_op(r, 3, &how, NULL, &nfused);
		ck_assert_int_eq(how, NNEF_PLAN_RUNS);
		ck_assert_uint_eq(nfused, plain ? 0 : 2);
		ck_assert_ptr_null(nnef_runner_plan_op(r, 4, &how, &by, &nfused));
		nnef_runner_free(r);
	}
	nnef_diags_free(ds);
	nnef_model_free(m);
}
END_TEST

/* A 3x3 conv of 16 channels over 16 x 16 positions runs by Winograd in
 * float (interp/winograd.c), term by term with plain or in double. */
START_TEST(test_runner_plan_method)
{
	const char *doc = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 16, 16, 16]);\n"
			  "    f = constant(shape = [16, 16, 3, 3], value = [0.5]);\n"
			  "    y = conv(x, f, padding = [(1, 1), (1, 1)]);\n}\n";
	nnef_model *m = load(doc);
	nnef_diags *ds = nnef_diags_new();
	for (int k = 0; k < 3; k++) {
		nnef_run_options ro;
		nnef_run_options_init(&ro);
		ro.plain = k == 1;
		ro.double_precision = k == 2;
		nnef_runner *r = nnef_runner_new(m, &ro, ds);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(nnef_runner_plan_count(r), 3);
		ck_assert_ptr_null(nnef_runner_plan_method(r, 0));
		ck_assert_ptr_null(nnef_runner_plan_method(r, 1));
		if (k == 0)
			ck_assert_str_eq(nnef_runner_plan_method(r, 2), "Winograd F(2x2, 3x3)");
		else
			ck_assert_ptr_null(nnef_runner_plan_method(r, 2));
		ck_assert_ptr_null(nnef_runner_plan_method(r, 3));
		nnef_runner_free(r);
	}
	nnef_diags_free(ds);
	nnef_model_free(m);
}
END_TEST

START_TEST(test_runner)
{
	const char *doc = "version 1.0;\ngraph G( x ) -> ( y, i )\n{\n    x = external(shape = [2, 2]);\n    y = mul(x, 2.0);\n    i = argmax_reduce(x, axes = [1]);\n}\n";
	nnef_model *m = load(doc);
	nnef_diags *ds = nnef_diags_new();
	nnef_run_options ro;
	nnef_run_options_init(&ro);
	ro.double_precision = true;
	nnef_runner *r = nnef_runner_new(m, &ro, ds);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(nnef_runner_input_count(r), 1);
	ck_assert_str_eq(nnef_runner_input_name(r, 0), "x");
	int64_t dims[] = { 2, 2 };
	nnef_tensor *x = nnef_tensor_new(NNEF_SCALAR, dims, 2);
	double vals[] = { 1, 5, 7, 3 };
	memcpy(nnef_tensor_scalars(x), vals, sizeof(vals));
	ck_assert(nnef_runner_set_input(r, 0, x));
	ck_assert(nnef_runner_run(r));
	ck_assert_uint_eq(nnef_runner_count(r, NNEF_RUN_OUTPUTS), 2);
	ck_assert_str_eq(nnef_runner_name(r, NNEF_RUN_OUTPUTS, 0), "y");
	nnef_tensor *y = nnef_runner_get(r, NNEF_RUN_OUTPUTS, 0);
	ck_assert_double_eq(nnef_tensor_scalars(y)[2], 14);
	nnef_tensor *i = nnef_runner_get(r, NNEF_RUN_OUTPUTS, 1);
	ck_assert_int_eq(nnef_tensor_dtype(i), NNEF_INTEGER);
	ck_assert_int_eq(nnef_tensor_integers(i)[0], 1);
	ck_assert_int_eq(nnef_tensor_integers(i)[1], 0);
	nnef_tensor_free(y);
	nnef_tensor_free(i);
	/* an input of another shape is refused, naming both */
	int64_t other[] = { 4 };
	nnef_tensor *z = nnef_tensor_new(NNEF_SCALAR, other, 1);
	ck_assert(!nnef_runner_set_input(r, 0, z));
	ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1303");
	ck_assert_ptr_nonnull(strstr(nnef_diag_message(nnef_diags_get(ds, 0)), "scalar[4], but the graph's input is scalar[2,2]"));
	nnef_tensor_free(z);
	nnef_tensor_free(x);
	nnef_runner_free(r);
	nnef_diags_free(ds);
	nnef_model_free(m);
	/* a custom operation cannot run: no runner, E1302 */
	m = load("version 1.0;\nextension KHR_enable_fragment_definitions;\nfragment warp( x: tensor<scalar> ) -> ( y: tensor<scalar> );\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = warp(x);\n}\n");
	ds = nnef_diags_new();
	ck_assert_ptr_null(nnef_runner_new(m, NULL, ds));
	ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1302");
	nnef_diags_free(ds);
	nnef_model_free(m);
}
END_TEST

/* --lenient: a symbol of tract_symbol is an extent of unknown value; the
 * graph carries it (NNEF_VALUE_SYMBOL), the shapes that depend on it are
 * unknown, the flat document declares it again, and it cannot be run. */
START_TEST(test_symbols)
{
	static const char doc[] =
		"version 1.0;\n"
		"extension tract_symbol S;\n"
		"graph G( x ) -> ( y )\n"
		"{\n"
		"    x = external(shape = [1, S, 4]);\n"
		"    y = relu(x);\n"
		"}\n";
	nnef_options o;
	nnef_options_init(&o);
	nnef_model *m = nnef_model_load_text("sym.nnef", doc, strlen(doc), &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_INVALID);
	nnef_model_free(m);
	o.lenient = true;
	m = nnef_model_load_text("sym.nnef", doc, strlen(doc), &o);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	const nnef_graph *g = nnef_model_graph(m);
	const nnef_op *ext = find_op(g, "external");
	const nnef_value *shape = nnef_op_arg(ext, 0);
	ck_assert_int_eq(nnef_value_kind_of(nnef_value_item(shape, 0)), NNEF_VALUE_INTEGER);
	ck_assert_int_eq(nnef_value_kind_of(nnef_value_item(shape, 1)), NNEF_VALUE_SYMBOL);
	size_t len;
	const char *name = nnef_value_string(nnef_value_item(shape, 1), &len);
	ck_assert_uint_eq(len, 1);
	ck_assert_int_eq(name[0], 'S');
	ck_assert(!nnef_tensor_info_shape_known(nnef_graph_output(g, 0)));
	char *flat = nnef_model_print_flat(m, 0);
	ck_assert_ptr_nonnull(strstr(flat, "extension tract_symbol S;\n"));
	ck_assert_ptr_nonnull(strstr(flat, "x = external(shape = [1, S, 4]);"));
	free(flat);
	nnef_diags *ds = nnef_diags_new();
	ck_assert_ptr_null(nnef_runner_new(m, NULL, ds));
	ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1309");
	nnef_diags_free(ds);
	nnef_model_free(m);
}
END_TEST

Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");
	tcase_add_test(tc, test_graph);
	tcase_add_test(tc, test_declarations);
	tcase_add_test(tc, test_symbols);
	tcase_add_test(tc, test_diagnostics);
	tcase_add_test(tc, test_printing_and_reports);
	tcase_add_test(tc, test_tensor_files);
	tcase_add_test(tc, test_runner_plan);
	tcase_add_test(tc, test_runner_plan_method);
	tcase_add_test(tc, test_runner);
	suite_add_tcase(s, tc);
	return s;
}
