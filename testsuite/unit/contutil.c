/*
 * contutil.c - the helpers of the container tests (contutil.h): tar
 * archives built in memory, temporary files, scanning a container while
 * recording what each member gave, and the expectations on the record.
 */
#include "contutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- bytes ---------------------------------------------------------------- */

/* Appends n bytes of src (NULL: zeros). */
void bytes_put(Bytes *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		b->p = util_realloc(b->p, cap);
		b->cap = cap;
	}
	if (n && src)
		memcpy(b->p + b->len, src, n);
	else if (n)
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void bytes_str(Bytes *b, const char *s)
{
	bytes_put(b, s, strlen(s));
}

void bytes_free(Bytes *b)
{
	util_free(b->p);
	memset(b, 0, sizeof(*b));
}

/* 1 MiB of deterministic, incompressible bytes (xorshift). */
const unsigned char *pat(void)
{
	static unsigned char buf[1 << 20];
	static bool done;
	if (!done) {
		uint32_t x = 0x9E3779B9u;
		for (size_t i = 0; i < sizeof(buf); i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[i] = (unsigned char)x;
		}
		done = true;
	}
	return buf;
}

const char GRAPH[] =
	"version 1.0;\n\n"
	"graph G( input ) -> ( output )\n{\n"
	"\tinput = external(shape = [1, 3]);\n"
	"\tw = variable(shape = [1, 3], label = 'conv1/filter');\n"
	"\toutput = add(input, w);\n}\n";

/* ---- tar headers -------------------------------------------------------------- */

static void put_field(unsigned char *f, size_t n, const char *s)
{
	size_t k = strlen(s);
	memcpy(f, s, k < n ? k : n);
}

/* digits octal digits of v, then a NUL. */
void put_octal(unsigned char *f, size_t digits, uint64_t v)
{
	for (size_t i = digits; i-- > 0; v >>= 3)
		f[i] = (unsigned char)('0' + (v & 7));
	f[digits] = '\0';
}

void put_header(Bytes *b, const Hdr *h)
{
	unsigned char blk[BLK] = { 0 };
	put_field(blk, 100, h->name);
	put_octal(blk + 100, 7, 0644);
	put_octal(blk + 108, 7, 1000);
	put_octal(blk + 116, 7, 1000);
	if (h->form == SIZE_OCTAL) {
		put_octal(blk + 124, 11, h->size);
	} else if (h->form == SIZE_BASE256) {
		blk[124] = 0x80;
		for (int i = 0; i < 8; i++)
			blk[135 - i] = (unsigned char)(h->size >> (8 * i));
	} else {
		memcpy(blk + 124, h->raw, 12);
	}
	memcpy(blk + 136, h->mtime ? h->mtime : "14712345670", 12);
	blk[156] = (unsigned char)(h->type ? h->type : '0');
	if (h->linkname)
		put_field(blk + 157, 100, h->linkname);
	if (!h->v7) {
		memcpy(blk + 257, "ustar", 6);
		memcpy(blk + 263, "00", 2);
		put_field(blk + 265, 32, "nnef");
		put_field(blk + 297, 32, "nnef");
	}
	if (h->prefix)
		put_field(blk + 345, 155, h->prefix);
	memset(blk + 148, ' ', 8);
	unsigned long sum = 0;
	for (int i = 0; i < BLK; i++)
		sum += blk[i];
	sum = (unsigned long)((long)sum + h->sum_delta);
	put_octal(blk + 148, 6, sum);
	blk[155] = ' ';
	bytes_put(b, blk, BLK);
}

static void put_pad(Bytes *b)
{
	bytes_put(b, NULL, (BLK - b->len % BLK) % BLK);
}

/* Data then zeros up to the next block. */
void put_data(Bytes *b, const void *data, size_t n)
{
	bytes_put(b, data, n);
	put_pad(b);
}

void put_file(Bytes *b, const char *name, const void *data, size_t n)
{
	Hdr h = { .name = name, .size = n };
	put_header(b, &h);
	put_data(b, data, n);
}

void put_dir(Bytes *b, const char *name)
{
	Hdr h = { .name = name, .type = '5' };
	put_header(b, &h);
}

