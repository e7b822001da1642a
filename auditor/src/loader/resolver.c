/*
 * resolver.c - the loader model's file cache (resolve_int.h).
 *
 * A scan asks for the same libraries thousands of times from several
 * threads: each file is read once, each inode parsed once whatever path
 * names it, and the parsed tables stay mapped only while memory allows
 * (resolver_budget.c says how much that is).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/cpu.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/ldconfig.h"
#include "leftover/lock.h"
#include "leftover/os.h"
#include "loader/resolve_int.h"

int lo_resolver_new(lo_resolver **out, const lo_resolver_opts *opts)
{
	lo_resolver *r = lo_xcalloc(1, sizeof(*r));
	size_t i, cap = 0;
	const char *cache = opts && opts->ldso_cache ? opts->ldso_cache : "/etc/ld.so.cache";
	const char *conf = opts && opts->ldso_conf ? opts->ldso_conf : "/etc/ld.so.conf";

	lo_lock_init(&r->lock);
	lo_lock_init(&r->dir_lock);
	pthread_cond_init(&r->ready, NULL);
	r->by_path = lo_map_new();
	r->by_inode = lo_map_new();
	r->by_dir = lo_map_new();
	r->budget = opts && opts->resident_budget ? opts->resident_budget : LO_RESIDENT_BUDGET;
	r->memory = -1;
	if (!(opts && opts->resident_budget))
		lo_resolver_limit_init(r, opts && opts->resident_limit ? opts->resident_limit
									: LO_RESIDENT_LIMIT);
	r->kept_max = opts && opts->kept_objects ? opts->kept_objects : LO_KEPT_OBJECTS;
	atomic_init(&r->epoch, 1);
	atomic_init(&r->retired_next, LO_RETIRED_BATCH);
	for (i = 0; opts && i < opts->library_path_count; i++)
		if (opts->library_path[i][0])
			lo_strv_add_unique(&r->llp, &r->llp_count, &cap, opts->library_path[i]);
	*out = NULL;
	if (opts && opts->sysroot) {
		int err = lo_sysroot_new(&r->root, opts->sysroot);

		if (err < 0) {
			lo_resolver_free(r);
			return err;
		}
		for (i = 0, cap = 0; i < opts->outside_count; i++)
			lo_strv_add_unique(&r->outside, &r->outside_count, &cap, opts->outside[i]);
	}
	cap = 0;
	if (opts && opts->default_dirs) {
		r->default_dirs = lo_xcalloc(1, sizeof(char *));
		for (i = 0; i < opts->default_dirs_count; i++)
			lo_strv_add_unique(&r->default_dirs, &r->default_dirs_count, &cap,
					   opts->default_dirs[i]);
	}
	if (opts && opts->hwcaps && asprintf(&r->hwcaps, ",%s,", opts->hwcaps) < 0)
		abort();
	r->cache_path = lo_xstrdup(cache);
	/* whether the cache can be read is the same for every target: the native one says */
	if (!lo_resolver_dirs(r, lo_target_native())->cache && *conf)
		lo_ldconfig_read_conf(&r->conf_dirs, &r->conf_count, r->root, conf);
	lo_error_clear();
	*out = r;
	return 0;
}

static void free_opened(void *v)
{
	opened *o = v;

	free(o->msg);
	free(o);
}

static void free_parsed(void *v)
{
	parsed *o = v;

	lo_elf_free(o->elf);
	free(o->path);
	free(o->key);
	free(o->gone);
	free(atomic_load(&o->bound));
	free(o);
}

void lo_resolver_free(lo_resolver *r)
{
	size_t i;

	if (!r)
		return;
	lo_strv_free(r->llp, r->llp_count);
	lo_strv_free(r->conf_dirs, r->conf_count);
	lo_strv_free(r->default_dirs, r->default_dirs_count);
	for (i = 0; i < r->target_count; i++) {
		lo_map_free(r->targets[i].cache, free);
		lo_strv_free(r->targets[i].defaults, r->targets[i].default_count);
	}
	free(r->cache_path);
	free(r->hwcaps);
	lo_sysroot_free(r->root);
	lo_strv_free(r->outside, r->outside_count);
	lo_map_free(r->by_path, free_opened);
	lo_map_free(r->by_inode, free_parsed);
	lo_map_free(r->by_dir, free);
	for (i = 0; i < r->retired_count; i++) {
		lo_elf_free(r->retired[i].elf);
		if (r->retired[i].obj)
			free_parsed(r->retired[i].obj);
	}
	free(r->retired);
	free(r->ring);
	free(r->ring_used);
	for (i = 0; i < r->parked_count; i++)
		lo_fmap_free(r->parked[i]);
	free(r->parked);
	while (r->workers) {
		lo_resolver_worker *w = r->workers;

		r->workers = w->next;
		free(w);
	}
	for (i = 0; i < LO_RESOLVER_TARGETS; i++)
		lo_map_free(r->hwcap_dirs[i], NULL);
	lo_os_resident_close(r->memory);
	pthread_cond_destroy(&r->ready);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->dir_lock);
	free(r);
}

