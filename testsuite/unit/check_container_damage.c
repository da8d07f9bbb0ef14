/*
 * check_container_damage.c - truncated and corrupt archives (datfile.h,
 * tar.c): gzip streams cut anywhere or with a bad trailer or deflate
 * data, tar archives cut at and inside headers and data, bad header
 * checksums, malformed and lying size fields. Each must be refused
 * cleanly: cont_scan false, the right code, a message naming the
 * problem, no crash, no leak (run under ASan), no hang, no huge
 * allocation. Tests marked "BUG" failed against the implementation when
 * they were written; see the comment on each.
 */
#include "contutil.h"

#include <stdio.h>
#include <string.h>

/* ---- hostile: truncation and corruption ----------------------------------------- */

/* Guards a gzip stream cut inside the tar data: a truncation, not a
 * clean end. */
START_TEST(tgz_truncated)
{
	Bytes t = { 0 }, g = { 0 };
	model_tar(&t, true);
	gzip_of(&t, &g);
	g.len /= 2;
	refuse_bytes(&g, false, READ_ALL, DIAG_E0003, "truncated|gzip|corrupt|ends");
	refuse_bytes(&g, false, READ_NONE, DIAG_E0003, "truncated|gzip|corrupt|ends");
	bytes_free(&t);
	bytes_free(&g);
}
END_TEST

/* Guards every possible cut of a gzip stream, including cuts in its
 * 8-byte trailer (CRC and length) after the tar's end blocks: the
 * stream's end must be checked, not only the tar's.
 * (Once a bug, now fixed:) of this 1916-byte stream, the 9 cuts at 1907..1915
 * bytes (the last deflate byte and the 8-byte CRC/length trailer, after
 * the tar's end blocks) are accepted: zlib's gzread reports an
 * unexpected end of file as Z_BUF_ERROR, which it does not count as an
 * error (it returns 0 and gzeof() is true), and tar.c's refill() takes
 * that for a clean end; gzerror() is never consulted there. */
START_TEST(tgz_every_cut)
{
	Bytes t = { 0 }, g = { 0 };
	model_tar(&t, true);
	gzip_of(&t, &g);
	size_t accepted = 0, first = 0, tried = 0;
	for (size_t k = 2; k < g.len; k++) {
		/* every byte near both ends, every 7th in between */
		if (k > 64 && k + 64 < g.len && k % 7)
			continue;
		tried++;
		Run r = { .mode = READ_ALL };
		run_bytes(&r, g.p, k, false);
		ck_assert_int_eq(r.kind, CONT_TGZ);
		if (r.ok && !accepted++)
			first = k;
		else if (!r.ok)
			expect_fail(&r, DIAG_E0003, "truncated|gzip|corrupt|ends");
		run_free(&r);
	}
	ck_assert_msg(accepted == 0, "%zu of %zu cuts of the gzip stream (%zu bytes) accepted, the first at %zu bytes", accepted, tried, g.len, first);
	bytes_free(&t);
	bytes_free(&g);
}
END_TEST

/* Guards a corrupted gzip CRC or length (the trailer). */
START_TEST(tgz_bad_crc)
{
	Bytes t = { 0 }, g = { 0 };
	model_tar(&t, true);
	gzip_of(&t, &g);
	g.p[g.len - 8] ^= 0x01; /* the CRC */
	refuse_bytes(&g, false, READ_ALL, DIAG_E0003, "gzip|crc|check|corrupt");
	refuse_bytes(&g, false, READ_NONE, DIAG_E0003, "gzip|crc|check|corrupt");
	g.p[g.len - 8] ^= 0x01;
	g.p[g.len - 3] ^= 0x40; /* the length */
	refuse_bytes(&g, false, READ_ALL, DIAG_E0003, "gzip|length|check|corrupt");
	bytes_free(&t);
	bytes_free(&g);
}
END_TEST

/* Guards corrupted deflate data: at several places, never accepted. */
START_TEST(tgz_corrupt_deflate)
{
	Bytes t = { 0 }, g = { 0 };
	big_members(&t);
	gzip_of(&t, &g);
	for (size_t at = 12; at < g.len - 8; at += g.len / 23) {
		g.p[at] ^= 0x5A;
		refuse_bytes(&g, false, READ_ALL, DIAG_E0003, "gzip|corrupt|truncated|checksum|ends|size");
		refuse_bytes(&g, false, READ_NONE, DIAG_E0003, "gzip|corrupt|truncated|checksum|ends|size");
		g.p[at] ^= 0x5A;
	}
	bytes_free(&t);
	bytes_free(&g);
}
END_TEST

