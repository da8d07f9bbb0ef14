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
 *   flatten/  compile-time evaluation and expansion: X.flat holds the
 *             exact output of nnef-flatten for a valid X.nnef, which must
 *             also check without errors and flatten to itself again. A
 *             first line "#! OPTIONS" gives nnef-flatten options
 *             (--keep=..., --keep-standard, --max-depth=N).
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

/* Options from a first line "#! --keep=a,b --keep-standard --max-depth=N"
 * (the keep names are stored in *storage, freed by the caller). */
static void parse_options(const char *text, FlattenOptions *fo,
			  char **storage, const char ***names)
{
	*storage = NULL;
	*names = NULL;
	if (strncmp(text, "#! ", 3) != 0)
		return;
	const char *end = strchr(text, '\n');
	size_t len = end ? (size_t)(end - text) : strlen(text);
	*storage = strndup(text + 3, len - 3);
	size_t n = 0;
	for (char *tok = strtok(*storage, " "); tok; tok = strtok(NULL, " ")) {
		if (strcmp(tok, "--keep-standard") == 0) {
			fo->keep_standard = true;
		} else if (strncmp(tok, "--max-depth=", 12) == 0) {
			fo->max_depth = (size_t)strtoul(tok + 12, NULL, 10);
		} else if (strncmp(tok, "--keep=", 7) == 0) {
			for (char *p = tok + 7; p && *p;) {
				char *comma = strchr(p, ',');
				if (comma)
					*comma = '\0';
				*names = realloc(*names, (n + 1) * sizeof(**names));
				(*names)[n++] = p;
				p = comma ? comma + 1 : NULL;
			}
		}
	}
	fo->keep = *names;
	fo->nkeep = n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A valid flatten case: the output equals X.flat, checks without errors
 * and flattens to itself. */
static void check_flat_output(const char *sub, const char *name, Model *m,
			      const ModelOptions *opt, StrBuf *failures)
{
	StrBuf out;
	sb_init(&out);
	if (m->flat)
		flat_print(&out, m->flat);
	char flatpath[4096];
	snprintf(flatpath, sizeof(flatpath), "%.*s.flat",
		 (int)(strlen(name) - 5), name);
	char *want = read_all(flatpath);
	if (!want) {
		sb_printf(failures, "%s/%s: missing %s\n", sub, name, flatpath);
	} else if (strcmp(want, sb_str(&out)) != 0) {
		sb_printf(failures, "%s/%s: flat output differs\n--- want\n%s"
				    "--- got\n%s",
			  sub, name, want, sb_str(&out));
	} else {
		Model again;
		ModelStatus st = model_check_text(&again, flatpath, out.data,
						  out.len, opt);
		StrBuf second;
		sb_init(&second);
		if (again.flat)
			flat_print(&second, again.flat);
		if (st != MODEL_VALID || again.diags.nerrors)
			sb_printf(failures, "%s/%s: the flat output is not "
					    "valid\n",
				  sub, name);
		else if (strcmp(sb_str(&second), sb_str(&out)) != 0)
			sb_printf(failures, "%s/%s: flattening the output "
					    "again changes it\n--- again\n%s",
				  sub, name, sb_str(&second));
		sb_free(&second);
		model_free(&again);
	}
	free(want);
	sb_free(&out);
}

/* Runs every case of one golden directory; returns the number checked. */
static size_t run_dir(const char *sub, bool lenient, StrBuf *failures)
{
	bool flat = strcmp(sub, "flatten") == 0;
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
		char *text = read_all(names[i]);
		char *storage;
		const char **keep;
		parse_options(text ? text : "", &opt.flatten, &storage, &keep);
		ModelStatus st = model_check(&m, names[i], &opt);
		StrBuf got;
		sb_init(&got);
		model_render_diags(&m, flat ? "nnef-flatten" : "nnef-check", &got,
				   false, true);
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
		if (flat && st == MODEL_VALID)
			check_flat_output(sub, names[i], &m, &opt, failures);
		sb_free(&got);
		model_free(&m);
		free(want);
		free(text);
		free(storage);
		free(keep);
		free(names[i]);
	}
	free(names);
	ck_assert_int_eq(chdir(cwd), 0);
	return n;
}

/* Runs a golden directory and asserts it passed and holds at least min
 * cases. */
static void check_dir(const char *sub, bool lenient, size_t min)
{
	StrBuf failures;
	sb_init(&failures);
	size_t n = run_dir(sub, lenient, &failures);
	ck_assert_msg(failures.len == 0, "%.3000s", sb_str(&failures));
	ck_assert_uint_ge(n, min);
	sb_free(&failures);
}

/* the foundation issue asks for at least 40 distinct syntax errors */
START_TEST(syntax_goldens)
{
	check_dir("syntax", false, 40);
}
END_TEST

/* the semantic analysis issue asks for at least 150 cases */
START_TEST(sema_goldens)
{
	check_dir("sema", false, 150);
}
END_TEST

START_TEST(lenient_goldens)
{
	check_dir("lenient", true, 2);
}
END_TEST

START_TEST(flatten_goldens)
{
	check_dir("flatten", false, 30);
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
	tcase_add_test(tc, flatten_goldens);
	suite_add_tcase(s, tc);
	return s;
}
