/*
 * check_corpus.c - every real document in the corpus (../shared/corpus,
 * or $NNEF_CORPUS) must be accepted without errors or warnings: the
 * OpenVX conformance cases (openvx-cts-nnef/<case>/graph.nnef) and the
 * NNEF-Tools example networks (nnef-tools-examples/<net>.nnef).
 * Their shapes are checked too: the conformance cases against the
 * extents in the headers of their .dat files (inputs, outputs and
 * weights), the example networks against the layers worked out by hand
 * from the spec's formulas in testsuite/golden/nets/<net>.shapes.
 * When the corpus is absent the suite checks nothing (the unit program
 * says so once, on stderr), unless NNEF_REQUIRE_CORPUS is set (CI sets
 * it): then each test fails.
 */
#include "model/model.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

/* The shape in the header of a tensor file (spec 5.2: magic 'N' 0xEF, two
 * version bytes, the data length, then the rank and 8 extents, all 4-byte
 * little-endian). */
static bool dat_shape(const char *path, uint32_t *rank, int64_t dims[8])
{
	unsigned char h[44];
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return false;
	bool ok = fread(h, 1, sizeof(h), fp) == sizeof(h) && h[0] == 0x4e &&
		  h[1] == 0xef;
	fclose(fp);
	if (!ok)
		return false;
	*rank = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
		(uint32_t)h[11] << 24;
	for (int i = 0; i < 8; i++) {
		const unsigned char *p = h + 12 + 4 * i;
		dims[i] = (int64_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	}
	return *rank <= 8;
}

/* The tensor of the flat graph that file X.dat of a conformance case
 * holds: the graph parameter or result named X, or the variable with
 * label X. */
static const FlatTensor *dat_tensor(const FlatGraph *g, const char *x)
{
	for (size_t i = 0; i < g->nops; i++) {
		const FlatOp *op = g->ops[i];
		if (op->prim != SHAPE_OP_VARIABLE)
			continue;
		const Value *label = flat_op_args(op)[1];
		if (strlen(x) == label->n &&
		    memcmp(x, label->u.str, label->n) == 0)
			return op->results[0]->u.t;
	}
	for (size_t i = 0; i < g->ntensors; i++)
		if (flat_tensor(g, i)->bound && strcmp(flat_tensor(g, i)->name, x) == 0)
			return flat_tensor(g, i);
	return NULL;
}

/* Every .dat file of conformance case dir has the shape the graph gives
 * its tensor; returns how many were compared. */
static size_t compare_dat_shapes(const char *dir, const FlatGraph *g,
				 StrBuf *failures)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".dat") != 0)
			continue;
		char name[256], path[4096];
		snprintf(name, sizeof(name), "%.*s", (int)(len - 4), e->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		const FlatTensor *t = dat_tensor(g, name);
		uint32_t rank;
		int64_t dims[8];
		if (!t || !dat_shape(path, &rank, dims)) {
			sb_printf(failures, "%s: no tensor for it, or no header\n", path);
			continue;
		}
		Shape want = { dims, rank, true };
		Shape got = flat_tensor_shape(t);
		if (!shape_equal(&got, &want)) {
			StrBuf a, b;
			sb_init(&a);
			sb_init(&b);
			shape_print(&a, &got);
			shape_print(&b, &want);
			sb_printf(failures, "%s: the graph gives %s, the file %s\n", path, sb_str(&a), sb_str(&b));
			sb_free(&a);
			sb_free(&b);
		}
		n++;
	}
	closedir(d);
	return n;
}

/* Each line of the hand-worked file (not a '#' comment) appears in the
 * --shapes=all listing of the network, in the same order. */
