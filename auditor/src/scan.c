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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/hosts.h"
#include "leftover/error.h"
#include "leftover/origin.h"
#include "pyext.h"
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
	lo_hosts *hosts;
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

/* ---- the result ------------------------------------------------------------ */

static void add_note(lo_scan_result *res, char *line)
{
	lo_array_grow(&res->notes, &res->note_cap, res->note_count + 1, sizeof(char *));
	res->notes[res->note_count++] = line;
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

lo_kind lo_scan_kind_of(const lo_elf *e, const char *path)
{
	if (lo_elf_type(e) != ET_DYN || lo_elf_is_pie(e))
		return LO_KIND_OTHER;
	if (lo_pyext_named(path) || lo_pyext_exports_init(e, path))
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
 * What CPython checks besides the load (pyext.h): a file its import never
 * takes is skipped, and no load is played; returns true then.
 */
static bool python_never_imported(lo_file *f, const char *base, size_t n,
				  const lo_hosts_program *py)
{
	char *why = lo_pyext_not_imported(base, n, py ? py->path : NULL,
					  py ? (const char *const *)py->suffixes : NULL);

	if (!why)
		return false;
	f->verdict = LO_VERDICT_SKIPPED;
	lo_file_add_reason(f, LO_REASON_OTHER_INTERPRETER, NULL, NULL, NULL, NULL, why);
	free(why);
	return true;
}

/* A module that loads but has no PyInit_<name>: the import fails all the same. */
static void python_init_check(lo_file *f, const lo_elf *e, const char *base, size_t n)
{
	char *sym = NULL, *why = lo_pyext_init_missing(e, base, n, &sym);

	if (!why)
		return;
	lo_file_add_reason(f, LO_REASON_NO_MODULE_INIT, sym, NULL, NULL, NULL, why);
	free(why);
	free(sym);
	f->loads = LO_FALSE;
	f->verdict = LO_VERDICT_BROKEN;
}

/*
 * Play the load of the file at abs from `host` and record what fails; what
 * the [host] rule `ruled` (or NULL) says its host provides is no finding.
 */
static void judge_load(scan *s, lo_file *f, const char *abs, const lo_host *host,
		       const lo_rules_host *ruled)
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
		lo_file_add_reason(f, LO_REASON_CHANGED, NULL, NULL, NULL, rel_to_root(s, changed),
				   why);
		free(why);
		lo_load_free(load);
		return;
	}
	for (i = 0; i < lo_load_problem_count(load); i++) {
		const lo_problem *p = lo_load_problem_at(load, i);

		/* symbols the rules say the host provides, or that never matter */
		if (p->kind == LO_PROBLEM_UNDEFINED_SYMBOL && p->symbol &&
		    (lo_rules_symbol_ignored(s->rules, p->symbol) ||
		     (ruled && lo_rules_host_provides(ruled, p->symbol)))) {
			waived++;
			continue;
		}
		lo_file_add_reason(f, (lo_reason_kind)p->kind, p->symbol, p->version,
				   p->library ? rel_to_root(s, p->library) : NULL,
				   rel_to_root(s, p->object), p->detail);
	}
	f->loads = lo_load_ok(load) || (waived && !f->reason_count) ? LO_TRUE : LO_FALSE;
	f->verdict = f->loads == LO_TRUE ? LO_VERDICT_OK : LO_VERDICT_BROKEN;
	lo_load_free(load);
}

/* Does the object `payload` leave a symbol matching `glob` undefined? (rules.h) */
static bool object_needs(const char *glob, void *payload)
{
	return lo_elf_needs(payload, glob);
}

