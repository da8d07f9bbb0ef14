/*
 * dim.c - symbolic integers: tract's TDim, the extents and integers of a
 * graph known only when the model runs (a symbol S of "extension
 * tract_symbol S;", and what is computed from symbols: S + P, 2 * S,
 * (S + 1) / 2).
 *
 * An expression is kept in a canonical form, a sum of terms, each an
 * integer coefficient times a product of atoms:
 *
 *   expr := term + term + ...          (sorted, like terms combined, no
 *                                       zero coefficient; [] is 0)
 *   term := coef * atom * atom * ...   (atoms sorted, repeated for powers;
 *                                       none for the constant term)
 *   atom := symbol | floor(expr / k) | min(expr, expr) | max(expr, expr)
 *
 * and hash-consed in a DimTable: two expressions are equal exactly when
 * their pointers are, so an extent compares as an integer (dim_encode).
 * Floor division by a positive constant takes out what divides exactly
 * ((4 * S + 6) / 4 = S + 6 / 4 = S + 1 + floor(2 / 4)... kept as
 * S + (2 * 1) / 4 only where a remainder stays); min and max of
 * expressions whose difference is a constant are decided. Coefficient
 * arithmetic is checked: an overflow makes the operation fail.
 */
#include "shapes/shapes.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef enum DimAtomKind {
	DA_SYM,  /* name */
	DA_DIV,  /* floor(a / k), k > 1 */
	DA_MIN,  /* min(a, b) */
	DA_MAX,  /* max(a, b) */
} DimAtomKind;

typedef struct DimAtom {
	DimAtomKind kind;
	uint32_t hash;
	const char *name;       /* DA_SYM: interned */
	const DimExpr *a, *b;   /* DA_DIV: a; DA_MIN, DA_MAX: a, b */
	int64_t k;              /* DA_DIV */
} DimAtom;

typedef struct DimTerm {
	int64_t coef;           /* not 0 */
	uint32_t nf;            /* atoms, 0 for the constant term */
	const DimAtom *const *f;
} DimTerm;

struct DimExpr {
	uint32_t hash;
	uint32_t nterms;
	const DimTerm *terms;
	const char *text;       /* dim_text's, made once */
};

/* A slot of the open-addressing sets of expressions and atoms. */
typedef struct DimSlot {
	const void *p;
	uint32_t hash;
} DimSlot;

struct DimTable {
	Arena arena;
	DimSlot *exprs, *atoms;
	size_t capexprs, nexprs, capatoms, natoms;
};

DimTable *dim_table_new(void)
{
	DimTable *t = util_calloc(1, sizeof(*t));
	arena_init(&t->arena);
	return t;
}

void dim_table_free(DimTable *t)
{
	if (!t)
		return;
	util_free(t->exprs);
	util_free(t->atoms);
	arena_free(&t->arena);
	util_free(t);
}

/* ---- order (deterministic: by structure, never by address) -------------- */

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int atom_cmp(const DimAtom *a, const DimAtom *b);

static int dim_cmp(const DimExpr *a, const DimExpr *b)
{
	if (a == b)
		return 0;
	uint32_t n = a->nterms < b->nterms ? a->nterms : b->nterms;
	for (uint32_t i = 0; i < n; i++) {
		const DimTerm *x = &a->terms[i], *y = &b->terms[i];
		if (x->nf != y->nf)
			return x->nf > y->nf ? -1 : 1;
		for (uint32_t k = 0; k < x->nf; k++) {
			int c = atom_cmp(x->f[k], y->f[k]);
			if (c)
				return c;
		}
		if (x->coef != y->coef)
			return cmp_i64(x->coef, y->coef);
	}
	return cmp_i64(a->nterms, b->nterms);
}

static int atom_cmp(const DimAtom *a, const DimAtom *b)
{
	if (a == b)
		return 0;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	switch (a->kind) {
	case DA_SYM:
		return strcmp(a->name, b->name);
	case DA_DIV: {
		int c = dim_cmp(a->a, b->a);
		return c ? c : cmp_i64(a->k, b->k);
	}
	case DA_MIN:
	case DA_MAX: {
		int c = dim_cmp(a->a, b->a);
		return c ? c : dim_cmp(a->b, b->b);
	}
	}
	return 0;
}

/* Terms in canonical order: higher degree first, then by atoms. */
static int term_cmp(const DimTerm *x, const DimTerm *y)
{
	if (x->nf != y->nf)
		return x->nf > y->nf ? -1 : 1;
	for (uint32_t k = 0; k < x->nf; k++) {
		int c = atom_cmp(x->f[k], y->f[k]);
		if (c)
			return c;
	}
	return 0;
}

