/*
 * check_container_names.c - what an archive's members are called and
 * what they are (datfile.h, tar.c): names leaving the archive ('..',
 * absolute), GNU long names repeated, unterminated, huge or read
 * differently by libtar, malformed pax records, links, members listed
 * twice. Each must be refused cleanly, as check_container_damage.c says.
 * Tests marked "BUG" failed against the implementation when they were
 * written; see the comment on each.
 */
#include "contutil.h"

#include <stdio.h>
#include <string.h>

/* ---- hostile: names ------------------------------------------------------------ */

typedef enum NameVia { VIA_NAME, VIA_PREFIX, VIA_LONG, VIA_PAX } NameVia;

/* An archive with graph.nnef, then a member named `name` by the given
 * field, then another member. */
static void named_archive(Bytes *b, const char *name, NameVia via)
{
	put_file(b, "graph.nnef", GRAPH, strlen(GRAPH));
	if (via == VIA_LONG) {
		put_long(b, 'L', name, strlen(name), true);
		put_file(b, "harmless.dat", "abc", 3);
	} else if (via == VIA_PAX) {
		Bytes rec = { 0 };
		pax_record(&rec, "path", name, strlen(name));
		put_pax(b, 'x', rec.p, rec.len);
		bytes_free(&rec);
		put_file(b, "harmless.dat", "abc", 3);
	} else if (via == VIA_PREFIX) {
		Hdr h = { .name = "w.dat", .prefix = name, .size = 3 };
		put_header(b, &h);
		put_data(b, "abc", 3);
	} else {
		put_file(b, name, "abc", 3);
	}
	put_file(b, "last.dat", "z", 1);
	put_end(b);
}

static void refuse_name(const char *name, NameVia via, const char *words)
{
	Bytes b = { 0 };
	named_archive(&b, name, via);
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL };
		run_bytes(&r, b.p, b.len, gz);
		ck_assert_msg(!r.ok, "'%s' (via %d) accepted: %s", name, (int)via, diags_text(&r));
		expect_fail(&r, DIAG_E0004, words);
		/* the member is never handed to visit */
		for (size_t i = 0; i < r.n; i++)
			ck_assert_str_ne(r.m[i].name, "harmless.dat");
		run_free(&r);
	}
	bytes_free(&b);
}

/* Guards names leaving the archive: "../" first, '..' in the middle or
 * last, in the name field, the ustar prefix, a GNU long name and a pax
 * path= (libtar's th_get_pathname would silently rewrite them). */
START_TEST(dotdot_names)
{
	static const char *const names[] = {
		"../evil.dat", "../../etc/passwd", "a/../../evil.dat",
		"conv1/../graph.nnef", "..", "model/..", "./../x.dat",
		"a//..//b.dat",
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++) {
		refuse_name(names[i], VIA_NAME, "..");
		refuse_name(names[i], VIA_LONG, "..");
		refuse_name(names[i], VIA_PAX, "..");
	}
	refuse_name("..", VIA_PREFIX, "..");
	refuse_name("model/../..", VIA_PREFIX, "..");
}
END_TEST

/* Guards absolute names, by every field that can carry a name. */
START_TEST(absolute_names)
{
	static const char *const names[] = { "/etc/passwd", "//x.dat", "/" };
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++) {
		refuse_name(names[i], VIA_NAME, "absolute");
		refuse_name(names[i], VIA_LONG, "absolute");
		refuse_name(names[i], VIA_PAX, "absolute");
	}
	refuse_name("/abs", VIA_PREFIX, "absolute");
}
END_TEST

/* Guards two GNU long names in a row: tar uses the second for the
 * member, so that is the name to check (a reader taking the first, or
 * the header's short name, lets "../../evil" through unseen).
 * (Once a bug, now fixed:) libtar returns the second 'L' header itself as the
 * entry; tar.c names it with the first long name (as MEMBER_OTHER),
 * skips the second long name's data, and names the real member by its
 * short header name: the archive is accepted, "../../evil.dat" never
 * checked. */
START_TEST(two_long_names)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	put_long(&b, 'L', "conv1/ok.dat", 12, true);
	put_long(&b, 'L', "../../evil.dat", 14, true);
	put_file(&b, "short.dat", "abc", 3);
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	ck_assert_msg(!r.ok, "accepted, members: %zu (%s, %s, ...)", r.n,
		      r.n > 1 ? r.m[1].name : "-", r.n > 2 ? r.m[2].name : "-");
	ck_assert_msg(r.diags.nerrors >= 1, "refused without an error");
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* Guards a GNU long name of 512 bytes with no terminating NUL (libtar
 * reads past it). */
