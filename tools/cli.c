/*
 * cli.c - shared by the programs in tools/: the option parser and
 * --help over tools/options.def, usage errors, the checking options.
 */
#include "tools/common.h"

#include "datfile/datfile.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct OptRow {
	char short_name;
	const char *name;
	const char *arg;
	unsigned tools;
	OptGroup group;
	const char *help;
} OptRow;

static const OptRow rows[OPT_COUNT] = {
#define OPTION(id, s, name, arg, tools, group, help) \
	[OPT_##id] = { s, name, arg, tools, group, help },
#include "tools/options.def"
#undef OPTION
};

static const char *const group_titles[G_COUNT] = {
	[G_INPUT] = "Inputs", [G_OUTPUT] = "Output", [G_RUN] = "Running",
	[G_PORT] = "Portability", [G_CHECK] = "Checking",
	[G_LIMITS] = "Reading archives",
	[G_GENERAL] = "General",
};

/* ---- --help ------------------------------------------------------------------ */

#define HELP_COLUMN 30
#define HELP_WIDTH 79

/* Writes text wrapped to HELP_WIDTH, lines after the first indented by
 * `indent`; `at` is the column the first line starts at. */
static void wrap(FILE *fp, const char *text, int at, int indent)
{
	const char *p = text;
	while (*p) {
		size_t word = strcspn(p, " ");
		if (at > indent && at + 1 + (int)word > HELP_WIDTH) {
			fprintf(fp, "\n%*s", indent, "");
			at = indent;
		} else if (at > indent) {
			fputc(' ', fp);
			at++;
		}
		fwrite(p, 1, word, fp);
		at += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', fp);
}

void tool_print_help(const ToolInfo *t, FILE *fp)
{
	const char *u = t->usage;
	for (bool first = true; *u; first = false) {
		size_t n = strcspn(u, "\n");
		fprintf(fp, "%s%s %.*s\n", first ? "Usage:" : "   or:", "", (int)n, u);
		u += n + (u[n] == '\n');
	}
	for (const char *a = t->about; *a;) {
		size_t n = strcspn(a, "\n");
		char *para = strndup(a, n);
		wrap(fp, para, 0, 0);
		free(para);
		a += n + (a[n] == '\n');
	}
	for (int g = 0; g < G_COUNT; g++) {
		bool title = false;
		for (int i = 0; i < OPT_COUNT; i++) {
			const OptRow *r = &rows[i];
			if ((int)r->group != g || !(r->tools & t->tool))
				continue;
			if (!title)
				fprintf(fp, "\n%s:\n", group_titles[g]);
			title = true;
			int at = r->short_name ? fprintf(fp, "  -%c, --%s", r->short_name, r->name) : fprintf(fp, "      --%s", r->name);
			if (r->arg && r->arg[0] == '[') /* optional: --long[=ARG] */
				at += fprintf(fp, "[=%.*s]", (int)strlen(r->arg) - 2, r->arg + 1);
			else if (r->arg)
				at += fprintf(fp, "=%s", r->arg);
			if (at > HELP_COLUMN - 2) {
				fputc('\n', fp);
				at = 0;
			}
			fprintf(fp, "%*s", HELP_COLUMN - at, "");
			wrap(fp, r->help, HELP_COLUMN, HELP_COLUMN);
		}
	}
	fputc('\n', fp);
	wrap(fp, t->exits, 0, 0);
}

/* ---- parsing ------------------------------------------------------------------ */

static int out_errno; /* why the first failed write to stdout failed */

void tool_write_out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, stdout) != n && !out_errno)
		out_errno = errno;
}

int tool_finish(const char *prog, int status)
{
	bool failed = fflush(stdout) != 0;
	int err = out_errno ? out_errno : errno;
	if ((!failed && !ferror(stdout)) || status == 2)
		return failed || ferror(stdout) ? 2 : status; /* 2: said already */
	fprintf(stderr, "%s: cannot write the output: %s\n", prog, failed || out_errno ? strerror(err) : "a write failed");
	return 2;
}

int tool_usage_error(const ToolInfo *t, const char *fmt, ...)
{
	fflush(stdout);
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", t->prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", t->prog);
	return 2;
}

/* The getopt_long table and short-option string of tool t; a row's val
 * is 256 + its id (so that a short option's char is never a long one's
 * val, short options are mapped back by their char). */
