/*
 * strbuf.c - growable NUL-terminated character buffers and the string
 * interner (open addressing; names hashed 8 bytes at a time by a multiply
 * and xor-shift mix, hash_bytes; load factor at most 1/2).
 */
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void sb_free(StrBuf *b)
{
	util_free(b->data);
	sb_init(b);
}

void sb_clear(StrBuf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static void sb_reserve(StrBuf *b, size_t extra)
{
	if (extra > SIZE_MAX / 4 - b->len)
		util_oom();
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = util_realloc(b->data, cap);
	b->cap = cap;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sb_putc(StrBuf *b, char c)
{
	sb_putn(b, &c, 1);
}

void sb_puts(StrBuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	sb_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *sb_str(const StrBuf *b)
{
	return b->data ? b->data : "";
}

void sb_put_json_real(StrBuf *b, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		sb_puts(b, "null");
		return;
	}
	util_format_real(buf, v);
	sb_puts(b, buf);
}

void sb_put_json_stats(StrBuf *b, double min, double max, double mean,
		       double std, uint64_t count, uint64_t nan, uint64_t inf)
{
	sb_puts(b, "{\"min\": ");
	sb_put_json_real(b, min);
	sb_puts(b, ", \"max\": ");
	sb_put_json_real(b, max);
	sb_puts(b, ", \"mean\": ");
	sb_put_json_real(b, mean);
	sb_puts(b, ", \"std\": ");
	sb_put_json_real(b, std);
	sb_printf(b, ", \"count\": %llu, \"nan\": %llu, \"inf\": %llu}", (unsigned long long)count, (unsigned long long)nan, (unsigned long long)inf);
}

void sb_put_escaped(StrBuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			sb_putc(b, (char)c);
		else if (c == '\t')
			sb_puts(b, "\\t");
		else if (c == '\n')
			sb_puts(b, "\\n");
		else
			sb_printf(b, "\\x%02X", c);
	}
}

/* ---- Interner ------------------------------------------------------- */

/* A name's hash, 8 bytes at a time (every name the lexer reads is
 * hashed: a byte at a time cost as much as the rest of its interning). */
static uint32_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (; n > 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	/* the last 1 to 8 bytes, in loads of a fixed size that cover them
	 * all (overlapping when fewer than 8) */
	uint64_t w = 0;
	if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else if (n) {
		w = (uint64_t)(unsigned char)s[0] << 16 |
		    (uint64_t)(unsigned char)s[n / 2] << 8 |
		    (unsigned char)s[n - 1];
	}
	h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* ---- the table's slots ---- */

#define SLOT_ADDRESS ((UINT64_C(1) << 48) - 1)

/* The 16 bits of h a slot keeps: mixed, because the table's index is
 * taken from h's low bits, which the spellings of a probe sequence
 * share. */
static uint64_t slot_tag(uint32_t h)
{
	return (uint64_t)((h * 0x9e3779b1u) >> 16) << 48;
}

static const char *slot_spelling(uint64_t w)
{
	return (const char *)(uintptr_t)(w & SLOT_ADDRESS);
}

/* Whether the NUL-terminated spelling t is s[0..n). */
static bool same_spelling(const char *t, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i] != s[i] || t[i] == '\0')
			return false; /* t ends before n bytes: never read past */
	return t[n] == '\0';
}

void intern_init(Interner *in, Arena *arena)
{
	in->arena = arena;
	in->cap = 256;
	in->count = 0;
	in->lock = NULL;
	in->slots = util_calloc(in->cap, sizeof(*in->slots));
}

void intern_free(Interner *in)
{
	util_free(in->slots);
	in->slots = NULL;
	in->cap = in->count = 0;
}

static void intern_resize(Interner *in, size_t cap);

static void intern_grow(Interner *in)
{
	intern_resize(in, in->cap * 2);
}

