/*
 * report.c - scan results as text for people and JSON for programs.
 *
 * Text output lists only what needs attention (broken, stale, unreadable),
 * one heading line per file and one line per reason under it; --verbose adds
 * the files that are fine and the paths the loader tried. JSON lists every
 * candidate, through jansson.
 *
 * File names are raw bytes. Text output escapes what a terminal would
 * misrender (control bytes, invalid UTF-8, backslash) as C escapes, so each
 * finding stays on one line. JSON needs UTF-8: a name that is not valid
 * UTF-8 is given as "path" with the same escapes plus "path_hex", the exact
 * bytes in hexadecimal, so nothing is lost.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/report.h"

/*
 * The Itanium C++ ABI demangler, __cxa_demangle, is libstdc++'s (extern
 * "C"). It is opened on the first C++ name shown, not linked: linked, the
 * library and the two it needs (libm, libgcc_s) were mapped and relocated
 * at every start, 1.3 MiB of a scan's peak memory for names that most
 * scans never print. Without it, names are shown as they are.
 */
typedef char *demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

static demangle_fn *demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void demangler_open(void)
{
	void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (lib)
		demangler = (demangle_fn *)dlsym(lib, "__cxa_demangle");
}

char *lo_report_demangle(const char *sym)
{
	char *d;
	int status = 0;

	if (strncmp(sym, "_Z", 2) != 0)
		return lo_xstrdup(sym);
	pthread_once(&demangler_once, demangler_open);
	if (!demangler)
		return lo_xstrdup(sym);
	d = demangler(sym, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return lo_xstrdup(sym);
	}
	return d;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

char *lo_report_quote_path(const char *path)
{
	lo_buf b = LO_BUF_INIT;
	const unsigned char *p = (const unsigned char *)path;

	lo_buf_puts(&b, "");
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '\\')
			lo_buf_puts(&b, "\\\\");
		else if (*p == '\n')
			lo_buf_puts(&b, "\\n");
		else if (*p == '\t')
			lo_buf_puts(&b, "\\t");
		else if (*p == '\r')
			lo_buf_puts(&b, "\\r");
		else if (*p < 0x20 || *p == 0x7f || n == 0)
			lo_buf_printf(&b, "\\x%02x", *p);
		else {
			lo_buf_add(&b, (const char *)p, n);
			p += n;
			continue;
		}
		p++;
	}
	return lo_buf_detach(&b);
}

/* ---- text ---------------------------------------------------------------- */

static const char *verdict_color(lo_verdict v)
{
	switch (v) {
	case LO_VERDICT_BROKEN:
	case LO_VERDICT_STALE: return "\033[1;31m";
	case LO_VERDICT_UNREADABLE:
	case LO_VERDICT_UNJUDGED: return "\033[1;33m";
	case LO_VERDICT_OK: return "\033[32m";
	default: return "\033[2m";
	}
}

/* A finding, or a suspected file: inference is no finding, but never kept silent. */
static bool needs_attention(const lo_file *f)
{
	return lo_verdict_is_finding(f->verdict) || f->verdict == LO_VERDICT_SUSPECTED;
}

static void write_reason(FILE *out, const lo_file *f, const lo_reason *r, unsigned flags)
{
	bool other_object = r->object && strcmp(r->object, f->path) != 0;
	char *obj = r->object ? lo_report_quote_path(r->object) : NULL;

	fputs("    ", out);
	if (r->kind == LO_REASON_UNDEFINED_SYMBOL && r->symbol) {
		char *sym = lo_report_demangle(r->symbol);

		fprintf(out, "undefined symbol: %s", sym);
		if (strcmp(sym, r->symbol))
			fprintf(out, " (%s)", r->symbol);
		if (r->version)
			fprintf(out, ", version %s", r->version);
		/* a PE import's DLL, a two-level Mach-O import's dylib */
		else if (r->library)
			fprintf(out, ", expected in %s", r->library);
		free(sym);
	} else if (r->kind == LO_REASON_MISSING_VERSION) {
		fprintf(out, "missing version: %s in %s", r->version ? r->version : "?",
			r->library ? r->library : "?");
	} else if (r->kind == LO_REASON_MISSING_LIBRARY) {
		fprintf(out, "missing library: %s", r->library ? r->library : "?");
	} else {
		fprintf(out, "%s", lo_reason_kind_str(r->kind));
		if (r->kind == LO_REASON_SUSPECTED && r->evidence) /* the inference it rests on */
			fprintf(out, " (%s, no build record)", r->evidence);
		if (r->library)
			fprintf(out, ": %s", r->library);
		if (r->detail) {
			/*
			 * Details quote file names (cannot read 'NAME'): escaped like
			 * paths, so a name with a newline, tab or escape byte keeps
			 * the finding on one line and whole (tests/e2e/test_hardening_names.py).
			 */
			char *q = lo_report_quote_path(r->detail);

			fprintf(out, ": %s", q);
			free(q);
		}
	}
	if (other_object)
		fprintf(out, " (needed by %s)", obj);
	fputc('\n', out);
	if ((flags & LO_REPORT_VERBOSE) && r->kind == LO_REASON_MISSING_LIBRARY && r->detail) {
		const char *line = strchr(r->detail, '\n');

		while (line && line[1]) {
			const char *end = strchr(line + 1, '\n');

			fprintf(out, "        %.*s\n",
				(int)(end ? end - line - 1 : (long)strlen(line + 1)), line + 1);
			line = end;
		}
	}
	free(obj);
}

