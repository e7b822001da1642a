/*
 * judge_macho.c - the facts of one Mach-O candidate (scan_int.h): its
 * kind, and dyld's load of it played from its host (dyld.h).
 *
 * What differs from an ELF candidate is the loader and its host, not the
 * verdict: the problems dyld would raise become the same reasons, in
 * dyld's words, and the build records decide staleness afterwards as for
 * any file (scan_judge.c). The host of a Python extension is the
 * interpreter given with --python when it is a Mach-O file; else (a tree
 * judged off a Mac) the interpreter stands in by its C API's prefixes,
 * and a reason "loader-note" says so, with the text stubs the load used.
 * A flat lookup of an extension module may end in what the other modules
 * of its directory map (dyld.c's top says why): each image so assumed
 * loaded is a "loader-note" too, naming the module that loads it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/dyld.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "hosts/pyext.h"
#include "scan/scan_int.h"

/* The module name of a Python extension at abs, when named as one: its length. */
static size_t python_module(const lo_macho *m, const char *abs)
{
	const char *base = lo_os_path_last_separator(abs) + 1;
	size_t n = lo_pyext_module_name(base);
	char sym[NAME_MAX + 16];

	if (!n)
		return 0;
	if (lo_pyext_named(abs))
		return n;
	snprintf(sym, sizeof(sym), "_PyInit_%.*s", (int)n, base);
	return lo_macho_find_export(m, sym) ? n : 0;
}

/* A module that loads but has no _PyInit_<name>: the import fails all the same. */
static void python_init_check(lo_file *f, const lo_macho *m, const char *abs, size_t n)
{
	const char *base = lo_os_path_last_separator(abs) + 1;
	char sym[NAME_MAX + 16], *why;

	snprintf(sym, sizeof(sym), "_PyInit_%.*s", (int)n, base);
	if (lo_macho_find_export(m, sym))
		return;
	if (asprintf(&why, "dynamic module does not define module export function (PyInit_%.*s)",
		     (int)n, base) < 0)
		abort();
	lo_file_add_reason(f, LO_REASON_NO_MODULE_INIT, sym, NULL, NULL, NULL, why);
	free(why);
	f->loads = LO_FALSE;
}

lo_kind lo_scan_kind_of_macho(const lo_macho *m, const char *path)
{
	if (lo_macho_filetype(m) != LO_MACHO_DYLIB && lo_macho_filetype(m) != LO_MACHO_BUNDLE)
		return LO_KIND_OTHER;
	return python_module(m, path) ? LO_KIND_PYTHON_EXTENSION : LO_KIND_SHARED_LIBRARY;
}

bool lo_scan_macho_module(const lo_macho *m, const char *path)
{
	return lo_scan_kind_of_macho(m, path) == LO_KIND_PYTHON_EXTENSION;
}

const char *lo_scan_macho_python(const char *python)
{
	return python && lo_macho_is_file(python) ? python : NULL;
}

static void add_problems(scan *s, lo_file *f, const lo_dyld_load *l)
{
	size_t i;

	for (i = 0; i < lo_dyld_load_problem_count(l); i++) {
		const lo_problem *p = lo_dyld_load_problem_at(l, i);

		if (lo_verdict_waives(s->rules, NULL, p))
			continue;
		lo_file_add_reason(f, (lo_reason_kind)p->kind, p->symbol, NULL,
				   p->library ? lo_scan_rel_to_root(s, p->library) : NULL,
				   lo_scan_rel_to_root(s, p->object), p->detail);
	}
}

/* What the load took on trust, no failure: each image assumed loaded by a sibling module, the rest. */
static void add_notes(scan *s, lo_file *f, const lo_dyld_load *l)
{
	size_t i;

	for (i = 0; i < lo_dyld_load_borrowed_count(l); i++) {
		const lo_dyld_borrowed *b = lo_dyld_load_borrowed_at(l, i);

		lo_file_add_reason(f, LO_REASON_LOADER_NOTE, b->symbol, NULL,
				   lo_scan_rel_to_root(s, b->image), lo_scan_rel_to_root(s, b->module),
				   b->detail);
	}
	if (lo_dyld_load_assumed(l))
		lo_file_add_reason(f, LO_REASON_LOADER_NOTE, NULL, NULL, NULL, NULL,
				   lo_dyld_load_assumed(l));
}

int lo_scan_judge_macho(scan *s, lo_file *f, const char *abs)
{
	const lo_macho *m;
	lo_dyld_host host = { NULL, false, lo_scan_macho_module };
	lo_dyld_load *l;
	size_t n = 0;
	int err = lo_dyld_read(s->dyld, abs, &m);

	if (err < 0) {
		f->stage = err == LO_ENOTFOUND ? LO_STAGE_NOTHING_TO_LOAD : LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, err == LO_ENOTFOUND ? LO_REASON_NOT_LOADABLE
							  : LO_REASON_UNREADABLE,
				   NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	if (lo_macho_filetype(m) != LO_MACHO_DYLIB && lo_macho_filetype(m) != LO_MACHO_BUNDLE) {
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_LOADABLE, NULL, NULL, NULL, NULL,
				   lo_macho_filetype(m) == LO_MACHO_EXECUTE
					   ? "a Mach-O executable, which dlopen refuses"
				   : lo_macho_filetype(m) == LO_MACHO_DSYM
					   ? "debug information (a .dSYM companion), which dyld never loads"
					   : "a Mach-O file that is neither a dylib nor a bundle");
		return 0;
	}
	f->kind = (n = python_module(m, abs)) ? LO_KIND_PYTHON_EXTENSION : LO_KIND_SHARED_LIBRARY;
	host.python = n > 0;
	host.main = host.python ? lo_scan_macho_python(s->opts ? s->opts->python : NULL) : NULL;
	if (lo_dyld_play(&l, s->dyld, &host, abs) < 0) {
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->arch = lo_dyld_target_of(m)->name;
	if (host.python)
		f->host = lo_xstrdup(host.main ? host.main : "python (stand-in)");
	add_problems(s, f, l);
	f->stage = LO_STAGE_LOADED;
	f->loads = f->reason_count ? LO_FALSE : LO_TRUE;
	add_notes(s, f, l);
	lo_dyld_load_free(l);
	if (n && f->loads == LO_TRUE)
		python_init_check(f, m, abs, n);
	return 0;
}
