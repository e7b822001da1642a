/*
 * origin.c - where a build tree came from (origin.h).
 *
 * The branch a tree was built at is what explains a stale module after a
 * branch switch, and git alone does not know which commit a build dir was
 * last built at: each scan writes it down, and the first scan of a tree
 * asks git's reflog instead.
 *
 * The record lives in the user's cache, not in the tree: a scan writes
 * nothing into a tree but CMake's own File API query, and in an in-source
 * build any name of ours beside CMakeCache.txt would sit where the source
 * tree's own files are (its .leftover rule file above all). It is a memory
 * of the scans, not something the scan needs: where it cannot be kept (no
 * HOME, a read-only cache, another user's), the scan goes on without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/clean.h"
#include "leftover/git.h"
#include "leftover/origin.h"
#include "leftover/os.h"

static char *short_id(const char *commit)
{
	return lo_xstrndup(commit ? commit : "", 7);
}

/*
 * The cache directory of the records, $XDG_CACHE_HOME/leftover/state (else
 * $HOME/.cache/...), owned; NULL when neither names an absolute directory.
 */
static char *state_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	/* the XDG base directory spec: a relative path is to be ignored ("Z:\x" is not) */
	if (xdg && lo_os_path_is_absolute(xdg)) {
		if (asprintf(&dir, "%s/leftover/state", xdg) < 0)
			abort();
	} else if (home && lo_os_path_is_absolute(home)) {
		if (asprintf(&dir, "%s/.cache/leftover/state", home) < 0)
			abort();
	}
	return dir;
}

/*
 * The record of the build dir `build`: the cache's file named by the
 * SHA-256 of its real path, owned, and that path in *real (owned); NULL
 * when there is no cache directory or the build dir cannot be resolved.
 */
static char *state_file(const char *build, char **real)
{
	char *dir = state_dir(), *file = NULL, hex[65];

	*real = realpath(build, NULL);
	if (dir && *real) {
		lo_clean_sha256_mem(*real, strlen(*real), hex);
		if (asprintf(&file, "%s/%s.json", dir, hex) < 0)
			abort();
	}
	free(dir);
	return file;
}

/*
 * Is `state` the record of this build dir? Its path is in it (and in its
 * name's hash); the directory's inode tells a tree removed and made again
 * at the same path, whose record would tell of another tree's commits.
 */
static bool state_is_of(json_t *state, const char *real)
{
	const char *b = json_string_value(json_object_get(state, "build"));
	json_t *ino = json_object_get(state, "inode");
	struct stat st;

	return b && !strcmp(b, real) && json_is_integer(ino) && stat(real, &st) == 0 &&
	       (json_int_t)st.st_ino == json_integer_value(ino);
}

/*
 * From the record of build dir `real`: the last commit other than `head`
 * that a scan saw (the record's own when it differs, else its "previous"),
 * each field owned or NULL.
 */
static void read_state(const char *file, const char *real, const char *head, char **commit,
		       char **branch, char **when)
{
	json_t *state = file ? json_load_file(file, 0, NULL) : NULL, *last = state;

	*commit = *branch = *when = NULL;
	if (!state)
		return;
	if (!state_is_of(state, real))
		last = NULL;
	else if (head && json_is_string(json_object_get(state, "commit")) &&
		 !strcmp(json_string_value(json_object_get(state, "commit")), head))
		last = json_object_get(state, "previous");
	if (json_is_object(last)) {
		const char *c = json_string_value(json_object_get(last, "commit"));
		const char *b = json_string_value(json_object_get(last, "branch"));
		const char *w = json_string_value(json_object_get(last, "time"));

		*commit = c ? lo_xstrdup(c) : NULL;
		*branch = b ? lo_xstrdup(b) : NULL;
		*when = w ? lo_xstrdup(w) : NULL;
	}
	json_decref(state);
}

/*
 * mkdir -p of `dir`, mode 0700 (the paths of one's build trees are one's
 * own business). True when `dir` is then a directory of ours. root makes
 * directories only inside its own: with a user's HOME (sudo) it would fill
 * that user's cache with files the user could not replace; anyone else
 * makes them where the kernel lets it (a cache under /tmp), and they are
 * that user's.
 */
static bool own_dirs(char *dir)
{
	uid_t owner = (uid_t)-1;
	struct stat st;
	char *p = dir;
	bool ok = true;

	while (ok && p) {
		if ((p = strchr(p + 1, '/')))
			*p = '\0';
		if (stat(dir, &st) == 0)
			owner = S_ISDIR(st.st_mode) ? st.st_uid : (uid_t)-1;
		else if (errno == ENOENT && (owner == geteuid() || geteuid() != 0) &&
			 mkdir(dir, 0700) == 0)
			owner = geteuid();
		else
			ok = false;
		if (p)
			*p = '/';
	}
	return ok && owner == geteuid();
}

