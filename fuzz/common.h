/*
 * common.h - helpers shared by the fuzz targets.
 *
 * The readers under test take paths, not buffers, as the tool does: each
 * target writes the input to one memfd, created once per process, and
 * hands the reader its /proc/self/fd path. No file is left behind.
 */
#ifndef LEFTOVER_FUZZ_COMMON_H
#define LEFTOVER_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Replace the memfd's content with data; returns its /proc/self/fd path. */
const char *lo_fuzz_file(const uint8_t *data, size_t size);

/*
 * Write data to NAME in a scratch directory made once per process (for
 * readers that look a file up by name in a directory, like CMakeCache.txt);
 * returns the directory.
 */
const char *lo_fuzz_dir_file(const char *name, const uint8_t *data, size_t size);

#endif
