/*
 * test_buildsys.c - the build system model on trees configured and built by
 * real CMake in the test (fixtures/orphans/unit/), never on hand-written
 * replies: the rename of a target by a reconfigure, with each generator's
 * own evidence, the File API query and its notes, multi-config, and
 * records damaged on purpose. The libtool archive and cargo manifest
 * readers' edge shapes are written by hand (real builds of both are the
 * e2e tests test_autotools.py and test_cargo.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/buildsys.h"

static char tree[4096];

/* A fresh build dir named `name` under LEFTOVER_WORK, configured with `generator`. */
static void configure(const char *name, const char *generator, const char *extra)
{
	const char *base = getenv("LEFTOVER_WORK");

	snprintf(tree, sizeof(tree), "%s/%s", base ? base : "/tmp/leftover-unit-buildsys", name);
	sh("rm -rf '%s' && cmake -S '%s/fixtures/orphans/unit' -B '%s' -G '%s' %s >/dev/null",
	   tree, LEFTOVER_SOURCE_DIR, tree, generator, extra);
}

static void reconfigure_with(const char *args)
{
	sh("cmake '%s' %s >/dev/null", tree, args);
}

static void build(const char *config)
{
	sh("cmake --build '%s' -j2 %s%s >/dev/null", tree, config ? "--config " : "",
	   config ? config : "");
}

static lo_buildsys *open_tree(unsigned flags)
{
	lo_buildsys *bs = NULL;

	assert_int_equal(lo_buildsys_open(&bs, tree, NULL, NULL, flags), 0);
	assert_non_null(bs);
	return bs;
}

static int keep(const lo_walk_entry *e, void *finds)
{
	lo_buildsys_finds_add(finds, e);
	return 0;
}

/*
 * The scan hands the model what its own walk, on several threads, kept of
 * the tree: the model must come out as when it walks the tree itself.
 */
static void assert_same_when_walked_by_scan(const lo_buildsys *bs)
{
	lo_buildsys_finds *finds = lo_buildsys_finds_new(3);
	lo_buildsys *w = NULL;
	size_t i;

	assert_int_equal(lo_walk_tree(tree, 3, keep, finds), 0);
	assert_int_equal(lo_buildsys_open(&w, tree, finds, NULL, 0), 0);
	lo_buildsys_finds_free(finds);
	assert_non_null(w);
	assert_string_equal(lo_buildsys_generator(w), lo_buildsys_generator(bs));
	assert_int_equal(lo_buildsys_orphan_count(w), lo_buildsys_orphan_count(bs));
	for (i = 0; i < lo_buildsys_orphan_count(bs); i++)
		assert_string_equal(lo_buildsys_orphan_at(w, i), lo_buildsys_orphan_at(bs, i));
	lo_buildsys_free(w);
}

static lo_orphan_verdict judge(const lo_buildsys *bs, const char *rel)
{
	lo_orphan_verdict v;

	lo_buildsys_judge(bs, rel, &v);
	return v;
}

static const char *find_note(const lo_buildsys *bs, const char *part)
{
	const char *n;
	size_t i;

	for (i = 0; (n = lo_buildsys_note(bs, i)); i++)
		if (strstr(n, part))
			return n;
	return NULL;
}

static int exists(const char *rel)
{
	char p[8192];

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	return access(p, F_OK) == 0;
}

/*
 * Ninja: the first open writes the stateless query and says there is no
 * reply; after a rename, the old library is an orphan by the Ninja log,
 * with when it was built, and everything current is not.
 */
