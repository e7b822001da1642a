/*
 * scan.c - from trees to verdicts (see scan.h).
 *
 * Two passes: the walk collects the candidates (names the rules select) and
 * the directories it could not enter; then each candidate is read once,
 * given a kind and a host, and its load is played by the resolver. Reading
 * after the walk keeps the walk a pure listing (cheap, and what the
 * benchmark compares with `find`) and lets every library be cached across
 * candidates.
 *
 * A symlink is reported by its target when the target is a file inside a
 * scanned root (once, however many links point at it), and by its own path
 * when the target is outside, dangling or part of a loop.
 *
 * Both passes run on `jobs` threads. The walk hands each worker's finds to
 * its own list; judging takes items by an atomic index and writes each
 * verdict into the item's own slot, so the only shared state is the
 * resolver's cache (locked inside resolve.c) and the hosts (made under
 * `lock` on first use). Anything judge_item calls must be read-only or
 * locked. The result is sorted by path, so output does not depend on
 * scheduling.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/hosts.h"
#include "leftover/error.h"
#include "leftover/map.h"
#include "leftover/resolve.h"
#include "leftover/scan.h"
#include "leftover/walk.h"

/* What the walk found worth a look. */
typedef struct item {
	char *abs;        /* absolute path; owned */
	size_t root;      /* index of the scanned root it is under */
	bool orphan_only; /* not a candidate: listed because the build system disowns it */
	unsigned char type;
	int err;          /* directory that could not be read */
} item;

/* One walk worker's finds. */
typedef struct item_list {
	item *items;
	size_t count, cap;
} item_list;

typedef struct scan {
	const lo_scan_opts *opts;
	const lo_rules *rules;
	lo_scan_result *res;
	lo_resolver *resolver;
	pthread_mutex_t lock;  /* guards the hosts below */
	lo_map *hosts;         /* program path ("" the plain C program) -> host_entry* */
	lo_map *python_by_dir; /* directory -> interpreter path (owned) or NULL */
	char **roots;          /* absolute, owned */
	size_t root_count;
	unsigned jobs;
	item_list *lists;      /* one per walk worker */
	item *items;           /* every root's items, after the walk */
	size_t item_count, item_cap;
	lo_file *judged;       /* one slot per item */
	atomic_size_t next;    /* next item to judge */
	atomic_int failed;     /* first error of a judging worker */
	char failed_msg[1024]; /* and its message */
	const char *root;      /* the root being walked */
	size_t root_index;
	lo_buildsys **bs;      /* per root: its build system model, or NULL */
	char **build_dirs;     /* per root: lo_buildsys_base_of it; owned */
	lo_git **git;          /* per root: the repository holding it, or NULL */
} scan;

const char *lo_kind_str(lo_kind k)
{
	switch (k) {
	case LO_KIND_PYTHON_EXTENSION: return "python-extension";
	case LO_KIND_SHARED_LIBRARY: return "shared-library";
	case LO_KIND_OTHER: return "other";
	}
	return "other";
}

const char *lo_verdict_str(lo_verdict v)
{
	switch (v) {
	case LO_VERDICT_OK: return "ok";
	case LO_VERDICT_BROKEN: return "broken";
	case LO_VERDICT_STALE: return "stale";
	case LO_VERDICT_UNREADABLE: return "unreadable";
	case LO_VERDICT_SKIPPED: return "skipped";
	case LO_VERDICT_UNJUDGED: return "unjudged";
	}
	return "unknown";
}

bool lo_verdict_is_finding(lo_verdict v)
{
	return v == LO_VERDICT_BROKEN || v == LO_VERDICT_STALE || v == LO_VERDICT_UNREADABLE ||
	       v == LO_VERDICT_UNJUDGED;
}

static char *dup_or_null(const char *s)
{
	return s ? lo_xstrdup(s) : NULL;
}

lo_reason *lo_file_add_reason(lo_file *f, const char *kind, const char *symbol,
			      const char *version, const char *library, const char *object,
			      const char *detail)
{
	lo_reason *r;

	lo_array_grow(&f->reasons, &f->reason_cap, f->reason_count + 1, sizeof(*r));
	r = &f->reasons[f->reason_count++];
	r->kind = lo_xstrdup(kind);
	r->symbol = dup_or_null(symbol);
	r->version = dup_or_null(version);
	r->library = dup_or_null(library);
	r->object = dup_or_null(object);
	r->detail = dup_or_null(detail);
	r->evidence = NULL;
	return r;
}

/* A host program as the scan knows it: set up once, or failed once. */
typedef struct host_entry {
	lo_host *host;
	lo_hosts_program *program; /* what runs, and what it said about itself; NULL for C */
	char *error; /* why it cannot be used, or NULL */
} host_entry;

static void host_entry_free(void *p)
{
	host_entry *he = p;

	lo_host_free(he->host);
	lo_hosts_program_free(he->program);
	free(he->error);
	free(he);
}

static void file_dispose(lo_file *f)
{
	size_t j;

	for (j = 0; j < f->reason_count; j++) {
		lo_reason *r = &f->reasons[j];

		free(r->kind);
		free(r->symbol);
		free(r->version);
		free(r->library);
		free(r->object);
		free(r->detail);
		free(r->evidence);
	}
	free(f->reasons);
	free(f->path);
	free(f->target);
	free(f->host);
}

