/*
 * shim.h - the program a version manager's shim runs, read from its files.
 *
 * `python3` on a developer's PATH, and often the Python3_EXECUTABLE that
 * CMake recorded, is a pyenv or asdf shim: a bash script that picks a
 * version from the environment and version files and execs that version's
 * program. Running it to ask (hosts.h) runs a script; reading the
 * manager's own files gives the same answer without running anything.
 * asdf's rules are at the top of hosts/shim_asdf.c; pyenv's, as
 * `pyenv exec` applies them (pyenv-version-name, -version-file,
 * -version-file-read, -which):
 *   - the root is the one the shim exports (PYENV_ROOT="..." in its text);
 *   - the versions are PYENV_VERSION (`:`-separated), else the words of the
 *     nearest .python-version from PYENV_DIR up, then from the current
 *     directory up, else of ROOT/version; none means "system";
 *   - the program is the first executable ROOT/versions/V/bin/NAME of those
 *     versions in order, "system" (and, after them all, system again) being
 *     NAME on PATH without ROOT/shims; NAME is the shim's file name.
 * Where pyenv would ask more of itself (a version that is only a prefix,
 * "3.12", that pyenv-latest widens; a version naming a path; a plugin's
 * hook for a program no version has), the files do not say, and the shim
 * is left to the caller.
 *
 * mise's shims are its own program under another name, its choices in
 * TOML files: they are left to the caller.
 *
 * Owns: recognising a pyenv or asdf shim and that reading. Does not own: running
 * a program (hosts.h) nor whether it may be run (trust.h).
 */
#ifndef LEFTOVER_SHIM_H
#define LEFTOVER_SHIM_H

/*
 * The program the shim `program` runs: 1 with *out (absolute, owned) and
 * *how (a sentence for the report: which file chose the version; owned),
 * or 0 when `program` is no pyenv or asdf shim or the manager's files do
 * not say.
 */
int lo_shim_resolve(const char *program, char **out, char **how);

/*
 * What the readers take from the current directory, which a scan's result
 * depends on: each version file pyenv (.python-version) and asdf (its
 * tool-versions file) would find from it up, a line each; owned. Where
 * their contents matter they are read as dependencies (deps.h); which of
 * them there are is for the verdict cache's key (cache.h), so that a scan
 * from another directory choosing the same files may use the same cache.
 */
char *lo_shim_current_choice(void);

#endif
