/*
 * common.h - helpers shared by the fuzz targets.
 *
 * The readers under test take paths, not buffers, as the tool does: each
 * target writes the input to one memfd, created once per process, and
 * hands the reader its /proc/self/fd path; or, for readers that look files
 * up by name in a directory, to a scratch directory (on tmpfs where there
 * is one) removed at exit.
 */
#ifndef LEFTOVER_FUZZ_COMMON_H
#define LEFTOVER_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Replace the memfd's content with data; returns its /proc/self/fd path. */
const char *lo_fuzz_file(const uint8_t *data, size_t size);

/*
 * Write data to NAME in a scratch directory made once per process and
 * removed at exit (for readers that look a file up by name in a
 * directory, like CMakeCache.txt); returns the directory.
 */
const char *lo_fuzz_dir_file(const char *name, const uint8_t *data, size_t size);

/*
 * Readers of a build dir read several files, so one input may carry
 * several: it is split at each line "@@ NAME" (at the start or after a
 * newline, which belongs to the separator). The bytes before the first
 * such line are the part named `first`. At most LO_FUZZ_PARTS parts; the
 * rest of the input goes to the last one.
 */
#define LO_FUZZ_PARTS 64
#define LO_FUZZ_NAME_MAX 256

typedef struct lo_fuzz_part {
	char name[LO_FUZZ_NAME_MAX];
	const uint8_t *data; /* into the input */
	size_t size;
} lo_fuzz_part;

/* Split data as above into parts[LO_FUZZ_PARTS]; returns how many (at least 1). */
size_t lo_fuzz_split(const uint8_t *data, size_t size, const char *first, lo_fuzz_part *parts);

/*
 * A scratch build dir, made once per process and removed at exit, emptied
 * by each call; returns its path.
 */
const char *lo_fuzz_tree_reset(void);

/*
 * Write data to `rel` in the scratch build dir, making its directories.
 * Only a plain relative path is taken (components of [A-Za-z0-9._+-], no
 * "." or "..", at most 8 deep): false, and nothing written, for others.
 */
bool lo_fuzz_tree_put(const char *rel, const uint8_t *data, size_t size);

#endif
