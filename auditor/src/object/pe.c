/*
 * pe.c - one PE/COFF image the way Windows' loader reads it (see pe.h).
 *
 * The layout followed is Microsoft's "PE Format" specification: the DOS
 * header's e_lfanew leads to "PE\0\0", the COFF file header (machine,
 * section count, optional header size, characteristics), the optional
 * header (magic 0x10b PE32 or 0x20b PE32+, which sets the width of the
 * image base and of import thunks) with its data directories, then the
 * section table. An RVA is read from the file through the section whose
 * raw data holds it, or through the headers below SizeOfHeaders, which
 * the loader maps as they are in the file; bytes a section has only in
 * memory (past SizeOfRawData) hold no import or export table a linker
 * writes, and are refused.
 *
 * Read: the import directory (descriptors to an all-zero one; each
 * descriptor's lookup table, or its address table when the lookup table is
 * absent, as old linkers leave it), the delay-load directory (RVA-based,
 * or the old VA-based form minus the image base), the export directory
 * (address table, name pointers and their ordinals; an address inside the
 * directory itself is a forwarder string). Everything is copied out:
 * nothing stays borrowed from the bytes, and a file is mapped (fmap.h)
 * only while it is parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "leftover/pe.h"

/* Caps on what a file may make the reader do: far above any real DLL's. */
#define PE_MAX_SECTIONS 96     /* the loader's own limit */
#define PE_MAX_DESCRIPTORS 4096
#define PE_MAX_IMPORTS (1u << 20)
#define PE_MAX_EXPORTS 65536   /* ordinals are 16-bit */
#define PE_MAX_STRING 4096
#define PE_MAX_FILE ((size_t)1 << 30)

enum { DIR_EXPORT = 0, DIR_IMPORT = 1, DIR_DELAY = 13 };

typedef struct section {
	uint32_t va, raw_size, raw_off;
} section;

typedef struct name_ent {
	const char *name;
	uint32_t index; /* into eat */
} name_ent;

struct lo_pe {
	char *name; /* owned */
	lo_strpool pool;
	uint16_t machine, characteristics;
	bool plus;
	uint64_t image_base;
	const char *export_dll;
	lo_pe_import *imports;
	size_t import_count, import_cap;
	lo_pe_export *eat;   /* one per address table entry */
	bool *eat_present;
	uint32_t eat_count, ordinal_base;
	uint32_t *present;   /* indices of eat entries that hold a function */
	size_t present_count;
	name_ent *names;
	uint32_t name_count;
};

/* The parse in progress: the bytes and the sections that map RVAs into them. */
typedef struct reader {
	lo_pe *pe;
	const unsigned char *data;
	size_t size;
	uint32_t header_size;
	section sec[PE_MAX_SECTIONS];
	uint16_t nsec;
} reader;

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int bad(const reader *r, const char *what)
{
	lo_error_set(LO_EINVALID, "cannot read %s of '%s': outside the file or malformed", what,
		     r->pe->name);
	return LO_EINVALID;
}

/*
 * The bytes at `rva` that the file holds, with how many follow in the
 * same section (or the headers), or NULL when the RVA is not in the file.
 */
static const unsigned char *at_rva(const reader *r, uint32_t rva, size_t *avail)
{
	uint16_t i;

	if (rva < r->header_size && rva < r->size) {
		*avail = (r->header_size < r->size ? r->header_size : r->size) - rva;
		return r->data + rva;
	}
	for (i = 0; i < r->nsec; i++) {
		const section *s = &r->sec[i];
		uint32_t delta = rva - s->va;

		if (rva < s->va || delta >= s->raw_size)
			continue;
		if ((size_t)s->raw_off + delta >= r->size)
			return NULL;
		*avail = s->raw_size - delta;
		if (*avail > r->size - s->raw_off - delta)
			*avail = r->size - s->raw_off - delta;
		return r->data + s->raw_off + delta;
	}
	return NULL;
}

/* `n` bytes at rva, all inside the file, or NULL. */
static const unsigned char *span(const reader *r, uint32_t rva, size_t n)
{
	size_t avail;
	const unsigned char *p = at_rva(r, rva, &avail);

	return p && avail >= n ? p : NULL;
}

/* The NUL-terminated string at rva, copied into the pool, or NULL. */
static const char *str_at(reader *r, uint32_t rva)
{
	size_t avail;
	const unsigned char *p = at_rva(r, rva, &avail);
	const unsigned char *end;

	if (!p)
		return NULL;
	if (avail > PE_MAX_STRING)
		avail = PE_MAX_STRING;
	end = memchr(p, '\0', avail);
	return end ? lo_strpool_add(&r->pe->pool, (const char *)p, (size_t)(end - p)) : NULL;
}

