/*
 * buildsys.c - the build system's own records of what it produces (see
 * buildsys.h).
 *
 * Evidence is kept apart from inference. A file is "still produced" when
 * the current configuration names it: a File API artifact, an output of the
 * current Ninja manifest, a path in a live target's clean list, or an
 * output of the configure step (Makefile.cmake's CMAKE_MAKEFILE_PRODUCTS).
 * It is an orphan only when the build system recorded building it in the
 * past (the Ninja log, or a clean list of a target the codemodel no longer
 * has) and nothing current produces it. Everything else is unknown, never
 * guessed from names. The one use of times: a Ninja log line is evidence
 * only about the file ninja built, so a file at that path whose mtime lies
 * outside that run was written by something else and stays unknown.
 *
 * Paths are kept relative to the build dir, normalised (no "." or "..").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "buildsys_ninja.h"
#include "leftover/error.h"
#include "leftover/map.h"
#include "leftover/walk.h"

extern char **environ;

/* What one recorded output was built by, for the detail line. */
typedef struct record {
	lo_orphan_evidence evidence;
	long long when; /* ninja log: the mtime it recorded, in ns since the epoch; else 0 */
	long long span; /* ninja log: how long the command ran, in ns */
	long long slack; /* ninja log: the resolution of `when`, in ns */
	char *by;       /* clean list: the dead target's directory; owned */
} record;

struct lo_buildsys {
	char *dir; /* absolute build dir; owned */
	char *generator;
	char **notes;
	size_t note_count, note_cap;
	lo_map *produced; /* relpath -> (void*)1: named by the current configuration */
	lo_map *past;     /* relpath -> record*: recorded as built in the past */
	lo_map *live_dirs; /* "sub/CMakeFiles/<t>.dir" of every current target */
	bool have_codemodel, have_manifest;
	char **orphans; /* relpaths, for listing */
	size_t orphan_count, orphan_cap;
};

static void note(lo_buildsys *bs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(lo_buildsys *bs, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	lo_array_grow(&bs->notes, &bs->note_cap, bs->note_count + 1, sizeof(char *));
	bs->notes[bs->note_count++] = s;
}

/*
 * `path` (relative to `base`, itself relative to the build dir, or
 * absolute) as a normalised path relative to the build dir; NULL when it
 * lies outside.
 */
static char *normalise(const lo_buildsys *bs, const char *base, const char *path)
{
	lo_buf in = LO_BUF_INIT, out = LO_BUF_INIT;
	size_t dlen = strlen(bs->dir);
	const char *p;
	char *copy, *tok, *save = NULL;

	if (path[0] == '/') {
		if (strncmp(path, bs->dir, dlen) || (path[dlen] != '/' && path[dlen]))
			return NULL;
		lo_buf_puts(&in, path + dlen);
	} else {
		if (base && *base)
			lo_buf_printf(&in, "%s/", base);
		lo_buf_puts(&in, path);
	}
	copy = lo_buf_detach(&in);
	lo_buf_puts(&out, "");
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!out.len) { /* above the build dir */
				free(copy);
				lo_buf_dispose(&out);
				return NULL;
			}
			/* from the end: strrchr scanned from the start, quadratic in ".." */
			p = memrchr(out.ptr, '/', out.len);
			out.len = p ? (size_t)(p - out.ptr) : 0;
			out.ptr[out.len] = '\0';
			continue;
		}
		if (out.len)
			lo_buf_putc(&out, '/');
		lo_buf_puts(&out, tok);
	}
	free(copy);
	return lo_buf_detach(&out);
}

static void mark_produced(lo_buildsys *bs, const char *base, const char *path)
{
	char *rel = normalise(bs, base, path);

	if (rel)
		lo_map_put(bs->produced, rel, (void *)1);
	free(rel);
}

/*
 * Record that `path` was built in the past. The first clean list naming a
 * path keeps it; in the Ninja log a later line is a later build of the same
 * output, so it replaces the earlier one.
 */
