/*
 * deps.c - the record of what a scan consulted (deps.h).
 *
 * One recording at a time, behind an atomic pointer: the readers call in
 * from every walking and judging thread, and when no scan records (clean,
 * --no-cache, the tests of single modules) the pointer is NULL and a note
 * costs one load. A recording is a list of paths with their first stat,
 * indexed by a table of its own, under one lock; at bench scale 2 it holds
 * some 30,000 entries, noted once each (the walk's directories, the
 * resolver's paths, each read once per run by its cache). The table keeps
 * a hash and an index, 8 bytes an entry, not a copy of the path as a map
 * did: what the recording holds while the scan judges is taken from the
 * resolver's budget (resolve.h), and at scale 2 the map's copies and slots
 * (5 MiB) made it read and bind libraries again for half the scan's CPU.
 *
 * A judging thread names the verdict it judges (a thread-local slot):
 * its reads, and its consulting again what the resolver holds, are kept
 * as (slot, dep) pairs, so that each verdict has its own dependencies
 * without a list per verdict while judging.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/map.h"
#include "leftover/os.h"

typedef struct recording {
	pthread_mutex_t lock;
	/*
	 * Open addressing, at most half full: each slot a path's tag (32 bits
	 * of its hash, which also place it) above its index + 1 in deps; 0 empty.
	 */
	uint64_t *index;
	size_t index_cap;
	lo_deps deps;
} recording;

static _Atomic(recording *) current;

/* The verdict the calling thread judges, + 1; 0 while none. */
static _Thread_local size_t attributed;

/* How a note uses its path (lo_dep's use), before the thread's slot is known. */
typedef enum how { HOW_SHARED, HOW_WALK, HOW_READ } how;

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static lo_dep dep_from(const char *path, const struct stat *st)
{
	lo_dep d;

	memset(&d, 0, sizeof(d));
	d.path = (char *)path;
	d.absent = st == NULL;
	if (st) {
		d.mode = (uint32_t)st->st_mode;
		d.dev = (uint64_t)st->st_dev;
		d.ino = (uint64_t)st->st_ino;
		d.size = (uint64_t)st->st_size;
		d.mtime_ns = ns_of(&st->st_mtim);
		d.ctime_ns = ns_of(&st->st_ctim);
	}
	return d;
}

lo_dep lo_dep_of(const char *path)
{
	struct stat st;

	return dep_from(path, stat(path, &st) == 0 ? &st : NULL);
}

lo_dep lo_dep_of_at(int dirfd, const char *rel, const char *path)
{
	struct stat st;

	return dep_from(path, fstatat(dirfd, rel, &st, 0) == 0 ? &st : NULL);
}

lo_dep lo_dep_of_link(const char *path)
{
	struct stat st;

	return dep_from(path, lstat(path, &st) == 0 ? &st : NULL);
}

bool lo_dep_same_identity(const lo_dep *then, const lo_dep *now)
{
	if (then->absent || now->absent)
		return then->absent == now->absent;
	return (then->mode & S_IFMT) == (now->mode & S_IFMT) && then->dev == now->dev &&
	       then->ino == now->ino;
}

static int by_path(const void *a, const void *b)
{
	return strcmp((*(const lo_dep *const *)a)->path, (*(const lo_dep *const *)b)->path);
}

void lo_deps_sort_by_path(const lo_dep **v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), by_path);
}

bool lo_dep_same(const lo_dep *then, const lo_dep *now)
{
	if (then->absent || now->absent)
		return then->absent == now->absent;
	return (then->mode & S_IFMT) == (now->mode & S_IFMT) && then->dev == now->dev && then->ino == now->ino &&
	       then->size == now->size && then->mtime_ns == now->mtime_ns &&
	       then->ctime_ns == now->ctime_ns;
}

void lo_deps_free(lo_deps *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->count; i++)
		free(d->deps[i].path);
	free(d->deps);
	free(d->uses);
	free(d->tainted);
	free(d);
}

