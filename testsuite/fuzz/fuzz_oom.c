/*
 * fuzz_oom.c - libFuzzer target: a document checked, rendered and
 * printed through nnef.h with one allocation made to fail. The first byte
 * b picks which (the (b*b/16)th: small numbers densely, up to about 4000),
 * the rest is the document. Whatever the document and wherever the
 * failure, the entry points must return cleanly: a model that is valid,
 * invalid, or unreadable with the one diagnostic E0008; no crash, leak or
 * use of freed memory (ASan, LSan, UBSan).
 * Build and run with `make fuzz-oom` (clang).
 */
#include "api/nnef.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has_oom(const nnef_diags *ds)
{
	for (size_t i = 0; i < nnef_diags_count(ds); i++)
		if (strcmp(nnef_diag_code(nnef_diags_get(ds, i)), "E0008") == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	nnef_options o;
	nnef_options_init(&o);
	o.max_depth = 200; /* deliberate recursions stay quick */
	util_fail_after((long)data[0] * data[0] / 16);
	nnef_model *m = nnef_model_load_text("fuzz.nnef", (const char *)data + 1, size - 1, &o);
	if (m) {
		const nnef_diags *ds = nnef_model_diags(m);
		if (has_oom(ds) && (nnef_model_status(m) != NNEF_IO_ERROR || nnef_diags_count(ds) != 1))
			abort(); /* an out-of-memory model holds that one diagnostic */
		if (!has_oom(ds) && nnef_model_status(m) == NNEF_IO_ERROR)
			abort(); /* a text cannot be unreadable otherwise */
		free(nnef_diags_render(ds, "fuzz", NNEF_RENDER_WARNINGS | NNEF_RENDER_SOURCE));
		free(nnef_model_print_flat(m, NNEF_PRINT_SHAPES));
		const nnef_model *ms[] = { m };
		free(nnef_report_json(ms, 1, NNEF_REPORT_SHAPES));
	}
	nnef_model_free(m);
	util_fail_after(-1);
	return 0;
}
