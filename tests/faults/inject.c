/*
 * inject.c - faults on demand for the end-to-end tests (tests/e2e/test_faults.py).
 *
 * Built only with the tests and loaded with LD_PRELOAD into the real
 * `leftover` binary, it wraps the libc entry points the tool calls (checked
 * with `nm -D --undefined-only` on the binary and libelf, and `strace -f` on
 * a scan and a clean) and, when a call touches a path matching a rule, does
 * what the rule says: make the call fail with an errno, or change the file
 * system first (unlink, replace, truncate, chmod) and then let the call go
 * on, the way another process racing the tool would. Every fault that fires
 * is logged, so a test can assert that its fault happened rather than pass
 * because an entry point moved.
 *
 * LEFTOVER_FAULTS holds rules separated by ';', each fields `key=value`
 * separated by blanks:
 *
 *   on=CALL      open (open, openat), stat (stat, lstat, fstatat), read,
 *                pread, write, mmap, readdir (readdir, getdents64), fsync, rename (renameat2,
 *                renameat, rename, and linkat: the portable build's rename is a
 *                link then an unlink, os/fs_posix.c), unlink (unlinkat, unlink)
 *   path=GLOB    fnmatch(3) pattern (no FNM_PATHNAME: '*' crosses '/') on the
 *                absolute path the call touches: for a call taking a path,
 *                that path joined to its directory descriptor's (the source,
 *                for a rename); for one taking a descriptor, the descriptor's
 *                (/proc/self/fd); a DIR* counts as its descriptor
 *   do=ACTION    fail:ERRNO (EINTR, EACCES, EIO, ENOSPC): return -1 (NULL,
 *                MAP_FAILED) with that errno, the call not made;
 *                unlink, replace:SRC (rename SRC over it), truncate:N,
 *                chmod:OCTAL: done to that path before the call
 *                (for mmap: after it, so the mapping outlives the bytes)
 *   skip=N       let the first N matching calls through (default 0)
 *   times=N      fire on N calls after those (default 1)
 *
 * LEFTOVER_FAULTS_LOG names a file that gets one line per fault fired:
 * "CALL PATH ACTION".
 *
 * Only the calls listed are wrapped; any other goes straight to libc.
 * Wrapped calls made while a fault is being done (the unlink of an action,
 * writing the log) are passed through, per thread.
 */
#define _GNU_SOURCE
/* the wrappers below replace libc's functions: no fortified inline versions of them */
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum call { C_OPEN, C_STAT, C_READ, C_PREAD, C_WRITE, C_MMAP, C_READDIR, C_FSYNC, C_RENAME,
	    C_UNLINK, C_COUNT };
static const char *const call_names[C_COUNT] = { "open",    "stat",   "read",   "pread",
						 "write",   "mmap",   "readdir", "fsync",
						 "rename",  "unlink" };

enum action { A_FAIL, A_UNLINK, A_REPLACE, A_TRUNCATE, A_CHMOD };

typedef struct rule {
	enum call on;
	char *glob;
	enum action act;
	int err;       /* A_FAIL */
	char *arg;     /* A_REPLACE: the source */
	long long num; /* A_TRUNCATE: size; A_CHMOD: mode */
	unsigned skip, times;
	unsigned seen; /* matching calls so far */
} rule;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rule *rules;
static size_t rule_count;
static const char *log_path;
static bool rules_for[C_COUNT];
static __thread int inside; /* this thread is doing a fault: pass everything through */

static void die(const char *what, const char *text)
{
	fprintf(stderr, "inject.so: %s: '%s'\n", what, text);
	_exit(127);
}

static int errno_of(const char *name)
{
	static const struct {
		const char *name;
		int value;
	} known[] = { { "EINTR", EINTR }, { "EACCES", EACCES }, { "EIO", EIO }, { "ENOSPC", ENOSPC } };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name))
			return known[i].value;
	die("unknown errno", name);
	return 0;
}

static void parse_field(rule *r, const char *key, char *value)
{
	int i;

	if (!strcmp(key, "on")) {
		for (i = 0; i < C_COUNT && strcmp(value, call_names[i]); i++)
			;
		if (i == C_COUNT)
			die("unknown call", value);
		r->on = (enum call)i;
	} else if (!strcmp(key, "path")) {
		r->glob = strdup(value);
	} else if (!strcmp(key, "skip")) {
		r->skip = (unsigned)strtoul(value, NULL, 10);
	} else if (!strcmp(key, "times")) {
		r->times = (unsigned)strtoul(value, NULL, 10);
	} else if (!strcmp(key, "do")) {
		char *colon = strchr(value, ':');

		if (colon)
			*colon++ = '\0';
		if (!strcmp(value, "fail") && colon) {
			r->act = A_FAIL;
			r->err = errno_of(colon);
		} else if (!strcmp(value, "unlink")) {
			r->act = A_UNLINK;
		} else if (!strcmp(value, "replace") && colon) {
			r->act = A_REPLACE;
			r->arg = strdup(colon);
		} else if (!strcmp(value, "truncate") && colon) {
			r->act = A_TRUNCATE;
			r->num = strtoll(colon, NULL, 10);
		} else if (!strcmp(value, "chmod") && colon) {
			r->act = A_CHMOD;
			r->num = strtoll(colon, NULL, 8);
		} else {
			die("unknown action", value);
		}
	} else {
		die("unknown field", key);
	}
}

