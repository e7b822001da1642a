/*
 * winload.c - Windows' loader on one PE module (winload.h).
 *
 * The rules modelled, in the order Windows applies them (Microsoft's
 * "Dynamic-link library search order"; Wine's dlls/ntdll/loader.c,
 * load_dll and find_dll_file, does the same):
 *  - A DLL name is first mapped through the API-set schema
 *    (api-ms-win-*, ext-ms-win-*: winload_data.c's table) to its host.
 *  - A DLL whose base name (any case) is already loaded in the process is
 *    that one: python.exe's python3XY.dll is loaded before any extension
 *    module, so the module binds to the interpreter's.
 *  - A KnownDLL is taken from System32 only.
 *  - Else the directories of the search order (env->search) are tried in
 *    turn, names compared case-insensitively as NTFS does. CPython >= 3.8
 *    asks for LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | _DLL_LOAD_DIR: the
 *    module's directory, the application directory, the AddDllDirectory
 *    directories (os.add_dll_directory), System32; never PATH or the
 *    current directory. The same order serves the module's dependencies,
 *    all the way down (the flags of the one call). A plain LoadLibrary
 *    searches the application directory, System32, then PATH.
 *  - An image of another machine is passed over and the search goes on
 *    (Wine does the same); found nowhere else, the load fails with 193.
 *  - Every import of the import directory is bound: by name, the export
 *    name table entry at the hint, else a binary search of the table; by
 *    ordinal, the export address table. A forwarder ("DLL.name",
 *    "DLL.#N") loads its DLL and binds there. What is not found fails
 *    the load with 127, naming DLL and import.
 *  - The delay-load directory is bound by the module's own code on first
 *    call: a note, never a failure.
 * System32 is Windows' own on Windows (under Wine, the prefix's, which
 * holds Wine's PE DLLs). Off Windows it is stood in for by Wine's PE DLLs
 * (they carry Windows' export names), read here like any other DLL; a
 * note says so.
 * Not modelled: side-by-side manifests, .local redirection, SetDllDirectory,
 * DLLs loaded by the module's own DllMain, bound imports.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/pe.h"
#include "leftover/winload.h"
#include "loader/resolve_int.h"
#include "loader/winload_int.h"

#define MAX_IMAGES 4096  /* DLLs in one load: far above a real process's */
#define MAX_FORWARDS 32  /* a chain of forwarders longer than this is a loop */

typedef struct image {
	char *base;       /* lower-cased base name; owned */
	char *path;       /* owned */
	const lo_pe *pe;  /* from the cache */
} image;

struct lo_winload {
	lo_winload_env env; /* its search switched while the program's own DLLs load */
	size_t module;      /* the module's image */
	char *load_dir;   /* owned */
	const char *sysdir;
	bool sysdir_used;
	uint16_t machine;
	image *images;
	size_t image_count, image_cap;
	lo_win_problem *problems;
	size_t problem_count, problem_cap;
	char **notes;
	size_t note_count, note_cap;
};

/* ---- the images read, shared by every load of the process ---- */

typedef struct cached {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	lo_pe *pe;
	int err;
	char *why;
} cached;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached *cache;
static size_t cache_count, cache_cap;

/*
 * The image at `path`, read once for the process while the file stays as
 * it was (a scan meets kernel32.dll in every load); NULL with the error
 * set when it cannot be read.
 */
static const lo_pe *pe_cached(const char *path, int *err)
{
	struct stat st;
	const lo_pe *pe;
	cached *c = NULL;
	size_t i;

	if (stat(path, &st) < 0) {
		*err = lo_error_set_errno(LO_ERROR, errno, "cannot read '%s'", path);
		return NULL;
	}
	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < cache_count && !c; i++)
		if (!strcmp(cache[i].path, path) && cache[i].dev == st.st_dev &&
		    cache[i].ino == st.st_ino && cache[i].size == st.st_size &&
		    cache[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    cache[i].mtime.tv_nsec == st.st_mtim.tv_nsec)
			c = &cache[i];
	if (!c) {
		lo_array_grow(&cache, &cache_cap, cache_count + 1, sizeof(*cache));
		c = &cache[cache_count++];
		*c = (cached){ lo_xstrdup(path), st.st_dev, st.st_ino, st.st_size, st.st_mtim,
			       NULL, 0, NULL };
		c->err = lo_pe_open(&c->pe, path, path);
		if (c->err < 0)
			c->why = lo_xstrdup(lo_error_last());
	}
	pe = c->pe;
	*err = c->err;
	if (!pe)
		lo_error_set(c->err, "%s", c->why);
	pthread_mutex_unlock(&cache_lock);
	return pe;
}

