/*
 * record.c: what the scheduler writes about cases and runs (results, run ends,
 * events), and the queue of writes the store refused, held in order and
 * tried again with back-off.
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

int
run_add_event(int64_t run_id, const char *kind, json_t *obj)
{
	return store_event_add(env->store, run_id, kind, obj, now_wall());
}

double
jnum(json_t *o, const char *k)
{
	json_t	*v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : -1;
}

/*
 * A write the store refuses (disk full, a read-only or locked database, an
 * I/O error) is never dropped: it is held here, in order, and tried again
 * with back-off.  While one is held the scheduler takes no new step (no run
 * starts, no case is sent, no run finishes; sched_poll): only the cases in
 * flight end, and their records queue behind, so the queue stays within a
 * few writes per runner.  A write past PW_MAX is refused and logged; its
 * case keeps no result, and run_finish refuses a run with such a case.
 * Writes that cannot wait (a run's cases, its verdicts, starting it) are
 * not held: they are tried again after the same back-off.
 */
#define PW_MAX		(16 * MAX_WORKERS + 64)
#define PW_BACKOFF_MIN	0.5
#define PW_BACKOFF_MAX	8.0

typedef int	(*pw_fn)(void *);
typedef void	(*pw_release)(void *);

static struct {
	pw_fn		 fn[PW_MAX];
	pw_release	 release[PW_MAX];
	void		*args[PW_MAX];
	size_t	 head, n;
	int	 fault;		/* the last write tried was refused */
	double	 next;		/* monotonic: when to try again */
	double	 backoff;
	double	 since;		/* wall-clock: degraded since */
	int64_t	 failures;
	char	 error[256];
} pw;

static void
pw_publish(void)
{
	struct store_health	 h;

	memset(&h, 0, sizeof(h));
	h.degraded = pw.fault || pw.n > 0;
	snprintf(h.error, sizeof(h.error), "%s", h.degraded ? pw.error : "");
	h.pending_writes = pw.n;
	h.since = h.degraded ? pw.since : 0;
	h.write_failures = pw.failures;
	store_health_set(&h);
}

/* A write was refused: keeps why (the store's message, before a rollback). */
void
pw_note(const char *what)
{
	snprintf(pw.error, sizeof(pw.error), "%s: %s", what,
	    store_errmsg(env->store));
}

int
pw_refused(const char *what)
{
	pw_note(what);
	store_rollback(env->store);
	return -1;
}

/* The store refused a write: try again after the back-off. */
void
pw_fault(void)
{
	pw.failures++;
	if (pw.since == 0)
		pw.since = now_wall();
	pw.fault = 1;
	pw.backoff = pw.backoff > 0 ? pw.backoff * 2 : PW_BACKOFF_MIN;
	if (pw.backoff > PW_BACKOFF_MAX)
		pw.backoff = PW_BACKOFF_MAX;
	pw.next = now_mono() + pw.backoff;
	if (store_damaged(env->store))
		set_store_damaged(pw.error);
	log_warnx("store degraded: %s; %zu writes held, next try in %.1f s",
	    pw.error, pw.n, pw.backoff);
	pw_publish();
}

/* A write went through: with none held the store is healthy again. */
void
pw_ok(void)
{
	if (pw.n > 0 || !pw.fault)
		return;
	log_info("store writable again after %.1f s", now_wall() - pw.since);
	pw.fault = 0;
	pw.backoff = 0;
	pw.since = 0;
	pw_publish();
}

/*
 * Writes through fn(arg) (release frees arg when done), now when nothing is
 * held, else behind what is.  fn returns 0 or, after pw_refused(), -1.
 * 0 written, 1 held for a later try, -1 refused for good (the queue is
 * full).
 */
static int
pw_write_with(pw_fn fn, void *arg, pw_release release)
{
	size_t	 i;

	if (pw.n == 0 && fn(arg) == 0) {
		release(arg);
		pw_ok();
		return 0;
	}
	if (pw.n == PW_MAX) {
		error("store: %zu writes held; one more is refused and its case "
		    "keeps no result: its run cannot complete", pw.n);
		release(arg);
		pw.failures++;
		pw_publish();
		return -1;
	}
	i = (pw.head + pw.n++) % PW_MAX;
	pw.fn[i] = fn;
	pw.release[i] = release;
	pw.args[i] = arg;
	if (pw.n == 1)
		pw_fault();	/* it was tried and refused just now */
	else
		pw_publish();
	return 1;
}

