/*
 * check_oom.c - allocation failure, everywhere: each test fails the 1st,
 * 2nd, 3rd... allocation of a use of the library (nnef.h) in turn, until
 * one runs through. Every failure must end in the entry point's clean
 * report (NULL, false, or E0008 "out of memory") with no file left open,
 * no temporary output left behind and, under the sanitizers, no leak and
 * no use of freed memory.
 */
#include "api/nnef.h"
#include "testutil.h"
#include "util/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open file descriptors of this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(d);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Files in dir (a temporary output would be one). */
static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static bool has_code(const nnef_diags *ds, const char *code)
{
	for (size_t i = 0; i < nnef_diags_count(ds); i++)
		if (strcmp(nnef_diag_code(nnef_diags_get(ds, i)), code) == 0)
			return true;
	return false;
}

/* True when the allocation made to fail was not reached: the use ran
 * through. */
static bool ran_through(long n)
{
	bool through = util_alloc_count() <= (unsigned long)n;
	util_fail_after(-1);
	return through;
}

/* A temporary folder holding the archive tiny.tgz of the bundled example
 * tiny_convnet (graph and tensor files). */
static char tmp[] = "/tmp/nnef-oom-XXXXXX";

static void make_archive(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cd '%s/../examples' && tar -czf '%s/tiny.tgz' tiny_convnet", test_srcdir(), tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static void remove_tmp(void)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* Loads and checks the archive, renders its diagnostics and prints it,
 * with allocation n made to fail: the model is valid, or unreadable with
 * E0008, or NULL; a printer gives its text or NULL. */
static bool check_failing(const char *path, const nnef_options *o, long n)
{
	util_fail_after(n);
	nnef_model *m = nnef_model_load(path, o);
	if (m && nnef_model_status(m) != NNEF_VALID) {
		ck_assert_int_eq(nnef_model_status(m), NNEF_IO_ERROR);
		ck_assert_uint_eq(nnef_diags_count(nnef_model_diags(m)), 1);
		ck_assert(has_code(nnef_model_diags(m), "E0008"));
	}
	if (m && nnef_model_status(m) == NNEF_VALID) {
		char *text = nnef_diags_render(nnef_model_diags(m), "oom", NNEF_RENDER_WARNINGS);
		free(text);
		char *flat = nnef_model_print_flat(m, NNEF_PRINT_SHAPES);
		ck_assert(!flat || strstr(flat, "graph tiny_convnet"));
		free(flat);
		const nnef_model *ms[] = { m };
		char *json = nnef_report_json(ms, 1, NNEF_REPORT_SHAPES);
		ck_assert(!json || strstr(json, "\"verdict\": \"valid\""));
		free(json);
	}
	nnef_model_free(m);
	return ran_through(n);
}

START_TEST(test_check_fails_cleanly)
{
	make_archive();
	char path[256];
	snprintf(path, sizeof(path), "%s/tiny.tgz", tmp);
	nnef_options o;
	nnef_options_init(&o);
	int fds = open_fds();
	long n = 0;
	while (!check_failing(path, &o, n))
		n++;
	ck_assert_int_eq(open_fds(), fds);
	ck_assert_int_gt(n, 100); /* the whole check was gone through */
	remove_tmp();
}
END_TEST

/* A document deep enough that it is checked on the evaluator's own
 * thread (--max-nesting above its default): a failure there fails the
 * load in the calling thread. */
START_TEST(test_deep_check_fails_cleanly)
{
	static const char doc[] =
		"version 1.0;\n"
		"extension KHR_enable_operator_expressions;\n"
		"graph G( x ) -> ( y )\n"
		"{\n"
		"    x = external(shape = [1, ((((2))))]);\n"
		"    y = relu(x);\n"
		"}\n";
	nnef_options o;
	nnef_options_init(&o);
	o.max_nesting = 5000;
	long n = 0;
	for (;; n++) {
		util_fail_after(n);
		nnef_model *m = nnef_model_load_text("deep.nnef", doc, strlen(doc), &o);
		if (m && nnef_model_status(m) != NNEF_VALID && !has_code(nnef_model_diags(m), "E0008")) {
			util_fail_after(-1);
			char *text = nnef_diags_render(nnef_model_diags(m), "oom", 0);
			ck_abort_msg("failure %ld: %s", n, text);
		}
		nnef_model_free(m);
		if (ran_through(n))
			break;
	}
	ck_assert_int_gt(n, 10);
}
END_TEST

/* Runs the model, writes its output and reads it back, with allocation
 * n made to fail: each step succeeds, or fails with E0008 in ds. */
static bool run_failing(const nnef_model *m, const char *out, long n)
{
	nnef_diags *ds = nnef_diags_new();
	ck_assert_ptr_nonnull(ds);
	util_fail_after(n);
	nnef_runner *r = nnef_runner_new(m, NULL, ds);
	bool ok = r != NULL;
	if (ok) {
		nnef_runner_random_input(r, 0, NNEF_UNIFORM, 7);
		ok = nnef_runner_run(r) && nnef_runner_write(r, NNEF_RUN_OUTPUTS, 0, out, ds);
	}
	if (ok) {
		nnef_tensor *t = nnef_tensor_read(out, 0, ds);
		ok = t != NULL;
		nnef_tensor_free(t);
	}
	/* E1305: the interpreter's own report of memory for tensors */
	if (!ok && !has_code(ds, "E0008") && !has_code(ds, "E1305")) {
		util_fail_after(-1);
		char *text = nnef_diags_render(ds, "oom", 0);
		ck_abort_msg("failure %ld is not E0008: %s", n, text);
	}
	nnef_runner_free(r);
	nnef_diags_free(ds);
	bool through = ran_through(n);
	ck_assert(!through || ok);
	return through;
}

START_TEST(test_run_fails_cleanly)
{
	make_archive();
	char path[256], outdir[256], out[300];
	snprintf(path, sizeof(path), "%s/tiny.tgz", tmp);
	snprintf(outdir, sizeof(outdir), "%s/out", tmp);
	ck_assert_int_eq(mkdir(outdir, 0755), 0);
	snprintf(out, sizeof(out), "%s/probabilities.dat", outdir);
	nnef_model *m = nnef_model_load(path, NULL);
	ck_assert_int_eq(nnef_model_status(m), NNEF_VALID);
	int fds = open_fds();
	long n = 0;
	for (;; n++) {
		unlink(out);
		bool through = run_failing(m, out, n);
		/* nothing half-written: the output is whole or absent */
		ck_assert_int_le(files_in(outdir), 1);
		if (through)
			break;
	}
	ck_assert_int_eq(files_in(outdir), 1);
	ck_assert_int_eq(open_fds(), fds);
	ck_assert_int_gt(n, 50);
	nnef_model_free(m);
	remove_tmp();
}
END_TEST

/* Checks, renders and prints one document with allocation n made to
 * fail (n < 0: none); the number of allocations that took. */
static unsigned long golden_once(const char *path, long n)
{
	util_fail_after(n);
	nnef_model *m = nnef_model_load(path, NULL);
	if (m && n >= 0 && !has_code(nnef_model_diags(m), "E0008")) {
		/* the failure came after the load: in a printer */
		char *text = nnef_diags_render(nnef_model_diags(m), "oom", NNEF_RENDER_WARNINGS | NNEF_RENDER_SOURCE);
		char *flat = nnef_model_print_flat(m, NNEF_PRINT_SHAPES);
		free(text);
		free(flat);
	} else if (m && n < 0) {
		free(nnef_diags_render(nnef_model_diags(m), "oom", NNEF_RENDER_WARNINGS | NNEF_RENDER_SOURCE));
		free(nnef_model_print_flat(m, NNEF_PRINT_SHAPES));
	}
	if (m && has_code(nnef_model_diags(m), "E0008")) {
		ck_assert_int_eq(nnef_model_status(m), NNEF_IO_ERROR);
		ck_assert_uint_eq(nnef_diags_count(nnef_model_diags(m)), 1);
	}
	nnef_model_free(m);
	unsigned long count = util_alloc_count();
	util_fail_after(-1);
	return count;
}

/* Every golden document (valid ones, and invalid ones with diagnostics
 * of every kind), with four of its allocations made to fail in turn,
 * spread over the check and offset from one document to the next. */
START_TEST(test_golden_documents_fail_cleanly)
{
	static const char *const dirs[] = { "flatten", "lenient", "run", "sema", "shapes", "syntax" };
	size_t docs = 0;
	int fds = open_fds();
	for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
		char dir[512];
		snprintf(dir, sizeof(dir), "%s/golden/%s", test_srcdir(), dirs[k]);
		DIR *d = opendir(dir);
		ck_assert_ptr_nonnull(d);
		struct dirent *e;
		while ((e = readdir(d))) {
			size_t len = strlen(e->d_name);
			if (len < 6 || strcmp(e->d_name + len - 5, ".nnef") != 0)
				continue;
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unsigned long c = golden_once(path, -1);
			ck_assert_uint_gt(c, 0);
			for (unsigned long i = 0; i < 4; i++)
				golden_once(path, (long)((c * i / 4 + docs) % c));
			docs++;
		}
		closedir(d);
	}
	ck_assert_uint_gt(docs, 500);
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

Suite *oom_suite(void)
{
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_check_fails_cleanly);
	tcase_add_test(tc, test_deep_check_fails_cleanly);
	tcase_add_test(tc, test_run_fails_cleanly);
	tcase_add_test(tc, test_golden_documents_fail_cleanly);
	suite_add_tcase(s, tc);
	return s;
}
