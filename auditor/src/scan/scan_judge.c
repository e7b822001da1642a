/*
 * scan_judge.c - the facts of one candidate, and its verdict (scan_int.h).
 *
 * A file is read once (through the resolver's cache), given a kind and a
 * host, and its load played from that host; then the build's records and
 * git say whether it is still produced and tracked. Each step records a
 * fact (lo_file's stage, loads, orphan) and the reasons behind it;
 * lo_verdict_decide turns the facts into the verdict. Runs on every
 * judging thread at once: what it reads of `scan` is read-only, and the
 * resolver and the hosts lock inside.
 *
 * A symlink is reported by its target when the target is a file inside a
 * scanned root in the link's own directory (once, however many links point
 * at it: libx.so -> libx.so.1), and by its own path, judged there, when
 * the target is in another directory or outside, dangling or part of a
 * loop: the loader expands $ORIGIN from the path it opened, without
 * resolving the link.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/dyld.h"
#include "leftover/elf_format.h"
#include "leftover/error.h"
#include "leftover/macho.h"
#include "leftover/os.h"
#include "leftover/verdict.h"
#include "hosts/pyext.h"
#include "scan/scan_int.h"

/*
 * The candidate as its judge read it for itself (resolve.h's
 * lo_resolver_read_own), if it did: freed once the candidate is judged,
 * before the buffer serves the next.
 */
typedef struct own_read {
	lo_elf_buf *buf;
	lo_elf *elf;
} own_read;

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
const char *lo_scan_arch_named(const char *name)
{
	const lo_target *t = lo_target_named(name);
	const lo_dyld_target *d;

	if (t)
		return t->name;
	if ((d = lo_dyld_target_named(name)))
		return d->name;
	return lo_scan_pe_arch_named(name);
}

const char *lo_scan_rel_to_root(const scan *s, const char *abs)
{
	size_t rlen = strlen(s->res->root);

	if (abs && under_roots(s, abs) && !strncmp(abs, s->res->root, rlen) && abs[rlen] == '/')
		return abs + rlen + 1;
	return abs;
}

lo_kind lo_scan_kind_of(const lo_elf *e, const char *path)
{
	if (lo_elf_type(e) != LO_ET_DYN || lo_elf_is_pie(e))
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
	f->stage = LO_STAGE_NOTHING_TO_LOAD;
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
}

/*
 * The load of the file at abs from the host inferred by what its failed
 * load `plain` lacks (hosts.h), which names it in f; `plain` where none is.
 */
static lo_load *infer_host(scan *s, lo_file *f, const char *abs, const lo_elf *own,
			   lo_load *plain)
{
	const char *rel = lo_scan_rules_path_of(s, abs);
	char *top = rel != abs ? lo_xstrndup(abs, (size_t)(rel - abs - 1)) : NULL;
	char *recorded = NULL, *exe;
	lo_hosts_inferred in;
	size_t i, n;
	bool found;

	/* the program the build's records say loads it, where a root's do */
	for (i = 0; !recorded && s->bs && i < s->root_count; i++) {
		n = strlen(s->build_dirs[i]);
		if (!s->bs[i] || strncmp(abs, s->build_dirs[i], n) || abs[n] != '/' ||
		    !(exe = lo_buildsys_loaded_by(s->bs[i], abs + n + 1)))
			continue;
		if (asprintf(&recorded, "%s/%s", s->build_dirs[i], exe) < 0)
			abort();
		free(exe);
	}
	found = lo_hosts_infer(s->hosts, abs, own, top, recorded, plain, &in);
	free(recorded);
	free(top);
	if (!found)
		return plain;
	lo_load_free(plain);
	f->host = in.host;
	f->host_inferred = in.why;
	return in.load;
}

/*
 * Play the load of the file at abs from `host` and record what fails; what
 * the [host] rule `ruled` (or NULL) says its host provides is no finding.
 * `infer`: no one named its host, which may then be inferred.
 */