static void test_ninja_rename(void **state)
{
	lo_buildsys *bs;
	lo_orphan_verdict v;
	size_t i;
	int listed = 0;

	configure("ninja", "Ninja", "");
	build(NULL);
	bs = open_tree(0);
	assert_string_equal(lo_buildsys_generator(bs), "Ninja");
	assert_true(exists(".cmake/api/v1/query/codemodel-v2"));
	assert_true(exists(".cmake/api/v1/query/cmakeFiles-v1"));
	assert_non_null(find_note(bs, "no File API reply yet"));
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0);
	lo_buildsys_free(bs);

	reconfigure_with("-DLIBNAME=new");
	build(NULL);
	bs = open_tree(0);
	assert_null(find_note(bs, "File API"));
	v = judge(bs, "lib/libold.so");
	assert_int_equal(v.orphan, 1);
	assert_int_equal(v.evidence, LO_EVIDENCE_NINJA_LOG);
	assert_string_equal(lo_orphan_evidence_str(v.evidence), "ninja-log");
	assert_non_null(strstr(v.detail, ".ninja_log"));
	assert_non_null(strstr(v.detail, "UTC")); /* the time it was last built */
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, 0);
	/* a custom command's output is in the manifest; a configure_file output never built */
	assert_int_equal(judge(bs, "gen/table.c").orphan, 0);
	assert_int_equal(judge(bs, "gen/version.h").orphan, -1);
	/* a file nobody recorded: no evidence either way */
	sh("touch '%s/lib/notes.txt'", tree);
	assert_int_equal(judge(bs, "lib/notes.txt").orphan, -1);
	/* the old target's object is an orphan too, and bookkeeping */
	assert_int_equal(judge(bs, "CMakeFiles/old.dir/lib.c.o").orphan, 1);
	assert_true(lo_buildsys_is_bookkeeping("CMakeFiles/old.dir/lib.c.o"));

	for (i = 0; i < lo_buildsys_orphan_count(bs); i++) {
		if (i)
			assert_true(strcmp(lo_buildsys_orphan_at(bs, i - 1),
					   lo_buildsys_orphan_at(bs, i)) < 0);
		listed |= !strcmp(lo_buildsys_orphan_at(bs, i), "lib/libold.so");
		assert_string_not_equal(lo_buildsys_orphan_at(bs, i), "lib/libnew.so");
	}
	assert_true(listed);
	assert_null(lo_buildsys_orphan_at(bs, lo_buildsys_orphan_count(bs)));
	assert_same_when_walked_by_scan(bs);
	lo_buildsys_free(bs);
}

/*
 * Unix Makefiles: before any File API reply, the live targets are those of
 * CMakeFiles/TargetDirectories.txt and Makefile2, rewritten at every
 * generation; without them (or with one cut short) a dead target cannot be
 * told from a live one, so nothing is guessed. With the codemodel, the
 * dead target's clean list is the evidence and is named.
 */
static void test_makefiles_dead_target(void **state)
{
	lo_buildsys *bs;
	lo_orphan_verdict v;

	configure("make", "Unix Makefiles", "");
	build(NULL);
	reconfigure_with("-DLIBNAME=new");
	build(NULL);
	bs = open_tree(0);
	assert_string_equal(lo_buildsys_generator(bs), "Unix Makefiles");
	assert_null(find_note(bs, "cannot be told"));
	v = judge(bs, "lib/libold.so");
	assert_int_equal(v.orphan, 1);
	assert_int_equal(v.evidence, LO_EVIDENCE_CMAKE_CLEAN_LIST);
	assert_non_null(strstr(v.detail, "TargetDirectories.txt"));
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, 0);
	lo_buildsys_free(bs);

	sh("cd '%s/CMakeFiles' && cp TargetDirectories.txt td && head -c 20 td > TargetDirectories.txt",
	   tree);
	bs = open_tree(0);
	assert_non_null(find_note(bs, "cannot be told"));
	v = judge(bs, "lib/libold.so");
	assert_int_equal(v.orphan, -1);
	assert_non_null(strstr(v.detail, "cannot be told"));
	lo_buildsys_free(bs);
	sh("cd '%s/CMakeFiles' && mv td TargetDirectories.txt", tree);

	/* the query is written now: the next configure answers it */
	reconfigure_with("");
	bs = open_tree(0);
	assert_null(find_note(bs, "cannot be told"));
	v = judge(bs, "lib/libold.so");
	assert_int_equal(v.orphan, 1);
	assert_int_equal(v.evidence, LO_EVIDENCE_CMAKE_CLEAN_LIST);
	assert_string_equal(lo_orphan_evidence_str(v.evidence), "cmake-clean-list");
	assert_non_null(strstr(v.detail, "CMakeFiles/old.dir/cmake_clean.cmake"));
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, 0);
	assert_int_equal(judge(bs, "CMakeFiles/old.dir/lib.c.o").orphan, 1);
	assert_int_equal(judge(bs, "CMakeFiles/new.dir/lib.c.o").orphan, 0);
	assert_int_not_equal(judge(bs, "gen/table.c").orphan, 1);
	/* configure_file's output, from CMAKE_MAKEFILE_PRODUCTS */
	assert_int_equal(judge(bs, "gen/version.h").orphan, 0);
	assert_same_when_walked_by_scan(bs);
	lo_buildsys_free(bs);

	/*
	 * gen/extra.txt moves from a custom target to configure_file: the dead
	 * target's clean list still names it, but it is the configure step's now.
	 */
	assert_int_equal(judge(bs = open_tree(0), "gen/extra.txt").orphan, 0);
	lo_buildsys_free(bs);
	reconfigure_with("-DEXTRA_BY=configure");
	build(NULL);
	bs = open_tree(0);
	assert_int_equal(judge(bs, "gen/extra.txt").orphan, 0);
	lo_buildsys_free(bs);
}

