/*
 * nnef-datinfo - dump the headers, and optionally statistics, of NNEF
 * tensor files (spec 5.2, with tract's item types), given as .dat files or
 * as a model (spec 5.1: a directory, a .tar or a gzip-compressed .tar),
 * and of NumPy arrays: .npy files and the arrays of .npz bundles (files
 * are told apart by their first bytes).
 *
 * Every file's header is read and validated with dat_read_header (or
 * npy_read_header); a valid one becomes a row of a table (or an object of
 * a JSON document) on stdout, an invalid one diagnostics on stderr. With
 * --stats the data is streamed in chunks of whole items, so memory does
 * not depend on the size of a file; a model's members are read through
 * the container API, and a bundle's arrays through the .npz reader, never
 * extracted.
 * Unlike the other programs, this one is built on the library's internal
 * layers, not on nnef.h alone: datfile/ (dat_*, npy_*, npz_*), the
 * container reader (cont_*), diagnostics (diag_*), string buffers (sb_*)
 * and util_*. It reads tensor files item by item with their raw header
 * fields (bit widths, legacy item-type codes, quantization fields, a
 * .npy's descr) and walks a container member by member, none of which
 * nnef.h exposes: its tensors are whole decoded arrays, and its models
 * are checked as a whole.
 * Exit status: 0 every file valid (warnings allowed), 1 some file invalid
 * or unreadable, 2 usage error.
 */
#include "tools/common.h"

#include "datfile/datfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "nnef-datinfo"

static const ToolInfo tool = {
	.prog = PROG,
	.tool = T_DATINFO,
	.usage = "nnef-datinfo [OPTIONS] FILE...\nnnef-datinfo [OPTIONS] MODEL",
	.about = "Print the header of each NNEF tensor file: item type, bits, shape, data bytes and quantization. A FILE is an NNEF tensor file (.dat), a NumPy .npy file, or a NumPy .npz bundle, whose arrays are listed one by one (told apart by their first bytes). MODEL is a directory, a .tar or a .tgz; its tensor files (members ending in .dat) are listed by label.",
	.exits = "Exit status: 0 if every file is valid (warnings allowed), 1 if a tensor file is invalid, 2 on a usage error or a file or archive that cannot be read.",
};

/* Items decoded at a time; a multiple of 8, so that every chunk starts
 * on a byte whatever the width of an item. */
enum { CHUNK_ITEMS = 8192 };

/* Statistics of the real values of a file: count, min, max, mean and m2
 * (the sum of squared deviations from the mean) over the finite values;
 * NaN and infinities only counted. */
typedef struct Row {
	char *path;        /* as given, or the member's name in a model, or
			      "BUNDLE/NAME.npy" */
	char *label;       /* a model's member name without ".dat"; NULL */
	char *array;       /* a bundle's array name; NULL */
	bool npy;          /* a NumPy array: nh, not h */
	DatHeader h;
	NpyHeader nh;
	bool has_stats;    /* --stats and items that are numbers */
	UtilStats st;
} Row;

typedef struct Run {
	bool stats, json, lenient, quiet, color;
	ContLimits lim;
	DiagList diags;    /* every diagnostic of the run */
	size_t shown;      /* diagnostics written to stderr so far */
	bool model;        /* listing a model's members */
	bool bundle;       /* listing the arrays of one .npz */
	size_t ndat;       /* a model's members ending in .dat */
	Row *rows;
	size_t nrows;
} Run;

/* Where a tensor file's bytes come from: a file, a container's current
 * member or a bundle's selected array; the first bytes may already be in
 * pend (read with the header). */
typedef struct Source {
	FILE *fp;
	Container *c;
	NpzFile *z;
	const unsigned char *pend;
	size_t npend;
} Source;

/* ---- diagnostics ---------------------------------------------------------- */

/* Writes the diagnostics added since the last call to stderr. */
static void flush_diags(Run *r)
{
	DiagRenderOpts o = { .color = r->color,
			     .show_warnings = !r->quiet,
			     .show_source = true };
	StrBuf out;
	sb_init(&out);
	for (; r->shown < r->diags.len; r->shown++) {
		const Diag *d = r->diags.items[r->shown];
		if (d->level != DIAG_ERROR && !o.show_warnings)
			continue;
		if (!d->loc.file)
			sb_puts(&out, PROG ": ");
		diag_render(d, &out, &o);
	}
	fputs(sb_str(&out), stderr);
	sb_free(&out);
}

