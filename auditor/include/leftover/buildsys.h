/*
 * buildsys.h - what the current build of a CMake tree still produces, and
 * what it produced in the past.
 *
 * lo_buildsys_open reads, once per build dir:
 *  - the CMake File API reply (codemodel-v2): every target's artifacts in
 *    every configuration; the stateless query is written when missing;
 *  - Ninja: `.ninja_log` (everything built in the past, with when) and the
 *    current manifest's outputs (`ninja -t targets all`, ninja being the
 *    generator, not an artifact);
 *  - Unix Makefiles: each `CMakeFiles/<target>.dir/cmake_clean.cmake`, the
 *    outputs of every target the generator ever wrote rules for, live or
 *    dead (a dead target's directory outlives it), and the configure
 *    step's own outputs (CMAKE_MAKEFILE_PRODUCTS in CMakeFiles/Makefile.cmake).
 * Then lo_buildsys_judge says of one file whether it is an orphan: built in
 * the past (by the log or a clean list) and produced by nothing current;
 * for the Ninja log, only while the file is still the one ninja built (its
 * mtime within the recorded run). A file nothing ever recorded (a
 * file(COPY) output, a file the user made) is not an orphan: there is no
 * evidence, so the answer is unknown.
 */
#ifndef LEFTOVER_BUILDSYS_H
#define LEFTOVER_BUILDSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

typedef struct lo_buildsys lo_buildsys;

enum {
	LO_BUILDSYS_RECONFIGURE = 1 << 0, /* run `cmake BUILD_DIR` when the reply is missing or old */
};

/*
 * Open the build system model of `build_dir`. Returns 0 with *out NULL when
 * the directory is not a CMake build dir (no CMakeCache.txt); a negative
 * code only for failures of the run itself.
 */
int lo_buildsys_open(lo_buildsys **out, const char *build_dir, unsigned flags);
void lo_buildsys_free(lo_buildsys *bs);

/* "Ninja", "Unix Makefiles", ... as CMakeCache.txt records it. */
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
} lo_orphan_evidence;

const char *lo_orphan_evidence_str(lo_orphan_evidence e);

typedef struct lo_orphan_verdict {
	int orphan;                  /* 1 orphan, 0 still produced, -1 no evidence either way */
	lo_orphan_evidence evidence; /* for orphan == 1 */
	char detail[512];            /* e.g. "last built 2026-12-02 14:03, not in build.ninja" */
} lo_orphan_verdict;

/*
 * Judge `relpath`, relative to the build dir. Read-only: safe from several
 * threads once the model is open.
 */
void lo_buildsys_judge(const lo_buildsys *bs, const char *relpath, lo_orphan_verdict *v);

/* Every orphan the model knows of, relative to the build dir; for listing non-candidates. */
size_t lo_buildsys_orphan_count(const lo_buildsys *bs);
const char *lo_buildsys_orphan_at(const lo_buildsys *bs, size_t i);

/* The value of NAME in BUILD_DIR/CMakeCache.txt (NAME:TYPE=VALUE), owned, or NULL. */
char *lo_buildsys_cache_value(const char *build_dir, const char *name);

/* Generator bookkeeping (CMakeFiles/, .ninja_*, CMakeCache.txt, object files)? */
bool lo_buildsys_is_bookkeeping(const char *relpath);

#endif
