/*
 * clean_fs.c - descriptor-relative paths, the lock and the manifest file
 * shared by clean and restore (see clean_fs.h).
 *
 * Everything here works from a directory descriptor down and never resolves
 * a path string with symlinks in it: that is the whole safety argument of
 * clean (clean.h), so it is kept in this one small file. Calls interrupted
 * by a signal (EINTR) are made again, as in clean.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clean/clean_fs.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/lock.h"
#include "leftover/os.h"
#include "leftover/trust.h"

int lo_dpath_init(lo_dpath *p, const char *rel)
{
	char *s, *save = NULL, *tok;
	size_t cap = 0;

	memset(p, 0, sizeof(*p));
	if (!rel || !*rel || lo_os_path_is_absolute(rel))
		return lo_error_set(LO_EINVALID, "'%s' is not a path relative to the root",
				    rel ? rel : "");
	p->copy = lo_xstrdup(rel);
	/* strtok_r would merge "a//b" into a/b silently: reject empty components instead */
	if (strstr(rel, "//") || rel[strlen(rel) - 1] == '/')
		goto bad;
	for (s = p->copy; (tok = strtok_r(s, "/", &save)); s = NULL) {
		if (!strcmp(tok, ".") || !strcmp(tok, "..") || p->count >= LO_CLEAN_MAX_DEPTH)
			goto bad;
		lo_array_grow(&p->comps, &cap, p->count + 1, sizeof(char *));
		p->comps[p->count++] = tok;
	}
	if (!p->count)
		goto bad;
	p->fds = lo_xcalloc(p->count, sizeof(int));
	return 0;
bad:
	lo_dpath_dispose(p);
	return lo_error_set(LO_EINVALID, "'%s' is not a plain path inside the root", rel);
}

int lo_clean_opendir(int dirfd, const char *name, bool create)
{
	int fd;

	for (;;) {
		fd = LO_RETRY(openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						       O_CLOEXEC));
		if (fd >= 0 || errno != ENOENT || !create)
			return fd;
		if (LO_RETRY(mkdirat(dirfd, name, 0755)) < 0 && errno != EEXIST)
			return -1;
		create = false; /* one try: a racing rmdir is an error, not a loop */
	}
}

int lo_dpath_open(lo_dpath *p, int base, bool create)
{
	size_t i;

	lo_dpath_close(p);
	p->fds[0] = base;
	p->opened = 1;
	for (i = 0; i + 1 < p->count; i++) {
		int fd = lo_clean_opendir(p->fds[i], p->comps[i], create);

		if (fd < 0) {
			int err = errno;

			lo_dpath_close(p);
			errno = err;
			return -1;
		}
		p->fds[i + 1] = fd;
		p->opened = i + 2;
	}
	return 0;
}

int lo_dpath_dirfd(const lo_dpath *p)
{
	return p->fds[p->count - 1];
}

const char *lo_dpath_name(const lo_dpath *p)
{
	return p->comps[p->count - 1];
}

void lo_dpath_prune(lo_dpath *p)
{
	size_t i;

	/* fds[i] holds comps[i]: directory comps[i-1]... is removed from fds[i-1] */
	for (i = p->opened; i-- > 1;)
		if (unlinkat(p->fds[i - 1], p->comps[i - 1], AT_REMOVEDIR) < 0)
			break;
}

void lo_dpath_close(lo_dpath *p)
{
	size_t i;

	for (i = 1; i < p->opened; i++)
		close(p->fds[i]);
	p->opened = 0;
}

void lo_dpath_dispose(lo_dpath *p)
{
	if (p->fds)
		lo_dpath_close(p);
	free(p->fds);
	free(p->comps);
	free(p->copy);
	memset(p, 0, sizeof(*p));
}

/* Write all n bytes of p, across short writes and EINTR; -1 with errno otherwise. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			if (done == 0)
				errno = EIO;
			return -1;
		}
		p += done;
		n -= (size_t)done;
	}
	return 0;
}

/*
 * The .gitignore of leftover's directory, as pytest's cache has one: what
 * leftover keeps there is no part of the project, and `git status` or
 * `git add .` in a tree inside a checkout must not offer it. One the user
 * has written (EEXIST) is theirs.
 */
