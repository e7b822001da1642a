/*
 * elf_read.c - read an object's tables from its file (see elf_int.h).
 *
 * The section headers and the small sections (dynamic, version
 * definitions and requirements) are read from the file with pread, or
 * from a copy of the whole file when a private read made one
 * (lo_elf_read_whole), each checked to lie inside the file; the tables
 * that lookups read again and again (symbols, their strings, versions and
 * hash tables) are mapped, only they (map_tables says why), and read
 * there in place. Every count, index and offset taken from the file is
 * checked before it is followed: string offsets against the string table,
 * which must end in a NUL; version chains are walked with explicit bounds
 * and iteration caps, so a hostile file ends as LO_EINVALID, never as a
 * read outside the mapping or an endless loop.
 *
 * Structures are read field by field in the object's byte order
 * (LO_ELF_FIELD), so one code reads both classes and both orders; a table
 * lookups read that is not in this machine's layout (a 32-bit symbol
 * table, anything of the other byte order) is translated once into a
 * copy. What is refused is what libelf refused when it read these files
 * (a section whose size is no whole number of its entries, say), which
 * tests/elf_agree.c holds the reader to.
 *
 * The tables are read through the section headers, as readelf does. The
 * loader itself uses the dynamic segment; an object stripped of its section
 * headers (sstrip) is reported as unreadable rather than guessed at.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "object/elf_int.h"


/* The sections lo_elf_open reads; dynstr is the one dynsym (or dynamic) links to. */
typedef struct table_scns {
	lo_elf_scn dynamic, dynsym, dynstr, versym, verdef, verneed, gnu_hash, sysv_hash;
} table_scns;

/*
 * Section r's bytes where map_tables took the tables in (mapped, or read
 * into the caller's buffer); NULL when it took none, all being empty.
 */
static const void *mapped(const lo_elf *e, const lo_elf_scn *r)
{
	if (!e->base)
		return NULL;
	return e->base + r->at;
}

/*
 * String `off` of string table `link`, or NULL past its end. The loader
 * reads every name through DT_STRTAB, one table: a section naming another
 * has no string there.
 */
const char *lo_elf_link_str(const lo_elf *e, size_t link, size_t off)
{
	return e->dynstr && link == e->dynstr_index ? lo_elf_dynstr(e, off) : NULL;
}

int lo_elf_section_bytes(const lo_elf *e, int fd, const lo_elf_scn *r, const char *what,
			 const unsigned char **out, unsigned char **own)
{
	uint64_t off = r->sh.sh_offset, size = r->sh.sh_size;
	int err;

	*out = NULL;
	*own = NULL;
	if (off > e->size || size > e->size - off)
		return lo_error_set(LO_EINVALID,
				    "cannot read %s of '%s': %llu bytes at offset %llu, "
				    "past the end of the file (%zu bytes)",
				    what, e->name, (unsigned long long)size,
				    (unsigned long long)off, e->size);
	if (!size)
		return 0;
	if (e->whole) {
		*out = (const unsigned char *)e->into->data + off;
		return 0;
	}
	*own = lo_xmalloc((size_t)size);
	*out = *own;
	if ((err = lo_elf_read_at(e, fd, *own, (size_t)size, off)) < 0) {
		/* the caller owns the bytes only when they were read */
		free(*own);
		*out = *own = NULL;
	}
	return err;
}

int lo_elf_check_entries(const lo_elf *e, const lo_elf_scn *r, size_t unit, const char *what)
{
	if (r->sh.sh_size % unit)
		return lo_error_set(LO_EINVALID,
				    "cannot read %s of '%s': %llu bytes, not a whole number "
				    "of %zu-byte entries", what, e->name,
				    (unsigned long long)r->sh.sh_size, unit);
	return 0;
}

/*
 * Take the string table in place. A table whose last byte is not a NUL
 * would let a string run off its end; ld.so would read on, we refuse the
 * file.
 */