static void mark_past(lo_buildsys *bs, const char *base, const char *path,
		      lo_orphan_evidence ev, long long when, long long span, long long slack,
		      const char *by)
{
	char *rel = normalise(bs, base, path);
	record *r;

	if (!rel)
		return;
	if (!(r = lo_map_get(bs->past, rel, NULL))) {
		r = lo_xcalloc(1, sizeof(*r));
		r->evidence = ev;
		r->by = by ? lo_xstrdup(by) : NULL;
		lo_map_put(bs->past, rel, r);
	} else if (r->evidence != LO_EVIDENCE_NINJA_LOG || ev != LO_EVIDENCE_NINJA_LOG) {
		free(rel);
		return;
	}
	r->when = when;
	r->span = span;
	r->slack = slack;
	free(rel);
}

/*
 * Open one of the build's records for reading, if it is a regular file. A
 * FIFO in its place (a hostile or half-made tree) would block the open for
 * good, a device like /dev/zero would never end: the open does not block
 * (O_NONBLOCK changes nothing for a regular file's reads) and anything
 * else is refused with EINVAL, as if the record were missing.
 */
static FILE *open_record(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (!(f = fdopen(fd, "r")))
		close(fd);
	return f;
}

/* A JSON record (open_record's rules); on failure err->text says why. */
static json_t *load_json(const char *path, json_error_t *err)
{
	FILE *f = open_record(path);
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

char *lo_buildsys_cache_value(const char *build_dir, const char *name)
{
	char line[PATH_MAX + 256];
	lo_buf path = LO_BUF_INIT;
	size_t n = strlen(name);
	char *value = NULL;
	FILE *f;

	lo_buf_printf(&path, "%s/CMakeCache.txt", build_dir);
	f = open_record(lo_buf_cstr(&path));
	lo_buf_dispose(&path);
	if (!f)
		return NULL;
	/* NAME:TYPE=VALUE, one per line; a line longer than the buffer is skipped whole */
	while (!value && fgets(line, sizeof(line), f)) {
		char *eq, *end;

		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (strncmp(line, name, n) || line[n] != ':' || !(eq = strchr(line + n, '=')))
			continue;
		end = eq + strlen(eq);
		while (end > eq + 1 && (end[-1] == '\n' || end[-1] == '\r'))
			*--end = '\0';
		value = lo_xstrdup(eq + 1);
	}
	fclose(f);
	return value;
}

/* ---- the CMake File API ---------------------------------------------------- */

static void write_query(lo_buildsys *bs)
{
	static const char *const kinds[] = { "codemodel-v2", "cmakeFiles-v1" };
	lo_buf p = LO_BUF_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		int fd;

		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/.cmake/api/v1/query/%s", bs->dir, kinds[i]);
		if (access(lo_buf_cstr(&p), F_OK) == 0)
			continue;
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s/.cmake", bs->dir);
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
			note(bs, "cannot write the File API query '%s': %s", lo_buf_cstr(&p),
			     strerror(errno));
	}
	lo_buf_dispose(&p);
}

