/*
 * gather.c: the consensus phase's NCCL communicator (docs/design.md,
 * "Several GPUs"). Once every replay is done, one runner per device joins
 * one communicator (rank = the device's slot; rank 0's runner makes the
 * unique id and the daemon hands it to the others over the runner channel)
 * and the runners all-gather the digests of the replays each device ran.
 * NCCL refusing the communicator because two runners sit on one GPU is a
 * host pinning failure and fails the run with NCCL's message; the gathered
 * digests must be those the daemon stored from the runners' results (the
 * host's GPUs reached each other the way an engine's tensor-parallel ranks
 * do). Before it, in a run with the bootstrap class, the multi-rank
 * bootstrap probe (multirank.py) runs on rank 0's runner over the host's
 * GPUs: importing the library before each rank is pinned, NCCL then finding
 * every rank on one GPU, is the library's bootstrap hazard.
 * kernels/osk_nccl.c makes the NCCL calls; the runner's side is
 * __main__.py's _nccl and _multirank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "probes.h"
#include "scheduler.h"

#define G_IDLE		0
#define G_UID		1	/* rank 0 makes the unique id */
#define G_JOIN		2	/* every rank joins and gathers */
#define G_DONE		3
#define G_MULTIRANK	4	/* the multi-rank bootstrap probe runs */
#define G_PROBED	5	/* it answered: the communicator next */

/* Whether the phase joins a communicator: nccl = yes, or auto on GPUs. */
static int
gather_wanted(void)
{
	return env->conf.consensus_nccl == 1 ||
	    (env->conf.consensus_nccl == 2 && !env->cpu);
}

/* Each device's replay digests in (case, attempt) order, and the width. */
static int
gather_values(json_t **values, size_t *width)
{
	sqlite3_stmt	*st;
	json_t		*v = json_array();
	int		 s, rc = 0;

	*width = 0;
	if ((st = store_stmt(env->store, "SELECT coalesce(digest, "
	    "'0000000000000000') FROM replays WHERE run_id=? AND device=? "
	    "ORDER BY case_id, attempt")) == NULL) {
		json_decref(v);
		return -1;
	}
	for (s = 0; s < sched.cur.nq && rc == 0; s++) {
		json_t	*row = json_array();

		sqlite3_bind_int64(st, 1, sched.cur.run_id);
		sqlite3_bind_int(st, 2, device_of_slot(s));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			json_array_append_new(row, json_string((const char *)
			    sqlite3_column_text(st, 0)));
		rc = rc == SQLITE_DONE ? 0 : -1;
		sqlite3_reset(st);
		if (json_array_size(row) > *width)
			*width = json_array_size(row);
		json_array_append_new(v, row);
	}
	if (rc == -1) {
		json_decref(v);
		return -1;
	}
	*values = v;
	return 0;
}

static int
gather_send(int s, const char *uid)
{
	struct worker	*w = &sched.workers[sched.cur.nccl_w[s]];
	json_t		*msg;
	int		 rc;

	msg = json_pack("{ss si si sO si si}", "type", "nccl", "nranks",
	    sched.cur.nq, "rank", s, "values", json_array_get(
	    sched.cur.nccl_values, s), "width", (int)sched.cur.nccl_width,
	    "timeout_s", NCCL_TIMEOUT_S);
	json_object_set_new(msg, "uid", uid ? json_string(uid) : json_null());
	rc = supervise_send(w->proc, msg);
	json_decref(msg);
	if (rc == -1)
		return -1;
	w->state = W_BUSY;
	w->nccl = 1;
	w->case_id = 0;
	w->deadline = now_mono() + gather_deadline_s();
	return 0;
}

