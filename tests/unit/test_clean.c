/*
 * test_clean.c - quarantine, restore, purge and the lock on real files.
 *
 * The input of clean is a scan result; these tests fill one in by hand
 * (the module's real input type, with the verdicts the scan would give) for
 * files they create under LEFTOVER_WORK, so that each safety rule can be
 * held to on its own: byte-identical restore, symlinks on the path or as
 * the finding, a directory swapped for a symlink between plan and move,
 * files tracked in git, reappeared files, the lock. Whatever lies outside
 * the root is fingerprinted (names, types, modes, sizes, mtimes, link
 * texts, SHA-256) before and after and must not change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"
#include <git2.h>

#include "leftover/buf.h"
#include "leftover/clean.h"
#include "leftover/error.h"
#include "leftover/scan.h"

static char work[4096], root[4200], outside[4200];

/*
 * Everything a change outside the root could touch, as one string (owned);
 * without `dir_times` the mtimes of directories are left out (a restore
 * recreates the directories a clean emptied).
 */
static char *fingerprint_of(const char *dir, bool dir_times)
{
	char cmd[8192], buf[4096];
	lo_buf out = LO_BUF_INIT;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && find . %s -printf '%%p %%y %%m %%s %%T@ %%l\\n' | sort && "
		 "find . -type f -exec sha256sum {} + | sort",
		 dir, dir_times ? "" : "-type d -printf '%p d %m\\n' -o");
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(buf, sizeof(buf), p))
		lo_buf_puts(&out, buf);
	assert_int_equal(pclose(p), 0);
	return lo_buf_detach(&out);
}

static char *fingerprint(const char *dir)
{
	return fingerprint_of(dir, true);
}

static void put(const char *dir, const char *rel, const char *text, mode_t mode)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	sh("mkdir -p \"$(dirname '%s')\"", path);
	unit_put(dir, rel, text);
	assert_int_equal(chmod(path, mode), 0);
}

static bool exists(const char *dir, const char *rel)
{
	char path[8192];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) == 0;
}

static lo_scan_result *result_new(void)
{
	lo_scan_result *r = lo_xcalloc(1, sizeof(*r));

	r->root = lo_xstrdup(root);
	return r;
}

static lo_file *add(lo_scan_result *r, const char *path, lo_verdict v)
{
	lo_file *f;

	lo_array_grow(&r->files, &r->file_cap, r->file_count + 1, sizeof(lo_file));
	f = &r->files[r->file_count++];
	memset(f, 0, sizeof(*f));
	f->path = lo_xstrdup(path);
	f->verdict = v;
	f->kind = LO_KIND_SHARED_LIBRARY;
	f->loads = v == LO_VERDICT_BROKEN ? LO_FALSE : LO_UNKNOWN;
	f->orphan = v == LO_VERDICT_STALE ? LO_TRUE : LO_UNKNOWN;
	r->summary.files++;
	r->summary.by_verdict[v]++;
	if (v == LO_VERDICT_STALE)
		lo_file_add_reason(f, LO_REASON_ORPHAN, NULL, NULL, NULL, NULL, "no longer built");
	return f;
}

static const lo_clean_action *action(const lo_clean_result *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->action_count; i++)
		if (!strcmp(c->actions[i].file->path, path))
			return &c->actions[i];
	fail_msg("no action for %s", path);
	return NULL;
}

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	static int n;

	snprintf(work, sizeof(work), "%s/t%d", base ? base : "/tmp/leftover-unit-clean", n++);
	snprintf(root, sizeof(root), "%s/build", work);
	snprintf(outside, sizeof(outside), "%s/outside", work);
	sh("rm -rf '%s' && mkdir -p '%s' '%s'", work, root, outside);
	return 0;
}

