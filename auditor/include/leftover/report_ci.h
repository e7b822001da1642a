/*
 * report_ci.h - scan (and clean) results for CI user interfaces.
 *
 * JUnit XML: one testcase per stale or broken file, failing when the file
 * is still in the tree after the run (a file clean moved away passes, with
 * a note saying where it went). SARIF 2.1.0: one result per stale, broken
 * or unreadable file, for code-scanning uploads. GitHub Actions workflow
 * commands: one ::error or ::warning line per finding, so the job's page
 * shows them, and a step summary and outputs. `clean` may be NULL (a plain
 * scan). A file clean kept by a rule's `keep` is no finding: a passing
 * testcase, no result, no annotation.
 * Does not own: what is a finding (lo_verdict_is_finding, verdict.h), nor
 * where an artifact came from (blame.h, which it asks).
 */
#ifndef LEFTOVER_REPORT_CI_H
#define LEFTOVER_REPORT_CI_H

#include <stdio.h>

#include "leftover/clean.h"
#include "leftover/scan.h"

int lo_report_write_junit(FILE *out, const lo_scan_result *res, const lo_clean_result *clean);
int lo_report_write_sarif(FILE *out, const lo_scan_result *res, const lo_clean_result *clean);

/*
 * The annotations: on the repository file blame.h holds responsible (file=
 * relative to the repository, line=), the artifact's path in the message.
 */
int lo_report_write_github(FILE *out, const lo_scan_result *res, const lo_clean_result *clean);

/*
 * For GitHub's GITHUB_STEP_SUMMARY: a Markdown summary of what was found,
 * what was moved and how to undo it, for the build tree `dir` as named.
 */
int lo_report_write_github_summary(FILE *out, const lo_scan_result *res,
				   const lo_clean_result *clean, const char *dir);

/* For GitHub's GITHUB_OUTPUT: name=value lines of the counts (judged, broken, ...). */
int lo_report_write_github_outputs(FILE *out, const lo_scan_result *res,
				   const lo_clean_result *clean);

/* The absolute path of `f`, owned. */
char *lo_report_abs_path(const lo_scan_result *res, const lo_file *f);

struct lo_blame;
/*
 * `f`'s path as a message names it, owned: relative to the repository of
 * `b` when inside it ("build/lib/libfoo.so"), else absolute; quoted as
 * text output quotes it.
 */
char *lo_report_artifact_name(const lo_scan_result *res, const lo_file *f,
			      const struct lo_blame *b);

/* What clean did to `f`, NULL when it was not acted on (or clean is NULL). */
const lo_clean_action *lo_report_action_of(const lo_clean_result *clean, const lo_file *f);

/* One line on why `f` is a finding: its verdict and first reason, owned. */
char *lo_report_summary_of(const lo_file *f);

#endif