/*
 * The file at `path` opened, its fstat in *st; -1 with errno when not.
 * Opened first, its fstat serving the inode cache and the read: one path
 * walk and one system call fewer than a stat before the open, the same
 * errors (what open refuses, stat let lo_elf_open refuse), and an open
 * more for a file read before under another path. Under --sysroot,
 * opened inside the root: no path of it is followed twice. EINTR (a
 * signal handled without SA_RESTART) says nothing of the file.
 */
static int open_stat(const lo_resolver *r, const char *path, struct stat *st)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
	int rc, fd, tries = 0;

	do {
		fd = r->root ? lo_resolver_open_fd(r, path, flags) : open(path, flags);
		rc = fd < 0 ? -1 : fstat(fd, st);
		if (rc < 0 && fd >= 0) {
			int errnum = errno;

			close(fd);
			errno = errnum;
		}
	} while (rc < 0 && errno == EINTR && ++tries < 64);
	return rc < 0 ? -1 : fd;
}

/* The candidate a judge read itself, as it read it, for the verdict cache (deps.h). */
static void note_stamp(const char *path, const lo_elf_stamp *at)
{
	struct stat st;

	if (!lo_deps_recording())
		return;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG;
	st.st_dev = at->dev;
	st.st_ino = at->ino;
	st.st_size = (off_t)at->size;
	st.st_mtim = at->mtime;
	st.st_ctim = at->ctime;
	lo_deps_note_read(path, &st);
}

/*
 * Read the file at `path` into `o`, outside the lock, unless the caller
 * read it already (`given`, which is taken); the same inode under two
 * paths is one object (checked again under the lock, since another thread
 * may have parsed it meanwhile under its other name).
 */
static void resolver_read_into(lo_resolver *r, const char *path, const char *key, opened *o,
			       lo_elf *given)
{
	struct stat st;
	char inode[LO_INODE_KEY_SIZE];
	parsed *found;
	lo_elf *e = given;
	int fd = -1;

	if (given) {
		lo_elf_stamp at = lo_elf_stamp_of(given);

		lo_resolver_inode_key(inode, at.dev, at.ino);
		note_stamp(path, &at);
	} else if ((fd = open_stat(r, path, &st)) < 0) {
		/* most are paths a search tries: the message is made when asked for (lo_resolver_why) */
		o->errnum = errno;
		o->err = LO_ERROR;
		lo_deps_note_read(path, NULL); /* a library put there later is found then */
		return;
	} else {
		lo_resolver_inode_key(inode, st.st_dev, st.st_ino);
		lo_deps_note_read(path, &st);
	}
	pthread_mutex_lock(&r->lock);
	/* counted at once: a forget meanwhile must see this path name it */
	if ((found = lo_map_get(r->by_inode, inode, NULL)))
		found->paths++;
	pthread_mutex_unlock(&r->lock);
	if (found) {
		if (fd >= 0)
			close(fd);
		lo_elf_free(given);
		o->obj = found;
		return;
	}
	if (!given)
		o->err = lo_elf_open_fd(&e, fd, &st, path);
	if (o->err < 0) {
		o->errnum = errno;
		o->msg = lo_xstrdup(lo_error_last());
		return;
	}
	pthread_mutex_lock(&r->lock);
	if (!(found = lo_map_get(r->by_inode, inode, NULL))) {
		found = lo_xcalloc(1, sizeof(*found));
		found->elf = e;
		found->path = lo_xstrdup(path);
		found->key = lo_xstrdup(key);
		found->ring_at = NONE;
		found->stamp = lo_elf_stamp_of(e);
		found->bytes = lo_elf_table_bytes(e);
		e = NULL;
		lo_map_put(r->by_inode, inode, found);
	}
	found->paths++;
	pthread_mutex_unlock(&r->lock);
	lo_elf_free(e);
	o->obj = found;
}

