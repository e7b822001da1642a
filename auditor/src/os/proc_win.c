/*
 * proc_win.c - the process-wide calls of os.h and lock.h on Windows, and
 * the process's POSIX calls of os/posix_win.h: its program and its
 * arguments, pipes, read-only file mappings, the system's numbers, signals.
 */
#include <windows.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/lock.h"
#include "leftover/os.h"

char *lo_os_self_exe(void)
{
	wchar_t buf[32768];
	DWORD n = GetModuleFileNameW(NULL, buf, 32768);
	char *s, *c;

	/* a path of 32767 units is cut, and GetModuleFileNameW says so only by its length */
	if (n == 0 || n >= 32768)
		return NULL;
	s = lo_win_utf8(buf);
	for (c = s; *c; c++)
		if (*c == '\\')
			*c = '/';
	return s;
}

void lo_os_args(int *argc, char ***argv)
{
	int n, i;
	wchar_t **wide = CommandLineToArgvW(GetCommandLineW(), &n);
	char **utf8;

	/* without it, the C runtime's own reading stands: ASCII names still work */
	if (!wide)
		return;
	utf8 = lo_xcalloc((size_t)n + 1, sizeof(*utf8));
	for (i = 0; i < n; i++)
		utf8[i] = lo_win_utf8(wide[i]);
	LocalFree(wide);
	*argc = n;
	*argv = utf8;
}

/* GetModuleFileNameW names the program whatever argv[0] says */
void lo_os_set_argv0(const char *argv0) { (void)argv0; }

int lo_os_pipe(int fds[2])
{
	/* not inherited: leftover.exe starts no program, and none should get them */
	return _pipe(fds, 65536, _O_BINARY | _O_NOINHERIT);
}

/* The C runtime's heap has no threshold to tune; _heapmin gives its free blocks back. */
void lo_os_heap_tune(size_t threshold) { (void)threshold; }
void lo_os_heap_trim(void) { _heapmin(); }

/* No hint for a mapped file's pages: Windows drops them when memory is short. */
void lo_os_drop_pages(const lo_os_span *spans, size_t n)
{
	(void)spans;
	(void)n;
}

void lo_lock_init(pthread_mutex_t *m) { pthread_mutex_init(m, NULL); }

/* ---- posix_win.h ------------------------------------------------------------------------ */

/* A read-only private view of a file: what fmap.c and ldconfig.c map. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	intptr_t h = _get_osfhandle(fd);
	HANDLE mapping;
	void *view;

	if (prot != PROT_READ || !(flags & MAP_PRIVATE) || (flags & (MAP_ANONYMOUS | MAP_FIXED))) {
		errno = ENOTSUP;
		return MAP_FAILED;
	}
	if (h == -1) {
		errno = EBADF;
		return MAP_FAILED;
	}
	if (len == 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (!(mapping = CreateFileMappingW((HANDLE)h, NULL, PAGE_READONLY, 0, 0, NULL))) {
		errno = lo_win_errno(GetLastError());
		return MAP_FAILED;
	}
	view = MapViewOfFile(mapping, FILE_MAP_READ, (DWORD)((uint64_t)offset >> 32),
			     (DWORD)((uint64_t)offset & 0xffffffff), len);
	if (!view)
		errno = lo_win_errno(GetLastError());
	/* the view holds the mapping open until it is unmapped */
	CloseHandle(mapping);
	return view ? view : MAP_FAILED;
}

int munmap(void *addr, size_t len)
{
	(void)len;
	if (UnmapViewOfFile(addr))
		return 0;
	errno = EINVAL;
	return -1;
}

long lo_win_sysconf(int name)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	switch (name) {
	case _SC_PAGESIZE:
		/* what a mapping's offset must be a multiple of: 64 KiB, not the 4 KiB page */
		return (long)si.dwAllocationGranularity;
	case _SC_NPROCESSORS_ONLN:
		return (long)si.dwNumberOfProcessors;
	default:
		errno = EINVAL;
		return -1;
	}
}

/*
 * SIGINT (Ctrl-C) and SIGTERM through the C runtime's signal(). SIGBUS
 * never comes: Windows refuses to truncate a file while a view of it is
 * mapped (ERROR_USER_MAPPED_FILE), which is what fmap.c's handler is for.
 */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	void (*was)(int) = SIG_DFL;

	if (sig == SIGBUS) {
		if (old)
			memset(old, 0, sizeof(*old));
		return 0;
	}
	if (act && (was = signal(sig, act->sa_handler)) == SIG_ERR)
		return -1;
	if (old) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = was;
	}
	return 0;
}
