/*
 * npz.c - NumPy's .npz bundles (numpy.savez): a zip archive whose members
 * NAME.npy are arrays, read with libzip and never extracted, and written
 * through libzip in memory, then to a temporary file renamed when
 * complete.
 *
 * Reading trusts nothing the archive declares before it is checked: the
 * central directory is listed first and every entry checked (its name
 * must stay inside the archive and appear once; stored or deflated,
 * not encrypted; its declared size within --max-member-bytes, the sum
 * within --max-archive-bytes, the count within --max-members, and the
 * ratio of declared to compressed bytes within what deflate can give,
 * 1032 to 1: more is a zip bomb's lie). A member is then read as a
 * stream, never more than it declares: the reader asks for one byte
 * past the declared end, which must not come, and libzip checks the
 * CRC at the end of the data.
 */
#include "datfile/codec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

/* The most bytes deflate can make of one (a 258-byte match in about two
 * bits), with room for a small member's overhead. */
#define DEFLATE_MAX_RATIO 1032
#define DEFLATE_SLACK 1024

typedef struct NpzArray {
	char *name;        /* the member's name without ".npy" */
	char *member;      /* "PATH/MEMBER", for messages */
	uint64_t index;    /* in the archive */
	uint64_t size;     /* declared, uncompressed */
} NpzArray;

struct NpzFile {
	char *path;
	zip_t *za;
	zip_source_t *spare; /* a reference to the archive's source, while
				 the archive is opened a second time */
	int fd;              /* the file, until libzip has it; else -1 */
	ContLimits lim;
	DiagList *diags;
	NpzArray *arrays;
	size_t n;
	/* the selected array */
	zip_file_t *cur;
	size_t sel;
	uint64_t done;     /* its bytes read */
	UtilCleanup cl;    /* closes the archive when an allocation fails */
};

bool npz_is_zip(const unsigned char *bytes, size_t n)
{
	/* a local file header, or the end record of an empty archive */
	return n >= 4 && bytes[0] == 'P' && bytes[1] == 'K' &&
	       ((bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6));
}

/* What libzip's error code means for an archive or a member. */
static const char *zip_why(int code, zip_error_t *ze)
{
	switch (code) {
	case ZIP_ER_CRC:
		return "fails its CRC check: its data is corrupt";
	case ZIP_ER_INCONS:
		return "is inconsistent: its headers, names or sizes disagree";
	case ZIP_ER_ZLIB:
		return "holds deflated data that does not decompress";
	case ZIP_ER_EOF:
	case ZIP_ER_READ:
		return "is cut short";
	case ZIP_ER_NOZIP:
		return "is cut short, or is not a zip archive as a .npz must be: it has no end of central directory record";
	case ZIP_ER_COMPNOTSUPP:
		return "uses a compression method other than stored or deflated";
	case ZIP_ER_ENCRNOTSUPP:
	case ZIP_ER_NOPASSWD:
		return "is encrypted";
	case ZIP_ER_MULTIDISK:
		return "spans several disks";
	case ZIP_ER_MEMORY:
		return "needs more memory than there is";
	default:
		return ze ? zip_error_strerror(ze) : "cannot be read";
	}
}

/* ---- opening --------------------------------------------------------------------- */

/* Closes what z has open, frees nothing (also what util_oom runs). */
static void release(void *arg)
{
	NpzFile *z = arg;
	if (z->cur)
		zip_fclose(z->cur);
	z->cur = NULL;
	if (z->za)
		zip_discard(z->za);
	z->za = NULL;
	zip_source_free(z->spare);
	z->spare = NULL;
	if (z->fd >= 0)
		close(z->fd);
	z->fd = -1;
}

void npz_close(NpzFile *z)
{
	if (!z)
		return;
	util_cleanup_pop(&z->cl);
	release(z);
	for (size_t i = 0; i < z->n; i++) {
		util_free(z->arrays[i].name);
		util_free(z->arrays[i].member);
	}
	util_free(z->arrays);
	util_free(z->path);
	util_free(z);
}

