/*
 * elf_libelf.c - leftover's ELF reader (auditor/src/object/) held against
 * elfutils' libelf, the reader it replaced, on every regular file under
 * the directories given: ctest runs it on the system's multiarch library
 * directories, and by hand it runs on a fuzz corpus
 * (`elf_libelf build-fuzz/corpus/fuzz_elf`).
 *
 * For each file both say whether it is ELF and whether it can be read;
 * where both read it they must agree on the header (class, byte order,
 * machine, type), the dynamic section (soname, rpath, runpath, needed
 * list, PIE and nodeflib flags), every dynamic symbol and its version
 * index, the version definitions and requirements, the undefined symbols
 * with their versions and weakness, and the answer of a lookup of every
 * defined name, unversioned and at its own version, which libelf's side
 * finds by going through all the symbols, leftover's through the
 * object's hash table. libelf's side refuses what the reader documents it
 * refuses on top of a well-formed file (elf.h): strings outside the
 * dynamic string table, one not ending in a NUL, tables misaligned in the
 * file, a version table shorter than the symbol table, broken version
 * chains. Prints each disagreement, then "N passed, N failed".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/elf.h"
#include "leftover/error.h"
#include "object/elf_int.h"

enum { REF_OK, REF_NOTELF, REF_REFUSED };

/* One object as libelf reads it. */
typedef struct ref {
	Elf *elf;
	GElf_Ehdr eh;
	const char *soname, *rpath, *runpath;
	const char *needed[4096];
	size_t needed_count;
	bool pie, nodeflib;
	Elf_Data *syms, *versym, *gnu_hash, *sysv_hash;
	size_t nsyms, strndx;
	const char *verdefs[0x8000]; /* by version index */
	size_t verdef_count;
	lo_elf_verneed verneeds[4096];
	size_t verneed_count;
	struct { const char *file, *name; bool hidden; } vindex[0x8000];
	size_t *by_name; /* indexes of defined symbols, sorted by name */
	size_t defined;
} ref;

static size_t passed, failed, tables, lookups;
static const char *current;

static void differ(const char *what, const char *ours, const char *theirs)
{
	if (!failed || failed < 200)
		printf("DIFFER %s: %s: leftover '%s', libelf '%s'\n", current, what,
		       ours ? ours : "(none)", theirs ? theirs : "(none)");
	failed++;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* String `off` of the dynamic string table (none: strndx 0), or NULL and *bad. */
static const char *str(const ref *r, size_t off, bool *bad)
{
	const char *s = r->strndx ? elf_strptr(r->elf, r->strndx, off) : NULL;

	if (!s)
		*bad = true;
	return s;
}

/* The dynamic section, as the reader keeps it. */
static bool ref_dynamic(ref *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *rpath = NULL;
	bool bad = false;
	GElf_Dyn dyn;
	size_t i, n;

	if (!d || !sh->sh_entsize || d->d_size / sh->sh_entsize > LO_ELF_MAX_CHAIN)
		return false;
	n = d->d_size / sh->sh_entsize;
	for (i = 0; i < n && gelf_getdyn(d, (int)i, &dyn) && !bad; i++) {
		const char *s = NULL;

		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_SONAME || dyn.d_tag == DT_RPATH ||
		    dyn.d_tag == DT_RUNPATH)
			s = sh->sh_link == r->strndx ? str(r, dyn.d_un.d_val, &bad) : (bad = true, NULL);
		if (dyn.d_tag == DT_NEEDED && r->needed_count < 4096)
			r->needed[r->needed_count++] = s;
		else if (dyn.d_tag == DT_SONAME)
			r->soname = s;
		else if (dyn.d_tag == DT_RPATH)
			rpath = s;
		else if (dyn.d_tag == DT_RUNPATH)
			r->runpath = s;
		else if (dyn.d_tag == DT_FLAGS_1) {
			r->pie = (dyn.d_un.d_val & DF_1_PIE) != 0;
			r->nodeflib = (dyn.d_un.d_val & DF_1_NODEFLIB) != 0;
		}
	}
	r->rpath = r->runpath ? NULL : rpath;
	return !bad;
}

