/*
 * verdict.h - the verdict on one file, from the facts a scan gathered.
 *
 * Owns: the verdicts and the reason kinds (one enumeration each, one table
 * of their words); which fact decides over which (lo_verdict_decide); which
 * loader problems the rules waive; which verdicts are findings; the states a
 * rule's `on` sees. Everything here is a pure function of its arguments.
 *
 * Does not own: gathering the facts (scan.c reads each file, plays its load
 * from its host, asks the build system and git), the reasons' details and
 * paths (scan.c), or how a report lays them out (report*.c).
 */
#ifndef LEFTOVER_VERDICT_H
#define LEFTOVER_VERDICT_H

#include <stdbool.h>

#include "leftover/resolve.h"
#include "leftover/rules.h"

typedef enum lo_verdict {
	LO_VERDICT_OK,         /* "ok" */
	LO_VERDICT_BROKEN,     /* "broken": still produced (or unknown) but would not load */
	LO_VERDICT_STALE,      /* "stale": the current build no longer produces it */
	LO_VERDICT_UNREADABLE, /* "unreadable": cannot be read or parsed */
	LO_VERDICT_SKIPPED,    /* "skipped": a candidate name, but nothing to load (a linker script) */
	LO_VERDICT_UNJUDGED,   /* "unjudged": its host program could not be used, so whether it
				  loads is not known; never acted on, but a finding */
	LO_VERDICT_SUSPECTED,  /* "suspected": no load failure and no build record either way,
				  but the tree and git suggest the build no longer makes it:
				  inference, not evidence; listed, no finding, acted on only
				  when asked (clean --suspected) */
} lo_verdict;

#define LO_VERDICT_COUNT (LO_VERDICT_SUSPECTED + 1)

const char *lo_verdict_str(lo_verdict v); /* "ok" */

/* What a finding with this verdict means, for a one-line summary ("would not load"). */
const char *lo_verdict_sentence(lo_verdict v);

/* Does a file with this verdict need attention (the exit status, the CI reports)? */
bool lo_verdict_is_finding(lo_verdict v);

/* A tri-state for the facts (and JSON fields) that are null until known. */
typedef enum lo_tristate { LO_UNKNOWN = -1, LO_FALSE = 0, LO_TRUE = 1 } lo_tristate;

/*
 * Why a file has its verdict. The first seven are the loader's problems,
 * in lo_problem_kind's order (resolve.h); each kind has one name, the word
 * in the JSON and every report. docs/json.md says what each means.
 */
typedef enum lo_reason_kind {
	LO_REASON_UNDEFINED_SYMBOL,
	LO_REASON_MISSING_VERSION,
	LO_REASON_MISSING_LIBRARY,
	LO_REASON_BAD_LIBRARY,
	LO_REASON_WRONG_CLASS,
	LO_REASON_NOT_LOADABLE,
	LO_REASON_UNREADABLE,
	LO_REASON_NOT_ELF,
	LO_REASON_CHANGED,
	LO_REASON_DANGLING_SYMLINK,
	LO_REASON_SYMLINK_LOOP,
	LO_REASON_NO_HOST,
	LO_REASON_NO_MODULE_INIT,
	LO_REASON_OTHER_INTERPRETER,
	LO_REASON_ORPHAN,
	LO_REASON_SUPERSEDED_LIBRARY,
	LO_REASON_RULE,
	LO_REASON_SUSPECTED,
	LO_REASON_LOADER_NOTE, /* no failure: what the loader model assumed (a stand-in for the
				  system's libraries: Wine's PE DLLs, dyld's text stubs) or
				  passed over (a delay-loaded DLL) */
	LO_REASON_KIND_COUNT   /* not a kind: how many there are */
} lo_reason_kind;

const char *lo_reason_kind_str(lo_reason_kind k); /* "undefined-symbol" */

/* How far judging a file got: what is known before whether it loads. */
typedef enum lo_stage {
	LO_STAGE_LOADED,          /* its load was played (a dangling link's fails): see loads */
	LO_STAGE_UNREADABLE,      /* it, or its directory, could not be read, or changed while read */
	LO_STAGE_NOTHING_TO_LOAD, /* no loader takes it: not ELF, not a shared object, or a
				     name the host's import never looks for */
	LO_STAGE_NO_HOST,         /* the program that loads it could not be used */
	LO_STAGE_LISTED,          /* not a candidate: listed only because the build disowns it */
} lo_stage;

/* What a scan knows of one file. */
typedef struct lo_facts {
	lo_stage stage;
	lo_tristate loads;  /* at LO_STAGE_LOADED: would the load succeed, waivers applied */
	lo_tristate orphan; /* no longer produced by the current build; LO_UNKNOWN without
			       complete evidence */
	bool suspected;     /* orphan unknown, but the tree and git suggest it (buildsys.h) */
} lo_facts;

/*
 * The verdict on a file with these facts. In order: a file that could not
 * be read is unreadable whatever else is known; an orphan is stale whether
 * or not it loads (only an orphan is ever stale, and only a build record
 * makes one); then a file without a usable host is unjudged, one whose
 * load fails broken; then a suspected one is suspected (never stale: it
 * is inference), one with nothing to load skipped; the rest is ok.
 */
lo_verdict lo_verdict_decide(const lo_facts *facts);

/*
 * Is problem `p` of a load no finding: a symbol `[symbols] ignore` names,
 * one that `ruled` (the [host] rule of the file, or NULL) says its host
 * provides, or a library missing that is one of its host's preloads?
 */
bool lo_verdict_waives(const lo_rules *rules, const lo_rules_host *ruled, const lo_problem *p);

/*
 * The states a rule's `on` sees in a file with this verdict and orphan
 * fact (LO_RULES_ON_*, rules.h): unreadable counts as broken; unjudged is
 * LO_RULES_ON_UNJUDGED, which no rule can be `on`.
 */
unsigned lo_verdict_rule_states(lo_verdict v, lo_tristate orphan);

#endif
