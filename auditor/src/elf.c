/*
 * elf.c - read one ELF object the way ld.so sees it (see elf.h).
 *
 * The file is mapped read-only here and handed to libelf with elf_memory,
 * which checks that every section's data lies inside the image; once the
 * tables are read libelf's own structures are freed (elf_end) and only the
 * mapping stays, with every string and table borrowed from it: a scan
 * keeps thousands of objects, and libelf's per-section bookkeeping was
 * half of its heap. On top of libelf this file checks every count,
 * index and offset it takes from the file before following it: string
 * offsets go through elf_strptr (which checks termination inside the
 * section), version chains and hash chains are walked with explicit bounds
 * and iteration caps, so a hostile file ends as LO_EINVALID, never as a read
 * outside the mapping or an endless loop.
 *
 * The tables are read through the section headers, as readelf does. The
 * loader itself uses the dynamic segment; an object stripped of its section
 * headers (sstrip) is reported as unreadable rather than guessed at.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "elf_int.h"

static const char changed_msg[] =
	"the file changed while it was being read (rewritten in place by another process?)";

/* Is `st` (the same inode, now) not the file as lo_elf_open mapped it? */
static bool changed_since(const lo_elf *e, const struct stat *st)
{
	return (size_t)st->st_size != e->size || st->st_mtim.tv_sec != e->mtime.tv_sec ||
	       st->st_mtim.tv_nsec != e->mtime.tv_nsec || st->st_ctim.tv_sec != e->ctime.tv_sec ||
	       st->st_ctim.tv_nsec != e->ctime.tv_nsec;
}

/* Calls interrupted by a signal are made again this many times at most. */
#define LO_ELF_EINTR_TRIES 64


/*
 * Is [p, p + n) inside the mapping? libelf hands out pointers into the
 * image for the data we keep, except when it has to convert or align a
 * section, and then into a copy it frees at elf_end: such a section is
 * refused rather than kept dangling.
 */
static bool in_image(const lo_elf *e, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)e->image;

	return p && a >= base && n <= e->size && a - base <= e->size - n;
}

/* A string of string table `scn` at `off`, borrowed from the image, or NULL. */
static const char *image_str(const lo_elf *e, size_t scn, size_t off)
{
	const char *s = elf_strptr(e->elf, scn, off);

	return s && in_image(e, s, 1) ? s : NULL;
}

static int elf_fail(const lo_elf *e, const char *what)
{
	const char *msg = elf_errmsg(-1);

	return lo_error_set(LO_EINVALID, "cannot read %s of '%s': %s", what, e->name,
			    msg ? msg : "malformed");
}

/*
 * Take the string table in place once elf_strptr has accepted it (a
 * SHT_STRTAB inside the file). A table whose last byte is not a NUL would
 * let a string run off its end; ld.so would read on, we refuse the file.
 */
static int keep_dynstr(lo_elf *e)
{
	Elf_Scn *scn = elf_getscn(e->elf, e->dynstr_index);
	Elf_Data *d;

	if (!elf_strptr(e->elf, e->dynstr_index, 0) || !scn || !(d = elf_getdata(scn, NULL)))
		return elf_fail(e, "dynamic string table");
	if (!d->d_size || !in_image(e, d->d_buf, d->d_size) ||
	    ((const char *)d->d_buf)[d->d_size - 1] != '\0')
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic string table of '%s': not NUL-terminated",
				    e->name);
	e->dynstr = d->d_buf;
	e->dynstr_size = d->d_size;
	return 0;
}

