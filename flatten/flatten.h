/*
 * flatten.h - compile-time evaluation and expansion into primitives (spec
 * 3.3.3 Building Expressions; chapter 6, the flattened format).
 *
 * flatten_graph evaluates the graph's body with the values of spec 3.3.3
 * (lazily: only the taken branch of an if-else is evaluated), expands
 * every compound fragment into the primitives it is made of, and records
 * the result as a FlatGraph: tensors and operations in a valid
 * topological order, each operation with a value for every parameter
 * (defaults substituted) and its concrete generic type. Operations that
 * stay invocations: primitives, custom operations (declared without body,
 * not standard), and compounds the caller asks to keep.
 */
#ifndef NNEF_FLATTEN_H
#define NNEF_FLATTEN_H

#include "sema/sema.h"
#include "shapes/shapes.h"

/* ---- values (the Value type is in shapes/value.h) ----------------------- */

/* The value as an NNEF literal (tensors by name; print.c). */
void flat_print_value(StrBuf *out, const Value *v);

/* ---- the flat graph --------------------------------------------------- */

/* A compound expansion, for "in expansion of" notes: kept by every
 * operation it made (40 bytes: a million expansions). While its body is
 * evaluated, the flattener also knows its call and arguments
 * (flatten_internal.h, Expansion). A graph has one more, its root: no
 * fragment, depth 0, its loc the graph's (FlatOp.where). */
typedef struct Frame {
	const SemaFrag *frag;
	Loc loc;              /* the invocation expanded */
	const struct Frame *parent;
	uint32_t depth;       /* 1 for a call written in the graph */
} Frame;

/* 48 bytes, its value included: a flat graph may have millions. */
struct FlatTensor {
	Value value;          /* the tensor as a value (VAL_TENSOR, u.t this
				 tensor), whose n is its id: its place in
				 creation order (flat_tensor_id) */
	const char *name;     /* its name: given when it is created, or the
				 graph identifier it is bound to (the first) */
	struct FlatOp *producer;
	/* its shape (flat_tensor_shape), computed when its producer is
	 * emitted: the fields of a Shape, kept here beside the next two so
	 * that no padding is left */
	const int64_t *dims;
	uint32_t rank;
	bool known;
	bool bound;           /* bound to a graph identifier, whose name it
				 has taken */
	uint8_t dtype;        /* 1 + the TypeKind of its data type (integer,
				 scalar or logical; '?' when not bound); 0
				 for tensor<> (flat_tensor_dtype) */
	uint8_t datum;        /* the DType of its items in tract's dialect
				 (f16, i64, tdim...); DT_NONE in Khronos
				 NNEF, or where not known */
};

/* t's place in creation order: flat_tensor(g, id) is t. */
static inline uint32_t flat_tensor_id(const FlatTensor *t)
{
	return t->value.n;
}

static inline Shape flat_tensor_shape(const FlatTensor *t)
{
	Shape s = { t->dims, t->rank, t->known };
	return s;
}

/* 32 bytes before its results and arguments: a flat graph may have
 * millions. */
typedef struct FlatOp {
	const SemaFrag *frag;   /* primitive, custom or kept operation */
	const Frame *where;     /* the expansion it came from, or when written
				   in the graph, the graph's root frame (no
				   fragment; its loc is the graph's):
				   flat_op_frame */
	uint32_t off, len;      /* the invocation (or operator), in the file
				   of the body that holds it: flat_op_loc */
	uint32_t var;           /* a variable: 1 + the index of its label's
				   first variable in the graph's vars */
	uint16_t prim;          /* ShapeOp: the primitive, or SHAPE_OP_NONE */
	uint8_t generic;        /* 1 + the TypeKind of the primitive type '?'
				   is bound to (spec 3.1: '?' stands for a
				   primitive type); 0 if none (flat_op_generic) */
	const Value *results[]; /* one per result (at least one slot): a
				   tensor, or an array of tensors; then the
				   arguments (flat_op_args) */
} FlatOp;

/* The expansion op came from; NULL when written in the graph. */
static inline const Frame *flat_op_frame(const FlatOp *op)
{
	return op->where->frag ? op->where : NULL;
}

/* The invocation (or operator) op was made by. It is in the body of the
 * fragment expanded (every operation of an expansion comes from its
 * body), or in the graph's. */
static inline Loc flat_op_loc(const FlatOp *op)
{
	const Frame *w = op->where;
	Loc l = { w->frag ? w->frag->def->loc.file : w->loc.file, op->off,
		  op->len };
	return l;
}

/* The arguments of op, after its results: one per parameter, defaults
 * substituted. */
static inline const Value **flat_op_args(const FlatOp *op)
{
	size_t nres = op->frag->nresults ? op->frag->nresults : 1;
	return (const Value **)(uintptr_t)(op->results + nres);
}

