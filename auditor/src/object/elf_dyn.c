/*
 * elf_dyn.c - the small sections an object's open reads whole and keeps
 * as arrays (see elf_int.h): the dynamic section, the version definitions
 * (.gnu.version_d) and the version requirements (.gnu.version_r).
 *
 * Each is read from the file (or the copy of the whole file) once, field
 * by field in the object's byte order, so both classes and both orders go
 * through one code; the strings they name are borrowed from the dynamic
 * string table, which elf_read.c has taken in by then. The version
 * sections chain their entries by byte offsets the file chooses: every
 * step is checked against the section's size, and the number of steps is
 * bounded by the count the section header gives and by LO_ELF_MAX_CHAIN.
 */
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "object/elf_int.h"

/*
 * Does a `len`-byte entry at offset `off` lie inside a section of `size`
 * bytes, at a multiple of `align`? libelf (gelf_getverdef and the like)
 * refused an entry at any other offset: 4 for the definitions, and 16, an
 * entry's size, for the requirements, which linkers write at multiples of
 * 16 anyway.
 */
static bool entry_fits(uint64_t off, size_t len, size_t align, uint64_t size)
{
	return off % align == 0 && off <= size && size - off >= len;
}

/* Record one dynamic entry of tag `tag`, value `val`; *rpath gets DT_RPATH's string. */
static int take_dyn(lo_elf *e, const lo_elf_scn *r, int64_t tag, uint64_t val, size_t *cap,
		    const char **rpath)
{
	const char *s = NULL;

	if (tag == LO_DT_NEEDED || tag == LO_DT_SONAME || tag == LO_DT_RPATH || tag == LO_DT_RUNPATH) {
		s = val > SIZE_MAX ? NULL : lo_elf_link_str(e, r->sh.sh_link, (size_t)val);
		if (!s)
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic section of '%s': "
					    "string offset %llu out of bounds",
					    e->name, (unsigned long long)val);
	}
	switch (tag) {
	case LO_DT_NEEDED:
		lo_array_grow(&e->needed, cap, e->needed_count + 1, sizeof(*e->needed));
		e->needed[e->needed_count++] = s;
		break;
	case LO_DT_SONAME:
		e->soname = s;
		break;
	case LO_DT_RPATH:
		*rpath = s;
		break;
	case LO_DT_RUNPATH:
		e->runpath = s;
		break;
	case LO_DT_DEBUG:
		e->debug_slot = true;
		break;
	case LO_DT_FLAGS_1:
		e->pie = (val & LO_DF_1_PIE) != 0;
		e->nodeflib = (val & LO_DF_1_NODEFLIB) != 0;
		break;
	}
	return 0;
}

/*
 * The dynamic section's entries up to DT_NULL: as many as its size holds
 * by its sh_entsize, read at their real size (8 or 16 bytes by class).
 */
int lo_elf_read_dynamic(lo_elf *e, int fd, const lo_elf_scn *r)
{
	bool wide = e->class == LO_ELFCLASS64, big = e->data == LO_ELFDATA2MSB;
	size_t dsize = wide ? sizeof(lo_elf64_dyn) : sizeof(lo_elf32_dyn), i, n, cap = 0;
	const unsigned char *d;
	unsigned char *own = NULL;
	const char *rpath = NULL;
	int err;

	if (!r->sh.sh_entsize || r->sh.sh_size / r->sh.sh_entsize > LO_ELF_MAX_CHAIN)
		return lo_error_set(LO_EINVALID, "cannot read dynamic section of '%s': bad size",
				    e->name);
	if ((err = lo_elf_check_entries(e, r, dsize, "dynamic section")) < 0 ||
	    (err = lo_elf_section_bytes(e, fd, r, "dynamic section", &d, &own)) < 0)
		return err;
	n = r->sh.sh_size / r->sh.sh_entsize;
	if (n > r->sh.sh_size / dsize)
		n = r->sh.sh_size / dsize;
	for (i = 0; i < n && !err; i++) {
		const unsigned char *p = d + i * dsize;
		int64_t tag = wide ? (int64_t)LO_ELF_GET(p, lo_elf64_dyn, d_tag, big)
				   : (int32_t)LO_ELF_GET(p, lo_elf32_dyn, d_tag, big);

		if (tag == LO_DT_NULL)
			break;
		err = take_dyn(e, r, tag, LO_ELF_FIELD(wide, p, dyn, d_un.d_val, big), &cap, &rpath);
	}
	free(own);
	/* As in glibc's get-dynamic-info.h: with both present, RPATH is ignored. */
	e->rpath = e->runpath ? NULL : rpath;
	return err;
}