static void judge_load(scan *s, lo_file *f, const char *abs, const lo_elf *own,
		       const lo_host *host, const lo_rules_host *ruled, bool infer)
{
	const char *changed;
	lo_load *load;
	size_t i, waived = 0;

	lo_load_simulate_own(&load, s->resolver, host, abs, own, 0, NULL, NULL);
	/* a change under the scan only ever makes a load fail (elf.h); asked once a load */
	changed = lo_load_ok(load) ? NULL : lo_load_changed(load);
	if (infer && !changed && !lo_load_ok(load)) {
		lo_load *plain = load;

		if ((load = infer_host(s, f, abs, own, plain)) != plain)
			changed = lo_load_ok(load) ? NULL : lo_load_changed(load);
	}
	if (changed) {
		char *why = NULL;

		if (asprintf(&why, "'%s' changed while the scan read it (rewritten in place by "
			     "another process?); scan again", lo_scan_rel_to_root(s, changed)) < 0)
			abort();
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_CHANGED, NULL, NULL, NULL, lo_scan_rel_to_root(s, changed),
				   why);
		free(why);
		lo_load_free(load);
		return;
	}
	for (i = 0; i < lo_load_problem_count(load); i++) {
		const lo_problem *p = lo_load_problem_at(load, i);

		if (lo_verdict_waives(s->rules, ruled, p)) {
			waived++;
			continue;
		}
		lo_file_add_reason(f, (lo_reason_kind)p->kind, p->symbol, p->version,
				   p->library ? lo_scan_rel_to_root(s, p->library) : NULL,
				   lo_scan_rel_to_root(s, p->object), p->detail);
	}
	f->stage = LO_STAGE_LOADED;
	f->loads = lo_load_ok(load) || (waived && !f->reason_count) ? LO_TRUE : LO_FALSE;
	lo_load_free(load);
}

/* The host the [host] rule `ruled` names, `prog`, with the libraries it loads first. */
static int ruled_host(scan *s, const lo_rules_host *ruled, const char *prog, const lo_host **host,
		      const lo_hosts_program **program)
{
	size_t n;
	const char *const *pre = lo_rules_host_preload(ruled, &n);

	return lo_hosts_for_rule(s->hosts, prog, lo_rules_host_name(ruled),
				 lo_rules_host_program_vouched(ruled, prog), pre, n, host, program);
}

/* The default host of the object e at abs: its interpreter, --host, or its own C program. */
static int default_host(scan *s, const lo_file *f, const lo_elf *e, const char *abs,
			const lo_host **host, const lo_hosts_program **program)
{
	bool python = f->kind == LO_KIND_PYTHON_EXTENSION;
	char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs));
	/* a plain C program of the object's own target loads it, unless --host says */
	const lo_target *t = lo_target_of(e);
	int err;

	if (!t && !python && !(s->opts && s->opts->host))
		err = lo_error_set(LO_EINVALID,
				   "an object for ELF machine %d (%d-bit, %s), whose loader "
				   "leftover does not model; name the program that loads it "
				   "with --host", lo_elf_machine(e),
				   lo_elf_class(e) == LO_ELFCLASS32 ? 32 : 64,
				   lo_elf_data(e) == LO_ELFDATA2MSB ? "big-endian" : "little-endian");
	else
		err = lo_hosts_for_file(s->hosts, python, dir, t, host, program);
	free(dir);
	return err;
}

/*
 * The host of the object e at abs: the program of the [host] rule `ruled`
 * (NULL: none, or --python/--host given), when it has one (*by_rule set),
 * else the default host. A rule's program of another machine never loads
 * the object (Debian's aarch64 libthread_db beside gdb's x86-64 one): its
 * own machine's program does, with what the rule says its host provides.
 */
static int pick_host(scan *s, const lo_file *f, const lo_elf *e, const char *abs,
		     const lo_rules_host *ruled, const lo_host **host,
		     const lo_hosts_program **program, bool *by_rule)
{
	char *prog = ruled ? lo_rules_host_program_for(ruled, abs) : NULL;
	const lo_target *t;
	int err;

	/*
	 * The rules found the program on this machine; under --sysroot it is
	 * the root's, and one the root lacks is not installed there: the
	 * rule's provides stand in, as for a program missing here.
	 */
	if (prog && lo_resolver_in_sysroot(s->resolver) && !lo_resolver_has_file(s->resolver, prog)) {
		free(prog);
		prog = NULL;
	}
	*by_rule = prog != NULL;
	if (prog) {
		err = ruled_host(s, ruled, prog, host, program);
		free(prog);
		if (err < 0 || f->kind == LO_KIND_PYTHON_EXTENSION)
			return err;
		t = lo_host_target(*host);
		if (t->machine == lo_elf_machine(e) && t->elf_class == lo_elf_class(e) &&
		    t->elf_data == lo_elf_data(e))
			return 0;
		*by_rule = false;
		*host = NULL;
		*program = NULL;
	}
	return default_host(s, f, e, abs, host, program);
}

/*
 * A framework's headers, resources and its Versions/Current link, beside
 * its binary, are no candidates: the slot is left holding nothing.
 */
static bool framework_aside(lo_file *f, const char *abs)
{
	if (!strstr(abs, ".framework/Versions/"))
		return false;
	lo_file_dispose(f);
	memset(f, 0, sizeof(*f));
	return true;
}

