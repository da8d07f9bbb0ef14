/*
 * check_tract.c - the item types of tract's vendor code in tensor files
 * (datfile/tract_items.c; tract's nnef/src/tensors.rs): their headers, sizes
 * and datum types (and those of the Khronos codes), IEEE halves decoded
 * exactly, Q4_0 blocks of both nibble orders with known codes, strings
 * checked in chunks of every size, and the corpus's Q4_0 weights. Part of
 * the datfile suite (check_datfile.h).
 */
#include "check_datfile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TR(t) (0x54520000u | (t))

/* A header of tract's code and bits, shape ext (rank n), data length len
 * (file size 128 + len unless size is given). */
static void tract_header(unsigned char b[DAT_OLD_HEADER_SIZE], uint32_t code,
			 uint32_t bits, const uint32_t *ext, uint32_t n,
			 uint32_t len)
{
	memset(b, 0, DAT_OLD_HEADER_SIZE);
	b[0] = 0x4e, b[1] = 0xef, b[2] = 1;
	put_le32(b + 4, len);
	put_le32(b + 8, n);
	for (uint32_t i = 0; i < n; i++)
		put_le32(b + 12 + 4 * i, ext[i]);
	put_le32(b + 44, bits);
	put_le32(b + 48, code);
}

/* tract's nnef/src/tensors.rs: the codes it reads, their bits, the datum
 * types it gives them, and its rules of size. */
START_TEST(tract_headers)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	char tn[32];
	static const uint32_t e1632[] = { 16, 96 }, e32[] = { 32 }, e216[] = { 2, 16 }, e3[] = { 3 };
	/* the Q4_0 file of the corpus: [16,96], 48 blocks of 18 bytes */
	tract_header(b, TR(0x2040), 0xffffffff, e1632, 2, 864);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, 128 + 864, false), "");
	ck_assert(cx.ok && cx.h.type == DAT_VENDOR && cx.h.tract == DAT_TR_Q40 && cx.h.dtype == DT_F32);
	ck_assert(dat_decodable(&cx.h));
	ck_assert_str_eq(dat_type_name(&cx.h, tn), "q4_0");
	uint64_t sz;
	ck_assert(dat_packed_size(&cx.h, 64, &sz) && sz == 36);
	ck_assert(dat_packed_size(&cx.h, 33, &sz) && sz == 36); /* whole blocks */
	tract_header(b, TR(0x3040), 0xffffffff, e1632, 2, 864);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, 128 + 864, false), "");
	ck_assert(cx.h.tract == DAT_TR_Q40_GGML);
	ck_assert_str_eq(dat_type_name(&cx.h, tn), "q4_0_ggml");
	expect_error(b, 128 + 864 + 5, "error[E1009]: " NAME ": the file has 997 bytes; the header and 864 bytes of data make 992\n");
	tract_header(b, TR(0x2040), 0xffffffff, e1632, 2, 863);
	expect_error(b, 128 + 863, "error[E1008]: " NAME ": the header gives 863 bytes of data, but 1536 items make 48 Q4_0 blocks of 18 bytes: 864 bytes\n");
	tract_header(b, TR(0x2040), 0xffffffff, e32, 1, 18);
	expect_error(b, 128 + 18, "error[E1015]: " NAME ": a Q4_0 tensor of rank 1; Q4_0 blocks need a rank of 2 or more (each row of the first dimension is cut into blocks of 32 items)\n");
	tract_header(b, TR(0x3040), 0xffffffff, e216, 2, 18);
	expect_error(b, 128 + 18, "error[E1015]: " NAME ": the extents after the first make rows of 16 items, not a multiple of the 32 items of a Q4_0 block\n");
	tract_header(b, TR(0x2040), 4, e1632, 2, 864);
	expect_error(b, 128 + 864, "error[E1007]: " NAME ": 4 bits per item; tract's q4_0 items take 0xFFFFFFFF, tract's mark of a block-quantized type\n");
	/* strings: the data length tract's writer gives (24 a string), or the
	 * true size; at least a length per string */
	tract_header(b, TR(0x1000), 0xffff, e3, 1, 72);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, 128 + 20, false), "");
	ck_assert(cx.h.tract == DAT_TR_STRING && cx.h.dtype == DT_STRING && !dat_decodable(&cx.h));
	ck_assert(!dat_packed_size(&cx.h, 3, &sz));
	tract_header(b, TR(0x1000), 0xffffffff, e3, 1, 20);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, 128 + 20, false), "");
	expect_error(b, 128 + 21, "error[E1008]: " NAME ": the header gives 20 bytes of data; the file holds 21 after the header, and tract's writer gives 72 (24 bytes a string)\n");
	expect_error(b, 128 + 11, "error[E1009]: " NAME ": the file has 11 bytes after the header; its 3 strings take at least 12 (a 4-byte length each)\n");
	tract_header(b, TR(0x1000), 8, e3, 1, 72);
	expect_error(b, 128 + 12, "error[E1007]: " NAME ": 8 bits per item; tract's string items take 0xFFFF or 0xFFFFFFFF, tract's marks of items of variable size\n");
	/* complex numbers: listed, not decoded */
	tract_header(b, TR(0x0004), 128, e3, 1, 48);
	expect_warning(b, 128 + 48, "warning[W1011]: " NAME ": tract's complex item type complex_i64: the data is not decoded\n");
	ck_assert(cx.h.dtype == DT_NONE && !dat_decodable(&cx.h));
	tract_header(b, TR(0x0000), 48, e3, 1, 18);
	expect_error(b, 128 + 18, "error[E1007]: " NAME ": 48 bits per item; tract's complex_f64 items take 32, 64 or 128, two floats of 16, 32 or 64 bits\n");
	tract_header(b, TR(0x2041), 0xffffffff, e1632, 2, 864);
	expect_error(b, 128 + 864, "error[E1014]: " NAME ": item type 0x2041 of tract's vendor code 'TR' (0x5452): tract defines 0x1000 (strings), 0x2040 and 0x3040 (Q4_0 blocks), 0x0000 and 0x0004 (complex numbers)\n");
}
END_TEST

