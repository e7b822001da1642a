/*
 * rules_int.h - private to the rules module: the loaded model and what its
 * three files share.
 *
 * rules_read.c collects the entries of every layer (libgit2 reads them;
 * a line scan finds where each key is, for messages), rules_pattern.c
 * holds path patterns and symbol globs, rules.c interprets the entries into
 * hosts, rules and settings and answers the scan's questions.
 */
#ifndef LEFTOVER_RULES_INT_H
#define LEFTOVER_RULES_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "leftover/map.h"
#include "leftover/rules.h"

/* Rule files are small; anything bigger is not a rule file someone wrote. */
#define MAX_RULE_FILE (4u << 20)
/* libgit2's own limit on include nesting. */
#define MAX_INCLUDE_DEPTH 10
/* `**`/ occurrences expanded per pattern (2^n variants each). */
#define MAX_DOUBLE_STARS 4

/* Where a key appears in a file, found by scan_keys(). */
typedef struct keyline {
	char *name; /* normalised as libgit2 does: section.Subsection.key; owned */
	int line;
	char *include; /* for include.path: the raw value; owned or NULL */
} keyline;

typedef struct src_file {
	char *path; /* as given or as resolved from an include; owned */
	keyline *keys;
	size_t key_count, key_cap;
	bool scanned;
	bool tree; /* a layer of the scanned tree (or included by one): not the user's word */
} src_file;

typedef struct entry {
	char *name;  /* owned */
	char *value; /* owned */
	size_t file; /* index into lo_rules.files */
	int line;    /* 0 when unknown */
	bool overridden;
} entry;

/*
 * A run of literal characters that every path a pattern matches contains;
 * at the path's end when the pattern ends with it after a wildcard (".so"
 * of *.so: libgit2 matches a wildcard pattern against the whole path).
 */
typedef struct needle {
	char *text; /* owned */
	size_t len;
	bool suffix;
} needle;

/*
 * An ordered set of path patterns and its compiled pathspec. `needles` lets
 * most paths be refused without libgit2: every pattern that can include a
 * path has a needle, so a path holding none of them matches nothing. The
 * walk asks this of every file in the tree: pathspec matching was a
 * quarter of a scan's instructions, and then a strstr per needle 7 %.
 */
typedef struct pattern_set {
	char **patterns; /* owned, in declaration order, `!` for negation */
	size_t count, cap;
	git_pathspec *spec; /* owned; NULL when the set is empty */
	/*
	 * Each pattern on its own (no `!`; `neg` says which were negated), for
	 * a path with two forms (lo_pattern_set_matches): the set's spec tells
	 * whether the last pattern matching one path includes it, not which
	 * pattern matched, and the last pattern matching either form decides.
	 */
	git_pathspec **each; /* owned, count of them */
	bool *neg;
	needle *needles;    /* owned; NULL when some pattern has none (then no shortcut) */
	size_t needle_count;
} pattern_set;

/* Symbol patterns, matched with fnmatch(3). */
typedef struct glob_list {
	char **globs; /* owned */
	size_t count, cap;
} glob_list;

struct lo_rules_host {
	char *name;     /* owned */
	pattern_set match;
	glob_list needs; /* the object leaves one of these undefined (a perl XS module: Perl_*) */
	glob_list exports;       /* ... or defines one of these (a JNI library: JNI_OnLoad) */
	glob_list needs_library; /* ... or names one of these as DT_NEEDED (libjvm.so) */
	glob_list preload; /* libraries the program loaded before the files; not globs */
	glob_list beside;  /* programs relative to the object's directory; not globs */
	char *program;  /* absolute, owned, or NULL (none, or an unset ${cmake:VAR}) */
	const entry *program_at; /* the entry that set it; borrowed */
	bool program_tree;       /* the tree named it: a layer of its own, or its CMakeCache.txt */
	glob_list provides;
	const entry *first; /* borrowed; for messages */
};
typedef struct lo_rules_host host;

typedef struct rule {
	lo_rule pub;  /* name and reason owned */
	pattern_set match;
	unsigned on;
	const entry *first;
} rule;

struct lo_rules {
	src_file *files;
	size_t file_count, file_cap;
	entry *entries;
	size_t entry_count, entry_cap;

	char *cmake_cache; /* the build tree's CMakeCache.txt, owned, or NULL */
	/*
	 * Its variables, read once (lo_buildsys_cache_read), or NULL: every
	 * ${cmake:VAR} of every host asks, 19 with the shipped rules, and an
	 * LLVM tree's cache runs to hundreds of kilobytes.
	 */
	lo_map *cmake_vars;
	/*
	 * The directory the rules were loaded for (absolute, real), or NULL:
	 * rule files written for a directory that is no build tree match paths
	 * relative to it (lo_rules_is_candidate).
	 */
	char *dir;
	bool resolve_cmake; /* false for --check and for loads without a tree */

	pattern_set candidates; /* include, and exclude as `!` */
	host *hosts;
	size_t host_count, host_cap;
	glob_list ignore;
	rule *rules;
	size_t rule_count, rule_cap;
	lo_rules_fail fail;
	glob_list trusted; /* [trust] tree: the trees the user vouches for, `*` for all */
	bool collecting_tree; /* the layers being read are the tree's (lo_rules_load_tree) */

	char **warnings; /* owned messages: layers the load went on without */
	size_t warning_count, warning_cap;
};

/* ---- rules_read.c: the layers' files and entries ---- */

/* An include.path value resolved as libgit2 does: ~/, absolute, or next to the includer; owned. */
char *lo_rules_include_resolve(const char *includer, const char *value);

/* Fail with "FILE:LINE: KEY: message" for entry e; returns LO_EINVALID. */
int lo_rules_entry_error(lo_rules *r, const entry *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fail with libgit2's last message: "cannot WHAT 'PATH': ...". */
int lo_rules_git_error(const char *what, const char *path);

/* Collect the entries of one layer file; a missing optional layer is no error. */
int lo_rules_collect_file(lo_rules *r, const char *path, bool optional);

/* Every *.rules of the defaults directory, in name order. */
int lo_rules_collect_defaults(lo_rules *r);

/* The user's layer, $XDG_CONFIG_HOME/leftover/rules; one that may not be read is a warning. */
int lo_rules_collect_user(lo_rules *r);

/* The CMakeCache.txt of dir or of its nearest ancestor that has one, owned, or NULL. */
char *lo_rules_cmake_cache_find(const char *dir);

/* ---- rules_pattern.c: path patterns and symbol globs ---- */

/*
 * Add entry e's path pattern `value` to ps, negated when `neg` (a leading
 * `!` flips it where `allow_neg`), with its variants that drop `**`/ parts.
 */
int lo_pattern_set_add(lo_rules *r, pattern_set *ps, const entry *e, const char *value,
		       bool allow_neg, bool neg);

/* Compile ps once every pattern is in; the one declared last decides. */
int lo_pattern_set_compile(pattern_set *ps);

/*
 * Does the last pattern of ps that matches one of the `n` forms of a path
 * (one or two) include it?
 */
bool lo_pattern_set_matches(const pattern_set *ps, const char *const *forms, size_t n);
void lo_pattern_set_dispose(pattern_set *ps);

/* Add entry e's symbol pattern (a shell glob without spaces) to gl. */
int lo_glob_list_add(lo_rules *r, glob_list *gl, const entry *e);
bool lo_glob_list_matches(const glob_list *gl, const char *s);
void lo_glob_list_dispose(glob_list *gl);

#endif
