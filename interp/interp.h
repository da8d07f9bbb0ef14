/*
 * interp.h - the reference interpreter: runs a checked, flattened graph
 * (spec chapter 4: every primitive's formula) on the data its host hands
 * it.
 *
 * What it knows: the flat graph (flatten/, shapes/), tensor files as a
 * codec (datfile/: the inputs it reads and the results it writes, by
 * path), and an InterpHost: plain facts about the graph (its dialect,
 * --lenient, graph.quant's entries) and functions for what only the
 * graph's model can give: the variables' data, the fragments a
 * tract_core_scan runs (and their flattening), the models inside that a
 * tract_core_submodel runs. It knows nothing of models or containers.
 * The host is api/interp_host.c, which joins interp/ and model/: model/
 * reads and decodes a variable's tensor file into a plain array
 * (model/load.c), never seeing interp/, and interp/ never sees model/,
 * so the modules stay acyclic (api -> interp, api -> model).
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

#include <stdatomic.h>

#include "datfile/datfile.h"
#include "flatten/flatten.h"

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
	int threads;           /* threads of the kernels that split their
				  work (0: the processors online) */
	bool plain;            /* each primitive by its plain kernel: no
				  fusion, no views, no faster path (the
				  reference the faster paths are held to) */
	bool profile;          /* time each operation */
	bool statistics;       /* the statistics of every tensor bound to a
				  name of the graph (interp_tensor_stats),
				  taken as its step ends; no such tensor is
				  fused away */
	uint64_t max_memory;   /* bytes a run may need at least (its tensors
				  and variables): 0 means the machine's
				  physical memory; E1305 beyond */
	/* called after each step of a run (may be NULL) */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
	/* when set (by another thread or a signal handler), a run stops
	   before its next step with E1312 (may be NULL) */
	const atomic_bool *interrupt;
} InterpOptions;

/* A variable for the host to fill (InterpHost.load_variables). */
typedef struct InterpVarSlot {
	ITensor *value;        /* allocated, its shape the graph's */
	bool loaded;           /* set by whoever fills value (a slot
				  already loaded is left alone) */
} InterpVarSlot;

/* What the interpreter is given beside the graph. Variable i is the
 * graph's vars[i] (the first variable operation of each label). The
 * functions get ctx first; any may be NULL (no data, no fragments, no
 * models inside). */
typedef struct InterpHost InterpHost;
struct InterpHost {
	Dialect dialect;       /* the graph's (tract's rules for literals
				  and shapes) */
	bool lenient;          /* --lenient: also for the input files read */
	void *ctx;
	/* Whether variable i has data load_variables can give. */
	bool (*has_data)(void *ctx, size_t i);
	/* Why variable i has no data to run with: a hint for E1303. */
	const char *(*no_data_hint)(void *ctx, size_t i);
	/* Fills vars[i] (n of them) for each variable i that has data:
	 * scalars as float (real_size 4) or double (8), integers int64_t,
	 * logicals uint8_t; *int_bits grows to the widest integer items
	 * read. False after reporting to diags. */
	bool (*load_variables)(void *ctx, InterpVarSlot *vars, size_t n,
			       size_t real_size, int *int_bits, DiagList *diags);
	/* tract_core_scan: the fragment of the document named
	 * name[0..len), or NULL; and fragment f flattened as a graph of
	 * parameters of the given shapes (flatten_fragment), in arena, NULL
	 * after reporting. */
	const SemaFrag *(*fragment)(void *ctx, const char *name, size_t len);
	FlatGraph *(*flatten_fragment)(void *ctx, const SemaFrag *f,
				       const FlatParam *params, Loc at,
				       Arena *arena, DiagList *diags);
	/* tract_core_submodel: the flat graph of the valid model inside in
	 * folder label[0..len), its host in *host; NULL when there is none
	 * valid. */
	const FlatGraph *(*submodel)(void *ctx, const char *label, size_t len,
				     InterpHost *host);
};

/* Prepares to run flat graph g (of a valid document) with host (copied;
 * its ctx must outlive the interpreter). Returns NULL after reporting
 * why it cannot run (a custom operation, a shape that is not known:
 * E1302), naming each operation and where it is. */
Interp *interp_new(const FlatGraph *g, const InterpHost *host,
		   const InterpOptions *opt, DiagList *diags);
void interp_free(Interp *it);
/* Stops the interpreter's worker threads (they start again with the next
 * job): for an owner that gives back its memory otherwise, as
 * nnef_runner_free does, and must still end the threads. */
void interp_pool_free(Interp *it);

/* ---- data ----------------------------------------------------------------- */

/* Loads the variables: those with data through the host (quantized items
 * decoded to real values there), then, with random_missing, the others
 * from the generator instead of an error; then those of the models
 * inside. Returns false after reporting. */
bool interp_load_variables(Interp *it, bool random_missing, uint64_t seed);

/* The graph's inputs (externals), in order. */
size_t interp_ninputs(const Interp *it);
const char *interp_input_name(const Interp *it, size_t i);
/* The tensor of input i, to be filled by the caller (allocated here). */
ITensor *interp_input(Interp *it, size_t i);
/* Fills input i from a tensor file's bytes (header validated, shape and
 * data type compared with the graph's; errors name both). */
bool interp_read_input(Interp *it, size_t i, const char *path);
/* The same from fp, at the start of a tensor file of size bytes (a
 * stream read into memory), named name in messages. */
bool interp_read_input_from(Interp *it, size_t i, const char *name,
			    FILE *fp, uint64_t size);
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

/* With opt.statistics, the statistics of tensor i (as interp_tensor
 * numbers it) over the last run: of its items as numbers (logicals 0 or
 * 1), taken when its step ended; NULL when it is bound to no name of the
 * graph (an operation's expansion made it) or was not computed. */
const UtilStats *interp_tensor_stats(const Interp *it, size_t i);

/* The statistics of t's items, merged into st: those of its parts of
 * UTIL_STATS_PART items, as util_stats_add takes each (computed on the
 * interpreter's threads; the same bits whatever their number). */
void interp_stats_add(Interp *it, const ITensor *t, UtilStats *st);

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

/* ---- plan ------------------------------------------------------------------ */

/* How a run computes an operation. */
typedef enum InterpHow {
	INTERP_RUNS,           /* its kernel */
	INTERP_FUSED,          /* inside the step of another operation (by) */
	INTERP_VIEW,           /* its result is its input's buffer */
	INTERP_NOTHING,        /* nothing to run (input, variable, constant) */
} InterpHow;

/* The operations of the graph in order, and how each is computed; for a
 * fused one, `by` is the operation whose step computes it; for one that
 * runs, *nfused counts the operations fused into it. */
size_t interp_plan_count(const Interp *it);
const FlatOp *interp_plan_step(const Interp *it, size_t i, InterpHow *how,
			       const FlatOp **by, size_t *nfused);

/* The method of step i when its kernel computes it otherwise than term by
 * term, else NULL (nnef_runner_plan_method). */
const char *interp_plan_method(const Interp *it, size_t i);

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
