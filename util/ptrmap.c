/*
 * ptrmap.c - the hash map from pointers to pointers used wherever a table
 * is keyed by identity: interned names (identifier values, tensor names,
 * operations), AST nodes. Open addressing with linear probing over slots
 * that hold key and value together; the table doubles before it is half
 * full.
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
	m->slots = util_calloc(m->cap, sizeof(*m->slots));
}

void pmap_free(PtrMap *m)
{
	util_free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

static PtrSlot *find(const PtrMap *m, const void *key)
{
	size_t i = slot_of(m, key);
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *pmap_get(const PtrMap *m, const void *key, bool *found)
{
	PtrSlot *s = find(m, key);
	*found = s->key != NULL;
	return s->val;
}

bool pmap_has(const PtrMap *m, const void *key)
{
	return find(m, key)->key != NULL;
}

static void grow(PtrMap *m)
{
	PtrMap big = { util_calloc(m->cap * 2, sizeof(*m->slots)), m->cap * 2,
		       m->count };
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*find(&big, m->slots[i].key) = m->slots[i];
	util_free(m->slots);
	*m = big;
}

void **pmap_ref(PtrMap *m, const void *key)
{
	PtrSlot *s = find(m, key);
	if (!s->key) {
		if ((m->count + 1) * 2 > m->cap) {
			grow(m);
			s = find(m, key);
		}
		s->key = key;
		s->val = NULL;
		m->count++;
	}
	return &s->val;
}

void pmap_put(PtrMap *m, const void *key, void *val)
{
	*pmap_ref(m, key) = val;
}
