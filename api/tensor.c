/*
 * tensor.c - nnef_tensor: values in memory, read from and written to
 * tensor files: NNEF's (spec 5.2, with tract's item types) and NumPy's
 * .npy, told apart by their first bytes.
 */
#include "api/api_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t item_size(nnef_dtype t)
{
	return t == NNEF_SCALAR ? sizeof(double) : t == NNEF_INTEGER ? sizeof(int64_t) : sizeof(bool);
}

nnef_tensor *api_tensor_alloc(nnef_dtype dtype, const int64_t *dims,
			      size_t rank)
{
	size_t count = 1;
	for (size_t i = 0; i < rank; i++)
		if (dims[i] <= 0 || __builtin_mul_overflow(count, (size_t)dims[i], &count))
			return NULL;
	if (count > SIZE_MAX / sizeof(double))
		return NULL;
	nnef_tensor *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->dtype = dtype;
	t->rank = rank;
	t->count = count;
	t->dims = malloc((rank ? rank : 1) * sizeof(*t->dims));
	t->data = calloc(count ? count : 1, item_size(dtype));
	if (!t->dims || !t->data) {
		nnef_tensor_free(t);
		return NULL;
	}
	if (rank)
		memcpy(t->dims, dims, rank * sizeof(*dims));
	return t;
}

nnef_tensor *nnef_tensor_new(nnef_dtype dtype, const int64_t *dims,
			     size_t rank)
{
	return api_tensor_alloc(dtype, dims, rank);
}

void nnef_tensor_free(nnef_tensor *t)
{
	if (!t)
		return;
	free(t->dims);
	free(t->data);
	free(t);
}

nnef_dtype nnef_tensor_dtype(const nnef_tensor *t) { return t->dtype; }
size_t nnef_tensor_rank(const nnef_tensor *t) { return t->rank; }
size_t nnef_tensor_count(const nnef_tensor *t) { return t->count; }

int64_t nnef_tensor_dim(const nnef_tensor *t, size_t i)
{
	return i < t->rank ? t->dims[i] : 0;
}

double *nnef_tensor_scalars(nnef_tensor *t)
{
	return t->dtype == NNEF_SCALAR ? t->data : NULL;
}

int64_t *nnef_tensor_integers(nnef_tensor *t)
{
	return t->dtype == NNEF_INTEGER ? t->data : NULL;
}

bool *nnef_tensor_logicals(nnef_tensor *t)
{
	return t->dtype == NNEF_LOGICAL ? t->data : NULL;
}

double nnef_tensor_get(const nnef_tensor *t, size_t i)
{
	if (i >= t->count)
		return 0;
	if (t->dtype == NNEF_SCALAR)
		return ((const double *)t->data)[i];
	if (t->dtype == NNEF_INTEGER)
		return (double)((const int64_t *)t->data)[i];
	return ((const bool *)t->data)[i];
}

/* As interp_stats_add takes an interpreter's tensor: parts of
 * UTIL_STATS_PART items, each added a chunk at a time, merged in order
 * (the same bits for the same values). */
void nnef_tensor_stats(const nnef_tensor *t, nnef_stats *st)
{
	UtilStats u = { 0 };
	double buf[UTIL_STATS_CHUNK];
	for (size_t first = 0; first < t->count; first += UTIL_STATS_PART) {
		size_t end = t->count - first < UTIL_STATS_PART ? t->count : first + UTIL_STATS_PART;
		UtilStats part = { 0 };
		for (size_t i = first; i < end; i += UTIL_STATS_CHUNK) {
			size_t n = end - i < UTIL_STATS_CHUNK ? end - i : UTIL_STATS_CHUNK;
			if (t->dtype == NNEF_SCALAR) {
				util_stats_add(&part, (const double *)t->data + i, n);
				continue;
			}
			for (size_t k = 0; k < n; k++)
				buf[k] = nnef_tensor_get(t, i + k);
			util_stats_add(&part, buf, n);
		}
		util_stats_merge(&u, &part);
	}
	api_stats_from(&u, st);
}

bool nnef_tensor_file_range(const nnef_tensor *t, double *min, double *max)
{
	*min = t->has_range ? t->qmin : 0.0;
	*max = t->has_range ? t->qmax : 0.0;
	return t->has_range;
}

