/*
 * tract_items.c - the vendor item types of Sonos' tract (vendor code 'TR',
 * 0x5452; tract's nnef/src/tensors.rs and tract-linalg's block_quant):
 * their header fields, the sizes of their data, Q4_0 blocks decoded to
 * reals and string tensors checked as they are read. The header around
 * them is drawn in codec.c.
 *
 *   item type  bits per item          items                  DType
 *   ---------  ---------------------  ---------------------  ---------
 *   0x1000     0xFFFF or 0xFFFFFFFF   strings (below)        string
 *   0x2040     0xFFFFFFFF             Q4_0, tract's order    f32
 *   0x3040     0xFFFFFFFF             Q4_0, GGML's order     f32
 *   0x0000     32, 64 or 128          complex of two floats  (none)
 *   0x0004     32, 64 or 128          complex of two ints    (none)
 *
 * tract gives a Q4_0 tensor as an opaque block-quantized value whose
 * kernels dequantize it to f32; nnefkit decodes it to those reals, so
 * its datum type is f32. Complex numbers (tract's feature "complex") are
 * listed, not decoded: NNEF has no type for them.
 *
 * Q4_0 (32 items a block): the tensor's items in row-major order, cut
 * into blocks of 32, the extents after the first making a multiple of 32
 * (a block never spans two rows of the first dimension, as tract
 * requires), 18 bytes a block:
 *
 *   offset size  field
 *   ------ ----  ------------------------------------------------------
 *        0    2  d: the block's scale, an IEEE binary16, little-endian
 *        2   16  q0 .. q31: 32 codes of 4 bits, each 0 to 15
 *
 * Item j of a block is (qj - 8) d. The value is exact in a double (the
 * code has 4 significant bits, the half 11), as in tract. The two codes
 * differ only in where qj sits in bytes 2 to 17:
 *
 *   0x2040, tract's own order (its NibbleReader): byte 2 + j / 2, the
 *   low nibble for even j, the high nibble for odd j
 *
 *       byte    2     3     4    ...   17
 *       high   q1    q3    q5    ...  q31
 *       low    q0    q2    q4    ...  q30
 *
 *   0x3040, GGML's order (what tract writes now): byte 2 + j % 16, the
 *   low nibble for j < 16, the high nibble for the others
 *
 *       byte    2     3     4    ...   17
 *       high   q16   q17   q18   ...  q31
 *       low    q0    q1    q2    ...  q15
 *
 * Strings (0x1000): per item, in row-major order, a 4-byte little-endian
 * length n, then n bytes of UTF-8 (tract refuses anything else). The
 * header's data length is not their size: tract's writer stores the item
 * count times 24 there (the size of a Rust String, truncated to 32 bits);
 * nnefkit accepts that or the true size, and checks the strings when it
 * reads them.
 */
#include "datfile/codec_internal.h"

#include <string.h>

/* Bits as a number, or in hexadecimal when they are a mark (0xFFFF). */
static const char *bits_text(uint32_t bits, char buf[16])
{
	snprintf(buf, 16, bits > 128 ? "0x%X" : "%u", (unsigned)bits);
	return buf;
}

static bool complex_bits(uint32_t b)
{
	return b == 32 || b == 64 || b == 128;
}

bool dat_tract_type(DatHeader *h, const char *name, DiagList *diags)
{
	uint32_t t = h->code & 0xffff, b = h->bits;
	const char *want = NULL;
	bool ok = false;
	switch (t) {
	case 0x1000:
		h->tract = DAT_TR_STRING;
		h->dtype = DT_STRING;
		ok = b == 0xffff || b == 0xffffffff;
		want = "0xFFFF or 0xFFFFFFFF, tract's marks of items of variable size";
		break;
	case 0x2040:
	case 0x3040:
		h->tract = t == 0x2040 ? DAT_TR_Q40 : DAT_TR_Q40_GGML;
		h->dtype = DT_F32;
		ok = b == 0xffffffff;
		want = "0xFFFFFFFF, tract's mark of a block-quantized type";
		break;
	case 0x0000:
	case 0x0004:
		h->tract = t == 0 ? DAT_TR_COMPLEX_F : DAT_TR_COMPLEX_I;
		h->dtype = DT_NONE;
		ok = complex_bits(b);
		want = t == 0 ? "32, 64 or 128, two floats of 16, 32 or 64 bits" : "32, 64 or 128, two signed integers of 16, 32 or 64 bits";
		break;
	default:
		dat_fail(diags, DIAG_E1014, name, "item type 0x%04x of tract's vendor code 'TR' (0x5452): tract defines 0x1000 (strings), 0x2040 and 0x3040 (Q4_0 blocks), 0x0000 and 0x0004 (complex numbers)", (unsigned)t);
		return false;
	}
	char bt[16];
	if (!ok) {
		dat_fail(diags, DIAG_E1007, name, "%s bits per item; tract's %s items take %s", bits_text(b, bt), dat_tract_name(h), want);
		return false;
	}
	if (h->tract == DAT_TR_COMPLEX_F || h->tract == DAT_TR_COMPLEX_I)
		dat_fail(diags, DIAG_W1011, name, "tract's complex item type %s: the data is not decoded", dat_tract_name(h));
	return true;
}

