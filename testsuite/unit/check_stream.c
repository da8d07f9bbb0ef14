/*
 * check_stream.c - checking a model in one pass (model/stream.c) gives
 * exactly what checking it whole gives: the same verdict, the same
 * diagnostics at the same places, the same flat graph with the same
 * names and shapes. Run over every document of testsuite/golden, the
 * examples and the corpus; and the cases where the one pass must give up
 * (a diagnostic of any kind; an identifier that is a name an earlier
 * expansion already took) are shown to fall back without a trace. The
 * whole check reads every statement with the parser tables, the one pass
 * most with the reader of plain assignments: the comparisons are shown to
 * cover that reader, and NNEF_REFERENCE_PARSER=1 to turn it off.
 */
#include "flatten/flatten.h"
#include "model/model_internal.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The ways a document is checked: whole, or in one pass on this thread,
 * or in one pass with the parser on a thread of its own. */
typedef enum Way { WHOLE, ONE_THREAD, TWO_THREADS } Way;

/* Assignments the checks of outcome read without the parser tables
 * (grammar/plain_statements.c), in this test. */
static size_t fast_read;

/* Everything a check of path produced, as text: the status, each
 * diagnostic (code, level, position, message, notes) and the flat graph
 * with the shapes of its tensors. */
static void outcome(const char *path, Way way, StrBuf *out)
{
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	opt.whole = way == WHOLE;
	opt.threads = way == TWO_THREADS ? MODEL_THREADS_TWO : MODEL_THREADS_ONE;
	ModelStatus st = model_check(&m, path, &opt);
	fast_read += m.parse.fast_stmts;
	sb_printf(out, "status %d\n", (int)st);
	for (size_t i = 0; i < m.diags.len; i++) {
		const Diag *d = m.diags.items[i];
		sb_printf(out, "%s %d %u+%u %s\n", diag_code_name(d->code),
			  (int)d->level, d->loc.off, d->loc.len, d->msg);
		for (size_t k = 0; k < d->nnotes; k++)
			sb_printf(out, "  note %u %s\n", d->notes[k].at.off,
				  d->notes[k].msg);
	}
	if (m.flat) {
		flat_print(out, m.flat, true);
		flat_print_shapes(out, m.flat, true);
	}
	model_free(&m);
}

/* Every way agrees on path; returns false (after saying where they
 * differ) when they do not. */
static bool same_every_way(const char *path)
{
	StrBuf a, b, c;
	sb_init(&a);
	sb_init(&b);
	sb_init(&c);
	outcome(path, WHOLE, &a);
	outcome(path, ONE_THREAD, &b);
	outcome(path, TWO_THREADS, &c);
	bool same = test_same_text(path, "whole and one-pass checks", "whole",
				   &a, "one pass", &b) &&
		    test_same_text(path, "whole and two-thread checks", "whole",
				   &a, "two threads", &c);
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
	return same;
}

static bool every_way(const char *path, void *ctx)
{
	(void)ctx;
	return same_every_way(path);
}

static size_t each_in(const char *dir, const char *suffix, size_t *bad)
{
	return test_each_entry(dir, suffix, every_way, NULL, bad);
}

START_TEST(golden_documents_every_way)
{
	static const char *const dirs[] = { "syntax", "sema", "flatten",
					    "shapes", "run", "nets", "lenient" };
	char dir[4096];
	size_t n = 0, bad = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/golden/%s", test_srcdir(), dirs[i]);
		n += each_in(dir, ".nnef", &bad);
	}
	snprintf(dir, sizeof(dir), "%s/../examples", test_srcdir());
	n += each_in(dir, "/", &bad);
	ck_assert_uint_gt(n, 200);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_gt(fast_read, 1000); /* the one pass read these fast */
}
END_TEST

START_TEST(corpus_every_way)
{
	const char *corpus = test_corpus();
	if (!corpus)
		return; /* check_corpus says so, or fails under CI */
	char dir[4096];
	size_t n = 0, bad = 0;
	snprintf(dir, sizeof(dir), "%s/openvx-cts-nnef", corpus);
	n += each_in(dir, "/", &bad);
	snprintf(dir, sizeof(dir), "%s/nnef-tools-examples", corpus);
	n += each_in(dir, ".nnef", &bad);
	ck_assert_uint_gt(n, 70);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_gt(fast_read, 1000); /* the one pass read these fast */
}
END_TEST

/* Checks text in one pass, the parser on a thread of its own or not;
 * returns whether the pass went through, and the flat document with
 * shapes in *flat (the whole check's when it did not). */
