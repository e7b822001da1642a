/*
 * cpu.h - what the processor leftover runs on can do, as the loader asks.
 *
 * glibc 2.33+ searches glibc-hwcaps/NAME/ before each directory for every
 * NAME the CPU supports (target.h lists each target's names, best first).
 * This says which are supported here, from CPUID and XGETBV, as glibc's
 * get-isa-level.h decides: a level needs all of its features and the
 * operating system's support for their register state.
 *
 * Owns: reading the CPU. Does not own: which names a target knows
 * (target.h), nor the search (resolve_search.c).
 */
#ifndef LEFTOVER_CPU_H
#define LEFTOVER_CPU_H

#include <stdbool.h>

/* Does this machine's CPU support the glibc-hwcaps subdirectory `name` ("x86-64-v3")? */
bool lo_cpu_has_hwcap(const char *name);

#endif
