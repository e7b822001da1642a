/*
 * dyld.c - a static model of macOS's dyld (dyld.h).
 *
 * The rules modelled, from dyld 4's sources (dyld/Loader.cpp,
 * dyld/JustInTimeLoader.cpp, dyld/DyldRuntimeState.cpp, and the bind
 * readers of common/MachOAnalyzer.cpp / mach_o/Fixups.cpp):
 *
 * - Mapping (Loader::forEachPath, JustInTimeLoader::loadDependents): each
 *   image's dylib load commands are followed breadth first; an image
 *   already loaded (the same file, or the same install name) is reused.
 *   A path is expanded as Loader.cpp does: `@rpath/X` tries each LC_RPATH
 *   of the image, then of the image that loaded it, and so up the chain to
 *   the main executable's; `@loader_path/` is the directory of the image
 *   with the load command (of the image owning the LC_RPATH, inside an
 *   rpath); `@executable_path/` that of the main executable. An
 *   LC_LOAD_WEAK_DYLIB that is missing is no error; any other is
 *   "Library not loaded: X / Referenced from: Y / Reason: tried: ...". A
 *   file that is not Mach-O, or has no slice for the process's cpu, is
 *   refused ("incompatible architecture").
 * - System libraries: since macOS 11 /usr/lib and /System/Library are in
 *   the shared cache, not on disk; here their exports come from text
 *   stubs (a data layer, lo_dyld_new's stub_dir), found by install name,
 *   and the load says it used them (lo_dyld_load_assumed).
 * - Binding (Loader::resolveSymbol), all of it at once: CPython opens
 *   modules with RTLD_NOW, so lazy binds count like the others. An import
 *   of library ordinal N (two-level namespace) must be exported by the
 *   Nth dylib, or by one that dylib re-exports (LC_REEXPORT_DYLIB, or a
 *   re-export entry of its trie), else "Symbol not found: _x / Referenced
 *   from: ... / Expected in: ...". Ordinal -2 (flat lookup: -undefined
 *   dynamic_lookup) and every bind of an image without MH_TWOLEVEL
 *   (-flat_namespace) search every image in load order, the main
 *   executable first, else "symbol not found in flat namespace '_x'".
 *   Ordinal 0 is the image itself, -1 the main executable; -3 (a weak
 *   definition coalesced) never fails. A weak_import binds to 0 when
 *   nothing defines it, so it never fails either.
 * - For a Python extension the main executable is the interpreter; with
 *   none at hand (judged off a Mac) it stands in by the prefixes of its C
 *   API (the target's python_exports), which the load says.
 * - The modules a package imports before another. CPython imports a
 *   package's extension modules one after the other into one process,
 *   each by dlopen(path, RTLD_NOW) (sys.getdlopenflags()'s default: the
 *   0x0002 of its ImportError), and macOS's dlopen(3) says "If neither
 *   RTLD_GLOBAL nor RTLD_LOCAL is specified, the default is RTLD_GLOBAL"
 *   (https://keith.github.io/xcode-man-pages/dlopen.3.html). So every
 *   module imported earlier, and every image it mapped, stays in
 *   RuntimeState's `loaded` list, which Loader::resolveSymbol's flat
 *   lookup (BIND_SPECIAL_DYLIB_FLAT_LOOKUP) searches in order, passing
 *   over only a loader hiddenFromFlat(): JustInTimeLoader sets that for
 *   a dlopen with RTLD_LOCAL, and for its top image only (DyldAPIs.cpp's
 *   dlopen_from clears rtldLocal for the dependents). That is how MLIR's
 *   _mlirRegisterEverything, linked -undefined dynamic_lookup without
 *   the C API dylib, finds _mlirRegisterAllPasses: its package's
 *   __init__ imported _mlir first, which maps that dylib. Which module
 *   the package imports first is its Python code, not read here; so a
 *   flat lookup of an extension module that its own load leaves unbound
 *   is searched, last, in what the other extension modules of its
 *   directory map (host->is_module names them): those whose name ends
 *   in module_suffix, in byte order of their names, at most
 *   SIBLINGS_MAX, each mapped once a run from the same interpreter
 *   (package_of). One whose own mapping fails maps nothing: its import
 *   would fail, and dyld unmaps what a failed dlopen mapped. The order
 *   decides which definition dyld binds, not whether there is one,
 *   which is all the model asks; searching the module's own load first
 *   leaves an assumption only where one is needed, and each is said
 *   (lo_dyld_load_borrowed: which image, assumed loaded by which
 *   module). A symbol found nowhere is still dyld's "symbol not found in
 *   flat namespace".
 * - compatibility_version: dyld 4 no longer checks it (dyld 3 and older
 *   refused a dylib older than the client's); a dylib older than its load
 *   command asks is a warning here (lo_dyld_load_warnings), no failure.
 *
 * Left out: DYLD_* environment variables (SIP strips them for Apple's
 * python anyway), DYLD_FALLBACK_LIBRARY_PATH's default directories for a
 * leaf name not found, dyld's root-relative and framework-partial
 * lookups, code signing and library validation, the binds' addresses and
 * chained fixup chains (each import is taken as bound), initializers,
 * LC_LAZY_LOAD_DYLIB's deferral (mapped like the others), platform and
 * minimum OS checks, and which text stub section is for which target;
 * of a package's modules: sys.setdlopenflags() with RTLD_LOCAL (which
 * would hide each module's own image, not its dylibs), the modules of
 * other directories (a parent package's), and a module's own flat binds
 * when it stands as imported before another.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leftover/buf.h"
#include "leftover/dyld.h"
#include "leftover/error.h"
#include "leftover/rules.h"

/* Re-exports nest a few levels (libSystem -> libsystem_c); a loop ends here. */
#define REEXPORT_DEPTH_MAX 16
/* Images one load maps: more than any Mac process does, a bound on a looping tree. */
#define IMAGES_MAX 4096
/*
 * The other extension modules of a directory taken as imported before
 * a module: more than MLIR's _mlir_libs holds (about twenty), a bound on
 * a directory of thousands.
 */
