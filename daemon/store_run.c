/*
 * store_run.c: the runs table and the devices of a run: queueing, starting,
 * ending and cancelling runs, the run a restart resumes, a run's counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"
#include "util.h"

/* A row of (id, request, full, started) into r; 1 a row, 0 none, -1 error. */
static int
run_row(struct store *s, const char *sql, struct store_run *r)
{
	sqlite3_stmt	*st;
	const char	*req;
	int		 rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->id = sqlite3_column_int64(st, 0);
		if ((req = (const char *)sqlite3_column_text(st, 1)) != NULL)
			r->request = strdup(req);
		r->full = sqlite3_column_int(st, 2);
		r->started = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The oldest queued run. */
int
store_run_next_queued(struct store *s, struct store_run *r)
{
	return run_row(s, "SELECT id, request, full, 0 FROM runs WHERE "
	    "state='queued' ORDER BY id LIMIT 1", r);
}

/* The newest run left 'running' (started: when it started, or was made). */
int
store_run_resumable(struct store *s, struct store_run *r)
{
	return run_row(s, "SELECT id, request, full, coalesce(started, created) "
	    "FROM runs WHERE state='running' ORDER BY id DESC LIMIT 1", r);
}

/*
 * Starts run if it is still queued (a cancel may have taken it since it was
 * read).  1 started, 0 no longer queued, -1 the store refused.
 */
int
store_run_start(struct store *s, int64_t run, double started)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE runs SET state='running', "
	    "started=? WHERE id=? AND state='queued'", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_double(st, 1, started);
	sqlite3_bind_int64(st, 2, run);
	return store_step_changed(s, st);
}

int
store_run_set_state(struct store *s, int64_t run, const char *state,
    const char *err, double finished)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE runs SET state=?, "
	    "finished=?, error=? WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return error("store: %s", sqlite3_errmsg(store_db(s)));
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, finished);
	if (err)
		sqlite3_bind_text(st, 3, err, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, run);
	return store_step_once(st);
}

/* The pending cases of an ended run are cancelled. */
int
store_run_cancel_pending(struct store *s, int64_t run)
{
	char	 sql[160];

	snprintf(sql, sizeof(sql), "UPDATE cases SET state='cancelled' WHERE "
	    "run_id=%lld AND state='pending'", (long long)run);
	return store_exec(s, sql);
}

int
store_run_total_add(struct store *s, int64_t run, int64_t n)
{
	char	 sql[128];

	snprintf(sql, sizeof(sql), "UPDATE runs SET total=total+%lld "
	    "WHERE id=%lld", (long long)n, (long long)run);
	return store_exec(s, sql);
}

int
store_run_done_add(struct store *s, int64_t run, int64_t n)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "UPDATE runs SET done=done+? WHERE id=?")) ==
	    NULL)
		return -1;
	sqlite3_bind_int64(st, 1, n);
	sqlite3_bind_int64(st, 2, run);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

