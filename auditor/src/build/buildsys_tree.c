/*
 * buildsys_tree.c - evidence from the tree and git themselves, for shared
 * objects that no build system records: a hand-written Makefile, a
 * setuptools or Cython build in place, `pip install -e`. Each shape is an
 * evidence kind of its own, and judges only a file its build tree (if any)
 * has no record of: where a tree's records speak, they decide. None of it
 * is a build record: what it finds is "suspected" (buildsys.h), never an
 * orphan.
 *
 * Both shapes ask git, and nothing is evidence outside a git work tree or
 * for a tracked file: /usr/lib holds libfoo.so.0 beside libfoo.so.1 on
 * purpose, for the programs linked against each.
 *  - superseded-library: a development link libX.so (a symlink in the same
 *    directory) points at libX.so.N while libX.so.M, M > N, lies beside it,
 *    written later: the build moved on to a new soname and left the old
 *    library where the link, and whatever links through it, still finds it
 *    (LinuxCNC's liblinuxcncini.so.0 after the bump to .so.1). A library
 *    the link does not point at is not judged: both may be wanted.
 *  - source-deleted: an in-place Python extension (name.cpython-*.so,
 *    name.abi3.so) whose source beside it (name.pyx, .c, .cpp) git says
 *    was deleted, while HEAD has no file named name.* anywhere and no build
 *    description (setup.py, pyproject.toml, ...) mentioning the name: a
 *    source moved elsewhere or a module built from another file is known
 *    at HEAD and stays unjudged. Nor a module written after its source
 *    left the work tree (by HEAD's reflog, lo_git_left_at): it was built
 *    from the sources checked out, whatever they are named
 *    (Extension(f"sp._{m}", [f"sp/{m}module.c"]) after _fast.c became
 *    fastmodule.c).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/git.h"
#include "leftover/map.h"
#include "leftover/os.h"

/* How many symlinks in one directory are followed from a development link. */
#define MAX_HOPS 8

/* The name after "lib": "libfoo.so.1.2" -> stem "libfoo.so", major 1; false if not that shape. */
static bool soname_parts(const char *name, size_t *stem_len, long *major)
{
	const char *so = strstr(name, ".so.");
	char *end;

	if (strncmp(name, "lib", 3) || !so || so[4] < '0' || so[4] > '9')
		return false;
	*major = strtol(so + 4, &end, 10);
	if (*end && *end != '.')
		return false;
	*stem_len = (size_t)(so - name) + 3;
	return true;
}

static bool is_dev_link(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "lib", 3) && n > 6 && !strcmp(name + n - 3, ".so");
}

/* "name.cpython-311-x86_64-linux-gnu.so", "name.abi3.so": the length of name, else 0. */
static size_t extension_stem(const char *name)
{
	size_t n = strlen(name);
	const char *dot = strchr(name, '.');

	if (!dot || dot == name || n < 4 || strcmp(name + n - 3, ".so"))
		return 0;
	return !strncmp(dot, ".cpython-", 9) || !strncmp(dot, ".pypy", 5) || !strcmp(dot, ".abi3.so")
		       ? (size_t)(dot - name) : 0;
}

bool lo_bs_tree_wants(const char *name, unsigned char type)
{
	size_t stem;
	long major;

	return (type == LO_FT_REG || type == LO_FT_LNK) &&
	       (is_dev_link(name) || soname_parts(name, &stem, &major) || extension_stem(name));
}

void lo_bs_tree_entry(lo_buildsys *bs, const char *relpath, const char *name, unsigned char type)
{
	if (!lo_bs_tree_wants(name, type))
		return;
	lo_array_grow(&bs->cands, &bs->cand_cap, bs->cand_count + 1, sizeof(lo_bs_cand));
	bs->cands[bs->cand_count].rel = lo_xstrdup(relpath);
	bs->cands[bs->cand_count++].type = type;
}

