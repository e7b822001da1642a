/*
 * scan_int.h - private to the scan: the state its two passes share.
 *
 * scan.c owns the walk, the threads, the build-system and git handles of
 * each root and the result; scan_judge.c gathers the facts of one item
 * and asks verdict.h for its verdict. Neither prints.
 */
#ifndef LEFTOVER_SCAN_INT_H
#define LEFTOVER_SCAN_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/deps.h"
#include "leftover/hosts.h"
#include "leftover/map.h"
#include "leftover/resolve.h"
#include "leftover/scan.h"
#include "leftover/walk.h"

/* What the walk found worth a look. */
typedef struct item {
	char *abs;        /* absolute path; owned, freed once judged */
	size_t root;      /* index of the scanned root it is under */
	bool orphan_only; /* not a candidate: listed because the build system disowns it */
	unsigned char type;
	int err;          /* directory that could not be read */
	lo_tristate tracked; /* in its root's git index: asked before the judging */
} item;

/* One walk worker's finds. */
typedef struct item_list {
	item *items;
	size_t count, cap;
	lo_buf path; /* the rule path of the entry at hand, when it must be built */
	item *listed; /* while recording: the entries the walk used (scan_walk.c) */
	size_t listed_count, listed_cap;
} item_list;

typedef struct scan {
	const lo_scan_opts *opts;
	const lo_rules *rules;
	lo_scan_result *res;
	lo_resolver *resolver;
	lo_hosts *hosts;
	lo_trust *trust;       /* what the hosts may run of what the roots name */
	char **roots;          /* absolute, owned */
	size_t root_count;
	unsigned jobs;
	item_list *lists;      /* one per walk worker */
	item *items;           /* every root's items, after the walk */
	size_t item_count, item_cap;
	lo_file *judged;       /* one slot per item */
	atomic_size_t next;    /* next item to judge */
	atomic_int failed;     /* first error of a judging worker */
	atomic_bool python_started; /* the walk has met a Python extension module */
	char failed_msg[1024]; /* and its message */
	const char *root;      /* the root being walked */
	size_t root_index;
	lo_buildsys_finds *finds; /* what the build's model asks of the root being walked */
	lo_buildsys **bs;      /* per root: its build system model, or NULL */
	char **build_dirs;     /* per root: lo_buildsys_base_of it; owned */
	const char **tops;     /* per root: its build dir when that is a build tree, else NULL */
	lo_git **git;          /* per root: the repository holding it, or NULL; freed before judging */
	struct lo_dyld *dyld;  /* the Mach-O images read, for every judging thread */
	/* the verdict cache (scan_cache.c): */
	char *cache_file;      /* where it is kept, NULL when not used; owned */
	char *cache_key;       /* the fingerprint of what the scan was asked; owned */
	int64_t cache_start_ns; /* when recording began (the racy rule's reference) */
	char *cache_why, *cache_complaint; /* lo_scan_cache's, until the result is made */
	lo_dep *cache_self;    /* per item while recording: its lstat before it was judged
				  (none for a cold scan's regular file: scan_cache.c) */
	lo_buf cache_items;    /* the items as the cache keeps them (lo_cache_put_item) */
	struct lo_cache_entry *kept; /* a warm scan in part: the last scan's items; owned */
	unsigned char *kept_states; /* per dependency of kept: lo_cache_states' */
	lo_map *kept_at;       /* an item's path -> index + 1 in kept->items, until taken */
	unsigned char *kept_slot; /* per item: KEPT its verdict was kept, AGAIN to judge after all */
	atomic_size_t kept_count;
	int judge_kept;        /* judging kept ones after all (the hosts said less): 0, or the step */
	lo_map *walk_at;       /* a directory's path -> index + 1 of its kept listing that stands */
	atomic_size_t walk_kept; /* the directories given by their kept listings */
	size_t *origin_note_at; /* per root: where its origin notes went in res->notes */
	size_t *origin_notes;   /* per root: how many */
	int64_t *oldest;        /* per root: oldest_item_mtime once asked, -1 until */
} scan;

/*
 * The path of the file at `abs` that rule patterns are matched against
 * (rules.h): relative to the top of the build tree holding it (the
 * nearest of a scanned root's lo_buildsys_base_of that is a tree), or abs
 * itself where there is none. A suffix of abs.
 */
