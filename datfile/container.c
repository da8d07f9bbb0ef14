/*
 * container.c - the containers a model arrives in (spec 5.1 Container
 * Organization): a directory holding graph.nnef and a folder per label,
 * a tar archive of the same (plain or gzip-compressed, recognized by its
 * first bytes, never by its name; see tar.c), or a bare graph file.
 *
 * Members are listed and read, never extracted. In a directory, links
 * are reported as links and never followed, and what visit does not
 * read is never opened, so checking a model costs a stat per file and
 * the bytes actually read.
 */
#include "datfile/container_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_DIR_DEPTH = 64 };

bool cont_fail(Container *c, DiagCode code, const char *fmt, ...)
{
	StrBuf b;
	sb_init(&b);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_add(c->diags, code, loc_make(NULL, 0, 0), "%s: %s", c->path,
		 sb_str(&b));
	sb_free(&b);
	c->failed = true;
	return false;
}

/* Archives and compressed streams a model may come as but nnefkit does
 * not read, by their magic bytes (each format's specification). */
static const struct {
	const char *magic;
	size_t len;
	const char *kind;
} foreign[] = {
	{ "PK\003\004", 4, "a zip archive" },
	{ "PK\005\006", 4, "an empty zip archive" },
	{ "\3757zXZ\0", 6, "an xz-compressed file (.xz, .txz)" },
	{ "BZh", 3, "a bzip2-compressed file (.bz2, .tbz2)" },
	{ "7z\274\257\047\034", 6, "a 7-Zip archive" },
	{ "\050\265\057\375", 4, "a zstd-compressed file (.zst)" },
	{ "LZIP", 4, "an lzip-compressed file (.lz)" },
	{ "Rar!\032\007", 6, "a RAR archive" },
};

const char *cont_foreign_kind(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		if (n >= foreign[i].len && memcmp(b, foreign[i].magic, foreign[i].len) == 0)
			return foreign[i].kind;
	return NULL;
}

bool cont_skip_apple_double(Container *c, const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "._", 2) != 0 || !base[2])
		return false;
	if (c->apple_double++ == 0)
		c->first_apple_double = util_strdup(name);
	return true;
}

void cont_mute_skips(Container *c)
{
	c->mute_skips = true;
}

/* The warning for the AppleDouble members a scan skipped, if any. */
static void warn_apple_double(Container *c)
{
	if (c->apple_double && !c->mute_skips)
		diag_add(c->diags, DIAG_W0009, loc_make(NULL, 0, 0), "%s: %llu macOS metadata file%s skipped ('%s'%s): AppleDouble files, '._' then a file's name, which macOS's tar and copies add; they are not part of the model", c->path, (unsigned long long)c->apple_double, c->apple_double == 1 ? "" : "s", c->first_apple_double, c->apple_double > 1 ? " and others" : "");
}

bool cont_check_name(Container *c, char *name)
{
	StrBuf shown;
	sb_init(&shown);
	sb_put_escaped(&shown, name, strlen(name));
	bool ok = true;
	if (name[0] == '/') {
		ok = cont_fail(c, DIAG_E0004, "member '%s' has an absolute name; a model's members are relative to it", sb_str(&shown));
	} else {
		/* drop "./" parts and empty parts; refuse ".." */
		char *out = name;
		for (char *p = name; *p && ok;) {
			char *slash = strchr(p, '/');
			size_t len = slash ? (size_t)(slash - p) : strlen(p);
			if (len == 2 && p[0] == '.' && p[1] == '.')
				ok = cont_fail(c, DIAG_E0004, "member '%s' has a '..' part; a model's members stay inside it", sb_str(&shown));
			else if (len && !(len == 1 && p[0] == '.')) {
				if (out != name)
					*out++ = '/';
				memmove(out, p, len);
				out += len;
			}
			p += len + (slash ? 1 : 0);
		}
		*out = '\0';
	}
	sb_free(&shown);
	return ok;
}

/* ---- opening -------------------------------------------------------------- */