static int keep_dynstr(lo_elf *e, const table_scns *t)
{
	const char *s;
	size_t size = t->dynstr.sh.sh_size;

	if (t->dynstr.sh.sh_type != LO_SHT_STRTAB)
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic string table of '%s': "
				    "section %zu is not a string table",
				    e->name, t->dynstr.index);
	s = mapped(e, &t->dynstr);
	if (!size || !s || s[size - 1] != '\0')
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic string table of '%s': not NUL-terminated",
				    e->name);
	e->dynstr = s;
	e->dynstr_size = size;
	e->dynstr_index = t->dynstr.index;
	return 0;
}

/*
 * Keep the words of a hash section, of `size` bytes each (8 in s390x's
 * DT_HASH, glibc's Elf_Symndx there), as 32-bit words in this machine's
 * order: in place when they already are, else translated once into a copy
 * (*own), a word too wide saturating (a bound no lookup passes). Lookups
 * check bounds themselves.
 */
static int keep_words(lo_elf *e, int fd, const lo_elf_scn *r, size_t size, const uint32_t **words,
		      size_t *count, uint32_t **own, const char *what)
{
	const unsigned char *raw;
	unsigned char *copy;
	size_t i;
	int err;

	if (size == 4 && !e->foreign) {
		*words = mapped(e, r);
		*count = r->sh.sh_size / 4;
		if ((uintptr_t)*words % 4)
			return lo_error_set(LO_EINVALID, "cannot read %s of '%s': misaligned",
					    what, e->name);
		return 0;
	}
	if ((err = lo_elf_section_bytes(e, fd, r, what, &raw, &copy)) < 0)
		return err;
	*count = r->sh.sh_size / size;
	free(*own);
	*own = lo_xcalloc(*count ? *count : 1, sizeof(**own));
	for (i = 0; i < *count; i++) {
		uint64_t w = lo_elf_word(raw + i * size, size, e->data == LO_ELFDATA2MSB);

		(*own)[i] = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	}
	free(copy);
	*words = *own;
	return 0;
}

/*
 * A 64-bit object's bloom filter words were translated as pairs of 32-bit
 * words: in this machine's order the pair is the other way round.
 */
static void gnu_bloom_swap_halves(lo_elf *e)
{
	uint32_t *w = e->gnu_hash_own, t;
	size_t i;

	if (!w || e->class != LO_ELFCLASS64 || e->gnu_hash_words < 4)
		return;
	for (i = 0; i < w[2] && 4 + 2 * i + 1 < e->gnu_hash_words; i++) {
		t = w[4 + 2 * i];
		w[4 + 2 * i] = w[4 + 2 * i + 1];
		w[4 + 2 * i + 1] = t;
	}
}

/* Check the GNU hash table's header against its size; an unusable one is not used. */
static void gnu_hash_prepare(lo_elf *e)
{
	const uint32_t *w = e->gnu_hash;
	size_t words = e->gnu_hash_words;
	/* bloom filter words are of the object's class: 2 or 1 hash words each */
	size_t per = e->class == LO_ELFCLASS64 ? 2 : 1;
	uint32_t bloom_size;

	if (words < 4)
		return;
	bloom_size = w[2];
	if (!w[0] || !bloom_size || (size_t)bloom_size * per + w[0] > words - 4)
		return;
	e->gnu.usable = true;
	e->gnu.nbuckets = w[0];
	e->gnu.symoffset = w[1];
	e->gnu.bloom_mask = bloom_size - 1;
	e->gnu.bloom_shift = w[3];
	e->gnu.bloom_bits = (unsigned)per * 32;
	e->gnu.bloom = (const unsigned char *)(w + 4);
	e->gnu.buckets = w + 4 + (size_t)bloom_size * per;
	e->gnu.chain = e->gnu.buckets + w[0];
	e->gnu.chain_words = words - 4 - (size_t)bloom_size * per - w[0];
}

