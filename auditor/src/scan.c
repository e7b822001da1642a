/*
 * scan.c - from trees to verdicts (see scan.h).
 *
 * Two passes: the walk collects the candidates (names the rules select) and
 * the directories it could not enter; then each candidate is read once,
 * given a kind and a host, and its load is played by the resolver. Reading
 * after the walk keeps the walk a pure listing (cheap, and what the
 * benchmark compares with `find`) and lets every library be cached across
 * candidates.
 *
 * A symlink is reported by its target when the target is a file inside a
 * scanned root (once, however many links point at it), and by its own path
 * when the target is outside, dangling or part of a loop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/map.h"
#include "leftover/resolve.h"
#include "leftover/scan.h"
#include "leftover/walk.h"

/* What the walk found worth a look. */
typedef struct item {
	char *abs;  /* absolute path; owned */
	unsigned char type;
	int err;    /* directory that could not be read */
} item;

typedef struct scan {
	const lo_scan_opts *opts;
	const lo_rules *rules;
	lo_scan_result *res;
	lo_resolver *resolver;
	lo_host *c_host;     /* plain C program, made on first use */
	lo_host *other_host; /* --host */
	lo_map *python_hosts; /* interpreter path -> lo_host* */
	lo_map *reported;     /* "dev:ino" of files already reported */
	char **roots;         /* absolute, owned */
	size_t root_count;
	item *items;
	size_t item_count, item_cap;
	const char *root; /* the root being walked */
} scan;

const char *lo_kind_str(lo_kind k)
{
	switch (k) {
	case LO_KIND_PYTHON_EXTENSION: return "python-extension";
	case LO_KIND_SHARED_LIBRARY: return "shared-library";
	case LO_KIND_OTHER: return "other";
	}
	return "other";
}

const char *lo_verdict_str(lo_verdict v)
{
	switch (v) {
	case LO_VERDICT_OK: return "ok";
	case LO_VERDICT_BROKEN: return "broken";
	case LO_VERDICT_STALE: return "stale";
	case LO_VERDICT_UNREADABLE: return "unreadable";
	case LO_VERDICT_SKIPPED: return "skipped";
	}
	return "unknown";
}

static char *dup_or_null(const char *s)
{
	return s ? lo_xstrdup(s) : NULL;
}

lo_reason *lo_file_add_reason(lo_file *f, const char *kind, const char *symbol,
			      const char *version, const char *library, const char *object,
			      const char *detail)
{
	lo_reason *r;

	lo_array_grow(&f->reasons, &f->reason_cap, f->reason_count + 1, sizeof(*r));
	r = &f->reasons[f->reason_count++];
	r->kind = lo_xstrdup(kind);
	r->symbol = dup_or_null(symbol);
	r->version = dup_or_null(version);
	r->library = dup_or_null(library);
	r->object = dup_or_null(object);
	r->detail = dup_or_null(detail);
	return r;
}

static void host_free(void *h)
{
	lo_host_free(h);
}

void lo_scan_result_free(lo_scan_result *res)
{
	size_t i, j;

	if (!res)
		return;
	for (i = 0; i < res->file_count; i++) {
		lo_file *f = &res->files[i];

		for (j = 0; j < f->reason_count; j++) {
			lo_reason *r = &f->reasons[j];

			free(r->kind);
			free(r->symbol);
			free(r->version);
			free(r->library);
			free(r->object);
			free(r->detail);
		}
		free(f->reasons);
		free(f->path);
		free(f->target);
		free(f->host);
	}
	free(res->files);
	free(res->root);
	free(res);
}

/* ---- hosts --------------------------------------------------------------- */

char *lo_scan_cmake_python(const char *build_dir)
{
	static const char *const vars[] = { "Python3_EXECUTABLE", "Python_EXECUTABLE",
					    "PYTHON_EXECUTABLE" };
	char *found[3] = { NULL, NULL, NULL };
	char line[PATH_MAX + 128];
	lo_buf path = LO_BUF_INIT;
	FILE *f;
	size_t i;

	lo_buf_printf(&path, "%s/CMakeCache.txt", build_dir);
	f = fopen(lo_buf_cstr(&path), "re");
	lo_buf_dispose(&path);
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < 3; i++) {
			size_t n = strlen(vars[i]);
			char *eq, *end;

			/* NAME:TYPE=VALUE */
			if (strncmp(line, vars[i], n) || line[n] != ':' || !(eq = strchr(line, '=')))
				continue;
			end = eq + strlen(eq);
			while (end > eq + 1 && (end[-1] == '\n' || end[-1] == '\r'))
				*--end = '\0';
			if (!found[i] && eq[1] && strstr(eq + 1, "NOTFOUND") == NULL)
				found[i] = lo_xstrdup(eq + 1);
		}
	}
	fclose(f);
	for (i = 0; i < 3 && !found[i]; i++)
		;
	{
		char *best = i < 3 ? found[i] : NULL;
		size_t j;

		for (j = 0; j < 3; j++)
			if (found[j] != best)
				free(found[j]);
		return best;
	}
}

