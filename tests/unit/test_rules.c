/*
 * test_rules.c - rule files as the scan sees them: which paths are
 * candidates, how layers override each other, and which bad rules are
 * refused with the file, line and key named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/error.h"
#include "leftover/rules.h"

/* Write `text` to $LEFTOVER_WORK/name and return the path (static buffer per call site). */
static const char *write_rules(const char *name, const char *text)
{
	static char paths[8][4096];
	static int next;
	char *p = paths[next++ % 8];
	const char *work = getenv("LEFTOVER_WORK");
	FILE *f;

	snprintf(p, 4096, "%s/%s", work ? work : "/tmp", name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/*
 * The host of `rel` for an object that needs `need` (NULL: nothing), or
 * NULL; "export:NAME" is an object that defines NAME, "library:NAME" one
 * that names NAME as DT_NEEDED.
 */
static const char *need_of;

static bool needs_one(lo_rules_trait trait, const char *glob, void *payload)
{
	static const char *const prefix[] = { [LO_RULES_NEEDS] = "",
					       [LO_RULES_EXPORTS] = "export:",
					       [LO_RULES_NEEDS_LIBRARY] = "library:" };
	size_t n = strlen(prefix[trait]);

	(void)payload;
	if (!need_of || strncmp(need_of, prefix[trait], n) || (!n && strchr(need_of, ':')))
		return false;
	return fnmatch(glob, need_of + n, 0) == 0;
}

static const lo_rules_host *host_of(const lo_rules *r, const char *rel, const char *need)
{
	need_of = need;
	return lo_rules_host_of(r, rel, needs_one, NULL);
}

static const char *host_program(const lo_rules *r, const char *rel)
{
	const lo_rules_host *h = host_of(r, rel, NULL);

	return h ? lo_rules_host_program(h) : NULL;
}

static const char *host_name(const lo_rules *r, const char *rel, const char *need)
{
	const lo_rules_host *h = host_of(r, rel, need);

	return h ? lo_rules_host_name(h) : NULL;
}

static bool provided(const lo_rules *r, const char *rel, const char *symbol)
{
	const lo_rules_host *h = host_of(r, rel, NULL);

	return h && lo_rules_host_provides(h, symbol);
}

static void test_defaults_select_shared_objects_at_any_depth(void **state)
{
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, NULL, 0), 0);
	assert_true(lo_rules_is_candidate(r, "libfoo.so"));
	assert_true(lo_rules_is_candidate(r, "lib/libfoo.so"));
	assert_true(lo_rules_is_candidate(r, "a/b/c/libfoo.so.1.2.3"));
	assert_true(lo_rules_is_candidate(r, "python/_ext.cpython-311-x86_64-linux-gnu.so"));
	assert_true(lo_rules_is_candidate(r, "win/_ext.pyd"));
	assert_false(lo_rules_is_candidate(r, "libfoo.a"));
	assert_false(lo_rules_is_candidate(r, "src/foo.c"));
	assert_false(lo_rules_is_candidate(r, "libfoo.sox"));
	assert_false(lo_rules_is_candidate(r, "CMakeFiles/foo.dir/foo.c.o"));
	lo_rules_free(r);
}

/* Wildcards of every kind, with and without a literal run to look for first. */
static void test_candidate_wildcards(void **state)
{
	const char *f = write_rules("wild.rules",
				    "[candidates]\n"
				    "\tinclude = lib?.mod\n"
				    "\tinclude = x[0-9].bin\n"
				    "\tinclude = \"esc\\\\*.dat\"\n"
				    "\tinclude = deep/**/z\n");
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	assert_true(lo_rules_is_candidate(r, "libA.mod"));
	assert_false(lo_rules_is_candidate(r, "lib.mod"));
	assert_true(lo_rules_is_candidate(r, "x7.bin"));
	assert_false(lo_rules_is_candidate(r, "xa.bin"));
	assert_true(lo_rules_is_candidate(r, "esc*.dat"));
	assert_false(lo_rules_is_candidate(r, "escX.dat"));
	assert_true(lo_rules_is_candidate(r, "deep/a/b/z"));
	assert_true(lo_rules_is_candidate(r, "deep/z"));
	assert_false(lo_rules_is_candidate(r, "deep/a/y"));
	assert_true(lo_rules_is_candidate(r, "lib/libfoo.so"));
	lo_rules_free(r);
}