static void test_sha256_vectors(void **state)
{
	char hex[65], path[8300];
	int fd;

	lo_clean_sha256_mem("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	lo_clean_sha256_mem("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* two blocks of padding: 56 bytes leave no room for the length in the first */
	lo_clean_sha256_mem("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	snprintf(path, sizeof(path), "%s/big", root);
	sh("head -c 1000000 /dev/zero | tr '\\0' 'a' > '%s'", path);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(lo_clean_sha256_fd(fd, hex), 0);
	close(fd);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Moved away, then back with the same bytes, mode and mtime; emptied directories go and come back. */
static void test_quarantine_and_restore_identical(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	struct stat before, after;
	char path[8300], *fp1, *fp2;

	put(root, "py/pkg/_old.cpython-311-x86_64-linux-gnu.so", "stale bytes\001\002", 0751);
	put(root, "lib/libkept.so", "broken but built", 0755);
	put(root, "lib/libgood.so", "fine", 0755);
	snprintf(path, sizeof(path), "%s/py/pkg/_old.cpython-311-x86_64-linux-gnu.so", root);
	sh("touch -d '2020-01-02 03:04:05.123456789' '%s'", path);
	assert_int_equal(stat(path, &before), 0);
	add(r, "lib/libgood.so", LO_VERDICT_OK);
	add(r, "lib/libkept.so", LO_VERDICT_BROKEN);
	add(r, "py/pkg/_old.cpython-311-x86_64-linux-gnu.so", LO_VERDICT_STALE);
	fp1 = fingerprint_of(root, false);

	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->action_count, 1); /* broken is left alone without opts.broken */
	assert_int_equal(c->done, 1);
	assert_int_equal(c->failed, 0);
	assert_int_equal(c->bytes, 13);
	assert_int_equal(action(c, "py/pkg/_old.cpython-311-x86_64-linux-gnu.so")->status, LO_CLEAN_MOVED);
	assert_non_null(c->stamp);
	assert_false(exists(root, "py")); /* emptied directories removed up to the root */
	assert_true(exists(root, "lib/libkept.so"));
	snprintf(path, sizeof(path), ".leftover.d/quarantine/%s/manifest.json", c->stamp);
	assert_true(exists(root, path));
	snprintf(path, sizeof(path), ".leftover.d/quarantine/%s/py/pkg/_old.cpython-311-x86_64-linux-gnu.so",
		 c->stamp);
	assert_true(exists(root, path));

	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_string_equal(rr->stamp, c->stamp);
	assert_int_equal(rr->restored, 1);
	assert_int_equal(rr->failed + rr->refused, 0);
	snprintf(path, sizeof(path), "%s/py/pkg/_old.cpython-311-x86_64-linux-gnu.so", root);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_mode, before.st_mode);
	assert_int_equal(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	/* the set is gone once emptied; the tree is what it was, file for file */
	snprintf(path, sizeof(path), ".leftover.d/quarantine/%s", c->stamp);
	assert_false(exists(root, path));
	sh("rm -rf '%s/.leftover.d'", root);
	fp2 = fingerprint_of(root, false);
	assert_string_equal(fp1, fp2);
	free(fp1);
	free(fp2);
	lo_restore_result_free(rr);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/*
 * A suspected file (no build record; the tree and git suggest it) is left
 * alone unless asked for with opts.suspected, then moved as a stale one is.
 */
static void test_suspected_only_when_asked(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };

	put(root, "pkg/_gone.cpython-311-x86_64-linux-gnu.so", "suspected", 0644);
	add(r, "pkg/_gone.cpython-311-x86_64-linux-gnu.so", LO_VERDICT_SUSPECTED)->suspected = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->action_count, 0);
	assert_true(exists(root, "pkg/_gone.cpython-311-x86_64-linux-gnu.so"));
	lo_clean_result_free(c);

	opts.suspected = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 1);
	assert_int_equal(action(c, "pkg/_gone.cpython-311-x86_64-linux-gnu.so")->status,
			 LO_CLEAN_MOVED);
	assert_false(exists(root, "pkg/_gone.cpython-311-x86_64-linux-gnu.so"));
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

static void test_dry_run_and_delete(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;

	put(root, "a/libx.so", "x", 0644);
	put(root, "a/liby.so", "y", 0644);
	add(r, "a/libx.so", LO_VERDICT_STALE);
	add(r, "a/liby.so", LO_VERDICT_BROKEN);
	fp1 = fingerprint(work);
	opts.dry_run = true;
	opts.broken = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->action_count, 2);
	assert_int_equal(action(c, "a/libx.so")->status, LO_CLEAN_PLANNED);
	assert_int_equal(c->done, 0);
	fp2 = fingerprint(work);
	assert_string_equal(fp1, fp2); /* not even .leftover.d was created */
	lo_clean_result_free(c);

	opts.dry_run = false;
	opts.remove = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 2);
	assert_null(c->stamp);
	assert_false(exists(root, "a"));
	free(fp1);
	free(fp2);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* A symlink that is the finding moves as a link; its target outside stays. */