/* The datum types of the Khronos codes, as tract gives them (codes 2 and
 * 3 as plain integers; other widths the narrowest type that holds them). */
START_TEST(khronos_dtypes)
{
	static const struct { DatItemType t; uint32_t bits; DType want; } cases[] = {
		{ DAT_FLOAT, 16, DT_F16 }, { DAT_FLOAT, 32, DT_F32 }, { DAT_FLOAT, 64, DT_F64 },
		{ DAT_UINT, 8, DT_U8 },    { DAT_UINT, 3, DT_U8 },    { DAT_UINT, 12, DT_U16 },
		{ DAT_QUINT, 32, DT_U32 }, { DAT_QUINT, 64, DT_U64 }, { DAT_QSINT, 8, DT_I8 },
		{ DAT_SINT, 16, DT_I16 },  { DAT_SINT, 33, DT_I64 },  { DAT_LOGICAL, 1, DT_BOOL },
		{ DAT_LOGICAL, 8, DT_BOOL }, { DAT_LINEAR, 8, DT_F32 }, { DAT_LOG, 4, DT_F32 },
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
		DatHeader h = hdr(cases[i].t, cases[i].bits, 2);
		ck_assert_msg(h.dtype == cases[i].want, "case %zu: %s", i, dtype_name(h.dtype));
		unsigned char b[DAT_OLD_HEADER_SIZE] = { 0 };
		dat_write_header(&h, b);
		if (cases[i].t == DAT_LINEAR || cases[i].t == DAT_LOG)
			put_lef32(b + 56, 1.0f);
		read_hdr(b, DAT_HEADER_SIZE, DAT_HEADER_SIZE + h.data_length, false);
		ck_assert_msg(cx.ok && cx.h.dtype == cases[i].want, "case %zu read back: %s", i, dtype_name(cx.h.dtype));
	}
}
END_TEST

/* Halves decode exactly: 1/3 rounded (0x3555 = 1365 / 4096), the
 * subnormals (units of 2^-24), the largest, the signed zeros. */
