/*
 * resolve_int.h - private to the loader model: the resolver's shared file
 * cache (resolver.c), paths as the loader spells them (resolve_path.c),
 * the search for a needed library (resolve_search.c), and the mapping and
 * binding that use them (resolve.c).
 *
 * resolver.c owns reading each file once per scan for every thread, the
 * parsed objects shared by the paths that name one inode, and keeping
 * their memory within bounds: the pages of their tables within a budget,
 * the objects themselves to those opened lately, freed only once no
 * worker can hold them. resolve.c owns what ld.so does with them.
 * What differs between targets (architectures and their loaders) is read
 * from their lo_target (target.h), never tested for here.
 */
#ifndef LEFTOVER_RESOLVE_INT_H
#define LEFTOVER_RESOLVE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/fmap.h"
#include "leftover/map.h"
#include "leftover/resolve.h"
#include "leftover/sysroot.h"
#include "leftover/target.h"

/* ---- the resolver ---- */

/*
 * The objects that provided every undefined symbol of one object in a load
 * where all of them bound. Binding only asks whether some other object in
 * the scope defines a symbol, so wherever all of these are in the scope the
 * object binds completely again: its symbols need not be looked up anew.
 * The providers are named by their entries, which live as long as the
 * resolver, not by their lo_elf, which may be let go and read again.
 */
typedef struct binding {
	size_t count;
	const struct parsed *by[];
} binding;

/*
 * One inode the resolver has parsed; shared by every path that names it.
 * The entry lives as long as the resolver, unless it was read only as a
 * candidate (lo_resolver_forget); its lo_elf, under a resolver with
 * workers, only while among the objects opened most recently (see
 * LO_KEPT_OBJECTS), or for good when a host's.
 */
typedef struct parsed {
	/* under the resolver's lock, but for `bound` (a worker reads the lo_elf it got without it) */
	lo_elf *elf;     /* owned; NULL once let go (until read again) */
	char *path;      /* owned: where it was read, to read it again */
	char *key;       /* owned: the by_path key it was read under (lo_resolver_path_key) */
	lo_elf_stamp stamp; /* the file as first read: read again, it must be the same */
	bool permanent;  /* a host's object: never let go */
	bool reading;    /* being read again by one thread; the others wait on `ready` */
	char *gone;      /* owned: why it could not be read again, or NULL */
	_Atomic(binding *) bound; /* owned; NULL until some load bound it completely */
	size_t bytes;                /* lo_elf_table_bytes */
	bool resident;               /* used since its pages were last released */
	struct parsed *newer, *older; /* in the resolver's list of resident objects */
	size_t ring_at;  /* its slot in the ring of objects that may be let go, or NONE */
	/*
	 * Opened as a library or a host's (lo_use): kept, and the only kind a
	 * binding may name. Set under the lock, never cleared; read without
	 * it when a binding is remembered.
	 */
	atomic_bool needed;
	size_t paths;    /* the path entries that name it */
	bool forgotten;  /* a candidate judged: dropped once its pages are released or it is let go */
} parsed;

/*
 * The pages of the libraries that loads use stay in memory until released;
 * past a budget the least recently used are released, down to three
 * quarters of it, so memory grows with the largest libraries, not with the
 * tree. Each object counts the bytes of its tables (lo_elf_table_bytes)
 * from when it is taken until they are released.
 * The libraries every load needs (a tree's own libLLVM, say) should fit:
 * released too soon they are read again and again. In the benchmark tree
 * they are 43 MB; its peak and time by budget (2026-12-04, interleaved
 * pairs against 48 MiB counted by mapping length, which patchelf'd copies
 * inflated to twice 25 MB): 44 MiB the same peak and time, 40 MiB 4 MiB
 * less at 1.02 times the time, 32 MiB 14 MiB less at 1.19 times, 24 MiB
 * 19 MiB less at 1.53 times. So the budget is this, or twice the largest
 * object used so far, whichever is more: one library larger than a fixed
 * budget would otherwise be released after every load that needs it.
 * This fixed budget is now what a resolver uses where it cannot read its
 * process's memory (LO_RESIDENT_LIMIT).
 */
#define LO_RESIDENT_BUDGET ((size_t)44 << 20)

