/*
 * buildsys_make.c - what a Unix Makefiles tree of CMake records (see
 * buildsys.c for the rule the judge applies).
 *
 * CMake writes every target's outputs into
 * CMakeFiles/<target>.dir/cmake_clean.cmake, and leaves that directory
 * behind when the target goes: a dead target's clean list names outputs
 * nothing builds any more. Which targets live comes from the File API
 * codemodel when there is a fresh one, else from the generator's own
 * lists, rewritten at every generation: CMakeFiles/TargetDirectories.txt
 * and the "Target rules for target" sections of CMakeFiles/Makefile2 (the
 * union of both: a target either names is live). Without any of them, no
 * clean list is judged dead. The configure step's own outputs come from
 * CMAKE_MAKEFILE_PRODUCTS in CMakeFiles/Makefile.cmake, and whether the
 * records are older than the build description from what
 * cmake_check_build_system compares there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "build/buildsys_int.h"
#include "leftover/map.h"
#include "leftover/walk.h"

/* file(REMOVE_RECURSE "a" "b" ...): every quoted string is a path relative to `base`. */
static void read_clean_list(lo_bs_tree *t, const char *file, const char *base,
			    const char *target_dir, bool live)
{
	FILE *f = lo_bs_open_record(file);
	lo_buf s = LO_BUF_INIT;
	const char *by;
	int c;

	if (!f)
		return;
	lo_buf_printf(&s, "%s/cmake_clean.cmake, a live target's clean list", target_dir);
	by = lo_bs_label(t, lo_buf_cstr(&s));
	while ((c = fgetc(f)) != EOF) {
		if (c == '#') { /* comment to end of line */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (c != '"')
			continue;
		lo_buf_clear(&s);
		while ((c = fgetc(f)) != EOF && c != '"') {
			if (c == '\\' && (c = fgetc(f)) == EOF)
				break;
			lo_buf_putc(&s, (char)c);
		}
		/* the foreach over per-language clean rules quotes a pattern, not a path */
		if (!s.len || strchr(lo_buf_cstr(&s), '$'))
			continue;
		if (live)
			lo_bs_mark_produced(t, base, lo_buf_cstr(&s), by);
		else
			lo_bs_mark_past(t, base, lo_buf_cstr(&s), LO_EVIDENCE_CMAKE_CLEAN_LIST, 0, 0,
					0, target_dir);
	}
	lo_buf_dispose(&s);
	fclose(f);
}

/*
 * Where CMake writes a clean list: BASE/CMakeFiles/<target>.dir/cmake_clean.cmake,
 * BASE (the target's build dir, relative, maybe empty) holding the paths it
 * lists. The model's walk found files of that name anywhere; one
 * elsewhere ("CMakeFiles/cmake_clean.cmake", "xCMakeFiles/t.dir/...") is
 * none of CMake's and is skipped. *target_dir is BASE/CMakeFiles/<target>.dir.
 */
static bool clean_list_dirs(const char *relpath, char **target_dir, char **base)
{
	static const char file[] = "/cmake_clean.cmake", cmakefiles[] = "CMakeFiles/";
	size_t len = strlen(relpath), dlen, clen = sizeof(cmakefiles) - 1;
	const char *t, *c;

	if (len <= sizeof(file) - 1)
		return false;
	dlen = len - (sizeof(file) - 1);
	/* <target>.dir is the last component of the file's dir, CMakeFiles the one before */
	for (t = relpath + dlen; t > relpath && t[-1] != '/'; t--)
		;
	if (t == relpath + dlen || (size_t)(t - relpath) < clen)
		return false;
	c = t - clen;
	if (strncmp(c, cmakefiles, clen) || (c > relpath && c[-1] != '/'))
		return false;
	*target_dir = lo_xstrndup(relpath, dlen);
	*base = lo_xstrndup(relpath, c > relpath ? (size_t)(c - relpath) - 1 : 0);
	return true;
}

/*
 * One list of CMakeFiles/Makefile.cmake, `set(KEY` up to its `)`: the
 * plain paths, one quoted a line as CMake writes them (owned, *count of
 * them); *whole false when the file cannot be read, has no such list or
 * ends inside it.
 */
static char **makefile_list(const lo_bs_tree *t, const char *key, size_t *count, bool *whole)
{
	lo_buf p = LO_BUF_INIT;
	char line[8192], **v = NULL;
	size_t klen = strlen(key), cap = 0;
	bool in = false, closed = false;
	FILE *f;

	*count = 0;
	*whole = false;
	lo_buf_printf(&p, "%s/CMakeFiles/Makefile.cmake", t->dir);
	f = lo_bs_open_record(lo_buf_cstr(&p));
	lo_buf_dispose(&p);
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *q, *end;

		if (!strchr(line, '\n') && !feof(f)) { /* longer than any path: skipped whole */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (!in) {
			in = !strncmp(line, "set(", 4) && !strncmp(line + 4, key, klen) &&
			     (line[4 + klen] == '\n' || line[4 + klen] == ' ');
			continue;
		}
		if (line[strspn(line, " \t")] == ')') {
			closed = true;
			break;
		}
		if (!(q = strchr(line, '"')) || !(end = strrchr(q + 1, '"')) || end == q + 1 ||
		    memchr(q + 1, '\\', (size_t)(end - q - 1)) || memchr(q + 1, '$', (size_t)(end - q - 1)))
			continue; /* an escape or a variable: not a plain path, not believed */
		lo_array_grow(&v, &cap, *count + 1, sizeof(char *));
		v[(*count)++] = lo_xstrndup(q + 1, (size_t)(end - q - 1));
	}
	fclose(f);
	*whole = closed;
	return v;
}

/*
 * CMAKE_MAKEFILE_PRODUCTS names what the configure step itself wrote
 * (configure_file outputs), relative to the build dir. They are the
 * current configuration's even where a dead target's clean list names the
 * same path (a generated file moved to configure time). file(COPY) outputs
 * are recorded nowhere; a dead clean list naming one is still believed.
 */
static void read_makefile_products(lo_bs_tree *t)
{
	size_t n, i;
	bool whole;
	char **v = makefile_list(t, "CMAKE_MAKEFILE_PRODUCTS", &n, &whole);

	for (i = 0; i < n; i++)
		lo_bs_mark_produced(t, NULL, v[i],
				    "CMakeFiles/Makefile.cmake (the configure step's outputs)");
	lo_strv_free(v, n);
}

/*
 * What cmake_check_build_system compares before every make: the oldest of
 * CMAKE_MAKEFILE_OUTPUTS (the Makefile, cmake.check_cache) against the
 * newest of CMAKE_MAKEFILE_DEPENDS (CMakeLists.txt, every included
 * *.cmake, CMakeCache.txt), paths relative to the build dir.
 */
static void check_regen(lo_buildsys *bs, lo_bs_tree *t)
{
	size_t nd, no;
	bool dw, ow;
	char **deps = makefile_list(t, "CMAKE_MAKEFILE_DEPENDS", &nd, &dw);
	char **outs = makefile_list(t, "CMAKE_MAKEFILE_OUTPUTS", &no, &ow);

	/* without both lists whole, cmake_check_build_system itself reruns cmake */
	if (!dw || !ow)
		lo_bs_incomplete(bs, t, LO_BS_MAKE, "CMakeFiles/Makefile.cmake cannot be read whole: "
				 "whether the build would regenerate first is not known");
	else
		lo_bs_check_regen(bs, t, (const char *const *)deps, nd, (const char *const *)outs,
				  no);
	lo_strv_free(deps, nd);
	lo_strv_free(outs, no);
}

/*
 * One clean list, `rel` relative to the base, if it is the tree's own (not
 * a nested tree's) and where CMake writes one.
 */
static void read_tree_list(const lo_buildsys *bs, lo_bs_tree *t, const char *rel)
{
	size_t plen = strlen(t->prefix);
	char *target_dir, *base, *abs = NULL;

	if (strncmp(rel, t->prefix, plen) || lo_bs_tree_of(bs, rel) != t ||
	    !clean_list_dirs(rel + plen, &target_dir, &base))
		return;
	if (asprintf(&abs, "%s/%s", t->dir, rel + plen) < 0)
		abort();
	read_clean_list(t, abs, base, target_dir, lo_map_get(t->live_dirs, target_dir, NULL) != NULL);
	free(abs);
	free(base);
	free(target_dir);
}

typedef struct clean_walk {
	const lo_buildsys *bs;
	const lo_bs_tree *t;
	char **files; /* relpaths (to the base) of cmake_clean.cmake files */
	size_t count, cap;
} clean_walk;

static int on_clean_entry(const lo_walk_entry *e, void *payload)
{
	clean_walk *cw = payload;

	if (e->err || strcmp(e->name, "cmake_clean.cmake"))
		return 0;
	lo_array_grow(&cw->files, &cw->cap, cw->count + 1, sizeof(char *));
	if (asprintf(&cw->files[cw->count++], "%s%s", cw->t->prefix, e->relpath) < 0)
		abort();
	return 0;
}

/*
 * A "live target" list: TargetDirectories.txt (one absolute
 * .../CMakeFiles/<t>.dir a line) or Makefile2 ("# Target rules for target
 * sub/CMakeFiles/<t>.dir", relative). False when the file is missing or
 * ends mid-line (cut short: a target might be missing from it).
 */
static bool read_live_list(lo_bs_tree *t, const char *name, const char *lead)
{
	lo_buf p = LO_BUF_INIT;
	char *line = NULL, *rel;
	size_t cap = 0, llen = strlen(lead);
	ssize_t n;
	bool whole = true;
	FILE *f;

	lo_buf_printf(&p, "%s/CMakeFiles/%s", t->dir, name);
	f = lo_bs_open_record(lo_buf_cstr(&p));
	lo_buf_dispose(&p);
	if (!f)
		return false;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] != '\n') {
			whole = false;
			break;
		}
		line[n - 1] = '\0';
		if (strncmp(line, lead, llen) || !(rel = lo_bs_normalise(t, NULL, line + llen)))
			continue;
		lo_map_put(t->live_dirs, rel, (void *)1);
		free(rel);
	}
	free(line);
	fclose(f);
	return whole;
}