/* Make room for index ndx of a table kept by version index, new slots zeroed. */
static void index_grow(void **items, size_t *count, size_t *cap, size_t ndx, size_t size)
{
	if (ndx < *count)
		return;
	lo_array_grow(items, cap, ndx + 1, size);
	memset((char *)*items + *count * size, 0, (ndx + 1 - *count) * size);
	*count = ndx + 1;
}

/* Walk .gnu.version_d: sh_info entries at most, each with its first name. */
static int walk_verdef(lo_elf *e, const lo_elf_scn *r, const unsigned char *d)
{
	bool big = e->data == LO_ELFDATA2MSB;
	uint64_t off = 0, size = r->sh.sh_size;
	size_t i, cap = 0;

	for (i = 0; i < r->sh.sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const unsigned char *vd;
		uint64_t aux;
		const char *name;
		size_t ndx;

		/* checked before any pointer is made: d is NULL for an empty section */
		if (!entry_fits(off, sizeof(lo_elf64_verdef), 4, size))
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "entry at offset %llu out of bounds or misaligned", e->name,
					    (unsigned long long)off);
		vd = d + off;
		aux = off + LO_ELF_GET(vd, lo_elf64_verdef, vd_aux, big);
		if (!LO_ELF_GET(vd, lo_elf64_verdef, vd_cnt, big) ||
		    !entry_fits(aux, sizeof(lo_elf64_verdaux), 4, size))
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "bad auxiliary entry at offset %llu", e->name,
					    (unsigned long long)off);
		name = lo_elf_link_str(e, r->sh.sh_link,
				       (size_t)LO_ELF_GET(d + aux, lo_elf64_verdaux, vda_name, big));
		if (!name)
			return lo_error_set(LO_EINVALID,
					    "cannot read version definitions of '%s': "
					    "bad name offset", e->name);
		ndx = LO_ELF_GET(vd, lo_elf64_verdef, vd_ndx, big) & 0x7fff;
		index_grow((void **)&e->verdefs.names, &e->verdefs.count, &cap, ndx, sizeof(char *));
		/* The base version names the file itself; it never matches a reference. */
		if (!(LO_ELF_GET(vd, lo_elf64_verdef, vd_flags, big) & LO_VER_FLG_BASE))
			e->verdefs.names[ndx] = name;
		if (!LO_ELF_GET(vd, lo_elf64_verdef, vd_next, big))
			break;
		off += LO_ELF_GET(vd, lo_elf64_verdef, vd_next, big);
	}
	return 0;
}

/* Read section r (`what`, in messages) and walk its chain of entries with walk. */
static int read_walked(lo_elf *e, int fd, const lo_elf_scn *r, const char *what,
		       int (*walk)(lo_elf *, const lo_elf_scn *, const unsigned char *))
{
	const unsigned char *d;
	unsigned char *own = NULL;
	int err;

	if ((err = lo_elf_section_bytes(e, fd, r, what, &d, &own)) < 0)
		return err;
	err = walk(e, r, d);
	free(own);
	return err;
}

int lo_elf_read_verdef(lo_elf *e, int fd, const lo_elf_scn *r)
{
	return read_walked(e, fd, r, "version definitions", walk_verdef);
}

