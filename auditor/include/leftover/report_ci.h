/*
 * report_ci.h - scan (and clean) results for CI user interfaces.
 *
 * JUnit XML: one testcase per stale or broken file, failing when the file
 * is still in the tree after the run (a file clean moved away passes, with
 * a note saying where it went). SARIF 2.1.0: one result per stale, broken
 * or unreadable file, for code-scanning uploads. GitHub Actions workflow
 * commands: one ::error or ::warning line per finding, so the job's page
 * shows them. `clean` may be NULL (a plain scan). A file clean kept by a
 * rule's `keep` is no finding: a passing testcase, no result, no annotation.
 */
#ifndef LEFTOVER_REPORT_CI_H
#define LEFTOVER_REPORT_CI_H

#include <stdio.h>

#include "leftover/clean.h"
#include "leftover/scan.h"

int lo_report_write_junit(FILE *out, const lo_scan_result *res, const lo_clean_result *clean);
int lo_report_write_sarif(FILE *out, const lo_scan_result *res, const lo_clean_result *clean);

/*
 * `prefix` is put before each path in file= (the build directory as the
 * user named it, so that annotations point into the repository).
 */
int lo_report_write_github(FILE *out, const lo_scan_result *res, const lo_clean_result *clean,
			   const char *prefix);

/* What clean did to `f`, NULL when it was not acted on (or clean is NULL). */
const lo_clean_action *lo_report_action_of(const lo_clean_result *clean, const lo_file *f);

/* One line on why `f` is a finding: its verdict and first reason, owned. */
char *lo_report_summary_of(const lo_file *f);

#endif
