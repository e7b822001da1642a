/*
 * path.c - path syntax (os.h): POSIX's and Windows', each call taking
 * which, so that both are compiled and tested on every system.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "leftover/os.h"

static bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

bool lo_os_path_is_absolute_in(lo_path_syntax syntax, const char *path)
{
	if (lo_os_path_is_separator_in(syntax, path[0]))
		return true; /* "/x"; on Windows also "\x", "\\server\share", "\\?\C:\x" */
	return syntax == LO_PATH_WINDOWS && is_letter(path[0]) && path[1] == ':' &&
	       lo_os_path_is_separator_in(syntax, path[2]);
}

char *lo_os_path_last_separator_in(lo_path_syntax syntax, const char *path)
{
	const char *p;

	if (syntax == LO_PATH_POSIX)
		return strrchr(path, '/');
	for (p = path + strlen(path); p > path;)
		if (lo_os_path_is_separator_in(syntax, *--p))
			return (char *)p; /* path's own constness, as strrchr */
	return NULL;
}

/* ASCII's upper case, whatever the locale says */
static unsigned char fold(unsigned char c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }

int lo_os_path_name_cmp_in(lo_path_syntax syntax, const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	if (syntax == LO_PATH_POSIX)
		return strcmp(a, b);
	for (; *x && fold(*x) == fold(*y); x++, y++)
		;
	return (int)fold(*x) - (int)fold(*y);
}
