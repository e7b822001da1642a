/*
 * git.c - HEAD and the index of the repository holding a tree (see
 * git.h), read once through libgit2 (the index when first asked); whether
 * its work tree is dirty, found when asked; and the history around a
 * branch switch: where HEAD was when a build wrote its files (HEAD's
 * reflog, git's own record of checkouts) and which commit dropped a
 * target between two commits.
 */
#include <dlfcn.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <libssh2.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/git.h"
#include "build/git_int.h"

struct lo_git {
	git_repository *repo;
	/*
	 * Read at the first question that needs it: the SARIF report and
	 * explain's history (blame.c) open the repository for other things,
	 * and an index of 100,000 files takes a sixth of a second and 18 MiB
	 * to read.
	 */
	bool index_read;
	git_index *index; /* NULL when it cannot be read */
	char *workdir;    /* real path, ending in '/' */
	char commit[GIT_OID_HEXSZ + 1];
	char *branch;
	int dirty; /* -1 until asked */
};

/*
 * libgit2 links libssh2 for ssh remotes, which leftover never reaches,
 * and its init initialises libssh2, which loads OpenSSL's ciphers and
 * digests: 1.4 MiB more resident at every start, and so at every peak,
 * and a millisecond. libssh2 counts its inits and sets its crypto up only
 * at the first: made first here, without it, libgit2's does nothing. Found
 * at run time, as libgit2 loaded it: a libgit2 built without libssh2
 * loads none.
 */
static void libssh2_without_crypto(void)
{
	int (*init)(int flags);

	*(void **)&init = dlsym(RTLD_DEFAULT, "libssh2_init");
	if (init)
		init(LIBSSH2_INIT_NO_CRYPTO);
}

/*
 * libgit2 built with mbedTLS (Debian's) parses the system's CA bundle in
 * git_libgit2_init, for https remotes, which leftover never reaches: 220
 * KB of PEM, 144 certificates, 170 page faults and 6 to 7 ms of every
 * start, a third of a scan of an empty tree. The executable comes first in
 * the process's scope, so this definition is the one libgit2's call binds
 * (and mbedTLS's own, from mbedtls_x509_crt_parse_path): it declines, as
 * for a bundle that cannot be read, and libgit2 goes on with no CA
 * certificate. An https connection would fail to verify, never go
 * unverified. A libgit2 built with OpenSSL, or with no TLS, never calls it.
 */
int mbedtls_x509_crt_parse_file(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return -0x2900; /* MBEDTLS_ERR_X509_FILE_IO_ERROR */
}

void lo_libgit2_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, libssh2_without_crypto);
	git_libgit2_init();
	git_error_clear(); /* the bundle declined above leaves its error set */
}

void lo_libgit2_shutdown(void)
{
	git_libgit2_shutdown();
}

/*
 * What a verdict learns from the repository changes only with these
 * (deps.h): HEAD (a branch switched), the index (what is tracked), the
 * branch's ref, loose or packed (a commit).
 */
static void note_repository(git_repository *repo, git_reference *head)
{
	const char *gitdir = git_repository_path(repo), *common = git_repository_commondir(repo);
	lo_buf p = LO_BUF_INIT;

	if (!lo_deps_recording())
		return;
	lo_buf_printf(&p, "%sHEAD", gitdir);
	lo_deps_note_path(lo_buf_cstr(&p));
	lo_buf_clear(&p);
	lo_buf_printf(&p, "%sindex", gitdir);
	lo_deps_note_path(lo_buf_cstr(&p));
	lo_buf_clear(&p);
	lo_buf_printf(&p, "%spacked-refs", common);
	lo_deps_note_path(lo_buf_cstr(&p));
	if (head && git_reference_is_branch(head)) {
		lo_buf_clear(&p);
		lo_buf_printf(&p, "%s%s", common, git_reference_name(head));
		lo_deps_note_path(lo_buf_cstr(&p));
	}
	lo_buf_dispose(&p);
}

