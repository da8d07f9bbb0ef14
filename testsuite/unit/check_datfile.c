/*
 * check_datfile.c - the tensor file codec of spec 5.2 (1.0.2 and 1.0.5,
 * with the item-types of 1.0.5 5.2.1): headers written and read back,
 * every rule of header validation (diagnostic code, level and the exact
 * message), items of every type and width packed and unpacked (IEEE half
 * floats bit for bit, integers of every width 1 to 64, bit streams across
 * byte boundaries), the real values of linear and logarithmic
 * quantization, the size helpers, and one real file of the corpus. The
 * item types of tract's vendor code are tested in check_tract.c, with the
 * helpers of check_datfile.h.
 *
 * Packing is the project's reading of "a bit-stream packed continuously
 * into a sequence of bytes" (drawn at the top of datfile/codec.c): widths
 * that are multiples of 8 are little-endian bytes; other widths form one
 * bit stream, most significant bit of each byte first, each item most
 * significant bit first. The expected bytes below are worked out by hand
 * from that rule, and the expected reals from the formulas of spec 5.2.
 *
 * Header diagnostics are compared as rendered ("error[E1004]: name: ..."),
 * so one string checks the level, the code, the message and that there is
 * exactly one diagnostic.
 */
#include "check_datfile.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DATA = 1024 };

Ctx cx;

void dat_test_setup(void)
{
	diag_list_init(&cx.dl, 0);
	sb_init(&cx.text);
	memset(&cx.h, 0, sizeof(cx.h));
	cx.ok = false;
}

void dat_test_teardown(void)
{
	sb_free(&cx.text);
	diag_list_free(&cx.dl);
}

/* ---- helpers ------------------------------------------------------------- */