/* Ends the communicator step: decides from every rank's answer. */
static void
gather_end(void)
{
	json_t		*a, *ev;
	const char	*err = NULL, *kind = NULL;
	size_t		 s;
	int		 unavailable = 1, ok = 1, erc;
	int		 pin = sched.cur.nccl_pin;
	char		 why[1536];

	sched.cur.nccl_state = G_DONE;
	json_array_foreach(sched.cur.nccl_done, s, a) {
		if (json_is_true(json_object_get(a, "ok")))
			continue;
		ok = 0;
		if (err == NULL || (kind && strcmp(kind, "same_gpu") &&
		    !strcmp(json_string_value(json_object_get(a, "kind")) ?: "",
		    "same_gpu"))) {
			err = json_string_value(json_object_get(a, "error")) ?:
			    "no answer";
			kind = json_string_value(json_object_get(a, "kind")) ?:
			    "other";
		}
		if (!json_is_false(json_object_get(a, "available")))
			unavailable = 0;
	}
	ev = json_pack("{si sO}", "ranks", sched.cur.nq, "answers",
	    sched.cur.nccl_done);
	if (ok) {
		/* every rank must have gathered what the results said */
		json_array_foreach(sched.cur.nccl_done, s, a) {
			json_t	*g = json_object_get(a, "gathered"), *row;
			size_t	 r, i;

			for (r = 0; r < (size_t)sched.cur.nq; r++) {
				json_t	*want = json_array_get(sched.cur.nccl_values,
				    r);

				row = json_array_get(g, r);
				for (i = 0; i < sched.cur.nccl_width; i++) {
					const char *x = json_string_value(
					    json_array_get(row, i));
					const char *y = json_string_value(
					    json_array_get(want, i)) ?:
					    "0000000000000000";

					if (x == NULL || strcmp(x, y))
						ok = -1;
				}
			}
		}
	}
	erc = run_event(sched.cur.run_id, ok == 1 ? (pin ? "nccl_pincheck" :
	    "nccl_gather") : unavailable ? "nccl_unavailable" : "nccl_failure",
	    ev);
	json_decref(ev);
	(void)erc;
	if (pin && (ok == 1 || (unavailable && env->conf.consensus_nccl == 2))) {
		/* on distinct GPUs (or no NCCL: split.c's UUID check) */
		if (ok == 1)
			log_info("run %lld: NCCL took the %d devices' runners as "
			    "ranks of one communicator: each on a GPU of its own",
			    (long long)sched.cur.run_id, sched.cur.nq);
		sched.cur.pinned = 1;
		sched.cur.nccl_pin = 0;
		sched.cur.nccl_state = G_IDLE;
		return;
	}
	if (ok == 1) {
		log_info("run %lld: the %d devices' runners all-gathered their "
		    "%zu replay digests each through NCCL", (long long)
		    sched.cur.run_id, sched.cur.nq, sched.cur.nccl_width);
		return;
	}
	if (ok == -1) {
		run_fail("consensus phase: the digests all-gathered through NCCL "
		    "are not those the runners reported: the host's GPUs do not "
		    "exchange data faithfully");
		return;
	}
	if (kind != NULL && !strcmp(kind, "same_gpu")) {
		snprintf(why, sizeof(why), "host pinning failure: two of the "
		    "runners of devices %s are on one GPU, so a split screen "
		    "would measure one GPU twice and another never; NCCL: %s",
		    env->conf.devices, err);
		run_fail(why);
		return;
	}
	if (unavailable && env->conf.consensus_nccl == 2) {
		/* nccl = auto without the library: the digests stand */
		log_warnx("run %lld: consensus phase without NCCL (%s); the "
		    "runners' digests were compared by the daemon alone",
		    (long long)sched.cur.run_id, err);
		return;
	}
	snprintf(why, sizeof(why), "%s: the runners' NCCL communicator failed "
	    "([consensus] nccl = no skips it): %s", pin ? "the devices' pinning "
	    "check" : "consensus phase", err);
	run_fail(why);
}

/* A runner's nccl_uid or nccl_done. */
void
gather_message(struct worker *w, json_t *msg, int done)
{
	int	 s;

	for (s = 0; s < sched.cur.nq; s++)
		if (sched.cur.nccl_w[s] == w - sched.workers)
			break;
	if (s == sched.cur.nq || !w->nccl || sched.cur.nccl_state == G_IDLE ||
	    sched.cur.nccl_state == G_DONE) {
		log_warnx("worker %d: NCCL message out of turn; ignored", w->slot);
		return;
	}
	if (!done) {
		const char	*uid = json_string_value(json_object_get(msg, "uid"));
		int		 r;

		if (s != 0 || uid == NULL || sched.cur.nccl_state != G_UID)
			return;
		sched.cur.nccl_state = G_JOIN;
		for (r = 1; r < sched.cur.nq; r++)
			if (gather_send(r, uid) == -1) {
				json_array_set_new(sched.cur.nccl_done, r,
				    json_pack("{sb ss ss}", "ok", 0, "error",
				    "cannot send to the runner", "kind",
				    "other"));
				sched.cur.nccl_left--;
			}
		return;
	}
	json_array_set(sched.cur.nccl_done, s, msg);
	w->nccl = 0;
	worker_idle(w);
	/* rank 0 failing before its id: nobody else was asked */
	if (sched.cur.nccl_state == G_UID) {
		sched.cur.nccl_left = 0;
		gather_end();
		return;
	}
	if (--sched.cur.nccl_left <= 0)
		gather_end();
}

