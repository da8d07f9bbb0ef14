/*
 * tar.c - reading a tar archive, plain or gzip-compressed, as a stream
 * (spec 5.1: a model may be packed into an archive). libtar reads the
 * header blocks (checksums, end of archive, GNU long names) through a
 * read callback of ours; everything libtar is known to get wrong is done
 * here (see ../shared/LIBTAR-NOTES.md):
 *
 *   - every byte comes through one buffered stream that counts the
 *     decompressed bytes against the limits, so no archive can make the
 *     reader (or libtar) read or allocate without bound;
 *   - the callback inspects each header block before libtar sees it: a
 *     GNU long name longer than 4096 bytes, or one without a terminating
 *     NUL, is refused before libtar allocates or reads it;
 *   - member names come from the raw fields (GNU long name, pax path=,
 *     ustar prefix and name), not from th_get_pathname, which silently
 *     rewrites "../x" and "/x";
 *   - sizes are parsed here (octal or base-256; pax size=), and member
 *     data is read and skipped here, never by libtar;
 *   - pax extended headers ('x') are parsed for path= and size=;
 *   - an archive that ends without its two zero blocks, or whose gzip
 *     stream is cut or fails its CRC, is reported as truncated or corrupt.
 *
 * libtar's read callback gets only a file descriptor, so open archives
 * are found in a small table keyed by it (guarded by a mutex).
 */
#include "datfile/container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libtar.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
	BLOCK = 512,
	STREAM_BUF = 256 << 10,
	MAX_LONG_NAME = 4096,   /* GNU long names and pax path= */
	MAX_PAX = 64 << 10,     /* a pax extended header's data */
};

/* Sizes beyond this are refused whatever the limits say, so that no
 * sum of sizes can wrap. */
#define MAX_SIZE ((uint64_t)1 << 62)

typedef struct TarState {
	int fd;
	gzFile gz;              /* NULL for a plain tar */
	TAR *t;
	unsigned char *buf;
	size_t pos, len;
	bool eof;
	uint64_t consumed;      /* bytes taken from the (decompressed) stream */
	uint64_t file_size;     /* of a plain tar, for skipping by seeking */
	uint64_t file_pos;      /* stream position in the file (plain tar) */
	/* what the read callback sees */
	enum { RD_HEADER, RD_LONG, RD_NONE } rd;
	unsigned zero_blocks;
	bool saw_end;           /* two zero blocks */
	const char *trouble;    /* why the callback failed a read */
	uint64_t long_size, long_blocks;
	char long_name[MAX_LONG_NAME + BLOCK];
	size_t long_len;
	bool has_long_name;     /* the member's name is in long_name */
	bool seen_long_name, seen_long_link; /* in the current header */
	/* pax records for the next member */
	char *pax_path;
	uint64_t pax_size;
	bool has_pax_size;
	/* names seen, to find members listed twice */
	Arena arena;
	Interner names;
	PtrMap seen;
	/* the current member */
	char *name;
	uint64_t pad;           /* zero bytes after its data */
} TarState;

/* ---- the table of open archives --------------------------------------------- */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static Container **table;
static size_t table_len;

/* The table belongs to no handle: its memory is malloc's own, and it
 * grows only under the lock (a failure must not jump out holding it). */
static void table_set(int fd, Container *c)
{
	pthread_mutex_lock(&table_lock);
	if ((size_t)fd >= table_len && c) {
		size_t n = (size_t)fd + 16;
		Container **grown = realloc(table, n * sizeof(*table));
		if (!grown) {
			pthread_mutex_unlock(&table_lock);
			util_oom();
		}
		table = grown;
		memset(table + table_len, 0, (n - table_len) * sizeof(*table));
		table_len = n;
	}
	if ((size_t)fd < table_len)
		table[fd] = c;
	pthread_mutex_unlock(&table_lock);
}

