/*
 * replay.c: the consensus phase of a split run (docs/design.md, "Several
 * GPUs"). Once every device has screened its share, each device runs again
 * a deterministic sample of the others' cases (consensus_sampled) on the
 * same inputs, and each sampled case's owner runs it a second time; every
 * run reports the 64-bit digest of its output and is judged by the case's
 * rule. consensus_judge then says what each sampled case shows (agreement,
 * nondeterminism, a device that computes differently) and
 * consensus_quarantine which devices to quarantine: their lists answer
 * 503, and the verdicts they screened are not shared with the others
 * (store_verdicts_share). The run completes only after this phase.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "consensus.h"
#include "verdict.h"
#include "scheduler.h"

#define PHASE_IDLE	0
#define PHASE_RUNNING	1
#define PHASE_JUDGED	2

/* Adds (case, device, attempt) to the phase's items unless stored. */
static int
plan_add(int64_t id, int dev, int attempt)
{
	struct replay_item	*it;
	int			 have;

	if ((have = store_replay_have(env->store, id, dev, attempt)) == -1)
		return -1;
	if (have)
		return 0;
	if (sched.cur.rp_n == sched.cur.rp_cap) {
		size_t	 nc = sched.cur.rp_cap ? 2 * sched.cur.rp_cap : 256;

		if ((it = realloc(sched.cur.rp, nc * sizeof(*it))) == NULL)
			return -1;
		sched.cur.rp = it;
		sched.cur.rp_cap = nc;
	}
	it = &sched.cur.rp[sched.cur.rp_n++];
	memset(it, 0, sizeof(*it));
	it->case_id = id;
	it->device = dev;
	it->attempt = attempt;
	return 0;
}

/*
 * Plans the phase: the (case, device, attempt) still to run. Each other
 * device replays the cases of its sample (consensus_sampled) and, for every
 * key none of whose cases fell in it, the key's case of least rank, so that
 * every key's kernels run on every device at least once; each replayed case
 * also runs a second time on its owner. -1: the store refused.
 */
static int
replay_plan(void)
{
	struct store_cursor	*c;
	sqlite3_stmt		*st;
	json_t			*least = json_object(), *chosen = json_object();
	json_t			*v, *o;
	const char		*k;
	char			 pk[300], idk[32];
	uint64_t		 seed = (uint64_t)sched.cur.run_id, r;
	int			 rc, s;

	if ((c = store_replay_candidates(env->store, sched.cur.run_id)) == NULL)
		goto fail;
	st = store_cursor_stmt(c);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t		 id = sqlite3_column_int64(st, 0);
		int		 owner = sqlite3_column_int(st, 1), dev;
		const char	*key = (const char *)sqlite3_column_text(st, 2);

		for (s = 0; s < sched.cur.nq; s++) {
			if ((dev = device_of_slot(s)) == owner)
				continue;
			snprintf(pk, sizeof(pk), "%d|%s", dev, key);
			snprintf(idk, sizeof(idk), "%lld", (long long)id);
			r = consensus_rank(id, dev, seed) >> 1;	/* json's int */
			if (consensus_sampled(id, owner, dev, seed,
			    env->conf.consensus_per_mille)) {
				json_object_set_new(least, pk, json_null());
				if ((o = json_object_get(chosen, idk)) == NULL)
					json_object_set_new(chosen, idk, o =
					    json_pack("{si s{}}", "owner",
					    owner, "devs"));
				json_object_set_new(json_object_get(o, "devs"),
				    pk, json_integer(dev));
				continue;
			}
			v = json_object_get(least, pk);
			if (json_is_null(v))
				continue;	/* the key has a sampled case */
			if (v == NULL || (json_int_t)r < json_integer_value(
			    json_array_get(v, 0)))
				json_object_set_new(least, pk, json_pack("[I I "
				    "i i]", (json_int_t)r, (json_int_t)id, owner,
				    dev));
		}
	}
	store_cursor_free(c);
	if (rc != SQLITE_DONE)
		goto fail;
	/* the keys with no sampled case on a device: their least rank */
	json_object_foreach(least, k, v) {
		if (json_is_null(v))
			continue;
		snprintf(idk, sizeof(idk), "%lld", (long long)
		    json_integer_value(json_array_get(v, 1)));
		if ((o = json_object_get(chosen, idk)) == NULL)
			json_object_set_new(chosen, idk, o = json_pack("{sO s{}}",
			    "owner", json_array_get(v, 2), "devs"));
		json_object_set(json_object_get(o, "devs"), k,
		    json_array_get(v, 3));
	}
	json_object_foreach(chosen, k, o) {
		int64_t	 id = strtoll(k, NULL, 10);
		json_t	*d;
		const char *dk;

		json_object_foreach(json_object_get(o, "devs"), dk, d)
			if (plan_add(id, (int)json_integer_value(d), 0) == -1)
				goto fail;
		if (plan_add(id, (int)json_integer_value(json_object_get(o,
		    "owner")), 1) == -1)
			goto fail;
	}
	json_decref(least);
	json_decref(chosen);
	sched.cur.rp_left = sched.cur.rp_n;
	return 0;
 fail:
	json_decref(least);
	json_decref(chosen);
	return -1;
}