/* Guards a tar cut exactly at a header boundary (libtar reads that as a
 * clean end) and a tar with one end block only. */
START_TEST(tar_cut_at_header_boundary)
{
	Bytes b = { 0 };
	model_tar(&b, false);
	refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "truncated");
	refuse_bytes(&b, true, READ_NONE, DIAG_E0003, "truncated");
	bytes_put(&b, NULL, BLK);
	refuse_bytes(&b, false, READ_NONE, DIAG_E0003, "truncated");
	bytes_free(&b);
}
END_TEST

/* Guards a tar cut inside a header block (the second member's). */
START_TEST(tar_cut_inside_header)
{
	Bytes b = { 0 };
	model_tar(&b, true);
	size_t graph_blocks = 1 + (strlen(GRAPH) + BLK - 1) / BLK;
	b.len = graph_blocks * BLK + 100;
	refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "truncated|ends|header");
	refuse_bytes(&b, true, READ_ALL, DIAG_E0003, "truncated|ends|header|gzip");
	bytes_free(&b);
}
END_TEST

/* Guards a tar cut inside a member's data, read or skipped, small or
 * skipped by seeking past the end of the file. */
START_TEST(tar_cut_inside_data)
{
	Bytes b = { 0 };
	model_tar(&b, true);
	b.len = 4 * BLK + 300; /* inside conv1/filter.dat */
	refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "truncated");
	refuse_bytes(&b, false, READ_NONE, DIAG_E0003, "truncated");
	refuse_bytes(&b, true, READ_NONE, DIAG_E0003, "truncated|gzip");
	bytes_free(&b);
	Bytes big = { 0 };
	big_members(&big);
	big.len = 8 * BLK + 400000; /* inside big.dat */
	refuse_bytes(&big, false, READ_NONE, DIAG_E0003, "truncated");
	refuse_bytes(&big, false, READ_ALL, DIAG_E0003, "truncated");
	refuse_bytes(&big, true, READ_NONE, DIAG_E0003, "truncated|gzip");
	bytes_free(&big);
}
END_TEST

/* Guards every cut of a plain tar from its first header on: each must be
 * refused (shorter files are not recognized as tar at all). */