/*
 * How many Python modules were skipped because the interpreter the scan
 * had never imports them (built for another Python): not judged at all,
 * which the summary must say even when nothing else needs attention.
 * *host: that interpreter when it was the same for all, else NULL.
 */
static size_t modules_not_judged(const lo_scan_result *res, const char **host)
{
	size_t i, j, n = 0;

	*host = NULL;
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];

		for (j = 0; f->verdict == LO_VERDICT_SKIPPED && j < f->reason_count; j++) {
			if (f->reasons[j].kind != LO_REASON_OTHER_INTERPRETER)
				continue;
			*host = !n++ || (*host && f->host && !strcmp(*host, f->host)) ? f->host : NULL;
			break;
		}
	}
	return n;
}

int lo_report_write_text(FILE *out, const lo_scan_result *res, unsigned flags)
{
	const lo_scan_summary *sm = &res->summary;
	bool color = flags & LO_REPORT_COLOR;
	size_t i, j, shown = 0;
	const char *python;
	size_t not_judged = modules_not_judged(res, &python);

	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		char *path;

		if (!needs_attention(f) && !(flags & LO_REPORT_VERBOSE))
			continue;
		shown++;
		path = lo_report_quote_path(f->path);
		fprintf(out, "%s: %s%s%s (%s)\n", path, color ? verdict_color(f->verdict) : "",
			f->verdict == LO_VERDICT_SUSPECTED ? "possibly stale" : lo_verdict_str(f->verdict),
			color ? "\033[0m" : "", lo_kind_str(f->kind));
		free(path);
		/* a host no one named: the finding says which it was judged from */
		if (f->host_inferred)
			fprintf(out, "  host %s\n", f->host_inferred);
		for (j = 0; j < f->reason_count; j++)
			write_reason(out, f, &f->reasons[j], flags);
	}
	/* a tree whose staleness was not judged says so even when nothing else is said */
	for (i = 0; i < res->tree_count; i++)
		if (!res->trees[i].records && sm->files)
			fprintf(out, "tree %s: staleness not judged: no build records\n",
				res->trees[i].dir);
	if (shown || not_judged || sm->withheld || (flags & LO_REPORT_VERBOSE)) {
		/*
		 * quiet on success: the notes explain findings, or come with
		 * --verbose, or say why nothing was called stale
		 */
		for (i = 0; i < res->tree_count; i++)
			if (res->trees[i].withheld)
				fprintf(out, "tree %s (%s): staleness withheld: its records are older "
					"than its build description\n", res->trees[i].dir,
					res->trees[i].system);
			else if (res->trees[i].records)
				fprintf(out, "tree %s (%s): staleness from %s\n", res->trees[i].dir,
					res->trees[i].system, res->trees[i].records);
		for (i = 0; i < res->note_count; i++)
			fprintf(out, "note: %s\n", res->notes[i]);
		for (i = 0; (flags & LO_REPORT_VERBOSE) && i < res->detail_count; i++)
			fprintf(out, "note: %s\n", res->details[i]);
		fprintf(out, "%zu file%s: %zu ok, %zu broken, %zu stale, %zu unreadable, %zu skipped",
			sm->files, sm->files == 1 ? "" : "s", sm->by_verdict[LO_VERDICT_OK], sm->by_verdict[LO_VERDICT_BROKEN],
			sm->by_verdict[LO_VERDICT_STALE], sm->by_verdict[LO_VERDICT_UNREADABLE],
			sm->by_verdict[LO_VERDICT_SKIPPED]);
		if (sm->by_verdict[LO_VERDICT_UNJUDGED])
			fprintf(out, ", %zu unjudged (host not usable)",
				sm->by_verdict[LO_VERDICT_UNJUDGED]);
		if (not_judged)
			fprintf(out, "; %zu Python module%s not judged: %s never imports %s "
				"(--python names the interpreter %s built for)", not_judged,
				not_judged == 1 ? "" : "s", python ? python : "the interpreter found",
				not_judged == 1 ? "it" : "them", not_judged == 1 ? "it was" : "they were");
		if (sm->by_verdict[LO_VERDICT_SUSPECTED])
			fprintf(out, ", %zu possibly stale (no build record; clean --suspected)",
				sm->by_verdict[LO_VERDICT_SUSPECTED]);
		if (sm->bookkeeping)
			fprintf(out, "; %zu orphaned object or bookkeeping file%s not listed (--all)",
				sm->bookkeeping, sm->bookkeeping == 1 ? "" : "s");
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jstr(const char *s)
{
	json_t *j;
	char *q;

	if (!s)
		return json_null();
	if (valid_utf8(s))
		return json_string(s);
	q = lo_report_quote_path(s);
	j = json_string(q);
	free(q);
	return j;
}

static json_t *jtri(lo_tristate t)
{
	return t == LO_UNKNOWN ? json_null() : json_boolean(t == LO_TRUE);
}

static void set_path(json_t *obj, const char *key, const char *path)
{
	json_object_set_new(obj, key, jstr(path));
	if (!valid_utf8(path)) {
		lo_buf hex = LO_BUF_INIT;
		lo_buf name = LO_BUF_INIT;
		const unsigned char *p;

		for (p = (const unsigned char *)path; *p; p++)
			lo_buf_printf(&hex, "%02x", *p);
		lo_buf_printf(&name, "%s_hex", key);
		json_object_set_new(obj, lo_buf_cstr(&name), json_string(lo_buf_cstr(&hex)));
		lo_buf_dispose(&hex);
		lo_buf_dispose(&name);
	}
}

static json_t *reason_json(const lo_reason *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "kind", json_string(lo_reason_kind_str(r->kind)));
	json_object_set_new(o, "symbol", jstr(r->symbol));
	json_object_set_new(o, "version", jstr(r->version));
	json_object_set_new(o, "library", jstr(r->library));
	json_object_set_new(o, "object", jstr(r->object));
	json_object_set_new(o, "detail", jstr(r->detail));
	if (r->evidence)
		json_object_set_new(o, "evidence", json_string(r->evidence));
	return o;
}

