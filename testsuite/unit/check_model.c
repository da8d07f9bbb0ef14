/*
 * check_model.c - model/ (model.h): locating a model in its container
 * (spec 5.1 Container Organization), the stages run over it and where
 * they stop, the limits on the errors collected and shown, the fragments
 * and the models inside a model; then a model's data against its graph
 * (5.2 Tensor File Format, 5.3 Quantization File Format, chapter 6 step
 * 4). Models are written to a temporary folder (graph.nnef, tensor files
 * made with the codec, graph.quant; archives made with tar(1)) and
 * checked as nnef-check checks them; the data tests assert the
 * diagnostic's code, its exact message and its position.
 */
#include "model/model.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void setup(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/nnefkit-data-XXXXXX", t && *t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_tree(const char *path)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void)
{
	remove_tree(dir);
}

/* Writes text to dir/name, making its folders. */
static void put_file(const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0777);
		*s = '/';
	}
	FILE *fp = fopen(path, "wb");
	ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
}

static void put_text(const char *name, const char *text)
{
	put_file(name, text, strlen(text));
}

/* Writes a zero-filled tensor file of the given type and shape. */
static void put_dat(const char *name, DatItemType type, uint32_t bits,
		    uint32_t rank, const uint32_t *extents)
{
	DatHeader h;
	ck_assert(dat_make_header(&h, type, bits, extents, rank));
	size_t len = DAT_HEADER_SIZE + h.data_length;
	unsigned char *buf = calloc(1, len);
	dat_write_header(&h, buf);
	put_file(name, buf, len);
	free(buf);
}

static const uint32_t S16_8[] = { 16, 8 }, S1_16[] = { 1, 16 };

/* A graph with a filter [16, 8] and a bias [1, 16] (labels w and b). */
#define GRAPH                                                               \
	"version 1.0;\n"                                                    \
	"graph G( input ) -> ( output )\n{\n"                               \
	"    input = external(shape = [2, 8]);\n"                           \
	"    w = variable(shape = [16, 8], label = 'layer/w');\n"           \
	"    b = variable(shape = [1, 16], label = 'layer/b');\n"           \
	"    output = linear(input, w, b);\n}\n"

static void put_model(void)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	put_dat("layer/b.dat", DAT_FLOAT, 32, 2, S1_16);
}

/* Checks the model in dir; returns its rendered diagnostics (malloc'd). */
static char *check(Model *m, const ModelOptions *opt)
{
	ModelOptions dflt = { .max_errors = 20 };
	model_check(m, dir, opt ? opt : &dflt);
	StrBuf b;
	sb_init(&b);
	model_render_diags(m, "nnef-check", &b, false, true);
	char *r = strdup(sb_str(&b));
	sb_free(&b);
	return r;
}

/* The model in the fixture's folder is valid, without a diagnostic. */
static void expect_clean(void)
{
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(m.status == MODEL_VALID && m.diags.len == 0, "%s", r);
	free(r);
	model_free(&m);
}

/* The model has exactly one diagnostic: this code, at line:col (or "-"
 * for none; "@NAME" for none, about the model's file NAME), with a message
 * containing `text`. */
static void expect_one(const char *want_code, const char *pos,
		       const char *text)
{
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(m.diags.len == 1, "want one diagnostic, got:\n%s", r);
	const Diag *d = m.diags.items[0];
	ck_assert_str_eq(diag_code_name(d->code), want_code);
	ck_assert_msg(strstr(d->msg, text), "message: %s", d->msg);
	if (strcmp(pos, "-") == 0 || pos[0] == '@')
		ck_assert_ptr_null(d->loc.file);
	if (pos[0] == '@') {
		char want[512];
		snprintf(want, sizeof(want), "%s/%s", dir, pos + 1);
		ck_assert_ptr_nonnull(d->path);
		ck_assert_str_eq(d->path, want);
	} else if (strcmp(pos, "-") != 0)
		ck_assert_str_eq(tdoc_pos(d), pos);
	free(r);
	model_free(&m);
}

/* The files model_read_files visited: their names and the bytes read. */
typedef struct Seen {
	size_t n;
	char names[4][64];
	long bytes[4];
} Seen;

