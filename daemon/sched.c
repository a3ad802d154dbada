/*
 * sched.c: the scheduler's main-loop step (sched_poll: spawn, dispatch,
 * finish) and its glue: runner slots, a case's end, exit and deadline.
 * The main loop is the only writer of runs, cases and results; a run becomes
 * visible to /allowlist only in the single transaction that writes its
 * verdicts and marks it complete (run.c).  Each concern of the scheduler has
 * its file, listed in scheduler.h.
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
#include "repro.h"

static void	case_abort(struct worker *, enum case_status, const char *,
		    const char *);

void
sched_init(void)
{
	int	 s, k, n = 0;

	request_init();
	for (s = 0; s < nslots(); s++)
		for (k = 0; k < env->conf.workers_per_device +
		    env->conf.compile_workers && n < MAX_WORKERS; k++, n++) {
			memset(&sched.workers[n], 0, sizeof(sched.workers[n]));
			sched.workers[n].slot = n;
			sched.workers[n].device = device_of_slot(s);
			sched.workers[n].state = W_DOWN;
			sched.workers[n].compile =
			    k >= env->conf.workers_per_device;
			if ((sched.workers[n].proc = supervise_new(n,
			    sched.workers[n].device, sched.workers[n].compile)) ==
			    NULL)
				fatal("sched_init");
		}
	sched.nworkers = n;
	sched.names = json_object();
	sched.regnames = json_object();
	sched.fp_oldest = INFINITY;	/* no fingerprint yet: nothing is stale */
	sched.fp_wanted = -INFINITY;
}

/* Waits briefly for an exiting runner so the crash report has its status. */
static void
worker_collect(struct worker *w, char *how, size_t len)
{
	supervise_collect(w->proc, how, len);
	w->state = W_DOWN;
}

/*
 * Records the case in flight on w as status (it gave no result); skip: its
 * key and dtype's remaining cases are skipped as those of a case that hung
 * or crashed (only the compile steps after a hazard).
 */
static void
case_end(struct worker *w, enum case_status status, const char *reason,
    const char *what, int skip)
{
	struct case_verdict	 v;
	char			 tail[2048], *repro = NULL;

	memset(&v, 0, sizeof(v));
	v.status = status;
	snprintf(v.reason, sizeof(v.reason), "%s", reason);
	supervise_errtail(w->proc, tail, sizeof(tail), 20);
	snprintf(v.detail, sizeof(v.detail), "%s", what);
	v.score = 1e12;
	/* a hang's or crash's script judges itself in a child (repro.c) */
	if ((status == CASE_TIMEOUT || status == CASE_CRASH) && w->repro != NULL)
		repro = repro_lost(w->repro, &v, w->case_mode ?
		    env->conf.mode_deadline : case_deadline());
	case_record(w->case_id, &v, NULL, tail, repro ? repro : w->repro,
	    w->repro_inputs);
	free(repro);
	/* it runs again alone before the run completes (alone.c) */
	if (status == CASE_TIMEOUT || status == CASE_CRASH)
		sched.cur.alone_none = 0;
	log_warnx("case %lld: %s", (long long)w->case_id, what);
	/* a slow compile step says nothing about the key's other cases */
	if (skip)
		case_skip_siblings(w->case_id, w->device, status == CASE_HAZARD);
}

/*
 * A case that hung or crashed: recorded, and its key and dtype's other
 * cases skipped, except after a deployment mode's case (a compile or a
 * capture that hangs says nothing about the eager calls).
 */
static void
case_abort(struct worker *w, enum case_status status, const char *reason,
    const char *what)
{
	case_end(w, status, reason, what, !w->case_mode);
}