static int read_dynamic(lo_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n, cap = 0;
	GElf_Dyn dyn;
	const char *rpath = NULL;

	if (!data)
		return elf_fail(e, "dynamic section");
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
			s = image_str(e, sh->sh_link, dyn.d_un.d_val);
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
		return elf_fail(e, "version definitions");
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
		name = image_str(e, sh->sh_link, vda.vda_name);
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
		return elf_fail(e, "version requirements");
	for (i = 0; i < sh->sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const char *file;
		size_t aoff;

		if (off > data->d_size || !gelf_getverneed(data, (int)off, &vn))
			return lo_error_set(LO_EINVALID,
					    "cannot read version requirements of '%s': "
					    "entry at offset %zu out of bounds", e->name, off);
		file = image_str(e, sh->sh_link, vn.vn_file);
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
			name = image_str(e, sh->sh_link, vna.vna_name);
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
static int keep_words(lo_elf *e, Elf_Scn *scn, size_t size, const uint32_t **words,
		      size_t *count, uint32_t **own, const char *what)
{
	Elf_Data *data = elf_rawdata(scn, NULL);
	const unsigned char *raw;
	size_t i;

	if (!data || !data->d_buf)
		return elf_fail(e, what);
	if ((uintptr_t)data->d_buf % 4 || !in_image(e, data->d_buf, data->d_size))
		return lo_error_set(LO_EINVALID, "cannot read %s of '%s': misaligned", what,
				    e->name);
	*count = data->d_size / size;
	if (size == 4 && !e->foreign) {
		*words = data->d_buf;
		return 0;
	}
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

/* Is this dynamic symbol one the loader must bind (undefined, not local)? */
static bool is_undef(const Elf64_Sym *sym)
{
	return sym->st_shndx == SHN_UNDEF && ELF64_ST_BIND(sym->st_info) != STB_LOCAL;
}

/* Where the first two bytes of a name fall in lo_elf's undef_starts (a "" name's too). */
static unsigned undef_start(const char *name)
{
	return ((unsigned char)name[0] * 31u + (unsigned char)(name[0] ? name[1] : 0)) % 512;
}

/* Count the undefined symbols, refusing one whose name lies outside the string table. */
static int count_undefs(lo_elf *e)
{
	size_t i;

	for (i = 1; i < e->dynsym_count; i++) {
		const char *name;

		if (!is_undef(&e->dynsym[i]))
			continue;
		if (!(name = lo_elf_dynstr(e, e->dynsym[i].st_name)))
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic symbol %zu of '%s': "
					    "name offset out of bounds", i, e->name);
		if (*name) {
			unsigned start = undef_start(name);

			e->undef_count++;
			e->undef_starts[start / 64] |= 1ull << (start % 64);
		}
		e->undef_end = i + 1;
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
static int keep_dynsym(lo_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	bool wide = e->class == ELFCLASS64;
	size_t entsize = wide ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym), i;
	const Elf32_Sym *narrow;
	Elf64_Sym *copy;

	if (!d || !d->d_buf)
		return elf_fail(e, "dynamic symbol table");
	/* an object of the other byte order comes as libelf's translated copy */
	if (sh->sh_entsize != entsize ||
	    (uintptr_t)d->d_buf % (wide ? _Alignof(Elf64_Sym) : _Alignof(Elf32_Sym)) ||
	    (!e->foreign && !in_image(e, d->d_buf, d->d_size)))
		return lo_error_set(LO_EINVALID,
				    "cannot read dynamic symbol table of '%s': "
				    "entries of %llu bytes, or misaligned", e->name,
				    (unsigned long long)sh->sh_entsize);
	e->dynsym_count = d->d_size / entsize;
	e->dynstr_index = sh->sh_link;
	if (wide && !e->foreign) {
		e->dynsym = d->d_buf;
		return 0;
	}
	narrow = d->d_buf;
	free(e->dynsym_wide); /* a file with a second SHT_DYNSYM: the last one counts */
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

static int read_tables(lo_elf *e)
{
	Elf_Scn *scn = NULL;
	Elf_Scn *verdef = NULL, *verneed = NULL;
	GElf_Shdr verdef_sh = { 0 }, verneed_sh = { 0 };
	verneed_index *index = NULL;
	size_t index_count = 0, versym_count = 0;
	size_t shnum;
	int err = 0;

	if (elf_getshdrnum(e->elf, &shnum) < 0)
		return elf_fail(e, "section headers");
	if (shnum == 0)
		return no_sections(e);
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(e, "section header");
		switch (sh.sh_type) {
		case SHT_DYNAMIC:
			if ((err = read_dynamic(e, scn, &sh)) < 0)
				return err;
			break;
		case SHT_DYNSYM:
			if ((err = keep_dynsym(e, scn, &sh)) < 0)
				return err;
			break;
		case SHT_GNU_versym: {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (!d)
				return elf_fail(e, "symbol versions");
			if (d->d_size && !e->foreign && !in_image(e, d->d_buf, d->d_size))
				return lo_error_set(LO_EINVALID,
						    "cannot read symbol versions of '%s': misaligned",
						    e->name);
			versym_count = d->d_size / sizeof(GElf_Versym);
			e->versym = d->d_buf;
			if (e->foreign && d->d_buf) { /* libelf's translated copy, freed by elf_end */
				free(e->versym_own);
				e->versym_own = lo_xcalloc(versym_count ? versym_count : 1,
							   sizeof(GElf_Versym));
				memcpy(e->versym_own, d->d_buf, versym_count * sizeof(GElf_Versym));
				e->versym = e->versym_own;
			}
			break;
		}
		case SHT_GNU_verdef:
			verdef = scn;
			verdef_sh = sh;
			break;
		case SHT_GNU_verneed:
			verneed = scn;
			verneed_sh = sh;
			break;
		case SHT_GNU_HASH:
			if ((err = keep_words(e, scn, 4, &e->gnu_hash, &e->gnu_hash_words,
					      &e->gnu_hash_own, "GNU hash table")) < 0)
				return err;
			gnu_bloom_swap_halves(e);
			break;
		case SHT_HASH:
			if ((err = keep_words(e, scn, sh.sh_entsize == 8 ? 8 : 4, &e->sysv_hash,
					      &e->sysv_hash_words, &e->sysv_hash_own,
					      "hash table")) < 0)
				return err;
			break;
		}
	}
	if (e->dynsym && (err = keep_dynstr(e)) < 0)
		return err;
	gnu_hash_prepare(e);
	if (e->versym && versym_count < e->dynsym_count)
		return lo_error_set(LO_EINVALID,
				    "cannot read symbol versions of '%s': %zu entries for %zu symbols",
				    e->name, versym_count, e->dynsym_count);
	if (verdef && (err = read_verdef(e, verdef, &verdef_sh)) < 0)
		return err;
	if (verneed && (err = read_verneed(e, verneed, &verneed_sh, &index, &index_count)) < 0) {
		free(index);
		return err;
	}
	e->vindex = index;
	e->vindex_count = index_count;
	return e->dynsym ? count_undefs(e) : 0;
}

int lo_elf_open(lo_elf **out, int dirfd, const char *path, const char *name, bool follow)
{
	int fd, tries = 0;

	*out = NULL;
	/* EINTR (a signal handled without SA_RESTART) says nothing of the file: try again */
	do
		fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
	while (fd < 0 && errno == EINTR && ++tries < LO_ELF_EINTR_TRIES);
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", name);
	return lo_elf_open_fd(out, fd, name);
}

int lo_elf_open_fd(lo_elf **out, int fd, const char *name)
{
	lo_elf *e;
	struct stat st;
	unsigned char ident[EI_NIDENT];
	GElf_Ehdr eh;
	ssize_t got;
	int err, tries = 0;

	*out = NULL;
	if (fstat(fd, &st) < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot stat '%s'", name);
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not a regular file", name);
	}
	do
		got = pread(fd, ident, sizeof(ident), 0);
	while (got < 0 && errno == EINTR && ++tries < LO_ELF_EINTR_TRIES);
	if (got < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", name);
		close(fd);
		return err;
	}
	if (got < SELFMAG) {
		/* too short to say what it is, and too short for the loader */
		close(fd);
		return lo_error_set(LO_EINVALID, "cannot read '%s': file too short (%zd bytes)",
				    name, got);
	}
	if (memcmp(ident, ELFMAG, SELFMAG) != 0) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not an ELF file", name);
	}
	if (got < EI_NIDENT) {
		close(fd);
		return lo_error_set(LO_EINVALID, "cannot read ELF header of '%s': file too short",
				    name);
	}

	e = lo_xcalloc(1, sizeof(*e));
	e->name = lo_xstrdup(name);
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->mtime = st.st_mtim;
	e->ctime = st.st_ctim;
	err = lo_fmap_new(&e->map, fd, (size_t)st.st_size, name);
	if (err < 0)
		goto fail;
	e->image = (char *)lo_fmap_data(e->map);
	e->size = lo_fmap_size(e->map);
	elf_version(EV_CURRENT);
	e->elf = elf_memory(e->image, e->size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		err = elf_fail(e, "ELF header");
		goto fail;
	}
	e->class = ident[EI_CLASS];
	e->data = ident[EI_DATA];
	e->machine = eh.e_machine;
	e->type = eh.e_type;
	/* in this machine's byte order the tables are read in place, else translated */
	e->tables = (e->class == ELFCLASS64 || e->class == ELFCLASS32) &&
		    (e->data == ELFDATA2LSB || e->data == ELFDATA2MSB);
	e->foreign = e->data != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
									   : ELFDATA2MSB);
	if (e->tables && (err = read_tables(e)) < 0)
		goto fail;
	elf_end(e->elf);
	e->elf = NULL;
	/* Whatever was read while the file changed (cp over it, say) is not the file. */
	if (lo_fmap_shrank(e->map) || fstat(fd, &st) < 0 || changed_since(e, &st)) {
		err = lo_error_set(LO_EINVALID, "cannot read '%s': %s", name, changed_msg);
		goto fail;
	}
	/* The mapping outlives the descriptor; keeping thousands open would hit RLIMIT_NOFILE. */
	close(fd);
	*out = e;
	return 0;
fail:
	close(fd);
	lo_elf_free(e);
	return err;
}

void lo_elf_free(lo_elf *e)
{
	if (!e)
		return;
	free(e->needed);
	free(e->verdefs.names);
	free(e->verneeds);
	free(e->vindex);
	free(e->dynsym_wide);
	free(e->versym_own);
	free(e->gnu_hash_own);
	free(e->sysv_hash_own);
	if (e->elf)
		elf_end(e->elf);
	lo_fmap_free(e->map);
	free(e->name);
	free(e);
}

void lo_elf_release_many(const lo_elf *const *objs, size_t n)
{
	const lo_fmap *maps[256];
	size_t i, k;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < n - i && k < sizeof(maps) / sizeof(maps[0]); k++)
			maps[k] = objs[i + k]->map;
		lo_fmap_release_many(maps, k);
	}
}

