/*
 * fuzz_parse.c - libFuzzer target: any byte sequence goes through the
 * whole checking pipeline (scanner, parser, checks after parsing,
 * semantic analysis, flattening) and the rendering of its diagnostics,
 * which must never crash, hang, leak or read out of bounds; a valid one
 * also through a portability report.
 * Build and run with `make fuzz` (clang; FUZZ_SECONDS=60 by default).
 */
#include "api/nnef.h"
#include "model/model.h"

#include <stdlib.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One check, strict or --lenient (which accepts vendor constructs and
 * declares vendor operations by their first calls), its one pass on one
 * thread or with the parser on a thread of its own. */
static void check(const uint8_t *data, size_t size, bool lenient,
		  ModelThreads threads)
{
	Model m;
	/* a small depth limit keeps deliberate recursions quick */
	ModelOptions opt = { .max_errors = 20, .flatten.max_depth = 200,
			     .lenient = lenient, .threads = threads };
	model_check_text(&m, "fuzz.nnef", (const char *)data, size, &opt);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "fuzz", &out, true, true);
	if (m.flat)
		flat_print(&out, m.flat, false);
	sb_free(&out);
	model_free(&m);
}

/* The portability report of a valid (--lenient) document to one target,
 * chosen by the input's size, through nnef.h. */
static void port(const uint8_t *data, size_t size)
{
	static const char *const targets[] = { "openvx", "openvino", "coreml", "onnx:7", "onnx:13" };
	nnef_options o;
	nnef_options_init(&o);
	o.lenient = true;
	o.max_depth = 200;
	o.targets = &targets[size % 5];
	o.n_targets = 1;
	nnef_model *m = nnef_model_load_text("fuzz.nnef", (const char *)data, size, &o);
	for (size_t i = 0; m && i < nnef_model_port_count(m); i++)
		free(nnef_port_render(nnef_model_port(m, i)));
	if (m)
		free(nnef_report_json((const nnef_model *const *)&m, 1, 0));
	nnef_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, false, MODEL_THREADS_TWO);
	check(data, size, true, MODEL_THREADS_ONE);
	port(data, size);
	return 0;
}
