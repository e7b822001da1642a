/*
 * wildcard.h - shell wildcards, as fnmatch(3) matches them, for the
 * systems whose C library has no fnmatch (Windows: os/pattern_win.c makes
 * fnmatch of it). '*', '?', bracket expressions ([a-z], [!x], [^x]), '\\'
 * quoting; no character classes ([[:alpha:]]) nor collating elements,
 * which no rule uses. tests/unit/test_wildcard.c holds it against glibc's
 * fnmatch.
 *
 * Owns: matching one name. Does not own: which names are matched (the
 * rules, glob).
 */
#ifndef LEFTOVER_WILDCARD_H
#define LEFTOVER_WILDCARD_H

#include <stdbool.h>

/* fnmatch's flags, with its values */
#define LO_WILD_PATHNAME 1 /* '*', '?' and brackets never match '/' */
#define LO_WILD_NOESCAPE 2 /* '\\' is itself */
#define LO_WILD_PERIOD 4   /* a leading '.' (of a component, with PATHNAME) matched only by '.' */

/* Does `name` match `pattern`? */
bool lo_wildcard_match(const char *pattern, const char *name, int flags);

#endif
