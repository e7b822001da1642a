/*
 * test_resolve.c - the ld.so model on small real objects built by the test.
 *
 * Each test compiles a few shared objects with the system's cc into a
 * scratch directory and asks the resolver what dlopen would do. These are
 * the rules that are hard to reach one by one end to end: search order,
 * RPATH inheritance against RUNPATH, dynamic string tokens, version
 * matching and hidden versions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/buf.h"
#include "leftover/ldconfig.h"
#include "leftover/map.h"
#include "leftover/resolve.h"

static char work[4096];

/* Write `text` to WORK/name. */
static void put(const char *name, const char *text)
{
	unit_put(work, name, text);
}

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	static int n;

	snprintf(work, sizeof(work), "%s/t%d", base ? base : "/tmp/leftover-unit-resolve", n++);
	sh("rm -rf '%s' && mkdir -p '%s'/a '%s'/b '%s'/c", work, work, work, work);
	return 0;
}

/* The problems of dlopen(WORK/rel) from a plain C program, as one string. */
static char *load(const char *rel, const char *llp)
{
	lo_resolver_opts opts = { 0 };
	const char *dirs[1];
	lo_resolver *r;
	lo_host *h;
	lo_load *l;
	char path[8192], out[8192] = "";
	size_t i;

	if (llp) {
		dirs[0] = llp;
		opts.library_path = dirs;
		opts.library_path_count = 1;
	}
	snprintf(path, sizeof(path), "%s/%s", work, rel);
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
	for (i = 0; i < lo_load_problem_count(l); i++) {
		const lo_problem *p = lo_load_problem_at(l, i);

		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s:%s",
			 i ? " " : "", lo_problem_kind_str(p->kind),
			 p->symbol ? p->symbol : p->version ? p->version : p->library);
	}
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
	return strdup(out);
}

/* Which directory the trace says `name` came from, via what. */
static char *found_where(const char *rel, const char *name, const char *llp)
{
	lo_resolver_opts opts = { 0 };
	const char *dirs[1] = { llp };
	lo_resolver *r;
	lo_host *h;
	lo_load *l;
	char path[8192], *res = NULL;
	size_t i;

	opts.library_path = llp ? dirs : NULL;
	opts.library_path_count = llp ? 1 : 0;
	snprintf(path, sizeof(path), "%s/%s", work, rel);
	lo_resolver_new(&r, &opts);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	lo_load_simulate(&l, r, h, path, LO_LOAD_TRACE, NULL, NULL);
	for (i = 0; i < lo_load_object_count(l); i++) {
		const lo_trace_object *o = lo_load_object_at(l, i);

		if (!strcmp(o->name, name) && o->path) {
			const char *rel_path = o->path + strlen(work) + 1;

			if (asprintf(&res, "%s %s", rel_path, lo_found_via_str(o->via)) < 0)
				abort();
		}
	}
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
	return res ? res : strdup("not found");
}

static void test_dst_expansion(void **state)
{
	/* entry, the target whose loader expands it, what it becomes */
	static const char *const cases[][3] = {
		{ "$ORIGIN/../lib:${ORIGIN}/x", "x86_64-linux-gnu", "/o/../lib:/o/x" },
		{ "/usr/$LIB/${PLATFORM}", "x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/x86_64" },
		/* what ld.so --list of a 32-bit program shows: the i386 loader's values */
		{ "/usr/$LIB/${PLATFORM}", "i386-linux-gnu", "/usr/lib/i386-linux-gnu/i686" },
		/* riscv64's kernel passes no AT_PLATFORM: glibc drops the entry */
		{ "/usr/$LIB/${PLATFORM}", "riscv64-linux-gnu", "" },
		{ "$ORIGIN/$LIB", "riscv64-linux-gnu", "/o/lib/riscv64-linux-gnu" },
		/* x32, biarch on Debian: its own libx32, not a multiarch directory */
		{ "/usr/$LIB/${PLATFORM}", "x86_64-linux-gnux32", "/usr/libx32/x86_64" },
		/* musl expands $ORIGIN alone (fixup_rpath) */
		{ "${ORIGIN}/x", "x86_64-linux-musl", "/o/x" },
		/* not tokens: a longer name, an unknown one */
		{ "$ORIGINAL/$FOO", "x86_64-linux-gnu", "$ORIGINAL/$FOO" },
	};
	const lo_target *musl = lo_target_named("x86_64-linux-musl");
	lo_buf out = LO_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* as a list holds it: the entry's end is its length, not a NUL */
		char *entry = NULL;

		if (asprintf(&entry, "%s:", cases[i][0]) < 0)
			abort();
		lo_resolve_expand_dst(&out, entry, strlen(cases[i][0]), "/o",
				      lo_target_named(cases[i][1]));
		assert_string_equal(lo_buf_cstr(&out), cases[i][2]);
		free(entry);
	}
	/* an entry ends where its length says, whatever follows in the list */
	lo_resolve_expand_dst(&out, "$ORIGINX", 7, "/o", lo_target_native());
	assert_string_equal(lo_buf_cstr(&out), "/o");
	lo_resolve_expand_dst(&out, "${ORIGIN}/x", 8, "/o", lo_target_native());
	assert_string_equal(lo_buf_cstr(&out), "${ORIGIN");
	lo_resolve_expand_dst(&out, "lib$:x", 4, "/o", lo_target_native());
	assert_string_equal(lo_buf_cstr(&out), "lib$");
	lo_buf_dispose(&out);
	/* and musl ignores a whole list with another $ */
	assert_true(lo_resolve_dst_refused("$ORIGIN/a:/usr/$LIB", musl));
	assert_false(lo_resolve_dst_refused("$ORIGIN/a:${ORIGIN}/b", musl));
	assert_false(lo_resolve_dst_refused("$ORIGIN/a:/usr/$LIB",
					    lo_target_named("i386-linux-gnu")));
}

