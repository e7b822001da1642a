/*
 * explain.c - `leftover explain FILE|MESSAGE`: what the loader would do for
 * one file, without running it. By default the one-screen case of
 * explain.h (verdict, unmet needs, records, history); with --verbose each
 * step, like `ldd -r -v` and `libtree` together, then the same records.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/dyld.h"
#include "leftover/elf_format.h"
#include "leftover/error.h"
#include "leftover/explain.h"
#include "leftover/hosts.h"
#include "leftover/macho.h"
#include "leftover/os.h"
#include "leftover/report.h"
#include "leftover/resolve.h"
#include "leftover/scan.h"
#include "leftover/trust.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	LO_CLI_OPTS_LOAD,
	{ "verbose", 'v', 'v', NULL, NULL,
	  "every needed library and where it is found (or every\n"
	  "path tried), every undefined symbol and its provider" },
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_explain_cmd = {
	"explain",
	"usage: leftover explain [options] FILE|MESSAGE\n"
	"       leftover explain [options] MESSAGE [DIR]\n"
	"\n"
	"Say why FILE would not load, on one screen: the verdict, the unmet needs and\n"
	"who was searched, whether the current build still produces it and on what\n"
	"evidence, the rule that names it, and which commit dropped it. MESSAGE is\n"
	"an error as Python or dlopen printed it, pasted as one argument:\n"
	"  leftover explain \"ImportError: /b/_m.so: undefined symbol: foo\"\n"
	"A message that names a library instead of a file explains each object of\n"
	"DIR's build tree (default: the current directory's) that needs it:\n"
	"  leftover explain \"ImportError: libcore.so.1: cannot open shared object file: ...\" build\n"
	"Python's Windows message names a module: its X.pyd / X.*.pyd in DIR is explained:\n"
	"  leftover explain \"ImportError: DLL load failed while importing _m: ...\" build\n"
	"\n",
	options,
	"\n"
	"Exit status: 0 it would load and is not stale; 1 it would not load, or the\n"
	"current build no longer produces it; 2 usage or environment error. For a\n"
	"library's message, the worst of the objects explained; 2 when none needs it.\n",
};

static void print_objects(const lo_load *load)
{
	size_t i;

	puts("libraries:");
	for (i = 0; i < lo_load_object_count(load); i++) {
		const lo_trace_object *o = lo_load_object_at(load, i);
		char *name;

		if (o->depth == 0) {
			/* an object the host already has: dlopen maps nothing, it returns that one */
			if (o->via == LO_VIA_ALREADY && o->path) {
				name = lo_report_quote_path(o->path);
				printf("  %s (already loaded)\n", name);
				free(name);
			}
			continue;
		}
		name = lo_report_quote_path(o->name);
		printf("%*s%s => ", (int)(2 * o->depth), "", name);
		free(name);
		if (o->path && o->via == LO_VIA_ALREADY)
			printf("%s (already loaded)\n", o->path);
		else if (o->path)
			printf("%s (%s%s%s)\n", o->path, lo_found_via_str(o->via),
			       o->via_detail ? " " : "", o->via_detail ? o->via_detail : "");
		else
			puts("not found");
		if (o->tried && (!o->path || o->via != LO_VIA_ALREADY)) {
			const char *line = o->tried;

			while (*line) {
				const char *end = strchr(line, '\n');
				int len = end ? (int)(end - line) : (int)strlen(line);

				printf("%*s  tried %.*s\n", (int)(2 * o->depth), "", len, line);
				line += len + (end ? 1 : 0);
			}
		}
	}
}

static void print_symbols(const lo_load *load, const char *file)
{
	size_t i;

	if (!lo_load_symbol_count(load))
		return;
	puts("symbols:");
	for (i = 0; i < lo_load_symbol_count(load); i++) {
		const lo_trace_symbol *s = lo_load_symbol_at(load, i);
		char *sym = lo_report_demangle(s->symbol);

		printf("  %s%s%s", sym, s->version ? "@" : "", s->version ? s->version : "");
		if (strcmp(s->object, file))
			printf(" (from %s)", s->object);
		if (s->provider)
			printf(" => %s\n", s->provider);
		else
			printf(" => %s\n", s->weak ? "unresolved, weak: allowed" : "NOT FOUND");
		free(sym);
	}
}

