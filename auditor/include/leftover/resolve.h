/*
 * resolve.h - a static model of glibc's ld.so: which files a dlopen() would
 * map and whether every symbol would bind, without running anything, for
 * each target's loader (target.h) whatever machine leftover runs on.
 *
 * A lo_resolver holds the search configuration (LD_LIBRARY_PATH as given by
 * the caller, the ld.so.conf directories, the default directories) and a
 * cache of every object it has read, so each library is parsed once per run
 * however many candidates need it. A lo_host is the program that will do the
 * dlopen: its needed closure is the global scope. lo_load_simulate then
 * plays one dlopen(path, RTLD_NOW | RTLD_LOCAL) from that host and returns
 * what went wrong, and, when asked, a trace of every decision for `explain`.
 *
 * The rules modelled, and those deliberately not, are listed at the top of
 * resolve.c.
 * Does not own: reading ELF (elf.h), ld.so.cache and ld.so.conf
 * (ldconfig.h), what differs between targets (target.h), nor which program
 * is the host (hosts.h, the rules).
 */
#ifndef LEFTOVER_RESOLVE_H
#define LEFTOVER_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "leftover/buf.h"
#include "leftover/elf.h"
#include "leftover/target.h"

typedef struct lo_resolver lo_resolver;
typedef struct lo_host lo_host;

typedef struct lo_resolver_opts {
	/* Directories standing for LD_LIBRARY_PATH, in order; borrowed. */
	const char *const *library_path;
	size_t library_path_count;
	/*
	 * The loader's cache; NULL means /etc/ld.so.cache, "" none. When it
	 * cannot be read, the directories of ld.so.conf (and its includes)
	 * stand in for it: NULL means /etc/ld.so.conf, "" none.
	 */
	const char *ldso_cache;
	const char *ldso_conf;
	/*
	 * --sysroot: the directory standing for `/` for every absolute path
	 * the loader reads, or NULL; paths under `outside` (the scanned trees)
	 * are read where they are.
	 */
	const char *sysroot;
	const char *const *outside;
	size_t outside_count;
	/*
	 * --hwcaps: the glibc-hwcaps subdirectories the CPU is taken to
	 * support, comma-separated, for every target; NULL: those the CPU
	 * leftover runs on supports, for its own target (cpu.h).
	 */
	const char *hwcaps;
	/* Default directories; NULL means the system's (see resolve.c). */
	const char *const *default_dirs;
	size_t default_dirs_count;
	/*
	 * Bytes of library tables kept in memory between loads before the
	 * least recently used are released; twice the largest library read
	 * so far, when that is more. 0 means what the process's own memory
	 * leaves of resident_limit, or 44 MiB where that cannot be read
	 * (resolve_int.h says why).
	 */
	size_t resident_budget;
	/* Without a resident_budget: the process's resident bytes; 0 means the default, 58 MiB. */
	size_t resident_limit;
	/*
	 * With workers (below): objects whose parsed tables are kept before
	 * one not opened lately is let go and, if asked for again, read
	 * again; 0 means the default, 1024.
	 */
	size_t kept_objects;
} lo_resolver_opts;

int lo_resolver_new(lo_resolver **out, const lo_resolver_opts *opts);

/*
 * Let the kernel drop the pages of every library table the loads read
 * (elf.h's lo_elf_release_many), host programs' own aside: for a caller
 * done with loads that keeps the resolver, and its memory, a while longer.
 */
void lo_resolver_release(lo_resolver *r);

/* Are the loader's absolute paths read under a --sysroot? */
bool lo_resolver_in_sysroot(const lo_resolver *r);

/* Is there a file at `path` where the loader would open it (inside the --sysroot)? */
bool lo_resolver_has_file(const lo_resolver *r, const char *path);
void lo_resolver_free(lo_resolver *r);

/*
 * The object at `path` (symlinks followed), read once per run and cached,
 * borrowed from the resolver (see workers below for how long). Returns 0,
 * or the lo_elf_open error with its message: also when the file was read
 * before, let go, and has changed since.
 */
int lo_resolver_read(lo_resolver *r, const char *path, const lo_elf **out);

/*
 * The object at `path` for one judge alone. Held by the resolver (a load
 * found it as a library): that one, as lo_resolver_read gives it, and
 * *own NULL. Else read with its tables in `buf` (elf.h's
 * lo_elf_open_private), neither cached nor counted in the budget, and
 * *own = *out, freed by the caller with lo_elf_free before buf serves
 * again: a candidate no load needs costs a buffer its judge reuses, not
 * a mapping's faults and teardown. Tables too big for buf, and a file
 * that does not read, go through lo_resolver_read: the same object, the
 * same messages. Returns as lo_resolver_read does.
 */