/*
 * A file named cmake_clean.cmake where CMake never writes one is no clean
 * list. One right under CMakeFiles/ made the reader look for the target's
 * dir with strstr, get NULL and ask for a 2^64-byte copy: the scan aborted
 * (found by review, fuzz_cmake_clean had not placed one there). One under
 * "xCMakeFiles/" was read with a base cut from the wrong place, and its
 * paths taken as evidence.
 */
static void test_clean_list_out_of_place(void **state)
{
	lo_buildsys *bs;

	configure("clean-place", "Unix Makefiles", "");
	lo_buildsys_free(open_tree(0)); /* writes the query */
	reconfigure_with(""); /* answers it: a codemodel, so clean lists are read */
	build(NULL);
	sh("cd '%s' && touch lib/stray.so stray.so && mkdir -p xCMakeFiles/t.dir && "
	   "printf 'file(REMOVE_RECURSE\n  \"lib/stray.so\"\n)\n' > CMakeFiles/cmake_clean.cmake && "
	   "printf 'file(REMOVE_RECURSE\n  \"stray.so\"\n)\n' > xCMakeFiles/t.dir/cmake_clean.cmake",
	   tree);
	bs = open_tree(0);
	assert_null(find_note(bs, "cannot be told"));
	assert_int_equal(judge(bs, "lib/stray.so").orphan, -1);
	assert_int_equal(judge(bs, "stray.so").orphan, -1);
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0); /* the real lists still count */
	lo_buildsys_free(bs);
}

/*
 * LO_BUILDSYS_RECONFIGURE runs `cmake BUILD_DIR` when there is no reply and
 * says so; a reply older than CMakeCache.txt is reported, not trusted silently.
 */
static void test_reconfigure_and_old_reply(void **state)
{
	lo_buildsys *bs;
	const char *n;

	configure("reconf", "Unix Makefiles", "");
	build(NULL);
	reconfigure_with("-DLIBNAME=new");
	build(NULL);
	assert_false(exists(".cmake/api/v1/reply"));
	bs = open_tree(LO_BUILDSYS_RECONFIGURE);
	assert_non_null(n = find_note(bs, "ran: cmake "));
	assert_non_null(strstr(n, tree));
	assert_non_null(strstr(n, "(ok)"));
	assert_true(exists(".cmake/api/v1/reply"));
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 1);
	lo_buildsys_free(bs);

	sh("touch -d '+1 hour' '%s/CMakeCache.txt'", tree);
	bs = open_tree(0);
	assert_non_null(find_note(bs, "older than CMakeCache.txt"));
	assert_null(find_note(bs, "ran: cmake"));
	lo_buildsys_free(bs);
}

/* Ninja Multi-Config: an artifact of any configured configuration is produced. */
static void test_multi_config(void **state)
{
	lo_buildsys *bs;

	configure("multi", "Ninja Multi-Config", "'-DCMAKE_CONFIGURATION_TYPES=Debug;Release'");
	build("Debug");
	build("Release");
	bs = open_tree(LO_BUILDSYS_RECONFIGURE);
	assert_int_equal(judge(bs, "lib/Debug/libold.so").orphan, 0);
	assert_int_equal(judge(bs, "lib/Release/libold.so").orphan, 0);
	lo_buildsys_free(bs);

	reconfigure_with("-DLIBNAME=new");
	build("Debug");
	bs = open_tree(0);
	assert_int_equal(judge(bs, "lib/Debug/libold.so").orphan, 1);
	assert_int_equal(judge(bs, "lib/Release/libold.so").orphan, 1);
	assert_int_equal(judge(bs, "lib/Debug/libnew.so").orphan, 0);
	/* configured, not built yet: still the current configuration's */
	assert_int_equal(judge(bs, "lib/Release/libnew.so").orphan, 0);
	lo_buildsys_free(bs);
}

/*
 * Damaged records are the tree's problem, not a crash: a reply index that
 * is not JSON, a codemodel name that tries to leave the reply dir, and a
 * Ninja log of garbage, an escape and a line far longer than a path.
 */
