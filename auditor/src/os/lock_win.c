/*
 * lock_win.c - the lock of a file (lock.h) on Windows; the shared mutexes
 * are made by os/proc_win.c.
 */
#include <windows.h>

#include <errno.h>

#include "leftover/lock.h"

int lo_lock_file(int fd, bool wait)
{
	intptr_t h = _get_osfhandle(fd);
	OVERLAPPED ov = { 0 };
	DWORD code;

	if (h == -1) {
		errno = EBADF;
		return -1;
	}
	/* the whole file and beyond: LockFileEx locks byte ranges */
	if (LockFileEx((HANDLE)h, LOCKFILE_EXCLUSIVE_LOCK | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY), 0,
		       MAXDWORD, MAXDWORD, &ov))
		return 0;
	code = GetLastError();
	errno = code == ERROR_LOCK_VIOLATION ? EWOULDBLOCK : lo_win_errno(code);
	return -1;
}