static void put_evidence(lo_buildsys *bs, const char *rel, lo_orphan_evidence ev, char *detail)
{
	lo_bs_record *r = lo_xcalloc(1, sizeof(*r));

	r->evidence = ev;
	r->by = detail; /* the detail line, owned */
	lo_bs_free_record(lo_map_get(bs->evidence, rel, NULL));
	lo_map_put(bs->evidence, rel, r);
}

/* A newer major of `stem` than `major` in `dir` (absolute), written after `than`: its name. */
static char *newer_major(const char *dir, const char *stem, size_t stem_len, long major,
			 long long than)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;

	while (d && (de = readdir(d))) {
		char *abs = NULL;
		struct stat st;
		size_t sl;
		long m;

		if (!soname_parts(de->d_name, &sl, &m) || sl != stem_len ||
		    strncmp(de->d_name, stem, sl) || m <= major)
			continue;
		if (asprintf(&abs, "%s/%s", dir, de->d_name) < 0)
			abort();
		if (stat(abs, &st) == 0 && S_ISREG(st.st_mode) && lo_bs_mtime_ns(&st) > than && !best)
			best = lo_xstrdup(de->d_name);
		free(abs);
	}
	if (d)
		closedir(d);
	return best;
}

/*
 * Where the development link `abs` (in `dir`) leads within its directory:
 * libfoo.so -> libfoo.so.0 -> libfoo.so.0.0.0. The first target's name
 * into *named (owned), the file it ends at into *file (owned, absolute).
 */