/* ---- hash-consing ---------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint64_t v)
{
	uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15u;
	return (uint32_t)(x ^ (x >> 29));
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void set_grow(DimSlot **slots, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	DimSlot *t = util_calloc(ncap, sizeof(*t));
	for (size_t i = 0; i < *cap; i++) {
		if (!(*slots)[i].p)
			continue;
		size_t j = (*slots)[i].hash & (ncap - 1);
		while (t[j].p)
			j = (j + 1) & (ncap - 1);
		t[j] = (*slots)[i];
	}
	util_free(*slots);
	*slots = t;
	*cap = ncap;
}

static bool atom_same(const DimAtom *a, const DimAtom *b)
{
	return a->kind == b->kind && a->name == b->name && a->a == b->a &&
	       a->b == b->b && a->k == b->k;
}

/* The table's atom equal to *a (made from it when new). Its parts are
 * the table's already, so equality is of their pointers. */
static const DimAtom *atom_intern(DimTable *t, const DimAtom *a)
{
	uint32_t h = mix(mix(mix(a->kind, a->name ? str_hash(a->name) : 0),
			     a->a ? a->a->hash : 0),
			 (a->b ? a->b->hash : 0) ^ (uint64_t)a->k);
	if (2 * (t->natoms + 1) > t->capatoms)
		set_grow(&t->atoms, &t->capatoms);
	size_t j = h & (t->capatoms - 1);
	for (; t->atoms[j].p; j = (j + 1) & (t->capatoms - 1))
		if (t->atoms[j].hash == h && atom_same(t->atoms[j].p, a))
			return t->atoms[j].p;
	DimAtom *copy = ARENA_NEW(&t->arena, DimAtom);
	*copy = *a;
	copy->hash = h;
	t->atoms[j] = (DimSlot){ copy, h };
	t->natoms++;
	return copy;
}

static bool terms_same(const DimTerm *x, const DimTerm *y, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (x[i].coef != y[i].coef || x[i].nf != y[i].nf)
			return false;
		for (uint32_t k = 0; k < x[i].nf; k++)
			if (x[i].f[k] != y[i].f[k])
				return false;
	}
	return true;
}

/* The table's expression of the canonical terms[0..n) (copied when
 * new). */
static const DimExpr *expr_intern(DimTable *t, const DimTerm *terms,
				  uint32_t n)
{
	uint32_t h = mix(0x51ed27u, n);
	for (uint32_t i = 0; i < n; i++) {
		h = mix(h, (uint64_t)terms[i].coef);
		for (uint32_t k = 0; k < terms[i].nf; k++)
			h = mix(h, terms[i].f[k]->hash);
	}
	if (2 * (t->nexprs + 1) > t->capexprs)
		set_grow(&t->exprs, &t->capexprs);
	size_t j = h & (t->capexprs - 1);
	for (; t->exprs[j].p; j = (j + 1) & (t->capexprs - 1)) {
		const DimExpr *e = t->exprs[j].p;
		if (t->exprs[j].hash == h && e->nterms == n &&
		    terms_same(e->terms, terms, n))
			return e;
	}
	DimExpr *e = ARENA_NEW(&t->arena, DimExpr);
	DimTerm *copy = ARENA_ARRAY(&t->arena, DimTerm, n ? n : 1);
	for (uint32_t i = 0; i < n; i++) {
		copy[i] = terms[i];
		const DimAtom **f = ARENA_ARRAY(&t->arena, const DimAtom *,
						terms[i].nf ? terms[i].nf : 1);
		if (terms[i].nf)
			memcpy(f, terms[i].f, terms[i].nf * sizeof(*f));
		copy[i].f = f;
	}
	e->hash = h;
	e->nterms = n;
	e->terms = copy;
	t->exprs[j] = (DimSlot){ e, h };
	t->nexprs++;
	return e;
}

/* ---- building sums ---------------------------------------------------------- */

/* A sum being built: terms in any order, combined by dim_sum_finish. */
typedef struct Sum {
	DimTerm *terms;
	size_t n, cap;
	bool overflow;
} Sum;

static void sum_push(Sum *s, int64_t coef, uint32_t nf,
		     const DimAtom *const *f)
{
	if (!coef)
		return;
	ARRAY_RESERVE(s->terms, s->n, s->cap, 8);
	s->terms[s->n++] = (DimTerm){ coef, nf, f };
}