static void test_damaged_records(void **state)
{
	lo_buildsys *bs;
	const char *n;

	configure("damaged", "Ninja", "");
	bs = open_tree(0); /* writes the query */
	lo_buildsys_free(bs);
	reconfigure_with("");
	build(NULL);

	sh("cd '%s/.cmake/api/v1/reply' && for f in index-*.json; do printf '{not json' > \"$f\"; done",
	   tree);
	bs = open_tree(0);
	assert_non_null(n = find_note(bs, "cannot read the File API reply"));
	assert_non_null(strstr(n, tree)); /* names the file */
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0); /* the manifest still says */
	lo_buildsys_free(bs);

	sh("cd '%s/.cmake/api/v1/reply' && for f in index-*.json; do "
	   "printf '{\"reply\":{\"codemodel-v2\":{\"jsonFile\":\"../../../../CMakeCache.txt\"}}}' > \"$f\"; done",
	   tree);
	bs = open_tree(0);
	assert_non_null(find_note(bs, "cannot read the File API codemodel"));
	lo_buildsys_free(bs);

	sh("cd '%s' && { printf '# ninja log v5\\n'; printf 'garbage\\n\\t\\t\\t\\n';"
	   " printf '1\\t2\\t99999999999999999999999\\t../../escape.so\\tx\\n';"
	   " printf '1\\t2\\t3\\tlib/ghost.so\\n';"
	   " head -c 200000 /dev/zero | tr '\\0' a; printf '\\n'; } > .ninja_log",
	   tree);
	bs = open_tree(0);
	assert_int_equal(judge(bs, "../../escape.so").orphan, -1);
	/* a log with lines ninja never writes is no evidence, and says so */
	assert_non_null(find_note(bs, "is not one ninja writes"));
	assert_int_equal(judge(bs, "lib/ghost.so").orphan, -1);
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0);
	lo_buildsys_free(bs);
}

/*
 * A record that is not a regular file, in a hostile or half-made tree: a
 * FIFO blocked the open for good and /dev/zero never ended. Each is
 * skipped like a missing one, in no time (the alarm fails the test).
 */
static void test_records_that_are_not_files(void **state)
{
	lo_buildsys *bs;

	configure("fifo-ninja", "Ninja", "");
	lo_buildsys_free(open_tree(0)); /* writes the query */
	reconfigure_with("");
	build(NULL);
	sh("cd '%s' && rm .ninja_log && mkfifo .ninja_log && "
	   "for f in .cmake/api/v1/reply/codemodel-v2-*.json; do rm \"$f\" && mkfifo \"$f\"; done", tree);
	alarm(60);
	bs = open_tree(0);
	assert_non_null(find_note(bs, "cannot read the File API codemodel"));
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0); /* the manifest still says */
	lo_buildsys_free(bs);
	sh("cd '%s' && for f in .cmake/api/v1/reply/index-*.json; do rm \"$f\" && mkfifo \"$f\"; done",
	   tree);
	bs = open_tree(0);
	assert_non_null(find_note(bs, "cannot read the File API reply"));
	lo_buildsys_free(bs);
	alarm(0);

	configure("fifo-make", "Unix Makefiles", "");
	lo_buildsys_free(open_tree(0));
	reconfigure_with("");
	build(NULL);
	sh("cd '%s' && rm CMakeFiles/old.dir/cmake_clean.cmake CMakeFiles/Makefile.cmake && "
	   "ln -s /dev/zero CMakeFiles/old.dir/cmake_clean.cmake && mkfifo CMakeFiles/Makefile.cmake", tree);
	alarm(60);
	bs = open_tree(0);
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0); /* still the codemodel's artifact */
	lo_buildsys_free(bs);
	alarm(0);
}

/*
 * The alarm of the two tests below only says the reader ends: the
 * quadratic versions took minutes to hours on these inputs; the linear ones
 * take seconds, but under ASan on a busy 2-core machine one of them ran
 * past a 30 s alarm in CI (all of unit.buildsys takes 35 s there). Speed is
 * measured in bench/, not here.
 */
#define BLOWUP_LIMIT 180

/*
 * A codemodel that names one target file 20,000 times, that file holding
 * 5,000 artifacts: the file was read and every artifact normalised once
 * per mention, 10^8 of them (far over the alarm; fuzz_fileapi took 4.7 s
 * on a 52 KB input of this shape). Now once per file.
 */
static void test_codemodel_naming_a_target_over_and_over(void **state)
{
	lo_buildsys *bs;

	configure("fileapi-repeat", "Ninja", "");
	lo_buildsys_free(open_tree(0)); /* writes the query */
	reconfigure_with("");
	sh("cd '%s/.cmake/api/v1/reply' && /usr/bin/python3 -c '\n"
	   "import glob, json\n"
	   "cm = glob.glob(\"codemodel-v2-*.json\")[0]\n"
	   "m = json.load(open(cm))\n"
	   "ts = m[\"configurations\"][0][\"targets\"]\n"
	   "t = [x for x in ts if x[\"name\"] == \"old\"][0]\n"
	   "m[\"configurations\"][0][\"targets\"] = [t] * 20000\n"
	   "json.dump(m, open(cm, \"w\"))\n"
	   "j = json.load(open(t[\"jsonFile\"]))\n"
	   "j[\"artifacts\"] += [{\"path\": \"lib/extra%%d.so\" %% i} for i in range(5000)]\n"
	   "json.dump(j, open(t[\"jsonFile\"], \"w\"))\n'",
	   tree);
	alarm(BLOWUP_LIMIT);
	bs = open_tree(0);
	alarm(0);
	assert_int_equal(judge(bs, "lib/libold.so").orphan, 0);
	assert_int_equal(judge(bs, "lib/extra4999.so").orphan, 0);
	lo_buildsys_free(bs);
}

