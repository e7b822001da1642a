/*
 * test_json_writer.c - the JSON writer (report/json_writer.h) writes what
 * jansson's dump of the same values writes with JSON_INDENT(1), byte for
 * byte: the scan's JSON stayed the same when the writer replaced jansson.
 * Each document is built as jansson values, written through the writer
 * by walking them, and compared with json_dumps of them: strings with
 * every control byte, quotes, backslashes and multi-byte UTF-8, empty and
 * nested containers, integers at their limits, a string larger than the
 * writer's block, and seeded random documents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "report/json_writer.h"

/* v through the writer, as report.c writes its values. */
static void write_value(lo_json_writer *w, json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		lo_json_object_open(w);
		json_object_foreach(v, key, item) {
			lo_json_key(w, key);
			write_value(w, item);
		}
		lo_json_close(w);
		break;
	case JSON_ARRAY:
		lo_json_array_open(w);
		json_array_foreach(v, i, item)
			write_value(w, item);
		lo_json_close(w);
		break;
	case JSON_STRING: lo_json_str(w, json_string_value(v)); break;
	case JSON_INTEGER: lo_json_int(w, json_integer_value(v)); break;
	case JSON_TRUE: lo_json_bool(w, true); break;
	case JSON_FALSE: lo_json_bool(w, false); break;
	default: lo_json_null(w); break;
	}
}

/* The writer's text of v is jansson's, with the line break that ends a document. Takes v. */
static void assert_as_jansson(json_t *v)
{
	char *want = json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	char *got = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&got, &len);
	lo_json_writer *w;

	assert_non_null(want);
	assert_non_null(mem);
	w = lo_json_writer_new(mem);
	write_value(w, v);
	assert_int_equal(lo_json_writer_finish(w), 0);
	lo_json_writer_free(w);
	fclose(mem);
	assert_int_equal(len, strlen(want) + 1);
	assert_memory_equal(got, want, len - 1);
	assert_int_equal(got[len - 1], '\n');
	free(got);
	free(want);
	json_decref(v);
}

static void test_escapes_as_jansson(void **state)
{
	char every[128];
	int c;

	(void)state;
	for (c = 1; c < 128; c++)
		every[c - 1] = (char)c;
	every[127] = '\0';
	assert_as_jansson(json_pack("{s:s, s:s, s:s, s:s, s:s}", "every", every,
				    "quotes", "say \"hi\" \\ back/slash", "utf8",
				    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf",
				    "escape", "\x1b[1;31m\x7f", "empty", ""));
}

static void test_containers_as_jansson(void **state)
{
	(void)state;
	assert_as_jansson(json_object());
	assert_as_jansson(json_array());
	assert_as_jansson(json_string("top"));
	assert_as_jansson(json_pack(
		"{s:i, s:I, s:I, s:b, s:b, s:n, s:[], s:{}, s:[{}, [], [n], {s:[{s:[i]}]}], s:{s:o}}",
		"one", 1, "min", (json_int_t)INT64_MIN, "max", (json_int_t)INT64_MAX, "t", 1, "f", 0,
		"none", "no_files", "no_notes", "deep", "a", "b", 7, "last", "x", json_null()));
}

static void test_larger_than_a_block(void **state)
{
	size_t n = 200000, i;
	char *big = malloc(n + 1);
	json_t *files = json_array();

	(void)state;
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (char)(i % 7 ? 'a' + i % 26 : '\n');
	big[n] = '\0';
	/* many small values across block boundaries, then one larger than a block */
	for (i = 0; i < 5000; i++)
		json_array_append_new(files, json_pack("{s:s, s:i}", "path", "lib/libx.so.1", "n",
						       (json_int_t)i));
	json_array_append_new(files, json_string(big));
	assert_as_jansson(json_pack("{s:o}", "files", files));
	free(big);
}

/* A random value `depth` levels down: containers of random values, strings of every kind of character. */
static json_t *random_value(unsigned *seed, int depth)
{
	static const char *const pieces[] = { "a", "/", "\"", "\\", "\n", "\t", "\x01", "\x1f",
					      "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "\x7f" };
	int kind = rand_r(seed) % (depth < 5 ? 8 : 5);
	char text[64] = "";
	json_t *v;
	int i, n = rand_r(seed) % 4;

	switch (kind) {
	case 0: return json_null();
	case 1: return json_boolean(rand_r(seed) % 2);
	case 2: return json_integer((json_int_t)rand_r(seed) - RAND_MAX / 2);
	case 3:
	case 4:
		for (i = rand_r(seed) % 8; i > 0; i--)
			strcat(text, pieces[rand_r(seed) % (sizeof(pieces) / sizeof(pieces[0]))]);
		return json_string(text);
	case 5:
	case 6:
		v = json_object();
		for (i = 0; i < n; i++) {
			snprintf(text, sizeof(text), "k%d_%d", depth, i);
			json_object_set_new(v, text, random_value(seed, depth + 1));
		}
		return v;
	default:
		v = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(v, random_value(seed, depth + 1));
		return v;
	}
}

static void test_random_documents_as_jansson(void **state)
{
	unsigned seed = 48;
	int i;

	(void)state;
	for (i = 0; i < 2000; i++)
		assert_as_jansson(random_value(&seed, 0));
}

/* A write that fails is said by finish, not lost: /dev/full refuses every byte. */
static void test_failed_write_is_said(void **state)
{
	FILE *full = fopen("/dev/full", "w");
	lo_json_writer *w;
	int i;

	(void)state;
	assert_non_null(full);
	w = lo_json_writer_new(full);
	lo_json_array_open(w);
	for (i = 0; i < 20000; i++)
		lo_json_str(w, "a file name that fills the block");
	lo_json_close(w);
	assert_int_equal(lo_json_writer_finish(w), -1);
	lo_json_writer_free(w);
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes_as_jansson),
		cmocka_unit_test(test_containers_as_jansson),
		cmocka_unit_test(test_larger_than_a_block),
		cmocka_unit_test(test_random_documents_as_jansson),
		cmocka_unit_test(test_failed_write_is_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