/*
 * Where the process's memory can be read (os.h: lo_os_resident), the budget is
 * what its heap and its other file pages leave of this, worked out again
 * as the tables grow: a scan's heap grows with the tree (its results, a
 * kilobyte or so a candidate), and with a fixed budget so did the peak.
 * A small tree gets more than 44 MiB: on a machine where each page the
 * kernel maps costs as much as on this project's (a guest under shadow
 * paging: 16 us a file fault, 9 us a heap page), 44 MiB was too few for
 * the bench tree's libraries, read again and again (52 MiB took 0.86
 * times the time at scale 1). Against the fixed 44 MiB (2026-12-05,
 * interleaved pairs, whole process, medians): scale 1 0.89 times the
 * time (21 pairs), median peak 54.2 to 59.9 MiB, the budget 47 to 50
 * MiB; scale 4 0.99 times (15 pairs), median peak 60.0 to 61.5 MiB
 * (largest 64.3 to 65.3), the budget 42 to 46 MiB; scale 2 single runs
 * 58.8 to 64.5 MiB (8 runs) where the fixed budget gave 55.6 to 60.7.
 * 56 MiB: scale 1 0.94, scale 4 1.07 times, its median peak 2 MiB lower;
 * 56 MiB with the other file pages taken at their most yet: every run at
 * scale 4 under 59 MiB, but 1.16 times the time there. The peak lands up
 * to 9 MiB above this: the process is read as the tables grow, not as the
 * heap does, and fault-around maps more of the file than was read.
 */
#define LO_RESIDENT_LIMIT ((size_t)58 << 20)

/*
 * Under a limit, the process is looked at after this many loads, and
 * opens that start counting an object, at most, however little the
 * tables' count grew (over_budget_locked runs at both): the count is an
 * estimate (the pages of a big library's tables are read as lookups come
 * to them), and the budget takes what the count has over the pages
 * resident. Against looking only as the count grew, which kept the count
 * under a budget that assumed every counted page resident (2026-12-05,
 * interleaved pairs, whole process, medians; the same JSON on the bench
 * trees and the real-library tree): scale 1 0.960 times the time (15
 * pairs), median peak 59.7 to 59.4 MiB; scale 4 0.910 times (7 pairs),
 * median peak 60.8 to 60.0 MiB, largest 64.6 to 60.8; real-library tree
 * 0.984 times (12 pairs). A look is one read of /proc/self/statm on Linux, about
 * 200 a scan at scale 1.
 */
#define LO_LOOK_EVERY 32

/*
 * Objects whose lo_elf is kept before one not opened lately is let go (its
 * tables read again if it is asked for again): each is about a kilobyte
 * and a half of heap (the object, its dynamic section and version tables,
 * read at open). Kept all, a scan's heap grew with the tree: 28 MB for
 * the bench tree's 12,500 objects at scale 4. Which one goes is chosen as
 * a clock does (second chance): the objects sit in a ring; an open marks
 * its object's slot used; a hand goes round, clearing marks, and lets go
 * the first object it finds unmarked. The libraries many loads need are
 * marked again before the hand comes back; a tree's modules and copies,
 * read once or twice each, pass through. An open writes at most a byte: a
 * list by last use, relinked at every open, made the two judging threads
 * wait on each other for the lock (1.4 times the context switches).
 *
 * The threads of a scan read objects without the lock, so a let-go lo_elf
 * is freed only once no thread can still hold it: each thread is a worker
 * that marks when it starts and ends a candidate (an epoch); the object is
 * retired, and freed when every worker that began before has ended
 * (epoch-based reclamation). Its mapping is parked, and unmapped later
 * together with many others (LO_PARKED_PER_KEPT): with two threads
 * running each munmap costs a TLB shootdown (a scan 4 % slower). Its
 * pages are released when it is freed. All of this costs the bench tree's scans 1.03 to 1.05 times the
 * time, for 3 MiB less at scale 2 and 8 MiB less at scale 4.
 */
#define LO_KEPT_OBJECTS 1024

/* Retired objects gathered before those no worker can hold are freed together. */
#define LO_RETIRED_BATCH 64

/*
 * The mappings of freed objects kept, per object kept, before they are
 * unmapped together (16,384 by default): each mapping is an entry of the
 * process's map, and the kernel refuses more than vm.max_map_count
 * (65,530 by default), which a tree of 60,000 shared objects would reach.
 */
#define LO_PARKED_PER_KEPT 16

/* A thread's use of the resolver (resolve.h). */
struct lo_resolver_worker {
	lo_resolver *r;
	_Atomic unsigned long long at; /* the epoch its candidate began in, 0 between */
	struct lo_resolver_worker *next;
};

