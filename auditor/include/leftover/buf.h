/*
 * buf.h - the one growable string type (after git's strbuf).
 *
 * A lo_buf is always NUL-terminated once anything has been added. Allocation
 * failure aborts: a scan that cannot allocate a few bytes cannot report
 * anything useful either, and checking every append would hide the logic.
 */
#ifndef LEFTOVER_BUF_H
#define LEFTOVER_BUF_H

#include <stddef.h>

typedef struct lo_buf {
	char *ptr; /* owned; NULL until the first append */
	size_t len;
	size_t cap;
} lo_buf;

#define LO_BUF_INIT { NULL, 0, 0 }

void lo_buf_add(lo_buf *b, const char *data, size_t len);
void lo_buf_puts(lo_buf *b, const char *s);
void lo_buf_putc(lo_buf *b, char c);
void lo_buf_printf(lo_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lo_buf_clear(lo_buf *b);
/* The contents, "" when empty; borrowed from b. */
const char *lo_buf_cstr(const lo_buf *b);
/* Hand the string to the caller (owned, free() it) and reset b. */
char *lo_buf_detach(lo_buf *b);
void lo_buf_dispose(lo_buf *b);

/*
 * Strings that live and die together (a load's paths and names): copied
 * into chunks, freed all at once. A load keeps dozens; one malloc each
 * was a third of a scan's half million (bench tree, scale 1).
 */
typedef struct lo_strpool {
	struct lo_strpool_chunk *chunk; /* owned; the newest, linked to older ones */
} lo_strpool;

#define LO_STRPOOL_INIT { NULL }

/* A copy of the n bytes at s, NUL-terminated, owned by the pool. */
const char *lo_strpool_add(lo_strpool *sp, const char *s, size_t n);
void lo_strpool_dispose(lo_strpool *sp);

/* xmalloc family: abort on allocation failure (see above). */
/* The last `c` in s[0, n), or NULL: glibc's memrchr, which macOS lacks. */
char *lo_memrchr(const char *s, char c, size_t n);
/*
 * Compare as versions: runs of digits by their value ("python3.9" before
 * "python3.12"), the rest byte by byte; what glibc's strverscmp does for
 * names without leading zeros, which are all the names it is used on.
 */
int lo_strverscmp(const char *a, const char *b);

void *lo_xmalloc(size_t n);
void *lo_xcalloc(size_t n, size_t size);
void *lo_xrealloc(void *p, size_t n);
char *lo_xstrdup(const char *s);
char *lo_xstrndup(const char *s, size_t n);

/* Append a copy of `s` to the *count strings of *v (room for *cap) unless it is there. */
void lo_strv_add_unique(char ***v, size_t *count, size_t *cap, const char *s);

/* Free the n strings of v and v itself. */
void lo_strv_free(char **v, size_t n);

/* Sort the n strings of v byte by byte (strcmp), so that a list read or met in any order reads the same. */
void lo_strv_sort(char **v, size_t n);

/* Grow *arr (of *cap elements of `size` bytes) so that it holds `need`. */
void lo_array_grow(void *arr, size_t *cap, size_t need, size_t size);

#endif
