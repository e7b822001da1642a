/*
 * hosts.c - finding the program that loads an object (hosts.h).
 *
 * A host on a developer's machine is often not the program itself:
 * `python3` on PATH is a pyenv shim (a bash script that picks a version
 * and execs it), CMake records that shim as Python3_EXECUTABLE, a venv's
 * python is a symlink, a wrapper script sets variables and execs the real
 * binary. Only the ELF program that finally runs says which libraries are
 * in the global scope, so a script is asked which program it is. The
 * question is fixed per family and prints a path: no object under judgement
 * is loaded by it, and a host that hangs or babbles is cut off and named.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "hosts/hosts_int.h"
#include "leftover/buildsys.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/hosts.h"
#include "leftover/lock.h"
#include "leftover/map.h"
#include "leftover/os.h"
#include "leftover/pyconf.h"
#include "leftover/shim.h"
#include "leftover/target.h"
#include "leftover/trust.h"

extern char **environ;

/* An answer longer than a path can be is not a path. */
#define ANSWER_MAX 4096

bool lo_hosts_elf_has(lo_rules_trait trait, const char *glob, void *elf)
{
	switch (trait) {
	case LO_RULES_NEEDS: return lo_elf_needs(elf, glob);
	case LO_RULES_EXPORTS: return lo_elf_exports_matching(elf, glob);
	case LO_RULES_NEEDS_LIBRARY: return lo_elf_needs_library(elf, glob);
	}
	return false;
}

/*
 * The one command each family is asked: it prints the absolute path of the
 * running interpreter on its first line and, for python, the file name
 * endings its import takes (EXTENSION_SUFFIXES; none before Python 3) on
 * the next ones. A program whose name starts with `prefix` is of that
 * family; `what` says in messages what was asked.
 *
 * `plain`, when set, comes first: python's -S leaves out the site module,
 * from which neither answer comes (sys.executable is set before it runs,
 * the suffixes are the import system's own), but which runs every .pth
 * file of the interpreter's site-packages and any sitecustomize on
 * PYTHONPATH: code that may print to stdout, before the answer, or take
 * its time (a sixth of the 33 ms of CPU the question takes here).
 */
static const struct family {
	const char *name;
	const char *prefix[3];
	const char *plain, *flag, *code, *what;
} families[] = {
	{ "python", { "python", "pypy", NULL }, "-S", "-c",
	  "import sys\n"
	  "try:\n from importlib.machinery import EXTENSION_SUFFIXES as s\n"
	  "except ImportError:\n s = []\n"
	  "sys.stdout.write('\\n'.join([sys.executable] + s))",
	  "sys.executable and importlib.machinery.EXTENSION_SUFFIXES" },
	{ "perl", { "perl", NULL }, NULL, "-e", "print $^X", "$^X" },
	{ "ruby", { "ruby", NULL }, NULL, "-e", "print RbConfig.ruby", "RbConfig.ruby" },
	{ "node", { "node", "nodejs", NULL }, NULL, "-p", "process.execPath", "process.execPath" },
};

/* 1 when `path` starts with the ELF magic, 0 when it does not, -1 unreadable. */
static int is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;

	lo_deps_note_path(path); /* a host program replaced: deps.h */
	if (fd < 0)
		return -1;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n < 0)
		return -1;
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

static const struct family *family_of(const char *program, const char *name)
{
	const char *base = lo_os_path_last_separator(program);
	size_t i, j;

	base = base ? base + 1 : program;
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family *f = &families[i];

		if (name) {
			if (!strcmp(f->name, name))
				return f;
			continue;
		}
		for (j = 0; f->prefix[j]; j++)
			if (!strncmp(base, f->prefix[j], strlen(f->prefix[j])))
				return f;
	}
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Read the child's answer from `fd` until end of file, the deadline or the
 * size limit. Returns 0 at end of file, 1 past the deadline, 2 too long.
 */