/* A tar header block: "ustar" at 257, or a valid v7 checksum. */
static bool looks_like_tar(const unsigned char *b, size_t n)
{
	if (n < 512)
		return false;
	if (memcmp(b + 257, "ustar", 5) == 0)
		return true;
	unsigned long want = 0, sum = 0;
	for (int i = 148; i < 156 && b[i] >= '0' && b[i] <= '7'; i++)
		want = want * 8 + (unsigned long)(b[i] - '0');
	for (int i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	return b[0] && b[148] >= '0' && b[148] <= '7' && sum == want;
}

/* Closes what c has open, frees nothing: also what util_oom runs, when
 * the heap will give the memory back. */
static void release(void *arg)
{
	Container *c = arg;
	if (c->tar)
		cont_tar_release_stream(c);
	else if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->fp)
		fclose(c->fp);
	c->fp = NULL;
}

Container *cont_open(const char *path, const ContLimits *limits,
		     DiagList *diags)
{
	Container *c = util_calloc(1, sizeof(*c));
	c->fd = -1;
	util_cleanup_push(&c->cl, release, c);
	c->path = util_strdup(path);
	c->diags = diags;
	if (limits)
		c->lim = *limits;
	if (!c->lim.max_bytes)
		c->lim.max_bytes = CONT_DEFAULT_MAX_BYTES;
	if (!c->lim.max_member)
		c->lim.max_member = CONT_DEFAULT_MAX_MEMBER;
	if (!c->lim.max_members)
		c->lim.max_members = CONT_DEFAULT_MAX_MEMBERS;
	struct stat st;
	int fd = -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		c->kind = CONT_DIR;
		return c;
	}
	/* O_NONBLOCK: a fifo must not stall the open; only regular files
	 * are read */
	fd = c->fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		diag_add(diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': not a regular file or directory", path);
		cont_close(c);
		return NULL;
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_add(diags, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read '%s': %s", path, strerror(errno));
		cont_close(c);
		return NULL;
	}
	unsigned char head[512];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		c->kind = CONT_TGZ;
	else if (n > 0 && looks_like_tar(head, (size_t)n))
		c->kind = CONT_TAR;
	else
		c->kind = CONT_FILE;
	if (c->kind == CONT_FILE) {
		close(fd);
		c->fd = -1;
		return c;
	}
	if (!cont_tar_open_stream(c, fd, c->kind == CONT_TGZ)) {
		cont_close(c);
		return NULL;
	}
	return c;
}

ContKind cont_kind(const Container *c)
{
	return c->kind;
}

const char *cont_path(const Container *c)
{
	return c->path;
}

void cont_close(Container *c)
{
	if (!c)
		return;
	util_cleanup_pop(&c->cl);
	release(c);
	if (c->tar)
		cont_tar_close_stream(c);
	util_free(c->first_apple_double);
	util_free(c->path);
	util_free(c);
}

/* ---- directories and bare files --------------------------------------------- */

/* The member's file, opened on the first read. */
static FILE *member_file(Container *c)
{
	if (c->fp)
		return c->fp;
	StrBuf p;
	sb_init(&p);
	if (c->kind == CONT_DIR)
		sb_printf(&p, "%s/%s", c->path, c->cur->name);
	else
		sb_puts(&p, c->path);
	c->fp = fopen(sb_str(&p), "rb");
	if (!c->fp)
		cont_fail(c, DIAG_E0001, "cannot read '%s': %s", c->cur->name, strerror(errno));
	sb_free(&p);
	return c->fp;
}

char *cont_map(Container *c, size_t *len)
{
	if (!c->cur || c->tar || c->cur->type != MEMBER_FILE ||
	    c->left != c->cur->size || c->cur->size == 0)
		return NULL;
	FILE *fp = member_file(c);
	struct stat st;
	if (!fp || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != c->cur->size)
		return NULL;
	char *text = util_map_file(fileno(fp), (size_t)st.st_size);
	if (text) {
		*len = (size_t)st.st_size;
		c->left = 0;
	}
	return text;
}

