/*
 * check_util.c - arena, strings, interner, source line tables and the
 * rendering of diagnostics.
 */
#define _DEFAULT_SOURCE /* mincore */
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(arena_alignment_and_zeroing)
{
	Arena a;
	arena_init(&a);
	for (size_t size = 1; size < 5000; size += 37) {
		unsigned char *p = arena_alloc(&a, size);
		ck_assert_uint_eq((uintptr_t)p % 8, 0);
		for (size_t i = 0; i < size; i++)
			ck_assert_uint_eq(p[i], 0);
		memset(p, 0xAB, size);
	}
	/* A block larger than a chunk gets one of its own. */
	unsigned char *big = arena_alloc(&a, 3u << 20);
	big[(3u << 20) - 1] = 1;
	char *s = arena_strndup(&a, "abcdef", 3);
	ck_assert_str_eq(s, "abc");
	ck_assert_str_eq(arena_printf(&a, "%d-%s", 42, "x"), "42-x");
	arena_free(&a);
}
END_TEST

/* An arena's source: what it was asked for, and the chunks it gives. */
typedef struct Source {
	size_t asked, given;
	void *chunks[4];
} Source;

static void *source_chunk(void *ctx)
{
	Source *src = ctx;
	src->asked++;
	if (src->given == 4)
		return NULL;
	void *c = arena_prepare_chunk();
	ck_assert_ptr_nonnull(c);
	util_prefault(c, ARENA_SOURCE_BYTES);
	src->chunks[src->given++] = c;
	return c;
}

/* A growing arena's chunks reach 4 MiB, and come from its source when it
 * has one (another thread may have faulted them in); when the source has
 * none, the arena maps its own. Allocations stay zeroed. */
START_TEST(arena_chunks_from_a_source)
{
	Arena a;
	arena_init(&a);
	Source src = { 0 };
	a.source = source_chunk;
	a.source_ctx = &src;
	static const unsigned char zero[1000];
	for (size_t total = 0; total < (40u << 20); total += 1000) {
		unsigned char *p = arena_alloc(&a, 1000);
		if (memcmp(p, zero, 1000) != 0)
			ck_abort_msg("arena memory not zeroed after %zu bytes", total);
		memset(p, 0xCD, 1000);
	}
	/* 40 MiB in 4 MiB chunks once past 4 MiB: the source was asked
	 * for each of those, gave 4, and each of its chunks is in use */
	ck_assert_uint_ge(src.asked, 7);
	ck_assert_uint_le(src.asked, 10);
	ck_assert_uint_eq(src.given, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_uint_eq(((unsigned char *)src.chunks[i])[64], 0xCD);
	arena_free(&a);
}
END_TEST

/* Whether the page at p is in memory. */
static bool resident(const void *p)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char in = 0;
	ck_assert_int_eq(mincore((void *)((uintptr_t)p & ~(uintptr_t)(page - 1)), page, &in), 0);
	return in & 1;
}

/* Whether the system may back any mapping with huge pages. */
static bool huge_pages_always(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	return strstr(line, "[always]") != NULL;
}

/* A chunk of 64 KiB and more has its room made ready (faulted in) a step
 * at a time, as the arena comes to it: the room past the ready part is
 * not in memory, an allocation larger than the ready part is still made
 * in the chunk, and all of it is zeroed. */
START_TEST(arena_room_ready_in_steps)
{
	Arena a;
	arena_init(&a);
	static const unsigned char zero[1000];
	bool stepped = false;
	while (a.allocated < (1u << 20)) {
		unsigned char *p = arena_alloc(&a, 1000);
		ck_assert(memcmp(p, zero, 1000) == 0);
		memset(p, 0xEF, 1000);
		const ArenaChunk *c = a.head;
		ck_assert_uint_le(c->used, c->cap);
		ck_assert_uint_le(c->cap, c->size);
		if (c->size >= (256u << 10) && c->cap < c->size - (64u << 10)) {
			stepped = true;
			if (!huge_pages_always())
				ck_assert(!resident(c->data + c->size - 1));
		}
	}
	ck_assert(stepped);
	/* more than is ready, less than the chunk holds: the same chunk */
	const ArenaChunk *c = a.head;
	size_t want = c->cap - c->used + 4096;
	ck_assert_uint_ge(c->size - c->used, want + 8);
	unsigned char *q = arena_alloc(&a, want);
	ck_assert_ptr_eq(a.head, c);
	ck_assert(q >= c->data && q + want <= c->data + c->cap);
	for (size_t i = 0; i < want; i++)
		ck_assert_uint_eq(q[i], 0);
	/* a reset keeps the chunk, and its ready room, zeroed */
	size_t cap = a.head->cap;
	arena_reset(&a);
	ck_assert_uint_eq(a.head->cap, cap);
	unsigned char *p = arena_alloc(&a, 5000);
	for (size_t i = 0; i < 5000; i++)
		ck_assert_uint_eq(p[i], 0);
	arena_free(&a);
}
END_TEST

