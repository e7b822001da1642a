/*
 * rules_read.c - the layers' rule files, read into entries in order.
 *
 * Rule files are git-config files, read with libgit2's config API so that
 * syntax errors come with the file and line libgit2 reports. libgit2
 * inlines include.path files where they are included, with their depth,
 * but does not say which line an entry came from, nor which included file.
 * The file follows from the include depths; the line comes from a small
 * scan of the file for key names (scan_keys below), used only to name
 * lines in messages and in `leftover rules --show-origin`, never to read
 * values. The same scan finds the cycle when libgit2 gives up on includes
 * nested too deep.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "rules/rules_int.h"

/* --- where keys are: a line scan of the file, for messages only --- */

static void keyline_add(src_file *sf, const char *section, const char *key, int line,
			const char *include)
{
	keyline *k;
	size_t i;

	lo_array_grow(&sf->keys, &sf->key_cap, sf->key_count + 1, sizeof(*sf->keys));
	k = &sf->keys[sf->key_count++];
	k->name = lo_xmalloc(strlen(section) + strlen(key) + 2);
	sprintf(k->name, "%s.%s", section, key);
	for (i = strlen(section) + 1; k->name[i]; i++)
		k->name[i] = (char)tolower((unsigned char)k->name[i]);
	k->line = line;
	k->include = include ? lo_xstrdup(include) : NULL;
}

/*
 * Record each key of `sf` with its line. Follows git's syntax far enough to
 * find keys: section headers (`[s "sub"]`, `[s.sub]`), comments, quotes and
 * backslash continuations; values are not interpreted.
 */
static void scan_keys(src_file *sf)
{
	lo_buf text = LO_BUF_INIT, section = LO_BUF_INIT, key = LO_BUF_INIT, val = LO_BUF_INIT;
	const char *p, *end;
	char chunk[8192];
	size_t n;
	int line = 1;
	FILE *f;

	sf->scanned = true;
	if (!(f = fopen(sf->path, "r")))
		return;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && text.len < MAX_RULE_FILE)
		lo_buf_add(&text, chunk, n);
	fclose(f);
	p = lo_buf_cstr(&text);
	end = p + text.len;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '[') {
			lo_buf_clear(&section);
			for (p++; p < end && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n'; p++)
				lo_buf_putc(&section, (char)tolower((unsigned char)*p));
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p == '"') {
				lo_buf_putc(&section, '.');
				for (p++; p < end && *p != '"' && *p != '\n'; p++) {
					if (*p == '\\' && p + 1 < end)
						p++;
					lo_buf_putc(&section, *p);
				}
				if (p < end && *p == '"')
					p++;
			}
			if (p < end && *p == ']')
				p++;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
		}
		if (p < end && isalpha((unsigned char)*p)) {
			bool quoted = false, is_include;
			int key_line = line;

			lo_buf_clear(&key);
			lo_buf_clear(&val);
			while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
				lo_buf_putc(&key, *p++);
			while (p < end && (*p == ' ' || *p == '\t' || *p == '='))
				p++;
			for (; p < end && *p != '\n'; p++) {
				if (*p == '\\' && p + 1 < end) {
					if (p[1] == '\n')
						line++;
					else
						lo_buf_putc(&val, p[1]);
					p++;
				} else if (*p == '"') {
					quoted = !quoted;
				} else if (!quoted && (*p == '#' || *p == ';')) {
					while (p < end && *p != '\n')
						p++;
					break;
				} else {
					lo_buf_putc(&val, *p);
				}
			}
			while (val.len && (val.ptr[val.len - 1] == ' ' || val.ptr[val.len - 1] == '\t'))
				val.ptr[--val.len] = '\0';
			is_include = !strcmp(lo_buf_cstr(&section), "include") &&
				     !strcasecmp(lo_buf_cstr(&key), "path");
			keyline_add(sf, lo_buf_cstr(&section), lo_buf_cstr(&key), key_line,
				    is_include ? lo_buf_cstr(&val) : NULL);
		}
		while (p < end && *p != '\n')
			p++;
		if (p < end) {
			p++;
			line++;
		}
	}
	lo_buf_dispose(&text);
	lo_buf_dispose(&section);
	lo_buf_dispose(&key);
	lo_buf_dispose(&val);
}

/* The line of the nth (from 0) occurrence of `name` in `sf`, or 0. */
static int key_line(src_file *sf, const char *name, size_t nth)
{
	size_t i;

	if (!sf->scanned)
		scan_keys(sf);
	for (i = 0; i < sf->key_count; i++)
		if (!strcmp(sf->keys[i].name, name) && nth-- == 0)
			return sf->keys[i].line;
	return 0;
}

/* --- files and entries --- */

static size_t file_intern(lo_rules *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->file_count; i++)
		if (!strcmp(r->files[i].path, path))
			return i;
	lo_array_grow(&r->files, &r->file_cap, r->file_count + 1, sizeof(*r->files));
	memset(&r->files[r->file_count], 0, sizeof(*r->files));
	r->files[r->file_count].path = lo_xstrdup(path);
	r->files[r->file_count].tree = r->collecting_tree;
	return r->file_count++;
}

