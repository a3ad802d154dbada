/*
 * store_consensus.c: several GPUs of one host in the store (db/010): a
 * split run's division of its keys, the consensus phase's replays and their
 * outcomes, the devices it quarantined, and the verdicts a split run shares
 * with the devices that did not screen the key.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* A run's division: key -> device into *map (new object). -1 on error. */
int
store_split_load(struct store *s, int64_t run, json_t **map)
{
	sqlite3_stmt	*st;
	int		 rc;

	*map = NULL;
	if ((st = store_stmt(s, "SELECT key, device FROM run_split WHERE "
	    "run_id=?")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	*map = json_object();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_object_set_new(*map, (const char *)sqlite3_column_text(st,
		    0), json_integer(sqlite3_column_int(st, 1)));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(*map);
		*map = NULL;
		return -1;
	}
	return 0;
}

/* Stores key's owner and cost in run's division. */
int
store_split_add(struct store *s, int64_t run, const char *key, int device,
    double cost)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "INSERT OR REPLACE INTO run_split (run_id, key, "
	    "device, cost) VALUES (?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, device);
	sqlite3_bind_double(st, 4, cost);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

int
store_run_set_split(struct store *s, int64_t run, int split)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "UPDATE runs SET split=? WHERE id=?")) == NULL)
		return -1;
	sqlite3_bind_int(st, 1, split);
	sqlite3_bind_int64(st, 2, run);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

/*
 * Each key's runner seconds per device in the newest complete full run
 * before `run` (the sum of its cases' case_ms over the devices that
 * screened it, divided by their number) into costs (key -> seconds).
 */
int
store_key_costs(struct store *s, int64_t run, json_t *costs)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "SELECT c.key, sum(json_extract(r.figures, "
	    "'$.times.case_ms')) / 1e3 / count(DISTINCT c.device) FROM cases c "
	    "JOIN results r ON r.case_id = c.id WHERE c.run_id = (SELECT "
	    "max(id) FROM runs WHERE state='complete' AND full=1 AND id < ?) "
	    "AND r.carried_from IS NULL GROUP BY c.key")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			json_object_set_new(costs, (const char *)
			    sqlite3_column_text(st, 0), json_real(
			    sqlite3_column_double(st, 1)));
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The cases of run the consensus phase may sample: measured in this run
 * (not carried), judged pass or fail, with the digest of the owner's
 * output, of an eager class (a compile ladder's step, a bootstrap check and
 * the deployment modes' cases are not replayed), and not replayed yet by
 * (device, attempt) for a restarted phase. Cursor rows: case id, owner
 * device, key.
 */
struct store_cursor *
store_replay_candidates(struct store *s, int64_t run)
{
	struct store_cursor	*c;

	if ((c = store_cursor_new(s, "SELECT c.id, c.device, c.key FROM cases c "
	    "JOIN results r ON r.case_id = c.id WHERE c.run_id=? AND r.status "
	    "IN ('pass', 'fail') AND r.carried_from IS NULL AND "
	    "json_type(r.figures, '$.digest') = 'text' AND c.class NOT IN "
	    "('compile', 'bootstrap', 'trace', 'graph') ORDER BY c.id")) ==
	    NULL)
		return NULL;
	sqlite3_bind_int64(store_cursor_stmt(c), 1, run);
	return c;
}

/* Whether (case, device, attempt) has a stored replay: 1, 0, -1 error. */
int
store_replay_have(struct store *s, int64_t case_id, int device, int attempt)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "SELECT 1 FROM replays WHERE case_id=? AND "
	    "device=? AND attempt=?")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, case_id);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int(st, 3, attempt);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int
store_replay_add(struct store *s, int64_t run, int64_t case_id, int device,
    int attempt, const char *status, const char *digest, int oracle_ok,
    double created)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "INSERT OR REPLACE INTO replays (run_id, "
	    "case_id, device, attempt, status, digest, oracle_ok, created) "
	    "VALUES (?,?,?,?,?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, case_id);
	sqlite3_bind_int(st, 3, device);
	sqlite3_bind_int(st, 4, attempt);
	sqlite3_bind_text(st, 5, status, -1, SQLITE_TRANSIENT);
	if (digest != NULL)
		sqlite3_bind_text(st, 6, digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 7, oracle_ok);
	sqlite3_bind_double(st, 8, created);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

