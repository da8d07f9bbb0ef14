/*
 * flatten_internal.h - state shared by the evaluator (eval.c) and the
 * flat graph builder (build.c).
 */
#ifndef NNEF_FLATTEN_INTERNAL_H
#define NNEF_FLATTEN_INTERNAL_H

#include "flatten/flatten.h"

/* The graph's body, or one compound expansion. */
typedef struct Scope {
	const SemaFrag *frag;     /* NULL for the graph, whose values are kept
				     on the names (flat_graph_value) */
	const Type *generic;      /* what '?' is here (concrete) */
	const char *prefix;       /* name hint of the expansion ("" in the
				     graph) */
	const Frame *frame;       /* NULL for the graph */
	const struct Target *results; /* the caller's target for each result */
	PtrMap env;               /* identifier (interned) -> const Value * */
} Scope;

/* Where a value goes: a left-hand side (names its tensors), or nothing
 * (an anonymous intermediate, named after `anon` and its operation). */
typedef struct Target {
	const AstExpr *lhs;       /* NULL: anonymous */
	const Scope *scope;       /* the scope whose identifiers lhs names */
	const char *anon;         /* base of the name of anonymous values */
	const char *name;         /* the name reserved for lhs, when it is an
				     identifier local to a compound */
} Target;


/* An expansion in progress: its frame, and what the frame needs only
 * while its body is evaluated (to point a shape error inside a standard
 * compound at the argument the user wrote). */
typedef struct Expansion {
	const Frame *frame;
	const AstExpr *call;      /* the invocation being expanded */
	const Value **args;       /* its argument values, one per parameter */
} Expansion;

/* The hash of a variable's label, ignoring case (4.1.3). */
uint32_t flat_label_hash(const char *s, size_t n);

/* A slot of the table of labels: 1 + an index in vars (0: free), and
 * the label's hash, compared before the label itself. */
typedef struct FlatLabel {
	uint32_t var;
	uint32_t hash;
} FlatLabel;

typedef struct Flattener {
	const SemaProgram *prog;
	TypeTable *tt;
	Arena *arena;
	Interner *interner;
	DiagList *diags;
	const FlattenOptions *opt;
	FlatGraph *g;
	/* growing lists, moved into the arena at the end */
	FlatOp **ops;
	size_t nops, capops;
	FlatTensor **tensor_blocks; /* the graph's tensors (flat_tensor) */
	size_t ntensors, captensor_blocks;
	/* comprehension iterators in scope (innermost last) */
	const char **iter_names;
	const Value **iter_values;
	size_t niters, capiters;
	Expansion *exps;          /* the expansions in progress, outermost
				     first: a frame of depth d is at d - 1 */
	size_t nexps, capexps;
	PtrMap defaults;          /* default value: AstExpr * -> Value *,
				     evaluated once */
	/* the compounds kept atomic */
	const SemaFrag **kept;
	size_t nkept;
	/* C stack guard for deep expansions */
	uintptr_t stack_base;
	size_t stack_budget;
	bool too_deep;            /* E0806 or E0812 reported: stop */
	uint64_t value_bytes;     /* spent of opt->max_value_bytes */
	PtrMap counters;          /* name base -> next suffix (uintptr_t) */
	PtrMap results;           /* the graph's result identifiers (a set) */
	PtrMap used;              /* the document fragments the graph's
				     operations come from, and what their
				     bodies call (flat_mark_declared) */
	const char *copy_name;    /* interned name of the standard copy */
	const SemaFrag *op_frags[AST_NOPS][2]; /* the fragment of each
				     operator (binary, unary), once used */
	/* shape propagation (shape.c) */
	PtrMap prims;             /* SemaFrag * -> its ShapeOp + 1 */
	StrBuf msg, hint;         /* the text of a shape error */
	StrBuf key;               /* a label being lower-cased */
	Shape *scratch;           /* shapes of a tensor-array argument */
	size_t capscratch;
	FlatLabel *labels;        /* open addressing over vars by label
				     (ignoring case) */
	size_t caplabels;         /* a power of two, or 0 */
	const FlatOp *label_op;   /* the variable whose label's hash is */
	uint32_t label_hash;      /* label_hash, found ahead (ask_label) */
	FlatOp **vars;            /* the first variable of each label, in
				     order */
	size_t nvars, capvars;
	PtrMap updated;           /* lower-case label -> the update of a
				     variable with that label */
	PtrMap skipped;           /* custom FlatOp -> the number of
				     operations not shape-checked for want
				     of its results' shapes (uintptr_t) */
	const FlatOp **origins;   /* those custom operations, in order */
	PtrMap reasons;           /* tract's dialect: origin FlatOp -> why its
				     results' shapes are not known (a
				     message), when it is not a custom
				     operation */
	size_t norigins, caporigins;
	PtrMap origin_of;         /* FlatTensor * of unknown shape -> the
				     custom FlatOp it comes from (absent after
				     an error); read only while the shape is
				     not known */
	Arena shape_arena;        /* what one shape_infer call allocates */
	Frame *root;              /* the graph's root frame (FlatOp.where) */
	Arena hints;              /* the name hints of the statement being
				     flattened (interned when they name a
				     tensor; reset after each statement) */
	struct DimsSlot *dims;    /* the extents of results, each distinct
				     shape kept once (shape.c) */
	size_t ndims, capdims;    /* capdims: a power of two, or 0 */
	struct LitSlot *lits;     /* the literals made so far (literal.c) */
	size_t nlits, caplits;
	unsigned dry;             /* > 0 while a kept compound is expanded
				     only to check it: nothing is added to
				     the graph and no name is taken */
	/* tract's dialect (tract.c, known.c) */
	bool tract;               /* the document is read in it */
	size_t result_len;        /* the length of the next array result,
				     when known from the arguments (scan) */
	DimTable *dimtab;         /* symbolic integers (flat_dims), the
				     graph's once it is made */
	PtrMap known;             /* FlatTensor * -> FlatKnown *: values
				     known when the graph is built */
	/* graph.quant (quant_apply.c) */
	PtrMap quants;            /* tensor name -> its entry (AstItem *) */
	PtrMap raw;               /* quantized name -> its value before */
	PtrMap unquantized;       /* quantized tensor -> its value before */
	FlatQuant **quant;        /* the entries applied, in graph order */
	size_t nquant, capquant;
	size_t quant_errors;      /* errors of their values */
} Flattener;