static bool note_file(void *ctx, const ModelFile *f, Container *c)
{
	Seen *s = ctx;
	unsigned char buf[512];
	long total = 0;
	for (long k; (k = cont_read(c, buf, sizeof(buf))) > 0;)
		total += k;
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", f->name);
	s->bytes[s->n++] = total;
	return true;
}

/* ---- locating the model (5.1) --------------------------------------------------- */

/* Writes the model of put_model into dir/m, and its archives beside it
 * with tar(1): top.tar holds folder m, root.tgz its members at the root
 * ("./graph.nnef"). */
static void put_archived_model(void)
{
	put_text("m/graph.nnef", GRAPH);
	put_dat("m/layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	put_dat("m/layer/b.dat", DAT_FLOAT, 32, 2, S1_16);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "tar -C '%s' -cf '%s/top.tar' m && tar -C '%s/m' -czf '%s/root.tgz' .",
		 dir, dir, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* 5.1: a model is a folder holding graph.nnef, or an archive of the same
 * whose members sit at its root or in one top folder; each form finds
 * the same graph and the same data files, named relative to the model
 * (the top folder taken off), and names graph.nnef in messages by where
 * it lies. */
START_TEST(locating_a_model)
{
	put_archived_model();
	static const struct {
		const char *path, *prefix, *graph;
		ContKind kind;
	} forms[] = {
		{ "m", "", "m/graph.nnef", CONT_DIR },
		{ "top.tar", "m", "top.tar/m/graph.nnef", CONT_TAR },
		{ "root.tgz", "", "root.tgz/graph.nnef", CONT_TGZ },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char path[512], graph[512];
		snprintf(path, sizeof(path), "%s/%s", dir, forms[i].path);
		snprintf(graph, sizeof(graph), "%s/%s", dir, forms[i].graph);
		Model m;
		ModelOptions opt = { .max_errors = 20 };
		ck_assert_msg(model_check(&m, path, &opt) == MODEL_VALID, "%s", path);
		ck_assert_int_eq(m.kind, forms[i].kind);
		ck_assert_str_eq(m.path, path);
		ck_assert_str_eq(m.prefix, forms[i].prefix);
		ck_assert_str_eq(m.graph_src->path, graph);
		ck_assert(m.checked && m.flat && m.data_checked);
		ck_assert_ptr_null(m.quant_text);
		ck_assert_uint_eq(m.nvars, 2);
		size_t dats = 0;
		for (size_t k = 0; k < m.nfiles; k++) {
			const ModelFile *f = &m.files[k];
			if (!f->is_dat)
				continue;
			dats++;
			ck_assert_msg(strcmp(f->name, "layer/w.dat") == 0 ||
					      strcmp(f->name, "layer/b.dat") == 0,
				      "%s: file '%s'", path, f->name);
			ck_assert(f->used);
		}
		ck_assert_uint_eq(dats, 2);
		model_free(&m);
	}
}
END_TEST

/* A bare graph file is a model without data files: checked, its data
 * never looked for, and nothing read again for the interpreter. */
START_TEST(bare_graph_file)
{
	put_text("graph.nnef", GRAPH);
	char path[512];
	snprintf(path, sizeof(path), "%s/graph.nnef", dir);
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_VALID);
	ck_assert_int_eq(m.kind, CONT_FILE);
	ck_assert_str_eq(m.graph_src->path, path);
	ck_assert(m.flat != NULL && !m.data_checked);
	ck_assert_uint_eq(m.nfiles, 0);
	Seen seen = { 0 };
	DiagList dl;
	diag_list_init(&dl, 0);
	ck_assert(model_read_files(&m, note_file, &seen, &dl));
	ck_assert_uint_eq(seen.n, 0);
	ck_assert_uint_eq(dl.len, 0);
	diag_list_free(&dl);
	model_free(&m);
}
END_TEST

/* A path that does not exist cannot be read (the tools' exit 2): one
 * error without a location, which the rendering prefixes with the
 * program's name; no stage runs. */
START_TEST(missing_model)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/absent.tgz", dir);
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_IO_ERROR);
	ck_assert_int_eq(m.status, MODEL_IO_ERROR);
	ck_assert_ptr_null(m.graph_src);
	ck_assert(!m.checked && !m.flat && !m.data_checked);
	ck_assert_uint_eq(m.diags.nerrors, 1);
	StrBuf b;
	sb_init(&b);
	model_render_diags(&m, "nnef-check", &b, false, true);
	ck_assert_msg(strncmp(sb_str(&b), "nnef-check: error[E0001]", 24) == 0 &&
			      strstr(sb_str(&b), path),
		      "%s", sb_str(&b));
	sb_free(&b);
	model_free(&m);
}
END_TEST