static bool follow_dev_link(const char *dir, const char *abs, char **named, char **file)
{
	char target[NAME_MAX + 1], *at = lo_xstrdup(abs);
	struct stat st;
	ssize_t n;
	int hop;

	*named = NULL;
	for (hop = 0; hop < MAX_HOPS && lstat(at, &st) == 0 && S_ISLNK(st.st_mode); hop++) {
		if ((n = readlink(at, target, sizeof(target) - 1)) <= 0)
			break;
		target[n] = '\0';
		if (strchr(target, '/'))
			break;
		if (!*named)
			*named = lo_xstrdup(target);
		free(at);
		if (asprintf(&at, "%s/%s", dir, target) < 0)
			abort();
	}
	if (!*named || lstat(at, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(*named);
		*named = NULL;
		free(at);
		return false;
	}
	*file = at;
	return true;
}

/*
 * The development link `link` (relative to the base): if it leads to an
 * older major than one written after that file beside it, the file is
 * superseded.
 */
static void judge_dev_link(lo_buildsys *bs, lo_git *g, const char *link)
{
	const char *slash = lo_os_path_last_separator(link);
	size_t dlen = slash ? (size_t)(slash - link) : 0, stem_len;
	char *dir = NULL, *abs = NULL, *named = NULL, *file = NULL, *newer = NULL;
	char *rel = NULL, *detail = NULL;
	struct stat st;
	long major;

	if (asprintf(&dir, "%s%s%.*s", bs->base, dlen ? "/" : "", (int)dlen, link) < 0 ||
	    asprintf(&abs, "%s/%s", bs->base, link) < 0)
		abort();
	if (!follow_dev_link(dir, abs, &named, &file))
		goto out;
	if (!soname_parts(named, &stem_len, &major) || stat(file, &st) < 0 || lo_git_tracks(g, file) ||
	    !(newer = newer_major(dir, named, stem_len, major, lo_bs_mtime_ns(&st))))
		goto out;
	if (asprintf(&rel, "%.*s%s%s", (int)dlen, link, dlen ? "/" : "", lo_os_path_last_separator(file) + 1) < 0 ||
	    asprintf(&detail, "%s is superseded by %s beside it, built later; the development "
		     "link %s still points at it", named, newer, slash ? slash + 1 : link) < 0)
		abort();
	put_evidence(bs, rel, LO_EVIDENCE_SUPERSEDED_LIBRARY, detail);
	if (!lo_map_get(bs->superseded, named, NULL))
		lo_map_put(bs->superseded, named, lo_xstrdup(rel));
out:
	free(rel);
	free(newer);
	free(file);
	free(named);
	free(abs);
	free(dir);
}

/*
 * Was `abs` written after its source `src` left the work tree? The reflog
 * has seconds only: a module written in the second of the checkout counts
 * as after it, the side on which a live module is never suspected.
 */
static bool built_since_gone(lo_git *g, const char *abs, const char *src)
{
	struct stat st;
	time_t left;

	return lo_git_left_at(g, src, &left) == 1 && stat(abs, &st) == 0 && st.st_mtim.tv_sec >= left;
}

/* An in-place extension `rel` (relative to the base) whose source git says is gone. */
static void judge_extension(lo_buildsys *bs, lo_git *g, const char *rel)
{
	static const char *const sources[] = { ".pyx", ".c", ".cpp", ".cxx" };
	const char *name = lo_os_path_last_separator(rel) ? lo_os_path_last_separator(rel) + 1 : rel;
	size_t stem = extension_stem(name), i;
	char *abs = NULL, *src = NULL, *stem_s = lo_xstrndup(name, stem), *gone = NULL;

	if (asprintf(&abs, "%s/%s", bs->base, rel) < 0)
		abort();
	if (lo_git_tracks(g, abs))
		goto out;
	for (i = 0; !gone && i < sizeof(sources) / sizeof(sources[0]); i++) {
		free(src);
		if (asprintf(&src, "%.*s%s", (int)(strlen(abs) - strlen(name) + stem), abs,
			     sources[i]) < 0)
			abort();
		if (lo_git_deleted(g, src) == 1)
			gone = lo_xstrdup(lo_os_path_last_separator(src) + 1);
	}
	if (gone && !lo_git_head_knows(g, stem_s) && !built_since_gone(g, abs, src)) {
		char *detail = NULL;

		if (asprintf(&detail, "an extension built in place from %s, which git says was "
			     "deleted; nothing at HEAD names %s", gone, stem_s) < 0)
			abort();
		put_evidence(bs, rel, LO_EVIDENCE_SOURCE_DELETED, detail);
	}
out:
	free(gone);
	free(src);
	free(stem_s);
	free(abs);
}

/* The candidates are asked about once: a list of every one, kept, grew with the tree. */
static void cands_free(lo_buildsys *bs)
{
	size_t i;

	for (i = 0; i < bs->cand_count; i++)
		free(bs->cands[i].rel);
	free(bs->cands);
	bs->cands = NULL;
	bs->cand_count = bs->cand_cap = 0;
}

void lo_bs_read_tree_evidence(lo_buildsys *bs, lo_git *git)
{
	lo_git *g = git;
	char *dir = NULL;
	size_t i;
	bool any = false;

	/* only the shapes above: git is opened for those */
	for (i = 0; i < bs->cand_count; i++) {
		const char *name = lo_os_path_last_separator(bs->cands[i].rel);

		name = name ? name + 1 : bs->cands[i].rel;
		if (bs->cands[i].type == LO_FT_LNK ? !is_dev_link(name) : !extension_stem(name))
			bs->cands[i].type = LO_FT_UNKNOWN;
		else
			any = true;
	}
	/* the repository holding the scanned dir, which every candidate is in or under */
	if (asprintf(&dir, "%s/%s", bs->base, bs->below) < 0)
		abort();
	if (any && (g || (lo_git_open(&g, dir) == 0 && g))) {
		for (i = 0; i < bs->cand_count; i++) {
			if (bs->cands[i].type == LO_FT_LNK)
				judge_dev_link(bs, g, bs->cands[i].rel);
			else if (bs->cands[i].type == LO_FT_REG)
				judge_extension(bs, g, bs->cands[i].rel);
		}
		if (g != git)
			lo_git_free(g);
	}
	free(dir);
	cands_free(bs);
}
