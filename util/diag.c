/*
 * diag.c - recording, ordering and rendering diagnostics.
 *
 * Rendering format (colors only when opts->color):
 *
 *   path:line:col: error[E0202]: message
 *    12 |     y = relu(x)
 *       |                ^~~
 *       = hint: text
 *   path:line:col: note: text
 *
 * As GCC writes it (diag_render_gcc), one line each, no colors:
 *
 *   path:line:col: error: message [E0202]
 *   path:line:col: note: text
 *
 * The caret line copies the tabs of the source line so the caret lines up
 * under the span whatever the terminal's tab width.
 */
#include "util/diag.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	DiagLevel level;
	const char *summary;
} code_table[] = {
#define DIAG_CODE(id, lvl, summary) { #id, DIAG_##lvl, summary },
#include "util/diag_codes.def"
#undef DIAG_CODE
};

_Static_assert(UTIL_ARRAY_LEN(code_table) == DIAG_CODE_COUNT,
	       "diag code table out of sync");

const char *diag_code_name(DiagCode code)
{
	return code_table[code].name;
}

const char *diag_code_summary(DiagCode code)
{
	return code_table[code].summary;
}

DiagLevel diag_code_level(DiagCode code)
{
	return code_table[code].level;
}

void diag_list_init(DiagList *dl, size_t max_errors)
{
	memset(dl, 0, sizeof(*dl));
	dl->heap = util_heap_current();
	arena_init(&dl->arena);
	dl->max_errors = max_errors;
}

void diag_list_free(DiagList *dl)
{
	util_free(dl->items);
	arena_free(&dl->arena);
	memset(dl, 0, sizeof(*dl));
}

bool diag_limit_reached(const DiagList *dl)
{
	return dl->max_errors && dl->nerrors >= dl->max_errors;
}

bool diag_code_unreadable(DiagCode code)
{
	return code <= DIAG_E0008 && code != DIAG_E0005 && code != DIAG_E0006;
}

size_t diag_count(const DiagList *dl)
{
	return dl->len + dl->dropped_errors + dl->dropped_warnings;
}

DiagMark diag_mark(const DiagList *dl)
{
	DiagMark m = { dl->len, dl->nerrors, dl->nwarnings,
		       dl->dropped_errors, dl->dropped_warnings };
	return m;
}

void diag_rewind(DiagList *dl, DiagMark mark)
{
	dl->len = mark.len;
	dl->nerrors = mark.nerrors;
	dl->nwarnings = mark.nwarnings;
	dl->dropped_errors = mark.dropped_errors;
	dl->dropped_warnings = mark.dropped_warnings;
}

Diag *diag_vadd(DiagList *dl, DiagLevel level, DiagCode code, Loc loc,
		const char *fmt, va_list ap)
{
	/* Warnings are bounded too, so that a document repeating the same
	 * harmless deviation cannot make the list grow without limit. */
	size_t warn_cap = dl->max_errors ? dl->max_errors : 1000;
	if (level == DIAG_ERROR && diag_limit_reached(dl)) {
		dl->dropped_errors++;
		return NULL;
	}
	if (level == DIAG_WARNING && dl->nwarnings >= warn_cap) {
		dl->dropped_warnings++;
		return NULL;
	}
	/* the list's memory is the list's heap's, whoever adds to it; the
	 * counts change only once the allocations succeeded */
	UtilHeap *caller = util_heap_use(dl->heap);
	Diag *d = ARENA_NEW(&dl->arena, Diag);
	d->level = level;
	d->code = code;
	d->loc = loc;
	d->msg = arena_vprintf(&dl->arena, fmt, ap);
	d->seq = dl->len;
	ARRAY_RESERVE(dl->items, dl->len, dl->cap, 16);
	util_heap_use(caller);
	dl->items[dl->len++] = d;
	if (level == DIAG_ERROR)
		dl->nerrors++;
	else if (level == DIAG_WARNING)
		dl->nwarnings++;
	return d;
}

Diag *diag_add(DiagList *dl, DiagCode code, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(dl, diag_code_level(code), code, loc, fmt, ap);
	va_end(ap);
	return d;
}

Diag *diag_add_level(DiagList *dl, DiagLevel level, DiagCode code, Loc loc,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_vadd(dl, level, code, loc, fmt, ap);
	va_end(ap);
	return d;
}

