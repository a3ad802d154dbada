/* check_policy.c: the scheduler's rules (policy.c), each from its facts. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static enum fail_fast_decision
ff_sev(int enabled, const char *key, const char *dtype, const char *cls,
    const char *severity)
{
	struct fail_fast_facts	 f = { enabled, key, dtype, cls, severity };

	return policy_fail_fast(&f);
}

static enum fail_fast_decision
ff(int enabled, const char *key, const char *dtype, const char *cls)
{
	return ff_sev(enabled, key, dtype, cls, "critical");
}

START_TEST(fail_fast_cuts_a_judged_class)
{
	static const char *const cut[] = { "same_shape", "broadcast", "scalar",
	    "noncontig", "reduction", "accumulation", "dtype_exotic",
	    "edge_values", "random" };
	size_t	 i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		ck_assert_int_eq(ff(1, "add", "float32", cut[i]),
		    FAIL_FAST_CUT_CLASS);
		ck_assert_int_eq(policy_fail_fast_class(cut[i]), 1);
	}
}
END_TEST

START_TEST(fail_fast_off_cuts_nothing)
{
	ck_assert_int_eq(ff(0, "add", "float32", "same_shape"), FAIL_FAST_NONE);
}
END_TEST

/* contract cases each check a rule of their own; compile and bootstrap
 * cases are not judged by first failure */
START_TEST(fail_fast_spares_other_classes)
{
	static const char *const keep[] = { "contract", "compile", "bootstrap",
	    "", "Same_shape", "same_shape ", "same" };
	size_t	 i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		ck_assert_int_eq(ff(1, "add", "float32", keep[i]),
		    FAIL_FAST_NONE);
		ck_assert_int_eq(policy_fail_fast_class(keep[i]), 0);
	}
	ck_assert_int_eq(policy_fail_fast_class(NULL), 0);
}
END_TEST

/*
 * Only a critical failure ends its class: after a loud or a numerics one
 * the class goes on (a critical defect behind it is still found); one of
 * unknown severity (stored before severities) cuts as before.
 */
START_TEST(fail_fast_cuts_only_at_critical)
{
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "same_shape", "critical"),
	    FAIL_FAST_CUT_CLASS);
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "same_shape", "numerics"),
	    FAIL_FAST_NONE);
	ck_assert_int_eq(ff_sev(1, "exp", "bfloat16", "dtype_exotic", "loud"),
	    FAIL_FAST_NONE);
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "same_shape", ""),
	    FAIL_FAST_CUT_CLASS);
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "same_shape", NULL),
	    FAIL_FAST_CUT_CLASS);
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "same_shape", "bogus"),
	    FAIL_FAST_CUT_CLASS);
	/* a critical one in a class that runs every case still cuts nothing */
	ck_assert_int_eq(ff_sev(1, "exp", "float32", "contract", "critical"),
	    FAIL_FAST_NONE);
	ck_assert_int_eq(ff_sev(0, "exp", "float32", "same_shape", "critical"),
	    FAIL_FAST_NONE);
}
END_TEST

START_TEST(fail_fast_needs_key_dtype_and_class)
{
	ck_assert_int_eq(ff(1, NULL, "float32", "same_shape"), FAIL_FAST_NONE);
	ck_assert_int_eq(ff(1, "add", NULL, "same_shape"), FAIL_FAST_NONE);
	ck_assert_int_eq(ff(1, "add", "float32", NULL), FAIL_FAST_NONE);
}
END_TEST

static enum key_budget_decision
kb(double budget, double spent, const double *sent, size_t n, double now)
{
	struct key_budget_facts	 f = { budget, spent, sent, n, now };

	return policy_key_budget(&f);
}

START_TEST(key_budget_none_always_runs)
{
	double	 sent[] = { 0 };

	ck_assert_int_eq(kb(0, 1e9, NULL, 0, 0), KEY_BUDGET_RUN);
	ck_assert_int_eq(kb(-1, 1e9, sent, 1, 1e9), KEY_BUDGET_RUN);
}
END_TEST

