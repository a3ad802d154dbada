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

/*
 * Whether a failing case may be shrunk at all, inside the run or after its
 * lists: not a fatal one (its runner is gone) nor a huge one.
 */
static int
shrink_eligible(int device, const json_t *spec, int fatal)
{
	const char	*key = json_string_value(json_object_get(spec, "key"));
	const char	*cls = json_string_value(json_object_get(spec, "class"));

	if (env->conf.shrink_max <= 0 || key == NULL || fatal ||
	    json_is_true(json_object_get(spec, "huge")))
		return 0;
	/*
	 * A random op's failure is a goodness-of-fit test's: a smaller
	 * variant has fewer samples and less power, so one that failed once
	 * is no repro (the demo uniform_'s shrunk repro passed when run by
	 * hand); its evidence stays the generated case.
	 */
	if (cls != NULL && !strcmp(cls, "random"))
		return 0;
	/* a key over runner.key_budget gets no more candidate time */
	return !key_budget_over(device, key);
}

int
shrink_wanted(int device, const json_t *spec, int fatal, double score)
{
	return shrink_eligible(device, spec, fatal) && shrink_mark(device,
	    json_string_value(json_object_get(spec, "key")), score);
}

static void	tail_end_maybe(void);
static void	tail_progress(int64_t, int);

