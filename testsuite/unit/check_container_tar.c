/*
 * check_container_tar.c - valid tar archives, plain and gzip-compressed
 * (datfile.h, container.c, tar.c): each member listed as stored with its
 * name, type and size, and its data read back exactly, whole, in odd
 * chunks or in part; names normalized; the ustar prefix, GNU long names,
 * pax headers, base-256 sizes and v7 archives understood. The archives
 * are built byte by byte (contutil.h).
 */
#include "contutil.h"

#include <string.h>

/* ---- valid archives ------------------------------------------------------------ */

static void check_model(bool gz)
{
	Bytes b = { 0 };
	model_tar(&b, true);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, gz);
	/* the folder entry is not a member */
	expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 4);
	expect_member(&r, 0, "graph.nnef", MEMBER_FILE, strlen(GRAPH));
	expect_data(&r, 0, GRAPH, strlen(GRAPH));
	expect_member(&r, 1, "conv1/filter.dat", MEMBER_FILE, 1000);
	expect_data(&r, 1, pat(), 1000);
	expect_member(&r, 2, "conv1/bias.dat", MEMBER_FILE, 0);
	expect_data(&r, 2, "", 0);
	expect_member(&r, 3, "conv1/odd..name.dat", MEMBER_FILE, 512);
	expect_data(&r, 3, pat() + 5000, 512);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_int_eq(r.m[i].last, 0);
	run_free(&r);
	bytes_free(&b);
}

/* Guards the basic listing of a plain tar: names, sizes, types, data read
 * back exactly, 0 at the end of each member, a folder entry not listed,
 * ".." inside a name part not mistaken for a '..' part. */
START_TEST(tar_model)
{
	check_model(false);
}
END_TEST

/* Guards the same through gzip, recognized by its magic (the temporary
 * file has no .tgz name). */
START_TEST(tgz_model)
{
	check_model(true);
}
END_TEST

/* Guards partial reads: the first bytes of each member read in odd-sized
 * chunks, the rest skipped (seeking in a tar, reading through in a tgz),
 * must leave the stream exactly at the next header. */
START_TEST(partial_reads_then_skip)
{
	Bytes b = { 0 };
	big_members(&b);
	static const size_t sizes[] = { 3000, 600000, 700, 262144 - 1024 };
	static const size_t offs[] = { 0, 1, 7, 3 };
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_SOME, .some = 10, .chunk = 3 };
		run_bytes(&r, b.p, b.len, gz);
		expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 4);
		for (size_t i = 0; i < 4; i++) {
			ck_assert_uint_eq(r.m[i].size, sizes[i]);
			expect_data(&r, i, pat() + offs[i], 10);
		}
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards whole reads in chunks that do not divide the blocks or the
 * stream buffer (data crossing refills must come back exact). */
