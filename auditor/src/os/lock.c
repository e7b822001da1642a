/*
 * lock.c - the locks a scan's threads share (lock.h).
 */
#include "leftover/lock.h"

void lo_lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
#ifdef __GLIBC__
	/* an enumerator, not a macro, of glibc's; elsewhere a plain mutex, which only sleeps sooner */
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}
