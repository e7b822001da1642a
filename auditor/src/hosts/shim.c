/*
 * shim.c - a version manager's shim, read instead of run (shim.h): the
 * calls its readers share, and the choice of reader by the shim's text.
 *
 * Every file read here is read with a limit: a shim is a dozen lines, a
 * version file a word or a few; a larger one is no manager's, and the
 * shim is then left to the caller.
 */
#include <fcntl.h>
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
#include "leftover/shim.h"

char *lo_shim_read_small(const char *path, size_t max, off_t *size)
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

char *lo_shim_current_dir(void)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && lo_os_path_is_absolute(pwd) && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return lo_xstrdup(pwd);
	return getcwd(NULL, 0);
}

/* Each regular file `name` from `dir` up to the root, a line of `b` each. */
static void found_upwards(lo_buf *b, const char *dir, const char *name)
{
	char *d = lo_xstrdup(dir), *slash;

	for (;;) {
		lo_buf f = LO_BUF_INIT;
		struct stat st;

		lo_buf_printf(&f, "%s/%s", strcmp(d, "/") ? d : "", name);
		if (stat(lo_buf_cstr(&f), &st) == 0 && S_ISREG(st.st_mode))
			lo_buf_printf(b, "%s\n", lo_buf_cstr(&f));
		lo_buf_dispose(&f);
		if (!*d || !strcmp(d, "/") || !(slash = lo_os_path_last_separator(d)))
			break;
		slash[slash == d] = '\0';
	}
	free(d);
}

char *lo_shim_current_choice(void)
{
	const char *asdf = getenv("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME");
	char *cwd = lo_shim_current_dir();
	lo_buf b = LO_BUF_INIT;

	if (cwd) {
		found_upwards(&b, cwd, ".python-version");
		found_upwards(&b, cwd, asdf && *asdf ? asdf : ".tool-versions");
	}
	free(cwd);
	return lo_buf_detach(&b);
}

bool lo_shim_is_program(const char *path)
{
	struct stat st;

	lo_deps_note_path(path);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *lo_shim_system_program(const char *shims, const char *name)
{
	const char *env = getenv("PATH"), *home = getenv("HOME"), *sep = lo_os_path_list_separator();
	char *copy, *save = NULL, *dir, *hit = NULL;

	if (!env)
		return NULL;
	copy = lo_xstrdup(env);
	for (dir = strtok_r(copy, sep, &save); dir && !hit; dir = strtok_r(NULL, sep, &save)) {
		lo_buf b = LO_BUF_INIT;

		/* `~` is taken for $HOME to compare, but only an absolute entry is searched */
		if (dir[0] == '~' && home)
			lo_buf_printf(&b, "%s%s", home, dir + 1);
		else
			lo_buf_puts(&b, dir);
		if (strcmp(lo_buf_cstr(&b), shims) && lo_os_path_is_absolute(dir)) {
			lo_buf_printf(&b, "/%s", name);
			if (lo_shim_is_program(lo_buf_cstr(&b)))
				hit = lo_buf_detach(&b);
		}
		lo_buf_dispose(&b);
	}
	free(copy);
	return hit;
}

int lo_shim_resolve(const char *program, char **out, char **how)
{
	off_t size = 0;
	char *text = lo_shim_read_small(program, LO_SHIM_MAX, &size);
	int found = 0;

	*out = *how = NULL;
	if (!text)
		return 0;
	/* a shim starts with its interpreter line; anything longer is no manager's */
	if (size <= (off_t)LO_SHIM_MAX && !strncmp(text, "#!", 2))
		found = lo_shim_pyenv_resolve(program, text, out, how) ||
			lo_shim_asdf_resolve(program, text, out, how);
	free(text);
	return found;
}
