/*
 * scan_opts.h - the options that say how files are judged, for each command
 * that judges them (scan, clean, explain): one option table, one parser and
 * one help text, so that an option added here works, and reads, the same in
 * every one of them.
 *
 * A command gives its own options and which of the shared ones it takes;
 * lo_cli_scan_opts_getopt() runs getopt_long over both, handles the shared
 * ones into a lo_scan_opts and hands back only the command's own.
 */
#ifndef LEFTOVER_CLI_SCAN_OPTS_H
#define LEFTOVER_CLI_SCAN_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "leftover/rules.h"
#include "leftover/scan.h"

/* Which shared options a command takes. */
enum {
	LO_CLI_LOAD_OPTS = 1, /* --python, --host, --library-path: how one file is loaded */
	LO_CLI_TREE_OPTS = 2, /* --rules, -j/--jobs: how a tree is scanned */
};

/* Their lines of help, for a command's usage text. */
#define LO_CLI_LOAD_OPTS_HELP                                                                  \
	"  --python PATH          interpreter that imports the Python extension modules\n"   \
	"                         (default: from CMakeCache.txt, else python3 on PATH)\n"    \
	"  --host PATH            program that loads the other shared objects\n"             \
	"                         (default: a plain C program)\n"                            \
	"  --library-path DIRS    colon-separated directories standing for LD_LIBRARY_PATH\n" \
	"                         (the tool's own environment is never used)\n"
#define LO_CLI_TREE_OPTS_HELP                                                     \
	"  --rules FILE           read this rule file last (repeatable; see\n"  \
	"                         'leftover rules' for the layers before it)\n" \
	"  -j, --jobs N           threads to walk and judge with (default: one per core)\n"

/* lo_cli_scan_opts_getopt(): a shared option had a bad value; the message is printed. */
#define LO_CLI_OPT_BAD (-2)

typedef struct lo_cli_scan_opts {
	/*
	 * What the options set, for lo_scan_run(); the command fills in its own
	 * fields (reconfigure, ...). library_path points into this struct and
	 * rules is set by lo_cli_scan_opts_load_rules().
	 */
	lo_scan_opts scan;
	const char **rule_files; /* --rules FILE, in the order given; borrowed from argv */
	size_t rule_count;
	lo_rules *rules; /* owned; NULL until lo_cli_scan_opts_load_rules() */

	/* private */
	const char *cmd;
	char **library_path; /* owned copies of the --library-path entries */
	size_t library_path_count, library_path_cap, rule_cap;
	struct option *longopts; /* owned: the shared ones, then the command's */
	char *shortopts;         /* owned */
} lo_cli_scan_opts;

/*
 * Set up *so for command `cmd` ("scan", for messages) with its own
 * getopt_long options (`shortopts`, and `longopts` ending in a zero entry,
 * whose codes must not be 'j' or 0x100 and above) and the shared ones in
 * `which`, and restart getopt (optind = 1).
 */
void lo_cli_scan_opts_init(lo_cli_scan_opts *so, const char *cmd, unsigned which,
			   const char *shortopts, const struct option *longopts);

/*
 * The next of the command's own options, as getopt_long() returns it
 * (optarg set, '?' for an unknown one, -1 at the end); the shared ones are
 * handled in between. LO_CLI_OPT_BAD when one of them had a bad value.
 */
int lo_cli_scan_opts_getopt(lo_cli_scan_opts *so, int argc, char **argv);

/*
 * Load every rule layer for the tree `dir`, the --rules files last, into
 * so->rules and so->scan.rules. -1 with the message printed when one is bad.
 */
int lo_cli_scan_opts_load_rules(lo_cli_scan_opts *so, const char *dir);

void lo_cli_scan_opts_dispose(lo_cli_scan_opts *so);

#endif
