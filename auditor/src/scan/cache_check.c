/*
 * cache_check.c - may a kept result stand for a scan now (cache.h)?
 *
 * Its key must be the scan's, no dependency may be racy, and each must
 * stat as it did. The stats are the whole cost of a warm scan, one per
 * directory of the tree and per file consulted, so they run on the scan's
 * jobs, each taking entries by an atomic index, and all stop at the first
 * change.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "leftover/buf.h"
#include "leftover/cache.h"

/* Entries taken at once by a checking thread: one atomic add per batch, not per stat. */
#define CHECK_BATCH 64

typedef struct check {
	const lo_cache_entry *e;
	atomic_size_t next;
	atomic_size_t changed; /* index + 1 of a changed entry, 0 while none */
	unsigned char *states; /* NULL: stop at the first change; else each one's LO_CACHE_* */
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

/* How deps[i] stands now (lo_cache_states). */
static unsigned char state_of(const check *c, size_t i)
{
	const lo_dep *d = &c->e->deps.deps[i];
	lo_dep now = lo_dep_of(d->path);
	bool same = lo_dep_same(d, &now) && !racy(d, c->e->written_ns, c->tick);

	if ((d->use & (LO_DEP_LOCAL | LO_DEP_SHARED)) == LO_DEP_LOCAL && !d->absent &&
	    S_ISDIR(d->mode) && !same)
		return lo_dep_same_identity(d, &now) ? LO_CACHE_SAME_DIR : LO_CACHE_CHANGED;
	if (same)
		return LO_CACHE_SAME;
	return lo_dep_same(d, &now) ? LO_CACHE_RACY : LO_CACHE_CHANGED;
}

static void *check_worker(void *arg)
{
	check *c = arg;
	const lo_deps *deps = &c->e->deps;
	size_t i, end;

	while (!atomic_load_explicit(&c->changed, memory_order_relaxed) &&
	       (i = atomic_fetch_add(&c->next, CHECK_BATCH)) < deps->count) {
		end = i + CHECK_BATCH < deps->count ? i + CHECK_BATCH : deps->count;
		for (; i < end && c->states; i++)
			c->states[i] = state_of(c, i);
		for (; i < end; i++) {
			lo_dep now = lo_dep_of(deps->deps[i].path);

			if (!lo_dep_same(&deps->deps[i], &now)) {
				size_t none = 0;

				atomic_compare_exchange_strong(&c->changed, &none, i + 1);
				break;
			}
		}
	}
	return NULL;
}

/* Run check_worker on `jobs` threads over c. */
static void check_all(check *c, unsigned jobs)
{
	pthread_t *threads = lo_xcalloc(jobs ? jobs : 1, sizeof(pthread_t));
	unsigned i, started = 0;

	for (i = 1; i < jobs; i++)
		if (pthread_create(&threads[started], NULL, check_worker, c) == 0)
			started++;
	check_worker(c);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

unsigned char *lo_cache_states(const lo_cache_entry *e, unsigned jobs)
{
	check c = { e, 0, 0, NULL, stamp_tick() };

	c.states = lo_xcalloc(e->deps.count ? e->deps.count : 1, 1);
	check_all(&c, jobs);
	return c.states;
}

/* The first dependency changed since, as index + 1, or 0: stats on `jobs` threads. */
static size_t first_changed(const lo_cache_entry *e, unsigned jobs)
{
	check c = { e, 0, 0, NULL, 0 };

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
