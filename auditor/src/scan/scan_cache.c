/*
 * scan_cache.c - the scan's side of the verdict cache (cache.h): when it
 * may be used, the key a kept result must match, the result given again
 * (a warm scan), and what a cold scan keeps.
 *
 * The key is everything a verdict depends on that is no file: the format,
 * the program's version, the roots, each option that changes a verdict,
 * every effective rule setting with its file (the rules are loaded before
 * the scan, by the caller: what they say is the key, whatever file said
 * it), and the environment the hosts read (PATH finds python3, pyenv's
 * and asdf's variables pick its version). The files are dependencies
 * (deps.h). Not the current directory itself: what a result takes from
 * it is resolved into the key (key_cwd), so that the audit a build runs
 * and a scan from elsewhere share one cache.
 *
 * Not used: with --no-cache (and by clean: it acts only on verdicts it
 * drew itself), with --sysroot (the dependencies' paths would be inside
 * the root) and with --reconfigure (which runs cmake: a scan of its own).
 *
 * The origins (origin.h) are not kept: each scan records itself in the
 * state record and reads the last one, and git's dirty flag comes from
 * the source tree, which no dependency covers. They are made again on a
 * warm scan, their notes put back where a cold scan puts them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/clean.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/shim.h"
#include "leftover/walk.h"
#include "scan/scan_int.h"

#ifndef LEFTOVER_VERSION
#define LEFTOVER_VERSION "unknown"
#endif

/*
 * The environment variables a verdict can depend on (hosts/, rules/),
 * those that hold a path first (given_relative); asdf's are all in the
 * key (key_asdf: its plugins name some), these two for their paths.
 */
static const char *const key_env[] = { "HOME", "PYENV_DIR", "PYENV_ROOT", "XDG_CONFIG_HOME",
				       "LEFTOVER_RULES_DIR", "ASDF_DATA_DIR", "ASDF_CONFIG_FILE",
				       "PATH", "PYENV_VERSION" };
#define KEY_ENV_PATHS 7

extern char **environ;

static int key_rule(const char *name, const char *value, const char *file, int line, void *payload)
{
	lo_buf_printf(payload, "rule %s=%s @%s:%d\n", name, value ? value : "(none)",
		      file ? file : "", line);
	return 0;
}

static void key_str(lo_buf *b, const char *what, const char *value)
{
	lo_buf_printf(b, "%s %s\n", what, value ? value : "(none)");
}

static bool relative(const char *path)
{
	return path && !lo_os_path_is_absolute(path);
}

/* Does a path the scan was given, in its options or environment, depend on the current directory? */
static bool given_relative(const lo_scan_opts *o)
{
	const char *path = getenv("PATH"), *end;
	size_t i;

	for (i = 0; o && i < o->library_path_count; i++)
		if (relative(o->library_path[i]))
			return true;
	if (o && (relative(o->python) || relative(o->host) || relative(o->source)))
		return true;
	for (i = 0; i < KEY_ENV_PATHS; i++)
		if (relative(getenv(key_env[i])))
			return true;
	/* an empty entry of PATH is the current directory */
	for (; path; path = *end ? end + 1 : NULL) {
		end = path + strcspn(path, ":");
		if (end == path || !lo_os_path_is_absolute(path))
			return true;
	}
	return false;
}

/*
 * What the result takes from the current directory, resolved: the
 * version files the shims' readers would find from it (shim.h), and the
 * directory itself only when a path was given relative to it. So the
 * audit a build runs (in the build directory) and a scan by hand or by
 * the pytest plugin (elsewhere) keep one cache, not one each in turn.
 */
static void key_cwd(lo_buf *b, const lo_scan_opts *o)
{
	char *choice = lo_shim_current_choice(), *cwd;

	lo_buf_printf(b, "version files:\n%s", choice);
	free(choice);
	if (given_relative(o)) {
		cwd = getcwd(NULL, 0);
		key_str(b, "cwd", cwd);
		free(cwd);
	}
}

/* asdf's variables, in order: the environment's own order is the parent's. */
static void key_asdf(lo_buf *b)
{
	char **v = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; environ[i]; i++) {
		if (strncmp(environ[i], "ASDF_", 5))
			continue;
		lo_array_grow(&v, &cap, n + 1, sizeof(char *));
		v[n++] = environ[i];
	}
	lo_strv_sort(v, n);
	for (i = 0; i < n; i++)
		lo_buf_printf(b, "%s\n", v[i]);
	free(v);
}