/* An include.path value resolved as libgit2 does: ~/, absolute, or next to the includer. */
char *lo_rules_include_resolve(const char *includer, const char *value)
{
	lo_buf b = LO_BUF_INIT;
	const char *slash;

	if (!strncmp(value, "~/", 2) && getenv("HOME")) {
		lo_buf_printf(&b, "%s/%s", getenv("HOME"), value + 2);
	} else if (lo_os_path_is_absolute(value)) {
		lo_buf_puts(&b, value);
	} else {
		slash = lo_os_path_last_separator(includer);
		if (slash)
			lo_buf_add(&b, includer, (size_t)(slash - includer) + 1);
		lo_buf_puts(&b, value);
	}
	return lo_buf_detach(&b);
}

static const char *loc(lo_rules *r, const entry *e, lo_buf *b)
{
	lo_buf_clear(b);
	if (e->line)
		lo_buf_printf(b, "%s:%d", r->files[e->file].path, e->line);
	else
		lo_buf_puts(b, r->files[e->file].path);
	return lo_buf_cstr(b);
}

/* Fail with "FILE:LINE: KEY: message" for entry e. */
int lo_rules_entry_error(lo_rules *r, const entry *e, const char *fmt, ...)
{
	lo_buf where = LO_BUF_INIT;
	char msg[1024]; /* values in it are a rule file's: long ones are cut, not trusted */
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err = lo_error_set(LO_EINVALID, "%s: %s: %s", loc(r, e, &where), e->name, msg);
	lo_buf_dispose(&where);
	return err;
}

typedef struct collect {
	lo_rules *r;
	size_t stack[MAX_INCLUDE_DEPTH + 2]; /* file index per include depth */
	int err;
} collect;

static int collect_entry(const git_config_entry *ge, void *payload)
{
	collect *c = payload;
	lo_rules *r = c->r;
	unsigned depth = ge->include_depth;
	size_t i, nth = 0;
	entry *e;

	if (depth > MAX_INCLUDE_DEPTH)
		depth = MAX_INCLUDE_DEPTH;
	lo_array_grow(&r->entries, &r->entry_cap, r->entry_count + 1, sizeof(*r->entries));
	e = &r->entries[r->entry_count];
	memset(e, 0, sizeof(*e));
	e->name = lo_xstrdup(ge->name);
	e->value = lo_xstrdup(ge->value ? ge->value : "");
	e->file = c->stack[depth];
	for (i = 0; i < r->entry_count; i++)
		if (r->entries[i].file == e->file && !strcmp(r->entries[i].name, e->name))
			nth++;
	e->line = key_line(&r->files[e->file], e->name, nth);
	r->entry_count++;

	if (!strcmp(e->name, "include.path")) {
		char *inc = lo_rules_include_resolve(r->files[e->file].path, e->value);
		struct stat st;
		int serr = stat(inc, &st) < 0 ? errno : 0;

		/* git skips a missing include; a rule file that silently loses rules is worse. */
		if (serr || !S_ISREG(st.st_mode)) {
			c->err = lo_rules_entry_error(r, e, "cannot include '%s': %s", inc,
					     serr ? strerror(serr) : "not a file");
			free(inc);
			return -1;
		}
		c->stack[depth + 1] = file_intern(r, inc);
		free(inc);
	}
	return 0;
}

/*
 * libgit2 gives up on includes nested deeper than it allows without saying
 * where; find the cycle with the key scan and name every step of it.
 */
static int include_cycle_error(lo_rules *r, size_t top)
{
	size_t chain[MAX_INCLUDE_DEPTH + 2];
	int lines[MAX_INCLUDE_DEPTH + 2];
	size_t depth = 0, i, j, k;
	lo_buf msg = LO_BUF_INIT;
	int err;

	chain[0] = top;
	/* Follow the first include of each file; a cycle shows as a repeated file. */
	while (depth <= MAX_INCLUDE_DEPTH) {
		src_file *sf = &r->files[chain[depth]];
		char *inc = NULL;

		if (!sf->scanned)
			scan_keys(sf);
		for (i = 0; i < sf->key_count && !inc; i++)
			if (sf->keys[i].include) {
				inc = lo_rules_include_resolve(sf->path, sf->keys[i].include);
				lines[depth] = sf->keys[i].line;
			}
		if (!inc)
			break;
		chain[depth + 1] = file_intern(r, inc);
		free(inc);
		depth++;
		for (j = 0; j < depth; j++) {
			char *a = realpath(r->files[chain[j]].path, NULL);
			char *b = realpath(r->files[chain[depth]].path, NULL);
			bool same = a && b && !strcmp(a, b);

			free(a);
			free(b);
			if (!same)
				continue;
			lo_buf_puts(&msg, "include cycle: ");
			for (k = j; k < depth; k++)
				lo_buf_printf(&msg, "%s%s:%d: include.path -> %s", k > j ? ", " : "",
					      r->files[chain[k]].path, lines[k],
					      r->files[chain[k + 1]].path);
			err = lo_error_set(LO_EINVALID, "%s", lo_buf_cstr(&msg));
			lo_buf_dispose(&msg);
			return err;
		}
	}
	return lo_error_set(LO_EINVALID, "%s: include.path: includes nested deeper than %d files",
			    r->files[top].path, MAX_INCLUDE_DEPTH);
}

