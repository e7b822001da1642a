/*
 * sysroot.c - opening paths as if another directory were `/` (sysroot.h).
 *
 * openat2(2)'s RESOLVE_IN_ROOT (Linux 5.6) does what chroot(2) would for
 * one lookup, without privileges and without leaving the process rooted
 * elsewhere; glibc 2.36 has no wrapper, hence the syscall.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/sysroot.h"

struct lo_sysroot {
	int fd;    /* O_PATH descriptor of the root directory */
	char *dir; /* its absolute path; owned */
};

int lo_sysroot_new(lo_sysroot **out, const char *dir)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	char *real = realpath(dir, NULL);
	lo_sysroot *root;
	int fd, probe;

	*out = NULL;
	if (!real)
		return lo_error_set_errno(LO_EUSAGE, errno, "--sysroot '%s'", dir);
	if ((fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		int err = lo_error_set_errno(LO_EUSAGE, errno, "--sysroot '%s'", dir);

		free(real);
		return err;
	}
	/* the kernel must resolve inside the root, or nothing is read at all */
	probe = (int)syscall(SYS_openat2, fd, "/", &how, sizeof(how));
	if (probe < 0) {
		int err = lo_error_set_errno(LO_EUSAGE, errno,
					     "--sysroot '%s' needs openat2 with RESOLVE_IN_ROOT "
					     "(Linux 5.6 or later, allowed by the seccomp policy)", dir);

		close(fd);
		free(real);
		return err;
	}
	close(probe);
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
	struct open_how how = { .flags = (unsigned)flags, .resolve = RESOLVE_IN_ROOT };
	int fd, tries = 0;

	if (!root)
		return open(path, flags);
	/* EAGAIN: a rename under the root raced the lookup, and the kernel asks to try again */
	do
		fd = (int)syscall(SYS_openat2, root->fd, path, &how, sizeof(how));
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 8);
	return fd;
}
