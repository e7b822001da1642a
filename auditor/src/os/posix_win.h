/*
 * posix_win.h - the POSIX calls the code makes, on Windows (MinGW-w64).
 *
 * The build of leftover.exe includes this header before every source file
 * (-include, auditor/CMakeLists.txt), so the modules stay written against
 * POSIX and nothing of Windows is spread through them, as gnulib's
 * replacement headers do. What MinGW lacks is declared here, and made in
 * os/posix_win.c:
 *
 *   - directory descriptors: Windows cannot open a directory as a C
 *     descriptor, so openat() of a directory returns a number from a table
 *     of open directory paths (LO_WIN_DIRFD_BASE and up), and every *at
 *     call joins its name to that path. A file is opened with CreateFileW
 *     sharing read, write and delete, as POSIX lets a file be renamed
 *     while it is open.
 *   - struct stat with st_mtim/st_ctim, st_dev/st_ino from the volume's
 *     serial number and file index, S_IFLNK for a reparse point.
 *   - directory streams, mmap of a read-only file, fnmatch, glob (wildcards
 *     in the last component), pread, sysconf.
 *   - what has no meaning on Windows says so, as an error its caller
 *     already handles: posix_spawn (ENOSYS: no Linux interpreter to probe),
 *     dlopen (NULL: no libstdc++ to demangle with), readlink (EINVAL: no
 *     POSIX symlinks), poll/waitpid/kill (no child is ever made); no uids
 *     (every file is owned by "0", the user running the program); SIGBUS
 *     is never raised (Windows refuses to truncate a mapped file).
 *
 * Paths are UTF-8 in the program (fopen too) and converted to UTF-16 at
 * each Windows call. A path rooted without a drive ("/usr/share/...",
 * compiled in; HOME=/root under Wine) is on the program's own drive, not
 * the current directory's. Headers MinGW has not (glob.h, spawn.h, ...) are empty files in
 * os/win/, on the include path of this build only.
 */
#ifndef LEFTOVER_POSIX_WIN_H
#define LEFTOVER_POSIX_WIN_H

/* gmtime_r and localtime_r of MinGW's time.h */
#ifndef _POSIX_THREAD_SAFE_FUNCTIONS
#define _POSIX_THREAD_SAFE_FUNCTIONS 200112L
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* ---- open flags: POSIX's that Windows has not, stripped by openat ---- */
#define O_CLOEXEC _O_NOINHERIT
#define O_DIRECTORY 0x01000000
#define O_NOFOLLOW 0x02000000
#define O_NONBLOCK 0x04000000
#define O_NOCTTY 0x08000000

#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400

/* Directory descriptors are this and up; C runtime descriptors are far below. */
#define LO_WIN_DIRFD_BASE 0x100000

/* ---- stat ---- */
#ifndef S_IFLNK
#define S_IFLNK 0xA000
#endif
#ifndef S_IFSOCK
#define S_IFSOCK 0xC000
#endif
#ifndef S_ISLNK
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)
#endif
#ifndef S_ISBLK
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#endif
#ifndef S_ISFIFO
#define S_ISFIFO(m) (((m) & S_IFMT) == _S_IFIFO)
#endif

typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned int nlink_t;

struct lo_win_stat {
	uint64_t st_dev, st_ino; /* volume serial number, file index */
	unsigned int st_mode;
	nlink_t st_nlink;
	uid_t st_uid;
	gid_t st_gid;
	int64_t st_size;
	struct timespec st_atim, st_mtim, st_ctim;
};
#define stat lo_win_stat
#define st_atime st_atim.tv_sec
#define st_mtime st_mtim.tv_sec
#define st_ctime st_ctim.tv_sec
#define fstat(fd, st) lo_win_fstat(fd, st)
#define lstat(path, st) lo_win_lstat(path, st)
int lo_win_stat(const char *path, struct lo_win_stat *st);
int lo_win_lstat(const char *path, struct lo_win_stat *st);
int lo_win_fstat(int fd, struct lo_win_stat *st);
int fstatat(int dirfd, const char *name, struct lo_win_stat *st, int flags);

