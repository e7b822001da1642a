/*
 * rules.c - reading rule files and answering the scan's questions from them.
 *
 * Rule files are git-config files, read with libgit2's config API so that
 * syntax errors come with the file and line libgit2 reports and nobody
 * learns a new syntax. Loading has two steps: every layer's entries are
 * collected in order (libgit2 inlines include.path files where they are
 * included, with their depth), then the entries are interpreted into the
 * model, so that "a later layer overrides an earlier one" is simply "a later
 * entry wins".
 *
 * libgit2 does not say which line an entry came from, nor which included
 * file. The file follows from the include depths; the line comes from a
 * small scan of the file for key names (scan_keys below), used only to
 * name lines in messages and in `leftover rules --show-origin`, never to
 * read values. The same scan finds the cycle when libgit2 gives up on
 * includes nested too deep.
 *
 * Path patterns are libgit2 pathspecs matched against paths relative to the
 * scanned root. Two gaps between pathspecs and .gitignore are bridged here:
 * libgit2 stops at the first pattern that matches, so each set is compiled
 * in reverse and the pattern declared last decides; and libgit2 matches
 * without WM_PATHNAME, where a `**`/ needs at least one directory, so each
 * pattern is also compiled with its `**`/ parts left out (a/`**`/b then
 * matches a/b, and `**`/x.so matches x.so at the root, as in .gitignore).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/rules.h"

/* Rule files are small; anything bigger is not a rule file someone wrote. */
#define MAX_RULE_FILE (4u << 20)
/* libgit2's own limit on include nesting. */
#define MAX_INCLUDE_DEPTH 10
/* `**`/ occurrences expanded per pattern (2^n variants each). */
#define MAX_DOUBLE_STARS 4

/* Where a key appears in a file, found by scan_keys(). */
typedef struct keyline {
	char *name; /* normalised as libgit2 does: section.Subsection.key; owned */
	int line;
	char *include; /* for include.path: the raw value; owned or NULL */
} keyline;

typedef struct src_file {
	char *path; /* as given or as resolved from an include; owned */
	keyline *keys;
	size_t key_count, key_cap;
	bool scanned;
} src_file;

typedef struct entry {
	char *name;  /* owned */
	char *value; /* owned */
	size_t file; /* index into lo_rules.files */
	int line;    /* 0 when unknown */
	bool overridden;
} entry;

/*
 * An ordered set of path patterns and its compiled pathspec. `needles` lets
 * most paths be refused without libgit2: every pattern that can include a
 * path has a run of literal characters that any path it matches contains
 * (".so" for *.so), so a path containing none of them matches nothing.
 * The walk asks this of every file in the tree, and pathspec matching was a
 * quarter of a scan's instructions.
 */
typedef struct pattern_set {
	char **patterns; /* owned, in declaration order, `!` for negation */
	size_t count, cap;
	git_pathspec *spec; /* owned; NULL when the set is empty */
	char **needles;     /* owned; NULL when some pattern has none (then no shortcut) */
	size_t needle_count;
} pattern_set;

/* Symbol patterns, matched with fnmatch(3). */
typedef struct glob_list {
	char **globs; /* owned */
	size_t count, cap;
} glob_list;

struct lo_rules_host {
	char *name;     /* owned */
	pattern_set match;
	glob_list needs; /* the object leaves one of these undefined (a perl XS module: Perl_*) */
	char *program;  /* absolute, owned, or NULL (none, or an unset ${cmake:VAR}) */
	const entry *program_at; /* the entry that set it; borrowed */
	glob_list provides;
	const entry *first; /* borrowed; for messages */
};
typedef struct lo_rules_host host;

typedef struct rule {
	lo_rule pub;  /* name and reason owned */
	pattern_set match;
	unsigned on;
	const entry *first;
} rule;

struct lo_rules {
	src_file *files;
	size_t file_count, file_cap;
	entry *entries;
	size_t entry_count, entry_cap;

	char *cmake_cache; /* the build tree's CMakeCache.txt, owned, or NULL */
	bool resolve_cmake; /* false for --check and for loads without a tree */

	pattern_set candidates; /* include, and exclude as `!` */
	host *hosts;
	size_t host_count, host_cap;
	glob_list ignore;
	rule *rules;
	size_t rule_count, rule_cap;
	lo_rules_fail fail;

