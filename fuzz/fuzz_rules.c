/*
 * fuzz_rules.c - the rules loader (rules.c, over libgit2's config parser)
 * on arbitrary text, through lo_rules_check as `leftover rules --check`
 * calls it: every key, pattern and error path of one rule file.
 */
#include <stdio.h>

#include <git2.h>

#include "common.h"
#include "leftover/rules.h"

/*
 * lo_rules_check brackets its work in git_libgit2_init/shutdown, and an
 * init from a count of zero sets up mbedTLS and base64-decodes the
 * system's certificates: 80% of each execution (45 a second). One init
 * held here for the process makes theirs a count.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = lo_fuzz_dir_file("fuzz.rules", data, size);
	char path[256];

	snprintf(path, sizeof(path), "%s/fuzz.rules", dir);
	(void)lo_rules_check(path);
	return 0;
}