/* ---- memory (the budget: resolver_budget.c) ------------------------------- */

/*
 * Let go of o: retire its lo_elf until no worker can hold it
 * (lo_resolver_end), and o itself with it when `dropped`.
 */
static void retire_locked(lo_resolver *r, parsed *o, bool dropped)
{
	lo_array_grow(&r->retired, &r->retired_cap, r->retired_count + 1, sizeof(*r->retired));
	r->retired[r->retired_count++] =
		(retired){ o->elf, atomic_load(&r->epoch), o->resident, dropped ? o : NULL };
	lo_resolver_resident_unlink(r, o);
	o->elf = NULL;
	o->ring_at = NONE;
	atomic_fetch_add(&r->epoch, 1);
}

/*
 * Drop o from the caches, and retire it, if it is a forgotten candidate
 * that nothing asked for otherwise since: no load needed it, no thread is
 * taking it, and only the path it was read under names it.
 */
static void drop_if_forgotten_locked(lo_resolver *r, parsed *o)
{
	opened *e;
	char key[LO_INODE_KEY_SIZE];

	if (!o->forgotten || atomic_load(&o->needed) || o->reading || o->paths != 1 ||
	    !(e = lo_map_get(r->by_path, o->key, NULL)) || e->users || e->obj != o)
		return;
	lo_map_remove(r->by_path, o->key);
	free(e);
	lo_resolver_inode_key(key, o->stamp.dev, o->stamp.ino);
	lo_map_remove(r->by_inode, key);
	if (o->ring_at != NONE)
		r->ring[o->ring_at] = NULL;
	retire_locked(r, o, true);
}

/*
 * Unmark the resident objects used longest ago until at most `keep` bytes
 * are marked; under the lock. Returns them, *n of them, for the caller to
 * release outside it.
 */
static const lo_elf **take_oldest_locked(lo_resolver *r, size_t keep, size_t *n)
{
	const lo_elf **release = NULL;
	size_t cap = 0;

	*n = 0;
	while (r->oldest && r->resident > keep) {
		parsed *o = r->oldest;

		lo_array_grow(&release, &cap, *n + 1, sizeof(*release));
		release[(*n)++] = o->elf;
		lo_resolver_resident_unlink(r, o);
		/* freed after the caller's release: it is a worker within its candidate, or none is */
		drop_if_forgotten_locked(r, o);
	}
	return release;
}

/*
 * Past the budget, the objects unused longest are unmarked, down to three
 * quarters of it (lo_resolver_over_budget); under the lock. Returns them,
 * *n of them, to be released outside it (release_outside).
 */
static const lo_elf **over_budget_locked(lo_resolver *r, size_t *n)
{
	size_t keep;

	*n = 0;
	return lo_resolver_over_budget(r, &keep) ? take_oldest_locked(r, keep, n) : NULL;
}

/*
 * Together (lo_elf_release_many: one TLB shootdown, not one each). A
 * released page comes back from the page cache when read again, so a
 * thread that touches one meanwhile only reads it again.
 */
static void release_outside(const lo_elf **release, size_t n)
{
	lo_elf_release_many(release, n);
	free(release);
}

/*
 * After a load: its libraries are marked as used now, the dlopen()ed
 * object as used before all others (most candidates are read once and
 * needed by nothing after: they go first); past the budget, the ones
 * unused longest are released. The host's objects, read by every load,
 * are never released.
 */
void lo_resolver_keep_bounded(lo_resolver *r, const lobj *objs, size_t count)
{
	const lo_elf **release;
	size_t i, n;

	pthread_mutex_lock(&r->lock);
	/*
	 * An object let go (or dropped) by another thread since this load took
	 * it has no lo_elf until read again: marked, it would be released
	 * through a NULL one.
	 */
	for (i = 0; i < count; i++)
		if (objs[i].obj && objs[i].obj->elf)
			lo_resolver_resident_touch(r, objs[i].obj, i == 0);
	release = over_budget_locked(r, &n);
	pthread_mutex_unlock(&r->lock);
	release_outside(release, n);
}