const char *dat_tract_name(const DatHeader *h)
{
	static const char *const cf[] = { "complex_f16", "complex_f32", "complex_f64" };
	static const char *const ci[] = { "complex_i16", "complex_i32", "complex_i64" };
	unsigned w = h->bits == 32 ? 0 : h->bits == 64 ? 1 : 2;
	switch (h->tract) {
	case DAT_TR_NONE:
		return NULL;
	case DAT_TR_STRING:
		return "string";
	case DAT_TR_Q40:
		return "q4_0";
	case DAT_TR_Q40_GGML:
		return "q4_0_ggml";
	case DAT_TR_COMPLEX_F:
		return cf[w];
	case DAT_TR_COMPLEX_I:
		return ci[w];
	}
	return NULL;
}

/* Q4_0: a rank of 2 or more, rows of whole blocks, 18 bytes a block. */
static bool q40_sizes(const DatHeader *h, const char *name, DiagList *diags)
{
	if (h->rank < 2) {
		dat_fail(diags, DIAG_E1015, name, "a Q4_0 tensor of rank %u; Q4_0 blocks need a rank of 2 or more (each row of the first dimension is cut into blocks of 32 items)", (unsigned)h->rank);
		return false;
	}
	uint64_t row = 1, items;
	for (uint32_t i = 1; i < h->rank; i++)
		if (__builtin_mul_overflow(row, (uint64_t)h->extents[i], &row)) {
			dat_fail(diags, DIAG_E1008, name, "the extents make more items than 64 bits can count");
			return false;
		}
	if (row % DAT_Q40_ITEMS != 0) {
		dat_fail(diags, DIAG_E1015, name, "the extents after the first make rows of %llu items, not a multiple of the 32 items of a Q4_0 block", (unsigned long long)row);
		return false;
	}
	if (__builtin_mul_overflow(row, (uint64_t)h->extents[0], &items)) {
		dat_fail(diags, DIAG_E1008, name, "the extents make more items than 64 bits can count");
		return false;
	}
	uint64_t blocks = items / DAT_Q40_ITEMS, bytes = blocks * DAT_Q40_BYTES;
	if (bytes != h->data_length) {
		dat_fail(diags, DIAG_E1008, name, "the header gives %u bytes of data, but %llu items make %llu Q4_0 blocks of 18 bytes: %llu bytes", (unsigned)h->data_length, (unsigned long long)items, (unsigned long long)blocks, (unsigned long long)bytes);
		return false;
	}
	return true;
}

/* Strings: at least their lengths in the file; the data length the true
 * size or tract's count times 24. */
static bool string_sizes(DatHeader *h, uint64_t file_size, const char *name,
			 DiagList *diags)
{
	uint64_t items, least;
	if (!dat_items(h, &items) || __builtin_mul_overflow(items, (uint64_t)4, &least)) {
		dat_fail(diags, DIAG_E1008, name, "the extents make more strings than 64 bits can count the bytes of");
		return false;
	}
	uint64_t have = file_size == DAT_SIZE_UNKNOWN ? h->data_length : file_size - DAT_HEADER_SIZE;
	if (have < least) {
		dat_fail(diags, DIAG_E1009, name, "the file has %llu bytes after the header; its %llu string%s take%s at least %llu (a 4-byte length each)", (unsigned long long)have, (unsigned long long)items, items == 1 ? "" : "s", items == 1 ? "s" : "", (unsigned long long)least);
		return false;
	}
	uint32_t tract = (uint32_t)(items * 24u);
	if (h->data_length != have && h->data_length != tract) {
		dat_fail(diags, DIAG_E1008, name, "the header gives %u bytes of data; the file holds %llu after the header, and tract's writer gives %u (24 bytes a string)", (unsigned)h->data_length, (unsigned long long)have, (unsigned)tract);
		return false;
	}
	h->header_size = DAT_HEADER_SIZE;
	return true;
}