START_TEST(float16_exact)
{
	ck_assert(dat_half_to_double(0x3555) == 1365.0 / 4096.0);
	ck_assert(dat_half_to_double(0x3555) == 0.333251953125);
	ck_assert(dat_half_to_double(0x0001) == ldexp(1.0, -24));
	ck_assert(dat_half_to_double(0x03ff) == 1023.0 * ldexp(1.0, -24));
	ck_assert(dat_half_to_double(0x0400) == ldexp(1.0, -14));
	ck_assert(dat_half_to_double(0x7bff) == 65504.0);
	ck_assert(dat_half_to_double(0xc000) == -2.0);
	ck_assert(signbit(dat_half_to_double(0x8000)) && dat_half_to_double(0x8000) == 0.0);
	ck_assert(isinf(dat_half_to_double(0xfc00)) && dat_half_to_double(0xfc00) < 0);
	ck_assert(isnan(dat_half_to_double(0x7e01)));
	ck_assert_uint_eq(dat_double_to_half(1.0 / 3.0), 0x3555);
	ck_assert_uint_eq(dat_double_to_half(ldexp(1.0, -25)), 0x0000); /* a tie: even */
	ck_assert_uint_eq(dat_double_to_half(ldexp(3.0, -25)), 0x0002);
}
END_TEST

/* One block of each order, with known nibbles: scale 1/3 rounded (a half
 * of 11 significant bits: (q - 8) d is exact), codes 0..15 then 15..0. */
START_TEST(q40_blocks)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	static const uint32_t ext[] = { 1, 64 };
	int codes[64];
	for (int j = 0; j < 32; j++) {
		codes[j] = j % 16;          /* block 0 */
		codes[32 + j] = 15 - j % 16; /* block 1 */
	}
	for (int ggml = 0; ggml < 2; ggml++) {
		unsigned char data[36] = { 0x55, 0x35, [18] = 0x00, 0xc0 }; /* 1/3, -2 */
		for (int blk = 0; blk < 2; blk++)
			for (int j = 0; j < 32; j++) {
				int at = ggml ? 2 + j % 16 : 2 + j / 2;
				int shift = (ggml ? j >= 16 : j % 2) ? 4 : 0;
				data[blk * 18 + at] |= (unsigned char)(codes[blk * 32 + j] << shift);
			}
		tract_header(b, TR(ggml ? 0x3040 : 0x2040), 0xffffffff, ext, 2, 36);
		ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, 128 + 36, false), "");
		DatItem v[64];
		dat_decode(&cx.h, data, 0, 64, v);
		for (int k = 0; k < 64; k++) {
			double d = k < 32 ? 1365.0 / 4096.0 : -2.0;
			ck_assert_msg(v[k].f == (codes[k] - 8) * d, "ggml %d item %d: %.17g", ggml, k, v[k].f);
			ck_assert(dat_real(&cx.h, v[k]) == v[k].f);
		}
		ck_assert(signbit(v[32 + 7].f)); /* code 8 of a negative scale: -0 */
		DatItem one;
		dat_decode(&cx.h, data, 33, 1, &one); /* one item anywhere */
		ck_assert(one.f == v[33].f);
	}
}
END_TEST

/* Strings checked as they come, in chunks of any size. */
static const char *strings_run(const unsigned char *data, size_t n, uint32_t items,
			       size_t step)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint32_t ext[] = { items };
	tract_header(b, TR(0x1000), 0xffffffff, ext, 1, items * 24);
	read_hdr(b, DAT_HEADER_SIZE, 128 + (items * 4 > n ? items * 4 : n), false);
	ck_assert(cx.ok);
	DatStrings st;
	dat_strings_begin(&st, &cx.h);
	bool ok = true;
	for (size_t at = 0; ok && at < n; at += step)
		ok = dat_strings_feed(&st, data + at, n - at < step ? n - at : step, NAME, &cx.dl);
	if (ok)
		dat_strings_end(&st, NAME, &cx.dl);
	sb_clear(&cx.text);
	DiagRenderOpts o = { .show_warnings = true };
	diag_render_all(&cx.dl, &cx.text, &o);
	return sb_str(&cx.text);
}

