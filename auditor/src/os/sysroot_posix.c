/*
 * sysroot_posix.c - paths opened inside a root by a lookup made here
 * (sysroot_int.h), where the kernel has no RESOLVE_IN_ROOT.
 *
 * The path is walked a component at a time from the root's descriptor, as
 * the kernel walks it under chroot(2): ".." stops at the root, a symlink is
 * read and its target walked in the path's place, an absolute target from
 * the root again, at most LO_SYSROOT_MAX_LINKS of them (Linux's limit for
 * one lookup, then ELOOP). Each component is checked before it is used,
 * by fstatat on a path whose directories are already known not to be
 * links, and the last is opened with O_NOFOLLOW: a link made in the root
 * while the lookup runs can make it fail, not leave the root, except for
 * a directory swapped for a link between its check and the open; the
 * kernel's lookup on Linux has no such window.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "os/sysroot_int.h"

#define LO_SYSROOT_MAX_LINKS 40

int lo_sysroot_probe(int rootfd, const char *dir)
{
	(void)rootfd;
	(void)dir;
	return 0;
}

/*
 * Take the next component off the front of `rest` into `comp`; false when
 * none is left.
 */
static bool next_component(lo_buf *rest, size_t *pos, lo_buf *comp)
{
	size_t end;

	while (*pos < rest->len && rest->ptr[*pos] == '/')
		(*pos)++;
	if (*pos >= rest->len)
		return false;
	for (end = *pos; end < rest->len && rest->ptr[end] != '/'; end++)
		;
	lo_buf_clear(comp);
	lo_buf_add(comp, rest->ptr + *pos, end - *pos);
	*pos = end;
	return true;
}

/* Put link `target` in front of what is left of `rest` to walk. */
static void splice_link(lo_buf *rest, size_t *pos, const char *target)
{
	lo_buf next = LO_BUF_INIT;

	lo_buf_puts(&next, target);
	lo_buf_putc(&next, '/');
	lo_buf_add(&next, rest->ptr + *pos, rest->len - *pos);
	lo_buf_clear(rest);
	lo_buf_add(rest, next.ptr, next.len);
	lo_buf_dispose(&next);
	*pos = 0;
}

/* Walk `path` inside rootfd into `at`, relative to it ("" for the root); 0 or an errno. */
static int resolve(int rootfd, const char *path, bool follow_last, lo_buf *at)
{
	lo_buf rest = LO_BUF_INIT, comp = LO_BUF_INIT;
	char target[PATH_MAX];
	size_t pos = 0, len, links = 0;
	struct stat st;
	ssize_t n;
	int err = 0;

	lo_buf_puts(&rest, path);
	while (!err && next_component(&rest, &pos, &comp)) {
		bool last = strspn(rest.ptr + pos, "/") == rest.len - pos;

		if (!strcmp(comp.ptr, "."))
			continue;
		if (!strcmp(comp.ptr, "..")) { /* the root's parent is the root */
			char *slash = at->len ? lo_memrchr(at->ptr, '/', at->len) : NULL;

			at->len = slash ? (size_t)(slash - at->ptr) : 0;
			lo_buf_add(at, "", 0);
			continue;
		}
		len = at->len;
		if (len)
			lo_buf_putc(at, '/');
		lo_buf_add(at, comp.ptr, comp.len);
		if (last && !follow_last)
			break;
		if (fstatat(rootfd, at->ptr, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			/* a missing last component is the open's to report */
			err = last && errno == ENOENT ? 0 : errno;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > LO_SYSROOT_MAX_LINKS) {
			err = ELOOP;
			continue;
		}
		if ((n = readlinkat(rootfd, at->ptr, target, sizeof(target) - 1)) < 0) {
			err = errno;
			continue;
		}
		target[n] = '\0';
		at->len = target[0] == '/' ? 0 : len; /* absolute: from the root again */
		lo_buf_add(at, "", 0);
		splice_link(&rest, &pos, target);
	}
	lo_buf_dispose(&rest);
	lo_buf_dispose(&comp);
	return err;
}

int lo_sysroot_openat(int rootfd, const char *path, int flags)
{
	lo_buf at = LO_BUF_INIT;
	int err, fd = -1;

	err = resolve(rootfd, path, !(flags & O_NOFOLLOW), &at);
	if (!err) {
		do
			fd = openat(rootfd, at.len ? at.ptr : ".", flags | O_NOFOLLOW);
		while (fd < 0 && errno == EINTR);
		err = fd < 0 ? errno : 0;
	}
	lo_buf_dispose(&at);
	errno = err;
	return fd;
}
