/*
 * cache.h - the verdict cache: a scan's result kept, and trusted again
 * only while nothing it was drawn from has changed.
 *
 * A scan that keeps a cache records what it consulted (deps.h): every
 * directory the walk listed, each candidate, each library bound and each
 * path a search tried in vain, the host programs, the build's records,
 * git's HEAD, index and branch ref, ld.so.cache, the leftover program
 * itself, each with its stat data (device, inode, size, type, mtime and
 * ctime in nanoseconds) or its absence (an append-only log: its length
 * read, deps.h). The next scan of the same roots
 * with the same options, rules and environment (the current directory
 * resolved into what a result takes from it: scan_cache.c) stats those
 * again (on every job) and, when each is unchanged, gives the kept
 * result instead of walking and judging: what a verdict was drawn from is
 * all there is to it, as ninja trusts .ninja_deps and git its index.
 *
 * When something changed, the granularity is the file. What the scan as
 * a whole consulted (rules, build records, git, ld.so.cache, the hosts and
 * what they load, the program: LO_DEP_SHARED, deps.h) must be unchanged,
 * or the whole tree is judged afresh. Then the tree is walked again, each
 * directory that stats as it did given by its kept listing, the others
 * read (a directory's stat changes with its entries: names and types), and
 * each item (a candidate, or an orphan the build's records name) whose
 * own lstat and own dependencies (what the resolver read for its verdict:
 * the file, each library bound, each path a search tried in vain, each
 * directory searched, as the same directory) are all unchanged gets its
 * kept verdict as it was judged, before the tree-wide steps; the others
 * are judged. The tree-wide parts of the result are made again as a cold
 * scan makes them: links and hard links, the orphans and trees of the
 * build's model, rule reasons, origins, the summary. A host inferred from
 * the tree's programs is looked for once for every verdict: what that
 * reads (the directories listed, the programs) is shared. A verdict drawn
 * on more than its reads (dyld's and Windows' lookups) is tainted: judged
 * every time. The hosts' notes
 * arise once, from whichever verdict met them first: while one the last
 * scan had is missing, kept verdicts are judged after all (one of each
 * host, then every one with a host, then all). So the result is a cold
 * scan's, byte for byte, and the cache is written again.
 *
 * Git's racy rule, per entry: a dependency or item whose mtime or ctime is
 * within the timestamp granularity of the start of the scan that wrote
 * the cache (or later) is never trusted: it may have changed again in the
 * same tick, after it was read, with the same stat. A shared one makes the
 * whole tree judged afresh, a verdict's own one that verdict. A
 * filesystem that keeps whole seconds counts as a granularity of two
 * seconds.
 *
 * A second name of a file, through "..", costs no stat (an alias): a
 * path P/../R names what its lexical normalisation N names when each
 * directory X a ".." takes back is a real directory in its parent (not a
 * link, nor a link put in its place since). X is one today when the walk
 * listed X and X's parent (it opens each with O_NOFOLLOW: os/walk.c) and
 * both stat exactly as then (LO_CACHE_SAME, not racy): a link or rename
 * in X's place changes its parent's stat (POSIX: link, unlink and rename
 * mark the parent's mtime and ctime; lo_os_dir_stat_tracks_entries).
 * Then P/../R stands exactly when N's dependency, recorded with the very
 * same stat data, does. The writer finds them once (cache_alias.c), the
 * file keeps each as its dependency, N's and the directories it relies
 * on, and the check states them after the others, with a stat where a
 * condition fails.
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

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/scan.h"
#include "leftover/walk.h"

#define LO_CACHE_VERSION 6
#define LO_CACHE_MAX_BYTES (64u << 20)

/* What a scan needs of a root besides its files to give the result again. */
typedef struct lo_cache_root {
	char *top;       /* the tree's top rule paths are relative to, or NULL; owned */
	char *build_dir; /* lo_buildsys_base_of the root, or NULL; owned */
	size_t origin_note_at; /* where in the notes the root's origin notes go (they are
				  made again: origin.h records each scan) */
	int64_t oldest;  /* when its oldest candidate was written (origin.h), -1 unknown */
} lo_cache_root;

/* One judged item of the walk: its verdict as judged, before the tree-wide steps. */
typedef struct lo_cache_item {
	const char *abs; /* the path the walk (or the build's orphans) gave; borrowed (bytes) */
	lo_dep self;  /* its lstat before it was judged (the link itself), or the stat
			 a cold scan's judging read a regular file with; path NULL */
	bool has_file; /* false: its slot held nothing (a link reported by its target) */
	lo_file file; /* the slot's verdict, when has_file; owned (the scan takes it) */
} lo_cache_item;

/*
 * A directory the walk listed (a dependency) with the entries of it the
 * scan used: those it took for candidates or the build's model asked
 * about, and its subdirectories. A scan in part walks it from here while
 * it stats the same (scan_walk.c).
 */
typedef struct lo_cache_listing {
	uint32_t dep;       /* its index in deps: a LO_DEP_WALK directory */
	lo_dirent *entries; /* sorted by name, each once; names borrowed: from the
			       file's bytes when read, from the scan's paths when written */
	size_t count;
} lo_cache_listing;

/* A dependency named through "..": it stands when `same` and each of its `dirs` are the same. */
typedef struct lo_cache_alias {
	uint32_t dep;  /* the path with "..": a regular file */
	uint32_t same; /* its lexical normalisation, recorded with the very same stat; no alias */
	uint32_t dir_at, dir_count; /* in lo_cache_entry's alias_dirs: each directory a ".."
				       takes back and its parent, walked directories */
} lo_cache_alias;