/* LD_LIBRARY_PATH comes before RUNPATH; RPATH comes before both. */
static void test_search_order(void **state)
{
	char *s;

	put("dep.c", "int dep(void) { return 1; }\n");
	put("m.c", "int dep(void); int m(void) { return dep(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libdep.so dep.c && cp a/libdep.so b/", work);
	sh("cd '%s' && cc -shared -fPIC -o runpath.so m.c -La -ldep -Wl,--enable-new-dtags,-rpath,'$ORIGIN/a'", work);
	sh("cd '%s' && cc -shared -fPIC -o rpath.so m.c -La -ldep -Wl,--disable-new-dtags,-rpath,'$ORIGIN/a'", work);

	s = found_where("runpath.so", "libdep.so", NULL);
	assert_string_equal(s, "a/libdep.so RUNPATH");
	free(s);
	{
		char llp[4200];

		snprintf(llp, sizeof(llp), "%s/b", work);
		s = found_where("runpath.so", "libdep.so", llp);
		assert_string_equal(s, "b/libdep.so LD_LIBRARY_PATH");
		free(s);
		s = found_where("rpath.so", "libdep.so", llp);
		assert_string_equal(s, "a/libdep.so RPATH");
		free(s);
	}
}

/*
 * A module's DT_RPATH is searched for its dependencies' needs too; a
 * DT_RUNPATH only for its own.
 */
static void test_rpath_inherited_runpath_not(void **state)
{
	char *s;

	put("inner.c", "int inner(void) { return 2; }\n");
	put("mid.c", "int inner(void); int mid(void) { return inner(); }\n");
	put("top.c", "int mid(void); int top(void) { return mid(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o c/libinner.so inner.c", work);
	/* libmid needs libinner but says nothing of where it is */
	sh("cd '%s' && cc -shared -fPIC -o b/libmid.so mid.c -Lc -linner", work);
	sh("cd '%s' && cc -shared -fPIC -o top_rpath.so top.c -Lb -lmid "
	   "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/b:$ORIGIN/c'", work);
	sh("cd '%s' && cc -shared -fPIC -o top_runpath.so top.c -Lb -lmid "
	   "-Wl,--enable-new-dtags,-rpath,'$ORIGIN/b:$ORIGIN/c'", work);

	s = load("top_rpath.so", NULL);
	assert_string_equal(s, "");
	free(s);
	s = found_where("top_rpath.so", "libinner.so", NULL);
	assert_non_null(strstr(s, "c/libinner.so RPATH"));
	free(s);
	s = load("top_runpath.so", NULL);
	assert_string_equal(s, "missing-library:libinner.so");
	free(s);
}

/* The problems of each dlopen(WORK/rels[i]), in turn, from one resolver and host. */
static char *load_each(const char *const *rels, size_t n)
{
	lo_resolver *r;
	lo_host *h;
	char out[8192] = "";
	size_t i, j;

	assert_int_equal(lo_resolver_new(&r, NULL), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	for (i = 0; i < n; i++) {
		char path[8192];
		lo_load *l;

		snprintf(path, sizeof(path), "%s/%s", work, rels[i]);
		assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s:", i ? " " : "",
			 rels[i]);
		for (j = 0; j < lo_load_problem_count(l); j++)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
				 j ? "," : "", lo_load_problem_at(l, j)->symbol);
		lo_load_free(l);
	}
	lo_host_free(h);
	lo_resolver_free(r);
	return strdup(out);
}

/* load_each of n candidates in one order and in another must give these. */
static void loads_each_both_ways(const char *const *one, const char *const *other, size_t n,
				 const char *want_one, const char *want_other)
{
	char *s = load_each(one, n);

	assert_string_equal(s, want_one);
	free(s);
	s = load_each(other, n);
	assert_string_equal(s, want_other);
	free(s);
}

/*
 * libmid (in c/) needs f from libdep: a/libdep.so defines it, b/libdep.so
 * does not. The sources stay for the test to build more candidates:
 * top.c needs g and mid, so that a candidate also needs libdep itself.
 */
static void build_scopes(void)
{
	put("dep_full.c", "int f(void) { return 1; } int g(void) { return 2; }\n");
	put("dep_less.c", "int g(void) { return 2; }\n");
	put("mid.c", "int f(void); int mid(void) { return f(); }\n");
	put("top.c", "int g(void); int mid(void); int top(void) { return g() + mid(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libdep.so dep_full.c -Wl,-soname,libdep.so && "
	   "cc -shared -fPIC -o b/libdep.so dep_less.c -Wl,-soname,libdep.so && "
	   "cc -shared -fPIC -o c/libmid.so mid.c -La -ldep", work);
}

/*
 * One library, loaded by two candidates, bound in two scopes: it binds in
 * the first (its symbol comes from a/libdep.so) and not in the second
 * (b/libdep.so lacks it). A library is bound once per run only while its
 * providers are all in the scope; this holds it to that in either order.
 */
static void test_same_library_two_scopes(void **state)
{
	static const char *const ab[] = { "top_a.so", "top_b.so" };
	static const char *const ba[] = { "top_b.so", "top_a.so" };

	build_scopes();
	/* RPATH, not RUNPATH: the loader searches it for libmid's needs too */
	sh("cd '%s' && cc -shared -fPIC -o top_a.so top.c -La -Lc -ldep -lmid "
	   "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/a:$ORIGIN/c'", work);
	sh("cd '%s' && cc -shared -fPIC -o top_b.so top.c -La -Lc -ldep -lmid "
	   "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/b:$ORIGIN/c'", work);

	loads_each_both_ways(ab, ba, 2, "top_a.so: top_b.so:f", "top_b.so:f top_a.so:");
}

/*
 * The same across more scopes: libmid binds in five, each with its own
 * copy of libdep (five objects: the provider its remembered binding names
 * is missing from the next four), then meets the copy lacking f, then the
 * first scope again. Only the scope without f fails.
 */
