/*
 * fuzz_parse.c - libFuzzer target: any byte sequence goes through the
 * whole checking pipeline (scanner, parser, checks after parsing,
 * semantic analysis, flattening) and the rendering of its diagnostics,
 * which must never crash, hang, leak or read out of bounds, in Khronos
 * NNEF (strict and --lenient) and in tract's dialect; a valid one
 * also through a portability report. The scanner reads it three times,
 * with the flex tables, by hand and in runs up to each ';' (lex_run), and
 * must give the same tokens and diagnostics each way.
 * Build and run with `make fuzz` (clang; FUZZ_SECONDS=60 by default).
 */
#include "api/nnef.h"
#include "lexer/lexer.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One check, strict or --lenient (which accepts vendor constructs and
 * declares vendor operations by their first calls), in Khronos NNEF or
 * tract's dialect, its one pass on one thread or with the parser on a
 * thread of its own. */
static void check(const uint8_t *data, size_t size, bool lenient,
		  Dialect dialect, ModelThreads threads)
{
	Model m;
	/* a small depth limit keeps deliberate recursions quick */
	ModelOptions opt = { .max_errors = 20, .flatten.max_depth = 200,
			     .lenient = lenient, .dialect = dialect,
			     .threads = threads };
	model_check_text(&m, "fuzz.nnef", (const char *)data, size, &opt);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "fuzz", &out, true, true);
	if (m.flat)
		flat_print(&out, m.flat, false);
	sb_free(&out);
	model_free(&m);
}

static bool same_token(const Token *a, const Token *b)
{
	if (a->kind != b->kind || a->loc.off != b->loc.off ||
	    a->loc.len != b->loc.len || a->int_min != b->int_min ||
	    a->quoted != b->quoted)
		return false;
	switch (a->kind) {
	case TK_IDENT:
		return strcmp(a->v.ident, b->v.ident) == 0;
	case TK_INT:
		return a->v.i == b->v.i;
	case TK_REAL:
		return memcmp(&a->v.r, &b->v.r, sizeof(double)) == 0;
	case TK_STRING:
		return a->v.str.len == b->v.str.len &&
		       memcmp(a->v.str.s, b->v.str.s, a->v.str.len) == 0;
	default:
		return true;
	}
}

/* The next token of lx read in runs of at most 3 (buf, *n of them, *at
 * the next), lex_next where a run stops short. */
static void run_token(Lexer *lx, Token *buf, size_t *n, size_t *at, Token *t)
{
	if (*at == *n) {
		*n = lex_run(lx, buf, 3);
		*at = 0;
	}
	if (*at < *n)
		*t = buf[(*at)++];
	else
		lex_next(lx, t);
}

/* The tokens read with the flex tables [0], by hand [1] and in runs [2]
 * are the same, and so are the diagnostics: else the fuzzer stops on
 * this input. */
static void same_tokens(const uint8_t *data, size_t size)
{
	SourceFile *src = source_from_memory("fuzz.nnef", (const char *)data, size);
	Arena a[3];
	Interner in[3];
	DiagList d[3];
	Lexer *lx[3];
	for (int k = 0; k < 3; k++) {
		arena_init(&a[k]);
		intern_init(&in[k], &a[k]);
		diag_list_init(&d[k], 0);
		lx[k] = lex_new(src, &a[k], &in[k], &d[k]);
		lex_set_quick(lx[k], k > 0);
	}
	Token buf[3];
	size_t n = 0, at = 0;
	for (Token t[3] = { { .kind = TK_ERROR } }; t[0].kind != TK_EOF;) {
		lex_next(lx[0], &t[0]);
		lex_next(lx[1], &t[1]);
		run_token(lx[2], buf, &n, &at, &t[2]);
		if (!same_token(&t[0], &t[1]) || !same_token(&t[0], &t[2]))
			abort();
	}
	for (int k = 1; k < 3; k++) {
		if (d[0].len != d[k].len)
			abort();
		for (size_t i = 0; i < d[0].len; i++)
			if (d[0].items[i]->code != d[k].items[i]->code ||
			    d[0].items[i]->loc.off != d[k].items[i]->loc.off ||
			    strcmp(d[0].items[i]->msg, d[k].items[i]->msg) != 0)
				abort();
	}
	for (int k = 0; k < 3; k++) {
		lex_free(lx[k]);
		diag_list_free(&d[k]);
		intern_free(&in[k]);
		arena_free(&a[k]);
	}
	source_free(src);
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
	same_tokens(data, size);
	check(data, size, false, DIALECT_KHRONOS, MODEL_THREADS_TWO);
	check(data, size, true, DIALECT_KHRONOS, MODEL_THREADS_ONE);
	check(data, size, false, DIALECT_TRACT, MODEL_THREADS_ONE);
	port(data, size);
	return 0;
}
