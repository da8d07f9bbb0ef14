/*
 * util.h - memory, strings and source files shared by every stage.
 *
 * Arena: a bump allocator; everything a document produces (AST, types,
 * values, diagnostics text) lives in one arena freed at once.
 * StrBuf: a growable, NUL-terminated character buffer with printf-append.
 * Interner: maps identifier spellings to unique pointers, so names compare
 * by pointer equality.
 * SourceFile and Loc: the text of a document and byte-offset locations into
 * it; line and column are computed only when a location is printed.
 *
 * Heaps: every allocation belongs to the heap of the handle it was made
 * for; a failed allocation jumps back to the library's entry point
 * (util_oom), which reports it.
 */
#ifndef NNEF_UTIL_H
#define NNEF_UTIL_H

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NNEF_VERSION "0.1.0"

#if defined(__GNUC__)
#define UTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define UTIL_NORETURN __attribute__((noreturn))
#else
#define UTIL_PRINTF(f, a)
#define UTIL_NORETURN

#endif

#define UTIL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Heaps, and recovery from allocation failure (heap.c) ----------- */

/* The header of every block util_malloc and its kin return: the links of
 * the heap it belongs to. */
typedef struct UtilBlock {
	struct UtilBlock *next, *prev;
	size_t mapped;      /* bytes mapped (util_map), 0 for malloc */
	void *base;         /* what malloc or mmap returned */
} UtilBlock;

/* All the blocks allocated while it was current on a thread: what one
 * handle of the library owns, given back at once by util_heap_release. */
typedef struct UtilHeap {
	UtilBlock head;
} UtilHeap;

/* A resource to give back when an allocation fails before it is closed:
 * registered (innermost first) on the thread, run by util_oom. */
typedef struct UtilCleanup {
	struct UtilCleanup *outer;
	void (*fn)(void *);
	void *arg;
} UtilCleanup;

/* Where util_oom returns to. Use:
 *   UtilRecover r;
 *   util_recover_push(&r, heap);
 *   if (setjmp(r.jb)) { ...failed: r is popped, the cleanups ran... }
 *   ...work...
 *   util_recover_pop(&r);
 * Variables changed after setjmp and read in the failure branch must be
 * volatile. */
typedef struct UtilRecover {
	jmp_buf jb;
	struct UtilRecover *outer;
	UtilHeap *heap;        /* the heap current before the push */
	UtilCleanup *cleanups; /* the cleanups registered before the push */
} UtilRecover;

void util_heap_init(UtilHeap *h);
/* Frees every block of h (h stays usable, empty). */
void util_heap_release(UtilHeap *h);
/* Makes h (NULL: none) the heap of this thread's new blocks; returns the
 * previous one. */
UtilHeap *util_heap_use(UtilHeap *h);
UtilHeap *util_heap_current(void);
/* A thread that works for another, which waits for it: it takes over the
 * heap and the fault injection, and a failure in it fails the other. */
typedef struct UtilThreadState {
	UtilHeap *heap;
	long fail_at;
	unsigned long count;
	bool failed;
} UtilThreadState;
void util_thread_save(UtilThreadState *s);          /* the waiting thread, before */
void util_thread_run(UtilThreadState *s, void (*fn)(void *), void *ctx); /* the worker */
void util_thread_resume(UtilThreadState *s);        /* the waiting thread, after */
/* Two threads that allocate in one heap at once each call this with the
 * same lock (and NULL when they are done): the links of the heap's
 * blocks then change under it. */
void util_heap_share(pthread_spinlock_t *lock);
/* Has the pages of [p, p + len) faulted in for writing, their contents
 * untouched (when the system can; else nothing happens): every page that
 * holds a byte of it, which must be mapped writable. */
void util_prefault(void *p, size_t len);
/* Fresh memory of this size and more is faulted in ahead, by
 * util_prefault, in steps of this size (an arena's chunks) or at once
 * (zeroed blocks): one call costs a fraction of a page fault a page. */