/* the account must be over the budget, not at it */
START_TEST(key_budget_cut_past_the_budget_only)
{
	ck_assert_int_eq(kb(300, 299.9, NULL, 0, 0), KEY_BUDGET_RUN);
	ck_assert_int_eq(kb(300, 300, NULL, 0, 0), KEY_BUDGET_RUN);
	ck_assert_int_eq(kb(300, 300.001, NULL, 0, 0), KEY_BUDGET_CUT);
}
END_TEST

/* the time runners have held its cases counts before they end */
START_TEST(key_budget_waits_for_cases_in_flight)
{
	double	 sent[] = { 100, 150 };

	/* 200 + (260 - 100) = 360 > 300 */
	ck_assert_int_eq(kb(300, 200, sent, 1, 260), KEY_BUDGET_WAIT);
	/* 200 + 50 = 250 */
	ck_assert_int_eq(kb(300, 200, sent, 1, 150), KEY_BUDGET_RUN);
	/* two in flight: 200 + 50 + 0 = 250; then 200 + 60 + 10 = 270 */
	ck_assert_int_eq(kb(300, 200, sent, 2, 150), KEY_BUDGET_RUN);
	ck_assert_int_eq(kb(300, 200, sent, 2, 160), KEY_BUDGET_RUN);
	/* 200 + 80 + 30 = 310 */
	ck_assert_int_eq(kb(300, 200, sent, 2, 180), KEY_BUDGET_WAIT);
	/* exactly at the budget: runs */
	ck_assert_int_eq(kb(300, 200, sent, 1, 200), KEY_BUDGET_RUN);
}
END_TEST

/* over the budget with cases in flight: their ends charge and cut it */
START_TEST(key_budget_over_with_cases_in_flight_waits)
{
	double	 sent[] = { 10 };

	ck_assert_int_eq(kb(300, 400, sent, 1, 10), KEY_BUDGET_WAIT);
	ck_assert_int_eq(kb(300, 400, sent, 0, 10), KEY_BUDGET_CUT);
}
END_TEST

START_TEST(key_budget_charge_first_calls)
{
	ck_assert(fabs(policy_key_budget_charge(300, "mm", "same_shape",
	    1500) - 1.5) < 1e-12);
	ck_assert(policy_key_budget_charge(300, "mm", NULL, 20) > 0);
	/* no budget, no first call, no key, a ladder step: nothing */
	ck_assert(policy_key_budget_charge(0, "mm", "same_shape", 1500) == 0);
	ck_assert(policy_key_budget_charge(300, "mm", "same_shape", 0) == 0);
	ck_assert(policy_key_budget_charge(300, "mm", "same_shape", -1) == 0);
	ck_assert(policy_key_budget_charge(300, "mm", "same_shape", NAN) == 0);
	ck_assert(policy_key_budget_charge(300, NULL, "same_shape", 1500) == 0);
	ck_assert(policy_key_budget_charge(300, "mm", "compile", 1500) == 0);
}
END_TEST

static struct first_call_facts
fcf(const char *cls)
{
	struct first_call_facts	 f = { .budget = 60, .deadline = 600,
	    .key = "mm", .dtype = "float32", .cls = cls };

	return f;
}

START_TEST(first_call_budget_on_a_judged_case)
{
	struct first_call_facts	 f = fcf("same_shape");

	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_BUDGET);
	f.remeasure = 1;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_REMEASURE);
	/* a re-measure wins over an exempt key and dtype */
	f.exempt = 1;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_REMEASURE);
	f.remeasure = 0;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
}
END_TEST

/* no budget, or one the deadline would reach first */
START_TEST(first_call_budget_off_or_past_the_deadline)
{
	struct first_call_facts	 f = fcf("same_shape");

	f.budget = 0;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f.budget = NAN;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f.budget = 600;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f.budget = 599.5;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_BUDGET);
	f.remeasure = 1;
	f.budget = 600;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
}
END_TEST

