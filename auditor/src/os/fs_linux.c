/*
 * fs_linux.c - the file system calls of os.h and walk.h, Linux's body:
 * directories read with getdents64, renames with renameat2, paths opened
 * with O_PATH.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/os.h"
#include "leftover/walk.h"
#include "os/fs_int.h"

struct lo_dirstream {
	int fd;
	size_t pos, end; /* the next entry in buf, and the end of what was read */
	lo_dirent entry; /* the one lo_dirstream_next returned last */
	_Alignas(struct dirent64) char buf[32768];
};

const int lo_os_open_path = O_PATH;
const bool lo_os_dir_stat_tracks_entries = true;

lo_dirstream *lo_dirstream_new(int fd)
{
	lo_dirstream *d = lo_xmalloc(sizeof(*d));

	d->fd = fd;
	d->pos = d->end = 0;
	return d;
}

void lo_dirstream_free(lo_dirstream *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d);
}

int lo_dirstream_fd(const lo_dirstream *d) { return d->fd; }

const lo_dirent *lo_dirstream_next(lo_dirstream *d)
{
	const struct dirent64 *de;

	do {
		if (d->pos >= d->end) {
			ssize_t n;
			int tries = 0;

			do
				n = getdents64(d->fd, d->buf, sizeof(d->buf));
			while (n < 0 && errno == EINTR && ++tries < LO_OS_EINTR_TRIES);
			if (n <= 0) {
				if (n == 0)
					errno = 0;
				return NULL;
			}
			d->pos = 0;
			d->end = (size_t)n;
		}
		de = (const struct dirent64 *)(d->buf + d->pos);
		d->pos += de->d_reclen;
	} while (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."));
	d->entry = (lo_dirent){ de->d_name, lo_fs_ftype(de->d_type) };
	return &d->entry;
}

int lo_os_rename_noreplace(int dirfd, const char *name, int todirfd, const char *toname)
{
	return (int)LO_RETRY(renameat2(dirfd, name, todirfd, toname, RENAME_NOREPLACE));
}
