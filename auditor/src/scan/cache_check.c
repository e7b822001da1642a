/*
 * cache_check.c - may a kept result stand for a scan now (cache.h)?
 *
 * Its key must be the scan's, no dependency may be racy, and each must
 * stat as it did. The stats are the whole cost of a warm scan, one per
 * directory of the tree and per file consulted (some 15,000 at bench
 * scale 1), so they run on the scan's jobs and all stop at the first
 * change.
 *
 * A stat of an absolute path looks up every component from / again, and
 * the dependencies are 8 or 9 components deep, most of them sharing all
 * but the last one or two. So each thread takes CHECK_BATCH of them as
 * recorded (the recording keeps a directory's entries near each other),
 * sorts them by path and opens their common directory once; under it, a
 * subdirectory that holds at least OPEN_AT_LEAST of them is opened in
 * turn relative to its parent, and each is statted relative to the
 * nearest directory opened, with stat's own rules: every link followed,
 * the last one too, ".." taken by the kernel after the link before it.
 * Opening a directory costs two calls (open, close), so a smaller one is
 * cheaper looked up from its parent each time. Where a directory will
 * not open (gone, not a directory, no search permission, out of
 * descriptors), or a path has an empty component, its dependencies are
 * statted by their whole paths: the answer is always stat's. Measured at
 * scale 1: the kernel's path lookup (a fifth of a warm scan's time) is
 * mostly the last component's, which no opened directory saves, and a
 * sort of the whole list costs what the batches' sorts do on one thread;
 * a warm scan takes 1 to 5 % less CPU (docs/performance.md).
 *
 * An alias (cache.h: a second name of a file through "..") is skipped by
 * the batches and stated after them from its N and its directories, or,
 * when one of those is not LO_CACHE_SAME, by a stat as any other. The
 * first change (lo_cache_check) needs no second pass: while every other
 * dependency stands and none is racy, each alias stands.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/cache.h"
#include "leftover/os.h"

/* Dependencies taken at once by a checking thread: one atomic add, a sort and an open each. */
#define CHECK_BATCH 256
/* Open a subdirectory of a batch when this many of it are under it (measured: 16 to 64 alike). */
#define OPEN_AT_LEAST 32
/*
 * Directories open at once under a batch's, at most: the stack and the
 * descriptors stay bounded whatever the paths (a cache is a file: "./"
 * a million times is a path it may hold); below, relative to the deepest.
 */
#define OPEN_DEPTH_MAX 64

typedef struct check {
	const lo_cache_entry *e;
	atomic_size_t next;    /* the next batch's first */
	atomic_size_t changed; /* index + 1 of a changed entry, 0 while none */
	unsigned char *states; /* NULL: stop at the first change; else each one's LO_CACHE_* */
	unsigned char *alias;  /* 1 for each dependency that is an alias: not statted here */
	int64_t tick;          /* stamp_tick's, for the states */
} check;

/* The tick of the clock the kernel stamps files with: 10 ms (HZ=100) at least. */
static int64_t stamp_tick(void)
{
	struct timespec res;
	int64_t tick = 10000000;

	if (clock_getres(CLOCK_REALTIME_COARSE, &res) == 0 && res.tv_sec == 0 &&
	    res.tv_nsec > tick)
		tick = res.tv_nsec;
	return tick;
}

/*
 * Was a file stamped `t_ns` changed within the granularity of `written_ns`,
 * or after? Two ticks, or two seconds for a stamp with no fraction (a
 * filesystem that keeps seconds: FAT, ext3's small inodes).
 */
static bool near(int64_t t_ns, int64_t written_ns, int64_t tick)
{
	return t_ns >= written_ns - (t_ns % 1000000000 ? 2 * tick : 2000000000);
}

/* Was d changed in the tick the scan started in, or after? Then it may change unseen. */
static bool racy(const lo_dep *d, int64_t written_ns, int64_t tick)
{
	return !d->absent &&
	       (near(d->mtime_ns, written_ns, tick) || near(d->ctime_ns, written_ns, tick));
}

bool lo_cache_racy(const lo_dep *then, int64_t written_ns)
{
	return racy(then, written_ns, stamp_tick());
}

/*
 * Does the log `then` (deps.h: read up to log_at), which stats as `now`,
 * stand? The same file, as long at least, the bytes before log_at as they
 * were, and what was appended since harmless to the build's records.
 */
