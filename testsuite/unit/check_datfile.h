/*
 * check_datfile.h - what the tests of the tensor file codec share
 * (check_datfile.c, which defines it, and check_tract.c): the state of a
 * header test, reading a header with its diagnostics rendered, and the
 * expectations of one error or one warning.
 */
#ifndef NNEF_CHECK_DATFILE_H
#define NNEF_CHECK_DATFILE_H

#include "datfile/datfile.h"
#include "testutil.h"

#define NAME "conv1/filter.dat"

/* The state of one header test (a checked fixture). */
typedef struct Ctx {
	DiagList dl;
	StrBuf text;
	DatHeader h;
	bool ok;
} Ctx;

extern Ctx cx;

void dat_test_setup(void);
void dat_test_teardown(void);
void put_le32(unsigned char *p, uint32_t v);
void put_lef32(unsigned char *p, float f);
/* A header for n items in one dimension (rank 1). */
DatHeader hdr(DatItemType t, uint32_t bits, uint32_t n);
/* Reads the header in b[0..n) of a file of size bytes into cx.h; returns
 * every diagnostic rendered, one line each (and hints). */
const char *read_hdr(const unsigned char *b, size_t n, uint64_t size,
		     bool lenient);
/* The header b (128 bytes, file of size bytes) is rejected with exactly
 * the one error rendered as want (accepted with exactly the one warning);
 * line is the caller's, for the report. */
void expect_error_at(int line, const unsigned char *b, uint64_t size,
		     const char *want);
void expect_warning_at(int line, const unsigned char *b, uint64_t size,
		       const char *want);
#define expect_error(b, size, want) expect_error_at(__LINE__, b, size, want)
#define expect_warning(b, size, want) \
	expect_warning_at(__LINE__, b, size, want)

/* Reads up to cap bytes of the corpus's file rel into b: the count, 0
 * when there is no corpus (a file of it that cannot be read fails). */
size_t read_corpus_file(const char *rel, unsigned char *b, size_t cap);

/* Adds the test case of tract's item types (check_tract.c). */
void datfile_tract_tests(Suite *s);

#endif
