/*
 * walk.c - enumerate a build tree through directory descriptors, on several
 * threads (see walk.h).
 *
 * Each worker walks depth-first with its own stack of open directories and
 * gives a subdirectory away to a shared queue only while the queue is short,
 * so idle workers find work and the number of descriptors held open stays
 * bounded by (workers x depth + queue length) rather than by the width of
 * the tree. Directories are opened relative to their parent's descriptor
 * with O_NOFOLLOW | O_DIRECTORY: a symlink to a directory is reported as a
 * symlink and never entered, and a directory swapped for a symlink during
 * the walk is not followed either. Types come from the directory stream
 * (d_type, said as an lo_ftype); fstatat is called only where the file
 * system leaves them unknown. At LO_WALK_MAX_DEPTH the walk reports the
 * directory (ELOOP) instead of entering it.
 * Directories are read through lo_dirstream (walk.h), whose Linux body
 * reads getdents64 on the descriptor (fs_linux.c).
 *
 * A directory the caller knows (lo_walk_tree_known) is a listing instead
 * of a stream, with no descriptor: its subdirectories that must be read
 * are opened from the root's descriptor one component at a time, each
 * with O_NOFOLLOW, so that a link swapped in anywhere on the way is not
 * followed either. That costs a call per component, paid only by a
 * directory read below a known one: few, in the scan in part it is for.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/lock.h"
#include "leftover/os.h"
#include "leftover/walk.h"

#define LO_WALK_MAX_DEPTH 256
/* Subdirectories waiting in the shared queue, at most, per worker. */
#define LO_WALK_QUEUE_PER_WORKER 4


/* A directory's entries: read from a stream, or a known listing (walk.h). */
typedef struct source {
	lo_dirstream *dir;     /* NULL when known */
	const lo_dirent *known; /* the entries still to hand on; borrowed */
	size_t left;
} source;

/* A directory handed from one worker to another: open or known, with its path. */
typedef struct task {
	source src;
	char *path; /* relative to the root, "" for the root; owned */
	size_t depth;
} task;

typedef struct shared {
	pthread_mutex_t lock;
	pthread_cond_t more;
	task *queue;
	size_t queued, cap, limit;
	size_t busy; /* workers not waiting on the queue */
	int rc;      /* first negative callback result: stops every worker */
	lo_walk_fn fn;
	lo_walk_known_fn known; /* or NULL */
	void *payload;
	const char *root; /* as given, for the directories' notes (deps.h) */
	int root_fd;      /* with `known`: what a known directory's subdirectories are opened from */
} shared;

typedef struct frame {
	source src;
	size_t parent_len; /* length of the relative path before this directory's name */
} frame;

typedef struct worker {
	shared *sh;
	unsigned index;
	pthread_t thread;
} worker;

static unsigned char stat_type(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return LO_FT_UNKNOWN;
	return S_ISDIR(st.st_mode)    ? LO_FT_DIR
	       : S_ISLNK(st.st_mode)  ? LO_FT_LNK
	       : S_ISREG(st.st_mode)  ? LO_FT_REG
				      : LO_FT_OTHER;
}

static void truncate_path(lo_buf *path, size_t len)
{
	path->len = len;
	if (path->ptr)
		path->ptr[len] = '\0';
}

static bool stopped(shared *sh)
{
	bool s;

	pthread_mutex_lock(&sh->lock);
	s = sh->rc < 0;
	pthread_mutex_unlock(&sh->lock);
	return s;
}

static void stop(shared *sh, int rc)
{
	pthread_mutex_lock(&sh->lock);
	if (sh->rc == 0)
		sh->rc = rc;
	pthread_cond_broadcast(&sh->more);
	pthread_mutex_unlock(&sh->lock);
}

/* Give `src` to the queue when it is short; false: walk it yourself. */
static bool give_away(shared *sh, source src, const char *path, size_t depth)
{
	bool given = false;

	pthread_mutex_lock(&sh->lock);
	if (sh->queued < sh->limit) {
		lo_array_grow(&sh->queue, &sh->cap, sh->queued + 1, sizeof(task));
		sh->queue[sh->queued++] = (task){ src, lo_xstrdup(path), depth };
		pthread_cond_signal(&sh->more);
		given = true;
	}
	pthread_mutex_unlock(&sh->lock);
	return given;
}