void lo_scan_result_free(lo_scan_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->file_count; i++)
		file_dispose(&res->files[i]);
	free(res->files);
	for (i = 0; i < res->note_count; i++)
		free(res->notes[i]);
	free(res->notes);
	for (i = 0; i < res->root_count; i++)
		free(res->roots[i]);
	free(res->roots);
	for (i = 0; i < res->origin_count; i++) {
		lo_scan_origin *o = &res->origins[i];

		free(o->build);
		free(o->source);
		free(o->commit);
		free(o->branch);
		free(o->last_commit);
		free(o->last_branch);
		free(o->last_time);
	}
	free(res->origins);
	free(res->root);
	free(res);
}

/* ---- hosts --------------------------------------------------------------- */

static void add_note(lo_scan_result *res, char *line)
{
	lo_array_grow(&res->notes, &res->note_cap, res->note_count + 1, sizeof(char *));
	res->notes[res->note_count++] = line;
}

/*
 * Set up he for `program` (NULL: a plain C program): the program that
 * really runs (a shim is asked, hosts.h; the report says so) and its
 * global scope. Once per program and scan: the caller keeps he.
 */
static int host_entry_setup(scan *s, host_entry *he, const char *program, const char *family)
{
	int err;

	if (!program)
		return lo_host_new(&he->host, s->resolver, NULL);
	if ((err = lo_hosts_program_new(&he->program, program, family)) < 0)
		return err;
	if ((err = lo_host_new(&he->host, s->resolver, he->program->path)) == 0 && he->program->how)
		add_note(s->res, lo_xstrdup(he->program->how));
	return err;
}

/*
 * The host for `program` (NULL: a plain C program), set up on first use and
 * kept, failure included: a shim that hangs is asked once, a failure is
 * said once in the notes, and every file that needs the host gets its
 * message, with `hint` (what the user can do) appended.
 */
static int host_lookup_locked(scan *s, const char *program, const char *family, const char *hint,
			      const host_entry **out)
{
	host_entry *he = lo_map_get(s->hosts, program ? program : "", NULL);

	if (!he) {
		int err;

		he = lo_xcalloc(1, sizeof(*he));
		err = host_entry_setup(s, he, program, family);
		if (err < 0) {
			if (asprintf(&he->error, "%s%s", lo_error_last(), hint) < 0)
				abort();
			lo_error_set(err, "%s; the files it would load are unjudged", he->error);
			add_note(s->res, lo_xstrdup(lo_error_last()));
		}
		lo_map_put(s->hosts, program ? program : "", he);
	}
	*out = he;
	return he->error ? lo_error_set(LO_EINVALID, "%s", he->error) : 0;
}

/*
 * The host for a candidate of `kind` in directory `dir`. The interpreter is
 * looked up from the module's own directory up, so that a scan of a parent
 * of several build trees takes each tree's CMakeCache.txt; the answer is
 * kept per directory.
 */
static int host_get_locked(scan *s, lo_kind kind, const char *dir, const host_entry **out)
{
	char *program;
	bool known;

	*out = NULL;
	if (kind != LO_KIND_PYTHON_EXTENSION)
		return host_lookup_locked(s, s->opts ? s->opts->host : NULL, NULL,
					  " (the program named with --host)", out);
	program = lo_map_get(s->python_by_dir, dir, &known);
	if (!known) {
		program = lo_hosts_python_for(s->opts ? s->opts->python : NULL, dir);
		lo_map_put(s->python_by_dir, dir, program);
	}
	if (!program)
		return lo_error_set(LO_ENOTFOUND, "no Python interpreter for the extension modules "
				    "in '%s': none in a CMakeCache.txt above it, none on PATH; name "
				    "one with --python", dir);
	return host_lookup_locked(s, program, "python", "; name the interpreter with --python",
				  out);
}

/* The host for a program a [host] rule names, kept with the others by path. */
static int host_get_program(scan *s, const char *program, const char *name,
			    const host_entry **out)
{
	char *hint = NULL;
	int err;

	if (asprintf(&hint, " (the program of [host \"%s\"] in the rules; 'leftover rules "
		     "--show-origin' says where it is set, --python or --host replace it)", name) < 0)
		abort();
	pthread_mutex_lock(&s->lock);
	err = host_lookup_locked(s, program, NULL, hint, out);
	pthread_mutex_unlock(&s->lock);
	free(hint);
	return err;
}

