/*
 * blame.h - where an artifact of a build tree came from, and the file of
 * the source repository to hold responsible for it.
 *
 * It owns the history of one artifact: its build tree (the nearest
 * directory above with a CMakeCache.txt) and source; the commit the tree
 * was built at (the last scan's record, else git's reflog at the time the
 * file was written) against HEAD; the files changed since that mention the
 * artifact's name and the commit that dropped it. From that, the one file
 * a CI report points at, since GitHub shows an alert only on a file of the
 * repository: the first file of the dropping commit, else the first
 * changed file, else the build's top CMakeLists.txt, with the line naming
 * the artifact. `explain` prints the same history (explain.h); the CI
 * reports (report_ci.h) point where it says. It does not judge the
 * artifact (scan.h) nor word anything for a reader.
 */
#ifndef LEFTOVER_BLAME_H
#define LEFTOVER_BLAME_H

#include <stddef.h>

#include "leftover/git.h"

typedef struct lo_blame {
	char *build_dir;            /* the nearest ancestor with a CMakeCache.txt, absolute */
	char *source;               /* its CMAKE_HOME_DIRECTORY, as CMake wrote it */
	char *repo;                 /* the source's git work tree, else the real source: ends in '/' */
	char *head, *head_branch;   /* the source's HEAD now; NULL without git */
	char *built, *built_branch; /* the other commit the tree was built at, or NULL */
	const char *built_by;       /* "the last scan" or "git's reflog" */
	char *name;                 /* the target name looked for in the history, when built */
	char **changed;             /* files changed built..head mentioning name, relative to repo */
	size_t changed_count;
	lo_git_drop drop;           /* the commit that dropped name, and the files it dropped it from */
	char *file;                 /* what a CI report points at, relative to repo */
	unsigned line;              /* the first line of `file` naming the artifact, 1 when none does */
	unsigned line_length;       /* that line's length in characters (code points), for a region */
} lo_blame;

/*
 * The history of the artifact at absolute path `abs`, owned; NULL when it
 * is in no CMake build tree (its source unknown). Every part past the
 * source is optional: a tree without git, or built at HEAD, gets what can
 * be known.
 */
lo_blame *lo_blame_new(const char *abs);
void lo_blame_free(lo_blame *b);

#endif
