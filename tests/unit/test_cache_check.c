/*
 * test_cache_check.c - a kept result's dependencies statted relative to
 * opened directories give what a stat of each whole path gives (cache.h,
 * scan/cache_check.c).
 *
 * The check opens the directories that many dependencies share and stats
 * each name relative to one of them. That is only right while it follows
 * stat's rules: a symlinked directory on the way is followed as it points
 * now (not as it pointed when the directory was opened by a scan before),
 * ".." after a link is the link target's parent, not the lexical one, a
 * name under a file or a missing directory is absent, "//" is one
 * separator. Each case has enough dependencies under one directory for
 * the check to open it, and after the tree is changed every state must be
 * the one the whole path's stat says.
 *
 * A second name of a file through ".." (an alias, cache.h) is stated
 * from its lexical normalisation N and the walked directories the ".."
 * take back, without a stat: it must still say what its stat says when
 * one of those directories is replaced by a link, or renamed with a link
 * in its place, and when N changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/cache.h"
#include "leftover/deps.h"

/* Names per directory: more than cache_check.c opens a directory for. */
#define NAMES 40

/* 8 and 72 "./": more directories on the way than the check keeps open. */
#define DOTS8 "././././././././"
#define DOTS72 DOTS8 DOTS8 DOTS8 DOTS8 DOTS8 DOTS8 DOTS8 DOTS8 DOTS8

/* The spellings, under the tree, of each dependency f<i> (or a name absent). */
static const char *const spellings[] = {
	"real/lib/f%02d",         /* plain */
	"link/lib/f%02d",         /* a symlinked directory on the way */
	"liblink/../lib/f%02d",   /* ".." after a link: real/lib's parent */
	"bin/../real/lib/f%02d",  /* ".." after a directory */
	"link/" DOTS72 "lib/f%02d", /* 74 directories deep */
	"/real//lib/f%02d",       /* "//" (the tree's path has no separator last) */
	"real/lib/missing%02d",   /* absent in a directory that is there */
	"plain/x%02d",            /* absent: a file on the way */
	"none/x%02d",             /* absent: nothing on the way */
	"real/lib/dangling%02d",  /* a link to nothing */
};

static char tree[4096];

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");

	(void)state;
	snprintf(tree, sizeof(tree), "%s/cache-check-%d", base ? base : "/tmp", (int)getpid());
	sh("rm -rf '%s' && mkdir -p '%s/real/lib' '%s/other/lib' '%s/bin' && cd '%s' && "
	   "for i in $(seq -w 0 %d); do echo real$i > real/lib/f$i && echo other-$i > other/lib/f$i "
	   "&& ln -s gone$i real/lib/dangling$i; done",
	   tree, tree, tree, tree, tree, NAMES - 1);
	sh("ln -s real '%s/link' && ln -s real/lib '%s/liblink' && echo x > '%s/plain'", tree, tree,
	   tree);
	/* al/tools/bin/../../lib/libx.so names al/lib/libx.so; o2/lib/libx.so is another file */
	sh("cd '%s' && mkdir -p al/lib al/tools/bin o2/a/b o2/lib && echo one > al/lib/libx.so && "
	   "echo another > o2/lib/libx.so",
	   tree);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", tree);
	return 0;
}