void
shrink_clear(struct worker *w)
{
	/* one of an earlier tail, closed without it, is counted in none */
	if (w->shrink_tail != 0 && w->shrink_tail == sched.tail_run) {
		sched.tail_inflight--;
		tail_progress(sched.tail_run, !sched.tail_stopped);
		tail_end_maybe();
	}
	w->shrink_tail = 0;
	json_decref(w->shrink_best);
	json_decref(w->shrink_try);
	free(w->shrink_repro);
	free(w->shrink_repro_inputs);
	w->shrink_best = w->shrink_try = NULL;
	w->shrink_repro = w->shrink_repro_inputs = NULL;
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
	    json_string_value(json_object_get(a, "inputs")),
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
	if (a != NULL && w->shrunk && w->shrink_repro != NULL) {
		json_object_set_new(a, "repro", json_string_nocheck(
		    w->shrink_repro));
		if (w->shrink_repro_inputs != NULL)
			json_object_set_new(a, "inputs", json_string_nocheck(
			    w->shrink_repro_inputs));
	}
	if (pw_write(w_shrink, a) == -1)
		log_warnx("case %lld: cannot store its shrunk variant",
		    (long long)w->shrink_case);
	if (w->shrunk)
		log_debug("case %lld: shrunk in %d runs", (long long)
		    w->shrink_case, w->shrink_runs);
	if (w->shrink_tail != 0) {
		/* the deny-list's evidence is now the shrunk case */
		if (w->shrink_tail == sched.tail_run) {
			sched.tail_runs += w->shrink_runs;
			sched.tail_shrunk += w->shrunk;
		}
		lists_changed();
	}
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
	    (w->shrink_tail != 0 ? w->shrink_tail == sched.tail_run &&
	    !sched.tail_stopped : w->shrink_runs == 0 ||
	    !key_budget_over(dev, key)) &&
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

/* s with the len bytes at `at` (within s) replaced by now. */
static char *
replaced(const char *s, const char *at, size_t len, const char *now)
{
	size_t	 n = strlen(s) - len + strlen(now) + 1;
	char	*out;

	if ((out = malloc(n)) == NULL)
		return NULL;
	snprintf(out, n, "%.*s%s%s", (int)(at - s), s, now, at + len);
	return out;
}

/*
 * The repro of case `from`'s shrink as case `id`'s: its docstring names the
 * case it was written for ("opscreen repro: case N, ..."); the reused one
 * names this case and the one whose shrink it is, and reads the inputs
 * file case id's inputs are served as. NULL on no memory.
 */
static char *
repro_renamed(const char *repro, long long from, long long id)
{
	static const char	 tag[] = "opscreen repro: case ";
	char			 now[128], *p, *q, *out, *name, *named;

	/* "case N," or, reused before, "case N (shrunk as case M)," */
	if ((p = strstr(repro, tag)) == NULL || p - repro > 256 ||
	    (q = strchr(p, ',')) == NULL || q - p > 96)
		return strdup(repro);
	snprintf(now, sizeof(now), "%s%lld (shrunk as case %lld)", tag, id,
	    from);
	if ((out = replaced(repro, p, q - p, now)) == NULL)
		return NULL;
	/* "case-N.inputs.b64": the file it reads its inputs from */
	if ((name = repro_inputs_name(out, id)) == NULL ||
	    (p = strstr(out, name)) == NULL) {
		free(name);
		return out;
	}
	snprintf(now, sizeof(now), "case-%lld.inputs.b64", id);
	named = replaced(out, p, strlen(name), now);
	free(name);
	free(out);
	return named;
}

static int
w_reuse(void *p)
{
	json_t		*a = p;

	if (store_result_reuse(env->store, json_integer_value(json_object_get(a,
	    "case")), json_integer_value(json_object_get(a, "from")),
	    json_string_value(json_object_get(a, "shrunk")),
	    json_string_value(json_object_get(a, "repro")),
	    json_string_value(json_object_get(a, "inputs"))) == -1) {
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
		if (json_object_get(e, "inputs"))
			json_object_set(a, "inputs", json_object_get(e, "inputs"));
	}
	/* held behind the case's own record when the store refuses */
	done = pw_write(w_reuse, a) != -1;
	if (done)
		log_debug("case %lld: shrink of case %lld reused", (long long)id,
		    (long long)json_integer_value(json_object_get(e, "case")));
	return done;
}

static void
shrink_begin(struct worker *w, int64_t id, json_t *spec, const char *reason,
    int64_t tail)
{
	shrink_clear(w);
	w->shrink_case = id;
	w->shrink_best = json_deep_copy(spec);
	w->shrink_idx = 0;
	w->shrink_left = env->conf.shrink_max;
	w->shrink_t0 = now_mono();
	w->shrink_cand_ms = 0;
	if ((w->shrink_tail = tail))
		sched.tail_inflight++;
	snprintf(w->shrink_reason, sizeof(w->shrink_reason), "%s", reason);
	shrink_continue(w);
}

void
shrink_start(struct worker *w, int64_t id, json_t *spec,
    const struct case_verdict *v)
{
	shrink_begin(w, id, spec, v->reason, 0);
}

/* A variant's result: keep it when it fails the same way. */
void
shrink_result(struct worker *w, json_t *msg)
{
	struct case_verdict	 v;
	double			 ms;

	verdict_case(w->shrink_try, msg, env->conf.critical_ratio, &v);
	repro_take(&w->repro, &w->repro_inputs, msg, &v);
	ms = jnum(json_object_get(msg, "times"), "cand_first_ms");
	if (ms > 0) {
		w->shrink_cand_ms += ms;
		/* after the run: another run's budget is not this one's */
		if (w->shrink_tail == 0)
			key_budget_charge(w->device, w->shrink_try, ms);
	}
	if (v.status == CASE_FAIL && !strcmp(v.reason, w->shrink_reason)) {
		json_decref(w->shrink_best);
		w->shrink_best = w->shrink_try;
		free(w->shrink_repro);
		free(w->shrink_repro_inputs);
		w->shrink_repro = w->repro;
		w->shrink_repro_inputs = w->repro_inputs;
		w->repro = w->repro_inputs = NULL;
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

/*
 * Shrinking after the lists (runner.shrink_after = yes).  A run's shrinks
 * are no part of its verdicts: the verdict and the stored spec stay the
 * generated case's, only the evidence's repro and shrunk_spec change.  Run
 * inside the run they held its completion, and so every list at 503 on a new
 * library: in the cold eager screen of 2026-12-04 on the H200, 439 failing
 * cases were shrunk in 1,610 variant runs, 549.3 runner-s, and a variant of
 * a key that autotunes each new shape can end a screen late.  So the run
 * completes and its lists are served with the unshrunk cases as evidence
 * (each failing case has its repro), and then, on the idle runners, the
 * failing cases the lists show are shrunk: the evidence of each verdict,
 * eager and per mode (store_shrink_pending; the in-run rule shrank each
 * key's worst failure so far, which the evidence of some of its dtypes did
 * not get), an earlier run's shrink of the same library taken where there
 * is one, and the evidence replaced as each shrink ends.  A new run or a new
 * library stops them (shrink_tail_stop): the variants in flight end, the
 * rest keep their unshrunk evidence.  A restart takes them up again on the
 * same library (shrink_tail_interrupted).  The run's `shrinks_done` event
 * says how many ran and whether they were stopped.
 */

/* sched.progress of the run, while its shrinks go on: how many are left */
static void
tail_progress(int64_t run, int active)
{
	pthread_mutex_lock(&sched.mtx);
	if (sched.progress != NULL && run != 0 && json_integer_value(
	    json_object_get(sched.progress, "run")) == run) {
		if (active)
			json_object_set_new(sched.progress, "shrinking",
			    json_pack("{si si si}", "left", (int)
			    json_array_size(sched.tail) + sched.tail_inflight,
			    "of", sched.tail_n, "running", sched.tail_inflight));
		else
			json_object_del(sched.progress, "shrinking");
	}
	pthread_mutex_unlock(&sched.mtx);
}

static int
w_tail_event(void *p)
{
	json_t		*a = p;

	if (run_add_event(json_integer_value(json_object_get(a, "run")),
	    "shrinks_done", json_object_get(a, "ev")) == -1) {
		pw_note("storing a run's shrinks_done event");
		return -1;
	}
	return 0;
}

/* The tail's end: nothing left to start and nothing in flight. */
static void
tail_end_maybe(void)
{
	json_t		*ev;
	int		 left = (int)json_array_size(sched.tail);

	if (sched.tail_run == 0 || sched.tail_inflight > 0 ||
	    (left > 0 && !sched.tail_stopped))
		return;
	ev = json_pack("{si si si si sf sb}", "shrinks", sched.tail_n,
	    "dropped", left, "shrunk", sched.tail_shrunk, "runs",
	    sched.tail_runs, "wall_s", now_mono() - sched.tail_t0, "stopped",
	    sched.tail_stopped);
	if (sched.tail_resumed)
		json_object_set_new(ev, "resumed", json_true());
	log_info("run %lld: %d of %d failing cases shrunk after its lists in "
	    "%d runs, %.1f s%s", (long long)sched.tail_run, sched.tail_shrunk,
	    sched.tail_n, sched.tail_runs, now_mono() - sched.tail_t0,
	    sched.tail_stopped ? " (stopped)" : "");
	if (pw_write(w_tail_event, json_pack("{sI so}", "run", (json_int_t)
	    sched.tail_run, "ev", ev)) == -1)
		log_warnx("run %lld: cannot store its shrinks_done event",
		    (long long)sched.tail_run);
	json_decref(sched.tail);
	sched.tail = NULL;
	sched.tail_stopped = 0;
	tail_progress(sched.tail_run, 0);
	sched.tail_run = 0;
}

/*
 * After run_finish, before run_clear (the key budgets are still the run's):
 * the failing cases to shrink; none with runner.shrink_max = 0 or when the
 * store cannot say (-1; the evidence stays unshrunk).  Each complete run
 * then has its shrinks_done event.
 */
int
shrink_tail_load(int64_t run)
{
	json_t		*all = NULL, *e;
	size_t		 i;
	int		 rc = 0;

	if (!env->conf.shrink_after)
		return 0;
	shrink_tail_stop("another run completed");
	/*
	 * A stopped tail whose variant outlasted a whole run: its event now,
	 * that variant in neither tally (it ends, its case keeps what it
	 * found, and no variant of it follows: shrink_continue)
	 */
	if (sched.tail_run != 0) {
		sched.tail_inflight = 0;
		tail_end_maybe();
	}
	if (env->conf.shrink_max > 0 &&
	    (all = store_shrink_pending(env->store, run)) == NULL)
		rc = error("run %lld: cannot read its failing cases; they stay "
		    "unshrunk", (long long)run);
	json_decref(sched.tail);
	sched.tail = json_array();
	json_array_foreach(all, i, e) {
		struct case_verdict	 v;
		int	 dev = json_integer_value(json_object_get(e, "device"));
		json_t	*spec = json_loads(json_string_value(json_object_get(e,
		    "spec")), 0, NULL);

		/* the rule inside the run (its key's budget: the run's) */
		if (spec == NULL || !shrink_eligible(dev, spec,
		    json_is_true(json_object_get(e, "fatal")))) {
			json_decref(spec);
			continue;
		}
		/* one library, one shrink (sched.prior is still the run's) */
		memset(&v, 0, sizeof(v));
		snprintf(v.reason, sizeof(v.reason), "%s", json_string_value(
		    json_object_get(e, "reason")) ?: "");
		if (shrink_reuse(dev, json_integer_value(json_object_get(e,
		    "case")), &v)) {
			json_decref(spec);
			continue;
		}
		json_object_del(spec, "id");
		json_object_set_new(e, "spec", spec);
		json_array_append(sched.tail, e);
	}
	json_decref(all);
	sched.tail_run = run;
	sched.tail_n = (int)json_array_size(sched.tail);
	sched.tail_shrunk = sched.tail_runs = sched.tail_stopped = 0;
	sched.tail_resumed = 0;
	sched.tail_t0 = now_mono();
	if (sched.tail_n > 0)
		log_info("run %lld: %d failing cases to shrink after its lists",
		    (long long)run, sched.tail_n);
	tail_progress(run, 1);
	return rc;
}

/*
 * At start-up with no run to resume (sched_resume): the newest complete run
 * whose shrinks after its lists a stop ended early (it has no shrinks_done
 * event) takes them up again once its runners are back (tail_resume_try).
 * What its lists show meanwhile is the unshrunk evidence, as before the stop.
 */
void
shrink_tail_interrupted(void)
{
	int64_t	 run;

	if (!env->conf.shrink_after || env->conf.shrink_max <= 0)
		return;
	if (store_run_tail_interrupted(env->store, &run) == -1) {
		error("cannot read whether the last run's shrinks ended; its "
		    "evidence stays as stored");
		return;
	}
	if (run == 0)
		return;
	sched.tail_resume = run;
	log_info("run %lld: its shrinks after the lists were stopped with the "
	    "daemon; taken up again once its runners are back", (long long)run);
}

/* /runs/N and /healthz show the resumed tail's run and what is left */
static void
tail_resume_progress(int64_t run)
{
	int64_t	 total = 0, done = 0;
	json_t	*p;

	if (store_run_recount(env->store, run, &total, &done) == -1)
		total = done = 0;
	p = json_pack("{sI ss sI sI}", "run", (json_int_t)run, "state",
	    "complete", "total", (json_int_t)total, "done", (json_int_t)done);
	pthread_mutex_lock(&sched.mtx);
	if (sched.progress == NULL) {
		sched.progress = p;
		sched.progress_turns++;
		p = NULL;
	}
	pthread_mutex_unlock(&sched.mtx);
	json_decref(p);
}

/*
 * The interrupted tail of sched.tail_resume: taken up when a runner of each
 * of the run's devices has said hello with the fingerprint the run recorded
 * for it (a shrink on another library would replace the run's evidence with
 * another library's case); dropped when one has another, or the device is
 * not screened any more.  The run's key accounts are read back from its
 * stored cases, as a resumed run's are, so that a key over
 * runner.key_budget is still not shrunk.  0 still waiting for runners.
 */
static int
tail_resume_try(void)
{
	int64_t		 run = sched.tail_resume;
	int		 devices[NSLOTS], n, i, k, same;
	char		 why[160] = "";
	struct worker	*w = NULL;
	json_t		*was, *acc, *e, *v;
	size_t		 j;

	if ((n = store_run_devices(env->store, run, devices, NSLOTS)) == -1)
		snprintf(why, sizeof(why), "store: %s",
		    store_errmsg(env->store));
	for (i = 0; i < n && why[0] == '\0'; i++) {
		if (slot_of_device(devices[i]) < 0) {
			snprintf(why, sizeof(why), "device %d (-1 = cpu) is not "
			    "screened any more", devices[i]);
			break;
		}
		for (k = 0, w = NULL; k < sched.nworkers && w == NULL; k++)
			if (sched.workers[k].device == devices[i] &&
			    sched.workers[k].fingerprint != NULL &&
			    !sched.workers[k].fp_stale)
				w = &sched.workers[k];
		if (w == NULL)
			return 0;	/* its runners have not said hello */
		same = run_device_same_library(run, devices[i],
		    w->fingerprint, &was);
		json_decref(was);
		if (same != 1)
			snprintf(why, sizeof(why), "device %d (-1 = cpu) has "
			    "%s", devices[i], same == 0 ? "another library "
			    "than the run recorded" : "a library that cannot "
			    "be compared with the run's");
	}
	for (i = 0; i < n && why[0] == '\0'; i++) {
		if ((acc = store_key_accounts(env->store, run, devices[i])) ==
		    NULL) {
			snprintf(why, sizeof(why), "cannot read its key "
			    "accounts: %s", store_errmsg(env->store));
			break;
		}
		json_array_foreach(acc, j, e)
			if ((v = json_object_get(e, "ms")) != NULL)
				key_budget_add(devices[i], json_string_value(
				    json_object_get(e, "key")),
				    json_real_value(v) / 1e3);
		json_decref(acc);
	}
	sched.tail_resume = 0;
	if (why[0] == '\0') {
		tail_resume_progress(run);
		if (shrink_tail_load(run) == 0)
			sched.tail_resumed = 1;
	} else
		log_warnx("run %lld: its shrinks after the lists are not taken "
		    "up again (%s); its evidence stays unshrunk", (long long)run,
		    why);
	/* the accounts were the run's; the next run starts its own */
	json_decref(sched.spent);
	sched.spent = NULL;
	return 1;
}

/* The main loop, no run in progress: the idle runners take the shrinks. */
void
shrink_tail_poll(void)
{
	int	 i, started = 0;
	size_t	 j;
	json_t	*e = NULL;

	if (sched.tail_resume != 0 && sched.tail_run == 0 &&
	    tail_resume_try() == 0)
		return;
	if (sched.tail_run == 0)
		return;
	for (i = 0; i < sched.nworkers && !sched.tail_stopped; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->state != W_IDLE || w->fp_stale)
			continue;
		json_array_foreach(sched.tail, j, e)
			if (json_integer_value(json_object_get(e, "device")) ==
			    w->device)
				break;
		if (j >= json_array_size(sched.tail))
			continue;
		shrink_begin(w, json_integer_value(json_object_get(e, "case")),
		    json_object_get(e, "spec"), json_string_value(
		    json_object_get(e, "reason")) ?: "", sched.tail_run);
		json_array_remove(sched.tail, j);
		started++;
	}
	if (started)
		tail_progress(sched.tail_run, !sched.tail_stopped);
	tail_end_maybe();
}

/*
 * A new run starts or the library changed: no shrink of the completed run
 * starts any more, those in flight stop after their variant.
 */
void
shrink_tail_stop(const char *why)
{
	if (sched.tail_resume != 0) {
		log_info("run %lld: its shrinks after the lists are not taken "
		    "up again (%s)", (long long)sched.tail_resume, why);
		sched.tail_resume = 0;
	}
	if (sched.tail_run == 0 || sched.tail_stopped)
		return;
	if (json_array_size(sched.tail) + sched.tail_inflight > 0)
		log_info("run %lld: shrinking after its lists stopped (%s); %zu "
		    "failing cases keep their unshrunk evidence", (long long)
		    sched.tail_run, why, json_array_size(sched.tail));
	sched.tail_stopped = 1;
	tail_progress(sched.tail_run, 0);
	tail_end_maybe();
}
