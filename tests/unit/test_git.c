/*
 * test_git.c - what the git module says of a real repository that the
 * test makes with git itself: HEAD's commit and branch (detached, unborn),
 * a dirty work tree (and ignored files that are not dirt, a change only
 * staged that is), as git status itself says it, also where the work tree
 * is judged by stat alone, and which files are tracked, by absolute path,
 * including one only staged; where HEAD was at a given time by the
 * reflog, and which commit dropped a name.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/git.h"
#include "build/git_int.h"

static char repo[PATH_MAX];

#define GIT "git -c user.name=unit -c user.email=unit@example.invalid -c init.defaultBranch=main"

/* A repository with one commit on branch `main`: src/a.c, lib/prebuilt.so, .gitignore. */
static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	char made[PATH_MAX];

	snprintf(made, sizeof(made), "%s/repo", base ? base : "/tmp/leftover-unit-git");
	sh("rm -rf '%1$s' && mkdir -p '%1$s/src' '%1$s/lib' && cd '%1$s' && " GIT " init -q && "
	   "echo 'int a;' > src/a.c && printf 'ELF' > lib/prebuilt.so && echo '*.o' > .gitignore && "
	   GIT " add -A && " GIT " commit -q -m one",
	   made);
	if (!realpath(made, repo))
		fail_msg("realpath %s", made);
	return 0;
}

static lo_git *open_at(const char *rel)
{
	char dir[PATH_MAX + 64];
	lo_git *g = NULL;

	snprintf(dir, sizeof(dir), "%s/%s", repo, rel);
	assert_int_equal(lo_git_open(&g, dir), 0);
	assert_non_null(g);
	return g;
}

static bool tracks(lo_git *g, const char *rel)
{
	char abs[PATH_MAX + 64];

	snprintf(abs, sizeof(abs), "%s/%s", repo, rel);
	return lo_git_tracks(g, abs);
}

/* HEAD as git itself says it; found from a subdirectory, as git does. */
static void test_head_commit_and_branch(void **state)
{
	char cmd[PATH_MAX + 64], head[64] = "";
	lo_git *g = open_at("src");
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse HEAD", repo);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(head, sizeof(head), p));
	pclose(p);
	head[strcspn(head, "\n")] = '\0';
	assert_int_equal(strlen(head), 40);
	assert_string_equal(lo_git_commit(g), head);
	assert_string_equal(lo_git_branch(g), "main");
	assert_false(lo_git_dirty(g));
	lo_git_free(g);

	sh("cd '%s' && " GIT " checkout -q -b other && " GIT " commit -q --allow-empty -m two && "
	   GIT " checkout -q --detach", repo);
	g = open_at("");
	assert_string_equal(lo_git_branch(g), ""); /* detached */
	assert_string_not_equal(lo_git_commit(g), head);
	lo_git_free(g);
}

/* An untracked file makes the tree dirty, an ignored one does not, nor does a clean tree. */
static void test_dirty(void **state)
{
	lo_git *g;

	sh("touch '%s/src/a.o'", repo);
	g = open_at("");
	assert_false(lo_git_dirty(g));
	lo_git_free(g);

	sh("touch '%s/src/new.c'", repo);
	g = open_at("");
	assert_true(lo_git_dirty(g));
	lo_git_free(g);

	/* a directory of ignored files only is not dirt either */
	sh("rm '%1$s/src/new.c' && mkdir '%1$s/objs' && touch '%1$s/objs/b.o'", repo);
	g = open_at("");
	assert_false(lo_git_dirty(g));
	lo_git_free(g);

	sh("echo 'int b;' >> '%1$s/src/a.c'", repo);
	g = open_at("");
	assert_true(lo_git_dirty(g)); /* a change to a tracked file */
	lo_git_free(g);

	/* a change only staged: the work tree is the index, HEAD is not */
	sh("cd '%s' && " GIT " add src/a.c", repo);
	g = open_at("");
	assert_true(lo_git_dirty(g));
	assert_true(lo_git_dirty(g)); /* asked again, the same */
	lo_git_free(g);
}

/*
 * Does git itself list a change, and one in the work tree (its second
 * column, or an untracked file)? Without refreshing the index, which
 * would change what is tested.
 */