void intern_reserve(Interner *in, size_t n)
{
	if (n > SIZE_MAX / 8)
		util_oom();
	size_t cap = in->cap;
	while ((in->count + n) * 4 > cap * 3) {
		if (cap > SIZE_MAX / 2 / sizeof(*in->slots))
			util_oom();
		cap *= 2;
	}
	if (cap != in->cap)
		intern_resize(in, cap);
}

/* Asks for the memory of the slot of hash h, without the lock of a
 * shared interner (a stale table is no harm: a prefetch never faults). */
static void prefetch_slot(const Interner *in, uint32_t h)
{
	uint64_t *slots = __atomic_load_n(&in->slots, __ATOMIC_RELAXED);
	size_t cap = __atomic_load_n(&in->cap, __ATOMIC_RELAXED);
	if (slots) /* NULL once freed */
		__builtin_prefetch(&slots[h & (cap - 1)], 1);
}

void intern_prefetch(const Interner *in, const char *s, size_t n)
{
	prefetch_slot(in, hash_bytes(s, n));
}

bool intern_far(const Interner *in)
{
	size_t cap = __atomic_load_n(&in->cap, __ATOMIC_RELAXED);
	return cap * sizeof(*in->slots) >= INTERN_FAR_BYTES;
}

/* Moves the spellings to a table of cap slots (a power of two); their
 * hashes are worked out again (a table that is reserved ahead, as the
 * large ones are, never moves). */
