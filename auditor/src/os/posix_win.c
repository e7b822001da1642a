/*
 * posix_win.c - descriptors, paths, stat and directory streams of POSIX
 * made of Windows calls (os/posix_win.h says what and why).
 *
 * A directory descriptor is an index into a table of the UTF-8 paths of
 * the directories open (plus LO_WIN_DIRFD_BASE), as gnulib's openat
 * emulation keeps them: each *at call joins its name to the path and makes
 * the Windows call on the whole. Unlike a descriptor, the path does not
 * follow a directory renamed while it is open: the walk and clean read
 * trees nobody renames under them, and clean checks each file it moves.
 */
#include <windows.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "leftover/buf.h"
#include "leftover/os.h"
#include "leftover/walk.h"

#ifndef O_ACCMODE
#define O_ACCMODE (O_RDONLY | O_WRONLY | O_RDWR)
#endif

/* 100 ns ticks from 1601-01-01 (FILETIME's epoch) to 1970-01-01 */
#define EPOCH_TICKS 116444736000000000LL

/* ---- text and errors ---------------------------------------------------------------- */

wchar_t *lo_win_wide(const char *utf8)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	w = lo_xmalloc((size_t)n * sizeof(*w));
	MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w, n);
	return w;
}

char *lo_win_utf8(const wchar_t *wide)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return lo_xstrdup("");
	s = lo_xmalloc((size_t)n);
	WideCharToMultiByte(CP_UTF8, 0, wide, -1, s, n, NULL, NULL);
	return s;
}

int lo_win_errno(unsigned long code)
{
	switch (code) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
	case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_PRIVILEGE_NOT_HELD:
		return EACCES;
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return EBUSY;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_NOT_SAME_DEVICE:
		return EXDEV;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_INVALID_HANDLE:
		return EBADF;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	case ERROR_INVALID_FUNCTION:
	case ERROR_NOT_SUPPORTED:
		return ENOTSUP;
	case ERROR_TOO_MANY_LINKS:
		return EMLINK;
	default:
		return EIO;
	}
}

/* -1 with errno from GetLastError. */
static int fail_win(void)
{
	errno = lo_win_errno(GetLastError());
	return -1;
}

/* ---- the table of directory descriptors ---------------------------------------------- */

static SRWLOCK table_lock = SRWLOCK_INIT;
static char **dirs; /* NULL: a free slot */
static size_t ndirs;

/* A descriptor for directory `path`, which the table owns from here on. */
static int dir_new(char *path)
{
	size_t i;

	AcquireSRWLockExclusive(&table_lock);
	for (i = 0; i < ndirs && dirs[i]; i++)
		;
	if (i == ndirs) {
		dirs = lo_xrealloc(dirs, (ndirs + 1) * sizeof(*dirs));
		ndirs++;
	}
	dirs[i] = path;
	ReleaseSRWLockExclusive(&table_lock);
	return LO_WIN_DIRFD_BASE + (int)i;
}

static bool is_dirfd(int fd) { return fd >= LO_WIN_DIRFD_BASE; }

const char *lo_win_dirfd_path(int fd)
{
	const char *path = NULL;

	if (!is_dirfd(fd))
		return NULL;
	AcquireSRWLockShared(&table_lock);
	if ((size_t)(fd - LO_WIN_DIRFD_BASE) < ndirs)
		path = dirs[fd - LO_WIN_DIRFD_BASE];
	ReleaseSRWLockShared(&table_lock);
	return path;
}

/* "/x", "\x", "C:..." (a path with a drive is never joined to another) */
static bool absolute(const char *p)
{
	return p[0] == '/' || p[0] == '\\' || (isalpha((unsigned char)p[0]) && p[1] == ':');
}

/*
 * `path`, owned, with the drive of the program itself when it is rooted
 * without one ("/x", not "//server/share"). Windows would take the current
 * directory's drive; but such a path comes from the build (the rules'
 * directory compiled in) or from a Unix environment Wine passes on
 * (HOME=/root), and names a place on the program's drive (under Wine, Z:,
 * the Unix root), wherever the user stands: from C:, "/x" would be C:\x.
 */