static int host_get(scan *s, lo_kind kind, const char *dir, const host_entry **out)
{
	int err;

	pthread_mutex_lock(&s->lock);
	err = host_get_locked(s, kind, dir, out);
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* ---- the walk -------------------------------------------------------------- */

static void add_item(scan *s, unsigned worker, const char *rel, unsigned char type, int err)
{
	item_list *l = &s->lists[worker];
	item *it;

	lo_array_grow(&l->items, &l->cap, l->count + 1, sizeof(*it));
	it = &l->items[l->count++];
	it->abs = NULL;
	if (asprintf(&it->abs, "%s/%s", s->root, rel) < 0)
		abort();
	it->root = s->root_index;
	it->orphan_only = false;
	it->type = type;
	it->err = err;
}

static int on_entry(const lo_walk_entry *e, void *payload)
{
	scan *s = payload;

	if (e->err)
		add_item(s, e->worker, e->relpath, e->type, e->err);
	else if (lo_rules_is_candidate(s->rules, e->relpath))
		add_item(s, e->worker, e->relpath, e->type, 0);
	return 0;
}

/* Move the walk workers' finds into s->items. */
static void gather_items(scan *s)
{
	unsigned w;

	for (w = 0; w < s->jobs; w++) {
		item_list *l = &s->lists[w];

		lo_array_grow(&s->items, &s->item_cap, s->item_count + l->count, sizeof(item));
		/* A worker that found nothing has no array: memcpy from NULL is UB (UBSan). */
		if (l->count)
			memcpy(s->items + s->item_count, l->items, l->count * sizeof(item));
		s->item_count += l->count;
		l->count = 0;
	}
}

/* ---- judging one file ---------------------------------------------------- */

/* Start the verdict on `abs` in its slot. */
static lo_file *new_file(scan *s, lo_file *f, const char *abs)
{
	const lo_scan_result *res = s->res;
	size_t rlen = strlen(res->root);

	memset(f, 0, sizeof(*f));
	if (!strncmp(abs, res->root, rlen) && abs[rlen] == '/')
		f->path = lo_xstrdup(abs + rlen + 1);
	else if (!strcmp(res->root, "/"))
		f->path = lo_xstrdup(abs + 1);
	else
		f->path = lo_xstrdup(abs);
	f->kind = LO_KIND_OTHER;
	f->loads = LO_UNKNOWN;
	f->orphan = LO_UNKNOWN;
	f->tracked = LO_UNKNOWN;
	f->verdict = LO_VERDICT_OK;
	return f;
}

static bool under_roots(const scan *s, const char *abs)
{
	size_t i;

	for (i = 0; i < s->root_count; i++) {
		size_t n = strlen(s->roots[i]);

		if (!strncmp(abs, s->roots[i], n) && (abs[n] == '/' || !strcmp(s->roots[i], "/")))
			return true;
	}
	return false;
}

/*
 * A path as reasons show it: relative to the result's root when inside a
 * scanned root, as every file's path is; absolute elsewhere, also under the
 * common root of two scanned dirs (/usr/lib for /usr/lib/python3/... and
 * /usr/lib/python3.11/...), where a relative path would pass a system
 * library off as a file of the scan.
 */
static const char *rel_to_root(const scan *s, const char *abs)
{
	size_t rlen = strlen(s->res->root);

	if (abs && under_roots(s, abs) && !strncmp(abs, s->res->root, rlen) && abs[rlen] == '/')
		return abs + rlen + 1;
	return abs;
}

/* CPython's extension suffixes: .cpython-311-x86_64-linux-gnu.so, .abi3.so, .pyd. */
static bool python_suffix(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 4 && !strcmp(base + n - 4, ".pyd"))
		return true;
	if (n > 8 && !strcmp(base + n - 8, ".abi3.so"))
		return true;
	return strstr(base, ".cpython-") != NULL && n > 3 && !strcmp(base + n - 3, ".so");
}

/*
 * CPython imports `name.<suffix>` by calling PyInit_<name>, name being the
 * file name up to its first dot: a module without a CPython suffix (a plain
 * `_foo.so`) is still known by that export.
 */
static bool python_init_export(const lo_elf *e, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, ".");
	char sym[NAME_MAX + 8];

	if (!lo_elf_is_native(e) || n == 0 || n > NAME_MAX)
		return false;
	snprintf(sym, sizeof(sym), "PyInit_%.*s", (int)n, base);
	return lo_elf_exports(e, sym);
}

lo_kind lo_scan_kind_of(const lo_elf *e, const char *path)
{
	if (lo_elf_type(e) != ET_DYN || lo_elf_is_pie(e))
		return LO_KIND_OTHER;
	if (python_suffix(path) || python_init_export(e, path))
		return LO_KIND_PYTHON_EXTENSION;
	return LO_KIND_SHARED_LIBRARY;
}

static bool is_linker_script(const char *abs)
{
	char head[256];
	ssize_t n;
	int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n <= 0)
		return false;
	head[n] = '\0';
	return strstr(head, "GNU ld script") || strstr(head, "INPUT(") || strstr(head, "GROUP(");
}

/*
 * The module name CPython imports a file under: its name up to the first
 * dot, when that is an ASCII identifier (other names go through PyInitU_
 * and punycode, which is not modelled); 0 otherwise.
 */
static size_t python_module_name(const char *base)
{
	size_t i, n = strcspn(base, ".");

	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)base[i]) || base[i] == '_') ||
		    (i == 0 && isdigit((unsigned char)base[i])))
			return 0;
	return n;
}

/*
 * CPython's import takes a file only under the module name followed by one
 * of the interpreter's EXTENSION_SUFFIXES: a .cpython-312 module next to a
 * 3.11 interpreter, or an i386 one next to an x86-64 interpreter, is never
 * loaded by it. Such a file is skipped with reason other-interpreter, and
 * no load is played. Returns true when it is one.
 */
static bool python_never_imported(lo_file *f, const char *base, size_t n,
				  const lo_hosts_program *py)
{
	lo_buf why = LO_BUF_INIT;
	size_t i;

	if (!py || !py->suffixes || !py->suffixes[0])
		return false;
	for (i = 0; py->suffixes[i]; i++)
		if (!strcmp(base + n, py->suffixes[i]))
			return false;
	lo_buf_printf(&why, "%s imports '%.*s' from %.*s%s", py->path, (int)n, base, (int)n, base,
		      py->suffixes[0]);
	for (i = 1; py->suffixes[i]; i++)
		lo_buf_printf(&why, "%s%.*s%s", py->suffixes[i + 1] ? ", " : " or ", (int)n, base,
			      py->suffixes[i]);
	lo_buf_puts(&why, " only: it never loads this file");
	f->verdict = LO_VERDICT_SKIPPED;
	lo_file_add_reason(f, "other-interpreter", NULL, NULL, NULL, NULL, lo_buf_cstr(&why));
	lo_buf_dispose(&why);
	return true;
}

