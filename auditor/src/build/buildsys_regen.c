/*
 * buildsys_regen.c - are a tree's records older than its build description?
 *
 * Every build system here regenerates its description before it builds
 * anything when an input of that description changed: ninja reruns the
 * edge that makes build.ninja (CMake's RERUN_CMAKE, meson's
 * REGENERATE_BUILD), CMake's Makefiles run cmake_check_build_system,
 * automake's rules remake a Makefile older than its Makefile.am. Until
 * then the records describe the sources the tree was last built from, not
 * the checked-out ones (a checkout not yet rebuilt), and what they call
 * gone the next build may make again: the tree's staleness is withheld.
 * Each reader gives its own regeneration edge; the comparison is one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/deps.h"
#include "leftover/os.h"

/* The mtime of `path` (relative to the tree's dir, or absolute) in ns; -1 when it cannot be had. */
static long long tree_mtime(const lo_bs_tree *t, const char *path)
{
	char *abs = NULL;
	struct stat st;
	long long m = -1;
	bool whole = lo_os_path_is_absolute(path);

	if (asprintf(&abs, "%s%s%s", whole ? "" : t->dir, whole ? "" : "/", path) < 0)
		abort();
	lo_deps_note_path(abs); /* a description edited since: deps.h */
	if (stat(abs, &st) == 0)
		m = lo_bs_mtime_ns(&st);
	free(abs);
	return m;
}

/*
 * As the build itself decides (ninja: an output older than its newest
 * input, or missing; CMake's cmake_check_build_system: the oldest output
 * older than the newest dependency, or either missing), with the same
 * strict comparison: a tie is up to date.
 */
void lo_bs_check_regen(lo_buildsys *bs, lo_bs_tree *t, const char *const *deps, size_t dep_count,
		       const char *const *outs, size_t out_count)
{
	long long oldest = -1, newest = -1, m;
	const char *why = NULL;
	char *line = NULL, at[64] = "";
	size_t i, k = 0;

	if (!dep_count || !out_count)
		return; /* no regeneration rule: nothing says the records are old */
	for (i = 0; i < out_count && !why; i++) {
		if ((m = tree_mtime(t, outs[i])) < 0)
			why = outs[i];
		else if (oldest < 0 || m < oldest)
			oldest = m;
	}
	for (i = 0; i < dep_count && !why; i++) {
		if ((m = tree_mtime(t, deps[i])) < 0) {
			why = deps[i];
		} else if (m > oldest && m > newest) {
			newest = m;
			k = i;
		}
	}
	if (!why && newest >= 0) {
		time_t sec = (time_t)(newest / 1000000000LL);
		struct tm tm;

		why = deps[k];
		if (gmtime_r(&sec, &tm))
			strftime(at, sizeof(at), ", at %Y-%m-%d %H:%M:%S UTC", &tm);
	} else if (why) {
		snprintf(at, sizeof(at), ", missing");
	}
	if (!why)
		return;
	if (asprintf(&line, "the build description changed since the tree was built (%s%s): "
		     "staleness withheld; build first", why, at) < 0)
		abort();
	for (i = 0; i < LO_BS_SOURCES; i++)
		if (!t->missing[i])
			t->missing[i] = lo_xstrdup(line);
	bs->withheld = t->withheld = true;
	lo_bs_note(bs, t, "%s", line);
	free(line);
}
