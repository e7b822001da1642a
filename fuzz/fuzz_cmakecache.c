/*
 * fuzz_cmakecache.c - the CMakeCache.txt reader (lo_hosts_cmake_python, in
 * hosts.c) on arbitrary text: long lines, missing '=', CR LF, NUL bytes.
 */
#include <stdlib.h>

#include "common.h"
#include "leftover/hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = lo_fuzz_dir_file("CMakeCache.txt", data, size);

	free(lo_hosts_cmake_python(dir));
	return 0;
}
