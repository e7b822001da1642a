/*
 * elf.h - what the loader needs to know about one ELF object, read by
 * leftover's own bounded reader (no libelf).
 *
 * lo_elf_open reads only what ld.so reads: the ELF header, the dynamic
 * section, the dynamic symbol table with its string, version (versym,
 * verdef, verneed) and hash tables. The tables that lookups read are
 * mapped read-only (fmap.h: a file that shrinks meanwhile does not kill
 * the process), the rest is read and parsed at open. Every offset and
 * count taken from the file is checked against the file before it is followed;
 * a file that fails a check is LO_EINVALID with a message naming the file and
 * what was being read. Nothing is executed.
 *
 * Symbol tables are decoded for 32- and 64-bit objects of any machine and
 * either byte order: in place in the order of the machine leftover runs
 * on, translated once into copies at open in the other; which loader
 * judges them is the target's business (target.h). Another class or byte
 * order is refused at open, as the loaders refuse it.
 *
 * All strings returned are borrowed from the object and live until
 * lo_elf_free.
 */
#ifndef LEFTOVER_ELF_H
#define LEFTOVER_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

typedef struct lo_elf lo_elf;

/* One undefined dynamic symbol: a reference the loader must bind. */
typedef struct lo_elf_undef {
	const char *name;
	const char *version;      /* required version name, or NULL when unversioned */
	const char *version_file; /* the verneed file (a DT_NEEDED name) for version */
	uint32_t gnu_hash;        /* dl_new_hash(name), precomputed for lookups */
	bool weak;                /* STB_WEAK: may stay unresolved */
	bool version_hidden;      /* the reference itself asks for a hidden version */
} lo_elf_undef;

/* One version an object requires from one of its needed libraries. */
typedef struct lo_elf_verneed {
	const char *file;    /* vn_file, e.g. "libstdc++.so.6" */
	const char *version; /* vna_name, e.g. "GLIBCXX_3.4.32" */
	bool weak;           /* VER_FLG_WEAK: absence is not fatal */
} lo_elf_verneed;

/*
 * Open `path`, relative to `dirfd` (AT_FDCWD for a plain path). `name` is
 * the name used in messages (the path as the user knows it). Returns 0,
 * LO_ENOTELF for a readable file that is not ELF (a linker script, say),
 * LO_EINVALID for a corrupt or truncated ELF file, LO_ERROR when the file
 * cannot be opened or read. The file is opened with O_NOFOLLOW unless
 * follow is true.
 */
int lo_elf_open(lo_elf **out, int dirfd, const char *path, const char *name, bool follow);

/*
 * Likewise for the file open at descriptor `fd`, which it takes and closes.
 * `st` is the caller's fstat of fd, or NULL to have it made here: a scan
 * opens thousands of files, and each system call is worth saving.
 */
struct stat;
int lo_elf_open_fd(lo_elf **out, int fd, const struct stat *st, const char *name);

/*
 * The interpreter a program at `path` names (PT_INTERP: "/lib64/ld-linux-
 * x86-64.so.2"), owned in *out, or *out NULL when it names none. Read
 * apart from lo_elf_open, which candidates go through by the thousand and
 * which never needs it. Returns 0, or a negative code with a message when
 * the file cannot be read or its entry lies outside it.
 */
int lo_elf_read_interp(const char *path, char **out);

/*
 * A buffer for objects read one after another and never shared
 * (lo_elf_open_private), kept by its one user: LO_ELF_BUF_MAX bytes once
 * first used. Zeroed is empty.
 */
typedef struct lo_elf_buf {
	char *data;
} lo_elf_buf;

#define LO_ELF_BUF_MAX ((size_t)256 << 10)

void lo_elf_buf_dispose(lo_elf_buf *b);

/*
 * lo_elf_open_fd, with the tables read into `buf` instead of mapped (a
 * file that fits, the whole file with one read): the object borrows buf's
 * bytes, so it must be freed before buf is used again or disposed of, and
 * is for its reader only. When its tables do not fit LO_ELF_BUF_MAX
 * bytes, neither their span nor they one after another, they are mapped
 * as lo_elf_open_fd maps them and it returns LO_ELF_MAPPED: the object
 * borrows nothing and may be kept. fd is taken and closed either way.
 */
#define LO_ELF_MAPPED 1
int lo_elf_open_private(lo_elf **out, int fd, const struct stat *st, const char *name,
			lo_elf_buf *buf);
void lo_elf_free(lo_elf *e);

/*
 * Free e but for the mapping of its tables, which is returned (NULL when
 * it has none) for the caller to unmap later with lo_fmap_free: while
 * other threads run, each munmap costs a TLB shootdown on every core,
 * and a process about to exit unmaps everything at once.
 */
struct lo_fmap *lo_elf_free_keep_map(lo_elf *e);

/*
 * Let the kernel drop the pages of n objects from this process's memory,
 * in one call (a call per object costs about as much as one for all). The
 * mappings stay valid: a later lookup reads the pages again from the page
 * cache. A scan calls this on the objects used least recently, so that
 * memory grows with the largest libraries, not with the tree.
 */
void lo_elf_release_many(const lo_elf *const *objs, size_t n);

/*
 * Has the file changed under the object since it was opened: shrunk, so
 * that a read came back as zeros (see fmap.h), or the same inode rewritten
 * (size, mtime or ctime differ; this stats `name`, which must then be a
 * path)? Then nothing judged from it can be trusted. A changed file reads
 * as a malformed one, which makes loads fail, never pass, so a caller need
 * ask only when a load failed. lo_elf_open itself refuses a file that
 * changed while it was being read.
 */