static int read_answer(int fd, lo_buf *answer, long long deadline)
{
	char chunk[512];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return 1;
		if (poll(&pfd, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (!pfd.revents)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		lo_buf_add(answer, chunk, (size_t)n);
		if (answer->len > ANSWER_MAX)
			return 2;
	}
}

/* Start `argv` in a process group of its own, stdin and stderr on /dev/null. */
static int spawn_quiet(pid_t *pid, char *const argv[], int out_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	/* its own group, so that a timeout kills what the shim started too */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawn(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/*
 * Run `program [PLAIN] FLAG CODE` and put what it printed in `answer`.
 * Returns 0, or an error naming the program.
 */
static int ask(const char *program, const struct family *f, lo_buf *answer)
{
	char *argv[5], **arg = argv;
	int fds[2], status = 0, late, rc;
	long long deadline;
	pid_t pid;

	*arg++ = (char *)program;
	if (f->plain)
		*arg++ = (char *)f->plain;
	*arg++ = (char *)f->flag;
	*arg++ = (char *)f->code;
	*arg = NULL;
	if (lo_os_pipe(fds) < 0)
		return lo_error_set(LO_ERROR, "cannot ask host program '%s' which program it is: "
				    "pipe: %s", program, strerror(errno));
	rc = spawn_quiet(&pid, argv, fds[1]);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return lo_error_set(LO_ERROR, "cannot run host program '%s': %s", program,
				    strerror(rc));
	}
	deadline = now_ms() + LO_HOSTS_ASK_SECONDS * 1000LL;
	late = read_answer(fds[0], answer, deadline);
	close(fds[0]);
	/* its output closed is not its end: wait for that too, as long as it may take */
	while (!late && waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() >= deadline)
			late = 1;
		else
			nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000 * 1000 }, NULL);
	}
	if (late) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (late == 1)
		return lo_error_set(LO_EINVALID, "host program '%s' did not say which program it is "
				    "within %d s (asked for %s)", program,
				    LO_HOSTS_ASK_SECONDS, f->what);
	if (late == 2)
		return lo_error_set(LO_EINVALID, "host program '%s' answered with more than %d "
				    "bytes when asked which program it is", program, ANSWER_MAX);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return lo_error_set(LO_EINVALID, "host program '%s' failed (%s %d) when asked "
				    "for %s", program,
				    WIFEXITED(status) ? "exit status" : "signal",
				    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				    f->what);
	return 0;
}

/* The answer's lines after the first, as a NULL-terminated array; owned. */
static char **answer_rest(const char *rest)
{
	char **out = NULL;
	size_t n = 0, cap = 0;

	while (rest && *rest) {
		size_t len = strcspn(rest, "\n");

		if (len) {
			lo_array_grow(&out, &cap, n + 2, sizeof(*out));
			out[n++] = lo_xstrndup(rest, len);
		}
		rest += len + (rest[len] == '\n');
	}
	if (out)
		out[n] = NULL;
	return out;
}

/*
 * Take `answer` (from `program` of family f) into p, or say what is wrong
 * with it; `elf`: the program is an ELF program itself, asked only for the
 * rest of the answer.
 */
static int take_answer(lo_hosts_program *p, const char *program, bool elf,
		       const struct family *f, lo_buf *answer)
{
	const char *a = lo_buf_cstr(answer), *nl;
	size_t n = strcspn(a, "\n");
	char *first = lo_xstrndup(a, n);

	nl = a[n] ? a + n + 1 : NULL;
	while (n && strchr(" \t\r", first[n - 1]))
		first[--n] = '\0';
	if (!lo_os_path_is_absolute(first) || strlen(a) != answer->len || strpbrk(first, "\r\t") ||
	    is_elf_file(first) != 1) {
		int err = lo_error_set(LO_EINVALID,
				       elf ? "host program '%s', asked for %s, answered '%.200s': %s"
					   : "host program '%s' is not an ELF program, and when asked "
					     "for %s it answered '%.200s', %s",
				       program, f->what, first,
				       !lo_os_path_is_absolute(first) ? "not an absolute path"
								       : "not an ELF program");

		free(first);
		return err;
	}
	p->path = first;
	p->suffixes = answer_rest(nl);
	return 0;
}

