/*
 * sysdll.c - Windows' directory of system DLLs (os.h) where there is no
 * Windows: none; the loader model stands Wine's PE DLLs in for it.
 * os/sysdll_win.c is Windows' body.
 */
#include <stdbool.h>
#include <stddef.h>

#include "leftover/os.h"

const char *lo_os_system_dll_dir(bool wow64)
{
	(void)wow64;
	return NULL;
}
