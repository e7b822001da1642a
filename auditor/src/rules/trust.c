/*
 * trust.c - whether a program a scanned tree names may be run (trust.h).
 *
 * The check follows the program as the kernel would start it: each link
 * on the way is read where it lies, and every directory it is found
 * through, up to /, is looked at as it is now. A directory that others
 * may write is as good as theirs: they can rename the program or a
 * directory on its way and put their own in its place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/trust.h"

/* The links followed to a program before it is taken as a loop. */
#define MAX_LINKS 40
/* meson-info.json is a few hundred bytes; more is not meson's. */
#define MAX_MESON_INFO (1u << 20)

struct lo_trust {
	bool vouched;
	char **trees; /* real paths, owned */
	size_t count, cap;
};

lo_trust *lo_trust_new(bool vouched)
{
	lo_trust *t = lo_xcalloc(1, sizeof(*t));

	t->vouched = vouched;
	return t;
}

void lo_trust_free(lo_trust *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->count; i++)
		free(t->trees[i]);
	free(t->trees);
	free(t);
}

void lo_trust_vouch(lo_trust *t)
{
	t->vouched = true;
}

/* Add `dir` as it really is; one that does not exist holds nothing to run. */
static void add_real(lo_trust *t, const char *dir)
{
	char *real = dir && *dir ? realpath(dir, NULL) : NULL;
	size_t i;

	if (!real)
		return;
	for (i = 0; i < t->count; i++)
		if (!strcmp(t->trees[i], real)) {
			free(real);
			return;
		}
	lo_array_grow(&t->trees, &t->cap, t->count + 1, sizeof(char *));
	t->trees[t->count++] = real;
}

/* The source dir meson-info/meson-info.json of `build` names, owned, or NULL. */
static char *meson_source(const char *build)
{
	lo_buf path = LO_BUF_INIT;
	json_t *root;
	const char *src;
	char *out = NULL;
	struct stat st;

	lo_buf_printf(&path, "%s/meson-info/meson-info.json", build);
	lo_deps_note_path(lo_buf_cstr(&path));
	/* a FIFO in its place is refused, not waited on */
	if (stat(lo_buf_cstr(&path), &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)MAX_MESON_INFO) {
		lo_buf_dispose(&path);
		return NULL;
	}
	root = json_load_file(lo_buf_cstr(&path), 0, NULL);
	src = json_string_value(json_object_get(json_object_get(root, "directories"), "source"));
	if (src)
		out = lo_xstrdup(src);
	json_decref(root);
	lo_buf_dispose(&path);
	return out;
}

void lo_trust_add_tree(lo_trust *t, const char *dir, const char *source)
{
	char *base = lo_buildsys_base_of(dir);
	char *cmake = lo_buildsys_cache_value(base, "CMAKE_HOME_DIRECTORY");
	char *meson = meson_source(base);

	add_real(t, dir);
	add_real(t, base);
	add_real(t, cmake);
	add_real(t, meson);
	add_real(t, source);
	free(meson);
	free(cmake);
	free(base);
}

/* The tree holding the real path `real`, or NULL. */
static const char *tree_of(const lo_trust *t, const char *real)
{
	size_t i;

	for (i = 0; i < t->count; i++) {
		size_t n = strlen(t->trees[i]);

		if (n == 1 || (!strncmp(real, t->trees[i], n) && (!real[n] || real[n] == '/')))
			return t->trees[i];
	}
	return NULL;
}

/*
 * Why `path` (st: its own status) is someone else's, or NULL: it belongs
 * to neither root nor the user, or a group other than root's or the
 * user's own may write it, or everyone may.
 */
static const char *foreign(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "belongs to another user";
	if (st->st_mode & S_IWOTH)
		return "may be written by every user";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0 && st->st_gid != getegid())
		return "may be written by a group of other users";
	return NULL;
}

static int refuse(const char *program, const char *what, const char *why)
{
	return lo_error_set(LO_EINVALID, "'%s' is not run: '%s' %s", program, what, why);
}

