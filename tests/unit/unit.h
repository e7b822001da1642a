/*
 * unit.h - what the unit tests that build real files share. Each test is
 * its own program, so this is header-only; include it after <cmocka.h>.
 */
#ifndef LEFTOVER_TESTS_UNIT_H
#define LEFTOVER_TESTS_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
