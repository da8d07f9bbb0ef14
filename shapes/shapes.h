/*
 * shapes.h - the primitives of NNEF and their argument validity and result
 * shapes (spec 1.0.2 chapter 4 "Operations", with the 1.0.3 - 1.0.5
 * additions: the "Argument validity" and "Result semantics" paragraphs of
 * every primitive).
 *
 * The shape functions are pure: from the op, its argument values and the
 * shapes of its tensor arguments they compute the shapes of its results,
 * or describe the first rule the arguments break (a stable diagnostic
 * code, the parameter at fault, a message). They know nothing of
 * flattening; the flattener calls shape_infer for each primitive as it
 * emits it, and turns an error into a positioned diagnostic.
 *
 * Shape arithmetic is 64-bit and checked: an extent or a volume that does
 * not fit is an error (E0929), never undefined behaviour.
 */
#ifndef NNEF_SHAPES_H
#define NNEF_SHAPES_H

#include "shapes/value.h"
#include "util/diag.h"

/* ---- the table of primitives (shapes/primitives.def) -------------------- */

typedef enum ShapeOp {
#define SHAPE_PRIM(id, name, fn, flags, ...) SHAPE_OP_##id,
#include "shapes/primitives.def"
#undef SHAPE_PRIM
	SHAPE_OP_COUNT,
	SHAPE_OP_NONE = SHAPE_OP_COUNT /* not a primitive */
} ShapeOp;

/* What kind of primitive a row is. */
enum {
	SF_INTRO = 1 << 0,        /* introduces a tensor (4.1) */
	SF_UNARY = 1 << 1,        /* element-wise, one tensor (4.2.1, cast) */
	SF_BINARY = 1 << 2,       /* element-wise with broadcasting (4.2.2) */
	SF_SELECT = 1 << 3,       /* three-way broadcasting (4.2.3) */
	SF_WINDOW = 1 << 4,       /* sliding window (4.3) */
	SF_REVERSE = 1 << 5,      /* maps down-scaled to up-scaled (4.3) */
	SF_REDUCE = 1 << 6,       /* reduction over axes (4.4) */
	SF_LAYOUT = 1 << 7,       /* tensor shape operation (4.5) */
	SF_ARRAY_RESULT = 1 << 8, /* its result is a tensor array */
	SF_ROI = 1 << 9,          /* region of interest (4.6) */
	SF_MATMUL = 1 << 10,      /* matrix multiplication (4.7) */
	SF_UPDATE = 1 << 11,      /* variable update (4.8) */
	SF_SYMBOLIC = 1 << 12,    /* its shape function computes with extents
				     known only when the model runs
				     (dim_is_symbolic); without it, such
				     inputs give results of unknown shape */
	SF_TRACT = 1 << 13,       /* an operation of a registry of tract's
				     dialect (sema/tract/) */
	SF_TUPLE_RESULT = 1 << 14, /* several results: outs, one each */
	SF_COMPARE = 1 << 15,     /* a result of logicals computed from
				     inputs of any datum type */
	SF_NESTED = 1 << 16,      /* runs another graph (tract_core_scan):
				     the flattener, which evaluates that graph,
				     gives its results their shapes */
};
/* Attribute parameter i may be an integer known only when the model runs
 * (a VAL_SYMBOL, at any depth); others must be known numbers. */
#define SF_SYMP(i) ((uint64_t)1 << (32 + (i)))

const char *shape_op_name(ShapeOp op);
uint64_t shape_op_flags(ShapeOp op);
/* The number of parameters, and the name of parameter i, in declaration
 * order. */
size_t shape_op_nparams(ShapeOp op);
const char *shape_op_param(ShapeOp op, size_t i);
/* The primitive named `name` (NUL-terminated), or SHAPE_OP_NONE. */
ShapeOp shape_op_lookup(const char *name);

/* ---- shapes --------------------------------------------------------------- */

/* The shape of a tensor. A literal given where a tensor is expected has
 * the singleton shape of rank 0 (spec 3.3.1). Extents are positive, except
 * that a slice may be empty along an axis (extent 0, spec 1.0.5 4.5.4). */
typedef struct Shape {
	const int64_t *dims; /* rank extents; may be NULL when rank is 0 */
	uint32_t rank;
	bool known;          /* false: not known at compile time (a result of
				a custom operation, spec chapter 6) */
} Shape;

