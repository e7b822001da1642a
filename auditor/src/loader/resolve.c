/*
 * resolve.c - a static model of glibc's ld.so (2.36), from the files alone
 * (see resolve.h), for the target of each host (target.h): its class and
 * machine, its $LIB and $PLATFORM, its ld.so.cache entries and default
 * directories are read from the host's lo_target.
 *
 * Modelled, in the loader's order (elf/dl-load.c, dl-deps.c, dl-version.c,
 * dl-lookup.c):
 *  - mapping: the needed closure breadth-first; a DT_NEEDED name is first
 *    matched against every object already in the process (its name, path or
 *    soname), and a found file that is an object already loaded (same device
 *    and inode) is that object again;
 *  - search order for a name without a slash: DT_RPATH of the requesting
 *    object and of each object up its chain of loaders (only when the
 *    requesting object has no DT_RUNPATH; an object with both has no
 *    RPATH), LD_LIBRARY_PATH (given by the caller, never our own
 *    environment), DT_RUNPATH of the requesting object only, then unless it
 *    has DF_1_NODEFLIB, /etc/ld.so.cache, then the default directories;
 *    $ORIGIN, $LIB and $PLATFORM expanded, empty entries ignored (and an
 *    entry naming a token the target has no value for: glibc drops it);
 *  - a file of the wrong class, byte order or machine is skipped and the
 *    search goes on (glibc 2.36's loaders pass over the other byte order,
 *    x86-64's and s390x's tried); any other file ld.so cannot map (not ELF,
 *    truncated, an executable) stops the load, as open_verify does;
 *  - versions: every non-weak .gnu.version_r entry must be defined by the
 *    named library when that library has version definitions at all;
 *  - symbols: every undefined non-weak symbol of a newly mapped object must
 *    be defined in the scope: the host's global scope (the program and its
 *    needed closure) first, then the dlopen()ed object's own closure;
 *    version matching as in check_match (elf.c).
 *  - glibc-hwcaps: before each directory, DIR/glibc-hwcaps/SUB/ for each
 *    subdirectory of the target that the CPU leftover runs on supports
 *    (cpu.h), best first; in ld.so.cache, a supported SUB's entry over the
 *    plain one.
 * The caller of dlopen is taken to be the host program itself, so its RPATH
 * is inherited as the loader would inherit it.
 *
 * Objects the host dlopen()ed with RTLD_GLOBAL before it loads candidates
 * are modelled when the caller names them (lo_host_new_preloaded).
 *
 * Not modelled: legacy hwcap subdirectories (tls/, haswell/), glibc-hwcaps
 * for a CPU other than this one, LD_PRELOAD and audit modules, other
 * objects dlopen()ed earlier, DT_FILTER/DT_AUXILIARY, lazy binding
 * (RTLD_NOW is assumed, as Python does by default), relocations that name
 * a symbol without a dynamic symbol table entry. ld.so stops at the first
 * error; this model reports every problem of the first stage that fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/elf_format.h"
#include "leftover/error.h"
#include "leftover/map.h"
#include "leftover/resolve.h"
#include "loader/resolve_int.h"

/* 2^20 bits (128 KiB): a Python host's ~10,000 names fill about 1 %. */
#define LO_HOST_BITS (1u << 20)

struct lo_host {
	proc p;
	char *name;      /* owned */
	uint64_t *names; /* owned; p.host_names */
};

struct lo_load {
	proc p;
	const lo_elf *elf;
};

const char *lo_resolve_keep(proc *p, char *s)
{
	if (!s)
		return NULL;
	lo_array_grow(&p->strings, &p->string_cap, p->string_count + 1, sizeof(char *));
	p->strings[p->string_count++] = s;
	return s;
}

const char *lo_resolve_keep_dup(proc *p, const char *s)
{
	return s ? lo_strpool_add(&p->pool, s, strlen(s)) : NULL;
}

char *lo_resolve_fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

static void proc_dispose(proc *p)
{
	size_t i;

	for (i = 0; i < p->string_count; i++)
		free(p->strings[i]);
	free(p->strings);
	lo_strpool_dispose(&p->pool);
	lo_buf_dispose(&p->dir);
	lo_buf_dispose(&p->path);
	free(p->objs);
	free(p->problems);
	free(p->tobjs);
	free(p->tsyms);
}

