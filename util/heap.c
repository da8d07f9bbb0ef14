/*
 * heap.c - allocation that a failure cannot turn into a crash or a leak.
 *
 * Every block from util_malloc and its kin carries a header that links it
 * into the heap current on its thread when it was allocated (or into no
 * heap), so a handle of the library can give back all its memory at once
 * whatever state a failure left it in. When an allocation fails, util_oom
 * runs the cleanups registered since the innermost recovery point (files,
 * archives, temporary outputs), restores the heap that point was made
 * with, and jumps back to it: the library's entry points make one each
 * and turn the failure into a diagnostic or a NULL result. Without a
 * recovery point (a program's own use of these functions) util_oom prints
 * a message and exits with status 2.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, mremap, malloc_usable_size */
#include "util/util.h"

#include <assert.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The header keeps what follows it aligned to 16 bytes, as malloc does. */
_Static_assert(sizeof(UtilBlock) % 16 == 0, "header size keeps alignment");

static _Thread_local UtilHeap *tl_heap;
static _Thread_local UtilRecover *tl_recover;
static _Thread_local UtilCleanup *tl_cleanups;
static _Thread_local long tl_fail_at = -1; /* fault injection */
static _Thread_local unsigned long tl_count;
/* Set while two threads share a heap (util_heap_share): the links of its
 * blocks change under this lock. */
static _Thread_local pthread_spinlock_t *tl_lock;

static void heap_lock(void)
{
	if (tl_lock)
		pthread_spin_lock(tl_lock);
}

static void heap_unlock(void)
{
	if (tl_lock)
		pthread_spin_unlock(tl_lock);
}

void util_heap_share(pthread_spinlock_t *lock)
{
	tl_lock = lock;
}

static UtilBlock *header(void *p)
{
	return (UtilBlock *)p - 1;
}

/* ---- heaps ---------------------------------------------------------- */

void util_heap_init(UtilHeap *h)
{
	h->head.next = h->head.prev = &h->head;
}

UtilHeap *util_heap_use(UtilHeap *h)
{
	UtilHeap *old = tl_heap;
	tl_heap = h;
	return old;
}

static void block_release(UtilBlock *b)
{
	if (b->mapped)
		munmap(b->base, b->mapped);
	else
		free(b->base);
}

void util_heap_release(UtilHeap *h)
{
	if (!h->head.next)
		return; /* never initialised */
	assert(!tl_lock); /* no other thread holds blocks of h */
	for (UtilBlock *b = h->head.next, *next; b != &h->head; b = next) {
		next = b->next;
		block_release(b);
	}
	util_heap_init(h);
}

/* Links a fresh block into the current heap (or makes it a heap of its
 * own) and returns its memory. */
static void *link_block(UtilBlock *b, void *base, size_t mapped)
{
	b->base = base;
	b->mapped = mapped;
	UtilHeap *h = tl_heap;
	if (!h) {
		b->next = b->prev = b;
	} else {
		heap_lock();
		b->next = h->head.next;
		b->prev = &h->head;
		h->head.next->prev = b;
		h->head.next = b;
		heap_unlock();
	}
	return b + 1;
}

/* ---- failure and recovery -------------------------------------------- */

/* True when this allocation is to fail (fault injection in tests). */
static bool injected_failure(void)
{
	tl_count++;
	if (tl_fail_at < 0)
		return false;
	return tl_fail_at-- == 0;
}

void util_fail_after(long n)
{
	tl_fail_at = n;
	tl_count = 0;
}

unsigned long util_alloc_count(void)
{
	return tl_count;
}

void util_recover_push(UtilRecover *r, UtilHeap *heap)
{
	r->outer = tl_recover;
	r->heap = tl_heap;
	r->cleanups = tl_cleanups;
	tl_recover = r;
	tl_heap = heap;
}

void util_recover_pop(UtilRecover *r)
{
	assert(tl_cleanups == r->cleanups); /* every resource closed */
	tl_recover = r->outer;
	tl_heap = r->heap;
}

UtilHeap *util_heap_current(void)
{
	return tl_heap;
}

void util_thread_save(UtilThreadState *s)
{
	s->heap = tl_heap;
	s->fail_at = tl_fail_at;
	s->count = tl_count;
	s->failed = false;
}

void util_thread_run(UtilThreadState *s, void (*fn)(void *), void *ctx)
{
	tl_fail_at = s->fail_at;
	tl_count = s->count;
	UtilRecover r;
	util_recover_push(&r, s->heap);
	if (setjmp(r.jb)) {
		s->failed = true;
	} else {
		fn(ctx);
		util_recover_pop(&r);
	}
	s->fail_at = tl_fail_at;
	s->count = tl_count;
}

