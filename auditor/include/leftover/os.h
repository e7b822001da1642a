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
 *                               memory (heap, page drops), the shared
 *                               locks (lock.h)
 *   os/resident_{linux,posix}.c its resident memory (posix: none to read)
 *   os/sysroot_{linux,posix}.c  opening paths inside another root (sysroot.h)
 *
 * and os/walk.c, os/fmap.c, os/lock.c and os/path.c (path syntax) are
 * shared by both. ci/check-portable fails the build's lint when a
 * Linux-only call appears anywhere else.
 *
 * Windows (MinGW-w64, leftover.exe) has a third body where it differs:
 * os/fs_win.c (directory streams over FindFirstFileExW; rename without
 * replacing as MoveFileExW without MOVEFILE_REPLACE_EXISTING, a file held
 * by another process without sharing delete, ERROR_SHARING_VIOLATION or
 * ERROR_ACCESS_DENIED, returned as EBUSY so that clean reports it and
 * moves on), os/proc_win.c (lo_os_self_exe from GetModuleFileNameW),
 * os/lock_win.c (LockFileEx), os/sysdll_win.c (System32, for the PE
 * loader model); sysroot_posix.c and resident_posix.c (no resident-memory
 * reading: Windows does not tell file pages apart) serve it as they are.
 * The rest of the code stays written against POSIX: os/posix_win.h, included
 * before every file of that build, declares what MinGW lacks (openat and
 * the other *at calls over a table of directory paths, stat with
 * st_mtim, mmap, fnmatch, glob, ...) and os/posix_win.c and
 * os/pattern_win.c make it of Windows calls; what has no meaning there
 * (posix_spawn, dlopen, readlink) fails as its callers already handle.
 * Paths are UTF-8 in the program, UTF-16 at each Windows call. A path
 * from the user or the file system is read through the lo_os_path_* calls
 * below, which know drive letters and backslashes; leftover writes its own
 * with '/', which Windows takes too.
 *
 * Owns: which system call does the job. Does not own: what the job is for
 * (its caller's module).
 */
#ifndef LEFTOVER_OS_H
#define LEFTOVER_OS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

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
 * Does a directory's stat (mtime or ctime) change whenever one of its
 * entries is created, removed or renamed, and does the walk's O_NOFOLLOW
 * open tell a real directory from a link? POSIX marks the parent's mtime
 * and ctime for update on link, unlink and rename: true. Windows: false
 * (a directory's LastWriteTime is not promised to follow its entries on
 * every file system, and junctions are opened through), so a path through
 * ".." is statted there (cache.h, aliases).
 */
extern const bool lo_os_dir_stat_tracks_entries;

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
 * when it cannot be told. Linux: /proc/self/exe; macOS:
 * _NSGetExecutablePath. Plain POSIX has no call for it: there it is the
 * program's argv[0] (lo_os_set_argv0) resolved the way a shell found it,
 * against the working directory when it holds a '/', else along PATH, the
 * first executable file of that name. That is the program unless whoever
 * started it passed another argv[0] than the file it ran, which a shell
 * does not do.
 */
char *lo_os_self_exe(void);

/*
 * The program's arguments as UTF-8, as the rest of the code takes every
 * string. POSIX hands main() the bytes given: nothing to do. Windows hands
 * it the ANSI code page's spelling, which cannot say most names: they are
 * read again from GetCommandLineW. Kept until the process exits.
 */
void lo_os_args(int *argc, char ***argv);

/*
 * Give the OS layer the program's argv[0], once, at start: before the
 * working directory or PATH change, and before any thread. It is resolved
 * here and then, only by the bodies that need it (plain POSIX).
 */
void lo_os_set_argv0(const char *argv0);

/*
 * Path syntax: what a path from the user or the file system may look like.
 * POSIX: '/' separates, a path starting with it is absolute, names are
 * compared byte for byte. Windows: '\\' separates too, a path is absolute
 * from a separator (the current drive's root, a UNC "\\\\server\\share"
 * or a device "\\\\?\\C:\\" path) or from a drive letter and a
 * separator ("C:\\", "C:/"; "C:x" is relative to that drive's current
 * directory), and names are compared case-insensitively, as NTFS and FAT
 * do by default (ASCII letters only here: Windows folds the rest by its
 * own upper-case table, which no UTF-8 name of a build tree has yet needed).
 * The loaders' own paths (an RPATH, a dyld install name) are not these:
 * they are the target's syntax, read by the loader models.
 *
 * Each call takes the syntax, so that the tests run both on any system,
 * and has a form for the syntax of the system this build runs on
 * (LO_PATH_HOST: Windows with _WIN32), which the rest of the code calls.
 */
typedef enum lo_path_syntax { LO_PATH_POSIX, LO_PATH_WINDOWS } lo_path_syntax;

#ifdef _WIN32
#define LO_PATH_HOST LO_PATH_WINDOWS
#else
#define LO_PATH_HOST LO_PATH_POSIX
#endif

static inline bool lo_os_path_is_separator_in(lo_path_syntax syntax, char c)
{
	return c == '/' || (syntax == LO_PATH_WINDOWS && c == '\\');
}
bool lo_os_path_is_absolute_in(lo_path_syntax syntax, const char *path);
/* The last separator in path, or NULL: strrchr(path, '/') (and its char *) in this syntax. */
char *lo_os_path_last_separator_in(lo_path_syntax syntax, const char *path);
/*
 * Two file names compared as the file system does: <0, 0, >0 as strcmp.
 * The PE loader model compares DLL names in Windows' syntax on any system.
 */
int lo_os_path_name_cmp_in(lo_path_syntax syntax, const char *a, const char *b);

/*
 * The separator of a list of paths (PATH, --library-path) as a strtok_r
 * delimiter: ":" on POSIX; ";" on Windows, where ':' follows a drive letter
 * ("C:\\x;D:\\y").
 */
static inline const char *lo_os_path_list_separator_in(lo_path_syntax syntax)
{
	return syntax == LO_PATH_WINDOWS ? ";" : ":";
}

static inline const char *lo_os_path_list_separator(void)
{
	return lo_os_path_list_separator_in(LO_PATH_HOST);
}

static inline bool lo_os_path_is_separator(char c) { return lo_os_path_is_separator_in(LO_PATH_HOST, c); }
static inline bool lo_os_path_is_absolute(const char *path)
{
	return lo_os_path_is_absolute_in(LO_PATH_HOST, path);
}
static inline char *lo_os_path_last_separator(const char *path)
{
	return lo_os_path_last_separator_in(LO_PATH_HOST, path);
}

/*
 * Windows' directory of system DLLs, the one its loader takes them from:
 * System32, or SysWOW64 for a 32-bit process on a 64-bit Windows (wow64;
 * System32 where there is none). UTF-8 with '/', kept until exit; NULL off
 * Windows (os/sysdll.c), where the loader model stands Wine's PE DLLs in.
 */
const char *lo_os_system_dll_dir(bool wow64);

/*
 * Is `b` the file `a` was, unchanged? The same inode (device, number) with
 * the same size, mtime and ctime: an inode number is reused at once on
 * most file systems, and a write, a chmod, a rename or a new link each
 * moves the ctime, which no program can set back (touch sets the mtime).
 * The ELF reader's stamp (lo_elf_stamp) keeps the same five of a mapping.
 */
static inline bool lo_os_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

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