/* Count the undefined symbols among the n at syms, numbered from `first`. */
static int count_undefs_in(lo_elf *e, const lo_elf64_sym *syms, size_t n, size_t first)
{
	size_t k;

	for (k = 0; k < n; k++) {
		const char *name;

		/* most symbols are defined: one compare refuses them */
		if (syms[k].st_shndx != LO_SHN_UNDEF || !lo_elf_is_undef(&syms[k]))
			continue;
		if (!(name = lo_elf_dynstr(e, syms[k].st_name)))
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic symbol %zu of '%s': "
					    "name offset out of bounds", first + k, e->name);
		if (*name) {
			unsigned start = lo_elf_undef_start(name);

			e->undef_count++;
			e->undef_starts[start / 64] |= 1ull << (start % 64);
		}
		e->undef_end = first + k + 1;
	}
	return 0;
}

/*
 * One past the last symbol a shared library can leave undefined: the
 * first its GNU hash table holds. Linkers sort the hashed symbols to the
 * end of the table and, in a library, hash defined symbols only (the
 * 2,099 libraries of a Debian 12 /usr whose table hashes any; ld.bfd,
 * gold, lld and mold in tests/e2e/test_linkers.py), so the rest of a big
 * library's table need not be read: it was 150 MB of a scan of the
 * benchmark tree. The whole table is read where that does not hold:
 *   - in a program (ET_EXEC, DF_1_PIE, or DT_DEBUG, which linkers give
 *     programs only): ld.bfd hashes undefined symbols there too, those
 *     pointer equality needs the loader to find among them (1,127 of the
 *     1,195 programs in /usr: ls, python3.11);
 *   - in a table that hashes nothing: ld.bfd writes symoffset 1 however
 *     many symbols precede (3 libraries in /usr), so the symbol at
 *     symoffset must head its own hash chain.
 * Were a linker to break the rule, undefined symbols would go unseen: a
 * load would pass that fails, never the other way round.
 */
static size_t undef_bound(const lo_elf *e)
{
	size_t first = e->gnu.symoffset;
	const char *name;
	uint32_t h;

	if (e->type != LO_ET_DYN || e->pie || e->debug_slot || !e->gnu.usable || first < 1 ||
	    first >= e->dynsym_count || !e->gnu.chain_words ||
	    !(name = lo_elf_dynstr(e, e->dynsym[first].st_name)))
		return e->dynsym_count;
	h = lo_elf_gnu_hash(name);
	if ((e->gnu.chain[0] | 1u) != (h | 1u) || e->gnu.buckets[h % e->gnu.nbuckets] != first)
		return e->dynsym_count;
	return first;
}

/*
 * Count the undefined symbols, refusing one whose name lies outside the
 * string table. A 64-bit table is read in place only as far as a shared
 * library's undefined symbols go (undef_bound), which its loads read from
 * the mapping again. Else it is read here with pread, a block at a time:
 * this pass reads every symbol (a library may define 100,000) where
 * lookups later read a few, and each page of a mapping costs a fault to
 * read and stays resident until released.
 */
static int count_undefs(lo_elf *e, int fd, const lo_elf_scn *dynsym)
{
	lo_elf64_sym block[2048];
	size_t i, want, end;
	int err;

	if (e->dynsym_count < 2)
		return 0;
	if (e->dynsym_wide || e->whole)
		return count_undefs_in(e, e->dynsym + 1, e->dynsym_count - 1, 1);
	if ((end = undef_bound(e)) < e->dynsym_count)
		return count_undefs_in(e, e->dynsym + 1, end - 1, 1);
	for (i = 1; i < e->dynsym_count; i += want) {
		want = e->dynsym_count - i < 2048 ? e->dynsym_count - i : 2048;
		if ((err = lo_elf_read_at(e, fd, block, want * sizeof(*block),
				   dynsym->sh.sh_offset + i * sizeof(*block))) < 0 ||
		    (err = count_undefs_in(e, block, want, i)) < 0)
			return err;
	}
	return 0;
}

/* Why a file has no section headers to read. */
static int no_sections(const lo_elf *e, const lo_elf_head *h)
{
	if (h->shoff && h->shoff >= e->size)
		return lo_error_set(LO_EINVALID,
				    "cannot read '%s': truncated: its section headers start at "
				    "offset %llu, past the end of the file (%zu bytes)",
				    e->name, (unsigned long long)h->shoff, e->size);
	return lo_error_set(LO_EINVALID,
			    "cannot read '%s': no section headers (stripped with sstrip?)", e->name);
}

