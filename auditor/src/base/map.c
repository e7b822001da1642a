/*
 * map.c - open-addressing hash map with string keys (see map.h).
 *
 * Linear probing over a power-of-two table kept at most three quarters
 * full (each slot keeps its key's hash, so a probe past another key rarely
 * reads it). Half full, the resolver's path cache was the largest thing
 * on a scan's heap: 2.6 of 12.2 MB at bench scale 4.
 * A removal moves later entries of its run back into the hole (backward
 * shift), so that lookups need no tombstones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/map.h"

typedef struct {
	char *key; /* owned; NULL for an empty slot */
	uint64_t hash;
	void *value;
} slot;

struct lo_map {
	slot *slots;
	size_t cap, count;
};

/*
 * Eight bytes a step, each folded in with a multiply and a shift, after
 * the length: the keys are paths ("dev:ino/name", directories), and
 * FNV-1a's multiply a byte, each waiting for the one before, was most of
 * a lookup's instructions.
 */
uint64_t lo_map_hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

lo_map *lo_map_new(void)
{
	lo_map *m = lo_xcalloc(1, sizeof(*m));

	m->cap = 64;
	m->slots = lo_xcalloc(m->cap, sizeof(slot));
	return m;
}

void lo_map_free(lo_map *m, void (*free_value)(void *))
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		free(m->slots[i].key);
		if (free_value)
			free_value(m->slots[i].value);
	}
	free(m->slots);
	free(m);
}

static slot *find(const lo_map *m, const char *key, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->slots[i].key &&
	       (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *lo_map_get(const lo_map *m, const char *key, bool *found)
{
	slot *s = find(m, key, lo_map_hash(key));

	if (found)
		*found = s->key != NULL;
	return s->key ? s->value : NULL;
}

static void grow(lo_map *m)
{
	slot *old = m->slots;
	size_t i, oldcap = m->cap;

	m->cap *= 2;
	m->slots = lo_xcalloc(m->cap, sizeof(slot));
	for (i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

void lo_map_put(lo_map *m, const char *key, void *value)
{
	uint64_t h = lo_map_hash(key);
	slot *s = find(m, key, h);

	if (!s->key) {
		if ((m->count + 1) * 4 > m->cap * 3) {
			grow(m);
			s = find(m, key, h);
		}
		s->key = lo_xstrdup(key);
		s->hash = h;
		m->count++;
	}
	s->value = value;
}

void *lo_map_remove(lo_map *m, const char *key)
{
	size_t mask = m->cap - 1, hole, i;
	slot *s = find(m, key, lo_map_hash(key));
	void *value = s->value;

	if (!s->key)
		return NULL;
	free(s->key);
	hole = i = (size_t)(s - m->slots);
	for (;;) {
		size_t home;

		i = (i + 1) & mask;
		if (!m->slots[i].key)
			break;
		home = m->slots[i].hash & mask;
		/* an entry whose home lies cyclically in (hole, i] is found before the hole: it stays */
		if (hole <= i ? (hole < home && home <= i) : (hole < home || home <= i))
			continue;
		m->slots[hole] = m->slots[i];
		hole = i;
	}
	m->slots[hole] = (slot){ NULL, 0, NULL };
	m->count--;
	return value;
}

size_t lo_map_count(const lo_map *m)
{
	return m->count;
}

void lo_map_foreach(const lo_map *m, void (*fn)(const char *key, void *value, void *payload),
		    void *payload)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			fn(m->slots[i].key, m->slots[i].value, payload);
}