static int ignore_all(int dotfd, const char *root)
{
	static const char text[] = "# written by leftover: nothing here is part of the project\n*\n";
	int fd = LO_RETRY(openat(dotfd, ".gitignore", O_WRONLY | O_CREAT | O_EXCL |
					   O_NOFOLLOW | O_CLOEXEC, 0644)), rc = 0;

	if (fd < 0 && errno == EEXIST)
		return 0;
	if (fd < 0 || write_all(fd, text, sizeof(text) - 1) < 0)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot write '%s/" LO_CLEAN_DIR
					"/.gitignore'", root);
	if (fd >= 0)
		close(fd);
	return rc;
}

int lo_clean_lock(int rootfd, const char *root, bool wait, volatile sig_atomic_t *stop,
		  int *dotfd, int *lockfd)
{
	char pid[32], *shown = NULL;
	ssize_t n;
	int len, rc;

	*lockfd = -1;
	/* 0700 and the user's own: the quarantine is no one else's to read or fill */
	if (asprintf(&shown, "%s/" LO_CLEAN_DIR, root) < 0)
		abort();
	*dotfd = lo_trust_state_dir(rootfd, LO_CLEAN_DIR, shown);
	free(shown);
	if (*dotfd < 0)
		return *dotfd;
	if ((rc = ignore_all(*dotfd, root)) < 0) {
		close(*dotfd);
		*dotfd = -1;
		return rc;
	}
	*lockfd = LO_RETRY(openat(*dotfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
					    0644));
	if (*lockfd < 0) {
		int err = errno;

		close(*dotfd);
		*dotfd = -1;
		return lo_error_set_errno(LO_ERROR, err, "cannot open lock '%s/" LO_CLEAN_DIR "/lock'",
					  root);
	}
	while (lo_lock_file(*lockfd, wait) < 0) {
		int err = errno;

		/* a signal: Ctrl-C gives up the wait, any other just interrupted it */
		if (err == EINTR && !(stop && *stop))
			continue;
		n = pread(*lockfd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(*lockfd);
		close(*dotfd);
		*lockfd = *dotfd = -1;
		if (err == EWOULDBLOCK)
			return lo_error_set(LO_ERROR,
					    "another leftover clean or restore is running on '%s' "
					    "(pid %s holds '%s/" LO_CLEAN_DIR "/lock'); "
					    "wait for it or use --wait",
					    root, *pid ? pid : "unknown", root);
		if (err == EINTR)
			return lo_error_set(LO_ERROR,
					    "interrupted while waiting for another leftover clean or "
					    "restore on '%s' (pid %s holds '%s/" LO_CLEAN_DIR "/lock'); "
					    "nothing was changed",
					    root, *pid ? pid : "unknown", root);
		return lo_error_set_errno(LO_ERROR, err, "cannot lock '%s/" LO_CLEAN_DIR "/lock'",
					  root);
	}
	/* the pid is for the message above only; the lock itself is the file's (lo_lock_file) */
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(*lockfd, 0) == 0 && pwrite(*lockfd, pid, (size_t)len, 0) < 0)
		errno = 0; /* a missing pid only makes the message vaguer */
	return 0;
}

int lo_clean_remove_tree(int dirfd, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if (depth > LO_CLEAN_MAX_DEPTH)
		return lo_error_set(LO_ERROR, "directory '%s' is nested too deeply to remove", name);
	if ((fd = LO_RETRY(openat(dirfd, name,
					    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))) < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR || errno == ELOOP)
			return LO_RETRY(unlinkat(dirfd, name, 0)) < 0
				       ? lo_error_set_errno(LO_ERROR, errno, "cannot remove '%s'", name)
				       : 0;
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", name);
	}
	if (!(d = fdopendir(fd))) {
		close(fd);
		return lo_error_set_errno(LO_ERROR, errno, "cannot list '%s'", name);
	}
	while (rc == 0 && (de = lo_clean_readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (LO_RETRY(unlinkat(fd, de->d_name, 0)) == 0)
			continue;
		if (errno == EISDIR || errno == EPERM)
			rc = lo_clean_remove_tree(fd, de->d_name, depth + 1);
		else if (errno != ENOENT)
			rc = lo_error_set_errno(LO_ERROR, errno, "cannot remove '%s/%s'", name,
						de->d_name);
	}
	if (rc == 0 && errno)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot list '%s'", name);
	closedir(d);
	if (rc == 0 && LO_RETRY(unlinkat(dirfd, name, AT_REMOVEDIR)) < 0 && errno != ENOENT)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot remove directory '%s'", name);
	return rc;
}

