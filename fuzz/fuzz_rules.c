/*
 * fuzz_rules.c - the rules loader (rules.c, over libgit2's config parser)
 * on arbitrary text, through lo_rules_check as `leftover rules --check`
 * calls it: every key, pattern and error path of one rule file.
 */
#include <stdio.h>

#include "common.h"
#include "leftover/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = lo_fuzz_dir_file("fuzz.rules", data, size);
	char path[256];

	snprintf(path, sizeof(path), "%s/fuzz.rules", dir);
	(void)lo_rules_check(path);
	return 0;
}