/*
 * Once a module loads, CPython calls PyInit_<name>; without that export the
 * import fails all the same.
 */
static void python_init_check(lo_file *f, const lo_elf *e, const char *base, size_t n)
{
	char sym[NAME_MAX + 8], *why = NULL;

	snprintf(sym, sizeof(sym), "PyInit_%.*s", (int)n, base);
	if (lo_elf_exports(e, sym))
		return;
	/* CPython's own words, as the ImportError says them */
	if (asprintf(&why, "dynamic module does not define module export function (%s)", sym) < 0)
		abort();
	lo_file_add_reason(f, "no-module-init", sym, NULL, NULL, NULL, why);
	free(why);
	f->loads = LO_FALSE;
	f->verdict = LO_VERDICT_BROKEN;
}

/* Play the load of the file at abs from `host` and record what fails. */
static void judge_load(scan *s, lo_file *f, const char *abs, const lo_host *host)
{
	const char *changed;
	lo_load *load;
	size_t i, waived = 0;

	lo_load_simulate(&load, s->resolver, host, abs, 0, NULL, NULL);
	/* a change under the scan only ever makes a load fail (elf.h) */
	if (!lo_load_ok(load) && (changed = lo_load_changed(load))) {
		char *why = NULL;

		if (asprintf(&why, "'%s' changed while the scan read it (rewritten in place by "
			     "another process?); scan again", rel_to_root(s, changed)) < 0)
			abort();
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, "changed", NULL, NULL, NULL, rel_to_root(s, changed), why);
		free(why);
		lo_load_free(load);
		return;
	}
	for (i = 0; i < lo_load_problem_count(load); i++) {
		const lo_problem *p = lo_load_problem_at(load, i);

		/* symbols the rules say the host provides, or that never matter */
		if (p->kind == LO_PROBLEM_UNDEFINED_SYMBOL && p->symbol &&
		    (lo_rules_symbol_ignored(s->rules, p->symbol) ||
		     lo_rules_symbol_provided(s->rules, f->path, p->symbol))) {
			waived++;
			continue;
		}
		lo_file_add_reason(f, lo_problem_kind_str(p->kind), p->symbol, p->version,
				   p->library ? rel_to_root(s, p->library) : NULL,
				   rel_to_root(s, p->object), p->detail);
	}
	f->loads = lo_load_ok(load) || (waived && !f->reason_count) ? LO_TRUE : LO_FALSE;
	f->verdict = f->loads == LO_TRUE ? LO_VERDICT_OK : LO_VERDICT_BROKEN;
	lo_load_free(load);
}

static int judge_elf(scan *s, lo_file *f, const char *abs)
{
	const lo_elf *e;
	const host_entry *he = NULL;
	const char *ruled, *base;
	size_t n;
	bool given;
	int err = lo_resolver_read(s->resolver, abs, &e);

	if (err == LO_ENOTELF) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL,
				   is_linker_script(abs) ? "a GNU ld script, read by the linker only"
							 : "not an ELF object");
		return 0;
	}
	if (err < 0) {
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, "unreadable", NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->kind = lo_scan_kind_of(e, abs);
	if (f->kind == LO_KIND_OTHER) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-loadable", NULL, NULL, NULL, NULL,
				   lo_elf_type(e) == ET_REL ? "a relocatable object, not a shared object"
							    : "an executable, which dlopen refuses");
		return 0;
	}
	/* A [host] rule names the program, unless --python or --host did. */
	ruled = lo_rules_host_for(s->rules, f->path);
	given = s->opts && (f->kind == LO_KIND_PYTHON_EXTENSION ? s->opts->python : s->opts->host);
	if (ruled && !given) {
		err = host_get_program(s, ruled, lo_rules_host_name_for(s->rules, f->path), &he);
	} else {
		char *dir = lo_xstrndup(abs, (size_t)(strrchr(abs, '/') - abs));

		err = host_get(s, f->kind, dir, &he);
		free(dir);
	}
	if (err < 0) {
		/* one unusable host costs only the files that need it */
		f->verdict = LO_VERDICT_UNJUDGED;
		lo_file_add_reason(f, "no-host", NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	if (f->kind == LO_KIND_PYTHON_EXTENSION || (s->opts && s->opts->host) || (ruled && !given))
		f->host = lo_xstrdup(lo_host_name(he->host));
	/* what CPython checks besides the load, for a file named as its extensions are */
	base = strrchr(abs, '/') + 1;
	n = f->kind == LO_KIND_PYTHON_EXTENSION && python_suffix(abs) ? python_module_name(base) : 0;
	if (n && python_never_imported(f, base, n, he->program))
		return 0;
	judge_load(s, f, abs, he->host);
	if (n && f->loads == LO_TRUE)
		python_init_check(f, e, base, n);
	return 0;
}

static int judge_link(scan *s, lo_file *slot, const item *it)
{
	char *target = realpath(it->abs, NULL);
	struct stat st;
	lo_file *f;
	int err;

	if (!target) {
		char buf[PATH_MAX];
		ssize_t n = readlink(it->abs, buf, sizeof(buf) - 1);
		int why = errno;

		f = new_file(s, slot, it->abs);
		buf[n > 0 ? n : 0] = '\0';
		f->target = lo_xstrdup(buf);
		f->loads = LO_FALSE;
		f->verdict = LO_VERDICT_BROKEN;
		lo_file_add_reason(f, why == ELOOP ? "symlink-loop" : "dangling-symlink", NULL, NULL,
				   NULL, NULL,
				   why == ELOOP ? "too many levels of symbolic links"
						: "the link points to nothing");
		return 0;
	}
	if (under_roots(s, target)) {
		/* reported by its target; duplicates are dropped after sorting */
		f = new_file(s, slot, target);
	} else {
		f = new_file(s, slot, it->abs);
		f->target = lo_xstrdup(target);
	}
	if (stat(target, &st) < 0 || !S_ISREG(st.st_mode)) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL, "not a regular file");
		free(target);
		return 0;
	}
	err = judge_elf(s, f, under_roots(s, target) ? target : it->abs);
	free(target);
	return err;
}

