/*
 * npy.c - NumPy's .npy format (numpy/lib/format.py, NEP 1): reading and
 * validating the header, strictly; decoding and encoding the items of the
 * data types nnefkit reads; writing a header as NumPy does.
 *
 *   offset size  field
 *   ------ ----  ------------------------------------------------------
 *        0    6  magic: 0x93 'N' 'U' 'M' 'P' 'Y'
 *        6    1  major version: 1, 2 or 3
 *        7    1  minor version: 0
 *        8    2  (1.0) header length HLEN, little-endian; the text at 10
 *        8    4  (2.0, 3.0) header length HLEN, little-endian; at 12
 *   10/12 HLEN  the header: a Python dict literal, padded with spaces and
 *                ended by a newline (latin-1 text; UTF-8 in 3.0)
 *      ...  ...  data: the items, C order (row-major), no gaps
 *
 * The dict has exactly three keys, in any order:
 *
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *
 *   descr          byte order ('<' little, '>' big, '|' not applicable),
 *                  kind and bytes: f2 f4 f8, i1 i2 i4 i8, u1 u2 u4 u8, b1
 *   fortran_order  False (C order; True is refused: E1406)
 *   shape          a tuple of non-negative integers: () is a scalar, (3,)
 *                  a vector ((3) is the number 3, not a tuple)
 *
 * Strings are quoted with ' or " (no escapes: no key or descr needs one),
 * integers are decimal (an old 'L' suffix is accepted), blanks are spaces
 * and tabs, and a trailing comma is allowed in the dict and the tuple.
 * Anything else is an error at its byte (E1403): the offsets in messages
 * count from the start of the file, as od and xxd do.
 */
#include "datfile/codec_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the preamble -------------------------------------------------------------- */

bool npy_is_npy(const unsigned char *bytes, size_t n)
{
	return n >= NPY_MAGIC_LEN && memcmp(bytes, NPY_MAGIC, NPY_MAGIC_LEN) == 0;
}

/* A byte as messages show it: 'x', or 0xNN when not printable. */
static const char *byte_text(unsigned char c, char buf[8])
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, 8, c == '\'' ? "\"%c\"" : "'%c'", c);
	else
		snprintf(buf, 8, "0x%02x", c);
	return buf;
}

bool npy_header_size(const unsigned char *bytes, size_t n, const char *name,
		     uint64_t *size, DiagList *diags)
{
	if (!npy_is_npy(bytes, n)) {
		StrBuf b;
		sb_init(&b);
		sb_put_escaped(&b, (const char *)bytes, n < NPY_MAGIC_LEN ? n : NPY_MAGIC_LEN);
		if (n < NPY_MAGIC_LEN)
			dat_fail(diags, DIAG_E1401, name, "%zu byte%s, shorter than the magic of a .npy file", n, n == 1 ? "" : "s");
		else
			dat_fail(diags, DIAG_E1401, name, "not a NumPy .npy file: it starts with '%s', not the magic '\\x93NUMPY'", sb_str(&b));
		sb_free(&b);
		return false;
	}
	unsigned major = n >= 8 ? bytes[6] : 1, minor = n >= 8 ? bytes[7] : 0;
	if (major < 1 || major > 3 || minor != 0) {
		dat_fail(diags, DIAG_E1402, name, ".npy format version %u.%u; nnefkit reads versions 1.0, 2.0 and 3.0", major, minor);
		return false;
	}
	uint64_t pre = major == 1 ? 10 : NPY_PREAMBLE;
	if (n < pre) {
		dat_fail(diags, DIAG_E1401, name, "%zu bytes: the file ends within the preamble of a .npy file (magic, version, header length)", n);
		return false;
	}
	uint64_t len = major == 1 ? (uint64_t)(bytes[8] | bytes[9] << 8) : dat_get32(bytes + 8);
	if (len > NPY_MAX_HEADER) {
		dat_fail(diags, DIAG_E1403, name, "byte 8: a header of %llu bytes; nnefkit reads headers of at most %d bytes", (unsigned long long)len, NPY_MAX_HEADER);
		return false;
	}
	*size = pre + len;
	return true;
}

/* ---- the header text ------------------------------------------------------------- */