static void recording_free(recording *r)
{
	if (!r)
		return;
	free(r->index);
	pthread_mutex_destroy(&r->lock);
	free(r->deps.deps);
	free(r->deps.uses);
	free(r->deps.tainted);
	free(r);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_use(const void *a, const void *b)
{
	const lo_deps_use *x = a, *y = b;

	return x->slot != y->slot ? cmp_u32(&x->slot, &y->slot) : cmp_u32(&x->dep, &y->dep);
}

/* Sort v's n items of `size` bytes and keep each once. */
static void sort_unique(void *v, size_t *n, size_t size, int (*cmp)(const void *, const void *))
{
	char *p = v;
	size_t i, k = 0;

	if (!*n)
		return;
	qsort(p, *n, size, cmp);
	for (i = 1; i < *n; i++)
		if (cmp(p + k * size, p + i * size))
			memmove(p + ++k * size, p + i * size, size);
	*n = k + 1;
}

bool lo_deps_is_tainted(const lo_deps *d, size_t slot)
{
	uint32_t key = (uint32_t)slot;

	return d->tainted_count &&
	       bsearch(&key, d->tainted, d->tainted_count, sizeof(uint32_t), cmp_u32);
}

void lo_deps_start(void)
{
	recording *r = lo_xcalloc(1, sizeof(*r)), *old;

	pthread_mutex_init(&r->lock, NULL);
	old = atomic_exchange(&current, r);
	if (old) {
		size_t i;

		for (i = 0; i < old->deps.count; i++)
			free(old->deps.deps[i].path);
		recording_free(old);
	}
}

lo_deps *lo_deps_take(void)
{
	recording *r = atomic_exchange(&current, NULL);
	lo_deps *d;

	if (!r)
		return NULL;
	d = lo_xcalloc(1, sizeof(*d));
	*d = r->deps;
	memset(&r->deps, 0, sizeof(r->deps));
	recording_free(r);
	sort_unique(d->uses, &d->use_count, sizeof(lo_deps_use), cmp_use);
	sort_unique(d->tainted, &d->tainted_count, sizeof(uint32_t), cmp_u32);
	return d;
}

bool lo_deps_recording(void)
{
	return atomic_load_explicit(&current, memory_order_relaxed) != NULL;
}

static uint32_t tag_of(const char *path)
{
	uint64_t h = lo_map_hash(path);

	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The slot of `path` (its tag) in r's index: its entry's, or the empty one it would take. */
static uint64_t *slot_of(recording *r, const char *path, uint32_t tag)
{
	size_t mask = r->index_cap - 1, i;

	for (i = tag & mask;; i = (i + 1) & mask) {
		uint64_t x = r->index[i];

		if (!x || ((uint32_t)(x >> 32) == tag &&
			   !strcmp(r->deps.deps[(uint32_t)x - 1].path, path)))
			return &r->index[i];
	}
}

/* Index + 1 in r's deps of `path` (its tag), 0 when not noted; under the lock. */
static size_t find_locked(recording *r, const char *path, uint32_t tag)
{
	return r->index_cap ? (size_t)(uint32_t)*slot_of(r, path, tag) : 0;
}

/* Room for one more in r's index, at most half full; under the lock. */
static void index_grow(recording *r)
{
	uint64_t *old = r->index;
	size_t cap = r->index_cap, i, mask;

	if ((r->deps.count + 1) * 2 <= cap)
		return;
	r->index_cap = cap ? cap * 2 : 1024;
	r->index = lo_xcalloc(r->index_cap, sizeof(uint64_t));
	mask = r->index_cap - 1;
	for (i = 0; i < cap; i++) {
		size_t at = (size_t)(old[i] >> 32) & mask;

		if (!old[i])
			continue;
		while (r->index[at])
			at = (at + 1) & mask;
		r->index[at] = old[i];
	}
	free(old);
}

/* The verdict at hand did `use` with deps[at]; under the lock. */
static void use_locked(recording *r, size_t at, how h)
{
	lo_deps *d = &r->deps;

	if (h == HOW_SHARED || (h == HOW_READ && !attributed)) {
		d->deps[at].use |= LO_DEP_SHARED;
	} else if (h == HOW_WALK) {
		d->deps[at].use |= LO_DEP_WALK;
	} else {
		d->deps[at].use |= LO_DEP_LOCAL;
		lo_array_grow(&d->uses, &d->use_cap, d->use_count + 1, sizeof(lo_deps_use));
		d->uses[d->use_count++] = (lo_deps_use){ (uint32_t)(attributed - 1), (uint32_t)at };
	}
}

/* Note `given` (its path borrowed) unless its path was noted; then `h` of it. */
static void note(const lo_dep *given, how h)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	uint64_t *slot;
	uint32_t tag;
	size_t at;

	if (!r || !given->path || !lo_os_path_is_absolute(given->path))
		return;
	tag = tag_of(given->path); /* hashed before the lock is taken */
	pthread_mutex_lock(&r->lock);
	index_grow(r);
	slot = slot_of(r, given->path, tag);
	if (!(at = (uint32_t)*slot)) {
		lo_array_grow(&r->deps.deps, &r->deps.cap, r->deps.count + 1, sizeof(lo_dep));
		r->deps.deps[r->deps.count] = *given;
		r->deps.deps[r->deps.count].path = lo_xstrdup(given->path);
		r->deps.deps[r->deps.count].use = 0;
		at = ++r->deps.count;
		*slot = (uint64_t)tag << 32 | at;
	}
	use_locked(r, at - 1, h);
	pthread_mutex_unlock(&r->lock);
}

/* note of `path` as `st` gives it, when recording. */
static void note_stat(const char *path, const struct stat *st, how h)
{
	lo_dep d;

	if (!lo_deps_recording())
		return;
	d = dep_from(path, st);
	note(&d, h);
}

/* note of `path` as stat gives it now. */
static void note_stat_path(const char *path, how h)
{
	struct stat st;

	note_stat(path, stat(path, &st) == 0 ? &st : NULL, h);
}

void lo_deps_note_stat(const char *path, const struct stat *st)
{
	note_stat(path, st, HOW_SHARED);
}

void lo_deps_note_read(const char *path, const struct stat *st)
{
	note_stat(path, st, HOW_READ);
}

void lo_deps_note_kept(const lo_dep *d)
{
	note(d, HOW_READ);
}

void lo_deps_note_listed(const lo_dep *d)
{
	note(d, HOW_WALK);
}

void lo_deps_note_again(const char *path, bool shared)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	uint32_t tag;
	size_t at;

	if (!r || !path || !lo_os_path_is_absolute(path))
		return;
	tag = tag_of(path);
	pthread_mutex_lock(&r->lock);
	/* without a verdict at hand, the scan's as a whole (use_locked) */
	if ((at = find_locked(r, path, tag)))
		use_locked(r, at - 1, shared ? HOW_SHARED : HOW_READ);
	pthread_mutex_unlock(&r->lock);
	/*
	 * Read first under another spelling ($ORIGIN/../lib/x, lib/x): this
	 * one as it stats now. Changed since that read, it was changed after
	 * the scan began: racy, never trusted (cache.h).
	 */
	if (!at)
		note_stat_path(path, shared ? HOW_SHARED : HOW_READ);
}