/* The next directory to walk; false when the walk is over. */
static bool take(shared *sh, task *t)
{
	bool got = false;

	pthread_mutex_lock(&sh->lock);
	sh->busy--;
	for (;;) {
		if (sh->rc < 0)
			break;
		if (sh->queued) {
			*t = sh->queue[--sh->queued];
			sh->busy++;
			got = true;
			break;
		}
		if (sh->busy == 0) { /* nobody can add more: done */
			pthread_cond_broadcast(&sh->more);
			break;
		}
		pthread_cond_wait(&sh->more, &sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
	return got;
}

static int emit(worker *w, const char *rel, const char *name, int dfd, unsigned char type,
		int err)
{
	lo_walk_entry e = { rel, name, dfd, type, err, w->index };

	return w->sh->fn(&e, w->sh->payload);
}

static int open_dir_at(int dfd, const char *name)
{
	int fd, tries = 0;

	do
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	while (fd < 0 && errno == EINTR && ++tries < LO_OS_EINTR_TRIES);
	return fd;
}

/*
 * The directory `rel` (not "") below the root open, no component followed
 * if a link; -1 with errno.
 */
static int open_below(int root_fd, const char *rel)
{
	char name[256];
	int fd = root_fd, next;

	while (*rel) {
		size_t n = strcspn(rel, "/");

		if (n >= sizeof(name)) {
			next = -1;
			errno = ENAMETOOLONG;
		} else {
			memcpy(name, rel, n);
			name[n] = '\0';
			next = open_dir_at(fd, name);
		}
		if (fd != root_fd) {
			int errnum = errno;

			close(fd);
			errno = errnum;
		}
		if ((fd = next) < 0)
			return -1;
		rel += n + (rel[n] == '/');
	}
	return fd;
}

/* The next entry of `src`, as lo_dirstream_next gives it. */
static const lo_dirent *next_entry(source *src)
{
	if (src->dir)
		return lo_dirstream_next(src->dir);
	errno = 0;
	if (!src->left)
		return NULL;
	src->left--;
	return src->known++;
}

/*
 * The subdirectory at `path` (named `name` in the directory `dfd`, -1 when
 * known), to walk: known, or open; false with errno when it cannot be.
 */
static bool enter(shared *sh, unsigned who, int dfd, const char *path, const char *name,
		  source *src)
{
	int fd;

	memset(src, 0, sizeof(*src));
	if (sh->known && (src->known = sh->known(path, who, &src->left, sh->payload)))
		return true;
	if ((fd = dfd >= 0 ? open_dir_at(dfd, name) : open_below(sh->root_fd, path)) < 0)
		return false;
	/* its stat before its entries (deps.h): a change while it is read shows */
	lo_deps_note_fd(sh->root, path, fd);
	src->dir = lo_dirstream_new(fd);
	return true;
}

/* Walk one directory depth-first, giving subdirectories away when asked. */
static int walk_from(worker *w, task *t)
{
	frame stack[LO_WALK_MAX_DEPTH];
	size_t depth = 0, base_depth = t->depth;
	lo_buf path = LO_BUF_INIT;
	source sub;
	int rc = 0;

	lo_buf_puts(&path, t->path);
	stack[depth++] = (frame){ t->src, 0 };
	while (depth && rc == 0) {
		frame *top = &stack[depth - 1];
		int dfd = top->src.dir ? lo_dirstream_fd(top->src.dir) : -1;
		const lo_dirent *de;
		const char *name;
		unsigned char type;
		size_t base = path.len;

		de = next_entry(&top->src);
		if (!de) {
			if (errno)
				rc = emit(w, base ? path.ptr : ".", base ? path.ptr : ".", dfd, LO_FT_DIR,
					  errno);
			lo_dirstream_free(top->src.dir);
			truncate_path(&path, top->parent_len);
			depth--;
			continue;
		}
		if (base)
			lo_buf_putc(&path, '/');
		lo_buf_puts(&path, de->name);
		name = path.ptr + path.len - strlen(de->name);
		type = de->type == LO_FT_UNKNOWN && dfd >= 0 ? stat_type(dfd, de->name) : de->type;
		if (type != LO_FT_DIR) {
			rc = emit(w, path.ptr, name, dfd, type, 0);
		} else if (!strcmp(de->name, ".git") || !strcmp(de->name, ".leftover.d") ||
			   !strcmp(de->name, ".leftover")) {
			/*
			 * git's own store and clean's quarantine (clean.h), never build
			 * output; a .leftover directory is where leftover 0.1 kept it
			 */
		} else if (base_depth + depth >= LO_WALK_MAX_DEPTH) {
			rc = emit(w, path.ptr, name, dfd, LO_FT_DIR, ELOOP);
		} else if (!enter(w->sh, w->index, dfd, path.ptr, de->name, &sub)) {
			rc = emit(w, path.ptr, name, dfd, LO_FT_DIR, errno);
		} else if (!give_away(w->sh, sub, path.ptr, base_depth + depth)) {
			stack[depth++] = (frame){ sub, base };
			continue; /* keep this directory's name on the path */
		}
		truncate_path(&path, base);
		if ((depth & 15) == 0 && stopped(w->sh))
			break;
	}
	while (depth)
		lo_dirstream_free(stack[--depth].src.dir);
	lo_buf_dispose(&path);
	return rc;
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	task t;
	int rc;

	while (take(w->sh, &t)) {
		rc = walk_from(w, &t);
		free(t.path);
		if (rc < 0)
			stop(w->sh, rc);
	}
	return NULL;
}

int lo_walk_tree(const char *root, unsigned jobs, lo_walk_fn fn, void *payload)
{
	return lo_walk_tree_known(root, jobs, fn, NULL, payload);
}

int lo_walk_tree_known(const char *root, unsigned jobs, lo_walk_fn fn, lo_walk_known_fn known,
		       void *payload)
{
	shared sh;
	worker *workers;
	source first = { NULL, NULL, 0 };
	unsigned i, started = 0;
	int fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open directory '%s'", root);
	if (jobs == 0)
		jobs = 1;
	memset(&sh, 0, sizeof(sh));
	lo_lock_init(&sh.lock);
	pthread_cond_init(&sh.more, NULL);
	sh.fn = fn;
	sh.known = known;
	sh.root = root;
	sh.root_fd = -1;
	sh.payload = payload;
	if (known)
		first.known = known("", 0, &first.left, payload);
	if (first.known) {
		sh.root_fd = fd;
	} else {
		/* read, and open again for the known directories below (no fcntl on Windows) */
		if (known)
			sh.root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		lo_deps_note_fd(root, NULL, fd);
		first.dir = lo_dirstream_new(fd);
	}
	sh.limit = (size_t)jobs * LO_WALK_QUEUE_PER_WORKER;
	lo_array_grow(&sh.queue, &sh.cap, 1, sizeof(task));
	sh.queue[sh.queued++] = (task){ first, lo_xstrdup(""), 0 };
	sh.busy = jobs; /* each worker counts itself idle on its first take */

	workers = lo_xcalloc(jobs, sizeof(*workers));
	for (i = 0; i < jobs; i++) {
		workers[i] = (worker){ &sh, i, 0 };
		if (i > 0 && pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
			break;
		started++;
	}
	if (started < jobs) { /* fewer threads than asked: the missing ones are not busy */
		pthread_mutex_lock(&sh.lock);
		sh.busy -= jobs - started;
		pthread_mutex_unlock(&sh.lock);
	}
	worker_main(&workers[0]);
	for (i = 1; i < started; i++)
		pthread_join(workers[i].thread, NULL);

	while (sh.queued) { /* left by a stopped walk */
		task *t = &sh.queue[--sh.queued];

		lo_dirstream_free(t->src.dir);
		free(t->path);
	}
	if (sh.root_fd >= 0)
		close(sh.root_fd);
	free(sh.queue);
	free(workers);
	pthread_cond_destroy(&sh.more);
	pthread_mutex_destroy(&sh.lock);
	return sh.rc;
}
