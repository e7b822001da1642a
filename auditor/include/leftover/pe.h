/*
 * pe.h - what Windows' loader needs to know about one PE object (.dll,
 * .pyd, .exe): its machine, whether it is a DLL, the DLLs and functions
 * it imports (at load time and delay-loaded) and the functions it exports.
 *
 * lo_pe_read parses bytes already in memory (the fuzzer hands it any);
 * lo_pe_open maps a file for the parse. Every offset, RVA and count taken
 * from the bytes is checked against them before it is followed: an RVA
 * is turned into a file offset only through a section (or the headers)
 * that holds its bytes in the file, every string ends inside that range,
 * every table is capped. A file that fails a check is LO_EINVALID with a
 * message naming the file and what was being read. Nothing is executed.
 *
 * The strings returned are copies owned by the object (the bytes are not
 * kept) and live until lo_pe_free.
 */
#ifndef LEFTOVER_PE_H
#define LEFTOVER_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lo_pe lo_pe;

/* IMAGE_FILE_MACHINE_* the loader model knows; others are read as well. */
#define LO_PE_MACHINE_I386 0x014c
#define LO_PE_MACHINE_AMD64 0x8664
#define LO_PE_MACHINE_ARM64 0xaa64

/* One function imported from one DLL. */
typedef struct lo_pe_import {
	const char *dll;  /* the DLL as the descriptor names it ("KERNEL32.dll") */
	const char *name; /* the function, or NULL when imported by ordinal */
	uint16_t hint;    /* by name: where the export name table should hold it */
	uint16_t ordinal; /* by ordinal: the (biased) ordinal */
	bool delay;       /* from the delay-load directory: bound on first call */
} lo_pe_import;

/* One entry of the export address table. */
typedef struct lo_pe_export {
	const char *name;    /* the first name pointing at it, or NULL: by ordinal only */
	uint32_t ordinal;    /* Base + index */
	const char *forward; /* "DLL.name" or "DLL.#N" when forwarded, else NULL */
} lo_pe_export;

/*
 * Does the start of a file (n bytes of it) begin as a PE image does, with
 * "MZ"? Enough to choose the reader and, for a file that is no more than
 * that, Windows' answer (193, not a valid image); lo_pe_read checks the rest.
 */
bool lo_pe_sniff(const void *head, size_t n);

/*
 * Parse the `size` bytes at `data` as a PE image; `name` is the file's
 * name in messages. Returns 0, LO_ENOTELF when the bytes are not a PE
 * image at all (no MZ/PE signature), LO_EINVALID for a corrupt one.
 */
int lo_pe_read(lo_pe **out, const void *data, size_t size, const char *name);

/* Map the file at `path` and parse it (as lo_pe_read; LO_ERROR when unreadable). */
int lo_pe_open(lo_pe **out, const char *path, const char *name);

void lo_pe_free(lo_pe *pe);

const char *lo_pe_name(const lo_pe *pe);
uint16_t lo_pe_machine(const lo_pe *pe);
/* "x86", "x64", "arm64", or NULL for another machine. */
const char *lo_pe_machine_str(uint16_t machine);
bool lo_pe_is_pe32plus(const lo_pe *pe); /* optional header magic 0x20b */
bool lo_pe_is_dll(const lo_pe *pe);      /* IMAGE_FILE_DLL */
/* The DLL name the export directory gives itself, or NULL. */
const char *lo_pe_export_dll_name(const lo_pe *pe);

/* Imports, load-time ones first, in descriptor and thunk order. */
size_t lo_pe_import_count(const lo_pe *pe);
const lo_pe_import *lo_pe_import_at(const lo_pe *pe, size_t i);

/* Export address table entries that hold a function (RVA not 0). */
size_t lo_pe_export_count(const lo_pe *pe);
const lo_pe_export *lo_pe_export_at(const lo_pe *pe, size_t i);

/*
 * The export an import by name finds, as the loader looks it up: the
 * name table entry at `hint` when it names `name`, else a binary search
 * of the name table (which the linker sorts; an unsorted one misses, as
 * on Windows). NULL when none.
 */
const lo_pe_export *lo_pe_export_by_name(const lo_pe *pe, const char *name, uint16_t hint);

/* The export at biased ordinal `ordinal`, or NULL. */
const lo_pe_export *lo_pe_export_by_ordinal(const lo_pe *pe, uint32_t ordinal);

#endif
