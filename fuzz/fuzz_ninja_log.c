/*
 * fuzz_ninja_log.c - the .ninja_log reader (buildsys_ninja.c), and the
 * judging of what it recorded, through lo_buildsys_open on a scratch ninja
 * tree: nothing is spawned, the manifest is read as a file.
 *
 * The input (fuzz/common.h): first .ninja_log, then "@@ PATH" lines each
 * starting a file at PATH in the scratch build dir: build.ninja and the
 * files it includes, and outputs the log names, so that they exist and get
 * judged by their mtime. fuzz/make-seeds writes a real Ninja build so.
 */
#include "common.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, ".ninja_log", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;

	for (i = 0; i < n; i++)
		lo_fuzz_tree_put(parts[i].name, parts[i].data, parts[i].size);
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	return 0;
}