/* A parse of the header text p[0..n), which starts at byte base of the
 * file. */
typedef struct Parse {
	const unsigned char *p;
	size_t n, at, base;
	const char *name;
	DiagList *diags;
} Parse;

/* The keys the dict has, each once. */
enum { KEY_DESCR, KEY_FORTRAN, KEY_SHAPE, NKEYS };
static const char *const key_names[NKEYS] = { "descr", "fortran_order", "shape" };

/* An error at the current byte: "name: byte N: expected X, found Y". */
static bool expected(Parse *ps, const char *what)
{
	char b[8];
	if (ps->at >= ps->n)
		dat_fail(ps->diags, DIAG_E1403, ps->name, "byte %zu: expected %s, found the end of the header", ps->base + ps->at, what);
	else
		dat_fail(ps->diags, DIAG_E1403, ps->name, "byte %zu: expected %s, found %s", ps->base + ps->at, what, byte_text(ps->p[ps->at], b));
	return false;
}

static void blanks(Parse *ps)
{
	while (ps->at < ps->n && (ps->p[ps->at] == ' ' || ps->p[ps->at] == '\t'))
		ps->at++;
}

static bool punct(Parse *ps, char c)
{
	blanks(ps);
	if (ps->at < ps->n && ps->p[ps->at] == c) {
		ps->at++;
		return true;
	}
	return false;
}

/* A quoted string into buf (cap bytes with the NUL); *len its length
 * (which may exceed cap - 1: then only its start is kept). */
static bool quoted(Parse *ps, char *buf, size_t cap, size_t *len)
{
	blanks(ps);
	if (ps->at >= ps->n || (ps->p[ps->at] != '\'' && ps->p[ps->at] != '"'))
		return expected(ps, "a quoted string");
	size_t open = ps->at;
	unsigned char q = ps->p[ps->at++];
	size_t k = 0;
	for (;; ps->at++) {
		unsigned char c = ps->at < ps->n ? ps->p[ps->at] : '\n';
		if (c == '\n') {
			dat_fail(ps->diags, DIAG_E1403, ps->name, "byte %zu: the string that begins at byte %zu is not closed", ps->base + ps->at, ps->base + open);
			return false;
		}
		if (c == q)
			break;
		if (c == '\\' || c < 0x20 || c >= 0x7f)
			return expected(ps, "a printable character in a string (escapes are not read)");
		if (k + 1 < cap)
			buf[k] = (char)c;
		k++;
	}
	ps->at++;
	buf[k + 1 < cap ? k : cap - 1] = '\0';
	*len = k;
	return true;
}

/* A non-negative decimal integer (an 'L' suffix allowed), below 2^63. */
static bool integer(Parse *ps, uint64_t *out)
{
	blanks(ps);
	size_t start = ps->at;
	uint64_t v = 0;
	if (ps->at < ps->n && ps->p[ps->at] == '-') {
		dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: a negative extent in 'shape'", ps->base + ps->at);
		return false;
	}
	while (ps->at < ps->n && ps->p[ps->at] >= '0' && ps->p[ps->at] <= '9') {
		if (ps->at > start && ps->p[start] == '0')
			return expected(ps, "',' or ')' (an integer has no leading zeros)");
		v = v * 10 + (uint64_t)(ps->p[ps->at++] - '0');
		if (v > (uint64_t)INT64_MAX) {
			dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: an extent of 2^63 or more in 'shape'", ps->base + start);
			return false;
		}
	}
	if (ps->at == start)
		return expected(ps, "an integer");
	if (ps->at < ps->n && ps->p[ps->at] == 'L')
		ps->at++;
	*out = v;
	return true;
}

