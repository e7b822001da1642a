/*
 * pyconf.c - an interpreter's extension suffixes from its files (pyconf.h).
 *
 * The interpreter's real file is python3.X (a venv's python, pyenv's
 * python3 and Debian's /usr/bin/python3 are links to it); its standard
 * library is PREFIX/lib/python3.X beside PREFIX/bin. Debian keeps one
 * _sysconfigdata file per architecture there, so the one for the
 * program's own target is read: its name ends with "_<triplet>.py".
 */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/os.h"
#include "leftover/pyconf.h"

/* A _sysconfigdata module is some 30 to 60 KiB; more is not one. */
#define SYSCONFIG_MAX (1u << 20)

/* The SOABI value of the sysconfigdata file dir/name, owned, or NULL. */
static char *read_soabi(int dirfd, const char *name)
{
	static const char key[] = "'SOABI': '";
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *text, *at, *out = NULL;
	size_t len;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)SYSCONFIG_MAX) {
		close(fd);
		return NULL;
	}
	text = lo_xcalloc(1, (size_t)st.st_size + 1);
	n = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (n > 0 && (at = strstr(text, key))) {
		at += strlen(key);
		len = strspn(at, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
		if (len && at[len] == '\'')
			out = lo_xstrndup(at, len);
	}
	free(text);
	return out;
}

/* Is `soabi` a free-threaded build's: cpython-313t-...? */
static bool free_threaded(const char *soabi)
{
	const char *v = strchr(soabi, '-');
	size_t digits = v ? strspn(v + 1, "0123456789") : 0;

	return digits && v[1 + digits] == 't';
}

char **lo_pyconf_suffixes(const char *python, const char *triplet, char **from)
{
	char *real = realpath(python, NULL), *soabi = NULL, **out = NULL;
	const char *base, *slash;
	lo_buf lib = LO_BUF_INIT, tail = LO_BUF_INIT;
	struct dirent *de;
	bool conflict = false;
	DIR *d = NULL;
	size_t n = 0;

	*from = NULL;
	if (!real || !(slash = lo_os_path_last_separator(real)) || strncmp(base = slash + 1, "python3.", 8))
		goto out;
	/* PREFIX/bin/python3.X -> PREFIX/lib/python3.X */
	lo_buf_add(&lib, real, (size_t)(slash - real));
	while (lib.len && lib.ptr[lib.len - 1] != '/')
		lib.len--;
	lo_buf_printf(&lib, "lib/%s", base);
	lo_buf_printf(&tail, "_%s.py", triplet);
	lo_deps_note_path(lo_buf_cstr(&lib)); /* its sysconfigdata, read below: deps.h */
	if (!(d = opendir(lo_buf_cstr(&lib))))
		goto out;
	while ((de = readdir(d)) && !conflict) {
		size_t len = strlen(de->d_name);
		char *v;

		if (strncmp(de->d_name, "_sysconfigdata_", 15) || len < tail.len ||
		    strcmp(de->d_name + len - tail.len, lo_buf_cstr(&tail)) ||
		    !(v = read_soabi(dirfd(d), de->d_name)))
			continue;
		if (soabi && strcmp(soabi, v))
			conflict = true;
		if (!soabi) {
			soabi = v;
			if (asprintf(from, "%s/%s", lo_buf_cstr(&lib), de->d_name) < 0)
				abort();
		} else {
			free(v);
		}
	}
	if (!soabi || conflict)
		goto out;
	out = lo_xcalloc(4, sizeof(char *));
	if (asprintf(&out[n++], ".%s.so", soabi) < 0)
		abort();
	if (!free_threaded(soabi))
		out[n++] = lo_xstrdup(".abi3.so");
	out[n] = lo_xstrdup(".so");
out:
	if (d)
		closedir(d);
	if (!out) {
		free(*from);
		*from = NULL;
	}
	free(soabi);
	free(real);
	lo_buf_dispose(&lib);
	lo_buf_dispose(&tail);
	return out;
}