/*
 * The multi-rank bootstrap probe's answer: stored as a multirank event, and
 * its import-first finding as the library's bootstrap hazard (the deny-list's
 * library_hazards).
 */
static void
multirank_end(json_t *ans)
{
	json_t		*f = json_object_get(json_object_get(ans, "import_first"),
			    "finding"), *ev;

	sched.cur.nccl_state = G_PROBED;
	json_object_del(ans, "type");
	run_event(sched.cur.run_id, "multirank", ans);
	if (!json_is_string(f))
		return;
	ev = json_pack("{ss sO}", "finding", json_string_value(f), "multirank",
	    json_object_get(ans, "import_first"));
	run_event(sched.cur.run_id, "bootstrap_hazard", ev);
	json_decref(ev);
	log_warnx("run %lld: %s", (long long)sched.cur.run_id,
	    json_string_value(f));
}

void
gather_multirank(struct worker *w, json_t *msg)
{
	if (!w->nccl || sched.cur.nccl_state != G_MULTIRANK) {
		log_warnx("worker %d: multi-rank answer out of turn; ignored",
		    w->slot);
		return;
	}
	worker_idle(w);
	multirank_end(msg);
}

/* A rank's runner that exited or hung in the communicator step. */
void
gather_lost(struct worker *w, const char *how)
{
	int	 s;

	w->nccl = 0;
	if (sched.cur.nccl_state == G_MULTIRANK) {
		json_t	*a = json_pack("{ss}", "error", how);

		multirank_end(a);
		json_decref(a);
		return;
	}
	for (s = 0; s < sched.cur.nq; s++)
		if (sched.cur.nccl_w[s] == w - sched.workers)
			break;
	if (s == sched.cur.nq)
		return;
	json_array_set_new(sched.cur.nccl_done, s, json_pack("{sb ss ss}",
	    "ok", 0, "error", how, "kind", "other"));
	if (sched.cur.nccl_state == G_UID) {
		sched.cur.nccl_left = 0;
		gather_end();
	} else if (--sched.cur.nccl_left <= 0)
		gather_end();
}

/* Sends the multi-rank probe to rank 0's runner; 1 (in progress). */
static int
multirank_send(void)
{
	struct worker	*w = &sched.workers[sched.cur.nccl_w[0]];
	json_t		*msg;
	char		 visible[256] = "";
	size_t		 off = 0;
	int		 s, rc;

	for (s = 0; s < sched.cur.nq && off < sizeof(visible) - 8; s++)
		off += snprintf(visible + off, sizeof(visible) - off, "%s%d",
		    s ? "," : "", device_of_slot(s));
	msg = json_pack("{ss si si}", "type", "multirank", "ranks", 2,
	    "timeout_s", NCCL_TIMEOUT_S);
	/* CPU runners stand for GPUs: the probe sees the host's (none) */
	if (!env->cpu)
		json_object_set_new(msg, "visible", json_string(visible));
	rc = supervise_send(w->proc, msg);
	json_decref(msg);
	if (rc == -1) {
		msg = json_pack("{ss}", "error", "cannot send to the runner");
		multirank_end(msg);
		json_decref(msg);
		return 1;
	}
	w->state = W_BUSY;
	w->nccl = 1;
	w->case_id = 0;
	sched.cur.nccl_state = G_MULTIRANK;
	w->deadline = now_mono() + gather_deadline_s();
	log_info("run %lld: the multi-rank bootstrap probe (devices %s)",
	    (long long)sched.cur.run_id, visible);
	return 1;
}