	char **warnings; /* owned messages: layers the load went on without */
	size_t warning_count, warning_cap;
};

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
	return r->file_count++;
}

/* An include.path value resolved as libgit2 does: ~/, absolute, or next to the includer. */
static char *include_resolve(const char *includer, const char *value)
{
	lo_buf b = LO_BUF_INIT;
	const char *slash;

	if (!strncmp(value, "~/", 2) && getenv("HOME")) {
		lo_buf_printf(&b, "%s/%s", getenv("HOME"), value + 2);
	} else if (value[0] == '/') {
		lo_buf_puts(&b, value);
	} else {
		slash = strrchr(includer, '/');
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
static int entry_error(lo_rules *r, const entry *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int entry_error(lo_rules *r, const entry *e, const char *fmt, ...)
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
		char *inc = include_resolve(r->files[e->file].path, e->value);
		struct stat st;
		int serr = stat(inc, &st) < 0 ? errno : 0;

		/* git skips a missing include; a rule file that silently loses rules is worse. */
		if (serr || !S_ISREG(st.st_mode)) {
			c->err = entry_error(r, e, "cannot include '%s': %s", inc,
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
				inc = include_resolve(sf->path, sf->keys[i].include);
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

static int git_message_error(const char *what, const char *path)
{
	const git_error *ge = git_error_last();

	return lo_error_set(LO_EINVALID, "cannot %s '%s': %s", what, path,
			    ge && ge->message ? ge->message : "unknown libgit2 error");
}

/* Collect the entries of one layer file; a missing optional layer is no error. */
static int collect_file(lo_rules *r, const char *path, bool optional)
{
	git_config *cfg;
	collect c;
	struct stat st;
	int err;

	if (stat(path, &st) < 0) {
		if (optional && errno == ENOENT)
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
		return git_message_error("read rule file", path);
	}
	err = git_config_foreach(cfg, collect_entry, &c);
	git_config_free(cfg);
	if (c.err)
		return c.err;
	if (err < 0)
		return git_message_error("read rule file", path);
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
static int collect_defaults(lo_rules *r)
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
			err = collect_file(r, lo_buf_cstr(&path), false);
		}
		free(names[i]);
	}
	free(names);
	lo_buf_dispose(&path);
	return err;
}

static int collect_user(lo_rules *r)
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
		err = collect_file(r, lo_buf_cstr(&path), true);
	}
	lo_buf_dispose(&path);
	return err;
}

/* --- CMakeCache.txt --- */

/* The value of VAR in a CMakeCache.txt (lines `VAR:TYPE=VALUE`), owned, or NULL. */
static char *cmake_cache_get(const char *cache, const char *var)
{
	char *line = NULL, *value = NULL;
	size_t cap = 0, vlen = strlen(var);
	ssize_t n;
	FILE *f;

	if (!cache || !(f = fopen(cache, "r")))
		return NULL;
	while (!value && (n = getline(&line, &cap, f)) > 0) {
		char *eq;

		if (strncmp(line, var, vlen) || line[vlen] != ':' || !(eq = strchr(line + vlen, '=')))
			continue;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (eq[1])
			value = lo_xstrdup(eq + 1);
	}
	free(line);
	fclose(f);
	return value;
}

/* The CMakeCache.txt of dir or of its nearest ancestor that has one, owned, or NULL. */
static char *cmake_cache_find(const char *dir)
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
		if (!(slash = strrchr(d, '/')) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	lo_buf_dispose(&path);
	return NULL;
}

/* --- patterns --- */

/* Why `pat` (after any `!`) is not a usable path pattern, or NULL. */
static const char *path_pattern_problem(const char *pat)
{
	const char *p, *seg;

	if (!*pat)
		return "empty pattern";
	for (seg = pat; *seg; seg = p + (*p == '/')) {
		for (p = seg; *p && *p != '/'; p++)
			;
		if (p - seg == 2 && seg[0] == '.' && seg[1] == '.')
			return "'..' cannot match a path inside the scanned tree";
		if (!*p)
			break;
	}
	for (p = pat; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return "unterminated '[' in pattern";
			p = q;
		}
	}
	if (strspn(pat, " \t") == strlen(pat))
		return "empty pattern";
	return NULL;
}