const char *nnef_tensor_file_type(const nnef_tensor *t)
{
	return t->file_type[0] ? t->file_type : NULL;
}

/* ---- reading -------------------------------------------------------------------- */

/* The NNEF data type of items of a datum type: reals are scalars, bools
 * logicals, the others integers (quantized codes as they are). */
static nnef_dtype dtype_of(DType t)
{
	switch (dtype_class(t)) {
	case DTC_FLOAT:
		return NNEF_SCALAR;
	case DTC_BOOL:
		return NNEF_LOGICAL;
	case DTC_UNSIGNED:
	case DTC_SIGNED:
	case DTC_DIM:
	case DTC_STRING:
	case DTC_QUANTIZED:
		return NNEF_INTEGER;
	}
	return NNEF_INTEGER;
}

/* Stores item k of t from its decoded value v and its real r. */
static void store(nnef_tensor *t, size_t k, DatItem v, double r)
{
	if (t->dtype == NNEF_SCALAR)
		((double *)t->data)[k] = r;
	else if (t->dtype == NNEF_INTEGER)
		((int64_t *)t->data)[k] = v.i;
	else
		((bool *)t->data)[k] = v.u != 0;
}

/* The items of the open file fp (positioned after the header) into t. */
static bool read_items(FILE *fp, const DatHeader *h, nnef_tensor *t)
{
	enum { CHUNK = 65536 };
	uint64_t bytes;
	dat_packed_size(h, CHUNK, &bytes);
	unsigned char *buf = util_malloc((size_t)bytes);
	DatItem *items = util_malloc(CHUNK * sizeof(*items));
	bool ok = buf && items;
	for (size_t first = 0; ok && first < t->count; first += CHUNK) {
		size_t n = t->count - first < CHUNK ? t->count - first : CHUNK;
		uint64_t need;
		dat_packed_size(h, n, &need);
		ok = fread(buf, 1, (size_t)need, fp) == need;
		if (!ok)
			break;
		dat_decode(h, buf, 0, n, items);
		for (size_t i = 0; i < n; i++)
			store(t, first + i, items[i], dat_real(h, items[i]));
	}
	util_free(buf);
	util_free(items);
	return ok;
}

static void free_tensor(void *t)
{
	nnef_tensor_free(t);
}

/* ---- .npy ------------------------------------------------------------------------ */

long api_file_read(void *fp, void *buf, size_t n)
{
	size_t k = fread(buf, 1, n, fp);
	return k ? (long)k : ferror((FILE *)fp) ? -1 : 0;
}

/* A tensor being filled from a .npy. */
typedef struct NpyFill {
	const NpyHeader *h;
	nnef_tensor *t;
} NpyFill;

static void put_items(void *ctx, uint64_t first, size_t n, const DatItem *items)
{
	NpyFill *f = ctx;
	for (size_t i = 0; i < n; i++)
		store(f->t, (size_t)first + i, items[i], npy_real(f->h, items[i]));
}

