/*
 * target.c - the table of loaders (see target.h).
 *
 * Values are Debian's glibc 2.36 ones: $LIB and the default directories
 * are the multiarch ones `ld.so --help` prints on each architecture, and
 * the cache flags are those each architecture's dl-cache.h checks
 * (FLAG_ELF_LIBC6 with its FLAG_*_LIB64 or ABI bit, glibc's ldconfig.h).
 * $PLATFORM is what the kernel passes as AT_PLATFORM on common CPUs of
 * each architecture (qemu-user passes none on ppc64le and s390x, which
 * tests/e2e/test_targets_more.py leaves out); NULL where it passes none,
 * and glibc then drops a path entry naming $PLATFORM.
 *
 * musl's rows follow its ldso/dynlink.c: its loader is its libc and
 * answers for libc's names itself, its search order is its own, and it
 * checks no symbol versions. An object is taken as musl's when it needs
 * musl's libc.so, as glibc's otherwise.
 *
 * Not here yet: armel beside armhf (told apart by e_flags).
 */
#include <stddef.h>
#include <string.h>

#include "leftover/elf_format.h"
#include "leftover/target.h"

/* glibc's order (elf/dl-load.c, _dl_map_object). */
static const lo_search_step glibc_search[] = {
	LO_SEARCH_RPATH,    LO_SEARCH_LIBRARY_PATH, LO_SEARCH_RUNPATH,
	LO_SEARCH_NODEFLIB, LO_SEARCH_CACHE,        LO_SEARCH_DEFAULTS, LO_SEARCH_END,
};

/* musl's (ldso/dynlink.c, load_library): its own names, LD_LIBRARY_PATH, each rpath up
   the chain of loaders, then the path file or the defaults. */
static const lo_search_step musl_search[] = {
	LO_SEARCH_SELF, LO_SEARCH_LIBRARY_PATH, LO_SEARCH_PATH_CHAIN, LO_SEARCH_DEFAULTS,
	LO_SEARCH_END,
};

/* The names musl's loader answers itself: lib + one of these + "." (load_library). */
static const char *const musl_builtin[] = {
	"libc.", "libpthread.", "librt.", "libm.", "libdl.", "libutil.", "libxnet.", NULL,
};

/* A glibc target of Debian's: its multiarch directories and libc.so.6. */
#define GLIBC(triplet)                                                                   \
	.name = triplet, .lib = "lib/" triplet, .libc = "libc.so.6",                    \
	.libc_soname = "libc.so.6", .search = glibc_search, .versions = true,            \
	.default_dirs = (const char *const[]){ "/lib/" triplet, "/usr/lib/" triplet, "/lib", \
					       "/usr/lib", NULL }

