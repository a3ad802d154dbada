/*
 * policy.c: the scheduler's rules, decided from facts: fail-fast, the key
 * budget, the first-call budget (a call over it) and hold, which cuts a
 * re-screen replays, which keys keep an earlier screen's results.
 * Nothing here reads the store, the clock or a runner;
 * tests/unit/check_policy.c covers each rule.
 */
#include <stdlib.h>
#include <string.h>

#include "policy.h"

/*
 * The classes that end at their first failure of a key and dtype.  Contract
 * cases each check a rule of their own (out=, in-place, keywords, output
 * dtype) and always all run; compile and bootstrap cases are not judged
 * that way.
 */
int
policy_fail_fast_class(const char *cls)
{
	static const char *const ends[] = { "same_shape", "broadcast",
	    "scalar", "noncontig", "reduction", "accumulation", "dtype_exotic",
	    "edge_values", "random", "views", "empty", "options" };
	size_t	 i;

	for (i = 0; cls != NULL && i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(cls, ends[i]))
			return 1;
	return 0;
}

/*
 * Only a critical failure ends its class: after a loud or a numerics one
 * the class goes on, so a silently wrong case behind it is still found
 * (and counted).  A failure of unknown severity (a result stored before
 * severities) cuts, as every failure did then.
 */
enum fail_fast_decision
policy_fail_fast(const struct fail_fast_facts *f)
{
	if (!f->enabled || f->key == NULL || f->dtype == NULL ||
	    !policy_fail_fast_class(f->cls))
		return FAIL_FAST_NONE;
	if (f->severity != NULL && (!strcmp(f->severity, "loud") ||
	    !strcmp(f->severity, "numerics")))
		return FAIL_FAST_NONE;
	return FAIL_FAST_CUT_CLASS;
}

/*
 * A key with cases in flight waits when its account plus the time its
 * runners have held those cases is over the budget: the account is charged
 * only when a case ends, so without the wait a key whose first calls
 * autotune for minutes would get a runner each round of the queue while its
 * first cases still run.  With nothing in flight, a key whose account is
 * over the budget is cut; one under it runs (its cases' ends charge it).
 */
enum key_budget_decision
policy_key_budget(const struct key_budget_facts *f)
{
	double	 t;
	size_t	 i;

	if (f->budget <= 0)
		return KEY_BUDGET_RUN;
	for (t = f->spent, i = 0; i < f->nsent; i++)
		t += f->now - f->sent[i];
	if (f->nsent > 0 && t > f->budget)
		return KEY_BUDGET_WAIT;
	return f->spent > f->budget ? KEY_BUDGET_CUT : KEY_BUDGET_RUN;
}

/*
 * The seconds a finished case charges its key: its candidate's first calls
 * (first_ms, milliseconds).  Compile-ladder steps have a budget of their
 * own and charge nothing; so does a case with no first call measured.
 */
double
policy_key_budget_charge(double budget, const char *key, const char *cls,
    double first_ms)
{
	if (budget <= 0 || !(first_ms > 0) || key == NULL ||
	    (cls != NULL && strcmp(cls, "compile") == 0))
		return 0;
	return first_ms / 1e3;
}

/*
 * Compile-ladder steps have a budget of their own, bootstrap cases call
 * nothing, 2^31-element cases spend their time outside the candidate; a
 * budget at or past the case deadline would never stop a call first; a key
 * and dtype whose re-measure came in within the budget runs without it.
 */
enum first_call_mode
policy_first_call_mode(const struct first_call_facts *f)
{
	if (!(f->budget > 0) || f->budget >= f->deadline || f->cls == NULL ||
	    f->key == NULL || f->dtype == NULL || !strcmp(f->cls, "compile") ||
	    !strcmp(f->cls, "bootstrap") || f->huge)
		return FIRST_CALL_FREE;
	if (f->remeasure)
		return FIRST_CALL_REMEASURE;
	return f->exempt ? FIRST_CALL_FREE : FIRST_CALL_BUDGET;
}

/*
 * A first call stopped at the budget is measured again once per key and
 * dtype: the first to run over queues the re-measure, later ones wait for
 * it.  The re-measure running over too cuts the key and dtype and charges
 * its key the budget (the time the re-measure took).  A device without a
 * queue slot (its run is over) queues nothing.
 */
struct fc_over_decision
policy_first_call_over(const struct fc_over_facts *f)
{
	struct fc_over_decision	 d = { FC_OVER_DROP, 0 };

	if (f->mode == FIRST_CALL_REMEASURE) {
		d.action = FC_OVER_CUT;
		d.charge = f->budget;
	} else if (f->slot)
		d.action = f->pending ? FC_OVER_WAIT : FC_OVER_REMEASURE;
	return d;
}

