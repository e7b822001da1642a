/*
 * macho.h - what dyld needs to know about one Mach-O image, or about a
 * library known only from its text stub (.tbd).
 *
 * lo_macho_open reads a thin Mach-O file, or the slice of a universal
 * (fat) file that the first of `cpus` names: the header, the load
 * commands dyld acts on (the dylibs it loads with their kind and
 * versions, the image's own install name, LC_RPATH, the minimum OS), the
 * imports (classic bind opcodes of LC_DYLD_INFO, the imports table of
 * LC_DYLD_CHAINED_FIXUPS, else the symbol table's undefined symbols with
 * the library ordinal in n_desc) and the exports (the trie of
 * LC_DYLD_INFO or LC_DYLD_EXPORTS_TRIE, re-exports included). Every
 * offset and count taken from the file is checked against its slice
 * before it is followed, every loop is capped; a file that fails a check
 * is LO_EINVALID with a message naming the file and what was read.
 * Nothing is executed.
 *
 * lo_macho_open_tbd reads a TAPI text stub (the subset of YAML that Apple
 * SDKs' .tbd files use): its install name, versions, exported symbols and
 * re-exported libraries, as an image with no imports. A stub with several
 * documents (libSystem's umbrella and its inlined sub-libraries) gives the
 * first; lo_macho_tbd_inlined gives the others by install name.
 *
 * Strings are owned by the image and live until lo_macho_free. Does not
 * own: which image a load maps or binds to (dyld.h).
 */
#ifndef LEFTOVER_MACHO_H
#define LEFTOVER_MACHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lo_macho lo_macho;

/* cputype values of the slices dyld loads here (mach/machine.h). */
#define LO_MACHO_CPU_X86_64 0x01000007
#define LO_MACHO_CPU_ARM64 0x0100000c
/* arm64e is an arm64 cpusubtype (CPU_SUBTYPE_ARM64E), told apart in lo_macho_cpu_name */
#define LO_MACHO_SUBTYPE_ARM64E 2

/* filetype (mach-o/loader.h). */
enum {
	LO_MACHO_OBJECT = 1,
	LO_MACHO_EXECUTE = 2,
	LO_MACHO_DYLIB = 6,
	LO_MACHO_BUNDLE = 8,
	LO_MACHO_DSYM = 0xa, /* a .dSYM companion's debug information */
};

/* How a load command asks for a dylib. */
typedef enum lo_macho_dylib_kind {
	LO_MACHO_DYLIB_LOAD,     /* LC_LOAD_DYLIB */
	LO_MACHO_DYLIB_WEAK,     /* LC_LOAD_WEAK_DYLIB: may be missing */
	LO_MACHO_DYLIB_REEXPORT, /* LC_REEXPORT_DYLIB: its exports are this image's */
	LO_MACHO_DYLIB_UPWARD,   /* LC_LOAD_UPWARD_DYLIB */
	LO_MACHO_DYLIB_LAZY,     /* LC_LAZY_LOAD_DYLIB */
} lo_macho_dylib_kind;

const char *lo_macho_dylib_kind_str(lo_macho_dylib_kind k); /* "weak" */

typedef struct lo_macho_dylib {
	const char *name;         /* the install name as written: "@rpath/libA.dylib" */
	lo_macho_dylib_kind kind;
	uint32_t current_version; /* X.Y.Z packed as xxxx.yy.zz */
	uint32_t compat_version;
} lo_macho_dylib;

/* The special library ordinals of binds (mach-o/loader.h BIND_SPECIAL_DYLIB_*). */
enum {
	LO_MACHO_ORDINAL_SELF = 0,
	LO_MACHO_ORDINAL_MAIN = -1,        /* the main executable */
	LO_MACHO_ORDINAL_FLAT = -2,        /* flat lookup: every image in load order */
	LO_MACHO_ORDINAL_WEAK_LOOKUP = -3, /* a weak definition coalesced across images */
};

/* One symbol the image binds, once however many places it is bound to. */
typedef struct lo_macho_import {
	const char *name;  /* "_mlirRegisterAllPasses" */
	int ordinal;       /* 1..dylib count: that load command's dylib; else LO_MACHO_ORDINAL_* */
	bool weak;         /* weak_import: binds to 0 when nothing defines it */
	bool lazy;         /* from the lazy bind opcodes (bound at first call, or by RTLD_NOW) */
} lo_macho_import;