START_TEST(whole_reads_odd_chunks)
{
	Bytes b = { 0 };
	big_members(&b);
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL, .chunk = 4093 };
		run_bytes(&r, b.p, b.len, gz);
		expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 4);
		expect_data(&r, 0, pat(), 3000);
		expect_data(&r, 1, pat() + 1, 600000);
		expect_data(&r, 2, pat() + 7, 700);
		expect_data(&r, 3, pat() + 3, 262144 - 1024);
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards visit stopping the scan: no further member, and no error. */
START_TEST(visit_stops_scan)
{
	Bytes b = { 0 };
	model_tar(&b, true);
	Run r = { .mode = READ_SOME, .some = 5, .stop_after = 2 };
	run_bytes(&r, b.p, b.len, false);
	expect_ok(&r, CONT_TAR, 2);
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* Guards name normalization: "./" parts, empty parts and a trailing '/'
 * dropped; an entry for "./" itself not listed; a top folder kept. */
START_TEST(dot_slash_and_top_folder)
{
	Bytes b = { 0 };
	put_dir(&b, "./");
	put_file(&b, "./graph.nnef", GRAPH, strlen(GRAPH));
	put_file(&b, "./conv1/./filter.dat", pat(), 40);
	put_file(&b, "././x//y.dat", pat(), 4);
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	expect_ok(&r, CONT_TAR, 3);
	expect_member(&r, 0, "graph.nnef", MEMBER_FILE, strlen(GRAPH));
	expect_member(&r, 1, "conv1/filter.dat", MEMBER_FILE, 40);
	expect_member(&r, 2, "x/y.dat", MEMBER_FILE, 4);
	run_free(&r);
	bytes_free(&b);

	Bytes t = { 0 };
	put_dir(&t, "model/");
	put_file(&t, "model/graph.nnef", GRAPH, strlen(GRAPH));
	put_file(&t, "model/conv1/filter.dat", pat(), 40);
	put_end(&t);
	Run r2 = { .mode = READ_ALL };
	run_bytes(&r2, t.p, t.len, true);
	expect_ok(&r2, CONT_TGZ, 2);
	expect_member(&r2, 0, "model/graph.nnef", MEMBER_FILE, strlen(GRAPH));
	expect_member(&r2, 1, "model/conv1/filter.dat", MEMBER_FILE, 40);
	expect_data(&r2, 1, pat(), 40);
	run_free(&r2);
	bytes_free(&t);
}
END_TEST

/* Guards long paths split by ustar into prefix and name (joined with
 * '/'), and a name filling its 100 bytes with no NUL. */
START_TEST(ustar_prefix_and_full_name)
{
	char prefix[141], full[101], want[300];
	memset(prefix, 'p', sizeof(prefix) - 1);
	prefix[sizeof(prefix) - 1] = '\0';
	memcpy(prefix, "model/", 6);
	memset(full, 'n', 100);
	full[100] = '\0';
	Bytes b = { 0 };
	Hdr h = { .name = "filter.dat", .prefix = prefix, .size = 33 };
	put_header(&b, &h);
	put_data(&b, pat(), 33);
	put_file(&b, full, pat() + 9, 9);
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	expect_ok(&r, CONT_TAR, 2);
	snprintf(want, sizeof(want), "%s/filter.dat", prefix);
	expect_member(&r, 0, want, MEMBER_FILE, 33);
	expect_data(&r, 0, pat(), 33);
	expect_member(&r, 1, full, MEMBER_FILE, 9);
	expect_data(&r, 1, pat() + 9, 9);
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* Guards GNU long names ('L', one block and several), which name the
 * next member instead of its truncated header name, and only it. */
START_TEST(gnu_long_name)
{
	char name1[300], name2[1200];
	memset(name1, 'a', sizeof(name1));
	memcpy(name1, "layer1/", 7);
	memcpy(name1 + sizeof(name1) - 4, ".dat", 4);
	memset(name2, 'b', sizeof(name2));
	memcpy(name2 + sizeof(name2) - 4, ".dat", 4);
	Bytes b = { 0 };
	put_long(&b, 'L', name1, sizeof(name1), true);
	put_file(&b, "layer1/aaaaaaaaaaaaaaaa", pat(), 77);
	put_long(&b, 'L', name2, sizeof(name2), true);
	put_file(&b, "bbbbbbbb", pat() + 1, 1);
	put_file(&b, "after.dat", pat() + 2, 2);
	put_end(&b);
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL };
		run_bytes(&r, b.p, b.len, gz);
		expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 3);
		ck_assert_uint_eq(strlen(r.m[0].name), sizeof(name1));
		ck_assert_int_eq(memcmp(r.m[0].name, name1, sizeof(name1)), 0);
		expect_data(&r, 0, pat(), 77);
		ck_assert_uint_eq(strlen(r.m[1].name), sizeof(name2));
		ck_assert_int_eq(memcmp(r.m[1].name, name2, sizeof(name2)), 0);
		expect_data(&r, 1, pat() + 1, 1);
		expect_member(&r, 2, "after.dat", MEMBER_FILE, 2);
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards pax headers: path= names the next member, size= overrides its
 * header's size; both apply to that member only; a global header ('g')
 * does not rename anything. */
START_TEST(pax_path_and_size)
{
	char longpath[250];
	memset(longpath, 'q', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	memcpy(longpath, "conv2/", 6);
	Bytes rec = { 0 }, grec = { 0 }, b = { 0 };
	pax_record(&rec, "mtime", "1700000000.5", 12);
	pax_record(&rec, "path", longpath, strlen(longpath));
	pax_record(&rec, "size", "1234", 4);
	pax_record(&grec, "path", "global-name.dat", 15);
	put_pax(&b, 'g', grec.p, grec.len);
	put_pax(&b, 'x', rec.p, rec.len);
	Hdr h = { .name = "short.dat", .size = 3 }; /* the wrong size */
	put_header(&b, &h);
	put_data(&b, pat(), 1234);
	put_file(&b, "next.dat", pat() + 1, 5);
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, true);
	expect_ok(&r, CONT_TGZ, 2);
	expect_member(&r, 0, longpath, MEMBER_FILE, 1234);
	expect_data(&r, 0, pat(), 1234);
	expect_member(&r, 1, "next.dat", MEMBER_FILE, 5);
	expect_data(&r, 1, pat() + 1, 5);
	run_free(&r);
	bytes_free(&rec);
	bytes_free(&grec);
	bytes_free(&b);
}
END_TEST

/* Guards base-256 sizes (first byte 0x80), which libtar cannot parse. */
START_TEST(base256_size)
{
	Bytes b = { 0 };
	Hdr h = { .name = "w.dat", .size = 777, .form = SIZE_BASE256 };
	put_header(&b, &h);
	put_data(&b, pat(), 777);
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	put_end(&b);
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL };
		run_bytes(&r, b.p, b.len, gz);
		expect_ok(&r, gz ? CONT_TGZ : CONT_TAR, 2);
		expect_member(&r, 0, "w.dat", MEMBER_FILE, 777);
		expect_data(&r, 0, pat(), 777);
		expect_member(&r, 1, "graph.nnef", MEMBER_FILE, strlen(GRAPH));
		run_free(&r);
	}
	bytes_free(&b);
}
END_TEST

