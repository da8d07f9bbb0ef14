/*
 * tensor_stream.c - tensor files (NNEF's, spec 5.2, or NumPy's .npy)
 * read from a stream that cannot go back: standard input ("-"), a pipe,
 * a FIFO, /dev/stdin. The stream is read once, into memory, and decoded from
 * there as a file would be. What is read is bounded by the header: first
 * the header alone (a .dat's 128 bytes, a .npy's preamble and header
 * text), whose shape the caller may check (against a graph input's)
 * before anything more is allocated, then the bytes it declares, then one
 * more to see that the stream ends there.
 */
#include "api/api_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool api_is_stream(const char *path)
{
	struct stat st;
	return strcmp(path, "-") == 0 ||
	       (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

const char *api_stream_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Up to n bytes into p: fewer only where the stream ends (or fails). */
static size_t read_up_to(FILE *fp, unsigned char *p, size_t n)
{
	size_t got = 0, k;
	while (got < n && (k = fread(p + got, 1, n - got, fp)) > 0)
		got += k;
	return got;
}

/* What a header declares. */
typedef struct Declared {
	bool npy;
	uint64_t total;          /* header and data, in bytes */
	size_t rank;
	int64_t dims[NPY_MAX_RANK];
} Declared;

/* Reads the header at the start of fp into b (*n bytes read): false after
 * a diagnostic. */
static bool read_header(FILE *fp, const char *name, bool lenient,
			unsigned char *b, size_t *n, Declared *d, DiagList *dl)
{
	*n = read_up_to(fp, b, DAT_HEADER_SIZE);
	d->npy = npy_is_npy(b, *n);
	if (d->npy) {
		uint64_t size;
		if (!npy_header_size(b, *n, name, &size, dl))
			return false;
		if (size > *n) /* at most NPY_PREAMBLE + NPY_MAX_HEADER */
			*n += read_up_to(fp, b + *n, (size_t)size - *n);
		NpyHeader h;
		if (!npy_read_header(b, *n, *n < size ? *n : DAT_SIZE_UNKNOWN, name, &h, dl))
			return false;
		d->total = h.data_offset + h.data_bytes;
		d->rank = h.rank;
		for (uint32_t k = 0; k < h.rank; k++)
			d->dims[k] = (int64_t)h.extents[k];
		return true;
	}
	DatHeader h;
	if (!dat_read_header(b, *n, *n < DAT_HEADER_SIZE ? *n : DAT_SIZE_UNKNOWN, name, lenient, &h, dl))
		return false;
	d->total = DAT_HEADER_SIZE + (uint64_t)h.data_length;
	d->rank = h.rank;
	for (uint32_t k = 0; k < h.rank; k++)
		d->dims[k] = h.extents[k];
	return true;
}

unsigned char *api_stream_read(FILE *fp, const char *name, bool lenient,
			       ApiShapeCheck *check, void *ctx,
			       DiagList *dl, size_t *len)
{
	unsigned char *b = util_malloc(NPY_PREAMBLE + NPY_MAX_HEADER);
	size_t n;
	Declared d;
	if (!read_header(fp, name, lenient, b, &n, &d, dl) ||
	    (check && !check(ctx, d.dims, d.rank, name))) {
		util_free(b);
		return NULL;
	}
	/* a .dat 4 bytes longer may have the 132-byte header of old
	 * NNEF-Tools: the decoder says so, as it does of a file */
	uint64_t room = d.total + (d.npy ? 0 : 4);
	DiagCode code = d.npy ? DIAG_E1407 : DIAG_E1009;
	if (room >= SIZE_MAX) {
		diag_add(dl, code, loc_make(NULL, 0, 0), "%s: the header declares %llu bytes, more than memory can hold", name, (unsigned long long)d.total);
		util_free(b);
		return NULL;
	}
	if (room > n) {
		b = util_realloc(b, (size_t)room + 1);
		n += read_up_to(fp, b + n, (size_t)room - n);
	}
	unsigned char more;
	bool over = n > d.total && (d.npy || n < room);
	if (n < d.total)
		diag_add(dl, code, loc_make(NULL, 0, 0), "%s: the stream ends after %zu bytes; its header declares %llu", name, n, (unsigned long long)d.total);
	else if (over || (n == room && read_up_to(fp, &more, 1) == 1))
		diag_add(dl, code, loc_make(NULL, 0, 0), "%s: the stream goes on past the %llu bytes its header declares", name, (unsigned long long)d.total);
	else {
		*len = n;
		return b;
	}
	util_free(b);
	return NULL;
}
