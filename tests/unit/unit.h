/*
 * unit.h - what the unit tests that build real files share. Each test is
 * its own program, so this is header-only; include it after <cmocka.h>.
 */
#ifndef LEFTOVER_TESTS_UNIT_H
#define LEFTOVER_TESTS_UNIT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run a shell command (printf-style); the test fails with it if it fails. */
static inline void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void sh(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* Write `text` to the file DIR/name (made or emptied). */
static inline void unit_put(const char *dir, const char *name, const char *text)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/*
 * The portable build (LEFTOVER_PORTABLE, os.h) drops mapped pages only as
 * a hint and reads no resident memory: a test of what the pages' release
 * frees, or of the budget that reads the process's memory, has nothing to
 * measure there and is skipped.
 */
#define UNIT_SKIP_WITHOUT_PAGE_DROPS()                                                         \
	do {                                                                                   \
		if (LEFTOVER_PORTABLE)                                                         \
			skip();                                                                \
	} while (0)

/*
 * Resident KiB, from /proc/self/smaps, of this process's mappings that
 * start at `start` or, with start NULL, that map the file `path`; -1 when
 * there is none.
 */
static inline long unit_rss_kib(const void *start, const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[8192];
	bool in = false, any = false;
	long kib, sum = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *dash = strchr(line, '-'), *sp = strchr(line, ' ');
		size_t n = strcspn(line, "\n");
		unsigned long lo;

		line[n] = '\0';
		if (dash && sp && dash < sp) /* a mapping's first line: range, ..., its file */
			in = start ? sscanf(line, "%lx-", &lo) == 1 && lo == (unsigned long)start
				   : n > strlen(path) && !strcmp(line + n - strlen(path), path);
		else if (in && sscanf(line, "Rss: %ld kB", &kib) == 1) {
			sum += kib;
			any = true;
		}
	}
	fclose(f);
	return any ? sum : -1;
}

/*
 * fn(a) on this thread and fn(b) on another at the same time, as the
 * scan's judging threads run; back when both are done.
 */
static inline void unit_two_threads(void *(*fn)(void *), void *a, void *b)
{
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, fn, b), 0);
	fn(a);
	pthread_join(th, NULL);
}

#endif
