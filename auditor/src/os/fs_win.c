/*
 * fs_win.c - the file system calls of os.h and walk.h on Windows:
 * directories read with FindFirstFileExW, renames with MoveFileExW.
 *
 * A directory descriptor is a path in os/posix_win.c's table; the stream
 * lists that path.
 */
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/os.h"
#include "leftover/walk.h"

struct lo_dirstream {
	int fd;
	HANDLE find;      /* INVALID_HANDLE_VALUE before the first entry and after the last */
	bool started;     /* FindFirstFileExW made: its entry is the next one */
	int err;          /* errno of a failed open, given at the first read */
	WIN32_FIND_DATAW data;
	char name[NAME_MAX * 3 + 1];
	lo_dirent entry;  /* the one lo_dirstream_next returned last */
};

const int lo_os_open_path = O_RDONLY;
const bool lo_os_dir_stat_tracks_entries = false;

lo_dirstream *lo_dirstream_new(int fd)
{
	lo_dirstream *d = lo_xcalloc(1, sizeof(*d));

	d->fd = fd;
	d->find = INVALID_HANDLE_VALUE;
	return d;
}

void lo_dirstream_free(lo_dirstream *d)
{
	if (!d)
		return;
	if (d->find != INVALID_HANDLE_VALUE)
		FindClose(d->find);
	close(d->fd);
	free(d);
}

int lo_dirstream_fd(const lo_dirstream *d) { return d->fd; }

/* FindFirstFileExW of DIR/ *; false with d->err set when it cannot. */
static bool start(lo_dirstream *d)
{
	const char *dir = lo_win_dirfd_path(d->fd);
	char *pattern;
	wchar_t *wide;

	d->started = true;
	if (!dir) {
		d->err = ENOTDIR;
		return false;
	}
	if (asprintf(&pattern, "%s/*", dir) < 0)
		abort();
	wide = lo_win_wide(pattern);
	free(pattern);
	if (!wide) {
		d->err = errno;
		return false;
	}
	/* Basic: no 8.3 short names to make; large fetch: fewer round trips to the file system */
	d->find = FindFirstFileExW(wide, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL,
				   FIND_FIRST_EX_LARGE_FETCH);
	free(wide);
	if (d->find == INVALID_HANDLE_VALUE) {
		DWORD code = GetLastError();

		/* an empty directory (no "." even, at a drive's root) is no error */
		d->err = code == ERROR_FILE_NOT_FOUND ? 0 : lo_win_errno(code);
		return false;
	}
	return true;
}

static unsigned char type_of(const WIN32_FIND_DATAW *data)
{
	/* a reparse point is a symlink or a junction: the walk must not follow it */
	if ((data->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
	    (data->dwReserved0 == IO_REPARSE_TAG_SYMLINK ||
	     data->dwReserved0 == IO_REPARSE_TAG_MOUNT_POINT))
		return LO_FT_LNK;
	return data->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? LO_FT_DIR : LO_FT_REG;
}

const lo_dirent *lo_dirstream_next(lo_dirstream *d)
{
	for (;;) {
		if (!d->started) {
			if (!start(d)) {
				errno = d->err;
				return NULL;
			}
		} else if (d->find == INVALID_HANDLE_VALUE) {
			errno = d->err;
			return NULL;
		} else if (!FindNextFileW(d->find, &d->data)) {
			DWORD code = GetLastError();

			FindClose(d->find);
			d->find = INVALID_HANDLE_VALUE;
			d->err = code == ERROR_NO_MORE_FILES ? 0 : lo_win_errno(code);
			errno = d->err;
			return NULL;
		}
		if (wcscmp(d->data.cFileName, L".") && wcscmp(d->data.cFileName, L".."))
			break;
	}
	if (!WideCharToMultiByte(CP_UTF8, 0, d->data.cFileName, -1, d->name, sizeof(d->name),
				 NULL, NULL)) {
		errno = EILSEQ;
		return NULL;
	}
	d->entry = (lo_dirent){ d->name, type_of(&d->data) };
	return &d->entry;
}

int lo_os_rename_noreplace(int dirfd, const char *name, int todirfd, const char *toname)
{
	char *from = lo_win_at_path(dirfd, name), *to = lo_win_at_path(todirfd, toname);
	wchar_t *wfrom = from ? lo_win_wide(from) : NULL, *wto = to ? lo_win_wide(to) : NULL;
	int rc = -1;

	/* no MOVEFILE_REPLACE_EXISTING: a file already at `to` fails the move, atomically */
	if (wfrom && wto) {
		if (MoveFileExW(wfrom, wto, 0))
			rc = 0;
		else {
			DWORD code = GetLastError();

			/*
			 * A DLL loaded by a running program, or a file opened
			 * without FILE_SHARE_DELETE, cannot be moved: busy,
			 * which clean reports and moves on from.
			 */
			errno = code == ERROR_SHARING_VIOLATION || code == ERROR_ACCESS_DENIED ||
						code == ERROR_LOCK_VIOLATION
					? EBUSY
					: lo_win_errno(code);
		}
	}
	free(from);
	free(to);
	free(wfrom);
	free(wto);
	return rc;
}
