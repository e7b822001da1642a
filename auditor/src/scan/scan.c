/*
 * scan.c - from trees to verdicts (see scan.h).
 *
 * The orchestration. Two passes: the walk collects the candidates (names
 * the rules select) and the directories it could not enter; then each is
 * judged (scan_judge.c: read once, given a kind and a host, its load
 * played, the build's records asked; verdict.h decides). Judging after the
 * walk keeps the walk a pure listing (cheap, and what the benchmark
 * compares with a parallel `find`) and lets every library be cached
 * across candidates.
 *
 * Both passes run on `jobs` threads. The walk hands each worker's finds to
 * its own list; judging takes items by an atomic index and writes each
 * verdict into the item's own slot, so the only shared state is the
 * resolver's cache (locked inside resolver.c) and the hosts (locked inside
 * hosts.c). Anything lo_scan_judge calls must be read-only or locked. The
 * result is sorted by path, so output does not depend on scheduling.
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
#include "leftover/dyld.h"
#include "leftover/error.h"
#include "leftover/map.h"
#include "leftover/origin.h"
#include "leftover/os.h"
#include "leftover/scan.h"
#include "leftover/walk.h"
#include "hosts/pyext.h"
#include "scan/scan_int.h"

/* ---- the result ------------------------------------------------------------ */

static void add_note(lo_scan_result *res, char *line)
{
	lo_array_grow(&res->notes, &res->note_cap, res->note_count + 1, sizeof(char *));
	res->notes[res->note_count++] = line;
}

/* ---- the walk -------------------------------------------------------------- */

static void add_item(scan *s, unsigned worker, const char *rel, unsigned char type, int err)
{
	item_list *l = &s->lists[worker];
	item *it;

	lo_array_grow(&l->items, &l->cap, l->count + 1, sizeof(*it));
	it = &l->items[l->count++];
	it->abs = NULL;
	if (asprintf(&it->abs, "%s/%s", s->root, rel) < 0)
		abort();
	it->root = s->root_index;
	it->orphan_only = false;
	it->type = type;
	it->err = err;
	it->tracked = LO_UNKNOWN;
}

const char *lo_scan_rules_path_of(const scan *s, const char *abs)
{
	const char *top = NULL;
	size_t i, len = 0;

	for (i = 0; i < s->root_count; i++) {
		size_t n = s->tops[i] ? strlen(s->tops[i]) : 0;

		/* a build tree at / has its paths without the '/' */
		if (n > len && !strncmp(abs, s->tops[i], n) && (abs[n] == '/' || n == 1)) {
			top = s->tops[i];
			len = n;
		}
	}
	return top ? abs + len + (len > 1) : abs;
}

/*
 * lo_scan_rules_path_of the walk's entry `rel` (relative to the root being
 * walked), built in the worker's buffer unless the root is its tree's top.
 */
static const char *walk_rules_path(scan *s, unsigned worker, const char *rel)
{
	const char *top = s->tops[s->root_index];
	lo_buf *b = &s->lists[worker].path;

	if (top && !strcmp(top, s->root))
		return rel;
	/* once per entry of the walk: no printf here, it cost a twentieth of the scan */
	lo_buf_clear(b);
	lo_buf_puts(b, s->root);
	lo_buf_putc(b, '/');
	lo_buf_puts(b, rel);
	return lo_scan_rules_path_of(s, lo_buf_cstr(b));
}

/* lo_scan_rules_path_of the file at `path` of a result rooted at `root`; owned. */
static char *file_rules_path(const scan *s, const char *root, const char *path)
{
	char *abs = NULL, *out;

	if (asprintf(&abs, "%s/%s", strcmp(root, "/") ? root : "", path) < 0)
		abort();
	if (!s)
		return abs;
	out = lo_xstrdup(lo_scan_rules_path_of(s, abs));
	free(abs);
	return out;
}

char *lo_scan_rules_path(const lo_scan_result *res, const char *path)
{
	return file_rules_path(res->scan, res->root, path);
}

