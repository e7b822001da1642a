/*
 * clean_hooks.c - Ctrl-C and the test hooks of clean and restore (clean_hooks.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean_hooks.h"

static volatile sig_atomic_t stop_requested;

static struct hooks {
	long delay_ms;
	const char *pause_file;
	int paused;
} hooks;

static void on_stop_signal(int sig)
{
	stop_requested = 1;
}

static void test_hook(const char *relpath, void *payload)
{
	struct hooks *h = payload;
	struct timespec ts;

	if (h->pause_file && !h->paused) {
		FILE *f = fopen(h->pause_file, "w");

		/* the test sees the file, changes the tree, and removes it to let us go on */
		if (f)
			fclose(f);
		while (access(h->pause_file, F_OK) == 0)
			usleep(10000);
		h->paused = 1;
	}
	if (h->delay_ms > 0) {
		ts.tv_sec = h->delay_ms / 1000;
		ts.tv_nsec = (h->delay_ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
}

void lo_cli_catch_stop(bool catch)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = catch ? on_stop_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void lo_cli_clean_hooks(lo_clean_opts *opts)
{
	const char *delay = getenv("LEFTOVER_TEST_CLEAN_DELAY_MS");

	lo_cli_catch_stop(true);
	opts->stop = &stop_requested;

	hooks.pause_file = getenv("LEFTOVER_TEST_CLEAN_PAUSE");
	hooks.delay_ms = delay ? atol(delay) : 0;
	if (hooks.pause_file || hooks.delay_ms > 0) {
		opts->before_each = test_hook;
		opts->hook_payload = &hooks;
	}
}
