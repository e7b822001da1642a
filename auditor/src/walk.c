/*
 * walk.c - enumerate a build tree through directory descriptors (see walk.h).
 *
 * Depth-first with an explicit stack of open directories, so a deep tree
 * costs heap, not C stack. Each directory is opened relative to its parent's
 * descriptor with O_NOFOLLOW | O_DIRECTORY: a symlink to a directory is
 * reported as a symlink and never entered, and a directory swapped for a
 * symlink during the walk is not followed either. The number of descriptors
 * held open is bounded by the depth; at LO_WALK_MAX_DEPTH the walk reports
 * the directory (ELOOP) instead of entering it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/walk.h"

#define LO_WALK_MAX_DEPTH 256

typedef struct frame {
	DIR *dir;
	size_t parent_len; /* length of the relative path before this directory's name */
} frame;

static int report_dir_error(lo_walk_fn fn, void *payload, int parent_fd, const char *rel,
			    const char *name, int err)
{
	lo_walk_entry e = { rel, name, parent_fd, DT_DIR, err };

	return fn(&e, payload);
}

static void truncate_path(lo_buf *path, size_t len)
{
	path->len = len;
	if (path->ptr)
		path->ptr[len] = '\0';
}

static unsigned char stat_type(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode)    ? DT_DIR
	       : S_ISLNK(st.st_mode)  ? DT_LNK
	       : S_ISREG(st.st_mode)  ? DT_REG
	       : S_ISFIFO(st.st_mode) ? DT_FIFO
	       : S_ISSOCK(st.st_mode) ? DT_SOCK
	       : S_ISCHR(st.st_mode)  ? DT_CHR
	       : S_ISBLK(st.st_mode)  ? DT_BLK
				      : DT_UNKNOWN;
}

int lo_walk_tree(const char *root, lo_walk_fn fn, void *payload)
{
	frame stack[LO_WALK_MAX_DEPTH];
	size_t depth = 0;
	lo_buf path = LO_BUF_INIT;
	int fd, rc = 0;
	DIR *d;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open directory '%s'", root);
	if (!(d = fdopendir(fd))) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot read directory '%s'", root);
		close(fd);
		return rc;
	}
	stack[depth++] = (frame){ d, 0 };
	lo_buf_puts(&path, "");

	while (depth && rc == 0) {
		frame *top = &stack[depth - 1];
		int dfd = dirfd(top->dir);
		struct dirent *de;
		lo_walk_entry e;
		size_t base = path.len;

		errno = 0;
		de = readdir(top->dir);
		if (!de) {
			if (errno)
				rc = report_dir_error(fn, payload, dfd, base ? path.ptr : ".",
						      base ? path.ptr : ".", errno);
			closedir(top->dir);
			truncate_path(&path, top->parent_len);
			depth--;
			continue;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (base)
			lo_buf_putc(&path, '/');
		lo_buf_puts(&path, de->d_name);
		e = (lo_walk_entry){ path.ptr, path.ptr + path.len - strlen(de->d_name), dfd,
				     de->d_type, 0 };
		if (e.type == DT_UNKNOWN)
			e.type = stat_type(dfd, de->d_name);
		if (e.type != DT_DIR) {
			rc = fn(&e, payload);
		} else if (!strcmp(de->d_name, ".git") || !strcmp(de->d_name, ".leftover")) {
			/* git's own store and clean's quarantine (clean.h), never build output */
		} else if (depth >= LO_WALK_MAX_DEPTH) {
			rc = report_dir_error(fn, payload, dfd, path.ptr, e.name, ELOOP);
		} else if ((fd = openat(dfd, de->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
			   !(d = fdopendir(fd))) {
			int err = errno;

			if (fd >= 0)
				close(fd);
			rc = report_dir_error(fn, payload, dfd, path.ptr, e.name, err);
		} else {
			stack[depth++] = (frame){ d, base };
			continue; /* keep this directory's name on the path */
		}
		truncate_path(&path, base);
	}
	while (depth)
		closedir(stack[--depth].dir);
	lo_buf_dispose(&path);
	return rc;
}
