/*
 * buildsys.h - what the current build of a tree still produces, and what
 * it produced in the past, by the build system's own records.
 *
 * lo_buildsys_open reads, once per scan root, every build tree under a
 * base dir (the base itself, and nested ones such as an ExternalProject
 * sub-build; each a directory with CMakeCache.txt, a .ninja_log, an
 * autotools config.status or cargo's target/.rustc_info.json):
 *  - the CMake File API reply (codemodel-v2): every target's artifacts in
 *    every configuration; the stateless query is written when missing;
 *  - Ninja, whatever generated it: `.ninja_log` (everything built in the
 *    past, with when) and the current manifests' outputs, read without
 *    running ninja (build.ninja with its includes and subninjas, and each
 *    configuration's build-<Config>.ninja under Ninja Multi-Config);
 *  - autotools + libtool (buildsys_libtool.c): the automake-generated
 *    Makefiles config.status lists, their *_LTLIBRARIES, and the libtool
 *    archives (.la) naming the objects in .libs/;
 *  - cargo (buildsys_cargo.c): the workspace's Cargo.toml members and
 *    Cargo.lock, each member's [lib], and the dep-info (.d) files;
 *  - Unix Makefiles: each `CMakeFiles/<target>.dir/cmake_clean.cmake`, the
 *    outputs of every target the generator ever wrote rules for, live or
 *    dead (a dead target's directory outlives it), the live targets (the
 *    codemodel, else CMakeFiles/TargetDirectories.txt and Makefile2), and
 *    the configure step's own outputs (CMAKE_MAKEFILE_PRODUCTS). A live
 *    target's clean list is rewritten with its current outputs only: what
 *    it no longer makes (an OUTPUT_NAME rename, a SOVERSION bump) is
 *    recorded nowhere in the tree (CMake 3.25), and stays unknown;
 *  - meson (read as a Ninja tree too): meson-info/intro-targets.json and
 *    intro-installed.json, the current configuration's outputs; each
 *    target's private `<output>.p/` directory is bookkeeping.
 * Then lo_buildsys_judge says of one file whether it is an orphan: built in
 * the past by the records of the nearest tree holding it, produced by
 * nothing current, and every record that could produce it read whole (see
 * the rule atop buildsys.c). Anything less, and a file nothing ever
 * recorded, is "no evidence": the answer is unknown, with a detail saying
 * what was missing. What the tree and git suggest of a file no record
 * speaks of (a source deleted, a soname superseded) is never evidence: such
 * a file is "suspected", its orphan still unknown.
 * Does not own: whether a file would load (resolve.h), git (git.h, except
 * the tree evidence's source-deleted check), nor the verdict that combines
 * them (scan.h).
 */
#ifndef LEFTOVER_BUILDSYS_H
#define LEFTOVER_BUILDSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "leftover/git.h"
#include "leftover/map.h"
#include "leftover/walk.h"

typedef struct lo_buildsys lo_buildsys;

enum {
	LO_BUILDSYS_RECONFIGURE = 1 << 0, /* run `cmake BUILD_DIR` when the reply is missing or old */
};

/*
 * The few entries of a walk of the scanned dir that the model asks about
 * (the trees' markers, cmake_clean.cmake lists, names shaped like shared
 * objects), kept while the scan's own walk runs so that the tree is walked
 * once. lo_buildsys_finds_add is called from the walk's callback, on any of
 * its threads at once (one list per `worker`, walk.h).
 */
typedef struct lo_buildsys_finds lo_buildsys_finds;

lo_buildsys_finds *lo_buildsys_finds_new(unsigned workers);
/* Keep `e` if the model asks about it; whether it did (a scan in part keeps those). */
bool lo_buildsys_finds_add(lo_buildsys_finds *f, const lo_walk_entry *e);
void lo_buildsys_finds_free(lo_buildsys_finds *f);

/*
 * Open the model for a scan of `dir`: every build tree holding it (from
 * lo_buildsys_base_of down) or under it. Paths are then relative to that
 * base (lo_buildsys_base). `finds` is what a walk of `dir` kept; with NULL
 * the model walks `dir` itself. `git` (borrowed, only during the call) is
 * the repository holding `dir` when the caller has it open; with NULL the
 * model opens it if it needs it. A base that is no build tree but holds a
 * hand-written Makefile is a tree that keeps no records (system "make"),
 * so that the report can say its staleness was not judged. Returns 0 with
 * *out NULL when there is no tree and no evidence from the tree itself; a
 * negative code only for failures of the run itself.
 */
int lo_buildsys_open(lo_buildsys **out, const char *dir, const lo_buildsys_finds *finds,
		     lo_git *git, unsigned flags);

/*
 * What a scan of `dir` (absolute, real) is judged against: the nearest
 * build dir holding it (itself or an ancestor with a tree's marker, see
 * lo_buildsys_open), else `dir` itself, where nested trees may still be found.
 * Owned.
 */
char *lo_buildsys_base_of(const char *dir);
/* Is `dir` the top of a build tree (CMakeCache.txt or .ninja_log there)? */
bool lo_buildsys_is_tree(const char *dir);
void lo_buildsys_free(lo_buildsys *bs);

/*
 * The build trees the model read, the base's own first: each one's dir
 * (absolute), its build system ("Ninja", "Unix Makefiles", "autotools",
 * "cargo", "make" for a hand-written Makefile), and the records that
 * decide staleness in it ("build.ninja and .ninja_log", ...), NULL when it
 * keeps none (a hand-written Makefile): its files are not judged stale.
 */
