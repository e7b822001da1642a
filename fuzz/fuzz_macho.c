/*
 * fuzz_macho.c - the Mach-O reader (macho.c, macho_bind.c) and the text
 * stub reader (tbd.c) on arbitrary bytes.
 *
 * Each input is read both ways: as a Mach-O file (thin or universal, every
 * slice dyld loads asked for), and as a text stub. Then every accessor the
 * loader model uses is called and each import looked up among the
 * exports, as dyld.c binds. A read outside the input, an overflow, or a
 * loop the caps miss (a trie whose edges point back, a bind stream that
 * never ends) shows up as a sanitizer report or a libFuzzer timeout.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "common.h"
#include "leftover/macho.h"

/* Keep the optimiser from dropping reads whose only effect is a fault. */
static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		for (; *s; s++)
			sink += (unsigned char)*s;
}

static void use(const lo_macho *m)
{
	char v[16];
	size_t i;

	touch(lo_macho_name(m));
	touch(lo_macho_install_name(m));
	touch(lo_macho_min_os(m));
	touch(lo_macho_cpu_name(m));
	touch(lo_macho_imports_from(m));
	touch(lo_macho_version_str(lo_macho_current_version(m), v));
	sink += (size_t)lo_macho_filetype(m) + lo_macho_two_level(m) + lo_macho_exports_known(m);
	for (i = 0; i < lo_macho_dylib_count(m); i++)
		touch(lo_macho_dylib_at(m, i)->name);
	for (i = 0; i < lo_macho_rpath_count(m); i++)
		touch(lo_macho_rpath_at(m, i));
	for (i = 0; i < lo_macho_import_count(m); i++) {
		const lo_macho_import *imp = lo_macho_import_at(m, i);

		touch(imp->name);
		sink += lo_macho_find_export(m, imp->name) != NULL;
	}
	for (i = 0; i < lo_macho_export_count(m); i++) {
		touch(lo_macho_export_at(m, i)->name);
		touch(lo_macho_export_at(m, i)->import);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t cpus[] = { LO_MACHO_CPU_ARM64,
					 LO_MACHO_CPU_ARM64 |
						 (uint64_t)LO_MACHO_SUBTYPE_ARM64E << 32,
					 LO_MACHO_CPU_X86_64 };
	lo_macho *m;

	if (lo_macho_open_mem(&m, data, size, "fuzz", cpus, 3) >= 0) {
		use(m);
		lo_macho_free(m);
	}
	if (lo_macho_open_tbd_mem(&m, (const char *)data, size, "fuzz.tbd") >= 0) {
		use(m);
		lo_macho_free(m);
	}
	return 0;
}