/* The newest reply index (names sort by time), owned, with its mtime. */
static char *newest_index(const lo_buildsys *bs, time_t *mtime)
{
	lo_buf p = LO_BUF_INIT;
	char *best = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d;

	lo_buf_printf(&p, "%s/.cmake/api/v1/reply", bs->dir);
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

static json_t *load_reply(const lo_buildsys *bs, const char *file)
{
	lo_buf p = LO_BUF_INIT;
	json_error_t err;
	json_t *j;

	/* a reply file name comes from a reply: it must stay in the reply dir */
	if (strchr(file, '/'))
		return NULL;
	lo_buf_printf(&p, "%s/.cmake/api/v1/reply/%s", bs->dir, file);
	j = load_json(lo_buf_cstr(&p), &err);
	lo_buf_dispose(&p);
	return j;
}

static void read_target(lo_buildsys *bs, const char *file)
{
	json_t *t = load_reply(bs, file), *arts, *a, *name, *build;
	size_t i;

	if (!t)
		return;
	name = json_object_get(t, "name");
	build = json_object_get(json_object_get(t, "paths"), "build");
	if (json_is_string(name) && json_is_string(build)) {
		lo_buf d = LO_BUF_INIT;
		char *rel;

		/* "." is the top of the build tree */
		if (strcmp(json_string_value(build), "."))
			lo_buf_printf(&d, "%s/", json_string_value(build));
		lo_buf_printf(&d, "CMakeFiles/%s.dir", json_string_value(name));
		if ((rel = normalise(bs, NULL, lo_buf_cstr(&d))))
			lo_map_put(bs->live_dirs, rel, (void *)1);
		free(rel);
		lo_buf_dispose(&d);
	}
	arts = json_object_get(t, "artifacts");
	json_array_foreach(arts, i, a) {
		json_t *path = json_object_get(a, "path");

		if (json_is_string(path))
			mark_produced(bs, NULL, json_string_value(path));
	}
	json_decref(t);
}

static int read_codemodel(lo_buildsys *bs, const char *index_path)
{
	json_error_t err;
	json_t *index = load_json(index_path, &err), *cm, *model, *confs, *conf;
	lo_map *seen;
	size_t i, j;

	if (!index) {
		note(bs, "cannot read the File API reply '%s': %s", index_path, err.text);
		return 0;
	}
	cm = json_object_get(json_object_get(index, "reply"), "codemodel-v2");
	if (!json_is_string(json_object_get(cm, "jsonFile"))) {
		note(bs, "the File API reply has no codemodel yet; run with --reconfigure");
		json_decref(index);
		return 0;
	}
	model = load_reply(bs, json_string_value(json_object_get(cm, "jsonFile")));
	json_decref(index);
	if (!model) {
		note(bs, "cannot read the File API codemodel of '%s'", bs->dir);
		return 0;
	}
	/*
	 * every configuration: with a multi-config generator each has its own
	 * artifacts. Each target file is read once, however often it is named:
	 * a codemodel naming one big file N times cost N reads of it.
	 */
	seen = lo_map_new();
	confs = json_object_get(model, "configurations");
	json_array_foreach(confs, i, conf) {
		json_t *targets = json_object_get(conf, "targets"), *t;

		json_array_foreach(targets, j, t) {
			json_t *f = json_object_get(t, "jsonFile");

			if (!json_is_string(f) || lo_map_get(seen, json_string_value(f), NULL))
				continue;
			lo_map_put(seen, json_string_value(f), (void *)1);
			read_target(bs, json_string_value(f));
		}
	}
	lo_map_free(seen, NULL);
	json_decref(model);
	bs->have_codemodel = true;
	return 0;
}

/* Run `cmake BUILD_DIR` to refresh the reply; the command goes into the notes. */
static void reconfigure(lo_buildsys *bs)
{
	char *argv[] = { "cmake", bs->dir, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "cmake", &fa, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	note(bs, "ran: cmake %s (%s)", bs->dir,
	     WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
}

static void read_file_api(lo_buildsys *bs, unsigned flags)
{
	lo_buf cache = LO_BUF_INIT;
	struct stat st;
	time_t reply_time = 0;
	char *index;

	write_query(bs);
	lo_buf_printf(&cache, "%s/CMakeCache.txt", bs->dir);
	index = newest_index(bs, &reply_time);
	if ((!index || (stat(lo_buf_cstr(&cache), &st) == 0 && reply_time < st.st_mtime))) {
		if (flags & LO_BUILDSYS_RECONFIGURE) {
			reconfigure(bs);
			free(index);
			index = newest_index(bs, &reply_time);
		} else {
			note(bs, index ? "the File API reply is older than CMakeCache.txt; run with "
					 "--reconfigure to refresh it"
				       : "no File API reply yet (the query is now written); run with "
					 "--reconfigure, or build once more");
		}
	}
	if (index)
		read_codemodel(bs, index);
	free(index);
	lo_buf_dispose(&cache);
}

/* ---- Ninja ----------------------------------------------------------------- */

/*
 * .ninja_log: "# ninja log vN" then start, end, mtime, output, hash,
 * tab-separated. Later lines for the same output win; mtime is in
 * nanoseconds since ninja 1.10 on Linux, in seconds before.
 */
static void read_ninja_log(lo_buildsys *bs)
{
	lo_buf p = LO_BUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	lo_buf_printf(&p, "%s/.ninja_log", bs->dir);
	f = open_record(lo_buf_cstr(&p));
	lo_buf_dispose(&p);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *fields[5], *save = NULL, *tok;
		int n = 0;
		long long mtime, start, end, slack = 50000000LL;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		for (tok = strtok_r(line, "\t", &save); tok && n < 5; tok = strtok_r(NULL, "\t", &save))
			fields[n++] = tok;
		if (n < 4)
			continue;
		start = strtoll(fields[0], NULL, 10);
		end = strtoll(fields[1], NULL, 10);
		mtime = strtoll(fields[2], NULL, 10);
		if (mtime < 0 || start < 0 || end < start || end - start > 1000000000LL)
			continue; /* not a line ninja wrote; a log of 11 days' command is none */
		if (mtime < 100000000000000LL) { /* seconds: ninja before 1.10 */
			mtime = mtime > 9000000000LL ? 0 : mtime * 1000000000LL;
			slack = 1000000000LL;
		}
		mark_past(bs, NULL, fields[3], LO_EVIDENCE_NINJA_LOG, mtime,
			  (end - start) * 1000000LL, slack, NULL);
	}
	free(line);
	fclose(f);
}

/*
 * The lines of `ninja -t targets all`, "OUTPUT: RULE": every output of the
 * current manifest. The path may itself hold a colon, the rule never does.
 */
static void read_ninja_targets(lo_buildsys *bs, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0) {
		char *colon = strrchr(line, ':');

		if (colon) {
			*colon = '\0';
			mark_produced(bs, NULL, line);
		}
	}
	free(line);
}

/* The current manifest's outputs, through `ninja -C DIR -t targets all`. */
static void read_ninja_manifest(lo_buildsys *bs)
{
	char *argv[] = { "ninja", "-C", bs->dir, "-t", "targets", "all", NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], status = -1;
	pid_t pid;
	FILE *f;

	if (pipe(fds) < 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "ninja", &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(fds[0]);
		close(fds[1]);
		note(bs, "cannot run ninja to read the manifest of '%s'", bs->dir);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if ((f = fdopen(fds[0], "r"))) {
		read_ninja_targets(bs, f);
		fclose(f);
	} else {
		close(fds[0]);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		bs->have_manifest = true;
	else
		note(bs, "ninja could not list the targets of '%s'", bs->dir);
}

/* ---- Unix Makefiles: clean lists ------------------------------------------- */

/* file(REMOVE_RECURSE "a" "b" ...): every quoted string is a path relative to `base`. */
static void read_clean_list(lo_buildsys *bs, const char *file, const char *base,
			    const char *target_dir, bool live)
{
	FILE *f = open_record(file);
	lo_buf s = LO_BUF_INIT;
	int c;

	if (!f)
		return;
	while ((c = fgetc(f)) != EOF) {
		if (c == '#') { /* comment to end of line */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (c != '"')
			continue;
		lo_buf_clear(&s);
		while ((c = fgetc(f)) != EOF && c != '"') {
			if (c == '\\' && (c = fgetc(f)) == EOF)
				break;
			lo_buf_putc(&s, (char)c);
		}
		/* the foreach over per-language clean rules quotes a pattern, not a path */
		if (!s.len || strchr(lo_buf_cstr(&s), '$'))
			continue;
		if (live)
			mark_produced(bs, base, lo_buf_cstr(&s));
		else
			mark_past(bs, base, lo_buf_cstr(&s), LO_EVIDENCE_CMAKE_CLEAN_LIST, 0, 0, 0,
				  target_dir);
	}
	lo_buf_dispose(&s);
	fclose(f);
}

typedef struct clean_walk {
	lo_buildsys *bs;
	char **files; /* relpaths of cmake_clean.cmake files */
	size_t count, cap;
} clean_walk;

static int on_clean_entry(const lo_walk_entry *e, void *payload)
{
	clean_walk *cw = payload;

	if (e->err || strcmp(e->name, "cmake_clean.cmake"))
		return 0;
	lo_array_grow(&cw->files, &cw->cap, cw->count + 1, sizeof(char *));
	cw->files[cw->count++] = lo_xstrdup(e->relpath);
	return 0;
}

/*
 * Where CMake writes a clean list: BASE/CMakeFiles/<target>.dir/cmake_clean.cmake,
 * BASE (the target's build dir, relative, maybe empty) holding the paths it
 * lists. The walk hands over a file of that name from anywhere; one
 * elsewhere ("CMakeFiles/cmake_clean.cmake", "xCMakeFiles/t.dir/...") is
 * none of CMake's and is skipped. *target_dir is BASE/CMakeFiles/<target>.dir.
 */
static bool clean_list_dirs(const char *relpath, char **target_dir, char **base)
{
	static const char file[] = "/cmake_clean.cmake", cmakefiles[] = "CMakeFiles/";
	size_t len = strlen(relpath), dlen, clen = sizeof(cmakefiles) - 1;
	const char *t, *c;

	if (len <= sizeof(file) - 1)
		return false;
	dlen = len - (sizeof(file) - 1);
	/* <target>.dir is the last component of the file's dir, CMakeFiles the one before */
	for (t = relpath + dlen; t > relpath && t[-1] != '/'; t--)
		;
	if (t == relpath + dlen || (size_t)(t - relpath) < clen)
		return false;
	c = t - clen;
	if (strncmp(c, cmakefiles, clen) || (c > relpath && c[-1] != '/'))
		return false;
	*target_dir = lo_xstrndup(relpath, dlen);
	*base = lo_xstrndup(relpath, c > relpath ? (size_t)(c - relpath) - 1 : 0);
	return true;
}

/*
 * CMakeFiles/Makefile.cmake: CMAKE_MAKEFILE_PRODUCTS names what the
 * configure step itself wrote (configure_file outputs), relative to the
 * build dir. They are the current configuration's even where a dead
 * target's clean list names the same path (a generated file moved to
 * configure time). file(COPY) outputs are recorded nowhere; a dead clean
 * list naming one is still believed.
 */
static void read_makefile_products(lo_buildsys *bs)
{
	static const char key[] = "set(CMAKE_MAKEFILE_PRODUCTS";
	lo_buf p = LO_BUF_INIT, s = LO_BUF_INIT;
	char line[8192];
	bool in = false;
	FILE *f;

	lo_buf_printf(&p, "%s/CMakeFiles/Makefile.cmake", bs->dir);
	f = open_record(lo_buf_cstr(&p));
	lo_buf_dispose(&p);
	if (!f)
		return;
	/* CMake writes one quoted path per line between the set( and the ) */
	while (fgets(line, sizeof(line), f)) {
		char *q, *end;

		if (!strchr(line, '\n') && !feof(f)) { /* longer than any path: skipped whole */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (!in) {
			in = !strncmp(line, key, sizeof(key) - 1);
			continue;
		}
		if (line[strspn(line, " \t")] == ')')
			break;
		if (!(q = strchr(line, '"')) || !(end = strrchr(q + 1, '"')) || end == q + 1 ||
		    memchr(q + 1, '\\', (size_t)(end - q - 1)) || memchr(q + 1, '$', (size_t)(end - q - 1)))
			continue; /* an escape or a variable: not a plain path, not believed */
		lo_buf_clear(&s);
		lo_buf_add(&s, q + 1, (size_t)(end - q - 1));
		mark_produced(bs, NULL, lo_buf_cstr(&s));
	}
	lo_buf_dispose(&s);
	fclose(f);
}

static void read_clean_lists(lo_buildsys *bs)
{
	clean_walk cw = { bs, NULL, 0, 0 };
	size_t i;

	lo_walk_tree(bs->dir, 1, on_clean_entry, &cw);
	for (i = 0; i < cw.count; i++) {
		char *rel = cw.files[i], *target_dir, *base, *abs = NULL;
		bool live;

		if (!clean_list_dirs(rel, &target_dir, &base)) {
			free(rel);
			continue;
		}
		live = lo_map_get(bs->live_dirs, target_dir, NULL) != NULL;
		if (asprintf(&abs, "%s/%s", bs->dir, rel) < 0)
			abort();
		read_clean_list(bs, abs, base, target_dir, live);
		free(abs);
		free(base);
		free(target_dir);
		free(rel);
	}
	free(cw.files);
}

/* ---- the model ------------------------------------------------------------- */

static void free_record(void *v)
{
	record *r = v;

	if (r)
		free(r->by);
	free(r);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Orphans of the model that are still on disk, for the scan to list: only
 * the recorded paths are looked at, not the whole tree again.
 */
static void collect_orphan(const char *relpath, void *value, void *payload)
{
	lo_buildsys *bs = payload;
	lo_orphan_verdict v;
	char *abs = NULL;
	struct stat st;

	lo_buildsys_judge(bs, relpath, &v);
	if (v.orphan != 1)
		return;
	if (asprintf(&abs, "%s/%s", bs->dir, relpath) < 0)
		abort();
	if (lstat(abs, &st) == 0 && !S_ISDIR(st.st_mode)) {
		lo_array_grow(&bs->orphans, &bs->orphan_cap, bs->orphan_count + 1, sizeof(char *));
		bs->orphans[bs->orphan_count++] = lo_xstrdup(relpath);
	}
	free(abs);
}

/* An empty model of the build dir `real` (absolute, owned from here on). */
static lo_buildsys *model_new(char *real, const char *generator)
{
	lo_buildsys *bs = lo_xcalloc(1, sizeof(*bs));

	bs->dir = real;
	bs->produced = lo_map_new();
	bs->past = lo_map_new();
	bs->live_dirs = lo_map_new();
	bs->generator = generator ? lo_xstrdup(generator) : lo_buildsys_cache_value(real, "CMAKE_GENERATOR");
	if (!bs->generator)
		bs->generator = lo_xstrdup("unknown");
	return bs;
}

/* Once every record is read: the orphans still on disk, sorted. */
static void model_finish(lo_buildsys *bs)
{
	lo_map_foreach(bs->past, collect_orphan, bs);
	if (bs->orphan_count) /* qsort of a NULL array is UB even when empty (UBSan) */
		qsort(bs->orphans, bs->orphan_count, sizeof(char *), cmp_str);
}

int lo_buildsys_open(lo_buildsys **out, const char *build_dir, unsigned flags)
{
	lo_buildsys *bs;
	lo_buf cache = LO_BUF_INIT;
	char *real;

	*out = NULL;
	lo_buf_printf(&cache, "%s/CMakeCache.txt", build_dir);
	if (access(lo_buf_cstr(&cache), R_OK) != 0 || !(real = realpath(build_dir, NULL))) {
		lo_buf_dispose(&cache);
		return 0;
	}
	lo_buf_dispose(&cache);
	bs = model_new(real, NULL);
	read_file_api(bs, flags);
	if (strstr(bs->generator, "Ninja")) {
		read_ninja_log(bs);
		read_ninja_manifest(bs);
	} else if (strstr(bs->generator, "Makefiles")) {
		read_makefile_products(bs);
		if (bs->have_codemodel)
			read_clean_lists(bs);
		else
			note(bs, "without a File API codemodel, dead Makefile targets cannot be told "
				 "from live ones");
	}
	model_finish(bs);
	*out = bs;
	return 0;
}

int lo_buildsys_open_ninja(lo_buildsys **out, const char *build_dir, FILE *targets)
{
	lo_buildsys *bs;
	char *real;

	*out = NULL;
	if (!(real = realpath(build_dir, NULL)))
		return 0;
	bs = model_new(real, "Ninja");
	read_ninja_log(bs);
	read_ninja_targets(bs, targets);
	bs->have_manifest = true;
	model_finish(bs);
	*out = bs;
	return 0;
}

void lo_buildsys_free(lo_buildsys *bs)
{
	size_t i;

	if (!bs)
		return;
	for (i = 0; i < bs->note_count; i++)
		free(bs->notes[i]);
	free(bs->notes);
	for (i = 0; i < bs->orphan_count; i++)
		free(bs->orphans[i]);
	free(bs->orphans);
	lo_map_free(bs->produced, NULL);
	lo_map_free(bs->past, free_record);
	lo_map_free(bs->live_dirs, NULL);
	free(bs->generator);
	free(bs->dir);
	free(bs);
}

const char *lo_buildsys_generator(const lo_buildsys *bs)
{
	return bs->generator;
}

const char *lo_buildsys_note(const lo_buildsys *bs, size_t i)
{
	return i < bs->note_count ? bs->notes[i] : NULL;
}

const char *lo_orphan_evidence_str(lo_orphan_evidence e)
{
	switch (e) {
	case LO_EVIDENCE_NINJA_LOG: return "ninja-log";
	case LO_EVIDENCE_CMAKE_CLEAN_LIST: return "cmake-clean-list";
	case LO_EVIDENCE_NONE: break;
	}
	return "none";
}

void lo_buildsys_judge(const lo_buildsys *bs, const char *relpath, lo_orphan_verdict *v)
{
	const record *r;

	memset(v, 0, sizeof(*v));
	v->orphan = -1;
	if (lo_map_get(bs->produced, relpath, NULL)) {
		v->orphan = 0;
		return;
	}
	if (!(r = lo_map_get(bs->past, relpath, NULL)))
		return;
	/* without the current manifest, a ninja log entry proves nothing */
	if (r->evidence == LO_EVIDENCE_NINJA_LOG && !bs->have_manifest)
		return;
	/*
	 * The log speaks of the file ninja built, not of whatever is at that
	 * path now. Ninja records the output's mtime (1.11) or the command's
	 * start (later versions), so the file it built has an mtime within the
	 * command's run of it. One outside was written since by something else
	 * (a configure_file or file(COPY) that took the path over, the user):
	 * the log is no evidence about it.
	 */
	if (r->evidence == LO_EVIDENCE_NINJA_LOG && r->when > 0) {
		char *abs = NULL;
		struct stat st;
		long long m;

		if (asprintf(&abs, "%s/%s", bs->dir, relpath) < 0)
			abort();
		if (lstat(abs, &st) == 0) {
			m = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
			if (m < r->when - r->span - r->slack || m > r->when + r->span + r->slack) {
				snprintf(v->detail, sizeof(v->detail),
					 "in .ninja_log, but rewritten since ninja built it");
				free(abs);
				return;
			}
		}
		free(abs);
	}
	v->orphan = 1;
	v->evidence = r->evidence;
	if (r->evidence == LO_EVIDENCE_NINJA_LOG) {
		time_t t = (time_t)(r->when / 1000000000LL);
		struct tm tm;
		char when[64] = "at an unknown time";

		if (t > 0 && gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
		snprintf(v->detail, sizeof(v->detail),
			 "built %s (.ninja_log), not an output of the current build.ninja", when);
	} else {
		snprintf(v->detail, sizeof(v->detail),
			 "listed by %s/cmake_clean.cmake, a target the current configuration no "
			 "longer has", r->by);
	}
}

size_t lo_buildsys_orphan_count(const lo_buildsys *bs)
{
	return bs->orphan_count;
}

const char *lo_buildsys_orphan_at(const lo_buildsys *bs, size_t i)
{
	return i < bs->orphan_count ? bs->orphans[i] : NULL;
}

bool lo_buildsys_is_bookkeeping(const char *relpath)
{
	const char *base = strrchr(relpath, '/') ? strrchr(relpath, '/') + 1 : relpath;
	size_t n = strlen(base);

	return !strncmp(relpath, "CMakeFiles/", 11) || strstr(relpath, "/CMakeFiles/") ||
	       !strncmp(base, ".ninja_", 7) || !strcmp(base, "CMakeCache.txt") ||
	       (n > 2 && !strcmp(base + n - 2, ".o")) || (n > 2 && !strcmp(base + n - 2, ".d"));
}
