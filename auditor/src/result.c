/*
 * result.c - the scan's result as plain data (scan.h): the words of its
 * enumerations, its reasons, its rule states, and freeing it. Nothing here
 * judges; scan.c fills the result, report*.c and clean*.c read it.
 */
#include <stdlib.h>

#include "leftover/buf.h"
#include "leftover/resolve.h"
#include "leftover/rules.h"
#include "leftover/scan.h"

const char *lo_kind_str(lo_kind k)
{
	switch (k) {
	case LO_KIND_PYTHON_EXTENSION: return "python-extension";
	case LO_KIND_SHARED_LIBRARY: return "shared-library";
	case LO_KIND_OTHER: return "other";
	}
	return "other";
}

const char *lo_verdict_str(lo_verdict v)
{
	switch (v) {
	case LO_VERDICT_OK: return "ok";
	case LO_VERDICT_BROKEN: return "broken";
	case LO_VERDICT_STALE: return "stale";
	case LO_VERDICT_UNREADABLE: return "unreadable";
	case LO_VERDICT_SKIPPED: return "skipped";
	case LO_VERDICT_UNJUDGED: return "unjudged";
	}
	return "unknown";
}

bool lo_verdict_is_finding(lo_verdict v)
{
	return v == LO_VERDICT_BROKEN || v == LO_VERDICT_STALE || v == LO_VERDICT_UNREADABLE ||
	       v == LO_VERDICT_UNJUDGED;
}

static char *dup_or_null(const char *s)
{
	return s ? lo_xstrdup(s) : NULL;
}

/* The loader's problems are the first reason kinds, in the same order (scan.h). */
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
};

const char *lo_reason_kind_str(lo_reason_kind k)
{
	return (size_t)k < sizeof(reason_kinds) / sizeof(reason_kinds[0]) ? reason_kinds[k]
									   : "unknown";
}

lo_reason *lo_file_add_reason(lo_file *f, lo_reason_kind kind, const char *symbol,
			      const char *version, const char *library, const char *object,
			      const char *detail)
{
	lo_reason *r;

	lo_array_grow(&f->reasons, &f->reason_cap, f->reason_count + 1, sizeof(*r));
	r = &f->reasons[f->reason_count++];
	r->kind = kind;
	r->symbol = dup_or_null(symbol);
	r->version = dup_or_null(version);
	r->library = dup_or_null(library);
	r->object = dup_or_null(object);
	r->detail = dup_or_null(detail);
	r->evidence = NULL;
	return r;
}

void lo_file_dispose(lo_file *f)
{
	size_t j;

	for (j = 0; j < f->reason_count; j++) {
		lo_reason *r = &f->reasons[j];

		free(r->symbol);
		free(r->version);
		free(r->library);
		free(r->object);
		free(r->detail);
		free(r->evidence);
	}
	free(f->reasons);
	free(f->path);
	free(f->target);
	free(f->host);
	free(f->host_rule);
}

void lo_scan_result_free(lo_scan_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->file_count; i++)
		lo_file_dispose(&res->files[i]);
	free(res->files);
	for (i = 0; i < res->note_count; i++)
		free(res->notes[i]);
	free(res->notes);
	for (i = 0; i < res->root_count; i++)
		free(res->roots[i]);
	free(res->roots);
	for (i = 0; i < res->origin_count; i++) {
		lo_scan_origin *o = &res->origins[i];

		free(o->build);
		free(o->source);
		free(o->commit);
		free(o->branch);
		free(o->last_commit);
		free(o->last_branch);
		free(o->last_time);
	}
	free(res->origins);
	free(res->root);
	free(res);
}

unsigned lo_file_rule_states(const lo_file *f)
{
	unsigned on = 0;

	if (f->verdict == LO_VERDICT_BROKEN || f->verdict == LO_VERDICT_UNREADABLE)
		on |= LO_RULES_ON_BROKEN;
	if (f->verdict == LO_VERDICT_STALE)
		on |= LO_RULES_ON_STALE;
	if (f->verdict == LO_VERDICT_UNJUDGED)
		on |= LO_RULES_ON_UNJUDGED;
	if (f->orphan == LO_TRUE)
		on |= LO_RULES_ON_ORPHAN;
	return on;
}