/* Judge one item into `slot`; a slot left with a NULL path holds nothing. */
static int judge_item(scan *s, lo_file *slot, const item *it)
{
	lo_file *f;

	if (it->err) {
		f = new_file(s, slot, it->abs);
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, "unreadable", NULL, NULL, NULL, NULL, strerror(it->err));
		return 0;
	}
	if (it->type == DT_LNK)
		return judge_link(s, slot, it);
	f = new_file(s, slot, it->abs);
	if (it->type != DT_REG) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL, "not a regular file");
		return 0;
	}
	return judge_elf(s, f, it->abs);
}

/*
 * A module that does not load because it binds to a library the tree has
 * superseded (lo_buildsys_superseded): the cause, named as a reason.
 */
static void name_superseded(scan *s, lo_file *f, const lo_buildsys *bs, const char *abs)
{
	const lo_elf *e;
	size_t i;

	if (f->verdict != LO_VERDICT_BROKEN || lo_resolver_read(s->resolver, abs, &e) < 0)
		return;
	for (i = 0; i < lo_elf_needed_count(e); i++) {
		const char *lib = lo_buildsys_superseded(bs, lo_elf_needed(e, i));
		char *at = NULL, *why = NULL;

		if (!lib)
			continue;
		if (asprintf(&at, "%s/%s", lo_buildsys_base(bs), lib) < 0 ||
		    asprintf(&why, "needs %s, a library the tree has superseded (%s)",
			     lo_elf_needed(e, i), rel_to_root(s, at)) < 0)
			abort();
		lo_file_add_reason(f, "superseded-library", NULL, NULL, lo_elf_needed(e, i),
				   rel_to_root(s, at), why)->evidence = lo_xstrdup("superseded-library");
		free(why);
		free(at);
	}
}

/*
 * What the records say of the file in `f`: git, whether it is tracked; the
 * build system, whether it is still produced, an orphan (then the verdict
 * is stale, whether or not it loads), or unknown.
 */
static void judge_records(scan *s, lo_file *f, const item *it)
{
	const lo_buildsys *bs = s->bs ? s->bs[it->root] : NULL;
	const char *root = bs ? s->build_dirs[it->root] : s->roots[it->root];
	size_t rlen = strlen(root);
	lo_orphan_verdict v;
	lo_reason *r;
	char *abs;

	if (!f->path || (!bs && !s->git[it->root]))
		return;
	/* f->path is relative to the result's root, or absolute outside it */
	if (f->path[0] == '/')
		abs = lo_xstrdup(f->path);
	else if (asprintf(&abs, "%s%s%s", s->res->root, strcmp(s->res->root, "/") ? "/" : "",
			  f->path) < 0)
		abort();
	if (s->git[it->root])
		f->tracked = lo_git_tracks(s->git[it->root], abs) ? LO_TRUE : LO_FALSE;
	if (!bs || strncmp(abs, root, rlen) || abs[rlen] != '/') {
		free(abs);
		return;
	}
	lo_buildsys_judge(bs, abs + rlen + 1, &v);
	name_superseded(s, f, bs, abs);
	free(abs);
	if (v.orphan < 0)
		return;
	f->orphan = v.orphan ? LO_TRUE : LO_FALSE;
	if (!v.orphan)
		return;
	if (f->verdict != LO_VERDICT_UNREADABLE)
		f->verdict = LO_VERDICT_STALE;
	r = lo_file_add_reason(f, "orphan", NULL, NULL, NULL, NULL, v.detail);
	r->evidence = lo_xstrdup(lo_orphan_evidence_str(v.evidence));
}

/* A file listed only because the build system disowns it: any type. */
static void judge_orphan_only(scan *s, lo_file *slot, const item *it)
{
	new_file(s, slot, it->abs);
	slot->verdict = LO_VERDICT_OK;
}

static void *judge_worker(void *arg)
{
	scan *s = arg;
	size_t i;

	while ((i = atomic_fetch_add(&s->next, 1)) < s->item_count) {
		int err;

		if (atomic_load(&s->failed))
			break;
		if (s->items[i].orphan_only)
			judge_orphan_only(s, &s->judged[i], &s->items[i]);
		else if ((err = judge_item(s, &s->judged[i], &s->items[i])) < 0) {
			int none = 0;

			/* the first failure's message is the one reported; messages are per thread */
			if (atomic_compare_exchange_strong(&s->failed, &none, err))
				snprintf(s->failed_msg, sizeof(s->failed_msg), "%s", lo_error_last());
			break;
		}
		judge_records(s, &s->judged[i], &s->items[i]);
	}
	return NULL;
}

