/*
 * infer.c - the host of a plugin no rule names, found by what it exports
 * (hosts.h, lo_hosts_infer).
 *
 * A plugin takes from its program what the program exports: zsh's modules
 * call handlefeatures() in /usr/bin/zsh, Wine's Unix libraries need
 * ntdll.so, which Wine's loader maps before them, a project's plugins call
 * the API its own executable exports (CMake's ENABLE_EXPORTS, -rdynamic).
 * Judged from a plain C program, every one of them is broken. The rules
 * name the hosts of well-known families; any other program is found here,
 * where it usually is: in the build tree beside its plugins, or installed
 * under the name of the directory its plugins live in.
 *
 * A guess must never hide a real failure, so a candidate counts only when
 * the object's load from it binds every symbol and finds every library
 * that was missing; that load, whatever else fails in it, is then the
 * object's verdict. Candidates are found once per directory and only read:
 * a program in a scanned tree is never run (docs/security.md), and one
 * installed on the system need not be, its exports being in its file.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/elf_format.h"
#include "leftover/error.h"
#include "leftover/lock.h"
#include "leftover/map.h"
#include "leftover/os.h"
#include "hosts/hosts_int.h"

/* Libraries beside an object that are looked at for what its program lacks. */
#define LIBS_MAX 64
/* Directories above an object whose names may name its program. */
#define NAMES_MAX 4
/* Entries of one directory read when listing candidates. */
#define ENTRIES_MAX 4096

/* Where installed programs are: the system's PATH, whatever the user's is. */
static const char *const program_dirs[] = {
	"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/games",
};

/* Where a program keeps programs of its own, named after it (/usr/lib/wine/wine64). */
static const char *const private_dirs[] = { "/usr/lib", "/usr/libexec" };

/* The candidates of one directory. */
typedef struct candidates {
	char **programs; /* absolute paths, in the order they are tried */
	char **from;     /* per program: how it was found, for the report */
	size_t program_count, program_cap, from_cap;
	size_t tree_count; /* the first programs, the build tree's own */
	char **libs;     /* libraries beside the directory's objects, by name */
	size_t lib_count, lib_cap;
} candidates;

struct lo_hosts_guesses {
	lo_resolver *r;
	pthread_mutex_t lock; /* guards by_dir */
	lo_map *by_dir;       /* directory -> candidates */
};

static void candidates_free(void *p)
{
	candidates *c = p;

	lo_strv_free(c->programs, c->program_count);
	lo_strv_free(c->from, c->program_count);
	lo_strv_free(c->libs, c->lib_count);
	free(c);
}

lo_hosts_guesses *lo_hosts_guesses_new(lo_resolver *r)
{
	lo_hosts_guesses *in = lo_xcalloc(1, sizeof(*in));

	in->r = r;
	lo_lock_init(&in->lock);
	in->by_dir = lo_map_new();
	return in;
}

void lo_hosts_guesses_free(lo_hosts_guesses *in)
{
	if (!in)
		return;
	lo_map_free(in->by_dir, candidates_free);
	pthread_mutex_destroy(&in->lock);
	free(in);
}

void lo_hosts_inferred_dispose(lo_hosts_inferred *in)
{
	lo_load_free(in->load);
	free(in->host);
	free(in->why);
	memset(in, 0, sizeof(*in));
}

/* Add `path` as a program to try, found as `from` says, while there is room. */
static void add_program(candidates *c, const char *path, const char *from)
{
	size_t i;

	if (c->program_count >= LO_HOSTS_INFER_PROGRAMS)
		return;
	for (i = 0; i < c->program_count; i++)
		if (!strcmp(c->programs[i], path))
			return;
	lo_array_grow(&c->programs, &c->program_cap, c->program_count + 1, sizeof(char *));
	lo_array_grow(&c->from, &c->from_cap, c->program_count + 1, sizeof(char *));
	c->programs[c->program_count] = lo_xstrdup(path);
	c->from[c->program_count++] = lo_xstrdup(from);
}

