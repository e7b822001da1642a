/*
 * resident_posix.c - the process's resident memory (os.h) where the
 * system does not tell it apart from file pages, which the resolver's
 * budget weighs apart: plain POSIX has no call for it, and Windows tells a
 * working set (GetProcessMemoryInfo) but not how much of it is file pages.
 * No handle, so the resolver keeps no budget. Linux: resident_linux.c.
 */
#include <stdbool.h>
#include <stddef.h>

#include "leftover/os.h"

int lo_os_resident_open(void) { return -1; }
void lo_os_resident_close(int handle) { (void)handle; }

bool lo_os_resident(int handle, size_t *anon, size_t *file)
{
	(void)handle;
	*anon = *file = 0;
	return false;
}
