/*
 * clean_fs.h - private to the clean module: paths walked by descriptor.
 *
 * A lo_dpath is a relative path opened one directory at a time from a
 * directory descriptor with O_NOFOLLOW|O_DIRECTORY, so that no symlink on
 * the way is ever followed; the descriptors of every level are kept to
 * rename or unlink the last component and to remove emptied directories
 * on the way back up. Also the lock and the manifest shared by clean and
 * restore.
 */
#ifndef LEFTOVER_CLEAN_FS_H
#define LEFTOVER_CLEAN_FS_H

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/*
 * leftover's own directory in a tree: not ".leftover", the name of the
 * source tree's rule file (rules.h), which in an in-source build is the
 * same directory. A .gitignore holding `*` inside keeps it out of git.
 */
#define LO_CLEAN_DIR ".leftover.d"
/* Where leftover 0.1 kept it: restore and purge still find its quarantine sets. */
#define LO_CLEAN_OLD_DIR ".leftover"
#define LO_CLEAN_QUARANTINE "quarantine"
#define LO_CLEAN_MANIFEST "manifest.json"
#define LO_CLEAN_MAX_DEPTH 256

typedef struct lo_dpath {
	char *copy;     /* owned copy of the path, cut into components */
	char **comps;   /* into copy; the last is the file's name */
	size_t count;
	int *fds;       /* fds[i] holds comps[i]; fds[0] is the base (not owned) */
	size_t opened;  /* how many of fds are valid */
} lo_dpath;

/*
 * Split `rel` into components. Fails (LO_EINVALID) on an absolute path, an
 * empty, "." or ".." component, or more than LO_CLEAN_MAX_DEPTH of them.
 */
int lo_dpath_init(lo_dpath *p, const char *rel);
/*
 * Open the directories of p from `base`, creating the missing ones (mode
 * 0755) when `create`. On failure errno is kept and fds are closed.
 */
int lo_dpath_open(lo_dpath *p, int base, bool create);
/* The directory holding the last component, after lo_dpath_open. */
int lo_dpath_dirfd(const lo_dpath *p);
const char *lo_dpath_name(const lo_dpath *p);
/* Remove the directories of p that are now empty, deepest first, never base. */
void lo_dpath_prune(lo_dpath *p);
void lo_dpath_close(lo_dpath *p);
void lo_dpath_dispose(lo_dpath *p);

/* Open (creating when `create`) directory `name` in `dirfd` without following a symlink. */
int lo_clean_opendir(int dirfd, const char *name, bool create);

/*
 * Take ROOT/.leftover.d/lock (creating .leftover.d, and its .gitignore when
 * missing); *lockfd is set, *dotfd is the .leftover.d directory. Fails with a message naming the holder's pid
 * when another run holds it and !wait, or when `stop` (may be NULL) is set
 * by a signal while waiting for it.
 */
int lo_clean_lock(int rootfd, const char *root, bool wait, volatile sig_atomic_t *stop,
		  int *dotfd, int *lockfd);

/* Remove the directory `name` in `dirfd` and everything under it, links as links. */
int lo_clean_remove_tree(int dirfd, const char *name, int depth);

/* Write `doc` to `name` in `dirfd` via a temporary, fsyncing file and directory. */
int lo_clean_write_json(int dirfd, const char *name, const json_t *doc, const char *what);

/* readdir, again on EINTR: NULL with errno 0 at the end, errno set on an error. */
struct dirent *lo_clean_readdir(DIR *d);

/* The whole of fd from where it is, owned in *out (NUL-terminated); -1 with errno. */
int lo_clean_read_all(int fd, char **out, size_t *len);

/* A path as the manifest stores it: "path" when UTF-8, else "path_hex". */
void lo_clean_json_set_path(json_t *obj, const char *path);
/* The path of a manifest entry, owned, or NULL when it has none. */
char *lo_clean_json_get_path(const json_t *obj);

#endif