static void set_name_bit(uint32_t hash, void *payload)
{
	uint64_t *bits = payload;

	bits[(hash % LO_HOST_BITS) / 64] |= 1ull << (hash % 64);
}

static bool host_may_define(const proc *p, uint32_t hash)
{
	return !p->host_names ||
	       (p->host_names[(hash % LO_HOST_BITS) / 64] & (1ull << (hash % 64))) != 0;
}

/* ---- mapping ----------------------------------------------------------- */

static void add_problem(proc *p, lo_problem_kind kind, const char *object, const char *symbol,
			const char *version, const char *library, char *detail)
{
	lo_problem *pr;

	lo_array_grow(&p->problems, &p->problem_cap, p->problem_count + 1, sizeof(*pr));
	pr = &p->problems[p->problem_count++];
	pr->kind = kind;
	pr->object = object;
	pr->symbol = symbol;
	pr->version = version;
	pr->library = library;
	pr->detail = lo_resolve_keep(p, detail);
}

/*
 * _dl_name_match_p: is `name` (whose hash is h) how object o is known in
 * the process? Every DT_NEEDED and version requirement of every object of
 * every load asks this of each object loaded, hence the hashes.
 */
static bool name_matches(const lobj *o, const char *name, uint32_t h, bool slash)
{
	const char *soname = lo_elf_soname(o->elf);

	return (h == o->name_hash && !strcmp(name, o->name)) ||
	       (slash && !strcmp(name, o->path)) || /* a path is never a bare name */
	       (soname && h == o->soname_hash && !strcmp(name, soname));
}

static size_t find_loaded(const proc *p, const char *name)
{
	uint32_t h = lo_elf_gnu_hash(name);
	bool slash = strchr(name, '/') != NULL;
	size_t i;

	for (i = 0; i < p->count; i++)
		if (name_matches(&p->objs[i], name, h, slash))
			return i;
	return NONE;
}

/*
 * The object of file f, as ld.so finds an object already loaded by its
 * file's identity. By entry, not lo_elf: an object let go and read again
 * while a load runs is the same object. A candidate read for its judge
 * alone (lo_load_simulate_own) has no entry: then by inode.
 */
static size_t find_loaded_obj(const proc *p, const got *f)
{
	lo_elf_stamp a, b;
	size_t i;

	for (i = 0; i < p->count; i++) {
		if (f->obj && p->objs[i].obj == f->obj)
			return i;
		if (f->obj && p->objs[i].obj)
			continue;
		a = lo_elf_stamp_of(p->objs[i].elf);
		b = lo_elf_stamp_of(f->elf);
		if (a.dev == b.dev && a.ino == b.ino)
			return i;
	}
	return NONE;
}

static size_t add_object(proc *p, const got *f, const char *path, const char *origin,
			 const char *name, size_t loader)
{
	lobj *o;

	lo_array_grow(&p->objs, &p->cap, p->count + 1, sizeof(*o));
	o = &p->objs[p->count];
	o->elf = f->elf;
	o->obj = f->obj;
	o->path = lo_resolve_keep_dup(p, path);
	o->origin = origin ? lo_resolve_keep_dup(p, origin) : lo_resolve_keep_dirname(p, path);
	o->name = name ? lo_resolve_keep_dup(p, name) : o->path;
	o->name_hash = lo_elf_gnu_hash(o->name);
	o->soname_hash = lo_elf_soname(f->elf) ? lo_elf_gnu_hash(lo_elf_soname(f->elf)) : 0;
	o->loader = loader;
	o->depth = loader == NONE ? 0 : p->objs[loader].depth + 1;
	return p->count++;
}

static void trace_object(proc *p, const char *name, const char *path, size_t needed_by,
			 lo_found_via via, const char *via_detail, lo_buf *tried, size_t depth)
{
	lo_trace_object *t;

	if (!p->trace)
		return;
	lo_array_grow(&p->tobjs, &p->tobj_cap, p->tobj_count + 1, sizeof(*t));
	t = &p->tobjs[p->tobj_count++];
	t->name = lo_resolve_keep_dup(p, name);
	t->path = lo_resolve_keep_dup(p, path);
	t->needed_by = needed_by == NONE ? NULL : p->objs[needed_by].path;
	t->via = via;
	t->via_detail = via_detail;
	t->tried = tried && tried->len ? lo_resolve_keep_dup(p, lo_buf_cstr(tried)) : NULL;
	t->depth = depth;
}