void put_le32(unsigned char *p, uint32_t v)
{
	for (int k = 0; k < 4; k++, v >>= 8)
		p[k] = (unsigned char)v;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void put_lef32(unsigned char *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	put_le32(p, u);
}

/* A header for n items in one dimension (rank 1). */
DatHeader hdr(DatItemType t, uint32_t bits, uint32_t n)
{
	DatHeader h;
	if (!dat_make_header(&h, t, bits, &n, 1)) /* no mark point per call */
		ck_abort_msg("dat_make_header(type %d, %u bits, [%u])", (int)t,
			     (unsigned)bits, (unsigned)n);
	return h;
}

/* Writes a valid header into buf (132 bytes: the 4 past the header are
 * zeroed) and returns its data length. */
static uint32_t valid(unsigned char buf[DAT_OLD_HEADER_SIZE], DatItemType t,
		      uint32_t bits, const uint32_t *extents, uint32_t rank)
{
	DatHeader h;
	ck_assert(dat_make_header(&h, t, bits, extents, rank));
	memset(buf, 0, DAT_OLD_HEADER_SIZE);
	dat_write_header(&h, buf);
	return h.data_length;
}

/* A valid float32 header of shape [2,3] (24 bytes of data). */
static uint32_t valid_f32(unsigned char buf[DAT_OLD_HEADER_SIZE])
{
	static const uint32_t ext[] = { 2, 3 };
	return valid(buf, DAT_FLOAT, 32, ext, 2);
}

/* Reads the header in b[0..n) of a file of size bytes into cx.h; returns
 * every diagnostic rendered, one line each (and hints). */
const char *read_hdr(const unsigned char *b, size_t n, uint64_t size,
		     bool lenient)
{
	diag_list_free(&cx.dl);
	diag_list_init(&cx.dl, 0);
	sb_clear(&cx.text);
	cx.ok = dat_read_header(b, n, size, NAME, lenient, &cx.h, &cx.dl);
	DiagRenderOpts o = { .color = false, .show_warnings = true,
			     .show_source = false };
	diag_render_all(&cx.dl, &cx.text, &o);
	return sb_str(&cx.text);
}

/* The header b (128 bytes, file of size bytes) is rejected with exactly
 * the one error rendered as want; line is the caller's, for the report. */
void expect_error_at(int line, const unsigned char *b, uint64_t size,
		     const char *want)
{
	const char *got = read_hdr(b, DAT_HEADER_SIZE, size, false);
	ck_assert_msg(strcmp(got, want) == 0, "line %d: got\n%swant\n%s", line, got, want);
	ck_assert_msg(!cx.ok, "line %d: accepted", line);
	ck_assert_msg(cx.dl.len == 1 && cx.dl.nerrors == 1, "line %d: %zu diagnostics, %zu errors", line, cx.dl.len, cx.dl.nerrors);
}

/* The header b is accepted with exactly the one warning rendered as want. */
void expect_warning_at(int line, const unsigned char *b, uint64_t size,
		       const char *want)
{
	const char *got = read_hdr(b, DAT_HEADER_SIZE, size, false);
	ck_assert_msg(strcmp(got, want) == 0, "line %d: got\n%swant\n%s", line, got, want);
	ck_assert_msg(cx.ok, "line %d: rejected", line);
	ck_assert_msg(cx.dl.len == 1 && cx.dl.nwarnings == 1 && cx.dl.nerrors == 0, "line %d: %zu diagnostics, %zu warnings", line, cx.dl.len, cx.dl.nwarnings);
}

/* The largest value of an unsigned item of b bits. */
static uint64_t umax(uint32_t b)
{
	return b == 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

/* The float16 bit pattern d encodes to. */
static uint16_t half_of(double d)
{
	DatHeader h = hdr(DAT_FLOAT, 16, 1);
	unsigned char b[2] = { 0, 0 };
	DatItem v = { .f = d };
	dat_encode(&h, b, 0, 1, &v);
	return (uint16_t)(b[0] | b[1] << 8);
}

/* The value of the float16 bit pattern u. */
static double half_value(uint16_t u)
{
	DatHeader h = hdr(DAT_FLOAT, 16, 1);
	unsigned char b[2] = { (unsigned char)u, (unsigned char)(u >> 8) };
	DatItem v;
	dat_decode(&h, b, 0, 1, &v);
	return v.f;
}

/* Encodes n items of h into a zeroed buffer and checks the bytes. */
static void expect_bytes(const DatHeader *h, const DatItem *in, size_t n,
			 const unsigned char *want, size_t nwant)
{
	unsigned char b[64];
	memset(b, 0, sizeof(b));
	uint64_t size = 0;
	ck_assert(dat_packed_size(h, n, &size));
	ck_assert_uint_eq(size, nwant);
	dat_encode(h, b, 0, n, in);
	for (size_t k = 0; k < nwant; k++)
		ck_assert_msg(b[k] == want[k], "%u bits: byte %zu is 0x%02x, not 0x%02x", (unsigned)h->bits, k, b[k], want[k]);
	for (size_t k = nwant; k < sizeof(b); k++)
		ck_assert_uint_eq(b[k], 0);
}

/* Encodes the n items of in at index first of a buffer of first + n + 2
 * items filled with fill (every bit 0 or 1), decodes them all back, and
 * checks the items, the untouched neighbours and padding. Compares .u
 * (unsigned, logical) or .i (signed). */
static void round_trip(const DatHeader *h, const DatItem *in, size_t n,
		       uint64_t first, unsigned char fill)
{
	unsigned char b[MAX_DATA], before[MAX_DATA];
	uint64_t total = first + n + 2, size = 0;
	ck_assert(dat_packed_size(h, total, &size));
	ck_assert_uint_le(size, MAX_DATA);
	memset(b, fill, sizeof(b));
	dat_encode(h, b, first, n, in);
	memcpy(before, b, sizeof(b));
	DatItem out[80];
	ck_assert_uint_le(total, 80);
	dat_decode(h, b, 0, (size_t)total, out);
	ck_assert_msg(memcmp(b, before, sizeof(b)) == 0, "decoding wrote");
	bool sgn = h->type == DAT_SINT || h->type == DAT_QSINT;
	uint64_t neighbour = fill ? umax(h->bits) : 0;
	if (sgn && fill)
		neighbour = UINT64_MAX; /* all ones: -1 */
	if (h->type == DAT_LOGICAL && fill)
		neighbour = 1;
	for (uint64_t k = 0; k < total; k++) {
		bool mine = k >= first && k < first + n;
		uint64_t want = mine ? in[k - first].u : neighbour;
		if (mine && h->type == DAT_LOGICAL)
			want = want != 0;
		ck_assert_msg(out[k].u == want, "%u bits, item %llu: 0x%llx, not 0x%llx", (unsigned)h->bits, (unsigned long long)k, (unsigned long long)out[k].u, (unsigned long long)want);
	}
	/* the bytes past the items were not touched */
	for (size_t k = (size_t)size; k < sizeof(b); k++)
		ck_assert_uint_eq(b[k], fill);
}

/* ---- headers: writing and reading back ------------------------------------- */

typedef struct HdrCase {
	DatItemType type;
	uint32_t bits, code, rank;
	uint32_t extents[DAT_MAX_RANK];
	uint32_t length; /* the packed size, worked out by hand */
} HdrCase;

static const HdrCase hdr_cases[] = {
	{ DAT_FLOAT, 32, 0, 4, { 16, 8, 3, 3 }, 4608 },
	{ DAT_FLOAT, 16, 0, 1, { 5 }, 10 },
	{ DAT_FLOAT, 64, 0, 0, { 0 }, 8 }, /* rank 0: one item */
	{ DAT_UINT, 1, 1, 2, { 3, 3 }, 2 },
	{ DAT_UINT, 64, 1, 1, { 2 }, 16 },
	{ DAT_QUINT, 8, 2, 2, { 1, 7 }, 7 },
	{ DAT_QSINT, 4, 3, 3, { 1, 1, 3 }, 2 },
	{ DAT_SINT, 12, 4, 1, { 3 }, 5 },
	{ DAT_SINT, 32, 4, 8, { 1, 2, 1, 2, 1, 2, 1, 2 }, 64 },
	{ DAT_LOGICAL, 1, 5, 1, { 9 }, 2 },
	{ DAT_LOGICAL, 8, 5, 1, { 9 }, 9 },
	{ DAT_LINEAR, 8, 0x10, 2, { 4, 4 }, 16 },
	{ DAT_LOG, 5, 0x11, 1, { 3 }, 2 },
};

/* The header fields in spec 5.2 order, little-endian: "A two-byte magic
 * number ... A two-byte version info ... A 4-byte unsigned integer
 * indicating the length ... the rank ... 8 x 4-byte unsigned integers
 * denoting the extents ... bits per item ... A 4-byte code". */
static void check_written(const HdrCase *c, const unsigned char *b)
{
	ck_assert_uint_eq(b[0], 0x4e);
	ck_assert_uint_eq(b[1], 0xef);
	ck_assert_uint_eq(b[2], 1);
	ck_assert_uint_eq(b[3], 0);
	ck_assert_uint_eq(get_le32(b + 4), c->length);
	ck_assert_uint_eq(get_le32(b + 8), c->rank);
	for (uint32_t i = 0; i < DAT_MAX_RANK; i++)
		ck_assert_uint_eq(get_le32(b + 12 + 4 * i), c->extents[i]);
	ck_assert_uint_eq(get_le32(b + 44), c->bits);
	ck_assert_uint_eq(get_le32(b + 48), c->code);
	if (c->type != DAT_LINEAR && c->type != DAT_LOG)
		for (size_t i = 52; i < DAT_HEADER_SIZE; i++)
			ck_assert_uint_eq(b[i], 0);
}

/* dat_make_header + dat_write_header + dat_read_header give back the same
 * header, for every item type (spec 5.2; codes of 1.0.5 and, for
 * quantization, of 1.0.2). */
START_TEST(header_round_trip)
{
	for (size_t k = 0; k < sizeof(hdr_cases) / sizeof(hdr_cases[0]); k++) {
		const HdrCase *c = &hdr_cases[k];
		DatHeader h;
		ck_assert(dat_make_header(&h, c->type, c->bits, c->extents, c->rank));
		ck_assert_uint_eq(h.data_length, c->length);
		ck_assert_uint_eq(h.code, c->code);
		ck_assert_uint_eq(h.header_size, DAT_HEADER_SIZE);
		if (c->type == DAT_LOG) {
			h.qmin = -4.0f; /* signed: min = -max */
			h.qmax = 4.0f;
		} else if (c->type == DAT_LINEAR) {
			h.qmin = -1.5f;
			h.qmax = 2.25f;
		}
		unsigned char b[DAT_HEADER_SIZE];
		dat_write_header(&h, b);
		check_written(c, b);
		ck_assert_str_eq(read_hdr(b, sizeof(b), DAT_HEADER_SIZE + (uint64_t)c->length, false), "");
		ck_assert(cx.ok);
		DatHeader *r = &cx.h;
		ck_assert_uint_eq(r->major, 1);
		ck_assert_uint_eq(r->minor, 0);
		ck_assert_uint_eq(r->data_length, c->length);
		ck_assert_uint_eq(r->rank, c->rank);
		for (uint32_t i = 0; i < DAT_MAX_RANK; i++)
			ck_assert_uint_eq(r->extents[i], c->extents[i]);
		ck_assert_uint_eq(r->bits, c->bits);
		ck_assert_uint_eq(r->code, c->code);
		ck_assert_int_eq(r->type, c->type);
		ck_assert_uint_eq(r->header_size, DAT_HEADER_SIZE);
		if (c->type == DAT_LINEAR || c->type == DAT_LOG) {
			ck_assert(r->qmin == h.qmin);
			ck_assert(r->qmax == h.qmax);
			/* "min: 32-bit IEEE floating point value", then max */
			float f;
			memcpy(&f, r->params, sizeof(f));
			ck_assert(f == h.qmin);
		} else {
			ck_assert(memcmp(r->params, h.params, sizeof(h.params)) == 0);
		}
	}
}
END_TEST

/* dat_make_header refuses what spec 5.2 does not allow: "Maximal value
 * [of the rank] is 8", "Valid bits per item is 16, 32, 64" (float), "1 bit
 * or 8 bits" (bool), "at most 64"; and what the 4-byte length cannot
 * hold. */
START_TEST(make_header_refusals)
{
	DatHeader h;
	uint32_t ext[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	ck_assert(dat_make_header(&h, DAT_FLOAT, 32, ext, 8));
	ck_assert(!dat_make_header(&h, DAT_FLOAT, 32, ext, 9));
	ck_assert(!dat_make_header(&h, DAT_FLOAT, 8, ext, 1));
	ck_assert(!dat_make_header(&h, DAT_FLOAT, 24, ext, 1));
	ck_assert(!dat_make_header(&h, DAT_LOGICAL, 2, ext, 1));
	ck_assert(!dat_make_header(&h, DAT_UINT, 0, ext, 1));
	ck_assert(!dat_make_header(&h, DAT_SINT, 65, ext, 1));
	ck_assert(!dat_make_header(&h, DAT_VENDOR, 8, ext, 1));
	uint32_t zero[2] = { 3, 0 };
	ck_assert(!dat_make_header(&h, DAT_UINT, 8, zero, 2));
	/* 2^32 bytes of data do not fit in the 4-byte length */
	uint32_t big[2] = { 65536, 65536 };
	ck_assert(!dat_make_header(&h, DAT_UINT, 8, big, 2));
	ck_assert(dat_make_header(&h, DAT_UINT, 4, big, 2));
	ck_assert_uint_eq(h.data_length, 0x80000000u);
}
END_TEST

/* ---- headers: validation ------------------------------------------------------ */

/* "The header size is fixed to 128 bytes"; "A two-byte magic number. The
 * first byte is the ASCII character 'N' (0x4E) and the second byte is
 * 0xEF." */
START_TEST(header_short_and_magic)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint32_t len = valid_f32(b);
	ck_assert_str_eq(read_hdr(b, 100, 100, false),
			 "error[E1001]: " NAME ": 100 bytes, shorter than the 128-byte header of a tensor file\n");
	ck_assert(!cx.ok);
	ck_assert_str_eq(read_hdr(b, 0, 0, false),
			 "error[E1001]: " NAME ": 0 bytes, shorter than the 128-byte header of a tensor file\n");
	ck_assert(!cx.ok);
	ck_assert_str_eq(read_hdr(b, 127, 127, true),
			 "error[E1001]: " NAME ": 127 bytes, shorter than the 128-byte header of a tensor file\n");
	ck_assert(!cx.ok);
	b[0] = 'n';
	expect_error(b, DAT_HEADER_SIZE + len, "error[E1001]: " NAME ": not an NNEF tensor file: it starts with 0x6e 0xef, not the magic 'N' 0xEF\n");
	b[0] = 'N';
	b[1] = 0xfe;
	expect_error(b, DAT_HEADER_SIZE + len, "error[E1001]: " NAME ": not an NNEF tensor file: it starts with 0x4e 0xfe, not the magic 'N' 0xEF\n");
	unsigned char zeros[DAT_HEADER_SIZE] = { 0 };
	expect_error(zeros, DAT_HEADER_SIZE, "error[E1001]: " NAME ": not an NNEF tensor file: it starts with 0x00 0x00, not the magic 'N' 0xEF\n");
}
END_TEST

/* "A two-byte version info (one byte for major, one for minor version)":
 * nnefkit reads major version 1; another minor version is read as 1.0
 * with a warning. */
START_TEST(header_version)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + valid_f32(b);
	b[2] = 2;
	expect_error(b, size, "error[E1002]: " NAME ": tensor file version 2.0; nnefkit reads version 1.x\n");
	b[2] = 0;
	b[3] = 9;
	expect_error(b, size, "error[E1002]: " NAME ": tensor file version 0.9; nnefkit reads version 1.x\n");
	b[2] = 1;
	b[3] = 1;
	expect_warning(b, size, "warning[W1003]: " NAME ": unknown tensor file version 1.1; reading it as 1.0\n");
	ck_assert_uint_eq(cx.h.major, 1);
	ck_assert_uint_eq(cx.h.minor, 1);
	ck_assert_int_eq(cx.h.type, DAT_FLOAT);
	ck_assert_uint_eq(cx.h.bits, 32);
	ck_assert_uint_eq(cx.h.rank, 2);
}
END_TEST

/* "A 4-byte unsigned integer indicating the rank of the tensor. Maximal
 * value is 8."; "8 x 4-byte unsigned integers denoting the extents of the
 * tensor. Only relevant dimensions up to rank must be filled, the rest
 * must be filled with zeros." */
START_TEST(header_rank_and_extents)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + valid_f32(b);
	put_le32(b + 8, 9);
	expect_error(b, size, "error[E1004]: " NAME ": rank 9; a tensor file holds at most 8 dimensions\n");
	put_le32(b + 8, 0xffffffffu);
	expect_error(b, size, "error[E1004]: " NAME ": rank 4294967295; a tensor file holds at most 8 dimensions\n");
	put_le32(b + 8, 2);
	put_le32(b + 16, 0); /* extents[1] */
	expect_error(b, size, "error[E1005]: " NAME ": extent 1 is 0; the extents up to the rank (2) must be positive\n");
	/* a scalar: rank 0, every extent 0, one item */
	unsigned char s[DAT_OLD_HEADER_SIZE];
	uint32_t len = valid(s, DAT_SINT, 16, NULL, 0);
	ck_assert_uint_eq(len, 2);
	ck_assert_str_eq(read_hdr(s, DAT_HEADER_SIZE, DAT_HEADER_SIZE + len, false), "");
	ck_assert(cx.ok);
	ck_assert_uint_eq(cx.h.rank, 0);
	/* a non-zero extent past the rank. The message of the code says
	 * "extent 3 is 5 beyond the rank 2", which reads as "5 more than the
	 * rank"; the expectation keeps the value and the position apart. */
	put_le32(b + 16, 3);
	put_le32(b + 24, 5); /* extents[3] */
	expect_error(b, size, "error[E1005]: " NAME ": extent 3 is 5, past the rank 2; extents past the rank must be 0\n");
	put_le32(b + 24, 0);
	put_le32(b + 12 + 4 * 7, 1); /* extents[7] */
	expect_error(b, size, "error[E1005]: " NAME ": extent 7 is 1, past the rank 2; extents past the rank must be 0\n");
}
END_TEST

