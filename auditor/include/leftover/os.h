/*
 * os.h - the calls that differ between the systems leftover runs on.
 *
 * The rest of the code is written against POSIX (openat, fstatat,
 * renameat, mmap, posix_spawn, flock) and calls these functions for
 * everything POSIX does not say or says only slowly. Each concern has a
 * Linux body, with its fast paths, and a plain POSIX one, and CMake
 * compiles one of the two (LEFTOVER_PORTABLE=ON: the POSIX bodies, the
 * build a Mac gets, tested on Linux by ci/test-portable):
 *
 *   os/fs_{linux,posix}.c       directory streams (walk.h), rename without
 *                               replacing, the flag that opens a path only
 *   os/proc_{linux,posix}.c     the process: its own program, pipes, its
 *                               memory (resident size, heap, page drops),
 *                               the shared locks (lock.h)
 *   os/sysroot_{linux,posix}.c  opening paths inside another root (sysroot.h)
 *
 * and os/walk.c, os/fmap.c, os/lock.c are shared by both. ci/check-portable
 * fails the build's lint when a Linux-only call appears anywhere else.
 *
 * Windows (MinGW-w64, leftover.exe) has a third body where it differs:
 * os/fs_win.c (directory streams over FindFirstFileExW; rename without
 * replacing as MoveFileExW without MOVEFILE_REPLACE_EXISTING, a file held
 * by another process without sharing delete, ERROR_SHARING_VIOLATION or
 * ERROR_ACCESS_DENIED, returned as EBUSY so that clean reports it and
 * moves on), os/proc_win.c (lo_os_self_exe from GetModuleFileNameW; no
 * resident-memory reading: Windows does not tell file pages apart),
 * os/lock_win.c (LockFileEx); sysroot_posix.c serves it as it is. The rest
 * of the code stays written against POSIX: os/posix_win.h, included
 * before every file of that build, declares what MinGW lacks (openat and
 * the other *at calls over a table of directory paths, stat with
 * st_mtim, mmap, fnmatch, glob, ...) and os/posix_win.c and
 * os/pattern_win.c make it of Windows calls; what has no meaning there
 * (posix_spawn, dlopen, readlink) fails as its callers already handle.
 * Paths are UTF-8 in the program, UTF-16 at each Windows call. Paths are
 * still tested for absoluteness by their first byte across the code
 * (except at a Windows call): a syntax with drive letters and backslashes
 * (an lo_os_path_* set of calls here) is the next step.
 *
 * Owns: which system call does the job. Does not own: what the job is for
 * (its caller's module).
 */
#ifndef LEFTOVER_OS_H
#define LEFTOVER_OS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Make a call again while a signal interrupts it (EINTR: NFS, FUSE, a
 * handler installed without SA_RESTART); glibc's TEMP_FAILURE_RETRY, which
 * other C libraries do not have.
 */
#define LO_RETRY(expression)                                                                   \
	(__extension__({                                                                       \
		long lo_retry_rc_;                                                             \
		do                                                                             \
			lo_retry_rc_ = (long)(expression);                                     \
		while (lo_retry_rc_ == -1L && errno == EINTR);                                 \
		lo_retry_rc_;                                                                  \
	}))

/*
 * A signal handled without SA_RESTART interrupts reading a directory or
 * opening one with EINTR; the directory is fine, so the walk makes the
 * call again, this many times at most, so that a signal storm still ends
 * as an error.
 */
#define LO_OS_EINTR_TRIES 64

/*
 * open(2) flags that open a path to fstat it, or to use as a directory
 * descriptor, without reading it: O_PATH on Linux (no read permission
 * needed, nothing of the file touched); O_RDONLY elsewhere. To be or'ed with
 * O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW.
 */
extern const int lo_os_open_path;

/*
 * Rename dirfd/name to todirfd/toname unless something is there already
 * (then -1 with EEXIST). Linux: renameat2's RENAME_NOREPLACE, atomic. POSIX
 * has no such call: a hard link to the new name (which fails when it
 * exists) then the unlink of the old, so that a process killed between
 * the two leaves the file under both names (nothing lost), and the next
 * rename of it between the same names finishes that one; where the file
 * system makes no hard links, a check then a plain rename, which a file
 * arriving in between would be overwritten by. Only for files and
 * symlinks, never directories.
 * Returns 0 or -1 with errno set; EINTR is retried.
 */
int lo_os_rename_noreplace(int dirfd, const char *name, int todirfd, const char *toname);

/*
 * The absolute path of the running program, symlinks resolved, owned; NULL
 * when the system cannot say (plain POSIX has no call for it).
 */
char *lo_os_self_exe(void);

/* pipe(2) with both ends close-on-exec. Returns 0 or -1 with errno set. */
int lo_os_pipe(int fds[2]);

/*
 * The process's resident memory, read where it is cheap to read again and
 * again (Linux: /proc/self/statm). lo_os_resident_open returns a handle, or
 * -1 when this system does not tell (then the resolver keeps no budget);
 * lo_os_resident reads the bytes that are not file pages (*anon: heap and
 * stacks) and those that are (*file); false when it cannot.
 */
int lo_os_resident_open(void);
bool lo_os_resident(int handle, size_t *anon, size_t *file);
void lo_os_resident_close(int handle);

/*
 * The heap: give freed memory back to the system once it reaches
 * `threshold` bytes at its top (lo_os_heap_tune, at start), and all of it
 * now (lo_os_heap_trim). glibc's mallopt and malloc_trim; nothing where the
 * allocator has no such knobs.
 */
void lo_os_heap_tune(size_t threshold);
void lo_os_heap_trim(void);

/* A range of a read-only file mapping. */
typedef struct lo_os_span {
	void *base;
	size_t len;
} lo_os_span;

/*
 * Let the system drop the pages of n read-only file mappings from memory; a
 * later read brings them back from the file. Linux: one process_madvise for
 * many ranges where the kernel takes it (proc_linux.c says why), else one
 * madvise each; POSIX: posix_madvise's POSIX_MADV_DONTNEED, a hint.
 */
void lo_os_drop_pages(const lo_os_span *spans, size_t n);

#endif
