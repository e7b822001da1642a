/*
 * clean.h - take stale artifacts out of a build tree, and put them back.
 *
 * The input is a scan result (scan.h); clean acts on the files whose
 * verdict is `stale` (and `broken` when asked). By default each file is
 * renamed into ROOT/.leftover.d/quarantine/<STAMP>/ under its relative
 * path, after a manifest listing every file (path, size, mode, mtime,
 * SHA-256, reasons) has been written and fsynced there, so a clean
 * interrupted at any point leaves each file either in place or in the
 * quarantine with its entry, and lo_restore_run puts it back. ROOT/.leftover.d
 * (never ROOT/.leftover: that is the source tree's rule file in an
 * in-source build, rules.h) holds a .gitignore of `*`, so that git
 * ignores what clean keeps there; restore still finds the sets leftover
 * 0.1 left in ROOT/.leftover/quarantine.
 *
 * The tree is left consistent: the symlinks beside a file acted on that
 * lead to it through links there (a soname chain, libX.so.1 ->
 * libX.so.1.0) go with it, each in the manifest, so that no dangling link
 * is the next scan's finding and a restore puts back the chain whole.
 * Never one the current build makes (lo_scan_produced), one tracked or
 * kept by a rule.
 *
 * Every file operation goes through directory descriptors opened from the
 * root down with O_NOFOLLOW|O_DIRECTORY (openat, renameat, unlinkat): a
 * symlink met on the way, including a directory swapped for one after the
 * scan, makes that one file fail instead of leading outside the root. A
 * symlink that is itself the finding is moved as a link, never its target.
 * A file tracked in git is never touched, nor one a [rule] marks `keep`;
 * a rule's `quarantine` or `delete` action decides for the files it
 * matches, whatever their verdict (rules.h). One clean or restore at a time
 * per tree: ROOT/.leftover.d/lock is held with flock() for the whole run (the
 * CLI takes it before the scan, see lo_tree_lock_new).
 * Does not own: which files are stale or broken (the scan's verdicts,
 * verdict.h), nor the file operations' mechanics (clean_fs.h).
 */
#ifndef LEFTOVER_CLEAN_H
#define LEFTOVER_CLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "leftover/scan.h"

/*
 * The lock of one tree (ROOT/.leftover.d/lock, flock), held from
 * lo_tree_lock_new to lo_tree_lock_free. lo_clean_run takes it itself
 * unless given one (opts.lock): a caller that takes it before the scan
 * makes a second clean waiting for it scan the tree as the first left it,
 * not as it was before. Fails like lo_clean_run when it is held and !wait,
 * or when `stop` (may be NULL) is set by a signal while waiting.
 */
typedef struct lo_tree_lock lo_tree_lock;
int lo_tree_lock_new(lo_tree_lock **out, const char *root, bool wait, volatile sig_atomic_t *stop);
void lo_tree_lock_free(lo_tree_lock *lock);

/* Called before each file is moved or removed (tests use it to race the clean). */
typedef void (*lo_clean_hook)(const char *relpath, void *payload);

typedef struct lo_clean_opts {
	bool broken;  /* also act on files that are still built but would not load */
	bool suspected; /* also act on files only suspected stale (no build record; inferred
			   from the tree and git), as on stale ones */
	bool remove;  /* unlink instead of quarantining (--delete) */
	bool dry_run; /* plan and report, change nothing */
	bool wait;    /* wait for another clean's lock instead of failing */
	lo_clean_hook before_each;
	void *hook_payload;
	/*
	 * Set (by a signal handler) to stop between two files: what has moved
	 * stays moved, the rest stays LO_CLEAN_PLANNED and res->interrupted is set.
	 */
	volatile sig_atomic_t *stop;
	const lo_rules *rules; /* borrowed; the [rule] actions apply when not NULL */
	const lo_tree_lock *lock; /* the root's, held by the caller since before the scan; or NULL */
	/*
	 * From lo_clean_mark_scan, taken before the scan: a file whose inode
	 * changed at or after it (replaced, rewritten, truncated) is not what
	 * the scan judged, and is left alone as failed. {0, 0}: no such check.
	 */
	struct timespec scan_began;
} lo_clean_opts;

typedef enum lo_clean_status {
	LO_CLEAN_PLANNED,     /* dry run: would be moved or removed */
	LO_CLEAN_MOVED,       /* now in the quarantine */
	LO_CLEAN_REMOVED,     /* unlinked (--delete) */
	LO_CLEAN_KEPT_TRACKED, /* tracked in git: left alone */
	LO_CLEAN_KEPT_RULE,   /* a [rule] says keep: left alone, not a finding */
	LO_CLEAN_FAILED,      /* could not be moved; `error` says why */
} lo_clean_status;

