/*
 * check_npy.c - NumPy's .npy files and .npz bundles (datfile/npy.c,
 * datfile/npz.c, and their API in api/): headers of every version, key
 * order, quoting and shape read as NumPy writes them; every error of a
 * header with its exact message and byte; items of every data type and
 * both byte orders decoded exactly; headers written as NumPy writes them
 * (the bytes of the corpus's io.npz) and read back; streams read in
 * chunks of any size; bundles written, read back, limited and corrupted
 * (the golden bundles of testsuite/golden/tensors give each error);
 * nnef_tensor_read, nnef_bundle_* and the runner's bundles; and tract's
 * Q4_0 conv weights of the corpus, decoded, reproducing the outputs
 * tract wrote in their io.npz.
 */
#include "api/nnef.h"
#include "datfile/datfile.h"
#include "testutil.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

Suite *npy_suite(void);

#define NAME "a.npy"

/* A .npy of version 1.0 with the header text (padded as NumPy pads it,
 * unless raw) and data, in out (at most cap bytes); returns its size. */
static size_t make_npy(unsigned char *out, size_t cap, const char *text,
		       const void *data, size_t len, int version, bool raw)
{
	size_t pre = version == 1 ? 10 : 12, n = strlen(text), pad = 0;
	if (!raw)
		while ((pre + n + pad + 1) % 64)
			pad++;
	size_t hl = n + pad + (raw ? 0 : 1), size = pre + hl + len;
	ck_assert_uint_le(size, cap);
	memcpy(out, NPY_MAGIC, 6);
	out[6] = (unsigned char)version;
	out[7] = 0;
	for (size_t b = 0; b < pre - 8; b++)
		out[8 + b] = (unsigned char)(hl >> (8 * b));
	memcpy(out + pre, text, n);
	memset(out + pre + n, ' ', pad);
	if (!raw)
		out[pre + n + pad] = '\n';
	if (len)
		memcpy(out + pre + hl, data, len);
	return size;
}

/* Reads the .npy in b[0..n) into *h; every diagnostic rendered. */
static const char *read_npy(const unsigned char *b, size_t n, NpyHeader *h,
			    StrBuf *text)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	sb_clear(text);
	uint64_t hs = 0;
	if (npy_header_size(b, n, NAME, &hs, &dl))
		npy_read_header(b, hs < n ? (size_t)hs : n, n, NAME, h, &dl);
	DiagRenderOpts o = { .show_warnings = true };
	diag_render_all(&dl, text, &o);
	diag_list_free(&dl);
	return sb_str(text);
}

/* ---- headers --------------------------------------------------------------------- */

