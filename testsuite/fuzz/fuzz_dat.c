/*
 * fuzz_dat.c - libFuzzer target: any byte sequence as a tensor file (spec
 * 5.2). The header is read leniently and strictly; when it is valid, the
 * header is written back (it must give the same 84 bytes of fields), its
 * data length recomputed with dat_make_header, and every item decoded,
 * turned into its real value (a logarithmic code must give the value of
 * spec 5.2), encoded again and decoded again (it must give the same
 * items). tract's Q4_0 blocks decode to (q - 8) d, recomputed here from
 * the bytes for each nibble order, and its string tensors are walked
 * (chunks of a size the data's first byte picks). Then the public
 * reader, nnef_tensor_read, reads the same bytes through a memory file
 * (memfd, opened by its /proc/self/fd path). Files with more than 1 MiB
 * of data are skipped past the header. Nothing may crash, hang, leak or
 * read out of bounds.
 * Build and run with `make fuzz-dat` (clang; FUZZ_SECONDS=60 by default).
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

#define MAX_DATA ((uint64_t)1 << 20)
#define CHUNK 256

/* The item values a and b are the same (NaNs equal, floats by bits). */
static bool same_item(const DatHeader *h, DatItem a, DatItem b)
{
	if (h->type == DAT_FLOAT && isnan(a.f) && isnan(b.f))
		return true;
	return a.u == b.u;
}

/* The header written back gives the same fields, and a header made from
 * its type, bits and shape the same data length. */
static void check_header_round_trip(const unsigned char *bytes,
				    const DatHeader *h)
{
	unsigned char out[DAT_HEADER_SIZE];
	dat_write_header(h, out);
	if (memcmp(out, bytes, 84) != 0)
		__builtin_trap();
	char name[32];
	dat_type_name(h, name);
	if (h->type == DAT_VENDOR)
		return;
	DatHeader made;
	if (!dat_make_header(&made, h->type, h->bits, h->extents, h->rank) ||
	    made.data_length != h->data_length)
		__builtin_trap();
}

/* The real value of a logarithmic code as the spec defines it (5.2,
 * 1.0.2 code 0x11): 2^(q + m - r), r = 2^b - 1, m = ceil(log2 max), b
 * the code's bits (less the sign bit when min = -max, the sign bit being
 * the most significant). The exponent is formed in integers, so that it
 * is exact for every width. Returns false when it is too small for a
 * normal double (then the value is not compared). */
static bool log_value(const DatHeader *h, uint64_t q, double *out)
{
	bool sign = h->qmin != 0.0f;
	uint32_t b = h->bits - (sign ? 1 : 0);
	uint64_t mask = b == 64 ? ~(uint64_t)0 : ((uint64_t)1 << b) - 1;
	bool negative = sign && (q >> b) & 1;
	uint64_t below = mask - (q & mask); /* r - q, exact */
	int m = (int)ceil(log2((double)h->qmax));
	if (below > 1000 || m - (int)below < -1022)
		return false;
	double v = ldexp(1.0, m - (int)below);
	*out = negative ? -v : v;
	return true;
}

/* dat_real of a logarithmic code is the spec's value. */
static void check_log_value(const DatHeader *h, DatItem v)
{
	double want, got = dat_real(h, v);
	if (!log_value(h, v.u, &want))
		return;
	if (fabs(got - want) > 1e-12 * fabs(want))
		__builtin_trap();
}

/* Decodes every item in chunks; each chunk is encoded into a scratch
 * buffer and decoded again. */
static void check_items(const DatHeader *h, const unsigned char *items)
{
	uint64_t n;
	if (!dat_items(h, &n))
		__builtin_trap(); /* the header was accepted */
	DatItem v[CHUNK], w[CHUNK];
	uint64_t need;
	dat_packed_size(h, CHUNK, &need);
	unsigned char *scratch = calloc(1, (size_t)need + 8);
	double sum = 0;
	for (uint64_t first = 0; first < n; first += CHUNK) {
		size_t k = n - first < CHUNK ? (size_t)(n - first) : CHUNK;
		dat_decode(h, items, first, k, v);
		for (size_t i = 0; i < k; i++) {
			sum += dat_real(h, v[i]);
			if (h->type == DAT_LOG)
				check_log_value(h, v[i]);
		}
		/* the scratch buffer holds items [0, k): re-index from 0 */
		memset(scratch, 0, (size_t)need + 8);
		dat_encode(h, scratch, 0, k, v);
		dat_decode(h, scratch, 0, k, w);
		for (size_t i = 0; i < k; i++)
			if (!same_item(h, v[i], w[i]))
				__builtin_trap();
	}
	free(scratch);
	(void)sum;
}

