/*
 * deps.h - what a scan consulted, for the verdict cache (cache.h).
 *
 * A verdict is a function of the files and directories it was drawn from:
 * the candidate, each library bound and each path a search tried in vain,
 * the host program, the build's records, git's HEAD and index, every
 * directory the walk listed. The readers note each of those here, where
 * they open or stat it anyway, with the stat data they already have
 * (device, inode, size, mode, mtime and ctime in nanoseconds) or its
 * absence; the cache keeps the list, and a later scan trusts the cached
 * result only while every entry stats the same (ninja's .ninja_deps and
 * git's index work the same way).
 *
 * Recording is process-wide and off until lo_deps_start: off, a note is
 * one load of an atomic pointer, so the readers' hot paths do not pay for
 * a scan that keeps no cache (clean, --no-cache). On, a note takes a lock
 * and a lookup: a path noted twice is kept once, with its first stat (the
 * one the verdict was drawn from: a change after it shows next time).
 *
 * Each note says how the thing was used (lo_dep's `use`). What the scan
 * as a whole reads (rules, build records, git, ld.so.cache, the hosts and
 * what they load: lo_deps_note_stat, lo_deps_note_path) is shared: a
 * change there and every verdict is judged afresh. What the walk lists
 * (lo_deps_note_fd; lo_deps_note_listed where its kept listing stood in
 * for it) only says whether the tree must be walked again, and where. What
 * the resolver reads for one verdict (lo_deps_note_read, lo_deps_note_again)
 * is that verdict's own: the judging thread names the verdict at hand
 * (lo_deps_attribute, its slot), and the recording keeps each (slot, dep)
 * pair, so that a later scan judges again only the verdicts one of whose
 * own dependencies changed. The same path read both ways is shared. A
 * verdict drawn on more than its reads (a host inferred from the tree,
 * dyld's or Windows' lookups) is tainted: never kept (lo_deps_taint).
 *
 * An append-only log (.ninja_log) is noted as read up to a length
 * (lo_deps_note_log): the build appends to it after a scan read it (the
 * audit's own command is logged when it ends), and rewrites it only by
 * writing a new file in its place (a new inode). Such a dependency stands
 * while it is the same file, at least that long, the bytes just before
 * that length hash as they did (a rewrite in place), and the build's
 * records say every line appended since changes no verdict (buildsys.h,
 * lo_buildsys_log_appended_stands).
 *
 * Paths are absolute, as opened. Under --sysroot they would name files
 * inside the root, so the cache is not used there (scan.c).
 */
#ifndef LEFTOVER_DEPS_H
#define LEFTOVER_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* How a dependency was used (lo_dep's `use`, bits). */
enum {
	LO_DEP_SHARED = 1, /* by the scan as a whole: a change and every verdict goes */
	LO_DEP_LOCAL = 2,  /* by the verdicts of lo_deps' uses alone */
	LO_DEP_WALK = 4,   /* a directory the walk listed */
};

/* One thing consulted, as it was when it was consulted. */
typedef struct lo_dep {
	char *path;   /* absolute; owned */
	bool absent;  /* it did not exist (or was no directory on the way): the rest is 0 */
	uint8_t use;  /* LO_DEP_* bits */
	uint32_t mode;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
	uint64_t log_at;   /* an append-only log read up to here: its stat but this
			      is not kept to; 0: any other file */
	uint64_t log_hash; /* lo_dep_log_hash at log_at */
} lo_dep;

/* The bytes before a log's length that lo_dep_log_hash covers: its last line, or more. */
#define LO_DEP_LOG_CHECK 512

/* Verdict `slot` consulted deps[dep]. */
typedef struct lo_deps_use {
	uint32_t slot, dep;
} lo_deps_use;