void lo_hosts_program_free(lo_hosts_program *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; p->suffixes && p->suffixes[i]; i++)
		free(p->suffixes[i]);
	free(p->suffixes);
	free(p->path);
	free(p->how);
	free(p->unasked);
	free(p);
}

/* A shim that leads to a shim is followed this far, then asked. */
#define MAX_SHIMS 4

/* May `program` be run (trust.h)? NULL `trust`: the user named it. */
static int may_run(const lo_trust *trust, const char *program)
{
	char *why;
	int err;

	if (!trust || lo_trust_check(trust, program) == 0)
		return 0;
	/* the message is formatted into the buffer it is read from: copied first */
	why = lo_xstrdup(lo_error_last());
	err = lo_error_set(LO_EINVALID, "%s (%s)", why, LO_TRUST_HINT);
	free(why);
	return err;
}

/*
 * A python that may not be run: its suffixes read from its files
 * (pyconf.h), said in p->how with `why` it was not run; else `why` is
 * what p->unasked says.
 */
static void read_unrun(lo_hosts_program *p, const char *program, const char *why)
{
	char *from = NULL, *said = lo_xstrdup(why); /* `why` may be the error buffer */
	const lo_target *t;
	lo_elf *e;

	if (lo_elf_open(&e, AT_FDCWD, program, program, true) == 0) {
		if ((t = lo_target_of(e)))
			p->suffixes = lo_pyconf_suffixes(program, t->name, &from);
		lo_elf_free(e);
	}
	if (!p->suffixes) {
		p->unasked = said;
		return;
	}
	if (asprintf(&p->how, "%s; its extension suffixes are read from '%s'", said, from) < 0)
		abort();
	free(said);
	free(from);
}

/* lo_hosts_program_new after `shims` shims. */
static int program_new(lo_hosts_program **out, const char *program, const char *family,
		       const lo_trust *trust, int shims)
{
	lo_hosts_program *p = lo_xcalloc(1, sizeof(*p));
	const struct family *f = family_of(program, family);
	lo_buf answer = LO_BUF_INIT;
	char *real = NULL, *how = NULL;
	int err = 0;

	*out = NULL;
	if (is_elf_file(program) != 0) {
		/* an interpreter that is its own program is asked only for what else it knows;
		   one for another machine (an aarch64 python on x86-64) cannot run here, and is
		   still read as the host it is, as is one a scanned tree may have changed */
		if (f && !strcmp(f->name, "python")) {
			if (may_run(trust, program) < 0)
				read_unrun(p, program, lo_error_last());
			else if (ask(program, f, &answer) == 0 &&
				 take_answer(p, program, true, f, &answer) == 0)
				free(p->path);
			else
				p->unasked = lo_xstrdup(lo_error_last());
		}
		p->path = lo_xstrdup(program);
		goto out;
	}
	/* a shim whose files say what it runs is read, not run (shim.h) */
	if (shims < MAX_SHIMS && lo_shim_resolve(program, &real, &how)) {
		lo_hosts_program *behind;

		if ((err = program_new(&behind, real, f ? f->name : family, trust, shims + 1)) == 0) {
			char *both = NULL;

			lo_hosts_program_free(p);
			p = behind;
			if (p->how && asprintf(&both, "%s; %s", how, p->how) < 0)
				abort();
			free(p->how);
			p->how = both ? both : how;
			if (both)
				free(how);
			how = NULL;
		}
		free(how);
		free(real);
		goto out;
	}
	if (!f) {
		err = lo_error_set(LO_ENOTELF, "cannot use host program: '%s' is not an ELF file "
				   "(a script or shim, not the program itself?)", program);
		goto out;
	}
	if ((err = may_run(trust, program)) < 0 || (err = ask(program, f, &answer)) < 0 ||
	    (err = take_answer(p, program, false, f, &answer)) < 0)
		goto out;
	if (asprintf(&p->how, "'%s' is not an ELF program (a shim or script); asked for %s, "
		     "it runs '%s', which is the host", program, f->what, p->path) < 0)
		abort();
out:
	lo_buf_dispose(&answer);
	if (err < 0)
		lo_hosts_program_free(p);
	else
		*out = p;
	return err;
}

