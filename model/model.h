/*
 * model.h - a model as the tools see it: its container (a directory, a
 * .tar or .tgz archive, or a bare graph file; spec 5.1) and the checking
 * pipeline run over it. Every problem becomes a diagnostic in
 * model->diags; the status says what the tools' exit code is.
 *
 * The checks run in order: reading the container (one pass: graph.nnef
 * and graph.quant whole, the first bytes of every .dat file, nothing
 * else), parsing (lexical, syntax, structure, extensions), semantic
 * analysis when the document parsed without lexical or syntax errors,
 * flattening with shapes (compile-time evaluation, expansion of every
 * compound, argument validity) when there was no error at all, then the
 * data: every tensor file's header, each variable against its file, and
 * graph.quant against the graph (spec chapter 6, step 4).
 */
#ifndef NNEF_MODEL_H
#define NNEF_MODEL_H

#include "datfile/datfile.h"
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

/* The one pass (stream.c) parses on a second thread while the first
 * checks what is parsed: by default for a text of PIPE_MIN_BYTES or
 * more, where it pays for the thread (a 743 KB, 10,000-line document: 11.2
 * -> 7.5 ms at best; 70 KB: no gain). The result is the same. */
typedef enum ModelThreads {
	MODEL_THREADS_AUTO,
	MODEL_THREADS_ONE,  /* never (for tests) */
	MODEL_THREADS_TWO   /* whatever the size (for tests) */
} ModelThreads;
enum { PIPE_MIN_BYTES = 256 << 10 };

typedef struct ModelOptions {
	Dialect dialect;   /* the dialect documents are read in */
	size_t max_errors; /* errors shown at most; 0 = all collected */
	bool lenient;      /* known harmless deviations become warnings */
	bool no_data;      /* check the structure only, not the data */
	bool missing_data_ok; /* a variable without a data file is not an
				 error (nnef-run --random-weights) */
	ContLimits limits; /* bounds on reading archives (0: defaults) */
	FlattenOptions flatten; /* max_depth 0 means the default */
	uint32_t max_nesting; /* expressions and types nested at most (0: the
				 default, PARSE_DEFAULT_NESTING) */
	bool whole;        /* check the document whole, never in one pass
			      (the result is the same; for tests) */
	ModelThreads threads; /* whether the one pass parses on a thread of
			      its own */
	const char *const *declarations; /* files, or directories of .nnef
			      files, of fragment declarations added to the
			      standard library (--declarations) */
	size_t ndeclarations;
} ModelOptions;

/* A file of the model that the data checks use: a .dat file (its first
 * bytes kept) or any other member (for messages). */
typedef struct ModelFile {
	char *name;            /* relative to the model, a top folder removed */
	ContMemberType type;
	uint64_t size;
	unsigned char head[DAT_OLD_HEADER_SIZE]; /* the first bytes */
	size_t nhead;
	bool is_dat;           /* its name ends in ".dat" */
	bool used;             /* a variable or a sample tensor takes it */
} ModelFile;

/* A variable of the graph: the variable operations sharing a label (spec
 * 4.1.3: they share the underlying data) and its data file. */
typedef struct ModelVar {
	const FlatOp *op;      /* the first variable operation of the label */
	const char *label;     /* as that operation writes it */
	size_t label_len;
	const ModelFile *file; /* its data file, when the data was checked */
	const DatHeader *header; /* the file's header when it is valid and
				  fits the variable (shape and data type),
				  else NULL */
} ModelVar;