/* The data type of t (a primitive type, or '?'), NULL for tensor<>. */
static inline const Type *flat_tensor_dtype(const FlatTensor *t,
					    const TypeTable *tt)
{
	return t->dtype ? ty_prim(tt, (TypeKind)(t->dtype - 1)) : NULL;
}

/* Whether the document names t: bound to a graph identifier (the graph's
 * inputs and outputs, every identifier its body assigns), or made by a
 * variable (whose data file has its label), even inside a compound. The
 * others are the internals of compound expansions and the results of
 * invocations nested in expressions. */
static inline bool flat_tensor_named(const FlatTensor *t)
{
	return t->bound || (t->producer && t->producer->prim == SHAPE_OP_VARIABLE);
}

/* The kind of t's data type, TY_TENSOR for tensor<>. */
static inline TypeKind flat_tensor_kind(const FlatTensor *t)
{
	return t->dtype ? (TypeKind)(t->dtype - 1) : TY_TENSOR;
}

/* The concrete binding of '?' in op, NULL if none. */
static inline const Type *flat_op_generic(const FlatOp *op,
					  const TypeTable *tt)
{
	return op->generic ? ty_prim(tt, (TypeKind)(op->generic - 1)) : NULL;
}

/* Adds to d one "in expansion of 'f' at file:line:col" note per frame,
 * innermost first (long chains shortened). */
void flat_note_frames(DiagList *diags, Diag *d, const Frame *frame);

typedef struct FlatGraph {
	const AstDef *graph;
	const SemaProgram *prog;
	FlatTensor **inputs;    /* the graph's parameters, in order */
	size_t ninputs;
	const Value **outputs;  /* the graph's results, in order */
	size_t noutputs;
	FlatOp **ops;
	size_t nops;
	FlatTensor **tensor_blocks; /* the tensors, FLAT_TENSOR_BLOCK a block
				     (flat_tensor) */
	size_t ntensors;
	FlatOp **vars;          /* the first variable operation of each
				   label, compared ignoring case (4.1.3) */
	size_t nvars;
	const SemaFrag **keep;  /* document fragments the output declares */
	size_t nkeep;
	DimTable *dims;         /* the symbolic integers its shapes and values
				   hold (tract's dialect, --lenient), or NULL:
				   freed by flat_graph_free */
	struct FlatQuant **quant; /* graph.quant's entries for its tensors,
				   in graph order (FlattenOptions.quant) */
	size_t nquant;
	bool quantized;         /* they are applied: the graph computes the
				   quantized values (FlattenOptions.quantize) */
} FlatGraph;

/* An entry of graph.quant with its arguments' values (spec 5.3): the
 * tensor's name, its quantization operation, and per parameter the
 * value (args[0] the tensor before quantization; a per-channel array as
 * the array it is). */
typedef struct FlatQuant {
	const char *tensor;
	Loc loc;                /* the entry's name in graph.quant */
	const SemaFrag *op;
	const Value **args;
} FlatQuant;

/* Gives back what a graph holds outside its arena. */
void flat_graph_free(FlatGraph *g);

/* The tensors of a graph are kept in blocks of this many, in creation
 * order: no array of a pointer per tensor. */
enum { FLAT_TENSOR_BLOCK = 4096 };

/* The i-th tensor of g (i < g->ntensors), whose id is i. */
static inline FlatTensor *flat_tensor(const FlatGraph *g, size_t i)
{
	return &g->tensor_blocks[i / FLAT_TENSOR_BLOCK][i % FLAT_TENSOR_BLOCK];
}

/* A shape given by the user for an external (spec 2.2: a consumer may
 * fix the shape of an input). */
typedef struct InputShape {
	const char *name;       /* the graph parameter */
	const int64_t *dims;
	size_t rank;
} InputShape;

typedef struct FlattenOptions {
	size_t max_depth;       /* compound expansions nested at most */
	bool keep_standard;     /* keep every standard compound atomic */
	const char *const *keep; /* names of compounds to keep atomic */
	size_t nkeep;
	const InputShape *input_shapes; /* replace these externals' shapes */
	const AstDoc *quant;    /* graph.quant, checked (sema_check_quant):
				   its entries' values are evaluated and
				   checked against their tensors (E1206) */
	bool quantize;          /* and applied, each tensor named there
				   quantized after it is computed (spec 7.1) */
	size_t ninput_shapes;
	size_t max_ops;           /* operations in the flat graph at most
				     (0: the default); E0812 beyond */
	bool lenient;             /* --lenient: the deviations of producers
				     the shape checks relax are warnings */
	uint64_t max_value_bytes; /* memory that compile-time values built by
				     operators and built-ins (repetition,
				     concatenation, range_of, comprehensions)
				     may take in all; 0: the default */
	/* tract's dialect: what the model holds besides its graph, asked of
	 * the model's layer with model_ctx. The datum type of the tensor file
	 * of the variable labelled label[0..len), DT_NONE when there is none
	 * (NULL: none is ever known) */
	DType (*var_datum)(void *ctx, const char *label, size_t len);
	void *model_ctx;
	/* The flat graph of the model inside the model in
	 * the folder label[0..len), which tract_core_submodel runs (at
	 * `at`), checked once, its diagnostics reported; NULL when there is
	 * no such model (*invalid false) or it is not valid (*invalid true).
	 * NULL: the model has no container (a bare graph file). */
	const struct FlatGraph *(*submodel)(void *ctx, const char *label,
					    size_t len, Loc at, bool *invalid);
} FlattenOptions;

