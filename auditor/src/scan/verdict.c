/*
 * verdict.c - the verdict from the facts (see verdict.h).
 *
 * The order of lo_verdict_decide is the tool's promise: a verdict that
 * lets `clean` act (stale, broken) is reached only on the facts that make
 * it true, and a fact that leaves the load unknown (no host, nothing to
 * load) never makes a file broken.
 */
#include <stddef.h>

#include "leftover/verdict.h"

static const struct {
	const char *name, *sentence;
} verdicts[] = {
	[LO_VERDICT_OK] = { "ok", "would load, and is still built" },
	[LO_VERDICT_BROKEN] = { "broken", "would not load" },
	[LO_VERDICT_STALE] = { "stale", "no longer built by the current build" },
	[LO_VERDICT_UNREADABLE] = { "unreadable", "unreadable" },
	[LO_VERDICT_SKIPPED] = { "skipped", "skipped" },
	[LO_VERDICT_UNJUDGED] = { "unjudged", "unjudged" },
	[LO_VERDICT_SUSPECTED] = { "suspected", "possibly stale: inferred from the tree and git, "
					       "no build record" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *lo_verdict_str(lo_verdict v)
{
	return (size_t)v < COUNT(verdicts) ? verdicts[v].name : "unknown";
}

const char *lo_verdict_sentence(lo_verdict v)
{
	return (size_t)v < COUNT(verdicts) ? verdicts[v].sentence : "unknown";
}

bool lo_verdict_is_finding(lo_verdict v)
{
	return v == LO_VERDICT_BROKEN || v == LO_VERDICT_STALE || v == LO_VERDICT_UNREADABLE ||
	       v == LO_VERDICT_UNJUDGED;
}

/* The loader's problems are the first reason kinds, in the same order. */
_Static_assert((int)LO_REASON_UNDEFINED_SYMBOL == (int)LO_PROBLEM_UNDEFINED_SYMBOL &&
		       (int)LO_REASON_MISSING_VERSION == (int)LO_PROBLEM_MISSING_VERSION &&
		       (int)LO_REASON_MISSING_LIBRARY == (int)LO_PROBLEM_MISSING_LIBRARY &&
		       (int)LO_REASON_BAD_LIBRARY == (int)LO_PROBLEM_BAD_LIBRARY &&
		       (int)LO_REASON_WRONG_CLASS == (int)LO_PROBLEM_WRONG_CLASS &&
		       (int)LO_REASON_NOT_LOADABLE == (int)LO_PROBLEM_NOT_LOADABLE &&
		       (int)LO_REASON_UNREADABLE == (int)LO_PROBLEM_UNREADABLE,
	       "lo_reason_kind starts with lo_problem_kind");

/* Every reason kind's name, by lo_reason_kind: the word the JSON and every report use. */
static const char *const reason_kinds[] = {
	[LO_REASON_UNDEFINED_SYMBOL] = "undefined-symbol",
	[LO_REASON_MISSING_VERSION] = "missing-version",
	[LO_REASON_MISSING_LIBRARY] = "missing-library",
	[LO_REASON_BAD_LIBRARY] = "bad-library",
	[LO_REASON_WRONG_CLASS] = "wrong-class",
	[LO_REASON_NOT_LOADABLE] = "not-loadable",
	[LO_REASON_UNREADABLE] = "unreadable",
	[LO_REASON_NOT_ELF] = "not-elf",
	[LO_REASON_CHANGED] = "changed",
	[LO_REASON_DANGLING_SYMLINK] = "dangling-symlink",
	[LO_REASON_SYMLINK_LOOP] = "symlink-loop",
	[LO_REASON_NO_HOST] = "no-host",
	[LO_REASON_NO_MODULE_INIT] = "no-module-init",
	[LO_REASON_OTHER_INTERPRETER] = "other-interpreter",
	[LO_REASON_ORPHAN] = "orphan",
	[LO_REASON_SUPERSEDED_LIBRARY] = "superseded-library",
	[LO_REASON_RULE] = "rule",
	[LO_REASON_SUSPECTED] = "suspected",
	[LO_REASON_ASSUMED] = "assumed",
};

const char *lo_reason_kind_str(lo_reason_kind k)
{
	return (size_t)k < COUNT(reason_kinds) ? reason_kinds[k] : "unknown";
}

lo_verdict lo_verdict_decide(const lo_facts *facts)
{
	if (facts->stage == LO_STAGE_UNREADABLE)
		return LO_VERDICT_UNREADABLE;
	if (facts->orphan == LO_TRUE)
		return LO_VERDICT_STALE;
	if (facts->stage == LO_STAGE_NO_HOST)
		return LO_VERDICT_UNJUDGED;
	if (facts->stage == LO_STAGE_LOADED && facts->loads == LO_FALSE)
		return LO_VERDICT_BROKEN;
	/* inference, after every fact that is evidence: listed whatever its stage, never stale */
	if (facts->suspected)
		return LO_VERDICT_SUSPECTED;
	return facts->stage == LO_STAGE_NOTHING_TO_LOAD ? LO_VERDICT_SKIPPED : LO_VERDICT_OK;
}

bool lo_verdict_waives(const lo_rules *rules, const lo_rules_host *ruled, const lo_problem *p)
{
	/* the host program, when read, has its preloads in the scope: never missing then */
	if (p->kind == LO_PROBLEM_MISSING_LIBRARY)
		return ruled && lo_rules_host_preloads(ruled, p->library);
	return p->kind == LO_PROBLEM_UNDEFINED_SYMBOL && p->symbol &&
	       (lo_rules_symbol_ignored(rules, p->symbol) ||
		(ruled && lo_rules_host_provides(ruled, p->symbol)));
}

unsigned lo_verdict_rule_states(lo_verdict v, lo_tristate orphan)
{
	unsigned on = 0;

	if (v == LO_VERDICT_BROKEN || v == LO_VERDICT_UNREADABLE)
		on |= LO_RULES_ON_BROKEN;
	if (v == LO_VERDICT_STALE)
		on |= LO_RULES_ON_STALE;
	if (v == LO_VERDICT_UNJUDGED)
		on |= LO_RULES_ON_UNJUDGED;
	if (orphan == LO_TRUE)
		on |= LO_RULES_ON_ORPHAN;
	return on;
}