static Loc no_loc(void)
{
	return loc_make(NULL, 0, 0);
}

/* ---- reading --------------------------------------------------------------- */

/* Reads up to n bytes into buf, short only at the end; false after an
 * error (reported, naming name). */
static bool src_read(Run *r, Source *s, const char *name, unsigned char *buf,
		     size_t n, size_t *got)
{
	size_t done = 0;
	if (s->npend) {
		done = s->npend < n ? s->npend : n;
		memcpy(buf, s->pend, done);
		s->pend += done;
		s->npend -= done;
	}
	while (done < n) {
		if (s->fp) {
			size_t k = fread(buf + done, 1, n - done, s->fp);
			done += k;
			if (k == 0 && ferror(s->fp)) {
				diag_add(&r->diags, DIAG_E0001, no_loc(), "cannot read '%s': %s", name, strerror(errno));
				return false;
			}
			if (k == 0)
				break;
		} else {
			long k = s->z ? npz_read(s->z, buf + done, n - done) : cont_read(s->c, buf + done, n - done);
			if (k < 0)
				return false; /* reported by the container */
			if (k == 0)
				break;
			done += (size_t)k;
		}
	}
	*got = done;
	return true;
}

/* Streams the data of h from s in chunks of whole items into st; false
 * after an error (reported). */
static bool stream_stats(Run *r, Source *s, const char *name,
			 const DatHeader *h, UtilStats *st)
{
	uint64_t items = 0, chunk = 0;
	if (!dat_items(h, &items))
		return false; /* dat_read_header checked it */
	dat_packed_size(h, CHUNK_ITEMS, &chunk);
	unsigned char *buf = util_malloc((size_t)chunk);
	DatItem *it = util_malloc(CHUNK_ITEMS * sizeof(*it));
	double *val = util_malloc(CHUNK_ITEMS * sizeof(*val));
	uint64_t offset = 0;
	bool ok = true;
	for (uint64_t done = 0; ok && done < items;) {
		size_t n = items - done < CHUNK_ITEMS ? (size_t)(items - done)
						      : CHUNK_ITEMS;
		uint64_t bytes = 0;
		size_t got = 0;
		dat_packed_size(h, n, &bytes);
		ok = src_read(r, s, name, buf, (size_t)bytes, &got);
		if (ok && got < bytes) {
			diag_add(&r->diags, DIAG_E1009, no_loc(), "%s: the data ends after %llu of its %u bytes", name, (unsigned long long)(offset + got), (unsigned)h->data_length);
			ok = false;
		}
		if (!ok)
			break;
		dat_decode(h, buf, 0, n, it);
		for (size_t i = 0; i < n; i++)
			val[i] = dat_real(h, it[i]);
		util_stats_add(st, val, n);
		done += n;
		offset += bytes;
	}
	util_free(buf);
	util_free(it);
	util_free(val);
	return ok;
}

/* Checks the strings of a tract string tensor (size bytes after the
 * header) as they stream from s; false after an error (reported). */
static bool stream_strings(Run *r, Source *s, const char *name,
			   const DatHeader *h, uint64_t size)
{
	enum { CHUNK_BYTES = 65536 };
	unsigned char *buf = util_malloc(CHUNK_BYTES);
	DatStrings ds;
	dat_strings_begin(&ds, h);
	bool ok = true;
	for (uint64_t done = 0; ok && done < size; done += CHUNK_BYTES) {
		size_t n = size - done < CHUNK_BYTES ? (size_t)(size - done) : CHUNK_BYTES, got = 0;
		ok = src_read(r, s, name, buf, n, &got);
		if (ok && got < n) {
			diag_add(&r->diags, DIAG_E1009, no_loc(), "%s: the data ends after %llu of its %llu bytes", name, (unsigned long long)(done + got), (unsigned long long)size);
			ok = false;
		}
		ok = ok && dat_strings_feed(&ds, buf, n, name, &r->diags);
	}
	ok = ok && dat_strings_end(&ds, name, &r->diags);
	util_free(buf);
	return ok;
}

