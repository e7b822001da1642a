/*
 * fuzz_cache.c - the verdict cache's reader (cache.c) on arbitrary bytes,
 * as a scan reads its cache file. The input is parsed as it is (the
 * checksum turns nearly every mutation away), then with its checksum made
 * right, so that the fields themselves are what is fuzzed, its items and
 * the walk's listings too (lo_cache_items_read); what parses is written
 * and must read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "leftover/cache.h"

static void round_trip(lo_cache_entry *e)
{
	const char *dir = lo_fuzz_dir_file("unused", NULL, 0);
	lo_cache_entry *again;
	char *file = NULL;

	if (asprintf(&file, "%s/x.cache", dir) < 0)
		abort();
	if (lo_cache_write(file, e) == 0) {
		if (lo_cache_read(&again, file) < 0)
			abort(); /* what was written must read back */
		lo_cache_entry_free(again);
	}
	unlink(file);
	free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_cache_entry *e;
	uint8_t *fixed;
	uint64_t sum;
	size_t i;

	if (lo_cache_parse(&e, data, size) == 0)
		lo_cache_entry_free(e);
	if (size < 8)
		return 0;
	fixed = malloc(size);
	memcpy(fixed, data, size);
	sum = lo_cache_checksum(fixed, size - 8);
	for (i = 0; i < 8; i++)
		fixed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
	/* its items as a warm scan in part reads them: malformed, an error; else it round-trips */
	if (lo_cache_parse(&e, fixed, size) == 0) {
		if (lo_cache_items_read(e) == 0)
			round_trip(e);
		lo_cache_entry_free(e);
	}
	free(fixed);
	return 0;
}
