/*
 * nnef.h - the nnefkit library: check, flatten, inspect and run models
 * stored in Khronos NNEF (Neural Network Exchange Format).
 *
 * Handles are opaque. Whatever a function returns through a pointer is
 * owned by the handle it came from and lives as long as that handle,
 * unless the comment says "free with ..." (the caller owns it). Nothing
 * here prints, exits or keeps global state: separate handles may be used
 * from separate threads at once; one handle from one thread at a time.
 * Problems are diagnostics (level, stable code, message, location, hint,
 * notes) in an nnef_diags list; a function that fails returns NULL, false
 * or an error status after adding to one.
 * Memory the system refuses is no exception: the function gives back
 * all it had allocated, closes the files it had opened, removes an output
 * it was writing, and reports E0008 "out of memory" (a model that is
 * unreadable, or a diagnostic in the list it was given) or returns NULL
 * where it has nowhere to say so. A runner that failed so can only be
 * freed.
 *
 *   nnef_options o;
 *   nnef_options_init(&o);
 *   nnef_model *m = nnef_model_load("model.tgz", &o);
 *   char *text = nnef_diags_render(nnef_model_diags(m), "prog", 0);
 *   fputs(text, stderr);
 *   free(text);
 *   if (nnef_model_status(m) == NNEF_VALID) { ... nnef_model_graph(m) ... }
 *   nnef_model_free(m);
 *
 * See nnef(3).
 */
#ifndef NNEF_H
#define NNEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *nnef_version(void);

/* ---- diagnostics --------------------------------------------------------- */

typedef enum nnef_level {
	NNEF_ERROR,
	NNEF_WARNING,
	NNEF_NOTE,
} nnef_level;

typedef struct nnef_diags nnef_diags;
typedef struct nnef_diag nnef_diag;

/* A position in a source file; file is NULL when there is none. Lines and
 * columns count from 1 (columns in bytes); end is just past the range. */
typedef struct nnef_location {
	const char *file;
	unsigned line, column;
	unsigned end_line, end_column;
} nnef_location;

/* An empty list (for the functions that take one); free with
 * nnef_diags_free. NULL when out of memory. */
nnef_diags *nnef_diags_new(void);
void nnef_diags_free(nnef_diags *ds);
/* Empties a list made by nnef_diags_new (a model's list stays as is). */
void nnef_diags_clear(nnef_diags *ds);

/* The diagnostics, sorted by file and position (those without one
 * first), errors past the model's max_errors left out. */
size_t nnef_diags_count(const nnef_diags *ds);
const nnef_diag *nnef_diags_get(const nnef_diags *ds, size_t i);
/* Errors and warnings in the list, shown or not; errors beyond those
 * listed (past max_errors, or not even collected). */
size_t nnef_diags_errors(const nnef_diags *ds);
size_t nnef_diags_warnings(const nnef_diags *ds);
size_t nnef_diags_hidden_errors(const nnef_diags *ds);
/* Whether more errors happened than were collected (then the count of
 * errors is a lower bound). */
bool nnef_diags_incomplete(const nnef_diags *ds);

nnef_level nnef_diag_level(const nnef_diag *d);
/* The stable code, "E0202"; see nnef-diagnostics(7). */
const char *nnef_diag_code(const nnef_diag *d);
/* The code's one-line summary. */
const char *nnef_diag_summary(const nnef_diag *d);
const char *nnef_diag_message(const nnef_diag *d);
/* NULL when there is none. */
const char *nnef_diag_hint(const nnef_diag *d);
nnef_location nnef_diag_location(const nnef_diag *d);
/* The file it is about: its location's, or for a diagnostic without a
 * position about a file of the model (a tensor file), that file's path
 * ("dir/conv1/filter.dat", "m.tgz/conv1/filter.dat"); NULL when none. */
const char *nnef_diag_file(const nnef_diag *d);
/* Notes: "in expansion of ..." frames and other context, innermost
 * first. */
size_t nnef_diag_note_count(const nnef_diag *d);
const char *nnef_diag_note_message(const nnef_diag *d, size_t i);
nnef_location nnef_diag_note_location(const nnef_diag *d, size_t i);