/* Adds row (its names copied), unless errors were reported since
 * `errors`. */
static void add_row(Run *r, Row *row, size_t errors, const char *path,
		    const char *label, const char *array)
{
	if (r->diags.nerrors != errors)
		return;
	row->path = util_strdup(path);
	row->label = label ? util_strdup(label) : NULL;
	row->array = array ? util_strdup(array) : NULL;
	r->rows = util_realloc(r->rows, (r->nrows + 1) * sizeof(*r->rows));
	r->rows[r->nrows++] = *row;
}

/* Reads and validates one tensor file of size bytes from s (its data too
 * with --stats); a valid one becomes a row. name is used in messages. */
static void inspect(Run *r, Source *s, const char *name, const char *path,
		    const char *label, uint64_t size)
{
	size_t errors = r->diags.nerrors;
	unsigned char head[DAT_OLD_HEADER_SIZE];
	size_t n = 0;
	if (!src_read(r, s, name, head, sizeof(head), &n))
		return;
	Row row = { .path = NULL };
	if (!dat_read_header(head, n, size, name, r->lenient, &row.h,
			     &r->diags))
		return;
	if (n > row.h.header_size) {
		s->pend = head + row.h.header_size;
		s->npend = n - row.h.header_size;
	}
	row.has_stats = r->stats && dat_decodable(&row.h);
	if (row.has_stats && !stream_stats(r, s, name, &row.h, &row.st))
		return;
	if (r->stats && row.h.tract == DAT_TR_STRING &&
	    !stream_strings(r, s, name, &row.h, size - row.h.header_size))
		return;
	add_row(r, &row, errors, path, label, NULL);
}

/* ---- NumPy arrays ---------------------------------------------------------- */

/* A Source as an NpyReadFn. */
typedef struct SrcReader {
	Run *r;
	Source *s;
	const char *name;
} SrcReader;

static long src_reader(void *ctx, void *buf, size_t n)
{
	SrcReader *sr = ctx;
	size_t got = 0;
	return src_read(sr->r, sr->s, sr->name, buf, n, &got) ? (long)got : -1;
}

typedef struct NpyStats {
	const NpyHeader *h;
	UtilStats *st;
} NpyStats;

static void npy_stats_put(void *ctx, uint64_t first, size_t n,
			  const DatItem *items)
{
	NpyStats *ns = ctx;
	double v[1024];
	(void)first;
	for (size_t at = 0; at < n; at += 1024) {
		size_t k = n - at < 1024 ? n - at : 1024;
		for (size_t i = 0; i < k; i++)
			v[i] = npy_real(ns->h, items[at + i]);
		util_stats_add(ns->st, v, k);
	}
}

/* Reads and validates one .npy of size bytes from s (its data too with
 * --stats); a valid one becomes a row. */
static void inspect_npy(Run *r, Source *s, const char *name,
			const char *array, uint64_t size)
{
	size_t errors = r->diags.nerrors;
	Row row = { .npy = true };
	SrcReader sr = { r, s, name };
	if (!npy_read_stream(src_reader, &sr, size, name, &row.nh, &r->diags))
		return;
	row.has_stats = r->stats;
	NpyStats ns = { &row.nh, &row.st };
	if (row.has_stats && !npy_read_items(src_reader, &sr, &row.nh, name, npy_stats_put, &ns, &r->diags))
		return;
	add_row(r, &row, errors, name, NULL, array);
}

/* Every array of the .npz at path. */
static void inspect_npz(Run *r, const char *path)
{
	NpzFile *z = npz_open(path, &r->lim, &r->diags);
	for (size_t i = 0; z && i < npz_count(z); i++) {
		Source s = { .z = z };
		if (npz_select(z, i))
			inspect_npy(r, &s, npz_member(z, i), npz_name(z, i), npz_size(z, i));
		flush_diags(r);
	}
	if (z && npz_count(z) == 0 && !r->quiet)
		fprintf(stderr, PROG ": %s: no arrays (no member is NAME.npy)\n", path);
	npz_close(z);
	flush_diags(r);
}

