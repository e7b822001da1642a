/*
 * buildsys_cargo.c - what a cargo build records (see buildsys.c for the
 * rule the judge applies). Read, never run: cargo is not called.
 *
 * The tree is cargo's target dir (it holds .rustc_info.json); the
 * workspace is the dir above it. Each profile dir (target/debug,
 * target/release, target/<triple>/debug: a dir holding .fingerprint/)
 * keeps, for every crate built, dep-info files in Makefile syntax
 * ("output: sources"): <profile>/lib<name>.d for the files cargo copies up
 * (libX.so), <profile>/deps/<name>[-<hash>].d for what rustc wrote in
 * deps/ (libX.so or libX-<hash>.so, the .rlib, ...).
 *
 * Produced: the outputs of a crate that is the [lib] of a current member
 * (the workspace's Cargo.toml members, globs expanded, exclude removed, the
 * root package too), a shared object only when its crate-type makes one
 * (cdylib, dylib). Past: the outputs of a crate none of whose sources
 * exists any more, every one of them inside the workspace: no build of
 * the checkout can make them again. A crate whose sources exist (a
 * dependency, a package left on disk but dropped from the members) is
 * never judged: whether something still builds it is not known here.
 *
 * Debian has no C library for TOML; the reader below knows only the
 * shapes Cargo.toml uses for the keys asked (strings, arrays of strings,
 * inline tables, dotted keys), and a file it cannot read whole leaves the
 * tree unjudged. Files over FILE_MAX bytes are not read.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/deps.h"
#include "leftover/map.h"
#include "leftover/os.h"

#define FILE_MAX (1 << 20) /* a manifest or a dep-info file; a larger one is not read */
#define TOML_DEPTH 16      /* arrays and inline tables within each other */
#define MEMBERS_MAX 4096   /* workspace members, globs expanded */

/* ---- a bounded reader of the TOML keys asked for ----------------------------------- */

typedef struct toml {
	const char *p, *end;
	lo_buf key;  /* the dotted key of the value being read */
	lo_map *out; /* key -> lo_buf* of NUL-separated strings, every string value under it */
} toml;

static void toml_emit(toml *t, const char *s, size_t n)
{
	lo_buf *b = lo_map_get(t->out, lo_buf_cstr(&t->key), NULL);

	if (!b) {
		b = lo_xcalloc(1, sizeof(*b));
		lo_map_put(t->out, lo_buf_cstr(&t->key), b);
	}
	lo_buf_add(b, s, n);
	lo_buf_putc(b, '\0');
}

static void buf_free(void *v)
{
	lo_buf *b = v;

	if (b)
		lo_buf_dispose(b);
	free(b);
}

