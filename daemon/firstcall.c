/*
 * firstcall.c: the first-call budget and hold: a first call over budget is
 * cut or measured again, and a slow one holds its key and dtype's siblings.
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

static void	fc_stop_siblings(int, int64_t, const char *, const char *);

/*
 * runner.first_call_budget: a correctness case whose first candidate call
 * (JIT compile and autotuning included; the runner reports when it starts
 * and ends) runs past the budget on a screening runner is stopped there and
 * measured again, the way a compile-ladder step is measured: on a compile
 * runner, into an empty Triton cache of its own, under the same budget.
 * Within it there, the case is judged like any other and its key and
 * dtype's cases run without the budget from then on (the screening runner
 * was slowed by its neighbours).  Past it there too, the key and dtype's
 * correctness cases are cut (`first_call_budget`, inconclusive, as a
 * key_budget cut) and a re-screen of the library cuts them again.  While a
 * case waits to be measured again, its key and dtype starts no other case;
 * the key's other dtypes go on.  Measured on the H200 (2026-11-30, commit a544c6b):
 * FlagGems 5.0.2's first fp32 mm call on a 7x33 input autotunes for 235 s
 * alone; five such cases side by side held five runners for 252-293 s and
 * set the end of the 42-op screen.  Off by default: docs/design.md.
 */

/*
 * Queues case id (pending, of key and dtype on slot) for a re-measure: at
 * the head of the compile runners' queue (without compile runners, at the
 * head of the only queue).
 */
static int
fc_queue(int slot, int64_t id, const char *key, const char *dtype)
{
	int	own = env->conf.compile_workers > 0;

	fc_confirm_add(id, sched.cur.q[slot].device, key, dtype);
	return queue_unshift(own ? &sched.cur.cq[slot] : &sched.cur.q[slot], id,
	    own ? -1 : key_position(key));
}

/*
 * The re-measure of case id (key, dtype) on w ran past the budget too: it
 * and the key and dtype's correctness cases are cut, its siblings in
 * flight abandoned, and the key's account charged `charge` seconds.
 */
static void
fc_over_cut(struct worker *w, int64_t id, const char *key, const char *dtype,
    double b, double charge)
{
	char			 what[512];
	const char		*role = w->compile ? "compile" : "screening";
	int			 device = w->device, n;
	struct case_filter	 one = { .device = device, .key = key,
				    .dtype = dtype, .id = id };
	struct case_filter	 rest = { .device = device, .key = key,
				    .dtype = dtype, .not_cls = "compile" };

	fc_confirm_end(id, FC_CUT);
	worker_respawn(w);	/* the case is pending again: cut below */
	snprintf(what, sizeof(what), "not judged: its first call was "
	    "still running after %g s on a screening runner and again "
	    "when measured on a %s runner into an empty Triton cache of "
	    "its own (runner.first_call_budget; compile and autotuning "
	    "included, a hang looks the same)", b, role);
	cases_skip(&one, "first_call_budget", what);
	snprintf(what, sizeof(what), "not run: the first call of case "
	    "%lld of this key and dtype ran past runner.first_call_budget "
	    "(%g s) twice", (long long)id, b);
	n = cases_skip(&rest, "first_call_budget", what);
	/* siblings in flight would each run past the budget too */
	abandon_siblings(w, id, "first_call_budget", "ran its first "
	    "call past runner.first_call_budget twice");
	log_warnx("case %lld (%s %s): first call still running after "
	    "%g s when measured again on a %s runner; it and %d other "
	    "cases of the key and dtype are not judged", (long long)id,
	    key, dtype, b, role, n);
	key_budget_cut(device, key, key_budget_add(device, key, charge));
}

/*
 * w's first call ran past runner.first_call_budget: policy_first_call_over
 * decides from the facts gathered here, and the decision is carried out.
 */