static void test_library_bound_in_many_scopes(void **state)
{
	static const char *const order[] = { "top1.so", "top2.so", "top3.so", "top4.so",
					     "top5.so", "top_b.so", "top1.so" };
	char *s;
	int i;

	build_scopes();
	for (i = 1; i <= 5; i++)
		sh("cd '%s' && mkdir -p d%d && cc -shared -fPIC -o d%d/libdep.so dep_full.c "
		   "-Wl,-soname,libdep.so && cc -shared -fPIC -o top%d.so top.c -La -Lc -ldep -lmid "
		   "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/d%d:$ORIGIN/c'",
		   work, i, i, i, i);
	sh("cd '%s' && cc -shared -fPIC -o top_b.so top.c -La -Lc -ldep -lmid "
	   "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/b:$ORIGIN/c'", work);

	s = load_each(order, sizeof(order) / sizeof(order[0]));
	assert_string_equal(s, "top1.so: top2.so: top3.so: top4.so: top5.so: top_b.so:f top1.so:");
	free(s);
}

/*
 * A library read for one load shrinks on disk before the next load looks
 * symbols up in it (cp over it in place): the second load must say which
 * file changed rather than judge from the zeros, and the run goes on.
 */
static void test_library_shrinks_between_loads(void **state)
{
	char m1[8192], m2[8192], dep[8192];
	const char *changed;
	lo_resolver *r;
	lo_host *h;
	lo_load *l;

	put("dep.c", "int dep(void) { return 1; }\n");
	put("m.c", "int dep(void); int m(void) { return dep(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libdep.so dep.c && "
	   "cc -shared -fPIC -o m1.so m.c -La -ldep -Wl,-rpath,'$ORIGIN/a' && cp m1.so m2.so", work);
	snprintf(m1, sizeof(m1), "%s/m1.so", work);
	snprintf(m2, sizeof(m2), "%s/m2.so", work);
	snprintf(dep, sizeof(dep), "%s/a/libdep.so", work);
	assert_int_equal(lo_resolver_new(&r, NULL), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, m1, 0, NULL, NULL), 0);
	assert_true(lo_load_ok(l));
	assert_null(lo_load_changed(l));
	lo_load_free(l);

	assert_int_equal(truncate(dep, 64), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, m2, LO_LOAD_TRACE, NULL, NULL), 0);
	assert_non_null(changed = lo_load_changed(l));
	assert_string_equal(changed, dep);
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * A module whose only need the loader cannot meet is a symbol nobody
 * defines, and which has no DT_NEEDED of its own; read once, then cut
 * short in place (its tables now read as zeros, within the page, so without
 * a SIGBUS): its load must fail and name the file as changed, never pass
 * because the zeros hold no undefined symbol.
 */
static void test_candidate_cut_short_after_read(void **state)
{
	char m[8192];
	const lo_elf *e;
	const char *changed;
	lo_resolver *r;
	lo_host *h;
	lo_load *l;

	put("cut.c", "int nowhere(void); int m(void) { return nowhere(); }\n");
	sh("cd '%s' && cc -shared -fPIC -nostdlib -o cut.so cut.c", work);
	snprintf(m, sizeof(m), "%s/cut.so", work);
	assert_int_equal(lo_resolver_new(&r, NULL), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_resolver_read(r, m, &e), 0);
	assert_int_equal(lo_elf_undef_count(e), 1);
	assert_int_equal(truncate(m, 64), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, m, 0, NULL, NULL), 0);
	assert_false(lo_load_ok(l));
	assert_non_null(changed = lo_load_changed(l));
	assert_string_equal(changed, m);
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * WORK/a/lib<name>.so, defining 2,000 functions <name>_function_with_a_
 * long_name_N (about 120 KB of tables), and WORK/<cand>.so calling one of
 * them, found through its RPATH $ORIGIN/a.
 */
static void build_big(const char *name, const char *cand)
{
	lo_buf src = LO_BUF_INIT;
	char file[256];
	int i;

	for (i = 0; i < 2000; i++)
		lo_buf_printf(&src, "int %s_function_with_a_long_name_%d(void) { return %d; }\n",
			      name, i, i);
	snprintf(file, sizeof(file), "%s.c", name);
	put(file, lo_buf_cstr(&src));
	lo_buf_clear(&src);
	lo_buf_printf(&src, "int %s_function_with_a_long_name_7(void); int m(void) "
			    "{ return %s_function_with_a_long_name_7(); }\n", name, name);
	snprintf(file, sizeof(file), "%s.c", cand);
	put(file, lo_buf_cstr(&src));
	lo_buf_dispose(&src);
	sh("cd '%s' && cc -shared -fPIC -o a/lib%s.so %s.c && "
	   "cc -shared -fPIC -o %s.so %s.c -La -l%s -Wl,-rpath,'$ORIGIN/a'",
	   work, name, name, cand, cand, name);
}

/*
 * A library larger than the budget for resident library pages stays in
 * memory after a load that used it: the budget is at least twice the
 * largest object, or each load needing it would release it and the next
 * read all its pages again.
 */
static void test_library_larger_than_budget_stays_resident(void **state)
{
	lo_resolver_opts opts = { 0 };
	char m[8192], big[8192];
	lo_resolver *r;
	lo_host *h;
	lo_load *l;

	build_big("big", "m");
	snprintf(m, sizeof(m), "%s/m.so", work);
	snprintf(big, sizeof(big), "%s/a/libbig.so", work);
	opts.resident_budget = 4096;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, m, 0, NULL, NULL), 0);
	assert_true(lo_load_ok(l));
	assert_true(unit_rss_kib(NULL, big) > 0);
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * The budget counts a library's tables, not the span of file they lie
 * across: patchelf (auditwheel, conda) moves the tables it rewrites to the
 * end of the file, so that libpad's mapping spans its 16 MiB of data for
 * a few hundred bytes of tables. Counted by the span, that one library
 * made the budget 32 MiB (twice the largest), and the pages of every
 * library read after it stayed. Counted by the tables, three libraries of
 * 2,000 symbols read one after another are more than twice the largest:
 * the oldest gives its pages back, the newest keeps them.
 */
