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
/* lo_os_self_exe after lo_os_set_argv0(argv0) is `want`, or NULL when want is. */
static void self_is(const char *argv0, const char *want)
{
	char *exe;

	lo_os_set_argv0(argv0);
	exe = lo_os_self_exe();
	if (want)
		assert_non_null(exe);
	if (exe)
		assert_string_equal(exe, want ? want : "(none)");
	free(exe);
}

/* PATH and the working directory before test_self_exe_from_argv0, put back after it, failed or not */
static char *saved_path, saved_cwd[4096];

static int setup_self(void **state)
{
	const char *path = getenv("PATH");

	saved_path = path ? strdup(path) : NULL;
	return getcwd(saved_cwd, sizeof(saved_cwd)) ? setup(state) : -1;
}

static int teardown_self(void **state)
{
	if (saved_path)
		setenv("PATH", saved_path, 1);
	free(saved_path);
	return chdir(saved_cwd) == 0 ? teardown(state) : -1;
}

/*
 * The program's own path, by whichever body: /proc/self/exe on Linux;
 * argv[0] resolved as a shell found it in the POSIX body, which these
 * cases are about (on Linux each is this program whatever argv[0] says):
 * along PATH past a directory without it and a file of its name that
 * cannot be run, an empty PATH entry as the working directory, a symlink
 * resolved, a name with a '/' against the working directory.
 */
static void test_self_exe_from_argv0(void **state)
{
	char real[4096], path[8192];

	(void)state;
	assert_non_null(realpath("/proc/self/exe", real));
	sh("cd '%s' && mkdir a b && echo text > a/prog && ln -s '%s' b/prog", dir, real);
	snprintf(path, sizeof(path), "%s/none:%s/a:%s/b", dir, dir, dir);
	setenv("PATH", path, 1);
	self_is("prog", real);

	snprintf(path, sizeof(path), "%s/a:", dir);
	setenv("PATH", path, 1);
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_int_equal(chdir(path), 0);
	self_is("prog", real);
	self_is("./prog", real);
	self_is("../b/prog", real);

	if (LEFTOVER_PORTABLE) {
		self_is("no-such-program", NULL);
		unsetenv("PATH");
		self_is("prog", NULL);
	}
}

/* The same file, unchanged: a second stat of it; not after a chmod, nor another file. */
static void test_same_file(void **state)
{
	char a[4200], b[4200];
	struct stat first, again, other;

	(void)state;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	sh("echo x > '%s' && echo x > '%s'", a, b);
	assert_int_equal(stat(a, &first), 0);
	assert_int_equal(stat(a, &again), 0);
	assert_int_equal(stat(b, &other), 0);
	assert_true(lo_os_same_file(&first, &again));
	assert_false(lo_os_same_file(&first, &other));
	/* the ctime moves on a chmod, whatever the clock's resolution: wait for it to tick */
	do {
		assert_int_equal(chmod(a, 0600), 0);
		assert_int_equal(stat(a, &again), 0);
	} while (again.st_ctim.tv_sec == first.st_ctim.tv_sec &&
		 again.st_ctim.tv_nsec == first.st_ctim.tv_nsec && !usleep(1000));
	assert_false(lo_os_same_file(&first, &again));
}

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
		cmocka_unit_test_setup_teardown(test_self_exe_from_argv0, setup_self, teardown_self),
		cmocka_unit_test_setup_teardown(test_same_file, setup, teardown),
		cmocka_unit_test(test_string_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
