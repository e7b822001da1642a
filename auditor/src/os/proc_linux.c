/*
 * proc_linux.c - the process-wide calls of os.h and lock.h, Linux's body
 * (glibc's): /proc/self/exe for the program, pipe2, process_madvise,
 * glibc's heap knobs and adaptive mutexes. Its resident memory:
 * resident_linux.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/lock.h"
#include "leftover/os.h"

char *lo_os_self_exe(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	return lo_xstrdup(path);
}

void lo_os_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

/* /proc/self/exe names the program whatever argv[0] says */
void lo_os_set_argv0(const char *argv0) { (void)argv0; }

int lo_os_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

void lo_os_heap_tune(size_t threshold) { mallopt(M_TRIM_THRESHOLD, (int)threshold); }
void lo_os_heap_trim(void) { malloc_trim(0); }

/*
 * Dropping pages from a mapping that other threads of the process may have
 * used costs a TLB shootdown: an interrupt to every other core running the
 * process. With one madvise per mapping that was over a quarter of a
 * two-thread scan's system time. process_madvise takes many ranges, and
 * recent kernels (measured on 6.18) flush once for all of them. Older ones
 * refuse MADV_DONTNEED there (EINVAL) or do not know PIDFD_SELF (EBADF):
 * then one madvise each, as before.
 */
#define LO_PIDFD_SELF (-10000) /* linux/pidfd.h, 6.14 */
#define LO_OS_IOV_MAX 1024     /* UIO_MAXIOV */

static atomic_bool batch_refused;

static bool drop_batch(const struct iovec *iov, size_t n)
{
#ifdef SYS_process_madvise
	size_t i, total = 0;
	long got;

	if (atomic_load(&batch_refused))
		return false;
	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	got = syscall(SYS_process_madvise, LO_PIDFD_SELF, iov, n, MADV_DONTNEED, 0);
	if (got >= 0 && (size_t)got == total)
		return true;
	if (got < 0 && errno != EINTR && errno != EAGAIN)
		atomic_store(&batch_refused, true);
#endif
	return false;
}

void lo_os_drop_pages(const lo_os_span *spans, size_t n)
{
	struct iovec iov[LO_OS_IOV_MAX];
	size_t i, j, k;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < n - i && k < LO_OS_IOV_MAX; k++)
			iov[k] = (struct iovec){ spans[i + k].base, spans[i + k].len };
		if (drop_batch(iov, k))
			continue;
		/*
		 * Private read-only file mappings: dropped pages come back from
		 * the file, so dropping one twice (after a partial batch) is harmless.
		 */
		for (j = 0; j < k; j++)
			madvise(iov[j].iov_base, iov[j].iov_len, MADV_DONTNEED);
	}
}

void lo_lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	/* spins a while before it sleeps (lock.h says why) */
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}
