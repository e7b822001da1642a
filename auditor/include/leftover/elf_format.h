/*
 * elf_format.h - the ELF file format, as far as leftover reads it.
 *
 * leftover's own definitions, so that the reader and the loader models
 * build where no <elf.h> is (macOS, Windows): only what the code uses,
 * each name the specification's with an LO_ prefix (lo_elf64_* for the
 * structures) so that it never clashes with a system <elf.h> included
 * beside it (the tests hold these against glibc's: test_elf_format.c).
 *
 * Sources, by what they define:
 *   - the System V ABI, Generic ABI ("gABI"), chapter 4 "Object Files"
 *     and chapter 5 "Program Loading and Dynamic Linking": the
 *     identification, header, section, symbol, program header and
 *     dynamic structures and their values; the ranges reserved to an OS
 *     (LOOS..HIOS) that the extensions below take theirs from.
 *   - the Linux Standard Base Core Specification, generic part, "Symbol
 *     Versioning" and "Dynamic Entries": SHT_GNU_verdef/verneed/versym,
 *     the Verdef/Verdaux/Verneed/Vernaux records, VER_FLG_*, DT_VERDEF,
 *     DT_FLAGS_1; STB_GNU_UNIQUE and STT_GNU_IFUNC (the GNU ABI's values
 *     in the OS range of the gABI's binding and type).
 *   - the GNU hash section (DT_GNU_HASH, SHT_GNU_HASH), as the GNU linkers
 *     write it and glibc's loader reads it; DT_FILTER, DT_AUXILIARY and
 *     DF_1_PIE from the Solaris "Linker and Libraries Guide", whose values
 *     the GNU tools share.
 *
 * The structures describe the bytes of a file: the reader reads each
 * field at its offsetof in the file's byte order (LO_ELF_GET in
 * object/elf_int.h), never the structure in place but the symbol table of
 * an object of this machine's class and order.
 */
#ifndef LEFTOVER_ELF_FORMAT_H
#define LEFTOVER_ELF_FORMAT_H

#include <stdint.h>

/* e_ident: the identification, the file's first bytes (gABI). */
#define LO_EI_NIDENT 16
#define LO_EI_CLASS 4
#define LO_EI_DATA 5
#define LO_EI_VERSION 6
#define LO_ELFMAG "\177ELF"
#define LO_ELFMAG_SIZE 4
#define LO_ELFCLASS32 1
#define LO_ELFCLASS64 2
#define LO_ELFDATA2LSB 1
#define LO_ELFDATA2MSB 2
#define LO_EV_CURRENT 1

/* e_type */
#define LO_ET_REL 1
#define LO_ET_EXEC 2
#define LO_ET_DYN 3

/* e_machine: the machines the targets know (target.c) */
#define LO_EM_386 3
#define LO_EM_PPC64 21
#define LO_EM_S390 22
#define LO_EM_ARM 40
#define LO_EM_X86_64 62
#define LO_EM_AARCH64 183
#define LO_EM_RISCV 243

/* e_phnum when the count is too large for it: section 0's sh_info holds it */
#define LO_PN_XNUM 0xffff

/* p_type */
#define LO_PT_INTERP 3

/* sh_type */
#define LO_SHT_STRTAB 3
#define LO_SHT_HASH 5
#define LO_SHT_DYNAMIC 6
#define LO_SHT_DYNSYM 11
#define LO_SHT_GNU_HASH 0x6ffffff6
#define LO_SHT_GNU_VERDEF 0x6ffffffd
#define LO_SHT_GNU_VERNEED 0x6ffffffe
#define LO_SHT_GNU_VERSYM 0x6fffffff

/* st_shndx */
#define LO_SHN_UNDEF 0
#define LO_SHN_ABS 0xfff1

