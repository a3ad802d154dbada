/*
 * key_budget.c: candidate seconds spent per device x key; a key over its
 * budget skips its remaining cases, and a later screen replays the cut.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opscreend.h"
#include "verdict.h"
#include "probes.h"
#include "scheduler.h"
#include "policy.h"

/*
 * runner.key_budget: when the candidate's calls of one key on one device
 * (first calls, compile and autotuning included) have taken more than the
 * budget, the key's remaining correctness cases are not run. They are
 * recorded `skipped` with reason `key_budget` and, unlike other skipped
 * cases, enter the fold: a key x dtype that did not fail is inconclusive
 * ("N of M cases run"), never verified on part of its cases.
 */
void
key_budget_cut(int device, const char *key, double spent)
{
	struct key_budget_facts	 f = { .budget = env->conf.key_budget,
				    .spent = spent };
	struct case_filter	 cf = { .device = device, .key = key,
				    .not_cls = "compile" };
	char			 detail[200];
	int			 n;

	if (policy_key_budget(&f) != KEY_BUDGET_CUT)
		return;
	snprintf(detail, sizeof(detail), "not run: the key's cases took %.2g s "
	    "of candidate time, over runner.key_budget (%g s)", spent,
	    env->conf.key_budget);
	n = cases_skip(&cf, "key_budget", detail);
	if (n > 0)
		log_info("key %s on device %d: %.0f s of candidate time, over the "
		    "%g s budget; %d cases not run", key, device, spent,
		    env->conf.key_budget, n);
}

/* Adds spent seconds to key's account on device; returns the new total. */
double
key_budget_add(int device, const char *key, double spent)
{
	char	 k[512];

	snprintf(k, sizeof(k), "%d|%s", device, key);
	if (sched.spent == NULL)
		sched.spent = json_object();
	spent += json_real_value(json_object_get(sched.spent, k));
	json_object_set_new(sched.spent, k, json_real(spent));
	return spent;
}

/* The key's account on device: seconds of candidate time so far. */
static double
key_budget_spent(int device, const char *key)
{
	char	 k[512];

	snprintf(k, sizeof(k), "%d|%s", device, key);
	return json_real_value(json_object_get(sched.spent, k));
}

/* Whether the key has had its budget: it runs no case and no shrink more. */
int
key_budget_over(int device, const char *key)
{
	struct key_budget_facts	 f = { .budget = env->conf.key_budget };

	if (key == NULL)
		return 0;
	f.spent = key_budget_spent(device, key);
	return policy_key_budget(&f) == KEY_BUDGET_CUT;
}

/*
 * Whether a key must wait for its cases in flight before it starts another:
 * its account plus the time its runners have held its cases (or shrink
 * variants) so far is over the budget. The account is charged when a case
 * ends, so without this a key whose first calls autotune for minutes got
 * one runner per round of the round-robin queue while its first cases were
 * still running: in the 42-op screen on the H200 `mm` took 1,495 s of
 * candidate time against its 300 s budget (2026-11-30, commit
 * 21575f4). A waiting key's cases keep their place; other keys' cases go
 * first; when its runners are done the key is either over the budget (its
 * cases are cut) or runs on. A key with nothing in flight never waits.
 */
int
key_budget_wait(int device, const char *key)
{
	struct key_budget_facts	 f = { .budget = env->conf.key_budget };
	double			 sent[MAX_WORKERS];
	int			 i;

	if (f.budget <= 0)
		return 0;
	f.spent = key_budget_spent(device, key);
	f.now = now_mono();
	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->state == W_BUSY && w->device == device &&
		    !w->case_compile && !strcmp(w->case_key, key))
			sent[f.nsent++] = w->case_t0;
	}
	f.sent = sent;
	return policy_key_budget(&f) == KEY_BUDGET_WAIT;
}

void
key_budget_charge(int device, const json_t *spec, double first_ms)
{
	const char	*key = json_string_value(json_object_get(spec, "key"));
	const char	*cls = json_string_value(json_object_get(spec, "class"));
	double		 s;

	s = policy_key_budget_charge(env->conf.key_budget, key, cls, first_ms);
	if (!(s > 0))
		return;
	key_budget_cut(device, key, key_budget_add(device, key, s));
}

/*
 * The replay of key_budget_replay and first_call_budget_replay: the cases
 * the newest complete run of this library under the same budget cut for
 * the rule (an enum replay_rule; policy_replay says which) are cut before
 * any case runs; `when` says why (a format taking the budget).  Returns
 * the cases cut, -1 on a store error.
 */
int
budget_replay(int slot, int64_t fpid, int rule, double budget,
    const char *when)
{
	struct replay_decision	 d = policy_replay(rule, budget);
	char			 why[320], cause[192];
	int			 n, nkeys;

	if (!d.replay)
		return 0;
	snprintf(cause, sizeof(cause), when, budget);
	snprintf(why, sizeof(why), "not run: run %%lld of this library cut it "
	    "when %s; a re-screen of one library keeps its coverage", cause);
	/* runs under the same budget (a run of a few other keys in between
	 * changes nothing) */
	n = prior_skips_replay(slot, fpid, &d, why, &nkeys);
	if (n > 0)
		log_info("run %lld: device %d (-1 = cpu): %d cases of %d keys "
		    "not run, as the library's last run of each cut them "
		    "(runner.%s %g s)", (long long)sched.cur.run_id,
		    sched.cur.q[slot].device, n, nkeys, d.setting, budget);
	return n;
}

/*
 * One library, one coverage: when the device's library (its fingerprint) has
 * a complete run screened under the same runner.key_budget, the cases the
 * newest such run of each key cut for the budget are cut in this one before
 * any case runs (matched by key and stored spec, both deterministic).
 * Without it a re-screen of an unchanged library (nightly, or warm after a
 * cold one) runs the cases the cut keys ran before, now fast, and then
 * spends the budget again on shapes the earlier screen never reached: a
 * library that autotunes every new shape costs as much warm as cold, and
 * the re-screen's coverage, its verdicts and its regressions differ from
 * the earlier one's with nothing changed.  The cases the earlier run did
 * run are run and charged as usual.  A changed library, a changed budget or
 * a run with no such predecessor screens as before.  Returns the cases cut,
 * -1 on a store error.
 */
int
key_budget_replay(int slot, int64_t fpid)
{
	return budget_replay(slot, fpid, REPLAY_KEY_BUDGET,
	    env->conf.key_budget, "the key's cases had taken over "
	    "runner.key_budget (%g s)");
}