static NpzFile *npz_new(const char *path, const ContLimits *limits,
			DiagList *diags)
{
	NpzFile *z = util_calloc(1, sizeof(*z));
	z->fd = -1;
	util_cleanup_push(&z->cl, release, z);
	z->path = util_strdup(path);
	z->diags = diags;
	if (limits)
		z->lim = *limits;
	if (!z->lim.max_bytes)
		z->lim.max_bytes = CONT_DEFAULT_MAX_BYTES;
	if (!z->lim.max_member)
		z->lim.max_member = CONT_DEFAULT_MAX_MEMBER;
	if (!z->lim.max_members)
		z->lim.max_members = CONT_DEFAULT_MAX_MEMBERS;
	return z;
}

/* Whether name stays inside the archive: not absolute, no ".." part
 * ('/' and '\' both separate parts). */
static bool name_inside(const char *name)
{
	if (name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':'))
		return false;
	for (const char *p = name; *p;) {
		size_t len = strcspn(p, "/\\");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += len + (p[len] != '\0');
	}
	return true;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first name of names[0..n) that appears twice, or NULL. */
static const char *twice(char **names, size_t n)
{
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 1; i < n; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			return names[i];
	return NULL;
}

/* Checks entry i of the directory (st) against the rules and the limits;
 * false after an error. *total: the declared bytes so far. */
static bool check_entry(NpzFile *z, const zip_stat_t *st, uint64_t *total)
{
	StrBuf shown;
	sb_init(&shown);
	sb_put_escaped(&shown, st->name, strlen(st->name));
	const char *nm = sb_str(&shown);
	bool ok = false;
	if (!name_inside(st->name))
		dat_fail(z->diags, DIAG_E1409, z->path, "member '%s' has an absolute name or a '..' part; a .npz's members stay inside it", nm);
	else if (st->encryption_method != ZIP_EM_NONE)
		dat_fail(z->diags, DIAG_E1408, z->path, "member '%s' is encrypted", nm);
	else if (st->comp_method != ZIP_CM_STORE && st->comp_method != ZIP_CM_DEFLATE)
		dat_fail(z->diags, DIAG_E1408, z->path, "member '%s' is compressed with method %d; nnefkit reads stored (0) and deflated (8) members", nm, (int)st->comp_method);
	else if (st->comp_method == ZIP_CM_STORE && st->comp_size != st->size)
		dat_fail(z->diags, DIAG_E1408, z->path, "member '%s' is stored, yet declares %llu bytes in %llu", nm, (unsigned long long)st->size, (unsigned long long)st->comp_size);
	else if (st->size > z->lim.max_member)
		dat_fail(z->diags, DIAG_E1411, z->path, "member '%s' declares %llu bytes, more than the limit of %llu (raise it with --max-member-bytes)", nm, (unsigned long long)st->size, (unsigned long long)z->lim.max_member);
	else if (st->size / DEFLATE_MAX_RATIO > st->comp_size + DEFLATE_SLACK)
		dat_fail(z->diags, DIAG_E1411, z->path, "member '%s' declares %llu bytes from %llu compressed bytes, more than deflate can give (at most 1032 to 1): a zip bomb?", nm, (unsigned long long)st->size, (unsigned long long)st->comp_size);
	else if ((*total += st->size) > z->lim.max_bytes)
		dat_fail(z->diags, DIAG_E1411, z->path, "its members declare more than %llu bytes in all (raise the limit with --max-archive-bytes)", (unsigned long long)z->lim.max_bytes);
	else
		ok = true;
	sb_free(&shown);
	return ok;
}