static int judge_elf(scan *s, lo_file *f, const char *abs, own_read *own)
{
	const lo_elf *e;
	const lo_host *host = NULL;
	const lo_hosts_program *program = NULL;
	const lo_rules_host *ruled;
	const char *base;
	size_t n;
	bool given, by_rule;
	int err = lo_resolver_read_own(s->resolver, abs, own->buf, &e, &own->elf);

	if (err == LO_ENOTELF && lo_scan_is_pe(abs))
		return lo_scan_judge_pe(s, f, abs);
	if (err == LO_ENOTELF && lo_macho_is_file(abs))
		return lo_scan_judge_macho(s, f, abs);
	if (err == LO_ENOTELF && framework_aside(f, abs))
		return 0;
	if (err == LO_ENOTELF) {
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL,
				   is_linker_script(abs) ? "a GNU ld script, read by the linker only"
							 : "not an ELF object");
		return 0;
	}
	if (err < 0) {
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->kind = lo_scan_kind_of(e, abs);
	if (f->kind == LO_KIND_OTHER) {
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_LOADABLE, NULL, NULL, NULL, NULL,
				   lo_elf_type(e) == LO_ET_REL ? "a relocatable object, not a shared object"
							    : "an executable, which dlopen refuses");
		return 0;
	}
	/* A [host] rule names the program, unless --python or --host did. */
	ruled = lo_rules_host_of(s->rules, lo_scan_rules_path_of(s, abs), lo_hosts_elf_has, (void *)e);
	given = s->opts && (f->kind == LO_KIND_PYTHON_EXTENSION ? s->opts->python : s->opts->host);
	err = pick_host(s, f, e, abs, given ? NULL : ruled, &host, &program, &by_rule);
	if (err < 0) {
		/* one unusable host costs only the files that need it */
		f->stage = LO_STAGE_NO_HOST;
		lo_file_add_reason(f, LO_REASON_NO_HOST, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	if (f->kind == LO_KIND_PYTHON_EXTENSION || (s->opts && s->opts->host) || by_rule)
		f->host = lo_xstrdup(lo_host_name(host));
	if (ruled && !given)
		f->host_rule = lo_xstrdup(lo_rules_host_name(ruled));
	f->arch = lo_host_target(host)->name;
	/* what CPython checks besides the load, for a file named as its extensions are */
	base = lo_os_path_last_separator(abs) + 1;
	n = f->kind == LO_KIND_PYTHON_EXTENSION && lo_pyext_named(abs) ? lo_pyext_module_name(base)
								       : 0;
	if (n && python_never_imported(f, base, n, program))
		return 0;
	/* the rule's `provides` stand in for its program only where that is not read */
	judge_load(s, f, abs, own->elf, host, by_rule ? NULL : ruled,
		   !ruled && !given && f->kind == LO_KIND_SHARED_LIBRARY);
	if (n && f->loads == LO_TRUE)
		python_init_check(f, e, base, n);
	return 0;
}

/*
 * Is the link at `abs` in the directory of `target` (symlinks resolved), where
 * $ORIGIN is the same? The link's directory is real already: the roots are
 * real paths and the walk follows no link to a directory, so no realpath
 * (a readlink per component, for every link of the tree) is needed.
 */
static bool beside_target(const char *abs, const char *target)
{
	size_t n = (size_t)(lo_os_path_last_separator(abs) - abs);

	return !strncmp(target, abs, n) && target[n] == '/' && !strchr(target + n + 1, '/');
}

static int judge_link(scan *s, lo_file *slot, const item *it, own_read *own)
{
	char *target = realpath(it->abs, NULL);
	struct stat st;
	lo_file *f;
	bool by_target;
	int err;

	if (!target) {
		char buf[PATH_MAX];
		ssize_t n = readlink(it->abs, buf, sizeof(buf) - 1);
		int why = errno;

		f = new_file(s, slot, it->abs);
		buf[n > 0 ? n : 0] = '\0';
		f->target = lo_xstrdup(buf);
		f->stage = LO_STAGE_LOADED; /* dlopen of the link fails */
		f->loads = LO_FALSE;
		lo_file_add_reason(f, why == ELOOP ? LO_REASON_SYMLINK_LOOP
						   : LO_REASON_DANGLING_SYMLINK,
				   NULL, NULL, NULL, NULL,
				   why == ELOOP ? "too many levels of symbolic links"
						: "the link points to nothing");
		return 0;
	}
	by_target = under_roots(s, target) && beside_target(it->abs, target);
	if (by_target) {
		/* reported by its target; duplicates are dropped after sorting */
		f = new_file(s, slot, target);
	} else {
		f = new_file(s, slot, it->abs);
		f->target = lo_xstrdup(target);
	}
	if (stat(target, &st) == 0 && S_ISDIR(st.st_mode) && framework_aside(f, it->abs)) {
		free(target);
		return 0;
	}
	if (stat(target, &st) < 0 || !S_ISREG(st.st_mode)) {
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL, "not a regular file");
		free(target);
		return 0;
	}
	err = judge_elf(s, f, by_target ? target : it->abs, own);
	free(target);
	return err;
}