int lo_git_open(lo_git **out, const char *dir)
{
	lo_git *g;
	git_reference *head = NULL;
	char real[PATH_MAX];
	const char *wd;

	*out = NULL;
	lo_libgit2_init();
	g = lo_xcalloc(1, sizeof(*g));
	g->dirty = -1;
	if (git_repository_open_ext(&g->repo, dir, 0, NULL) < 0 ||
	    !(wd = git_repository_workdir(g->repo)) || !realpath(wd, real)) {
		lo_git_free(g);
		return 0;
	}
	g->workdir = lo_xmalloc(strlen(real) + 2);
	strcpy(g->workdir, real);
	if (g->workdir[strlen(real) - 1] != '/')
		strcat(g->workdir, "/");
	if (git_repository_head(&head, g->repo) == 0) {
		note_repository(g->repo, head);
		const git_oid *oid = git_reference_target(head);

		if (oid)
			git_oid_tostr(g->commit, sizeof(g->commit), oid);
		g->branch = lo_xstrdup(git_reference_is_branch(head) ? git_reference_shorthand(head) : "");
		git_reference_free(head);
	} else {
		note_repository(g->repo, NULL);
		g->branch = lo_xstrdup("");
	}
	*out = g;
	return 0;
}

void lo_git_free(lo_git *g)
{
	if (!g)
		return;
	git_index_free(g->index);
	git_repository_free(g->repo);
	free(g->workdir);
	free(g->branch);
	free(g);
	lo_libgit2_shutdown();
}

bool lo_git_holds(const lo_git *g, const char *dir)
{
	git_buf found = { 0 };
	char a[PATH_MAX], b[PATH_MAX];
	bool same;

	if (git_repository_discover(&found, dir, 0, NULL) < 0) {
		git_error_clear();
		return false;
	}
	same = realpath(found.ptr, a) && realpath(git_repository_path(g->repo), b) &&
	       !strcmp(a, b);
	git_buf_dispose(&found);
	return same;
}

const char *lo_git_workdir(const lo_git *g) { return g->workdir; }
const char *lo_git_commit(const lo_git *g) { return g->commit; }
const char *lo_git_branch(const lo_git *g) { return g->branch; }

static git_index *index_of(lo_git *g)
{
	if (g->index_read)
		return g->index;
	g->index_read = true;
	if (git_repository_index(&g->index, g->repo) < 0) {
		g->index = NULL;
		git_error_clear();
	}
	return g->index;
}

/* A diff's first delta is enough to call the work tree dirty. */
static int stop_at_first(const git_diff *diff, const git_diff_delta *delta, const char *spec,
			 void *payload)
{
	(void)diff;
	(void)delta;
	(void)spec;
	*(bool *)payload = true;
	return -1;
}

/*
 * Is `tree` the tree the index's entries make? Its id is taken from the
 * index's cache of tree ids where git keeps that valid (a checkout, a
 * commit); else the trees are written, into an object database in memory,
 * never the repository's. The same id is the same paths, modes and blobs:
 * nothing staged. A different one, or an index that makes no tree (a
 * conflict), is left to the diff, which ignores what this cannot
 * (submodules).
 */
static bool index_holds_tree(git_index *index, const git_oid *tree)
{
	git_odb *odb = NULL;
	git_odb_backend *memory = NULL;
	git_repository *scratch = NULL;
	git_oid made;
	bool same = false;

	if (!index || git_odb_new(&odb) < 0 || git_mempack_new(&memory) < 0)
		goto out;
	if (git_odb_add_backend(odb, memory, 1) < 0) {
		memory->free(memory);
		goto out;
	}
	if (git_repository_wrap_odb(&scratch, odb) == 0)
		same = git_index_write_tree_to(&made, index, scratch) == 0 && git_oid_equal(&made, tree);
out:
	git_repository_free(scratch);
	git_odb_free(odb);
	git_error_clear();
	return same;
}

/*
 * What `git status` would list, but only until its first entry: the work
 * tree against the index first, where a build directory inside the
 * checkout and not ignored is found as soon as its name comes, then the
 * index against HEAD. A clean checkout is still read whole (every tracked
 * file's stat, HEAD's trees), so this is done only when asked, and the
 * work tree by stat alone first (git_worktree.c): libgit2's diff of it
 * runs only when that cannot vouch for it.
 */
