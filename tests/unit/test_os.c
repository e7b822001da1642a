/*
 * test_os.c - the OS layer's calls that have two bodies (os.h, walk.h):
 * whichever this build compiled (Linux's, or the POSIX ones with
 * LEFTOVER_PORTABLE) must keep the same contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "leftover/buf.h"
#include "leftover/os.h"
#include "leftover/walk.h"
#include "unit.h"

static char dir[4096];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/os.XXXXXX", getenv("LEFTOVER_WORK"));
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", dir);
	return 0;
}

static int open_dir(void)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* A rename onto a name that is taken fails with EEXIST and changes nothing. */
static void test_rename_refuses_a_taken_name(void **state)
{
	int fd = open_dir();
	struct stat st;
	char path[8192];

	(void)state;
	sh("cd '%s' && echo old > a && echo new > b", dir);
	assert_int_equal(lo_os_rename_noreplace(fd, "a", fd, "b"), -1);
	assert_int_equal(errno, EEXIST);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(lo_os_rename_noreplace(fd, "a", fd, "c"), 0);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/c", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 1); /* in one place only */
	close(fd);
}

/* A symlink is moved itself, dangling or not, not what it points to. */
static void test_rename_moves_a_symlink_itself(void **state)
{
	int fd = open_dir();
	char target[64];
	ssize_t n;

	(void)state;
	sh("cd '%s' && ln -s nowhere l", dir);
	assert_int_equal(lo_os_rename_noreplace(fd, "l", fd, "m"), 0);
	n = readlinkat(fd, "m", target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "nowhere");
	assert_int_equal(faccessat(fd, "l", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(fd);
}

/* Every entry but "." and "..", once, with a type the walk can use. */
static void test_dirstream_lists_entries(void **state)
{
	lo_dirstream *d;
	const lo_dirent *de;
	int seen = 0;

	(void)state;
	sh("cd '%s' && mkdir sub && touch f && ln -s f l", dir);
	d = lo_dirstream_new(open_dir());
	while ((de = lo_dirstream_next(d))) {
		int bit = !strcmp(de->name, "sub") ? 1
			  : !strcmp(de->name, "f") ? 2
			  : !strcmp(de->name, "l") ? 4
						   : 8;

		assert_int_equal(seen & bit, 0);
		seen |= bit;
		if (de->type != LO_FT_UNKNOWN)
			assert_int_equal(de->type, bit == 1 ? LO_FT_DIR : bit == 2 ? LO_FT_REG : LO_FT_LNK);
	}
	assert_int_equal(errno, 0);
	assert_int_equal(seen, 7);
	lo_dirstream_free(d);
}

static void test_pipe_is_close_on_exec(void **state)
{
	int fds[2];

	(void)state;
	assert_int_equal(lo_os_pipe(fds), 0);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	close(fds[0]);
	close(fds[1]);
}

/* The helpers that stand in for glibc's own (memrchr, strverscmp). */
static void test_string_helpers(void **state)
{
	const char *s = "a/b/c";

	(void)state;
	assert_ptr_equal(lo_memrchr(s, '/', 5), s + 3);
	assert_ptr_equal(lo_memrchr(s, '/', 3), s + 1);
	assert_null(lo_memrchr(s, '/', 1));
	assert_true(lo_strverscmp("python3.9", "python3.12") < 0);
	assert_true(lo_strverscmp("python3.12", "python3.9") > 0);
	assert_int_equal(lo_strverscmp("python3.11", "python3.11"), 0);
	assert_true(lo_strverscmp("python3.11", "python3.11d") < 0);
	assert_true(lo_strverscmp("a10", "b1") < 0);
	assert_true(lo_strverscmp("x007", "x8") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rename_refuses_a_taken_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_moves_a_symlink_itself, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dirstream_lists_entries, setup, teardown),
		cmocka_unit_test(test_pipe_is_close_on_exec),
		cmocka_unit_test(test_string_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