/* One file given on the command line: a .dat, a .npy or a .npz. */
static void inspect_file(Run *r, const char *path)
{
	FILE *fp = fopen(path, "rb");
	struct stat st;
	if (!fp || fstat(fileno(fp), &st) != 0) {
		diag_add(&r->diags, DIAG_E0001, no_loc(), "cannot read '%s': %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		diag_add(&r->diags, DIAG_E0001, no_loc(), "cannot read '%s': %s", path, strerror(EISDIR));
	} else {
		unsigned char magic[NPY_MAGIC_LEN];
		size_t n = fread(magic, 1, sizeof(magic), fp);
		rewind(fp);
		Source s = { .fp = fp };
		if (npy_is_npy(magic, n))
			inspect_npy(r, &s, path, NULL, (uint64_t)st.st_size);
		else if (npz_is_zip(magic, n))
			inspect_npz(r, path);
		else
			inspect(r, &s, path, path, NULL, (uint64_t)st.st_size);
	}
	if (fp)
		fclose(fp);
	flush_diags(r);
}

/* Visits a model's member: its tensor files become rows. */
static bool visit_member(void *ctx, Container *c, const ContMember *m)
{
	Run *r = ctx;
	size_t len = strlen(m->name);
	if (len < 4 || strcmp(m->name + len - 4, ".dat") != 0)
		return true;
	r->ndat++;
	StrBuf name, label;
	sb_init(&name);
	sb_init(&label);
	const char *base = cont_path(c);
	size_t blen = strlen(base);
	sb_puts(&name, base);
	if (blen == 0 || base[blen - 1] != '/')
		sb_putc(&name, '/');
	sb_puts(&name, m->name);
	sb_putn(&label, m->name, len - 4);
	if (m->type == MEMBER_LINK) {
		diag_add(&r->diags, DIAG_E0005, no_loc(), "%s: a link, not a tensor file; links are never followed", sb_str(&name));
	} else if (m->type == MEMBER_OTHER) {
		diag_add(&r->diags, DIAG_E0005, no_loc(), "%s: a special file (a device, a fifo...), not a tensor file", sb_str(&name));
	} else {
		Source s = { .c = c };
		inspect(r, &s, sb_str(&name), m->name, sb_str(&label), m->size);
	}
	sb_free(&name);
	sb_free(&label);
	flush_diags(r);
	return true;
}

/* ---- the table ------------------------------------------------------------- */

enum { NCOLS_BASE = 6, NCOLS_STATS = 6, NCOLS = NCOLS_BASE + NCOLS_STATS };

static const char *const col_title[NCOLS] = {
	"PATH", "TYPE", "BITS", "SHAPE", "BYTES", "QUANTIZATION",
	"MIN",  "MAX",  "MEAN", "STD",   "NAN",   "INF",
};
/* Numbers are aligned to the right. */
static const bool col_right[NCOLS] = {
	false, false, true, false, true, false,
	true,  true,  true, true,  true, true,
};

/* The shortest decimal form of a float that reads back as it. */
static void put_float(StrBuf *b, float f)
{
	char buf[40];
	for (int prec = 1; prec <= 9; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, (double)f);
		if (strtof(buf, NULL) == f)
			break;
	}
	sb_puts(b, buf);
}

static void put_shape(StrBuf *b, const Row *row)
{
	uint32_t rank = row->npy ? row->nh.rank : row->h.rank;
	sb_putc(b, '[');
	for (uint32_t i = 0; i < rank; i++)
		sb_printf(b, "%s%llu", i ? "," : "", (unsigned long long)(row->npy ? row->nh.extents[i] : row->h.extents[i]));
	sb_putc(b, ']');
}

static bool quantized(const Row *row)
{
	return !row->npy && (row->h.type == DAT_LINEAR || row->h.type == DAT_LOG);
}

/* The type's name, bits per item and bytes of data of a row. */
static const char *row_type(const Row *row, char tn[32])
{
	return row->npy ? npy_type_name(&row->nh) : dat_type_name(&row->h, tn);
}

static unsigned long long row_bits(const Row *row)
{
	return row->npy ? 8ull * row->nh.item_bytes : row->h.bits;
}

static unsigned long long row_bytes(const Row *row)
{
	return row->npy ? row->nh.data_bytes : row->h.data_length;
}

static double stats_std(const UtilStats *st)
{
	return sqrt(st->m2 / (double)st->count);
}

