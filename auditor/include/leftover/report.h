/*
 * report.h - scan results for people and for programs.
 *
 * Text: one line per finding, grouped by file, paths relative to the root,
 * C++ symbols demangled, colour only when asked (the CLI asks on a terminal
 * without NO_COLOR). JSON: one document, the format documented in docs/json.md,
 * every candidate once, names escaped losslessly.
 * Does not own: any verdict (verdict.h decides, report only words it), nor
 * the CI formats (report_ci.h).
 */
#ifndef LEFTOVER_REPORT_H
#define LEFTOVER_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "leftover/scan.h"

enum {
	LO_REPORT_COLOR = 1 << 0,   /* ANSI colour */
	LO_REPORT_VERBOSE = 1 << 1, /* also list files that are ok or skipped */
};

int lo_report_write_text(FILE *out, const lo_scan_result *res, unsigned flags);
int lo_report_write_json(FILE *out, const lo_scan_result *res);

/* The demangled form of a C++ symbol, owned; a copy of `sym` otherwise. */
char *lo_report_demangle(const char *sym);

/*
 * A file name as text output shows it: printable bytes as they are, others
 * as C escapes (\n, \t, \xNN); owned.
 */
char *lo_report_quote_path(const char *path);

#endif