/*
 * Where a pattern's literal must be in a path: a wildcard pattern matches
 * the whole path, so *.tab's ".tab" ends it; a pattern without one also
 * matches every path below it (libgit2's dirname prefix), so its literal
 * may be followed by more; `*` crosses directories.
 */
static void test_candidate_literals_in_place(void **state)
{
	const char *f = write_rules("place.rules",
				    "[candidates]\n"
				    "\tinclude = *.tab\n"
				    "\tinclude = gen/table.txt\n"
				    "\tinclude = *.so.*\n");
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	assert_true(lo_rules_is_candidate(r, "x/y.tab"));
	assert_false(lo_rules_is_candidate(r, "y.tab/inner"));
	assert_false(lo_rules_is_candidate(r, "y.tabs"));
	assert_true(lo_rules_is_candidate(r, "gen/table.txt"));
	assert_true(lo_rules_is_candidate(r, "gen/table.txt/inner"));
	assert_true(lo_rules_is_candidate(r, "libz.so.1"));
	assert_true(lo_rules_is_candidate(r, "a.so.d/readme"));
	lo_rules_free(r);
}

static void test_exclude_and_double_star(void **state)
{
	const char *f = write_rules("exclude.rules",
				    "[candidates]\n"
				    "\texclude = third_party/**\n"
				    "\tinclude = **/plugins/*.plugin\n"
				    "\tinclude = a/**/b/*.mod\n");
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	assert_false(lo_rules_is_candidate(r, "third_party/libz.so"));
	assert_false(lo_rules_is_candidate(r, "third_party/deep/er/libz.so.1"));
	assert_true(lo_rules_is_candidate(r, "mine/libz.so"));
	assert_true(lo_rules_is_candidate(r, "app/plugins/x.plugin"));
	/* `**` stands for no directory too, as in .gitignore */
	assert_true(lo_rules_is_candidate(r, "plugins/x.plugin"));
	assert_false(lo_rules_is_candidate(r, "app/x.plugin"));
	assert_true(lo_rules_is_candidate(r, "a/b/x.mod"));
	assert_true(lo_rules_is_candidate(r, "a/1/2/b/x.mod"));
	assert_false(lo_rules_is_candidate(r, "ab/x.mod"));
	lo_rules_free(r);
}

static void test_later_layer_overrides_earlier(void **state)
{
	const char *files[2];
	lo_rules *r;

	files[0] = write_rules("first.rules",
			       "[candidates]\n"
			       "\texclude = vendor/**\n"
			       "[host \"app\"]\n"
			       "\tmatch = plugins/*.so\n"
			       "\tprogram = /bin/sh\n"
			       "[fail]\n"
			       "\ton = never\n");
	files[1] = write_rules("second.rules",
			       "[candidates]\n"
			       "\tinclude = vendor/keep/*.so\n"
			       "\tinclude = !*.debug.so\n"
			       "[host \"app\"]\n"
			       "\tprogram = /bin/true\n"
			       "[fail]\n"
			       "\ton = broken\n");
	assert_int_equal(lo_rules_load(&r, files, 2), 0);
	assert_false(lo_rules_is_candidate(r, "vendor/other/x.so"));
	assert_true(lo_rules_is_candidate(r, "vendor/keep/x.so"));
	assert_false(lo_rules_is_candidate(r, "lib/x.debug.so"));
	assert_string_equal(host_program(r, "plugins/p.so"), "/bin/true");
	assert_string_equal(host_name(r, "plugins/p.so", NULL), "app");
	assert_null(host_program(r, "lib/p.so"));
	assert_int_equal(lo_rules_fail_on(r), LO_RULES_FAIL_BROKEN);
	lo_rules_free(r);

	/* the same files the other way round: the other values win */
	{
		const char *swapped[2] = { files[1], files[0] };

		assert_int_equal(lo_rules_load(&r, swapped, 2), 0);
	}
	assert_false(lo_rules_is_candidate(r, "vendor/keep/x.so"));
	assert_string_equal(host_program(r, "plugins/p.so"), "/bin/sh");
	assert_int_equal(lo_rules_fail_on(r), LO_RULES_FAIL_NEVER);
	lo_rules_free(r);
}