/* Adds entry st as an array when it is NAME.npy; warns otherwise. */
static void add_entry(NpzFile *z, const zip_stat_t *st)
{
	size_t len = strlen(st->name);
	if (len < 4 || strcmp(st->name + len - 4, ".npy") != 0) {
		StrBuf shown;
		sb_init(&shown);
		sb_put_escaped(&shown, st->name, len);
		dat_fail(z->diags, DIAG_W1413, z->path, "member '%s' is not an array (NAME.npy): left out", sb_str(&shown));
		sb_free(&shown);
		return;
	}
	z->arrays = util_realloc(z->arrays, (z->n + 1) * sizeof(*z->arrays));
	NpzArray *a = &z->arrays[z->n++];
	a->name = util_malloc(len - 3);
	memcpy(a->name, st->name, len - 4);
	a->name[len - 4] = '\0';
	StrBuf m;
	sb_init(&m);
	sb_printf(&m, "%s/", z->path);
	sb_put_escaped(&m, st->name, len);
	a->member = util_strdup(sb_str(&m));
	sb_free(&m);
	a->index = st->index;
	a->size = st->size;
}

/* Lists and checks the directory; false after an error. */
static bool list_entries(NpzFile *z)
{
	zip_int64_t count = zip_get_num_entries(z->za, 0);
	if (count < 0 || (uint64_t)count > z->lim.max_members) {
		dat_fail(z->diags, DIAG_E1411, z->path, "more than %llu members (raise the limit with --max-members)", (unsigned long long)z->lim.max_members);
		return false;
	}
	char **names = util_calloc((size_t)count + 1, sizeof(*names));
	uint64_t total = 0;
	bool ok = true;
	for (zip_int64_t i = 0; ok && i < count; i++) {
		zip_stat_t st;
		zip_stat_init(&st);
		if (zip_stat_index(z->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW, &st) != 0 || !(st.valid & ZIP_STAT_NAME)) {
			int code = zip_error_code_zip(zip_get_error(z->za));
			dat_fail(z->diags, DIAG_E1408, z->path, "its entry %lld %s", (long long)i, zip_why(code, zip_get_error(z->za)));
			ok = false;
			break;
		}
		names[i] = util_strdup(st.name);
		ok = check_entry(z, &st, &total);
		if (ok)
			add_entry(z, &st);
	}
	const char *dup = ok ? twice(names, (size_t)count) : NULL;
	if (dup) {
		StrBuf shown;
		sb_init(&shown);
		sb_put_escaped(&shown, dup, strlen(dup));
		dat_fail(z->diags, DIAG_E1410, z->path, "member '%s' appears twice; which of the two is the array would be a guess", sb_str(&shown));
		sb_free(&shown);
		ok = false;
	}
	for (zip_int64_t i = 0; i < count; i++)
		util_free(names[i]);
	util_free(names);
	return ok;
}

/* ---- the count of entries, before libzip reads the directory ------------------- */

/* Reads up to n bytes at off of an archive; the count read. */
typedef size_t (*ReadAt)(void *ctx, uint64_t off, void *buf, size_t n);

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)dat_get32(p) | (uint64_t)dat_get32(p + 4) << 32;
}

/* The count of entries the end of central directory record of an
 * archive of size bytes declares (the zip64 one's when it points there);
 * false when there is no such record (libzip says so then). libzip makes
 * room for that many entries before anything else: an archive declaring
 * more than --max-members is refused before it can. */
static bool declared_entries(ReadAt rd, void *ctx, uint64_t size,
			     uint64_t *count)
{
	enum { END = 22, MAX_COMMENT = 65535, LOCATOR = 20, END64 = 56 };
	size_t n = size < END + MAX_COMMENT ? (size_t)size : END + MAX_COMMENT;
	unsigned char *tail = util_malloc(n ? n : 1);
	bool found = false;
	if (n < END || rd(ctx, size - n, tail, n) != n)
		n = 0;
	for (size_t i = n ? n - END + 1 : 0; i-- > 0 && !found;) {
		const unsigned char *e = tail + i;
		if (dat_get32(e) != 0x06054b50 || i + END + (e[20] | e[21] << 8) != n)
			continue;
		found = true;
		*count = (uint64_t)(e[10] | e[11] << 8);
		unsigned char loc[LOCATOR], e64[END64];
		uint64_t at = size - n + i;
		if (*count == 0xffff && at >= LOCATOR && rd(ctx, at - LOCATOR, loc, LOCATOR) == LOCATOR &&
		    dat_get32(loc) == 0x07064b50 && rd(ctx, get64(loc + 8), e64, END64) == END64 &&
		    dat_get32(e64) == 0x06064b50)
			*count = get64(e64 + 32);
	}
	util_free(tail);
	return found;
}