/* A let-go object waiting until no worker can hold it. */
typedef struct retired {
	lo_elf *elf;
	unsigned long long epoch; /* the epoch it was let go in */
	bool resident;            /* its pages were in memory: they are released with it */
	parsed *obj;              /* a dropped entry, freed with it; else NULL */
} retired;

/* One path as the resolver has read it; cached by path, never changed once ready. */
typedef struct opened {
	parsed *obj; /* NULL when it could not be read; owned by the inode map */
	int err;     /* 0, LO_ENOTELF, LO_EINVALID, or -errno-like LO_ERROR */
	int errnum;  /* errno when the file could not be opened */
	char *msg;   /* owned: why it could not be read, NULL when not opened (errnum says) */
	bool ready;  /* set under the lock once the fields above are final */
	unsigned users; /* threads between finding it and taking its object: not to be forgotten */
} opened;

/*
 * A file as one caller gets it from lo_resolver_open: its entry and
 * lo_elf, which stays valid while the caller's worker is within its
 * candidate (or for good: a host's, or without workers). Without an elf,
 * err and errnum say why it cannot be read, and lo_resolver_why in words;
 * msg is that sentence when the file was opened (borrowed from the
 * resolver), NULL when it was not.
 */
typedef struct got {
	parsed *obj;
	const lo_elf *elf;
	int err, errnum;
	const char *msg;
} got;

/* Where one target's loader looks after the paths an object names. */
typedef struct target_dirs {
	const lo_target *target;
	/* its glibc-hwcaps subdirectories the CPU supports, best first, NULL-terminated */
	const char *hwcaps[LO_TARGET_HWCAPS_MAX + 1];
	size_t hwcap_count;
	lo_map *cache;     /* its ld.so.cache entries: name -> path (owned); NULL: no cache */
	char **defaults;   /* its default directories, owned */
	size_t default_count;
} target_dirs;

/* Targets one scan meets at most (target.c has fewer). */
#define LO_RESOLVER_TARGETS 16

struct lo_resolver {
	char **llp; /* LD_LIBRARY_PATH entries, owned */
	size_t llp_count;
	char *cache_path;  /* the ld.so.cache read for each target, "" for none; owned */
	lo_sysroot *root;  /* --sysroot: where absolute paths are read, or NULL; owned */
	char **outside;    /* paths under these are read where they are (the scanned trees) */
	size_t outside_count;
	char **conf_dirs;  /* ld.so.conf directories, when there is no cache */
	size_t conf_count;
	char **default_dirs; /* the caller's default directories for every target, or NULL */
	char *hwcaps;        /* --hwcaps: ",LEVEL,LEVEL," or NULL for this CPU's; owned */
	size_t default_dirs_count;
	/* made on first use of each target, under the lock; never changed after */
	target_dirs targets[LO_RESOLVER_TARGETS];
	size_t target_count;
	/*
	 * The caches, shared by the scan's threads. A path's entry, once
	 * ready, never changes, so only finding or making one needs the lock;
	 * files are parsed outside it, and a thread asking for a file another
	 * thread is still reading waits on `ready`.
	 */
	pthread_mutex_t lock;
	pthread_cond_t ready;
	lo_map *by_path;  /* path_key ("dev:ino/name") -> opened* */
	lo_map *by_inode; /* "dev:ino" -> parsed* (owned) */
	/* per target (as targets[]): directory -> its subdirectories, as lo_resolver_hwcaps_in saw them */
	lo_map *hwcap_dirs[LO_RESOLVER_TARGETS];
	lo_map *by_dir;   /* directory as spelled -> its dir_id (owned), as lo_resolver_path_key saw it */
	pthread_mutex_t dir_lock; /* guards hwcap_dirs and by_dir alone */
	size_t resident;  /* bytes of the parsed objects marked resident */
	parsed *newest, *oldest; /* the resident ones, by last use */
	size_t budget;    /* the caller's, or what the process leaves of `limit` (LO_RESIDENT_BUDGET without) */
	size_t limit;     /* the process's resident bytes (LO_RESIDENT_LIMIT), 0 with the caller's budget */
	int memory;       /* lo_os_resident's handle with a limit, else -1 */
	size_t look_at;   /* with a limit: counted bytes past which the process is looked at again */
	unsigned since_look; /* with a limit: calls since it was last looked at (LO_LOOK_EVERY) */
	size_t largest;   /* bytes of the largest object marked resident so far */
	/* objects that may be let go (LO_KEPT_OBJECTS); only with workers */
	parsed **ring; /* kept_max slots, ring_count used, NULL where a host's object left */
	/*
	 * Per slot: opened since the hand last passed. Apart from the objects,
	 * so that a sweep of the hand reads a few cache lines, not a
	 * thousand objects', and an open writes a byte of its own.
	 */
	unsigned char *ring_used;
	size_t ring_count, kept_max, hand;
	_Atomic unsigned long long epoch; /* from 1; one more at each let-go */
	lo_resolver_worker *workers;
	retired *retired;   /* let go, not yet freed */
	size_t retired_cap;
	_Atomic size_t retired_count; /* changed under the lock; read without it by a worker's end */
	_Atomic size_t retired_next;  /* look for ones to free when there are this many */
	lo_fmap **parked;   /* mappings of freed objects, unmapped together (LO_PARKED_PER_KEPT) */
	size_t parked_count, parked_cap;
};