static void test_user_layer_and_given_file(void **state)
{
	char dir[4096], file[4096];
	const char *work = getenv("LEFTOVER_WORK"), *given, *xdg = getenv("XDG_CONFIG_HOME");
	char *old = xdg ? strdup(xdg) : NULL;
	lo_rules *r;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/xdg/leftover", work ? work : "/tmp");
	assert_int_equal(system((snprintf(file, sizeof(file), "mkdir -p '%s'", dir), file)), 0);
	snprintf(file, sizeof(file), "%s/rules", dir);
	assert_non_null(f = fopen(file, "w"));
	fputs("[candidates]\n\tinclude = *.plugin\n[fail]\n\ton = never\n", f);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/xdg", work ? work : "/tmp");
	setenv("XDG_CONFIG_HOME", dir, 1);

	assert_int_equal(lo_rules_load(&r, NULL, 0), 0);
	assert_true(lo_rules_is_candidate(r, "x/y.plugin"));
	assert_int_equal(lo_rules_fail_on(r), LO_RULES_FAIL_NEVER);
	lo_rules_free(r);

	given = write_rules("given.rules", "[fail]\n\ton = stale\n");
	assert_int_equal(lo_rules_load(&r, &given, 1), 0);
	assert_true(lo_rules_is_candidate(r, "x/y.plugin"));
	assert_int_equal(lo_rules_fail_on(r), LO_RULES_FAIL_STALE);
	lo_rules_free(r);

	if (old)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old);
}

/* $LEFTOVER_WORK/name, no build tree, with `text` as its .leftover/rules: its rules, loaded. */
static lo_rules *plain_dir_rules(char dir[4096], const char *name, const char *text)
{
	const char *work = getenv("LEFTOVER_WORK");
	char cmd[8300];
	lo_rules *r;
	FILE *f;

	snprintf(dir, 4096, "%s/%s", work ? work : "/tmp", name);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.leftover'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/.leftover/rules", dir);
	assert_non_null(f = fopen(cmd, "w"));
	fputs(text, f);
	fclose(f);
	assert_int_equal(lo_rules_load_tree(&r, dir, NULL, 0), 0);
	return r;
}

static void test_build_dir_layer_without_cmake(void **state)
{
	char dir[4096];
	lo_rules *r = plain_dir_rules(dir, "plainbuild", "[candidates]\n\texclude = old/**\n");

	assert_false(lo_rules_is_candidate(r, "old/libx.so"));
	assert_true(lo_rules_is_candidate(r, "new/libx.so"));
	lo_rules_free(r);
}

/*
 * A file in no build tree is given by its absolute path (rules.h): matched
 * as it is, and relative to the directory the rules were loaded for when
 * it is below it; the last pattern matching either form decides.
 */
static void test_an_absolute_path_is_matched_as_it_is_and_in_the_loaded_dir(void **state)
{
	char dir[4096], cmd[8300], *real;
	lo_rules *r = plain_dir_rules(dir, "plainabs", "[candidates]\n\texclude = old/**\n");
	const lo_rules_host *h;

	assert_non_null(real = realpath(dir, NULL));
	snprintf(cmd, sizeof(cmd), "%s/old/libx.so", real);
	assert_false(lo_rules_is_candidate(r, cmd)); /* the exclude, in the dir's own terms */
	snprintf(cmd, sizeof(cmd), "%s/new/libx.so", real);
	assert_true(lo_rules_is_candidate(r, cmd));  /* the default *.so, on either form */
	assert_true(lo_rules_is_candidate(r, "/elsewhere/old/libx.so")); /* not below the dir */
	/* a system module by its absolute path, wherever a scan started */
	h = host_of(r, "/usr/lib/x86_64-linux-gnu/lua/5.1/cjson.so", "lua_settop");
	assert_non_null(h);
	assert_string_equal(lo_rules_host_name(h), "lua5.1");
	free(real);
	lo_rules_free(r);
}

static void test_program_defaults_take_the_first_there_and_the_newest(void **state)
{
	char dir[4096], cmd[8300], want[4200];
	const char *work = getenv("LEFTOVER_WORK");
	lo_rules *r;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/defaultsbuild", work ? work : "/tmp");
	/* 1.10 is newer than 1.9, though it sorts before it as a string */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.leftover' '%s/v1.9/bin' '%s/v1.10/bin' && "
		 "touch '%s/v1.9/bin/prog' '%s/v1.10/bin/prog' && "
		 "chmod +x '%s/v1.9/bin/prog' '%s/v1.10/bin/prog'",
		 dir, dir, dir, dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/.leftover/rules", dir);
	assert_non_null(f = fopen(cmd, "w"));
	fprintf(f, "[host \"app\"]\n\tmatch = *.so\n"
		"\tprogram = ${cmake:APP_EXE:-no-such-program-here|/nonexistent/*/prog|%s/v*/bin/prog}\n",
		dir);
	fclose(f);
	assert_int_equal(lo_rules_load_tree(&r, dir, NULL, 0), 0);
	snprintf(want, sizeof(want), "%s/v1.10/bin/prog", dir);
	assert_string_equal(host_program(r, "libx.so"), want);
	lo_rules_free(r);
}

