/*
 * git_worktree.c - is the work tree as the index last saw it, by stat
 * alone (git_int.h)?
 *
 * libgit2's diff of the work tree against the index lstats every tracked
 * file by its absolute path and looks for a .gitignore in every
 * directory: for a checkout of 104,000 files, 190,000 system calls and
 * most of a second on a paravirtualised machine, where git status takes
 * 0.4 to 0.5. A clean checkout is the common case before a test run, and git
 * itself calls a file unchanged when its stat is the one the index
 * recorded (read-cache.c, ie_match_stat), unless the index was written
 * too soon after the file for that to be trusted (racily clean). This
 * walk asks exactly that, directory by directory, each file by its name
 * relative to its directory's descriptor, on two threads as git's
 * preload-index does, and gives up at the first doubt: everything it
 * cannot vouch for is left to libgit2, so that it can only make the
 * answer faster, never different.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/walk.h"
#include "build/git_int.h"

/*
 * Names outside the index (and in untracked directories), each asked of
 * libgit2's ignore rules: about 0.1 ms a name (240 ignored files in
 * bench/make-checkout's directories added 10 to 30 ms to the walk's
 * 230). Past this many, libgit2's diff (800 ms there) decides: a tree of
 * that many ignored files beside its sources (objects of an in-source
 * build) is the kind its walk is for.
 */
#define LO_WORKTREE_IGNORE_CHECKS 2048

/* A directory the index holds files under: entries [lo, hi), below path[0, plen). */
typedef struct unit {
	size_t plen, lo, hi;
} unit;

typedef struct walk {
	git_repository *repo;
	const git_index_entry **e; /* the index's entries, in its order */
	struct timespec written;   /* the index file's mtime */
	int root;
	unit *units; /* the root first, then each directory before its subdirectories */
	size_t count, cap;
	atomic_size_t next;
	atomic_bool doubt;
	pthread_mutex_t ignore_lock; /* libgit2's repository is not for two threads */
	size_t checks_left;
	lo_buf rel;
} walk;

/* A name of one directory the index holds: a file's (its entry) or a subdirectory's. */
typedef struct child {
	const char *name; /* in the entry's path; not NUL-terminated for a subdirectory */
	size_t len;
	const git_index_entry *file; /* NULL for a subdirectory */
} child;