static Container *table_get(int fd)
{
	pthread_mutex_lock(&table_lock);
	Container *c = fd >= 0 && (size_t)fd < table_len ? table[fd] : NULL;
	pthread_mutex_unlock(&table_lock);
	return c;
}

/* ---- the stream -------------------------------------------------------------- */

/* zlib's reason for a gzip error, without its name for the stream
 * ("<fd:4>: "): the message names the archive already. */
static const char *gz_reason(gzFile gz, int *err)
{
	const char *msg = gzerror(gz, err);
	if (strncmp(msg, "<fd:", 4) == 0) {
		const char *colon = strstr(msg, ": ");
		if (colon)
			msg = colon + 2;
	}
	return msg;
}

/* Refills the buffer; false at the end of the stream or after an error
 * (reported). */
static bool refill(Container *c)
{
	TarState *s = c->tar;
	if (s->eof)
		return false;
	int n;
	if (s->gz) {
		n = gzread(s->gz, s->buf, STREAM_BUF);
		if (n < 0 || (n == 0 && !gzeof(s->gz))) {
			int err;
			const char *msg = gz_reason(s->gz, &err);
			s->eof = true;
			return cont_fail(c, DIAG_E0003, "the gzip stream is corrupt%s%s%s, about byte %lld of the file: %s", s->name ? " (in '" : "", s->name ? s->name : "", s->name ? "')" : "", (long long)gzoffset(s->gz), msg);
		}
	} else {
		ssize_t r;
		do
			r = read(s->fd, s->buf, STREAM_BUF);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			s->eof = true;
			return cont_fail(c, DIAG_E0001, "cannot read it: %s", strerror(errno));
		}
		n = (int)r;
		s->file_pos += (uint64_t)r;
	}
	if (n == 0 && s->gz) {
		/* zlib ends a cut stream quietly (Z_BUF_ERROR): ask */
		int err;
		const char *msg = gz_reason(s->gz, &err);
		if (err != Z_OK) {
			s->eof = true;
			return cont_fail(c, DIAG_E0003, "the gzip stream is cut short%s%s%s, after byte %lld of the file: %s", s->name ? " (in or after '" : "", s->name ? s->name : "", s->name ? "')" : "", (long long)gzoffset(s->gz), msg);
		}
	}
	if (n == 0) {
		s->eof = true;
		return false;
	}
	s->pos = 0;
	s->len = (size_t)n;
	return true;
}

/* Takes n bytes of the stream into out (NULL: discards them); returns
 * the count, short at the end of the stream. */
static size_t stream_take(Container *c, void *out, size_t n)
{
	TarState *s = c->tar;
	size_t done = 0;
	while (done < n) {
		if (s->pos == s->len && !refill(c))
			break;
		size_t k = s->len - s->pos;
		if (k > n - done)
			k = n - done;
		if (out)
			memcpy((char *)out + done, s->buf + s->pos, k);
		s->pos += k;
		done += k;
	}
	s->consumed += done;
	if (s->consumed > c->lim.max_bytes && !c->failed)
		cont_fail(c, DIAG_E0006, "more than %llu bytes once decompressed (raise the limit with --max-archive-bytes)", (unsigned long long)c->lim.max_bytes);
	return done;
}

/* Skips n bytes: by seeking in a plain tar, by reading through a gzip
 * stream. Returns false when the stream ends first. */
static bool stream_skip(Container *c, uint64_t n)
{
	TarState *s = c->tar;
	size_t buffered = s->len - s->pos;
	if (!s->gz && n > buffered + STREAM_BUF) {
		uint64_t far = n - buffered;
		s->consumed += buffered;
		s->pos = s->len;
		if (s->file_pos > s->file_size || far > s->file_size - s->file_pos)
			return false;
		if (lseek(s->fd, (off_t)far, SEEK_CUR) < 0)
			return cont_fail(c, DIAG_E0001, "cannot read it: %s", strerror(errno));
		s->file_pos += far;
		s->consumed += far;
		if (s->consumed > c->lim.max_bytes)
			return cont_fail(c, DIAG_E0006, "more than %llu bytes once decompressed (raise the limit with --max-archive-bytes)", (unsigned long long)c->lim.max_bytes);
		return true;
	}
	while (n > 0 && !c->failed) {
		size_t k = n > STREAM_BUF ? STREAM_BUF : (size_t)n;
		if (stream_take(c, NULL, k) < k)
			return false;
		n -= k;
	}
	return !c->failed;
}

