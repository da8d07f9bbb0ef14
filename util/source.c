/*
 * source.c - documents in memory and the line table that turns byte
 * offsets into line:column (1-based; a column counts bytes, so a tab is
 * one column, as in the rendering of the caret line).
 */
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The line table of f, with its length in *count. */
static uint32_t *line_table(const SourceFile *f, size_t *count)
{
	size_t cap = 64, n = 0;
	uint32_t *lines = util_malloc(cap * sizeof(*lines));
	lines[n++] = 0;
	const char *p = f->text, *end = f->text + f->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		if (n == cap) {
			cap *= 2;
			lines = util_realloc(lines, cap * sizeof(*lines));
		}
		lines[n++] = (uint32_t)(nl + 1 - f->text);
		p = nl + 1;
	}
	*count = n;
	return lines;
}

static void build_lines(SourceFile *f)
{
	f->lines = line_table(f, &f->nlines);
}

static SourceFile *source_new(const char *path, const char *text, size_t len)
{
	SourceFile *f = util_calloc(1, sizeof(*f));
	f->path = util_strdup(path);
	f->text = text;
	f->len = len;
	f->owns_text = false;
	return f;
}

SourceFile *source_from_memory(const char *path, const char *text, size_t len)
{
	SourceFile *f = source_new(path, text, len);
	build_lines(f);
	return f;
}

SourceFile *source_from_mapping(const char *path, const char *text,
				size_t len)
{
	SourceFile *f = source_new(path, text, len);
	f->mapped = true;
	return f;
}

/* The line table of f, built now if it is not yet, and its length. The
 * two threads of a pass (model/stream.c) may both ask at once: each
 * builds a table, the first stored is kept (the heap is shared then). */
static const uint32_t *lines_of(const SourceFile *f, size_t *count)
{
	SourceFile *w = (SourceFile *)(uintptr_t)f;
	uint32_t *lines = __atomic_load_n(&w->lines, __ATOMIC_ACQUIRE);
	if (!lines) {
		size_t n;
		uint32_t *made = line_table(f, &n), *none = NULL;
		__atomic_store_n(&w->nlines, n, __ATOMIC_RELAXED);
		lines = __atomic_compare_exchange_n(&w->lines, &none, made,
						    false, __ATOMIC_RELEASE,
						    __ATOMIC_ACQUIRE)
			? made : none;
		if (lines != made)
			util_free(made);
	}
	*count = __atomic_load_n(&w->nlines, __ATOMIC_RELAXED);
	return lines;
}

SourceFile *source_from_buffer(const char *path, char *text, size_t len)
{
	SourceFile *f = source_from_memory(path, text, len);
	f->scannable = text[len] == '\0' && text[len + 1] == '\0';
	return f;
}

SourceFile *source_read(const char *path, const char **err)
{
	UtilCleanup cl;
	FILE *fp = util_fopen(path, "rb", &cl);
	if (!fp) {
		*err = strerror(errno);
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		util_fclose(fp, &cl);
		*err = strerror(EISDIR);
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0 && (uint64_t)st.st_size <= SOURCE_MAX_BYTES)
		cap = (size_t)st.st_size + 1;
	char *buf = util_malloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap > SOURCE_MAX_BYTES) {
				util_free(buf);
				util_fclose(fp, &cl);
				*err = "file too large (the limit is 1 GiB)";
				return NULL;
			}
			cap *= 2;
			buf = util_realloc(buf, cap);
		}
		size_t got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (got == 0) {
			if (ferror(fp)) {
				*err = strerror(errno ? errno : EIO);
				util_free(buf);
				util_fclose(fp, &cl);
				return NULL;
			}
			break;
		}
	}
	util_fclose(fp, &cl);
	if (len > SOURCE_MAX_BYTES) {
		util_free(buf);
		*err = "file too large (the limit is 1 GiB)";
		return NULL;
	}
	SourceFile *f = util_calloc(1, sizeof(*f));
	f->path = util_strdup(path);
	f->text = buf;
	f->len = len;
	f->owns_text = true;
	build_lines(f);
	return f;
}

void source_free(SourceFile *f)
{
	if (!f)
		return;
	if (f->owns_text)
		util_free((char *)f->text);
	util_free((char *)f->path);
	util_free(f->lines);
	util_free(f);
}

void source_forget(const SourceFile *f, size_t before)
{
	if (f->mapped && before <= f->len)
		util_map_forget((void *)(uintptr_t)f->text, 0, before);
}

void source_linecol(const SourceFile *f, size_t off, unsigned *line,
		    unsigned *col)
{
	size_t nlines;
	const uint32_t *lines = lines_of(f, &nlines);
	size_t lo = 0, hi = nlines;
	if (off > f->len)
		off = f->len;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)(lo + 1);
	*col = (unsigned)(off - lines[lo] + 1);
}

void source_line(const SourceFile *f, unsigned line, const char **start,
		 size_t *len)
{
	size_t nlines;
	const uint32_t *lines = lines_of(f, &nlines);
	if (line == 0 || line > nlines) {
		*start = f->text + f->len;
		*len = 0;
		return;
	}
	size_t b = lines[line - 1];
	size_t e = line < nlines ? lines[line] - 1 : f->len;
	if (e > b && f->text[e - 1] == '\r')
		e--;
	*start = f->text + b;
	*len = e - b;
}

Loc loc_join(Loc a, Loc b)
{
	if (!a.file)
		return b;
	if (!b.file)
		return a;
	uint32_t s = a.off < b.off ? a.off : b.off;
	uint32_t ea = a.off + a.len, eb = b.off + b.len;
	uint32_t e = ea > eb ? ea : eb;
	Loc l = { a.file, s, e - s };
	return l;
}

Loc loc_end(Loc a)
{
	Loc l = { a.file, a.off + a.len, 0 };
	return l;
}

unsigned util_output_mode(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	unsigned mask = 022;
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	while (fp && fgets(line, sizeof(line), fp))
		if (strncmp(line, "Umask:", 6) == 0) {
			mask = (unsigned)strtoul(line + 6, NULL, 8);
			break;
		}
	if (fp)
		fclose(fp);
	return 0666 & ~mask;
}