enum {
	NNEF_RENDER_COLOR = 1,    /* ANSI colors */
	NNEF_RENDER_WARNINGS = 2, /* warnings and notes too */
	NNEF_RENDER_SOURCE = 4,   /* the source line and a caret under each */
	NNEF_RENDER_GCC = 8,      /* GCC's layout, one line each, for editors
				     and problem matchers: "file:line:col:
				     error: message [CODE]", notes (and the
				     hint) as "file:line:col: note: ..." lines;
				     without a position "file: " (the file it
				     is about) or "prog: "; COLOR and SOURCE
				     are ignored */
};
/* The diagnostics as the tools print them ("file:line:col: error[CODE]:
 * message", then the source line, notes and hint), a diagnostic without
 * position prefixed with "prog: ", then a line counting the errors not
 * shown. flags: NNEF_RENDER_*. Free with free(); NULL when out of
 * memory. */
char *nnef_diags_render(const nnef_diags *ds, const char *prog,
			unsigned flags);
/* One diagnostic, whatever its level, as nnef_diags_render renders it
 * (NNEF_RENDER_WARNINGS aside). Free with free(); NULL when out of
 * memory. */
char *nnef_diag_render(const nnef_diag *d, const char *prog, unsigned flags);

/* ---- models ------------------------------------------------------------------ */

typedef enum nnef_status {
	NNEF_VALID = 0,    /* no error (warnings allowed) */
	NNEF_INVALID = 1,  /* the model breaks a rule of the specification */
	NNEF_IO_ERROR = 2, /* the model could not be read (a model beyond
			      a limit of nnef_options is NNEF_INVALID) */
} nnef_status;

/* A shape given for a graph input (spec 2.2), as --input-shape. */
typedef struct nnef_input_shape {
	const char *name;
	const int64_t *dims;
	size_t rank;
} nnef_input_shape;

/* The dialect of NNEF a model is read in: Khronos NNEF as its
 * specification defines it (the default), or the dialect of Sonos' tract
 * engine and torch-to-nnef (nnef-tract(7)). */
typedef enum nnef_dialect {
	NNEF_DIALECT_KHRONOS,
	NNEF_DIALECT_TRACT,
} nnef_dialect;

/* "khronos", "tract"; NULL for another value. */
const char *nnef_dialect_name(nnef_dialect d);
/* The dialect spelled name ("khronos", "tract"); false when none is. */
bool nnef_dialect_parse(const char *name, nnef_dialect *out);

/* What loading checks; nnef_options_init gives the tools' defaults. The
 * pointers are read during nnef_model_load only. */
typedef struct nnef_options {
	size_t max_errors;          /* errors listed at most (0: all) */
	bool lenient;               /* known harmless deviations of real
				       producers become warnings */
	bool no_data;               /* check the graph, not the data */
	bool missing_data_ok;       /* a variable without a tensor file is
				       not an error (to run with generated
				       weights) */
	size_t max_depth;           /* nested compound expansions (0:
				       default, 100000) */
	uint32_t max_nesting;       /* expressions and types nested (0:
				       default, 1000; at most 10000, larger
				       values count as 10000; E0216
				       beyond) */
	size_t max_operations;      /* operations of the flat graph (0:
				       default, 10000000; E0812 beyond) */
	uint64_t max_value_bytes;   /* memory for compile-time values built
				       by repetition, concatenation,
				       range_of and comprehensions (0:
				       default, 256 MiB; E0811 beyond) */
	uint64_t max_archive_bytes; /* decompressed archive bytes (0:
				       default, 64 GiB) */
	uint64_t max_member_bytes;  /* bytes of one member (0: 16 GiB) */
	uint64_t max_members;       /* archive entries (0: 100000) */
	const nnef_input_shape *input_shapes;
	size_t n_input_shapes;
	const char *const *keep;    /* compounds to keep unexpanded */
	size_t n_keep;
	bool keep_standard;         /* keep every standard compound */
	const char *const *declarations; /* files, or directories of .nnef
				       files, of fragment declarations
				       added to the standard library: with
				       a body, compound operations; without,
				       custom operations */
	size_t n_declarations;
	const char *const *targets; /* portability reports to make of a
				       valid model: "openvx", "openvino",
				       "coreml", "onnx:N" (see nnef_port) */
	size_t n_targets;
	nnef_dialect dialect;       /* the dialect documents are read in
				       (NNEF_DIALECT_KHRONOS) */
	bool quantize;              /* graph.quant applied in the flat graph
				       (spec 7.1): each tensor named there
				       quantized after it is computed, so
				       that running the model computes the
				       quantized values; without, its
				       entries are checked only */
} nnef_options;

void nnef_options_init(nnef_options *o);

