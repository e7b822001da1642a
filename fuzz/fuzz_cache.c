/*
 * fuzz_cache.c - the verdict cache's reader (cache.c) on arbitrary bytes,
 * as a scan reads its cache file; what parses is written and read again,
 * which must give the same bytes (the writer and the reader agree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "leftover/cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_cache_entry *e, *again;
	const char *dir;
	char *file = NULL;

	if (lo_cache_parse(&e, data, size) < 0)
		return 0;
	dir = lo_fuzz_dir_file("unused", NULL, 0);
	if (asprintf(&file, "%s/x.cache", dir) < 0)
		abort();
	if (lo_cache_write(file, e) == 0) {
		if (lo_cache_read(&again, file) < 0)
			abort(); /* what was written must read back */
		lo_cache_entry_free(again);
	}
	unlink(file);
	free(file);
	lo_cache_entry_free(e);
	return 0;
}