START_TEST(tract_strings)
{
	/* "", "café", U+1F600 */
	static const unsigned char good[] = { 0, 0, 0, 0, 5, 0, 0, 0, 'c', 'a', 'f', 0xc3, 0xa9, 4, 0, 0, 0, 0xf0, 0x9f, 0x98, 0x80 };
	for (size_t step = 1; step < 8; step++)
		ck_assert_str_eq(strings_run(good, sizeof(good), 3, step), "");
	ck_assert_str_eq(strings_run(good, sizeof(good) - 1, 3, 5), "error[E1016]: " NAME ": the data ends after 20 bytes, within string 2 of 3\n");
	ck_assert_str_eq(strings_run(good, sizeof(good), 2, 3), "error[E1016]: " NAME ": the data goes on after the last of its 2 strings, from byte 13\n");
	ck_assert_str_eq(strings_run(good, 13, 3, 64), "error[E1016]: " NAME ": the data ends after 13 bytes and 2 of its 3 strings\n");
	static const unsigned char surrogate[] = { 3, 0, 0, 0, 0xed, 0xa0, 0x80 };
	ck_assert_str_eq(strings_run(surrogate, sizeof(surrogate), 1, 1), "error[E1016]: " NAME ": string 0 of 1, at byte 5 of the data, is not valid UTF-8\n");
	static const unsigned char overlong[] = { 2, 0, 0, 0, 0xc0, 0x80 };
	ck_assert_str_eq(strings_run(overlong, sizeof(overlong), 1, 2), "error[E1016]: " NAME ": string 0 of 1, at byte 4 of the data, is not valid UTF-8\n");
	static const unsigned char cut[] = { 1, 0, 0, 0, 0xe2, 1, 0, 0, 0, 'x' };
	ck_assert_str_eq(strings_run(cut, sizeof(cut), 2, 4), "error[E1016]: " NAME ": string 0 of 2, at byte 5 of the data, ends within a UTF-8 sequence\n");
}
END_TEST

/* tract's Q4_0 weights of the corpus: [16,96] of arange(1536) quantized
 * (tract's test data). Read in tract's order (its reader: byte k of a
 * block holds item 2k in the low nibble, 2k + 1 in the high), each item
 * decodes to its index within half its block's scale, the rounding of
 * Q4_0; GGML's order would put item 16 where item 1 is, far from it. The
 * file's writer swapped four pairs of codes that straddle a step (items
 * 208, 298, 328 and 448 are a step early, their neighbours a step late):
 * tract reads them so too, and so does nnefkit. */
START_TEST(corpus_q40)
{
	static unsigned char b[2048];
	size_t n = read_corpus_file("tract-harness/q40_linear_followed_slice/linear__var0_q4_0.dat", b, sizeof(b));
	if (n == 0)
		return; /* no corpus */
	ck_assert_uint_eq(n, 128 + 864);
	ck_assert_str_eq(read_hdr(b, n, n, false), "");
	ck_assert(cx.h.tract == DAT_TR_Q40);
	DatItem v[1536];
	dat_decode(&cx.h, b + 128, 0, 1536, v);
	static const double first[8] = { -0.0, -0.0, 3.875, 3.875, 3.875, 3.875, 7.75, 7.75 };
	for (int k = 0; k < 8; k++)
		ck_assert(v[k].f == first[k]);
	int off = 0;
	for (int k = 0; k < 1536; k++) {
		const unsigned char *blk = b + 128 + k / 32 * 18;
		double d = dat_half_to_double((uint16_t)(blk[0] | blk[1] << 8));
		bool swapped = k == 208 || k == 298 || k == 328 || k == 448;
		bool near = fabs(v[k].f - k) <= fabs(d) / 2;
		off += !near;
		ck_assert_msg(near || swapped || (k > 0 && !(fabs(v[k - 1].f - (k - 1)) <= fabs(d) / 2)), "item %d: %g, scale %g", k, v[k].f, d);
		if (swapped)
			ck_assert_msg(fabs(v[k].f - v[k + 1].f) == fabs(d), "item %d: %g, then %g", k, v[k].f, v[k + 1].f);
	}
	ck_assert_int_le(off, 8);
}
END_TEST

void datfile_tract_tests(Suite *s)
{
	TCase *tc = tcase_create("tract");
	tcase_add_checked_fixture(tc, dat_test_setup, dat_test_teardown);
	tcase_add_test(tc, tract_headers);
	tcase_add_test(tc, khronos_dtypes);
	tcase_add_test(tc, float16_exact);
	tcase_add_test(tc, q40_blocks);
	tcase_add_test(tc, tract_strings);
	TEST_ADD_CORPUS(tc, corpus_q40);
	suite_add_tcase(s, tc);
}