/* ---- findings ---- */

static void add_problem(lo_winload *w, int code, const char *dll, const char *import,
			const char *object, char *detail)
{
	lo_win_problem *p;

	lo_array_grow(&w->problems, &w->problem_cap, w->problem_count + 1, sizeof(*w->problems));
	p = &w->problems[w->problem_count++];
	p->code = code;
	p->dll = dll ? lo_xstrdup(dll) : NULL;
	p->import = import ? lo_xstrdup(import) : NULL;
	p->object = lo_xstrdup(object);
	p->detail = detail;
}

static void add_note(lo_winload *w, char *note)
{
	lo_array_grow(&w->notes, &w->note_cap, w->note_count + 1, sizeof(*w->notes));
	w->notes[w->note_count++] = note;
}

/* ---- the search ---- */

/* The file `name` in `dir`, any case (NTFS's compare), owned; or NULL. */
static char *find_in_dir(const char *dir, const char *name)
{
	char *path = lo_resolve_fmt("%s/%s", dir, name), *lower;
	struct dirent *de;
	struct stat st;
	DIR *d;
	size_t i;

	if (!stat(path, &st) && S_ISREG(st.st_mode))
		return path;
	free(path);
	lower = lo_xstrdup(name);
	for (i = 0; lower[i]; i++)
		lower[i] = (char)(lower[i] >= 'A' && lower[i] <= 'Z' ? lower[i] + 32 : lower[i]);
	path = lo_resolve_fmt("%s/%s", dir, lower);
	free(lower);
	if (!stat(path, &st) && S_ISREG(st.st_mode))
		return path;
	free(path);
	if (!(d = opendir(dir)))
		return NULL;
	path = NULL;
	while (!path && (de = readdir(d)))
		if (!lo_os_path_name_cmp_in(LO_PATH_WINDOWS, de->d_name, name))
			path = lo_resolve_fmt("%s/%s", dir, de->d_name);
	closedir(d);
	return path;
}

/*
 * The DLL `name` in `dir` (NULL: a step with no directory here), when it
 * is of the process's machine; one of another machine is kept in *wrong.
 */
static const lo_pe *try_dir(lo_winload *w, const char *dir, const char *name, char **found,
			    char **wrong)
{
	char *path = dir ? find_in_dir(dir, name) : NULL;
	const lo_pe *pe;
	int err;

	if (!path)
		return NULL;
	pe = pe_cached(path, &err);
	if (pe && lo_pe_machine(pe) == w->machine) {
		*found = path;
		if (dir == w->sysdir)
			w->sysdir_used = true;
		return pe;
	}
	if (!*wrong)
		*wrong = path;
	else
		free(path);
	return NULL;
}

static const lo_pe *search(lo_winload *w, const char *name, bool known, char **found, char **wrong)
{
	const lo_winload_env *env = &w->env;
	const lo_win_search_step *step;
	const lo_pe *pe = NULL;
	size_t i;

	if (known)
		return try_dir(w, w->sysdir, name, found, wrong);
	for (step = env->search; *step != LO_WIN_SEARCH_END && !pe; step++) {
		switch (*step) {
		case LO_WIN_SEARCH_LOAD_DIR:
			pe = try_dir(w, w->load_dir, name, found, wrong);
			break;
		case LO_WIN_SEARCH_APP_DIR:
			pe = try_dir(w, env->app_dir, name, found, wrong);
			break;
		case LO_WIN_SEARCH_SYSTEM:
			pe = try_dir(w, w->sysdir, name, found, wrong);
			break;
		case LO_WIN_SEARCH_USER_DIRS:
		case LO_WIN_SEARCH_PATH:
			for (i = 0; i < env->user_dir_count && !pe; i++)
				pe = try_dir(w, env->user_dirs[i], name, found, wrong);
			break;
		case LO_WIN_SEARCH_END:
			break;
		}
	}
	return pe;
}