void lo_resolver_release(lo_resolver *r)
{
	const lo_elf **release;
	size_t n;

	pthread_mutex_lock(&r->lock);
	release = take_oldest_locked(r, 0, &n);
	pthread_mutex_unlock(&r->lock);
	release_outside(release, n);
}

/* ---- objects let go and read again ------------------------------------- */

/*
 * Read obj's file again, outside the lock, after its lo_elf was let go.
 * It must be the file first read, unchanged: else the object is gone for
 * the rest of the run, and every load needing it fails (elf.h: a changed
 * file never makes a load pass).
 */
static lo_elf *read_again(const lo_resolver *r, parsed *obj)
{
	lo_elf *e = NULL;
	lo_elf_stamp now;
	struct stat st;
	int fd = open_stat(r, obj->path, &st);
	int err = fd < 0 ? lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", obj->path)
			 : lo_elf_open_fd(&e, fd, &st, obj->path);

	if (err < 0) {
		obj->gone = lo_xstrdup(lo_error_last());
		return NULL;
	}
	now = lo_elf_stamp_of(e);
	if (!lo_elf_stamp_equal(&now, &obj->stamp)) {
		lo_error_set(LO_EINVALID, "cannot read '%s' again: the file changed since the "
			     "scan first read it", obj->path);
		obj->gone = lo_xstrdup(lo_error_last());
		lo_elf_free(e);
		return NULL;
	}
	return e;
}

/*
 * Put o, just read, in the ring; when it is full, in the slot of the first
 * object the hand finds not used since it last passed (LO_KEPT_OBJECTS),
 * which is let go. Under the lock, only with workers.
 */
static void ring_add_locked(lo_resolver *r, parsed *o)
{
	parsed *v;

	if (!r->ring) {
		r->ring = lo_xcalloc(r->kept_max, sizeof(*r->ring));
		r->ring_used = lo_xcalloc(r->kept_max, 1);
	}
	if (r->ring_count < r->kept_max) {
		o->ring_at = r->ring_count;
		r->ring[r->ring_count++] = o;
		return;
	}
	while ((v = r->ring[r->hand]) && r->ring_used[r->hand]) {
		r->ring_used[r->hand] = 0;
		r->hand = (r->hand + 1) % r->kept_max;
	}
	if (v) {
		retire_locked(r, v, false);
		drop_if_forgotten_locked(r, v);
	}
	o->ring_at = r->hand;
	r->ring[r->hand] = o;
	r->ring_used[r->hand] = 0;
	r->hand = (r->hand + 1) % r->kept_max;
}

/* The object of `o` for a caller, read again if it was let go; under the lock. */
static got take_locked(lo_resolver *r, const opened *o, lo_use use)
{
	parsed *obj = o->obj;
	const lo_elf *e;

	if (!obj)
		return (got){ NULL, NULL, o->err, o->errnum, o->msg };
	/* before the lock is let go below: a forget meanwhile must keep it */
	if (use != LO_USE_CANDIDATE)
		atomic_store(&obj->needed, true);
	while (obj->reading)
		pthread_cond_wait(&r->ready, &r->lock);
	if (!obj->elf && !obj->gone) {
		lo_elf *again;

		obj->reading = true;
		pthread_mutex_unlock(&r->lock);
		again = read_again(r, obj);
		pthread_mutex_lock(&r->lock);
		obj->elf = again;
		obj->reading = false;
		pthread_cond_broadcast(&r->ready);
	}
	if (obj->gone)
		return (got){ NULL, NULL, LO_EINVALID, 0, obj->gone };
	e = obj->elf;
	if (use == LO_USE_HOST) { /* a host's from now on: never let go */
		if (obj->ring_at != NONE)
			r->ring[obj->ring_at] = NULL;
		obj->ring_at = NONE;
		obj->permanent = true;
	} else if (obj->ring_at != NONE) {
		if (!r->ring_used[obj->ring_at]) /* written only once cleared */
			r->ring_used[obj->ring_at] = 1;
	} else if (!obj->permanent && r->workers) {
		ring_add_locked(r, obj);
	}
	return (got){ obj, e, 0, 0, NULL };
}

/*
 * Made when asked for, not kept: a scan's searches try thousands of paths
 * that are not there (half a megabyte of messages at bench scale 4), and
 * only a missing library's or an unreadable candidate's is shown (made
 * for each, it was 1.8 % of a scan's instructions at scale 1). Not the
 * error buffer: callers format this into it.
 */
