/*
 * diags.c - nnef_diags: reading and rendering a list of diagnostics.
 */
#include "api/api_internal.h"

#include <stdlib.h>
#include <string.h>

/* The list, empty, with its memory in its own heap. */
static void init_own(nnef_diags *ds)
{
	UtilHeap *caller = util_heap_use(&ds->heap);
	diag_list_init(&ds->own, MODEL_COLLECT_LIMIT);
	util_heap_use(caller);
}

nnef_diags *nnef_diags_new(void)
{
	nnef_diags *ds = calloc(1, sizeof(*ds));
	if (!ds)
		return NULL;
	util_heap_init(&ds->heap);
	init_own(ds);
	ds->dl = &ds->own;
	return ds;
}

void nnef_diags_free(nnef_diags *ds)
{
	if (!ds)
		return;
	util_heap_release(&ds->heap);
	free(ds);
}

void nnef_diags_clear(nnef_diags *ds)
{
	if (ds->dl != &ds->own)
		return;
	util_heap_release(&ds->heap);
	init_own(ds);
}

bool api_in_temp_heap(void (*fn)(void *ctx), void *ctx)
{
	UtilHeap tmp;
	util_heap_init(&tmp);
	UtilRecover rec;
	util_recover_push(&rec, &tmp);
	if (setjmp(rec.jb)) {
		util_heap_release(&tmp);
		return false;
	}
	fn(ctx);
	util_recover_pop(&rec);
	util_heap_release(&tmp);
	return true;
}

typedef struct Printing {
	void (*print)(StrBuf *out, const void *ctx);
	const void *ctx;
	char *text;
} Printing;

static void print_text(void *arg)
{
	Printing *p = arg;
	StrBuf out;
	sb_init(&out);
	p->print(&out, p->ctx);
	p->text = strdup(sb_str(&out)); /* the last allocation */
}

char *api_print(void (*print)(StrBuf *out, const void *ctx), const void *ctx)
{
	Printing p = { print, ctx, NULL };
	return api_in_temp_heap(print_text, &p) ? p.text : NULL;
}

typedef struct OutOfMemory {
	nnef_diags *ds;
	const char *doing;
} OutOfMemory;

static void add_out_of_memory(void *arg)
{
	OutOfMemory *o = arg;
	diag_add(o->ds->dl, DIAG_E0008, loc_make(NULL, 0, 0), "out of memory while %s", o->doing);
	diag_sort(o->ds->dl);
}

void api_out_of_memory(nnef_diags *ds, const char *doing)
{
	OutOfMemory o = { ds, doing };
	api_in_temp_heap(add_out_of_memory, &o); /* false: not even that */
}

void api_diags_sort(nnef_diags *ds)
{
	diag_sort(ds->dl);
}

/* Errors listed: at most max_shown of those collected. */
static size_t shown_errors(const nnef_diags *ds)
{
	size_t n = ds->dl->nerrors;
	return ds->max_shown && n > ds->max_shown ? ds->max_shown : n;
}

size_t nnef_diags_count(const nnef_diags *ds)
{
	size_t shown = shown_errors(ds), errors = 0, i = 0;
	for (; i < ds->dl->len; i++)
		if (ds->dl->items[i]->level == DIAG_ERROR && errors++ == shown)
			break; /* the sorted list is cut after the last shown */
	return i;
}

const nnef_diag *nnef_diags_get(const nnef_diags *ds, size_t i)
{
	return i < ds->dl->len ? (const nnef_diag *)(const void *)ds->dl->items[i] : NULL;
}

size_t nnef_diags_errors(const nnef_diags *ds)
{
	return ds->dl->nerrors + ds->dl->dropped_errors;
}

size_t nnef_diags_warnings(const nnef_diags *ds)
{
	return ds->dl->nwarnings + ds->dl->dropped_warnings;
}

size_t nnef_diags_hidden_errors(const nnef_diags *ds)
{
	return nnef_diags_errors(ds) - shown_errors(ds);
}

bool nnef_diags_incomplete(const nnef_diags *ds)
{
	return ds->dl->dropped_errors != 0;
}

static const Diag *D(const nnef_diag *d)
{
	return (const Diag *)(const void *)d;
}