/*
 * What a search passed over, and why, is written down only when it is
 * shown: in a trace, or for a library not found, searched for again.
 * Written at every search, a line for each path not there, it was a tenth
 * of the instructions a scan spent looking for libraries (callgrind,
 * bench scale 1).
 */
static void search_again_saying(proc *p, size_t loader, const char *name, lo_buf *tried)
{
	lookup lk = { .name = name, .tried = tried };

	lo_buf_clear(tried);
	lo_resolve_search(p, loader, &lk);
	free(lk.fatal);
}

/*
 * Map the needed closure of the objects from `start` on, breadth-first as
 * _dl_map_object_deps does. Returns the number of problems added.
 */
static size_t map_closure(proc *p, size_t start)
{
	size_t i, before = p->problem_count;
	lo_buf tried = LO_BUF_INIT;

	for (i = start; i < p->count && p->count < LO_MAX_OBJECTS; i++) {
		size_t j;

		for (j = 0; j < lo_elf_needed_count(p->objs[i].elf); j++) {
			const char *name = lo_elf_needed(p->objs[i].elf, j);
			lookup lk = { .name = name, .tried = p->trace ? &tried : NULL };
			size_t k = find_loaded(p, name);
			enum try_result res;

			if (k != NONE) {
				trace_object(p, name, p->objs[k].path, i, LO_VIA_ALREADY, NULL, NULL,
					     p->objs[i].depth + 1);
				continue;
			}
			lo_buf_clear(&tried);
			res = lo_resolve_search(p, i, &lk);
			if (res == TRY_FOUND) {
				if (find_loaded_obj(p, &lk.found) != NONE)
					lk.via = LO_VIA_ALREADY;
				else
					add_object(p, &lk.found, lk.path, NULL, name, i);
				trace_object(p, name, lk.path, i, lk.via, lk.via_detail, &tried,
					     p->objs[i].depth + 1);
			} else if (res == TRY_FATAL) {
				trace_object(p, name, NULL, i, LO_VIA_NOT_FOUND, NULL, &tried,
					     p->objs[i].depth + 1);
				add_problem(p, LO_PROBLEM_BAD_LIBRARY, p->objs[i].path, NULL, NULL,
					    lo_resolve_keep_dup(p, name), lk.fatal);
				lk.fatal = NULL;
			} else {
				if (!lk.tried)
					search_again_saying(p, i, name, &tried);
				trace_object(p, name, NULL, i, LO_VIA_NOT_FOUND, NULL, &tried,
					     p->objs[i].depth + 1);
				add_problem(p, LO_PROBLEM_MISSING_LIBRARY, p->objs[i].path, NULL, NULL,
					    lo_resolve_keep_dup(p, name),
					    tried.len ? lo_resolve_fmt("not found; tried:\n%s", lo_buf_cstr(&tried))
						      : lo_resolve_fmt("not found"));
			}
			free(lk.fatal);
		}
	}
	lo_buf_dispose(&tried);
	return p->problem_count - before;
}

/* _dl_check_map_versions for the newly mapped objects. */
static size_t check_versions(proc *p)
{
	size_t i, j, before = p->problem_count;

	for (i = p->first_new; i < p->count && p->target->versions; i++) {
		const lo_elf *e = p->objs[i].elf;

		for (j = 0; j < lo_elf_verneed_count(e); j++) {
			const lo_elf_verneed *vn = lo_elf_verneed_at(e, j);
			size_t k = find_loaded(p, vn->file);
			const lo_elf *dep;

			if (k == NONE || vn->weak)
				continue;
			dep = p->objs[k].elf;
			if (!lo_elf_defines_versions(dep) || lo_elf_has_verdef(dep, vn->version))
				continue;
			add_problem(p, LO_PROBLEM_MISSING_VERSION, p->objs[i].path, NULL,
				    vn->version, p->objs[k].path,
				    lo_resolve_fmt("version `%s' not found (required by %s)", vn->version,
					p->objs[i].path));
		}
	}
	return p->problem_count - before;
}

/* Is `obj` in the scope, other than as object `self`? */
static bool in_scope(const proc *p, size_t self, const parsed *obj)
{
	size_t k;

	for (k = 0; k < p->count; k++)
		if (k != self && p->objs[k].obj == obj)
			return true;
	return false;
}

