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
#include "interp/interp.h"
#include "tools/common.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "nnef-run"

static const char usage_text[] =
	"Usage: nnef-run [OPTIONS] MODEL\n"
	"Check an NNEF model, then run its graph: the reference interpreter.\n"
	"MODEL is a directory holding graph.nnef and its tensor files, a .tar\n"
	"or .tgz archive of one, or a bare graph file (with --random-weights).\n"
	"\n"
	"Inputs:\n"
	"      --input=NAME=FILE     the graph input NAME from tensor file FILE\n"
	"                            (repeatable)\n"
	"      --input-dir=DIR       each graph input NAME from DIR/NAME.dat\n"
	"      --random=KIND         inputs not given otherwise get generated\n"
	"                            values: uniform (in [0, 1)) or normal\n"
	"      --seed=N              seed of the generated values (default 0)\n"
	"      --random-weights      variables without a tensor file get\n"
	"                            generated values\n"
	"Outputs:\n"
	"      --output-dir=DIR      write each graph output NAME as DIR/NAME.dat\n"
	"      --dump-all            with --output-dir, every tensor of the graph\n"
	"      --compare=DIR         compare each output with DIR/NAME.dat\n"
	"      --tolerance=T         largest relative L2 error allowed by\n"
	"                            --compare (default 1e-5; integer and logical\n"
	"                            outputs must match exactly)\n"
	"      --stats               print min, max, mean and std of each output\n"
	"      --save-variables=DIR  after the run, write each variable as\n"
	"                            DIR/LABEL.dat\n"
	"Running:\n"
	"      --precision=P         float (default) or double: compute, and\n"
	"                            write, every scalar in float64\n"
	"      --cycles=N            run the graph N times, variables carried\n"
	"                            over (default 1)\n"
	"      --profile             time each operation: time per operation kind,\n"
	"                            the ten slowest operations, conv throughput\n"
	"                            beside a plain GEMM of the same shapes, then\n"
	"                            'total: load X s, execute Y s'\n"
	"Checking (as nnef-check):\n"
	"  -q, --quiet               print errors only\n"
	"      --lenient, --max-errors=N, --max-depth=N, --input-shape=NAME=DIMS,\n"
	"      --no-data, --max-archive-bytes=N, --max-member-bytes=N,\n"
	"      --max-members=N, --color=WHEN\n"
	"  -h, --help                print this help and exit\n"
	"  -V, --version             print the version and exit\n"
	"\n"
	"Exit status: 0 if the graph ran (and every compared output is within\n"
	"the tolerance), 1 if the model is invalid or cannot run, or an output\n"
	"differs, 2 on a usage error or a file that cannot be read or written.\n";

enum {
	OPT_INPUT = OPT_TOOL,
	OPT_INPUT_DIR,
	OPT_RANDOM,
	OPT_SEED,
	OPT_RANDOM_WEIGHTS,
	OPT_OUTPUT_DIR,
	OPT_DUMP_ALL,
	OPT_COMPARE,
	OPT_TOLERANCE,
	OPT_STATS,
	OPT_SAVE_VARIABLES,
	OPT_PRECISION,
	OPT_CYCLES,
	OPT_PROFILE,
};

typedef struct InputFile {
	const char *name;
	const char *path;
} InputFile;

typedef struct Args {
	CommonArgs common;
	InputFile *inputs;
	size_t ninputs;
	const char *input_dir;
	bool random;
	InterpRandom random_kind;
	uint64_t seed;
	bool random_weights;
	const char *output_dir;
	bool dump_all;
	const char *compare_dir;
	double tolerance;
	bool stats;
	const char *save_dir;
	InterpPrecision precision;
	size_t cycles;
	bool profile;
} Args;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s'%s'\n", msg, arg);
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	return 2;
}

/* Parses one option of nnef-run's own; returns -1 to go on, else the
 * exit status. */