const char *lo_scan_rules_path_of(const scan *s, const char *abs);

/*
 * A path as reasons show it: relative to the result's root when inside a
 * scanned root, absolute elsewhere (scan_judge.c says why).
 */
const char *lo_scan_rel_to_root(const scan *s, const char *abs);

/*
 * Judge the Mach-O file at `abs` into f (judge_macho.c): dyld's load of
 * it, played as dyld.h plays it. Returns 0.
 */
int lo_scan_judge_macho(scan *s, lo_file *f, const char *abs);

/*
 * The verdict cache (cache.h), scan_cache.c. lo_scan_cache_warm: when the
 * cache may be used and holds a result that stands, put it in s->res with
 * fresh origins (origin.h: each scan records itself) and return true;
 * else start recording, unless the cache is not to be used. After a cold
 * scan, lo_scan_cache_keep writes what was recorded with the result.
 */
bool lo_scan_cache_warm(scan *s);
void lo_scan_cache_keep(scan *s);

/*
 * A warm scan in part, on a judging thread: the kept verdict of item i
 * into its slot when its own dependencies are all unchanged (true);
 * while recording, the item's lstat noted before it is judged (false;
 * a cold scan's regular file has the stat its judging reads instead).
 * The calling thread attributes to slot i (deps.h).
 */
bool lo_scan_cache_take(scan *s, size_t i);
/*
 * After the judging: true when some kept verdicts must be judged after all
 * (a note of the hosts that the scan that kept them had is not there: a
 * note arises once, from whichever verdict met it first), marked AGAIN
 * in kept_slot; asked again after that judging, until false. While recording, the items are kept for
 * the cache then.
 */
bool lo_scan_cache_judged(scan *s);
enum { KEPT = 1, AGAIN = 2 }; /* kept_slot's */
/*
 * The walk of a scan in part (scan_walk.c). lo_scan_walk_used: while
 * recording, entry `e` of the root being walked was used (a candidate, a
 * find of the build's model, a directory not entered). lo_scan_walk_keep:
 * the kept listings of directories that stat the same. The walk of root
 * `root` takes them through lo_scan_walk_known_for's function (payload:
 * the scan), NULL when there are none or the root's top or build dir is
 * not the one they were made under. lo_scan_walk_listings: the listings
 * for the cache, from what the walk used and the directories of `d`;
 * *count of them, owned.
 */
void lo_scan_walk_used(scan *s, const lo_walk_entry *e);
void lo_scan_walk_keep(scan *s);
lo_walk_known_fn lo_scan_walk_known_for(const scan *s, size_t root);
struct lo_cache_listing *lo_scan_walk_listings(const scan *s, const lo_deps *d, size_t *count);

/* Free the scan's cache state. */
void lo_scan_cache_free(scan *s);

/*
 * The origin of root `root` (origin.h) into the result, with its notes;
 * the time of its oldest candidate from `oldest` when not -1.
 */
void lo_scan_record_origin(scan *s, size_t root);

/* Free a scan's state (scan.c), which its result owns; NULL does nothing. */
void lo_scan_free(scan *s);

/*
 * Judge item `it` into `slot` (a slot left with a NULL path holds nothing):
 * its facts, the build's and git's records of it, its verdict. Called on
 * every judging thread at once, each with a buffer of its own for the
 * candidates it reads for itself (resolve.h's lo_resolver_read_own).
 * Returns 0, or a negative code with a message when the scan cannot go on.
 */
int lo_scan_judge(scan *s, lo_file *slot, const item *it, lo_elf_buf *buf);
/* Draw again what the records say of a kept verdict `f` of item `it`. */
void lo_scan_judge_records_again(scan *s, lo_file *f, const item *it);

/*
 * The static name of the arch called `name` as lo_file's arch holds it,
 * whichever loader's it is (ELF targets, Windows' machines, dyld's
 * targets), or NULL; lo_scan_pe_arch_named for Windows' alone.
 */
const char *lo_scan_arch_named(const char *name);
const char *lo_scan_pe_arch_named(const char *name);

/* Is the file at abs a PE image (MZ, PE signature)? Then lo_scan_judge_pe judges it. */
bool lo_scan_is_pe(const char *abs);
/* The facts of the PE candidate at abs, its load played by Windows' loader (judge_pe.c). */
int lo_scan_judge_pe(scan *s, lo_file *f, const char *abs);

#endif