/*
 * A path of two million "a/" and then as many "..": each ".." looked for
 * the last '/' with strrchr from the start of what was kept, 4 x 10^12
 * bytes read for a 10 MB artifact path (half as long took 28 s). Linear
 * now, well inside the alarm; the path still comes out as where it
 * points.
 */
static void test_path_of_two_million_dotdots(void **state)
{
	lo_buildsys *bs;

	configure("fileapi-dotdot", "Ninja", "");
	lo_buildsys_free(open_tree(0)); /* writes the query */
	reconfigure_with("");
	sh("cd '%s/.cmake/api/v1/reply' && /usr/bin/python3 -c '\n"
	   "import glob, json\n"
	   "f = glob.glob(\"target-old-*.json\")[0]\n"
	   "j = json.load(open(f))\n"
	   "j[\"artifacts\"].append({\"path\": \"a/\" * 2000000 + \"../\" * 2000000 + \"lib/deep.so\"})\n"
	   "json.dump(j, open(f, \"w\"))\n'",
	   tree);
	alarm(BLOWUP_LIMIT);
	bs = open_tree(0);
	alarm(0);
	assert_int_equal(judge(bs, "lib/deep.so").orphan, 0);
	lo_buildsys_free(bs);
}

/*
 * A path the Ninja log remembers building that configure_file has taken
 * over is not an orphan: the file there is not the one ninja built. The
 * same goes for a file the user rewrote. Only the log's latest line for an
 * output counts, so a rebuild does not look like a rewrite.
 */
static void test_ninja_log_speaks_of_the_file_it_built(void **state)
{
	lo_buildsys *bs;
	lo_orphan_verdict v;

	configure("handover", "Ninja", "");
	build(NULL);
	reconfigure_with("-DLIBNAME=new");
	build(NULL);
	reconfigure_with("-DLIBNAME=old");
	build(NULL); /* libold.so built twice: two lines in the log */
	bs = open_tree(0);
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, 1);
	lo_buildsys_free(bs);

	sh("sleep 0.2");
	reconfigure_with("-DEXTRA_BY=configure");
	build(NULL);
	bs = open_tree(0);
	v = judge(bs, "gen/extra.txt");
	assert_int_equal(v.orphan, -1);
	assert_non_null(strstr(v.detail, "rewritten"));
	/* the user rewrote the old library: no longer what ninja built */
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, 1);
	sh("sleep 0.2 && touch '%s/lib/libnew.so'", tree);
	assert_int_equal(judge(bs, "lib/libnew.so").orphan, -1);
	lo_buildsys_free(bs);
}

/*
 * Not a build tree: no model, no error, nothing written. Outside the work
 * dir, which lies in the project's own build tree, whose records would
 * judge it.
 */
/*
 * Records older than the build description: when what the regeneration
 * step reads is newer than what it wrote (build.ninja; the Makefile, by
 * CMakeFiles/Makefile.cmake), as after a checkout of other CMakeLists.txt,
 * the build reruns CMake before building anything: what the log says of
 * the past is not the checked-out sources' build. The orphan is withheld
 * with a note, the produced stay produced; once built, the orphan is back.
 */
static void test_regeneration_pending(void **state)
{
	static const char *const gens[][3] = { { "regen-ninja", "Ninja", "build.ninja" },
					       { "regen-make", "Unix Makefiles", "Makefile" } };
	lo_buildsys *bs;
	lo_orphan_verdict v;
	size_t i;

	for (i = 0; i < 2; i++) {
		configure(gens[i][0], gens[i][1], "");
		build(NULL);
		reconfigure_with("-DLIBNAME=new");
		build(NULL);
		bs = open_tree(0);
		assert_null(find_note(bs, "build description changed"));
		assert_int_equal(judge(bs, "lib/libold.so").orphan, 1);
		lo_buildsys_free(bs);

		sh("touch -d '2001-01-01 00:00' '%s/%s'", tree, gens[i][2]);
		bs = open_tree(0);
		assert_non_null(find_note(bs, "staleness withheld; build first"));
		v = judge(bs, "lib/libold.so");
		assert_int_equal(v.orphan, -1);
		assert_non_null(strstr(v.detail, "the build description changed since the tree was built"));
		assert_int_equal(judge(bs, "lib/libnew.so").orphan, 0);
		assert_int_equal(lo_buildsys_orphan_count(bs), 0);
		lo_buildsys_free(bs);

		build(NULL); /* regenerates first */
		bs = open_tree(0);
		assert_null(find_note(bs, "build description changed"));
		assert_int_equal(judge(bs, "lib/libold.so").orphan, 1);
		lo_buildsys_free(bs);
	}
}

