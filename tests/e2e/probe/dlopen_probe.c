/*
 * dlopen_probe - the real loader's answer for many files, one child each.
 *
 * The oracle of the e2e tests: leftover claims to know, without running
 * anything, whether dlopen(path, RTLD_NOW | RTLD_LOCAL) from a plain C
 * program linked only with libc would succeed. This is that program. It
 * reads NUL-terminated paths on stdin and, for each, forks a child that
 * calls dlopen and reports dlerror() through a pipe, so that a library
 * whose constructor aborts, hangs or pollutes the process cannot affect
 * the next one. The child's stdout and stderr go to /dev/null; a child
 * still running after the timeout is killed.
 *
 * Output, one line per path in input order (paths are given by index so
 * that names with newlines need no escaping):
 *   INDEX ok
 *   INDEX error DLERROR   (newlines in the message replaced by spaces)
 *   INDEX signal N        (the child died of signal N; N=14 is the timeout)
 *   INDEX exit N          (something loaded called exit(N): a sanitizer runtime)
 *
 * usage: dlopen_probe [TIMEOUT_SECONDS] < paths
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exit statuses of the child that a constructor calling exit() is unlikely to use. */
enum { DLOPEN_FAILED = 111, DLOPEN_WRITE_FAILED = 112 };

static void child(const char *path, int out, unsigned timeout)
{
	int devnull = open("/dev/null", O_RDWR);

	if (devnull >= 0) {
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	/* The default SIGALRM action kills the child: that is the timeout. */
	alarm(timeout);
	if (dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
		/* _exit: destructors of what was loaded are not part of the question. */
		_exit(0);
	}
	const char *e = dlerror();
	if (e && write(out, e, strlen(e)) < 0)
		_exit(DLOPEN_WRITE_FAILED);
	_exit(DLOPEN_FAILED);
}

static void probe(size_t index, const char *path, unsigned timeout)
{
	int fds[2];
	if (pipe(fds) < 0) {
		perror("dlopen_probe: pipe");
		exit(2);
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("dlopen_probe: fork");
		exit(2);
	}
	if (pid == 0) {
		close(fds[0]);
		child(path, fds[1], timeout);
	}
	close(fds[1]);

	char msg[4096];
	size_t len = 0;
	ssize_t n;
	while ((n = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	msg[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (msg[i] == '\n' || msg[i] == '\r')
			msg[i] = ' ';

	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			perror("dlopen_probe: waitpid");
			exit(2);
		}
	}
	if (WIFSIGNALED(st))
		printf("%zu signal %d\n", index, WTERMSIG(st));
	else if (WEXITSTATUS(st) == 0)
		printf("%zu ok\n", index);
	else if (WEXITSTATUS(st) == DLOPEN_FAILED)
		printf("%zu error %s\n", index, msg);
	else
		printf("%zu exit %d\n", index, WEXITSTATUS(st));
}

int main(int argc, char **argv)
{
	unsigned timeout = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10;
	char *line = NULL;
	size_t cap = 0, index = 0;
	ssize_t n;

	/* getdelim terminates the string even when the last path lacks its NUL. */
	while ((n = getdelim(&line, &cap, '\0', stdin)) > 0)
		probe(index++, line, timeout);
	free(line);
	return 0;
}
