/*
 * diag.h - diagnostics as data.
 *
 * Every stage appends diagnostics (level, stable code, location, message,
 * optional hint, notes) to a DiagList; no stage prints or exits. Tools
 * render the list:
 *
 *   graph.nnef:4:23: error[E0202]: expected ';' after assignment
 *    4 |     x = conv(input, w)
 *      |                       ^
 *
 * or, for editors and CI problem matchers, as GCC does (diag_render_gcc):
 *
 *   graph.nnef:4:23: error: expected ';' after assignment [E0202]
 *
 * The stable codes and their one-line summaries are listed once, in
 * util/diag_codes.def.
 */
#ifndef NNEF_DIAG_H
#define NNEF_DIAG_H

#include "util/util.h"

typedef enum DiagLevel {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE,
} DiagLevel;

typedef enum DiagCode {
#define DIAG_CODE(id, level, summary) DIAG_##id,
#include "util/diag_codes.def"
#undef DIAG_CODE
	DIAG_CODE_COUNT
} DiagCode;

typedef struct DiagNote {
	Loc loc;           /* loc.file == NULL: a note without position */
	Loc at;            /* the place a note without position names in its
			      text (an expansion's call), for machine-readable
			      output; loc when it has one */
	const char *msg;
	bool show_source;  /* render the source line under the note */
} DiagNote;

typedef struct Diag {
	DiagLevel level;
	DiagCode code;
	Loc loc;           /* loc.file == NULL: no position */
	const char *msg;
	const char *hint;  /* NULL when none */
	const char *path;  /* with no position: the file it is about (a
			      model's tensor file) as reports name it;
			      NULL when none */
	DiagNote *notes;
	size_t nnotes, capnotes;
	size_t seq;        /* order of arrival, for a stable sort */
} Diag;

typedef struct DiagList {
	UtilHeap *heap;    /* where its memory comes from: the heap current at
			      diag_list_init, whoever adds to it later */
	Arena arena;       /* messages, hints and notes */
	Diag **items;
	size_t len, cap;
	size_t nerrors;    /* errors recorded (not counting dropped ones) */
	size_t nwarnings;
	size_t max_errors; /* 0 = unlimited */
	size_t dropped_errors, dropped_warnings;
} DiagList;

void diag_list_init(DiagList *dl, size_t max_errors);
void diag_list_free(DiagList *dl);

/* True once max_errors errors have been recorded: stages should stop. */
bool diag_limit_reached(const DiagList *dl);

/* Whether an error of this code means the model or file could not be read
 * (E0001-E0007 but E0005, a link where a file is expected, and E0006, a
 * limit exceeded: those reject what was read, like any invalid model). */
bool diag_code_unreadable(DiagCode code);

/* Every diagnostic reported so far, dropped ones included. */
size_t diag_count(const DiagList *dl);
/* A point in the list, and the list brought back to it (what was added
 * after it is forgotten). */
typedef struct DiagMark {
	size_t len, nerrors, nwarnings, dropped_errors, dropped_warnings;
} DiagMark;
DiagMark diag_mark(const DiagList *dl);
void diag_rewind(DiagList *dl, DiagMark mark);

/* Appends a diagnostic at the code's default level. Returns NULL when it
 * was dropped because the limit was reached (the helpers below accept
 * NULL). */
Diag *diag_add(DiagList *dl, DiagCode code, Loc loc, const char *fmt, ...)
	UTIL_PRINTF(4, 5);
Diag *diag_vadd(DiagList *dl, DiagLevel level, DiagCode code, Loc loc,
		const char *fmt, va_list ap) UTIL_PRINTF(5, 0);
/* Appends at an explicit level (e.g. an error downgraded to a warning). */
Diag *diag_add_level(DiagList *dl, DiagLevel level, DiagCode code, Loc loc,
		     const char *fmt, ...) UTIL_PRINTF(5, 6);
void diag_hint(DiagList *dl, Diag *d, const char *fmt, ...) UTIL_PRINTF(3, 4);
void diag_note(DiagList *dl, Diag *d, Loc loc, bool show_source,
	       const char *fmt, ...) UTIL_PRINTF(5, 6);
/* Says which file d, which has no position, is about (a copy of path). */
void diag_set_path(DiagList *dl, Diag *d, const char *path);
/* diag_set_path for each diagnostic added since mark that has neither a
 * position nor a path. */
void diag_name_file(DiagList *dl, DiagMark since, const char *path);

/* "E0202" */
const char *diag_code_name(DiagCode code);
/* One-line summary from the table. */
const char *diag_code_summary(DiagCode code);
DiagLevel diag_code_level(DiagCode code);

/* Sorts by file (in order of first appearance) and offset, stably. */
void diag_sort(DiagList *dl);

typedef struct DiagRenderOpts {
	bool color;
	bool show_warnings;
	bool show_source;   /* source line and caret under each diagnostic */
} DiagRenderOpts;

void diag_render(const Diag *d, StrBuf *out, const DiagRenderOpts *opts);
/* d as GCC writes one, for editors and problem matchers: a line
 * "file:line:col: error: message [E0202]", then a line per note
 * ("file:line:col: note: ...", at the call an expansion note names) and
 * the hint as one more note at d's place; no source, no colors. A
 * diagnostic or note without a place starts with d's path instead
 * ("dir/w.dat: error: ..."), else with prog. */
void diag_render_gcc(const Diag *d, StrBuf *out, const char *prog);
void diag_render_all(const DiagList *dl, StrBuf *out,
		     const DiagRenderOpts *opts);

#endif
