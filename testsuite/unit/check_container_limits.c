/*
 * check_container_limits.c - the bounds on reading an archive
 * (ContLimits; datfile.h, tar.c): the size of a member, the number of
 * members, the bytes a gzip stream inflates to. Within them an archive
 * passes; beyond them it is refused with E0006, quickly and without
 * growing the process.
 */
#include "contutil.h"

#include <stdio.h>
#include <string.h>

/* Guards the member limit: 1000 bytes pass, 1001 do not (also when pax
 * size= raises it), refused before visit, naming the member. */
START_TEST(member_over_limit)
{
	Bytes ok = { 0 }, over = { 0 }, pax = { 0 }, rec = { 0 };
	put_file(&ok, "w.dat", pat(), 1000);
	put_end(&ok);
	put_file(&over, "graph.nnef", GRAPH, strlen(GRAPH));
	put_file(&over, "w.dat", pat(), 1001);
	put_end(&over);
	pax_record(&rec, "size", "5000", 4);
	put_pax(&pax, 'x', rec.p, rec.len);
	Hdr h = { .name = "w.dat", .size = 10 };
	put_header(&pax, &h);
	put_data(&pax, pat(), 5000);
	put_end(&pax);
	ContLimits lim = { .max_member = 1000 };
	Run r = { .mode = READ_ALL, .lim = lim };
	run_bytes(&r, ok.p, ok.len, true);
	expect_ok(&r, CONT_TGZ, 1);
	run_free(&r);
	for (int gz = 0; gz < 2; gz++) {
		Run r2 = { .mode = READ_ALL, .lim = lim };
		run_bytes(&r2, over.p, over.len, gz);
		expect_fail(&r2, DIAG_E0006, "w.dat");
		ck_assert_uint_eq(r2.n, 1);
		run_free(&r2);
		Run r3 = { .mode = READ_NONE, .lim = lim };
		run_bytes(&r3, pax.p, pax.len, gz);
		expect_fail(&r3, DIAG_E0006, "w.dat");
		ck_assert_uint_eq(r3.n, 0);
		run_free(&r3);
	}
	bytes_free(&ok);
	bytes_free(&over);
	bytes_free(&pax);
	bytes_free(&rec);
}
END_TEST

/* Guards the entry limit: 3 members pass, a 4th does not. */
START_TEST(too_many_members)
{
	Bytes b = { 0 };
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d.dat", i);
		put_file(&b, name, "x", 1);
	}
	size_t three = b.len;
	put_file(&b, "f3.dat", "x", 1);
	put_end(&b);
	ContLimits lim = { .max_members = 3 };
	for (int gz = 0; gz < 2; gz++) {
		Run r = { .mode = READ_ALL, .lim = lim };
		run_bytes(&r, b.p, b.len, gz);
		expect_fail(&r, DIAG_E0006, "more than|limit");
		ck_assert_uint_eq(r.n, 3);
		run_free(&r);
	}
	Bytes ok = { 0 };
	bytes_put(&ok, b.p, three);
	put_end(&ok);
	Run r = { .mode = READ_ALL, .lim = lim };
	run_bytes(&r, ok.p, ok.len, true);
	expect_ok(&r, CONT_TGZ, 3);
	run_free(&r);
	bytes_free(&ok);
	bytes_free(&b);
}
END_TEST

/* Guards the decompressed-bytes limit: a small tgz of 8 MiB of zeros
 * (a "gzip bomb" in little) refused past 1 MiB, read or skipped, fast;
 * a plain tar skipped by seeking counts too. */
START_TEST(too_many_bytes)
{
	Bytes b = { 0 };
	put_file(&b, "graph.nnef", GRAPH, strlen(GRAPH));
	Hdr h = { .name = "zeros.dat", .size = 8u << 20 };
	put_header(&b, &h);
	bytes_put(&b, NULL, 8u << 20);
	put_end(&b);
	Bytes g = { 0 };
	gzip_of(&b, &g);
	ck_assert_uint_lt(g.len, 64 << 10);
	ContLimits lim = { .max_bytes = 1u << 20 };
	for (int mode = 0; mode < 2; mode++) {
		Run r = { .mode = mode ? READ_NONE : READ_ALL, .lim = lim };
		run_bytes(&r, g.p, g.len, false);
		expect_fail(&r, DIAG_E0006, "more than|limit|bytes");
		ck_assert_msg(r.seconds < 1.0, "took %.2f s", r.seconds);
		if (r.n == 2)
			ck_assert_uint_le(r.m[1].data.len, 1u << 20);
		run_free(&r);
		Run p = { .mode = mode ? READ_NONE : READ_ALL, .lim = lim };
		run_bytes(&p, b.p, b.len, false);
		expect_fail(&p, DIAG_E0006, "more than|limit|bytes");
		run_free(&p);
	}
	bytes_free(&b);
	bytes_free(&g);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------- */

Suite *container_limits_suite(void)
{
	Suite *s = suite_create("container_limits");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, member_over_limit);
	tcase_add_test(tc, too_many_members);
	tcase_add_test(tc, too_many_bytes);
	suite_add_tcase(s, tc);
	return s;
}
