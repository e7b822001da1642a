/*
 * ldconfig.c - /etc/ld.so.cache and ld.so.conf (ldconfig.h).
 *
 * The cache is what ld.so reads; ld.so.conf only matters without one, and
 * its `include` globs may reach any file of the system, so its reading is
 * bounded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/ldconfig.h"

/*
 * /etc/ld.so.cache in the format glibc 2.32+ writes ("glibc-ld.so.cache1.1"):
 * a header, nlibs entries of 24 bytes, string offsets from the start of the
 * file. Entries are ordered as ld.so prefers them; of a name, a supported
 * glibc-hwcaps entry wins over plain ones (dl-cache.c, search_cache), the
 * best subdirectory first, else the first plain entry.
 */

/*
 * The rank of a glibc-hwcaps entry's path (.../glibc-hwcaps/SUB/file) in
 * `hwcaps`, best 0; -1 when SUB is not supported. ldconfig puts each such
 * library under its subdirectory, so the path says which it is.
 */
static int hwcap_rank(const char *path, const char *const *hwcaps)
{
	const char *sub = strstr(path, "/glibc-hwcaps/"), *end;
	int i;

	if (!sub)
		return -1;
	sub += strlen("/glibc-hwcaps/");
	if (!(end = strchr(sub, '/')))
		return -1;
	for (i = 0; hwcaps && hwcaps[i]; i++)
		if (strlen(hwcaps[i]) == (size_t)(end - sub) && !strncmp(sub, hwcaps[i], end - sub))
			return i;
	return -1;
}

