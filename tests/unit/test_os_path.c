/*
 * test_os_path.c - path syntax (os.h): POSIX's and Windows', both held
 * here whatever the system, and the host's form of each call the syntax
 * this build runs under.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/os.h"

typedef struct {
	const char *path;
	bool posix, windows; /* absolute in each syntax? */
} absolute_case;

static void test_is_absolute(void **state)
{
	static const absolute_case cases[] = {
		{ "/usr/lib", true, true },
		{ "/", true, true },
		{ "C:\\build\\lib", false, true },
		{ "c:/build/lib", false, true },
		{ "C:/", false, true },
		{ "\\\\server\\share\\x.dll", false, true },
		{ "\\\\?\\C:\\long\\path", false, true },
		{ "\\build", false, true },
		{ "C:build", false, false },  /* relative to drive C's current directory */
		{ "C:", false, false },
		{ "1:\\x", false, false },    /* not a drive letter */
		{ "build\\lib", false, false },
		{ "build/lib", false, false },
		{ "./x", false, false },
		{ "", false, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (lo_os_path_is_absolute_in(LO_PATH_POSIX, cases[i].path) != cases[i].posix)
			fail_msg("POSIX: '%s' absolute: %d", cases[i].path, !cases[i].posix);
		if (lo_os_path_is_absolute_in(LO_PATH_WINDOWS, cases[i].path) != cases[i].windows)
			fail_msg("Windows: '%s' absolute: %d", cases[i].path, !cases[i].windows);
		assert_int_equal(lo_os_path_is_absolute(cases[i].path),
				 LO_PATH_HOST == LO_PATH_WINDOWS ? cases[i].windows : cases[i].posix);
	}
}

static void test_separators(void **state)
{
	const char *mixed = "C:\\build/sub\\lib.dll", *unix_like = "a/b\\c";

	(void)state;
	assert_true(lo_os_path_is_separator_in(LO_PATH_POSIX, '/'));
	assert_false(lo_os_path_is_separator_in(LO_PATH_POSIX, '\\'));
	assert_true(lo_os_path_is_separator_in(LO_PATH_WINDOWS, '/'));
	assert_true(lo_os_path_is_separator_in(LO_PATH_WINDOWS, '\\'));
	assert_false(lo_os_path_is_separator_in(LO_PATH_WINDOWS, ':'));

	/* POSIX: a backslash is part of a name */
	assert_ptr_equal(lo_os_path_last_separator_in(LO_PATH_POSIX, unix_like), unix_like + 1);
	assert_ptr_equal(lo_os_path_last_separator_in(LO_PATH_WINDOWS, unix_like), unix_like + 3);
	assert_ptr_equal(lo_os_path_last_separator_in(LO_PATH_WINDOWS, mixed), strrchr(mixed, '\\'));
	assert_ptr_equal(lo_os_path_last_separator_in(LO_PATH_POSIX, mixed), strrchr(mixed, '/'));
	assert_null(lo_os_path_last_separator_in(LO_PATH_WINDOWS, "C:lib.dll"));
	assert_null(lo_os_path_last_separator_in(LO_PATH_POSIX, ""));
	assert_ptr_equal(lo_os_path_last_separator(mixed),
			 LO_PATH_HOST == LO_PATH_WINDOWS ? strrchr(mixed, '\\') : strrchr(mixed, '/'));
}

/* A list of paths splits at ';' on Windows, where "C:\\x" holds a ':'. */
static void test_list_separator(void **state)
{
	char list[] = "C:\\a b;D:/c", *save = NULL;
	const char *sep = lo_os_path_list_separator_in(LO_PATH_WINDOWS);

	(void)state;
	assert_string_equal(strtok_r(list, sep, &save), "C:\\a b");
	assert_string_equal(strtok_r(NULL, sep, &save), "D:/c");
	assert_null(strtok_r(NULL, sep, &save));
	assert_string_equal(lo_os_path_list_separator_in(LO_PATH_POSIX), ":");
	assert_string_equal(lo_os_path_list_separator(), LO_PATH_HOST == LO_PATH_WINDOWS ? ";" : ":");
}

static void test_name_cmp(void **state)
{
	(void)state;
	assert_int_equal(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "Foo.DLL", "foo.dll"), 0);
	assert_int_equal(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "KERNEL32.dll", "kernel32.DLL"), 0);
	assert_true(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "a.dll", "B.dll") < 0);
	assert_true(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "foo.dll", "foo.dl") > 0);
	assert_true(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "foo", "foo.dll") < 0);
	/* only ASCII folds: bytes of UTF-8 names compare as they are */
	assert_true(lo_os_path_name_cmp_in(LO_PATH_WINDOWS, "\xc3\xa9", "\xc3\x89") != 0);

	assert_true(lo_os_path_name_cmp_in(LO_PATH_POSIX, "Foo.so", "foo.so") != 0);
	assert_int_equal(lo_os_path_name_cmp_in(LO_PATH_POSIX, "foo.so", "foo.so"), 0);
	assert_true(lo_os_path_name_cmp_in(LO_PATH_POSIX, "a", "b") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_absolute),
		cmocka_unit_test(test_separators),
		cmocka_unit_test(test_list_separator),
		cmocka_unit_test(test_name_cmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