/* ---- the stages and the errors ------------------------------------------------ */

/* Each stage runs only when the ones before it left no error: an
 * undefined identifier stops the model before flattening (and so before
 * its data); a shape that does not fit is found by flattening, which
 * then gives no graph. */
START_TEST(stages_stop_at_errors)
{
	static const char *ok =
		"version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		"    x = external(shape = [2, 3]);\n    y = relu(x);\n}\n";
	static const char *undefined =
		"version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		"    x = external(shape = [2, 3]);\n    y = relu(b);\n}\n";
	static const char *misfit =
		"version 1.0;\ngraph G( x, z ) -> ( y )\n{\n"
		"    x = external(shape = [2, 3]);\n"
		"    z = external(shape = [4, 5]);\n    y = add(x, z);\n}\n";
	ModelOptions opt = { .max_errors = 20 };
	Model m;
	ck_assert_int_eq(model_check_text(&m, "ok.nnef", ok, strlen(ok), &opt), MODEL_VALID);
	ck_assert(m.checked && m.flat != NULL);
	ck_assert_uint_eq(m.diags.len, 0);
	model_free(&m);

	ck_assert_int_eq(model_check_text(&m, "u.nnef", undefined, strlen(undefined), &opt), MODEL_INVALID);
	ck_assert(m.checked && m.flat == NULL);
	ck_assert_uint_eq(m.diags.nerrors, 1);
	model_free(&m);

	ck_assert_int_eq(model_check_text(&m, "s.nnef", misfit, strlen(misfit), &opt), MODEL_INVALID);
	ck_assert(m.checked && m.flat == NULL && !m.data_checked);
	ck_assert_uint_eq(m.diags.nerrors, 1);
	ck_assert_int_eq(m.diags.items[0]->code, DIAG_E0905);
	ck_assert_str_eq(tdoc_pos(m.diags.items[0]), "6:16");
	model_free(&m);
}
END_TEST

/* Semantic analysis runs only on a document without syntax errors, so a
 * syntax error does not drag along undefined-identifier errors. */
START_TEST(no_sema_after_syntax_errors)
{
	static const char *text =
		"version 1.0;\n"
		"graph G( x ) -> ( y )\n{\n"
		"  x = external(shape = [1]);\n"
		"  h = relu(x;\n"
		"  y = relu(h);\n"
		"}\n";
	ModelOptions opt = { .max_errors = 50, .whole = true };
	Model m;
	model_check_text(&m, "t.nnef", text, strlen(text), &opt);
	ck_assert_uint_eq(m.diags.nerrors, 1);
	ck_assert(!m.checked);
	model_free(&m);
}
END_TEST

