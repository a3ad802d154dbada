/*
 * fingerprint.c: watching the library's fingerprint per device: a change
 * fails the run in progress and queues a full screen.
 */
#include <errno.h>
#include <math.h>
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

static int
w_queue_screen(void *p)
{
	const char	*reason = json_string_value(json_object_get(p, "reason"));
	char		*js;
	int64_t		 id;
	int		 queued = 0, nq = 0;

	if (store_runs_queued(env->store, &nq, &queued) == -1)
		return pw_refused("queueing a screen");
	if (queued)
		return 0;
	if (nq >= QUEUED_RUNS_MAX) {
		log_warnx("cannot queue a screen (%s): %d runs already queued",
		    reason, nq);
		return 0;
	}
	if ((js = json_dumps(p, JSON_COMPACT)) == NULL)
		return 0;
	id = store_run_queue(env->store, js, 1, now_wall());
	free(js);
	if (id == -1) {
		pw_note("queueing a screen");
		return -1;
	}
	log_info("queued run %lld (%s)", (long long)id, reason);
	return 0;
}

/*
 * Queues a full screen (request {"reason": reason}) unless a full one is
 * queued already: that one covers what changed.
 */
void
queue_full_screen(const char *reason)
{
	pw_write(w_queue_screen, json_pack("{ss}", "reason", reason));
}

/*
 * The library under a device changed (an upgrade, an edited file): lists stop
 * (the current fingerprint has no complete screen), every runner of the device
 * is restarted once idle so that it imports the new code, and a full screen is
 * queued at once.
 *
 * One library per run: a run that has already queued or run cases on the
 * device fails (its runners in flight are stopped, its pending cases
 * cancelled), since the restarted runners would finish it on the new library
 * and its verdicts would mix two libraries' results under the fingerprint it
 * recorded.  A run that has not reached the device yet goes on: the device's
 * cases are made from the new library's table when it gets there.
 */
void
fp_oldest_update(void)
{
	double	 oldest = INFINITY;
	int	 s;

	for (s = 0; s < nslots(); s++)
		if (sched.fp[s] != NULL && sched.fp_confirmed[s] < oldest)
			oldest = sched.fp_confirmed[s];
	__atomic_store(&sched.fp_oldest, &oldest, __ATOMIC_RELEASE);
}

void
fingerprint_changed(int slot, json_t *fp, const char *seen)
{
	int		 i;
	char		*old = NULL, *new = NULL, why[256];

	pthread_mutex_lock(&sched.mtx);
	if (sched.fp[slot] == NULL || json_equal(sched.fp[slot], fp)) {
		pthread_mutex_unlock(&sched.mtx);
		return;
	}
	json_decref(sched.prev_fp[slot]);
	sched.prev_fp[slot] = sched.fp[slot];
	sched.fp[slot] = json_deep_copy(fp);
	sched.fp_confirmed[slot] = now_mono();
	fp_oldest_update();
	old = json_dumps(sched.prev_fp[slot], JSON_COMPACT | JSON_SORT_KEYS);
	new = json_dumps(fp, JSON_COMPACT | JSON_SORT_KEYS);
	pthread_mutex_unlock(&sched.mtx);
	lists_changed();
	log_warnx("device %d: library fingerprint changed (seen in %s); lists "
	    "withheld until a full screen of it completes: was %s, now %s",
	    device_of_slot(slot), seen, old ? old : "?", new ? new : "?");
	free(old);
	free(new);
	/* a shrink of the last run's cases would run the new library */
	shrink_tail_stop("the library changed");
	for (i = 0; i < sched.nworkers; i++)
		if (sched.workers[i].device == device_of_slot(slot))
			sched.workers[i].fp_stale = 1;
	if (sched.cur.run_id != 0 && slot < sched.cur.nq &&
	    (sched.cur.q[slot].expanded || sched.cur.q[slot].resume)) {
		snprintf(why, sizeof(why), "library changed on device %d during "
		    "the run (%lld of %lld cases done); a full screen of the new "
		    "library is queued", device_of_slot(slot),
		    (long long)sched.cur.done, (long long)sched.cur.total);
		run_fail(why);
	}
	queue_full_screen("library fingerprint changed");
}

void
on_fingerprint(struct worker *w, json_t *msg)
{
	json_t	*fp = json_object_get(msg, "fingerprint");
	int	 slot = slot_of_device(w->device);

	w->fp_asked = 0;
	if (!json_is_object(fp) || slot < 0) {
		log_warnx("worker %d: fingerprint answer without a fingerprint",
		    w->slot);
		return;
	}
	pthread_mutex_lock(&sched.mtx);
	if (sched.fp[slot] && json_equal(sched.fp[slot], fp)) {
		sched.fp_confirmed[slot] = now_mono();
		fp_oldest_update();
		pthread_mutex_unlock(&sched.mtx);
		log_debug("worker %d: library fingerprint unchanged", w->slot);
		return;
	}
	pthread_mutex_unlock(&sched.mtx);
	fingerprint_changed(slot, fp, "a runner's fingerprint answer");
}

/*
 * Asks one idle runner per device for its fingerprint when the period has run
 * out or an API thread wants one, and restarts runners whose library changed.
 */
void
fingerprint_poll(double t)
{
	static const double	 answer_within = 30;
	int			 i, s, asked[NSLOTS] = { 0 }, due;
	double			 period = env->conf.fingerprint_period, wanted;
	json_t			*msg;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->state == W_IDLE && w->fp_stale) {
			log_info("worker %d: restarting on the changed library",
			    w->slot);
			worker_kill(w);
			w->fp_stale = 0;
			w->fp_asked = 0;
			worker_restart_later(w, 0);
		}
		if (w->fp_asked > 0 && t - w->fp_asked < answer_within &&
		    (s = slot_of_device(w->device)) >= 0)
			asked[s] = 1;
	}
	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->state != W_IDLE || (s = slot_of_device(w->device)) < 0 ||
		    asked[s])
			continue;
		__atomic_load(&sched.fp_wanted, &wanted, __ATOMIC_ACQUIRE);
		pthread_mutex_lock(&sched.mtx);
		due = sched.fp[s] != NULL && ((period > 0 && t - sched.fp_confirmed[s] >=
		    period) || sched.fp_confirmed[s] < wanted);
		pthread_mutex_unlock(&sched.mtx);
		if (!due)
			continue;
		msg = json_pack("{ss}", "type", "fingerprint");
		if (supervise_send(w->proc, msg) == 0) {
			w->fp_asked = t;
			asked[s] = 1;
		}
		json_decref(msg);
	}
}