void lo_bs_read_make(lo_buildsys *bs, lo_bs_tree *t)
{
	size_t plen = strlen(t->prefix), i;
	bool listed;

	read_makefile_products(t);
	check_regen(bs, t);
	/* both lists, whole, or the codemodel: a live target missing from one would look dead */
	listed = read_live_list(t, "TargetDirectories.txt", "");
	listed = read_live_list(t, "Makefile2", "# Target rules for target ") && listed;
	if (!t->have_codemodel && !listed) {
		lo_bs_incomplete(bs, t, LO_BS_MAKE,
				 "without a File API codemodel or a whole CMakeFiles/TargetDirectories.txt "
				 "and Makefile2, dead Makefile targets cannot be told from live ones");
	} else if (!t->have_codemodel) {
		t->live_from = "CMakeFiles/TargetDirectories.txt and Makefile2";
	}
	if (strlen(bs->below) > plen) { /* the tree holds the scanned dir: walk all of it */
		clean_walk cw = { bs, t, NULL, 0, 0 };

		lo_walk_tree(t->dir, 1, on_clean_entry, &cw);
		for (i = 0; i < cw.count; i++) {
			read_tree_list(bs, t, cw.files[i]);
			free(cw.files[i]);
		}
		free(cw.files);
		return;
	}
	for (i = 0; i < bs->clean_count; i++)
		read_tree_list(bs, t, bs->clean_lists[i]);
}
