/*
 * nnef-run - the reference interpreter: checks a model like nnef-check,
 * then runs its graph on inputs from tensor files (or generated) and
 * writes, compares or summarizes the outputs.
 *
 * Exit status: 0 the graph ran (and every compared output is within the
 * tolerance), 1 the model is invalid or cannot run, a run-time error, or
 * an output differs from its reference, 2 a usage error or a file that
 * cannot be read or written.
 */
#include "tools/common.h"

#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "nnef-run"

static const ToolInfo tool = {
	.prog = PROG,
	.tool = T_RUN,
	.usage = "nnef-run [OPTIONS] MODEL",
	.about = "Check an NNEF model, then run its graph: the reference interpreter. MODEL is a directory holding graph.nnef and its tensor files, a .tar or .tgz archive of one, or a bare graph file (with --random-weights).",
	.exits = "Exit status: 0 if the graph ran (and every compared output is within the tolerance), 1 if the model is invalid or cannot run, or an output differs, 2 on a usage error or a file that cannot be read or written.",
};

typedef struct InputFile {
	const char *name;
	const char *path;
	nnef_tensor *held;  /* a stream's data, read once by bind_symbols */
} InputFile;

typedef struct Args {
	CommonArgs common;
	InputFile *inputs;
	size_t ninputs;
	const char *input_bundle;
	const char *input_dir;
	bool random;
	nnef_random random_kind;
	uint64_t seed;
	bool random_weights;
	const char *output_dir;
	const char *output_bundle;
	bool dump_all;
	bool plain;
	bool plan;
	const char *compare_dir;
	const char *compare_bundle;
	double tolerance;
	bool tolerance_given;
	const nnef_model *model; /* the model run (for its outputs' types) */
	bool stats;
	const char *statistics;  /* --statistics FILE ("-": standard output) */
	const char *save_dir;
	bool double_precision;
	size_t cycles;
	size_t threads;         /* 0: the processors online */
	bool profile;
	uint64_t max_memory;
} Args;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *add_input(Args *a, char *arg)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return "needs NAME=FILE";
	InputFile *grown = realloc(a->inputs, (a->ninputs + 1) * sizeof(*grown));
	if (!grown)
		return "needs more memory than there is";
	*eq = '\0';
	a->inputs = grown;
	a->inputs[a->ninputs++] = (InputFile){ arg, eq + 1, NULL };
	return NULL;
}

static const char *set_number(Args *a, OptId id, const char *arg)
{
	char *end;
	switch (id) {
	case OPT_SEED:
		errno = 0;
		a->seed = strtoull(arg, &end, 10);
		return *end || end == arg || errno || *arg == '-' ? "needs a non-negative integer" : NULL;
	case OPT_TOLERANCE:
		a->tolerance_given = true;
		a->tolerance = strtod(arg, &end);
		return *end || end == arg || !(a->tolerance >= 0) || isinf(a->tolerance) ? "needs a non-negative number" : NULL;
	case OPT_THREADS:
		return !tool_parse_count(arg, &a->threads) || a->threads > 64 ? "needs a number from 0 to 64" : NULL;
	default:
		return !tool_parse_count(arg, &a->cycles) || a->cycles == 0 ? "needs a number from 1 to 100000000" : NULL;
	}
}

static const char *set_option(void *ctx, OptId id, char *arg)
{
	Args *a = ctx;
	switch (id) {
	case OPT_INPUT: return add_input(a, arg);
	case OPT_INPUT_DIR: a->input_dir = arg; return NULL;
	case OPT_INPUT_BUNDLE: a->input_bundle = arg; return NULL;
	case OPT_RANDOM:
		a->random = true;
		a->random_kind = strcmp(arg, "normal") == 0 ? NNEF_NORMAL : NNEF_UNIFORM;
		return strcmp(arg, "uniform") == 0 || strcmp(arg, "normal") == 0 ? NULL : "must be uniform or normal";
	case OPT_SEED:
	case OPT_TOLERANCE:
	case OPT_CYCLES:
	case OPT_THREADS: return set_number(a, id, arg);
	case OPT_RANDOM_WEIGHTS:
		a->random_weights = true;
		a->common.opt.missing_data_ok = true;
		return NULL;
	case OPT_OUTPUT_DIR: a->output_dir = arg; return NULL;
	case OPT_OUTPUT_BUNDLE: a->output_bundle = arg; return NULL;
	case OPT_DUMP_ALL: a->dump_all = true; return NULL;
	case OPT_COMPARE: a->compare_dir = arg; return NULL;
	case OPT_COMPARE_BUNDLE: a->compare_bundle = arg; return NULL;
	case OPT_STATS_RUN: a->stats = true; return NULL;
	case OPT_STATISTICS: a->statistics = arg; return NULL;
	case OPT_SAVE_VARIABLES: a->save_dir = arg; return NULL;
	case OPT_PRECISION:
		a->double_precision = strcmp(arg, "double") == 0;
		return strcmp(arg, "float") == 0 || strcmp(arg, "double") == 0 ? NULL : "must be float or double";
	case OPT_PROFILE: a->profile = true; return NULL;
	case OPT_PLAIN: a->plain = true; return NULL;
	case OPT_NO_QUANTIZE: a->common.opt.quantize = false; return NULL;
	case OPT_PLAN: a->plan = true; return NULL;
	case OPT_MAX_MEMORY: return tool_parse_bytes(arg, &a->max_memory) ? NULL : "needs a positive number (with an optional K, M, G or T)";
	default: return "is not an option of nnef-run";
	}
}

