/*
 * deps.c - the record of what a scan consulted (deps.h).
 *
 * One recording at a time, behind an atomic pointer: the readers call in
 * from every walking and judging thread, and when no scan records (clean,
 * --no-cache, the tests of single modules) the pointer is NULL and a note
 * costs one load. A recording is a map of paths to their first stat,
 * under one lock; at bench scale 1 it holds some 8,000 entries, noted once
 * each (the walk's directories, the resolver's paths, each read once per
 * run by its cache).
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
	lo_map *seen; /* path -> index + 1 in deps */
	lo_deps deps;
} recording;

static _Atomic(recording *) current;

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
	free(d);
}

static void recording_free(recording *r)
{
	if (!r)
		return;
	lo_map_free(r->seen, NULL);
	pthread_mutex_destroy(&r->lock);
	free(r->deps.deps);
	free(r);
}

void lo_deps_start(void)
{
	recording *r = lo_xcalloc(1, sizeof(*r)), *old;

	pthread_mutex_init(&r->lock, NULL);
	r->seen = lo_map_new();
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
	r->deps.deps = NULL;
	recording_free(r);
	return d;
}

bool lo_deps_recording(void)
{
	return atomic_load_explicit(&current, memory_order_relaxed) != NULL;
}

void lo_deps_note_stat(const char *path, const struct stat *st)
{
	recording *r = atomic_load_explicit(&current, memory_order_acquire);
	lo_dep d;

	if (!r || !path || !lo_os_path_is_absolute(path))
		return;
	pthread_mutex_lock(&r->lock);
	if (!lo_map_get(r->seen, path, NULL)) {
		lo_array_grow(&r->deps.deps, &r->deps.cap, r->deps.count + 1, sizeof(lo_dep));
		d = dep_from(path, st);
		d.path = lo_xstrdup(path);
		r->deps.deps[r->deps.count++] = d;
		lo_map_put(r->seen, path, (void *)(uintptr_t)r->deps.count);
	}
	pthread_mutex_unlock(&r->lock);
}

void lo_deps_note_fd(const char *dir, const char *rel, int fd)
{
	struct stat st;
	lo_buf path = LO_BUF_INIT;

	if (!lo_deps_recording())
		return;
	/* once per directory of the walk: no printf (walk.c's rule) */
	lo_buf_puts(&path, dir);
	if (rel && *rel) {
		if (strcmp(dir, "/"))
			lo_buf_putc(&path, '/');
		lo_buf_puts(&path, rel);
	}
	lo_deps_note_stat(lo_buf_cstr(&path), fstat(fd, &st) == 0 ? &st : NULL);
	lo_buf_dispose(&path);
}

void lo_deps_note_path(const char *path)
{
	struct stat st;

	if (!lo_deps_recording())
		return;
	lo_deps_note_stat(path, stat(path, &st) == 0 ? &st : NULL);
}
