/*
 * store_case.c: the entries, cases and results of a run: storing a run's
 * cases and their outcomes, skipping cases, the queue order of a device's
 * pending cases, and what a re-screen or a resumed run reads back (earlier
 * skips and shrinks, a device's accounts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"
#include "util.h"

static void
bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v != NULL)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int
step_done(sqlite3_stmt *st)
{
	int	 rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_entry_add(struct store *s, int64_t run, const char *key,
    const char *name, const char *schema, int screened)
{
	sqlite3_stmt	*st;

	if ((st = store_stmt(s, "INSERT OR IGNORE INTO entries (run_id, key, "
	    "name, schema, screened) VALUES (?,?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, schema ? schema : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 5, screened);
	return step_done(st);
}

/* The source digest of key as device's runner reported it (NULL: none). */
int
store_source_add(struct store *s, int64_t run, int device, const char *key,
    const char *source)
{
	sqlite3_stmt	*st;

	if ((st = store_stmt(s, "INSERT OR REPLACE INTO sources (run_id, device, "
	    "key, source) VALUES (?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_text(st, 3, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, source ? source : "", -1, SQLITE_TRANSIENT);
	return step_done(st);
}

int
store_case_add(struct store *s, int64_t run, int device, const char *key,
    const char *name, const char *cls, const char *dtype, const char *spec)
{
	sqlite3_stmt	*st;

	if ((st = store_stmt(s, "INSERT INTO cases (run_id, device, key, name, "
	    "class, dtype, spec) VALUES (?,?,?,?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_text(st, 3, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, cls, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, dtype, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, spec, -1, SQLITE_TRANSIENT);
	return step_done(st);
}

/* Case id's spec (the caller's) and, when asked, its attempt; NULL if none. */
json_t *
store_case_spec(struct store *s, int64_t id, int *attempt)
{
	sqlite3_stmt	*st;
	json_t		*spec = NULL;
	json_error_t	 jerr;

	if (sqlite3_prepare_v2(store_db(s), "SELECT spec, attempt FROM cases "
	    "WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		spec = json_loads((const char *)sqlite3_column_text(st, 0), 0,
		    &jerr);
		if (attempt != NULL)
			*attempt = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return spec;
}

/* Case id's spec as stored (the caller frees it); NULL if none. */
char *
store_case_spec_text(struct store *s, int64_t id)
{
	sqlite3_stmt	*st;
	char		*spec = NULL;

	if (sqlite3_prepare_v2(store_db(s), "SELECT spec FROM cases WHERE id=?",
	    -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
		spec = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return spec;
}

/* A text column of case id into buf; 0, or -1 when it is not stored. */
static int
case_text(struct store *s, const char *sql, int64_t id, char *buf, size_t len)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if ((st = store_stmt(s, sql)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	}
	sqlite3_reset(st);
	return rc;
}

int
store_case_dtype(struct store *s, int64_t id, char *dtype, size_t len)
{
	return case_text(s, "SELECT dtype FROM cases WHERE id=?", id, dtype,
	    len);
}

int
store_case_state(struct store *s, int64_t id, char *state, size_t len)
{
	return case_text(s, "SELECT state FROM cases WHERE id=?", id, state,
	    len);
}

/* Case id's key and dtype; 0, or -1 when it is not stored. */
int
store_case_key_dtype(struct store *s, int64_t id, char *key, size_t klen,
    char *dtype, size_t dlen)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(store_db(s), "SELECT key, dtype FROM cases "
	    "WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(key, klen, "%s", sqlite3_column_text(st, 0));
		snprintf(dtype, dlen, "%s", sqlite3_column_text(st, 1));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_case_set_state(struct store *s, int64_t id, const char *state)
{
	sqlite3_stmt	*st;

	if ((st = store_stmt(s, "UPDATE cases SET state=? WHERE id=?")) == NULL)
		return -1;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	return step_done(st);
}

/* A degenerate case regenerated: its new spec, one attempt more. */
int
store_case_reseed(struct store *s, int64_t id, const char *spec)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE cases SET spec=?, "
	    "attempt=attempt+1 WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, spec, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	return store_step_once(st);
}

/* Whether cases a and b are of one key, dtype and device (0 on an error). */
int
store_cases_same_key_dtype(struct store *s, int64_t a, int64_t b)
{
	sqlite3_stmt	*st;
	int		 same = 0;

	if (sqlite3_prepare_v2(store_db(s), "SELECT count(*) FROM cases x, "
	    "cases y WHERE x.id=? AND y.id=? AND x.key=y.key AND "
	    "x.dtype=y.dtype AND x.device=y.device", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	if (sqlite3_step(st) == SQLITE_ROW)
		same = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return same;
}

/*
 * store_cases_skip()'s WHERE clause: its struct case_filter as bound
 * parameters ?1..?4 and ?8..?14 (skip_prepare), ?5..?7 left to the
 * statement.
 */
#define SKIP_WHERE \
	"run_id=?1 AND device=?2 AND key=?3 AND (?4 IS NULL OR dtype=?4) AND " \
	"state='pending' AND id NOT IN (SELECT value FROM json_each(?8)) AND " \
	"(?9 IS NULL OR class = ?9) AND (?10 IS NULL OR class != ?10) AND " \
	"(?11 = 0 OR id = ?11) AND (?12 = 0 OR spec IN (SELECT p.spec FROM " \
	"cases p JOIN results pr ON pr.case_id = p.id WHERE p.run_id=?12 AND " \
	"p.device=?2 AND p.key=?3 AND p.state='skipped' AND pr.reason IN " \
	"(?13, ?14)))"

/* Prepares sql and binds the parameters of SKIP_WHERE. */
static sqlite3_stmt *
skip_prepare(struct store *s, const char *sql, int64_t run,
    const struct case_filter *f, const char *busy)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, f->device);
	bind_text_or_null(st, 3, f->key);
	bind_text_or_null(st, 4, f->dtype);
	sqlite3_bind_text(st, 8, busy, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 9, f->cls);
	bind_text_or_null(st, 10, f->not_cls);
	sqlite3_bind_int64(st, 11, f->id);
	sqlite3_bind_int64(st, 12, f->like_run);
	bind_text_or_null(st, 13, f->like_reasons[0]);
	bind_text_or_null(st, 14, f->like_reasons[1]);
	return st;
}

/*
 * Records the pending cases of run that f takes, but for the nbusy cases
 * in busy, as skipped with reason and detail: a result each, their state.
 * Returns how many, -1 when the store refused (in the caller's
 * transaction: it rolls back).
 */
int
store_cases_skip(struct store *s, int64_t run, const struct case_filter *f,
    const int64_t *busy, size_t nbusy, const char *reason, const char *detail,
    double created)
{
	sqlite3_stmt	*st;
	json_t		*a;
	char		*js;
	size_t		 i;
	int		 n = -1;

	if ((a = json_array()) == NULL)
		return -1;
	for (i = 0; i < nbusy; i++)
		json_array_append_new(a, json_integer(busy[i]));
	js = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	if (js == NULL)
		return -1;
	if ((st = skip_prepare(s, "INSERT INTO results (case_id, status, "
	    "reason, detail, created) SELECT id, 'skipped', ?5, ?6, ?7 FROM "
	    "cases WHERE " SKIP_WHERE, run, f, js)) == NULL)
		goto done;
	sqlite3_bind_text(st, 5, reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, detail, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 7, created);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		goto done;
	}
	n = sqlite3_changes(store_db(s));
	sqlite3_finalize(st);
	if ((st = skip_prepare(s, "UPDATE cases SET state='skipped' WHERE "
	    SKIP_WHERE, run, f, js)) == NULL || sqlite3_step(st) != SQLITE_DONE)
		n = -1;
	sqlite3_finalize(st);
 done:
	free(js);
	return n;
}

/*
 * The keys that the newest complete run of this library (fingerprint_id)
 * on device screened, among the runs other than run that recorded
 * `setting` equal to budget in their run_complete event (setting NULL: any
 * run), whose cases that run skipped with one of the reasons like (not
 * counting compile cases): an array of [key, that run's id], or NULL on
 * an error.
 */
json_t *
store_prior_skips(struct store *s, int64_t run, int device,
    int64_t fingerprint_id, double budget, const char *const like[2],
    const char *setting)
{
	sqlite3_stmt	*st;
	json_t		*keys;
	int		 k, rc;

	if (sqlite3_prepare_v2(store_db(s), "WITH prior AS (SELECT r.id FROM "
	    "runs r JOIN run_devices d ON d.run_id = r.id WHERE r.state = "
	    "'complete' AND r.id != ?1 AND d.device = ?2 AND d.fingerprint_id "
	    "= ?3 AND (?7 IS NULL OR EXISTS (SELECT 1 FROM events e WHERE "
	    "e.run_id = r.id AND e.kind = 'run_complete' AND "
	    "json_extract(e.json, '$.' || ?7) = ?4))), "
	    "latest AS (SELECT c.key, max(c.run_id) AS run FROM cases c WHERE "
	    "c.run_id IN prior AND c.device = ?2 GROUP BY c.key) SELECT l.key, "
	    "l.run FROM latest l WHERE EXISTS (SELECT 1 FROM cases p JOIN "
	    "results pr ON pr.case_id = p.id WHERE p.run_id = l.run AND p.state "
	    "= 'skipped' AND p.device = ?2 AND p.key = l.key AND p.class != "
	    "'compile' AND pr.reason IN (?5, ?6))", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, fingerprint_id);
	sqlite3_bind_double(st, 4, budget);
	for (k = 0; k < 2; k++)
		if (like[k] != NULL)
			sqlite3_bind_text(st, 5 + k, like[k], -1,
			    SQLITE_TRANSIENT);
	if (setting != NULL)
		sqlite3_bind_text(st, 7, setting, -1, SQLITE_TRANSIENT);
	keys = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(keys, json_pack("[sI]", (const char *)
		    sqlite3_column_text(st, 0), (json_int_t)
		    sqlite3_column_int64(st, 1)));
	sqlite3_finalize(st);
	return keys;
}

/*
 * The pending cases of run on device in the order the queues take them:
 * round-robin over keys (the i-th case of every key before the (i+1)-th of
 * any), a key's dtypes in blocks and within a dtype the classes in turn;
 * compile ladders largest step first.
 */
struct store_cursor *
store_queue_cursor(struct store *s, int64_t run, int device)
{
	struct store_cursor	*c;
	sqlite3_stmt		*st;

	if ((c = store_cursor_new(s, "SELECT id, class='compile' "
	    "OR coalesce(json_extract(spec, '$.huge'), 0), key, class='compile' "
	    "FROM (SELECT id, key, "
	    "class, spec, CASE WHEN class='compile' THEN row_number() OVER "
	    "(PARTITION BY key, dtype, class ORDER BY coalesce(json_extract(spec,"
	    " '$.ladder.value'), 0) DESC, id) ELSE row_number() OVER (PARTITION "
	    "BY key ORDER BY dfirst, ck, cfirst, id) END AS rk FROM (SELECT id, "
	    "key, class, dtype, spec, min(id) OVER (PARTITION BY key, dtype) AS "
	    "dfirst, min(id) OVER (PARTITION BY key, dtype, class) AS cfirst, "
	    "row_number() OVER (PARTITION BY key, dtype, class ORDER BY id) AS ck "
	    "FROM cases WHERE run_id=? AND device=? AND state='pending')) ORDER "
	    "BY rk, key")) == NULL)
		return NULL;
	st = store_cursor_stmt(c);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	return c;
}

/* The next case of the queue order: 1 a case, 0 the end. */
int
store_queue_next(struct store_cursor *c, struct store_queued *q)
{
	sqlite3_stmt	*st = store_cursor_stmt(c);

	if (sqlite3_step(st) != SQLITE_ROW)
		return 0;
	q->id = sqlite3_column_int64(st, 0);
	q->compile_runner = sqlite3_column_int(st, 1);
	q->key = (const char *)sqlite3_column_text(st, 2);
	q->compile = sqlite3_column_int(st, 3);
	return 1;
}

/* A case's outcome (replacing one stored before). */
int
store_result_add(struct store *s, const struct store_result *r)
{
	sqlite3_stmt	*st;
	int		 i;

	if ((st = store_stmt(s, "INSERT OR REPLACE INTO results (case_id, "
	    "status, reason, detail, score, native_inaccurate, figures, "
	    "stderr_tail, repro, cand_first_ms, cand_steady_ms, native_ms, "
	    "created, severity, repro_inputs) VALUES "
	    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, r->case_id);
	sqlite3_bind_text(st, 2, r->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->detail, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, r->score);
	sqlite3_bind_int(st, 6, r->native_inaccurate);
	if (r->figures)
		sqlite3_bind_text(st, 7, r->figures, -1, SQLITE_STATIC);
	if (r->errtail && *r->errtail)
		sqlite3_bind_text(st, 8, r->errtail, -1, SQLITE_STATIC);
	if (r->repro)
		sqlite3_bind_text(st, 9, r->repro, -1, SQLITE_STATIC);
	for (i = 0; i < 3; i++)
		if (r->ms[i] >= 0)
			sqlite3_bind_double(st, 10 + i, r->ms[i]);
	sqlite3_bind_double(st, 13, r->created);
	sqlite3_bind_text(st, 14, r->severity ? r->severity : "", -1,
	    SQLITE_STATIC);
	if (r->repro && r->repro_inputs)
		sqlite3_bind_text(st, 15, r->repro_inputs, -1, SQLITE_STATIC);
	return step_done(st);
}

/* What shrinking case_id found (NULL: keep the stored spec or repro). */
int
store_result_shrink(struct store *s, int64_t case_id, int runs,
    const char *shrunk_spec, const char *repro, const char *inputs, double ms,
    double cand_ms)
{
	sqlite3_stmt	*st;

	/* a repro comes with its inputs file's text (NULL: it has none) */
	if (sqlite3_prepare_v2(store_db(s), "UPDATE results SET "
	    "shrink_runs=?1, shrunk_spec=coalesce(?2, shrunk_spec), "
	    "repro=coalesce(?3, repro), shrink_ms=?4, shrink_cand_ms=?5, "
	    "repro_inputs=CASE WHEN ?3 IS NULL THEN repro_inputs ELSE ?7 END "
	    "WHERE case_id=?6", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, runs);
	if (shrunk_spec != NULL)
		sqlite3_bind_text(st, 2, shrunk_spec, -1, SQLITE_TRANSIENT);
	if (repro != NULL)
		sqlite3_bind_text(st, 3, repro, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 4, ms);
	sqlite3_bind_double(st, 5, cand_ms);
	sqlite3_bind_int64(st, 6, case_id);
	if (inputs != NULL)
		sqlite3_bind_text(st, 7, inputs, -1, SQLITE_TRANSIENT);
	return store_step_once(st);
}

/* Case `from`'s shrink as case_id's (repro NULL: keep the stored one). */
int
store_result_reuse(struct store *s, int64_t case_id, int64_t from,
    const char *shrunk_spec, const char *repro, const char *inputs)
{
	sqlite3_stmt	*st;

	/* a repro comes with its inputs file's text (NULL: it has none) */
	if (sqlite3_prepare_v2(store_db(s), "UPDATE results SET "
	    "shrunk_spec=?1, repro=coalesce(?2, repro), shrink_from=?3, "
	    "repro_inputs=CASE WHEN ?2 IS NULL THEN repro_inputs ELSE ?5 END "
	    "WHERE case_id=?4", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (shrunk_spec != NULL)
		sqlite3_bind_text(st, 1, shrunk_spec, -1, SQLITE_TRANSIENT);
	if (repro != NULL)
		sqlite3_bind_text(st, 2, repro, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, case_id);
	if (inputs != NULL)
		sqlite3_bind_text(st, 5, inputs, -1, SQLITE_TRANSIENT);
	return store_step_once(st);
}

/*
 * The failing cases that complete runs of the library run recorded for
 * device shrank (or reused a shrink for): an object spec -> {"reason",
 * "case" (the case whose shrink it is), "shrunk", "repro"}, or NULL on an
 * error.
 */
json_t *
store_shrinks_prior(struct store *s, int64_t run, int device)
{
	sqlite3_stmt	*st;
	json_t		*prior;

	if (sqlite3_prepare_v2(store_db(s), "SELECT c.spec, r.reason, "
	    "r.shrunk_spec, r.repro, coalesce(r.shrink_from, c.id), "
	    "max(c.run_id), r.repro_inputs FROM cases c JOIN results r ON r.case_id = c.id JOIN "
	    "run_devices d ON d.run_id = c.run_id AND d.device = c.device JOIN "
	    "runs u ON u.id = c.run_id WHERE u.state = 'complete' AND c.device "
	    "= ?2 AND c.run_id != ?1 AND d.fingerprint_id = (SELECT "
	    "fingerprint_id FROM run_devices WHERE run_id = ?1 AND device = ?2) "
	    "AND r.status = 'fail' AND (r.shrink_runs > 0 OR r.shrink_from IS "
	    "NOT NULL) GROUP BY c.spec", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	prior = json_object();
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t	*e = json_pack("{ss sI}", "reason", (const char *)
		    sqlite3_column_text(st, 1), "case", (json_int_t)
		    sqlite3_column_int64(st, 4));

		if (e == NULL)
			continue;
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			json_object_set_new(e, "shrunk", json_string((const char *)
			    sqlite3_column_text(st, 2)));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			json_object_set_new(e, "repro", json_string((const char *)
			    sqlite3_column_text(st, 3)));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			json_object_set_new(e, "inputs", json_string((const char *)
			    sqlite3_column_text(st, 6)));
		json_object_set_new(prior, (const char *)sqlite3_column_text(st,
		    0), e);
	}
	sqlite3_finalize(st);
	return prior;
}

/*
 * The cases of run to shrink after its lists (runner.shrink_after): the
 * evidence of its verdicts (eager, compile, cudagraph) that failed and is
 * neither carried, shrunk nor an earlier run's shrink taken (whether it may
 * be shrunk at all is shrinkrun.c's rule).  An array of {"case", "device",
 * "key", "spec" (the stored text), "reason", "fatal"} in device, key and
 * case order, or NULL on an error.
 */
json_t *
store_shrink_pending(struct store *s, int64_t run)
{
	sqlite3_stmt	*st;
	json_t		*out;

	if (sqlite3_prepare_v2(store_db(s), "SELECT DISTINCT c.id, c.device, "
	    "c.key, c.spec, r.reason, coalesce(json_extract(r.figures, "
	    "'$.fatal'), 0) FROM verdicts v JOIN cases c ON c.id IN "
	    "(v.evidence_case, v.compile_case, v.cudagraph_case) JOIN results r "
	    "ON r.case_id = c.id WHERE v.run_id = ?1 AND c.run_id = ?1 AND "
	    "r.status = 'fail' AND r.shrink_runs = 0 AND r.shrink_from IS NULL "
	    "AND r.carried_from IS NULL ORDER BY c.device, c.key, c.id", -1,
	    &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	out = json_array();
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(out, json_pack("{sI si ss ss ss sb}",
		    "case", (json_int_t)sqlite3_column_int64(st, 0), "device",
		    sqlite3_column_int(st, 1), "key", (const char *)
		    sqlite3_column_text(st, 2), "spec", (const char *)
		    sqlite3_column_text(st, 3), "reason", (const char *)
		    sqlite3_column_text(st, 4), "fatal",
		    sqlite3_column_int(st, 5) != 0));
	if (sqlite3_finalize(st) != SQLITE_OK) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/*
 * The key x dtype x class x severities of run on device with a failing
 * case: an array of {"key", "dtype", "class", "severity", "id" (the first
 * failing case of that severity)}, or NULL on an error.
 */
json_t *
store_failed_classes(struct store *s, int64_t run, int device)
{
	sqlite3_stmt	*st;
	json_t		*a;

	if (sqlite3_prepare_v2(store_db(s), "SELECT c.key, c.dtype, "
	    "c.class, min(c.id), r.severity FROM results r JOIN cases c ON "
	    "c.id = r.case_id WHERE c.run_id=? AND c.device=? AND r.status = "
	    "'fail' GROUP BY c.key, c.dtype, c.class, r.severity", -1, &st,
	    NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	a = json_array();
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:I,s:s}", "key",
		    (const char *)sqlite3_column_text(st, 0), "dtype",
		    (const char *)sqlite3_column_text(st, 1), "class",
		    (const char *)sqlite3_column_text(st, 2), "id",
		    (json_int_t)sqlite3_column_int64(st, 3), "severity",
		    (const char *)sqlite3_column_text(st, 4)));
	sqlite3_finalize(st);
	return a;
}

/*
 * Per key of run's stored results on device: the candidate milliseconds
 * runner.key_budget charges (first calls and shrinks, no compile-ladder
 * steps) and the worst score of a failure that was up for shrinking.  An
 * array of {"key", "ms"?, "worst"?} (absent: NULL in the store), or NULL
 * on an error.
 */
json_t *
store_key_accounts(struct store *s, int64_t run, int device)
{
	sqlite3_stmt	*st;
	json_t		*a, *e;
	const char	*key;

	if (sqlite3_prepare_v2(store_db(s), "SELECT c.key, "
	    "sum(CASE WHEN c.class != 'compile' THEN coalesce(CASE WHEN "
	    "r.cand_first_ms > 0 THEN r.cand_first_ms END, 0) + r.shrink_cand_ms "
	    "END), max(CASE WHEN r.status = 'fail' AND NOT "
	    "coalesce(json_extract(c.spec, '$.huge'), 0) AND NOT "
	    "coalesce(json_extract(r.figures, '$.fatal'), 0) THEN r.score END) "
	    "FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id=? "
	    "AND c.device=? GROUP BY c.key", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	a = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		if ((key = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		e = json_pack("{ss}", "key", key);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			json_object_set_new(e, "ms", json_real(
			    sqlite3_column_double(st, 1)));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			json_object_set_new(e, "worst", json_real(
			    sqlite3_column_double(st, 2)));
		json_array_append_new(a, e);
	}
	sqlite3_finalize(st);
	return a;
}