static void build_table(const ToolInfo *t, struct option *longopts,
			char *shorts)
{
	size_t n = 0, s = 0;
	shorts[s++] = ':'; /* a missing argument is reported as ':' */
	for (int i = 0; i < OPT_COUNT; i++) {
		const OptRow *r = &rows[i];
		if (!(r->tools & t->tool))
			continue;
		int has = !r->arg ? no_argument : r->arg[0] == '[' ? optional_argument : required_argument;
		longopts[n++] = (struct option){ r->name, has, NULL, 256 + i };
		if (r->short_name) {
			shorts[s++] = r->short_name;
			if (r->arg)
				shorts[s++] = ':';
			if (has == optional_argument)
				shorts[s++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shorts[s] = '\0';
}

static int id_of(const ToolInfo *t, int c)
{
	if (c >= 256)
		return c - 256;
	for (int i = 0; i < OPT_COUNT; i++)
		if (rows[i].short_name == c && (rows[i].tools & t->tool))
			return i;
	return -1;
}

/* The option as the user wrote it, for messages. */
static const char *written(char **argv, int at)
{
	return at > 0 && argv[at - 1] ? argv[at - 1] : "?";
}

/* A large document is mapped from its file (nnef.h): a file that shrinks
 * while it is read makes the next read of the lost pages a SIGBUS, said
 * here as the read error it is (only async-signal-safe calls). */
static const char *bus_prog = "nnef";

static void on_sigbus(int sig)
{
	static const char msg[] = ": error[E0001]: a file of the model shrank while it was being read; check it again when nothing writes to it\n";
	(void)sig;
	(void)!write(STDERR_FILENO, bus_prog, strlen(bus_prog));
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(2);
}

/* An unknown long option: "ambiguous" when what is written (--NAME or
 * --NAME=VALUE) starts two or more of the program's long options (glibc
 * reports both alike), listing them; else unknown. */
static int bad_long_option(const ToolInfo *t, const struct option *longopts,
			   const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return tool_usage_error(t, "unknown option '%s'", arg);
	const char *name = arg + 2;
	size_t n = strcspn(name, "=");
	char list[512] = "";
	size_t matches = 0, used = 0;
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, n) != 0)
			continue;
		int w = snprintf(list + used, sizeof(list) - used, "%s--%s", matches ? ", " : "", o->name);
		used += w > 0 && (size_t)w < sizeof(list) - used ? (size_t)w : 0;
		matches++;
	}
	if (matches > 1)
		return tool_usage_error(t, "option '%.*s' is ambiguous: %s", (int)(n + 2), arg, list);
	return tool_usage_error(t, "unknown option '%s'", arg);
}

int tool_parse_args(const ToolInfo *t, int argc, char **argv,
		    CommonArgs *common, ToolSetFn set, void *ctx, int *first)
{
	bus_prog = t->prog;
	signal(SIGBUS, on_sigbus);
	struct option longopts[OPT_COUNT + 1];
	char shorts[2 * OPT_COUNT + 2];
	build_table(t, longopts, shorts);
	signal(SIGPIPE, SIG_IGN);
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		/* '?': optopt is the val of a long option given a value it
		 * does not take, the char of an unknown short option, or 0
		 * for an unknown (or ambiguous: glibc does not tell which)
		 * long option */
		if (c == '?' && optopt >= 256 && optopt < 256 + OPT_COUNT)
			return tool_usage_error(t, "--%s takes no value", rows[optopt - 256].name);
		if (c == '?')
			return optopt > ' ' && optopt < 127 ? tool_usage_error(t, "unknown option '-%c'", optopt)
							   : bad_long_option(t, longopts, written(argv, optind));
		int id = id_of(t, c == ':' ? optopt : c);
		if (id < 0)
			return tool_usage_error(t, "unknown option '%s'", written(argv, optind));
		if (c == ':')
			return tool_usage_error(t, "--%s needs a value (--%s=%s)", rows[id].name, rows[id].name, rows[id].arg);
		if (id == OPT_HELP) {
			tool_print_help(t, stdout);
			return 0;
		}
		if (id == OPT_VERSION) {
			printf("%s (nnefkit) %s\n", t->prog, nnef_version());
			return 0;
		}
		const char *needs = NULL;
		if (!common || !tool_common_set(common, (OptId)id, optarg, &needs))
			needs = set(ctx, (OptId)id, optarg);
		if (needs)
			return tool_usage_error(t, "--%s %s, not '%s'", rows[id].name, needs, optarg ? optarg : "");
	}
	*first = optind;
	return -1;
}

/* ---- values ------------------------------------------------------------------- */

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
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (size_t)(*p - '0');
		if (v > 100000000)
			return false;
	}
	*out = v;
	return true;
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

/* --input-shape NAME=D0,D1,...: into *out (dims malloc'd, name pointing
 * into arg); false if malformed. */