/* Calls visit for one member, then forgets its file. */
static bool visit_member(Container *c, const ContMember *m, ContVisit visit,
			 void *ctx)
{
	c->cur = m;
	c->left = m->size;
	bool go_on = visit(ctx, c, m);
	if (c->fp) {
		fclose(c->fp);
		c->fp = NULL;
	}
	c->cur = NULL;
	return go_on && !c->failed;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void close_dir(void *d)
{
	closedir(d);
}

/* The entries of directory rel (relative to the container), sorted. */
static char **list_dir(Container *c, const char *rel, size_t *count)
{
	StrBuf p;
	sb_init(&p);
	sb_printf(&p, "%s%s%s", c->path, *rel ? "/" : "", rel);
	DIR *d = opendir(sb_str(&p));
	sb_free(&p);
	*count = 0;
	if (!d) {
		cont_fail(c, DIAG_E0001, "cannot read the folder '%s': %s", *rel ? rel : ".", strerror(errno));
		return NULL;
	}
	UtilCleanup cl;
	util_cleanup_push(&cl, close_dir, d);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		names = util_realloc(names, (n + 1) * sizeof(*names));
		names[n++] = util_strdup(e->d_name);
	}
	util_cleanup_pop(&cl);
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	*count = n;
	return names;
}

static bool scan_dir(Container *c, const char *rel, unsigned depth,
		     uint64_t *members, ContVisit visit, void *ctx)
{
	if (depth > MAX_DIR_DEPTH)
		return cont_fail(c, DIAG_E0006, "folders nested more than %d deep under '%s'", MAX_DIR_DEPTH, rel);
	size_t n;
	char **names = list_dir(c, rel, &n);
	bool ok = names || n == 0;
	ok = ok && !c->failed;
	for (size_t i = 0; i < n; i++) {
		StrBuf name, full;
		sb_init(&name);
		sb_init(&full);
		sb_printf(&name, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		sb_printf(&full, "%s/%s", c->path, sb_str(&name));
		struct stat st;
		if (ok && ++*members > c->lim.max_members)
			ok = cont_fail(c, DIAG_E0006, "more than %llu file%s (raise the limit with --max-members)", (unsigned long long)c->lim.max_members, c->lim.max_members == 1 ? "" : "s");
		if (ok && lstat(sb_str(&full), &st) != 0)
			ok = cont_fail(c, DIAG_E0001, "cannot read '%s': %s", sb_str(&name), strerror(errno));
		if (ok && S_ISDIR(st.st_mode)) {
			ok = scan_dir(c, sb_str(&name), depth + 1, members, visit, ctx);
		} else if (ok && S_ISREG(st.st_mode) && cont_skip_apple_double(c, sb_str(&name))) {
			/* macOS metadata: skipped unread (W0009) */
		} else if (ok) {
			ContMember m = { sb_str(&name),
					 S_ISREG(st.st_mode) ? MEMBER_FILE
					 : S_ISLNK(st.st_mode) ? MEMBER_LINK
							       : MEMBER_OTHER,
					 S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0 };
			ok = visit_member(c, &m, visit, ctx);
		}
		sb_free(&name);
		sb_free(&full);
		util_free(names[i]);
	}
	util_free(names);
	return ok;
}

bool cont_scan(Container *c, ContVisit visit, void *ctx)
{
	if (c->kind == CONT_TAR || c->kind == CONT_TGZ) {
		bool ok = cont_tar_scan(c, visit, ctx) && !c->failed;
		warn_apple_double(c);
		return ok;
	}
	if (c->kind == CONT_DIR) {
		uint64_t members = 0;
		scan_dir(c, "", 0, &members, visit, ctx);
		warn_apple_double(c);
		return !c->failed;
	}
	struct stat st;
	if (stat(c->path, &st) != 0)
		return cont_fail(c, DIAG_E0001, "cannot read it: %s", strerror(errno));
	ContMember m = { "graph.nnef", MEMBER_FILE, (uint64_t)st.st_size };
	visit_member(c, &m, visit, ctx);
	return !c->failed;
}

long cont_read(Container *c, void *buf, size_t n)
{
	if (!c->cur)
		return -1;
	if (c->cur->type != MEMBER_FILE)
		return 0; /* links and special files have no data to read */
	if (c->tar)
		return cont_tar_read(c, buf, n);
	if (n > c->left)
		n = (size_t)c->left;
	if (n == 0)
		return 0;
	FILE *fp = member_file(c);
	if (!fp)
		return -1;
	size_t got = fread(buf, 1, n, fp);
	if (got < n && ferror(fp)) {
		cont_fail(c, DIAG_E0001, "cannot read '%s': %s", c->cur->name, strerror(errno));
		return -1;
	}
	c->left -= got;
	return (long)got;
}
