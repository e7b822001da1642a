/*
 * winload_data.c - what Windows' loader knows without reading a file,
 * as tables (winload.h): the search orders, the API-set schema, the
 * KnownDLLs and where the system directory is found off Windows.
 *
 * Sources: Microsoft's "Dynamic-link library search order" (the standard
 * order with SafeDllSearchMode, and the LOAD_LIBRARY_SEARCH_* flags),
 * CPython's Python/dynload_win.c (its LoadLibraryExW flags since 3.8),
 * "Windows API sets" (the contract names and their host DLLs), the
 * KnownDLLs key of a Windows 10 system, and Wine's dlls/ntdll/loader.c,
 * which resolves the same names the same way.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "leftover/os.h"
#include "leftover/pe.h"
#include "leftover/winload.h"
#include "loader/winload_int.h"

const lo_win_search_step lo_win_search_cpython[] = {
	LO_WIN_SEARCH_LOAD_DIR, LO_WIN_SEARCH_APP_DIR, LO_WIN_SEARCH_USER_DIRS,
	LO_WIN_SEARCH_SYSTEM, LO_WIN_SEARCH_END,
};

const lo_win_search_step lo_win_search_plain[] = {
	LO_WIN_SEARCH_APP_DIR, LO_WIN_SEARCH_SYSTEM, LO_WIN_SEARCH_PATH, LO_WIN_SEARCH_END,
};

/*
 * API-set contracts by prefix (the name up to its "-lN-N-N" version),
 * longest first where one prefixes another: the schema maps each
 * contract to one host; the families below share theirs.
 */
static const struct {
	const char *prefix, *host;
} api_sets[] = {
	{ "api-ms-win-crt-", "ucrtbase.dll" },
	{ "api-ms-win-core-rtlsupport-", "ntdll.dll" },
	{ "api-ms-win-core-winrt-", "combase.dll" },
	{ "api-ms-win-core-com-", "combase.dll" },
	{ "api-ms-win-core-", "kernelbase.dll" },
	{ "api-ms-win-security-base-", "kernelbase.dll" },
	{ "api-ms-win-security-sddl-", "sechost.dll" },
	{ "api-ms-win-eventing-", "sechost.dll" },
	{ "api-ms-win-service-", "sechost.dll" },
	{ "api-ms-win-shcore-", "shcore.dll" },
	{ "api-ms-win-downlevel-shlwapi-", "shlwapi.dll" },
	{ "api-ms-win-downlevel-advapi32-", "advapi32.dll" },
	{ "api-ms-win-downlevel-user32-", "user32.dll" },
	{ "ext-ms-win-gdi-", "gdi32.dll" },
	{ "ext-ms-win-ntuser-", "user32.dll" },
};

/* HKLM\System\CurrentControlSet\Control\Session Manager\KnownDLLs, lower case. */
static const char *const known_dlls[] = {
	"advapi32.dll", "clbcatq.dll", "combase.dll", "comdlg32.dll", "coml2.dll", "gdi32.dll",
	"gdiplus.dll", "imagehlp.dll", "imm32.dll", "kernel32.dll", "kernelbase.dll", "msctf.dll",
	"msvcrt.dll", "normaliz.dll", "nsi.dll", "ntdll.dll", "ole32.dll", "oleaut32.dll",
	"psapi.dll", "rpcrt4.dll", "sechost.dll", "setupapi.dll", "shcore.dll", "shell32.dll",
	"shlwapi.dll", "user32.dll", "wldap32.dll", "ws2_32.dll",
};

/* Where Wine's PE DLLs, which carry Windows' export names, stand in for System32. */
static const struct {
	uint16_t machine;
	const char *dirs[3];
} system_dirs[] = {
	{ LO_PE_MACHINE_AMD64, { "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
				 "/usr/lib/wine/x86_64-windows", NULL } },
	{ LO_PE_MACHINE_I386, { "/usr/lib/x86_64-linux-gnu/wine/i386-windows",
				"/usr/lib/i386-linux-gnu/wine/i386-windows", "/usr/lib/wine/i386-windows" } },
	{ LO_PE_MACHINE_ARM64, { "/usr/lib/aarch64-linux-gnu/wine/aarch64-windows",
				 "/usr/lib/wine/aarch64-windows", NULL } },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *lo_winload_api_set_host(const char *name)
{
	size_t i;

	if (strncasecmp(name, "api-", 4) && strncasecmp(name, "ext-", 4))
		return NULL;
	for (i = 0; i < COUNT(api_sets); i++)
		if (!strncasecmp(name, api_sets[i].prefix, strlen(api_sets[i].prefix)))
			return api_sets[i].host;
	return NULL;
}

bool lo_winload_known_dll(const char *name)
{
	size_t i;

	for (i = 0; i < COUNT(known_dlls); i++)
		if (!lo_os_path_name_cmp_in(LO_PATH_WINDOWS, name, known_dlls[i]))
			return true;
	return false;
}

const char *lo_winload_system_dir(uint16_t machine, bool *stand_in)
{
	const char *own = lo_os_system_dll_dir(machine == LO_PE_MACHINE_I386);
	struct stat st;
	size_t i, j;

	*stand_in = !own;
	if (own)
		return own;
	for (i = 0; i < COUNT(system_dirs); i++) {
		if (system_dirs[i].machine != machine)
			continue;
		for (j = 0; j < COUNT(system_dirs[i].dirs) && system_dirs[i].dirs[j]; j++)
			if (!stat(system_dirs[i].dirs[j], &st) && S_ISDIR(st.st_mode))
				return system_dirs[i].dirs[j];
	}
	return NULL;
}