bool lo_elf_changed(const lo_elf *e);

/*
 * The bytes of the object's symbol, string, version and hash tables in
 * its mapping, which lookups read: what stays in memory of it between two
 * releases, give or take the pages the kernel maps around each one read.
 * Not the mapping's length: patchelf moves the tables it rewrites to the
 * end of the file, and the mapping from the first to the last spans the
 * code between (25 MB for 7 MB of tables in the bench tree's copies).
 */
size_t lo_elf_table_bytes(const lo_elf *e);

/*
 * The file as it was read: a file read again is the same file, unchanged,
 * when its stamp is equal (a cache that lets an object go and reads it
 * again must not take a rewritten file for it).
 */
typedef struct lo_elf_stamp {
	dev_t dev;
	ino_t ino;
	size_t size;
	struct timespec mtime, ctime;
} lo_elf_stamp;

lo_elf_stamp lo_elf_stamp_of(const lo_elf *e);
bool lo_elf_stamp_equal(const lo_elf_stamp *a, const lo_elf_stamp *b);

const char *lo_elf_name(const lo_elf *e);

/* Header facts. */
int lo_elf_class(const lo_elf *e);   /* LO_ELFCLASS32 / 64 (elf_format.h) */
int lo_elf_data(const lo_elf *e);    /* LO_ELFDATA2LSB / MSB */
int lo_elf_machine(const lo_elf *e); /* LO_EM_* */
int lo_elf_type(const lo_elf *e);    /* LO_ET_DYN, LO_ET_EXEC, ... */
/* ET_DYN carrying DF_1_PIE: an executable, which dlopen refuses. */
bool lo_elf_is_pie(const lo_elf *e);
/* DF_1_NODEFLIB: skip ld.so.cache and the default directories. */
bool lo_elf_nodeflib(const lo_elf *e);

/* Dynamic section; NULL / 0 when absent. */
const char *lo_elf_soname(const lo_elf *e);
const char *lo_elf_rpath(const lo_elf *e);   /* NULL when DT_RUNPATH is also present, as in ld.so */
const char *lo_elf_runpath(const lo_elf *e);
size_t lo_elf_needed_count(const lo_elf *e);
const char *lo_elf_needed(const lo_elf *e, size_t i);

/*
 * Undefined dynamic symbols, in symbol table order, read from the mapping
 * on each call (strings borrowed). Start with *cursor = 0; false past the
 * last. lo_elf_undef_count is how many lo_elf_open found: a walk that
 * yields another number read a file that has changed since.
 */
size_t lo_elf_undef_count(const lo_elf *e);
bool lo_elf_undef_next(const lo_elf *e, size_t *cursor, lo_elf_undef *out);

/*
 * Does the object leave undefined a symbol whose name matches the shell
 * glob `glob` (fnmatch(3); a plain prefix and star, Perl_*, is a compare)?
 */
bool lo_elf_needs(const lo_elf *e, const char *glob);

/*
 * Does the object define (export) a dynamic symbol whose name matches
 * `glob`? A plain name is looked up as dlsym would (lo_elf_exports); a
 * glob is asked of every defined, non-local dynamic symbol, which for a
 * library of 100,000 exports reads all of their names.
 */
bool lo_elf_exports_matching(const lo_elf *e, const char *glob);

/* Does a DT_NEEDED entry of the object match `glob` (libjvm.so, libtcl8.*)? */
bool lo_elf_needs_library(const lo_elf *e, const char *glob);

/* Versions required from needed libraries (.gnu.version_r). */
size_t lo_elf_verneed_count(const lo_elf *e);
const lo_elf_verneed *lo_elf_verneed_at(const lo_elf *e, size_t i);

/* Does the object define version `name` (.gnu.version_d)? */
bool lo_elf_has_verdef(const lo_elf *e, const char *name);
/* Has the object a version definition table (DT_VERDEF)? */
bool lo_elf_defines_versions(const lo_elf *e);
/* Does the object have a versym table at all? */
bool lo_elf_has_versym(const lo_elf *e);

/* The GNU hash of a symbol name, as ld.so computes it (dl_new_hash). */
uint32_t lo_elf_gnu_hash(const char *name);

/*
 * Would the loader bind a reference to `ref` to a definition in `e`?
 * Follows glibc's do_lookup_x/check_match: only defined, non-local symbols
 * of a loadable type; a versioned reference needs a definition of that
 * version (or any definition in an object without versym); an unversioned
 * one takes the base or default version, a lone non-hidden version, and
 * never a hidden one. The lookup goes through the object's DT_GNU_HASH (or
 * DT_HASH) table, as ld.so does.
 */
bool lo_elf_defines(const lo_elf *e, const lo_elf_undef *ref);

/*
 * A hint, with no effect on any answer: start bringing in what a
 * lo_elf_defines of a name with this GNU hash reads first, the bloom
 * filter's word and the hash bucket, or, when `deep` (once those are in),
 * the chain and symbol the bucket points to. A module's lookups land at
 * random places in its libraries' tables: asked a few symbols ahead, the
 * CPU waits on several of them at once instead of one after another.
 */
void lo_elf_prefetch(const lo_elf *e, uint32_t hash, bool deep);

/*
 * Call fn with the GNU hash of the name of every symbol the object defines,
 * whatever its type, binding or version: a superset of the names
 * lo_elf_defines can find, for a filter over several objects.
 */
void lo_elf_foreach_defined_hash(const lo_elf *e, void (*fn)(uint32_t hash, void *payload),
				 void *payload);

/* Does the object export `name`, unversioned, as an import would find it? */
bool lo_elf_exports(const lo_elf *e, const char *name);

#endif
