/*
 * common.c - the memfd, scratch file or scratch build dir each fuzz
 * target reads its input from.
 */
#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const char *lo_fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("leftover-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return path;
}

/* The scratch directories, removed at exit (after a crash they stay, with the input). */
static char dir_file_dir[64], tree[64];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void scratch_remove(void)
{
	if (dir_file_dir[0]) {
		nftw(dir_file_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		rmdir(dir_file_dir);
	}
	if (tree[0]) {
		nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		rmdir(tree);
	}
}

/*
 * Make a scratch directory from `tmpl` ("NAME-XXXXXX") under /dev/shm when
 * there is one: on an ext4 /tmp each write-and-remove of an input waited
 * some 25 ms for the journal (fuzz_cmake_clean: 40 executions a second).
 */
static void scratch_make(char *dir, size_t size, const char *tmpl)
{
	static bool registered;

	snprintf(dir, size, "%s/%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", tmpl);
	if (!mkdtemp(dir))
		abort();
	if (!registered)
		atexit(scratch_remove);
	registered = true;
}

/* Write data to path, whole; false when it cannot be created, abort on a short write. */
static bool write_file(const char *path, const uint8_t *data, size_t size)
{
	size_t done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return false;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	close(fd);
	return true;
}

const char *lo_fuzz_dir_file(const char *name, const uint8_t *data, size_t size)
{
	char path[256];

	if (!dir_file_dir[0])
		scratch_make(dir_file_dir, sizeof(dir_file_dir), "leftover-fuzz-XXXXXX");
	snprintf(path, sizeof(path), "%s/%s", dir_file_dir, name);
	if (!write_file(path, data, size))
		abort();
	return dir_file_dir;
}

size_t lo_fuzz_split(const uint8_t *data, size_t size, const char *first, lo_fuzz_part *parts)
{
	size_t n = 0, i = 0;

	snprintf(parts[0].name, sizeof(parts[0].name), "%s", first);
	parts[0].data = data;
	for (;;) {
		const uint8_t *sep = NULL, *name, *eol;
		size_t at = i, len;

		/* the next "@@ " at the start of the input or after a newline */
		while (n + 1 < LO_FUZZ_PARTS && at + 3 <= size) {
			const uint8_t *nl;

			if (data[at] == '@' && data[at + 1] == '@' && data[at + 2] == ' ' &&
			    (at == 0 || data[at - 1] == '\n')) {
				sep = data + at;
				break;
			}
			if (!(nl = memchr(data + at, '\n', size - at)))
				break;
			at = (size_t)(nl - data) + 1;
		}
		if (!sep) {
			parts[n].size = (size_t)(data + size - parts[n].data);
			return n + 1;
		}
		/* the part ends before the newline that starts the separator line */
		parts[n].size = (size_t)(sep - parts[n].data) - (at > 0 && sep - 1 >= parts[n].data);
		name = sep + 3;
		eol = memchr(name, '\n', (size_t)(data + size - name));
		len = (size_t)((eol ? eol : data + size) - name);
		n++;
		if (len >= LO_FUZZ_NAME_MAX)
			len = LO_FUZZ_NAME_MAX - 1;
		memcpy(parts[n].name, name, len);
		parts[n].name[len] = '\0';
		parts[n].data = eol ? eol + 1 : data + size;
		i = (size_t)(parts[n].data - data);
	}
}

const char *lo_fuzz_tree_reset(void)
{
	if (!tree[0])
		scratch_make(tree, sizeof(tree), "leftover-fuzz-tree-XXXXXX");
	else
		nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tree;
}

bool lo_fuzz_tree_put(const char *rel, const uint8_t *data, size_t size)
{
	char path[sizeof(tree) + LO_FUZZ_NAME_MAX + 1];
	size_t i, start = 0, depth = 0, len = strlen(rel), top = strlen(tree) + 1;

	if (!len || rel[0] == '/' || rel[len - 1] == '/')
		return false;
	for (i = 0; i <= len; i++) {
		if (rel[i] == '/' || !rel[i]) {
			size_t clen = i - start;

			if (!clen || (clen == 1 && rel[start] == '.') ||
			    (clen == 2 && rel[start] == '.' && rel[start + 1] == '.') || ++depth > 8)
				return false;
			start = i + 1;
		} else if (!isalnum((unsigned char)rel[i]) && !strchr("._+-", rel[i])) {
			return false;
		}
	}
	/* the directories on the way; an existing one (or a file in the way) is fine */
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (i = top; path[i]; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			mkdir(path, 0700);
			path[i] = '/';
		}
	return write_file(path, data, size);
}
