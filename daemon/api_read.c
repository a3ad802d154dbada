/*
 * api_read.c: the store read as JSON for the dashboard and tools: runs and
 * their progress, a screen's verdicts (since when each holds), a name's
 * cases and history, one case, two screens side by side, a run's findings
 * so far, the regression events. Read-only SELECTs on the API thread's own
 * connection (store_reader).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "repro.h"

static void	 run_compile_bound(sqlite3 *, int64_t, json_t *);

/* ---- runs, ops -------------------------------------------------------------- */

static json_t *
row_object(sqlite3_stmt *st)
{
	json_t		*o = json_object();
	int		 i, n = sqlite3_column_count(st);
	const char	*name;
	json_error_t	 jerr;

	for (i = 0; i < n; i++) {
		name = sqlite3_column_name(st, i);
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			json_object_set_new(o, name, json_integer(
			    sqlite3_column_int64(st, i)));
			break;
		case SQLITE_FLOAT:
			json_object_set_new(o, name, json_real(
			    sqlite3_column_double(st, i)));
			break;
		case SQLITE_NULL:
			json_object_set_new(o, name, json_null());
			break;
		default:
			if (!strcmp(name, "request") || !strcmp(name, "figures") ||
			    !strcmp(name, "spec") || !strcmp(name, "shrunk_spec") ||
			    !strcmp(name, "fingerprint")) {
				json_t	*j = json_loads((const char *)
				    sqlite3_column_text(st, i), 0, &jerr);

				json_object_set_new(o, name, j ? j : json_null());
			} else
				json_object_set_new(o, name, json_string(
				    (const char *)sqlite3_column_text(st, i)));
		}
	}
	return o;
}

/* the rows of a prepared and bound statement, at most `limit`; finalizes it */
static json_t *
rows_of(sqlite3_stmt *st, int limit)
{
	json_t	*arr = json_array();
	int	 n = 0;

	while (sqlite3_step(st) == SQLITE_ROW && n++ < limit)
		json_array_append_new(arr, row_object(st));
	sqlite3_finalize(st);
	return arr;
}

static json_t *
query_rows(sqlite3 *db, const char *sql, int64_t a, const char *s, int limit)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (a)
		sqlite3_bind_int64(st, 1, a);
	if (s)
		sqlite3_bind_text(st, a ? 2 : 1, s, -1, SQLITE_TRANSIENT);
	return rows_of(st, limit);
}

/* rows of `sql` with ?1 = a and ?2 = b, both integers */
static json_t *
query_rows2(sqlite3 *db, const char *sql, int64_t a, int64_t b, int limit)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	return rows_of(st, limit);
}

/* the library and version a run screened (its first device's fingerprint) */
#define RUN_LIBRARY	"(SELECT f.library FROM run_devices d JOIN " \
	"fingerprints f ON f.id = d.fingerprint_id WHERE d.run_id = runs.id " \
	"ORDER BY d.device LIMIT 1) AS library, (SELECT f.library_version FROM " \
	"run_devices d JOIN fingerprints f ON f.id = d.fingerprint_id WHERE " \
	"d.run_id = runs.id ORDER BY d.device LIMIT 1) AS library_version"

