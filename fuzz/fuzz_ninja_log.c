/*
 * fuzz_ninja_log.c - the .ninja_log reader (buildsys.c), and the judging
 * of what it recorded, through lo_buildsys_open_ninja (buildsys_ninja.h):
 * lo_buildsys_open would run `ninja -t targets all` for every input.
 *
 * The input (fuzz/common.h): first .ninja_log, then "@@ PATH" lines each
 * starting a file at PATH in the scratch build dir, so that the log can
 * name outputs that exist and get judged by their mtime; a part named
 * "ninja -t targets all" (not a path) is that command's output instead,
 * the current manifest. fuzz/make-seeds writes a real Ninja build so.
 */
#include <stdio.h>
#include <string.h>

#include "buildsys_ninja.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, ".ninja_log", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	const uint8_t *targets = NULL;
	size_t targets_size = 0;
	lo_buildsys *bs = NULL;
	FILE *f;

	for (i = 0; i < n; i++)
		if (!strcmp(parts[i].name, "ninja -t targets all")) {
			targets = parts[i].data;
			targets_size = parts[i].size;
		} else {
			lo_fuzz_tree_put(parts[i].name, parts[i].data, parts[i].size);
		}
	if (!(f = fopen(lo_fuzz_file(targets, targets_size), "re")))
		return 0;
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open_ninja(&bs, dir, f) == 0)
		lo_buildsys_free(bs);
	fclose(f);
	return 0;
}
