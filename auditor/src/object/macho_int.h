/*
 * macho_int.h - private to the Mach-O reader: the image record that
 * macho.c (container, header, load commands, symbol table), macho_bind.c
 * (bind opcodes, chained fixups, export trie) and tbd.c (text stubs) fill.
 */
#ifndef LEFTOVER_MACHO_INT_H
#define LEFTOVER_MACHO_INT_H

#include "leftover/buf.h"
#include "leftover/macho.h"

struct lo_macho {
	char *name;      /* owned */
	lo_strpool pool; /* every string below */
	int filetype;
	uint32_t cputype, cpusubtype, flags;
	bool stub, universal, subset;
	const char *install_name, *min_os;
	uint32_t current_version, compat_version;
	lo_macho_dylib *dylibs;
	size_t dylib_count, dylib_cap;
	const char **rpaths;
	size_t rpath_count, rpath_cap;
	lo_macho_import *imports;
	size_t import_count, import_cap;
	const char *imports_from;
	lo_macho_export *exports;
	size_t export_count, export_cap;
	lo_macho **inlined; /* a stub's other documents; owned */
	size_t inlined_count, inlined_cap;
};

/* The bytes of one slice, every read of which is checked against size. */
typedef struct lo_macho_bytes {
	const unsigned char *p;
	size_t size;
	const char *name; /* for messages */
} lo_macho_bytes;

lo_macho *lo_macho_alloc(const char *name);
void lo_macho_add_import(lo_macho *m, const char *name, size_t n, int ordinal, bool weak,
			 bool lazy);
void lo_macho_add_export(lo_macho *m, const char *name, size_t n, bool reexport, int ordinal,
			 const char *import, size_t import_len);
/* Sort and merge the imports and exports once all are in. */
void lo_macho_finish(lo_macho *m);

/* Is [off, off+len) inside b? */
static inline bool lo_macho_in(const lo_macho_bytes *b, uint64_t off, uint64_t len)
{
	return off <= b->size && len <= b->size - off;
}

/* macho_bind.c: the imports of the bind opcodes at [off, off+size) of b. */
int lo_macho_read_binds(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size,
			bool lazy, bool weak_table);
/* The imports table of LC_DYLD_CHAINED_FIXUPS at [off, off+size). */
int lo_macho_read_chained(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size);
/* The export trie at [off, off+size). */
int lo_macho_read_trie(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size);

#endif
