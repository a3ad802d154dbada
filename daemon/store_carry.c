/*
 * store_carry.c: what a screen carries from an earlier one: the screen it
 * may carry from, its keys' source digests and measurement times, the
 * stored results of the cases both screens share, and the carried copies.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"

/*
 * The newest complete full screen before `run` on `device` whose
 * environment equals the fingerprint `fpid`'s: the same library, torch,
 * triton, CUDA, driver, GPU (name and UUID) and Python; the library's
 * version and source may differ; not one whose consensus phase quarantined
 * the device (its measurements there are suspect). 0 none, -1 error;
 * *same_library: it had this very fingerprint (nothing changed).
 */
int64_t
store_carry_source(struct store *s, int64_t run, int device, int64_t fpid,
    int *same_library)
{
	sqlite3_stmt	*st;
	int64_t		 id = 0;

	*same_library = 0;
	if (sqlite3_prepare_v2(store_db(s), "SELECT r.id, d.fingerprint_id = "
	    "c.id FROM runs r JOIN run_devices d ON d.run_id = r.id JOIN "
	    "fingerprints f ON f.id = d.fingerprint_id JOIN fingerprints c ON "
	    "c.id = ?3 WHERE r.state = 'complete' AND r.full = 1 AND r.id < ?1 "
	    "AND d.device = ?2 AND f.library = c.library AND f.torch = c.torch "
	    "AND f.triton = c.triton AND f.cuda = c.cuda AND f.driver = "
	    "c.driver AND f.gpu_name = c.gpu_name AND f.gpu_uuid = c.gpu_uuid "
	    "AND json_extract(f.json, '$.python') IS json_extract(c.json, "
	    "'$.python') AND NOT EXISTS (SELECT 1 FROM quarantine q WHERE "
	    "q.run_id = r.id AND q.device = d.device) ORDER BY r.id DESC "
	    "LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, fpid);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		id = sqlite3_column_int64(st, 0);
		*same_library = sqlite3_column_int(st, 1);
		break;
	case SQLITE_DONE:
		break;
	default:
		id = -1;
	}
	sqlite3_finalize(st);
	return id;
}

/*
 * The keys `run` screens on `device`, each with whether its source digest
 * on that device (non-empty) equals the one `source` had there, the time
 * of its oldest measurement among source's results (a carried result keeps
 * the time of the measurement it copies; 0: none), and whether a verdict
 * of it in `source` there is broken "intermittent" (a failure one clean
 * screen has not cleared: regress_intermittent).
 */
struct store_cursor *
store_carry_keys(struct store *s, int64_t run, int device, int64_t source)
{
	struct store_cursor	*c;
	sqlite3_stmt		*st;

	if ((c = store_cursor_new(s, "SELECT n.key, n.source != '' AND "
	    "n.source IS o.source, coalesce((SELECT min(r.created) FROM cases x "
	    "JOIN results r ON r.case_id = x.id WHERE x.run_id = ?3 AND "
	    "x.device = ?2 AND x.key = n.key), 0), EXISTS (SELECT 1 FROM "
	    "verdicts v WHERE v.run_id = ?3 AND v.device = ?2 AND v.key = "
	    "n.key AND v.verdict = 'broken' AND v.reason = 'intermittent') "
	    "FROM sources n LEFT JOIN "
	    "sources o ON o.run_id = ?3 AND o.device = ?2 AND o.key = n.key "
	    "WHERE n.run_id = ?1 AND n.device = ?2 AND EXISTS (SELECT 1 FROM "
	    "cases y WHERE y.run_id = ?1 AND y.device = ?2 AND y.key = n.key) "
	    "ORDER BY n.key")) == NULL)
		return NULL;
	st = store_cursor_stmt(c);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, source);
	return c;
}

/* The next key: 1 a row, 0 the end, -1 an error. */
int
store_carry_keys_next(struct store_cursor *c, struct store_carry_key *k)
{
	sqlite3_stmt	*st = store_cursor_stmt(c);
	int		 rc;

	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	k->key = (const char *)sqlite3_column_text(st, 0);
	k->unchanged = sqlite3_column_int(st, 1);
	k->measured = sqlite3_column_double(st, 2);
	k->unsettled = sqlite3_column_int(st, 3);
	return 1;
}

