/*
 * codec_internal.h - what the tensor file codec (codec.c), tract's item
 * types (tract_items.c) and the NumPy codec (npy.c, npz.c) share inside the
 * module.
 */
#ifndef NNEF_CODEC_INTERNAL_H
#define NNEF_CODEC_INTERNAL_H

#include "datfile/datfile.h"

/* Adds an error (or code's level) without a position: "name: message". */
Diag *dat_fail(DiagList *diags, DiagCode code, const char *name,
	       const char *fmt, ...) UTIL_PRINTF(4, 5);

/* The 4 bytes at p, little-endian. */
static inline uint32_t dat_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* tract.c: the item type of tract's vendor code in h->code, its bits
 * (E1007) and datum type; false after an error (E1014, E1007). */
bool dat_tract_type(DatHeader *h, const char *name, DiagList *diags);
/* tract.c: the data length of a Q4_0 or string header against its shape
 * and the file size (E1015, E1008, E1009); false after an error. */
bool dat_tract_sizes(DatHeader *h, uint64_t file_size, const char *name,
		     DiagList *diags);
/* tract.c: the name of a tract type ("q4_0"), or NULL. */
const char *dat_tract_name(const DatHeader *h);
/* tract.c: items [first, first + n) of Q4_0 blocks, as reals. */
void dat_q40_decode(const DatHeader *h, const unsigned char *data,
		    uint64_t first, size_t n, DatItem *out);

#endif