static void test_budget_counts_tables_not_the_span(void **state)
{
	static const char *const order[] = { "mpad.so", "m1.so", "m2.so", "m3.so" };
	lo_resolver_opts opts = { 0 };
	char path[8192], lib[8192];
	lo_resolver *r;
	lo_host *h;
	lo_load *l;
	size_t i;

	UNIT_SKIP_WITHOUT_PAGE_DROPS();
	put("pad.c", "#include <stdio.h>\nstatic const char pad[16 << 20] = { 1 };\n"
		     "const char *pad_at(int i) { puts(\"pad\"); return pad + i; }\n");
	put("mpad.c", "const char *pad_at(int i); const char *m(void) { return pad_at(1); }\n");
	/* a RUNPATH too long for the string table in place: patchelf writes a new one at the end */
	sh("cd '%s' && cc -shared -fPIC -o a/libpad.so pad.c && "
	   "patchelf --set-rpath /nowhere/%0200d a/libpad.so && "
	   "cc -shared -fPIC -o mpad.so mpad.c -La -lpad -Wl,-rpath,'$ORIGIN/a'", work, 0);
	build_big("big1", "m1");
	build_big("big2", "m2");
	build_big("big3", "m3");
	opts.resident_budget = 64 << 10;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", work, order[i]);
		assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
		assert_true(lo_load_ok(l));
		lo_load_free(l);
	}
	snprintf(lib, sizeof(lib), "%s/a/libbig1.so", work);
	assert_int_equal(unit_rss_kib(NULL, lib), 0);
	snprintf(lib, sizeof(lib), "%s/a/libbig3.so", work);
	assert_true(unit_rss_kib(NULL, lib) > 0);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * patchelf (auditwheel, conda) writes the tables it grows past the end of
 * the file, the code left between: libpelf's tables are a few hundred
 * bytes, 2 MiB apart. A scan reads such a candidate for its judge alone
 * all the same, each table with a read of its own (elf_read.c,
 * copy_tables), rather than mapping the span and keeping it; and what the
 * judge reads there is what nm reads: the same undefined symbols in the
 * same order, each with the version it needs.
 */
static void test_tables_patchelf_moved_are_read_for_the_judge_alone(void **state)
{
	lo_resolver_opts opts = { 0 };
	lo_elf_buf buf = { NULL };
	lo_buf want = LO_BUF_INIT, got = LO_BUF_INIT;
	char path[8192], line[512];
	const lo_elf *e;
	lo_elf *own;
	lo_elf_undef u;
	lo_resolver *r;
	size_t cursor = 0;
	FILE *nm;

	put("dep.c", "int f(void) { return 1; }\n");
	put("dep.map", "DEP_1 { global: f; };\n");
	put("pelf.c", "#include <stdio.h>\nconst char pelf_pad[2 << 20] = { 1 };\nint f(void);\n"
		      "int pelf(int i) { return puts(\"x\") + pelf_pad[i] + f(); }\n");
	sh("cd '%s' && cc -shared -fPIC -Wl,--version-script=dep.map -o a/libdep.so dep.c && "
	   "cc -shared -fPIC -o a/libpelf.so pelf.c -La -ldep && "
	   "patchelf --set-rpath /nowhere/%0300d a/libpelf.so", work, 0);
	snprintf(path, sizeof(path), "%s/a/libpelf.so", work);
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_resolver_read_own(r, path, &buf, &e, &own), 0);
	assert_non_null(own);
	assert_ptr_equal(e, own);
	while (lo_elf_undef_next(e, &cursor, &u))
		lo_buf_printf(&got, "%s%s%s\n", u.name, u.version ? "@" : "",
			      u.version ? u.version : "");
	snprintf(line, sizeof(line), "nm -D -p --undefined-only '%s'", path);
	assert_non_null(nm = popen(line, "r"));
	while (fgets(line, sizeof(line), nm)) {
		char name[512];

		if (sscanf(line, " %*s %511s", name) == 1)
			lo_buf_printf(&want, "%s\n", name);
	}
	assert_int_equal(pclose(nm), 0);
	assert_non_null(strstr(lo_buf_cstr(&want), "f@DEP_1\n"));
	assert_string_equal(lo_buf_cstr(&got), lo_buf_cstr(&want));
	lo_buf_dispose(&want);
	lo_buf_dispose(&got);
	lo_elf_free(own);
	lo_elf_buf_dispose(&buf);
	lo_resolver_free(r);
}

/* libbig1.so .. libbig<n>.so in WORK/a (build_big, each with its m<i>.so); their paths into lib. */
static void build_bigs(size_t n, char lib[][8192])
{
	size_t i;

	for (i = 0; i < n; i++) {
		char name[16], cand[16];

		snprintf(name, sizeof(name), "big%zu", i + 1);
		snprintf(cand, sizeof(cand), "m%zu", i + 1);
		build_big(name, cand);
		snprintf(lib[i], 8192, "%s/a/lib%s.so", work, name);
	}
}

/* Read libbig<i + 1>.so at lib and look up one of its symbols, as a load would. */
static void read_big(lo_resolver *r, const char *lib, size_t i)
{
	const lo_elf *e;
	char sym[128];

	assert_int_equal(lo_resolver_read(r, lib, &e), 0);
	snprintf(sym, sizeof(sym), "big%zu_function_with_a_long_name_1999", i + 1);
	assert_true(lo_elf_exports(e, sym));
}

