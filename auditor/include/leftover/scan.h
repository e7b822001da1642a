/*
 * scan.h - the verdict on every candidate of a build tree.
 *
 * lo_scan_run walks each root, picks the candidates named by the rules,
 * reads each one, plays its load from the right host (resolve.h, hosts.h),
 * asks the build's records and git about it, and records one lo_file per
 * candidate: its kind, the facts (whether it would load, whether the
 * current build still produces it) with the reasons behind them, and the
 * verdict verdict.h draws from those facts.
 *
 * Owns: the result as plain data and its lifetime. Does not own: the
 * verdict rules (verdict.h), the loader model (resolve.h), the build's
 * records (buildsys.h), printing (report.h) or acting (clean.h).
 */
#ifndef LEFTOVER_SCAN_H
#define LEFTOVER_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "leftover/rules.h"
#include "leftover/verdict.h"

typedef enum lo_kind {
	LO_KIND_PYTHON_EXTENSION, /* "python-extension" */
	LO_KIND_SHARED_LIBRARY,   /* "shared-library" */
	LO_KIND_OTHER,            /* "other" */
} lo_kind;

typedef struct lo_reason {
	lo_reason_kind kind;
	char *symbol;  /* owned or NULL, likewise below */
	char *version;
	char *library;
	char *object;  /* the object with the need, relative to the root where inside it */
	char *detail;
	char *evidence; /* kind "orphan", "suspected" (and "superseded-library"):
			   lo_orphan_evidence_str's word */
} lo_reason;

typedef struct lo_file {
	char *path;   /* relative to the result's root; owned, raw bytes */
	char *target; /* for a symlink reported by its link: where it points; else NULL */
	lo_kind kind;
	lo_tristate loads;
	lo_tristate orphan;
	bool suspected;      /* orphan unknown, but the tree and git suggest it (JSON "suspected") */
	lo_tristate tracked; /* in the git index: never a removal candidate; unknown without git */
	lo_stage stage;      /* how far judging it got (verdict.h) */
	lo_verdict verdict;  /* lo_verdict_decide of stage, loads, orphan and suspected */
	char *host;   /* the host program assumed, NULL when none was needed */
	char *host_rule; /* the NAME of the [host "NAME"] that chose it, or NULL; owned */
	char *host_inferred; /* how `host` was inferred from what the object lacks (hosts.h's
				lo_hosts_infer), or NULL; owned */
	const char *arch; /* the target whose loader judged it ("i386-linux-gnu", target.h),
			     NULL when no load was played; static */
	lo_reason *reasons;
	size_t reason_count, reason_cap;
} lo_file;

typedef struct lo_scan_summary {
	size_t files;       /* every candidate */
	size_t bookkeeping; /* orphaned generator bookkeeping (objects, CMakeFiles/), not listed without --all */
	size_t by_verdict[LO_VERDICT_COUNT];
	size_t withheld; /* build trees whose staleness was withheld (lo_buildsys_withheld) */
} lo_scan_summary;

/* Where a build tree came from: its source tree's git HEAD now, and at the last scan. */
typedef struct lo_scan_origin {
	char *build;  /* the build dir (a scanned root), absolute */
	char *source; /* the source dir */
	char *commit, *branch; /* NULL without git; branch "" when detached */
	bool dirty;
	char *last_commit, *last_branch, *last_time; /* the last other commit a scan saw, or NULL */
} lo_scan_origin;

/* A build tree the scan read, and which of its records decide staleness in it. */
typedef struct lo_scan_tree {
	char *dir;     /* absolute */
	char *system;  /* "Ninja", "Unix Makefiles", "autotools", "cargo", "make" (hand-written) */
	char *records; /* the records that decided ("build.ninja and .ninja_log"), NULL when it
			  keeps none: staleness not judged there */
	bool withheld; /* its records are older than its build description: staleness withheld */
} lo_scan_tree;

/* Whether the verdict cache (cache.h) gave the result; not part of any report. */
typedef struct lo_scan_cache {
	bool used;       /* the result is the kept one: nothing was walked nor judged */
	bool partial;    /* the tree walked again, only the files whose own dependencies
			    changed judged again (kept: the others) */
	size_t judged, kept; /* when partial: the verdicts judged again, and kept */
	size_t listed_kept; /* when partial: the directories given by their kept listings */
	size_t checked;  /* the dependencies statted to know it (used) or recorded (not) */
	char *why;       /* why it was not used, for --verbose, or NULL; owned */
	char *complaint; /* a cache that was there but wrong (truncated, corrupt, another
			    format): worth a note; owned or NULL */
} lo_scan_cache;

