/*
 * scan_walk.c - the walk of a scan in part (cache.h): a directory that
 * stats as it did when the last scan listed it is not read again, its
 * kept listing stands for it.
 *
 * What the walk decides from an entry is drawn from its name and its type
 * alone (scan.c's on_entry): whether the rules take it for a candidate
 * (its path, its tree's top), whether the build's model asks about it
 * (buildsys.h: a marker, a name shaped like a library, REG or LNK), and
 * whether it is a directory to enter. Nothing is read of a file. A
 * directory's mtime and ctime change with every name created, removed or
 * renamed in it, and an entry's type is its inode's, which only such a
 * change replaces: while a directory stats the same, each of its entries
 * gets the same answers. What the listing cannot say, a file's contents (a
 * library rewritten in place, from text to ELF), is its item's own lstat,
 * checked before its kept verdict is taken (scan_cache.c). The rules are
 * in the cache's key; a root whose top (rule paths are relative to it) or
 * build dir is not the one the listings were made under is read whole.
 *
 * So a listing keeps only the entries the scan used: the candidates, what
 * the build's model asked about, the directories that could not be
 * entered, and each subdirectory listed (a dependency of the walk below
 * it). A directory whose read failed part way keeps none, nor one with an
 * entry of unknown type. The walk goes from the root down (walk.h): a
 * kept subdirectory is reached through its parent's listing, read or
 * kept, so a directory swapped for a link, or moved, is met as the parent
 * says it is now, never by its old path's stat.
 */
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/deps.h"
#include "leftover/map.h"
#include "leftover/os.h"
#include "scan/scan_int.h"

/* The walk's `rel` under the root being walked, absolute, in b (deps.c's spelling). */
static const char *abs_of(lo_buf *b, const char *root, const char *rel)
{
	lo_buf_clear(b);
	lo_buf_puts(b, root);
	if (*rel && strcmp(rel, ".")) {
		if (strcmp(root, "/"))
			lo_buf_putc(b, '/');
		lo_buf_puts(b, rel);
	}
	return lo_buf_cstr(b);
}

void lo_scan_walk_used(scan *s, const lo_walk_entry *e)
{
	item_list *l = &s->lists[e->worker];
	lo_buf path = LO_BUF_INIT;
	item *it;

	lo_array_grow(&l->listed, &l->listed_cap, l->listed_count + 1, sizeof(item));
	it = &l->listed[l->listed_count++];
	memset(it, 0, sizeof(*it));
	it->abs = lo_xstrdup(abs_of(&path, s->root, e->relpath));
	it->type = e->type;
	it->err = e->err;
	lo_buf_dispose(&path);
}

/* May root `root` be walked from the kept listings: made under the same top and build dir? */
static bool may_know(const scan *s, size_t root)
{
	const lo_cache_root *r = &s->kept->roots[root];
	const char *was = r->build_dir, *now = s->build_dirs[root];

	if (!s->kept->listing_count)
		return false;
	return was && now ? !strcmp(was, now) && !r->top == !s->tops[root] : !was && !now;
}

void lo_scan_walk_keep(scan *s)
{
	const lo_cache_entry *e = s->kept;
	size_t i;

	s->walk_at = lo_map_new();
	for (i = 0; i < e->listing_count; i++)
		if (s->kept_states[e->listings[i].dep] == LO_CACHE_SAME)
			lo_map_put(s->walk_at, e->deps.deps[e->listings[i].dep].path,
				   (void *)(uintptr_t)(i + 1));
}

/* lo_walk_known_fn: the kept listing of `rel` when it stands (lo_scan_walk_keep). */
static const lo_dirent *known(const char *rel, unsigned worker, size_t *count, void *payload)
{
	scan *s = payload;
	const lo_cache_listing *l;
	size_t k;

	k = (size_t)(uintptr_t)lo_map_get(s->walk_at, abs_of(&s->lists[worker].path, s->root, rel),
					  NULL);
	if (!k)
		return NULL;
	l = &s->kept->listings[k - 1];
	/* the listing stands for the directory's read: its stat is the next scan's dependency */
	lo_deps_note_listed(&s->kept->deps.deps[l->dep]);
	atomic_fetch_add(&s->walk_kept, 1);
	*count = l->count;
	return l->entries; /* never NULL (cache.c, finish): an empty one is known too */
}