/* One symbol the image exports. */
typedef struct lo_macho_export {
	const char *name;
	bool reexport;      /* EXPORT_SYMBOL_FLAGS_REEXPORT: the definition is in another image */
	int ordinal;        /* reexport: the dylib (1-based) it comes from */
	const char *import; /* reexport: the name there (the same name when the trie gives none) */
} lo_macho_export;

/*
 * Open the image at `path` (`name` in messages), choosing the slice of a
 * universal file whose cpu is the first of the `ncpus` in `cpus` it holds
 * (a cputype, or LO_MACHO_CPU_ARM64 | LO_MACHO_SUBTYPE_ARM64E << 32 for
 * arm64e alone). Returns 0, LO_ENOTELF for a readable file that is
 * neither Mach-O nor universal, LO_ENOTFOUND with a message for a
 * universal file without such a slice, LO_EINVALID for a malformed one,
 * LO_ERROR when it cannot be read.
 */
int lo_macho_open(lo_macho **out, const char *path, const char *name, const uint64_t *cpus,
		  size_t ncpus);

/*
 * Likewise from `size` bytes at `data` (borrowed while the call runs):
 * what the fuzzer and the unit tests call.
 */
int lo_macho_open_mem(lo_macho **out, const void *data, size_t size, const char *name,
		      const uint64_t *cpus, size_t ncpus);

/* Read the text stub at `path`; errors as lo_macho_open's. */
int lo_macho_open_tbd(lo_macho **out, const char *path);
int lo_macho_open_tbd_mem(lo_macho **out, const char *text, size_t size, const char *name);

/*
 * A system library known by its install name only (no stub for it): its
 * exports are unknown (lo_macho_exports_known false). Owned by the caller.
 */
lo_macho *lo_macho_new_placeholder(const char *install_name);

/*
 * Does the image list every symbol it exports? False for a placeholder
 * and for a stub that says it lists a subset (a line `# leftover:
 * subset`, a comment to linkers, as in the stubs leftover ships).
 */
bool lo_macho_exports_known(const lo_macho *m);

/* Another document of the stub `m`, whose install name is `install_name`, or NULL. */
const lo_macho *lo_macho_tbd_inlined(const lo_macho *m, const char *install_name);

void lo_macho_free(lo_macho *m);

/*
 * Does the file at these first bytes start as a Mach-O or universal file?
 * 0xcafebabe starts a Java class file too: a fat header is taken only
 * with a small arch count (a class file has its version there, 45 and up).
 */
bool lo_macho_sniff(const unsigned char *head, size_t n);
/* Likewise for the file at `path` (false when it cannot be read). */
bool lo_macho_is_file(const char *path);

const char *lo_macho_name(const lo_macho *m);
bool lo_macho_is_stub(const lo_macho *m);  /* read from a .tbd */
int lo_macho_filetype(const lo_macho *m);  /* LO_MACHO_* */
const char *lo_macho_cpu_name(const lo_macho *m); /* "arm64", "arm64e", "x86_64" */
bool lo_macho_two_level(const lo_macho *m); /* MH_TWOLEVEL: else every bind is a flat lookup */
bool lo_macho_universal(const lo_macho *m); /* read from a slice of a fat file */

/* LC_ID_DYLIB; NULL and 0 when the image has none. */
const char *lo_macho_install_name(const lo_macho *m);
uint32_t lo_macho_current_version(const lo_macho *m);
uint32_t lo_macho_compat_version(const lo_macho *m);

/* LC_BUILD_VERSION or LC_VERSION_MIN_*: "macos 11.0", or NULL. */
const char *lo_macho_min_os(const lo_macho *m);

size_t lo_macho_dylib_count(const lo_macho *m);
const lo_macho_dylib *lo_macho_dylib_at(const lo_macho *m, size_t i);
size_t lo_macho_rpath_count(const lo_macho *m);
const char *lo_macho_rpath_at(const lo_macho *m, size_t i);

/* Imports, in the order first bound; where from: "chained-fixups", "dyld-info", "symtab". */
size_t lo_macho_import_count(const lo_macho *m);
const lo_macho_import *lo_macho_import_at(const lo_macho *m, size_t i);
const char *lo_macho_imports_from(const lo_macho *m);

/* Exports, sorted by name. */
size_t lo_macho_export_count(const lo_macho *m);
const lo_macho_export *lo_macho_export_at(const lo_macho *m, size_t i);
/* The export called `name`, or NULL. */
const lo_macho_export *lo_macho_find_export(const lo_macho *m, const char *name);

/* "1.2.3" for a packed version, in buf (at least 16 bytes). */
const char *lo_macho_version_str(uint32_t v, char *buf);

#endif
