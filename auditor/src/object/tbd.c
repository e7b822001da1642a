/*
 * tbd.c - a library known from its text stub (macho.h's lo_macho_open_tbd).
 *
 * Apple's SDKs ship their system libraries as TAPI text stubs, YAML
 * documents naming a library's install name, versions, exported symbols
 * and re-exported libraries: what a linker, and leftover judging a tree
 * off a Mac, knows of libSystem or libc++. This reads the subset of YAML
 * those files are written in (tbd-version 3 and 4, as `tapi stubify`
 * writes them): one `key: value` a line, flow lists `[ a, b ]` that may
 * span lines, lists of maps introduced by `- `, documents separated by
 * `---` and ended by `...`. Anything else (block scalars, anchors) is
 * skipped as an unknown key would be. The targets a section is for are
 * not told apart: every section counts for every cpu, which for stubs
 * written for arm64 and x86_64 alike (all of Apple's) is what either
 * reads. A stub's symbols are all exports of the image; `objc-classes`
 * stand for the class and metaclass symbols, as the linker reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/error.h"
#include "object/macho_int.h"

/* Larger than libSystem's stub (2 MB) by far; the text is read whole. */
#define TBD_MAX ((size_t)64 << 20)

typedef struct tbd_reader {
	const char *p, *end;
	lo_macho *doc;       /* the document being read */
	char top[40], sub[40]; /* its top-level key, and the key inside a list item */
} tbd_reader;

/* "1319", "1.2.3", "1.2": packed as dyld packs them (xxxx.yy.zz). */
static uint32_t tbd_version(const char *s, size_t n)
{
	unsigned long part[3] = { 0, 0, 0 };
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '.' && ++k == 3)
			break;
		if (s[i] >= '0' && s[i] <= '9' && part[k] < 0xffff)
			part[k] = part[k] * 10 + (unsigned long)(s[i] - '0');
	}
	part[0] = part[0] > 0xffff ? 0xffff : part[0];
	return (uint32_t)(part[0] << 16 | (part[1] & 0xff) << 8 | (part[2] & 0xff));
}

/* One scalar: quotes and spaces around it dropped. */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
	if (*n >= 2 && (**s == '\'' || **s == '"') && (*s)[*n - 1] == **s)
		(*s)++, *n -= 2;
}

/* What one item of the list under (top, sub) adds to the document. */
static void tbd_item(tbd_reader *r, const char *s, size_t n)
{
	static const char *const objc[][2] = {
		{ "objc-classes", "_OBJC_CLASS_$_" }, { "objc-classes", "_OBJC_METACLASS_$_" },
		{ "objc-eh-types", "_OBJC_EHTYPE_$_" }, { "objc-ivars", "_OBJC_IVAR_$_" },
	};
	bool exports = !strcmp(r->top, "exports") || !strcmp(r->top, "reexports");
	size_t i;

	trim(&s, &n);
	if (!n || n > 4096)
		return;
	if (!strcmp(r->sub, "libraries") || !strcmp(r->sub, "re-exports")) {
		lo_macho *m = r->doc;

		lo_array_grow(&m->dylibs, &m->dylib_cap, m->dylib_count + 1, sizeof(*m->dylibs));
		m->dylibs[m->dylib_count++] = (lo_macho_dylib){
			lo_strpool_add(&m->pool, s, n), LO_MACHO_DYLIB_REEXPORT, 0, 0 };
		return;
	}
	if (!exports)
		return;
	if (!strcmp(r->sub, "symbols") || !strcmp(r->sub, "weak-symbols") ||
	    !strcmp(r->sub, "weak-def-symbols") || !strcmp(r->sub, "thread-local-symbols")) {
		lo_macho_add_export(r->doc, s, n, false, 0, NULL, 0);
		return;
	}
	for (i = 0; i < sizeof(objc) / sizeof(objc[0]); i++) {
		char buf[4200];

		if (strcmp(r->sub, objc[i][0]))
			continue;
		snprintf(buf, sizeof(buf), "%s%.*s", objc[i][1], (int)n, s);
		lo_macho_add_export(r->doc, buf, strlen(buf), false, 0, NULL, 0);
	}
}

