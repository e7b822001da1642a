/*
 * elf.c - read one ELF object the way ld.so sees it (see elf.h).
 *
 * libelf maps the file (ELF_C_READ_MMAP) and checks that every section's
 * data lies inside the file; on top of that this file checks every count,
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
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"

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
	char *name; /* owned */
	Elf *elf;   /* owns the mapping every borrowed string points into */
	dev_t dev;
	ino_t ino;
	int class, data, machine, type;
	bool native, pie, nodeflib;

	const char *soname, *rpath, *runpath;
	const char **needed; /* owned array of borrowed strings */
	size_t needed_count;

	/* The dynamic symbol table. */
	Elf_Data *dynsym;
	size_t dynsym_count;
	size_t dynstr_index; /* section index of its string table */
	const GElf_Versym *versym; /* dynsym_count entries, or NULL */

	/* DT_GNU_HASH words (bloom filter, buckets, chains), or DT_HASH. */
	const uint32_t *gnu_hash;
	size_t gnu_hash_words;
	const uint32_t *sysv_hash;
	size_t sysv_hash_words;

	verdef_table verdefs;
	lo_elf_verneed *verneeds; /* owned */
	size_t verneed_count;
	lo_elf_undef *undefs; /* owned */
	size_t undef_count;
};

/* Iteration cap for any chain read from the file, against loops. */
#define LO_ELF_MAX_CHAIN 1000000

static int elf_fail(const lo_elf *e, const char *what)
{
	const char *msg = elf_errmsg(-1);

	return lo_error_set(LO_EINVALID, "cannot read %s of '%s': %s", what, e->name,
			    msg ? msg : "malformed");
}

uint32_t lo_elf_gnu_hash(const char *name)
{
	uint32_t h = 5381;
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++)
		h = h * 33 + *s;
	return h;
}

static uint32_t sysv_hash(const char *name)
{
	uint32_t h = 0, g;
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++) {
		h = (h << 4) + *s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static const char *dynstr(const lo_elf *e, size_t off)
{
	return elf_strptr(e->elf, e->dynstr_index, off);
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
			s = elf_strptr(e->elf, sh->sh_link, dyn.d_un.d_val);
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
		name = elf_strptr(e->elf, sh->sh_link, vda.vda_name);
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
		file = elf_strptr(e->elf, sh->sh_link, vn.vn_file);
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
			name = elf_strptr(e->elf, sh->sh_link, vna.vna_name);
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

/* Keep the raw words of a hash section; lookups check bounds themselves. */
static int keep_words(lo_elf *e, Elf_Scn *scn, const uint32_t **words, size_t *count,
		      const char *what)
{
	Elf_Data *data = elf_rawdata(scn, NULL);

	if (!data || !data->d_buf)
		return elf_fail(e, what);
	if ((uintptr_t)data->d_buf % 4)
		return lo_error_set(LO_EINVALID, "cannot read %s of '%s': misaligned", what,
				    e->name);
	*words = data->d_buf;
	*count = data->d_size / 4;
	return 0;
}

static int read_undefs(lo_elf *e, const verneed_index *index, size_t index_count)
{
	size_t i;
	size_t cap = 0;

	for (i = 1; i < e->dynsym_count; i++) {
		GElf_Sym sym;
		const char *name;
		lo_elf_undef *u;
		int bind;

		if (!gelf_getsym(e->dynsym, (int)i, &sym))
			return elf_fail(e, "dynamic symbol table");
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_shndx != SHN_UNDEF || bind == STB_LOCAL)
			continue;
		name = dynstr(e, sym.st_name);
		if (!name)
			return lo_error_set(LO_EINVALID,
					    "cannot read dynamic symbol %zu of '%s': "
					    "name offset out of bounds", i, e->name);
		if (!*name)
			continue;
		lo_array_grow(&e->undefs, &cap, e->undef_count + 1, sizeof(*e->undefs));
		u = &e->undefs[e->undef_count++];
		memset(u, 0, sizeof(*u));
		u->name = name;
		u->gnu_hash = lo_elf_gnu_hash(name);
		u->weak = bind == STB_WEAK;
		if (e->versym) {
			size_t ndx = e->versym[i] & 0x7fff;

			if (ndx >= 2 && ndx < index_count && index[ndx].name) {
				u->version = index[ndx].name;
				u->version_file = index[ndx].file;
				u->version_hidden = index[ndx].hidden;
			}
		}
	}
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
		return lo_error_set(LO_EINVALID,
				    "cannot read '%s': no section headers (stripped with sstrip?)",
				    e->name);
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
			e->dynsym = elf_getdata(scn, NULL);
			if (!e->dynsym || !sh.sh_entsize)
				return elf_fail(e, "dynamic symbol table");
			e->dynsym_count = e->dynsym->d_size / sh.sh_entsize;
			e->dynstr_index = sh.sh_link;
			break;
		case SHT_GNU_versym: {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (!d)
				return elf_fail(e, "symbol versions");
			e->versym = d->d_buf;
			versym_count = d->d_size / sizeof(GElf_Versym);
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
			if ((err = keep_words(e, scn, &e->gnu_hash, &e->gnu_hash_words,
					      "GNU hash table")) < 0)
				return err;
			break;
		case SHT_HASH:
			if ((err = keep_words(e, scn, &e->sysv_hash, &e->sysv_hash_words,
					      "hash table")) < 0)
				return err;
			break;
		}
	}
	/*
	 * elf_strptr loads a string table on first use; do it now, once, so
	 * that later lookups from several threads only read.
	 */
	if (e->dynsym && !elf_strptr(e->elf, e->dynstr_index, 0))
		return elf_fail(e, "dynamic string table");
	if (e->versym && versym_count < e->dynsym_count)
		return lo_error_set(LO_EINVALID,
				    "cannot read symbol versions of '%s': %zu entries for %zu symbols",
				    e->name, versym_count, e->dynsym_count);
	if (verdef && (err = read_verdef(e, verdef, &verdef_sh)) < 0)
		return err;
	if (verneed && (err = read_verneed(e, verneed, &verneed_sh, &index, &index_count)) < 0)
		goto out;
	if (e->dynsym)
		err = read_undefs(e, index, index_count);
out:
	free(index);
	return err;
}

