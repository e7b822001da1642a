/*
 * error.c - the per-thread last-error message (see error.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "leftover/error.h"

static _Thread_local char lo_error_buf[1024];

/*
 * Format into the buffer through a copy: a caller that adds to the last
 * message passes lo_error_last() itself as an argument ("'%s': %s", file,
 * lo_error_last()), and vsnprintf may not read the buffer it writes.
 */
static void error_format(const char *fmt, va_list ap)
{
	char next[sizeof(lo_error_buf)];

	vsnprintf(next, sizeof(next), fmt, ap);
	memcpy(lo_error_buf, next, sizeof(next));
}

int lo_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_format(fmt, ap);
	va_end(ap);
	return code;
}

int lo_error_set_errno(int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	error_format(fmt, ap);
	va_end(ap);
	len = strlen(lo_error_buf);
	snprintf(lo_error_buf + len, sizeof(lo_error_buf) - len, ": %s", strerror(errnum));
	return code;
}

const char *lo_error_last(void)
{
	return lo_error_buf;
}

void lo_error_clear(void)
{
	lo_error_buf[0] = '\0';
}