/* arena_reserve: the arena's next allocations, up to n bytes, go into one
 * chunk, whose pages past the first step are not in memory until used; a
 * reset keeps that chunk, so an arena filled to about n and reset again
 * and again never makes another. A reserve the current chunk can hold
 * changes nothing. */
START_TEST(arena_reserve_keeps_one_chunk)
{
	Arena a;
	arena_init(&a);
	size_t n = 300 << 10;
	arena_reserve(&a, n);
	const ArenaChunk *c = a.head;
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_ge(c->size, n);
	ck_assert_uint_eq(c->used, 0);
	if (!huge_pages_always())
		ck_assert(!resident(c->data + n - 1));
	for (int round = 0; round < 3; round++) {
		static const unsigned char zero[1000];
		for (size_t total = 0; total + 1000 <= n; total += 1000) {
			unsigned char *p = arena_alloc(&a, 1000);
			ck_assert(memcmp(p, zero, 1000) == 0);
			memset(p, 0xAB, 1000);
		}
		ck_assert_ptr_eq(a.head, c);
		ck_assert_ptr_null(c->prev);
		arena_reset(&a);
		ck_assert_ptr_eq(a.head, c);
	}
	arena_reserve(&a, 1000);
	ck_assert_ptr_eq(a.head, c);
	arena_free(&a);
}
END_TEST

/* A zeroed block of 64 KiB and more (a table, most often) is faulted in
 * when it is made, where the system can fault in pages ahead, its last
 * page too. */
START_TEST(calloc_faults_in_large_blocks)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 64 * page;
	unsigned char *probe = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(probe != MAP_FAILED);
	util_prefault(probe, len);
	bool can = resident(probe + len / 2);
	munmap(probe, len);
	if (!can || huge_pages_always())
		return; /* nothing to tell apart */
	unsigned char *big = util_calloc(1, 1 << 20);
	ck_assert(resident(big + (1 << 19)));
	ck_assert(resident(big + (1 << 20) - 1));
	util_free(big);
}
END_TEST

/* A block that grows past 256 KiB gets pages of its own (enlarged by
 * mremap, leaving nothing behind in the heap): the bytes it holds survive
 * every move. */
START_TEST(realloc_through_the_block_sizes)
{
	static const size_t sizes[] = { 1000, 300 << 10, 1 << 20, 3 << 20, 5 << 20, 9 << 20 };
	size_t have = 0;
	unsigned char *p = NULL;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		p = util_realloc(p, sizes[k]);
		size_t bad = have;
		for (size_t i = 0; i < have && bad == have; i++)
			if (p[i] != (unsigned char)(i * 7 + i / 4096))
				bad = i;
		ck_assert_uint_eq(bad, have);
		for (size_t i = have; i < sizes[k]; i++)
			p[i] = (unsigned char)(i * 7 + i / 4096);
		have = sizes[k];
		const UtilBlock *b = (const UtilBlock *)(const void *)p - 1;
		if (sizes[k] >= (256 << 10))
			ck_assert_uint_ge(b->mapped, sizes[k] + sizeof(UtilBlock));
		else
			ck_assert_uint_eq(b->mapped, 0);
	}
	util_free(p);
}
END_TEST

/* util_map: ordinary pages, rounded to a page, never huge ones (heap.c:
 * they cost several times more after the host has taken memory back),
 * not in memory before they are written. */
START_TEST(map_ordinary_pages)
{
	size_t size = (3 << 20) + 100, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *p = util_map(size);
	ck_assert_ptr_nonnull(p);
	const UtilBlock *b = (const UtilBlock *)(const void *)p - 1;
	ck_assert_uint_eq(b->mapped % page, 0);
	ck_assert_uint_lt(b->mapped, size + sizeof(UtilBlock) + page + 1);
	if (!huge_pages_always())
		ck_assert(!resident(p + size - 1));
	p[size - 1] = 1;
	ck_assert(resident(p + size - 1));
	if (!huge_pages_always())
		ck_assert(!resident(p + (2 << 20)));
	util_free(p);
}
END_TEST

