/*
 * holdopen.c - a Windows process that holds a file open, and the move
 * Windows refuses while it does (tests/e2e/test_windows_exe.py).
 *
 *   holdopen.exe hold PATH      open PATH for reading, sharing reading only
 *                               (FILE_SHARE_READ: no delete, so no rename),
 *                               print "held", keep it open until standard
 *                               input ends, then print "released"
 *   holdopen.exe move FROM TO   MoveFileExW(FROM, TO, 0), as leftover.exe's
 *                               quarantine moves a file: print "moved" or
 *                               "error N" (GetLastError(); 32 is
 *                               ERROR_SHARING_VIOLATION)
 *
 * Paths are Windows paths (Z:\...). Built with MinGW-w64 -municode.
 */
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

static int hold(const wchar_t *path)
{
	HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	char line[64];

	if (h == INVALID_HANDLE_VALUE) {
		printf("error %lu\n", GetLastError());
		return 1;
	}
	puts("held");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	CloseHandle(h);
	puts("released");
	return 0;
}

int wmain(int argc, wchar_t **argv)
{
	if (argc == 3 && !wcscmp(argv[1], L"hold"))
		return hold(argv[2]);
	if (argc == 4 && !wcscmp(argv[1], L"move")) {
		if (MoveFileExW(argv[2], argv[3], 0)) {
			puts("moved");
			return 0;
		}
		printf("error %lu\n", GetLastError());
		return 1;
	}
	fputs("usage: holdopen.exe hold PATH | move FROM TO\n", stderr);
	return 2;
}