/* The two zero blocks that end an archive. */
void put_end(Bytes *b)
{
	bytes_put(b, NULL, 2 * BLK);
}

/* A GNU long name ('L') or long link ('K') entry: n bytes of name, and a
 * NUL counted in the size when nul is true. */
void put_long(Bytes *b, char type, const char *name, size_t n, bool nul)
{
	Hdr h = { .name = "././@LongLink", .type = type,
		  .size = n + (nul ? 1 : 0) };
	put_header(b, &h);
	bytes_put(b, name, n);
	if (nul)
		bytes_put(b, NULL, 1);
	put_pad(b);
}

/* One pax record "LEN key=value\n", LEN counting itself. */
void pax_record(Bytes *rec, const char *key, const char *val, size_t vlen)
{
	size_t body = 1 + strlen(key) + 1 + vlen + 1;
	size_t len = body + 1;
	char num[32];
	for (;;) {
		int d = snprintf(num, sizeof(num), "%zu", len);
		if ((size_t)d + body == len)
			break;
		len = (size_t)d + body;
	}
	bytes_str(rec, num);
	bytes_str(rec, " ");
	bytes_str(rec, key);
	bytes_str(rec, "=");
	bytes_put(rec, val, vlen);
	bytes_str(rec, "\n");
}

/* A pax extended header ('x', or 'g' for a global one) holding records. */
void put_pax(Bytes *b, char type, const void *records, size_t n)
{
	Hdr h = { .name = "PaxHeaders.0/member", .type = type, .size = n };
	put_header(b, &h);
	put_data(b, records, n);
}

/* A small model: graph.nnef, a label folder, .dat files (one empty, one
 * with ".." inside a name part, which is an ordinary name). */
void model_tar(Bytes *b, bool end)
{
	put_file(b, "graph.nnef", GRAPH, strlen(GRAPH));
	put_dir(b, "conv1/");
	put_file(b, "conv1/filter.dat", pat(), 1000);
	put_file(b, "conv1/bias.dat", NULL, 0);
	put_file(b, "conv1/odd..name.dat", pat() + 5000, 512);
	if (end)
		put_end(b);
}

/* Members around the 256 KiB stream buffer, and one bigger than it (a
 * plain tar skips it by seeking). */
void big_members(Bytes *b)
{
	put_file(b, "a.dat", pat(), 3000);
	put_file(b, "big.dat", pat() + 1, 600000);
	put_file(b, "b.dat", pat() + 7, 700);
	put_file(b, "c.dat", pat() + 3, 262144 - 1024);
	put_end(b);
}

/* ---- files ------------------------------------------------------------------------ */

static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

/* A folder holding a test case's temporary files, made and removed by
 * the parent process (an unchecked fixture), so that nothing is left
 * behind when a test dies before its own cleanup. */
static char *tmp_root;

static char *tmp_template(void)
{
	StrBuf p;
	sb_init(&p);
	sb_printf(&p, "%s/nnefkit-cont-XXXXXX", tmp_root ? tmp_root : tmp_dir());
	char *path = util_strdup(sb_str(&p));
	sb_free(&p);
	return path;
}

/* Writes n bytes to a new temporary file, through gzip when gz; returns
 * its path (free it, unlink the file). */
static char *write_temp(const void *data, size_t n, bool gz)
{
	char *path = tmp_template();
	int fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
	if (gz) {
		gzFile g = gzdopen(fd, "wb9");
		ck_assert_ptr_nonnull(g);
		for (size_t done = 0; done < n;) {
			unsigned k = n - done > (1u << 20) ? 1u << 20 : (unsigned)(n - done);
			ck_assert_int_eq(gzwrite(g, (const char *)data + done, k), (int)k);
			done += k;
		}
		ck_assert_int_eq(gzclose(g), Z_OK);
		return path;
	}
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, (const char *)data + done, n - done);
		ck_assert_msg(w > 0, "write %s: %s", path, strerror(errno));
		done += (size_t)w;
	}
	ck_assert_int_eq(close(fd), 0);
	return path;
}

static void read_all(const char *path, Bytes *out)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	unsigned char buf[4096];
	size_t k;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		bytes_put(out, buf, k);
	fclose(f);
}