/*
 * The [host] of the rules that takes the file at abs, as a scan would find
 * it: by its path in its build tree, or its absolute path outside one
 * (rules.h), or NULL.
 */
static const lo_rules_host *ruled_host(const lo_cli_opts *o, const char *abs, const lo_elf *e)
{
	char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs));
	char *base = lo_buildsys_base_of(*dir ? dir : "/");
	size_t blen = strlen(base);
	const char *path = lo_buildsys_is_tree(base) && !strncmp(abs, base, blen) && abs[blen] == '/'
				   ? abs + blen + 1
				   : abs;
	const lo_rules_host *h = lo_rules_host_of(o->rules, path, lo_hosts_elf_has, (void *)e);

	free(base);
	free(dir);
	return h;
}

/*
 * The program that loads the file at abs, as the scan picks it: the
 * program of a [host] rule that takes it, unless --python or --host names
 * one; the interpreter for a Python extension; --host for another object;
 * else NULL (a plain C program). A shim is followed (hosts.h), said so with
 * --verbose. Returns 0, or -1 after printing the error.
 */
static int host_program(char **out, const lo_cli_opts *o, const char *abs, const lo_elf *e,
			lo_kind kind, bool verbose)
{
	const lo_rules_host *ruled = ruled_host(o, abs, e);
	const char *given = kind == LO_KIND_PYTHON_EXTENSION ? o->scan.python : o->scan.host;
	char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs)), *program = NULL;
	lo_trust *trust = lo_trust_new(o->scan.trust_tree);
	lo_hosts_program *real;
	bool vouched = false;
	int err;

	*out = NULL;
	/* the file's tree may name a program as a scan's may: the same trust (trust.h) */
	lo_trust_add_tree(trust, dir, o->scan.source);
	if (lo_rules_trusts_tree(o->rules, dir))
		lo_trust_vouch(trust);
	if (ruled && !given && (program = lo_rules_host_program_for(ruled, abs))) {
		/* the rule's program, or one shipped beside the file */
		vouched = lo_rules_host_program_vouched(ruled, program);
	} else if (kind == LO_KIND_PYTHON_EXTENSION) {
		program = lo_hosts_python_for(o->scan.python, dir);
		vouched = o->scan.python || (program && lo_hosts_python_on_path(program));
		if (!program) {
			lo_cli_error("explain: no Python interpreter found; name one with --python");
			free(dir);
			lo_trust_free(trust);
			return -1;
		}
	} else if (o->scan.host) {
		program = lo_xstrdup(o->scan.host);
		vouched = true;
	}
	free(dir);
	err = program ? lo_hosts_program_new(&real, program,
					     kind == LO_KIND_PYTHON_EXTENSION ? "python" : NULL,
					     vouched ? NULL : trust)
		      : 0;
	lo_trust_free(trust);
	if (!program)
		return 0;
	if (err < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		free(program);
		return -1;
	}
	if (real->unasked)
		fprintf(stderr, "leftover: note: %s\n", real->unasked);
	if (real->how && verbose)
		fprintf(stderr, "leftover: note: %s\n", real->how);
	free(program);
	*out = lo_xstrdup(real->path);
	lo_hosts_program_free(real);
	return 0;
}

/* `program` with what its [host] rule says it loads first, as the scan makes it. */
static int host_with_preloads(lo_host **out, lo_resolver *r, const char *program,
			      const lo_cli_opts *o, const char *abs, const lo_elf *e, lo_kind kind)
{
	const lo_rules_host *ruled = ruled_host(o, abs, e);
	const char *given = kind == LO_KIND_PYTHON_EXTENSION ? o->scan.python : o->scan.host;
	size_t n = 0;
	const char *const *pre = ruled && !given && lo_rules_host_program(ruled)
					 ? lo_rules_host_preload(ruled, &n) : NULL;

	return lo_hosts_host_new(out, r, program, pre, n);
}

