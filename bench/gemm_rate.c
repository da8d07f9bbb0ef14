/*
 * gemm_rate.c - the GEMM throughput of a model's convolutions beside a
 * plain GEMM of the same shapes, for bench/bench.sh. Runs the model once
 * through nnef.h as `nnef-run MODEL --random-weights --random uniform
 * --seed 1 --profile` does, then times, for each conv and deconv of the
 * profile, a plain sgemm (dgemm with --double) of its shapes: M x K by
 * K x N, once per batch item and group. Prints one line:
 *
 *   conv and deconv: F GFLOP in S s, R GFLOP/s; a plain sgemm of the
 *   same shapes: P GFLOP/s (conv at X% of it)
 *
 * (on one line), F counting 2 M N K per GEMM; nothing when the model has
 * no convolution. Exit status: 0, or 1 when the model cannot run.
 * Usage: gemm_rate MODEL [--double]
 */
#include "api/nnef.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct GemmWork {
	size_t convs;
	double flops;
	double conv_seconds;
	double gemm_seconds;
} GemmWork;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const nnef_tensor_info *tensor_of(const nnef_value *v)
{
	return v && nnef_value_kind_of(v) == NNEF_VALUE_TENSOR ? nnef_value_tensor(v) : NULL;
}

static int64_t dim(const nnef_tensor_info *t, size_t i)
{
	return i < nnef_tensor_info_rank(t) ? nnef_tensor_info_dim(t, i) : 1;
}

static int64_t volume(const nnef_tensor_info *t, size_t from)
{
	int64_t v = 1;
	for (size_t i = from; i < nnef_tensor_info_rank(t); i++)
		v *= nnef_tensor_info_dim(t, i);
	return v;
}

/* The GEMM shapes of conv or deconv op: `count` products of M x K by
 * K x N (the im2col form nnef-run computes them in). False when an
 * operand is not a tensor. */
static bool gemm_shape(const nnef_op *op, bool reverse, int64_t *M,
		       int64_t *N, int64_t *K, int64_t *count)
{
	const nnef_tensor_info *in = tensor_of(nnef_op_arg(op, 0));
	const nnef_tensor_info *filter = tensor_of(nnef_op_arg(op, 1));
	const nnef_tensor_info *out = tensor_of(nnef_op_result(op, 0));
	int64_t groups = 1;
	for (size_t i = 0; i < nnef_op_arg_count(op); i++)
		if (strcmp(nnef_op_arg_name(op, i), "groups") == 0)
			groups = nnef_value_integer(nnef_op_arg(op, i));
	if (!in || !filter || !out)
		return false;
	const nnef_tensor_info *down = reverse ? in : out;
	int64_t fvol = volume(filter, 2);
	int64_t B = dim(in, 0), C = dim(in, 1);
	int64_t G = groups ? groups : C;
	int64_t xvol = volume(down, 0) / (dim(down, 0) * dim(down, 1));
	int64_t small = (reverse ? C : dim(out, 1)) / G;
	int64_t large = (reverse ? dim(out, 1) : C) / G * fvol;
	*M = reverse ? large : small;
	*K = reverse ? small : large;
	*N = xvol;
	*count = B * G;
	return true;
}

/* Seconds of `count` plain products of M x K by K x N. Negative when
 * the matrices cannot be allocated. */
static double time_gemm(int64_t M, int64_t N, int64_t K, int64_t count,
			bool dbl)
{
	size_t es = dbl ? sizeof(double) : sizeof(float);
	void *a = calloc((size_t)(M * K), es), *b = calloc((size_t)(K * N), es);
	void *c = calloc((size_t)(M * N), es);
	double t = -1;
	if (a && b && c && dbl) {
		for (int64_t k = 0; k < M * K; k++)
			((double *)a)[k] = (double)((k % 7) - 3) * 0.1;
		for (int64_t k = 0; k < K * N; k++)
			((double *)b)[k] = (double)((k % 5) - 2) * 0.1;
		double t0 = now();
		for (int64_t r = 0; r < count; r++)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0, a, (int)K, b, (int)N, 0.0, c, (int)N);
		t = now() - t0;
	} else if (a && b && c) {
		for (int64_t k = 0; k < M * K; k++)
			((float *)a)[k] = (float)((k % 7) - 3) * 0.1f;
		for (int64_t k = 0; k < K * N; k++)
			((float *)b)[k] = (float)((k % 5) - 2) * 0.1f;
		double t0 = now();
		for (int64_t r = 0; r < count; r++)
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, a, (int)K, b, (int)N, 0.0f, c, (int)N);
		t = now() - t0;
	}
	free(a);
	free(b);
	free(c);
	return t;
}

/* The conv and deconv operations of r's last profiled run. */
static void measure(const nnef_runner *r, bool dbl, GemmWork *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < nnef_runner_profile_count(r); i++) {
		double seconds = 0;
		const nnef_op *op = nnef_runner_profile_op(r, i, &seconds);
		const char *name = nnef_op_name(op);
		bool conv = strcmp(name, "conv") == 0, deconv = strcmp(name, "deconv") == 0;
		int64_t M, N, K, count;
		if (!nnef_op_is_primitive(op) || !(conv || deconv) ||
		    !gemm_shape(op, deconv, &M, &N, &K, &count))
			continue;
		double t = time_gemm(M, N, K, count, dbl);
		if (t < 0)
			continue;
		w->gemm_seconds += t;
		w->convs++;
		w->flops += 2.0 * (double)M * (double)N * (double)K * (double)count;
		w->conv_seconds += seconds;
	}
}

static void print_diags(const nnef_diags *ds)
{
	char *text = nnef_diags_render(ds, "gemm_rate", 0);
	if (text)
		fputs(text, stderr);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--double") != 0)) {
		fprintf(stderr, "usage: gemm_rate MODEL [--double]\n");
		return 2;
	}
	bool dbl = argc == 3;
	nnef_options o;
	nnef_options_init(&o);
	o.missing_data_ok = true;
	nnef_model *m = nnef_model_load(argv[1], &o);
	if (!m || nnef_model_status(m) != NNEF_VALID) {
		if (m)
			print_diags(nnef_model_diags(m));
		nnef_model_free(m);
		return 1;
	}
	nnef_run_options ro;
	nnef_run_options_init(&ro);
	ro.double_precision = dbl;
	ro.random_weights = true;
	ro.seed = 1;
	ro.profile = true;
	nnef_diags *ds = nnef_diags_new();
	nnef_runner *r = ds ? nnef_runner_new(m, &ro, ds) : NULL;
	for (size_t i = 0; r && i < nnef_runner_input_count(r); i++)
		nnef_runner_random_input(r, i, NNEF_UNIFORM, 1);
	int status = 1;
	if (r && nnef_runner_run(r)) {
		GemmWork w;
		measure(r, dbl, &w);
		if (w.convs && w.conv_seconds > 0 && w.gemm_seconds > 0)
			printf("conv and deconv: %.3f GFLOP in %.6f s, %.1f GFLOP/s; a plain %s of the same shapes: %.1f GFLOP/s (conv at %.0f%% of it)\n", w.flops * 1e-9, w.conv_seconds, w.flops * 1e-9 / w.conv_seconds, dbl ? "dgemm" : "sgemm", w.flops * 1e-9 / w.gemm_seconds, 100 * w.gemm_seconds / w.conv_seconds);
		status = 0;
	}
	if (ds)
		print_diags(ds);
	nnef_runner_free(r);
	nnef_diags_free(ds);
	nnef_model_free(m);
	return status;
}