/* A document with n calls of an unknown operation: n errors. */
static void unknown_calls(StrBuf *b, size_t n)
{
	sb_init(b);
	sb_puts(b, "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
		   "  x = external(shape = [1]);\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(b, "  a%zu = unknown_op(x);\n", i);
	sb_puts(b, "  y = copy(x);\n}\n");
}

/* max_errors limits the errors shown, never those collected; the line
 * after them counts the rest. Beyond MODEL_COLLECT_LIMIT errors are no
 * longer collected: some are then hidden even with no limit shown
 * (max_errors 0), and the count says "at least". */
START_TEST(error_limits)
{
	static const struct {
		size_t errors, max, shown;
		bool hidden;
		const char *more;
	} cases[] = {
		{ 3, 0, 3, false, NULL },
		{ 3, 3, 3, false, NULL },
		{ 3, 2, 2, true, "nnef-check: 1 more error not shown" },
		{ MODEL_COLLECT_LIMIT + 5, 0, MODEL_COLLECT_LIMIT, true, "nnef-check: at least " },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		StrBuf doc, r;
		unknown_calls(&doc, cases[i].errors);
		ModelOptions opt = { .max_errors = cases[i].max };
		Model m;
		ck_assert_int_eq(model_check_text(&m, "t.nnef", sb_str(&doc), doc.len, &opt), MODEL_INVALID);
		ck_assert_uint_eq(model_shown_errors(&m), cases[i].shown);
		ck_assert_msg(model_errors_hidden(&m) == cases[i].hidden, "case %zu", i);
		sb_init(&r);
		model_render_diags(&m, "nnef-check", &r, false, true);
		if (cases[i].more)
			ck_assert_msg(strstr(sb_str(&r), cases[i].more), "case %zu: %.300s", i, sb_str(&r));
		else
			ck_assert_msg(!strstr(sb_str(&r), "not shown"), "case %zu", i);
		sb_free(&r);
		sb_free(&doc);
		model_free(&m);
	}
}
END_TEST

/* The fragments of the model's program by name: the document's own and
 * the standard library's. */
START_TEST(fragments_by_name)
{
	static const char *doc =
		"version 1.0;\nextension KHR_enable_fragment_definitions;\n"
		"fragment twice( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n"
		"{\n    y = add(x, x);\n}\n"
		"graph G( x ) -> ( y )\n{\n"
		"    x = external(shape = [2]);\n    y = twice(x);\n}\n";
	ModelOptions opt = { .max_errors = 20 };
	Model m;
	ck_assert_int_eq(model_check_text(&m, "f.nnef", doc, strlen(doc), &opt), MODEL_VALID);
	const SemaFrag *twice = model_fragment(&m, "twice", 5);
	ck_assert_ptr_nonnull(twice);
	ck_assert(!twice->is_std);
	const SemaFrag *relu = model_fragment(&m, "relu", 4);
	ck_assert_ptr_nonnull(relu);
	ck_assert(relu->is_std);
	ck_assert_ptr_ne(relu, twice);
	/* a prefix of a name is not the name */
	ck_assert_ptr_null(model_fragment(&m, "twice", 4));
	ck_assert_ptr_null(model_fragment(&m, "thrice", 6));
	model_free(&m);
}
END_TEST

/* tract's dialect: a folder X holding X/graph.nnef is a model inside the
 * model, checked when tract_core_submodel(label = "X") is flattened;
 * its files are not the outer model's. */
START_TEST(model_inside_a_model)
{
	put_text("outer/inner/graph.nnef",
		 "version 1.0;\ngraph inner( u ) -> ( v )\n{\n"
		 "    u = external(shape = [4, 2]);\n    v = add(mul(u, 2.0), 1.0);\n}\n");
	put_text("outer/graph.nnef",
		 "version 1.0;\nextension tract_registry tract_core;\n"
		 "graph outer( x ) -> ( y )\n{\n"
		 "    x = tract_core_external(shape = [4, 2], datum_type = 'f32');\n"
		 "    [y] = tract_core_submodel([x], label = 'inner');\n}\n");
	char path[512];
	snprintf(path, sizeof(path), "%s/outer", dir);
	ModelOptions opt = { .max_errors = 20, .dialect = DIALECT_TRACT };
	Model m;
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_VALID);
	ck_assert_uint_eq(m.nsubs, 1);
	ck_assert_str_eq(m.sublabels[0], "inner");
	const Model *in = model_submodel(&m, "inner", 5);
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->status, MODEL_VALID);
	ck_assert_ptr_nonnull(in->flat);
	ck_assert_str_eq(in->under, "inner/");
	ck_assert_ptr_null(model_submodel(&m, "inner", 4));
	ck_assert_ptr_null(model_submodel(&m, "other", 5));
	for (size_t k = 0; k < m.nfiles; k++)
		ck_assert_msg(strncmp(m.files[k].name, "inner/", 6) != 0, "'%s' is the outer model's", m.files[k].name);
	model_free(&m);
}
END_TEST

/* ---- variables and their files (5.1, 5.2, 5.2.1) ---------------------------- */

START_TEST(valid_model)
{
	put_model();
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(m.status == MODEL_VALID && m.diags.len == 0, "%s", r);
	ck_assert(m.data_checked);
	free(r);
	model_free(&m);
	/* --no-data: the same model, its data not looked at */
	remove_tree(dir);
	mkdir(dir, 0777);
	put_text("graph.nnef", GRAPH);
	ModelOptions opt = { .max_errors = 20, .no_data = true };
	r = check(&m, &opt);
	ck_assert_msg(m.status == MODEL_VALID && !m.data_checked, "%s", r);
	free(r);
	model_free(&m);
}
END_TEST