static const char *symbol_pattern_problem(const char *pat)
{
	const char *p;

	if (!*pat)
		return "empty pattern";
	for (p = pat; *p; p++)
		if (isspace((unsigned char)*p))
			return "a symbol pattern has no spaces";
	return path_pattern_problem(pat);
}

static void pattern_set_push(pattern_set *ps, const char *pattern)
{
	lo_array_grow(&ps->patterns, &ps->cap, ps->count + 1, sizeof(char *));
	ps->patterns[ps->count++] = lo_xstrdup(pattern);
}

/* Add the pattern (negated when `neg`) and its variants with `**`/ parts dropped. */
static int pattern_set_add(lo_rules *r, pattern_set *ps, const entry *e, const char *value,
			   bool allow_neg, bool neg)
{
	const char *pat = value, *problem, *stars[MAX_DOUBLE_STARS];
	size_t nstars = 0, mask, i;
	const char *p;

	if (*pat == '!') {
		if (!allow_neg)
			return entry_error(r, e, "bad pattern '%s': exclude takes no '!'", value);
		neg = !neg;
		pat++;
	}
	if ((problem = path_pattern_problem(pat)))
		return entry_error(r, e, "bad pattern '%s': %s", value, problem);
	for (p = pat; (p = strstr(p, "**/")); p += 3) {
		if (p != pat && p[-1] != '/')
			continue;
		if (nstars == MAX_DOUBLE_STARS)
			return entry_error(r, e, "bad pattern '%s': more than %d '**/'", value,
					   MAX_DOUBLE_STARS);
		stars[nstars++] = p;
	}
	/* Every subset of the `**`/ parts dropped; mask 0 is the pattern itself. */
	for (mask = 0; mask < ((size_t)1 << nstars); mask++) {
		lo_buf b = LO_BUF_INIT;
		const char *from = pat;

		if (neg)
			lo_buf_putc(&b, '!');
		for (i = 0; i < nstars; i++) {
			if (!(mask & ((size_t)1 << i)))
				continue;
			lo_buf_add(&b, from, (size_t)(stars[i] - from));
			from = stars[i] + 3;
		}
		lo_buf_puts(&b, from);
		pattern_set_push(ps, lo_buf_cstr(&b));
		lo_buf_dispose(&b);
	}
	return 0;
}

/*
 * The longest run of characters of `pat` that a matching path must contain
 * as they are, or NULL when that is not known: a '[' class or a '\\'
 * escape, or no literal at all (`*`). '/' ends a run too, since libgit2
 * may take a trailing one to mean a directory.
 */
static char *pattern_needle(const char *pat)
{
	const char *p, *run = pat, *best = NULL;
	size_t best_len = 0;

	if (strpbrk(pat, "[\\"))
		return NULL;
	for (p = pat;; p++) {
		if (!*p || *p == '*' || *p == '?' || *p == '/') {
			if ((size_t)(p - run) > best_len) {
				best = run;
				best_len = (size_t)(p - run);
			}
			if (!*p)
				break;
			run = p + 1;
		}
	}
	return best ? lo_xstrndup(best, best_len) : NULL;
}

static void pattern_set_find_needles(pattern_set *ps)
{
	size_t i, n = 0;

	ps->needles = lo_xcalloc(ps->count, sizeof(char *));
	for (i = 0; i < ps->count; i++) {
		char *needle;

		if (ps->patterns[i][0] == '!') /* an exclude never makes a path match */
			continue;
		if (!(needle = pattern_needle(ps->patterns[i]))) {
			while (n > 0)
				free(ps->needles[--n]);
			free(ps->needles);
			ps->needles = NULL;
			return;
		}
		ps->needles[n++] = needle;
	}
	ps->needle_count = n;
}

static int pattern_set_compile(pattern_set *ps)
{
	git_strarray arr;
	size_t i;
	int err;

	if (!ps->count)
		return 0;
	arr.count = ps->count;
	arr.strings = lo_xcalloc(ps->count, sizeof(char *));
	for (i = 0; i < ps->count; i++)
		arr.strings[i] = ps->patterns[ps->count - 1 - i];
	err = git_pathspec_new(&ps->spec, &arr);
	free(arr.strings);
	if (err < 0)
		return git_message_error("compile patterns", ps->patterns[0]);
	pattern_set_find_needles(ps);
	return 0;
}