void
first_call_over(struct worker *w)
{
	struct fc_over_facts	 f = { .mode = w->case_fcb,
				    .budget = env->conf.first_call_budget };
	struct fc_over_decision	 d;
	char			 key[128], dtype[32];
	int64_t			 id = w->case_id;
	int			 s = slot_of_device(w->device), device = w->device;

	snprintf(key, sizeof(key), "%s", w->case_key);
	snprintf(dtype, sizeof(dtype), "%s", w->case_dtype);
	f.slot = s >= 0;
	/* fc_pending ends the re-measures that are over: read only when
	 * the decision depends on it */
	if (f.mode != FIRST_CALL_REMEASURE && f.slot)
		f.pending = fc_pending(device, key, dtype);
	d = policy_first_call_over(&f);
	if (d.action == FC_OVER_CUT) {
		fc_over_cut(w, id, key, dtype, f.budget, d.charge);
		return;
	}
	log_info("case %lld (%s %s): first call still running after %g s; "
	    "measuring it again on an empty cache", (long long)id, key,
	    dtype, f.budget);
	worker_respawn(w);
	switch (d.action) {
	case FC_OVER_WAIT:
		/* one re-measure per key and dtype: this one waits for it */
		if (queue_unshift(&sched.cur.q[s], id, key_position(key)) == -1)
			error("case %lld: cannot queue it again", (long long)id);
		break;
	case FC_OVER_REMEASURE:
		if (fc_queue(s, id, key, dtype) == -1)
			error("case %lld: cannot queue its re-measure",
			    (long long)id);
		else
			fc_stop_siblings(s, id, key, dtype);
		break;
	default:
		break;
	}
}

/*
 * The first call of case id (key, dtype) ran past the budget and waits to be
 * measured again: the key and dtype's other first calls in flight on
 * screening runners are stopped now and wait for that re-measure too,
 * queued again, instead of each running on to the budget. In the 42-op
 * screen of 2026-12-01 (commit 3b3b587) eleven mm float32 first calls had started
 * before the first was stopped, and each ran on to its own 60 s (about
 * 300 runner-s of compiling, on a host whose cores were all busy) to the
 * same end; what they compiled meanwhile stays in the Triton cache.
 */
static void
fc_stop_siblings(int slot, int64_t id, const char *key, const char *dtype)
{
	int	 i;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*o = &sched.workers[i];
		int64_t		 oid = o->case_id;

		if (o->state != W_BUSY || oid == 0 || oid == id ||
		    o->case_fcb != 1 || !o->case_in_first ||
		    o->shrink_try != NULL || o->case_compile ||
		    slot_of_device(o->device) != slot ||
		    strcmp(o->case_key, key) || strcmp(o->case_dtype, dtype))
			continue;
		log_info("case %lld (%s %s): first call stopped after %.0f s; "
		    "it waits for case %lld's re-measure", (long long)oid, key,
		    dtype, now_mono() - o->case_t0, (long long)id);
		worker_respawn(o);
		if (queue_unshift(&sched.cur.q[slot], oid, key_position(key)) == -1)
			error("case %lld: cannot queue it again", (long long)oid);
	}
}

/* The runner's "first_call" / "first_done" around the candidate's first call. */
void
on_first_call(struct worker *w, json_t *msg, int starts)
{
	double	now = now_mono();

	if (w->state == W_BUSY && w->case_compile && json_integer_value(
	    json_object_get(msg, "id")) == w->case_id) {
		w->case_in_first = starts;
		if (starts && now + env->conf.compile_budget < w->deadline)
			w->deadline = now + env->conf.compile_budget;
		else if (!starts)
			w->deadline = w->case_t0 + compile_deadline();
		return;
	}
	if (w->state != W_BUSY || w->shrink_try != NULL ||
	    json_integer_value(json_object_get(msg, "id")) != w->case_id)
		return;
	/* without the budget the first call's span only feeds the hold */
	w->case_in_first = starts;
	if (starts)
		w->case_first_t0 = now;
	if (w->case_fcb == 0)
		return;
	if (starts) {
		if (now + env->conf.first_call_budget < w->deadline)
			w->deadline = now + env->conf.first_call_budget;
	} else
		w->deadline = w->case_t0 + case_deadline();
}

/*
 * The same for runner.first_call_budget: the cases the newest complete run
 * of this library under the same budget cut because a first call of their
 * key and dtype ran past it twice (the case measured again among them) are
 * cut in this one before any case runs.  A warm re-screen would otherwise
 * measure each of them again, each into an empty cache, to the same end.
 */
int
first_call_budget_replay(int slot, int64_t fpid)
{
	return budget_replay(slot, fpid, REPLAY_FIRST_CALL_BUDGET,
	    env->conf.first_call_budget, "a first call of its key and dtype ran "
	    "past runner.first_call_budget (%g s) twice");
}