/*
 * json_dumpf hands each token and string piece to its own fwrite: half a
 * million calls, each taking the stream's lock, for a tree of 3,000
 * candidates. They are gathered here and written a block at a time.
 *
 * The document is written a member and a file at a time, not built whole
 * first: built whole it held a JSON object per candidate (a few MB at the
 * bench tree's scale 4) on top of the scan. Each value is dumped by
 * jansson as if at the top, and the sink indents its lines by `depth` to
 * where the value sits, so the text is what one json_dump of the whole
 * document writes.
 */
#define JSON_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY)

typedef struct json_sink {
	FILE *out;      /* where the blocks go, or when NULL */
	lo_buf *mem;    /* into memory */
	unsigned depth; /* spaces after each line break of the value being dumped */
	size_t len;
	char block[1 << 16];
} json_sink;

/* Where the sink's bytes go: its stream, or its memory. */
static int json_sink_write(json_sink *s, const char *data, size_t size)
{
	if (!s->out) {
		lo_buf_add(s->mem, data, size);
		return 0;
	}
	return fwrite(data, 1, size, s->out) == size ? 0 : -1;
}

static int json_sink_flush(json_sink *s)
{
	size_t n = s->len;

	s->len = 0;
	return json_sink_write(s, s->block, n);
}

