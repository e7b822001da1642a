/*
 * elf_read.c - read an object's tables from its file (see elf_int.h).
 *
 * libelf reads the headers and the small sections (dynamic, version
 * definitions and requirements) from the file with pread (ELF_C_READ), or
 * from a copy of the whole file when a private read made one
 * (lo_elf_read_whole), checking that each lies inside the file; the
 * tables that lookups read again and again (symbols, their strings,
 * versions and hash tables) are mapped, only they (map_tables says why),
 * and read there in place. On top of libelf every count, index and offset
 * taken from the file is checked before it is followed: string offsets
 * against the string table, which must end in a NUL; version chains are
 * walked with explicit bounds and iteration caps, so a hostile file ends
 * as LO_EINVALID, never as a read outside the mapping or an endless loop.
 *
 * The tables are read through the section headers, as readelf does. The
 * loader itself uses the dynamic segment; an object stripped of its section
 * headers (sstrip) is reported as unreadable rather than guessed at.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "object/elf_int.h"

/* One section header, as read_tables finds it: the last of each kind counts. */
typedef struct scn_ref {
	Elf_Scn *scn; /* NULL: the object has none */
	GElf_Shdr sh;
	size_t at; /* where map_tables put its bytes, from e->base, if it took them */
} scn_ref;

/* The sections lo_elf_open reads; dynstr is the one dynsym (or dynamic) links to. */
typedef struct table_scns {
	scn_ref dynamic, dynsym, dynstr, versym, verdef, verneed, gnu_hash, sysv_hash;
} table_scns;

/*
 * Section r's bytes where map_tables took the tables in (mapped, or read
 * into the caller's buffer); NULL when it took none, all being empty.
 */
static const void *mapped(const lo_elf *e, const scn_ref *r)
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
static const char *link_str(const lo_elf *e, size_t link, size_t off)
{
	return e->dynstr && link == e->dynstr_index ? lo_elf_dynstr(e, off) : NULL;
}

int lo_elf_fail(const lo_elf *e, const char *what)
{
	const char *msg = elf_errmsg(-1);

	return lo_error_set(LO_EINVALID, "cannot read %s of '%s': %s", what, e->name,
			    msg ? msg : "malformed");
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

	if (t->dynstr.sh.sh_type != SHT_STRTAB)
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic string table of '%s': "
				    "section %zu is not a string table",
				    e->name, elf_ndxscn(t->dynstr.scn));
	s = mapped(e, &t->dynstr);
	if (!size || !s || s[size - 1] != '\0')
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic string table of '%s': not NUL-terminated",
				    e->name);
	e->dynstr = s;
	e->dynstr_size = size;
	e->dynstr_index = elf_ndxscn(t->dynstr.scn);
	return 0;
}

static int read_dynamic(lo_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n, cap = 0;
	GElf_Dyn dyn;
	const char *rpath = NULL;

	if (!data)
		return lo_elf_fail(e, "dynamic section");
	if (!sh->sh_entsize || data->d_size / sh->sh_entsize > LO_ELF_MAX_CHAIN)
		return lo_error_set(LO_EINVALID, "cannot read dynamic section of '%s': bad size",
				    e->name);
	n = data->d_size / sh->sh_entsize;
	for (i = 0; i < n && gelf_getdyn(data, (int)i, &dyn); i++) {
		const char *s = NULL;

		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_SONAME || dyn.d_tag == DT_RPATH ||
		    dyn.d_tag == DT_RUNPATH) {
			s = link_str(e, sh->sh_link, dyn.d_un.d_val);
			if (!s)
				return lo_error_set(LO_EINVALID,
						    "cannot read dynamic section of '%s': "
						    "string offset %llu out of bounds",
						    e->name, (unsigned long long)dyn.d_un.d_val);
		}
		switch (dyn.d_tag) {
		case DT_NEEDED:
			lo_array_grow(&e->needed, &cap, e->needed_count + 1, sizeof(*e->needed));
			e->needed[e->needed_count++] = s;
			break;
		case DT_SONAME:
			e->soname = s;
			break;
		case DT_RPATH:
			rpath = s;
			break;
		case DT_RUNPATH:
			e->runpath = s;
			break;
		case DT_DEBUG:
			e->debug_slot = true;
			break;
		case DT_FLAGS_1:
			e->pie = (dyn.d_un.d_val & DF_1_PIE) != 0;
			e->nodeflib = (dyn.d_un.d_val & DF_1_NODEFLIB) != 0;
			break;
		}
	}
	/* As in glibc's get-dynamic-info.h: with both present, RPATH is ignored. */
	e->rpath = e->runpath ? NULL : rpath;
	return 0;
}