static bool pattern_set_may_match(const pattern_set *ps, const char *relpath)
{
	size_t i;

	if (!ps->needles)
		return true;
	for (i = 0; i < ps->needle_count; i++)
		if (strstr(relpath, ps->needles[i]))
			return true;
	return false;
}

static bool pattern_set_matches(const pattern_set *ps, const char *relpath)
{
	return ps->spec && pattern_set_may_match(ps, relpath) &&
	       git_pathspec_matches_path(ps->spec, GIT_PATHSPEC_USE_CASE, relpath) == 1;
}

static void pattern_set_dispose(pattern_set *ps)
{
	size_t i;

	for (i = 0; i < ps->count; i++)
		free(ps->patterns[i]);
	free(ps->patterns);
	for (i = 0; ps->needles && i < ps->needle_count; i++)
		free(ps->needles[i]);
	free(ps->needles);
	git_pathspec_free(ps->spec);
}

static int glob_add(lo_rules *r, glob_list *gl, const entry *e)
{
	const char *problem = symbol_pattern_problem(e->value);

	if (problem)
		return entry_error(r, e, "bad pattern '%s': %s", e->value, problem);
	lo_array_grow(&gl->globs, &gl->cap, gl->count + 1, sizeof(char *));
	gl->globs[gl->count++] = lo_xstrdup(e->value);
	return 0;
}

static bool glob_matches(const glob_list *gl, const char *s)
{
	size_t i;

	for (i = 0; i < gl->count; i++)
		if (fnmatch(gl->globs[i], s, 0) == 0)
			return true;
	return false;
}

static void glob_dispose(glob_list *gl)
{
	size_t i;

	for (i = 0; i < gl->count; i++)
		free(gl->globs[i]);
	free(gl->globs);
}

/* --- interpreting entries --- */

/* Split "section.sub.key" (sub may hold dots) into its parts; sub is "" when absent. */
static void split_name(const char *name, lo_buf *section, lo_buf *sub, lo_buf *key)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');

	lo_buf_clear(section);
	lo_buf_clear(sub);
	lo_buf_clear(key);
	if (!first) {
		lo_buf_puts(key, name);
		return;
	}
	lo_buf_add(section, name, (size_t)(first - name));
	if (last > first)
		lo_buf_add(sub, first + 1, (size_t)(last - first - 1));
	lo_buf_puts(key, last + 1);
}

static host *host_get(lo_rules *r, const char *name, const entry *e)
{
	size_t i;
	host *h;

	for (i = 0; i < r->host_count; i++)
		if (!strcmp(r->hosts[i].name, name))
			return &r->hosts[i];
	lo_array_grow(&r->hosts, &r->host_cap, r->host_count + 1, sizeof(*r->hosts));
	h = &r->hosts[r->host_count++];
	memset(h, 0, sizeof(*h));
	h->name = lo_xstrdup(name);
	h->first = e;
	return h;
}

static rule *rule_get(lo_rules *r, const char *name, const entry *e)
{
	size_t i;
	rule *ru;

	for (i = 0; i < r->rule_count; i++)
		if (!strcmp(r->rules[i].pub.name, name))
			return &r->rules[i];
	lo_array_grow(&r->rules, &r->rule_cap, r->rule_count + 1, sizeof(*r->rules));
	ru = &r->rules[r->rule_count++];
	memset(ru, 0, sizeof(*ru));
	ru->pub.name = lo_xstrdup(name);
	ru->on = LO_RULES_ON_STALE | LO_RULES_ON_BROKEN | LO_RULES_ON_ORPHAN;
	ru->first = e;
	return ru;
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A bare program name looked up on PATH, owned, or NULL. */
static char *path_lookup(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	lo_buf b = LO_BUF_INIT;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = colon + 1) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		lo_buf_clear(&b);
		if (colon > p)
			lo_buf_add(&b, p, (size_t)(colon - p));
		else
			lo_buf_putc(&b, '.');
		lo_buf_printf(&b, "/%s", name);
		if (is_executable_file(lo_buf_cstr(&b)))
			return lo_buf_detach(&b);
		if (!*colon)
			break;
	}
	lo_buf_dispose(&b);
	return NULL;
}

/*
 * A program named by the rule's author: a path (relative ones next to the
 * rule file) or a name on PATH, owned; NULL when it is not there.
 */
