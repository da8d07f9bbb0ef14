/*
 * codec.c - the tensor file format (spec 5.2): reading and validating the
 * header, writing it, and packing items. All fields are little-endian.
 *
 *   offset size  field
 *   ------ ----  ------------------------------------------------------
 *        0    2  magic: 'N' (0x4E), 0xEF
 *        2    1  version major (1)
 *        3    1  version minor (0)
 *        4    4  data length in bytes (the data starts at offset 128)
 *        8    4  rank, at most 8
 *       12   32  8 extents of 4 bytes: positive up to the rank, then 0
 *       44    4  bits per item, at most 64 (tract's types: 128, or the
 *                marks 0xFFFF and 0xFFFFFFFF; see tract.c)
 *       48    4  item-type code: vendor in the high 16 bits (0 = Khronos,
 *                0x5452 = tract, "RT" at offsets 50 and 51), type in the
 *                low 16: 0 float, 1 unsigned integer, 2 quantized
 *                unsigned, 3 quantized signed, 4 signed integer, 5 bool;
 *                1.0.2 files also use 0x10 (linear quantization) and 0x11
 *                (logarithmic); tract's types are drawn in tract.c
 *       52   32  parameters (deprecated since 1.0.4): for code 1, a
 *                4-byte flag, non-zero = signed (1.0.2); for 0x10 and
 *                0x11, min and max as 4-byte IEEE floats
 *       84   44  reserved, zero
 *      128  ...  data: the items in row-major order
 *
 * Packing (spec 5.2 says "a bit-stream packed continuously into a
 * sequence of bytes", with little-endian byte order): an item whose width
 * is a multiple of 8 bits is stored as whole bytes, least significant
 * first. Narrower or odd widths form one bit stream, most significant bit
 * of each byte first, each item most significant bit first (1-bit bools
 * are packed MSB first, as every producer writes them); the last byte is
 * padded with zero bits.
 */
