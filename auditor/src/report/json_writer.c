/*
 * json_writer.c - JSON written straight to a stream (json_writer.h).
 *
 * The writer keeps only where it is: how deep, whether each open
 * container has had a member (the separator and the closing line depend
 * on it), and whether a key waits for its value. A document's depth is
 * small and fixed by report.c (root, files, a file, its reasons, a
 * reason): past JSON_MAX_DEPTH is a caller's error, said as a write error.
 */
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "report/json_writer.h"

#define JSON_MAX_DEPTH 16

struct lo_json_writer {
	FILE *out;
	int rc;         /* -1 once a write failed: it sticks */
	unsigned depth; /* open containers */
	bool after_key; /* the next value is a member's: no separator before it */
	bool filled[JSON_MAX_DEPTH]; /* the container open at each depth has a member */
	char closer[JSON_MAX_DEPTH]; /* and ends with } or ] */
	size_t len;
	char block[1 << 16];
};

lo_json_writer *lo_json_writer_new(FILE *out)
{
	lo_json_writer *w = lo_xmalloc(sizeof(*w));

	w->out = out;
	w->rc = 0;
	w->depth = 0;
	w->after_key = false;
	w->len = 0;
	return w;
}

static void flush_block(lo_json_writer *w)
{
	if (w->len && fwrite(w->block, 1, w->len, w->out) != w->len)
		w->rc = -1;
	w->len = 0;
}

/* put's way when the block is full: out of line, so that put's usual way is inlined. */
static __attribute__((noinline)) void put_full(lo_json_writer *w, const char *data, size_t size)
{
	flush_block(w);
	if (size > sizeof(w->block)) {
		if (fwrite(data, 1, size, w->out) != size)
			w->rc = -1;
		return;
	}
	memcpy(w->block, data, size);
	w->len = size;
}

static inline void put(lo_json_writer *w, const char *data, size_t size)
{
	if (size > sizeof(w->block) - w->len) {
		put_full(w, data, size);
		return;
	}
	memcpy(w->block + w->len, data, size);
	w->len += size;
}

int lo_json_writer_finish(lo_json_writer *w)
{
	put(w, "\n", 1);
	flush_block(w);
	return w->rc < 0 || w->depth || ferror(w->out) ? -1 : 0;
}

void lo_json_writer_free(lo_json_writer *w)
{
	free(w);
}

/* A line break and the indentation of the open container's members. */
static void new_line(lo_json_writer *w, unsigned depth)
{
	char line[1 + JSON_MAX_DEPTH];

	line[0] = '\n';
	memset(line + 1, ' ', depth);
	put(w, line, 1 + depth);
}

/* What goes before a value or a key: nothing after a key, else the separator and its line. */
static void before_item(lo_json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->depth)
		return;
	if (w->filled[w->depth - 1])
		put(w, ",", 1);
	w->filled[w->depth - 1] = true;
	new_line(w, w->depth);
}

static void open_container(lo_json_writer *w, char opener, char closer)
{
	before_item(w);
	if (w->depth == JSON_MAX_DEPTH) {
		w->rc = -1;
		return;
	}
	put(w, &opener, 1);
	w->filled[w->depth] = false;
	w->closer[w->depth] = closer;
	w->depth++;
}

void lo_json_object_open(lo_json_writer *w)
{
	open_container(w, '{', '}');
}

void lo_json_array_open(lo_json_writer *w)
{
	open_container(w, '[', ']');
}

void lo_json_close(lo_json_writer *w)
{
	if (!w->depth) {
		w->rc = -1;
		return;
	}
	w->depth--;
	if (w->filled[w->depth])
		new_line(w, w->depth);
	put(w, &w->closer[w->depth], 1);
}

/* s between quotes, escaped as jansson escapes it. */
static void put_quoted(lo_json_writer *w, const char *s)
{
	const unsigned char *run = (const unsigned char *)s, *p;

	put(w, "\"", 1);
	for (p = run; *p; p++) {
		char esc[8];
		size_t n = 2;

		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		put(w, (const char *)run, (size_t)(p - run));
		run = p + 1;
		esc[0] = '\\';
		switch (*p) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default: n = (size_t)snprintf(esc, sizeof(esc), "\\u%04X", *p); break;
		}
		put(w, esc, n);
	}
	put(w, (const char *)run, (size_t)(p - run));
	put(w, "\"", 1);
}

void lo_json_key(lo_json_writer *w, const char *key)
{
	before_item(w);
	put(w, "\"", 1);
	put(w, key, strlen(key));
	put(w, "\": ", 3);
	w->after_key = true;
}

void lo_json_str(lo_json_writer *w, const char *s)
{
	if (!s) {
		lo_json_null(w);
		return;
	}
	before_item(w);
	put_quoted(w, s);
}

void lo_json_bool(lo_json_writer *w, bool b)
{
	before_item(w);
	if (b)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void lo_json_null(lo_json_writer *w)
{
	before_item(w);
	put(w, "null", 4);
}

void lo_json_int(lo_json_writer *w, long long v)
{
	char text[24];

	before_item(w);
	put(w, text, (size_t)snprintf(text, sizeof(text), "%lld", v));
}
