/*
 * rules.c - `leftover rules`: the effective rules for a build tree, and
 * `leftover rules --check FILE` to validate a rule file before using it.
 *
 * The listing is in load order, one `name=value` per line as
 * `git config --list` prints, so that what a scan of BUILD_DIR would use
 * can be read (and grepped) without knowing the layer order by heart;
 * --show-origin prefixes each line with the file and line it came from.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/rules.h"

static const char usage_text[] =
	"usage: leftover rules [--show-origin] [--rules FILE]... [BUILD_DIR]\n"
	"   or: leftover rules --check FILE...\n"
	"\n"
	"Print the rules a scan of BUILD_DIR would use, in the order they are read:\n"
	"the shipped defaults, $XDG_CONFIG_HOME/leftover/rules, the source tree's\n"
	".leftover, BUILD_DIR/.leftover/rules, then each --rules FILE. A setting\n"
	"overridden by a later one is not printed.\n"
	"\n"
	"  --show-origin          prefix each line with the file and line it came from\n"
	"  --rules FILE           read this rule file last (repeatable)\n"
	"  --check                validate each FILE on its own and print nothing if valid\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 valid; 1 (--check) a file is invalid; 2 usage error or invalid\n"
	"rules when listing.\n";

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

int lo_cmd_rules(int argc, char **argv)
{
	static const struct option options[] = {
		{ "show-origin", no_argument, NULL, 'o' },
		{ "rules", required_argument, NULL, 'r' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char **files = NULL;
	size_t file_count = 0, file_cap = 0;
	int show_origin = 0, check = 0, c, status;
	lo_rules *rules = NULL;
	int err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			show_origin = 1;
			break;
		case 'r':
			lo_array_grow(&files, &file_cap, file_count + 1, sizeof(*files));
			files[file_count++] = optarg;
			break;
		case 'c':
			check = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(files);
			return LO_EXIT_CLEAN;
		default:
			fputs(usage_text, stderr);
			free(files);
			return LO_EXIT_ERROR;
		}
	}
	if (check) {
		free(files);
		if (optind >= argc || show_origin || file_count) {
			lo_cli_error("--check takes rule files and no other option");
			return LO_EXIT_ERROR;
		}
		return check_files(argc - optind, argv + optind);
	}
	if (argc - optind > 1) {
		lo_cli_error("one build directory at most");
		free(files);
		return LO_EXIT_ERROR;
	}
	if (optind < argc)
		err = lo_rules_load_tree(&rules, argv[optind], files, file_count);
	else
		err = lo_rules_load(&rules, files, file_count);
	free(files);
	if (err < 0) {
		lo_cli_error("%s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	lo_cli_rules_warn(rules);
	status = lo_rules_foreach(rules, print_entry, &show_origin) ? LO_EXIT_ERROR : LO_EXIT_CLEAN;
	lo_rules_free(rules);
	return status;
}