static size_t fd_read_at(void *ctx, uint64_t off, void *buf, size_t n)
{
	ssize_t k = pread(*(int *)ctx, buf, n, (off_t)off);
	return k > 0 ? (size_t)k : 0;
}

typedef struct MemArchive {
	const unsigned char *p;
	size_t len;
} MemArchive;

static size_t mem_read_at(void *ctx, uint64_t off, void *buf, size_t n)
{
	const MemArchive *m = ctx;
	if (off >= m->len)
		return 0;
	n = n < m->len - off ? n : (size_t)(m->len - off);
	memcpy(buf, m->p + off, n);
	return n;
}

/* False after reporting an archive that declares too many entries. */
static bool entries_within(NpzFile *z, ReadAt rd, void *ctx, uint64_t size)
{
	uint64_t count;
	if (!declared_entries(rd, ctx, size, &count) || count <= z->lim.max_members)
		return true;
	dat_fail(z->diags, DIAG_E1411, z->path, "more than %llu members (raise the limit with --max-members)", (unsigned long long)z->lim.max_members);
	return false;
}

/* Reports why libzip could not open the archive. */
static void open_failed(NpzFile *z, zip_error_t *ze)
{
	int code = zip_error_code_zip(ze);
	if (code == ZIP_ER_OPEN || code == ZIP_ER_READ || code == ZIP_ER_SEEK)
		diag_add(z->diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", z->path, zip_error_strerror(ze));
	else
		dat_fail(z->diags, DIAG_E1408, z->path, "the archive %s", zip_why(code, ze));
}

/* The archive of src (taken over, also on failure), checked: opened
 * once as it is, to check its directory with nnefkit's rules (libzip's
 * own check would refuse a name listed twice without naming it), then
 * again with libzip's consistency check of each entry's local header
 * against the directory, to be read. */
static NpzFile *open_source(NpzFile *z, zip_source_t *src, zip_error_t *ze)
{
	if (!src) {
		open_failed(z, ze);
		npz_close(z);
		return NULL;
	}
	zip_source_keep(src);
	z->spare = src; /* two references: one for each opening */
	z->za = zip_open_from_source(src, ZIP_RDONLY, ze);
	if (!z->za)
		zip_source_free(src); /* the first opening's reference */
	bool opened = z->za != NULL, ok = opened && list_entries(z);
	if (z->za)
		zip_discard(z->za);
	z->za = NULL;
	if (ok) {
		z->za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, ze);
		if (z->za)
			z->spare = NULL; /* the archive holds it now */
	}
	if (!z->za) {
		if (!opened || ok) /* else list_entries said why */
			open_failed(z, ze);
		npz_close(z);
		return NULL;
	}
	return z;
}

