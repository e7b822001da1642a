/*
 * shim.c - a pyenv shim's program, read from pyenv's files (shim.h).
 *
 * Every file read here is read with a limit: a shim is a dozen lines, a
 * version file a word or a few; a larger one is not pyenv's, and the
 * shim is then left to the caller.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/shim.h"

/* pyenv's shims are under 400 bytes; its version files a few words. */
#define SHIM_MAX 4096
#define VERSION_FILE_MAX 4096

/*
 * The start of the regular file at `path`, at most `max` bytes, as a
 * string; NULL when it is not a regular file or cannot be read. *size is
 * its size on disk.
 */
static char *read_small(const char *path, size_t max, off_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf;
	ssize_t n;

	lo_deps_note_path(path); /* a shim or version file changed: deps.h */
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = lo_xcalloc(1, max + 1);
	n = read(fd, buf, max);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*size = st.st_size;
	return buf;
}

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

/* The current directory as the shell has it: $PWD when it is this directory. */
static char *current_dir(void)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && lo_os_path_is_absolute(pwd) && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return lo_xstrdup(pwd);
	return getcwd(NULL, 0);
}

/*
 * The versions pyenv selects, `:`-separated, owned, with the file that
 * chose them (or NULL: the environment, or none) in *from; NULL when a
 * version file cannot be read as pyenv reads it.
 */
static char *selected_versions(const char *root, char **from)
{
	const char *env = getenv("PYENV_VERSION"), *dir = getenv("PYENV_DIR");
	char *cwd = current_dir(), *file = NULL, *text, *v;
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
	text = read_small(file, VERSION_FILE_MAX, &size);
	/* a file that is missing or empty selects nothing: "system" */
	if (!text && access(file, F_OK) == 0) {
		free(file);
		return NULL;
	}
	if (size > (off_t)VERSION_FILE_MAX || (text && strlen(text) != (size_t)size)) {
		free(text);
		free(file);
		return NULL;
	}
	v = text ? file_versions(text) : lo_xstrdup("");
	free(text);
	*from = file;
	return v;
}

/* `name` as `command -v` finds it on PATH without ROOT/shims; owned, or NULL. */
static char *system_program(const char *root, const char *name)
{
	const char *env = getenv("PATH"), *home = getenv("HOME");
	char *copy, *save = NULL, *dir, *hit = NULL, *shims = NULL;

	if (!env)
		return NULL;
	if (asprintf(&shims, "%s/shims", root) < 0)
		abort();
	copy = lo_xstrdup(env);
	for (dir = strtok_r(copy, ":", &save); dir && !hit; dir = strtok_r(NULL, ":", &save)) {
		lo_buf b = LO_BUF_INIT;
		struct stat st;

		/* pyenv takes a `~` in PATH for $HOME before it compares */
		if (dir[0] == '~' && home)
			lo_buf_printf(&b, "%s%s", home, dir + 1);
		else
			lo_buf_puts(&b, dir);
		if (strcmp(lo_buf_cstr(&b), shims) && lo_os_path_is_absolute(dir)) {
			lo_buf_printf(&b, "/%s", name);
			lo_deps_note_path(lo_buf_cstr(&b));
			if (stat(lo_buf_cstr(&b), &st) == 0 && S_ISREG(st.st_mode) &&
			    access(lo_buf_cstr(&b), X_OK) == 0)
				hit = lo_buf_detach(&b);
		}
		lo_buf_dispose(&b);
	}
	free(copy);
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
	lo_deps_note_path(lo_buf_cstr(&b));
	if (!*gone && stat(lo_buf_cstr(&b), &st) == 0 && S_ISREG(st.st_mode) &&
	    access(lo_buf_cstr(&b), X_OK) == 0)
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

int lo_shim_resolve(const char *program, char **out, char **how)
{
	off_t size = 0;
	char *text = read_small(program, SHIM_MAX, &size), *root, *versions, *from = NULL;
	const char *name = lo_os_path_last_separator(program);

	*out = *how = NULL;
	if (!text)
		return 0;
	root = size <= (off_t)SHIM_MAX ? shim_root(text) : NULL;
	free(text);
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
