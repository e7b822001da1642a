/*
 * macho.c - a Mach-O image, or a slice of a universal file, as dyld reads
 * it (macho.h): the container, the header, the load commands and the
 * symbol table; macho_bind.c reads the bind opcodes, chained fixups and
 * export trie those commands point at.
 *
 * The whole file is mapped once (fmap.h), read, and let go: everything
 * kept is copied into the image's string pool, so an image outlives its
 * mapping and a file rewritten later changes nothing already read. Only
 * little-endian 64-bit images are read (every slice dyld loads on arm64
 * and x86-64 Macs); a 32-bit or big-endian one is "no slice for this
 * Mac". Every field is untrusted: offsets and sizes are checked against
 * the slice (lo_macho_in), counts are capped by the bytes they span.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/error.h"
#include "leftover/fmap.h"
#include "object/macho_int.h"

#define FAT_MAGIC 0xcafebabeu
#define FAT_MAGIC_64 0xcafebabfu
#define MH_MAGIC_64 0xfeedfacfu
#define MH_MAGIC 0xfeedfaceu
#define MH_TWOLEVEL 0x80u
#define LC_REQ_DYLD 0x80000000u
/*
 * A fat header's arch count is small (a handful of cpus); a Java class
 * file starts with the same 0xcafebabe, followed by its version, 45 or
 * more: the cut-off lipo and file(1) use too.
 */
#define FAT_ARCH_MAX 30

enum {
	LC_SYMTAB = 0x2,
	LC_DYSYMTAB = 0xb,
	LC_LOAD_DYLIB = 0xc,
	LC_ID_DYLIB = 0xd,
	LC_LOAD_WEAK_DYLIB = 0x18 | LC_REQ_DYLD,
	LC_RPATH = 0x1c | LC_REQ_DYLD,
	LC_REEXPORT_DYLIB = 0x1f | LC_REQ_DYLD,
	LC_LAZY_LOAD_DYLIB = 0x20,
	LC_DYLD_INFO = 0x22,
	LC_DYLD_INFO_ONLY = 0x22 | LC_REQ_DYLD,
	LC_LOAD_UPWARD_DYLIB = 0x23 | LC_REQ_DYLD,
	LC_VERSION_MIN_MACOSX = 0x24,
	LC_VERSION_MIN_IPHONEOS = 0x25,
	LC_VERSION_MIN_TVOS = 0x2f,
	LC_VERSION_MIN_WATCHOS = 0x30,
	LC_BUILD_VERSION = 0x32,
	LC_DYLD_EXPORTS_TRIE = 0x33 | LC_REQ_DYLD,
	LC_DYLD_CHAINED_FIXUPS = 0x34 | LC_REQ_DYLD,
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

bool lo_macho_sniff(const unsigned char *head, size_t n)
{
	uint32_t magic;

	if (n < 8)
		return false;
	magic = be32(head);
	if (magic == FAT_MAGIC || magic == FAT_MAGIC_64)
		return be32(head + 4) > 0 && be32(head + 4) <= FAT_ARCH_MAX;
	magic = le32(head);
	return magic == MH_MAGIC_64 || magic == MH_MAGIC || be32(head) == MH_MAGIC_64 ||
	       be32(head) == MH_MAGIC;
}

bool lo_macho_is_file(const char *path)
{
	unsigned char head[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head));
	close(fd);
	return n == (ssize_t)sizeof(head) && lo_macho_sniff(head, sizeof(head));
}

