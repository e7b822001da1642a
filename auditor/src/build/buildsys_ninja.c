/*
 * buildsys_ninja.c - a Ninja tree's records, read without running ninja:
 * the manifests (what the current build produces) and .ninja_log (what it
 * built in the past). Whatever generated the tree: CMake's Ninja and Ninja
 * Multi-Config generators, GN, a hand-written build.ninja.
 *
 * The manifest reader follows the ninja manual's grammar as far as outputs
 * need it: `build` lines with explicit and implicit (`|`) outputs, whose
 * paths are expanded with the file's variables and the build's own
 * bindings; `include` (same scope) and `subninja` (a child scope); `$`
 * escapes and line continuations. Rules, pools and defaults are skipped,
 * and inputs but those of the edge that rebuilds build.ninja itself
 * (CMake's RERUN_CMAKE, meson's REGENERATE_BUILD): that edge says whether
 * the records are older than the build description (lo_bs_check_regen).
 * Every output, phony ones too, counts as produced: a phony name that is
 * also a file on disk is then never an orphan, the safe side.
 *
 * Under buildsys.c's rule, whatever is not read whole makes the tree's Ninja
 * evidence incomplete: a manifest or include that is missing, unreadable,
 * not ninja syntax or ends mid-line (cut short); a configuration of Ninja
 * Multi-Config without its build-<Config>.ninja; a real (non-phony) output
 * outside the tree, which might be the same file by another path; a log
 * from a ninja newer than this reader knows, one with a line ninja did not
 * write, one ending mid-line, or naming a path outside the tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/deps.h"
#include "leftover/map.h"
#include "leftover/os.h"

/* The newest .ninja_log format this reader knows (ninja 1.12 writes v6). */
#define LOG_VERSION_MIN 4
#define LOG_VERSION_MAX 6
/* include/subninja nesting, and files read in all: ninja files are not that deep */
#define MAX_DEPTH 32
#define MAX_FILES 100000
/* A manifest larger than this is not read (LLVM's is about 100 MB). */
#define MAX_MANIFEST (1024L * 1024 * 1024)

/* ---- .ninja_log -------------------------------------------------------------- */

/* "# ninja log vN": N, or -1 when the line is not that. */
static int log_version(const char *line)
{
	static const char head[] = "# ninja log v";
	char *end;
	long v;

	if (strncmp(line, head, sizeof(head) - 1))
		return -1;
	v = strtol(line + sizeof(head) - 1, &end, 10);
	return end == line + sizeof(head) - 1 || (*end && *end != '\n' && *end != '\r') || v > 1000
		       ? -1 : (int)v;
}

/* One log line: start, end, mtime, output, hash, tab-separated. False if not ninja's. */
static bool log_line(lo_buildsys *bs, lo_bs_tree *t, char *line)
{
	char *fields[5], *save = NULL, *tok, *e0, *e1, *e2;
	int n = 0;
	long long mtime, start, end, slack = 50000000LL;

	(void)bs;
	for (tok = strtok_r(line, "\t", &save); tok && n < 5; tok = strtok_r(NULL, "\t", &save))
		fields[n++] = tok;
	if (n < 4)
		return false;
	start = strtoll(fields[0], &e0, 10);
	end = strtoll(fields[1], &e1, 10);
	mtime = strtoll(fields[2], &e2, 10);
	if (*e0 || *e1 || *e2 || mtime < 0 || start < 0 || end < start ||
	    end - start > 1000000000LL)
		return false; /* not a line ninja wrote; a log of 11 days' command is none */
	if (mtime < 100000000000000LL) { /* seconds: ninja before 1.10 */
		mtime = mtime > 9000000000LL ? 0 : mtime * 1000000000LL;
		slack = 1000000000LL;
	}
	return lo_bs_mark_past(t, NULL, fields[3], LO_EVIDENCE_NINJA_LOG, mtime,
			       (end - start) * 1000000LL, slack, NULL);
}

