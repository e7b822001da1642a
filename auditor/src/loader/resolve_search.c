/*
 * resolve_search.c - where the loader finds a needed library (resolve_int.h).
 *
 * One needed name is looked for in the places of its target's search
 * order (target.h's lo_search_step: glibc's RPATH, LD_LIBRARY_PATH,
 * RUNPATH, ld.so.cache and default directories; musl's own names,
 * LD_LIBRARY_PATH, the rpaths up the chain of loaders and its path file),
 * each candidate file judged as the loader's open_verify judges it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/elf_format.h"
#include "leftover/error.h"
#include "loader/resolve_int.h"

const char *lo_resolve_class_name(const lo_elf *e)
{
	return lo_elf_class(e) == LO_ELFCLASS32 ? "ELFCLASS32" : "ELFCLASS64";
}

/*
 * The object read at `path`, as open_verify judges it: a file of the wrong
 * class or machine is passed over, one ld.so cannot map stops the load.
 */
static enum try_result judge_file(proc *p, const char *path, const lo_elf *e, lookup *lk)
{
	if (lo_elf_class(e) != p->target->elf_class) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "%s: wrong ELF class %s, skipped\n", path,
				      lo_resolve_class_name(e));
		return TRY_NEXT;
	}
	/* passed over, as glibc 2.36's loaders do both ways (x86-64 and s390x, tried) */
	if (lo_elf_data(e) != p->target->elf_data) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "%s: ELF data encoding not %s, skipped\n", path,
				      p->target->elf_data == LO_ELFDATA2LSB ? "little-endian"
									 : "big-endian");
		return TRY_NEXT;
	}
	if (lo_elf_machine(e) != p->target->machine) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "%s: ELF machine %d is not %s, skipped\n", path,
				      lo_elf_machine(e), p->target->arch);
		return TRY_NEXT;
	}
	if (lo_elf_type(e) != LO_ET_DYN || lo_elf_is_pie(e)) {
		lk->fatal = lo_resolve_fmt("'%s': %s", path,
				lo_elf_type(e) == LO_ET_EXEC || lo_elf_is_pie(e)
					? "cannot dynamically load an executable"
					: "only ET_DYN and ET_EXEC can be loaded");
		return TRY_FATAL;
	}
	return TRY_FOUND;
}

/* One candidate path: read and judged; a file that is not there is passed over. */
static enum try_result try_file(proc *p, const char *path, lookup *lk)
{
	got o = lo_resolver_open(p->r, path, p->use);
	const lo_elf *e = o.elf;
	enum try_result res;

	if (!e && o.err == LO_ERROR && (o.errnum == ENOENT || o.errnum == ENOTDIR ||
					o.errnum == EACCES)) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "%s: %s\n", path, strerror(o.errnum));
		return TRY_NEXT;
	}
	if (!e) {
		lk->fatal = lo_resolve_fmt("%s", lo_resolver_why(&o, path));
		return TRY_FATAL;
	}
	if ((res = judge_file(p, path, e, lk)) == TRY_FOUND)
		lk->found = o;
	return res;
}

/*
 * lk->name in directory `dir`: first in dir/glibc-hwcaps/SUB/ for each
 * subdirectory the CPU supports, best first (glibc 2.33+), then in dir.
 * The paths are built in the proc's one buffer: this runs for every
 * directory of every search, and a formatted string each cost more than
 * the lookup.
 */
static enum try_result try_dir(proc *p, const char *dir, lookup *lk)
{
	const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
	unsigned subdirs = lo_resolver_hwcaps_in(p->r, p->dirs, dir);
	enum try_result res = TRY_NEXT;
	lo_buf *path = &p->path;
	size_t i;

	for (i = 0; i <= p->dirs->hwcap_count; i++) {
		if (i < p->dirs->hwcap_count && !(subdirs & 1u << i))
			continue;
		lo_buf_clear(path);
		lo_buf_puts(path, dir);
		lo_buf_puts(path, sep);
		if (i < p->dirs->hwcap_count) {
			lo_buf_puts(path, "glibc-hwcaps/");
			lo_buf_puts(path, p->dirs->hwcaps[i]);
			lo_buf_putc(path, '/');
		}
		lo_buf_puts(path, lk->name);
		if ((res = try_file(p, lo_buf_cstr(path), lk)) == TRY_FOUND) {
			lk->path = lo_strpool_add(&p->pool, path->ptr, path->len);
			return res;
		}
		if (res != TRY_NEXT)
			break;
	}
	return res;
}