START_TEST(first_call_budget_spares_ladders_bootstrap_and_huge)
{
	struct first_call_facts	 f;

	f = fcf("compile");
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f = fcf("bootstrap");
	f.remeasure = 1;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f = fcf("same_shape");
	f.huge = 1;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f = fcf(NULL);
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f = fcf("same_shape");
	f.key = NULL;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
	f = fcf("same_shape");
	f.dtype = NULL;
	ck_assert_int_eq(policy_first_call_mode(&f), FIRST_CALL_FREE);
}
END_TEST

static struct fc_over_decision
over(enum first_call_mode mode, int slot, int pending, double budget)
{
	struct fc_over_facts	 f = { mode, slot, pending, budget };

	return policy_first_call_over(&f);
}

/* the first to run over is measured again; the rest wait for it */
START_TEST(first_call_over_remeasures_once_per_key_and_dtype)
{
	struct fc_over_decision	 d;

	d = over(FIRST_CALL_BUDGET, 1, 0, 60);
	ck_assert_int_eq(d.action, FC_OVER_REMEASURE);
	ck_assert(d.charge == 0);
	d = over(FIRST_CALL_BUDGET, 1, 1, 60);
	ck_assert_int_eq(d.action, FC_OVER_WAIT);
	ck_assert(d.charge == 0);
}
END_TEST

/* a device whose run is over queues nothing, pending or not */
START_TEST(first_call_over_without_a_slot_drops)
{
	struct fc_over_decision	 d;

	d = over(FIRST_CALL_BUDGET, 0, 0, 60);
	ck_assert_int_eq(d.action, FC_OVER_DROP);
	ck_assert(d.charge == 0);
	ck_assert_int_eq(over(FIRST_CALL_BUDGET, 0, 1, 60).action,
	    FC_OVER_DROP);
}
END_TEST

/* the re-measure over too: cut, its key charged the budget, with or
 * without a slot or another re-measure pending */
START_TEST(first_call_over_twice_cuts_and_charges)
{
	struct fc_over_decision	 d;
	int			 slot, pending;

	for (slot = 0; slot < 2; slot++)
		for (pending = 0; pending < 2; pending++) {
			d = over(FIRST_CALL_REMEASURE, slot, pending, 60);
			ck_assert_int_eq(d.action, FC_OVER_CUT);
			ck_assert(d.charge == 60);
		}
	ck_assert(over(FIRST_CALL_REMEASURE, 1, 0, 0.25).charge == 0.25);
}
END_TEST

/* any mode but the re-measure is a call under the budget (case_fcb 1) */
START_TEST(first_call_over_other_modes_are_the_budget)
{
	ck_assert_int_eq(over(FIRST_CALL_FREE, 1, 0, 60).action,
	    FC_OVER_REMEASURE);
	ck_assert_int_eq(over(FIRST_CALL_FREE, 1, 1, 60).action,
	    FC_OVER_WAIT);
	ck_assert_int_eq(over(FIRST_CALL_FREE, 0, 0, 60).action,
	    FC_OVER_DROP);
	ck_assert_int_eq(FIRST_CALL_BUDGET, 1);
	ck_assert_int_eq(FIRST_CALL_REMEASURE, 2);
}
END_TEST

static enum first_call_hold_decision
hold(double h, const double *started, size_t n, double now)
{
	struct first_call_hold_facts	 f = { h, started, n, now };

	return policy_first_call_hold(&f);
}

START_TEST(first_call_hold_past_the_hold_only)
{
	double	 started[] = { 100, 130 };

	ck_assert_int_eq(hold(10, started, 0, 1000), FIRST_CALL_GO);
	ck_assert_int_eq(hold(10, started, 1, 105), FIRST_CALL_GO);
	ck_assert_int_eq(hold(10, started, 1, 110), FIRST_CALL_GO);
	ck_assert_int_eq(hold(10, started, 1, 110.5), FIRST_CALL_HOLD);
	/* any one of them past the hold holds the key */
	ck_assert_int_eq(hold(10, started + 1, 1, 135), FIRST_CALL_GO);
	ck_assert_int_eq(hold(10, started, 2, 135), FIRST_CALL_HOLD);
}
END_TEST