typedef struct nnef_model nnef_model;

/* Reads and checks the model at path: a directory holding graph.nnef and
 * its tensor files, a .tar or .tgz archive of one, or a bare graph file
 * (spec 5.1). Runs every check: syntax, semantics, flattening with
 * shapes, the tensor files' headers against the graph, graph.quant. The
 * verdict is nnef_model_status; when memory ran out, the model is
 * NNEF_IO_ERROR with the one diagnostic E0008, or NULL if not even that
 * much memory was left. Free with nnef_model_free. A graph document of
 * 1 MiB or more is mapped from its file, not copied: if the file shrinks
 * while the model lives, reading its lost pages raises SIGBUS. */
nnef_model *nnef_model_load(const char *path, const nnef_options *o);
/* The same for a graph document held in memory (copied), named `name` in
 * diagnostics; there is no data to check. */
nnef_model *nnef_model_load_text(const char *name, const char *text,
				 size_t len, const nnef_options *o);
void nnef_model_free(nnef_model *m);

nnef_status nnef_model_status(const nnef_model *m);
const nnef_diags *nnef_model_diags(const nnef_model *m);
/* The path or name given. */
const char *nnef_model_path(const nnef_model *m);
/* The dialect it was read in (nnef_options.dialect). */
nnef_dialect nnef_model_dialect(const nnef_model *m);
/* Whether the tensor files were checked against the graph (false for a
 * bare graph file, with no_data, or when the graph is invalid). */
bool nnef_model_data_checked(const nnef_model *m);
/* Whether the document, or the standard library, declares an operation
 * of this name (known once the document passed semantic analysis). */
bool nnef_model_has_operation(const nnef_model *m, const char *name);
/* The graph's parameters as declared (known once the document parsed,
 * even when it is invalid). */
size_t nnef_model_param_count(const nnef_model *m);
const char *nnef_model_param_name(const nnef_model *m, size_t i);

enum {
	NNEF_PRINT_SHAPES = 1,    /* each operation followed by a comment
				     with its results' types and shapes */
	NNEF_PRINT_ALL_TENSORS = 2, /* nnef_model_print_shapes: every tensor,
				       the internals of compound expansions
				       too */
};
/* The flat, primitives-only document (spec chapter 6): declarations of
 * custom and kept fragments, then the graph. NULL unless the model is
 * valid. Free with free(). */
char *nnef_model_print_flat(const nnef_model *m, unsigned flags);
/* "NAME: TYPE[D0,D1,...]" per tensor and line, "[?]" when unknown: the
 * tensors the document names (nnef_tensor_info_named), or with flags
 * NNEF_PRINT_ALL_TENSORS every tensor. */
char *nnef_model_print_shapes(const nnef_model *m, unsigned flags);
enum {
	NNEF_DOT_FOLD_WEIGHTS = 1, /* variables and constants as lines of
				      the labels of the operations that
				      take them, not as nodes */
};
/* The flat graph in Graphviz DOT: operations as boxes, tensors as edges
 * labelled with their shapes, inputs, outputs and variables drawn apart;
 * flags: NNEF_DOT_FOLD_WEIGHTS or 0. */
char *nnef_model_print_dot(const nnef_model *m, unsigned flags);

/* ---- reports --------------------------------------------------------------------- */

enum {
	NNEF_REPORT_SHAPES = 1, /* each model's tensors and shapes (none for
				   a model whose graph did not flatten): those
				   the document names */
	NNEF_REPORT_ALL_TENSORS = 2, /* with NNEF_REPORT_SHAPES: every
					tensor, the internals of compound
					expansions too */
};
/* The verdicts and listed diagnostics of n models as one JSON document:
 * {"tool", "version", "models": [{"path", "verdict" ("valid", "invalid"
 * or "unreadable"), "errors", "warnings", "errors_not_shown",
 * "diagnostics": [{"level", "code", "summary", "message", "file", "line",
 * "column", "end_line", "end_column", "hint", "notes": [{"message",
 * "file", ...}]}], "tensors": [{"name", "type", "shape"}]}]}. A missing
 * position is "file": null without line and column; an unknown shape is
 * null. Free with free(). */
char *nnef_report_json(const nnef_model *const *models, size_t n,
		       unsigned flags);
/* The same diagnostics as one SARIF 2.1.0 log: one run, a rule per code,
 * a result per diagnostic with its region, notes as related locations.
 * flags: none yet (0). Free with free(). */
