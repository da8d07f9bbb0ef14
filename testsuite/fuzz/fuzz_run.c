/*
 * fuzz_run.c - libFuzzer target: any byte sequence that checks as a
 * valid model is run by the interpreter (generated weights and inputs, in
 * float and in double), which must never crash, hang, leak or read out of
 * bounds, whatever the shapes and attributes. Graphs whose tensors hold
 * more than a million items in all are skipped, to keep runs quick.
 * Build and run with `make fuzz-run` (clang; FUZZ_SECONDS=60 by default).
 */
#include "api/api_internal.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool small(const FlatGraph *g)
{
	double items = 0;
	for (size_t i = 0; i < g->ntensors; i++) {
		const FlatTensor *s = flat_tensor(g, i);
		double v = 1;
		for (uint32_t d = 0; d < s->rank; d++)
			v *= (double)s->dims[d];
		items += v;
	}
	return items <= 1e6;
}

static void run(const Model *m, InterpPrecision p)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	InterpOptions io = { .precision = p };
	Interp *it = api_interp_new(m, &io, &dl);
	if (it && interp_load_variables(it, true, 1)) {
		for (size_t i = 0; i < interp_ninputs(it); i++)
			interp_random_input(it, i, INTERP_NORMAL, 2);
		interp_run(it);
		interp_run(it); /* a second cycle: variables updated */
	}
	interp_free(it);
	diag_list_free(&dl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Model m;
	ModelOptions opt = { .max_errors = 20, .flatten.max_depth = 200 };
	model_check_text(&m, "fuzz.nnef", (const char *)data, size, &opt);
	if (m.status == MODEL_VALID && m.flat && small(m.flat)) {
		run(&m, INTERP_FLOAT);
		run(&m, INTERP_DOUBLE);
	}
	model_free(&m);
	return 0;
}