const char *lo_macho_dylib_kind_str(lo_macho_dylib_kind k)
{
	static const char *const names[] = { "load", "weak", "reexport", "upward", "lazy" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

lo_macho *lo_macho_alloc(const char *name)
{
	lo_macho *m = lo_xcalloc(1, sizeof(*m));

	m->name = lo_xstrdup(name);
	return m;
}

void lo_macho_free(lo_macho *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->inlined_count; i++)
		lo_macho_free(m->inlined[i]);
	free(m->inlined);
	free(m->dylibs);
	free(m->rpaths);
	free(m->imports);
	free(m->exports);
	lo_strpool_dispose(&m->pool);
	free(m->name);
	free(m);
}

/* The string at lc_str offset `off` of the load command [cmd, cmd+size): NUL-bounded. */
static const char *lc_string(lo_macho *m, const unsigned char *cmd, uint32_t size, uint32_t off)
{
	const unsigned char *end;

	if (off >= size)
		return NULL;
	end = memchr(cmd + off, '\0', size - off);
	return lo_strpool_add(&m->pool, (const char *)cmd + off,
			      end ? (size_t)(end - (cmd + off)) : size - off);
}

static int read_dylib(lo_macho *m, const unsigned char *c, uint32_t size, uint32_t cmd)
{
	lo_macho_dylib d = { 0 };

	if (size < 24 || !(d.name = lc_string(m, c, size, le32(c + 8))))
		return lo_error_set(LO_EINVALID, "malformed dylib load command in '%s'", m->name);
	d.current_version = le32(c + 16);
	d.compat_version = le32(c + 20);
	if (cmd == LC_ID_DYLIB) {
		m->install_name = d.name;
		m->current_version = d.current_version;
		m->compat_version = d.compat_version;
		return 0;
	}
	d.kind = cmd == LC_LOAD_WEAK_DYLIB   ? LO_MACHO_DYLIB_WEAK
		 : cmd == LC_REEXPORT_DYLIB  ? LO_MACHO_DYLIB_REEXPORT
		 : cmd == LC_LOAD_UPWARD_DYLIB ? LO_MACHO_DYLIB_UPWARD
		 : cmd == LC_LAZY_LOAD_DYLIB ? LO_MACHO_DYLIB_LAZY
					     : LO_MACHO_DYLIB_LOAD;
	lo_array_grow(&m->dylibs, &m->dylib_cap, m->dylib_count + 1, sizeof(*m->dylibs));
	m->dylibs[m->dylib_count++] = d;
	return 0;
}

static void read_min_os(lo_macho *m, const unsigned char *c, uint32_t size, uint32_t cmd)
{
	static const char *const platforms[] = { "?", "macos", "ios", "tvos", "watchos" };
	uint32_t platform, v;
	char buf[64];

	if (size < 16)
		return;
	if (cmd == LC_BUILD_VERSION) {
		platform = le32(c + 8);
		v = le32(c + 12);
	} else {
		platform = cmd == LC_VERSION_MIN_MACOSX ? 1 : cmd == LC_VERSION_MIN_IPHONEOS ? 2
							: cmd == LC_VERSION_MIN_TVOS ? 3 : 4;
		v = le32(c + 8);
	}
	snprintf(buf, sizeof(buf), "%s %u.%u", platform < 5 ? platforms[platform] : "other",
		 v >> 16, (v >> 8) & 0xff);
	m->min_os = lo_strpool_add(&m->pool, buf, strlen(buf));
}

/* Where the bind information of the image is: what the load commands said. */
typedef struct link_info {
	uint32_t symoff, nsyms, stroff, strsize;
	uint32_t dysym[6]; /* LC_DYSYMTAB's local, defined and undefined ranges (index, count) */
	uint32_t bind[2], weak[2], lazy[2], trie[2], chained[2];
	bool has_symtab, has_dysymtab, has_dyld_info, has_chained;
} link_info;

static void read_range(uint32_t out[2], const unsigned char *p)
{
	out[0] = le32(p);
	out[1] = le32(p + 4);
}

static int read_command(lo_macho *m, const unsigned char *c, uint32_t cmd, uint32_t size,
			link_info *li)
{
	switch (cmd) {
	case LC_LOAD_DYLIB: case LC_ID_DYLIB: case LC_LOAD_WEAK_DYLIB: case LC_REEXPORT_DYLIB:
	case LC_LAZY_LOAD_DYLIB: case LC_LOAD_UPWARD_DYLIB:
		return read_dylib(m, c, size, cmd);
	case LC_RPATH: {
		const char *p = size >= 12 ? lc_string(m, c, size, le32(c + 8)) : NULL;

		if (!p)
			return lo_error_set(LO_EINVALID, "malformed LC_RPATH in '%s'", m->name);
		lo_array_grow(&m->rpaths, &m->rpath_cap, m->rpath_count + 1, sizeof(*m->rpaths));
		m->rpaths[m->rpath_count++] = p;
		return 0;
	}
	case LC_BUILD_VERSION: case LC_VERSION_MIN_MACOSX: case LC_VERSION_MIN_IPHONEOS:
	case LC_VERSION_MIN_TVOS: case LC_VERSION_MIN_WATCHOS:
		read_min_os(m, c, size, cmd);
		return 0;
	case LC_SYMTAB:
		if (size < 24)
			break;
		li->has_symtab = true;
		li->symoff = le32(c + 8);
		li->nsyms = le32(c + 12);
		li->stroff = le32(c + 16);
		li->strsize = le32(c + 20);
		return 0;
	case LC_DYSYMTAB: {
		int k;

		if (size < 32)
			break;
		li->has_dysymtab = true;
		for (k = 0; k < 6; k++)
			li->dysym[k] = le32(c + 8 + 4 * k);
		return 0;
	}
	case LC_DYLD_INFO: case LC_DYLD_INFO_ONLY:
		if (size < 48)
			break;
		li->has_dyld_info = true;
		read_range(li->bind, c + 16);
		read_range(li->weak, c + 24);
		read_range(li->lazy, c + 32);
		read_range(li->trie, c + 40);
		return 0;
	case LC_DYLD_EXPORTS_TRIE: case LC_DYLD_CHAINED_FIXUPS:
		if (size < 16)
			break;
		read_range(cmd == LC_DYLD_EXPORTS_TRIE ? li->trie : li->chained, c + 8);
		li->has_chained |= cmd == LC_DYLD_CHAINED_FIXUPS;
		return 0;
	default:
		return 0;
	}
	return lo_error_set(LO_EINVALID, "load command 0x%x of '%s' is too short (%u bytes)", cmd,
			    m->name, size);
}

/*
 * The undefined external symbols of the symbol table, each with the
 * library ordinal its n_desc carries (GET_LIBRARY_ORDINAL): an image
 * without bind information (an old or static link) says there alone what
 * it needs from where.
 */
static int read_symtab_imports(lo_macho *m, const lo_macho_bytes *b, const link_info *li)
{
	uint32_t i;

	if (!lo_macho_in(b, li->symoff, (uint64_t)li->nsyms * 16) ||
	    !lo_macho_in(b, li->stroff, li->strsize))
		return lo_error_set(LO_EINVALID, "the symbol table of '%s' lies outside the file",
				    m->name);
	for (i = 0; i < li->nsyms; i++) {
		const unsigned char *n = b->p + li->symoff + (size_t)i * 16;
		uint32_t strx = le32(n);
		unsigned type = n[4], desc = (unsigned)n[6] | (unsigned)n[7] << 8, lib = desc >> 8;
		const char *s, *e;
		int ordinal;

		/* N_EXT, N_UNDF, not a stab, not a common symbol (n_value 0) */
		if ((type & 0xe0) || (type & 0x0e) != 0 || !(type & 1) || strx >= li->strsize)
			continue;
		s = (const char *)b->p + li->stroff + strx;
		e = memchr(s, '\0', li->strsize - strx);
		ordinal = lib == 0xfe ? LO_MACHO_ORDINAL_FLAT : lib == 0xff ? LO_MACHO_ORDINAL_MAIN
									    : (int)lib;
		lo_macho_add_import(m, s, e ? (size_t)(e - s) : li->strsize - strx, ordinal,
				    desc & 0x40, false);
	}
	m->imports_from = "symtab";
	return 0;
}

static int read_link_info(lo_macho *m, const lo_macho_bytes *b, const link_info *li)
{
	int err = 0, k;

	/* dyld refuses an image whose LC_DYSYMTAB ranges leave its symbol table */
	for (k = 0; li->has_dysymtab && k < 6; k += 2)
		if ((uint64_t)li->dysym[k] + li->dysym[k + 1] > (li->has_symtab ? li->nsyms : 0))
			return lo_error_set(LO_EINVALID, "the LC_DYSYMTAB of '%s' names symbols past "
					    "the end of its symbol table", m->name);

	if (li->has_chained) {
		err = lo_macho_read_chained(m, b, li->chained[0], li->chained[1]);
		m->imports_from = "chained-fixups";
	}
	if (err >= 0 && li->has_dyld_info) {
		err = lo_macho_read_binds(m, b, li->bind[0], li->bind[1], false, false);
		if (err >= 0)
			err = lo_macho_read_binds(m, b, li->weak[0], li->weak[1], false, true);
		if (err >= 0)
			err = lo_macho_read_binds(m, b, li->lazy[0], li->lazy[1], true, false);
		m->imports_from = "dyld-info";
	}
	if (err >= 0 && !li->has_chained && !li->has_dyld_info && li->has_symtab)
		err = read_symtab_imports(m, b, li);
	if (err >= 0 && li->trie[1])
		err = lo_macho_read_trie(m, b, li->trie[0], li->trie[1]);
	return err;
}

/* The header and load commands of the thin image in b. */
static int read_image(lo_macho *m, const lo_macho_bytes *b)
{
	link_info li = { 0 };
	uint32_t ncmds, sizeofcmds, i, off = 32;
	int err;

	if (b->size < 32 || le32(b->p) != MH_MAGIC_64)
		return lo_error_set(LO_ENOTFOUND, "'%s' is a %s Mach-O image, which no arm64 or "
				    "x86-64 Mac loads", m->name,
				    le32(b->p) == MH_MAGIC ? "32-bit" : "big-endian");
	m->cputype = le32(b->p + 4);
	m->cpusubtype = le32(b->p + 8);
	m->filetype = (int)le32(b->p + 12);
	ncmds = le32(b->p + 16);
	sizeofcmds = le32(b->p + 20);
	m->flags = le32(b->p + 24);
	if (!lo_macho_in(b, 32, sizeofcmds))
		return lo_error_set(LO_EINVALID, "the load commands of '%s' run past its end",
				    m->name);
	for (i = 0; i < ncmds; i++) {
		uint32_t cmd, size;

		if (sizeofcmds + 32 - off < 8)
			return lo_error_set(LO_EINVALID, "load command %u of '%s' runs past "
					    "sizeofcmds", i, m->name);
		cmd = le32(b->p + off);
		size = le32(b->p + off + 4);
		if (size < 8 || size > sizeofcmds + 32 - off)
			return lo_error_set(LO_EINVALID, "load command %u of '%s' has a bad size "
					    "(%u)", i, m->name, size);
		if ((err = read_command(m, b->p + off, cmd, size, &li)) < 0)
			return err;
		off += size;
	}
	if ((err = read_link_info(m, b, &li)) < 0)
		return err;
	lo_macho_finish(m);
	return 0;
}

static uint64_t cpu_key(uint32_t cputype, uint32_t subtype)
{
	return (uint64_t)(subtype & 0x00ffffffu) << 32 | cputype;
}

/* Does slice cpu (cputype, subtype) answer `want` (a cputype, or one with its subtype)? */
static bool cpu_matches(uint64_t want, uint32_t cputype, uint32_t subtype)
{
	return want >> 32 ? want == cpu_key(cputype, subtype) : (uint32_t)want == cputype;
}

/* The slice of the universal file in b for the first of cpus it holds. */
static int pick_slice(lo_macho *m, const lo_macho_bytes *b, const uint64_t *cpus, size_t ncpus,
		      lo_macho_bytes *slice)
{
	bool wide = be32(b->p) == FAT_MAGIC_64;
	uint32_t n = be32(b->p + 4), i, esize = wide ? 32 : 20;
	size_t c;

	if (n > FAT_ARCH_MAX || !lo_macho_in(b, 8, (uint64_t)n * esize))
		return lo_error_set(LO_EINVALID, "the fat header of '%s' is malformed", m->name);
	for (c = 0; c < ncpus; c++) {
		for (i = 0; i < n; i++) {
			const unsigned char *a = b->p + 8 + (size_t)i * esize;
			uint64_t off = wide ? be64(a + 8) : be32(a + 8);
			uint64_t size = wide ? be64(a + 16) : be32(a + 12);

			if (!cpu_matches(cpus[c], be32(a), be32(a + 4)))
				continue;
			if (!lo_macho_in(b, off, size))
				return lo_error_set(LO_EINVALID, "slice %u of '%s' lies outside "
						    "the file", i, m->name);
			slice->p = b->p + off;
			slice->size = (size_t)size;
			slice->name = b->name;
			m->universal = true;
			return 0;
		}
	}
	return lo_error_set(LO_ENOTFOUND, "'%s' is a universal file without a slice for this "
			    "Mac's cpu", m->name);
}

int lo_macho_open_mem(lo_macho **out, const void *data, size_t size, const char *name,
		      const uint64_t *cpus, size_t ncpus)
{
	lo_macho_bytes b = { data, size, name }, slice = b;
	lo_macho *m;
	int err = 0;

	*out = NULL;
	if (!lo_macho_sniff(b.p, size))
		return lo_error_set(LO_ENOTELF, "'%s' is not a Mach-O file", name);
	m = lo_macho_alloc(name);
	if (be32(b.p) == FAT_MAGIC || be32(b.p) == FAT_MAGIC_64)
		err = pick_slice(m, &b, cpus, ncpus, &slice);
	if (err >= 0)
		err = read_image(m, &slice);
	if (err >= 0 && !m->universal) {
		size_t c;

		for (c = 0; c < ncpus && !cpu_matches(cpus[c], m->cputype, m->cpusubtype); c++)
			;
		if (c == ncpus)
			err = lo_error_set(LO_ENOTFOUND, "'%s' is for another cpu (%s) than this "
					   "Mac's", name, lo_macho_cpu_name(m));
	}
	if (err < 0) {
		lo_macho_free(m);
		return err;
	}
	*out = m;
	return 0;
}

int lo_macho_open(lo_macho **out, const char *path, const char *name, const uint64_t *cpus,
		  size_t ncpus)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	lo_fmap *map;
	int err;

	*out = NULL;
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", name);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 8) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not a Mach-O file", name);
	}
	err = lo_fmap_new(&map, fd, 0, (size_t)st.st_size, name);
	close(fd);
	if (err < 0)
		return err;
	err = lo_macho_open_mem(out, lo_fmap_data(map), lo_fmap_size(map), name, cpus, ncpus);
	if (err >= 0 && lo_fmap_shrank(map)) {
		lo_macho_free(*out);
		*out = NULL;
		err = lo_error_set(LO_EINVALID, "'%s' changed while it was read", name);
	}
	lo_fmap_free(map);
	return err;
}

