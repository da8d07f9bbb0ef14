/*
 * run.c - nnef_runner: the interpreter through nnef.h.
 */
#include "api/api_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nnef_run_options_init(nnef_run_options *o)
{
	memset(o, 0, sizeof(*o));
}

/* A copy of an interpreter tensor. */
static nnef_tensor *api_tensor_from(const Interp *it, const ITensor *t)
{
	if (!t->data)
		return NULL;
	nnef_dtype dt = t->dtype == TY_SCALAR ? NNEF_SCALAR : t->dtype == TY_INTEGER ? NNEF_INTEGER : NNEF_LOGICAL;
	nnef_tensor *r = api_tensor_alloc(dt, t->dims, t->rank);
	if (!r)
		return NULL;
	for (size_t i = 0; i < t->count; i++) {
		if (dt == NNEF_SCALAR)
			((double *)r->data)[i] = interp_value(it, t, i);
		else if (dt == NNEF_INTEGER)
			((int64_t *)r->data)[i] = ((const int64_t *)t->data)[i];
		else
			((bool *)r->data)[i] = ((const uint8_t *)t->data)[i] != 0;
	}
	return r;
}

/* After a failed allocation: the runner can only be freed. */
static bool failed(nnef_runner *r, const char *doing)
{
	r->failed = true;
	api_out_of_memory(r->ds, doing);
	return false;
}

/* A recovery point for a call on r, its memory in r's heap: the block
 * after GUARD(r) runs when an allocation fails. */
#define GUARD(r) \
	UtilRecover rec; \
	util_recover_push(&rec, &(r)->heap); \
	if (setjmp(rec.jb))
#define UNGUARD() util_recover_pop(&rec)

/* Makes r's interpreter for the model and loads its variables: false
 * after a diagnostic in r->ds. */
static bool prepare(nnef_runner *r, const InterpOptions *io,
		    const nnef_run_options *o)
{
	const nnef_model *m = r->model;
	GUARD(r) {
		return failed(r, "preparing the run");
	}
	if (m->m.status != MODEL_VALID)
		diag_add(r->ds->dl, DIAG_E1308, loc_make(NULL, 0, 0), "'%s' is not a valid model (see its diagnostics): it cannot run", nnef_model_path(m));
	r->it = m->m.status == MODEL_VALID ? api_interp_new(&m->m, io, r->ds->dl) : NULL;
	bool ok = r->it && interp_load_variables(r->it, o->random_weights, o->seed);
	if (!ok)
		api_diags_sort(r->ds);
	UNGUARD();
	return ok;
}

nnef_runner *nnef_runner_new(const nnef_model *m, const nnef_run_options *o,
			     nnef_diags *ds)
{
	nnef_run_options dflt;
	nnef_run_options_init(&dflt);
	if (!o)
		o = &dflt;
	InterpOptions io = { .precision = o->double_precision ? INTERP_DOUBLE : INTERP_FLOAT,
			     .keep_all = o->keep_all,
			     .plain = o->plain,
			     .threads = o->threads,
			     .profile = o->profile,
			     .statistics = o->statistics,
			     .max_memory = o->max_memory,
			     .progress = o->progress,
			     .progress_ctx = o->progress_ctx };
	nnef_runner *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	util_heap_init(&r->heap);
	atomic_init(&r->interrupt, false);
	io.interrupt = &r->interrupt;
	r->model = m;
	r->ds = ds;
	r->statistics = o->statistics;
	if (!prepare(r, &io, o)) {
		nnef_runner_free(r);
		return NULL;
	}
	return r;
}

void nnef_runner_free(nnef_runner *r)
{
	if (!r)
		return;
	/* everything the runner holds is in its heap, but for the worker
	 * threads of its interpreter (and of the interpreters of nested
	 * graphs), which must end: interp_free stops them all, unless an
	 * allocation failed, when only the heap can be trusted */
	if (r->failed && r->it)
		interp_pool_free(r->it);
	else if (!r->failed)
		interp_free(r->it);
	util_heap_release(&r->heap);
	free(r);
}

size_t nnef_runner_input_count(const nnef_runner *r)
{
	return interp_ninputs(r->it);
}

