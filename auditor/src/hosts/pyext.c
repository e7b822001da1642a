/*
 * pyext.c - CPython extension modules by name and export (pyext.h).
 *
 * CPython's import looks for `name` + suffix for each of its
 * EXTENSION_SUFFIXES in turn, dlopen()s the first it finds and calls
 * PyInit_<name>: a file under any other name is never tried, and one
 * without the export fails after a load that succeeded.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/os.h"
#include "hosts/pyext.h"

static const char *base_of(const char *path)
{
	const char *slash = lo_os_path_last_separator(path);

	return slash ? slash + 1 : path;
}

bool lo_pyext_named(const char *path)
{
	const char *base = base_of(path);
	size_t n = strlen(base);

	if (n > 4 && !strcmp(base + n - 4, ".pyd"))
		return true;
	if (n > 8 && !strcmp(base + n - 8, ".abi3.so"))
		return true;
	return strstr(base, ".cpython-") != NULL && n > 3 && !strcmp(base + n - 3, ".so");
}

bool lo_pyext_exports_init(const lo_elf *e, const char *path)
{
	const char *base = base_of(path);
	size_t n = strcspn(base, ".");
	char sym[NAME_MAX + 8];

	if (n == 0 || n > NAME_MAX)
		return false;
	snprintf(sym, sizeof(sym), "PyInit_%.*s", (int)n, base);
	return lo_elf_exports(e, sym);
}

size_t lo_pyext_module_name(const char *base)
{
	size_t i, n = strcspn(base, ".");

	if (n > NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)base[i]) || base[i] == '_') ||
		    (i == 0 && isdigit((unsigned char)base[i])))
			return 0;
	return n;
}

char *lo_pyext_not_imported(const char *base, size_t n, const char *interpreter,
			    const char *const *suffixes)
{
	lo_buf why = LO_BUF_INIT;
	size_t i;

	if (!suffixes || !suffixes[0])
		return NULL;
	for (i = 0; suffixes[i]; i++)
		if (!strcmp(base + n, suffixes[i]))
			return NULL;
	lo_buf_printf(&why, "%s imports '%.*s' from %.*s%s", interpreter, (int)n, base, (int)n,
		      base, suffixes[0]);
	for (i = 1; suffixes[i]; i++)
		lo_buf_printf(&why, "%s%.*s%s", suffixes[i + 1] ? ", " : " or ", (int)n, base,
			      suffixes[i]);
	lo_buf_puts(&why, " only: it never loads this file");
	return lo_buf_detach(&why);
}

char *lo_pyext_init_missing(const lo_elf *e, const char *base, size_t n, char **sym)
{
	char *why = NULL;

	*sym = NULL;
	if (asprintf(sym, "PyInit_%.*s", (int)n, base) < 0)
		abort();
	if (lo_elf_exports(e, *sym)) {
		free(*sym);
		*sym = NULL;
		return NULL;
	}
	/* CPython's own words, as the ImportError says them */
	if (asprintf(&why, "dynamic module does not define module export function (%s)", *sym) < 0)
		abort();
	return why;
}
