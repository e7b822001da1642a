/*
 * judge_pe.c - the facts of one PE candidate (.pyd, .dll): its load
 * played by Windows' loader model (winload.h) in the process that loads
 * it, in Windows' words (scan_int.h).
 *
 * The process: for a .pyd, python.exe under CPython's LoadLibraryExW
 * flags, holding its python3XY.dll (the one the module imports) found in
 * python.exe's directory (--python names python.exe), or through
 * --library-path; its machine is python.exe's, else the one the module's
 * platform tag names (.cp311-win_amd64.pyd), else the module's own. For
 * another DLL, a program in the DLL's own directory (or --host's) that
 * loads it with a plain LoadLibrary. The build records judge the file
 * afterwards exactly as for ELF (scan_judge.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "leftover/error.h"
#include "leftover/os.h"
#include "leftover/pe.h"
#include "leftover/winload.h"
#include "scan/scan_int.h"

/* The process machines' names, as lo_file.arch shows them (static strings). */
static const struct {
	uint16_t machine;
	const char *tag, *arch;
} machines[] = {
	{ LO_PE_MACHINE_AMD64, "win_amd64", "x64-windows" },
	{ LO_PE_MACHINE_I386, "win32", "x86-windows" },
	{ LO_PE_MACHINE_ARM64, "win_arm64", "arm64-windows" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool lo_scan_is_pe(const char *abs)
{
	unsigned char head[512];
	ssize_t n;
	int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head));
	close(fd);
	return n > 0 && lo_pe_sniff(head, (size_t)n);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcasecmp(s + n - m, tail);
}

/* The machine a platform tag in the module's name (".cp311-win_amd64.pyd") names, or 0. */
static uint16_t tagged_machine(const char *base)
{
	char want[32];
	size_t i;

	for (i = 0; i < COUNT(machines); i++) {
		snprintf(want, sizeof(want), "-%s.pyd", machines[i].tag);
		if (ends_with(base, want))
			return machines[i].machine;
	}
	return 0;
}

static const char *arch_of(uint16_t machine)
{
	size_t i;

	for (i = 0; i < COUNT(machines); i++)
		if (machines[i].machine == machine)
			return machines[i].arch;
	return NULL;
}

const char *lo_scan_pe_arch_named(const char *name)
{
	size_t i;

	for (i = 0; i < COUNT(machines); i++)
		if (!strcmp(machines[i].arch, name))
			return machines[i].arch;
	return NULL;
}

