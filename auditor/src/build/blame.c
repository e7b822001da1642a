/*
 * blame.c - an artifact's history and the repository file behind it
 * (blame.h): CMakeCache.txt names the source, the last scan's record or
 * git's reflog the commit the tree was built at, git the changes since,
 * and the artifact's file name the needle looked for in them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/blame.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/origin.h"
#include "leftover/os.h"
#include "leftover/scan.h"

/* "_mlirRegisterEverything" for _mlirRegisterEverything.cpython-311-...so, "foo" for libfoo.so.1. */
static char *target_name(const char *abs)
{
	const char *base = lo_os_path_last_separator(abs) ? lo_os_path_last_separator(abs) + 1 : abs;

	if (!strncmp(base, "lib", 3) && base[3] && base[3] != '.')
		base += 3;
	return lo_xstrndup(base, strcspn(base, "."));
}

/* Characters in the UTF-8 bytes s[0..len): SARIF's columns count code points. */
static unsigned code_points(const char *s, ssize_t len)
{
	unsigned n = 0;
	ssize_t i;

	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* The first line of repo/file containing `name`, and its length; line 1 when none does. */
static void find_line(lo_blame *b, const char *name)
{
	lo_buf path = LO_BUF_INIT;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned n = 0;

	b->line = 1;
	lo_buf_printf(&path, "%s%s", b->repo, b->file);
	if (!(f = fopen(lo_buf_cstr(&path), "r")))
		goto out;
	while ((len = getline(&line, &cap, f)) >= 0) {
		bool first = ++n == 1;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		line[len] = '\0';
		if (first)
			b->line_length = code_points(line, len);
		if (*name && strstr(line, name)) {
			b->line = n;
			b->line_length = code_points(line, len);
			break;
		}
	}
	fclose(f);
out:
	free(line);
	lo_buf_dispose(&path);
}

/*
 * HEAD now; the commit the tree was built at, by the last scan's record or
 * else by the reflog at the time the file was written; what changed since
 * and which commit dropped the file's target. A tree built at HEAD gets
 * nothing past HEAD.
 */
static void find_history(lo_blame *b, const lo_git *g, const char *abs)
{
	struct stat st;

	if (!*lo_git_commit(g))
		return;
	b->head = lo_xstrdup(lo_git_commit(g));
	b->head_branch = lo_xstrdup(lo_git_branch(g));
	if ((b->built = lo_origin_built_at(b->build_dir, b->head, &b->built_branch))) {
		b->built_by = "the last scan";
	} else if (stat(abs, &st) == 0 &&
		   lo_git_head_at(g, st.st_mtime, &b->built, &b->built_branch) == 0 && b->built) {
		b->built_by = "git's reflog";
	}
	if (!b->built || !strcmp(b->built, b->head)) {
		free(b->built);
		free(b->built_branch);
		b->built = b->built_branch = NULL;
		return;
	}
	b->name = target_name(abs);
	if (!*b->name ||
	    lo_git_changed_mentioning(g, b->built, b->head, b->name, &b->changed, &b->changed_count) < 0)
		return;
	lo_git_dropped(g, b->built, b->head, b->name, &b->drop);
}

/* The file a CI report points at: what dropped the artifact, else what changed, else the top. */
static void find_file(lo_blame *b, const char *abs, const char *real_source)
{
	/* repo is a prefix of real_source + '/': git was found above the source */
	const char *below = real_source + strlen(b->repo) - 1; /* "" or "/sub" */
	char *name = target_name(abs);

	if (b->drop.commit && b->drop.path_count)
		b->file = lo_xstrdup(b->drop.paths[0]);
	else if (b->changed_count)
		b->file = lo_xstrdup(b->changed[0]);
	else if (asprintf(&b->file, "%s%sCMakeLists.txt", *below ? below + 1 : "", *below ? "/" : "") < 0)
		b->file = lo_xstrdup("CMakeLists.txt");
	find_line(b, name);
	free(name);
}

lo_blame *lo_blame_new(const char *abs)
{
	char *dir = lo_xstrdup(abs), *slash, *source = NULL, *real;
	lo_blame *b;
	lo_git *g = NULL;

	/* the nearest directory above the file with a CMakeCache.txt */
	while ((slash = lo_os_path_last_separator(dir)) && slash != dir) {
		*slash = '\0';
		if ((source = lo_buildsys_cache_value(dir, "CMAKE_HOME_DIRECTORY")))
			break;
	}
	if (!source || !(real = realpath(source, NULL))) {
		free(source);
		free(dir);
		return NULL;
	}
	b = lo_xcalloc(1, sizeof(*b));
	b->build_dir = dir;
	b->source = source;
	if (lo_git_open(&g, real) == 0 && g) {
		b->repo = lo_xstrdup(lo_git_workdir(g));
		find_history(b, g, abs);
		lo_git_free(g);
	} else if (asprintf(&b->repo, "%s/", real) < 0) {
		b->repo = lo_xstrdup("/");
	}
	find_file(b, abs, real);
	free(real);
	return b;
}

void lo_blame_free(lo_blame *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->changed_count; i++)
		free(b->changed[i]);
	free(b->changed);
	lo_git_drop_dispose(&b->drop);
	free(b->build_dir);
	free(b->source);
	free(b->repo);
	free(b->head);
	free(b->head_branch);
	free(b->built);
	free(b->built_branch);
	free(b->name);
	free(b->file);
	free(b);
}
