/*
 * nnef-flatten - write the flat, primitives-only equivalent of an NNEF
 * model (spec chapter 6, Document Validity: the flattened format).
 *
 * The model is checked exactly as nnef-check checks it; if it is valid,
 * the flat document goes to stdout, or to FILE (written to a temporary
 * file beside it and renamed when complete, so FILE is never partial).
 * Exit status as nnef-check: 0 written, 1 invalid model, 2 usage or I/O
 * error.
 */
#include "tools/common.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"Usage: nnef-flatten [OPTIONS] MODEL [-o FILE]\n"
	"Write the flat equivalent of an NNEF model: every compound operation\n"
	"expanded into primitives, every compile-time expression evaluated.\n"
	"MODEL is a graph file or a directory holding graph.nnef.\n"
	"\n"
	"Options:\n"
	"  -o, --output=FILE    write to FILE instead of standard output\n"
	"      --keep=OP[,OP...]  keep these compound operations as\n"
	"                       invocations instead of expanding them\n"
	"      --keep-standard  keep every standard compound operation (relu,\n"
	"                       max_pool, batch_normalization, ...)\n"
	"      --max-depth=N    expand compounds nested at most N deep\n"
	"                       (default 100000)\n"
	"      --lenient        report known harmless deviations as warnings\n"
	"  -q, --quiet          print errors only, no warnings\n"
	"      --max-errors=N   report at most N errors (default 20; 0: all)\n"
	"      --color=WHEN     color diagnostics: auto, always or never\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n"
	"\n"
	"Exit status: 0 if the flat document was written, 1 if the model is\n"
	"invalid, 2 on a usage error or an unreadable model or output.\n";

enum {
	OPT_MAX_ERRORS = 256,
	OPT_COLOR,
	OPT_LENIENT,
	OPT_KEEP,
	OPT_KEEP_STANDARD,
	OPT_MAX_DEPTH,
};

/* Splits a comma-separated list, appending to *names. */
static void add_names(char *list, const char ***names, size_t *n)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (!*tok)
			continue;
		*names = util_realloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = tok;
	}
}

/* Writes text to path through a temporary file renamed into place. */
static bool write_file(const char *path, const char *text, size_t len)
{
	size_t n = strlen(path);
	char *tmp = util_malloc(n + sizeof(".tmpXXXXXX"));
	memcpy(tmp, path, n);
	strcpy(tmp + n, ".tmpXXXXXX");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "nnef-flatten: cannot write '%s': %s\n", path,
			strerror(errno));
		free(tmp);
		return false;
	}
	FILE *fp = fdopen(fd, "wb");
	bool ok = fp && fwrite(text, 1, len, fp) == len;
	ok = fp && fclose(fp) == 0 && ok;
	if (!fp)
		close(fd);
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok) {
		fprintf(stderr, "nnef-flatten: cannot write '%s': %s\n", path,
			strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "keep-standard", no_argument, NULL, OPT_KEEP_STANDARD },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "lenient", no_argument, NULL, OPT_LENIENT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	bool quiet = false;
	ModelOptions mopt = { .max_errors = 20 };
	const char **keep = NULL;
	size_t nkeep = 0;
	ColorWhen color = COLOR_AUTO;
	int c;
	while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_KEEP:
			add_names(optarg, &keep, &nkeep);
			break;
		case OPT_KEEP_STANDARD:
			mopt.flatten.keep_standard = true;
			break;
		case OPT_MAX_DEPTH:
			if (!tool_parse_count(optarg, &mopt.flatten.max_depth) ||
			    mopt.flatten.max_depth == 0) {
				fprintf(stderr,
					"nnef-flatten: --max-depth needs a "
					"positive number, not '%s'\n",
					optarg);
				free(keep);
				return 2;
			}
			break;
		case OPT_LENIENT:
			mopt.lenient = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_MAX_ERRORS:
			if (!tool_parse_count(optarg, &mopt.max_errors)) {
				fprintf(stderr,
					"nnef-flatten: --max-errors needs a "
					"non-negative number, not '%s'\n",
					optarg);
				free(keep);
				return 2;
			}
			break;
		case OPT_COLOR:
			if (!tool_parse_color(optarg, &color)) {
				fprintf(stderr,
					"nnef-flatten: --color must be auto, "
					"always or never, not '%s'\n",
					optarg);
				free(keep);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(keep);
			return 0;
		case 'V':
			puts("nnefkit " NNEF_VERSION);
			free(keep);
			return 0;
		default:
			fputs("Try 'nnef-flatten --help' for more information.\n",
			      stderr);
			free(keep);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(optind >= argc ? "nnef-flatten: no model given\n"
				     : "nnef-flatten: one model at a time\n",
		      stderr);
		fputs("Try 'nnef-flatten --help' for more information.\n",
		      stderr);
		free(keep);
		return 2;
	}
	mopt.flatten.keep = keep;
	mopt.flatten.nkeep = nkeep;

	Model m;
	ModelStatus st = model_check(&m, argv[optind], &mopt);
	tool_print_diags("nnef-flatten", &m, stderr,
			 tool_use_color(color, stderr), !quiet);
	int status = (int)st;
	for (size_t i = 0; m.checked && i < nkeep; i++) {
		const SemaFrag *f = sema_lookup(&m.prog,
						intern_cstr(&m.interner, keep[i]));
		if (!f) {
			fprintf(stderr,
				"nnef-flatten: --keep: '%s' is not an operation "
				"of this model\n",
				keep[i]);
			status = 2;
		}
	}
	if (status == 0 && m.flat) {
		StrBuf out;
		sb_init(&out);
		flat_print(&out, m.flat);
		if (output) {
			if (!write_file(output, out.data, out.len))
				status = 2;
		} else if (fwrite(out.data, 1, out.len, stdout) != out.len ||
			   fflush(stdout) != 0) {
			fprintf(stderr, "nnef-flatten: cannot write the output: "
					"%s\n",
				strerror(errno));
			status = 2;
		}
		sb_free(&out);
	}
	model_free(&m);
	free(keep);
	return status;
}