/* 'shape': a tuple of integers. */
static bool shape_value(Parse *ps, NpyHeader *h)
{
	blanks(ps);
	size_t open = ps->at;
	if (!punct(ps, '(')) {
		if (ps->at < ps->n && ps->p[ps->at] >= '0' && ps->p[ps->at] <= '9') {
			dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: 'shape' is a number, not a tuple of extents", ps->base + ps->at);
			return false;
		}
		return expected(ps, "'(' to begin the tuple of 'shape'");
	}
	bool comma = false;
	h->rank = 0;
	while (!punct(ps, ')')) {
		if (h->rank && !comma)
			return expected(ps, "',' or ')' in 'shape'");
		if (h->rank == NPY_MAX_RANK) {
			dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: 'shape' has more than %d extents", ps->base + ps->at, NPY_MAX_RANK);
			return false;
		}
		if (!integer(ps, &h->extents[h->rank]))
			return false;
		h->rank++;
		comma = punct(ps, ',');
	}
	if (h->rank == 1 && !comma) {
		dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: 'shape' is a number in brackets, not a tuple: write (%llu,)", ps->base + open, (unsigned long long)h->extents[0]);
		return false;
	}
	return true;
}

static bool logical_value(Parse *ps, bool *out)
{
	blanks(ps);
	const char *p = (const char *)ps->p + ps->at;
	size_t rest = ps->n - ps->at;
	if (rest >= 4 && memcmp(p, "True", 4) == 0)
		*out = true;
	else if (rest >= 5 && memcmp(p, "False", 5) == 0)
		*out = false;
	else
		return expected(ps, "True or False for 'fortran_order'");
	ps->at += *out ? 4 : 5;
	return true;
}

/* The data types read: descr kind and bytes. */
static const struct {
	char kind;
	unsigned bytes;
	DType dtype;
	const char *name;
} dtypes[] = {
	{ 'f', 2, DT_F16, "float16" }, { 'f', 4, DT_F32, "float32" },
	{ 'f', 8, DT_F64, "float64" }, { 'i', 1, DT_I8, "int8" },
	{ 'i', 2, DT_I16, "int16" },   { 'i', 4, DT_I32, "int32" },
	{ 'i', 8, DT_I64, "int64" },   { 'u', 1, DT_U8, "uint8" },
	{ 'u', 2, DT_U16, "uint16" },  { 'u', 4, DT_U32, "uint32" },
	{ 'u', 8, DT_U64, "uint64" },  { 'b', 1, DT_BOOL, "bool8" },
};

/* 'descr': a byte order, a kind and a size that nnefkit reads. */
static bool descr_value(Parse *ps, NpyHeader *h)
{
	blanks(ps);
	size_t at = ps->at, len;
	char d[16];
	if (ps->at < ps->n && ps->p[ps->at] == '[') {
		dat_fail(ps->diags, DIAG_E1405, ps->name, "byte %zu: a structured data type (a list of fields); nnefkit reads arrays of numbers and bools", ps->base + at);
		return false;
	}
	if (!quoted(ps, d, sizeof(d), &len))
		return false;
	for (size_t i = 0; len == 3 && i < UTIL_ARRAY_LEN(dtypes); i++) {
		if (d[1] != dtypes[i].kind || (unsigned)(d[2] - '0') != dtypes[i].bytes)
			continue;
		bool one = dtypes[i].bytes == 1;
		if (d[0] != '<' && d[0] != '>' && !(d[0] == '|' && one))
			break;
		memcpy(h->descr, d, 4);
		h->dtype = dtypes[i].dtype;
		h->item_bytes = dtypes[i].bytes;
		h->big_endian = d[0] == '>' && !one;
		return true;
	}
	StrBuf shown;
	sb_init(&shown);
	sb_put_escaped(&shown, d, len < sizeof(d) ? len : sizeof(d) - 1);
	dat_fail(ps->diags, DIAG_E1405, ps->name, "byte %zu: data type '%s%s'; nnefkit reads f2, f4, f8, i1 to i8, u1 to u8 and b1, '<' or '>' (and '|' for one byte)", ps->base + at, sb_str(&shown), len >= sizeof(d) ? "..." : "");
	sb_free(&shown);
	return false;
}

