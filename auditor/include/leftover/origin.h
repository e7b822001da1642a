/*
 * origin.h - where a build tree came from: its source tree's git HEAD now,
 * and the last other commit a scan of it saw.
 *
 * Owns: the record of each build tree's scans, in the user's cache, never
 * in the tree: $XDG_CACHE_HOME/leftover/state/<SHA-256 of the build dir's
 * real path>.json (else under $HOME/.cache), read, and rewritten by each
 * scan whole, through a temporary file and a rename, so a reader never
 * sees half of it; a record of another directory that once had the path
 * (another inode) is not read. Where no record can be kept (no HOME, a
 * read-only cache, one that is not the user's own) the scan goes on
 * without it, silently. Also, for a tree no scan saw before, the guess
 * from git's reflog of where HEAD was when the tree's oldest candidate was
 * written. Does not own: finding build trees or their source (buildsys.h),
 * nor reading git (git.h); the scan gives the build dir and when its
 * oldest file was made.
 */
#ifndef LEFTOVER_ORIGIN_H
#define LEFTOVER_ORIGIN_H

#include <stdbool.h>
#include <time.h>

#include "leftover/git.h"
#include "leftover/scan.h"

/* How many notes lo_origin_record may give. */
#define LO_ORIGIN_NOTES_MAX 2

/*
 * Fill `o` for the build tree `build` whose source is `source` (NULL: the
 * CMAKE_HOME_DIRECTORY of its CMakeCache.txt), and record this scan in its
 * record. `near` (borrowed, may be NULL) is the repository the caller
 * has open around the build tree: read instead of opening the source's
 * again when it holds the source, as when the build is inside the
 * checkout (an index of 100,000 files takes a sixth of a second to read).
 * `oldest` (called at most once, only when no scan saw another commit)
 * says when the tree's oldest candidate was written, 0 when unknown.
 * Sentences for the report (no git, a branch switch) go to `notes`, owned.
 * Returns false, leaving `o` untouched, when the source is not known: not
 * a build tree this can say anything about.
 */
bool lo_origin_record(lo_scan_origin *o, const char *build, const char *source, lo_git *near,
		      time_t (*oldest)(void *payload), void *payload,
		      char *notes[LO_ORIGIN_NOTES_MAX]);

/*
 * The file `name` in the directory of the records (owned), made 0700 and
 * the user's own when `create`; NULL when there is none (no HOME), or it
 * cannot be made. The verdict cache lives there too (cache.h).
 */
char *lo_origin_state_path(const char *name, bool create);

/*
 * The commit BUILD_DIR was built at before `head`, by its record: owned,
 * or NULL when no scan saw another commit; *branch likewise.
 */
char *lo_origin_built_at(const char *build_dir, const char *head, char **branch);

#endif
