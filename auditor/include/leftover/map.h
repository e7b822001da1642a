/*
 * map.h - a string-keyed hash map (open addressing), for the caches that
 * make each file read once per run: path -> object, inode -> object.
 *
 * Keys are copied and owned by the map; values are the caller's, and
 * lo_map_free takes an optional destructor for them.
 * Does not own: locking; a map shared between threads is guarded by its
 * owner (resolver.c).
 */
#ifndef LEFTOVER_MAP_H
#define LEFTOVER_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lo_map lo_map;

lo_map *lo_map_new(void);
void lo_map_free(lo_map *m, void (*free_value)(void *));

/* The value stored under key; *found tells a stored NULL from absence. */
void *lo_map_get(const lo_map *m, const char *key, bool *found);
/* Store value under key, replacing any previous one (not freed). */
void lo_map_put(lo_map *m, const char *key, void *value);
/* Remove key's entry; returns its value (not freed), NULL when there was none. */
void *lo_map_remove(lo_map *m, const char *key);
size_t lo_map_count(const lo_map *m);

/* The hash the map keys `key` by: for a table of one's own over keys one already keeps. */
uint64_t lo_map_hash(const char *key);

/* Call fn for every entry, in no particular order. */
void lo_map_foreach(const lo_map *m, void (*fn)(const char *key, void *value, void *payload),
		    void *payload);

#endif
