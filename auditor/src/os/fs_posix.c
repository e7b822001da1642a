/*
 * fs_posix.c - the file system calls of os.h and walk.h in plain POSIX:
 * directories read with fdopendir and readdir, renames that do not replace
 * made of link and unlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/os.h"
#include "leftover/walk.h"
#include "os/fs_int.h"

struct lo_dirstream {
	DIR *dir;        /* NULL when fdopendir failed: the stream is then empty, with errno */
	int fd, err;     /* the descriptor (closed with dir) and fdopendir's errno */
	lo_dirent entry; /* the one lo_dirstream_next returned last */
};

const int lo_os_open_path = O_RDONLY;
const bool lo_os_dir_stat_tracks_entries = true;

lo_dirstream *lo_dirstream_new(int fd)
{
	lo_dirstream *d = lo_xcalloc(1, sizeof(*d));

	d->fd = fd;
	if (!(d->dir = fdopendir(fd)))
		d->err = errno;
	return d;
}

void lo_dirstream_free(lo_dirstream *d)
{
	if (!d)
		return;
	if (d->dir)
		closedir(d->dir);
	else
		close(d->fd);
	free(d);
}

int lo_dirstream_fd(const lo_dirstream *d) { return d->fd; }

const lo_dirent *lo_dirstream_next(lo_dirstream *d)
{
	const struct dirent *de;
	int tries = 0;

	if (!d->dir) {
		errno = d->err;
		return NULL;
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d->dir))) {
			if (errno == EINTR && ++tries < LO_OS_EINTR_TRIES)
				continue;
			return NULL;
		}
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	}
	/*
	 * d_type is not POSIX's, but every system this body is for (macOS, the
	 * BSDs, musl, glibc) has it; the walk stats where it says DT_UNKNOWN
	 */
	d->entry = (lo_dirent){ de->d_name, lo_fs_ftype(de->d_type) };
	return &d->entry;
}

/* Do the two names (not followed) lead to one file? */
static bool same_file(int dirfd, const char *name, int todirfd, const char *toname)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(todirfd, toname, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int lo_os_rename_noreplace(int dirfd, const char *name, int todirfd, const char *toname)
{
	struct stat st;
	int err;

	/* linkat without AT_SYMLINK_FOLLOW links a symlink itself, as a rename moves it */
	if (LO_RETRY(linkat(dirfd, name, todirfd, toname, 0)) == 0) {
		if (LO_RETRY(unlinkat(dirfd, name, 0)) == 0)
			return 0;
		/* the old name stays: take the new one back, so that the file is in one place */
		err = errno;
		LO_RETRY(unlinkat(todirfd, toname, 0));
		errno = err;
		return -1;
	}
	/*
	 * The new name is the file itself: a move killed between its link and
	 * its unlink (the one window this body has and renameat2 has not). The
	 * next move of it, a restore or a clean resumed, finishes that one.
	 */
	if (errno == EEXIST && same_file(dirfd, name, todirfd, toname))
		return (int)LO_RETRY(unlinkat(dirfd, name, 0));
	/*
	 * No hard link here: a file system without them (FAT, some FUSE), a
	 * file of another user under Linux's protected_hardlinks, or a full
	 * one where a link takes room a rename does not (tmpfs counts each
	 * link against its inodes). Check, then rename.
	 */
	if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EMLINK &&
	    errno != ENOSPC && errno != EDQUOT)
		return -1;
	if (LO_RETRY(fstatat(todirfd, toname, &st, AT_SYMLINK_NOFOLLOW)) == 0) {
		errno = EEXIST;
		return -1;
	}
	if (errno != ENOENT)
		return -1;
	return (int)LO_RETRY(renameat(dirfd, name, todirfd, toname));
}
