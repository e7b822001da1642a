/*
 * rules.c - reading rule files and answering the scan's questions from them.
 *
 * Rule files are git-config files, read with libgit2's config API so that
 * syntax errors come with the file and line libgit2 reports and nobody
 * learns a new syntax. Path patterns are libgit2 pathspecs matched against
 * paths relative to the scanned root. libgit2's pathspec match stops at the
 * first pattern that matches, so the patterns of each set are compiled in
 * reverse: the pattern declared last decides, as in .gitignore.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/rules.h"

/* A set of path patterns, in declaration order, and its compiled pathspec. */
typedef struct pattern_set {
	char **patterns; /* owned */
	size_t count, cap;
	git_pathspec *spec; /* owned; NULL when the set is empty */
} pattern_set;

struct lo_rules {
	pattern_set include; /* [candidates] include */
	pattern_set exclude; /* [candidates] exclude */
};

static void pattern_set_add(pattern_set *ps, const char *pattern)
{
	lo_array_grow(&ps->patterns, &ps->cap, ps->count + 1, sizeof(char *));
	ps->patterns[ps->count++] = lo_xstrdup(pattern);
}

static int pattern_set_compile(pattern_set *ps, const char *what)
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
	if (err < 0) {
		const git_error *ge = git_error_last();

		return lo_error_set(LO_EINVALID, "bad %s patterns: %s", what,
				    ge ? ge->message : "unknown libgit2 error");
	}
	return 0;
}

static bool pattern_set_matches(const pattern_set *ps, const char *relpath)
{
	return ps->spec && git_pathspec_matches_path(ps->spec, GIT_PATHSPEC_USE_CASE, relpath) == 1;
}

static void pattern_set_dispose(pattern_set *ps)
{
	size_t i;

	for (i = 0; i < ps->count; i++)
		free(ps->patterns[i]);
	free(ps->patterns);
	git_pathspec_free(ps->spec);
	memset(ps, 0, sizeof(*ps));
}

static int git_fail(int code, const char *what, const char *path)
{
	const git_error *ge = git_error_last();

	return lo_error_set(code, "cannot %s '%s': %s", what, path,
			    ge && ge->message ? ge->message : "unknown libgit2 error");
}

static int read_candidates(lo_rules *r, git_config *cfg, const char *path)
{
	git_config_iterator *it;
	git_config_entry *e;
	int err;

	if (git_config_iterator_glob_new(&it, cfg, "^candidates\\.") < 0)
		return git_fail(LO_EINVALID, "read rule file", path);
	while ((err = git_config_next(&e, it)) == 0) {
		if (!strcmp(e->name, "candidates.include"))
			pattern_set_add(&r->include, e->value);
		else if (!strcmp(e->name, "candidates.exclude"))
			pattern_set_add(&r->exclude, e->value);
		else {
			git_config_iterator_free(it);
			return lo_error_set(LO_EINVALID, "%s: unknown key '%s'", path, e->name);
		}
	}
	git_config_iterator_free(it);
	if (err != GIT_ITEROVER)
		return git_fail(LO_EINVALID, "read rule file", path);
	return 0;
}

static int read_file(lo_rules *r, const char *path)
{
	git_config *cfg;
	int err;

	if (git_config_open_ondisk(&cfg, path) < 0)
		return git_fail(LO_EINVALID, "read rule file", path);
	err = read_candidates(r, cfg, path);
	git_config_free(cfg);
	return err;
}

const char *lo_rules_default_dir(void)
{
	struct stat st;

	if (stat(LEFTOVER_RULES_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return LEFTOVER_RULES_DIR;
	return LEFTOVER_SOURCE_RULES_DIR;
}

int lo_rules_load(lo_rules **out, const char *const *files, size_t count)
{
	lo_rules *r;
	lo_buf path = LO_BUF_INIT;
	size_t i;
	int err;

	*out = NULL;
	git_libgit2_init();
	r = lo_xcalloc(1, sizeof(*r));
	lo_buf_printf(&path, "%s/default.rules", lo_rules_default_dir());
	err = read_file(r, lo_buf_cstr(&path));
	lo_buf_dispose(&path);
	for (i = 0; err == 0 && i < count; i++)
		err = read_file(r, files[i]);
	if (err == 0)
		err = pattern_set_compile(&r->include, "candidate include");
	if (err == 0)
		err = pattern_set_compile(&r->exclude, "candidate exclude");
	if (err < 0) {
		lo_rules_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void lo_rules_free(lo_rules *r)
{
	if (!r)
		return;
	pattern_set_dispose(&r->include);
	pattern_set_dispose(&r->exclude);
	free(r);
	git_libgit2_shutdown();
}

bool lo_rules_is_candidate(const lo_rules *r, const char *relpath)
{
	return pattern_set_matches(&r->include, relpath) && !pattern_set_matches(&r->exclude, relpath);
}