/* A bare key's characters. */
static bool var_ok(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Spaces, tabs, and with `lines` newlines and comments too. */
static void toml_skip(toml *t, bool lines)
{
	while (t->p < t->end) {
		if (*t->p == ' ' || *t->p == '\t' || (lines && (*t->p == '\n' || *t->p == '\r'))) {
			t->p++;
		} else if (lines && *t->p == '#') {
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		} else {
			break;
		}
	}
}

/* A string at t->p (basic, literal, or either multi-line form) into `s`; false if unterminated. */
static bool toml_string(toml *t, lo_buf *s)
{
	char q = *t->p;
	bool multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;

	lo_buf_clear(s);
	t->p += multi ? 3 : 1;
	if (multi && t->p < t->end && *t->p == '\n')
		t->p++;
	while (t->p < t->end) {
		char c = *t->p;

		if (c == q && (!multi || (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q))) {
			t->p += multi ? 3 : 1;
			return true;
		}
		if (!multi && c == '\n')
			return false;
		if (c == '\\' && q == '"') {
			if (++t->p >= t->end)
				return false;
			c = *t->p == 'n' ? '\n' : *t->p == 't' ? '\t' : *t->p; /* \u kept as it is */
		}
		lo_buf_putc(s, c);
		t->p++;
	}
	return false;
}

/* A key: bare or quoted parts joined by dots, appended to t->key. */
static bool toml_key(toml *t)
{
	lo_buf s = LO_BUF_INIT;
	bool ok = true;

	for (;;) {
		toml_skip(t, false);
		if (t->p >= t->end) {
			ok = false;
			break;
		}
		if (t->key.len)
			lo_buf_putc(&t->key, '.');
		if (*t->p == '"' || *t->p == '\'') {
			if (!(ok = toml_string(t, &s)))
				break;
			lo_buf_add(&t->key, s.ptr ? s.ptr : "", s.len);
		} else {
			const char *k = t->p;

			while (t->p < t->end && var_ok(*t->p))
				t->p++;
			if (t->p == k) {
				ok = false;
				break;
			}
			lo_buf_add(&t->key, k, (size_t)(t->p - k));
		}
		toml_skip(t, false);
		if (t->p >= t->end || *t->p != '.')
			break;
		t->p++;
	}
	lo_buf_dispose(&s);
	return ok && t->key.len <= 1024;
}

static bool toml_keyval(toml *t, unsigned depth);
static bool toml_value(toml *t, unsigned depth);

/*
 * The items of an array (across lines) or an inline table (on one line),
 * after the opening bracket, up to `close`, each read by `item`.
 */
static bool toml_items(toml *t, char close, bool lines, bool (*item)(toml *t, unsigned depth),
		       unsigned depth)
{
	for (;;) {
		toml_skip(t, lines);
		if (t->p < t->end && *t->p == close) {
			t->p++;
			return true;
		}
		if (!item(t, depth))
			return false;
		toml_skip(t, lines);
		if (t->p < t->end && *t->p == ',')
			t->p++;
		else if (t->p >= t->end || *t->p != close)
			return false;
	}
}

/* A key = value of an inline table, its key under the table's, which is kept. */
static bool toml_member(toml *t, unsigned depth)
{
	size_t klen = t->key.len;
	bool ok = toml_keyval(t, depth);

	t->key.len = klen;
	t->key.ptr[klen] = '\0';
	return ok;
}

/* One value for the key in t->key: its strings are emitted, anything else passed over. */
static bool toml_value(toml *t, unsigned depth)
{
	lo_buf s = LO_BUF_INIT;
	bool ok = true;

	if (depth > TOML_DEPTH || t->p >= t->end)
		return false;
	if (*t->p == '"' || *t->p == '\'') {
		if ((ok = toml_string(t, &s)))
			toml_emit(t, s.ptr ? s.ptr : "", s.len);
	} else if (*t->p == '[') {
		t->p++;
		ok = toml_items(t, ']', true, toml_value, depth + 1);
	} else if (*t->p == '{') {
		t->p++;
		ok = toml_items(t, '}', false, toml_member, depth + 1);
	} else { /* a number, a boolean, a date */
		const char *v = t->p;

		while (t->p < t->end && !strchr(" \t\r\n,]}#", *t->p))
			t->p++;
		ok = t->p > v;
	}
	lo_buf_dispose(&s);
	return ok;
}

static bool toml_keyval(toml *t, unsigned depth)
{
	if (!toml_key(t))
		return false;
	toml_skip(t, false);
	if (t->p >= t->end || *t->p != '=')
		return false;
	t->p++;
	toml_skip(t, false);
	return toml_value(t, depth);
}

/* `text` as key -> strings (lo_buf* of NUL-separated values); NULL when it is not read whole. */
static lo_map *toml_read(const char *text, size_t len)
{
	toml t = { text, text + len, LO_BUF_INIT, lo_map_new() };
	lo_buf table = LO_BUF_INIT;
	bool ok = !memchr(text, '\0', len);

	while (ok) {
		toml_skip(&t, true);
		if (t.p >= t.end)
			break;
		lo_buf_clear(&t.key);
		if (*t.p == '[') { /* [table] or [[array.of.tables]]: later keys go under it */
			bool array = t.end - t.p > 1 && t.p[1] == '[';

			t.p += array ? 2 : 1;
			if (!(ok = toml_key(&t)))
				break;
			toml_skip(&t, false);
			ok = t.end - t.p >= (array ? 2 : 1) && t.p[0] == ']' && (!array || t.p[1] == ']');
			t.p += array ? 2 : 1;
			lo_buf_clear(&table);
			lo_buf_add(&table, t.key.ptr, t.key.len);
		} else {
			lo_buf_add(&t.key, table.ptr ? table.ptr : "", table.len);
			ok = toml_keyval(&t, 0);
		}
		toml_skip(&t, false);
		if (ok && t.p < t.end && *t.p == '#')
			toml_skip(&t, true);
		else if (ok && t.p < t.end && *t.p != '\n' && *t.p != '\r')
			ok = false; /* more on the line than one key = value */
	}
	lo_buf_dispose(&table);
	lo_buf_dispose(&t.key);
	if (!ok) {
		lo_map_free(t.out, buf_free);
		return NULL;
	}
	return t.out;
}

/* The i-th string under `key`, or NULL. */
static const char *toml_get(const lo_map *m, const char *key, size_t i)
{
	const lo_buf *b = lo_map_get(m, key, NULL);
	size_t at = 0;

	if (!b)
		return NULL;
	while (at < b->len) {
		if (!i--)
			return b->ptr + at;
		at += strlen(b->ptr + at) + 1;
	}
	return NULL;
}

/* A whole file, up to FILE_MAX bytes; NULL when missing, unreadable or larger. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = lo_bs_open_record(path);
	char *text;
	size_t n;

	if (!f)
		return NULL;
	text = lo_xmalloc(FILE_MAX + 1);
	n = fread(text, 1, FILE_MAX + 1, f);
	if (ferror(f) || n > FILE_MAX) {
		fclose(f);
		free(text);
		errno = EFBIG;
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	*len = n;
	return text;
}

static lo_map *toml_read_file(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	lo_map *m;

	if (!text)
		return NULL;
	m = toml_read(text, len);
	free(text);
	return m;
}

/* ---- the workspace ----------------------------------------------------------------- */

/* A current member's library: its name, and whether it makes a shared object. */
typedef struct cargo {
	lo_buildsys *bs;
	lo_bs_tree *t;
	char *ws;        /* the workspace dir, absolute */
	lo_map *libs;    /* lib name -> (void *)1 rlib only, (void *)2 makes a .so */
	size_t members;
	bool whole;
} cargo;

/* A member's package at `dir` (absolute): the library it builds, if any. */
static void read_member(cargo *c, const char *dir)
{
	lo_buf p = LO_BUF_INIT, name = LO_BUF_INIT;
	lo_map *m;
	const char *pkg, *lib, *type;
	bool so = false, has_lib;
	size_t i;

	lo_buf_printf(&p, "%s/Cargo.toml", dir);
	if (!(m = toml_read_file(lo_buf_cstr(&p)))) {
		c->whole = false;
		lo_bs_incomplete(c->bs, c->t, LO_BS_MAKE, "cannot read the member manifest %s whole",
				 lo_buf_cstr(&p));
		lo_buf_dispose(&p);
		return;
	}
	pkg = toml_get(m, "package.name", 0);
	lib = toml_get(m, "lib.name", 0);
	lo_buf_clear(&p);
	lo_buf_printf(&p, "%s/src/lib.rs", dir);
	has_lib = lib || toml_get(m, "lib.crate-type", 0) || toml_get(m, "lib.path", 0) ||
		  access(lo_buf_cstr(&p), F_OK) == 0;
	if (pkg && has_lib) {
		lo_buf_puts(&name, lib ? lib : pkg);
		for (i = 0; i < name.len; i++) /* a package "my-lib" makes the crate my_lib */
			if (name.ptr[i] == '-')
				name.ptr[i] = '_';
		for (i = 0; (type = toml_get(m, "lib.crate-type", i)); i++)
			so |= !strcmp(type, "cdylib") || !strcmp(type, "dylib");
		if (lo_map_get(c->libs, lo_buf_cstr(&name), NULL) != (void *)2)
			lo_map_put(c->libs, lo_buf_cstr(&name), (void *)(uintptr_t)(so ? 2 : 1));
	}
	c->members++;
	lo_map_free(m, buf_free);
	lo_buf_dispose(&p);
	lo_buf_dispose(&name);
}

static bool excluded(const lo_map *m, const char *ws, const char *path)
{
	const char *x;
	size_t i, n = strlen(ws);

	for (i = 0; (x = toml_get(m, "workspace.exclude", i)); i++)
		if (!strncmp(path, ws, n) && path[n] == '/' && !strcmp(path + n + 1, x))
			return true;
	return false;
}

/* The workspace's Cargo.toml: its members (globs expanded) and its own package. */
static void read_workspace(cargo *c)
{
	lo_buf p = LO_BUF_INIT;
	lo_map *m;
	const char *member;
	size_t i, j;

	lo_buf_printf(&p, "%s/Cargo.toml", c->ws);
	if (!(m = toml_read_file(lo_buf_cstr(&p)))) {
		c->whole = false;
		lo_bs_incomplete(c->bs, c->t, LO_BS_MAKE,
				 "cannot read the workspace manifest %s whole: what the build makes "
				 "is not known", lo_buf_cstr(&p));
		lo_buf_dispose(&p);
		return;
	}
	if (toml_get(m, "package.name", 0))
		read_member(c, c->ws);
	for (i = 0; c->whole && (member = toml_get(m, "workspace.members", i)); i++) {
		glob_t g;

		if (*member == '/' || strstr(member, "..")) {
			c->whole = false;
			lo_bs_incomplete(c->bs, c->t, LO_BS_MAKE,
					 "workspace member '%s' lies outside the workspace: not read",
					 member);
			break;
		}
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/%s", c->ws, member);
		if (glob(lo_buf_cstr(&p), GLOB_NOSORT, NULL, &g) != 0)
			continue; /* a member that is not there builds nothing */
		for (j = 0; j < g.gl_pathc && c->members < MEMBERS_MAX; j++)
			if (!excluded(m, c->ws, g.gl_pathv[j]))
				read_member(c, g.gl_pathv[j]);
		globfree(&g);
	}
	lo_map_free(m, buf_free);
	lo_buf_dispose(&p);
}

/* ---- dep-info ---------------------------------------------------------------------- */

/*
 * The next path of a dep-info line at *s, unescaped ("\ " is a space), up
 * to an unescaped space or the ':' that ends the outputs; NULL at the end.
 */
static char *dep_word(char **s, bool outputs)
{
	lo_buf w = LO_BUF_INIT;
	char *p = *s + strspn(*s, " \t");

	while (*p && *p != ' ' && *p != '\t') {
		if (outputs && *p == ':' && (!p[1] || p[1] == ' ' || p[1] == '\t'))
			break;
		if (*p == '\\' && p[1]) {
			p++;
		}
		lo_buf_putc(&w, *p++);
	}
	*s = p;
	return w.len ? lo_buf_detach(&w) : (lo_buf_dispose(&w), NULL);
}

/* One crate's dep-info file: its outputs in the tree, and whether any source is still there. */
typedef struct dep_info {
	char **outs; /* relative to the tree */
	size_t out_count, out_cap;
	bool source_here;  /* a source outside the target dir exists */
	bool source_gone;  /* a source outside the target dir is gone */
	bool source_away;  /* a source outside the workspace (a registry, another checkout) */
} dep_info;

static void dep_source(cargo *c, dep_info *d, const char *path)
{
	char *abs = NULL;
	size_t wl = strlen(c->ws), tl = strlen(c->t->dir);

	if (asprintf(&abs, "%s%s%s", *path == '/' ? "" : c->ws, *path == '/' ? "" : "/", path) < 0)
		abort();
	if (!strncmp(abs, c->t->dir, tl) && abs[tl] == '/') {
		/* written by a build script under OUT_DIR: says nothing of the checkout */
	} else if (strncmp(abs, c->ws, wl) || abs[wl] != '/' || strstr(abs, "/../")) {
		d->source_away = true;
	} else if (access(abs, F_OK) == 0) {
		d->source_here = true;
	} else {
		d->source_gone = true;
	}
	free(abs);
}

static bool read_dep_info(cargo *c, const char *path, dep_info *d)
{
	size_t len;
	char *text = slurp(path, &len), *line, *save = NULL;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = line, *w, *rel;
		bool outputs = true;

		if (*line == '#')
			continue; /* "# env-dep:VAR=value" */
		while ((w = dep_word(&s, outputs))) {
			if (outputs) {
				if (*w == '/' && (rel = lo_bs_normalise(c->t, NULL, w))) {
					lo_array_grow(&d->outs, &d->out_cap, d->out_count + 1,
						      sizeof(char *));
					d->outs[d->out_count++] = rel;
				}
			} else {
				dep_source(c, d, w);
			}
			free(w);
			if (outputs && *s == ':') {
				outputs = false;
				s++;
			}
		}
	}
	free(text);
	return true;
}