typedef struct lo_clean_action {
	const lo_file *file; /* borrowed from the scan result */
	lo_clean_status status;
	bool remove;  /* unlinked rather than quarantined (--delete or a rule) */
	uint64_t size;
	/*
	 * Another name (hard link) of a file an earlier action did the same to:
	 * one file, counted there, its bytes once (lo_clean_result's bytes too).
	 */
	bool another_name;
	char *error; /* owned, or NULL; also set when the file went but a link of it stayed */
	/*
	 * The symlinks that went with the file (planned, in a dry run): relative
	 * to the root, in the manifest after the file; owned.
	 */
	char **links;
	size_t link_count;
} lo_clean_action;

typedef struct lo_clean_result {
	char *root;       /* absolute; owned */
	char *stamp;      /* the quarantine set, NULL when nothing was quarantined; owned */
	char *quarantine; /* ROOT/.leftover.d/quarantine/STAMP, or NULL; owned */
	lo_clean_action *actions; /* one per file acted on, in scan order */
	size_t action_count, action_cap;
	size_t done, failed, tracked, kept; /* moved or removed; failed; tracked; kept by a rule */
	bool interrupted;             /* opts->stop was set: files were left in place */
	uint64_t bytes;               /* size of what was moved or removed, each file once */
} lo_clean_result;

/*
 * Clean the tree of `scan` (its root). Returns 0 with *out set even when
 * some files failed (see the counts), or a negative code with a message
 * when the tree cannot be cleaned at all (lock held, root unreadable,
 * manifest not writable).
 */
int lo_clean_run(lo_clean_result **out, const lo_scan_result *scan, const lo_clean_opts *opts);

/*
 * Would lo_clean_run have anything to decide about in `scan` (a file to
 * move or delete, or one a rule keeps)? A clean given a kept result (the
 * verdict cache, cache.h) goes on with it only when not: it never acts on
 * a kept verdict, and judges afresh whenever there is something to act on.
 */
bool lo_clean_has_work(const lo_scan_result *scan, const lo_clean_opts *opts);

/*
 * The time for lo_clean_opts.scan_began; call it right before the scan.
 * Inode times come from the kernel's coarse clock, so this waits for that
 * clock's next tick (a few ms): every change made after the call is then
 * stamped at or after *t, every change made before the call earlier. A
 * clock set back, or a network file system stamping by a server's clock,
 * can defeat it; the identity check just before each move still holds.
 */
void lo_clean_mark_scan(struct timespec *t);
void lo_clean_result_free(lo_clean_result *res);

const char *lo_clean_status_str(lo_clean_status s);

/* One quarantined file as the manifest records it. */
typedef struct lo_restore_entry {
	char *path; /* relative to the root; owned */
	lo_clean_status status; /* LO_CLEAN_MOVED when put back */
	bool in_place; /* never moved (the clean was interrupted first) */
	bool refused;  /* a file has reappeared at the path: left in the quarantine */
	char *error;   /* owned, or NULL */
} lo_restore_entry;

typedef struct lo_restore_result {
	char *root;  /* owned */
	char *stamp; /* the set restored; owned */
	char *quarantine; /* its directory, ROOT/.leftover.d/quarantine/STAMP (or 0.1's
			     ROOT/.leftover/...), or NULL; owned */
	lo_restore_entry *entries;
	size_t entry_count, entry_cap;
	size_t restored, in_place, refused, failed;
	bool interrupted; /* opts->stop was set: the rest is still in the quarantine */
} lo_restore_result;

/*
 * Put quarantine set `stamp` (NULL: the newest, of this version's quarantine
 * and 0.1's) of `root` back, links as links. A file that
 * has reappeared at its path is not overwritten: it is counted as refused
 * and stays in the quarantine with the manifest. The set is removed once
 * nothing is left in it. Of `opts` (NULL: defaults) only wait, before_each
 * and stop apply.
 */
int lo_restore_run(lo_restore_result **out, const char *root, const char *stamp,
		   const lo_clean_opts *opts);
void lo_restore_result_free(lo_restore_result *res);

/*
 * The quarantine sets of `root`, oldest first (names sort by time); *out is
 * an owned array of owned strings. A set without a manifest is not listed.
 */
int lo_quarantine_list(char ***out, size_t *count, const char *root);

/* Remove the quarantine sets older than `days` (0: all); *removed counts them. */
int lo_quarantine_purge(const char *root, double days, bool wait, size_t *removed);

/* SHA-256 of the open file `fd` from its start, as 64 hex digits plus NUL. */
int lo_clean_sha256_fd(int fd, char hex[65]);
/* SHA-256 of n bytes at p (a symlink's text). */
void lo_clean_sha256_mem(const void *p, size_t n, char hex[65]);

#endif
