/*
 * sysroot_linux.c - paths opened inside a root by the kernel (sysroot_int.h).
 *
 * openat2(2)'s RESOLVE_IN_ROOT (Linux 5.6) does what chroot(2) would for
 * one lookup, without privileges and without leaving the process rooted
 * elsewhere; glibc 2.36 has no wrapper, hence the syscall.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "leftover/error.h"
#include "os/sysroot_int.h"

int lo_sysroot_probe(int rootfd, const char *dir)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	int probe = (int)syscall(SYS_openat2, rootfd, "/", &how, sizeof(how));

	if (probe < 0)
		return lo_error_set_errno(LO_EUSAGE, errno,
					  "--sysroot '%s' needs openat2 with RESOLVE_IN_ROOT "
					  "(Linux 5.6 or later, allowed by the seccomp policy)", dir);
	close(probe);
	return 0;
}

int lo_sysroot_openat(int rootfd, const char *path, int flags)
{
	struct open_how how = { .flags = (unsigned)flags, .resolve = RESOLVE_IN_ROOT };
	int fd, tries = 0;

	/* EAGAIN: a rename under the root raced the lookup, and the kernel asks to try again */
	do
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 8);
	return fd;
}
