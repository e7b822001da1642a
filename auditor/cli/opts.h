/*
 * opts.h - the options of every subcommand, as data: one table per command
 * that getopt parses, --help prints and the shell completions are checked
 * against (tests/e2e/test_completion.py), so that the three cannot drift.
 *
 * It owns the parsing of argv (getopt_long over the table), --help and
 * usage errors, the options shared by the commands that judge files
 * (--python, --host, --library-path, --sysroot, --hwcaps: how one file is loaded; --rules,
 * -j/--jobs: how a tree is scanned), value lists (--format text|json|...)
 * and the checks on operands (how many; that a root is a directory). It
 * does not own what a command does with its own options: lo_cli_opts_next()
 * hands those back one by one, as getopt_long() would.
 */
#ifndef LEFTOVER_CLI_OPTS_H
#define LEFTOVER_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "leftover/rules.h"
#include "leftover/scan.h"

/*
 * One option. `code` is what lo_cli_opts_next() returns for it, unique in
 * its table and, for one without a short form, none of the table's short
 * letters; codes from LO_CLI_OPT_SHARED up are the shared options, handled
 * here.
 */
typedef struct lo_cli_opt {
	const char *name;   /* the long name, without "--" */
	char short_name;    /* 'v' for -v, or 0 */
	int code;
	const char *arg;    /* the value's name in --help ("FILE"), NULL for a flag */
	const char *values; /* the words the value may be, space-separated ("text json"), or NULL */
	const char *help;   /* what it does; each '\n' starts a continuation line */
} lo_cli_opt;

/* The codes of the shared options. */
enum {
	LO_CLI_OPT_SHARED = 0x100,
	LO_CLI_OPT_PYTHON = LO_CLI_OPT_SHARED,
	LO_CLI_OPT_HOST,
	LO_CLI_OPT_LIBRARY_PATH,
	LO_CLI_OPT_SYSROOT,
	LO_CLI_OPT_HWCAPS,
	LO_CLI_OPT_TRUST_TREE,
	LO_CLI_OPT_RULES,
	LO_CLI_OPT_JOBS,
	LO_CLI_OPT_HELP,
};

/* Table entries for the shared options, the same words in every command. */
#define LO_CLI_OPTS_LOAD                                                                        \
	{ "python", 0, LO_CLI_OPT_PYTHON, "PATH", NULL,                                          \
	  "interpreter that imports the Python extension modules\n"                              \
	  "(default: as CMakeCache.txt, meson's log or setuptools'\n"                            \
	  "build/ record it, else python3 on PATH)" },                                           \
	{ "host", 0, LO_CLI_OPT_HOST, "PATH", NULL,                                               \
	  "program that loads the other shared objects\n(default: a plain C program)" },         \
	{ "library-path", 0, LO_CLI_OPT_LIBRARY_PATH, "DIRS", NULL,                               \
	  "directories standing for LD_LIBRARY_PATH, separated by ':'\n"                        \
	  "(';' on Windows); the tool's own environment is never used" },                        \
	{ "sysroot", 0, LO_CLI_OPT_SYSROOT, "DIR", NULL,                                          \
	  "judge against this root (a container's filesystem, a\n"                               \
	  "cross sysroot): the loader's absolute paths are read in it" },                         \
	{ "hwcaps", 0, LO_CLI_OPT_HWCAPS, "LIST", NULL,                                           \
	  "glibc-hwcaps levels of the CPU that will load the files,\n"                           \
	  "comma-separated (default: this CPU's, e.g. x86-64-v3,x86-64-v2)" },                    \
	{ "trust-tree", 0, LO_CLI_OPT_TRUST_TREE, NULL, NULL,                                     \
	  "vouch for the scanned trees: run the programs their records\n"                        \
	  "and rule files name (default: only ones they cannot have changed)" }
#define LO_CLI_OPTS_TREE                                                                        \
	{ "rules", 0, LO_CLI_OPT_RULES, "FILE", NULL,                                             \
	  "read this rule file last (repeatable; see\n'leftover rules' for the layers before it)" }, \
	{ "jobs", 'j', LO_CLI_OPT_JOBS, "N", NULL,                                                \
	  "threads to walk and judge with (default: one per core)" }
#define LO_CLI_OPT_HELP_ENTRY { "help", 'h', LO_CLI_OPT_HELP, NULL, NULL, "show this help" }

/* A subcommand: its --help is `synopsis`, the options, then `epilogue`. */
typedef struct lo_cli_cmd {
	const char *name;
	const char *synopsis;  /* the usage lines and what the command does */
	const lo_cli_opt *opts; /* ends with a zero entry */
	const char *epilogue;  /* after the options: exit status, ... */
} lo_cli_cmd;

/* Every subcommand's table, in the order `leftover --help` lists them. */
extern const lo_cli_cmd lo_cli_scan_cmd, lo_cli_explain_cmd, lo_cli_clean_cmd,
	lo_cli_restore_cmd, lo_cli_rules_cmd, lo_cli_cache_cmd;

/* lo_cli_opts_next(): the options end, the operands begin at optind. */
#define LO_CLI_OPTS_END (-1)
/* lo_cli_opts_next(): stop with exit status `status` (--help shown, or a usage error printed). */
#define LO_CLI_OPTS_STOP (-2)

typedef struct lo_cli_opts {
	/*
	 * What the shared options set, for lo_scan_run(); the command fills in
	 * its own fields (reconfigure, ...). library_path points into this
	 * struct and rules is set by lo_cli_opts_load_rules().
	 */
	lo_scan_opts scan;
	const char **rule_files; /* --rules FILE, in the order given; borrowed from argv */
	size_t rule_count;
	lo_rules *rules; /* owned; NULL until lo_cli_opts_load_rules() */
	int value;       /* for an option with values: which word optarg is (0 for the first) */
	int status;      /* the exit status after LO_CLI_OPTS_STOP or a failed check */

	/* private */
	const lo_cli_cmd *cmd;
	char **library_path; /* owned copies of the --library-path entries */
	size_t library_path_count, library_path_cap, rule_cap;
	struct option *longopts; /* owned, from cmd->opts */
	char *shortopts;         /* owned */
} lo_cli_opts;

/* Print `cmd`'s --help to `out`. */
void lo_cli_opts_usage(const lo_cli_cmd *cmd, FILE *out);

/* Set up *o for `cmd` and restart getopt (optind = 1). */
void lo_cli_opts_init(lo_cli_opts *o, const lo_cli_cmd *cmd);

/*
 * The code of the next of the command's own options (optarg set), with the
 * shared ones handled in between; LO_CLI_OPTS_END at the operands, or
 * LO_CLI_OPTS_STOP with o->status set (--help printed to stdout: 0; an
 * unknown option or a value not among its values, usage or message on
 * stderr: 2). For an option with values, o->value says which it was.
 */
int lo_cli_opts_next(lo_cli_opts *o, int argc, char **argv);

/*
 * Check the operands argv[optind..argc): between `min` and `max` of them
 * (else the usage on stderr) and, when `dirs`, the first `dirs` of them
 * directories (else a message naming the one that is not). 0, or -1 with
 * o->status set to 2.
 */
int lo_cli_opts_operands(lo_cli_opts *o, int argc, char **argv, int min, int max, int dirs);

/*
 * Load every rule layer for the tree `dir`, the --rules files last, into
 * o->rules and o->scan.rules. -1 with the message printed when one is bad.
 */
int lo_cli_opts_load_rules(lo_cli_opts *o, const char *dir);

void lo_cli_opts_dispose(lo_cli_opts *o);

#endif