const char *lo_resolver_why(const got *g, const char *path)
{
	static _Thread_local char why[1024];

	if (g->msg)
		return g->msg;
	snprintf(why, sizeof(why), "cannot open '%s': %s", path, strerror(g->errnum));
	return why;
}

/*
 * The file at `path`, read once per run. The first thread to ask reads it
 * (or takes `given`, the object the caller read there, which is taken
 * either way); the others wait for that, not for every other file being
 * read.
 */
static got open_keyed(lo_resolver *r, const char *path, const char *key, lo_use use,
		      lo_elf *given)
{
	opened *o;
	const lo_elf **release = NULL;
	size_t n = 0;
	got g;

	pthread_mutex_lock(&r->lock);
	if ((o = lo_map_get(r->by_path, key, NULL))) {
		lo_elf_free(given);
		/* the waits below let the lock go: a forget meanwhile must leave o */
		o->users++;
		while (!o->ready)
			pthread_cond_wait(&r->ready, &r->lock);
		/* read for another verdict: this one consulted it too (deps.h) */
		lo_deps_note_again(path, use == LO_USE_HOST);
	} else {
		o = lo_xcalloc(1, sizeof(*o));
		o->users = 1;
		lo_map_put(r->by_path, key, o);
		pthread_mutex_unlock(&r->lock);
		resolver_read_into(r, path, key, o, given);
		/* a host's is every verdict's that host judges (deps.h) */
		if (use == LO_USE_HOST)
			lo_deps_note_again(path, true);
		pthread_mutex_lock(&r->lock);
		o->ready = true;
		pthread_cond_broadcast(&r->ready);
	}
	g = take_locked(r, o, use);
	o->users--;
	/*
	 * Its tables are counted now, before the caller reads them, not only
	 * after its load: counted after, what two loads in flight read (a new
	 * candidate with megabytes of tables, say) came on top of the budget
	 * (bench, 2026-12-04: peak at scale 4 68.6 to 65.1 MiB, at scale 2
	 * 63.0 to 59.7, for 1.01 and 1.02 times the time).
	 */
	if (g.elf && !g.obj->resident && !g.obj->permanent) {
		lo_resolver_resident_touch(r, g.obj, false);
		release = over_budget_locked(r, &n);
	}
	pthread_mutex_unlock(&r->lock);
	release_outside(release, n);
	return g;
}

got lo_resolver_open(lo_resolver *r, const char *path, lo_use use)
{
	char key[LO_PATH_KEY_SIZE];
	int errnum;

	if (!lo_resolver_path_key(r, path, key, &errnum))
		return (got){ NULL, NULL, LO_ERROR, errnum, NULL };
	return open_keyed(r, path, key, use, NULL);
}

/* What lo_resolver_read returns for g, the reading of `path`. */
static int read_result(got g, const char *path, const lo_elf **out)
{
	*out = g.elf;
	if (g.elf)
		return 0;
	return lo_error_set(g.err, "%s", lo_resolver_why(&g, path));
}

/* lo_resolver_read, of the file at `path` whose by_path key is `key`, taking `given`. */
static int read_keyed(lo_resolver *r, const char *path, const char *key, lo_elf *given,
		      const lo_elf **out)
{
	return read_result(open_keyed(r, path, key, LO_USE_CANDIDATE, given), path, out);
}

int lo_resolver_read(lo_resolver *r, const char *path, const lo_elf **out)
{
	return read_result(lo_resolver_open(r, path, LO_USE_CANDIDATE), path, out);
}

int lo_resolver_read_own(lo_resolver *r, const char *path, lo_elf_buf *buf, const lo_elf **out,
			 lo_elf **own)
{
	char key[LO_PATH_KEY_SIZE], inode[LO_INODE_KEY_SIZE];
	struct stat st;
	lo_elf *e;
	bool held;
	int errnum, fd;

	*out = NULL;
	*own = NULL;
	if (!lo_resolver_path_key(r, path, key, &errnum))
		return lo_resolver_read(r, path, out);
	/* held under this path, or being read there; else under another path, by its inode */
	pthread_mutex_lock(&r->lock);
	held = lo_map_get(r->by_path, key, NULL) != NULL;
	pthread_mutex_unlock(&r->lock);
	if (held || (fd = open_stat(r, path, &st)) < 0)
		return read_keyed(r, path, key, NULL, out);
	lo_deps_note_read(path, &st);
	lo_resolver_inode_key(inode, st.st_dev, st.st_ino);
	pthread_mutex_lock(&r->lock);
	held = lo_map_get(r->by_inode, inode, NULL) != NULL;
	pthread_mutex_unlock(&r->lock);
	if (held) {
		close(fd);
		return read_keyed(r, path, key, NULL, out);
	}
	switch (lo_elf_open_private(&e, fd, &st, path, buf)) {
	case 0:
		*out = *own = e;
		return 0;
	case LO_ELF_MAPPED: /* too big for the buffer: kept, as if read by the cache */
		return read_keyed(r, path, key, e, out);
	default: /* the cache reads it again, and keeps why it cannot be read */
		return read_keyed(r, path, key, NULL, out);
	}
}