void diag_hint(DiagList *dl, Diag *d, const char *fmt, ...)
{
	if (!d)
		return;
	va_list ap;
	va_start(ap, fmt);
	UtilHeap *caller = util_heap_use(dl->heap);
	d->hint = arena_vprintf(&dl->arena, fmt, ap);
	util_heap_use(caller);
	va_end(ap);
}

void diag_note(DiagList *dl, Diag *d, Loc loc, bool show_source,
	       const char *fmt, ...)
{
	if (!d)
		return;
	UtilHeap *caller = util_heap_use(dl->heap);
	if (d->nnotes == d->capnotes) {
		size_t cap = d->capnotes ? d->capnotes * 2 : 4;
		DiagNote *notes = ARENA_ARRAY(&dl->arena, DiagNote, cap);
		if (d->nnotes)
			memcpy(notes, d->notes, d->nnotes * sizeof(*notes));
		d->notes = notes;
		d->capnotes = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	const char *msg = arena_vprintf(&dl->arena, fmt, ap);
	va_end(ap);
	util_heap_use(caller);
	DiagNote *n = &d->notes[d->nnotes++];
	n->loc = loc;
	n->at = loc;
	n->show_source = show_source;
	n->msg = msg;
}

void diag_set_path(DiagList *dl, Diag *d, const char *path)
{
	if (!d)
		return;
	UtilHeap *caller = util_heap_use(dl->heap);
	d->path = arena_strdup(&dl->arena, path);
	util_heap_use(caller);
}

void diag_name_file(DiagList *dl, DiagMark since, const char *path)
{
	for (size_t i = since.len; i < dl->len; i++)
		if (!dl->items[i]->loc.file && !dl->items[i]->path)
			diag_set_path(dl, dl->items[i], path);
}

/* ---- ordering ------------------------------------------------------- */

typedef struct {
	Diag *d;
	size_t file_rank;
} SortItem;

static int cmp_items(const void *pa, const void *pb)
{
	const SortItem *a = pa, *b = pb;
	if (a->file_rank != b->file_rank)
		return a->file_rank < b->file_rank ? -1 : 1;
	if (a->d->loc.off != b->d->loc.off)
		return a->d->loc.off < b->d->loc.off ? -1 : 1;
	return a->d->seq < b->d->seq ? -1 : a->d->seq > b->d->seq;
}

void diag_sort(DiagList *dl)
{
	if (dl->len < 2)
		return;
	SortItem *items = util_malloc(dl->len * sizeof(*items));
	const SourceFile **files = util_malloc(dl->len * sizeof(*files));
	size_t nfiles = 0;
	for (size_t i = 0; i < dl->len; i++) {
		const SourceFile *f = dl->items[i]->loc.file;
		size_t rank = 0; /* no position: first */
		if (f) {
			size_t k = 0;
			while (k < nfiles && files[k] != f)
				k++;
			if (k == nfiles)
				files[nfiles++] = f;
			rank = k + 1;
		}
		items[i].d = dl->items[i];
		items[i].file_rank = rank;
	}
	qsort(items, dl->len, sizeof(*items), cmp_items);
	for (size_t i = 0; i < dl->len; i++)
		dl->items[i] = items[i].d;
	util_free(items);
	util_free(files);
}

/* ---- rendering ------------------------------------------------------ */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"

static void put_color(StrBuf *out, const DiagRenderOpts *o, const char *c)
{
	if (o->color)
		sb_puts(out, c);
}

static unsigned digits(unsigned v)
{
	unsigned n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The source line of loc and a caret line under its span. */
static void render_snippet(StrBuf *out, Loc loc, const DiagRenderOpts *o)
{
	unsigned line, col;
	source_linecol(loc.file, loc.off, &line, &col);
	const char *text;
	size_t len;
	source_line(loc.file, line, &text, &len);
	unsigned w = digits(line);

	sb_printf(out, " %*u | ", (int)w, line);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		/* Keep tabs; show other unprintable bytes as '?' so the
		 * caret column still lines up. */
		sb_putc(out, (c == '\t' || (c >= 0x20 && c < 0x7f)) ? (char)c
								     : '?');
	}
	sb_putc(out, '\n');

	sb_printf(out, " %*s | ", (int)w, "");
	size_t start = col - 1;
	for (size_t i = 0; i < start; i++)
		sb_putc(out, i < len && text[i] == '\t' ? '\t' : ' ');
	put_color(out, o, C_GREEN);
	sb_putc(out, '^');
	size_t span = loc.len;
	if (start + span > len)
		span = len > start ? len - start : 1;
	for (size_t i = 1; i < span; i++)
		sb_putc(out, '~');
	put_color(out, o, C_RESET);
	sb_putc(out, '\n');
}

static void render_header(StrBuf *out, Loc loc, DiagLevel level,
			  const char *code, const char *msg,
			  const DiagRenderOpts *o)
{
	if (loc.file) {
		unsigned line, col;
		source_linecol(loc.file, loc.off, &line, &col);
		put_color(out, o, C_BOLD);
		sb_printf(out, "%s:%u:%u: ", loc.file->path, line, col);
		put_color(out, o, C_RESET);
	}
	const char *name = level == DIAG_ERROR ? "error"
			   : level == DIAG_WARNING ? "warning"
						   : "note";
	const char *color = level == DIAG_ERROR ? C_RED
			    : level == DIAG_WARNING ? C_MAGENTA
						    : C_CYAN;
	put_color(out, o, color);
	sb_puts(out, name);
	if (code)
		sb_printf(out, "[%s]", code);
	put_color(out, o, C_RESET);
	put_color(out, o, C_BOLD);
	sb_printf(out, ": %s", msg);
	put_color(out, o, C_RESET);
	sb_putc(out, '\n');
}

void diag_render(const Diag *d, StrBuf *out, const DiagRenderOpts *o)
{
	/* an error --lenient reports as a warning says so where it is read
	 * first: "warning[E0215]" alone reads like a warning of its own */
	const char *msg = d->msg;
	StrBuf down;
	sb_init(&down);
	if (d->level == DIAG_WARNING && diag_code_level(d->code) == DIAG_ERROR) {
		sb_printf(&down, "%s (an error, downgraded to a warning by --lenient)", d->msg);
		msg = sb_str(&down);
	}
	render_header(out, d->loc, d->level, diag_code_name(d->code), msg, o);
	sb_free(&down);
	if (d->loc.file && o->show_source)
		render_snippet(out, d->loc, o);
	if (d->hint) {
		unsigned w = 1;
		if (d->loc.file) {
			unsigned line, col;
			source_linecol(d->loc.file, d->loc.off, &line, &col);
			w = digits(line);
		}
		sb_printf(out, " %*s = ", (int)w, "");
		put_color(out, o, C_BOLD);
		sb_puts(out, "hint");
		put_color(out, o, C_RESET);
		sb_printf(out, ": %s\n", d->hint);
	}
	for (size_t i = 0; i < d->nnotes; i++) {
		const DiagNote *n = &d->notes[i];
		render_header(out, n->loc, DIAG_NOTE, NULL, n->msg, o);
		if (n->loc.file && n->show_source && o->show_source)
			render_snippet(out, n->loc, o);
	}
}

/* "file:line:col: " for a place, "path: " or "prog: " without one. */
static void gcc_place(StrBuf *out, Loc loc, const char *path,
		      const char *prog)
{
	if (loc.file) {
		unsigned line, col;
		source_linecol(loc.file, loc.off, &line, &col);
		sb_printf(out, "%s:%u:%u: ", loc.file->path, line, col);
	} else {
		sb_printf(out, "%s: ", path ? path : prog);
	}
}

void diag_render_gcc(const Diag *d, StrBuf *out, const char *prog)
{
	const char *level = d->level == DIAG_ERROR ? "error"
			    : d->level == DIAG_WARNING ? "warning" : "note";
	gcc_place(out, d->loc, d->path, prog);
	sb_printf(out, "%s: %s", level, d->msg);
	if (d->level == DIAG_WARNING && diag_code_level(d->code) == DIAG_ERROR)
		sb_puts(out, " (an error, downgraded to a warning by --lenient)");
	sb_printf(out, " [%s]\n", diag_code_name(d->code));
	if (d->hint) {
		gcc_place(out, d->loc, d->path, prog);
		sb_printf(out, "note: hint: %s\n", d->hint);
	}
	for (size_t i = 0; i < d->nnotes; i++) {
		const DiagNote *n = &d->notes[i];
		gcc_place(out, n->loc.file ? n->loc : n->at, d->path, prog);
		sb_printf(out, "note: %s\n", n->msg);
	}
}

void diag_render_all(const DiagList *dl, StrBuf *out,
		     const DiagRenderOpts *o)
{
	for (size_t i = 0; i < dl->len; i++) {
		const Diag *d = dl->items[i];
		if (d->level != DIAG_ERROR && !o->show_warnings)
			continue;
		diag_render(d, out, o);
	}
}