static void test_symlink_finding_moves_as_link(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;
	lo_file *f;

	put(outside, "libreal.so", "precious", 0644);
	sh("mkdir -p '%s/lib' && ln -s '%s/libreal.so' '%s/lib/libalias.so'", root, outside, root);
	f = add(r, "lib/libalias.so", LO_VERDICT_STALE);
	f->target = lo_xstrdup(outside);
	fp1 = fingerprint(outside);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 1);
	assert_false(exists(root, "lib/libalias.so"));
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	free(fp2);
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_int_equal(rr->restored, 1);
	sh("test -L '%s/lib/libalias.so' && test \"$(readlink '%s/lib/libalias.so')\" = '%s/libreal.so'",
	   root, root, outside);
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	free(fp1);
	free(fp2);
	lo_restore_result_free(rr);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* A path through a symlinked directory, and paths that climb out, are refused. */
static void test_symlinked_directory_and_bad_paths(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;

	put(outside, "sub/libvictim.so", "precious", 0644);
	put(root, "libfine.so", "x", 0644);
	sh("ln -s '%s/sub' '%s/linked'", outside, root);
	add(r, "linked/libvictim.so", LO_VERDICT_STALE);
	add(r, "../outside/sub/libvictim.so", LO_VERDICT_STALE);
	add(r, "/etc/passwd", LO_VERDICT_STALE);
	add(r, "./libfine.so", LO_VERDICT_STALE);
	add(r, "sub//libvictim.so", LO_VERDICT_STALE);
	fp1 = fingerprint(outside);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 0);
	assert_int_equal(c->failed, 5);
	assert_non_null(strstr(action(c, "linked/libvictim.so")->error, "symlink"));
	assert_non_null(strstr(action(c, "../outside/sub/libvictim.so")->error, "../outside"));
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	assert_true(exists(root, "libfine.so"));
	assert_true(exists(root, "linked"));
	free(fp1);
	free(fp2);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* The hook runs after the plan: swap the directory for a symlink to a look-alike outside. */
static void swap_hook(const char *relpath, void *payload)
{
	int *calls = payload;

	if ((*calls)++ == 0)
		sh("mv '%s/gen' '%s/gen.orig' && ln -s '%s/gen' '%s/gen'", root, work, outside, root);
}

static void test_directory_swapped_after_scan(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;
	int calls = 0;

	put(root, "gen/libone.so", "one", 0644);
	put(root, "gen/libtwo.so", "two", 0644);
	put(outside, "gen/libone.so", "one", 0644);
	put(outside, "gen/libtwo.so", "two", 0644);
	add(r, "gen/libone.so", LO_VERDICT_STALE);
	add(r, "gen/libtwo.so", LO_VERDICT_STALE);
	opts.before_each = swap_hook;
	opts.hook_payload = &calls;
	fp1 = fingerprint(outside);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(calls, 2);
	assert_int_equal(c->failed, 2);
	assert_int_equal(c->done, 0);
	assert_non_null(strstr(action(c, "gen/libone.so")->error, "symlink"));
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	free(fp1);
	free(fp2);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* A file replaced by another between plan and move is left alone. */
static void replace_hook(const char *relpath, void *payload)
{
	sh("rm '%s/%s' && echo new > '%s/%s'", root, relpath, root, relpath);
}

static void test_file_replaced_after_plan(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };

	put(root, "libz.so", "old", 0644);
	add(r, "libz.so", LO_VERDICT_STALE);
	opts.before_each = replace_hook;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->failed, 1);
	assert_non_null(strstr(action(c, "libz.so")->error, "replaced"));
	sh("grep -qx new '%s/libz.so'", root);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