#define FLATTEN_DEFAULT_MAX_DEPTH 100000
#define FLATTEN_DEFAULT_MAX_VALUE_BYTES ((uint64_t)256 << 20)
#define FLATTEN_DEFAULT_MAX_OPS 10000000

/* Flattens the checked program's graph. Returns NULL after reporting
 * errors. The graph lives in the arena. */
FlatGraph *flatten_graph(const SemaProgram *prog, Arena *arena,
			 Interner *interner, DiagList *diags,
			 const FlattenOptions *opt);

/* The same in steps, for a graph body handed over one assignment at a
 * time (parse_document_streamed), on any thread (the expansions go as
 * deep as what is left of its stack allows, then stop with E0806):
 * flatten_begin when the graph's declaration is known (its body is NULL
 * then: the identifiers are reserved as they come); flatten_stmt for
 * each assignment, false when the flattening cannot go on (an error was
 * reported, a limit was reached, or an identifier is a name already
 * given to a tensor of an expansion before it was seen; the whole body
 * must then be flattened with flatten_graph); flatten_end binds the
 * graph's parameters and results, frees the state and returns the graph,
 * or NULL after errors. */
typedef struct FlatStream FlatStream;
FlatStream *flatten_begin(const SemaProgram *prog, Arena *arena,
			  Interner *interner, DiagList *diags,
			  const FlattenOptions *opt);
bool flatten_stmt(FlatStream *fs, const AstAssign *st);
FlatGraph *flatten_end(FlatStream *fs);
/* Makes room for n operations (and as many variables) in the lists the
 * graph grows, so that they are not copied as they double: room never
 * written is address space, not memory. Right after flatten_begin; a
 * hint, which does nothing when the room cannot be had. */
void flatten_reserve(FlatStream *fs, size_t n);
/* A parameter of a fragment flattened as a graph: a value given as it is
 * (value), or else a tensor of this data type, datum type and shape. */
typedef struct FlatParam {
	const Value *value;
	TypeKind kind;
	uint8_t datum;
	const int64_t *dims;
	uint32_t rank;
} FlatParam;

/* Flattens fragment f (with a body) as the body of a graph whose inputs
 * are its parameters (one per parameter; NULL where params[i].value is
 * given) and whose outputs are its results: tract_core_scan's body, at
 * the shapes of one iteration. `at` is where it is run from (the frame of
 * its diagnostics). NULL after reporting errors. */
FlatGraph *flatten_fragment(const SemaProgram *prog, Arena *arena,
			    Interner *interner, DiagList *diags,
			    const FlattenOptions *opt, const SemaFrag *f,
			    const FlatParam *params, Loc at);

/* tract_core_scan: whether the string v names the body's parameter or
 * result `name`, as it is or as tract escapes it (characters other than
 * letters and digits written '_'). */
bool flat_scan_names(const Value *v, const char *name);

/* Runs fn(ctx) on a thread with a stack of 1 GiB of address space, so
 * that deep recursions such as add_n over thousands of tensors are
 * limited by --max-depth, not by the C stack (on this thread, within its
 * limit, when no thread can be made). */
void flatten_run_deep(void (*fn)(void *ctx), void *ctx);

/* Writes the flat document: version, extensions, declarations of custom
 * and kept fragments, the graph. With annotate_shapes, each operation
 * ends with a comment giving its results' types and shapes. */
void flat_print(StrBuf *out, const FlatGraph *g, bool annotate_shapes);
/* Writes "NAME: TYPE[D0,D1,...]" for each tensor the document names
 * (flat_tensor_named), or with all for every tensor, in definition order
 * ("[?]" for a shape that is not known). */
void flat_print_shapes(StrBuf *out, const FlatGraph *g, bool all);
/* Writes the graph as a Graphviz DOT digraph: a node per operation (in
 * order, "op<i>"), a sink per output, an edge per (tensor, consumer)
 * labelled with the tensor's name and shape (flatten/dot.c). With
 * fold_weights, the variables and constants that operations consume
 * (and that are not outputs) are lines of their consumers' labels
 * instead of nodes. */
void flat_print_dot(StrBuf *out, const FlatGraph *g, bool fold_weights);

#endif