/* Tries the held writes again, in order, once the back-off has passed. */
void
pw_flush(void)
{
	if (pw.n == 0 || now_mono() < pw.next)
		return;
	while (pw.n > 0) {
		if (pw.fn[pw.head](pw.args[pw.head]) == -1) {
			pw_fault();
			return;
		}
		pw.release[pw.head](pw.args[pw.head]);
		pw.args[pw.head] = NULL;
		pw.head = (pw.head + 1) % PW_MAX;
		pw.n--;
	}
	pw_ok();
}

static void
pw_json_release(void *a)
{
	json_decref(a);
}

/* pw_write_with for a write whose arguments are a JSON object (stolen). */
int
pw_write(int (*fn)(void *), json_t *args)
{
	if (args == NULL)
		return error("store: out of memory");
	return pw_write_with(fn, args, pw_json_release);
}

/*
 * Whether the scheduler may take a new step: nothing held, and a write
 * that could not wait (pw_fault without a held one) is due again.
 */
int
pw_ready(void)
{
	return pw.n == 0 && (!pw.fault || now_mono() >= pw.next);
}

/* the store's last refusal */
const char *
pw_error(void)
{
	return pw.error;
}

/* A write that cannot be held was refused: its caller tries it again. */
int
pw_retry_later(const char *what)
{
	pw_refused(what);
	pw_fault();
	return -1;
}

/* One case's outcome, as case_record() stores it. */
struct rec {
	int64_t			 case_id, run;
	char			 status[16];
	char			 state[16];	/* the case's state after it */
	struct case_verdict	 v;
	char			*figs, *errtail, *repro;
	char			*inputs;	/* the repro's inputs file's text */
	double			 ms[3];		/* first, steady, native; < 0 none */
	double			 created;
	char			*alone_first;	/* a lost case's result alone:
						 * how it was lost (alone.c) */
};

static void
rec_free(void *p)
{
	struct rec	*r = p;

	free(r->figs);
	free(r->errtail);
	free(r->repro);
	free(r->inputs);
	free(r->alone_first);
	free(r);
}

/* Stores one case's outcome and counts it done, in one transaction. */
static int
w_result(void *p)
{
	struct rec		*r = p;
	struct store_result	 sr = { .case_id = r->case_id,
				    .status = r->status, .reason = r->v.reason,
				    .detail = r->v.detail, .score = r->v.score,
				    .native_inaccurate = r->v.native_inaccurate,
				    .figures = r->figs, .errtail = r->errtail,
				    .repro = r->repro, .repro_inputs = r->inputs,
				    .severity = severity_name(
				    verdict_severity(&r->v)), .ms = { r->ms[0], r->ms[1],
				    r->ms[2] }, .created = r->created };
	char			 what[64];
	double			 t0 = now_mono();
	json_t			*again = NULL;
	int64_t			 n = 1;

	if (store_begin(env->store) == -1 ||
	    store_result_add(env->store, &sr) == -1 ||
	    store_case_set_state(env->store, r->case_id, r->state) == -1)
		goto refused;
	/*
	 * A lost case's result alone replaces the one it was lost with (it
	 * was counted done then); the cases skipped after it are pending
	 * again, in the same transaction
	 */
	if (r->alone_first != NULL) {
		if ((again = store_alone_unskip(env->store, r->case_id,
		    r->alone_first)) == NULL)
			goto refused;
		n = -(int64_t)json_array_size(again);
	}
	if (store_run_done_add(env->store, r->run, n) == -1 ||
	    store_commit(env->store) == -1)
		goto refused;
	if (r->run == sched.cur.run_id) {
		sched.cur.done += n;
		sched.cur.store_s += now_mono() - t0;
		if (again != NULL)
			alone_requeue(again);
	}
	json_decref(again);
	return 0;
 refused:
	json_decref(again);
	snprintf(what, sizeof(what), "storing case %lld", (long long)r->case_id);
	pw_note(what);
	store_rollback(env->store);
	return -1;
}

/*
 * Stores one case's outcome (status, or the verdict's when NULL) and counts
 * it done; a write the store refuses is held and tried again (pw_write).
 * 0 stored, 1 held, -1 refused for good.
 */