int lo_resolver_read_own(lo_resolver *r, const char *path, lo_elf_buf *buf, const lo_elf **out,
			 lo_elf **own);

/*
 * A worker is done with `path`, read by lo_resolver_read or loaded by
 * lo_load_simulate as a candidate: unless a load found it as a library, or
 * a host uses it, the resolver drops it once its pages are released (a
 * later ask reads it anew), so that memory does not grow with the number
 * of candidates. A resolver without workers keeps it.
 */
void lo_resolver_forget(lo_resolver *r, const char *path);

/*
 * A thread that reads many objects through the resolver, one candidate at
 * a time (a scan's judging threads). A resolver without workers keeps
 * every object it reads, and what it returns lives as long as it does.
 * Once a worker exists, objects are let go past kept_objects, and an
 * lo_elf, lo_load or lo_host result is valid only between the
 * lo_resolver_begin and lo_resolver_end of the worker that got it (hosts
 * stay valid: their objects are never let go). Every thread that reads
 * objects through the resolver while workers exist must be one. Workers
 * are freed with the resolver.
 */
typedef struct lo_resolver_worker lo_resolver_worker;
lo_resolver_worker *lo_resolver_worker_new(lo_resolver *r);
void lo_resolver_begin(lo_resolver_worker *w);
void lo_resolver_end(lo_resolver_worker *w);

/*
 * The program that loads candidates. `program` is the path of an ELF
 * executable (the Python interpreter, perl, an application), whose own
 * class and machine say which target's loader runs it (target.h); NULL
 * stands for a plain C program of the machine leftover runs on, whose
 * global scope is libc's closure. Fails with a message when the program
 * cannot be read, is for a target not modelled, or would not start: its
 * own libraries not found, a version they lack, a symbol none defines (all
 * bound at start, as under LD_BIND_NOW), the first as ld.so would say it.
 */
int lo_host_new(lo_host **out, lo_resolver *r, const char *program);

/*
 * `program` after it has loaded the libraries `preload` (paths), in order,
 * with dlopen(RTLD_GLOBAL): each with its needed closure joins the global
 * scope, and a DT_NEEDED name that is a preload's soname is that object
 * (the JVM's libjvm.so, which the JDK's own libraries need but cannot
 * find by their RPATH). Fails with a message naming a preload that cannot
 * be read or is for another target.
 */
int lo_host_new_preloaded(lo_host **out, lo_resolver *r, const char *program,
			  const char *const *preload, size_t preload_count);

/* A plain C program of `target`: libc's closure as that target's loader finds it. */
int lo_host_new_plain(lo_host **out, lo_resolver *r, const lo_target *target);

/* The target whose loader the host runs under. */
const lo_target *lo_host_target(const lo_host *h);
void lo_host_free(lo_host *h);
const char *lo_host_name(const lo_host *h); /* "python3.11", "(C program)" */

/* Why a load fails. The string values are the JSON "kind" of a reason. */
typedef enum lo_problem_kind {
	LO_PROBLEM_UNDEFINED_SYMBOL, /* "undefined-symbol" */
	LO_PROBLEM_MISSING_VERSION,  /* "missing-version" */
	LO_PROBLEM_MISSING_LIBRARY,  /* "missing-library" */
	LO_PROBLEM_BAD_LIBRARY,      /* "bad-library": the search hit a file ld.so refuses (not ELF, corrupt) */
	LO_PROBLEM_WRONG_CLASS,      /* "wrong-class": the candidate itself is 32-bit, foreign, ... */
	LO_PROBLEM_NOT_LOADABLE,     /* "not-loadable": an executable, a relocatable object */
	LO_PROBLEM_UNREADABLE,       /* "unreadable": the candidate or a dependency cannot be read */
} lo_problem_kind;

const char *lo_problem_kind_str(lo_problem_kind k);

typedef struct lo_problem {
	lo_problem_kind kind;
	const char *object;  /* path of the object that has the need; owned by the load */
	const char *symbol;  /* undefined-symbol, missing-version: the symbol, or NULL */
	const char *version; /* missing-version, or the version of a versioned symbol */
	const char *library; /* missing-library: the DT_NEEDED name; missing-version: the file */
	const char *detail;  /* a sentence for people, e.g. the paths tried */
} lo_problem;

/* How a needed library was found, for explain. */
typedef enum lo_found_via {
	LO_VIA_CANDIDATE, /* the object being loaded */
	LO_VIA_ALREADY,   /* an object of that name was already in the process */
	LO_VIA_PATH,      /* the name contains a slash */
	LO_VIA_RPATH,
	LO_VIA_LD_LIBRARY_PATH,
	LO_VIA_RUNPATH,
	LO_VIA_LDSO_CACHE,
	LO_VIA_LDSO_CONF,
	LO_VIA_DEFAULT,
	LO_VIA_NOT_FOUND,
} lo_found_via;