/* The gzip (zlib's gzwrite) of in. */
void gzip_of(const Bytes *in, Bytes *out)
{
	char *path = write_temp(in->p, in->len, true);
	read_all(path, out);
	unlink(path);
	util_free(path);
}

char *make_temp_dir(void)
{
	char *path = tmp_template();
	ck_assert_msg(mkdtemp(path) != NULL, "mkdtemp: %s", strerror(errno));
	return path;
}

static char *join(const char *dir, const char *rel)
{
	StrBuf p;
	sb_init(&p);
	sb_printf(&p, "%s/%s", dir, rel);
	char *s = util_strdup(sb_str(&p));
	sb_free(&p);
	return s;
}

void file_at(const char *dir, const char *rel, const void *data, size_t n)
{
	char *p = join(dir, rel);
	FILE *f = fopen(p, "wb");
	ck_assert_msg(f != NULL, "create %s: %s", p, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
	util_free(p);
}

void dir_at(const char *dir, const char *rel)
{
	char *p = join(dir, rel);
	ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
	util_free(p);
}

void link_at(const char *dir, const char *rel, const char *target)
{
	char *p = join(dir, rel);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
	util_free(p);
}

/* rm -r, never following links. */
void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *sub = join(path, e->d_name);
			remove_tree(sub);
			util_free(sub);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

void root_setup(void)
{
	tmp_root = NULL;
	char *path = tmp_template();
	if (mkdtemp(path))
		tmp_root = path;
	else
		util_free(path);
}

void root_teardown(void)
{
	if (tmp_root)
		remove_tree(tmp_root);
	util_free(tmp_root);
	tmp_root = NULL;
}

/* ---- scanning ------------------------------------------------------------------- */

static bool visit(void *ctx, Container *c, const ContMember *cm)
{
	Run *r = ctx;
	r->m = util_realloc(r->m, (r->n + 1) * sizeof(*r->m));
	Member *m = &r->m[r->n++];
	memset(m, 0, sizeof(*m));
	m->name = util_strdup(cm->name);
	m->type = cm->type;
	m->size = cm->size;
	m->last = 1;
	size_t chunk = r->chunk ? r->chunk : 4096;
	unsigned char *buf = util_malloc(chunk);
	size_t want = r->mode == READ_ALL ? SIZE_MAX : r->mode == READ_SOME ? r->some : 0;
	if (cm->type != MEMBER_FILE)
		want = chunk; /* a link's data must never be given */
	while (m->data.len < want) {
		size_t k = want - m->data.len < chunk ? want - m->data.len : chunk;
		long got = cont_read(c, buf, k);
		m->last = got;
		if (got <= 0)
			break;
		ck_assert_uint_le((size_t)got, k);
		bytes_put(&m->data, buf, (size_t)got);
	}
	util_free(buf);
	return !(r->stop_after && r->n >= r->stop_after);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* VmPeak of this process in kB, or -1 (no /proc). */
static long vm_peak_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPeak: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

void run_path(Run *r, const char *path)
{
	diag_list_init(&r->diags, 0);
	long vm0 = vm_peak_kb();
	double t0 = now();
	Container *c = cont_open(path, &r->lim, &r->diags);
	r->opened = c != NULL;
	if (c) {
		r->kind = cont_kind(c);
		ck_assert_str_eq(cont_path(c), path);
		r->ok = cont_scan(c, visit, r);
		cont_close(c);
	}
	r->seconds = now() - t0;
	long vm1 = vm_peak_kb();
	r->vm_growth_kb = vm0 >= 0 && vm1 >= 0 ? vm1 - vm0 : -1;
}

/* Writes the archive (gzip-compressed when gz), opens and scans it. */
void run_bytes(Run *r, const void *data, size_t n, bool gz)
{
	char *path = write_temp(data, n, gz);
	run_path(r, path);
	unlink(path);
	util_free(path);
}

void run_free(Run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		util_free(r->m[i].name);
		bytes_free(&r->m[i].data);
	}
	util_free(r->m);
	diag_list_free(&r->diags);
}

/* ---- expectations --------------------------------------------------------------- */

/* Every diagnostic, for failure messages (static buffer). */
const char *diags_text(const Run *r)
{
	static char buf[4096];
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < r->diags.len && at < sizeof(buf) - 1; i++) {
		const Diag *d = r->diags.items[i];
		int k = snprintf(buf + at, sizeof(buf) - at, "[%s %s] ",
				 diag_code_name(d->code), d->msg);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	if (at == 0)
		snprintf(buf, sizeof(buf), "(no diagnostics; %zu members visited)", r->n);
	return buf;
}

/* Case-insensitive search of one of the '|'-separated words. */
bool has_word(const char *msg, const char *words)
{
	const char *w = words;
	while (*w) {
		size_t wl = strcspn(w, "|");
		for (const char *p = msg; *p; p++) {
			size_t i = 0;
			while (i < wl && p[i] &&
			       (p[i] | 0x20) == (w[i] | 0x20))
				i++;
			if (i == wl)
				return true;
		}
		w += wl + (w[wl] == '|');
	}
	return false;
}

/* A clean success listing n members. */
void expect_ok(const Run *r, ContKind kind, size_t n)
{
	ck_assert_msg(r->opened, "not opened: %s", diags_text(r));
	ck_assert_msg(r->ok, "refused: %s", diags_text(r));
	ck_assert_msg(r->diags.nerrors == 0, "errors: %s", diags_text(r));
	ck_assert_int_eq(r->kind, kind);
	ck_assert_msg(r->n == n, "%zu members visited, %zu expected; %s", r->n, n, diags_text(r));
}

/* A clean refusal: an error with this code whose message holds one of
 * the words (and the archive's name, which every message carries). */
void expect_fail(const Run *r, DiagCode code, const char *words)
{
	ck_assert_msg(!r->ok, "accepted (%zu members): %s", r->n, diags_text(r));
	ck_assert_msg(r->diags.nerrors >= 1, "refused without an error");
	const Diag *hit = NULL;
	for (size_t i = 0; i < r->diags.len && !hit; i++)
		if (r->diags.items[i]->code == code)
			hit = r->diags.items[i];
	ck_assert_msg(hit != NULL, "no %s among: %s", diag_code_name(code), diags_text(r));
	ck_assert_msg(has_word(hit->msg, words), "message '%s' names none of '%s'", hit->msg, words);
	ck_assert_msg(has_word(hit->msg, "nnefkit-cont-"), "message '%s' does not name the archive", hit->msg);
}

void expect_member(const Run *r, size_t i, const char *name,
			  ContMemberType type, uint64_t size)
{
	ck_assert_uint_lt(i, r->n);
	const Member *m = &r->m[i];
	ck_assert_str_eq(m->name, name);
	ck_assert_msg(m->type == type, "'%s': type %d, %d expected", name, (int)m->type, (int)type);
	ck_assert_msg(m->size == size, "'%s': size %llu, %llu expected", name, (unsigned long long)m->size, (unsigned long long)size);
}

/* The data read back is exactly data[0..n), and reading ended with 0. */
void expect_data(const Run *r, size_t i, const void *data, size_t n)
{
	ck_assert_uint_lt(i, r->n);
	const Member *m = &r->m[i];
	ck_assert_msg(m->data.len == n, "'%s': %zu bytes read, %zu expected", m->name, m->data.len, n);
	if (n == 0 || memcmp(m->data.p, data, n) == 0)
		return;
	size_t k = 0;
	while (m->data.p[k] == ((const unsigned char *)data)[k])
		k++;
	ck_abort_msg("'%s': byte %zu differs", m->name, k);
}

/* A link or special member: its data never given. */
void expect_no_data(const Run *r, size_t i)
{
	ck_assert_uint_lt(i, r->n);
	ck_assert_msg(r->m[i].data.len == 0 && r->m[i].last <= 0, "'%s': data read from a link", r->m[i].name);
}

/* Scans one archive built in memory and expects a refusal. */
void refuse_bytes(const Bytes *b, bool gz, ReadMode mode, DiagCode code,
			 const char *words)
{
	Run r = { .mode = mode };
	run_bytes(&r, b->p, b->len, gz);
	expect_fail(&r, code, words);
	run_free(&r);
}