static int cmp_import(const void *a, const void *b)
{
	const lo_macho_import *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

static int cmp_export(const void *a, const void *b)
{
	return strcmp(((const lo_macho_export *)a)->name, ((const lo_macho_export *)b)->name);
}

void lo_macho_add_import(lo_macho *m, const char *name, size_t n, int ordinal, bool weak,
			 bool lazy)
{
	lo_array_grow(&m->imports, &m->import_cap, m->import_count + 1, sizeof(*m->imports));
	m->imports[m->import_count++] = (lo_macho_import){ lo_strpool_add(&m->pool, name, n),
							   ordinal, weak, lazy };
}

void lo_macho_add_export(lo_macho *m, const char *name, size_t n, bool reexport, int ordinal,
			 const char *import, size_t import_len)
{
	lo_macho_export e = { lo_strpool_add(&m->pool, name, n), reexport, ordinal, NULL };

	if (reexport)
		e.import = import_len ? lo_strpool_add(&m->pool, import, import_len) : e.name;
	lo_array_grow(&m->exports, &m->export_cap, m->export_count + 1, sizeof(*m->exports));
	m->exports[m->export_count++] = e;
}

/*
 * One import per symbol and library: a symbol bound at many places (a
 * GOT entry and a lazy pointer) is one need, weak only when every bind of
 * it is weak, lazy only when every one is lazy.
 */
void lo_macho_finish(lo_macho *m)
{
	size_t i, j = 0;

	if (m->import_count)
		qsort(m->imports, m->import_count, sizeof(*m->imports), cmp_import);
	for (i = 0; i < m->import_count; i++) {
		if (j && !cmp_import(&m->imports[j - 1], &m->imports[i])) {
			m->imports[j - 1].weak &= m->imports[i].weak;
			m->imports[j - 1].lazy &= m->imports[i].lazy;
			continue;
		}
		m->imports[j++] = m->imports[i];
	}
	m->import_count = j;
	if (m->export_count)
		qsort(m->exports, m->export_count, sizeof(*m->exports), cmp_export);
}

const lo_macho *lo_macho_tbd_inlined(const lo_macho *m, const char *install_name)
{
	size_t i;

	for (i = 0; i < m->inlined_count; i++)
		if (m->inlined[i]->install_name && !strcmp(m->inlined[i]->install_name, install_name))
			return m->inlined[i];
	return NULL;
}

lo_macho *lo_macho_new_placeholder(const char *install_name)
{
	lo_macho *m = lo_macho_alloc(install_name);

	m->stub = m->subset = true;
	m->filetype = LO_MACHO_DYLIB;
	m->install_name = lo_strpool_add(&m->pool, install_name, strlen(install_name));
	return m;
}

bool lo_macho_exports_known(const lo_macho *m) { return !m->subset; }
const char *lo_macho_name(const lo_macho *m) { return m->name; }
bool lo_macho_is_stub(const lo_macho *m) { return m->stub; }
int lo_macho_filetype(const lo_macho *m) { return m->filetype; }
bool lo_macho_two_level(const lo_macho *m) { return m->stub || (m->flags & MH_TWOLEVEL); }
bool lo_macho_universal(const lo_macho *m) { return m->universal; }
const char *lo_macho_install_name(const lo_macho *m) { return m->install_name; }
uint32_t lo_macho_current_version(const lo_macho *m) { return m->current_version; }
uint32_t lo_macho_compat_version(const lo_macho *m) { return m->compat_version; }
const char *lo_macho_min_os(const lo_macho *m) { return m->min_os; }
size_t lo_macho_dylib_count(const lo_macho *m) { return m->dylib_count; }
size_t lo_macho_rpath_count(const lo_macho *m) { return m->rpath_count; }
const char *lo_macho_rpath_at(const lo_macho *m, size_t i) { return m->rpaths[i]; }
size_t lo_macho_import_count(const lo_macho *m) { return m->import_count; }
const char *lo_macho_imports_from(const lo_macho *m) { return m->imports_from; }
size_t lo_macho_export_count(const lo_macho *m) { return m->export_count; }

const lo_macho_dylib *lo_macho_dylib_at(const lo_macho *m, size_t i) { return &m->dylibs[i]; }
const lo_macho_import *lo_macho_import_at(const lo_macho *m, size_t i) { return &m->imports[i]; }
const lo_macho_export *lo_macho_export_at(const lo_macho *m, size_t i) { return &m->exports[i]; }

const lo_macho_export *lo_macho_find_export(const lo_macho *m, const char *name)
{
	lo_macho_export key = { name, false, 0, NULL };

	return m->export_count ? bsearch(&key, m->exports, m->export_count, sizeof(key),
					 cmp_export)
			       : NULL;
}

const char *lo_macho_cpu_name(const lo_macho *m)
{
	if (m->cputype == LO_MACHO_CPU_ARM64)
		return (m->cpusubtype & 0xff) == LO_MACHO_SUBTYPE_ARM64E ? "arm64e" : "arm64";
	return m->cputype == LO_MACHO_CPU_X86_64 ? "x86_64" : "other";
}

const char *lo_macho_version_str(uint32_t v, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
	return buf;
}