#define UTIL_PREFAULT_BYTES ((size_t)64 << 10)
/* Pushes a recovery point and makes heap current; pop restores both. */
void util_recover_push(UtilRecover *r, UtilHeap *heap);
void util_recover_pop(UtilRecover *r);
/* True when this thread has a recovery point. */
bool util_recovering(void);
/* Fails: runs the cleanups registered since the innermost recovery point,
 * pops it and jumps to it; without one, prints "nnefkit: out of memory"
 * and exits with status 2. */
UTIL_NORETURN void util_oom(void);
void util_cleanup_push(UtilCleanup *c, void (*fn)(void *), void *arg);
/* Unregisters c without running it. */
void util_cleanup_pop(UtilCleanup *c);
/* fopen, with the file closed by util_oom until util_fclose (c is the
 * caller's: it must live as long as the file is open). */
FILE *util_fopen(const char *path, const char *mode, UtilCleanup *c);
int util_fclose(FILE *fp, UtilCleanup *c);
/* Tests: the allocation n allocations from now fails (n < 0: none), and
 * the number of allocations since. Per thread. */
void util_fail_after(long n);
unsigned long util_alloc_count(void);

/* malloc/realloc/calloc that never return NULL (they call util_oom).
 * Give their blocks back with util_free, never free. */
void *util_malloc(size_t size);
void *util_realloc(void *p, size_t size);
void *util_calloc(size_t n, size_t size);
char *util_strdup(const char *s);
void util_free(void *p);
/* Like util_malloc/util_calloc but NULL when memory is short: for the
 * allocations that have a diagnostic of their own. */
void *util_try_malloc(size_t size);
void *util_try_calloc(size_t n, size_t size);
/* size bytes aligned to align (a power of two, at least 64), NULL when
 * memory is short; never to be reallocated. */
void *util_try_aligned(size_t size, size_t align);
/* Fresh zeroed pages (ordinary ones: heap.c says why), faulted in as
 * they are first written; NULL when mmap fails; give back with
 * util_free. */
void *util_map(size_t size);
/* The first len bytes of the open file fd as a read-only mapping,
 * followed by two NULs; NULL when it cannot be mapped (then read it).
 * Give back with util_free. The pages come from the file as they are
 * read, and util_map_forget gives them back. */
void *util_map_file(int fd, size_t len);
/* The whole pages of [p + from, p + to) of a util_map_file block will not
 * be read soon: they leave memory, and are read from the file again if
 * they are. */
void util_map_forget(void *p, size_t from, size_t to);
/* Room for item len of a growable array p of *cap items of `size` bytes:
 * p itself while len < *cap, else p grown to twice its capacity (to
 * `first` items at first). Use ARRAY_RESERVE. */
void *util_grow_array(void *p, size_t *cap, size_t len, size_t size,
		      size_t first);
#define ARRAY_RESERVE(arr, len, cap, first) \
	((arr) = util_grow_array((arr), &(cap), (len), sizeof(*(arr)), (first)))

/* ---- Arena ---------------------------------------------------------- */

typedef struct ArenaChunk ArenaChunk;

typedef struct ArenaAdopted ArenaAdopted;

typedef struct Arena {
	ArenaChunk *head;   /* current chunk; older chunks are linked behind */
	ArenaAdopted *adopted; /* blocks freed with the arena (arena_adopt) */
	size_t allocated;   /* bytes handed out, for statistics */
	/* Optional: where a chunk of ARENA_SOURCE_BYTES comes from first,
	 * a block of arena_prepare_chunk faulted in, or NULL (another thread
	 * prepares them) */
	void *(*source)(void *ctx);
	void *source_ctx;
} Arena;

struct ArenaChunk {
	ArenaChunk *prev;
	size_t used;
	size_t cap;         /* the room ready for arena_alloc: faulted in */
	size_t size;        /* the whole room (arena.c) */
	_Alignas(16) unsigned char data[];
};