static char *program_find(lo_rules *r, const entry *e, const char *v)
{
	char *prog;

	if (!strchr(v, '/'))
		return path_lookup(v);
	prog = include_resolve(r->files[e->file].path, v);
	if (is_executable_file(prog))
		return prog;
	free(prog);
	return NULL;
}

/*
 * Resolve a host program: `${cmake:A|B}` (the first of the CMakeCache
 * variables that is set; none set leaves the host without a program, or
 * takes the default of `${cmake:A|B:-perl}` when that is there), a path
 * (relative ones next to the rule file), or a name on PATH. A default is
 * the host the tree would most likely meet, so one that is missing leaves
 * the host without a program; a plain value is what the rule's author
 * wrote, so one that is missing is an error.
 */
static int host_set_program(lo_rules *r, host *h, const entry *e)
{
	const char *v = e->value;
	char *prog = NULL;
	size_t n = strlen(v);

	free(h->program);
	h->program = NULL;
	h->program_at = e;
	if (!strncmp(v, "${cmake:", 8)) {
		const char *p = v + 8, *bar, *dflt = strstr(v, ":-");
		size_t end = dflt ? (size_t)(dflt - v) : n - 1;

		if (n < 10 || v[n - 1] != '}' || end <= 8 || (dflt && dflt + 2 == v + n - 1))
			return entry_error(r, e, "'%s': ${cmake:VAR} or ${cmake:VAR:-DEFAULT} must be "
					   "the whole value", v);
		if (!r->resolve_cmake)
			return 0;
		while (!prog && p < v + end) {
			char *var;

			if (!(bar = memchr(p, '|', (size_t)(v + end - p))))
				bar = v + end;
			var = lo_xstrndup(p, (size_t)(bar - p));
			prog = cmake_cache_get(r->cmake_cache, var);
			free(var);
			p = bar + 1;
		}
		if (!prog && dflt) {
			char *name = lo_xstrndup(dflt + 2, (size_t)(v + n - 1 - (dflt + 2)));

			prog = program_find(r, e, name);
			free(name);
		}
		/*
		 * A cached path that is gone (a deleted venv) is the tree's problem,
		 * not the rule's: the scan reports it when it needs the host, and
		 * --python or --host still replace it.
		 */
		h->program = prog;
		return 0;
	} else if (!*v) {
		return entry_error(r, e, "empty program");
	} else if (!(prog = program_find(r, e, v))) {
		if (!strchr(v, '/'))
			return entry_error(r, e, "host program '%s' is not on PATH", v);
		return entry_error(r, e, "host program '%s' does not exist or is not executable", v);
	}
	h->program = prog;
	return 0;
}

/* A comma- or space-separated list of stale|broken|orphan. */
static int parse_on(lo_rules *r, const entry *e, unsigned *out)
{
	const char *p = e->value;
	unsigned on = 0;

	while (*p) {
		size_t len;

		p += strspn(p, " ,\t");
		len = strcspn(p, " ,\t");
		if (!len)
			break;
		if (len == 5 && !strncmp(p, "stale", 5))
			on |= LO_RULES_ON_STALE;
		else if (len == 6 && !strncmp(p, "broken", 6))
			on |= LO_RULES_ON_BROKEN;
		else if (len == 6 && !strncmp(p, "orphan", 6))
			on |= LO_RULES_ON_ORPHAN;
		else
			return entry_error(r, e, "'%.*s' is not stale, broken or orphan", (int)len, p);
		p += len;
	}
	if (!on)
		return entry_error(r, e, "empty: say stale, broken or orphan");
	*out = on;
	return 0;
}

static int parse_action(lo_rules *r, const entry *e, lo_rules_action *out)
{
	static const struct { const char *name; lo_rules_action action; } actions[] = {
		{ "report", LO_RULES_ACTION_REPORT },
		{ "keep", LO_RULES_ACTION_KEEP },
		{ "quarantine", LO_RULES_ACTION_QUARANTINE },
		{ "delete", LO_RULES_ACTION_DELETE },
	};
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(e->value, actions[i].name)) {
			*out = actions[i].action;
			return 0;
		}
	return entry_error(r, e, "'%s' is not quarantine, delete, report or keep", e->value);
}