/* 5.1: "a variable with label 'conv1/filter' is placed into the folder
 * 'conv1' under the name 'filter.dat'" */
START_TEST(missing_file)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	expect_one("E1101", "6:9", "variable 'b' has no data file: the model holds no 'layer/b.dat'");
}
END_TEST

/* 5.2: "The extents of the tensors must be equal to the ones calculated
 * from the network description" */
START_TEST(wrong_shape)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	static const uint32_t s16[] = { 16 };
	put_dat("layer/b.dat", DAT_FLOAT, 32, 1, s16);
	expect_one("E1102", "6:9", "the data file 'layer/b.dat' holds a tensor of shape [16], but variable 'b' has shape [1,16]");
}
END_TEST

/* 5.2.1 Mapping data-types to item-types: scalar data is float or
 * quantized, integer data integers, logical data bools */
START_TEST(wrong_item_type)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_SINT, 8, 2, S16_8);
	put_dat("layer/b.dat", DAT_QUINT, 8, 2, S1_16);
	put_text("graph.quant", "\"b\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = false, symmetric = false);\n");
	expect_one("E1103", "5:9", "the data file 'layer/w.dat' holds int8 items, which cannot hold the scalar variable 'w'");
	remove_tree(dir);
	mkdir(dir, 0777);
	put_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = variable<logical>(shape = [2], label = 'flags');\n}\n");
	static const uint32_t s2[] = { 2 };
	put_dat("flags.dat", DAT_FLOAT, 32, 1, s2);
	expect_one("E1103", "5:9", "holds float32 items, which cannot hold the logical variable 'y'");
}
END_TEST

/* 5.2.1: quantized codes need their entry in graph.quant (W1107) */
START_TEST(quantized_without_entry)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	put_dat("layer/b.dat", DAT_QSINT, 8, 2, S1_16);
	expect_one("W1107", "6:9", "variable 'layer/b': 'layer/b.dat' holds quantized codes, but graph.quant has no entry for 'b' to give their real values");
}
END_TEST

/* 4.1.3: labels compare ignoring case; a single file matching so is the
 * variable's, several are ambiguous */
START_TEST(label_case)
{
	put_text("graph.nnef", GRAPH);
	put_dat("Layer/W.dat", DAT_FLOAT, 32, 2, S16_8);
	put_dat("layer/b.dat", DAT_FLOAT, 32, 2, S1_16);
	expect_clean();
	put_dat("layer/W.dat", DAT_FLOAT, 32, 2, S16_8);
	expect_one("E1105", "5:9", "matches several data files ignoring case: 'Layer/W.dat', 'layer/W.dat'");
}
END_TEST

/* Files nothing uses are reported; another version of a file ("several
 * versions of the same data ... having additional extensions after
 * '.dat'", 5.1) is not a .dat file. */
START_TEST(unused_files)
{
	put_model();
	put_dat("layer/w.dat.q8", DAT_QUINT, 8, 2, S16_8);
	put_text("vendor/notes.txt", "vendor data is omitted by other tools (5.1)\n");
	put_dat("old/w.dat", DAT_FLOAT, 32, 2, S16_8);
	expect_one("W1104", "@old/w.dat", "'old/w.dat' is not the data of any variable (a variable labelled 'old/w' would use it)");
}
END_TEST

/* The conformance cases keep sample inputs and outputs as input.dat and
 * output.dat: compared with the graph's tensors, not reported unused. */
START_TEST(sample_data)
{
	put_model();
	static const uint32_t s28[] = { 2, 8 }, s2_16[] = { 2, 16 };
	put_dat("input.dat", DAT_FLOAT, 32, 2, s28);
	put_dat("output.dat", DAT_FLOAT, 32, 2, s2_16);
	expect_clean();
	put_dat("output.dat", DAT_FLOAT, 32, 2, S16_8);
	expect_one("W1106", "@output.dat", "'output.dat' holds a tensor of shape [16,8], but the graph's 'output' has shape [2,16]");
}
END_TEST