const char *nnef_runner_input_name(const nnef_runner *r, size_t i)
{
	return i < interp_ninputs(r->it) ? interp_input_name(r->it, i) : NULL;
}

nnef_dtype nnef_runner_input_dtype(const nnef_runner *r, size_t i)
{
	const ITensor *in = i < interp_ninputs(r->it) ? interp_input(r->it, i) : NULL;
	return !in || in->dtype == TY_SCALAR ? NNEF_SCALAR : in->dtype == TY_INTEGER ? NNEF_INTEGER : NNEF_LOGICAL;
}

static void shape_text(char *buf, size_t n, const int64_t *dims, size_t rank)
{
	size_t at = (size_t)snprintf(buf, n, "[");
	for (size_t d = 0; d < rank && at < n; d++)
		at += (size_t)snprintf(buf + at, n - at, d ? ",%lld" : "%lld", (long long)dims[d]);
	if (at < n)
		snprintf(buf + at, n - at, "]");
}

/* The items of t (of in's data type and volume) into input in, in the
 * precision of the run; false when in has no memory (E1305). */
static bool copy_input(const nnef_runner *r, ITensor *in, const nnef_tensor *t)
{
	if (!in->data)
		return false;
	bool dbl = interp_precision(r->it) == INTERP_DOUBLE;
	for (size_t k = 0; k < t->count; k++) {
		if (t->dtype == NNEF_SCALAR && dbl)
			((double *)in->data)[k] = ((const double *)t->data)[k];
		else if (t->dtype == NNEF_SCALAR)
			((float *)in->data)[k] = (float)((const double *)t->data)[k];
		else if (t->dtype == NNEF_INTEGER)
			((int64_t *)in->data)[k] = ((const int64_t *)t->data)[k];
		else
			((uint8_t *)in->data)[k] = ((const bool *)t->data)[k];
	}
	return true;
}

bool nnef_runner_set_input(nnef_runner *r, size_t i, const nnef_tensor *t)
{
	if (r->failed)
		return false;
	GUARD(r) { /* the input's memory is allocated on first use */
		return failed(r, "setting an input");
	}
	ITensor *in = interp_input(r->it, i);
	nnef_dtype want = nnef_runner_input_dtype(r, i);
	bool same = t->rank == in->rank && t->dtype == want;
	for (size_t d = 0; same && d < t->rank; d++)
		same = t->dims[d] == in->dims[d];
	if (!same) {
		char a[256], b[256];
		shape_text(a, sizeof(a), t->dims, t->rank);
		shape_text(b, sizeof(b), in->dims, in->rank);
		static const char *const names[] = { "scalar", "integer", "logical" };
		diag_add(r->ds->dl, DIAG_E1303, loc_make(NULL, 0, 0), "the tensor given for input '%s' is %s%s, but the graph's input is %s%s", interp_input_name(r->it, i), names[t->dtype], a, names[want], b);
		UNGUARD();
		return false;
	}
	UNGUARD();
	return copy_input(r, in, t);
}

/* Whether a tensor of shape dims, read from what, has input i's shape up
 * to trailing singleton dimensions (spec 2.2); else E1303 naming both. */
static bool shape_fits(nnef_runner *r, size_t i, const int64_t *dims,
		       size_t rank, const char *what)
{
	const ITensor *in = interp_input(r->it, i);
	size_t n = rank > in->rank ? rank : in->rank;
	bool same = true;
	for (size_t d = 0; same && d < n; d++)
		same = (d < rank ? dims[d] : 1) == (d < in->rank ? in->dims[d] : 1);
	if (same)
		return true;
	char a[256], b[256];
	shape_text(a, sizeof(a), dims, rank);
	shape_text(b, sizeof(b), in->dims, in->rank);
	diag_add(r->ds->dl, DIAG_E1303, loc_make(NULL, 0, 0), "'%s' holds a tensor of shape %s, but the graph's input '%s' has shape %s", what, a, interp_input_name(r->it, i), b);
	return false;
}

/* Input i from tensor t, read from what (a .npy, a bundle's member):
 * its shape the input's up to trailing singleton dimensions (spec 2.2),
 * its data type the input's, as for a tensor file (E1303 naming both). */