static int json_sink_put(json_sink *s, const char *data, size_t size)
{
	if (size > sizeof(s->block) - s->len) {
		if (json_sink_flush(s) < 0)
			return -1;
		if (size > sizeof(s->block))
			return json_sink_write(s, data, size);
	}
	memcpy(s->block + s->len, data, size);
	s->len += size;
	return 0;
}

static int json_sink_puts(json_sink *s, const char *text)
{
	return json_sink_put(s, text, strlen(text));
}

/* json_dump_callback's writer: a line break (never inside a string: escaped there) is indented. */
static int json_sink_add(const char *data, size_t size, void *payload)
{
	static const char spaces[] = "        ";
	json_sink *s = payload;
	const char *nl;

	while (s->depth && (nl = memchr(data, '\n', size))) {
		size_t n = (size_t)(nl - data) + 1;

		if (json_sink_put(s, data, n) < 0 ||
		    json_sink_put(s, spaces, s->depth < sizeof(spaces) ? s->depth : sizeof(spaces) - 1) < 0)
			return -1;
		data += n;
		size -= n;
	}
	return json_sink_put(s, data, size);
}

/* Dump v as a value `depth` levels into the document. Takes v. */
static int json_sink_value(json_sink *s, json_t *v, unsigned depth)
{
	int rc;

	s->depth = depth;
	rc = json_dump_callback(v, json_sink_add, s, JSON_FLAGS);
	s->depth = 0;
	json_decref(v);
	return rc;
}

/* Write obj's members as the document's own; `more`: members follow them. Takes obj. */
static int json_sink_members(json_sink *s, json_t *obj, bool more)
{
	size_t left = json_object_size(obj);
	const char *key;
	json_t *v;
	int rc = 0;

	json_object_foreach(obj, key, v) {
		if (rc < 0 || json_sink_puts(s, " \"") < 0 || json_sink_puts(s, key) < 0 ||
		    json_sink_puts(s, "\": ") < 0 || json_sink_value(s, json_incref(v), 1) < 0 ||
		    json_sink_puts(s, --left || more ? ",\n" : "\n") < 0)
			rc = -1;
	}
	json_decref(obj);
	return rc;
}

static json_t *file_json(const lo_file *f)
{
	json_t *o = json_object(), *reasons = json_array();
	size_t j;

	set_path(o, "path", f->path);
	if (f->target)
		set_path(o, "target", f->target);
	json_object_set_new(o, "kind", json_string(lo_kind_str(f->kind)));
	json_object_set_new(o, "loads", jtri(f->loads));
	/* true, false, null, or "suspected": unknown by the records, suggested by the tree and git */
	json_object_set_new(o, "orphan",
			    f->suspected && f->orphan == LO_UNKNOWN ? json_string("suspected")
								    : jtri(f->orphan));
	json_object_set_new(o, "tracked", jtri(f->tracked));
	json_object_set_new(o, "verdict", json_string(lo_verdict_str(f->verdict)));
	json_object_set_new(o, "host", jstr(f->host));
	json_object_set_new(o, "host_rule", jstr(f->host_rule));
	json_object_set_new(o, "host_inferred", jstr(f->host_inferred));
	json_object_set_new(o, "arch", jstr(f->arch));
	for (j = 0; j < f->reason_count; j++)
		json_array_append_new(reasons, reason_json(&f->reasons[j]));
	json_object_set_new(o, "reasons", reasons);
	return o;
}