void arena_init(Arena *a);
#define ARENA_ALIGNMENT 8
/* arena_alloc when the current chunk has no room (or there is none). */
void *arena_alloc_chunk(Arena *a, size_t size);
/* Returns zeroed memory aligned to 8 bytes, valid until arena_free. */
static inline void *arena_alloc(Arena *a, size_t size)
{
	ArenaChunk *c = a->head;
	size_t rounded = (size + ARENA_ALIGNMENT - 1) & ~(size_t)(ARENA_ALIGNMENT - 1);
	if (!c || size - 1 >= SIZE_MAX / 2 || c->cap - c->used < rounded)
		return arena_alloc_chunk(a, size); /* also sizes 0 and huge */
	void *p = c->data + c->used;
	c->used += rounded;
	a->allocated += rounded;
	return p;
}
/* Like arena_alloc for n items of size bytes, checking for overflow. */
void *arena_array(Arena *a, size_t n, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) UTIL_PRINTF(2, 3);
char *arena_vprintf(Arena *a, const char *fmt, va_list ap) UTIL_PRINTF(2, 0);
void arena_free(Arena *a);
/* Makes a block of util_malloc (or util_realloc...) part of a: freed
 * with it, so that an array built by growing need not be copied in. */
void arena_adopt(Arena *a, void *block);
/* Frees everything allocated so far but keeps the newest chunk, zeroed,
 * for what follows: a scratch arena reused for one item after another. */
void arena_reset(Arena *a);
/* Makes the current chunk one that holds n more bytes (its pages are
 * still faulted in as the arena comes to them): an arena that will be
 * filled to about n and reset, again and again, then keeps one chunk
 * instead of the doubling ones that lead to it. */
void arena_reserve(Arena *a, size_t n);

/* A chunk for an arena's source: ARENA_SOURCE_BYTES on pages of its own,
 * the size of the chunks a growing arena asks its source for; NULL when
 * memory is short. Whoever prepares it faults its pages in
 * (util_prefault) before handing it over, so that the arena's thread
 * does not. */
#define ARENA_SOURCE_BYTES (((size_t)4 << 20) - sizeof(UtilBlock))
void *arena_prepare_chunk(void);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_array((a), (n), sizeof(T)))

/* ---- StrBuf --------------------------------------------------------- */

typedef struct StrBuf {
	char *data;   /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_clear(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...) UTIL_PRINTF(2, 3);
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) UTIL_PRINTF(2, 0);
/* Returns the contents ("" when empty); the buffer keeps ownership. */
const char *sb_str(const StrBuf *b);
/* Appends s quoted for messages: printable ASCII as is, others as \xNN. */
void sb_put_escaped(StrBuf *b, const char *s, size_t n);
/* Appends v as a JSON number that reads back as v exactly
 * (util_format_real), or null when v is not finite. */
void sb_put_json_real(StrBuf *b, double v);
/* Appends the JSON record of a tensor's statistics, one format for
 * nnef-datinfo and nnef-run --statistics: {"min", "max", "mean", "std"
 * (null when not finite), "count", "nan", "inf"}. */
void sb_put_json_stats(StrBuf *b, double min, double max, double mean,
		       double std, uint64_t count, uint64_t nan, uint64_t inf);

/* ---- Interner ------------------------------------------------------- */

/* A slot of an InternCache: the hash and length beside the spelling. */
typedef struct InternSlot {
	const char *s;      /* NULL = empty */
	uint32_t hash;
	uint32_t len;
} InternSlot;

/* The table holds 8 bytes a spelling, whose table is the largest of a
 * check of millions of names: the spelling's address in the low 48 bits
 * (the most a Linux process is given unless it asks for more), and 16
 * bits of its hash above, so that a probe reads other spellings only on
 * a match of those bits. A spelling holding a NUL byte is not shared:
 * each intern of it makes a new copy, kept out of the table (no name of a
 * valid document holds one). */
