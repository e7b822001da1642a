/*
 * report.c - scan results as text for people and JSON for programs.
 *
 * Text output lists only what needs attention (broken, stale, unreadable),
 * one heading line per file and one line per reason under it; --verbose adds
 * the files that are fine and the paths the loader tried. JSON lists every
 * candidate, written as it is produced (json_writer.h).
 *
 * File names are raw bytes. Text output escapes what a terminal would
 * misrender (control bytes, invalid UTF-8, backslash) as C escapes, so each
 * finding stays on one line. JSON needs UTF-8: a name that is not valid
 * UTF-8 is given as "path" with the same escapes plus "path_hex", the exact
 * bytes in hexadecimal, so nothing is lost.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/report.h"
#include "report/json_writer.h"

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

/*
 * Written as it is produced (json_writer.h), a file at a time: the
 * document is what json_dumpf of the whole tree of values wrote with
 * JSON_INDENT(1), byte for byte, without the tree (an object per
 * candidate, then each escaped through a callback).
 */

/* s as a JSON string: as it is when valid UTF-8, escaped as a path otherwise; null for NULL. */
static void put_text(lo_json_writer *w, const char *s)
{
	char *q;

	if (!s || valid_utf8(s)) {
		lo_json_str(w, s);
		return;
	}
	q = lo_report_quote_path(s);
	lo_json_str(w, q);
	free(q);
}

static void put_tri(lo_json_writer *w, lo_tristate t)
{
	if (t == LO_UNKNOWN)
		lo_json_null(w);
	else
		lo_json_bool(w, t == LO_TRUE);
}

/* The member `key`, and `key`_hex with the exact bytes of a name that is not UTF-8. */
static void put_path(lo_json_writer *w, const char *key, const char *path)
{
	lo_buf hex = LO_BUF_INIT;
	lo_buf name = LO_BUF_INIT;
	const unsigned char *p;

	lo_json_key(w, key);
	put_text(w, path);
	if (!path || valid_utf8(path))
		return;
	for (p = (const unsigned char *)path; *p; p++)
		lo_buf_printf(&hex, "%02x", *p);
	lo_buf_printf(&name, "%s_hex", key);
	lo_json_key(w, lo_buf_cstr(&name));
	lo_json_str(w, lo_buf_cstr(&hex));
	lo_buf_dispose(&hex);
	lo_buf_dispose(&name);
}

static void put_member(lo_json_writer *w, const char *key, const char *s)
{
	lo_json_key(w, key);
	put_text(w, s);
}

static void put_reason(lo_json_writer *w, const lo_reason *r)
{
	lo_json_object_open(w);
	put_member(w, "kind", lo_reason_kind_str(r->kind));
	put_member(w, "symbol", r->symbol);
	put_member(w, "version", r->version);
	put_member(w, "library", r->library);
	put_member(w, "object", r->object);
	put_member(w, "detail", r->detail);
	if (r->evidence)
		put_member(w, "evidence", r->evidence);
	lo_json_close(w);
}

static void put_file(lo_json_writer *w, const lo_file *f)
{
	size_t j;

	lo_json_object_open(w);
	put_path(w, "path", f->path);
	if (f->target)
		put_path(w, "target", f->target);
	put_member(w, "kind", lo_kind_str(f->kind));
	lo_json_key(w, "loads");
	put_tri(w, f->loads);
	/* true, false, null, or "suspected": unknown by the records, suggested by the tree and git */
	lo_json_key(w, "orphan");
	if (f->suspected && f->orphan == LO_UNKNOWN)
		lo_json_str(w, "suspected");
	else
		put_tri(w, f->orphan);
	lo_json_key(w, "tracked");
	put_tri(w, f->tracked);
	put_member(w, "verdict", lo_verdict_str(f->verdict));
	put_member(w, "host", f->host);
	put_member(w, "host_rule", f->host_rule);
	put_member(w, "host_inferred", f->host_inferred);
	put_member(w, "arch", f->arch);
	lo_json_key(w, "reasons");
	lo_json_array_open(w);
	for (j = 0; j < f->reason_count; j++)
		put_reason(w, &f->reasons[j]);
	lo_json_close(w);
	lo_json_close(w);
}

/* "trees": where each root's build came from (origin.h). */
static void put_origins(lo_json_writer *w, const lo_scan_result *res)
{
	size_t i;

	lo_json_key(w, "trees");
	lo_json_array_open(w);
	for (i = 0; i < res->origin_count; i++) {
		const lo_scan_origin *og = &res->origins[i];

		lo_json_object_open(w);
		put_path(w, "build", og->build);
		put_path(w, "source", og->source);
		put_member(w, "commit", og->commit);
		put_member(w, "branch", og->branch);
		lo_json_key(w, "dirty");
		if (og->commit)
			lo_json_bool(w, og->dirty);
		else
			lo_json_null(w);
		lo_json_key(w, "previous");
		if (og->last_commit) {
			lo_json_object_open(w);
			put_member(w, "commit", og->last_commit);
			put_member(w, "branch", og->last_branch);
			put_member(w, "time", og->last_time);
			lo_json_close(w);
		} else {
			lo_json_null(w);
		}
		lo_json_close(w);
	}
	lo_json_close(w);
}

/* The members after "files": notes, trees, build trees, summary. */
static void put_tail(lo_json_writer *w, const lo_scan_result *res)
{
	size_t i;

	lo_json_key(w, "notes");
	lo_json_array_open(w);
	for (i = 0; i < res->note_count; i++)
		put_text(w, res->notes[i]);
	for (i = 0; i < res->detail_count; i++) /* a document holds everything */
		put_text(w, res->details[i]);
	lo_json_close(w);
	put_origins(w, res);
	lo_json_key(w, "build_trees");
	lo_json_array_open(w);
	for (i = 0; i < res->tree_count; i++) {
		lo_json_object_open(w);
		put_path(w, "dir", res->trees[i].dir);
		put_member(w, "system", res->trees[i].system);
		put_member(w, "records", res->trees[i].records);
		lo_json_key(w, "withheld");
		lo_json_bool(w, res->trees[i].withheld);
		lo_json_close(w);
	}
	lo_json_close(w);
	lo_json_key(w, "summary");
	lo_json_object_open(w);
	lo_json_key(w, "files");
	lo_json_int(w, (long long)res->summary.files);
	lo_json_key(w, "bookkeeping");
	lo_json_int(w, (long long)res->summary.bookkeeping);
	for (i = 0; i < LO_VERDICT_COUNT; i++) {
		lo_json_key(w, lo_verdict_str((lo_verdict)i));
		lo_json_int(w, (long long)res->summary.by_verdict[i]);
	}
	lo_json_close(w);
}

int lo_report_write_json(FILE *out, const lo_scan_result *res)
{
	lo_json_writer *w = lo_json_writer_new(out);
	size_t i;
	int rc;

	lo_json_object_open(w);
	lo_json_key(w, "leftover");
	lo_json_int(w, 1);
	put_path(w, "root", res->root);
	lo_json_key(w, "files");
	lo_json_array_open(w);
	for (i = 0; i < res->file_count; i++)
		put_file(w, &res->files[i]);
	lo_json_close(w);
	put_tail(w, res);
	lo_json_close(w);
	rc = lo_json_writer_finish(w);
	lo_json_writer_free(w);
	return rc;
}