int lo_hosts_program_new(lo_hosts_program **out, const char *program, const char *family,
			 const lo_trust *trust)
{
	return program_new(out, program, family, trust, 0);
}

/* ---- a scan's hosts --------------------------------------------------------- */

/* The family of a host that is only read, never run: one inferred (infer.c). */
static const char READ_ONLY[] = "(read only)";

/* A host program as a scan knows it: set up once, or failed once. */
typedef struct entry {
	lo_host *host;
	lo_hosts_program *program; /* NULL for the plain C program */
	char *error; /* why it cannot be used, or NULL */
	bool ready;  /* set up: the fields above are final (under the lock) */
	bool noted;  /* its notes are in the report: a file has needed it */
} entry;

struct lo_hosts {
	lo_resolver *resolver;
	const char *python, *host; /* --python, --host */
	const lo_trust *trust;     /* what a program a tree names must pass to be run */
	char *path_python;         /* python3 on PATH (lo_hosts_python_on_path), looked up once */
	pthread_mutex_t lock;      /* guards the rest */
	pthread_cond_t ready;      /* an entry became ready */
	lo_map *by_program;        /* program path, or "(C) TRIPLET" for a target's plain C
				      program -> entry */
	lo_map *python_by_dir;     /* directory -> interpreter path (owned) or NULL */
	char **notes;
	size_t note_count, note_cap;
	char **details; /* lo_hosts_detail's */
	size_t detail_count, detail_cap;
	/* lo_hosts_python_start's thread and the directory it asks for */
	bool started, starter_running;
	pthread_t starter;
	char *start_dir;
	lo_hosts_guesses *infer; /* the candidates host inference has found, per directory */
};

static void entry_free(void *p)
{
	entry *e = p;

	lo_host_free(e->host);
	lo_hosts_program_free(e->program);
	free(e->error);
	free(e);
}

lo_hosts *lo_hosts_new(lo_resolver *r, const char *python, const char *host,
		       const lo_trust *trust)
{
	lo_hosts *hs = lo_xcalloc(1, sizeof(*hs));

	hs->resolver = r;
	hs->python = python;
	hs->host = host;
	hs->trust = trust;
	hs->path_python = lo_hosts_on_path("python3");
	lo_lock_init(&hs->lock);
	pthread_cond_init(&hs->ready, NULL);
	hs->by_program = lo_map_new();
	hs->python_by_dir = lo_map_new();
	hs->infer = lo_hosts_guesses_new(r);
	return hs;
}

void lo_hosts_free(lo_hosts *hs)
{
	size_t i;

	if (!hs)
		return;
	lo_hosts_settle(hs);
	free(hs->start_dir);
	free(hs->path_python);
	lo_map_free(hs->by_program, entry_free);
	lo_map_free(hs->python_by_dir, free);
	lo_hosts_guesses_free(hs->infer);
	for (i = 0; i < hs->note_count; i++)
		free(hs->notes[i]);
	free(hs->notes);
	lo_strv_free(hs->details, hs->detail_count);
	pthread_cond_destroy(&hs->ready);
	pthread_mutex_destroy(&hs->lock);
	free(hs);
}

