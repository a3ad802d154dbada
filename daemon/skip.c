/*
 * skip.c: recording cases as skipped (never run, never judged) and dropping
 * them from the queues; replaying a previous screen's skips.
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

static void	queue_drop_skipped(struct devq *);

static int	skip_last;	/* cases w_skip() recorded */

static const char *
jstr_or_null(json_t *a, const char *k)
{
	return json_string_value(json_object_get(a, k));
}

/* cases_skip()'s write, with the runners' cases as they were when asked. */
static int
w_skip(void *p)
{
	json_t		*a = p, *v;
	int64_t		 run = json_integer_value(json_object_get(a, "run"));
	int64_t		 busy[MAX_WORKERS];
	size_t		 i, nbusy = 0;
	int		 n, s = json_integer_value(json_object_get(a, "slot"));
	struct case_filter	 f = {
		.device = json_integer_value(json_object_get(a, "device")),
		.key = jstr_or_null(a, "key"),
		.dtype = jstr_or_null(a, "dtype"),
		.cls = jstr_or_null(a, "cls"),
		.not_cls = jstr_or_null(a, "not_cls"),
		.id = json_integer_value(json_object_get(a, "id")),
		.like_run = json_integer_value(json_object_get(a, "like_run")),
		.like_reasons = { jstr_or_null(a, "reason0"),
		    jstr_or_null(a, "reason1") } };

	json_array_foreach(json_object_get(a, "busy"), i, v)
		if (nbusy < MAX_WORKERS)
			busy[nbusy++] = json_integer_value(v);
	if (store_begin(env->store) == -1)
		return pw_refused("skipping cases");
	if ((n = store_cases_skip(env->store, run, &f, busy, nbusy,
	    jstr_or_null(a, "reason"), jstr_or_null(a, "detail"),
	    json_real_value(json_object_get(a, "created")))) == -1)
		return pw_refused("skipping cases");
	if (store_run_done_add(env->store, run, n) == -1 ||
	    store_commit(env->store) == -1)
		return pw_refused("skipping cases");
	skip_last = n;
	if (run != sched.cur.run_id)
		return 0;
	sched.cur.done += n;
	if (n > 0) {
		queue_drop_skipped(&sched.cur.q[s]);
		queue_drop_skipped(&sched.cur.cq[s]);
	}
	return 0;
}

/*
 * Records the pending cases f takes as `skipped` with reason and detail,
 * except those a runner holds right now (they finish on their own).  They
 * leave the in-memory queues too.  Returns how many, 0 when the store
 * refused and the write is held (pw_write: it is made, as asked now, before
 * any case is sent), or -1 when it cannot be.
 */
int
cases_skip(const struct case_filter *f, const char *reason,
    const char *detail)
{
	int		 i, rc, s = slot_of_device(f->device);
	json_t		*a, *busy;

	if (s < 0)
		return -1;
	busy = json_array();
	for (i = 0; i < sched.nworkers; i++)
		if (sched.workers[i].case_id)
			json_array_append_new(busy, json_integer(
			    sched.workers[i].case_id));
	a = json_pack("{sI si si ss so ss ss so so so sI sI so so sf}", "run",
	    (json_int_t)sched.cur.run_id, "slot", s, "device", f->device, "key",
	    f->key, "dtype", f->dtype ? json_string(f->dtype) : json_null(),
	    "reason", reason, "detail", detail, "busy", busy, "cls",
	    f->cls ? json_string(f->cls) : json_null(), "not_cls",
	    f->not_cls ? json_string(f->not_cls) : json_null(), "id",
	    (json_int_t)f->id, "like_run", (json_int_t)f->like_run, "reason0",
	    f->like_reasons[0] ? json_string(f->like_reasons[0]) : json_null(),
	    "reason1", f->like_reasons[1] ? json_string(f->like_reasons[1]) :
	    json_null(), "created", now_wall());
	skip_last = 0;
	if ((rc = pw_write(w_skip, a)) == -1)
		return -1;
	return rc == 0 ? skip_last : 0;
}

/*
 * Skips in this run, before any case runs, the cases of each key that the
 * newest complete run of this library (fingerprint) on the device that
 * screened the key, among the runs d admits (d->setting: those screened
 * under the same d->budget), recorded skipped with one of d->like, matched
 * by key and spec; they are recorded with d->reason and a detail from
 * `why` (a format taking that run's id).  Returns the cases skipped and
 * their keys in *nkeys, -1 on a store error.
 */