START_TEST(strbuf_appends)
{
	StrBuf b;
	sb_init(&b);
	ck_assert_str_eq(sb_str(&b), "");
	for (int i = 0; i < 1000; i++)
		sb_printf(&b, "%d,", i % 10);
	ck_assert_uint_eq(b.len, 2000);
	sb_clear(&b);
	sb_put_escaped(&b, "a\tb\x01\xff'", 6);
	ck_assert_str_eq(sb_str(&b), "a\\tb\\x01\\xFF'");
	sb_free(&b);
}
END_TEST

START_TEST(interner_identity)
{
	Arena a;
	arena_init(&a);
	Interner in;
	intern_init(&in, &a);
	const char *x = intern_cstr(&in, "conv");
	ck_assert_ptr_eq(x, intern_bytes(&in, "conv1", 4));
	ck_assert_ptr_ne(x, intern_cstr(&in, "conv1"));
	/* Growth keeps identities. */
	const char *names[5000];
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "t%d", i);
		names[i] = intern_cstr(&in, buf);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "t%d", i);
		ck_assert_ptr_eq(names[i], intern_cstr(&in, buf));
	}
	ck_assert_ptr_eq(x, intern_cstr(&in, "conv"));
	ck_assert_uint_eq(in.count, 5002);
	/* a spelling that is a prefix, or an extension, of another */
	ck_assert_ptr_ne(intern_bytes(&in, "t12", 3), intern_bytes(&in, "t123", 4));
	ck_assert_ptr_eq(intern_bytes(&in, "t1234", 4), names[123]);
	/* one holding a NUL is copied whole, each time, and kept out of
	 * the table */
	const char *z1 = intern_bytes(&in, "t1\0x", 4);
	const char *z2 = intern_bytes(&in, "t1\0x", 4);
	ck_assert_ptr_ne(z1, z2);
	ck_assert_int_eq(memcmp(z1, "t1\0x", 5), 0);
	ck_assert_ptr_eq(intern_cstr(&in, "t1"), names[1]);
	ck_assert_uint_eq(in.count, 5002);
	ck_assert_ptr_eq(intern_find(&in, "t4999"), names[4999]);
	ck_assert_ptr_null(intern_find(&in, "t5000"));
	/* a shared interner's new record is made in the caller's arena;
	 * a known spelling is the one kept */
	Arena own;
	arena_init(&own);
	pthread_spinlock_t lock;
	pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
	ck_assert_ptr_eq(intern_own(&in, &own, "t7", 2), names[7]);
	in.lock = &lock;
	const char *o = intern_own(&in, &own, "own1", 4);
	ck_assert_ptr_eq(o, (const char *)own.head->data + INTERN_NDATA * sizeof(void *));
	ck_assert_ptr_eq(intern_own(&in, &own, "t8", 2), names[8]);
	in.lock = NULL;
	ck_assert_ptr_eq(intern_cstr(&in, "own1"), o);
	ck_assert_uint_eq(in.count, 5003);
	pthread_spin_destroy(&lock);
	/* asking ahead for a name's slot adds nothing */
	intern_prefetch(&in, "t5000", 5);
	intern_prefetch(&in, "t1\0x", 4);
	ck_assert_ptr_null(intern_find(&in, "t5000"));
	ck_assert_uint_eq(in.count, 5003);
	intern_free(&in);
	arena_free(&own);
	arena_free(&a);
}
END_TEST

/* The lines and columns of "ab\ncd\r\n\nxyz" in f. */
static void check_lines(const SourceFile *f)
{
	unsigned line, col;
	source_linecol(f, 0, &line, &col);
	ck_assert_uint_eq(line, 1);
	ck_assert_uint_eq(col, 1);
	source_linecol(f, 2, &line, &col); /* the first '\n' */
	ck_assert_uint_eq(line, 1);
	ck_assert_uint_eq(col, 3);
	source_linecol(f, 4, &line, &col);
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(col, 2);
	source_linecol(f, 8, &line, &col);
	ck_assert_uint_eq(line, 4);
	ck_assert_uint_eq(col, 1);
	source_linecol(f, f->len, &line, &col); /* end of input */
	ck_assert_uint_eq(line, 4);
	ck_assert_uint_eq(col, 4);
	const char *start;
	size_t len;
	source_line(f, 2, &start, &len); /* CR is not part of the line */
	ck_assert_uint_eq(len, 2);
	ck_assert_int_eq(strncmp(start, "cd", 2), 0);
	source_line(f, 3, &start, &len);
	ck_assert_uint_eq(len, 0);
}