static int term_qsort(const void *a, const void *b)
{
	return term_cmp(a, b);
}

/* The canonical expression of s (freed). */
static const DimExpr *sum_finish(DimTable *t, Sum *s)
{
	if (s->overflow) {
		util_free(s->terms);
		return NULL;
	}
	if (s->n)
		qsort(s->terms, s->n, sizeof(*s->terms), term_qsort);
	size_t out = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (out && term_cmp(&s->terms[out - 1], &s->terms[i]) == 0) {
			if (__builtin_add_overflow(s->terms[out - 1].coef,
						   s->terms[i].coef,
						   &s->terms[out - 1].coef)) {
				util_free(s->terms);
				return NULL;
			}
			if (!s->terms[out - 1].coef)
				out--;
			continue;
		}
		s->terms[out++] = s->terms[i];
	}
	const DimExpr *e = expr_intern(t, s->terms, (uint32_t)out);
	util_free(s->terms);
	return e;
}

const DimExpr *dim_const(DimTable *t, int64_t v)
{
	DimTerm term = { v, 0, NULL };
	return expr_intern(t, &term, v != 0);
}

static const DimExpr *expr_of_atom(DimTable *t, const DimAtom *a)
{
	const DimAtom *f[1] = { a };
	DimTerm term = { 1, 1, f };
	return expr_intern(t, &term, 1);
}

const DimExpr *dim_symbol(DimTable *t, const char *name)
{
	DimAtom a = { .kind = DA_SYM, .name = name };
	return expr_of_atom(t, atom_intern(t, &a));
}

bool dim_is_const(const DimExpr *e, int64_t *v)
{
	if (e->nterms == 0) {
		*v = 0;
		return true;
	}
	if (e->nterms == 1 && e->terms[0].nf == 0) {
		*v = e->terms[0].coef;
		return true;
	}
	return false;
}

const char *dim_symbol_name(const DimExpr *e)
{
	if (e->nterms == 1 && e->terms[0].nf == 1 && e->terms[0].coef == 1 &&
	    e->terms[0].f[0]->kind == DA_SYM)
		return e->terms[0].f[0]->name;
	return NULL;
}

/* a + sign * b */
static const DimExpr *add_signed(DimTable *t, const DimExpr *a,
				 const DimExpr *b, int64_t sign)
{
	Sum s = { 0 };
	for (uint32_t i = 0; i < a->nterms; i++)
		sum_push(&s, a->terms[i].coef, a->terms[i].nf, a->terms[i].f);
	for (uint32_t i = 0; i < b->nterms; i++) {
		int64_t c;
		if (__builtin_mul_overflow(b->terms[i].coef, sign, &c))
			s.overflow = true;
		sum_push(&s, c, b->terms[i].nf, b->terms[i].f);
	}
	return sum_finish(t, &s);
}

const DimExpr *dim_add(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	return add_signed(t, a, b, 1);
}

const DimExpr *dim_sub(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	return add_signed(t, a, b, -1);
}

static int atom_qsort(const void *a, const void *b)
{
	return atom_cmp(*(const DimAtom *const *)a, *(const DimAtom *const *)b);
}

const DimExpr *dim_mul(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	Sum s = { 0 };
	for (uint32_t i = 0; i < a->nterms; i++) {
		for (uint32_t j = 0; j < b->nterms; j++) {
			const DimTerm *x = &a->terms[i], *y = &b->terms[j];
			int64_t c;
			if (__builtin_mul_overflow(x->coef, y->coef, &c))
				s.overflow = true;
			uint32_t nf = x->nf + y->nf;
			const DimAtom **f = ARENA_ARRAY(&t->arena, const DimAtom *,
							nf ? nf : 1);
			if (x->nf)
				memcpy(f, x->f, x->nf * sizeof(*f));
			if (y->nf)
				memcpy(f + x->nf, y->f, y->nf * sizeof(*f));
			qsort(f, nf, sizeof(*f), atom_qsort);
			sum_push(&s, c, nf, f);
		}
	}
	return sum_finish(t, &s);
}

static int64_t floordiv(int64_t a, int64_t k)
{
	int64_t q = a / k;
	return (a % k != 0 && a < 0) ? q - 1 : q;
}

static int64_t gcd(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a;
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* floor(a / k), k > 0: the terms k divides come out exactly (floor(k*A +
 * R) / k) = A + floor(R / k) for an integer A); what remains, divided by
 * the gcd it shares with k, stays in one atom. */