/*
 * The pending cases of `run` on `device` of the keys in `keys` (a JSON
 * array) that `source` stored a result for under the same spec, with that
 * result: the candidates to carry.
 */
struct store_cursor *
store_carry_cases(struct store *s, int64_t run, int device, int64_t source,
    const char *keys)
{
	struct store_cursor	*c;
	sqlite3_stmt		*st;

	if ((c = store_cursor_new(s, "SELECT n.id, n.spec, o.id, r.status, "
	    "r.figures FROM cases n JOIN cases o ON o.id = (SELECT x.id FROM "
	    "cases x WHERE x.run_id = ?3 AND x.device = n.device AND x.key = "
	    "n.key AND x.spec = n.spec ORDER BY x.id LIMIT 1) JOIN results r ON "
	    "r.case_id = o.id WHERE n.run_id = ?1 AND n.device = ?2 AND "
	    "n.state = 'pending' AND n.key IN (SELECT value FROM json_each(?4)) "
	    "ORDER BY n.id")) == NULL)
		return NULL;
	st = store_cursor_stmt(c);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, source);
	sqlite3_bind_text(st, 4, keys, -1, SQLITE_TRANSIENT);
	return c;
}

/* The next candidate: 1 a row, 0 the end, -1 an error. */
int
store_carry_cases_next(struct store_cursor *c, struct store_carry_case *r)
{
	sqlite3_stmt	*st = store_cursor_stmt(c);
	int		 rc;

	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	r->case_id = sqlite3_column_int64(st, 0);
	r->spec = (const char *)sqlite3_column_text(st, 1);
	r->from = sqlite3_column_int64(st, 2);
	r->status = (const char *)sqlite3_column_text(st, 3);
	r->figures = (const char *)sqlite3_column_text(st, 4);
	return 1;
}

/* a kept statement that must change exactly one row: 0 it did, -1 not */
static int
step_one(struct store *s, sqlite3_stmt *st)
{
	int	 rc = sqlite3_step(st) == SQLITE_DONE &&
	    sqlite3_changes(store_db(s)) == 1 ? 0 : -1;

	sqlite3_reset(st);
	return rc;
}

/*
 * Case `to` gets case `from`'s stored result, judged anew by j (status,
 * reason, detail, score, native_inaccurate, severity; NULL: as stored, for
 * a case no rule judges), with its figures, times, repro, shrink and
 * measurement time, and the case it copies (the first measurement through
 * any chain of carries); `to` is done.
 */
int
store_result_carry(struct store *s, int64_t to, int64_t from,
    const struct store_result *j)
{
	sqlite3_stmt	*st;

	if ((st = store_stmt(s, "INSERT INTO results (case_id, status, reason, "
	    "detail, score, native_inaccurate, severity, figures, stderr_tail, "
	    "repro, cand_first_ms, cand_steady_ms, native_ms, created, "
	    "shrunk_spec, shrink_runs, shrink_ms, shrink_cand_ms, shrink_from, "
	    "carried_from, alone, alone_detail, repro_inputs) SELECT ?1, coalesce(?2, status), coalesce(?3, "
	    "reason), coalesce(?4, detail), coalesce(?5, score), coalesce(?6, "
	    "native_inaccurate), coalesce(?7, severity), figures, stderr_tail, "
	    "repro, cand_first_ms, cand_steady_ms, native_ms, created, "
	    "shrunk_spec, shrink_runs, shrink_ms, shrink_cand_ms, shrink_from, "
	    "coalesce(carried_from, case_id), alone, alone_detail, repro_inputs "
	    "FROM results "
	    "WHERE case_id = ?8"))
	    == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, to);
	if (j != NULL) {
		sqlite3_bind_text(st, 2, j->status, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, j->reason, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, j->detail, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, j->score);
		sqlite3_bind_int(st, 6, j->native_inaccurate);
		sqlite3_bind_text(st, 7, j->severity ? j->severity : "", -1,
		    SQLITE_STATIC);
	}
	sqlite3_bind_int64(st, 8, from);
	if (step_one(s, st) == -1)
		return -1;
	if ((st = store_stmt(s, "UPDATE cases SET state = 'done' WHERE id = ? "
	    "AND state = 'pending'")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, to);
	return step_one(s, st);
}