/* One object in the simulated process. */
typedef struct lobj {
	const lo_elf *elf;  /* borrowed from the resolver */
	parsed *obj;        /* the resolver's entry for elf */
	const char *path;   /* as opened */
	const char *origin; /* what $ORIGIN expands to for it */
	const char *name;   /* the name it was asked for under */
	size_t loader;      /* the object that asked for it, NONE for the first */
	size_t depth;
	/* lo_elf_gnu_hash of name and soname (0 without one), compared before the strings */
	uint32_t name_hash, soname_hash;
} lobj;

/*
 * Why a file is opened, which says how long the resolver keeps it. Most of
 * a tree's objects are candidates, read for their own judgment and needed
 * by nothing after: kept as long as the run, their entries grew the heap
 * with the tree (bench scale 4, massif: a peak of 20.4 MB, 15.2 once they
 * are dropped).
 */
typedef enum lo_use {
	LO_USE_CANDIDATE, /* to be judged: dropped after lo_resolver_forget unless opened otherwise */
	LO_USE_LIBRARY,   /* found for a load: kept; its lo_elf let go and read again as needed */
	LO_USE_HOST,      /* a host program's: its lo_elf never let go */
} lo_use;

/*
 * The file at `path` as the resolver has read it: read on first use (by
 * one thread; others asking meanwhile wait), then the same entry for every
 * later ask, its lo_elf read again if it was let go meanwhile.
 */
got lo_resolver_open(lo_resolver *r, const char *path, lo_use use);
/*
 * Why g, got for `path`, has no object: its msg, or for a file not opened
 * a sentence of the thread's, valid until its next call. Made only when
 * asked: most files not opened are paths a search passes over.
 */
const char *lo_resolver_why(const got *g, const char *path);

/*
 * After a load of objs[0] with its libraries objs[1..n-1] (those a dlopen
 * added): mark them used and release the least recently used past the
 * budget.
 */
void lo_resolver_keep_bounded(lo_resolver *r, const lobj *objs, size_t n);

/* ---- the process and the search ---- */

/* More objects than this in one process is a hostile tree, not a build. */
#define LO_MAX_OBJECTS 100000

#define NONE ((size_t)-1)

/* A process being built: the host's objects, then those a dlopen adds. */
typedef struct proc {
	lo_resolver *r;
	const lo_target *target; /* the host's: whose loader maps and searches */
	const target_dirs *dirs; /* where that loader searches; set with target */
	lobj *objs;
	size_t count, cap;
	size_t first_new; /* objects before this are the host's, already relocated */
	size_t main;      /* the program, NONE for the plain C host */
	char **strings;   /* owned, each made with malloc: the problems' details, inherited RPATHs' */
	size_t string_count, string_cap;
	lo_strpool pool;  /* the paths and names the objects and problems point to */
	lo_buf dir, path; /* a search's directory and file, written anew for each try */
	lo_problem *problems;
	size_t problem_count, problem_cap;
	lo_trace_object *tobjs;
	size_t tobj_count, tobj_cap;
	lo_trace_symbol *tsyms;
	size_t tsym_count, tsym_cap;
	bool trace;
	lo_use use; /* what it opens libraries as: LO_USE_HOST in a host's process */
	/*
	 * Bit (hash % LO_HOST_BITS) is set for every name an object before
	 * first_new defines; a clear bit lets a lookup skip the host's
	 * objects, which every symbol of every candidate would otherwise be
	 * looked up in first. Owned by the host, NULL while it is built.
	 */
	const uint64_t *host_names;
} proc;