/* build.c: f is the fragment of an operation of the graph */
void flat_mark_declared(Flattener *F, const SemaFrag *f);

/* eval.c */
/* A value error at loc, with the notes of s's expansion frame. */
Diag *flat_value_error(Flattener *F, DiagCode code, Loc loc, const Scope *s,
		       const char *fmt, ...) UTIL_PRINTF(5, 6);
/* A target without a name of its own, its results named after base. */
Target flat_anon_target(const Scope *s, const char *base);
/* The name hint of a target: the identifier it assigns, or its base. */
const char *flat_target_hint(Flattener *F, const Target *t);
/* Takes bytes from the budget of compile-time values for e (E0811). */
bool flat_spend_for(Flattener *F, const AstExpr *e, const Scope *s,
		    uint64_t bytes);
/* builtins.c: a call of a built-in function (spec 3.3.3). */
const Value *flat_eval_builtin(Flattener *F, const AstExpr *e, Scope *s,
			       const Target *t);
const Value *flat_eval_expr(Flattener *F, const AstExpr *e, Scope *s,
		       const Target *t);
/* One assignment of a body. */
void flat_eval_stmt(Flattener *F, const AstAssign *st, Scope *s);
/* The invocation e of f with its arguments' values (one per parameter):
 * emitted, kept or expanded as the options say. */
const Value *flat_invoke(Flattener *F, const AstExpr *e, Scope *s,
			 const Target *t, const SemaFrag *f,
			 const Type *generic, const Value **args);
/* quant_apply.c: after a statement of the graph, the quantization of each
 * tensor its left-hand side names that graph.quant names (spec 7.1). */
void flat_quant_init(Flattener *F);
void flat_quant_stmt(Flattener *F, const AstExpr *lhs, Scope *s);
void flat_quant_free(Flattener *F);
/* update(v, ...) with v quantized: the variable itself is updated (its
 * quantized value is what its readers see). */
void flat_quant_update(Flattener *F, const SemaFrag *f, const Value **args);
/* A new tensor named `exact`, or a free name made from `hint`. */
FlatTensor *flat_new_tensor(Flattener *F, const Type *dtype,
			    const char *exact, const char *hint);
/* A name not used yet, made from hint (hint, hint_2, hint_3...), now
 * taken. */
const char *flat_unique_name(Flattener *F, const char *hint);
/* The value of a graph identifier, and setting it: the graph's scope
 * keeps its values on the names (IDATA_FLAT), not in its env. */