/* "A 4-byte code indicating the item-type of the tensor ... The vendor
 * code 0 identifies the Khronos Group" (codes 0b0000 to 0b0101; 1.0.2:
 * 0x00, 0x01, 0x10, 0x11). */
START_TEST(header_unknown_code)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + valid_f32(b);
	put_le32(b + 48, 7);
	expect_error(b, size, "error[E1006]: " NAME ": unknown item-type code 0x7 (Khronos defines 0 to 5, and 0x10 and 0x11 in 1.0.2 files)\n");
	put_le32(b + 48, 6);
	expect_error(b, size, "error[E1006]: " NAME ": unknown item-type code 0x6 (Khronos defines 0 to 5, and 0x10 and 0x11 in 1.0.2 files)\n");
	put_le32(b + 48, 0x12);
	expect_error(b, size, "error[E1006]: " NAME ": unknown item-type code 0x12 (Khronos defines 0 to 5, and 0x10 and 0x11 in 1.0.2 files)\n");
	put_le32(b + 48, 0xffff);
	expect_error(b, size, "error[E1006]: " NAME ": unknown item-type code 0xffff (Khronos defines 0 to 5, and 0x10 and 0x11 in 1.0.2 files)\n");
}
END_TEST

/* Writes code and bits into a valid header of 2 items whose data length
 * fits the bits, and expects the one error want. */
static void expect_bits_error_at(int line, uint32_t code, uint32_t bits,
				 const char *want)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint32_t two = 2;
	valid(b, DAT_UINT, 8, &two, 1);
	put_le32(b + 44, bits);
	put_le32(b + 48, code);
	put_le32(b + 4, (2 * bits + 7) / 8);
	expect_error_at(line, b, DAT_HEADER_SIZE + (2 * bits + 7) / 8, want);
}

#define expect_bits_error(code, bits, want) \
	expect_bits_error_at(__LINE__, code, bits, want)

/* "0b0000 - float values in IEEE format, valid bits per item is 16, 32,
 * 64"; "0b0101 - bool values, 1 bit or 8 bits"; "maximum bits per item is
 * 64" (integers), and at least 1. */
START_TEST(header_bits)
{
	expect_bits_error(0, 8, "error[E1007]: " NAME ": 8 bits per item; float items take 16, 32 or 64 bits\n");
	expect_bits_error(0, 0, "error[E1007]: " NAME ": 0 bits per item; float items take 16, 32 or 64 bits\n");
	expect_bits_error(5, 2, "error[E1007]: " NAME ": 2 bits per item; bool items take 1 or 8 bits\n");
	expect_bits_error(4, 0, "error[E1007]: " NAME ": 0 bits per item; int items take 1 to 64 bits\n");
	expect_bits_error(1, 65, "error[E1007]: " NAME ": 65 bits per item; uint items take 1 to 64 bits\n");
	expect_bits_error(2, 65, "error[E1007]: " NAME ": 65 bits per item; quint items take 1 to 64 bits\n");
	expect_bits_error(3, 0, "error[E1007]: " NAME ": 0 bits per item; qint items take 1 to 64 bits\n");
	expect_bits_error(0x10, 65, "error[E1007]: " NAME ": 65 bits per item; linear items take 1 to 64 bits\n");
	expect_bits_error(0x00010002, 65, "error[E1007]: " NAME ": 65 bits per item; vendor 0x00010002 items take 1 to 64 bits\n");
	/* every valid width is accepted */
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint32_t two = 2;
	for (uint32_t bits = 1; bits <= 64; bits++) {
		uint32_t len = valid(b, DAT_SINT, bits, &two, 1);
		ck_assert_uint_eq(len, (2 * bits + 7) / 8);
		ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, DAT_HEADER_SIZE + len, false), "");
		ck_assert(cx.ok);
	}
}
END_TEST

/* "A 4-byte unsigned integer indicating the length of the actual tensor
 * data in bytes (starting at offset 128)"; "If the last group of bits does
 * not fall into a byte boundary, the last byte is padded with zero
 * bits." */
START_TEST(header_lengths)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint32_t len = valid_f32(b);
	put_le32(b + 4, 25);
	expect_error(b, DAT_HEADER_SIZE + 25, "error[E1008]: " NAME ": the header gives 25 bytes of data, but 6 items of 32 bits take 24 bytes\n");
	put_le32(b + 4, 0);
	expect_error(b, DAT_HEADER_SIZE, "error[E1008]: " NAME ": the header gives 0 bytes of data, but 6 items of 32 bits take 24 bytes\n");
	put_le32(b + 4, len);
	expect_error(b, 200, "error[E1009]: " NAME ": the file has 200 bytes; the header and 24 bytes of data make 152\n");
	expect_error(b, 151, "error[E1009]: " NAME ": the file has 151 bytes; the header and 24 bytes of data make 152\n");
	expect_error(b, DAT_HEADER_SIZE, "error[E1009]: " NAME ": the file has 128 bytes; the header and 24 bytes of data make 152\n");
	/* 9 bools of 1 bit: 2 bytes */
	uint32_t nine = 9;
	len = valid(b, DAT_LOGICAL, 1, &nine, 1);
	ck_assert_uint_eq(len, 2);
	put_le32(b + 4, 1);
	expect_error(b, DAT_HEADER_SIZE + 1, "error[E1008]: " NAME ": the header gives 1 byte of data, but 9 items of 1 bit take 2 bytes\n");
}
END_TEST

/* Extents whose volume does not fit in 64 bits ("8 x 4-byte unsigned
 * integers denoting the extents"). */
START_TEST(header_item_overflow)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + valid_f32(b);
	put_le32(b + 8, 3);
	for (int i = 0; i < 3; i++)
		put_le32(b + 12 + 4 * i, 0xffffffffu);
	expect_error(b, size, "error[E1008]: " NAME ": the extents make more items than 64 bits can count\n");
	put_le32(b + 8, 8);
	for (int i = 0; i < 8; i++)
		put_le32(b + 12 + 4 * i, 256);
	expect_error(b, size, "error[E1008]: " NAME ": the extents make more items than 64 bits can count\n");
	/* 2^61 items count in 64 bits, and so do their 2^61 bytes of 8 bits:
	 * the message must not say that the items overflow (dat_packed_size
	 * multiplies out the bits, 2^64, before dividing by 8) */
	uint32_t one = 1;
	valid(b, DAT_UINT, 8, &one, 1);
	put_le32(b + 8, 2);
	put_le32(b + 12, 0x80000000u);
	put_le32(b + 16, 0x40000000u);
	expect_error(b, DAT_HEADER_SIZE + 1, "error[E1008]: " NAME ": the header gives 1 byte of data, but 2305843009213693952 items of 8 bits take 2305843009213693952 bytes\n");
}
END_TEST

/* The 132-byte header of old NNEF-Tools files: the spec says "The header
 * size is fixed to 128 bytes"; the 4 extra bytes are zero. An error, or
 * with lenient a warning and the data read from offset 132. */