/* the hold is off at 0 and below (it needs no first-call budget) */
START_TEST(first_call_hold_off)
{
	double	 started[] = { 0 };

	ck_assert_int_eq(hold(10, started, 1, 1000), FIRST_CALL_HOLD);
	ck_assert_int_eq(hold(0, started, 1, 1000), FIRST_CALL_GO);
	ck_assert_int_eq(hold(-1, started, 1, 1000), FIRST_CALL_GO);
}
END_TEST

/* a runner's share of the CPUs, never under one thread */
START_TEST(runner_threads_share_the_cores)
{
	ck_assert_int_eq(policy_runner_threads(16, 20), 1);
	ck_assert_int_eq(policy_runner_threads(16, 4), 4);
	ck_assert_int_eq(policy_runner_threads(128, 40), 3);
	ck_assert_int_eq(policy_runner_threads(2, 4), 1);
	ck_assert_int_eq(policy_runner_threads(0, 4), 1);
	ck_assert_int_eq(policy_runner_threads(16, 0), 1);
}
END_TEST

START_TEST(replay_skips_from_any_run)
{
	struct replay_decision	 d = policy_replay(REPLAY_SKIPS, 0);

	ck_assert_int_eq(d.replay, 1);
	ck_assert_ptr_null(d.setting);
	ck_assert_str_eq(d.like[0], "skipped");
	ck_assert_str_eq(d.like[1], "skip_replay");
	ck_assert_str_eq(d.reason, "skip_replay");
}
END_TEST

START_TEST(replay_budget_cuts_under_the_same_budget)
{
	struct replay_decision	 d;

	d = policy_replay(REPLAY_KEY_BUDGET, 300);
	ck_assert_int_eq(d.replay, 1);
	ck_assert_str_eq(d.setting, "key_budget");
	ck_assert(d.budget == 300);
	ck_assert_str_eq(d.like[0], "key_budget");
	ck_assert_ptr_null(d.like[1]);
	ck_assert_str_eq(d.reason, "key_budget");
	d = policy_replay(REPLAY_FIRST_CALL_BUDGET, 60);
	ck_assert_int_eq(d.replay, 1);
	ck_assert_str_eq(d.setting, "first_call_budget");
	ck_assert_str_eq(d.like[0], "first_call_budget");
	ck_assert_str_eq(d.reason, "first_call_budget");
}
END_TEST

/* without a budget there is nothing to replay */
START_TEST(replay_no_budget_no_replay)
{
	ck_assert_int_eq(policy_replay(REPLAY_KEY_BUDGET, 0).replay, 0);
	ck_assert_int_eq(policy_replay(REPLAY_KEY_BUDGET, -5).replay, 0);
	ck_assert_int_eq(policy_replay(REPLAY_FIRST_CALL_BUDGET, 0).replay, 0);
	ck_assert_int_eq(policy_replay(REPLAY_FIRST_CALL_BUDGET, NAN).replay,
	    0);
}
END_TEST

#define DAY	86400.0

static size_t
carried(struct carry_key *k, size_t n, char *out, size_t len)
{
	size_t	 i, c = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		if (k[i].carry) {
			c++;
			strncat(out, k[i].key, len - strlen(out) - 1);
			strncat(out, " ", len - strlen(out) - 1);
		}
	return c;
}