/* The cells of a row, each malloc'd. */
static void row_cells(const Run *r, const Row *row, char **cell)
{
	StrBuf b[NCOLS];
	for (int i = 0; i < NCOLS; i++)
		sb_init(&b[i]);
	const char *title = r->model ? row->label : r->bundle ? row->array : row->path;
	sb_put_escaped(&b[0], title, strlen(title));
	char tn[32];
	sb_puts(&b[1], row_type(row, tn));
	sb_printf(&b[2], "%llu", row_bits(row));
	put_shape(&b[3], row);
	sb_printf(&b[4], "%llu", row_bytes(row));
	if (quantized(row)) {
		sb_puts(&b[5], "min=");
		put_float(&b[5], row->h.qmin);
		sb_puts(&b[5], " max=");
		put_float(&b[5], row->h.qmax);
	} else {
		sb_putc(&b[5], '-');
	}
	const UtilStats *st = &row->st;
	bool vals = row->has_stats && st->count > 0;
	/* + 0.0: a minimum of -0 (a Q4_0 code 8 of a negative scale) is 0 */
	double v[4] = { st->min + 0.0, st->max + 0.0, st->mean, vals ? stats_std(st) : 0 };
	for (int i = 0; i < 4; i++) {
		if (!vals)
			sb_putc(&b[6 + i], '-');
		else if (i < 2 && v[i] == nearbyint(v[i]) && fabs(v[i]) < 0x1p53)
			sb_printf(&b[6 + i], "%.0f", v[i]); /* an integer item */
		else
			sb_printf(&b[6 + i], "%.7g", v[i]);
	}
	if (row->has_stats) {
		sb_printf(&b[10], "%llu", (unsigned long long)st->nan);
		sb_printf(&b[11], "%llu", (unsigned long long)st->inf);
	} else {
		sb_putc(&b[10], '-');
		sb_putc(&b[11], '-');
	}
	for (int i = 0; i < NCOLS; i++) {
		cell[i] = util_strdup(sb_str(&b[i]));
		sb_free(&b[i]);
	}
}

/* Writes one line of cells padded to the widths. */
static void print_line(char *const *cell, const size_t *width, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		size_t len = strlen(cell[i]);
		size_t pad = width[i] > len ? width[i] - len : 0;
		if (i)
			fputs("  ", stdout);
		if (col_right[i])
			printf("%*s", (int)pad, "");
		fputs(cell[i], stdout);
		if (!col_right[i] && i + 1 < ncols)
			printf("%*s", (int)pad, "");
	}
	putchar('\n');
}

static void print_table(const Run *r)
{
	int ncols = r->stats ? NCOLS : NCOLS_BASE;
	size_t nlines = r->nrows + 1;
	char **cells = util_calloc(nlines * NCOLS, sizeof(*cells));
	for (int i = 0; i < NCOLS; i++)
		cells[i] = util_strdup(col_title[i]);
	if (r->model || r->bundle) {
		util_free(cells[0]);
		cells[0] = util_strdup(r->model ? "LABEL" : "ARRAY");
	}
	for (size_t k = 0; k < r->nrows; k++)
		row_cells(r, &r->rows[k], cells + (k + 1) * NCOLS);
	size_t width[NCOLS] = { 0 };
	for (size_t k = 0; k < nlines; k++)
		for (int i = 0; i < ncols; i++) {
			size_t len = strlen(cells[k * NCOLS + i]);
			if (len > width[i])
				width[i] = len;
		}
	for (size_t k = 0; k < nlines; k++)
		print_line(cells + k * NCOLS, width, ncols);
	for (size_t k = 0; k < nlines * NCOLS; k++)
		util_free(cells[k]);
	util_free(cells);
}

/* ---- JSON -------------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s (of n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (len == 0 || len > n || s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	uint32_t cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string: quotes and backslashes escaped, control characters as
 * \u00XX, valid UTF-8 as it is, other bytes as U+FFFD. */
static void json_string(StrBuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	sb_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			sb_putc(b, '\\');
			sb_putc(b, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			sb_printf(b, "\\u%04x", c);
		} else if (c < 0x80) {
			sb_putc(b, (char)c);
		} else {
			size_t len = utf8_len(s + i, n - i);
			if (len == 0) {
				sb_puts(b, "\\ufffd");
				i++;
				continue;
			}
			sb_putn(b, str + i, len);
			i += len;
			continue;
		}
		i++;
	}
	sb_putc(b, '"');
}

