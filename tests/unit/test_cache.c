/*
 * test_cache.c - the verdict cache's writer (cache.c) on entries larger
 * than the chunks it writes in: each field read back as it was, the
 * checksum that of the bytes before it, the bound kept.
 *
 * The writer passes the file on in chunks as it makes it, taking the
 * checksum on the way; a chunk boundary inside a record, or a checksum
 * that does not run on over chunks, shows here as a file that does not
 * read back.
 *
 * A second name through ".." (an alias) is kept as indices into the
 * dependencies; a file whose indices point at the wrong kind (N a
 * directory, a directory that is a file) is not read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/error.h"

/* A path in this test's scratch dir; owned. */
static char *scratch(const char *name)
{
	const char *base = getenv("LEFTOVER_WORK");
	char *path = NULL;

	if (asprintf(&path, "%s/%s", base ? base : "/tmp", name) < 0)
		abort();
	return path;
}

/* An entry of `n` dependencies and as many items, each path `pad` bytes long or so. */
static lo_cache_entry *entry_of(size_t n, size_t pad)
{
	lo_cache_entry *e = lo_xcalloc(1, sizeof(*e));
	lo_scan_result *res = lo_xcalloc(1, sizeof(*res));
	lo_buf path = LO_BUF_INIT;
	size_t i;

	e->key = lo_xstrdup("key");
	e->written_ns = 1234567890123456789;
	e->res = res;
	res->root = lo_xstrdup("/tree");
	res->roots = lo_xcalloc(1, sizeof(char *));
	res->roots[res->root_count++] = lo_xstrdup("/tree");
	e->roots = lo_xcalloc(1, sizeof(lo_cache_root));
	e->roots[0].oldest = -1;
	e->deps.deps = lo_xcalloc(n, sizeof(lo_dep));
	e->deps.uses = lo_xcalloc(n, sizeof(lo_deps_use));
	for (i = 0; i < n; i++) {
		lo_dep *d = &e->deps.deps[e->deps.count++];

		lo_buf_printf(&path, "/tree/%zu/%0*zu.so", i % 97, (int)pad, i);
		d->path = lo_xstrdup(lo_buf_cstr(&path));
		d->use = LO_DEP_LOCAL;
		d->mode = 0100644;
		d->dev = 0x801;
		d->ino = 1000000 + i;
		d->size = i * 3;
		d->mtime_ns = (int64_t)i * 1000000007;
		d->ctime_ns = -(int64_t)i;
		d->absent = i % 5 == 0;
		e->deps.uses[e->deps.use_count++] = (lo_deps_use){ (uint32_t)i, (uint32_t)i };
		lo_cache_put_item(&e->item_bytes, d->path, d, NULL);
		path.len = 0;
	}
	e->item_count = n;
	lo_buf_dispose(&path);
	return e;
}

/*
 * Free an entry entry_of made: its key and paths are its own here (a read
 * entry borrows them from its bytes, so lo_cache_entry_free leaves them).
 */
static void built_free(lo_cache_entry *e)
{
	size_t i;

	free((char *)e->key);
	for (i = 0; i < e->deps.count; i++)
		free(e->deps.deps[i].path);
	lo_cache_entry_free(e);
}

static void test_a_large_entry_reads_back(void **state)
{
	lo_cache_entry *e = entry_of(20000, 40), *back = NULL;
	char *file = scratch("large.cache");
	size_t i;

	(void)state;
	assert_int_equal(lo_cache_write(file, e), 0);
	assert_int_equal(lo_cache_read(&back, file), 0);
	assert_string_equal(back->key, "key");
	assert_true(back->written_ns == e->written_ns);
	assert_int_equal(back->deps.count, e->deps.count);
	for (i = 0; i < e->deps.count; i++) {
		const lo_dep *a = &e->deps.deps[i], *b = &back->deps.deps[i];

		assert_string_equal(a->path, b->path);
		assert_true(lo_dep_same(a, b));
		assert_int_equal(a->use, b->use);
		assert_true(a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns);
	}
	assert_int_equal(lo_cache_items_read(back), 0);
	assert_int_equal(back->item_count, e->item_count);
	assert_int_equal(back->deps.use_count, e->deps.use_count);
	for (i = 0; i < e->item_count; i++) {
		assert_string_equal(back->items[i].abs, e->deps.deps[i].path);
		assert_true(lo_dep_same(&back->items[i].self, &e->deps.deps[i]));
	}
	lo_cache_entry_free(back);
	built_free(e);
	unlink(file);
	free(file);
}