size_t lo_buildsys_tree_count(const lo_buildsys *bs);
const char *lo_buildsys_tree_dir(const lo_buildsys *bs, size_t i);
const char *lo_buildsys_tree_system(const lo_buildsys *bs, size_t i);
const char *lo_buildsys_tree_records(const lo_buildsys *bs, size_t i);
/* Were tree i's records found older than its build description (staleness withheld)? */
bool lo_buildsys_tree_withheld(const lo_buildsys *bs, size_t i);

/*
 * The object a libtool archive (`.la`, libtool's text format) at `path`
 * names: its dlname (else its first library_names, else its
 * old_library), in `.libs/` beside it while not installed, in its libdir
 * once installed; owned, absolute when `path` is. NULL when the file is
 * not a libtool archive or names no object.
 */
char *lo_buildsys_libtool_object(const char *path);

/* The base dir the model judges paths against (absolute, real). */
const char *lo_buildsys_base(const lo_buildsys *bs);

/*
 * Was a tree's staleness withheld because its records are older than its
 * build description (the build would regenerate first)? A scan that finds
 * nothing must then still say why it called nothing stale.
 */
bool lo_buildsys_withheld(const lo_buildsys *bs);

/*
 * "Ninja", "Unix Makefiles", ... as the base's CMakeCache.txt records it
 * ("autotools", "cargo", "make" for trees of those); "none" when the base
 * is no tree.
 */
const char *lo_buildsys_generator(const lo_buildsys *bs);

/*
 * Lines for the user about the model itself ("no File API reply yet; run
 * with --reconfigure", "ran: cmake /abs/build"), in order; NULL past the end.
 */
const char *lo_buildsys_note(const lo_buildsys *bs, size_t i);

typedef enum lo_orphan_evidence {
	LO_EVIDENCE_NONE,
	LO_EVIDENCE_NINJA_LOG,        /* "ninja-log" */
	LO_EVIDENCE_CMAKE_CLEAN_LIST, /* "cmake-clean-list" */
	LO_EVIDENCE_LIBTOOL_ARCHIVE,  /* "libtool-archive" */
	LO_EVIDENCE_CARGO_DEP_INFO,   /* "cargo-dep-info" */
	/* from the tree and git, where no build system records (buildsys_tree.c): suspected only */
	LO_EVIDENCE_SUPERSEDED_LIBRARY, /* "superseded-library" */
	LO_EVIDENCE_SOURCE_DELETED,     /* "source-deleted" */
} lo_orphan_evidence;

const char *lo_orphan_evidence_str(lo_orphan_evidence e);

typedef struct lo_orphan_verdict {
	int orphan;                  /* 1 orphan, 0 still produced, -1 no evidence either way */
	bool suspected;              /* orphan -1, but the tree and git suggest it is one: an
					inference (buildsys_tree.c), never an orphan */
	lo_orphan_evidence evidence; /* for orphan == 1, or suspected */
	char detail[512]; /* why: "built ... not an output of the current build.ninja", the record
			     that says it is produced, or what was missing for a verdict */
} lo_orphan_verdict;

/*
 * Judge `relpath`, relative to the base. Read-only: safe from several
 * threads once the model is open.
 */
void lo_buildsys_judge(const lo_buildsys *bs, const char *relpath, lo_orphan_verdict *v);

/*
 * The program that loads the module at `relpath` by the build's records:
 * the executable of the target its CMake target links to (a MODULE linked
 * to an ENABLE_EXPORTS program, File API `dependencies`), relative to the
 * base; owned, or NULL when no record says.
 */
char *lo_buildsys_loaded_by(const lo_buildsys *bs, const char *relpath);

/* Every orphan the model knows of, relative to the base; for listing non-candidates. */
size_t lo_buildsys_orphan_count(const lo_buildsys *bs);
const char *lo_buildsys_orphan_at(const lo_buildsys *bs, size_t i);

/*
 * The superseded library (relative to the base) that a module needing
 * `needed` (a DT_NEEDED name, "libfoo.so.0") binds to, or NULL: what a
 * broken module's finding names as its cause.
 */
const char *lo_buildsys_superseded(const lo_buildsys *bs, const char *needed);

/*
 * The CMakeCache.txt at `path`, each NAME:TYPE=VALUE line as NAME -> VALUE
 * (owned strings: lo_map_free(m, free)), the first line of a name kept;
 * NULL when it cannot be read. Read as the build's other records are: a
 * FIFO or device in its place is refused, not waited on.
 */
lo_map *lo_buildsys_cache_read(const char *path);
/* The value of NAME in BUILD_DIR/CMakeCache.txt, owned, or NULL. */
char *lo_buildsys_cache_value(const char *build_dir, const char *name);

/* Generator bookkeeping (CMakeFiles/, .ninja_*, CMakeCache.txt, object files, a DLL's
   .lib/.exp/.pdb/.ilk companions)? */
bool lo_buildsys_is_bookkeeping(const char *relpath);

/*
 * Does `relpath` (relative to the base) lie in a build tool's private
 * directory of one target (meson's `<output>.p/`, in a tree meson
 * configured)? Its files are the tool's bookkeeping, never candidates.
 */
bool lo_buildsys_is_private(const lo_buildsys *bs, const char *relpath);

/*
 * The Python that meson configured BUILD_DIR with (find_installation's
 * interpreter, as meson-logs/meson-log.txt of its last configure records
 * it), owned; NULL when BUILD_DIR is no meson tree, the log names none, or
 * names two Pythons without saying which builds the modules.
 */
char *lo_buildsys_meson_python(const char *build_dir);

/*
 * May the append-only record `path` (a .ninja_log the scan read up to
 * `from`: deps.h), open as `fd`, stand as read? True when every line
 * written after `from` changes no verdict: a whole line ninja writes, of
 * a command that left no file at its output (the audit's own target,
 * a phony's stamp). Anything else appended, or another record: false.
 */
bool lo_buildsys_log_appended_stands(const char *path, int fd, uint64_t from);

#endif