START_TEST(header_old_132)
{
	unsigned char b[DAT_OLD_HEADER_SIZE + 24];
	memset(b, 0, sizeof(b));
	uint32_t len = valid_f32(b);
	uint64_t size = DAT_OLD_HEADER_SIZE + len;
	ck_assert_str_eq(read_hdr(b, sizeof(b), size, false),
			 "error[E1010]: " NAME ": the header is 132 bytes long, 4 more than the 128 the spec sets: a file written by an old NNEF-Tools\n"
			 "   = hint: rewrite the file with a 128-byte header, or pass --lenient to read it\n");
	ck_assert(!cx.ok);
	ck_assert_uint_eq(cx.dl.len, 1);
	ck_assert_uint_eq(cx.dl.nerrors, 1);
	/* lenient: a warning, and the data starts at 132 */
	for (int k = 0; k < 6; k++)
		put_lef32(b + DAT_OLD_HEADER_SIZE + 4 * k, (float)k - 2.5f);
	ck_assert_str_eq(read_hdr(b, sizeof(b), size, true),
			 "warning[E1010]: " NAME ": the header is 132 bytes long, 4 more than the 128 the spec sets: a file written by an old NNEF-Tools; read past the 4 extra bytes (an error, downgraded to a warning by --lenient)\n"
			 "   = hint: accepted because of --lenient; without it this is an error\n");
	ck_assert(cx.ok);
	ck_assert_uint_eq(cx.dl.len, 1);
	ck_assert_uint_eq(cx.dl.nwarnings, 1);
	ck_assert_uint_eq(cx.dl.nerrors, 0);
	ck_assert_uint_eq(cx.h.header_size, DAT_OLD_HEADER_SIZE);
	DatItem out[6];
	dat_decode(&cx.h, b + cx.h.header_size, 0, 6, out);
	for (int k = 0; k < 6; k++)
		ck_assert_double_eq(out[k].f, (double)k - 2.5);
	/* 4 extra bytes that are not zero: only a wrong size */
	b[130] = 1;
	ck_assert_str_eq(read_hdr(b, sizeof(b), size, true),
			 "error[E1009]: " NAME ": the file has 156 bytes; the header and 24 bytes of data make 152\n");
	ck_assert(!cx.ok);
	/* lenient changes nothing for a 128-byte header */
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, DAT_HEADER_SIZE + len, true), "");
	ck_assert(cx.ok);
	ck_assert_uint_eq(cx.h.header_size, DAT_HEADER_SIZE);
}
END_TEST

/* "The remaining bytes of the 128 byte header are reserved for future use
 * and should be filled with zeros" (should: a warning); "The first part is
 * a vendor code, the second part is the vendor-specific item-type. The
 * vendor code 0 identifies the Khronos Group." */
START_TEST(header_reserved_and_vendor)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + valid_f32(b);
	b[100] = 0x5a;
	expect_warning(b, size, "warning[W1013]: " NAME ": reserved header byte 100 is 0x5a; reserved bytes should be 0\n");
	b[100] = 0;
	b[84] = 1;
	b[127] = 0xff; /* only the first is named */
	expect_warning(b, size, "warning[W1013]: " NAME ": reserved header byte 84 is 0x01; reserved bytes should be 0\n");
	b[84] = 0;
	expect_warning(b, size, "warning[W1013]: " NAME ": reserved header byte 127 is 0xff; reserved bytes should be 0\n");
	b[127] = 0;
	put_le32(b + 48, 0x00010002);
	expect_warning(b, size, "warning[W1011]: " NAME ": vendor item type 0x0002 of vendor 0x0001: the data is not decoded\n");
	ck_assert_int_eq(cx.h.type, DAT_VENDOR);
	ck_assert_uint_eq(cx.h.code, 0x00010002);
	ck_assert_uint_eq(cx.h.bits, 32);
	put_le32(b + 48, 0xabcd0000u);
	expect_warning(b, size, "warning[W1011]: " NAME ": vendor item type 0x0000 of vendor 0xabcd: the data is not decoded\n");
	ck_assert_int_eq(cx.h.type, DAT_VENDOR);
	char tn[32];
	ck_assert_str_eq(dat_type_name(&cx.h, tn), "vendor 0xabcd0000");
}
END_TEST

/* A quantized header of 1.0.2 (code 0x10 or 0x11) with min and max in
 * the parameters. */
static void quant_header(unsigned char b[DAT_OLD_HEADER_SIZE], uint32_t code,
			 float qmin, float qmax)
{
	uint32_t four = 4;
	valid(b, DAT_UINT, 8, &four, 1);
	put_le32(b + 48, code);
	put_lef32(b + 52, qmin);
	put_lef32(b + 56, qmax);
}

/* 1.0.2: "min: 32-bit IEEE floating point value indicating the value to
 * which an item containing all-zero bits is mapped; max: ... all-one bits
 * ..."; "In case of the logarithmic quantization algorithm (0x11), the min
 * parameter must be set to 0 (unsigned) or -max (signed)." */
START_TEST(header_quantization)
{
	unsigned char b[DAT_OLD_HEADER_SIZE];
	uint64_t size = DAT_HEADER_SIZE + 4;
	quant_header(b, 0x10, -1.0f, 1.0f);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert(cx.ok);
	ck_assert_int_eq(cx.h.type, DAT_LINEAR);
	ck_assert(cx.h.qmin == -1.0f && cx.h.qmax == 1.0f);
	quant_header(b, 0x10, NAN, 1.0f);
	expect_error(b, size, "error[E1012]: " NAME ": quantization range [nan, 1]; min and max must be finite, min at most max\n");
	quant_header(b, 0x10, 0.0f, INFINITY);
	expect_error(b, size, "error[E1012]: " NAME ": quantization range [0, inf]; min and max must be finite, min at most max\n");
	quant_header(b, 0x11, -INFINITY, INFINITY);
	expect_error(b, size, "error[E1012]: " NAME ": quantization range [-inf, inf]; min and max must be finite, min at most max\n");
	quant_header(b, 0x10, 1.0f, -1.0f);
	expect_error(b, size, "error[E1012]: " NAME ": quantization range [1, -1]; min and max must be finite, min at most max\n");
	quant_header(b, 0x10, 2.0f, 2.0f); /* min = max is allowed */
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert(cx.ok);
	/* logarithmic: min 0 or -max */
	quant_header(b, 0x11, 0.0f, 8.0f);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert(cx.ok);
	ck_assert_int_eq(cx.h.type, DAT_LOG);
	quant_header(b, 0x11, -8.0f, 8.0f);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert(cx.ok);
	quant_header(b, 0x11, -1.0f, 2.0f);
	expect_error(b, size, "error[E1012]: " NAME ": logarithmic quantization with min -1; min must be 0 (unsigned) or -max (signed), here -2\n");
	quant_header(b, 0x11, 0.5f, 2.0f);
	expect_error(b, size, "error[E1012]: " NAME ": logarithmic quantization with min 0.5; min must be 0 (unsigned) or -max (signed), here -2\n");
	/* max must be positive: m = ceil(log2 max) */
	quant_header(b, 0x11, -3.0f, -1.0f);
	expect_error(b, size, "error[E1012]: " NAME ": logarithmic quantization with max -1; max must be positive (its logarithm sets the range)\n");
	quant_header(b, 0x11, 0.0f, 0.0f);
	expect_error(b, size, "error[E1012]: " NAME ": logarithmic quantization with max 0; max must be positive (its logarithm sets the range)\n");
	/* one bit: enough without a sign (min = 0), not with one */
	uint32_t four = 4;
	valid(b, DAT_UINT, 1, &four, 1);
	put_le32(b + 48, 0x11);
	put_lef32(b + 52, 0.0f);
	put_lef32(b + 56, 4.0f);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, DAT_HEADER_SIZE + 1, false), "");
	ck_assert(cx.ok);
	put_lef32(b + 52, -4.0f);
	expect_error(b, DAT_HEADER_SIZE + 1, "error[E1007]: " NAME ": 1 bit per item; signed logarithmic quantization takes a sign bit and needs 2 to 64\n");
}
END_TEST

/* 1.0.2: "In case of uncompressed integer values (code 0x01), the first
 * 4-byte value of the parameters signal whether the data-type is signed
 * (zero indicates unsigned, non-zero indicates signed)." */
START_TEST(header_102_integers)
{
	unsigned char b[DAT_OLD_HEADER_SIZE + 2];
	uint32_t two = 2;
	uint32_t len = valid(b, DAT_UINT, 8, &two, 1);
	uint64_t size = DAT_HEADER_SIZE + len;
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert_int_eq(cx.h.type, DAT_UINT);
	put_le32(b + 52, 1);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert(cx.ok);
	ck_assert_int_eq(cx.h.type, DAT_SINT);
	ck_assert_uint_eq(cx.h.code, 1);
	char tn[32];
	ck_assert_str_eq(dat_type_name(&cx.h, tn), "int8");
	/* the items are then read as signed */
	b[DAT_HEADER_SIZE] = 0xff;
	b[DAT_HEADER_SIZE + 1] = 0x80;
	DatItem out[2];
	dat_decode(&cx.h, b + DAT_HEADER_SIZE, 0, 2, out);
	ck_assert_int_eq(out[0].i, -1);
	ck_assert_int_eq(out[1].i, -128);
	/* any non-zero byte of the 4 */
	put_le32(b + 52, 0x80000000u);
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert_int_eq(cx.h.type, DAT_SINT);
	put_le32(b + 52, 0);
	b[56] = 1; /* the second parameter does not count */
	ck_assert_str_eq(read_hdr(b, DAT_HEADER_SIZE, size, false), "");
	ck_assert_int_eq(cx.h.type, DAT_UINT);
	ck_assert_str_eq(dat_type_name(&cx.h, tn), "uint8");
	dat_decode(&cx.h, b + DAT_HEADER_SIZE, 0, 2, out);
	ck_assert_uint_eq(out[0].u, 255);
	ck_assert_uint_eq(out[1].u, 128);
}
END_TEST

/* ---- names and sizes ----------------------------------------------------------- */

