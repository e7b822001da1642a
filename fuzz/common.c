/*
 * common.c - the memfd (or scratch file) each fuzz target reads its
 * input from.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

const char *lo_fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("leftover-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return path;
}

const char *lo_fuzz_dir_file(const char *name, const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/leftover-fuzz-XXXXXX";
	static bool made;
	char path[256];
	size_t done = 0;
	int fd;

	if (!made) {
		if (!mkdtemp(dir))
			abort();
		made = true;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	close(fd);
	return dir;
}