const Value *flat_graph_value(const char *name);
void flat_set_graph_value(Flattener *F, const char *name, const Value *v);
/* A tensor's shape, and where it comes from when it is not known. */
void flat_set_shape(Flattener *F, FlatTensor *t, const Shape *s,
		    const FlatOp *origin);
/* The custom operation the unknown shape of t comes from, or NULL. */
const FlatOp *flat_origin(const Flattener *F, const FlatTensor *t);
/* Whether name is one of the graph's results. */
bool flat_is_result(const Flattener *F, const char *name);
/* A new operation, appended to the graph; its arguments are copied in
 * (args may be the caller's, on its stack). */
FlatOp *flat_emit(Flattener *F, const SemaFrag *frag, const Type *generic,
		  const Value *const *args, Loc loc, const Frame *frame);
const Value *flat_val_int(Flattener *F, int64_t i);
const Value *flat_val_scalar(Flattener *F, double s);
const Value *flat_val_bool(Flattener *F, bool b);
const Value *flat_val_str(Flattener *F, const char *p, size_t len);
const Value *flat_val_list(Flattener *F, ValKind kind, const Value *const *items,
		      size_t n);
/* An integer that may be symbolic: VAL_INT for a constant, else
 * VAL_SYMBOL (its text made). */
const Value *flat_val_dim(Flattener *F, const DimExpr *e);
/* The graph's table of symbolic integers, made when first needed. */
DimTable *flat_dims(Flattener *F);
/* The expression of an integer value (VAL_INT or VAL_SYMBOL). */
const DimExpr *flat_dim_of(Flattener *F, const Value *v);
/* A new diagnostic of code at loc, with the notes of frame. */
Diag *flat_error(Flattener *F, DiagCode code, Loc loc, const Frame *frame,
		 const char *fmt, ...) UTIL_PRINTF(5, 6);

/* literal.c: the value of a literal written in the document (numbers,
 * logicals, short strings, and arrays and tuples of them), made once and
 * shared by every place that writes the same literal: a flat graph of a
 * million operations writes its paddings, strides and shapes a million
 * times. NULL when e is not such a literal. */
const Value *flat_literal(Flattener *F, const AstExpr *e);
/* Whether v is the value of the literal expression e (a number, possibly
 * negative, a logical, a string, an array or tuple of those; reals
 * compared bit for bit); false for any other expression. */
bool flat_literal_equals(const AstExpr *e, const Value *v);
void flat_literals_free(Flattener *F);
/* The expansion of frame while it is in progress, else NULL. */
const Expansion *flat_expansion(const Flattener *F, const Frame *frame);
/* Adds "in expansion of" notes for frame and its parents. */
void flat_add_frames(Flattener *F, Diag *d, const Frame *frame);

/* known.c: tract's dialect. What is known of a tensor's value when the
 * graph is built: its items, row-major (VAL_INT, VAL_SYMBOL, VAL_SCALAR,
 * VAL_BOOL, VAL_STR), or, with items NULL, that it is known when the
 * model is loaded (computed from variables only). */
typedef struct FlatKnown {
	const Value *items;
	uint32_t n;
	const Value *ramp;  /* with items NULL, or NULL: a vector of a length
			       known only when the model runs whose item i
			       is ramp[0] + i * ramp[1], integers
			       (tract_core_range, slices of it) */
} FlatKnown;
/* For a tensor, what is known of it (NULL: nothing); for a literal, its
 * one item. */
const FlatKnown *flat_known(const Flattener *F, const Value *v);
/* The datum type of a value given for a tensor (a literal's as tract's:
 * integers tdim, reals f32), and of an NNEF data type. */
DType flat_value_datum(const Value *v);
DType flat_kind_datum(TypeKind k);
/* Sets the datum types of op's results: c's (the shape function's) or
 * the rule of its flags. */
void flat_set_datums(Flattener *F, FlatOp *op, const ShapeCall *c);
/* s as shape_print writes it ("[1,S,64]"), in the flattener's arena: for
 * messages. */
const char *flat_shape_text(Flattener *F, const Shape *s);
/* An operator of the document (spec 3.3.3) on integers one of which is
 * known only when the model runs (a symbol, or an expression of
 * symbols): the expression, or for a comparison its value when the
 * bounds of the symbols decide it; NULL after an error (E0815, E0803) at
 * loc. */
const Value *flat_dim_operator(Flattener *F, AstOp op, const Value *a,
			       const Value *b, Loc loc, const Frame *frame);
