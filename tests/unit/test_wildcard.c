/*
 * test_wildcard.c - leftover's wildcard matcher (leftover/wildcard.h),
 * which is fnmatch on Windows, held against glibc's fnmatch: every pattern
 * of up to three characters from an alphabet of wildcards, brackets,
 * quotes, slashes and periods, against every name of up to three
 * characters, under each flag the matcher takes.
 */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/wildcard.h"

/* Every string of up to `max` characters of `alphabet`, in turn, through fn. */
static void each_string(const char *alphabet, size_t max, void (*fn)(const char *, void *),
			void *payload)
{
	size_t k = strlen(alphabet), len, i, n, total;
	char s[8];

	for (len = 0; len <= max; len++) {
		for (total = 1, i = 0; i < len; i++)
			total *= k;
		for (n = 0; n < total; n++) {
			size_t v = n;

			for (i = 0; i < len; i++, v /= k)
				s[i] = alphabet[v % k];
			s[len] = '\0';
			fn(s, payload);
		}
	}
}

typedef struct {
	const char *pattern;
	int flags;
	unsigned long compared;
} against;

static void compare(const char *name, void *payload)
{
	against *a = payload;
	int glibc = fnmatch(a->pattern, name, a->flags) == 0;

	a->compared++;
	if (lo_wildcard_match(a->pattern, name, a->flags) != glibc)
		fail_msg("pattern '%s' name '%s' flags %d: glibc says %s", a->pattern, name,
			 a->flags, glibc ? "match" : "no match");
}

static int flags_now;
static unsigned long compared;

static void each_pattern(const char *pattern, void *payload)
{
	against a = { pattern, flags_now, 0 };

	/*
	 * A quoted slash under PATHNAME glibc reads two ways ("\/" matches
	 * "/", "*\/" does not); no rule writes one.
	 */
	if ((flags_now & LO_WILD_PATHNAME) && strstr(pattern, "\\/"))
		return;

	each_string("ab/.-]", 3, compare, &a);
	compared += a.compared;
}

static void test_same_as_glibc(void **state)
{
	static const int flags[] = { 0, LO_WILD_PATHNAME, LO_WILD_PERIOD,
				     LO_WILD_PATHNAME | LO_WILD_PERIOD, LO_WILD_NOESCAPE };
	size_t i;

	(void)state;
	/* the values are fnmatch's, which the Windows fnmatch passes on */
	assert_int_equal(LO_WILD_PATHNAME, FNM_PATHNAME);
	assert_int_equal(LO_WILD_NOESCAPE, FNM_NOESCAPE);
	assert_int_equal(LO_WILD_PERIOD, FNM_PERIOD);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		flags_now = flags[i];
		each_string("a*?[]!-\\/.", 3, each_pattern, NULL);
	}
	assert_true(compared > 1000000);
}

/* the rules' kind of pattern, longer than the exhaustive ones */
static void test_rule_patterns(void **state)
{
	(void)state;
	assert_true(lo_wildcard_match("_ZN4llvm*", "_ZN4llvm3foo", 0));
	assert_true(lo_wildcard_match("PyInit_*", "PyInit__core", 0));
	assert_true(lo_wildcard_match("lib[a-z]*.so.[0-9]", "libfoo.so.1", 0));
	assert_false(lo_wildcard_match("lib[!f]*.so", "libfoo.so", 0));
	assert_false(lo_wildcard_match("*.pyd", "dir/x.pyd", LO_WILD_PATHNAME));
	assert_true(lo_wildcard_match("*/*.pyd", "dir/x.pyd", LO_WILD_PATHNAME));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_glibc),
		cmocka_unit_test(test_rule_patterns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