/* The flow list that starts at s (after its '['): items until ']', across lines. */
static void tbd_flow_list(tbd_reader *r, const char *s)
{
	const char *item = s;

	for (; s < r->end && *s != ']'; s++) {
		if (*s == ',' || *s == '\n') {
			tbd_item(r, item, (size_t)(s - item));
			item = s + 1;
		}
	}
	tbd_item(r, item, (size_t)(s - item));
	r->p = s < r->end ? s + 1 : s;
}

static void tbd_new_document(tbd_reader *r, lo_macho *first)
{
	lo_macho *m = lo_macho_alloc(first->name);

	lo_macho_finish(r->doc);
	m->stub = true;
	m->filetype = LO_MACHO_DYLIB;
	lo_array_grow(&first->inlined, &first->inlined_cap, first->inlined_count + 1,
		      sizeof(*first->inlined));
	first->inlined[first->inlined_count++] = m;
	r->doc = m;
}

/* A `key: value` at indent `indent` (list markers counted as indent). */
static void tbd_key(tbd_reader *r, size_t indent, const char *key, size_t klen, const char *v,
		    size_t vlen)
{
	char *dst = indent ? r->sub : r->top;
	lo_macho *m = r->doc;

	snprintf(dst, sizeof(r->top), "%.*s", (int)klen, key);
	if (!indent)
		r->sub[0] = '\0';
	trim(&v, &vlen);
	if (vlen && *v == '[') {
		if (indent || !strcmp(r->top, "re-exports"))
			tbd_flow_list(r, v + 1);
		return;
	}
	if (indent || !vlen)
		return;
	if (!strcmp(r->top, "install-name"))
		m->install_name = lo_strpool_add(&m->pool, v, vlen);
	else if (!strcmp(r->top, "current-version"))
		m->current_version = tbd_version(v, vlen);
	else if (!strcmp(r->top, "compatibility-version"))
		m->compat_version = tbd_version(v, vlen);

}

static void tbd_line(tbd_reader *r, lo_macho *first, const char *line, size_t n)
{
	size_t indent = 0;
	const char *colon;

	if (n >= 3 && !strncmp(line, "---", 3)) {
		if (r->doc->install_name)
			tbd_new_document(r, first);
		return;
	}
	/* a comment, so that the stub stays one a linker reads (macho.h) */
	if (n >= 18 && !strncmp(line, "# leftover: subset", 18))
		r->doc->subset = true;
	while (indent < n && (line[indent] == ' ' || line[indent] == '-'))
		indent++;
	if (indent == n || line[indent] == '#' || !(colon = memchr(line, ':', n)))
		return;
	tbd_key(r, indent, line + indent, (size_t)(colon - line) - indent, colon + 1,
		(size_t)(line + n - colon - 1));
}

int lo_macho_open_tbd_mem(lo_macho **out, const char *text, size_t size, const char *name)
{
	tbd_reader r = { text, text + size, NULL, "", "" };
	lo_macho *first;

	*out = NULL;
	if (size < 4 || strncmp(text, "---", 3))
		return lo_error_set(LO_ENOTELF, "'%s' is not a text stub (no '---' first)", name);
	first = r.doc = lo_macho_alloc(name);
	first->stub = true;
	first->filetype = LO_MACHO_DYLIB;
	while (r.p < r.end) {
		const char *nl = memchr(r.p, '\n', (size_t)(r.end - r.p));
		const char *line = r.p, *stop = nl ? nl : r.end;

		r.p = nl ? nl + 1 : r.end;
		/* a flow list moves r.p past its closing bracket itself */
		tbd_line(&r, first, line, (size_t)(stop - line));
	}
	lo_macho_finish(r.doc);
	if (!first->install_name) {
		lo_macho_free(first);
		return lo_error_set(LO_EINVALID, "the text stub '%s' names no install-name", name);
	}
	*out = first;
	return 0;
}

int lo_macho_open_tbd(lo_macho **out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *text;
	ssize_t got;
	int err;

	*out = NULL;
	if (fd < 0)
		return lo_error_set_errno(LO_ERROR, errno, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > TBD_MAX) {
		close(fd);
		return lo_error_set(LO_EINVALID, "'%s' is not a text stub leftover reads", path);
	}
	text = lo_xmalloc((size_t)st.st_size + 1);
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		free(text);
		return lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", path);
	}
	err = lo_macho_open_tbd_mem(out, text, (size_t)got, path);
	free(text);
	return err;
}