START_TEST(source_line_columns)
{
	const char *text = "ab\ncd\r\n\nxyz";
	SourceFile *f = source_from_memory("f.nnef", text, strlen(text));
	ck_assert_ptr_nonnull(f->lines); /* at once: threads may share it */
	check_lines(f);
	source_free(f);
	/* a mapped document has its line table built when first needed */
	f = source_from_mapping("g.nnef", text, strlen(text));
	ck_assert_ptr_null(f->lines);
	check_lines(f);
	ck_assert_ptr_nonnull(f->lines);
	check_lines(f);
	source_free(f);
}
END_TEST

typedef struct LinesRace {
	const SourceFile *f;
	pthread_barrier_t *start;
	unsigned line, col;
} LinesRace;

static void *linecol_at_once(void *arg)
{
	LinesRace *r = arg;
	pthread_barrier_wait(r->start);
	source_linecol(r->f, r->f->len - 1, &r->line, &r->col);
	return NULL;
}

/* The two threads of a pass may both turn a position into a line first
 * (util.h, source_from_mapping): each gets the right one, and one table
 * is kept (ThreadSanitizer sees no race; LeakSanitizer and valgrind see
 * no table lost). */
START_TEST(source_lines_built_by_two_threads)
{
	char text[4096];
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = i % 8 == 7 ? '\n' : 'a';
	for (int round = 0; round < 20; round++) {
		SourceFile *f = source_from_mapping("race.nnef", text, 4096);
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, 2);
		LinesRace r[2] = { { f, &start, 0, 0 }, { f, &start, 0, 0 } };
		pthread_t t;
		ck_assert_int_eq(pthread_create(&t, NULL, linecol_at_once, &r[0]), 0);
		linecol_at_once(&r[1]);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&start);
		for (int k = 0; k < 2; k++) { /* the last '\n': line 512 */
			ck_assert_uint_eq(r[k].line, 512);
			ck_assert_uint_eq(r[k].col, 8);
		}
		ck_assert_uint_eq(f->nlines, 513);
		source_free(f);
	}
}
END_TEST

START_TEST(source_read_errors)
{
	const char *err = NULL;
	ck_assert_ptr_null(source_read("/nonexistent/graph.nnef", &err));
	ck_assert_str_eq(err, "No such file or directory");
	ck_assert_ptr_null(source_read("/", &err));
	ck_assert_str_eq(err, "Is a directory");
}
END_TEST

START_TEST(loc_helpers)
{
	SourceFile *f = source_from_memory("f", "abcdefgh", 8);
	Loc a = loc_make(f, 1, 2), b = loc_make(f, 5, 1);
	Loc j = loc_join(a, b);
	ck_assert_uint_eq(j.off, 1);
	ck_assert_uint_eq(j.len, 5);
	j = loc_join(b, a);
	ck_assert_uint_eq(j.off, 1);
	ck_assert_uint_eq(j.len, 5);
	Loc e = loc_end(a);
	ck_assert_uint_eq(e.off, 3);
	ck_assert_uint_eq(e.len, 0);
	source_free(f);
}
END_TEST

START_TEST(real_formatting)
{
	char buf[32];
	util_format_real(buf, 1.0);
	ck_assert_str_eq(buf, "1.0");
	util_format_real(buf, 0.1);
	ck_assert_str_eq(buf, "0.1");
	util_format_real(buf, -2.5e-7);
	ck_assert_str_eq(buf, "-2.5e-7");
	util_format_real(buf, 1e20);
	ck_assert_str_eq(buf, "1e20");
	util_format_real(buf, 1000.0);
	ck_assert_str_eq(buf, "1000.0");
	util_format_real(buf, 123.25);
	ck_assert_str_eq(buf, "123.25");
	util_format_real(buf, 0.00125);
	ck_assert_str_eq(buf, "0.00125");
	util_format_real(buf, 0.0);
	ck_assert_str_eq(buf, "0.0");
	util_format_real(buf, -0.0);
	ck_assert_str_eq(buf, "-0.0");
	util_format_real(buf, 1e16);
	ck_assert_str_eq(buf, "10000000000000000.0");
	util_format_real(buf, 1.7976931348623157e308);
	ck_assert_str_eq(buf, "1.7976931348623157e308");
	util_format_real(buf, 5e-324);
	ck_assert_str_eq(buf, "5e-324");
	util_format_real(buf, 1.0 / 3.0);
	ck_assert_double_eq(strtod(buf, NULL), 1.0 / 3.0);
}
END_TEST