static char *lower_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *s = lo_xstrdup(slash ? slash + 1 : path);
	size_t i;

	for (i = 0; s[i]; i++)
		s[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	return s;
}

static void bind_imports(lo_winload *w, size_t at);

/* Add the image at `path`, then load what it imports; its index. */
static size_t add_image(lo_winload *w, const char *base, char *path, const lo_pe *pe)
{
	size_t at = w->image_count;

	lo_array_grow(&w->images, &w->image_cap, w->image_count + 1, sizeof(*w->images));
	w->images[at] = (image){ lower_base(base), path, pe };
	w->image_count++;
	bind_imports(w, at);
	return at;
}

/*
 * The image the DLL `name` needed by image `by` is, loading it if need
 * be; (size_t)-1 with a problem recorded when it cannot be.
 */
static size_t load_dll(lo_winload *w, const char *name, const char *by)
{
	const char *host = lo_winload_api_set_host(name);
	char *base, *found = NULL, *wrong = NULL;
	const lo_pe *pe;
	size_t i;

	base = lower_base(host ? host : name);
	for (i = 0; i < w->image_count; i++)
		if (!strcmp(w->images[i].base, base)) {
			free(base);
			return i;
		}
	if (w->image_count >= MAX_IMAGES) {
		free(base);
		return (size_t)-1;
	}
	pe = search(w, base, lo_winload_known_dll(base), &found, &wrong);
	if (pe) {
		free(wrong);
		i = add_image(w, base, found, pe);
	} else if (wrong) {
		add_problem(w, LO_WIN_BAD_EXE_FORMAT, name, NULL, by,
			    lo_resolve_fmt("%s is not a valid Win32 application (error 193): the %s "
					   "found, %s, is not of the process's machine, %s", name,
					   name, wrong, lo_pe_machine_str(w->machine)));
		free(wrong);
		i = (size_t)-1;
	} else {
		add_problem(w, LO_WIN_MOD_NOT_FOUND, name, NULL, by,
			    lo_resolve_fmt("The specified module could not be found (error 126): "
					   "%s%s%s%s", name, host ? " (API set of " : "",
					   host ? host : "", host ? ")" : ""));
		i = (size_t)-1;
	}
	free(base);
	return i;
}

/* The export an import finds in image `at`, forwarders followed; NULL when none. */
static const lo_pe_export *bind_one(lo_winload *w, size_t at, const char *name, uint32_t ordinal,
				    uint16_t hint, int depth)
{
	const lo_pe_export *ex;
	const char *dot;
	char *dll;
	size_t next;

	ex = name ? lo_pe_export_by_name(w->images[at].pe, name, hint)
		  : lo_pe_export_by_ordinal(w->images[at].pe, ordinal);
	if (!ex || !ex->forward)
		return ex;
	if (depth >= MAX_FORWARDS || !(dot = strrchr(ex->forward, '.')))
		return NULL;
	dll = lo_resolve_fmt("%.*s.dll", (int)(dot - ex->forward), ex->forward);
	next = load_dll(w, dll, w->images[at].path);
	free(dll);
	if (next == (size_t)-1)
		return NULL;
	if (dot[1] == '#')
		return bind_one(w, next, NULL, (uint32_t)strtoul(dot + 2, NULL, 10), 0, depth + 1);
	return bind_one(w, next, dot + 1, 0, 0, depth + 1);
}

static void note_delay(lo_winload *w, const char *dll)
{
	size_t i;
	char *note = lo_resolve_fmt("delay-loads %s: not needed at load time, bound on first "
				    "call", dll);

	for (i = 0; i < w->note_count; i++)
		if (!strcmp(w->notes[i], note)) {
			free(note);
			return;
		}
	add_note(w, note);
}

