/*
 * target.h - the loaders leftover models, one description each.
 *
 * A target is an architecture with its C library's loader: what its
 * objects look like (ELF class, byte order, machine), the values of its
 * dynamic string tokens, its compiled-in default directories, the
 * ld.so.cache entries it accepts and the library a plain C program needs.
 * Everything that differs between loaders is a field here, read by the
 * loader model (resolve.c) and the ELF reader; a new target is a new row
 * in target.c, not a new branch in them.
 *
 * Owns: the table and finding a row for an object. Does not own: reading
 * ELF (elf.h), the search itself (resolve.h), ld.so.cache's format
 * (ldconfig.h).
 */
#ifndef LEFTOVER_TARGET_H
#define LEFTOVER_TARGET_H

#include <stdint.h>

typedef struct lo_target {
	const char *name;      /* Debian's multiarch triplet: "x86_64-linux-gnu" */
	const char *arch;      /* as messages name it: "x86-64" */
	const char *lib;       /* what $LIB expands to */
	const char *platform;  /* what $PLATFORM expands to (AT_PLATFORM) */
	const char *const *default_dirs; /* `ld.so --help`'s system search path; NULL ends it */
	const char *libc;      /* what a plain C program needs: "libc.so.6" */
	int32_t cache_flags;   /* the ld.so.cache entry flags its ld.so accepts */
	uint16_t machine;      /* EM_* */
	unsigned char elf_class, elf_data; /* ELFCLASS32/64, ELFDATA2LSB/MSB */
} lo_target;

/* The target of objects of this class, byte order and machine; NULL when not modelled. */
const lo_target *lo_target_of(int elf_class, int elf_data, int machine);

/* The target leftover itself was built for: the default host's. */
const lo_target *lo_target_native(void);

#endif
