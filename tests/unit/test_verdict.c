/*
 * test_verdict.c - the promises of the verdict (verdict.h), over every
 * combination of facts a scan can gather.
 *
 * `clean` acts on stale and broken files, so these are the properties that
 * protect a user's work: only an orphan is stale; only a load that was
 * played and failed is broken; a file that could not be read is never
 * called anything else. What is only suspected (inferred from the tree
 * and git, no build record) is never stale, and no finding unless its load
 * fails, but always a verdict of its own, never ok. Each verdict and
 * reason kind has its own word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/verdict.h"

static const lo_stage stages[] = { LO_STAGE_LOADED, LO_STAGE_UNREADABLE,
				   LO_STAGE_NOTHING_TO_LOAD, LO_STAGE_NO_HOST, LO_STAGE_LISTED };
static const lo_tristate tristates[] = { LO_UNKNOWN, LO_FALSE, LO_TRUE };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Call fn on every combination of facts with its verdict. */
static void each_fact(void (*fn)(const lo_facts *, lo_verdict))
{
	size_t i, j, k, s;

	for (i = 0; i < COUNT(stages); i++)
		for (j = 0; j < COUNT(tristates); j++)
			for (k = 0; k < COUNT(tristates); k++)
				for (s = 0; s < 2; s++) {
					lo_facts f = { stages[i], tristates[j], tristates[k], s };

					fn(&f, lo_verdict_decide(&f));
				}
}

static void only_orphans(const lo_facts *f, lo_verdict v)
{
	if (v == LO_VERDICT_STALE)
		assert_int_equal(f->orphan, LO_TRUE);
	/* an orphan is stale whether or not it loads, unless it cannot be read */
	if (f->orphan == LO_TRUE && f->stage != LO_STAGE_UNREADABLE)
		assert_int_equal(v, LO_VERDICT_STALE);
}

static void test_only_an_orphan_is_stale(void **state)
{
	each_fact(only_orphans);
}

static void only_failed_loads(const lo_facts *f, lo_verdict v)
{
	if (v == LO_VERDICT_BROKEN) {
		assert_int_equal(f->stage, LO_STAGE_LOADED);
		assert_int_equal(f->loads, LO_FALSE);
	}
	/* a failed load that is no orphan is a finding, never ok */
	if (f->stage == LO_STAGE_LOADED && f->loads == LO_FALSE && f->orphan != LO_TRUE)
		assert_int_equal(v, LO_VERDICT_BROKEN);
}

static void test_only_a_failed_load_is_broken(void **state)
{
	each_fact(only_failed_loads);
}

static void unknown_stays_unknown(const lo_facts *f, lo_verdict v)
{
	if (f->stage == LO_STAGE_UNREADABLE)
		assert_int_equal(v, LO_VERDICT_UNREADABLE);
	if (f->stage == LO_STAGE_NO_HOST && f->orphan != LO_TRUE)
		assert_int_equal(v, LO_VERDICT_UNJUDGED);
	if (f->stage == LO_STAGE_NOTHING_TO_LOAD && f->orphan != LO_TRUE && !f->suspected)
		assert_int_equal(v, LO_VERDICT_SKIPPED);
	if (f->stage == LO_STAGE_LISTED && f->orphan != LO_TRUE && !f->suspected)
		assert_int_equal(v, LO_VERDICT_OK);
}

static void suspected_is_its_own_level(const lo_facts *f, lo_verdict v)
{
	bool failed = f->stage == LO_STAGE_LOADED && f->loads == LO_FALSE;

	if (v == LO_VERDICT_SUSPECTED) {
		assert_true(f->suspected);
		assert_int_not_equal(f->orphan, LO_TRUE);
	}
	/* inference is no finding by itself: listed as such, never silently ok */
	assert_int_equal(lo_verdict_is_finding(LO_VERDICT_SUSPECTED), false);
	if (f->suspected && f->orphan != LO_TRUE && f->stage != LO_STAGE_UNREADABLE &&
	    f->stage != LO_STAGE_NO_HOST && !failed)
		assert_int_equal(v, LO_VERDICT_SUSPECTED);
	/* a suspected file that would not load stays a finding */
	if (f->suspected && failed && f->orphan != LO_TRUE)
		assert_int_equal(v, LO_VERDICT_BROKEN);
	/* no rule acts on inference */
	if (v == LO_VERDICT_SUSPECTED)
		assert_int_equal(lo_verdict_rule_states(v, f->orphan), 0);
}

static void test_suspected_is_never_stale_and_never_silent(void **state)
{
	each_fact(suspected_is_its_own_level);
}

static void test_what_is_not_known_is_not_a_verdict_to_act_on(void **state)
{
	each_fact(unknown_stays_unknown);
}

static void rule_states(const lo_facts *f, lo_verdict v)
{
	unsigned on = lo_verdict_rule_states(v, f->orphan);

	/* `on = broken` covers unreadable files too; no rule is `on` an unjudged one */
	assert_int_equal(!!(on & LO_RULES_ON_BROKEN),
			 v == LO_VERDICT_BROKEN || v == LO_VERDICT_UNREADABLE);
	assert_int_equal(!!(on & LO_RULES_ON_STALE), v == LO_VERDICT_STALE);
	assert_int_equal(!!(on & LO_RULES_ON_UNJUDGED), v == LO_VERDICT_UNJUDGED);
	assert_int_equal(!!(on & LO_RULES_ON_ORPHAN), f->orphan == LO_TRUE);
	/* what a rule can act on is a finding */
	if (on & (LO_RULES_ON_BROKEN | LO_RULES_ON_STALE))
		assert_true(lo_verdict_is_finding(v));
}

static void test_rule_states(void **state)
{
	each_fact(rule_states);
}

/* Each word is set and its own: a kind added without one would print "unknown" or NULL. */
static void test_every_kind_has_its_own_word(void **state)
{
	const char *seen[64];
	size_t n = 0, i;
	int k;

	for (k = LO_VERDICT_OK; k < LO_VERDICT_COUNT; k++) {
		const char *w = lo_verdict_str((lo_verdict)k);

		assert_non_null(w);
		assert_string_not_equal(w, "unknown");
		assert_non_null(lo_verdict_sentence((lo_verdict)k));
		for (i = 0; i < n; i++)
			assert_string_not_equal(seen[i], w);
		seen[n++] = w;
	}
	n = 0;
	for (k = LO_REASON_UNDEFINED_SYMBOL; k <= LO_REASON_ASSUMED; k++) {
		const char *w = lo_reason_kind_str((lo_reason_kind)k);

		assert_non_null(w);
		assert_string_not_equal(w, "unknown");
		for (i = 0; i < n; i++)
			assert_string_not_equal(seen[i], w);
		seen[n++] = w;
	}
	assert_string_equal(lo_reason_kind_str((lo_reason_kind)(LO_REASON_ASSUMED + 1)), "unknown");
	assert_string_equal(lo_verdict_str(LO_VERDICT_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_an_orphan_is_stale),
		cmocka_unit_test(test_only_a_failed_load_is_broken),
		cmocka_unit_test(test_suspected_is_never_stale_and_never_silent),
		cmocka_unit_test(test_what_is_not_known_is_not_a_verdict_to_act_on),
		cmocka_unit_test(test_rule_states),
		cmocka_unit_test(test_every_kind_has_its_own_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
