/*
 * winload_probe.c - Windows' loader's own answer (under Wine) on PE modules,
 * the truth tests/e2e/test_windows.py holds leftover against.
 *
 *   winload_probe.exe [-d DIR]... [-p DLL]... [--plain] PATH...
 *
 * Built with MinGW-w64; copied in as a tree's python.exe, its directory is
 * the application directory. -p loads a DLL first, as python.exe holds its
 * python3XY.dll; -d adds a directory as os.add_dll_directory does. Each
 * PATH (a Unix path, Wine's Z: drive) is loaded as CPython loads an
 * extension module, LoadLibraryExW with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR (or LoadLibraryW with --plain), and one
 * line is printed per PATH, after "winload: " (a DLL's own start-up may
 * print too):
 *   ok               loaded, every import bound
 *   error N          the load failed with GetLastError() N (126, 193, ...)
 *   127 DLL!NAME     loaded, but an import was left unbound: where Windows
 *                    fails with 127, Wine binds a stub and only warns, so
 *                    the import address tables of every module loaded from
 *                    outside the system directory are walked for addresses
 *                    that lie in no module.
 */
#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static wchar_t *winpath(const char *unix)
{
	static wchar_t buf[4096];
	int i, n = swprintf(buf, 4096, L"Z:");

	for (i = 0; unix[i] && n < 4095; i++)
		buf[n++] = unix[i] == '/' ? L'\\' : (wchar_t)(unsigned char)unix[i];
	buf[n] = 0;
	return buf;
}

/* The first import of module m bound to an address in no module, as "DLL!NAME"; 0 when none. */
static int unbound(HMODULE m, char *out, size_t n)
{
	BYTE *base = (BYTE *)m;
	IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)(base + ((IMAGE_DOS_HEADER *)base)->e_lfanew);
	IMAGE_DATA_DIRECTORY *dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
	IMAGE_IMPORT_DESCRIPTOR *d;

	if (!dir->VirtualAddress)
		return 0;
	for (d = (IMAGE_IMPORT_DESCRIPTOR *)(base + dir->VirtualAddress); d->Name; d++) {
		IMAGE_THUNK_DATA *names = (IMAGE_THUNK_DATA *)(base + (d->OriginalFirstThunk
								       ? d->OriginalFirstThunk
								       : d->FirstThunk));
		IMAGE_THUNK_DATA *iat = (IMAGE_THUNK_DATA *)(base + d->FirstThunk);

		for (; names->u1.AddressOfData; names++, iat++) {
			HMODULE owner;

			if (GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
						       GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
					       (LPCWSTR)(ULONG_PTR)iat->u1.Function, &owner))
				continue;
			if (IMAGE_SNAP_BY_ORDINAL(names->u1.Ordinal))
				snprintf(out, n, "%s!#%u", (char *)(base + d->Name),
					 (unsigned)IMAGE_ORDINAL(names->u1.Ordinal));
			else
				snprintf(out, n, "%s!%s", (char *)(base + d->Name),
					 ((IMAGE_IMPORT_BY_NAME *)(base + names->u1.AddressOfData))->Name);
			return 1;
		}
	}
	return 0;
}

/* An unbound import in any module loaded from outside the system directory. */
static int any_unbound(char *out, size_t n)
{
	HMODULE mods[1024];
	DWORD need, i;
	wchar_t sys[MAX_PATH], path[MAX_PATH];
	UINT sl = GetSystemDirectoryW(sys, MAX_PATH);

	if (!EnumProcessModules(GetCurrentProcess(), mods, sizeof(mods), &need))
		return 0;
	for (i = 0; i < need / sizeof(HMODULE) && i < 1024; i++) {
		if (!GetModuleFileNameW(mods[i], path, MAX_PATH) || !_wcsnicmp(path, sys, sl))
			continue;
		if (mods[i] != GetModuleHandleW(NULL) && unbound(mods[i], out, n))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, plain = 0;
	char what[512];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			AddDllDirectory(winpath(argv[++i]));
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			i++;
			if (!LoadLibraryA(argv[i]))
				printf("winload: preload %s: error %lu\n", argv[i], GetLastError());
		} else if (!strcmp(argv[i], "--plain")) {
			plain = 1;
		} else {
			HMODULE m = plain ? LoadLibraryW(winpath(argv[i]))
					  : LoadLibraryExW(winpath(argv[i]), NULL,
							   LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
								   LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR);

			if (!m)
				printf("winload: error %lu\n", GetLastError());
			else if (any_unbound(what, sizeof(what)))
				printf("winload: 127 %s\n", what);
			else
				printf("winload: ok\n");
			if (m)
				FreeLibrary(m);
			fflush(stdout);
		}
	}
	return 0;
}