/* One "key: value" of the dict; seen: the keys met so far. */
static bool entry(Parse *ps, NpyHeader *h, bool seen[NKEYS], bool *fortran)
{
	blanks(ps);
	size_t at = ps->at, len;
	char key[32];
	if (!quoted(ps, key, sizeof(key), &len))
		return false;
	int k = 0;
	while (k < NKEYS && (len >= sizeof(key) || strcmp(key, key_names[k]) != 0))
		k++;
	if (k == NKEYS || seen[k]) {
		StrBuf shown;
		sb_init(&shown);
		sb_put_escaped(&shown, key, len < sizeof(key) ? len : sizeof(key) - 1);
		dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: %s key '%s%s'; the header holds 'descr', 'fortran_order' and 'shape', once each", ps->base + at, k == NKEYS ? "an unknown" : "a second", sb_str(&shown), len >= sizeof(key) ? "..." : "");
		sb_free(&shown);
		return false;
	}
	seen[k] = true;
	if (!punct(ps, ':')) {
		char what[32];
		snprintf(what, sizeof(what), "':' after '%s'", key_names[k]);
		return expected(ps, what);
	}
	switch (k) {
	case KEY_DESCR:
		return descr_value(ps, h);
	case KEY_FORTRAN:
		return logical_value(ps, fortran);
	default:
		return shape_value(ps, h);
	}
}

/* The dict, then blanks and the newline that end the header. */
static bool parse_dict(Parse *ps, NpyHeader *h, bool *fortran)
{
	bool seen[NKEYS] = { false };
	if (!punct(ps, '{'))
		return expected(ps, "'{' to begin the header's dict");
	bool comma = true;
	while (!punct(ps, '}')) {
		if (!comma)
			return expected(ps, "',' or '}' after a value");
		if (!entry(ps, h, seen, fortran))
			return false;
		comma = punct(ps, ',');
	}
	while (ps->at < ps->n && ps->p[ps->at] == ' ')
		ps->at++;
	if (ps->at + 1 != ps->n || ps->p[ps->at] != '\n')
		return expected(ps, ps->at + 1 < ps->n ? "spaces after the dict" : "the newline that ends the header");
	for (int k = 0; k < NKEYS; k++)
		if (!seen[k]) {
			dat_fail(ps->diags, DIAG_E1404, ps->name, "byte %zu: the header has no '%s'; it holds 'descr', 'fortran_order' and 'shape'", ps->base, key_names[k]);
			return false;
		}
	return true;
}

/* The data's size against the file's. */
static bool check_data_size(NpyHeader *h, uint64_t file_size,
			    const char *name, DiagList *diags)
{
	h->items = 1;
	for (uint32_t i = 0; i < h->rank; i++)
		if (__builtin_mul_overflow(h->items, h->extents[i], &h->items) ||
		    __builtin_mul_overflow(h->items, (uint64_t)h->item_bytes, &h->data_bytes)) {
			dat_fail(diags, DIAG_E1407, name, "the shape makes more bytes of data than 64 bits can count");
			return false;
		}
	h->data_bytes = h->items * h->item_bytes;
	uint64_t have = file_size - h->data_offset;
	if (have == h->data_bytes || file_size == DAT_SIZE_UNKNOWN)
		return true;
	dat_fail(diags, DIAG_E1407, name, "%llu bytes of data follow the header, but %llu item%s of %u byte%s take%s %llu%s", (unsigned long long)have, (unsigned long long)h->items, h->items == 1 ? "" : "s", h->item_bytes, h->item_bytes == 1 ? "" : "s", h->items == 1 ? "s" : "", (unsigned long long)h->data_bytes, have < h->data_bytes ? ": the file is cut short" : "");
	return false;
}

bool npy_read_header(const unsigned char *bytes, size_t n, uint64_t file_size,
		     const char *name, NpyHeader *h, DiagList *diags)
{
	memset(h, 0, sizeof(*h));
	uint64_t size;
	if (!npy_header_size(bytes, n, name, &size, diags))
		return false;
	if (size > n || size > file_size) {
		dat_fail(diags, DIAG_E1403, name, "byte %llu: the file ends within its header of %llu bytes", (unsigned long long)(file_size < n ? file_size : n), (unsigned long long)size);
		return false;
	}
	h->major = bytes[6];
	h->minor = bytes[7];
	h->data_offset = size;
	size_t base = h->major == 1 ? 10 : NPY_PREAMBLE;
	Parse ps = { bytes + base, (size_t)size - base, 0, base, name, diags };
	bool fortran = false;
	if (!parse_dict(&ps, h, &fortran))
		return false;
	if (fortran) {
		Diag *d = dat_fail(diags, DIAG_E1406, name, "an array in Fortran order (column-major); nnefkit reads C order (row-major)");
		diag_hint(diags, d, "save np.ascontiguousarray(a) instead of a");
		return false;
	}
	return check_data_size(h, file_size, name, diags);
}