/* The names of item types used in messages and tables. */
START_TEST(type_names)
{
	static const struct {
		DatItemType t;
		uint32_t bits;
		const char *name;
	} cases[] = {
		{ DAT_FLOAT, 32, "float32" }, { DAT_FLOAT, 16, "float16" },
		{ DAT_SINT, 8, "int8" },      { DAT_SINT, 64, "int64" },
		{ DAT_UINT, 4, "uint4" },     { DAT_QSINT, 8, "qint8" },
		{ DAT_QUINT, 8, "quint8" },   { DAT_LOGICAL, 1, "bool1" },
		{ DAT_LOGICAL, 8, "bool8" },  { DAT_LINEAR, 8, "linear8" },
		{ DAT_LOG, 16, "log16" },
	};
	char buf[32];
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		DatHeader h = hdr(cases[k].t, cases[k].bits, 1);
		ck_assert_ptr_eq(dat_type_name(&h, buf), buf);
		ck_assert_str_eq(buf, cases[k].name);
	}
	DatHeader v;
	memset(&v, 0, sizeof(v));
	v.type = DAT_VENDOR;
	v.code = 0xffffffffu;
	v.bits = 8;
	ck_assert_str_eq(dat_type_name(&v, buf), "vendor 0xffffffff");
}
END_TEST

/* The number of items is the volume of the extents (a rank-0 tensor has
 * one); "the last byte is padded with zero bits". */
START_TEST(items_and_packed_size)
{
	DatHeader h;
	uint64_t n = 0, size = 0;
	uint32_t ext[8] = { 16, 8, 3, 3 };
	ck_assert(dat_make_header(&h, DAT_FLOAT, 32, ext, 4));
	ck_assert(dat_items(&h, &n));
	ck_assert_uint_eq(n, 1152);
	ck_assert(dat_make_header(&h, DAT_FLOAT, 32, ext, 0));
	ck_assert(dat_items(&h, &n));
	ck_assert_uint_eq(n, 1);
	memset(&h, 0, sizeof(h));
	h.rank = 2;
	h.extents[0] = h.extents[1] = 0xffffffffu; /* (2^32-1)^2 < 2^64 */
	ck_assert(dat_items(&h, &n));
	ck_assert_uint_eq(n, 0xfffffffe00000001u);
	h.rank = 3;
	h.extents[2] = 2;
	ck_assert(!dat_items(&h, &n));
	h.rank = 8;
	for (int i = 0; i < 8; i++)
		h.extents[i] = 256; /* 2^64 */
	ck_assert(!dat_items(&h, &n));
	h.extents[7] = 255;
	ck_assert(dat_items(&h, &n));
	ck_assert_uint_eq(n, 0xff00000000000000u);
	/* packed sizes */
	h.bits = 1;
	ck_assert(dat_packed_size(&h, 9, &size));
	ck_assert_uint_eq(size, 2);
	ck_assert(dat_packed_size(&h, 8, &size));
	ck_assert_uint_eq(size, 1);
	ck_assert(dat_packed_size(&h, 0, &size));
	ck_assert_uint_eq(size, 0);
	ck_assert(dat_packed_size(&h, UINT64_MAX, &size));
	ck_assert_uint_eq(size, (uint64_t)1 << 61);
	h.bits = 12;
	ck_assert(dat_packed_size(&h, 3, &size));
	ck_assert_uint_eq(size, 5);
	h.bits = 13;
	ck_assert(dat_packed_size(&h, 8, &size));
	ck_assert_uint_eq(size, 13);
	h.bits = 64;
	ck_assert(dat_packed_size(&h, 3, &size));
	ck_assert_uint_eq(size, 24);
	ck_assert(!dat_packed_size(&h, (uint64_t)1 << 61, &size)); /* 2^64 bytes */
	/* "false if it does not fit in 64 bits": these sizes do fit */
	h.bits = 8;
	ck_assert(dat_packed_size(&h, (uint64_t)1 << 61, &size));
	ck_assert_uint_eq(size, (uint64_t)1 << 61);
	h.bits = 3; /* ceil(3 * (2^64 - 1) / 8) = 3 * 2^61 */
	ck_assert(dat_packed_size(&h, UINT64_MAX, &size));
	ck_assert_uint_eq(size, (uint64_t)3 << 61);
}
END_TEST

/* ---- floats ---------------------------------------------------------------------- */

/* "0b0000 - float values in IEEE format, valid bits per item is 16, 32,
 * 64": binary16 by its bit patterns, rounding to nearest, ties to even. */
START_TEST(float16_encoding)
{
	ck_assert_uint_eq(half_of(1.0), 0x3c00);
	ck_assert_uint_eq(half_of(-2.0), 0xc000);
	ck_assert_uint_eq(half_of(0.5), 0x3800);
	ck_assert_uint_eq(half_of(-1.5), 0xbe00);
	ck_assert_uint_eq(half_of(0.1), 0x2e66);       /* 614.4 -> 614 */
	ck_assert_uint_eq(half_of(1.0 / 3.0), 0x3555); /* 341.33 -> 341 */
	ck_assert_uint_eq(half_of(0.0), 0x0000);
	ck_assert_uint_eq(half_of(-0.0), 0x8000);
	/* the largest, the smallest normal, the subnormals */
	ck_assert_uint_eq(half_of(65504.0), 0x7bff);
	ck_assert_uint_eq(half_of(ldexp(1.0, -14)), 0x0400);
	ck_assert_uint_eq(half_of(ldexp(1023.0, -24)), 0x03ff);
	ck_assert_uint_eq(half_of(ldexp(1.0, -24)), 0x0001);
	ck_assert_uint_eq(half_of(-ldexp(1.0, -24)), 0x8001);
	ck_assert_uint_eq(half_of(ldexp(1.0, -26)), 0x0000);
	ck_assert_uint_eq(half_of(-ldexp(1.0, -26)), 0x8000);
	/* infinities and overflow: 65520 is halfway from 65504 to 2^16 */
	ck_assert_uint_eq(half_of(INFINITY), 0x7c00);
	ck_assert_uint_eq(half_of(-INFINITY), 0xfc00);
	ck_assert_uint_eq(half_of(65519.0), 0x7bff);
	ck_assert_uint_eq(half_of(65520.0), 0x7c00);
	ck_assert_uint_eq(half_of(-1e6), 0xfc00);
	ck_assert_uint_eq(half_of(DBL_MAX), 0x7c00);
	/* NaN: exponent all ones, fraction not zero */
	uint16_t qnan = half_of(NAN);
	ck_assert_uint_eq(qnan & 0x7c00, 0x7c00);
	ck_assert_uint_ne(qnan & 0x03ff, 0);
	ck_assert_uint_eq(half_of(-NAN) & 0xfc00, 0xfc00);
	/* ties to even */
	ck_assert_uint_eq(half_of(1.0 + ldexp(1.0, -11)), 0x3c00);
	ck_assert_uint_eq(half_of(1.0 + ldexp(3.0, -11)), 0x3c02);
	ck_assert_uint_eq(half_of(1.0 + ldexp(1.0, -11) + ldexp(1.0, -30)), 0x3c01);
	ck_assert_uint_eq(half_of(2049.0), 0x6800);
	ck_assert_uint_eq(half_of(2051.0), 0x6802);
	ck_assert_uint_eq(half_of(ldexp(1.0, -25)), 0x0000);
	ck_assert_uint_eq(half_of(ldexp(3.0, -25)), 0x0002);
	ck_assert_uint_eq(half_of(ldexp(5.0, -25)), 0x0002);
	ck_assert_uint_eq(half_of(ldexp(1.0, -25) + ldexp(1.0, -40)), 0x0001);
	/* the largest subnormal rounds up to the smallest normal */
	ck_assert_uint_eq(half_of(ldexp(1.0, -14) - ldexp(1.0, -25)), 0x0400);
	ck_assert_uint_eq(half_of(ldexp(1022.5, -24)), 0x03fe);
	ck_assert_uint_eq(half_of(ldexp(1023.25, -24)), 0x03ff);
}
END_TEST

/* binary16 decoded: exact values of a few patterns, then every one of the
 * 65536 patterns encodes back to itself (NaNs to a NaN of the same sign),
 * and the positive finite ones increase. */
START_TEST(float16_decoding)
{
	ck_assert_double_eq(half_value(0x3c00), 1.0);
	ck_assert_double_eq(half_value(0xc000), -2.0);
	ck_assert_double_eq(half_value(0x7bff), 65504.0);
	ck_assert_double_eq(half_value(0x0001), ldexp(1.0, -24));
	ck_assert_double_eq(half_value(0x03ff), ldexp(1023.0, -24));
	ck_assert_double_eq(half_value(0x0400), ldexp(1.0, -14));
	ck_assert_double_eq(half_value(0x3555), 0.333251953125);
	ck_assert(isinf(half_value(0x7c00)) && half_value(0x7c00) > 0);
	ck_assert(isinf(half_value(0xfc00)) && half_value(0xfc00) < 0);
	ck_assert(isnan(half_value(0x7e00)));
	ck_assert(isnan(half_value(0x7c01)));
	ck_assert(half_value(0x8000) == 0.0 && signbit(half_value(0x8000)));
	double prev = -1.0;
	for (uint32_t u = 0; u <= 0xffff; u++) {
		double d = half_value((uint16_t)u);
		uint16_t back = half_of(d);
		if (isnan(d)) {
			if ((back & 0x7c00) != 0x7c00 || !(back & 0x3ff) ||
			    (back & 0x8000) != (u & 0x8000))
				ck_abort_msg("NaN 0x%04x encodes back to 0x%04x", (unsigned)u, (unsigned)back);
			continue;
		}
		if (back != u)
			ck_abort_msg("0x%04x decodes to %a, which encodes to 0x%04x", (unsigned)u, d, (unsigned)back);
		if (u <= 0x7c00) {
			if (!(d > prev))
				ck_abort_msg("0x%04x: %a not above %a", (unsigned)u, d, prev);
			prev = d;
		}
	}
}
END_TEST