void lo_deps_note_log(const char *path, uint64_t at, uint64_t hash)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	uint32_t tag;
	size_t i;

	if (!r || !path)
		return;
	tag = tag_of(path);
	pthread_mutex_lock(&r->lock);
	if ((i = find_locked(r, path, tag))) {
		r->deps.deps[i - 1].log_at = at;
		r->deps.deps[i - 1].log_hash = hash;
	}
	pthread_mutex_unlock(&r->lock);
}

size_t lo_deps_attribute(size_t slot)
{
	size_t before = attributed ? attributed - 1 : SIZE_MAX;

	attributed = slot == SIZE_MAX ? 0 : slot + 1;
	return before;
}

void lo_deps_taint(void)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	lo_deps *d;

	if (!r || !attributed)
		return;
	pthread_mutex_lock(&r->lock);
	d = &r->deps;
	lo_array_grow(&d->tainted, &d->tainted_cap, d->tainted_count + 1, sizeof(uint32_t));
	d->tainted[d->tainted_count++] = (uint32_t)(attributed - 1);
	pthread_mutex_unlock(&r->lock);
}

void lo_deps_note_fd(const char *dir, const char *rel, int fd)
{
	struct stat st;
	char small[512], *path = small;
	size_t dn, rn = rel ? strlen(rel) : 0;
	bool slash;
	lo_dep d;

	if (!lo_deps_recording())
		return;
	/* once per directory of the walk: no printf (walk.c's rule), no heap for most */
	dn = strlen(dir);
	slash = rn && strcmp(dir, "/");
	if (dn + slash + rn + 1 > sizeof(small))
		path = lo_xmalloc(dn + slash + rn + 1);
	memcpy(path, dir, dn);
	path[dn] = '/';
	memcpy(path + dn + slash, rel ? rel : "", rn + 1);
	d = dep_from(path, fstat(fd, &st) == 0 ? &st : NULL);
	note(&d, HOW_WALK);
	if (path != small)
		free(path);
}

bool lo_deps_noted(const char *path, lo_dep *out)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	uint32_t tag;
	size_t at;

	if (!r)
		return false;
	tag = tag_of(path);
	pthread_mutex_lock(&r->lock);
	if ((at = find_locked(r, path, tag))) {
		*out = r->deps.deps[at - 1];
		out->path = NULL;
		out->use = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return at != 0;
}

void lo_deps_note_path(const char *path)
{
	if (lo_deps_recording())
		note_stat_path(path, HOW_SHARED);
}
