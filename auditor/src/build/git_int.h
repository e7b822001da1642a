/*
 * git_int.h - private to the git module: git.c reads a repository through
 * libgit2; git_worktree.c says, from each file's stat alone, when its work
 * tree is as the index last saw it, so that libgit2's whole reading of it
 * is not needed.
 */
#ifndef LEFTOVER_GIT_INT_H
#define LEFTOVER_GIT_INT_H

#include <git2.h>
#include <stdbool.h>

/*
 * True only when every tracked file's stat is the one the index holds
 * for it, no entry is too recent for its stat to be trusted, and every
 * other name in the directories of tracked files is ignored: git status
 * would then list nothing from the work tree. False whenever anything
 * else may be (a change, an untracked file, a racily clean entry, a
 * conflict, a sparse or assumed entry, an error): the caller then asks
 * libgit2, which decides. `workdir` is the work tree's path, ending in
 * '/'.
 */
bool lo_git_worktree_as_indexed(git_repository *repo, git_index *index, const char *workdir);

#endif
