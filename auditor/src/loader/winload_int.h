/*
 * winload_int.h - private to the Windows loader model: the tables
 * (winload_data.c) that the algorithm (winload.c) reads.
 */
#ifndef LEFTOVER_WINLOAD_INT_H
#define LEFTOVER_WINLOAD_INT_H

#include <stdbool.h>

/* Is `name` (any case) one of the KnownDLLs, taken from System32 only? */
bool lo_winload_known_dll(const char *name);

#endif