static void test_symbols_hosts_and_rules(void **state)
{
	const char *f = write_rules("symbols.rules",
				    "[symbols]\n"
				    "\tignore = __gcov_*\n"
				    "\tignore = __asan_report_load[1248]\n"
				    "[host \"xsperl\"]\n"
				    "\tmatch = **/auto/**/*.so\n"
				    "\tprovides = Perl_*\n"
				    "\tprovides = PL_*\n"
				    "[rule \"old-plugins\"]\n"
				    "\tmatch = plugins/**\n"
				    "\taction = quarantine\n"
				    "\ton = stale, orphan\n"
				    "\treason = \"plugins are not rebuilt\"\n"
				    "[rule \"keep-vendor\"]\n"
				    "\tmatch = plugins/vendor/**\n"
				    "\taction = keep\n");
	const lo_rule *ru;
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	assert_true(lo_rules_symbol_ignored(r, "__gcov_flush"));
	assert_true(lo_rules_symbol_ignored(r, "__asan_report_load4"));
	assert_false(lo_rules_symbol_ignored(r, "__asan_report_load3"));
	assert_false(lo_rules_symbol_ignored(r, "gcov"));

	assert_true(provided(r, "lib/auto/POSIX/POSIX.so", "Perl_newSV"));
	assert_true(provided(r, "auto/POSIX/POSIX.so", "PL_thr_key"));
	assert_false(provided(r, "auto/POSIX/POSIX.so", "sqrt"));
	assert_false(provided(r, "lib/POSIX.so", "Perl_newSV"));
	/* provides only: the scan keeps its own host */
	assert_null(host_program(r, "auto/POSIX/POSIX.so"));
	assert_string_equal(host_name(r, "auto/POSIX/POSIX.so", NULL), "xsperl");

	ru = lo_rules_rule_for(r, "plugins/a.so", LO_RULES_ON_STALE);
	assert_non_null(ru);
	assert_string_equal(ru->name, "old-plugins");
	assert_int_equal(ru->action, LO_RULES_ACTION_QUARANTINE);
	assert_string_equal(ru->reason, "plugins are not rebuilt");
	assert_null(lo_rules_rule_for(r, "plugins/a.so", LO_RULES_ON_BROKEN));
	assert_null(lo_rules_rule_for(r, "lib/a.so", LO_RULES_ON_STALE));
	/* the later rule wins; its `on` defaults to every state */
	ru = lo_rules_rule_for(r, "plugins/vendor/v.so", LO_RULES_ON_BROKEN);
	assert_non_null(ru);
	assert_string_equal(ru->name, "keep-vendor");
	assert_int_equal(ru->action, LO_RULES_ACTION_KEEP);
	assert_null(ru->reason);
	lo_rules_free(r);
}

static void test_fail_on_and_keep_decide_the_exit_status(void **state)
{
	const char *files[2];
	lo_rules *r;

	files[0] = write_rules("keep.rules",
			       "[rule \"vendored\"]\n"
			       "\tmatch = vendor/**\n"
			       "\taction = keep\n"
			       "\ton = broken\n");
	assert_int_equal(lo_rules_load(&r, files, 1), 0);
	assert_true(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_STALE));
	assert_true(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_BROKEN));
	assert_false(lo_rules_fails(r, "lib/a.so", 0));
	assert_false(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_ORPHAN));
	assert_false(lo_rules_fails(r, "vendor/a.so", LO_RULES_ON_BROKEN));
	/* keep applies `on` broken only: stale vendored files still fail */
	assert_true(lo_rules_fails(r, "vendor/a.so", LO_RULES_ON_STALE));
	lo_rules_free(r);

	files[1] = write_rules("broken-only.rules", "[fail]\n\ton = broken\n");
	assert_int_equal(lo_rules_load(&r, files, 2), 0);
	assert_false(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_STALE));
	assert_true(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_STALE | LO_RULES_ON_BROKEN));
	lo_rules_free(r);

	files[1] = write_rules("never.rules", "[fail]\n\ton = never\n");
	assert_int_equal(lo_rules_load(&r, files, 2), 0);
	assert_false(lo_rules_fails(r, "lib/a.so", LO_RULES_ON_BROKEN));
	lo_rules_free(r);
}

