/*
 * rules.h - what the scan examines and how, read from rule files.
 *
 * Rule files use git-config syntax and are read with libgit2's config API,
 * so errors come with file and line; patterns are matched with libgit2's
 * pathspec matching (`**`, `!negation` as in .gitignore) against paths
 * relative to the scanned root. rules/README.md documents every key.
 */
#ifndef LEFTOVER_RULES_H
#define LEFTOVER_RULES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lo_rules lo_rules;

/*
 * Load the shipped defaults (default.rules in lo_rules_default_dir()), then
 * the rule files `files` in order, later ones overriding earlier ones.
 * On error *out is NULL and the message names the file.
 */
int lo_rules_load(lo_rules **out, const char *const *files, size_t count);
void lo_rules_free(lo_rules *rules);

/* Is the file at `relpath` examined by the load check? */
bool lo_rules_is_candidate(const lo_rules *rules, const char *relpath);

/*
 * The directory the default rule files are read from: the installed one
 * (LEFTOVER_RULES_DIR) when it exists, else the source tree's rules/, so a
 * binary run from its build tree finds them.
 */
const char *lo_rules_default_dir(void);

#endif