typedef struct Interner {
	Arena *arena;       /* where the spellings are stored */
	uint64_t *slots;    /* open addressing; 0 = empty */
	size_t cap;         /* power of two */
	pthread_spinlock_t *lock; /* set while two threads intern at once: the
			       table and the arena change under it */
	/* count is written at each new spelling: kept a cache line away
	 * from the fields every lookup reads, so that one thread's new
	 * names do not take that line from the other (a padding, not an
	 * alignment, which the memory holding an Interner may not have) */
	unsigned char apart[64];
	size_t count;
} Interner;

void intern_init(Interner *in, Arena *arena);
void intern_free(Interner *in);
/* Returns the unique NUL-terminated copy of s[0..n). */
const char *intern_bytes(Interner *in, const char *s, size_t n);
const char *intern_cstr(Interner *in, const char *s);
/* Like intern; while the interner is shared (Interner.lock), the record
 * of a new spelling is made in own, an arena of the caller's thread
 * alone, before the lock is taken. */
const char *intern_own(Interner *in, Arena *own, const char *s, size_t n);
/* Makes room for n more spellings, so that adding them never grows the
 * table (a growth holds the lock of a shared interner for long); the
 * table's memory is faulted in when it is made (util_calloc), so a shared
 * interner does not take those page faults under its lock. */
void intern_reserve(Interner *in, size_t n);
/* Asks for the memory of the table slot s[0..n) would be looked up in,
 * ahead of its intern (nothing is read or written: safe at any time, also
 * on a shared interner without its lock). */
void intern_prefetch(const Interner *in, const char *s, size_t n);
/* Whether the table of in is larger than a core's caches hold, so that a
 * probe is a miss far away in memory: where intern_prefetch pays (safe
 * as intern_prefetch is). */
enum { INTERN_FAR_BYTES = 1 << 20 };
bool intern_far(const Interner *in);
/* The interned copy of s, or NULL when s was never interned (nothing is
 * added: safe on a shared, read-only interner). */
const char *intern_find(const Interner *in, const char *s);

/* A small table in front of an interner for one reader of a text (the
 * lexer): the names met lately, found without a probe of the interner's
 * table, which is far away in memory once it holds millions. */
enum { INTERN_CACHE_SIZE = 1024 };
typedef struct InternCache {
	InternSlot slots[INTERN_CACHE_SIZE];
	Arena *arena;       /* where the reader's new spellings go while the
			       interner is shared (Interner.lock); NULL: the
			       interner's arena */
} InternCache;

/* Like intern, looking in c first (c zeroed at first). */
const char *intern_cached(Interner *in, InternCache *c, const char *s,
			  size_t n);

/* Every interned spelling has these pointer-sized slots just before it,
 * NULL at first: a stage keeps there what it knows of a name of the one
 * scope that can hold millions of names, the graph's body, where a table
 * would cost a lookup far away in memory per use. Each slot has one
 * owner, which sets it back to NULL when it is done. */
typedef enum InternData {
	IDATA_SEMA_GRAPH,   /* sema: the Binding of a graph identifier */
	IDATA_FLAT,         /* flatten: the value of a graph identifier, and
			       whether the name is taken by a tensor */
	INTERN_NDATA
} InternData;

/* Sets the slot k of every spelling of in back to NULL. */
void intern_clear_data(Interner *in, InternData k);

/* The slot k of an interned spelling (of intern only). */
static inline void **intern_data(const char *interned, InternData k)
{
	return (void **)(void *)(uintptr_t)interned - INTERN_NDATA + k;
}

/* ---- PtrMap ---------------------------------------------------------- */

/* A hash map from pointers (interned names, AST nodes...) to pointers,
 * with open addressing; keys are never NULL, values may be. */
/* A slot of a PtrMap: key and value together (one place of memory per
 * probe). */
typedef struct PtrSlot {
	const void *key;  /* NULL = free */
	void *val;
} PtrSlot;

typedef struct PtrMap {
	PtrSlot *slots;
	size_t cap;   /* power of two */
	size_t count;
} PtrMap;