lo_walk_known_fn lo_scan_walk_known_for(const scan *s, size_t root)
{
	return s->kept && may_know(s, root) ? known : NULL;
}

/* A listing under construction, per dependency. */
typedef struct building {
	lo_cache_listing *ls; /* per dependency; names borrowed until the end */
	size_t *cap;
	bool *bad;            /* keeps no listing */
	lo_map *at;           /* a directory of the walk's path -> its index + 1 */
	lo_buf parent;
} building;

/* The directory of the walk holding `path`, as index + 1, or 0; *name its name there. */
static size_t parent_of(building *b, const char *path, const char **name)
{
	const char *sep = lo_os_path_last_separator(path);

	if (!sep || !sep[1])
		return 0;
	*name = sep + 1;
	lo_buf_clear(&b->parent);
	lo_buf_add(&b->parent, path, sep > path ? (size_t)(sep - path) : 1);
	return (size_t)(uintptr_t)lo_map_get(b->at, lo_buf_cstr(&b->parent), NULL);
}

static void add_entry(building *b, size_t dep, const char *name, unsigned char type)
{
	lo_cache_listing *l = &b->ls[dep];

	lo_array_grow(&l->entries, &b->cap[dep], l->count + 1, sizeof(lo_dirent));
	l->entries[l->count++] = (lo_dirent){ name, type };
}

/* An entry the walk used (lo_scan_walk_used) into its directory's listing. */
static void add_used(building *b, const item *it)
{
	const char *name = NULL;
	size_t self = (size_t)(uintptr_t)lo_map_get(b->at, it->abs, NULL);
	size_t dir = parent_of(b, it->abs, &name);

	/* a directory not read whole (it->abs itself) keeps nor gives a listing */
	if (it->err && self)
		b->bad[self - 1] = true;
	if (!dir)
		return;
	if (it->type == LO_FT_UNKNOWN)
		b->bad[dir - 1] = true;
	else
		add_entry(b, dir - 1, name, it->err ? LO_FT_DIR : it->type);
}

static int cmp_dirent(const void *a, const void *b)
{
	return strcmp(((const lo_dirent *)a)->name, ((const lo_dirent *)b)->name);
}

/* b's listing of dependency `dep`, sorted, each name once (borrowed from the paths), into `out`. */
static void finish(building *b, size_t dep, lo_cache_listing *out)
{
	lo_cache_listing *l = &b->ls[dep];
	size_t i;

	*out = (lo_cache_listing){ (uint32_t)dep, lo_xcalloc(l->count ? l->count : 1,
							     sizeof(lo_dirent)), 0 };
	if (l->count)
		qsort(l->entries, l->count, sizeof(lo_dirent), cmp_dirent);
	for (i = 0; i < l->count; i++)
		if (!out->count || strcmp(out->entries[out->count - 1].name, l->entries[i].name))
			out->entries[out->count++] = l->entries[i];
}

lo_cache_listing *lo_scan_walk_listings(const scan *s, const lo_deps *d, size_t *count)
{
	building b = { lo_xcalloc(d->count + 1, sizeof(lo_cache_listing)),
		       lo_xcalloc(d->count + 1, sizeof(size_t)), lo_xcalloc(d->count + 1, 1),
		       lo_map_new(), LO_BUF_INIT };
	lo_cache_listing *out = lo_xcalloc(d->count + 1, sizeof(lo_cache_listing));
	const char *name = NULL;
	size_t i, j, dir;

	for (i = 0; i < d->count; i++)
		if (d->deps[i].use & LO_DEP_WALK)
			lo_map_put(b.at, d->deps[i].path, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < d->count; i++)
		if ((d->deps[i].use & LO_DEP_WALK) && (dir = parent_of(&b, d->deps[i].path, &name)))
			add_entry(&b, dir - 1, name, LO_FT_DIR);
	for (i = 0; i < s->jobs; i++)
		for (j = 0; j < s->lists[i].listed_count; j++)
			add_used(&b, &s->lists[i].listed[j]);
	*count = 0;
	for (i = 0; i < d->count; i++) {
		if ((d->deps[i].use & LO_DEP_WALK) && !b.bad[i] && !d->deps[i].absent)
			finish(&b, i, &out[(*count)++]);
		free(b.ls[i].entries);
	}
	free(b.ls);
	free(b.cap);
	free(b.bad);
	lo_map_free(b.at, NULL);
	lo_buf_dispose(&b.parent);
	return out;
}