static void json_stats(StrBuf *b, const UtilStats *st)
{
	bool vals = st->count > 0;
	sb_put_json_stats(b, vals ? st->min : NAN, vals ? st->max : NAN, vals ? st->mean : NAN,
			  vals ? stats_std(st) : NAN, st->count, st->nan, st->inf);
}

static void json_row(StrBuf *b, const Run *r, const Row *row)
{
	char tn[32];
	sb_puts(b, "{\"path\": ");
	json_string(b, row->path);
	if (row->label) {
		sb_puts(b, ", \"label\": ");
		json_string(b, row->label);
	}
	if (row->array) {
		sb_puts(b, ", \"array\": ");
		json_string(b, row->array);
	}
	sb_puts(b, ", \"type\": ");
	json_string(b, row_type(row, tn));
	DType dt = row->npy ? row->nh.dtype : row->h.dtype;
	sb_puts(b, ", \"dtype\": ");
	if (dt == DT_NONE)
		sb_puts(b, "null");
	else
		json_string(b, dtype_name(dt));
	if (row->npy) {
		sb_puts(b, ", \"descr\": ");
		json_string(b, row->nh.descr);
	}
	sb_printf(b, ", \"bits\": %llu, \"shape\": ", row_bits(row));
	put_shape(b, row);
	sb_printf(b, ", \"bytes\": %llu, \"quantization\": ", row_bytes(row));
	if (quantized(row)) {
		sb_puts(b, "{\"min\": ");
		sb_put_json_real(b, row->h.qmin);
		sb_puts(b, ", \"max\": ");
		sb_put_json_real(b, row->h.qmax);
		sb_putc(b, '}');
	} else {
		sb_puts(b, "null");
	}
	if (r->stats) {
		sb_puts(b, ", \"stats\": ");
		if (row->has_stats)
			json_stats(b, &row->st);
		else
			sb_puts(b, "null");
	}
	sb_putc(b, '}');
}

static void print_json(const Run *r)
{
	StrBuf b;
	sb_init(&b);
	/* "tool" and "version" as nnef-check's JSON has them */
	sb_printf(&b, "{\n  \"tool\": \"nnefkit\",\n  \"version\": \"%s\",\n  \"files\": [", nnef_version());
	for (size_t k = 0; k < r->nrows; k++) {
		sb_puts(&b, k ? ",\n    " : "\n    ");
		json_row(&b, r, &r->rows[k]);
	}
	sb_printf(&b, "%s],\n  \"errors\": %zu\n}\n", r->nrows ? "\n  " : "", r->diags.nerrors + r->diags.dropped_errors);
	fputs(sb_str(&b), stdout);
	sb_free(&b);
}

/* ---- options and paths ----------------------------------------------------- */

typedef struct Opts {
	Run *r;
	CommonArgs common;
} Opts;

static const char *set_option(void *ctx, OptId id, char *arg)
{
	Opts *o = ctx;
	switch (id) {
	case OPT_STATS_DAT:
		o->r->stats = true;
		return NULL;
	case OPT_FORMAT_DAT:
		if (strcmp(arg, "text") != 0 && strcmp(arg, "json") != 0)
			return "must be text or json";
		o->r->json = strcmp(arg, "json") == 0;
		return NULL;
	default:
		return "is not an option of nnef-datinfo";
	}
}

/* 2 when a file or archive could not be read (as for nnef-check; a .npz
 * that is corrupt or has a member of a forbidden or repeated name, as a
 * tar archive), 1 when a tensor file is invalid, a link stands where one
 * is expected or an archive is beyond a limit, 0 otherwise. */
static int exit_status(const Run *r)
{
	for (size_t i = 0; i < r->diags.len; i++) {
		const Diag *d = r->diags.items[i];
		bool npz = d->code == DIAG_E1408 || d->code == DIAG_E1409 || d->code == DIAG_E1410;
		if (d->level == DIAG_ERROR && (diag_code_unreadable(d->code) || npz))
			return 2;
	}
	return r->diags.nerrors + r->diags.dropped_errors ? 1 : 0;
}