START_TEST(long_name_without_nul)
{
	char name[BLK];
	memset(name, 'a', sizeof(name));
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	put_long(&b, 'L', name, sizeof(name), false);
	put_file(&b, "aaaa", "abc", 3);
	put_end(&b);
	refuse_bytes(&b, false, READ_ALL, DIAG_E0003, "NUL|long name");
	refuse_bytes(&b, true, READ_ALL, DIAG_E0003, "NUL|long name");
	bytes_free(&b);
}
END_TEST

/* A long name ('L' or 'K') header whose size field is raw, followed by a
 * short name block and a member, scanned; returns the run. */
static void run_long_size(Run *r, char type, const unsigned char raw[12],
			  const char *mtime, bool gz)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr h = { .name = "././@LongLink", .type = type, .form = SIZE_RAW,
		  .raw = raw, .mtime = mtime };
	put_header(&b, &h);
	put_data(&b, "conv1/name.dat", 15);
	put_file(&b, "conv1/name.dat", "abc", 3);
	put_end(&b);
	r->mode = READ_ALL;
	run_bytes(r, b.p, b.len, gz);
	bytes_free(&b);
}

/* Guards a long name declaring ~1 GiB: refused at once, without
 * allocating (libtar would allocate and leak it), in well under a
 * second; the same for a long link ('K'). */
START_TEST(long_name_huge)
{
	unsigned char raw[12];
	put_octal(raw, 11, (uint64_t)1 << 30);
	for (int i = 0; i < 4; i++) {
		Run r = { 0 };
		run_long_size(&r, i < 2 ? 'L' : 'K', raw, NULL, i & 1);
		ck_assert_msg(!r.ok, "accepted: %s", diags_text(&r));
		ck_assert_msg(r.diags.nerrors >= 1, "refused without an error");
		ck_assert_msg(r.seconds < 0.5, "took %.2f s", r.seconds);
		ck_assert_msg(r.vm_growth_kb < 256 * 1024, "VmPeak grew by %ld kB", r.vm_growth_kb);
		run_free(&r);
	}
}
END_TEST

/* Guards size fields that tar.c and libtar read differently: libtar
 * parses a long name's size with sscanf("%o") into an int, which runs on
 * into mtime when the 12 bytes are all digits, and fails (leaving the
 * int unset) on base-256. Whatever the verdict, libtar must never be led
 * into a huge allocation.
 * (Once a bug, now fixed:) the 12-digit size "000000000020" followed by mtime
 * "14000000000" passes tar.c's check (16 bytes) while libtar reads
 * "00000000002014000000000" = 1610612736 and mallocs 1.5 GiB (VmPeak
 * grows by 1.5 GiB; Debian's libtar refuses only sizes <= 0 as an int),
 * then takes the rest of the archive as long-name data and the scan
 * fails with a misleading "bad checksum". With enough (compressible)
 * data after it, libtar would fill the 1.5 GiB. A base-256 size there
 * leaves libtar's int uninitialised (undefined: here ~32 KiB). */
START_TEST(long_name_size_disagreement)
{
	unsigned char digits12[12], b256[12] = { 0x80 };
	memcpy(digits12, "000000000020", 12);
	b256[11] = 16;
	Run r = { 0 };
	run_long_size(&r, 'L', digits12, "14000000000", false);
	ck_assert_msg(r.vm_growth_kb < 256 * 1024, "12-digit size: VmPeak grew by %ld kB (%s)", r.vm_growth_kb, diags_text(&r));
	ck_assert_msg(r.seconds < 0.5, "took %.2f s", r.seconds);
	run_free(&r);
	Run r2 = { 0 };
	run_long_size(&r2, 'L', b256, NULL, false);
	ck_assert_msg(r2.vm_growth_kb < 256 * 1024, "base-256 size: VmPeak grew by %ld kB (%s)", r2.vm_growth_kb, diags_text(&r2));
	ck_assert_msg(r2.seconds < 0.5, "took %.2f s", r2.seconds);
	run_free(&r2);
}
END_TEST

/* ---- hostile: pax headers ----------------------------------------------------- */

/* An archive with a pax header holding the records, then a member. */
static void refuse_pax(const char *records, size_t n, DiagCode code, const char *words)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	put_pax(&b, 'x', records, n);
	put_file(&b, "w.dat", "abc", 3);
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	ck_assert_msg(!r.ok, "pax records '%.*s' accepted", (int)n, records);
	expect_fail(&r, code, words);
	run_free(&r);
	bytes_free(&b);
}