static void load_rules(void)
{
	const char *env = getenv("LEFTOVER_FAULTS");
	char *text, *save = NULL, *one;

	log_path = getenv("LEFTOVER_FAULTS_LOG");
	if (!env)
		return;
	text = strdup(env);
	for (one = strtok_r(text, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
		char *fsave = NULL, *field;
		rule r = { .on = C_COUNT, .times = 1 };

		for (field = strtok_r(one, " \t\n", &fsave); field;
		     field = strtok_r(NULL, " \t\n", &fsave)) {
			char *eq = strchr(field, '=');

			if (!eq)
				die("field without '='", field);
			*eq = '\0';
			parse_field(&r, field, eq + 1);
		}
		if (r.on == C_COUNT && !r.glob) {
			free(r.arg); /* an empty rule, e.g. after a trailing ';' */
			continue;
		}
		if (r.on == C_COUNT || !r.glob)
			die("a rule needs on= and path=", env);
		rules = realloc(rules, (rule_count + 1) * sizeof(*rules));
		rules[rule_count++] = r;
		rules_for[r.on] = true;
	}
	free(text);
}

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		die("no next definition of", name);
	return f;
}

/* The libc functions themselves, looked up once each. */
#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (!real_##name) \
		real_##name = (__typeof__(name) *)next(#name)

/* The absolute path of descriptor fd, into buf; false when it has none. */
static bool fd_path(int fd, char *buf, size_t n)
{
	char link[64];
	ssize_t got;

	if (fd == AT_FDCWD)
		return getcwd(buf, n) != NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	got = readlink(link, buf, n - 1);
	if (got < 0)
		return false;
	buf[got] = '\0';
	return true;
}

static bool at_path(int dirfd, const char *path, char *buf, size_t n)
{
	char dir[PATH_MAX];

	if (!path)
		return false;
	if (path[0] == '/') {
		snprintf(buf, n, "%s", path);
		return true;
	}
	return fd_path(dirfd, dir, sizeof(dir)) && snprintf(buf, n, "%s/%s", dir, path) < (int)n;
}

static void log_fault(const rule *r, const char *path)
{
	static const char *const acts[] = { "fail", "unlink", "replace", "truncate", "chmod" };
	FILE *f;

	if (!log_path || !(f = fopen(log_path, "a")))
		return;
	fprintf(f, "%s %s %s\n", call_names[r->on], path, acts[r->act]);
	fclose(f);
}

/* Change `path` as r says; nothing the tool could see fails when that does not work. */
static void change_tree(const rule *r, const char *path)
{
	switch (r->act) {
	case A_UNLINK: unlink(path); break;
	case A_REPLACE: rename(r->arg, path); break;
	case A_TRUNCATE: if (truncate(path, (off_t)r->num) < 0) perror("inject.so: truncate"); break;
	case A_CHMOD: if (chmod(path, (mode_t)r->num) < 0) perror("inject.so: chmod"); break;
	case A_FAIL: break;
	}
}

/*
 * The rule that fires for this call of `on` on `path`, or NULL. Only the
 * first matching rule counts the call. For a rule that changes the tree
 * before the call, that is done here.
 */
static const rule *fire(enum call on, const char *path, bool before)
{
	const rule *hit = NULL;
	size_t i;

	for (i = 0; i < rule_count; i++) {
		rule *r = &rules[i];

		if (r->on != on || fnmatch(r->glob, path, 0) != 0)
			continue;
		pthread_mutex_lock(&lock);
		if (r->seen++ >= r->skip && r->seen <= r->skip + r->times)
			hit = r;
		pthread_mutex_unlock(&lock);
		break;
	}
	if (!hit)
		return NULL;
	inside++;
	log_fault(hit, path);
	if (before && hit->act != A_FAIL)
		change_tree(hit, path);
	inside--;
	return hit;
}

static bool armed(enum call on)
{
	pthread_once(&once, load_rules);
	return !inside && rules_for[on];
}