/* Whether the model of `tree`, after `cmd` ran in it, has a note holding `part`. */
static bool noted_after(const char *cmd, const char *part)
{
	lo_buildsys *bs;
	bool noted;

	sh("cd '%s' && %s", tree, cmd);
	bs = open_tree(0);
	noted = find_note(bs, part) != NULL;
	lo_buildsys_free(bs);
	return noted;
}

/*
 * A hand-written ninja tree's own regeneration edge, as ninja reads it:
 * explicit and implicit inputs count, order-only and validation ones never
 * make build.ninja out of date; a missing input does.
 */
static void test_regeneration_edge_inputs(void **state)
{
	snprintf(tree, sizeof(tree), "/tmp/leftover-unit-regen-%ld", (long)getpid());
	sh("rm -rf '%s' && mkdir -p '%s'", tree, tree);
	assert_false(noted_after("touch desc.txt implicit.txt order.txt valid.txt && "
				 "printf '# ninja log v5\\n' > .ninja_log && "
				 "printf 'rule gen\\n  command = touch build.ninja\\n  generator = 1\\n"
				 "build build.ninja: gen desc.txt | implicit.txt || order.txt |@ valid.txt\\n'"
				 " > build.ninja",
				 "build description changed"));
	assert_false(noted_after("touch -d '+1 hour' order.txt valid.txt", "build description changed"));
	assert_true(noted_after("touch -d '+1 hour' implicit.txt", "(implicit.txt, at "));
	assert_true(noted_after("touch -d '+2 hours' build.ninja && rm desc.txt", "(desc.txt, missing)"));
	sh("rm -rf '%s'", tree);
}

static void test_not_cmake(void **state)
{
	lo_buildsys *bs = (lo_buildsys *)1;

	snprintf(tree, sizeof(tree), "/tmp/leftover-unit-plain-%ld", (long)getpid());
	sh("rm -rf '%s' && mkdir -p '%s'", tree, tree);
	assert_int_equal(lo_buildsys_open(&bs, tree, NULL, NULL, LO_BUILDSYS_RECONFIGURE), 0);
	assert_null(bs);
	assert_false(exists(".cmake"));
	sh("rm -rf '%s'", tree);
}

/* CMakeCache.txt values by exact name, from a cache CMake wrote. */
static void test_cache_values(void **state)
{
	char *v;

	configure("cache", "Ninja", "-DLIBNAME=cached");
	v = lo_buildsys_cache_value(tree, "LIBNAME");
	assert_string_equal(v, "cached");
	free(v);
	v = lo_buildsys_cache_value(tree, "CMAKE_HOME_DIRECTORY");
	assert_non_null(v);
	assert_non_null(strstr(v, "fixtures/orphans/unit"));
	free(v);
	assert_null(lo_buildsys_cache_value(tree, "LIBNAM")); /* a prefix is not the name */
	assert_null(lo_buildsys_cache_value(tree, "NO_SUCH_VARIABLE"));
	assert_null(lo_buildsys_cache_value("/nonexistent", "LIBNAME"));
	/* a value longer than any path (a list of flags, say) is read whole */
	sh("cd '%s' && printf 'LONG:STRING=%%08000d\\n' 7 >> CMakeCache.txt", tree);
	v = lo_buildsys_cache_value(tree, "LONG");
	assert_non_null(v);
	assert_int_equal(strlen(v), 8000);
	assert_string_equal(v + 7999, "7");
	free(v);
}

/*
 * A tree meson configured and built (a module `m`): its private libm.so.p/
 * is bookkeeping, the interpreter is the one meson's log names, and a log
 * that names two Pythons, or is no file, names none.
 */
