/*
 * elf_int.h - private to the elf module: one object as elf_head.c and
 * elf_read.c read it, elf.c keeps it and elf_lookup.c looks symbols up in
 * it.
 *
 * elf.c owns opening and keeping an object; elf_head.c reading its ELF
 * header (and a program's interpreter); elf_read.c reading and checking
 * its tables (every count, index and offset checked before it is
 * followed); elf_lookup.c finding a definition the way glibc's
 * do_lookup_x and check_match do, through the object's own hash table.
 * The structures are those of the ELF specification
 * (leftover/elf_format.h), read field by field in the object's byte
 * order: no libelf.
 */
#ifndef LEFTOVER_ELF_INT_H
#define LEFTOVER_ELF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "leftover/elf.h"
#include "leftover/elf_format.h"
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
	bool whole;              /* into holds the whole file: everything is read there */
	size_t table_bytes; /* of the tables in the mapping, gaps not counted */
	size_t size; /* of the file */
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime; /* at open, to tell a file changed in place since */
	int class, data, machine, type;
	bool pie, nodeflib;
	bool debug_slot; /* DT_DEBUG: linkers give one to programs only, PIE or not */

	const char *soname, *rpath, *runpath;
	const char **needed; /* owned array of borrowed strings */
	size_t needed_count;

	/*
	 * The dynamic symbol table and its strings, read in place: a lookup
	 * is a few loads, not a libelf call per symbol (gelf_getsym and
	 * elf_strptr were a sixth of a scan's instructions). A 32-bit
	 * object's entries are widened into dynsym_wide once, so that every
	 * lookup reads an lo_elf64_sym; so are those of an object of the other
	 * byte order (foreign, below).
	 */
	const lo_elf64_sym *dynsym; /* dynsym_count entries, or NULL */
	lo_elf64_sym *dynsym_wide;  /* owned: a 32-bit object's table, widened; else NULL */
	size_t dynsym_count;
	size_t dynstr_index; /* section index of its string table */
	const char *dynstr;  /* the string table, ending in a NUL */
	size_t dynstr_size;
	const lo_elf64_versym *versym; /* dynsym_count entries, or NULL */
	/*
	 * An object of the other byte order (s390x from x86-64, or the
	 * reverse) cannot be read in place: its tables are translated once,
	 * at open, into these copies (dynsym into dynsym_wide), which the
	 * pointers above and below then point to. An object of this machine's
	 * order has none of them, and its lookups read the mapping as before.
	 */
	bool foreign;
	lo_elf64_versym *versym_own;
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
 * The ELF header's facts, in this machine's order: the identification's
 * class and byte order, and the header's fields the reader follows.
 */
typedef struct lo_elf_head {
	int class, data, type, machine;
	uint64_t shoff, phoff;
	size_t shnum, phnum; /* as the header has them: 0 / PN_XNUM defer to section 0 */
} lo_elf_head;

/*
 * A field of the structure at p, of type T (lo_elf64_verdef, say), in the
 * object's byte order (big: ELFDATA2MSB). LO_ELF_FIELD picks T's 32- or
 * 64-bit layout (lo_elf32_shdr or lo_elf64_shdr) by class.
 */
#define LO_ELF_GET(p, T, f, big) \
	lo_elf_word((const unsigned char *)(p) + offsetof(T, f), sizeof(((T *)0)->f), (big))
