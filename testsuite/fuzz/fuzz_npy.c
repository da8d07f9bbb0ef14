/*
 * fuzz_npy.c - libFuzzer target: any byte sequence as a NumPy .npy file
 * and as a .npz bundle. As a .npy: the header is read from memory and
 * through a stream (in chunks of a size the first byte picks); when it is
 * valid, every item is decoded, encoded again and decoded again (the same
 * values), and a header made of its type and shape reads back as it. As
 * a .npz: libzip opens it from memory with small limits, every array is
 * read as a stream (header, items, the end and its CRC). Then the public
 * readers, nnef_tensor_read and nnef_bundle_open/nnef_bundle_get, read
 * the same bytes through a memory file (memfd, by its /proc/self/fd
 * path). Nothing may crash, hang, leak, read out of bounds or allocate
 * beyond the limits.
 * Build and run with `make fuzz-npy` (clang; FUZZ_SECONDS=60 by default).
 */
#define _GNU_SOURCE /* memfd_create */
#include "api/nnef.h"
#include "datfile/datfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ITEMS 65536
#define CHUNK 64

/* Bytes in memory as an NpyReadFn, at most `step` at a time. */
typedef struct Mem {
	const uint8_t *p;
	size_t len, at, step;
} Mem;

static long mem_read(void *ctx, void *buf, size_t n)
{
	Mem *m = ctx;
	if (n > m->step)
		n = m->step;
	if (n > m->len - m->at)
		n = m->len - m->at;
	memcpy(buf, m->p + m->at, n);
	m->at += n;
	return (long)n;
}

static void sum_items(void *ctx, uint64_t first, size_t n, const DatItem *items)
{
	(void)first;
	double *sum = ctx;
	for (size_t i = 0; i < n; i++)
		*sum += items[i].f;
}

/* Items decoded, encoded and decoded again give the same values (bools
 * read as 0 or 1, so the bytes may differ, the values not). */
static void check_items(const NpyHeader *h, const uint8_t *p)
{
	DatItem v[CHUNK], w[CHUNK];
	unsigned char bytes[CHUNK * 8];
	for (uint64_t first = 0; first < h->items; first += CHUNK) {
		size_t n = h->items - first < CHUNK ? (size_t)(h->items - first) : CHUNK;
		npy_decode(h, p + first * h->item_bytes, n, v);
		npy_encode(h, v, n, bytes);
		npy_decode(h, bytes, n, w);
		for (size_t i = 0; i < n; i++) {
			bool nan = dtype_is_float(h->dtype) && isnan(v[i].f) && isnan(w[i].f);
			if (!nan && v[i].u != w[i].u)
				__builtin_trap();
			(void)npy_real(h, v[i]);
		}
	}
}

/* A header made of h's type and shape reads back with them. */
static void check_written_header(const NpyHeader *h)
{
	NpyHeader made, back;
	if (!npy_make_header(&made, h->dtype, h->extents, h->rank))
		__builtin_trap(); /* h was read: it fits */
	StrBuf b;
	sb_init(&b);
	npy_write_header(&made, &b);
	DiagList dl;
	diag_list_init(&dl, 0);
	if (!npy_read_header((const unsigned char *)b.data, b.len, b.len + made.data_bytes, "made.npy", &back, &dl) ||
	    back.rank != h->rank || back.dtype != h->dtype || back.items != h->items ||
	    memcmp(back.extents, h->extents, h->rank * sizeof(uint64_t)) != 0)
		__builtin_trap();
	diag_list_free(&dl);
	sb_free(&b);
}

static void as_npy(const uint8_t *data, size_t size)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	NpyHeader h;
	uint64_t hs;
	if (npy_header_size(data, size, "fuzz.npy", &hs, &dl) && hs <= size &&
	    npy_read_header(data, (size_t)hs, size, "fuzz.npy", &h, &dl)) {
		if (h.data_offset + h.data_bytes != size)
			__builtin_trap(); /* accepted, yet of another size */
		check_written_header(&h);
		if (h.items <= MAX_ITEMS)
			check_items(&h, data + h.data_offset);
	}
	Mem m = { data, size, 0, size ? (size_t)data[0] % 97 + 1 : 1 };
	if (npy_read_stream(mem_read, &m, size, "fuzz.npy", &h, &dl) && h.items <= MAX_ITEMS) {
		double sum = 0;
		if (!npy_read_items(mem_read, &m, &h, "fuzz.npy", sum_items, &sum, &dl))
			__builtin_trap(); /* the sizes were checked */
	}
	diag_list_free(&dl);
}

static void as_npz(const uint8_t *data, size_t size)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	ContLimits lim = { 1 << 20, 1 << 20, 64 };
	NpzFile *z = npz_open_memory("fuzz.npz", data, size, &lim, &dl);
	for (size_t i = 0; z && i < npz_count(z); i++) {
		NpyHeader h;
		double sum = 0;
		if (npz_select(z, i) && npz_size(z, i) <= lim.max_member &&
		    npy_read_stream(npz_read, z, npz_size(z, i), npz_member(z, i), &h, &dl))
			npy_read_items(npz_read, z, &h, npz_member(z, i), sum_items, &sum, &dl);
	}
	npz_close(z);
	StrBuf out;
	sb_init(&out);
	DiagRenderOpts o = { .show_warnings = true };
	diag_render_all(&dl, &out, &o);
	sb_free(&out);
	diag_list_free(&dl);
}

/* The public readers on the same bytes, from a memory file. */
static void read_public(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz_npy", 0);
	if (fd < 0 || ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nnef_diags *ds = nnef_diags_new();
	nnef_tensor *t = nnef_tensor_read(path, 0, ds);
	if (t && !nnef_tensor_file_type(t))
		__builtin_trap();
	nnef_tensor_free(t);
	nnef_options o;
	nnef_options_init(&o);
	o.max_archive_bytes = o.max_member_bytes = 1 << 20;
	o.max_members = 64;
	nnef_bundle *b = nnef_bundle_open(path, &o, ds);
	for (size_t i = 0; b && i < nnef_bundle_count(b); i++)
		nnef_tensor_free(nnef_bundle_get(b, i, ds));
	nnef_bundle_free(b);
	free(nnef_diags_render(ds, "fuzz", NNEF_RENDER_WARNINGS));
	nnef_diags_free(ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_npy(data, size);
	as_npz(data, size);
	read_public(data, size);
	return 0;
}