const char *npy_type_name(const NpyHeader *h)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(dtypes); i++)
		if (dtypes[i].dtype == h->dtype)
			return dtypes[i].name;
	return "?";
}

/* ---- items ------------------------------------------------------------------------- */

void npy_decode(const NpyHeader *h, const unsigned char *p, size_t n,
		DatItem *out)
{
	unsigned w = h->item_bytes;
	DTypeClass cls = dtype_class(h->dtype);
	for (size_t k = 0; k < n; k++, p += w) {
		uint64_t raw = 0;
		for (unsigned b = 0; b < w; b++)
			raw |= (uint64_t)p[h->big_endian ? w - 1 - b : b] << (8 * b);
		if (cls == DTC_FLOAT && w == 2) {
			out[k].f = dat_half_to_double((uint16_t)raw);
		} else if (cls == DTC_FLOAT && w == 4) {
			uint32_t u = (uint32_t)raw;
			float f;
			memcpy(&f, &u, sizeof(f));
			out[k].f = f;
		} else if (cls == DTC_FLOAT) {
			memcpy(&out[k].f, &raw, sizeof(double));
		} else if (cls == DTC_SIGNED && w < 8 && (raw >> (8 * w - 1)) & 1) {
			out[k].i = (int64_t)(raw | (~(uint64_t)0 << (8 * w)));
		} else if (cls == DTC_BOOL) {
			out[k].u = raw != 0;
		} else {
			out[k].u = raw;
		}
	}
}

double npy_real(const NpyHeader *h, DatItem v)
{
	switch (dtype_class(h->dtype)) {
	case DTC_FLOAT:
		return v.f;
	case DTC_SIGNED:
		return (double)v.i;
	case DTC_BOOL:
	case DTC_UNSIGNED:
	case DTC_DIM:
	case DTC_STRING:
	case DTC_QUANTIZED:
		return (double)v.u;
	}
	return 0.0;
}

bool npy_make_header(NpyHeader *h, DType dtype, const uint64_t *extents,
		     uint32_t rank)
{
	memset(h, 0, sizeof(*h));
	size_t i = 0;
	while (i < UTIL_ARRAY_LEN(dtypes) && dtypes[i].dtype != dtype)
		i++;
	if (i == UTIL_ARRAY_LEN(dtypes) || rank > NPY_MAX_RANK)
		return false;
	h->major = 1;
	h->dtype = dtype;
	h->item_bytes = dtypes[i].bytes;
	snprintf(h->descr, sizeof(h->descr), "%c%c%u", h->item_bytes == 1 ? '|' : '<', dtypes[i].kind, h->item_bytes);
	h->rank = rank;
	h->items = 1;
	for (uint32_t d = 0; d < rank; d++) {
		h->extents[d] = extents[d];
		if (__builtin_mul_overflow(h->items, extents[d], &h->items))
			return false;
	}
	return !__builtin_mul_overflow(h->items, (uint64_t)h->item_bytes, &h->data_bytes);
}

void npy_write_header(NpyHeader *h, StrBuf *out)
{
	StrBuf text;
	sb_init(&text);
	sb_printf(&text, "{'descr': '%s', 'fortran_order': False, 'shape': (", h->descr);
	for (uint32_t d = 0; d < h->rank; d++)
		sb_printf(&text, "%s%llu", d ? ", " : "", (unsigned long long)h->extents[d]);
	sb_puts(&text, h->rank == 1 ? ",), }" : "), }");
	/* padded with spaces so that the data begins at a multiple of 64,
	 * then the newline */
	h->major = text.len + 64 > 65535 ? 2 : 1; /* with its padding */
	size_t pre = h->major == 1 ? 10 : NPY_PREAMBLE;
	while ((pre + text.len + 1) % 64 != 0)
		sb_putc(&text, ' ');
	sb_putc(&text, '\n');
	size_t len = text.len;
	sb_putn(out, NPY_MAGIC, NPY_MAGIC_LEN);
	sb_putc(out, (char)h->major);
	sb_putc(out, 0);
	for (size_t b = 0; b < pre - 8; b++)
		sb_putc(out, (char)(unsigned char)(len >> (8 * b)));
	sb_putn(out, sb_str(&text), len);
	h->minor = 0;
	h->data_offset = pre + len;
	sb_free(&text);
}

