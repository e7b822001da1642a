/*
 * test_elf_format.c - leftover's ELF definitions (leftover/elf_format.h)
 * held against glibc's <elf.h>, which they replace in the code: every
 * value the same, every structure of the same size with each field at the
 * same offset and of the same width. The two headers are included side by
 * side, as the LO_ / lo_elf* names allow.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "leftover/elf_format.h"

typedef struct {
	const char *name;
	unsigned long long ours, theirs;
} pair;

#define SAME(n) { #n, (unsigned long long)LO_##n, (unsigned long long)n }

static void test_values(void **state)
{
	static const pair values[] = {
		SAME(EI_NIDENT), SAME(EI_CLASS), SAME(EI_DATA), SAME(EI_VERSION),
		SAME(ELFCLASS32), SAME(ELFCLASS64), SAME(ELFDATA2LSB), SAME(ELFDATA2MSB),
		SAME(EV_CURRENT), SAME(ET_REL), SAME(ET_EXEC), SAME(ET_DYN),
		SAME(EM_386), SAME(EM_PPC64), SAME(EM_S390), SAME(EM_ARM), SAME(EM_X86_64),
		SAME(EM_AARCH64), SAME(EM_RISCV), SAME(PN_XNUM), SAME(PT_INTERP),
		SAME(SHT_STRTAB), SAME(SHT_HASH), SAME(SHT_DYNAMIC), SAME(SHT_DYNSYM),
		SAME(SHT_GNU_HASH), SAME(SHN_UNDEF), SAME(SHN_ABS),
		SAME(STB_LOCAL), SAME(STB_GLOBAL), SAME(STB_WEAK), SAME(STB_GNU_UNIQUE),
		SAME(STT_NOTYPE), SAME(STT_OBJECT), SAME(STT_FUNC), SAME(STT_COMMON),
		SAME(STT_TLS), SAME(STT_GNU_IFUNC),
		SAME(DT_NULL), SAME(DT_NEEDED), SAME(DT_HASH), SAME(DT_STRTAB), SAME(DT_SONAME),
		SAME(DT_RPATH), SAME(DT_DEBUG), SAME(DT_RUNPATH), SAME(DT_GNU_HASH),
		SAME(DT_FLAGS_1), SAME(DT_VERDEF), SAME(DT_AUXILIARY), SAME(DT_FILTER),
		SAME(DF_1_NODEFLIB), SAME(DF_1_PIE), SAME(VER_FLG_BASE), SAME(VER_FLG_WEAK),
		{ "SHT_GNU_verdef", LO_SHT_GNU_VERDEF, SHT_GNU_verdef },
		{ "SHT_GNU_verneed", LO_SHT_GNU_VERNEED, SHT_GNU_verneed },
		{ "SHT_GNU_versym", LO_SHT_GNU_VERSYM, SHT_GNU_versym },
		{ "SELFMAG", LO_ELFMAG_SIZE, SELFMAG },
		{ "ELF64_ST_BIND(0xa2)", LO_ELF64_ST_BIND(0xa2), ELF64_ST_BIND(0xa2) },
		{ "ELF64_ST_TYPE(0xa2)", LO_ELF64_ST_TYPE(0xa2), ELF64_ST_TYPE(0xa2) },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (values[i].ours != values[i].theirs)
			fail_msg("%s: %#llx here, %#llx in <elf.h>", values[i].name, values[i].ours,
				 values[i].theirs);
	}
	assert_memory_equal(LO_ELFMAG, ELFMAG, SELFMAG);
}

typedef struct {
	const char *name;
	size_t ours_at, theirs_at, ours_size, theirs_size;
} layout;

/* A structure's size, or one field's offset and width, here and in <elf.h>. */
#define SIZE(ours, theirs) { #theirs, 0, 0, sizeof(ours), sizeof(theirs) }
#define FIELD(ours, theirs, f)                                                    \
	{ #theirs "." #f, offsetof(ours, f), offsetof(theirs, f), sizeof(((ours *)0)->f), \
	  sizeof(((theirs *)0)->f) }