/*
 * Walk .gnu.version_d. Entries link by byte offsets (vd_next, vd_aux) that
 * the file chooses, so each step is bounded by the section size and the
 * number of steps by sh_info.
 */
static int read_verdef(lo_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, i, cap = 0;
	GElf_Verdef vd;
	GElf_Verdaux vda;

	if (!data)
		return lo_elf_fail(e, "version definitions");
	for (i = 0; i < sh->sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const char *name;
		size_t ndx;

		if (off > data->d_size || !gelf_getverdef(data, (int)off, &vd))
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "entry at offset %zu out of bounds", e->name, off);
		if (!vd.vd_cnt || !gelf_getverdaux(data, (int)(off + vd.vd_aux), &vda))
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "bad auxiliary entry at offset %zu", e->name, off);
		name = link_str(e, sh->sh_link, vda.vda_name);
		if (!name)
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "bad name offset", e->name);
		ndx = vd.vd_ndx & 0x7fff;
		if (ndx >= e->verdefs.count) {
			lo_array_grow(&e->verdefs.names, &cap, ndx + 1, sizeof(char *));
			memset(e->verdefs.names + e->verdefs.count, 0,
			       (ndx + 1 - e->verdefs.count) * sizeof(char *));
			e->verdefs.count = ndx + 1;
		}
		/* The base version names the file itself; it never matches a reference. */
		if (!(vd.vd_flags & VER_FLG_BASE))
			e->verdefs.names[ndx] = name;
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return 0;
}