void util_thread_resume(UtilThreadState *s)
{
	tl_fail_at = s->fail_at;
	tl_count = s->count;
	if (s->failed)
		util_oom();
}

bool util_recovering(void)
{
	return tl_recover != NULL;
}

void util_oom(void)
{
	UtilRecover *r = tl_recover;
	if (!r) {
		fputs("nnefkit: out of memory\n", stderr);
		exit(2);
	}
	while (tl_cleanups != r->cleanups) {
		UtilCleanup *c = tl_cleanups;
		tl_cleanups = c->outer;
		c->fn(c->arg);
	}
	tl_recover = r->outer;
	tl_heap = r->heap;
	longjmp(r->jb, 1);
}

void util_cleanup_push(UtilCleanup *c, void (*fn)(void *), void *arg)
{
	c->fn = fn;
	c->arg = arg;
	c->outer = tl_cleanups;
	tl_cleanups = c;
}

void util_cleanup_pop(UtilCleanup *c)
{
	for (UtilCleanup **p = &tl_cleanups; *p; p = &(*p)->outer) {
		if (*p == c) {
			*p = c->outer;
			return;
		}
	}
}

/* ---- allocation ------------------------------------------------------ */

/* Blocks of this size and more get pages of their own, given back to the
 * system when freed. They are ordinary pages, never huge ones: in the
 * virtual machines this is measured on, a huge page costs about 4 ms when
 * the host has taken back the memory the guest freed (any start after a
 * few idle seconds), 7 times what its 512 ordinary pages cost, and
 * ordinary pages cost the same in either state (bench: a 280 MiB check
 * took 0.84-1.05 s on huge pages after idling, 0.51-0.61 s on ordinary
 * pages in every state). */
#define BIG_BLOCK ((size_t)4 << 20)

static bool too_big(size_t size)
{
	return size > SIZE_MAX / 4 - sizeof(UtilBlock);
}

static size_t page_bytes(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (sizeof(UtilBlock) + size + page - 1) & ~(page - 1);
}

/* Zeroed anonymous pages for a block of size bytes, unlinked; NULL when
 * mmap fails. */
static UtilBlock *map_pages(size_t size)
{
	size_t bytes = page_bytes(size);
	void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	UtilBlock *b = q;
	b->base = b;
	b->mapped = bytes;
	return b;
}

void *util_try_malloc(size_t size)
{
	if (too_big(size) || injected_failure())
		return NULL;
	bool big = size >= BIG_BLOCK;
	UtilBlock *b = big ? map_pages(size) : malloc(sizeof(UtilBlock) + size);
	return b ? link_block(b, b, big ? b->mapped : 0) : NULL;
}

void *util_try_calloc(size_t n, size_t size)
{
	if ((size && n > SIZE_MAX / 4 / size) || injected_failure())
		return NULL;
	size_t bytes = n * size;
	bool big = bytes >= BIG_BLOCK;
	UtilBlock *b = big ? map_pages(bytes) : calloc(1, sizeof(UtilBlock) + bytes);
	if (!b)
		return NULL;
	/* a zeroed block is faulted in at once: a table or an array asked
	 * for zeroed is written all over soon (a table's slots are spread
	 * across it) */
	if (bytes >= UTIL_PREFAULT_BYTES)
		util_prefault(b + 1, bytes);
	return link_block(b, b, big ? b->mapped : 0);
}

void *util_malloc(size_t size)
{
	void *p = util_try_malloc(size);
	if (!p)
		util_oom();
	return p;
}

void *util_calloc(size_t n, size_t size)
{
	void *p = util_try_calloc(n, size);
	if (!p)
		util_oom();
	return p;
}

/* nb takes b's place in its heap. */
static void *replace_block(UtilBlock *b, UtilBlock *prev, UtilBlock *next,
			   UtilBlock *nb)
{
	if (next == b) {
		nb->next = nb->prev = nb;
	} else {
		nb->prev = prev;
		nb->next = next;
		prev->next = nb;
		next->prev = nb;
	}
	return nb + 1;
}

/* Moves the block at p (header b) to nb, a fresh mapped block of size
 * bytes (NULL: mmap failed). */
static void *move_block(void *p, UtilBlock *b, UtilBlock *nb, size_t size)
{
	if (!nb)
		return NULL;
	size_t have = (b->mapped ? b->mapped : malloc_usable_size(b)) - sizeof(UtilBlock);
	memcpy(nb + 1, p, have < size ? have : size);
	void *q = replace_block(b, b->prev, b->next, nb);
	block_release(b);
	return q;
}

/* Growing blocks of MID_BLOCK and more get pages of their own, which
 * mremap enlarges without a copy: in the heap, every smaller block
 * such a block leaves behind stays in memory (growing arrays of a
 * million-name graph left 10 MiB of them). */