void
sched_on_worker_exit(struct worker *w, const char *why)
{
	char	 how[256];
	int	 slot = slot_of_device(w->device);
	int	 was_fatal = w->state == W_DEAD && w->hello_error[0] == '\0';

	worker_collect(w, how, sizeof(how));
	if (w->shrink_try != NULL || w->replay || w->nccl ||
	    (w->alone > 0 && w->case_id)) {
		/*
		 * the case itself was recorded; only its variant died, or its
		 * replay, which gave no output (replay.c), or it was in the
		 * consensus phase's communicator (gather.c), or it was lost
		 * and its runner died in it again alone (alone.c)
		 */
		if (w->alone > 0) {
			char	 what[300];

			snprintf(what, sizeof(what), "the runner %s", how);
			alone_lost(w, what);
		} else if (w->nccl) {
			char	 what[512];

			snprintf(what, sizeof(what), "the runner %s in the "
			    "NCCL communicator", how);
			gather_lost(w, what);
		} else if (w->replay)
			replay_lost(w, "crash");
		else
			shrink_abort(w);
		w->restarts++;
		worker_repro_clear(w);
		w->case_id = 0;
		worker_restart_later(w, 0);
		return;
	}
	if (w->case_id && sched.cur.run_id) {
		char	 what[512];

		snprintf(what, sizeof(what), "%s during the case (%s)", how, why);
		case_abort(w, CASE_CRASH, "crash", what);
		w->restarts++;
		worker_repro_clear(w);
		w->case_id = 0;
		worker_restart_later(w, 0);
		return;
	}
	worker_repro_clear(w);
	w->case_id = 0;
	if (was_fatal) {
		/* a sticky device error: a fresh runner takes the next case */
		w->restarts++;
		worker_restart_later(w, 0);
		return;
	}
	if (w->hello_error[0] == '\0') {
		char	 tail[1024];

		supervise_errtail(w->proc, tail, sizeof(tail), 5);
		snprintf(w->hello_error, sizeof(w->hello_error), "%s before it "
		    "said hello: %s", how, tail);
	}
	if (slot >= 0) {
		pthread_mutex_lock(&sched.mtx);
		snprintf(sched.err[slot], sizeof(sched.err[slot]), "%s", w->hello_error);
		pthread_mutex_unlock(&sched.mtx);
	}
	w->failures++;
	log_warnx("worker %d: %s", w->slot, w->hello_error);
	worker_restart_later(w, w->failures > 6 ? BACKOFF_MAX :
	    (double)(1 << (w->failures - 1)));
}

void
sched_on_deadline(struct worker *w)
{
	char	 what[256];
	int64_t	 hung = w->case_id;

	if (w->state == W_BUSY && w->alone > 0) {
		snprintf(what, sizeof(what), "no result within %.0f s",
		    w->deadline - w->case_t0);
		alone_lost(w, what);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->nccl) {
		snprintf(what, sizeof(what), "no answer within %d s in the NCCL "
		    "communicator; runner process group killed",
		    gather_deadline_s());
		gather_lost(w, what);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->replay) {
		log_warnx("case %lld: its replay on device %d gave no result "
		    "within the deadline; runner process group killed",
		    (long long)w->case_id, w->device);
		replay_lost(w, "timeout");
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->shrink_try != NULL) {
		log_info("case %lld: a shrunk variant hung; shrinking stopped",
		    (long long)w->case_id);
		shrink_abort(w);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_fcb &&
	    w->case_in_first) {
		first_call_over(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_compile &&
	    w->case_in_first) {
		/*
		 * Past the budget the step is a hazard whatever it takes
		 * more: it is not run on to twice the budget, which on a
		 * host whose cores all compile only delays the rest (the
		 * 42-op screen's topk k=4096 steps took 86-101 s).
		 */
		snprintf(what, sizeof(what), "first call still running after "
		    "%d s, the budget (runner.compile_budget); stopped",
		    env->conf.compile_budget);
		/* the smaller steps still run: they measure the growth */
		case_end(w, CASE_HAZARD, "compile_time", what, 0);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_compile) {
		snprintf(what, sizeof(what), "compile step gave no result within "
		    "%d s (budget %d s); runner process group killed",
		    compile_deadline(), env->conf.compile_budget);
		case_abort(w, CASE_HAZARD, "compile_timeout", what);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id) {
		snprintf(what, sizeof(what), "no result within the %d s case "
		    "deadline; runner process group killed", w->case_mode ?
		    env->conf.mode_deadline : case_deadline());
		case_abort(w, CASE_TIMEOUT, "timeout", what);
		worker_respawn(w);
		/* its siblings on other runners would each wait out a deadline */
		if (!w->case_mode)
			abandon_siblings(w, hung, "skipped", "hung");
	} else if (w->state == W_STARTING) {
		snprintf(w->hello_error, sizeof(w->hello_error), "runner did not "
		    "start within %d s", env->conf.hello_deadline);
		worker_kill(w);
		sched_on_worker_exit(w, "start deadline");
	}
}

int
sched_nworkers(void)
{
	return sched.nworkers;
}

struct worker *
sched_worker(int i)
{
	return &sched.workers[i];
}

struct runner *
sched_runner(struct worker *w)
{
	return w->proc;
}

/* The runners starting or holding a case past their deadline at t. */
void
sched_deadlines(double t)
{
	int	 i;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if ((w->state == W_BUSY || w->state == W_STARTING) &&
		    w->deadline > 0 && t >= w->deadline)
			sched_on_deadline(w);
	}
}