static bool one_pass_on(const char *text, ModelThreads threads,
			StrBuf *flat)
{
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	opt.threads = threads;
	memset(&m, 0, sizeof(m));
	ModelStatus st = model_check_text(&m, "test.nnef", text, strlen(text), &opt);
	bool passed = false;
	if (m.flat) {
		flat_print(flat, m.flat, true);
		/* the same text again, this time only the pass */
		Model p;
		memset(&opt, 0, sizeof(opt));
		opt.threads = threads;
		memset(&p, 0, sizeof(p));
		arena_init(&p.arena);
		intern_init(&p.interner, &p.names);
		diag_list_init(&p.diags, 100);
		p.graph_src = source_from_memory("test.nnef", text, strlen(text));
		passed = model_check_streamed(&p, &opt);
		if (!passed) /* nothing of the pass remains */
			ck_assert_uint_eq(p.diags.len, 0);
		model_free(&p);
	}
	(void)st;
	model_free(&m);
	return passed;
}

/* one_pass_on both ways, which agree; returns whether the pass went
 * through. */
static bool one_pass(const char *text, StrBuf *flat)
{
	StrBuf two;
	sb_init(&two);
	bool passed = one_pass_on(text, MODEL_THREADS_ONE, flat);
	ck_assert_int_eq(one_pass_on(text, MODEL_THREADS_TWO, &two), passed);
	ck_assert_str_eq(sb_str(&two), sb_str(flat));
	sb_free(&two);
	return passed;
}

START_TEST(valid_flat_document_takes_one_pass)
{
	StrBuf flat;
	sb_init(&flat);
	ck_assert(one_pass("version 1.0;\ngraph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 3]);\n  w = variable<scalar>(shape = [1, 3], label = 'w');\n  y = add(x, w);\n}\n", &flat));
	ck_assert_ptr_nonnull(strstr(sb_str(&flat), "y = add(x, w);"));
	sb_free(&flat);
}
END_TEST

START_TEST(warning_falls_back)
{
	/* W0613: a tensor given by name; the one pass stops at it */
	StrBuf flat;
	sb_init(&flat);
	ck_assert(!one_pass("version 1.0;\ngraph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 3]);\n  y = relu(x = x);\n}\n", &flat));
	sb_free(&flat);
}
END_TEST

/* spec 3.3.3 and the naming of flatten/build.c: an expansion's intermediate is
 * named after its target (relu's "y_gt"); here a later identifier of the
 * graph, not one of its results (those are known first), has that very
 * name. Checked whole, the identifier is reserved first and the
 * intermediate gets another name; the one pass sees the identifier too
 * late, gives up, and the whole check gives the same graph. */
START_TEST(identifier_taken_by_expansion_falls_back)
{
	const char *text = "version 1.0;\ngraph g( x ) -> ( y, z )\n{\n  x = external<scalar>(shape = [2, 3]);\n  y = relu(x);\n  y_gt = neg(x);\n  z = exp(y_gt);\n}\n";
	StrBuf flat;
	sb_init(&flat);
	bool passed = one_pass(text, &flat);
	ck_assert_ptr_nonnull(strstr(sb_str(&flat), "y_gt_2 = gt(x, 0.0);"));
	ck_assert_ptr_nonnull(strstr(sb_str(&flat), "y_gt = neg(x);"));
	ck_assert(!passed);
	sb_free(&flat);
}
END_TEST

/* A document of 256 KiB or more is mapped from its file, and the pages
 * the one pass has read leave memory behind it (source_forget). Both
 * ways agree on it; and when its last line has an error, the one pass
 * gives up there and the whole check that follows reads the text again
 * from the start: the diagnostic shows its line. A valid document never
 * needs its line table, which is not built then. */
