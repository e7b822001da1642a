/*
 * lock.h - the locks a scan's threads share.
 *
 * Each guards a table read and written in a few hundred nanoseconds (a
 * map lookup, a queue push), taken tens of thousands of times a scan by
 * every thread. A thread that finds one held and sleeps gives its core
 * away for a wake-up that costs far more than the wait would have: on the
 * benchmark tree that was 1,800 context switches a scan. These locks spin
 * a little first, as glibc's adaptive mutexes do, and sleep only after.
 *
 * A lock of a file, in turn, is how two processes take turns: clean and
 * restore hold ROOT/.leftover.d/lock for their whole run (clean.h).
 *
 * Owns: how the shared locks are made (os/proc_linux.c: glibc's adaptive
 * mutex; os/proc_posix.c, os/proc_win.c: a plain one, which only sleeps
 * sooner) and how a file is locked (os/lock.c, os/lock_win.c). Does not own: what they guard.
 */
#ifndef LEFTOVER_LOCK_H
#define LEFTOVER_LOCK_H

#include <pthread.h>
#include <stdbool.h>

/* Initialise m as a lock that spins briefly before it sleeps; destroy with pthread_mutex_destroy. */
void lo_lock_init(pthread_mutex_t *m);

/*
 * Lock the open file `fd` for this process alone, until it is closed;
 * waiting for another holder when `wait`, else failing with EWOULDBLOCK.
 * Returns 0, or -1 with errno set (EINTR: a signal came while it waited).
 * Windows: LockFileEx (os/lock_win.c).
 */
int lo_lock_file(int fd, bool wait);

#endif