char *nnef_report_sarif(const nnef_model *const *models, size_t n,
			unsigned flags);

/* ---- portability --------------------------------------------------------- */

/* After a valid check, a report per target of the options: for each
 * operation of the graph, at the level the target has it (compounds the
 * target has are kept whole, the others expanded), whether the target
 * expresses it, as which operation, and what it cannot express. The
 * knowledge is one table per target, each row citing the target's
 * specification; see nnef-check(1). A report never changes the verdict. */
typedef struct nnef_port nnef_port;

/* NULL when name is a target ("openvx", "openvino", "coreml", "onnx:N"
 * for an ONNX operator set N), else what is wrong with it. */
const char *nnef_target_check(const char *name);

size_t nnef_model_port_count(const nnef_model *m);
const nnef_port *nnef_model_port(const nnef_model *m, size_t i);
/* The target as named, and its title ("OpenVINO opset1"). */
const char *nnef_port_target(const nnef_port *p);
const char *nnef_port_title(const nnef_port *p);
/* True when the graph did not check again with the target's compounds
 * kept whole (then the report is empty). */
bool nnef_port_failed(const nnef_port *p);
/* Operations of the graph at the target's level, and those it expresses
 * as they are. */
size_t nnef_port_operations(const nnef_port *p);
size_t nnef_port_portable(const nnef_port *p);

/* A kind of operation of the graph (nnef_port_mapping), or one distinct
 * problem (nnef_port_problem), with its count and first location. */
typedef struct nnef_port_use {
	const char *op;        /* the NNEF operation */
	const char *target_op; /* the target's operation; NULL when none */
	const char *cite;      /* where the target's specification says so,
				  or NULL */
	const char *note;      /* a remark on the mapping, or NULL */
	const char *problem;   /* what the target cannot express (problems
				  only) */
	size_t count;          /* operations */
	nnef_location first;   /* where the first of them is invoked */
} nnef_port_use;

/* One per operation name, in order of first use. */
size_t nnef_port_mapping_count(const nnef_port *p);
nnef_port_use nnef_port_mapping(const nnef_port *p, size_t i);
/* One per distinct problem, in order of first occurrence. */
size_t nnef_port_problem_count(const nnef_port *p);
nnef_port_use nnef_port_problem(const nnef_port *p, size_t i);
/* The report as nnef-check prints it: a title line, a line per mapped
 * operation, a line per problem, then "TARGET: N/M operations portable;
 * K need rewriting". Free with free(). */
char *nnef_port_render(const nnef_port *p);

/* ---- the flat graph --------------------------------------------------------- */

typedef struct nnef_graph nnef_graph;
typedef struct nnef_tensor_info nnef_tensor_info;
typedef struct nnef_op nnef_op;
typedef struct nnef_value nnef_value;

typedef enum nnef_dtype {
	NNEF_SCALAR,
	NNEF_INTEGER,
	NNEF_LOGICAL,
} nnef_dtype;

/* NULL unless the model flattened (it is valid, or only its data is
 * not). Lives as long as the model. */
const nnef_graph *nnef_model_graph(const nnef_model *m);
const char *nnef_graph_name(const nnef_graph *g);

/* Tensors in definition order; the graph's inputs and outputs. */
size_t nnef_graph_tensor_count(const nnef_graph *g);
const nnef_tensor_info *nnef_graph_tensor(const nnef_graph *g, size_t i);
size_t nnef_graph_input_count(const nnef_graph *g);
const nnef_tensor_info *nnef_graph_input(const nnef_graph *g, size_t i);
size_t nnef_graph_output_count(const nnef_graph *g);
const nnef_tensor_info *nnef_graph_output(const nnef_graph *g, size_t i);

const char *nnef_tensor_info_name(const nnef_tensor_info *t);
/* Whether the document names it: a graph input or output, an identifier
 * the graph's body assigns, or a variable; false for the internals of
 * compound expansions and the results of nested invocations. */
bool nnef_tensor_info_named(const nnef_tensor_info *t);
nnef_dtype nnef_tensor_info_dtype(const nnef_tensor_info *t);
/* False when the shape is not known (after a custom operation); then the
 * rank is 0. */
bool nnef_tensor_info_shape_known(const nnef_tensor_info *t);
size_t nnef_tensor_info_rank(const nnef_tensor_info *t);
/* Extent i; -1 for an extent known only when the model runs (tract's
 * dialect: a symbol, or an expression of symbols), whose text
 * nnef_tensor_info_dim_text gives ("S", "2*S+1"; NULL for a known
 * extent). */