/* 5.2: a broken header is reported once, naming the file */
START_TEST(bad_header)
{
	put_model();
	unsigned char junk[200] = { 'N', 0 };
	put_file("layer/b.dat", junk, sizeof(junk));
	expect_one("E1001", "@layer/b.dat", "layer/b.dat: not an NNEF tensor file: it starts with 0x4e 0x00, not the magic 'N' 0xEF");
}
END_TEST

/* Links inside a model are never followed */
START_TEST(linked_file)
{
	put_text("graph.nnef", GRAPH);
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	put_dat("elsewhere.bin", DAT_FLOAT, 32, 2, S1_16);
	char link[512];
	snprintf(link, sizeof(link), "%s/layer/b.dat", dir);
	ck_assert_int_eq(symlink("../elsewhere.bin", link), 0);
	expect_one("E0005", "@layer/b.dat", "'layer/b.dat' is a link or a special file; links in a model are never followed");
}
END_TEST

/* Variables sharing a label share one file, checked once */
START_TEST(shared_label)
{
	put_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y, z )\n{\n    x = external(shape = [2]);\n    y = variable(shape = [4], label = 'shared');\n    z = variable(shape = [4], label = 'SHARED');\n}\n");
	static const uint32_t s3[] = { 3 };
	put_dat("shared.dat", DAT_FLOAT, 32, 1, s3);
	expect_one("E1102", "5:9", "holds a tensor of shape [3], but variable 'y' has shape [4]");
}
END_TEST

/* What the interpreter uses: one ModelVar per label (ignoring case), its
 * file and header; the files read again through model_read_files. */
START_TEST(variables_for_running)
{
	put_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y, z, w )\n{\n    x = external(shape = [2]);\n    y = variable(shape = [4], label = 'shared');\n    z = variable(shape = [4], label = 'SHARED');\n    w = variable(shape = [1, 16], label = 'layer/b');\n}\n");
	static const uint32_t s4[] = { 4 };
	put_dat("shared.dat", DAT_FLOAT, 32, 1, s4);
	put_dat("layer/b.dat", DAT_FLOAT, 16, 2, S1_16);
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(m.status == MODEL_VALID, "%s", r);
	ck_assert_uint_eq(m.nvars, 2);
	const FlatGraph *g = m.flat;
	const ModelVar *first = model_variable(&m, g->ops[1]);
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_eq(model_variable(&m, g->ops[2]), first);
	ck_assert_ptr_null(model_variable(&m, g->ops[0]));
	ck_assert(first->header && first->file && strcmp(first->file->name, "shared.dat") == 0);
	ck_assert_uint_eq(first->header->bits, 32);
	const ModelVar *b = model_variable(&m, g->ops[3]);
	ck_assert(b->header && b->header->bits == 16 && b->header->rank == 2);
	Seen seen = { 0 };
	DiagList dl;
	diag_list_init(&dl, 0);
	ck_assert(model_read_files(&m, note_file, &seen, &dl));
	ck_assert_uint_eq(seen.n, 2);
	for (size_t i = 0; i < seen.n; i++)
		ck_assert_int_eq(seen.bytes[i], strcmp(seen.names[i], "shared.dat") == 0 ? 128 + 16 : 128 + 32);
	diag_list_free(&dl);
	free(r);
	model_free(&m);
	/* --random-weights: a missing file is no error, the variable has
	 * none */
	remove_tree(dir);
	mkdir(dir, 0777);
	put_text("graph.nnef", GRAPH);
	ModelOptions opt = { .max_errors = 20, .missing_data_ok = true };
	r = check(&m, &opt);
	ck_assert_msg(m.status == MODEL_VALID && m.nvars == 2, "%s", r);
	ck_assert_ptr_null(m.vars[0].file);
	ck_assert(!m.vars[0].header);
	free(r);
	model_free(&m);
}
END_TEST

START_TEST(no_graph)
{
	put_dat("layer/w.dat", DAT_FLOAT, 32, 2, S16_8);
	Model m;
	char *r = check(&m, NULL);
	ck_assert_int_eq(m.status, MODEL_IO_ERROR);
	ck_assert_msg(strstr(r, "error[E0002]") && strstr(r, "is a directory without graph.nnef"), "%s", r);
	free(r);
	model_free(&m);
}
END_TEST

