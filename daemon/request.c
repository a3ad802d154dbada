/*
 * request.c: the API threads' entry points: validating a run request and
 * handing it, or a cancel, to the main loop, which writes it; reading the
 * state shared under sched.mtx.
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

/*
 * The main loop's connection is the store's one writer: an API thread
 * validates a request, posts it here and waits; the main loop takes it
 * (sched_requests), writes on its own connection and posts the outcome
 * back.  A request the main loop has not taken within REQ_WAIT is withdrawn
 * and answered "busy"; one it has taken is always answered with its
 * outcome, so none is lost or made twice.
 */
#define REQ_WAIT	5.0	/* seconds an API thread waits to be taken */

enum req_kind { REQ_QUEUE, REQ_CANCEL };
enum req_state { REQ_POSTED, REQ_TAKEN, REQ_DONE };

struct req {
	enum req_kind	 kind;
	enum req_state	 state;
	const char	*request;	/* REQ_QUEUE: the run's request, JSON */
	int		 full;
	int64_t		 run;		/* REQ_CANCEL: in; REQ_QUEUE: out */
	int		 rc;
	char		 err[256];
	struct req	*next;
};

static struct {
	pthread_mutex_t	 mtx;
	pthread_cond_t	 done;
	struct req	*head, **tail;
	pthread_t	 main;		/* the main loop's thread */
} box = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL,
    &box.head, 0 };

static int	req_run(struct req *);

/* Names the calling thread as the main loop's (start-up, from sched_init). */
void
request_init(void)
{
	box.main = pthread_self();
}

/*
 * Posts r to the main loop and waits for its outcome (r->rc, r->err); -3
 * busy when the main loop did not take it in time (it is withdrawn).
 */
static int
req_post(struct req *r)
{
	struct timespec	 until;
	struct req	**pp;

	/* the main loop's own request (a screen at start-up): made at once */
	if (pthread_equal(pthread_self(), box.main))
		return req_run(r);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)REQ_WAIT;
	r->state = REQ_POSTED;
	r->next = NULL;
	pthread_mutex_lock(&box.mtx);
	*box.tail = r;
	box.tail = &r->next;
	env_wakeup();
	while (r->state == REQ_POSTED && pthread_cond_timedwait(&box.done,
	    &box.mtx, &until) != ETIMEDOUT)
		;
	if (r->state == REQ_POSTED) {
		for (pp = &box.head; *pp != r; pp = &(*pp)->next)
			;
		if ((*pp = r->next) == NULL)
			box.tail = pp;
		pthread_mutex_unlock(&box.mtx);
		snprintf(r->err, sizeof(r->err), "busy: the scheduler did not "
		    "take the request within %.0f s; retry", REQ_WAIT);
		return -3;
	}
	while (r->state != REQ_DONE)
		pthread_cond_wait(&box.done, &box.mtx);
	pthread_mutex_unlock(&box.mtx);
	return r->rc;
}

/* The main loop: queues a run in one transaction (sched_queue_run's codes). */
static int
req_queue(struct req *r)
{
	struct store	*st = env->store;
	int		 queued, nfull;

	if (store_begin(st) == -1) {
		snprintf(r->err, sizeof(r->err), "store busy: %s",
		    store_errmsg(st));
		return -3;
	}
	if (store_runs_queued(st, &queued, &nfull) == -1)
		queued = 0;
	if (queued >= QUEUED_RUNS_MAX) {
		snprintf(r->err, sizeof(r->err), "%d runs already queued",
		    queued);
		store_rollback(st);
		return -2;
	}
	if ((r->run = store_run_queue(st, r->request, r->full, now_wall())) >
	    0 && store_commit(st) == 0)
		return 0;
	snprintf(r->err, sizeof(r->err), "store: %s", store_errmsg(st));
	store_rollback(st);
	return -3;
}

/* The main loop: cancels a run (sched_cancel_run's codes). */
static int
req_cancel(struct req *r)
{
	char	 state[32];
	int	 rc;

	if ((rc = store_run_state(env->store, r->run, state,
	    sizeof(state))) == -1)
		return -3;
	if (rc == 0) {
		snprintf(r->err, sizeof(r->err), "no run %lld",
		    (long long)r->run);
		return -1;
	}
	if (!strcmp(state, "queued")) {
		if ((rc = store_run_cancel_queued(env->store, r->run,
		    now_wall())) == 1)
			return 0;
		if (rc == -1)
			return -3;
	}
	if (!strcmp(state, "running") || !strcmp(state, "queued")) {
		pthread_mutex_lock(&sched.mtx);
		sched.cancel_req = r->run;
		pthread_mutex_unlock(&sched.mtx);
		return 0;
	}
	snprintf(r->err, sizeof(r->err), "run %lld is already %s",
	    (long long)r->run, state);
	return -2;
}

