/*
 * hosts_int.h - private to the hosts module (hosts.c, hosts_python.c, infer.c).
 */
#ifndef LEFTOVER_HOSTS_INT_H
#define LEFTOVER_HOSTS_INT_H

#include "leftover/hosts.h"

/* `name` as the shell would find it on PATH; owned, or NULL. */
char *lo_hosts_on_path(const char *name);

/* Host inference's candidates per directory (infer.c), kept by the scan's lo_hosts. */
typedef struct lo_hosts_guesses lo_hosts_guesses;
lo_hosts_guesses *lo_hosts_guesses_new(lo_resolver *r);
void lo_hosts_guesses_free(lo_hosts_guesses *in);
lo_hosts_guesses *lo_hosts_guesses_of(lo_hosts *hs);

/*
 * `program` having loaded `preload` first, read and never run, set up once
 * per scan like every host (hosts.c); 0, or a negative code.
 */
int lo_hosts_for_inferred(lo_hosts *hs, const char *program, const char *const *preload,
			  size_t preload_count, const lo_host **host);

/* Add a sentence for --verbose (lo_hosts_detail), once however often it is added. */
void lo_hosts_add_detail(lo_hosts *hs, const char *line);

#endif
