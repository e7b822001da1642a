/*
 * cache.h - the verdict cache: a scan's result kept, and trusted again
 * only while nothing it was drawn from has changed.
 *
 * A scan that keeps a cache records what it consulted (deps.h): every
 * directory the walk listed, each candidate, each library bound and each
 * path a search tried in vain, the host programs, the build's records,
 * git's HEAD, index and branch ref, ld.so.cache, the leftover program
 * itself, each with its stat data (device, inode, size, type, mtime and
 * ctime in nanoseconds) or its absence. The next scan of the same roots
 * with the same options, rules and environment stats those again (on
 * every job) and, when each is unchanged, gives the kept result instead
 * of walking and judging: what a verdict was drawn from is all there is
 * to it, as ninja trusts .ninja_deps and git its index.
 *
 * The granularity is the scan: one change anywhere and the whole tree is
 * judged afresh (and the cache written again), which is what an unchanged
 * tree needs (the audit after a build that built nothing, a pytest session
 * started again) and never wrong.
 *
 * Git's racy rule: an entry whose mtime or ctime is within the timestamp
 * granularity of the start of the scan that wrote the cache (or later) is
 * never trusted: it may have changed again in the same tick, after it was
 * read, with the same stat. A filesystem that keeps whole seconds counts
 * as a granularity of two seconds.
 *
 * Where: beside the scan's state record (origin.h), in the user's cache,
 * $XDG_CACHE_HOME/leftover/state/<SHA-256 of the roots>.cache, never in
 * the scanned tree. The file is binary: a magic, a format version, the
 * body, a checksum; one that is truncated, corrupt, of another version or
 * another set of roots is ignored with a reason (and replaced), never
 * trusted. At most LO_CACHE_MAX_BYTES: a larger one is neither written
 * nor read.
 *
 * Owns: the file's format, reading (untrusted input: every length and
 * count checked; fuzz/fuzz_cache.c), writing (a temporary and a rename),
 * and the check of an entry against the filesystem. Does not own: what
 * is recorded (the readers, deps.h) nor when a scan may use it (scan.c).
 */
#ifndef LEFTOVER_CACHE_H
#define LEFTOVER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "leftover/deps.h"
#include "leftover/scan.h"

#define LO_CACHE_VERSION 2
#define LO_CACHE_MAX_BYTES (64u << 20)

/* What a scan needs of a root besides its files to give the result again. */
typedef struct lo_cache_root {
	char *top;       /* the tree's top rule paths are relative to, or NULL; owned */
	char *build_dir; /* lo_buildsys_base_of the root, or NULL; owned */
	size_t origin_note_at; /* where in the notes the root's origin notes go (they are
				  made again: origin.h records each scan) */
	int64_t oldest;  /* when its oldest candidate was written (origin.h), -1 unknown */
} lo_cache_root;

/* One cache: the key it was made for, what it depends on, the result. */
typedef struct lo_cache_entry {
	char *key;          /* the fingerprint of roots, options, rules and environment; owned */
	int64_t written_ns; /* when the scan that made it started (CLOCK_REALTIME) */
	lo_deps deps;
	lo_scan_result *res; /* without origins, nor their notes; res->scan NULL */
	lo_cache_root *roots; /* res->root_count of them */
} lo_cache_entry;

/*
 * The cache file of the scan of `roots` (real paths): owned, NULL when the
 * user has no cache directory. `create` makes its directory.
 */
char *lo_cache_file(char *const *roots, size_t root_count, bool create);

/*
 * The checksum of a cache's bytes before its last 8 (FNV-1a, 64 bits, over
 * little-endian 64-bit words and then the bytes left; stored little-endian).
 */
uint64_t lo_cache_checksum(const void *data, size_t len);

/* Parse a cache's bytes. LO_EINVALID with a message saying what is wrong. */
int lo_cache_parse(lo_cache_entry **out, const void *data, size_t len);
/* Read and parse the file; LO_ENOTFOUND when there is none. */
int lo_cache_read(lo_cache_entry **out, const char *file);
/* Write `e` to `file` whole (temporary and rename); LO_ERROR with a message when not. */
int lo_cache_write(const char *file, const lo_cache_entry *e);
void lo_cache_entry_free(lo_cache_entry *e);

/*
 * May `e` stand for a scan with key `key` now? Stats every dependency on
 * `jobs` threads. False with *why (owned) saying the first reason not.
 */
bool lo_cache_check(const lo_cache_entry *e, const char *key, unsigned jobs, char **why);

/* Remove the cache of `roots`; 0 also when there was none. */
int lo_cache_clear(char *const *roots, size_t root_count);

#endif