typedef struct origin_seen {
	char name[64], value[64], file[4096];
	int line;
	int count;
} origin_seen;

static int find_origin(const char *name, const char *value, const char *file, int line,
		       void *payload)
{
	origin_seen *o = payload;

	if (strcmp(name, o->name))
		return 0;
	o->count++;
	snprintf(o->value, sizeof(o->value), "%s", value);
	snprintf(o->file, sizeof(o->file), "%s", file);
	o->line = line;
	return 0;
}

static void test_origin_names_file_and_line_through_includes(void **state)
{
	const char *inc = write_rules("included.rules",
				      "# a comment\n"
				      "\n"
				      "[rule \"mlir\"]\n"
				      "\tmatch = **/_mlir_libs/**\n"
				      "\treason = from the include\n");
	const char *top = write_rules("top.rules",
				      "[rule \"mlir\"]\n"
				      "\treason = first\n"
				      "[include]\n"
				      "\tpath = included.rules\n"
				      "[fail] on = broken\n");
	origin_seen o;
	lo_rules *r;

	(void)inc;
	assert_int_equal(lo_rules_load(&r, &top, 1), 0);
	memset(&o, 0, sizeof(o));
	strcpy(o.name, "rule.mlir.reason");
	assert_int_equal(lo_rules_foreach(r, find_origin, &o), 0);
	/* the overridden `first` is left out */
	assert_int_equal(o.count, 1);
	assert_string_equal(o.value, "from the include");
	assert_non_null(strstr(o.file, "/included.rules"));
	assert_int_equal(o.line, 5);

	memset(&o, 0, sizeof(o));
	strcpy(o.name, "fail.on");
	lo_rules_foreach(r, find_origin, &o);
	assert_int_equal(o.count, 1);
	assert_non_null(strstr(o.file, "/top.rules"));
	assert_int_equal(o.line, 5);
	assert_string_equal(lo_rules_rule_for(r, "x/_mlir_libs/a.so", LO_RULES_ON_STALE)->reason,
			    "from the include");
	lo_rules_free(r);
}

static void test_lines_survive_continuations_quotes_and_old_headers(void **state)
{
	const char *f = write_rules("syntax-lines.rules",
				    "; comment with [brackets] and \"quotes\"\n"
				    "[rule \"a\"] match = x/*.so\n"
				    "\treason = \"one # not a comment \\\n"
				    "continued\" ; a comment\n"
				    "[RULE \"a\"]\n"
				    "\tACTION = keep\n"
				    "[symbols]\n"
				    "\tignore = __gcov_*\n");
	origin_seen o;
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	memset(&o, 0, sizeof(o));
	strcpy(o.name, "rule.a.match");
	lo_rules_foreach(r, find_origin, &o);
	assert_int_equal(o.line, 2);
	memset(&o, 0, sizeof(o));
	strcpy(o.name, "rule.a.reason");
	lo_rules_foreach(r, find_origin, &o);
	assert_int_equal(o.line, 3);
	assert_string_equal(o.value, "one # not a comment continued");
	memset(&o, 0, sizeof(o));
	strcpy(o.name, "rule.a.action");
	lo_rules_foreach(r, find_origin, &o);
	assert_int_equal(o.line, 6);
	memset(&o, 0, sizeof(o));
	strcpy(o.name, "symbols.ignore");
	lo_rules_foreach(r, find_origin, &o);
	assert_int_equal(o.line, 8);
	assert_int_equal(lo_rules_rule_for(r, "x/a.so", LO_RULES_ON_BROKEN)->action, LO_RULES_ACTION_KEEP);
	lo_rules_free(r);
}

/* Loading `text` fails, and the message contains each of the `want` strings. */
static void assert_bad(const char *name, const char *text, const char *want1, const char *want2)
{
	const char *f = write_rules(name, text);
	lo_rules *r = (lo_rules *)1;
	const char *msg;

	assert_int_equal(lo_rules_load(&r, &f, 1), LO_EINVALID);
	assert_null(r);
	msg = lo_error_last();
	if (!strstr(msg, want1) || (want2 && !strstr(msg, want2)))
		fail_msg("message for %s lacks '%s'/'%s': %s", name, want1, want2 ? want2 : "", msg);
	assert_int_equal(lo_rules_check(f), LO_EINVALID);
}

