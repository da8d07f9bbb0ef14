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

#include "util/diag.h"

/* ---- compile-time values (spec 3.3.3) ---------------------------------- */

typedef enum ValKind {
	VAL_INT,    /* u.i */
	VAL_SCALAR, /* u.s */
	VAL_BOOL,   /* u.b */
	VAL_STR,    /* u.str (not NUL-terminated; may share storage) */
	VAL_ARRAY,  /* u.list */
	VAL_TUPLE,  /* u.list */
	VAL_TENSOR, /* u.t */
	VAL_SYMBOL, /* an integer known only when the model runs: a symbol of
		      the vendor extension tract_symbol (--lenient); u.str
		      its name */
} ValKind;

/* A tensor of the flat graph; defined by flatten/ (shapes never look
 * inside it: the shapes of tensor arguments are passed separately). */
typedef struct FlatTensor FlatTensor;
typedef struct Value Value;

/* 16 bytes: a flat graph has a value per tensor. */
struct Value {
	ValKind kind;
	uint32_t n;             /* VAL_STR, VAL_SYMBOL: the length in bytes;
				   VAL_ARRAY, VAL_TUPLE: the number of items
				   (at most VALUE_MAX_ITEMS) */
	union {
		int64_t i;
		double s;
		bool b;
		const char *str;        /* VAL_STR, VAL_SYMBOL: n bytes */
		/* VAL_ARRAY, VAL_TUPLE: items may point into another
		 * array's storage: a slice costs O(1) */
		const Value *const *items;
		FlatTensor *t;
	} u;
};

#define VALUE_MAX_ITEMS UINT32_MAX

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
};

const char *shape_op_name(ShapeOp op);
unsigned shape_op_flags(ShapeOp op);
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
} ShapeCall;

/* Checks the arguments of c->op and computes the result shapes. Returns
 * false after filling code, param, msg (and maybe hint) for the first rule
 * the arguments break. Result extents may share storage with the inputs'.
 */
bool shape_infer(ShapeCall *c);

/* The volume of a shape; false when it does not fit in 63 bits. */
bool shape_volume(const Shape *s, int64_t *out);
/* Writes [d0,d1,...] ("[?]" when not known). */
void shape_print(StrBuf *out, const Shape *s);
bool shape_equal(const Shape *a, const Shape *b);

#endif