/* One version a needed file must define (an lo_elf64_vernaux at p), from file `file`. */
static int take_vernaux(lo_elf *e, const lo_elf_scn *r, const unsigned char *p,
			const char *file, size_t *cap, size_t *icap)
{
	bool big = e->data == LO_ELFDATA2MSB;
	unsigned other = (unsigned)LO_ELF_GET(p, lo_elf64_vernaux, vna_other, big);
	const char *name = lo_elf_link_str(e, r->sh.sh_link,
					   (size_t)LO_ELF_GET(p, lo_elf64_vernaux, vna_name, big));
	size_t ndx = other & 0x7fff;

	if (!name)
		return lo_error_set(LO_EINVALID,
				    "cannot read version requirements of '%s': "
				    "bad version name offset", e->name);
	lo_array_grow(&e->verneeds, cap, e->verneed_count + 1, sizeof(*e->verneeds));
	e->verneeds[e->verneed_count++] = (lo_elf_verneed){
		file, name, (LO_ELF_GET(p, lo_elf64_vernaux, vna_flags, big) & LO_VER_FLG_WEAK) != 0 };
	index_grow((void **)&e->vindex, &e->vindex_count, icap, ndx, sizeof(*e->vindex));
	e->vindex[ndx] = (verneed_index){ file, name, (other & 0x8000) != 0 };
	return 0;
}

/* Walk .gnu.version_r: sh_info files at most, each with vn_cnt versions at most. */
static int walk_verneed(lo_elf *e, const lo_elf_scn *r, const unsigned char *d)
{
	bool big = e->data == LO_ELFDATA2MSB;
	uint64_t off = 0, size = r->sh.sh_size;
	size_t i, j, cap = 0, icap = 0;
	int err;

	for (i = 0; i < r->sh.sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const unsigned char *vn;
		const char *file;
		uint64_t aoff;

		/* checked before any pointer is made: d is NULL for an empty section */
		if (!entry_fits(off, sizeof(lo_elf64_verneed), sizeof(lo_elf64_verneed), size))
			return lo_error_set(LO_EINVALID,
					    "cannot read version requirements of '%s': "
					    "entry at offset %llu out of bounds or misaligned", e->name,
					    (unsigned long long)off);
		vn = d + off;
		file = lo_elf_link_str(e, r->sh.sh_link,
				       (size_t)LO_ELF_GET(vn, lo_elf64_verneed, vn_file, big));
		if (!file)
			return lo_error_set(LO_EINVALID,
					    "cannot read version requirements of '%s': "
					    "bad file name offset", e->name);
		aoff = off + LO_ELF_GET(vn, lo_elf64_verneed, vn_aux, big);
		for (j = 0; j < LO_ELF_GET(vn, lo_elf64_verneed, vn_cnt, big); j++) {
			const unsigned char *vna;

			if (!entry_fits(aoff, sizeof(lo_elf64_vernaux), sizeof(lo_elf64_vernaux), size))
				return lo_error_set(LO_EINVALID,
						    "cannot read version requirements of '%s': "
						    "auxiliary entry at offset %llu out of bounds or misaligned",
						    e->name, (unsigned long long)aoff);
			vna = d + aoff;
			if ((err = take_vernaux(e, r, vna, file, &cap, &icap)) < 0)
				return err;
			if (!LO_ELF_GET(vna, lo_elf64_vernaux, vna_next, big))
				break;
			aoff += LO_ELF_GET(vna, lo_elf64_vernaux, vna_next, big);
		}
		if (!LO_ELF_GET(vn, lo_elf64_verneed, vn_next, big))
			break;
		off += LO_ELF_GET(vn, lo_elf64_verneed, vn_next, big);
	}
	return 0;
}

int lo_elf_read_verneed(lo_elf *e, int fd, const lo_elf_scn *r)
{
	return read_walked(e, fd, r, "version requirements", walk_verneed);
}
