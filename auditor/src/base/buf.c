/*
 * buf.c - growable strings and the abort-on-OOM allocators (see buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"

char *lo_memrchr(const char *s, char c, size_t n)
{
	while (n--)
		if (s[n] == c)
			return (char *)s + n;
	return NULL;
}

/* The end of the run of digits at s. */
static const char *digits_end(const char *s)
{
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

int lo_strverscmp(const char *a, const char *b)
{
	for (;;) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *ea, *eb;
			int c;

			while (*a == '0' && a[1] >= '0' && a[1] <= '9')
				a++;
			while (*b == '0' && b[1] >= '0' && b[1] <= '9')
				b++;
			ea = digits_end(a);
			eb = digits_end(b);
			/* the longer run is the greater number; of runs as long, the first digit that differs */
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			if ((c = memcmp(a, b, (size_t)(ea - a))))
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
}

void *lo_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

void *lo_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *lo_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *lo_xstrdup(const char *s)
{
	return lo_xstrndup(s, strlen(s));
}

char *lo_xstrndup(const char *s, size_t n)
{
	char *p = lo_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void lo_array_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	void **parr = arr;
	size_t ncap = *cap ? *cap : 8;

	if (need <= *cap)
		return;
	while (ncap < need)
		ncap *= 2;
	*parr = lo_xrealloc(*parr, ncap * size);
	*cap = ncap;
}

static void buf_reserve(lo_buf *b, size_t extra)
{
	lo_array_grow(&b->ptr, &b->cap, b->len + extra + 1, 1);
}

void lo_buf_add(lo_buf *b, const char *data, size_t len)
{
	buf_reserve(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void lo_buf_puts(lo_buf *b, const char *s)
{
	lo_buf_add(b, s, strlen(s));
}

void lo_buf_putc(lo_buf *b, char c)
{
	lo_buf_add(b, &c, 1);
}

void lo_buf_printf(lo_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void lo_buf_clear(lo_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

const char *lo_buf_cstr(const lo_buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *lo_buf_detach(lo_buf *b)
{
	char *p = b->ptr ? b->ptr : lo_xstrdup("");

	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

void lo_buf_dispose(lo_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

/* The first chunk holds a load's strings (a few KiB); later ones double, to this. */
#define LO_STRPOOL_FIRST ((size_t)4 << 10)
#define LO_STRPOOL_MAX ((size_t)64 << 10)

struct lo_strpool_chunk {
	struct lo_strpool_chunk *older;
	size_t used, size;
	char data[];
};

const char *lo_strpool_add(lo_strpool *sp, const char *s, size_t n)
{
	struct lo_strpool_chunk *c = sp->chunk;
	char *at;

	if (!c || c->size - c->used < n + 1) {
		size_t size = c ? c->size * 2 : LO_STRPOOL_FIRST;

		if (size > LO_STRPOOL_MAX)
			size = LO_STRPOOL_MAX;
		if (size < n + 1)
			size = n + 1;
		c = lo_xmalloc(sizeof(*c) + size);
		c->older = sp->chunk;
		c->used = 0;
		c->size = size;
		sp->chunk = c;
	}
	at = c->data + c->used;
	memcpy(at, s, n);
	at[n] = '\0';
	c->used += n + 1;
	return at;
}

void lo_strpool_dispose(lo_strpool *sp)
{
	while (sp->chunk) {
		struct lo_strpool_chunk *older = sp->chunk->older;

		free(sp->chunk);
		sp->chunk = older;
	}
}

void lo_strv_add_unique(char ***v, size_t *count, size_t *cap, const char *s)
{
	size_t i;

	for (i = 0; i < *count; i++)
		if (!strcmp((*v)[i], s))
			return;
	lo_array_grow(v, cap, *count + 1, sizeof(char *));
	(*v)[(*count)++] = lo_xstrdup(s);
}

void lo_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lo_strv_sort(char **v, size_t n)
{
	/* qsort of a NULL array is undefined even when empty (UBSan says so) */
	if (n > 1)
		qsort(v, n, sizeof(*v), strv_cmp);
}
