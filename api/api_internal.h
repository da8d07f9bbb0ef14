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
