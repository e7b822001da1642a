/*
 * scan_opts.c - the options shared by scan, clean and explain (scan_opts.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "scan_opts.h"

/* Codes for the shared long options: above any char a command's own option can be. */
enum { OPT_PYTHON = 0x100, OPT_HOST, OPT_LIBRARY_PATH, OPT_RULES };

static const struct option load_longopts[] = {
	{ "python", required_argument, NULL, OPT_PYTHON },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "library-path", required_argument, NULL, OPT_LIBRARY_PATH },
};

static const struct option tree_longopts[] = {
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "jobs", required_argument, NULL, 'j' },
};

static void add_longopts(lo_cli_scan_opts *so, size_t *n, size_t *cap, const struct option *opts,
			 size_t count)
{
	lo_array_grow(&so->longopts, cap, *n + count, sizeof(*opts));
	memcpy(so->longopts + *n, opts, count * sizeof(*opts));
	*n += count;
}

void lo_cli_scan_opts_init(lo_cli_scan_opts *so, const char *cmd, unsigned which,
			   const char *shortopts, const struct option *longopts)
{
	static const struct option end = { NULL, 0, NULL, 0 };
	size_t own = 0, n = 0, cap = 0;
	lo_buf s = LO_BUF_INIT;

	memset(so, 0, sizeof(*so));
	so->cmd = cmd;
	while (longopts[own].name)
		own++;
	/* shared first: getopt lists an ambiguous abbreviation's matches in this order */
	if (which & LO_CLI_LOAD_OPTS)
		add_longopts(so, &n, &cap, load_longopts, sizeof(load_longopts) / sizeof(load_longopts[0]));
	if (which & LO_CLI_TREE_OPTS)
		add_longopts(so, &n, &cap, tree_longopts, sizeof(tree_longopts) / sizeof(tree_longopts[0]));
	add_longopts(so, &n, &cap, longopts, own);
	add_longopts(so, &n, &cap, &end, 1);
	lo_buf_puts(&s, shortopts);
	if (which & LO_CLI_TREE_OPTS)
		lo_buf_puts(&s, "j:");
	so->shortopts = lo_buf_detach(&s);
	optind = 1;
}

/* Append the entries of a colon-separated list (--library-path), as owned copies. */
static void add_library_path(lo_cli_scan_opts *so, const char *list)
{
	char *copy = lo_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		lo_array_grow(&so->library_path, &so->library_path_cap, so->library_path_count + 1,
			      sizeof(char *));
		so->library_path[so->library_path_count++] = lo_xstrdup(tok);
	}
	free(copy);
	so->scan.library_path = (const char *const *)so->library_path;
	so->scan.library_path_count = so->library_path_count;
}

int lo_cli_scan_opts_getopt(lo_cli_scan_opts *so, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, so->shortopts, so->longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PYTHON: so->scan.python = optarg; break;
		case OPT_HOST: so->scan.host = optarg; break;
		case OPT_LIBRARY_PATH: add_library_path(so, optarg); break;
		case OPT_RULES:
			lo_array_grow(&so->rule_files, &so->rule_cap, so->rule_count + 1, sizeof(char *));
			so->rule_files[so->rule_count++] = optarg;
			break;
		case 'j': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || end == optarg || n == 0 || n > 1024) {
				lo_cli_error("%s: --jobs takes a number from 1 to 1024, not '%s'", so->cmd,
					     optarg);
				return LO_CLI_OPT_BAD;
			}
			so->scan.jobs = (unsigned)n;
			break;
		}
		default:
			return c;
		}
	}
	return -1;
}

int lo_cli_scan_opts_load_rules(lo_cli_scan_opts *so, const char *dir)
{
	if (lo_rules_load_tree(&so->rules, dir, so->rule_files, so->rule_count) < 0) {
		lo_cli_error("%s", lo_error_last());
		return -1;
	}
	lo_cli_rules_warn(so->rules);
	so->scan.rules = so->rules;
	return 0;
}

void lo_cli_scan_opts_dispose(lo_cli_scan_opts *so)
{
	size_t i;

	lo_rules_free(so->rules);
	for (i = 0; i < so->library_path_count; i++)
		free(so->library_path[i]);
	free(so->library_path);
	free(so->rule_files);
	free(so->longopts);
	free(so->shortopts);
	memset(so, 0, sizeof(*so));
}
