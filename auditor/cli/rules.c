/*
 * rules.c - `leftover rules`: the effective rules for a build tree, and
 * `leftover rules --check FILE` to validate a rule file before using it.
 *
 * The listing is in load order, one `name=value` per line as
 * `git config --list` prints, so that what a scan of BUILD_DIR would use
 * can be read (and grepped) without knowing the layer order by heart;
 * --show-origin prefixes each line with the file and line it came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/rules.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	{ "show-origin", 0, 'o', NULL, NULL, "prefix each line with the file and line it came from" },
	{ "rules", 0, LO_CLI_OPT_RULES, "FILE", NULL, "read this rule file last (repeatable)" },
	{ "check", 0, 'c', NULL, NULL, "validate each FILE on its own and print nothing if valid" },
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_rules_cmd = {
	"rules",
	"usage: leftover rules [--show-origin] [--rules FILE]... [BUILD_DIR]\n"
	"   or: leftover rules --check FILE...\n"
	"\n"
	"Print the rules a scan of BUILD_DIR would use, in the order they are read:\n"
	"the shipped defaults, $XDG_CONFIG_HOME/leftover/rules, the source tree's\n"
	".leftover, BUILD_DIR/.leftover/rules, then each --rules FILE. A setting\n"
	"overridden by a later one is not printed.\n"
	"\n",
	options,
	"\n"
	"Exit status: 0 valid; 1 (--check) a file is invalid; 2 usage error or invalid\n"
	"rules when listing.\n",
};

/* Print a value on one line: control characters escaped as git would quote them. */
static void put_value(const char *v)
{
	for (; *v; v++) {
		if (*v == '\n')
			fputs("\\n", stdout);
		else if (*v == '\t')
			fputs("\\t", stdout);
		else if ((unsigned char)*v < 0x20)
			printf("\\x%02x", (unsigned char)*v);
		else
			putchar(*v);
	}
	putchar('\n');
}

static int print_entry(const char *name, const char *value, const char *file, int line,
		       void *payload)
{
	const int *show_origin = payload;

	if (*show_origin) {
		if (line)
			printf("%s:%d\t", file, line);
		else
			printf("%s\t", file);
	}
	printf("%s=", name);
	put_value(value);
	return 0;
}

static int check_files(int count, char **files)
{
	int i, status = LO_EXIT_CLEAN;

	for (i = 0; i < count; i++)
		if (lo_rules_check(files[i]) < 0) {
			lo_cli_error("%s", lo_error_last());
			status = LO_EXIT_FINDINGS;
		}
	return status;
}

/* The rules for BUILD_DIR (or for no tree), one line each. */
static int list(lo_cli_opts *o, int argc, char **argv, int show_origin)
{
	lo_rules *rules = NULL;
	int err, status;

	if (lo_cli_opts_operands(o, argc, argv, 0, 1, 1) < 0)
		return o->status;
	if (optind < argc)
		err = lo_rules_load_tree(&rules, argv[optind], o->rule_files, o->rule_count);
	else
		err = lo_rules_load(&rules, o->rule_files, o->rule_count);
	if (err < 0) {
		lo_cli_error("%s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	lo_cli_rules_warn(rules);
	status = lo_rules_foreach(rules, print_entry, &show_origin) ? LO_EXIT_ERROR : LO_EXIT_CLEAN;
	lo_rules_free(rules);
	return status;
}

int lo_cmd_rules(int argc, char **argv)
{
	lo_cli_opts o;
	int show_origin = 0, check = 0, c, status;

	lo_cli_opts_init(&o, &lo_cli_rules_cmd);
	while ((c = lo_cli_opts_next(&o, argc, argv)) != LO_CLI_OPTS_END) {
		if (c == 'o') {
			show_origin = 1;
		} else if (c == 'c') {
			check = 1;
		} else {
			status = o.status;
			goto out;
		}
	}
	if (!check) {
		status = list(&o, argc, argv, show_origin);
	} else if (optind >= argc || show_origin || o.rule_count) {
		lo_cli_error("--check takes rule files and no other option");
		status = LO_EXIT_ERROR;
	} else {
		status = check_files(argc - optind, argv + optind);
	}
out:
	lo_cli_opts_dispose(&o);
	return status;
}