void pmap_init(PtrMap *m);
void pmap_free(PtrMap *m);
/* The value of key; *found tells whether key is present. */
void *pmap_get(const PtrMap *m, const void *key, bool *found);
bool pmap_has(const PtrMap *m, const void *key);
/* Sets the value of key (inserting it when absent). */
void pmap_put(PtrMap *m, const void *key, void *val);
/* The value slot of key, inserted with NULL when absent. The pointer
 * stays valid until the next insertion. */
void **pmap_ref(PtrMap *m, const void *key);

/* ---- Source files and locations ------------------------------------- */

typedef struct SourceFile {
	const char *path;   /* as given by the user, for messages */
	const char *text;   /* the bytes; not necessarily NUL-terminated */
	size_t len;
	uint32_t *lines;    /* byte offset of each line start (built when
			       first needed for a mapped source) */
	size_t nlines;
	bool owns_text;     /* text was allocated by source_read */
	bool scannable;     /* text[len] and text[len + 1] are NUL and text is
			       writable: the lexer scans it in place (it
			       restores every byte it changes) */
	bool mapped;        /* text is a util_map_file block: source_forget
			       gives its pages back */
} SourceFile;

/* A span of bytes in a source file. */
typedef struct Loc {
	const SourceFile *file; /* NULL for diagnostics without a position */
	uint32_t off;           /* byte offset of the first byte */
	uint32_t len;           /* length in bytes (0 = a point) */
} Loc;

/* Largest document we accept: offsets are 32-bit. */
#define SOURCE_MAX_BYTES ((size_t)1 << 30)

/* A source over a caller-owned buffer (not copied). */
SourceFile *source_from_memory(const char *path, const char *text, size_t len);
/* The same for a writable buffer of len bytes followed by two NULs, which
 * the lexer may then scan without a copy (the caller keeps owning it). */
SourceFile *source_from_buffer(const char *path, char *text, size_t len);
/* A source over a util_map_file block (mapped: source_forget gives its
 * pages back). Its line table is built when a position is first turned
 * into a line: a valid document is then read once, by the parse, and a
 * mapped document belongs to one thread (with the heap it shares with
 * the parser's thread, model/stream.c). Sources without a mapping build
 * it at once: threads of heaps of their own may share them (the standard
 * library), and the lexer changes bytes of a buffer it scans in place
 * while it reads it (source_from_buffer). */
SourceFile *source_from_mapping(const char *path, const char *text,
				size_t len);
/* Reads a whole file; on failure returns NULL and sets *err to a static
 * description (strerror or "file too large"). */
SourceFile *source_read(const char *path, const char **err);
void source_free(SourceFile *f);
/* The bytes of f before `before` will not be read soon (a parse has gone
 * past them): the pages of a mapped text leave memory, to be read from
 * the file again if a later stage reads them (a diagnostic's line). */
void source_forget(const SourceFile *f, size_t before);
/* The mode a file written to path should get: that of the file already
 * there, else 0666 less the process's umask (read without changing it,
 * so that threads may call this), as a shell redirection would give. */
unsigned util_output_mode(const char *path);
/* 1-based line and column (column counts bytes) of a byte offset. */
void source_linecol(const SourceFile *f, size_t off, unsigned *line,
		    unsigned *col);
/* Start and length (without the newline) of a 1-based line. */
void source_line(const SourceFile *f, unsigned line, const char **start,
		 size_t *len);

static inline Loc loc_make(const SourceFile *f, size_t off, size_t len)
{
	Loc l = { f, (uint32_t)off, (uint32_t)len };
	return l;
}

/* The smallest span covering a and b (same file). */
Loc loc_join(Loc a, Loc b);
/* The point just after a span. */
Loc loc_end(Loc a);

/* ---- Datum types (dtype.c, the table in util/dtypes.def) -------------- */

/* What the items of a datum type are. */
typedef enum DTypeClass {
	DTC_BOOL,      /* false or true */
	DTC_UNSIGNED,  /* unsigned integers */
	DTC_SIGNED,    /* signed integers */
	DTC_FLOAT,     /* IEEE 754 binary floating point */
	DTC_DIM,       /* tract's TDim: an integer extent, maybe symbolic */
	DTC_STRING,    /* text */
	DTC_QUANTIZED, /* integers with quantization parameters */
} DTypeClass;