static char *with_program_drive(const char *path)
{
	wchar_t exe[MAX_PATH];
	DWORD n = GetModuleFileNameW(NULL, exe, MAX_PATH);
	char *out;

	if (!lo_os_path_is_separator(path[0]) || lo_os_path_is_separator(path[1]) || n < 2 ||
	    n >= MAX_PATH || exe[1] != L':' || !iswalpha(exe[0]))
		return lo_xstrdup(path);
	if (asprintf(&out, "%c:%s", (char)exe[0], path) < 0)
		abort();
	return out;
}

char *lo_win_at_path(int dirfd, const char *name)
{
	const char *dir;
	char *path;
	size_t n;

	if (dirfd == AT_FDCWD || absolute(name))
		return with_program_drive(name);
	if (!(dir = lo_win_dirfd_path(dirfd))) {
		errno = dirfd >= 0 && _get_osfhandle(dirfd) != -1 ? ENOTDIR : EBADF;
		return NULL;
	}
	n = strlen(dir);
	if (!*name)
		return lo_xstrdup(dir);
	bool sep = n && (dir[n - 1] == '/' || dir[n - 1] == '\\');
	if (asprintf(&path, "%s%s%s", dir, sep ? "" : "/", name) < 0)
		abort();
	return path;
}

/* The UTF-16 path of dirfd/name, owned; NULL with errno set. */
static wchar_t *at_wide(int dirfd, const char *name)
{
	char *path = lo_win_at_path(dirfd, name);
	wchar_t *w = path ? lo_win_wide(path) : NULL;

	free(path);
	return w;
}

/* ---- stat ------------------------------------------------------------------------------ */

static struct timespec timespec_of(LARGE_INTEGER t)
{
	long long since = t.QuadPart - EPOCH_TICKS;

	return (struct timespec){ .tv_sec = since / 10000000, .tv_nsec = (since % 10000000) * 100 };
}

