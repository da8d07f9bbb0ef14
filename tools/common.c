/*
 * common.c - shared by the programs in tools/.
 */
#include "tools/common.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool tool_parse_color(const char *s, ColorWhen *out)
{
	if (strcmp(s, "auto") == 0)
		*out = COLOR_AUTO;
	else if (strcmp(s, "always") == 0)
		*out = COLOR_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*out = COLOR_NEVER;
	else
		return false;
	return true;
}

bool tool_use_color(ColorWhen when, FILE *fp)
{
	if (when != COLOR_AUTO)
		return when == COLOR_ALWAYS;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	return isatty(fileno(fp));
}

bool tool_parse_count(const char *s, size_t *out)
{
	if (!*s)
		return false;
	size_t v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000000)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*out = v;
	return true;
}

void tool_common_init(CommonArgs *a)
{
	memset(a, 0, sizeof(*a));
	a->mopt.max_errors = 20;
	a->color = COLOR_AUTO;
}

void tool_common_free(CommonArgs *a)
{
	for (size_t i = 0; i < a->ninputs; i++)
		free((void *)a->inputs[i].dims);
	free(a->inputs);
}

int tool_common_option(const char *prog, const char *usage, int c,
		       CommonArgs *a)
{
	switch (c) {
	case 'q':
		a->quiet = true;
		return -1;
	case OPT_LENIENT:
		a->mopt.lenient = true;
		return -1;
	case OPT_MAX_ERRORS:
		if (tool_parse_count(optarg, &a->mopt.max_errors))
			return -1;
		fprintf(stderr, "%s: --max-errors needs a non-negative number, not '%s'\n", prog, optarg);
		return 2;
	case OPT_MAX_DEPTH:
		if (tool_parse_count(optarg, &a->mopt.flatten.max_depth) &&
		    a->mopt.flatten.max_depth != 0)
			return -1;
		fprintf(stderr, "%s: --max-depth needs a positive number, not '%s'\n", prog, optarg);
		return 2;
	case OPT_COLOR:
		if (tool_parse_color(optarg, &a->color))
			return -1;
		fprintf(stderr, "%s: --color must be auto, always or never, not '%s'\n", prog, optarg);
		return 2;
	case OPT_NO_DATA:
		a->mopt.no_data = true;
		return -1;
	case OPT_MAX_ARCHIVE_BYTES:
	case OPT_MAX_MEMBER_BYTES:
	case OPT_MAX_MEMBERS: {
		uint64_t *to = c == OPT_MAX_ARCHIVE_BYTES ? &a->mopt.limits.max_bytes
			       : c == OPT_MAX_MEMBER_BYTES ? &a->mopt.limits.max_member
							   : &a->mopt.limits.max_members;
		if (tool_parse_bytes(optarg, to))
			return -1;
		fprintf(stderr, "%s: --%s needs a positive number (with an optional K, M, G or T), not '%s'\n", prog, c == OPT_MAX_ARCHIVE_BYTES ? "max-archive-bytes" : c == OPT_MAX_MEMBER_BYTES ? "max-member-bytes" : "max-members", optarg);
		return 2;
	}
	case OPT_INPUT_SHAPE:
		a->inputs = util_realloc(a->inputs,
					 (a->ninputs + 1) * sizeof(*a->inputs));
		if (tool_parse_input_shape(optarg, &a->inputs[a->ninputs])) {
			a->mopt.flatten.input_shapes = a->inputs;
			a->mopt.flatten.ninput_shapes = ++a->ninputs;
			return -1;
		}
		fprintf(stderr, "%s: --input-shape needs NAME=D0,D1,... with positive extents, not '%s'\n", prog, optarg);
		return 2;
	case 'h':
		fputs(usage, stdout);
		return 0;
	case 'V':
		puts("nnefkit " NNEF_VERSION);
		return 0;
	case '?':
		fprintf(stderr, "Try '%s --help' for more information.\n", prog);
		return 2;
	default:
		return -2;
	}
}

bool tool_parse_bytes(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return false;
	if (p == s)
		return false;
	static const char units[] = "KMGT";
	const char *u = *p ? strchr(units, *p) : NULL;
	if (*p && (!u || p[1]))
		return false;
	for (int shift = u ? 10 * (int)(u - units + 1) : 0; shift > 0; shift -= 10)
		if (__builtin_mul_overflow(v, 1024, &v))
			return false;
	if (v == 0 || v > INT64_MAX)
		return false;
	*out = v;
	return true;
}

bool tool_parse_input_shape(char *arg, InputShape *out)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return false;
	out->name = arg;
	out->rank = 0;
	int64_t *dims = NULL;
	for (char *p = eq + 1;;) {
		if (*p < '0' || *p > '9') {
			free(dims);
			return false;
		}
		int64_t v = 0;
		while (*p >= '0' && *p <= '9') {
			if (__builtin_mul_overflow(v, 10, &v) ||
			    __builtin_add_overflow(v, *p - '0', &v)) {
				free(dims);
				return false;
			}
			p++;
		}
		if (v == 0 || (*p && *p != ',')) {
			free(dims);
			return false;
		}
		dims = util_realloc(dims, (out->rank + 1) * sizeof(*dims));
		dims[out->rank++] = v;
		if (!*p++)
			break;
	}
	*eq = '\0'; /* only now: a malformed value is reported whole */
	out->dims = dims;
	return true;
}

bool tool_check_input_shapes(const char *prog, const Model *m,
			     const InputShape *shapes, size_t n)
{
	const AstDef *g = m->parse.doc ? m->parse.doc->graph : NULL;
	if (!g)
		return true; /* nothing to compare with: the model is broken */
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t k = 0; k < g->nparams && !found; k++)
			found = strcmp(g->params[k].name, shapes[i].name) == 0;
		if (found)
			continue;
		fprintf(stderr, "%s: --input-shape: '%s' is not an external of "
				"this model; its inputs are:",
			prog, shapes[i].name);
		for (size_t k = 0; k < g->nparams; k++)
			fprintf(stderr, " %s", g->params[k].name);
		fputs(g->nparams ? "\n" : " none\n", stderr);
		return false;
	}
	return true;
}

void tool_print_diags(const char *prog, const Model *m, FILE *fp, bool color,
		      bool show_warnings)
{
	StrBuf out;
	sb_init(&out);
	model_render_diags(m, prog, &out, color, show_warnings);
	fputs(sb_str(&out), fp);
	sb_free(&out);
}