/* Did object i bind completely in an earlier load whose providers are all here too? */
static bool bound_before(const proc *p, size_t i)
{
	const binding *b = p->objs[i].obj ? atomic_load(&p->objs[i].obj->bound) : NULL;
	size_t j;

	if (!b)
		return false;
	for (j = 0; j < b->count; j++)
		if (!in_scope(p, i, b->by[j]))
			return false;
	return true;
}

/*
 * Remember that object i bound completely with these providers; the first
 * load to do so wins. Not when one of them is a candidate no load needed:
 * its entry may be freed after lo_resolver_forget (and another take its
 * address), and no later load has it in scope, so such a binding could
 * only keep out one that would be used again.
 */
static void remember_binding(const proc *p, size_t i, const parsed *const *by, size_t count)
{
	binding *b, *none = NULL;
	size_t j;

	if (!p->objs[i].obj)
		return;
	for (j = 0; j < count; j++)
		if (!atomic_load(&by[j]->needed))
			return;
	b = lo_xmalloc(sizeof(*b) + count * sizeof(b->by[0]));
	b->count = count;
	if (count)
		memcpy(b->by, by, count * sizeof(b->by[0]));
	if (!atomic_compare_exchange_strong(&p->objs[i].obj->bound, &none, b))
		free(b);
}

/*
 * The object that defines u for object `self`: the first in the scope, as
 * ld.so binds it, when order is NULL (a trace shows the provider). When
 * only whether one exists matters, `order` (a permutation of the scope)
 * is searched instead, and a provider found moves to its front: the next
 * symbol most likely comes from the same library, so most symbols are
 * found at the first try instead of after the whole host and half the
 * closure. Returns the provider's index, or NONE.
 */
static size_t find_provider(const proc *p, size_t self, const lo_elf_undef *u, size_t *order)
{
	bool host = host_may_define(p, u->gnu_hash);
	size_t q, k;

	for (q = 0; q < p->count; q++) {
		k = order ? order[q] : q;
		if (k == self || (!host && k < p->first_new) || !lo_elf_defines(p->objs[k].elf, u))
			continue;
		if (order && q) {
			memmove(order + 1, order, q * sizeof(*order));
			order[0] = k;
		}
		return k;
	}
	return NONE;
}

/*
 * The next undefined symbols of e, up to a block of them, hashed together,
 * with what their lookups read first asked for ahead in the library most
 * likely to define them (the front of `order`): each lookup reads a few
 * cache lines at random places in tables of megabytes. A block at a time,
 * the CPU overlaps the names' hashing and the waits on memory that one
 * symbol at a time leaves in series (bench tree: wall 0.96, two thirds of
 * it from the blocks, a third from the hints). Returns how many.
 */
#define LO_BIND_BLOCK 16

static size_t fetch_block(const proc *p, const lo_elf *e, size_t *cursor, lo_elf_undef *block,
			  const size_t *order)
{
	const lo_elf *likely = NULL;
	size_t n, k;

	for (n = 0; n < LO_BIND_BLOCK && lo_elf_undef_next(e, cursor, &block[n]); n++)
		if (!p->target->versions) { /* any definition but a hidden one binds */
			block[n].version = NULL;
			block[n].version_file = NULL;
			block[n].version_hidden = false;
		}
	if (order)
		for (k = 0; k < p->count && !likely; k++)
			if (order[k] >= p->first_new && p->objs[order[k]].elf != e)
				likely = p->objs[order[k]].elf;
	if (likely) {
		for (k = 0; k < n; k++)
			lo_elf_prefetch(likely, block[k].gnu_hash, false);
		for (k = 0; k < n; k++)
			lo_elf_prefetch(likely, block[k].gnu_hash, true);
	}
	return n;
}

/*
 * The objects that provided an object's symbols so far, each once; `own`
 * when one of them was a candidate read for its judge alone, which no
 * later load has in scope.
 */
typedef struct providers {
	const parsed **by;
	size_t count, cap;
	bool own;
} providers;

/*
 * Bind u, an undefined symbol of object i, as ld.so would: its provider
 * joins `found`; one no object defines is a problem, unless weak or
 * filtered. Returns false when u stays unbound.
 */
