/*
 * sysdll_win.c - Windows' directory of system DLLs (os.h): the one its
 * loader takes them from, System32, or SysWOW64 for a 32-bit process on a
 * 64-bit Windows. Under Wine it is the prefix's, holding Wine's PE DLLs.
 */
#include <windows.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "leftover/os.h"

static char *dirs[2]; /* System32, SysWOW64; owned until exit */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A directory from one of the calls below, UTF-8 with '/' as leftover writes paths; or NULL. */
static char *read_dir(UINT (WINAPI *call)(LPWSTR, UINT))
{
	wchar_t buf[MAX_PATH + 1];
	UINT n = call(buf, MAX_PATH + 1);
	char *s, *c;

	/* 0: none (a 32-bit Windows has no SysWOW64); more than the buffer: not a directory here */
	if (n == 0 || n > MAX_PATH)
		return NULL;
	s = lo_win_utf8(buf);
	for (c = s; *c; c++)
		if (*c == '\\')
			*c = '/';
	return s;
}

static void read_dirs(void)
{
	dirs[0] = read_dir(GetSystemDirectoryW);
	dirs[1] = read_dir(GetSystemWow64DirectoryW);
}

const char *lo_os_system_dll_dir(bool wow64)
{
	pthread_once(&once, read_dirs);
	return wow64 && dirs[1] ? dirs[1] : dirs[0];
}