int lo_elf_open(lo_elf **out, int dirfd, const char *path, const char *name, bool follow)
{
	lo_elf *e;
	struct stat st;
	unsigned char ident[EI_NIDENT];
	GElf_Ehdr eh;
	ssize_t got;
	int fd, err;

	*out = NULL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", name);
	if (fstat(fd, &st) < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot stat '%s'", name);
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not a regular file", name);
	}
	got = pread(fd, ident, sizeof(ident), 0);
	if (got < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", name);
		close(fd);
		return err;
	}
	if (got < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0) {
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
	elf_version(EV_CURRENT);
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* The mapping outlives the descriptor; keeping thousands open would hit RLIMIT_NOFILE. */
	if (e->elf)
		elf_cntl(e->elf, ELF_C_FDDONE);
	close(fd);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		err = elf_fail(e, "ELF header");
		goto fail;
	}
	e->class = ident[EI_CLASS];
	e->data = ident[EI_DATA];
	e->machine = eh.e_machine;
	e->type = eh.e_type;
	e->native = e->class == ELFCLASS64 && e->data == ELFDATA2LSB && e->machine == EM_X86_64;
	if (e->native && (err = read_tables(e)) < 0)
		goto fail;
	*out = e;
	return 0;
fail:
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
	free(e->undefs);
	if (e->elf)
		elf_end(e->elf);
	free(e->name);
	free(e);
}

void lo_elf_release(const lo_elf *e)
{
	size_t size = 0;
	char *image = elf_rawfile(e->elf, &size);
	long page = sysconf(_SC_PAGESIZE);

	/* a private read-only file mapping: dropped pages come back from the file */
	if (image && size && page > 0 && (uintptr_t)image % (uintptr_t)page == 0)
		madvise(image, size, MADV_DONTNEED);
}

dev_t lo_elf_dev(const lo_elf *e) { return e->dev; }
ino_t lo_elf_ino(const lo_elf *e) { return e->ino; }
const char *lo_elf_name(const lo_elf *e) { return e->name; }
int lo_elf_class(const lo_elf *e) { return e->class; }
int lo_elf_data(const lo_elf *e) { return e->data; }
int lo_elf_machine(const lo_elf *e) { return e->machine; }
int lo_elf_type(const lo_elf *e) { return e->type; }
bool lo_elf_is_native(const lo_elf *e) { return e->native; }
bool lo_elf_is_pie(const lo_elf *e) { return e->pie; }
bool lo_elf_nodeflib(const lo_elf *e) { return e->nodeflib; }
const char *lo_elf_soname(const lo_elf *e) { return e->soname; }
const char *lo_elf_rpath(const lo_elf *e) { return e->rpath; }
const char *lo_elf_runpath(const lo_elf *e) { return e->runpath; }
size_t lo_elf_needed_count(const lo_elf *e) { return e->needed_count; }
const char *lo_elf_needed(const lo_elf *e, size_t i) { return i < e->needed_count ? e->needed[i] : NULL; }
size_t lo_elf_undef_count(const lo_elf *e) { return e->undef_count; }
const lo_elf_undef *lo_elf_undef_at(const lo_elf *e, size_t i) { return i < e->undef_count ? &e->undefs[i] : NULL; }
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

/* The state of one lookup across the symbols of one name (do_lookup_x). */
typedef struct {
	const lo_elf_undef *ref;
	bool found;
	size_t versioned; /* non-hidden, non-default versions seen for an unversioned ref */
} lookup;

