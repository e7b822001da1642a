/*
 * git.h - where a build tree came from, through libgit2.
 *
 * A lo_git is the repository holding a directory (found upwards, as git
 * itself does), its HEAD and its index: which commit and branch the source
 * is at, whether the work tree is dirty, and whether a file is tracked
 * (a file committed on purpose is never a removal candidate).
 */
#ifndef LEFTOVER_GIT_H
#define LEFTOVER_GIT_H

#include <stdbool.h>

typedef struct lo_git lo_git;

/* The repository holding `dir`; *out NULL (and 0) when there is none. */
int lo_git_open(lo_git **out, const char *dir);
void lo_git_free(lo_git *g);

/* HEAD: the full commit id ("" on an unborn branch) and the branch ("" when detached). */
const char *lo_git_commit(const lo_git *g);
const char *lo_git_branch(const lo_git *g);
/* Are there changes to tracked files, or untracked files not ignored? */
bool lo_git_dirty(const lo_git *g);

/* Is the file at absolute path `abs` in the index? */
bool lo_git_tracks(const lo_git *g, const char *abs);

/*
 * The files (paths relative to the work tree, owned, in diff order) that
 * differ between commits `from` and `to` (full ids) and mention `needle`,
 * in their path or in their old or new contents: what changed about a
 * target between the branch a tree was built at and the current one.
 */
int lo_git_changed_mentioning(const lo_git *g, const char *from, const char *to,
			      const char *needle, char ***paths, size_t *count);

#endif
