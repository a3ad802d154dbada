/*
 * resume.c: resuming the run a restart interrupted: its stored cases are
 * checked and queued again, its budgets and shrinks re-counted.
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
 * A run that was going when opscreend stopped (SIGTERM from systemd, a crash,
 * a reboot) goes on from where it stood instead of failing.  What it stored
 * stays: every case with a result is done and is never run again (a result,
 * its case's state and the run's done count are written in one transaction);
 * every case without one is pending and queued again, those that were in
 * flight in a runner at the stop among them (their result is unknown).
 * Cases recorded skipped (a hung or crashed sibling, key_budget) keep that
 * record.  A shrink in flight at the stop is not redone: its case keeps its
 * result and its unshrunk repro.
 *
 * One library per run: a device whose cases were stored before the stop gets
 * no case until its runner has said hello, and then only when the runner's
 * fingerprint is the one the run recorded for the device (run_devices).
 * When it differs (the library was upgraded while opscreend was down) the
 * run fails and a full screen of the new library is queued.  A device the
 * run had not expanded yet is expanded as in any run.
 */

/*
 * The in-memory accounts of a device's stored results: runner.key_budget's
 * candidate seconds per key (the cand_first_ms the charge adds up are the
 * ones stored, with each shrink's shrink_cand_ms; compile-ladder steps are
 * not charged; a shrink in flight at the stop was not stored and is not
 * charged) and the worst failure per key that was up for shrinking, so that
 * a resumed run shrinks what an uninterrupted one would.  A key over its budget whose cut the stop
 * interrupted is cut now.
 */
static int
resume_accounts(int slot)
{
	int		 device = sched.cur.q[slot].device;
	json_t		*acc, *spent, *e, *v;
	const char	*key;
	size_t		 i;

	if ((acc = store_key_accounts(env->store, sched.cur.run_id, device)) ==
	    NULL)
		return -1;
	spent = json_object();
	json_array_foreach(acc, i, e) {
		key = json_string_value(json_object_get(e, "key"));
		if ((v = json_object_get(e, "worst")) != NULL)
			shrink_mark(device, key, json_real_value(v));
		if ((v = json_object_get(e, "ms")) != NULL)
			json_object_set_new(spent, key, json_real(key_budget_add(
			    device, key, json_real_value(v) / 1e3)));
	}
	json_decref(acc);
	/* after the statement: a cut writes */
	json_object_foreach(spent, key, v)
		key_budget_cut(device, key, json_real_value(v));
	json_decref(spent);
	return 0;
}

/*
 * Whether fp (a runner's hello) is the library run recorded for device: 1
 * the same, 0 another or none recorded (none cannot be shown to be the
 * same), -1 an error.  *was: the recorded fingerprint (the caller's), or NULL.
 */
int
run_device_same_library(int64_t run, int device, json_t *fp, json_t **was)
{
	char	*now, hash[64];
	int	 rc;

	*was = NULL;
	if ((now = fingerprint_hash(fp)) == NULL)
		return -1;
	rc = store_run_device_fingerprint(env->store, run, device, hash,
	    sizeof(hash), was);
	if (rc == 1)
		rc = !strcmp(hash, now);
	free(now);
	return rc;
}

/*
 * The first runner of a resumed run's device has said hello: queue the
 * device's pending cases when its library is the one the run recorded.
 * 0 queued; 1 the library changed, the run failed and a full screen is
 * queued; -1 a store error.
 */
