/*
 * clean_sha256.c - SHA-256 of a file, for the quarantine manifest, through
 * nettle (Debian's nettle-dev).
 *
 * The manifest records each file's digest so that a restore can be checked
 * byte for byte. None of the other dependencies exports a SHA-256 (libgit2
 * keeps its hashes private), and a digest is not something to write by hand
 * when a well-kept library has it.
 */
#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <unistd.h>

#include "leftover/clean.h"
#include "leftover/error.h"

static void to_hex(struct sha256_ctx *s, char hex[65])
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	size_t i;

	sha256_digest(s, sizeof(digest), digest);
	for (i = 0; i < sizeof(digest); i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

int lo_clean_sha256_fd(int fd, char hex[65])
{
	unsigned char buf[65536];
	struct sha256_ctx s;
	ssize_t n;

	sha256_init(&s);
	if (lseek(fd, 0, SEEK_SET) < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot rewind file to hash it");
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lo_error_set_errno(LO_ERROR, errno, "cannot read file to hash it");
		}
		sha256_update(&s, (size_t)n, buf);
	}
	to_hex(&s, hex);
	return 0;
}

void lo_clean_sha256_mem(const void *p, size_t n, char hex[65])
{
	struct sha256_ctx s;

	sha256_init(&s);
	sha256_update(&s, n, p);
	to_hex(&s, hex);
}