/* `python3` as the shell would find it on PATH; owned, or NULL. */
static char *python_on_path(void)
{
	const char *env = getenv("PATH");
	char *copy, *save = NULL, *dir, *hit = NULL;

	if (!env)
		return NULL;
	copy = lo_xstrdup(env);
	for (dir = strtok_r(copy, ":", &save); dir && !hit; dir = strtok_r(NULL, ":", &save)) {
		lo_buf b = LO_BUF_INIT;

		lo_buf_printf(&b, "%s/python3", *dir ? dir : ".");
		if (access(lo_buf_cstr(&b), X_OK) == 0)
			hit = lo_buf_detach(&b);
		lo_buf_dispose(&b);
	}
	free(copy);
	return hit;
}

char *lo_scan_python_for(const char *given, const char *dir)
{
	char *d, *p = NULL;

	if (given)
		return lo_xstrdup(given);
	/* a scan of a subdirectory of the build tree still finds its cache */
	for (d = lo_xstrdup(dir); !p; ) {
		char *slash;

		if ((p = lo_scan_cmake_python(d)) || !(slash = strrchr(d, '/')) || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return p ? p : python_on_path();
}

static int host_get(scan *s, lo_kind kind, const char *root, const lo_host **out)
{
	lo_host *h;
	char *program;
	int err;

	if (kind != LO_KIND_PYTHON_EXTENSION) {
		lo_host **slot = s->opts && s->opts->host ? &s->other_host : &s->c_host;

		if (!*slot && (err = lo_host_new(slot, s->resolver,
						   s->opts && s->opts->host ? s->opts->host : NULL)) < 0)
			return err;
		*out = *slot;
		return 0;
	}
	if (!(program = lo_scan_python_for(s->opts ? s->opts->python : NULL, root)))
		return lo_error_set(LO_ENOTFOUND, "no Python interpreter for the extension modules "
				    "under '%s': none in CMakeCache.txt, none on PATH; name one "
				    "with --python", root);
	if (!(h = lo_map_get(s->python_hosts, program, NULL))) {
		if ((err = lo_host_new(&h, s->resolver, program)) < 0) {
			char *msg = lo_xstrdup(lo_error_last());

			err = lo_error_set(err, "%s; name the interpreter with --python", msg);
			free(msg);
			free(program);
			return err;
		}
		lo_map_put(s->python_hosts, program, h);
	}
	free(program);
	*out = h;
	return 0;
}

/* ---- the walk -------------------------------------------------------------- */

static void add_item(scan *s, const char *rel, unsigned char type, int err)
{
	item *it;

	lo_array_grow(&s->items, &s->item_cap, s->item_count + 1, sizeof(*it));
	it = &s->items[s->item_count++];
	it->abs = NULL;
	if (asprintf(&it->abs, "%s/%s", s->root, rel) < 0)
		abort();
	it->type = type;
	it->err = err;
}

static int on_entry(const lo_walk_entry *e, void *payload)
{
	scan *s = payload;

	if (e->err)
		add_item(s, e->relpath, e->type, e->err);
	else if (lo_rules_is_candidate(s->rules, e->relpath))
		add_item(s, e->relpath, e->type, 0);
	return 0;
}

/* ---- judging one file ---------------------------------------------------- */

static lo_file *new_file(scan *s, const char *abs)
{
	lo_scan_result *res = s->res;
	lo_file *f;
	size_t rlen = strlen(res->root);

	lo_array_grow(&res->files, &res->file_cap, res->file_count + 1, sizeof(*f));
	f = &res->files[res->file_count++];
	memset(f, 0, sizeof(*f));
	if (!strncmp(abs, res->root, rlen) && abs[rlen] == '/')
		f->path = lo_xstrdup(abs + rlen + 1);
	else if (!strcmp(res->root, "/"))
		f->path = lo_xstrdup(abs + 1);
	else
		f->path = lo_xstrdup(abs);
	f->kind = LO_KIND_OTHER;
	f->loads = LO_UNKNOWN;
	f->orphan = LO_UNKNOWN;
	f->verdict = LO_VERDICT_OK;
	return f;
}

/* A path as reasons show it: relative to the result's root when inside. */
static const char *rel_to_root(const scan *s, const char *abs)
{
	size_t rlen = strlen(s->res->root);

	if (abs && !strncmp(abs, s->res->root, rlen) && abs[rlen] == '/')
		return abs + rlen + 1;
	return abs;
}

static bool under_roots(const scan *s, const char *abs)
{
	size_t i;

	for (i = 0; i < s->root_count; i++) {
		size_t n = strlen(s->roots[i]);

		if (!strncmp(abs, s->roots[i], n) && (abs[n] == '/' || !strcmp(s->roots[i], "/")))
			return true;
	}
	return false;
}

/* CPython's extension suffixes: .cpython-311-x86_64-linux-gnu.so, .abi3.so, .pyd. */
static bool python_suffix(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 4 && !strcmp(base + n - 4, ".pyd"))
		return true;
	if (n > 8 && !strcmp(base + n - 8, ".abi3.so"))
		return true;
	return strstr(base, ".cpython-") != NULL && n > 3 && !strcmp(base + n - 3, ".so");
}

/*
 * CPython imports `name.<suffix>` by calling PyInit_<name>, name being the
 * file name up to its first dot: a module without a CPython suffix (a plain
 * `_foo.so`) is still known by that export.
 */
static bool python_init_export(const lo_elf *e, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, ".");
	char sym[NAME_MAX + 8];

	if (!lo_elf_is_native(e) || n == 0 || n > NAME_MAX)
		return false;
	snprintf(sym, sizeof(sym), "PyInit_%.*s", (int)n, base);
	return lo_elf_exports(e, sym);
}

