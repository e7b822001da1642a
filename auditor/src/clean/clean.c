/*
 * clean.c - move stale artifacts into the quarantine, or unlink them (clean.h).
 *
 * Two phases. Planning opens each file's directories from the root by
 * descriptor, stats the file without following it, hashes it and records
 * its identity (lo_os_same_file); files tracked in git are left out. The
 * manifest of the whole plan is then written and fsynced into the new
 * quarantine set before the first rename, which is what makes any
 * interruption recoverable: a file is either still in place or already
 * renamed into the set that lists it. A file whose inode changed after
 * the scan began (lo_clean_mark_scan) is left out of the plan: the verdict
 * was about other bytes. Moving re-opens the path from the root (the tree
 * may have changed since the plan, by accident or on purpose), refuses a
 * file whose identity no longer matches, and checks the identity of what
 * the rename took.
 *
 * Quarantine and tree are on the same file system in the normal case
 * (.leftover.d sits in the root), so a move is a rename that does not
 * replace (lo_os_rename_noreplace: on Linux one renameat2, atomic), data
 * never copied. A subdirectory mounted from elsewhere fails with EXDEV and
 * is reported like any other failure.
 *
 * A call interrupted by a signal (EINTR: NFS, FUSE, Ctrl-C while a call
 * blocks) is made again (LO_RETRY) rather than turned into a failed file;
 * Ctrl-C itself is honoured between two files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "leftover/git.h"
#include "leftover/os.h"

struct lo_tree_lock {
	int rootfd, dotfd, lockfd;
};

int lo_tree_lock_new(lo_tree_lock **out, const char *root, bool wait, volatile sig_atomic_t *stop)
{
	lo_tree_lock *l = lo_xcalloc(1, sizeof(*l));
	int rc;

	*out = NULL;
	l->rootfd = LO_RETRY(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (l->rootfd < 0) {
		rc = lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", root);
		free(l);
		return rc;
	}
	if ((rc = lo_clean_lock(l->rootfd, root, wait, stop, &l->dotfd, &l->lockfd)) < 0) {
		close(l->rootfd);
		free(l);
		return rc;
	}
	*out = l;
	return 0;
}

void lo_tree_lock_free(lo_tree_lock *l)
{
	if (!l)
		return;
	close(l->lockfd); /* releases the lock */
	close(l->dotfd);
	close(l->rootfd);
	free(l);
}

/* Is `lock` the lock of the directory rootfd holds? */
static int lock_covers(const lo_tree_lock *lock, int rootfd, const char *root)
{
	struct stat a, b;

	if (fstat(lock->rootfd, &a) < 0 || fstat(rootfd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return lo_error_set(LO_EUSAGE, "cannot clean '%s' under the lock of another tree", root);
	return 0;
}

/* A symlink that goes with a file (find_links): what planning learnt of it. */
typedef struct link_plan {
	char *path; /* relative to the root; owned */
	struct stat st;
	char sha[65];
} link_plan;

/* What planning learnt about one file. */
typedef struct plan {
	lo_clean_action *act;
	struct stat st; /* the identity the move checks again */
	char sha[65];
	link_plan *links; /* in act->links' order; owned */
	size_t link_count, link_cap;
} plan;

const char *lo_clean_status_str(lo_clean_status s)
{
	switch (s) {
	case LO_CLEAN_PLANNED: return "planned";
	case LO_CLEAN_MOVED: return "moved";
	case LO_CLEAN_REMOVED: return "removed";
	case LO_CLEAN_KEPT_TRACKED: return "tracked";
	case LO_CLEAN_KEPT_RULE: return "kept";
	case LO_CLEAN_FAILED: return "failed";
	}
	return "unknown";
}

void lo_clean_result_free(lo_clean_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->action_count; i++) {
		free(res->actions[i].error);
		lo_strv_free(res->actions[i].links, res->actions[i].link_count);
	}
	free(res->actions);
	free(res->root);
	free(res->stamp);
	free(res->quarantine);
	free(res);
}

/* Is `rel` (relative to the root) in the index of the repository holding the tree? */
static bool is_tracked(lo_git *g, const char *root, const char *rel)
{
	lo_buf p = LO_BUF_INIT;
	bool t;

	if (!g)
		return false;
	lo_buf_printf(&p, "%s/%s", root, rel);
	t = lo_git_tracks(g, lo_buf_cstr(&p));
	lo_buf_dispose(&p);
	return t;
}

static void fail(lo_clean_result *res, lo_clean_action *a, const char *fmt, const char *path, int err)
{
	lo_buf msg = LO_BUF_INIT;

	lo_buf_printf(&msg, fmt, path);
	if (err)
		lo_buf_printf(&msg, ": %s", strerror(err));
	free(a->error);
	a->error = lo_buf_detach(&msg);
	a->status = LO_CLEAN_FAILED;
	res->failed++;
}

void lo_clean_mark_scan(struct timespec *t)
{
	const struct timespec nap = { 0, 500000 };
	struct timespec start;

	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	do {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, t);
	} while (t->tv_sec == start.tv_sec && t->tv_nsec == start.tv_nsec);
}