/* The SHA-256 of what the scan was asked, as hex; owned. */
static char *scan_key(const scan *s)
{
	const lo_scan_opts *o = s->opts;
	lo_buf b = LO_BUF_INIT;
	char hex[65];
	size_t i;

	lo_buf_printf(&b, "format %d\nversion %s\n", LO_CACHE_VERSION, LEFTOVER_VERSION);
	for (i = 0; i < s->root_count; i++)
		key_str(&b, "root", s->roots[i]);
	if (o) {
		key_str(&b, "python", o->python);
		key_str(&b, "host", o->host);
		for (i = 0; i < o->library_path_count; i++)
			key_str(&b, "library-path", o->library_path[i]);
		key_str(&b, "source", o->source);
		key_str(&b, "hwcaps", o->hwcaps);
		lo_buf_printf(&b, "all %d\ntrust-tree %d\n", o->all, o->trust_tree);
	}
	lo_rules_foreach(s->rules, key_rule, &b);
	for (i = 0; i < sizeof(key_env) / sizeof(key_env[0]); i++)
		key_str(&b, key_env[i], getenv(key_env[i]));
	key_asdf(&b);
	key_cwd(&b, o);
	lo_clean_sha256_mem(b.ptr, b.len, hex);
	lo_buf_dispose(&b);
	return lo_xstrdup(hex);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * The kept result as the scan's own: the roots' tops and build dirs for
 * the rule paths (lo_scan_rules_path), the origins made again, each
 * root's notes put back in place.
 */
static void take_result(scan *s, lo_cache_entry *e)
{
	char **kept = e->res->notes;
	size_t n = e->res->note_count, at = 0, i;

	s->res = e->res;
	e->res = NULL;
	s->res->notes = NULL;
	s->res->note_count = s->res->note_cap = 0;
	s->bs = lo_xcalloc(s->root_count, sizeof(lo_buildsys *));
	s->build_dirs = lo_xcalloc(s->root_count, sizeof(char *));
	s->tops = lo_xcalloc(s->root_count, sizeof(char *));
	s->git = lo_xcalloc(s->root_count, sizeof(lo_git *));
	s->res->origins = lo_xcalloc(s->root_count, sizeof(lo_scan_origin));
	for (i = 0; i < s->root_count; i++) {
		lo_cache_root *r = &e->roots[i];

		s->build_dirs[i] = r->build_dir;
		r->build_dir = NULL;
		/* the top is the build dir, whose copy the scan now owns */
		s->tops[i] = r->top ? s->build_dirs[i] : NULL;
		free(r->top);
		r->top = NULL;
		s->oldest[i] = r->oldest;
		for (; at < r->origin_note_at; at++) {
			lo_array_grow(&s->res->notes, &s->res->note_cap, s->res->note_count + 1,
				      sizeof(char *));
			s->res->notes[s->res->note_count++] = kept[at];
		}
		lo_git_open(&s->git[i], s->roots[i]);
		lo_scan_record_origin(s, i);
		lo_git_free(s->git[i]);
		s->git[i] = NULL;
	}
	for (; at < n; at++) {
		lo_array_grow(&s->res->notes, &s->res->note_cap, s->res->note_count + 1,
			      sizeof(char *));
		s->res->notes[s->res->note_count++] = kept[at];
	}
	free(kept);
}

/* May this scan use the cache at all? */
static bool cache_allowed(const scan *s)
{
	const lo_scan_opts *o = s->opts;

	return !(o && (o->no_cache || o->sysroot || o->reconfigure));
}

/*
 * Why `e` cannot give the whole result, from `states`: the first
 * dependency not the same; NULL when every one is. Owned.
 */
static char *why_not_whole(const lo_cache_entry *e, const unsigned char *states)
{
	char *why = NULL;
	size_t i;

	for (i = 0; i < e->deps.count && states[i] == LO_CACHE_SAME; i++)
		;
	if (i == e->deps.count)
		return NULL;
	if (asprintf(&why, states[i] == LO_CACHE_RACY
				   ? "'%s' changed while the scan that made it ran (racy)"
				   : "'%s' changed", e->deps.deps[i].path) < 0)
		abort();
	return why;
}

/* Keep e's items for the judging: a warm scan in part. */
static void keep_items(scan *s, lo_cache_entry *e, unsigned char *states)
{
	size_t i;

	s->kept = e;
	s->kept_states = states;
	s->kept_at = lo_map_new();
	for (i = 0; i < e->item_count; i++)
		lo_map_put(s->kept_at, e->items[i].abs, (void *)(uintptr_t)(i + 1));
	lo_scan_walk_keep(s);
}

bool lo_scan_cache_warm(scan *s)
{
	lo_cache_entry *e = NULL;
	unsigned char *states = NULL;
	char *why = NULL, *complaint = NULL;
	int err;

	if (!cache_allowed(s) || !(s->cache_file = lo_cache_file(s->roots, s->root_count, false)))
		return false;
	s->cache_key = scan_key(s);
	err = lo_cache_read(&e, s->cache_file);
	if (err == LO_ENOTFOUND)
		why = lo_xstrdup("none kept yet");
	else if (err < 0)
		why = lo_xstrdup(lo_error_last());
	/* one that is there but wrong is worth a note; one we may not read is not ours */
	if (err == LO_EINVALID)
		complaint = lo_xstrdup(why);
	if (e && strcmp(e->key, s->cache_key))
		why = lo_xstrdup("made with other options, rules or environment");
	else if (e && !(why = why_not_whole(e, states = lo_cache_states(e, s->jobs)))) {
		size_t checked = e->deps.count;

		free(states);
		take_result(s, e);
		lo_cache_entry_free(e);
		s->res->cache.used = true;
		s->res->cache.checked = checked;
		return true;
	}
	if (e && states && lo_cache_may_keep_items(e, states)) {
		if (lo_cache_items_read(e) == 0)
			keep_items(s, e, states);
		else
			complaint = lo_xstrdup(lo_error_last());
	}
	if (!s->kept) {
		lo_cache_entry_free(e);
		free(states);
	}
	/* the cold scan's result says why, once it is made */
	s->cache_why = why;
	s->cache_complaint = complaint;
	s->cache_start_ns = now_ns();
	lo_deps_start();
	return false;
}

/* The first of d's uses of slot `slot` (sorted by slot), or use_count. */
static size_t first_use(const lo_deps *d, uint32_t slot)
{
	size_t lo = 0, hi = d->use_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->uses[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does kept item k's verdict stand: it, and each of its own dependencies, the same? */
static bool item_stands(const scan *s, size_t k, const lo_dep *self)
{
	const lo_cache_entry *e = s->kept;
	const lo_cache_item *it = &e->items[k];
	size_t u;

	if (lo_deps_is_tainted(&e->deps, k) || !lo_dep_same(&it->self, self) ||
	    lo_cache_racy(&it->self, e->written_ns))
		return false;
	for (u = first_use(&e->deps, (uint32_t)k); u < e->deps.use_count &&
						    e->deps.uses[u].slot == k; u++) {
		unsigned char st = s->kept_states[e->deps.uses[u].dep];

		if (st != LO_CACHE_SAME && st != LO_CACHE_SAME_DIR)
			return false;
	}
	return true;
}

bool lo_scan_cache_take(scan *s, size_t i)
{
	const char *abs = s->items[i].abs;
	lo_dep self;
	size_t k, u;

	/*
	 * A cold scan's regular file is read by its judging, which notes its
	 * stat: that one is kept for it then (self_of), without an lstat here.
	 */
	if (!s->kept && (!s->cache_self || s->items[i].type == LO_FT_REG))
		return false;
	self = lo_dep_of_link(abs);
	self.path = NULL;
	if (s->cache_self)
		s->cache_self[i] = self;
	if (!s->kept || s->judge_kept)
		return false;
	/* the map is only read while judging; an item's path is its own, taken once */
	if (!(k = (size_t)(uintptr_t)lo_map_get(s->kept_at, abs, NULL)) || !item_stands(s, --k, &self))
		return false;
	s->judged[i] = s->kept->items[k].file;
	memset(&s->kept->items[k].file, 0, sizeof(lo_file));
	s->kept_slot[i] = KEPT;
	atomic_fetch_add(&s->kept_count, 1);
	/* while recording: what the verdict was drawn from, for the next scan */
	for (u = first_use(&s->kept->deps, (uint32_t)k);
	     u < s->kept->deps.use_count && s->kept->deps.uses[u].slot == k; u++)
		lo_deps_note_kept(&s->kept->deps.deps[s->kept->deps.uses[u].dep]);
	return true;
}

/* Is `line` among the hosts' notes (details: their details) now? */
static bool hosts_say(const lo_hosts *hs, const char *line, bool details)
{
	const char *x;
	size_t i;

	for (i = 0; (x = details ? lo_hosts_detail(hs, i) : lo_hosts_note(hs, i)); i++)
		if (!strcmp(x, line))
			return true;
	return false;
}

/*
 * Do the hosts say now all they said when the verdicts were kept? A note
 * arises once, from whichever verdict met it first: the kept verdicts,
 * judged now, would say none the hosts have not said, and each one judged
 * afresh says what a cold scan says.
 */
static bool hosts_said_all_kept(const scan *s)
{
	const lo_scan_result *was = s->kept->res;
	size_t i;

	for (i = 0; i < s->kept->host_note_count; i++)
		if (!hosts_say(s->hosts, s->kept->host_notes[i], false))
			return false;
	for (i = 0; i < was->detail_count; i++)
		if (!hosts_say(s->hosts, was->details[i], true))
			return false;
	return true;
}

/*
 * Mark AGAIN the kept verdicts step `step` judges after all: 1, one of
 * each host (a host's notes arise when a file first needs it: a pyenv
 * shim followed, say) and each that failed to load from none (the search
 * for one that came to nothing is its own note); 2, every one with a host
 * or failed; 3, every one. How many.
 */
static size_t mark_again(scan *s, int step)
{
	lo_map *hosts = lo_map_new();
	size_t i, n = 0;

	for (i = 0; i < s->item_count; i++) {
		const lo_file *f = &s->judged[i];
		char *key = NULL;

		if (s->kept_slot[i] != KEPT || (step < 3 && !f->host && f->loads != LO_FALSE))
			continue;
		if (step == 1 && f->host &&
		    asprintf(&key, "%s\n%s", f->host, f->host_rule ? f->host_rule : "") < 0)
			abort();
		if (key && lo_map_get(hosts, key, NULL)) {
			free(key);
			continue;
		}
		if (key)
			lo_map_put(hosts, key, s);
		free(key);
		lo_file_dispose(&s->judged[i]);
		s->kept_slot[i] = AGAIN;
		n++;
	}
	lo_map_free(hosts, NULL);
	atomic_fetch_sub(&s->kept_count, n);
	return n;
}

/*
 * Item i's own stat for the cache: its lstat taken before it was judged
 * or, for a regular file of a cold scan, the stat its judging read it with
 * (lo_deps_noted): the same file, one lstat fewer per item. A file
 * changed while it was judged is racy either way (cache.h). One the
 * judging did not read is lstatted now.
 */
static lo_dep self_of(const scan *s, size_t i)
{
	lo_dep d = s->cache_self[i];

	if (d.absent || d.mode)
		return d;
	if (!lo_deps_noted(s->items[i].abs, &d) || !S_ISREG(d.mode))
		d = lo_dep_of_link(s->items[i].abs);
	d.path = NULL;
	return d;
}

bool lo_scan_cache_judged(scan *s)
{
	size_t i;

	for (i = 0; s->judge_kept && i < s->item_count; i++)
		if (s->kept_slot[i] == AGAIN)
			s->kept_slot[i] = 0;
	if (s->kept && atomic_load(&s->kept_count)) {
		lo_hosts_settle(s->hosts);
		while (s->judge_kept < 3 && !hosts_said_all_kept(s))
			if (mark_again(s, ++s->judge_kept))
				return true;
	}
	for (i = 0; s->cache_self && i < s->item_count; i++) {
		lo_dep self = self_of(s, i);

		lo_cache_put_item(&s->cache_items, s->items[i].abs, &self,
				  s->judged[i].path ? &s->judged[i] : NULL);
	}
	return false;
}

void lo_scan_cache_free(scan *s)
{
	lo_cache_entry_free(s->kept);
	free(s->kept_states);
	lo_map_free(s->kept_at, NULL);
	lo_map_free(s->walk_at, NULL);
	free(s->kept_slot);
	free(s->cache_self);
	lo_buf_dispose(&s->cache_items);
	free(s->cache_file);
	free(s->cache_key);
	free(s->cache_why);
	free(s->cache_complaint);
}

/* res's notes without the origins' (made again by every scan), borrowed; *at per root. */
static char **notes_kept(const scan *s, size_t *count, lo_cache_root *roots)
{
	char **v = lo_xcalloc(s->res->note_count ? s->res->note_count : 1, sizeof(char *));
	size_t i, r, n = 0;

	for (i = 0; i < s->res->note_count; i++) {
		bool origin = false;

		for (r = 0; r < s->root_count; r++) {
			if (i == s->origin_note_at[r])
				roots[r].origin_note_at = n;
			origin |= i >= s->origin_note_at[r] &&
				  i < s->origin_note_at[r] + s->origin_notes[r];
		}
		if (!origin)
			v[n++] = s->res->notes[i];
	}
	for (r = 0; r < s->root_count; r++)
		if (s->origin_note_at[r] >= s->res->note_count)
			roots[r].origin_note_at = n;
	*count = n;
	return v;
}

/* The hosts' notes (borrowed), which a warm scan in part must meet again. */
static char **host_notes(const scan *s, size_t *count)
{
	char **v = NULL;
	size_t cap = 0;

	for (*count = 0; lo_hosts_note(s->hosts, *count); (*count)++) {
		lo_array_grow(&v, &cap, *count + 1, sizeof(char *));
		v[*count] = (char *)lo_hosts_note(s->hosts, *count);
	}
	return v;
}

/* Write what the cold scan recorded, with its result and its items. */
static void keep(scan *s, lo_deps *deps)
{
	lo_scan_result copy = *s->res;
	lo_cache_entry e = { .key = s->cache_key, .written_ns = s->cache_start_ns, .deps = *deps,
			     .res = &copy, .item_count = s->item_count,
			     .item_bytes = s->cache_items };
	char *file = lo_cache_file(s->roots, s->root_count, true);
	size_t r;

	e.host_notes = host_notes(s, &e.host_note_count);
	e.listings = lo_scan_walk_listings(s, deps, &e.listing_count);
	e.roots = lo_xcalloc(s->root_count, sizeof(lo_cache_root));
	copy.notes = notes_kept(s, &copy.note_count, e.roots);
	for (r = 0; r < s->root_count; r++) {
		e.roots[r].top = (char *)s->tops[r];
		e.roots[r].build_dir = s->build_dirs[r];
		e.roots[r].oldest = s->oldest[r];
	}
	/* where it cannot be kept, the scan goes on without it, as without its state record */
	if (file && lo_cache_write(file, &e) < 0) {
		free(s->res->cache.why);
		s->res->cache.why = lo_xstrdup(lo_error_last());
	}
	s->res->cache.checked = deps->count;
	free(copy.notes);
	free(e.roots);
	free(e.host_notes);
	lo_cache_listings_free(e.listings, e.listing_count);
	free(file);
}

/*
 * A warm scan in part noted again what the scan as a whole read last time
 * (all the same): a part of it is read only by the judging of the verdicts
 * that needed it (ld.so.cache, a host), which may all have been kept.
 */
static void note_kept_shared(const scan *s)
{
	size_t i;

	for (i = 0; s->kept && i < s->kept->deps.count; i++)
		if (s->kept->deps.deps[i].use & LO_DEP_SHARED)
			lo_deps_note_kept(&s->kept->deps.deps[i]);
}

void lo_scan_cache_keep(scan *s)
{
	lo_deps *deps;
	char *exe;

	if (s->kept) {
		s->res->cache.partial = true;
		s->res->cache.kept = atomic_load(&s->kept_count);
		s->res->cache.judged = s->item_count - s->res->cache.kept;
		s->res->cache.listed_kept = atomic_load(&s->walk_kept);
	}
	if (!lo_deps_recording())
		return;
	/*
	 * The program judging is a dependency too: a new leftover may judge
	 * otherwise. A build that cannot find its own path (os.h) keeps no cache.
	 */
	if (!(exe = lo_os_self_exe())) {
		lo_deps_free(lo_deps_take());
		return;
	}
	lo_deps_note_path(exe);
	free(exe);
	note_kept_shared(s);
	deps = lo_deps_take();
	s->res->cache.why = s->cache_why;
	s->res->cache.complaint = s->cache_complaint;
	s->cache_why = s->cache_complaint = NULL;
	keep(s, deps);
	lo_deps_free(deps);
}