/* float32 and float64 items: IEEE formats, "laid out in little-endian
 * byte order", kept bit for bit. */
START_TEST(float32_float64)
{
	DatHeader h32 = hdr(DAT_FLOAT, 32, 1), h64 = hdr(DAT_FLOAT, 64, 1);
	DatItem one = { .f = 1.0 };
	static const unsigned char one32[] = { 0x00, 0x00, 0x80, 0x3f };
	static const unsigned char one64[] = { 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };
	expect_bytes(&h32, &one, 1, one32, 4);
	expect_bytes(&h64, &one, 1, one64, 8);
	DatItem m = { .f = -2.5 }; /* 0xc0200000 */
	static const unsigned char m32[] = { 0x00, 0x00, 0x20, 0xc0 };
	expect_bytes(&h32, &m, 1, m32, 4);
	static const double vals[] = {
		0.0, -0.0, 1.5, -3.25, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN,
		INFINITY, -INFINITY, 0x1.bd5a52p-4, 1e-40,
	};
	enum { NV = sizeof(vals) / sizeof(vals[0]) };
	DatItem in[NV], out[NV + 1];
	for (size_t k = 0; k < NV; k++)
		in[k].f = vals[k];
	unsigned char b[8 * (NV + 1)];
	memset(b, 0, sizeof(b));
	dat_encode(&h32, b, 1, NV, in); /* at index 1 */
	dat_decode(&h32, b, 0, NV + 1, out);
	ck_assert_double_eq(out[0].f, 0.0);
	for (size_t k = 0; k < NV; k++) {
		ck_assert_double_eq(out[k + 1].f, (double)(float)vals[k]);
		ck_assert_int_eq(signbit(out[k + 1].f) != 0, signbit(vals[k]) != 0);
	}
	static const double vals64[] = {
		0.0, -0.0, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, 3.141592653589793,
		INFINITY, -INFINITY, 1e300, -1e-300, 0x1.0000000000001p0,
	};
	_Static_assert(sizeof(vals64) == sizeof(vals), "as many doubles");
	for (size_t k = 0; k < NV; k++)
		in[k].f = vals64[k];
	memset(b, 0, sizeof(b));
	dat_encode(&h64, b, 1, NV, in);
	dat_decode(&h64, b, 1, NV, out);
	for (size_t k = 0; k < NV; k++)
		ck_assert(memcmp(&out[k].f, &vals64[k], sizeof(double)) == 0);
	DatItem nan = { .f = NAN };
	dat_encode(&h32, b, 0, 1, &nan);
	dat_decode(&h32, b, 0, 1, out);
	ck_assert(isnan(out[0].f));
	dat_encode(&h64, b, 0, 1, &nan);
	dat_decode(&h64, b, 0, 1, out);
	ck_assert(isnan(out[0].f));
	DatItem v = { .f = -3.5 };
	ck_assert_double_eq(dat_real(&h64, v), -3.5);
	ck_assert_double_eq(dat_real(&h32, one), 1.0);
}
END_TEST

/* ---- integers ---------------------------------------------------------------------- */

/* "0b0001 - unsigned integer values, maximum bits per item is 64": every
 * width 1 to 64, with 0, 1, the maximum and values around the top bit, at
 * index 0 of a zeroed buffer and at index 3 of a buffer of ones. */
START_TEST(uint_every_width)
{
	for (uint32_t b = 1; b <= 64; b++) {
		DatHeader h = hdr(DAT_UINT, b, 1);
		uint64_t mx = umax(b), top = (uint64_t)1 << (b - 1);
		DatItem in[] = {
			{ .u = 0 }, { .u = 1 }, { .u = mx }, { .u = mx - 1 },
			{ .u = top }, { .u = top - 1 },
			{ .u = 0x5555555555555555u & mx },
			{ .u = 0xaaaaaaaaaaaaaaaau & mx },
			{ .u = 0x0123456789abcdefu & mx },
		};
		size_t n = sizeof(in) / sizeof(in[0]);
		round_trip(&h, in, n, 0, 0x00);
		round_trip(&h, in, n, 3, 0xff);
		for (size_t k = 0; k < n; k++)
			ck_assert_double_eq(dat_real(&h, in[k]), (double)in[k].u);
	}
}
END_TEST

/* "0b0100 - signed integer values, maximum bits per item is 64": every
 * width, two's complement of the width, sign-extended when read. */
START_TEST(sint_every_width)
{
	for (uint32_t b = 1; b <= 64; b++) {
		DatHeader h = hdr(DAT_SINT, b, 1), hu = hdr(DAT_UINT, b, 1);
		int64_t mx = b == 64 ? INT64_MAX : ((int64_t)1 << (b - 1)) - 1;
		int64_t mn = -mx - 1;
		DatItem in[] = {
			{ .i = mn }, { .i = mx }, { .i = -1 }, { .i = 0 },
			{ .i = mn + 1 }, { .i = mx > 0 ? mx - 1 : 0 },
			{ .i = mx > 0 ? 1 : 0 }, { .i = mx > 0 ? -2 : -1 },
			{ .i = mn / 3 },
		};
		size_t n = sizeof(in) / sizeof(in[0]);
		round_trip(&h, in, n, 0, 0x00);
		round_trip(&h, in, n, 5, 0xff);
		for (size_t k = 0; k < n; k++)
			ck_assert_double_eq(dat_real(&h, in[k]), (double)in[k].i);
		/* the bits stored are the low b bits of two's complement; read
		 * back as signed, the top bit extends */
		unsigned char buf[16];
		memset(buf, 0, sizeof(buf));
		dat_encode(&h, buf, 0, 2, in); /* min, max */
		DatItem raw[2], sx[2];
		dat_decode(&hu, buf, 0, 2, raw);
		ck_assert_uint_eq(raw[0].u, (uint64_t)1 << (b - 1));
		ck_assert_uint_eq(raw[1].u, umax(b) >> 1);
		DatItem all = { .u = umax(b) };
		dat_encode(&hu, buf, 0, 1, &all);
		dat_decode(&h, buf, 0, 2, sx);
		ck_assert_int_eq(sx[0].i, -1);
		ck_assert_int_eq(sx[1].i, mx);
	}
}
END_TEST

/* "a bit-stream packed continuously into a sequence of bytes": the exact
 * bytes of items that straddle byte boundaries (most significant bit
 * first), and of whole-byte items ("little-endian byte order"). */
START_TEST(packing_exact_bytes)
{
	DatHeader h;
	DatItem u3[] = { { .u = 5 }, { .u = 3 }, { .u = 7 } };
	static const unsigned char b3[] = { 0xaf, 0x80 }; /* 101 011 11|1 */
	h = hdr(DAT_UINT, 3, 1);
	expect_bytes(&h, u3, 3, b3, 2);
	DatItem u4[] = { { .u = 1 }, { .u = 2 }, { .u = 0xf } };
	static const unsigned char b4[] = { 0x12, 0xf0 };
	h = hdr(DAT_UINT, 4, 1);
	expect_bytes(&h, u4, 3, b4, 2);
	DatItem u7[] = { { .u = 0x7f }, { .u = 0 }, { .u = 0x55 } };
	static const unsigned char b7[] = { 0xfe, 0x02, 0xa8 };
	h = hdr(DAT_UINT, 7, 1);
	expect_bytes(&h, u7, 3, b7, 3);
	DatItem u12[] = { { .u = 0xabc }, { .u = 0x123 }, { .u = 0x456 } };
	static const unsigned char b12[] = { 0xab, 0xc1, 0x23, 0x45, 0x60 };
	h = hdr(DAT_UINT, 12, 1);
	expect_bytes(&h, u12, 3, b12, 5);
	DatItem u13[] = { { .u = 0x1abc } }; /* 1101010111100 */
	static const unsigned char b13[] = { 0xd5, 0xe0 };
	h = hdr(DAT_UINT, 13, 1);
	expect_bytes(&h, u13, 1, b13, 2);
	DatItem s5[] = { { .i = -1 }, { .i = -16 } }; /* 11111 10000 */
	static const unsigned char b5[] = { 0xfc, 0x00 };
	h = hdr(DAT_SINT, 5, 1);
	expect_bytes(&h, s5, 2, b5, 2);
	DatItem u16[] = { { .u = 0x1234 } };
	static const unsigned char b16[] = { 0x34, 0x12 };
	h = hdr(DAT_UINT, 16, 1);
	expect_bytes(&h, u16, 1, b16, 2);
	DatItem u24[] = { { .u = 0x123456 } };
	static const unsigned char b24[] = { 0x56, 0x34, 0x12 };
	h = hdr(DAT_UINT, 24, 1);
	expect_bytes(&h, u24, 1, b24, 3);
	DatItem u64[] = { { .u = 0x0102030405060708u } };
	static const unsigned char b64[] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	h = hdr(DAT_UINT, 64, 1);
	expect_bytes(&h, u64, 1, b64, 8);
	DatItem s16[] = { { .i = -2 } };
	static const unsigned char bs16[] = { 0xfe, 0xff };
	h = hdr(DAT_SINT, 16, 1);
	expect_bytes(&h, s16, 1, bs16, 2);
	/* a value wider than the item keeps its low bits only */
	DatItem wide[] = { { .u = 0 }, { .u = 0xffffffffu }, { .u = 0 } };
	static const unsigned char bw[] = { 0x1c, 0x00 }; /* 000 111 00|0 */
	h = hdr(DAT_UINT, 3, 1);
	expect_bytes(&h, wide, 3, bw, 2);
}
END_TEST