/* ---- diagnostics ---------------------------------------------------- */

START_TEST(diag_render_caret_under_span_with_tabs)
{
	const char *text = "version 1.0;\n\tx = conv(a,\tb)\n";
	SourceFile *f = source_from_memory("g.nnef", text, strlen(text));
	DiagList dl;
	diag_list_init(&dl, 0);
	/* the span "b)" on line 2, after a tab inside the line */
	Diag *d = diag_add(&dl, DIAG_E0201, loc_make(f, 26, 2),
			   "expected %s", "something");
	diag_hint(&dl, d, "a hint");
	diag_note(&dl, d, loc_make(f, 0, 7), true, "see %s", "here");
	StrBuf out;
	sb_init(&out);
	DiagRenderOpts o = { .show_warnings = true, .show_source = true };
	diag_render_all(&dl, &out, &o);
	ck_assert_str_eq(sb_str(&out),
			 "g.nnef:2:14: error[E0201]: expected something\n"
			 " 2 | \tx = conv(a,\tb)\n"
			 "   | \t           \t^~\n"
			 "   = hint: a hint\n"
			 "g.nnef:1:1: note: see here\n"
			 " 1 | version 1.0;\n"
			 "   | ^~~~~~~\n");
	sb_free(&out);
	diag_list_free(&dl);
	source_free(f);
}
END_TEST

START_TEST(diag_render_color_and_no_location)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	diag_add(&dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read 'x'");
	StrBuf out;
	sb_init(&out);
	DiagRenderOpts o = { .color = true, .show_warnings = true,
			     .show_source = true };
	diag_render_all(&dl, &out, &o);
	ck_assert_str_eq(sb_str(&out),
			 "\033[1;31merror[E0001]\033[0m\033[1m: cannot read "
			 "'x'\033[0m\n");
	sb_free(&out);
	diag_list_free(&dl);
}
END_TEST

/* GCC's layout: one line each; a note without a place, and a
 * diagnostic without one, start with the path of the file it is about,
 * else with the program's name */
START_TEST(diag_render_gcc_lines)
{
	const char *text = "version 1.0;\n\tx = conv(a,\tb)\n";
	SourceFile *f = source_from_memory("g.nnef", text, strlen(text));
	DiagList dl;
	diag_list_init(&dl, 0);
	Diag *d = diag_add_level(&dl, DIAG_WARNING, DIAG_E0201, loc_make(f, 26, 2), "expected something");
	diag_hint(&dl, d, "a hint");
	diag_note(&dl, d, loc_make(f, 0, 7), true, "see here");
	diag_note(&dl, d, loc_make(NULL, 0, 0), false, "no place");
	d = diag_add(&dl, DIAG_E1001, loc_make(NULL, 0, 0), "bad magic");
	diag_set_path(&dl, d, "m/w.dat");
	diag_note(&dl, d, loc_make(NULL, 0, 0), false, "of the model");
	diag_add(&dl, DIAG_E0001, loc_make(NULL, 0, 0), "cannot read 'x'");
	StrBuf out;
	sb_init(&out);
	for (size_t i = 0; i < dl.len; i++)
		diag_render_gcc(dl.items[i], &out, "prog");
	ck_assert_str_eq(sb_str(&out),
			 "g.nnef:2:14: warning: expected something (an error, downgraded to a warning by --lenient) [E0201]\n"
			 "g.nnef:2:14: note: hint: a hint\n"
			 "g.nnef:1:1: note: see here\n"
			 "prog: note: no place\n"
			 "m/w.dat: error: bad magic [E1001]\n"
			 "m/w.dat: note: of the model\n"
			 "prog: error: cannot read 'x' [E0001]\n");
	sb_free(&out);
	diag_list_free(&dl);
	source_free(f);
}
END_TEST

