/*
 * model.h - a model as the tools see it: where its graph comes from
 * (a graph file, or a directory holding graph.nnef) and the checking
 * pipeline run over it. Every problem becomes a diagnostic in
 * model->diags; the status says what the tools' exit code is.
 *
 * The checks run in order: reading, parsing (lexical, syntax, structure,
 * extensions), semantic analysis when the document parsed without lexical
 * or syntax errors, then flattening (compile-time evaluation and expansion
 * of every compound) when there was no error at all.
 */
#ifndef NNEF_MODEL_H
#define NNEF_MODEL_H

#include "grammar/parse.h"
#include "flatten/flatten.h"
#include "sema/sema.h"
#include "util/diag.h"

typedef enum ModelStatus {
	MODEL_VALID = 0,   /* no errors (warnings allowed) */
	MODEL_INVALID = 1, /* the model breaks a rule of the specification */
	MODEL_IO_ERROR = 2 /* the model could not be read */
} ModelStatus;

/* Errors collected per model at most, whatever --max-errors says: the
 * limit shown applies after sorting, so the first error shown never
 * depends on it. */
#define MODEL_COLLECT_LIMIT 10000

typedef struct ModelOptions {
	size_t max_errors; /* errors shown at most; 0 = all collected */
	bool lenient;      /* known harmless deviations become warnings */
	FlattenOptions flatten; /* max_depth 0 means the default */
} ModelOptions;

typedef struct Model {
	Arena arena;
	Interner interner;
	DiagList diags;
	SourceFile *graph_src; /* NULL when it could not be read */
	SourceFile *stdlib_src;
	ParseResult parse;
	ParseResult stdlib;
	SemaProgram prog;
	bool checked;          /* semantic analysis ran (prog is valid) */
	FlatGraph *flat;       /* the flattened graph, when valid */
	ModelStatus status;
	size_t max_shown;      /* errors shown at most (0: all) */
} Model;

/* Reads and checks the model at path. Always initializes *m; free it with
 * model_free. */
ModelStatus model_check(Model *m, const char *path, const ModelOptions *opt);
/* The same checks on a graph held in memory (not copied; it must outlive
 * m), named `name` in diagnostics. */
ModelStatus model_check_text(Model *m, const char *name, const char *text,
			     size_t len, const ModelOptions *opt);
void model_free(Model *m);

/* The number of errors the tools show: at most max_errors of them. */
size_t model_shown_errors(const Model *m);
/* Whether errors exist beyond those shown (hidden, or not collected). */
bool model_errors_hidden(const Model *m);

/* Renders the diagnostics of m as the tools print them, in source order:
 * located ones as "file:line:col: error[CODE]: ...", others prefixed with
 * "prog: ", up to the max_errors-th error; then a line saying how many
 * more errors there are (if any). */
void model_render_diags(const Model *m, const char *prog, StrBuf *out,
			bool color, bool show_warnings);

#endif