int64_t nnef_tensor_info_dim(const nnef_tensor_info *t, size_t i);
const char *nnef_tensor_info_dim_text(const nnef_tensor_info *t, size_t i);
/* tract's dialect: the datum type of the items, as tract names it ("f32",
 * "f16", "i64", "tdim", "bool"...); NULL when not known or in Khronos
 * NNEF (nnef_tensor_info_dtype gives the NNEF data type). */
const char *nnef_tensor_info_datum_type(const nnef_tensor_info *t);
/* The operation computing it. */
const nnef_op *nnef_tensor_info_producer(const nnef_tensor_info *t);

/* The tensors graph.quant quantizes (spec 5.3); *applied: the graph
 * computes their quantized values (nnef_options.quantize), else they are
 * only checked. */
size_t nnef_graph_quant_count(const nnef_graph *g, bool *applied);

/* Operations in a valid order of execution. */
size_t nnef_graph_op_count(const nnef_graph *g);
const nnef_op *nnef_graph_op(const nnef_graph *g, size_t i);
/* The operation's name ("conv"), and whether it is a primitive of the
 * standard library (else a custom or kept operation). */
const char *nnef_op_name(const nnef_op *op);
bool nnef_op_is_primitive(const nnef_op *op);
/* Where it is invoked (in a compound: the call written in the graph),
 * and the name of that compound (NULL when the operation is written in
 * the graph itself). */
nnef_location nnef_op_location(const nnef_op *op);
const char *nnef_op_compound(const nnef_op *op);
/* Arguments, one per parameter (defaults included), and results. */
size_t nnef_op_arg_count(const nnef_op *op);
const char *nnef_op_arg_name(const nnef_op *op, size_t i);
const nnef_value *nnef_op_arg(const nnef_op *op, size_t i);
size_t nnef_op_result_count(const nnef_op *op);
const char *nnef_op_result_name(const nnef_op *op, size_t i);
const nnef_value *nnef_op_result(const nnef_op *op, size_t i);

typedef enum nnef_value_kind {
	NNEF_VALUE_INTEGER,
	NNEF_VALUE_SCALAR,
	NNEF_VALUE_LOGICAL,
	NNEF_VALUE_STRING,
	NNEF_VALUE_ARRAY,
	NNEF_VALUE_TUPLE,
	NNEF_VALUE_TENSOR,
	NNEF_VALUE_SYMBOL,  /* an extent of unknown value: a symbol of the vendor
			       extension tract_symbol, under lenient; its name
			       is nnef_value_string */
} nnef_value_kind;

nnef_value_kind nnef_value_kind_of(const nnef_value *v);
int64_t nnef_value_integer(const nnef_value *v);
double nnef_value_scalar(const nnef_value *v);
bool nnef_value_logical(const nnef_value *v);
/* Not NUL-terminated: *len bytes. */
const char *nnef_value_string(const nnef_value *v, size_t *len);
/* Items of an array or a tuple. */
size_t nnef_value_item_count(const nnef_value *v);
const nnef_value *nnef_value_item(const nnef_value *v, size_t i);
const nnef_tensor_info *nnef_value_tensor(const nnef_value *v);

/* ---- tensors and tensor files ------------------------------------------------ */

typedef struct nnef_tensor nnef_tensor;

/* A tensor of values: scalars as double, integers as int64_t, logicals
 * as bool. dims is copied. Free with nnef_tensor_free. NULL when out of
 * memory or a dimension is not positive. */
nnef_tensor *nnef_tensor_new(nnef_dtype dtype, const int64_t *dims,
			     size_t rank);
void nnef_tensor_free(nnef_tensor *t);
nnef_dtype nnef_tensor_dtype(const nnef_tensor *t);
size_t nnef_tensor_rank(const nnef_tensor *t);
int64_t nnef_tensor_dim(const nnef_tensor *t, size_t i);
size_t nnef_tensor_count(const nnef_tensor *t);
/* The items, row-major; the pointer of the tensor's dtype, else NULL. */
double *nnef_tensor_scalars(nnef_tensor *t);
int64_t *nnef_tensor_integers(nnef_tensor *t);
bool *nnef_tensor_logicals(nnef_tensor *t);
/* Item i as a double, whatever the dtype. */
double nnef_tensor_get(const nnef_tensor *t, size_t i);
/* The item type of the file the tensor was read from ("float32", "int8",
 * "qint8", "q4_0", ...; for a .npy "float32", "int64", "bool8", ...);
 * NULL for a tensor not read from a file. */