START_TEST(diag_limit_and_sort)
{
	const char *text = "abcdefghij";
	SourceFile *f = source_from_memory("g", text, 10);
	DiagList dl;
	diag_list_init(&dl, 3);
	diag_add(&dl, DIAG_E0201, loc_make(f, 5, 1), "five");
	diag_add(&dl, DIAG_W0303, loc_make(f, 1, 1), "warn");
	diag_add(&dl, DIAG_E0201, loc_make(f, 2, 1), "two");
	ck_assert(!diag_limit_reached(&dl));
	diag_add(&dl, DIAG_E0201, loc_make(f, 2, 1), "two again");
	ck_assert(diag_limit_reached(&dl));
	ck_assert_ptr_null(diag_add(&dl, DIAG_E0201, loc_make(f, 0, 1), "x"));
	ck_assert_uint_eq(dl.nerrors, 3);
	ck_assert_uint_eq(dl.nwarnings, 1);
	ck_assert_uint_eq(dl.dropped_errors, 1);
	diag_sort(&dl);
	ck_assert_str_eq(dl.items[0]->msg, "warn");
	ck_assert_str_eq(dl.items[1]->msg, "two");
	ck_assert_str_eq(dl.items[2]->msg, "two again"); /* stable */
	ck_assert_str_eq(dl.items[3]->msg, "five");
	diag_list_free(&dl);
	source_free(f);
}
END_TEST

START_TEST(diag_code_table)
{
	ck_assert_str_eq(diag_code_name(DIAG_E0202), "E0202");
	ck_assert_int_eq(diag_code_level(DIAG_W0303), DIAG_WARNING);
	ck_assert_int_eq(diag_code_level(DIAG_N0930), DIAG_NOTE);
	/* Names are unique and start with the level's letter. */
	for (int i = 0; i < DIAG_CODE_COUNT; i++) {
		const char *n = diag_code_name((DiagCode)i);
		DiagLevel lv = diag_code_level((DiagCode)i);
		ck_assert_uint_eq(strlen(n), 5);
		ck_assert(n[0] == (lv == DIAG_ERROR     ? 'E'
				   : lv == DIAG_WARNING ? 'W'
							: 'N'));
		ck_assert(strlen(diag_code_summary((DiagCode)i)) > 0);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(n, diag_code_name((DiagCode)j));
	}
}
END_TEST

/* roff text as printed: the escapes the manual pages use for quotes,
 * hyphens and backslashes replaced, in place. */
static void unescape_roff(char *s)
{
	static const struct { const char *esc, *text; } map[] = {
		{ "\\(aq", "'" }, { "\\(dq", "\"" }, { "\\-", "-" },
		{ "\\e", "\\" }, { "\\&", "" }, { "\\(ga", "`" },
	};
	char *w = s;
	for (const char *r = s; *r;) {
		size_t k = 0, n = sizeof(map) / sizeof(map[0]);
		while (k < n && strncmp(r, map[k].esc, strlen(map[k].esc)) != 0)
			k++;
		if (k == n) {
			*w++ = *r++;
			continue;
		}
		for (const char *t = map[k].text; *t;)
			*w++ = *t++;
		r += strlen(map[k].esc);
	}
	*w = '\0';
}

/* nnef-diagnostics(7) has an entry ".SS CODE \(em SUMMARY" for every
 * code of util/diag_codes.def, with the table's summary. */
START_TEST(diag_codes_documented)
{
	char *man = test_read_source_file("man/man7/nnef-diagnostics.7");
	ck_assert_msg(man != NULL, "cannot read man/man7/nnef-diagnostics.7");
	unescape_roff(man);
	for (int i = 0; i < DIAG_CODE_COUNT; i++) {
		char want[512];
		snprintf(want, sizeof(want), ".SS %s \\(em %s\n",
			 diag_code_name((DiagCode)i),
			 diag_code_summary((DiagCode)i));
		ck_assert_msg(strstr(man, want) != NULL,
			      "%s is not documented in nnef-diagnostics(7) as '%s'",
			      diag_code_name((DiagCode)i), want);
	}
	free(man);
}
END_TEST

/* util_stats_add: the counts, a sample deviation known by hand, the
 * same bits given whole or in pieces of whole chunks and for floats or
 * their doubles, and precision far from zero. */