START_TEST(npy_headers_read)
{
	unsigned char b[512];
	StrBuf t;
	sb_init(&t);
	NpyHeader h;
	static const float two[2] = { 1, 2 };
	size_t n = make_npy(b, sizeof(b), "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two, 8, 1, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "");
	ck_assert(h.dtype == DT_F32 && h.rank == 1 && h.extents[0] == 2 && h.items == 2 && h.data_bytes == 8);
	ck_assert_uint_eq(h.data_offset, 128);
	ck_assert_str_eq(h.descr, "<f4");
	ck_assert_str_eq(npy_type_name(&h), "float32");
	/* any key order, double quotes, blanks, no trailing comma, 'L' */
	n = make_npy(b, sizeof(b), "{ \"shape\" :(1L,2 ,),\t'fortran_order':False,\"descr\":\">i2\"}", two, 4, 2, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "");
	ck_assert(h.major == 2 && h.dtype == DT_I16 && h.big_endian && h.rank == 2 && h.extents[1] == 2);
	n = make_npy(b, sizeof(b), "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", "\1", 1, 3, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "");
	ck_assert(h.major == 3 && h.dtype == DT_BOOL && h.rank == 0 && h.items == 1);
	n = make_npy(b, sizeof(b), "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 0, 2), }", NULL, 0, 1, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "");
	ck_assert(h.items == 0 && h.data_bytes == 0 && h.dtype == DT_U64);
	/* 32 extents: NumPy's most */
	char text[400];
	int at = snprintf(text, sizeof(text), "{'descr': '<f8', 'fortran_order': False, 'shape': (");
	for (int i = 0; i < 32; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "1, ");
	snprintf(text + at, sizeof(text) - (size_t)at, "), }");
	n = make_npy(b, sizeof(b), text, two, 8, 1, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "");
	ck_assert_uint_eq(h.rank, 32);
	sb_free(&t);
}
END_TEST

/* Each error of a header: code, message, byte. */
START_TEST(npy_header_errors)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", "error[E1403]: a.npy: byte 26: expected ',' or '}' after a value, found \"'\"\n" },
		{ "['descr', '<f4']", "error[E1403]: a.npy: byte 10: expected '{' to begin the header's dict, found '['\n" },
		{ "{'descr': <f4, }", "error[E1403]: a.npy: byte 20: expected a quoted string, found '<'\n" },
		{ "{'descr': 'f\\4', }", "error[E1403]: a.npy: byte 22: expected a printable character in a string (escapes are not read), found '\\'\n" },
		{ "{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }", "error[E1403]: a.npy: byte 44: expected True or False for 'fortran_order', found 'f'\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)(, }", "error[E1403]: a.npy: byte 64: expected ',' or '}' after a value, found '('\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", "error[E1403]: a.npy: byte 63: expected ',' or ')' in 'shape', found '3'\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", "error[E1403]: a.npy: byte 62: expected ',' or ')' (an integer has no leading zeros), found '2'\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "error[E1403]: a.npy: byte 60: expected '(' to begin the tuple of 'shape', found '['\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': 2, }", "error[E1404]: a.npy: byte 60: 'shape' is a number, not a tuple of extents\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,), }", "error[E1404]: a.npy: byte 61: an extent of 2^63 or more in 'shape'\n" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<f4'}", "error[E1404]: a.npy: byte 66: a second key 'descr'; the header holds 'descr', 'fortran_order' and 'shape', once each\n" },
		{ "{'fortran_order': False, 'shape': (2,)}", "error[E1404]: a.npy: byte 10: the header has no 'descr'; it holds 'descr', 'fortran_order' and 'shape'\n" },
		{ "{'descr': '<f4', 'shape': (2,)}", "error[E1404]: a.npy: byte 10: the header has no 'fortran_order'; it holds 'descr', 'fortran_order' and 'shape'\n" },
		{ "{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", "error[E1405]: a.npy: byte 20: data type '<f16'; nnefkit reads f2, f4, f8, i1 to i8, u1 to u8 and b1, '<' or '>' (and '|' for one byte)\n" },
		{ "{'descr': '=f4', 'fortran_order': False, 'shape': (2,), }", "error[E1405]: a.npy: byte 20: data type '=f4'; nnefkit reads f2, f4, f8, i1 to i8, u1 to u8 and b1, '<' or '>' (and '|' for one byte)\n" },
		{ "{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }", "error[E1405]: a.npy: byte 20: data type '<U5'; nnefkit reads f2, f4, f8, i1 to i8, u1 to u8 and b1, '<' or '>' (and '|' for one byte)\n" },
		{ "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", "error[E1406]: a.npy: an array in Fortran order (column-major); nnefkit reads C order (row-major)\n   = hint: save np.ascontiguousarray(a) instead of a\n" },
	};
	unsigned char b[512];
	static const float two[2] = { 1, 2 };
	StrBuf t;
	sb_init(&t);
	NpyHeader h;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
		size_t n = make_npy(b, sizeof(b), cases[i].text, two, 8, 1, false);
		const char *got = read_npy(b, n, &h, &t);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got\n%swant\n%s", i, got, cases[i].want);
	}
	/* the preamble and the sizes */
	size_t n = make_npy(b, sizeof(b), "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two, 8, 1, false);
	ck_assert_str_eq(read_npy(b, 3, &h, &t), "error[E1401]: a.npy: 3 bytes, shorter than the magic of a .npy file\n");
	ck_assert_str_eq(read_npy(b, 9, &h, &t), "error[E1401]: a.npy: 9 bytes: the file ends within the preamble of a .npy file (magic, version, header length)\n");
	b[7] = 1;
	ck_assert_str_eq(read_npy(b, n, &h, &t), "error[E1402]: a.npy: .npy format version 1.1; nnefkit reads versions 1.0, 2.0 and 3.0\n");
	b[7] = 0;
	ck_assert_str_eq(read_npy(b, n - 1, &h, &t), "error[E1407]: a.npy: 7 bytes of data follow the header, but 2 items of 4 bytes take 8: the file is cut short\n");
	ck_assert_str_eq(read_npy(b, 40, &h, &t), "error[E1403]: a.npy: byte 40: the file ends within its header of 128 bytes\n");
	b[127] = ' ';
	ck_assert_str_eq(read_npy(b, n, &h, &t), "error[E1403]: a.npy: byte 128: expected the newline that ends the header, found the end of the header\n");
	b[127] = '\n';
	b[126] = 'x';
	ck_assert_str_eq(read_npy(b, n, &h, &t), "error[E1403]: a.npy: byte 126: expected spaces after the dict, found 'x'\n");
	n = make_npy(b, sizeof(b), "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", two, 8, 1, false);
	ck_assert_str_eq(read_npy(b, n, &h, &t), "error[E1407]: a.npy: the shape makes more bytes of data than 64 bits can count\n");
	sb_free(&t);
}
END_TEST