static int child_cmp(const void *a, const void *b)
{
	const child *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* One past the last entry from i on whose path starts as entry i's first `len` bytes. */
static size_t subtree_end(const walk *w, size_t i, size_t hi, size_t len)
{
	size_t j;

	for (j = i + 1; j < hi && !strncmp(w->e[j]->path, w->e[i]->path, len); j++)
		;
	return j;
}

/* Every directory under u's, each before its own subdirectories. */
static void collect_units(walk *w, size_t plen, size_t lo, size_t hi)
{
	size_t i, end;

	lo_array_grow(&w->units, &w->cap, w->count + 1, sizeof(*w->units));
	w->units[w->count++] = (unit){ plen, lo, hi };
	for (i = lo; i < hi; i = end) {
		const char *rest = w->e[i]->path + plen, *slash = strchr(rest, '/');

		end = slash ? subtree_end(w, i, hi, plen + (size_t)(slash - rest) + 1) : i + 1;
		if (slash)
			collect_units(w, plen + (size_t)(slash - rest) + 1, i, end);
	}
}

/* An entry the diff treats otherwise than by stat: left to libgit2. */
static bool entry_special(const git_index_entry *e)
{
	return GIT_INDEX_ENTRY_STAGE(e) != 0 || (e->flags & GIT_INDEX_ENTRY_VALID) ||
	       (e->flags_extended & (GIT_INDEX_ENTRY_INTENT_TO_ADD | GIT_INDEX_ENTRY_SKIP_WORKTREE));
}

/*
 * Is st the stat the index recorded for e, and old enough to trust?
 * Every field git compares, compared (the index keeps 32 bits of each);
 * the mode as git records one (a regular file's executable bit, a link).
 */
static bool entry_matches(const walk *w, const git_index_entry *e, const struct stat *st)
{
	uint32_t mode, mtime = (uint32_t)e->mtime.seconds;

	if (S_ISREG(st->st_mode))
		mode = st->st_mode & S_IXUSR ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	else if (S_ISLNK(st->st_mode))
		mode = GIT_FILEMODE_LINK;
	else
		return false;
	if (e->mode != mode || e->file_size != (uint32_t)st->st_size ||
	    e->ino != (uint32_t)st->st_ino || e->uid != (uint32_t)st->st_uid ||
	    e->gid != (uint32_t)st->st_gid || mtime != (uint32_t)st->st_mtim.tv_sec ||
	    e->mtime.nanoseconds != (uint32_t)st->st_mtim.tv_nsec ||
	    (uint32_t)e->ctime.seconds != (uint32_t)st->st_ctim.tv_sec ||
	    e->ctime.nanoseconds != (uint32_t)st->st_ctim.tv_nsec)
		return false;
	/* racily clean: modified in the index's own moment or after, and the stat could not tell */
	return (int64_t)mtime < (int64_t)w->written.tv_sec ||
	       ((int64_t)mtime == (int64_t)w->written.tv_sec &&
		e->mtime.nanoseconds < (uint32_t)w->written.tv_nsec);
}

/* Is `name`, in the directory at path prefix[0, plen), ignored? */
static bool ignored(walk *w, const char *prefix, size_t plen, const char *name)
{
	int is = 0;
	bool yes = false;

	pthread_mutex_lock(&w->ignore_lock);
	if (w->checks_left) {
		w->checks_left--;
		lo_buf_clear(&w->rel);
		lo_buf_add(&w->rel, prefix, plen);
		lo_buf_puts(&w->rel, name);
		yes = git_ignore_path_is_ignored(&is, w->repo, lo_buf_cstr(&w->rel)) == 0 && is;
	}
	pthread_mutex_unlock(&w->ignore_lock);
	return yes;
}

/* Deeper than this, an untracked directory is left to libgit2. */
#define LO_WORKTREE_UNTRACKED_DEPTH 32

/*
 * Would git list nothing in `name`, an untracked directory under dfd at
 * path prefix[0, plen)? Everything in it ignored, or a directory that is
 * so in turn (an empty one too): what the diff, entering untracked
 * directories, passes over. A repository inside is listed by git, and a
 * type the directory does not give is not looked into: both left to libgit2.
 * Such directories are what a branch switch leaves where its files had
 * ignored ones beside them (__pycache__, objects of an in-source build).
 */
static bool untracked_unlisted(walk *w, int dfd, const char *prefix, size_t plen, const char *name,
			       unsigned depth)
{
	lo_buf path = LO_BUF_INIT;
	const lo_dirent *de;
	lo_dirstream *dir;
	bool ok = true;
	int fd;

	if (depth >= LO_WORKTREE_UNTRACKED_DEPTH ||
	    (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	dir = lo_dirstream_new(fd);
	lo_buf_add(&path, prefix, plen);
	lo_buf_puts(&path, name);
	lo_buf_putc(&path, '/');
	while (ok && (de = lo_dirstream_next(dir)))
		ok = strcmp(de->name, ".git") &&
		     (ignored(w, path.ptr, path.len, de->name) ||
		      (de->type == LO_FT_DIR &&
		       untracked_unlisted(w, fd, path.ptr, path.len, de->name, depth + 1)));
	ok = ok && errno == 0;
	lo_dirstream_free(dir);
	lo_buf_dispose(&path);
	return ok;
}

/* u's names by the index, each once, sorted for lookups; *n of them. */
static child *children_of(const walk *w, const unit *u, size_t *n)
{
	child *kids = lo_xmalloc((u->hi - u->lo) * sizeof(*kids));
	size_t i;

	*n = 0;
	for (i = u->lo; i < u->hi;) {
		const char *rest = w->e[i]->path + u->plen, *slash = strchr(rest, '/');
		size_t len = slash ? (size_t)(slash - rest) : strlen(rest);

		kids[(*n)++] = (child){ rest, len, slash ? NULL : w->e[i] };
		i = slash ? subtree_end(w, i, u->hi, u->plen + len + 1) : i + 1;
	}
	qsort(kids, *n, sizeof(*kids), child_cmp);
	return kids;
}

/*
 * Is one name directory u (open as fd) lists as the index would have it:
 * one it holds (a file's stat is compared below; a subdirectory is
 * opened, not followed, as its own unit), one ignored, or a directory
 * git would list nothing in?
 */
static bool name_as_indexed(walk *w, const unit *u, int fd, const child *kids, size_t n,
			    const lo_dirent *de)
{
	child c = { de->name, strlen(de->name), NULL };
	const char *prefix = w->e[u->lo]->path;

	if (u->plen == 0 && !strcmp(de->name, ".git"))
		return true;
	return bsearch(&c, kids, n, sizeof(*kids), child_cmp) ||
	       ignored(w, prefix, u->plen, de->name) ||
	       (de->type == LO_FT_DIR && untracked_unlisted(w, fd, prefix, u->plen, de->name, 0));
}

/* Directory u, open as dir: its names, then the stat of each file it holds. */
static bool dir_as_indexed(walk *w, const unit *u, lo_dirstream *dir)
{
	int fd = lo_dirstream_fd(dir);
	size_t i, n;
	child *kids = children_of(w, u, &n);
	const lo_dirent *de;
	bool ok = true;

	while (ok && (de = lo_dirstream_next(dir)))
		ok = name_as_indexed(w, u, fd, kids, n, de);
	ok = ok && errno == 0;
	for (i = 0; ok && i < n; i++) {
		const git_index_entry *e = kids[i].file;
		struct stat st;

		if (!e)
			continue;
		/* a submodule: the diff is told to ignore them */
		ok = !entry_special(e) &&
		     (e->mode == GIT_FILEMODE_COMMIT ||
		      (fstatat(fd, kids[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 && entry_matches(w, e, &st)));
	}
	free(kids);
	return ok;
}

static bool unit_as_indexed(walk *w, const unit *u)
{
	char path[PATH_MAX], *last;
	lo_dirstream *dir;
	int fd;
	bool ok;

	if (u->plen >= sizeof(path))
		return false;
	if (u->plen) {
		memcpy(path, w->e[u->lo]->path, u->plen - 1);
		path[u->plen - 1] = '\0';
		/* git writes no "", "." or ".." component; an index that has one is not followed there */
		last = lo_os_path_last_separator(path) ? lo_os_path_last_separator(path) + 1 : path;
		if (!*last || !strcmp(last, ".") || !strcmp(last, ".."))
			return false;
	} else {
		strcpy(path, ".");
	}
	/* each directory above is its own unit, opened so too: a link to one is not followed */
	if ((fd = openat(w->root, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	dir = lo_dirstream_new(fd);
	ok = dir_as_indexed(w, u, dir);
	lo_dirstream_free(dir);
	return ok;
}

static void *run_units(void *arg)
{
	walk *w = arg;
	size_t i;

	while (!atomic_load(&w->doubt) && (i = atomic_fetch_add(&w->next, 1)) < w->count)
		if (!unit_as_indexed(w, &w->units[i]))
			atomic_store(&w->doubt, true);
	return NULL;
}

/*
 * The root first, on this thread: a build directory inside the checkout
 * and not ignored is found there, before any file is looked at. Then the
 * rest on two threads.
 */
static bool all_as_indexed(walk *w, size_t entries)
{
	pthread_t helper;
	bool helped = false;

	collect_units(w, 0, 0, entries);
	if (!unit_as_indexed(w, &w->units[0]))
		return false;
	atomic_store(&w->next, 1);
	if (w->count > 1 && sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		helped = pthread_create(&helper, NULL, run_units, w) == 0;
	run_units(w);
	if (helped)
		pthread_join(helper, NULL);
	return !atomic_load(&w->doubt);
}

bool lo_git_worktree_as_indexed(git_repository *repo, git_index *index, const char *workdir)
{
	walk w = { .repo = repo, .checks_left = LO_WORKTREE_IGNORE_CHECKS, .rel = LO_BUF_INIT };
	struct stat before, after;
	const char *path = index ? git_index_path(index) : NULL;
	size_t i, n;
	bool ok;

	/*
	 * The index's time is its file's: read again if the file changed
	 * since it was read, and the stat taken on both sides of that, so that
	 * the entries are the ones written at that time.
	 */
	if (!path || stat(path, &before) < 0 || git_index_read(index, 0) < 0 ||
	    stat(path, &after) < 0 || !lo_os_same_file(&before, &after) ||
	    !(n = git_index_entrycount(index)))
		return false;
	w.written = after.st_mtim;
	if ((w.root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	/* taken here, on one thread: the index sorts itself at the first get */
	w.e = lo_xmalloc(n * sizeof(*w.e));
	for (i = 0; i < n; i++)
		w.e[i] = git_index_get_byindex(index, i);
	pthread_mutex_init(&w.ignore_lock, NULL);
	ok = all_as_indexed(&w, n);
	pthread_mutex_destroy(&w.ignore_lock);
	close(w.root);
	free(w.e);
	free(w.units);
	lo_buf_dispose(&w.rel);
	return ok;
}
