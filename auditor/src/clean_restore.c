/*
 * clean_restore.c - list, restore and purge quarantine sets (clean.h).
 *
 * Restore is driven by the manifest, not by what happens to lie in the set,
 * and is idempotent: a file found in place (the clean was interrupted
 * before it moved, or an earlier restore was) counts as restored, so a
 * restore can itself be interrupted and run again. A file that has
 * reappeared in the tree is never overwritten: renameat2 RENAME_NOREPLACE
 * makes the check and the move one step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clean_fs.h"
#include "leftover/buf.h"
#include "leftover/clean.h"
#include "leftover/error.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

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
	if (*count)
		qsort(*out, *count, sizeof(char *), cmp_str);
	return 0;
}

/* Open ROOT/.leftover/quarantine without creating anything; -1 with errno when absent. */
static int open_quarantine(int rootfd)
{
	int dot = lo_clean_opendir(rootfd, LO_CLEAN_DIR, false), q;

	if (dot < 0)
		return -1;
	q = lo_clean_opendir(dot, LO_CLEAN_QUARANTINE, false);
	close(dot);
	return q;
}

int lo_quarantine_list(char ***out, size_t *count, const char *root)
{
	int rootfd, qfd, rc;

	*out = NULL;
	*count = 0;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	qfd = open_quarantine(rootfd);
	close(rootfd);
	if (qfd < 0)
		return errno == ENOENT ? 0
				       : lo_error_set_errno(LO_ERROR, errno,
							    "cannot open the quarantine of '%s'", root);
	rc = list_sets(qfd, out, count);
	close(qfd);
	return rc;
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
	free(res);
}

static json_t *read_manifest(int stampfd, const char *what)
{
	json_error_t jerr;
	json_t *doc;
	char *text;
	size_t len;
	int fd = TEMP_FAILURE_RETRY(openat(stampfd, LO_CLEAN_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));

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
	    TEMP_FAILURE_RETRY(fstatat(lo_dpath_dirfd(&from), lo_dpath_name(&from), &st,
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
	if (TEMP_FAILURE_RETRY(renameat2(lo_dpath_dirfd(&from), lo_dpath_name(&from),
					 lo_dpath_dirfd(&to), lo_dpath_name(&to),
					 RENAME_NOREPLACE)) < 0) {
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

static int pick_set(int qfd, const char *root, const char *stamp, char **out)
{
	char **sets;
	size_t n, i;
	int rc;

	if ((rc = list_sets(qfd, &sets, &n)) < 0)
		return rc;
	*out = NULL;
	if (!stamp && n)
		*out = lo_xstrdup(sets[n - 1]);
	for (i = 0; stamp && i < n; i++)
		if (!strcmp(sets[i], stamp))
			*out = lo_xstrdup(stamp);
	free_list(sets, n);
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
	int rootfd, dotfd = -1, lockfd = -1, qfd = -1, stampfd = -1, rc;
	size_t i;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	if ((rootfd = TEMP_FAILURE_RETRY(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC))) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	/* a tree that was never cleaned is left as it is, without a lock file */
	if ((qfd = open_quarantine(rootfd)) < 0) {
		rc = lo_error_set(LO_ENOTFOUND, "nothing to restore: '%s' has no quarantine", root);
		goto out;
	}
	close(qfd);
	if ((rc = lo_clean_lock(rootfd, root, opts->wait, opts->stop, &dotfd, &lockfd)) < 0)
		goto out;
	if ((qfd = lo_clean_opendir(dotfd, LO_CLEAN_QUARANTINE, false)) < 0) {
		rc = lo_error_set(LO_ENOTFOUND, "nothing to restore: '%s' has no quarantine", root);
		goto out;
	}
	res = lo_xcalloc(1, sizeof(*res));
	res->root = lo_xstrdup(root);
	if ((rc = pick_set(qfd, root, stamp, &res->stamp)) < 0)
		goto out;
	lo_buf_printf(&what, "%s/" LO_CLEAN_DIR "/" LO_CLEAN_QUARANTINE "/%s/" LO_CLEAN_MANIFEST, root,
		      res->stamp);
	if ((stampfd = lo_clean_opendir(qfd, res->stamp, false)) < 0) {
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
		if ((rc = lo_clean_remove_tree(qfd, res->stamp, 0)) < 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(doc);
	lo_buf_dispose(&what);
	if (stampfd >= 0)
		close(stampfd);
	if (qfd >= 0)
		close(qfd);
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

int lo_quarantine_purge(const char *root, double days, bool wait, size_t *removed)
{
	struct dirent *de;
	time_t now = time(NULL);
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rootfd, dotfd = -1, lockfd = -1, qfd = -1, rc, fd;
	DIR *d;

	*removed = 0;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
	if ((rc = lo_clean_lock(rootfd, root, wait, NULL, &dotfd, &lockfd)) < 0)
		goto out;
	if ((qfd = lo_clean_opendir(dotfd, LO_CLEAN_QUARANTINE, false)) < 0) {
		rc = errno == ENOENT ? 0 : lo_error_set_errno(LO_ERROR, errno,
							      "cannot open the quarantine of '%s'", root);
		goto out;
	}
	/* every set counts here, also one a killed clean left without a manifest */
	if ((fd = dup(qfd)) < 0 || !(d = fdopendir(fd))) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot list the quarantine of '%s'", root);
		goto out;
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
out:
	free_list(names, n);
	if (qfd >= 0)
		close(qfd);
	if (lockfd >= 0)
		close(lockfd);
	if (dotfd >= 0)
		close(dotfd);
	close(rootfd);
	return rc;
}