static bool bind_one(proc *p, size_t i, const lo_elf_undef *u, size_t *order, providers *found,
		     lo_symbol_filter filter, void *payload)
{
	size_t k = find_provider(p, i, u, order), b;
	const parsed *provider = k != NONE ? p->objs[k].obj : NULL;

	if (p->trace) {
		lo_trace_symbol *t;

		lo_array_grow(&p->tsyms, &p->tsym_cap, p->tsym_count + 1, sizeof(*t));
		t = &p->tsyms[p->tsym_count++];
		*t = (lo_trace_symbol){ p->objs[i].path, u->name, u->version,
					k != NONE ? p->objs[k].path : NULL, u->weak };
	}
	if (k != NONE && !provider) {
		found->own = true; /* bound, to the candidate read for its judge alone */
		return true;
	}
	if (provider) {
		for (b = 0; b < found->count && found->by[b] != provider; b++)
			;
		if (b == found->count) {
			lo_array_grow(&found->by, &found->cap, found->count + 1, sizeof(*found->by));
			found->by[found->count++] = provider;
		}
		return true;
	}
	if (u->weak)
		return true;
	if (filter && filter(u->name, payload))
		return false;
	add_problem(p, LO_PROBLEM_UNDEFINED_SYMBOL, p->objs[i].path, u->name, u->version,
		    u->version_file,
		    u->version ? lo_resolve_fmt("symbol %s version %s not defined in %s", u->name,
						u->version, u->version_file)
			       : lo_resolve_fmt("undefined symbol: %s", u->name));
	return false;
}

/*
 * Bind every undefined symbol of the newly mapped objects in the scope.
 * An object that bound completely before, with all of its providers in
 * this scope too, binds again and is skipped (unless tracing, which wants
 * every symbol): a library needed by a thousand candidates is bound once.
 */
static void bind_symbols(proc *p, lo_symbol_filter filter, void *payload)
{
	providers found = { NULL, 0, 0, false };
	size_t i, j, k, *order = NULL;

	if (!p->trace) {
		order = lo_xcalloc(p->count, sizeof(*order));
		for (k = 0; k < p->count; k++)
			order[k] = k;
	}
	for (i = p->first_new; i < p->count; i++) {
		const lo_elf *e = p->objs[i].elf;
		bool complete = true;
		size_t cursor = 0, n, at;
		lo_elf_undef block[LO_BIND_BLOCK];

		if (!p->trace && bound_before(p, i))
			continue;
		found.count = 0;
		found.own = false;
		/* a block at a time, asked for ahead; j counts the symbols */
		for (j = 0; (n = fetch_block(p, e, &cursor, block, order)) > 0; j += n)
			for (at = 0; at < n; at++)
				if (!bind_one(p, i, &block[at], order, &found, filter, payload))
					complete = false;
		/*
		 * Another count than at open: the table changed under the scan
		 * (a file cut short reads as zeros, which hide undefined symbols).
		 * The load fails, and the caller asks lo_load_changed why.
		 */
		if (j != lo_elf_undef_count(e)) {
			add_problem(p, LO_PROBLEM_UNREADABLE, p->objs[i].path, NULL, NULL, NULL,
				    lo_resolve_fmt("'%s': its symbol table changed while it was being read",
					p->objs[i].path));
			complete = false;
		}
		if (complete && !found.own)
			remember_binding(p, i, found.by, found.count);
	}
	free(found.by);
	free(order);
}

/* ---- hosts ------------------------------------------------------------- */

/*
 * Add the library at `path` to the host's global scope with its needed
 * closure, as the program's dlopen(path, RTLD_NOW | RTLD_GLOBAL) does.
 */
static int host_preload(lo_host *h, const char *path)
{
	proc *p = &h->p;
	got o = lo_resolver_open(p->r, path, p->use);
	size_t k;

	if (!o.elf)
		return lo_error_set(o.err, "host program '%s' loads '%s' first, which cannot be "
				    "used: %s", h->name, path, lo_resolver_why(&o, path));
	if (lo_target_of(o.elf) != p->target)
		return lo_error_set(LO_EINVALID, "host program '%s' loads '%s' first, which is not "
				    "an object of its machine (%s)", h->name, path, p->target->name);
	if (find_loaded_obj(p, &o) != NONE)
		return 0;
	k = add_object(p, &o, path, NULL, NULL, p->main);
	map_closure(p, k);
	return 0;
}

/*
 * A problem's detail as one line (the paths tried, one a line, joined by
 * "; "): a host's failure is a sentence of the report, on every file it
 * leaves unjudged and in a note.
 */
