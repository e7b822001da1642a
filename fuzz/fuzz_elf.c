/*
 * fuzz_elf.c - the ELF reader (elf.c) on arbitrary bytes.
 *
 * Opens the input both ways a scan reads an object: mapped, as the
 * resolver reads a library, and into a buffer kept across inputs, as a
 * judge reads a candidate for itself (the whole file, each table with a
 * read of its own, or mapped when they do not fit). Then does what the
 * resolver and the scan do with a readable object: every accessor, a
 * lookup of each undefined symbol in the object itself through its hash
 * tables (lo_elf_defines), the version queries, and the export test used
 * to recognise Python extensions. Any read outside the mapping or the
 * buffer, overflow or endless chain shows up as a sanitizer report or a
 * libFuzzer timeout.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common.h"
#include "leftover/elf.h"
#include "leftover/scan.h"

/* Keep the optimiser from dropping reads whose only effect is a fault. */
static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		for (; *s; s++)
			sink += (unsigned char)*s;
}

static void use_and_free(lo_elf *e)
{
	lo_elf_undef ref;
	size_t i, n, cursor = 0;

	touch(lo_elf_name(e));
	sink += (size_t)(lo_elf_class(e) + lo_elf_data(e) + lo_elf_machine(e) + lo_elf_type(e));
	sink += lo_elf_is_pie(e) + lo_elf_nodeflib(e);
	touch(lo_elf_soname(e));
	touch(lo_elf_rpath(e));
	touch(lo_elf_runpath(e));
	n = lo_elf_needed_count(e);
	for (i = 0; i <= n; i++) /* one past the end: must be NULL, not a read */
		touch(lo_elf_needed(e, i));
	n = lo_elf_verneed_count(e);
	for (i = 0; i < n; i++) {
		const lo_elf_verneed *v = lo_elf_verneed_at(e, i);

		touch(v->file);
		touch(v->version);
		sink += lo_elf_has_verdef(e, v->version);
	}
	sink += lo_elf_defines_versions(e) + lo_elf_has_versym(e);
	for (i = 0; lo_elf_undef_next(e, &cursor, &ref); i++) {
		const lo_elf_undef *u = &ref;

		touch(u->name);
		touch(u->version);
		touch(u->version_file);
		sink += lo_elf_defines(e, u);
		sink += lo_elf_exports(e, u->name);
	}
	/* the file does not change under the fuzzer: the walk sees what open counted */
	if (i != lo_elf_undef_count(e))
		abort();
	sink += lo_elf_exports(e, "PyInit_fuzz");
	sink += lo_scan_kind_of(e, "fuzz.cpython-311-x86_64-linux-gnu.so");
	lo_elf_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static lo_elf_buf buf; /* a judge's, holding the last input's bytes */
	const char *path = lo_fuzz_file(data, size);
	lo_elf *e;
	int fd;

	if (lo_elf_open(&e, AT_FDCWD, path, "fuzz.so", true) >= 0)
		use_and_free(e);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		abort();
	if (lo_elf_open_private(&e, fd, NULL, "fuzz.so", &buf) >= 0)
		use_and_free(e);
	return 0;
}