/* Sends replay item i to w. */
static int
replay_send(struct worker *w, size_t i)
{
	struct replay_item	*it = &sched.cur.rp[i];
	json_t			*spec, *msg;
	int			 rc;

	if ((spec = store_case_spec(env->store, it->case_id, NULL)) == NULL)
		return -1;
	json_object_set_new(spec, "digest", json_true());
	verdict_case_steady(spec, env->conf.speed);
	json_object_set_new(spec, "id", json_integer(it->case_id));
	msg = json_pack("{ss sO}", "type", "case", "case", spec);
	rc = supervise_send(w->proc, msg);
	json_decref(msg);
	json_decref(spec);
	if (rc == -1)
		return -1;
	it->state = 1;
	w->state = W_BUSY;
	w->case_id = it->case_id;
	w->replay = (int)i + 1;
	w->case_compile = w->case_fcb = w->case_in_first = w->case_mode = 0;
	w->case_t0 = now_mono();
	w->deadline = w->case_t0 + case_deadline();
	return 0;
}

static int
w_replay(void *p)
{
	json_t	*a = p;

	if (store_replay_add(env->store, json_integer_value(json_object_get(a,
	    "run")), json_integer_value(json_object_get(a, "case")),
	    (int)json_integer_value(json_object_get(a, "device")),
	    (int)json_integer_value(json_object_get(a, "attempt")),
	    json_string_value(json_object_get(a, "status")),
	    json_string_value(json_object_get(a, "digest")),
	    json_is_true(json_object_get(a, "ok")), now_wall()) == -1)
		return pw_refused("storing a replay");
	return 0;
}

/* Stores what w's replay gave (digest NULL: no output) and frees w. */
static void
replay_done(struct worker *w, const char *status, const char *digest, int ok)
{
	struct replay_item	*it = &sched.cur.rp[w->replay - 1];
	json_t			*a;

	a = json_pack("{sI sI si si ss sb}", "run", (json_int_t)sched.cur.run_id,
	    "case", (json_int_t)it->case_id, "device", it->device, "attempt",
	    it->attempt, "status", status, "ok", ok);
	if (digest != NULL)
		json_object_set_new(a, "digest", json_string(digest));
	pw_write(w_replay, a);
	it->state = 2;
	sched.cur.rp_left--;
	w->replay = 0;
}

/* A runner's result for its replay. */
void
replay_result(struct worker *w, json_t *msg)
{
	struct case_verdict	 v;
	json_t			*spec;
	const char		*digest;

	memset(&v, 0, sizeof(v));
	if ((spec = store_case_spec(env->store, w->case_id, NULL)) != NULL)
		verdict_case(spec, msg, env->conf.critical_ratio, &v);
	else
		v.status = CASE_ERROR;
	digest = json_string_value(json_object_get(msg, "digest"));
	replay_done(w, case_status_name(v.status), digest,
	    v.status == CASE_PASS);
	json_decref(spec);
	worker_idle(w);
	if (json_is_true(json_object_get(msg, "fatal")))
		w->state = W_DEAD;
}

/* w's replay gave nothing: its runner died or hung (status says which). */
void
replay_lost(struct worker *w, const char *status)
{
	if (w->replay > 0 && (size_t)w->replay <= sched.cur.rp_n)
		replay_done(w, status, NULL, 0);
	w->replay = 0;
}

static int
hex64(const char *s, uint64_t *out)
{
	char	*end;

	if (s == NULL || strlen(s) != 16)
		return -1;
	*out = strtoull(s, &end, 16);
	return *end == '\0' ? 0 : -1;
}

struct judged {
	int64_t		 case_id;
	char		 what[160];	/* key and dtype */
};

/*
 * Judges every replayed case of the run, stores each outcome, quarantines
 * the devices that the threshold of cases suspect and stores the phase's
 * event, in one transaction. -1: the store refused.
 */