/*
 * One cache: the key it was made for, what it depends on, the result.
 *
 * Ownership, in an entry read (lo_cache_parse, lo_cache_read): `bytes`
 * holds the file, and what stays with the entry points into it, borrowed:
 * the key, each dependency's path, each item's path, the hosts' notes
 * (their arrays are owned). What a scan takes away is owned, copied out:
 * the result (res, with the roots' tops and build dirs) and each item's
 * verdict. So a warm scan pays one allocation for the file, not one per
 * path it stats. An entry a scan builds to write borrows all its strings
 * from the scan and is never freed with lo_cache_entry_free.
 */
typedef struct lo_cache_entry {
	const char *key;    /* the fingerprint of roots, options, rules and environment */
	int64_t written_ns; /* when the scan that made it started (CLOCK_REALTIME) */
	lo_deps deps;       /* its uses' and tainted's slots are indices of items; its
			       paths borrowed */
	lo_cache_alias *aliases; /* sorted by dep, each once; owned (read; a writer finds them) */
	size_t alias_count;
	uint32_t *alias_dirs; /* owned */
	lo_scan_result *res; /* without origins, nor their notes; res->scan NULL; owned */
	lo_cache_root *roots; /* res->root_count of them; owned */
	size_t item_count;
	lo_buf item_bytes;  /* the items as the file keeps them (lo_cache_put_item's); owned */
	/* read by lo_cache_items_read (until then deps' uses and tainted are empty): */
	lo_cache_item *items; /* or NULL */
	char **host_notes;  /* the hosts' notes (hosts.h), in res->notes too; borrowed */
	size_t host_note_count;
	lo_cache_listing *listings; /* sorted by dep, each once; the array owned */
	size_t listing_count;
	lo_buf bytes;       /* the file read, without its checksum; owned */
	size_t tail_at;     /* where in bytes the uses, tainted, notes, listings and items start */
} lo_cache_entry;

/* Item `abs`, its lstat `self` and its slot `f` (NULL: none), as the file keeps them. */
void lo_cache_put_item(lo_buf *b, const char *abs, const lo_dep *self, const lo_file *f);
/*
 * Read e's items with their uses, tainted, the hosts' notes and the
 * listings (at most once): a scan that gives the whole result does
 * without them. LO_EINVALID when
 * they are malformed.
 */
int lo_cache_items_read(lo_cache_entry *e);

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

/*
 * The aliases among d's dependencies (none where directories' stats do not
 * follow their entries), into *aliases and *dirs (owned): their count.
 */
size_t lo_cache_aliases_find(const lo_deps *d, lo_cache_alias **aliases, uint32_t **dirs);
/* Are e's aliases, as read, each of the kinds above, in range? */
bool lo_cache_aliases_valid(const lo_cache_entry *e);

/* Parse a cache's bytes. LO_EINVALID with a message saying what is wrong. */
int lo_cache_parse(lo_cache_entry **out, const void *data, size_t len);
/* Read and parse the file; LO_ENOTFOUND when there is none. */
int lo_cache_read(lo_cache_entry **out, const char *file);
/* Write `e` to `file` whole (temporary and rename); LO_ERROR with a message when not. */
int lo_cache_write(const char *file, const lo_cache_entry *e);
void lo_cache_entry_free(lo_cache_entry *e);
/* Free `count` listings' arrays and theirs (the names are borrowed); NULL is fine. */
void lo_cache_listings_free(lo_cache_listing *ls, size_t count);

/*
 * May `e` stand for a scan with key `key` now? Stats every dependency but
 * the aliases on `jobs` threads (when all those stand, so does each alias). False with *why (owned) saying the first reason not.
 */
bool lo_cache_check(const lo_cache_entry *e, const char *key, unsigned jobs, char **why);

/* How each dependency stands now (lo_cache_states). */
enum {
	LO_CACHE_SAME,
	LO_CACHE_CHANGED,
	LO_CACHE_RACY,    /* stats the same, but written in the racy window: not trusted */
	LO_CACHE_SAME_DIR /* a directory of searches alone, the same one, its entries changed */
};

/*
 * Each of e's dependencies statted (on `jobs` threads): an array of
 * e->deps.count LO_CACHE_* (owned), for a scan that judges again only the
 * verdicts whose own dependencies changed. A directory read by verdicts
 * alone (LO_DEP_LOCAL without LO_DEP_SHARED: a search's) is the same
 * while it is the same directory (lo_dep_same_identity), whatever was
 * added to it (LO_CACHE_SAME_DIR): what was looked for in it is a
 * dependency of its own. An alias is stated after the others, from them
 * (LO_CACHE_SAME without a stat) or, when one is not the same, by a stat.
 */
unsigned char *lo_cache_states(const lo_cache_entry *e, unsigned jobs);
/*
 * May `e` give its items' verdicts, in `states`? Only while every
 * dependency the scan as a whole used is the same (rules, build records,
 * hosts, git, ld.so.cache, the program): then a scan in part keeps each
 * file whose own dependencies are the same and judges the others again.
 */
bool lo_cache_may_keep_items(const lo_cache_entry *e, const unsigned char *states);
/* Was a dependency stamped `then` written in the racy window of the scan at `written_ns`? */
bool lo_cache_racy(const lo_dep *then, int64_t written_ns);

/* Remove the cache of `roots`; 0 also when there was none. */
int lo_cache_clear(char *const *roots, size_t root_count);

#endif
