/*
 * deps_log.c - the check of an append-only log's bytes as read (deps.h):
 * a hash of the bytes just before the length read, so that a log written
 * again in place, as long or longer, is not taken for the one read.
 */
#include <unistd.h>

#include "leftover/deps.h"

bool lo_dep_log_hash(int fd, uint64_t at, uint64_t *hash)
{
	unsigned char bytes[LO_DEP_LOG_CHECK];
	uint64_t from = at > sizeof(bytes) ? at - sizeof(bytes) : 0, h = 0xcbf29ce484222325ULL;
	size_t len = (size_t)(at - from), got = 0, i;
	ssize_t n;

	while (got < len) {
		n = pread(fd, bytes + got, len - got, (off_t)(from + got));
		if (n <= 0)
			return false; /* shorter than it was read: not the same log */
		got += (size_t)n;
	}
	for (i = 0; i < len; i++)
		h = (h ^ bytes[i]) * 0x100000001b3ULL;
	*hash = h;
	return true;
}