/*
 * Search one colon-separated path list (an RPATH, RUNPATH) for lk->name;
 * empty entries are passed over. Each entry is expanded into the proc's
 * buffer, where the list stays as it is.
 */
static enum try_result try_list(proc *p, const char *list, const char *origin, lookup *lk)
{
	enum try_result res = TRY_NEXT;
	const char *tok, *end;

	if (lo_resolve_dst_refused(list, p->target)) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "%s: ignored, a $ other than $ORIGIN\n", list);
		return TRY_NEXT;
	}
	for (tok = list; *tok; tok = *end ? end + 1 : end) {
		end = tok + strcspn(tok, ":");
		if (end == tok)
			continue;
		lo_resolve_expand_dst(&p->dir, tok, (size_t)(end - tok), origin, p->target);
		res = p->dir.len ? try_dir(p, lo_buf_cstr(&p->dir), lk) : TRY_NEXT;
		if (res == TRY_FOUND) {
			lk->via_detail = lo_strpool_add(&p->pool, tok, (size_t)(end - tok));
			break;
		}
		if (res == TRY_FATAL)
			break;
	}
	return res;
}

static enum try_result try_dirs(proc *p, char *const *dirs, size_t count, lookup *lk)
{
	size_t i;

	for (i = 0; i < count; i++) {
		enum try_result res = try_list(p, dirs[i], "", lk);

		if (res != TRY_NEXT)
			return res;
	}
	return TRY_NEXT;
}

/* DT_RPATH of the requesting object and of each object up its chain of loaders. */
static enum try_result try_rpaths(proc *p, size_t req, lookup *lk)
{
	size_t l;

	for (l = req; l != NONE; l = p->objs[l].loader) {
		const char *rpath = lo_elf_rpath(p->objs[l].elf);
		enum try_result res;

		if (!rpath || (res = try_list(p, rpath, p->objs[l].origin, lk)) == TRY_NEXT)
			continue;
		lk->via = LO_VIA_RPATH;
		if (res == TRY_FOUND && l != req)
			lk->via_detail = lo_resolve_keep(p, lo_resolve_fmt("%s, inherited from %s", lk->via_detail,
						     p->objs[l].path));
		return res;
	}
	return TRY_NEXT;
}

/* /etc/ld.so.cache, or the ld.so.conf directories when there is none. */
static enum try_result try_ldconfig(proc *p, const target_dirs *d, lookup *lk)
{
	const char *cached;
	enum try_result res;

	if (!d->cache) {
		lk->via = LO_VIA_LDSO_CONF;
		return try_dirs(p, p->r->conf_dirs, p->r->conf_count, lk);
	}
	lk->via = LO_VIA_LDSO_CACHE;
	if (!(cached = lo_map_get(d->cache, lk->name, NULL))) {
		if (lk->tried)
			lo_buf_printf(lk->tried, "/etc/ld.so.cache: no entry for %s\n", lk->name);
		return TRY_NEXT;
	}
	if ((res = try_file(p, cached, lk)) == TRY_FOUND)
		lk->path = lo_resolve_keep_dup(p, cached);
	return res;
}

/* Is lk->name one the loader answers itself (musl's libc names)? Then it is that object. */
static enum try_result try_self(proc *p, lookup *lk)
{
	const char *const *b;
	enum try_result res;

	for (b = p->target->builtin; b && *b; b++) {
		if (strncmp(lk->name, *b, strlen(*b)))
			continue;
		lk->via = LO_VIA_ALREADY;
		if ((res = try_file(p, p->target->libc, lk)) == TRY_FOUND)
			lk->path = lo_resolve_keep_dup(p, p->target->libc);
		return res;
	}
	return TRY_NEXT;
}

/* musl: DT_RUNPATH, else DT_RPATH, of object `req` and of each object up its chain of loaders. */
static enum try_result try_path_chain(proc *p, size_t req, lookup *lk)
{
	size_t l;

