/*
 * shrinkrun.c: shrinking a failing case on its runner (re-runs of smaller
 * variants, probes/shrink.c proposes them) and reusing a previous shrink.
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
#include "repro.h"
#include "probes.h"
#include "scheduler.h"

/*
 * A failing case is shrunk when it is the worst failure seen so far for its
 * key on its device: the evidence a deny-list shows is (nearly always) a
 * shrunk case, and a key with a thousand failing cases costs a few shrinks,
 * not a thousand (on a GPU every variant is a new shape: a new compile).
 */
int
shrink_mark(int device, const char *key, double score)
{
	char		 k[512];
	json_t		*old;

	snprintf(k, sizeof(k), "%d|%s", device, key);
	if (sched.shrunk == NULL)
		sched.shrunk = json_object();
	old = json_object_get(sched.shrunk, k);
	if (old != NULL && json_real_value(old) >= score)
		return 0;
	json_object_set_new(sched.shrunk, k, json_real(score));
	return 1;
}

int
shrink_wanted(int device, const json_t *spec, double score)
{
	const char	*key = json_string_value(json_object_get(spec, "key"));

	if (env->conf.shrink_max <= 0 || key == NULL)
		return 0;
	/* a key over runner.key_budget gets no more candidate time */
	if (key_budget_over(device, key))
		return 0;
	return shrink_mark(device, key, score);
}

void
shrink_clear(struct worker *w)
{
	json_decref(w->shrink_best);
	json_decref(w->shrink_try);
	free(w->shrink_repro);
	w->shrink_best = w->shrink_try = NULL;
	w->shrink_repro = NULL;
	w->shrink_runs = w->shrunk = 0;
}

static int
w_shrink(void *p)
{
	json_t		*a = p;

	if (store_result_shrink(env->store, json_integer_value(json_object_get(a,
	    "case")), json_integer_value(json_object_get(a, "runs")),
	    json_string_value(json_object_get(a, "spec")),
	    json_string_value(json_object_get(a, "repro")),
	    json_real_value(json_object_get(a, "ms")),
	    json_real_value(json_object_get(a, "cand_ms"))) == -1) {
		pw_note("storing a shrink");
		return -1;
	}
	return 0;
}

/* Stores what the shrink found (the smallest variant and its repro). */
static void
shrink_store(struct worker *w)
{
	json_t		*a;
	char		*js = NULL;

	if (w->shrunk && w->shrink_best != NULL) {
		json_object_del(w->shrink_best, "id");
		js = json_dumps(w->shrink_best, JSON_COMPACT | JSON_SORT_KEYS);
	}
	a = json_pack("{sI si sf sf}", "case", (json_int_t)w->shrink_case,
	    "runs", w->shrink_runs, "ms", (now_mono() - w->shrink_t0) * 1e3,
	    "cand_ms", w->shrink_cand_ms);
	if (a != NULL && js != NULL)
		json_object_set_new(a, "spec", json_string_nocheck(js));
	if (a != NULL && w->shrunk && w->shrink_repro != NULL)
		json_object_set_new(a, "repro", json_string_nocheck(
		    w->shrink_repro));
	if (pw_write(w_shrink, a) == -1)
		log_warnx("case %lld: cannot store its shrunk variant",
		    (long long)w->shrink_case);
	if (w->shrunk)
		log_debug("case %lld: shrunk in %d runs", (long long)
		    w->shrink_case, w->shrink_runs);
	free(js);
	shrink_clear(w);
}

/*
 * Sends the next variant, or stores the result when there is none left or
 * the shrink has had its time (runner.shrink_budget: on a GPU every variant
 * is a new shape, and a library that autotunes each new shape can spend a
 * minute on one; a failure found late would otherwise end the screen late).
 * The first variant always runs.  Variants are candidate calls of the key
 * like its cases: runner.key_budget charges them, and a shrink whose key has
 * gone over the budget sends no variant more (on a library that autotunes
 * every new shape the shrinks of its slowest keys cost more than their
 * cases; they were neither timed nor charged before).
 */
static void
shrink_continue(struct worker *w)
{
	json_t	*c;
	int	 dev = w->device;
	const char *key = json_string_value(json_object_get(w->shrink_best,
	    "key"));

	while (w->shrink_left > 0 && (w->shrink_runs == 0 ||
	    env->conf.shrink_budget <= 0 ||
	    now_mono() - w->shrink_t0 < env->conf.shrink_budget) &&
	    (w->shrink_runs == 0 || !key_budget_over(dev, key)) &&
	    (c = shrink_next(w->shrink_best, w->shrink_idx)) != NULL) {
		w->shrink_left--;
		w->shrink_runs++;
		w->shrink_try = c;
		if (case_send(w, w->shrink_case, c) == 0)
			return;
		json_decref(c);
		w->shrink_try = NULL;
		break;
	}
	shrink_store(w);
	worker_idle(w);
}

/*
 * One library, one shrink: the shrinks of the failing cases that complete
 * runs of the device's library (its fingerprint) stored, newest per spec,
 * for a re-screen to take instead of running their variants again. In the
 * warm screen of 2026-11-30 (commit 21575f4) of flag_gems 5.0.2 on the H200 the shrinks of
 * the same 426 failing cases took 1,575 of 3,891 runner-s, and one variant
 * (a new shape of mm.out, autotuned) set the screen's end 297 s after its
 * case. Loaded when a run's device is queued (also on resume); 0, or -1 on a
 * store error (then every shrink runs).
 */