static bool input_from(nnef_runner *r, size_t i, const nnef_tensor *t,
		       const char *what)
{
	ITensor *in = interp_input(r->it, i);
	nnef_dtype want = nnef_runner_input_dtype(r, i);
	static const char *const names[] = { "scalar", "integer", "logical" };
	if (!shape_fits(r, i, t->dims, t->rank, what))
		return false;
	if (t->dtype != want) {
		diag_add(r->ds->dl, DIAG_E1303, loc_make(NULL, 0, 0), "'%s' holds %s items, but the graph's input '%s' is %s", what, t->file_type, interp_input_name(r->it, i), names[want]);
		return false;
	}
	return copy_input(r, in, t);
}

static void free_tensor(void *t)
{
	nnef_tensor_free(t);
}

/* Whether the file at path starts with the .npy magic. */
static bool file_is_npy(const char *path)
{
	unsigned char head[NPY_MAGIC_LEN];
	UtilCleanup cl;
	FILE *fp = util_fopen(path, "rb", &cl);
	size_t n = fp ? fread(head, 1, sizeof(head), fp) : 0;
	if (fp)
		util_fclose(fp, &cl);
	return npy_is_npy(head, n);
}

/* A stream's input i. */
typedef struct StreamInput {
	nnef_runner *r;
	size_t i;
} StreamInput;

/* The shape a stream's header declares against input i's, up to trailing
 * singleton dimensions (spec 2.2), before its data is read. */
static bool stream_shape(void *ctx, const int64_t *dims, size_t rank,
			 const char *name)
{
	const StreamInput *s = ctx;
	return shape_fits(s->r, s->i, dims, rank, name);
}

/* Input i from the tensor file at the start of stream path ("-":
 * standard input), read once into memory (tensor_stream.c). */