static void write_chain(const char *path, size_t n, const char *last)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "version 1.0;\ngraph g( t0 ) -> ( y )\n{\n  t0 = external<scalar>(shape = [1, 4]);\n");
	for (size_t i = 1; i <= n; i++)
		fprintf(f, "  t%zu = add(t%zu, t0);\n", i, i - 1);
	fprintf(f, "  %s\n}\n", last);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(large_document_is_mapped_and_given_back)
{
	char path[] = "/tmp/nnefkit-mapped-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_chain(path, 120000, "y = copy(t120000);");
	ck_assert(same_every_way(path));
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_VALID);
	ck_assert(m.graph_src->mapped);
	ck_assert_uint_gt(m.graph_src->len, 3u << 20);
	ck_assert_ptr_null(m.graph_src->lines);
	/* of PIPE_MIN_BYTES and more: parsed on a thread of its own */
	ck_assert_uint_eq(m.pass_threads, 2);
	model_free(&m);
	opt.threads = MODEL_THREADS_ONE;
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_VALID);
	ck_assert_uint_eq(m.pass_threads, 1);
	model_free(&m);
	opt.threads = MODEL_THREADS_AUTO;

	write_chain(path, 120000, "y = copy(t120001);");
	ck_assert(same_every_way(path));
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_INVALID);
	ck_assert(m.graph_src->mapped);
	StrBuf out;
	sb_init(&out);
	DiagRenderOpts ro;
	memset(&ro, 0, sizeof(ro));
	ro.show_source = true;
	diag_render_all(&m.diags, &out, &ro);
	ck_assert_ptr_nonnull(strstr(sb_str(&out), ":120005:12: error["));
	ck_assert_ptr_nonnull(strstr(sb_str(&out), "  y = copy(t120001);"));
	sb_free(&out);
	model_free(&m);
	unlink(path);
}
END_TEST

/* Whether the check of a chain of n additions, written to a file, maps
 * the document; *len is its size. */
static bool chain_mapped(size_t n, size_t *len)
{
	char path[] = "/tmp/nnefkit-map-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_chain(path, n, "y = copy(t0);");
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	ck_assert_int_eq(model_check(&m, path, &opt), MODEL_VALID);
	bool mapped = m.graph_src->mapped;
	*len = m.graph_src->len;
	model_free(&m);
	unlink(path);
	return mapped;
}

/* A document of MODEL_MAP_BYTES (256 KiB) or more is mapped; a smaller
 * one is read into memory. */
START_TEST(mapped_from_model_map_bytes)
{
	size_t len;
	ck_assert_uint_eq(MODEL_MAP_BYTES, 256u << 10);
	ck_assert(!chain_mapped(8000, &len));
	ck_assert_uint_lt(len, MODEL_MAP_BYTES);
	ck_assert(chain_mapped(12000, &len));
	ck_assert_uint_ge(len, MODEL_MAP_BYTES);
	ck_assert_uint_lt(len, 1u << 20);
}
END_TEST

/* A small document is checked on one thread, unless told otherwise. */
START_TEST(small_document_takes_one_thread)
{
	const char *text = "version 1.0;\ngraph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 3]);\n  y = relu(x);\n}\n";
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	ck_assert_int_eq(model_check_text(&m, "t.nnef", text, strlen(text), &opt), MODEL_VALID);
	ck_assert_uint_eq(m.pass_threads, 1);
	model_free(&m);
	opt.threads = MODEL_THREADS_TWO;
	ck_assert_int_eq(model_check_text(&m, "t.nnef", text, strlen(text), &opt), MODEL_VALID);
	ck_assert_uint_eq(m.pass_threads, 2);
	model_free(&m);
}
END_TEST

/* A chain of additions of about len bytes of text: its thread count in
 * the default set-up (MODEL_THREADS_AUTO). */
static int threads_for(size_t len)
{
	StrBuf text;
	sb_init(&text);
	sb_puts(&text, "version 1.0;\ngraph g( t0 ) -> ( y )\n{\n  t0 = external<scalar>(shape = [1, 4]);\n");
	size_t i = 1;
	for (; text.len + 64 < len; i++)
		sb_printf(&text, "  t%zu = add(t%zu, t0);\n", i, i - 1);
	sb_printf(&text, "  y = copy(t%zu);\n}\n", i - 1);
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	ck_assert_int_eq(model_check_text(&m, "t.nnef", sb_str(&text), text.len, &opt), MODEL_VALID);
	int threads = m.pass_threads;
	ck_assert_uint_le(text.len, len);
	ck_assert_uint_ge(text.len, len - 64);
	model_free(&m);
	sb_free(&text);
	return threads;
}

/* A text of PIPE_MIN_BYTES (256 KiB) and more is parsed on a thread of its
 * own; a smaller one is checked on one thread. */
START_TEST(threads_from_pipe_min_bytes)
{
	ck_assert_uint_eq(PIPE_MIN_BYTES, 256u << 10);
	ck_assert_int_eq(threads_for(PIPE_MIN_BYTES - 100), 1);
	ck_assert_int_eq(threads_for(PIPE_MIN_BYTES + 64), 2);
	ck_assert_int_eq(threads_for(3u << 20), 2);
}
END_TEST

