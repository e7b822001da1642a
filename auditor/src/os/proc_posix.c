/*
 * proc_posix.c - the process-wide calls of os.h and lock.h in plain POSIX,
 * where a process names its own program only through its argv[0] (macOS
 * through dyld). Its resident memory: resident_posix.c.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

#include "leftover/buf.h"
#include "leftover/lock.h"
#include "leftover/os.h"

/* argv[0] resolved at start (lo_os_set_argv0), or NULL */
static char *self;

/*
 * The program `name` (without a '/') the way a shell's execvp finds it:
 * the first PATH directory holding an executable regular file of that
 * name, an empty entry meaning the working directory. NULL when none
 * does, or when there is no PATH (the shell's default is its own).
 */
static char *search_path(const char *name)
{
	const char *p = getenv("PATH"), *end;
	lo_buf b = LO_BUF_INIT;
	char *found = NULL;
	struct stat st;

	for (; p && !found; p = *end ? end + 1 : NULL) {
		end = p + strcspn(p, lo_os_path_list_separator());
		lo_buf_clear(&b);
		if (end == p)
			lo_buf_putc(&b, '.');
		else
			lo_buf_add(&b, p, (size_t)(end - p));
		lo_buf_putc(&b, '/');
		lo_buf_puts(&b, name);
		if (stat(lo_buf_cstr(&b), &st) == 0 && S_ISREG(st.st_mode) &&
		    access(lo_buf_cstr(&b), X_OK) == 0)
			found = realpath(lo_buf_cstr(&b), NULL);
	}
	lo_buf_dispose(&b);
	return found;
}

void lo_os_set_argv0(const char *argv0)
{
	if (!argv0 || !*argv0)
		return;
	free(self);
	self = strchr(argv0, '/') ? realpath(argv0, NULL) : search_path(argv0);
}

#ifdef __APPLE__
/* dyld's record of the program's path, which may hold symlinks and "..": resolved */
static char *dyld_exe(void)
{
	uint32_t size = 0;
	char *path, *real;

	_NSGetExecutablePath(NULL, &size); /* -1, and the size it needs */
	path = lo_xmalloc(size + 1);
	if (_NSGetExecutablePath(path, &size) != 0) {
		free(path);
		return NULL;
	}
	real = realpath(path, NULL);
	free(path);
	return real;
}
#endif

char *lo_os_self_exe(void)
{
#ifdef __APPLE__
	char *exe = dyld_exe();

	if (exe)
		return exe;
#endif
	return self ? lo_xstrdup(self) : NULL;
}

void lo_os_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

int lo_os_pipe(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	/* a program spawned by another thread in between inherits them: only a descriptor more */
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

void lo_os_heap_tune(size_t threshold) { (void)threshold; }
void lo_os_heap_trim(void) {}

void lo_os_drop_pages(const lo_os_span *spans, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		posix_madvise(spans[i].base, spans[i].len, POSIX_MADV_DONTNEED);
}

void lo_lock_init(pthread_mutex_t *m) { pthread_mutex_init(m, NULL); }