/*
 * A candidate is judged: its object, unless a load needed it as a library
 * or a host's, goes from the caches when its pages are released (at once
 * if they were), as the budget releases the least recently used, or when
 * it is let go: a load soon after that needs it still finds it. A later
 * ask reads it anew. A resolver without workers keeps everything.
 */
void lo_resolver_forget(lo_resolver *r, const char *path)
{
	opened *o;
	parsed *obj;
	char key[LO_PATH_KEY_SIZE];
	int errnum;

	if (!lo_resolver_path_key(r, path, key, &errnum))
		return;
	pthread_mutex_lock(&r->lock);
	o = r->workers ? lo_map_get(r->by_path, key, NULL) : NULL;
	/* read first under another path, it stays: that path names it too */
	if (o && (obj = o->obj) && !strcmp(obj->key, key)) {
		obj->forgotten = true;
		if (!obj->resident)
			drop_if_forgotten_locked(r, obj);
	}
	pthread_mutex_unlock(&r->lock);
}

lo_resolver_worker *lo_resolver_worker_new(lo_resolver *r)
{
	lo_resolver_worker *w = lo_xcalloc(1, sizeof(*w));

	w->r = r;
	pthread_mutex_lock(&r->lock);
	w->next = r->workers;
	r->workers = w;
	pthread_mutex_unlock(&r->lock);
	return w;
}

void lo_resolver_begin(lo_resolver_worker *w)
{
	atomic_store(&w->at, atomic_load(&w->r->epoch));
}

/*
 * Free n retired objects no worker can hold: their pages released in one
 * call, their mappings parked; past LO_PARKED_PER_KEPT, the parked
 * mappings are unmapped together.
 */
static void free_retired(lo_resolver *r, const retired *done, size_t n)
{
	const lo_elf **release = lo_xcalloc(n, sizeof(*release));
	lo_fmap **maps = lo_xcalloc(n, sizeof(*maps));
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (done[i].resident && done[i].elf)
			release[k++] = done[i].elf;
	lo_elf_release_many(release, k);
	free(release);
	for (i = 0; i < n; i++) {
		maps[i] = lo_elf_free_keep_map(done[i].elf);
		if (done[i].obj)
			free_parsed(done[i].obj);
	}
	pthread_mutex_lock(&r->lock);
	lo_array_grow(&r->parked, &r->parked_cap, r->parked_count + n, sizeof(*r->parked));
	for (i = 0; i < n; i++)
		if (maps[i])
			r->parked[r->parked_count++] = maps[i];
	free(maps);
	maps = NULL;
	if (r->parked_count >= LO_PARKED_PER_KEPT * r->kept_max) {
		maps = r->parked;
		n = r->parked_count;
		r->parked = NULL;
		r->parked_count = r->parked_cap = 0;
	}
	pthread_mutex_unlock(&r->lock);
	for (i = 0; maps && i < n; i++)
		lo_fmap_free(maps[i]);
	free(maps);
}

/*
 * The worker's candidate is done. Once enough objects were retired, those
 * no worker can hold (let go in an epoch before every busy worker's) are
 * freed.
 */