static int parse_option(int c, Args *a)
{
	int st = tool_common_option(PROG, usage_text, c, &a->common);
	if (st != -2)
		return st;
	char *end;
	switch (c) {
	case OPT_INPUT: {
		char *eq = strchr(optarg, '=');
		if (!eq || eq == optarg || !eq[1])
			return usage_error("--input needs NAME=FILE, not ", optarg);
		*eq = '\0';
		a->inputs = util_realloc(a->inputs, (a->ninputs + 1) * sizeof(*a->inputs));
		a->inputs[a->ninputs++] = (InputFile){ optarg, eq + 1 };
		return -1;
	}
	case OPT_INPUT_DIR: a->input_dir = optarg; return -1;
	case OPT_RANDOM:
		a->random = true;
		if (strcmp(optarg, "uniform") == 0)
			a->random_kind = INTERP_UNIFORM;
		else if (strcmp(optarg, "normal") == 0)
			a->random_kind = INTERP_NORMAL;
		else
			return usage_error("--random must be uniform or normal, not ", optarg);
		return -1;
	case OPT_SEED:
		errno = 0;
		a->seed = strtoull(optarg, &end, 10);
		if (*end || end == optarg || errno || *optarg == '-')
			return usage_error("--seed needs a non-negative integer, not ", optarg);
		return -1;
	case OPT_RANDOM_WEIGHTS:
		a->random_weights = true;
		a->common.mopt.missing_data_ok = true;
		return -1;
	case OPT_OUTPUT_DIR: a->output_dir = optarg; return -1;
	case OPT_DUMP_ALL: a->dump_all = true; return -1;
	case OPT_COMPARE: a->compare_dir = optarg; return -1;
	case OPT_TOLERANCE:
		a->tolerance = strtod(optarg, &end);
		if (*end || end == optarg || !(a->tolerance >= 0) || isinf(a->tolerance))
			return usage_error("--tolerance needs a non-negative number, not ", optarg);
		return -1;
	case OPT_STATS: a->stats = true; return -1;
	case OPT_SAVE_VARIABLES: a->save_dir = optarg; return -1;
	case OPT_PRECISION:
		if (strcmp(optarg, "float") == 0)
			a->precision = INTERP_FLOAT;
		else if (strcmp(optarg, "double") == 0)
			a->precision = INTERP_DOUBLE;
		else
			return usage_error("--precision must be float or double, not ", optarg);
		return -1;
	case OPT_CYCLES:
		if (!tool_parse_count(optarg, &a->cycles) || a->cycles == 0)
			return usage_error("--cycles needs a positive number, not ", optarg);
		return -1;
	case OPT_PROFILE: a->profile = true; return -1;
	default:
		fputs("Try '" PROG " --help' for more information.\n", stderr);
		return 2;
	}
}

static int parse_args(int argc, char **argv, Args *a)
{
	static const struct option longopts[] = {
		TOOL_COMMON_LONGOPTS,
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "input-dir", required_argument, NULL, OPT_INPUT_DIR },
		{ "random", required_argument, NULL, OPT_RANDOM },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "random-weights", no_argument, NULL, OPT_RANDOM_WEIGHTS },
		{ "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
		{ "dump-all", no_argument, NULL, OPT_DUMP_ALL },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "save-variables", required_argument, NULL, OPT_SAVE_VARIABLES },
		{ "precision", required_argument, NULL, OPT_PRECISION },
		{ "cycles", required_argument, NULL, OPT_CYCLES },
		{ "profile", no_argument, NULL, OPT_PROFILE },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		int st = parse_option(c, a);
		if (st >= 0)
			return st;
	}
	if (optind + 1 != argc) {
		fputs(optind >= argc ? PROG ": no model given\n" : PROG ": one model at a time\n", stderr);
		fputs("Try '" PROG " --help' for more information.\n", stderr);
		return 2;
	}
	if (a->dump_all && !a->output_dir) {
		fputs(PROG ": --dump-all writes into --output-dir, which is not given\n", stderr);
		return 2;
	}
	return -1;
}

/* ---- inputs ------------------------------------------------------------------- */

