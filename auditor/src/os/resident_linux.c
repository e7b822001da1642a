/*
 * resident_linux.c - the process's resident memory (os.h), Linux's body:
 * /proc/self/statm, whose third number counts the file pages apart.
 * resident_posix.c serves every other system.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "leftover/os.h"

/* Kept open: one pread a look, about a microsecond (resolve_int.h counts the looks). */
int lo_os_resident_open(void) { return open("/proc/self/statm", O_RDONLY | O_CLOEXEC); }

void lo_os_resident_close(int handle)
{
	if (handle >= 0)
		close(handle);
}

bool lo_os_resident(int handle, size_t *anon, size_t *file)
{
	char buf[128];
	unsigned long long size, pages, shared;
	ssize_t len = pread(handle, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		return false;
	buf[len] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &size, &pages, &shared) != 3 || shared > pages)
		return false;
	*anon = (size_t)(pages - shared) * (size_t)sysconf(_SC_PAGESIZE);
	*file = (size_t)shared * (size_t)sysconf(_SC_PAGESIZE);
	return true;
}