/* python3XY.dll / python3.dll: the interpreter's, held by python.exe before any module. */
static bool python_dll(const char *name)
{
	size_t n = strlen(name), i;

	if (strncasecmp(name, "python3", 7) || !ends_with(name, ".dll") || n > 14)
		return false;
	for (i = 7; i < n - 4; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

/* The machine of the PE program at `path`, or 0 when it is not one. */
static uint16_t program_machine(const char *path)
{
	lo_pe *pe;
	uint16_t m = 0;

	if (path && lo_pe_open(&pe, path, path) == 0) {
		m = lo_pe_machine(pe);
		lo_pe_free(pe);
	}
	return m;
}

static void add_problem(lo_file *f, const lo_win_problem *p, const char *abs)
{
	lo_reason_kind kind = p->code == LO_WIN_PROC_NOT_FOUND ? LO_REASON_UNDEFINED_SYMBOL
			      : p->code == LO_WIN_BAD_EXE_FORMAT ? LO_REASON_WRONG_CLASS
								 : LO_REASON_MISSING_LIBRARY;
	/* the module's own needs name no object; a dependency's name it */
	const char *object = strcmp(p->object, abs) ? p->object : NULL;

	lo_file_add_reason(f, kind, p->import, NULL, p->dll, object, p->detail);
}

/* The process env describes for the module at abs, from its imports and the options. */
static void process_of(const scan *s, const lo_pe *pe, const char *abs, bool python,
		       lo_winload_env *env, char **app_dir, const char **preload)
{
	const lo_scan_opts *o = s->opts;
	const char *program = python ? (o ? o->python : NULL) : (o ? o->host : NULL);
	const char *slash;
	size_t i;

	memset(env, 0, sizeof(*env));
	env->search = python ? lo_win_search_cpython : lo_win_search_plain;
	env->user_dirs = o ? o->library_path : NULL;
	env->user_dir_count = o ? o->library_path_count : 0;
	*app_dir = NULL;
	if (program && (slash = lo_os_path_last_separator(program)))
		*app_dir = lo_xstrndup(program, (size_t)(slash - program));
	else if (!python)
		*app_dir = lo_xstrndup(abs, (size_t)(lo_os_path_last_separator(abs) - abs));
	env->app_dir = *app_dir;
	env->machine = program_machine(program);
	if (!env->machine && python)
		env->machine = tagged_machine(lo_os_path_last_separator(abs) + 1);
	if (!env->machine)
		env->machine = lo_pe_machine(pe);
	for (i = 0; python && i < lo_pe_import_count(pe) && !env->preload_count; i++)
		if (python_dll(lo_pe_import_at(pe, i)->dll)) {
			*preload = lo_pe_import_at(pe, i)->dll;
			env->preload = preload;
			env->preload_count = 1;
		}
}

/* Play the load; unjudged when the interpreter's DLL was not found and no interpreter given. */
static void play(lo_file *f, const char *abs, const lo_winload_env *env, bool python)
{
	lo_winload *w;
	size_t i;
	int err = lo_winload_run(&w, env, abs);

	if (err < 0) {
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, lo_error_last());
		return;
	}
	for (i = 0; i < lo_winload_problem_count(w); i++) {
		const lo_win_problem *p = lo_winload_problem_at(w, i);

		if (python && !env->app_dir && p->code == LO_WIN_MOD_NOT_FOUND &&
		    !strcmp(p->object, "the program")) {
			char *why = NULL;

			if (asprintf(&why, "imports %s, which python.exe holds before any module: "
				     "name it with --python PATH/python.exe, or its directory with "
				     "--library-path", p->dll) < 0)
				abort();
			f->stage = LO_STAGE_NO_HOST;
			lo_file_add_reason(f, LO_REASON_NO_HOST, NULL, NULL, p->dll, NULL, why);
			free(why);
			lo_winload_free(w);
			return;
		}
		add_problem(f, p, abs);
	}
	for (i = 0; i < lo_winload_note_count(w); i++)
		lo_file_add_reason(f, LO_REASON_LOADER_NOTE, NULL, NULL, NULL, NULL,
				   lo_winload_note_at(w, i));
	f->stage = LO_STAGE_LOADED;
	f->loads = lo_winload_problem_count(w) ? LO_FALSE : LO_TRUE;
	f->arch = arch_of(lo_winload_machine(w));
	lo_winload_free(w);
}

int lo_scan_judge_pe(scan *s, lo_file *f, const char *abs)
{
	bool python = ends_with(abs, ".pyd");
	const char *preload = NULL;
	char *app_dir;
	lo_winload_env env;
	lo_pe *pe;
	int err = lo_pe_open(&pe, abs, abs);

	if (err < 0) {
		f->stage = LO_STAGE_UNREADABLE;
		lo_file_add_reason(f, LO_REASON_UNREADABLE, NULL, NULL, NULL, NULL, lo_error_last());
		return 0;
	}
	f->kind = python ? LO_KIND_PYTHON_EXTENSION : LO_KIND_SHARED_LIBRARY;
	if (!lo_pe_is_dll(pe)) {
		f->kind = LO_KIND_OTHER;
		f->stage = LO_STAGE_NOTHING_TO_LOAD;
		lo_file_add_reason(f, LO_REASON_NOT_LOADABLE, NULL, NULL, NULL, NULL,
				   "a Windows program, not a DLL: LoadLibrary does not run it");
		lo_pe_free(pe);
		return 0;
	}
	process_of(s, pe, abs, python, &env, &app_dir, &preload);
	if (python && s->opts && s->opts->python)
		f->host = lo_xstrdup(s->opts->python);
	else if (!python && s->opts && s->opts->host)
		f->host = lo_xstrdup(s->opts->host);
	play(f, abs, &env, python);
	free(app_dir);
	lo_pe_free(pe);
	return 0;
}