/* The same of both classes: BOTH(shdr, Shdr, sh_type) */
#define BOTH(ours, theirs, f) \
	FIELD(lo_elf32_##ours, Elf32_##theirs, f), FIELD(lo_elf64_##ours, Elf64_##theirs, f)
#define BOTH_SIZES(ours, theirs) \
	SIZE(lo_elf32_##ours, Elf32_##theirs), SIZE(lo_elf64_##ours, Elf64_##theirs)
#define VERSIONING(ours, theirs, f) FIELD(lo_elf64_##ours, Elf64_##theirs, f)

static void test_layouts(void **state)
{
	static const layout layouts[] = {
		BOTH_SIZES(ehdr, Ehdr), BOTH(ehdr, Ehdr, e_type), BOTH(ehdr, Ehdr, e_machine),
		BOTH(ehdr, Ehdr, e_phoff), BOTH(ehdr, Ehdr, e_shoff), BOTH(ehdr, Ehdr, e_phentsize),
		BOTH(ehdr, Ehdr, e_phnum), BOTH(ehdr, Ehdr, e_shentsize), BOTH(ehdr, Ehdr, e_shnum),
		BOTH(ehdr, Ehdr, e_shstrndx),
		BOTH_SIZES(phdr, Phdr), BOTH(phdr, Phdr, p_type), BOTH(phdr, Phdr, p_offset),
		BOTH(phdr, Phdr, p_filesz),
		BOTH_SIZES(shdr, Shdr), BOTH(shdr, Shdr, sh_type), BOTH(shdr, Shdr, sh_offset),
		BOTH(shdr, Shdr, sh_size), BOTH(shdr, Shdr, sh_link), BOTH(shdr, Shdr, sh_info),
		BOTH(shdr, Shdr, sh_entsize),
		BOTH_SIZES(sym, Sym), BOTH(sym, Sym, st_name), BOTH(sym, Sym, st_value),
		BOTH(sym, Sym, st_size), BOTH(sym, Sym, st_info), BOTH(sym, Sym, st_other),
		BOTH(sym, Sym, st_shndx),
		BOTH_SIZES(dyn, Dyn), BOTH(dyn, Dyn, d_tag), BOTH(dyn, Dyn, d_un.d_val),
		SIZE(lo_elf64_versym, Elf64_Versym),
		SIZE(lo_elf64_verdef, Elf64_Verdef), VERSIONING(verdef, Verdef, vd_flags),
		VERSIONING(verdef, Verdef, vd_ndx), VERSIONING(verdef, Verdef, vd_cnt),
		VERSIONING(verdef, Verdef, vd_aux), VERSIONING(verdef, Verdef, vd_next),
		SIZE(lo_elf64_verdaux, Elf64_Verdaux), VERSIONING(verdaux, Verdaux, vda_name),
		SIZE(lo_elf64_verneed, Elf64_Verneed), VERSIONING(verneed, Verneed, vn_cnt),
		VERSIONING(verneed, Verneed, vn_file), VERSIONING(verneed, Verneed, vn_aux),
		VERSIONING(verneed, Verneed, vn_next),
		SIZE(lo_elf64_vernaux, Elf64_Vernaux), VERSIONING(vernaux, Vernaux, vna_flags),
		VERSIONING(vernaux, Vernaux, vna_other), VERSIONING(vernaux, Vernaux, vna_name),
		VERSIONING(vernaux, Vernaux, vna_next),
		/* the 32-bit versioning records: the code reads them through the 64-bit names */
		{ "Elf32_Verdef", 0, 0, sizeof(lo_elf64_verdef), sizeof(Elf32_Verdef) },
		{ "Elf32_Verdaux", 0, 0, sizeof(lo_elf64_verdaux), sizeof(Elf32_Verdaux) },
		{ "Elf32_Verneed", 0, 0, sizeof(lo_elf64_verneed), sizeof(Elf32_Verneed) },
		{ "Elf32_Vernaux", 0, 0, sizeof(lo_elf64_vernaux), sizeof(Elf32_Vernaux) },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const layout *l = &layouts[i];

		if (l->ours_at != l->theirs_at || l->ours_size != l->theirs_size)
			fail_msg("%s: %zu bytes at %zu here, %zu at %zu in <elf.h>", l->name, l->ours_size,
				 l->ours_at, l->theirs_size, l->theirs_at);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