/* glibc's check_match plus the binding test of do_lookup_x, for symbol i. */
static void lookup_try(const lo_elf *e, size_t i, lookup *lk)
{
	GElf_Sym sym;
	const char *name;
	int stt, bind;

	if (i == 0 || i >= e->dynsym_count || !gelf_getsym(e->dynsym, (int)i, &sym))
		return;
	stt = GELF_ST_TYPE(sym.st_info);
	bind = GELF_ST_BIND(sym.st_info);
	if (sym.st_shndx == SHN_UNDEF)
		return;
	if (sym.st_value == 0 && sym.st_shndx != SHN_ABS && stt != STT_TLS)
		return;
	if (stt != STT_NOTYPE && stt != STT_OBJECT && stt != STT_FUNC && stt != STT_COMMON &&
	    stt != STT_TLS && stt != STT_GNU_IFUNC)
		return;
	if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
		return;
	name = dynstr(e, sym.st_name);
	if (!name || strcmp(name, lk->ref->name))
		return;
	if (!e->versym) {
		lk->found = true;
		return;
	}
	{
		unsigned vs = e->versym[i];
		size_t ndx = vs & 0x7fff;
		const char *def = ndx < e->verdefs.count ? e->verdefs.names[ndx] : NULL;
		bool hidden = (vs & 0x8000) != 0;

		if (lk->ref->version) {
			if ((def && !strcmp(def, lk->ref->version)) ||
			    (!def && !hidden && !lk->ref->version_hidden))
				lk->found = true;
		} else if (ndx < 3) {
			lk->found = true;
		} else if (!hidden) {
			lk->versioned++;
		}
	}
}

static bool lookup_gnu(const lo_elf *e, lookup *lk)
{
	const uint32_t *w = e->gnu_hash;
	size_t words = e->gnu_hash_words;
	uint32_t nbuckets, symoffset, bloom_size, bloom_shift, h = lk->ref->gnu_hash;
	const uint32_t *buckets, *chain;
	const unsigned char *bloom;
	uint64_t word, mask;
	size_t chain_words, i, steps;

	if (words < 4)
		return false;
	nbuckets = w[0];
	symoffset = w[1];
	bloom_size = w[2];
	bloom_shift = w[3];
	if (!nbuckets || !bloom_size ||
	    (size_t)bloom_size * 2 + nbuckets > words - 4)
		return false;
	bloom = (const unsigned char *)(w + 4);
	buckets = w + 4 + (size_t)bloom_size * 2;
	chain = buckets + nbuckets;
	chain_words = words - 4 - (size_t)bloom_size * 2 - nbuckets;

	/* memcpy: the section is only guaranteed 4-byte aligned by our check */
	/*
	 * As ld.so computes it (dl-lookup.c): the word index masked with
	 * bloom_size - 1, and the 32-bit hash shifted by the file's
	 * bloom_shift, which glibc's x86-64 code does with a 32-bit shift that
	 * takes the count mod 32 (tests/unit/test_hardening.c holds this
	 * against dlsym for shifts 0..2^32-1). Written out so that no shift is
	 * undefined in C (a shift of 32 or more was, found by fuzz/fuzz_elf).
	 */
	memcpy(&word, bloom + 8 * ((h / 64) & (bloom_size - 1)), sizeof(word));
	mask = (1ull << (h % 64)) | (1ull << ((h >> (bloom_shift & 31)) % 64));
	if ((word & mask) != mask)
		return true; /* definitely absent */
	i = buckets[h % nbuckets];
	if (i < symoffset)
		return true;
	for (steps = 0; steps < LO_ELF_MAX_CHAIN; steps++, i++) {
		size_t ci = i - symoffset;
		uint32_t ch;

		if (ci >= chain_words || i >= e->dynsym_count)
			return true;
		ch = chain[ci];
		if ((ch | 1u) == (h | 1u))
			lookup_try(e, i, lk);
		if (ch & 1u)
			break;
	}
	return true;
}

static bool lookup_sysv(const lo_elf *e, lookup *lk)
{
	const uint32_t *w = e->sysv_hash;
	uint32_t nbucket, nchain, i;
	size_t steps;

	if (e->sysv_hash_words < 2)
		return false;
	nbucket = w[0];
	nchain = w[1];
	if (!nbucket || (size_t)nbucket + nchain > e->sysv_hash_words - 2)
		return false;
	i = w[2 + sysv_hash(lk->ref->name) % nbucket];
	/* A chain may only visit each of nchain entries once; more is a loop. */
	for (steps = 0; i != 0 && i < nchain && steps < nchain; steps++) {
		lookup_try(e, i, lk);
		i = w[2 + nbucket + i];
	}
	return true;
}

bool lo_elf_defines(const lo_elf *e, const lo_elf_undef *ref)
{
	lookup lk = { ref, false, 0 };
	size_t i;

	if (!e->dynsym)
		return false;
	if (!lookup_gnu(e, &lk) && !lookup_sysv(e, &lk))
		for (i = 1; i < e->dynsym_count; i++) /* no usable hash table: look at all */
			lookup_try(e, i, &lk);
	/* An unversioned reference takes a lone versioned definition (do_lookup_x). */
	return lk.found || lk.versioned == 1;
}

bool lo_elf_exports(const lo_elf *e, const char *name)
{
	lo_elf_undef ref = { 0 };

	ref.name = name;
	ref.gnu_hash = lo_elf_gnu_hash(name);
	return lo_elf_defines(e, &ref);
}