#define SIBLINGS_MAX 64
/* Every name in CPython's EXTENSION_SUFFIXES on macOS ends so (.cpython-311-darwin.so, .abi3.so). */
static const char module_suffix[] = ".so";

static const uint64_t arm64_cpus[] = { LO_MACHO_CPU_ARM64,
				       LO_MACHO_CPU_ARM64 |
					       (uint64_t)LO_MACHO_SUBTYPE_ARM64E << 32 };
static const uint64_t x86_64_cpus[] = { LO_MACHO_CPU_X86_64 };
/* every cpu a scan reads a candidate for, best first: Apple silicon, then Intel */
static const uint64_t any_cpus[] = { LO_MACHO_CPU_ARM64, LO_MACHO_CPU_X86_64 };
static const char *const python_exports[] = { "_Py", "__Py", NULL };

static const lo_dyld_target targets[] = {
	{ "arm64-apple-macos", arm64_cpus, 2, python_exports },
	{ "x86_64-apple-macos", x86_64_cpus, 1, python_exports },
};

const lo_dyld_target *lo_dyld_target_named(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

const lo_dyld_target *lo_dyld_target_of(const lo_macho *m)
{
	const char *cpu = lo_macho_cpu_name(m);

	if (!strcmp(cpu, "arm64") || !strcmp(cpu, "arm64e"))
		return &targets[0];
	return !strcmp(cpu, "x86_64") ? &targets[1] : NULL;
}

/* One file read for one list of cpus (a universal file's slice), or its error: kept for the run. */
typedef struct cached {
	char *path;
	const uint64_t *cpus; /* a target's, or any_cpus: static */
	lo_macho *m; /* NULL: err */
	int err;
	char *msg;
} cached;

/* The other extension modules of one directory, each mapped (not bound) from one interpreter. */
typedef struct package {
	char *dir, *main;       /* main: the host's, or NULL */
	lo_dyld_load **modules; /* in name order; owned */
	size_t count;
} package;

struct lo_dyld {
	pthread_mutex_t lock;
	cached *files;
	size_t file_count, file_cap;
	char *stub_dir;
	bool stubs_read;
	lo_macho **stubs;
	size_t stub_count, stub_cap;
	/* taken before `lock`, never while holding it: a package is mapped under it */
	pthread_mutex_t package_lock;
	package **packages; /* owned; each stays where it is while the array grows */
	size_t package_count, package_cap;
};

lo_dyld *lo_dyld_new(const char *stub_dir)
{
	lo_dyld *d = lo_xcalloc(1, sizeof(*d));

	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_init(&d->package_lock, NULL);
	if (stub_dir)
		d->stub_dir = lo_xstrdup(stub_dir);
	else if (asprintf(&d->stub_dir, "%s/macos", lo_rules_default_dir()) < 0)
		abort();
	return d;
}

void lo_dyld_free(lo_dyld *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->file_count; i++) {
		free(d->files[i].path);
		free(d->files[i].msg);
		lo_macho_free(d->files[i].m);
	}
	for (i = 0; i < d->stub_count; i++)
		lo_macho_free(d->stubs[i]);
	for (i = 0; i < d->package_count; i++) {
		size_t k;

		for (k = 0; k < d->packages[i]->count; k++)
			lo_dyld_load_free(d->packages[i]->modules[k]);
		free(d->packages[i]->modules);
		free(d->packages[i]->dir);
		free(d->packages[i]->main);
		free(d->packages[i]);
	}
	free(d->packages);
	free(d->files);
	free(d->stubs);
	free(d->stub_dir);
	pthread_mutex_destroy(&d->package_lock);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

/* Every *.tbd of the stub directory, once (under d->lock); one that does not read is skipped. */
static void read_stubs(lo_dyld *d)
{
	DIR *dir;
	struct dirent *de;

	d->stubs_read = true;
	if (!(dir = opendir(d->stub_dir)))
		return;
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		char *p;
		lo_macho *m;

		if (n < 5 || strcmp(de->d_name + n - 4, ".tbd"))
			continue;
		if (asprintf(&p, "%s/%s", d->stub_dir, de->d_name) < 0)
			abort();
		if (lo_macho_open_tbd(&m, p) >= 0) {
			lo_array_grow(&d->stubs, &d->stub_cap, d->stub_count + 1, sizeof(*d->stubs));
			d->stubs[d->stub_count++] = m;
		}
		free(p);
	}
	closedir(dir);
}

