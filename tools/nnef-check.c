/*
 * nnef-check - validate NNEF models (spec chapter 6, Document Validity).
 *
 * Each PATH is a directory holding graph.nnef, a .tar or .tgz of one, or
 * a bare graph file. As text (the default), diagnostics go to stderr as
 * "file:line:col: error[CODE]: message" with the source line, and a
 * summary per model to stdout unless -q (--format=gcc: the same, each
 * diagnostic on one line as GCC writes it); --format=json or sarif writes
 * one document for all models to stdout instead. With -j N, N models are
 * checked at a time; each model's output is still printed together, in
 * the order given.
 * Exit status: 0 every model valid (warnings allowed), 1 some model
 * invalid, 2 usage error or some model unreadable.
 */
#include "tools/common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ToolInfo tool = {
	.prog = "nnef-check",
	.tool = T_CHECK,
	.usage = "nnef-check [OPTIONS] PATH...",
	.about = "Check NNEF models. Each PATH is a directory holding graph.nnef and its tensor files, a .tar or .tgz archive of one, or a bare graph file (checked for structure only).",
	.exits = "Exit status: 0 if every model is valid (warnings allowed), 1 if a model is invalid, 2 on a usage error or an unreadable model.",
};

typedef enum Format {
	FORMAT_TEXT,
	FORMAT_GCC,   /* as text, a diagnostic on one line as GCC writes it */
	FORMAT_JSON,
	FORMAT_SARIF,
} Format;
/* --shapes: none, the tensors the document names, or every tensor */
typedef enum Shapes { SHAPES_NONE, SHAPES_NAMED, SHAPES_ALL } Shapes;

typedef struct Args {
	CommonArgs common;
	Format format;
	Shapes shapes;
	size_t jobs;
	const char **targets; /* --target and --require-target, once each */
	bool *required;
	size_t ntargets;
} Args;

/* Adds a target (once); NULL, or what is wrong. */
static const char *add_target(Args *a, const char *name, bool required)
{
	const char *why = nnef_target_check(name);
	if (why)
		return why;
	for (size_t i = 0; i < a->ntargets; i++)
		if (strcmp(a->targets[i], name) == 0) {
			a->required[i] |= required;
			return NULL;
		}
	const char **t = realloc(a->targets, (a->ntargets + 1) * sizeof(*t));
	if (t)
		a->targets = t;
	bool *r = t ? realloc(a->required, (a->ntargets + 1) * sizeof(*r)) : NULL;
	if (!r)
		return "cannot be kept: out of memory";
	a->required = r;
	a->targets[a->ntargets] = name;
	a->required[a->ntargets++] = required;
	return NULL;
}

static const char *set_option(void *ctx, OptId id, char *arg)
{
	Args *a = ctx;
	switch (id) {
	case OPT_SHAPES: /* --shapes alone: named */
		a->shapes = !arg || strcmp(arg, "named") == 0 ? SHAPES_NAMED
			  : strcmp(arg, "all") == 0	     ? SHAPES_ALL
							     : SHAPES_NONE;
		return a->shapes == SHAPES_NONE ? "must be named or all" : NULL;
	case OPT_FORMAT_CHECK:
		if (strcmp(arg, "text") == 0)
			a->format = FORMAT_TEXT;
		else if (strcmp(arg, "gcc") == 0)
			a->format = FORMAT_GCC;
		else if (strcmp(arg, "json") == 0)
			a->format = FORMAT_JSON;
		else if (strcmp(arg, "sarif") == 0)
			a->format = FORMAT_SARIF;
		else
			return "must be text, gcc, json or sarif";
		return NULL;
	case OPT_JOBS:
		if (!tool_parse_count(arg, &a->jobs) || a->jobs > 1024)
			return "needs a number from 0 to 1024";
		if (a->jobs == 0) { /* as many as processors online */
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			a->jobs = n < 1 ? 1 : n > 1024 ? 1024 : (size_t)n;
		}
		return NULL;
	case OPT_TARGET:
	case OPT_REQUIRE_TARGET:
		return add_target(a, arg, id == OPT_REQUIRE_TARGET);
	default:
		return "is not an option of nnef-check";
	}
}

/* Whether models are reported one by one as they are checked (text and
 * gcc), rather than in one document at the end. */
static bool as_text(const Args *a)
{
	return a->format == FORMAT_TEXT || a->format == FORMAT_GCC;
}

/* ---- one model -------------------------------------------------------------- */

/* A model to check, and what checking it printed. */
typedef struct Job {
	const char *path;
	nnef_model *m;     /* kept for a JSON or SARIF report */
	char *err, *out;   /* what goes to stderr and stdout (text) */
	size_t err_len, out_len;
	int status;
	bool done;
} Job;

