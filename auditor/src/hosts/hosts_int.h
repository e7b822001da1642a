/*
 * hosts_int.h - private to the hosts module (hosts.c, hosts_python.c).
 */
#ifndef LEFTOVER_HOSTS_INT_H
#define LEFTOVER_HOSTS_INT_H

/* `name` as the shell would find it on PATH; owned, or NULL. */
char *lo_hosts_on_path(const char *name);

#endif
