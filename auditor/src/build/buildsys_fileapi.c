/*
 * buildsys_fileapi.c - CMake's own records of a build tree: CMakeCache.txt
 * values, and the File API reply (codemodel-v2), the one record that names
 * every target's artifacts in every configuration (see buildsys.h).
 *
 * The stateless query is written when missing, so the next configure (or
 * --reconfigure, which runs `cmake BUILD_DIR`) answers it. A reply older
 * than CMakeCache.txt may describe another configuration: it is read (a
 * produced file is never an orphan for that), but said in a note. This
 * file does not judge: what a missing reply means for the verdict is
 * buildsys.c's rule.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/deps.h"
#include "leftover/map.h"

extern char **environ;

json_t *lo_bs_load_json(const char *path, json_error_t *err)
{
	FILE *f = lo_bs_open_record(path);
	json_t *j;

	if (!f) {
		snprintf(err->text, sizeof(err->text), "%s",
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return NULL;
	}
	j = json_loadf(f, 0, err);
	fclose(f);
	return j;
}

/* ---- CMakeCache.txt ------------------------------------------------------ */

/*
 * The next NAME:TYPE=VALUE line of a cache: *name and *value point into
 * *line, cut there; false at the end. Comments (# and //) and blank lines
 * have no NAME:TYPE= and are passed over.
 */
static bool cache_next(FILE *f, char **line, size_t *cap, const char **name, const char **value)
{
	ssize_t n;

	while ((n = getline(line, cap, f)) > 0) {
		char *colon, *eq, *l = *line;

		if (l[0] == '#' || l[0] == '/' || !(colon = strchr(l, ':')) || !(eq = strchr(colon, '=')))
			continue;
		while (n > 0 && (l[n - 1] == '\n' || l[n - 1] == '\r'))
			l[--n] = '\0';
		*colon = '\0';
		*name = l;
		*value = eq + 1;
		return true;
	}
	return false;
}

lo_map *lo_buildsys_cache_read(const char *path)
{
	const char *name, *value;
	char *line = NULL;
	size_t cap = 0;
	lo_map *vars;
	FILE *f = lo_bs_open_record(path);

	if (!f)
		return NULL;
	vars = lo_map_new();
	while (cache_next(f, &line, &cap, &name, &value))
		if (!lo_map_get(vars, name, NULL))
			lo_map_put(vars, name, lo_xstrdup(value));
	free(line);
	fclose(f);
	return vars;
}

char *lo_buildsys_cache_value(const char *build_dir, const char *name)
{
	const char *n, *v;
	lo_buf path = LO_BUF_INIT;
	char *line = NULL, *value = NULL;
	size_t cap = 0;
	FILE *f;

	lo_buf_printf(&path, "%s/CMakeCache.txt", build_dir);
	f = lo_bs_open_record(lo_buf_cstr(&path));
	lo_buf_dispose(&path);
	if (!f)
		return NULL;
	while (!value && cache_next(f, &line, &cap, &n, &v))
		if (!strcmp(n, name))
			value = lo_xstrdup(v);
	free(line);
	fclose(f);
	return value;
}

/* ---- the CMake File API ---------------------------------------------------- */

static void write_query(lo_buildsys *bs, const lo_bs_tree *t)
{
	static const char *const kinds[] = { "codemodel-v2", "cmakeFiles-v1" };
	lo_buf p = LO_BUF_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		int fd;

		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/.cmake/api/v1/query/%s", t->dir, kinds[i]);
		if (access(lo_buf_cstr(&p), F_OK) == 0)
			continue;
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/.cmake", t->dir);
		mkdir(lo_buf_cstr(&p), 0777);
		lo_buf_puts(&p, "/api");
		mkdir(lo_buf_cstr(&p), 0777);
		lo_buf_puts(&p, "/v1");
		mkdir(lo_buf_cstr(&p), 0777);
		lo_buf_puts(&p, "/query");
		mkdir(lo_buf_cstr(&p), 0777);
		lo_buf_printf(&p, "/%s", kinds[i]);
		fd = open(lo_buf_cstr(&p), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0)
			close(fd);
		else
			lo_bs_note(bs, t, "cannot write the File API query '%s': %s", lo_buf_cstr(&p),
			     strerror(errno));
	}
	lo_buf_dispose(&p);
}