static struct rec *
case_rec(int64_t case_id, const struct case_verdict *v, const char *status,
    const char *state, json_t *result, const char *errtail, const char *repro,
    const char *inputs)
{
	struct rec	*r;
	json_t		*times = result ? json_object_get(result, "times") : NULL;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		error("case %lld: out of memory", (long long)case_id);
		return NULL;
	}
	r->case_id = case_id;
	r->run = sched.cur.run_id;
	snprintf(r->status, sizeof(r->status), "%s", status ? status :
	    case_status_name(v->status));
	snprintf(r->state, sizeof(r->state), "%s", state);
	r->v = *v;
	if (result) {
		/*
		 * The repro has its own column: a RESULT's copy of it is not
		 * stored again with the figures (it was 44 of the 60 MB of
		 * figures a full demo screen stored, 2026-12-07)
		 */
		json_t	*f = json_object_get(result, "repro") != NULL ||
		    json_object_get(result, "repro_inputs") != NULL ?
		    json_copy(result) : json_incref(result);

		if (f != NULL) {
			json_object_del(f, "repro");
			json_object_del(f, "repro_inputs");
			r->figs = json_dumps(f, JSON_COMPACT);
			json_decref(f);
		}
	}
	if (errtail && *errtail)
		r->errtail = strdup(errtail);
	if (repro && v->status != CASE_PASS && v->status != CASE_NA) {
		r->repro = strdup(repro);
		if (inputs != NULL)
			r->inputs = strdup(inputs);
	}
	r->ms[0] = times ? jnum(times, "cand_first_ms") : -1;
	r->ms[1] = times ? jnum(times, "cand_steady_ms") : -1;
	r->ms[2] = times ? jnum(times, "native_ms") : -1;
	r->created = now_wall();
	return r;
}

int
case_record_as(int64_t case_id, const struct case_verdict *v,
    const char *status, const char *state, json_t *result,
    const char *errtail, const char *repro, const char *inputs)
{
	struct rec	*r;

	if ((r = case_rec(case_id, v, status, state, result, errtail, repro,
	    inputs)) == NULL)
		return -1;
	return pw_write_with(w_result, r, rec_free);
}

int
case_record(int64_t case_id, const struct case_verdict *v, json_t *result,
    const char *errtail, const char *repro, const char *inputs)
{
	return case_record_as(case_id, v, NULL, "done", result, errtail, repro,
	    inputs);
}

/*
 * A lost case's result alone (alone.c): stored in place of the timeout or
 * crash it was lost with (`first` says how), its skipped siblings pending
 * and queued again.
 */
int
case_record_alone(int64_t case_id, const struct case_verdict *v,
    json_t *result, const char *repro, const char *inputs, const char *first)
{
	struct rec	*r;

	if ((r = case_rec(case_id, v, NULL, "done", result, NULL, repro,
	    inputs)) == NULL)
		return -1;
	if ((r->alone_first = strdup(first)) == NULL) {
		rec_free(r);
		return error("case %lld: out of memory", (long long)case_id);
	}
	return pw_write_with(w_result, r, rec_free);
}

/* A run's end (failed, cancelled): its state, its pending cases cancelled. */
static int
w_run_end(void *p)
{
	json_t		*a = p;
	int64_t		 run = json_integer_value(json_object_get(a, "run"));

	if (store_begin(env->store) == -1 || run_set_state(run,
	    json_string_value(json_object_get(a, "state")), json_string_value(
	    json_object_get(a, "error"))) == -1)
		return pw_refused("ending a run");
	if (store_run_cancel_pending(env->store, run) == -1 ||
	    store_commit(env->store) == -1)
		return pw_refused("ending a run");
	return 0;
}

int
run_end(int64_t run, const char *state, const char *why)
{
	/* why may quote a runner's stderr: not checked as UTF-8 */
	return pw_write(w_run_end, json_pack("{sI ss so}", "run",
	    (json_int_t)run, "state", state, "error", json_string_nocheck(
	    why ? why : "")));
}

static int
w_event(void *p)
{
	json_t	*a = p;

	if (run_add_event(json_integer_value(json_object_get(a, "run")),
	    json_string_value(json_object_get(a, "kind")),
	    json_object_get(a, "event")) == -1)
		return pw_refused("storing an event");
	return 0;
}

/* An event outside a transaction of its own writer: held when refused. */
int
run_event(int64_t run, const char *kind, json_t *ev)
{
	return pw_write(w_event, json_pack("{sI ss sO}", "run", (json_int_t)run,
	    "kind", kind, "event", ev));
}

int
run_set_state(int64_t id, const char *state, const char *err)
{
	return store_run_set_state(env->store, id, state, err, now_wall());
}
