/*
 * explain.c - from an error message to a one-screen answer (see explain.h).
 *
 * The summary is built for the moment a developer meets the failure: the
 * verdict on its first lines, then each part in a fixed number of lines.
 * Lists (unmet needs, objects searched, files changed) stop at
 * LO_EXPLAIN_LIST_MAX with a count of the rest, so a module linked against
 * libraries with a hundred thousand symbols reads as one linked against
 * one. It owns no judgement of its own: loading is resolve.c's, orphans
 * buildsys.c's, rules rules.c's, history blame.c's; this file only asks them
 * about one file and words the answers.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/explain.h"
#include "leftover/report.h"
#include "leftover/rules.h"
#include "leftover/walk.h"

/* What glibc's dlerror() puts after the object's path, for each failure. */
static const char *const dlerror_phrases[] = {
	": undefined symbol: ",
	": cannot open shared object file",
	": version `",
	": wrong ELF class",
	": invalid ELF header",
	": file too short",
	": cannot enable executable stack",
	": cannot restore segment prot",
	": ELF load command",
	": cannot map zero-fill pages",
};

static bool is_file(const char *path)
{
	struct stat st;

	return *path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The path ending at `end` on a line starting at `line`: after the last
 * "Error: " / "error: " (Python's "ImportError: ", "OSError: ", dlopen's
 * "dlopen failed: "), else the whole; shortened from the left word by word
 * until it names a file, so a path with spaces survives. Owned or NULL.
 */
static char *path_before(const char *line, const char *end)
{
	const char *start = line, *p;

	for (p = line; p + 7 <= end; p++)
		if (!strncmp(p, "Error: ", 7) || !strncmp(p, "error: ", 7) || !strncmp(p, "failed: ", 8))
			start = p + (p[0] == 'f' ? 8 : 7);
	for (p = start; p < end; p++) {
		char *path;

		if (p != start && p[-1] != ' ' && p[-1] != '\'' && p[-1] != '"')
			continue;
		path = lo_xstrndup(p, (size_t)(end - p));
		if (is_file(path))
			return path;
		free(path);
	}
	return NULL;
}

/* A word of the message that names an existing file, trimmed of punctuation. */
static char *file_word(const char *msg, const char *after)
{
	const char *p = after ? strstr(msg, after) : msg;

	if (!p)
		return NULL;
	p += after ? strlen(after) : 0;
	while (*p) {
		size_t n;
		char *w;

		p += strspn(p, " \t\n\"'(`");
		n = strcspn(p, " \t\n");
		while (n && strchr(":,;)'\"`", p[n - 1]))
			n--;
		w = lo_xstrndup(p, n);
		if ((strchr(w, '/') || strstr(w, ".so")) && is_file(w))
			return w;
		free(w);
		if (after)
			return NULL; /* only the word right after */
		p += strcspn(p, " \t\n");
	}
	return NULL;
}

static char *phrase_path(const char *msg)
{
	const char *line = msg;

	while (*line) {
		const char *eol = line + strcspn(line, "\n");
		size_t i;

		for (i = 0; i < sizeof(dlerror_phrases) / sizeof(*dlerror_phrases); i++) {
			const char *hit = strstr(line, dlerror_phrases[i]);
			char *path;

			if (hit && hit < eol && (path = path_before(line, hit)))
				return path;
		}
		line = *eol ? eol + 1 : eol;
	}
	return NULL;
}

/*
 * dyld's messages, as CPython wraps them: "dlopen(PATH, 0x0002): symbol
 * not found in flat namespace '_S'", or "...: Symbol not found: _S\n
 * Referenced from: ...". The path, owned, when it names a file; the
 * symbol in *symbol when the message names one.
 */
static char *dyld_message_path(const char *message, char **symbol)
{
	const char *d = strstr(message, "dlopen("), *flat, *two, *end;
	char *path;

	if (!d)
		return NULL;
	d += 7;
	end = strstr(d, ", 0x");
	path = lo_xstrndup(d, end ? (size_t)(end - d) : strcspn(d, ")"));
	if ((flat = strstr(message, "symbol not found in flat namespace '")))
		flat += strlen("symbol not found in flat namespace '");
	if ((two = strstr(message, "Symbol not found: ")))
		two += strlen("Symbol not found: ");
	if (flat)
		*symbol = lo_xstrndup(flat, strcspn(flat, "'\n"));
	else if (two)
		*symbol = lo_xstrndup(two, strcspn(two, " \t\n"));
	if (is_file(path))
		return path;
	free(path);
	return NULL;
}

char *lo_explain_message_path(const char *message, char **symbol)
{
	const char *u = strstr(message, ": undefined symbol: ");
	char *path;

	*symbol = NULL;
	if ((path = dyld_message_path(message, symbol)))
		return path;
	if (u) {
		u += strlen(": undefined symbol: ");
		*symbol = lo_xstrndup(u, strcspn(u, " \t\n,;'\""));
		if (!**symbol) {
			free(*symbol);
			*symbol = NULL;
		}
	}
	/* "X: version `V' not found (required by Y)": Y has the need */
	if ((path = file_word(message, "(required by ")))
		return path;
	if ((path = phrase_path(message)))
		return path;
	return file_word(message, NULL);
}

char *lo_explain_message_library(const char *message)
{
	static const char phrase[] = ": cannot open shared object file";
	const char *hit = strstr(message, phrase), *start, *p;

	if (!hit)
		return NULL;
	/* the word before the phrase, after any "ImportError: " */
	for (start = hit; start > message && start[-1] != ' ' && start[-1] != '\n' &&
			  start[-1] != '\'' && start[-1] != '"';
	     start--)
		;
	for (p = start; p < hit; p++)
		if (*p == '/')
			return NULL; /* a path: lo_explain_message_path's */
	return hit == start ? NULL : lo_xstrndup(start, (size_t)(hit - start));
}

/* What lo_explain_needing gathers from its walk. */
typedef struct needing {
	const char *dir, *top; /* the walked dir; its build tree's top, or NULL */
	const lo_rules *rules;
	const char *library;
	lo_buf path;
	char **found;
	size_t count, cap;
} needing;

static int on_needing(const lo_walk_entry *en, void *payload)
{
	needing *n = payload;
	const char *abs, *rules_path;
	lo_elf *e = NULL;
	size_t i;

	if (en->err || en->type != LO_FT_REG)
		return 0;
	lo_buf_clear(&n->path);
	lo_buf_printf(&n->path, "%s/%s", strcmp(n->dir, "/") ? n->dir : "", en->relpath);
	abs = lo_buf_cstr(&n->path);
	/* matched as a scan matches it (rules.h) */
	rules_path = n->top ? abs + strlen(n->top) + 1 : abs;
	if (!lo_rules_is_candidate(n->rules, rules_path) ||
	    lo_elf_open(&e, en->dirfd, en->name, abs, false) < 0)
		return 0;
	for (i = 0; i < lo_elf_needed_count(e); i++) {
		if (!strcmp(lo_elf_needed(e, i), n->library)) {
			lo_array_grow(&n->found, &n->cap, n->count + 1, sizeof(char *));
			n->found[n->count++] = lo_xstrdup(abs);
			break;
		}
	}
	lo_elf_free(e);
	return 0;
}

int lo_explain_needing(char ***out, size_t *count, const char *dir, const lo_rules *rules,
		       const char *library)
{
	needing n = { dir, NULL, rules, library, LO_BUF_INIT, NULL, 0, 0 };
	char *base = lo_buildsys_base_of(dir);
	size_t blen = strlen(base);
	int err;

	if (lo_buildsys_is_tree(base) && !strncmp(dir, base, blen) && (!dir[blen] || dir[blen] == '/'))
		n.top = base;
	/* one thread: the objects are read one by one into one list */
	err = lo_walk_tree(dir, 1, on_needing, &n);
	lo_buf_dispose(&n.path);
	free(base);
	lo_strv_sort(n.found, n.count);
	*out = n.found;
	*count = n.count;
	return err < 0 ? err : 0;
}

void lo_explain_free(lo_explain *x)
{
	if (!x)
		return;
	lo_blame_free(x->history);
	free(x->build_dir);
	free(x->relpath);
	free(x->rule_name);
	free(x->rule_reason);
	free(x->rules_error);
	free(x);
}

/* The rule for the file in the states the build system and the loader give it. */
static void find_rule(lo_explain *x, bool loads)
{
	lo_rules *rules = NULL;
	const lo_rule *ru;
	unsigned on = 0;

	if (x->orphan.orphan == 1)
		on |= LO_RULES_ON_STALE | LO_RULES_ON_ORPHAN;
	else if (!loads)
		on |= LO_RULES_ON_BROKEN;
	if (!on)
		return;
	if (lo_rules_load_tree(&rules, x->build_dir, NULL, 0) < 0) {
		x->rules_error = lo_xstrdup(lo_error_last());
		return;
	}
	if ((ru = lo_rules_rule_for(rules, x->relpath, on))) {
		x->rule_name = lo_xstrdup(ru->name);
		x->rule_reason = ru->reason ? lo_xstrdup(ru->reason) : NULL;
	}
	lo_rules_free(rules);
}

/*
 * Whether the build still produces the file, by the records of every build
 * tree holding it (CMake's or not) and the tree's own evidence (buildsys.h).
 */
static void judge_orphan(lo_explain *x, const char *abs)
{
	char *dir = lo_xstrndup(abs, (size_t)(strrchr(abs, '/') - abs));
	lo_buildsys *bs = NULL;
	size_t blen;

	if (lo_buildsys_open(&bs, *dir ? dir : "/", NULL, NULL, 0) == 0 && bs) {
		blen = strlen(lo_buildsys_base(bs));
		if (!strncmp(abs, lo_buildsys_base(bs), blen) && abs[blen] == '/')
			lo_buildsys_judge(bs, abs + blen + 1, &x->orphan);
	}
	lo_buildsys_free(bs);
	free(dir);
}

int lo_explain_records(lo_explain **out, const char *abs, bool loads)
{
	lo_explain *x = lo_xcalloc(1, sizeof(*x));

	x->orphan.orphan = -1;
	*out = x;
	judge_orphan(x, abs);
	if (!(x->history = lo_blame_new(abs)))
		return 0;
	x->build_dir = lo_xstrdup(x->history->build_dir);
	x->relpath = lo_xstrdup(abs + strlen(x->build_dir) + 1);
	find_rule(x, loads);
	return 0;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "and 3 more" after a list cut at LO_EXPLAIN_LIST_MAX. */
static void write_more(lo_buf *out, size_t total, const char *what)
{
	if (total > LO_EXPLAIN_LIST_MAX)
		lo_buf_printf(out, "    and %zu more %s (--verbose lists them)\n",
			      total - LO_EXPLAIN_LIST_MAX, what);
}

static void write_need(lo_buf *out, const lo_problem *p, const char *named)
{
	const char *nl = p->detail ? strchr(p->detail, '\n') : NULL;
	int dlen = p->detail ? (nl ? (int)(nl - p->detail) : (int)strlen(p->detail)) : 0;
	const char *by = p->object ? base_of(p->object) : "?";

	if (p->kind == LO_PROBLEM_UNDEFINED_SYMBOL && p->symbol) {
		char *sym = lo_report_demangle(p->symbol);

		lo_buf_printf(out, "  undefined symbol %s%s%s, needed by %s%s\n", sym,
			      p->version ? "@" : "", p->version ? p->version : "", by,
			      named && !strcmp(named, p->symbol) ? " (the one in your message)" : "");
		free(sym);
	} else if (p->kind == LO_PROBLEM_MISSING_VERSION) {
		lo_buf_printf(out, "  version %s of %s not found, needed by %s\n",
			      p->version ? p->version : "?", p->library ? p->library : "?", by);
	} else if (p->kind == LO_PROBLEM_MISSING_LIBRARY) {
		lo_buf_printf(out, "  library %s not found, needed by %s%s\n",
			      p->library ? p->library : "?", by,
			      named && p->library && !strcmp(named, p->library)
				      ? " (the one in your message)" : "");
	} else {
		lo_buf_printf(out, "  %s: %.*s\n", lo_problem_kind_str(p->kind), dlen,
			      p->detail ? p->detail : "");
	}
}

/* Was the object at index i (libc.so.6, needed by several) found at the same path before? */
static bool listed_before(const lo_load *load, size_t i)
{
	const lo_trace_object *o = lo_load_object_at(load, i);
	size_t j;

	for (j = 0; o->path && j < i; j++) {
		const lo_trace_object *p = lo_load_object_at(load, j);

		if (p->depth && p->path && !strcmp(p->path, o->path))
			return true;
	}
	return false;
}

/* Who the loader searched: the host's scope first, then each object it mapped, once each. */
static void write_searched(lo_buf *out, const char *host, const lo_load *load)
{
	size_t i, shown = 0, total = 0;

	if (host)
		lo_buf_printf(out, "  searched: %s and the libraries it had loaded, then:\n", host);
	else
		lo_buf_puts(out, "  searched, from the program:\n");
	for (i = 0; i < lo_load_object_count(load); i++) {
		const lo_trace_object *o = lo_load_object_at(load, i);
		size_t tried = 0;
		const char *t;

		if (o->depth == 0 || listed_before(load, i))
			continue;
		if (++total > LO_EXPLAIN_LIST_MAX)
			continue;
		shown++;
		if (!o->path) {
			for (t = o->tried; t && *t; t += strcspn(t, "\n") + (t[strcspn(t, "\n")] ? 1 : 0))
				tried++;
			lo_buf_printf(out, "    %s => not found (%zu paths tried)\n", o->name, tried);
		} else {
			lo_buf_printf(out, "    %s => %s (%s%s%s)\n", o->name, o->path,
				      lo_found_via_str(o->via), o->via_detail ? " " : "",
				      o->via_detail ? o->via_detail : "");
		}
	}
	if (!shown)
		lo_buf_puts(out, "    (no other library)\n");
	write_more(out, total, "libraries");
}

static void write_load(lo_buf *out, const char *host, const lo_load *load, const char *named)
{
	size_t i, n = lo_load_problem_count(load);

	const char *verb = host ? "load" : "start";

	if (lo_load_ok(load)) {
		lo_buf_printf(out, "result: would %s\n", verb);
		return;
	}
	lo_buf_printf(out, "result: would not %s\n", verb);
	for (i = 0; i < n && i < LO_EXPLAIN_LIST_MAX; i++)
		write_need(out, lo_load_problem_at(load, i), named);
	write_more(out, n, "unmet needs");
	write_searched(out, host, load);
}

static void write_records(lo_buf *out, const lo_explain *x)
{
	if (x->orphan.orphan == 1)
		lo_buf_printf(out, "still built: no (evidence %s: %s)\n",
			      lo_orphan_evidence_str(x->orphan.evidence), x->orphan.detail);
	else if (x->orphan.orphan == 0)
		lo_buf_printf(out, "still built: yes, %s\n", x->orphan.detail);
	else if (x->orphan.suspected) /* inference: the tree and git, no build record */
		lo_buf_printf(out, "still built: possibly not (suspected, %s, no build record: %s)\n",
			      lo_orphan_evidence_str(x->orphan.evidence), x->orphan.detail);
	else if (*x->orphan.detail) /* what was missing for an answer */
		lo_buf_printf(out, "still built: unknown, %s\n", x->orphan.detail);
	else if (x->build_dir)
		lo_buf_puts(out, "still built: unknown, no build record names this file\n");
	else
		lo_buf_puts(out, "still built: unknown, the file is not in a CMake build tree\n");
	if (x->rule_name)
		lo_buf_printf(out, "rule %s: %s\n", x->rule_name,
			      x->rule_reason ? x->rule_reason : "(no reason given)");
	if (x->rules_error)
		lo_buf_printf(out, "rules: %s\n", x->rules_error);
}

/* paths relative to the repository `repo` (ending in '/'), as absolute paths */
static void write_paths(lo_buf *out, const char *repo, char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < LO_EXPLAIN_LIST_MAX; i++)
		lo_buf_printf(out, "  %s%s\n", repo, paths[i]);
	if (!n)
		lo_buf_puts(out, "  (nothing)\n");
	write_more(out, n, "files");
}

static void write_history(lo_buf *out, const lo_explain *x)
{
	const lo_blame *h = x->history;
	const char *was;

	if (!h || !h->built)
		return;
	was = h->built_branch && *h->built_branch ? h->built_branch : "(detached)";
	lo_buf_printf(out, "built at branch %s (%.7s), by %s; now on branch %s (%.7s)\n", was,
		      h->built, h->built_by, *h->head_branch ? h->head_branch : "(detached)", h->head);
	if (h->drop.commit) {
		lo_buf_printf(out, "dropped by commit %.7s \"%s\", in:\n", h->drop.commit, h->drop.summary);
		write_paths(out, h->repo, h->drop.paths, h->drop.path_count);
	}
	if (h->name) {
		lo_buf_printf(out, "changed since branch %s (%.7s), mentioning %s:\n", was, h->built,
			      h->name);
		write_paths(out, h->repo, h->changed, h->changed_count);
	}
}

/* The verdict and the host: the summary's first lines. */
static void write_head(lo_buf *out, const char *abs, lo_kind kind, const char *host, bool loads,
		       const lo_explain *x)
{
	int orphan = x ? x->orphan.orphan : -1;
	bool suspected = x && x->orphan.suspected;

	lo_buf_printf(out, "%s\n", abs);
	lo_buf_printf(out, "verdict: %s: it would %s%s, and %s\n",
		      orphan == 1 ? "stale" : !loads ? "broken" : suspected ? "possibly stale" : "ok",
		      loads ? "" : "not ", host ? "load" : "start",
		      orphan == 1   ? "the current build no longer produces it"
		      : orphan == 0 ? "the current build still produces it"
		      : suspected   ? "the tree and git suggest the current build no longer "
				      "produces it (no build record says)"
				    : "no build record says whether the current build produces it");
	if (host)
		lo_buf_printf(out, "  kind: %s\n  host: %s\n", lo_kind_str(kind), host);
	else
		lo_buf_puts(out, "  kind: program, started as ld.so starts it (every symbol bound)\n");
}

/* The records, the history, and how to move it aside: the summary's last lines. */
static void write_tail(lo_buf *out, bool loads, const lo_explain *x)
{
	int orphan = x ? x->orphan.orphan : -1;
	bool suspected = x && x->orphan.suspected;
	const char *dir = x && x->build_dir ? x->build_dir : NULL;

	if (x) {
		write_records(out, x);
		write_history(out, x);
	}
	if (orphan == 1 && dir)
		lo_buf_printf(out, "to move it aside: leftover clean %s (undo: leftover restore %s)\n",
			      dir, dir);
	else if (!loads && dir)
		lo_buf_printf(out, "to move it aside: leftover clean --broken %s (undo: leftover "
			      "restore %s)\n", dir, dir);
	else if (suspected && dir)
		lo_buf_printf(out, "to move it aside: leftover clean --suspected %s (undo: leftover "
			      "restore %s)\n", dir, dir);
}

void lo_explain_write_summary(lo_buf *out, const char *abs, lo_kind kind, const char *host,
			      const lo_load *load, const lo_explain *x, const char *named)
{
	write_head(out, abs, kind, host, lo_load_ok(load), x);
	write_load(out, host, load, named);
	write_tail(out, lo_load_ok(load), x);
}

void lo_explain_write_problems(lo_buf *out, const char *abs, lo_kind kind, const char *host,
			       const lo_problem *problems, size_t n, const char *assumed,
			       const lo_explain *x, const char *named)
{
	size_t i;

	write_head(out, abs, kind, host, n == 0, x);
	lo_buf_printf(out, "result: would %sload\n", n ? "not " : "");
	for (i = 0; i < n && i < LO_EXPLAIN_LIST_MAX; i++) {
		const char *d = problems[i].detail;

		write_need(out, &problems[i], named);
		/* the loader's own words, each line indented under the need */
		while (d && *d) {
			size_t len = strcspn(d, "\n");

			lo_buf_printf(out, "    %.*s\n", (int)len, d);
			d += len + (d[len] == '\n');
		}
	}
	write_more(out, n, "unmet needs");
	if (assumed)
		lo_buf_printf(out, "assumed: %s\n", assumed);
	write_tail(out, n == 0, x);
}
