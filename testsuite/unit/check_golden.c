/*
 * check_golden.c - golden diagnostics: every testsuite/golden/<dir>/X.nnef
 * is checked as nnef-check checks it, and the rendered diagnostics must
 * equal X.err byte for byte (message, file:line:col, source line and
 * caret). A case whose .err holds an "error[" line must be invalid, any
 * other valid. Cases in golden/lenient/ are checked with --lenient, those
 * of golden/tract/ with --dialect=tract.
 * scripts/golden-update.sh rewrites the .err files; review its diff before
 * committing.
 *
 *   syntax/   lexical and syntax errors, document structure, extensions
 *   sema/     types, declarations, invocations, identifiers (spec 3.3)
 *   lenient/  the deviations --lenient downgrades to warnings
 *   tract/    tract's dialect (nnef-tract(7)): its constructs, misused
 *             and not; a valid case has X.shapes, the exact output of
 *             nnef-check --dialect=tract --shapes=all (datum types,
 *             symbolic extents), worked out by hand
 *   flatten/  compile-time evaluation and expansion: X.flat holds the
 *             exact output of nnef-flatten for a valid X.nnef, which must
 *             also check without errors and flatten to itself again. A
 *             first line "#! OPTIONS" gives nnef-flatten options
 *             (--keep=..., --keep-standard, --max-depth=N,
 *             --annotate-shapes, --input-shape=NAME=D0,D1,...).
 *   shapes/   argument validity and result shapes (spec chapter 4): an
 *             invalid case names the code of its first error at the end
 *             of its first line ("... [E0907]"); a valid one has X.shapes,
 *             the exact output of nnef-check --shapes=all (every tensor,
 *             those inside expansions too).
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

/* The options of a case, from a first line "#! --keep=a,b
 * --keep-standard --max-depth=N --annotate-shapes --input-shape=x=1,2". */
typedef struct CaseOpts {
	FlattenOptions fo;
	bool annotate;
	char *storage;          /* the option text, split in place */
	const char **names;     /* --keep names */
	InputShape inputs[4];
	int64_t dims[4][8];
} CaseOpts;

static void parse_input_shape(CaseOpts *co, char *spec)
{
	char *eq = strchr(spec, '=');
	ck_assert_msg(eq && co->fo.ninput_shapes < 4, "bad --input-shape");
	*eq = '\0';
	InputShape *is = &co->inputs[co->fo.ninput_shapes];
	int64_t *dims = co->dims[co->fo.ninput_shapes++];
	is->name = spec;
	is->dims = dims;
	is->rank = 0;
	for (char *p = eq + 1; *p && is->rank < 8;) {
		dims[is->rank++] = strtoll(p, &p, 10);
		if (*p == ',')
			p++;
	}
	co->fo.input_shapes = co->inputs;
}