static bool git_lists_changes(bool *in_worktree)
{
	char cmd[PATH_MAX + 128], line[512];
	bool any = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd '%s' && git --no-optional-locks status --porcelain", repo);
	assert_non_null(p = popen(cmd, "r"));
	*in_worktree = false;
	while (fgets(line, sizeof(line), p)) {
		any = true;
		if (line[1] != ' ')
			*in_worktree = true;
	}
	assert_int_equal(pclose(p), 0);
	return any;
}

/* Does the walk by stat alone, which lo_git_dirty asks first, vouch for the work tree? */
static bool vouched_by_stat(void)
{
	git_repository *r;
	git_index *index;
	char wd[PATH_MAX + 2];
	bool yes;

	lo_libgit2_init();
	assert_int_equal(git_repository_open(&r, repo), 0);
	assert_int_equal(git_repository_index(&index, r), 0);
	snprintf(wd, sizeof(wd), "%s/", repo);
	yes = lo_git_worktree_as_indexed(r, index, wd);
	git_index_free(index);
	git_repository_free(r);
	lo_libgit2_shutdown();
	return yes;
}

/*
 * The checkout as a build finds it: written a while ago, and the index
 * refreshed since, so that no entry is too recent for its stat to count.
 */
static void settle(void)
{
	sh("cd '%s' && find . -path ./.git -prune -o -print0 | xargs -0 touch -h -d '-1 hour' && "
	   "git update-index -q --refresh",
	   repo);
}

static void settled(void)
{
	setup(NULL);
	settle();
}

/*
 * lo_git_dirty says what git status says (`dirty`, which the change made
 * must give git too), and the walk by stat vouches for no work tree git
 * lists a change in; `vouched` 1 or 0 where it must, -1 where either is
 * right.
 */
static void dirty_as_git(bool dirty, int vouched)
{
	lo_git *g = open_at("");
	bool by_stat = vouched_by_stat(), in_worktree;

	assert_int_equal(git_lists_changes(&in_worktree), dirty);
	assert_int_equal(lo_git_dirty(g), dirty);
	if (in_worktree)
		assert_false(by_stat);
	if (vouched >= 0)
		assert_int_equal(by_stat, vouched);
	lo_git_free(g);
}

/* Changes git lists, and ones it does not, in a settled checkout. */
static void test_dirty_by_stat(void **state)
{
	settled();
	dirty_as_git(false, 1); /* nothing to ask libgit2 */
	sh("touch '%s/src/a.o'", repo);
	dirty_as_git(false, 1); /* an ignored file beside tracked ones */
	settled();
	sh("mkdir '%s/empty'", repo);
	dirty_as_git(false, 1); /* git lists no empty directory */
	sh("cd '%s' && mkdir -p objs/deep && touch objs/b.o objs/deep/c.o", repo);
	dirty_as_git(false, 1); /* nor one of ignored files only, as a branch switch leaves */
	sh("touch '%s/objs/deep/c.c'", repo);
	dirty_as_git(true, 0); /* but a file not ignored, however deep */
	settled();
	sh("cd '%s' && git init -q nested", repo);
	dirty_as_git(true, 0); /* a repository inside is listed, empty or not */
	settled();
	sh("echo 'int n;' > '%s/src/new.c'", repo);
	dirty_as_git(true, 0);
	settled();
	sh("chmod +x '%s/src/a.c'", repo);
	dirty_as_git(true, 0);
	settled();
	sh("rm '%s/src/a.c'", repo);
	dirty_as_git(true, 0);
	settled();
	sh("cd '%1$s' && rm -rf '%1$s.lib' && mv lib '%1$s.lib' && ln -s '%1$s.lib' lib", repo);
	dirty_as_git(true, 0); /* a tracked directory now a link to it, outside the work tree */
	settled();
	sh("cd '%s' && rm src/a.c && mkdir src/a.c", repo);
	dirty_as_git(true, 0);
	settled();
	sh("cd '%s' && touch src/a.c && " GIT " add src/a.c && touch -d '-1 hour' src/a.c && "
	   "git update-index -q --refresh",
	   repo);
	dirty_as_git(false, 1); /* added again unchanged: the index's cached tree ids are gone */
	settled();
	sh("cd '%s' && echo 'int b;' >> src/a.c && " GIT " add src/a.c && touch -d '-1 hour' src/a.c && "
	   "git update-index -q --refresh",
	   repo);
	dirty_as_git(true, 1); /* only staged: the work tree is vouched for, HEAD is not the index */
}

