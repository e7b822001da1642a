/*
 * pattern_win.c - fnmatch(3), glob(3), getline(3) and memmem(3) for
 * os/posix_win.h: what the C library has on POSIX systems and the Windows
 * one has not.
 *
 * fnmatch is leftover's own matcher (base/wildcard.c, which says what it
 * takes). glob: wildcards in the last component only (the callers' patterns: a program's versions, a cargo
 * workspace's members); anything else, and GLOB_ALTDIRFUNC (ld.so.conf's
 * include lines, which mean nothing on Windows), is GLOB_NOSYS.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/wildcard.h"

int fnmatch(const char *pattern, const char *name, int flags)
{
	return lo_wildcard_match(pattern, name, flags) ? 0 : FNM_NOMATCH;
}

static bool wild(const char *s, size_t n) { return strcspn(s, "*?[") < n; }

int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	const char *slash = strrchr(pattern, '/'), *last = slash ? slash + 1 : pattern;
	char *dir = slash ? lo_xstrndup(pattern, (size_t)(slash - pattern)) : lo_xstrdup(".");
	struct lo_win_stat st;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	(void)errfunc;
	memset(g, 0, sizeof(*g));
	if ((flags & GLOB_ALTDIRFUNC) || wild(pattern, (size_t)(last - pattern))) {
		free(dir);
		return GLOB_NOSYS;
	}
	if (!wild(last, strlen(last))) {
		free(dir);
		if (lstat(pattern, &st) < 0)
			return GLOB_NOMATCH;
		g->gl_pathv = lo_xcalloc(2, sizeof(char *));
		g->gl_pathv[g->gl_pathc++] = lo_xstrdup(pattern);
		return 0;
	}
	if (!(d = opendir(slash && slash == pattern ? "/" : dir))) {
		free(dir);
		return GLOB_NOMATCH;
	}
	while ((de = readdir(d)))
		if (fnmatch(last, de->d_name, FNM_PERIOD) == 0) {
			lo_array_grow(&g->gl_pathv, &cap, g->gl_pathc + 2, sizeof(char *));
			if (asprintf(&g->gl_pathv[g->gl_pathc++], "%.*s%s", (int)(last - pattern),
				     pattern, de->d_name) < 0)
				abort();
			g->gl_pathv[g->gl_pathc] = NULL;
		}
	closedir(d);
	free(dir);
	if (!g->gl_pathc)
		return GLOB_NOMATCH;
	if (!(flags & GLOB_NOSORT))
		lo_strv_sort(g->gl_pathv, g->gl_pathc);
	return 0;
}

void globfree(glob_t *g)
{
	size_t i;

	for (i = 0; i < g->gl_pathc; i++)
		free(g->gl_pathv[i]);
	free(g->gl_pathv);
	g->gl_pathv = NULL;
	g->gl_pathc = 0;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
	size_t n = 0;
	int c;

	if (!*line || !*cap) {
		*cap = 128;
		*line = lo_xrealloc(*line, *cap);
	}
	while ((c = getc(f)) != EOF) {
		if (n + 2 > *cap) {
			*cap *= 2;
			*line = lo_xrealloc(*line, *cap);
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	(*line)[n] = '\0';
	return n ? (ssize_t)n : -1;
}

void *memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len)
{
	const char *h = hay, *end = h + hay_len;

	if (!needle_len)
		return (void *)hay;
	for (; (size_t)(end - h) >= needle_len; h++) {
		if (!(h = memchr(h, *(const char *)needle, (size_t)(end - h) - needle_len + 1)))
			return NULL;
		if (!memcmp(h, needle, needle_len))
			return (void *)h;
	}
	return NULL;
}
