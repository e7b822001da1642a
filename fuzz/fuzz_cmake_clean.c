/*
 * fuzz_cmake_clean.c - the Unix Makefiles readers (buildsys.c): every
 * CMakeFiles/<target>.dir/cmake_clean.cmake, live or dead, and
 * CMakeFiles/Makefile.cmake's CMAKE_MAKEFILE_PRODUCTS, through
 * lo_buildsys_open on a scratch build dir of that generator.
 *
 * The input is the build dir (fuzz/common.h): first the clean list of a
 * target no codemodel names (CMakeFiles/gone.dir/cmake_clean.cmake), then
 * "@@ PATH" lines each starting a file at PATH in the dir, so the input
 * places the clean lists, Makefile.cmake and the File API reply that says
 * which targets live (fuzz/make-seeds writes a real Makefiles build so).
 * CMakeCache.txt is written last, always naming Unix Makefiles: nothing is
 * spawned.
 */
#include "common.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char cache[] = "CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n";
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, "CMakeFiles/gone.dir/cmake_clean.cmake", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;

	for (i = 0; i < n; i++)
		lo_fuzz_tree_put(parts[i].name, parts[i].data, parts[i].size);
	lo_fuzz_tree_put("CMakeCache.txt", (const uint8_t *)cache, sizeof(cache) - 1);
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	return 0;
}