static void test_bad_rules_name_file_line_and_key(void **state)
{
	assert_bad("unknown.rules", "[candidates]\n\tinclude = *.so\n\tinclud = *.x\n",
		   "unknown.rules:3: candidates.includ: unknown key", NULL);
	assert_bad("section.rules", "[hosts \"x\"]\n\tmatch = *\n", "section.rules:2: hosts.x.match",
		   "unknown key");
	assert_bad("noname.rules", "[host]\n\tmatch = *.so\n", "noname.rules:2: host.match",
		   "[host \"NAME\"]");
	assert_bad("pattern.rules", "[candidates]\n\n\tinclude = lib[ab.so\n",
		   "pattern.rules:3: candidates.include: bad pattern 'lib[ab.so'", "unterminated");
	assert_bad("empty.rules", "[rule \"x\"]\n\tmatch =\n", "empty.rules:2: rule.x.match",
		   "empty pattern");
	assert_bad("dotdot.rules", "[candidates]\n\tinclude = ../x/*.so\n", "dotdot.rules:2", "'..'");
	assert_bad("symbol.rules", "[symbols]\n\tignore = \"a b\"\n", "symbol.rules:2: symbols.ignore",
		   "no spaces");
	assert_bad("program.rules",
		   "[host \"app\"]\n\tmatch = plugins/*.so\n\tprogram = /nonexistent/bin/app\n",
		   "program.rules:3: host.app.program",
		   "'/nonexistent/bin/app' does not exist");
	assert_bad("pathprog.rules",
		   "[host \"app\"]\n\tmatch = plugins/*.so\n\tprogram = no-such-program-here\n",
		   "pathprog.rules:3: host.app.program", "not on PATH");
	assert_bad("nomatch.rules", "[host \"app\"]\n\tprogram = /bin/sh\n",
		   "nomatch.rules:2: host.app.program", "neither match nor needs");
	assert_bad("action.rules", "[rule \"x\"]\n\tmatch = *\n\taction = shred\n",
		   "action.rules:3: rule.x.action", "'shred'");
	assert_bad("on.rules", "[rule \"x\"]\n\tmatch = *\n\ton = stale,rotten\n",
		   "on.rules:3: rule.x.on", "'rotten'");
	assert_bad("fail.rules", "[fail]\n\ton = always\n", "fail.rules:2: fail.on", "'always'");
	assert_bad("syntax.rules", "[candidates\n\tinclude = *.so\n", "syntax.rules:1", "missing ']'");
	assert_bad("missing-include.rules", "[include]\n\tpath = not-there.rules\n",
		   "missing-include.rules:2: include.path", "not-there.rules");
	write_rules("cycle-b.rules", "[candidates]\n\tinclude = *.b\n[include]\n\tpath = cycle-a.rules\n");
	assert_bad("cycle-a.rules", "[include]\n\tpath = cycle-b.rules\n", "include cycle",
		   "cycle-b.rules:4: include.path -> ");
}

static void test_a_host_known_by_what_its_objects_need(void **state)
{
	/* (names and symbols of no shipped host: shipped [host] sections of the same name merge) */
	const char *f = write_rules("needs.rules",
				    "[host \"xs\"]\n"
				    "\tneeds = Xs_*\n"
				    "\tneeds = XL_[a-z]*\n"
				    "\tprovides = Xs_*\n"
				    "[host \"tclx\"]\n"
				    "\tmatch = **/tclx/**\n"
				    "\tneeds = Tclx_*\n"
				    "\tprovides = Tclx_*\n");
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	/* needs alone: wherever the object is */
	assert_string_equal(host_name(r, "lib/x/POSIX.so", "Xs_croak"), "xs");
	assert_string_equal(host_name(r, "POSIX.so", "XL_thr_key"), "xs");
	assert_null(host_name(r, "POSIX.so", "XL_Thr_key"));
	assert_null(host_name(r, "lib/x/POSIX.so", "croak"));
	/* match and needs: both must hold */
	assert_string_equal(host_name(r, "lib/tclx/tk.so", "Tclx_Eval"), "tclx");
	assert_null(host_name(r, "lib/tcly/tk.so", "Tclx_Eval"));
	assert_null(host_name(r, "lib/tclx/libx.so", "strlen"));
	lo_rules_free(r);
	assert_bad("neither.rules", "[host \"x\"]\n\tprovides = x_*\n", "neither.rules:2: host.x.provides",
		   "neither match nor needs");
}