static int
req_run(struct req *r)
{
	return r->kind == REQ_QUEUE ? req_queue(r) : req_cancel(r);
}

/*
 * Main loop: takes the API threads' posted requests, one at a time, and
 * answers each with its outcome.
 */
void
sched_requests(void)
{
	struct req	*r;

	for (;;) {
		pthread_mutex_lock(&box.mtx);
		if ((r = box.head) != NULL) {
			if ((box.head = r->next) == NULL)
				box.tail = &box.head;
			r->state = REQ_TAKEN;
		}
		pthread_mutex_unlock(&box.mtx);
		if (r == NULL)
			return;
		r->rc = req_run(r);
		pthread_mutex_lock(&box.mtx);
		r->state = REQ_DONE;
		pthread_cond_broadcast(&box.done);
		pthread_mutex_unlock(&box.mtx);
	}
}

/*
 * Checks req's list field with valid (1 valid, 0 unknown, -1 not known
 * yet). 0 when it is absent or valid; -1 a bad request (err says why); -4
 * a value that cannot be judged yet (err says why; the API answers 503).
 */
static int
check_list(json_t *req, const char *field, int (*valid)(const char *),
    char *err, size_t errlen)
{
	json_t	*a = json_object_get(req, field), *v;
	size_t	 i;
	int	 ok;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 1024) {
		snprintf(err, errlen, "'%s' must be an array of at most 1024 "
		    "strings", field);
		return -1;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || json_string_length(v) > 128) {
			snprintf(err, errlen, "'%s' must contain strings", field);
			return -1;
		}
		if (valid && (ok = valid(json_string_value(v))) <= 0) {
			if (ok < 0) {
				snprintf(err, errlen, "'%s': '%s' is not in the "
				    "probe catalog, and no runner has reported "
				    "the library's registration table yet "
				    "(GET /healthz says whether one could not "
				    "import it); retry", field,
				    json_string_value(v));
				return -4;
			}
			snprintf(err, errlen, "'%s': unknown value '%s'", field,
			    json_string_value(v));
			return -1;
		}
	}
	return 0;
}

static int
valid_class(const char *s)
{
	return probe_class_parse(s) > 0;
}

/*
 * An op is a catalog key or a name or key of the registration table a
 * runner reported; before any runner has reported one, a name outside the
 * catalog cannot be judged (-1): a deployment script that asks for a
 * schema-only key right after the daemon starts is told to retry, not that
 * the key does not exist.
 */
static int
valid_op(const char *s)
{
	int	 ok;

	if (catalog_has(s))
		return 1;
	pthread_mutex_lock(&sched.mtx);
	ok = json_object_get(sched.names, s) != NULL ? 1 :
	    json_object_size(sched.names) == 0 ? -1 : 0;
	pthread_mutex_unlock(&sched.mtx);
	return ok;
}

/*
 * 0 queued; -1 bad request (err says why); -2 too many queued; -3 store;
 * -4 an op that cannot be judged before a runner reports its table.
 */
