/*
 * pyconf.h - what a CPython interpreter would say of its imports, read
 * from its installed files instead of asking it.
 *
 * An interpreter that may not be run (trust.h) still has its build's
 * configuration beside it: lib/python3.X/_sysconfigdata_*_<triplet>.py
 * holds its SOABI, from which its import's EXTENSION_SUFFIXES follow as
 * CPython's dynload_shlib.c makes them: ".SOABI.so", ".abi3.so" (not in a
 * free-threaded build, whose SOABI ends its version with "t"), ".so".
 *
 * Owns: finding that file for an interpreter and reading SOABI from it
 * (a bounded read of a plain text file; nothing is imported or run).
 * Does not own: asking a program (hosts.h), nor what the suffixes mean
 * for a module (pyext.h).
 */
#ifndef LEFTOVER_PYCONF_H
#define LEFTOVER_PYCONF_H

/*
 * The EXTENSION_SUFFIXES of the CPython interpreter at `python` (an ELF
 * program for the target `triplet`, "x86_64-linux-gnu"), NULL-terminated
 * and owned, with the file they came from in *from (owned); NULL when its
 * files do not say, or say two things.
 */
char **lo_pyconf_suffixes(const char *python, const char *triplet, char **from);

#endif
