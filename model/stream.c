/*
 * stream.c - checking a document in one pass: each statement of the
 * graph's body is parsed, type-checked, flattened (with its shapes) and
 * dropped before the next is read, so that a flat graph of a million
 * operations is never held as a syntax tree as well.
 *
 * The one pass is taken first; it stops at the first diagnostic of any
 * kind, and also when an identifier of the graph turns out to be a name
 * already given to a tensor of an earlier expansion (the whole pass
 * reserves every identifier before naming anything). Then the model is
 * checked again, whole (model.c), which gives the diagnostics exactly as
 * it always has: a valid model costs one pass, an invalid one at most
 * two.
 */
#include "model/model_internal.h"

#include <string.h>

typedef struct Streamer {
	Model *m;
	const ModelOptions *opt;
	SemaOptions so;
	FlattenOptions fo;
	size_t before;       /* diag_count at the start */
	SemaGraph *sg;       /* between begin and the end of the pass */
	FlatStream *fs;
	ParseResult res;
	FlatGraph *g;        /* the graph, when the pass succeeded */
} Streamer;

static bool quiet(const Streamer *st)
{
	return diag_count(&st->m->diags) == st->before;
}

/* The document up to the graph's body has been read and checked. */
static bool on_begin(void *ctx, const ParseResult *so_far)
{
	Streamer *st = ctx;
	Model *m = st->m;
	if (!so_far->doc->graph)
		return false;
	model_libraries(m, &st->so);
	st->sg = sema_begin(&m->prog, so_far->doc, m->stdlib.doc, &m->arena,
			    &m->interner, &m->diags, &st->so);
	m->checked = true; /* m->prog is to be freed */
	if (!quiet(st))
		return false;
	st->fs = flatten_begin(&m->prog, &m->arena, &m->interner, &m->diags,
			       &st->fo);
	return true;
}

static bool on_stmt(void *ctx, AstAssign *s, Arena *scratch)
{
	Streamer *st = ctx;
	sema_stmt(st->sg, s, scratch);
	return quiet(st) && flatten_stmt(st->fs, s) && quiet(st);
}

/* The pass: the parse drives on_begin and on_stmt; then what must hold at
 * the end of the body, and the flat graph, kept only when nothing at all
 * was reported. */
static void pass(Streamer *st)
{
	Model *m = st->m;
	ParseStream stream = { on_begin, on_stmt, st };
	ParseOptions po = { .lenient = st->opt->lenient,
			  .max_nesting = st->opt->max_nesting };
	st->res = parse_document_streamed(m->graph_src, &po, &m->arena,
					  &m->interner, &m->diags, &stream);
	bool ok = st->res.streamed && st->res.syntax_ok && quiet(st);
	if (st->sg)
		ok = sema_end(st->sg) && ok && quiet(st);
	if (st->fs) {
		FlatGraph *g = flatten_end(st->fs);
		if (ok && quiet(st))
			st->g = g;
	}
}

bool model_check_streamed(Model *m, const ModelOptions *opt)
{
	Streamer st;
	memset(&st, 0, sizeof(st));
	st.m = m;
	st.opt = opt;
	st.so.lenient = opt->lenient;
	st.fo = opt->flatten;
	if (!st.fo.max_depth)
		st.fo.max_depth = FLATTEN_DEFAULT_MAX_DEPTH;
	st.before = diag_count(&m->diags);
	DiagMark mark = diag_mark(&m->diags);
	/* on this thread: an expansion deeper than its stack allows is
	 * E0806 here, and the whole check that follows (model.c) runs the
	 * evaluator on a deep stack */
	pass(&st);
	if (st.g) {
		m->parse = st.res;
		m->flat = st.g;
		return true;
	}
	/* forget the pass: its memory, its names, what it reported */
	if (m->checked)
		sema_free(&m->prog);
	m->checked = false;
	memset(&m->parse, 0, sizeof(m->parse));
	memset(&m->stdlib, 0, sizeof(m->stdlib));
	intern_free(&m->interner);
	arena_free(&m->arena);
	arena_init(&m->arena);
	intern_init(&m->interner, &m->arena);
	diag_rewind(&m->diags, mark);
	return false;
}
