/*
 * arena.c - bump allocation in chunks (from heap.c). Chunks grow geometrically up to 4 MiB; a request larger than
 * a chunk gets a chunk of its own. Every chunk starts zeroed (calloc, or
 * fresh anonymous pages) and is never reused, so allocations are zero
 * without a memset: a large document's memory is written once, not
 * twice.
 */
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Chunks grow to 4 MiB; those of ARENA_STEP and more are mapped directly
 * (ordinary pages, as heap.c says why), and their pages faulted in
 * ARENA_STEP at a time, as the arena comes to them (chunk_ready). A chunk
 * and its headers fill whole pages. */
enum {
	ARENA_ALIGN = 8,
	ARENA_MIN_CHUNK = 4096,
	ARENA_MAX_CHUNK = 4 << 20,
};

/* Chunks of this size and more are faulted in this much at a time. */
#define ARENA_STEP UTIL_PREFAULT_BYTES

struct ArenaAdopted {
	ArenaAdopted *prev;
	void *block;
};

void arena_init(Arena *a)
{
	a->head = NULL;
	a->adopted = NULL;
	a->allocated = 0;
	a->source = NULL;
	a->source_ctx = NULL;
}

void arena_adopt(Arena *a, void *block)
{
	if (!block)
		return;
	ArenaAdopted *n = ARENA_NEW(a, ArenaAdopted);
	n->block = block;
	n->prev = a->adopted;
	a->adopted = n;
}

/* The largest chunk, its headers included: a source's. */
_Static_assert(ARENA_SOURCE_BYTES == ARENA_MAX_CHUNK - sizeof(UtilBlock), "a source gives the largest chunks");

void *arena_prepare_chunk(void)
{
	return util_map(ARENA_SOURCE_BYTES);
}

/* Makes the chunk's room ready up to need bytes and ARENA_STEP more, or
 * to its end: its pages are faulted in, in one call, as the arena comes
 * to them. A page fault each costs about four times as much (measured in
 * the virtual machines this was built on), and faulting in the whole
 * chunk at once would hold memory the arena may never use. */
static void chunk_ready(ArenaChunk *c, size_t need)
{
	size_t to = need + ARENA_STEP < c->size ? need + ARENA_STEP : c->size;
	util_prefault(c->data + c->cap, to - c->cap);
	c->cap = to;
}

/* The headers of a chunk of pages of its own. */
#define CHUNK_OVER (sizeof(ArenaChunk) + sizeof(UtilBlock))

/* Whether a chunk of cap bytes has pages of its own. */
static bool mapped_chunk(size_t cap)
{
	return cap + CHUNK_OVER >= ARENA_STEP;
}

/* A chunk of cap bytes, zeroed, its room made ready for need bytes: from
 * the heap, or pages of its own (from the arena's source when it has one
 * of that size, faulted in already). */
static ArenaChunk *chunk_alloc(const Arena *a, size_t cap, size_t need)
{
	size_t bytes = sizeof(ArenaChunk) + cap;
	ArenaChunk *c = NULL;
	if (!mapped_chunk(cap))
		c = util_calloc(1, bytes);
	else if (bytes == ARENA_SOURCE_BYTES && a->source)
		c = a->source(a->source_ctx);
	if (c) { /* all of it ready */
		c->size = c->cap = cap;
		return c;
	}
	c = util_map(bytes);
	if (!c)
		util_oom();
	c->size = cap;
	c->cap = 0;
	chunk_ready(c, need);
	return c;
}

/* A new current chunk with room for need bytes, ready (faulted in) for
 * `ready` of them. */
static ArenaChunk *arena_new_chunk(Arena *a, size_t need, size_t ready)
{
	size_t cap = a->head ? a->head->size * 2 : ARENA_MIN_CHUNK;
	if (cap > ARENA_MAX_CHUNK)
		cap = ARENA_MAX_CHUNK;
	if (cap < need)
		cap = need;
	/* a mapped chunk fills whole pages, its headers included: the
	 * nearest number of them (rounding down would keep a chunk that
	 * doubles at its size), so that the largest is a source's */
	if (mapped_chunk(cap)) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t whole = (cap + CHUNK_OVER + page / 2) & ~(page - 1);
		if (whole - CHUNK_OVER < need)
			whole += page;
		cap = whole - CHUNK_OVER;
	}
	ArenaChunk *c = chunk_alloc(a, cap, ready);
	c->used = 0;
	c->prev = a->head;
	a->head = c;
	return c;
}

_Static_assert(ARENA_ALIGN == ARENA_ALIGNMENT, "one alignment");

void *arena_alloc_chunk(Arena *a, size_t size)
{
	if (size > SIZE_MAX / 2)
		util_oom();
	size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (rounded == 0)
		rounded = ARENA_ALIGN;
	ArenaChunk *c = a->head;
	if (c && c->cap - c->used < rounded && c->size - c->used >= rounded)
		chunk_ready(c, c->used + rounded); /* room not ready yet */
	if (!c || c->cap - c->used < rounded) {
		if (c && rounded > ARENA_MAX_CHUNK / 4) {
			/* A big block gets its own chunk, kept behind the
			 * current one so the current one stays in use. */
			ArenaChunk *big = chunk_alloc(a, rounded, rounded);
			big->used = rounded;
			big->prev = c->prev;
			c->prev = big;
			a->allocated += rounded;
			return big->data;
		}
		c = arena_new_chunk(a, rounded, rounded);
	}
	void *p = c->data + c->used;
	c->used += rounded;
	a->allocated += rounded;
	return p;
}

void arena_reserve(Arena *a, size_t n)
{
	ArenaChunk *c = a->head;
	if (n > SIZE_MAX / 2)
		util_oom();
	if (!c || c->size - c->used < n)
		arena_new_chunk(a, n, 0);
}

void *arena_array(Arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / 2 / size)
		util_oom();
	return arena_alloc(a, n * size);
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(Arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	char *d = arena_alloc(a, (size_t)n + 1);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	return d;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *d = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return d;
}

void arena_reset(Arena *a)
{
	ArenaChunk *keep = a->head;
	if (!keep)
		return;
	a->head = keep->prev;
	arena_free(a);
	memset(keep->data, 0, keep->used);
	keep->used = 0;
	keep->prev = NULL;
	a->head = keep;
}

void arena_free(Arena *a)
{
	for (ArenaAdopted *n = a->adopted; n; n = n->prev)
		util_free(n->block);
	a->adopted = NULL;
	ArenaChunk *c = a->head;
	while (c) {
		ArenaChunk *prev = c->prev;
		util_free(c);
		c = prev;
	}
	a->head = NULL;
	a->allocated = 0;
}
