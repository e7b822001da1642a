/*
 * main.c - `leftover <command> [options]`: dispatch to one subcommand.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "leftover/os.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "scan", lo_cmd_scan, "find artifacts that would not load or are no longer built" },
	{ "explain", lo_cmd_explain, "show what the loader would do for one file" },
	{ "clean", lo_cmd_clean, "quarantine what is stale (undo with restore)" },
	{ "restore", lo_cmd_restore, "put a quarantined set back" },
	{ "rules", lo_cmd_rules, "show the effective rules, or --check a rule file" },
	{ "cache", lo_cmd_cache, "show or drop the verdict cache of a scan" },
};

void lo_cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("leftover: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void lo_cli_rules_warn(const lo_rules *rules)
{
	size_t i;

	for (i = 0; i < lo_rules_warning_count(rules); i++)
		lo_cli_error("warning: %s", lo_rules_warning_at(rules, i));
}

int lo_cli_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return 0;
	return isatty(fileno(f));
}

static lo_scan_result *left_to_exit;

void lo_cli_leave_to_exit(lo_scan_result *res)
{
	lo_scan_result_free(left_to_exit);
	left_to_exit = res;
}

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: leftover <command> [options] [args]\n\ncommands:\n", out);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'leftover <command> --help' describes one command.\n", out);
}

/*
 * glibc gives the free top of a heap back to the kernel once it passes the
 * trim threshold: 128 KiB, or twice the largest block freed that had a
 * mapping of its own. A scan frees more than 128 KiB after many a
 * candidate, and the pages come back as faults for the next one, dear on
 * these machines (docs/performance.md): at bench scale 1, 203 trims where
 * 512 KiB leaves 6, and 1.02 times the time. Set here, not left to what a
 * library frees at start (libgit2's reading of the CA bundle, 216 KiB,
 * raised it to 432 KiB).
 */
#define LO_MALLOC_TRIM (512 << 10)

int main(int argc, char **argv)
{
	size_t i;

	lo_os_args(&argc, &argv);
	lo_os_set_argv0(argv[0]); /* where the system cannot name the program otherwise: os.h */
	lo_os_heap_tune(LO_MALLOC_TRIM);
	if (argc < 2) {
		usage(stderr);
		return LO_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return LO_EXIT_CLEAN;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("leftover %s\n", LEFTOVER_VERSION);
		return LO_EXIT_CLEAN;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	lo_cli_error("'%s' is not a command; see 'leftover --help'", argv[1]);
	return LO_EXIT_ERROR;
}
