/*
 * check_corpus.c - every real document in the corpus (../shared/corpus,
 * or $NNEF_CORPUS) must be accepted without errors or warnings: the
 * OpenVX conformance cases (openvx-cts-nnef/<case>/graph.nnef) and the
 * NNEF-Tools example networks (nnef-tools-examples/<net>.nnef).
 * When the corpus is absent the suite says so on stderr and checks
 * nothing, unless NNEF_REQUIRE_CORPUS is set (CI sets it).
 */
#include "model/model.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Checks one model; appends a report to failures when it is not valid,
 * or when its flat form is not valid or not a fixed point of flattening.
 * Warnings are allowed: the NNEF-Tools examples pass tensors by name,
 * which the specification deprecates (W0613). */
static void check_one(const char *path, StrBuf *failures)
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
	StrBuf flat1, flat2;
	sb_init(&flat1);
	sb_init(&flat2);
	flat_print(&flat1, m.flat);
	Model again;
	st = model_check_text(&again, "flat.nnef", flat1.data, flat1.len, &opt);
	if (st != MODEL_VALID || again.diags.len != 0 || !again.flat) {
		sb_printf(failures, "%s: its flat form does not check cleanly\n",
			  path);
	} else {
		flat_print(&flat2, again.flat);
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
	fprintf(stderr, "corpus: not found at '%s'; corpus tests skipped\n",
		getenv("NNEF_CORPUS") ? getenv("NNEF_CORPUS") : "");
	return false;
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
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		StrBuf path;
		sb_init(&path);
		sb_printf(&path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(sb_str(&path), &st) == 0 && S_ISDIR(st.st_mode)) {
			check_one(sb_str(&path), &failures);
			n++;
		}
		sb_free(&path);
	}
	closedir(d);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	ck_assert_uint_ge(n, 74);
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
		check_one(path, &failures);
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
	tcase_add_test(tc, openvx_conformance_graphs_parse);
	tcase_add_test(tc, nnef_tools_examples_parse);
	suite_add_tcase(s, tc);
	return s;
}