static const lo_target targets[] = {
	{ GLIBC("x86_64-linux-gnu"), .arch = "x86-64", .platform = "x86_64",
	  .hwcaps = (const char *const[]){ "x86-64-v4", "x86-64-v3", "x86-64-v2", NULL },
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_X86_64,
	  .cache_flags = 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */ },
	{ GLIBC("i386-linux-gnu"), .arch = "i386", .platform = "i686",
	  .elf_class = LO_ELFCLASS32, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_386,
	  .cache_flags = 0x0003 /* FLAG_ELF_LIBC6 */ },
	{ GLIBC("aarch64-linux-gnu"), .arch = "aarch64", .platform = "aarch64",
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_AARCH64,
	  .cache_flags = 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */ },
	/* v8l: an ARMv8 CPU (an arm64 kernel running armhf programs, qemu-arm); a 32-bit
	   kernel on an ARMv7 one says v7l */
	{ GLIBC("arm-linux-gnueabihf"), .arch = "armhf", .platform = "v8l",
	  .elf_class = LO_ELFCLASS32, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_ARM,
	  .cache_flags = 0x0903 /* FLAG_ELF_LIBC6 | FLAG_ARM_LIBHF */ },
	{ GLIBC("powerpc64le-linux-gnu"), .arch = "ppc64le", .platform = "power8",
	  .hwcaps = (const char *const[]){ "power10", "power9", NULL },
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_PPC64,
	  .cache_flags = 0x0503 /* FLAG_ELF_LIBC6 | FLAG_POWERPC_LIB64 */ },
	/* Linux on RISC-V passes no AT_PLATFORM (ELF_PLATFORM is NULL) */
	{ GLIBC("riscv64-linux-gnu"), .arch = "riscv64", .platform = NULL,
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_RISCV,
	  .cache_flags = 0x1003 /* FLAG_ELF_LIBC6 | FLAG_RISCV_FLOAT_ABI_DOUBLE */ },
	/* big-endian; $PLATFORM is the machine's generation (z13 ... z16) */
	{ GLIBC("s390x-linux-gnu"), .arch = "s390x", .platform = "z15",
	  .hwcaps = (const char *const[]){ "z16", "z15", "z14", "z13", NULL },
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2MSB, .machine = LO_EM_S390,
	  .cache_flags = 0x0403 /* FLAG_ELF_LIBC6 | FLAG_S390_LIB64 */ },
	/* x32: x86-64's 64-bit instructions with 32-bit pointers, ELF class 32 on machine
	   x86-64. Debian ships it biarch (libc6-x32): its loader /libx32/ld-linux-x32.so.2
	   searches /libx32 and /usr/libx32 (its slibdir and libdir), $LIB is libx32, and
	   its cache entries carry FLAG_X8664_LIBX32 (sysdeps/unix/sysv/linux/x86_64/
	   dl-cache.h). The kernel passes AT_PLATFORM x86_64 to an x32 process too. */
	{ .name = "x86_64-linux-gnux32", .arch = "x32", .lib = "libx32", .platform = "x86_64",
	  .libc = "libc.so.6", .libc_soname = "libc.so.6", .search = glibc_search,
	  .versions = true,
	  .default_dirs = (const char *const[]){ "/libx32", "/usr/libx32", NULL },
	  .hwcaps = (const char *const[]){ "x86-64-v4", "x86-64-v3", "x86-64-v2", NULL },
	  .elf_class = LO_ELFCLASS32, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_X86_64,
	  .cache_flags = 0x0803 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIBX32 */ },
	{ .name = "x86_64-linux-musl", .arch = "x86-64 (musl)",
	  .libc = "/lib/ld-musl-x86_64.so.1", .path_file = "/etc/ld-musl-x86_64.path",
	  .libc_soname = "libc.so", .builtin = musl_builtin, .search = musl_search,
	  .dst_strict = true,
	  .default_dirs = (const char *const[]){ "/lib", "/usr/local/lib", "/usr/lib", NULL },
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_X86_64 },
	{ .name = "aarch64-linux-musl", .arch = "aarch64 (musl)",
	  .libc = "/lib/ld-musl-aarch64.so.1", .path_file = "/etc/ld-musl-aarch64.path",
	  .libc_soname = "libc.so", .builtin = musl_builtin, .search = musl_search,
	  .dst_strict = true,
	  .default_dirs = (const char *const[]){ "/lib", "/usr/local/lib", "/usr/lib", NULL },
	  .elf_class = LO_ELFCLASS64, .elf_data = LO_ELFDATA2LSB, .machine = LO_EM_AARCH64 },
};

#define COUNT (sizeof(targets) / sizeof(targets[0]))

/* Does e need `soname`? */
static bool needs(const lo_elf *e, const char *soname)
{
	size_t i;

	for (i = 0; i < lo_elf_needed_count(e); i++)
		if (!strcmp(lo_elf_needed(e, i), soname))
			return true;
	return false;
}

const lo_target *lo_target_of(const lo_elf *e)
{
	const lo_target *first = NULL;
	size_t i;

	for (i = 0; i < COUNT; i++) {
		const lo_target *t = &targets[i];

		if (t->elf_class != lo_elf_class(e) || t->elf_data != lo_elf_data(e) ||
		    t->machine != lo_elf_machine(e))
			continue;
		if (needs(e, t->libc_soname))
			return t;
		if (!first)
			first = t; /* glibc's comes first: an object needing no libc is taken as its */
	}
	return first;
}

const lo_target *lo_target_native(void)
{
#if defined(__x86_64__)
	return &targets[0];
#elif defined(__i386__)
	return &targets[1];
#elif defined(__aarch64__)
	return &targets[2];
#elif defined(__arm__)
	return &targets[3];
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return &targets[4];
#elif defined(__riscv) && __riscv_xlen == 64
	return &targets[5];
#elif defined(__s390x__)
	return &targets[6];
#else
#error "leftover has no loader model for the machine it is built for (target.c)"
#endif
}

const lo_target *lo_target_named(const char *name)
{
	size_t i;

	for (i = 0; i < COUNT; i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}
