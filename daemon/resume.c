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
	sqlite3_stmt	*st;
	int		 device = sched.cur.q[slot].device;
	json_t		*spent = json_object(), *v;
	const char	*key;

	if (sqlite3_prepare_v2(store_db(env->store), "SELECT c.key, "
	    "sum(CASE WHEN c.class != 'compile' THEN coalesce(CASE WHEN "
	    "r.cand_first_ms > 0 THEN r.cand_first_ms END, 0) + r.shrink_cand_ms "
	    "END), max(CASE WHEN r.status = 'fail' AND NOT "
	    "coalesce(json_extract(c.spec, '$.huge'), 0) AND NOT "
	    "coalesce(json_extract(r.figures, '$.fatal'), 0) THEN r.score END) "
	    "FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id=? "
	    "AND c.device=? GROUP BY c.key", -1, &st, NULL) != SQLITE_OK) {
		json_decref(spent);
		return -1;
	}
	sqlite3_bind_int64(st, 1, sched.cur.run_id);
	sqlite3_bind_int(st, 2, device);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if ((key = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			shrink_mark(device, key, sqlite3_column_double(st, 2));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			json_object_set_new(spent, key, json_real(key_budget_add(
			    device, key, sqlite3_column_double(st, 1) / 1e3)));
	}
	sqlite3_finalize(st);
	/* after the statement: a cut writes */
	json_object_foreach(spent, key, v)
		key_budget_cut(device, key, json_real_value(v));
	json_decref(spent);
	return 0;
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
	sqlite3_stmt	*st;
	struct devq	*q = &sched.cur.q[slot];
	json_t		*was = NULL;
	json_error_t	 jerr;
	char		*now, *js;
	int		 same = 0;

	if ((now = fingerprint_hash(w->fingerprint)) == NULL)
		return -1;
	if (sqlite3_prepare_v2(store_db(env->store), "SELECT f.hash, f.json "
	    "FROM run_devices d JOIN fingerprints f ON f.id = d.fingerprint_id "
	    "WHERE d.run_id=? AND d.device=?", -1, &st, NULL) != SQLITE_OK) {
		free(now);
		return -1;
	}
	sqlite3_bind_int64(st, 1, sched.cur.run_id);
	sqlite3_bind_int(st, 2, q->device);
	if (sqlite3_step(st) == SQLITE_ROW) {
		same = !strcmp((const char *)sqlite3_column_text(st, 0), now);
		was = json_loads((const char *)sqlite3_column_text(st, 1), 0,
		    &jerr);
	}
	sqlite3_finalize(st);
	free(now);
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
	sqlite3_stmt	*st;
	int64_t		 id = 0, total = 0, done = 0;
	double		 started = 0;
	json_t		*ev;
	char		 why[256] = "", err[320];
	int		 s, device;

	*full = 0;
	if (sqlite3_prepare_v2(store_db(env->store), "SELECT id, request, full, "
	    "coalesce(started, created) FROM runs WHERE state='running' ORDER "
	    "BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		run_load(id, (const char *)sqlite3_column_text(st, 1),
		    sqlite3_column_int(st, 2));
		started = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	pw_write(w_interrupt, json_pack("{sI}", "keep", (json_int_t)id));
	if (id == 0)
		return 0;
	sched.cur.started = started;

	/* the devices whose cases are stored; each must still be ours */
	if (sqlite3_prepare_v2(store_db(env->store), "SELECT device FROM "
	    "run_devices WHERE run_id=?", -1, &st, NULL) != SQLITE_OK)
		snprintf(why, sizeof(why), "store: %s",
		    sqlite3_errmsg(store_db(env->store)));
	else {
		sqlite3_bind_int64(st, 1, id);
		while (why[0] == '\0' && sqlite3_step(st) == SQLITE_ROW) {
			device = sqlite3_column_int(st, 0);
			if ((device < 0) != (env->cpu != 0) ||
			    (s = slot_of_device(device)) < 0)
				snprintf(why, sizeof(why), "device %d (-1 = cpu) "
				    "is not screened any more (devices = %s)",
				    device, env->conf.devices);
			else
				sched.cur.q[s].resume = 1;
		}
		sqlite3_finalize(st);
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
	log_info("resuming run %lld: %lld of %lld cases done", (long long)id,
	    (long long)done, (long long)total);
	ev = json_pack("{sI sI}", "done", (json_int_t)done, "total",
	    (json_int_t)total);
	run_event(id, "run_resumed", ev);
	json_decref(ev);
	progress_update("running");
	return id;
}