/*
 * Write `doc` as `file` whole, through a temporary and a rename, so that
 * a reader never sees half of it. Nothing is said when it cannot be: the
 * record is a convenience the scan does without.
 */
static void write_state(const char *file, json_t *doc)
{
	char *dir = lo_xstrndup(file, (size_t)(strrchr(file, '/') - file)), *tmp = NULL;
	bool ok;
	int fd;

	if (!own_dirs(dir))
		goto out;
	if (asprintf(&tmp, "%s.%ld", file, (long)getpid()) < 0)
		abort();
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		goto out;
	ok = json_dumpfd(doc, fd, JSON_INDENT(1)) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, file) < 0)
		unlink(tmp);
out:
	free(tmp);
	free(dir);
}

char *lo_origin_state_path(const char *name, bool create)
{
	char *dir = state_dir(), *file = NULL;

	if (dir && (!create || own_dirs(dir)) && asprintf(&file, "%s/%s", dir, name) < 0)
		abort();
	free(dir);
	return file;
}

char *lo_origin_built_at(const char *build_dir, const char *head, char **branch)
{
	char *real, *file = state_file(build_dir, &real), *commit, *when;

	*branch = NULL;
	if (!file) {
		free(real);
		return NULL;
	}
	read_state(file, real, head, &commit, branch, &when);
	free(when);
	free(file);
	free(real);
	return commit;
}

/*
 * The source tree's HEAD for a build tree, against what the previous scan
 * recorded; then this scan's record.
 */
bool lo_origin_record(lo_scan_origin *o, const char *build, const char *given, lo_git *near,
		      time_t (*oldest)(void *payload), void *payload,
		      char *notes[LO_ORIGIN_NOTES_MAX])
{
	char *source = given ? realpath(given, NULL) : NULL;
	lo_git *g = NULL;
	json_t *now;
	char when[32], *real = NULL, *file;
	struct stat st;
	time_t t = time(NULL);
	struct tm tm;
	char *config;

	if (!source && !(source = lo_buildsys_cache_value(build, "CMAKE_HOME_DIRECTORY")))
		return false; /* not a build tree we know the source of */
	memset(o, 0, sizeof(*o));
	o->build = lo_xstrdup(build);
	o->source = source;
	if (near && lo_git_holds(near, source))
		g = near;
	else if (lo_git_open(&g, source) < 0)
		g = NULL;
	if (!g) {
		if (asprintf(&notes[0], "%s: no git repository at the source '%s'; the git parts "
			     "are left out", build, o->source) < 0)
			abort();
	} else {
		o->commit = lo_xstrdup(lo_git_commit(g));
		o->branch = lo_xstrdup(lo_git_branch(g));
		o->dirty = lo_git_dirty(g);
	}
	/*
	 * The record keeps this scan's commit and, under "previous", the last
	 * other commit a scan saw: the branch the tree was built at before the
	 * switch stays known however often the tree is scanned after it.
	 */
	file = state_file(build, &real);
	read_state(file, real, o->commit, &o->last_commit, &o->last_branch, &o->last_time);
	/* no scan saw it yet: where HEAD was, by git's reflog, when its oldest file was written */
	if (o->commit && !o->last_commit && (t = oldest(payload)) &&
	    lo_git_head_at(g, t, &o->last_commit, &o->last_branch) == 0 && o->last_commit &&
	    !strcmp(o->last_commit, o->commit)) {
		free(o->last_commit);
		free(o->last_branch);
		o->last_commit = o->last_branch = NULL;
	}
	t = time(NULL);
	if (o->commit && o->last_commit && strcmp(o->commit, o->last_commit)) {
		char *was = short_id(o->last_commit), *is = short_id(o->commit);

		if (asprintf(&notes[1], "%s: built at branch %s (%s), now on branch %s (%s)%s", build,
			     o->last_branch && *o->last_branch ? o->last_branch : "(detached)", was,
			     *o->branch ? o->branch : "(detached)", is,
			     o->dirty ? ", with uncommitted changes" : "") < 0)
			abort();
		free(was);
		free(is);
	}
	if (!o->commit || !file || stat(real, &st) < 0)
		goto out;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	config = lo_buildsys_cache_value(build, "CMAKE_BUILD_TYPE");
	now = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "build", real, "inode",
			(json_int_t)st.st_ino, "commit", o->commit, "branch", o->branch, "time", when,
			"configuration", config ? config : "");
	free(config);
	if (now && o->last_commit)
		json_object_set_new(now, "previous",
				    json_pack("{s:s, s:s, s:s}", "commit", o->last_commit, "branch",
					      o->last_branch ? o->last_branch : "", "time",
					      o->last_time ? o->last_time : ""));
	if (now)
		write_state(file, now);
	json_decref(now);
out:
	if (g != near)
		lo_git_free(g);
	free(file);
	free(real);
	return true;
}

