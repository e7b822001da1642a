/*
 * rules.h - what the scan examines and how, read from rule files.
 *
 * Rule files use git-config syntax and are read with libgit2's config API,
 * so errors come with file and line; patterns are matched with libgit2's
 * pathspec matching (`**`, `!negation` as in .gitignore) against a file's
 * path as the queries below take it: relative to the top of the build tree
 * the file is in, or absolute when it is in none (a system library), so
 * that no answer depends on where a scan starts. An absolute path is
 * matched as it is (without its '/') and, below the directory the rules
 * were loaded for, relative to that directory too, which is what a rule
 * file written for a directory that is no build tree means; the last
 * pattern that matches either decides. rules/README.md documents every key.
 *
 * Files are read in layers, as git reads its config: the shipped defaults
 * (every *.rules file of lo_rules_default_dir(), in name order), the user's
 * $XDG_CONFIG_HOME/leftover/rules, the source tree's .leftover, the build
 * tree's .leftover/rules, then each file given on the command line (a
 * bare NAME that is not a file reads the shipped, off-by-default
 * extra/NAME.rules of that directory: `--rules perl`). A later
 * layer overrides an earlier one: single-valued keys take the last value,
 * multivalued keys (patterns) accumulate and the last matching pattern
 * decides. A bad rule anywhere fails the whole load, with the file, the
 * line and the key in the message, so a scan never starts on rules that
 * do not mean what their author thinks; only a user's rule file that may
 * not be read is skipped, with a warning (lo_rules_warning_at), as git
 * skips such a per-user config. A loaded lo_rules is never
 * changed, so its queries may be called from several threads at once.
 */
#ifndef LEFTOVER_RULES_H
#define LEFTOVER_RULES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lo_rules lo_rules;

/*
 * Load the shipped defaults and the user's rules, then the rule files
 * `files` in order, later ones overriding earlier ones. ${cmake:VAR} host
 * programs stay unresolved (no build tree is known). On error *out is NULL
 * and the message names the file, line and key.
 */
int lo_rules_load(lo_rules **out, const char *const *files, size_t count);

/*
 * Every layer for scanning `build_dir`: defaults, the user's rules, the
 * source tree's .leftover (the source dir is CMAKE_HOME_DIRECTORY in the
 * CMakeCache.txt of build_dir or its nearest ancestor that has one), the
 * build tree's .leftover/rules (next to that CMakeCache.txt, else in
 * build_dir; then build_dir's own when it is below the tree's top), then
 * `files`. ${cmake:VAR} is looked up in that CMakeCache.txt. In an
 * in-source build the two share a name: a .leftover directory is no
 * source rule file (nor is leftover 0.1's state and quarantine directory
 * of that name), and a .leftover file has no rules below it; neither is an
 * error.
 */
int lo_rules_load_tree(lo_rules **out, const char *build_dir, const char *const *files,
		       size_t count);

/*
 * What the load went on without, for the caller to tell the user: one
 * message per skipped layer, naming the file ("cannot read rule file
 * '/home/u/.config/leftover/rules': Permission denied; going on without
 * it"). lo_rules_warning_at() is NULL past the count.
 */
size_t lo_rules_warning_count(const lo_rules *rules);
const char *lo_rules_warning_at(const lo_rules *rules, size_t i);

/*
 * Validate one file on its own, as `leftover rules --check` does: every
 * error a load would report, except for ${cmake:VAR} programs.
 */
int lo_rules_check(const char *file);

void lo_rules_free(lo_rules *rules);

/*
 * Is the file at `path` (in its build tree, or absolute: see above)
 * examined by the load check? Likewise for every `path` below.
 */
bool lo_rules_is_candidate(const lo_rules *rules, const char *path);

/* A [host "NAME"]: the program that loads the files it selects. */
typedef struct lo_rules_host lo_rules_host;

/* What a [host] may recognise its objects by, besides their path. */
typedef enum lo_rules_trait {
	LO_RULES_NEEDS,         /* `needs`: leaves a symbol matching the glob undefined */
	LO_RULES_EXPORTS,       /* `exports`: defines one (JNI_OnLoad, Pg_magic_func) */
	LO_RULES_NEEDS_LIBRARY, /* `needs-library`: a DT_NEEDED name matches it (libjvm.so) */
} lo_rules_trait;

/*
 * Has the object being judged `trait` for the shell glob `glob`? The scan
 * answers for its object: rules read no ELF.
 */
typedef bool (*lo_rules_object_fn)(lo_rules_trait trait, const char *glob, void *payload);

/*
 * The host of the file at `path`: the last [host] whose conditions all
 * hold, its `match` selecting the path and, when it has `needs`, `exports`
 * or `needs-library`, the object having one of those traits (asked through
 * `has`). NULL when none does: the scan then picks its default host.
 * Borrowed from rules.
 */
const lo_rules_host *lo_rules_host_of(const lo_rules *rules, const char *path,
				      lo_rules_object_fn has, void *payload);

/* The NAME of [host "NAME"]. */
const char *lo_rules_host_name(const lo_rules_host *host);

/* Its program, absolute, or NULL when it names none (or an unset ${cmake:VAR}). */
const char *lo_rules_host_program(const lo_rules_host *host);