static bool stream_input(nnef_runner *r, size_t i, const char *path)
{
	const char *name = api_stream_name(path);
	UtilCleanup fcl, mcl, tcl;
	bool own = strcmp(path, "-") != 0;
	FILE *in = own ? util_fopen(path, "rb", &fcl) : stdin;
	if (!in) {
		diag_add(r->ds->dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", name, strerror(errno));
		return false;
	}
	StreamInput s = { r, i };
	size_t len;
	unsigned char *b = api_stream_read(in, name, r->model->m.lenient, stream_shape, &s, r->ds->dl, &len);
	if (own)
		util_fclose(in, &fcl);
	FILE *fp = b ? api_memory_file(b, len, name, r->ds->dl, &mcl) : NULL;
	bool ok = false;
	if (fp && npy_is_npy(b, len)) {
		nnef_tensor *t = api_read_npy(api_file_read, fp, len, name, r->ds, &tcl);
		if (t)
			util_cleanup_push(&tcl, free_tensor, t);
		ok = t && input_from(r, i, t, name);
		if (t)
			util_cleanup_pop(&tcl);
		nnef_tensor_free(t);
	} else if (fp) {
		ok = interp_read_input_from(r->it, i, name, fp, len);
	}
	if (fp)
		api_memory_file_close(fp, &mcl);
	util_free(b);
	return ok;
}

bool nnef_runner_read_input(nnef_runner *r, size_t i, const char *path)
{
	if (r->failed)
		return false;
	GUARD(r) {
		return failed(r, "reading an input");
	}
	bool ok;
	if (api_is_stream(path)) {
		ok = stream_input(r, i, path);
	} else if (file_is_npy(path)) {
		UtilCleanup tcl;
		nnef_tensor *t = nnef_tensor_read(path, 0, r->ds);
		if (t)
			util_cleanup_push(&tcl, free_tensor, t);
		ok = t && input_from(r, i, t, path);
		if (t)
			util_cleanup_pop(&tcl);
		nnef_tensor_free(t);
	} else {
		ok = interp_read_input(r->it, i, path);
	}
	UNGUARD();
	return ok;
}

bool nnef_runner_bundle_input(nnef_runner *r, size_t i, nnef_bundle *b,
			      size_t k)
{
	if (r->failed || k >= b->n)
		return false;
	GUARD(r) {
		return failed(r, "reading an input");
	}
	UtilCleanup tcl;
	nnef_tensor *t = api_bundle_read(b, k, r->ds, &tcl);
	if (t)
		util_cleanup_push(&tcl, free_tensor, t);
	bool ok = t && input_from(r, i, t, b->members[k]);
	if (t)
		util_cleanup_pop(&tcl);
	nnef_tensor_free(t);
	UNGUARD();
	return ok;
}

void nnef_runner_random_input(nnef_runner *r, size_t i, nnef_random kind,
			      uint64_t seed)
{
	if (r->failed)
		return;
	GUARD(r) { /* the input's memory is allocated on first use */
		failed(r, "generating an input");
		return;
	}
	interp_random_input(r->it, i, kind == NNEF_NORMAL ? INTERP_NORMAL : INTERP_UNIFORM, seed);
	UNGUARD();
}

bool nnef_runner_run(nnef_runner *r)
{
	if (r->failed)
		return false;
	GUARD(r) {
		return failed(r, "running the graph");
	}
	bool ok = interp_run(r->it);
	if (!ok)
		api_diags_sort(r->ds);
	UNGUARD();
	return ok;
}

void nnef_runner_interrupt(nnef_runner *r)
{
	atomic_store(&r->interrupt, true);
}

size_t nnef_runner_count(const nnef_runner *r, nnef_run_set set)
{
	switch (set) {
	case NNEF_RUN_OUTPUTS:
		return interp_noutputs(r->it);
	case NNEF_RUN_TENSORS:
		return interp_ntensors(r->it);
	case NNEF_RUN_VARIABLES:
		return interp_nvariables(r->it);
	}
	return 0; /* a set that is none of these */
}

const char *nnef_runner_name(const nnef_runner *r, nnef_run_set set,
			     size_t i)
{
	if (i >= nnef_runner_count(r, set))
		return NULL;
	switch (set) {
	case NNEF_RUN_OUTPUTS:
		return interp_output_name(r->it, i);
	case NNEF_RUN_TENSORS:
		return interp_tensor_name(r->it, i);
	case NNEF_RUN_VARIABLES:
		return interp_variable_label(r->it, i);
	}
	return NULL;
}

static const ITensor *tensor_of(const nnef_runner *r, nnef_run_set set,
				size_t i)
{
	if (i >= nnef_runner_count(r, set))
		return NULL;
	switch (set) {
	case NNEF_RUN_OUTPUTS:
		return interp_output(r->it, i);
	case NNEF_RUN_TENSORS:
		return interp_tensor(r->it, i);
	case NNEF_RUN_VARIABLES:
		return interp_variable(r->it, i);
	}
	return NULL;
}

nnef_tensor *nnef_runner_get(const nnef_runner *r, nnef_run_set set,
			     size_t i)
{
	const ITensor *t = r->failed ? NULL : tensor_of(r, set, i);
	return t && t->data ? api_tensor_from(r->it, t) : NULL;
}

typedef struct Writing {
	const nnef_runner *r;
	const ITensor *t;
	const char *path;
	nnef_diags *ds;
	bool ok;
} Writing;

static void write_tensor(void *arg)
{
	Writing *w = arg;
	if (!w->t || !w->t->data)
		diag_add(w->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': the tensor holds no data", w->path);
	else
		w->ok = interp_write_tensor(w->r->it, w->t, interp_integer_bits(w->r->it), w->path, w->ds->dl);
}

bool nnef_runner_write(const nnef_runner *r, nnef_run_set set, size_t i,
		       const char *path, nnef_diags *ds)
{
	Writing w = { r, r->failed ? NULL : tensor_of(r, set, i), path, ds, false };
	if (!api_in_temp_heap(write_tensor, &w)) { /* no temporary file is left */
		api_out_of_memory(ds, "writing a tensor");
		return false;
	}
	return w.ok;
}

typedef struct Bundling {
	const nnef_runner *r;
	nnef_run_set set;
	const char *path;
	unsigned flags;
	nnef_diags *ds;
	bool ok;
} Bundling;

static void write_bundle(void *arg)
{
	Bundling *w = arg;
	const Interp *it = w->r->it;
	size_t n = nnef_runner_count(w->r, w->set), m = 0;
	StrBuf *images = util_calloc(n ? n : 1, sizeof(*images));
	const char **names = util_calloc(n ? n : 1, sizeof(*names));
	bool ok = true;
	DType real = interp_precision(it) == INTERP_DOUBLE ? DT_F64 : DT_F32;
	for (size_t i = 0; ok && i < n; i++) {
		const ITensor *t = tensor_of(w->r, w->set, i);
		if (!t || !t->data)
			continue;
		InterpItems ri = { it, t };
		DType dt = t->dtype == TY_SCALAR ? real : t->dtype == TY_INTEGER ? DT_I64 : DT_BOOL;
		names[m] = nnef_runner_name(w->r, w->set, i);
		ok = api_npy_bytes(dt, t->dims, t->rank, interp_items, &ri, &images[m++]);
		if (!ok)
			diag_add(w->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': '%s' has more than 32 dimensions", w->path, names[m - 1]);
	}
	w->ok = ok && api_write_npz(w->path, names, images, m, w->flags & NNEF_WRITE_DEFLATE, w->ds->dl);
	for (size_t i = 0; i < m; i++)
		sb_free(&images[i]);
	util_free(images);
	util_free(names);
}

bool nnef_runner_write_bundle(const nnef_runner *r, nnef_run_set set,
			      const char *path, unsigned flags,
			      nnef_diags *ds)
{
	if (r->failed)
		return false;
	Bundling w = { r, set, path, flags, ds, false };
	if (!api_in_temp_heap(write_bundle, &w)) { /* no temporary file is left */
		api_out_of_memory(ds, "writing a bundle");
		return false;
	}
	return w.ok;
}

size_t nnef_runner_profile_count(const nnef_runner *r)
{
	size_t n = 0;
	interp_op_times(r->it, &n);
	return n;
}

const nnef_op *nnef_runner_profile_op(const nnef_runner *r, size_t i,
				      double *seconds)
{
	size_t n = 0;
	const InterpOpTime *t = interp_op_times(r->it, &n);
	if (i >= n)
		return NULL;
	if (seconds)
		*seconds = t[i].seconds;
	return (const nnef_op *)(const void *)t[i].op;
}

size_t nnef_runner_plan_count(const nnef_runner *r)
{
	return interp_plan_count(r->it);
}

const char *nnef_runner_plan_method(const nnef_runner *r, size_t i)
{
	return i < interp_plan_count(r->it) ? interp_plan_method(r->it, i) : NULL;
}

const nnef_op *nnef_runner_plan_op(const nnef_runner *r, size_t i,
				   nnef_plan_how *how, const nnef_op **by,
				   size_t *nfused)
{
	if (i >= interp_plan_count(r->it))
		return NULL;
	InterpHow h;
	const FlatOp *b;
	size_t n;
	const FlatOp *op = interp_plan_step(r->it, i, &h, &b, &n);
	static const nnef_plan_how hows[] = { [INTERP_RUNS] = NNEF_PLAN_RUNS, [INTERP_FUSED] = NNEF_PLAN_FUSED,
					      [INTERP_VIEW] = NNEF_PLAN_VIEW, [INTERP_NOTHING] = NNEF_PLAN_NOTHING };
	if (how)
		*how = hows[h];
	if (by)
		*by = (const nnef_op *)(const void *)b;
	if (nfused)
		*nfused = n;
	return (const nnef_op *)(const void *)op;
}

/* ---- statistics ------------------------------------------------------------------- */

void api_stats_from(const UtilStats *u, nnef_stats *st)
{
	bool vals = u->count > 0;
	*st = (nnef_stats){ u->count, u->nan, u->inf, vals ? u->min : NAN, vals ? u->max : NAN,
			    vals ? u->mean : NAN, vals ? util_stats_sample_std(u) : NAN };
}

bool nnef_runner_stats(const nnef_runner *r, size_t i, nnef_stats *st)
{
	const UtilStats *u = r->failed || i >= interp_ntensors(r->it) ? NULL : interp_tensor_stats(r->it, i);
	if (u)
		api_stats_from(u, st);
	return u != NULL;
}
