/*
 * explain.h - one file's case on one screen, for `leftover explain`.
 *
 * A user meets a stale module as an error message ("ImportError:
 * /b/_m.so: undefined symbol: foo"), not as a path; lo_explain_message_path
 * finds the file such a message is about. lo_explain_records gathers what
 * the records say of that file: whether the current build still produces
 * it (buildsys.h), the rule that names it (rules.h), and where its tree
 * came from (blame.h: the commit it was built at, by the last scan's state
 * or else by git's reflog, and the commit that dropped it; the CI reports
 * point at the file that history names).
 * lo_explain_write_summary then writes the verdict first and the rest in
 * a bounded number of lines, whatever the size of the libraries involved:
 * the full trace of every binding stays the CLI's --verbose.
 * Does not own: the load itself (resolve.h) or the choice of its host (the
 * CLI, as scan_judge.c makes it); it reads what they found.
 */
#ifndef LEFTOVER_EXPLAIN_H
#define LEFTOVER_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "leftover/blame.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/resolve.h"
#include "leftover/rules.h"
#include "leftover/scan.h"

/*
 * The file a loader's error message is about, as written in it (owned; a
 * relative path stays relative), or NULL when the message names no file
 * that exists: the object named by "(required by X)", else the path before
 * a dlerror() phrase (": undefined symbol:", ": cannot open shared object
 * file", ...), with any "ImportError: "-like prefix taken off, else the
 * first word that names an existing file; dyld's "dlopen(PATH, 0x0002):
 * ..." names PATH. *symbol: the symbol of an "undefined symbol: S"
 * message (dyld's "symbol not found in flat namespace 'S'", "Symbol not
 * found: S"), owned, else NULL.
 */
char *lo_explain_message_path(const char *message, char **symbol);

/*
 * The library a loader's error message says it could not open when the
 * message names it as a DT_NEEDED name, not as a path ("ImportError:
 * libcore.so.1: cannot open shared object file: No such file or
 * directory"): owned, or NULL.
 */
char *lo_explain_message_library(const char *message);

/*
 * The objects under `dir` that `rules` make candidates and that name
 * `library` as DT_NEEDED: absolute, sorted, *count of them (*out NULL for
 * none; free each, then the array). Those are the files such a message can
 * be about. Returns 0, or a negative code when `dir` cannot be walked.
 */
int lo_explain_needing(char ***out, size_t *count, const char *dir, const lo_rules *rules,
		       const char *library);

typedef struct lo_explain {
	char *build_dir;          /* the nearest ancestor with a CMakeCache.txt, or NULL */
	char *relpath;            /* the file relative to build_dir, or NULL */
	lo_orphan_verdict orphan; /* by every build tree holding it (any generator); -1 when none says */
	char *rule_name, *rule_reason; /* the [rule] naming the file in its states, or NULL */
	char *rules_error;        /* why the rules could not be read, or NULL */
	lo_blame *history;        /* where its tree came from (blame.h); NULL outside a CMake tree */
} lo_explain;

/*
 * What the records say of the file at `abs` (absolute), which `loads` or
 * not. Every part is optional: a file outside a CMake tree, or a tree
 * without git, gets what can be known. Returns 0 with *out set.
 */
int lo_explain_records(lo_explain **out, const char *abs, bool loads);
void lo_explain_free(lo_explain *x);

/*
 * The module X of Python's Windows message "ImportError: DLL load failed
 * while importing X: The specified procedure could not be found." (owned),
 * or NULL when the message is not that one.
 */
char *lo_explain_message_pe_module(const char *message);

/*
 * Write, for each file of `res` that is Python module `module` (X.pyd,
 * X.cp311-win_amd64.pyd), its verdict and reasons in the loader's words;
 * *findings when any is a finding. Returns how many files were written.
 */
size_t lo_explain_write_pe(lo_buf *out, const lo_scan_result *res, const char *module,
			   bool *findings);

/* How many needs and searched objects the summary lists before "and N more". */
#define LO_EXPLAIN_LIST_MAX 5

/*
 * The summary of `load` (made with LO_LOAD_TRACE) of `abs` from `host`,
 * with records `x` (may be NULL): the verdict, why it would not load and
 * who was searched, whether the build still produces it and on what
 * evidence, the rule's sentence, the commit and files that dropped it, and
 * the command that moves it aside. `named`, the symbol or the library the
 * user's message names, is marked where the summary names it. `host`
 * NULL: `load` is the start of the program `abs` (resolve.h's
 * lo_load_start), and the summary says whether it would start. At most
 * about 35 lines.
 */
void lo_explain_write_summary(lo_buf *out, const char *abs, lo_kind kind, const char *host,
			      const lo_load *load, const lo_explain *x, const char *named);

/*
 * Likewise for a load another loader model played (dyld.h): its n
 * `problems`, each with the loader's own words under it, and what it
 * took on trust (`assumed`, or NULL).
 */
void lo_explain_write_problems(lo_buf *out, const char *abs, lo_kind kind, const char *host,
			       const lo_problem *problems, size_t n, const char *assumed,
			       const lo_explain *x, const char *named);

#endif