/* Encoding one item leaves its neighbours alone ("bytes shared with
 * neighbouring items are preserved"): every width, one item at each odd
 * index of 9, zeros into ones and ones into zeros. */
START_TEST(packing_neighbours)
{
	for (uint32_t b = 1; b <= 64; b++) {
		DatHeader h = hdr(DAT_UINT, b, 1);
		for (uint64_t i = 1; i < 9; i += 2) {
			DatItem zero = { .u = 0 }, ones = { .u = umax(b) };
			round_trip(&h, &zero, 1, i, 0xff);
			round_trip(&h, &ones, 1, i, 0x00);
		}
	}
	/* the widths that straddle bytes most, with decoding from an odd
	 * first index */
	static const uint32_t widths[] = { 3, 5, 7, 12, 13 };
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		DatHeader h = hdr(DAT_UINT, widths[w], 1);
		unsigned char buf[32];
		memset(buf, 0, sizeof(buf));
		DatItem in[9], out[9];
		for (uint64_t k = 0; k < 9; k++) {
			in[k].u = (k * 0x9e3779b97f4a7c15u >> 7) & umax(widths[w]);
			dat_encode(&h, buf, k, 1, &in[k]); /* one at a time */
		}
		for (uint64_t first = 1; first < 9; first += 2) {
			dat_decode(&h, buf, first, 9 - (size_t)first, out);
			for (uint64_t k = first; k < 9; k++)
				ck_assert_uint_eq(out[k - first].u, in[k].u);
		}
	}
}
END_TEST

/* "0b0101 - bool values, 1 bit or 8 bits (0 means false, non-zero means
 * true)"; 1-bit bools are packed most significant bit first. */
START_TEST(logical_items)
{
	DatHeader h1 = hdr(DAT_LOGICAL, 1, 1), h8 = hdr(DAT_LOGICAL, 8, 1);
	DatItem tft[] = { { .u = 1 }, { .u = 0 }, { .u = 1 } };
	static const unsigned char b1[] = { 0xa0 }; /* 0b10100000 */
	expect_bytes(&h1, tft, 3, b1, 1);
	static const unsigned char b8[] = { 1, 0, 1 };
	expect_bytes(&h8, tft, 3, b8, 3);
	/* any non-zero value is true, stored as 1 */
	DatItem many[] = { { .u = 5 }, { .u = 0 }, { .u = 0x100 } };
	expect_bytes(&h8, many, 3, b8, 3);
	expect_bytes(&h1, many, 3, b1, 1);
	round_trip(&h1, many, 3, 0, 0x00);
	round_trip(&h1, many, 3, 7, 0xff);
	round_trip(&h8, many, 3, 1, 0xff);
	/* decoding: non-zero bytes are true */
	static const unsigned char bytes[] = { 0x00, 0x02, 0xff, 0x80, 0x01 };
	DatItem out[9];
	dat_decode(&h8, bytes, 0, 5, out);
	static const uint64_t want8[] = { 0, 1, 1, 1, 1 };
	for (int k = 0; k < 5; k++) {
		ck_assert_uint_eq(out[k].u, want8[k]);
		ck_assert_double_eq(dat_real(&h8, out[k]), (double)want8[k]);
	}
	static const unsigned char bits[] = { 0xa0, 0x80 };
	dat_decode(&h1, bits, 0, 9, out);
	static const uint64_t want1[] = { 1, 0, 1, 0, 0, 0, 0, 0, 1 };
	for (int k = 0; k < 9; k++)
		ck_assert_uint_eq(out[k].u, want1[k]);
}
END_TEST

/* "0b0010 - quantized unsigned integer values", "0b0011 - quantized
 * signed integer values": the items are their integer codes ("quantization
 * parameters are stored in the quantization file", 5.2.1). */
START_TEST(quantized_codes)
{
	DatHeader qu = hdr(DAT_QUINT, 8, 1), qs = hdr(DAT_QSINT, 8, 1);
	DatItem in[256], out[256];
	unsigned char b[256];
	for (int k = 0; k < 256; k++)
		in[k].u = (uint64_t)k;
	dat_encode(&qu, b, 0, 256, in);
	dat_decode(&qu, b, 0, 256, out);
	for (int k = 0; k < 256; k++) {
		ck_assert_uint_eq(b[k], k);
		ck_assert_uint_eq(out[k].u, (uint64_t)k);
		ck_assert_double_eq(dat_real(&qu, out[k]), (double)k);
	}
	for (int k = 0; k < 256; k++)
		in[k].i = k - 128;
	dat_encode(&qs, b, 0, 256, in);
	dat_decode(&qs, b, 0, 256, out);
	for (int k = 0; k < 256; k++) {
		ck_assert_int_eq(out[k].i, k - 128);
		ck_assert_double_eq(dat_real(&qs, out[k]), (double)(k - 128));
	}
	ck_assert_uint_eq(b[0], 0x80);
	ck_assert_uint_eq(b[255], 0x7f);
	/* narrow codes */
	DatHeader qs5 = hdr(DAT_QSINT, 5, 1), qu3 = hdr(DAT_QUINT, 3, 1);
	DatItem s[] = { { .i = -16 }, { .i = 15 }, { .i = -1 }, { .i = 0 } };
	round_trip(&qs5, s, 4, 1, 0x00);
	round_trip(&qs5, s, 4, 2, 0xff);
	DatItem u[] = { { .u = 0 }, { .u = 7 }, { .u = 4 } };
	round_trip(&qu3, u, 3, 3, 0x00);
	ck_assert_double_eq(dat_real(&qs5, s[0]), -16.0);
	ck_assert_double_eq(dat_real(&qu3, u[1]), 7.0);
}
END_TEST

/* ---- dequantization (1.0.2 codes 0x10 and 0x11) ------------------------------------ */

/* A quantized header in memory, with its min and max. */
static DatHeader qhdr(DatItemType t, uint32_t bits, float qmin, float qmax)
{
	DatHeader h = hdr(t, bits, 1);
	h.qmin = qmin;
	h.qmax = qmax;
	return h;
}

static double real_of(const DatHeader *h, uint64_t q)
{
	DatItem v = { .u = q };
	return dat_real(h, v);
}

/* "Let b denote the number of bits per item, and let r = 2^b - 1";
 * "Decoding with linear quantization is as follows: x = q / r * (max -
 * min) + min"; min is the value of all-zero bits, max of all-one bits. */
START_TEST(linear_reals)
{
	DatHeader h = qhdr(DAT_LINEAR, 8, -1.0f, 1.0f); /* r = 255 */
	ck_assert_double_eq(real_of(&h, 0), -1.0);
	ck_assert_double_eq(real_of(&h, 255), 1.0);
	ck_assert_double_eq_tol(real_of(&h, 51), -0.6, 1e-15);   /* 0.2*2-1 */
	ck_assert_double_eq_tol(real_of(&h, 128), 1.0 / 255.0, 1e-15);
	h = qhdr(DAT_LINEAR, 4, 0.0f, 3.0f); /* r = 15 */
	ck_assert_double_eq_tol(real_of(&h, 5), 1.0, 1e-15);
	ck_assert_double_eq_tol(real_of(&h, 10), 2.0, 1e-15);
	ck_assert_double_eq(real_of(&h, 15), 3.0);
	h = qhdr(DAT_LINEAR, 1, 2.0f, 4.0f); /* r = 1 */
	ck_assert_double_eq(real_of(&h, 0), 2.0);
	ck_assert_double_eq(real_of(&h, 1), 4.0);
	h = qhdr(DAT_LINEAR, 16, -0.5f, 0.5f); /* r = 65535 */
	ck_assert_double_eq_tol(real_of(&h, 0x8000), 1.0 / 131070.0, 1e-15);
	ck_assert_double_eq(real_of(&h, 0xffff), 0.5);
	/* the codes travel as unsigned items */
	h = qhdr(DAT_LINEAR, 12, 0.0f, 4095.0f);
	DatItem in[] = { { .u = 0 }, { .u = 4095 }, { .u = 1234 } }, out[3];
	unsigned char b[8] = { 0 };
	dat_encode(&h, b, 0, 3, in);
	dat_decode(&h, b, 0, 3, out);
	for (int k = 0; k < 3; k++) {
		ck_assert_uint_eq(out[k].u, in[k].u);
		ck_assert_double_eq_tol(dat_real(&h, out[k]), (double)in[k].u, 1e-9);
	}
}
END_TEST

/* "let m = ceil(log2 max) ... Decoding with logarithmic quantization is as
 * follows: x = 2^(q + (m - r))"; "If x is signed, then a sign bit must be
 * allocated from the b bits ... and the actual bit width ... must be
 * decreased by one" (nnefkit: the item's most significant bit, 1 for
 * negative). */