static int
replay_judge(void)
{
	struct store_cursor	*c = NULL;
	sqlite3_stmt		*st;
	struct replay		 r;
	struct replay_judgement	*j = NULL, *nj;
	struct judged		*jc = NULL, *njc;
	int64_t			 cur = 0, first_suspect[CONSENSUS_MAX_GPUS] = { 0 };
	size_t			 n = 0, cap = 0, i;
	int			 rc, counts[CONSENSUS_MAX_GPUS], outcome[5] = { 0 };
	int			 g, ngpu = 0, have = 0;
	int			 planned[CONSENSUS_MAX_GPUS] = { 0 };
	int			 got[CONSENSUS_MAX_GPUS] = { 0 };
	unsigned		 q;
	json_t			*ev = NULL, *qs;
	char			 detail[512], what[160] = "";
	uint64_t		 d;

	for (g = 0; g < sched.cur.nq; g++)
		if (device_of_slot(g) + 1 > ngpu)
			ngpu = device_of_slot(g) + 1;
	if (ngpu > CONSENSUS_MAX_GPUS)
		ngpu = CONSENSUS_MAX_GPUS;
	if (store_begin(env->store) == -1)
		return -1;
	if ((c = store_replay_cursor(env->store, sched.cur.run_id)) == NULL)
		goto fail;
	st = store_cursor_stmt(c);
	for (;;) {
		int64_t	 id = 0;

		if ((rc = sqlite3_step(st)) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		else if (rc != SQLITE_DONE)
			goto fail;
		if (have && id != cur) {
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				if ((nj = realloc(j, cap * sizeof(*j))) == NULL)
					goto fail;
				j = nj;
				if ((njc = realloc(jc, cap * sizeof(*jc))) ==
				    NULL)
					goto fail;
				jc = njc;
			}
			consensus_judge(&r, &j[n]);
			jc[n].case_id = cur;
			snprintf(jc[n].what, sizeof(jc[n].what), "%s", what);
			outcome[j[n].outcome]++;
			for (g = 0; g < ngpu; g++)
				if ((j[n].suspects & (1u << g)) &&
				    first_suspect[g] == 0)
					first_suspect[g] = cur;
			if (store_replay_outcome(env->store, cur,
			    replay_outcome_name(j[n].outcome)) == -1)
				goto fail;
			n++;
			have = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		if (!have) {
			int	 owner = sqlite3_column_int(st, 1);

			memset(&r, 0, sizeof(r));
			cur = id;
			r.case_id = id;
			r.owner = owner;
			r.ngpu = ngpu;
			if (owner >= 0 && owner < ngpu && hex64((const char *)
			    sqlite3_column_text(st, 2), &d) == 0) {
				r.have[owner] = 1;
				r.digest[owner] = d;
				r.oracle_ok[owner] = sqlite3_column_int(st, 3);
			}
			snprintf(what, sizeof(what), "%s %s", (const char *)
			    sqlite3_column_text(st, 8), (const char *)
			    sqlite3_column_text(st, 9));
			have = 1;
		}
		g = sqlite3_column_int(st, 4);
		if (g < 0 || g >= ngpu)
			continue;
		if (sqlite3_column_int(st, 5) == 0)
			planned[g]++;
		if (hex64((const char *)sqlite3_column_text(st, 6), &d) == -1)
			continue;	/* no output: nothing to compare */
		if (sqlite3_column_int(st, 5) == 0)
			got[g]++;
		if (sqlite3_column_int(st, 5) == 1) {
			if (g == r.owner) {
				r.have_again = 1;
				r.owner_again = d;
			}
		} else {
			r.have[g] = 1;
			r.digest[g] = d;
			r.oracle_ok[g] = sqlite3_column_int(st, 7);
		}
	}
	store_cursor_free(c);
	c = NULL;
	q = consensus_quarantine(j, n, ngpu, env->conf.consensus_threshold,
	    counts);
	/*
	 * A device whose replays of the others' cases mostly gave no output
	 * (its runner crashed or hung on them) checked nothing: it is not
	 * known to compute as they do, so its share is not vouched for.
	 */
	for (g = 0; g < ngpu; g++)
		if (planned[g] > 0 && 2 * got[g] < planned[g] && !(q & (1u << g)))
			q |= 1u << g;
	qs = json_array();
	for (g = 0; g < ngpu; g++) {
		const char	*ev_what = "";

		if (!(q & (1u << g)))
			continue;
		for (i = 0; i < n; i++)
			if (jc[i].case_id == first_suspect[g])
				ev_what = jc[i].what;
		if (counts[g] >= env->conf.consensus_threshold)
			snprintf(detail, sizeof(detail), "%d of the %zu sampled "
			    "cases found device %d computing differently from "
			    "the others on the same inputs (its output failed "
			    "the rule where another device's passed, or it was "
			    "outvoted); first: case %lld, %s", counts[g], n, g,
			    (long long)first_suspect[g], ev_what);
		else
			snprintf(detail, sizeof(detail), "device %d's replays "
			    "of the other devices' cases gave no output for %d "
			    "of %d (its runner crashed or hung on them): nothing "
			    "checked that it computes as they do", g,
			    planned[g] - got[g], planned[g]);
		if (store_quarantine_add(env->store, sched.cur.run_id, g,
		    counts[g], (int)n, first_suspect[g], detail) == -1) {
			json_decref(qs);
			goto fail;
		}
		json_array_append_new(qs, json_pack("{si si sI}", "device", g,
		    "suspect_cases", counts[g], "case",
		    (json_int_t)first_suspect[g]));
		log_warnx("run %lld: device %d quarantined: %s",
		    (long long)sched.cur.run_id, g, detail);
	}
	ev = json_pack("{si sI si si si si si so si}", "devices", sched.cur.nq,
	    "sampled_cases", (json_int_t)n, "agree", outcome[REPLAY_AGREE],
	    "nondeterministic", outcome[REPLAY_NONDETERMINISTIC],
	    "within_rule", outcome[REPLAY_WITHIN_RULE],
	    "suspect", outcome[REPLAY_SUSPECT],
	    "unresolved", outcome[REPLAY_UNRESOLVED], "quarantined", qs,
	    "per_mille", env->conf.consensus_per_mille);
	json_object_set_new(ev, "wall_s", json_real(now_wall() -
	    sched.cur.consensus_t0));
	if (run_add_event(sched.cur.run_id, "consensus", ev) == -1 ||
	    store_commit(env->store) == -1)
		goto fail;
	log_info("run %lld: consensus over %zu sampled cases: %d agree, %d "
	    "nondeterministic, %d within the rule, %d suspect, %d unresolved",
	    (long long)sched.cur.run_id, n, outcome[REPLAY_AGREE],
	    outcome[REPLAY_NONDETERMINISTIC], outcome[REPLAY_WITHIN_RULE],
	    outcome[REPLAY_SUSPECT], outcome[REPLAY_UNRESOLVED]);
	json_decref(ev);
	free(j);
	free(jc);
	return 0;
 fail:
	json_decref(ev);
	store_cursor_free(c);
	store_rollback(env->store);
	free(j);
	free(jc);
	return -1;
}

/*
 * The consensus phase's step, once every case of the run is done: 0 the
 * run may finish (not split, or judged), 1 the phase runs, -1 the store
 * refused (again after the back-off).
 */
int
replay_poll(void)
{
	size_t	 i;
	int	 k, busy = 0;

	if (sched.cur.split == NULL || sched.cur.consensus == PHASE_JUDGED)
		return 0;
	if (sched.cur.consensus == PHASE_IDLE) {
		if (replay_plan() == -1) {
			free(sched.cur.rp);
			sched.cur.rp = NULL;
			sched.cur.rp_n = sched.cur.rp_cap = 0;
			return pw_retry_later("planning the consensus phase");
		}
		sched.cur.consensus = PHASE_RUNNING;
		sched.cur.consensus_t0 = now_wall();
		log_info("run %lld: consensus phase: %zu replays (%d per mille "
		    "of each other device's cases, and their owners' second "
		    "runs)", (long long)sched.cur.run_id, sched.cur.rp_n,
		    env->conf.consensus_per_mille);
		progress_update("running");
	}
	for (k = 0; k < sched.nworkers; k++) {
		struct worker	*w = &sched.workers[k];

		if (w->state == W_BUSY && w->replay)
			busy = 1;
		/* a device whose runner cannot start fails the run */
		if (w->state == W_DOWN && w->failures >= 3 && w->hello_error[0]) {
			char	 why[1280];

			snprintf(why, sizeof(why), "consensus phase: %s",
			    w->hello_error);
			run_fail(why);
			return 1;
		}
		if (w->state != W_IDLE)
			continue;
		for (i = 0; i < sched.cur.rp_n; i++)
			if (sched.cur.rp[i].state == 0 &&
			    sched.cur.rp[i].device == w->device)
				break;
		if (i == sched.cur.rp_n)
			continue;
		if (replay_send(w, i) == -1) {
			log_warnx("worker %d: cannot send replay of case %lld",
			    w->slot, (long long)sched.cur.rp[i].case_id);
			worker_kill(w);
			worker_restart_later(w, 1);
			continue;
		}
		busy = 1;
	}
	if (sched.cur.rp_left > 0 || busy || !pw_ready())
		return 1;
	/* the runners' communicator (gather.c); it may fail the run */
	if ((k = gather_poll()) != 0 || sched.cur.run_id == 0)
		return k == -1 ? -1 : 1;
	if (replay_judge() == -1)
		return pw_retry_later("judging the consensus phase");
	sched.cur.consensus = PHASE_JUDGED;
	return 0;
}
