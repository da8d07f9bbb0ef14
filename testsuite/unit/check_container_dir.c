/*
 * check_container_dir.c - the containers that are not archives
 * (datfile.h, container.c): a directory walked in sorted order, links
 * reported and never followed, its member limit; a bare graph file; a
 * path that does not exist.
 */
#include "contutil.h"

#include <stdio.h>
#include <string.h>

/* Guards directory containers: names sorted, nested folders walked,
 * relative '/'-separated names, an empty folder listing nothing; a
 * symlink reported as MEMBER_LINK with no data and never followed (not
 * even into a folder outside).
 * BUG (when written, under UBSan only): the empty folder makes list_dir
 * call qsort(NULL, 0, ...), undefined behaviour (container.c:218;
 * "null pointer passed as argument 1, which is declared to never be
 * null"), which aborts the test in the sanitizer build. */
START_TEST(directory_container)
{
	char *dir = make_temp_dir(), *out = make_temp_dir();
	file_at(out, "secret.dat", "secret", 6);
	file_at(dir, "graph.nnef", GRAPH, strlen(GRAPH));
	dir_at(dir, "conv1");
	file_at(dir, "conv1/filter.dat", pat(), 1000);
	file_at(dir, "conv1/bias.dat", pat() + 1, 12);
	dir_at(dir, "b");
	dir_at(dir, "b/nested");
	dir_at(dir, "b/nested/deep");
	file_at(dir, "b/nested/deep/x.dat", pat() + 2, 3);
	dir_at(dir, "empty");
	link_at(dir, "link.dat", "graph.nnef");
	link_at(dir, "outside", out);
	Run r = { .mode = READ_ALL, .chunk = 100 };
	run_path(&r, dir);
	remove_tree(dir);
	remove_tree(out);
	util_free(dir);
	util_free(out);
	expect_ok(&r, CONT_DIR, 6);
	expect_member(&r, 0, "b/nested/deep/x.dat", MEMBER_FILE, 3);
	expect_data(&r, 0, pat() + 2, 3);
	expect_member(&r, 1, "conv1/bias.dat", MEMBER_FILE, 12);
	expect_data(&r, 1, pat() + 1, 12);
	expect_member(&r, 2, "conv1/filter.dat", MEMBER_FILE, 1000);
	expect_data(&r, 2, pat(), 1000);
	expect_member(&r, 3, "graph.nnef", MEMBER_FILE, strlen(GRAPH));
	expect_data(&r, 3, GRAPH, strlen(GRAPH));
	expect_member(&r, 4, "link.dat", MEMBER_LINK, 0);
	expect_no_data(&r, 4);
	expect_member(&r, 5, "outside", MEMBER_LINK, 0);
	expect_no_data(&r, 5);
	run_free(&r);
}
END_TEST

/* Guards an empty directory: a container with no members, scanned
 * cleanly (a missing graph.nnef is the model's problem, not the
 * container's).
 * BUG (when written, under UBSan only): as above, qsort(NULL, 0, ...). */
START_TEST(empty_directory)
{
	char *dir = make_temp_dir();
	Run r = { .mode = READ_ALL };
	run_path(&r, dir);
	remove_tree(dir);
	util_free(dir);
	expect_ok(&r, CONT_DIR, 0);
	run_free(&r);
}
END_TEST

/* Guards the member limit in a directory too. */
START_TEST(directory_too_many_files)
{
	char *dir = make_temp_dir();
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d.dat", i);
		file_at(dir, name, "x", 1);
	}
	Run r = { .mode = READ_ALL, .lim = { .max_members = 3 } };
	run_path(&r, dir);
	remove_tree(dir);
	util_free(dir);
	expect_fail(&r, DIAG_E0006, "more than|limit");
	ck_assert_uint_le(r.n, 3);
	run_free(&r);
}
END_TEST

/* Guards a bare graph file: one member, graph.nnef, its bytes. */
START_TEST(bare_file)
{
	Run r = { .mode = READ_ALL, .chunk = 10 };
	run_bytes(&r, GRAPH, strlen(GRAPH), false);
	expect_ok(&r, CONT_FILE, 1);
	expect_member(&r, 0, "graph.nnef", MEMBER_FILE, strlen(GRAPH));
	expect_data(&r, 0, GRAPH, strlen(GRAPH));
	run_free(&r);
}
END_TEST

/* Guards a missing path: NULL and E0001 naming it, nothing leaked. */
START_TEST(open_missing)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	Container *c = cont_open("/nonexistent/nnefkit-model.tgz", NULL, &dl);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(dl.nerrors, 1);
	ck_assert_int_eq(dl.items[0]->code, DIAG_E0001);
	ck_assert_ptr_nonnull(strstr(dl.items[0]->msg, "/nonexistent/nnefkit-model.tgz"));
	diag_list_free(&dl);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------- */

Suite *container_dir_suite(void)
{
	Suite *s = suite_create("container_dir");
	TCase *tc = tcase_create("valid");
	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, directory_container);
	tcase_add_test(tc, empty_directory);
	tcase_add_test(tc, bare_file);
	tcase_add_test(tc, open_missing);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, directory_too_many_files);
	suite_add_tcase(s, tc);
	return s;
}