static char *one_line(const char *detail)
{
	lo_buf b = LO_BUF_INIT;
	const char *nl;

	lo_buf_puts(&b, "");
	while ((nl = strchr(detail, '\n'))) {
		bool heading = nl > detail && nl[-1] == ':'; /* "not found; tried:" */

		lo_buf_add(&b, detail, (size_t)(nl - detail));
		detail = nl + 1;
		if (*detail)
			lo_buf_puts(&b, heading ? " " : "; ");
	}
	lo_buf_puts(&b, detail);
	return lo_buf_detach(&b);
}

/*
 * The start of `program` (read as o, of p's target) as ld.so makes it:
 * map its closure, check its versions, then bind its symbols (all of them,
 * as under LD_BIND_NOW, as every load here is judged). The problems say
 * whether it would start.
 */
static void play_start(proc *p, const got *o, const char *program)
{
	/* The program's $ORIGIN comes from the kernel's path of it: symlinks resolved. */
	char *real = realpath(program, NULL);
	const char *origin = lo_resolve_keep_dirname(p, real ? real : program);

	p->dirs = lo_resolver_dirs(p->r, p->target);
	p->main = add_object(p, o, program, origin, NULL, NONE);
	free(real);
	trace_object(p, program, program, NONE, LO_VIA_CANDIDATE, NULL, NULL, 0);
	if (!map_closure(p, 0) && !check_versions(p))
		bind_symbols(p, NULL, NULL);
}

/* Make the host: `program` and its preloads, or a plain C program of `target`. */
static int host_new(lo_host **out, lo_resolver *r, const char *program, const lo_target *target,
		    const char *const *preload, size_t preload_count)
{
	lo_host *h = lo_xcalloc(1, sizeof(*h));
	proc *p = &h->p;
	size_t i;
	int err;

	*out = NULL;
	p->r = r;
	p->use = LO_USE_HOST;
	p->main = NONE;
	p->target = target;
	if (program) {
		got o = lo_resolver_open(r, program, LO_USE_HOST);

		if (!o.elf) {
			err = lo_error_set(o.err, "cannot use host program: %s%s",
					   lo_resolver_why(&o, program),
					   o.err == LO_ENOTELF
						   ? " (a script or shim, not the program itself?)"
						   : "");
			goto fail;
		}
		p->target = lo_target_of(o.elf);
		if (!p->target) {
			err = lo_error_set(LO_EINVALID,
					   "host program '%s' is an ELF program for machine %d (%s), "
					   "whose loader leftover does not model", program,
					   lo_elf_machine(o.elf), lo_resolve_class_name(o.elf));
			goto fail;
		}
		h->name = lo_xstrdup(program);
		/* A program is a host only if it would start. */
		play_start(p, &o, program);
		for (i = 0; i < preload_count && !p->problem_count; i++)
			if ((err = host_preload(h, preload[i])) < 0)
				goto fail;
	} else {
		lookup lk = { .name = target->libc };

		p->dirs = lo_resolver_dirs(r, target);
		/* A C program needs libc and nothing else. */
		if (lo_resolve_search(p, NONE, &lk) != TRY_FOUND) {
			err = lo_error_set(LO_ENOTFOUND,
					   "cannot find %s of %s for a plain C program%s%s",
					   target->libc, target->name, lk.fatal ? ": " : "",
					   lk.fatal ? lk.fatal : "");
			free(lk.fatal);
			goto fail;
		}
		add_object(p, &lk.found, lk.path, NULL, target->libc, NONE);
		h->name = target == lo_target_native() ? lo_xstrdup("(C program)")
							: lo_resolve_fmt("(%s C program)", target->arch);
		map_closure(p, 0);
	}
	if (p->problem_count) {
		const lo_problem *pr = &p->problems[0];
		char *why = one_line(pr->detail);

		/* In ld.so's words: the file the need names (or that has it), then why. */
		err = lo_error_set(LO_ENOTFOUND, "host %s cannot %s: %s: %s", h->name,
				   pr->kind == LO_PROBLEM_MISSING_LIBRARY ||
						   pr->kind == LO_PROBLEM_BAD_LIBRARY
					   ? "load"
					   : "start",
				   pr->kind == LO_PROBLEM_UNDEFINED_SYMBOL ? pr->object : pr->library,
				   why);
		free(why);
		goto fail;
	}
	p->first_new = p->count;
	h->names = lo_xcalloc(LO_HOST_BITS / 64, sizeof(uint64_t));
	for (i = 0; i < p->count; i++)
		lo_elf_foreach_defined_hash(p->objs[i].elf, set_name_bit, h->names);
	p->host_names = h->names;
	*out = h;
	return 0;
fail:
	lo_host_free(h);
	return err;
}

