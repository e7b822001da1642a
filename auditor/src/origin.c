/*
 * origin.c - where a build tree came from (origin.h).
 *
 * The branch a tree was built at is what explains a stale module after a
 * branch switch, and git alone does not know which commit a build dir was
 * last built at: each scan writes it down, and the first scan of a tree
 * asks git's reflog instead.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/origin.h"

static char *short_id(const char *commit)
{
	return lo_xstrndup(commit ? commit : "", 7);
}

/*
 * From a state.json: the last commit other than `head` that a scan saw (the
 * record's own when it differs, else its "previous"), each field owned or NULL.
 */
static void read_state(const char *file, const char *head, char **commit, char **branch,
		       char **when)
{
	json_t *state = json_load_file(file, 0, NULL), *last = state;

	*commit = *branch = *when = NULL;
	if (!state)
		return;
	if (head && json_is_string(json_object_get(state, "commit")) &&
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

char *lo_origin_built_at(const char *build_dir, const char *head, char **branch)
{
	lo_buf path = LO_BUF_INIT;
	char *commit, *when;

	lo_buf_printf(&path, "%s/.leftover/state.json", build_dir);
	read_state(lo_buf_cstr(&path), head, &commit, branch, &when);
	free(when);
	lo_buf_dispose(&path);
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
	lo_buf path = LO_BUF_INIT, tmp = LO_BUF_INIT;
	char when[32];
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
	lo_buf_printf(&path, "%s/.leftover/state.json", build);
	read_state(lo_buf_cstr(&path), o->commit, &o->last_commit, &o->last_branch, &o->last_time);
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
	if (!o->commit)
		goto out;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	config = lo_buildsys_cache_value(build, "CMAKE_BUILD_TYPE");
	now = json_pack("{s:s, s:s, s:s, s:s}", "commit", o->commit, "branch", o->branch,
			"time", when, "configuration", config ? config : "");
	free(config);
	if (now && o->last_commit)
		json_object_set_new(now, "previous",
				    json_pack("{s:s, s:s, s:s}", "commit", o->last_commit, "branch",
					      o->last_branch ? o->last_branch : "", "time",
					      o->last_time ? o->last_time : ""));
	lo_buf_printf(&tmp, "%s/.leftover", build);
	mkdir(lo_buf_cstr(&tmp), 0777);
	lo_buf_printf(&tmp, "/state.json.%ld", (long)getpid());
	if (now && json_dump_file(now, lo_buf_cstr(&tmp), JSON_INDENT(1)) == 0)
		rename(lo_buf_cstr(&tmp), lo_buf_cstr(&path));
	else
		unlink(lo_buf_cstr(&tmp));
	json_decref(now);
out:
	if (g != near)
		lo_git_free(g);
	lo_buf_dispose(&path);
	lo_buf_dispose(&tmp);
	return true;
}

