/*
 * sysroot.h - another root to judge a tree against (--sysroot DIR): a
 * container image's root filesystem, a cross toolchain's sysroot.
 *
 * An absolute path the loader would read (ld.so.cache, ld.so.conf, a
 * default directory, an absolute RPATH entry, a host program) is opened
 * as if DIR were `/`: `..` and every symlink, absolute ones included, are
 * resolved inside DIR, so nothing outside it is read however its links
 * point. On Linux the kernel does the lookup (openat2's RESOLVE_IN_ROOT,
 * os/sysroot_linux.c); elsewhere it is made here a component at a time
 * (os/sysroot_posix.c says what that cannot guard against). Paths inside
 * the scanned trees are read where they are.
 *
 * Owns: the root's descriptor and opening paths under it. Does not own:
 * which paths the loader reads (resolve.h, ldconfig.h).
 */
#ifndef LEFTOVER_SYSROOT_H
#define LEFTOVER_SYSROOT_H

typedef struct lo_sysroot lo_sysroot;

/* Open DIR as a root. Returns 0, or a negative code with a message naming it. */
int lo_sysroot_new(lo_sysroot **out, const char *dir);
void lo_sysroot_free(lo_sysroot *root);

/* DIR, absolute, as given to lo_sysroot_new after realpath. */
const char *lo_sysroot_dir(const lo_sysroot *root);

/*
 * open(2) of absolute `path` with `flags`, resolved inside `root`; with
 * root NULL, open(path) itself. Returns a descriptor, or -1 with errno set
 * (EXDEV never: a path that would leave the root stays in it).
 */
int lo_sysroot_open(const lo_sysroot *root, const char *path, int flags);

#endif