static int read_verneed(lo_elf *e, Elf_Scn *scn, const GElf_Shdr *sh, verneed_index **index,
			size_t *index_count)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, i, j, cap = 0, icap = 0;
	GElf_Verneed vn;
	GElf_Vernaux vna;

	if (!data)
		return lo_elf_fail(e, "version requirements");
	for (i = 0; i < sh->sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const char *file;
		size_t aoff;

		if (off > data->d_size || !gelf_getverneed(data, (int)off, &vn))
			return lo_error_set(LO_EINVALID,
					    "cannot read version requirements of '%s': "
					    "entry at offset %zu out of bounds", e->name, off);
		file = link_str(e, sh->sh_link, vn.vn_file);
		if (!file)
			return lo_error_set(LO_EINVALID,
					    "cannot read version requirements of '%s': "
					    "bad file name offset", e->name);
		aoff = off + vn.vn_aux;
		for (j = 0; j < vn.vn_cnt; j++) {
			const char *name;
			size_t ndx;

			if (aoff > data->d_size || !gelf_getvernaux(data, (int)aoff, &vna))
				return lo_error_set(LO_EINVALID,
						    "cannot read version requirements of '%s': "
						    "auxiliary entry at offset %zu out of bounds",
						    e->name, aoff);
			name = link_str(e, sh->sh_link, vna.vna_name);
			if (!name)
				return lo_error_set(LO_EINVALID,
						    "cannot read version requirements of '%s': "
						    "bad version name offset", e->name);
			lo_array_grow(&e->verneeds, &cap, e->verneed_count + 1, sizeof(*e->verneeds));
			e->verneeds[e->verneed_count++] = (lo_elf_verneed){
				file, name, (vna.vna_flags & VER_FLG_WEAK) != 0 };
			ndx = vna.vna_other & 0x7fff;
			if (ndx >= *index_count) {
				size_t old = *index_count;

				lo_array_grow(index, &icap, ndx + 1, sizeof(**index));
				memset(*index + old, 0, (ndx + 1 - old) * sizeof(**index));
				*index_count = ndx + 1;
			}
			(*index)[ndx] = (verneed_index){ file, name, (vna.vna_other & 0x8000) != 0 };
			if (!vna.vna_next)
				break;
			aoff += vna.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return 0;
}

/* A word of `size` bytes at p, in the object's byte order. */
static uint64_t load_word(const unsigned char *p, size_t size, bool big)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v = big ? v << 8 | p[i] : v | (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Keep the words of a hash section, of `size` bytes each (8 in s390x's
 * DT_HASH, glibc's Elf_Symndx there), as 32-bit words in this machine's
 * order: in place when they already are, else translated once into a copy
 * (*own), a word too wide saturating (a bound no lookup passes). Lookups
 * check bounds themselves.
 */
static int keep_words(lo_elf *e, const scn_ref *r, size_t size, const uint32_t **words,
		      size_t *count, uint32_t **own, const char *what)
{
	Elf_Data *data;
	const unsigned char *raw;
	size_t i;

	if (size == 4 && !e->foreign) {
		*words = mapped(e, r);
		*count = r->sh.sh_size / 4;
		if ((uintptr_t)*words % 4)
			return lo_error_set(LO_EINVALID, "cannot read %s of '%s': misaligned",
					    what, e->name);
		return 0;
	}
	if (!(data = elf_rawdata(r->scn, NULL)) || !data->d_buf)
		return lo_elf_fail(e, what);
	*count = data->d_size / size;
	raw = data->d_buf;
	free(*own);
	*own = lo_xcalloc(*count ? *count : 1, sizeof(**own));
	for (i = 0; i < *count; i++) {
		uint64_t w = load_word(raw + i * size, size, e->data == ELFDATA2MSB);

		(*own)[i] = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	}
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

	if (!w || e->class != ELFCLASS64 || e->gnu_hash_words < 4)
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
	size_t per = e->class == ELFCLASS64 ? 2 : 1;
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

/*
 * len bytes of the file at off, read with pread. They lie inside the file
 * as it was at open (span_take, the section checks): fewer is a file cut
 * or rewritten meanwhile.
 */
static int read_at(const lo_elf *e, int fd, void *buf, size_t len, size_t off)
{
	ssize_t got;
	int tries = 0;

	do
		got = pread(fd, buf, len, (off_t)off);
	while (got < 0 && errno == EINTR && ++tries < LO_ELF_EINTR_TRIES);
	if (got != (ssize_t)len)
		return lo_error_set(LO_EINVALID, "cannot read '%s': %s", e->name, LO_ELF_CHANGED_MSG);
	return 0;
}

/* Count the undefined symbols among the n at syms, numbered from `first`. */
static int count_undefs_in(lo_elf *e, const Elf64_Sym *syms, size_t n, size_t first)
{
	size_t k;

	for (k = 0; k < n; k++) {
		const char *name;

		/* most symbols are defined: one compare refuses them */
		if (syms[k].st_shndx != SHN_UNDEF || !lo_elf_is_undef(&syms[k]))
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

	if (e->type != ET_DYN || e->pie || e->debug_slot || !e->gnu.usable || first < 1 ||
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
static int count_undefs(lo_elf *e, int fd, const scn_ref *dynsym)
{
	Elf64_Sym block[2048];
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
		if ((err = read_at(e, fd, block, want * sizeof(*block),
				   dynsym->sh.sh_offset + i * sizeof(*block))) < 0 ||
		    (err = count_undefs_in(e, block, want, i)) < 0)
			return err;
	}
	return 0;
}

/* Why a file has no section headers to read. */
static int no_sections(const lo_elf *e)
{
	GElf_Ehdr eh;

	/* libelf counts none when the table lies past the end of the file */
	if (gelf_getehdr(e->elf, &eh) && eh.e_shoff && eh.e_shnum && eh.e_shoff >= e->size)
		return lo_error_set(LO_EINVALID,
				    "cannot read '%s': truncated: its section headers start at "
				    "offset %llu, past the end of the file (%zu bytes)",
				    e->name, (unsigned long long)eh.e_shoff, e->size);
	return lo_error_set(LO_EINVALID,
			    "cannot read '%s': no section headers (stripped with sstrip?)", e->name);
}

/*
 * The dynamic symbol table: a 64-bit object's read in place, entries of
 * the size and alignment it claims; a 32-bit object's widened once into
 * a copy of the same shape, so that lookups read one layout.
 */
static int keep_dynsym(lo_elf *e, const scn_ref *r)
{
	bool wide = e->class == ELFCLASS64;
	size_t entsize = wide ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym), i;
	const Elf32_Sym *narrow;
	Elf64_Sym *copy;
	Elf_Data *d;

	if (r->sh.sh_entsize != entsize)
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic symbol table of '%s': "
				    "entries of %llu bytes, or misaligned", e->name,
				    (unsigned long long)r->sh.sh_entsize);
	if (wide && !e->foreign) {
		e->dynsym = mapped(e, r);
		e->dynsym_count = r->sh.sh_size / entsize;
		if ((uintptr_t)e->dynsym % _Alignof(Elf64_Sym))
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic symbol table of '%s': "
					    "entries of %llu bytes, or misaligned", e->name,
					    (unsigned long long)r->sh.sh_entsize);
		return 0;
	}
	/* libelf's copy, translated to this machine's order, freed by elf_end */
	if (!(d = elf_getdata(r->scn, NULL)) || !d->d_buf)
		return lo_elf_fail(e, "dynamic symbol table");
	e->dynsym_count = d->d_size / entsize;
	narrow = d->d_buf;
	copy = lo_xcalloc(e->dynsym_count ? e->dynsym_count : 1, sizeof(*copy));
	for (i = 0; i < e->dynsym_count; i++) {
		if (wide) {
			copy[i] = ((const Elf64_Sym *)d->d_buf)[i];
			continue;
		}
		copy[i].st_name = narrow[i].st_name;
		copy[i].st_value = narrow[i].st_value;
		copy[i].st_size = narrow[i].st_size;
		copy[i].st_info = narrow[i].st_info;
		copy[i].st_other = narrow[i].st_other;
		copy[i].st_shndx = narrow[i].st_shndx;
	}
	e->dynsym = e->dynsym_wide = copy;
	return 0;
}

static int keep_versym(lo_elf *e, const scn_ref *r, size_t *count)
{
	Elf_Data *d;

	if (!e->foreign) {
		e->versym = mapped(e, r);
		*count = r->sh.sh_size / sizeof(GElf_Versym);
		if ((uintptr_t)e->versym % _Alignof(GElf_Versym))
			return lo_error_set(LO_EINVALID,
					    "cannot read symbol versions of '%s': misaligned", e->name);
		return 0;
	}
	/* libelf's translated copy, freed by elf_end */
	if (!(d = elf_getdata(r->scn, NULL)))
		return lo_elf_fail(e, "symbol versions");
	*count = d->d_size / sizeof(GElf_Versym);
	e->versym_own = lo_xcalloc(*count ? *count : 1, sizeof(GElf_Versym));
	if (*count)
		memcpy(e->versym_own, d->d_buf, *count * sizeof(GElf_Versym));
	e->versym = e->versym_own;
	return 0;
}

/* Find the sections lo_elf_open reads, in one pass over the section headers. */
static int find_tables(lo_elf *e, table_scns *t)
{
	Elf_Scn *scn = NULL;
	size_t shnum, strtab;

	if (elf_getshdrnum(e->elf, &shnum) < 0)
		return lo_elf_fail(e, "section headers");
	if (shnum == 0)
		return no_sections(e);
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		scn_ref *r;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return lo_elf_fail(e, "section header");
		switch (sh.sh_type) {
		case SHT_DYNAMIC: r = &t->dynamic; break;
		case SHT_DYNSYM: r = &t->dynsym; break;
		case SHT_GNU_versym: r = &t->versym; break;
		case SHT_GNU_verdef: r = &t->verdef; break;
		case SHT_GNU_verneed: r = &t->verneed; break;
		case SHT_GNU_HASH: r = &t->gnu_hash; break;
		case SHT_HASH: r = &t->sysv_hash; break;
		default: continue;
		}
		*r = (scn_ref){ .scn = scn, .sh = sh };
	}
	strtab = t->dynsym.scn ? t->dynsym.sh.sh_link : t->dynamic.scn ? t->dynamic.sh.sh_link : 0;
	if (!t->dynsym.scn && !t->dynamic.scn)
		return 0;
	if (!(t->dynstr.scn = elf_getscn(e->elf, strtab)) || !gelf_getshdr(t->dynstr.scn, &t->dynstr.sh))
		return lo_elf_fail(e, "dynamic string table");
	return 0;
}

/*
 * The sections read in place, as map_tables takes them: the span of the
 * file that holds them all, and what they take read one after another.
 */
typedef struct table_span {
	size_t lo, hi;
	size_t pieces; /* bytes, each section placed by piece_at */
	scn_ref *taken[5];
	size_t count;
} table_span;

/*
 * Where a section goes in the buffer after `pos` bytes of others: at the
 * next 8-byte boundary plus its file offset's remainder, so that it is as
 * aligned there as in the file, and a table misaligned in the file is
 * still refused as misaligned.
 */
static size_t piece_at(size_t pos, const scn_ref *r)
{
	return ((pos + 7) & ~(size_t)7) + r->sh.sh_offset % 8;
}

/*
 * Take section r to be read in place: widen the span to hold it, count
 * its bytes; it must lie inside the file.
 */
static int span_take(lo_elf *e, scn_ref *r, const char *what, table_span *s)
{
	if (!r->scn)
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

int lo_elf_read_whole(lo_elf *e, int fd)
{
	static const unsigned char native =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	int err;

	if (e->size < EI_NIDENT || e->size > LO_ELF_BUF_MAX)
		return 0;
	buf_reserve(e->into);
	if ((err = read_at(e, fd, e->into->data, e->size, 0)) < 0)
		return err;
	if ((unsigned char)e->into->data[EI_DATA] != native)
		return 0;
	e->elf = elf_memory(e->into->data, e->size);
	e->whole = e->elf != NULL;
	return 0;
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
		return e->whole ? 0 : read_at(e, fd, b->data, s->hi - s->lo, s->lo);
	}
	e->base = b->data;
	for (i = 0; i < s->count; i++) {
		scn_ref *r = s->taken[i];

		r->at = pos = piece_at(pos, r);
		if ((err = read_at(e, fd, b->data + pos, r->sh.sh_size, r->sh.sh_offset)) < 0)
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
 * small sections are read by libelf with pread.
 */
static int map_tables(lo_elf *e, int fd, table_scns *t)
{
	table_span s = { .lo = SIZE_MAX };
	size_t i;
	int err;

	if ((err = span_take(e, &t->dynstr, "dynamic string table", &s)) < 0 ||
	    (e->class == ELFCLASS64 && !e->foreign &&
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

int lo_elf_read_tables(lo_elf *e, int fd)
{
	table_scns t = { 0 };
	verneed_index *index = NULL;
	size_t index_count = 0, versym_count = 0;
	int err;

	if ((err = find_tables(e, &t)) < 0 || (err = map_tables(e, fd, &t)) != 0)
		return err;
	if (t.dynstr.scn && (err = keep_dynstr(e, &t)) < 0)
		return err;
	if (t.dynamic.scn && (err = read_dynamic(e, t.dynamic.scn, &t.dynamic.sh)) < 0)
		return err;
	if (t.dynsym.scn && (err = keep_dynsym(e, &t.dynsym)) < 0)
		return err;
	if (t.versym.scn && (err = keep_versym(e, &t.versym, &versym_count)) < 0)
		return err;
	if (t.gnu_hash.scn) {
		if ((err = keep_words(e, &t.gnu_hash, 4, &e->gnu_hash, &e->gnu_hash_words,
				      &e->gnu_hash_own, "GNU hash table")) < 0)
			return err;
		gnu_bloom_swap_halves(e);
	}
	if (t.sysv_hash.scn &&
	    (err = keep_words(e, &t.sysv_hash, t.sysv_hash.sh.sh_entsize == 8 ? 8 : 4,
			      &e->sysv_hash, &e->sysv_hash_words, &e->sysv_hash_own,
			      "hash table")) < 0)
		return err;
	gnu_hash_prepare(e);
	if (e->versym && versym_count < e->dynsym_count)
		return lo_error_set(LO_EINVALID,
				    "cannot read symbol versions of '%s': %zu entries for %zu symbols",
				    e->name, versym_count, e->dynsym_count);
	if (t.verdef.scn && (err = read_verdef(e, t.verdef.scn, &t.verdef.sh)) < 0)
		return err;
	if (t.verneed.scn &&
	    (err = read_verneed(e, t.verneed.scn, &t.verneed.sh, &index, &index_count)) < 0) {
		free(index);
		return err;
	}
	e->vindex = index;
	e->vindex_count = index_count;
	return e->dynsym ? count_undefs(e, fd, &t.dynsym) : 0;
}