#include "datfile/codec_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- little-endian fields ------------------------------------------------ */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static float getf32(const unsigned char *p)
{
	uint32_t u = dat_get32(p);
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

static void putf32(unsigned char *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	put32(p, u);
}

/* ---- item types ------------------------------------------------------------ */

static const char *const type_prefix[] = {
	[DAT_FLOAT] = "float", [DAT_UINT] = "uint",     [DAT_QUINT] = "quint",
	[DAT_QSINT] = "qint",  [DAT_SINT] = "int",      [DAT_LOGICAL] = "bool",
	[DAT_LINEAR] = "linear", [DAT_LOG] = "log",     [DAT_VENDOR] = "vendor",
};

const char *dat_type_name(const DatHeader *h, char buf[32])
{
	if (h->type == DAT_VENDOR && dat_tract_name(h))
		snprintf(buf, 32, "%s", dat_tract_name(h));
	else if (h->type == DAT_VENDOR)
		snprintf(buf, 32, "vendor 0x%08x", (unsigned)h->code);
	else
		snprintf(buf, 32, "%s%u", type_prefix[h->type], (unsigned)h->bits);
	return buf;
}

bool dat_decodable(const DatHeader *h)
{
	return h->type != DAT_VENDOR || h->tract == DAT_TR_Q40 ||
	       h->tract == DAT_TR_Q40_GGML;
}

/* The datum type tract gives items of a Khronos type (tract's
 * tensors.rs; integers of other widths take the narrowest that holds
 * them; the 1.0.2 quantized reals are f32). Codes 2 and 3 are plain
 * integers: their quantization comes from graph.quant. */
static DType khronos_dtype(DatItemType t, uint32_t bits)
{
	static const DType u[] = { DT_U8, DT_U16, DT_U32, DT_U64 };
	static const DType s[] = { DT_I8, DT_I16, DT_I32, DT_I64 };
	unsigned w = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
	switch (t) {
	case DAT_FLOAT:
		return bits == 16 ? DT_F16 : bits == 32 ? DT_F32 : DT_F64;
	case DAT_UINT:
	case DAT_QUINT:
		return u[w];
	case DAT_QSINT:
	case DAT_SINT:
		return s[w];
	case DAT_LOGICAL:
		return DT_BOOL;
	case DAT_LINEAR:
	case DAT_LOG:
		return DT_F32;
	case DAT_VENDOR:
		return DT_NONE;
	}
	return DT_NONE;
}

/* The bits a type allows: a mask over widths 1..64 is overkill; the
 * rules are few. */
static bool bits_valid(DatItemType t, uint32_t bits)
{
	switch (t) {
	case DAT_FLOAT:
		return bits == 16 || bits == 32 || bits == 64;
	case DAT_LOGICAL:
		return bits == 1 || bits == 8;
	case DAT_UINT:
	case DAT_QUINT:
	case DAT_QSINT:
	case DAT_SINT:
	case DAT_LINEAR:
	case DAT_VENDOR:
		return bits >= 1 && bits <= 64;
	case DAT_LOG:
		return bits >= 1 && bits <= 64;
	}
	return false;
}

static const char *bits_rule(DatItemType t)
{
	switch (t) {
	case DAT_FLOAT:
		return "16, 32 or 64";
	case DAT_LOGICAL:
		return "1 or 8";
	case DAT_UINT:
	case DAT_QUINT:
	case DAT_QSINT:
	case DAT_SINT:
	case DAT_LINEAR:
	case DAT_LOG:
	case DAT_VENDOR:
		return "1 to 64";
	}
	return "1 to 64"; /* not reached: every item type is a case */
}

bool dat_items(const DatHeader *h, uint64_t *out)
{
	uint64_t v = 1;
	for (uint32_t i = 0; i < h->rank && i < DAT_MAX_RANK; i++)
		if (__builtin_mul_overflow(v, (uint64_t)h->extents[i], &v))
			return false;
	*out = v;
	return true;
}

bool dat_packed_size(const DatHeader *h, uint64_t n, uint64_t *out)
{
	if (h->tract == DAT_TR_STRING)
		return false;
	if (h->tract == DAT_TR_Q40 || h->tract == DAT_TR_Q40_GGML) {
		uint64_t blocks = n / DAT_Q40_ITEMS + (n % DAT_Q40_ITEMS != 0);
		return !__builtin_mul_overflow(blocks, (uint64_t)DAT_Q40_BYTES, out);
	}
	/* n * bits / 8 rounded up, without forming n * bits: 8 items take
	 * `bits` bytes */
	uint64_t whole, rest = (n % 8) * h->bits;
	if (__builtin_mul_overflow(n / 8, (uint64_t)h->bits, &whole) ||
	    __builtin_add_overflow(whole, rest / 8 + (rest % 8 != 0), out))
		return false;
	return true;
}

/* The type of a code, or false for a Khronos code nobody defined. */
static bool type_of_code(uint32_t code, const unsigned char *params,
			 DatItemType *t)
{
	if (code >> 16) {
		*t = DAT_VENDOR;
		return true;
	}
	switch (code) {
	case 0:
		*t = DAT_FLOAT;
		return true;
	case 1: /* 1.0.2: the first parameter says signed */
		*t = dat_get32(params) ? DAT_SINT : DAT_UINT;
		return true;
	case 2:
		*t = DAT_QUINT;
		return true;
	case 3:
		*t = DAT_QSINT;
		return true;
	case 4:
		*t = DAT_SINT;
		return true;
	case 5:
		*t = DAT_LOGICAL;
		return true;
	case 0x10:
		*t = DAT_LINEAR;
		return true;
	case 0x11:
		*t = DAT_LOG;
		return true;
	default:
		return false;
	}
}

/* ---- reading the header ---------------------------------------------------- */

Diag *dat_fail(DiagList *diags, DiagCode code, const char *name,
	       const char *fmt, ...)
{
	StrBuf b;
	sb_init(&b);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	Diag *d = diag_add(diags, code, loc_make(NULL, 0, 0), "%s: %s", name,
			   sb_str(&b));
	sb_free(&b);
	return d;
}

/* Magic, version, rank and extents. */
static bool check_shape_fields(const unsigned char *p, const char *name,
			       DatHeader *h, DiagList *diags)
{
	if (p[0] != 0x4e || p[1] != 0xef) {
		dat_fail(diags, DIAG_E1001, name, "not an NNEF tensor file: it starts with 0x%02x 0x%02x, not the magic 'N' 0xEF", p[0], p[1]);
		return false;
	}
	h->major = p[2];
	h->minor = p[3];
	if (h->major != 1) {
		dat_fail(diags, DIAG_E1002, name, "tensor file version %u.%u; nnefkit reads version 1.x", h->major, h->minor);
		return false;
	}
	if (h->minor != 0)
		dat_fail(diags, DIAG_W1003, name, "unknown tensor file version 1.%u; reading it as 1.0", h->minor);
	h->data_length = dat_get32(p + 4);
	h->rank = dat_get32(p + 8);
	if (h->rank > DAT_MAX_RANK) {
		dat_fail(diags, DIAG_E1004, name, "rank %u; a tensor file holds at most 8 dimensions", (unsigned)h->rank);
		return false;
	}
	for (uint32_t i = 0; i < DAT_MAX_RANK; i++) {
		h->extents[i] = dat_get32(p + 12 + 4 * i);
		if (i < h->rank && h->extents[i] == 0) {
			dat_fail(diags, DIAG_E1005, name, "extent %u is 0; the extents up to the rank (%u) must be positive", (unsigned)i, (unsigned)h->rank);
			return false;
		}
		if (i >= h->rank && h->extents[i] != 0) {
			dat_fail(diags, DIAG_E1005, name, "extent %u is %u, past the rank %u; extents past the rank must be 0", (unsigned)i, (unsigned)h->extents[i], (unsigned)h->rank);
			return false;
		}
	}
	return true;
}

/* Bits, item type and its parameters. */
static bool check_type_fields(const unsigned char *p, const char *name,
			      DatHeader *h, DiagList *diags)
{
	h->bits = dat_get32(p + 44);
	h->code = dat_get32(p + 48);
	memcpy(h->params, p + 52, sizeof(h->params));
	if (!type_of_code(h->code, h->params, &h->type)) {
		dat_fail(diags, DIAG_E1006, name, "unknown item-type code 0x%x (Khronos defines 0 to 5, and 0x10 and 0x11 in 1.0.2 files)", (unsigned)h->code);
		return false;
	}
	if (h->type == DAT_VENDOR && h->code >> 16 == DAT_TRACT_VENDOR)
		return dat_tract_type(h, name, diags);
	h->dtype = khronos_dtype(h->type, h->bits);
	if (!bits_valid(h->type, h->bits)) {
		char tn[32];
		dat_fail(diags, DIAG_E1007, name, "%u bits per item; %s items take %s bits", (unsigned)h->bits, h->type == DAT_VENDOR ? dat_type_name(h, tn) : type_prefix[h->type], bits_rule(h->type));
		return false;
	}
	if (h->type == DAT_VENDOR)
		dat_fail(diags, DIAG_W1011, name, "vendor item type 0x%04x of vendor 0x%04x: the data is not decoded", (unsigned)(h->code & 0xffff), (unsigned)(h->code >> 16));
	if (h->type != DAT_LINEAR && h->type != DAT_LOG)
		return true;
	h->qmin = getf32(h->params);
	h->qmax = getf32(h->params + 4);
	if (!isfinite(h->qmin) || !isfinite(h->qmax) || h->qmax < h->qmin) {
		dat_fail(diags, DIAG_E1012, name, "quantization range [%g, %g]; min and max must be finite, min at most max", (double)h->qmin, (double)h->qmax);
		return false;
	}
	/* "In case of the logarithmic quantization algorithm (0x11), the min
	 * parameter must be set to 0 (unsigned) or -max (signed)." */
	if (h->type == DAT_LOG && h->qmax <= 0.0f) {
		dat_fail(diags, DIAG_E1012, name, "logarithmic quantization with max %g; max must be positive (its logarithm sets the range)", (double)h->qmax);
		return false;
	}
	if (h->type == DAT_LOG && h->qmin != 0.0f && h->qmin != -h->qmax) {
		dat_fail(diags, DIAG_E1012, name, "logarithmic quantization with min %g; min must be 0 (unsigned) or -max (signed), here %g", (double)h->qmin, (double)-h->qmax);
		return false;
	}
	if (h->type == DAT_LOG && h->qmin != 0.0f && h->bits < 2) {
		dat_fail(diags, DIAG_E1007, name, "1 bit per item; signed logarithmic quantization takes a sign bit and needs 2 to 64");
		return false;
	}
	return true;
}

/* Data length against the extents, file size against the data length. */
static bool check_sizes(const unsigned char *p, size_t n, uint64_t file_size,
			const char *name, bool lenient, DatHeader *h,
			DiagList *diags)
{
	uint64_t items = 0, packed = 0;
	if (h->tract == DAT_TR_STRING)
		return dat_tract_sizes(h, file_size, name, diags);
	if ((h->tract == DAT_TR_Q40 || h->tract == DAT_TR_Q40_GGML) &&
	    !dat_tract_sizes(h, file_size, name, diags))
		return false;
	if (!dat_items(h, &items)) {
		dat_fail(diags, DIAG_E1008, name, "the extents make more items than 64 bits can count");
		return false;
	}
	if (!dat_packed_size(h, items, &packed)) {
		dat_fail(diags, DIAG_E1008, name, "%llu items of %u bits take more bytes than 64 bits can count", (unsigned long long)items, (unsigned)h->bits);
		return false;
	}
	if (packed != h->data_length) {
		dat_fail(diags, DIAG_E1008, name, "the header gives %u byte%s of data, but %llu item%s of %u bit%s take%s %llu byte%s", (unsigned)h->data_length, h->data_length == 1 ? "" : "s", (unsigned long long)items, items == 1 ? "" : "s", (unsigned)h->bits, h->bits == 1 ? "" : "s", items == 1 ? "s" : "", (unsigned long long)packed, packed == 1 ? "" : "s");
		return false;
	}
	h->header_size = DAT_HEADER_SIZE;
	uint64_t want = DAT_HEADER_SIZE + (uint64_t)h->data_length;
	if (file_size == want || file_size == DAT_SIZE_UNKNOWN)
		return true;
	bool old = file_size == want + 4;
	for (size_t i = DAT_HEADER_SIZE; old && i < DAT_OLD_HEADER_SIZE && i < n; i++)
		old = p[i] == 0;
	if (old) {
		Diag *d = diag_add_level(diags, lenient ? DIAG_WARNING : DIAG_ERROR, DIAG_E1010, loc_make(NULL, 0, 0), "%s: the header is 132 bytes long, 4 more than the 128 the spec sets: a file written by an old NNEF-Tools%s", name, lenient ? "; read past the 4 extra bytes" : "");
		diag_hint(diags, d, lenient ? "accepted because of --lenient; without it this is an error" : "rewrite the file with a 128-byte header, or pass --lenient to read it");
		h->header_size = DAT_OLD_HEADER_SIZE;
		return lenient;
	}
	dat_fail(diags, DIAG_E1009, name, "the file has %llu bytes; the header and %u bytes of data make %llu", (unsigned long long)file_size, (unsigned)h->data_length, (unsigned long long)want);
	return false;
}

bool dat_read_header(const unsigned char *bytes, size_t n, uint64_t file_size,
		     const char *name, bool lenient, DatHeader *h,
		     DiagList *diags)
{
	memset(h, 0, sizeof(*h));
	if (n < DAT_HEADER_SIZE || file_size < DAT_HEADER_SIZE) {
		uint64_t have = file_size < n ? file_size : n;
		dat_fail(diags, DIAG_E1001, name, "%llu byte%s, shorter than the 128-byte header of a tensor file", (unsigned long long)have, have == 1 ? "" : "s");
		return false;
	}
	if (!check_shape_fields(bytes, name, h, diags) ||
	    !check_type_fields(bytes, name, h, diags))
		return false;
	for (size_t i = 84; i < DAT_HEADER_SIZE; i++)
		if (bytes[i] != 0) {
			dat_fail(diags, DIAG_W1013, name, "reserved header byte %zu is 0x%02x; reserved bytes should be 0", i, bytes[i]);
			break;
		}
	return check_sizes(bytes, n, file_size, name, lenient, h, diags);
}

/* ---- writing the header ------------------------------------------------------ */

bool dat_make_header(DatHeader *h, DatItemType type, uint32_t bits,
		     const uint32_t *extents, uint32_t rank)
{
	memset(h, 0, sizeof(*h));
	if (rank > DAT_MAX_RANK || type == DAT_VENDOR || !bits_valid(type, bits))
		return false;
	h->major = 1;
	h->type = type;
	h->bits = bits;
	h->rank = rank;
	for (uint32_t i = 0; i < rank; i++) {
		if (extents[i] == 0)
			return false;
		h->extents[i] = extents[i];
	}
	static const uint32_t codes[] = {
		[DAT_FLOAT] = 0, [DAT_UINT] = 1,    [DAT_QUINT] = 2,
		[DAT_QSINT] = 3, [DAT_SINT] = 4,    [DAT_LOGICAL] = 5,
		[DAT_LINEAR] = 0x10, [DAT_LOG] = 0x11,
	};
	h->code = codes[type];
	h->dtype = khronos_dtype(type, bits);
	h->header_size = DAT_HEADER_SIZE;
	uint64_t items, packed;
	if (!dat_items(h, &items) || !dat_packed_size(h, items, &packed) ||
	    packed > UINT32_MAX)
		return false;
	h->data_length = (uint32_t)packed;
	return true;
}

void dat_write_header(const DatHeader *h, unsigned char out[DAT_HEADER_SIZE])
{
	memset(out, 0, DAT_HEADER_SIZE);
	out[0] = 0x4e;
	out[1] = 0xef;
	out[2] = h->major;
	out[3] = h->minor;
	put32(out + 4, h->data_length);
	put32(out + 8, h->rank);
	for (uint32_t i = 0; i < DAT_MAX_RANK; i++)
		put32(out + 12 + 4 * i, i < h->rank ? h->extents[i] : 0);
	put32(out + 44, h->bits);
	put32(out + 48, h->code);
	memcpy(out + 52, h->params, sizeof(h->params));
	if (h->type == DAT_LINEAR || h->type == DAT_LOG) {
		putf32(out + 52, h->qmin);
		putf32(out + 56, h->qmax);
	}
}