/* ---- descriptors and the *at calls ---- */
#define open(...) lo_win_open(__VA_ARGS__)
#define close(fd) lo_win_close(fd)
#define dup(fd) lo_win_dup(fd)
#define mkdir(path, mode) lo_win_mkdirat(AT_FDCWD, path, mode)
#define unlink(path) unlinkat(AT_FDCWD, path, 0)
#define rmdir(path) unlinkat(AT_FDCWD, path, AT_REMOVEDIR)
#define rename(from, to) renameat(AT_FDCWD, from, AT_FDCWD, to)
#define realpath(path, out) lo_win_realpath(path, out)
#define access(path, mode) lo_win_access(path, mode)
#define fopen(path, mode) lo_win_fopen(path, mode)
int lo_win_open(const char *path, int flags, ...);
int lo_win_close(int fd);
int lo_win_dup(int fd);
int lo_win_access(const char *path, int mode);
FILE *lo_win_fopen(const char *path, const char *mode);
int openat(int dirfd, const char *name, int flags, ...);
int lo_win_mkdirat(int dirfd, const char *name, mode_t mode);
#define mkdirat lo_win_mkdirat
int unlinkat(int dirfd, const char *name, int flags);
int renameat(int dirfd, const char *name, int todirfd, const char *toname);
int linkat(int dirfd, const char *name, int todirfd, const char *toname, int flags);
ssize_t readlinkat(int dirfd, const char *name, char *buf, size_t len);
ssize_t readlink(const char *path, char *buf, size_t len);
int symlinkat(const char *target, int dirfd, const char *name);
char *lo_win_realpath(const char *path, char *resolved);
ssize_t pread(int fd, void *buf, size_t len, off_t offset);
ssize_t pwrite(int fd, const void *buf, size_t len, off_t offset);
int fsync(int fd);

/* The UTF-8 path of directory descriptor fd, borrowed while it is open; NULL if fd is not one. */
const char *lo_win_dirfd_path(int fd);
/*
 * The path of `name` under directory descriptor dirfd (AT_FDCWD: as given;
 * an absolute name: itself), owned; NULL with errno set.
 */
char *lo_win_at_path(int dirfd, const char *name);
/* UTF-8 to UTF-16 (owned, NULL with errno EILSEQ) and back (owned). */
wchar_t *lo_win_wide(const char *utf8);
char *lo_win_utf8(const wchar_t *wide);
/* errno for GetLastError's code. */
int lo_win_errno(unsigned long code);

/* ---- directory streams ---- */
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_BLK 6
#define DT_REG 8
#define DT_LNK 10
#define DT_SOCK 12

struct lo_win_dirent {
	unsigned char d_type;
	char d_name[NAME_MAX * 3 + 1]; /* UTF-8 of up to 255 UTF-16 units */
};
typedef struct lo_win_dir lo_win_dir;
#define dirent lo_win_dirent
#define DIR lo_win_dir
#define opendir lo_win_opendir
#define fdopendir lo_win_fdopendir
#define readdir lo_win_readdir
#define closedir lo_win_closedir
#define rewinddir lo_win_rewinddir
#define dirfd(d) lo_win_dirfd(d)
lo_win_dir *lo_win_opendir(const char *path);
lo_win_dir *lo_win_fdopendir(int fd);
struct lo_win_dirent *lo_win_readdir(lo_win_dir *d);
int lo_win_closedir(lo_win_dir *d);
void lo_win_rewinddir(lo_win_dir *d);
int lo_win_dirfd(lo_win_dir *d);
int scandir(const char *dir, struct lo_win_dirent ***names,
	    int (*filter)(const struct lo_win_dirent *),
	    int (*compare)(const struct lo_win_dirent **, const struct lo_win_dirent **));
int alphasort(const struct lo_win_dirent **a, const struct lo_win_dirent **b);

/* ---- text ---- */
ssize_t getline(char **line, size_t *cap, FILE *f);
void *memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len);

/* ---- memory ---- */
#define PROT_READ 1
#define MAP_PRIVATE 2
#define MAP_SHARED 1
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED 0x10
#define MAP_FAILED ((void *)-1)
#define POSIX_MADV_DONTNEED 4
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
int munmap(void *addr, size_t len);

