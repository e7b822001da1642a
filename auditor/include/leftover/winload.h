/*
 * winload.h - Windows' loader, played statically on one PE module.
 *
 * lo_winload_run loads a module as LoadLibraryExW would in the process
 * `env` describes: the DLLs the process holds already (python.exe's
 * python3XY.dll), then the module, then every DLL its import directories
 * name, depth first, each found by the search `env->search` lists, each
 * import bound by name (hint first) or ordinal, forwarders followed. What
 * would fail is a problem in Windows' own terms: error 126 (a DLL not
 * found), 127 (a procedure not found in the DLL that was), 193 (an image
 * of another machine). Delay-loaded DLLs are not needed at load time:
 * each is a note. The model's rules, and their sources, head winload.c.
 *
 * Owns: the search orders, API-set and KnownDLLs tables (data), the
 * system-directory stand-ins, a cache of the PE images read. Does not
 * own: reading PE (pe.h), the verdict (verdict.h), the scan (scan.h).
 */
#ifndef LEFTOVER_WINLOAD_H
#define LEFTOVER_WINLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One place a DLL named without a path is looked for. */
typedef enum lo_win_search_step {
	LO_WIN_SEARCH_END,
	LO_WIN_SEARCH_LOAD_DIR,  /* the directory of the DLL LoadLibraryExW was given */
	LO_WIN_SEARCH_APP_DIR,   /* the directory of the program (python.exe) */
	LO_WIN_SEARCH_USER_DIRS, /* AddDllDirectory (os.add_dll_directory): --library-path */
	LO_WIN_SEARCH_SYSTEM,    /* System32 (off Windows: Wine's PE DLLs stand in) */
	LO_WIN_SEARCH_PATH,      /* the current directory and PATH: --library-path */
} lo_win_search_step;

/* CPython >= 3.8: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR. */
extern const lo_win_search_step lo_win_search_cpython[];
/* A plain LoadLibrary, safe DLL search mode: app dir, System32, then PATH. */
extern const lo_win_search_step lo_win_search_plain[];

typedef struct lo_winload_env {
	const lo_win_search_step *search;
	const char *app_dir;             /* the program's directory, or NULL when unknown */
	const char *const *user_dirs;    /* --library-path */
	size_t user_dir_count;
	uint16_t machine;                /* the process's IMAGE_FILE_MACHINE_* */
	const char *const *preload;      /* DLLs the program holds before the module, by name */
	size_t preload_count;
} lo_winload_env;

/* Windows' error codes for a failed load. */
enum { LO_WIN_MOD_NOT_FOUND = 126, LO_WIN_PROC_NOT_FOUND = 127, LO_WIN_BAD_EXE_FORMAT = 193 };

typedef struct lo_win_problem {
	int code;     /* LO_WIN_* */
	char *dll;    /* the DLL not found, or holding the import; owned */
	char *import; /* the import ("name" or "#N"), or NULL; owned */
	char *object; /* the image with the need (a path); owned */
	char *detail; /* the sentence, in Windows' words; owned */
} lo_win_problem;

typedef struct lo_winload lo_winload;

/*
 * Load the PE module at `path` in the process `env` describes. Returns 0
 * with the outcome in *out, or a negative code when the module itself
 * cannot be read (LO_ENOTELF: not PE; LO_EINVALID: corrupt).
 */
int lo_winload_run(lo_winload **out, const lo_winload_env *env, const char *path);
void lo_winload_free(lo_winload *w);

size_t lo_winload_problem_count(const lo_winload *w);
const lo_win_problem *lo_winload_problem_at(const lo_winload *w, size_t i);
/* Notes: delay-loaded DLLs, system DLLs taken from the Wine layer. */
size_t lo_winload_note_count(const lo_winload *w);
const char *lo_winload_note_at(const lo_winload *w, size_t i);
/* The module's own machine (IMAGE_FILE_MACHINE_*). */
uint16_t lo_winload_machine(const lo_winload *w);

/* The DLL an API-set name stands for ("api-ms-win-crt-runtime-l1-1-0.dll"), or NULL. */
const char *lo_winload_api_set_host(const char *name);

/*
 * System32 for a process of `machine`: Windows' own (os.h), else the first
 * stand-in for it present here (*stand_in set), else NULL.
 */
const char *lo_winload_system_dir(uint16_t machine, bool *stand_in);

#endif