typedef struct lo_scan_result {
	char *root; /* absolute; the common ancestor when several roots were scanned */
	char **roots; /* each scanned root, absolute, in the order given; owned */
	size_t root_count;
	lo_file *files;
	size_t file_count, file_cap;
	lo_scan_summary summary;
	char **notes; /* lines about the scan itself (build system, git), owned */
	size_t note_count, note_cap;
	/* lines the text report shows only with --verbose (a shim followed); owned */
	char **details;
	size_t detail_count;
	lo_scan_origin *origins; /* one per root that is a build tree with a known source */
	size_t origin_count;
	lo_file *links; /* the other hard links of stale files in `files`: not reported (a file is
			   reported once), moved by clean with it; owned */
	size_t link_count, link_cap;
	lo_scan_tree *trees; /* every build tree read, once however many roots it holds */
	size_t tree_count, tree_cap;
	lo_scan_cache cache;
	struct scan *scan; /* private: what the scan itself used, freed with the result */
} lo_scan_result;

typedef struct lo_scan_opts {
	const char *python;  /* --python: the interpreter for Python extensions, or NULL */
	const char *host;    /* --host: the program loading other shared objects, or NULL */
	const char *const *library_path; /* --library-path entries */
	size_t library_path_count;
	const lo_rules *rules; /* borrowed; NULL loads every layer for the first root */
	unsigned jobs;         /* threads; 0 means one per online core */
	bool reconfigure;      /* --reconfigure: refresh a missing or old File API reply */
	bool all;              /* --all: list orphaned bookkeeping files one by one too */
	const char *source;    /* --source: the source tree; default CMAKE_HOME_DIRECTORY */
	const char *sysroot;   /* --sysroot: the root the loader's absolute paths are read
				  under (sysroot.h), or NULL */
	const char *hwcaps;    /* --hwcaps: comma-separated glibc-hwcaps levels, or NULL */
	bool trust_tree;       /* --trust-tree: run what the trees name (trust.h) */
	bool no_cache;         /* --no-cache: neither use nor keep the verdict cache (cache.h);
				  set by clean, which acts only on verdicts of its own */
} lo_scan_opts;

/*
 * Scan `roots`. Returns 0 with *out set (problems with single files are
 * findings in it), or a negative code with a message when a root cannot be
 * read or a host cannot be set up. What the scan used (the libraries'
 * mapped tables above all) is kept until the result is freed: a program
 * about to exit may leave both to the kernel, which drops them at once
 * instead of one mapping after another.
 */
int lo_scan_run(lo_scan_result **out, const char *const *roots, size_t root_count,
		const lo_scan_opts *opts);
void lo_scan_result_free(lo_scan_result *res);

/*
 * Does the current build make the file at `path` (relative to res->root,
 * or absolute), by the records the scan read? False also where no record
 * says either way. For what the scan did not judge itself: a symlink,
 * reported by its target, that clean would move with it (clean.h).
 */
bool lo_scan_produced(const lo_scan_result *res, const char *path);

/*
 * The path that rule patterns are matched against (rules.h) of the file at
 * `path`, relative to res->root (a file's, or a link beside it): relative
 * to the top of the build tree it is in, or absolute where it is in none,
 * so that what a rule says of it does not depend on where the scan
 * started. Owned.
 */
char *lo_scan_rules_path(const lo_scan_result *res, const char *path);

/* Free what f owns (not f itself). */
void lo_file_dispose(lo_file *f);
/* Free what a reason owns (not the reason itself, which lives in its file's array). */
void lo_reason_dispose(lo_reason *r);

/* Append a reason to f; each string argument is copied, NULL stays NULL. */
lo_reason *lo_file_add_reason(lo_file *f, lo_reason_kind kind, const char *symbol,
			      const char *version, const char *library, const char *object,
			      const char *detail);

const char *lo_kind_str(lo_kind k);

struct lo_elf;
/* The kind of a readable ELF object at `path`: by CPython suffix or PyInit_ export. */
lo_kind lo_scan_kind_of(const struct lo_elf *e, const char *path);

struct lo_macho;
/* Likewise of a Mach-O image: a dylib or bundle, a Python extension by name or _PyInit_ export. */
lo_kind lo_scan_kind_of_macho(const struct lo_macho *m, const char *path);
/* Is the Mach-O image m at path a Python extension module (lo_dyld_host's is_module)? */
bool lo_scan_macho_module(const struct lo_macho *m, const char *path);
/* --python as the main executable of a Mach-O load: the path when it is a Mach-O file, or NULL. */
const char *lo_scan_macho_python(const char *python);

#endif