static char *join_path(const char *dir, const char *name, const char *ext)
{
	size_t n = strlen(dir);
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "%s%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name, ext);
	char *r = util_strdup(sb_str(&b));
	sb_free(&b);
	return r;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Fills every input: --input, then --input-dir, then --random. Returns
 * the exit status, -1 when every input has data. */
static int fill_inputs(Interp *it, const Args *a, DiagList *diags)
{
	size_t n = interp_ninputs(it);
	bool *given = util_calloc(n ? n : 1, sizeof(bool));
	int status = -1;
	for (size_t k = 0; k < a->ninputs && status < 0; k++) {
		size_t i = 0;
		while (i < n && strcmp(interp_input_name(it, i), a->inputs[k].name) != 0)
			i++;
		if (i == n) {
			fprintf(stderr, PROG ": --input: '%s' is not an input of the graph\n", a->inputs[k].name);
			status = 2;
		} else if (!interp_read_input(it, i, a->inputs[k].path)) {
			status = 2;
		}
		if (i < n)
			given[i] = true;
	}
	for (size_t i = 0; i < n && status < 0; i++) {
		if (given[i])
			continue;
		char *path = a->input_dir ? join_path(a->input_dir, interp_input_name(it, i), ".dat") : NULL;
		if (path && (file_exists(path) || !a->random)) {
			if (!interp_read_input(it, i, path))
				status = 2;
		} else if (a->random) {
			interp_random_input(it, i, a->random_kind, a->seed);
		} else {
			fprintf(stderr, PROG ": the graph input '%s' has no data: give --input %s=FILE, --input-dir or --random\n", interp_input_name(it, i), interp_input_name(it, i));
			status = 2;
		}
		free(path);
	}
	(void)diags;
	free(given);
	return status;
}

/* ---- diagnostics of the run -------------------------------------------------------- */

static void print_run_diags(DiagList *dl, bool color)
{
	DiagRenderOpts o = { .color = color, .show_warnings = true, .show_source = true };
	StrBuf out;
	sb_init(&out);
	for (size_t i = 0; i < dl->len; i++) {
		if (!dl->items[i]->loc.file)
			sb_puts(&out, PROG ": ");
		diag_render(dl->items[i], &out, &o);
	}
	fputs(sb_str(&out), stderr);
	sb_free(&out);
	diag_list_free(dl);
	diag_list_init(dl, 0);
}

/* Whether dl holds an error of reading or writing a file (exit 2). */
static bool has_io_error(const DiagList *dl)
{
	for (size_t i = 0; i < dl->len; i++) {
		const char *code = diag_code_name(dl->items[i]->code);
		if (strncmp(code, "E00", 3) == 0 || strcmp(code, "E1307") == 0 ||
		    strncmp(code, "E10", 3) == 0)
			return true;
	}
	return false;
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
	char *p = util_strdup(dir);
	bool ok = true;
	for (char *s = p + 1; ok; s++) {
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
		fprintf(stderr, PROG ": cannot create the directory '%s': %s\n", p, strerror(errno));
	free(p);
	return ok;
}

static bool write_named(const Interp *it, const ITensor *t, const char *dir,
			const char *name, DiagList *dl)
{
	char *path = join_path(dir, name, ".dat");
	char *slash = strrchr(path, '/');
	bool ok = true;
	if (slash && slash != path) {
		*slash = '\0';
		ok = make_dirs(path);
		*slash = '/';
	}
	ok = ok && interp_write_tensor(it, t, interp_integer_bits(it), path, dl);
	free(path);
	return ok;
}

static bool write_outputs(const Interp *it, const Args *a, DiagList *dl)
{
	if (!make_dirs(a->output_dir))
		return false;
	if (a->dump_all) {
		for (size_t i = 0; i < interp_ntensors(it); i++) {
			const ITensor *t = interp_tensor(it, i);
			if (t->data && !write_named(it, t, a->output_dir, interp_tensor_name(it, i), dl))
				return false;
		}
	}
	for (size_t i = 0; i < interp_noutputs(it); i++)
		if (!write_named(it, interp_output(it, i), a->output_dir, interp_output_name(it, i), dl))
			return false;
	return true;
}

static bool save_variables(const Interp *it, const Args *a, DiagList *dl)
{
	if (!make_dirs(a->save_dir))
		return false;
	for (size_t i = 0; i < interp_nvariables(it); i++) {
		const char *label = interp_variable_label(it, i);
		if (strstr(label, "..")) {
			fprintf(stderr, PROG ": --save-variables: the label '%s' would leave the directory\n", label);
			return false;
		}
		if (!write_named(it, interp_variable(it, i), a->save_dir, label, dl))
			return false;
	}
	return true;
}

static void print_shape(const ITensor *t)
{
	printf("%s[", t->dtype == TY_SCALAR ? "scalar" : t->dtype == TY_INTEGER ? "integer" : "logical");
	for (uint32_t d = 0; d < t->rank; d++)
		printf(d ? ",%lld" : "%lld", (long long)t->dims[d]);
	putchar(']');
}

static void print_stats(const Interp *it)
{
	for (size_t i = 0; i < interp_noutputs(it); i++) {
		const ITensor *t = interp_output(it, i);
		double lo = INFINITY, hi = -INFINITY, sum = 0, sq = 0;
		for (size_t k = 0; k < t->count; k++) {
			double v = interp_value(it, t, k);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			sum += v;
		}
		double mean = t->count ? sum / (double)t->count : 0;
		for (size_t k = 0; k < t->count; k++) {
			double v = interp_value(it, t, k) - mean;
			sq += v * v;
		}
		printf("%s: ", interp_output_name(it, i));
		print_shape(t);
		printf(" min %.9g max %.9g mean %.9g std %.9g\n", lo, hi, mean, t->count ? sqrt(sq / (double)t->count) : 0.0);
	}
}

/* ---- --compare ------------------------------------------------------------------------- */

/* The items of tensor file path as reals, with its header; NULL after
 * reporting. */
static double *read_reference(const char *path, DatHeader *h, DiagList *dl)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		diag_add(dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	unsigned char head[DAT_OLD_HEADER_SIZE];
	struct stat st;
	size_t n = fread(head, 1, sizeof(head), fp);
	double *vals = NULL;
	uint64_t items, packed;
	if (fstat(fileno(fp), &st) == 0 &&
	    dat_read_header(head, n, (uint64_t)st.st_size, path, true, h, dl) &&
	    h->type != DAT_VENDOR && dat_items(h, &items) &&
	    dat_packed_size(h, items, &packed) &&
	    fseek(fp, (long)h->header_size, SEEK_SET) == 0) {
		unsigned char *data = util_malloc((size_t)packed + 1);
		DatItem *it = util_malloc((size_t)(items ? items : 1) * sizeof(DatItem));
		if (fread(data, 1, (size_t)packed, fp) == packed) {
			dat_decode(h, data, 0, (size_t)items, it);
			vals = util_malloc((size_t)(items ? items : 1) * sizeof(double));
			for (uint64_t i = 0; i < items; i++)
				vals[i] = h->type == DAT_SINT ? (double)it[i].i
					: h->type == DAT_UINT ? (double)it[i].u : dat_real(h, it[i]);
		} else {
			diag_add(dl, DIAG_E1009, loc_make(NULL, 0, 0), "'%s' ended before its data did", path);
		}
		free(data);
		free(it);
	} else if (h->type == DAT_VENDOR) {
		diag_add(dl, DIAG_E1006, loc_make(NULL, 0, 0), "'%s' holds vendor items, which nnef-run cannot compare", path);
	}
	fclose(fp);
	return vals;
}

static bool same_dims(const DatHeader *h, const ITensor *t)
{
	uint32_t n = h->rank > t->rank ? h->rank : t->rank;
	for (uint32_t d = 0; d < n; d++)
		if ((d < h->rank ? (int64_t)h->extents[d] : 1) != (d < t->rank ? t->dims[d] : 1))
			return false;
	return true;
}

/* Compares output i with its reference; prints one line. Returns 0
 * within the tolerance, 1 beyond it, 2 when the reference cannot be
 * read. */
static int compare_output(const Interp *it, size_t i, const Args *a,
			  DiagList *dl)
{
	const char *name = interp_output_name(it, i);
	const ITensor *t = interp_output(it, i);
	char *path = join_path(a->compare_dir, name, ".dat");
	DatHeader h;
	double *ref = read_reference(path, &h, dl);
	free(path);
	if (!ref)
		return 2;
	int status = 0;
	if (!same_dims(&h, t)) {
		printf("%s: the reference has shape [", name);
		for (uint32_t d = 0; d < h.rank; d++)
			printf(d ? ",%u" : "%u", (unsigned)h.extents[d]);
		printf("], the output ");
		print_shape(t);
		printf(": DIFFERENT\n");
		status = 1;
	} else if (t->dtype != TY_SCALAR) {
		size_t bad = 0, first = 0;
		for (size_t k = 0; k < t->count; k++)
			if (interp_value(it, t, k) != ref[k] && bad++ == 0)
				first = k;
		if (bad)
			printf("%s: %zu of %zu items differ (first: item %zu is %.17g, the reference %.17g): DIFFERENT\n", name, bad, t->count, first, interp_value(it, t, first), ref[first]);
		else
			printf("%s: all %zu items equal: ok\n", name, t->count);
		status = bad != 0;
	} else {
		double num = 0, den = 0, maxabs = 0;
		size_t nan = 0;
		for (size_t k = 0; k < t->count; k++) {
			double v = interp_value(it, t, k), r = ref[k];
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
		status = nan || !(rel <= a->tolerance);
		printf("%s: relative L2 error %.3g, max absolute error %.3g%s: %s\n", name, rel, maxabs, nan ? " (NaN where the reference has none, or the reverse)" : "", status ? "DIFFERENT" : "ok");
	}
	free(ref);
	return status;
}

/* ---- --profile --------------------------------------------------------------------------- */

typedef struct KindTime {
	const char *name;
	double seconds;
	size_t count;
} KindTime;

static int by_seconds(const void *x, const void *y)
{
	double a = ((const KindTime *)x)->seconds, b = ((const KindTime *)y)->seconds;
	return a < b ? 1 : a > b ? -1 : 0;
}

static int op_by_seconds(const void *x, const void *y)
{
	double a = ((const InterpOpTime *)x)->seconds, b = ((const InterpOpTime *)y)->seconds;
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Where the user wrote op: its own position, or that of the call in the
 * graph it was expanded from. */
static void print_where(const FlatOp *op)
{
	Loc loc = op->loc;
	const Frame *f = op->frame;
	while (f && f->parent)
		f = f->parent;
	if (f)
		loc = f->call->loc;
	unsigned line = 0, col = 0;
	if (loc.file)
		source_linecol(loc.file, loc.off, &line, &col);
	printf("%s:%u:%u", loc.file ? loc.file->path : "?", line, col);
	if (f)
		printf(" (in '%s')", f->frag->name);
}

static void print_profile(Interp *it, double total_exec)
{
	size_t n;
	const InterpOpTime *times = interp_op_times(it, &n);
	KindTime *kinds = util_calloc(n ? n : 1, sizeof(*kinds));
	size_t nk = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nk && strcmp(kinds[k].name, times[i].op->frag->name) != 0)
			k++;
		if (k == nk)
			kinds[nk++] = (KindTime){ times[i].op->frag->name, 0, 0 };
		kinds[k].seconds += times[i].seconds;
		kinds[k].count++;
	}
	qsort(kinds, nk, sizeof(*kinds), by_seconds);
	printf("time per operation kind (last cycle):\n");
	double sum = 0;
	for (size_t k = 0; k < nk; k++)
		sum += kinds[k].seconds;
	for (size_t k = 0; k < nk; k++)
		printf("  %-22s %10.6f s %6.1f%% %6zu operation%s\n", kinds[k].name, kinds[k].seconds, sum > 0 ? 100 * kinds[k].seconds / sum : 0.0, kinds[k].count, kinds[k].count == 1 ? "" : "s");
	InterpOpTime *sorted = util_malloc((n ? n : 1) * sizeof(*sorted));
	memcpy(sorted, times, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), op_by_seconds);
	printf("the ten slowest operations:\n");
	for (size_t i = 0; i < n && i < 10; i++) {
		printf("  %10.6f s  %-22s ", sorted[i].seconds, sorted[i].op->frag->name);
		print_where(sorted[i].op);
		putchar('\n');
	}
	InterpGemmBench gb;
	interp_gemm_bench(it, &gb);
	if (gb.nconv && gb.conv_seconds > 0 && gb.gemm_seconds > 0)
		printf("conv and deconv: %.3f GFLOP in %.6f s, %.1f GFLOP/s; a plain %s of the same shapes: %.1f GFLOP/s (conv at %.0f%% of it)\n", gb.flops * 1e-9, gb.conv_seconds, gb.flops * 1e-9 / gb.conv_seconds, interp_precision(it) == INTERP_DOUBLE ? "dgemm" : "sgemm", gb.flops * 1e-9 / gb.gemm_seconds, 100 * gb.gemm_seconds / gb.conv_seconds);
	(void)total_exec;
	free(sorted);
	free(kinds);
}

/* ---- running ------------------------------------------------------------------------------ */

/* Runs the cycles; returns the exit status (-1: ran). */
static int execute(Interp *it, const Args *a, Progress *pg, DiagList *dl,
		   bool color, double *seconds)
{
	double t0 = now();
	pg->start = pg->last = t0;
	pg->cycles = a->cycles;
	for (pg->cycle = 0; pg->cycle < a->cycles; pg->cycle++)
		if (!interp_run(it)) {
			if (pg->shown)
				fputs("\r\033[K", stderr);
			print_run_diags(dl, color);
			return 1;
		}
	*seconds = now() - t0;
	if (pg->shown)
		fputs("\r\033[K", stderr);
	return -1;
}

/* What follows a run: files, statistics, comparison, profile. */
static int report(Interp *it, const Args *a, DiagList *dl, bool color,
		  double load, double exec)
{
	int status = 0;
	if ((a->output_dir && !write_outputs(it, a, dl)) ||
	    (a->save_dir && !save_variables(it, a, dl)))
		status = 2;
	if (a->stats)
		print_stats(it);
	for (size_t i = 0; a->compare_dir && i < interp_noutputs(it); i++) {
		int st = compare_output(it, i, a, dl);
		status = st > status ? st : status;
	}
	if (a->profile) {
		print_profile(it, exec);
		printf("total: load %.6f s, execute %.6f s\n", load, exec);
	}
	print_run_diags(dl, color);
	return status;
}

static int run(const Args *a, const char *path)
{
	const CommonArgs *ca = &a->common;
	bool color = tool_use_color(ca->color, stderr);
	double t0 = now();
	Model m;
	ModelStatus st = model_check(&m, path, &ca->mopt);
	tool_print_diags(PROG, &m, stderr, color, !ca->quiet);
	if (!tool_check_input_shapes(PROG, &m, ca->inputs, ca->ninputs))
		st = MODEL_IO_ERROR;
	if (st != MODEL_VALID) {
		model_free(&m);
		return (int)st;
	}
	DiagList dl;
	diag_list_init(&dl, 0);
	Progress pg = { 0 };
	InterpOptions io = { .precision = a->precision, .keep_all = a->dump_all,
			     .profile = a->profile };
	if (!ca->quiet && isatty(fileno(stderr))) {
		io.progress = on_progress;
		io.progress_ctx = &pg;
	}
	Interp *it = interp_new(&m, &io, &dl);
	int status = -1;
	if (!it)
		status = 1;
	else if (!interp_load_variables(it, &m, a->random_weights, a->seed))
		status = has_io_error(&dl) ? 2 : 1;
	else
		status = fill_inputs(it, a, &dl);
	if (status >= 0) {
		print_run_diags(&dl, color);
	} else {
		double load = now() - t0, exec = 0;
		status = execute(it, a, &pg, &dl, color, &exec);
		if (status < 0)
			status = report(it, a, &dl, color, load, exec);
	}
	diag_list_free(&dl);
	interp_free(it);
	model_free(&m);
	return status;
}

int main(int argc, char **argv)
{
	/* Buffers come and go with every operation: keep freed memory in the
	 * heap for the next one instead of returning it to the system, which
	 * would fault every page in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	Args a = { .tolerance = 1e-5, .cycles = 1 };
	tool_common_init(&a.common);
	int status = parse_args(argc, argv, &a);
	if (status < 0)
		status = run(&a, argv[optind]);
	tool_common_free(&a.common);
	free(a.inputs);
	return status;
}