static int on_entry(const lo_walk_entry *e, void *payload)
{
	scan *s = payload;
	/* the build's model asks about a few names too: the tree is walked once */
	bool used = lo_buildsys_finds_add(s->finds, e);

	if (e->err) {
		used = true;
		add_item(s, e->worker, e->relpath, e->type, e->err);
	} else if (lo_rules_is_candidate(s->rules, walk_rules_path(s, e->worker, e->relpath))) {
		used = true;
		add_item(s, e->worker, e->relpath, e->type, 0);
		/*
		 * The interpreter of a Python extension module takes a process
		 * to ask (a pyenv shim, several): asked at the first module
		 * met, it answers while the walk goes on.
		 */
		if (!atomic_load(&s->python_started) && lo_pyext_named(e->relpath) &&
		    !atomic_exchange(&s->python_started, true)) {
			const item_list *l = &s->lists[e->worker];
			const char *abs = l->items[l->count - 1].abs;
			char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs));

			lo_hosts_python_start(s->hosts, dir);
			free(dir);
		}
	}
	/* what the next scan in part's walk takes from its listing (scan_walk.c) */
	if (used && lo_deps_recording())
		lo_scan_walk_used(s, e);
	return 0;
}

/* Move the walk workers' finds into s->items. */
static void gather_items(scan *s)
{
	unsigned w;

	for (w = 0; w < s->jobs; w++) {
		item_list *l = &s->lists[w];

		lo_array_grow(&s->items, &s->item_cap, s->item_count + l->count, sizeof(item));
		/* A worker that found nothing has no array: memcpy from NULL is UB (UBSan). */
		if (l->count)
			memcpy(s->items + s->item_count, l->items, l->count * sizeof(item));
		s->item_count += l->count;
		/* the next root's walk grows its own: this one would sit unused to the end */
		free(l->items);
		l->items = NULL;
		l->count = l->cap = 0;
	}
}

/*
 * One judging thread. It is a worker of the resolver (resolve.h): what it
 * reads of a candidate's libraries stays valid until that candidate is
 * judged, after which the resolver may let them go.
 */
static void *judge_worker(void *arg)
{
	scan *s = arg;
	lo_resolver_worker *w = lo_resolver_worker_new(s->resolver);
	lo_elf_buf buf = { NULL };
	size_t i;

	while ((i = atomic_fetch_add(&s->next, 1)) < s->item_count) {
		int err;

		if (atomic_load(&s->failed))
			break;
		if (s->judge_kept && s->kept_slot[i] != AGAIN)
			continue;
		/* what is read from here on is this verdict's (deps.h) */
		lo_deps_attribute(i);
		if (lo_scan_cache_take(s, i)) {
			lo_resolver_begin(w);
			lo_scan_judge_records_again(s, &s->judged[i], &s->items[i]);
			lo_resolver_end(w);
			lo_deps_attribute(SIZE_MAX);
			continue;
		}
		lo_resolver_begin(w);
		err = lo_scan_judge(s, &s->judged[i], &s->items[i], &buf);
		lo_resolver_end(w);
		lo_deps_attribute(SIZE_MAX);
		lo_resolver_forget(s->resolver, s->items[i].abs);
		/*
		 * Its result has the path it needs: every path kept grew the heap
		 * with the tree. The verdict cache keeps it, with the verdict.
		 */
		if (!s->cache_file) {
			free(s->items[i].abs);
			s->items[i].abs = NULL;
		}
		if (err < 0) {
			int none = 0;

			/* the first failure's message is the one reported; messages are per thread */
			if (atomic_compare_exchange_strong(&s->failed, &none, err))
				snprintf(s->failed_msg, sizeof(s->failed_msg), "%s", lo_error_last());
			break;
		}
	}
	lo_elf_buf_dispose(&buf);
	return NULL;
}