/*
 * What the reader found in the image m (--verbose), one fact a line, in
 * a form the tests hold against llvm-objdump's reading.
 */
static void print_macho(const lo_macho *m, const lo_dyld_load *l /* or NULL */)
{
	char cur[16], compat[16];
	size_t i;

	printf("  image: %s, filetype %d, imports from %s%s\n", lo_macho_cpu_name(m),
	       lo_macho_filetype(m), lo_macho_imports_from(m) ? lo_macho_imports_from(m) : "none",
	       lo_macho_universal(m) ? ", a slice of a universal file" : "");
	if (lo_macho_install_name(m))
		printf("  id: %s (compatibility version %s, current version %s)\n",
		       lo_macho_install_name(m), lo_macho_version_str(lo_macho_compat_version(m), compat),
		       lo_macho_version_str(lo_macho_current_version(m), cur));
	for (i = 0; i < lo_macho_dylib_count(m); i++) {
		const lo_macho_dylib *d = lo_macho_dylib_at(m, i);

		printf("  dylib %zu: %s (%s, compatibility version %s, current version %s)\n", i + 1,
		       d->name, lo_macho_dylib_kind_str(d->kind),
		       lo_macho_version_str(d->compat_version, compat),
		       lo_macho_version_str(d->current_version, cur));
	}
	for (i = 0; i < lo_macho_rpath_count(m); i++)
		printf("  rpath: %s\n", lo_macho_rpath_at(m, i));
	for (i = 0; i < lo_macho_import_count(m); i++) {
		const lo_macho_import *imp = lo_macho_import_at(m, i);

		printf("  import: %s %d%s%s\n", imp->name, imp->ordinal, imp->weak ? " weak" : "",
		       imp->lazy ? " lazy" : "");
	}
	for (i = 0; i < lo_macho_export_count(m); i++) {
		const lo_macho_export *e = lo_macho_export_at(m, i);

		if (e->reexport)
			printf("  export: %s reexport %d %s\n", e->name, e->ordinal, e->import);
		else
			printf("  export: %s\n", e->name);
	}
	for (i = 0; l && i < lo_dyld_load_image_count(l); i++)
		printf("  mapped: %s\n", lo_dyld_load_image_at(l, i));
	if (l && lo_dyld_load_warnings(l))
		printf("  warning: %s", lo_dyld_load_warnings(l));
}

/*
 * Explain the Mach-O image at abs as dyld would load it (dyld.h), from
 * the Python interpreter given with --python for an extension module, or
 * its stand-in. Returns the exit status this image gives.
 */