int
prior_skips_replay(int slot, int64_t fpid, const struct replay_decision *d,
    const char *why, int *nkeys)
{
	int		 device = sched.cur.q[slot].device, n = 0, k;
	char		 detail[256];
	json_t		*keys, *v;
	size_t		 i;

	*nkeys = 0;
	if ((keys = store_prior_skips(env->store, sched.cur.run_id, device,
	    fpid, d->budget, d->like, d->setting)) == NULL)
		return -1;
	json_array_foreach(keys, i, v) {
		long long	 prev = json_integer_value(json_array_get(v, 1));

		struct case_filter	 f = { .device = device,
		    .key = json_string_value(json_array_get(v, 0)),
		    .not_cls = "compile", .like_run = prev,
		    .like_reasons = { d->like[0], d->like[1] } };

		snprintf(detail, sizeof(detail), why, prev);
		if ((k = cases_skip(&f, d->reason, detail)) == -1) {
			json_decref(keys);
			return -1;
		}
		n += k;
		*nkeys += k > 0;
	}
	json_decref(keys);
	return n;
}

/*
 * One library, one coverage, for hangs and crashes too: the cases that the
 * newest complete run of this library (any budget) that screened a key
 * skipped because a case of their key and dtype hung or crashed (or that it
 * skipped again for that reason) are skipped in this one before any case
 * runs, with reason `skip_replay`.  The case that hung runs again.  Without
 * it a re-screen runs cases the earlier screen never reached: the cold
 * screen's mm.out fp32 case autotuned past its deadline, its siblings were
 * skipped, and the warm screen ran one of them cold (a new shape, 201 s of
 * autotuning), longer than the whole warm screen's other cases.  Unlike the
 * skips it replays, a `skip_replay` case enters the key and dtype's verdict
 * as inconclusive: a key and dtype whose other cases now pass is not
 * verified on part of its cases.  Returns the cases skipped, -1 on a store
 * error.
 */
int
skip_replay(int slot, int64_t fpid)
{
	struct replay_decision	 d = policy_replay(REPLAY_SKIPS, 0);
	int			 n, nkeys;

	if (!d.replay)
		return 0;
	n = prior_skips_replay(slot, fpid, &d, "not run: run %lld of this "
	    "library skipped it after a case of its key and dtype hung or "
	    "crashed; a re-screen of one library keeps its coverage", &nkeys);
	if (n > 0)
		log_info("run %lld: device %d (-1 = cpu): %d cases of %d keys "
		    "not run, as the library's last run of each skipped them "
		    "after a hang or crash", (long long)sched.cur.run_id,
		    sched.cur.q[slot].device, n, nkeys);
	return n;
}

/*
 * After a case of (key, dtype) hung or crashed, its remaining cases on that
 * device are recorded as skipped rather than each waiting out a deadline or
 * crashing a runner: one bad op never dominates a run.
 */
static void
queue_drop_skipped(struct devq *q)
{
	size_t	 i, j;
	char	 state[32];

	for (i = q->head, j = q->head; i < q->len; i++) {
		int	 keep = 1;

		if (store_case_state(env->store, q->ids[i], state,
		    sizeof(state)) == 0 && !strcmp(state, "skipped"))
			keep = 0;
		if (keep) {
			q->kix[j] = q->kix[i];
			q->ids[j++] = q->ids[i];
		}
	}
	q->len = j;
}

void
case_skip_siblings(int64_t case_id, int device, int compile_only)
{
	struct case_filter	 f = { .device = device,
			    .cls = compile_only ? "compile" : NULL };
	char			 key[256] = "", dtype[32] = "", detail[160];
	int			 n;

	if (store_case_key_dtype(env->store, case_id, key, sizeof(key), dtype,
	    sizeof(dtype)) == -1 || key[0] == '\0')
		return;
	snprintf(detail, sizeof(detail), "not run: case %lld of this key and "
	    "dtype hung or crashed", (long long)case_id);
	f.key = key;
	f.dtype = dtype;
	n = cases_skip(&f, "skipped", detail);
	if (n > 0)
		log_info("skipped %d remaining cases of %s/%s on device %d", n,
		    key, dtype, device);
}