/* Held while one of its first calls has run for longer than the hold. */
enum first_call_hold_decision
policy_first_call_hold(const struct first_call_hold_facts *f)
{
	size_t	 i;

	if (f->hold <= 0)
		return FIRST_CALL_GO;
	for (i = 0; i < f->nstarted; i++)
		if (f->now - f->started[i] > f->hold)
			return FIRST_CALL_HOLD;
	return FIRST_CALL_GO;
}

/*
 * One library, one coverage: a re-screen cuts, before any case runs, what
 * the library's newest complete screen of each key cut, so that it neither
 * runs cases that screen never reached nor spends a budget again on them.
 * Skips after a hang or a crash are replayed from any run (and replayed
 * again); a budget's cuts only from a run under the same budget, and not
 * at all without one.
 */
struct replay_decision
policy_replay(enum replay_rule rule, double budget)
{
	struct replay_decision	 d = { 0 };

	switch (rule) {
	case REPLAY_SKIPS:
		d.replay = 1;
		d.like[0] = "skipped";
		d.like[1] = "skip_replay";
		d.reason = "skip_replay";
		break;
	case REPLAY_KEY_BUDGET:
	case REPLAY_FIRST_CALL_BUDGET:
		d.replay = budget > 0;
		d.setting = rule == REPLAY_KEY_BUDGET ? "key_budget" :
		    "first_call_budget";
		d.budget = budget;
		d.like[0] = d.reason = d.setting;
		break;
	}
	return d;
}

/* the oldest measurement first; ties by key, so the rotation is stable */
static int
carry_older(const void *a, const void *b)
{
	const struct carry_key	*x = *(const struct carry_key *const *)a;
	const struct carry_key	*y = *(const struct carry_key *const *)b;

	if (x->measured != y->measured)
		return x->measured < y->measured ? -1 : 1;
	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/*
 * A key keeps the earlier screen's results when its code is unchanged and
 * they are fresh enough: every key is measured afresh within
 * refresh_days, so one measured refresh_days - 1 days ago (or earlier) is
 * due now (a nightly screen serves it for about one more day); and a screen
 * of an unchanged library measures at least 1/refresh_days of the unchanged
 * keys, those measured longest ago, so that nightly screens rotate through
 * the table instead of leaving it all to one night. A key broken
 * "intermittent" in that screen (it failed once, then passed one clean
 * screen) is never carried: its carried passes would be a second clean
 * screen that measured nothing, and clear the failure (seen on the H200 on
 * 2026-12-03: three bitwise keys turned verified that way). It is measured,
 * and does not count towards the rotating share. Sets each key's `carry`;
 * returns how many are carried.
 */
size_t
policy_carry(const struct carry_facts *f, struct carry_key *k, size_t n)
{
	struct carry_key	**order;
	double			 due;
	size_t			 i, nun = 0, share, measured = 0, carried = 0;
	int			 days = f->refresh_days < 1 ? 1 : f->refresh_days;

	for (i = 0; i < n; i++)
		k[i].carry = 0;
	if (!f->enabled || n == 0)
		return 0;
	due = f->now - (days - 1) * 86400.0;
	if ((order = calloc(n, sizeof(*order))) == NULL)
		return 0;		/* measure everything */
	for (i = 0; i < n; i++)
		if (k[i].unchanged && !k[i].unsettled)
			order[nun++] = &k[i];
	qsort(order, nun, sizeof(*order), carry_older);
	share = f->same_library ? (nun + days - 1) / days : 0;
	for (i = 0; i < nun; i++) {
		if (order[i]->measured <= due || measured < share) {
			measured++;
			continue;
		}
		order[i]->carry = 1;
		carried++;
	}
	free(order);
	return carried;
}

/*
 * Each runner gets its share of the daemon's CPUs for torch's CPU work
 * (input generation, the random class's tests, a CPU device's ops), never
 * less than one thread.  Unbounded, every runner's pool has a thread per
 * core: on the H200 (2026-12-03 warm screen, 20 runners on 16 cores) a
 * 131,072-sample KS test, tens of milliseconds alone, took 6 to 7 s while
 * the other runners compiled.
 */
int
policy_runner_threads(int cores, int runners)
{
	if (cores < 1 || runners < 1)
		return 1;
	return cores / runners > 1 ? cores / runners : 1;
}
