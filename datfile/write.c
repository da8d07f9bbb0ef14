/*
 * write.c - writing a whole tensor file (spec 5.2): the header, then the
 * items packed in chunks, through a temporary file in the same folder
 * that is renamed when complete, so that no partial file is ever left
 * under the name asked for. Writing through a symbolic link updates the
 * file it leads to.
 */
#include "datfile/datfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITE_CHUNK 65536 /* items encoded at a time */

static bool write_items(const DatHeader *h, uint64_t count, DatItemsFn get,
			void *ctx, FILE *fp)
{
	uint64_t bytes;
	dat_packed_size(h, WRITE_CHUNK, &bytes);
	unsigned char *buf = util_calloc(1, (size_t)bytes);
	DatItem *items = util_malloc(WRITE_CHUNK * sizeof(DatItem));
	bool ok = true;
	for (uint64_t first = 0; first < count && ok; first += WRITE_CHUNK) {
		size_t n = count - first < WRITE_CHUNK ? (size_t)(count - first) : WRITE_CHUNK;
		get(ctx, first, n, items);
		memset(buf, 0, (size_t)bytes); /* bits past the last item */
		dat_encode(h, buf, 0, n, items);
		uint64_t need;
		dat_packed_size(h, n, &need);
		ok = fwrite(buf, 1, (size_t)need, fp) == need;
	}
	util_free(buf);
	util_free(items);
	return ok;
}

/* (datfile.h) The file that writing to path means: path itself, or, through
 * symbolic links (at most 40), the file they lead to, so that writing
 * through a link updates its target instead of replacing the link. */
char *dat_final_path(const char *path)
{
	char *cur = util_strdup(path);
	for (int hops = 0; hops < 40; hops++) {
		char buf[4096];
		ssize_t n = readlink(cur, buf, sizeof(buf) - 1);
		if (n < 0)
			break;
		buf[n] = '\0';
		const char *slash = strrchr(cur, '/');
		size_t dir = buf[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
		char *next = util_malloc(dir + (size_t)n + 1);
		memcpy(next, cur, dir);
		memcpy(next + dir, buf, (size_t)n + 1);
		util_free(cur);
		cur = next;
	}
	return cur;
}

/* A temporary file being written: closed and removed by util_oom if an
 * allocation fails before finish_temp. */
typedef struct TempFile {
	FILE *fp;
	char *tmp;
	UtilCleanup cl;
} TempFile;

static void drop_temp(void *arg)
{
	TempFile *t = arg;
	fclose(t->fp);
	unlink(t->tmp);
}

/* Opens a temporary file beside path with the mode path should get. */
static bool open_temp(const char *path, TempFile *t)
{
	size_t n = strlen(path);
	t->tmp = util_malloc(n + sizeof(".tmpXXXXXX"));
	memcpy(t->tmp, path, n);
	strcpy(t->tmp + n, ".tmpXXXXXX");
	t->fp = NULL;
	int fd = mkstemp(t->tmp);
	if (fd < 0)
		return false;
	fchmod(fd, (mode_t)util_output_mode(path));
	t->fp = fdopen(fd, "wb");
	if (!t->fp) {
		close(fd);
		unlink(t->tmp);
		return false;
	}
	util_cleanup_push(&t->cl, drop_temp, t);
	return true;
}

/* Closes the file and renames it to path; on any failure reports E1307
 * and removes it. ok: whether everything written so far was. */
static bool finish_temp(TempFile *t, const char *path, bool ok,
			DiagList *diags)
{
	int err = ok ? 0 : errno;
	if (t->fp) {
		util_cleanup_pop(&t->cl);
		if (fclose(t->fp) != 0 && ok) {
			ok = false;
			err = errno;
		}
		if (ok && rename(t->tmp, path) != 0) {
			ok = false;
			err = errno;
		}
		if (!ok)
			unlink(t->tmp);
	} else {
		ok = false;
		err = errno;
	}
	util_free(t->tmp);
	if (!ok)
		diag_add(diags, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': %s", path, strerror(err));
	return ok;
}

bool dat_write_file(const char *path, const DatHeader *h, DatItemsFn get,
		    void *ctx, DiagList *diags)
{
	uint64_t count;
	dat_items(h, &count);
	char *target = dat_final_path(path);
	TempFile t;
	bool ok = open_temp(target, &t);
	if (ok) {
		unsigned char head[DAT_HEADER_SIZE];
		dat_write_header(h, head);
		ok = fwrite(head, 1, sizeof(head), t.fp) == sizeof(head) &&
		     write_items(h, count, get, ctx, t.fp);
	}
	ok = finish_temp(&t, target, ok, diags);
	util_free(target);
	return ok;
}

bool dat_write_bytes(const char *path, const void *data, size_t len,
		     DiagList *diags)
{
	char *target = dat_final_path(path);
	TempFile t;
	bool ok = open_temp(target, &t) && fwrite(data, 1, len, t.fp) == len;
	ok = finish_temp(&t, target, ok, diags);
	util_free(target);
	return ok;
}