/* An upgrade: changed keys are measured, unchanged fresh ones carried. */
START_TEST(carry_keeps_unchanged_keys)
{
	struct carry_key	 k[] = {
		{ "add", 1, 1000 * DAY, -1, 0 }, { "mul", 0, 1000 * DAY, -1, 0 },
		{ "neg", 1, 1000 * DAY, -1, 0 }, { "abs", 0, 0, -1, 0 },
	};
	struct carry_facts	 f = { 1, 0, 7, 1000 * DAY + 3600 };
	char			 got[128];

	ck_assert_uint_eq(policy_carry(&f, k, 4), 2);
	carried(k, 4, got, sizeof(got));
	ck_assert_str_eq(got, "add neg ");
	/* runner.carry = no, or a run that asked carry: false */
	f.enabled = 0;
	ck_assert_uint_eq(policy_carry(&f, k, 4), 0);
	ck_assert_int_eq(k[0].carry, 0);
}
END_TEST

/* A key measured refresh_days - 1 days ago or earlier is measured again. */
START_TEST(carry_refreshes_what_is_due)
{
	struct carry_key	 k[] = {
		{ "a", 1, 100 * DAY, -1, 0 },		/* 6 days old: due */
		{ "b", 1, 100 * DAY + 1, -1, 0 },	/* just under: carried */
		{ "c", 1, 103 * DAY, -1, 0 },
	};
	struct carry_facts	 f = { 1, 0, 7, 106 * DAY };
	char			 got[128];

	ck_assert_uint_eq(policy_carry(&f, k, 3), 2);
	carried(k, 3, got, sizeof(got));
	ck_assert_str_eq(got, "b c ");
	/* refresh_days = 1: every key is measured every time */
	f.refresh_days = 1;
	ck_assert_uint_eq(policy_carry(&f, k, 3), 0);
}
END_TEST

/*
 * Nothing changed (a nightly screen): 1/refresh_days of the keys, those
 * measured longest ago (ties by name), are measured again, so that nightly
 * screens rotate through the table.
 */
START_TEST(carry_rotates_a_share_when_nothing_changed)
{
	struct carry_key	 k[15];
	static const char *const names[15] = { "k00", "k01", "k02", "k03",
	    "k04", "k05", "k06", "k07", "k08", "k09", "k10", "k11", "k12",
	    "k13", "k14" };
	struct carry_facts	 f = { 1, 1, 7, 10 * DAY };
	char			 got[256];
	size_t			 i, night, seen[15] = { 0 };

	memset(k, 0, sizeof(k));
	for (i = 0; i < 15; i++) {
		k[i].key = names[i];
		k[i].unchanged = 1;
		k[i].measured = 9 * DAY;	/* one full screen, yesterday */
	}
	/* ceil(15 / 7) = 3 measured: the first three by name */
	ck_assert_uint_eq(policy_carry(&f, k, 15), 12);
	carried(k, 15, got, sizeof(got));
	ck_assert_str_eq(got, "k03 k04 k05 k06 k07 k08 k09 k10 k11 k12 k13 "
	    "k14 ");
	/* nightly: what is measured gets tonight's time; every key is
	 * measured within 7 nights, and none waits 7 days */
	for (night = 0; night < 14; night++) {
		f.now = (10 + night) * DAY;
		policy_carry(&f, k, 15);
		for (i = 0; i < 15; i++) {
			ck_assert_msg(f.now - k[i].measured < 7 * DAY,
			    "%s carried at %.1f days", k[i].key,
			    (f.now - k[i].measured) / DAY);
			if (!k[i].carry) {
				k[i].measured = f.now;
				seen[i]++;
			}
		}
	}
	for (i = 0; i < 15; i++)
		ck_assert_msg(seen[i] >= 2, "%s measured %zu times in 14 nights",
		    names[i], seen[i]);
	/* an upgrade rotates nothing: only changed and due keys run */
	for (i = 0; i < 15; i++)
		k[i].measured = f.now - DAY;
	f.same_library = 0;
	ck_assert_uint_eq(policy_carry(&f, k, 15), 15);
}
END_TEST