static int stat_handle(HANDLE h, bool link, struct lo_win_stat *st)
{
	BY_HANDLE_FILE_INFORMATION info;
	FILE_BASIC_INFO basic;
	FILE_ATTRIBUTE_TAG_INFO tag;

	memset(st, 0, sizeof(*st));
	if (GetFileType(h) == FILE_TYPE_PIPE) {
		st->st_mode = _S_IFIFO | 0600;
		return 0;
	}
	if (!GetFileInformationByHandle(h, &info) ||
	    !GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof(basic)))
		return fail_win();
	st->st_dev = info.dwVolumeSerialNumber;
	st->st_ino = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
	st->st_nlink = info.nNumberOfLinks;
	st->st_size = (int64_t)((uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow);
	st->st_atim = timespec_of(basic.LastAccessTime);
	st->st_mtim = timespec_of(basic.LastWriteTime);
	/* ChangeTime is POSIX's ctime: metadata or data changed */
	st->st_ctim = timespec_of(basic.ChangeTime);
	if (link && (basic.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
	    GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof(tag)) &&
	    (tag.ReparseTag == IO_REPARSE_TAG_SYMLINK || tag.ReparseTag == IO_REPARSE_TAG_MOUNT_POINT))
		st->st_mode = S_IFLNK | 0777;
	else if (basic.FileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->st_mode = S_IFDIR | 0755;
	else
		st->st_mode = S_IFREG | (basic.FileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0644);
	return 0;
}

/* stat of a path, of the link itself when `link` (lstat). */
static int stat_wide(const wchar_t *path, bool link, struct lo_win_stat *st)
{
	/* no access asked: the attributes can be read of a file locked or open by anyone */
	HANDLE h = CreateFileW(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | (link ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
			       NULL);
	int rc;

	if (h == INVALID_HANDLE_VALUE)
		return fail_win();
	rc = stat_handle(h, link, st);
	CloseHandle(h);
	return rc;
}

int fstatat(int dirfd, const char *name, struct lo_win_stat *st, int flags)
{
	wchar_t *w = at_wide(dirfd, name);
	int rc = w ? stat_wide(w, flags & AT_SYMLINK_NOFOLLOW, st) : -1;

	free(w);
	return rc;
}

int lo_win_stat(const char *path, struct lo_win_stat *st) { return fstatat(AT_FDCWD, path, st, 0); }

int lo_win_lstat(const char *path, struct lo_win_stat *st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int lo_win_fstat(int fd, struct lo_win_stat *st)
{
	intptr_t h;

	if (is_dirfd(fd))
		return fstatat(fd, "", st, 0);
	if ((h = _get_osfhandle(fd)) == -1) {
		errno = EBADF;
		return -1;
	}
	return stat_handle((HANDLE)h, false, st);
}

/* ---- descriptors ----------------------------------------------------------------------- */

static DWORD disposition(int flags)
{
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return CREATE_NEW;
	if (flags & O_CREAT)
		return flags & O_TRUNC ? CREATE_ALWAYS : OPEN_ALWAYS;
	return flags & O_TRUNC ? TRUNCATE_EXISTING : OPEN_EXISTING;
}

/* open a file (not a directory) as a C runtime descriptor */
static int open_file(const wchar_t *w, int flags, mode_t mode)
{
	DWORD access = (flags & O_ACCMODE) == O_RDONLY   ? GENERIC_READ
		       : (flags & O_ACCMODE) == O_WRONLY ? GENERIC_WRITE
							 : GENERIC_READ | GENERIC_WRITE;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, !(flags & O_CLOEXEC) };
	HANDLE h;
	int fd;

	if (flags & O_APPEND)
		access |= FILE_APPEND_DATA;
	/* sharing delete too: POSIX lets a file open here be renamed or unlinked by others */
	h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
			disposition(flags),
			(mode & S_IWUSR) || !(flags & O_CREAT) ? FILE_ATTRIBUTE_NORMAL
								: FILE_ATTRIBUTE_READONLY,
			NULL);
	if (h == INVALID_HANDLE_VALUE)
		return fail_win();
	fd = _open_osfhandle((intptr_t)h, (flags & (O_ACCMODE | O_APPEND)) | O_BINARY);
	if (fd < 0)
		CloseHandle(h);
	return fd;
}

int openat(int dirfd, const char *name, int flags, ...)
{
	char *path = lo_win_at_path(dirfd, name);
	wchar_t *w = path ? lo_win_wide(path) : NULL;
	mode_t mode = 0;
	DWORD attrs;
	int fd = -1;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (!w)
		goto out;
	attrs = GetFileAttributesW(w);
	if ((flags & O_NOFOLLOW) && attrs != INVALID_FILE_ATTRIBUTES &&
	    (attrs & FILE_ATTRIBUTE_REPARSE_POINT))
		errno = ELOOP;
	else if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		if ((flags & O_CREAT) && (flags & O_EXCL))
			errno = EEXIST;
		else if ((flags & O_ACCMODE) != O_RDONLY)
			errno = EISDIR;
		else {
			fd = dir_new(path);
			path = NULL;
		}
	} else if (flags & O_DIRECTORY)
		errno = attrs == INVALID_FILE_ATTRIBUTES ? lo_win_errno(GetLastError()) : ENOTDIR;
	else
		fd = open_file(w, flags, mode);
out:
	free(path);
	free(w);
	return fd;
}

int lo_win_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return openat(AT_FDCWD, path, flags, mode);
}

int lo_win_close(int fd)
{
	char *path = NULL;

	if (!is_dirfd(fd))
		return _close(fd);
	AcquireSRWLockExclusive(&table_lock);
	if ((size_t)(fd - LO_WIN_DIRFD_BASE) < ndirs) {
		path = dirs[fd - LO_WIN_DIRFD_BASE];
		dirs[fd - LO_WIN_DIRFD_BASE] = NULL;
	}
	ReleaseSRWLockExclusive(&table_lock);
	if (!path) {
		errno = EBADF;
		return -1;
	}
	free(path);
	return 0;
}

int lo_win_dup(int fd)
{
	const char *path;

	if (!is_dirfd(fd))
		return _dup(fd);
	if (!(path = lo_win_dirfd_path(fd))) {
		errno = EBADF;
		return -1;
	}
	return dir_new(lo_xstrdup(path));
}

/*
 * fopen of the modes used here ("r", "w", "a"), through openat: the C
 * runtime's would read the path in the ANSI code page, and a path rooted
 * without a drive on the current directory's (with_program_drive).
 */
