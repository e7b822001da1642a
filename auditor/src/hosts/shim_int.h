/*
 * shim_int.h - what the readers of version managers' shims share
 * (shim.c), and each reader's entry: pyenv's (shim_pyenv.c) and asdf's
 * (shim_asdf.c). Each reader says 1 with the program, 0 when the shim is
 * not its manager's or its manager's files do not say (shim.h).
 */
#ifndef LEFTOVER_SHIM_INT_H
#define LEFTOVER_SHIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A shim is a few hundred bytes; a version file a few words or lines. */
#define LO_SHIM_MAX 4096
#define LO_SHIM_VERSION_FILE_MAX 4096

/*
 * The start of the regular file at `path`, at most `max` bytes, as a
 * string, owned; NULL when it is not a regular file or cannot be read.
 * *size is its size on disk: larger than `max`, it was not all read. The
 * path is noted as a dependency of the scan (deps.h) either way.
 */
char *lo_shim_read_small(const char *path, size_t max, off_t *size);

/* The current directory as the shell has it: $PWD when it is this directory; owned. */
char *lo_shim_current_dir(void);

/* Whether `path` is a regular file this user may execute (noted as a dependency). */
bool lo_shim_is_program(const char *path);

/*
 * `name` as `command -v` finds it on PATH once the directory `shims` is
 * taken out of it (a `~` at the start of an entry read as $HOME, as both
 * pyenv and asdf do before comparing); owned, or NULL.
 */
char *lo_shim_system_program(const char *shims, const char *name);

int lo_shim_pyenv_resolve(const char *program, const char *text, char **out, char **how);
int lo_shim_asdf_resolve(const char *program, const char *text, char **out, char **how);

#endif