/*
 * The system library installed as `name`: its stub, or, when the layer
 * has none, a placeholder whose exports are unknown (macho.h), kept with
 * the stubs. Off a Mac the shared cache cannot be read: a system library
 * the layer does not know is taken as there, not as missing.
 */
static const lo_macho *system_library(lo_dyld *d, const char *name)
{
	const lo_macho *found = NULL;
	size_t i;

	pthread_mutex_lock(&d->lock);
	if (!d->stubs_read)
		read_stubs(d);
	for (i = 0; i < d->stub_count && !found; i++) {
		if (!strcmp(lo_macho_install_name(d->stubs[i]), name))
			found = d->stubs[i];
		else
			found = lo_macho_tbd_inlined(d->stubs[i], name);
	}
	if (!found) {
		lo_array_grow(&d->stubs, &d->stub_cap, d->stub_count + 1, sizeof(*d->stubs));
		found = d->stubs[d->stub_count++] = lo_macho_new_placeholder(name);
	}
	pthread_mutex_unlock(&d->lock);
	return found;
}

/*
 * The file at path, read once. Read under the lock: simple, and a scan's
 * Mach-O candidates are few beside its ELF ones.
 */
static int read_cached(lo_dyld *d, const char *path, const uint64_t *cpus, size_t ncpus,
		       const lo_macho **out)
{
	cached *c = NULL;
	size_t i;
	int err;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->file_count && !c; i++)
		if (d->files[i].cpus == cpus && !strcmp(d->files[i].path, path))
			c = &d->files[i];
	if (!c) {
		lo_macho *m;

		err = lo_macho_open(&m, path, path, cpus, ncpus);
		lo_array_grow(&d->files, &d->file_cap, d->file_count + 1, sizeof(*d->files));
		c = &d->files[d->file_count++];
		*c = (cached){ lo_xstrdup(path), cpus, err < 0 ? NULL : m, err,
			       err < 0 ? lo_xstrdup(lo_error_last()) : NULL };
	}
	*out = c->m;
	err = c->m ? 0 : lo_error_set(c->err, "%s", c->msg);
	pthread_mutex_unlock(&d->lock);
	return err;
}

int lo_dyld_read(lo_dyld *d, const char *path, const lo_macho **out)
{
	return read_cached(d, path, any_cpus, sizeof(any_cpus) / sizeof(any_cpus[0]), out);
}

/* One image of the simulated process. */
typedef struct image {
	const lo_macho *m;
	const char *path;   /* the file, or the install name of a stub; pool */
	size_t loader;      /* the image whose load command mapped it (itself for roots) */
	size_t *deps;       /* per dylib load command: the image, or SIZE_MAX when missing */
	bool bind;          /* mapped by the dlopen: its binds are played */
} image;

