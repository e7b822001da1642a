/*
 * clean_restore.c - list, restore and purge quarantine sets (clean.h).
 *
 * Restore is driven by the manifest, not by what happens to lie in the set,
 * and is idempotent: a file found in place (the clean was interrupted
 * before it moved, or an earlier restore was) counts as restored, so a
 * restore can itself be interrupted and run again. A file that has
 * reappeared in the tree is never overwritten: the move does not replace
 * (lo_os_rename_noreplace; on Linux the check and the move are one step).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clean/clean_fs.h"
#include "leftover/buf.h"
#include "leftover/clean.h"
#include "leftover/error.h"
#include "leftover/os.h"

static void free_list(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* The sets in quarantine directory `qfd` that hold a manifest, sorted. */
static int list_sets(int qfd, char ***out, size_t *count)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int fd = dup(qfd);

	*out = NULL;
	*count = 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return lo_error_set_errno(LO_ERROR, errno, "cannot list the quarantine");
	}
	rewinddir(d);
	while ((de = lo_clean_readdir(d))) {
		struct stat st;
		lo_buf m = LO_BUF_INIT;
		int ok;

		if (de->d_name[0] == '.')
			continue;
		lo_buf_printf(&m, "%s/" LO_CLEAN_MANIFEST, de->d_name);
		ok = fstatat(qfd, m.ptr, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
		lo_buf_dispose(&m);
		if (!ok)
			continue;
		lo_array_grow(out, &cap, *count + 1, sizeof(char *));
		(*out)[(*count)++] = lo_xstrdup(de->d_name);
	}
	/* a listing cut short could hide the newest set, and restore would pick an older one */
	if (errno) {
		int err = errno;

		closedir(d);
		free_list(*out, *count);
		*out = NULL;
		*count = 0;
		return lo_error_set_errno(LO_ERROR, err, "cannot list the quarantine");
	}
	closedir(d);
	lo_strv_sort(*out, *count);
	return 0;
}

/*
 * The directories quarantine sets are found in: this version's, then
 * leftover 0.1's, whose sets a restore must still put back. New sets only
 * ever go into the first (clean.c).
 */
static const char *const set_dirs[] = { LO_CLEAN_DIR, LO_CLEAN_OLD_DIR };
#define SET_DIRS (sizeof(set_dirs) / sizeof(set_dirs[0]))

/*
 * Open each ROOT/<set_dirs[i]>/quarantine into qfd[i] without creating
 * anything, -1 where absent. Returns how many are open, or -1 with errno
 * on an error other than absence.
 */
static int open_quarantines(int rootfd, int qfd[SET_DIRS])
{
	size_t i;
	int n = 0, dot;

	for (i = 0; i < SET_DIRS; i++) {
		qfd[i] = -1;
		if ((dot = lo_clean_opendir(rootfd, set_dirs[i], false)) >= 0) {
			qfd[i] = lo_clean_opendir(dot, LO_CLEAN_QUARANTINE, false);
			close(dot);
		}
		/* ENOTDIR: a .leftover that is the source's rule file (in-source build) */
		if (qfd[i] < 0 && errno != ENOENT && errno != ENOTDIR) {
			int err = errno;

			while (i--)
				if (qfd[i] >= 0)
					close(qfd[i]);
			errno = err;
			return -1;
		}
		n += qfd[i] >= 0;
	}
	return n;
}

static void close_quarantines(int qfd[SET_DIRS])
{
	size_t i;

	for (i = 0; i < SET_DIRS; i++)
		if (qfd[i] >= 0)
			close(qfd[i]);
}

