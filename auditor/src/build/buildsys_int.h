/*
 * buildsys_int.h - private to the buildsys module: one build tree's records
 * as its readers fill them in, and the helpers every reader shares.
 *
 * A model (lo_buildsys) holds one tree per build dir found under its base:
 * the base itself when it is a build dir, and every nested one (an
 * ExternalProject sub-build, a hand-written ninja tree). Each reader
 * (buildsys_fileapi.c, buildsys_ninja.c, buildsys_make.c, buildsys_meson.c,
 * buildsys_libtool.c, buildsys_cargo.c) fills one tree and says, through
 * lo_bs_incomplete, what it could not read: the judge (buildsys.c) then
 * never calls a file of that tree an orphan on the evidence the missing
 * record would have had to confirm.
 */
#ifndef LEFTOVER_BUILDSYS_INT_H
#define LEFTOVER_BUILDSYS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "leftover/buildsys.h"
#include "leftover/map.h"

/* What one recorded output was built by, for the detail line. */
typedef struct lo_bs_record {
	lo_orphan_evidence evidence;
	long long when;  /* ninja log: the mtime it recorded, in ns since the epoch; else 0 */
	long long span;  /* ninja log: how long the command ran, in ns */
	long long slack; /* ninja log: the resolution of `when`, in ns */
	char *by;        /* clean list: the dead target's directory; libtool, cargo: the
			    detail itself; owned */
} lo_bs_record;

/* The kinds of evidence whose completeness is tracked, one "missing" each. */
typedef enum lo_bs_source {
	LO_BS_NINJA, /* every manifest of every configuration, and the log */
	LO_BS_MAKE,  /* which targets are live: the codemodel or TargetDirectories.txt; for
			autotools and cargo, their own lists of what the build makes */
	LO_BS_SOURCES
} lo_bs_source;

typedef struct lo_bs_tree {
	char *dir;       /* absolute, real; owned */
	char *prefix;    /* relative to the model's base: "" or "sub/dir/"; owned */
	char *generator; /* CMakeCache.txt's, or "Ninja" for a ninja tree CMake did not make */
	bool cmake;      /* has a CMakeCache.txt */
	bool meson;      /* has meson-info/meson-info.json (buildsys_meson.c) */
	lo_map *produced;  /* relpath -> the record naming it current (a label) */
	lo_map *past;      /* relpath -> lo_bs_record*: recorded as built in the past */
	lo_map *live_dirs; /* "sub/CMakeFiles/<t>.dir" of every current target */
	lo_map *loaded_by; /* a module's artifact -> the executable artifact of the target
			      its target links to (File API), both relative to the tree; owned */
	const char *live_from; /* the record that named the live targets, static */
	const char *records;   /* the records that decide in it, for the report; static or NULL */
	bool have_codemodel;
	bool withheld;   /* its records are older than its build description (lo_bs_check_regen) */
	char *missing[LO_BS_SOURCES]; /* why that evidence is incomplete, owned; NULL if whole */
	lo_map *labels; /* label -> itself, owned: the names of records, kept once */
} lo_bs_tree;

/* A file the tree evidence may speak of (buildsys_tree.c), found by the model's walk. */
typedef struct lo_bs_cand {
	char *rel; /* relative to the base; owned */
	unsigned char type; /* LO_FT_REG, LO_FT_LNK */
} lo_bs_cand;

struct lo_buildsys {
	char *base;  /* absolute, real: what relpaths are relative to; owned */
	char *below; /* the dir opened, below the base: "" or "sub/dir/"; owned */
	lo_bs_tree **trees; /* the base's own first when it is one, then nested ones */
	size_t tree_count, tree_cap;
	char **clean_lists; /* relpaths (to base) of every cmake_clean.cmake under `below`; owned */
	size_t clean_count, clean_cap;
	char **notes;
	size_t note_count, note_cap;
	char **orphans; /* relpaths (to base), for listing */
	size_t orphan_count, orphan_cap;
	lo_bs_cand *cands; /* shared objects no tree may own: for the tree evidence, which frees them */
	size_t cand_count, cand_cap;
	lo_map *evidence;   /* relpath (to base) -> lo_bs_record*, from the tree and git */
	lo_map *superseded; /* library name ("libfoo.so.0") -> relpath of the superseded file, owned */
	bool withheld;      /* a tree's records are older than its build description */
};