/*
 * A key broken "intermittent" in the screen carried from (it failed, then
 * passed one clean screen) is measured, never carried, even when its code
 * is unchanged and fresh: carried passes would clear the failure with no
 * measurement. It does not count towards the rotating share.
 */
START_TEST(carry_never_clears_an_intermittent_failure)
{
	struct carry_key	 k[8];
	static const char *const names[8] = { "a", "b", "c", "d", "e", "f",
	    "g", "h" };
	struct carry_facts	 f = { 1, 0, 7, 10 * DAY };
	char			 got[128];
	size_t			 i;

	for (i = 0; i < 8; i++) {
		memset(&k[i], 0, sizeof(k[i]));
		k[i].key = names[i];
		k[i].unchanged = 1;
		k[i].measured = 9 * DAY;
	}
	k[1].unsettled = 1;
	/* an upgrade: only b is measured */
	ck_assert_uint_eq(policy_carry(&f, k, 8), 7);
	carried(k, 8, got, sizeof(got));
	ck_assert_str_eq(got, "a c d e f g h ");
	/* nothing changed: b, and ceil(7 / 7) = 1 of the other seven */
	f.same_library = 1;
	ck_assert_uint_eq(policy_carry(&f, k, 8), 6);
	carried(k, 8, got, sizeof(got));
	ck_assert_str_eq(got, "c d e f g h ");
	/* the key that changed stays measured too */
	k[2].unchanged = 0;
	f.same_library = 0;
	ck_assert_uint_eq(policy_carry(&f, k, 8), 6);
	carried(k, 8, got, sizeof(got));
	ck_assert_str_eq(got, "a d e f g h ");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("policy");
	TCase	*t = tcase_create("fail_fast"), *k = tcase_create("key_budget");
	TCase	*c = tcase_create("first_call"), *rp = tcase_create("replay");
	SRunner	*r;
	int	 failed;

	tcase_add_test(t, fail_fast_cuts_a_judged_class);
	tcase_add_test(t, fail_fast_cuts_only_at_critical);
	tcase_add_test(t, fail_fast_off_cuts_nothing);
	tcase_add_test(t, fail_fast_spares_other_classes);
	tcase_add_test(t, fail_fast_needs_key_dtype_and_class);
	suite_add_tcase(s, t);
	tcase_add_test(k, key_budget_none_always_runs);
	tcase_add_test(k, key_budget_cut_past_the_budget_only);
	tcase_add_test(k, key_budget_waits_for_cases_in_flight);
	tcase_add_test(k, key_budget_over_with_cases_in_flight_waits);
	tcase_add_test(k, key_budget_charge_first_calls);
	suite_add_tcase(s, k);
	tcase_add_test(c, first_call_budget_on_a_judged_case);
	tcase_add_test(c, first_call_budget_off_or_past_the_deadline);
	tcase_add_test(c, first_call_budget_spares_ladders_bootstrap_and_huge);
	tcase_add_test(c, first_call_hold_past_the_hold_only);
	tcase_add_test(c, first_call_hold_off);
	tcase_add_test(c, runner_threads_share_the_cores);
	tcase_add_test(c, first_call_over_remeasures_once_per_key_and_dtype);
	tcase_add_test(c, first_call_over_without_a_slot_drops);
	tcase_add_test(c, first_call_over_twice_cuts_and_charges);
	tcase_add_test(c, first_call_over_other_modes_are_the_budget);
	suite_add_tcase(s, c);
	tcase_add_test(rp, replay_skips_from_any_run);
	tcase_add_test(rp, replay_budget_cuts_under_the_same_budget);
	tcase_add_test(rp, replay_no_budget_no_replay);
	tcase_add_test(rp, carry_keeps_unchanged_keys);
	tcase_add_test(rp, carry_refreshes_what_is_due);
	tcase_add_test(rp, carry_rotates_a_share_when_nothing_changed);
	tcase_add_test(rp, carry_never_clears_an_intermittent_failure);
	suite_add_tcase(s, rp);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