/* ---- header fields ------------------------------------------------------------ */

/* A size field: octal digits (with leading spaces, then NUL or spaces),
 * or base-256 when the first byte is 0x80. */
static bool parse_size(const unsigned char *f, uint64_t *out)
{
	uint64_t v = 0;
	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return false; /* negative, or beyond 64 bits */
		for (int i = 1; i < 12; i++) {
			if (v >> 56)
				return false;
			v = v << 8 | f[i];
		}
		*out = v;
		return true;
	}
	int i = 0, digits = 0;
	while (i < 12 && f[i] == ' ')
		i++;
	for (; i < 12 && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < 12; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return digits > 0;
}

/* ---- libtar's read callback ------------------------------------------------- */

/* A header block on its way to libtar: end-of-archive blocks are counted;
 * a GNU long name ('L') or link ('K') must be of a sane size. */
static ssize_t header_block(Container *c, const unsigned char *b)
{
	TarState *s = c->tar;
	if (b[0] == 0) {
		if (++s->zero_blocks >= 2)
			s->saw_end = true;
		return BLOCK;
	}
	s->zero_blocks = 0;
	if (b[156] != 'L' && b[156] != 'K')
		return BLOCK;
	/* libtar takes one 'K' then one 'L' per member; anything else would
	 * reach us as a member */
	if ((b[156] == 'L' && s->seen_long_name) ||
	    (b[156] == 'K' && (s->seen_long_link || s->seen_long_name))) {
		s->trouble = "GNU long name entries repeated or out of order for one member";
		return -1;
	}
	/* libtar reads this size with sscanf: it must end inside its field */
	uint64_t size;
	bool ended = !(b[124] & 0x80) &&
		     (memchr(b + 124, 0, 12) || memchr(b + 124, ' ', 12));
	if (!ended || !parse_size(b + 124, &size) || size == 0 ||
	    size > MAX_LONG_NAME) {
		s->trouble = "a GNU long name entry of a malformed or excessive size (at most 4096 bytes)";
		return -1;
	}
	if (b[156] == 'L')
		s->seen_long_name = true;
	else
		s->seen_long_link = true;
	s->rd = RD_LONG;
	s->long_size = size;
	s->long_blocks = (size + BLOCK - 1) / BLOCK;
	s->long_len = 0;
	s->has_long_name = b[156] == 'L';
	return BLOCK;
}

/* A block of a long name: kept, and when complete it must hold its NUL. */
static ssize_t long_block(Container *c, const unsigned char *b)
{
	TarState *s = c->tar;
	memcpy(s->long_name + s->long_len, b, BLOCK);
	s->long_len += BLOCK;
	if (--s->long_blocks > 0)
		return BLOCK;
	s->rd = RD_HEADER;
	if (!memchr(s->long_name, 0, (size_t)s->long_size)) {
		s->trouble = "a GNU long name without its terminating NUL";
		return -1;
	}
	return BLOCK;
}

static ssize_t read_callback(int fd, void *buf, size_t count)
{
	Container *c = table_get(fd);
	if (!c || !c->tar || count != BLOCK || c->tar->rd == RD_NONE)
		return -1;
	TarState *s = c->tar;
	size_t got = stream_take(c, buf, BLOCK);
	if (c->failed)
		return -1;
	if (got == 0)
		return 0; /* the end: saw_end tells whether it was clean */
	if (got < BLOCK) {
		s->trouble = "it ends inside a header block";
		return (ssize_t)got;
	}
	return s->rd == RD_LONG ? long_block(c, buf) : header_block(c, buf);
}