static void compare_net_shapes(const char *net, const FlatGraph *g,
			       StrBuf *failures)
{
	char *want = NULL;
	char rel[256];
	snprintf(rel, sizeof(rel), "testsuite/golden/nets/%s.shapes", net);
	want = test_read_source_file(rel);
	ck_assert_msg(want != NULL, "cannot read %s", rel);
	StrBuf got;
	sb_init(&got);
	flat_print_shapes(&got, g, true);
	const char *at = sb_str(&got);
	size_t lines = 0;
	for (char *line = strtok(want, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#' || !line[0])
			continue;
		char key[512];
		snprintf(key, sizeof(key), "%s\n", line);
		const char *hit = strstr(at, key);
		/* a whole line: at the start or after a newline */
		while (hit && hit != sb_str(&got) && hit[-1] != '\n')
			hit = strstr(hit + 1, key);
		if (!hit) {
			sb_printf(failures, "%s: '%s' is not in the shapes (or not in order)\n", net, line);
			continue;
		}
		at = hit + strlen(key);
		lines++;
	}
	ck_assert_msg(lines >= 12, "%s: only %zu hand-worked lines", net, lines);
	sb_free(&got);
	free(want);
}

/* Checks one model; appends a report to failures when it is not valid,
 * or when its flat form is not valid or not a fixed point of flattening.
 * Warnings are allowed: the NNEF-Tools examples pass tensors by name,
 * which the specification deprecates (W0613). */
static void check_one(const char *path, const char *net, StrBuf *failures,
		      size_t *dats)
{
	Model m;
	ModelOptions opt = { .max_errors = 20 };
	ModelStatus st = model_check(&m, path, &opt);
	if (st != MODEL_VALID || m.diags.nerrors != 0 || !m.flat) {
		StrBuf out;
		sb_init(&out);
		model_render_diags(&m, "nnef-check", &out, false, true);
		sb_printf(failures, "%s: status %d\n%s", path, (int)st,
			  sb_str(&out));
		sb_free(&out);
		model_free(&m);
		return;
	}
	if (net)
		compare_net_shapes(net, m.flat, failures);
	else
		*dats += compare_dat_shapes(path, m.flat, failures);
	StrBuf flat1, flat2;
	sb_init(&flat1);
	sb_init(&flat2);
	flat_print(&flat1, m.flat, false);
	Model again;
	st = model_check_text(&again, "flat.nnef", flat1.data, flat1.len, &opt);
	if (st != MODEL_VALID || again.diags.len != 0 || !again.flat) {
		sb_printf(failures, "%s: its flat form does not check cleanly\n",
			  path);
	} else {
		flat_print(&flat2, again.flat, false);
		if (strcmp(sb_str(&flat1), sb_str(&flat2)) != 0)
			sb_printf(failures, "%s: flattening is not a fixed "
					    "point\n",
				  path);
	}
	model_free(&again);
	sb_free(&flat1);
	sb_free(&flat2);
	model_free(&m);
}

static bool corpus_present(void)
{
	if (test_corpus())
		return true;
	ck_assert_msg(getenv("NNEF_REQUIRE_CORPUS") == NULL,
		      "corpus not found at '%s' (NNEF_CORPUS)",
		      getenv("NNEF_CORPUS") ? getenv("NNEF_CORPUS") : "");
	return false; /* check_main.c says so, once */
}

START_TEST(openvx_conformance_graphs_parse)
{
	if (!corpus_present())
		return;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/openvx-cts-nnef", test_corpus());
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	StrBuf failures;
	sb_init(&failures);
	size_t n = 0, dats = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		StrBuf path;
		sb_init(&path);
		sb_printf(&path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(sb_str(&path), &st) == 0 && S_ISDIR(st.st_mode)) {
			check_one(sb_str(&path), NULL, &failures, &dats);
			n++;
		}
		sb_free(&path);
	}
	closedir(d);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	ck_assert_uint_ge(n, 74);
	/* every case has an input and an output file at least */
	ck_assert_uint_ge(dats, 2 * 74);
	sb_free(&failures);
}
END_TEST

START_TEST(nnef_tools_examples_parse)
{
	if (!corpus_present())
		return;
	static const char *nets[] = { "alexnet", "googlenet", "resnet", "vgg" };
	StrBuf failures;
	sb_init(&failures);
	for (size_t i = 0; i < 4; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/nnef-tools-examples/%s.nnef",
			 test_corpus(), nets[i]);
		check_one(path, nets[i], &failures, NULL);
	}
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	sb_free(&failures);
}
END_TEST

Suite *corpus_suite(void)
{
	Suite *s = suite_create("corpus");
	TCase *tc = tcase_create("documents");
	tcase_set_timeout(tc, 60);
	TEST_ADD_CORPUS(tc, openvx_conformance_graphs_parse);
	TEST_ADD_CORPUS(tc, nnef_tools_examples_parse);
	suite_add_tcase(s, tc);
	return s;
}