int lo_clean_write_json(int dirfd, const char *name, const json_t *doc, const char *what)
{
	lo_buf tmp = LO_BUF_INIT;
	/* json_dumpfd gives up on a short or interrupted write(): write the text ourselves */
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	int fd = -1, rc = 0;

	lo_buf_printf(&tmp, "%s.tmp", name);
	if (!text) {
		rc = lo_error_set(LO_ERROR, "cannot write '%s': out of memory", what);
		goto out;
	}
	fd = LO_RETRY(openat(dirfd, tmp.ptr,
				       O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
	if (fd < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot create '%s'", what);
		goto out;
	}
	/* a full disk shows here or at fsync, before anything has moved */
	if (write_all(fd, text, strlen(text)) < 0 || write_all(fd, "\n", 1) < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot write '%s'", what);
	} else if (LO_RETRY(fsync(fd)) < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot flush '%s' to disk", what);
	}
	if (close(fd) < 0 && rc == 0)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot write '%s'", what);
	if (rc == 0 && LO_RETRY(renameat(dirfd, tmp.ptr, dirfd, name)) < 0)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot put '%s' in place", what);
	if (rc == 0 && LO_RETRY(fsync(dirfd)) < 0)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot flush the directory of '%s'", what);
	if (rc < 0)
		unlinkat(dirfd, tmp.ptr, 0);
out:
	free(text);
	lo_buf_dispose(&tmp);
	return rc;
}

struct dirent *lo_clean_readdir(DIR *d)
{
	struct dirent *de;

	do {
		errno = 0;
		de = readdir(d);
	} while (!de && errno == EINTR);
	return de;
}

int lo_clean_read_all(int fd, char **out, size_t *len)
{
	lo_buf b = LO_BUF_INIT;
	char chunk[65536];
	ssize_t n;

	*out = NULL;
	*len = 0;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lo_buf_dispose(&b);
			return -1;
		}
		lo_buf_add(&b, chunk, (size_t)n);
	}
	*len = b.len;
	*out = lo_buf_detach(&b);
	return 0;
}

/* Is s valid UTF-8 (what a JSON string can carry losslessly)? */
static bool is_utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2
				       : (*s & 0xf8) == 0xf0 ? 3 : -1;

		if (n < 0 || (n == 1 && *s < 0xc2))
			return false;
		for (s++; n > 0; n--, s++)
			if ((*s & 0xc0) != 0x80)
				return false;
	}
	return true;
}

void lo_clean_json_set_path(json_t *obj, const char *path)
{
	lo_buf hex = LO_BUF_INIT;
	const unsigned char *p;

	if (is_utf8((const unsigned char *)path)) {
		json_object_set_new(obj, "path", json_string(path));
		return;
	}
	for (p = (const unsigned char *)path; *p; p++)
		lo_buf_printf(&hex, "%02x", *p);
	json_object_set_new(obj, "path_hex", json_string(lo_buf_cstr(&hex)));
	lo_buf_dispose(&hex);
}

char *lo_clean_json_get_path(const json_t *obj)
{
	const char *s = json_string_value(json_object_get(obj, "path"));
	lo_buf out = LO_BUF_INIT;
	size_t i, n;

	if (s)
		return *s ? lo_xstrdup(s) : NULL;
	if (!(s = json_string_value(json_object_get(obj, "path_hex"))) || !(n = strlen(s)) || n % 2)
		return NULL;
	for (i = 0; i < n; i += 2) {
		unsigned v;

		if (sscanf(s + i, "%2x", &v) != 1 || v == 0) {
			lo_buf_dispose(&out);
			return NULL;
		}
		lo_buf_putc(&out, (char)v);
	}
	return lo_buf_detach(&out);
}