/* tract's dialect: the value of a standard compound tract computes as
 * one operation (min, max of integers: min(0, P + S) is 0, where the
 * expansion's comparison cannot be decided), set on its result. */
void flat_fold_compound(Flattener *F, const SemaFrag *f,
			const Value *const *args, const Value *result);
/* tract's dialect: min or max of integers one of which is symbolic, as
 * nnef-flatten writes them in attributes (begin = [min(S, P)]), is that
 * integer, computed without operations (NULL for any other call). */
const Value *flat_fold_symbolic_call(Flattener *F, const SemaFrag *f,
				     const Value *const *args);
/* Item v converted to datum type `to` as tract casts; false when that
 * cannot be done when the graph is built. */
bool flat_item_cast(Flattener *F, const Value *v, DType to, Value *out);
/* Computes op's result when its inputs are known (small tensors), or
 * notes it known when the model is loaded. */
void flat_fold(Flattener *F, const FlatOp *op);

/* tract.c: tract's dialect */
/* The datum type of a variable: its tensor file's item type (tract keeps
 * it), else its NNEF data type's. */
DType flat_variable_datum(Flattener *F, const FlatOp *op);
/* The arguments of an invocation of f (call) as tract takes them: tensors
 * given for attributes replaced by their values, arrays given for tensors
 * made constants (or stacks). *later is set when a value is known only
 * when the model is loaded (the tensor stays). False after an error. */
bool flat_tract_args(Flattener *F, const SemaFrag *f, const Value **args,
		     const AstExpr *call, const Frame *frame, bool *later);
/* tract runs some standard compounds natively, where its reading differs
 * from their bodies' (softmax over an axis beyond the rank: ignored, with
 * a warning): their arguments adjusted before the expansion. */
void flat_tract_compound(Flattener *F, const SemaFrag *f, const Value **args,
			 const AstExpr *e, const Frame *frame);
/* eval.c, for scan.c: an operation emitted as it is; a compound's body
 * evaluated as a check only (its results have their shapes, nothing
 * joins the graph), its parameters bound to args. */
const Value *flat_call(Flattener *F, const SemaFrag *f, const Type *generic,
		       const Value **args, const AstExpr *e, const Scope *s,
		       const Target *t);
const Value *flat_expand_dry(Flattener *F, const AstExpr *e, Scope *s,
			     const SemaFrag *f, const Value **args);
/* tract.c: whether parameter `param` of `op`, declared an attribute, is
 * one tract's loader wires as an input of the operation, so that its
 * value may be computed when the model runs, or hold several values (the
 * bounds of a range and of a dyn_slice, the per-channel quantization of
 * qconv and qmatmul; TRACT-NOTES.md A.4). */
bool flat_tract_is_wire(const char *op, const char *param);
/* The same, its operations joining the graph (build.c, flatten_fragment). */
const Value *flat_expand(Flattener *F, const AstExpr *e, Scope *s,
			 const SemaFrag *f, const Value **args);

/* scan.c: the operations of tract that run another graph: tract_core_scan
 * (a fragment of the document, per iteration) and tract_core_submodel (a
 * model inside the model). */
bool flat_is_nested(const SemaFrag *f);
const Value *flat_tract_nested(Flattener *F, const SemaFrag *f,
			       const Type *generic, const Value **args,
			       const AstExpr *e, Scope *s, const Target *t);

/* The tensor a value assigned whole to the graph identifier lhs is: a
 * constant, a stack, or the one tensor of an array result; NULL after
 * an error. */
const Value *flat_tract_assigned(Flattener *F, const AstExpr *lhs,
				 const Value *v, const Frame *frame);

/* shape.c */
void flat_shapes_init(Flattener *F);
void flat_shapes_free(Flattener *F);
/* Checks the arguments of op, just emitted for the invocation (or
 * operator expression) `call`, NULL for none, and sets its results' shapes;
 * also the rules across operations (shared variable labels, updates). A
 * custom operation's results get unknown shapes; a kept compound's are
 * set by its caller. */
void flat_infer_shapes(Flattener *F, FlatOp *op, const AstExpr *call);
/* One note per custom operation whose unknown results kept operations
 * from being shape-checked. */
void flat_shape_notes(Flattener *F);
/* The rules a standard compound states beyond those of the primitives it
 * expands to, checked before its expansion (call e, argument values
 * args, in scope s). */
void flat_check_compound(Flattener *F, const SemaFrag *f, const Value **args,
			 const AstExpr *e, const Scope *s);

#endif