/* ---- items ------------------------------------------------------------------------- */

/* Decodes one item of the data type descr from its bytes. */
static DatItem item_of(const char *descr, const unsigned char *p, unsigned size,
		       NpyHeader *h)
{
	unsigned char b[256];
	char text[128];
	snprintf(text, sizeof(text), "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }", descr);
	size_t n = make_npy(b, sizeof(b), text, p, size, 1, false);
	StrBuf t;
	sb_init(&t);
	ck_assert_str_eq(read_npy(b, n, h, &t), "");
	sb_free(&t);
	DatItem v;
	npy_decode(h, b + h->data_offset, 1, &v);
	return v;
}

START_TEST(npy_items)
{
	NpyHeader h;
	static const unsigned char third_le[] = { 0x55, 0x35 }, third_be[] = { 0x35, 0x55 }, sub_be[] = { 0x00, 0x01 };
	ck_assert(item_of("<f2", third_le, 2, &h).f == 0.333251953125);
	ck_assert(item_of(">f2", third_be, 2, &h).f == 0.333251953125);
	ck_assert(item_of(">f2", sub_be, 2, &h).f == ldexp(1.0, -24));
	static const unsigned char f4_be[] = { 0xbf, 0xc0, 0, 0 }, f8_le[] = { 0, 0, 0, 0, 0, 0, 0xf0, 0x7f };
	ck_assert(item_of(">f4", f4_be, 4, &h).f == -1.5);
	ck_assert(isinf(item_of("<f8", f8_le, 8, &h).f));
	static const unsigned char m128[] = { 0x80 }, i2_be[] = { 0xff, 0xfe }, i8_min[] = { 0, 0, 0, 0, 0, 0, 0, 0x80 };
	ck_assert(item_of("|i1", m128, 1, &h).i == -128);
	ck_assert(item_of("<i1", m128, 1, &h).i == -128); /* one byte: any order */
	ck_assert(item_of(">i2", i2_be, 2, &h).i == -2);
	ck_assert(item_of("<i8", i8_min, 8, &h).i == INT64_MIN);
	ck_assert(npy_real(&h, item_of("<i8", i8_min, 8, &h)) == -9223372036854775808.0);
	static const unsigned char u4[] = { 0xff, 0xff, 0xff, 0xff }, u8[] = { 1, 0, 0, 0, 0, 0, 0, 0x80 };
	ck_assert(item_of("<u4", u4, 4, &h).u == 0xffffffffu);
	ck_assert(item_of(">u8", u8, 8, &h).u == 0x0100000000000080ull);
	static const unsigned char two[] = { 2 };
	DatItem v = item_of("|b1", two, 1, &h);
	ck_assert(v.u == 1 && npy_real(&h, v) == 1.0);
}
END_TEST

/* NumPy's own header of an f4 array of shape (4, 16, 32, 32), as
 * numpy.save writes it (the corpus's io.npz arrays look so). */