/* Both of the walk's threads read many directories; a change in the last one is found. */
static void test_dirty_many_directories(void **state)
{
	sh("cd '%s' && for i in $(seq 100 299); do mkdir -p d/$i && echo $i > d/$i/f.c; done && " GIT
	   " add -A && " GIT " commit -q -m many",
	   repo);
	settle();
	dirty_as_git(false, 1);
	sh("echo 2 >> '%s/d/299/f.c'", repo);
	dirty_as_git(true, 0);
}

/*
 * The index records for src/a.c the stat its file has now, with the id of
 * HEAD's blob while the file holds other bytes of the same size. git
 * trusts the stat of an entry older than the index, and lists nothing;
 * made as recent as the index, the entry is racily clean and git reads
 * the file.
 */
static void test_dirty_racily_clean(void **state)
{
	git_repository *r;
	git_index *index;
	git_index_entry e;
	char path[PATH_MAX + 16];
	struct stat st;

	settled();
	sh("cd '%s' && printf 'int b;\\n' > src/a.c && touch -d '-2 hours' src/a.c", repo);
	snprintf(path, sizeof(path), "%s/src/a.c", repo);
	assert_int_equal(stat(path, &st), 0);
	lo_libgit2_init();
	assert_int_equal(git_repository_open(&r, repo), 0);
	assert_int_equal(git_repository_index(&index, r), 0);
	e = *git_index_get_bypath(index, "src/a.c", 0);
	e.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
	e.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
	e.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
	e.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
	e.dev = (uint32_t)st.st_dev;
	e.ino = (uint32_t)st.st_ino;
	e.uid = st.st_uid;
	e.gid = st.st_gid;
	e.file_size = (uint32_t)st.st_size;
	assert_int_equal(git_index_add(index, &e), 0);
	assert_int_equal(git_index_write(index), 0);
	git_index_free(index);
	git_repository_free(r);
	lo_libgit2_shutdown();
	dirty_as_git(false, 1);
	sh("touch -d '-3 hours' '%s/.git/index'", repo);
	dirty_as_git(true, 0);
}

/* Tracked means in the index: committed or staged; never a path outside the work tree. */
static void test_tracks(void **state)
{
	char outside[PATH_MAX + 64];
	lo_git *g;

	sh("cd '%1$s' && printf 'ELF' > lib/built.so && printf 'ELF' > lib/staged.so && "
	   GIT " add lib/staged.so && mkdir -p '%1$s-twin/lib' && cp lib/prebuilt.so '%1$s-twin/lib/'",
	   repo);
	g = open_at("lib");
	assert_true(tracks(g, "lib/prebuilt.so"));
	assert_true(tracks(g, "src/a.c"));
	assert_true(tracks(g, "lib/staged.so"));
	assert_false(tracks(g, "lib/built.so"));
	assert_false(tracks(g, "lib"));           /* a directory is not an entry */
	assert_false(tracks(g, "lib/prebuilt")); /* nor a prefix of one */
	/* a sibling whose name starts with the work tree's is outside it */
	snprintf(outside, sizeof(outside), "%s-twin/lib/prebuilt.so", repo);
	assert_false(lo_git_tracks(g, outside));
	lo_git_free(g);
}

/* An unborn branch: no commit yet, nothing tracked until staged. */
static void test_unborn(void **state)
{
	lo_git *g;

	sh("rm -rf '%1$s' && mkdir -p '%1$s' && cd '%1$s' && " GIT " init -q && touch x.so", repo);
	g = open_at("");
	assert_string_equal(lo_git_commit(g), "");
	assert_true(lo_git_dirty(g));
	assert_false(tracks(g, "x.so"));
	lo_git_free(g);
}

/* No repository around the directory: no model and no error. */
static void test_no_repository(void **state)
{
	char tmpl[] = "/tmp/leftover-unit-git-XXXXXX", cmd[128];
	char *dir = mkdtemp(tmpl);
	lo_git *g = (lo_git *)1;
	int rc;

	assert_non_null(dir);
	/* /tmp is inside no repository unless someone made it one: then skip */
	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse 2>/dev/null", dir);
	if (system(cmd) == 0) {
		sh("rm -rf '%s'", dir);
		skip();
	}
	rc = lo_git_open(&g, dir);
	sh("rm -rf '%s'", dir);
	assert_int_equal(rc, 0);
	assert_null(g);
	lo_git_free(NULL);
}