START_TEST(tar_every_cut)
{
	Bytes b = { 0 };
	model_tar(&b, true);
	for (size_t k = BLK; k < b.len; k++) {
		size_t o = k % BLK;
		if (o % 29 != 0 && o != 1 && o != BLK - 1)
			continue;
		Run r = { .mode = (k & 1) ? READ_ALL : READ_NONE };
		run_bytes(&r, b.p, k, false);
		ck_assert_msg(!r.ok, "a cut at %zu of %zu bytes accepted", k, b.len);
		expect_fail(&r, DIAG_E0003, "truncated|ends");
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards header checksums: a wrong one, in the first header (with the
 * ustar magic, so still a tar) or a later one. */
START_TEST(bad_checksum)
{
	Bytes b = { 0 };
	Hdr h = { .name = "graph.nnef", .size = 5, .sum_delta = 1 };
	put_header(&b, &h);
	put_data(&b, "hello", 5);
	put_end(&b);
	refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "checksum|corrupt");
	bytes_free(&b);
	Bytes c = { 0 };
	put_file(&c, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr h2 = { .name = "w.dat", .size = 5, .sum_delta = -7 };
	put_header(&c, &h2);
	put_data(&c, "hello", 5);
	put_end(&c);
	refuse_bytes(&c, false, READ_ALL, DIAG_E0003, "checksum|corrupt");
	refuse_bytes(&c, true, READ_NONE, DIAG_E0003, "checksum|corrupt");
	bytes_free(&c);
}
END_TEST

/* ---- hostile: size fields ------------------------------------------------------ */

/* A member whose size field is raw, then end blocks. */
static void size_archive(Bytes *b, const unsigned char raw[12])
{
	put_file(b, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr h = { .name = "w.dat", .form = SIZE_RAW, .raw = raw };
	put_header(b, &h);
	put_data(b, "abc", 3);
	put_end(b);
}

/* Guards malformed size fields (libtar's sscanf would leave them
 * uninitialised): garbage, no digits, a sign, digits then garbage;
 * base-256 negative, beyond 64 bits, or above 2^63 (refused as corrupt
 * or beyond the member limit). */
START_TEST(malformed_size)
{
	static const char *const bad[] = {
		"garbage!!!!", "", "-0000000003", "00000003x00", "0000000008 ",
		"12 34",
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++) {
		unsigned char raw[12] = { 0 };
		memcpy(raw, bad[i], strlen(bad[i]));
		Bytes b = { 0 };
		size_archive(&b, raw);
		refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "size");
		bytes_free(&b);
	}
	static const unsigned char b256[][12] = {
		{ 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD },
		{ 0x80, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 3 },
		{ 0x81, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 },
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(b256); i++) {
		Bytes b = { 0 };
		size_archive(&b, b256[i]);
		refuse_bytes(&b, i & 1, READ_ALL, DIAG_E0003, "size");
		bytes_free(&b);
	}
	static const unsigned char huge[12] = { 0x80, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	Bytes b = { 0 };
	size_archive(&b, huge);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	ck_assert_msg(!r.ok && r.diags.nerrors >= 1, "a size of 2^64-1 accepted: %s", diags_text(&r));
	ck_assert_msg(has_word(diags_text(&r), "E0003|E0006"), "%s", diags_text(&r));
	ck_assert_msg(r.seconds < 0.5, "took %.2f s", r.seconds);
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* Guards a member declaring 1 GiB in a tiny archive: truncated, found
 * fast (skipping by seek must not trust the size; a gzip stream ends). */
START_TEST(declared_size_beyond_file)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr h = { .name = "w.dat", .size = (uint64_t)1 << 30 };
	put_header(&b, &h);
	put_data(&b, pat(), 2000);
	put_end(&b);
	for (int i = 0; i < 4; i++) {
		Run r = { .mode = (i & 2) ? READ_NONE : READ_ALL };
		run_bytes(&r, b.p, b.len, i & 1);
		expect_fail(&r, DIAG_E0003, "truncated");
		ck_assert_msg(r.seconds < 1.0, "took %.2f s", r.seconds);
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards size arithmetic at the top of uint64_t when the caller lifts
 * the limits: a member of 2^64-1 or 2^64-512 bytes in a tiny archive is
 * a truncation, whatever size + padding wraps to.
 * (Once a bug, now fixed:) with max_member = max_bytes = UINT64_MAX, size
 * 2^64-1 makes "left + pad" in one_member wrap to 0, nothing is
 * skipped, and the archive (header, then the end blocks) is accepted,
 * plain or gzip, w.dat listed with size 18446744073709551615; size
 * 2^64-512 in a plain tar wraps "file_pos + far" in stream_skip, lseek
 * goes 1536 bytes back to w.dat's own header, and it is reported as
 * "appears twice" (E0007) instead of truncated. */
START_TEST(size_wraps_with_lifted_limits)
{
	static const uint64_t sizes[] = { UINT64_MAX, UINT64_MAX - 511 };
	for (size_t i = 0; i < 2; i++) {
		for (int gz = 0; gz < 2; gz++) {
			Bytes b = { 0 };
			put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
			Hdr h = { .name = "w.dat", .size = sizes[i], .form = SIZE_BASE256 };
			put_header(&b, &h);
			put_end(&b);
			Run r = { .mode = READ_NONE,
				  .lim = { UINT64_MAX, UINT64_MAX, 0 } };
			run_bytes(&r, b.p, b.len, gz);
			ck_assert_msg(r.seconds < 1.0, "took %.2f s", r.seconds);
			expect_fail(&r, DIAG_E0003, "truncated|more than any archive holds");
			run_free(&r);
			bytes_free(&b);
		}
	}
}
END_TEST

/* ---- the suite ----------------------------------------------------------------- */

Suite *container_damage_suite(void)
{
	Suite *s = suite_create("container_damage");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, tgz_truncated);
	tcase_add_test(tc, tgz_every_cut);
	tcase_add_test(tc, tgz_bad_crc);
	tcase_add_test(tc, tgz_corrupt_deflate);
	tcase_add_test(tc, tar_cut_at_header_boundary);
	tcase_add_test(tc, tar_cut_inside_header);
	tcase_add_test(tc, tar_cut_inside_data);
	tcase_add_test(tc, tar_every_cut);
	tcase_add_test(tc, bad_checksum);
	tcase_add_test(tc, malformed_size);
	tcase_add_test(tc, declared_size_beyond_file);
	tcase_add_test(tc, size_wraps_with_lifted_limits);
	suite_add_tcase(s, tc);
	return s;
}
