/*
 * fc.c: a first call's state per device x key x dtype (sched.fc) and the
 * re-measures queued or in flight (sched.confirm): what a dispatch asks
 * before it sends a case, and how the case is sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"
#include "scheduler.h"
#include "policy.h"

/*
 * runner.first_call_hold: whether a first call of key (and dtype; NULL: any)
 * on device has been running on a screening runner for more than the hold
 * (a re-measure under runner.first_call_budget aside: its siblings wait
 * for it anyway). Its key and dtype then starts no other
 * case until it ends, unless a runner would sit idle: in the 42-op
 * screen of 2026-12-01 (commit 3b3b587), ten mm float32 first calls started while the
 * first was already compiling, all were stopped with it at the budget, and
 * the key and dtype was cut; 8 of them, 233 runner-s of compiling on a host
 * whose 16 cores were all busy, started 10 s or more after it
 * (screens of 2026-12-01, commit 02ae157).
 */
int
fc_slow(int device, const char *key, const char *dtype)
{
	struct first_call_hold_facts	 f = {
		.hold = env->conf.first_call_hold, .now = now_mono() };
	double				 started[MAX_WORKERS];
	int				 i;

	for (i = 0; i < sched.nworkers; i++) {
		const struct worker	*o = &sched.workers[i];

		if (o->state == W_BUSY && o->case_id != 0 && o->case_fcb != 2 &&
		    o->case_in_first && o->shrink_try == NULL &&
		    !o->case_compile && o->device == device &&
		    !strcmp(o->case_key, key) &&
		    (dtype == NULL || !strcmp(o->case_dtype, dtype)))
			started[f.nstarted++] = o->case_first_t0;
	}
	f.started = started;
	return policy_first_call_hold(&f) == FIRST_CALL_HOLD;
}

static int
fc_get(int device, const char *key, const char *dtype)
{
	char	k[512];

	snprintf(k, sizeof(k), "%d|%s|%s", device, key, dtype);
	return (int)json_integer_value(json_object_get(sched.fc, k));
}

static void
fc_put(int device, const char *key, const char *dtype, int state)
{
	char	k[512];

	snprintf(k, sizeof(k), "%d|%s|%s", device, key, dtype);
	if (sched.fc == NULL)
		sched.fc = json_object();
	json_object_set_new(sched.fc, k, json_integer(state));
}

/* Whether case id is to be re-measured (queued or in flight as such). */
int
fc_confirm(int64_t id)
{
	char	k[32];

	if (sched.confirm == NULL)
		return 0;
	snprintf(k, sizeof(k), "%lld", (long long)id);
	return json_object_get(sched.confirm, k) != NULL;
}

void
fc_confirm_add(int64_t id, int device, const char *key, const char *dtype)
{
	char	k[32];

	snprintf(k, sizeof(k), "%lld", (long long)id);
	if (sched.confirm == NULL)
		sched.confirm = json_object();
	json_object_set_new(sched.confirm, k, json_pack("[iss]", device, key,
	    dtype));
	fc_put(device, key, dtype, FC_PENDING);
}

/* Case id's re-measure is over: its key and dtype is `state` from now on. */
void
fc_confirm_end(int64_t id, int state)
{
	char	 k[32];
	json_t	*e;

	snprintf(k, sizeof(k), "%lld", (long long)id);
	if ((e = json_object_get(sched.confirm, k)) == NULL)
		return;
	fc_put((int)json_integer_value(json_array_get(e, 0)), json_string_value(
	    json_array_get(e, 1)), json_string_value(json_array_get(e, 2)),
	    state);
	json_object_del(sched.confirm, k);
}

/*
 * Whether a re-measure of key (and dtype; NULL: any) on device is queued or
 * in flight.  One that ended without a result of its own (skipped for the
 * key budget, a crashed runner) lets its key and dtype run on.
 */
int
fc_pending(int device, const char *key, const char *dtype)
{
	const char	*k;
	json_t		*e;
	void		*it;
	int		 hold = 0;
	char		 state[32];

	if (sched.confirm == NULL || json_object_size(sched.confirm) == 0)
		return 0;
	json_object_foreach_safe(sched.confirm, it, k, e) {
		if (json_integer_value(json_array_get(e, 0)) != device ||
		    strcmp(json_string_value(json_array_get(e, 1)), key) != 0 ||
		    (dtype != NULL && strcmp(json_string_value(json_array_get(e,
		    2)), dtype) != 0))
			continue;
		if (store_case_state(env->store, strtoll(k, NULL, 10), state,
		    sizeof(state)) == 0 && !strcmp(state, "pending"))
			hold = 1;
		else
			fc_confirm_end(strtoll(k, NULL, 10), FC_EXEMPT);
	}
	return hold;
}

/*
 * How case id is sent to w: 0 without the budget, 1 under it, 2 as a
 * re-measure (into an empty cache); policy_first_call_mode decides.
 */
int
fc_mode(const struct worker *w, int64_t id, const json_t *spec)
{
	struct first_call_facts	 f = {
		.budget = env->conf.first_call_budget,
		.deadline = case_deadline(),
		.cls = json_string_value(json_object_get(spec, "class")),
		.key = json_string_value(json_object_get(spec, "key")),
		.dtype = json_string_value(json_object_get(spec, "dtype")),
		.huge = json_is_true(json_object_get(spec, "huge")),
		.remeasure = fc_confirm(id) };

	if (f.key != NULL && f.dtype != NULL)
		f.exempt = fc_get(w->device, f.key, f.dtype) == FC_EXEMPT;
	return policy_first_call_mode(&f);
}
