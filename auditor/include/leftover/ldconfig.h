/*
 * ldconfig.h - what ldconfig leaves for the loader: /etc/ld.so.cache, and
 * the ld.so.conf it is made from.
 *
 * Owns: reading glibc 2.32+'s cache format ("glibc-ld.so.cache1.1") into
 * name -> path for the entries of one kind of library (the cache's flags
 * say class, machine and libc), and reading ld.so.conf with its `include`
 * globs, bounded against files that never end. Does not own: where these
 * come in the search order, or which flags a target's libraries carry
 * (resolve.c, which falls back to ld.so.conf only without a cache, as
 * ld.so does).
 */
#ifndef LEFTOVER_LDCONFIG_H
#define LEFTOVER_LDCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "leftover/map.h"
#include "leftover/sysroot.h"

/*
 * Add to `cache` (name -> owned path) each entry of the cache file at
 * `path` whose flags are `flags`, one per name as ld.so picks it: an entry
 * for a glibc-hwcaps subdirectory named in `hwcaps` (NULL-terminated, best
 * first; NULL for none) before a plain one, the better subdirectory first,
 * else the first entry. `path` is read under `root` (--sysroot; NULL for
 * `/`). Returns 0, or a negative code with a message when the file cannot
 * be read or is not such a cache.
 */
int lo_ldconfig_read_cache(lo_map *cache, const lo_sysroot *root, const char *path,
			   int32_t flags, const char *const *hwcaps);

/*
 * Append to *dirs (owned, no duplicates; *count entries) the directories
 * of the ld.so.conf at `path` and of the files its `include` lines name,
 * under `root` (NULL for `/`). Unreadable files are passed over, as ld.so
 * does.
 */
void lo_ldconfig_read_conf(char ***dirs, size_t *count, const lo_sysroot *root,
			   const char *path);

#endif