int lo_rules_git_error(const char *what, const char *path)
{
	const git_error *ge = git_error_last();

	return lo_error_set(LO_EINVALID, "cannot %s '%s': %s", what, path,
			    ge && ge->message ? ge->message : "unknown libgit2 error");
}

/* Collect the entries of one layer file; a missing optional layer is no error. */
int lo_rules_collect_file(lo_rules *r, const char *path, bool optional)
{
	git_config *cfg;
	collect c;
	struct stat st;
	int err;

	if (stat(path, &st) < 0) {
		/* ENOTDIR: BUILD/.leftover/rules where .leftover is a file, the source's
		   rule file of an in-source build */
		if (optional && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		return lo_error_set_errno(LO_EINVALID, errno, "cannot read rule file '%s'", path);
	}
	if (!S_ISREG(st.st_mode))
		return lo_error_set(LO_EINVALID, "cannot read rule file '%s': not a file", path);
	if (st.st_size > (off_t)MAX_RULE_FILE)
		return lo_error_set(LO_EINVALID, "cannot read rule file '%s': larger than %u bytes",
				    path, MAX_RULE_FILE);
	/* libgit2 gives no message for a file it may not open */
	if (access(path, R_OK) < 0)
		return lo_error_set_errno(LO_EINVALID, errno, "cannot read rule file '%s'", path);
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.stack[0] = file_intern(r, path);
	if (git_config_open_ondisk(&cfg, path) < 0) {
		const git_error *ge = git_error_last();

		if (ge && ge->message && strstr(ge->message, "include depth"))
			return include_cycle_error(r, c.stack[0]);
		return lo_rules_git_error("read rule file", path);
	}
	err = git_config_foreach(cfg, collect_entry, &c);
	git_config_free(cfg);
	if (c.err)
		return c.err;
	if (err < 0)
		return lo_rules_git_error("read rule file", path);
	return 0;
}

static int alpha_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int select_rules(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 6 && !strcmp(d->d_name + n - 6, ".rules");
}

/* Every *.rules of the defaults directory, in name order. */
int lo_rules_collect_defaults(lo_rules *r)
{
	const char *dir = lo_rules_default_dir();
	struct dirent **names;
	lo_buf path = LO_BUF_INIT;
	int n, i, err = 0;

	if ((n = scandir(dir, &names, select_rules, alpha_cmp)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot read the rules directory '%s'", dir);
	for (i = 0; i < n; i++) {
		if (!err) {
			lo_buf_clear(&path);
			lo_buf_printf(&path, "%s/%s", dir, names[i]->d_name);
			err = lo_rules_collect_file(r, lo_buf_cstr(&path), false);
		}
		free(names[i]);
	}
	free(names);
	lo_buf_dispose(&path);
	return err;
}

int lo_rules_collect_user(lo_rules *r)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	lo_buf path = LO_BUF_INIT;
	int err = 0;

	if (xdg && *xdg)
		lo_buf_printf(&path, "%s/leftover/rules", xdg);
	else if (home && *home)
		lo_buf_printf(&path, "%s/.config/leftover/rules", home);
	else
		return 0;
	/*
	 * As git does with a per-user config it may not read (its mode, or the
	 * HOME of another user after su): warn and go on without it. It holds
	 * one user's preferences, and a permission should not stop every scan;
	 * a file that can be read but is wrong is still an error.
	 */
	if (access(lo_buf_cstr(&path), R_OK) < 0 && errno == EACCES) {
		lo_buf msg = LO_BUF_INIT;

		lo_buf_printf(&msg, "cannot read rule file '%s': %s; going on without it",
			      lo_buf_cstr(&path), strerror(EACCES));
		lo_array_grow(&r->warnings, &r->warning_cap, r->warning_count + 1, sizeof(char *));
		r->warnings[r->warning_count++] = lo_buf_detach(&msg);
	} else {
		err = lo_rules_collect_file(r, lo_buf_cstr(&path), true);
	}
	lo_buf_dispose(&path);
	return err;
}

/* --- CMakeCache.txt --- */

/* The CMakeCache.txt of dir or of its nearest ancestor that has one, owned, or NULL. */
char *lo_rules_cmake_cache_find(const char *dir)
{
	char *d = realpath(dir, NULL), *slash;
	lo_buf path = LO_BUF_INIT;
	struct stat st;

	while (d) {
		lo_buf_clear(&path);
		lo_buf_printf(&path, "%s/CMakeCache.txt", d);
		if (stat(lo_buf_cstr(&path), &st) == 0 && S_ISREG(st.st_mode)) {
			free(d);
			return lo_buf_detach(&path);
		}
		if (!(slash = lo_os_path_last_separator(d)) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	lo_buf_dispose(&path);
	return NULL;
}