const DimExpr *dim_div(DimTable *t, const DimExpr *a, int64_t k)
{
	assert(k > 0);
	if (k == 1)
		return a;
	Sum out = { 0 }, rest = { 0 };
	int64_t g = k;
	for (uint32_t i = 0; i < a->nterms; i++) {
		const DimTerm *x = &a->terms[i];
		if (x->coef % k == 0) {
			sum_push(&out, x->coef / k, x->nf, x->f);
		} else {
			sum_push(&rest, x->coef, x->nf, x->f);
			g = gcd(x->coef, g);
		}
	}
	const DimExpr *r = sum_finish(t, &rest);
	int64_t v;
	if (r && dim_is_const(r, &v)) {
		sum_push(&out, floordiv(v, k), 0, NULL);
	} else if (r) {
		/* the remainder's coefficients and k shared g */
		Sum reduced = { 0 };
		for (uint32_t i = 0; i < r->nterms; i++)
			sum_push(&reduced, r->terms[i].coef / g, r->terms[i].nf,
				 r->terms[i].f);
		const DimExpr *inner = sum_finish(t, &reduced);
		int64_t kk = k / g;
		if (kk == 1) {
			for (uint32_t i = 0; i < inner->nterms; i++)
				sum_push(&out, inner->terms[i].coef,
					 inner->terms[i].nf, inner->terms[i].f);
		} else {
			/* floor(floor(e / m) / n) = floor(e / (m n)) */
			const DimAtom *only = inner->nterms == 1 &&
						      inner->terms[0].nf == 1 &&
						      inner->terms[0].coef == 1
					      ? inner->terms[0].f[0]
					      : NULL;
			DimAtom d = { .kind = DA_DIV, .a = inner, .k = kk };
			int64_t kd;
			if (only && only->kind == DA_DIV &&
			    !__builtin_mul_overflow(only->k, kk, &kd)) {
				d.a = only->a;
				d.k = kd;
			}
			const DimAtom *f[1] = { atom_intern(t, &d) };
			const DimAtom **fa = ARENA_ARRAY(&t->arena, const DimAtom *, 1);
			fa[0] = f[0];
			sum_push(&out, 1, 1, fa);
		}
	} else {
		out.overflow = true;
	}
	return sum_finish(t, &out);
}

/* The term x divided by y (atoms of y removed from x, coefficient
 * divided), or false when y does not divide x. */
static bool term_div(DimTable *t, const DimTerm *x, const DimTerm *y,
		     DimTerm *q)
{
	if (y->coef == 0 || x->coef % y->coef != 0 || y->nf > x->nf)
		return false;
	const DimAtom **f = ARENA_ARRAY(&t->arena, const DimAtom *,
					x->nf ? x->nf : 1);
	uint32_t n = 0, k = 0;
	for (uint32_t i = 0; i < x->nf; i++) {
		if (k < y->nf && x->f[i] == y->f[k]) {
			k++;
			continue;
		}
		f[n++] = x->f[i];
	}
	if (k != y->nf)
		return false;
	*q = (DimTerm){ x->coef / y->coef, n, f };
	return true;
}

const DimExpr *dim_exact_div(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	if (b->nterms == 0)
		return NULL;
	Sum q = { 0 };
	const DimExpr *r = a;
	/* long division by leading terms: exact when nothing remains */
	for (int round = 0; round < 64 && r && r->nterms; round++) {
		DimTerm lead;
		if (!term_div(t, &r->terms[0], &b->terms[0], &lead))
			break;
		sum_push(&q, lead.coef, lead.nf, lead.f);
		const DimAtom **f = ARENA_ARRAY(&t->arena, const DimAtom *,
						lead.nf ? lead.nf : 1);
		if (lead.nf)
			memcpy(f, lead.f, lead.nf * sizeof(*f));
		DimTerm one = { lead.coef, lead.nf, f };
		const DimExpr *m = dim_mul(t, expr_intern(t, &one, 1), b);
		r = m ? dim_sub(t, r, m) : NULL;
	}
	if (!r || r->nterms) {
		util_free(q.terms);
		return NULL;
	}
	return sum_finish(t, &q);
}

const DimExpr *dim_ceil_div(DimTable *t, const DimExpr *a, int64_t k)
{
	const DimExpr *up = dim_add(t, a, dim_const(t, k - 1));
	return up ? dim_div(t, up, k) : NULL;
}

