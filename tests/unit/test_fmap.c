/*
 * test_fmap.c - a mapped file that shrinks under the reader (fmap.h).
 *
 * The file is cut with ftruncate while mapped, as `cp` over a library in
 * a build tree does; a read past the new end must come back as zeros and
 * mark the mapping, not kill the process. A SIGBUS that is not about one
 * of our mappings must still kill it, as it would without us.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/fmap.h"

/* A scratch file of `pages` pages of 'x', open read-write. */
static int scratch(const char *tag, size_t pages, char *path, size_t size)
{
	const char *base = getenv("LEFTOVER_WORK");
	long page = sysconf(_SC_PAGESIZE);
	char *buf = malloc((size_t)page);
	size_t i;
	int fd;

	snprintf(path, size, "%s/fmap-%s-%d", base ? base : "/tmp", tag, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	memset(buf, 'x', (size_t)page);
	for (i = 0; i < pages; i++)
		assert_int_equal(write(fd, buf, (size_t)page), page);
	free(buf);
	return fd;
}

static void test_shrunk_file_reads_zeros(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[4096];
	int fd = scratch("shrink", 3, path, sizeof(path));
	const volatile char *p;
	lo_fmap *m;

	(void)state;
	assert_int_equal(lo_fmap_new(&m, fd, 3 * (size_t)page, path), 0);
	p = lo_fmap_data(m);
	assert_int_equal(p[0], 'x');
	assert_false(lo_fmap_shrank(m));
	lo_fmap_release(m); /* the pages must come back from the file, which is now shorter */
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_int_equal(p[50], 'x');
	assert_false(lo_fmap_shrank(m));
	assert_int_equal(p[2 * page + 7], 0);
	assert_true(lo_fmap_shrank(m));
	/* again, after the pages were dropped: still zeros, still alive */
	lo_fmap_release(m);
	assert_int_equal(p[page + 1], 0);
	lo_fmap_free(m);
	close(fd);
	unlink(path);
}

/* Several mappings released in one call: every page of each leaves memory, the data stays. */
static void test_release_many_drops_every_mapping(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[3][4096];
	int fd[3];
	lo_fmap *m[3];
	size_t i, j;

	(void)state;
	for (i = 0; i < 3; i++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "many%zu", i);
		fd[i] = scratch(tag, 16, path[i], sizeof(path[i]));
		assert_int_equal(lo_fmap_new(&m[i], fd[i], 16 * (size_t)page, path[i]), 0);
		for (j = 0; j < 16; j++)
			assert_int_equal(((const volatile char *)lo_fmap_data(m[i]))[j * (size_t)page], 'x');
		assert_int_equal(unit_rss_kib(lo_fmap_data(m[i]), NULL), 16 * page / 1024);
	}
	lo_fmap_release_many((const lo_fmap *const *)m, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(unit_rss_kib(lo_fmap_data(m[i]), NULL), 0);
		assert_int_equal(((const volatile char *)lo_fmap_data(m[i]))[5 * (size_t)page + 3], 'x');
		assert_false(lo_fmap_shrank(m[i]));
		lo_fmap_free(m[i]);
		close(fd[i]);
		unlink(path[i]);
	}
}

/* In a child: our handler installed, a SIGBUS on a mapping of someone else's. */
static void test_other_sigbus_still_kills(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[4096], other[4096];
	int fd = scratch("ours", 1, path, sizeof(path));
	int ofd = scratch("theirs", 2, other, sizeof(other));
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		lo_fmap *m;
		volatile char *q;

		/*
		 * cmocka catches SIGBUS to report a failed test; the default is
		 * what a plain program has. The handler is installed once per
		 * process, by this first lo_fmap_new, over the default.
		 */
		signal(SIGBUS, SIG_DFL);
		if (lo_fmap_new(&m, fd, (size_t)page, path) < 0)
			_exit(3);
		q = mmap(NULL, 2 * (size_t)page, PROT_READ, MAP_PRIVATE, ofd, 0);
		if (q == MAP_FAILED || ftruncate(ofd, 0) < 0)
			_exit(4);
		(void)q[page];
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
	close(fd);
	close(ofd);
	unlink(path);
	unlink(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: the child must be the one to install the handler (see there) */
		cmocka_unit_test(test_other_sigbus_still_kills),
		cmocka_unit_test(test_shrunk_file_reads_zeros),
		cmocka_unit_test(test_release_many_drops_every_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