/* A model's path in its summary line: standard input ("-") named as its
 * diagnostics name it. */
static const char *summary_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* The summary line of a model. */
static void print_summary(FILE *fp, const char *path, const nnef_model *m,
			  const nnef_options *o)
{
	path = summary_name(path);
	const nnef_diags *ds = nnef_model_diags(m);
	size_t errors = nnef_diags_errors(ds), warnings = nnef_diags_warnings(ds);
	switch (nnef_model_status(m)) {
	case NNEF_VALID:
		fprintf(fp, "%s: valid", path);
		if (warnings)
			fprintf(fp, " (%zu warning%s)", warnings, warnings == 1 ? "" : "s");
		if (!nnef_model_data_checked(m))
			fprintf(fp, "; structure only, the data was not checked (%s)", o->no_data ? "--no-data" : "a bare graph file holds none");
		fputc('\n', fp);
		break;
	case NNEF_INVALID:
		if (nnef_diags_hidden_errors(ds))
			fprintf(fp, "%s: invalid (%s%zu errors, %zu shown)\n", path, nnef_diags_incomplete(ds) ? "at least " : "", errors, errors - nnef_diags_hidden_errors(ds));
		else
			fprintf(fp, "%s: invalid (%zu error%s)\n", path, errors, errors == 1 ? "" : "s");
		break;
	case NNEF_IO_ERROR:
		fprintf(fp, "%s: unreadable\n", path);
	}
}

/* The portability reports of a valid model (printed to out as text), and
 * exit status 1 when a required target cannot express it as it is. */
static int report_ports(const nnef_model *m, const Args *a, const char *path,
			FILE *err, FILE *out)
{
	int status = 0;
	for (size_t i = 0; i < nnef_model_port_count(m); i++) {
		const nnef_port *p = nnef_model_port(m, i);
		size_t ops = nnef_port_operations(p), bad = ops - nnef_port_portable(p);
		if (as_text(a)) { /* asked for: printed under -q too */
			char *text = nnef_port_render(p);
			fputs(text ? text : "", out);
			free(text);
		}
		if (a->required[i] && (bad || nnef_port_failed(p))) {
			fprintf(err, "%s: '%s' is not portable to %s: %zu of %zu operations need rewriting (--require-target)\n", tool.prog, path, nnef_port_target(p), bad, ops);
			status = 1;
		}
	}
	return status;
}

/* Checks one model: as text, its diagnostics, summary and shapes are
 * rendered into job->err and job->out. */
static void check_one(Job *job, const Args *a, bool color)
{
	const CommonArgs *ca = &a->common;
	FILE *err = open_memstream(&job->err, &job->err_len);
	FILE *out = open_memstream(&job->out, &job->out_len);
	if (!err || !out) { /* out of memory: say so where it can be seen */
		fprintf(stderr, "%s: %s: out of memory\n", tool.prog, job->path);
		if (err)
			fclose(err);
		if (out)
			fclose(out);
		job->status = 2;
		return;
	}
	nnef_model *m = tool_load_model(err, tool.prog, job->path, &ca->opt);
	if (!m) {
		job->status = 2;
		if (as_text(a) && !ca->quiet)
			fprintf(out, "%s: unreadable\n", summary_name(job->path));
		fclose(err);
		fclose(out);
		return;
	}
	job->status = (int)nnef_model_status(m);
	if (!tool_check_input_shapes(err, tool.prog, m, ca))
		job->status = 2;
	else if (as_text(a)) {
		unsigned flags = (a->format == FORMAT_GCC ? NNEF_RENDER_GCC : NNEF_RENDER_SOURCE) | (color ? NNEF_RENDER_COLOR : 0) | (ca->quiet ? 0 : NNEF_RENDER_WARNINGS);
		char *text = nnef_diags_render(nnef_model_diags(m), tool.prog, flags);
		char *shapes = a->shapes && job->status == 0 ? nnef_model_print_shapes(m, a->shapes == SHAPES_ALL ? NNEF_PRINT_ALL_TENSORS : 0) : NULL;
		if (!text || (a->shapes && job->status == 0 && !shapes)) {
			fprintf(err, "%s: error[E0008]: '%s': out of memory while printing the results\n", tool.prog, job->path);
			job->status = 2;
		}
		fputs(text ? text : "", err);
		free(text);
		if (!ca->quiet)
			print_summary(out, job->path, m, &ca->opt);
		fputs(shapes ? shapes : "", out);
		free(shapes);
	}
	if (job->status == 0)
		job->status = report_ports(m, a, job->path, err, out);
	fclose(err);
	fclose(out);
	if (as_text(a))
		nnef_model_free(m);
	else
		job->m = m;
}

/* ---- many models, N at a time ----------------------------------------------------- */

