/*
 * nnef-check - validate NNEF models (spec chapter 6, Document Validity).
 *
 * Each PATH is a graph file or a directory holding graph.nnef. Diagnostics
 * go to stderr as "file:line:col: error[CODE]: message" with the source
 * line; a summary per model goes to stdout unless -q.
 * Exit status: 0 every model valid (warnings allowed), 1 some model
 * invalid, 2 usage error or some model unreadable.
 */
#include "tools/common.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"Usage: nnef-check [OPTIONS] PATH...\n"
	"Check NNEF models. Each PATH is a directory holding graph.nnef and\n"
	"its tensor files, a .tar or .tgz archive of one, or a bare graph file\n"
	"(checked for structure only).\n"
	"\n"
	"Options:\n"
	"  -q, --quiet          print errors only: no warnings, no summary\n"
	"      --lenient        report known harmless deviations of real\n"
	"                       producers as warnings (extension names\n"
	"                       separated by commas, a redefinition of a\n"
	"                       standard operation with its signature)\n"
	"      --max-errors=N   show at most N errors per model, the first in\n"
	"                       source order (default 20; 0 means all)\n"
	"      --max-depth=N    expand compound operations nested at most N\n"
	"                       deep (default 100000)\n"
	"      --shapes         after a valid model, print every tensor's type\n"
	"                       and shape, one per line: NAME: TYPE[D0,D1,...]\n"
	"      --input-shape=NAME=D0,D1,...\n"
	"                       check with this shape for the external NAME\n"
	"                       instead of the one written (repeatable)\n"
	"      --no-data        check the structure only, not the tensor files\n"
	"      --max-archive-bytes=N, --max-member-bytes=N, --max-members=N\n"
	"                       refuse archives larger than N bytes once\n"
	"                       decompressed (default 64G), with a member\n"
	"                       larger than N bytes (default 16G), or with more\n"
	"                       than N members (default 100000)\n"
	"      --color=WHEN     color diagnostics: auto (default, when stderr\n"
	"                       is a terminal and NO_COLOR is unset), always,\n"
	"                       never\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n"
	"\n"
	"Exit status: 0 if every model is valid (warnings allowed), 1 if a\n"
	"model is invalid, 2 on a usage error or an unreadable model.\n";

enum { OPT_SHAPES = OPT_TOOL };

/* "PATH: valid", with the warnings, and saying when the data was not
 * checked (a bare graph file, or --no-data). */
static void print_valid(const char *path, const Model *m,
			const ModelOptions *mopt)
{
	printf("%s: valid", path);
	if (m->diags.nwarnings)
		printf(" (%zu warning%s)", m->diags.nwarnings, m->diags.nwarnings == 1 ? "" : "s");
	if (!m->data_checked)
		printf("; structure only, the data was not checked (%s)", mopt->no_data ? "--no-data" : "a bare graph file holds none");
	putchar('\n');
}

/* Checks one model and prints its diagnostics, its summary and (with
 * --shapes) its shapes; returns its status. */
static int check_model(const char *path, const ModelOptions *mopt, bool quiet,
		       bool shapes, bool use_color)
{
	Model m;
	ModelStatus st = model_check(&m, path, mopt);
	tool_print_diags("nnef-check", &m, stderr, use_color, !quiet);
	if (!tool_check_input_shapes("nnef-check", &m,
				     mopt->flatten.input_shapes,
				     mopt->flatten.ninput_shapes)) {
		model_free(&m);
		return 2;
	}
	if (!quiet) {
		if (st == MODEL_VALID)
			print_valid(path, &m, mopt);
		else if (st == MODEL_INVALID && model_errors_hidden(&m))
			printf("%s: invalid (%s%zu errors, %zu shown)\n", path, m.diags.dropped_errors ? "at least " : "", m.diags.nerrors + m.diags.dropped_errors, model_shown_errors(&m));
		else if (st == MODEL_INVALID)
			printf("%s: invalid (%zu error%s)\n", path, m.diags.nerrors, m.diags.nerrors == 1 ? "" : "s");
		else
			printf("%s: unreadable\n", path);
	}
	if (shapes && st == MODEL_VALID && m.flat) {
		StrBuf out;
		sb_init(&out);
		flat_print_shapes(&out, m.flat);
		fputs(sb_str(&out), stdout);
		sb_free(&out);
	}
	model_free(&m);
	return (int)st;
}

static int run(int argc, char **argv, CommonArgs *a)
{
	static const struct option longopts[] = {
		TOOL_COMMON_LONGOPTS,
		{ "shapes", no_argument, NULL, OPT_SHAPES },
		{ NULL, 0, NULL, 0 },
	};
	bool shapes = false;
	int c;
	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		int st = tool_common_option("nnef-check", usage_text, c, a);
		if (st == -2 && c == OPT_SHAPES)
			shapes = true;
		else if (st >= 0)
			return st;
	}
	if (optind >= argc) {
		fputs("nnef-check: no model given\n"
		      "Try 'nnef-check --help' for more information.\n",
		      stderr);
		return 2;
	}
	bool use_color = tool_use_color(a->color, stderr);
	int status = 0;
	for (int i = optind; i < argc; i++) {
		int st = check_model(argv[i], &a->mopt, a->quiet, shapes,
				     use_color);
		if (st > status)
			status = st;
	}
	return status;
}

int main(int argc, char **argv)
{
	CommonArgs a;
	tool_common_init(&a);
	int status = run(argc, argv, &a);
	tool_common_free(&a);
	if (fflush(stdout) != 0 && status == 0)
		status = 2;
	return status;
}