/* Returns -1 to go on (the model at argv[*first]), else the exit status. */
static int parse_args(int argc, char **argv, Args *a, int *first)
{
	int st = tool_parse_args(&tool, argc, argv, &a->common, set_option, a, first);
	if (st >= 0)
		return st;
	if (*first + 1 != argc)
		return tool_usage_error(&tool, *first >= argc ? "no model given" : "one model at a time");
	if (a->dump_all && !a->output_dir)
		return tool_usage_error(&tool, "--dump-all writes into --output-dir, which is not given");
	/* standard input can be read once: by one input, or by the model */
	const char *dash = NULL;
	for (size_t k = 0; k < a->ninputs; k++) {
		if (strcmp(a->inputs[k].path, "-") != 0)
			continue;
		if (dash)
			return tool_usage_error(&tool, "--input: '%s' and '%s' both read standard input ('-'), which can be read once", dash, a->inputs[k].name);
		dash = a->inputs[k].name;
	}
	if (dash && strcmp(argv[*first], "-") == 0)
		return tool_usage_error(&tool, "--input: '%s' reads standard input ('-'), which the model is read from", dash);
	return -1;
}

/* ---- inputs ------------------------------------------------------------------- */

static char *join_path(const char *dir, const char *name, const char *ext)
{
	size_t n = strlen(dir);
	size_t len = n + 1 + strlen(name) + strlen(ext) + 1;
	char *r = malloc(len);
	if (r)
		snprintf(r, len, "%s%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name, ext);
	return r;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The diagnostics of the run (the runner adds to the same list):
 * printed, then cleared. */
typedef struct RunDiags {
	nnef_diags *ds;
	bool color;
	bool quiet;        /* errors only */
} RunDiags;

static void flush_diags(RunDiags *rd)
{
	tool_print_diags(PROG, rd->ds, rd->color, !rd->quiet);
	nnef_diags_clear(rd->ds);
}

/* Whether ds holds an error of reading or writing a file (exit 2): of a
 * model, a tensor file, a NumPy file or bundle, an output. */
static bool has_io_error(const nnef_diags *ds)
{
	for (size_t i = 0; i < nnef_diags_count(ds); i++) {
		const char *code = nnef_diag_code(nnef_diags_get(ds, i));
		if (strncmp(code, "E00", 3) == 0 || strcmp(code, "E1307") == 0 ||
		    strncmp(code, "E10", 3) == 0 || strncmp(code, "E14", 3) == 0)
			return true;
	}
	return false;
}

/* ---- inputs ------------------------------------------------------------------- */

/* The inputs --input-bundle gives (marked in given): the arrays named
 * after them. Returns the exit status, -1 to go on. */
static int bundle_inputs(nnef_runner *r, const Args *a, bool *given,
			 nnef_diags *ds)
{
	nnef_bundle *b = nnef_bundle_open(a->input_bundle, &a->common.opt, ds);
	if (!b)
		return 2;
	int status = -1;
	for (size_t i = 0; i < nnef_runner_input_count(r) && status < 0; i++) {
		size_t k;
		if (given[i] || !nnef_bundle_find(b, nnef_runner_input_name(r, i), &k))
			continue;
		given[i] = true;
		if (!nnef_runner_bundle_input(r, i, b, k))
			status = 2;
	}
	nnef_bundle_free(b);
	return status;
}

/* ---- symbols ------------------------------------------------------------------------------- */

/* tract's dialect: the symbols of the inputs' shapes are bound by the data
 * given, as tract binds them from its inputs. A symbol met twice must have
 * one value. */
typedef struct Binding {
	const char *symbol;   /* the symbol's text (the model's) */
	int64_t value;
	const char *input;    /* the input that bound it */
} Binding;

/* Whether path is read as a stream, which can be read once: "-", or what
 * is neither a regular file nor a directory (as nnef_runner_read_input
 * tells them apart). */
static bool is_stream(const char *path)
{
	struct stat st;
	return strcmp(path, "-") == 0 ||
	       (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* The data given for input `name` (--input, else the bundle), read; NULL
 * when none is given, or after writing why it cannot be read (*failed).
 * The data of a stream is kept in its InputFile (*held) for fill_inputs. */
static nnef_tensor *given_data(Args *a, nnef_bundle *b, const char *name,
			       nnef_diags *ds, bool *failed, bool *held)
{
	*held = false;
	for (size_t k = 0; k < a->ninputs; k++)
		if (strcmp(a->inputs[k].name, name) == 0) {
			nnef_tensor *t = nnef_tensor_read(a->inputs[k].path, a->common.opt.lenient ? NNEF_READ_LENIENT : 0, ds);
			*failed = !t;
			if (t && is_stream(a->inputs[k].path)) {
				a->inputs[k].held = t;
				*held = true;
			}
			return t;
		}
	size_t i;
	if (!b || !nnef_bundle_find(b, name, &i))
		return NULL;
	nnef_tensor *t = nnef_bundle_get(b, i, ds);
	*failed = !t;
	return t;
}

static bool is_symbol(const char *text)
{
	if (!text || !(isalpha((unsigned char)*text) || *text == '_'))
		return false;
	while (isalnum((unsigned char)*text) || *text == '_')
		text++;
	return *text == '\0';
}

/* Input t's shape from its data x, checked against the extents written
 * (known ones equal, each symbol one value); false after writing why. */
static bool bind_shape(const nnef_tensor_info *t, const nnef_tensor *x,
		       Binding *bound, size_t *nbound)
{
	const char *name = nnef_tensor_info_name(t);
	size_t rank = nnef_tensor_info_rank(t);
	if (nnef_tensor_rank(x) != rank) {
		fprintf(stderr, PROG ": error[E1303]: the data given for the input '%s' has rank %zu, but the graph declares rank %zu\n", name, nnef_tensor_rank(x), rank);
		return false;
	}
	for (size_t d = 0; d < rank; d++) {
		int64_t want = nnef_tensor_info_dim(t, d), got = nnef_tensor_dim(x, d);
		const char *sym = nnef_tensor_info_dim_text(t, d);
		if (want >= 0 && want != got) {
			fprintf(stderr, PROG ": error[E1303]: the data given for the input '%s' has extent %lld along axis %zu, but the graph declares %lld\n", name, (long long)got, d, (long long)want);
			return false;
		}
		if (want >= 0 || !is_symbol(sym))
			continue;
		size_t k = 0;
		while (k < *nbound && strcmp(bound[k].symbol, sym) != 0)
			k++;
		if (k == *nbound) {
			bound[(*nbound)++] = (Binding){ sym, got, name };
		} else if (bound[k].value != got) {
			fprintf(stderr, PROG ": error[E1303]: the data given for the input '%s' makes the symbol %s %lld along axis %zu, but the input '%s' makes it %lld\n", name, sym, (long long)got, d, bound[k].input, (long long)bound[k].value);
			return false;
		}
	}
	return true;
}

/* Gives every input whose shape holds a symbol, and whose data is given
 * (--input, --input-bundle) while its shape is not (--input-shape), the
 * shape of its data. Returns the exit status, -1 to go on; *added when
 * a shape was added (the model is then read again with them). */
static int bind_symbols(Args *a, const nnef_model *m, nnef_diags *ds, bool *added)
{
	const nnef_graph *g = nnef_model_graph(m);
	size_t n = g ? nnef_graph_input_count(g) : 0, dims = 0;
	for (size_t i = 0; i < n; i++)
		dims += nnef_tensor_info_rank(nnef_graph_input(g, i));
	Binding *bound = calloc(dims ? dims : 1, sizeof(*bound));
	nnef_bundle *b = NULL;
	int status = bound ? -1 : 2;
	size_t nbound = 0;
	for (size_t i = 0; i < n && status < 0; i++) {
		const nnef_tensor_info *t = nnef_graph_input(g, i);
		const char *name = nnef_tensor_info_name(t);
		bool symbolic = false, given = false, failed = false;
		for (size_t d = 0; d < nnef_tensor_info_rank(t); d++)
			symbolic |= nnef_tensor_info_dim(t, d) < 0;
		for (size_t k = 0; k < a->common.ninputs; k++)
			given |= strcmp(a->common.inputs[k].name, name) == 0;
		if (!symbolic || given || !nnef_tensor_info_shape_known(t))
			continue;
		if (!b && a->input_bundle && !(b = nnef_bundle_open(a->input_bundle, &a->common.opt, ds))) {
			status = 2;
			break;
		}
		bool held;
		nnef_tensor *x = given_data(a, b, name, ds, &failed, &held);
		if (failed)
			status = 2;
		else if (x && !bind_shape(t, x, bound, &nbound))
			status = 1;
		if (x && status < 0) {
			int64_t shape[64];
			size_t rank = nnef_tensor_rank(x);
			for (size_t d = 0; d < rank && d < 64; d++)
				shape[d] = nnef_tensor_dim(x, d);
			if (rank > 64 || !tool_add_input_shape(&a->common, name, shape, rank))
				status = 2;
			*added = true;
		}
		if (!held)
			nnef_tensor_free(x);
	}
	nnef_bundle_free(b);
	free(bound);
	return status;
}

/* Fills every input: --input, then --input-bundle, then --input-dir, then
 * --random. Returns the exit status, -1 when every input has data. */
static int fill_inputs(nnef_runner *r, const Args *a, nnef_diags *ds)
{
	size_t n = nnef_runner_input_count(r);
	bool *given = calloc(n ? n : 1, sizeof(bool));
	int status = given ? -1 : 2;
	for (size_t k = 0; k < a->ninputs && status < 0; k++) {
		size_t i = 0;
		while (i < n && strcmp(nnef_runner_input_name(r, i), a->inputs[k].name) != 0)
			i++;
		if (i == n) {
			status = tool_usage_error(&tool, "--input: '%s' is not an input of the graph", a->inputs[k].name);
		} else if (a->inputs[k].held ? !nnef_runner_set_input(r, i, a->inputs[k].held)
					     : !nnef_runner_read_input(r, i, a->inputs[k].path)) {
			status = 2;
		}
		if (i < n)
			given[i] = true;
	}
	if (status < 0 && a->input_bundle)
		status = bundle_inputs(r, a, given, ds);
	for (size_t i = 0; i < n && status < 0; i++) {
		if (given[i])
			continue;
		const char *name = nnef_runner_input_name(r, i);
		char *path = a->input_dir ? join_path(a->input_dir, name, ".dat") : NULL;
		if (path && (file_exists(path) || !a->random)) {
			if (!nnef_runner_read_input(r, i, path))
				status = 2;
		} else if (a->random) {
			nnef_runner_random_input(r, i, a->random_kind, a->seed);
		} else {
			status = tool_usage_error(&tool, "the graph input '%s' has no data: give --input %s=FILE, --input-bundle, --input-dir or --random", name, name);
		}
		free(path);
	}
	free(given);
	return status;
}

/* ---- progress ------------------------------------------------------------------------ */

typedef struct Progress {
	double start, last;
	bool shown;
	size_t cycle, cycles;
} Progress;

static void on_progress(void *ctx, size_t done, size_t total)
{
	Progress *p = ctx;
	double t = now();
	if (t - p->start < 1.0 || (t - p->last < 0.1 && done < total))
		return;
	p->last = t;
	p->shown = true;
	if (p->cycles > 1)
		fprintf(stderr, "\r" PROG ": cycle %zu/%zu, operation %zu/%zu ", p->cycle + 1, p->cycles, done, total);
	else
		fprintf(stderr, "\r" PROG ": operation %zu/%zu ", done, total);
	fflush(stderr);
}

/* ---- outputs ------------------------------------------------------------------------- */

/* Creates dir and its parents as needed. */
static bool make_dirs(const char *dir)
{
	char *p = strdup(dir);
	bool ok = p != NULL;
	for (char *s = p ? p + 1 : NULL; ok; s++) {
		bool end = *s == '\0';
		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			ok = false;
		if (end)
			break;
		*s = '/';
	}
	if (!ok)
		fprintf(stderr, PROG ": cannot create the directory '%s': %s\n", p ? p : dir, strerror(errno));
	free(p);
	return ok;
}

/* The files a run writes (--output-dir, --save-variables), all or
 * nothing: each is written under a staged name first, and all are renamed
 * into place once every one is complete. */
typedef struct FileSet {
	char **paths;
	char **staged;
	size_t n;
} FileSet;

/* Adds path (malloc'd, taken; NULL when out of memory) to fs with a
 * staged name, its folders made first when dirs; returns the staged
 * name, or NULL after saying why. */
static const char *stage_path(FileSet *fs, char *path, bool dirs,
			      nnef_diags *ds)
{
	char **paths = path ? realloc(fs->paths, (fs->n + 1) * sizeof(char *)) : NULL;
	fs->paths = paths ? paths : fs->paths;
	char **staged = paths ? realloc(fs->staged, (fs->n + 1) * sizeof(char *)) : NULL;
	fs->staged = staged ? staged : fs->staged;
	if (!staged) {
		fprintf(stderr, PROG ": out of memory while writing the outputs\n");
		free(path);
		return NULL;
	}
	char *slash = strrchr(path, '/');
	bool ok = true;
	if (dirs && slash && slash != path) {
		*slash = '\0';
		ok = make_dirs(path);
		*slash = '/';
	}
	char *name = ok ? nnef_stage_file(path, ds) : NULL;
	if (!name) {
		free(path);
		return NULL;
	}
	fs->paths[fs->n] = path;
	fs->staged[fs->n++] = name;
	return name;
}

/* Writes tensor i of the set to the staged name of DIR/NAME.dat (NAME may
 * hold folders), added to fs. */
static bool stage_named(FileSet *fs, const nnef_runner *r, nnef_run_set set,
			size_t i, const char *dir, nnef_diags *ds)
{
	const char *name = stage_path(fs, join_path(dir, nnef_runner_name(r, set, i), ".dat"), true, ds);
	return name && nnef_runner_write(r, set, i, name, ds);
}

/* Renames every staged file into place when ok, else removes them all.
 * Returns whether every file was written. */
static bool finish_files(FileSet *fs, bool ok, nnef_diags *ds)
{
	for (size_t k = 0; k < fs->n; k++) {
		if (ok)
			ok = nnef_commit_file(fs->staged[k], fs->paths[k], ds);
		else
			remove(fs->staged[k]);
		free(fs->staged[k]);
		free(fs->paths[k]);
	}
	free(fs->paths);
	free(fs->staged);
	*fs = (FileSet){ 0 };
	return ok;
}

static bool stage_outputs(FileSet *fs, const nnef_runner *r, const Args *a,
			  nnef_diags *ds)
{
	if (!make_dirs(a->output_dir))
		return false;
	for (size_t i = 0; a->dump_all && i < nnef_runner_count(r, NNEF_RUN_TENSORS); i++) {
		nnef_tensor *t = nnef_runner_get(r, NNEF_RUN_TENSORS, i);
		bool held = t != NULL;
		nnef_tensor_free(t);
		if (held && !stage_named(fs, r, NNEF_RUN_TENSORS, i, a->output_dir, ds))
			return false;
	}
	for (size_t i = 0; i < nnef_runner_count(r, NNEF_RUN_OUTPUTS); i++)
		if (!stage_named(fs, r, NNEF_RUN_OUTPUTS, i, a->output_dir, ds))
			return false;
	return true;
}

static bool stage_variables(FileSet *fs, const nnef_runner *r, const Args *a,
			    nnef_diags *ds)
{
	if (!make_dirs(a->save_dir))
		return false;
	for (size_t i = 0; i < nnef_runner_count(r, NNEF_RUN_VARIABLES); i++) {
		const char *label = nnef_runner_name(r, NNEF_RUN_VARIABLES, i);
		if (strstr(label, "..")) {
			fprintf(stderr, PROG ": --save-variables: the label '%s' would leave the directory\n", label);
			return false;
		}
		if (!stage_named(fs, r, NNEF_RUN_VARIABLES, i, a->save_dir, ds))
			return false;
	}
	return true;
}

/* The outputs as one .npz, staged in fs. */
static bool stage_bundle(FileSet *fs, const nnef_runner *r, const Args *a,
			 nnef_diags *ds)
{
	const char *name = stage_path(fs, strdup(a->output_bundle), false, ds);
	return name && nnef_runner_write_bundle(r, NNEF_RUN_OUTPUTS, name, 0, ds);
}

/* The statistics of every tensor the graph names as JSON, staged in fs
 * (or on standard output for "-"). */
static bool stage_statistics(FileSet *fs, const nnef_runner *r, const Args *a,
			     nnef_diags *ds)
{
	char *json = nnef_runner_stats_json(r);
	if (!json) {
		fprintf(stderr, PROG ": out of memory while writing the statistics\n");
		return false;
	}
	bool ok;
	if (strcmp(a->statistics, "-") == 0) {
		tool_write_out(json, strlen(json));
		ok = true;
	} else {
		const char *name = stage_path(fs, strdup(a->statistics), false, ds);
		ok = name && nnef_write_file(name, json, strlen(json), ds);
	}
	free(json);
	return ok;
}

/* Writes the outputs, the variables and the statistics asked for: every
 * file, or none. */
static bool write_files(const nnef_runner *r, const Args *a, nnef_diags *ds)
{
	FileSet fs = { 0 };
	bool ok = (!a->output_dir || stage_outputs(&fs, r, a, ds)) &&
		  (!a->output_bundle || stage_bundle(&fs, r, a, ds)) &&
		  (!a->save_dir || stage_variables(&fs, r, a, ds)) &&
		  (!a->statistics || stage_statistics(&fs, r, a, ds));
	return finish_files(&fs, ok, ds);
}

static const char *const dtype_names[] = { "scalar", "integer", "logical" };

static void print_shape(const nnef_tensor *t)
{
	printf("%s[", dtype_names[nnef_tensor_dtype(t)]);
	for (size_t d = 0; d < nnef_tensor_rank(t); d++)
		printf(d ? ",%lld" : "%lld", (long long)nnef_tensor_dim(t, d));
	putchar(']');
}

/* --stats: a line per output, the numbers --statistics writes. */
static void print_stats(const nnef_runner *r)
{
	for (size_t i = 0; i < nnef_runner_count(r, NNEF_RUN_OUTPUTS); i++) {
		nnef_tensor *t = nnef_runner_get(r, NNEF_RUN_OUTPUTS, i);
		if (!t)
			continue;
		nnef_stats st;
		nnef_tensor_stats(t, &st);
		printf("%s: ", nnef_runner_name(r, NNEF_RUN_OUTPUTS, i));
		print_shape(t);
		printf(" min %.9g max %.9g mean %.9g std %.9g", st.min, st.max, st.mean, st.std);
		if (st.nan || st.inf)
			printf(" nan %llu inf %llu", (unsigned long long)st.nan, (unsigned long long)st.inf);
		putchar('\n');
		nnef_tensor_free(t);
	}
}

/* ---- --compare ------------------------------------------------------------------------- */

/* The same shape, trailing singleton dimensions aside. */
static bool same_dims(const nnef_tensor *a, const nnef_tensor *b)
{
	size_t ra = nnef_tensor_rank(a), rb = nnef_tensor_rank(b);
	size_t n = ra > rb ? ra : rb;
	for (size_t d = 0; d < n; d++)
		if ((d < ra ? nnef_tensor_dim(a, d) : 1) != (d < rb ? nnef_tensor_dim(b, d) : 1))
			return false;
	return true;
}

/* Integer and logical outputs: every item equal. Returns 0 or 1. */
static int compare_exact(const char *name, const nnef_tensor *t,
			 const nnef_tensor *ref)
{
	size_t bad = 0, first = 0, n = nnef_tensor_count(t);
	for (size_t k = 0; k < n; k++)
		if (nnef_tensor_get(t, k) != nnef_tensor_get(ref, k) && bad++ == 0)
			first = k;
	if (bad)
		printf("%s: %zu of %zu items differ (first: item %zu is %.17g, the reference %.17g): DIFFERENT\n", name, bad, n, first, nnef_tensor_get(t, first), nnef_tensor_get(ref, first));
	else
		printf("%s: all %zu items equal: ok\n", name, n);
	return bad != 0;
}

/* Scalar outputs: relative L2 error within the tolerance. */
static int compare_real(const char *name, const nnef_tensor *t,
			const nnef_tensor *ref, double tolerance)
{
	double num = 0, den = 0, maxabs = 0;
	size_t nan = 0;
	for (size_t k = 0; k < nnef_tensor_count(t); k++) {
		double v = nnef_tensor_get(t, k), r = nnef_tensor_get(ref, k);
		if (isnan(v) || isnan(r)) {
			nan += isnan(v) != isnan(r);
			continue;
		}
		double e = fabs(v - r);
		num += e * e;
		den += r * r;
		maxabs = e > maxabs ? e : maxabs;
	}
	double rel = den > 0 ? sqrt(num / den) : sqrt(num);
	int status = nan || !(rel <= tolerance);
	printf("%s: relative L2 error %.3g, max absolute error %.3g%s: %s\n", name, rel, maxabs, nan ? " (NaN where the reference has none, or the reverse)" : "", status ? "DIFFERENT" : "ok");
	return status;
}

/* The tolerance for output i: --tolerance, else 1e-5; in tract's dialect
 * what tract's harness allows the floats it computes in its own
 * precision: 1e-3 for f32 outputs, 1e-2 for f16. */
static double tolerance_of(const Args *a, size_t i)
{
	if (a->tolerance_given || !a->model || nnef_model_dialect(a->model) != NNEF_DIALECT_TRACT)
		return a->tolerance;
	const nnef_graph *g = nnef_model_graph(a->model);
	const char *datum = g && i < nnef_graph_output_count(g) ? nnef_tensor_info_datum_type(nnef_graph_output(g, i)) : NULL;
	return datum && strcmp(datum, "f16") == 0 ? 1e-2 : 1e-3;
}

/* Compares output i with its reference ref (taken); prints one line.
 * Returns 0 within the tolerance, 1 beyond it, 2 when there is no
 * reference (it could not be read). */
static int compare_with(const nnef_runner *r, size_t i, nnef_tensor *ref,
			const Args *a)
{
	const char *name = nnef_runner_name(r, NNEF_RUN_OUTPUTS, i);
	if (!ref)
		return 2;
	nnef_tensor *t = nnef_runner_get(r, NNEF_RUN_OUTPUTS, i);
	int status = 1;
	if (!t) {
		printf("%s: not computed: DIFFERENT\n", name);
	} else if (!same_dims(ref, t)) {
		printf("%s: the reference has shape [", name);
		for (size_t d = 0; d < nnef_tensor_rank(ref); d++)
			printf(d ? ",%lld" : "%lld", (long long)nnef_tensor_dim(ref, d));
		printf("], the output ");
		print_shape(t);
		printf(": DIFFERENT\n");
	} else if (nnef_tensor_dtype(t) != NNEF_SCALAR) {
		status = compare_exact(name, t, ref);
	} else {
		status = compare_real(name, t, ref, tolerance_of(a, i));
	}
	nnef_tensor_free(t);
	nnef_tensor_free(ref);
	return status;
}

/* Compares output i with DIR/NAME.dat of --compare. */
static int compare_output(const nnef_runner *r, size_t i, const Args *a,
			  nnef_diags *ds)
{
	const char *name = nnef_runner_name(r, NNEF_RUN_OUTPUTS, i);
	char *path = join_path(a->compare_dir, name, ".dat");
	nnef_tensor *ref = path ? nnef_tensor_read(path, NNEF_READ_LENIENT, ds) : NULL;
	free(path);
	return compare_with(r, i, ref, a);
}

/* Compares every output with the array of its name of --compare-bundle.
 * Returns the worst status. */
static int compare_bundle(const nnef_runner *r, const Args *a, nnef_diags *ds)
{
	nnef_bundle *b = nnef_bundle_open(a->compare_bundle, &a->common.opt, ds);
	if (!b)
		return 2;
	int status = 0;
	for (size_t i = 0; i < nnef_runner_count(r, NNEF_RUN_OUTPUTS); i++) {
		nnef_tensor *ref = nnef_bundle_read(b, nnef_runner_name(r, NNEF_RUN_OUTPUTS, i), ds);
		int st = compare_with(r, i, ref, a);
		status = st > status ? st : status;
	}
	nnef_bundle_free(b);
	return status;
}

/* ---- --profile --------------------------------------------------------------------------- */

typedef struct OpTime {
	const nnef_op *op;
	const char *name;
	double seconds;
	size_t count;
} OpTime;

static int by_seconds(const void *x, const void *y)
{
	double a = ((const OpTime *)x)->seconds, b = ((const OpTime *)y)->seconds;
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Where the user wrote op: its own position, or that of the call in the
 * graph it was expanded from. */
static void print_where(const nnef_op *op)
{
	nnef_location l = nnef_op_location(op);
	printf("%s:%u:%u", l.file ? l.file : "?", l.line, l.column);
	if (nnef_op_compound(op))
		printf(" (in '%s')", nnef_op_compound(op));
}

static void print_kinds(OpTime *times, size_t n)
{
	OpTime *kinds = calloc(n ? n : 1, sizeof(*kinds));
	size_t nk = 0;
	double sum = 0;
	for (size_t i = 0; kinds && i < n; i++) {
		size_t k = 0;
		while (k < nk && strcmp(kinds[k].name, times[i].name) != 0)
			k++;
		if (k == nk)
			kinds[nk++] = (OpTime){ NULL, times[i].name, 0, 0 };
		kinds[k].seconds += times[i].seconds;
		kinds[k].count++;
		sum += times[i].seconds;
	}
	qsort(kinds, nk, sizeof(*kinds), by_seconds);
	printf("time per operation kind (last cycle):\n");
	for (size_t k = 0; k < nk; k++)
		printf("  %-22s %10.6f s %6.1f%% %6zu operation%s\n", kinds[k].name, kinds[k].seconds, sum > 0 ? 100 * kinds[k].seconds / sum : 0.0, kinds[k].count, kinds[k].count == 1 ? "" : "s");
	free(kinds);
}

static void print_profile(nnef_runner *r)
{
	size_t n = nnef_runner_profile_count(r);
	OpTime *times = calloc(n ? n : 1, sizeof(*times));
	for (size_t i = 0; times && i < n; i++) {
		times[i].op = nnef_runner_profile_op(r, i, &times[i].seconds);
		times[i].name = nnef_op_name(times[i].op);
	}
	print_kinds(times, times ? n : 0);
	if (times)
		qsort(times, n, sizeof(*times), by_seconds);
	printf("the ten slowest operations:\n");
	for (size_t i = 0; times && i < n && i < 10; i++) {
		printf("  %10.6f s  %-22s ", times[i].seconds, times[i].name);
		print_where(times[i].op);
		putchar('\n');
	}
	free(times);
}

/* ---- --plan ------------------------------------------------------------------------------ */

/* The name of op's first result tensor (of an array result, its first
 * item's). */
static const char *result_name(const nnef_op *op)
{
	const nnef_value *v = nnef_op_result_count(op) ? nnef_op_result(op, 0) : NULL;
	while (v && nnef_value_kind_of(v) == NNEF_VALUE_ARRAY)
		v = nnef_value_item_count(v) ? nnef_value_item(v, 0) : NULL;
	const nnef_tensor_info *t = v && nnef_value_kind_of(v) == NNEF_VALUE_TENSOR ? nnef_value_tensor(v) : NULL;
	return t ? nnef_tensor_info_name(t) : "?";
}

/* One line per operation: its first result, its kind, where the user
 * wrote it, and how it runs; then the counts. */
static void print_plan(const nnef_runner *r)
{
	size_t n = nnef_runner_plan_count(r), count[4] = { 0 };
	printf("plan:\n");
	for (size_t i = 0; i < n; i++) {
		nnef_plan_how how;
		const nnef_op *by;
		size_t nfused;
		const nnef_op *op = nnef_runner_plan_op(r, i, &how, &by, &nfused);
		count[how]++;
		printf("  %s = %s  ", result_name(op), nnef_op_name(op));
		print_where(op);
		switch (how) {
		case NNEF_PLAN_RUNS: {
			const char *method = nnef_runner_plan_method(r, i);
			printf("  runs%s%s", method ? " by " : "", method ? method : "");
			if (nfused)
				printf(", computing %zu fused operation%s", nfused, nfused == 1 ? "" : "s");
			printf("\n");
			break;
		}
		case NNEF_PLAN_FUSED: printf("  fused into %s\n", result_name(by)); break;
		case NNEF_PLAN_VIEW: printf("  a view of its input\n"); break;
		case NNEF_PLAN_NOTHING: printf("  nothing to run\n"); break;
		}
	}
	printf("plan: %zu operations: %zu run, %zu fused, %zu views, %zu with nothing to run\n", n, count[NNEF_PLAN_RUNS], count[NNEF_PLAN_FUSED], count[NNEF_PLAN_VIEW], count[NNEF_PLAN_NOTHING]);
}

/* ---- running ------------------------------------------------------------------------------ */

/* Runs the cycles; returns the exit status (-1: ran). */
static int execute(nnef_runner *r, const Args *a, Progress *pg, RunDiags *rd,
		   double *seconds)
{
	double t0 = now();
	pg->start = pg->last = t0;
	pg->cycles = a->cycles;
	for (pg->cycle = 0; pg->cycle < a->cycles; pg->cycle++)
		if (!nnef_runner_run(r)) {
			if (pg->shown)
				fputs("\r\033[K", stderr);
			flush_diags(rd);
			return has_io_error(rd->ds) ? 2 : 1; /* E0008: 2 */
		}
	*seconds = now() - t0;
	if (pg->shown)
		fputs("\r\033[K", stderr);
	return -1;
}

/* With --stats and --profile: how many tensors graph.quant quantized. */
static void print_quantized(const Args *a)
{
	bool applied;
	size_t n = nnef_graph_quant_count(nnef_model_graph(a->model), &applied);
	if (n && applied)
		printf("quantized: %zu tensor%s (graph.quant)\n", n, n == 1 ? "" : "s");
	else if (n)
		printf("quantized: none (--no-quantize; graph.quant names %zu)\n", n);
}

/* What follows a run: files, statistics, comparison, profile. */
static int report(nnef_runner *r, const Args *a, RunDiags *rd, double load,
		  double exec)
{
	int status = 0;
	if ((a->output_dir || a->output_bundle || a->save_dir || a->statistics) && !write_files(r, a, rd->ds))
		status = 2;
	if (a->stats) {
		print_stats(r);
		print_quantized(a);
	}
	for (size_t i = 0; a->compare_dir && i < nnef_runner_count(r, NNEF_RUN_OUTPUTS); i++) {
		int st = compare_output(r, i, a, rd->ds);
		status = st > status ? st : status;
	}
	if (a->compare_bundle) {
		int st = compare_bundle(r, a, rd->ds);
		status = st > status ? st : status;
	}
	if (a->profile) {
		print_profile(r);
		if (!a->stats)
			print_quantized(a);
		printf("total: load %.6f s, execute %.6f s\n", load, exec);
	}
	/* nothing asked for: what ran, and that nothing came of it */
	bool asked = a->output_dir || a->output_bundle || a->save_dir || a->stats || a->statistics ||
		     a->compare_dir || a->compare_bundle || a->profile;
	if (!asked && !a->common.quiet)
		printf("%s: ran the graph '%s' (%zu cycle%s); nothing was written: give --output-dir, --output-bundle, --stats, --statistics or --compare for its outputs\n", nnef_model_path(a->model), nnef_graph_name(nnef_model_graph(a->model)), a->cycles, a->cycles == 1 ? "" : "s");
	flush_diags(rd);
	return status;
}

/* Prepares the runner and its inputs; returns -1 to run, else the exit
 * status. */
static int prepare(const nnef_model *m, const Args *a, Progress *pg,
		   RunDiags *rd, nnef_runner **out)
{
	nnef_run_options ro;
	nnef_run_options_init(&ro);
	ro.double_precision = a->double_precision;
	ro.random_weights = a->random_weights;
	ro.seed = a->seed;
	ro.keep_all = a->dump_all;
	ro.plain = a->plain;
	ro.threads = (int)a->threads;
	ro.profile = a->profile;
	ro.statistics = a->statistics != NULL;
	ro.max_memory = a->max_memory;
	if (!a->common.quiet && isatty(fileno(stderr))) {
		ro.progress = on_progress;
		ro.progress_ctx = pg;
	}
	*out = nnef_runner_new(m, &ro, rd->ds);
	int status = !*out ? (has_io_error(rd->ds) ? 2 : 1) : fill_inputs(*out, a, rd->ds);
	if (status >= 0)
		flush_diags(rd);
	return status;
}

static int run(Args *a, const char *path)
{
	const CommonArgs *ca = &a->common;
	RunDiags rd = { nnef_diags_new(), tool_use_color(ca->color, stderr), ca->quiet };
	double t0 = now();
	nnef_model *m = rd.ds ? tool_load_model(stderr, PROG, path, &ca->opt) : NULL;
	if (!m) {
		nnef_diags_free(rd.ds);
		return 2;
	}
	int status = (int)nnef_model_status(m);
	bool added = false;
	if (status == 0 && nnef_model_dialect(m) == NNEF_DIALECT_TRACT) {
		int st = bind_symbols(a, m, rd.ds, &added);
		if (st >= 0) {
			flush_diags(&rd);
			status = st;
		}
	}
	if (added && status == 0) { /* read again, the symbols bound */
		nnef_model_free(m);
		m = tool_load_model(stderr, PROG, path, &ca->opt);
		if (!m) {
			nnef_diags_free(rd.ds);
			return 2;
		}
		status = (int)nnef_model_status(m);
	}
	tool_print_diags(PROG, nnef_model_diags(m), rd.color, !ca->quiet);
	if (!tool_check_input_shapes(stderr, PROG, m, ca))
		status = 2;
	nnef_runner *r = NULL;
	Progress pg = { 0 };
	a->model = m;
	if (status == 0)
		status = prepare(m, a, &pg, &rd, &r);
	if (status < 0) {
		double load = now() - t0, exec = 0;
		if (a->plan)
			print_plan(r);
		status = execute(r, a, &pg, &rd, &exec);
		if (status < 0)
			status = report(r, a, &rd, load, exec);
	}
	nnef_runner_free(r);
	nnef_model_free(m);
	nnef_diags_free(rd.ds);
	return status;
}

/* OpenBLAS's function that stops its server threads (it starts them
 * again when a threaded call needs them); weak, so that another BLAS
 * library links too. */
extern void blas_thread_shutdown_(void) __attribute__((weak));

int main(int argc, char **argv)
{
	/* OpenBLAS starts its threads when the program loads, and they spin
	 * for about a tenth of a second waiting for work: on two cores that
	 * is one core taken from the interpreter's own threads during the
	 * first run. Float graphs never call OpenBLAS unless --plain, so
	 * stop them while nnef-run is still the only thread. */
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
	/* Buffers come and go with every operation: keep freed memory in the
	 * heap for the next one instead of returning it to the system, which
	 * would fault every page in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	Args a = { .tolerance = 1e-5, .cycles = 1 };
	tool_common_init(&a.common);
	a.common.opt.quantize = true; /* graph.quant applied (spec 7.1) */
	int first = 0, status = parse_args(argc, argv, &a, &first);
	if (status < 0)
		status = run(&a, argv[first]);
	tool_common_free(&a.common);
	for (size_t k = 0; k < a.ninputs; k++)
		nnef_tensor_free(a.inputs[k].held);
	free(a.inputs);
	return tool_finish(PROG, status);
}