/* ---- graph.quant (5.3) ---------------------------------------------------------- */

/* A model with graph.quant; no variables, so no tensor files are needed. */
static void put_quant(const char *quant)
{
	put_text("graph.nnef", "version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, 4, 2, 2]);\n    output = relu(input);\n}\n");
	put_text("graph.quant", quant);
}

START_TEST(quant_valid)
{
	/* 5.3: "named arguments with compile-time expressions": the
	 * document's operators, built-ins and comprehensions */
	put_quant("\"input\": linear_quantize(min = -2.0 * 0.5, max = 1.0, bits = 4 + 4);\n"
		  "'output': min_max_linear_quantize(min = [[0.0, 0.0, 0.0, 0.0]], max = 6.0, bits = 8, signed = false, symmetric = false);\n"
		  "# a comment\n");
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(m.status == MODEL_VALID && m.diags.len == 0, "%s", r);
	ck_assert_uint_eq(m.quant->nitems, 2);
	/* evaluated for the graph, in graph order */
	ck_assert_uint_eq(m.flat->nquant, 2);
	ck_assert_str_eq(m.flat->quant[0]->op->name, "linear_quantize");
	ck_assert_str_eq(m.flat->quant[1]->op->name, "min_max_linear_quantize");
	const Value *const *a = m.flat->quant[0]->args;
	ck_assert(a[1]->kind == VAL_SCALAR && a[1]->u.s == -1.0);
	ck_assert(a[3]->kind == VAL_INT && a[3]->u.i == 8);
	ck_assert(!m.flat->quantized);
	free(r);
	model_free(&m);
	/* a comprehension's iterators are the one identifier allowed */
	put_quant("\"input\": linear_quantize(min = [[for i in range_of([1, 2, 3, 4]) yield -scalar(i)]], max = 1.0, bits = 8);\n");
	r = check(&m, NULL);
	ck_assert_msg(m.status == MODEL_VALID && m.diags.len == 0, "%s", r);
	free(r);
	model_free(&m);
}
END_TEST

START_TEST(quant_errors)
{
	static const struct {
		const char *line, *code, *pos, *text;
	} cases[] = {
		/* read by the document's grammar: its syntax errors */
		{ "input: linear_quantize(min = -1.0, max = 1.0, bits = 8);", "E0201", "1:1", "expected string literal or end of input near 'input'" },
		{ "\"input\" linear_quantize(min = -1.0);", "E0201", "1:9", "expected ':' near 'linear_quantize'" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0, bits = 8)", "E0202", "1:58", "expected ';' after the entry at end of input" },
		{ "\"input\": linear_quantize(-1.0, 1.0, 8);", "E1201", "1:26", "a positional argument; arguments in graph.quant are given by name" },
		{ "\"input\": 3 + 4;", "E1201", "1:10", "expected the invocation of a quantization operation after ':' in graph.quant, not an operator expression" },
		{ "\"input\": linear_quantize(min = input, max = 1.0, bits = 8);", "E1201", "1:32", "'input' is an identifier; arguments in graph.quant are compile-time expressions, with no tensor ids" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0 + [0.5][k], bits = 8);", "E1201", "1:56", "'k' is an identifier" },
		{ "\"conv\": linear_quantize(min = -1.0, max = 1.0, bits = 8);", "E1202", "1:1", "'conv' is not a tensor of the graph" },
		{ "\"input\": scramble(min = -1.0);", "E1203", "1:10", "unknown operation 'scramble'" },
		{ "\"input\": sigmoid(x = 1.0);", "E1203", "1:10", "'sigmoid' is not a quantization operation (spec 4.9.5" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0);", "E1204", "1:10", "'linear_quantize' needs the argument 'bits'" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0, bits = 8, gain = 2.0);", "E1204", "1:59", "'linear_quantize' has no parameter 'gain'" },
		{ "\"input\": linear_quantize(x = 1.0, min = -1.0, max = 1.0, bits = 8);", "E1204", "1:26", "'x' is the tensor being quantized" },
		{ "\"input\": linear_quantize(min = -1.0, min = 1.0, max = 1.0, bits = 8);", "E1204", "1:38", "'min' is given twice" },
		{ "\"input\": linear_quantize(min = -1, max = 1.0, bits = 8);", "E1204", "1:32", "'min' takes a scalar value (or an array of them, per channel), not integer" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0, bits = 8.0);", "E1204", "1:56", "'bits' takes a value of type integer, not scalar" },
		{ "\"input\": linear_quantize(min = -1.0, max = 1.0, bits = 16 / 0);", "E0802", "1:56", "division by zero" },
		{ "\"input\": linear_quantize(min = [[-1.0], [-1.0, 2.0]], max = 1.0, bits = 8);", "E1206", "1:32", "'min': a per-channel array must be rectangular" },
		{ "\"input\": linear_quantize(min = [-1.0, -2.0], max = 1.0, bits = 8);", "E1206", "1:32", "'min': an array of shape [2] does not broadcast to the shape [1,4,2,2] of 'input' (dimension 0)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_quant(cases[i].line);
		Model m;
		char *r = check(&m, NULL);
		const Diag *d = m.diags.len ? m.diags.items[0] : NULL;
		ck_assert_msg(d && strcmp(diag_code_name(d->code), cases[i].code) == 0 && strstr(d->msg, cases[i].text) && strcmp(tdoc_pos(d), cases[i].pos) == 0, "%s\n%s", cases[i].line, r);
		free(r);
		model_free(&m);
	}
	put_quant("\"input\": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n\"input\": linear_quantize(min = -2.0, max = 2.0, bits = 8);\n");
	Model m;
	char *r = check(&m, NULL);
	ck_assert_msg(strstr(r, "graph.quant:2:1: error[E1205]: 'input' is quantized twice") && strstr(r, "graph.quant:1:1: note: its first entry is here"), "%s", r);
	free(r);
	model_free(&m);
}
END_TEST