#define MID_BLOCK ((size_t)256 << 10)

/* Enlarges the block at p (header b, on pages of its own) to size bytes,
 * without a copy. */
static void *grow_pages(UtilBlock *b, size_t size)
{
	UtilBlock *prev = b->prev, *next = b->next;
	size_t bytes = page_bytes(size);
	void *q = mremap(b->base, b->mapped, bytes, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	UtilBlock *nb = q;
	nb->base = nb;
	nb->mapped = bytes;
	return replace_block(b, prev, next, nb);
}

static void *realloc_linked(void *p, UtilBlock *b, size_t size);

void *util_realloc(void *p, size_t size)
{
	if (!p)
		return util_malloc(size);
	UtilBlock *b = header(p);
	if (too_big(size) || b->base != b || injected_failure())
		util_oom();
	if (b->mapped && size <= b->mapped - sizeof(UtilBlock))
		return p;
	/* the block's neighbours are read and relinked in one step */
	heap_lock();
	void *q = realloc_linked(p, b, size);
	heap_unlock();
	if (!q)
		util_oom(); /* b is unchanged and still linked */
	return q;
}

/* util_realloc, the heap's links locked: NULL when memory is short. */
static void *realloc_linked(void *p, UtilBlock *b, size_t size)
{
	if (b->mapped) /* pages of its own */
		return grow_pages(b, size);
	if (size >= MID_BLOCK)
		return move_block(p, b, map_pages(size), size);
	UtilBlock *prev = b->prev, *next = b->next;
	UtilBlock *nb = realloc(b, sizeof(UtilBlock) + size);
	if (!nb)
		return NULL;
	nb->base = nb;
	return replace_block(b, prev, next, nb);
}

void *util_try_aligned(size_t size, size_t align)
{
	if (too_big(size) || size > SIZE_MAX / 2 - align || injected_failure())
		return NULL;
	unsigned char *base = malloc(sizeof(UtilBlock) + size + align);
	if (!base)
		return NULL;
	uintptr_t at = ((uintptr_t)(base + sizeof(UtilBlock)) + align - 1) & ~(uintptr_t)(align - 1);
	return link_block((UtilBlock *)at - 1, base, 0);
}

void *util_map(size_t size)
{
	if (too_big(size) || injected_failure())
		return NULL;
	UtilBlock *b = map_pages(size);
	return b ? link_block(b, b, b->mapped) : NULL;
}

void *util_map_file(int fd, size_t len)
{
	if (len == 0 || too_big(len) || injected_failure())
		return NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t file_bytes = (len + page - 1) & ~(page - 1);
	/* a page before the text holds the header; the two NULs after it
	 * are the zeros past the end of the file's last page, or a page of
	 * its own */
	size_t bytes = page + ((len + 2 + page - 1) & ~(page - 1));
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mmap(p + page, file_bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED,
		 fd, 0) == MAP_FAILED) {
		munmap(p, bytes);
		return NULL;
	}
	return link_block((UtilBlock *)(void *)(p + page) - 1, p, bytes);
}

void util_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	/* whole pages: those that p and p + len - 1 are on too */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(page - 1);
	uintptr_t b = ((uintptr_t)p + len + page - 1) & ~(uintptr_t)(page - 1);
	if (len && b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

void util_map_forget(void *p, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + from + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t b = ((uintptr_t)p + to) & ~(uintptr_t)(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

void util_free(void *p)
{
	if (!p)
		return;
	UtilBlock *b = header(p);
	heap_lock();
	b->prev->next = b->next;
	b->next->prev = b->prev;
	heap_unlock();
	block_release(b);
}

char *util_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = util_malloc(n);
	memcpy(d, s, n);
	return d;
}

void *util_grow_array(void *p, size_t *cap, size_t len, size_t size,
		      size_t first)
{
	if (len < *cap)
		return p;
	size_t n = *cap ? *cap : first / 2 ? first / 2 : 1;
	if (n > SIZE_MAX / 4 / size)
		util_oom();
	p = util_realloc(p, 2 * n * size);
	*cap = 2 * n; /* only once the array has grown */
	return p;
}

/* ---- files ------------------------------------------------------------ */

static void close_file(void *fp)
{
	fclose(fp);
}

FILE *util_fopen(const char *path, const char *mode, UtilCleanup *c)
{
	FILE *fp = fopen(path, mode);
	if (fp)
		util_cleanup_push(c, close_file, fp);
	return fp;
}

int util_fclose(FILE *fp, UtilCleanup *c)
{
	util_cleanup_pop(c);
	return fclose(fp);
}