/*
 * The dynamic symbol table: a 64-bit object's read in place, entries of
 * the size and alignment it claims; a 32-bit object's widened once into
 * a copy of the same shape, so that lookups read one layout.
 */
static int keep_dynsym(lo_elf *e, int fd, const lo_elf_scn *r)
{
	bool wide = e->class == LO_ELFCLASS64, big = e->data == LO_ELFDATA2MSB;
	size_t entsize = wide ? sizeof(lo_elf64_sym) : sizeof(lo_elf32_sym), i;
	const unsigned char *raw;
	unsigned char *own;
	lo_elf64_sym *copy;
	int err;

	if (r->sh.sh_entsize != entsize)
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic symbol table of '%s': "
				    "entries of %llu bytes, or misaligned", e->name,
				    (unsigned long long)r->sh.sh_entsize);
	if (wide && !e->foreign) {
		e->dynsym = mapped(e, r);
		e->dynsym_count = r->sh.sh_size / entsize;
		if ((uintptr_t)e->dynsym % _Alignof(lo_elf64_sym))
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic symbol table of '%s': "
					    "entries of %llu bytes, or misaligned", e->name,
					    (unsigned long long)r->sh.sh_entsize);
		return 0;
	}
	if ((err = lo_elf_check_entries(e, r, entsize, "dynamic symbol table")) < 0 ||
	    (err = lo_elf_section_bytes(e, fd, r, "dynamic symbol table", &raw, &own)) < 0)
		return err;
	e->dynsym_count = r->sh.sh_size / entsize;
	copy = lo_xcalloc(e->dynsym_count ? e->dynsym_count : 1, sizeof(*copy));
	for (i = 0; i < e->dynsym_count; i++) {
		const unsigned char *p = raw + i * entsize;

		copy[i].st_name = (uint32_t)LO_ELF_FIELD(wide, p, sym, st_name, big);
		copy[i].st_value = LO_ELF_FIELD(wide, p, sym, st_value, big);
		copy[i].st_size = LO_ELF_FIELD(wide, p, sym, st_size, big);
		copy[i].st_info = (unsigned char)LO_ELF_FIELD(wide, p, sym, st_info, big);
		copy[i].st_other = (unsigned char)LO_ELF_FIELD(wide, p, sym, st_other, big);
		copy[i].st_shndx = (uint16_t)LO_ELF_FIELD(wide, p, sym, st_shndx, big);
	}
	free(own);
	e->dynsym = e->dynsym_wide = copy;
	return 0;
}

static int keep_versym(lo_elf *e, int fd, const lo_elf_scn *r, size_t *count)
{
	const unsigned char *raw;
	unsigned char *own;
	size_t i;
	int err;

	if (!e->foreign) {
		e->versym = mapped(e, r);
		*count = r->sh.sh_size / sizeof(lo_elf64_versym);
		if ((uintptr_t)e->versym % _Alignof(lo_elf64_versym))
			return lo_error_set(LO_EINVALID,
					    "cannot read symbol versions of '%s': misaligned", e->name);
		return 0;
	}
	if ((err = lo_elf_check_entries(e, r, sizeof(lo_elf64_versym), "symbol versions")) < 0 ||
	    (err = lo_elf_section_bytes(e, fd, r, "symbol versions", &raw, &own)) < 0)
		return err;
	*count = r->sh.sh_size / sizeof(lo_elf64_versym);
	e->versym_own = lo_xcalloc(*count ? *count : 1, sizeof(lo_elf64_versym));
	for (i = 0; i < *count; i++)
		e->versym_own[i] = (lo_elf64_versym)lo_elf_word(raw + 2 * i, 2, e->data == LO_ELFDATA2MSB);
	free(own);
	e->versym = e->versym_own;
	return 0;
}