void npy_encode(const NpyHeader *h, const DatItem *in, size_t n,
		unsigned char *out)
{
	unsigned w = h->item_bytes;
	DTypeClass cls = dtype_class(h->dtype);
	for (size_t k = 0; k < n; k++, out += w) {
		uint64_t raw;
		if (cls == DTC_FLOAT && w == 2) {
			raw = dat_double_to_half(in[k].f);
		} else if (cls == DTC_FLOAT && w == 4) {
			float f = (float)in[k].f;
			uint32_t u;
			memcpy(&u, &f, sizeof(u));
			raw = u;
		} else if (cls == DTC_FLOAT) {
			memcpy(&raw, &in[k].f, sizeof(raw));
		} else if (cls == DTC_BOOL) {
			raw = in[k].u != 0;
		} else {
			raw = in[k].u;
		}
		for (unsigned b = 0; b < w; b++)
			out[h->big_endian ? w - 1 - b : b] = (unsigned char)(raw >> (8 * b));
	}
}

/* ---- streams ---------------------------------------------------------------------- */

/* Reads n bytes (fewer only at the end); false after an error. */
static bool read_full(NpyReadFn rd, void *ctx, unsigned char *buf, size_t n,
		      size_t *got)
{
	*got = 0;
	while (*got < n) {
		long k = rd(ctx, buf + *got, n - *got);
		if (k < 0)
			return false;
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return true;
}

bool npy_read_stream(NpyReadFn rd, void *ctx, uint64_t size, const char *name,
		     NpyHeader *h, DiagList *diags)
{
	unsigned char pre[NPY_PREAMBLE];
	size_t got;
	uint64_t hsize;
	memset(h, 0, sizeof(*h));
	if (!read_full(rd, ctx, pre, sizeof(pre), &got) ||
	    !npy_header_size(pre, got, name, &hsize, diags))
		return false;
	unsigned char *buf = util_malloc((size_t)hsize);
	memcpy(buf, pre, got < hsize ? got : (size_t)hsize);
	size_t more = 0;
	bool ok = got >= hsize || read_full(rd, ctx, buf + got, (size_t)hsize - got, &more);
	/* (a header text shorter than the 2 bytes read past a 1.0 preamble
	 * is too short to be valid: the parse refuses it) */
	ok = ok && npy_read_header(buf, got + more < hsize ? got + more : (size_t)hsize, size, name, h, diags);
	util_free(buf);
	return ok;
}

enum { NPY_CHUNK = 8192 };

bool npy_read_items(NpyReadFn rd, void *ctx, const NpyHeader *h,
		    const char *name, NpyPutFn put, void *pctx,
		    DiagList *diags)
{
	unsigned char *buf = util_malloc((size_t)NPY_CHUNK * 8);
	DatItem *items = util_malloc(NPY_CHUNK * sizeof(*items));
	bool ok = true;
	for (uint64_t first = 0; ok && first < h->items; first += NPY_CHUNK) {
		size_t n = h->items - first < NPY_CHUNK ? (size_t)(h->items - first) : NPY_CHUNK;
		size_t got;
		ok = read_full(rd, ctx, buf, n * h->item_bytes, &got);
		if (ok && got < n * h->item_bytes) {
			dat_fail(diags, DIAG_E1407, name, "the data ends after %llu of its %llu bytes", (unsigned long long)(first * h->item_bytes + got), (unsigned long long)h->data_bytes);
			ok = false;
		}
		if (!ok)
			break;
		npy_decode(h, buf, n, items);
		put(pctx, first, n, items);
	}
	/* the end: nothing more (a .npz member's CRC is checked then) */
	long k = ok ? rd(ctx, buf, 1) : 0;
	if (k > 0)
		dat_fail(diags, DIAG_E1407, name, "more bytes follow the %llu of its data", (unsigned long long)h->data_bytes);
	ok = ok && k == 0;
	util_free(buf);
	util_free(items);
	return ok;
}