/* This process's resident bytes, from /proc/self/statm. */
static size_t process_rss(void)
{
	unsigned long long size, pages;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu %llu", &size, &pages), 2);
	fclose(f);
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Without a budget of its own, a resolver gives the tables what the
 * process's heap leaves of its limit, and looks again as they grow: a
 * scan's heap grows with the tree. Three libraries of 120 KB of tables
 * fit under a limit 2 MiB above the process; once the heap has grown by
 * 3 MiB, the next three read give back the pages of the first.
 */
static void test_tables_get_what_the_heap_leaves(void **state)
{
	lo_resolver_opts opts = { 0 };
	char lib[6][8192];
	lo_resolver *r;
	char *heap = NULL;
	size_t i, k;

	UNIT_SKIP_WITHOUT_PAGE_DROPS();
	build_bigs(6, lib);
	opts.resident_limit = process_rss() + (2 << 20);
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	for (i = 0; i < 6; i++) {
		if (i == 3) {
			for (k = 0; k < 3; k++)
				assert_true(unit_rss_kib(NULL, lib[k]) > 0);
			heap = malloc(3 << 20);
			assert_non_null(heap);
			memset(heap, 1, 3 << 20);
		}
		read_big(r, lib[i], i);
	}
	assert_int_equal(unit_rss_kib(NULL, lib[0]), 0);
	assert_true(unit_rss_kib(NULL, lib[5]) > 0);
	free(heap);
	lo_resolver_free(r);
}

/*
 * An object counts against the budget once it is read, before any load
 * uses it: counted only after a load, what loads in flight read came on
 * top of the budget. Three libraries of 120 KB of tables, read and
 * looked into one after another, are more than twice the largest: the
 * third's read gives back the pages of the first two.
 */
static void test_an_object_counts_once_read(void **state)
{
	lo_resolver_opts opts = { 0 };
	char lib[3][8192];
	lo_resolver *r;
	size_t i;

	UNIT_SKIP_WITHOUT_PAGE_DROPS();
	build_bigs(3, lib);
	opts.resident_budget = 64 << 10;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	for (i = 0; i < 3; i++) {
		read_big(r, lib[i], i);
		assert_true(unit_rss_kib(NULL, lib[i]) > 0);
	}
	assert_int_equal(unit_rss_kib(NULL, lib[0]), 0);
	assert_int_equal(unit_rss_kib(NULL, lib[1]), 0);
	lo_resolver_free(r);
}

/*
 * Eight modules WORK/m<i>.so, each calling base() from WORK/b/libbase.so
 * and l<i>() from its own WORK/a/libl<i>.so. Modules 3 and 6 are stale:
 * their library was rebuilt without l<i> after they were linked.
 */
#define LET_GO_MODULES 8

static void build_let_go(void)
{
	int i;

	put("base.c", "int base(void) { return 1; }\n");
	sh("cd '%s' && cc -shared -fPIC -o b/libbase.so base.c", work);
	for (i = 0; i < LET_GO_MODULES; i++) {
		char src[256];

		snprintf(src, sizeof(src), "int l%d(void) { return %d; }\n", i, i);
		put("l.c", src);
		snprintf(src, sizeof(src), "int base(void); int l%d(void);\n"
					   "int m(void) { return base() + l%d(); }\n", i, i);
		put("m.c", src);
		sh("cd '%s' && cc -shared -fPIC -o a/libl%d.so l.c && "
		   "cc -shared -fPIC -o m%d.so m.c -La -ll%d -Lb -lbase "
		   "-Wl,-rpath,'$ORIGIN/a:$ORIGIN/b'", work, i, i, i);
		if (i == 3 || i == 6) {
			put("l.c", "int other(void) { return 0; }\n");
			sh("cd '%s' && cc -shared -fPIC -o a/libl%d.so l.c", work, i);
		}
	}
}

/* Does dlopen(WORK/m<i>.so) fail as it should (only 3 and 6, on their l<i>)? */
static bool let_go_load_right(lo_resolver *r, const lo_host *h, int i)
{
	char path[8192], sym[16];
	lo_load *l;
	bool right;

	snprintf(path, sizeof(path), "%s/m%d.so", work, i);
	snprintf(sym, sizeof(sym), "l%d", i);
	if (lo_load_simulate(&l, r, h, path, 0, NULL, NULL) < 0)
		return false;
	if (i == 3 || i == 6)
		right = lo_load_problem_count(l) == 1 &&
			lo_load_problem_at(l, 0)->kind == LO_PROBLEM_UNDEFINED_SYMBOL &&
			!strcmp(lo_load_problem_at(l, 0)->symbol, sym);
	else
		right = lo_load_ok(l);
	lo_load_free(l);
	return right;
}

/* How many mappings of the process are of files under WORK. */
static int maps_under_work(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, work))
			n++;
	fclose(f);
	return n;
}

/*
 * With room for two objects, a worker's loads let libraries go and read
 * them again, round after round, and every verdict stays right. Each
 * reading maps the file anew: the mappings of the objects freed are
 * unmapped together once there are 16 per object kept (32 here), not
 * kept until the end, where 50 rounds would leave about 800.
 */
static void test_objects_let_go_and_read_again(void **state)
{
	lo_resolver_opts opts = { 0 };
	lo_resolver_worker *w;
	lo_resolver *r;
	lo_host *h;
	int round, i;

	build_let_go();
	opts.kept_objects = 2;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	w = lo_resolver_worker_new(r);
	for (round = 0; round < 50; round++)
		for (i = 0; i < LET_GO_MODULES; i++) {
			lo_resolver_begin(w);
			assert_true(let_go_load_right(r, h, i));
			lo_resolver_end(w);
		}
	assert_in_range(maps_under_work(), 1, 2 + 32 + 64);
	lo_host_free(h);
	lo_resolver_free(r);
}

struct let_go_worker {
	lo_resolver *r;
	const lo_host *h;
	int first, wrong;
};

static void *let_go_thread(void *arg)
{
	struct let_go_worker *t = arg;
	lo_resolver_worker *w = lo_resolver_worker_new(t->r);
	int n;

	for (n = 0; n < 400; n++) {
		lo_resolver_begin(w);
		if (!let_go_load_right(t->r, t->h, (t->first + n * 3) % LET_GO_MODULES))
			t->wrong++;
		lo_resolver_end(w);
	}
	return NULL;
}