START_TEST(npy_written_as_numpy)
{
	static const uint64_t ext[] = { 4, 16, 32, 32 };
	NpyHeader h;
	ck_assert(npy_make_header(&h, DT_F32, ext, 4));
	StrBuf b;
	sb_init(&b);
	npy_write_header(&h, &b);
	static const char want[] = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16, 32, 32), }";
	ck_assert_uint_eq(b.len, 128);
	ck_assert(memcmp(b.data, want, sizeof(want) - 1) == 0);
	for (size_t i = sizeof(want) - 1; i < 127; i++)
		ck_assert(b.data[i] == ' ');
	ck_assert(b.data[127] == '\n' && h.data_offset == 128 && h.data_bytes == 4 * 16 * 32 * 32 * 4);
	/* rank 1 takes its comma, rank 0 none; each type's descr */
	static const struct { DType t; const char *descr; } types[] = {
		{ DT_F16, "'<f2'" }, { DT_F64, "'<f8'" }, { DT_I8, "'|i1'" }, { DT_I32, "'<i4'" },
		{ DT_U16, "'<u2'" }, { DT_BOOL, "'|b1'" },
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(types); i++) {
		sb_clear(&b);
		ck_assert(npy_make_header(&h, types[i].t, ext, (uint32_t)(i % 2)));
		npy_write_header(&h, &b);
		ck_assert_msg(strstr(b.data + 10, types[i].descr), "%s", b.data + 10);
		ck_assert(strstr(b.data + 10, i % 2 ? "(4,)" : "()"));
		NpyHeader back;
		StrBuf t;
		sb_init(&t);
		unsigned char buf[256];
		memcpy(buf, b.data, b.len);
		memset(buf + b.len, 0, h.data_bytes);
		ck_assert_str_eq(read_npy(buf, b.len + h.data_bytes, &back, &t), "");
		sb_free(&t);
		ck_assert(back.dtype == types[i].t && back.rank == h.rank);
	}
	ck_assert(!npy_make_header(&h, DT_STRING, ext, 1));
	ck_assert(!npy_make_header(&h, DT_QU8, ext, 1));
	sb_free(&b);
	/* items encoded and decoded again */
	ck_assert(npy_make_header(&h, DT_F16, ext, 1));
	DatItem in[4] = { { .f = 1.0 / 3 }, { .f = -0.0 }, { .f = 65504 }, { .f = 1e-8 } }, out[4];
	unsigned char bytes[8];
	npy_encode(&h, in, 4, bytes);
	npy_decode(&h, bytes, 4, out);
	ck_assert(out[0].f == 0.333251953125 && signbit(out[1].f) && out[2].f == 65504 && out[3].f == 0.0);
}
END_TEST

/* A stream given in chunks of 1 to 13 bytes reads as the whole does. */
typedef struct Mem {
	const unsigned char *p;
	size_t len, at, step;
} Mem;

static long mem_read(void *ctx, void *buf, size_t n)
{
	Mem *m = ctx;
	n = n < m->step ? n : m->step;
	n = n < m->len - m->at ? n : m->len - m->at;
	memcpy(buf, m->p + m->at, n);
	m->at += n;
	return (long)n;
}

static void sum_put(void *ctx, uint64_t first, size_t n, const DatItem *items)
{
	double *sum = ctx;
	for (size_t i = 0; i < n; i++)
		*sum += (double)(first + i) * items[i].f;
}

START_TEST(npy_streams)
{
	static float v[3000];
	for (int i = 0; i < 3000; i++)
		v[i] = (float)i / 8;
	static unsigned char b[16384];
	size_t n = make_npy(b, sizeof(b), "{'descr': '<f4', 'fortran_order': False, 'shape': (3000,), }", v, sizeof(v), 1, false);
	double want = 0;
	for (int i = 0; i < 3000; i++)
		want += (double)i * i / 8;
	for (size_t step = 1; step < 14; step += 3) {
		DiagList dl;
		diag_list_init(&dl, 0);
		Mem m = { b, n, 0, step };
		NpyHeader h;
		double sum = 0;
		ck_assert(npy_read_stream(mem_read, &m, n, NAME, &h, &dl));
		ck_assert(npy_read_items(mem_read, &m, &h, NAME, sum_put, &sum, &dl));
		ck_assert(sum == want && dl.len == 0);
		/* one byte more than the file says */
		Mem more = { b, n, 0, step };
		ck_assert(npy_read_stream(mem_read, &more, n - 1, NAME, &h, &dl) == false);
		diag_list_free(&dl);
	}
}
END_TEST

/* ---- bundles --------------------------------------------------------------------- */

static char tmp_dir[64]; /* the tests' folder, made by tmp_path */

/* Removes the tests' folder (a checked fixture's teardown). */
static void remove_tmp(void)
{
	if (!tmp_dir[0])
		return;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	ck_assert_int_eq(system(cmd), 0);
	tmp_dir[0] = '\0';
}

/* A path in a fresh folder of the tests' own (in a static buffer of
 * four, used in turn). */
static const char *tmp_path(const char *name)
{
	static char path[4][128];
	static int next;
	if (!tmp_dir[0]) {
		snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/check_npy.XXXXXX");
		ck_assert(mkdtemp(tmp_dir));
	}
	char *p = path[next++ % 4];
	snprintf(p, sizeof(path[0]), "%s/%s", tmp_dir, name);
	return p;
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	static char buf[1 << 16];
	*len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	char *r = malloc(*len ? *len : 1);
	memcpy(r, buf, *len);
	return r;
}

/* Bundles through nnef.h: written stored and deflated, read back by index
 * and by name; a name the bundle lacks (E1412); limits (E1411); a .npy
 * through nnef_tensor_read; an empty array (E1414). */
