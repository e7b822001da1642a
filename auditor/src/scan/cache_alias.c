/*
 * cache_alias.c - the dependencies a cache states without a stat: second
 * names of a file through ".." (cache.h, aliases).
 *
 * A RUNPATH of $ORIGIN/../../../lib makes the resolver read each library
 * of lib/ a second time by a path through "..": at bench scale 1 they are
 * 17% of the dependencies. The writer finds them here once; the reader
 * checks each one it is given is of the kinds the rule needs, since a
 * cache file is untrusted input: the rule is only as sound as those
 * kinds.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/os.h"

/* A directory the walk listed, with no more to it than its stat. */
static bool walked_dir(const lo_dep *d)
{
	return (d->use & LO_DEP_WALK) && !d->absent && S_ISDIR(d->mode) && !d->log_at;
}

/* A regular file, with no more to it than its stat: what an alias and its N may be. */
static bool plain_file(const lo_dep *d)
{
	return !d->absent && S_ISREG(d->mode) && !d->log_at;
}

typedef struct finder {
	const lo_deps *d;
	const lo_dep **order; /* the dependencies by path */
	lo_buf dirs;     /* uint32_t each */
} finder;

/* The dependency at path p[0, n), or -1. */
static long find(const finder *f, const char *p, size_t n)
{
	size_t lo = 0, hi = f->d->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *q = f->order[mid]->path;
		int c = strncmp(q, p, n);

		if (!c)
			c = q[n] ? 1 : 0;
		if (!c)
			return (long)(f->order[mid] - f->d->deps);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The walked directory at p[0, n) into f->dirs (once for the alias at `at`); false when none. */
static bool add_dir(finder *f, size_t at, const char *p, size_t n)
{
	long k = find(f, p, n);
	uint32_t v;
	size_t i;

	if (k < 0 || !walked_dir(&f->d->deps[k]))
		return false;
	v = (uint32_t)k;
	/* a ".." after a ".." takes back the parent the first relied on */
	for (i = at; i < f->dirs.len; i += sizeof(v))
		if (!memcmp(f->dirs.ptr + i, &v, sizeof(v)))
			return true;
	lo_buf_add(&f->dirs, (const char *)&v, sizeof(v));
	return true;
}

/*
 * deps[i]'s lexical normalisation's index when it is an alias (its
 * directories added to f->dirs), or -1. Only absolute paths of names and
 * "..": ".", "//" and a ".." above the top are left to a stat.
 */
static long alias_of(finder *f, size_t i)
{
	const char *path = f->d->deps[i].path, *c = path + 1, *end;
	size_t cap = strlen(path) + 1, len = 0, depth = 0, dirs_at = f->dirs.len;
	size_t *tops = lo_xmalloc(cap * sizeof(size_t)); /* where each name kept starts */
	char *n = lo_xmalloc(cap);
	long same = -1;

	if (path[0] != '/' || !strstr(path, "/../"))
		goto out;
	for (; *c; c = *end ? end + 1 : end) {
		if (!(end = strchr(c, '/')))
			end = c + strlen(c);
		if (end == c || (end - c == 1 && c[0] == '.'))
			goto out;
		if (end - c == 2 && c[0] == '.' && c[1] == '.') {
			/* X = n[0, len) and its parent must be real directories */
			if (depth < 2 || !add_dir(f, dirs_at, n, len) ||
			    !add_dir(f, dirs_at, n, tops[depth - 1] - 1))
				goto out;
			len = tops[--depth] - 1;
			continue;
		}
		tops[depth++] = len + 1;
		n[len++] = '/';
		memcpy(n + len, c, (size_t)(end - c));
		len += (size_t)(end - c);
	}
	same = find(f, n, len);
	if (same >= 0 && !(plain_file(&f->d->deps[same]) &&
			   lo_dep_same(&f->d->deps[i], &f->d->deps[same])))
		same = -1;
out:
	if (same < 0)
		f->dirs.len = dirs_at;
	free(tops);
	free(n);
	return same;
}

size_t lo_cache_aliases_find(const lo_deps *d, lo_cache_alias **aliases, uint32_t **dirs)
{
	finder f = { d, NULL, LO_BUF_INIT };
	size_t i, count = 0;
	long same;

	*aliases = NULL;
	*dirs = NULL;
	if (!lo_os_dir_stat_tracks_entries || !d->count)
		return 0;
	f.order = lo_xmalloc(d->count * sizeof(*f.order));
	for (i = 0; i < d->count; i++)
		f.order[i] = &d->deps[i];
	lo_deps_sort_by_path(f.order, d->count);
	for (i = 0; i < d->count; i++) {
		size_t at = f.dirs.len / sizeof(uint32_t);

		if (!plain_file(&d->deps[i]) || (same = alias_of(&f, i)) < 0)
			continue;
		if (!(count & (count + 1)))
			*aliases = lo_xrealloc(*aliases, (2 * count + 1) * sizeof(lo_cache_alias));
		(*aliases)[count++] = (lo_cache_alias){ (uint32_t)i, (uint32_t)same, (uint32_t)at,
						       (uint32_t)(f.dirs.len / sizeof(uint32_t) - at) };
	}
	free(f.order);
	*dirs = (uint32_t *)f.dirs.ptr;
	return count;
}

bool lo_cache_aliases_valid(const lo_cache_entry *e)
{
	const lo_dep *deps = e->deps.deps;
	unsigned char *alias;
	bool valid = true;
	size_t i, j;

	for (i = 0; i < e->alias_count; i++) {
		const lo_cache_alias *a = &e->aliases[i];

		if (a->dep >= e->deps.count || (i && a->dep <= a[-1].dep) ||
		    a->same >= e->deps.count || !plain_file(&deps[a->dep]) ||
		    !plain_file(&deps[a->same]) || !lo_dep_same(&deps[a->dep], &deps[a->same]) ||
		    !a->dir_count)
			return false;
		/* dir_at and dir_count are the reader's own, in range */
		for (j = 0; j < a->dir_count; j++)
			if (e->alias_dirs[a->dir_at + j] >= e->deps.count ||
			    !walked_dir(&deps[e->alias_dirs[a->dir_at + j]]))
				return false;
	}
	/* N is stated in the first pass: no alias itself (a directory is none, a file) */
	alias = lo_xcalloc(e->deps.count ? e->deps.count : 1, 1);
	for (i = 0; i < e->alias_count; i++)
		alias[e->aliases[i].dep] = 1;
	for (i = 0; valid && i < e->alias_count; i++)
		valid = !alias[e->aliases[i].same];
	free(alias);
	return valid;
}
