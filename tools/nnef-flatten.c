/*
 * nnef-flatten - write the flat equivalent of an NNEF model (spec chapter
 * 6): every compound operation expanded into primitives (except those
 * kept with --keep or --keep-standard), every compile-time expression
 * evaluated; or, with --format=dot, the flat graph in Graphviz DOT.
 *
 * Exit status: 0 the output was written, 1 the model is invalid, 2 a
 * usage error or an unreadable model or output.
 */
#include "tools/common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const ToolInfo tool = {
	.prog = "nnef-flatten",
	.tool = T_FLATTEN,
	.usage = "nnef-flatten [OPTIONS] MODEL [-o FILE]",
	.about = "Write the flat equivalent of an NNEF model: every compound operation expanded into primitives, every compile-time expression evaluated. MODEL is a directory holding graph.nnef, a .tar or .tgz of one, or a graph file.",
	.exits = "Exit status: 0 if the output was written, 1 if the model is invalid, 2 on a usage error or an unreadable model or output.",
};

typedef struct Args {
	CommonArgs common;
	const char *output;
	bool dot;
	bool fold_weights;
	bool annotate;
	const char **keep;
	size_t nkeep;
} Args;

/* Splits a comma-separated list, appending to a->keep. */
static const char *add_keep(Args *a, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		const char **grown = realloc(a->keep, (a->nkeep + 1) * sizeof(*grown));
		if (!grown)
			return "needs more memory than there is";
		a->keep = grown;
		a->keep[a->nkeep++] = tok;
	}
	a->common.opt.keep = a->keep;
	a->common.opt.n_keep = a->nkeep;
	return NULL;
}

static const char *set_option(void *ctx, OptId id, char *arg)
{
	Args *a = ctx;
	switch (id) {
	case OPT_OUTPUT: a->output = arg; return NULL;
	case OPT_KEEP: return add_keep(a, arg);
	case OPT_KEEP_STANDARD: a->common.opt.keep_standard = true; return NULL;
	case OPT_ANNOTATE: a->annotate = true; return NULL;
	case OPT_FOLD_WEIGHTS: a->fold_weights = true; return NULL;
	case OPT_FORMAT_FLATTEN:
		if (strcmp(arg, "nnef") != 0 && strcmp(arg, "dot") != 0)
			return "must be nnef or dot";
		a->dot = strcmp(arg, "dot") == 0;
		return NULL;
	default:
		return "is not an option of nnef-flatten";
	}
}

/* Writes the flat document (or DOT) of the valid model m. */
static int write_output(const Args *a, const nnef_model *m)
{
	char *text = a->dot ? nnef_model_print_dot(m, a->fold_weights ? NNEF_DOT_FOLD_WEIGHTS : 0)
			    : nnef_model_print_flat(m, a->annotate ? NNEF_PRINT_SHAPES : 0);
	if (!text) {
		fprintf(stderr, "%s: error[E0008]: out of memory while printing the model\n", tool.prog);
		return 2;
	}
	int status = 0;
	size_t len = strlen(text);
	if (a->output) {
		if (!tool_write_file(tool.prog, a->output, text, len))
			status = 2;
	} else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write the output: %s\n", tool.prog, strerror(errno));
		status = 2;
	}
	free(text);
	return status;
}

static int run(int argc, char **argv, Args *a)
{
	int first, st = tool_parse_args(&tool, argc, argv, &a->common, set_option, a, &first);
	if (st >= 0)
		return st;
	if (first + 1 != argc)
		return tool_usage_error(&tool, first >= argc ? "no model given" : "one model at a time");
	if (a->dot && a->annotate)
		return tool_usage_error(&tool, "--annotate-shapes goes with --format=nnef (DOT always shows the shapes)");
	if (!a->dot && a->fold_weights)
		return tool_usage_error(&tool, "--fold-weights goes with --format=dot");
	CommonArgs *ca = &a->common;
	nnef_model *m = tool_load_model(stderr, tool.prog, argv[first], &ca->opt);
	if (!m)
		return 2;
	tool_print_diags(tool.prog, nnef_model_diags(m), tool_use_color(ca->color, stderr), !ca->quiet);
	int status = (int)nnef_model_status(m);
	for (size_t i = 0; i < a->nkeep && status != 2; i++)
		if (!nnef_model_has_operation(m, a->keep[i]))
			status = tool_usage_error(&tool, "--keep: '%s' is not an operation of this model", a->keep[i]);
	if (!tool_check_input_shapes(stderr, tool.prog, m, ca))
		status = 2;
	if (status == 0)
		status = write_output(a, m);
	nnef_model_free(m);
	return status;
}

int main(int argc, char **argv)
{
	Args a = { .output = NULL };
	tool_common_init(&a.common);
	int status = run(argc, argv, &a);
	tool_common_free(&a.common);
	free(a.keep);
	return tool_finish(tool.prog, status);
}
