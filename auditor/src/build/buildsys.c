/*
 * buildsys.c - the build system's own records of what it produces (see
 * buildsys.h): the model, the trees in it, and the rule that judges.
 *
 * THE RULE OF THIS MODULE. A file is an orphan only when every record that
 * could produce it was read completely, and none does: every manifest of
 * every configuration (Ninja Multi-Config's build-<Config>.ninja as well as
 * build.ninja), every include and subninja they name, the live targets of
 * a Makefiles tree, and every build tree whose directory holds the file
 * (an ExternalProject sub-build inside a super-build, each judged first by
 * its own records). A reader that cannot vouch for having read all of its
 * record (missing, cut short, from a newer tool, naming paths outside the
 * tree, a configuration without its manifest) says so with
 * lo_bs_incomplete; the judge then answers "no evidence" (orphan -1) with
 * that reason, never "orphan". Calling a live output stale is the one
 * mistake a cleanup tool must not make; a missed orphan costs a rerun.
 *
 * Evidence is kept apart from inference. A file is "still produced" when
 * any tree holding it names it in its current configuration: a File API
 * artifact, an output of a current Ninja manifest, a path in a live
 * target's clean list, an output of the configure step. It is an orphan
 * only when the nearest tree recorded building it in the past (the Ninja
 * log, or a clean list of a target no longer live) and nothing current
 * produces it. Everything else is unknown, never guessed from names: what
 * the tree and git suggest (buildsys_tree.c) makes a file "suspected", its
 * orphan still unknown. The
 * one use of times: a Ninja log line is evidence only about the file ninja
 * built, so a file there whose mtime lies outside that run was written by
 * something else and stays unknown.
 *
 * The readers live apart: buildsys_fileapi.c (CMakeCache.txt, the File
 * API), buildsys_ninja.c (manifests and .ninja_log, without running
 * ninja), buildsys_make.c (Unix Makefiles' clean lists), buildsys_meson.c
 * (meson-info/, and meson's log of its Python). Paths are kept
 * relative to a tree's dir, normalised (no "." or "..").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/deps.h"
#include "leftover/map.h"
#include "leftover/os.h"
#include "leftover/walk.h"

static void add_note(lo_buildsys *bs, const lo_bs_tree *t, const char *fmt, va_list ap)
{
	char *s, *line;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	if (t && *t->prefix) {
		if (asprintf(&line, "%s: %s", t->dir, s) < 0)
			abort();
		free(s);
		s = line;
	}
	lo_array_grow(&bs->notes, &bs->note_cap, bs->note_count + 1, sizeof(char *));
	bs->notes[bs->note_count++] = s;
}

void lo_bs_note(lo_buildsys *bs, const lo_bs_tree *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(bs, t, fmt, ap);
	va_end(ap);
}

void lo_bs_incomplete(lo_buildsys *bs, lo_bs_tree *t, lo_bs_source src, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!t->missing[src] && vasprintf(&t->missing[src], fmt, ap) < 0)
		abort();
	va_end(ap);
	va_start(ap, fmt);
	add_note(bs, t, fmt, ap);
	va_end(ap);
}

char *lo_bs_normalise(const lo_bs_tree *t, const char *base, const char *path)
{
	lo_buf in = LO_BUF_INIT, out = LO_BUF_INIT;
	size_t dlen = strlen(t->dir);
	const char *p;
	char *copy, *tok, *save = NULL;

	if (lo_os_path_is_absolute(path)) {
		if (strncmp(path, t->dir, dlen) || (path[dlen] != '/' && path[dlen]))
			return NULL;
		lo_buf_puts(&in, path + dlen);
	} else {
		if (base && *base)
			lo_buf_printf(&in, "%s/", base);
		lo_buf_puts(&in, path);
	}
	copy = lo_buf_detach(&in);
	lo_buf_puts(&out, "");
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!out.len) { /* above the build dir */
				free(copy);
				lo_buf_dispose(&out);
				return NULL;
			}
			/* from the end: strrchr scanned from the start, quadratic in ".." */
			p = lo_memrchr(out.ptr, '/', out.len);
			out.len = p ? (size_t)(p - out.ptr) : 0;
			out.ptr[out.len] = '\0';
			continue;
		}
		if (out.len)
			lo_buf_putc(&out, '/');
		lo_buf_puts(&out, tok);
	}
	free(copy);
	return lo_buf_detach(&out);
}