double
sched_next_deadline(void)
{
	double	 t = 0;
	int	 i;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];
		double		 d = 0;

		if ((w->state == W_BUSY || w->state == W_STARTING) && w->deadline)
			d = w->deadline;
		else if (w->state == W_DOWN)
			d = w->next_spawn;
		if (d > 0 && (t == 0 || d < t))
			t = d;
	}
	return t;
}

void
sched_poll(void)
{
	double	 t = now_mono();
	int	 i, s, busy, rc, split;
	int64_t	 creq;
	unsigned char	*memo;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->state == W_DOWN && t >= w->next_spawn) {
			if ((rc = supervise_spawn(w->proc)) == 1)
				continue;	/* the runner pool is starting */
			if (rc == 0) {
				w->state = W_STARTING;
				w->deadline = now_mono() + env->conf.hello_deadline;
				w->case_id = 0;
			} else {
				w->failures++;
				snprintf(w->hello_error, sizeof(w->hello_error),
				    "cannot start runner '%s'", env->conf.python);
				s = slot_of_device(w->device);
				pthread_mutex_lock(&sched.mtx);
				snprintf(sched.err[s], sizeof(sched.err[s]), "%s",
				    w->hello_error);
				pthread_mutex_unlock(&sched.mtx);
				worker_restart_later(w, w->failures > 6 ?
				    BACKOFF_MAX : (double)(1 << (w->failures - 1)));
			}
		}
	}
	fingerprint_poll(t);
	pthread_mutex_lock(&sched.mtx);
	creq = sched.cancel_req;
	sched.cancel_req = 0;
	pthread_mutex_unlock(&sched.mtx);
	if (creq && creq == sched.cur.run_id)
		run_cancel_now();
	/*
	 * While the store holds back a write, nothing new starts: the cases
	 * in flight end, their records wait behind it, and no run completes
	 * without every case stored (pw above).
	 */
	pw_flush();
	if (!pw_ready())
		return;
	if (sched.cur.run_id == 0) {
		if ((rc = run_activate()) <= 0) {
			/* no run: the last one's failing cases shrink */
			if (rc == 0 && sched.cur.run_id == 0)
				shrink_tail_poll();
			return;
		}
		shrink_tail_stop("a new run started");
	}

	/* a split run waits for every device's table (split.c) */
	if ((split = split_decide()) == -1 || sched.cur.run_id == 0)
		return;		/* the store refused, or the run failed */
	for (s = 0; s < sched.cur.nq; s++) {
		struct devq	*q = &sched.cur.q[s];

		if (q->expanded)
			continue;
		for (i = 0; i < sched.nworkers; i++) {
			struct worker	*w = &sched.workers[i];

			if (w->device != q->device || split == 0)
				continue;
			if (w->state == W_IDLE && w->entries && q->resume) {
				if ((rc = run_resume_device(s, w)) == -1)
					run_fail("cannot queue the resumed run's "
					    "cases");
				if (rc != 0)
					return;
				break;
			}
			if (w->state == W_IDLE && w->entries) {
				if ((rc = run_expand(s, w)) == -2) {
					run_fail("cannot queue the run's cases");
					return;
				}
				if (rc == -1)
					return;	/* again after the back-off */
				break;
			}
		}
		if (!q->expanded) {
			/* A library that cannot be imported fails the run. */
			for (i = 0; i < sched.nworkers; i++) {
				struct worker	*w = &sched.workers[i];

				if (w->device == q->device && w->failures >= 3 &&
				    w->hello_error[0]) {
					run_fail(w->hello_error);
					return;
				}
			}
		}
	}

	memo = sched.cur.keys != NULL ?
	    calloc(json_array_size(sched.cur.keys) + 1, 1) : NULL;
	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];
		struct devq	*q;

		if (w->state != W_IDLE || w->alone != 0)
			continue;
		s = slot_of_device(w->device);
		q = w->compile ? &sched.cur.cq[s] : &sched.cur.q[s];
		/*
		 * A compile runner whose ladders are all dispatched screens
		 * ordinary cases: the ladders are queued at the start, largest
		 * step first, and ended in 91 s of a 21-minute whole-table
		 * screen, after which six runners sat idle. Screening runners
		 * never take a ladder step (each step's cold-cache timing).
		 */
		if (w->compile && q->head >= q->len)
			q = &sched.cur.q[s];
		while (sched.cur.q[s].expanded && q->head < q->len &&
		    queue_ready(q, memo, w->owned)) {
			int64_t	 id = q->ids[q->head++];

			if (case_dispatch(w, id) == 0)
				break;
			log_warnx("worker %d: cannot send case %lld", w->slot,
			    (long long)id);
			q->head--;
			worker_kill(w);
			worker_restart_later(w, 1);
			break;
		}
	}
	free(memo);

	/*
	 * A variant of the last run's shrinks after its lists (stopped when
	 * this run started) is no case of this run: this run completes
	 * without waiting for it (seen holding a one-op run's lists 5.9 s).
	 */
	busy = 0;
	for (i = 0; i < sched.nworkers; i++)
		if (sched.workers[i].state == W_BUSY && !sched.workers[i].replay
		    && sched.workers[i].shrink_tail == 0)
			busy = 1;
	for (s = 0; s < sched.cur.nq; s++)
		if (!sched.cur.q[s].expanded || sched.cur.q[s].head < sched.cur.q[s].len ||
		    sched.cur.cq[s].head < sched.cur.cq[s].len)
			busy = 1;
	/*
	 * every case done: each lost case run again alone (it may queue the
	 * cases skipped after it), a split run's consensus phase, then its end
	 */
	if (!busy && alone_poll() != 0) {
		progress_update("running");
		return;
	}
	if (!busy && (rc = replay_poll()) != 0) {
		if (rc == 1 && sched.cur.run_id != 0)
			progress_update("running");
		return;
	}
	progress_update("running");
	if (!busy) {
		int64_t	 id = sched.cur.run_id;

		if ((rc = run_finish()) == -2)
			run_fail("a case of the run has no stored result");
		else if (rc == -1)
			;	/* again after the back-off; nothing served */
		else {
			progress_update("complete");
			(void)shrink_tail_load(id);
			run_clear();
			lists_changed();
			run_log_lists();
		}
		(void)id;
	}
}
