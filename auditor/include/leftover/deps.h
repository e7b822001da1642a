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
 * Paths are absolute, as opened. Under --sysroot they would name files
 * inside the root, so the cache is not used there (scan.c).
 */
#ifndef LEFTOVER_DEPS_H
#define LEFTOVER_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* One thing consulted, as it was when it was consulted. */
typedef struct lo_dep {
	char *path;   /* absolute; owned */
	bool absent;  /* it did not exist (or was no directory on the way): the rest is 0 */
	uint32_t mode;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
} lo_dep;

typedef struct lo_deps {
	lo_dep *deps;
	size_t count, cap;
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

/* `path`'s stat now, as an entry (absent when stat fails); path borrowed. */
lo_dep lo_dep_of(const char *path);
/* Does `now` (lo_dep_of) show `then` unchanged? */
bool lo_dep_same(const lo_dep *then, const lo_dep *now);

#endif