lo_hosts_guesses *lo_hosts_guesses_of(lo_hosts *hs)
{
	return hs->infer;
}

const char *lo_hosts_note(const lo_hosts *hs, size_t i)
{
	return i < hs->note_count ? hs->notes[i] : NULL;
}

static void add_note(lo_hosts *hs, char *line)
{
	lo_array_grow(&hs->notes, &hs->note_cap, hs->note_count + 1, sizeof(char *));
	hs->notes[hs->note_count++] = line;
}

const char *lo_hosts_detail(const lo_hosts *hs, size_t i)
{
	return i < hs->detail_count ? hs->details[i] : NULL;
}

/* What a host's program loads first, as the rules write it. */
typedef struct preloads {
	const char *const *paths; /* borrowed */
	size_t count;
} preloads;

/*
 * The paths of `pre` for the program that runs at `runs`: ${program_dir}
 * is its directory, symlinks resolved, as the JVM's launcher finds its
 * libjvm.so from its own path (under --sysroot, the path as given).
 * Owned, `pre->count` entries.
 */
static char **preload_paths(lo_resolver *r, const preloads *pre, const char *runs)
{
	char **out = lo_xcalloc(pre->count ? pre->count : 1, sizeof(*out));
	char *real = lo_resolver_in_sysroot(r) ? NULL : realpath(runs, NULL);
	const char *prog = real ? real : runs, *slash = lo_os_path_last_separator(prog);
	size_t i, dir = slash ? (size_t)(slash - prog) : 0;

	for (i = 0; i < pre->count; i++) {
		const char *v = pre->paths[i];

		if (strncmp(v, "${program_dir}/", 15))
			out[i] = lo_xstrdup(v);
		else if (asprintf(&out[i], "%.*s%s", (int)dir, prog, v + 14) < 0)
			abort();
	}
	free(real);
	return out;
}

int lo_hosts_host_new(lo_host **out, lo_resolver *r, const char *runs,
		      const char *const *preload, size_t preload_count)
{
	preloads pre = { preload, preload_count };
	char **paths;
	size_t i;
	int err;

	if (!preload_count)
		return lo_host_new(out, r, runs);
	paths = preload_paths(r, &pre, runs);
	err = lo_host_new_preloaded(out, r, runs, (const char *const *)paths, preload_count);
	for (i = 0; i < preload_count; i++)
		free(paths[i]);
	free(paths);
	return err;
}

/*
 * The program that really runs and its global scope, or target's plain C
 * program. Called without the lock: asking a program takes a process.
 */
static int entry_setup(lo_hosts *hs, entry *e, const char *program, const lo_target *target,
		       const char *family, const preloads *pre, bool vouched)
{
	int err;

	if (!program)
		return lo_host_new_plain(&e->host, hs->resolver, target);
	/* a program under --sysroot may be for another machine, an inferred one is only a
	   guess (family READ_ONLY): read, never run */
	if (lo_resolver_in_sysroot(hs->resolver) || family == READ_ONLY)
		return lo_hosts_host_new(&e->host, hs->resolver, program, pre->paths, pre->count);
	if ((err = lo_hosts_program_new(&e->program, program, family,
					vouched ? NULL : hs->trust)) < 0)
		return err;
	return lo_hosts_host_new(&e->host, hs->resolver, e->program->path, pre->paths,
				 pre->count);
}

/*
 * What the report hears of an entry once a file needs it: why it cannot be
 * used, a shim followed, suffixes not asked.
 */
