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

static void test_layouts(void **state)
{
	static const layout layouts[] = {
		SIZE(lo_elf32_ehdr, Elf32_Ehdr), SIZE(lo_elf64_ehdr, Elf64_Ehdr),
		FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_type), FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_machine),
		FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_phoff), FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_shoff),
		FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_phentsize), FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_phnum),
		FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_shentsize), FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_shnum),
		FIELD(lo_elf32_ehdr, Elf32_Ehdr, e_shstrndx),
		FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_type), FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_machine),
		FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_phoff), FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_shoff),
		FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_phentsize), FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_phnum),
		FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_shentsize), FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_shnum),
		FIELD(lo_elf64_ehdr, Elf64_Ehdr, e_shstrndx),
		SIZE(lo_elf32_phdr, Elf32_Phdr), SIZE(lo_elf64_phdr, Elf64_Phdr),
		FIELD(lo_elf32_phdr, Elf32_Phdr, p_type), FIELD(lo_elf32_phdr, Elf32_Phdr, p_offset),
		FIELD(lo_elf32_phdr, Elf32_Phdr, p_filesz),
		FIELD(lo_elf64_phdr, Elf64_Phdr, p_type), FIELD(lo_elf64_phdr, Elf64_Phdr, p_offset),
		FIELD(lo_elf64_phdr, Elf64_Phdr, p_filesz),
		SIZE(lo_elf32_shdr, Elf32_Shdr), SIZE(lo_elf64_shdr, Elf64_Shdr),
		FIELD(lo_elf32_shdr, Elf32_Shdr, sh_type), FIELD(lo_elf32_shdr, Elf32_Shdr, sh_offset),
		FIELD(lo_elf32_shdr, Elf32_Shdr, sh_size), FIELD(lo_elf32_shdr, Elf32_Shdr, sh_link),
		FIELD(lo_elf32_shdr, Elf32_Shdr, sh_info), FIELD(lo_elf32_shdr, Elf32_Shdr, sh_entsize),
		FIELD(lo_elf64_shdr, Elf64_Shdr, sh_type), FIELD(lo_elf64_shdr, Elf64_Shdr, sh_offset),
		FIELD(lo_elf64_shdr, Elf64_Shdr, sh_size), FIELD(lo_elf64_shdr, Elf64_Shdr, sh_link),
		FIELD(lo_elf64_shdr, Elf64_Shdr, sh_info), FIELD(lo_elf64_shdr, Elf64_Shdr, sh_entsize),
		SIZE(lo_elf32_sym, Elf32_Sym), SIZE(lo_elf64_sym, Elf64_Sym),
		FIELD(lo_elf32_sym, Elf32_Sym, st_name), FIELD(lo_elf32_sym, Elf32_Sym, st_value),
		FIELD(lo_elf32_sym, Elf32_Sym, st_size), FIELD(lo_elf32_sym, Elf32_Sym, st_info),
		FIELD(lo_elf32_sym, Elf32_Sym, st_other), FIELD(lo_elf32_sym, Elf32_Sym, st_shndx),
		FIELD(lo_elf64_sym, Elf64_Sym, st_name), FIELD(lo_elf64_sym, Elf64_Sym, st_value),
		FIELD(lo_elf64_sym, Elf64_Sym, st_size), FIELD(lo_elf64_sym, Elf64_Sym, st_info),
		FIELD(lo_elf64_sym, Elf64_Sym, st_other), FIELD(lo_elf64_sym, Elf64_Sym, st_shndx),
		SIZE(lo_elf32_dyn, Elf32_Dyn), SIZE(lo_elf64_dyn, Elf64_Dyn),
		FIELD(lo_elf32_dyn, Elf32_Dyn, d_tag), FIELD(lo_elf32_dyn, Elf32_Dyn, d_un.d_val),
		FIELD(lo_elf64_dyn, Elf64_Dyn, d_tag), FIELD(lo_elf64_dyn, Elf64_Dyn, d_un.d_val),
		SIZE(lo_elf64_versym, Elf64_Versym),
		SIZE(lo_elf64_verdef, Elf64_Verdef), FIELD(lo_elf64_verdef, Elf64_Verdef, vd_flags),
		FIELD(lo_elf64_verdef, Elf64_Verdef, vd_ndx), FIELD(lo_elf64_verdef, Elf64_Verdef, vd_cnt),
		FIELD(lo_elf64_verdef, Elf64_Verdef, vd_aux), FIELD(lo_elf64_verdef, Elf64_Verdef, vd_next),
		SIZE(lo_elf64_verdaux, Elf64_Verdaux),
		FIELD(lo_elf64_verdaux, Elf64_Verdaux, vda_name),
		SIZE(lo_elf64_verneed, Elf64_Verneed), FIELD(lo_elf64_verneed, Elf64_Verneed, vn_cnt),
		FIELD(lo_elf64_verneed, Elf64_Verneed, vn_file), FIELD(lo_elf64_verneed, Elf64_Verneed, vn_aux),
		FIELD(lo_elf64_verneed, Elf64_Verneed, vn_next),
		SIZE(lo_elf64_vernaux, Elf64_Vernaux),
		FIELD(lo_elf64_vernaux, Elf64_Vernaux, vna_flags),
		FIELD(lo_elf64_vernaux, Elf64_Vernaux, vna_other),
		FIELD(lo_elf64_vernaux, Elf64_Vernaux, vna_name),
		FIELD(lo_elf64_vernaux, Elf64_Vernaux, vna_next),
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