/* Allocation n of the checking thread fails while the parser runs on a
 * thread of its own: the failure reaches the recovery point with the
 * parser stopped and waited for (pipe_join, a cleanup), and everything
 * given back (the sanitizers see no leak, no use after free). True when
 * the check ran through. */
static bool two_threads_failing(const char *text, long n)
{
	UtilHeap heap;
	util_heap_init(&heap);
	UtilRecover r;
	util_recover_push(&r, &heap);
	if (setjmp(r.jb)) {
		util_fail_after(-1);
		util_heap_release(&heap);
		return false;
	}
	Model m;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	opt.threads = MODEL_THREADS_TWO;
	util_fail_after(n);
	ModelStatus st = model_check_text(&m, "t.nnef", text, strlen(text), &opt);
	bool through = util_alloc_count() <= (unsigned long)n;
	util_fail_after(-1);
	ck_assert_int_eq(st, MODEL_VALID);
	ck_assert_uint_eq(m.pass_threads, 2);
	model_free(&m);
	util_recover_pop(&r);
	util_heap_release(&heap);
	return through;
}

START_TEST(two_threads_fail_cleanly)
{
	StrBuf text;
	sb_init(&text);
	sb_puts(&text, "version 1.0;\ngraph g( t0 ) -> ( t1100 )\n{\n  t0 = external<scalar>(shape = [1, 4]);\n");
	for (int i = 1; i <= 1100; i++) /* more than one batch */
		sb_printf(&text, "  t%d = relu(t%d);\n", i, i - 1);
	sb_puts(&text, "}\n");
	long n = 0;
	while (!two_threads_failing(sb_str(&text), n))
		n++;
	ck_assert_int_gt(n, 100); /* the whole check was gone through */
	sb_free(&text);
}
END_TEST

/* text checked whole and in one pass: whether the pass went through with
 * the flat graph of the whole check; *fast: the assignments it read
 * without the parser tables. */
static bool pass_agrees(const char *text, size_t *fast)
{
	Model w, p;
	ModelOptions opt;
	memset(&opt, 0, sizeof(opt));
	opt.whole = true;
	ck_assert_int_eq(model_check_text(&w, "t.nnef", text, strlen(text), &opt), MODEL_VALID);
	opt.whole = false;
	ck_assert_int_eq(model_check_text(&p, "t.nnef", text, strlen(text), &opt), MODEL_VALID);
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	flat_print(&a, w.flat, true);
	flat_print(&b, p.flat, true);
	bool agree = p.pass_threads != 0 && strcmp(sb_str(&a), sb_str(&b)) == 0;
	*fast = p.parse.fast_stmts;
	sb_free(&a);
	sb_free(&b);
	model_free(&w);
	model_free(&p);
	return agree;
}

/* NNEF_REFERENCE_PARSER=1 forces the reference path: the pass goes
 * through with the same graph, no statement read fast. The library reads
 * the variable once, so this test runs again (this case alone) in a
 * process of its own with it set. */
START_TEST(reference_parser_from_environment)
{
	const char *text = "version 1.0;\ngraph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 3]);\n  w = variable<scalar>(shape = [1, 3], label = 'w');\n  y = add(x, w);\n}\n";
	const char *env = getenv("NNEF_REFERENCE_PARSER");
	size_t fast = 0;
	ck_assert(pass_agrees(text, &fast));
	if (env && strcmp(env, "1") == 0) {
		ck_assert_uint_eq(fast, 0);
		return;
	}
	ck_assert_uint_eq(fast, 3);
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("NNEF_REFERENCE_PARSER", "1", 1);
		setenv("CK_RUN_SUITE", "stream", 1);
		setenv("CK_RUN_CASE", "reference parser", 1);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("one pass");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, valid_flat_document_takes_one_pass);
	tcase_add_test(tc, warning_falls_back);
	tcase_add_test(tc, identifier_taken_by_expansion_falls_back);
	tcase_add_test(tc, golden_documents_every_way);
	TEST_ADD_CORPUS(tc, corpus_every_way);
	tcase_add_test(tc, large_document_is_mapped_and_given_back);
	tcase_add_test(tc, mapped_from_model_map_bytes);
	tcase_add_test(tc, small_document_takes_one_thread);
	tcase_add_test(tc, threads_from_pipe_min_bytes);
	tcase_add_test(tc, two_threads_fail_cleanly);
	suite_add_tcase(s, tc);
	tc = tcase_create("reference parser");
	tcase_add_test(tc, reference_parser_from_environment);
	suite_add_tcase(s, tc);
	return s;
}
