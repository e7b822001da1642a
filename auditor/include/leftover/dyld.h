/*
 * dyld.h - a static model of macOS's dyld: which images a dlopen() of a
 * Mach-O bundle or dylib would map, and whether every symbol would bind,
 * without running anything and on any machine.
 *
 * A lo_dyld holds the images read (each once per run, shared by the
 * threads of a scan) and the layer of system libraries known from their
 * text stubs (.tbd): off a Mac, and on one since macOS 11 (whose system
 * libraries live in the shared cache, not on disk), that is all there is
 * of libSystem or libc++. lo_dyld_play then plays one
 * dlopen(path, RTLD_NOW) from a main executable (the Python interpreter
 * for an extension module) and returns what went wrong, in dyld's words.
 *
 * The rules modelled, and those left out, are at the top of dyld.c, with
 * the dyld sources they come from. Does not own: reading Mach-O or text
 * stubs (macho.h), which program is the host (the scan), verdicts.
 */
#ifndef LEFTOVER_DYLD_H
#define LEFTOVER_DYLD_H

#include <stdbool.h>
#include <stddef.h>

#include "leftover/macho.h"
#include "leftover/resolve.h"

typedef struct lo_dyld lo_dyld;

/*
 * `stub_dir`: the directory of .tbd files standing for the system
 * libraries (every *.tbd in it, read at the first need); NULL means the
 * rules directory's `macos/` (rules.h's lo_rules_default_dir).
 */
lo_dyld *lo_dyld_new(const char *stub_dir);
void lo_dyld_free(lo_dyld *d);

/* One Mac dyld runs on, as data: the slices it loads, best first. */
typedef struct lo_dyld_target {
	const char *name;     /* "arm64-apple-macos" */
	const uint64_t *cpus; /* cputypes (macho.h), best first */
	size_t ncpus;
	/*
	 * The names the Python interpreter exports, by prefix, standing for
	 * it when no Mach-O interpreter is at hand (a tree judged off a Mac):
	 * its C API, which an extension linked -undefined dynamic_lookup
	 * finds there first.
	 */
	const char *const *python_exports;
} lo_dyld_target;

/* The target whose dyld loads `m` (its slice's cpu), or NULL. */
const lo_dyld_target *lo_dyld_target_of(const lo_macho *m);

/* The target called `name` ("arm64-apple-macos"), or NULL. */
const lo_dyld_target *lo_dyld_target_named(const char *name);

/*
 * The image at `path`, read once per run (every slice a target loads
 * tried, best first), borrowed from d. Returns as lo_macho_open.
 */
int lo_dyld_read(lo_dyld *d, const char *path, const lo_macho **out);

typedef struct lo_dyld_load lo_dyld_load;

/* Who loads the candidate. */
typedef struct lo_dyld_host {
	const char *main;  /* the main executable's path (a Mach-O file), or NULL */
	bool python;       /* an extension module: without main, the interpreter stands
			      in by its target's python_exports */
	/*
	 * For an extension module: is the image at path an extension module
	 * too (the scan's naming)? Those of the candidate's directory are
	 * taken as imported before it, for its flat lookups (dyld.c's top);
	 * NULL: no such search.
	 */
	bool (*is_module)(const lo_macho *m, const char *path);
} lo_dyld_host;

/*
 * Play dlopen(path, RTLD_NOW) of the image at `path` (absolute) from
 * `host`: map the main executable's closure, then the candidate's
 * breadth first, then bind every import of the candidate's closure (a
 * flat lookup last in what its package's other modules map, when
 * host->is_module says which they are).
 * Returns 0 with *out set whatever the outcome (the problems say), or a
 * negative code when the candidate cannot be read at all.
 */
int lo_dyld_play(lo_dyld_load **out, lo_dyld *d, const lo_dyld_host *host, const char *path);
void lo_dyld_load_free(lo_dyld_load *l);

bool lo_dyld_load_ok(const lo_dyld_load *l);
size_t lo_dyld_load_problem_count(const lo_dyld_load *l);
const lo_problem *lo_dyld_load_problem_at(const lo_dyld_load *l, size_t i);

/*
 * What the load took on trust rather than from a file: the text stubs
 * used ("libSystem.B.tbd"), the interpreter's stand-in; one sentence, or
 * NULL when everything was read from files.
 */
const char *lo_dyld_load_assumed(const lo_dyld_load *l);

/*
 * An image a flat lookup found symbols in only among those another
 * extension module of the candidate's directory maps: assumed loaded by
 * that module (dyld.c's top says why). Strings borrowed from the load.
 */
typedef struct lo_dyld_borrowed {
	const char *image;  /* path, or a stub's install name */
	const char *module; /* the module whose load maps it */
	const char *symbol; /* the first symbol found there */
	size_t symbols;     /* how many were */
	const char *detail; /* one sentence saying so */
} lo_dyld_borrowed;

size_t lo_dyld_load_borrowed_count(const lo_dyld_load *l);
const lo_dyld_borrowed *lo_dyld_load_borrowed_at(const lo_dyld_load *l, size_t i);

/* Warnings that do not fail the load (an older compatibility_version), one a line, or NULL. */
const char *lo_dyld_load_warnings(const lo_dyld_load *l);

/* The images mapped, in load order, for explain: path (or install name of a stub). */
size_t lo_dyld_load_image_count(const lo_dyld_load *l);
const char *lo_dyld_load_image_at(const lo_dyld_load *l, size_t i);

#endif