/*
 * .ninja_log: "# ninja log vN", then one line per command run. Later lines
 * for the same output win; mtime is in nanoseconds since ninja 1.10 on
 * Linux, in seconds before.
 */
void lo_bs_read_ninja_log(lo_buildsys *bs, lo_bs_tree *t)
{
	lo_buf p = LO_BUF_INIT;
	char *line = NULL;
	size_t cap = 0, no = 0;
	uint64_t at = 0, hash;
	ssize_t n;
	int version;
	FILE *f;

	lo_buf_printf(&p, "%s/.ninja_log", t->dir);
	if (!(f = lo_bs_open_record(lo_buf_cstr(&p)))) {
		lo_buf_dispose(&p);
		return; /* never built: nothing recorded, no orphan */
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		no++;
		if (line[n - 1] != '\n') {
			lo_bs_incomplete(bs, t, LO_BS_NINJA, ".ninja_log ends mid-line (cut short?)");
			break;
		}
		at += (uint64_t)n;
		line[strcspn(line, "\r\n")] = '\0';
		if (no == 1) {
			version = log_version(line);
			if (version < 0) {
				lo_bs_incomplete(bs, t, LO_BS_NINJA, ".ninja_log has no version line");
				break;
			}
			if (version < LOG_VERSION_MIN || version > LOG_VERSION_MAX) {
				lo_bs_incomplete(bs, t, LO_BS_NINJA,
						 ".ninja_log is version %d, from a ninja this reader does "
						 "not know (v%d to v%d)", version, LOG_VERSION_MIN,
						 LOG_VERSION_MAX);
				break;
			}
			continue;
		}
		if (line[0] == '#')
			continue;
		if (!log_line(bs, t, line)) {
			lo_bs_incomplete(bs, t, LO_BS_NINJA,
					 ".ninja_log line %zu is not one ninja writes, or names a path "
					 "outside the tree", no);
			break;
		}
	}
	/* read whole: it stands for as long as what ninja appends changes nothing (deps.h) */
	if (n <= 0 && !ferror(f) && lo_dep_log_hash(fileno(f), at, &hash))
		lo_deps_note_log(lo_buf_cstr(&p), at, hash);
	lo_buf_dispose(&p);
	free(line);
	fclose(f);
}

/*
 * One line ninja appended after a scan read the log in `dir` (open as
 * `dfd`): whole, ninja's fields (the command's hash in hex since v6), an
 * mtime of 0 and its output a path in the tree, relative or under `dir`,
 * where nothing is. Such a line records a command that made no file (the
 * audit's own target, which CMake names both ways): no verdict draws on it.
 */