/* The shapes of one argument: one for a tensor parameter, one per item
 * for a tensor-array parameter (concat, stack), none for an attribute. */
typedef struct ShapeIn {
	const Shape *items;
	size_t n;
} ShapeIn;

/* The most results a primitive has (SF_TUPLE_RESULT). */
enum { SHAPE_MAX_RESULTS = 4 };

/* What is known, when the graph is built, of the items of a tensor
 * argument (tract's dialect): its items in row-major order (VAL_INT,
 * VAL_SYMBOL, VAL_SCALAR, VAL_BOOL or VAL_STR), or NULL. */
typedef struct ShapeKnown {
	const Value *items;
	uint32_t n;
} ShapeKnown;

/* One invocation of shape_infer. The caller fills the inputs; the
 * function fills the outputs. */
typedef struct ShapeCall {
	/* inputs */
	ShapeOp op;
	const Value *const *args; /* one per parameter, defaults substituted
				     (those of tensor parameters are not
				     read: their shapes are in `in`) */
	const ShapeIn *in;        /* one per parameter */
	Arena *arena;             /* where result extents are allocated */
	StrBuf *msg;              /* receives an error's message */
	StrBuf *hint;             /* receives an error's hint (may stay
				     empty) */
	/* tract's dialect (NULL or zero otherwise) */
	bool tract_rules;         /* read the standard operations as tract
				     does where it differs (nnef-tract(7)) */
	DimTable *dims;           /* where symbolic extents are made */
	const DType *in_dtypes;   /* per parameter: the datum type of its
				     tensor (an array's first item's),
				     DT_NONE when not known */
	const ShapeKnown *values; /* per parameter: the known items of its
				     tensor (items NULL when not known), or
				     NULL */
	/* how messages name an argument: what the caller calls the argument
	   of parameter p (the tensor the user named there), or NULL for the
	   parameter's own name; called only to write a message. A NULL
	   arg_name: parameters are named as declared. The shape function
	   stays a function of its arguments: the caller, which knows where
	   each came from, lends the names. */
	const char *(*arg_name)(void *ctx, int p);
	void *arg_ctx;
	bool lenient;             /* --lenient: accept, as deviations, what
				     tract and NNEF-Tools read where the
				     specification refuses it (unsqueeze's
				     repeated axes) */
	/* outputs */
	bool known;               /* every tensor argument's shape is known
				     (when not, attributes are still
				     checked, and the results are unknown) */
	Shape out;                /* the result (not SF_ARRAY_RESULT) */
	Shape *outs;              /* SF_ARRAY_RESULT: the items, or NULL
				     when their number is not known */
	size_t nouts;
	DiagCode code;            /* the error, when shape_infer fails */
	int param;                /* the parameter at fault, -1 for the
				     invocation as a whole */
	/* tract's dialect */
	DType dtypes[SHAPE_MAX_RESULTS]; /* the results' datum types (an
				     array result's items all dtypes[0]);
				     DT_NONE: by the rule of the op's flags */
	bool data_dependent;      /* the results' shapes depend on the
				     values of the inputs, not known when
				     the graph is built: unknown, and msg
				     says why */
	uint32_t named;           /* the parameters (below 32) the message
				     names (shape_pname), by the name
				     arg_name gave or their own */
	bool deviation;           /* lenient: the arguments break a rule
				     that lenient relaxes; code, param and
				     msg say which (reported as a warning) */
} ShapeCall;

/* Checks the arguments of c->op and computes the result shapes. Returns
 * false after filling code, param, msg (and maybe hint) for the first rule
 * the arguments break. Result extents may share storage with the inputs'.
 */
bool shape_infer(ShapeCall *c);

/* Whether an extent of s is symbolic (known only when the model runs). */
bool shape_is_symbolic(const Shape *s);
/* The volume of a shape; false when it does not fit in 63 bits, or an
 * extent is symbolic. */
bool shape_volume(const Shape *s, int64_t *out);
/* Writes [d0,d1,...] ("[?]" when not known). */
void shape_print(StrBuf *out, const Shape *s);
bool shape_equal(const Shape *a, const Shape *b);

#endif