static void test_tracked_in_git_is_kept(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	git_repository *repo;
	git_index *idx;

	put(root, "prebuilt/libvendor.so", "checked in", 0644);
	put(root, "out/libold.so", "built", 0644);
	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, work, 0), 0);
	assert_int_equal(git_repository_index(&idx, repo), 0);
	assert_int_equal(git_index_add_bypath(idx, "build/prebuilt/libvendor.so"), 0);
	assert_int_equal(git_index_write(idx), 0);
	git_index_free(idx);
	git_repository_free(repo);
	git_libgit2_shutdown();
	add(r, "out/libold.so", LO_VERDICT_STALE);
	add(r, "prebuilt/libvendor.so", LO_VERDICT_STALE);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->tracked, 1);
	assert_int_equal(c->done, 1);
	assert_int_equal(action(c, "prebuilt/libvendor.so")->status, LO_CLEAN_KEPT_TRACKED);
	assert_true(exists(root, "prebuilt/libvendor.so"));
	assert_false(exists(root, "out/libold.so"));
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

static void test_restore_refuses_reappeared(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	char path[8300];

	put(root, "m/liba.so", "old a", 0644);
	put(root, "m/libb.so", "old b", 0644);
	add(r, "m/liba.so", LO_VERDICT_STALE);
	add(r, "m/libb.so", LO_VERDICT_STALE);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 2);
	put(root, "m/liba.so", "rebuilt a", 0644);
	assert_int_equal(lo_restore_run(&rr, root, c->stamp, NULL), 0);
	assert_int_equal(rr->restored, 1);
	assert_int_equal(rr->refused, 1);
	sh("grep -qx 'rebuilt a' '%s/m/liba.so' && grep -qx 'old b' '%s/m/libb.so'", root, root);
	/* the refused copy and its manifest stay */
	snprintf(path, sizeof(path), ".leftover.d/quarantine/%s/m/liba.so", c->stamp);
	assert_true(exists(root, path));
	lo_restore_result_free(rr);
	/* a second restore is idempotent for what is back, and still refuses */
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_int_equal(rr->in_place, 1);
	assert_int_equal(rr->refused, 1);
	lo_restore_result_free(rr);
	assert_int_equal(lo_restore_run(&rr, root, "19700101T000000Z", NULL), LO_ENOTFOUND);
	assert_non_null(strstr(lo_error_last(), "19700101T000000Z"));
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* Restore opens the tree by descriptor too: a directory now a symlink out of the root stops that file. */
static void test_restore_through_symlink_refused(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;

	put(root, "gen/libv.so", "v", 0644);
	put(root, "keep/libw.so", "w", 0644);
	put(outside, "decoy", "d", 0644);
	add(r, "gen/libv.so", LO_VERDICT_STALE);
	add(r, "keep/libw.so", LO_VERDICT_STALE);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 2);
	sh("ln -s '%s' '%s/gen'", outside, root);
	fp1 = fingerprint(outside);
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_int_equal(rr->restored, 1);
	assert_int_equal(rr->failed, 1);
	assert_non_null(strstr(rr->entries[0].error, "symlink"));
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	assert_true(exists(root, "keep/libw.so"));
	free(fp1);
	free(fp2);
	lo_restore_result_free(rr);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* The quarantine itself is reached by descriptor: a .leftover.d (or quarantine) symlinked outside is refused. */
