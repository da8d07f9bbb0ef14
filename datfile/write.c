/*
 * write.c - writing a whole tensor file (spec 5.2): the header, then the
 * items packed in chunks, through a temporary file in the same folder
 * that is renamed when complete, so that no partial file is ever left
 * under the name asked for.
 */
#include "datfile/datfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	free(buf);
	free(items);
	return ok;
}

bool dat_write_file(const char *path, const DatHeader *h, DatItemsFn get,
		    void *ctx, DiagList *diags)
{
	uint64_t count;
	dat_items(h, &count);
	size_t n = strlen(path);
	char *tmp = util_malloc(n + sizeof(".tmpXXXXXX"));
	memcpy(tmp, path, n);
	strcpy(tmp + n, ".tmpXXXXXX");
	int fd = mkstemp(tmp);
	FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
	bool ok = fp != NULL;
	if (ok) {
		unsigned char head[DAT_HEADER_SIZE];
		dat_write_header(h, head);
		ok = fwrite(head, 1, sizeof(head), fp) == sizeof(head) &&
		     write_items(h, count, get, ctx, fp);
		ok = fclose(fp) == 0 && ok;
	} else if (fd >= 0) {
		close(fd);
	}
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok) {
		diag_add(diags, DIAG_E1307, loc_make(NULL, 0, 0), "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
	}
	free(tmp);
	return ok;
}
