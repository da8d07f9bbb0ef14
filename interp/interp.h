/*
 * interp.h - the reference interpreter: runs a checked, flattened graph
 * (spec chapter 4: every primitive's formula) on the data of its model.
 *
 * Values: scalar tensors hold float (INTERP_FLOAT) or double
 * (INTERP_DOUBLE: everything computed in float64), integer tensors
 * int64_t, logical tensors uint8_t (0 or 1). tract's finer datum types
 * are held in these and brought back to their type after each
 * operation: f16 rounded to half precision, narrow integers wrapped. Buffers are freed after their
 * last consumer; variables and the graph's outputs persist. GEMM-shaped
 * work (conv, deconv, matmul) goes through CBLAS; the same input gives
 * bit-identical results across runs.
 *
 * Problems are diagnostics in the DiagList given to interp_new; nothing
 * here prints or exits.
 */
#ifndef NNEF_INTERP_H
#define NNEF_INTERP_H

#include "model/model.h"

typedef enum InterpPrecision {
	INTERP_FLOAT,   /* scalars as float32 */
	INTERP_DOUBLE,  /* scalars as float64 */
} InterpPrecision;

/* A tensor's values. */
typedef struct ITensor {
	TypeKind dtype;        /* TY_SCALAR, TY_INTEGER or TY_LOGICAL */
	uint8_t datum;         /* tract's dialect: the DType its items have
				  (f16 values are held rounded to half
				  precision, narrow integers wrapped to their
				  width); DT_NONE: the NNEF data type's */
	uint32_t rank;
	const int64_t *dims;
	size_t count;          /* items: the volume */
	void *data;            /* count items: float/double, int64_t or
				  uint8_t; NULL when not computed or freed */
} ITensor;

typedef struct Interp Interp;

typedef struct InterpOptions {
	InterpPrecision precision;
	bool keep_all;         /* keep every intermediate (for --dump-all) */
	bool profile;          /* time each operation */
	uint64_t max_memory;   /* bytes a run may need at least (its tensors
				  and variables): 0 means the machine's
				  physical memory; E1305 beyond */
	/* called after each step of a run (may be NULL) */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
} InterpOptions;

/* Prepares to run m's flat graph (m must be valid). Returns NULL after
 * reporting why it cannot run (a custom operation, a shape that is not
 * known: E1302), naming each operation and where it is. */
Interp *interp_new(const Model *m, const InterpOptions *opt,
		   DiagList *diags);
void interp_free(Interp *it);

/* ---- data ----------------------------------------------------------------- */

/* Loads the variables from the model's tensor files (quantized items are
 * decoded to real values; graph.quant gives the parameters of codes 2
 * and 3). With random_missing, a variable without a file gets values
 * from the generator instead of an error. Returns false after
 * reporting. */
bool interp_load_variables(Interp *it, const Model *m, bool random_missing,
			   uint64_t seed);

/* The graph's inputs (externals), in order. */
size_t interp_ninputs(const Interp *it);
const char *interp_input_name(const Interp *it, size_t i);
/* The tensor of input i, to be filled by the caller (allocated here). */
ITensor *interp_input(Interp *it, size_t i);
/* Fills input i from a tensor file's bytes (header validated, shape and
 * data type compared with the graph's; errors name both). */
bool interp_read_input(Interp *it, size_t i, const char *path);
/* Fills input i with pseudo-random values: uniform in [0, 1) or
 * standard normal (integers: 0..9, logicals: 0 or 1). */
typedef enum InterpRandom { INTERP_UNIFORM, INTERP_NORMAL } InterpRandom;
void interp_random_input(Interp *it, size_t i, InterpRandom kind,
			 uint64_t seed);

/* ---- running ---------------------------------------------------------------- */

/* Runs the graph once (one cycle: variables updated at its end). Returns
 * false after reporting a run-time error (E13xx: an index out of range,
 * a buffer too large). */
bool interp_run(Interp *it);

/* The graph's outputs (results), in order, valid after interp_run. */
size_t interp_noutputs(const Interp *it);
const char *interp_output_name(const Interp *it, size_t i);
const ITensor *interp_output(const Interp *it, size_t i);

/* Every tensor of the graph in definition order (with keep_all, all hold
 * data after a run). */
size_t interp_ntensors(const Interp *it);
const char *interp_tensor_name(const Interp *it, size_t i);
const ITensor *interp_tensor(const Interp *it, size_t i);

/* Variables (one per label), for --save-variables. */
size_t interp_nvariables(const Interp *it);
const char *interp_variable_label(const Interp *it, size_t i);
const ITensor *interp_variable(const Interp *it, size_t i);

/* Item i of t as a double (any data type). */
double interp_value(const Interp *it, const ITensor *t, size_t i);
InterpPrecision interp_precision(const Interp *it);

/* The width of integer items in the tensor files read (inputs and
 * variables): the widest, or 64 when none was read. */
int interp_integer_bits(const Interp *it);

/* The items of t as the run computed them, for the writers of tensor
 * files (datfile's DatItemsFn): ctx is an InterpItems. */
typedef struct InterpItems {
	const Interp *it;
	const ITensor *t;
} InterpItems;
void interp_items(void *ctx, uint64_t first, size_t n, DatItem *out);

/* Writes t as a tensor file (float32 or float64 by precision; integers as
 * int64 unless `int_bits` says narrower; logicals as 8-bit bools) to
 * path, through a temporary file renamed when complete. */
bool interp_write_tensor(const Interp *it, const ITensor *t, int int_bits,
			 const char *path, DiagList *diags);

/* ---- profile -------------------------------------------------------------- */

typedef struct InterpOpTime {
	const FlatOp *op;
	double seconds;
} InterpOpTime;

/* Seconds per operation of the last run (with opt.profile), in graph
 * order. */
const InterpOpTime *interp_op_times(const Interp *it, size_t *n);

/* Whether op has a kernel (for the table test). */
bool interp_has_kernel(ShapeOp op, InterpPrecision p);

#endif