/* "libfoo-0123456789abcdef.so" -> "foo"; "foo-0123456789abcdef.d" -> "foo"; owned. */
static char *crate_of(const char *file, bool lib_prefix)
{
	const char *dot = strchr(file, '.'), *dash;
	size_t n = dot ? (size_t)(dot - file) : strlen(file);

	if (lib_prefix && !strncmp(file, "lib", 3)) {
		file += 3;
		n -= 3;
	}
	dash = lo_memrchr(file, '-', n);
	if (dash && (size_t)(file + n - dash - 1) == 16 &&
	    strspn(dash + 1, "0123456789abcdef") >= 16)
		n = (size_t)(dash - file);
	return lo_xstrndup(file, n);
}

static bool is_shared_object(const char *rel)
{
	size_t n = strlen(rel);

	return n > 3 && !strcmp(rel + n - 3, ".so");
}

/* One dep-info file of a profile dir, `sub` "" or "deps/", `rel_dir` the profile dir in the tree. */
static void judge_dep_info(cargo *c, const char *profile, const char *sub, const char *name)
{
	lo_buf p = LO_BUF_INIT, detail = LO_BUF_INIT;
	dep_info d = { NULL, 0, 0, false, false, false };
	char *crate = crate_of(name, !*sub);
	void *lib = lo_map_get(c->libs, crate, NULL);
	size_t i;

	lo_buf_printf(&p, "%s/%s/%s%s", c->t->dir, profile, sub, name);
	if (!read_dep_info(c, lo_buf_cstr(&p), &d)) {
		c->whole = false;
		lo_bs_incomplete(c->bs, c->t, LO_BS_MAKE, "cannot read the dep-info %s/%s%s: %s", profile,
				 sub, name, strerror(errno));
		goto out;
	}
	lo_buf_printf(&detail, "built by cargo from crate %s (%s/%s%s), whose sources are all gone "
			       "and which no workspace member builds", crate, profile, sub, name);
	for (i = 0; i < d.out_count; i++) {
		if (lib && (!is_shared_object(d.outs[i]) || lib == (void *)2))
			lo_bs_mark_produced(c->t, NULL, d.outs[i],
					    "a library of a current workspace member (Cargo.toml)");
		else if (!lib && d.source_gone && !d.source_here && !d.source_away)
			lo_bs_mark_past(c->t, NULL, d.outs[i], LO_EVIDENCE_CARGO_DEP_INFO, 0, 0, 0,
					lo_buf_cstr(&detail));
	}
out:
	for (i = 0; i < d.out_count; i++)
		free(d.outs[i]);
	free(d.outs);
	free(crate);
	lo_buf_dispose(&p);
	lo_buf_dispose(&detail);
}