struct lo_dyld_load {
	lo_dyld *d;
	const lo_dyld_target *target;
	lo_dyld_host host;  /* its strings outlive the load: the caller's, or a package's */
	lo_strpool pool;
	image *images;
	size_t image_count, image_cap;
	size_t main;        /* the main executable's image, or SIZE_MAX */
	size_t first;       /* the candidate's image */
	const package *package; /* the candidate's directory's other modules, or NULL */
	bool package_asked; /* package is looked up at the first flat lookup it may serve */
	lo_dyld_borrowed *borrowed;
	size_t borrowed_count, borrowed_cap;
	lo_problem *problems;
	size_t problem_count, problem_cap;
	lo_buf assumed, warnings, stubs_used;
	bool stand_in;      /* the interpreter stood in by its exports' prefixes */
};

static const char *keep(lo_dyld_load *l, const char *s)
{
	return s ? lo_strpool_add(&l->pool, s, strlen(s)) : NULL;
}

static void add_problem(lo_dyld_load *l, lo_problem_kind kind, const char *object,
			const char *symbol, const char *library, const char *detail)
{
	lo_array_grow(&l->problems, &l->problem_cap, l->problem_count + 1, sizeof(*l->problems));
	l->problems[l->problem_count++] = (lo_problem){ kind, keep(l, object), keep(l, symbol),
							NULL, keep(l, library), keep(l, detail) };
}

static const char *leaf(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

static size_t add_image(lo_dyld_load *l, const lo_macho *m, const char *path, size_t loader,
			bool bind)
{
	size_t i = l->image_count, n = lo_macho_dylib_count(m), k;

	lo_array_grow(&l->images, &l->image_cap, i + 1, sizeof(*l->images));
	l->images[i] = (image){ m, lo_strpool_add(&l->pool, path, strlen(path)),
				loader == SIZE_MAX ? i : loader,
				lo_xmalloc((n ? n : 1) * sizeof(size_t)), bind };
	for (k = 0; k < n; k++)
		l->images[i].deps[k] = SIZE_MAX;
	l->image_count++;
	if (lo_macho_is_stub(m) && !strstr(lo_buf_cstr(&l->stubs_used), lo_macho_name(m)))
		lo_buf_printf(&l->stubs_used, "%s%s%s", l->stubs_used.len ? ", " : "",
			      leaf(lo_macho_name(m)), lo_macho_exports_known(m) ? ""
			      : lo_macho_export_count(m) ? " (a subset of its exports)"
							   : " (no stub: assumed present)");
	return i;
}

/* The directory of `path` followed by `rest` ("/x", or "" for the directory itself), in out. */
static void dir_join(lo_buf *out, const char *path, const char *rest)
{
	const char *slash = strrchr(path, '/');

	lo_buf_clear(out);
	lo_buf_add(out, path, slash ? (size_t)(slash - path) : 0);
	lo_buf_puts(out, rest);
}

/* Does `name` start with the token `at`, followed by '/' or its end? Where the rest is. */
static const char *after_token(const char *name, const char *at)
{
	size_t n = strlen(at);

	return !strncmp(name, at, n) && (name[n] == '/' || !name[n]) ? name + n : NULL;
}

/*
 * `name` with its leading @loader_path or @executable_path replaced, as
 * seen from image `from`; false when it names the executable and there is none.
 */
static bool expand_at(lo_dyld_load *l, size_t from, const char *name, lo_buf *out)
{
	const char *rest;

	if ((rest = after_token(name, "@loader_path"))) {
		dir_join(out, l->images[from].path, rest);
		return true;
	}
	if ((rest = after_token(name, "@executable_path"))) {
		if (l->main == SIZE_MAX)
			return false;
		dir_join(out, l->images[l->main].path, rest);
		return true;
	}
	lo_buf_clear(out);
	lo_buf_puts(out, name);
	return true;
}

/* Is an image of this path or install name loaded already? Its index, or SIZE_MAX. */
static size_t loaded(const lo_dyld_load *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->image_count; i++) {
		const char *in = lo_macho_install_name(l->images[i].m);

		if (!strcmp(l->images[i].path, path) || (in && !strcmp(in, path)))
			return i;
	}
	return SIZE_MAX;
}

/*
 * Try one path for a dylib: the image, or SIZE_MAX with why it was refused
 * added to `tried` in dyld's words.
 */