static void test_a_host_known_by_exports_and_libraries(void **state)
{
	const char *f = write_rules("exports.rules",
				    "[host \"vm\"]\n"
				    "\texports = Vm_OnLoad\n"
				    "\texports = Vmj_*\n"
				    "\tneeds-library = libvmcore.so*\n"
				    "\tprogram = /bin/sh\n"
				    "\tpreload = ${program_dir}/../lib/server/libvmcore.so\n"
				    "\tpreload = /opt/vm/libvmextra.so\n");
	const lo_rules_host *h;
	const char *const *pre;
	size_t n;
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), 0);
	/* any one of the traits selects, wherever the object is */
	assert_string_equal(host_name(r, "a/libx.so", "export:Vm_OnLoad"), "vm");
	assert_string_equal(host_name(r, "libx.so", "export:Vmj_pkg_call"), "vm");
	assert_string_equal(host_name(r, "libx.so", "library:libvmcore.so.1"), "vm");
	/* a trait of another kind does not */
	assert_null(host_name(r, "libx.so", "Vm_OnLoad"));
	assert_null(host_name(r, "libx.so", "export:libvmcore.so"));
	h = host_of(r, "libx.so", "export:Vm_OnLoad");
	assert_int_equal((pre = lo_rules_host_preload(h, &n), n), 2);
	assert_string_equal(pre[0], "${program_dir}/../lib/server/libvmcore.so");
	/* a preload's file name stands for the library where the program is not read */
	assert_true(lo_rules_host_preloads(h, "libvmcore.so"));
	assert_true(lo_rules_host_preloads(h, "libvmextra.so"));
	assert_false(lo_rules_host_preloads(h, "libvm.so"));
	lo_rules_free(r);
	assert_bad("preload.rules", "[host \"x\"]\n\tneeds = x_*\n\tprovides = x_*\n"
		   "\tpreload = lib/libx.so\n", "preload.rules:4: host.x.preload",
		   "absolute path or ${program_dir}/PATH");
	assert_bad("preload2.rules", "[host \"x\"]\n\tneeds = x_*\n\tprovides = x_*\n"
		   "\tpreload = /opt/${cmake:X}/libx.so\n", "preload2.rules:4: host.x.preload",
		   "only ${program_dir}");
}

static void test_missing_given_file_is_an_error(void **state)
{
	const char *f = "/nonexistent/leftover.rules";
	lo_rules *r;

	assert_int_equal(lo_rules_load(&r, &f, 1), LO_EINVALID);
	assert_non_null(strstr(lo_error_last(), "/nonexistent/leftover.rules"));
}

static void test_default_dir_has_default_rules(void **state)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/default.rules", lo_rules_default_dir());
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_select_shared_objects_at_any_depth),
		cmocka_unit_test(test_candidate_wildcards),
		cmocka_unit_test(test_candidate_literals_in_place),
		cmocka_unit_test(test_exclude_and_double_star),
		cmocka_unit_test(test_later_layer_overrides_earlier),
		cmocka_unit_test(test_user_layer_and_given_file),
		cmocka_unit_test(test_build_dir_layer_without_cmake),
		cmocka_unit_test(test_an_absolute_path_is_matched_as_it_is_and_in_the_loaded_dir),
		cmocka_unit_test(test_program_defaults_take_the_first_there_and_the_newest),
		cmocka_unit_test(test_symbols_hosts_and_rules),
		cmocka_unit_test(test_fail_on_and_keep_decide_the_exit_status),
		cmocka_unit_test(test_origin_names_file_and_line_through_includes),
		cmocka_unit_test(test_lines_survive_continuations_quotes_and_old_headers),
		cmocka_unit_test(test_bad_rules_name_file_line_and_key),
		cmocka_unit_test(test_a_host_known_by_what_its_objects_need),
		cmocka_unit_test(test_a_host_known_by_exports_and_libraries),
		cmocka_unit_test(test_missing_given_file_is_an_error),
		cmocka_unit_test(test_default_dir_has_default_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