/*
 * Every replayed case of run with the owner's screen and each replay, in
 * case order. Rows: case id, owner, the owner's digest, whether the
 * owner's result passed, replay device, attempt, its digest (NULL: no
 * output), whether it passed, key, dtype.
 */
struct store_cursor *
store_replay_cursor(struct store *s, int64_t run)
{
	struct store_cursor	*c;

	if ((c = store_cursor_new(s, "SELECT c.id, c.device, json_extract("
	    "r.figures, '$.digest'), r.status = 'pass', p.device, p.attempt, "
	    "p.digest, p.oracle_ok, c.key, c.dtype FROM replays p JOIN cases c "
	    "ON c.id = p.case_id JOIN results r ON r.case_id = c.id WHERE "
	    "p.run_id=? ORDER BY c.id, p.device, p.attempt")) == NULL)
		return NULL;
	sqlite3_bind_int64(store_cursor_stmt(c), 1, run);
	return c;
}

int
store_replay_outcome(struct store *s, int64_t case_id, const char *outcome)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "UPDATE replays SET outcome=? WHERE "
	    "case_id=?")) == NULL)
		return -1;
	sqlite3_bind_text(st, 1, outcome, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, case_id);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

int
store_quarantine_add(struct store *s, int64_t run, int device, int suspect,
    int sampled, int64_t evidence_case, const char *detail)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "INSERT OR REPLACE INTO quarantine (run_id, "
	    "device, suspect_cases, sampled_cases, evidence_case, detail) "
	    "VALUES (?,?,?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int(st, 3, suspect);
	sqlite3_bind_int(st, 4, sampled);
	if (evidence_case > 0)
		sqlite3_bind_int64(st, 5, evidence_case);
	sqlite3_bind_text(st, 6, detail, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}

/*
 * A split run's verdicts for the devices that did not screen the key: each
 * verdict of its owner copied to every other device of the run, with
 * screened_on the owner. A quarantined owner's verdicts are not vouched for:
 * the copies are inconclusive (reason owner_quarantined), so the other
 * devices' lists withhold the key until a screen the consensus clears.
 * Returns the rows copied, -1 on error.
 */
int64_t
store_verdicts_share(struct store *s, int64_t run)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = store_stmt(s, "INSERT INTO verdicts (run_id, device, key, "
	    "name, dtype, verdict, reason, class, detail, evidence_case, cases, "
	    "passed, first_call_ms, steady_ms, severity, n_critical, n_loud, "
	    "n_numerics, carried_from, speed_ratio, speed_cases, "
	    "compile_verdict, compile_reason, compile_detail, compile_severity, "
	    "compile_case, cudagraph_verdict, cudagraph_reason, "
	    "cudagraph_detail, cudagraph_severity, cudagraph_case, "
	    "nondeterministic, screened_on) SELECT v.run_id, d.device, v.key, "
	    "v.name, v.dtype, CASE WHEN q.device IS NULL THEN v.verdict ELSE "
	    "'inconclusive' END, CASE WHEN q.device IS NULL THEN v.reason ELSE "
	    "'owner_quarantined' END, v.class, CASE WHEN q.device IS NULL THEN "
	    "v.detail ELSE 'screened on device ' || v.device || ', which this "
	    "run''s consensus phase quarantined: ' || q.detail END, "
	    "v.evidence_case, v.cases, v.passed, v.first_call_ms, v.steady_ms, "
	    "CASE WHEN q.device IS NULL THEN v.severity ELSE '' END, "
	    "v.n_critical, v.n_loud, v.n_numerics, v.carried_from, "
	    "v.speed_ratio, v.speed_cases, v.compile_verdict, v.compile_reason, "
	    "v.compile_detail, v.compile_severity, v.compile_case, "
	    "v.cudagraph_verdict, v.cudagraph_reason, v.cudagraph_detail, "
	    "v.cudagraph_severity, v.cudagraph_case, v.nondeterministic, "
	    "v.device FROM verdicts v JOIN run_devices d ON d.run_id = v.run_id "
	    "AND d.device != v.device LEFT JOIN quarantine q ON q.run_id = "
	    "v.run_id AND q.device = v.device WHERE v.run_id=? AND "
	    "v.screened_on IS NULL AND NOT EXISTS (SELECT 1 FROM verdicts o "
	    "WHERE o.run_id = v.run_id AND o.device = d.device AND o.key = v.key "
	    "AND o.dtype = v.dtype)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? sqlite3_changes(store_db(s)) : -1;
}
