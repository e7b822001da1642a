/*
 * sysroot.c - opening paths as if another directory were `/` (sysroot.h);
 * the lookup itself is the system's body's (sysroot_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/sysroot.h"
#include "os/sysroot_int.h"

struct lo_sysroot {
	int fd;    /* the root directory, opened as a path only (lo_os_open_path) */
	char *dir; /* its absolute path; owned */
};

int lo_sysroot_new(lo_sysroot **out, const char *dir)
{
	char *real = realpath(dir, NULL);
	lo_sysroot *root;
	int fd, err;

	*out = NULL;
	if (!real)
		return lo_error_set_errno(LO_EUSAGE, errno, "--sysroot '%s'", dir);
	if ((fd = open(real, lo_os_open_path | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err = lo_error_set_errno(LO_EUSAGE, errno, "--sysroot '%s'", dir);
		free(real);
		return err;
	}
	/* the lookup must stay inside the root, or nothing is read at all */
	if ((err = lo_sysroot_probe(fd, dir)) < 0) {
		close(fd);
		free(real);
		return err;
	}
	root = lo_xcalloc(1, sizeof(*root));
	root->fd = fd;
	root->dir = real;
	*out = root;
	return 0;
}

void lo_sysroot_free(lo_sysroot *root)
{
	if (!root)
		return;
	close(root->fd);
	free(root->dir);
	free(root);
}

const char *lo_sysroot_dir(const lo_sysroot *root)
{
	return root->dir;
}

int lo_sysroot_open(const lo_sysroot *root, const char *path, int flags)
{
	return root ? lo_sysroot_openat(root->fd, path, flags) : open(path, flags);
}
