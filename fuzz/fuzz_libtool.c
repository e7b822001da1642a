/*
 * fuzz_libtool.c - the autotools + libtool reader (buildsys_libtool.c):
 * config.status's config_files, the automake Makefiles' *_LTLIBRARIES
 * with their variables, includes and continuations, and the libtool
 * archives (.la) on disk, through lo_buildsys_open on a scratch tree; and
 * lo_buildsys_libtool_object, which explain asks of a .la.
 *
 * The input is the tree (fuzz/common.h): first config.status, then
 * "@@ PATH" lines each starting a file at PATH (Makefile, mod.la,
 * .libs/mod.so, sub/Makefile ...). fuzz/make-seeds writes a real
 * autoreconf + configure + make tree so. Nothing is spawned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, "config.status", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;
	char path[4096];

	for (i = 0; i < n; i++)
		lo_fuzz_tree_put(parts[i].name, parts[i].data, parts[i].size);
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	for (i = 0; i < n; i++) {
		size_t len = strlen(parts[i].name);

		if (len > 3 && !strcmp(parts[i].name + len - 3, ".la")) {
			snprintf(path, sizeof(path), "%s/%s", dir, parts[i].name);
			free(lo_buildsys_libtool_object(path));
		}
	}
	return 0;
}
