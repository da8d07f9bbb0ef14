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
	"Check NNEF models. Each PATH is a graph file (graph.nnef) or a\n"
	"directory holding graph.nnef.\n"
	"\n"
	"Options:\n"
	"  -q, --quiet          print errors only: no warnings, no summary\n"
	"      --lenient        report known harmless deviations of real\n"
	"                       producers as warnings (extension names\n"
	"                       separated by commas, a redefinition of a\n"
	"                       standard operation with its signature)\n"
	"      --max-errors=N   report at most N errors per model (default 20;\n"
	"                       0 means no limit)\n"
	"      --max-depth=N    expand compound operations nested at most N\n"
	"                       deep (default 100000)\n"
	"      --color=WHEN     color diagnostics: auto (default, when stderr\n"
	"                       is a terminal and NO_COLOR is unset), always,\n"
	"                       never\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n"
	"\n"
	"Exit status: 0 if every model is valid (warnings allowed), 1 if a\n"
	"model is invalid, 2 on a usage error or an unreadable model.\n";

enum { OPT_MAX_ERRORS = 256, OPT_COLOR, OPT_LENIENT, OPT_MAX_DEPTH };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "lenient", no_argument, NULL, OPT_LENIENT },
		{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool quiet = false;
	ModelOptions mopt = { .max_errors = 20 };
	ColorWhen color = COLOR_AUTO;
	int c;
	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case OPT_LENIENT:
			mopt.lenient = true;
			break;
		case OPT_MAX_ERRORS:
			if (!tool_parse_count(optarg, &mopt.max_errors)) {
				fprintf(stderr,
					"nnef-check: --max-errors needs a "
					"non-negative number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_MAX_DEPTH:
			if (!tool_parse_count(optarg, &mopt.flatten.max_depth) ||
			    mopt.flatten.max_depth == 0) {
				fprintf(stderr,
					"nnef-check: --max-depth needs a "
					"positive number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_COLOR:
			if (!tool_parse_color(optarg, &color)) {
				fprintf(stderr,
					"nnef-check: --color must be auto, "
					"always or never, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			puts("nnefkit " NNEF_VERSION);
			return 0;
		default:
			fputs("Try 'nnef-check --help' for more information.\n",
			      stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("nnef-check: no model given\n"
		      "Try 'nnef-check --help' for more information.\n",
		      stderr);
		return 2;
	}

	bool use_color = tool_use_color(color, stderr);
	int status = 0;
	for (int i = optind; i < argc; i++) {
		Model m;
		ModelStatus st = model_check(&m, argv[i], &mopt);
		tool_print_diags("nnef-check", &m, stderr, use_color, !quiet);
		if (!quiet) {
			if (st == MODEL_VALID && m.diags.nwarnings)
				printf("%s: valid (%zu warning%s)\n", argv[i],
				       m.diags.nwarnings,
				       m.diags.nwarnings == 1 ? "" : "s");
			else if (st == MODEL_VALID)
				printf("%s: valid\n", argv[i]);
			else if (st == MODEL_INVALID)
				printf("%s: invalid (%zu error%s%s)\n", argv[i],
				       m.diags.nerrors,
				       m.diags.nerrors == 1 ? "" : "s",
				       m.diags.dropped_errors
					       ? ", stopped at the limit"
					       : "");
			else
				printf("%s: unreadable\n", argv[i]);
		}
		if ((int)st > status)
			status = (int)st;
		model_free(&m);
	}
	fflush(stdout);
	return status;
}