int lo_ldconfig_read_cache(lo_map *cache, const lo_sysroot *root, const char *path,
			   int32_t want, const char *const *hwcaps)
{
	lo_map *ranks; /* name -> 1 + rank of the hwcaps entry taken */
	static const char magic[] = "glibc-ld.so.cache1.1";
	int fd = lo_sysroot_open(root, path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const unsigned char *map;
	uint32_t nlibs, i;
	size_t size;

	if (fd < 0) {
		lo_deps_note_stat(path, NULL); /* one made by ldconfig later: deps.h */
		return lo_error_set_errno(LO_ENOTFOUND, errno, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0 || (lo_deps_note_stat(path, &st), st.st_size < 48) || st.st_size > (1 << 28)) {
		close(fd);
		return lo_error_set(LO_EINVALID, "'%s' has an unexpected size", path);
	}
	size = (size_t)st.st_size;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return lo_error_set_errno(LO_ERROR, errno, "cannot map '%s'", path);
	if (memcmp(map, magic, sizeof(magic) - 1) != 0) {
		munmap((void *)map, size);
		return lo_error_set(LO_EINVALID, "'%s' is not a glibc 2.32+ ld.so cache", path);
	}
	ranks = lo_map_new();
	memcpy(&nlibs, map + 20, 4);
	if (nlibs > (size - 48) / 24)
		nlibs = 0;
	for (i = 0; i < nlibs; i++) {
		const unsigned char *ent = map + 48 + (size_t)i * 24;
		int32_t flags;
		uint32_t key, value;
		uint64_t hwcap;
		const char *k, *v;

		memcpy(&flags, ent, 4);
		memcpy(&key, ent + 4, 4);
		memcpy(&value, ent + 8, 4);
		memcpy(&hwcap, ent + 16, 8);
		if (flags != want || key >= size || value >= size)
			continue;
		k = (const char *)map + key;
		v = (const char *)map + value;
		if (!memchr(k, '\0', size - key) || !memchr(v, '\0', size - value))
			continue;
		if (hwcap & (1ull << 62)) {
			/* a glibc-hwcaps entry: taken when supported, over plain ones and worse ranks */
			int rank = hwcap_rank(v, hwcaps);
			uintptr_t had = (uintptr_t)lo_map_get(ranks, k, NULL);

			if (rank < 0 || (had && had <= (uintptr_t)rank + 1))
				continue;
			free(lo_map_get(cache, k, NULL));
			lo_map_put(cache, k, lo_xstrdup(v));
			lo_map_put(ranks, k, (void *)((uintptr_t)rank + 1));
		} else if (!lo_map_get(cache, k, NULL)) {
			lo_map_put(cache, k, lo_xstrdup(v));
		}
	}
	munmap((void *)map, size);
	lo_map_free(ranks, NULL);
	return 0;
}

/*
 * Bounds on reading ld.so.conf, whose `include` globs may reach any file:
 * only regular files of some size (/proc's report none: a glob that took
 * in /proc/PID/pagemap read gigabytes of zeros, which a count of each
 * line's strlen took for a few bytes each), opened without blocking, at
 * most 1 MiB of each by the stream's position, at
 * most 1,000 files, and no file opened once 1 MiB has been read in all
 * (the files already open are read on, so that a directory listed after
 * an include still counts). So a glob that hits /dev/zero, a FIFO or
 * /proc/kmsg, a file that includes itself twice (2^16 reads through 16
 * levels), or a glob that takes in every file two levels below `..`
 * (`.*` matches `..`: 1,000 files of up to 1 MiB each, 7 s of reading
 * under the fuzzer's sanitizers) cannot hang the scan; nor can a glob
 * that lists a whole file system: glob(3) of five levels of `*` below /
 * walks much of /proc and /sys (80 s under the sanitizers), so the globs
 * of one reading may make at most 10,000 directory reads and stats in
 * all, past which they find no more names (those found still count).
 * All found by fuzz/fuzz_ldso_conf. A system's own ld.so.conf and
 * ld.so.conf.d come to about a kilobyte (947 bytes in 12 files here).
 */
#define LO_LDCONF_MAX_BYTES (1 << 20)
#define LO_LDCONF_MAX_FILES 1000
#define LO_LDCONF_MAX_GLOB_STEPS 10000

/* What the reading of one ld.so.conf has taken so far, of the bounds above. */
typedef struct conf_spent {
	size_t files, bytes, glob_steps;
} conf_spent;

/*
 * glob(3)'s directory functions (GLOB_ALTDIRFUNC), each call one step of
 * the reading's glob_steps. Its callbacks take no payload: the reading in
 * progress on this thread is found here.
 */
static _Thread_local conf_spent *globbing;

static bool glob_step(void)
{
	if (globbing->glob_steps >= LO_LDCONF_MAX_GLOB_STEPS) {
		errno = ENOENT;
		return false;
	}
	globbing->glob_steps++;
	return true;
}

static void *glob_opendir(const char *path) { return glob_step() ? opendir(path) : NULL; }
static struct dirent *glob_readdir(void *dir) { return glob_step() ? readdir(dir) : NULL; }
static void glob_closedir(void *dir) { closedir(dir); }
static int glob_lstat(const char *path, struct stat *st)
{
	return glob_step() ? lstat(path, st) : -1;
}

static int glob_stat(const char *path, struct stat *st)
{
	return glob_step() ? stat(path, st) : -1;
}

/*
 * glob(3) of an `include` pattern, under `root` when there is one: the
 * names it lists are those below root, and each file is then opened
 * inside it. (A directory symlink in the pattern is listed through as the
 * host resolves it; the open that follows never leaves the root.)
 */
static int glob_in_root(const lo_sysroot *root, const char *pattern, glob_t *g,
			conf_spent *spent)
{
	char *rooted = NULL;
	int rc;

	memset(g, 0, sizeof(*g));
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir;
	g->gl_closedir = glob_closedir;
	g->gl_lstat = glob_lstat;
	g->gl_stat = glob_stat;
	globbing = spent;
	if (root && pattern[0] == '/' &&
	    asprintf(&rooted, "%s%s", lo_sysroot_dir(root), pattern) < 0)
		abort();
	rc = glob(rooted ? rooted : pattern, GLOB_ALTDIRFUNC, NULL, g);
	globbing = NULL;
	free(rooted);
	return rc;
}

/* ld.so.conf: one directory per line, '#' comments, `include GLOB` lines. */
static void read_conf(char ***dirs, size_t *count, size_t *cap, const lo_sysroot *root,
		      const char *path, int depth, conf_spent *spent)
{
	FILE *f;
	char line[PATH_MAX + 16];
	struct stat st;
	off_t at = 0, was;
	int fd;

	if (depth > 16 || spent->files >= LO_LDCONF_MAX_FILES ||
	    spent->bytes >= LO_LDCONF_MAX_BYTES)
		return;
	spent->files++;
	/* O_NONBLOCK: opening a FIFO, or reading /proc/kmsg, would block. */
	fd = lo_sysroot_open(root, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	lo_deps_note_path(path); /* an ld.so.conf edited: deps.h */
	if (fd < 0)
		return;
	/* a file of no size holds no line; /proc's report none, whatever they read as */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	/* counted by where the stream is, not by the line's strlen: a NUL ends that early */
	while (at < LO_LDCONF_MAX_BYTES && fgets(line, sizeof(line), f)) {
		char *s = line, *end;

		was = at;
		if ((at = ftello(f)) < was)
			break;
		spent->bytes += (size_t)(at - was);
		if ((end = strchr(s, '#')))
			*end = '\0';
		s += strspn(s, " \t");
		end = s + strlen(s);
		while (end > s && strchr(" \t\r\n", end[-1]))
			*--end = '\0';
		if (!*s)
			continue;
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			size_t i;

			s += 8 + strspn(s + 8, " \t");
			if (glob_in_root(root, s, &g, spent) == 0)
				for (i = 0; i < g.gl_pathc; i++)
					read_conf(dirs, count, cap, root,
						  g.gl_pathv[i] + (root ? strlen(lo_sysroot_dir(root)) : 0),
						  depth + 1, spent);
			globfree(&g);
		} else if (*s == '/') {
			lo_strv_add_unique(dirs, count, cap, s);
		}
	}
	fclose(f);
}

void lo_ldconfig_read_conf(char ***dirs, size_t *count, const lo_sysroot *root, const char *path)
{
	size_t cap = *count;
	conf_spent spent = { 0, 0, 0 };

	read_conf(dirs, count, &cap, root, path, 0, &spent);
}