typedef struct Model {
	Arena arena;
	/* What a parser on a thread of its own (stream.c) and the checking
	 * thread share: the interner, which both read at each name, away
	 * from what either writes often (the arenas) */
	_Alignas(64) Interner interner;
	_Alignas(64) Arena names; /* the interner's spellings */
	_Alignas(64) Arena syntax; /* the document's tree, when a thread of
				     its own parses it */
	_Alignas(64) DiagList diags;
	SourceFile *graph_src; /* NULL when it could not be read */
	SourceFile *stdlib_src;
	ParseResult parse;
	ParseResult stdlib;
	SourceFile **decl_src; /* the --declarations files, read once */
	size_t ndecl;
	SourceFile **reg_src;  /* tract's registries the document names */
	size_t nreg;
	const AstDoc **decl_docs; /* the registries', then the declarations',
				     each parsed (model_libraries) */
	SemaProgram prog;
	bool checked;          /* semantic analysis ran (prog is valid) */
	FlatGraph *flat;       /* the flattened graph, when valid */
	uint8_t pass_threads;  /* the threads of the one pass that gave
				  flat (0: it was checked whole) */
	ModelStatus status;
	size_t max_shown;      /* errors shown at most (0: all) */
	Dialect dialect;       /* the dialect the model was read in */
	bool lenient;          /* --lenient: also for files read later (the
				  interpreter's inputs) */
	/* the container */
	ContKind kind;
	char *graph_text;      /* graph.nnef as read (owned) */
	char *quant_text;      /* graph.quant, NULL when there is none */
	SourceFile *quant_src;
	ModelFile *files;
	size_t nfiles;
	bool data_checked;     /* the data was checked against the graph */
	/* what the interpreter reads */
	char *path;            /* the model's path, as given */
	char *prefix;          /* the top folder of an archive ("" if none) */
	ContLimits limits;
	ModelVar *vars;        /* one per label, in graph order */
	size_t nvars;
	/* tract's dialect: the models inside this one */
	char **sublabels;      /* their folders (labels) */
	struct Model **subs;   /* each checked when first run (NULL before) */
	size_t nsubs;
	char *under;           /* a model inside: its folder in the container
				  ("nnet2/", the top folder's name first),
				  else NULL */
	const ModelOptions *opt; /* the options it is checked with, while it
				  is (a model inside is checked with them) */
	const AstDoc *quant;   /* graph.quant as parsed (model_parse_quant;
				  NULL when there is none) */
} Model;

/* Reads and checks the model at path. Always initializes *m; free it with
 * model_free. */
ModelStatus model_check(Model *m, const char *path, const ModelOptions *opt);
/* The same checks on a graph held in memory (not copied; it must outlive
 * m), named `name` in diagnostics. */
ModelStatus model_check_text(Model *m, const char *name, const char *text,
			     size_t len, const ModelOptions *opt);
void model_free(Model *m);

/* Fragment f of m's document flattened as a graph of its parameters (see
 * flatten_fragment), in arena; NULL after reporting to diags. */
FlatGraph *model_flatten_fragment(const Model *m, const SemaFrag *f,
				  const FlatParam *params, Loc at,
				  Arena *arena, DiagList *diags);
/* The fragment of m's program named name[0..len), or NULL. */
const SemaFrag *model_fragment(const Model *m, const char *name, size_t len);
/* tract's dialect: the model inside m in folder label[0..len), as
 * checked (NULL when there is none or it was never read). */
const Model *model_submodel(const Model *m, const char *label, size_t len);

/* The variable that variable operation op introduces (after flattening;
 * NULL for any other operation). */
const ModelVar *model_variable(const Model *m, const FlatOp *op);

/* The items of variable i (m->vars[i]) as model_load_variables gives
 * them, in an array the caller allocates. */
typedef struct ModelVarItems {
	void *data;            /* count items: scalars as float (real_size
				  4) or double (8), integers as int64_t,
				  logicals as uint8_t (0 or 1) */
	TypeKind dtype;        /* TY_SCALAR, TY_INTEGER or TY_LOGICAL */
	uint32_t rank;         /* the variable's shape (graph.quant's
				  per-channel parameters broadcast to it) */
	const int64_t *dims;
	size_t count;
	bool loaded;           /* filled (a variable already loaded is
				  skipped) */
} ModelVarItems;

/* Reads the tensor file of each variable i that has one it can decode
 * (model_var_has_data) into vars[i] (m->nvars of them), dequantizing
 * quantized codes with graph.quant, in one pass over the container;
 * *int_bits grows to the widest integer items read. False after
 * reporting to diags (E1303, E1306, or a problem of the container). */
bool model_load_variables(const Model *m, ModelVarItems *vars,
			  size_t real_size, int *int_bits, DiagList *diags);
/* Whether variable i has a tensor file whose items can be decoded. */
bool model_var_has_data(const Model *m, size_t i);
/* Why variable i has no data to run with, as a hint to the user. */
const char *model_var_no_data_hint(const Model *m, size_t i);

/* Reads the model's container again, calling visit for each member that
 * is one of m->files (inside visit, cont_read reads its data). Returns
 * false after reporting a problem of the container in diags. */
bool model_read_files(const Model *m,
		      bool (*visit)(void *ctx, const ModelFile *f, Container *c),
		      void *ctx, DiagList *diags);

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