/*
 * Is `program` (lo_rules_host_program_for's answer) the user's word: the
 * host's program as a layer of the user's (the shipped defaults, their own
 * rules, --rules) wrote it? Not when the tree's own layers set it, nor
 * when it came from the tree's CMakeCache.txt (${cmake:VAR}), nor for a
 * `beside` program, which lies in the tree: those are run only as
 * trust.h allows.
 */
bool lo_rules_host_program_vouched(const lo_rules_host *host, const char *program);

/*
 * Does the user vouch for the tree at `dir` (absolute, real): a
 * `[trust] tree` of their own layers names it, a directory above it, or
 * `*`? The tree's own layers may not say so: that is a load error.
 */
bool lo_rules_trusts_tree(const lo_rules *rules, const char *dir);

/*
 * The program that loads the object at `abs`: the first of the host's
 * `beside` programs (paths relative to the object's directory: a JDK's own
 * ../bin/java for its lib/ objects) that is an executable file there, else its
 * program. Owned, or NULL.
 */
char *lo_rules_host_program_for(const lo_rules_host *host, const char *abs);

/*
 * The libraries its program has loaded, with RTLD_GLOBAL, before it loads
 * the files ([host] preload; the JVM's libjvm.so), as written: absolute,
 * or `${program_dir}/...`, the directory of the program that really runs
 * (shims and symlinks followed), which the scan's hosts expand. *count of
 * them, borrowed from the rules.
 */
const char *const *lo_rules_host_preload(const lo_rules_host *host, size_t *count);

/*
 * Is `library` (a DT_NEEDED name) the file name of one of its preloads?
 * Where the program is not read, such a library is taken as loaded, as its
 * `provides` are taken as defined.
 */
bool lo_rules_host_preloads(const lo_rules_host *host, const char *library);

/*
 * Does the host declare that it provides `symbol` (its `provides`
 * patterns), so that an undefined `symbol` is no finding?
 */
bool lo_rules_host_provides(const lo_rules_host *host, const char *symbol);

/* Is `symbol` one that is never a finding ([symbols] ignore)? */
bool lo_rules_symbol_ignored(const lo_rules *rules, const char *symbol);

/* What a [rule] asks to be done with the files it matches. */
typedef enum lo_rules_action {
	LO_RULES_ACTION_REPORT,     /* the default: report, leave the file alone */
	LO_RULES_ACTION_KEEP,       /* never clean it, never count it as a finding */
	LO_RULES_ACTION_QUARANTINE, /* `leftover clean` moves it aside */
	LO_RULES_ACTION_DELETE,     /* `leftover clean` deletes it */
} lo_rules_action;

/* The states a [rule] can be `on`; combine with |. */
enum {
	LO_RULES_ON_STALE = 1 << 0,
	LO_RULES_ON_BROKEN = 1 << 1,
	LO_RULES_ON_ORPHAN = 1 << 2,
	/*
	 * Not judged, its host unusable: no rule can be `on` it, so nothing acts
	 * on such a file, but it fails the run unless [fail] on = never.
	 */
	LO_RULES_ON_UNJUDGED = 1 << 3,
};

typedef struct lo_rule {
	const char *name;   /* the NAME of [rule "NAME"] */
	lo_rules_action action;
	const char *reason; /* the sentence shown with each finding, or NULL */
} lo_rule;

/*
 * The rule for a file at `path` in the states `on` (LO_RULES_ON_*): the
 * last [rule] whose match selects the path and whose `on` shares a state
 * with `on`, or NULL. Borrowed from rules.
 */
const lo_rule *lo_rules_rule_for(const lo_rules *rules, const char *path, unsigned on);

/* What makes the exit status 1 ([fail] on). */
typedef enum lo_rules_fail {
	LO_RULES_FAIL_STALE,  /* the default: any stale or broken file */
	LO_RULES_FAIL_BROKEN, /* only files that would not load */
	LO_RULES_FAIL_NEVER,  /* findings are reported, the status stays 0 */
} lo_rules_fail;

lo_rules_fail lo_rules_fail_on(const lo_rules *rules);

/*
 * Does the file at `path`, in the states `on` (LO_RULES_ON_*; a file
 * that cannot be read counts as broken), make the exit status 1? Applies
 * [fail] on, and a matching rule with action keep.
 */
bool lo_rules_fails(const lo_rules *rules, const char *path, unsigned on);

/*
 * Call `cb` for each effective setting in load order, with the file and
 * line it came from (a setting overridden by a later layer is left out).
 * A nonzero return from cb stops the walk and is returned.
 */
typedef int (*lo_rules_entry_cb)(const char *name, const char *value, const char *file,
				 int line, void *payload);
int lo_rules_foreach(const lo_rules *rules, lo_rules_entry_cb cb, void *payload);

/*
 * The directory the default rule files are read from: $LEFTOVER_RULES_DIR
 * when set (so a test or a user can replace the shipped set), else the one
 * installed beside the program (bin/../share/leftover/rules: a package
 * unpacked anywhere), else the one at the configured prefix when it exists,
 * else the source tree's rules/, so a binary run from its build tree finds
 * them.
 */
const char *lo_rules_default_dir(void);

#endif
