/*
 * trust.h - whether a program that a scanned tree names may be run.
 *
 * A build tree is not always the user's own: a CI cache restored from a
 * fork, an artifact of another job, a tree unpacked from a bug report. Its
 * records (CMakeCache.txt's Python3_EXECUTABLE, meson's) and its rule files
 * name programs, and leftover asks some programs a question by running
 * them (hosts.h). Such a program is run only when the tree cannot have put
 * it there nor changed it: it lies outside every scanned tree and the
 * source tree each was built from, it belongs to root or to the user
 * running leftover, and neither it, nor a link on the way to it, nor any
 * directory above them may be written by anyone else (a group other than
 * root's or the user's own, or everyone: a sticky /tmp too, where another
 * user may have planted the file the tree names first). The user vouches
 * for the trees with --trust-tree, or with `[trust] tree` in their own rule
 * files (rules.h): then every program is run, as one the user named
 * (--python, --host, a [host] of their own rules, python3 on PATH) always is.
 *
 * Owns: the trees and the check. Does not own: which programs the user
 * named (hosts.h, rules.h), nor reading a program's files instead of
 * running it (shim.h).
 */
#ifndef LEFTOVER_TRUST_H
#define LEFTOVER_TRUST_H

#include <stdbool.h>

typedef struct lo_trust lo_trust;

/* No trees yet; `vouched`: the user vouches for every tree (--trust-tree). */
lo_trust *lo_trust_new(bool vouched);
void lo_trust_free(lo_trust *t);

/*
 * Add the scanned tree `dir` (absolute): it, the build tree holding it
 * (lo_buildsys_base_of), the source tree that tree's records name
 * (CMAKE_HOME_DIRECTORY, meson-info.json's source) and `source`
 * (--source, or NULL). A record naming `/` leaves nothing to run: a
 * record can narrow what is trusted, never widen it.
 */
void lo_trust_add_tree(lo_trust *t, const char *dir, const char *source);

/* Vouch for every tree after all (a `[trust] tree` of the user's own rules). */
void lo_trust_vouch(lo_trust *t);

/*
 * May `program`, named by a scanned tree, be run? 0 when it may (or the
 * trees are vouched for), else LO_EINVALID with a message saying which
 * file or directory makes it unsafe ("'/b/evil.sh' is not run: it lies
 * inside the scanned tree '/b'").
 */
int lo_trust_check(const lo_trust *t, const char *program);

/*
 * The directory `name` in `dirfd` where leftover keeps its own state in a
 * tree (the quarantine, the lock), made 0700 when missing and
 * opened without following a link: a descriptor, or LO_ERROR with a
 * message naming `shown` (its path) when it is a link or not a directory,
 * or belongs to another user. Another user's directory there would let
 * them read what is quarantined, or plant what restore puts back.
 */
int lo_trust_state_dir(int dirfd, const char *name, const char *shown);

/* What the user can do about a refusal, for the end of a note. */
#define LO_TRUST_HINT                                                                        \
	"leftover runs nothing a scanned tree names unless --trust-tree vouches for it"

#endif
