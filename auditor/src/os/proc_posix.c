/*
 * proc_posix.c - the process-wide calls of os.h and lock.h in plain POSIX,
 * where a process cannot name its own program nor read its resident memory:
 * those say so, and their callers do without.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "leftover/lock.h"
#include "leftover/os.h"

char *lo_os_self_exe(void) { return NULL; }

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

int lo_os_resident_open(void) { return -1; }
void lo_os_resident_close(int handle) { (void)handle; }

bool lo_os_resident(int handle, size_t *anon, size_t *file)
{
	(void)handle;
	*anon = *file = 0;
	return false;
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