/* Is the real directory `dir` and each one above it safe from others? */
static int check_dirs(const char *program, const char *dir)
{
	char *d = lo_xstrdup(dir);
	int err = 0;

	for (;;) {
		struct stat st;
		const char *why;
		char *slash;

		if (stat(*d ? d : "/", &st) < 0) {
			err = lo_error_set_errno(LO_EINVALID, errno, "'%s' is not run: cannot look at "
						 "'%s'", program, *d ? d : "/");
			break;
		}
		if ((why = foreign(&st))) {
			err = refuse(program, *d ? d : "/", why);
			break;
		}
		if (!*d || !(slash = lo_os_path_last_separator(d)))
			break;
		*slash = '\0';
	}
	free(d);
	return err;
}

/*
 * Check the directory `cur` is found in, and say where `cur` lies really
 * (its directory resolved, its own name kept) in *at.
 */
static int check_place(const lo_trust *t, const char *program, const char *cur, char **at)
{
	const char *slash = lo_os_path_last_separator(cur);
	char *dir = lo_xstrndup(cur, slash == cur ? 1 : (size_t)(slash - cur));
	char *real = realpath(dir, NULL);
	const char *tree;
	int err;

	if (!real) {
		err = lo_error_set_errno(LO_EINVALID, errno, "'%s' is not run: cannot resolve '%s'",
					 program, dir);
		free(dir);
		*at = lo_xstrdup(cur); /* the caller frees what it is given, whatever the answer */
		return err;
	}
	free(dir);
	if (asprintf(at, "%s/%s", strcmp(real, "/") ? real : "", slash + 1) < 0)
		abort();
	free(real);
	if ((tree = tree_of(t, *at)))
		return lo_error_set(LO_EINVALID, "'%s' is not run: '%s' lies inside the scanned "
				    "tree or source tree '%s'", program, *at, tree);
	slash = lo_os_path_last_separator(*at);
	dir = lo_xstrndup(*at, (size_t)(slash - *at));
	err = check_dirs(program, dir);
	free(dir);
	return err;
}

int lo_trust_state_dir(int dirfd, const char *name, const char *shown)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return lo_error_set_errno(LO_ERROR, errno, "cannot create '%s'", shown);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return lo_error_set(LO_ERROR, "'%s' is a link or not a directory: leftover keeps "
				    "its state only in a directory of its own", shown);
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", shown);
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return lo_error_set(LO_ERROR, "'%s' belongs to another user (uid %ld): leftover "
				    "keeps its state only in a directory of its own", shown,
				    (long)st.st_uid);
	}
	return fd;
}

int lo_trust_check(const lo_trust *t, const char *program)
{
	char *cur;
	int hops, err = 0;

	if (t->vouched)
		return 0;
	if (!lo_os_path_is_absolute(program))
		return lo_error_set(LO_EINVALID, "'%s' is not run: not an absolute path", program);
	cur = lo_xstrdup(program);
	for (hops = 0; !err; hops++) {
		char *at = NULL, target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (hops > MAX_LINKS) {
			err = lo_error_set(LO_EINVALID, "'%s' is not run: more than %d links on the way",
					   program, MAX_LINKS);
			break;
		}
		if ((err = check_place(t, program, cur, &at)) < 0) {
			free(at);
			break;
		}
		if (lstat(at, &st) < 0) {
			err = lo_error_set_errno(LO_EINVALID, errno, "'%s' is not run: cannot look at "
						 "'%s'", program, at);
		} else if (!S_ISLNK(st.st_mode)) {
			const char *why = foreign(&st);

			if (!S_ISREG(st.st_mode))
				err = refuse(program, at, "is not a file");
			else if (why)
				err = refuse(program, at, why);
			free(at);
			break;
		} else if ((n = readlink(at, target, sizeof(target) - 1)) < 0) {
			err = lo_error_set_errno(LO_EINVALID, errno, "'%s' is not run: cannot read "
						 "the link '%s'", program, at);
		} else {
			/* the link's place is checked; where it points is checked next */
			target[n] = '\0';
			free(cur);
			if (lo_os_path_is_absolute(target))
				cur = lo_xstrdup(target);
			else if (asprintf(&cur, "%.*s/%s", (int)(lo_os_path_last_separator(at) - at), at,
					  target) < 0)
				abort();
		}
		free(at);
	}
	free(cur);
	return err;
}