static int explain_macho(const lo_cli_opts *o, const char *abs, const char *named,
			 bool verbose)
{
	lo_dyld_host host = { NULL, false, lo_scan_macho_module };
	lo_explain *records = NULL;
	lo_buf summary = LO_BUF_INIT, assumed = LO_BUF_INIT;
	lo_dyld_load *l = NULL;
	const lo_macho *m;
	lo_dyld *d = lo_dyld_new(NULL);
	lo_kind kind;
	size_t n, i;
	int rc = LO_EXIT_ERROR;

	if (lo_dyld_read(d, abs, &m) >= 0 && verbose &&
	    lo_scan_kind_of_macho(m, abs) == LO_KIND_OTHER) {
		/* what was read of an image dyld does not dlopen, all the same */
		printf("%s\n", abs);
		print_macho(m, NULL);
	}
	if (!m || (kind = lo_scan_kind_of_macho(m, abs)) == LO_KIND_OTHER) {
		lo_cli_error("explain: %s", m ? "a Mach-O file dyld does not dlopen (not a dylib "
					  "or bundle)" : lo_error_last());
		goto out;
	}
	host.python = kind == LO_KIND_PYTHON_EXTENSION;
	host.main = host.python ? lo_scan_macho_python(o->scan.python) : NULL;
	if (lo_dyld_play(&l, d, &host, abs) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	if (verbose) {
		printf("%s\n", abs);
		print_macho(m, l);
	}
	n = lo_dyld_load_problem_count(l);
	/* the images assumed loaded by the package's other modules, then the rest */
	for (i = 0; i < lo_dyld_load_borrowed_count(l); i++)
		lo_buf_printf(&assumed, "%s%s", i ? "; " : "", lo_dyld_load_borrowed_at(l, i)->detail);
	if (lo_dyld_load_assumed(l))
		lo_buf_printf(&assumed, "%s%s", assumed.len ? "; " : "", lo_dyld_load_assumed(l));
	lo_explain_records(&records, abs, n == 0);
	lo_explain_write_problems(&summary, abs, kind,
				  host.main ? host.main : host.python ? "python (stand-in)"
								      : "(a C program)",
				  n ? lo_dyld_load_problem_at(l, 0) : NULL, n,
				  assumed.len ? assumed.ptr : NULL, records, named);
	fputs(lo_buf_cstr(&summary), stdout);
	rc = !n && (!records || records->orphan.orphan != 1) ? LO_EXIT_CLEAN : LO_EXIT_FINDINGS;
out:
	lo_buf_dispose(&summary);
	lo_buf_dispose(&assumed);
	lo_explain_free(records);
	lo_dyld_load_free(l);
	lo_dyld_free(d);
	return rc;
}

/*
 * The host of abs inferred from what its failed `*load` lacks, as the scan
 * infers it: on success *load is played again from it and its program
 * returned (owned), else NULL. *hosts holds what the new load borrows.
 */
static char *infer_host(lo_hosts **hosts, lo_load **load, lo_resolver *r, const char *abs,
			const char *tree)
{
	lo_hosts_inferred in;
	char *program;

	*hosts = lo_hosts_new(r, NULL, NULL, NULL);
	if (!lo_hosts_infer(*hosts, abs, NULL, lo_buildsys_is_tree(tree) ? tree : NULL, NULL, *load,
			    &in))
		return NULL;
	lo_load_free(*load);
	lo_load_simulate(load, r, in.with, abs, LO_LOAD_TRACE, NULL, NULL);
	printf("%s: host %s\n", abs, in.why);
	program = lo_xstrdup(in.host);
	lo_hosts_inferred_dispose(&in);
	return program;
}

/*
 * Explain the object at abs on stdout, as one screen (and each step with
 * `verbose`); `named` is the symbol or library the user's message names,
 * or NULL. The rules are those of abs's directory unless o has some
 * already. Returns the exit status this object gives.
 */
static int explain_file(lo_cli_opts *o, const char *abs, const char *named, bool verbose)
{
	char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs)), *tree;
	lo_explain *records = NULL;
	lo_buf summary = LO_BUF_INIT;
	char *program = NULL;
	lo_resolver_opts ropts;
	lo_resolver *r = NULL;
	lo_host *host = NULL;
	lo_hosts *hosts = NULL;
	lo_load *load = NULL;
	const lo_elf *e;
	const lo_target *target;
	lo_kind kind;
	int rc = LO_EXIT_ERROR;

	if (lo_macho_is_file(abs)) {
		free(dir);
		return explain_macho(o, abs, named, verbose);
	}
	memset(&ropts, 0, sizeof(ropts));
	ropts.library_path = o->scan.library_path;
	ropts.library_path_count = o->scan.library_path_count;
	/* the file's build tree (or its directory) is read where it is, the rest under --sysroot */
	tree = lo_buildsys_base_of(dir);
	ropts.sysroot = o->scan.sysroot;
	ropts.hwcaps = o->scan.hwcaps;
	ropts.outside = (const char *const *)(tree ? &tree : &dir);
	ropts.outside_count = 1;
	if (lo_resolver_new(&r, &ropts) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	if (lo_resolver_read(r, abs, &e) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	kind = lo_scan_kind_of(e, abs);
	/* a program is not loaded by another: the question is whether it would start */
	if (lo_elf_type(e) == LO_ET_EXEC || lo_elf_is_pie(e)) {
		lo_load_start(&load, r, abs, LO_LOAD_TRACE);
		if (verbose) {
			printf("%s\n  kind: program\n", abs);
			print_objects(load);
			print_symbols(load, abs);
		}
		lo_explain_records(&records, abs, lo_load_ok(load));
		lo_explain_write_summary(&summary, abs, kind, NULL, load, records, named);
		goto written;
	}
	/* the rules of the file's own tree: they may name the program that loads it */
	if ((!o->rules && lo_cli_opts_load_rules(o, dir) < 0) ||
	    host_program(&program, o, abs, e, kind, verbose) < 0)
		goto out;
	/* no program named: a plain C program of the object's own target, when modelled */
	target = lo_target_of(e);
	if ((program ? host_with_preloads(&host, r, program, o, abs, e, kind)
		     : lo_host_new_plain(&host, r, target ? target : lo_target_native())) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	lo_load_simulate(&load, r, host, abs, LO_LOAD_TRACE, NULL, NULL);
	/* no one named its host: inferred from what it lacks, as the scan does (hosts.h) */
	if (!program && !o->scan.host && kind == LO_KIND_SHARED_LIBRARY && !lo_load_ok(load) &&
	    !ruled_host(o, abs, e))
		program = infer_host(&hosts, &load, r, abs, tree);
	if (verbose) {
		printf("%s\n  kind: %s\n  host: %s\n", abs, lo_kind_str(kind),
		       program ? program : lo_host_name(host));
		print_objects(load);
		print_symbols(load, abs);
	}
	lo_explain_records(&records, abs, lo_load_ok(load));
	lo_explain_write_summary(&summary, abs, kind, program ? program : lo_host_name(host), load,
				 records, named);
written:
	fputs(lo_buf_cstr(&summary), stdout);
	rc = lo_load_ok(load) && (!records || records->orphan.orphan != 1) ? LO_EXIT_CLEAN
									  : LO_EXIT_FINDINGS;
out:
	lo_buf_dispose(&summary);
	lo_explain_free(records);
	lo_load_free(load);
	lo_hosts_free(hosts); /* after the load, which an inferred host of it outlives */
	lo_host_free(host);
	lo_resolver_free(r);
	free(program);
	free(dir);
	free(tree);
	return rc;
}

/*
 * A message that names a library, not a file ("libcore.so.1: cannot open
 * shared object file"): explain each object of the build tree holding
 * `dir` (the current directory when NULL) that needs that library, the
 * files the message can be about. The worst exit status of them.
 */
static int explain_library(lo_cli_opts *o, const char *library, const char *dir, bool verbose)
{
	char *real = realpath(dir ? dir : ".", NULL), *top = NULL, **found = NULL;
	size_t i, n = 0;
	int rc = LO_EXIT_ERROR;

	if (!real) {
		lo_cli_error("explain: cannot read directory '%s': %s", dir ? dir : ".",
			     strerror(errno));
		return rc;
	}
	top = lo_buildsys_base_of(real);
	if (lo_cli_opts_load_rules(o, top) < 0)
		goto out;
	if (lo_explain_needing(&found, &n, top, o->rules, library) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	if (!n) {
		lo_cli_error("explain: no object under '%s' needs %s; name the build tree the "
			     "message came from after it", top, library);
		goto out;
	}
	printf("%s is needed by %zu object%s under %s\n", library, n, n == 1 ? "" : "s", top);
	rc = LO_EXIT_CLEAN;
	for (i = 0; i < n; i++) {
		int one;

		putchar('\n');
		fflush(stdout); /* before explain_file's messages on stderr */
		one = explain_file(o, found[i], library, verbose);
		/* an object that could not be explained fails the run; findings do unless one did */
		if (one == LO_EXIT_ERROR || (one == LO_EXIT_FINDINGS && rc == LO_EXIT_CLEAN))
			rc = one;
	}
out:
	for (i = 0; i < n; i++)
		free(found[i]);
	free(found);
	free(top);
	free(real);
	return rc;
}

/*
 * Python's "DLL load failed while importing X": Python names the module,
 * not its file; the scan of `dir` (default the current directory) judges
 * each X.pyd / X.<tag>.pyd there, and their verdicts answer.
 */
static int explain_pe_module(lo_cli_opts *o, const char *module, const char *dir)
{
	const char *roots[1] = { dir ? dir : "." };
	lo_scan_result *res = NULL;
	lo_buf out = LO_BUF_INIT;
	bool findings;

	if (lo_scan_run(&res, roots, 1, &o->scan) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	if (!lo_explain_write_pe(&out, res, module, &findings)) {
		lo_cli_error("explain: no module %s (%s.pyd, %s.*.pyd) under '%s'; name the tree "
			     "the message came from after it", module, module, module, roots[0]);
		lo_scan_result_free(res);
		return LO_EXIT_ERROR;
	}
	fputs(lo_buf_cstr(&out), stdout);
	lo_buf_dispose(&out);
	lo_scan_result_free(res);
	return findings ? LO_EXIT_FINDINGS : LO_EXIT_CLEAN;
}

/*
 * `path` as the loader opens it, absolute: its directory with symlinks
 * resolved, its last name kept, so that a symlink is explained at its own
 * location (dlopen expands $ORIGIN from the directory of the path opened,
 * without resolving the link). NULL, errno set, when nothing is there.
 */
static char *opened_path(const char *path)
{
	char *real = realpath(path, NULL), *dir, *out = NULL;
	const char *slash = lo_os_path_last_separator(path), *base = slash ? slash + 1 : path;

	if (!real || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return real;
	dir = slash ? lo_xstrndup(path, (size_t)(slash - path)) : lo_xstrdup(".");
	free(real);
	real = realpath(*dir ? dir : "/", NULL);
	if (real && asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "", base) < 0)
		out = NULL;
	free(real);
	free(dir);
	return out;
}

int lo_cmd_explain(int argc, char **argv)
{
	lo_cli_opts o;
	char *abs = NULL, *named = NULL, *symbol = NULL, *library = NULL, *named_obj = NULL;
	bool verbose = false;
	int c, rc = LO_EXIT_ERROR;

	lo_cli_opts_init(&o, &lo_cli_explain_cmd);
	while ((c = lo_cli_opts_next(&o, argc, argv)) != LO_CLI_OPTS_END) {
		if (c != 'v') {
			rc = o.status;
			goto out;
		}
		verbose = true;
	}
	if (lo_cli_opts_operands(&o, argc, argv, 1, 2, 0) < 0)
		goto out;
	/* a path, or the error message a path (or a needed library) is in */
	if (!(abs = opened_path(argv[optind]))) {
		int why = errno;

		/*
		 * A library the loader did not find, by name: a file of that
		 * name here (a build dir holding libcore.so.1) is not what the
		 * message is about, the objects needing it are.
		 */
		if ((library = lo_explain_message_pe_module(argv[optind]))) {
			rc = explain_pe_module(&o, library, argv[optind + 1]);
			goto out;
		}
		if ((library = lo_explain_message_library(argv[optind]))) {
			rc = explain_library(&o, library, argv[optind + 1], verbose);
			goto out;
		}
		if (!(named = lo_explain_message_path(argv[optind], &symbol)) ||
		    !(abs = opened_path(named))) {
			if (strchr(argv[optind], ' ') || strchr(argv[optind], ':'))
				lo_cli_error("explain: the message names no file that exists here: "
					     "'%s'", argv[optind]);
			else
				lo_cli_error("explain: cannot open '%s': %s", argv[optind],
					     strerror(why));
			goto out;
		}
	}
	if (argv[optind + 1]) {
		lo_cli_error("explain: a tree is given only with a message that names a library");
		lo_cli_opts_usage(o.cmd, stderr);
		goto out;
	}
	/* a libtool archive (.la) is text naming the object the build made: that one is explained */
	if ((named_obj = lo_buildsys_libtool_object(abs))) {
		char *obj = realpath(named_obj, NULL);

		if (!obj) {
			printf("%s: a libtool archive naming %s, which is not there: nothing to load\n",
			       abs, named_obj);
			rc = LO_EXIT_FINDINGS;
			goto out;
		}
		printf("%s: a libtool archive; the object it names is explained\n", abs);
		free(abs);
		abs = obj;
	}
	rc = explain_file(&o, abs, symbol, verbose);
out:
	free(library);
	free(named_obj);
	free(named);
	free(symbol);
	free(abs);
	lo_cli_opts_dispose(&o);
	return rc;
}