/* Q4_0 items are (q - 8) d, q the item's nibble in its block's order. */
static void check_q40(const DatHeader *h, const unsigned char *data)
{
	uint64_t n;
	if (!dat_items(h, &n) || n % 32 != 0)
		__builtin_trap(); /* the header was accepted */
	DatItem v[CHUNK];
	for (uint64_t first = 0; first < n; first += CHUNK) {
		size_t k = n - first < CHUNK ? (size_t)(n - first) : CHUNK;
		dat_decode(h, data, first, k, v);
		for (size_t i = 0; i < k; i++) {
			uint64_t item = first + i;
			const unsigned char *b = data + item / 32 * 18;
			unsigned j = (unsigned)(item % 32);
			bool ggml = h->tract == DAT_TR_Q40_GGML;
			unsigned at = ggml ? 2 + (j & 15) : 2 + (j >> 1);
			unsigned shift = ggml ? (j >> 4) * 4 : (j & 1) * 4;
			int q = (b[at] >> shift) & 15;
			double d = dat_half_to_double((uint16_t)(b[0] | b[1] << 8));
			double want = (double)(q - 8) * d;
			/* bit for bit (the sign of a zero too), NaN aside */
			bool same = isnan(want) ? isnan(v[i].f) : memcmp(&v[i].f, &want, sizeof(want)) == 0;
			if (!same || !(isnan(want) || dat_real(h, v[i]) == want))
				__builtin_trap();
		}
	}
}

/* The strings of a string tensor, fed in chunks. */
static void walk_strings(const DatHeader *h, const unsigned char *data,
			 size_t len)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	DatStrings st;
	dat_strings_begin(&st, h);
	size_t step = len ? (size_t)data[0] % 13 + 1 : 1;
	bool ok = true;
	for (size_t at = 0; ok && at < len; at += step)
		ok = dat_strings_feed(&st, data + at, len - at < step ? len - at : step, "fuzz.dat", &dl);
	if (ok)
		dat_strings_end(&st, "fuzz.dat", &dl);
	diag_list_free(&dl);
}

/* The public reader on the same bytes, from a memory file. */
static void read_public(const uint8_t *data, size_t size, unsigned flags)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz_dat", 0);
	if (fd < 0 || ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nnef_diags *ds = nnef_diags_new();
	nnef_tensor *t = nnef_tensor_read(path, flags, ds);
	if (t) {
		size_t n = nnef_tensor_count(t);
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += nnef_tensor_get(t, i);
		(void)sum;
		if (!nnef_tensor_file_type(t))
			__builtin_trap();
	}
	nnef_tensor_free(t);
	nnef_diags_free(ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < DAT_OLD_HEADER_SIZE ? size : DAT_OLD_HEADER_SIZE;
	bool big = false;
	for (int lenient = 0; lenient < 2; lenient++) {
		DiagList dl;
		diag_list_init(&dl, 0);
		DatHeader h;
		if (dat_read_header(data, n, size, "fuzz.dat", lenient, &h, &dl)) {
			/* (a string tensor's data length may be tract's count
			 * times 24, not its size) */
			if (h.header_size + (uint64_t)h.data_length > size &&
			    h.tract != DAT_TR_STRING)
				__builtin_trap(); /* accepted, yet too short */
			check_header_round_trip(data, &h);
			big = h.data_length > MAX_DATA || size - h.header_size > MAX_DATA;
			if (!big && h.type != DAT_VENDOR)
				check_items(&h, data + h.header_size);
			else if (!big && dat_decodable(&h))
				check_q40(&h, data + h.header_size);
			else if (!big && h.tract == DAT_TR_STRING)
				walk_strings(&h, data + h.header_size, size - h.header_size);
		}
		diag_list_free(&dl);
	}
	if (!big) {
		read_public(data, size, 0);
		read_public(data, size, NNEF_READ_LENIENT);
	}
	return 0;
}