int lo_host_new(lo_host **out, lo_resolver *r, const char *program)
{
	return host_new(out, r, program, lo_target_native(), NULL, 0);
}

int lo_host_new_preloaded(lo_host **out, lo_resolver *r, const char *program,
			  const char *const *preload, size_t preload_count)
{
	return host_new(out, r, program, lo_target_native(), preload, preload_count);
}

int lo_host_new_plain(lo_host **out, lo_resolver *r, const lo_target *target)
{
	return host_new(out, r, NULL, target, NULL, 0);
}

const lo_target *lo_host_target(const lo_host *h)
{
	return h->p.target;
}

void lo_host_free(lo_host *h)
{
	if (!h)
		return;
	proc_dispose(&h->p);
	free(h->name);
	free(h->names);
	free(h);
}

const char *lo_host_name(const lo_host *h)
{
	return h->name;
}

/* ---- dlopen ------------------------------------------------------------ */

int lo_load_simulate(lo_load **out, lo_resolver *r, const lo_host *host, const char *path,
		     unsigned flags, lo_symbol_filter filter, void *filter_payload)
{
	return lo_load_simulate_own(out, r, host, path, NULL, flags, filter, filter_payload);
}

int lo_load_simulate_own(lo_load **out, lo_resolver *r, const lo_host *host, const char *path,
			 const lo_elf *own, unsigned flags, lo_symbol_filter filter,
			 void *filter_payload)
{
	lo_load *l = lo_xcalloc(1, sizeof(*l));
	proc *p = &l->p;
	got o;
	size_t k;

	p->r = r;
	p->use = LO_USE_LIBRARY;
	p->target = host->p.target;
	p->dirs = host->p.dirs;
	p->trace = (flags & LO_LOAD_TRACE) != 0;
	p->main = host->p.main;
	p->host_names = host->p.host_names;
	/* The host's objects are shared, not copied: their strings belong to the host. */
	lo_array_grow(&p->objs, &p->cap, host->p.count, sizeof(lobj));
	memcpy(p->objs, host->p.objs, host->p.count * sizeof(lobj));
	p->count = p->first_new = host->p.count;
	*out = l;

	o = own ? (got){ NULL, own, 0, 0, NULL } : lo_resolver_open(r, path, LO_USE_CANDIDATE);
	if (!o.elf) {
		add_problem(p, LO_PROBLEM_UNREADABLE, lo_resolve_keep_dup(p, path), NULL, NULL, NULL,
			    lo_xstrdup(lo_resolver_why(&o, path)));
		return 0;
	}
	l->elf = o.elf;
	if (lo_elf_class(o.elf) != p->target->elf_class ||
	    lo_elf_data(o.elf) != p->target->elf_data ||
	    lo_elf_machine(o.elf) != p->target->machine) {
		add_problem(p, LO_PROBLEM_WRONG_CLASS, lo_resolve_keep_dup(p, path), NULL, NULL, NULL,
			    lo_elf_class(o.elf) != p->target->elf_class
				    ? lo_resolve_fmt("wrong ELF class: %s", lo_resolve_class_name(o.elf))
				    : lo_resolve_fmt("ELF machine %d, byte order %d: not an %s object",
					  lo_elf_machine(o.elf), lo_elf_data(o.elf),
					  p->target->arch));
		return 0;
	}
	if (lo_elf_type(o.elf) != LO_ET_DYN || lo_elf_is_pie(o.elf)) {
		add_problem(p, LO_PROBLEM_NOT_LOADABLE, lo_resolve_keep_dup(p, path), NULL, NULL, NULL,
			    lo_resolve_fmt(lo_elf_type(o.elf) == LO_ET_REL ? "a relocatable object (.o), not a shared object"
				: "an executable, which dlopen refuses"));
		return 0;
	}
	/* dlopen of an object already in the process returns it. */
	if ((k = find_loaded_obj(p, &o)) != NONE) {
		trace_object(p, path, p->objs[k].path, NONE, LO_VIA_ALREADY, NULL, NULL, 0);
		return 0;
	}
	add_object(p, &o, path, NULL, NULL, p->main);
	p->objs[p->count - 1].depth = 0;
	trace_object(p, path, path, NONE, LO_VIA_CANDIDATE, NULL, NULL, 0);
	if (!map_closure(p, p->first_new) && !check_versions(p))
		bind_symbols(p, filter, filter_payload);
	lo_resolver_keep_bounded(r, p->objs + p->first_new, p->count - p->first_new);
	return 0;
}