static void entry_notes(lo_hosts *hs, const entry *e)
{
	char *line = NULL;

	if (e->error) {
		if (asprintf(&line, "%s; the files it would load are unjudged", e->error) < 0)
			abort();
		add_note(hs, line);
		return;
	}
	if (!e->program)
		return;
	/* a shim followed is the normal case on a pyenv machine: a detail, not news */
	if (e->program->how) {
		lo_array_grow(&hs->details, &hs->detail_cap, hs->detail_count + 1, sizeof(char *));
		hs->details[hs->detail_count++] = lo_xstrdup(e->program->how);
	}
	if (!e->program->unasked)
		return;
	if (asprintf(&line, "%s; read as the %s program it is, it judges its extension "
		     "modules by their load alone: which file names its import takes "
		     "(EXTENSION_SUFFIXES) is not known", e->program->unasked,
		     lo_host_target(e->host)->name) < 0)
		abort();
	add_note(hs, line);
}

/*
 * The entry for `program` (NULL: target's plain C program), set up on
 * first use and kept, failure included; a failure's message gets `hint`
 * (what the user can do). What there is to say of it is said once in the
 * notes, when `use` (a file needs it, rather than lo_hosts_python_start
 * asking ahead). `vouched`: the user named the program, which is then
 * run without the trust check (trust.h). Called with the lock held, which
 * it lets go while it sets one up.
 */
static int lookup_locked(lo_hosts *hs, const char *program, const lo_target *target,
			 const char *family, const preloads *pre, bool vouched, const char *hint,
			 bool use, const lo_host **host, const lo_hosts_program **prog)
{
	lo_buf key = LO_BUF_INIT;
	size_t i;
	entry *e;

	if (!program && !target)
		return lo_error_set(LO_EINVALID, "no loader model for the object's machine; name "
				    "the program that loads it with --host");
	if (!program)
		lo_buf_printf(&key, "(C) %s", target->name);
	else
		lo_buf_printf(&key, "%s", program);
	/* the same program with other preloads is another process */
	for (i = 0; i < pre->count; i++)
		lo_buf_printf(&key, "\n%s", pre->paths[i]);
	/* and one the user named may be run where the one a tree names is not, and an
	   inferred one never is */
	if (family == READ_ONLY)
		lo_buf_puts(&key, "\n(read only)");
	else if (!vouched)
		lo_buf_puts(&key, "\n(named by a tree)");
	e = lo_map_get(hs->by_program, lo_buf_cstr(&key), NULL);
	if (!e) {
		int err;

		/*
		 * Set up outside the lock: asking a program (a pyenv shim, say)
		 * can take a good part of a second, and the other threads'
		 * files mostly need other hosts. Those that need this one wait
		 * for it to be ready.
		 */
		e = lo_xcalloc(1, sizeof(*e));
		lo_map_put(hs->by_program, lo_buf_cstr(&key), e);
		pthread_mutex_unlock(&hs->lock);
		err = entry_setup(hs, e, program, target, family, pre, vouched);
		pthread_mutex_lock(&hs->lock);
		if (err < 0 && asprintf(&e->error, "%s%s", lo_error_last(), hint) < 0)
			abort();
		e->ready = true;
		pthread_cond_broadcast(&hs->ready);
	}
	while (!e->ready)
		pthread_cond_wait(&hs->ready, &hs->lock);
	if (use && !e->noted) {
		e->noted = true;
		entry_notes(hs, e);
	}
	lo_buf_dispose(&key);
	*host = e->host;
	*prog = e->program;
	return e->error ? lo_error_set(LO_EINVALID, "%s", e->error) : 0;
}

static const preloads no_preloads = { NULL, 0 };

int lo_hosts_for_inferred(lo_hosts *hs, const char *program, const char *const *preload,
			  size_t preload_count, const lo_host **host)
{
	preloads pre = { preload, preload_count };
	const lo_hosts_program *unused;
	int err;

	pthread_mutex_lock(&hs->lock);
	err = lookup_locked(hs, program, NULL, READ_ONLY, &pre, true, "", false, host, &unused);
	pthread_mutex_unlock(&hs->lock);
	return err;
}

void lo_hosts_add_detail(lo_hosts *hs, const char *line)
{
	pthread_mutex_lock(&hs->lock);
	lo_strv_add_unique(&hs->details, &hs->detail_count, &hs->detail_cap, line);
	pthread_mutex_unlock(&hs->lock);
}