bool lo_git_dirty(lo_git *g)
{
	git_diff_options o;
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_reference *head = NULL;
	bool found = false;

	if (g->dirty >= 0)
		return g->dirty;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	/*
	 * An untracked directory is told to the callback before libgit2 looks
	 * inside it for a file not ignored; entered, only such a file is told.
	 */
	o.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		  GIT_DIFF_IGNORE_SUBMODULES;
	o.notify_cb = stop_at_first;
	o.payload = &found;
	if (!lo_git_worktree_as_indexed(g->repo, index_of(g), g->workdir)) {
		git_diff_index_to_workdir(&diff, g->repo, index_of(g), &o);
		git_diff_free(diff);
		diff = NULL;
	}
	if (!found) {
		/* an unborn branch has no tree: all the index is then a change */
		if (git_repository_head(&head, g->repo) == 0)
			git_reference_peel((git_object **)&tree, head, GIT_OBJECT_TREE);
		if (!tree || !index_holds_tree(index_of(g), git_tree_id(tree)))
			git_diff_tree_to_index(&diff, g->repo, tree, index_of(g), &o);
		git_diff_free(diff);
		git_tree_free(tree);
		git_reference_free(head);
	}
	git_error_clear(); /* the stop above is recorded as the callback's error */
	g->dirty = found;
	return found;
}

bool lo_git_tracks(lo_git *g, const char *abs)
{
	size_t n = strlen(g->workdir);
	git_index *index;

	if (strncmp(abs, g->workdir, n) || !(index = index_of(g)))
		return false;
	return git_index_find(NULL, index, abs + n) == 0;
}

/* Larger blobs are not searched: generated data, not the build's sources. */
#define LO_GIT_MAX_BLOB (4 << 20)

static bool blob_mentions(git_repository *repo, const git_diff_file *f, const char *needle)
{
	git_blob *blob;
	bool hit = false;

	if (!(f->flags & GIT_DIFF_FLAG_VALID_ID) || git_oid_is_zero(&f->id) ||
	    git_blob_lookup(&blob, repo, &f->id) < 0)
		return false;
	if (git_blob_rawsize(blob) <= LO_GIT_MAX_BLOB)
		hit = memmem(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), needle,
			     strlen(needle)) != NULL;
	git_blob_free(blob);
	return hit;
}

static int commit_tree(git_repository *repo, const char *id, git_tree **tree)
{
	git_oid oid;
	git_commit *c;
	int err;

	if (git_oid_fromstr(&oid, id) < 0 || git_commit_lookup(&c, repo, &oid) < 0)
		return lo_error_set(LO_ENOTFOUND, "no commit %s in the repository", id);
	err = git_commit_tree(tree, c);
	git_commit_free(c);
	return err < 0 ? lo_error_set(LO_ERROR, "cannot read the tree of commit %s", id) : 0;
}

int lo_git_changed_mentioning(const lo_git *g, const char *from, const char *to,
			      const char *needle, char ***paths, size_t *count)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	size_t i, n, cap = 0;
	int err;

	*paths = NULL;
	*count = 0;
	if ((err = commit_tree(g->repo, from, &a)) < 0 || (err = commit_tree(g->repo, to, &b)) < 0)
		goto out;
	if (git_diff_tree_to_tree(&diff, g->repo, a, b, NULL) < 0) {
		err = lo_error_set(LO_ERROR, "cannot diff %.7s..%.7s", from, to);
		goto out;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;

		if (strstr(path, needle) || blob_mentions(g->repo, &d->old_file, needle) ||
		    blob_mentions(g->repo, &d->new_file, needle)) {
			lo_array_grow(paths, &cap, *count + 1, sizeof(char *));
			(*paths)[(*count)++] = lo_xstrdup(path);
		}
	}
out:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return err;
}

/* "checkout: moving from A to B" -> B, owned; "" for a detached HEAD (a commit id). */
static char *checkout_target(const char *msg)
{
	static const char prefix[] = "checkout: moving from ";
	const char *to;
	git_oid oid;

	if (!msg || strncmp(msg, prefix, sizeof(prefix) - 1) || !(to = strstr(msg, " to ")))
		return NULL;
	to += 4;
	if (strlen(to) == GIT_OID_HEXSZ && git_oid_fromstr(&oid, to) == 0)
		return lo_xstrdup("");
	return lo_xstrndup(to, strcspn(to, "\n"));
}