/* Both keep errno as the caller left it (walk.c reads errno after readdir) unless a fault fires. */
static const rule *fire_at(enum call on, int dirfd, const char *path)
{
	char abs[PATH_MAX];
	const rule *r = NULL;
	int saved = errno;

	if (armed(on) && at_path(dirfd, path, abs, sizeof(abs)))
		r = fire(on, abs, true);
	errno = saved;
	return r;
}

static const rule *fire_fd(enum call on, int fd, bool before)
{
	char abs[PATH_MAX];
	const rule *r = NULL;
	int saved = errno;

	if (armed(on) && fd >= 0 && fd_path(fd, abs, sizeof(abs)))
		r = fire(on, abs, before);
	errno = saved;
	return r;
}

/* -1 with the rule's errno when it is a failure; else 0 and the call goes on. */
static int failed(const rule *r)
{
	if (r && r->act == A_FAIL) {
		errno = r->err;
		return -1;
	}
	return 0;
}

/* ---- the wrapped calls ---------------------------------------------------- */

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	REAL(open);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (failed(fire_at(C_OPEN, AT_FDCWD, path)))
		return -1;
	return real_open(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	REAL(openat);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (failed(fire_at(C_OPEN, dirfd, path)))
		return -1;
	return real_openat(dirfd, path, flags, mode);
}

int stat(const char *path, struct stat *st)
{
	REAL(stat);

	if (failed(fire_at(C_STAT, AT_FDCWD, path)))
		return -1;
	return real_stat(path, st);
}

int lstat(const char *path, struct stat *st)
{
	REAL(lstat);

	if (failed(fire_at(C_STAT, AT_FDCWD, path)))
		return -1;
	return real_lstat(path, st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(fstatat);

	if (failed(fire_at(C_STAT, dirfd, path)))
		return -1;
	return real_fstatat(dirfd, path, st, flags);
}

ssize_t read(int fd, void *buf, size_t n)
{
	REAL(read);

	if (failed(fire_fd(C_READ, fd, true)))
		return -1;
	return real_read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread);

	if (failed(fire_fd(C_PREAD, fd, true)))
		return -1;
	return real_pread(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write);

	if (failed(fire_fd(C_WRITE, fd, true)))
		return -1;
	return real_write(fd, buf, n);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(mmap);
	const rule *r = (flags & MAP_ANONYMOUS) ? NULL : fire_fd(C_MMAP, fd, false);
	void *p;

	if (r && r->act == A_FAIL) {
		errno = r->err;
		return MAP_FAILED;
	}
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (r && p != MAP_FAILED) {
		char abs[PATH_MAX];

		inside++;
		if (fd_path(fd, abs, sizeof(abs)))
			change_tree(r, abs);
		inside--;
	}
	return p;
}

struct dirent *readdir(DIR *d)
{
	REAL(readdir);

	if (failed(fire_fd(C_READDIR, dirfd(d), true)))
		return NULL;
	return real_readdir(d);
}

/*
 * The walk lists a directory with getdents64 on its descriptor (walk.c).
 * While a readdir rule is armed each call hands back one entry, as readdir
 * does, so that skip=N fails a listing after its first N entries ("part
 * way"): the rest is left for the next call by moving the directory's
 * offset to the entry's d_off.
 */
ssize_t getdents64(int fd, void *buf, size_t n)
{
	const struct dirent64 *first = buf;
	ssize_t got;

	REAL(getdents64);
	if (failed(fire_fd(C_READDIR, fd, true)))
		return -1;
	got = real_getdents64(fd, buf, n);
	if (got > 0 && armed(C_READDIR) && first->d_reclen < got &&
	    lseek(fd, first->d_off, SEEK_SET) >= 0)
		got = first->d_reclen;
	return got;
}

int fsync(int fd)
{
	REAL(fsync);

	if (failed(fire_fd(C_FSYNC, fd, true)))
		return -1;
	return real_fsync(fd);
}

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	      unsigned int flags)
{
	REAL(renameat2);

	if (failed(fire_at(C_RENAME, olddirfd, oldpath)))
		return -1;
	return real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	REAL(renameat);

	if (failed(fire_at(C_RENAME, olddirfd, oldpath)))
		return -1;
	return real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	REAL(linkat);

	if (failed(fire_at(C_RENAME, olddirfd, oldpath)))
		return -1;
	return real_linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

int rename(const char *oldpath, const char *newpath)
{
	REAL(rename);

	if (failed(fire_at(C_RENAME, AT_FDCWD, oldpath)))
		return -1;
	return real_rename(oldpath, newpath);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	REAL(unlinkat);

	if (failed(fire_at(C_UNLINK, dirfd, path)))
		return -1;
	return real_unlinkat(dirfd, path, flags);
}

int unlink(const char *path)
{
	REAL(unlink);

	if (failed(fire_at(C_UNLINK, AT_FDCWD, path)))
		return -1;
	return real_unlink(path);
}
