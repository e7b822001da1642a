/*
 * test_winload.c - Windows' loader model (winload.h) on DLLs built here
 * with MinGW-w64: where each search order looks and in which order (the
 * module's directory for CPython's flags but not a plain LoadLibrary,
 * the application directory, --library-path), names matched in any case,
 * an image of another machine passed over (193 when nothing else is
 * found), the first DLL found binding even when it lacks the import
 * (127), and the API-set table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/error.h"
#include "leftover/pe.h"
#include "leftover/winload.h"
#include "unit.h"

static char work[4096];
static bool have_mingw;

/*
 * mod/mod.pyd imports dep.dll!f. The dep.dll builds placed per test:
 * good.dll (x64, exports f), nof.dll (x64, no f), m32.dll (i686, f).
 */
static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");

	(void)state;
	snprintf(work, sizeof(work), "%s/winload", base ? base : "/tmp");
	have_mingw = !system("command -v x86_64-w64-mingw32-gcc >/dev/null && "
			     "command -v i686-w64-mingw32-gcc >/dev/null");
	return 0;
}

/* The fixtures, built by the first test that runs (false: no MinGW-w64 here). */
static bool fixtures(void)
{
	static bool built;

	if (!have_mingw || built)
		return have_mingw;
	sh("mkdir -p '%1$s/mod' && cd '%1$s' && "
	   "printf '__declspec(dllexport) int f(void) { return 1; }\\n' >f.c && "
	   "printf '__declspec(dllexport) int g(void) { return 1; }\\n' >g.c && "
	   "printf '__declspec(dllimport) int f(void);\\n"
	   "__declspec(dllexport) int m(void) { return f(); }\\n' >m.c && "
	   "printf 'LIBRARY dep.dll\\nEXPORTS\\n f\\n' >dep.def && "
	   "x86_64-w64-mingw32-dlltool -m i386:x86-64 -d dep.def -l libdep.a && "
	   "x86_64-w64-mingw32-gcc -shared -o good.dll f.c && "
	   "x86_64-w64-mingw32-gcc -shared -o nof.dll g.c && "
	   "i686-w64-mingw32-gcc -shared -o m32.dll f.c && "
	   "x86_64-w64-mingw32-gcc -shared -o mod/mod.pyd m.c libdep.a", work);
	built = true;
	return true;
}

/* Place the dep.dll builds: each of mod, app, user gets `which` (NULL: none), as `as`. */
static void place(const char *mod, const char *app, const char *user, const char *as)
{
	sh("cd '%s' && rm -rf app user mod/*.dll mod/*.DLL && mkdir -p app user", work);
	if (mod)
		sh("cd '%s' && cp %s mod/%s", work, mod, as);
	if (app)
		sh("cd '%s' && cp %s app/%s", work, app, as);
	if (user)
		sh("cd '%s' && cp %s user/%s", work, user, as);
}

/* The one problem code of loading mod.pyd (0 when it loads) by `search`. */
static int load(const lo_win_search_step *search)
{
	char path[4200], app[4200], user[4200];
	const char *users[1] = { user };
	lo_winload_env env = { search, app, users, 1, LO_PE_MACHINE_AMD64, NULL, 0 };
	lo_winload *w;
	int code;

	snprintf(path, sizeof(path), "%s/mod/mod.pyd", work);
	snprintf(app, sizeof(app), "%s/app", work);
	snprintf(user, sizeof(user), "%s/user", work);
	if (lo_winload_run(&w, &env, path) < 0)
		fail_msg("%s", lo_error_last());
	assert_true(lo_winload_problem_count(w) <= 1);
	code = lo_winload_problem_count(w) ? lo_winload_problem_at(w, 0)->code : 0;
	lo_winload_free(w);
	return code;
}

static void test_module_dir_for_cpython_only(void **state)
{
	(void)state;
	if (!fixtures())
		skip();
	place("good.dll", NULL, NULL, "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), 0);
	assert_int_equal(load(lo_win_search_plain), LO_WIN_MOD_NOT_FOUND);
	/* the application directory and --library-path serve both */
	place(NULL, "good.dll", NULL, "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), 0);
	assert_int_equal(load(lo_win_search_plain), 0);
	place(NULL, NULL, "good.dll", "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), 0);
	assert_int_equal(load(lo_win_search_plain), 0);
}

static void test_first_found_binds(void **state)
{
	(void)state;
	if (!fixtures())
		skip();
	/* the module's directory comes before the application's: its dep.dll lacks f */
	place("nof.dll", "good.dll", NULL, "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), LO_WIN_PROC_NOT_FOUND);
	/* the application directory before --library-path */
	place(NULL, "nof.dll", "good.dll", "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), LO_WIN_PROC_NOT_FOUND);
}

static void test_any_case(void **state)
{
	(void)state;
	if (!fixtures())
		skip();
	place("good.dll", NULL, NULL, "DEP.DLL");
	assert_int_equal(load(lo_win_search_cpython), 0);
}

static void test_other_machine_passed_over(void **state)
{
	(void)state;
	if (!fixtures())
		skip();
	place("m32.dll", NULL, "good.dll", "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), 0);
	place("m32.dll", NULL, NULL, "dep.dll");
	assert_int_equal(load(lo_win_search_cpython), LO_WIN_BAD_EXE_FORMAT);
}

static void test_api_sets(void **state)
{
	(void)state;
	assert_string_equal(lo_winload_api_set_host("api-ms-win-crt-runtime-l1-1-0.dll"),
			    "ucrtbase.dll");
	assert_string_equal(lo_winload_api_set_host("API-MS-WIN-CORE-SYNCH-L1-2-0.dll"),
			    "kernelbase.dll");
	assert_string_equal(lo_winload_api_set_host("api-ms-win-core-rtlsupport-l1-1-0.dll"),
			    "ntdll.dll");
	assert_null(lo_winload_api_set_host("kernel32.dll"));
	assert_null(lo_winload_api_set_host("api-ms-win-unknown-l1-1-0.dll"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_dir_for_cpython_only),
		cmocka_unit_test(test_first_found_binds),
		cmocka_unit_test(test_any_case),
		cmocka_unit_test(test_other_machine_passed_over),
		cmocka_unit_test(test_api_sets),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