/* The section header at p, of an object of e's class and byte order. */
static lo_elf_shdr shdr_at(const lo_elf *e, const unsigned char *p)
{
	bool wide = e->class == LO_ELFCLASS64, big = e->data == LO_ELFDATA2MSB;

	return (lo_elf_shdr){
		.sh_type = (uint32_t)LO_ELF_FIELD(wide, p, shdr, sh_type, big),
		.sh_link = (uint32_t)LO_ELF_FIELD(wide, p, shdr, sh_link, big),
		.sh_info = (uint32_t)LO_ELF_FIELD(wide, p, shdr, sh_info, big),
		.sh_offset = LO_ELF_FIELD(wide, p, shdr, sh_offset, big),
		.sh_size = LO_ELF_FIELD(wide, p, shdr, sh_size, big),
		.sh_entsize = LO_ELF_FIELD(wide, p, shdr, sh_entsize, big),
	};
}

/*
 * The number of section headers: e_shnum, or, when that is 0 and there
 * is a table, section 0's sh_size (gABI: extended numbering, for 65,280
 * sections or more). Section 0 lies at e_shoff: 0 when it does not.
 */
static int shdr_count(lo_elf *e, int fd, const lo_elf_head *h, size_t shsize, size_t *n)
{
	lo_elf_scn first = { .present = true, .sh = { .sh_offset = h->shoff, .sh_size = shsize } };
	const unsigned char *p;
	unsigned char *own;
	uint64_t count;
	int err;

	*n = h->shnum;
	if (h->shnum || !h->shoff || h->shoff >= e->size || e->size - h->shoff < shsize)
		return 0;
	if ((err = lo_elf_section_bytes(e, fd, &first, "section headers", &p, &own)) < 0)
		return err;
	count = shdr_at(e, p).sh_size;
	free(own);
	/* libelf's bound: a count wider than a section index is no count */
	if (count > UINT32_MAX)
		return lo_error_set(LO_EINVALID,
				    "cannot read section headers of '%s': %llu sections", e->name,
				    (unsigned long long)count);
	*n = (size_t)count;
	return 0;
}

/*
 * Find the sections lo_elf_open reads, in one pass over the section
 * headers, which must lie inside the file.
 */
static int find_tables(lo_elf *e, int fd, const lo_elf_head *h, table_scns *t)
{
	size_t shsize = e->class == LO_ELFCLASS64 ? sizeof(lo_elf64_shdr) : sizeof(lo_elf32_shdr);
	size_t shnum, strtab, i;
	lo_elf_scn table = { .present = true };
	const unsigned char *tab;
	unsigned char *own;
	int err;

	if ((err = shdr_count(e, fd, h, shsize, &shnum)) < 0)
		return err;
	if (shnum == 0 || h->shoff >= e->size)
		return no_sections(e, h);
	table.sh.sh_offset = h->shoff;
	table.sh.sh_size = (uint64_t)shnum * shsize;
	if ((err = lo_elf_section_bytes(e, fd, &table, "section headers", &tab, &own)) < 0)
		return err;
	if (!tab) /* a table of no bytes: shnum times the entry size wrapped around */
		return no_sections(e, h);
	for (i = 0; i < shnum; i++) {
		lo_elf_shdr sh = shdr_at(e, tab + i * shsize);
		lo_elf_scn *r;

		switch (sh.sh_type) {
		case LO_SHT_DYNAMIC: r = &t->dynamic; break;
		case LO_SHT_DYNSYM: r = &t->dynsym; break;
		case LO_SHT_GNU_VERSYM: r = &t->versym; break;
		case LO_SHT_GNU_VERDEF: r = &t->verdef; break;
		case LO_SHT_GNU_VERNEED: r = &t->verneed; break;
		case LO_SHT_GNU_HASH: r = &t->gnu_hash; break;
		case LO_SHT_HASH: r = &t->sysv_hash; break;
		default: continue;
		}
		*r = (lo_elf_scn){ .present = true, .index = i, .sh = sh };
	}
	if (t->dynsym.present || t->dynamic.present) {
		strtab = t->dynsym.present ? t->dynsym.sh.sh_link : t->dynamic.sh.sh_link;
		if (strtab < shnum)
			t->dynstr = (lo_elf_scn){ .present = true, .index = strtab,
					       .sh = shdr_at(e, tab + strtab * shsize) };
		else
			err = lo_error_set(LO_EINVALID,
					   "cannot read dynamic string table of '%s': "
					   "section %zu of %zu", e->name, strtab, shnum);
	}
	free(own);
	return err;
}