/* Whether atom a is at least 0, every symbol being so. */
static bool atom_nonneg(const DimAtom *a)
{
	DimBounds x, y;
	switch (a->kind) {
	case DA_SYM:
		return true;
	case DA_DIV: /* k > 1 */
		dim_bounds(a->a, &x);
		return x.has_lo && x.lo >= 0;
	case DA_MIN:
	case DA_MAX:
		dim_bounds(a->a, &x);
		dim_bounds(a->b, &y);
		if (a->kind == DA_MIN)
			return x.has_lo && x.lo >= 0 && y.has_lo && y.lo >= 0;
		return (x.has_lo && x.lo >= 0) || (y.has_lo && y.lo >= 0);
	}
	return false;
}

void dim_bounds(const DimExpr *e, DimBounds *b)
{
	int64_t c = 0;
	bool up = true, down = true; /* every other term grows, shrinks */
	for (uint32_t i = 0; i < e->nterms; i++) {
		const DimTerm *x = &e->terms[i];
		if (x->nf == 0) {
			c = x->coef;
			continue;
		}
		bool nonneg = true;
		for (uint32_t j = 0; j < x->nf && nonneg; j++)
			nonneg = atom_nonneg(x->f[j]);
		up = up && nonneg && x->coef > 0;
		down = down && nonneg && x->coef < 0;
	}
	b->has_lo = up;
	b->has_hi = down;
	b->lo = b->hi = c;
}

static const DimExpr *min_max(DimTable *t, const DimExpr *a,
			      const DimExpr *b, bool is_max)
{
	const DimExpr *d = dim_sub(t, a, b);
	DimBounds r = { 0 };
	if (d)
		dim_bounds(d, &r);
	if (r.has_lo && r.lo >= 0) /* a >= b */
		return is_max ? a : b;
	if (r.has_hi && r.hi <= 0) /* a <= b */
		return is_max ? b : a;
	if (dim_cmp(a, b) > 0) { /* the arguments in canonical order */
		const DimExpr *x = a;
		a = b;
		b = x;
	}
	DimAtom m = { .kind = is_max ? DA_MAX : DA_MIN, .a = a, .b = b };
	return expr_of_atom(t, atom_intern(t, &m));
}

const DimExpr *dim_max(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	return min_max(t, a, b, true);
}

const DimExpr *dim_min(DimTable *t, const DimExpr *a, const DimExpr *b)
{
	return min_max(t, a, b, false);
}

static const DimExpr *import_atom(DimTable *t, const DimAtom *a)
{
	switch (a->kind) {
	case DA_SYM:
		return dim_symbol(t, a->name);
	case DA_DIV: {
		const DimExpr *x = dim_import(t, a->a);
		return x ? dim_div(t, x, a->k) : NULL;
	}
	case DA_MIN:
	case DA_MAX: {
		const DimExpr *x = dim_import(t, a->a), *y = dim_import(t, a->b);
		if (!x || !y)
			return NULL;
		return a->kind == DA_MIN ? dim_min(t, x, y) : dim_max(t, x, y);
	}
	}
	return NULL;
}

const DimExpr *dim_import(DimTable *t, const DimExpr *e)
{
	const DimExpr *sum = dim_const(t, 0);
	for (uint32_t i = 0; i < e->nterms && sum; i++) {
		const DimExpr *p = dim_const(t, e->terms[i].coef);
		for (uint32_t k = 0; k < e->terms[i].nf && p; k++) {
			const DimExpr *x = import_atom(t, e->terms[i].f[k]);
			p = x ? dim_mul(t, p, x) : NULL;
		}
		sum = p ? dim_add(t, sum, p) : NULL;
	}
	return sum;
}

/* ---- extents ------------------------------------------------------------------ */

int64_t dim_encode(const DimExpr *e)
{
	int64_t v;
	if (dim_is_const(e, &v) && v >= 0)
		return v;
	return (int64_t)~(uint64_t)(uintptr_t)e;
}

const DimExpr *dim_decode(DimTable *t, int64_t d)
{
	return d >= 0 ? dim_const(t, d) : dim_expr_of(d);
}

/* ---- evaluation ------------------------------------------------------------------ */

static bool atom_eval(const DimAtom *a, bool (*value)(void *ctx, const char *name, int64_t *out),
		      void *ctx, int64_t *out)
{
	int64_t x, y;
	switch (a->kind) {
	case DA_SYM:
		return value(ctx, a->name, out);
	case DA_DIV:
		if (!dim_eval(a->a, value, ctx, &x))
			return false;
		*out = floordiv(x, a->k);
		return true;
	case DA_MIN:
	case DA_MAX:
		if (!dim_eval(a->a, value, ctx, &x) ||
		    !dim_eval(a->b, value, ctx, &y))
			return false;
		*out = (x > y) == (a->kind == DA_MAX) ? x : y;
		return true;
	}
	return false;
}