/* The datum type of a tensor's items; DT_NONE where only the NNEF data
 * type (scalar, integer, logical) is known. */
typedef enum DType {
	DT_NONE,
#define DTYPE(id, name, bits, cls) DT_##id,
#include "util/dtypes.def"
#undef DTYPE
	DT_COUNT
} DType;

/* "f32"; "none" for DT_NONE. */
const char *dtype_name(DType t);
/* Bits of one item in memory (0: variable, or DT_NONE). */
unsigned dtype_bits(DType t);
DTypeClass dtype_class(DType t);
/* The datum type spelled name[0..len) as tract spells them (lower case,
 * or tract's capitalized form: "F32", "Bool", "TDim"), quantized types
 * excepted; DT_NONE when none is. */
DType dtype_parse(const char *name, size_t len);
/* Appends "bool, u8, u16, ..., string": the spellings dtype_parse
 * accepts, for messages. */
void dtype_list(StrBuf *out);
static inline bool dtype_is_float(DType t)
{
	return t != DT_NONE && dtype_class(t) == DTC_FLOAT;
}
/* Integers of any kind: unsigned, signed, TDim, quantized. */
bool dtype_is_integer(DType t);
/* d as datum type t holds it: rounded to the nearest f32 or f16 (ties to
 * even; f16 infinite beyond its largest), unchanged for other types
 * (tract computes f32 and f16 in their own precision, each result
 * rounded). */
double dtype_round(DType t, double d);
/* i wrapped to the width of integer type t (two's complement; signed
 * types sign-extended), as Rust's `as` between integers; unchanged for
 * 64-bit, TDim and non-integer types. */
int64_t dtype_wrap(DType t, int64_t i);
/* A real truncated toward zero to an integer, saturating, NaN as 0 (the
 * first step of Rust's `as` from a float). */
int64_t dtype_real_to_int(double d);
/* A real converted to integer type t as Rust's `as` converts it:
 * truncated toward zero, saturating at the ends of t's range, NaN as 0
 * (TDim, 64-bit and quantized types: at the ends of int64's). */
int64_t dtype_real_to(DType t, double d);

/* Writes the shortest decimal form of v that reads back exactly, always
 * as an NNEF real literal (with '.' or an exponent: 1.0, 2.5e-07).
 * buf must hold at least 32 bytes. Infinities and NaN print as inf/nan. */
void util_format_real(char *buf, double v);

/* ---- Statistics of reals (stats.c) ------------------------------------ */

/* The finite values seen (count, min, max, mean, m2: the sum of their
 * squared deviations from the mean), and the NaNs and infinities. Start
 * from all zeros. */
typedef struct UtilStats {
	uint64_t count, nan, inf;
	double min, max, mean, m2;
} UtilStats;

/* util_stats_add takes values in chunks of this many, whatever n is: two
 * callers that give the same values from the first in pieces of whole
 * chunks get the same bits. */
#define UTIL_STATS_CHUNK 1024

void util_stats_add(UtilStats *st, const double *v, size_t n);
/* The same of floats: the bits util_stats_add gives for them as doubles. */
void util_stats_add_f32(UtilStats *st, const float *v, size_t n);
/* Adds the statistics of other values, b, to st. */
void util_stats_merge(UtilStats *st, const UtilStats *b);
/* The statistics of a whole array are those of its parts of this many
 * values (the last shorter), each added by util_stats_add from its
 * first, merged in order (util_stats_merge): parts may be computed on
 * several threads and give the same bits. */
#define UTIL_STATS_PART (64 * UTIL_STATS_CHUNK)
/* The sample standard deviation of the finite values (n - 1 degrees of
 * freedom, as NumPy's std(ddof=1) and PyTorch's std): 0 for fewer than
 * two. */
double util_stats_sample_std(const UtilStats *st);

#endif