int
sched_queue_run(json_t *req, int64_t *run_id, char *err, size_t errlen)
{
	struct req	 r;
	const char	*k;
	json_t		*v;
	char		*js;
	int		 full, rc, bad;

	json_object_foreach(req, k, v)
		if (strcmp(k, "ops") && strcmp(k, "classes") && strcmp(k,
		    "dtypes") && strcmp(k, "reason") && strcmp(k, "carry")) {
			snprintf(err, errlen, "unknown field '%s' (expected ops, "
			    "classes, dtypes, carry)", k);
			return -1;
		}
	if ((v = json_object_get(req, "carry")) && !json_is_boolean(v)) {
		snprintf(err, errlen, "'carry' must be true or false");
		return -1;
	}
	if ((bad = check_list(req, "classes", valid_class, err, errlen)) < 0 ||
	    (bad = check_list(req, "dtypes", dtype_valid, err, errlen)) < 0 ||
	    (bad = check_list(req, "ops", valid_op, err, errlen)) < 0)
		return bad;
	if ((v = json_object_get(req, "reason")) && !json_is_string(v)) {
		snprintf(err, errlen, "'reason' must be a string");
		return -1;
	}
	full = json_array_size(json_object_get(req, "ops")) == 0 &&
	    json_array_size(json_object_get(req, "classes")) == 0 &&
	    json_array_size(json_object_get(req, "dtypes")) == 0;
	memset(&r, 0, sizeof(r));
	r.kind = REQ_QUEUE;
	r.full = full;
	if ((js = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -3;
	}
	r.request = js;
	rc = req_post(&r);
	free(js);
	if (rc == 0)
		*run_id = r.run;
	else
		snprintf(err, errlen, "%s", r.err);
	return rc;
}

/* 0 cancelled (or cancelling); -1 no such run; -2 already finished. */
int
sched_cancel_run(int64_t id, char *err, size_t errlen)
{
	struct req	 r;
	int		 rc;

	memset(&r, 0, sizeof(r));
	r.kind = REQ_CANCEL;
	r.run = id;
	if ((rc = req_post(&r)) != 0)
		snprintf(err, errlen, "%s", r.err);
	return rc;
}

/* How many times the current progress changed its run or its state. */
unsigned
sched_progress_turns(void)
{
	unsigned	n;

	pthread_mutex_lock(&sched.mtx);
	n = sched.progress_turns;
	pthread_mutex_unlock(&sched.mtx);
	return n;
}

/*
 * The current run's progress; while it runs, with its rate (cases per
 * second of this process's work) and the seconds left at that rate.
 */
json_t *
sched_progress(void)
{
	json_t		*p;
	double		 rate, eta;
	const char	*state;

	pthread_mutex_lock(&sched.mtx);
	p = sched.progress ? json_deep_copy(sched.progress) : NULL;
	pthread_mutex_unlock(&sched.mtx);
	if (p == NULL)
		return NULL;
	state = json_string_value(json_object_get(p, "state"));
	if (state && !strcmp(state, "running") && progress_eta(
	    json_integer_value(json_object_get(p, "done")),
	    json_integer_value(json_object_get(p, "total")),
	    json_integer_value(json_object_get(p, "count_done0")),
	    json_number_value(json_object_get(p, "count_t0")), now_wall(),
	    &rate, &eta) == 0) {
		json_object_set_new(p, "rate", json_real(rate));
		json_object_set_new(p, "eta_s", json_real(eta));
	}
	json_object_del(p, "count_t0");
	json_object_del(p, "count_done0");
	return p;
}

/*
 * {"devices": [{"device": 0, "fingerprint": {...} | null, "error": "..."}]}
 */
json_t *
sched_current_fingerprints(void)
{
	json_t	*a = json_array(), *o;
	int	 s;

	pthread_mutex_lock(&sched.mtx);
	for (s = 0; s < nslots(); s++) {
		o = json_pack("{si}", "device", device_of_slot(s));
		json_object_set_new(o, "fingerprint", sched.fp[s] ?
		    json_deep_copy(sched.fp[s]) : json_null());
		if (sched.prev_fp[s])
			json_object_set_new(o, "previous_fingerprint",
			    json_deep_copy(sched.prev_fp[s]));
		if (sched.err[s][0])
			json_object_set_new(o, "error", json_string(sched.err[s]));
		json_array_append_new(a, o);
	}
	pthread_mutex_unlock(&sched.mtx);
	return a;
}

/* Runner respawns per device slot since start-up, for /metrics. */
void
sched_counters(int64_t *restarts, int n)
{
	int	 s;

	pthread_mutex_lock(&sched.mtx);
	for (s = 0; s < n && s < NSLOTS; s++)
		restarts[s] = sched.restarts_total[s];
	pthread_mutex_unlock(&sched.mtx);
}

/*
 * Every enable name a runner's hello has reported since start-up, sorted, for
 * the deny bodies served when no list can be (they exclude every name); NULL
 * while no runner has reported a table.  Names of an older table stay: to
 * exclude a name the library no longer has does nothing.
 */
json_t *
sched_registered_names(void)
{
	json_t		*a = NULL, *v;
	const char	*name;

	pthread_mutex_lock(&sched.mtx);
	if (json_object_size(sched.regnames) > 0) {
		a = json_array();
		json_object_foreach(sched.regnames, name, v)
			json_array_append_new(a, json_string(name));
	}
	pthread_mutex_unlock(&sched.mtx);
	return a;
}

/*
 * For /allowlist, from an API thread, without waiting: when a device's
 * fingerprint has gone unconfirmed for the period, ask the main loop for a
 * re-check (it asks an idle runner) and answer from the last confirmation.
 * 0 when that is older than the period plus a case deadline (the longest a
 * healthy runner stays busy): the library may have changed unseen.
 */
int
sched_fingerprint_fresh(void)
{
	double	 period = env->conf.fingerprint_period, t, oldest, wanted;
	double	 grace = env->conf.case_deadline + 5;

	if (period <= 0)
		return 1;
	t = now_mono();
	/* no lock: the main loop may hold sched.mtx through a store write */
	__atomic_load(&sched.fp_oldest, &oldest, __ATOMIC_ACQUIRE);
	__atomic_load(&sched.fp_wanted, &wanted, __ATOMIC_RELAXED);
	/* one wake-up per 50 ms, not one per request: the ask is the same */
	if (t - oldest >= period && t - wanted >= 0.05) {
		__atomic_store(&sched.fp_wanted, &t, __ATOMIC_RELEASE);
		env_wakeup();
	}
	return t - oldest < period + grace;
}