START_TEST(bundles_api)
{
	nnef_diags *ds = nnef_diags_new();
	int64_t dims[] = { 2, 3 };
	nnef_tensor *a = nnef_tensor_new(NNEF_SCALAR, dims, 2), *c = nnef_tensor_new(NNEF_LOGICAL, dims, 1);
	for (int i = 0; i < 6; i++)
		nnef_tensor_scalars(a)[i] = i + 1.0 / 3;
	nnef_tensor_logicals(c)[1] = true;
	const char *names[] = { "a", "dir/c" };
	const nnef_tensor *ts[] = { a, c };
	for (unsigned flags = 0; flags <= NNEF_WRITE_DEFLATE; flags += NNEF_WRITE_DEFLATE) {
		const char *path = tmp_path("b.npz");
		ck_assert(nnef_bundle_write(path, names, ts, 2, flags | NNEF_WRITE_DOUBLE, ds));
		nnef_bundle *b = nnef_bundle_open(path, NULL, ds);
		ck_assert(b && nnef_bundle_count(b) == 2);
		ck_assert_str_eq(nnef_bundle_name(b, 1), "dir/c");
		size_t k;
		ck_assert(nnef_bundle_find(b, "a", &k) && k == 0 && !nnef_bundle_find(b, "b", &k));
		nnef_tensor *t = nnef_bundle_get(b, 0, ds);
		ck_assert(t && nnef_tensor_dtype(t) == NNEF_SCALAR && nnef_tensor_rank(t) == 2);
		ck_assert(nnef_tensor_scalars(t)[5] == 5 + 1.0 / 3); /* float64: exact */
		ck_assert_str_eq(nnef_tensor_file_type(t), "float64");
		nnef_tensor_free(t);
		t = nnef_bundle_read(b, "dir/c", ds);
		ck_assert(t && nnef_tensor_dtype(t) == NNEF_LOGICAL && nnef_tensor_logicals(t)[1]);
		nnef_tensor_free(t);
		ck_assert(nnef_bundle_read(b, "x", ds) == NULL);
		ck_assert_uint_eq(nnef_diags_count(ds), 1);
		ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1412");
		ck_assert_str_eq(nnef_diag_hint(nnef_diags_get(ds, 0)), "its arrays: 'a', 'dir/c'");
		nnef_diags_clear(ds);
		nnef_bundle_free(b);
		nnef_options o;
		nnef_options_init(&o);
		o.max_members = 1;
		ck_assert(nnef_bundle_open(path, &o, ds) == NULL);
		ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1411");
		nnef_diags_clear(ds);
	}
	/* one .npy, float32 by default; the same read back */
	const char *npy = tmp_path("a.npy");
	ck_assert(nnef_tensor_write(a, npy, NNEF_WRITE_NPY, ds));
	nnef_tensor *t = nnef_tensor_read(npy, 0, ds);
	ck_assert(t && nnef_tensor_scalars(t)[2] == (double)(float)(2 + 1.0 / 3));
	ck_assert_str_eq(nnef_tensor_file_type(t), "float32");
	nnef_tensor_free(t);
	/* an empty array is no tensor */
	unsigned char b[256];
	size_t n = make_npy(b, sizeof(b), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }", NULL, 0, 1, false);
	FILE *f = fopen(npy, "wb");
	fwrite(b, 1, n, f);
	fclose(f);
	ck_assert(nnef_tensor_read(npy, 0, ds) == NULL);
	ck_assert_str_eq(nnef_diag_code(nnef_diags_get(ds, 0)), "E1414");
	nnef_tensor_free(a);
	nnef_tensor_free(c);
	nnef_diags_free(ds);
}
END_TEST

/* A bundle from memory, its members read as streams: a byte of data
 * changed fails the CRC at the end of the member. */