nnef_level nnef_diag_level(const nnef_diag *d)
{
	switch (D(d)->level) {
	case DIAG_ERROR:
		return NNEF_ERROR;
	case DIAG_WARNING:
		return NNEF_WARNING;
	case DIAG_NOTE:
		return NNEF_NOTE;
	}
	return NNEF_NOTE; /* not reached: every level is a case */
}

const char *nnef_diag_code(const nnef_diag *d)
{
	return diag_code_name(D(d)->code);
}

const char *nnef_diag_summary(const nnef_diag *d)
{
	return diag_code_summary(D(d)->code);
}

const char *nnef_diag_message(const nnef_diag *d)
{
	return D(d)->msg;
}

const char *nnef_diag_hint(const nnef_diag *d)
{
	return D(d)->hint;
}

nnef_location api_location(Loc l)
{
	nnef_location r = { 0 };
	if (!l.file)
		return r;
	r.file = l.file->path;
	source_linecol(l.file, l.off, &r.line, &r.column);
	source_linecol(l.file, (size_t)l.off + l.len, &r.end_line, &r.end_column);
	return r;
}

nnef_location nnef_diag_location(const nnef_diag *d)
{
	return api_location(D(d)->loc);
}

const char *nnef_diag_file(const nnef_diag *d)
{
	return D(d)->loc.file ? D(d)->loc.file->path : D(d)->path;
}

size_t nnef_diag_note_count(const nnef_diag *d)
{
	return D(d)->nnotes;
}

const char *nnef_diag_note_message(const nnef_diag *d, size_t i)
{
	return i < D(d)->nnotes ? D(d)->notes[i].msg : NULL;
}

nnef_location nnef_diag_note_location(const nnef_diag *d, size_t i)
{
	nnef_location none = { 0 };
	return i < D(d)->nnotes ? api_location(D(d)->notes[i].at) : none;
}

typedef struct Rendering {
	const nnef_diags *ds;
	const char *prog;
	DiagRenderOpts o;
	bool gcc;          /* NNEF_RENDER_GCC: o.show_warnings only */
} Rendering;

/* One diagnostic as the tools print it. */
static void render_one(StrBuf *out, const Rendering *r, const Diag *d)
{
	if (r->gcc) {
		diag_render_gcc(d, out, r->prog);
		return;
	}
	if (!d->loc.file)
		sb_printf(out, "%s: ", r->prog);
	diag_render(d, out, &r->o);
}

static void render(StrBuf *out, const void *ctx)
{
	const Rendering *r = ctx;
	size_t n = nnef_diags_count(r->ds);
	for (size_t i = 0; i < n; i++) {
		const Diag *d = r->ds->dl->items[i];
		if (d->level == DIAG_ERROR || r->o.show_warnings)
			render_one(out, r, d);
	}
	size_t more = nnef_diags_hidden_errors(r->ds);
	if (more)
		sb_printf(out, "%s: %s%s%zu more error%s not shown (raise the limit with --max-errors)\n", r->prog, r->gcc ? "note: " : "", nnef_diags_incomplete(r->ds) ? "at least " : "", more, more == 1 ? "" : "s");
}

char *nnef_diags_render(const nnef_diags *ds, const char *prog,
			unsigned flags)
{
	Rendering r = { ds, prog,
			{ .color = flags & NNEF_RENDER_COLOR,
			  .show_warnings = flags & NNEF_RENDER_WARNINGS,
			  .show_source = flags & NNEF_RENDER_SOURCE },
			flags & NNEF_RENDER_GCC };
	return api_print(render, &r);
}

typedef struct RenderingOne {
	Rendering r;
	const Diag *d;
} RenderingOne;

static void render_single(StrBuf *out, const void *ctx)
{
	const RenderingOne *one = ctx;
	render_one(out, &one->r, one->d);
}

char *nnef_diag_render(const nnef_diag *d, const char *prog, unsigned flags)
{
	RenderingOne one = { { NULL, prog,
			       { .color = flags & NNEF_RENDER_COLOR,
				 .show_warnings = true,
				 .show_source = flags & NNEF_RENDER_SOURCE },
			       flags & NNEF_RENDER_GCC },
			     D(d) };
	return api_print(render_single, &one);
}
