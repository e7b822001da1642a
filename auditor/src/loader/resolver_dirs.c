/*
 * resolver_dirs.c - what the resolver's cache knows of directories
 * (resolve_int.h): the inode each spelling of one names, which keys the
 * files in it, and the glibc-hwcaps subdirectories it holds. Every
 * directory of every search asks, so the answers have a lock of their
 * own and the directories are looked at outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/os.h"
#include "loader/resolve_int.h"

/*
 * The by_inode key of a file: its device and inode in fixed-width hex, by
 * hand (snprintf, for every path a search opened, was 1 % of a scan's
 * instructions at bench scale 1).
 */
void lo_resolver_inode_key(char key[LO_INODE_KEY_SIZE], dev_t dev, ino_t ino)
{
	static const char hex[] = "0123456789abcdef";
	unsigned long long d = dev, i = ino;
	int k;

	for (k = 15; k >= 0; k--, d >>= 4, i >>= 4) {
		key[k] = hex[d & 15];
		key[17 + k] = hex[i & 15];
	}
	key[16] = ':';
	key[33] = '\0';
}

/* A directory as lo_resolver_path_key saw it: its inode, or why nothing in it opens. */
typedef struct dir_id {
	dev_t dev;
	ino_t ino;
	int errnum; /* 0, or the errno of any path through it */
} dir_id;

/* What directory `dir` is, looked at once per spelling, outside the resolver's lock. */
static dir_id dir_of(lo_resolver *r, const char *dir)
{
	dir_id *seen, id = { 0, 0, 0 };
	struct stat st;
	int rc, fd = -1, tries = 0;

	pthread_mutex_lock(&r->dir_lock);
	seen = lo_map_get(r->by_dir, dir, NULL);
	if (seen)
		id = *seen;
	pthread_mutex_unlock(&r->dir_lock);
	/*
	 * None there: nothing in it is opened, so its absence is what this
	 * verdict too was drawn from (deps.h). One that is there is not: each
	 * path opened in it is noted.
	 */
	if (seen && id.errnum && !r->root)
		lo_deps_note_again(dir, false);
	if (seen)
		return id;
	do {
		if (r->root) {
			fd = lo_resolver_open_fd(r, dir, lo_os_open_path | O_CLOEXEC);
			rc = fd < 0 ? -1 : fstat(fd, &st);
			if (fd >= 0)
				close(fd);
		} else {
			rc = stat(dir, &st);
		}
	} while (rc < 0 && errno == EINTR && ++tries < 64);
	if (!r->root) /* a path under --sysroot is no path here: no cache there (deps.h) */
		lo_deps_note_read(dir, rc < 0 ? NULL : &st);
	if (rc < 0)
		id.errnum = errno;
	else if (!S_ISDIR(st.st_mode))
		id.errnum = ENOTDIR;
	else
		id.dev = st.st_dev, id.ino = st.st_ino;
	seen = lo_xmalloc(sizeof(*seen));
	*seen = id;
	pthread_mutex_lock(&r->dir_lock);
	/* two threads may both have looked: they saw the same */
	if (lo_map_get(r->by_dir, dir, NULL))
		free(seen);
	else
		lo_map_put(r->by_dir, dir, seen);
	pthread_mutex_unlock(&r->dir_lock);
	return id;
}

/*
 * The by_path key of `path`: its directory's inode and its last name
 * ("dev:ino/libX.so.18"), which is what open(2) finds: the directory
 * resolved (symlinks, "..") and the name looked up in it. Every package's
 * $ORIGIN/../../lib/libX.so.18 is then one entry and one file opened,
 * where each spelling was an entry and a stat of its own: 18,000 entries
 * at bench scale 4 for 3,400 objects, 2,500 stats at scale 1 where 216
 * directories are looked at now. False, with *errnum, when the directory
 * fails: the path fails as open would, with its errno. A path without a
 * directory or a name keys as itself.
 */
bool lo_resolver_path_key(lo_resolver *r, const char *path, char key[LO_PATH_KEY_SIZE], int *errnum)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) : 0, name_len;
	char dir[PATH_MAX];
	dir_id id;

	if (!slash || !slash[1] || (name_len = strlen(slash + 1)) > NAME_MAX ||
	    dir_len >= sizeof(dir)) {
		if (strlen(path) >= LO_PATH_KEY_SIZE - 1) {
			*errnum = ENAMETOOLONG;
			return false;
		}
		key[0] = '=';
		strcpy(key + 1, path);
		return true;
	}
	memcpy(dir, path, dir_len ? dir_len : 1); /* "/libc.so.6": the root */
	dir[dir_len ? dir_len : 1] = '\0';
	id = dir_of(r, dir);
	if (id.errnum) {
		*errnum = id.errnum;
		return false;
	}
	lo_resolver_inode_key(key, id.dev, id.ino);
	key[LO_INODE_KEY_SIZE - 1] = '/';
	memcpy(key + LO_INODE_KEY_SIZE, slash + 1, name_len + 1);
	return true;
}

/* Marks a stored answer of lo_resolver_hwcaps_in, so that "none" is not a NULL value. */
#define HWCAPS_SEEN (1u << LO_TARGET_HWCAPS_MAX)

/*
 * Every directory of every search asks, so the answers have a lock of their
 * own, and the directories are looked at outside it (two threads may both
 * look at one; they see the same): under the resolver's lock, with the
 * system calls inside it, this was a sixth of a scan's waits for it
 * (perf, context switches, bench scale 4).
 */
unsigned lo_resolver_hwcaps_in(lo_resolver *r, const target_dirs *d, const char *dir)
{
	size_t t = (size_t)(d - r->targets), i;
	unsigned found = 0;
	lo_buf sub = LO_BUF_INIT;
	void *seen;

	if (!d->hwcap_count)
		return 0;
	pthread_mutex_lock(&r->dir_lock);
	if (!r->hwcap_dirs[t])
		r->hwcap_dirs[t] = lo_map_new();
	seen = lo_map_get(r->hwcap_dirs[t], dir, NULL);
	pthread_mutex_unlock(&r->dir_lock);
	if (seen)
		return (unsigned)(uintptr_t)seen & ~HWCAPS_SEEN;
	for (i = 0; i < d->hwcap_count; i++) {
		struct stat st;
		int fd;

		lo_buf_clear(&sub);
		lo_buf_printf(&sub, "%s%sglibc-hwcaps/%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			      d->hwcaps[i]);
		fd = lo_resolver_open_fd(r, lo_buf_cstr(&sub), lo_os_open_path | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			found |= 1u << i;
		if (fd >= 0)
			close(fd);
	}
	lo_buf_dispose(&sub);
	pthread_mutex_lock(&r->dir_lock);
	lo_map_put(r->hwcap_dirs[t], dir, (void *)(uintptr_t)(found | HWCAPS_SEEN));
	pthread_mutex_unlock(&r->dir_lock);
	return found;
}
