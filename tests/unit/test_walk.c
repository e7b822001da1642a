/*
 * test_walk.c - what the walk hands to the scan, on a real directory tree.
 */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/walk.h"

static char work[4096];
static char seen[65536];

static void sh(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static int collect(const lo_walk_entry *e, void *payload)
{
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s%s|",
		 e->relpath, e->type == LO_FT_LNK ? "@" : "", e->err ? "!" : "");
	return 0;
}

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int collect_locked(const lo_walk_entry *e, void *payload)
{
	pthread_mutex_lock(&seen_lock);
	collect(e, payload);
	pthread_mutex_unlock(&seen_lock);
	return 0;
}

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	char cmd[9000];

	snprintf(work, sizeof(work), "%s/tree", base ? base : "/tmp/leftover-unit-walk");
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%1$s' && mkdir -p '%1$s/a/b' '%1$s/.git/objects' '%1$s/outside' && "
		 "touch '%1$s/a/b/lib.so' '%1$s/.git/objects/x.so' '%1$s/outside/o.so' && "
		 "ln -s ../outside '%1$s/a/linkdir' && ln -s b/lib.so '%1$s/a/l.so'",
		 work);
	sh(cmd);
	seen[0] = '\0';
	return 0;
}

/* Files come with paths relative to the root; .git is skipped. */
static void test_relative_paths_and_git_skipped(void **state)
{
	assert_int_equal(lo_walk_tree(work, 1, collect, NULL), 0);
	assert_non_null(strstr(seen, "a/b/lib.so|"));
	assert_null(strstr(seen, ".git"));
	assert_non_null(strstr(seen, "outside/o.so|"));
}

/* A symlinked directory is reported as a link and never entered. */
static void test_symlinked_directory_not_followed(void **state)
{
	assert_int_equal(lo_walk_tree(work, 1, collect, NULL), 0);
	assert_non_null(strstr(seen, "a/linkdir@|"));
	assert_null(strstr(seen, "a/linkdir/"));
	assert_non_null(strstr(seen, "a/l.so@|"));
}

/* Several workers see every entry exactly once. */
static void test_parallel_walk_sees_each_entry_once(void **state)
{
	char cmd[9000];
	size_t n = 0;
	const char *p;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && for d in $(seq 1 40); do mkdir -p w/$d/x/y && "
		 "touch w/$d/a.so w/$d/x/b.so w/$d/x/y/c.so; done", work);
	sh(cmd);
	assert_int_equal(lo_walk_tree(work, 4, collect_locked, NULL), 0);
	for (p = seen; (p = strstr(p, ".so|")); p++)
		n++;
	/* 120 under w/, plus a/b/lib.so and outside/o.so (the link a/l.so shows as "a/l.so@|") */
	assert_int_equal(n, 122);
	assert_non_null(strstr(seen, "w/17/x/y/c.so|"));
}

/* A root that is not a directory is an error, not an empty walk. */
/* A known directory's listing (walk.h): "" and "a" kept, the rest read. */
static const lo_dirent root_kept[] = { { "a", LO_FT_DIR }, { "ghost.so", LO_FT_REG },
				       { "outside", LO_FT_DIR } };
static const lo_dirent a_kept[] = { { "b", LO_FT_DIR }, { "linkdir", LO_FT_DIR } };

static const lo_dirent *known(const char *rel, unsigned worker, size_t *count, void *payload)
{
	if (!strcmp(rel, "")) {
		*count = 3;
		return root_kept;
	}
	if (!strcmp(rel, "a")) {
		*count = 2;
		return a_kept;
	}
	return NULL;
}

/*
 * Known directories are not read (their listing's ghost is handed on, a/'s
 * l.so is not), those below them are; a link a listing calls a directory
 * is still not followed: an error, not its target's entries.
 */
static void test_known_directories_not_read(void **state)
{
	assert_int_equal(lo_walk_tree_known(work, 2, collect_locked, known, NULL), 0);
	assert_non_null(strstr(seen, "ghost.so|"));
	assert_null(strstr(seen, "a/l.so"));
	assert_non_null(strstr(seen, "a/b/lib.so|"));
	assert_non_null(strstr(seen, "outside/o.so|"));
	assert_non_null(strstr(seen, "a/linkdir!|"));
	assert_null(strstr(seen, "a/linkdir/"));
}

static void test_bad_root(void **state)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/a/b/lib.so", work);
	assert_true(lo_walk_tree(path, 1, collect, NULL) < 0);
	snprintf(path, sizeof(path), "%s/missing", work);
	assert_true(lo_walk_tree(path, 1, collect, NULL) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_relative_paths_and_git_skipped, setup),
		cmocka_unit_test_setup(test_symlinked_directory_not_followed, setup),
		cmocka_unit_test_setup(test_parallel_walk_sees_each_entry_once, setup),
		cmocka_unit_test_setup(test_known_directories_not_read, setup),
		cmocka_unit_test_setup(test_bad_root, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