void lo_resolver_end(lo_resolver_worker *w)
{
	lo_resolver *r = w->r;
	unsigned long long oldest = ~0ull;
	const lo_resolver_worker *v;
	retired *done;
	size_t i, n = 0, keep = 0;

	atomic_store(&w->at, 0);
	if (atomic_load(&r->retired_count) < atomic_load(&r->retired_next))
		return;
	pthread_mutex_lock(&r->lock);
	for (v = r->workers; v; v = v->next) {
		unsigned long long at = atomic_load(&v->at);

		if (at && at < oldest)
			oldest = at;
	}
	done = lo_xcalloc(r->retired_count, sizeof(*done));
	for (i = 0; i < r->retired_count; i++) {
		if (r->retired[i].epoch < oldest)
			done[n++] = r->retired[i];
		else
			r->retired[keep++] = r->retired[i];
	}
	r->retired_count = keep;
	/* those still held wait for a batch more, not for the next candidate's end */
	r->retired_next = keep + LO_RETIRED_BATCH;
	pthread_mutex_unlock(&r->lock);
	if (n)
		free_retired(r, done, n);
	free(done);
}

/*
 * The directories of a path file (musl's /etc/ld-musl-ARCH.path: separated
 * by colons or newlines) into d->defaults; false when it cannot be read.
 */
static bool read_path_file(const lo_resolver *r, target_dirs *d, const char *path)
{
	char buf[4096], *save = NULL, *tok;
	size_t n, cap = 0;
	int fd = lo_resolver_open_fd(r, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (tok = strtok_r(buf, ":\n", &save); tok; tok = strtok_r(NULL, ":\n", &save))
		lo_strv_add_unique(&d->defaults, &d->default_count, &cap, tok);
	return true;
}

/* Is `word` one of the comma-separated words of `list` (",a,b,")? */
static bool has_word(const char *list, const char *word)
{
	const char *at = list;
	size_t n = strlen(word);

	while ((at = strstr(at, word)))
		if (at[-1] == ',' && at[n] == ',')
			return true;
		else
			at += n;
	return false;
}

/* Target t's cache entries and default directories, read now. */
static void dirs_make(const lo_resolver *r, target_dirs *d, const lo_target *t)
{
	const char *const *dir;
	size_t i, cap = 0;

	d->target = t;
	/* --hwcaps names the levels; else the CPU is this machine's, known for its own target */
	for (dir = r->hwcaps || t == lo_target_native() ? t->hwcaps : NULL;
	     dir && *dir && d->hwcap_count < LO_TARGET_HWCAPS_MAX; dir++)
		if (r->hwcaps ? has_word(r->hwcaps, *dir) : lo_cpu_has_hwcap(*dir))
			d->hwcaps[d->hwcap_count++] = *dir;
	if (t->cache_flags && *r->cache_path) {
		d->cache = lo_map_new();
		if (lo_ldconfig_read_cache(d->cache, r->root, r->cache_path, t->cache_flags,
					   d->hwcaps) < 0) {
			lo_map_free(d->cache, free);
			d->cache = NULL;
		}
	}
	if (r->default_dirs) {
		for (i = 0; i < r->default_dirs_count; i++)
			lo_strv_add_unique(&d->defaults, &d->default_count, &cap, r->default_dirs[i]);
	} else if (!t->path_file || !read_path_file(r, d, t->path_file)) {
		for (dir = t->default_dirs; *dir; dir++)
			lo_strv_add_unique(&d->defaults, &d->default_count, &cap, *dir);
	}
}

const target_dirs *lo_resolver_dirs(lo_resolver *r, const lo_target *t)
{
	target_dirs *d = NULL;
	size_t i;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->target_count && !d; i++)
		if (r->targets[i].target == t)
			d = &r->targets[i];
	if (!d && r->target_count < LO_RESOLVER_TARGETS) {
		d = &r->targets[r->target_count];
		dirs_make(r, d, t);
		r->target_count++;
	}
	pthread_mutex_unlock(&r->lock);
	/* more targets than the table holds: the first stands in (target.c has fewer) */
	return d ? d : &r->targets[0];
}

int lo_resolver_open_fd(const lo_resolver *r, const char *path, int flags)
{
	size_t i;

	for (i = 0; r->root && i < r->outside_count; i++) {
		size_t n = strlen(r->outside[i]);

		if (!strncmp(path, r->outside[i], n) && (path[n] == '/' || !path[n]))
			return open(path, flags);
	}
	return lo_sysroot_open(r->root, path, flags);
}

bool lo_resolver_in_sysroot(const lo_resolver *r)
{
	return r->root != NULL;
}

bool lo_resolver_has_file(const lo_resolver *r, const char *path)
{
	int fd = lo_resolver_open_fd(r, path, lo_os_open_path | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