const char *nnef_tensor_file_type(const nnef_tensor *t);
/* The range [min, max] a tensor file's items were quantized over (NNEF
 * 1.0.2's linear and logarithmic item types: the values the tensor holds
 * are already dequantized); false (and zeros) for any other file. */
bool nnef_tensor_file_range(const nnef_tensor *t, double *min, double *max);

/* Reads a tensor file: NNEF's (spec 5.2; every item type, legacy codes
 * too, and tract's Q4_0 blocks as reals; quantized codes become their
 * integer values) or NumPy's .npy (versions 1.0 to 3.0; f2, f4, f8 as
 * scalars, i1 to i8 and u1 to u8 as integers (u8 items above 2^63 - 1
 * wrap), b1 as logicals; C order, either byte order), told apart by
 * their first bytes. flags: NNEF_READ_LENIENT accepts the 132-byte
 * headers of old NNEF-Tools with a warning. A path of "-" is standard
 * input ("<stdin>" in messages); it, a pipe or a FIFO is read once, the
 * header first, then the bytes it declares, which must be all there is.
 * NULL after adding the reason to ds. */
enum { NNEF_READ_LENIENT = 1 };
nnef_tensor *nnef_tensor_read(const char *path, unsigned flags,
			      nnef_diags *ds);
/* Writes t to path as float32 (float64 with NNEF_WRITE_DOUBLE), integers
 * as int64 (int32 with NNEF_WRITE_INT32), logicals as 8-bit bools: an
 * NNEF tensor file, or with NNEF_WRITE_NPY a .npy (version 1.0, little
 * endian, as NumPy writes it); through a temporary file renamed when
 * complete, so that nothing partial is left. False after adding the
 * reason to ds. */
enum {
	NNEF_WRITE_DOUBLE = 1,
	NNEF_WRITE_INT32 = 2,
	NNEF_WRITE_NPY = 4,
	NNEF_WRITE_DEFLATE = 8, /* bundles: deflated members (else stored) */
};
bool nnef_tensor_write(const nnef_tensor *t, const char *path,
		       unsigned flags, nnef_diags *ds);

/* A NumPy .npz bundle: a zip archive of arrays NAME.npy (numpy.savez;
 * tract's io.npz holds a model's inputs and expected outputs so). It is
 * read in place, never extracted, within the archive limits of the
 * options (max_archive_bytes, max_member_bytes, max_members: 0 or NULL
 * options take the defaults): member names that are absolute or hold
 * '..', names listed twice, a compression ratio deflate cannot give,
 * encryption, methods other than stored and deflated, a CRC or size that
 * does not match are errors; members that are not NAME.npy are left out
 * with a warning. NULL after adding the reason to ds. Free with
 * nnef_bundle_free. */
typedef struct nnef_bundle nnef_bundle;
nnef_bundle *nnef_bundle_open(const char *path, const nnef_options *o,
			      nnef_diags *ds);
void nnef_bundle_free(nnef_bundle *b);
/* The arrays in archive order, by name (the member's without .npy). */
size_t nnef_bundle_count(const nnef_bundle *b);
const char *nnef_bundle_name(const nnef_bundle *b, size_t i);
/* The index of the array named name; false when there is none. */
bool nnef_bundle_find(const nnef_bundle *b, const char *name, size_t *i);
/* Reads array i, or the array named name, as nnef_tensor_read reads a
 * .npy. NULL after adding the reason to ds (E1412 when the bundle has no
 * array of that name). */
nnef_tensor *nnef_bundle_get(nnef_bundle *b, size_t i, nnef_diags *ds);
nnef_tensor *nnef_bundle_read(nnef_bundle *b, const char *name,
			      nnef_diags *ds);
/* Writes the n tensors as the arrays names[i] of a .npz at path (types as
 * nnef_tensor_write with NNEF_WRITE_NPY; members stored, or deflated with
 * NNEF_WRITE_DEFLATE), through a temporary file renamed when complete.
 * False after adding the reason to ds. */
bool nnef_bundle_write(const char *path, const char *const *names,
		       const nnef_tensor *const *tensors, size_t n,
		       unsigned flags, nnef_diags *ds);

