/*
 * fuzz_parse.c - libFuzzer target: any byte sequence goes through the
 * scanner, the parser, the checks after parsing and the rendering of the
 * diagnostics, which must never crash, hang, leak or read out of bounds.
 * Build and run with `make fuzz` (clang; FUZZ_SECONDS=60 by default).
 */
#include "grammar/parse.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	DiagList dl;
	diag_list_init(&dl, 20);
	SourceFile *f = source_from_memory("fuzz.nnef", (const char *)data,
					   size);
	parse_document(f, PARSE_DOCUMENT, false, &a, &in, &dl);
	diag_sort(&dl);
	StrBuf out;
	sb_init(&out);
	DiagRenderOpts o = { .color = true, .show_warnings = true,
			     .show_source = true };
	diag_render_all(&dl, &out, &o);
	sb_free(&out);
	source_free(f);
	diag_list_free(&dl);
	intern_free(&in);
	arena_free(&a);
	return 0;
}