/* Is `path` a regular file someone may execute (a program, or a script)? */
static bool executable_file(const char *path)
{
	struct stat st;
	bool there = stat(path, &st) == 0;

	lo_deps_note_stat(path, there ? &st : NULL); /* made a program later: deps.h */
	return there && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* Does `name` look like a shared library's (x.so, x.so.1)? */
static bool library_named(const char *name)
{
	const char *so = strstr(name, ".so");

	return so && (!so[3] || so[3] == '.');
}

/*
 * The entries of `dir` that `want` takes (with `arg`), sorted by name,
 * at most ENTRIES_MAX looked at; *n of them, owned.
 */
static char **list_dir(const char *dir, bool (*want)(const char *path, const char *name,
						     const char *arg),
		       const char *arg, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **out = NULL;
	size_t cap = 0, seen = 0;

	*n = 0;
	lo_deps_note_path(dir); /* its names are read, for every verdict: deps.h */
	if (!d)
		return NULL;
	while ((de = readdir(d)) && seen++ < ENTRIES_MAX) {
		char *path = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			abort();
		/* names in a directory are unique: no search of those kept */
		if (want(path, de->d_name, arg)) {
			lo_array_grow(&out, &cap, *n + 1, sizeof(*out));
			out[(*n)++] = path;
		} else {
			free(path);
		}
	}
	closedir(d);
	lo_strv_sort(out, *n);
	return out;
}

/* A program of a build tree: an executable file not named as a library (read later). */
static bool tree_program(const char *path, const char *name, const char *arg)
{
	(void)arg;
	return !library_named(name) && executable_file(path);
}

/* A private program named after `prefix` (wine64 in /usr/lib/wine). */
static bool named_program(const char *path, const char *name, const char *prefix)
{
	return !strncmp(name, prefix, strlen(prefix)) && !library_named(name) &&
	       executable_file(path);
}

static bool beside_library(const char *path, const char *name, const char *arg)
{
	struct stat st;

	bool there;

	(void)arg;
	if (!library_named(name))
		return false;
	if (!lo_deps_recording())
		return stat(path, &st) == 0 && S_ISREG(st.st_mode);
	/* the directory's note tells a name gone or made anew; a link's target is noted */
	if (lstat(path, &st) < 0)
		return false;
	if (!S_ISLNK(st.st_mode))
		return S_ISREG(st.st_mode);
	there = stat(path, &st) == 0;
	lo_deps_note_stat(path, there ? &st : NULL);
	return there && S_ISREG(st.st_mode);
}

/* Add the programs of `dir` that `want` takes. */
static void add_listed(candidates *c, const char *dir,
		       bool (*want)(const char *, const char *, const char *), const char *arg,
		       const char *from)
{
	size_t i, n;
	char **paths = list_dir(dir, want, arg, &n);

	for (i = 0; i < n; i++)
		add_program(c, paths[i], from);
	lo_strv_free(paths, n);
}

/*
 * The programs of the build tree in `dir` that export their own functions
 * (main among them: -rdynamic, CMake's ENABLE_EXPORTS), as plugins' hosts
 * do; the tree's other programs (its tests, its tools) take no room.
 */
static void add_exporting(candidates *c, lo_resolver *r, const char *dir)
{
	size_t i, n;
	char **paths = list_dir(dir, tree_program, NULL, &n);
	const lo_elf *e;

	for (i = 0; i < n; i++)
		if (lo_resolver_read(r, paths[i], &e) == 0 &&
		    (lo_elf_type(e) == LO_ET_EXEC || lo_elf_is_pie(e)) && lo_elf_exports(e, "main"))
			add_program(c, paths[i], "an executable of the build tree");
	lo_strv_free(paths, n);
}

/*
 * The build tree's own programs: in `dir`, in each directory above it up to
 * `top`, and in each one's bin/, nearest first.
 */
static void add_tree_programs(candidates *c, lo_resolver *r, const char *dir, const char *top)
{
	size_t tlen = strlen(top);
	char *d = lo_xstrdup(dir), *bin = NULL;

	while (!strncmp(d, top, tlen) && (d[tlen] == '/' || !d[tlen])) {
		char *slash;

		add_exporting(c, r, d);
		if (asprintf(&bin, "%s/bin", d) < 0)
			abort();
		add_exporting(c, r, bin);
		free(bin);
		if (!d[tlen] || !(slash = lo_os_path_last_separator(d)))
			break;
		*slash = '\0';
	}
	free(d);
}

/* The installed programs named like the directories holding `dir`, nearest first. */
static void add_named_programs(candidates *c, lo_resolver *r, const char *dir)
{
	char *d = lo_xstrdup(dir), *slash, *path = NULL, *from = NULL;
	size_t level, i;

	for (level = 0; level < NAMES_MAX && (slash = lo_os_path_last_separator(d)) && slash[1]; level++) {
		const char *name = slash + 1;

		if (asprintf(&from, "a program named like the directory '%s'", name) < 0)
			abort();
		for (i = 0; i < sizeof(program_dirs) / sizeof(*program_dirs); i++) {
			if (asprintf(&path, "%s/%s", program_dirs[i], name) < 0)
				abort();
			lo_deps_note_path(path); /* installed later: deps.h */
			if (lo_resolver_has_file(r, path))
				add_program(c, path, from);
			free(path);
		}
		for (i = 0; i < sizeof(private_dirs) / sizeof(*private_dirs); i++) {
			if (asprintf(&path, "%s/%s", private_dirs[i], name) < 0)
				abort();
			add_listed(c, path, named_program, name, from);
			free(path);
		}
		free(from);
		*slash = '\0';
	}
	free(d);
}

/* The candidates of `dir` (in the build tree `top`, or NULL), listed once per scan. */
static const candidates *candidates_of(lo_hosts_guesses *in, const char *dir, const char *top)
{
	candidates *c;

	pthread_mutex_lock(&in->lock);
	c = lo_map_get(in->by_dir, dir, NULL);
	if (!c) {
		size_t n;

		c = lo_xcalloc(1, sizeof(*c));
		if (top)
			add_tree_programs(c, in->r, dir, top);
		c->tree_count = c->program_count;
		add_named_programs(c, in->r, dir);
		c->libs = list_dir(dir, beside_library, NULL, &n);
		c->lib_count = n < LIBS_MAX ? n : LIBS_MAX;
		for (; n > c->lib_count; n--)
			free(c->libs[n - 1]);
		lo_map_put(in->by_dir, dir, c);
	}
	pthread_mutex_unlock(&in->lock);
	return c;
}

/* What the object's load from its default host missed that a program could give. */
typedef struct missing {
	const char **symbols; /* its own undefined symbols; borrowed from the load */
	size_t symbol_count, symbol_cap;
	const char **libs;    /* the libraries it needs that lie beside it, unfound */
	size_t lib_count, lib_cap;
} missing;

static void missing_dispose(missing *m)
{
	free(m->symbols);
	free(m->libs);
}

/*
 * What `plain`'s problems, for the object at `abs` in `dir`, say it lacks:
 * false when something else failed too, which no program can mend.
 */
static bool missing_of(lo_resolver *r, const lo_load *plain, const char *abs, const char *dir,
		       missing *m)
{
	size_t i;

	for (i = 0; i < lo_load_problem_count(plain); i++) {
		const lo_problem *p = lo_load_problem_at(plain, i);
		char *at = NULL;
		bool beside;

		if (!p->object || strcmp(p->object, abs))
			return false;
		if (p->kind == LO_PROBLEM_UNDEFINED_SYMBOL && p->symbol) {
			lo_array_grow(&m->symbols, &m->symbol_cap, m->symbol_count + 1,
				      sizeof(char *));
			m->symbols[m->symbol_count++] = p->symbol;
			continue;
		}
		if (p->kind != LO_PROBLEM_MISSING_LIBRARY || !p->library ||
		    strchr(p->library, '/'))
			return false;
		if (asprintf(&at, "%s/%s", dir, p->library) < 0)
			abort();
		beside = lo_resolver_has_file(r, at);
		free(at);
		if (!beside)
			return false;
		lo_array_grow(&m->libs, &m->lib_cap, m->lib_count + 1, sizeof(char *));
		m->libs[m->lib_count++] = p->library;
	}
	return m->symbol_count || m->lib_count;
}

/* Does the object at `path` export `sym`? */
static bool exports(lo_resolver *r, const char *path, const char *sym)
{
	const lo_elf *e;

	return lo_resolver_read(r, path, &e) == 0 && lo_elf_exports(e, sym);
}

/* The libraries a program is taken to have loaded first, in the order it loads them. */
typedef struct preloads {
	lo_resolver *r;
	const candidates *c;
	const char *abs, *prog;
	char **out; /* owned paths */
	size_t n, cap;
	char **seen; /* every library looked at, so that each is, once */
	size_t seen_count, seen_cap;
} preloads;

/* Does `prog` or a library already in `pre` define `ref`? */
static bool preloaded(const preloads *pre, const lo_elf_undef *ref)
{
	const lo_elf *e;
	size_t i;

	if (lo_resolver_read(pre->r, pre->prog, &e) == 0 && lo_elf_defines(e, ref))
		return true;
	for (i = 0; i < pre->n; i++)
		if (lo_resolver_read(pre->r, pre->out[i], &e) == 0 && lo_elf_defines(e, ref))
			return true;
	return false;
}

/* The first library beside the object, not the object itself, that defines `ref`. */
static const char *provider(const preloads *pre, const lo_elf_undef *ref)
{
	const lo_elf *e;
	size_t j;

	for (j = 0; j < pre->c->lib_count; j++)
		if (strcmp(pre->c->libs[j], pre->abs) &&
		    lo_resolver_read(pre->r, pre->c->libs[j], &e) == 0 && lo_elf_defines(e, ref))
			return pre->c->libs[j];
	return NULL;
}

/*
 * Add the library at `path`, after the libraries beside it that it takes
 * symbols from: a program loads a module's dependencies before it (zsh
 * loads zle.so before complete.so, which needs zle's clwords at once).
 * Each library is looked at once, however they need each other.
 */
static void add_preload(preloads *pre, const char *path)
{
	const lo_elf *e;
	lo_elf_undef ref;
	size_t cursor = 0, i;

	for (i = 0; i < pre->seen_count; i++)
		if (!strcmp(pre->seen[i], path))
			return;
	lo_strv_add_unique(&pre->seen, &pre->seen_count, &pre->seen_cap, path);
	while (lo_resolver_read(pre->r, path, &e) == 0 && lo_elf_undef_next(e, &cursor, &ref)) {
		const char *from;

		if (!ref.weak && !preloaded(pre, &ref) && (from = provider(pre, &ref)) &&
		    strcmp(from, path))
			add_preload(pre, from);
	}
	lo_strv_add_unique(&pre->out, &pre->n, &pre->cap, path);
}

/*
 * The libraries beside the object (`abs`) that `prog` is taken to have
 * loaded first: the missing ones it needs, then, for each symbol neither
 * `prog` nor those export, the first beside it that does; each after what
 * it takes from the others. Owned paths, *n.
 */
static char **preloads_for(lo_resolver *r, const candidates *c, const char *dir,
			   const char *abs, const char *prog, const missing *m, size_t *n)
{
	preloads pre = { .r = r, .c = c, .abs = abs, .prog = prog };
	char *path = NULL;
	size_t i, k;

	for (i = 0; i < m->lib_count; i++) {
		if (asprintf(&path, "%s/%s", dir, m->libs[i]) < 0)
			abort();
		add_preload(&pre, path);
		free(path);
	}
	for (i = 0; i < m->symbol_count; i++) {
		const char *sym = m->symbols[i];
		bool found = exports(r, prog, sym);
		size_t j;

		for (k = 0; !found && k < pre.n; k++)
			found = exports(r, pre.out[k], sym);
		for (j = 0; !found && j < c->lib_count; j++)
			if (strcmp(c->libs[j], abs) && (found = exports(r, c->libs[j], sym)))
				add_preload(&pre, c->libs[j]);
	}
	lo_strv_free(pre.seen, pre.seen_count);
	*n = pre.n;
	return pre.out;
}

/* Is `prog` an executable of the object's machine that gives it something? */
static const char *unfit(lo_resolver *r, const char *prog, const lo_elf *e, const missing *m)
{
	const lo_elf *pe;
	size_t i;

	if (lo_resolver_read(r, prog, &pe) < 0)
		return "not an ELF program";
	if (lo_elf_type(pe) != LO_ET_EXEC && !lo_elf_is_pie(pe))
		return "not an executable";
	if (lo_target_of(pe) != lo_target_of(e))
		return "a program of another machine";
	if (m->lib_count)
		return NULL;
	for (i = 0; i < m->symbol_count; i++)
		if (lo_elf_exports(pe, m->symbols[i]))
			return NULL;
	return "exports none of them";
}

/*
 * How many of m's symbols and libraries `load` still misses; *first: the
 * first of them.
 */
static size_t still_missing(const lo_load *load, const char *abs, const missing *m,
			    const char **first)
{
	size_t i, j, n = 0;

	*first = NULL;
	for (i = 0; i < lo_load_problem_count(load); i++) {
		const lo_problem *p = lo_load_problem_at(load, i);
		const char *name = p->kind == LO_PROBLEM_UNDEFINED_SYMBOL ? p->symbol
				 : p->kind == LO_PROBLEM_MISSING_LIBRARY  ? p->library
									  : NULL;
		const char *const *of = p->kind == LO_PROBLEM_UNDEFINED_SYMBOL ? m->symbols : m->libs;
		size_t count = p->kind == LO_PROBLEM_UNDEFINED_SYMBOL ? m->symbol_count
								      : m->lib_count;

		if (!name || !p->object || strcmp(p->object, abs))
			continue;
		for (j = 0; j < count; j++)
			if (!strcmp(name, of[j])) {
				if (!n++)
					*first = name;
				break;
			}
	}
	return n;
}

/* The report's sentence on a host inferred: which, how found, what it gives. */
static char *why_inferred(const char *prog, const char *from, const missing *m, size_t left,
			  char *const *pre, size_t npre)
{
	lo_buf b = LO_BUF_INIT;
	size_t i, total = m->symbol_count + m->lib_count;

	lo_buf_printf(&b, "inferred from what it lacks: '%s' (%s) provides", prog, from);
	if (left)
		lo_buf_printf(&b, " %zu of the %zu %s it lacks, the most of the tree's programs",
			      total - left, total,
			      !m->lib_count ? "symbols" : m->symbol_count ? "symbols and libraries"
								   : "libraries");
	else if (m->symbol_count)
		lo_buf_printf(&b, " the %zu symbol%s it leaves undefined (%s%s)", m->symbol_count,
			      m->symbol_count == 1 ? "" : "s", m->symbols[0],
			      m->symbol_count > 1 ? ", ..." : "");
	if (m->lib_count && !left)
		lo_buf_printf(&b, "%s %s, which it needs beside it", m->symbol_count ? " and" : "",
			      m->libs[0]);
	for (i = 0; i < npre; i++)
		lo_buf_printf(&b, "%s%s", i ? ", " : ", having loaded first ",
			      lo_os_path_last_separator(pre[i]) + 1);
	return lo_buf_detach(&b);
}

/* The object whose host is inferred, as the candidates are tried for it. */
typedef struct judged {
	const char *abs, *dir;
	const lo_elf *e, *own;
	missing m;
	lo_buf tried; /* the candidates tried, with why each is not the host */
} judged;

/*
 * Try `prog` (found as `from` says) as the host of o: its load, when it is
 * a program that gives o something, with *left how many of what o lacks it
 * still misses and *why how it was found; else NULL, why not in o->tried.
 */
static lo_load *try_program(lo_hosts *hs, lo_resolver *r, const candidates *c, judged *o,
			    const char *prog, const char *from, size_t *left, char **why_out,
			    const lo_host **with)
{
	const char *why = unfit(r, prog, o->e, &o->m), *lacks;
	const lo_host *host;
	lo_load *load = NULL;
	char **pre = NULL;
	size_t npre = 0;

	if (!why) {
		pre = preloads_for(r, c, o->dir, o->abs, prog, &o->m, &npre);
		if (lo_hosts_for_inferred(hs, prog, (const char *const *)pre, npre, &host) < 0)
			why = "cannot be used";
	}
	if (why) {
		lo_buf_printf(&o->tried, "%s'%s' (%s)", o->tried.len ? ", " : "", prog, why);
		lo_strv_free(pre, npre);
		return NULL;
	}
	lo_load_simulate_own(&load, r, host, o->abs, o->own, 0, NULL, NULL);
	*with = host;
	*left = still_missing(load, o->abs, &o->m, &lacks);
	if (*left)
		lo_buf_printf(&o->tried, "%s'%s' (lacks %s)", o->tried.len ? ", " : "", prog, lacks);
	*why_out = why_inferred(prog, from, &o->m, *left, pre, npre);
	lo_strv_free(pre, npre);
	return load;
}

/*
 * The host of o: the first candidate that gives it all it missed, the
 * program the build's records name (`recorded`, or NULL) tried first;
 * else, in a build tree, the tree's program (that one too) that gives it
 * the most, more than half (a plugin left from a branch whose program lost
 * a function: the seed's failure, its host the project's own program),
 * what it lacks still a finding. True with *out filled.
 */
static bool pick(lo_hosts *hs, lo_resolver *r, const candidates *c, judged *o,
		 const char *recorded, lo_hosts_inferred *out)
{
	size_t k, left, first = recorded ? 1 : 0;
	size_t best_left = (o->m.symbol_count + o->m.lib_count + 1) / 2;
	const lo_host *with;
	lo_load *load;
	char *why;

	for (k = 0; k < first + c->program_count; k++) {
		const char *prog = k < first ? recorded : c->programs[k - first];
		const char *from = k < first ? "the program its target links to in the build's "
					       "records"
					     : c->from[k - first];

		if (!(load = try_program(hs, r, c, o, prog, from, &left, &why, &with)))
			continue;
		if (left && (k >= first + c->tree_count || left >= best_left)) {
			lo_load_free(load);
			free(why);
			continue;
		}
		lo_hosts_inferred_dispose(out);
		out->load = load;
		out->with = with;
		out->host = lo_xstrdup(prog);
		out->why = why;
		if (!(best_left = left))
			return true;
	}
	return out->load != NULL;
}

bool lo_hosts_infer(lo_hosts *hs, const char *abs, const lo_elf *own, const char *top,
		    const char *recorded, const lo_load *plain, lo_hosts_inferred *out)
{
	lo_hosts_guesses *in = lo_hosts_guesses_of(hs);
	judged o = { .abs = abs, .own = own, .e = own ? own : lo_load_elf(plain),
		     .tried = LO_BUF_INIT };
	char *dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs));
	bool ok = false;

	memset(out, 0, sizeof(*out));
	o.dir = dir;
	if (!o.e || !lo_target_of(o.e) || !missing_of(in->r, plain, abs, dir, &o.m))
		goto out;
	ok = pick(hs, in->r, candidates_of(in, dir, top), &o, recorded, out);
	if (!ok) {
		lo_buf line = LO_BUF_INIT;

		lo_buf_printf(&line, "'%s': no program found provides what it lacks (%s); tried: %s",
			      abs, o.m.symbol_count ? o.m.symbols[0] : o.m.libs[0],
			      o.tried.len ? lo_buf_cstr(&o.tried) : "none found");
		lo_hosts_add_detail(hs, lo_buf_cstr(&line));
		lo_buf_dispose(&line);
	}
out:
	lo_buf_dispose(&o.tried);
	missing_dispose(&o.m);
	free(dir);
	return ok;
}
