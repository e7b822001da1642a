/*
 * hosts.h - which program will load an object, named without running it.
 *
 * Owns: the interpreter a Python extension module is judged against
 * (--python, the CMakeCache.txt or meson's log of its tree, the version
 * setuptools' build directories name, python3 on PATH), and the program
 * behind a host that is not itself an ELF program: a pyenv, asdf or mise
 * shim, a `#!` wrapper. A pyenv shim is read from pyenv's files (shim.h);
 * any other such host is asked once, with one fixed command of its family
 * (python -S: print sys.executable; perl: print $^X; ...), with no input,
 * a time limit and a size limit on the answer. That runs the host program,
 * never an object being judged; the answer is only taken when it names an
 * ELF program. A Python interpreter is asked, the same way, which file
 * names its import takes (EXTENSION_SUFFIXES). A program a scanned tree
 * names (its records, its rule files) is run only when trust.h allows; one
 * the user named (--python, --host, their own rules, python3 on PATH)
 * always is.
 *
 * A scan keeps its hosts in one lo_hosts: each program set up once, its
 * failure included (a shim that hangs is asked once, not once per file).
 *
 * Does not own: reading the program and its libraries into a global scope
 * (resolve.h's lo_host), nor which files a [host] rule gives to which
 * program (rules.h), nor what a host's failure means for a file (scan.c).
 */
#ifndef LEFTOVER_HOSTS_H
#define LEFTOVER_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "leftover/resolve.h"
#include "leftover/rules.h"
#include "leftover/trust.h"

/*
 * lo_rules_host_of's question of an ELF object (`elf`: its const lo_elf *):
 * has it the trait a [host] recognises its objects by? One answer for scan
 * and explain, so that both pick the same host.
 */
bool lo_hosts_elf_has(lo_rules_trait trait, const char *glob, void *elf);

/* How long a host may take to say which program it is. */
#define LO_HOSTS_ASK_SECONDS 10

/*
 * The interpreter recorded in BUILD_DIR/CMakeCache.txt (Python3_EXECUTABLE,
 * Python_EXECUTABLE, PYTHON_EXECUTABLE, in that order), owned, or NULL.
 */
char *lo_hosts_cmake_python(const char *build_dir);

/*
 * The interpreter that imports extension modules under `dir`: `given` when
 * not NULL, else the one the build tree of `dir` (itself or its nearest
 * ancestor recording one) was configured with, by its CMakeCache.txt or
 * meson's log (lo_buildsys_meson_python), else the system's python3.X of
 * the version a setuptools build names (`dir` in
 * build/lib.<platform>-cpython-3X, or a build/ beside it or an ancestor
 * holding lib.* or temp.* directories of that name), else python3 on PATH.
 * Owned, or NULL. It may be a shim: lo_hosts_program_new says what runs.
 */
char *lo_hosts_python_for(const char *given, const char *dir);

/*
 * Is `program` python3 on PATH? That one is the user's own, whichever
 * record names it too: it is run as one the user named (trust.h).
 */
bool lo_hosts_python_on_path(const char *program);

/* A host program as it really runs. */
typedef struct lo_hosts_program {
	char *path;      /* the ELF program that runs; owned */
	char *how;       /* a sentence for the report when `program` had to be asked, or NULL */
	char **suffixes; /* python: the endings its import takes after a module's name
			    (EXTENSION_SUFFIXES), NULL-terminated; NULL when not known */
	char *unasked;   /* python: why `suffixes` are not known (the program could not be
			    asked: one for another machine, one that fails), or NULL; owned */
} lo_hosts_program;

/*
 * The program that runs when `program` is started, with what its family
 * ("python", "perl", "ruby", "node"; NULL takes the family from the
 * program's name) says about itself. An ELF program is itself (one that
 * cannot be opened too: lo_host_new says why); a python one is asked for
 * its suffixes, and stays without them, `unasked` saying why, when the
 * question fails (an interpreter for another machine cannot run here).
 * A pyenv shim is followed through pyenv's files (shim.h); any other
 * program is asked which program it is. `trust` NULL: the user named
 * `program`, which may be run; else a scanned tree named it, and it (or
 * the program behind its shim) is run only when lo_trust_check allows: an
 * ELF python that may not is read as the host it is, its suffixes read
 * from its files (pyconf.h; `how` says so) or, where they do not say,
 * left unknown (`unasked` says why), and a script that may not is an
 * error saying so.
 * Returns 0 with *out owned, or a negative code with a message naming
 * `program` when it is a script of no known family or not to be run, or
 * its answer is late, too long, not an absolute path, or not an ELF
 * program.
 */
int lo_hosts_program_new(lo_hosts_program **out, const char *program, const char *family,
			 const lo_trust *trust);
void lo_hosts_program_free(lo_hosts_program *p);

/*
 * The host `runs` (the program that really runs, lo_hosts_program_new's
 * path) after it has loaded `preload` (rules.h: lo_rules_host_preload_at):
 * a leading `${program_dir}` is the directory of `runs`, symlinks
 * resolved (outside --sysroot). lo_host_new_preloaded says what fails.
 */
int lo_hosts_host_new(lo_host **out, lo_resolver *r, const char *runs,
		      const char *const *preload, size_t preload_count);

