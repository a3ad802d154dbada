/*
 * store_verdict.c: what a run's fold reads (its cases' stored results, in
 * key x dtype order) and writes (one verdict per key x dtype).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* The cases of run without a stored result; -1 on an error. */
int64_t
store_run_unstored(struct store *s, int64_t run)
{
	sqlite3_stmt	*st;
	int64_t		 n = -1;

	if (sqlite3_prepare_v2(store_db(s), "SELECT count(*) FROM cases c WHERE "
	    "c.run_id=? AND NOT EXISTS (SELECT 1 FROM results r WHERE "
	    "r.case_id = c.id)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * The results a run's verdicts fold, ordered by device, key, dtype and
 * case: every judged one, and the skips that count (key_budget,
 * skip_replay, first_call_budget).
 */
struct store_cursor *
store_fold_cursor(struct store *s, int64_t run)
{
	struct store_cursor	*c;

	if ((c = store_cursor_new(s, "SELECT c.device, c.key, c.name, c.dtype, "
	    "c.class, c.id, r.status, r.reason, r.detail, r.score, "
	    "r.native_inaccurate, r.cand_first_ms, r.cand_steady_ms, "
	    "json_extract(c.spec, '$.ladder.value'), "
	    "json_extract(c.spec, '$.ladder.budget_ms'), r.severity, (SELECT "
	    "o.run_id FROM cases o WHERE o.id = r.carried_from), "
	    "json_extract(r.figures, '$.speed.native_ms'), "
	    "json_extract(r.figures, '$.speed.cand_ms'), "
	    "json_type(r.figures, '$.repeat') IS NOT NULL OR EXISTS (SELECT 1 "
	    "FROM replays p WHERE p.case_id = c.id AND p.outcome = "
	    "'nondeterministic') FROM cases c "
	    "JOIN results r ON r.case_id = c.id WHERE c.run_id=? AND "
	    "(r.status != 'skipped' OR r.reason IN ('key_budget', "
	    "'skip_replay', 'first_call_budget', 'needs_device')) ORDER BY "
	    "c.device, "
	    "c.key, c.dtype, c.id")) == NULL)
		return NULL;
	sqlite3_bind_int64(store_cursor_stmt(c), 1, run);
	return c;
}

/* The next row: 1 a row, 0 the end, -1 an error. */
int
store_fold_next(struct store_cursor *c, struct store_fold_row *r)
{
	sqlite3_stmt	*st = store_cursor_stmt(c);
	int		 rc;

	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	memset(r, 0, sizeof(*r));
	r->device = sqlite3_column_int(st, 0);
	r->key = (const char *)sqlite3_column_text(st, 1);
	r->name = (const char *)sqlite3_column_text(st, 2);
	r->dtype = (const char *)sqlite3_column_text(st, 3);
	r->cls = (const char *)sqlite3_column_text(st, 4);
	r->case_id = sqlite3_column_int64(st, 5);
	r->status = (const char *)sqlite3_column_text(st, 6);
	r->reason = (const char *)sqlite3_column_text(st, 7);
	r->detail = (const char *)sqlite3_column_text(st, 8);
	r->score = sqlite3_column_double(st, 9);
	r->native_inaccurate = sqlite3_column_int(st, 10);
	r->has_first = sqlite3_column_type(st, 11) != SQLITE_NULL;
	r->cand_first_ms = sqlite3_column_double(st, 11);
	r->cand_steady_ms = sqlite3_column_double(st, 12);
	r->has_ladder = sqlite3_column_type(st, 13) != SQLITE_NULL;
	r->ladder_value = sqlite3_column_double(st, 13);
	r->ladder_budget_ms = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 :
	    sqlite3_column_double(st, 14);
	r->severity = (const char *)sqlite3_column_text(st, 15);
	r->carried_run = sqlite3_column_int64(st, 16);
	r->has_speed = sqlite3_column_type(st, 17) != SQLITE_NULL &&
	    sqlite3_column_type(st, 18) != SQLITE_NULL;
	r->speed_native_ms = sqlite3_column_double(st, 17);
	r->speed_cand_ms = sqlite3_column_double(st, 18);
	r->nondeterministic = sqlite3_column_int(st, 19);
	return 1;
}

int
store_verdict_add(struct store *s, const struct store_verdict *v)
{
	sqlite3_stmt	*st;
	int		 rc, m;

	if ((st = store_stmt(s, "INSERT INTO verdicts (run_id, device, key, "
	    "name, dtype, verdict, reason, class, detail, evidence_case, cases, "
	    "passed, first_call_ms, steady_ms, severity, n_critical, n_loud, "
	    "n_numerics, carried_from, speed_ratio, speed_cases, "
	    "compile_verdict, compile_reason, compile_detail, compile_severity, "
	    "compile_case, cudagraph_verdict, cudagraph_reason, "
	    "cudagraph_detail, cudagraph_severity, cudagraph_case, "
	    "nondeterministic) VALUES "
	    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"))
	    ==
	    NULL)
		return -1;
	sqlite3_bind_int64(st, 1, v->run);
	sqlite3_bind_int(st, 2, v->device);
	sqlite3_bind_text(st, 3, v->key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, v->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, v->dtype, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, v->verdict, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, v->reason, -1, SQLITE_TRANSIENT);
	if (v->cls != NULL)
		sqlite3_bind_text(st, 8, v->cls, -1, SQLITE_TRANSIENT);
	if (v->detail != NULL)
		sqlite3_bind_text(st, 9, v->detail, -1, SQLITE_TRANSIENT);
	if (v->evidence_case > 0)
		sqlite3_bind_int64(st, 10, v->evidence_case);
	sqlite3_bind_int(st, 11, v->cases);
	sqlite3_bind_int(st, 12, v->passed);
	if (v->first_call_ms >= 0)
		sqlite3_bind_double(st, 13, v->first_call_ms);
	if (v->steady_ms >= 0)
		sqlite3_bind_double(st, 14, v->steady_ms);
	sqlite3_bind_text(st, 15, v->severity ? v->severity : "", -1,
	    SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 16, v->n_critical);
	sqlite3_bind_int(st, 17, v->n_loud);
	sqlite3_bind_int(st, 18, v->n_numerics);
	if (v->carried_from > 0)
		sqlite3_bind_int64(st, 19, v->carried_from);
	if (v->speed_ratio >= 0)
		sqlite3_bind_double(st, 20, v->speed_ratio);
	sqlite3_bind_int(st, 21, v->speed_cases);
	for (m = 0; m < 2; m++) {
		const struct store_mode_verdict	*mv = &v->mode[m];

		if (mv->verdict == NULL)
			continue;	/* NULLs: not screened in the mode */
		sqlite3_bind_text(st, 22 + 5 * m, mv->verdict, -1,
		    SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 23 + 5 * m, mv->reason ? mv->reason : "",
		    -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 24 + 5 * m, mv->detail ? mv->detail : "",
		    -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 25 + 5 * m, mv->severity ? mv->severity :
		    "", -1, SQLITE_TRANSIENT);
		if (mv->evidence_case > 0)
			sqlite3_bind_int64(st, 26 + 5 * m, mv->evidence_case);
	}
	sqlite3_bind_int(st, 32, v->nondeterministic);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	return rc;
}