static int parse_fail(lo_rules *r, const entry *e)
{
	if (!strcmp(e->value, "stale"))
		r->fail = LO_RULES_FAIL_STALE;
	else if (!strcmp(e->value, "broken"))
		r->fail = LO_RULES_FAIL_BROKEN;
	else if (!strcmp(e->value, "never"))
		r->fail = LO_RULES_FAIL_NEVER;
	else
		return entry_error(r, e, "'%s' is not stale, broken or never", e->value);
	return 0;
}

static int interpret_entry(lo_rules *r, const entry *e, const char *section, const char *sub,
			   const char *key)
{
	if (!strcmp(section, "include") && !*sub && !strcmp(key, "path"))
		return 0; /* libgit2 has read it already */
	if (!strcmp(section, "candidates") && !*sub) {
		if (!strcmp(key, "include"))
			return pattern_set_add(r, &r->candidates, e, e->value, true, false);
		if (!strcmp(key, "exclude"))
			return pattern_set_add(r, &r->candidates, e, e->value, false, true);
	} else if (!strcmp(section, "host") && *sub) {
		host *h = host_get(r, sub, e);

		if (!strcmp(key, "match"))
			return pattern_set_add(r, &h->match, e, e->value, true, false);
		if (!strcmp(key, "needs"))
			return glob_add(r, &h->needs, e);
		if (!strcmp(key, "program"))
			return host_set_program(r, h, e);
		if (!strcmp(key, "provides"))
			return glob_add(r, &h->provides, e);
	} else if (!strcmp(section, "symbols") && !*sub) {
		if (!strcmp(key, "ignore"))
			return glob_add(r, &r->ignore, e);
	} else if (!strcmp(section, "rule") && *sub) {
		rule *ru = rule_get(r, sub, e);

		if (!strcmp(key, "match"))
			return pattern_set_add(r, &ru->match, e, e->value, true, false);
		if (!strcmp(key, "action"))
			return parse_action(r, e, &ru->pub.action);
		if (!strcmp(key, "on"))
			return parse_on(r, e, &ru->on);
		if (!strcmp(key, "reason")) {
			free((char *)ru->pub.reason);
			ru->pub.reason = lo_xstrdup(e->value);
			return 0;
		}
	} else if (!strcmp(section, "fail") && !*sub) {
		if (!strcmp(key, "on"))
			return parse_fail(r, e);
	}
	if ((!strcmp(section, "host") || !strcmp(section, "rule")) && !*sub)
		return entry_error(r, e, "unknown key: [%s] needs a name, as [%s \"NAME\"]", section,
				   section);
	return entry_error(r, e, "unknown key");
}

/* Single-valued keys: the last one wins, and show-origin leaves the others out. */
static bool is_single_valued(const char *key, const char *section)
{
	return !strcmp(key, "program") || !strcmp(key, "action") || !strcmp(key, "reason") ||
	       (!strcmp(key, "on") && (!strcmp(section, "rule") || !strcmp(section, "fail")));
}

static int interpret(lo_rules *r)
{
	lo_buf section = LO_BUF_INIT, sub = LO_BUF_INIT, key = LO_BUF_INIT;
	size_t i, j;
	int err = 0;

	for (i = 0; !err && i < r->entry_count; i++) {
		entry *e = &r->entries[i];

		split_name(e->name, &section, &sub, &key);
		err = interpret_entry(r, e, lo_buf_cstr(&section), lo_buf_cstr(&sub), lo_buf_cstr(&key));
		if (!err && is_single_valued(lo_buf_cstr(&key), lo_buf_cstr(&section)))
			for (j = 0; j < i; j++)
				if (!strcmp(r->entries[j].name, e->name))
					r->entries[j].overridden = true;
	}
	for (i = 0; !err && i < r->host_count; i++) {
		host *h = &r->hosts[i];

		if (!h->match.count && !h->needs.count)
			err = entry_error(r, h->first, "host '%s' has neither match nor needs: which "
					  "files does it load?", h->name);
		else if (!h->program_at && !h->provides.count)
			err = entry_error(r, h->first, "host '%s' has neither program nor provides",
					  h->name);
		else
			err = pattern_set_compile(&h->match);
	}
	for (i = 0; !err && i < r->rule_count; i++) {
		if (!r->rules[i].match.count)
			err = entry_error(r, r->rules[i].first, "rule '%s' has no match",
					  r->rules[i].pub.name);
		else
			err = pattern_set_compile(&r->rules[i].match);
	}
	if (!err)
		err = pattern_set_compile(&r->candidates);
	lo_buf_dispose(&section);
	lo_buf_dispose(&sub);
	lo_buf_dispose(&key);
	return err;
}