	for (l = req; l != NONE; l = p->objs[l].loader) {
		const lo_elf *e = p->objs[l].elf;
		const char *list = lo_elf_runpath(e) ? lo_elf_runpath(e) : lo_elf_rpath(e);
		enum try_result res;

		if (!list || (res = try_list(p, list, p->objs[l].origin, lk)) == TRY_NEXT)
			continue;
		lk->via = lo_elf_runpath(e) ? LO_VIA_RUNPATH : LO_VIA_RPATH;
		return res;
	}
	return TRY_NEXT;
}

/* One place of the target's search order (target.h) for lk->name, needed by `req`. */
static enum try_result search_step(proc *p, lo_search_step step, const lobj *rq, size_t req,
				   lookup *lk)
{
	enum try_result res = TRY_NEXT;

	switch (step) {
	case LO_SEARCH_SELF:
		return try_self(p, lk);
	case LO_SEARCH_RPATH:
		return !rq || lo_elf_runpath(rq->elf) ? TRY_NEXT : try_rpaths(p, req, lk);
	case LO_SEARCH_LIBRARY_PATH:
		lk->via = LO_VIA_LD_LIBRARY_PATH;
		return try_dirs(p, p->r->llp, p->r->llp_count, lk);
	case LO_SEARCH_RUNPATH:
		if (!rq || !lo_elf_runpath(rq->elf))
			return TRY_NEXT;
		lk->via = LO_VIA_RUNPATH;
		return try_list(p, lo_elf_runpath(rq->elf), rq->origin, lk);
	case LO_SEARCH_PATH_CHAIN:
		return req == NONE ? TRY_NEXT : try_path_chain(p, req, lk);
	case LO_SEARCH_NODEFLIB:
		return rq && lo_elf_nodeflib(rq->elf) ? TRY_STOP : TRY_NEXT;
	case LO_SEARCH_CACHE:
		return try_ldconfig(p, p->dirs, lk);
	case LO_SEARCH_DEFAULTS:
		lk->via = LO_VIA_DEFAULT;
		res = try_dirs(p, p->dirs->defaults, p->dirs->default_count, lk);
		break;
	case LO_SEARCH_END:
		break;
	}
	return res;
}

/*
 * Find lk->name, needed by object `req` (NONE for the plain C host's libc),
 * in the loader's order, filling lk.
 */
enum try_result lo_resolve_search(proc *p, size_t req, lookup *lk)
{
	const lobj *rq = req == NONE ? NULL : &p->objs[req];
	const lo_search_step *step;
	enum try_result res;

	lk->via_detail = NULL;
	if (strchr(lk->name, '/')) {
		lo_resolve_expand_dst(&p->path, lk->name, strlen(lk->name), rq ? rq->origin : "",
				      p->target);
		lk->via = LO_VIA_PATH;
		if ((res = try_file(p, lo_buf_cstr(&p->path), lk)) == TRY_FOUND)
			lk->path = lo_strpool_add(&p->pool, p->path.ptr, p->path.len);
		return res;
	}
	for (step = p->target->search; *step != LO_SEARCH_END; step++) {
		if ((res = search_step(p, *step, rq, req, lk)) == TRY_STOP)
			break;
		if (res != TRY_NEXT)
			return res;
	}
	lk->via = LO_VIA_NOT_FOUND;
	return TRY_NEXT;
}

/* How the search found a library, in the words of the trace (explain --verbose). */
const char *lo_found_via_str(lo_found_via v)
{
	switch (v) {
	case LO_VIA_CANDIDATE: return "candidate";
	case LO_VIA_ALREADY: return "already loaded";
	case LO_VIA_PATH: return "path";
	case LO_VIA_RPATH: return "RPATH";
	case LO_VIA_LD_LIBRARY_PATH: return "LD_LIBRARY_PATH";
	case LO_VIA_RUNPATH: return "RUNPATH";
	case LO_VIA_LDSO_CACHE: return "ld.so.cache";
	case LO_VIA_LDSO_CONF: return "ld.so.conf";
	case LO_VIA_DEFAULT: return "default path";
	case LO_VIA_NOT_FOUND: return "not found";
	}
	return "unknown";
}
