/*
 * explain.c - `leftover explain FILE`: what the loader would do for one file,
 * step by step, like `ldd -r -v` and `libtree` together, without running it.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/error.h"
#include "leftover/git.h"
#include "leftover/report.h"
#include "leftover/resolve.h"
#include "leftover/scan.h"
#include "scan_opts.h"

static const char usage_text[] =
	"usage: leftover explain [options] FILE\n"
	"\n"
	"Show what the dynamic loader would do to load FILE: each needed library and\n"
	"where it is found (or every path tried), each undefined symbol and which\n"
	"object provides it.\n"
	"\n"
	LO_CLI_LOAD_OPTS_HELP
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 it would load; 1 it would not; 2 usage or environment error.\n";

static void print_objects(const lo_load *load)
{
	size_t i;

	puts("libraries:");
	for (i = 0; i < lo_load_object_count(load); i++) {
		const lo_trace_object *o = lo_load_object_at(load, i);
		char *name;

		if (o->depth == 0)
			continue;
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
 * For a file of a build tree whose source is in git and was at another
 * commit when last scanned: the files that changed since and mention the
 * file's name (its target's, "_mlirRegisterEverything" or "foo" for
 * libfoo.so.1), such as the CMakeLists.txt that dropped its target.
 */
static void print_changes(const char *abs)
{
	char *dir = lo_xstrdup(abs), *slash, *source = NULL, *built = NULL, *branch = NULL;
	const char *base = strrchr(abs, '/') + 1;
	char name[256], **paths = NULL;
	size_t i, n = 0, len;
	lo_git *g = NULL;

	/* the nearest directory above the file with a CMakeCache.txt */
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if ((source = lo_buildsys_cache_value(dir, "CMAKE_HOME_DIRECTORY")))
			break;
	}
	if (!source || lo_git_open(&g, source) < 0 || !g || !*lo_git_commit(g))
		goto out;
	if (!(built = lo_scan_built_at(dir, lo_git_commit(g), &branch)))
		goto out;
	if (!strncmp(base, "lib", 3) && base[3] && base[3] != '.')
		base += 3;
	len = strcspn(base, ".");
	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), base);
	if (!*name || lo_git_changed_mentioning(g, built, lo_git_commit(g), name, &paths, &n) < 0)
		goto out;
	printf("changed since branch %s (%.7s), mentioning %s:\n",
	       branch && *branch ? branch : "(detached)", built, name);
	for (i = 0; i < n; i++) {
		printf("  %s/%s\n", source, paths[i]);
		free(paths[i]);
	}
	if (!n)
		puts("  (nothing)");
	free(paths);
out:
	lo_git_free(g);
	free(built);
	free(branch);
	free(source);
	free(dir);
}

int lo_cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lo_cli_scan_opts so;
	char *abs = NULL, *dir = NULL;
	char *program = NULL;
	size_t i;
	lo_resolver_opts ropts;
	lo_resolver *r = NULL;
	lo_host *host = NULL;
	lo_load *load = NULL;
	const lo_elf *e;
	lo_kind kind;
	int c, rc = LO_EXIT_ERROR;

	lo_cli_scan_opts_init(&so, "explain", LO_CLI_LOAD_OPTS, "h", longopts);
	while ((c = lo_cli_scan_opts_getopt(&so, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			rc = LO_EXIT_CLEAN;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		goto out;
	}
	if (!(abs = realpath(argv[optind], NULL))) {
		lo_cli_error("explain: cannot open '%s': %m", argv[optind]);
		goto out;
	}
	memset(&ropts, 0, sizeof(ropts));
	ropts.library_path = so.scan.library_path;
	ropts.library_path_count = so.scan.library_path_count;
	lo_resolver_new(&r, &ropts);
	if (lo_resolver_read(r, abs, &e) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	kind = lo_scan_kind_of(e, abs);
	if (kind == LO_KIND_PYTHON_EXTENSION) {
		dir = lo_xstrdup(abs);
		*strrchr(dir, '/') = '\0';
		if (!(program = lo_scan_python_for(so.scan.python, dir))) {
			lo_cli_error("explain: no Python interpreter found; name one with --python");
			goto out;
		}
	} else if (so.scan.host) {
		program = lo_xstrdup(so.scan.host);
	}
	if (lo_host_new(&host, r, program) < 0) {
		lo_cli_error("explain: %s", lo_error_last());
		goto out;
	}
	printf("%s\n  kind: %s\n  host: %s\n", abs, lo_kind_str(kind), lo_host_name(host));
	lo_load_simulate(&load, r, host, abs, LO_LOAD_TRACE, NULL, NULL);
	print_objects(load);
	print_symbols(load, abs);
	if (lo_load_ok(load)) {
		puts("result: would load");
		rc = LO_EXIT_CLEAN;
	} else {
		puts("result: would not load");
		for (i = 0; i < lo_load_problem_count(load); i++) {
			const lo_problem *p = lo_load_problem_at(load, i);
			const char *nl = p->detail ? strchr(p->detail, '\n') : NULL;

			printf("  %s: %.*s\n", lo_problem_kind_str(p->kind),
			       p->detail ? (nl ? (int)(nl - p->detail) : (int)strlen(p->detail)) : 0,
			       p->detail ? p->detail : "");
		}
		rc = LO_EXIT_FINDINGS;
	}
	print_changes(abs);
out:
	lo_load_free(load);
	lo_host_free(host);
	lo_resolver_free(r);
	free(program);
	free(dir);
	free(abs);
	lo_cli_scan_opts_dispose(&so);
	return rc;
}