int lo_quarantine_list(char ***out, size_t *count, const char *root)
{
	int rootfd, qfd[SET_DIRS], rc = 0;
	char **sets;
	size_t i, j, n, cap = 0;

	*out = NULL;
	*count = 0;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	rc = open_quarantines(rootfd, qfd);
	close(rootfd);
	if (rc < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open the quarantine of '%s'", root);
	for (i = 0, rc = 0; i < SET_DIRS && rc == 0; i++) {
		if (qfd[i] < 0 || (rc = list_sets(qfd[i], &sets, &n)) < 0)
			continue;
		lo_array_grow(out, &cap, *count + n + 1, sizeof(char *));
		for (j = 0; j < n; j++)
			(*out)[(*count)++] = sets[j];
		free(sets);
	}
	close_quarantines(qfd);
	if (rc < 0) {
		free_list(*out, *count);
		*out = NULL;
		*count = 0;
		return rc;
	}
	/* a name in both is restored from the first (pick_set): listed once */
	lo_strv_sort(*out, *count);
	for (i = j = 0; i < *count; i++) {
		if (j && !strcmp((*out)[j - 1], (*out)[i]))
			free((*out)[i]);
		else
			(*out)[j++] = (*out)[i];
	}
	*count = j;
	return 0;
}

void lo_restore_result_free(lo_restore_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->entry_count; i++) {
		free(res->entries[i].path);
		free(res->entries[i].error);
	}
	free(res->entries);
	free(res->root);
	free(res->stamp);
	free(res->quarantine);
	free(res);
}

static json_t *read_manifest(int stampfd, const char *what)
{
	json_error_t jerr;
	json_t *doc;
	char *text;
	size_t len;
	int fd = LO_RETRY(openat(stampfd, LO_CLEAN_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));

	if (fd < 0) {
		lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", what);
		return NULL;
	}
	/* not json_loadfd: it reads a byte per read() and takes EINTR for the end of the file */
	if (lo_clean_read_all(fd, &text, &len) < 0) {
		lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", what);
		close(fd);
		return NULL;
	}
	close(fd);
	doc = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!doc) {
		lo_error_set(LO_EINVALID, "cannot read '%s': line %d: %s", what, jerr.line, jerr.text);
		return NULL;
	}
	if (!json_is_array(json_object_get(doc, "files"))) {
		json_decref(doc);
		lo_error_set(LO_EINVALID, "'%s' is not a leftover manifest: no \"files\" list", what);
		return NULL;
	}
	return doc;
}

static void entry_error(lo_restore_entry *e, const char *fmt, int err)
{
	lo_buf msg = LO_BUF_INIT;

	lo_buf_printf(&msg, fmt, e->path);
	if (err)
		lo_buf_printf(&msg, ": %s", strerror(err));
	e->error = lo_buf_detach(&msg);
}

/* Put one file back from the set to the tree. */
static void restore_one(lo_restore_result *res, lo_restore_entry *e, int rootfd, int stampfd)
{
	lo_dpath from, to;
	struct stat st;

	memset(&to, 0, sizeof(to));
	if (lo_dpath_init(&from, e->path) < 0) {
		entry_error(e, "manifest entry '%s' is not a plain relative path", 0);
		res->failed++;
		return;
	}
	lo_dpath_init(&to, e->path);
	if (lo_dpath_open(&from, stampfd, false) < 0 ||
	    LO_RETRY(fstatat(lo_dpath_dirfd(&from), lo_dpath_name(&from), &st,
				       AT_SYMLINK_NOFOLLOW)) < 0) {
		/*
		 * Only ENOENT says the file is not in the set. Any other error
		 * (EIO, EACCES, EINTR) leaves it unknown: taken for "in place",
		 * the set, copy included, would be removed below.
		 */
		if (errno != ENOENT) {
			entry_error(e, "cannot look for '%s' in the quarantine", errno);
			res->failed++;
			goto out;
		}
		/* not in the set: never moved, or already put back */
		if (lo_dpath_open(&to, rootfd, false) == 0 &&
		    fstatat(lo_dpath_dirfd(&to), lo_dpath_name(&to), &st, AT_SYMLINK_NOFOLLOW) == 0) {
			e->in_place = true;
			res->in_place++;
		} else {
			entry_error(e, "'%s' is neither in the quarantine nor in the tree", 0);
			res->failed++;
		}
		goto out;
	}
	if (lo_dpath_open(&to, rootfd, true) < 0) {
		entry_error(e, errno == ELOOP || errno == ENOTDIR
				       ? "cannot restore '%s': a directory on its path is now a symlink "
					 "or a file"
				       : "cannot restore '%s': cannot make its directory",
			    errno == ELOOP || errno == ENOTDIR ? 0 : errno);
		res->failed++;
		goto out;
	}
	if (lo_os_rename_noreplace(lo_dpath_dirfd(&from), lo_dpath_name(&from),
					 lo_dpath_dirfd(&to), lo_dpath_name(&to)) < 0) {
		if (errno == EEXIST) {
			entry_error(e, "'%s' has reappeared in the tree: kept the quarantined copy", 0);
			e->refused = true;
			res->refused++;
		} else {
			entry_error(e, "cannot restore '%s'", errno);
			res->failed++;
		}
		goto out;
	}
	e->status = LO_CLEAN_MOVED;
	res->restored++;
	lo_dpath_prune(&from);
out:
	lo_dpath_dispose(&from);
	lo_dpath_dispose(&to);
}

