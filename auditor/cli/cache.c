/*
 * cache.c - `leftover cache info|clear [ROOT...]`: the verdict cache
 * (cache.h) of a scan of those roots, shown or dropped.
 *
 * A scan of several roots keeps one cache for the set, so the roots name
 * the cache as `leftover scan ROOT...` would (their real paths, in the
 * order given); none is the current directory. `info` says where the file
 * is, its size, the bound past which none is written or read, and whether
 * the next scan could take its result: by lo_cache_check against the
 * cache's own key, so the answer is for a scan with the options, rules
 * and environment that made it (which the output says), the dependencies
 * and git's racy rule checked as a scan checks them. `clear` is what
 * `scan --clear-cache` does before it scans.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_cache_cmd = {
	"cache",
	"usage: leftover cache info [ROOT...]\n"
	"   or: leftover cache clear [ROOT...]\n"
	"\n"
	"Show or drop the verdict cache of a scan of ROOT... (default: the current\n"
	"directory). info: where it is kept, its size and bound, and whether the next\n"
	"scan with the options that made it could use it, or why not. clear: remove it,\n"
	"as scan --clear-cache does.\n"
	"\n",
	options,
	"\n"
	"Exit status: 0 done; 2 usage error, a ROOT that is not a directory, or a\n"
	"cache that cannot be removed.\n",
};

/* The real paths of dirs, owned; NULL after saying which one has none. */
static char **real_roots(char **dirs, size_t n)
{
	char **real = lo_xcalloc(n ? n : 1, sizeof(char *));
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(real[i] = realpath(dirs[i], NULL))) {
			lo_cli_error("cache: cannot resolve '%s': %m", dirs[i]);
			while (i--)
				free(real[i]);
			free(real);
			return NULL;
		}
	}
	return real;
}

static void roots_free(char **real, size_t n)
{
	size_t i;

	for (i = 0; real && i < n; i++)
		free(real[i]);
	free(real);
}

int lo_cli_cache_clear(char **dirs, size_t n)
{
	char **real = real_roots(dirs, n);
	int err;

	if (!real)
		return -1;
	if ((err = lo_cache_clear(real, n)) < 0)
		lo_cli_error("%s", lo_error_last());
	roots_free(real, n);
	return err < 0 ? -1 : 0;
}

/*
 * Could the next scan take the kept result? NULL when it could, else why
 * not (owned). Its own key: what options and environment the next scan
 * has is not known here.
 */
static char *why_not_usable(const char *file)
{
	lo_cache_entry *e = NULL;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char *why = NULL, *exe = lo_os_self_exe();
	int err;

	/* scan_cache.c keeps no cache where the program cannot name itself */
	if (!exe)
		return lo_xstrdup("this build keeps no verdict cache: it cannot find its own path");
	free(exe);
	err = lo_cache_read(&e, file);
	if (err == LO_ENOTFOUND)
		return lo_xstrdup("none kept yet");
	if (err < 0)
		return lo_xstrdup(lo_error_last());
	lo_cache_check(e, e->key, cores > 0 ? (unsigned)cores : 1, &why);
	lo_cache_entry_free(e);
	return why;
}

static void info(const char *file)
{
	struct stat st;
	char *why = why_not_usable(file);

	printf("file:   %s\n", file);
	if (stat(file, &st) == 0)
		printf("size:   %lld bytes\n", (long long)st.st_size);
	else
		printf("size:   none kept\n");
	printf("bound:  %u bytes: a larger cache is neither written nor read\n",
	       (unsigned)LO_CACHE_MAX_BYTES);
	if (why)
		printf("usable: no: %s\n", why);
	else
		printf("usable: yes, by a scan with the options, rules and environment that made it\n");
	free(why);
}

int lo_cmd_cache(int argc, char **argv)
{
	lo_cli_opts o;
	char **real = NULL, *here[] = { "." }, **dirs, *file;
	const char *action;
	size_t n = 0;
	int status;

	lo_cli_opts_init(&o, &lo_cli_cache_cmd);
	if (lo_cli_opts_next(&o, argc, argv) != LO_CLI_OPTS_END) {
		status = o.status;
		goto out;
	}
	action = optind < argc ? argv[optind] : "";
	if (strcmp(action, "info") && strcmp(action, "clear")) {
		if (*action)
			lo_cli_error("cache: '%s' is neither info nor clear", action);
		lo_cli_opts_usage(&lo_cli_cache_cmd, stderr);
		status = LO_EXIT_ERROR;
		goto out;
	}
	optind++;
	if (lo_cli_opts_operands(&o, argc, argv, 0, INT_MAX, INT_MAX) < 0) {
		status = o.status;
		goto out;
	}
	dirs = optind < argc ? argv + optind : here;
	n = optind < argc ? (size_t)(argc - optind) : 1;
	if (!strcmp(action, "clear")) {
		status = lo_cli_cache_clear(dirs, n) < 0 ? LO_EXIT_ERROR : LO_EXIT_CLEAN;
		goto out;
	}
	status = LO_EXIT_ERROR;
	if (!(real = real_roots(dirs, n)))
		goto out;
	if (!(file = lo_cache_file(real, n, false))) {
		lo_cli_error("cache: no cache directory: neither XDG_CACHE_HOME nor HOME is set");
		goto out;
	}
	info(file);
	free(file);
	status = LO_EXIT_CLEAN;
out:
	roots_free(real, n);
	lo_cli_opts_dispose(&o);
	return status;
}