/* Run judge_worker on s->jobs threads over the items. */
static void judge_run(scan *s)
{
	pthread_t *threads = lo_xcalloc(s->jobs, sizeof(pthread_t));
	unsigned i, started = 0;

	atomic_store(&s->next, 0);
	for (i = 1; i < s->jobs; i++)
		if (pthread_create(&threads[started], NULL, judge_worker, s) == 0)
			started++;
	judge_worker(s);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

/*
 * Judge every item on s->jobs threads, or take its kept verdict (a warm
 * scan in part, scan_cache.c); returns the first error.
 */
static int judge_all(scan *s)
{
	size_t n = s->item_count ? s->item_count : 1;

	s->judged = lo_xcalloc(n, sizeof(lo_file));
	if (s->kept)
		s->kept_slot = lo_xcalloc(n, 1);
	if (lo_deps_recording())
		s->cache_self = lo_xcalloc(n, sizeof(lo_dep));
	if (!s->dyld)
		s->dyld = lo_dyld_new(NULL);
	atomic_store(&s->failed, 0);
	judge_run(s);
	while (!atomic_load(&s->failed) && lo_scan_cache_judged(s))
		judge_run(s);
	if (atomic_load(&s->failed))
		return lo_error_set(atomic_load(&s->failed), "%s", s->failed_msg);
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const lo_file *)a)->path, ((const lo_file *)b)->path);
}

/*
 * The judged slots become the result's files, sorted, each path once: the
 * array is taken over, not copied (two copies of 12,500 slots were the
 * bench tree's peak at scale 4).
 */
static void collect_files(scan *s)
{
	lo_scan_result *res = s->res;
	size_t i, n = 0;

	res->files = s->judged;
	res->file_cap = s->item_count ? s->item_count : 1;
	s->judged = NULL;
	for (i = 0; i < s->item_count; i++)
		if (res->files[i].path)
			res->files[res->file_count++] = res->files[i];
	if (!res->file_count)
		return; /* qsort of a NULL array is undefined, even of none (UBSan) */
	qsort(res->files, res->file_count, sizeof(lo_file), cmp_file);
	for (i = 0; i < res->file_count; i++) {
		if (n && !strcmp(res->files[n - 1].path, res->files[i].path)) {
			/* the same file reached through a link and by the walk */
			lo_file_dispose(&res->files[i]);
			continue;
		}
		res->files[n++] = res->files[i];
	}
	res->file_count = n;
}
/*
 * A symlink judged at its own location (scan_judge.c) whose target, a file
 * of the report too, has another outcome: a note says so, since the
 * difference is the loader's $ORIGIN (from the directory of the path
 * opened, the link not resolved), which neither line shows.
 */
static void note_links(scan *s)
{
	lo_scan_result *res = s->res;
	size_t i, rlen = strlen(res->root);

	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i], *t;
		lo_file key = { 0 };
		char *line = NULL;

		if (!f->target || strncmp(f->target, res->root, rlen) || f->target[rlen] != '/')
			continue;
		key.path = f->target + rlen + 1;
		t = bsearch(&key, res->files, res->file_count, sizeof(lo_file), cmp_file);
		if (!t || t->loads == f->loads || f->loads == LO_UNKNOWN || t->loads == LO_UNKNOWN)
			continue;
		if (asprintf(&line, "%s/%s, a link to %s, %s where it is, while its target %s: "
			     "the loader expands $ORIGIN from the directory of the path it opens",
			     res->root, f->path, f->target,
			     f->loads == LO_TRUE ? "loads" : "does not load",
			     t->loads == LO_TRUE ? "loads" : "does not") >= 0)
			add_note(res, line);
	}
}

