/*
 * error.h - how every module reports failure.
 *
 * As in libgit2: a function that can fail returns an int, 0 on success or a
 * negative LO_E* code, and leaves a message retrievable with lo_error_last().
 * Library code never prints and never exits; the CLI decides what the user
 * sees. The message is per thread, so parallel workers do not clobber it.
 */
#ifndef LEFTOVER_ERROR_H
#define LEFTOVER_ERROR_H

enum {
	LO_OK = 0,
	LO_ERROR = -1,     /* generic failure (I/O, allocation) */
	LO_ENOTFOUND = -2, /* the thing asked for does not exist */
	LO_EINVALID = -3,  /* input is malformed: corrupt file, bad rule, bad option */
	LO_ENOTELF = -4,   /* the file is readable but is not an ELF object */
	LO_EUSAGE = -5,    /* the caller asked for something impossible */
};

/* Record a printf-style message for this thread and return `code`. */
int lo_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like lo_error_set, with ": strerror(errnum)" appended. */
int lo_error_set_errno(int code, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The last message recorded on this thread, or "" when there is none. */
const char *lo_error_last(void);

void lo_error_clear(void);

#endif
