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
/* Writes the diagnostics of m to fp, then a line saying how many errors
 * were dropped (if any). */
void tool_print_diags(const char *prog, const Model *m, FILE *fp, bool color,
		      bool show_warnings);

#endif