/* Judge every item on s->jobs threads; returns the first error. */
static int judge_all(scan *s)
{
	pthread_t *threads = lo_xcalloc(s->jobs, sizeof(pthread_t));
	unsigned i, started = 0;

	s->judged = lo_xcalloc(s->item_count ? s->item_count : 1, sizeof(lo_file));
	atomic_store(&s->next, 0);
	atomic_store(&s->failed, 0);
	for (i = 1; i < s->jobs; i++)
		if (pthread_create(&threads[started], NULL, judge_worker, s) == 0)
			started++;
	judge_worker(s);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	if (atomic_load(&s->failed))
		return lo_error_set(atomic_load(&s->failed), "%s", s->failed_msg);
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const lo_file *)a)->path, ((const lo_file *)b)->path);
}

/* Move the judged slots into the result, sorted, each path once. */
static void collect_files(scan *s)
{
	lo_scan_result *res = s->res;
	size_t i, n = 0;

	for (i = 0; i < s->item_count; i++) {
		lo_file *f = &s->judged[i];

		if (!f->path)
			continue;
		lo_array_grow(&res->files, &res->file_cap, res->file_count + 1, sizeof(lo_file));
		res->files[res->file_count++] = *f;
		memset(f, 0, sizeof(*f));
	}
	if (!res->file_count)
		return; /* qsort of a NULL array is undefined, even of none (UBSan) */
	qsort(res->files, res->file_count, sizeof(lo_file), cmp_file);
	for (i = 0; i < res->file_count; i++) {
		if (n && !strcmp(res->files[n - 1].path, res->files[i].path)) {
			/* the same file reached through a link and by the walk */
			file_dispose(&res->files[i]);
			continue;
		}
		res->files[n++] = res->files[i];
	}
	res->file_count = n;
}
unsigned lo_file_rule_states(const lo_file *f)
{
	unsigned on = 0;

	if (f->verdict == LO_VERDICT_BROKEN || f->verdict == LO_VERDICT_UNREADABLE)
		on |= LO_RULES_ON_BROKEN;
	if (f->verdict == LO_VERDICT_STALE)
		on |= LO_RULES_ON_STALE;
	if (f->verdict == LO_VERDICT_UNJUDGED)
		on |= LO_RULES_ON_UNJUDGED;
	if (f->orphan == LO_TRUE)
		on |= LO_RULES_ON_ORPHAN;
	return on;
}

/* The sentence a [rule] gives a finding (why such a file goes stale), as a reason "rule". */
static void add_rule_reasons(scan *s)
{
	size_t i;

	for (i = 0; i < s->res->file_count; i++) {
		lo_file *f = &s->res->files[i];
		unsigned on = lo_file_rule_states(f);
		const lo_rule *ru = on ? lo_rules_rule_for(s->rules, f->path, on) : NULL;

		if (ru && ru->reason)
			lo_file_add_reason(f, "rule", NULL, NULL, NULL, NULL, ru->reason);
	}
}

/*
 * Orphans the rules did not make candidates (a stale .py, a header, data)
 * are listed too; orphaned bookkeeping (objects, CMakeFiles/) only with
 * --all, counted otherwise.
 */
static void add_orphan_items(scan *s, size_t root)
{
	const lo_buildsys *bs = s->bs[root];
	const char *n, *build = s->build_dirs[root];
	/* the scanned root below the build dir, "" or "sub/": orphans elsewhere are not asked for */
	const char *below = s->roots[root] + strlen(build);
	size_t blen = *below ? strlen(below) : 0, i;

	for (i = 0; (n = lo_buildsys_note(bs, i)); i++) {
		lo_scan_result *res = s->res;

		lo_array_grow(&res->notes, &res->note_cap, res->note_count + 1, sizeof(char *));
		if (asprintf(&res->notes[res->note_count++], "%s: %s", s->roots[root], n) < 0)
			abort();
	}
	for (i = 0; i < lo_buildsys_orphan_count(bs); i++) {
		const char *rel = lo_buildsys_orphan_at(bs, i);
		item *it;

		if (blen && (strncmp(rel, below + 1, blen - 1) || rel[blen - 1] != '/'))
			continue;
		rel += blen; /* now relative to the scanned root */
		if (lo_rules_is_candidate(s->rules, rel))
			continue; /* the walk has it */
		if (lo_buildsys_is_bookkeeping(rel) && !(s->opts && s->opts->all)) {
			s->res->summary.bookkeeping++;
			continue;
		}
		lo_array_grow(&s->items, &s->item_cap, s->item_count + 1, sizeof(item));
		it = &s->items[s->item_count++];
		it->abs = NULL;
		if (asprintf(&it->abs, "%s/%s", s->roots[root], rel) < 0)
			abort();
		it->root = root;
		it->orphan_only = true;
		it->type = DT_REG;
		it->err = 0;
	}
}

static char *short_id(const char *commit)
{
	return lo_xstrndup(commit ? commit : "", 7);
}

/*
 * From a state.json: the last commit other than `head` that a scan saw (the
 * record's own when it differs, else its "previous"), each field owned or NULL.
 */