/* The newest reply index (names sort by time), owned, with its mtime. */
static char *newest_index(const lo_bs_tree *t, time_t *mtime)
{
	lo_buf p = LO_BUF_INIT;
	char *best = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d;

	lo_buf_printf(&p, "%s/.cmake/api/v1/reply", t->dir);
	lo_deps_note_path(lo_buf_cstr(&p)); /* its names are read: deps.h */
	if (!(d = opendir(lo_buf_cstr(&p)))) {
		lo_buf_dispose(&p);
		return NULL;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "index-", 6) && strstr(de->d_name, ".json") &&
		    (!best || strcmp(de->d_name, best) > 0)) {
			free(best);
			best = lo_xstrdup(de->d_name);
		}
	closedir(d);
	if (best) {
		lo_buf_printf(&p, "/%s", best);
		free(best);
		best = lo_buf_detach(&p);
		*mtime = stat(best, &st) == 0 ? st.st_mtime : 0;
	}
	lo_buf_dispose(&p);
	return best;
}

static json_t *load_reply(const lo_bs_tree *t, const char *file)
{
	lo_buf p = LO_BUF_INIT;
	json_error_t err;
	json_t *j;

	/* a reply file name comes from a reply: it must stay in the reply dir */
	if (strchr(file, '/'))
		return NULL;
	lo_buf_printf(&p, "%s/.cmake/api/v1/reply/%s", t->dir, file);
	j = lo_bs_load_json(lo_buf_cstr(&p), &err);
	lo_buf_dispose(&p);
	return j;
}

/*
 * Which program loads a module, as the targets say it (a module linked to
 * an ENABLE_EXPORTS executable): gathered while the codemodel is read,
 * matched once every target is.
 */
typedef struct links {
	lo_map *exe_by_id;    /* an EXECUTABLE target's id -> its first artifact (owned) */
	lo_map *deps_by_art;  /* a library's artifact -> its dependencies' ids, one a line (owned) */
} links;

static void note_links(lo_bs_tree *t, json_t *tj, links *l)
{
	const char *type = json_string_value(json_object_get(tj, "type")), *id;
	json_t *art = json_object_get(json_array_get(json_object_get(tj, "artifacts"), 0), "path");
	json_t *dep;
	lo_buf ids = LO_BUF_INIT;
	char *rel;
	size_t i;

	id = json_string_value(json_object_get(tj, "id"));
	if (!type || !id || !json_is_string(art) ||
	    !(rel = lo_bs_normalise(t, NULL, json_string_value(art))))
		return;
	if (!strcmp(type, "EXECUTABLE") && !lo_map_get(l->exe_by_id, id, NULL)) {
		lo_map_put(l->exe_by_id, id, rel);
		return;
	}
	json_array_foreach(json_object_get(tj, "dependencies"), i, dep)
		if (json_is_string(json_object_get(dep, "id")))
			lo_buf_printf(&ids, "%s\n", json_string_value(json_object_get(dep, "id")));
	if (ids.len && (!strcmp(type, "MODULE_LIBRARY") || !strcmp(type, "SHARED_LIBRARY")) &&
	    !lo_map_get(l->deps_by_art, rel, NULL))
		lo_map_put(l->deps_by_art, rel, lo_buf_detach(&ids));
	lo_buf_dispose(&ids);
	free(rel);
}

/* A library's first dependency that is an executable is the program that loads it. */
static void match_link(const char *art, void *ids, void *payload)
{
	void **args = payload;
	lo_bs_tree *t = args[0];
	const links *l = args[1];
	const char *id = ids;

	while (*id && !lo_map_get(t->loaded_by, art, NULL)) {
		size_t n = strcspn(id, "\n");
		char *one = lo_xstrndup(id, n);
		const char *exe = lo_map_get(l->exe_by_id, one, NULL);

		if (exe)
			lo_map_put(t->loaded_by, art, lo_xstrdup(exe));
		free(one);
		id += n + (id[n] == '\n');
	}
}

static void read_target(lo_bs_tree *t, const char *file, links *l)
{
	json_t *tj = load_reply(t, file), *arts, *a, *name, *build;
	const char *by = "the File API reply";
	size_t i;

	if (!tj)
		return;
	note_links(t, tj, l);
	name = json_object_get(tj, "name");
	build = json_object_get(json_object_get(tj, "paths"), "build");
	if (json_is_string(name) && json_is_string(build)) {
		lo_buf d = LO_BUF_INIT;
		char *rel;

		lo_buf_printf(&d, "the File API reply (target %s)", json_string_value(name));
		by = lo_bs_label(t, lo_buf_cstr(&d));
		lo_buf_clear(&d);

		/* "." is the top of the build tree */
		if (strcmp(json_string_value(build), "."))
			lo_buf_printf(&d, "%s/", json_string_value(build));
		lo_buf_printf(&d, "CMakeFiles/%s.dir", json_string_value(name));
		if ((rel = lo_bs_normalise(t, NULL, lo_buf_cstr(&d))))
			lo_map_put(t->live_dirs, rel, (void *)1);
		free(rel);
		lo_buf_dispose(&d);
	}
	arts = json_object_get(tj, "artifacts");
	json_array_foreach(arts, i, a) {
		json_t *path = json_object_get(a, "path");

		if (json_is_string(path))
			lo_bs_mark_produced(t, NULL, json_string_value(path), by);
	}
	json_decref(tj);
}

