/*
 * buildsys_meson.c - what a meson build dir records of itself, read without
 * running meson (see buildsys.c for the rule the judge applies).
 *
 * meson builds with ninja, so its tree is also read as a Ninja tree
 * (buildsys_ninja.c): build.ninja says what the current configuration
 * produces, .ninja_log what was built in the past. meson adds, rewritten
 * at every configure, meson-info/: intro-targets.json names every target's
 * outputs ("filename", absolute paths) and intro-installed.json every file
 * `meson install` copies (build path -> destination). What they name is
 * still produced, by the record the user knows meson by; they are read
 * first, so that explain names them. Neither says what was built in the
 * past: a dropped module is the Ninja log's to judge.
 *
 * Each target has a private directory beside its output, `<output>.p/`
 * (objects, generated headers, precompiled headers): bookkeeping, never a
 * candidate, however its files are named (`x.so.p/x.c.o` matches `*.so.*`).
 *
 * The interpreter of import('python').find_installation() is recorded in a
 * readable form only in meson-logs/meson-log.txt, the log of the last
 * configure (meson-private/ holds pickles, meson-info/ gives the python
 * dependency's version and include dirs, not the program).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/map.h"

/* The introspection format read here: meson-info.json's "introspection" "version" "major". */
#define INTRO_MAJOR 1

bool lo_bs_is_meson_dir(const char *dir)
{
	lo_buf p = LO_BUF_INIT;
	bool yes;

	lo_buf_printf(&p, "%s/meson-info/meson-info.json", dir);
	yes = access(lo_buf_cstr(&p), F_OK) == 0;
	lo_buf_dispose(&p);
	return yes;
}

static json_t *load_info(lo_buildsys *bs, lo_bs_tree *t, const char *name)
{
	lo_buf p = LO_BUF_INIT;
	json_error_t err;
	json_t *j;

	lo_buf_printf(&p, "%s/meson-info/%s", t->dir, name);
	if (!(j = lo_bs_load_json(lo_buf_cstr(&p), &err)))
		lo_bs_note(bs, t, "cannot read meson-info/%s: %s", name, err.text);
	lo_buf_dispose(&p);
	return j;
}

/* intro-targets.json: [{"name": ..., "filename": ["/abs/out", ...]}, ...] */
static void read_targets(lo_buildsys *bs, lo_bs_tree *t)
{
	json_t *all = load_info(bs, t, "intro-targets.json"), *tg, *f;
	lo_buf by = LO_BUF_INIT;
	size_t i, j;

	json_array_foreach(all, i, tg) {
		json_t *name = json_object_get(tg, "name");

		lo_buf_clear(&by);
		lo_buf_printf(&by, "meson-info/intro-targets.json (target %s)",
			      json_is_string(name) ? json_string_value(name) : "without a name");
		json_array_foreach(json_object_get(tg, "filename"), j, f)
			if (json_is_string(f))
				lo_bs_mark_produced(t, NULL, json_string_value(f),
						    lo_bs_label(t, lo_buf_cstr(&by)));
	}
	lo_buf_dispose(&by);
	json_decref(all);
}

/* intro-installed.json: {"/abs/build/path": "/install/path", ...}; sources lie outside */
static void read_installed(lo_buildsys *bs, lo_bs_tree *t)
{
	json_t *all = load_info(bs, t, "intro-installed.json"), *v;
	const char *path;

	json_object_foreach(all, path, v)
		lo_bs_mark_produced(t, NULL, path, "meson-info/intro-installed.json");
	json_decref(all);
}

void lo_bs_read_meson(lo_buildsys *bs, lo_bs_tree *t)
{
	json_t *info = load_info(bs, t, "meson-info.json");
	json_t *major = json_object_get(
		json_object_get(json_object_get(info, "introspection"), "version"), "major");

	if (!info)
		return;
	if (json_is_true(json_object_get(info, "error"))) {
		lo_bs_note(bs, t, "meson's last configure failed (meson-info/meson-info.json): "
			   "meson-info/ not read");
	} else if (!json_is_integer(major) || json_integer_value(major) != INTRO_MAJOR) {
		lo_bs_note(bs, t, "meson-info/ is of an introspection format this reader does not "
			   "know (not %d.x): not read", INTRO_MAJOR);
	} else {
		read_targets(bs, t);
		read_installed(bs, t);
	}
	json_decref(info);
}

bool lo_buildsys_is_private(const lo_buildsys *bs, const char *relpath)
{
	const lo_bs_tree *t = lo_bs_tree_of(bs, relpath);
	const char *rel, *slash;

	if (!t || !t->meson)
		return false;
	/* every directory on the path within the tree, not the file's own name */
	for (rel = relpath + strlen(t->prefix); (slash = strchr(rel, '/')); rel = slash + 1)
		if (slash - rel > 2 && !strncmp(slash - 2, ".p", 2))
			return true;
	return false;
}

/* ---- the configured interpreter ------------------------------------------------ */

/* Is `name`, as meson logs a program, a Python's: python, python3, python3.12, pypy3? */
static bool python_named(const char *name, size_t len)
{
	const char *base = lo_memrchr(name, '/', len);

	if (base) {
		len -= (size_t)(base + 1 - name);
		name = base + 1;
	}
	return (len >= 6 && !strncmp(name, "python", 6)) || (len >= 4 && !strncmp(name, "pypy", 4));
}

/*
 * One line of meson-log.txt: "Program NAME[ (MODULES)] found: YES[ VERSION] (COMMAND)[ ...]",
 * as find_installation and find_program write it. The COMMAND of a Python's
 * line when it is one absolute path, owned; else NULL.
 */
static char *logged_python(const char *line)
{
	static const char head[] = "Program ", yes[] = " found: YES ";
	const char *name = line + sizeof(head) - 1, *found, *open, *close;
	size_t nlen;

	if (strncmp(line, head, sizeof(head) - 1) || !(found = strstr(name, yes)))
		return NULL;
	nlen = strcspn(name, " ");
	if (name + nlen > found || !python_named(name, nlen))
		return NULL;
	if (!(open = strchr(found + sizeof(yes) - 1, '(')) || open[1] != '/')
		return NULL;
	/* the command ends at the first ')' that ends the line or a word */
	for (close = strchr(open, ')'); close && close[1] && close[1] != ' ' && close[1] != '\n';
	     close = strchr(close + 1, ')'))
		;
	if (!close || memchr(open + 1, ' ', (size_t)(close - open - 1)))
		return NULL; /* several words (`/usr/bin/env python3`): not one program */
	return lo_xstrndup(open + 1, (size_t)(close - open - 1));
}

char *lo_buildsys_meson_python(const char *build_dir)
{
	lo_buf p = LO_BUF_INIT;
	char *line = NULL, *found = NULL, *cmd;
	size_t cap = 0;
	bool several = false;
	FILE *f;

	lo_buf_printf(&p, "%s/meson-logs/meson-log.txt", build_dir);
	f = lo_bs_is_meson_dir(build_dir) ? lo_bs_open_record(lo_buf_cstr(&p)) : NULL;
	lo_buf_dispose(&p);
	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		if (!(cmd = logged_python(line)))
			continue;
		if (!found)
			found = cmd;
		else if (strcmp(found, cmd)) {
			several = true;
			free(cmd);
		} else {
			free(cmd);
		}
	}
	free(line);
	fclose(f);
	/*
	 * Two Pythons (find_installation() and a find_program('python3') that
	 * found a shim on PATH): the log does not say which one imports the
	 * modules, and a guess could call a good one broken.
	 */
	if (several) {
		free(found);
		return NULL;
	}
	return found;
}