/*
 * The hosts of one scan, safe to share between its threads. `python` and
 * `host` are --python and --host, or NULL; `trust` is what a program the
 * scanned trees name must pass to be run; all borrowed for the lifetime.
 */
typedef struct lo_hosts lo_hosts;
lo_hosts *lo_hosts_new(lo_resolver *r, const char *python, const char *host,
		       const lo_trust *trust);
void lo_hosts_free(lo_hosts *hs);

/*
 * The host of a candidate in directory `dir`: for a Python extension
 * module, the interpreter of lo_hosts_python_for (kept per directory); for
 * another object, --host or a plain C program of `target`, the object's
 * own (target.h). *program is what the host program said about itself
 * (NULL for a plain C program). Returns 0, or a negative code with a
 * message saying what is wrong with the host and what the user can do;
 * the same for every file that needs it.
 */
int lo_hosts_for_file(lo_hosts *hs, bool python, const char *dir, const lo_target *target,
		      const lo_host **host, const lo_hosts_program **program);

/*
 * Likewise for `program`, which the rules' [host "name"] names, having
 * loaded `preload` first (lo_hosts_host_new); `vouched` when the user's
 * own rules name it (lo_rules_host_program_vouched).
 */
int lo_hosts_for_rule(lo_hosts *hs, const char *program, const char *name, bool vouched,
		      const char *const *preload, size_t preload_count, const lo_host **host,
		      const lo_hosts_program **program_out);

/*
 * Host inference (infer.c): the program of an object no rule, --host or
 * --python gave a host, found by what it exports. Asked when the object's
 * load from its default host fails only for what a program could give it:
 * symbols of its own left undefined, libraries it needs that lie beside it
 * but that the search does not find (Wine's ntdll.so). The candidates, in
 * order, at most LO_HOSTS_INFER_PROGRAMS per directory, each found once per
 * scan and only read, never run: the build tree's own ELF executables that
 * export their functions, main among them (-rdynamic, CMake's
 * ENABLE_EXPORTS), in the object's directory, those above it up to `top`,
 * and their bin/;
 * then the programs named like the directories holding it (nearest first:
 * zsh/5.9/zsh/attr.so -> zsh) in the system's program directories
 * (/usr/bin, /bin, /usr/sbin, ...) and in /usr/lib/NAME/ and
 * /usr/libexec/NAME/ (Wine's /usr/lib/wine/wine64). A program is taken only
 * when it, with libraries beside the object that it is taken to have loaded
 * first (the needed ones that lie there, then those exporting what the
 * program does not: zsh's zle.so for complist.so, each after those it
 * needs), provides every symbol and library that was missing; the object
 * is then judged fully from it, anything else missing a finding. In a
 * build tree, where none provides all, the tree's program that provides
 * the most, more than half, is the host all the same, and what it lacks a
 * finding: a plugin left from a branch whose program has lost a function.
 * Otherwise nothing is inferred, and the candidates tried are listed for
 * --verbose (lo_hosts_detail).
 */
#define LO_HOSTS_INFER_PROGRAMS 8

typedef struct lo_hosts_inferred {
	lo_load *load; /* the object's load from the inferred host; owned */
	const lo_host *with; /* that host, borrowed from the lo_hosts */
	char *host;    /* the inferred program; owned */
	char *why;     /* how it was found and what it provides, for the report; owned */
} lo_hosts_inferred;

/*
 * Infer the host of the object at `abs` (`own`: as its judge read it, or
 * NULL when the resolver holds it) whose load `plain` from its default
 * host failed; `top` is the build tree holding it, or NULL; `recorded` the
 * program the build's records say loads it (buildsys.h's
 * lo_buildsys_loaded_by), tried first as one of the tree's, or NULL.
 * Returns true with *out filled, or false (nothing inferred: `plain`
 * stands).
 */
bool lo_hosts_infer(lo_hosts *hs, const char *abs, const lo_elf *own, const char *top,
		    const char *recorded, const lo_load *plain, lo_hosts_inferred *out);
void lo_hosts_inferred_dispose(lo_hosts_inferred *in);

/*
 * Begin setting up, on a thread of its own, the interpreter of the Python
 * extension modules in `dir` (as lo_hosts_for_file would), once per
 * lo_hosts: a scan calls this when its walk meets the first module, so
 * that the interpreter answers while the walk goes on, not while the
 * files wait. Later calls do nothing.
 */
void lo_hosts_python_start(lo_hosts *hs, const char *dir);

/* Wait for lo_hosts_python_start's setup; lo_hosts_note after this is complete. */
void lo_hosts_settle(lo_hosts *hs);

/*
 * The i-th sentence for the report about the hosts (a shim followed, an
 * interpreter that could not be asked for its suffixes, a host that cannot
 * be used), in the order they arose; NULL past the last.
 */
const char *lo_hosts_note(const lo_hosts *hs, size_t i);

/*
 * Likewise the sentences that matter only to whoever asks for details: a
 * shim followed to the program it runs (on a pyenv machine, every scan).
 */
const char *lo_hosts_detail(const lo_hosts *hs, size_t i);

#endif
