/*
 * fuzz_parse.c - libFuzzer target: any byte sequence goes through the
 * whole checking pipeline (scanner, parser, checks after parsing,
 * semantic analysis, flattening) and the rendering of its diagnostics,
 * which must never crash, hang, leak or read out of bounds.
 * Build and run with `make fuzz` (clang; FUZZ_SECONDS=60 by default).
 */
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One check, strict or --lenient (which accepts vendor constructs and
 * declares vendor operations by their first calls). */
static void check(const uint8_t *data, size_t size, bool lenient)
{
	Model m;
	/* a small depth limit keeps deliberate recursions quick */
	ModelOptions opt = { .max_errors = 20, .flatten.max_depth = 200,
			     .lenient = lenient };
	model_check_text(&m, "fuzz.nnef", (const char *)data, size, &opt);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "fuzz", &out, true, true);
	if (m.flat)
		flat_print(&out, m.flat, false);
	sb_free(&out);
	model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, false);
	check(data, size, true);
	return 0;
}
