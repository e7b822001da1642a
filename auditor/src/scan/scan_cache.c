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
 * variables pick its version). The files are dependencies (deps.h).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/clean.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "scan/scan_int.h"

#ifndef LEFTOVER_VERSION
#define LEFTOVER_VERSION "unknown"
#endif

/* The environment variables a verdict can depend on (hosts/, rules/). */
static const char *const key_env[] = { "PATH", "HOME", "PWD", "PYENV_VERSION", "PYENV_DIR",
				       "PYENV_ROOT", "XDG_CONFIG_HOME", "LEFTOVER_RULES_DIR" };

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

bool lo_scan_cache_warm(scan *s)
{
	lo_cache_entry *e = NULL;
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
	if (e && lo_cache_check(e, s->cache_key, s->jobs, &why)) {
		size_t checked = e->deps.count;

		take_result(s, e);
		lo_cache_entry_free(e);
		s->res->cache.used = true;
		s->res->cache.checked = checked;
		return true;
	}
	lo_cache_entry_free(e);
	/* the cold scan's result says why, once it is made */
	s->cache_why = why;
	s->cache_complaint = complaint;
	s->cache_start_ns = now_ns();
	lo_deps_start();
	return false;
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

/* Write what the cold scan recorded, with its result. */
static void keep(scan *s, lo_deps *deps)
{
	lo_scan_result copy = *s->res;
	lo_cache_entry e = { s->cache_key, s->cache_start_ns, *deps, &copy, NULL };
	char *file = lo_cache_file(s->roots, s->root_count, true);
	size_t r;

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
	free(file);
}

void lo_scan_cache_keep(scan *s)
{
	lo_deps *deps;
	char *exe;

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
	deps = lo_deps_take();
	s->res->cache.why = s->cache_why;
	s->res->cache.complaint = s->cache_complaint;
	s->cache_why = s->cache_complaint = NULL;
	keep(s, deps);
	lo_deps_free(deps);
}