FILE *lo_win_fopen(const char *path, const char *mode)
{
	int flags = mode[0] == 'r'   ? O_RDONLY
		    : mode[0] == 'w' ? O_WRONLY | O_CREAT | O_TRUNC
		    : mode[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND
				     : -1;
	int fd = flags < 0 ? -1 : lo_win_open(path, flags, 0644);
	FILE *f;

	if (flags < 0)
		errno = EINVAL;
	if (fd < 0)
		return NULL;
	if (!(f = _fdopen(fd, mode)))
		_close(fd);
	return f;
}

int lo_win_access(const char *path, int mode)
{
	wchar_t *w = at_wide(AT_FDCWD, path);
	DWORD attrs = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;

	free(w);
	if (attrs == INVALID_FILE_ATTRIBUTES)
		return w ? fail_win() : -1;
	if ((mode & W_OK) && (attrs & FILE_ATTRIBUTE_READONLY) &&
	    !(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

ssize_t pread(int fd, void *buf, size_t len, off_t offset)
{
	OVERLAPPED ov = { 0 };
	intptr_t h = _get_osfhandle(fd);
	DWORD got;

	if (h == -1) {
		errno = EBADF;
		return -1;
	}
	ov.Offset = (DWORD)((uint64_t)offset & 0xffffffff);
	ov.OffsetHigh = (DWORD)((uint64_t)offset >> 32);
	if (!ReadFile((HANDLE)h, buf, len > 0x7fffffff ? 0x7fffffff : (DWORD)len, &got, &ov))
		return GetLastError() == ERROR_HANDLE_EOF ? 0 : fail_win();
	return (ssize_t)got;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t offset)
{
	OVERLAPPED ov = { 0 };
	intptr_t h = _get_osfhandle(fd);
	DWORD put;

	if (h == -1) {
		errno = EBADF;
		return -1;
	}
	ov.Offset = (DWORD)((uint64_t)offset & 0xffffffff);
	ov.OffsetHigh = (DWORD)((uint64_t)offset >> 32);
	if (!WriteFile((HANDLE)h, buf, len > 0x7fffffff ? 0x7fffffff : (DWORD)len, &put, &ov))
		return fail_win();
	return (ssize_t)put;
}

int fsync(int fd)
{
	intptr_t h;

	if (is_dirfd(fd))
		return 0; /* a directory's entries are written by NTFS's own journal */
	if ((h = _get_osfhandle(fd)) == -1) {
		errno = EBADF;
		return -1;
	}
	return FlushFileBuffers((HANDLE)h) ? 0 : fail_win();
}

/* ---- names ----------------------------------------------------------------------------- */

int lo_win_mkdirat(int dirfd, const char *name, mode_t mode)
{
	wchar_t *w = at_wide(dirfd, name);
	int rc = !w ? -1 : CreateDirectoryW(w, NULL) ? 0 : fail_win();

	free(w);
	return rc;
}

int unlinkat(int dirfd, const char *name, int flags)
{
	wchar_t *w = at_wide(dirfd, name);
	DWORD attrs;
	int rc = -1;

	if (!w)
		return -1;
	if (flags & AT_REMOVEDIR)
		rc = RemoveDirectoryW(w) ? 0 : fail_win();
	else if ((attrs = GetFileAttributesW(w)) != INVALID_FILE_ATTRIBUTES &&
		 (attrs & FILE_ATTRIBUTE_DIRECTORY) && !(attrs & FILE_ATTRIBUTE_REPARSE_POINT))
		errno = EISDIR;
	else
		rc = DeleteFileW(w) ? 0 : fail_win();
	free(w);
	return rc;
}

int renameat(int dirfd, const char *name, int todirfd, const char *toname)
{
	wchar_t *from = at_wide(dirfd, name), *to = from ? at_wide(todirfd, toname) : NULL;
	int rc = -1;

	/* POSIX's rename replaces what is there */
	if (to)
		rc = MoveFileExW(from, to, MOVEFILE_REPLACE_EXISTING) ? 0 : fail_win();
	free(from);
	free(to);
	return rc;
}

int linkat(int dirfd, const char *name, int todirfd, const char *toname, int flags)
{
	wchar_t *from = at_wide(dirfd, name), *to = from ? at_wide(todirfd, toname) : NULL;
	int rc = -1;

	if (to)
		rc = CreateHardLinkW(to, from, NULL) ? 0 : fail_win();
	free(from);
	free(to);
	return rc;
}

/*
 * Windows's symlinks are reparse points, not POSIX links: no target is
 * read (the walk does not follow them anyway) and none is made.
 */
ssize_t readlinkat(int dirfd, const char *name, char *buf, size_t len)
{
	errno = EINVAL;
	return -1;
}

ssize_t readlink(const char *path, char *buf, size_t len) { return readlinkat(AT_FDCWD, path, buf, len); }

int symlinkat(const char *target, int dirfd, const char *name)
{
	errno = EPERM;
	return -1;
}

/* The final path of an open handle: links resolved, "\\?\" taken off, '/' separators. */
static char *final_path(HANDLE h)
{
	wchar_t buf[32768];
	DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	const wchar_t *p = buf;
	char *s, *c;

	if (n == 0 || n >= 32768)
		return NULL;
	if (!wcsncmp(p, L"\\\\?\\UNC\\", 8)) {
		p += 6;
		buf[6] = L'\\';
	} else if (!wcsncmp(p, L"\\\\?\\", 4))
		p += 4;
	s = lo_win_utf8(p);
	for (c = s; *c; c++)
		if (*c == '\\')
			*c = '/';
	return s;
}

char *lo_win_realpath(const char *path, char *resolved)
{
	wchar_t *w = at_wide(AT_FDCWD, path);
	HANDLE h;
	char *s;

	if (!w)
		return NULL;
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		fail_win();
		return NULL;
	}
	s = final_path(h);
	CloseHandle(h);
	if (!s) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!resolved)
		return s;
	if (strlen(s) >= PATH_MAX) {
		free(s);
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(resolved, s);
	free(s);
	return resolved;
}

/* ---- directory streams: walk.h's, with a struct dirent ------------------------------------ */

struct lo_win_dir {
	lo_dirstream *stream;
	int fd;
	struct lo_win_dirent entry;
};

lo_win_dir *lo_win_fdopendir(int fd)
{
	lo_win_dir *d;

	if (!lo_win_dirfd_path(fd)) {
		errno = is_dirfd(fd) ? EBADF : ENOTDIR;
		return NULL;
	}
	d = lo_xcalloc(1, sizeof(*d));
	d->fd = fd;
	d->stream = lo_dirstream_new(fd);
	return d;
}

lo_win_dir *lo_win_opendir(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY);

	return fd < 0 ? NULL : lo_win_fdopendir(fd);
}

struct lo_win_dirent *lo_win_readdir(lo_win_dir *d)
{
	const lo_dirent *e = lo_dirstream_next(d->stream);

	if (!e)
		return NULL;
	d->entry.d_type = e->type == LO_FT_REG	  ? DT_REG
			  : e->type == LO_FT_DIR ? DT_DIR
			  : e->type == LO_FT_LNK ? DT_LNK
						 : DT_UNKNOWN;
	snprintf(d->entry.d_name, sizeof(d->entry.d_name), "%s", e->name);
	return &d->entry;
}

/* lists the directory again from its first entry, on a descriptor of its own */
void lo_win_rewinddir(lo_win_dir *d)
{
	int fd = lo_win_dup(d->fd);

	if (fd < 0)
		return;
	lo_dirstream_free(d->stream);
	d->fd = fd;
	d->stream = lo_dirstream_new(fd);
}

int lo_win_closedir(lo_win_dir *d)
{
	lo_dirstream_free(d->stream);
	free(d);
	return 0;
}

int lo_win_dirfd(lo_win_dir *d) { return d->fd; }

int alphasort(const struct lo_win_dirent **a, const struct lo_win_dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int scandir(const char *dir, struct lo_win_dirent ***names,
	    int (*filter)(const struct lo_win_dirent *),
	    int (*compare)(const struct lo_win_dirent **, const struct lo_win_dirent **))
{
	lo_win_dir *d = lo_win_opendir(dir);
	struct lo_win_dirent *e;
	size_t n = 0, cap = 0;

	if (!d)
		return -1;
	*names = NULL;
	while ((e = lo_win_readdir(d)))
		if (!filter || filter(e)) {
			lo_array_grow(names, &cap, n + 1, sizeof(**names));
			(*names)[n] = lo_xmalloc(sizeof(*e));
			memcpy((*names)[n++], e, sizeof(*e));
		}
	lo_win_closedir(d);
	if (compare && n > 1)
		qsort(*names, n, sizeof(**names),
		      (int (*)(const void *, const void *))compare);
	return (int)n;
}