/* st_info: binding in the high four bits, type in the low four */
#define LO_ELF64_ST_BIND(info) ((info) >> 4)
#define LO_ELF64_ST_TYPE(info) ((info) & 0xf)
#define LO_STB_LOCAL 0
#define LO_STB_GLOBAL 1
#define LO_STB_WEAK 2
#define LO_STB_GNU_UNIQUE 10
#define LO_STT_NOTYPE 0
#define LO_STT_OBJECT 1
#define LO_STT_FUNC 2
#define LO_STT_COMMON 5
#define LO_STT_TLS 6
#define LO_STT_GNU_IFUNC 10

/* d_tag */
#define LO_DT_NULL 0
#define LO_DT_NEEDED 1
#define LO_DT_HASH 4
#define LO_DT_STRTAB 5
#define LO_DT_SONAME 14
#define LO_DT_RPATH 15
#define LO_DT_DEBUG 21
#define LO_DT_RUNPATH 29
#define LO_DT_GNU_HASH 0x6ffffef5
#define LO_DT_FLAGS_1 0x6ffffffb
#define LO_DT_VERDEF 0x6ffffffc
#define LO_DT_AUXILIARY 0x7ffffffd
#define LO_DT_FILTER 0x7fffffff

/* DT_FLAGS_1's bits */
#define LO_DF_1_NODEFLIB 0x800
#define LO_DF_1_PIE 0x08000000

/* vd_flags, vna_flags */
#define LO_VER_FLG_BASE 0x1
#define LO_VER_FLG_WEAK 0x2

/* The file header. */
typedef struct {
	unsigned char e_ident[LO_EI_NIDENT];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint32_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} lo_elf32_ehdr;

typedef struct {
	unsigned char e_ident[LO_EI_NIDENT];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} lo_elf64_ehdr;

/* A program header: the 64-bit one moves p_flags up, for alignment. */
typedef struct {
	uint32_t p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align;
} lo_elf32_phdr;

typedef struct {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} lo_elf64_phdr;

/* A section header. */
typedef struct {
	uint32_t sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size;
	uint32_t sh_link, sh_info, sh_addralign, sh_entsize;
} lo_elf32_shdr;

typedef struct {
	uint32_t sh_name, sh_type;
	uint64_t sh_flags, sh_addr, sh_offset, sh_size;
	uint32_t sh_link, sh_info;
	uint64_t sh_addralign, sh_entsize;
} lo_elf64_shdr;

/* A symbol: the 64-bit one puts the small fields first, for alignment. */
typedef struct {
	uint32_t st_name, st_value, st_size;
	unsigned char st_info, st_other;
	uint16_t st_shndx;
} lo_elf32_sym;

typedef struct {
	uint32_t st_name;
	unsigned char st_info, st_other;
	uint16_t st_shndx;
	uint64_t st_value, st_size;
} lo_elf64_sym;

/* A dynamic entry. */
typedef struct {
	int32_t d_tag;
	union {
		uint32_t d_val, d_ptr;
	} d_un;
} lo_elf32_dyn;

typedef struct {
	int64_t d_tag;
	union {
		uint64_t d_val, d_ptr;
	} d_un;
} lo_elf64_dyn;

/*
 * Symbol versioning (LSB): the same layout in both classes, hence only
 * the 64-bit names. A version symbol table entry is one 16-bit index per
 * dynamic symbol, its top bit "hidden".
 */
typedef uint16_t lo_elf64_versym;

typedef struct {
	uint16_t vd_version, vd_flags, vd_ndx, vd_cnt;
	uint32_t vd_hash, vd_aux, vd_next;
} lo_elf64_verdef;

typedef struct {
	uint32_t vda_name, vda_next;
} lo_elf64_verdaux;

typedef struct {
	uint16_t vn_version, vn_cnt;
	uint32_t vn_file, vn_aux, vn_next;
} lo_elf64_verneed;

typedef struct {
	uint32_t vna_hash;
	uint16_t vna_flags, vna_other;
	uint32_t vna_name, vna_next;
} lo_elf64_vernaux;

#endif
