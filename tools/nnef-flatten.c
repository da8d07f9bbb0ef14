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
	"MODEL is a directory holding graph.nnef, a .tar or .tgz of one, or a\n"
	"graph file.\n"
	"\n"
	"Options:\n"
	"  -o, --output=FILE    write to FILE instead of standard output\n"
	"      --keep=OP[,OP...]  keep these compound operations as\n"
	"                       invocations instead of expanding them\n"
	"      --keep-standard  keep every standard compound operation (relu,\n"
	"                       max_pool, batch_normalization, ...)\n"
	"      --max-depth=N    expand compounds nested at most N deep\n"
	"                       (default 100000)\n"
	"      --annotate-shapes  end each operation with a comment giving\n"
	"                       its results' types and shapes\n"
	"      --input-shape=NAME=D0,D1,...\n"
	"                       use this shape for the external NAME instead\n"
	"                       of the one written (repeatable)\n"
	"      --no-data, --max-archive-bytes=N, --max-member-bytes=N,\n"
	"      --max-members=N  as for nnef-check\n"
	"      --lenient        report known harmless deviations as warnings\n"
	"  -q, --quiet          print errors only, no warnings\n"
	"      --max-errors=N   show at most N errors (default 20; 0: all)\n"
	"      --color=WHEN     color diagnostics: auto, always or never\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n"
	"\n"
	"Exit status: 0 if the flat document was written, 1 if the model is\n"
	"invalid, 2 on a usage error or an unreadable model or output.\n";

enum {
	OPT_KEEP = OPT_TOOL,
	OPT_KEEP_STANDARD,
	OPT_ANNOTATE,
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

typedef struct Args {
	CommonArgs common;
	const char *output;
	bool annotate;
	const char **keep;
	size_t nkeep;
} Args;

/* Parses one option into a; returns -1 to go on, else the exit status. */
static int parse_option(int c, Args *a)
{
	int st = tool_common_option("nnef-flatten", usage_text, c, &a->common);
	if (st != -2)
		return st;
	switch (c) {
	case 'o':
		a->output = optarg;
		return -1;
	case OPT_KEEP:
		add_names(optarg, &a->keep, &a->nkeep);
		return -1;
	case OPT_KEEP_STANDARD:
		a->common.mopt.flatten.keep_standard = true;
		return -1;
	case OPT_ANNOTATE:
		a->annotate = true;
		return -1;
	default:
		fputs("Try 'nnef-flatten --help' for more information.\n", stderr);
		return 2;
	}
}

/* Writes the flat document of the valid model m. */
static int write_output(const Args *a, const Model *m)
{
	StrBuf out;
	sb_init(&out);
	flat_print(&out, m->flat, a->annotate);
	int status = 0;
	if (a->output) {
		if (!write_file(a->output, out.data, out.len))
			status = 2;
	} else if (fwrite(out.data, 1, out.len, stdout) != out.len ||
		   fflush(stdout) != 0) {
		fprintf(stderr, "nnef-flatten: cannot write the output: %s\n", strerror(errno));
		status = 2;
	}
	sb_free(&out);
	return status;
}

static int run(int argc, char **argv, Args *a)
{
	static const struct option longopts[] = {
		TOOL_COMMON_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "keep-standard", no_argument, NULL, OPT_KEEP_STANDARD },
		{ "annotate-shapes", no_argument, NULL, OPT_ANNOTATE },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
		int st = parse_option(c, a);
		if (st >= 0)
			return st;
	}
	if (optind + 1 != argc) {
		fputs(optind >= argc ? "nnef-flatten: no model given\n"
				     : "nnef-flatten: one model at a time\n",
		      stderr);
		fputs("Try 'nnef-flatten --help' for more information.\n", stderr);
		return 2;
	}
	CommonArgs *ca = &a->common;
	ca->mopt.flatten.keep = a->keep;
	ca->mopt.flatten.nkeep = a->nkeep;

	Model m;
	ModelStatus st = model_check(&m, argv[optind], &ca->mopt);
	tool_print_diags("nnef-flatten", &m, stderr,
			 tool_use_color(ca->color, stderr), !ca->quiet);
	int status = (int)st;
	for (size_t i = 0; m.checked && i < a->nkeep; i++) {
		const char *name = intern_cstr(&m.interner, a->keep[i]);
		if (!sema_lookup(&m.prog, name)) {
			fprintf(stderr, "nnef-flatten: --keep: '%s' is not an operation of this model\n", a->keep[i]);
			status = 2;
		}
	}
	if (!tool_check_input_shapes("nnef-flatten", &m, ca->inputs, ca->ninputs))
		status = 2;
	if (status == 0 && m.flat)
		status = write_output(a, &m);
	model_free(&m);
	return status;
}

int main(int argc, char **argv)
{
	Args a = { .output = NULL };
	tool_common_init(&a.common);
	int status = run(argc, argv, &a);
	tool_common_free(&a.common);
	free(a.keep);
	return status;
}
