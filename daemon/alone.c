/*
 * alone.c: a lost case runs again alone before it is charged (docs/design.md,
 * "A hang or crash is confirmed alone"). A case that gave no result (its
 * deadline passed: timeout; its runner died in it: crash) may say more about
 * the host than the library: a correct operator misses the deadline on a
 * host whose cores are all busy, and a runner killed from outside (the OOM
 * killer) takes its case with it. Once every other case of the run is done,
 * each such case runs again in a fresh runner with nothing else on its
 * device and runner.alone_factor times its deadline. Lost again, it stands
 * (results.alone = 'reproduced', its detail says so); given a result, that
 * result is the case's (results.alone = 'not_reproduced', alone_detail says
 * how it was lost), and the cases of its key and dtype skipped after it run.
 * The run completes after this, so no list ever serves the first judgement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"
#include "probes.h"
#include "scheduler.h"
#include "repro.h"

/*
 * The deadline (seconds) of a case of class cls (its spec's "class"; mode:
 * a deployment mode's), times runner.alone_factor.
 */
static int
alone_deadline(const char *cls, int mode)
{
	int	 base;

	if (cls != NULL && !strcmp(cls, "compile"))
		base = compile_deadline();
	else if (mode)
		base = env->conf.mode_deadline;
	else
		base = case_deadline();
	return base * env->conf.alone_factor;
}

/* Sends case id to w, a fresh runner; -1 when it cannot be. */
static int
alone_send(struct worker *w, int64_t id)
{
	json_t		*spec, *msg;
	const char	*cls;
	int		 rc, c, deadline;

	if ((spec = store_case_spec(env->store, id, NULL)) == NULL)
		return -1;
	verdict_case_steady(spec, env->conf.speed);
	json_object_set_new(spec, "id", json_integer(id));
	msg = json_pack("{ss sO}", "type", "case", "case", spec);
	rc = supervise_send(w->proc, msg);
	json_decref(msg);
	if (rc == -1) {
		json_decref(spec);
		return -1;
	}
	w->state = W_BUSY;
	w->case_id = id;
	w->alone = id;
	cls = json_string_value(json_object_get(spec, "class"));
	c = probe_class_parse(cls);
	w->case_mode = c > 0 && (c & PROBE_MODES);
	w->case_compile = w->case_fcb = w->case_in_first = 0;
	snprintf(w->case_key, sizeof(w->case_key), "%s", json_string_value(
	    json_object_get(spec, "key")) ?: "");
	snprintf(w->case_dtype, sizeof(w->case_dtype), "%s", json_string_value(
	    json_object_get(spec, "dtype")) ?: "");
	deadline = alone_deadline(cls, w->case_mode);
	w->case_t0 = now_mono();
	w->deadline = w->case_t0 + deadline;
	log_info("case %lld (%s %s): run again alone on device %d, deadline "
	    "%d s", (long long)id, w->case_key, w->case_dtype, w->device,
	    deadline);
	json_decref(spec);
	return 0;
}

/*
 * The step of the run's end that runs its lost cases alone, once every
 * other case is done: 0 none is left (the run may go on to its consensus
 * phase and complete), 1 one runs or waits for its device.
 */
int
alone_poll(void)
{
	int	 s, i, running = 0;
	int64_t	 id;

	if (env->conf.alone_factor == 0 || sched.cur.alone_none ||
	    sched.cur.run_id == 0)
		return 0;
	for (s = 0; s < sched.cur.nq; s++) {
		int		 dev = sched.cur.q[s].device, busy = 0;
		struct worker	*mine = NULL, *pick = NULL;

		for (i = 0; i < sched.nworkers; i++) {
			struct worker	*w = &sched.workers[i];

			if (w->device != dev)
				continue;
			if (w->alone != 0)
				mine = w;
			else if (w->state == W_BUSY)
				busy = 1;
			else if (w->state == W_IDLE && (pick == NULL ||
			    pick->compile))
				pick = w;
		}
		if (mine != NULL) {
			running = 1;
			if (mine->alone > 0)
				continue;	/* in flight */
			if (mine->state == W_IDLE && !busy &&
			    alone_send(mine, -mine->alone) == -1) {
				log_warnx("worker %d: cannot send case %lld to "
				    "run alone", mine->slot, (long long)
				    -mine->alone);
				worker_kill(mine);
				worker_restart_later(mine, 1);
			} else if (mine->state == W_DOWN && mine->failures >= 3 &&
			    mine->hello_error[0]) {
				char	 why[1280];

				snprintf(why, sizeof(why), "running a lost case "
				    "alone: %s", mine->hello_error);
				run_fail(why);
				return 1;
			}
			continue;
		}
		if ((id = store_alone_next(env->store, sched.cur.run_id, dev,
		    pick != NULL ? pick->alone_first : NULL, pick != NULL ?
		    sizeof(pick->alone_first) : 0)) == -1) {
			pw_retry_later("finding a lost case to run alone");
			return 1;
		}
		if (id == 0)
			continue;
		running = 1;
		if (busy || pick == NULL)
			continue;	/* nothing else on its device */
		/* a fresh runner: nothing the lost one left behind */
		pick->alone = -id;
		worker_kill(pick);
		pick->restarts++;
		worker_restart_later(pick, 0);
	}
	if (!running)
		sched.cur.alone_none = 1;
	return running;
}

