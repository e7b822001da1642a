/*
 * fuzz_ninja_manifest.c - the ninja manifest reader (buildsys_ninja.c):
 * build statements, variables and their scopes, escapes, continuations,
 * include and subninja, through lo_buildsys_open on a scratch ninja tree.
 *
 * The input (fuzz/common.h): first build.ninja, then "@@ PATH" lines each
 * starting a file at PATH in the scratch build dir: the files it includes,
 * build-<Config>.ninja with a CMakeCache.txt naming Ninja Multi-Config, a
 * .ninja_log whose outputs the manifest must account for. A tree without a
 * log gets an empty one of version 5, so that the manifest is read.
 * fuzz/make-seeds writes real CMake manifests and a hand-written one.
 */
#include <stdbool.h>
#include <string.h>

#include "common.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char log[] = "# ninja log v5\n";
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, "build.ninja", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;
	bool has_log = false;

	for (i = 0; i < n; i++) {
		lo_fuzz_tree_put(parts[i].name, parts[i].data, parts[i].size);
		has_log |= !strcmp(parts[i].name, ".ninja_log");
	}
	if (!has_log)
		lo_fuzz_tree_put(".ninja_log", (const uint8_t *)log, sizeof(log) - 1);
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	return 0;
}