typedef struct lo_deps {
	lo_dep *deps;
	size_t count, cap;
	lo_deps_use *uses; /* sorted by slot, then dep; each pair once */
	size_t use_count, use_cap;
	uint32_t *tainted; /* the slots whose verdicts are not to be kept, sorted, each once */
	size_t tainted_count, tainted_cap;
} lo_deps;

/* Start recording (a previous recording not taken is dropped). */
void lo_deps_start(void);
/* Stop recording and take what was noted; NULL when nothing was recording. */
lo_deps *lo_deps_take(void);
void lo_deps_free(lo_deps *d);
/* Is a recording on? For a reader that would build a path only to note it. */
bool lo_deps_recording(void);

/* `path` as fstat or stat gave `st`; st NULL: it was not there. */
void lo_deps_note_stat(const char *path, const struct stat *st);
/* `dir`/`rel` (rel "" or NULL: dir itself) as fstat of its open `fd` gives it. */
void lo_deps_note_fd(const char *dir, const char *rel, int fd);
/* `path` as stat (following links) gives it now, or its absence. */
void lo_deps_note_path(const char *path);

/*
 * What `path` was first noted as, into *out (its path NULL, no use): false
 * when it was not, or nothing records. For a stat the recording has.
 */
bool lo_deps_noted(const char *path, lo_dep *out);
/*
 * `path`, noted read (lo_deps_note_stat), is an append-only log whose
 * first `at` bytes were read, hashing `hash` (lo_dep_log_hash): see the
 * head of this file. A path not noted yet is left alone.
 */
void lo_deps_note_log(const char *path, uint64_t at, uint64_t hash);
/*
 * FNV-1a of the LO_DEP_LOG_CHECK bytes (or fewer, from the start) before
 * offset `at` of the open `fd`; false when they cannot all be read.
 */
bool lo_dep_log_hash(int fd, uint64_t at, uint64_t *hash);

/*
 * The calling thread judges verdict `slot` now (lo_deps_attribute) or no
 * more (slot SIZE_MAX): its reads are that verdict's own; without one,
 * the scan's as a whole. Returns the slot it judged before, to go back to.
 */
size_t lo_deps_attribute(size_t slot);
/* `path` read, as `st` (NULL: absent), for the verdict at hand (shared when none). */
void lo_deps_note_read(const char *path, const struct stat *st);
/* `path`, read before, consulted again for the verdict at hand; `shared`: by a host. */
void lo_deps_note_again(const char *path, bool shared);
/* `d`, checked unchanged since a scan kept it, for the verdict at hand (shared when none). */
void lo_deps_note_kept(const lo_dep *d);
/* `d`, a directory of the walk checked unchanged since a scan kept its listing. */
void lo_deps_note_listed(const lo_dep *d);
/* The verdict at hand drew on more than what it read: it is not to be kept. */
void lo_deps_taint(void);
/* Is `slot` among d's tainted? */
bool lo_deps_is_tainted(const lo_deps *d, size_t slot);

/* `path`'s stat now, as an entry (absent when stat fails); path borrowed. */
lo_dep lo_dep_of(const char *path);
/*
 * lo_dep_of, `path` statted as `rel` relative to the directory `dirfd` was
 * opened at (path's own directory or one above it): one lookup of the
 * components below, not of all of them again. AT_FDCWD with rel = path
 * is lo_dep_of.
 */
lo_dep lo_dep_of_at(int dirfd, const char *rel, const char *path);
/* `path`'s lstat now (the link itself), as an entry; path borrowed. */
lo_dep lo_dep_of_link(const char *path);
/* Does `now` (lo_dep_of) show `then` unchanged? */
bool lo_dep_same(const lo_dep *then, const lo_dep *now);
/* The same file or directory, or the same absence (what a search's directory tells)? */
bool lo_dep_same_identity(const lo_dep *then, const lo_dep *now);
/* Sort `n` pointers to dependencies by their paths (strcmp). */
void lo_deps_sort_by_path(const lo_dep **v, size_t n);

#endif