typedef struct Pool {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	Job *jobs;
	size_t njobs;
	size_t next;       /* the next job to start */
	size_t printed;    /* jobs printed so far */
	size_t ahead;      /* jobs done but not printed, at most */
	const Args *args;
	bool color;
} Pool;

static void *worker(void *arg)
{
	Pool *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		/* keep the finished-but-unprinted output bounded */
		while (p->next < p->njobs && p->next >= p->printed + p->ahead)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->next >= p->njobs)
			break;
		Job *job = &p->jobs[p->next++];
		pthread_mutex_unlock(&p->lock);
		check_one(job, p->args, p->color);
		pthread_mutex_lock(&p->lock);
		job->done = true;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Prints a job's output: diagnostics first, as they happened. */
static void print_job(Job *job)
{
	if (job->err_len) {
		fflush(stdout);
		fwrite(job->err, 1, job->err_len, stderr);
	}
	tool_write_out(job->out, job->out_len);
	free(job->err);
	free(job->out);
	job->err = job->out = NULL;
}

/* Checks every job with a.jobs threads (the main thread prints, in
 * order, as each finishes). */
static void check_all(Job *jobs, size_t n, const Args *a, bool color)
{
	size_t nthreads = a->jobs < n ? a->jobs : n;
	Pool p = { .jobs = jobs, .njobs = n, .args = a, .color = color,
		   .ahead = 4 * nthreads };
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.changed, NULL);
	pthread_t *threads = calloc(nthreads, sizeof(*threads));
	size_t started = 0;
	while (threads && started < nthreads &&
	       pthread_create(&threads[started], NULL, worker, &p) == 0)
		started++;
	if (started == 0) /* no thread: the main thread does it all */
		p.ahead = n;
	for (size_t i = 0; i < n; i++) {
		if (started == 0) {
			check_one(&jobs[i], a, color);
		} else {
			pthread_mutex_lock(&p.lock);
			while (!jobs[i].done)
				pthread_cond_wait(&p.changed, &p.lock);
			pthread_mutex_unlock(&p.lock);
		}
		print_job(&jobs[i]);
		pthread_mutex_lock(&p.lock);
		p.printed = i + 1;
		pthread_cond_broadcast(&p.changed);
		pthread_mutex_unlock(&p.lock);
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
}

/* The JSON or SARIF document of every model: false when there was not
 * the memory to make it (said on standard error). */
static bool print_report(Job *jobs, size_t n, const Args *a)
{
	const nnef_model **models = calloc(n ? n : 1, sizeof(*models));
	size_t k = 0;
	for (size_t i = 0; models && i < n; i++)
		if (jobs[i].m)
			models[k++] = jobs[i].m;
	char *doc = !models ? NULL
		    : a->format == FORMAT_JSON ? nnef_report_json(models, k, (a->shapes ? NNEF_REPORT_SHAPES : 0) | (a->shapes == SHAPES_ALL ? NNEF_REPORT_ALL_TENSORS : 0))
					       : nnef_report_sarif(models, k, 0);
	if (doc)
		tool_write_out(doc, strlen(doc));
	else
		fprintf(stderr, "%s: error[E0008]: out of memory while writing the report\n", tool.prog);
	free(doc);
	free(models);
	return doc != NULL;
}

static int run(int argc, char **argv, Args *a)
{
	int first, st = tool_parse_args(&tool, argc, argv, &a->common, set_option, a, &first);
	if (st >= 0)
		return st;
	if (first >= argc)
		return tool_usage_error(&tool, "no model given");
	a->common.opt.targets = a->targets;
	a->common.opt.n_targets = a->ntargets;
	size_t n = (size_t)(argc - first);
	Job *jobs = calloc(n, sizeof(*jobs));
	if (!jobs)
		return tool_usage_error(&tool, "out of memory");
	size_t dashes = 0;
	for (size_t i = 0; i < n; i++) {
		jobs[i].path = argv[first + (int)i];
		dashes += strcmp(jobs[i].path, "-") == 0;
	}
	if (dashes > 1) {
		free(jobs);
		return tool_usage_error(&tool, "standard input ('-') can be read once");
	}
	check_all(jobs, n, a, tool_use_color(a->common.color, stderr));
	bool report_ok = as_text(a) || print_report(jobs, n, a);
	int status = report_ok ? 0 : 2;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].status > status)
			status = jobs[i].status;
		nnef_model_free(jobs[i].m);
	}
	free(jobs);
	return status;
}

int main(int argc, char **argv)
{
	Args a = { .jobs = 1 };
	tool_common_init(&a.common);
	int status = run(argc, argv, &a);
	tool_common_free(&a.common);
	free(a.targets);
	free(a.required);
	return tool_finish(tool.prog, status);
}
