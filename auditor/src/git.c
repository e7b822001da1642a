/*
 * git.c - HEAD, dirtiness and the index of the repository holding a tree
 * (see git.h), read once through libgit2 and kept for the scan's threads,
 * which only read it.
 */
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/git.h"

struct lo_git {
	git_repository *repo;
	git_index *index; /* NULL for a bare repository */
	char *workdir;    /* real path, ending in '/' */
	char commit[GIT_OID_HEXSZ + 1];
	char *branch;
	bool dirty;
};

int lo_git_open(lo_git **out, const char *dir)
{
	lo_git *g;
	git_reference *head = NULL;
	git_status_options so;
	git_status_list *st = NULL;
	char real[PATH_MAX];
	const char *wd;

	*out = NULL;
	git_libgit2_init();
	g = lo_xcalloc(1, sizeof(*g));
	if (git_repository_open_ext(&g->repo, dir, 0, NULL) < 0 ||
	    !(wd = git_repository_workdir(g->repo)) || !realpath(wd, real)) {
		lo_git_free(g);
		return 0;
	}
	g->workdir = lo_xmalloc(strlen(real) + 2);
	strcpy(g->workdir, real);
	if (g->workdir[strlen(real) - 1] != '/')
		strcat(g->workdir, "/");
	if (git_repository_index(&g->index, g->repo) < 0)
		g->index = NULL;
	else
		git_index_find(NULL, g->index, ""); /* sorts the entries now, not under threads */
	if (git_repository_head(&head, g->repo) == 0) {
		const git_oid *oid = git_reference_target(head);

		if (oid)
			git_oid_tostr(g->commit, sizeof(g->commit), oid);
		g->branch = lo_xstrdup(git_reference_is_branch(head) ? git_reference_shorthand(head) : "");
		git_reference_free(head);
	} else {
		g->branch = lo_xstrdup("");
	}
	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&st, g->repo, &so) == 0) {
		g->dirty = git_status_list_entrycount(st) > 0;
		git_status_list_free(st);
	}
	*out = g;
	return 0;
}

void lo_git_free(lo_git *g)
{
	if (!g)
		return;
	git_index_free(g->index);
	git_repository_free(g->repo);
	free(g->workdir);
	free(g->branch);
	free(g);
	git_libgit2_shutdown();
}

const char *lo_git_commit(const lo_git *g) { return g->commit; }
const char *lo_git_branch(const lo_git *g) { return g->branch; }
bool lo_git_dirty(const lo_git *g) { return g->dirty; }

bool lo_git_tracks(const lo_git *g, const char *abs)
{
	size_t n = strlen(g->workdir);

	if (!g->index || strncmp(abs, g->workdir, n))
		return false;
	/* git_index_find reads the in-memory index: safe from several threads */
	return git_index_find(NULL, g->index, abs + n) == 0;
}