START_TEST(log_reals)
{
	/* unsigned, b = 4: r = 15, m = 3, x = 2^(q - 12) */
	DatHeader h = qhdr(DAT_LOG, 4, 0.0f, 8.0f);
	ck_assert_double_eq(real_of(&h, 15), 8.0);
	ck_assert_double_eq(real_of(&h, 12), 1.0);
	ck_assert_double_eq(real_of(&h, 13), 2.0);
	ck_assert_double_eq(real_of(&h, 0), ldexp(1.0, -12));
	/* max 6: m = ceil(log2 6) = 3 still */
	h = qhdr(DAT_LOG, 4, 0.0f, 6.0f);
	ck_assert_double_eq(real_of(&h, 15), 8.0);
	ck_assert_double_eq(real_of(&h, 14), 4.0);
	/* max 0.5: m = -1; b = 2: r = 3, x = 2^(q - 4) */
	h = qhdr(DAT_LOG, 2, 0.0f, 0.5f);
	ck_assert_double_eq(real_of(&h, 3), 0.5);
	ck_assert_double_eq(real_of(&h, 0), 0.0625);
	/* signed, b = 4: the code has 3 bits, r = 7, m = 3, x = ±2^(q - 4) */
	h = qhdr(DAT_LOG, 4, -8.0f, 8.0f);
	ck_assert_double_eq(real_of(&h, 0x7), 8.0);
	ck_assert_double_eq(real_of(&h, 0xf), -8.0);
	ck_assert_double_eq(real_of(&h, 0x4), 1.0);
	ck_assert_double_eq(real_of(&h, 0xc), -1.0);
	ck_assert_double_eq(real_of(&h, 0x0), 0.0625);
	ck_assert_double_eq(real_of(&h, 0x8), -0.0625);
	/* signed, b = 8: 7-bit code, r = 127, max 1: m = 0, x = ±2^(q - 127) */
	h = qhdr(DAT_LOG, 8, -1.0f, 1.0f);
	ck_assert_double_eq(real_of(&h, 0x7f), 1.0);
	ck_assert_double_eq(real_of(&h, 0xff), -1.0);
	ck_assert_double_eq(real_of(&h, 0x7e), 0.5);
	ck_assert_double_eq(real_of(&h, 0x80), -ldexp(1.0, -127));
	/* through the packed data: a 5-bit signed item at an odd index */
	h = qhdr(DAT_LOG, 5, -4.0f, 4.0f); /* 4-bit code, r = 15, m = 2 */
	DatItem in[] = { { .u = 0x0f }, { .u = 0x1e } }, out[2];
	unsigned char b[4] = { 0 };
	dat_encode(&h, b, 1, 2, in);
	dat_decode(&h, b, 1, 2, out);
	ck_assert_double_eq(dat_real(&h, out[0]), 4.0);
	ck_assert_double_eq(dat_real(&h, out[1]), -2.0);
}
END_TEST

/* ---- a real file ------------------------------------------------------------------ */

/* A float32 filter of the OpenVX conformance networks: the header ("the
 * extents of the tensors must be equal to the ones calculated from the
 * network description": conv3x3's filter is [16,8,3,3]) and its items. */
size_t read_corpus_file(const char *rel, unsigned char *b, size_t cap)
{
	const char *corpus = test_corpus();
	if (!corpus)
		return 0;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	size_t n = fread(b, 1, cap, f);
	fclose(f);
	return n;
}

START_TEST(corpus_filter)
{
	static unsigned char b[8192];
	size_t n = read_corpus_file("openvx-cts-nnef/conv3x3/filter.dat", b, sizeof(b));
	if (n == 0)
		return; /* no corpus: nothing to read */
	ck_assert_uint_eq(n, 4736);
	ck_assert_str_eq(read_hdr(b, n, n, false), "");
	ck_assert(cx.ok);
	const DatHeader *h = &cx.h;
	ck_assert_int_eq(h->type, DAT_FLOAT);
	ck_assert_uint_eq(h->bits, 32);
	ck_assert_uint_eq(h->rank, 4);
	static const uint32_t ext[] = { 16, 8, 3, 3 };
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(h->extents[i], ext[i]);
	ck_assert_uint_eq(h->data_length, 4608);
	ck_assert_uint_eq(h->header_size, DAT_HEADER_SIZE);
	char tn[32];
	ck_assert_str_eq(dat_type_name(h, tn), "float32");
	static const double first[] = {
		-0x1.bd5a52p-4, 0x1.b1b698p-1, -0x1.bedb94p-1, -0x1.e47930p-1,
		0x1.1d4f58p-3,  0x1.f11336p-1, 0x1.9e0972p-1,  0x1.94282cp-1,
	};
	DatItem out[1152];
	dat_decode(h, b + h->header_size, 0, 1152, out);
	for (int k = 0; k < 8; k++)
		ck_assert_double_eq(out[k].f, first[k]);
	for (int k = 0; k < 1152; k++)
		ck_assert_msg(isfinite(out[k].f) && fabs(out[k].f) < 16.0, "item %d is %g", k, out[k].f);
}
END_TEST


/* dat_read_items: a stream read in pieces (a reader giving 3 bytes at a
 * time), decoded into each kind of destination; reals mapped item by
 * item; data that ends too soon is false. */
typedef struct Bytes {
	const unsigned char *p;
	size_t n, at;
} Bytes;

static long three_bytes(void *ctx, void *buf, size_t n)
{
	Bytes *b = ctx;
	size_t k = b->n - b->at < n ? b->n - b->at : n;
	k = k < 3 ? k : 3;
	memcpy(buf, b->p + b->at, k);
	b->at += k;
	return (long)k;
}

static double plus_index(void *ctx, size_t i, double x)
{
	return x * *(const double *)ctx + (double)i;
}

START_TEST(read_items_stream)
{
	/* float32 items, read in place into floats and decoded into doubles */
	const float f[5] = { 1.5f, -2.0f, 0.25f, 8.0f, -0.5f };
	DatHeader h = hdr(DAT_FLOAT, 32, 5);
	Bytes b = { (const unsigned char *)f, sizeof(f), 0 };
	float out32[5];
	ck_assert(dat_read_items(&h, DAT_INTO_F32, out32, 5, three_bytes, &b, NULL, NULL));
	ck_assert_mem_eq(out32, f, sizeof(f));
	double out64[5], two = 2.0;
	b.at = 0;
	ck_assert(dat_read_items(&h, DAT_INTO_F64, out64, 5, three_bytes, &b, plus_index, &two));
	for (size_t i = 0; i < 5; i++)
		ck_assert_double_eq(out64[i], 2.0 * f[i] + (double)i);
	/* 4-bit unsigned codes into int64, as dat_decode gives them */
	h = hdr(DAT_UINT, 4, 4);
	const unsigned char codes[2] = { 0x21, 0xf3 };
	DatItem check[4];
	dat_decode(&h, codes, 0, 4, check);
	int64_t ints[4];
	b = (Bytes){ codes, 2, 0 };
	ck_assert(dat_read_items(&h, DAT_INTO_I64, ints, 4, three_bytes, &b, NULL, NULL));
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(ints[i], (int64_t)check[i].u);
	ck_assert(ints[0] != ints[1] && ints[2] != ints[3]); /* each nibble its own */
	/* logicals */
	h = hdr(DAT_LOGICAL, 8, 3);
	const unsigned char bools[3] = { 0, 7, 1 };
	uint8_t lg[3];
	b = (Bytes){ bools, 3, 0 };
	ck_assert(dat_read_items(&h, DAT_INTO_BOOL, lg, 3, three_bytes, &b, NULL, NULL));
	ck_assert_int_eq(lg[0], 0);
	ck_assert_int_eq(lg[1], 1);
	ck_assert_int_eq(lg[2], 1);
	/* ended too soon */
	h = hdr(DAT_FLOAT, 32, 5);
	b = (Bytes){ (const unsigned char *)f, sizeof(f) - 1, 0 };
	ck_assert(!dat_read_items(&h, DAT_INTO_F32, out32, 5, three_bytes, &b, NULL, NULL));
}
END_TEST

Suite *datfile_suite(void)
{
	Suite *s = suite_create("datfile");
	TCase *tc = tcase_create("header");
	tcase_add_checked_fixture(tc, dat_test_setup, dat_test_teardown);
	tcase_add_test(tc, header_round_trip);
	tcase_add_test(tc, make_header_refusals);
	tcase_add_test(tc, header_short_and_magic);
	tcase_add_test(tc, header_version);
	tcase_add_test(tc, header_rank_and_extents);
	tcase_add_test(tc, header_unknown_code);
	tcase_add_test(tc, header_bits);
	tcase_add_test(tc, header_lengths);
	tcase_add_test(tc, header_item_overflow);
	tcase_add_test(tc, header_old_132);
	tcase_add_test(tc, header_reserved_and_vendor);
	tcase_add_test(tc, header_quantization);
	tcase_add_test(tc, header_102_integers);
	tcase_add_test(tc, type_names);
	tcase_add_test(tc, items_and_packed_size);
	suite_add_tcase(s, tc);
	tc = tcase_create("items");
	tcase_add_checked_fixture(tc, dat_test_setup, dat_test_teardown);
	tcase_add_test(tc, float16_encoding);
	tcase_add_test(tc, float16_decoding);
	tcase_add_test(tc, float32_float64);
	tcase_add_test(tc, uint_every_width);
	tcase_add_test(tc, sint_every_width);
	tcase_add_test(tc, packing_exact_bytes);
	tcase_add_test(tc, packing_neighbours);
	tcase_add_test(tc, logical_items);
	tcase_add_test(tc, quantized_codes);
	tcase_add_test(tc, linear_reals);
	tcase_add_test(tc, log_reals);
	tcase_add_test(tc, read_items_stream);
	TEST_ADD_CORPUS(tc, corpus_filter);
	suite_add_tcase(s, tc);
	datfile_tract_tests(s);
	return s;
}