#define _SC_PAGESIZE 30
#define _SC_NPROCESSORS_ONLN 84
#define sysconf(name) lo_win_sysconf(name)
long lo_win_sysconf(int name);

/* ---- users, signals, processes: none of them here ---- */
static inline uid_t geteuid(void) { return 0; }
static inline uid_t getuid(void) { return 0; }
static inline gid_t getegid(void) { return 0; }

#define SIGBUS 10
#define SIGKILL 9
#define SA_SIGINFO 4
#define SA_RESTART 0x10000000
#define BUS_ADRERR 2
typedef unsigned long sigset_t;
typedef struct {
	int si_code;
	void *si_addr;
} siginfo_t;
struct sigaction {
	void (*sa_handler)(int);
	void (*sa_sigaction)(int, siginfo_t *, void *);
	sigset_t sa_mask;
	int sa_flags;
};
static inline int sigemptyset(sigset_t *set) { return *set = 0, 0; }
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
static inline int kill(pid_t pid, int sig) { return errno = ESRCH, -1; }

#define WNOHANG 1
#define WIFEXITED(s) 1
#define WEXITSTATUS(s) ((s) & 0xff)
#define WIFSIGNALED(s) 0
#define WTERMSIG(s) 0
static inline pid_t waitpid(pid_t pid, int *status, int options) { return errno = ECHILD, -1; }

typedef struct { int unused; } posix_spawn_file_actions_t;
typedef struct { int unused; } posix_spawnattr_t;
#define POSIX_SPAWN_SETPGROUP 2
static inline int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa) { return 0; }
static inline int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa) { return 0; }
static inline int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
						   const char *path, int flags, mode_t mode)
{
	return 0;
}
static inline int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd,
						   int to)
{
	return 0;
}
static inline int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd)
{
	return 0;
}
static inline int posix_spawnattr_init(posix_spawnattr_t *a) { return 0; }
static inline int posix_spawnattr_destroy(posix_spawnattr_t *a) { return 0; }
static inline int posix_spawnattr_setflags(posix_spawnattr_t *a, short flags) { return 0; }
static inline int posix_spawnattr_setpgroup(posix_spawnattr_t *a, pid_t pgroup) { return 0; }
/* leftover.exe runs no program: the interpreter probes say "not on this system" */
static inline int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *a, char *const argv[], char *const envp[])
{
	return ENOSYS;
}
static inline int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			       const posix_spawnattr_t *a, char *const argv[], char *const envp[])
{
	return ENOSYS;
}

struct pollfd {
	int fd;
	short events, revents;
};
#define POLLIN 1
static inline int poll(struct pollfd *fds, unsigned long n, int timeout) { return errno = ENOSYS, -1; }

#define RTLD_LAZY 1
#define RTLD_LOCAL 0
#define RTLD_NOW 2
#define RTLD_DEFAULT ((void *)0)
static inline void *dlopen(const char *file, int mode) { return NULL; }
static inline void *dlsym(void *lib, const char *name) { return NULL; }
static inline int dlclose(void *lib) { return 0; }

/* ---- patterns ---- */
#define FNM_NOMATCH 1
#define FNM_PATHNAME 1 /* the values of leftover/wildcard.h's LO_WILD_*, which fnmatch passes on */
#define FNM_NOESCAPE 2
#define FNM_PERIOD 4
int fnmatch(const char *pattern, const char *name, int flags);

typedef struct {
	size_t gl_pathc;
	char **gl_pathv;
	size_t gl_offs;
	int gl_flags;
	void (*gl_closedir)(void *);
	struct lo_win_dirent *(*gl_readdir)(void *);
	void *(*gl_opendir)(const char *);
	int (*gl_lstat)(const char *, struct lo_win_stat *);
	int (*gl_stat)(const char *, struct lo_win_stat *);
} glob_t;
#define GLOB_NOSORT 4
#define GLOB_ALTDIRFUNC 0x200
#define GLOB_NOSPACE 1
#define GLOB_ABORTED 2
#define GLOB_NOMATCH 3
#define GLOB_NOSYS 4
int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);
void globfree(glob_t *g);

#endif