static bool log_stands(const lo_dep *then, const lo_dep *now)
{
	struct stat st;
	uint64_t hash;
	bool stands;
	int fd;

	if (lo_dep_same(then, now))
		return true;
	if (then->absent || now->absent || now->dev != then->dev || now->ino != then->ino ||
	    !S_ISREG(now->mode) || now->size < then->log_at)
		return false;
	if ((fd = open(then->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return false;
	/* the file opened is the one statted (no other put in its place since) */
	stands = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == then->dev &&
		 (uint64_t)st.st_ino == then->ino && lo_dep_log_hash(fd, then->log_at, &hash) &&
		 hash == then->log_hash &&
		 lo_buildsys_log_appended_stands(then->path, fd, then->log_at);
	close(fd);
	return stands;
}

/* Does `now` show `then` as it was, or, a log, standing as it was read? */
static bool same_now(const lo_dep *then, const lo_dep *now)
{
	return then->log_at ? log_stands(then, now) : lo_dep_same(then, now);
}

/* How deps[i], which stats as `now` (`same_stat`: same_now), stands (lo_cache_states). */
static unsigned char state_of(const check *c, size_t i, const lo_dep *now, bool same_stat)
{
	const lo_dep *d = &c->e->deps.deps[i];
	bool same = same_stat && !racy(d, c->e->written_ns, c->tick);

	if ((d->use & (LO_DEP_LOCAL | LO_DEP_SHARED)) == LO_DEP_LOCAL && !d->absent &&
	    S_ISDIR(d->mode) && !same)
		return lo_dep_same_identity(d, now) ? LO_CACHE_SAME_DIR : LO_CACHE_CHANGED;
	if (same)
		return LO_CACHE_SAME;
	return same_stat ? LO_CACHE_RACY : LO_CACHE_CHANGED;
}

/* Dependency d, statted as fstatat(dirfd, rel): note its state or its change. */
static void check_one(check *c, const lo_dep *d, int dirfd, const char *rel)
{
	size_t i = (size_t)(d - c->e->deps.deps), none = 0;
	lo_dep now = lo_dep_of_at(dirfd, rel, d->path);
	bool same = same_now(d, &now);

	if (c->states)
		c->states[i] = state_of(c, i, &now, same);
	else if (!same)
		atomic_compare_exchange_strong(&c->changed, &none, i + 1);
}

/* order[lo, hi) by their whole paths, as lo_dep_of would. */
static void check_whole(check *c, const lo_dep **order, size_t lo, size_t hi)
{
	for (; lo < hi && (c->states || !atomic_load_explicit(&c->changed, memory_order_relaxed));
	     lo++)
		check_one(c, order[lo], AT_FDCWD, order[lo]->path);
}

/* The length of the first component of `rel`, up to its separator (none: a name). */
static size_t component_len(const char *rel, bool *last)
{
	size_t n = 0;

	while (rel[n] && !lo_os_path_is_separator(rel[n]))
		n++;
	*last = !rel[n];
	return n;
}

/*
 * order[lo, hi), whose paths all start with the `plen` bytes that name
 * the directory open as `dirfd` (a separator last), `depth` below the
 * batch's: each statted relative to it, or to a subdirectory opened when
 * OPEN_AT_LEAST of them are under it.
 */
static void check_under(check *c, const lo_dep **order, int dirfd, size_t plen, unsigned depth,
			size_t lo, size_t hi)
{
	while (lo < hi && (c->states || !atomic_load_explicit(&c->changed, memory_order_relaxed))) {
		const char *rel = order[lo]->path + plen;
		bool last;
		size_t n = component_len(rel, &last), end = lo + 1;
		char *name;
		int fd;

		if (!n) { /* the directory itself with a separator after, or "//" */
			check_whole(c, order, lo, end);
		} else if (last) {
			check_one(c, order[lo], dirfd, rel);
		} else {
			/* sorted: what lies under rel's first directory comes together */
			while (end < hi && !strncmp(order[end]->path + plen, rel, n + 1))
				end++;
			if (end - lo < OPEN_AT_LEAST || depth == OPEN_DEPTH_MAX) {
				for (; lo < end; lo++)
					check_one(c, order[lo], dirfd, order[lo]->path + plen);
				continue;
			}
			name = lo_xstrndup(rel, n);
			fd = openat(dirfd, name, lo_os_open_path | O_DIRECTORY | O_CLOEXEC);
			free(name);
			if (fd < 0) {
				check_whole(c, order, lo, end);
			} else {
				check_under(c, order, fd, plen + n + 1, depth + 1, lo, end);
				close(fd);
			}
		}
		lo = end;
	}
}

/* deps[lo, hi) in path order, their common directory opened once, then check_under it. */
static void check_run(check *c, size_t lo, size_t hi)
{
	const lo_dep *order[CHECK_BATCH];
	const char *first, *last;
	size_t k, n = 0, plen = 0;
	char *dir;
	int fd;

	for (k = lo; k < hi; k++)
		if (!c->alias[k])
			order[n++] = &c->e->deps.deps[k];
	if (!(hi = n))
		return;
	n = 0;
	lo_deps_sort_by_path(order, hi);
	/* the common prefix of the least and the greatest is every one's */
	first = order[0]->path;
	last = order[hi - 1]->path;
	while (first[n] && first[n] == last[n])
		if (lo_os_path_is_separator(first[n++]))
			plen = n;
	if (!plen) {
		check_whole(c, order, 0, hi);
		return;
	}
	dir = lo_xstrndup(first, plen);
	fd = open(dir, lo_os_open_path | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0) {
		check_whole(c, order, 0, hi);
		return;
	}
	check_under(c, order, fd, plen, 0, 0, hi);
	close(fd);
}

static void *check_worker(void *arg)
{
	check *c = arg;
	size_t count = c->e->deps.count, i;

	while ((c->states || !atomic_load_explicit(&c->changed, memory_order_relaxed)) &&
	       (i = atomic_fetch_add(&c->next, CHECK_BATCH)) < count)
		check_run(c, i, i + CHECK_BATCH < count ? i + CHECK_BATCH : count);
	return NULL;
}

/* Run check_worker on `jobs` threads over c's dependencies but its aliases. */
static void check_all(check *c, unsigned jobs)
{
	pthread_t *threads = lo_xcalloc(jobs ? jobs : 1, sizeof(pthread_t));
	unsigned i, started = 0;
	size_t k;

	c->alias = lo_xcalloc(c->e->deps.count ? c->e->deps.count : 1, 1);
	/* where directories' stats do not follow their entries, a file's aliases are statted */
	for (k = 0; lo_os_dir_stat_tracks_entries && k < c->e->alias_count; k++)
		c->alias[c->e->aliases[k].dep] = 1;
	for (i = 1; i < jobs; i++)
		if (pthread_create(&threads[started], NULL, check_worker, c) == 0)
			started++;
	check_worker(c);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	free(c->alias);
}

/*
 * Each alias of c, after the others: the same as its N, where N and each
 * directory it relies on is LO_CACHE_SAME (cache.h), else statted.
 */
static void state_aliases(check *c)
{
	const lo_cache_entry *e = c->e;
	size_t i, j;

	for (i = 0; lo_os_dir_stat_tracks_entries && i < e->alias_count; i++) {
		const lo_cache_alias *a = &e->aliases[i];
		bool stands = c->states[a->same] == LO_CACHE_SAME;

		for (j = 0; stands && j < a->dir_count; j++)
			stands = c->states[e->alias_dirs[a->dir_at + j]] == LO_CACHE_SAME;
		if (stands)
			c->states[a->dep] = LO_CACHE_SAME;
		else
			check_one(c, &e->deps.deps[a->dep], AT_FDCWD, e->deps.deps[a->dep].path);
	}
}

unsigned char *lo_cache_states(const lo_cache_entry *e, unsigned jobs)
{
	check c = { e, 0, 0, NULL, NULL, stamp_tick() };

	c.states = lo_xcalloc(e->deps.count ? e->deps.count : 1, 1);
	check_all(&c, jobs);
	state_aliases(&c);
	return c.states;
}

/* The first dependency changed since, as index + 1, or 0: stats on `jobs` threads. */
static size_t first_changed(const lo_cache_entry *e, unsigned jobs)
{
	check c = { e, 0, 0, NULL, NULL, 0 };

	check_all(&c, jobs);
	return atomic_load(&c.changed);
}

bool lo_cache_check(const lo_cache_entry *e, const char *key, unsigned jobs, char **why)
{
	int64_t tick = stamp_tick();
	size_t i, changed;

	*why = NULL;
	if (strcmp(e->key, key)) {
		*why = lo_xstrdup("made with other options, rules or environment");
		return false;
	}
	for (i = 0; i < e->deps.count; i++) {
		if (racy(&e->deps.deps[i], e->written_ns, tick)) {
			if (asprintf(why, "'%s' changed while the scan that made it ran (racy)",
				     e->deps.deps[i].path) < 0)
				abort();
			return false;
		}
	}
	if ((changed = first_changed(e, jobs))) {
		if (asprintf(why, "'%s' changed", e->deps.deps[changed - 1].path) < 0)
			abort();
		return false;
	}
	return true;
}

/*
 * May `e` give its items' verdicts? Only while every dependency the scan
 * as a whole used is the same: a rules file, a build record, a host, git,
 * ld.so.cache, the program. What changed is the walk's directories and
 * the verdicts' own dependencies.
 */
bool lo_cache_may_keep_items(const lo_cache_entry *e, const unsigned char *states)
{
	size_t i;

	for (i = 0; i < e->deps.count; i++)
		if ((e->deps.deps[i].use & LO_DEP_SHARED) && states[i] != LO_CACHE_SAME)
			return false;
	return e->item_count > 0;
}
