/*
 * lock.c - the lock of a file (lock.h); the shared mutexes are made by the
 * process's body of the OS layer (proc_linux.c, proc_posix.c).
 */
#include <errno.h>
#include <sys/file.h>

#include "leftover/lock.h"

int lo_lock_file(int fd, bool wait)
{
	/* flock: Linux, macOS and the BSDs have it, and it is not lost when another descriptor closes */
	return flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0 ? -1 : 0;
}