int
run_resume_device(int slot, struct worker *w)
{
	struct devq	*q = &sched.cur.q[slot];
	json_t		*was = NULL;
	char		*js;
	int		 same;

	if ((same = run_device_same_library(sched.cur.run_id, q->device,
	    w->fingerprint, &was)) == -1) {
		json_decref(was);
		return -1;
	}
	if (!same) {
		/* no recorded fingerprint cannot be shown to be the same one */
		js = json_dumps(w->fingerprint, JSON_COMPACT | JSON_SORT_KEYS);
		log_warnx("run %lld: device %d (-1 = cpu) has another library "
		    "than the run recorded for it (now %s): not resumed",
		    (long long)sched.cur.run_id, q->device, js ? js : "?");
		free(js);
		/* /allowlist names what the library was and what it is */
		pthread_mutex_lock(&sched.mtx);
		if (was != NULL && sched.prev_fp[slot] == NULL) {
			sched.prev_fp[slot] = was;
			was = NULL;
		}
		pthread_mutex_unlock(&sched.mtx);
		json_decref(was);
		lists_changed();
		run_fail("library changed while opscreend was stopped; screen "
		    "restarted");
		queue_full_screen("library changed while opscreend was stopped");
		return 1;
	}
	json_decref(was);
	if (resume_accounts(slot) == -1 || fail_fast_resume(slot) == -1 ||
	    queue_interleave(slot) == -1)
		return -1;
	if (shrink_prior_load(slot) == -1)
		error("run %lld: cannot read earlier runs' shrinks; every "
		    "failing case shrinks anew", (long long)sched.cur.run_id);
	q->resume = 0;
	q->expanded = 1;
	log_info("run %lld: device %d (-1 = cpu) has the library the run "
	    "recorded; %zu cases queued again", (long long)sched.cur.run_id, q->device,
	    q->len + sched.cur.cq[slot].len);
	return 0;
}

static int
w_interrupt(void *p)
{
	if (store_interrupt_stale_runs(env->store, json_integer_value(
	    json_object_get(p, "keep"))) == -1)
		return pw_refused("failing stale runs");
	return 0;
}

/*
 * At start-up, before any runner: makes the newest run left 'running' the
 * current run again (any older one left 'running' is failed; only one run is
 * ever going).  A run whose devices are no longer this daemon's fails.
 * Returns the run's id (full says whether it is a full screen), 0 when there
 * is none, -1 when there was one and it could not be resumed.
 */
int64_t
sched_resume(int *full)
{
	struct store_run r;
	int64_t		 id = 0, total = 0, done = 0;
	double		 started = 0;
	json_t		*ev;
	char		 why[256] = "", err[320];
	int		 s, i, n, device, devices[NSLOTS];

	*full = 0;
	if (store_run_resumable(env->store, &r) == -1)
		return -1;
	if (r.id != 0) {
		id = r.id;
		run_load(id, r.request, r.full);
		started = r.started;
	}
	free(r.request);
	pw_write(w_interrupt, json_pack("{sI}", "keep", (json_int_t)id));
	if (id == 0) {
		/* none: the last run's shrinks after its lists, if a stop
		 * ended them */
		shrink_tail_interrupted();
		return 0;
	}
	sched.cur.started = started;

	/* the devices whose cases are stored; each must still be ours */
	if ((n = store_run_devices(env->store, id, devices, NSLOTS)) == -1)
		snprintf(why, sizeof(why), "store: %s",
		    store_errmsg(env->store));
	for (i = 0; i < n && why[0] == '\0'; i++) {
		device = devices[i];
		if ((device < 0) != (env->cpu && env->ndevices == 0) ||
		    (s = slot_of_device(device)) < 0)
			snprintf(why, sizeof(why), "device %d (-1 = cpu) "
			    "is not screened any more (devices = %s)",
			    device, env->conf.devices);
		else
			sched.cur.q[s].resume = 1;
	}
	if (why[0] == '\0' && store_run_recount(env->store, id, &total, &done)
	    == -1)
		snprintf(why, sizeof(why), "cannot recount its cases");
	if (why[0] != '\0') {
		snprintf(err, sizeof(err), "opscreend stopped during the run and "
		    "cannot resume it: %s", why);
		run_fail(err);
		return -1;
	}
	*full = sched.cur.full;
	sched.cur.resumed = 1;
	sched.cur.total = total;
	sched.cur.done = done;
	sched.cur.count_t0 = now_wall();
	sched.cur.count_done0 = done;
	log_info("resuming run %lld: %lld of %lld cases done", (long long)id,
	    (long long)done, (long long)total);
	ev = json_pack("{sI sI}", "done", (json_int_t)done, "total",
	    (json_int_t)total);
	run_event(id, "run_resumed", ev);
	json_decref(ev);
	progress_update("running");
	return id;
}