static int close_callback(int fd)
{
	(void)fd; /* closed by cont_tar_close_stream */
	return 0;
}

static tartype_t stream_type = { NULL, close_callback, read_callback, NULL };

/* ---- pax extended headers ----------------------------------------------------- */

/* Parses the records "LEN key=value\n" of a pax header ('x' applies to
 * the next member; 'g' is read and ignored): path= and size=. */
static bool parse_pax(Container *c, const char *p, size_t n, bool global)
{
	TarState *s = c->tar;
	size_t at = 0;
	while (at < n) {
		size_t len = 0, k = at;
		while (k < n && p[k] >= '0' && p[k] <= '9' && len < n)
			len = len * 10 + (size_t)(p[k++] - '0');
		if (k == at || k >= n || p[k] != ' ' || len < 5 || len > n - at ||
		    p[at + len - 1] != '\n')
			return cont_fail(c, DIAG_E0003, "a malformed pax header record (after '%s')", s->name ? s->name : "the start");
		const char *rec = p + k + 1, *end = p + at + len - 1;
		const char *eq = memchr(rec, '=', (size_t)(end - rec));
		if (!eq)
			return cont_fail(c, DIAG_E0003, "a pax header record without '=' (after '%s')", s->name ? s->name : "the start");
		size_t klen = (size_t)(eq - rec), vlen = (size_t)(end - eq - 1);
		if (!global && klen == 4 && memcmp(rec, "path", 4) == 0) {
			if (vlen == 0 || vlen > MAX_LONG_NAME || memchr(eq + 1, 0, vlen))
				return cont_fail(c, DIAG_E0003, "a pax path of %zu bytes, or holding a NUL", vlen);
			util_free(s->pax_path);
			s->pax_path = util_malloc(vlen + 1);
			memcpy(s->pax_path, eq + 1, vlen);
			s->pax_path[vlen] = '\0';
		} else if (!global && klen == 4 && memcmp(rec, "size", 4) == 0) {
			uint64_t v = 0;
			size_t i = 0;
			for (; i < vlen && eq[1 + i] >= '0' && eq[1 + i] <= '9'; i++) {
				if (v > (UINT64_MAX - 9) / 10)
					break;
				v = v * 10 + (uint64_t)(eq[1 + i] - '0');
			}
			if (i != vlen || vlen == 0)
				return cont_fail(c, DIAG_E0003, "a malformed pax size (after '%s')", s->name ? s->name : "the start");
			s->pax_size = v;
			s->has_pax_size = true;
		}
		at += len;
	}
	return true;
}

/* Reads the data of a pax header and parses it. */
static bool read_pax(Container *c, uint64_t size, bool global)
{
	if (size > MAX_PAX)
		return cont_fail(c, DIAG_E0006, "a pax header of %llu bytes (at most %d)", (unsigned long long)size, MAX_PAX);
	char *data = util_malloc(size ? (size_t)size : 1);
	bool ok = stream_take(c, data, (size_t)size) == size;
	if (!ok && !c->failed)
		cont_fail(c, DIAG_E0003, "truncated: it ends inside a pax header");
	ok = ok && parse_pax(c, data, (size_t)size, global);
	util_free(data);
	uint64_t pad = (BLOCK - size % BLOCK) % BLOCK;
	return ok && stream_skip(c, pad);
}

/* ---- members ----------------------------------------------------------------- */

/* The name of the member libtar just read, from the raw fields. */
static char *member_name(TarState *s)
{
	const struct tar_header *th = &s->t->th_buf;
	if (s->has_long_name)
		return util_strdup(s->long_name); /* NUL checked */
	if (s->pax_path)
		return util_strdup(s->pax_path);
	StrBuf b;
	sb_init(&b);
	if (memcmp(th->magic, "ustar", 5) == 0 && th->prefix[0]) {
		sb_putn(&b, th->prefix, strnlen(th->prefix, sizeof(th->prefix)));
		sb_putc(&b, '/');
	}
	sb_putn(&b, th->name, strnlen(th->name, sizeof(th->name)));
	char *name = util_strdup(sb_str(&b));
	sb_free(&b);
	return name;
}

