/*
 * test_explain.c - finding the file an error message is about
 * (lo_explain_message_path): Python's ImportError line, a whole pasted
 * traceback, dlerror()'s "(required by X)", a path with a space, a relative
 * path, and messages that name no existing file.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/explain.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");

	snprintf(dir, sizeof(dir), "%s/msg", base ? base : "/tmp/leftover-unit-explain");
	sh("rm -rf '%1$s' && mkdir -p '%1$s/a dir' && touch '%1$s/_m.cpython-311-x86_64-linux-gnu.so' "
	   "'%1$s/a dir/libx.so.1' '%1$s/libv.so'",
	   dir);
	return 0;
}

/* The path found in `fmt` (with %1$s the directory), checked against `want` (relative to it). */
static void expect(const char *fmt, const char *want, const char *want_symbol)
{
	char msg[4 * PATH_MAX], full[2 * PATH_MAX], *symbol, *path;

	snprintf(msg, sizeof(msg), fmt, dir);
	path = lo_explain_message_path(msg, &symbol);
	if (!want) {
		assert_null(path);
	} else {
		snprintf(full, sizeof(full), "%s/%s", dir, want);
		assert_non_null(path);
		assert_string_equal(path, full);
	}
	if (want_symbol) {
		assert_non_null(symbol);
		assert_string_equal(symbol, want_symbol);
	} else {
		assert_null(symbol);
	}
	free(path);
	free(symbol);
}

static void test_python_importerror(void **state)
{
	expect("ImportError: %1$s/_m.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
	       "mlirRegisterAllPasses",
	       "_m.cpython-311-x86_64-linux-gnu.so", "mlirRegisterAllPasses");
}

static void test_whole_traceback(void **state)
{
	expect("Traceback (most recent call last):\n"
	       "  File \"<string>\", line 1, in <module>\n"
	       "  File \"%1$s/__init__.py\", line 14, in <module>\n"
	       "    m = importlib.import_module(\"._m\", __name__)\n"
	       "ImportError: %1$s/_m.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN4mlir3fooEv\n",
	       "_m.cpython-311-x86_64-linux-gnu.so", "_ZN4mlir3fooEv");
}

/* The library lacking the version is not the file with the need. */
static void test_required_by(void **state)
{
	expect("OSError: %1$s/libv.so: version `V_2' not found (required by "
	       "%1$s/_m.cpython-311-x86_64-linux-gnu.so)",
	       "_m.cpython-311-x86_64-linux-gnu.so", NULL);
}

static void test_path_with_a_space(void **state)
{
	expect("dlopen failed: %1$s/a dir/libx.so.1: undefined symbol: gone", "a dir/libx.so.1",
	       "gone");
}

static void test_relative_path(void **state)
{
	char cwd[PATH_MAX], *symbol, *path;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	path = lo_explain_message_path("ImportError: a dir/libx.so.1: wrong ELF class: ELFCLASS32",
				       &symbol);
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(path);
	assert_string_equal(path, "a dir/libx.so.1");
	assert_null(symbol);
	free(path);
}

static void test_no_file(void **state)
{
	expect("ImportError: libgone.so.3: cannot open shared object file: No such file or directory",
	       NULL, NULL);
	expect("ImportError: %1$s/nothing.so: undefined symbol: x", NULL, "x");
	expect("", NULL, NULL);
	expect("undefined symbol: ", NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_python_importerror, setup),
		cmocka_unit_test_setup(test_whole_traceback, setup),
		cmocka_unit_test_setup(test_required_by, setup),
		cmocka_unit_test_setup(test_path_with_a_space, setup),
		cmocka_unit_test_setup(test_relative_path, setup),
		cmocka_unit_test_setup(test_no_file, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
