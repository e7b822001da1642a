/*
 * clean_hooks.h - what `clean` and `restore` share in the CLI: Ctrl-C
 * stopping between two files, and the test suite's hooks.
 * Does not own: moving or restoring files (clean.h, in the library).
 */
#ifndef LEFTOVER_CLI_CLEAN_HOOKS_H
#define LEFTOVER_CLI_CLEAN_HOOKS_H

#include <stdbool.h>

#include "leftover/clean.h"

/*
 * Make SIGINT and SIGTERM set opts->stop (the run stops between two files
 * and still reports), and install the test hooks the environment asks for:
 * LEFTOVER_TEST_CLEAN_DELAY_MS (sleep before each file, so that a kill lands
 * among the moves) and LEFTOVER_TEST_CLEAN_PAUSE=FILE (before the first
 * file, create FILE and wait until it is removed, so that a test can change
 * the tree between the plan and the moves).
 */
void lo_cli_clean_hooks(lo_clean_opts *opts);

/*
 * SIGINT and SIGTERM set opts->stop (catch), or end the program as they do
 * by default: while the scan runs, which has no point to stop at.
 */
void lo_cli_catch_stop(bool catch);

#endif