int
shrink_prior_load(int slot)
{
	int		 device = sched.cur.q[slot].device;

	json_decref(sched.prior[slot]);
	if ((sched.prior[slot] = store_shrinks_prior(env->store,
	    sched.cur.run_id, device)) == NULL) {
		sched.prior[slot] = json_object();
		return -1;
	}
	if (json_object_size(sched.prior[slot]) > 0)
		log_info("run %lld: device %d (-1 = cpu): %zu shrinks of earlier "
		    "runs of this library to reuse", (long long)sched.cur.run_id,
		    device, json_object_size(sched.prior[slot]));
	return 0;
}

/*
 * The repro of case `from`'s shrink as case `id`'s: its docstring names the
 * case it was written for ("opscreen repro: case N, ..."); the reused one
 * names this case and the one whose shrink it is. NULL on no memory.
 */
static char *
repro_renamed(const char *repro, long long from, long long id)
{
	static const char	 tag[] = "opscreen repro: case ";
	char			 now[128], *p, *q, *out;
	size_t			 n;

	/* "case N," or, reused before, "case N (shrunk as case M)," */
	if ((p = strstr(repro, tag)) == NULL || p - repro > 256 ||
	    (q = strchr(p, ',')) == NULL || q - p > 96)
		return strdup(repro);
	snprintf(now, sizeof(now), "%s%lld (shrunk as case %lld)", tag, id,
	    from);
	n = strlen(repro) - (q - p) + strlen(now) + 1;
	if ((out = malloc(n)) == NULL)
		return NULL;
	snprintf(out, n, "%.*s%s%s", (int)(p - repro), repro, now, q);
	return out;
}

static int
w_reuse(void *p)
{
	json_t		*a = p;

	if (store_result_reuse(env->store, json_integer_value(json_object_get(a,
	    "case")), json_integer_value(json_object_get(a, "from")),
	    json_string_value(json_object_get(a, "shrunk")),
	    json_string_value(json_object_get(a, "repro"))) == -1) {
		pw_note("storing a reused shrink");
		return -1;
	}
	return 0;
}

/*
 * A failing case that an earlier run of this library failed the same way
 * (same spec, same reason) takes that run's shrink: its shrunk spec and repro,
 * shrink_from naming the case that ran it. Returns 1 when it did.
 */
int
shrink_reuse(int device, int64_t id, const struct case_verdict *v)
{
	json_t		*e = NULL, *a;
	char		*repro, *spec;
	int		 s = slot_of_device(device), done = 0;

	if (s < 0 || sched.prior[s] == NULL || json_object_size(sched.prior[s]) == 0)
		return 0;
	if ((spec = store_case_spec_text(env->store, id)) == NULL)
		return 0;
	e = json_object_get(sched.prior[s], spec);
	free(spec);
	if (e == NULL || strcmp(json_string_value(json_object_get(e, "reason")) ?:
	    "", v->reason) != 0)
		return 0;
	a = json_pack("{sI sI}", "case", (json_int_t)id, "from", (json_int_t)
	    json_integer_value(json_object_get(e, "case")));
	if (a != NULL && json_object_get(e, "shrunk"))
		json_object_set(a, "shrunk", json_object_get(e, "shrunk"));
	if (a != NULL && json_object_get(e, "shrunk") && json_object_get(e,
	    "repro") && (repro = repro_renamed(json_string_value(
	    json_object_get(e, "repro")), json_integer_value(json_object_get(e,
	    "case")), (long long)id)) != NULL) {
		json_object_set_new(a, "repro", json_string_nocheck(repro));
		free(repro);
	}
	/* held behind the case's own record when the store refuses */
	done = pw_write(w_reuse, a) != -1;
	if (done)
		log_debug("case %lld: shrink of case %lld reused", (long long)id,
		    (long long)json_integer_value(json_object_get(e, "case")));
	return done;
}

void
shrink_start(struct worker *w, int64_t id, json_t *spec,
    const struct case_verdict *v)
{
	shrink_clear(w);
	w->shrink_case = id;
	w->shrink_best = json_deep_copy(spec);
	w->shrink_idx = 0;
	w->shrink_left = env->conf.shrink_max;
	w->shrink_t0 = now_mono();
	w->shrink_cand_ms = 0;
	snprintf(w->shrink_reason, sizeof(w->shrink_reason), "%s", v->reason);
	shrink_continue(w);
}

/* A variant's result: keep it when it fails the same way. */
void
shrink_result(struct worker *w, json_t *msg)
{
	struct case_verdict	 v;
	double			 ms;

	verdict_case(w->shrink_try, msg, env->conf.critical_ratio, &v);
	repro_take(&w->repro, msg, &v);
	ms = jnum(json_object_get(msg, "times"), "cand_first_ms");
	if (ms > 0) {
		w->shrink_cand_ms += ms;
		key_budget_charge(w->device, w->shrink_try, ms);
	}
	if (v.status == CASE_FAIL && !strcmp(v.reason, w->shrink_reason)) {
		json_decref(w->shrink_best);
		w->shrink_best = w->shrink_try;
		free(w->shrink_repro);
		w->shrink_repro = w->repro;
		w->repro = NULL;
		w->shrink_idx = 0;
		w->shrunk = 1;
	} else {
		json_decref(w->shrink_try);
		w->shrink_idx++;
	}
	w->shrink_try = NULL;
	if (json_is_true(json_object_get(msg, "fatal"))) {
		shrink_store(w);
		worker_idle(w);
		w->state = W_DEAD;
		return;
	}
	shrink_continue(w);
}

/* The runner hung or died on a variant: keep what was found, no verdict. */
void
shrink_abort(struct worker *w)
{
	shrink_store(w);
}
