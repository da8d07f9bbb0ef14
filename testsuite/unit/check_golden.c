/*
 * check_golden.c - golden diagnostics: every testsuite/golden/<dir>/X.nnef
 * is checked as nnef-check checks it, and the rendered diagnostics must
 * equal X.err byte for byte (message, file:line:col, source line and
 * caret). A case whose .err holds an "error[" line must be invalid, any
 * other valid. Cases in golden/lenient/ are checked with --lenient.
 * scripts/golden-update.sh rewrites the .err files; review its diff before
 * committing.
 *
 *   syntax/   lexical and syntax errors, document structure, extensions
 *   sema/     types, declarations, invocations, identifiers (spec 3.3)
 *   lenient/  the deviations --lenient downgrades to warnings
 */
#include "model/model.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_all(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	StrBuf b;
	sb_init(&b);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sb_putn(&b, buf, n);
	fclose(fp);
	char *s = strdup(sb_str(&b));
	sb_free(&b);
	return s;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every case of one golden directory; returns the number checked. */
static size_t run_dir(const char *sub, bool lenient, StrBuf *failures)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/golden/%s", test_srcdir(), sub);
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".nnef") == 0) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);

	char cwd[4096];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
	for (size_t i = 0; i < n; i++) {
		char errpath[4096];
		snprintf(errpath, sizeof(errpath), "%.*s.err",
			 (int)(strlen(names[i]) - 5), names[i]);
		char *want = read_all(errpath);
		if (!want) {
			sb_printf(failures, "%s/%s: missing %s\n", sub,
				  names[i], errpath);
			free(names[i]);
			continue;
		}
		Model m;
		ModelOptions opt = { .max_errors = 20, .lenient = lenient };
		ModelStatus st = model_check(&m, names[i], &opt);
		StrBuf got;
		sb_init(&got);
		model_render_diags(&m, "nnef-check", &got, false, true);
		ModelStatus want_st = strstr(want, "error[") ? MODEL_INVALID
							     : MODEL_VALID;
		if (strcmp(sb_str(&got), want) != 0)
			sb_printf(failures,
				  "%s/%s: diagnostics differ\n--- want\n%s"
				  "--- got\n%s",
				  sub, names[i], want, sb_str(&got));
		else if (st != want_st)
			sb_printf(failures, "%s/%s: status %d, want %d\n", sub,
				  names[i], (int)st, (int)want_st);
		sb_free(&got);
		model_free(&m);
		free(want);
		free(names[i]);
	}
	free(names);
	ck_assert_int_eq(chdir(cwd), 0);
	return n;
}

START_TEST(syntax_goldens)
{
	StrBuf failures;
	sb_init(&failures);
	size_t n = run_dir("syntax", false, &failures);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	/* the foundation issue asks for at least 40 distinct errors */
	ck_assert_uint_ge(n, 40);
	sb_free(&failures);
}
END_TEST

START_TEST(sema_goldens)
{
	StrBuf failures;
	sb_init(&failures);
	size_t n = run_dir("sema", false, &failures);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	/* the semantic analysis issue asks for at least 150 cases */
	ck_assert_uint_ge(n, 150);
	sb_free(&failures);
}
END_TEST

START_TEST(lenient_goldens)
{
	StrBuf failures;
	sb_init(&failures);
	size_t n = run_dir("lenient", true, &failures);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	ck_assert_uint_ge(n, 2);
	sb_free(&failures);
}
END_TEST

Suite *golden_suite(void)
{
	Suite *s = suite_create("golden");
	TCase *tc = tcase_create("diagnostics");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, syntax_goldens);
	tcase_add_test(tc, sema_goldens);
	tcase_add_test(tc, lenient_goldens);
	suite_add_tcase(s, tc);
	return s;
}