static size_t try_path(lo_dyld_load *l, const char *path, size_t from, lo_buf *tried)
{
	const lo_macho *m = NULL;
	size_t i = loaded(l, path);
	struct stat st;
	bool system = !strncmp(path, "/usr/lib/", 9) || !strncmp(path, "/System/Library/", 16);

	if (i != SIZE_MAX)
		return i;
	/* the shared cache, where the system's libraries are */
	if (system)
		return add_image(l, system_library(l->d, path), path, from, l->images[from].bind);
	if (stat(path, &st) < 0) {
		lo_buf_printf(tried, "%s'%s' (no such file)", tried->len ? ", " : "", path);
		return SIZE_MAX;
	}
	if (read_cached(l->d, path, l->target->cpus, l->target->ncpus, &m) < 0) {
		lo_buf_printf(tried, "%s'%s' (%s)", tried->len ? ", " : "", path,
			      strstr(lo_error_last(), "cpu") ? "mach-o file, but is an incompatible "
							       "architecture"
							     : "not a mach-o file");
		return SIZE_MAX;
	}
	return add_image(l, m, path, from, l->images[from].bind);
}

/* The dylib `name` of image `from`'s load command: its image, or SIZE_MAX with `tried`. */
static size_t find_dylib(lo_dyld_load *l, size_t from, const char *name, lo_buf *tried)
{
	lo_buf path = LO_BUF_INIT;
	size_t found = SIZE_MAX, at, r;

	if (strncmp(name, "@rpath/", 7)) {
		if (!expand_at(l, from, name, &path))
			lo_buf_printf(tried, "no main executable to expand @executable_path");
		else if (path.ptr[0] != '/')
			lo_buf_printf(tried, "'%s' (a relative path, found from the working "
				      "directory only)", path.ptr);
		else
			found = try_path(l, path.ptr, from, tried);
		lo_buf_dispose(&path);
		return found;
	}
	/*
	 * The image's rpaths, then its loader's, up to the main executable's:
	 * the candidate's loader is the main executable (lo_dyld_play).
	 */
	for (at = from;; at = l->images[at].loader) {
		const lo_macho *m = l->images[at].m;

		for (r = 0; r < lo_macho_rpath_count(m) && found == SIZE_MAX; r++) {
			lo_buf full = LO_BUF_INIT;

			if (expand_at(l, at, lo_macho_rpath_at(m, r), &path)) {
				lo_buf_printf(&full, "%s/%s", path.ptr, name + 7);
				found = try_path(l, full.ptr, from, tried);
			}
			lo_buf_dispose(&full);
		}
		if (found != SIZE_MAX || l->images[at].loader == at)
			break;
	}
	if (found == SIZE_MAX && !tried->len)
		lo_buf_puts(tried, "no LC_RPATH's");
	lo_buf_dispose(&path);
	return found;
}

static void check_compat(lo_dyld_load *l, size_t from, const lo_macho_dylib *want, size_t got)
{
	const lo_macho *m = l->images[got].m;
	char a[16], b[16];

	if (lo_macho_compat_version(m) >= want->compat_version)
		return;
	lo_buf_printf(&l->warnings, "%s needs %s compatibility version %s or later; %s has %s "
		      "(not checked by current dyld)\n", l->images[from].path, want->name,
		      lo_macho_version_str(want->compat_version, a), l->images[got].path,
		      lo_macho_version_str(lo_macho_compat_version(m), b));
}

/* Map the dylibs of every image from `first` on, breadth first, as dyld does. */
static void map_closure(lo_dyld_load *l, size_t first)
{
	size_t i, k;

	for (i = first; i < l->image_count && l->image_count < IMAGES_MAX; i++) {
		for (k = 0; k < lo_macho_dylib_count(l->images[i].m); k++) {
			const lo_macho_dylib *dl = lo_macho_dylib_at(l->images[i].m, k);
			lo_buf tried = LO_BUF_INIT, msg = LO_BUF_INIT;
			size_t got = find_dylib(l, i, dl->name, &tried);

			l->images[i].deps[k] = got;
			if (got != SIZE_MAX)
				check_compat(l, i, dl, got);
			else if (dl->kind != LO_MACHO_DYLIB_WEAK && l->images[i].bind) {
				lo_buf_printf(&msg, "Library not loaded: %s\n  Referenced from: %s\n"
					      "  Reason: tried: %s", dl->name, l->images[i].path,
					      tried.ptr);
				add_problem(l, LO_PROBLEM_MISSING_LIBRARY, l->images[i].path, NULL,
					    dl->name, msg.ptr);
			}
			lo_buf_dispose(&tried);
			lo_buf_dispose(&msg);
		}
	}
}