static void test_meson(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	char *py, *again;
	lo_buildsys *bs;

	snprintf(tree, sizeof(tree), "%s/meson", base ? base : "/tmp/leftover-unit-buildsys");
	sh("rm -rf '%s' && mkdir -p '%s/src' && cd '%s/src' && "
	   "printf \"project('m', 'c')\\nimport('python').find_installation()\\n"
	   "shared_module('m', 'm.c')\\n\" > meson.build && echo 'int m(void) { return 1; }' > m.c && "
	   "meson setup ../build >/dev/null && ninja -C ../build >/dev/null", tree, tree, tree);
	strcat(tree, "/build");
	bs = open_tree(0);
	assert_true(lo_buildsys_is_private(bs, "libm.so.p/m.c.o"));
	assert_true(lo_buildsys_is_private(bs, "sub/x.p/y/z.o"));
	assert_false(lo_buildsys_is_private(bs, "libm.so"));
	assert_false(lo_buildsys_is_private(bs, "libm.so.p"));    /* the dir itself is no file of it */
	assert_false(lo_buildsys_is_private(bs, ".p/m.c.o"));     /* no output's name before .p */
	lo_buildsys_free(bs);

	py = lo_buildsys_meson_python(tree);
	assert_non_null(py);
	assert_true(py[0] == '/' && access(py, X_OK) == 0);
	/* the same Python named twice (find_program, the dependency) is still one */
	sh("echo 'Program python3 found: YES 3.11.2 (%s) (cached)' >> '%s/meson-logs/meson-log.txt'",
	   py, tree);
	again = lo_buildsys_meson_python(tree);
	assert_string_equal(again, py);
	free(again);
	/* a second Python: the log does not say which builds the modules */
	sh("echo 'Program python3 found: YES (/opt/other/bin/python3)' >> '%s/meson-logs/meson-log.txt'",
	   tree);
	assert_null(lo_buildsys_meson_python(tree));
	/* one command of several words is not one program */
	sh("echo 'Program python3 (numpy) found: YES (/usr/bin/env python3) modules: numpy' "
	   "> '%s/meson-logs/meson-log.txt'", tree);
	assert_null(lo_buildsys_meson_python(tree));
	/* a FIFO in the log's place is refused, not waited on */
	sh("rm '%s/meson-logs/meson-log.txt' && mkfifo '%s/meson-logs/meson-log.txt'", tree, tree);
	assert_null(lo_buildsys_meson_python(tree));
	/* not meson's tree: no meson-info/ */
	sh("rm -rf '%s/meson-info'", tree);
	assert_null(lo_buildsys_meson_python(tree));
	free(py);
}

/* A fresh plain dir for hand-written records, outside the project's own build tree. */
static void plain_dir(const char *name)
{
	snprintf(tree, sizeof(tree), "/tmp/leftover-unit-%s-%ld", name, (long)getpid());
	sh("rm -rf '%s' && mkdir -p '%s'", tree, tree);
}

/*
 * A libtool archive names its object in .libs/ (installed: in its libdir);
 * a file that is not one (no libtool header, an unterminated quote, a name
 * with a directory in it) names none.
 */
static void test_libtool_archive(void **state)
{
	char path[4200], *obj;

	plain_dir("la");
	sh("cd '%s' && printf \"# m.la - a libtool library file\\n# Generated by libtool\\n"
	   "dlname='m.so.1'\\nlibrary_names='m.so.1.0 m.so.1 m.so'\\nold_library=''\\n"
	   "installed=no\\nlibdir='/usr/lib'\\n\" > m.la", tree);
	snprintf(path, sizeof(path), "%s/m.la", tree);
	obj = lo_buildsys_libtool_object(path);
	assert_non_null(obj);
	assert_non_null(strstr(obj, "/.libs/m.so.1"));
	free(obj);
	sh("cd '%s' && sed -i 's/installed=no/installed=yes/' m.la", tree);
	obj = lo_buildsys_libtool_object(path);
	assert_string_equal(obj, "/usr/lib/m.so.1");
	free(obj);
	sh("cd '%s' && sed -i \"s|dlname='m.so.1'|dlname='../../etc/passwd'|;"
	   "s|library_names=.*|library_names='a/b'|\" m.la", tree);
	assert_null(lo_buildsys_libtool_object(path));
	sh("cd '%s' && printf \"dlname='m.so'\\n\" > m.la", tree);
	assert_null(lo_buildsys_libtool_object(path)); /* no libtool header */
	sh("cd '%s' && printf \"# a libtool library file\\ndlname='m.so\\n\" > m.la", tree);
	assert_null(lo_buildsys_libtool_object(path));
	sh("rm -rf '%s'", tree);
}

/*
 * cargo: the TOML shapes a manifest may take for the keys read (an inline
 * [lib] table, a multi-line string holding "[lib]", a member glob), and
 * the rule: a crate whose sources are gone and that no member builds is an
 * orphan, a member's library is produced, a crate whose sources are still
 * there is not judged, and a manifest not read whole judges nothing.
 */
