/*
 * test_buf.c - the string pool (buf.h): every string kept stays as it was
 * copied while later ones fill its chunk, open new ones, or are larger
 * than any chunk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/buf.h"

#define STRINGS 5000

static void test_pool_keeps_every_string(void **state)
{
	lo_strpool pool = LO_STRPOOL_INIT;
	const char **kept = calloc(STRINGS, sizeof(*kept));
	char *want = malloc(200000), *big = malloc(200001);
	size_t i;

	(void)state;
	assert_non_null(kept);
	assert_non_null(want);
	assert_non_null(big);
	memset(big, 'b', 200000);
	big[200000] = '\0';
	for (i = 0; i < STRINGS; i++) {
		/* lengths 0 to 299, and one far past the largest chunk now and then */
		if (i % 1000 == 999) {
			kept[i] = lo_strpool_add(&pool, big, 200000);
		} else {
			snprintf(want, 300, "%0*zu", (int)(i % 300), i);
			/* taken from a longer string: the copy ends at n, with its own NUL */
			strcat(want, "tail");
			kept[i] = lo_strpool_add(&pool, want, strlen(want) - 4);
		}
	}
	for (i = 0; i < STRINGS; i++) {
		if (i % 1000 == 999) {
			assert_int_equal(strlen(kept[i]), 200000);
			assert_memory_equal(kept[i], big, 200000);
		} else {
			snprintf(want, 300, "%0*zu", (int)(i % 300), i);
			assert_string_equal(kept[i], want);
		}
	}
	lo_strpool_dispose(&pool);
	assert_null(pool.chunk);
	lo_strpool_dispose(&pool); /* disposing twice is harmless */
	free(kept);
	free(want);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_keeps_every_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