static int read_codemodel(lo_buildsys *bs, lo_bs_tree *t, const char *index_path)
{
	json_error_t err;
	json_t *index = lo_bs_load_json(index_path, &err), *cm, *model, *confs, *conf;
	lo_map *seen;
	links l;
	size_t i, j;

	if (!index) {
		lo_bs_note(bs, t, "cannot read the File API reply '%s': %s", index_path, err.text);
		return 0;
	}
	cm = json_object_get(json_object_get(index, "reply"), "codemodel-v2");
	if (!json_is_string(json_object_get(cm, "jsonFile"))) {
		lo_bs_note(bs, t, "the File API reply has no codemodel yet; run with --reconfigure");
		json_decref(index);
		return 0;
	}
	model = load_reply(t, json_string_value(json_object_get(cm, "jsonFile")));
	json_decref(index);
	if (!model) {
		lo_bs_note(bs, t, "cannot read the File API codemodel of '%s'", t->dir);
		return 0;
	}
	/*
	 * every configuration: with a multi-config generator each has its own
	 * artifacts. Each target file is read once, however often it is named:
	 * a codemodel naming one big file N times cost N reads of it.
	 */
	seen = lo_map_new();
	l.exe_by_id = lo_map_new();
	l.deps_by_art = lo_map_new();
	confs = json_object_get(model, "configurations");
	json_array_foreach(confs, i, conf) {
		json_t *targets = json_object_get(conf, "targets"), *tg;

		json_array_foreach(targets, j, tg) {
			json_t *f = json_object_get(tg, "jsonFile");

			if (!json_is_string(f) || lo_map_get(seen, json_string_value(f), NULL))
				continue;
			lo_map_put(seen, json_string_value(f), (void *)1);
			read_target(t, json_string_value(f), &l);
		}
	}
	lo_map_foreach(l.deps_by_art, match_link, (void *[]){ t, &l });
	lo_map_free(l.exe_by_id, free);
	lo_map_free(l.deps_by_art, free);
	lo_map_free(seen, NULL);
	json_decref(model);
	t->have_codemodel = true;
	return 0;
}

/* Run `cmake BUILD_DIR` to refresh the reply; the command goes into the notes. */
static void reconfigure(lo_buildsys *bs, const lo_bs_tree *t)
{
	char *argv[] = { "cmake", t->dir, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "cmake", &fa, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	lo_bs_note(bs, t, "ran: cmake %s (%s)", t->dir,
	     WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
}

void lo_bs_read_file_api(lo_buildsys *bs, lo_bs_tree *t, unsigned flags)
{
	lo_buf cache = LO_BUF_INIT;
	struct stat st;
	time_t reply_time = 0;
	char *index;

	write_query(bs, t);
	lo_buf_printf(&cache, "%s/CMakeCache.txt", t->dir);
	index = newest_index(t, &reply_time);
	if ((!index || (stat(lo_buf_cstr(&cache), &st) == 0 && reply_time < st.st_mtime))) {
		if (flags & LO_BUILDSYS_RECONFIGURE) {
			reconfigure(bs, t);
			free(index);
			index = newest_index(t, &reply_time);
		} else {
			lo_bs_note(bs, t, index ? "the File API reply is older than CMakeCache.txt; run with "
					 "--reconfigure to refresh it"
				       : "no File API reply yet (the query is now written); run with "
					 "--reconfigure, or build once more");
		}
	}
	if (index)
		read_codemodel(bs, t, index);
	/*
	 * A reply older than the cache may lack a target configured since: it
	 * still names what is produced, but not every live target, so a
	 * clean list is not judged dead by it.
	 */
	if (t->have_codemodel && index && stat(lo_buf_cstr(&cache), &st) == 0 &&
	    reply_time < st.st_mtime)
		t->have_codemodel = false;
	if (t->have_codemodel)
		t->live_from = "the File API reply";
	free(index);
	lo_buf_dispose(&cache);
}