static void test_cargo_records(void **state)
{
	lo_buildsys *bs;
	lo_orphan_verdict v;

	plain_dir("cargo");
	sh("cd '%s' && mkdir -p crates/one/src kept/src target/debug/.fingerprint target/debug/deps && "
	   "echo '{}' > target/.rustc_info.json && touch crates/one/src/lib.rs kept/src/lib.rs && "
	   "printf '[workspace]\\nmembers = [ # all\\n  \"crates/*\",\\n]\\n' > Cargo.toml && "
	   "printf 'lib = { crate-type = [\"cdylib\"] }\\n[package]\\nname = \"one-lib\"\\n"
	   "description = \"\"\"\\n[lib]\\nname = \\\"no\\\"\\n\"\"\"\\n' > crates/one/Cargo.toml && "
	   "for c in one_lib gone kept; do touch target/debug/lib$c.so; done && "
	   "printf '%%s/target/debug/libone_lib.so: %%s/crates/one/src/lib.rs\\n' \"$PWD\" \"$PWD\" > target/debug/libone_lib.d && "
	   "printf '%%s/target/debug/libgone.so: gone/src/lib.rs\\n\\ngone/src/lib.rs:\\n' \"$PWD\" > target/debug/libgone.d && "
	   "printf '%%s/target/debug/libkept.so: kept/src/lib.rs\\n' \"$PWD\" > target/debug/libkept.d",
	   tree);
	bs = open_tree(0);
	assert_string_equal(lo_buildsys_tree_system(bs, 0), "cargo");
	lo_buildsys_judge(bs, "target/debug/libone_lib.so", &v);
	assert_int_equal(v.orphan, 0);
	lo_buildsys_judge(bs, "target/debug/libgone.so", &v);
	assert_int_equal(v.orphan, 1);
	assert_int_equal(v.evidence, LO_EVIDENCE_CARGO_DEP_INFO);
	lo_buildsys_judge(bs, "target/debug/libkept.so", &v);
	assert_int_equal(v.orphan, -1);
	lo_buildsys_free(bs);
	/* an unterminated array: the manifest is not read whole, nothing is an orphan */
	sh("cd '%s' && printf '[workspace]\\nmembers = [\"crates/*\"\\n' > Cargo.toml", tree);
	bs = open_tree(0);
	lo_buildsys_judge(bs, "target/debug/libgone.so", &v);
	assert_int_equal(v.orphan, -1);
	assert_non_null(strstr(v.detail, "Cargo.toml"));
	lo_buildsys_free(bs);
	sh("rm -rf '%s'", tree);
}

static void test_bookkeeping(void **state)
{
	assert_true(lo_buildsys_is_bookkeeping("CMakeFiles/x.dir/a.c.o"));
	assert_true(lo_buildsys_is_bookkeeping("sub/CMakeFiles/cmake.check_cache"));
	assert_true(lo_buildsys_is_bookkeeping(".ninja_log"));
	assert_true(lo_buildsys_is_bookkeeping("sub/.ninja_deps"));
	assert_true(lo_buildsys_is_bookkeeping("CMakeCache.txt"));
	assert_true(lo_buildsys_is_bookkeeping("obj/a.o"));
	assert_false(lo_buildsys_is_bookkeeping("lib/libnew.so"));
	assert_false(lo_buildsys_is_bookkeeping("myCMakeFiles/x.so"));
	assert_false(lo_buildsys_is_bookkeeping("pkg/_site_initialize_0.py"));
	/* a DLL's companions, in either case as Windows toolchains write them */
	assert_true(lo_buildsys_is_bookkeeping("bin/_mlir.cp311-win_amd64.lib"));
	assert_true(lo_buildsys_is_bookkeeping("bin/_mlir.cp311-win_amd64.EXP"));
	assert_true(lo_buildsys_is_bookkeeping("bin/capi.pdb"));
	assert_true(lo_buildsys_is_bookkeeping("bin/capi.ilk"));
	assert_true(lo_buildsys_is_bookkeeping("CMakeFiles/capi.dir/capi.c.obj"));
	assert_false(lo_buildsys_is_bookkeeping("bin/capi.dll"));
	assert_false(lo_buildsys_is_bookkeeping("bin/_mlir.cp311-win_amd64.pyd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ninja_rename),
		cmocka_unit_test(test_libtool_archive),
		cmocka_unit_test(test_cargo_records),
		cmocka_unit_test(test_makefiles_dead_target),
		cmocka_unit_test(test_clean_list_out_of_place),
		cmocka_unit_test(test_reconfigure_and_old_reply),
		cmocka_unit_test(test_multi_config),
		cmocka_unit_test(test_damaged_records),
		cmocka_unit_test(test_records_that_are_not_files),
		cmocka_unit_test(test_codemodel_naming_a_target_over_and_over),
		cmocka_unit_test(test_path_of_two_million_dotdots),
		cmocka_unit_test(test_ninja_log_speaks_of_the_file_it_built),
		cmocka_unit_test(test_regeneration_pending),
		cmocka_unit_test(test_regeneration_edge_inputs),
		cmocka_unit_test(test_not_cmake),
		cmocka_unit_test(test_cache_values),
		cmocka_unit_test(test_meson),
		cmocka_unit_test(test_bookkeeping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
