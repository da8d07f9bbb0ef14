/*
 * common.h - what the programs share: color choice, printing a
 * model's diagnostics, and parsing numeric option values.
 */
#ifndef NNEF_TOOLS_COMMON_H
#define NNEF_TOOLS_COMMON_H

#include "model/model.h"

#include <stdio.h>

typedef enum ColorWhen { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorWhen;

/* Parses "auto", "always" or "never"; false otherwise. */
bool tool_parse_color(const char *s, ColorWhen *out);
/* Whether to color output written to fp. */
bool tool_use_color(ColorWhen when, FILE *fp);
/* Parses a non-negative decimal count; false if malformed. */
bool tool_parse_count(const char *s, size_t *out);
/* Parses a positive byte count, with an optional K, M, G or T suffix
 * (powers of 1024); false if malformed, zero or beyond 2^63. */
bool tool_parse_bytes(const char *s, uint64_t *out);
/* The options every tool that checks a model takes. */
typedef struct CommonArgs {
	bool quiet;
	ModelOptions mopt;
	InputShape *inputs;     /* --input-shape, malloc'd */
	size_t ninputs;
	ColorWhen color;
} CommonArgs;

/* getopt_long codes of the shared options; a tool numbers its own from
 * OPT_TOOL. */
enum {
	OPT_MAX_ERRORS = 256,
	OPT_COLOR,
	OPT_LENIENT,
	OPT_MAX_DEPTH,
	OPT_INPUT_SHAPE,
	OPT_NO_DATA,
	OPT_MAX_ARCHIVE_BYTES,
	OPT_MAX_MEMBER_BYTES,
	OPT_MAX_MEMBERS,
	OPT_TOOL,
};

/* The shared long options, to list in a tool's option table. */
#define TOOL_COMMON_LONGOPTS                                                 \
	{ "quiet", no_argument, NULL, 'q' },                                 \
	{ "lenient", no_argument, NULL, OPT_LENIENT },                       \
	{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },           \
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },             \
	{ "color", required_argument, NULL, OPT_COLOR },                     \
	{ "input-shape", required_argument, NULL, OPT_INPUT_SHAPE },         \
	{ "no-data", no_argument, NULL, OPT_NO_DATA },                       \
	{ "max-archive-bytes", required_argument, NULL, OPT_MAX_ARCHIVE_BYTES }, \
	{ "max-member-bytes", required_argument, NULL, OPT_MAX_MEMBER_BYTES }, \
	{ "max-members", required_argument, NULL, OPT_MAX_MEMBERS },         \
	{ "help", no_argument, NULL, 'h' },                                  \
	{ "version", no_argument, NULL, 'V' }

void tool_common_init(CommonArgs *a);
void tool_common_free(CommonArgs *a);
/* Handles option c (with getopt's optarg) if it is a shared one: returns
 * -1 when handled, -2 when it is not shared, or the exit status (0 after
 * --help or --version, 2 after a usage error, reported on stderr). */
int tool_common_option(const char *prog, const char *usage, int c,
		       CommonArgs *a);

/* --input-shape NAME=D0,D1,...: parses arg into *out (dims malloc'd,
 * name pointing into arg); false if malformed. */
bool tool_parse_input_shape(char *arg, InputShape *out);
/* Every --input-shape names a graph parameter (an external) of the
 * checked model m; otherwise prints a usage error and returns false. */
bool tool_check_input_shapes(const char *prog, const Model *m,
			     const InputShape *shapes, size_t n);
/* Writes the diagnostics of m to fp, then a line saying how many errors
 * were dropped (if any). */
void tool_print_diags(const char *prog, const Model *m, FILE *fp, bool color,
		      bool show_warnings);

#endif