/* --- loading --- */

static lo_rules *rules_new(void)
{
	lo_rules *r;

	git_libgit2_init();
	r = lo_xcalloc(1, sizeof(*r));
	r->fail = LO_RULES_FAIL_STALE;
	return r;
}

static int finish(lo_rules **out, lo_rules *r, int err)
{
	if (!err)
		err = interpret(r);
	if (err < 0) {
		lo_rules_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int collect_given(lo_rules *r, const char *const *files, size_t count)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < count; i++)
		err = collect_file(r, files[i], false);
	return err;
}

int lo_rules_load(lo_rules **out, const char *const *files, size_t count)
{
	lo_rules *r;
	int err;

	*out = NULL;
	r = rules_new();
	err = collect_defaults(r);
	if (!err)
		err = collect_user(r);
	if (!err)
		err = collect_given(r, files, count);
	return finish(out, r, err);
}

int lo_rules_load_tree(lo_rules **out, const char *build_dir, const char *const *files,
		       size_t count)
{
	lo_buf path = LO_BUF_INIT;
	char *src = NULL, *tree;
	lo_rules *r;
	int err;

	*out = NULL;
	r = rules_new();
	r->resolve_cmake = true;
	r->cmake_cache = cmake_cache_find(build_dir);
	if (r->cmake_cache) {
		tree = lo_xstrndup(r->cmake_cache, strlen(r->cmake_cache) - strlen("/CMakeCache.txt"));
		src = cmake_cache_get(r->cmake_cache, "CMAKE_HOME_DIRECTORY");
	} else {
		tree = lo_xstrdup(build_dir);
	}
	err = collect_defaults(r);
	if (!err)
		err = collect_user(r);
	if (!err && src) {
		lo_buf_printf(&path, "%s/.leftover", src);
		err = collect_file(r, lo_buf_cstr(&path), true);
	}
	if (!err) {
		lo_buf_clear(&path);
		lo_buf_printf(&path, "%s/.leftover/rules", tree);
		err = collect_file(r, lo_buf_cstr(&path), true);
	}
	/* A scan of a directory below the tree's top reads that directory's rules after. */
	if (!err && r->cmake_cache) {
		char *real = realpath(build_dir, NULL);

		if (real && strcmp(real, tree)) {
			lo_buf_clear(&path);
			lo_buf_printf(&path, "%s/.leftover/rules", real);
			err = collect_file(r, lo_buf_cstr(&path), true);
		}
		free(real);
	}
	if (!err)
		err = collect_given(r, files, count);
	lo_buf_dispose(&path);
	free(src);
	free(tree);
	return finish(out, r, err);
}

int lo_rules_check(const char *file)
{
	lo_rules *r = rules_new(), *done = NULL;
	int err = collect_file(r, file, false);

	err = finish(&done, r, err);
	lo_rules_free(done);
	return err;
}

void lo_rules_free(lo_rules *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; i < r->file_count; i++) {
		for (j = 0; j < r->files[i].key_count; j++) {
			free(r->files[i].keys[j].name);
			free(r->files[i].keys[j].include);
		}
		free(r->files[i].keys);
		free(r->files[i].path);
	}
	free(r->files);
	for (i = 0; i < r->entry_count; i++) {
		free(r->entries[i].name);
		free(r->entries[i].value);
	}
	free(r->entries);
	for (i = 0; i < r->warning_count; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->cmake_cache);
	pattern_set_dispose(&r->candidates);
	for (i = 0; i < r->host_count; i++) {
		free(r->hosts[i].name);
		free(r->hosts[i].program);
		pattern_set_dispose(&r->hosts[i].match);
		glob_dispose(&r->hosts[i].provides);
		glob_dispose(&r->hosts[i].needs);
	}
	free(r->hosts);
	glob_dispose(&r->ignore);
	for (i = 0; i < r->rule_count; i++) {
		free((char *)r->rules[i].pub.name);
		free((char *)r->rules[i].pub.reason);
		pattern_set_dispose(&r->rules[i].match);
	}
	free(r->rules);
	free(r);
	git_libgit2_shutdown();
}

