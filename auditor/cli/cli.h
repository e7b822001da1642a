/*
 * cli.h - the subcommands of the leftover program.
 *
 * Each subcommand lives in its own file (as git's builtin/ files), parses its
 * options and calls library code; only this layer prints errors and picks
 * the exit status.
 */
#ifndef LEFTOVER_CLI_H
#define LEFTOVER_CLI_H

#include <stdio.h>

#include "leftover/rules.h"
#include "leftover/scan.h"

/* Exit statuses, the same for every subcommand. */
enum {
	LO_EXIT_CLEAN = 0,    /* nothing broken or stale */
	LO_EXIT_FINDINGS = 1, /* something is */
	LO_EXIT_ERROR = 2,    /* usage or environment error */
};

/* Print "leftover: <msg>\n" to stderr. */
void lo_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "leftover: warning: <msg>" for each layer the rules load went on without. */
void lo_cli_rules_warn(const lo_rules *rules);

/* --format of scan and clean: its values (opts.h), in this order. */
#define LO_CLI_FORMAT_VALUES "text json junit sarif"
typedef enum lo_cli_format {
	LO_CLI_FORMAT_TEXT,
	LO_CLI_FORMAT_JSON,
	LO_CLI_FORMAT_JUNIT,
	LO_CLI_FORMAT_SARIF,
} lo_cli_format;

/* Should output to `f` be coloured (a terminal, NO_COLOR unset)? */
int lo_cli_use_color(FILE *f);

/*
 * Leave `res` (NULL: nothing) to the process's exit, which drops the
 * scan's thousands of mapped tables at once, where freeing them unmaps one
 * after another: 6 % of a scan of the bench tree. It is kept reachable,
 * so that leak checkers do not count it; one left before is freed now.
 */
void lo_cli_leave_to_exit(lo_scan_result *res);

int lo_cmd_scan(int argc, char **argv);
int lo_cmd_explain(int argc, char **argv);
int lo_cmd_clean(int argc, char **argv);
int lo_cmd_restore(int argc, char **argv);
int lo_cmd_rules(int argc, char **argv);
int lo_cmd_cache(int argc, char **argv);

/*
 * Remove the verdict cache of a scan of `dirs` (cache.c; scan --clear-cache
 * too). 0, or -1 after saying why not.
 */
int lo_cli_cache_clear(char **dirs, size_t n);

#endif