const char *lo_found_via_str(lo_found_via v);

typedef struct lo_trace_object {
	const char *name;      /* the DT_NEEDED name, or the candidate's path */
	const char *path;      /* where it was found, NULL when not found */
	const char *needed_by; /* path of the object that needs it, NULL for the candidate */
	lo_found_via via;
	const char *via_detail; /* e.g. the RUNPATH entry, "$ORIGIN/../lib" */
	const char *tried;      /* paths tried and rejected, one per line, with why; may be NULL */
	size_t depth;           /* 0 for the candidate */
} lo_trace_object;

typedef struct lo_trace_symbol {
	const char *object;   /* path of the object with the reference */
	const char *symbol;
	const char *version;  /* NULL when unversioned */
	const char *provider; /* path of the defining object, NULL when none */
	bool weak;
} lo_trace_symbol;

typedef struct lo_load lo_load;

enum { LO_LOAD_TRACE = 1 << 0 };

/*
 * Symbols the loader need not find: returns true for a symbol that counts as
 * provided although no object in scope defines it (rules say a host that is
 * not installed provides it, or that it is never a finding).
 */
typedef bool (*lo_symbol_filter)(const char *symbol, void *payload);

/*
 * Play dlopen(path, RTLD_NOW | RTLD_LOCAL) from `host`, as the loader does it:
 * map the needed closure breadth-first (stopping there if a library is
 * missing or refused), then check the required versions (stopping there if
 * one is missing), then bind every undefined symbol. `path` should be
 * absolute. `filter` may be NULL. Returns 0 with *out set whatever the
 * verdict; the problems say whether it would load. The host must outlive
 * the load.
 */
int lo_load_simulate(lo_load **out, lo_resolver *r, const lo_host *host, const char *path,
		     unsigned flags, lo_symbol_filter filter, void *filter_payload);

/*
 * Likewise for the candidate `own`, the object at `path` as the caller
 * read it for itself (lo_resolver_read_own), which the resolver does not
 * hold: the load finds it under another path by its inode, and no other
 * load's binding counts on it. The load must be freed before own is.
 */
int lo_load_simulate_own(lo_load **out, lo_resolver *r, const lo_host *host, const char *path,
			 const lo_elf *own, unsigned flags, lo_symbol_filter filter,
			 void *filter_payload);
/*
 * Play the start of `program`, an ELF executable, as the kernel and ld.so
 * start it: its interpreter (PT_INTERP) there, its libraries mapped, their
 * versions checked, every symbol bound (as under LD_BIND_NOW). The load's
 * problems say whether it would start; its trace (with LO_LOAD_TRACE)
 * lists the program itself first. Returns 0 with *out set.
 */
int lo_load_start(lo_load **out, lo_resolver *r, const char *program, unsigned flags);
void lo_load_free(lo_load *l);

bool lo_load_ok(const lo_load *l);
size_t lo_load_problem_count(const lo_load *l);
const lo_problem *lo_load_problem_at(const lo_load *l, size_t i);
/* The candidate, as read (NULL when it could not be read). */
const lo_elf *lo_load_elf(const lo_load *l);

/*
 * The path of an object of the simulated process whose file changed since
 * the run read it (lo_elf_changed: one stat per object), or NULL. The
 * problems of such a load may come from the change (zeros where the file's
 * bytes were) and are not to be trusted.
 */
const char *lo_load_changed(const lo_load *l);

/* Only with LO_LOAD_TRACE. */
size_t lo_load_object_count(const lo_load *l);
const lo_trace_object *lo_load_object_at(const lo_load *l, size_t i);
size_t lo_load_symbol_count(const lo_load *l);
const lo_trace_symbol *lo_load_symbol_at(const lo_load *l, size_t i);

/*
 * Exposed for unit tests: expand $ORIGIN, $LIB and $PLATFORM in one entry
 * (the `len` bytes at `entry`), as t's loader does, into `out` (cleared
 * first); "" when glibc would drop the entry (a token it has no value
 * for: $PLATFORM where the kernel passes no AT_PLATFORM).
 */
void lo_resolve_expand_dst(lo_buf *out, const char *entry, size_t len, const char *origin,
			   const lo_target *t);
/* Does `target`'s loader ignore the whole RPATH/RUNPATH `list` for its `$` tokens? */
bool lo_resolve_dst_refused(const char *list, const lo_target *target);

#endif
