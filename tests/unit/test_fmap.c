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
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
	lo_fmap *m, *part;

	(void)state;
	assert_int_equal(lo_fmap_new(&m, fd, 0, 3 * (size_t)page, path), 0);
	/* and a part, from inside its second page (cmocka undoes the handler after each test) */
	assert_int_equal(lo_fmap_new(&part, fd, (size_t)page + 10, (size_t)page, path), 0);
	p = lo_fmap_data(m);
	assert_int_equal(p[0], 'x');
	assert_false(lo_fmap_shrank(m));
	/* the pages must come back from the file, which is now shorter */
	lo_fmap_release_many((const lo_fmap *const *)&m, 1);
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_int_equal(p[50], 'x');
	assert_false(lo_fmap_shrank(m));
	assert_int_equal(p[2 * page + 7], 0);
	assert_true(lo_fmap_shrank(m));
	assert_false(lo_fmap_shrank(part));
	assert_int_equal(((const volatile char *)lo_fmap_data(part))[page - 1], 0);
	assert_true(lo_fmap_shrank(part));
	lo_fmap_free(part);
	/* again, after the pages were dropped: still zeros, still alive */
	lo_fmap_release_many((const lo_fmap *const *)&m, 1);
	assert_int_equal(p[page + 1], 0);
	lo_fmap_free(m);
	close(fd);
	unlink(path);
}

/*
 * A part of a file, from an offset inside a page: the bytes asked for and
 * only their pages are mapped.
 */
static void test_part_from_an_offset(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[4096];
	int fd = scratch("part", 4, path, sizeof(path));
	const volatile char *p;
	lo_fmap *m;

	(void)state;
	assert_int_equal(pwrite(fd, "tables", 6, page + 10), 6);
	assert_int_equal(lo_fmap_new(&m, fd, (size_t)page + 10, (size_t)page, path), 0);
	p = lo_fmap_data(m);
	assert_int_equal(lo_fmap_size(m), (size_t)page);
	assert_memory_equal((const char *)p, "tables", 6);
	assert_int_equal(p[page - 1], 'x');
	/* pages 1 and 2 of the file are mapped, not 0 or 3 (the kernel maps pages around one read) */
	assert_in_range(unit_rss_kib(NULL, path), 1, 2 * page / 1024);
	lo_fmap_free(m);
	close(fd);
	unlink(path);
}

/*
 * Map three files of 16 pages, read every page, release all three in one
 * call: 0 when each mapping then holds no page in memory and still reads
 * right, else which check failed. No cmocka assertion, so that a forked
 * child can run it too.
 */
static int release_three(const char *tag)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[3][4096];
	int fd[3], failed = 0;
	lo_fmap *m[3];
	size_t i, j;

	for (i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%zu", tag, i);
		fd[i] = scratch(name, 16, path[i], sizeof(path[i]));
		if (lo_fmap_new(&m[i], fd[i], 0, 16 * (size_t)page, path[i]) < 0)
			return 1;
		for (j = 0; j < 16; j++)
			if (((const volatile char *)lo_fmap_data(m[i]))[j * (size_t)page] != 'x')
				return 2;
		if (unit_rss_kib(lo_fmap_data(m[i]), NULL) != 16 * page / 1024)
			return 3;
	}
	lo_fmap_release_many((const lo_fmap *const *)m, 3);
	for (i = 0; i < 3; i++) {
		if (!failed && unit_rss_kib(lo_fmap_data(m[i]), NULL) != 0)
			failed = 4;
		if (!failed && ((const volatile char *)lo_fmap_data(m[i]))[5 * (size_t)page + 3] != 'x')
			failed = 5;
		if (!failed && lo_fmap_shrank(m[i]))
			failed = 6;
		lo_fmap_free(m[i]);
		close(fd[i]);
		unlink(path[i]);
	}
	return failed;
}

/* Several mappings released in one call: every page of each leaves memory, the data stays. */
static void test_release_many_drops_every_mapping(void **state)
{
	(void)state;
	UNIT_SKIP_WITHOUT_PAGE_DROPS();
	assert_int_equal(release_three("many"), 0);
}

/*
 * The same where the kernel refuses MADV_DONTNEED through process_madvise,
 * as kernels before 6.x did: a seccomp filter in a child makes the call
 * fail with EINVAL, and each mapping must be released on its own.
 */
static void test_release_many_without_process_madvise(void **state)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_madvise, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	int status;
	pid_t pid;

	(void)state;
	UNIT_SKIP_WITHOUT_PAGE_DROPS();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(10);
		_exit(release_three("refused"));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
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
		if (lo_fmap_new(&m, fd, 0, (size_t)page, path) < 0)
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
		cmocka_unit_test(test_part_from_an_offset),
		cmocka_unit_test(test_release_many_drops_every_mapping),
		cmocka_unit_test(test_release_many_without_process_madvise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