/* Every spelling of every name, as it stats now, kept as a scan would keep it (paths ours). */
static lo_cache_entry *kept_now(void)
{
	lo_cache_entry *e = calloc(1, sizeof(*e));
	size_t n = sizeof(spellings) / sizeof(*spellings) * NAMES + 2, k = 0, s;
	char path[8192], name[256];
	int i;

	e->key = "key";
	/* long after every stamp of the tree: nothing in it is racy */
	e->written_ns = ((int64_t)time(NULL) + 3600) * 1000000000;
	e->deps.deps = calloc(n, sizeof(lo_dep));
	for (s = 0; s < sizeof(spellings) / sizeof(*spellings); s++) {
		for (i = 0; i < NAMES; i++) {
			snprintf(name, sizeof(name), spellings[s], i);
			snprintf(path, sizeof(path), "%s%s%s", tree, name[0] == '/' ? "" : "/", name);
			e->deps.deps[k] = lo_dep_of(path);
			e->deps.deps[k].path = strdup(path);
			e->deps.deps[k++].use = LO_DEP_SHARED;
		}
	}
	/* the link itself followed, and a directory spelt with a separator last */
	snprintf(path, sizeof(path), "%s/link", tree);
	e->deps.deps[k] = lo_dep_of(path);
	e->deps.deps[k].path = strdup(path);
	e->deps.deps[k++].use = LO_DEP_SHARED;
	snprintf(path, sizeof(path), "%s/real/lib/", tree);
	e->deps.deps[k] = lo_dep_of(path);
	e->deps.deps[k].path = strdup(path);
	e->deps.deps[k++].use = LO_DEP_SHARED;
	e->deps.count = k;
	return e;
}

/* The paths under the tree of the aliased case, each with its use. */
static const struct {
	const char *rel;
	uint8_t use;
} aliased[] = {
	{ "al", LO_DEP_WALK },
	{ "al/lib", LO_DEP_WALK },
	{ "al/tools", LO_DEP_WALK },
	{ "al/tools/bin", LO_DEP_WALK },
	{ "al/lib/libx.so", LO_DEP_LOCAL },
	{ "al/tools/bin/../../lib/libx.so", LO_DEP_LOCAL }, /* the alias */
	{ "al/tools/../tools/bin/../../o2/lib/libx.so", LO_DEP_LOCAL }, /* absent: no alias */
};

/* The aliased case as it stats now, its one alias found as the writer finds it. */
static lo_cache_entry *kept_aliased(void)
{
	size_t n = sizeof(aliased) / sizeof(*aliased), k;
	lo_cache_entry *e = calloc(1, sizeof(*e));
	char path[8192];

	e->key = "key";
	e->written_ns = ((int64_t)time(NULL) + 3600) * 1000000000;
	e->deps.deps = calloc(n, sizeof(lo_dep));
	for (k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "%s/%s", tree, aliased[k].rel);
		e->deps.deps[k] = lo_dep_of(path);
		e->deps.deps[k].path = strdup(path);
		e->deps.deps[k].use = aliased[k].use;
	}
	e->deps.count = n;
	e->alias_count = lo_cache_aliases_find(&e->deps, &e->aliases, &e->alias_dirs);
	assert_int_equal(e->alias_count, 1);
	return e;
}

static void kept_free(lo_cache_entry *e)
{
	size_t i;

	free(e->aliases);
	free(e->alias_dirs);
	for (i = 0; i < e->deps.count; i++)
		free(e->deps.deps[i].path);
	free(e->deps.deps);
	free(e);
}

/* Each state of e is what the stat of its whole path says; returns how many changed. */
static size_t states_as_stat_says(const lo_cache_entry *e, unsigned jobs)
{
	unsigned char *states = lo_cache_states(e, jobs);
	size_t i, changed = 0;

	for (i = 0; i < e->deps.count; i++) {
		lo_dep now = lo_dep_of(e->deps.deps[i].path);
		int want = lo_dep_same(&e->deps.deps[i], &now) ? LO_CACHE_SAME : LO_CACHE_CHANGED;

		if (states[i] != want)
			fail_msg("'%s': state %d, its stat says %d", e->deps.deps[i].path, states[i],
				 want);
		changed += want == LO_CACHE_CHANGED;
	}
	free(states);
	return changed;
}

static void test_unchanged_tree_stats_the_same(void **state)
{
	lo_cache_entry *e = kept_now();
	char *why = NULL;

	(void)state;
	assert_int_equal(states_as_stat_says(e, 1), 0);
	assert_int_equal(states_as_stat_says(e, 2), 0);
	assert_true(lo_cache_check(e, "key", 2, &why));
	assert_null(why);
	kept_free(e);
}

