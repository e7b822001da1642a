/*
 * elf_head.c - the first bytes of an ELF file: its identification and
 * header (lo_elf_head_parse, lo_elf_read_head), the file read whole or in
 * pieces (lo_elf_read_whole, lo_elf_read_at), and the interpreter a
 * program names (lo_elf_read_interp). See elf_int.h.
 *
 * What is accepted is what libelf accepted when it read these files, so
 * that the reader says the same of every file as before: the magic, a
 * class of ELFCLASS32 or ELFCLASS64, a byte order of ELFDATA2LSB or
 * ELFDATA2MSB, and version EV_CURRENT; anything else with the magic is
 * a corrupt ELF file. Every field is read in the object's own byte order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/error.h"
#include "object/elf_int.h"

int lo_elf_head_parse(const unsigned char *b, size_t got, const char *name, lo_elf_head *h)
{
	bool wide, big;

	if (got < LO_ELFMAG_SIZE) /* too short to say what it is, and too short for the loader */
		return lo_error_set(LO_EINVALID, "cannot read '%s': file too short (%zu bytes)",
				    name, got);
	if (memcmp(b, LO_ELFMAG, LO_ELFMAG_SIZE) != 0)
		return lo_error_set(LO_ENOTELF, "'%s' is not an ELF file", name);
	if (got < LO_EI_NIDENT)
		return lo_error_set(LO_EINVALID, "cannot read ELF header of '%s': file too short",
				    name);
	if ((b[LO_EI_CLASS] != LO_ELFCLASS32 && b[LO_EI_CLASS] != LO_ELFCLASS64) ||
	    (b[LO_EI_DATA] != LO_ELFDATA2LSB && b[LO_EI_DATA] != LO_ELFDATA2MSB) || b[LO_EI_VERSION] != LO_EV_CURRENT)
		return lo_error_set(LO_EINVALID,
				    "cannot read ELF header of '%s': unknown class %u, "
				    "byte order %u or version %u", name, b[LO_EI_CLASS], b[LO_EI_DATA],
				    b[LO_EI_VERSION]);
	wide = b[LO_EI_CLASS] == LO_ELFCLASS64;
	big = b[LO_EI_DATA] == LO_ELFDATA2MSB;
	if (got < (wide ? sizeof(lo_elf64_ehdr) : sizeof(lo_elf32_ehdr)))
		return lo_error_set(LO_EINVALID, "cannot read ELF header of '%s': file too short",
				    name);
	h->class = b[LO_EI_CLASS];
	h->data = b[LO_EI_DATA];
	h->type = (int)LO_ELF_FIELD(wide, b, ehdr, e_type, big);
	h->machine = (int)LO_ELF_FIELD(wide, b, ehdr, e_machine, big);
	h->shoff = LO_ELF_FIELD(wide, b, ehdr, e_shoff, big);
	h->phoff = LO_ELF_FIELD(wide, b, ehdr, e_phoff, big);
	h->shnum = (size_t)LO_ELF_FIELD(wide, b, ehdr, e_shnum, big);
	h->phnum = (size_t)LO_ELF_FIELD(wide, b, ehdr, e_phnum, big);
	return 0;
}

/* pread, made again when a signal interrupts it (EINTR says nothing of the file). */
static ssize_t pread_retry(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t got;
	int tries = 0;

	do
		got = pread(fd, buf, len, (off_t)off);
	while (got < 0 && errno == EINTR && ++tries < LO_ELF_EINTR_TRIES);
	return got;
}

int lo_elf_read_at(const lo_elf *e, int fd, void *buf, size_t len, uint64_t off)
{
	if (pread_retry(fd, buf, len, off) != (ssize_t)len)
		return lo_error_set(LO_EINVALID, "cannot read '%s': %s", e->name, LO_ELF_CHANGED_MSG);
	return 0;
}

int lo_elf_read_head(lo_elf *e, int fd, lo_elf_head *h)
{
	unsigned char b[sizeof(lo_elf64_ehdr)];
	const unsigned char *at = b;
	ssize_t got;
	int err;

	if (e->whole) {
		at = (const unsigned char *)e->into->data;
		got = (ssize_t)(e->size < sizeof(b) ? e->size : sizeof(b));
	} else if ((got = pread_retry(fd, b, sizeof(b), 0)) < 0) {
		return lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", e->name);
	}
	if ((err = lo_elf_head_parse(at, (size_t)got, e->name, h)) < 0)
		return err;
	e->class = h->class;
	e->data = h->data;
	e->machine = h->machine;
	e->type = h->type;
	return 0;
}