/*
 * Does image i export `name`, itself or through what it re-exports
 * (Loader::hasExportedSymbol)? Depth bounds a loop of re-exports. A
 * system library whose exports are known in part (macho.h) is taken to
 * export what a two-level bind expects of it, but found by a flat lookup
 * only for what its stub lists: else any such library in the process
 * would hide every flat failure.
 */
static bool exports(const lo_dyld_load *l, size_t i, const char *name, unsigned depth,
		    bool flat)
{
	const image *im = &l->images[i];
	const lo_macho_export *e;
	size_t k;

	if (depth > REEXPORT_DEPTH_MAX)
		return false;
	if ((e = lo_macho_find_export(im->m, name))) {
		size_t dep = e->reexport && e->ordinal >= 1 &&
					     (size_t)e->ordinal <= lo_macho_dylib_count(im->m)
				     ? im->deps[e->ordinal - 1]
				     : SIZE_MAX;

		if (!e->reexport)
			return true;
		return dep != SIZE_MAX && exports(l, dep, e->import, depth + 1, flat);
	}
	for (k = 0; k < lo_macho_dylib_count(im->m); k++)
		if (lo_macho_dylib_at(im->m, k)->kind == LO_MACHO_DYLIB_REEXPORT &&
		    im->deps[k] != SIZE_MAX && exports(l, im->deps[k], name, depth + 1, flat))
			return true;
	return !flat && !lo_macho_exports_known(im->m);
}

