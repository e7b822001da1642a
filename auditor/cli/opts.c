/*
 * opts.c - every subcommand's options from its table (opts.h): getopt's
 * arguments, --help, the shared options and the operand checks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "opts.h"

/* The help's option column: "  --format FORMAT" padded to 25 characters, as GNU tools align. */
#define HELP_INDENT 25

void lo_cli_opts_usage(const lo_cli_cmd *cmd, FILE *out)
{
	const lo_cli_opt *opt;
	const char *p;
	char left[64];

	fputs(cmd->synopsis, out);
	for (opt = cmd->opts; opt->name; opt++) {
		if (opt->short_name)
			snprintf(left, sizeof(left), "-%c, --%s", opt->short_name, opt->name);
		else
			snprintf(left, sizeof(left), "--%s", opt->name);
		if (opt->arg)
			snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s", opt->arg);
		fprintf(out, "  %-*s ", HELP_INDENT - 3, left);
		for (p = opt->help; *p; p++) {
			fputc(*p, out);
			if (*p == '\n')
				fprintf(out, "%*s", HELP_INDENT, "");
		}
		fputc('\n', out);
	}
	fputs(cmd->epilogue, out);
}

void lo_cli_opts_init(lo_cli_opts *o, const lo_cli_cmd *cmd)
{
	size_t n = 0, i;
	lo_buf s = LO_BUF_INIT;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	while (cmd->opts[n].name)
		n++;
	o->longopts = calloc(n + 1, sizeof(*o->longopts));
	if (!o->longopts)
		abort();
	lo_buf_puts(&s, "");
	for (i = 0; i < n; i++) {
		const lo_cli_opt *opt = &cmd->opts[i];

		o->longopts[i].name = opt->name;
		o->longopts[i].has_arg = opt->arg ? required_argument : no_argument;
		o->longopts[i].val = opt->short_name ? opt->short_name : opt->code;
		if (opt->short_name) {
			lo_buf_putc(&s, opt->short_name);
			if (opt->arg)
				lo_buf_putc(&s, ':');
		}
	}
	o->shortopts = lo_buf_detach(&s);
	optind = 1;
}

/* The table entry getopt returned `c` for. */
static const lo_cli_opt *entry_of(const lo_cli_opts *o, int c)
{
	const lo_cli_opt *opt;

	for (opt = o->cmd->opts; opt->name; opt++)
		if (c == (opt->short_name ? opt->short_name : opt->code))
			return opt;
	return NULL;
}

/* Append the entries of a path list (--library-path: ':', on Windows ';'), as owned copies. */
static void add_library_path(lo_cli_opts *o, const char *list)
{
	const char *sep = lo_os_path_list_separator();
	char *copy = lo_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		lo_array_grow(&o->library_path, &o->library_path_cap, o->library_path_count + 1,
			      sizeof(char *));
		o->library_path[o->library_path_count++] = lo_xstrdup(tok);
	}
	free(copy);
	o->scan.library_path = (const char *const *)o->library_path;
	o->scan.library_path_count = o->library_path_count;
}

/* Which word of `values` ("text json") `arg` is, or -1. */
static int value_index(const char *values, const char *arg)
{
	size_t len = strlen(arg), n;
	int i;

	for (i = 0; *values; i++) {
		n = strcspn(values, " ");
		if (n == len && !strncmp(values, arg, n))
			return i;
		values += n + (values[n] == ' ');
	}
	return -1;
}

/* "a, b or c" for the values "a b c", owned. */
static char *value_list(const char *values)
{
	const char *p, *last = strrchr(values, ' ');
	lo_buf b = LO_BUF_INIT;

	for (p = values; *p; p++)
		if (*p == ' ')
			lo_buf_puts(&b, p == last ? " or " : ", ");
		else
			lo_buf_putc(&b, *p);
	return lo_buf_detach(&b);
}

static int stop(lo_cli_opts *o, int status)
{
	o->status = status;
	return LO_CLI_OPTS_STOP;
}

int lo_cli_opts_next(lo_cli_opts *o, int argc, char **argv)
{
	const lo_cli_opt *opt;
	char *end;
	unsigned long n;
	int c;

	while ((c = getopt_long(argc, argv, o->shortopts, o->longopts, NULL)) != -1) {
		opt = entry_of(o, c);
		if (!opt) {
			/* getopt said why on stderr ('?': unknown, or a value missing) */
			lo_cli_opts_usage(o->cmd, stderr);
			return stop(o, LO_EXIT_ERROR);
		}
		if (opt->values && (o->value = value_index(opt->values, optarg)) < 0) {
			char *list = value_list(opt->values);

			lo_cli_error("%s: --%s takes %s, not '%s'", o->cmd->name, opt->name, list, optarg);
			free(list);
			return stop(o, LO_EXIT_ERROR);
		}
		switch (opt->code) {
		case LO_CLI_OPT_PYTHON: o->scan.python = optarg; break;
		case LO_CLI_OPT_HOST: o->scan.host = optarg; break;
		case LO_CLI_OPT_LIBRARY_PATH: add_library_path(o, optarg); break;
		case LO_CLI_OPT_SYSROOT: o->scan.sysroot = optarg; break;
		case LO_CLI_OPT_HWCAPS: o->scan.hwcaps = optarg; break;
		case LO_CLI_OPT_TRUST_TREE: o->scan.trust_tree = true; break;
		case LO_CLI_OPT_RULES:
			lo_array_grow(&o->rule_files, &o->rule_cap, o->rule_count + 1, sizeof(char *));
			o->rule_files[o->rule_count++] = optarg;
			break;
		case LO_CLI_OPT_JOBS:
			n = strtoul(optarg, &end, 10);
			if (*end || end == optarg || n == 0 || n > 1024) {
				lo_cli_error("%s: --jobs takes a number from 1 to 1024, not '%s'",
					     o->cmd->name, optarg);
				return stop(o, LO_EXIT_ERROR);
			}
			o->scan.jobs = (unsigned)n;
			break;
		case LO_CLI_OPT_HELP:
			lo_cli_opts_usage(o->cmd, stdout);
			return stop(o, LO_EXIT_CLEAN);
		default:
			return opt->code;
		}
	}
	return LO_CLI_OPTS_END;
}

int lo_cli_opts_operands(lo_cli_opts *o, int argc, char **argv, int min, int max, int dirs)
{
	struct stat st;
	int i;

	o->status = LO_EXIT_ERROR;
	if (argc - optind < min || argc - optind > max) {
		lo_cli_opts_usage(o->cmd, stderr);
		return -1;
	}
	for (i = optind; i < argc && i - optind < dirs; i++) {
		if (stat(argv[i], &st) < 0) {
			lo_cli_error("%s: cannot read directory '%s': %m", o->cmd->name, argv[i]);
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			lo_cli_error("%s: '%s' is not a directory", o->cmd->name, argv[i]);
			return -1;
		}
	}
	return 0;
}

int lo_cli_opts_load_rules(lo_cli_opts *o, const char *dir)
{
	if (lo_rules_load_tree(&o->rules, dir, o->rule_files, o->rule_count) < 0) {
		lo_cli_error("%s", lo_error_last());
		return -1;
	}
	lo_cli_rules_warn(o->rules);
	o->scan.rules = o->rules;
	return 0;
}

void lo_cli_opts_dispose(lo_cli_opts *o)
{
	size_t i;

	lo_rules_free(o->rules);
	for (i = 0; i < o->library_path_count; i++)
		free(o->library_path[i]);
	free(o->library_path);
	free(o->rule_files);
	free(o->longopts);
	free(o->shortopts);
	memset(o, 0, sizeof(*o));
}
