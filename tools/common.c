/*
 * common.c - shared by the programs in tools/.
 */
#include "tools/common.h"

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

void tool_print_diags(const char *prog, const Model *m, FILE *fp, bool color,
		      bool show_warnings)
{
	StrBuf out;
	sb_init(&out);
	model_render_diags(m, prog, &out, color, show_warnings);
	fputs(sb_str(&out), fp);
	sb_free(&out);
}