static int add_import(reader *r, const char *dll, uint64_t thunk, bool delay)
{
	lo_pe *pe = r->pe;
	uint64_t flag = pe->plus ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
	lo_pe_import *im;

	if (pe->import_count >= PE_MAX_IMPORTS)
		return bad(r, "the import tables (too many imports)");
	lo_array_grow(&pe->imports, &pe->import_cap, pe->import_count + 1, sizeof(*pe->imports));
	im = &pe->imports[pe->import_count];
	memset(im, 0, sizeof(*im));
	im->dll = dll;
	im->delay = delay;
	if (thunk & flag) {
		im->ordinal = (uint16_t)thunk;
	} else {
		/* a hint/name entry: the 16-bit hint, then the name */
		const unsigned char *h;

		if (thunk > UINT32_MAX || !(h = span(r, (uint32_t)thunk, 2)))
			return bad(r, "an import's hint/name entry");
		im->hint = rd16(h);
		if (!(im->name = str_at(r, (uint32_t)thunk + 2)))
			return bad(r, "an import's name");
	}
	pe->import_count++;
	return 0;
}

/* The thunks of one DLL's lookup table at rva, to the zero one. */
static int read_thunks(reader *r, const char *dll, uint32_t rva, bool delay)
{
	size_t width = r->pe->plus ? 8 : 4, i;

	for (i = 0; i < PE_MAX_IMPORTS; i++) {
		const unsigned char *t = span(r, (uint32_t)(rva + i * width), width);
		uint64_t thunk;
		int err;

		if (!t || rva + i * width > UINT32_MAX)
			return bad(r, "an import lookup table");
		thunk = width == 8 ? rd64(t) : rd32(t);
		if (!thunk)
			return 0;
		if ((err = add_import(r, dll, thunk, delay)) < 0)
			return err;
	}
	return bad(r, "an import lookup table (no end)");
}

static int read_imports(reader *r, uint32_t rva)
{
	uint32_t i;

	for (i = 0; i < PE_MAX_DESCRIPTORS; i++) {
		const unsigned char *d = span(r, rva + i * 20, 20);
		uint32_t lookup, name, iat;
		const char *dll;
		int err;

		if (!d)
			return bad(r, "the import directory");
		lookup = rd32(d);
		name = rd32(d + 12);
		iat = rd32(d + 16);
		if (!lookup && !name && !iat)
			return 0;
		if (!(dll = str_at(r, name)))
			return bad(r, "an imported DLL's name");
		if ((err = read_thunks(r, dll, lookup ? lookup : iat, false)) < 0)
			return err;
	}
	return bad(r, "the import directory (no end)");
}

/* An address of a delay-load descriptor as an RVA: old ones hold VAs (attribute bit 0 clear). */
static uint32_t delay_rva(const reader *r, uint32_t attrs, uint32_t v)
{
	return attrs & 1 ? v : (uint32_t)(v - r->pe->image_base);
}

static int read_delay(reader *r, uint32_t rva)
{
	uint32_t i;

	for (i = 0; i < PE_MAX_DESCRIPTORS; i++) {
		const unsigned char *d = span(r, rva + i * 32, 32);
		uint32_t attrs, name, names;
		const char *dll;
		int err;

		if (!d)
			return bad(r, "the delay-load directory");
		attrs = rd32(d);
		name = rd32(d + 4);
		names = rd32(d + 16);
		if (!name)
			return 0;
		if (!(dll = str_at(r, delay_rva(r, attrs, name))))
			return bad(r, "a delay-loaded DLL's name");
		if ((err = read_thunks(r, dll, delay_rva(r, attrs, names), true)) < 0)
			return err;
	}
	return bad(r, "the delay-load directory (no end)");
}

static int read_export_names(reader *r, const unsigned char *dir)
{
	lo_pe *pe = r->pe;
	uint32_t n = rd32(dir + 24), names = rd32(dir + 32), ords = rd32(dir + 36), i;
	const unsigned char *np, *op;

	if (!n)
		return 0;
	if (n > PE_MAX_EXPORTS || !(np = span(r, names, (size_t)n * 4)) ||
	    !(op = span(r, ords, (size_t)n * 2)))
		return bad(r, "the export name table");
	pe->names = lo_xcalloc(n, sizeof(*pe->names));
	for (i = 0; i < n; i++) {
		uint16_t index = rd16(op + i * 2);
		const char *name = str_at(r, rd32(np + i * 4));

		if (!name || index >= pe->eat_count)
			return bad(r, "an export name");
		pe->names[i] = (name_ent){ name, index };
		if (!pe->eat[index].name)
			pe->eat[index].name = name;
	}
	pe->name_count = n;
	return 0;
}

