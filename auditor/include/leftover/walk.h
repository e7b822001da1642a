/*
 * walk.h - enumerate a build tree.
 *
 * The walk reads directories through descriptors (openat, lo_dirstream) and
 * their entries' types, calls fstatat only where the type is unknown, never follows a
 * symlinked directory and skips `.git`, `.leftover.d` (clean's quarantine)
 * and `.leftover` (where leftover 0.1 kept it).
 * Every entry that is not a directory is handed to the callback with a path
 * relative to the root. A directory that cannot be opened is handed over
 * too, with `err` set, so that the scan can report it and go on.
 *
 * With jobs > 1 the callback runs on several threads at once, in no fixed
 * order; `worker` (0 .. jobs-1) says which, so the caller can keep one
 * collection per worker instead of locking.
 */
#ifndef LEFTOVER_WALK_H
#define LEFTOVER_WALK_H

#include <stddef.h>

/*
 * What kind of file an entry is. Each OS body translates its system's
 * word for it (a dirent's d_type, Windows' file attributes) into these, so
 * that no caller depends on <dirent.h>'s DT_* names, which Windows lacks.
 */
typedef enum lo_ftype {
	LO_FT_UNKNOWN, /* the file system does not say: fstatat it */
	LO_FT_REG,
	LO_FT_DIR,
	LO_FT_LNK,
	LO_FT_OTHER, /* a FIFO, socket or device: nothing to read */
} lo_ftype;

typedef struct lo_walk_entry {
	const char *relpath; /* relative to the root; borrowed for the call */
	const char *name;    /* last component of relpath */
	int dirfd;           /* descriptor of the directory holding it; -1 when known (below) */
	unsigned char type;  /* lo_ftype: LO_FT_REG, LO_FT_LNK, LO_FT_DIR (only with err), ... */
	int err;             /* errno when the entry could not be opened or listed, else 0 */
	unsigned worker;     /* which of the walk's threads is calling */
} lo_walk_entry;

/* Return 0 to go on, a negative code to stop the walk with that code. */
typedef int (*lo_walk_fn)(const lo_walk_entry *entry, void *payload);

/*
 * Walk `root` on `jobs` threads (0 counts as 1). Returns 0, the first
 * negative code a callback returned (the walk then stops), or LO_ERROR when
 * the root itself cannot be opened as a directory.
 */
int lo_walk_tree(const char *root, unsigned jobs, lo_walk_fn fn, void *payload);

/*
 * A directory whose entries the caller knows already (a scan in part: its
 * listing kept by the last scan, and the directory unchanged since,
 * scan_walk.c): its entries as the walk would hand them on, borrowed for
 * the whole walk, with *count; NULL to have it read. `relpath` is "" for
 * the root. Called on the walk's threads (`worker`), before a directory
 * is opened.
 */
typedef const struct lo_dirent *(*lo_walk_known_fn)(const char *relpath, unsigned worker,
						     size_t *count, void *payload);

/*
 * lo_walk_tree where `known` (NULL: none) may give a directory's entries:
 * then it is not read, its entries go to `fn` with dirfd -1, and its
 * subdirectories (LO_FT_DIR entries) are walked as the walk walks any,
 * each asked of `known` in turn. A subdirectory of a known directory is
 * opened component by component from the root, none followed if a link,
 * as the walk opens each from its parent's descriptor.
 */
int lo_walk_tree_known(const char *root, unsigned jobs, lo_walk_fn fn, lo_walk_known_fn known,
		       void *payload);

/*
 * One directory read entry by entry, as the walk reads each, a call
 * interrupted by a signal made again. For a reader of single directories
 * (git_worktree.c) too. The Linux body (os/fs_linux.c) reads getdents64 on
 * the descriptor into a buffer of its own: fdopendir makes an fcntl and an
 * fstat of every directory, two of the five calls a directory would cost in
 * a tree of thousands. The POSIX body (os/fs_posix.c) is fdopendir and
 * readdir.
 */
typedef struct lo_dirstream lo_dirstream;

/* One entry: borrowed from the stream until its next call. */
typedef struct lo_dirent {
	const char *name;
	unsigned char type; /* lo_ftype; LO_FT_UNKNOWN when the file system does not say */
} lo_dirent;

/* Read the directory open as `fd`, which the stream owns from here on. */
lo_dirstream *lo_dirstream_new(int fd);
/* Close its descriptor; NULL is fine. */
void lo_dirstream_free(lo_dirstream *d);
int lo_dirstream_fd(const lo_dirstream *d);
/*
 * The next entry but "." and "..", valid until the next call; NULL at the
 * end (errno 0) or on an error (errno set).
 */
const lo_dirent *lo_dirstream_next(lo_dirstream *d);

#endif