lo_kind lo_scan_kind_of(const lo_elf *e, const char *path)
{
	if (lo_elf_type(e) != ET_DYN || lo_elf_is_pie(e))
		return LO_KIND_OTHER;
	if (python_suffix(path) || python_init_export(e, path))
		return LO_KIND_PYTHON_EXTENSION;
	return LO_KIND_SHARED_LIBRARY;
}

static bool is_linker_script(const char *abs)
{
	char head[256];
	ssize_t n;
	int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n <= 0)
		return false;
	head[n] = '\0';
	return strstr(head, "GNU ld script") || strstr(head, "INPUT(") || strstr(head, "GROUP(");
}

static int judge_elf(scan *s, lo_file *f, const char *abs, const char *root)
{
	const lo_elf *e;
	const lo_host *host = NULL;
	lo_load *load;
	size_t i;
	int err = lo_resolver_read(s->resolver, abs, &e);

	if (err == LO_ENOTELF) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL,
				   is_linker_script(abs) ? "a GNU ld script, read by the linker only"
							 : "not an ELF object");
		return 0;
	}
	if (err < 0) {
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, "unreadable", NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->kind = lo_scan_kind_of(e, abs);
	if (f->kind == LO_KIND_OTHER) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-loadable", NULL, NULL, NULL, NULL,
				   lo_elf_type(e) == ET_REL ? "a relocatable object, not a shared object"
							    : "an executable, which dlopen refuses");
		return 0;
	}
	if ((err = host_get(s, f->kind, root, &host)) < 0)
		return err;
	if (f->kind == LO_KIND_PYTHON_EXTENSION || (s->opts && s->opts->host))
		f->host = lo_xstrdup(lo_host_name(host));
	lo_load_simulate(&load, s->resolver, host, abs, 0, NULL, NULL);
	for (i = 0; i < lo_load_problem_count(load); i++) {
		const lo_problem *p = lo_load_problem_at(load, i);

		lo_file_add_reason(f, lo_problem_kind_str(p->kind), p->symbol, p->version,
				   p->library ? rel_to_root(s, p->library) : NULL,
				   rel_to_root(s, p->object), p->detail);
	}
	f->loads = lo_load_ok(load) ? LO_TRUE : LO_FALSE;
	f->verdict = f->loads == LO_TRUE ? LO_VERDICT_OK : LO_VERDICT_BROKEN;
	lo_load_free(load);
	return 0;
}

static int judge_link(scan *s, const item *it, const char *root)
{
	char *target = realpath(it->abs, NULL);
	struct stat st;
	lo_file *f;
	char key[64];
	int err;

	if (!target) {
		char buf[PATH_MAX];
		ssize_t n = readlink(it->abs, buf, sizeof(buf) - 1);
		int why = errno;

		f = new_file(s, it->abs);
		buf[n > 0 ? n : 0] = '\0';
		f->target = lo_xstrdup(buf);
		f->loads = LO_FALSE;
		f->verdict = LO_VERDICT_BROKEN;
		lo_file_add_reason(f, why == ELOOP ? "symlink-loop" : "dangling-symlink", NULL, NULL,
				   NULL, NULL,
				   why == ELOOP ? "too many levels of symbolic links"
						: "the link points to nothing");
		return 0;
	}
	if (stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
		snprintf(key, sizeof(key), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		if (lo_map_get(s->reported, key, NULL)) {
			free(target);
			return 0;
		}
		lo_map_put(s->reported, key, s);
	}
	if (under_roots(s, target)) {
		/* reported by its target; a target the walk also found is judged once */
		f = new_file(s, target);
	} else {
		f = new_file(s, it->abs);
		f->target = lo_xstrdup(target);
	}
	if (!S_ISREG(st.st_mode)) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL, "not a regular file");
		free(target);
		return 0;
	}
	err = judge_elf(s, f, under_roots(s, target) ? target : it->abs, root);
	free(target);
	return err;
}