static void rev_parse(const char *ref, char out[64])
{
	char cmd[PATH_MAX + 128];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", repo, ref);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(out, 64, p));
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

/* Reflog times set by GIT_COMMITTER_DATE: a checkout to feat at t, a commit at t+100, back at t+200. */
static void test_head_at_by_reflog(void **state)
{
	long t = (long)time(NULL) + 1000;
	char one[64], two[64], *commit, *branch;
	lo_git *g;

	sh("cd '%1$s' && GIT_COMMITTER_DATE='@%2$ld +0000' " GIT " checkout -q -b feat && "
	   "GIT_COMMITTER_DATE='@%3$ld +0000' " GIT " commit -q --allow-empty -m two && "
	   "GIT_COMMITTER_DATE='@%4$ld +0000' " GIT " checkout -q main",
	   repo, t, t + 100, t + 200);
	rev_parse("main", one);
	rev_parse("feat", two);
	g = open_at("");
	/* after the commit on feat, before going back */
	assert_int_equal(lo_git_head_at(g, t + 150, &commit, &branch), 0);
	assert_string_equal(commit, two);
	assert_string_equal(branch, "feat");
	free(commit);
	free(branch);
	/* an entry in the same second counts as after: at t+100, HEAD was still at one on feat */
	assert_int_equal(lo_git_head_at(g, t + 100, &commit, &branch), 0);
	assert_string_equal(commit, one);
	assert_string_equal(branch, "feat");
	free(commit);
	free(branch);
	/* before the first checkout: the initial commit, no checkout names its branch */
	assert_int_equal(lo_git_head_at(g, t, &commit, &branch), 0);
	assert_string_equal(commit, one);
	assert_null(branch);
	free(commit);
	/* before the reflog begins */
	assert_int_equal(lo_git_head_at(g, 1, &commit, &branch), 0);
	assert_null(commit);
	assert_null(branch);
	lo_git_free(g);
}

/* The commit that removed the last mention: not the one that added it, nor a later edit elsewhere. */
static void test_dropped(void **state)
{
	char base[64], drop[64];
	lo_git_drop d;
	lo_git *g;

	sh("cd '%s' && " GIT " checkout -q -b trim && echo 'frobnicate();' > src/f.c && "
	   "echo 'add(frobnicate)' > build.txt && " GIT " add -A && " GIT " commit -q -m 'add f' && "
	   GIT " rm -q src/f.c && echo 'add(other)' > build.txt && " GIT " commit -q -am 'drop f' && "
	   "echo 'int c;' > src/c.c && " GIT " add -A && " GIT " commit -q -m 'unrelated'",
	   repo);
	rev_parse("main", base);
	rev_parse("trim~1", drop);
	g = open_at("");
	assert_int_equal(lo_git_dropped(g, base, lo_git_commit(g), "frobnicate", &d), 0);
	assert_non_null(d.commit);
	assert_string_equal(d.commit, drop);
	assert_string_equal(d.summary, "drop f");
	assert_int_equal(d.path_count, 2);
	assert_string_equal(d.paths[0], "build.txt");
	assert_string_equal(d.paths[1], "src/f.c");
	lo_git_drop_dispose(&d);
	/* a name nothing dropped */
	assert_int_equal(lo_git_dropped(g, base, lo_git_commit(g), "int c", &d), 0);
	assert_null(d.commit);
	assert_int_equal(d.path_count, 0);
	lo_git_drop_dispose(&d);
	lo_git_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_head_commit_and_branch, setup),
		cmocka_unit_test_setup(test_dirty, setup),
		cmocka_unit_test(test_dirty_by_stat),
		cmocka_unit_test(test_dirty_racily_clean),
		cmocka_unit_test_setup(test_dirty_many_directories, setup),
		cmocka_unit_test_setup(test_tracks, setup),
		cmocka_unit_test_setup(test_unborn, setup),
		cmocka_unit_test_setup(test_no_repository, setup),
		cmocka_unit_test_setup(test_head_at_by_reflog, setup),
		cmocka_unit_test_setup(test_dropped, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
