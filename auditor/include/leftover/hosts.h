/*
 * hosts.h - which program will load an object, named without running it.
 *
 * Owns: the interpreter a Python extension module is judged against
 * (--python, the CMakeCache.txt of its tree, python3 on PATH), and the
 * program behind a host that is not itself an ELF program: a pyenv, asdf or
 * mise shim, a `#!` wrapper. Such a host is asked once, with one fixed
 * command of its family (python: print sys.executable; perl: print $^X;
 * ...), with no input, a time limit and a size limit on the answer. That
 * runs the host program, never an object being judged; the answer is only
 * taken when it names an ELF program. A Python interpreter is asked, the
 * same way, which file names its import takes (EXTENSION_SUFFIXES).
 *
 * Does not own: reading the program and its libraries into a global scope
 * (resolve.h's lo_host), nor which files a [host] rule gives to which
 * program (rules.h).
 */
#ifndef LEFTOVER_HOSTS_H
#define LEFTOVER_HOSTS_H

/* How long a host may take to say which program it is. */
#define LO_HOSTS_ASK_SECONDS 10

/*
 * The interpreter recorded in BUILD_DIR/CMakeCache.txt (Python3_EXECUTABLE,
 * Python_EXECUTABLE, PYTHON_EXECUTABLE, in that order), owned, or NULL.
 */
char *lo_hosts_cmake_python(const char *build_dir);

/*
 * The interpreter that imports extension modules under `dir`: `given` when
 * not NULL, else the one in the CMakeCache.txt of `dir` or its nearest
 * ancestor that has one, else python3 on PATH. Owned, or NULL. It may be a
 * shim: lo_hosts_program_new says what runs.
 */
char *lo_hosts_python_for(const char *given, const char *dir);

/* A host program as it really runs. */
typedef struct lo_hosts_program {
	char *path;      /* the ELF program that runs; owned */
	char *how;       /* a sentence for the report when `program` had to be asked, or NULL */
	char **suffixes; /* python: the endings its import takes after a module's name
			    (EXTENSION_SUFFIXES), NULL-terminated; NULL when not known */
} lo_hosts_program;

/*
 * The program that runs when `program` is started, with what its family
 * ("python", "perl", "ruby", "node"; NULL takes the family from the
 * program's name) says about itself. An ELF program is itself (one that
 * cannot be opened too: lo_host_new says why); a python one is asked for
 * its suffixes, and stays without them when the question fails. Any other
 * program is asked which program it is. Returns 0 with *out owned, or a
 * negative code with a message naming `program` when it is a script of no
 * known family, or its answer is late, too long, not an absolute path, or
 * not an ELF program.
 */
int lo_hosts_program_new(lo_hosts_program **out, const char *program, const char *family);
void lo_hosts_program_free(lo_hosts_program *p);

#endif
