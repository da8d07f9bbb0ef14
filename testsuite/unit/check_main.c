/*
 * check_main.c - runs every Check suite (one per module, or per topic of
 * a large one). Without the corpus (NNEF_CORPUS) it says once, before
 * and after the run, how many corpus tests did not run in full.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	SRunner *sr = srunner_create(util_suite());
	srunner_add_suite(sr, lexer_suite());
	srunner_add_suite(sr, grammar_suite());
	srunner_add_suite(sr, types_suite());
	srunner_add_suite(sr, sema_suite());
	srunner_add_suite(sr, shapes_suite());
	srunner_add_suite(sr, dim_suite());
	srunner_add_suite(sr, tract_shapes_suite());
	srunner_add_suite(sr, flatten_suite());
	srunner_add_suite(sr, dot_suite());
	srunner_add_suite(sr, datfile_suite());
	srunner_add_suite(sr, npy_suite());
	srunner_add_suite(sr, container_tar_suite());
	srunner_add_suite(sr, container_dir_suite());
	srunner_add_suite(sr, container_limits_suite());
	srunner_add_suite(sr, container_damage_suite());
	srunner_add_suite(sr, container_names_suite());
	srunner_add_suite(sr, model_suite());
	srunner_add_suite(sr, interp_suite());
	srunner_add_suite(sr, api_suite());
	srunner_add_suite(sr, golden_suite());
	srunner_add_suite(sr, corpus_suite());
	srunner_add_suite(sr, stream_suite());
	srunner_add_suite(sr, oom_suite());
	srunner_add_suite(sr, port_suite());
	test_corpus_report(stderr, "SKIP: ");
	fflush(stderr);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fflush(stdout);
	test_corpus_report(stdout, "SKIP (in the checks above): ");
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