static int for_file_locked(lo_hosts *hs, bool python, const char *dir, const lo_target *target,
			   bool use, const lo_host **host, const lo_hosts_program **prog)
{
	char *program;
	bool known;

	if (!python)
		return lookup_locked(hs, hs->host, target, NULL, &no_preloads, true,
				     hs->host ? " (the program named with --host)"
					      : " (name the program that loads it with --host)",
				     use, host, prog);
	/* the interpreter is looked up from the module's own directory up: a scan of a
	   parent of several build trees takes each tree's CMakeCache.txt */
	program = lo_map_get(hs->python_by_dir, dir, &known);
	if (!known) {
		program = lo_hosts_python_for(hs->python, dir);
		lo_map_put(hs->python_by_dir, dir, program);
	}
	if (!program)
		return lo_error_set(LO_ENOTFOUND, "no Python interpreter for the extension modules "
				    "in '%s': none in a CMakeCache.txt or meson's log above it, none "
				    "on PATH; name one with --python", dir);
	/* a record may name the user's own python3 on PATH; any other it names is the tree's */
	return lookup_locked(hs, program, NULL, "python", &no_preloads,
			     hs->python || (hs->path_python && !strcmp(program, hs->path_python)),
			     "; name the interpreter with --python", use, host, prog);
}

int lo_hosts_for_file(lo_hosts *hs, bool python, const char *dir, const lo_target *target,
		      const lo_host **host, const lo_hosts_program **program)
{
	int err;

	*host = NULL;
	*program = NULL;
	pthread_mutex_lock(&hs->lock);
	err = for_file_locked(hs, python, dir, target, true, host, program);
	pthread_mutex_unlock(&hs->lock);
	return err;
}

static void *python_starter(void *arg)
{
	lo_hosts *hs = arg;
	const lo_host *host;
	const lo_hosts_program *program;

	/* what it finds, failure included, is kept (and said) for the files that need it */
	pthread_mutex_lock(&hs->lock);
	for_file_locked(hs, true, hs->start_dir, NULL, false, &host, &program);
	pthread_mutex_unlock(&hs->lock);
	return NULL;
}

void lo_hosts_python_start(lo_hosts *hs, const char *dir)
{
	pthread_mutex_lock(&hs->lock);
	if (!hs->started) {
		hs->started = true;
		hs->start_dir = lo_xstrdup(dir);
		hs->starter_running = pthread_create(&hs->starter, NULL, python_starter, hs) == 0;
	}
	pthread_mutex_unlock(&hs->lock);
}

void lo_hosts_settle(lo_hosts *hs)
{
	if (hs->starter_running)
		pthread_join(hs->starter, NULL);
	hs->starter_running = false;
}

int lo_hosts_for_rule(lo_hosts *hs, const char *program, const char *name, bool vouched,
		      const char *const *preload, size_t preload_count, const lo_host **host,
		      const lo_hosts_program **program_out)
{
	preloads pre = { preload, preload_count };
	char *hint = NULL;
	int err;

	if (asprintf(&hint, " (the program of [host \"%s\"] in the rules; 'leftover rules "
		     "--show-origin' says where it is set, --python or --host replace it)", name) < 0)
		abort();
	pthread_mutex_lock(&hs->lock);
	/*
	 * A rule named for a family ([host "python"]) names a program of that
	 * family whatever its file is called, as the interpreter the build
	 * records name is: one entry a program, so both must say the same, or
	 * which thread came first decided (a tree's "evil-python3" was refused
	 * as not ELF, or as not to be run).
	 */
	err = lookup_locked(hs, program, NULL, family_of("", name) ? name : NULL, &pre, vouched,
			    hint, true, host, program_out);
	pthread_mutex_unlock(&hs->lock);
	free(hint);
	return err;
}