const char *lo_bs_label(lo_bs_tree *t, const char *name)
{
	char *l = lo_map_get(t->labels, name, NULL);

	if (!l)
		lo_map_put(t->labels, name, l = lo_xstrdup(name));
	return l;
}

bool lo_bs_mark_produced(lo_bs_tree *t, const char *base, const char *path, const char *by)
{
	char *rel = lo_bs_normalise(t, base, path);

	if (!rel)
		return false;
	if (!lo_map_get(t->produced, rel, NULL))
		lo_map_put(t->produced, rel, (void *)by);
	free(rel);
	return true;
}

/*
 * The first clean list naming a path keeps it; in the Ninja log a later
 * line is a later build of the same output, so it replaces the earlier one.
 */
bool lo_bs_mark_past(lo_bs_tree *t, const char *base, const char *path, lo_orphan_evidence ev,
		     long long when, long long span, long long slack, const char *by)
{
	char *rel = lo_bs_normalise(t, base, path);
	lo_bs_record *r;

	if (!rel)
		return false;
	if (!(r = lo_map_get(t->past, rel, NULL))) {
		r = lo_xcalloc(1, sizeof(*r));
		r->evidence = ev;
		r->by = by ? lo_xstrdup(by) : NULL;
		lo_map_put(t->past, rel, r);
	} else if (r->evidence != LO_EVIDENCE_NINJA_LOG || ev != LO_EVIDENCE_NINJA_LOG) {
		free(rel);
		return true;
	}
	r->when = when;
	r->span = span;
	r->slack = slack;
	free(rel);
	return true;
}

/*
 * A FIFO in a record's place (a hostile or half-made tree) would block the
 * open for good, a device like /dev/zero would never end: the open does
 * not block (O_NONBLOCK changes nothing for a regular file's reads) and
 * anything else is refused with EINVAL, as if the record were missing.
 */