static int judge_item(scan *s, const item *it, const char *root)
{
	struct stat st;
	lo_file *f;
	char key[64];

	if (it->err) {
		f = new_file(s, it->abs);
		f->verdict = LO_VERDICT_UNREADABLE;
		lo_file_add_reason(f, "unreadable", NULL, NULL, NULL, NULL, strerror(it->err));
		return 0;
	}
	if (it->type == DT_LNK)
		return judge_link(s, it, root);
	if (lstat(it->abs, &st) == 0 && S_ISREG(st.st_mode)) {
		snprintf(key, sizeof(key), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		if (lo_map_get(s->reported, key, NULL))
			return 0;
		lo_map_put(s->reported, key, s);
	}
	f = new_file(s, it->abs);
	if (it->type != DT_REG) {
		f->verdict = LO_VERDICT_SKIPPED;
		lo_file_add_reason(f, "not-elf", NULL, NULL, NULL, NULL, "not a regular file");
		return 0;
	}
	return judge_elf(s, f, it->abs, root);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const lo_file *)a)->path, ((const lo_file *)b)->path);
}

/* The deepest directory containing every root. */
static char *common_root(char *const *roots, size_t n)
{
	size_t len = strlen(roots[0]), i;

	for (i = 1; i < n; i++) {
		size_t j = 0;

		while (j < len && roots[i][j] == roots[0][j])
			j++;
		if (j < len || (roots[i][j] != '/' && roots[i][j] != '\0')) {
			while (j > 0 && roots[0][j] != '/')
				j--;
			len = j;
		}
	}
	return len ? lo_xstrndup(roots[0], len) : lo_xstrdup("/");
}

static void scan_dispose(scan *s)
{
	size_t i;

	for (i = 0; i < s->item_count; i++)
		free(s->items[i].abs);
	free(s->items);
	for (i = 0; i < s->root_count; i++)
		free(s->roots[i]);
	free(s->roots);
	lo_map_free(s->python_hosts, host_free);
	lo_map_free(s->reported, NULL);
	lo_host_free(s->c_host);
	lo_host_free(s->other_host);
	lo_resolver_free(s->resolver);
}

int lo_scan_run(lo_scan_result **out, const char *const *roots, size_t root_count,
		const lo_scan_opts *opts)
{
	scan s;
	lo_rules *own_rules = NULL;
	lo_resolver_opts ropts;
	size_t i, j, first;
	int err = 0;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	s.opts = opts;
	if (!root_count)
		return lo_error_set(LO_EUSAGE, "no directory to scan");
	s.roots = lo_xcalloc(root_count, sizeof(char *));
	for (i = 0; i < root_count; i++) {
		struct stat st;

		if (!(s.roots[i] = realpath(roots[i], NULL))) {
			err = lo_error_set_errno(LO_ERROR, errno, "cannot scan '%s'", roots[i]);
			goto out;
		}
		s.root_count++;
		if (stat(s.roots[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			err = lo_error_set(LO_ERROR, "cannot scan '%s': not a directory", roots[i]);
			goto out;
		}
	}
	if (opts && opts->rules) {
		s.rules = opts->rules;
	} else {
		if ((err = lo_rules_load(&own_rules, NULL, 0)) < 0)
			goto out;
		s.rules = own_rules;
	}
	memset(&ropts, 0, sizeof(ropts));
	if (opts) {
		ropts.library_path = opts->library_path;
		ropts.library_path_count = opts->library_path_count;
	}
	lo_resolver_new(&s.resolver, &ropts);
	s.python_hosts = lo_map_new();
	s.reported = lo_map_new();
	s.res = lo_xcalloc(1, sizeof(*s.res));
	s.res->root = common_root(s.roots, s.root_count);

	for (i = 0; i < s.root_count; i++) {
		s.root = s.roots[i];
		first = s.item_count;
		if ((err = lo_walk_tree(s.root, on_entry, &s)) < 0)
			goto out;
		for (j = first; j < s.item_count; j++)
			if ((err = judge_item(&s, &s.items[j], s.root)) < 0)
				goto out;
	}
	qsort(s.res->files, s.res->file_count, sizeof(lo_file), cmp_file);
	for (i = 0; i < s.res->file_count; i++)
		s.res->summary.by_verdict[s.res->files[i].verdict]++;
	s.res->summary.files = s.res->file_count;
	*out = s.res;
	s.res = NULL;
out:
	lo_scan_result_free(s.res);
	lo_rules_free(own_rules);
	scan_dispose(&s);
	return err;
}