int lo_load_start(lo_load **out, lo_resolver *r, const char *program, unsigned flags)
{
	lo_load *l = lo_xcalloc(1, sizeof(*l));
	proc *p = &l->p;
	got o = lo_resolver_open(r, program, LO_USE_LIBRARY);
	char *interp = NULL;

	p->r = r;
	p->use = LO_USE_LIBRARY;
	p->trace = (flags & LO_LOAD_TRACE) != 0;
	p->main = NONE;
	*out = l;
	if (!o.elf) {
		add_problem(p, LO_PROBLEM_UNREADABLE, lo_resolve_keep_dup(p, program), NULL, NULL,
			    NULL, lo_xstrdup(lo_resolver_why(&o, program)));
		return 0;
	}
	l->elf = o.elf;
	if (!(p->target = lo_target_of(o.elf))) {
		add_problem(p, LO_PROBLEM_WRONG_CLASS, lo_resolve_keep_dup(p, program), NULL, NULL,
			    NULL, lo_resolve_fmt("ELF machine %d (%s): a program whose loader "
						 "leftover does not model", lo_elf_machine(o.elf),
						 lo_resolve_class_name(o.elf)));
		return 0;
	}
	/* the kernel maps the interpreter first: without it nothing starts */
	if (lo_elf_read_interp(program, &interp) == 0 && interp &&
	    !lo_resolver_has_file(r, interp)) {
		const char *name = lo_resolve_keep(p, interp);

		add_problem(p, LO_PROBLEM_MISSING_LIBRARY, lo_resolve_keep_dup(p, program), NULL,
			    NULL, name, lo_resolve_fmt("its interpreter %s is not there: the kernel "
							"refuses to start it", name));
		return 0;
	}
	free(interp);
	play_start(p, &o, program);
	return 0;
}

void lo_load_free(lo_load *l)
{
	if (!l)
		return;
	proc_dispose(&l->p);
	free(l);
}

const char *lo_load_changed(const lo_load *l)
{
	size_t i;

	for (i = 0; i < l->p.count; i++)
		if (lo_elf_changed(l->p.objs[i].elf))
			return l->p.objs[i].path;
	return NULL;
}

bool lo_load_ok(const lo_load *l) { return l->p.problem_count == 0; }
size_t lo_load_problem_count(const lo_load *l) { return l->p.problem_count; }
const lo_problem *lo_load_problem_at(const lo_load *l, size_t i) { return i < l->p.problem_count ? &l->p.problems[i] : NULL; }
const lo_elf *lo_load_elf(const lo_load *l) { return l->elf; }
size_t lo_load_object_count(const lo_load *l) { return l->p.tobj_count; }
const lo_trace_object *lo_load_object_at(const lo_load *l, size_t i) { return i < l->p.tobj_count ? &l->p.tobjs[i] : NULL; }
size_t lo_load_symbol_count(const lo_load *l) { return l->p.tsym_count; }
const lo_trace_symbol *lo_load_symbol_at(const lo_load *l, size_t i) { return i < l->p.tsym_count ? &l->p.tsyms[i] : NULL; }

const char *lo_problem_kind_str(lo_problem_kind k)
{
	switch (k) {
	case LO_PROBLEM_UNDEFINED_SYMBOL: return "undefined-symbol";
	case LO_PROBLEM_MISSING_VERSION: return "missing-version";
	case LO_PROBLEM_MISSING_LIBRARY: return "missing-library";
	case LO_PROBLEM_BAD_LIBRARY: return "bad-library";
	case LO_PROBLEM_WRONG_CLASS: return "wrong-class";
	case LO_PROBLEM_NOT_LOADABLE: return "not-loadable";
	case LO_PROBLEM_UNREADABLE: return "unreadable";
	}
	return "unknown";
}