/* The members after "files": notes, trees, summary. */
static json_t *tail_json(const lo_scan_result *res)
{
	json_t *doc = json_object(), *notes = json_array(), *trees = json_array();
	json_t *sum = json_object();
	size_t i;

	for (i = 0; i < res->note_count; i++)
		json_array_append_new(notes, jstr(res->notes[i]));
	for (i = 0; i < res->detail_count; i++) /* a document holds everything */
		json_array_append_new(notes, jstr(res->details[i]));
	json_object_set_new(doc, "notes", notes);
	for (i = 0; i < res->origin_count; i++) {
		const lo_scan_origin *og = &res->origins[i];
		json_t *t = json_object(), *last = json_null();

		set_path(t, "build", og->build);
		set_path(t, "source", og->source);
		json_object_set_new(t, "commit", jstr(og->commit));
		json_object_set_new(t, "branch", jstr(og->branch));
		json_object_set_new(t, "dirty", og->commit ? json_boolean(og->dirty) : json_null());
		if (og->last_commit)
			last = json_pack("{s:o, s:o, s:o}", "commit", jstr(og->last_commit),
					 "branch", jstr(og->last_branch), "time",
					 jstr(og->last_time));
		json_object_set_new(t, "previous", last);
		json_array_append_new(trees, t);
	}
	json_object_set_new(doc, "trees", trees);
	trees = json_array();
	for (i = 0; i < res->tree_count; i++) {
		json_t *t = json_object();

		set_path(t, "dir", res->trees[i].dir);
		json_object_set_new(t, "system", jstr(res->trees[i].system));
		json_object_set_new(t, "records", jstr(res->trees[i].records));
		json_object_set_new(t, "withheld", json_boolean(res->trees[i].withheld));
		json_array_append_new(trees, t);
	}
	json_object_set_new(doc, "build_trees", trees);
	json_object_set_new(sum, "files", json_integer((json_int_t)res->summary.files));
	json_object_set_new(sum, "bookkeeping", json_integer((json_int_t)res->summary.bookkeeping));
	for (i = 0; i < LO_VERDICT_COUNT; i++)
		json_object_set_new(sum, lo_verdict_str((lo_verdict)i),
				    json_integer((json_int_t)res->summary.by_verdict[i]));
	json_object_set_new(doc, "summary", sum);
	return doc;
}

static json_sink *json_sink_new(FILE *out, lo_buf *mem)
{
	json_sink *s = lo_xmalloc(sizeof(*s));

	s->out = out;
	s->mem = mem;
	s->depth = 0;
	s->len = 0;
	return s;
}

/* The entries of "files" from `from` to `to` (not included). */
static int json_sink_files(json_sink *s, const lo_scan_result *res, size_t from, size_t to)
{
	size_t i;
	int rc = 0;

	for (i = from; i < to && rc >= 0; i++) {
		rc |= json_sink_puts(s, i ? ",\n  " : "\n  ");
		rc |= json_sink_value(s, file_json(&res->files[i]), 2);
	}
	return rc;
}

/*
 * The files are most of the document, and jansson escapes them a byte at
 * a time: 9 ms of a 230 ms scan at bench scale 1, on one thread, after
 * the judging. Past FILES_SPLIT files, a second thread writes the later
 * half into memory (half the text: 1.8 MB at scale 4, once the tables'
 * pages are gone) while the caller's writes the first half out.
 */
#define FILES_SPLIT 512

typedef struct files_half {
	const lo_scan_result *res;
	lo_buf text;
	int rc;
} files_half;

static void *json_later_half(void *arg)
{
	files_half *h = arg;
	json_sink *s = json_sink_new(NULL, &h->text);

	h->rc = json_sink_files(s, h->res, h->res->file_count / 2, h->res->file_count);
	h->rc |= json_sink_flush(s);
	free(s);
	return NULL;
}

static int json_sink_all_files(json_sink *s, const lo_scan_result *res)
{
	files_half later = { res, LO_BUF_INIT, 0 };
	pthread_t thread;
	int rc;

	if (res->file_count < FILES_SPLIT || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    pthread_create(&thread, NULL, json_later_half, &later) != 0)
		return json_sink_files(s, res, 0, res->file_count);
	rc = json_sink_files(s, res, 0, res->file_count / 2);
	pthread_join(thread, NULL);
	rc |= later.rc;
	if (rc >= 0)
		rc |= json_sink_put(s, later.text.ptr, later.text.len);
	lo_buf_dispose(&later.text);
	return rc;
}

int lo_report_write_json(FILE *out, const lo_scan_result *res)
{
	json_sink *sink = json_sink_new(out, NULL);
	json_t *head = json_object();
	int rc;

	json_object_set_new(head, "leftover", json_integer(1));
	set_path(head, "root", res->root);
	/* each call below is made whatever the last returned (they take their values): -1 sticks */
	rc = json_sink_puts(sink, "{\n");
	rc |= json_sink_members(sink, head, true);
	rc |= json_sink_puts(sink, " \"files\": [");
	rc |= json_sink_all_files(sink, res);
	rc |= json_sink_puts(sink, res->file_count ? "\n ],\n" : "],\n");
	rc |= json_sink_members(sink, tail_json(res), false);
	rc |= json_sink_puts(sink, "}\n");
	rc |= json_sink_flush(sink);
	free(sink);
	return rc < 0 || ferror(out) ? -1 : 0;
}