static int read_exports(reader *r, uint32_t rva, uint32_t size)
{
	lo_pe *pe = r->pe;
	const unsigned char *dir = span(r, rva, 40), *fp;
	uint32_t n, i;

	if (!dir)
		return bad(r, "the export directory");
	n = rd32(dir + 20);
	pe->ordinal_base = rd32(dir + 16);
	pe->export_dll = str_at(r, rd32(dir + 12));
	if (n > PE_MAX_EXPORTS || (n && !(fp = span(r, rd32(dir + 28), (size_t)n * 4))))
		return bad(r, "the export address table");
	pe->eat = lo_xcalloc(n ? n : 1, sizeof(*pe->eat));
	pe->eat_present = lo_xcalloc(n ? n : 1, sizeof(*pe->eat_present));
	pe->present = lo_xcalloc(n ? n : 1, sizeof(*pe->present));
	pe->eat_count = n;
	for (i = 0; i < n; i++) {
		uint32_t f = rd32(fp + i * 4);

		pe->eat[i].ordinal = pe->ordinal_base + i;
		if (!f)
			continue;
		/* an address inside the export directory is a forwarder's "DLL.name" */
		if (f >= rva && f - rva < size && !(pe->eat[i].forward = str_at(r, f)))
			return bad(r, "an export forwarder");
		pe->eat_present[i] = true;
		pe->present[pe->present_count++] = i;
	}
	return read_export_names(r, dir);
}

/* The data directory `i` (rva and size), or false when the header has none. */
static bool directory(const unsigned char *opt, size_t opt_size, bool plus, unsigned i,
		      uint32_t *rva, uint32_t *size)
{
	size_t at = (plus ? 112 : 96) + i * 8;
	uint32_t count = rd32(opt + (plus ? 108 : 92));

	if (i >= count || at + 8 > opt_size)
		return false;
	*rva = rd32(opt + at);
	*size = rd32(opt + at + 4);
	return *rva != 0;
}

/* The headers: COFF, optional header, section table. */
static int read_headers(reader *r, const unsigned char **opt_out, size_t *opt_size)
{
	const unsigned char *d = r->data, *coff, *opt, *st;
	uint32_t lfanew = rd32(d + 0x3c);
	uint16_t osize, magic, i;

	coff = d + lfanew + 4;
	r->pe->machine = rd16(coff);
	r->nsec = rd16(coff + 2);
	osize = rd16(coff + 16);
	r->pe->characteristics = rd16(coff + 18);
	opt = coff + 20;
	if ((size_t)lfanew + 24 + osize > r->size || osize < 96)
		return bad(r, "the optional header");
	magic = rd16(opt);
	if (magic != 0x10b && magic != 0x20b)
		return bad(r, "the optional header (neither PE32 nor PE32+)");
	r->pe->plus = magic == 0x20b;
	if (osize < (r->pe->plus ? 112 : 96))
		return bad(r, "the optional header");
	r->pe->image_base = r->pe->plus ? rd64(opt + 24) : rd32(opt + 28);
	r->header_size = rd32(opt + 60);
	if (r->nsec > PE_MAX_SECTIONS)
		return bad(r, "the section table (too many sections)");
	st = opt + osize;
	if ((size_t)(st - d) + (size_t)r->nsec * 40 > r->size)
		return bad(r, "the section table");
	for (i = 0; i < r->nsec; i++) {
		const unsigned char *s = st + i * 40;

		r->sec[i] = (section){ rd32(s + 12), rd32(s + 16), rd32(s + 20) };
	}
	*opt_out = opt;
	*opt_size = osize;
	return 0;
}

bool lo_pe_sniff(const void *head, size_t n)
{
	const unsigned char *d = head;

	/* an MZ header is the loader's to refuse (193), whatever follows it */
	return n >= 2 && d[0] == 'M' && d[1] == 'Z';
}

static int parse(reader *r)
{
	const unsigned char *opt = NULL;
	size_t opt_size = 0;
	uint32_t rva, size;
	int err;

	if ((err = read_headers(r, &opt, &opt_size)) < 0)
		return err;
	if (directory(opt, opt_size, r->pe->plus, DIR_IMPORT, &rva, &size) &&
	    (err = read_imports(r, rva)) < 0)
		return err;
	if (directory(opt, opt_size, r->pe->plus, DIR_DELAY, &rva, &size) &&
	    (err = read_delay(r, rva)) < 0)
		return err;
	if (directory(opt, opt_size, r->pe->plus, DIR_EXPORT, &rva, &size) &&
	    (err = read_exports(r, rva, size)) < 0)
		return err;
	return 0;
}