/* One idle runner per device as its rank: 0, or 1 to wait for one. */
static int
pick_ranks(void)
{
	int	 s, i;

	for (s = 0; s < sched.cur.nq; s++) {
		sched.cur.nccl_w[s] = -1;
		for (i = 0; i < sched.nworkers; i++)
			if (sched.workers[i].device == device_of_slot(s) &&
			    sched.workers[i].state == W_IDLE &&
			    !sched.workers[i].compile) {
				sched.cur.nccl_w[s] = i;
				break;
			}
		for (i = 0; i < sched.nworkers && sched.cur.nccl_w[s] < 0; i++)
			if (sched.workers[i].device == device_of_slot(s) &&
			    sched.workers[i].state == W_IDLE)
				sched.cur.nccl_w[s] = i;
		if (sched.cur.nccl_w[s] < 0)
			return 1;
	}
	return 0;
}

/* Asks rank 0 for the unique id (the rest follows in gather_message). */
static int
join_start(void)
{
	int	 s;

	json_decref(sched.cur.nccl_done);
	sched.cur.nccl_done = json_array();
	for (s = 0; s < sched.cur.nq; s++)
		json_array_append_new(sched.cur.nccl_done, json_null());
	sched.cur.nccl_left = sched.cur.nq;
	sched.cur.nccl_state = G_UID;
	if (gather_send(0, NULL) == -1) {
		json_array_set_new(sched.cur.nccl_done, 0, json_pack(
		    "{sb ss ss}", "ok", 0, "error", "cannot send to the runner",
		    "kind", "other"));
		sched.cur.nccl_left = 0;
		gather_end();
		return sched.cur.run_id == 0 ? 1 : 0;
	}
	log_info("run %lld: the devices' runners join one NCCL communicator%s",
	    (long long)sched.cur.run_id, sched.cur.nccl_pin ?
	    " (pinning check)" : "");
	return 1;
}

/*
 * Before a split run's cases: one runner per device joins a communicator
 * and all-gathers its rank, so that NCCL itself says whether each runner is
 * on a GPU of its own (two on one GPU: a host pinning failure with NCCL's
 * message, before the screen rather than after it). 0 done or not wanted,
 * 1 in progress (or the run failed).
 */
int
gather_pincheck(void)
{
	int	 s;

	if (!gather_wanted() || sched.cur.pinned)
		return 0;
	if (sched.cur.nccl_state != G_IDLE || pick_ranks())
		return 1;
	/* each rank gathers every rank's index */
	json_decref(sched.cur.nccl_values);
	sched.cur.nccl_values = json_array();
	for (s = 0; s < sched.cur.nq; s++) {
		char	 hex[17];

		snprintf(hex, sizeof(hex), "%016x", s);
		json_array_append_new(sched.cur.nccl_values, json_pack("[s]",
		    hex));
	}
	sched.cur.nccl_width = 1;
	sched.cur.nccl_pin = 1;
	return join_start();
}

/*
 * The end of the consensus phase: the multi-rank bootstrap probe (a run with
 * the bootstrap class), then the communicator step (where wanted). 0 done,
 * 1 in progress, -1 the store refused.
 */
int
gather_poll(void)
{
	if (sched.cur.nccl_state == G_DONE)
		return 0;
	if (sched.cur.nccl_state != G_IDLE && sched.cur.nccl_state != G_PROBED)
		return 1;
	/* first the multi-rank bootstrap probe, with the bootstrap class */
	if (sched.cur.nccl_state == G_IDLE && (sched.cur.classes &
	    PROBE_BOOTSTRAP))
		return pick_ranks() ? 1 : multirank_send();
	if (!gather_wanted()) {
		sched.cur.nccl_state = G_DONE;
		return 0;
	}
	if (pick_ranks())
		return 1;
	json_decref(sched.cur.nccl_values);
	sched.cur.nccl_values = NULL;
	if (gather_values(&sched.cur.nccl_values, &sched.cur.nccl_width) == -1)
		return pw_retry_later("reading the replays' digests");
	sched.cur.nccl_pin = 0;
	return join_start();
}

/*
 * How long a runner in the current NCCL step may stay silent: the
 * communicator's own timeout and 30 s, twice the timeout for the
 * multi-rank probe (two bootstraps, one in each order).
 */
int
gather_deadline_s(void)
{
	return (sched.cur.nccl_state == G_MULTIRANK ? 2 : 1) * NCCL_TIMEOUT_S + 30;
}