/*
 * The set to restore: `stamp`, else the newest, of whichever quarantine
 * holds it (this version's first); its name in *out, its directory's
 * index in *which.
 */
static int pick_set(const int qfd[SET_DIRS], const char *root, const char *stamp, char **out,
		    size_t *which)
{
	char **sets;
	size_t n, i, d;
	int rc;

	*out = NULL;
	for (d = 0; d < SET_DIRS; d++) {
		if (qfd[d] < 0)
			continue;
		if ((rc = list_sets(qfd[d], &sets, &n)) < 0) {
			free(*out);
			*out = NULL;
			return rc;
		}
		for (i = 0; i < n; i++) {
			bool take = stamp ? !*out && !strcmp(sets[i], stamp)
					  : i == n - 1 && (!*out || strcmp(sets[i], *out) > 0);

			if (take) {
				free(*out);
				*out = lo_xstrdup(sets[i]);
				*which = d;
			}
		}
		free_list(sets, n);
	}
	if (!*out)
		return stamp ? lo_error_set(LO_ENOTFOUND, "no quarantine set '%s' in '%s/" LO_CLEAN_DIR
					    "/" LO_CLEAN_QUARANTINE "'", stamp, root)
			     : lo_error_set(LO_ENOTFOUND, "nothing to restore: '%s' has no quarantine",
					    root);
	return 0;
}