FILE *lo_bs_open_record(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		lo_deps_note_stat(path, NULL); /* every record read, or missing: deps.h */
		return NULL;
	}
	if (fstat(fd, &st) < 0 || (lo_deps_note_stat(path, &st), !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (!(f = fdopen(fd, "r")))
		close(fd);
	return f;
}

/* ---- the trees under the base ---------------------------------------------- */

/*
 * A build tree's marker: CMakeCache.txt, autotools' config.status, the
 * .rustc_info.json cargo writes in its target dir, or the .ninja_log that
 * ninja writes where it ran. Not build.ninja alone: a hand-written tree may
 * subninja a sub/build.ninja, which is part of its tree, not one of its own.
 */
static const char *const markers[] = { "CMakeCache.txt", "config.status", ".rustc_info.json",
				       ".ninja_log" };

static bool is_marker(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (!strcmp(name, markers[i]))
			return true;
	return false;
}

/* Does `dir` hold `name`? */
static bool dir_has(const char *dir, const char *name)
{
	lo_buf p = LO_BUF_INIT;
	bool yes;

	lo_buf_printf(&p, "%s/%s", dir, name);
	yes = access(lo_buf_cstr(&p), F_OK) == 0;
	lo_buf_dispose(&p);
	return yes;
}

/* Does `dir` hold a build tree's marker? */
static bool is_build_dir(const char *dir)
{
	size_t i;

	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (dir_has(dir, markers[i]))
			return true;
	return false;
}

char *lo_buildsys_base_of(const char *dir)
{
	char *d = lo_xstrdup(dir), *slash;

	for (;;) {
		if (is_build_dir(d))
			return d;
		if (!(slash = lo_os_path_last_separator(d)) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return lo_xstrdup(dir);
}

bool lo_buildsys_is_tree(const char *dir)
{
	return is_build_dir(dir);
}

/* ---- what a walk of the scanned dir kept ------------------------------------ */

typedef struct kept {
	char *rel; /* relative to the walked dir; owned */
	unsigned char type;
} kept;

typedef struct kept_list {
	kept *v;
	size_t count, cap;
} kept_list;

struct lo_buildsys_finds {
	kept_list *lists; /* one per worker of the walk */
	unsigned workers;
};

lo_buildsys_finds *lo_buildsys_finds_new(unsigned workers)
{
	lo_buildsys_finds *f = lo_xcalloc(1, sizeof(*f));

	f->workers = workers ? workers : 1;
	f->lists = lo_xcalloc(f->workers, sizeof(kept_list));
	return f;
}

bool lo_buildsys_finds_add(lo_buildsys_finds *f, const lo_walk_entry *e)
{
	kept_list *l;

	if (e->err || !(is_marker(e->name) || !strcmp(e->name, "cmake_clean.cmake") ||
			lo_bs_tree_wants(e->name, e->type)))
		return false;
	l = &f->lists[e->worker];
	lo_array_grow(&l->v, &l->cap, l->count + 1, sizeof(kept));
	l->v[l->count].rel = lo_xstrdup(e->relpath);
	l->v[l->count++].type = e->type;
	return true;
}

void lo_buildsys_finds_free(lo_buildsys_finds *f)
{
	unsigned w;
	size_t i;

	if (!f)
		return;
	for (w = 0; w < f->workers; w++) {
		for (i = 0; i < f->lists[w].count; i++)
			free(f->lists[w].v[i].rel);
		free(f->lists[w].v);
	}
	free(f->lists);
	free(f);
}

static int keep_entry(const lo_walk_entry *e, void *payload)
{
	lo_buildsys_finds_add(payload, e);
	return 0;
}

static int cmp_kept(const void *a, const void *b)
{
	return strcmp((*(const kept *const *)a)->rel, (*(const kept *const *)b)->rel);
}

typedef struct found {
	char **dirs; /* relpaths (to base) of directories holding a tree's marker */
	size_t count, cap;
	lo_buildsys *bs;
} found;

static void add_dir(found *f, const char *prefix, size_t len)
{
	lo_array_grow(&f->dirs, &f->cap, f->count + 1, sizeof(char *));
	f->dirs[f->count++] = lo_xstrndup(prefix, len); /* "" or "sub/" */
}

static void note_kept(found *f, const kept *k)
{
	lo_buildsys *bs = f->bs;
	const char *name = lo_os_path_last_separator(k->rel);
	char *rel = NULL;

	name = name ? name + 1 : k->rel;
	if (asprintf(&rel, "%s%s", bs->below, k->rel) < 0)
		abort();
	lo_bs_tree_entry(bs, rel, name, k->type);
	if (!strcmp(name, "cmake_clean.cmake")) {
		lo_array_grow(&bs->clean_lists, &bs->clean_cap, bs->clean_count + 1, sizeof(char *));
		bs->clean_lists[bs->clean_count++] = rel;
		rel = NULL;
	} else if (is_marker(name)) {
		add_dir(f, rel, strlen(rel) - strlen(name));
	}
	free(rel);
}

/* What the walk kept, in path order whichever threads found it. */
static void note_finds(found *f, const lo_buildsys_finds *finds)
{
	const kept **all;
	size_t n = 0, i;
	unsigned w;

	for (w = 0; w < finds->workers; w++)
		n += finds->lists[w].count;
	all = lo_xcalloc(n ? n : 1, sizeof(*all));
	for (w = 0, n = 0; w < finds->workers; w++)
		for (i = 0; i < finds->lists[w].count; i++)
			all[n++] = &finds->lists[w].v[i];
	if (n)
		qsort(all, n, sizeof(*all), cmp_kept);
	for (i = 0; i < n; i++)
		note_kept(f, all[i]);
	free(all);
}

static lo_bs_tree *tree_new(const char *base, const char *prefix)
{
	lo_bs_tree *t = lo_xcalloc(1, sizeof(*t));
	size_t plen = strlen(prefix);

	/* prefix is "" or "sub/dir/": the dir has no trailing slash */
	if (asprintf(&t->dir, "%s%s%.*s", base, plen ? "/" : "", (int)(plen ? plen - 1 : 0),
		     prefix) < 0)
		abort();
	t->prefix = lo_xstrdup(prefix);
	t->produced = lo_map_new();
	t->past = lo_map_new();
	t->live_dirs = lo_map_new();
	t->loaded_by = lo_map_new();
	t->labels = lo_map_new();
	t->cmake = dir_has(t->dir, "CMakeCache.txt");
	t->meson = lo_bs_is_meson_dir(t->dir);
	t->generator = t->cmake ? lo_buildsys_cache_value(t->dir, "CMAKE_GENERATOR") : NULL;
	if (!t->generator)
		t->generator = lo_xstrdup(t->cmake ? "unknown"
					  : dir_has(t->dir, "config.status") ? "autotools"
					  : dir_has(t->dir, ".rustc_info.json") ? "cargo"
					  : dir_has(t->dir, ".ninja_log") ? "Ninja" : "make");
	return t;
}

void lo_bs_free_record(void *v)
{
	lo_bs_record *r = v;

	if (r)
		free(r->by);
	free(r);
}

static void tree_free(lo_bs_tree *t)
{
	size_t i;

	if (!t)
		return;
	lo_map_free(t->produced, NULL);
	lo_map_free(t->past, lo_bs_free_record);
	lo_map_free(t->live_dirs, NULL);
	lo_map_free(t->loaded_by, free);
	lo_map_free(t->labels, free);
	for (i = 0; i < LO_BS_SOURCES; i++)
		free(t->missing[i]);
	free(t->generator);
	free(t->prefix);
	free(t->dir);
	free(t);
}

/* Read one tree's records, by what its generator keeps, and say which decide. */
static void read_tree(lo_buildsys *bs, lo_bs_tree *t, unsigned flags)
{
	if (!strcmp(t->generator, "make"))
		return; /* a hand-written Makefile keeps no record of what it built */
	if (!strcmp(t->generator, "autotools")) {
		lo_bs_read_libtool(bs, t); /* says which records decide, when there are some */
		return;
	}
	if (!strcmp(t->generator, "cargo")) {
		lo_bs_read_cargo(bs, t);
		t->records = "the workspace's Cargo.toml members and the dep-info (.d) files";
		return;
	}
	if (t->cmake)
		lo_bs_read_file_api(bs, t, flags);
	if (t->meson)
		lo_bs_read_meson(bs, t);
	if (strstr(t->generator, "Ninja")) {
		lo_bs_read_ninja(bs, t);
		t->records = t->have_codemodel ? "the File API codemodel, the ninja manifests and .ninja_log"
			     : t->meson	       ? "meson-info, the ninja manifests and .ninja_log"
					       : "the ninja manifests and .ninja_log";
	} else if (strstr(t->generator, "Makefiles")) {
		lo_bs_read_make(bs, t);
		t->records = t->have_codemodel ? "the File API codemodel and the cmake_clean.cmake lists"
					       : "the cmake_clean.cmake lists and live target lists";
	} else {
		/* Xcode, Visual Studio, ...: no reader; a record of theirs proves nothing */
		lo_bs_incomplete(bs, t, LO_BS_NINJA, "the records of the %s generator are not read",
				 t->generator);
		lo_bs_incomplete(bs, t, LO_BS_MAKE, "the records of the %s generator are not read",
				 t->generator);
	}
}

/* Orphans still on disk, for the scan to list: only recorded paths are looked at. */
typedef struct collect {
	lo_buildsys *bs;
	const lo_bs_tree *t;
} collect;

static void collect_orphan(const char *relpath, void *value, void *payload)
{
	collect *c = payload;
	lo_buildsys *bs = c->bs;
	lo_orphan_verdict v;
	char *rel = NULL, *abs = NULL;
	struct stat st;

	(void)value;
	if (asprintf(&rel, "%s%s", c->t->prefix, relpath) < 0)
		abort();
	lo_buildsys_judge(bs, rel, &v);
	if (v.orphan == 1 && asprintf(&abs, "%s/%s", bs->base, rel) >= 0 && lstat(abs, &st) == 0 &&
	    !S_ISDIR(st.st_mode)) {
		lo_array_grow(&bs->orphans, &bs->orphan_cap, bs->orphan_count + 1, sizeof(char *));
		bs->orphans[bs->orphan_count++] = rel;
		rel = NULL;
	}
	free(abs);
	free(rel);
}

/*
 * A Makefile written by hand: one that no generator (automake, CMake,
 * configure) marked as its own in its first lines. Such a tree is judged
 * for loading only, and the report says its staleness was not.
 */
static bool is_hand_makefile_dir(const char *dir)
{
	static const char *const names[] = { "GNUmakefile", "makefile", "Makefile" };
	char head[512];
	lo_buf p = LO_BUF_INIT;
	size_t i, n = 0;
	FILE *f = NULL;

	for (i = 0; !f && i < sizeof(names) / sizeof(names[0]); i++) {
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/%s", dir, names[i]);
		f = lo_bs_open_record(lo_buf_cstr(&p));
	}
	lo_buf_dispose(&p);
	if (!f)
		return false;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	return !strstr(head, "generated by automake") && !strstr(head, "Generated from") &&
	       !strstr(head, "CMake generated file");
}

/*
 * The trees: those the walk of the scanned dir found in and under it, and
 * those holding it, from the base down (a scan of build/lib is judged by
 * build/'s records). Sorted, so the base's own comes first.
 */
static void find_trees(lo_buildsys *bs, const char *dir, const lo_buildsys_finds *finds)
{
	found f = { NULL, 0, 0, bs };
	lo_buildsys_finds *own = NULL;
	size_t i, len = strlen(bs->below);
	char *at = NULL;

	if (!finds) {
		own = lo_buildsys_finds_new(1);
		lo_walk_tree(dir, 1, keep_entry, own);
		finds = own;
	}
	note_finds(&f, finds);
	lo_buildsys_finds_free(own);
	for (i = 0; i < len; i++) {
		if (i && bs->below[i - 1] != '/')
			continue;
		if (asprintf(&at, "%s/%.*s", bs->base, (int)i, bs->below) < 0)
			abort();
		if (is_build_dir(at))
			add_dir(&f, bs->below, i);
		free(at);
	}
	/* no tree at the base, but a hand-written Makefile there: a tree that keeps no records */
	if (!is_build_dir(bs->base) && is_hand_makefile_dir(bs->base))
		add_dir(&f, "", 0);
	lo_strv_sort(f.dirs, f.count);
	for (i = 0; i < f.count; i++) {
		if (!i || strcmp(f.dirs[i], f.dirs[i - 1])) {
			lo_array_grow(&bs->trees, &bs->tree_cap, bs->tree_count + 1, sizeof(lo_bs_tree *));
			bs->trees[bs->tree_count++] = tree_new(bs->base, f.dirs[i]);
		}
	}
	for (i = 0; i < f.count; i++)
		free(f.dirs[i]);
	free(f.dirs);
}

int lo_buildsys_open(lo_buildsys **out, const char *dir, const lo_buildsys_finds *finds,
		     lo_git *git, unsigned flags)
{
	lo_buildsys *bs;
	char *real;
	size_t i, blen;

	*out = NULL;
	if (!(real = realpath(dir, NULL)))
		return 0;
	bs = lo_xcalloc(1, sizeof(*bs));
	bs->base = lo_buildsys_base_of(real);
	blen = strlen(bs->base);
	/* the scanned dir below the base: "" or "sub/dir/" */
	if (asprintf(&bs->below, "%s%s", real[blen] ? real + blen + 1 : "", real[blen] ? "/" : "") < 0)
		abort();
	bs->evidence = lo_map_new();
	bs->superseded = lo_map_new();
	find_trees(bs, real, finds);
	free(real);
	for (i = 0; i < bs->tree_count; i++)
		read_tree(bs, bs->trees[i], flags);
	lo_bs_read_tree_evidence(bs, git);
	if (!bs->tree_count && !lo_map_count(bs->evidence)) {
		lo_buildsys_free(bs);
		return 0;
	}
	for (i = 0; i < bs->tree_count; i++) {
		collect c = { bs, bs->trees[i] };

		lo_map_foreach(bs->trees[i]->past, collect_orphan, &c);
	}
	lo_strv_sort(bs->orphans, bs->orphan_count);
	*out = bs;
	return 0;
}

void lo_buildsys_free(lo_buildsys *bs)
{
	size_t i;

	if (!bs)
		return;
	for (i = 0; i < bs->tree_count; i++)
		tree_free(bs->trees[i]);
	free(bs->trees);
	lo_strv_free(bs->clean_lists, bs->clean_count);
	lo_strv_free(bs->notes, bs->note_count);
	lo_strv_free(bs->orphans, bs->orphan_count);
	lo_map_free(bs->evidence, lo_bs_free_record);
	lo_map_free(bs->superseded, free);
	free(bs->below);
	free(bs->base);
	free(bs);
}

const char *lo_buildsys_base(const lo_buildsys *bs)
{
	return bs->base;
}

bool lo_buildsys_withheld(const lo_buildsys *bs)
{
	return bs->withheld;
}

const char *lo_buildsys_generator(const lo_buildsys *bs)
{
	return bs->tree_count && !*bs->trees[0]->prefix ? bs->trees[0]->generator : "none";
}

size_t lo_buildsys_tree_count(const lo_buildsys *bs)
{
	return bs->tree_count;
}

const char *lo_buildsys_tree_dir(const lo_buildsys *bs, size_t i)
{
	return i < bs->tree_count ? bs->trees[i]->dir : NULL;
}

const char *lo_buildsys_tree_system(const lo_buildsys *bs, size_t i)
{
	return i < bs->tree_count ? bs->trees[i]->generator : NULL;
}

const char *lo_buildsys_tree_records(const lo_buildsys *bs, size_t i)
{
	return i < bs->tree_count ? bs->trees[i]->records : NULL;
}

bool lo_buildsys_tree_withheld(const lo_buildsys *bs, size_t i)
{
	return i < bs->tree_count && bs->trees[i]->withheld;
}

const char *lo_buildsys_note(const lo_buildsys *bs, size_t i)
{
	return i < bs->note_count ? bs->notes[i] : NULL;
}

const char *lo_orphan_evidence_str(lo_orphan_evidence e)
{
	switch (e) {
	case LO_EVIDENCE_NINJA_LOG: return "ninja-log";
	case LO_EVIDENCE_CMAKE_CLEAN_LIST: return "cmake-clean-list";
	case LO_EVIDENCE_LIBTOOL_ARCHIVE: return "libtool-archive";
	case LO_EVIDENCE_CARGO_DEP_INFO: return "cargo-dep-info";
	case LO_EVIDENCE_SUPERSEDED_LIBRARY: return "superseded-library";
	case LO_EVIDENCE_SOURCE_DELETED: return "source-deleted";
	case LO_EVIDENCE_NONE: break;
	}
	return "none";
}

/* ---- the judge ----------------------------------------------------------------- */

static bool covers(const lo_bs_tree *t, const char *relpath)
{
	return !strncmp(relpath, t->prefix, strlen(t->prefix));
}

const lo_bs_tree *lo_bs_tree_of(const lo_buildsys *bs, const char *relpath)
{
	const lo_bs_tree *best = NULL;
	size_t i;

	for (i = 0; i < bs->tree_count; i++)
		if (covers(bs->trees[i], relpath) &&
		    (!best || strlen(bs->trees[i]->prefix) > strlen(best->prefix)))
			best = bs->trees[i];
	return best;
}

/*
 * The log speaks of the file ninja built, not of whatever is at that path
 * now. Ninja records the output's mtime (1.11) or the command's start
 * (later versions), so the file it built has an mtime within the command's
 * run of it. One outside was written since by something else (a
 * configure_file or file(COPY) that took the path over, the user).
 */
static bool rewritten_since(const lo_bs_tree *t, const char *rel, const lo_bs_record *r)
{
	char *abs = NULL;
	struct stat st;
	bool since = false;
	long long m;

	if (r->evidence != LO_EVIDENCE_NINJA_LOG || r->when <= 0)
		return false;
	if (asprintf(&abs, "%s/%s", t->dir, rel) < 0)
		abort();
	if (lstat(abs, &st) == 0) {
		m = lo_bs_mtime_ns(&st);
		since = m < r->when - r->span - r->slack || m > r->when + r->span + r->slack;
	}
	free(abs);
	return since;
}

static void orphan_detail(const lo_bs_tree *t, const lo_bs_record *r, lo_orphan_verdict *v)
{
	if (r->evidence == LO_EVIDENCE_NINJA_LOG) {
		time_t when = (time_t)(r->when / 1000000000LL);
		struct tm tm;
		char at[64] = "at an unknown time";

		if (when > 0 && gmtime_r(&when, &tm))
			strftime(at, sizeof(at), "%Y-%m-%d %H:%M UTC", &tm);
		snprintf(v->detail, sizeof(v->detail),
			 "built %s (.ninja_log), not an output of the current build.ninja%s", at,
			 *t->prefix ? " of its nested build tree" : "");
	} else if (r->evidence != LO_EVIDENCE_CMAKE_CLEAN_LIST) {
		snprintf(v->detail, sizeof(v->detail), "%s", r->by); /* the reader's own sentence */
	} else {
		snprintf(v->detail, sizeof(v->detail),
			 "listed by %s/cmake_clean.cmake, a target the current configuration no "
			 "longer has (live targets from %s)", r->by, t->live_from);
	}
}

char *lo_buildsys_loaded_by(const lo_buildsys *bs, const char *relpath)
{
	const lo_bs_tree *t = lo_bs_tree_of(bs, relpath);
	const char *exe = t ? lo_map_get(t->loaded_by, relpath + strlen(t->prefix), NULL) : NULL;
	char *out = NULL;

	if (exe && asprintf(&out, "%s%s", t->prefix, exe) < 0)
		abort();
	return out;
}

void lo_buildsys_judge(const lo_buildsys *bs, const char *relpath, lo_orphan_verdict *v)
{
	const lo_bs_tree *t = lo_bs_tree_of(bs, relpath), *o;
	const lo_bs_record *r;
	const char *rel, *missing;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->orphan = -1;
	if (!t)
		goto tree_evidence;
	/* produced by any tree holding it: an outer build may write into a nested one */
	for (i = 0; i < bs->tree_count; i++) {
		const char *by;

		o = bs->trees[i];
		if (covers(o, relpath) && (by = lo_map_get(o->produced, relpath + strlen(o->prefix), NULL))) {
			v->orphan = 0;
			snprintf(v->detail, sizeof(v->detail), "named by %s%s%s", by,
				 *o->prefix ? " of " : "", *o->prefix ? o->dir : "");
			return;
		}
	}
	rel = relpath + strlen(t->prefix);
	if (!(r = lo_map_get(t->past, rel, NULL))) {
		/* nothing recorded it: say so when a record that might have was not read */
		missing = t->missing[LO_BS_NINJA] ? t->missing[LO_BS_NINJA] : t->missing[LO_BS_MAKE];
		if (missing)
			snprintf(v->detail, sizeof(v->detail), "no record of building it read; %s",
				 missing);
		else if (strstr(t->generator, "Makefiles")) /* buildsys_make.c: none is kept */
			snprintf(v->detail, sizeof(v->detail), "no record names it: a Unix Makefiles "
				 "tree keeps none of what a live target no longer makes (an OUTPUT_NAME "
				 "rename, a SOVERSION bump)");
		goto tree_evidence;
	}
	/* the rule: every record that could produce it read whole, its own tree's and outer ones' */
	missing = t->missing[r->evidence == LO_EVIDENCE_NINJA_LOG ? LO_BS_NINJA : LO_BS_MAKE];
	for (i = 0; !missing && i < bs->tree_count; i++) {
		o = bs->trees[i];
		if (o != t && covers(o, relpath))
			missing = o->missing[LO_BS_NINJA] ? o->missing[LO_BS_NINJA]
							  : o->missing[LO_BS_MAKE];
	}
	if (missing) {
		snprintf(v->detail, sizeof(v->detail), "recorded as built (%s), but %s",
			 r->evidence == LO_EVIDENCE_NINJA_LOG        ? ".ninja_log"
			 : r->evidence == LO_EVIDENCE_CMAKE_CLEAN_LIST ? "a clean list"
								       : lo_orphan_evidence_str(r->evidence),
			 missing);
		return;
	}
	if (rewritten_since(t, rel, r)) {
		snprintf(v->detail, sizeof(v->detail), "in .ninja_log, but rewritten since ninja built it");
		return;
	}
	v->orphan = 1;
	v->evidence = r->evidence;
	orphan_detail(t, r, v);
	return;
tree_evidence:
	/* no build record of it: the tree and git may suggest (buildsys_tree.c), never prove */
	if ((r = lo_map_get(bs->evidence, relpath, NULL))) {
		v->suspected = true;
		v->evidence = r->evidence;
		snprintf(v->detail, sizeof(v->detail), "%s", r->by);
	}
}

const char *lo_buildsys_superseded(const lo_buildsys *bs, const char *needed)
{
	return lo_map_get(bs->superseded, needed, NULL);
}

size_t lo_buildsys_orphan_count(const lo_buildsys *bs)
{
	return bs->orphan_count;
}

const char *lo_buildsys_orphan_at(const lo_buildsys *bs, size_t i)
{
	return i < bs->orphan_count ? bs->orphans[i] : NULL;
}

bool lo_buildsys_is_bookkeeping(const char *relpath)
{
	const char *slash = lo_os_path_last_separator(relpath), *base = slash ? slash + 1 : relpath;
	size_t n = strlen(base);

	/* a DLL's companions, any case as Windows names go: objects, import libraries, export
	   files, debug and incremental-link databases */
	static const char *const windows[] = { ".obj", ".lib", ".exp", ".pdb", ".ilk" };
	size_t i;

	for (i = 0; i < sizeof(windows) / sizeof(*windows); i++)
		if (n > 4 && !strcasecmp(base + n - 4, windows[i]))
			return true;
	return !strncmp(relpath, "CMakeFiles/", 11) || strstr(relpath, "/CMakeFiles/") ||
	       !strncmp(base, ".ninja_", 7) || !strcmp(base, "CMakeCache.txt") ||
	       (n > 2 && !strcmp(base + n - 2, ".o")) || (n > 2 && !strcmp(base + n - 2, ".d"));
}