static int judge_elf(scan *s, lo_file *f, const char *abs)
{
	const lo_elf *e;
	const lo_host *host = NULL;
	const lo_hosts_program *program = NULL;
	const lo_rules_host *ruled;
	const char *ruled_program, *base;
	size_t n;
	bool given;
	int err = lo_resolver_read(s->resolver, abs, &e);

	if (err == LO_ENOTELF) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL,
				   is_linker_script(abs) ? "a GNU ld script, read by the linker only"
							 : "not an ELF object");
		return 0;
	}
	if (err < 0) {
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->kind = lo_scan_kind_of(e, abs);
	if (f->kind == LO_KIND_OTHER) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, LO_REASON_NOT_LOADABLE, NULL, NULL, NULL, NULL,
				   lo_elf_type(e) == ET_REL ? "a relocatable object, not a shared object"
							    : "an executable, which dlopen refuses");
		return 0;
	}
	/* A [host] rule names the program, unless --python or --host did. */
	ruled = lo_rules_host_of(s->rules, f->path, object_needs, (void *)e);
	ruled_program = ruled ? lo_rules_host_program(ruled) : NULL;
	given = s->opts && (f->kind == LO_KIND_PYTHON_EXTENSION ? s->opts->python : s->opts->host);
	if (ruled_program && !given) {
		err = lo_hosts_for_rule(s->hosts, ruled_program, lo_rules_host_name(ruled), &host,
					&program);
	} else {
		char *dir = lo_xstrndup(abs, (size_t)(strrchr(abs, '/') - abs));

		err = lo_hosts_for_file(s->hosts, f->kind == LO_KIND_PYTHON_EXTENSION, dir, &host,
					&program);
		free(dir);
	}
	if (err < 0) {
		/* one unusable host costs only the files that need it */
		f->verdict = LO_VERDICT_UNJUDGED;
		lo_file_add_reason(f, LO_REASON_NO_HOST, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	if (f->kind == LO_KIND_PYTHON_EXTENSION || (s->opts && s->opts->host) ||
	    (ruled_program && !given))
		f->host = lo_xstrdup(lo_host_name(host));
	if (ruled && !given)
		f->host_rule = lo_xstrdup(lo_rules_host_name(ruled));
	/* what CPython checks besides the load, for a file named as its extensions are */
	base = strrchr(abs, '/') + 1;
	n = f->kind == LO_KIND_PYTHON_EXTENSION && lo_pyext_named(abs) ? lo_pyext_module_name(base)
								       : 0;
	if (n && python_never_imported(f, base, n, program))
		return 0;
	/* the rule's `provides` stand in for its program only where that is not read */
	judge_load(s, f, abs, host, ruled_program && !given ? NULL : ruled);
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
		lo_file_add_reason(f, why == ELOOP ? LO_REASON_SYMLINK_LOOP
						   : LO_REASON_DANGLING_SYMLINK,
				   NULL, NULL, NULL, NULL,
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
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL, "not a regular file");
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
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, strerror(it->err));
		return 0;
	}
	if (it->type == DT_LNK)
		return judge_link(s, slot, it);
	f = new_file(s, slot, it->abs);
	if (it->type != DT_REG) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL, "not a regular file");
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
		lo_file_add_reason(f, LO_REASON_SUPERSEDED_LIBRARY, NULL, NULL, lo_elf_needed(e, i),
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
	r = lo_file_add_reason(f, LO_REASON_ORPHAN, NULL, NULL, NULL, NULL, v.detail);
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
			lo_file_dispose(&res->files[i]);
			continue;
		}
		res->files[n++] = res->files[i];
	}
	res->file_count = n;
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
			lo_file_add_reason(f, LO_REASON_RULE, NULL, NULL, NULL, NULL, ru->reason);
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

/* A root of a scan, for a callback. */
struct root_of {
	const scan *s;
	size_t root;
};

/* When the oldest candidate of root `root` was written, 0 when there is none. */
static time_t oldest_item_mtime(void *payload)
{
	const scan *s = ((const struct root_of *)payload)->s;
	size_t root = ((const struct root_of *)payload)->root;
	time_t oldest = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < s->item_count; i++)
		if (s->items[i].root == root && lstat(s->items[i].abs, &st) == 0 &&
		    (!oldest || st.st_mtime < oldest))
			oldest = st.st_mtime;
	return oldest;
}

/* Where the build tree of root `root` came from (origin.h), with its notes. */
static void record_origin(scan *s, size_t root)
{
	struct root_of at = { s, root };
	char *notes[LO_ORIGIN_NOTES_MAX] = { NULL };
	size_t i;

	if (lo_origin_record(&s->res->origins[s->res->origin_count],
			     s->build_dirs[root] ? s->build_dirs[root] : s->roots[root],
			     s->opts ? s->opts->source : NULL, oldest_item_mtime, &at, notes))
		s->res->origin_count++;
	for (i = 0; i < LO_ORIGIN_NOTES_MAX; i++)
		if (notes[i])
			add_note(s->res, notes[i]);
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
			lo_file_dispose(&s->judged[i]);
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
	lo_hosts_free(s->hosts);
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
	s.hosts = lo_hosts_new(s.resolver, opts ? opts->python : NULL, opts ? opts->host : NULL);
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
	for (i = 0; lo_hosts_note(s.hosts, i); i++)
		add_note(s.res, lo_xstrdup(lo_hosts_note(s.hosts, i)));
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