START_TEST(bundle_memory_crc)
{
	nnef_diags *ds = nnef_diags_new();
	int64_t dims[] = { 64 };
	nnef_tensor *a = nnef_tensor_new(NNEF_INTEGER, dims, 1);
	for (int i = 0; i < 64; i++)
		nnef_tensor_integers(a)[i] = i * 1000003;
	const char *names[] = { "ints" };
	const nnef_tensor *ts[] = { a };
	const char *path = tmp_path("crc.npz");
	ck_assert(nnef_bundle_write(path, names, ts, 1, 0, ds));
	size_t len;
	char *z = read_whole(path, &len);
	for (int corrupt = 0; corrupt < 2; corrupt++) {
		if (corrupt)
			z[30 + 8 + 128 + 100] ^= 4; /* an item's byte */
		DiagList dl;
		diag_list_init(&dl, 0);
		NpzFile *f = npz_open_memory("m.npz", z, len, NULL, &dl);
		ck_assert(f && npz_count(f) == 1);
		ck_assert_str_eq(npz_member(f, 0), "m.npz/ints.npy");
		NpyHeader h;
		double sum = 0;
		ck_assert(npz_select(f, 0) && npy_read_stream(npz_read, f, npz_size(f, 0), npz_member(f, 0), &h, &dl));
		bool ok = npy_read_items(npz_read, f, &h, npz_member(f, 0), sum_put, &sum, &dl);
		ck_assert(ok == !corrupt);
		if (corrupt) {
			StrBuf t;
			sb_init(&t);
			DiagRenderOpts o = { .show_warnings = true };
			diag_render_all(&dl, &t, &o);
			ck_assert_str_eq(sb_str(&t), "error[E1408]: m.npz/ints.npy: the member fails its CRC check: its data is corrupt\n");
			sb_free(&t);
		}
		npz_close(f);
		diag_list_free(&dl);
	}
	free(z);
	nnef_tensor_free(a);
	nnef_diags_free(ds);
}
END_TEST

/* Each golden bundle of testsuite/golden/tensors opened from memory gives
 * the code its name starts with, at opening or reading. */
static bool golden_bundle(const char *path, void *ctx)
{
	(void)ctx;
	const char *base = strrchr(path, '/') + 1;
	char code[6] = { 0 };
	for (int i = 0; i < 5; i++)
		code[i] = (char)(i == 0 ? base[i] - 'a' + 'A' : base[i]);
	size_t len;
	char *z = read_whole(path, &len);
	DiagList dl;
	diag_list_init(&dl, 0);
	NpzFile *f = npz_open_memory(base, z, len, NULL, &dl);
	for (size_t i = 0; f && i < npz_count(f); i++) {
		NpyHeader h;
		double sum = 0;
		if (npz_select(f, i) && npy_read_stream(npz_read, f, npz_size(f, i), npz_member(f, i), &h, &dl))
			npy_read_items(npz_read, f, &h, npz_member(f, i), sum_put, &sum, &dl);
	}
	npz_close(f);
	bool found = false;
	for (size_t i = 0; i < dl.len; i++)
		found |= strcmp(diag_code_name(dl.items[i]->code), code) == 0;
	ck_assert_msg(found, "%s: no %s", base, code);
	diag_list_free(&dl);
	free(z);
	return true;
}

START_TEST(bundle_goldens)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/golden/tensors", test_srcdir());
	size_t bad = 0, n = test_each_entry(dir, ".npz", golden_bundle, NULL, &bad);
	ck_assert_uint_ge(n, 13);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* Open file descriptors of this process. */
static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/* Every allocation of writing, opening and reading a bundle made to fail
 * in turn: each call fails cleanly (NULL, false; E0008 when there is
 * room for it), leaves no file open, and the bundle is whole or absent. */
START_TEST(bundles_out_of_memory)
{
	int64_t dims[] = { 300 };
	nnef_tensor *a = nnef_tensor_new(NNEF_SCALAR, dims, 1);
	for (int i = 0; i < 300; i++)
		nnef_tensor_scalars(a)[i] = i;
	const char *names[] = { "a" };
	const nnef_tensor *ts[] = { a };
	char path[128];
	snprintf(path, sizeof(path), "%s", tmp_path("oom.npz"));
	int fds = open_fds();
	bool through = false;
	for (long n = 0; !through; n++) {
		unlink(path);
		nnef_diags *ds = nnef_diags_new();
		util_fail_after(n);
		bool wrote = nnef_bundle_write(path, names, ts, 1, NNEF_WRITE_DEFLATE, ds);
		nnef_bundle *b = wrote ? nnef_bundle_open(path, NULL, ds) : NULL;
		nnef_tensor *t = b ? nnef_bundle_get(b, 0, ds) : NULL;
		through = util_alloc_count() <= (unsigned long)n;
		util_fail_after(-1);
		ck_assert(access(path, F_OK) != 0 || wrote);
		ck_assert(t || !through);
		ck_assert(t == NULL || nnef_tensor_scalars(t)[299] == 299);
		nnef_tensor_free(t);
		nnef_bundle_free(b);
		nnef_diags_free(ds);
		ck_assert_int_eq(open_fds(), fds);
		ck_assert_int_lt(n, 100000);
	}
	nnef_tensor_free(a);
}
END_TEST