int lo_elf_read_whole(lo_elf *e, int fd)
{
	lo_elf_buf *b = e->into;
	int err;

	if (e->size < LO_EI_NIDENT || e->size > LO_ELF_BUF_MAX)
		return 0;
	if (!b->data)
		b->data = lo_xmalloc(LO_ELF_BUF_MAX);
	if ((err = lo_elf_read_at(e, fd, b->data, e->size, 0)) < 0)
		return err;
	e->whole = true;
	return 0;
}

/*
 * The number of program headers: e_phnum, or, when that is PN_XNUM,
 * section 0's sh_info (gABI: extended numbering). 0 when section 0
 * cannot be read.
 */
static size_t phdr_count(int fd, const lo_elf_head *h, const struct stat *st)
{
	bool wide = h->class == LO_ELFCLASS64, big = h->data == LO_ELFDATA2MSB;
	unsigned char sh[sizeof(lo_elf64_shdr)];
	size_t shsize = wide ? sizeof(lo_elf64_shdr) : sizeof(lo_elf32_shdr);

	if (h->phnum != LO_PN_XNUM)
		return h->phnum;
	if (!h->shoff || h->shoff > (uint64_t)st->st_size ||
	    (uint64_t)st->st_size - h->shoff < shsize ||
	    pread_retry(fd, sh, shsize, h->shoff) != (ssize_t)shsize)
		return 0;
	return (size_t)LO_ELF_FIELD(wide, sh, shdr, sh_info, big);
}

/*
 * The PT_INTERP entry's string: *out owned, or NULL when the program
 * headers hold none. Their table must lie inside the file, else there is
 * none to read (as libelf found none).
 */
static int interp_from_phdrs(int fd, const char *path, const lo_elf_head *h,
			     const struct stat *st, char **out)
{
	bool wide = h->class == LO_ELFCLASS64, big = h->data == LO_ELFDATA2MSB;
	size_t phsize = wide ? sizeof(lo_elf64_phdr) : sizeof(lo_elf32_phdr);
	size_t n = phdr_count(fd, h, st), i;
	uint64_t size = (uint64_t)st->st_size, off, len;
	unsigned char *tab;

	if (!n || h->phoff > size || (size - h->phoff) / phsize < n)
		return 0;
	tab = lo_xmalloc(n * phsize);
	if (pread_retry(fd, tab, n * phsize, h->phoff) != (ssize_t)(n * phsize)) {
		free(tab);
		return lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", path);
	}
	for (i = 0; i < n; i++) {
		const unsigned char *ph = tab + i * phsize;

		if (LO_ELF_FIELD(wide, ph, phdr, p_type, big) == LO_PT_INTERP)
			break;
	}
	if (i == n) {
		free(tab);
		return 0;
	}
	off = LO_ELF_FIELD(wide, tab + i * phsize, phdr, p_offset, big);
	len = LO_ELF_FIELD(wide, tab + i * phsize, phdr, p_filesz, big);
	free(tab);
	/* untrusted: inside the file, and a path's length at most */
	if (off > size || len > size - off || len == 0 || len > PATH_MAX)
		return lo_error_set(LO_EINVALID, "cannot read '%s': its interpreter's name lies "
				    "outside the file", path);
	*out = lo_xcalloc(1, len + 1);
	if (pread_retry(fd, *out, len, off) != (ssize_t)len) {
		free(*out);
		*out = NULL;
		return lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", path);
	}
	return 0;
}

int lo_elf_read_interp(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char b[sizeof(lo_elf64_ehdr)];
	lo_elf_head h = { 0 };
	struct stat st;
	ssize_t got;
	int err = 0;

	*out = NULL;
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", path);
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* a file that is no ELF program names no interpreter: not an error here */
	got = pread_retry(fd, b, sizeof(b), 0);
	if (got > 0 && lo_elf_head_parse(b, (size_t)got, path, &h) == 0)
		err = interp_from_phdrs(fd, path, &h, &st, out);
	else
		lo_error_clear();
	close(fd);
	return err;
}