static void refuse_pax_value(const char *key, const char *val, size_t vlen)
{
	Bytes rec = { 0 };
	pax_record(&rec, key, val, vlen);
	refuse_pax((const char *)rec.p, rec.len, DIAG_E0003, "pax");
	bytes_free(&rec);
}

/* Guards malformed pax records: a length that is not a number, too
 * small, too large or absurd, no space, no '=', no final newline,
 * garbage after the records; path= empty or holding a NUL; size= not a
 * number, empty or beyond 64 bits; a pax header beyond 64 KiB. */
START_TEST(pax_malformed)
{
	static const char *const bad[] = {
		"xx path=a\n", "12 path=ab\n", "3 a\n", "0 \n", "11path=ab\n",
		"10 pathab\n", "11 path=abX", "11 path=ab\ngarbage",
		"99999999999999999999999 path=a\n", " 11 path=ab\n",
		"11 path=ab\n5 a=\n\n",
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++)
		refuse_pax(bad[i], strlen(bad[i]), DIAG_E0003, "pax");
	refuse_pax_value("path", "", 0);
	refuse_pax_value("path", "a\0b.dat", 7);
	refuse_pax_value("size", "1x", 2);
	refuse_pax_value("size", "", 0);
	refuse_pax_value("size", "-5", 2);
	refuse_pax_value("size", "99999999999999999999999", 23);
	char *big = util_malloc(70000);
	memset(big, 'c', 70000);
	Bytes rec = { 0 };
	pax_record(&rec, "comment", big, 70000);
	refuse_pax((const char *)rec.p, rec.len, DIAG_E0006, "pax");
	bytes_free(&rec);
	util_free(big);
}
END_TEST

/* ---- hostile: links, duplicates ------------------------------------------------ */

/* Guards links in an archive: symbolic and hard links reported as
 * MEMBER_LINK with size 0 (whatever their size field says), their data
 * never given, their targets never looked at. */
START_TEST(archive_links)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr s = { .name = "conv1/filter.dat", .type = '2', .linkname = "../../../etc/passwd" };
	put_header(&b, &s);
	Hdr h = { .name = "conv1/bias.dat", .type = '1', .linkname = "graph.nnef", .size = 100 };
	put_header(&b, &h);
	Hdr f = { .name = "fifo", .type = '6' };
	put_header(&b, &f);
	put_file(&b, "last.dat", "z", 1);
	put_end(&b);
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL };
		run_bytes(&r, b.p, b.len, gz);
		expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 5);
		expect_member(&r, 1, "conv1/filter.dat", MEMBER_LINK, 0);
		expect_no_data(&r, 1);
		expect_member(&r, 2, "conv1/bias.dat", MEMBER_LINK, 0);
		expect_no_data(&r, 2);
		expect_member(&r, 3, "fifo", MEMBER_OTHER, 0);
		expect_no_data(&r, 3);
		expect_member(&r, 4, "last.dat", MEMBER_FILE, 1);
		expect_data(&r, 4, "z", 1);
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards members listed twice, also when they differ only by "./" or an
 * empty part (tar would extract the second over the first). */
START_TEST(duplicate_members)
{
	static const char *const pairs[][2] = {
		{ "graph.nnef", "graph.nnef" },
		{ "./w.dat", "w.dat" },
		{ "a//b.dat", "a/b.dat" },
		{ "conv1/./filter.dat", "./conv1/filter.dat" },
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(pairs); i++) {
		Bytes b = { 0 };
		put_file(&b, pairs[i][0], "abc", 3);
		put_file(&b, "between.dat", "x", 1);
		put_file(&b, pairs[i][1], "defg", 4);
		put_end(&b);
		Run r = { .mode = READ_ALL };
		run_bytes(&r, b.p, b.len, i & 1);
		expect_fail(&r, DIAG_E0007, "twice");
		ck_assert_uint_eq(r.n, 2);
		run_free(&r);
		bytes_free(&b);
	}
}
END_TEST

/* ---- the suite ----------------------------------------------------------------- */

Suite *container_names_suite(void)
{
	Suite *s = suite_create("container_names");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, dotdot_names);
	tcase_add_test(tc, absolute_names);
	tcase_add_test(tc, two_long_names);
	tcase_add_test(tc, long_name_without_nul);
	tcase_add_test(tc, long_name_huge);
	tcase_add_test(tc, long_name_size_disagreement);
	tcase_add_test(tc, pax_malformed);
	tcase_add_test(tc, archive_links);
	tcase_add_test(tc, duplicate_members);
	suite_add_tcase(s, tc);
	return s;
}
