/*
 * elf.c - one ELF object the way ld.so sees it (see elf.h): opening it,
 * and what the loader model asks of it once open.
 *
 * The file is opened and its header read (elf_head.c: by pread, nothing
 * mapped; a small one read for one reader alone is read whole first, and
 * everything is read from that copy); elf_read.c takes the tables from
 * it. Then only the mapping of the tables stays (or, for an object read
 * for one reader alone, its copy in that reader's buffer:
 * lo_elf_open_private), with every string and table borrowed from it: a
 * scan keeps thousands of objects, and keeps nothing else of them but the
 * few arrays read at open.
 * Lookups (elf_lookup.c) and the loops here read the tables in place,
 * bounds checked on every read, since the file may change under the
 * mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "object/elf_int.h"

/* Is `st` (the same inode, now) not the file as lo_elf_open mapped it? */
static bool changed_since(const lo_elf *e, const struct stat *st)
{
	lo_elf_stamp was = lo_elf_stamp_of(e);
	lo_elf_stamp now = { st->st_dev, st->st_ino, (size_t)st->st_size, st->st_mtim,
			     st->st_ctim };

	return !lo_elf_stamp_equal(&was, &now);
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
	return lo_elf_open_fd(out, fd, NULL, name);
}

static int open_fd(lo_elf **out, int fd, const struct stat *given, const char *name,
		   lo_elf_buf *into)
{
	lo_elf *e;
	struct stat st;
	lo_elf_head h = { 0 };
	int err;

	*out = NULL;
	if (given) {
		st = *given;
	} else if (fstat(fd, &st) < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot stat '%s'", name);
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return lo_error_set(LO_ENOTELF, "'%s' is not a regular file", name);
	}
	e = lo_xcalloc(1, sizeof(*e));
	e->name = lo_xstrdup(name);
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->mtime = st.st_mtim;
	e->ctime = st.st_ctim;
	e->size = (size_t)st.st_size;
	e->into = into;
	if ((into && (err = lo_elf_read_whole(e, fd)) < 0) || (err = lo_elf_read_head(e, fd, &h)) < 0)
		goto fail;
	/* in this machine's byte order the tables are read in place, else translated */
	e->foreign = e->data != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? LO_ELFDATA2LSB
									   : LO_ELFDATA2MSB);
	if ((err = lo_elf_read_tables(e, fd, &h)) < 0)
		goto fail;
	e->into = NULL;
	/* Whatever was read while the file changed (cp over it, say) is not the file. */
	if ((e->map && lo_fmap_shrank(e->map)) || fstat(fd, &st) < 0 || changed_since(e, &st)) {
		err = lo_error_set(LO_EINVALID, "cannot read '%s': %s", name, LO_ELF_CHANGED_MSG);
		goto fail;
	}
	/* The mapping outlives the descriptor; keeping thousands open would hit RLIMIT_NOFILE. */
	close(fd);
	*out = e;
	return into && e->map ? LO_ELF_MAPPED : 0;
fail:
	close(fd);
	lo_elf_free(e);
	return err;
}

int lo_elf_open_fd(lo_elf **out, int fd, const struct stat *st, const char *name)
{
	return open_fd(out, fd, st, name, NULL);
}

int lo_elf_open_private(lo_elf **out, int fd, const struct stat *st, const char *name,
			lo_elf_buf *buf)
{
	return open_fd(out, fd, st, name, buf);
}

void lo_elf_buf_dispose(lo_elf_buf *b)
{
	free(b->data);
	b->data = NULL;
}

void lo_elf_free(lo_elf *e)
{
	lo_fmap_free(lo_elf_free_keep_map(e));
}

lo_fmap *lo_elf_free_keep_map(lo_elf *e)
{
	lo_fmap *map;

	if (!e)
		return NULL;
	free(e->needed);
	free(e->verdefs.names);
	free(e->verneeds);
	free(e->vindex);
	free(e->dynsym_wide);
	free(e->versym_own);
	free(e->gnu_hash_own);
	free(e->sysv_hash_own);
	map = e->map;
	free(e->name);
	free(e);
	return map;
}

void lo_elf_release_many(const lo_elf *const *objs, size_t n)
{
	const lo_fmap *maps[256];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (objs[i]->map)
			maps[k++] = objs[i]->map;
		if (k == sizeof(maps) / sizeof(maps[0]) || (i + 1 == n && k)) {
			lo_fmap_release_many(maps, k);
			k = 0;
		}
	}
}

size_t lo_elf_table_bytes(const lo_elf *e)
{
	/* tables that overlap (a crafted file) count once at most */
	if (!e->map)
		return 0;
	return e->table_bytes < lo_fmap_size(e->map) ? e->table_bytes : lo_fmap_size(e->map);
}

bool lo_elf_changed(const lo_elf *e)
{
	struct stat st;

	/* another file at the path now is no change to the one mapped */
	return (e->map && lo_fmap_shrank(e->map)) ||
	       (stat(e->name, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino &&
		changed_since(e, &st));
}

lo_elf_stamp lo_elf_stamp_of(const lo_elf *e)
{
	return (lo_elf_stamp){ e->dev, e->ino, e->size, e->mtime, e->ctime };
}

bool lo_elf_stamp_equal(const lo_elf_stamp *a, const lo_elf_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

const char *lo_elf_name(const lo_elf *e) { return e->name; }
int lo_elf_class(const lo_elf *e) { return e->class; }
int lo_elf_data(const lo_elf *e) { return e->data; }
int lo_elf_machine(const lo_elf *e) { return e->machine; }
int lo_elf_type(const lo_elf *e) { return e->type; }
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
		const lo_elf64_sym *sym = &e->dynsym[i];
		const char *name;

		if (!lo_elf_is_undef(sym))
			continue;
		/* checked at open; read again from a file that may have changed since */
		name = lo_elf_dynstr(e, sym->st_name);
		if (name && !*name)
			continue;
		memset(out, 0, sizeof(*out));
		out->name = name ? name : "";
		out->gnu_hash = lo_elf_gnu_hash(out->name);
		out->weak = LO_ELF64_ST_BIND(sym->st_info) == LO_STB_WEAK;
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
		unsigned start = lo_elf_undef_start(glob);

		if (!(e->undef_starts[start / 64] & 1ull << (start % 64)))
			return false; /* no undefined name starts as the glob does */
	}
	for (i = 1; i < e->undef_end; i++) {
		const char *name;

		if (!lo_elf_is_undef(&e->dynsym[i]) || !(name = lo_elf_dynstr(e, e->dynsym[i].st_name)))
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

		if (e->dynsym[i].st_shndx == LO_SHN_UNDEF ||
		    LO_ELF64_ST_BIND(e->dynsym[i].st_info) == LO_STB_LOCAL ||
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

