/*
 * target.c - the table of loaders (see target.h).
 *
 * Values are Debian's glibc 2.36 ones: $LIB and the default directories
 * are the multiarch ones `ld.so --help` prints on each architecture, and
 * the cache flags are those each architecture's dl-cache.h checks
 * (FLAG_ELF_LIBC6 with its FLAG_*_LIB64 or ABI bit, glibc's ldconfig.h).
 * $PLATFORM is what the kernel passes as AT_PLATFORM on common CPUs of
 * each architecture.
 *
 * Not here yet: big-endian targets (s390x; the ELF reader reads tables in
 * the host's byte order), armel beside armhf (told apart by e_flags), musl.
 */
#include <elf.h>
#include <stddef.h>

#include "leftover/target.h"

/* A glibc target of Debian's: its multiarch directories and libc.so.6. */
#define GLIBC(triplet)                                                                   \
	.name = triplet, .lib = "lib/" triplet, .libc = "libc.so.6",                    \
	.default_dirs = (const char *const[]){ "/lib/" triplet, "/usr/lib/" triplet, "/lib", \
					       "/usr/lib", NULL }

static const lo_target targets[] = {
	{ GLIBC("x86_64-linux-gnu"), .arch = "x86-64", .platform = "x86_64",
	  .elf_class = ELFCLASS64, .elf_data = ELFDATA2LSB, .machine = EM_X86_64,
	  .cache_flags = 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */ },
	{ GLIBC("i386-linux-gnu"), .arch = "i386", .platform = "i686",
	  .elf_class = ELFCLASS32, .elf_data = ELFDATA2LSB, .machine = EM_386,
	  .cache_flags = 0x0003 /* FLAG_ELF_LIBC6 */ },
	{ GLIBC("aarch64-linux-gnu"), .arch = "aarch64", .platform = "aarch64",
	  .elf_class = ELFCLASS64, .elf_data = ELFDATA2LSB, .machine = EM_AARCH64,
	  .cache_flags = 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */ },
	{ GLIBC("arm-linux-gnueabihf"), .arch = "armhf", .platform = "v7l",
	  .elf_class = ELFCLASS32, .elf_data = ELFDATA2LSB, .machine = EM_ARM,
	  .cache_flags = 0x0903 /* FLAG_ELF_LIBC6 | FLAG_ARM_LIBHF */ },
	{ GLIBC("powerpc64le-linux-gnu"), .arch = "ppc64le", .platform = "power8",
	  .elf_class = ELFCLASS64, .elf_data = ELFDATA2LSB, .machine = EM_PPC64,
	  .cache_flags = 0x0503 /* FLAG_ELF_LIBC6 | FLAG_POWERPC_LIB64 */ },
	{ GLIBC("riscv64-linux-gnu"), .arch = "riscv64", .platform = "riscv64",
	  .elf_class = ELFCLASS64, .elf_data = ELFDATA2LSB, .machine = EM_RISCV,
	  .cache_flags = 0x1003 /* FLAG_ELF_LIBC6 | FLAG_RISCV_FLOAT_ABI_DOUBLE */ },
};

const lo_target *lo_target_of(int elf_class, int elf_data, int machine)
{
	size_t i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (targets[i].elf_class == elf_class && targets[i].elf_data == elf_data &&
		    targets[i].machine == machine)
			return &targets[i];
	return NULL;
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
#else
#error "leftover has no loader model for the machine it is built for (target.c)"
#endif
}