static void read_state(const char *file, const char *head, char **commit, char **branch,
		       char **when)
{
	json_t *state = json_load_file(file, 0, NULL), *last = state;

	*commit = *branch = *when = NULL;
	if (!state)
		return;
	if (head && json_is_string(json_object_get(state, "commit")) &&
	    !strcmp(json_string_value(json_object_get(state, "commit")), head))
		last = json_object_get(state, "previous");
	if (json_is_object(last)) {
		const char *c = json_string_value(json_object_get(last, "commit"));
		const char *b = json_string_value(json_object_get(last, "branch"));
		const char *w = json_string_value(json_object_get(last, "time"));

		*commit = c ? lo_xstrdup(c) : NULL;
		*branch = b ? lo_xstrdup(b) : NULL;
		*when = w ? lo_xstrdup(w) : NULL;
	}
	json_decref(state);
}

char *lo_scan_built_at(const char *build_dir, const char *head, char **branch)
{
	lo_buf path = LO_BUF_INIT;
	char *commit, *when;

	lo_buf_printf(&path, "%s/.leftover/state.json", build_dir);
	read_state(lo_buf_cstr(&path), head, &commit, branch, &when);
	free(when);
	lo_buf_dispose(&path);
	return commit;
}

/* When the oldest candidate of root `root` was written, 0 when there is none. */
static time_t oldest_item_mtime(const scan *s, size_t root)
{
	time_t oldest = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < s->item_count; i++)
		if (s->items[i].root == root && lstat(s->items[i].abs, &st) == 0 &&
		    (!oldest || st.st_mtime < oldest))
			oldest = st.st_mtime;
	return oldest;
}

/*
 * The source tree's HEAD for a build tree, against what the previous scan
 * recorded in BUILD/.leftover/state.json; then this scan's record, written
 * to a temporary file and renamed so a reader never sees half of it.
 */
static void record_origin(scan *s, size_t root)
{
	const char *build = s->build_dirs[root] ? s->build_dirs[root] : s->roots[root];
	char *source = s->opts && s->opts->source ? realpath(s->opts->source, NULL) : NULL;
	lo_scan_origin *o;
	lo_git *g = NULL;
	json_t *now;
	lo_buf path = LO_BUF_INIT, tmp = LO_BUF_INIT;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;
	char *config;

	if (!source && !(source = lo_buildsys_cache_value(build, "CMAKE_HOME_DIRECTORY")))
		return; /* not a build tree we know the source of */
	o = &s->res->origins[s->res->origin_count++];
	o->build = lo_xstrdup(build);
	o->source = source;
	if (lo_git_open(&g, source) < 0 || !g) {
		if (asprintf(&source, "%s: no git repository at the source '%s'; the git parts are "
			     "left out", build, o->source) >= 0)
			add_note(s->res, source);
	} else {
		o->commit = lo_xstrdup(lo_git_commit(g));
		o->branch = lo_xstrdup(lo_git_branch(g));
		o->dirty = lo_git_dirty(g);
	}
	/*
	 * The record keeps this scan's commit and, under "previous", the last
	 * other commit a scan saw: the branch the tree was built at before the
	 * switch stays known however often the tree is scanned after it.
	 */
	lo_buf_printf(&path, "%s/.leftover/state.json", build);
	read_state(lo_buf_cstr(&path), o->commit, &o->last_commit, &o->last_branch, &o->last_time);
	/* no scan saw it yet: where HEAD was, by git's reflog, when its oldest file was written */
	if (o->commit && !o->last_commit && (t = oldest_item_mtime(s, root)) &&
	    lo_git_head_at(g, t, &o->last_commit, &o->last_branch) == 0 && o->last_commit &&
	    !strcmp(o->last_commit, o->commit)) {
		free(o->last_commit);
		free(o->last_branch);
		o->last_commit = o->last_branch = NULL;
	}
	t = time(NULL);
	if (o->commit && o->last_commit && strcmp(o->commit, o->last_commit)) {
		char *was = short_id(o->last_commit), *is = short_id(o->commit), *line;

		if (asprintf(&line, "%s: built at branch %s (%s), now on branch %s (%s)%s", build,
			     o->last_branch && *o->last_branch ? o->last_branch : "(detached)", was,
			     *o->branch ? o->branch : "(detached)", is,
			     o->dirty ? ", with uncommitted changes" : "") >= 0)
			add_note(s->res, line);
		free(was);
		free(is);
	}
	if (!o->commit)
		goto out;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	config = lo_buildsys_cache_value(build, "CMAKE_BUILD_TYPE");
	now = json_pack("{s:s, s:s, s:s, s:s}", "commit", o->commit, "branch", o->branch,
			"time", when, "configuration", config ? config : "");
	free(config);
	if (now && o->last_commit)
		json_object_set_new(now, "previous",
				    json_pack("{s:s, s:s, s:s}", "commit", o->last_commit, "branch",
					      o->last_branch ? o->last_branch : "", "time",
					      o->last_time ? o->last_time : ""));
	lo_buf_printf(&tmp, "%s/.leftover", build);
	mkdir(lo_buf_cstr(&tmp), 0777);
	lo_buf_printf(&tmp, "/state.json.%ld", (long)getpid());
	if (now && json_dump_file(now, lo_buf_cstr(&tmp), JSON_INDENT(1)) == 0)
		rename(lo_buf_cstr(&tmp), lo_buf_cstr(&path));
	else
		unlink(lo_buf_cstr(&tmp));
	json_decref(now);
out:
	lo_git_free(g);
	lo_buf_dispose(&path);
	lo_buf_dispose(&tmp);
}