/* --- queries --- */

/* The rules installed with this very program: <exe dir>/LEFTOVER_RULES_RELDIR, or NULL. */
static const char *rules_beside_program(void)
{
	static char dir[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *slash;
	struct stat st;

	if (n <= 0)
		return NULL;
	dir[n] = '\0';
	if (!(slash = strrchr(dir, '/')) ||
	    (size_t)snprintf(slash + 1, sizeof(dir) - (size_t)(slash + 1 - dir), "%s",
			     LEFTOVER_RULES_RELDIR) >= sizeof(dir) - (size_t)(slash + 1 - dir))
		return NULL;
	/* "/usr/bin/../share/leftover/rules" as "/usr/share/leftover/rules" in messages */
	return realpath(dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode) ? real : NULL;
}

const char *lo_rules_default_dir(void)
{
	const char *env = getenv("LEFTOVER_RULES_DIR"), *beside;
	struct stat st;

	if (env && *env)
		return env;
	/* a package unpacked or installed under another prefix than it was built for */
	if ((beside = rules_beside_program()))
		return beside;
	if (stat(LEFTOVER_RULES_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return LEFTOVER_RULES_DIR;
	return LEFTOVER_SOURCE_RULES_DIR;
}

bool lo_rules_is_candidate(const lo_rules *r, const char *relpath)
{
	return pattern_set_matches(&r->candidates, relpath);
}

const lo_rules_host *lo_rules_host_of(const lo_rules *r, const char *relpath,
				      lo_rules_needs_fn needs, void *payload)
{
	size_t i = r->host_count, k;

	while (i-- > 0) {
		const host *h = &r->hosts[i];
		bool needed = !h->needs.count;

		if (h->match.count && !pattern_set_matches(&h->match, relpath))
			continue;
		for (k = 0; !needed && k < h->needs.count; k++)
			needed = needs && needs(h->needs.globs[k], payload);
		if (needed)
			return h;
	}
	return NULL;
}

const char *lo_rules_host_name(const lo_rules_host *h)
{
	return h->name;
}

const char *lo_rules_host_program(const lo_rules_host *h)
{
	return h->program;
}

bool lo_rules_host_provides(const lo_rules_host *h, const char *symbol)
{
	return glob_matches(&h->provides, symbol);
}

bool lo_rules_symbol_ignored(const lo_rules *r, const char *symbol)
{
	return glob_matches(&r->ignore, symbol);
}

const lo_rule *lo_rules_rule_for(const lo_rules *r, const char *relpath, unsigned on)
{
	size_t i = r->rule_count;

	while (i-- > 0)
		if ((r->rules[i].on & on) && pattern_set_matches(&r->rules[i].match, relpath))
			return &r->rules[i].pub;
	return NULL;
}

lo_rules_fail lo_rules_fail_on(const lo_rules *r)
{
	return r->fail;
}

size_t lo_rules_warning_count(const lo_rules *r)
{
	return r->warning_count;
}

const char *lo_rules_warning_at(const lo_rules *r, size_t i)
{
	return i < r->warning_count ? r->warnings[i] : NULL;
}

bool lo_rules_fails(const lo_rules *r, const char *relpath, unsigned on)
{
	const lo_rule *ru;

	switch (r->fail) {
	case LO_RULES_FAIL_NEVER:
		return false;
	case LO_RULES_FAIL_BROKEN:
		if (!(on & (LO_RULES_ON_BROKEN | LO_RULES_ON_UNJUDGED)))
			return false;
		break;
	case LO_RULES_FAIL_STALE:
		if (!(on & (LO_RULES_ON_BROKEN | LO_RULES_ON_STALE | LO_RULES_ON_UNJUDGED)))
			return false;
		break;
	}
	ru = lo_rules_rule_for(r, relpath, on);
	return !ru || ru->action != LO_RULES_ACTION_KEEP;
}

int lo_rules_foreach(const lo_rules *r, lo_rules_entry_cb cb, void *payload)
{
	size_t i;
	int ret;

	for (i = 0; i < r->entry_count; i++) {
		const entry *e = &r->entries[i];

		if (e->overridden)
			continue;
		if ((ret = cb(e->name, e->value, r->files[e->file].path, e->line, payload)) != 0)
			return ret;
	}
	return 0;
}