static void parse_options(const char *text, CaseOpts *co)
{
	memset(co, 0, sizeof(*co));
	if (strncmp(text, "#! ", 3) != 0)
		return;
	const char *end = strchr(text, '\n');
	size_t len = end ? (size_t)(end - text) : strlen(text);
	co->storage = strndup(text + 3, len - 3);
	size_t n = 0;
	for (char *tok = strtok(co->storage, " "); tok; tok = strtok(NULL, " ")) {
		if (strcmp(tok, "--keep-standard") == 0) {
			co->fo.keep_standard = true;
		} else if (strcmp(tok, "--annotate-shapes") == 0) {
			co->annotate = true;
		} else if (strncmp(tok, "--input-shape=", 14) == 0) {
			parse_input_shape(co, tok + 14);
		} else if (strncmp(tok, "--max-depth=", 12) == 0) {
			co->fo.max_depth = (size_t)strtoul(tok + 12, NULL, 10);
		} else if (strncmp(tok, "--keep=", 7) == 0) {
			for (char *p = tok + 7; p && *p;) {
				char *comma = strchr(p, ',');
				if (comma)
					*comma = '\0';
				co->names = realloc(co->names,
						    (n + 1) * sizeof(*co->names));
				co->names[n++] = p;
				p = comma ? comma + 1 : NULL;
			}
		}
	}
	co->fo.keep = co->names;
	co->fo.nkeep = n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "X.ext" for the case file X.nnef. */
static void sibling(char *buf, size_t size, const char *name, const char *ext)
{
	snprintf(buf, size, "%.*s%s", (int)(strlen(name) - 5), name, ext);
}

/* A valid flatten case: the output equals X.flat, checks without errors
 * and flattens to itself (annotated again when --annotate-shapes). */
static void check_flat_output(const char *sub, const char *name, Model *m,
			      const ModelOptions *opt, bool annotate,
			      StrBuf *failures)
{
	StrBuf out;
	sb_init(&out);
	if (m->flat)
		flat_print(&out, m->flat, annotate);
	char flatpath[4096];
	sibling(flatpath, sizeof(flatpath), name, ".flat");
	char *want = read_all(flatpath);
	if (!want) {
		sb_printf(failures, "%s/%s: missing %s\n", sub, name, flatpath);
	} else if (strcmp(want, sb_str(&out)) != 0) {
		sb_printf(failures, "%s/%s: flat output differs\n--- want\n%s--- got\n%s", sub, name, want, sb_str(&out));
	} else {
		/* the flat output is read back as written: no input shape
		 * overrides any more */
		ModelOptions again_opt = *opt;
		again_opt.flatten.ninput_shapes = 0;
		Model again;
		ModelStatus st = model_check_text(&again, flatpath, out.data,
						  out.len, &again_opt);
		StrBuf second;
		sb_init(&second);
		if (again.flat)
			flat_print(&second, again.flat, annotate);
		if (st != MODEL_VALID || again.diags.nerrors)
			sb_printf(failures, "%s/%s: the flat output is not valid\n", sub, name);
		else if (strcmp(sb_str(&second), sb_str(&out)) != 0)
			sb_printf(failures, "%s/%s: flattening the output again changes it\n--- again\n%s", sub, name, sb_str(&second));
		sb_free(&second);
		model_free(&again);
	}
	free(want);
	sb_free(&out);
}

/* A shapes case: a valid one lists its tensors' shapes exactly as X.shapes
 * says; an invalid one names in its first line ("... [E0907]") the code of
 * its first error. */
static void check_shapes_case(const char *sub, const char *name,
			      const char *text, const Model *m,
			      const char *rendered, StrBuf *failures)
{
	if (m->status == MODEL_VALID) {
		char path[4096];
		sibling(path, sizeof(path), name, ".shapes");
		char *want = read_all(path);
		StrBuf got;
		sb_init(&got);
		if (m->flat)
			flat_print_shapes(&got, m->flat, true);
		if (!want)
			sb_printf(failures, "%s/%s: missing %s\n", sub, name, path);
		else if (strcmp(want, sb_str(&got)) != 0)
			sb_printf(failures, "%s/%s: shapes differ\n--- want\n%s--- got\n%s", sub, name, want, sb_str(&got));
		free(want);
		sb_free(&got);
		return;
	}
	if (strcmp(sub, "tract") == 0)
		return; /* an invalid tract case: its diagnostics say it */
	const char *nl = strchr(text, '\n');
	const char *tag = strstr(text, " [E");
	const char *first = strstr(rendered, "error[");
	if (!tag || (nl && tag > nl) || !first ||
	    strncmp(first + 6, tag + 2, 5) != 0)
		sb_printf(failures, "shapes/%s: the first error is not the code named in the first line\n", name);
}

/* Checks one case of directory sub; appends what failed. */
static void run_case(const char *sub, const char *name, bool lenient,
		     Dialect dialect, StrBuf *failures)
{
	bool flat = strcmp(sub, "flatten") == 0;
	char errpath[4096];
	sibling(errpath, sizeof(errpath), name, ".err");
	char *want = read_all(errpath);
	if (!want) {
		sb_printf(failures, "%s/%s: missing %s\n", sub, name, errpath);
		return;
	}
	char *text = read_all(name);
	CaseOpts co;
	parse_options(text ? text : "", &co);
	ModelOptions opt = { .dialect = dialect, .max_errors = 20,
			     .lenient = lenient, .flatten = co.fo };
	Model m;
	ModelStatus st = model_check(&m, name, &opt);
	StrBuf got;
	sb_init(&got);
	model_render_diags(&m, flat ? "nnef-flatten" : "nnef-check", &got,
			   false, true);
	ModelStatus want_st = strstr(want, "error[") ? MODEL_INVALID
						     : MODEL_VALID;
	if (strcmp(sb_str(&got), want) != 0)
		sb_printf(failures, "%s/%s: diagnostics differ\n--- want\n%s--- got\n%s", sub, name, want, sb_str(&got));
	else if (st != want_st)
		sb_printf(failures, "%s/%s: status %d, want %d\n", sub, name,
			  (int)st, (int)want_st);
	if (flat && st == MODEL_VALID)
		check_flat_output(sub, name, &m, &opt, co.annotate, failures);
	if (strcmp(sub, "shapes") == 0 || strcmp(sub, "tract") == 0)
		check_shapes_case(sub, name, text ? text : "", &m, sb_str(&got),
				  failures);
	sb_free(&got);
	model_free(&m);
	free(want);
	free(text);
	free(co.storage);
	free(co.names);
}

/* Runs every case of one golden directory; returns the number checked. */
static size_t run_dir(const char *sub, bool lenient, Dialect dialect,
		      StrBuf *failures)
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
		run_case(sub, names[i], lenient, dialect, failures);
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
	Dialect dialect = strcmp(sub, "tract") == 0 ? DIALECT_TRACT : DIALECT_KHRONOS;
	size_t n = run_dir(sub, lenient, dialect, &failures);
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

START_TEST(tract_goldens)
{
	check_dir("tract", false, 20);
}
END_TEST

START_TEST(flatten_goldens)
{
	check_dir("flatten", false, 30);
}
END_TEST

/* the shapes issue asks for at least 250 cases, each quoting the spec
 * section of the rule it shows */
START_TEST(shapes_goldens)
{
	check_dir("shapes", false, 250);
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
	tcase_add_test(tc, tract_goldens);
	tcase_add_test(tc, flatten_goldens);
	tcase_add_test(tc, shapes_goldens);
	suite_add_tcase(s, tc);
	return s;
}
