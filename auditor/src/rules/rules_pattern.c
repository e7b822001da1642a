/*
 * rules_pattern.c - path patterns and symbol globs of the rules.
 *
 * Path patterns are libgit2 pathspecs matched against a file's path in its
 * build tree, or its absolute path and its path in the scanned directory
 * when it is in no build tree (rules.h). Two gaps between pathspecs and .gitignore are bridged here:
 * libgit2 stops at the first pattern that matches, so each set is compiled
 * in reverse and the pattern declared last decides; and libgit2 matches
 * without WM_PATHNAME, where a `**`/ needs at least one directory, so each
 * pattern is also compiled with its `**`/ parts left out (a/`**`/b then
 * matches a/b, and `**`/x.so matches x.so at the root, as in .gitignore).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "rules/rules_int.h"

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
int lo_pattern_set_add(lo_rules *r, pattern_set *ps, const entry *e, const char *value,
			   bool allow_neg, bool neg)
{
	const char *pat = value, *problem, *stars[MAX_DOUBLE_STARS];
	size_t nstars = 0, mask, i;
	const char *p;

	if (*pat == '!') {
		if (!allow_neg)
			return lo_rules_entry_error(r, e, "bad pattern '%s': exclude takes no '!'", value);
		neg = !neg;
		pat++;
	}
	if ((problem = path_pattern_problem(pat)))
		return lo_rules_entry_error(r, e, "bad pattern '%s': %s", value, problem);
	for (p = pat; (p = strstr(p, "**/")); p += 3) {
		if (p != pat && p[-1] != '/')
			continue;
		if (nstars == MAX_DOUBLE_STARS)
			return lo_rules_entry_error(r, e, "bad pattern '%s': more than %d '**/'", value,
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
 * as they are; false when that is not known: a '[' class or a '\\'
 * escape, or no literal at all (`*`). '/' ends a run too, since libgit2
 * may take a trailing one to mean a directory. A pattern without a
 * wildcard also matches the paths below it (its "dirname prefix" match),
 * so only a wildcard pattern's last run is a suffix.
 */
static bool pattern_needle(const char *pat, needle *out)
{
	const char *p, *run = pat, *best = NULL;
	size_t best_len = 0;

	if (strpbrk(pat, "[\\"))
		return false;
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
	if (!best)
		return false;
	out->text = lo_xstrndup(best, best_len);
	out->len = best_len;
	out->suffix = !best[best_len] && strpbrk(pat, "*?") && pat[0] != ':';
	return true;
}

/* Has one of the first n needles the same test as `nd`? */
static bool needle_known(const needle *needles, size_t n, const needle *nd)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (needles[i].suffix == nd->suffix && !strcmp(needles[i].text, nd->text))
			return true;
	return false;
}

/*
 * Each distinct needle once: every path of the walk is tested against all
 * of them, and a `**` pattern's forms (and a pattern two layers give) share
 * theirs.
 */
static void pattern_set_find_needles(pattern_set *ps)
{
	size_t i, n = 0;

	ps->needles = lo_xcalloc(ps->count, sizeof(needle));
	for (i = 0; i < ps->count; i++) {
		if (ps->patterns[i][0] == '!') /* an exclude never makes a path match */
			continue;
		if (!pattern_needle(ps->patterns[i], &ps->needles[n])) {
			while (n > 0)
				free(ps->needles[--n].text);
			free(ps->needles);
			ps->needles = NULL;
			return;
		}
		if (needle_known(ps->needles, n, &ps->needles[n])) {
			free(ps->needles[n].text);
			ps->needles[n].text = NULL;
		} else {
			n++;
		}
	}
	ps->needle_count = n;
}

int lo_pattern_set_compile(pattern_set *ps)
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
	ps->each = lo_xcalloc(ps->count, sizeof(git_pathspec *));
	ps->neg = lo_xcalloc(ps->count, sizeof(bool));
	for (i = 0; err >= 0 && i < ps->count; i++) {
		char *pat = ps->patterns[i];

		ps->neg[i] = pat[0] == '!';
		arr.count = 1;
		arr.strings[0] = pat + ps->neg[i];
		err = git_pathspec_new(&ps->each[i], &arr);
	}
	free(arr.strings);
	if (err < 0)
		return lo_rules_git_error("compile patterns", ps->patterns[0]);
	pattern_set_find_needles(ps);
	return 0;
}

static bool pattern_set_may_match(const pattern_set *ps, const char *relpath)
{
	size_t i, len;

	if (!ps->needles)
		return true;
	len = strlen(relpath);
	for (i = 0; i < ps->needle_count; i++) {
		const needle *n = &ps->needles[i];

		if (n->suffix ? len >= n->len && !memcmp(relpath + len - n->len, n->text, n->len)
			      : strstr(relpath, n->text) != NULL)
			return true;
	}
	return false;
}

bool lo_pattern_set_matches(const pattern_set *ps, const char *const *forms, size_t n)
{
	size_t i = ps->count, k;

	if (!ps->spec)
		return false;
	if (n == 1)
		return pattern_set_may_match(ps, forms[0]) &&
		       git_pathspec_matches_path(ps->spec, GIT_PATHSPEC_USE_CASE, forms[0]) == 1;
	if (!pattern_set_may_match(ps, forms[0]) && !pattern_set_may_match(ps, forms[1]))
		return false;
	while (i-- > 0)
		for (k = 0; k < n; k++)
			if (git_pathspec_matches_path(ps->each[i], GIT_PATHSPEC_USE_CASE, forms[k]) == 1)
				return !ps->neg[i];
	return false;
}

void lo_pattern_set_dispose(pattern_set *ps)
{
	size_t i;

	for (i = 0; i < ps->count; i++) {
		free(ps->patterns[i]);
		if (ps->each)
			git_pathspec_free(ps->each[i]);
	}
	free(ps->patterns);
	free(ps->each);
	free(ps->neg);
	for (i = 0; ps->needles && i < ps->needle_count; i++)
		free(ps->needles[i].text);
	free(ps->needles);
	git_pathspec_free(ps->spec);
}

int lo_glob_list_add(lo_rules *r, glob_list *gl, const entry *e)
{
	const char *problem = symbol_pattern_problem(e->value);

	if (problem)
		return lo_rules_entry_error(r, e, "bad pattern '%s': %s", e->value, problem);
	lo_array_grow(&gl->globs, &gl->cap, gl->count + 1, sizeof(char *));
	gl->globs[gl->count++] = lo_xstrdup(e->value);
	return 0;
}

bool lo_glob_list_matches(const glob_list *gl, const char *s)
{
	size_t i;

	for (i = 0; i < gl->count; i++)
		if (fnmatch(gl->globs[i], s, 0) == 0)
			return true;
	return false;
}

void lo_glob_list_dispose(glob_list *gl)
{
	size_t i;

	for (i = 0; i < gl->count; i++)
		free(gl->globs[i]);
	free(gl->globs);
}