/* Writes len bytes to path through a temporary file in the same folder,
 * renamed when complete: nothing partial is ever left under path, an
 * existing file keeps its mode (a new one gets 0666 less the umask), and
 * a symbolic link is written through (its target is updated). False
 * after adding the reason (E1307) to ds. */
bool nnef_write_file(const char *path, const void *data, size_t len,
		     nnef_diags *ds);

/* A set of files written all or nothing: nnef_stage_file reserves a
 * temporary name for path (path.tmpXXXXXX, beside the file a symbolic
 * link at path leads to; an empty file of the mode path would get) to
 * write the file under first, with any writer above. Once every file of
 * the set is complete, nnef_commit_file renames each staged file to its
 * path, or removes it when it cannot. If a file of the set fails, the
 * caller removes the staged files (remove()). nnef_stage_file returns a
 * string to free with free(), or NULL after adding the reason (E1307,
 * for example a directory at path) to ds; nnef_commit_file false after
 * adding it. */
char *nnef_stage_file(const char *path, nnef_diags *ds);
bool nnef_commit_file(const char *staged, const char *path, nnef_diags *ds);

/* ---- running ------------------------------------------------------------------ */

typedef struct nnef_runner nnef_runner;

typedef struct nnef_run_options {
	bool double_precision; /* compute every scalar in float64 */
	bool random_weights;   /* variables without a file get generated
				  values (needs options.missing_data_ok) */
	uint64_t seed;         /* of generated weights */
	bool keep_all;         /* keep every intermediate tensor */
	bool profile;          /* time each operation */
	uint64_t max_memory;   /* bytes the run may need at least (0: the
				  machine's physical memory; E1305 beyond) */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
	bool plain;            /* each primitive on its own by its plain
				  kernel: no fusion, no views, no faster
				  path (nnef-run --plain) */
	int threads;           /* threads of the kernels (0: one per
				  processor online) */
	bool statistics;       /* the statistics of every tensor the graph
				  names (nnef_runner_stats), taken as it is
				  computed: no tensor is kept longer for
				  them, but none so named is fused away */
} nnef_run_options;

void nnef_run_options_init(nnef_run_options *o);

/* Prepares to run a valid model's graph and loads its variables. NULL
 * after adding to ds why it cannot run (a custom operation, a shape
 * known only when the model runs (a symbol, --lenient), a variable
 * without data, more memory than the machine has). The model must
 * outlive the runner. Free with nnef_runner_free. */
nnef_runner *nnef_runner_new(const nnef_model *m, const nnef_run_options *o,
			     nnef_diags *ds);
void nnef_runner_free(nnef_runner *r);

size_t nnef_runner_input_count(const nnef_runner *r);
const char *nnef_runner_input_name(const nnef_runner *r, size_t i);
/* The data type input i takes: the graph's, or in tract's dialect that
 * of its datum type (tract_core_external(datum_type = 'i64') takes
 * integers). */
nnef_dtype nnef_runner_input_dtype(const nnef_runner *r, size_t i);
/* Input i from a tensor (converted; its shape and dtype must be the
 * graph's), from a tensor file (NNEF's or a .npy, told apart by their
 * first bytes; its shape the graph's up to trailing singleton
 * dimensions), from array k of a bundle (the same rules), or generated:
 * uniform in [0, 1) or standard normal. False after adding the reason to
 * the runner's ds (messages name the file, or the bundle's member). */
bool nnef_runner_set_input(nnef_runner *r, size_t i, const nnef_tensor *t);
/* path "-", a pipe or a FIFO: read as nnef_tensor_read reads them, the
 * shape in the header checked against the input's before the data. */
bool nnef_runner_read_input(nnef_runner *r, size_t i, const char *path);
bool nnef_runner_bundle_input(nnef_runner *r, size_t i, nnef_bundle *b,
			      size_t k);
typedef enum nnef_random { NNEF_UNIFORM, NNEF_NORMAL } nnef_random;
void nnef_runner_random_input(nnef_runner *r, size_t i, nnef_random kind,
			      uint64_t seed);

/* Runs the graph once: one cycle, variables updated at its end. False
 * after adding a run-time error to ds. */
bool nnef_runner_run(nnef_runner *r);

/* Stops the run in progress before its next step (nnef_runner_run then
 * returns false after adding E1312), or the next run before its first:
 * the runner can then only be freed. The one function that may be called
 * while another thread is in a call on r, or from a signal handler (it
 * sets an atomic flag). */
void nnef_runner_interrupt(nnef_runner *r);

