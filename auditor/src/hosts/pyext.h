/*
 * pyext.h - CPython extension modules as CPython names, finds and starts
 * them, read from the file's name and its exports alone.
 *
 * Owns: which file names are an extension module's (PEP 3149 suffixes,
 * .abi3.so, .pyd), the module name in a file name, whether an interpreter
 * with given EXTENSION_SUFFIXES imports a file at all, and the
 * PyInit_<name> export CPython calls after loading it. Does not own: which
 * interpreter loads a module, nor what it says about itself (hosts.h),
 * nor the load (resolve.h), nor verdicts (scan.c).
 */
#ifndef LEFTOVER_PYEXT_H
#define LEFTOVER_PYEXT_H

#include <stdbool.h>
#include <stddef.h>

struct lo_elf;

/* Is `path` named as a CPython extension (.cpython-311-x86_64-linux-gnu.so, .abi3.so, .pyd)? */
bool lo_pyext_named(const char *path);

/*
 * Does e, a native object, export PyInit_<name> for the name of `path`: a
 * module without a CPython suffix (a plain `_foo.so`) is known by that.
 */
bool lo_pyext_exports_init(const struct lo_elf *e, const char *path);

/*
 * The length of the module name CPython imports the file `base` under: up
 * to the first dot, when that is an ASCII identifier (other names go
 * through PyInitU_ and punycode, which is not modelled); 0 otherwise.
 */
size_t lo_pyext_module_name(const char *base);

/*
 * `import` takes a file only as the module name followed by one of the
 * interpreter's EXTENSION_SUFFIXES: a .cpython-312 module next to a 3.11
 * interpreter, or an i386 one next to an x86-64 interpreter, is never
 * loaded by it. Why `interpreter`, with `suffixes` (NULL-terminated; NULL
 * when unknown), never loads `base` whose module name is n bytes long:
 * owned, or NULL when it may.
 */
char *lo_pyext_not_imported(const char *base, size_t n, const char *interpreter,
			    const char *const *suffixes);

/*
 * CPython's message when e, the module `base` (name n bytes long), does not
 * export PyInit_<name>, owned, with *sym the symbol it looked for; NULL
 * (and *sym NULL) when it does.
 */
char *lo_pyext_init_missing(const struct lo_elf *e, const char *base, size_t n, char **sym);

#endif