/* w's lost case gave a result alone: it is the case's. */
void
alone_result(struct worker *w, json_t *msg)
{
	struct case_verdict	 v;
	json_t			*spec;
	int64_t			 id = w->case_id;

	memset(&v, 0, sizeof(v));
	if (sched.cur.run_id == 0 ||
	    (spec = store_case_spec(env->store, id, NULL)) == NULL) {
		/* nothing to judge it by now: it runs alone again */
		w->alone = 0;
		worker_idle(w);
		sched.cur.alone_none = 0;
		return;
	}
	verdict_case(spec, msg, env->conf.critical_ratio, &v);
	repro_take(&w->repro, &w->repro_inputs, msg, &v);
	json_object_set_new(msg, "runner", json_pack("{s:i,s:s}", "slot",
	    w->slot, "role", "alone"));
	log_warnx("case %lld (%s %s): not lost when run alone: %s%s%s (it "
	    "was %s)", (long long)id, w->case_key, w->case_dtype,
	    case_status_name(v.status), v.detail[0] ? ", " : "", v.detail,
	    w->alone_first);
	case_record_alone(id, &v, msg, w->repro, w->repro_inputs,
	    w->alone_first);
	json_decref(spec);
	w->alone = 0;
	worker_idle(w);
	if (json_is_true(json_object_get(msg, "fatal")))
		w->state = W_DEAD;
	sched.cur.alone_none = 0;	/* the cases it un-skipped may be lost */
}

static int
w_reproduced(void *p)
{
	json_t	*a = p;

	if (store_alone_reproduced(env->store, json_integer_value(
	    json_object_get(a, "case")), json_string_value(json_object_get(a,
	    "how"))) == -1)
		return pw_refused("storing a lost case's run alone");
	return 0;
}

/*
 * w's lost case was lost again alone (how: what happened): it stands. The
 * caller stops or restarts w's runner.
 */
void
alone_lost(struct worker *w, const char *how)
{
	char	 d[512];
	int64_t	 id = w->alone;

	w->alone = 0;
	if (id <= 0 || sched.cur.run_id == 0)
		return;
	snprintf(d, sizeof(d), "reproduced alone: %s, in a fresh runner with "
	    "nothing else on its device", how);
	log_warnx("case %lld (%s %s): %s", (long long)id, w->case_key,
	    w->case_dtype, d);
	pw_write(w_reproduced, json_pack("{sI ss}", "case", (json_int_t)id,
	    "how", d));
}

/*
 * The cases a lost case's result alone made pending again
 * ([[id, compile class, device, key], ...]): back in their device's queues.
 */
void
alone_requeue(const json_t *cases)
{
	size_t	 i;
	json_t	*c;

	json_array_foreach(cases, i, c) {
		int64_t		 id = json_integer_value(json_array_get(c, 0));
		int		 compile = json_is_true(json_array_get(c, 1));
		int		 s = slot_of_device((int)json_integer_value(
				    json_array_get(c, 2)));
		const char	*key = json_string_value(json_array_get(c, 3));

		if (s < 0 || s >= sched.cur.nq || queue_unshift(compile ?
		    &sched.cur.cq[s] : &sched.cur.q[s], id, compile ||
		    key == NULL ? -1 : key_position(key)) == -1)
			error("case %lld: cannot queue it again; its run cannot "
			    "complete", (long long)id);
	}
	if (json_array_size(cases) > 0)
		log_info("%zu cases skipped after it queued again",
		    json_array_size(cases));
}