static bool interpreter_exports(lo_dyld_load *l, const char *name)
{
	const char *const *p;

	if (!l->host.python || l->main != SIZE_MAX)
		return false;
	for (p = l->target->python_exports; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return l->stand_in = true;
	return false;
}

static const package *package_of(lo_dyld *d, const lo_dyld_host *host, const char *path);

/* Image i of module load ml has `name` for l: one more symbol found there. */
static void note_borrowed(lo_dyld_load *l, const lo_dyld_load *ml, size_t i, const char *name)
{
	const char *at = ml->images[i].path, *module = ml->images[ml->first].path;
	size_t k;

	for (k = 0; k < l->borrowed_count; k++)
		if (!strcmp(l->borrowed[k].image, at) && !strcmp(l->borrowed[k].module, module)) {
			l->borrowed[k].symbols++;
			return;
		}
	lo_array_grow(&l->borrowed, &l->borrowed_cap, k + 1, sizeof(*l->borrowed));
	l->borrowed[l->borrowed_count++] =
		(lo_dyld_borrowed){ keep(l, at), keep(l, module), keep(l, name), 1, NULL };
}

/*
 * A flat lookup's last resort for an extension module: the images the
 * other modules of its directory map, in name order (the top says why).
 */
static bool package_lookup(lo_dyld_load *l, const char *name)
{
	size_t k, i;

	if (!l->package_asked) {
		l->package_asked = true;
		l->package = package_of(l->d, &l->host, l->images[l->first].path);
	}
	for (k = 0; l->package && k < l->package->count; k++) {
		const lo_dyld_load *ml = l->package->modules[k];

		/* not imported before itself; another cpu's module is another process's */
		if (ml->target != l->target ||
		    !strcmp(ml->images[ml->first].path, l->images[l->first].path))
			continue;
		for (i = ml->first; i < ml->image_count; i++)
			if (exports(ml, i, name, 0, true)) {
				note_borrowed(l, ml, i, name);
				return true;
			}
	}
	return false;
}

/* Flat lookup: the interpreter, then every image in load order, then a package's. */
static bool flat_lookup(lo_dyld_load *l, const char *name)
{
	size_t i;

	if (interpreter_exports(l, name))
		return true;
	for (i = 0; i < l->image_count; i++)
		if (exports(l, i, name, 0, true))
			return true;
	return package_lookup(l, name);
}

static void bind_import(lo_dyld_load *l, size_t i, const lo_macho_import *imp)
{
	const image *im = &l->images[i];
	lo_buf msg = LO_BUF_INIT;
	size_t dep = SIZE_MAX;
	bool flat = imp->ordinal == LO_MACHO_ORDINAL_FLAT || !lo_macho_two_level(im->m);

	if (imp->ordinal == LO_MACHO_ORDINAL_WEAK_LOOKUP)
		return;
	if (flat) {
		if (flat_lookup(l, imp->name) || imp->weak)
			return;
		lo_buf_printf(&msg, "symbol not found in flat namespace '%s'", imp->name);
		add_problem(l, LO_PROBLEM_UNDEFINED_SYMBOL, im->path, imp->name, NULL, msg.ptr);
		lo_buf_dispose(&msg);
		return;
	}
	if (imp->ordinal == LO_MACHO_ORDINAL_SELF)
		dep = i;
	else if (imp->ordinal == LO_MACHO_ORDINAL_MAIN)
		dep = l->main;
	else if (imp->ordinal >= 1 && (size_t)imp->ordinal <= lo_macho_dylib_count(im->m))
		dep = im->deps[imp->ordinal - 1];
	if (imp->ordinal == LO_MACHO_ORDINAL_MAIN && dep == SIZE_MAX &&
	    interpreter_exports(l, imp->name))
		return;
	if ((dep != SIZE_MAX && exports(l, dep, imp->name, 0, false)) || imp->weak)
		return;
	lo_buf_printf(&msg, "Symbol not found: %s\n  Referenced from: %s\n  Expected in: %s",
		      imp->name, im->path,
		      dep != SIZE_MAX ? l->images[dep].path
		      : imp->ordinal >= 1 && (size_t)imp->ordinal <= lo_macho_dylib_count(im->m)
			      ? lo_macho_dylib_at(im->m, (size_t)imp->ordinal - 1)->name
			      : "(a library ordinal the image does not have)");
	add_problem(l, LO_PROBLEM_UNDEFINED_SYMBOL, im->path, imp->name,
		    dep != SIZE_MAX ? l->images[dep].path : NULL, msg.ptr);
	lo_buf_dispose(&msg);
}

static void bind_all(lo_dyld_load *l)
{
	size_t i, k;

	for (i = 0; i < l->image_count; i++)
		for (k = 0; l->images[i].bind && k < lo_macho_import_count(l->images[i].m); k++)
			bind_import(l, i, lo_macho_import_at(l->images[i].m, k));
}

static void say_assumed(lo_dyld_load *l)
{
	size_t k;

	for (k = 0; k < l->borrowed_count; k++) {
		lo_dyld_borrowed *b = &l->borrowed[k];
		lo_buf msg = LO_BUF_INIT;

		lo_buf_printf(&msg, "%s", b->symbol);
		if (b->symbols > 1)
			lo_buf_printf(&msg, " and %zu more symbols", b->symbols - 1);
		lo_buf_printf(&msg, " found by flat lookup in %s, assumed loaded by %s: an "
			      "extension module of the same directory, which its package imports "
			      "first", leaf(b->image), leaf(b->module));
		b->detail = keep(l, msg.ptr);
		lo_buf_dispose(&msg);
	}
	if (l->stubs_used.len)
		lo_buf_printf(&l->assumed, "system libraries from leftover's text stubs: %s",
			      l->stubs_used.ptr);
	if (l->stand_in)
		lo_buf_printf(&l->assumed, "%sthe interpreter's symbols by prefix (%s*), no "
			      "Mach-O interpreter being at hand", l->assumed.len ? "; " : "",
			      l->target->python_exports[0]);
}

/* The load of cand, at path, from host, mapped: the main executable's closure, then cand's. */
static lo_dyld_load *load_mapped(lo_dyld *d, const lo_dyld_host *host, const lo_macho *cand,
				 const char *path)
{
	lo_dyld_load *l = lo_xcalloc(1, sizeof(*l));
	const lo_macho *main = NULL;

	l->d = d;
	l->host = *host;
	l->main = SIZE_MAX;
	l->target = lo_dyld_target_of(cand);
	if (host->main && read_cached(d, host->main, l->target->cpus, l->target->ncpus,
				      &main) >= 0) {
		l->main = add_image(l, main, host->main, SIZE_MAX, false);
		map_closure(l, 0);
	}
	l->first = add_image(l, cand, path, SIZE_MAX, true);
	/* a candidate's rpaths end with the executable's: its loader is the main image */
	if (l->main != SIZE_MAX)
		l->images[l->first].loader = l->main;
	map_closure(l, l->first);
	return l;
}

/* The file `name` of p's directory, when an extension module whose mapping succeeds. */
static void add_module(lo_dyld *d, package *p, const lo_dyld_host *mh,
		       bool (*is_module)(const lo_macho *, const char *), const char *name)
{
	lo_buf path = LO_BUF_INIT;
	const lo_macho *m;

	lo_buf_printf(&path, "%s/%s", p->dir, name);
	if (lo_dyld_read(d, path.ptr, &m) >= 0 && is_module(m, path.ptr)) {
		lo_dyld_load *ml = load_mapped(d, mh, m, path.ptr);

		if (ml->problem_count)
			lo_dyld_load_free(ml);
		else
			p->modules[p->count++] = ml;
	}
	lo_buf_dispose(&path);
}

/* The extension modules of dir, in name order, mapped from host's interpreter. */
static package *package_read(lo_dyld *d, const lo_dyld_host *host, const char *dir)
{
	package *p = lo_xcalloc(1, sizeof(*p));
	lo_dyld_host mh = { NULL, true, NULL };
	size_t n = 0, cap = 0, k, suffix = sizeof(module_suffix) - 1;
	char **names = NULL;
	struct dirent *de;
	DIR *dh;

	p->dir = lo_xstrdup(dir);
	mh.main = p->main = host->main ? lo_xstrdup(host->main) : NULL;
	p->modules = lo_xcalloc(SIBLINGS_MAX, sizeof(*p->modules));
	if ((dh = opendir(dir))) {
		while ((de = readdir(dh))) {
			size_t len = strlen(de->d_name);

			if (len <= suffix || strcmp(de->d_name + len - suffix, module_suffix))
				continue;
			lo_array_grow(&names, &cap, n + 1, sizeof(*names));
			names[n++] = lo_xstrdup(de->d_name);
		}
		closedir(dh);
	}
	lo_strv_sort(names, n);
	for (k = 0; k < n; k++) {
		if (p->count < SIBLINGS_MAX)
			add_module(d, p, &mh, host->is_module, names[k]);
		free(names[k]);
	}
	free(names);
	return p;
}

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * The other extension modules of the directory of the module at path,
 * mapped once a run for each interpreter, or NULL when host names none.
 */
static const package *package_of(lo_dyld *d, const lo_dyld_host *host, const char *path)
{
	lo_buf dir = LO_BUF_INIT;
	package *p = NULL;
	size_t i;

	if (!host->python || !host->is_module)
		return NULL;
	dir_join(&dir, path, "");
	pthread_mutex_lock(&d->package_lock);
	for (i = 0; i < d->package_count && !p; i++)
		if (!strcmp(d->packages[i]->dir, lo_buf_cstr(&dir)) &&
		    same(d->packages[i]->main, host->main))
			p = d->packages[i];
	if (!p) {
		p = package_read(d, host, lo_buf_cstr(&dir));
		lo_array_grow(&d->packages, &d->package_cap, d->package_count + 1,
			      sizeof(*d->packages));
		d->packages[d->package_count++] = p;
	}
	pthread_mutex_unlock(&d->package_lock);
	lo_buf_dispose(&dir);
	return p;
}

int lo_dyld_play(lo_dyld_load **out, lo_dyld *d, const lo_dyld_host *host, const char *path)
{
	lo_dyld_load *l;
	const lo_macho *cand;
	int err;

	*out = NULL;
	if ((err = lo_dyld_read(d, path, &cand)) < 0)
		return err;
	l = load_mapped(d, host, cand, path);
	if (!l->problem_count)
		bind_all(l);
	say_assumed(l);
	*out = l;
	return 0;
}

void lo_dyld_load_free(lo_dyld_load *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->image_count; i++)
		free(l->images[i].deps);
	free(l->images);
	free(l->borrowed);
	free(l->problems);
	lo_buf_dispose(&l->assumed);
	lo_buf_dispose(&l->warnings);
	lo_buf_dispose(&l->stubs_used);
	lo_strpool_dispose(&l->pool);
	free(l);
}

bool lo_dyld_load_ok(const lo_dyld_load *l) { return !l->problem_count; }
size_t lo_dyld_load_problem_count(const lo_dyld_load *l) { return l->problem_count; }
const lo_problem *lo_dyld_load_problem_at(const lo_dyld_load *l, size_t i)
{
	return &l->problems[i];
}
const char *lo_dyld_load_assumed(const lo_dyld_load *l)
{
	return l->assumed.len ? l->assumed.ptr : NULL;
}
size_t lo_dyld_load_borrowed_count(const lo_dyld_load *l) { return l->borrowed_count; }
const lo_dyld_borrowed *lo_dyld_load_borrowed_at(const lo_dyld_load *l, size_t i)
{
	return &l->borrowed[i];
}
const char *lo_dyld_load_warnings(const lo_dyld_load *l)
{
	return l->warnings.len ? l->warnings.ptr : NULL;
}
size_t lo_dyld_load_image_count(const lo_dyld_load *l) { return l->image_count; }
const char *lo_dyld_load_image_at(const lo_dyld_load *l, size_t i) { return l->images[i].path; }