static ContMemberType member_type(char flag)
{
	switch (flag) {
	case '0':
	case '\0':
	case '7':
		return MEMBER_FILE;
	case '1':
	case '2':
		return MEMBER_LINK;
	default:
		return MEMBER_OTHER;
	}
}

/* Reads the next header with libtar; returns 1 at a clean end, 0 for a
 * header, -1 after reporting an error. */
static int next_header(Container *c)
{
	TarState *s = c->tar;
	s->rd = RD_HEADER;
	s->trouble = NULL;
	s->has_long_name = false;
	s->seen_long_name = s->seen_long_link = false;
	int r = th_read(s->t);
	s->rd = RD_NONE;
	if (c->failed)
		return -1;
	if (r == 1 && !s->saw_end) {
		if (s->name)
			cont_fail(c, DIAG_E0003, "truncated: it ends after '%s' without the end-of-archive blocks", s->name);
		else
			cont_fail(c, DIAG_E0003, "truncated: it ends before any member, without the end-of-archive blocks");
		return -1;
	}
	if (r == 1)
		return 1;
	if (r != 0) {
		const char *what = s->trouble ? s->trouble : "a corrupt tar header (bad checksum)";
		if (s->name)
			cont_fail(c, DIAG_E0003, "%s (after member '%s')", what, s->name);
		else
			cont_fail(c, DIAG_E0003, "not a tar archive, or a damaged one (%s)", what);
		return -1;
	}
	return 0;
}

/* One member: its name checked, listed once, visited, its data skipped.
 * Returns false to stop. */
static bool one_member(Container *c, ContVisit visit, void *ctx)
{
	TarState *s = c->tar;
	const struct tar_header *th = &s->t->th_buf;
	uint64_t size;
	if (!parse_size((const unsigned char *)th->size, &size))
		return cont_fail(c, DIAG_E0003, "a malformed size field (after '%s')", s->name ? s->name : "the start");
	char flag = th->typeflag;
	if (flag == 'L' || flag == 'K')
		return cont_fail(c, DIAG_E0003, "a stray GNU long name entry (after '%s')", s->name ? s->name : "the start");
	if (flag == 'x' || flag == 'g')
		return read_pax(c, size, flag == 'g');
	if (s->has_pax_size)
		size = s->pax_size;
	if (size > MAX_SIZE)
		return cont_fail(c, DIAG_E0003, "a member of %llu bytes, more than any archive holds (after '%s')", (unsigned long long)size, s->name ? s->name : "the start");
	char *name = member_name(s);
	util_free(s->name);
	s->name = name;
	util_free(s->pax_path);
	s->pax_path = NULL;
	s->has_pax_size = false;
	if (!cont_check_name(c, s->name))
		return false;
	ContMemberType type = member_type(flag);
	if (type == MEMBER_LINK)
		size = 0; /* a link's size field describes no data */
	if (size > c->lim.max_member)
		return cont_fail(c, DIAG_E0006, "member '%s' has %llu bytes, more than the limit of %llu (raise it with --max-member-bytes)", s->name, (unsigned long long)size, (unsigned long long)c->lim.max_member);
	s->pad = (BLOCK - size % BLOCK) % BLOCK;
	bool keep_going = true;
	if (type == MEMBER_FILE && cont_skip_apple_double(c, s->name)) {
		c->left = size; /* macOS metadata: skipped unread (W0009) */
	} else if (flag != '5' && *s->name) {
		const char *key = intern_cstr(&s->names, s->name);
		if (pmap_has(&s->seen, key))
			return cont_fail(c, DIAG_E0007, "member '%s' appears twice", s->name);
		pmap_put(&s->seen, key, NULL);
		ContMember m = { s->name, type, type == MEMBER_FILE ? size : 0 };
		c->cur = &m;
		c->left = size;
		keep_going = visit(ctx, c, &m);
		c->cur = NULL;
	} else {
		c->left = size;
	}
	if (c->failed)
		return false;
	if (!stream_skip(c, c->left + s->pad)) {
		if (!c->failed)
			cont_fail(c, DIAG_E0003, "truncated: it ends inside the data of '%s'", s->name);
		return false;
	}
	c->left = 0;
	return keep_going;
}