/* ---- the runner ------------------------------------------------------------------ */

/* A graph's inputs from a bundle (by name, others ignored), its outputs
 * written as one and compared: shapes up to trailing singletons; a type
 * that does not fit is E1303 naming the member. */
START_TEST(runner_bundles)
{
	static const char text[] = "version 1.0;\ngraph g(x, n) -> (y, z, w) {\n  x = external(shape = [2, 3]);\n  n = external<integer>(shape = [2]);\n  y = mul(x, 2.0);\n  z = copy(n);\n  w = gt(x, 1.0);\n}\n";
	nnef_options o;
	nnef_options_init(&o);
	nnef_model *m = nnef_model_load_text("g.nnef", text, strlen(text), &o);
	ck_assert(nnef_model_status(m) == NNEF_VALID);
	nnef_diags *ds = nnef_diags_new();
	nnef_runner *r = nnef_runner_new(m, NULL, ds);
	ck_assert(r);
	int64_t dx[] = { 2, 3, 1 }, dn[] = { 2 };
	nnef_tensor *x = nnef_tensor_new(NNEF_SCALAR, dx, 3), *nn = nnef_tensor_new(NNEF_INTEGER, dn, 1);
	nnef_tensor *f = nnef_tensor_new(NNEF_SCALAR, dn, 1);
	for (int i = 0; i < 6; i++)
		nnef_tensor_scalars(x)[i] = i * 0.5;
	nnef_tensor_integers(nn)[1] = 41;
	const char *names[] = { "x", "n", "other" };
	const nnef_tensor *ts[] = { x, nn, f };
	const char *in = tmp_path("in.npz"), *out = tmp_path("out.npz");
	ck_assert(nnef_bundle_write(in, names, ts, 3, 0, ds));
	nnef_bundle *b = nnef_bundle_open(in, NULL, ds);
	size_t k;
	for (size_t i = 0; i < nnef_runner_input_count(r); i++)
		ck_assert(nnef_bundle_find(b, nnef_runner_input_name(r, i), &k) && nnef_runner_bundle_input(r, i, b, k));
	ck_assert(nnef_runner_run(r));
	ck_assert(nnef_runner_write_bundle(r, NNEF_RUN_OUTPUTS, out, 0, ds));
	nnef_bundle *ob = nnef_bundle_open(out, NULL, ds);
	ck_assert(ob && nnef_bundle_count(ob) == 3);
	nnef_tensor *y = nnef_bundle_read(ob, "y", ds), *z = nnef_bundle_read(ob, "z", ds), *w = nnef_bundle_read(ob, "w", ds);
	ck_assert(y && z && w);
	ck_assert_str_eq(nnef_tensor_file_type(y), "float32");
	ck_assert_str_eq(nnef_tensor_file_type(z), "int64");
	ck_assert_str_eq(nnef_tensor_file_type(w), "bool8");
	ck_assert(nnef_tensor_scalars(y)[5] == 5.0 && nnef_tensor_integers(z)[1] == 41 && nnef_tensor_logicals(w)[3] && !nnef_tensor_logicals(w)[2]);
	/* the integer input from a float array, or one of another shape */
	ck_assert(!nnef_runner_bundle_input(r, 1, b, 2));
	ck_assert(!nnef_runner_bundle_input(r, 1, b, 0));
	ck_assert_uint_eq(nnef_diags_count(ds), 2);
	char want[512];
	snprintf(want, sizeof(want), "'%s/other.npy' holds float32 items, but the graph's input 'n' is integer", in);
	ck_assert_str_eq(nnef_diag_message(nnef_diags_get(ds, 0)), want);
	snprintf(want, sizeof(want), "'%s/x.npy' holds a tensor of shape [2,3,1], but the graph's input 'n' has shape [2]", in);
	ck_assert_str_eq(nnef_diag_message(nnef_diags_get(ds, 1)), want);
	nnef_tensor_free(y);
	nnef_tensor_free(z);
	nnef_tensor_free(w);
	nnef_bundle_free(b);
	nnef_bundle_free(ob);
	nnef_tensor_free(x);
	nnef_tensor_free(nn);
	nnef_tensor_free(f);
	nnef_runner_free(r);
	nnef_diags_free(ds);
	nnef_model_free(m);
}
END_TEST

/* ---- tract's Q4_0 conv of the corpus ----------------------------------------------- */

typedef struct Weights {
	DatHeader wh, bh;
	unsigned char w[4096];
	float bias[8];
	bool have_w, have_b;
} Weights;

