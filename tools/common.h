/*
 * common.h - what the programs share: their options (one table,
 * tools/options.def, gives every option's name, argument, programs and
 * help text; one parser reads them and writes --help), usage errors,
 * color choice, the model-checking options and printing diagnostics.
 * nnef-check, nnef-flatten and nnef-run reach the library through nnef.h
 * only; nnef-datinfo also uses its internal layers (datfile/, containers,
 * diagnostics, string buffers, util/): see its head comment for why.
 */
#ifndef NNEF_TOOLS_COMMON_H
#define NNEF_TOOLS_COMMON_H

#include "api/nnef.h"

#include <stdio.h>

/* The programs, as a bit set (the TOOLS column of options.def). */
enum {
	T_CHECK = 1,
	T_FLATTEN = 2,
	T_RUN = 4,
	T_DATINFO = 8,
	T_MODEL = T_CHECK | T_FLATTEN | T_RUN,
	T_ALL = T_MODEL | T_DATINFO,
};

/* The groups of --help, in the order printed. */
typedef enum OptGroup {
	G_INPUT,
	G_OUTPUT,
	G_RUN,
	G_PORT,
	G_CHECK,
	G_LIMITS,
	G_GENERAL,
	G_COUNT
} OptGroup;

typedef enum OptId {
#define OPTION(id, s, name, arg, tools, group, help) OPT_##id,
#include "tools/options.def"
#undef OPTION
	OPT_COUNT
} OptId;

typedef struct ToolInfo {
	const char *prog;   /* "nnef-check" */
	unsigned tool;      /* T_CHECK */
	const char *usage;  /* synopsis lines after "Usage: ", '\n'-separated */
	const char *about;  /* what it does, one paragraph per '\n' */
	const char *exits;  /* the exit status paragraph */
} ToolInfo;

/* Takes the value of option id (arg is NULL for an option without one).
 * Returns NULL when accepted, else what the value needs ("needs a
 * positive number"): the parser prints "PROG: --NAME NEEDS, not 'ARG'". */
typedef const char *(*ToolSetFn)(void *ctx, OptId id, char *arg);

typedef struct CommonArgs CommonArgs;

/* Reads the options of argv (before or after the operands; "--" ends
 * them): the shared ones into common (when not NULL), the others through
 * set. Also ignores SIGPIPE, so that a closed standard output is an error
 * (EPIPE, see tool_finish) rather than a silent death. Returns -1 to go on, the operands from argv[*first] (getopt moves
 * them to the end); else the exit status: 0 after --help or --version, 2
 * after a usage error (printed). */
int tool_parse_args(const ToolInfo *t, int argc, char **argv,
		    CommonArgs *common, ToolSetFn set, void *ctx, int *first);
/* The exit status after flushing standard output: 2 when anything
 * written to it failed (a full disk, a closed pipe), with a message
 * unless status is 2 already (the failure was reported), otherwise
 * status. Every program ends with it. */
int tool_finish(const char *prog, int status);
/* Writes n bytes to standard output, remembering why the first failed
 * write failed (for tool_finish's message). */
void tool_write_out(const void *p, size_t n);
/* Writes --help. */
void tool_print_help(const ToolInfo *t, FILE *fp);
/* Prints "PROG: MESSAGE" and "Try 'PROG --help'." to stderr; returns 2. */
int tool_usage_error(const ToolInfo *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

typedef enum ColorWhen { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorWhen;

/* Whether to color output written to fp. */
bool tool_use_color(ColorWhen when, FILE *fp);
/* Parses a non-negative decimal count of at most 10^8; false if not. */
bool tool_parse_count(const char *s, size_t *out);
/* Parses a positive byte count, with an optional K, M, G or T suffix
 * (powers of 1024); false if malformed, zero or beyond 2^63. */
bool tool_parse_bytes(const char *s, uint64_t *out);

/* The options every program that checks a model takes. */
struct CommonArgs {
	bool quiet;
	ColorWhen color;
	nnef_options opt;
	nnef_input_shape *inputs; /* --input-shape (dims malloc'd) */
	size_t ninputs;
	const char **decls;       /* --declarations */
	size_t ndecls;
};

void tool_common_init(CommonArgs *a);
void tool_common_free(CommonArgs *a);
/* Takes option id if it is a shared one: true when it was (then
 * *complaint is NULL, or what its value needs). */
bool tool_common_set(CommonArgs *a, OptId id, char *arg,
		     const char **complaint);

/* Adds an input shape as --input-shape=NAME=... would (name and dims
 * copied); false when out of memory. */
bool tool_add_input_shape(CommonArgs *a, const char *name,
			  const int64_t *dims, size_t rank);
/* Every --input-shape names a graph parameter of m; otherwise writes a
 * usage error to fp and returns false. */
bool tool_check_input_shapes(FILE *fp, const char *prog, const nnef_model *m,
			     const CommonArgs *a);
/* Loads the model at path; "-" reads a graph document from standard
 * input, named "<stdin>" in diagnostics (an archive there is refused:
 * give its path). NULL after writing why to err (exit status 2). */
nnef_model *tool_load_model(FILE *err, const char *prog, const char *path,
			    const nnef_options *o);
/* Writes diagnostics to stderr (standard output flushed first, so that
 * the two stay in order when they go to one file). */
void tool_print_diags(const char *prog, const nnef_diags *ds, bool color,
		      bool show_warnings);
/* Writes text to path through a temporary file in the same folder,
 * renamed when complete; prints why on failure. */
bool tool_write_file(const char *prog, const char *path, const char *text,
		     size_t len);

#endif