/* Did the inode of st change at or after `since` (when set)? */
static bool changed_since(const struct stat *st, const struct timespec *since)
{
	if (!since->tv_sec && !since->tv_nsec)
		return false;
	return st->st_ctim.tv_sec > since->tv_sec ||
	       (st->st_ctim.tv_sec == since->tv_sec && st->st_ctim.tv_nsec >= since->tv_nsec);
}

/* Stat and hash one file through descriptors; false (and a failed action) when it cannot be. */
static bool plan_file(lo_clean_result *res, int rootfd, plan *pl, const struct timespec *since)
{
	const char *path = pl->act->file->path;
	lo_dpath dp;
	bool ok = false;
	int fd;

	if (lo_dpath_init(&dp, path) < 0) {
		fail(res, pl->act, "cannot clean '%s': not a plain path inside the root", path, 0);
		return false;
	}
	if (lo_dpath_open(&dp, rootfd, false) < 0) {
		fail(res, pl->act, errno == ELOOP || errno == ENOTDIR
				   ? "cannot clean '%s': a directory on its path is a symlink"
				   : "cannot clean '%s': cannot open its directory",
		     path, errno == ELOOP || errno == ENOTDIR ? 0 : errno);
		goto out;
	}
	if (LO_RETRY(fstatat(lo_dpath_dirfd(&dp), lo_dpath_name(&dp), &pl->st,
				       AT_SYMLINK_NOFOLLOW)) < 0) {
		fail(res, pl->act, "cannot clean '%s'", path, errno);
		goto out;
	}
	/* the verdict is about what the scan read; what is there now may be another file */
	if (changed_since(&pl->st, since)) {
		fail(res, pl->act, "left '%s' alone: it changed after the scan began, so its verdict "
		     "may not hold; run clean again", path, 0);
		goto out;
	}
	if (S_ISLNK(pl->st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = LO_RETRY(readlinkat(lo_dpath_dirfd(&dp), lo_dpath_name(&dp),
							  target, sizeof(target)));

		if (n < 0) {
			fail(res, pl->act, "cannot read link '%s'", path, errno);
			goto out;
		}
		/* the link is what moves; its digest is that of the text it holds */
		lo_clean_sha256_mem(target, (size_t)n, pl->sha);
	} else if (S_ISREG(pl->st.st_mode)) {
		struct stat st;

		fd = LO_RETRY(openat(lo_dpath_dirfd(&dp), lo_dpath_name(&dp),
					       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
		if (fd < 0) {
			fail(res, pl->act, "cannot open '%s'", path, errno);
			goto out;
		}
		if (fstat(fd, &st) < 0 || st.st_ino != pl->st.st_ino || st.st_dev != pl->st.st_dev) {
			fail(res, pl->act, "cannot clean '%s': it changed while being read", path, 0);
			close(fd);
			goto out;
		}
		if (lo_clean_sha256_fd(fd, pl->sha) < 0) {
			fail(res, pl->act, "cannot read '%s'", path, errno);
			close(fd);
			goto out;
		}
		close(fd);
	} else {
		fail(res, pl->act, "cannot clean '%s': not a regular file or a symlink", path, 0);
		goto out;
	}
	pl->act->size = (uint64_t)pl->st.st_size;
	ok = true;
out:
	lo_dpath_dispose(&dp);
	return ok;
}

/* The manifest's entry of one thing moved: f's file, or (link_of set) a link that goes with it. */
static json_t *manifest_entry(const lo_file *f, const char *path, const struct stat *st,
			      const char *sha, const char *link_of)
{
	json_t *e = json_object(), *reasons = json_array();
	size_t i;

	lo_clean_json_set_path(e, path);
	json_object_set_new(e, "size", json_integer((json_int_t)st->st_size));
	json_object_set_new(e, "mode", json_integer((json_int_t)st->st_mode));
	json_object_set_new(e, "mtime", json_integer((json_int_t)st->st_mtim.tv_sec));
	json_object_set_new(e, "mtime_nsec", json_integer((json_int_t)st->st_mtim.tv_nsec));
	json_object_set_new(e, "sha256", json_string(sha));
	json_object_set_new(e, "verdict", json_string(lo_verdict_str(f->verdict)));
	json_object_set_new(e, "symlink", json_boolean(S_ISLNK(st->st_mode)));
	if (link_of)
		json_object_set_new(e, "link_of", json_string(link_of)); /* dropped when not UTF-8 */
	for (i = 0; !link_of && i < f->reason_count; i++) {
		json_t *r = json_object();

		/* json_string refuses text that is not UTF-8: such a detail is left out */
		json_object_set_new(r, "kind", json_string(lo_reason_kind_str(f->reasons[i].kind)));
		if (f->reasons[i].detail)
			json_object_set_new(r, "detail", json_string(f->reasons[i].detail));
		json_array_append_new(reasons, r);
	}
	json_object_set_new(e, "reasons", reasons);
	return e;
}

/* Create ROOT/.leftover/quarantine/<UTC stamp>[-NN]; sets res->stamp and *qfd, *stampfd. */
static int make_set(lo_clean_result *res, int dotfd, int *qfd, int *stampfd)
{
	char base[32], name[40];
	lo_buf q = LO_BUF_INIT;
	time_t now = time(NULL);
	struct tm tm;
	int i;

	if ((*qfd = lo_clean_opendir(dotfd, LO_CLEAN_QUARANTINE, true)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot create '%s/" LO_CLEAN_DIR
				          "/" LO_CLEAN_QUARANTINE "'", res->root);
	gmtime_r(&now, &tm);
	strftime(base, sizeof(base), "%Y%m%dT%H%M%SZ", &tm);
	/* "-NN" sorts after the bare stamp, so names stay in time order */
	for (i = 0; i < 100; i++) {
		if (i)
			snprintf(name, sizeof(name), "%s-%02d", base, i);
		else
			snprintf(name, sizeof(name), "%s", base);
		if (LO_RETRY(mkdirat(*qfd, name, 0755)) == 0)
			break;
		if (errno != EEXIST)
			return lo_error_set_errno(LO_ERROR, errno, "cannot create quarantine set in "
						  "'%s/" LO_CLEAN_DIR "'", res->root);
	}
	if (i == 100 || (*stampfd = lo_clean_opendir(*qfd, name, false)) < 0)
		return lo_error_set(LO_ERROR, "cannot create a quarantine set in '%s/" LO_CLEAN_DIR "'",
				    res->root);
	res->stamp = lo_xstrdup(name);
	lo_buf_printf(&q, "%s/" LO_CLEAN_DIR "/" LO_CLEAN_QUARANTINE "/%s", res->root, name);
	res->quarantine = lo_buf_detach(&q);
	/* the new set must survive a crash as well as the manifest inside it */
	if (LO_RETRY(fsync(*qfd)) < 0 || LO_RETRY(fsync(dotfd)) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot flush '%s'", res->quarantine);
	return 0;
}

static int write_manifest(lo_clean_result *res, int stampfd, const plan *plans, size_t n)
{
	json_t *doc = json_object(), *files = json_array();
	lo_buf what = LO_BUF_INIT;
	size_t i;
	int rc;

	json_object_set_new(doc, "leftover-manifest", json_integer(1));
	json_object_set_new(doc, "stamp", json_string(res->stamp));
	json_object_set_new(doc, "root", json_string(res->root)); /* dropped when not UTF-8 */
	for (i = 0; i < n; i++) {
		const plan *pl = &plans[i];
		size_t j;

		if (pl->act->status != LO_CLEAN_PLANNED || pl->act->remove)
			continue;
		json_array_append_new(files, manifest_entry(pl->act->file, pl->act->file->path,
							    &pl->st, pl->sha, NULL));
		for (j = 0; j < pl->link_count; j++)
			json_array_append_new(files, manifest_entry(pl->act->file, pl->links[j].path,
								    &pl->links[j].st, pl->links[j].sha,
								    pl->act->file->path));
	}
	json_object_set_new(doc, "files", files);
	lo_buf_printf(&what, "%s/" LO_CLEAN_MANIFEST, res->quarantine);
	rc = lo_clean_write_json(stampfd, LO_CLEAN_MANIFEST, doc, what.ptr);
	lo_buf_dispose(&what);
	json_decref(doc);
	return rc;
}

/* A link of pl's that stays where it is after all: out of its action's list, the reason in its error. */
static void link_stays(plan *pl, size_t j, const char *why, int err)
{
	lo_clean_action *a = pl->act;
	lo_buf msg = LO_BUF_INIT;

	if (a->error)
		lo_buf_printf(&msg, "%s; ", a->error);
	lo_buf_printf(&msg, why, pl->links[j].path, a->file->path);
	if (err)
		lo_buf_printf(&msg, ": %s", strerror(err));
	free(a->error);
	a->error = lo_buf_detach(&msg);
	free(a->links[j]);
	memmove(&a->links[j], &a->links[j + 1], (a->link_count - j - 1) * sizeof(char *));
	a->link_count--;
	free(pl->links[j].path);
	memmove(&pl->links[j], &pl->links[j + 1], (pl->link_count - j - 1) * sizeof(link_plan));
	pl->link_count--;
}

/*
 * After pl's file has gone: its links go the same way, each checked to be
 * the link planning saw. One that cannot go stays, said in the action's
 * error; the file's own move stands.
 */
static void move_links(int rootfd, int stampfd, plan *pl)
{
	size_t j = 0;

	while (j < pl->link_count) {
		lo_dpath src, dst;
		struct stat st;
		int rc = -1;

		memset(&dst, 0, sizeof(dst));
		lo_dpath_init(&src, pl->links[j].path);
		if (lo_dpath_open(&src, rootfd, false) < 0 ||
		    LO_RETRY(fstatat(lo_dpath_dirfd(&src), lo_dpath_name(&src), &st,
					       AT_SYMLINK_NOFOLLOW)) < 0 ||
		    !lo_os_same_file(&st, &pl->links[j].st)) {
			link_stays(pl, j, "left link '%s' to '%s' alone: it changed after the scan", 0);
		} else if (pl->act->remove) {
			if ((rc = LO_RETRY(unlinkat(lo_dpath_dirfd(&src), lo_dpath_name(&src),
							      0))) < 0)
				link_stays(pl, j, "cannot remove link '%s' to '%s'", errno);
		} else {
			lo_dpath_init(&dst, pl->links[j].path);
			if ((rc = lo_dpath_open(&dst, stampfd, true)) == 0)
				rc = lo_os_rename_noreplace(lo_dpath_dirfd(&src), lo_dpath_name(&src),
								  lo_dpath_dirfd(&dst),
								  lo_dpath_name(&dst));
			if (rc < 0)
				link_stays(pl, j, "cannot move link '%s' to '%s' into the quarantine", errno);
		}
		j += rc == 0;
		lo_dpath_dispose(&src);
		lo_dpath_dispose(&dst);
	}
}

/* Move (or unlink) one planned file, re-checking its identity on the way. */
static void act_on(lo_clean_result *res, const lo_clean_opts *opts, int rootfd, int stampfd,
		   plan *pl)
{
	const char *path = pl->act->file->path;
	lo_dpath src, dst;
	struct stat st;

	if (opts->before_each)
		opts->before_each(path, opts->hook_payload);
	if (lo_dpath_init(&src, path) < 0) {
		fail(res, pl->act, "cannot clean '%s': not a plain path inside the root", path, 0);
		return;
	}
	memset(&dst, 0, sizeof(dst));
	if (lo_dpath_open(&src, rootfd, false) < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			fail(res, pl->act, "left '%s' alone: a directory on its path became a symlink "
			     "after the scan", path, 0);
		else
			fail(res, pl->act, "cannot clean '%s': cannot open its directory", path, errno);
		goto out;
	}
	if (LO_RETRY(fstatat(lo_dpath_dirfd(&src), lo_dpath_name(&src), &st,
				       AT_SYMLINK_NOFOLLOW)) < 0 || !lo_os_same_file(&st, &pl->st)) {
		fail(res, pl->act, "left '%s' alone: it was replaced after the scan", path, 0);
		goto out;
	}
	if (pl->act->remove) {
		/* held open across the unlink to read the ctime it leaves (other_names_of) */
		int fd = st.st_nlink > 1 ? LO_RETRY(openat(lo_dpath_dirfd(&src), lo_dpath_name(&src),
							   lo_os_open_path | O_NOFOLLOW | O_CLOEXEC))
					 : -1;

		if (LO_RETRY(unlinkat(lo_dpath_dirfd(&src), lo_dpath_name(&src), 0)) < 0) {
			fail(res, pl->act, "cannot remove '%s'", path, errno);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (fd >= 0 && fstat(fd, &st) == 0)
			pl->st.st_ctim = st.st_ctim;
		if (fd >= 0)
			close(fd);
		pl->act->status = LO_CLEAN_REMOVED;
	} else {
		lo_dpath_init(&dst, path);
		if (lo_dpath_open(&dst, stampfd, true) < 0) {
			fail(res, pl->act, "cannot make room for '%s' in the quarantine", path, errno);
			goto out;
		}
		if (lo_os_rename_noreplace(lo_dpath_dirfd(&src), lo_dpath_name(&src),
						 lo_dpath_dirfd(&dst), lo_dpath_name(&dst)) < 0) {
			fail(res, pl->act, errno == EXDEV
					   ? "cannot move '%s' into the quarantine: another file system"
					   : "cannot move '%s' into the quarantine",
			     path, errno == EXDEV ? 0 : errno);
			goto out;
		}
		/*
		 * The rename takes whatever is at the path by then: a file put
		 * there since the check above goes back (nothing can be at its
		 * place unless a third file came in the meantime). The rename
		 * itself sets the ctime; the inode, size and mtime still tell.
		 */
		if (LO_RETRY(fstatat(lo_dpath_dirfd(&dst), lo_dpath_name(&dst), &st,
					       AT_SYMLINK_NOFOLLOW)) == 0 &&
		    (st.st_dev != pl->st.st_dev || st.st_ino != pl->st.st_ino ||
		     st.st_size != pl->st.st_size || st.st_mtim.tv_sec != pl->st.st_mtim.tv_sec ||
		     st.st_mtim.tv_nsec != pl->st.st_mtim.tv_nsec)) {
			if (lo_os_rename_noreplace(lo_dpath_dirfd(&dst), lo_dpath_name(&dst),
							 lo_dpath_dirfd(&src), lo_dpath_name(&src)) == 0)
				fail(res, pl->act, "left '%s' alone: it was replaced after the scan",
				     path, 0);
			else
				fail(res, pl->act, "'%s' was replaced while being moved and another file "
				     "took its place: the one moved is in the quarantine", path, 0);
			goto out;
		}
		pl->act->status = LO_CLEAN_MOVED;
		pl->st.st_ctim = st.st_ctim; /* the rename's: another link of it shows the same */
	}
	res->done++;
	move_links(rootfd, stampfd, pl);
	lo_dpath_prune(&src);
out:
	lo_dpath_dispose(&src);
	lo_dpath_dispose(&dst);
}

/* The rule states a file is in (LO_RULES_ON_*). */
static unsigned states_of(const lo_file *f)
{
	return (f->verdict == LO_VERDICT_STALE ? LO_RULES_ON_STALE : 0) |
	       (f->verdict == LO_VERDICT_BROKEN ? LO_RULES_ON_BROKEN : 0) |
	       (f->orphan == LO_TRUE ? LO_RULES_ON_ORPHAN : 0);
}

/* What to do with f: -1 nothing, else its action (a rule's, or the options'). */
static int decide(const lo_scan_result *scan, const lo_file *f, const lo_clean_opts *opts)
{
	const lo_rule *rule = NULL;
	/* a suspected file asked for (--suspected) is acted on as a stale one, rules too */
	unsigned on = states_of(f) | (opts->suspected && f->suspected ? LO_RULES_ON_STALE : 0);

	if (!on)
		return -1;
	if (opts->rules) {
		char *path = lo_scan_rules_path(scan, f->path);

		rule = lo_rules_rule_for(opts->rules, path, on);
		free(path);
	}
	if (rule && rule->action != LO_RULES_ACTION_REPORT)
		return (int)rule->action;
	if (f->verdict == LO_VERDICT_STALE || (opts->broken && f->verdict == LO_VERDICT_BROKEN) ||
	    (opts->suspected && f->suspected))
		return opts->remove ? LO_RULES_ACTION_DELETE : LO_RULES_ACTION_QUARANTINE;
	return -1;
}

/* A symlink of a directory: its name and the text it holds. */
typedef struct dir_link {
	char *name, *target;
} dir_link;

/*
 * The symlinks of directory `dfd`, owned, in *out. A listing that fails
 * gives fewer: a link not found stays where it is, as before clean knew
 * of links (the next scan reports it dangling).
 */
static size_t read_links(int dfd, dir_link **out)
{
	size_t n = 0, cap = 0;
	struct dirent *de;
	int fd = dup(dfd);
	DIR *d;

	*out = NULL;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = lo_clean_readdir(d))) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t len;

		if (de->d_type != DT_LNK &&
		    (de->d_type != DT_UNKNOWN || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISLNK(st.st_mode)))
			continue;
		len = LO_RETRY(readlinkat(dfd, de->d_name, target, sizeof(target) - 1));
		if (len < 0)
			continue;
		target[len] = '\0';
		lo_array_grow(out, &cap, n + 1, sizeof(dir_link));
		(*out)[n].name = lo_xstrdup(de->d_name);
		(*out)[n++].target = lo_xstrdup(target);
	}
	closedir(d);
	return n;
}

/* Does links[j] lead to `name`, through links of the same directory only? */
static bool leads_to(const dir_link *links, size_t n, size_t j, const char *name)
{
	const char *at = links[j].target;
	size_t hops, k;

	/* n hops at most: a loop of links leads nowhere */
	for (hops = 0; hops <= n && !strchr(at, '/'); hops++) {
		if (!strcmp(at, name))
			return true;
		for (k = 0; k < n && strcmp(links[k].name, at); k++)
			;
		if (k == n)
			return false;
		at = links[k].target;
	}
	return false;
}

/* Does this clean act on `path` already, as a file or a link going with one? */
static bool taken(const lo_clean_result *res, const char *path)
{
	size_t i, j;

	for (i = 0; i < res->action_count; i++) {
		if (!strcmp(res->actions[i].file->path, path))
			return true;
		for (j = 0; j < res->actions[i].link_count; j++)
			if (!strcmp(res->actions[i].links[j], path))
				return true;
	}
	return false;
}

/* Add the link `name` of pl's directory (dfd) to pl, unless it must stay. */
static void add_link(lo_clean_result *res, const lo_scan_result *scan, const lo_clean_opts *opts,
		     lo_git *git, plan *pl, int dfd, const char *name)
{
	const char *path = pl->act->file->path, *slash = lo_os_path_last_separator(path);
	lo_clean_action *a = pl->act;
	const lo_rule *rule = NULL;
	char target[PATH_MAX], *rel;
	link_plan lp;
	ssize_t len;
	size_t cap;

	if (asprintf(&rel, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, name) < 0)
		abort();
	if (opts->rules) {
		char *rules_path = lo_scan_rules_path(scan, rel);

		rule = lo_rules_rule_for(opts->rules, rules_path, states_of(a->file));
		free(rules_path);
	}
	/* a link the current build makes points at its file next time it builds */
	if (taken(res, rel) || is_tracked(git, res->root, rel) ||
	    (rule && rule->action == LO_RULES_ACTION_KEEP) || lo_scan_produced(scan, rel) ||
	    LO_RETRY(fstatat(dfd, name, &lp.st, AT_SYMLINK_NOFOLLOW)) < 0 ||
	    !S_ISLNK(lp.st.st_mode) || changed_since(&lp.st, &opts->scan_began) ||
	    (len = LO_RETRY(readlinkat(dfd, name, target, sizeof(target)))) < 0) {
		free(rel);
		return;
	}
	lo_clean_sha256_mem(target, (size_t)len, lp.sha);
	lp.path = rel;
	cap = pl->link_cap; /* a->links grows with pl->links */
	lo_array_grow(&pl->links, &pl->link_cap, pl->link_count + 1, sizeof(lp));
	pl->links[pl->link_count++] = lp;
	lo_array_grow(&a->links, &cap, a->link_count + 1, sizeof(char *));
	a->links[a->link_count++] = lo_xstrdup(rel);
}

/*
 * The symlinks beside pl's file that lead to it through links there only
 * (a soname chain: libX.so.1 -> libX.so.1.0): left behind they would
 * dangle, and the next scan would report each as a finding of its own,
 * one clean and one restore more. So they go where the file goes, each
 * in the manifest. Never one this clean acts on anyway, one tracked in
 * git or kept by a rule, nor one the current build makes.
 */
static void find_links(lo_clean_result *res, const lo_scan_result *scan,
		       const lo_clean_opts *opts, lo_git *git, int rootfd, plan *pl)
{
	dir_link *links = NULL;
	size_t n = 0, j;
	lo_dpath dp;

	if (lo_dpath_init(&dp, pl->act->file->path) < 0)
		return;
	if (lo_dpath_open(&dp, rootfd, false) == 0)
		n = read_links(lo_dpath_dirfd(&dp), &links);
	for (j = 0; j < n; j++)
		if (leads_to(links, n, j, lo_dpath_name(&dp)))
			add_link(res, scan, opts, git, pl, lo_dpath_dirfd(&dp), links[j].name);
	for (j = 0; j < n; j++) {
		free(links[j].name);
		free(links[j].target);
	}
	free(links);
	lo_dpath_dispose(&dp);
}

/*
 * The tree's lock for a clean that changes something: the caller's when it
 * holds one (then *lockfd stays -1: nothing of it is ours to close), else
 * our own. A dry run changes nothing and takes none.
 */
static int take_lock(const char *root, const lo_clean_opts *opts, int rootfd, int *dotfd,
		     int *lockfd)
{
	int rc;

	if (opts->dry_run)
		return 0;
	if (opts->lock) {
		if ((rc = lock_covers(opts->lock, rootfd, root)) < 0)
			return rc;
		*dotfd = opts->lock->dotfd;
		return 0;
	}
	return lo_clean_lock(rootfd, root, opts->wait, opts->stop, dotfd, lockfd);
}

/*
 * Moving or unlinking a file changes its inode's ctime, which every other
 * hard link of it shows: a link planned later would look replaced. The
 * change was ours, so those plans take the ctime the move or unlink left.
 */
static void other_names_of(plan *plans, size_t i, size_t n)
{
	size_t j;

	if ((plans[i].act->status != LO_CLEAN_MOVED && plans[i].act->status != LO_CLEAN_REMOVED) ||
	    plans[i].st.st_nlink < 2)
		return;
	for (j = i + 1; j < n; j++)
		if (plans[j].act->status == LO_CLEAN_PLANNED &&
		    plans[j].st.st_dev == plans[i].st.st_dev && plans[j].st.st_ino == plans[i].st.st_ino)
			plans[j].st.st_ctim = plans[i].st.st_ctim;
}

/*
 * A hard link of a file an earlier action did the same to (moved, removed,
 * planned) is that file under another name (scan.c merges the stale links
 * of one file): the summary counts it, and its bytes, once.
 */
static void count_once(lo_clean_result *res, const plan *plans, size_t n)
{
	size_t i, j;

	res->bytes = 0;
	for (i = 0; i < n; i++) {
		lo_clean_action *a = plans[i].act;

		if (a->status != LO_CLEAN_MOVED && a->status != LO_CLEAN_REMOVED &&
		    a->status != LO_CLEAN_PLANNED)
			continue;
		for (j = 0; j < i && plans[i].st.st_nlink > 1 && !a->another_name; j++)
			a->another_name = plans[j].act->status == a->status &&
					  plans[j].st.st_dev == plans[i].st.st_dev &&
					  plans[j].st.st_ino == plans[i].st.st_ino;
		if (!a->another_name && a->status != LO_CLEAN_PLANNED)
			res->bytes += a->size;
	}
}

/* The files acted on: the scan's, then the other hard links of stale ones (scan.h). */
static const lo_file *file_at(const lo_scan_result *scan, size_t i)
{
	return i < scan->file_count ? &scan->files[i] : &scan->links[i - scan->file_count];
}

/*
 * One action and plan per file decide() takes, each planned (stat, hash)
 * unless kept or tracked, then the links that go with the planned ones;
 * how many were planned, and of those how many go to the quarantine.
 */
static void plan_all(lo_clean_result *res, const lo_scan_result *scan, const lo_clean_opts *opts,
		     int rootfd, plan *plans, size_t *planned, size_t *quarantined)
{
	lo_git *git = NULL; /* none, a bare one or an unreadable index: nothing is tracked */
	size_t i;

	lo_git_open(&git, scan->root);
	for (i = 0; i < scan->file_count + scan->link_count; i++) {
		int what = decide(scan, file_at(scan, i), opts);
		lo_clean_action *a;
		plan *pl;

		if (what < 0)
			continue;
		a = &res->actions[res->action_count];
		pl = &plans[res->action_count++];
		a->file = file_at(scan, i);
		a->status = LO_CLEAN_PLANNED;
		a->remove = what == LO_RULES_ACTION_DELETE;
		pl->act = a;
		if (what == LO_RULES_ACTION_KEEP) {
			a->status = LO_CLEAN_KEPT_RULE;
			res->kept++;
		} else if (is_tracked(git, scan->root, a->file->path)) {
			a->status = LO_CLEAN_KEPT_TRACKED;
			res->tracked++;
		} else if (plan_file(res, rootfd, pl, &opts->scan_began)) {
			(*planned)++;
			*quarantined += !a->remove;
		}
	}
	for (i = 0; i < res->action_count; i++)
		if (plans[i].act->status == LO_CLEAN_PLANNED)
			find_links(res, scan, opts, git, rootfd, &plans[i]);
	lo_git_free(git);
}

bool lo_clean_has_work(const lo_scan_result *scan, const lo_clean_opts *opts)
{
	size_t i;

	for (i = 0; i < scan->file_count + scan->link_count; i++)
		if (decide(scan, file_at(scan, i), opts) >= 0)
			return true;
	return false;
}

int lo_clean_run(lo_clean_result **out, const lo_scan_result *scan, const lo_clean_opts *opts)
{
	static const lo_clean_opts defaults;
	lo_clean_result *res;
	plan *plans = NULL;
	size_t i, n = 0, planned = 0, quarantined = 0;
	int rootfd, dotfd = -1, lockfd = -1, qfd = -1, stampfd = -1, rc = 0;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	rootfd = LO_RETRY(open(scan->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (rootfd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open build tree '%s'", scan->root);
	if ((rc = take_lock(scan->root, opts, rootfd, &dotfd, &lockfd)) < 0) {
		close(rootfd);
		return rc;
	}
	res = lo_xcalloc(1, sizeof(*res));
	res->root = lo_xstrdup(scan->root);
	for (i = 0; i < scan->file_count + scan->link_count; i++)
		if (decide(scan, file_at(scan, i), opts) >= 0)
			n++;
	res->actions = lo_xcalloc(n ? n : 1, sizeof(lo_clean_action));
	res->action_cap = n;
	plans = lo_xcalloc(n ? n : 1, sizeof(plan));
	plan_all(res, scan, opts, rootfd, plans, &planned, &quarantined);
	if (opts->dry_run || !planned)
		goto out;
	if (quarantined) {
		if ((rc = make_set(res, dotfd, &qfd, &stampfd)) < 0 ||
		    (rc = write_manifest(res, stampfd, plans, res->action_count)) < 0)
			goto out;
	}
	for (i = 0; i < res->action_count; i++) {
		if (opts->stop && *opts->stop) {
			res->interrupted = true;
			break;
		}
		if (plans[i].act->status == LO_CLEAN_PLANNED) {
			act_on(res, opts, rootfd, stampfd, &plans[i]);
			other_names_of(plans, i, res->action_count);
		}
	}
out:
	if (rc < 0 && qfd >= 0 && res->stamp) {
		char msg[1024];

		/* nothing has moved yet: take the half-made set away again */
		snprintf(msg, sizeof(msg), "%s", lo_error_last());
		lo_clean_remove_tree(qfd, res->stamp, 0);
		lo_error_set(rc, "%s", msg);
		free(res->stamp);
		free(res->quarantine);
		res->stamp = res->quarantine = NULL;
	}
	if (stampfd >= 0)
		close(stampfd);
	if (qfd >= 0)
		close(qfd);
	if (lockfd >= 0) { /* our own lock, not the caller's */
		close(lockfd); /* releases the lock */
		close(dotfd);
	}
	close(rootfd);
	count_once(res, plans, res->action_count);
	for (i = 0; i < res->action_count; i++) {
		while (plans[i].link_count)
			free(plans[i].links[--plans[i].link_count].path);
		free(plans[i].links);
	}
	free(plans);
	if (rc < 0) {
		lo_clean_result_free(res);
		return rc;
	}
	*out = res;
	return 0;
}