enum MHD_Result
serve_runs(struct MHD_Connection *c, const char *rest)
{
	static const char	*list[] = { "limit", NULL }, *none[] = { NULL };
	sqlite3			*db;
	json_t			*rows, *run, *p;
	int64_t			 id, limit = 100;
	char			 bad[128];
	const char		*v;
	int			 one = rest != NULL && *rest != '\0';

	if (query_unknown(c, one ? none : list, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'%s", bad,
		    one ? "" : " (known: limit)");
	if (!one && (v = arg(c, "limit")) != NULL && (parse_id(v, &limit) == -1 ||
	    limit > 1000))
		return send_error(c, 400, "limit must be an integer 1..1000");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if (!one) {
		rows = query_rows(db, "SELECT id, state, request, full, created, "
		    "started, finished, total, done, error, " RUN_LIBRARY " FROM "
		    "runs ORDER BY id DESC", 0, NULL, (int)limit);
		if (rows == NULL)
			return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
		return send_json(c, 200, json_pack("{so}", "runs", rows));
	}
	if (parse_id(rest, &id) == -1)
		return send_error(c, 400, "run id must be a positive integer");
	rows = query_rows(db, "SELECT id, state, request, full, created, started, "
	    "finished, total, done, error, " RUN_LIBRARY " FROM runs WHERE id=?", id, NULL, 1);
	if (rows == NULL)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	if (json_array_size(rows) == 0) {
		json_decref(rows);
		return send_error(c, 404, "no run %lld", (long long)id);
	}
	run = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	json_object_set_new(run, "devices", query_rows(db, "SELECT d.device, "
	    "f.json AS fingerprint FROM run_devices d LEFT JOIN fingerprints f ON "
	    "f.id = d.fingerprint_id WHERE d.run_id=?", id, NULL, MAX_DEVICES));
	json_object_set_new(run, "cases_by_status", query_rows(db, "SELECT "
	    "r.status, count(*) AS n FROM cases c JOIN results r ON r.case_id = "
	    "c.id WHERE c.run_id=? GROUP BY r.status", id, NULL, 32));
	json_object_set_new(run, "verdicts", query_rows(db, "SELECT verdict, "
	    "count(*) AS n FROM verdicts WHERE run_id=? GROUP BY verdict", id,
	    NULL, 8));
	/* cases whose results were carried from an earlier screen */
	{
		json_t	*n = query_rows(db, "SELECT count(*) AS n FROM cases c "
		    "JOIN results r ON r.case_id = c.id WHERE c.run_id=? AND "
		    "r.carried_from IS NOT NULL", id, NULL, 1);

		json_object_set_new(run, "carried", json_integer(
		    json_integer_value(json_object_get(json_array_get(n, 0),
		    "n"))));
		json_decref(n);
	}
	/* lost cases run again alone (alone.c): lost again, or not */
	{
		json_t	*a = store_alone_counts(db, id);

		if (a == NULL) {
			json_decref(run);
			return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
		}
		json_object_set_new(run, "alone", a);
	}
	run_compile_bound(db, id, run);
	if ((p = sched_progress()) != NULL &&
	    json_integer_value(json_object_get(p, "run")) == id)
		json_object_set(run, "progress", p);
	json_decref(p);
	if (json_object_get(run, "total") && json_integer_value(json_object_get(run,
	    "total")) > 0)
		json_object_set_new(run, "percent", json_real(100.0 *
		    json_integer_value(json_object_get(run, "done")) /
		    json_integer_value(json_object_get(run, "total"))));
	return send_json(c, 200, run);
}

/*
 * A cold screen is bound by its compiles: the Triton compile() wall its
 * first calls spent (RESULT first_call_cost.jit_ms, the runs' own
 * measurements, carried ones not counted) over the CPUs the daemon had
 * when the run completed is the time no schedule of the same work can
 * beat. Beside the run wall: "compile", for a complete run only. The
 * writer sums the figures once, into the run's run_complete event
 * (run.c); a run completed before it did is summed here, from every
 * result's figures (0.4-3 s for a whole-table screen on a GPU host).
 */
static void
run_compile_bound(sqlite3 *db, int64_t id, json_t *run)
{
	sqlite3_stmt	*st;
	double		 compile_s = 0, wall;
	int		 firsts = 0, cores = 0, have = 0;
	json_t		*o, *f, *s;

	if (!json_is_string(json_object_get(run, "state")) ||
	    strcmp(json_string_value(json_object_get(run, "state")), "complete"))
		return;
	if (sqlite3_prepare_v2(db, "SELECT json_extract(e.json, '$.cores'), "
	    "json_extract(e.json, '$.compile_s'), json_extract(e.json, "
	    "'$.first_calls') FROM events e WHERE e.run_id = ? AND e.kind = "
	    "'run_complete' ORDER BY e.id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		cores = sqlite3_column_int(st, 0);
		if ((have = sqlite3_column_type(st, 1) != SQLITE_NULL)) {
			compile_s = sqlite3_column_double(st, 1);
			firsts = sqlite3_column_int(st, 2);
		}
	}
	sqlite3_finalize(st);
	if (!have && store_run_compile(db, id, &compile_s, &firsts) == -1)
		return;
	/* no first call measured a compile */
	if (firsts == 0)
		return;
	if (cores < 1)
		cores = cpu_count();
	if (cores < 1)
		cores = 1;
	o = json_pack("{sf si si sf}", "compile_s", compile_s,
	    "first_calls", firsts, "cores", cores, "bound_s",
	    compile_s / cores);
	f = json_object_get(run, "finished");
	s = json_object_get(run, "started");
	if (json_is_number(f) && json_is_number(s) && compile_s > 0) {
		wall = json_number_value(f) - json_number_value(s);
		json_object_set_new(o, "wall_s", json_real(wall));
		json_object_set_new(o, "of_bound", json_real(wall /
		    (compile_s / cores)));
	}
	json_object_set_new(run, "compile", o);
}

static int64_t
latest_complete_run(sqlite3 *db)
{
	sqlite3_stmt	*st;
	int64_t		 id = 0;

	/* the newest full screen (what the lists serve), else any complete run */
	if (sqlite3_prepare_v2(db, "SELECT id FROM runs WHERE state='complete' "
	    "ORDER BY full DESC, id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/*
 * A verdict row and the first complete full screen of its current streak:
 * the newest run before it with another verdict for its key x dtype x
 * device bounds the streak, and the first run after that with this verdict
 * starts it (the row's own run when it is not a full screen). With the
 * version that run screened and when it finished: "broken since 5.0.2".
 */
#define OPS_SINCE	"coalesce((SELECT min(h.run_id) FROM verdicts h JOIN " \
	"runs hr ON hr.id = h.run_id WHERE hr.state='complete' AND hr.full=1 " \
	"AND h.key=v.key AND h.dtype=v.dtype AND h.device=v.device AND " \
	"h.run_id <= v.run_id AND h.verdict=v.verdict AND h.run_id > " \
	"coalesce((SELECT max(x.run_id) FROM verdicts x JOIN runs xr ON xr.id " \
	"= x.run_id WHERE xr.state='complete' AND xr.full=1 AND x.key=v.key " \
	"AND x.dtype=v.dtype AND x.device=v.device AND x.run_id < v.run_id AND " \
	"x.verdict != v.verdict), 0)), v.run_id) AS since_run"
#define OPS_SINCE_OF	"(SELECT f.library_version FROM run_devices d JOIN " \
	"fingerprints f ON f.id = d.fingerprint_id WHERE d.run_id = q.since_run " \
	"AND d.device = q.device) AS since_version, (SELECT finished FROM runs " \
	"WHERE id = q.since_run) AS since_finished"

enum MHD_Result
serve_ops(struct MHD_Connection *c, const char *name)
{
	static const char	*allowed[] = { "run", "gpu", NULL };
	sqlite3			*db;
	json_t			*o, *side, *rows;
	int64_t			 run = 0;
	int			 gpu;
	char			 bad[128];
	const char		*v;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "run, gpu)", bad);
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if ((v = arg(c, "run")) != NULL) {
		if (parse_id(v, &run) == -1)
			return send_error(c, 400, "run must be a positive integer");
	} else if ((run = latest_complete_run(db)) <= 0)
		return send_error(c, 404, "no complete run yet");
	if ((side = regress_screen(db, run)) == NULL)
		return send_error(c, 404, "no run %lld", (long long)run);
	if (name == NULL || *name == '\0') {
		rows = query_rows2(db, "SELECT q.*, " OPS_SINCE_OF " FROM (SELECT "
		    "v.device, v.name, v.key, v.dtype, v.verdict, v.reason, "
		    "v.class, v.detail, v.evidence_case, v.cases, v.passed, "
		    "v.first_call_ms, v.steady_ms, v.severity, v.n_critical, "
		    "v.n_loud, v.n_numerics, v.carried_from, " OPS_SINCE " FROM "
		    "verdicts v WHERE v.run_id=?1 AND (?2 < -1 OR v.device=?2)) q "
		    "ORDER BY q.name, "
		    "q.key, q.dtype, q.device", run, gpu, 100000);
		if (rows == NULL) {
			json_decref(side);
			return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
		}
		o = json_pack("{sI so}", "run", (json_int_t)run, "verdicts", rows);
		json_object_del(side, "run");
		json_object_update(o, side);
		json_decref(side);
		return send_json(c, 200, o);
	}
	json_decref(side);
	if (strlen(name) > 128)
		return send_error(c, 400, "name too long");
	o = json_pack("{ss sI}", "name", name, "run", (json_int_t)run);
	json_object_set_new(o, "keys", query_rows(db, "SELECT key, schema, "
	    "screened FROM entries WHERE run_id=? AND name=? ORDER BY key", run,
	    name, 1000));
	json_object_set_new(o, "verdicts", query_rows(db, "SELECT q.*, "
	    OPS_SINCE_OF " FROM (SELECT v.device, v.key, v.dtype, v.verdict, "
	    "v.reason, v.class, v.detail, v.evidence_case, v.cases, v.passed, "
	    "v.first_call_ms, v.steady_ms, v.severity, v.n_critical, v.n_loud, "
	    "v.n_numerics, v.carried_from, v.compile_verdict, v.compile_reason, "
	    "v.compile_case, v.cudagraph_verdict, v.cudagraph_reason, "
	    "v.cudagraph_case, " OPS_SINCE " FROM verdicts v WHERE "
	    "v.run_id=? AND v.name=?) q ORDER BY q.key, q.dtype, q.device", run,
	    name, 10000));
	json_object_set_new(o, "cases", query_rows(db, "SELECT c.id, c.device, "
	    "c.key, c.class, c.dtype, r.status, r.reason, r.detail, r.severity, "
	    "r.cand_first_ms, r.cand_steady_ms, r.native_ms, "
	    "json_extract(c.spec, '$.ladder.param') AS ladder_param, "
	    "json_extract(c.spec, '$.ladder.value') AS ladder_value, "
	    "json_extract(c.spec, '$.ladder.budget_ms') AS budget_ms FROM cases c JOIN "
	    "results r ON r.case_id = c.id WHERE c.run_id=? AND c.name=? ORDER BY "
	    "c.id", run, name, 10000));
	json_object_set_new(o, "history", query_rows(db, "SELECT v.run_id AS "
	    "run, v.device, v.key, v.dtype, v.verdict, v.reason, v.severity, "
	    "(SELECT f.library_version FROM run_devices d JOIN fingerprints f ON "
	    "f.id = d.fingerprint_id WHERE d.run_id = v.run_id AND d.device = "
	    "v.device) AS library_version FROM verdicts v JOIN runs r ON r.id = "
	    "v.run_id WHERE r.state='complete' AND v.name=?2 AND v.run_id <= ?1 "
	    "ORDER BY v.run_id DESC, v.key, v.dtype", run, name, 10000));
	if (json_array_size(json_object_get(o, "keys")) == 0 &&
	    json_array_size(json_object_get(o, "verdicts")) == 0) {
		json_decref(o);
		return send_error(c, 404, "no name '%s' in run %lld", name,
		    (long long)run);
	}
	return send_json(c, 200, o);
}

/*
 * GET /cases/{id}/inputs: the inputs file a case's repro reads beside it
 * (base64 of torch.save'd tensors, db/012), as an attachment under the
 * name the repro reads.
 */
static enum MHD_Result
serve_case_inputs(struct MHD_Connection *c, sqlite3 *db, int64_t id)
{
	sqlite3_stmt	*st;
	char		*name = NULL, *body = NULL, disp[192];
	size_t		 len = 0;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT repro, repro_inputs FROM results "
	    "WHERE case_id=?", -1, &st, NULL) != SQLITE_OK)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_text(st, 1) != NULL) {
		len = (size_t)sqlite3_column_bytes(st, 1);
		name = repro_inputs_name((const char *)sqlite3_column_text(st, 0) ?:
		    "", (long long)id);
		if ((body = malloc(len + 1)) != NULL)
			memcpy(body, sqlite3_column_text(st, 1), len + 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		free(name);
		free(body);
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	}
	if (body == NULL || name == NULL) {
		free(name);
		free(body);
		return send_error(c, 404, "case %lld has no inputs file: its repro "
		    "holds its inputs, or it has none", (long long)id);
	}
	snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", name);
	free(name);
	return send_buf_hdr(c, 200, "text/plain; charset=us-ascii", body, len,
	    "Content-Disposition", disp);
}

enum MHD_Result
serve_case(struct MHD_Connection *c, const char *rest)
{
	static const char	*none[] = { NULL };
	sqlite3			*db;
	json_t			*rows;
	int64_t			 id;
	char			 bad[128], idbuf[24];
	const char		*sub = strchr(rest, '/');

	if (query_unknown(c, none, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'", bad);
	/* /cases/{id}/inputs */
	if (sub != NULL && (strcmp(sub, "/inputs") || (size_t)(sub - rest) >=
	    sizeof(idbuf)))
		return send_error(c, 404, "no such resource: /cases/%s (known: "
		    "/cases/{id}, /cases/{id}/inputs)", rest);
	if (sub != NULL) {
		snprintf(idbuf, sizeof(idbuf), "%.*s", (int)(sub - rest), rest);
		rest = idbuf;
	}
	if (parse_id(rest, &id) == -1)
		return send_error(c, 400, "case id must be a positive integer");
	if (sub != NULL) {
		if ((db = store_reader(env->conf.database)) == NULL)
			return send_error(c, 500, "store unavailable");
		return serve_case_inputs(c, db, id);
	}
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	rows = query_rows(db, "SELECT c.id, c.run_id AS run, c.device, c.key, "
	    "c.name, "
	    "c.class, c.dtype, c.spec, c.attempt, c.state, r.status, r.reason, "
	    "r.detail, r.score, r.native_inaccurate, r.figures, r.stderr_tail, "
	    "r.repro, r.cand_first_ms, r.cand_steady_ms, r.native_ms, "
	    "r.shrunk_spec, r.shrink_runs, r.shrink_ms, r.shrink_cand_ms, "
	    "r.shrink_from, r.severity, r.carried_from, CASE WHEN "
	    "r.repro_inputs IS NULL THEN NULL ELSE '/cases/' || c.id || "
	    "'/inputs' END AS repro_inputs FROM cases c "
	    "LEFT JOIN results r ON r.case_id = c.id WHERE c.id=?", id, NULL, 1);
	if (rows == NULL || json_array_size(rows) == 0) {
		json_decref(rows);
		return send_error(c, 404, "no case %lld", (long long)id);
	}
	{
		json_t	*o = json_incref(json_array_get(rows, 0));

		json_decref(rows);
		return send_json(c, 200, o);
	}
}

/*
 * Two screens side by side: every key x dtype x device whose verdict or
 * severity moved between `from` and `to` (regress_diff). Without them, the
 * newest full screen against the newest one of another fingerprint.
 */
enum MHD_Result
serve_diff(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "from", "to", "gpu", NULL };
	sqlite3			*db;
	json_t			*o;
	int64_t			 from = 0, to = 0;
	int			 gpu, rc;
	char			 bad[128];
	const char		*v;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "from, to, gpu)", bad);
	if ((v = arg(c, "from")) != NULL && parse_id(v, &from) == -1)
		return send_error(c, 400, "from must be a run id");
	if ((v = arg(c, "to")) != NULL && parse_id(v, &to) == -1)
		return send_error(c, 400, "to must be a run id");
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if ((rc = regress_diff_default(db, &from, &to)) == -1)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	if (to == 0)
		return send_error(c, 404, "no complete run yet");
	if (from == 0)
		return send_error(c, 404, "one complete screen only (run %lld): "
		    "nothing to compare it with", (long long)to);
	if ((o = regress_diff(db, from, to, gpu)) == NULL) {
		json_t	*a = regress_screen(db, from);

		json_decref(a);
		return send_error(c, 404, "no run %lld", (long long)(a ? to :
		    from));
	}
	return send_json(c, 200, o);
}

/*
 * What a run has found so far, while it runs (verdicts come at its end):
 * its failing cases per key x dtype x device, the most severe first, each
 * with its worst case. A failure stored without a severity reads as
 * critical; a hazard (compile time, bootstrap) has none.
 */
#define FINDING_RANK	"CASE WHEN r.status='hazard' THEN 0 WHEN " \
	"r.severity='numerics' THEN 1 WHEN r.severity='loud' THEN 2 ELSE 3 END"

enum MHD_Result
serve_findings(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "run", "gpu", NULL };
	sqlite3			*db;
	json_t			*o, *rows, *side;
	int64_t			 run = 0;
	int			 gpu;
	char			 bad[128];
	const char		*v;
	sqlite3_stmt		*st;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "run, gpu)", bad);
	if ((v = arg(c, "run")) != NULL && parse_id(v, &run) == -1)
		return send_error(c, 400, "run must be a positive integer");
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	/* the run in progress, else the newest that started */
	if (run == 0 && sqlite3_prepare_v2(db, "SELECT id FROM runs WHERE state "
	    "!= 'queued' ORDER BY state = 'running' DESC, id DESC LIMIT 1", -1,
	    &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			run = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (run == 0)
		return send_error(c, 404, "no run has started yet");
	if ((side = regress_screen(db, run)) == NULL)
		return send_error(c, 404, "no run %lld", (long long)run);
	rows = query_rows2(db, "SELECT c.name, c.key, c.dtype, c.device, "
	    "count(*) AS failing, sum(r.status != 'hazard' AND r.severity IN "
	    "('critical', '')) AS n_critical, sum(r.severity='loud') AS n_loud, "
	    "sum(r.severity='numerics') AS n_numerics, max((" FINDING_RANK ") * "
	    "1e13 + min(r.score, 1e12)) AS rank, c.id AS evidence_case, "
	    "c.class, r.status, CASE WHEN r.status='hazard' THEN '' WHEN "
	    "r.severity='' THEN 'critical' ELSE r.severity END AS severity, "
	    "r.reason, r.detail FROM cases c JOIN results r ON r.case_id = c.id "
	    "WHERE c.run_id=?1 AND (?2 < -1 OR c.device=?2) AND r.status IN "
	    "('fail', 'timeout', 'crash', 'hazard') GROUP BY c.name, c.key, "
	    "c.dtype, c.device ORDER BY rank DESC, c.name, c.key, c.dtype", run,
	    gpu, 100000);
	if (rows == NULL) {
		json_decref(side);
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	}
	{
		json_t	*r;
		size_t	 i;

		json_array_foreach(rows, i, r)
			json_object_del(r, "rank");
	}
	o = json_pack("{so}", "findings", rows);
	json_object_update(o, side);
	json_decref(side);
	if (sqlite3_prepare_v2(db, "SELECT total, done FROM runs WHERE id=?", -1,
	    &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW) {
			json_object_set_new(o, "total", json_integer(
			    sqlite3_column_int64(st, 0)));
			json_object_set_new(o, "done", json_integer(
			    sqlite3_column_int64(st, 1)));
		}
		sqlite3_finalize(st);
	}
	return send_json(c, 200, o);
}

/*
 * Changes between consecutive full screens, oldest first. `since` is an event
 * id (exclusive), so a poller passes the last id it saw and never misses or
 * repeats one; `kind` narrows to regression, fix, new or vanished.
 */
enum MHD_Result
serve_regressions(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "since", "limit", "kind", NULL };
	sqlite3			*db;
	sqlite3_stmt		*st;
	json_t			*arr, *ev, *o;
	json_error_t		 jerr;
	const char		*v, *kind = NULL;
	char			 bad[128];
	int64_t			 since = 0, limit = 100, last = 0;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "since, limit, kind)", bad);
	if ((v = arg(c, "since")) != NULL && strcmp(v, "0") &&
	    parse_id(v, &since) == -1)
		return send_error(c, 400, "since must be an event id (a "
		    "non-negative integer)");
	if ((v = arg(c, "limit")) != NULL && (parse_id(v, &limit) == -1 ||
	    limit > 1000))
		return send_error(c, 400, "limit must be an integer 1..1000");
	if ((kind = arg(c, "kind")) != NULL && strcmp(kind, "regression") &&
	    strcmp(kind, "fix") && strcmp(kind, "new") && strcmp(kind,
	    "vanished") && strcmp(kind, "changed"))
		return send_error(c, 400, "kind must be regression, fix, new, "
		    "vanished or changed");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if (sqlite3_prepare_v2(db, "SELECT id, created, kind, json FROM events "
	    "WHERE id > ?1 AND kind IN ('regression', 'fix', 'new', 'vanished', "
	    "'changed') "
	    "AND (?2 IS NULL OR kind = ?2) ORDER BY id LIMIT ?3", -1, &st, NULL)
	    != SQLITE_OK)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, since);
	if (kind)
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, limit);
	arr = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		o = json_pack("{sI sf ss}", "id", (json_int_t)last, "created",
		    sqlite3_column_double(st, 1), "kind",
		    (const char *)sqlite3_column_text(st, 2));
		ev = json_loads((const char *)sqlite3_column_text(st, 3), 0, &jerr);
		if (json_is_object(ev))
			json_object_update(o, ev);
		json_decref(ev);
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	return send_json(c, 200, json_pack("{so sI}", "events", arr, "last_id",
	    (json_int_t)(last ? last : since)));
}