static bool parse_input_shape(char *arg, nnef_input_shape *out)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return false;
	size_t rank = 0;
	int64_t *dims = NULL;
	for (char *p = eq + 1;;) {
		int64_t v = 0;
		bool digits = *p >= '0' && *p <= '9';
		for (; *p >= '0' && *p <= '9'; p++)
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v))
				digits = false;
		if (!digits || v == 0 || (*p && *p != ',')) {
			free(dims);
			return false;
		}
		int64_t *grown = realloc(dims, (rank + 1) * sizeof(*dims));
		if (!grown) {
			free(dims);
			return false;
		}
		dims = grown;
		dims[rank++] = v;
		if (!*p++)
			break;
	}
	*eq = '\0'; /* only now: a malformed value is reported whole */
	*out = (nnef_input_shape){ arg, dims, rank };
	return true;
}

/* ---- the checking options --------------------------------------------------- */

void tool_common_init(CommonArgs *a)
{
	memset(a, 0, sizeof(*a));
	nnef_options_init(&a->opt);
	a->color = COLOR_AUTO;
}

void tool_common_free(CommonArgs *a)
{
	for (size_t i = 0; i < a->ninputs; i++)
		free((void *)a->inputs[i].dims);
	free(a->inputs);
	free(a->decls);
}

static const char *add_declarations(CommonArgs *a, const char *arg)
{
	const char **grown = realloc(a->decls, (a->ndecls + 1) * sizeof(*grown));
	if (!grown)
		return "needs more memory than there is";
	a->decls = grown;
	a->decls[a->ndecls++] = arg;
	a->opt.declarations = a->decls;
	a->opt.n_declarations = a->ndecls;
	return NULL;
}

static const char *set_input_shape(CommonArgs *a, char *arg)
{
	nnef_input_shape s;
	if (!parse_input_shape(arg, &s))
		return "needs NAME=D0,D1,... with positive extents";
	nnef_input_shape *grown = realloc(a->inputs, (a->ninputs + 1) * sizeof(*grown));
	if (!grown) {
		free((void *)s.dims);
		return "needs more memory than there is";
	}
	a->inputs = grown;
	a->inputs[a->ninputs++] = s;
	a->opt.input_shapes = a->inputs;
	a->opt.n_input_shapes = a->ninputs;
	return NULL;
}