/* How many runs are queued, and how many of them are full screens. */
int
store_runs_queued(struct store *s, int *queued, int *queued_full)
{
	sqlite3_stmt	*st;
	int		 rc;

	*queued = *queued_full = 0;
	if (sqlite3_prepare_v2(store_db(s), "SELECT coalesce(sum(full=1), 0), "
	    "count(*) FROM runs WHERE state='queued'", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*queued_full = sqlite3_column_int(st, 0);
		*queued = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Queues a run; its id, or -1. */
int64_t
store_run_queue(struct store *s, const char *request, int full,
    double created)
{
	sqlite3_stmt	*st;
	int64_t		 id = -1;

	if (sqlite3_prepare_v2(store_db(s), "INSERT INTO runs (state, request, "
	    "full, created) VALUES ('queued', ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, request, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, full);
	sqlite3_bind_double(st, 3, created);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(store_db(s));
	sqlite3_finalize(st);
	return id;
}

/* Run's state into state; 1 found, 0 no such run, -1 error. */
int
store_run_state(struct store *s, int64_t run, char *state, size_t len)
{
	sqlite3_stmt	*st;
	int		 rc;

	state[0] = '\0';
	if (sqlite3_prepare_v2(store_db(s), "SELECT state FROM runs WHERE id=?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		snprintf(state, len, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Cancels run while it is queued: 1 cancelled, 0 not queued, -1 error. */
int
store_run_cancel_queued(struct store *s, int64_t run, double finished)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE runs SET state='cancelled', "
	    "finished=?, error='cancelled through the API' WHERE id=? AND "
	    "state='queued'", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_double(st, 1, finished);
	sqlite3_bind_int64(st, 2, run);
	return store_step_changed(s, st);
}
/*
 * Runs left 'running' by an earlier lifetime, except keep (the one that
 * resumes, 0 for none), are failed: only one run is ever going, so any other
 * is a leftover.  Returns -1 on a store error.
 */
int
store_interrupt_stale_runs(struct store *s, int64_t keep)
{
	char		 sql[256];

	snprintf(sql, sizeof(sql), "UPDATE runs SET state='failed', "
	    "finished=%.3f, error='opscreend stopped during the run' "
	    "WHERE state='running' AND id != %lld", now_wall(), (long long)keep);
	return store_exec(s, sql);
}

/*
 * Sets a run's total and done from what the store holds (its cases, and the
 * cases with a result) and returns them: the counts a resumed run goes on
 * from.  Every case that has a result is done (a result is written in the
 * transaction that counts it); one without a result is not.
 */
int
store_run_recount(struct store *s, int64_t run, int64_t *total, int64_t *done)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE runs SET total=(SELECT count(*) "
	    "FROM cases WHERE run_id=?1), done=(SELECT count(*) FROM results r "
	    "JOIN cases c ON c.id = r.case_id WHERE c.run_id=?1) WHERE id=?1 "
	    "RETURNING total, done", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*total = sqlite3_column_int64(st, 0);
			*done = sqlite3_column_int64(st, 1);
			rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		}
	}
	if (rc == -1)
		error("store: recounting run %lld: %s", (long long)run,
		    sqlite3_errcode(store_db(s)) == SQLITE_DONE ? "no such run" :
		    sqlite3_errmsg(store_db(s)));
	sqlite3_finalize(st);
	return rc;
}

/*
 * The Triton compile() wall of a run's own first calls (RESULT
 * first_call_cost.jit_ms summed, in seconds; carried results not counted)
 * and how many first calls measured it, on db (the writer's connection or
 * an API thread's reader). It reads every result's figures: the writer
 * computes it once, when the run completes, into the run's run_complete
 * event, and GET /runs/{id} reads that (api_read.c), calling this only for
 * a run completed before the event held it.
 */
int
store_run_compile(sqlite3 *db, int64_t run, double *compile_s, int *firsts)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	*compile_s = 0;
	*firsts = 0;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(json_extract("
	    "r.figures, '$.first_call_cost.jit_ms')), 0) / 1000.0, count("
	    "json_extract(r.figures, '$.first_call_cost.jit_ms')) FROM cases c "
	    "JOIN results r ON r.case_id = c.id WHERE c.run_id = ?1 AND "
	    "r.carried_from IS NULL", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*compile_s = sqlite3_column_double(st, 0);
			*firsts = sqlite3_column_int(st, 1);
			rc = 0;
		}
	}
	if (rc == -1)
		error("store: the compile time of run %lld: %s", (long long)run,
		    sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

/*
 * Retention (store.keep_runs): the runs before the keep-th newest complete
 * one lose their cases and results, except what is still read: every case a
 * verdict (eager, compile, cudagraph) or a quarantine names as evidence, and
 * every case a kept result was carried or shrunk from. Runs, verdicts and
 * events stay (history, regressions and the dashboard read them; they are
 * small), and so does every run the lists may serve (the newest complete
 * one, and the newest complete full one of each device) with the runs after
 * it. In the caller's transaction. *pruned: the cases deleted; 0 when there
 * are not keep complete runs yet.
 */
int
store_prune(struct store *s, int keep, int64_t *pruned)
{
	sqlite3		*db = store_db(s);
	sqlite3_stmt	*st = NULL;
	int64_t		 cutoff = 0;
	int		 rc = -1;

	*pruned = 0;
	if (keep <= 0)
		return 0;
	/* the oldest run kept whole */
	if (sqlite3_prepare_v2(db, "SELECT min((SELECT id FROM runs WHERE state = "
	    "'complete' ORDER BY id DESC LIMIT 1 OFFSET ?1 - 1), coalesce((SELECT "
	    "min(m) FROM (SELECT max(r.id) AS m FROM runs r JOIN run_devices d ON "
	    "d.run_id = r.id WHERE r.state = 'complete' AND r.full = 1 GROUP BY "
	    "d.device)), 1 << 62), coalesce((SELECT max(id) FROM runs WHERE state "
	    "= 'complete'), 1 << 62))", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int(st, 1, keep);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto out;
	cutoff = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 :
	    sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (cutoff <= 1) {
		rc = 0;
		goto out;
	}
	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS prune_needed "
	    "(id INTEGER PRIMARY KEY); DELETE FROM temp.prune_needed", NULL,
	    NULL, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.prune_needed "
	    "SELECT evidence_case FROM verdicts WHERE evidence_case IS NOT NULL "
	    "UNION SELECT compile_case FROM verdicts WHERE compile_case IS NOT NULL "
	    "UNION SELECT cudagraph_case FROM verdicts WHERE cudagraph_case IS NOT "
	    "NULL UNION SELECT evidence_case FROM quarantine WHERE evidence_case "
	    "IS NOT NULL UNION SELECT r.carried_from FROM results r JOIN cases c ON "
	    "c.id = r.case_id WHERE c.run_id >= ?1 AND r.carried_from IS NOT NULL "
	    "UNION SELECT r.shrink_from FROM results r JOIN cases c ON c.id = "
	    "r.case_id WHERE c.run_id >= ?1 AND r.shrink_from IS NOT NULL", -1,
	    &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, cutoff);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	/* a kept case's own origins (a carried evidence case's measurement) */
	if (sqlite3_exec(db, "INSERT OR IGNORE INTO temp.prune_needed SELECT "
	    "r.carried_from FROM results r JOIN temp.prune_needed n ON n.id = "
	    "r.case_id WHERE r.carried_from IS NOT NULL UNION SELECT r.shrink_from "
	    "FROM results r JOIN temp.prune_needed n ON n.id = r.case_id WHERE "
	    "r.shrink_from IS NOT NULL", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	/* results and replays go with their cases (ON DELETE CASCADE) */
	if (sqlite3_prepare_v2(db, "DELETE FROM cases WHERE run_id < ?1 AND id "
	    "NOT IN (SELECT id FROM temp.prune_needed)", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, cutoff);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	*pruned = sqlite3_changes(db);
	rc = 0;
 out:
	if (rc == -1)
		error("store: pruning the runs before the newest %d: %s", keep,
		    sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

/* The device of a run's cases and the fingerprint of its library there. */
int
store_run_device_set(struct store *s, int64_t run, int device,
    int64_t fingerprint_id)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "INSERT OR REPLACE INTO run_devices "
	    "(run_id, device, fingerprint_id) VALUES (?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, fingerprint_id);
	return store_step_once(st);
}

/* The devices whose cases run has stored, at most max; how many, or -1. */
int
store_run_devices(struct store *s, int64_t run, int *devices, int max)
{
	sqlite3_stmt	*st;
	int		 n = 0, rc;

	if (sqlite3_prepare_v2(store_db(s), "SELECT device FROM run_devices "
	    "WHERE run_id=?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < max)
		devices[n++] = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

/*
 * The fingerprint run recorded for device: its hash into hash, the
 * fingerprint in *fp (the caller's, NULL if it does not parse).  1 found,
 * 0 none recorded, -1 error.
 */
int
store_run_device_fingerprint(struct store *s, int64_t run, int device,
    char *hash, size_t len, json_t **fp)
{
	sqlite3_stmt	*st;
	json_error_t	 jerr;
	int		 rc;

	*fp = NULL;
	hash[0] = '\0';
	if (sqlite3_prepare_v2(store_db(s), "SELECT f.hash, f.json FROM "
	    "run_devices d JOIN fingerprints f ON f.id = d.fingerprint_id WHERE "
	    "d.run_id=? AND d.device=?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(hash, len, "%s", sqlite3_column_text(st, 0));
		*fp = json_loads((const char *)sqlite3_column_text(st, 1), 0,
		    &jerr);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The newest complete run when it has no shrinks_done event: a stop ended
 * its shrinks after the lists (runner.shrink_after) before they did.  1 and
 * its id in *run, 0 none (no complete run, or its event is stored), -1 error.
 */
int
store_run_tail_interrupted(struct store *s, int64_t *run)
{
	sqlite3_stmt	*st;
	int		 rc;

	*run = 0;
	if (sqlite3_prepare_v2(store_db(s), "SELECT r.id, EXISTS (SELECT 1 "
	    "FROM events e WHERE e.run_id = r.id AND e.kind = 'shrinks_done') "
	    "FROM runs r WHERE r.state = 'complete' ORDER BY r.id DESC LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW && !sqlite3_column_int(st, 1))
		*run = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	return *run != 0;
}