bool dat_tract_sizes(DatHeader *h, uint64_t file_size, const char *name,
		     DiagList *diags)
{
	if (h->tract == DAT_TR_STRING)
		return string_sizes(h, file_size, name, diags);
	return q40_sizes(h, name, diags);
}

void dat_q40_decode(const DatHeader *h, const unsigned char *data,
		    uint64_t first, size_t n, DatItem *out)
{
	bool ggml = h->tract == DAT_TR_Q40_GGML;
	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k;
		const unsigned char *b = data + i / DAT_Q40_ITEMS * DAT_Q40_BYTES;
		unsigned j = (unsigned)(i % DAT_Q40_ITEMS);
		double d = dat_half_to_double((uint16_t)(b[0] | b[1] << 8));
		unsigned byte = ggml ? b[2 + j % 16] : b[2 + j / 2];
		bool high = ggml ? j >= 16 : j % 2 == 1;
		int q = (int)(high ? byte >> 4 : byte & 15u);
		out[k].f = (q - 8) * d;
	}
}

/* ---- strings ------------------------------------------------------------------ */

void dat_strings_begin(DatStrings *s, const DatHeader *h)
{
	memset(s, 0, sizeof(*s));
	dat_items(h, &s->total);
}

/* The UTF-8 byte c (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF); false when it cannot come here. */
static bool utf8_byte(DatStrings *s, unsigned char c)
{
	if (s->cont) {
		if (c < s->lo || c > s->hi)
			return false;
		s->cont--;
		s->lo = 0x80;
		s->hi = 0xbf;
		return true;
	}
	s->lo = 0x80;
	s->hi = 0xbf;
	if (c < 0x80)
		return true;
	if (c >= 0xc2 && c <= 0xdf)
		s->cont = 1;
	else if (c >= 0xe0 && c <= 0xef)
		s->cont = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		s->cont = 3;
	else
		return false;
	if (c == 0xe0)
		s->lo = 0xa0;
	else if (c == 0xed)
		s->hi = 0x9f;
	else if (c == 0xf0)
		s->lo = 0x90;
	else if (c == 0xf4)
		s->hi = 0x8f;
	return true;
}

/* E1016 about the current string (counted from 0). */
static bool strings_fail(DatStrings *s, const char *name, DiagList *diags,
			 const char *what)
{
	dat_fail(diags, DIAG_E1016, name, "string %llu of %llu, at byte %llu of the data, %s", (unsigned long long)(s->begun - 1), (unsigned long long)s->total, (unsigned long long)s->offset, what);
	s->failed = true;
	return false;
}

bool dat_strings_feed(DatStrings *s, const unsigned char *p, size_t n,
		      const char *name, DiagList *diags)
{
	for (size_t k = 0; k < n && !s->failed; k++, s->offset++) {
		unsigned char c = p[k];
		if (s->nlen == 4 && s->left) {
			s->left--;
			if (!utf8_byte(s, c))
				return strings_fail(s, name, diags, "is not valid UTF-8");
			continue;
		}
		if (s->nlen == 4 || s->begun == 0) { /* the next string */
			if (s->cont)
				return strings_fail(s, name, diags, "ends within a UTF-8 sequence");
			if (s->begun == s->total) {
				dat_fail(diags, DIAG_E1016, name, "the data goes on after the last of its %llu strings, from byte %llu", (unsigned long long)s->total, (unsigned long long)s->offset);
				s->failed = true;
				return false;
			}
			s->begun++;
			s->nlen = 0;
			s->len = 0;
		}
		s->len |= (uint32_t)c << (8 * s->nlen);
		if (++s->nlen == 4)
			s->left = s->len;
	}
	return !s->failed;
}

bool dat_strings_end(DatStrings *s, const char *name, DiagList *diags)
{
	if (s->failed)
		return false;
	bool inside = s->begun && (s->nlen < 4 || s->left);
	if (!inside && s->cont)
		return strings_fail(s, name, diags, "ends within a UTF-8 sequence");
	if (!inside && s->begun == s->total)
		return true;
	if (inside)
		dat_fail(diags, DIAG_E1016, name, "the data ends after %llu bytes, within string %llu of %llu", (unsigned long long)s->offset, (unsigned long long)(s->begun - 1), (unsigned long long)s->total);
	else
		dat_fail(diags, DIAG_E1016, name, "the data ends after %llu bytes and %llu of its %llu strings", (unsigned long long)s->offset, (unsigned long long)s->begun, (unsigned long long)s->total);
	s->failed = true;
	return false;
}