/* Guards archive order: members are visited as stored, not sorted. */
START_TEST(archive_order)
{
	static const char *const names[] = { "z.dat", "a.dat", "m/b.dat", "graph.nnef", "b.dat" };
	Bytes b = { 0 };
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++)
		put_file(&b, names[i], pat() + i, i + 1);
	put_end(&b);
	Run r = { .mode = READ_NONE };
	run_bytes(&r, b.p, b.len, false);
	expect_ok(&r, CONT_TAR, UTIL_ARRAY_LEN(names));
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++)
		expect_member(&r, i, names[i], MEMBER_FILE, i + 1);
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* Guards old (v7) archives without the "ustar" magic: recognized by a
 * valid header checksum. */
START_TEST(v7_tar)
{
	Bytes b = { 0 };
	Hdr h = { .name = "graph.nnef", .size = strlen(GRAPH), .v7 = true };
	put_header(&b, &h);
	put_data(&b, GRAPH, strlen(GRAPH));
	put_end(&b);
	Run r = { .mode = READ_ALL };
	run_bytes(&r, b.p, b.len, false);
	expect_ok(&r, CONT_TAR, 1);
	expect_data(&r, 0, GRAPH, strlen(GRAPH));
	run_free(&r);
	bytes_free(&b);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------- */

Suite *container_tar_suite(void)
{
	Suite *s = suite_create("container_tar");
	TCase *tc = tcase_create("valid");
	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, tar_model);
	tcase_add_test(tc, tgz_model);
	tcase_add_test(tc, partial_reads_then_skip);
	tcase_add_test(tc, whole_reads_odd_chunks);
	tcase_add_test(tc, visit_stops_scan);
	tcase_add_test(tc, dot_slash_and_top_folder);
	tcase_add_test(tc, ustar_prefix_and_full_name);
	tcase_add_test(tc, gnu_long_name);
	tcase_add_test(tc, pax_path_and_size);
	tcase_add_test(tc, base256_size);
	tcase_add_test(tc, archive_order);
	tcase_add_test(tc, v7_tar);
	suite_add_tcase(s, tc);
	return s;
}
