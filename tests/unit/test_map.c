/*
 * test_map.c - the string-keyed map (map.h), removals above all.
 *
 * A removal shifts later entries of its probe run back; done wrong, an
 * entry past the hole is lost to lookups while still in the table. Keys
 * are put and removed at random against a plain array of what should be
 * there, in a table small enough that runs are long and wrap around its
 * end, and every key is looked up after each step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "leftover/map.h"

#define KEYS 300

static void key_of(char *buf, size_t size, int i)
{
	snprintf(buf, size, "/lib/%d/libx.so.%d", i % 7, i);
}

static void check_all(const lo_map *m, void *const *model)
{
	char key[64];
	size_t count = 0;
	int i;

	for (i = 0; i < KEYS; i++) {
		bool found;
		void *v;

		key_of(key, sizeof(key), i);
		v = lo_map_get(m, key, &found);
		assert_int_equal(found, model[i] != NULL);
		assert_ptr_equal(v, model[i]);
		count += model[i] != NULL;
	}
	assert_int_equal(lo_map_count(m), count);
}

static void test_put_and_remove_against_a_model(void **state)
{
	void *model[KEYS] = { 0 };
	lo_map *m = lo_map_new();
	char key[64];
	unsigned seed = 12345;
	int step;

	(void)state;
	for (step = 0; step < 20000; step++) {
		int i;

		seed = seed * 1103515245u + 12345u;
		i = (int)((seed >> 8) % KEYS);
		key_of(key, sizeof(key), i);
		/* keep the table about a third full, so that it stays small and crowded */
		if (model[i] || (seed >> 4) % 3 == 0) {
			assert_ptr_equal(lo_map_remove(m, key), model[i]);
			model[i] = NULL;
		} else {
			model[i] = (void *)(uintptr_t)(step + 1);
			lo_map_put(m, key, model[i]);
		}
		if (step % 97 == 0)
			check_all(m, model);
	}
	check_all(m, model);
	lo_map_free(m, NULL);
}

static void test_remove_of_an_absent_key(void **state)
{
	lo_map *m = lo_map_new();

	(void)state;
	lo_map_put(m, "a", (void *)1);
	assert_null(lo_map_remove(m, "b"));
	assert_ptr_equal(lo_map_remove(m, "a"), (void *)1);
	assert_null(lo_map_remove(m, "a"));
	assert_int_equal(lo_map_count(m), 0);
	lo_map_free(m, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_and_remove_against_a_model),
		cmocka_unit_test(test_remove_of_an_absent_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