/* The tree owning `relpath` (relative to the base): the nearest one above it, or NULL. */
const lo_bs_tree *lo_bs_tree_of(const lo_buildsys *bs, const char *relpath);

/* A line of the model's notes, about tree `t` (named when nested). */
void lo_bs_note(lo_buildsys *bs, const lo_bs_tree *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Evidence of kind `src` in `t` cannot be trusted to be whole: the first
 * reason is kept (and noted), later ones only noted.
 */
void lo_bs_incomplete(lo_buildsys *bs, lo_bs_tree *t, lo_bs_source src, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * `path` (relative to `base`, itself relative to the tree's dir, or
 * absolute) as a normalised path relative to the tree; NULL when outside.
 */
char *lo_bs_normalise(const lo_bs_tree *t, const char *base, const char *path);

/*
 * Records older than the sources they describe: `outs` are what the build's
 * regeneration step writes (build.ninja, a Makefile), `deps` what it reads
 * (CMakeLists.txt, *.cmake, meson.build), each relative to the tree's dir
 * or absolute, as the build's own regeneration rule names them. When a
 * dependency is newer than the oldest output, or either is missing, the
 * build would regenerate before building anything: what the records say
 * of the past is then not the checked-out sources' build, and the tree's
 * evidence of orphans is withheld (lo_bs_incomplete for both kinds, one
 * note naming the file and when it changed). Stats only, nothing run.
 */
void lo_bs_check_regen(lo_buildsys *bs, lo_bs_tree *t, const char *const *deps, size_t dep_count,
		       const char *const *outs, size_t out_count);

/* `name` kept for the tree's lifetime, once however often asked for. */
const char *lo_bs_label(lo_bs_tree *t, const char *name);

/*
 * Mark `path` produced, by the record `by` (a label or static; the first
 * record naming a path is the one explain shows: the File API reply is read
 * first); false when it lies outside the tree (nothing marked).
 */
bool lo_bs_mark_produced(lo_bs_tree *t, const char *base, const char *path, const char *by);

/* Record that `path` was built in the past; false when it lies outside the tree. */
bool lo_bs_mark_past(lo_bs_tree *t, const char *base, const char *path, lo_orphan_evidence ev,
		     long long when, long long span, long long slack, const char *by);

/* One of the build's records, if it is a regular file (never a FIFO or device). */
FILE *lo_bs_open_record(const char *path);

/* A file's mtime in ns, the unit of .ninja_log and of every comparison of times here. */
static inline long long lo_bs_mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* A JSON record, opened as lo_bs_open_record does; on failure err->text says why. */
json_t *lo_bs_load_json(const char *path, json_error_t *err);

/* Did meson configure `dir` (meson-info/meson-info.json)? */
bool lo_bs_is_meson_dir(const char *dir);

/*
 * The tree evidence: whether a walked entry is one it asks about, note it,
 * then judge what was noted, and forget the notes (buildsys_tree.c), with
 * `git` when it is the repository holding the opened dir (else opened).
 */
bool lo_bs_tree_wants(const char *name, unsigned char type);
void lo_bs_tree_entry(lo_buildsys *bs, const char *relpath, const char *name, unsigned char type);
void lo_bs_read_tree_evidence(lo_buildsys *bs, lo_git *git);
void lo_bs_free_record(void *record);

/* The readers, each filling `t` from its own records. */
void lo_bs_read_file_api(lo_buildsys *bs, lo_bs_tree *t, unsigned flags);
void lo_bs_read_ninja(lo_buildsys *bs, lo_bs_tree *t);
void lo_bs_read_ninja_log(lo_buildsys *bs, lo_bs_tree *t);
void lo_bs_read_make(lo_buildsys *bs, lo_bs_tree *t);
void lo_bs_read_libtool(lo_buildsys *bs, lo_bs_tree *t);
void lo_bs_read_cargo(lo_buildsys *bs, lo_bs_tree *t);
void lo_bs_read_meson(lo_buildsys *bs, lo_bs_tree *t);

#endif