static void intern_resize(Interner *in, size_t cap)
{
	uint64_t *slots = util_calloc(cap, sizeof(*slots));
	for (size_t i = 0; i < in->cap; i++) {
		if (!in->slots[i])
			continue;
		const char *s = slot_spelling(in->slots[i]);
		size_t j = hash_bytes(s, strlen(s)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = in->slots[i];
	}
	util_free(in->slots);
	/* read without the lock by intern_hashed, for a prefetch */
	__atomic_store_n(&in->slots, slots, __ATOMIC_RELAXED);
	__atomic_store_n(&in->cap, cap, __ATOMIC_RELAXED);
}

/* The slot of s (n bytes, hash h): its spelling's, or the free one where
 * it would go. */
static uint64_t *intern_probe(const Interner *in, const char *s, size_t n,
			      uint32_t h)
{
	uint64_t tag = slot_tag(h);
	size_t i = h & (in->cap - 1);
	for (;; i = (i + 1) & (in->cap - 1)) {
		uint64_t *sl = &in->slots[i];
		if (!*sl || ((*sl & ~SLOT_ADDRESS) == tag &&
			     same_spelling(slot_spelling(*sl), s, n)))
			return sl;
	}
}

static const char *intern_hashed(Interner *in, Arena *own, const char *s,
				 size_t n, uint32_t h);

const char *intern_bytes(Interner *in, const char *s, size_t n)
{
	return intern_own(in, NULL, s, n);
}

const char *intern_own(Interner *in, Arena *own, const char *s, size_t n)
{
	if (n > UINT32_MAX)
		util_oom();
	return intern_hashed(in, own, s, n, hash_bytes(s, n));
}

const char *intern_cached(Interner *in, InternCache *c, const char *s,
			  size_t n)
{
	if (n > UINT32_MAX)
		util_oom();
	uint32_t h = hash_bytes(s, n);
	InternSlot *sl = &c->slots[h & (INTERN_CACHE_SIZE - 1)];
	if (sl->s && sl->hash == h && sl->len == n && memcmp(sl->s, s, n) == 0)
		return sl->s;
	const char *name = intern_hashed(in, c->arena, s, n, h);
	*sl = (InternSlot){ name, h, (uint32_t)n };
	return name;
}

/* The record of a new spelling in a: its data slots, then the spelling
 * (arena memory is zeroed). */
static char *new_record(Arena *a, const char *s, size_t n)
{
	void **data = arena_alloc(a, INTERN_NDATA * sizeof(void *) + n + 1);
	char *copy = (char *)(data + INTERN_NDATA);
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

/* The spelling's record, added when it is new: made already, or made
 * now in the interner's arena. */
static const char *intern_new(Interner *in, const char *s, size_t n,
			      uint32_t h, const char *made)
{
	if (memchr(s, '\0', n)) /* not shared: see Interner */
		return made ? made : new_record(in->arena, s, n);
	uint64_t *sl = intern_probe(in, s, n, h);
	if (*sl)
		return slot_spelling(*sl); /* made, if any, stays unused */
	const char *copy = made ? made : new_record(in->arena, s, n);
	if ((uint64_t)(uintptr_t)copy > SLOT_ADDRESS)
		util_oom(); /* never given: see Interner */
	*sl = (uint64_t)(uintptr_t)copy | slot_tag(h);
	if (++in->count * 4 > in->cap * 3)
		intern_grow(in);
	return copy;
}

static void intern_unlock(void *lock)
{
	pthread_spin_unlock(lock);
}

/* intern, the interner locked when it is shared. A reader with an arena
 * of its own (own) then makes the record before it takes the lock: the
 * lock is held for a probe, not for the page faults of new memory. */
static const char *intern_hashed(Interner *in, Arena *own, const char *s,
				 size_t n, uint32_t h)
{
	if (!in->lock)
		return intern_new(in, s, n, h, NULL);
	prefetch_slot(in, h); /* before the lock is taken */
	const char *made = own ? new_record(own, s, n) : NULL;
	/* a failed allocation leaves the lock free */
	UtilCleanup c;
	pthread_spin_lock(in->lock);
	util_cleanup_push(&c, intern_unlock, (void *)(uintptr_t)in->lock);
	const char *name = intern_new(in, s, n, h, made);
	util_cleanup_pop(&c);
	pthread_spin_unlock(in->lock);
	return name;
}

void intern_clear_data(Interner *in, InternData k)
{
	for (size_t i = 0; i < in->cap; i++)
		if (in->slots[i])
			*intern_data(slot_spelling(in->slots[i]), k) = NULL;
}

const char *intern_cstr(Interner *in, const char *s)
{
	return intern_bytes(in, s, strlen(s));
}

const char *intern_find(const Interner *in, const char *s)
{
	size_t n = strlen(s);
	if (n > UINT32_MAX)
		return NULL;
	if (in->lock)
		pthread_spin_lock(in->lock); /* no allocation: no cleanup */
	const char *name = slot_spelling(*intern_probe(in, s, n, hash_bytes(s, n)));
	if (in->lock)
		pthread_spin_unlock(in->lock);
	return name;
}

void util_format_real(char *buf, double v)
{
	if (v != v) {
		strcpy(buf, "nan");
		return;
	}
	if (v == 1.0 / 0.0 || v == -1.0 / 0.0) {
		strcpy(buf, v > 0 ? "inf" : "-inf");
		return;
	}
	/* The fewest significant digits that read back exactly. */
	char e[40];
	for (int prec = 0; prec <= 16; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	/* e is "[-]D[.DDD]e[+-]XX": split into sign, digits and exponent. */
	const char *p = e;
	char *out = buf;
	if (*p == '-')
		*out++ = *p++;
	char digits[20];
	size_t nd = 0;
	for (; *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	int exp = atoi(p + 1);
	if (exp >= -5 && exp <= 16) {
		if (exp >= 0) {
			for (int i = 0; i <= exp; i++)
				*out++ = (size_t)i < nd ? digits[i] : '0';
			*out++ = '.';
			if ((size_t)exp + 1 < nd)
				for (size_t i = (size_t)exp + 1; i < nd; i++)
					*out++ = digits[i];
			else
				*out++ = '0';
		} else {
			*out++ = '0';
			*out++ = '.';
			for (int i = 0; i < -exp - 1; i++)
				*out++ = '0';
			for (size_t i = 0; i < nd; i++)
				*out++ = digits[i];
		}
		*out = '\0';
		return;
	}
	*out++ = digits[0];
	if (nd > 1) {
		*out++ = '.';
		for (size_t i = 1; i < nd; i++)
			*out++ = digits[i];
	}
	snprintf(out, 12, "e%d", exp);
}