/*
 * Run `fn` on two workers over the let-go modules (build_let_go), with a
 * resolver that keeps two objects and a page-budget of one page, so that
 * objects are let go and pages released under nearly every load, and a
 * host of the native target made by a worker, as a scan makes its hosts
 * when a candidate needs one; neither may judge anything wrong.
 */
static void on_two_workers(void *(*fn)(void *))
{
	lo_resolver_opts opts = { 0 };
	struct let_go_worker t[2];
	lo_resolver_worker *w;
	lo_resolver *r;
	lo_host *h;

	build_let_go();
	opts.kept_objects = 2;
	opts.resident_budget = 4096;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	w = lo_resolver_worker_new(r);
	lo_resolver_begin(w);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	lo_resolver_end(w);
	t[0] = (struct let_go_worker){ r, h, 0, 0 };
	t[1] = (struct let_go_worker){ r, h, 1, 0 };
	unit_two_threads(fn, &t[0], &t[1]);
	assert_int_equal(t[0].wrong, 0);
	assert_int_equal(t[1].wrong, 0);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * Two workers load at once while objects are let go under them: what one
 * still reads is freed only after its candidate ends (run under
 * AddressSanitizer, a use after free fails the test), and the host's
 * objects, read by both all along, are never let go. With a budget of one
 * page, every load releases what it marked: an object let go by one
 * worker while the other's load held it was marked all the same, and
 * released through its NULL lo_elf (a crash under qemu on arm64, and under
 * ThreadSanitizer on x86-64).
 */
static void test_objects_let_go_under_two_workers(void **state)
{
	on_two_workers(let_go_thread);
}

/*
 * Judge a/libl<i>.so as a candidate: it loads. With `buf`, read as a scan
 * reads it, for the judge alone unless the resolver holds it already.
 */
static bool library_judged_right(lo_resolver *r, const lo_host *h, int i, lo_elf_buf *buf,
				 char *path, size_t size)
{
	const lo_elf *e;
	lo_elf *own = NULL;
	lo_load *l;
	bool right;

	snprintf(path, size, "%s/a/libl%d.so", work, i);
	if ((buf ? lo_resolver_read_own(r, path, buf, &e, &own) : lo_resolver_read(r, path, &e)) < 0 ||
	    lo_load_simulate_own(&l, r, h, path, own, 0, NULL, NULL) < 0) {
		lo_elf_free(own);
		return false;
	}
	right = lo_load_ok(l);
	lo_load_free(l);
	lo_elf_free(own);
	return right;
}

static void *forget_thread(void *arg)
{
	struct let_go_worker *t = arg;
	lo_resolver_worker *w = lo_resolver_worker_new(t->r);
	lo_elf_buf buf = { NULL };
	char path[8192];
	int n;

	for (n = 0; n < 400; n++) {
		int i = (t->first + n * 3) % LET_GO_MODULES;
		bool right;

		lo_resolver_begin(w);
		if (n % 2) {
			right = let_go_load_right(t->r, t->h, i);
			snprintf(path, sizeof(path), "%s/m%d.so", work, i);
		} else {
			right = library_judged_right(t->r, t->h, i, n % 4 ? NULL : &buf, path,
						     sizeof(path));
		}
		lo_resolver_end(w);
		lo_resolver_forget(t->r, path);
		t->wrong += !right;
	}
	lo_elf_buf_dispose(&buf);
	return NULL;
}

/*
 * A scan forgets each candidate once judged. Here the libraries the
 * modules need are candidates too, judged and forgotten by one worker
 * while the other loads a module that needs them (half of them read for
 * the judge alone, as a scan reads what no load holds), and the same
 * module is at times judged by both at once; with room for two objects and a
 * budget of one page, a forgotten object leaves the caches as soon as it
 * is judged. Every verdict stays right, and nothing is used after it is
 * freed or left unfreed (AddressSanitizer and its leak check, in the
 * sanitizer build).
 */
static void test_candidates_forgotten_under_two_workers(void **state)
{
	on_two_workers(forget_thread);
}

/*
 * A library let go and then rebuilt is not the object the scan read: a
 * load needing it fails, naming the change, rather than passing on a
 * reading of another file.
 */
static void test_library_rebuilt_after_let_go_fails(void **state)
{
	lo_resolver_opts opts = { 0 };
	lo_resolver_worker *w;
	char path[8192];
	lo_resolver *r;
	lo_host *h;
	lo_load *l;
	int i;

	build_let_go();
	opts.kept_objects = 1;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	w = lo_resolver_worker_new(r);
	for (i = 0; i < 3; i++) {
		lo_resolver_begin(w);
		assert_true(let_go_load_right(r, h, i));
		lo_resolver_end(w);
	}
	put("l.c", "int l0(void) { return 10; }\n");
	sh("cd '%s' && rm a/libl0.so && cc -shared -fPIC -o a/libl0.so l.c", work);
	snprintf(path, sizeof(path), "%s/m0.so", work);
	lo_resolver_begin(w);
	assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
	assert_false(lo_load_ok(l));
	assert_int_equal(lo_load_problem_at(l, 0)->kind, LO_PROBLEM_BAD_LIBRARY);
	assert_non_null(strstr(lo_load_problem_at(l, 0)->detail, "changed"));
	lo_load_free(l);
	lo_resolver_end(w);
	lo_host_free(h);
	lo_resolver_free(r);
}

/*
 * m.so, needing lib`name`.so (its function `name`) through RUNPATH
 * `runpath`, is built and the library removed: the detail of the one
 * problem of dlopen(WORK/m.so) from a plain C program, which must be that
 * library missing; owned.
 */
static char *missing_detail(const char *name, const char *runpath)
{
	char path[8192], lib[256], *detail;
	const lo_problem *pr;
	lo_resolver *r;
	lo_host *h;
	lo_load *l;

	snprintf(path, sizeof(path), "int %s(void) { return 1; }\n", name);
	put("lib.c", path);
	snprintf(path, sizeof(path), "int %s(void); int m(void) { return %s(); }\n", name, name);
	put("m.c", path);
	sh("cd '%s' && cc -shared -fPIC -o a/lib%s.so lib.c && cc -shared -fPIC -o m.so m.c -La -l%s "
	   "-Wl,--enable-new-dtags,-rpath,'%s' && rm a/lib%s.so",
	   work, name, name, runpath, name);
	snprintf(path, sizeof(path), "%s/m.so", work);
	assert_int_equal(lo_resolver_new(&r, NULL), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
	assert_false(lo_load_ok(l));
	assert_int_equal(lo_load_problem_count(l), 1);
	pr = lo_load_problem_at(l, 0);
	assert_int_equal(pr->kind, LO_PROBLEM_MISSING_LIBRARY);
	snprintf(lib, sizeof(lib), "lib%s.so", name);
	assert_string_equal(pr->library, lib);
	detail = strdup(pr->detail);
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
	return detail;
}

/*
 * A library not found is reported with every path tried and why, though
 * a load without a trace writes down nothing while it searches: the
 * paths come from the search made again for the report.
 */
static void test_missing_library_says_what_was_tried(void **state)
{
	char tried[8192], *detail = missing_detail("gone", "$ORIGIN/a");

	snprintf(tried, sizeof(tried), "not found; tried:\n%s/a/libgone.so: No such file or directory\n",
		 work);
	assert_non_null(strstr(detail, tried));
	free(detail);
}

/*
 * The resolver keys a file by its directory's inode and its name, so the
 * directory must be resolved as the kernel resolves it: link/.. is the
 * parent of the link's target (real/), not the directory holding the link,
 * where a lexical "a/b/.." would lead. real/lib/libx.so defines x,
 * lib/libx.so does not; three candidates in one resolver reach them by
 * three spellings, in both orders.
 */
static void test_dot_dot_through_a_link_is_the_kernels(void **state)
{
	static const char *const forth[] = { "m_link.so", "m_plain.so", "m_real.so" };
	static const char *const back[] = { "m_real.so", "m_plain.so", "m_link.so" };

	put("x_full.c", "int x(void) { return 1; }\n");
	put("x_less.c", "int other(void) { return 1; }\n");
	put("m.c", "int x(void); int m(void) { return x(); }\n");
	sh("cd '%s' && mkdir -p real/sub real/lib lib && ln -s real/sub link && "
	   "cc -shared -fPIC -o real/lib/libx.so x_full.c && cc -shared -fPIC -o lib/libx.so x_less.c && "
	   "cc -shared -fPIC -o m_link.so m.c -Lreal/lib -lx -Wl,--enable-new-dtags,-rpath,'$ORIGIN/link/../lib' && "
	   "cc -shared -fPIC -o m_plain.so m.c -Lreal/lib -lx -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib' && "
	   "cc -shared -fPIC -o m_real.so m.c -Lreal/lib -lx -Wl,--enable-new-dtags,-rpath,'$ORIGIN/real/sub/../lib'",
	   work);
	loads_each_both_ways(forth, back, 3, "m_link.so: m_plain.so:x m_real.so:",
			     "m_real.so: m_plain.so:x m_link.so:");
}

/*
 * A path through a directory that is not there, or through a file, fails
 * as open(2) fails it, with the same errno, though the resolver looks at
 * the directory and not at the path.
 */
static void test_path_through_a_missing_directory_or_a_file(void **state)
{
	char tried[8192], *detail = missing_detail("x", "$ORIGIN/nodir:$ORIGIN/m.c");

	snprintf(tried, sizeof(tried),
		 "%s/nodir/libx.so: No such file or directory\n%s/m.c/libx.so: Not a directory\n",
		 work, work);
	assert_non_null(strstr(detail, tried));
	free(detail);
}

static const char lib_v12[] =
	"__asm__(\".symver foo_1, foo@LIBFOO_1.0\");\n"
	"__asm__(\".symver foo_2, foo@@LIBFOO_2.0\");\n"
	"int foo_1(void) { return 1; }\n"
	"int foo_2(void) { return 2; }\n";

static void build_versioned(const char *map)
{
	put("foo.map", map);
	put("foo.c", lib_v12);
	sh("cd '%s' && cc -shared -fPIC -o a/libfoo.so foo.c -Wl,--version-script,foo.map "
	   "-Wl,-soname,libfoo.so", work);
}

/* A reference to foo@LIBFOO_2.0 needs LIBFOO_2.0 from libfoo. */
static void test_missing_version(void **state)
{
	char *s;

	build_versioned("LIBFOO_1.0 { global: foo; local: *; };\n"
			"LIBFOO_2.0 { global: foo; } LIBFOO_1.0;\n");
	put("use.c", "int foo(void); int use(void) { return foo(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o use.so use.c -La -lfoo -Wl,-rpath,'$ORIGIN/a'", work);
	s = load("use.so", NULL);
	assert_string_equal(s, "");
	free(s);

	/* the library rebuilt without LIBFOO_2.0 */
	put("foo.c", "int foo(void) { return 1; }\n");
	put("foo.map", "LIBFOO_1.0 { global: foo; local: *; };\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libfoo.so foo.c -Wl,--version-script,foo.map", work);
	s = load("use.so", NULL);
	assert_string_equal(s, "missing-version:LIBFOO_2.0");
	free(s);
}

/*
 * An unversioned reference (a binary linked before the library had
 * versions) binds to the library's oldest version, index 2, even when that
 * definition is hidden (foo@V, not foo@@V); a hidden definition of a later
 * version does not satisfy it. This is glibc's check_match, and the real
 * loader agrees on both (checked by hand with dlopen when this was written).
 */
static void test_unversioned_reference_and_hidden_version(void **state)
{
	char *s;

	/* the consumer is linked against an unversioned libfoo */
	put("foo0.c", "int foo(void) { return 0; }\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libfoo.so foo0.c -Wl,-soname,libfoo.so", work);
	put("use.c", "int foo(void); int use(void) { return foo(); }\n");
	sh("cd '%s' && cc -shared -fPIC -o use.so use.c -La -lfoo -Wl,-rpath,'$ORIGIN/a'", work);

	build_versioned("LIBFOO_1.0 { global: foo; local: *; };\n"
			"LIBFOO_2.0 { global: foo; } LIBFOO_1.0;\n");
	s = load("use.so", NULL);
	assert_string_equal(s, "");
	free(s);

	/* only a hidden foo@LIBFOO_1.0 left: the oldest version, still bound */
	put("foo.c", "__asm__(\".symver foo_1, foo@LIBFOO_1.0\");\n"
		     "int foo_1(void) { return 1; }\nint bar(void) { return 3; }\n");
	put("foo.map", "LIBFOO_1.0 { global: foo; bar; local: *; };\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libfoo.so foo.c -Wl,--version-script,foo.map", work);
	s = load("use.so", NULL);
	assert_string_equal(s, "");
	free(s);

	/* only a hidden foo@LIBFOO_2.0 left: not bound */
	put("foo.c", "__asm__(\".symver foo_2, foo@LIBFOO_2.0\");\n"
		     "int foo_2(void) { return 1; }\nint bar(void) { return 3; }\n");
	put("foo.map", "LIBFOO_1.0 { global: bar; local: *; };\n"
		       "LIBFOO_2.0 { global: foo; } LIBFOO_1.0;\n");
	sh("cd '%s' && cc -shared -fPIC -o a/libfoo.so foo.c -Wl,--version-script,foo.map", work);
	s = load("use.so", NULL);
	assert_string_equal(s, "undefined-symbol:foo");
	free(s);
}

/* A weak undefined symbol may stay unresolved. */
/*
 * ld.so.cache as the real ldconfig writes it for a directory holding a
 * library and a copy in glibc-hwcaps/x86-64-v2/: with that level
 * supported the copy is taken (dl-cache.c), without it the plain one.
 */
static void test_cache_takes_supported_hwcaps_copy(void **state)
{
	static const char *const v3_v2[] = { "x86-64-v3", "x86-64-v2", NULL };
	static const char *const v3[] = { "x86-64-v3", NULL };
	char cache[8192], want[8192];
	lo_map *m;

	sh("mkdir -p '%s/lib/glibc-hwcaps/x86-64-v2' && cd '%s' && "
	   "printf 'int q(void) { return 1; }\\n' > q.c && "
	   "gcc -shared -fPIC -Wl,-soname,libq.so.1 -o lib/libq.so.1 q.c && "
	   "cp lib/libq.so.1 lib/glibc-hwcaps/x86-64-v2/ && echo \"$PWD/lib\" > ld.so.conf && "
	   "ldconfig -X -C ld.so.cache -f ld.so.conf", work, work);
	snprintf(cache, sizeof(cache), "%s/ld.so.cache", work);
	m = lo_map_new();
	assert_int_equal(lo_ldconfig_read_cache(m, NULL, cache, 0x0303, v3_v2), 0);
	snprintf(want, sizeof(want), "%s/lib/glibc-hwcaps/x86-64-v2/libq.so.1", work);
	assert_string_equal(lo_map_get(m, "libq.so.1", NULL), want);
	lo_map_free(m, free);
	m = lo_map_new();
	assert_int_equal(lo_ldconfig_read_cache(m, NULL, cache, 0x0303, v3), 0);
	snprintf(want, sizeof(want), "%s/lib/libq.so.1", work);
	assert_string_equal(lo_map_get(m, "libq.so.1", NULL), want);
	lo_map_free(m, free);
}

static void test_weak_undefined(void **state)
{
	char *s;

	put("w.c", "extern int maybe(void) __attribute__((weak));\n"
		   "int w(void) { return maybe ? maybe() : 0; }\n");
	sh("cd '%s' && cc -shared -fPIC -o w.so w.c", work);
	s = load("w.so", NULL);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dst_expansion),
		cmocka_unit_test_setup(test_search_order, setup),
		cmocka_unit_test_setup(test_rpath_inherited_runpath_not, setup),
		cmocka_unit_test_setup(test_missing_version, setup),
		cmocka_unit_test_setup(test_unversioned_reference_and_hidden_version, setup),
		cmocka_unit_test_setup(test_weak_undefined, setup),
		cmocka_unit_test_setup(test_cache_takes_supported_hwcaps_copy, setup),
		cmocka_unit_test_setup(test_same_library_two_scopes, setup),
		cmocka_unit_test_setup(test_library_bound_in_many_scopes, setup),
		cmocka_unit_test_setup(test_library_shrinks_between_loads, setup),
		cmocka_unit_test_setup(test_candidate_cut_short_after_read, setup),
		cmocka_unit_test_setup(test_library_larger_than_budget_stays_resident, setup),
		cmocka_unit_test_setup(test_budget_counts_tables_not_the_span, setup),
		cmocka_unit_test_setup(test_tables_patchelf_moved_are_read_for_the_judge_alone, setup),
		cmocka_unit_test_setup(test_tables_get_what_the_heap_leaves, setup),
		cmocka_unit_test_setup(test_an_object_counts_once_read, setup),
		cmocka_unit_test_setup(test_missing_library_says_what_was_tried, setup),
		cmocka_unit_test_setup(test_dot_dot_through_a_link_is_the_kernels, setup),
		cmocka_unit_test_setup(test_path_through_a_missing_directory_or_a_file, setup),
		cmocka_unit_test_setup(test_objects_let_go_and_read_again, setup),
		cmocka_unit_test_setup(test_objects_let_go_under_two_workers, setup),
		cmocka_unit_test_setup(test_candidates_forgotten_under_two_workers, setup),
		cmocka_unit_test_setup(test_library_rebuilt_after_let_go_fails, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
