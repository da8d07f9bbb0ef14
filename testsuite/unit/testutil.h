/*
 * testutil.h - helpers shared by the Check suites: parsing a string,
 * rendering its diagnostics, locating test data.
 */
#ifndef NNEF_TESTUTIL_H
#define NNEF_TESTUTIL_H

#include "grammar/parse.h"
#include "util/diag.h"

#include <check.h>
#include <stdio.h>

/* Everything a parse of an in-memory document produced. */
typedef struct TestDoc {
	Arena arena;
	Interner interner;
	DiagList diags;
	SourceFile *src;
	ParseResult res;
	StrBuf rendered; /* all diagnostics, no color, with source lines */
} TestDoc;

/* Parses text (a whole document) named "test.nnef". */
void tdoc_parse(TestDoc *t, const char *text, ParseMode mode);
void tdoc_free(TestDoc *t);
/* The number of diagnostics with this code. */
size_t tdoc_count(const TestDoc *t, DiagCode code);
/* The first diagnostic with this code, or NULL. */
const Diag *tdoc_find(const TestDoc *t, DiagCode code);
/* "line:col" of a diagnostic, in a static buffer. */
const char *tdoc_pos(const Diag *d);

/* The directory of test data (testsuite/), from NNEF_SRCDIR. */
const char *test_srcdir(void);
/* A file of the source tree (path relative to NNEF_SRCDIR), read whole;
 * NULL if unreadable. Free with free(). */
char *test_read_source_file(const char *relpath);
/* The corpus directory from NNEF_CORPUS; NULL if it does not exist. */
const char *test_corpus(void);
/* Adds test tf to tc as one that reads the corpus: without the corpus it
 * returns at once (TEST_ADD_CORPUS), or runs without its corpus part
 * (TEST_ADD_CORPUS_PART). Each is counted as it is added, so that the
 * program can say once how many did not run in full (test_corpus_report). */
#define TEST_ADD_CORPUS(tc, tf)                                        \
	do {                                                           \
		test_count_corpus_test(true);                          \
		tcase_add_test((tc), tf);                              \
	} while (0)
#define TEST_ADD_CORPUS_PART(tc, tf)                                   \
	do {                                                           \
		test_count_corpus_test(false);                         \
		tcase_add_test((tc), tf);                              \
	} while (0)
void test_count_corpus_test(bool whole);
/* Without the corpus, writes to f one line beginning with `lead` that
 * says where it was looked for and how many corpus tests did not run in
 * full; returns whether it wrote one. */
bool test_corpus_report(FILE *f, const char *lead);
/* Whether texts a and b are the same; when not, says on stderr where
 * they part: "what: how differs at byte N", then both around it. */
bool test_same_text(const char *what, const char *how, const char *name_a,
		    const StrBuf *a, const char *name_b, const StrBuf *b);
/* Calls fn(path, ctx) for every entry of dir whose name ends in suffix
 * ("/": every folder, its path ending in '/'), hidden ones aside; returns
 * how many, and counts in *bad those for which fn returned false. */
size_t test_each_entry(const char *dir, const char *suffix,
		       bool (*fn)(const char *path, void *ctx), void *ctx,
		       size_t *bad);

Suite *util_suite(void);
Suite *lexer_suite(void);
Suite *grammar_suite(void);
Suite *types_suite(void);
Suite *sema_suite(void);
Suite *shapes_suite(void);
Suite *dim_suite(void);
Suite *tract_shapes_suite(void);
Suite *flatten_suite(void);
Suite *dot_suite(void);
Suite *datfile_suite(void);
Suite *npy_suite(void);
Suite *container_tar_suite(void);
Suite *container_dir_suite(void);
Suite *container_limits_suite(void);
Suite *container_damage_suite(void);
Suite *container_names_suite(void);
Suite *model_suite(void);
Suite *interp_suite(void);
Suite *api_suite(void);
Suite *golden_suite(void);
Suite *corpus_suite(void);
Suite *stream_suite(void);
Suite *oom_suite(void);
Suite *port_suite(void);

#endif