NpzFile *npz_open(const char *path, const ContLimits *limits, DiagList *diags)
{
	NpzFile *z = npz_new(path, limits, diags);
	/* O_NONBLOCK: a fifo must not stall the open; only regular files
	 * are read */
	int fd = z->fd = open(path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_add(diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", path, fd < 0 || S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
		npz_close(z);
		return NULL;
	}
	if (!entries_within(z, fd_read_at, &fd, (uint64_t)st.st_size)) {
		npz_close(z);
		return NULL;
	}
	zip_error_t ze;
	zip_error_init(&ze);
	FILE *fp = fdopen(fd, "rb");
	if (fp)
		z->fd = -1; /* the stream's, then the source's */
	zip_source_t *src = fp ? zip_source_filep_create(fp, 0, -1, &ze) : NULL;
	if (!src && fp)
		fclose(fp);
	if (!fp)
		zip_error_set(&ze, ZIP_ER_OPEN, errno);
	z = open_source(z, src, &ze);
	zip_error_fini(&ze);
	return z;
}

NpzFile *npz_open_memory(const char *name, const void *data, size_t len,
			 const ContLimits *limits, DiagList *diags)
{
	NpzFile *z = npz_new(name, limits, diags);
	MemArchive mem = { data, len };
	if (!entries_within(z, mem_read_at, &mem, len)) {
		npz_close(z);
		return NULL;
	}
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = zip_source_buffer_create(len ? data : NULL, len, 0, &ze);
	z = open_source(z, src, &ze);
	zip_error_fini(&ze);
	return z;
}

size_t npz_count(const NpzFile *z)
{
	return z->n;
}

const char *npz_name(const NpzFile *z, size_t i)
{
	return z->arrays[i].name;
}

const char *npz_member(const NpzFile *z, size_t i)
{
	return z->arrays[i].member;
}

uint64_t npz_size(const NpzFile *z, size_t i)
{
	return z->arrays[i].size;
}

bool npz_find(const NpzFile *z, const char *name, size_t *i)
{
	for (size_t k = 0; k < z->n; k++)
		if (strcmp(z->arrays[k].name, name) == 0) {
			*i = k;
			return true;
		}
	return false;
}

/* ---- reading ---------------------------------------------------------------------- */

bool npz_select(NpzFile *z, size_t i)
{
	if (z->cur)
		zip_fclose(z->cur);
	z->sel = i;
	z->done = 0;
	z->cur = zip_fopen_index(z->za, z->arrays[i].index, 0);
	if (!z->cur) {
		zip_error_t *ze = zip_get_error(z->za);
		dat_fail(z->diags, DIAG_E1408, z->arrays[i].member, "the member %s", zip_why(zip_error_code_zip(ze), ze));
		return false;
	}
	return true;
}

/* E1408 about the selected member from its stream's error. */
static long read_failed(NpzFile *z)
{
	zip_error_t *ze = zip_file_get_error(z->cur);
	dat_fail(z->diags, DIAG_E1408, z->arrays[z->sel].member, "the member %s", zip_why(zip_error_code_zip(ze), ze));
	zip_fclose(z->cur);
	z->cur = NULL;
	return -1;
}

long npz_read(void *ctx, void *buf, size_t n)
{
	NpzFile *z = ctx;
	if (!z->cur)
		return -1;
	const NpzArray *a = &z->arrays[z->sel];
	if (z->done == a->size) {
		/* the end: no byte more (a bomb's real size), and the CRC */
		unsigned char extra;
		zip_int64_t k = zip_fread(z->cur, &extra, 1);
		if (k < 0)
			return read_failed(z);
		if (k > 0) {
			dat_fail(z->diags, DIAG_E1408, a->member, "the member holds more than the %llu bytes it declares", (unsigned long long)a->size);
			zip_fclose(z->cur);
			z->cur = NULL;
			return -1;
		}
		return 0;
	}
	if (n > a->size - z->done)
		n = (size_t)(a->size - z->done);
	zip_int64_t k = zip_fread(z->cur, buf, n);
	if (k < 0)
		return read_failed(z);
	if (k == 0) {
		dat_fail(z->diags, DIAG_E1408, a->member, "the member ends after %llu of the %llu bytes it declares", (unsigned long long)z->done, (unsigned long long)a->size);
		zip_fclose(z->cur);
		z->cur = NULL;
		return -1;
	}
	z->done += (uint64_t)k;
	return (long)k;
}

/* ---- writing ---------------------------------------------------------------------- */

/* An archive being made in memory: discarded by util_oom. */
typedef struct Making {
	zip_source_t *src;
	zip_t *za;
	UtilCleanup cl;
} Making;

static void drop_making(void *arg)
{
	Making *mk = arg;
	if (mk->za)
		zip_discard(mk->za);
	mk->za = NULL;
	zip_source_free(mk->src);
	mk->src = NULL;
}

/* 1980-01-01 00:00 local time, as NumPy dates its members: the same
 * archive for the same arrays. */
static time_t dos_epoch(void)
{
	struct tm tm = { .tm_year = 80, .tm_mon = 0, .tm_mday = 1, .tm_isdst = -1 };
	return mktime(&tm);
}

/* Adds the members; false with *why set. */
static bool add_members(Making *mk, const NpzMember *m, size_t n, bool deflate,
			const char **why)
{
	time_t when = dos_epoch();
	for (size_t i = 0; i < n; i++) {
		StrBuf name;
		sb_init(&name);
		sb_printf(&name, "%s.npy", m[i].name);
		zip_source_t *zs = zip_source_buffer(mk->za, m[i].data, m[i].len, 0);
		zip_int64_t idx = zs ? zip_file_add(mk->za, sb_str(&name), zs, ZIP_FL_ENC_UTF_8) : -1;
		sb_free(&name);
		if (idx < 0) {
			zip_source_free(zs);
			int code = zip_error_code_zip(zip_get_error(mk->za));
			*why = code == ZIP_ER_EXISTS ? "two arrays have one name" : zip_why(code, zip_get_error(mk->za));
			return false;
		}
		if (zip_set_file_compression(mk->za, (zip_uint64_t)idx, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0 ||
		    zip_file_set_mtime(mk->za, (zip_uint64_t)idx, when, 0) != 0) {
			*why = zip_why(zip_error_code_zip(zip_get_error(mk->za)), zip_get_error(mk->za));
			return false;
		}
	}
	return true;
}

/* The bytes of the archive made in mk->src (util_malloc'd), or NULL. */
static unsigned char *made_bytes(Making *mk, size_t *len)
{
	if (zip_source_open(mk->src) != 0)
		return NULL;
	unsigned char *buf = NULL;
	zip_int64_t size = -1;
	if (zip_source_seek(mk->src, 0, SEEK_END) == 0)
		size = zip_source_tell(mk->src);
	if (size >= 0 && zip_source_seek(mk->src, 0, SEEK_SET) == 0) {
		buf = util_malloc(size ? (size_t)size : 1);
		if (zip_source_read(mk->src, buf, (zip_uint64_t)size) != size) {
			util_free(buf);
			buf = NULL;
		}
	}
	zip_source_close(mk->src);
	*len = (size_t)size;
	return buf;
}

bool npz_write(const char *path, const NpzMember *members, size_t n,
	       bool deflate, DiagList *diags)
{
	zip_error_t ze;
	zip_error_init(&ze);
	Making mk = { 0 };
	util_cleanup_push(&mk.cl, drop_making, &mk);
	const char *why = "needs more memory than there is";
	mk.src = zip_source_buffer_create(NULL, 0, 0, &ze);
	mk.za = mk.src ? zip_open_from_source(mk.src, ZIP_TRUNCATE, &ze) : NULL;
	bool ok = mk.za != NULL;
	if (ok) {
		zip_source_keep(mk.src); /* past zip_close, to read back */
		ok = add_members(&mk, members, n, deflate, &why);
	}
	if (ok && zip_close(mk.za) != 0) {
		why = zip_why(zip_error_code_zip(zip_get_error(mk.za)), zip_get_error(mk.za));
		ok = false;
	} else if (ok) {
		mk.za = NULL; /* closed */
	}
	size_t len = 0;
	unsigned char *bytes = NULL;
	if (ok && n == 0) { /* libzip writes nothing: the end record alone */
		static const unsigned char end[22] = { 'P', 'K', 5, 6 };
		bytes = util_malloc(len = sizeof(end));
		memcpy(bytes, end, len);
	} else if (ok) {
		bytes = made_bytes(&mk, &len);
	}
	util_cleanup_pop(&mk.cl);
	drop_making(&mk);
	zip_error_fini(&ze);
	if (!bytes) {
		diag_add(diags, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': the archive %s", path, why);
		return false;
	}
	ok = dat_write_bytes(path, bytes, len, diags);
	util_free(bytes);
	return ok;
}
