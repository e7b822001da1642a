/*
 * fuzz_pe.c - the PE reader (pe.c) on arbitrary bytes.
 *
 * Parses the input as a PE image, as a scan reads a .pyd or .dll, then
 * does what the Windows loader model does with it: every import and
 * export, and each import looked up by name (with its hint) and by
 * ordinal in the image's own export table. Any read outside the input,
 * overflow or endless walk shows up as a sanitizer report or a timeout.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "common.h"
#include "leftover/pe.h"

/* Keep the optimiser from dropping reads whose only effect is a fault. */
static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		for (; *s; s++)
			sink += (unsigned char)*s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_pe *pe;
	size_t i, n;

	sink += lo_pe_sniff(data, size);
	if (lo_pe_read(&pe, data, size, "fuzz.pyd") < 0)
		return 0;
	sink += lo_pe_machine(pe) + lo_pe_is_dll(pe) + lo_pe_is_pe32plus(pe);
	touch(lo_pe_machine_str(lo_pe_machine(pe)));
	touch(lo_pe_export_dll_name(pe));
	n = lo_pe_import_count(pe);
	for (i = 0; i <= n; i++) { /* one past the end: must be NULL, not a read */
		const lo_pe_import *im = lo_pe_import_at(pe, i);

		if (!im)
			break;
		touch(im->dll);
		touch(im->name);
		sink += im->name ? lo_pe_export_by_name(pe, im->name, im->hint) != NULL
				 : lo_pe_export_by_ordinal(pe, im->ordinal) != NULL;
	}
	n = lo_pe_export_count(pe);
	for (i = 0; i < n; i++) {
		const lo_pe_export *ex = lo_pe_export_at(pe, i);

		touch(ex->name);
		touch(ex->forward);
		sink += lo_pe_export_by_ordinal(pe, ex->ordinal) == ex;
	}
	lo_pe_free(pe);
	return 0;
}