bool cont_tar_scan(Container *c, ContVisit visit, void *ctx)
{
	TarState *s = c->tar;
	uint64_t entries = 0;
	for (;;) {
		int r = next_header(c);
		if (r < 0)
			return false;
		if (r == 1)
			break;
		if (++entries > c->lim.max_members)
			return cont_fail(c, DIAG_E0006, "more than %llu entries (raise the limit with --max-members)", (unsigned long long)c->lim.max_members);
		if (!one_member(c, visit, ctx))
			return !c->failed;
	}
	/* the rest of a gzip stream is read, so that a cut stream or a bad
	 * CRC shows */
	while (s->gz && !c->failed) {
		s->pos = s->len;
		if (!refill(c))
			break;
		s->consumed += s->len;
		if (s->consumed > c->lim.max_bytes)
			return cont_fail(c, DIAG_E0006, "more than %llu bytes once decompressed (raise the limit with --max-archive-bytes)", (unsigned long long)c->lim.max_bytes);
	}
	return !c->failed;
}

long cont_tar_read(Container *c, void *buf, size_t n)
{
	if (n > c->left)
		n = (size_t)c->left;
	if (n == 0)
		return 0;
	size_t got = stream_take(c, buf, n);
	if (c->failed)
		return -1;
	if (got < n) {
		cont_fail(c, DIAG_E0003, "truncated: it ends inside the data of '%s'", c->tar->name);
		return -1;
	}
	c->left -= got;
	return (long)got;
}

/* ---- opening and closing -------------------------------------------------------- */

bool cont_tar_open_stream(Container *c, int fd, bool gzip)
{
	TarState *s = util_calloc(1, sizeof(*s));
	c->tar = s;
	s->fd = fd;
	c->fd = -1; /* the stream has it now */
	s->buf = util_malloc(STREAM_BUF);
	arena_init(&s->arena);
	intern_init(&s->names, &s->arena);
	pmap_init(&s->seen);
	struct stat st;
	if (fstat(fd, &st) == 0)
		s->file_size = (uint64_t)st.st_size;
	if (gzip) {
		int dupfd = dup(fd);
		s->gz = dupfd >= 0 ? gzdopen(dupfd, "rb") : NULL;
		if (!s->gz) {
			if (dupfd >= 0)
				close(dupfd);
			return cont_fail(c, DIAG_E0001, "cannot read it: %s", strerror(errno));
		}
		gzbuffer(s->gz, STREAM_BUF);
	}
	table_set(fd, c);
	if (tar_fdopen(&s->t, fd, c->path, &stream_type, O_RDONLY, 0, 0) != 0) {
		s->t = NULL;
		return cont_fail(c, DIAG_E0001, "cannot read it: %s", strerror(errno));
	}
	return true;
}

void cont_tar_release_stream(Container *c)
{
	TarState *s = c->tar;
	if (s->t) {
		free_longlink_longname(s->t->th_buf);
		tar_close(s->t);
		s->t = NULL;
	}
	if (s->fd >= 0) {
		table_set(s->fd, NULL);
		close(s->fd);
		s->fd = -1;
	}
	if (s->gz)
		gzclose(s->gz);
	s->gz = NULL;
}

void cont_tar_close_stream(Container *c)
{
	TarState *s = c->tar;
	cont_tar_release_stream(c);
	util_free(s->buf);
	util_free(s->name);
	util_free(s->pax_path);
	pmap_free(&s->seen);
	intern_free(&s->names);
	arena_free(&s->arena);
	util_free(s);
	c->tar = NULL;
}
