/*
 * elf_int.h - private to the elf module: one object as elf_read.c reads
 * it, elf.c keeps it and elf_lookup.c looks symbols up in it.
 *
 * elf.c owns opening and keeping an object; elf_read.c reading and
 * checking its tables (every count, index and offset checked before it is
 * followed); elf_lookup.c finding a definition the way glibc's
 * do_lookup_x and check_match do, through the object's own hash table.
 */
#ifndef LEFTOVER_ELF_INT_H
#define LEFTOVER_ELF_INT_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "leftover/elf.h"
#include "leftover/fmap.h"

/* Iteration cap for any chain read from the file, against loops. */
#define LO_ELF_MAX_CHAIN 1000000

/* The versions an object defines, indexed by vd_ndx; NULL for the base. */
typedef struct {
	const char **names;
	size_t count;
} verdef_table;

/* What a version index used by an undefined symbol stands for. */
typedef struct {
	const char *file;
	const char *name;
	bool hidden;
} verneed_index;

struct lo_elf {
	char *name;   /* owned */
	/*
	 * owned: the part of the file holding the tables read in place,
	 * read-only. NULL when there are none, or when they were read into
	 * the caller's buffer (lo_elf_open_private).
	 */
	lo_fmap *map;
	/*
	 * the tables' bytes, mapped or in the caller's buffer, where each
	 * section is found by elf_read.c: every borrowed string points into it
	 */
	const char *base;
	struct lo_elf_buf *into; /* while lo_elf_open_private reads: the buffer, else NULL */
	bool whole;              /* into holds the whole file, which libelf reads there */
	size_t table_bytes; /* of the tables in the mapping, gaps not counted */
	size_t size; /* of the file */
	Elf *elf;    /* libelf reading the file while lo_elf_open reads it, then NULL */
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime; /* at open, to tell a file changed in place since */
	int class, data, machine, type;
	bool tables, pie, nodeflib; /* tables: the symbol tables below were read */
	bool debug_slot; /* DT_DEBUG: linkers give one to programs only, PIE or not */

	const char *soname, *rpath, *runpath;
	const char **needed; /* owned array of borrowed strings */
	size_t needed_count;

	/*
	 * The dynamic symbol table and its strings, read in place: a lookup
	 * is a few loads, not a libelf call per symbol (gelf_getsym and
	 * elf_strptr were a sixth of a scan's instructions). A 32-bit
	 * object's entries are widened into dynsym_wide once, so that every
	 * lookup reads Elf64_Sym; so are those of an object of the other
	 * byte order (foreign, below).
	 */
	const Elf64_Sym *dynsym; /* dynsym_count entries, or NULL */
	Elf64_Sym *dynsym_wide;  /* owned: a 32-bit object's table, widened; else NULL */
	size_t dynsym_count;
	size_t dynstr_index; /* section index of its string table */
	const char *dynstr;  /* the string table, ending in a NUL */
	size_t dynstr_size;
	const GElf_Versym *versym; /* dynsym_count entries, or NULL */
	/*
	 * An object of the other byte order (s390x from x86-64, or the
	 * reverse) cannot be read in place: its tables are translated once,
	 * at open, into these copies (dynsym into dynsym_wide), which the
	 * pointers above and below then point to. An object of this machine's
	 * order has none of them, and its lookups read the mapping as before.
	 */
	bool foreign;
	GElf_Versym *versym_own;
	uint32_t *gnu_hash_own, *sysv_hash_own;

	/* DT_GNU_HASH words (bloom filter, buckets, chains), or DT_HASH. */
	const uint32_t *gnu_hash;
	size_t gnu_hash_words;
	const uint32_t *sysv_hash;
	size_t sysv_hash_words;
	/*
	 * The GNU hash table's header, checked once at open: a scan looks
	 * up millions of symbols, most of them refused by the bloom filter,
	 * which should cost a few loads each.
	 */
	struct {
		bool usable;
		uint32_t nbuckets, symoffset, bloom_mask, bloom_shift;
		unsigned bloom_bits;        /* 64, or 32 in a 32-bit object */
		const unsigned char *bloom; /* bloom_bits-bit words, 4-byte aligned only */
		const uint32_t *buckets, *chain;
		size_t chain_words;
	} gnu;

	verdef_table verdefs;
	lo_elf_verneed *verneeds; /* owned */
	size_t verneed_count;
	/*
	 * The undefined symbols are counted here and read from the table
	 * again on each lo_elf_undef_next, not kept: a scan keeps every object
	 * it parsed, and their arrays (12 bytes a symbol, 20 MB at the
	 * benchmark's scale 4) were most of what made its memory grow with
	 * the tree, for objects bound about once each.
	 */
	size_t undef_count;
	size_t undef_end; /* one past the last undefined dynamic symbol */
	/*
	 * A bit for each pair of first two bytes an undefined symbol's name
	 * starts with (hashed into 512): a host rule's `needs = Perl_*` is
	 * asked of every candidate, and most have no name starting "Pe".
	 */
	uint64_t undef_starts[8];
	verneed_index *vindex; /* owned; by version index of an undefined symbol */
	size_t vindex_count;
};

/* Calls interrupted by a signal are made again this many times at most. */
#define LO_ELF_EINTR_TRIES 64

#define LO_ELF_CHANGED_MSG \
	"the file changed while it was being read (rewritten in place by another process?)"

/*
 * Read the tables of e, which lo_elf_open has begun (e->elf, libelf
 * reading file `fd`; the identity and header fields set) into the fields
 * above: elf_read.c. With e->into set, tables that do not fit it are
 * mapped, and e->into is cleared. Returns 0, or LO_EINVALID / LO_ERROR
 * with a message.
 */
int lo_elf_read_tables(lo_elf *e, int fd);

/*
 * Begin e (e->into set, e->size from the fstat) on a copy of the whole
 * file in e->into, read with one pread, when it fits and is in this
 * machine's byte order: libelf then reads the headers and the small
 * sections there (elf_memory), where on the descriptor it makes an fcntl
 * and an fstat of it and a pread for each, five to seven calls an object
 * against one. libelf never translates such a file, so nothing writes to
 * the copy. Returns 0 with e->elf set (and e->whole), 0 with e->elf NULL
 * when the file is not for this (begin it on fd), or LO_EINVALID when the
 * file was cut short meanwhile.
 */
int lo_elf_read_whole(lo_elf *e, int fd);

/* LO_EINVALID: "cannot read WHAT of FILE", with libelf's reason. */
int lo_elf_fail(const lo_elf *e, const char *what);

/* Is this dynamic symbol one the loader must bind (undefined, not local)? */
static inline bool lo_elf_is_undef(const Elf64_Sym *sym)
{
	return sym->st_shndx == SHN_UNDEF && ELF64_ST_BIND(sym->st_info) != STB_LOCAL;
}

/* Where the first two bytes of a name fall in lo_elf's undef_starts (a "" name's too). */
static inline unsigned lo_elf_undef_start(const char *name)
{
	return ((unsigned char)name[0] * 31u + (unsigned char)(name[0] ? name[1] : 0)) % 512;
}

/* The string at `off` of the dynamic string table, or NULL past its end. */
static inline const char *lo_elf_dynstr(const lo_elf *e, size_t off)
{
	return off < e->dynstr_size ? e->dynstr + off : NULL;
}

#endif