static void test_quarantine_symlinked_out(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	char *fp1, *fp2;

	put(root, "libs.so", "s", 0644);
	add(r, "libs.so", LO_VERDICT_STALE);
	sh("ln -s '%s' '%s/.leftover.d'", outside, root);
	fp1 = fingerprint(outside);
	assert_int_equal(lo_clean_run(&c, r, &opts), LO_ERROR);
	assert_non_null(strstr(lo_error_last(), ".leftover.d"));
	sh("rm '%s/.leftover.d' && mkdir '%s/.leftover.d' && ln -s '%s' '%s/.leftover.d/quarantine'",
	   root, root, outside, root);
	assert_int_equal(lo_clean_run(&c, r, &opts), LO_ERROR);
	assert_non_null(strstr(lo_error_last(), "quarantine"));
	fp2 = fingerprint(outside);
	assert_string_equal(fp1, fp2);
	assert_true(exists(root, "libs.so"));
	free(fp1);
	free(fp2);
	lo_scan_result_free(r);
}

static void test_lock_held(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	char path[8300];
	pid_t pid;
	int fds[2], status;
	char ch;

	put(root, "libq.so", "q", 0644);
	add(r, "libq.so", LO_VERDICT_STALE);
	snprintf(path, sizeof(path), "%s/.leftover.d", root);
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/quarantine"); /* so that restore gets as far as the lock */
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.leftover.d/lock", root);
	assert_int_equal(pipe(fds), 0);
	/* another process holds the lock, as a concurrent clean would */
	if ((pid = fork()) == 0) {
		int fd = open(path, O_RDWR | O_CREAT, 0644);

		if (fd < 0 || flock(fd, LOCK_EX) < 0 || write(fd, "4242\n", 5) != 5)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		sleep(2);
		_exit(0);
	}
	assert_int_equal(read(fds[0], &ch, 1), 1);
	assert_int_equal(lo_clean_run(&c, r, &opts), LO_ERROR);
	assert_non_null(strstr(lo_error_last(), "another leftover clean"));
	assert_non_null(strstr(lo_error_last(), "4242"));
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), LO_ERROR);
	assert_true(exists(root, "libq.so"));
	/* --wait waits the holder out */
	opts.wait = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fds[0]);
	close(fds[1]);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