size_t lo_elf_table_bytes(const lo_elf *e)
{
	/* the headers, the section table and the dynamic section: a few pages */
	return 16384 + e->dynsym_count * (sizeof(Elf64_Sym) + (e->versym ? 2 : 0)) +
	       e->dynstr_size + (e->gnu_hash_words + e->sysv_hash_words) * 4;
}

bool lo_elf_changed(const lo_elf *e)
{
	struct stat st;

	/* another file at the path now is no change to the one mapped */
	return lo_fmap_shrank(e->map) ||
	       (stat(e->name, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino &&
		changed_since(e, &st));
}

dev_t lo_elf_dev(const lo_elf *e) { return e->dev; }
ino_t lo_elf_ino(const lo_elf *e) { return e->ino; }
const char *lo_elf_name(const lo_elf *e) { return e->name; }
int lo_elf_class(const lo_elf *e) { return e->class; }
int lo_elf_data(const lo_elf *e) { return e->data; }
int lo_elf_machine(const lo_elf *e) { return e->machine; }
int lo_elf_type(const lo_elf *e) { return e->type; }
bool lo_elf_has_tables(const lo_elf *e) { return e->tables; }
bool lo_elf_is_pie(const lo_elf *e) { return e->pie; }
bool lo_elf_nodeflib(const lo_elf *e) { return e->nodeflib; }
const char *lo_elf_soname(const lo_elf *e) { return e->soname; }
const char *lo_elf_rpath(const lo_elf *e) { return e->rpath; }
const char *lo_elf_runpath(const lo_elf *e) { return e->runpath; }
size_t lo_elf_needed_count(const lo_elf *e) { return e->needed_count; }
const char *lo_elf_needed(const lo_elf *e, size_t i) { return i < e->needed_count ? e->needed[i] : NULL; }
size_t lo_elf_undef_count(const lo_elf *e) { return e->undef_count; }

bool lo_elf_undef_next(const lo_elf *e, size_t *cursor, lo_elf_undef *out)
{
	size_t i;

	/*
	 * Up to the last undefined symbol only: linkers put the defined ones a
	 * DT_GNU_HASH table covers last, and a library may define 100,000.
	 */
	for (i = *cursor ? *cursor : 1; i < e->undef_end; i++) {
		const Elf64_Sym *sym = &e->dynsym[i];
		const char *name;

		if (!is_undef(sym))
			continue;
		/* checked at open; read again from a file that may have changed since */
		name = lo_elf_dynstr(e, sym->st_name);
		if (name && !*name)
			continue;
		memset(out, 0, sizeof(*out));
		out->name = name ? name : "";
		out->gnu_hash = lo_elf_gnu_hash(out->name);
		out->weak = ELF64_ST_BIND(sym->st_info) == STB_WEAK;
		if (e->versym) {
			size_t ndx = e->versym[i] & 0x7fff;

			if (ndx >= 2 && ndx < e->vindex_count && e->vindex[ndx].name) {
				out->version = e->vindex[ndx].name;
				out->version_file = e->vindex[ndx].file;
				out->version_hidden = e->vindex[ndx].hidden;
			}
		}
		*cursor = i + 1;
		return true;
	}
	*cursor = e->dynsym_count;
	return false;
}

/*
 * A rule's glob as the loops over an object's symbols test it: rules ask
 * it of every symbol of every candidate, so the literal run before the
 * first wildcard is compared first (one byte refuses most names), and a
 * plain prefix and star (Perl_*) needs no fnmatch(3) at all.
 */
typedef struct sym_glob {
	const char *glob;
	size_t literal;   /* length of the run before the first wildcard */
	bool prefix_only; /* the glob is that run and a final '*' */
	char inner[64];   /* a later literal run any match holds (P9tree_node of
			     _Z*cp_*P9tree_node*), or "" */
} sym_glob;

static sym_glob sym_glob_of(const char *glob)
{
	size_t n = strcspn(glob, "*?[\\");
	sym_glob g = { glob, n, glob[n] == '*' && !glob[n + 1], "" };
	const char *p = glob + n, *best = NULL;
	size_t best_len = 0;

	/* past a class or an escape a run is no plain text: then none */
	if (!g.prefix_only && glob[n] && !strpbrk(glob + n, "[\\")) {
		while (*p) {
			size_t run;

			p += strspn(p, "*?");
			run = strcspn(p, "*?");
			if (run > best_len && run < sizeof(g.inner)) {
				best = p;
				best_len = run;
			}
			p += run;
		}
		if (best_len > n)
			memcpy(g.inner, best, best_len);
	}
	return g;
}

static bool sym_glob_matches(const sym_glob *g, const char *name)
{
	if (g->literal && (name[0] != g->glob[0] || strncmp(name, g->glob, g->literal)))
		return false;
	if (g->prefix_only)
		return true;
	return (!g->inner[0] || strstr(name, g->inner)) && fnmatch(g->glob, name, 0) == 0;
}

bool lo_elf_needs(const lo_elf *e, const char *glob)
{
	sym_glob g = sym_glob_of(glob);
	size_t i;

	if (g.literal >= 2) {
		unsigned start = undef_start(glob);

		if (!(e->undef_starts[start / 64] & 1ull << (start % 64)))
			return false; /* no undefined name starts as the glob does */
	}
	for (i = 1; i < e->undef_end; i++) {
		const char *name;

		if (!is_undef(&e->dynsym[i]) || !(name = lo_elf_dynstr(e, e->dynsym[i].st_name)))
			continue;
		if (sym_glob_matches(&g, name))
			return true;
	}
	return false;
}

bool lo_elf_exports_matching(const lo_elf *e, const char *glob)
{
	sym_glob g = sym_glob_of(glob);
	size_t i;

	/* a plain name is one lookup in the hash table, as dlsym would make it */
	if (!glob[g.literal])
		return lo_elf_exports(e, glob);
	for (i = 1; i < e->dynsym_count; i++) {
		const char *name;

		if (e->dynsym[i].st_shndx == SHN_UNDEF ||
		    ELF64_ST_BIND(e->dynsym[i].st_info) == STB_LOCAL ||
		    !(name = lo_elf_dynstr(e, e->dynsym[i].st_name)) || !*name)
			continue;
		if (sym_glob_matches(&g, name))
			return true;
	}
	return false;
}

bool lo_elf_needs_library(const lo_elf *e, const char *glob)
{
	sym_glob g = sym_glob_of(glob);
	size_t i;

	for (i = 0; i < e->needed_count; i++)
		if (e->needed[i] && sym_glob_matches(&g, e->needed[i]))
			return true;
	return false;
}

size_t lo_elf_verneed_count(const lo_elf *e) { return e->verneed_count; }
const lo_elf_verneed *lo_elf_verneed_at(const lo_elf *e, size_t i) { return i < e->verneed_count ? &e->verneeds[i] : NULL; }
bool lo_elf_has_versym(const lo_elf *e) { return e->versym != NULL; }

bool lo_elf_defines_versions(const lo_elf *e)
{
	/* ld.so asks whether DT_VERDEF exists; a base entry alone counts. */
	return e->verdefs.count > 0;
}

bool lo_elf_has_verdef(const lo_elf *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->verdefs.count; i++)
		if (e->verdefs.names[i] && !strcmp(e->verdefs.names[i], name))
			return true;
	return false;
}