/* The last 8 bytes are the checksum of all before them, as one run over the whole. */
static void test_the_checksum_is_of_the_whole_file(void **state)
{
	lo_cache_entry *e = entry_of(3001, 7);
	char *file = scratch("sum.cache");
	unsigned char *data;
	uint64_t sum = 0;
	struct stat st;
	FILE *f;
	int i;

	(void)state;
	assert_int_equal(lo_cache_write(file, e), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_true(st.st_size > 3 * (64 << 10));
	data = lo_xmalloc((size_t)st.st_size);
	assert_non_null(f = fopen(file, "rb"));
	assert_int_equal(fread(data, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	for (i = 7; i >= 0; i--)
		sum = sum << 8 | data[st.st_size - 8 + i];
	assert_true(sum == lo_cache_checksum(data, (size_t)st.st_size - 8));
	free(data);
	built_free(e);
	unlink(file);
	free(file);
}

/* /t and /t/a walked, /t/lib/x.so, and /t/a/../lib/x.so: the same stat. */
static lo_cache_entry *entry_aliased(void)
{
	static const char *const paths[] = { "/t", "/t/a", "/t/lib/x.so", "/t/a/../lib/x.so" };
	lo_cache_entry *e = entry_of(0, 1);
	size_t i;

	free(e->deps.deps);
	e->deps.deps = lo_xcalloc(4, sizeof(lo_dep));
	for (i = 0; i < 4; i++) {
		lo_dep *d = &e->deps.deps[e->deps.count++];

		d->path = lo_xstrdup(paths[i]);
		d->use = i < 2 ? LO_DEP_WALK : LO_DEP_LOCAL;
		d->mode = i < 2 ? 040755 : 0100644;
		d->dev = 0x801;
		d->ino = i < 2 ? 10 + i : 20;
		d->mtime_ns = d->ctime_ns = 1000000000;
	}
	return e;
}

/* data's word (u32) at `at` made `v`, and its checksum made right again. */
static void patch(unsigned char *data, size_t len, size_t at, uint32_t v)
{
	uint64_t sum;
	int i;

	for (i = 0; i < 4; i++)
		data[at + i] = (unsigned char)(v >> (8 * i));
	sum = lo_cache_checksum(data, len - 8);
	for (i = 0; i < 8; i++)
		data[len - 8 + i] = (unsigned char)(sum >> (8 * i));
}

static void test_an_alias_reads_back_and_only_of_its_kinds(void **state)
{
	static const unsigned char kept[] = { 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0,
					      1, 0, 0, 0, 0, 0, 0, 0 };
	lo_cache_entry *e = entry_aliased(), *back = NULL;
	char *file = scratch("alias.cache");
	unsigned char *data, *at;
	struct stat st;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(lo_cache_write(file, e), 0);
	assert_int_equal(lo_cache_read(&back, file), 0);
	/* the alias 3, its N 2, relying on /t/a and its parent /t */
	assert_int_equal(back->alias_count, 1);
	assert_int_equal(back->aliases[0].dep, 3);
	assert_int_equal(back->aliases[0].same, 2);
	assert_int_equal(back->aliases[0].dir_count, 2);
	lo_cache_entry_free(back);
	assert_int_equal(stat(file, &st), 0);
	len = (size_t)st.st_size;
	data = lo_xmalloc(len);
	assert_non_null(f = fopen(file, "rb"));
	assert_int_equal(fread(data, 1, len, f), len);
	fclose(f);
	assert_non_null(at = memmem(data, len, kept, sizeof(kept)));
	patch(data, len, (size_t)(at - data) + 4, 0); /* N a directory */
	assert_int_equal(lo_cache_parse(&back, data, len), LO_EINVALID);
	patch(data, len, (size_t)(at - data) + 4, 2);
	patch(data, len, (size_t)(at - data) + 12, 2); /* a directory that is a file */
	assert_int_equal(lo_cache_parse(&back, data, len), LO_EINVALID);
	patch(data, len, (size_t)(at - data) + 12, 1);
	assert_int_equal(lo_cache_parse(&back, data, len), 0);
	lo_cache_entry_free(back);
	free(data);
	built_free(e);
	unlink(file);
	free(file);
}

/* Over the bound: no file, the older one gone too, a message with the size. */
static void test_one_over_the_bound_is_not_kept(void **state)
{
	lo_cache_entry *e = entry_of(10, 8);
	char *file = scratch("big.cache"), *tmp = NULL;
	FILE *f;

	(void)state;
	assert_non_null(f = fopen(file, "w"));
	fputs("an older one", f);
	fclose(f);
	/* one item bigger than the bound by itself */
	lo_buf_printf(&e->item_bytes, "%*s", (int)LO_CACHE_MAX_BYTES, "x");
	assert_int_equal(lo_cache_write(file, e), LO_ERROR);
	assert_non_null(strstr(lo_error_last(), "more than its bound"));
	assert_int_equal(access(file, F_OK), -1);
	if (asprintf(&tmp, "%s.%ld", file, (long)getpid()) < 0)
		abort();
	assert_int_equal(access(tmp, F_OK), -1);
	free(tmp);
	built_free(e);
	free(file);
}

/* A directory that is not there: an error naming the file, no crash. */
static void test_an_unwritable_place_is_an_error(void **state)
{
	lo_cache_entry *e = entry_of(5, 8);

	(void)state;
	assert_int_equal(lo_cache_write("/nonexistent-dir/x.cache", e), LO_ERROR);
	assert_non_null(strstr(lo_error_last(), "/nonexistent-dir/x.cache"));
	built_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_large_entry_reads_back),
		cmocka_unit_test(test_the_checksum_is_of_the_whole_file),
		cmocka_unit_test(test_one_over_the_bound_is_not_kept),
		cmocka_unit_test(test_an_unwritable_place_is_an_error),
		cmocka_unit_test(test_an_alias_reads_back_and_only_of_its_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