/* What a run holds: the graph's outputs, every tensor of the flat graph
 * (computed ones only, unless keep_all), the variables (one per label,
 * named by it). */
typedef enum nnef_run_set {
	NNEF_RUN_OUTPUTS,
	NNEF_RUN_TENSORS,
	NNEF_RUN_VARIABLES,
} nnef_run_set;

size_t nnef_runner_count(const nnef_runner *r, nnef_run_set set);
const char *nnef_runner_name(const nnef_runner *r, nnef_run_set set,
			     size_t i);
/* A copy of tensor i of the set (free with nnef_tensor_free); NULL when
 * it holds no data (freed after its last use, or not computed yet). */
nnef_tensor *nnef_runner_get(const nnef_runner *r, nnef_run_set set,
			     size_t i);
/* Writes tensor i of the set to path as the run computed it: float32, or
 * float64 with double_precision; integers at the width of the widest
 * integer tensor file read (64 bits when none); logicals as 8-bit bools.
 * Atomic as nnef_tensor_write. */
bool nnef_runner_write(const nnef_runner *r, nnef_run_set set, size_t i,
		       const char *path, nnef_diags *ds);

/* Writes every tensor of the set that holds data as the arrays of a .npz
 * at path, named as nnef_runner_name names them, as the run computed
 * them: float32, or float64 with double_precision; integers as int64;
 * logicals as bool (members stored, or deflated with
 * NNEF_WRITE_DEFLATE in flags). Atomic as nnef_tensor_write. */
bool nnef_runner_write_bundle(const nnef_runner *r, nnef_run_set set,
			      const char *path, unsigned flags,
			      nnef_diags *ds);

/* Statistics of a tensor's items as numbers (integers as they are,
 * logicals 0 or 1): how many are finite, NaN, infinite; the minimum,
 * maximum, mean and sample standard deviation (n - 1 degrees of freedom,
 * as NumPy's std(ddof=1) and PyTorch's std; 0 for a single value) of the
 * finite ones, all NaN when none is. */
typedef struct nnef_stats {
	uint64_t count, nan, inf;
	double min, max, mean, std;
} nnef_stats;

/* The statistics of t's items (nnef-run --stats). */
void nnef_tensor_stats(const nnef_tensor *t, nnef_stats *st);

/* With the option statistics: those of tensor i of NNEF_RUN_TENSORS over
 * the last run, the same numbers nnef_tensor_stats gives for the tensor
 * it computed. False (st untouched) for a tensor the graph does not name
 * (one an operation's expansion made, such as max's comparison), or
 * without the option. The tensors the graph names are its inputs, its
 * variables and constants, and every result bound to an identifier of
 * its body. */
bool nnef_runner_stats(const nnef_runner *r, size_t i, nnef_stats *st);

/* The statistics of every tensor the graph names, as one JSON object
 * keyed by name in the order of the flat graph: each value an object
 * {"min", "max", "mean", "std", "count", "nan", "inf"}, the first four
 * null when no item is finite (nnef-run --statistics; see nnef-run(1)).
 * NULL without the option statistics. Free with free(). */
char *nnef_runner_stats_json(const nnef_runner *r);

/* How the runner computes each operation of the flat graph, in order:
 * by its own kernel (RUNS; *nfused operations are computed inside it),
 * inside the step of operation *by (FUSED), as a view of its input's
 * buffer (VIEW), or not at all (NOTHING: inputs, variables, constants). */
typedef enum nnef_plan_how {
	NNEF_PLAN_RUNS, NNEF_PLAN_FUSED, NNEF_PLAN_VIEW, NNEF_PLAN_NOTHING
} nnef_plan_how;
size_t nnef_runner_plan_count(const nnef_runner *r);
const nnef_op *nnef_runner_plan_op(const nnef_runner *r, size_t i,
				   nnef_plan_how *how, const nnef_op **by,
				   size_t *nfused);
/* The method of operation i of the plan when its kernel computes it
 * otherwise than term by term ("Winograd F(2x2, 3x3)" for a conv so
 * computed, whose results differ by rounding), else NULL. */
const char *nnef_runner_plan_method(const nnef_runner *r, size_t i);

/* With profile: seconds each operation of the last run took, in order. */
size_t nnef_runner_profile_count(const nnef_runner *r);
const nnef_op *nnef_runner_profile_op(const nnef_runner *r, size_t i,
				      double *seconds);

#ifdef __cplusplus
}
#endif

#endif