static size_t depth_of(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

/*
 * A stale file reached by several hard links is one file (cargo links
 * target/debug/libX.so and target/debug/deps/libX.so): it is reported once,
 * by its shallowest path, and a note names the other links, which clean
 * moves with it (res->links): one clean leaves none behind. Only stale
 * files are merged, and only with each other: a link judged otherwise (by
 * another rule's host, say) keeps its own verdict.
 */
static void merge_hard_links(scan *s)
{
	lo_scan_result *res = s->res;
	char **keys = lo_xcalloc(res->file_count ? res->file_count : 1, sizeof(char *));
	lo_map *best = lo_map_new(); /* "dev:ino" -> index + 1 of the link kept */
	size_t i, n = 0;

	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		char *abs = NULL;
		struct stat st;
		size_t at;

		if (f->verdict != LO_VERDICT_STALE || asprintf(&abs, "%s/%s", res->root, f->path) < 0)
			continue;
		if (lstat(abs, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1 &&
		    asprintf(&keys[i], "%llu:%llu", (unsigned long long)st.st_dev,
			     (unsigned long long)st.st_ino) >= 0) {
			at = (size_t)(uintptr_t)lo_map_get(best, keys[i], NULL);
			if (!at || depth_of(f->path) < depth_of(res->files[at - 1].path))
				lo_map_put(best, keys[i], (void *)(uintptr_t)(i + 1));
		}
		free(abs);
	}
	for (i = 0; i < res->file_count; i++) {
		size_t at = keys[i] ? (size_t)(uintptr_t)lo_map_get(best, keys[i], NULL) : 0;
		char *line = NULL;

		free(keys[i]);
		keys[i] = at && at != i + 1 ? res->files[i].path : NULL; /* now: dropped or not */
		if (keys[i] && asprintf(&line, "%s/%s is a hard link of %s/%s: reported once",
					res->root, res->files[i].path, res->root,
					res->files[at - 1].path) >= 0)
			add_note(res, line);
	}
	for (i = 0; i < res->file_count; i++) {
		if (!keys[i]) {
			res->files[n++] = res->files[i];
			continue;
		}
		lo_array_grow(&res->links, &res->link_cap, res->link_count + 1, sizeof(lo_file));
		res->links[res->link_count++] = res->files[i];
	}
	res->file_count = n;
	lo_map_free(best, NULL);
	free(keys);
}

/* The sentence a [rule] gives a finding (why such a file goes stale), as a reason "rule". */
static void add_rule_reasons(scan *s)
{
	size_t i;

	for (i = 0; i < s->res->file_count; i++) {
		lo_file *f = &s->res->files[i];
		unsigned on = lo_verdict_rule_states(f->verdict, f->orphan);
		const lo_rule *ru = NULL;

		if (on) {
			char *path = file_rules_path(s, s->res->root, f->path);

			ru = lo_rules_rule_for(s->rules, path, on);
			free(path);
		}
		if (ru && ru->reason)
			lo_file_add_reason(f, LO_REASON_RULE, NULL, NULL, NULL, NULL, ru->reason);
	}
}

/* The build trees of a root's model, each once in the result. */
static void add_trees(lo_scan_result *res, const lo_buildsys *bs)
{
	size_t i, j;

	for (i = 0; i < lo_buildsys_tree_count(bs); i++) {
		const char *dir = lo_buildsys_tree_dir(bs, i), *records = lo_buildsys_tree_records(bs, i);
		lo_scan_tree *t;

		for (j = 0; j < res->tree_count && strcmp(res->trees[j].dir, dir); j++)
			;
		if (j < res->tree_count)
			continue;
		lo_array_grow(&res->trees, &res->tree_cap, res->tree_count + 1, sizeof(*t));
		t = &res->trees[res->tree_count++];
		t->dir = lo_xstrdup(dir);
		t->system = lo_xstrdup(lo_buildsys_tree_system(bs, i));
		t->records = records ? lo_xstrdup(records) : NULL;
		t->withheld = lo_buildsys_tree_withheld(bs, i);
	}
}

/*
 * Orphans the rules did not make candidates (a stale .py, a header, data)
 * are listed too; orphaned bookkeeping (objects, CMakeFiles/) only with
 * --all, counted otherwise.
 */
static void add_orphan_items(scan *s, size_t root)
{
	const lo_buildsys *bs = s->bs[root];
	const char *n, *build = s->build_dirs[root];
	/* the scanned root below the build dir, "" or "sub/": orphans elsewhere are not asked for */
	const char *below = s->roots[root] + strlen(build);
	size_t blen = *below ? strlen(below) : 0, i;

	add_trees(s->res, bs);
	s->res->summary.withheld += lo_buildsys_withheld(bs);
	for (i = 0; (n = lo_buildsys_note(bs, i)); i++) {
		lo_scan_result *res = s->res;

		lo_array_grow(&res->notes, &res->note_cap, res->note_count + 1, sizeof(char *));
		if (asprintf(&res->notes[res->note_count++], "%s: %s", s->roots[root], n) < 0)
			abort();
	}
	for (i = 0; i < lo_buildsys_orphan_count(bs); i++) {
		const char *rel = lo_buildsys_orphan_at(bs, i);
		bool private = lo_buildsys_is_private(bs, rel);
		char *abs = NULL;
		item *it;

		if (blen && (strncmp(rel, below + 1, blen - 1) || rel[blen - 1] != '/'))
			continue;
		rel += blen; /* now relative to the scanned root */
		if (asprintf(&abs, "%s/%s", s->roots[root], rel) < 0)
			abort();
		if (lo_rules_is_candidate(s->rules, lo_scan_rules_path_of(s, abs)) && !private) {
			free(abs);
			continue; /* the walk has it */
		}
		if ((private || lo_buildsys_is_bookkeeping(rel)) && !(s->opts && s->opts->all)) {
			s->res->summary.bookkeeping++;
			free(abs);
			continue;
		}
		lo_array_grow(&s->items, &s->item_cap, s->item_count + 1, sizeof(item));
		it = &s->items[s->item_count++];
		it->abs = abs;
		it->root = root;
		it->orphan_only = true;
		it->type = LO_FT_REG;
		it->err = 0;
		it->tracked = LO_UNKNOWN;
	}
}

/*
 * A build tool's private directory of a target (meson's `x.so.p/`, whose
 * objects match `*.so.*`) holds its bookkeeping: the walk's candidates
 * there are dropped, once the model of root `root` can tell.
 */
static void drop_private(scan *s, size_t root)
{
	const char *base = lo_buildsys_base(s->bs[root]);
	size_t blen = strlen(base), i, n = 0;

	for (i = 0; i < s->item_count; i++) {
		item *it = &s->items[i];

		if (it->root == root && !strncmp(it->abs, base, blen) && it->abs[blen] == '/' &&
		    lo_buildsys_is_private(s->bs[root], it->abs + blen + 1)) {
			free(it->abs);
			continue;
		}
		s->items[n++] = *it;
	}
	s->item_count = n;
}

/* A root of a scan, for a callback. */
struct root_of {
	scan *s;
	size_t root;
};

/*
 * When the oldest candidate of root `root` was written, 0 when there is
 * none; kept in s->oldest, where a warm scan finds it (scan_cache.c).
 */
static time_t oldest_item_mtime(void *payload)
{
	scan *s = ((struct root_of *)payload)->s;
	size_t root = ((const struct root_of *)payload)->root;
	time_t oldest = 0;
	struct stat st;
	size_t i;

	if (s->oldest[root] >= 0)
		return (time_t)s->oldest[root];
	for (i = 0; i < s->item_count; i++)
		if (s->items[i].root == root && lstat(s->items[i].abs, &st) == 0 &&
		    (!oldest || st.st_mtime < oldest))
			oldest = st.st_mtime;
	s->oldest[root] = oldest;
	return oldest;
}

void lo_scan_record_origin(scan *s, size_t root)
{
	struct root_of at = { s, root };
	char *notes[LO_ORIGIN_NOTES_MAX] = { NULL };
	size_t i, before = s->res->note_count;
	bool recorded;

	if ((recorded = lo_origin_record(&s->res->origins[s->res->origin_count],
			     s->build_dirs[root] ? s->build_dirs[root] : s->roots[root],
			     s->opts ? s->opts->source : NULL, s->git[root], oldest_item_mtime, &at,
			     notes)))
		s->res->origin_count++;
	/* a warm scan may have to make the origin again without the items: known now */
	if (recorded && s->cache_file && lo_deps_recording())
		oldest_item_mtime(&at);
	s->origin_note_at[root] = before;
	for (i = 0; i < LO_ORIGIN_NOTES_MAX; i++)
		if (notes[i])
			add_note(s->res, notes[i]);
	s->origin_notes[root] = s->res->note_count - before;
}

/*
 * Which items git tracks, asked before the judging; then the repositories
 * are let go. A checkout's index and what libgit2 read of it (18 MiB of
 * heap for 104,000 files, its pack's pages) would otherwise count against
 * the judging's memory (resolve.h), which would then keep fewer libraries
 * and read them again: a scan of bench scale 1 inside such a checkout took
 * 5.4 s instead of 1.6. True when a repository was read, here or by a
 * record (which let its own go already).
 */
static bool mark_tracked_let_go(scan *s)
{
	bool read = false;
	size_t i;

	for (i = 0; i < s->item_count; i++) {
		item *it = &s->items[i];
		lo_git *g = s->git[it->root];

		if (g)
			it->tracked = lo_git_tracks(g, it->abs) ? LO_TRUE : LO_FALSE;
	}
	for (i = 0; i < s->root_count; i++) {
		read |= s->git[i] != NULL;
		lo_git_free(s->git[i]);
		s->git[i] = NULL;
	}
	for (i = 0; i < s->res->origin_count; i++)
		read |= s->res->origins[i].commit != NULL;
	return read;
}

/* The deepest directory containing every root. */
static char *common_root(char *const *roots, size_t n)
{
	size_t len = strlen(roots[0]), i;

	for (i = 1; i < n; i++) {
		size_t j = 0;

		while (j < len && roots[i][j] == roots[0][j])
			j++;
		if (j < len || (roots[i][j] != '/' && roots[i][j] != '\0')) {
			while (j > 0 && roots[0][j] != '/')
				j--;
			len = j;
		}
	}
	return len ? lo_xstrndup(roots[0], len) : lo_xstrdup("/");
}

/*
 * The trees whose programs are not run unless they cannot have changed
 * them (trust.h): every root with its build and source trees, all vouched
 * for by --trust-tree or when the user's own rules vouch for each one.
 */
static lo_trust *scan_trust(const scan *s)
{
	bool vouched = s->opts && s->opts->trust_tree, each = true;
	lo_trust *t = lo_trust_new(vouched);
	size_t i;

	for (i = 0; i < s->root_count; i++) {
		lo_trust_add_tree(t, s->roots[i], s->opts ? s->opts->source : NULL);
		each &= lo_rules_trusts_tree(s->rules, s->roots[i]);
	}
	if (each)
		lo_trust_vouch(t);
	return t;
}

/* Walk root `i` for its items, and read what its build and git say of it. */
static int gather_root(scan *s, size_t i)
{
	int err;

	s->root = s->roots[i];
	s->root_index = i;
	/* a scan of build/python_packages is judged by build/'s records, and its rules too */
	s->build_dirs[i] = lo_buildsys_base_of(s->root);
	s->tops[i] = lo_buildsys_is_tree(s->build_dirs[i]) ? s->build_dirs[i] : NULL;
	s->finds = lo_buildsys_finds_new(s->jobs);
	if ((err = lo_walk_tree_known(s->root, s->jobs, on_entry, lo_scan_walk_known_for(s, i), s)) < 0)
		return err;
	gather_items(s);
	/* one open of the repository for the judging, the build model and the origin */
	lo_git_open(&s->git[i], s->root);
	if (s->build_dirs[i]) {
		if ((err = lo_buildsys_open(&s->bs[i], s->root, s->finds, s->git[i],
					    s->opts && s->opts->reconfigure
						    ? LO_BUILDSYS_RECONFIGURE : 0)) < 0)
			return err;
		if (s->bs[i]) {
			drop_private(s, i);
			add_orphan_items(s, i);
		}
	}
	lo_buildsys_finds_free(s->finds);
	s->finds = NULL;
	lo_scan_record_origin(s, i);
	return 0;
}

/* What gather_root keeps of each root, none yet. */
static void alloc_per_root(scan *s)
{
	s->bs = lo_xcalloc(s->root_count, sizeof(lo_buildsys *));
	s->build_dirs = lo_xcalloc(s->root_count, sizeof(char *));
	s->tops = lo_xcalloc(s->root_count, sizeof(char *));
	s->git = lo_xcalloc(s->root_count, sizeof(lo_git *));
	s->res->origins = lo_xcalloc(s->root_count, sizeof(lo_scan_origin));
}

void lo_scan_free(scan *s)
{
	size_t i;
	unsigned w;

	if (!s)
		return;
	lo_scan_result_free(s->res);
	for (i = 0; i < s->item_count; i++) {
		free(s->items[i].abs);
		if (s->judged)
			lo_file_dispose(&s->judged[i]);
	}
	free(s->items);
	free(s->judged);
	for (w = 0; s->lists && w < s->jobs; w++) {
		for (i = 0; i < s->lists[w].count; i++)
			free(s->lists[w].items[i].abs);
		free(s->lists[w].items);
		for (i = 0; i < s->lists[w].listed_count; i++)
			free(s->lists[w].listed[i].abs);
		free(s->lists[w].listed);
		lo_buf_dispose(&s->lists[w].path);
	}
	free(s->lists);
	lo_buildsys_finds_free(s->finds);
	for (i = 0; i < s->root_count; i++)
		free(s->roots[i]);
	free(s->roots);
	lo_hosts_free(s->hosts);
	lo_trust_free(s->trust);
	lo_resolver_free(s->resolver);
	lo_dyld_free(s->dyld);
	for (i = 0; s->bs && i < s->root_count; i++)
		lo_buildsys_free(s->bs[i]);
	free(s->bs);
	for (i = 0; s->build_dirs && i < s->root_count; i++)
		free(s->build_dirs[i]);
	free(s->build_dirs);
	free(s->tops);
	for (i = 0; s->git && i < s->root_count; i++)
		lo_git_free(s->git[i]);
	free(s->git);
	lo_scan_cache_free(s);
	free(s->origin_note_at);
	free(s->origin_notes);
	free(s->oldest);
	free(s);
}

/*
 * What the hosts have to say, into the result: notes, and details for
 * --verbose. Sorted: they arise in the order the judging threads meet
 * them, and a warm scan in part (scan_cache.c) meets them otherwise.
 */
static void take_host_notes(scan *s)
{
	size_t i, cap = 0, at = s->res->note_count;

	for (i = 0; lo_hosts_note(s->hosts, i); i++)
		add_note(s->res, lo_xstrdup(lo_hosts_note(s->hosts, i)));
	lo_strv_sort(s->res->notes + at, s->res->note_count - at);
	for (i = 0; lo_hosts_detail(s->hosts, i); i++)
		lo_strv_add_unique(&s->res->details, &s->res->detail_count, &cap,
				   lo_hosts_detail(s->hosts, i));
	lo_strv_sort(s->res->details, s->res->detail_count);
}

bool lo_scan_produced(const lo_scan_result *res, const char *path)
{
	const scan *s = res->scan;
	bool yes = false;
	size_t i, n;
	char *abs;

	if (!s || !s->bs)
		return false;
	if (lo_os_path_is_absolute(path))
		abs = lo_xstrdup(path);
	else if (asprintf(&abs, "%s%s%s", res->root, strcmp(res->root, "/") ? "/" : "", path) < 0)
		abort();
	for (i = 0; i < s->root_count && !yes; i++) {
		const char *base = s->build_dirs[i];
		lo_orphan_verdict v;

		if (!s->bs[i] || !base || strncmp(abs, base, (n = strlen(base))) || abs[n] != '/')
			continue;
		lo_buildsys_judge(s->bs[i], abs + n + 1, &v);
		yes = v.orphan == 0;
	}
	free(abs);
	return yes;
}

/*
 * Walk every root, judge every item, and make the result: the cold scan,
 * after lo_resolver_new and the hosts.
 */
static int gather_all(scan *s)
{
	size_t i;
	int err;

	alloc_per_root(s);
	for (i = 0; i < s->root_count; i++)
		if ((err = gather_root(s, i)) < 0)
			return err;
	/*
	 * What git read and freed before the judging (an index, a record's own
	 * repository) is given back to the kernel: the tables' budget reads the
	 * process's resident memory (resolve.h), and freed heap that stays
	 * resident counts against it. Bench scale 1 beside a checkout of
	 * 104,000 files, whose index the record read and freed, took 2.3 to
	 * 2.9 s instead of 1.3 to 1.8. Not without git: the trim takes 1.5 to
	 * 3 ms there, for nothing.
	 */
	if (mark_tracked_let_go(s))
		lo_os_heap_trim();
	if ((err = judge_all(s)) < 0)
		return err;
	/* the state is kept as long as the result: its tables' pages need not be */
	lo_resolver_release(s->resolver);
	lo_hosts_settle(s->hosts);
	collect_files(s);
	note_links(s);
	merge_hard_links(s);
	take_host_notes(s);
	add_rule_reasons(s);
	for (i = 0; i < s->res->file_count; i++)
		s->res->summary.by_verdict[s->res->files[i].verdict]++;
	s->res->summary.files = s->res->file_count;
	return 0;
}

int lo_scan_run(lo_scan_result **out, const char *const *roots, size_t root_count,
		const lo_scan_opts *opts)
{
	scan *s = lo_xcalloc(1, sizeof(*s));
	lo_rules *own_rules = NULL;
	lo_resolver_opts ropts;
	size_t i;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int err = 0;

	*out = NULL;
	s->opts = opts;
	s->jobs = opts && opts->jobs ? opts->jobs : cores > 0 ? (unsigned)cores : 1;
	if (!root_count) {
		err = lo_error_set(LO_EUSAGE, "no directory to scan");
		goto out;
	}
	s->roots = lo_xcalloc(root_count, sizeof(char *));
	for (i = 0; i < root_count; i++) {
		struct stat st;

		if (!(s->roots[i] = realpath(roots[i], NULL))) {
			err = lo_error_set_errno(LO_ERROR, errno, "cannot scan '%s'", roots[i]);
			goto out;
		}
		s->root_count++;
		if (stat(s->roots[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			err = lo_error_set(LO_ERROR, "cannot scan '%s': not a directory", roots[i]);
			goto out;
		}
	}
	if (opts && opts->rules) {
		s->rules = opts->rules;
	} else {
		if ((err = lo_rules_load_tree(&own_rules, s->roots[0], NULL, 0)) < 0)
			goto out;
		s->rules = own_rules;
	}
	s->origin_note_at = lo_xcalloc(s->root_count, sizeof(size_t));
	s->origin_notes = lo_xcalloc(s->root_count, sizeof(size_t));
	s->oldest = lo_xcalloc(s->root_count, sizeof(int64_t));
	for (i = 0; i < s->root_count; i++)
		s->oldest[i] = -1;
	if (lo_scan_cache_warm(s))
		goto done;
	memset(&ropts, 0, sizeof(ropts));
	if (opts) {
		ropts.library_path = opts->library_path;
		ropts.library_path_count = opts->library_path_count;
		/* the scanned trees are read where they are, the rest under --sysroot */
		ropts.sysroot = opts->sysroot;
		ropts.hwcaps = opts->hwcaps;
		ropts.outside = (const char *const *)s->roots;
		ropts.outside_count = s->root_count;
	}
	if ((err = lo_resolver_new(&s->resolver, &ropts)) < 0)
		goto out;
	s->trust = scan_trust(s);
	s->hosts = lo_hosts_new(s->resolver, opts ? opts->python : NULL, opts ? opts->host : NULL,
				s->trust);
	s->lists = lo_xcalloc(s->jobs, sizeof(item_list));
	s->res = lo_xcalloc(1, sizeof(*s->res));
	s->res->root = common_root(s->roots, s->root_count);
	s->res->roots = lo_xcalloc(s->root_count, sizeof(char *));
	for (i = 0; i < s->root_count; i++)
		s->res->roots[s->res->root_count++] = lo_xstrdup(s->roots[i]);

	if ((err = gather_all(s)) < 0)
		goto out;
	lo_scan_cache_keep(s);
done:
	/* the state goes with the result; what it borrowed from the caller does not */
	s->opts = NULL;
	s->rules = NULL;
	*out = s->res;
	s->res->scan = s;
	s->res = NULL;
	s = NULL;
out:
	/* a scan that failed keeps no cache: what it recorded goes */
	if (s && s->cache_start_ns)
		lo_deps_free(lo_deps_take());
	lo_rules_free(own_rules);
	lo_scan_free(s);
	return err;
}