START_TEST(stats_of_reals)
{
	UtilStats st = { 0 };
	const double hand[] = { 1.0, NAN, 2.0, INFINITY, 3.0, -INFINITY, 6.0 };
	util_stats_add(&st, hand, 7);
	ck_assert_uint_eq(st.count, 4);
	ck_assert_uint_eq(st.nan, 1);
	ck_assert_uint_eq(st.inf, 2);
	ck_assert(st.min == 1.0 && st.max == 6.0 && st.mean == 3.0);
	ck_assert_double_eq_tol(util_stats_sample_std(&st), sqrt(14.0 / 3.0), 1e-15);
	UtilStats one = { 0 };
	util_stats_add(&one, hand, 1);
	ck_assert(util_stats_sample_std(&one) == 0.0);

	size_t n = 3 * UTIL_STATS_CHUNK + 17;
	double *d = malloc(n * sizeof(double));
	float *f = malloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++) {
		f[i] = (float)((double)((i * 7919) % 1000) / 37.0 - 9.5);
		d[i] = f[i];
	}
	f[5] = NAN;
	d[5] = NAN;
	f[2000] = -INFINITY;
	d[2000] = -INFINITY;
	UtilStats whole = { 0 }, pieces = { 0 }, floats = { 0 };
	util_stats_add(&whole, d, n);
	util_stats_add(&pieces, d, UTIL_STATS_CHUNK);
	util_stats_add(&pieces, d + UTIL_STATS_CHUNK, 2 * UTIL_STATS_CHUNK);
	util_stats_add(&pieces, d + 3 * UTIL_STATS_CHUNK, 17);
	util_stats_add_f32(&floats, f, n);
	ck_assert(memcmp(&whole, &pieces, sizeof(whole)) == 0);
	ck_assert(memcmp(&whole, &floats, sizeof(whole)) == 0);
	ck_assert_uint_eq(whole.count, n - 2);
	/* merged halves agree with the whole to rounding */
	UtilStats a = { 0 }, b = { 0 };
	util_stats_add(&a, d, 1000);
	util_stats_add(&b, d + 1000, n - 1000);
	util_stats_merge(&a, &b);
	ck_assert_uint_eq(a.count, whole.count);
	ck_assert_double_eq_tol(a.mean, whole.mean, 1e-12);
	ck_assert_double_eq_tol(util_stats_sample_std(&a), util_stats_sample_std(&whole), 1e-12);
	/* 1e9 + k for k < n: the sample deviation of 0..n-1 is
	 * sqrt(n (n + 1) / 12) */
	UtilStats far = { 0 };
	for (size_t i = 0; i < n; i++)
		d[i] = 1e9 + (double)i;
	util_stats_add(&far, d, n);
	ck_assert_double_eq_tol(util_stats_sample_std(&far), sqrt((double)n * (double)(n + 1) / 12.0), 1e-6);
	free(d);
	free(f);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("memory");
	tcase_add_test(tc, arena_alignment_and_zeroing);
	tcase_add_test(tc, realloc_through_the_block_sizes);
	tcase_add_test(tc, arena_chunks_from_a_source);
	tcase_add_test(tc, arena_room_ready_in_steps);
	tcase_add_test(tc, arena_reserve_keeps_one_chunk);
	tcase_add_test(tc, calloc_faults_in_large_blocks);
	tcase_add_test(tc, map_ordinary_pages);
	tcase_add_test(tc, strbuf_appends);
	tcase_add_test(tc, interner_identity);
	tcase_add_test(tc, real_formatting);
	tcase_add_test(tc, stats_of_reals);
	suite_add_tcase(s, tc);
	tc = tcase_create("source");
	tcase_add_test(tc, source_line_columns);
	tcase_add_test(tc, source_lines_built_by_two_threads);
	tcase_add_test(tc, source_read_errors);
	tcase_add_test(tc, loc_helpers);
	suite_add_tcase(s, tc);
	tc = tcase_create("diag");
	tcase_add_test(tc, diag_render_caret_under_span_with_tabs);
	tcase_add_test(tc, diag_render_color_and_no_location);
	tcase_add_test(tc, diag_render_gcc_lines);
	tcase_add_test(tc, diag_limit_and_sort);
	tcase_add_test(tc, diag_code_table);
	tcase_add_test(tc, diag_codes_documented);
	suite_add_tcase(s, tc);
	return s;
}