static void test_list_and_purge(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_clean_opts opts = { 0 };
	char **sets;
	size_t n, removed, i;

	put(root, "liba.so", "a", 0644);
	add(r, "liba.so", LO_VERDICT_STALE);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	lo_clean_result_free(c);
	put(root, "liba.so", "a again", 0644);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(lo_quarantine_list(&sets, &n, root), 0);
	assert_int_equal(n, 2);
	assert_string_equal(sets[1], c->stamp); /* oldest first, even within one second */
	for (i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
	assert_int_equal(lo_quarantine_purge(root, 1, false, &removed), 0);
	assert_int_equal(removed, 0); /* both younger than a day */
	assert_int_equal(lo_quarantine_purge(root, 0, false, &removed), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(lo_quarantine_list(&sets, &n, root), 0);
	assert_int_equal(n, 0);
	free(sets);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/*
 * The links of the file's directory that lead to it, through links there
 * only, go with it and come back as they were (a soname chain); a link to
 * another file, a loop, a path through another directory and the link of
 * another directory stay. --delete removes the chain with its file.
 */
static void test_links_go_with_their_file(void **state)
{
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	const lo_clean_action *a;
	char *fp1, *fp2;

	put(root, "a/libx.so.1.0", "x", 0755);
	put(root, "a/libother.so.2", "o", 0755);
	sh("cd '%s/a' && ln -s libx.so.1.0 libx.so.1 && ln -s libx.so.1 libx.so && "
	   "ln -s libother.so.2 libother.so && ln -s loop2 loop1 && ln -s loop1 loop2 && "
	   "ln -s ./libx.so.1.0 dotted && mkdir ../b && ln -s ../a/libx.so.1.0 ../b/libx.so.1", root);
	add(r, "a/libx.so.1.0", LO_VERDICT_STALE);
	fp1 = fingerprint_of(root, false);
	opts.dry_run = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(action(c, "a/libx.so.1.0")->link_count, 2);
	assert_true(exists(root, "a/libx.so.1"));
	lo_clean_result_free(c);

	opts.dry_run = false;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	a = action(c, "a/libx.so.1.0");
	assert_int_equal(a->status, LO_CLEAN_MOVED);
	assert_null(a->error);
	assert_int_equal(a->link_count, 2);
	assert_true((!strcmp(a->links[0], "a/libx.so.1") && !strcmp(a->links[1], "a/libx.so")) ||
		    (!strcmp(a->links[1], "a/libx.so.1") && !strcmp(a->links[0], "a/libx.so")));
	assert_false(exists(root, "a/libx.so.1"));
	assert_false(exists(root, "a/libx.so"));
	assert_true(exists(root, "a/libother.so") && exists(root, "a/loop1") &&
		    exists(root, "a/dotted") && exists(root, "b/libx.so.1"));
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_int_equal(rr->restored, 3);
	sh("rm -rf '%s/.leftover.d'", root);
	fp2 = fingerprint_of(root, false);
	assert_string_equal(fp1, fp2); /* the links' text included (find's %l) */
	lo_restore_result_free(rr);
	lo_clean_result_free(c);

	opts.remove = true;
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(action(c, "a/libx.so.1.0")->status, LO_CLEAN_REMOVED);
	assert_false(exists(root, "a/libx.so.1") || exists(root, "a/libx.so"));
	assert_true(exists(root, "a/libother.so"));
	free(fp1);
	free(fp2);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

/* Names are bytes: one that is not UTF-8 goes through the manifest (as path_hex) and back. */
static void test_name_not_utf8(void **state)
{
	static const char name[] = "lib\xff\x01odd.so";
	lo_scan_result *r = result_new();
	lo_clean_result *c = NULL;
	lo_restore_result *rr = NULL;
	lo_clean_opts opts = { 0 };
	char path[8300];

	put(root, name, "bytes", 0644);
	add(r, name, LO_VERDICT_STALE);
	assert_int_equal(lo_clean_run(&c, r, &opts), 0);
	assert_int_equal(c->done, 1);
	assert_false(exists(root, name));
	snprintf(path, sizeof(path), "grep -q '\"path_hex\": \"6c6962ff016f64642e736f\"' "
		 "'%s/.leftover.d/quarantine/%s/manifest.json'", root, c->stamp);
	sh("%s", path);
	assert_int_equal(lo_restore_run(&rr, root, NULL, NULL), 0);
	assert_int_equal(rr->restored, 1);
	assert_true(exists(root, name));
	lo_restore_result_free(rr);
	lo_clean_result_free(c);
	lo_scan_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sha256_vectors, setup),
		cmocka_unit_test_setup(test_quarantine_and_restore_identical, setup),
		cmocka_unit_test_setup(test_suspected_only_when_asked, setup),
		cmocka_unit_test_setup(test_dry_run_and_delete, setup),
		cmocka_unit_test_setup(test_symlink_finding_moves_as_link, setup),
		cmocka_unit_test_setup(test_symlinked_directory_and_bad_paths, setup),
		cmocka_unit_test_setup(test_directory_swapped_after_scan, setup),
		cmocka_unit_test_setup(test_file_replaced_after_plan, setup),
		cmocka_unit_test_setup(test_tracked_in_git_is_kept, setup),
		cmocka_unit_test_setup(test_restore_refuses_reappeared, setup),
		cmocka_unit_test_setup(test_restore_through_symlink_refused, setup),
		cmocka_unit_test_setup(test_quarantine_symlinked_out, setup),
		cmocka_unit_test_setup(test_lock_held, setup),
		cmocka_unit_test_setup(test_list_and_purge, setup),
		cmocka_unit_test_setup(test_name_not_utf8, setup),
		cmocka_unit_test_setup(test_links_go_with_their_file, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