/* A misspelt tensor or quantization operation in graph.quant gets "did
 * you mean" (the graph's tensors, the quantization operations); a name
 * near none gets no hint. */
START_TEST(quant_did_you_mean)
{
	static const struct {
		const char *line, *hint;
	} cases[] = {
		{ "\"inptu\": linear_quantize(min = -1.0, max = 1.0, bits = 8);", "did you mean 'input'?" },
		{ "\"input\": linaer_quantize(min = -1.0, max = 1.0, bits = 8);", "did you mean 'linear_quantize'?" },
		{ "\"input\": logarithmic_quantise(max = 1.0, bits = 8);", "did you mean 'logarithmic_quantize'?" },
		{ "\"weightsandbiases\": linear_quantize(min = -1.0, max = 1.0, bits = 8);", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_quant(cases[i].line);
		Model m;
		char *r = check(&m, NULL);
		const Diag *d = m.diags.len ? m.diags.items[0] : NULL;
		ck_assert_msg(d && (cases[i].hint ? d->hint && strcmp(d->hint, cases[i].hint) == 0 : !d->hint), "%s\n%s", cases[i].line, r);
		free(r);
		model_free(&m);
	}
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *stages = tcase_create("locating and stages");
	tcase_set_timeout(stages, 30);
	tcase_add_checked_fixture(stages, setup, teardown);
	tcase_add_test(stages, locating_a_model);
	tcase_add_test(stages, bare_graph_file);
	tcase_add_test(stages, missing_model);
	tcase_add_test(stages, stages_stop_at_errors);
	tcase_add_test(stages, no_sema_after_syntax_errors);
	tcase_add_test(stages, error_limits);
	tcase_add_test(stages, fragments_by_name);
	tcase_add_test(stages, model_inside_a_model);
	suite_add_tcase(s, stages);
	TCase *tc = tcase_create("model data");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, valid_model);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, wrong_shape);
	tcase_add_test(tc, wrong_item_type);
	tcase_add_test(tc, quantized_without_entry);
	tcase_add_test(tc, label_case);
	tcase_add_test(tc, unused_files);
	tcase_add_test(tc, sample_data);
	tcase_add_test(tc, bad_header);
	tcase_add_test(tc, linked_file);
	tcase_add_test(tc, shared_label);
	tcase_add_test(tc, no_graph);
	tcase_add_test(tc, variables_for_running);
	tcase_add_test(tc, quant_valid);
	tcase_add_test(tc, quant_errors);
	tcase_add_test(tc, quant_did_you_mean);
	suite_add_tcase(s, tc);
	return s;
}