static bool take_weights(void *ctx, Container *c, const ContMember *m)
{
	Weights *ws = ctx;
	bool w = strcmp(m->name, "weight.dat") == 0, b = strcmp(m->name, "bias.dat") == 0;
	if (!w && !b)
		return true;
	unsigned char buf[4096 + 128];
	size_t got = 0;
	for (long k; got < sizeof(buf) && (k = cont_read(c, buf + got, sizeof(buf) - got)) > 0;)
		got += (size_t)k;
	DiagList dl;
	diag_list_init(&dl, 0);
	ck_assert(dat_read_header(buf, got, got, m->name, false, w ? &ws->wh : &ws->bh, &dl));
	diag_list_free(&dl);
	if (w) {
		memcpy(ws->w, buf + 128, got - 128);
		ws->have_w = true;
	} else {
		memcpy(ws->bias, buf + 128, got - 128);
		ws->have_b = true;
	}
	return true;
}

/* An array of a bundle read whole into v (n floats at most). */
static size_t npz_floats(NpzFile *z, const char *name, float *v, size_t n,
			 DiagList *dl)
{
	size_t i;
	NpyHeader h;
	ck_assert(npz_find(z, name, &i) && npz_select(z, i));
	ck_assert(npy_read_stream(npz_read, z, npz_size(z, i), npz_member(z, i), &h, dl));
	ck_assert(h.dtype == DT_F32 && h.items <= n);
	ck_assert(npz_read(z, v, (size_t)h.data_bytes) == (long)h.data_bytes);
	return (size_t)h.items;
}

/* conv_base_kernel3: a 1-D conv, input [1,32,3], weights [2,32,3] in
 * Q4_0 (tract's order), bias [2], output [1,2,1]. The weights decoded
 * here give tract's outputs of io.npz to float rounding (GGML's nibble
 * order would be off by 7.6e-3 relative). */
START_TEST(corpus_q40_conv)
{
	const char *corpus = test_corpus();
	if (!corpus)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/tract-harness/conv-q40/conv_base_kernel3/model.nnef.tgz", corpus);
	DiagList dl;
	diag_list_init(&dl, 0);
	Container *c = cont_open(path, NULL, &dl);
	Weights ws = { .have_w = false };
	ck_assert(c && cont_scan(c, take_weights, &ws));
	cont_close(c);
	ck_assert(ws.have_w && ws.have_b && ws.wh.tract == DAT_TR_Q40);
	DatItem w[192];
	dat_decode(&ws.wh, ws.w, 0, 192, w);
	snprintf(path, sizeof(path), "%s/tract-harness/conv-q40/conv_base_kernel3/io.npz", corpus);
	NpzFile *z = npz_open(path, NULL, &dl);
	ck_assert(z);
	float x[96], y[2];
	ck_assert_uint_eq(npz_floats(z, "input_0", x, 96, &dl), 96);
	ck_assert_uint_eq(npz_floats(z, "output_0", y, 2, &dl), 2);
	npz_close(z);
	double num = 0, den = 0;
	for (int o = 0; o < 2; o++) {
		double s = ws.bias[o];
		for (int ci = 0; ci < 32; ci++)
			for (int k = 0; k < 3; k++)
				s += (double)x[ci * 3 + k] * w[(o * 32 + ci) * 3 + k].f;
		num += (s - y[o]) * (s - y[o]);
		den += (double)y[o] * y[o];
	}
	ck_assert_msg(sqrt(num / den) < 1e-6, "relative error %g", sqrt(num / den));
	ck_assert_uint_eq(dl.len, 0);
	diag_list_free(&dl);
}
END_TEST

Suite *npy_suite(void)
{
	Suite *s = suite_create("npy");
	TCase *tc = tcase_create("npy");
	tcase_add_test(tc, npy_headers_read);
	tcase_add_test(tc, npy_header_errors);
	tcase_add_test(tc, npy_items);
	tcase_add_test(tc, npy_written_as_numpy);
	tcase_add_test(tc, npy_streams);
	suite_add_tcase(s, tc);
	tc = tcase_create("npz");
	tcase_add_checked_fixture(tc, NULL, remove_tmp);
	tcase_add_test(tc, bundles_api);
	tcase_add_test(tc, bundle_memory_crc);
	tcase_add_test(tc, bundle_goldens);
	tcase_add_test(tc, bundles_out_of_memory);
	tcase_add_test(tc, runner_bundles);
	TEST_ADD_CORPUS(tc, corpus_q40_conv);
	suite_add_tcase(s, tc);
	return s;
}