int lo_pe_read(lo_pe **out, const void *data, size_t size, const char *name)
{
	reader r = { 0 };
	uint32_t lfanew;
	int err;

	*out = NULL;
	r.data = data;
	r.size = size;
	if (size < 0x40 || memcmp(data, "MZ", 2))
		return lo_error_set(LO_ENOTELF, "'%s' is not a PE image", name);
	lfanew = rd32(r.data + 0x3c);
	if ((size_t)lfanew + 24 > size || memcmp(r.data + lfanew, "PE\0\0", 4))
		return lo_error_set(LO_ENOTELF, "'%s' is not a PE image (no PE signature)", name);
	r.pe = lo_xcalloc(1, sizeof(*r.pe));
	r.pe->name = lo_xstrdup(name);
	if ((err = parse(&r)) < 0) {
		lo_pe_free(r.pe);
		return err;
	}
	*out = r.pe;
	return 0;
}

int lo_pe_open(lo_pe **out, const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	lo_fmap *m = NULL;
	int err;

	*out = NULL;
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", name);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > PE_MAX_FILE) {
		close(fd);
		return lo_error_set(LO_EINVALID, "cannot read '%s': not a regular file of at most "
				    "1 GiB", name);
	}
	if (!st.st_size) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not a PE image (empty)", name);
	}
	/* mapped, not read: the tables are a few pages of DLLs of many megabytes */
	err = lo_fmap_new(&m, fd, 0, (size_t)st.st_size, name);
	close(fd);
	if (err < 0)
		return err;
	err = lo_pe_read(out, lo_fmap_data(m), lo_fmap_size(m), name);
	if (err >= 0 && lo_fmap_shrank(m)) {
		lo_pe_free(*out);
		*out = NULL;
		err = lo_error_set(LO_EINVALID, "'%s' changed while it was read; scan again", name);
	}
	lo_fmap_free(m);
	return err;
}

void lo_pe_free(lo_pe *pe)
{
	if (!pe)
		return;
	lo_strpool_dispose(&pe->pool);
	free(pe->name);
	free(pe->imports);
	free(pe->eat);
	free(pe->eat_present);
	free(pe->present);
	free(pe->names);
	free(pe);
}

const char *lo_pe_name(const lo_pe *pe)
{
	return pe->name;
}

uint16_t lo_pe_machine(const lo_pe *pe)
{
	return pe->machine;
}

const char *lo_pe_machine_str(uint16_t machine)
{
	switch (machine) {
	case LO_PE_MACHINE_I386:
		return "x86";
	case LO_PE_MACHINE_AMD64:
		return "x64";
	case LO_PE_MACHINE_ARM64:
		return "arm64";
	default:
		return NULL;
	}
}

bool lo_pe_is_pe32plus(const lo_pe *pe)
{
	return pe->plus;
}

bool lo_pe_is_dll(const lo_pe *pe)
{
	return pe->characteristics & 0x2000;
}

const char *lo_pe_export_dll_name(const lo_pe *pe)
{
	return pe->export_dll;
}

size_t lo_pe_import_count(const lo_pe *pe)
{
	return pe->import_count;
}

const lo_pe_import *lo_pe_import_at(const lo_pe *pe, size_t i)
{
	return i < pe->import_count ? &pe->imports[i] : NULL;
}

size_t lo_pe_export_count(const lo_pe *pe)
{
	return pe->present_count;
}

const lo_pe_export *lo_pe_export_at(const lo_pe *pe, size_t i)
{
	return i < pe->present_count ? &pe->eat[pe->present[i]] : NULL;
}

const lo_pe_export *lo_pe_export_by_name(const lo_pe *pe, const char *name, uint16_t hint)
{
	uint32_t lo = 0, hi = pe->name_count;

	if (hint < pe->name_count && !strcmp(pe->names[hint].name, name))
		return pe->eat_present[pe->names[hint].index] ? &pe->eat[pe->names[hint].index]
							       : NULL;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, pe->names[mid].name);

		if (!c)
			return pe->eat_present[pe->names[mid].index] ? &pe->eat[pe->names[mid].index]
								     : NULL;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const lo_pe_export *lo_pe_export_by_ordinal(const lo_pe *pe, uint32_t ordinal)
{
	uint32_t i = ordinal - pe->ordinal_base;

	if (ordinal < pe->ordinal_base || i >= pe->eat_count || !pe->eat_present[i])
		return NULL;
	return &pe->eat[i];
}
