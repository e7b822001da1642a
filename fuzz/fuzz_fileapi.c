/*
 * fuzz_fileapi.c - the CMake File API reader (buildsys.c): the reply
 * index, the codemodel it names and the target files the codemodel names,
 * through lo_buildsys_open on a scratch build dir.
 *
 * The input is the reply directory: the index, then "@@ NAME" lines each
 * starting a file of .cmake/api/v1/reply/ (fuzz/common.h), as
 * fuzz/make-seeds writes a real reply. CMakeCache.txt names the Xcode
 * generator, which has the File API as its only record, so no Ninja or
 * Makefile reader runs and nothing is spawned (no --reconfigure).
 */
#include <stdio.h>

#include "common.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char cache[] = "CMAKE_GENERATOR:INTERNAL=Xcode\n";
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, "index-fuzz.json", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;

	lo_fuzz_tree_put("CMakeCache.txt", (const uint8_t *)cache, sizeof(cache) - 1);
	for (i = 0; i < n; i++) {
		char rel[LO_FUZZ_NAME_MAX + 32];

		snprintf(rel, sizeof(rel), ".cmake/api/v1/reply/%s", parts[i].name);
		lo_fuzz_tree_put(rel, parts[i].data, parts[i].size);
	}
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	return 0;
}