int lo_restore_run(lo_restore_result **out, const char *root, const char *stamp,
		   const lo_clean_opts *opts)
{
	static const lo_clean_opts defaults;
	lo_restore_result *res = NULL;
	lo_buf what = LO_BUF_INIT;
	json_t *doc = NULL, *files;
	int rootfd, dotfd = -1, lockfd = -1, qfd[SET_DIRS], stampfd = -1, rc;
	size_t i, which = 0;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	for (i = 0; i < SET_DIRS; i++)
		qfd[i] = -1;
	if ((rootfd = LO_RETRY(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC))) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	/* a tree that was never cleaned is left as it is, without a lock file */
	if (open_quarantines(rootfd, qfd) <= 0) {
		rc = lo_error_set(LO_ENOTFOUND, "nothing to restore: '%s' has no quarantine", root);
		goto out;
	}
	close_quarantines(qfd);
	if ((rc = lo_clean_lock(rootfd, root, opts->wait, opts->stop, &dotfd, &lockfd)) < 0)
		goto out;
	/* again under the lock: another run may have emptied them meanwhile */
	if (open_quarantines(rootfd, qfd) <= 0) {
		rc = lo_error_set(LO_ENOTFOUND, "nothing to restore: '%s' has no quarantine", root);
		goto out;
	}
	res = lo_xcalloc(1, sizeof(*res));
	res->root = lo_xstrdup(root);
	if ((rc = pick_set(qfd, root, stamp, &res->stamp, &which)) < 0)
		goto out;
	lo_buf_printf(&what, "%s/%s/" LO_CLEAN_QUARANTINE "/%s", root, set_dirs[which], res->stamp);
	res->quarantine = lo_xstrdup(what.ptr);
	lo_buf_puts(&what, "/" LO_CLEAN_MANIFEST);
	if ((stampfd = lo_clean_opendir(qfd[which], res->stamp, false)) < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", what.ptr);
		goto out;
	}
	if (!(doc = read_manifest(stampfd, what.ptr))) {
		rc = LO_EINVALID;
		goto out;
	}
	files = json_object_get(doc, "files");
	res->entries = lo_xcalloc(json_array_size(files) + 1, sizeof(lo_restore_entry));
	res->entry_cap = json_array_size(files);
	for (i = 0; i < json_array_size(files); i++) {
		lo_restore_entry *e;

		if (opts->stop && *opts->stop) {
			res->interrupted = true;
			break;
		}
		e = &res->entries[res->entry_count++];
		e->status = LO_CLEAN_FAILED;
		if (!(e->path = lo_clean_json_get_path(json_array_get(files, i)))) {
			e->path = lo_xstrdup("?");
			e->error = lo_xstrdup("manifest entry without a path");
			res->failed++;
			continue;
		}
		if (opts->before_each)
			opts->before_each(e->path, opts->hook_payload);
		restore_one(res, e, rootfd, stampfd);
	}
	/* an emptied set goes; one still holding files keeps its manifest */
	if (!res->refused && !res->failed && !res->interrupted) {
		close(stampfd);
		stampfd = -1;
		if ((rc = lo_clean_remove_tree(qfd[which], res->stamp, 0)) < 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(doc);
	lo_buf_dispose(&what);
	if (stampfd >= 0)
		close(stampfd);
	close_quarantines(qfd);
	if (lockfd >= 0)
		close(lockfd);
	if (dotfd >= 0)
		close(dotfd);
	close(rootfd);
	if (rc < 0) {
		lo_restore_result_free(res);
		return rc;
	}
	*out = res;
	return 0;
}

/* Remove the sets in quarantine `qfd` older than `days` (0: all), counting them in *removed. */
static int purge_in(int qfd, const char *root, double days, size_t *removed)
{
	struct dirent *de;
	time_t now = time(NULL);
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0, fd;
	DIR *d;

	/* every set counts here, also one a killed clean left without a manifest */
	if ((fd = dup(qfd)) < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return lo_error_set_errno(LO_ERROR, errno, "cannot list the quarantine of '%s'", root);
	}
	while ((de = lo_clean_readdir(d))) {
		struct stat st;

		lo_buf m = LO_BUF_INIT;
		int known;

		if (de->d_name[0] == '.')
			continue;
		/* a set's age is its manifest's (written once); the directory's changes with every move */
		lo_buf_printf(&m, "%s/" LO_CLEAN_MANIFEST, de->d_name);
		known = fstatat(qfd, m.ptr, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
			fstatat(qfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		lo_buf_dispose(&m);
		if (!known)
			continue;
		if (days > 0 && difftime(now, st.st_mtime) < days * 86400.0)
			continue;
		lo_array_grow(&names, &cap, n + 1, sizeof(char *));
		names[n++] = lo_xstrdup(de->d_name);
	}
	if (errno)
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot list the quarantine of '%s'", root);
	closedir(d);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = lo_clean_remove_tree(qfd, names[i], 0)) == 0)
			(*removed)++;
	free_list(names, n);
	return rc;
}

int lo_quarantine_purge(const char *root, double days, bool wait, size_t *removed)
{
	int rootfd, dotfd = -1, lockfd = -1, qfd[SET_DIRS], rc;
	size_t i;

	*removed = 0;
	for (i = 0; i < SET_DIRS; i++)
		qfd[i] = -1;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	if ((rc = lo_clean_lock(rootfd, root, wait, NULL, &dotfd, &lockfd)) < 0)
		goto out;
	if (open_quarantines(rootfd, qfd) < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot open the quarantine of '%s'", root);
		goto out;
	}
	for (i = 0; i < SET_DIRS && rc == 0; i++)
		if (qfd[i] >= 0)
			rc = purge_in(qfd[i], root, days, removed);
out:
	close_quarantines(qfd);
	if (lockfd >= 0)
		close(lockfd);
	if (dotfd >= 0)
		close(dotfd);
	close(rootfd);
	return rc;
}