bool tool_add_input_shape(CommonArgs *a, const char *name,
			  const int64_t *dims, size_t rank)
{
	/* one block: the extents, then the name (freed with the dims) */
	size_t len = strlen(name) + 1;
	int64_t *block = malloc(rank * sizeof(*dims) + len);
	nnef_input_shape *grown = block ? realloc(a->inputs, (a->ninputs + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(block);
		return false;
	}
	if (rank)
		memcpy(block, dims, rank * sizeof(*dims));
	char *copy = (char *)(block + rank);
	memcpy(copy, name, len);
	a->inputs = grown;
	a->inputs[a->ninputs++] = (nnef_input_shape){ .name = copy, .dims = block, .rank = rank };
	a->opt.input_shapes = a->inputs;
	a->opt.n_input_shapes = a->ninputs;
	return true;
}

bool tool_common_set(CommonArgs *a, OptId id, char *arg,
		     const char **complaint)
{
	static const char bytes[] = "needs a positive number (with an optional K, M, G or T)";
	const char *c = NULL;
	switch (id) {
	case OPT_QUIET: a->quiet = true; break;
	case OPT_LENIENT:
	case OPT_LENIENT_DAT: a->opt.lenient = true; break;
	case OPT_NO_DATA: a->opt.no_data = true; break;
	case OPT_DIALECT:
		if (!nnef_dialect_parse(arg, &a->opt.dialect))
			c = "must be khronos or tract";
		break;
	case OPT_DECLARATIONS: c = add_declarations(a, arg); break;
	case OPT_MAX_ERRORS:
		/* no more than are collected (MODEL_COLLECT_LIMIT), as --help says */
		if (!tool_parse_count(arg, &a->opt.max_errors) || a->opt.max_errors > 10000)
			c = "needs a number from 0 to 10000";
		break;
	case OPT_MAX_DEPTH:
		if (!tool_parse_count(arg, &a->opt.max_depth) || a->opt.max_depth == 0)
			c = "needs a number from 1 to 100000000";
		break;
	case OPT_COLOR: /* --color alone: always, as GNU ls and grep have it */
		a->color = !arg || strcmp(arg, "always") == 0 ? COLOR_ALWAYS
			 : strcmp(arg, "never") == 0	     ? COLOR_NEVER
							     : COLOR_AUTO;
		if (a->color == COLOR_AUTO && strcmp(arg, "auto") != 0)
			c = "must be auto, always or never";
		break;
	case OPT_MAX_ARCHIVE_BYTES:
		c = tool_parse_bytes(arg, &a->opt.max_archive_bytes) ? NULL : bytes;
		break;
	case OPT_MAX_MEMBER_BYTES:
		c = tool_parse_bytes(arg, &a->opt.max_member_bytes) ? NULL : bytes;
		break;
	case OPT_MAX_MEMBERS:
		c = tool_parse_bytes(arg, &a->opt.max_members) ? NULL : bytes;
		break;
	case OPT_MAX_NESTING: {
		size_t n = 0;
		if (!tool_parse_count(arg, &n) || n == 0 || n > 10000)
			c = "needs a number from 1 to 10000";
		a->opt.max_nesting = (uint32_t)n;
		break;
	}
	case OPT_MAX_OPERATIONS:
		if (!tool_parse_count(arg, &a->opt.max_operations) || a->opt.max_operations == 0)
			c = "needs a number from 1 to 100000000";
		break;
	case OPT_MAX_VALUE_BYTES:
		c = tool_parse_bytes(arg, &a->opt.max_value_bytes) ? NULL : bytes;
		break;
	case OPT_INPUT_SHAPE: c = set_input_shape(a, arg); break;
	default: return false;
	}
	*complaint = c;
	return true;
}

bool tool_check_input_shapes(FILE *fp, const char *prog, const nnef_model *m,
			     const CommonArgs *a)
{
	size_t np = nnef_model_param_count(m);
	if (!np && nnef_model_status(m) != NNEF_VALID)
		return true; /* nothing to compare with: the model is broken */
	for (size_t i = 0; i < a->ninputs; i++) {
		bool found = false;
		for (size_t k = 0; k < np && !found; k++)
			found = strcmp(nnef_model_param_name(m, k), a->inputs[i].name) == 0;
		if (found)
			continue;
		if (fp == stderr)
			fflush(stdout);
		fprintf(fp, "%s: --input-shape: '%s' is not an external of this model; its inputs are:", prog, a->inputs[i].name);
		for (size_t k = 0; k < np; k++)
			fprintf(fp, " %s", nnef_model_param_name(m, k));
		fputs(np ? "\n" : " none\n", fp);
		fprintf(fp, "Try '%s --help'.\n", prog);
		return false;
	}
	return true;
}

void tool_print_diags(const char *prog, const nnef_diags *ds, bool color,
		      bool show_warnings)
{
	char *text = nnef_diags_render(ds, prog, NNEF_RENDER_SOURCE | (color ? NNEF_RENDER_COLOR : 0) | (show_warnings ? NNEF_RENDER_WARNINGS : 0));
	if (text && *text) {
		fflush(stdout);
		fputs(text, stderr);
	}
	free(text);
}

bool tool_write_file(const char *prog, const char *path, const char *text,
		     size_t len)
{
	nnef_diags *ds = nnef_diags_new();
	bool ok = ds && nnef_write_file(path, text, len, ds);
	if (ds)
		tool_print_diags(prog, ds, false, true);
	nnef_diags_free(ds);
	return ok;
}

/* Standard input, read whole into *buf (at most 1 GiB, the largest
 * document); NULL message on success, else why not. */
static const char *read_stdin(char **buf, size_t *len)
{
	const size_t max = (size_t)1 << 30;
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap);
	while (p) {
		if (n == cap) {
			char *grown = cap <= max ? realloc(p, 2 * cap) : NULL;
			if (!grown)
				break;
			p = grown;
			cap *= 2;
		}
		size_t k = fread(p + n, 1, cap - n, stdin);
		n += k;
		if (k == 0)
			break;
	}
	if (!p || n > max || ferror(stdin)) {
		free(p);
		return !p || n > max ? "it holds more than 1 GiB, the largest document" : strerror(errno);
	}
	*buf = p;
	*len = n;
	return NULL;
}

nnef_model *tool_load_model(FILE *err, const char *prog, const char *path,
			    const nnef_options *o)
{
	if (strcmp(path, "-") != 0) {
		nnef_model *m = nnef_model_load(path, o);
		if (!m) /* not even the memory to say so in the model */
			fprintf(err, "%s: error[E0008]: '%s': out of memory\n", prog, path);
		return m;
	}
	char *text = NULL;
	size_t len = 0;
	const char *why = read_stdin(&text, &len);
	bool gzip = !why && len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b;
	bool tar = !why && len >= 262 && memcmp(text + 257, "ustar", 5) == 0;
	const char *foreign = why ? NULL : cont_foreign_kind((const unsigned char *)text, len);
	if (gzip || tar)
		why = "it holds an archive; give an archive by its path";
	nnef_model *m = why || foreign ? NULL : nnef_model_load_text("<stdin>", text, len, o);
	if (foreign)
		fprintf(err, "%s: error[E0001]: cannot read standard input: it is %s, which nnefkit does not read; a model is a directory, a .tar or a gzip-compressed .tar, given by its path\n", prog, foreign);
	else if (why)
		fprintf(err, "%s: error[E0001]: cannot read standard input: %s\n", prog, why);
	else if (!m)
		fprintf(err, "%s: error[E0008]: standard input: out of memory\n", prog);
	free(text);
	return m;
}