static bool log_line_harmless(const char *dir, int dfd, char *line)
{
	char *fields[5], *save = NULL, *tok, *end, *c, *out;
	size_t dlen = strlen(dir);
	struct stat st;
	int n = 0;

	for (tok = strtok_r(line, "\t", &save); tok && n < 5; tok = strtok_r(NULL, "\t", &save))
		fields[n++] = tok;
	if (n != 5 || strtok_r(NULL, "\t", &save))
		return false;
	for (n = 0; n < 5; n++) {
		if (n == 3)
			continue;
		(void)strtoull(fields[n], &end, n == 4 ? 16 : 10);
		if (!*fields[n] || *end || *fields[n] == '-' || *fields[n] == '+')
			return false;
	}
	out = fields[3];
	if (out[0] == '/' && (strncmp(out, dir, dlen) || out[dlen] != '/' || !out[dlen + 1]))
		return false; /* outside the tree: the reader calls the log incomplete */
	if (out[0] == '/')
		out += dlen + 1;
	if (strcmp(fields[2], "0"))
		return false;
	/* no ".", "..", nor empty component: the path as it is names what the records would */
	for (c = out; *c; c = end + (*end == '/')) {
		end = c + strcspn(c, "/");
		if (end == c || (end - c == 1 && c[0] == '.') ||
		    (end - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return fstatat(dfd, out, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

bool lo_buildsys_log_appended_stands(const char *path, int fd, uint64_t from)
{
	const char *name = strrchr(path, '/');
	char *line = NULL, *dir;
	size_t cap = 0;
	ssize_t n = 0;
	bool stands;
	int dfd, fd2;
	FILE *f;

	if (!name || strcmp(name, "/.ninja_log") || lseek(fd, (off_t)from, SEEK_SET) < 0 ||
	    (fd2 = dup(fd)) < 0)
		return false;
	if (!(f = fdopen(fd2, "r"))) {
		close(fd2);
		return false;
	}
	dir = lo_xstrndup(path, (size_t)(name - path));
	dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	stands = dfd >= 0;
	while (stands && (n = getline(&line, &cap, f)) > 0) {
		stands = line[n - 1] == '\n' && line[0] != '#';
		line[n - 1] = '\0';
		stands = stands && log_line_harmless(dir, dfd, line);
	}
	stands = stands && !ferror(f);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(line);
	fclose(f);
	return stands;
}

/* ---- manifests --------------------------------------------------------------- */

typedef struct outs {
	char **raw;
	size_t count, cap;
} outs;

static void outs_dispose(outs *o)
{
	size_t i;

	for (i = 0; i < o->count; i++)
		free(o->raw[i]);
	free(o->raw);
}

typedef struct scope {
	lo_map *vars; /* name -> value, owned */
	const struct scope *parent;
} scope;

typedef struct parser {
	lo_buildsys *bs;
	lo_bs_tree *t;
	size_t files; /* read so far */
	bool failed;  /* the first problem is noted; the rest of the read is moot */
	outs regen_outs, regen_deps; /* the edge rebuilding build.ninja: its outputs and inputs */
	const char *reading[MAX_DEPTH + 1]; /* the files being read, outermost first */
} parser;

typedef struct lexer {
	const char *p, *end;
	const char *file; /* relative to the tree, for messages */
	size_t line;
} lexer;

/* Note the first problem (printf-style), at lx's line when given; the rest is moot. */
static void fail(parser *ps, const lexer *lx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(parser *ps, const lexer *lx, const char *fmt, ...)
{
	char *what = NULL;
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (lx)
		lo_bs_incomplete(ps->bs, ps->t, LO_BS_NINJA, "the manifest %s is not read whole: %s "
				 "at line %zu", lx->file, what, lx->line);
	else
		lo_bs_incomplete(ps->bs, ps->t, LO_BS_NINJA, "the manifests are not read whole: %s",
				 what);
	free(what);
}

static bool is_ident(char c, bool dot)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || (dot && c == '.');
}

static bool at_eol(const lexer *lx)
{
	return lx->p >= lx->end || *lx->p == '\n' || (*lx->p == '\r' && lx->p + 1 < lx->end &&
						      lx->p[1] == '\n');
}

/* Spaces, and `$` newline continuations with the next line's indentation. */
static void skip_space(lexer *lx)
{
	for (;;) {
		if (lx->p < lx->end && *lx->p == ' ') {
			lx->p++;
		} else if (lx->p + 1 < lx->end && lx->p[0] == '$' && lx->p[1] == '\n') {
			lx->p += 2;
			lx->line++;
		} else if (lx->p + 2 < lx->end && lx->p[0] == '$' && lx->p[1] == '\r' &&
			   lx->p[2] == '\n') {
			lx->p += 3;
			lx->line++;
		} else {
			return;
		}
	}
}

static void eat_eol(lexer *lx)
{
	if (lx->p < lx->end && *lx->p == '\r')
		lx->p++;
	if (lx->p < lx->end && *lx->p == '\n') {
		lx->p++;
		lx->line++;
	}
}

/* An identifier (a keyword, variable or rule name); "" when none. */
static char *read_ident(lexer *lx)
{
	const char *s = lx->p;

	while (lx->p < lx->end && is_ident(*lx->p, true))
		lx->p++;
	return lo_xstrndup(s, (size_t)(lx->p - s));
}

/*
 * The raw text of a path (`path` true: ends at an unescaped space, ':' or
 * '|') or of a value (ends at the line's end), escapes kept for eval; NULL
 * on a bad escape.
 */
static char *read_raw(lexer *lx, bool path)
{
	const char *s = lx->p;

	while (lx->p < lx->end && !at_eol(lx)) {
		char c = *lx->p;

		if (path && (c == ' ' || c == ':' || c == '|'))
			break;
		if (c != '$') {
			lx->p++;
			continue;
		}
		if (lx->p + 1 >= lx->end)
			return NULL;
		c = lx->p[1];
		if (c == '\n' || c == '\r') { /* a continuation: the raw text keeps it */
			const char *q = lx->p + (c == '\r' ? 3 : 2);

			if (q > lx->end)
				return NULL;
			lx->p = q;
			lx->line++;
			while (lx->p < lx->end && *lx->p == ' ')
				lx->p++;
		} else if (c == ' ' || c == ':' || c == '$') {
			lx->p += 2;
		} else if (c == '{') {
			const char *q = lx->p + 2;

			while (q < lx->end && is_ident(*q, true))
				q++;
			if (q >= lx->end || *q != '}')
				return NULL;
			lx->p = q + 1;
		} else if (is_ident(c, false)) {
			lx->p++;
			while (lx->p < lx->end && is_ident(*lx->p, false))
				lx->p++;
		} else {
			return NULL;
		}
	}
	return lo_xstrndup(s, (size_t)(lx->p - s));
}

static const char *lookup(const lo_map *edge, const scope *sc, const char *name)
{
	const char *v;

	if (edge && (v = lo_map_get(edge, name, NULL)))
		return v;
	for (; sc; sc = sc->parent)
		if ((v = lo_map_get(sc->vars, name, NULL)))
			return v;
	return "";
}

/* Expand raw text (read_raw's, so well-formed) with the variables in scope. */
static char *eval(const char *raw, const lo_map *edge, const scope *sc)
{
	lo_buf out = LO_BUF_INIT, name = LO_BUF_INIT;
	const char *p = raw;

	lo_buf_puts(&out, "");
	while (*p) {
		if (*p != '$') {
			lo_buf_putc(&out, *p++);
			continue;
		}
		p++;
		if (*p == '\n' || *p == '\r') {
			p += *p == '\r' ? 2 : 1;
			while (*p == ' ')
				p++;
			continue;
		}
		if (*p == ' ' || *p == ':' || *p == '$') {
			lo_buf_putc(&out, *p++);
			continue;
		}
		lo_buf_clear(&name);
		if (*p == '{') {
			const char *q = strchr(p, '}');

			lo_buf_add(&name, p + 1, (size_t)(q - p - 1));
			p = q + 1;
		} else {
			while (is_ident(*p, false))
				lo_buf_putc(&name, *p++);
		}
		lo_buf_puts(&out, lookup(edge, sc, lo_buf_cstr(&name)));
	}
	lo_buf_dispose(&name);
	return lo_buf_detach(&out);
}

static void free_value(void *v)
{
	free(v);
}

/* `name = value` after the name: the value expanded in `sc`, stored into `into`. */
static bool read_binding(lexer *lx, const char *name, const scope *sc, lo_map *into)
{
	char *raw, *old;

	skip_space(lx);
	if (lx->p >= lx->end || *lx->p != '=')
		return false;
	lx->p++;
	skip_space(lx);
	if (!(raw = read_raw(lx, false)))
		return false;
	if (into) {
		old = lo_map_get(into, name, NULL);
		lo_map_put(into, name, eval(raw, NULL, sc));
		free(old);
	}
	free(raw);
	eat_eol(lx);
	return true;
}

/* Skip blank lines' ends and comment lines; true when an indented line follows. */
static bool next_is_indented(lexer *lx)
{
	for (;;) {
		const char *q = lx->p;

		while (q < lx->end && *q == ' ')
			q++;
		if (q < lx->end && *q == '#') { /* a comment, wherever it starts */
			while (q < lx->end && *q != '\n')
				q++;
			lx->p = q;
			eat_eol(lx);
			continue;
		}
		return q > lx->p && q < lx->end && *q != '\n' && *q != '\r';
	}
}

/* The indented `name = value` lines of a build, rule or pool; into `into` if given. */
static bool read_bindings(lexer *lx, const scope *sc, lo_map *into)
{
	while (next_is_indented(lx)) {
		char *name;
		bool ok;

		skip_space(lx);
		name = read_ident(lx);
		ok = *name && read_binding(lx, name, sc, into);
		free(name);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * The paths up to the end of the line, each added to `o` when given. Of
 * `inputs`, only explicit and implicit (`|`) ones: order-only (`||`) and
 * validation (`|@`) inputs never make an output dirty.
 */
static bool read_paths(lexer *lx, outs *o, bool stop_at_colon, bool inputs)
{
	bool keep = o != NULL;

	for (;;) {
		char *raw;

		skip_space(lx);
		if (at_eol(lx) || (stop_at_colon && *lx->p == ':'))
			return true;
		if (*lx->p == '|') { /* implicit outputs, or order-only / validation inputs */
			if (inputs && lx->p + 1 < lx->end && (lx->p[1] == '|' || lx->p[1] == '@'))
				keep = false;
			while (lx->p < lx->end && (*lx->p == '|' || *lx->p == '@'))
				lx->p++;
			continue;
		}
		if (!(raw = read_raw(lx, true)) || !*raw) {
			free(raw);
			return false;
		}
		if (keep) {
			lo_array_grow(&o->raw, &o->cap, o->count + 1, sizeof(char *));
			o->raw[o->count++] = raw;
		} else {
			free(raw);
		}
	}
}

/*
 * Might the output `raw` (unevaluated) be build.ninja? Only such an edge's
 * inputs are kept: a manifest of a million edges is not copied for one.
 */
static bool may_be_manifest(const char *raw)
{
	size_t n = strlen(raw);

	return strchr(raw, '$') || (n >= 11 && !strcmp(raw + n - 11, "build.ninja"));
}

/* Is the output `path` the top manifest, so that this edge regenerates the build? */
static bool rebuilds_manifest(const lo_bs_tree *t, const char *path)
{
	char *rel;
	bool yes;

	if (!may_be_manifest(path))
		return false;
	rel = lo_bs_normalise(t, NULL, path);
	yes = rel && !strcmp(rel, "build.ninja");
	free(rel);
	return yes;
}

/* Keep the regeneration edge's outputs and inputs, evaluated, for lo_bs_check_regen. */
static void keep_regen(parser *ps, const outs *o, const outs *in, const lo_map *edge,
		       const scope *sc)
{
	size_t i;

	if (ps->regen_outs.count) /* the first such edge: ninja would refuse a second */
		return;
	for (i = 0; i < o->count; i++) {
		lo_array_grow(&ps->regen_outs.raw, &ps->regen_outs.cap, ps->regen_outs.count + 1,
			      sizeof(char *));
		ps->regen_outs.raw[ps->regen_outs.count++] = eval(o->raw[i], edge, sc);
	}
	for (i = 0; i < in->count; i++) {
		lo_array_grow(&ps->regen_deps.raw, &ps->regen_deps.cap, ps->regen_deps.count + 1,
			      sizeof(char *));
		ps->regen_deps.raw[ps->regen_deps.count++] = eval(in->raw[i], edge, sc);
	}
}

/* `build OUTS [| IMPLICIT]: RULE INPUTS...` and its bindings; every output produced. */
static bool read_build(parser *ps, lexer *lx, const scope *sc)
{
	outs o = { NULL, 0, 0 }, in = { NULL, 0, 0 };
	lo_map *edge = lo_map_new();
	char *rule = NULL;
	bool ok = false, regen = false, maybe = false;
	size_t i;
	const char *by;
	char *label = NULL;

	if (asprintf(&label, "the ninja manifest %s", lx->file) < 0)
		abort();
	by = lo_bs_label(ps->t, label);
	free(label);

	if (!read_paths(lx, &o, true, false) || !o.count || lx->p >= lx->end || *lx->p != ':')
		goto out;
	lx->p++;
	skip_space(lx);
	rule = read_ident(lx);
	for (i = 0; i < o.count && !maybe; i++)
		maybe = may_be_manifest(o.raw[i]);
	if (!*rule || !read_paths(lx, maybe ? &in : NULL, false, true))
		goto out;
	eat_eol(lx);
	if (!read_bindings(lx, sc, edge))
		goto out;
	for (i = 0; i < o.count; i++) {
		char *path = eval(o.raw[i], edge, sc);

		/* a phony edge names the generator's inputs (CMakeLists.txt) as outputs: no files */
		if (!*path || (!lo_bs_mark_produced(ps->t, NULL, path, by) && strcmp(rule, "phony")))
			fail(ps, lx, "the output '%s' lies outside the tree", path);
		regen = regen || (*path && strcmp(rule, "phony") && rebuilds_manifest(ps->t, path));
		free(path);
	}
	if (regen)
		keep_regen(ps, &o, &in, edge, sc);
	ok = true;
out:
	free(rule);
	outs_dispose(&o);
	outs_dispose(&in);
	lo_map_free(edge, free_value);
	return ok;
}

static void read_manifest(parser *ps, const char *rel, scope *sc, unsigned depth);

/* `include PATH` (same scope) or `subninja PATH` (a child scope). */
static bool read_include(parser *ps, lexer *lx, scope *sc, bool sub, unsigned depth)
{
	char *raw, *path;
	scope child = { NULL, sc };

	skip_space(lx);
	if (!(raw = read_raw(lx, true)) || !*raw || !read_paths(lx, NULL, false, false)) {
		free(raw);
		return false;
	}
	eat_eol(lx);
	path = eval(raw, NULL, sc);
	free(raw);
	if (sub) {
		child.vars = lo_map_new();
		read_manifest(ps, path, &child, depth + 1);
		lo_map_free(child.vars, free_value);
	} else {
		read_manifest(ps, path, sc, depth + 1);
	}
	free(path);
	return true;
}

/* One top-level statement; false on a syntax error. */
static bool read_statement(parser *ps, lexer *lx, scope *sc, unsigned depth)
{
	char *word = read_ident(lx);
	bool ok;

	if (!*word) {
		ok = false;
	} else if (!strcmp(word, "build")) {
		ok = read_build(ps, lx, sc);
	} else if (!strcmp(word, "rule") || !strcmp(word, "pool")) {
		skip_space(lx);
		free(read_ident(lx));
		skip_space(lx);
		ok = at_eol(lx);
		eat_eol(lx);
		ok = ok && read_bindings(lx, sc, NULL);
	} else if (!strcmp(word, "default")) {
		ok = read_paths(lx, NULL, false, false);
		eat_eol(lx);
	} else if (!strcmp(word, "include") || !strcmp(word, "subninja")) {
		ok = read_include(ps, lx, sc, word[0] == 's', depth);
	} else {
		ok = read_binding(lx, word, sc, sc->vars);
	}
	free(word);
	return ok;
}

/* The whole of a file, or NULL; a manifest over MAX_MANIFEST is not read. */
static char *slurp(const char *path, size_t *len)
{
	lo_buf b = LO_BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f = lo_bs_open_record(path);

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < (size_t)MAX_MANIFEST)
		lo_buf_add(&b, chunk, n);
	fclose(f);
	if (b.len >= (size_t)MAX_MANIFEST) {
		lo_buf_dispose(&b);
		return NULL;
	}
	lo_buf_puts(&b, "");
	*len = b.len;
	return lo_buf_detach(&b);
}

static void read_manifest(parser *ps, const char *rel, scope *sc, unsigned depth)
{
	char *path = NULL, *text;
	size_t len = 0, i;
	bool whole;
	lexer lx;

	if (ps->failed)
		return;
	if (depth > MAX_DEPTH || ++ps->files > MAX_FILES) {
		fail(ps, NULL, "include and subninja nested too deep or too often");
		return;
	}
	/* ninja itself would recurse until it dies: not a manifest to take evidence from */
	for (i = 0; i < depth; i++)
		if (!strcmp(ps->reading[i], rel)) {
			fail(ps, NULL, "'%s' includes itself (include or subninja)", rel);
			return;
		}
	ps->reading[depth] = rel;
	whole = lo_os_path_is_absolute(rel);
	if (asprintf(&path, "%s%s%s", whole ? "" : ps->t->dir, whole ? "" : "/", rel) < 0)
		abort();
	text = slurp(path, &len);
	free(path);
	if (!text) {
		fail(ps, NULL, "'%s' cannot be read", rel);
		return;
	}
	lx = (lexer){ text, text + len, rel, 1 };
	if (len && text[len - 1] != '\n')
		fail(ps, NULL, "'%s' ends mid-line (cut short?)", rel);
	while (!ps->failed && lx.p < lx.end) {
		const char *q = lx.p;

		while (q < lx.end && *q == ' ')
			q++;
		if (q < lx.end && (*q == '#' || *q == '\n' || *q == '\r')) { /* comment, blank */
			while (q < lx.end && *q != '\n')
				q++;
			lx.p = q;
			eat_eol(&lx);
			continue;
		}
		if (q != lx.p || !read_statement(ps, &lx, sc, depth))
			fail(ps, &lx, "%s",
			     q != lx.p ? "an indented line outside any block" : "not ninja syntax");
	}
	free(text);
}

/* build-<Config>.ninja of every configuration Ninja Multi-Config wrote, besides build.ninja. */
static void read_config_manifests(parser *ps)
{
	char *types = lo_buildsys_cache_value(ps->t->dir, "CMAKE_CONFIGURATION_TYPES");
	char *save = NULL, *c;
	struct dirent *de;
	lo_map *seen = lo_map_new();
	DIR *d;

	lo_deps_note_path(ps->t->dir); /* its names are read: deps.h */
	d = opendir(ps->t->dir);

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "build-", 6) || n < 13 || strcmp(de->d_name + n - 6, ".ninja"))
			continue;
		scope top = { lo_map_new(), NULL }; /* each is a top-level manifest of its own */

		lo_map_put(seen, de->d_name, (void *)1);
		read_manifest(ps, de->d_name, &top, 0);
		lo_map_free(top.vars, free_value);
	}
	if (d)
		closedir(d);
	for (c = types ? strtok_r(types, ";", &save) : NULL; c; c = strtok_r(NULL, ";", &save)) {
		char *name = NULL;

		if (asprintf(&name, "build-%s.ninja", c) < 0)
			abort();
		if (!lo_map_get(seen, name, NULL))
			fail(ps, NULL, "the configuration %s has no %s", c, name);
		free(name);
	}
	lo_map_free(seen, NULL);
	free(types);
}

void lo_bs_read_ninja(lo_buildsys *bs, lo_bs_tree *t)
{
	parser ps = { .bs = bs, .t = t };
	scope top = { lo_map_new(), NULL };

	read_manifest(&ps, "build.ninja", &top, 0);
	lo_map_free(top.vars, free_value);
	if (strstr(t->generator, "Multi-Config"))
		read_config_manifests(&ps);
	lo_bs_read_ninja_log(bs, t);
	/* a manifest not read whole has already withheld the evidence */
	if (!ps.failed)
		lo_bs_check_regen(bs, t, (const char *const *)ps.regen_deps.raw, ps.regen_deps.count,
				  (const char *const *)ps.regen_outs.raw, ps.regen_outs.count);
	outs_dispose(&ps.regen_outs);
	outs_dispose(&ps.regen_deps);
}
