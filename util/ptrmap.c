/*
 * ptrmap.c - the hash map from pointers to pointers used wherever a table
 * is keyed by identity: interned names (identifier values, tensor names,
 * operations), AST nodes. Open addressing with linear probing; the table
 * doubles before it is half full.
 */
#include "util/util.h"

#include <stdlib.h>

enum { PMAP_MIN = 16 };

static size_t slot_of(const PtrMap *m, const void *key)
{
	size_t h = (size_t)(uintptr_t)key * 0x9E3779B97F4A7C15u;
	return (h >> 17) & (m->cap - 1);
}

void pmap_init(PtrMap *m)
{
	m->cap = PMAP_MIN;
	m->count = 0;
	m->keys = util_calloc(m->cap, sizeof(*m->keys));
	m->vals = util_calloc(m->cap, sizeof(*m->vals));
}

void pmap_free(PtrMap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
}

static size_t find(const PtrMap *m, const void *key)
{
	size_t i = slot_of(m, key);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *pmap_get(const PtrMap *m, const void *key, bool *found)
{
	size_t i = find(m, key);
	*found = m->keys[i] != NULL;
	return *found ? m->vals[i] : NULL;
}

bool pmap_has(const PtrMap *m, const void *key)
{
	return m->keys[find(m, key)] != NULL;
}

static void grow(PtrMap *m)
{
	PtrMap big = { util_calloc(m->cap * 2, sizeof(*m->keys)),
		       util_calloc(m->cap * 2, sizeof(*m->vals)), m->cap * 2,
		       m->count };
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = find(&big, m->keys[i]);
		big.keys[j] = m->keys[i];
		big.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = big;
}

void **pmap_ref(PtrMap *m, const void *key)
{
	size_t i = find(m, key);
	if (!m->keys[i]) {
		if ((m->count + 1) * 2 > m->cap) {
			grow(m);
			i = find(m, key);
		}
		m->keys[i] = key;
		m->vals[i] = NULL;
		m->count++;
	}
	return &m->vals[i];
}

void pmap_put(PtrMap *m, const void *key, void *val)
{
	*pmap_ref(m, key) = val;
}