#define LO_ELF_FIELD(wide, p, T, f, big) \
	((wide) ? LO_ELF_GET(p, lo_elf64_##T, f, big) : LO_ELF_GET(p, lo_elf32_##T, f, big))

/* A word of `size` bytes (at most 8) at p, in the byte order `big` says. */
static inline uint64_t lo_elf_word(const unsigned char *p, size_t size, bool big)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v = big ? v << 8 | p[i] : v | (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Parse the ELF header from the `got` bytes read at the file's start
 * (EI_NIDENT and a 64-bit header at most are looked at). Returns 0,
 * LO_ENOTELF for a file that is not ELF, LO_EINVALID for one too short or
 * whose identification the reader does not know (a class, byte order or
 * version of none), with a message naming `name`.
 */
int lo_elf_head_parse(const unsigned char *b, size_t got, const char *name, lo_elf_head *h);

/*
 * Read e's ELF header (from the copy of the whole file when there is
 * one, else with pread) into h, and e's class, data, machine and type.
 */
int lo_elf_read_head(lo_elf *e, int fd, lo_elf_head *h);

/*
 * Read the tables of e, whose header lo_elf_read_head read into h (the
 * identity and header fields set), into the fields above: elf_read.c.
 * With e->into set, tables that do not fit it are mapped, and e->into is
 * cleared. Returns 0, or LO_EINVALID / LO_ERROR with a message.
 */
int lo_elf_read_tables(lo_elf *e, int fd, const lo_elf_head *h);

/* A section header's fields the reader uses, in this machine's order. */
typedef struct lo_elf_shdr {
	uint32_t sh_type, sh_link, sh_info;
	uint64_t sh_offset, sh_size, sh_entsize;
} lo_elf_shdr;

/* One section header, as elf_read.c finds it: the last of each kind counts. */
typedef struct lo_elf_scn {
	bool present; /* false: the object has none */
	size_t index;
	lo_elf_shdr sh;
	size_t at; /* where elf_read.c put its bytes, from e->base, if it took them */
} lo_elf_scn;

/*
 * The bytes of section r, checked to lie inside the file: in the copy of
 * the whole file when there is one, else read with pread into *own, which
 * the caller frees (nothing, when it fails). *out is NULL for an empty
 * section. `what` names it in messages. Returns 0 or LO_EINVALID.
 */
int lo_elf_section_bytes(const lo_elf *e, int fd, const lo_elf_scn *r, const char *what,
			 const unsigned char **out, unsigned char **own);

/*
 * LO_EINVALID unless section r holds a whole number of `unit`-byte
 * entries (libelf refused a section that does not).
 */
int lo_elf_check_entries(const lo_elf *e, const lo_elf_scn *r, size_t unit, const char *what);

/*
 * String `off` of string table `link`, or NULL past its end. The loader
 * reads every name through DT_STRTAB, one table: a section naming another
 * has no string there.
 */
const char *lo_elf_link_str(const lo_elf *e, size_t link, size_t off);

/*
 * The small sections read whole at open (elf_dyn.c): the dynamic section
 * (needed libraries, soname, search paths, flags), the version
 * definitions and the version requirements, into e's fields. Each
 * returns 0, or LO_EINVALID / LO_ERROR with a message.
 */
int lo_elf_read_dynamic(lo_elf *e, int fd, const lo_elf_scn *r);
int lo_elf_read_verdef(lo_elf *e, int fd, const lo_elf_scn *r);
int lo_elf_read_verneed(lo_elf *e, int fd, const lo_elf_scn *r);

/*
 * Copy the whole file into e->into with one pread when it fits (e->into
 * set, e->size from the fstat), and set e->whole: the header and every
 * table are then read there, where on the descriptor each costs a pread.
 * Returns 0 (e->whole false when the file does not fit), or LO_EINVALID
 * when the file was cut short meanwhile.
 */
int lo_elf_read_whole(lo_elf *e, int fd);

/*
 * len bytes of the file at off, read with pread. They lie inside the file
 * as it was at open: fewer is a file cut or rewritten meanwhile
 * (LO_EINVALID, LO_ELF_CHANGED_MSG).
 */
int lo_elf_read_at(const lo_elf *e, int fd, void *buf, size_t len, uint64_t off);

/* Is this dynamic symbol one the loader must bind (undefined, not local)? */
static inline bool lo_elf_is_undef(const lo_elf64_sym *sym)
{
	return sym->st_shndx == LO_SHN_UNDEF && LO_ELF64_ST_BIND(sym->st_info) != LO_STB_LOCAL;
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