static void bind_imports(lo_winload *w, size_t at)
{
	const lo_pe *pe = w->images[at].pe;
	const char *dll = NULL;
	size_t i, dep = (size_t)-1;

	for (i = 0; i < lo_pe_import_count(pe); i++) {
		const lo_pe_import *im = lo_pe_import_at(pe, i);
		char ord[16];

		if (im->delay) {
			if (at == w->module)
				note_delay(w, im->dll);
			continue;
		}
		if (!dll || strcmp(dll, im->dll))
			dep = load_dll(w, im->dll, w->images[at].path);
		dll = im->dll;
		if (dep == (size_t)-1 || bind_one(w, dep, im->name, im->ordinal, im->hint, 0))
			continue;
		snprintf(ord, sizeof(ord), "#%u", im->ordinal);
		add_problem(w, LO_WIN_PROC_NOT_FOUND, im->dll, im->name ? im->name : ord,
			    w->images[at].path,
			    lo_resolve_fmt("The specified procedure could not be found (error 127): "
					   "%s!%s", im->dll, im->name ? im->name : ord));
	}
}

/* The DLLs the program holds before the module, found as its own imports are. */
static void preload(lo_winload *w)
{
	const lo_win_search_step *search = w->env.search;
	size_t i;

	w->env.search = lo_win_search_plain;
	for (i = 0; i < w->env.preload_count; i++)
		load_dll(w, w->env.preload[i], "the program");
	w->env.search = search;
}

int lo_winload_run(lo_winload **out, const lo_winload_env *env, const char *path)
{
	lo_winload *w;
	const lo_pe *pe;
	const char *slash = strrchr(path, '/');
	bool stand_in;
	int err;

	*out = NULL;
	if (!(pe = pe_cached(path, &err)))
		return err;
	w = lo_xcalloc(1, sizeof(*w));
	w->env = *env;
	w->machine = env->machine;
	w->load_dir = slash ? lo_xstrndup(path, (size_t)(slash - path)) : lo_xstrdup(".");
	w->sysdir = lo_winload_system_dir(env->machine, &stand_in);
	*out = w;
	if (lo_pe_machine(pe) != env->machine) {
		const char *m = lo_pe_machine_str(lo_pe_machine(pe));

		add_problem(w, LO_WIN_BAD_EXE_FORMAT, NULL, NULL, path,
			    lo_resolve_fmt("%%1 is not a valid Win32 application (error 193): an image for "
				"%s, loaded by a %s process", m ? m : "another machine",
				lo_pe_machine_str(env->machine)));
		w->machine = lo_pe_machine(pe);
		return 0;
	}
	preload(w);
	w->module = w->image_count;
	add_image(w, path, lo_xstrdup(path), pe);
	if (w->sysdir_used && stand_in)
		add_note(w, lo_resolve_fmt("System32 stood in for by Wine's PE DLLs in %s", w->sysdir));
	return 0;
}

void lo_winload_free(lo_winload *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->image_count; i++) {
		free(w->images[i].base);
		free(w->images[i].path);
	}
	for (i = 0; i < w->problem_count; i++) {
		free(w->problems[i].dll);
		free(w->problems[i].import);
		free(w->problems[i].object);
		free(w->problems[i].detail);
	}
	lo_strv_free(w->notes, w->note_count);
	free(w->images);
	free(w->problems);
	free(w->load_dir);
	free(w);
}

size_t lo_winload_problem_count(const lo_winload *w)
{
	return w->problem_count;
}

const lo_win_problem *lo_winload_problem_at(const lo_winload *w, size_t i)
{
	return i < w->problem_count ? &w->problems[i] : NULL;
}

size_t lo_winload_note_count(const lo_winload *w)
{
	return w->note_count;
}

const char *lo_winload_note_at(const lo_winload *w, size_t i)
{
	return i < w->note_count ? w->notes[i] : NULL;
}

uint16_t lo_winload_machine(const lo_winload *w)
{
	return w->machine;
}