bool dim_eval(const DimExpr *e,
	      bool (*value)(void *ctx, const char *name, int64_t *out),
	      void *ctx, int64_t *out)
{
	int64_t sum = 0;
	for (uint32_t i = 0; i < e->nterms; i++) {
		int64_t p = e->terms[i].coef;
		for (uint32_t k = 0; k < e->terms[i].nf; k++) {
			int64_t v;
			if (!atom_eval(e->terms[i].f[k], value, ctx, &v) ||
			    __builtin_mul_overflow(p, v, &p))
				return false;
		}
		if (__builtin_add_overflow(sum, p, &sum))
			return false;
	}
	*out = sum;
	return true;
}

/* ---- printing ------------------------------------------------------------------ */

static void print_expr(StrBuf *out, const DimExpr *e, bool spaced,
		       bool in_product);

static void print_atom(StrBuf *out, const DimAtom *a, bool spaced)
{
	const char *comma = spaced ? ", " : ",";
	switch (a->kind) {
	case DA_SYM:
		sb_puts(out, a->name);
		return;
	case DA_DIV:
		print_expr(out, a->a, spaced, true);
		sb_printf(out, spaced ? " / %lld" : "/%lld", (long long)a->k);
		return;
	case DA_MIN:
	case DA_MAX:
		sb_puts(out, a->kind == DA_MIN ? "min(" : "max(");
		print_expr(out, a->a, spaced, false);
		sb_puts(out, comma);
		print_expr(out, a->b, spaced, false);
		sb_putc(out, ')');
		return;
	}
}

/* A term's atoms: a division inside a product is bracketed. */
static void print_factors(StrBuf *out, const DimTerm *x, bool spaced)
{
	for (uint32_t k = 0; k < x->nf; k++) {
		if (k)
			sb_puts(out, spaced ? " * " : "*");
		bool paren = x->f[k]->kind == DA_DIV && (x->nf > 1 || x->coef != 1);
		if (paren)
			sb_putc(out, '(');
		print_atom(out, x->f[k], spaced);
		if (paren)
			sb_putc(out, ')');
	}
}

static void print_expr(StrBuf *out, const DimExpr *e, bool spaced,
		       bool in_product)
{
	if (e->nterms == 0) {
		sb_putc(out, '0');
		return;
	}
	bool paren = in_product && (e->nterms > 1 || e->terms[0].coef < 0);
	if (paren)
		sb_putc(out, '(');
	for (uint32_t i = 0; i < e->nterms; i++) {
		const DimTerm *x = &e->terms[i];
		uint64_t mag = x->coef < 0 ? -(uint64_t)x->coef : (uint64_t)x->coef;
		if (i)
			sb_puts(out, x->coef < 0 ? (spaced ? " - " : "-")
						 : (spaced ? " + " : "+"));
		else if (x->coef < 0)
			sb_putc(out, '-');
		if (!x->nf) {
			sb_printf(out, "%llu", (unsigned long long)mag);
			continue;
		}
		if (mag != 1)
			sb_printf(out, spaced ? "%llu * " : "%llu*", (unsigned long long)mag);
		print_factors(out, x, spaced);
	}
	if (paren)
		sb_putc(out, ')');
}

void dim_print(StrBuf *out, const DimExpr *e, bool spaced)
{
	print_expr(out, e, spaced, false);
}

const char *dim_text(DimTable *t, const DimExpr *e)
{
	if (!e->text) {
		StrBuf b;
		sb_init(&b);
		dim_print(&b, e, false);
		((DimExpr *)e)->text = arena_strdup(&t->arena, sb_str(&b));
		sb_free(&b);
	}
	return e->text;
}

const char *dim_text_of(const DimExpr *e)
{
	return e->text;
}

void dim_symbols(const DimExpr *e, void (*fn)(void *ctx, const char *name),
		 void *ctx)
{
	for (uint32_t i = 0; i < e->nterms; i++)
		for (uint32_t k = 0; k < e->terms[i].nf; k++) {
			const DimAtom *a = e->terms[i].f[k];
			if (a->kind == DA_SYM) {
				fn(ctx, a->name);
				continue;
			}
			dim_symbols(a->a, fn, ctx);
			if (a->b)
				dim_symbols(a->b, fn, ctx);
		}
}