int lo_git_head_at(const lo_git *g, time_t when, char **commit, char **branch)
{
	git_reflog *log;
	size_t i, n;
	char id[GIT_OID_HEXSZ + 1];

	*commit = *branch = NULL;
	if (git_reflog_read(&log, g->repo, "HEAD") < 0)
		return lo_error_set(LO_ERROR, "cannot read the reflog of HEAD");
	n = git_reflog_entrycount(log);
	/* index 0 is the newest entry */
	for (i = 0; i < n; i++) {
		const git_reflog_entry *e = git_reflog_entry_byindex(log, i);
		const git_signature *who = git_reflog_entry_committer(e);

		if (!who || who->when.time >= when)
			continue;
		git_oid_tostr(id, sizeof(id), git_reflog_entry_id_new(e));
		*commit = lo_xstrdup(id);
		for (; i < n && !*branch; i++)
			*branch = checkout_target(git_reflog_entry_message(git_reflog_entry_byindex(log, i)));
		break;
	}
	git_reflog_free(log);
	return 0;
}

void lo_git_drop_dispose(lo_git_drop *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->path_count; i++)
		free(d->paths[i]);
	free(d->paths);
	free(d->commit);
	free(d->summary);
	memset(d, 0, sizeof(*d));
}

static bool side_mentions(git_repository *repo, const git_diff_file *f, const char *needle)
{
	return (f->flags & GIT_DIFF_FLAG_EXISTS) &&
	       (strstr(f->path, needle) || blob_mentions(repo, f, needle));
}

/* The files whose mention of `needle` commit `c` removed, against its first parent. */
static int drops_of(git_repository *repo, git_commit *c, const char *needle, lo_git_drop *d)
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	size_t i, cap = 0;
	int err = 0;

	if (git_commit_parentcount(c) == 0)
		return 0; /* a first commit drops nothing */
	if (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&a, parent) < 0 ||
	    git_commit_tree(&b, c) < 0 || git_diff_tree_to_tree(&diff, repo, a, b, NULL) < 0) {
		err = lo_error_set(LO_ERROR, "cannot diff commit %.7s against its parent",
				   git_oid_tostr_s(git_commit_id(c)));
		goto out;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *dd = git_diff_get_delta(diff, i);

		if (side_mentions(repo, &dd->old_file, needle) &&
		    !side_mentions(repo, &dd->new_file, needle)) {
			lo_array_grow(&d->paths, &cap, d->path_count + 1, sizeof(char *));
			d->paths[d->path_count++] = lo_xstrdup(dd->old_file.path);
		}
	}
out:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return err;
}

int lo_git_dropped(const lo_git *g, const char *from, const char *to, const char *needle,
		   lo_git_drop *out)
{
	git_revwalk *walk = NULL;
	git_oid oid, hide;
	size_t seen = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (git_oid_fromstr(&oid, to) < 0 || git_oid_fromstr(&hide, from) < 0)
		return lo_error_set(LO_EINVALID, "not a commit id: %s or %s", from, to);
	if (git_revwalk_new(&walk, g->repo) < 0 || git_revwalk_push(walk, &oid) < 0 ||
	    git_revwalk_hide(walk, &hide) < 0) {
		git_revwalk_free(walk);
		return lo_error_set(LO_ENOTFOUND, "cannot walk %.7s..%.7s", from, to);
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	while (!out->commit && seen++ < LO_GIT_MAX_WALK && git_revwalk_next(&oid, walk) == 0) {
		git_commit *c;
		const char *summary;

		if (git_commit_lookup(&c, g->repo, &oid) < 0)
			continue;
		err = drops_of(g->repo, c, needle, out);
		if (!err && out->path_count) {
			out->commit = lo_xstrdup(git_oid_tostr_s(&oid));
			summary = git_commit_summary(c);
			out->summary = lo_xstrdup(summary ? summary : "");
		}
		git_commit_free(c);
		if (err < 0)
			break;
	}
	git_revwalk_free(walk);
	if (err < 0)
		lo_git_drop_dispose(out);
	return err;
}

/* ---- what git says of a source's name, for evidence from the tree -------- */

/* Commits looked at for a deleted path: a long-lived tree's recent history. */
#define LO_GIT_MAX_HISTORY 5000
/* HEAD entries looked at for a name: a tree larger than this is not searched. */
#define LO_GIT_MAX_ENTRIES 1000000

static bool tree_has_path(git_repository *repo, const git_oid *commit, const char *rel)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	bool has;

	has = git_commit_lookup(&c, repo, commit) == 0 && git_commit_tree(&t, c) == 0 &&
	      git_tree_entry_bypath(&e, t, rel) == 0;
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return has;
}