nnef_tensor *api_read_npy(NpyReadFn rd, void *ctx, uint64_t size,
			  const char *name, nnef_diags *ds, UtilCleanup *tcl)
{
	NpyHeader h;
	if (!npy_read_stream(rd, ctx, size, name, &h, ds->dl))
		return NULL;
	int64_t dims[NPY_MAX_RANK];
	for (uint32_t d = 0; d < h.rank; d++) {
		dims[d] = (int64_t)h.extents[d];
		if (dims[d] == 0) {
			StrBuf b;
			sb_init(&b);
			for (uint32_t k = 0; k < h.rank; k++)
				sb_printf(&b, "%s%llu", k ? "," : "", (unsigned long long)h.extents[k]);
			diag_add(ds->dl, DIAG_E1414, loc_make(NULL, 0, 0), "'%s' holds an empty array (shape [%s]); a tensor's extents are positive", name, sb_str(&b));
			sb_free(&b);
			return NULL;
		}
	}
	nnef_tensor *t = api_tensor_alloc(dtype_of(h.dtype), dims, h.rank);
	if (!t) {
		diag_add(ds->dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': out of memory", name);
		return NULL;
	}
	util_cleanup_push(tcl, free_tensor, t);
	snprintf(t->file_type, sizeof(t->file_type), "%s", npy_type_name(&h));
	NpyFill fill = { &h, t };
	bool ok = npy_read_items(rd, ctx, &h, name, put_items, &fill, ds->dl);
	util_cleanup_pop(tcl);
	if (!ok) {
		nnef_tensor_free(t);
		return NULL;
	}
	return t;
}

/* What items that are not numbers are, for messages. */
static const char *not_numbers(const DatHeader *h)
{
	switch (h->tract) {
	case DAT_TR_STRING:
		return "strings (tract's item type 0x1000)";
	case DAT_TR_COMPLEX_F:
	case DAT_TR_COMPLEX_I:
		return "complex numbers (tract's item types 0x0000 and 0x0004)";
	case DAT_TR_NONE:
	case DAT_TR_Q40:
	case DAT_TR_Q40_GGML:
		break;
	}
	return "a vendor's item type, which nnefkit does not decode";
}

/* Reads the tensor of the file open at fp (regular, st its status): NULL
 * after a diagnostic. tcl: where the tensor's cleanup is registered. */
static nnef_tensor *read_tensor(FILE *fp, const struct stat *st,
				const char *path, unsigned flags,
				nnef_diags *ds, UtilCleanup *tcl)
{
	unsigned char head[DAT_OLD_HEADER_SIZE];
	size_t n = fread(head, 1, sizeof(head), fp);
	if (npy_is_npy(head, n)) {
		rewind(fp);
		return api_read_npy(api_file_read, fp, (uint64_t)st->st_size, path, ds, tcl);
	}
	DatHeader h;
	if (!dat_read_header(head, n, (uint64_t)st->st_size, path, flags & NNEF_READ_LENIENT, &h, ds->dl))
		return NULL;
	if (!dat_decodable(&h)) {
		diag_add(ds->dl, DIAG_E1017, loc_make(NULL, 0, 0), "'%s' holds %s: they cannot be read as numbers", path, not_numbers(&h));
		return NULL;
	}
	int64_t dims[DAT_MAX_RANK];
	for (uint32_t d = 0; d < h.rank; d++)
		dims[d] = h.extents[d];
	nnef_tensor *t = api_tensor_alloc(dtype_of(h.dtype), dims, h.rank);
	if (!t) {
		diag_add(ds->dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': out of memory", path);
		return NULL;
	}
	util_cleanup_push(tcl, free_tensor, t);
	dat_type_name(&h, t->file_type);
	t->has_range = h.type == DAT_LINEAR || h.type == DAT_LOG;
	t->qmin = h.qmin;
	t->qmax = h.qmax;
	if (fseek(fp, (long)h.header_size, SEEK_SET) != 0 || !read_items(fp, &h, t)) {
		diag_add(ds->dl, DIAG_E1009, loc_make(NULL, 0, 0), "'%s' ended before its data did", path);
		util_cleanup_pop(tcl);
		nnef_tensor_free(t);
		return NULL;
	}
	util_cleanup_pop(tcl);
	return t;
}

typedef struct TensorIO {
	const char *path;
	unsigned flags;
	nnef_diags *ds;
	nnef_tensor *t;           /* read */
	const nnef_tensor *out;   /* to write */
	const void *data;         /* or bytes to write */
	size_t len;
	bool ok;
} TensorIO;

static void close_file(void *fp)
{
	fclose(fp);
}

FILE *api_memory_file(unsigned char *bytes, size_t len, const char *name,
		      DiagList *dl, UtilCleanup *cl)
{
	FILE *fp = fmemopen(bytes, len, "rb");
	if (!fp)
		diag_add(dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", name, strerror(errno));
	else
		util_cleanup_push(cl, close_file, fp);
	return fp;
}

void api_memory_file_close(FILE *fp, UtilCleanup *cl)
{
	util_cleanup_pop(cl);
	fclose(fp);
}

/* The tensor file at the start of stream path ("-": standard input). */
static void read_stream(TensorIO *io)
{
	const char *name = api_stream_name(io->path);
	UtilCleanup fcl, mcl, tcl;
	bool own = strcmp(io->path, "-") != 0;
	FILE *in = own ? util_fopen(io->path, "rb", &fcl) : stdin;
	if (!in) {
		diag_add(io->ds->dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", name, strerror(errno));
		return;
	}
	size_t len;
	unsigned char *b = api_stream_read(in, name, io->flags & NNEF_READ_LENIENT, NULL, NULL, io->ds->dl, &len);
	if (own)
		util_fclose(in, &fcl);
	FILE *fp = b ? api_memory_file(b, len, name, io->ds->dl, &mcl) : NULL;
	if (fp) {
		struct stat st = { .st_size = (off_t)len };
		io->t = read_tensor(fp, &st, name, io->flags, io->ds, &tcl);
		api_memory_file_close(fp, &mcl);
	}
	util_free(b);
}

static void read_file(void *arg)
{
	TensorIO *io = arg;
	if (api_is_stream(io->path)) {
		read_stream(io);
		return;
	}
	UtilCleanup fcl, tcl;
	FILE *fp = util_fopen(io->path, "rb", &fcl);
	struct stat st;
	if (!fp || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
		diag_add(io->ds->dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", io->path, fp ? "not a regular file" : strerror(errno));
	else
		io->t = read_tensor(fp, &st, io->path, io->flags, io->ds, &tcl);
	if (fp)
		util_fclose(fp, &fcl);
}

nnef_tensor *nnef_tensor_read(const char *path, unsigned flags,
			      nnef_diags *ds)
{
	TensorIO io = { .path = path, .flags = flags, .ds = ds };
	if (!api_in_temp_heap(read_file, &io)) { /* file and tensor given back */
		api_out_of_memory(ds, "reading a tensor file");
		return NULL;
	}
	return io.t;
}

static void write_bytes(void *arg)
{
	TensorIO *io = arg;
	io->ok = dat_write_bytes(io->path, io->data, io->len, io->ds->dl);
}

bool nnef_write_file(const char *path, const void *data, size_t len,
		     nnef_diags *ds)
{
	TensorIO io = { .path = path, .ds = ds, .data = data, .len = len };
	if (!api_in_temp_heap(write_bytes, &io)) { /* no temporary file is left */
		api_out_of_memory(ds, "writing a file");
		return false;
	}
	return io.ok;
}

/* ---- sets of files written all or nothing ------------------------------------ */

typedef struct Staging {
	const char *path;   /* the file asked for */
	const char *staged; /* nnef_commit_file: the file to rename */
	nnef_diags *ds;
	char *name;         /* nnef_stage_file: the name reserved */
	bool ok;
} Staging;

static void stage(void *arg)
{
	Staging *s = arg;
	char *target = dat_final_path(s->path);
	struct stat st;
	int fd = -1, err = ENOMEM;
	if (target && stat(target, &st) == 0 && S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (target && (s->name = malloc(strlen(target) + sizeof(".tmpXXXXXX"))))
		fd = mkstemp(strcat(strcpy(s->name, target), ".tmpXXXXXX"));
	if (fd >= 0) {
		/* the writers keep the mode of the file they replace */
		s->ok = fchmod(fd, (mode_t)util_output_mode(target)) == 0;
		err = errno;
		if (close(fd) != 0 && s->ok) {
			s->ok = false;
			err = errno;
		}
		if (!s->ok)
			unlink(s->name);
	} else if (s->name) {
		err = errno;
	}
	util_free(target);
	if (!s->ok) {
		free(s->name);
		s->name = NULL;
		diag_add(s->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': %s", s->path, strerror(err));
	}
}

char *nnef_stage_file(const char *path, nnef_diags *ds)
{
	Staging s = { .path = path, .ds = ds };
	if (!api_in_temp_heap(stage, &s)) { /* the reason was the last step */
		api_out_of_memory(ds, "writing a file");
		return NULL;
	}
	return s.name;
}

static void commit(void *arg)
{
	Staging *s = arg;
	char *target = dat_final_path(s->path);
	int err = ENOMEM;
	s->ok = target && rename(s->staged, target) == 0;
	if (target && !s->ok)
		err = errno;
	util_free(target);
	if (!s->ok) {
		unlink(s->staged);
		diag_add(s->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': %s", s->path, strerror(err));
	}
}

bool nnef_commit_file(const char *staged, const char *path, nnef_diags *ds)
{
	Staging s = { .path = path, .staged = staged, .ds = ds };
	if (!api_in_temp_heap(commit, &s)) { /* the reason was the last step */
		api_out_of_memory(ds, "writing a file");
		return false;
	}
	return s.ok;
}

/* ---- writing ---------------------------------------------------------------- */

static void items_of(void *ctx, uint64_t first, size_t n, DatItem *out)
{
	const nnef_tensor *t = ctx;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)first + i;
		if (t->dtype == NNEF_SCALAR)
			out[i].f = ((const double *)t->data)[k];
		else if (t->dtype == NNEF_INTEGER)
			out[i].i = ((const int64_t *)t->data)[k];
		else
			out[i].u = ((const bool *)t->data)[k];
	}
}

/* The header of a file for t, false when t does not fit one. */
static bool write_header(const nnef_tensor *t, unsigned flags, DatHeader *h)
{
	uint32_t ext[DAT_MAX_RANK];
	if (t->rank > DAT_MAX_RANK)
		return false;
	for (size_t d = 0; d < t->rank; d++) {
		if (t->dims[d] > (int64_t)UINT32_MAX)
			return false;
		ext[d] = (uint32_t)t->dims[d];
	}
	if (t->dtype == NNEF_SCALAR)
		return dat_make_header(h, DAT_FLOAT, flags & NNEF_WRITE_DOUBLE ? 64 : 32, ext, (uint32_t)t->rank);
	if (t->dtype == NNEF_INTEGER)
		return dat_make_header(h, DAT_SINT, flags & NNEF_WRITE_INT32 ? 32 : 64, ext, (uint32_t)t->rank);
	return dat_make_header(h, DAT_LOGICAL, 8, ext, (uint32_t)t->rank);
}

bool api_npy_bytes(DType dtype, const int64_t *dims, size_t rank,
		   DatItemsFn get, void *ctx, StrBuf *out)
{
	uint64_t ext[NPY_MAX_RANK];
	if (rank > NPY_MAX_RANK)
		return false;
	for (size_t d = 0; d < rank; d++)
		ext[d] = (uint64_t)dims[d];
	NpyHeader h;
	if (!npy_make_header(&h, dtype, ext, (uint32_t)rank) || h.data_bytes > SIZE_MAX / 2)
		return false;
	npy_write_header(&h, out);
	enum { CHUNK = 4096 };
	DatItem items[CHUNK];
	unsigned char bytes[CHUNK * 8];
	for (uint64_t first = 0; first < h.items; first += CHUNK) {
		size_t n = h.items - first < CHUNK ? (size_t)(h.items - first) : CHUNK;
		get(ctx, first, n, items);
		npy_encode(&h, items, n, bytes);
		sb_putn(out, (const char *)bytes, n * h.item_bytes);
	}
	return true;
}

bool api_tensor_npy(const nnef_tensor *t, unsigned flags, StrBuf *out)
{
	DType dt = t->dtype == NNEF_SCALAR ? (flags & NNEF_WRITE_DOUBLE ? DT_F64 : DT_F32)
		 : t->dtype == NNEF_INTEGER ? (flags & NNEF_WRITE_INT32 ? DT_I32 : DT_I64)
		 : DT_BOOL;
	return api_npy_bytes(dt, t->dims, t->rank, items_of, (void *)t, out);
}

static void write_file(void *arg)
{
	TensorIO *io = arg;
	DatHeader h;
	if (io->flags & NNEF_WRITE_NPY) {
		StrBuf b;
		sb_init(&b);
		if (!api_tensor_npy(io->out, io->flags, &b))
			diag_add(io->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': a .npy holds at most 32 dimensions", io->path);
		else
			io->ok = dat_write_bytes(io->path, b.data, b.len, io->ds->dl);
		sb_free(&b);
		return;
	}
	if (!write_header(io->out, io->flags, &h))
		diag_add(io->ds->dl, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': a tensor file holds at most 8 dimensions of at most 2^32 - 1 items and 4 GiB of data", io->path);
	else
		io->ok = dat_write_file(io->path, &h, items_of, (void *)io->out, io->ds->dl);
}

bool nnef_tensor_write(const nnef_tensor *t, const char *path,
		       unsigned flags, nnef_diags *ds)
{
	TensorIO io = { .path = path, .flags = flags, .ds = ds, .out = t };
	if (!api_in_temp_heap(write_file, &io)) { /* no temporary file is left */
		api_out_of_memory(ds, "writing a tensor file");
		return false;
	}
	return io.ok;
}