static bool ref_verdef(ref *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, i;
	GElf_Verdef vd;
	GElf_Verdaux vda;
	bool bad = false;

	for (i = 0; d && i < sh->sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const char *name;
		size_t ndx;

		if (off > d->d_size || !gelf_getverdef(d, (int)off, &vd) || !vd.vd_cnt ||
		    !gelf_getverdaux(d, (int)(off + vd.vd_aux), &vda) || sh->sh_link != r->strndx ||
		    !(name = str(r, vda.vda_name, &bad)))
			return false;
		ndx = vd.vd_ndx & 0x7fff;
		if (ndx >= r->verdef_count)
			r->verdef_count = ndx + 1;
		if (!(vd.vd_flags & VER_FLG_BASE))
			r->verdefs[ndx] = name;
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return d != NULL;
}

static bool ref_verneed(ref *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, i, j;
	GElf_Verneed vn;
	GElf_Vernaux vna;
	bool bad = false;

	for (i = 0; d && i < sh->sh_info && i < LO_ELF_MAX_CHAIN; i++) {
		const char *file;
		size_t aoff;

		if (off > d->d_size || !gelf_getverneed(d, (int)off, &vn) || sh->sh_link != r->strndx ||
		    !(file = str(r, vn.vn_file, &bad)))
			return false;
		aoff = off + vn.vn_aux;
		for (j = 0; j < vn.vn_cnt; j++) {
			const char *name;
			size_t ndx;

			if (aoff > d->d_size || !gelf_getvernaux(d, (int)aoff, &vna) ||
			    !(name = str(r, vna.vna_name, &bad)) || r->verneed_count == 4096)
				return false;
			r->verneeds[r->verneed_count++] =
				(lo_elf_verneed){ file, name, (vna.vna_flags & VER_FLG_WEAK) != 0 };
			ndx = vna.vna_other & 0x7fff;
			r->vindex[ndx].file = file;
			r->vindex[ndx].name = name;
			r->vindex[ndx].hidden = (vna.vna_other & 0x8000) != 0;
			if (!vna.vna_next)
				break;
			aoff += vna.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return d != NULL;
}

/*
 * Where the reader reads a table in place (an object of this machine's
 * byte order), it refuses one misaligned in the file.
 */
static bool aligned(const ref *r, const GElf_Shdr *sh, size_t align)
{
	static const unsigned char native =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

	return r->eh.e_ident[EI_DATA] != native || sh->sh_offset % align == 0;
}

/* The dynamic string table: a string table ending in a NUL. */
static bool ref_strtab(ref *r)
{
	Elf_Scn *scn = elf_getscn(r->elf, r->strndx);
	GElf_Shdr sh;
	Elf_Data *d;

	return scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB &&
	       (d = elf_rawdata(scn, NULL)) && d->d_size && d->d_buf &&
	       ((const char *)d->d_buf)[d->d_size - 1] == '\0';
}

static GElf_Sym sym_at(const ref *r, size_t i)
{
	GElf_Sym s = { 0 };

	gelf_getsym(r->syms, (int)i, &s);
	return s;
}

static const ref *sorting;
static int by_name(const void *a, const void *b)
{
	return strcmp(elf_strptr(sorting->elf, sorting->strndx, sym_at(sorting, *(size_t *)a).st_name),
		      elf_strptr(sorting->elf, sorting->strndx, sym_at(sorting, *(size_t *)b).st_name));
}

/* Every symbol's name in the table, the undefined ones' refused when out of bounds. */
static bool ref_symbols(ref *r)
{
	size_t i;
	bool bad = false;

	r->by_name = calloc(r->nsyms + 1, sizeof(size_t));
	for (i = 1; i < r->nsyms; i++) {
		GElf_Sym s = sym_at(r, i);
		const char *name;

		if (s.st_shndx == SHN_UNDEF) {
			if (GELF_ST_BIND(s.st_info) != STB_LOCAL && !str(r, s.st_name, &bad))
				return false;
			continue;
		}
		if ((name = elf_strptr(r->elf, r->strndx, s.st_name)) && *name)
			r->by_name[r->defined++] = i;
	}
	sorting = r;
	qsort(r->by_name, r->defined, sizeof(size_t), by_name);
	return true;
}

/* Read what the reader reads; false where it must refuse the file. */
static bool ref_tables(ref *r)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *vd = NULL, *vn = NULL, *sym = NULL;
	GElf_Shdr sh, dynsh = { 0 }, vdsh = { 0 }, vnsh = { 0 }, symsh = { 0 }, vssh = { 0 };
	size_t n;

	if (elf_getshdrnum(r->elf, &n) < 0 || n == 0)
		return false;
	while ((scn = elf_nextscn(r->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type == SHT_DYNAMIC)
			dyn = scn, dynsh = sh;
		else if (sh.sh_type == SHT_DYNSYM)
			sym = scn, symsh = sh;
		else if (sh.sh_type == SHT_GNU_verdef)
			vd = scn, vdsh = sh;
		else if (sh.sh_type == SHT_GNU_verneed)
			vn = scn, vnsh = sh;
		else if (sh.sh_type == SHT_GNU_versym && !(r->versym = elf_getdata(scn, NULL)))
			return false;
		else if (sh.sh_type == SHT_GNU_versym)
			vssh = sh;
		else if ((sh.sh_type == SHT_GNU_HASH || sh.sh_type == SHT_HASH) &&
			 (!elf_rawdata(scn, NULL) || (sh.sh_entsize != 8 && !aligned(r, &sh, 4))))
			return false;
		else if (sh.sh_type == SHT_GNU_HASH)
			r->gnu_hash = elf_getdata(scn, NULL);
		else if (sh.sh_type == SHT_HASH && sh.sh_entsize != 8)
			r->sysv_hash = elf_getdata(scn, NULL);
	}
	/* the version sections name their strings there too: none without it */
	r->strndx = sym ? symsh.sh_link : dyn ? dynsh.sh_link : 0;
	if ((sym || dyn) && !ref_strtab(r))
		return false;
	if (sym) {
		bool wide = gelf_getclass(r->elf) == ELFCLASS64;

		if (symsh.sh_entsize != (wide ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)) ||
		    (wide && !aligned(r, &symsh, 8)) || !(r->syms = elf_getdata(sym, NULL)))
			return false;
		r->nsyms = r->syms->d_size / symsh.sh_entsize;
	}
	if (r->versym && (!aligned(r, &vssh, 2) || r->versym->d_size / 2 < r->nsyms))
		return false;
	return (!dyn || ref_dynamic(r, dyn, &dynsh)) && (!vd || ref_verdef(r, vd, &vdsh)) &&
	       (!vn || ref_verneed(r, vn, &vnsh)) && (!sym || ref_symbols(r));
}

/*
 * A file libelf does not take for ELF: one with the magic is a corrupt
 * ELF file, and so is one too short to have it (the reader says so: too
 * short for the loader, elf.h), the rest is not ELF.
 */
static int ref_open(ref *r, int fd)
{
	unsigned char magic[SELFMAG] = { 0 };
	ssize_t got;

	memset(r, 0, sizeof(*r));
	r->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!r->elf || elf_kind(r->elf) != ELF_K_ELF) {
		got = pread(fd, magic, SELFMAG, 0);
		return got < SELFMAG || !memcmp(magic, ELFMAG, SELFMAG) ? REF_REFUSED : REF_NOTELF;
	}
	if (!gelf_getehdr(r->elf, &r->eh) || !ref_tables(r))
		return REF_REFUSED;
	return REF_OK;
}

static unsigned versym_at(const ref *r, size_t i)
{
	GElf_Versym v = 0;

	if (r->versym)
		gelf_getversym(r->versym, (int)i, &v);
	return v;
}

/*
 * Does the object's hash table hold symbol i under its name? A crafted
 * file's may not (a name changed, not its hash): then the loader does not
 * find it, nor does the reader, where a search through all the symbols
 * would. The GNU table holds it when its chain word is the name's hash;
 * the SysV table when the name's bucket chains to it.
 */
static bool held(const ref *r, size_t i, const char *name)
{
	const uint32_t *w;
	size_t words, k, steps;

	if (r->gnu_hash && (words = r->gnu_hash->d_size / 4) >= 4) {
		size_t wide = gelf_getclass(r->elf) == ELFCLASS64 ? 2 : 1, chain;

		w = r->gnu_hash->d_buf;
		chain = 4 + (size_t)w[2] * wide + w[0];
		return i >= w[1] && chain + (i - w[1]) < words &&
		       (w[chain + (i - w[1])] | 1) == (lo_elf_gnu_hash(name) | 1);
	}
	if (!r->sysv_hash || (words = r->sysv_hash->d_size / 4) < 2)
		return true;
	w = r->sysv_hash->d_buf;
	if (!w[0] || 2 + (size_t)w[0] + w[1] > words)
		return true;
	{
		uint32_t h = 0, g;
		const unsigned char *c = (const unsigned char *)name;

		for (; *c; c++) { /* the SysV ELF hash */
			h = (h << 4) + *c;
			g = h & 0xf0000000u;
			h ^= g ? g >> 24 : 0;
			h &= ~g;
		}
		k = w[2 + h % w[0]];
	}
	for (steps = 0; k && k < w[1] && steps < w[1]; steps++, k = w[2 + w[0] + k])
		if (k == i)
			return true;
	return false;
}

/* glibc's check_match over all symbols named `name` (elf_lookup.c's rules). */
static bool ref_defines(const ref *r, const char *name, const char *version)
{
	size_t lo = 0, hi = r->defined, k, versioned = 0;

	while (lo < hi) { /* the first index named `name` */
		size_t mid = (lo + hi) / 2;

		if (strcmp(elf_strptr(r->elf, r->strndx, sym_at(r, r->by_name[mid]).st_name), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < r->defined; k++) {
		size_t i = r->by_name[k];
		GElf_Sym s = sym_at(r, i);
		int stt = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
		unsigned vs = versym_at(r, i), ndx = vs & 0x7fff;
		const char *def = ndx < r->verdef_count ? r->verdefs[ndx] : NULL;

		if (strcmp(elf_strptr(r->elf, r->strndx, s.st_name), name))
			break;
		if ((s.st_value == 0 && s.st_shndx != SHN_ABS && stt != STT_TLS) ||
		    (stt != STT_NOTYPE && stt != STT_OBJECT && stt != STT_FUNC && stt != STT_COMMON &&
		     stt != STT_TLS && stt != STT_GNU_IFUNC) ||
		    (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE))
			continue;
		if (!r->versym)
			return true;
		if (version) {
			if ((def && !strcmp(def, version)) || (!def && !(vs & 0x8000)))
				return true;
		} else if (ndx < 3) {
			return true;
		} else if (!(vs & 0x8000)) {
			versioned++;
		}
	}
	return versioned == 1;
}

/*
 * The reader yields the undefined symbols of a shared library only up to
 * the first its GNU hash table holds (undef_bound, elf_read.c): linkers
 * hash defined symbols only there, which a crafted table need not do.
 */
static bool past_bound(const lo_elf *e, size_t i)
{
	return e->type == ET_DYN && !e->pie && !e->debug_slot && e->gnu.usable &&
	       i >= e->gnu.symoffset && e->undef_end <= e->gnu.symoffset;
}

static void compare_symbols(const lo_elf *e, const ref *r)
{
	size_t i, cursor = 0;
	lo_elf_undef u;
	char what[64];

	if (e->dynsym_count != r->nsyms) {
		snprintf(what, sizeof(what), "%zu / %zu", e->dynsym_count, r->nsyms);
		differ("dynamic symbol count", what, NULL);
		return;
	}
	for (i = 0; i < r->nsyms; i++) {
		GElf_Sym s = sym_at(r, i);
		const lo_elf64_sym *o = &e->dynsym[i];

		if (o->st_name != s.st_name || o->st_value != s.st_value || o->st_size != s.st_size ||
		    o->st_info != s.st_info || o->st_other != s.st_other || o->st_shndx != s.st_shndx ||
		    (e->versym ? e->versym[i] : 0) != versym_at(r, i)) {
			snprintf(what, sizeof(what), "dynamic symbol %zu", i);
			differ(what, "", "");
			return;
		}
	}
	/* the undefined symbols, in table order, as the reader yields them */
	for (i = 1; i < r->nsyms; i++) {
		GElf_Sym s = sym_at(r, i);
		const char *name = elf_strptr(r->elf, r->strndx, s.st_name);
		unsigned ndx = versym_at(r, i) & 0x7fff;
		const char *ver = ndx >= 2 ? r->vindex[ndx].name : NULL;

		if (s.st_shndx != SHN_UNDEF || GELF_ST_BIND(s.st_info) == STB_LOCAL || !*name)
			continue;
		if (past_bound(e, i))
			break;
		if (!lo_elf_undef_next(e, &cursor, &u)) {
			differ("undefined symbol", NULL, name);
			return;
		}
		if (strcmp(u.name, name) || !same_str(u.version, ver) ||
		    u.weak != (GELF_ST_BIND(s.st_info) == STB_WEAK) ||
		    !same_str(u.version_file, ver ? r->vindex[ndx].file : NULL) ||
		    u.version_hidden != (ver && r->vindex[ndx].hidden)) {
			differ("undefined symbol", u.name, name);
			return;
		}
	}
	if (lo_elf_undef_next(e, &cursor, &u))
		differ("undefined symbol", u.name, NULL);
	tables++;
	for (i = 0; i < r->defined; i++) {
		size_t k = r->by_name[i];
		const char *name = elf_strptr(r->elf, r->strndx, sym_at(r, k).st_name);
		unsigned ndx = versym_at(r, k) & 0x7fff;
		lo_elf_undef ref = { .name = name, .gnu_hash = lo_elf_gnu_hash(name) };

		if (!held(r, k, name))
			continue;
		lookups++;
		if (lo_elf_exports(e, name) != ref_defines(r, name, NULL))
			differ("unversioned lookup", lo_elf_exports(e, name) ? "found" : "absent", name);
		ref.version = ndx < r->verdef_count ? r->verdefs[ndx] : NULL;
		if (ref.version && lo_elf_defines(e, &ref) != ref_defines(r, name, ref.version))
			differ("versioned lookup", ref.version, name);
	}
}

static void compare(const lo_elf *e, const ref *r)
{
	size_t i, before = failed;
	char a[32], b[32];

	snprintf(a, sizeof(a), "%d/%d/%d/%d", lo_elf_class(e), lo_elf_data(e), lo_elf_machine(e),
		 lo_elf_type(e));
	snprintf(b, sizeof(b), "%d/%d/%d/%d", r->eh.e_ident[EI_CLASS], r->eh.e_ident[EI_DATA],
		 r->eh.e_machine, r->eh.e_type);
	if (strcmp(a, b))
		differ("class/data/machine/type", a, b);
	if (!same_str(lo_elf_soname(e), r->soname))
		differ("soname", lo_elf_soname(e), r->soname);
	if (!same_str(lo_elf_rpath(e), r->rpath))
		differ("rpath", lo_elf_rpath(e), r->rpath);
	if (!same_str(lo_elf_runpath(e), r->runpath))
		differ("runpath", lo_elf_runpath(e), r->runpath);
	if (lo_elf_is_pie(e) != r->pie || lo_elf_nodeflib(e) != r->nodeflib)
		differ("flags", NULL, NULL);
	if (lo_elf_needed_count(e) != r->needed_count)
		differ("needed count", NULL, NULL);
	for (i = 0; i < r->needed_count && i < lo_elf_needed_count(e); i++)
		if (!same_str(lo_elf_needed(e, i), r->needed[i]))
			differ("needed", lo_elf_needed(e, i), r->needed[i]);
	if (lo_elf_verneed_count(e) != r->verneed_count)
		differ("verneed count", NULL, NULL);
	for (i = 0; i < r->verneed_count && i < lo_elf_verneed_count(e); i++) {
		const lo_elf_verneed *v = lo_elf_verneed_at(e, i);

		if (!same_str(v->file, r->verneeds[i].file) ||
		    !same_str(v->version, r->verneeds[i].version) || v->weak != r->verneeds[i].weak)
			differ("verneed", v->version, r->verneeds[i].version);
	}
	if (e->verdefs.count != r->verdef_count)
		differ("verdef count", NULL, NULL);
	for (i = 0; i < r->verdef_count && i < e->verdefs.count; i++)
		if (!same_str(e->verdefs.names[i], r->verdefs[i]))
			differ("verdef", e->verdefs.names[i], r->verdefs[i]);
	if ((e->dynsym != NULL) != (r->syms != NULL))
		differ("dynamic symbol table", e->dynsym ? "present" : NULL, r->syms ? "present" : NULL);
	else if (e->dynsym)
		compare_symbols(e, r);
	if (failed == before)
		passed++;
}

static int one_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	static ref r; /* 1 MB of version tables: not on the stack */
	lo_elf *e = NULL;
	int fd, ours, theirs;

	if (flag != FTW_F || !S_ISREG(st->st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	current = path;
	ours = lo_elf_open(&e, AT_FDCWD, path, path, false);
	theirs = ref_open(&r, fd);
	if (ours == LO_ERROR) {
		/* unreadable to us (a FIFO swapped in, permissions): nothing to compare */
	} else if ((ours == LO_ENOTELF) != (theirs == REF_NOTELF) || (ours == 0) != (theirs == REF_OK)) {
		differ("readable", ours == 0 ? "read" : lo_error_last(),
		       theirs == REF_OK ? "read" : theirs == REF_NOTELF ? "not ELF" : "refused");
	} else if (ours == 0) {
		compare(e, &r);
	} else {
		passed++;
	}
	lo_elf_free(e);
	free(r.by_name);
	if (r.elf)
		elf_end(r.elf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int i, dirs = 0;

	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++) {
		if (access(argv[i], R_OK) != 0) {
			printf("elf_libelf: %s: not here, skipped\n", argv[i]);
			continue;
		}
		dirs++;
		nftw(argv[i], one_file, 64, FTW_PHYS);
	}
	printf("elf_libelf: %zu objects with a symbol table, %zu defined names looked up\n",
	       tables, lookups);
	printf("elf_libelf: %zu passed, %zu failed\n", passed, failed);
	return dirs && !failed ? 0 : 1;
}