static void test_changes_on_the_way_seen_as_stat_sees_them(void **state)
{
	lo_cache_entry *e = kept_now();
	char *why = NULL;

	(void)state;
	/* links repointed, names appear where they were absent, a file becomes a directory */
	sh("cd '%s' && ln -sfn other link && ln -sfn other/lib liblink && rm plain && mkdir plain "
	   "&& touch plain/x00 real/lib/missing07 && mkdir -p none && touch none/x05",
	   tree);
	sh("cd '%s/real/lib' && ln -sf ../../other/lib/f09 gone11", tree);
	/* all of link/ (twice) and liblink/.., plain/x00, missing07, none/x05, dangling11, link,
	 * real/lib/ */
	assert_int_equal(states_as_stat_says(e, 1), 3 * NAMES + 6);
	assert_int_equal(states_as_stat_says(e, 2), 3 * NAMES + 6);
	assert_false(lo_cache_check(e, "key", 2, &why));
	assert_non_null(strstr(why, "changed"));
	free(why);
	kept_free(e);
}

static void test_directories_that_will_not_open_statted_whole(void **state)
{
	lo_cache_entry *e = kept_now();
	struct rlimit was, one;
	int next = dup(0);

	(void)state;
	/*
	 * One descriptor left: each run's common directory opens, and every
	 * directory under it fails to (EMFILE) while the names beneath are there.
	 */
	assert_true(next >= 0);
	close(next);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	one = was;
	one.rlim_cur = (rlim_t)next + 1;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &one), 0);
	assert_int_equal(states_as_stat_says(e, 1), 0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	kept_free(e);
}

static void test_alias_unchanged_the_same_without_a_stat(void **state)
{
	lo_cache_entry *e = kept_aliased();
	char *why = NULL;

	(void)state;
	/* the one alias, stated from al/lib/libx.so and its directories */
	assert_int_equal(e->aliases[0].dep, 5);
	assert_int_equal(e->aliases[0].same, 4);
	/* al/tools/bin, al/tools (once: the parent of one, the other taken back) and al */
	assert_int_equal(e->aliases[0].dir_count, 3);
	assert_int_equal(states_as_stat_says(e, 1), 0);
	assert_true(lo_cache_check(e, "key", 1, &why));
	kept_free(e);
}

/* e, made before the tree changed: each state as its stat says, `changed` of them changed. */
static void aliased_changed(lo_cache_entry *e, size_t changed)
{
	char *why = NULL;

	assert_int_equal(states_as_stat_says(e, 1), changed);
	assert_false(lo_cache_check(e, "key", 1, &why));
	free(why);
	kept_free(e);
}

static void test_alias_through_a_link_put_in_place_changed(void **state)
{
	lo_cache_entry *e = kept_aliased();

	(void)state;
	/* bin/../.. is o2 now: another libx.so; al/tools/bin, al/tools and the alias changed */
	sh("cd '%s' && rmdir al/tools/bin && ln -s '%s/o2/a/b' al/tools/bin", tree, tree);
	aliased_changed(e, 3);
}

static void test_alias_through_a_renamed_directory_changed(void **state)
{
	lo_cache_entry *e = kept_aliased();

	(void)state;
	/* the same directory through a link: its ".." is o2/a now; al/tools, bin (renamed) too */
	sh("cd '%s' && mv al/tools/bin o2/a/bin && ln -s '%s/o2/a/bin' al/tools/bin", tree, tree);
	aliased_changed(e, 3);
}

static void test_alias_of_a_file_changed_changed(void **state)
{
	lo_cache_entry *e = kept_aliased();

	(void)state;
	sh("echo two >> '%s/al/lib/libx.so'", tree);
	aliased_changed(e, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unchanged_tree_stats_the_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changes_on_the_way_seen_as_stat_sees_them, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_directories_that_will_not_open_statted_whole,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_unchanged_the_same_without_a_stat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alias_through_a_link_put_in_place_changed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alias_through_a_renamed_directory_changed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alias_of_a_file_changed_changed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