/* The result of looking in one place for a needed library (TRY_STOP: nowhere else either). */
enum try_result { TRY_FOUND, TRY_NEXT, TRY_FATAL, TRY_STOP };

/*
 * One needed library's search, as ld.so makes it: the name asked for, what
 * was found and how, and what was tried on the way. lo_resolve_search fills it.
 */
typedef struct lookup {
	const char *name;
	const char *path;       /* where it was found (kept in the proc) */
	got found;              /* the resolver's reading of path */
	lo_found_via via;
	const char *via_detail; /* the RPATH/RUNPATH entry that found it (kept in the proc) */
	lo_buf *tried;          /* NULL, or each path passed over and why */
	char *fatal;            /* why the search stops the load; owned by the caller */
} lookup;

/* Keep owned string s for the process's lifetime; returns it (NULL stays NULL). */
const char *lo_resolve_keep(proc *p, char *s);
/* A copy of s kept for the process's lifetime (NULL stays NULL). */
const char *lo_resolve_keep_dup(proc *p, const char *s);
/* The directory `path` is in ("." for a bare name, "/" for the root's files), kept. */
const char *lo_resolve_keep_dirname(proc *p, const char *path);
/* A new string, printf-style; aborts when out of memory. */
char *lo_resolve_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* "ELFCLASS32" or "ELFCLASS64", as ld.so's messages name e's class. */
const char *lo_resolve_class_name(const lo_elf *e);
/*
 * Find lk->name, needed by object `req` (NONE for the plain C host's
 * libc), in the loader's order for p's target (resolve_search.c).
 */
enum try_result lo_resolve_search(proc *p, size_t req, lookup *lk);

/* ---- resolver_budget.c ---- */

/* Bound the tables by the process's memory, when it can be read; else by LO_RESIDENT_BUDGET. */
void lo_resolver_limit_init(lo_resolver *r, size_t limit);

/* o no longer in the list of resident objects (none of these take the lock: hold it). */
void lo_resolver_resident_unlink(lo_resolver *r, parsed *o);

/* Mark o as used by a load, at the newest end of the list or, when `last`, the oldest. */
void lo_resolver_resident_touch(lo_resolver *r, parsed *o, bool last);

/*
 * Are the resident tables past the budget? Then *keep is what they are cut
 * down to (three quarters of it). With a limit, the budget is worked out
 * again each time the tables pass it or grow by an eighth of it (the heap
 * grows with the tree, and the tables get what it leaves), and at every
 * LO_LOOK_EVERY-th call.
 */
bool lo_resolver_over_budget(lo_resolver *r, size_t *keep);

/* ---- resolver_dirs.c ---- */

/* "dev:ino" in fixed-width hex, and its NUL: a file's by_inode key */
#define LO_INODE_KEY_SIZE 34
void lo_resolver_inode_key(char key[LO_INODE_KEY_SIZE], dev_t dev, ino_t ino);

/* "dev:ino/" and a name; or '=' and a path that has no such key */
#define LO_PATH_KEY_SIZE (PATH_MAX + 2)
/*
 * The by_path key of `path`: its directory's inode and its last name, as
 * open(2) finds the file. False, with *errnum, when its directory cannot
 * be searched: then the path fails as open would, with that errno.
 */
bool lo_resolver_path_key(lo_resolver *r, const char *path, char key[LO_PATH_KEY_SIZE],
			  int *errnum);

/*
 * Which of d's glibc-hwcaps subdirectories `dir` holds: bit i for
 * d->hwcaps[i]. Asked once per scan and directory: ld.so, too, marks a
 * directory it found missing and does not look into it again; for every
 * directory searched, this spares an open per library and subdirectory.
 */
unsigned lo_resolver_hwcaps_in(lo_resolver *r, const target_dirs *d, const char *dir);

/*
 * open(2) of `path` as the loader would open it: under --sysroot unless it
 * is inside a scanned tree. Returns a descriptor, or -1 with errno.
 */
int lo_resolver_open_fd(const lo_resolver *r, const char *path, int flags);

/* Where target t's loader searches (its cache entries and default directories). */
const target_dirs *lo_resolver_dirs(lo_resolver *r, const lo_target *t);

#endif
