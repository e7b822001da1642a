/*
 * shim_pyenv.c - a pyenv shim's program, read from pyenv's files (the
 * rules are shim.h's).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts/shim_int.h"
#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"

/*
 * The root a pyenv shim's text exports, owned, or NULL when `text` is
 * not a pyenv shim: a bash script that exports PYENV_ROOT and execs that
 * root's libexec/pyenv with `exec "$program"`.
 */
static char *shim_root(const char *text)
{
	static const char set[] = "\nexport PYENV_ROOT=\"";
	const char *at = strstr(text, set), *end;
	char *root, *exec = NULL;
	bool ok;

	if (strncmp(text, "#!", 2) || !at)
		return NULL;
	at += strlen(set);
	if (!(end = strchr(at, '"')) || memchr(at, '\n', (size_t)(end - at)) || !lo_os_path_is_absolute(at))
		return NULL;
	root = lo_xstrndup(at, (size_t)(end - at));
	if (asprintf(&exec, "\nexec \"%s/libexec/pyenv\" exec \"$program\"", root) < 0)
		abort();
	ok = strstr(text, exec) != NULL;
	free(exec);
	if (!ok) {
		free(root);
		return NULL;
	}
	return root;
}

/* A version pyenv reads as a path, which pyenv checks against its root itself. */
static bool version_is_path(const char *v)
{
	return !strcmp(v, "..") || strchr(v, '/');
}

/*
 * The versions of a version file's text, `:`-separated as PYENV_VERSION
 * has them: the first word of each line that is not empty or a comment.
 * Owned, "" when there are none; NULL when one is a path.
 */
static char *file_versions(const char *text)
{
	lo_buf out = LO_BUF_INIT;
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");
		size_t skip = strspn(line, " \t\r"), word;

		if (skip > len)
			skip = len;
		word = strcspn(line + skip, " \t\r\n");
		if (word && line[skip] != '#') {
			char *v = lo_xstrndup(line + skip, word);
			bool path = version_is_path(v);

			if (!path)
				lo_buf_printf(&out, "%s%s", out.len ? ":" : "", v);
			free(v);
			if (path) {
				lo_buf_dispose(&out);
				return NULL;
			}
		}
		line += len + (line[len] == '\n');
	}
	return out.len ? lo_buf_detach(&out) : (lo_buf_dispose(&out), lo_xstrdup(""));
}

/*
 * The nearest `.python-version` from `dir` up, as pyenv-version-file
 * finds it, owned, or NULL.
 */
static char *local_version_file(const char *dir)
{
	char *d = lo_xstrdup(dir);

	for (;;) {
		lo_buf f = LO_BUF_INIT;
		struct stat st;
		char *slash;

		lo_buf_printf(&f, "%s/.python-version", d);
		lo_deps_note_path(lo_buf_cstr(&f)); /* pyenv's choice, made or changed later */
		if (stat(lo_buf_cstr(&f), &st) == 0 && S_ISREG(st.st_mode)) {
			free(d);
			return lo_buf_detach(&f);
		}
		lo_buf_dispose(&f);
		if (!*d || !(slash = lo_os_path_last_separator(d)))
			break;
		*slash = '\0';
	}
	free(d);
	return NULL;
}

/*
 * The versions pyenv selects, `:`-separated, owned, with the file that
 * chose them (or NULL: the environment, or none) in *from; NULL when a
 * version file cannot be read as pyenv reads it.
 */
static char *selected_versions(const char *root, char **from)
{
	const char *env = getenv("PYENV_VERSION"), *dir = getenv("PYENV_DIR");
	char *cwd = lo_shim_current_dir(), *file = NULL, *text, *v;
	off_t size = 0;

	*from = NULL;
	if (env && *env) {
		free(cwd);
		return lo_xstrdup(env);
	}
	if (dir && *dir) {
		char *real = realpath(dir, NULL);

		file = real ? local_version_file(real) : NULL;
		free(real);
	}
	if (!file && cwd)
		file = local_version_file(cwd);
	free(cwd);
	if (!file && asprintf(&file, "%s/version", root) < 0)
		abort();
	text = lo_shim_read_small(file, LO_SHIM_VERSION_FILE_MAX, &size);
	/* a file that is missing or empty selects nothing: "system" */
	if (!text && access(file, F_OK) == 0) {
		free(file);
		return NULL;
	}
	if (size > (off_t)LO_SHIM_VERSION_FILE_MAX || (text && strlen(text) != (size_t)size)) {
		free(text);
		free(file);
		return NULL;
	}
	v = text ? file_versions(text) : lo_xstrdup("");
	free(text);
	*from = file;
	return v;
}

/* `name` on PATH without ROOT/shims; owned, or NULL. */
static char *system_program(const char *root, const char *name)
{
	char *shims = NULL, *hit;

	if (asprintf(&shims, "%s/shims", root) < 0)
		abort();
	hit = lo_shim_system_program(shims, name);
	free(shims);
	return hit;
}

/* ROOT/versions/V/bin/NAME when it is executable; owned, NULL when not; *gone: V is not there. */
static char *version_program(const char *root, const char *v, const char *name, bool *gone)
{
	lo_buf b = LO_BUF_INIT;
	struct stat st;
	char *out = NULL;

	lo_buf_printf(&b, "%s/versions/%s", root, v);
	*gone = stat(lo_buf_cstr(&b), &st) < 0 || !S_ISDIR(st.st_mode);
	lo_buf_printf(&b, "/bin/%s", name);
	if (lo_shim_is_program(lo_buf_cstr(&b)) && !*gone)
		out = lo_buf_detach(&b);
	lo_buf_dispose(&b);
	return out;
}

/*
 * The first of `versions` (then system) that has `name`, as pyenv-which
 * tries them; owned, or NULL when one is not installed under that name
 * (pyenv would widen it as a prefix) or none has it.
 */
static char *which(const char *root, const char *versions, const char *name)
{
	char *copy = lo_xstrdup(versions), *save = NULL, *v, *hit = NULL;
	bool unknown = false;

	for (v = strtok_r(copy, ":", &save); v && !hit && !unknown; v = strtok_r(NULL, ":", &save)) {
		bool gone = false;

		if (!strcmp(v, "system"))
			hit = system_program(root, name);
		else if (version_is_path(v))
			unknown = true;
		else if (!(hit = version_program(root, v, name, &gone)) && gone &&
			 !strncmp(v, "python-", 7))
			/* pyenv-version-name drops an explicit python- prefix */
			hit = version_program(root, v + 7, name, &gone);
		unknown |= gone;
	}
	free(copy);
	if (!hit && !unknown)
		hit = system_program(root, name);
	return unknown ? (free(hit), NULL) : hit;
}

int lo_shim_pyenv_resolve(const char *program, const char *text, char **out, char **how)
{
	char *root = shim_root(text), *versions, *from = NULL;
	const char *name = lo_os_path_last_separator(program);

	*out = *how = NULL;
	if (!root)
		return 0;
	name = name ? name + 1 : program;
	if ((versions = selected_versions(root, &from)))
		*out = which(root, *versions ? versions : "system", name);
	if (*out && asprintf(how, "'%s' is a pyenv shim; pyenv's files select version '%s' "
			     "(from %s), whose '%s' is the host", program,
			     *versions ? versions : "system",
			     from ? from : *versions ? "PYENV_VERSION" : "no version file",
			     *out) < 0)
		abort();
	free(versions);
	free(from);
	free(root);
	return *out != NULL;
}