/* Whether path is a model (a directory or an archive); a path that does
 * not open is not. */
static bool is_model(const Run *r, const char *path)
{
	DiagList scratch;
	diag_list_init(&scratch, 0);
	Container *c = cont_open(path, &r->lim, &scratch);
	bool model = c && cont_kind(c) != CONT_FILE;
	cont_close(c);
	diag_list_free(&scratch);
	return model;
}

/* Member paths in the order a directory lists them: folder by folder,
 * names by strcmp (a '/' sorts before any other character). */
static int cmp_rows(const void *a, const void *b)
{
	const unsigned char *p = (const unsigned char *)((const Row *)a)->path;
	const unsigned char *q = (const unsigned char *)((const Row *)b)->path;
	for (; *p && *p == *q; p++, q++)
		;
	int x = *p == '/' ? 1 : *p, y = *q == '/' ? 1 : *q;
	return x - y;
}

/* The one path given: a model's .dat members (listed as a directory's
 * are, whatever order an archive holds them in), or a .dat file. */
static void inspect_path(Run *r, const char *path)
{
	Container *c = cont_open(path, &r->lim, &r->diags);
	r->model = c && cont_kind(c) != CONT_FILE;
	size_t first = r->nrows;
	if (r->model && cont_scan(c, visit_member, r) && r->ndat == 0 &&
	    !r->quiet)
		fprintf(stderr, PROG ": %s: no tensor files (no member ends in .dat)\n", path);
	if (r->model && r->nrows > first)
		qsort(r->rows + first, r->nrows - first, sizeof(*r->rows), cmp_rows);
	cont_close(c);
	flush_diags(r);
	if (!c || r->model)
		return;
	/* a .npz alone lists its arrays by name */
	unsigned char magic[4];
	FILE *fp = fopen(path, "rb");
	size_t n = fp ? fread(magic, 1, sizeof(magic), fp) : 0;
	if (fp)
		fclose(fp);
	r->bundle = npz_is_zip(magic, n);
	inspect_file(r, path);
}

static int run(int argc, char **argv, Run *r)
{
	Opts o = { .r = r };
	tool_common_init(&o.common);
	int first, status = tool_parse_args(&tool, argc, argv, &o.common, set_option, &o, &first);
	r->quiet = o.common.quiet;
	r->lenient = o.common.opt.lenient;
	r->color = tool_use_color(o.common.color, stderr);
	r->lim.max_bytes = o.common.opt.max_archive_bytes;
	r->lim.max_member = o.common.opt.max_member_bytes;
	r->lim.max_members = o.common.opt.max_members;
	tool_common_free(&o.common);
	if (status >= 0)
		return status;
	int npaths = argc - first;
	if (npaths == 0)
		return tool_usage_error(&tool, "no file given");
	for (int i = first; npaths > 1 && i < argc; i++)
		if (is_model(r, argv[i])) {
			return tool_usage_error(&tool, "'%s' is a model; give one model alone, or .dat files", argv[i]);
		}
	if (npaths == 1)
		inspect_path(r, argv[first]);
	else
		for (int i = first; i < argc; i++)
			inspect_file(r, argv[i]);
	if (r->json)
		print_json(r);
	else if (r->nrows)
		print_table(r);
	return exit_status(r);
}

int main(int argc, char **argv)
{
	/* this program uses the library's insides (datfile/): a failed
	 * allocation comes back here, its files closed (see util.h) */
	UtilHeap heap;
	util_heap_init(&heap);
	UtilRecover rec;
	util_recover_push(&rec, &heap);
	if (setjmp(rec.jb)) {
		fputs(PROG ": error[E0008]: out of memory\n", stderr);
		util_heap_release(&heap);
		return tool_finish(PROG, 2);
	}
	Run r = { .stats = false };
	diag_list_init(&r.diags, 0);
	int status = run(argc, argv, &r);
	for (size_t i = 0; i < r.nrows; i++) {
		util_free(r.rows[i].path);
		util_free(r.rows[i].label);
		util_free(r.rows[i].array);
	}
	util_free(r.rows);
	diag_list_free(&r.diags);
	util_recover_pop(&rec);
	util_heap_release(&heap);
	return tool_finish(PROG, status);
}
