/*
 * buildsys_ninja.h - private to the buildsys module: the Ninja half of the
 * model without running ninja.
 *
 * lo_buildsys_open learns the current manifest's outputs from `ninja -t
 * targets all`, one process per call. The fuzz target of the .ninja_log
 * reader (fuzz/fuzz_ninja_log.c) runs the same readers on thousands of
 * inputs a second, so it hands over that listing itself. Not for the tool:
 * lo_buildsys_open stays its only way in.
 */
#ifndef LEFTOVER_BUILDSYS_NINJA_H
#define LEFTOVER_BUILDSYS_NINJA_H

#include <stdio.h>

#include "leftover/buildsys.h"

/*
 * The model of a Ninja build dir from BUILD_DIR/.ninja_log and `targets`,
 * the lines `ninja -t targets all` would print ("OUTPUT: RULE"), taken as
 * the current manifest. The File API and CMakeCache.txt are not read.
 * Returns 0 with *out NULL when build_dir does not resolve.
 */
int lo_buildsys_open_ninja(lo_buildsys **out, const char *build_dir, FILE *targets);

#endif
