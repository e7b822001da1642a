/*
 * sysroot_int.h - what os/sysroot.c asks of the system's body: a check
 * that paths can be opened inside the root at all, and the opening.
 * Bodies: sysroot_linux.c (the kernel's openat2), sysroot_posix.c (the
 * lookup made here, a component at a time).
 */
#ifndef LEFTOVER_OS_SYSROOT_INT_H
#define LEFTOVER_OS_SYSROOT_INT_H

/* 0 when paths can be opened under rootfd, else a negative code with a message naming dir. */
int lo_sysroot_probe(int rootfd, const char *dir);

/* open(2) of absolute `path` resolved inside rootfd: a descriptor, or -1 with errno. */
int lo_sysroot_openat(int rootfd, const char *path, int flags);

#endif