/*
 * The sections read in place, as map_tables takes them: the span of the
 * file that holds them all, and what they take read one after another.
 */
typedef struct table_span {
	size_t lo, hi;
	size_t pieces; /* bytes, each section placed by piece_at */
	lo_elf_scn *taken[5];
	size_t count;
} table_span;

/*
 * Where a section goes in the buffer after `pos` bytes of others: at the
 * next 8-byte boundary plus its file offset's remainder, so that it is as
 * aligned there as in the file, and a table misaligned in the file is
 * still refused as misaligned.
 */
static size_t piece_at(size_t pos, const lo_elf_scn *r)
{
	return ((pos + 7) & ~(size_t)7) + r->sh.sh_offset % 8;
}

/*
 * Take section r to be read in place: widen the span to hold it, count
 * its bytes; it must lie inside the file.
 */
static int span_take(lo_elf *e, lo_elf_scn *r, const char *what, table_span *s)
{
	if (!r->present)
		return 0;
	if (r->sh.sh_offset > e->size || r->sh.sh_size > e->size - r->sh.sh_offset)
		return lo_error_set(LO_EINVALID,
				    "cannot read %s of '%s': %llu bytes at offset %llu, "
				    "past the end of the file (%zu bytes)",
				    what, e->name, (unsigned long long)r->sh.sh_size,
				    (unsigned long long)r->sh.sh_offset, e->size);
	e->table_bytes += r->sh.sh_size;
	if (r->sh.sh_offset < s->lo)
		s->lo = r->sh.sh_offset;
	if (r->sh.sh_offset + r->sh.sh_size > s->hi)
		s->hi = r->sh.sh_offset + r->sh.sh_size;
	/* past the buffer's size the sum is of no use, and must not wrap (32-bit size_t) */
	if (s->pieces <= LO_ELF_BUF_MAX)
		s->pieces = r->sh.sh_size > LO_ELF_BUF_MAX ? SIZE_MAX
							   : piece_at(s->pieces, r) + r->sh.sh_size;
	s->taken[s->count++] = r;
	return 0;
}

/* The buffer at its one size, made by its first object. */
static void buf_reserve(lo_elf_buf *b)
{
	if (!b->data)
		b->data = lo_xmalloc(LO_ELF_BUF_MAX);
}

/*
 * Read the tables into the caller's buffer (lo_elf_open_private): a
 * private object's pages are the buffer's, already there, where a
 * mapping's cost a fault to read and a teardown to let go, both dear
 * under paravirtualised paging (docs/performance.md). The span is read
 * with one pread when it fits (LO_ELF_BUF_MAX); else each section with its
 * own, when they fit one after another. That is the case patchelf makes:
 * it moves the tables it rewrites to the end of the file, and the span
 * between holds the code.
 */
static int copy_tables(lo_elf *e, int fd, table_span *s)
{
	lo_elf_buf *b = e->into;
	size_t i, pos = 0;
	int err;

	buf_reserve(b);
	if (s->hi - s->lo <= LO_ELF_BUF_MAX) {
		/* a whole file read holds the span where it lies: span_take keeps it inside */
		e->base = b->data + (e->whole ? s->lo : 0);
		return e->whole ? 0 : lo_elf_read_at(e, fd, b->data, s->hi - s->lo, s->lo);
	}
	e->base = b->data;
	for (i = 0; i < s->count; i++) {
		lo_elf_scn *r = s->taken[i];

		r->at = pos = piece_at(pos, r);
		if ((err = lo_elf_read_at(e, fd, b->data + pos, r->sh.sh_size, r->sh.sh_offset)) < 0)
			return err;
		pos += r->sh.sh_size;
	}
	return 0;
}

