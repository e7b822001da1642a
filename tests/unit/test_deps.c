/*
 * test_deps.c - the recording of what a scan consulted (deps.h): each
 * path kept once with its first stat, however many times and from however
 * many threads it is noted, through the growth of the recording's index.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "leftover/deps.h"

#define PATHS 20000

static void path_of(char *buf, size_t size, int i)
{
	snprintf(buf, size, "/tree/%d/%s%d.so", i % 13, i % 2 ? "lib" : "sub/lib", i);
}

static struct stat stat_of(int i, int round)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_ino = (ino_t)(i + 1);
	st.st_size = (off_t)round;
	return st;
}

/* Note every other path (from `first`), three rounds, each its own stat. */
static void *note_half(void *arg)
{
	int first = *(const int *)arg, round, i;
	char path[64];

	for (round = 1; round <= 3; round++)
		for (i = first; i < PATHS; i += 2) {
			struct stat st = stat_of(i, round);

			path_of(path, sizeof(path), i);
			lo_deps_note_stat(path, &st);
		}
	return NULL;
}

static void test_each_path_once_with_its_first_stat(void **state)
{
	int starts[2] = { 0, 1 }, i;
	pthread_t t;
	char path[64];
	lo_deps *d;
	lo_dep got;
	bool *seen = calloc(PATHS, sizeof(bool));

	(void)state;
	lo_deps_start();
	assert_int_equal(pthread_create(&t, NULL, note_half, &starts[1]), 0);
	note_half(&starts[0]);
	assert_int_equal(pthread_join(t, NULL), 0);
	for (i = 0; i < PATHS; i++) {
		path_of(path, sizeof(path), i);
		assert_true(lo_deps_noted(path, &got));
		assert_int_equal(got.ino, i + 1);
		assert_int_equal(got.size, 1); /* the first round's */
	}
	assert_false(lo_deps_noted("/tree/never.so", &got));
	/* one that was not there, then was: its absence is what was noted first */
	lo_deps_note_stat("/tree/late.so", NULL);
	lo_deps_note_path("/");
	assert_true(lo_deps_noted("/tree/late.so", &got) && got.absent);
	d = lo_deps_take();
	assert_non_null(d);
	assert_int_equal(d->count, PATHS + 2);
	for (i = 0; i < (int)d->count; i++) {
		int n;

		if (sscanf(d->deps[i].path, "/tree/%*d/%*[a-z/]%d.so", &n) != 1)
			continue;
		assert_true(n >= 0 && n < PATHS && !seen[n]);
		seen[n] = true;
		assert_int_equal(d->deps[i].use, LO_DEP_SHARED);
	}
	lo_deps_free(d);
	free(seen);
	assert_false(lo_deps_noted("/tree/late.so", &got)); /* nothing records now */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_path_once_with_its_first_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
