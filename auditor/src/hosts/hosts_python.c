/*
 * hosts_python.c - which Python judges a tree's extension modules: the one
 * the tree's build records name (CMakeCache's Python3_EXECUTABLE and its
 * older spellings, the interpreter meson's log says it configured,
 * setuptools' build/lib.<platform>-cpython-XY directories), before python3
 * on PATH, which on a developer's machine is often a shim selecting
 * another version than the one the tree was built for. Whether the named
 * program may be run at all is trust.h's question, asked by hosts.c.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/deps.h"
#include "leftover/hosts.h"
#include "leftover/os.h"
#include "hosts/hosts_int.h"

char *lo_hosts_cmake_python(const char *build_dir)
{
	static const char *const vars[] = { "Python3_EXECUTABLE", "Python_EXECUTABLE",
					    "PYTHON_EXECUTABLE" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		char *v = lo_buildsys_cache_value(build_dir, vars[i]);

		if (v && *v && !strstr(v, "NOTFOUND"))
			return v;
		free(v);
	}
	return NULL;
}

char *lo_hosts_on_path(const char *name)
{
	const char *env = getenv("PATH"), *sep = lo_os_path_list_separator();
	char *copy, *save = NULL, *dir, *hit = NULL;

	if (!env)
		return NULL;
	copy = lo_xstrdup(env);
	for (dir = strtok_r(copy, sep, &save); dir && !hit; dir = strtok_r(NULL, sep, &save)) {
		lo_buf b = LO_BUF_INIT;

		lo_buf_printf(&b, "%s/%s", *dir ? dir : ".", name);
		lo_deps_note_path(lo_buf_cstr(&b)); /* one put earlier on PATH: deps.h */
		if (access(lo_buf_cstr(&b), X_OK) == 0)
			hit = lo_buf_detach(&b);
		lo_buf_dispose(&b);
	}
	free(copy);
	return hit;
}

/*
 * The Python version in the name of a setuptools build directory,
 * `lib.<platform>-cpython-311` or `temp.<platform>-cpython-311` (setuptools
 * 62.1 on), `lib.<platform>-3.11` before: "3.11" into `out`, or false.
 */
static bool setuptools_version(const char *name, char out[8])
{
	const char *dash = strrchr(name, '-'), *v;
	unsigned major, minor;
	int end = 0;

	if ((strncmp(name, "lib.", 4) && strncmp(name, "temp.", 5)) || !dash)
		return false;
	v = dash + 1;
	if (dash - name > 8 && !strncmp(dash - 8, "-cpython", 8)) {
		/* "cpython-311": a major digit, then the minor */
		if (sscanf(v, "%1u%2u%n", &major, &minor, &end) != 2 || v[end])
			return false;
	} else if (sscanf(v, "%u.%u%n", &major, &minor, &end) != 2 || v[end]) {
		return false;
	}
	return snprintf(out, 8, "%u.%u", major, minor) < 8;
}

/*
 * The interpreter of the version setuptools built the modules under `dir`
 * for, by its own build directories: `dir` is in build/lib.<platform>-...,
 * or it or an ancestor has a build/ holding lib.* or temp.* (an in-place
 * build_ext). setuptools records no interpreter, only its version: the
 * system's python3.X.Y, else the one on PATH. Owned, or NULL.
 */
static char *setuptools_python(const char *dir)
{
	char version[8] = "", *d = lo_xstrdup(dir), *slash, *hit = NULL;

	for (;;) {
		const char *base = lo_os_path_last_separator(d) ? lo_os_path_last_separator(d) + 1 : d;
		lo_buf b = LO_BUF_INIT;
		DIR *bd;

		if (base - d >= 7 && !strncmp(base - 7, "/build/", 7) &&
		    setuptools_version(base, version))
			break;
		lo_buf_printf(&b, "%s/build", d);
		lo_deps_note_path(lo_buf_cstr(&b));
		if ((bd = opendir(lo_buf_cstr(&b)))) {
			struct dirent *en;

			while (!*version && (en = readdir(bd)))
				setuptools_version(en->d_name, version);
			closedir(bd);
		}
		lo_buf_dispose(&b);
		if (*version || !(slash = lo_os_path_last_separator(d)) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	if (*version) {
		static const char *const dirs[] = { "/usr/bin", "/usr/local/bin" };
		size_t i;

		for (i = 0; !hit && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			lo_buf b = LO_BUF_INIT;

			lo_buf_printf(&b, "%s/python%s", dirs[i], version);
			lo_deps_note_path(lo_buf_cstr(&b));
			if (access(lo_buf_cstr(&b), X_OK) == 0)
				hit = lo_buf_detach(&b);
			lo_buf_dispose(&b);
		}
		if (!hit) {
			char name[16];

			snprintf(name, sizeof(name), "python%s", version);
			hit = lo_hosts_on_path(name);
		}
	}
	return hit;
}

bool lo_hosts_python_on_path(const char *program)
{
	char *own = lo_hosts_on_path("python3");
	bool same = own && !strcmp(own, program);

	free(own);
	return same;
}

char *lo_hosts_python_for(const char *given, const char *dir)
{
	char *d, *p = NULL;

	if (given)
		return lo_xstrdup(given);
	/* a scan of a subdirectory of the build tree still finds its records */
	for (d = lo_xstrdup(dir); !p; ) {
		char *slash;

		if ((p = lo_hosts_cmake_python(d)) || (p = lo_buildsys_meson_python(d)) ||
		    !(slash = lo_os_path_last_separator(d)) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	if (!p)
		p = setuptools_python(dir);
	return p ? p : lo_hosts_on_path("python3");
}