/*
 * Map the part of the file that holds the tables read in place: the
 * symbol, string, version and hash tables, next to each other near the
 * start of every object a linker makes (patchelf moves those it rewrites
 * to the end: the span then holds code that is mapped, never read, and
 * not counted in table_bytes). Not the whole file: the kernel
 * maps the pages around each one read (64 KiB, fault-around), and these
 * stay resident until the mapping is released, so that a whole-file
 * mapping made every object cost its code's pages too. The headers and the
 * small sections are read with pread (lo_elf_section_bytes).
 */
static int map_tables(lo_elf *e, int fd, table_scns *t)
{
	table_span s = { .lo = SIZE_MAX };
	size_t i;
	int err;

	if ((err = span_take(e, &t->dynstr, "dynamic string table", &s)) < 0 ||
	    (e->class == LO_ELFCLASS64 && !e->foreign &&
	     (err = span_take(e, &t->dynsym, "dynamic symbol table", &s)) < 0))
		return err;
	if (!e->foreign &&
	    ((err = span_take(e, &t->versym, "symbol versions", &s)) < 0 ||
	     (err = span_take(e, &t->gnu_hash, "GNU hash table", &s)) < 0 ||
	     (t->sysv_hash.sh.sh_entsize != 8 &&
	      (err = span_take(e, &t->sysv_hash, "hash table", &s)) < 0)))
		return err;
	if (s.hi <= s.lo)
		return 0;
	/* where each lies from the span's start; copy_tables may place them one by one */
	for (i = 0; i < s.count; i++)
		s.taken[i]->at = s.taken[i]->sh.sh_offset - s.lo;
	if (e->into && (s.hi - s.lo <= LO_ELF_BUF_MAX || s.pieces <= LO_ELF_BUF_MAX))
		return copy_tables(e, fd, &s);
	e->into = NULL; /* too big for the buffer: mapped, as for every reader */
	if ((err = lo_fmap_new(&e->map, fd, s.lo, s.hi - s.lo, e->name)) < 0)
		return err;
	e->base = lo_fmap_data(e->map);
	return 0;
}

int lo_elf_read_tables(lo_elf *e, int fd, const lo_elf_head *h)
{
	table_scns t = { 0 };
	size_t versym_count = 0;
	int err;

	if ((err = find_tables(e, fd, h, &t)) < 0 || (err = map_tables(e, fd, &t)) != 0)
		return err;
	if (t.dynstr.present && (err = keep_dynstr(e, &t)) < 0)
		return err;
	if (t.dynamic.present && (err = lo_elf_read_dynamic(e, fd, &t.dynamic)) < 0)
		return err;
	if (t.dynsym.present && (err = keep_dynsym(e, fd, &t.dynsym)) < 0)
		return err;
	if (t.versym.present && (err = keep_versym(e, fd, &t.versym, &versym_count)) < 0)
		return err;
	if (t.gnu_hash.present) {
		if ((err = keep_words(e, fd, &t.gnu_hash, 4, &e->gnu_hash, &e->gnu_hash_words,
				      &e->gnu_hash_own, "GNU hash table")) < 0)
			return err;
		gnu_bloom_swap_halves(e);
	}
	if (t.sysv_hash.present &&
	    (err = keep_words(e, fd, &t.sysv_hash, t.sysv_hash.sh.sh_entsize == 8 ? 8 : 4,
			      &e->sysv_hash, &e->sysv_hash_words, &e->sysv_hash_own,
			      "hash table")) < 0)
		return err;
	gnu_hash_prepare(e);
	if (e->versym && versym_count < e->dynsym_count)
		return lo_error_set(LO_EINVALID,
				    "cannot read symbol versions of '%s': %zu entries for %zu symbols",
				    e->name, versym_count, e->dynsym_count);
	if ((t.verdef.present && (err = lo_elf_read_verdef(e, fd, &t.verdef)) < 0) ||
	    (t.verneed.present && (err = lo_elf_read_verneed(e, fd, &t.verneed)) < 0))
		return err;
	return e->dynsym ? count_undefs(e, fd, &t.dynsym) : 0;
}