/* Judge one item into `slot`; a slot left with a NULL path holds nothing. */
static int judge_item(scan *s, lo_file *slot, const item *it, own_read *own)
{
	lo_file *f;

	if (it->err) {
		f = new_file(s, slot, it->abs);
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, strerror(it->err));
		return 0;
	}
	if (it->type == LO_FT_LNK)
		return judge_link(s, slot, it, own);
	f = new_file(s, slot, it->abs);
	if (it->type != LO_FT_REG) {
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_ELF, NULL, NULL, NULL, NULL, "not a regular file");
		return 0;
	}
	return judge_elf(s, f, it->abs, own);
}

/*
 * A module that does not load because it binds to a library the tree has
 * superseded (lo_buildsys_superseded): the cause, named as a reason.
 */
static void name_superseded(scan *s, lo_file *f, const lo_buildsys *bs, const char *abs,
			    const lo_elf *own)
{
	const lo_elf *e = own;
	size_t i;

	if (f->stage != LO_STAGE_LOADED || f->loads != LO_FALSE ||
	    (!e && lo_resolver_read(s->resolver, abs, &e) < 0))
		return;
	for (i = 0; i < lo_elf_needed_count(e); i++) {
		const char *lib = lo_buildsys_superseded(bs, lo_elf_needed(e, i));
		char *at = NULL, *why = NULL;

		if (!lib)
			continue;
		if (asprintf(&at, "%s/%s", lo_buildsys_base(bs), lib) < 0 ||
		    asprintf(&why, "needs %s, a library the tree has superseded (%s)",
			     lo_elf_needed(e, i), lo_scan_rel_to_root(s, at)) < 0)
			abort();
		lo_file_add_reason(f, LO_REASON_SUPERSEDED_LIBRARY, NULL, NULL, lo_elf_needed(e, i),
				   lo_scan_rel_to_root(s, at), why)->evidence = lo_xstrdup("superseded-library");
		free(why);
		free(at);
	}
}

/*
 * What the records say of the file in `f`: git, whether it is tracked; the
 * build system, whether it is still produced, an orphan, or unknown.
 */
static void judge_records(scan *s, lo_file *f, const item *it, const lo_elf *own)
{
	const lo_buildsys *bs = s->bs ? s->bs[it->root] : NULL;
	const char *root;
	size_t rlen;
	lo_orphan_verdict v;
	lo_reason *r;
	char *abs;

	if (!f->path)
		return;
	f->tracked = it->tracked;
	if (!bs)
		return;
	root = s->build_dirs[it->root];
	rlen = strlen(root);
	/* f->path is relative to the result's root, or absolute outside it */
	if (lo_os_path_is_absolute(f->path))
		abs = lo_xstrdup(f->path);
	else if (asprintf(&abs, "%s%s%s", s->res->root, strcmp(s->res->root, "/") ? "/" : "",
			  f->path) < 0)
		abort();
	if (strncmp(abs, root, rlen) || abs[rlen] != '/') {
		free(abs);
		return;
	}
	lo_buildsys_judge(bs, abs + rlen + 1, &v);
	name_superseded(s, f, bs, abs, own);
	free(abs);
	if (v.suspected) {
		f->suspected = true;
		r = lo_file_add_reason(f, LO_REASON_SUSPECTED, NULL, NULL, NULL, NULL, v.detail);
		r->evidence = lo_xstrdup(lo_orphan_evidence_str(v.evidence));
	}
	if (v.orphan < 0)
		return;
	f->orphan = v.orphan ? LO_TRUE : LO_FALSE;
	if (!v.orphan)
		return;
	r = lo_file_add_reason(f, LO_REASON_ORPHAN, NULL, NULL, NULL, NULL, v.detail);
	r->evidence = lo_xstrdup(lo_orphan_evidence_str(v.evidence));
}

/* A file listed only because the build system disowns it: any type. */
static void judge_orphan_only(scan *s, lo_file *slot, const item *it)
{
	new_file(s, slot, it->abs)->stage = LO_STAGE_LISTED;
}

int lo_scan_judge(scan *s, lo_file *slot, const item *it, lo_elf_buf *buf)
{
	own_read own = { buf, NULL };
	int err = 0;

	if (it->orphan_only)
		judge_orphan_only(s, slot, it);
	else
		err = judge_item(s, slot, it, &own);
	if (err >= 0)
		judge_records(s, slot, it, own.elf);
	lo_elf_free(own.elf);
	if (err < 0)
		return err;
	slot->verdict = lo_verdict_decide(
		&(lo_facts){ slot->stage, slot->loads, slot->orphan, slot->suspected });
	return 0;
}
