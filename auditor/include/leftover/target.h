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
 * (ldconfig.h). glibc and musl differ in more than values: in the order
 * of the search, in what $LIB means, in symbol versions. Those are fields
 * too, which the model reads.
 */
#ifndef LEFTOVER_TARGET_H
#define LEFTOVER_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "leftover/elf.h"

/* The most glibc-hwcaps subdirectories a target lists (x86-64 has three). */
#define LO_TARGET_HWCAPS_MAX 8

/* One place a loader looks for a needed library named without a slash. */
typedef enum lo_search_step {
	LO_SEARCH_END,
	LO_SEARCH_SELF,         /* a name of the loader itself (builtin): that object */
	LO_SEARCH_RPATH,        /* DT_RPATH of the object and of each object that loaded it,
				   unless the object has DT_RUNPATH (glibc) */
	LO_SEARCH_LIBRARY_PATH, /* LD_LIBRARY_PATH (--library-path) */
	LO_SEARCH_RUNPATH,      /* DT_RUNPATH of the object only (glibc) */
	LO_SEARCH_PATH_CHAIN,   /* DT_RUNPATH, else DT_RPATH, of the object and of each object
				   that loaded it (musl) */
	LO_SEARCH_NODEFLIB,     /* stop here when the object has DF_1_NODEFLIB (glibc) */
	LO_SEARCH_CACHE,        /* ld.so.cache, or ld.so.conf's directories without one */
	LO_SEARCH_DEFAULTS,     /* the default directories, or those of path_file */
} lo_search_step;

typedef struct lo_target {
	const char *name;      /* Debian's multiarch triplet: "x86_64-linux-gnu" */
	const char *arch;      /* as messages name it: "x86-64" */
	const char *lib;       /* what $LIB expands to; NULL: not expanded (musl) */
	const char *platform;  /* what $PLATFORM expands to (AT_PLATFORM); NULL: not expanded
				  (musl), or none passed, glibc dropping such an entry */
	const char *const *default_dirs; /* `ld.so --help`'s system search path; NULL ends it */
	const char *path_file; /* a file of directories read instead of default_dirs when it
				  exists (musl's /etc/ld-musl-ARCH.path), or NULL */
	const char *libc;      /* what a plain C program needs: "libc.so.6", or musl's
				  loader by its path */
	const char *libc_soname; /* the name its objects need libc by: how they are told apart
				    from another libc's on the same machine */
	const char *const *builtin; /* prefixes of names that are the loader itself, or NULL */
	const lo_search_step *search; /* where a bare name is looked for, in order */
	const char *const *hwcaps; /* glibc-hwcaps subdirectories it knows, best first, or NULL
				      (at most LO_TARGET_HWCAPS_MAX); those the CPU supports are
				      searched before each directory */
	int32_t cache_flags;   /* the ld.so.cache entry flags its ld.so accepts */
	uint16_t machine;      /* EM_* */
	unsigned char elf_class, elf_data; /* ELFCLASS32/64, ELFDATA2LSB/MSB */
	bool versions;         /* are symbol versions checked (not by musl) */
	bool dst_strict;       /* a `$` other than $ORIGIN makes it ignore a whole RPATH or
				  RUNPATH (musl's fixup_rpath); else such a `$` is kept as written */
} lo_target;

/*
 * The target of object `e`: of its class, byte order and machine, and of
 * the libc it needs (glibc's, unless it needs another's); NULL when no
 * target is modelled for it.
 */
const lo_target *lo_target_of(const lo_elf *e);

/* The target called `name` ("i386-linux-gnu"), or NULL. */
const lo_target *lo_target_named(const char *name);

/* The target leftover itself was built for: the default host's. */
const lo_target *lo_target_native(void);

#endif