/* The deepest directory containing every root. */
static char *common_root(char *const *roots, size_t n)
{
	size_t len = strlen(roots[0]), i;

	for (i = 1; i < n; i++) {
		size_t j = 0;

		while (j < len && roots[i][j] == roots[0][j])
			j++;
		if (j < len || (roots[i][j] != '/' && roots[i][j] != '\0')) {
			while (j > 0 && roots[0][j] != '/')
				j--;
			len = j;
		}
	}
	return len ? lo_xstrndup(roots[0], len) : lo_xstrdup("/");
}

static void scan_dispose(scan *s)
{
	size_t i;
	unsigned w;

	for (i = 0; i < s->item_count; i++) {
		free(s->items[i].abs);
		if (s->judged)
			file_dispose(&s->judged[i]);
	}
	free(s->items);
	free(s->judged);
	for (w = 0; s->lists && w < s->jobs; w++) {
		for (i = 0; i < s->lists[w].count; i++)
			free(s->lists[w].items[i].abs);
		free(s->lists[w].items);
	}
	free(s->lists);
	for (i = 0; i < s->root_count; i++)
		free(s->roots[i]);
	free(s->roots);
	lo_map_free(s->hosts, host_entry_free);
	lo_map_free(s->python_by_dir, free);
	lo_resolver_free(s->resolver);
	for (i = 0; s->bs && i < s->root_count; i++)
		lo_buildsys_free(s->bs[i]);
	free(s->bs);
	for (i = 0; s->build_dirs && i < s->root_count; i++)
		free(s->build_dirs[i]);
	free(s->build_dirs);
	for (i = 0; s->git && i < s->root_count; i++)
		lo_git_free(s->git[i]);
	free(s->git);
	pthread_mutex_destroy(&s->lock);
}

int lo_scan_run(lo_scan_result **out, const char *const *roots, size_t root_count,
		const lo_scan_opts *opts)
{
	scan s;
	lo_rules *own_rules = NULL;
	lo_resolver_opts ropts;
	size_t i;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int err = 0;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.lock, NULL);
	s.opts = opts;
	s.jobs = opts && opts->jobs ? opts->jobs : cores > 0 ? (unsigned)cores : 1;
	if (!root_count) {
		err = lo_error_set(LO_EUSAGE, "no directory to scan");
		goto out;
	}
	s.roots = lo_xcalloc(root_count, sizeof(char *));
	for (i = 0; i < root_count; i++) {
		struct stat st;

		if (!(s.roots[i] = realpath(roots[i], NULL))) {
			err = lo_error_set_errno(LO_ERROR, errno, "cannot scan '%s'", roots[i]);
			goto out;
		}
		s.root_count++;
		if (stat(s.roots[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			err = lo_error_set(LO_ERROR, "cannot scan '%s': not a directory", roots[i]);
			goto out;
		}
	}
	if (opts && opts->rules) {
		s.rules = opts->rules;
	} else {
		if ((err = lo_rules_load_tree(&own_rules, s.roots[0], NULL, 0)) < 0)
			goto out;
		s.rules = own_rules;
	}
	memset(&ropts, 0, sizeof(ropts));
	if (opts) {
		ropts.library_path = opts->library_path;
		ropts.library_path_count = opts->library_path_count;
	}
	lo_resolver_new(&s.resolver, &ropts);
	s.hosts = lo_map_new();
	s.python_by_dir = lo_map_new();
	s.lists = lo_xcalloc(s.jobs, sizeof(item_list));
	s.res = lo_xcalloc(1, sizeof(*s.res));
	s.res->root = common_root(s.roots, s.root_count);
	s.res->roots = lo_xcalloc(s.root_count, sizeof(char *));
	for (i = 0; i < s.root_count; i++)
		s.res->roots[s.res->root_count++] = lo_xstrdup(s.roots[i]);

	s.bs = lo_xcalloc(s.root_count, sizeof(lo_buildsys *));
	s.build_dirs = lo_xcalloc(s.root_count, sizeof(char *));
	s.git = lo_xcalloc(s.root_count, sizeof(lo_git *));
	s.res->origins = lo_xcalloc(s.root_count, sizeof(lo_scan_origin));
	for (i = 0; i < s.root_count; i++) {
		s.root = s.roots[i];
		s.root_index = i;
		if ((err = lo_walk_tree(s.root, s.jobs, on_entry, &s)) < 0)
			goto out;
		gather_items(&s);
		/* a scan of build/python_packages is judged by build/'s records */
		s.build_dirs[i] = lo_buildsys_base_of(s.root);
		if (s.build_dirs[i]) {
			if ((err = lo_buildsys_open(&s.bs[i], s.root,
						    opts && opts->reconfigure
							    ? LO_BUILDSYS_RECONFIGURE : 0)) < 0)
				goto out;
			if (s.bs[i])
				add_orphan_items(&s, i);
		}
		lo_git_open(&s.git[i], s.root);
		record_origin(&s, i);
	}
	if ((err = judge_all(&s)) < 0)
		goto out;
	collect_files(&s);
	add_rule_reasons(&s);
	for (i = 0; i < s.res->file_count; i++)
		s.res->summary.by_verdict[s.res->files[i].verdict]++;
	s.res->summary.files = s.res->file_count;
	*out = s.res;
	s.res = NULL;
out:
	lo_scan_result_free(s.res);
	lo_rules_free(own_rules);
	scan_dispose(&s);
	return err;
}