static bool ends_with_d(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && !strcmp(name + n - 2, ".d");
}

/* Every dep-info file of one profile dir (relative to the tree) and of its deps/. */
static void read_profile(cargo *c, const char *profile)
{
	static const char *const subs[] = { "", "deps/" };
	lo_buf p = LO_BUF_INIT;
	struct dirent *de;
	size_t i;
	DIR *d;

	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/%s/%s", c->t->dir, profile, subs[i]);
		lo_deps_note_path(lo_buf_cstr(&p));
		if (!(d = opendir(lo_buf_cstr(&p))))
			continue;
		while ((de = readdir(d)))
			/* a FIFO or device is refused by the open (lo_bs_open_record) */
			if (ends_with_d(de->d_name) && (de->d_type == DT_REG || de->d_type == DT_UNKNOWN))
				judge_dep_info(c, profile, subs[i], de->d_name);
		closedir(d);
	}
	lo_buf_dispose(&p);
}

/* The profile dirs: target/<profile> and target/<triple>/<profile>, each holding .fingerprint/. */
static void read_profiles(cargo *c, const char *under, unsigned depth)
{
	lo_buf p = LO_BUF_INIT;
	struct dirent *de;
	DIR *d;

	lo_buf_printf(&p, "%s%s%s", c->t->dir, *under ? "/" : "", under);
	lo_deps_note_path(lo_buf_cstr(&p)); /* its names are read: deps.h */
	if (!(d = opendir(lo_buf_cstr(&p)))) {
		lo_buf_dispose(&p);
		return;
	}
	while ((de = readdir(d))) {
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || de->d_name[0] == '.')
			continue;
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/%s%s%s/.fingerprint", c->t->dir, under, *under ? "/" : "",
			      de->d_name);
		if (access(lo_buf_cstr(&p), F_OK) == 0) {
			lo_buf_clear(&p);
			lo_buf_printf(&p, "%s%s%s", under, *under ? "/" : "", de->d_name);
			read_profile(c, lo_buf_cstr(&p));
		} else if (!depth) {
			read_profiles(c, de->d_name, depth + 1);
		}
	}
	closedir(d);
	lo_buf_dispose(&p);
}

void lo_bs_read_cargo(lo_buildsys *bs, lo_bs_tree *t)
{
	const char *slash = lo_os_path_last_separator(t->dir);
	cargo c = { bs, t, lo_xstrndup(t->dir, slash ? (size_t)(slash - t->dir) : 0), lo_map_new(),
		    0, true };

	t->live_from = "the workspace's Cargo.toml members";
	read_workspace(&c);
	if (c.whole)
		read_profiles(&c, "", 0);
	lo_map_free(c.libs, NULL);
	free(c.ws);
}
