/*
 * api_internal.h - what the files of api/ share: the structures behind
 * the opaque handles of nnef.h. The graph's handles (nnef_graph, nnef_op,
 * nnef_tensor_info, nnef_value) are the flat graph's own structures seen
 * through another name: casting costs nothing and copies nothing.
 */
#ifndef NNEF_API_INTERNAL_H
#define NNEF_API_INTERNAL_H

#include "api/nnef.h"
#include "interp/interp.h"
#include "model/model.h"

/* A list of diagnostics: the model's own (borrowed) or one of its own. */
struct nnef_diags {
	UtilHeap heap;     /* the memory of own */
	DiagList *dl;      /* &own, or the model's list */
	DiagList own;
	size_t max_shown;  /* errors listed at most (0: all) */
};

struct nnef_model {
	UtilHeap heap;     /* all the memory of the model but this struct */
	Model m;
	nnef_diags diags;  /* over m.diags */
	char *text;        /* the copy of nnef_model_load_text's document */
	InputShape *shapes; /* copies of the options' input shapes */
	size_t nshapes;
	struct nnef_port **ports; /* portability reports, one per target */
	size_t nports;
};

struct nnef_tensor {
	nnef_dtype dtype;
	size_t rank;
	int64_t *dims;
	size_t count;
	void *data;        /* double, int64_t or bool items */
	char file_type[32]; /* of the file read, "" when none */
	bool has_range;    /* the file's items were quantized (NNEF 1.0.2
			      item types 0x10, 0x11) over [qmin, qmax] */
	double qmin, qmax;
};

struct nnef_bundle {
	char *path;        /* the archive, reopened for each array read */
	ContLimits lim;
	size_t n;
	char **names;      /* the arrays' names (malloc'd) */
	char **members;    /* "PATH/NAME.npy", for messages */
};

/* Array i of b as a tensor, read in the current heap; NULL after a
 * diagnostic in ds. tcl: where the tensor's cleanup is registered while
 * it is read. */
nnef_tensor *api_bundle_read(const nnef_bundle *b, size_t i, nnef_diags *ds,
			     UtilCleanup *tcl);
/* Writes the n .npy images as the members names[i] of the .npz path;
 * false after a diagnostic in dl. */
bool api_write_npz(const char *path, const char *const *names,
		   StrBuf *images, size_t n, bool deflate, DiagList *dl);

struct nnef_runner {
	UtilHeap heap;     /* all the memory of the runner but this struct */
	bool failed;       /* an allocation failed: it only can be freed */
	Interp *it;
	const nnef_model *model;
	nnef_diags *ds;    /* where the runner's problems go */
	bool statistics;   /* nnef_run_options.statistics */
	atomic_bool interrupt; /* nnef_runner_interrupt was called */
};

/* Entry points that allocate make a recovery point (util.h) before they
 * work: a failed allocation comes back to it, where the entry point gives
 * back what the call allocated and reports E0008. */

/* The portability reports of the options' targets, when mm is valid:
 * the model at path (or text, len bytes) read again per target. */
void api_port_reports(nnef_model *mm, const char *path, const char *text,
		      size_t len, const nnef_options *o);

/* Runs fn(ctx) under a recovery point, with a heap of its own given back
 * after: false when an allocation failed (the cleanups ran). */
bool api_in_temp_heap(void (*fn)(void *ctx), void *ctx);
/* What print writes, as a string of malloc's; NULL when out of memory. */
char *api_print(void (*print)(StrBuf *out, const void *ctx), const void *ctx);
/* Adds E0008 (out of memory, while doing what) to ds, if that much
 * memory is left. */
void api_out_of_memory(nnef_diags *ds, const char *doing);

/* A location as nnef.h gives it (file NULL when l has none). */
nnef_location api_location(Loc l);
/* ds's list sorted once more after additions (diagnostics of a run). */
void api_diags_sort(nnef_diags *ds);
/* A tensor of dtype and shape, items zeroed; NULL when out of memory. */
nnef_tensor *api_tensor_alloc(nnef_dtype dtype, const int64_t *dims,
			      size_t rank);
/* Reads a .npy from rd (size bytes in all; messages name it name) into a
 * tensor: NULL after a diagnostic in ds. tcl: where the tensor's cleanup
 * is registered while it is filled. */
nnef_tensor *api_read_npy(NpyReadFn rd, void *ctx, uint64_t size,
			  const char *name, nnef_diags *ds, UtilCleanup *tcl);
/* Whether path is read as a stream (tensor_stream.c): "-" (standard
 * input), or a file that is neither regular nor a directory (a pipe, a
 * FIFO, /dev/stdin). */
bool api_is_stream(const char *path);
/* path in messages: "<stdin>" for "-". */
const char *api_stream_name(const char *path);
/* Checks the shape a stream's header declares before its data is read:
 * false after a diagnostic. */
typedef bool ApiShapeCheck(void *ctx, const int64_t *dims, size_t rank,
			   const char *name);
/* The whole tensor file (.dat or .npy) at the start of stream fp, read
 * into memory (util_free it; *len bytes): its header, checked by check
 * (when not NULL), then as many bytes as the header declares, which must
 * be all the stream holds. NULL after a diagnostic in dl: the header's,
 * check's, or a stream cut short or going on (E1009 for a .dat, E1407
 * for a .npy). */
unsigned char *api_stream_read(FILE *fp, const char *name, bool lenient,
			       ApiShapeCheck *check, void *ctx,
			       DiagList *dl, size_t *len);
/* An NpyReadFn over a FILE *. */
long api_file_read(void *fp, void *buf, size_t n);
/* A stream over len bytes (a stream read into memory), closed by
 * api_memory_file_close, or on a failed allocation through cl; NULL after
 * E0001 naming name. */
FILE *api_memory_file(unsigned char *bytes, size_t len, const char *name,
		      DiagList *dl, UtilCleanup *cl);
void api_memory_file_close(FILE *fp, UtilCleanup *cl);
/* Appends a whole .npy of dtype and shape, the items from get; false
 * when it does not fit one (more than 32 dimensions, or bytes). */
bool api_npy_bytes(DType dtype, const int64_t *dims, size_t rank,
		   DatItemsFn get, void *ctx, StrBuf *out);
/* Appends t as a whole .npy (float32, float64 with NNEF_WRITE_DOUBLE;
 * int64, int32 with NNEF_WRITE_INT32; bool); false when it does not fit
 * one. */
bool api_tensor_npy(const nnef_tensor *t, unsigned flags, StrBuf *out);

static inline const FlatOp *api_op(const nnef_op *op)
{
	return (const FlatOp *)(const void *)op;
}
static inline const FlatTensor *api_tensor_info(const nnef_tensor_info *t)
{
	return (const FlatTensor *)(const void *)t;
}
static inline const Value *api_value(const nnef_value *v)
{
	return (const Value *)(const void *)v;
}
static inline const FlatGraph *api_graph(const nnef_graph *g)
{
	return (const FlatGraph *)(const void *)g;
}

/* ---- the interpreter's host (interp_host.c) -------------------------------- */

/* An interpreter of m's flat graph with m as its host; NULL when m is not
 * valid (without a diagnostic) or after reporting why it cannot run. */
Interp *api_interp_new(const Model *m, const InterpOptions *opt,
		       DiagList *diags);

/* nnef_stats from the accumulated u (run.c). */
void api_stats_from(const UtilStats *u, nnef_stats *st);

#endif
