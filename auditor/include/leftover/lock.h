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
 * Owns: how the shared locks are made. Does not own: what they guard.
 */
#ifndef LEFTOVER_LOCK_H
#define LEFTOVER_LOCK_H

#include <pthread.h>

/* Initialise m as a lock that spins briefly before it sleeps; destroy with pthread_mutex_destroy. */
void lo_lock_init(pthread_mutex_t *m);

#endif
