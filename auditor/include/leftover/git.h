/*
 * git.h - where a build tree came from, through libgit2.
 *
 * A lo_git is the repository holding a directory (found upwards, as git
 * itself does), its HEAD and its index: which commit and branch the source
 * is at, whether the work tree is dirty, and whether a file is tracked
 * (a file committed on purpose is never a removal candidate).
 * Does not own: the build's records of what it produces (buildsys.h), nor
 * an artifact's history across commits (blame.h).
 */
#ifndef LEFTOVER_GIT_H
#define LEFTOVER_GIT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

typedef struct lo_git lo_git;

/*
 * libgit2 for the modules that use it (this one and rules): its global
 * state set up (git_libgit2_init), counted, and torn down with the last.
 * What of it is left out is said in git.c.
 */
void lo_libgit2_init(void);
void lo_libgit2_shutdown(void);

/* The repository holding `dir`; *out NULL (and 0) when there is none. */
int lo_git_open(lo_git **out, const char *dir);
void lo_git_free(lo_git *g);

/* Is `g` the repository git finds from `dir`, so that one open serves both? */
bool lo_git_holds(const lo_git *g, const char *dir);

/* The work tree's real path, ending in '/'. */
const char *lo_git_workdir(const lo_git *g);

/* HEAD: the full commit id ("" on an unborn branch) and the branch ("" when detached). */
const char *lo_git_commit(const lo_git *g);
const char *lo_git_branch(const lo_git *g);
/*
 * Are there changes to tracked files, or untracked files not ignored?
 * Found at the first call, up to the first change (a clean checkout is
 * read whole), and kept: not from two threads at once.
 */
bool lo_git_dirty(lo_git *g);

/*
 * Is the file at absolute path `abs` in the index? The index is read at
 * the first call, and kept: not from two threads at once.
 */
bool lo_git_tracks(lo_git *g, const char *abs);

/*
 * The files (paths relative to the work tree, owned, in diff order) that
 * differ between commits `from` and `to` (full ids) and mention `needle`,
 * in their path or in their old or new contents: what changed about a
 * target between the branch a tree was built at and the current one.
 */
int lo_git_changed_mentioning(const lo_git *g, const char *from, const char *to,
			      const char *needle, char ***paths, size_t *count);

/*
 * Where HEAD was before `when` (seconds since the epoch), by HEAD's reflog:
 * the commit (full id) of the newest entry older than `when`, and the
 * branch the last checkout up to that entry moved to ("" when detached).
 * An entry in the same second as `when` counts as after it: a build writes
 * its files between a checkout and the next one, and a reflog entry only
 * has seconds. This is how a tree leftover never scanned says where it came
 * from: `when` is the time its files were written. *commit is NULL (and 0
 * returned) when the reflog does not reach back that far; *branch is NULL
 * when no checkout says it.
 */
int lo_git_head_at(const lo_git *g, time_t when, char **commit, char **branch);

/* A commit that removed the last mention of a name from some files. */
typedef struct lo_git_drop {
	char *commit;  /* full id, owned; NULL when no commit did */
	char *summary; /* the first line of its message, owned */
	char **paths;  /* the files it dropped the name from, relative to the work tree, owned */
	size_t path_count;
} lo_git_drop;

/*
 * The newest commit of `from`..`to` (reachable from `to`, not from `from`)
 * whose change, against its first parent, takes `needle` out of a file: a
 * file deleted or renamed whose path held it, or whose old contents
 * mention it and new ones do not. At most LO_GIT_MAX_WALK commits are
 * looked at, newest first. out->commit NULL when none did.
 */
#define LO_GIT_MAX_WALK 2000
int lo_git_dropped(const lo_git *g, const char *from, const char *to, const char *needle,
		   lo_git_drop *out);
void lo_git_drop_dispose(lo_git_drop *d);

/*
 * Was the file at absolute path `abs` deleted: absent at HEAD, present in
 * a commit HEAD descends from? 1 yes, 0 no, -1 not known (more history
 * than is looked at). For evidence about what a source tree no longer has.
 */
int lo_git_deleted(const lo_git *g, const char *abs);

/*
 * When did the file at absolute path `abs` leave the work tree, at the
 * latest, by HEAD's reflog: the newest entry moving HEAD from a commit
 * that has it to one that has not (the checkout, commit or reset that
 * removed it), else the newest entry (it left before any of them). 1 with
 * *when set (seconds since the epoch); 0 when the reflog is empty or
 * cannot be read: no bound.
 */
int lo_git_left_at(const lo_git *g, const char *abs, time_t *when);

/*
 * Does HEAD still know of `stem` (a module's name, "_ext"): a file named
 * "stem.*" anywhere in its tree, or a build description (setup.py,
 * setup.cfg, pyproject.toml, meson.build, CMakeLists.txt, Makefile) that
 * mentions it? True, the safe answer, when HEAD cannot be read whole.
 */
bool lo_git_head_knows(const lo_git *g, const char *stem);

#endif