int lo_git_deleted(const lo_git *g, const char *abs)
{
	size_t n = strlen(g->workdir), seen = 0;
	git_revwalk *walk = NULL;
	git_oid head, oid;
	int found = 0;

	if (strncmp(abs, g->workdir, n) || git_reference_name_to_id(&head, g->repo, "HEAD") < 0 ||
	    tree_has_path(g->repo, &head, abs + n))
		return 0;
	if (git_revwalk_new(&walk, g->repo) < 0 || git_revwalk_push(walk, &head) < 0) {
		git_revwalk_free(walk);
		return 0;
	}
	while (!found && seen++ < LO_GIT_MAX_HISTORY && git_revwalk_next(&oid, walk) == 0)
		found = tree_has_path(g->repo, &oid, abs + n);
	if (!found && seen > LO_GIT_MAX_HISTORY)
		found = -1;
	git_revwalk_free(walk);
	return found;
}

int lo_git_left_at(const lo_git *g, const char *abs, time_t *when)
{
	size_t n = strlen(g->workdir), i, count;
	const git_signature *who;
	git_reflog *log;
	int found = 0;

	if (strncmp(abs, g->workdir, n) || git_reflog_read(&log, g->repo, "HEAD") < 0)
		return 0;
	count = git_reflog_entrycount(log);
	/* index 0 is the newest entry; a long reflog is looked at as far as a history is */
	for (i = 0; i < count && i < LO_GIT_MAX_WALK; i++) {
		const git_reflog_entry *e = git_reflog_entry_byindex(log, i);

		if (!(who = git_reflog_entry_committer(e)))
			continue;
		if (!found) { /* the newest entry: the bound when no move removed it */
			*when = (time_t)who->when.time;
			found = 1;
		}
		if (tree_has_path(g->repo, git_reflog_entry_id_old(e), abs + n) &&
		    !tree_has_path(g->repo, git_reflog_entry_id_new(e), abs + n)) {
			*when = (time_t)who->when.time;
			break;
		}
	}
	git_reflog_free(log);
	return found;
}

typedef struct knows {
	git_repository *repo;
	const char *stem;
	size_t stem_len, entries;
	bool hit, capped;
} knows;

/* Build descriptions that name an extension module without naming its source file. */
static bool is_build_description(const char *name)
{
	static const char *const names[] = { "setup.py", "setup.cfg", "pyproject.toml",
					     "meson.build", "CMakeLists.txt", "Makefile" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int on_head_entry(const char *root, const git_tree_entry *e, void *payload)
{
	knows *k = payload;
	const char *name = git_tree_entry_name(e);
	git_blob *blob;

	(void)root;
	if (++k->entries > LO_GIT_MAX_ENTRIES) {
		k->capped = true;
		return -1;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if (!strncmp(name, k->stem, k->stem_len) && name[k->stem_len] == '.')
		k->hit = true;
	else if (is_build_description(name) && git_blob_lookup(&blob, k->repo, git_tree_entry_id(e)) == 0) {
		k->hit = git_blob_rawsize(blob) <= LO_GIT_MAX_BLOB &&
			 memmem(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), k->stem,
				k->stem_len);
		git_blob_free(blob);
	}
	return k->hit ? -1 : 0;
}

bool lo_git_head_knows(const lo_git *g, const char *stem)
{
	knows k = { g->repo, stem, strlen(stem), 0, false, false };
	git_object *tree = NULL;

	if (git_revparse_single(&tree, g->repo, "HEAD^{tree}") < 0)
		return true; /* no HEAD to ask: assume it knows, so nothing is called deleted */
	git_tree_walk((git_tree *)tree, GIT_TREEWALK_PRE, on_head_entry, &k);
	git_object_free(tree);
	return k.hit || k.capped;
}
