/*
 * regress.c: what changed between two complete unrestricted screens of this
 * host. Each change of a name's state per (name, dtype, device) becomes a row
 * in `events`, written in the transaction that completes the new run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"

/*
 * A name's state per (device, dtype) is the worst of its keys' verdicts: one
 * broken key keeps the whole name off the allow-list, so that is what an
 * operator sees change.  The state is a rank of enum verdict, computed in
 * SQL by a CASE written from the vocabulary (regress_rank_sql); a word
 * outside it ranks as verified, as the key-level fold never writes one.
 */
static void
regress_rank_sql(char *buf, size_t len)
{
	size_t	 off;
	int	 i, n;

	n = snprintf(buf, len, "CASE verdict");
	off = n > 0 ? (size_t)n : 0;
	for (i = 0; i < VERDICT_NVERDICTS && off < len; i++) {
		n = snprintf(buf + off, len - off, " WHEN '%s' THEN %d",
		    verdict_name((enum verdict)i),
		    verdict_rank((enum verdict)i));
		off += n > 0 ? (size_t)n : 0;
	}
	if (off < len)
		snprintf(buf + off, len - off, " ELSE %d END",
		    verdict_rank(VERDICT_VERIFIED));
}

static int
is_bad(int rank)
{
	return rank >= verdict_rank(VERDICT_HAZARD);
}

/* the first column of the first row of `sql` with ?1 = a: >0, 0 none, -1 error */
static int64_t
one_id(sqlite3 *db, const char *sql, int64_t a)
{
	sqlite3_stmt	*st;
	int64_t		 id = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, a);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* The complete unrestricted run before `run`: >0, 0 none, -1 error. */
int64_t
regress_previous(sqlite3 *db, int64_t run)
{
	return one_id(db, "SELECT max(id) FROM runs WHERE state='complete' AND "
	    "full=1 AND id < ?", run);
}

/*
 * A failure that one screen of a library saw is not cleared by one clean
 * re-screen of the same library. A (device, key, dtype) verified in `run`
 * but broken by a measured failure in the previous complete unrestricted
 * run, on the same fingerprint (library, torch, driver, GPU), stays broken:
 * reason "intermittent", the earlier run's class, evidence case, severity
 * and counts of failing cases per severity. The
 * same inputs gave wrong bits in one screen and right ones in the next, so
 * the candidate is wrong on some runs (on the H200 such a failure repeated
 * in every call of its runner process and not in another process: an
 * order- or state-dependent defect). Only a measured failure is carried, not
 * an earlier "intermittent": a second clean screen clears it. The caller
 * holds the write transaction. Returns the number of verdicts turned, -1 on
 * a store error.
 */
int
regress_intermittent(sqlite3 *db, int64_t run)
{
	sqlite3_stmt	*st;
	int64_t		 prev;
	int		 n = 0;

	if ((prev = regress_previous(db, run)) <= 0)
		return prev < 0 ? -1 : 0;
	if (sqlite3_prepare_v2(db, "UPDATE verdicts AS n SET verdict='broken', "
	    "reason='intermittent', class=o.class, detail=printf('failed in run "
	    "%lld of this library (same fingerprint), every case passed in run "
	    "%lld: a clean re-screen of one library does not clear a failure it "
	    "saw; run %lld: %s: %s', o.run_id, n.run_id, o.run_id, o.reason, "
	    "o.detail), evidence_case=o.evidence_case, severity=o.severity, "
	    "n_critical=o.n_critical, n_loud=o.n_loud, n_numerics=o.n_numerics "
	    "FROM verdicts AS o, "
	    "run_devices AS dn, run_devices AS dp WHERE n.run_id=?1 AND "
	    "n.verdict='verified' AND o.run_id=?2 AND o.device=n.device AND "
	    "o.key=n.key AND o.dtype=n.dtype AND o.verdict='broken' AND "
	    "o.reason != 'intermittent' AND dn.run_id=?1 AND dn.device=n.device "
	    "AND dp.run_id=?2 AND dp.device=n.device AND dn.fingerprint_id = "
	    "dp.fingerprint_id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, prev);
	if (sqlite3_step(st) == SQLITE_DONE)
		n = sqlite3_changes(db);
	else
		n = -1;
	sqlite3_finalize(st);
	if (n <= 0)
		return n;
	if (sqlite3_prepare_v2(db, "SELECT key, dtype, device, evidence_case "
	    "FROM verdicts WHERE run_id=? AND reason='intermittent' ORDER BY "
	    "key, dtype, device", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		while (sqlite3_step(st) == SQLITE_ROW)
			log_warnx("intermittent: %s (%s, device %d) passed every "
			    "case in run %lld, failed in run %lld of the same "
			    "library (case %lld): stays broken",
			    sqlite3_column_text(st, 0), sqlite3_column_text(st,
			    1), sqlite3_column_int(st, 2), (long long)run,
			    (long long)prev, (long long)sqlite3_column_int64(st,
			    3));
		sqlite3_finalize(st);
	}
	return n;
}

/* The first bad key of (run, device, name, dtype), as the event's evidence. */
static void
regress_evidence(sqlite3 *db, int64_t run, int device, const char *name,
    const char *dtype, json_t *ev)
{
	sqlite3_stmt	*st;

	char		 rank[256], sql[1024];

	regress_rank_sql(rank, sizeof(rank));
	snprintf(sql, sizeof(sql), "SELECT key, verdict, reason, class, detail, "
	    "evidence_case FROM verdicts WHERE run_id=?1 AND device=?2 AND "
	    "name=?3 AND dtype=?4 AND (%s) >= ?5 ORDER BY (%s) DESC, key LIMIT 1",
	    rank, rank);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 5, verdict_rank(VERDICT_HAZARD));
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, dtype, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		json_object_set_new(ev, "key", json_string((const char *)
		    sqlite3_column_text(st, 0)));
		json_object_set_new(ev, "verdict", json_string((const char *)
		    sqlite3_column_text(st, 1)));
		json_object_set_new(ev, "reason", json_string((const char *)
		    sqlite3_column_text(st, 2)));
		json_object_set_new(ev, "class", json_string((const char *)
		    sqlite3_column_text(st, 3)));
		json_object_set_new(ev, "detail", json_string((const char *)
		    sqlite3_column_text(st, 4)));
		json_object_set_new(ev, "evidence_run", json_integer(run));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			json_object_set_new(ev, "evidence_case", json_integer(
			    sqlite3_column_int64(st, 5)));
	}
	sqlite3_finalize(st);
}

/* Whether `a` and `b` screened one library (fingerprint) on `device`. */
static int
same_library(sqlite3 *db, int64_t a, int64_t b, int device)
{
	sqlite3_stmt	*st;
	int		 same = 0;

	if (sqlite3_prepare_v2(db, "SELECT x.fingerprint_id = y.fingerprint_id "
	    "FROM run_devices x JOIN run_devices y ON y.run_id=?2 AND "
	    "y.device=x.device WHERE x.run_id=?1 AND x.device=?3", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_int(st, 3, device);
	if (sqlite3_step(st) == SQLITE_ROW)
		same = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return same;
}

static int
regress_insert(sqlite3 *db, int64_t run, double now, const char *kind,
    json_t *ev)
{
	sqlite3_stmt	*st;
	char		*js;
	int		 rc = -1;

	if ((js = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
		return -1;
	if (sqlite3_prepare_v2(db, "INSERT INTO events (created, run_id, kind, "
	    "json) VALUES (?,?,?,?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_double(st, 1, now);
		sqlite3_bind_int64(st, 2, run);
		sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, js, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	free(js);
	return rc;
}

/*
 * Each (name, key) row `sql` selects with ?1 = a and ?2 = b becomes a `kind`
 * event of `run` against `prev`, its from and to as given (NULL: null).
 */
static int
regress_key_events(sqlite3 *db, const char *sql, int64_t a, int64_t b,
    int64_t run, int64_t prev, const char *kind, const char *from,
    const char *to, double now, int *counts)
{
	sqlite3_stmt	*st;
	json_t		*ev;
	int		 n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ev = json_pack("{ss ss sn sn so so sI sI}", "name",
		    (const char *)sqlite3_column_text(st, 0), "key",
		    (const char *)sqlite3_column_text(st, 1), "dtype", "device",
		    "from", from ? json_string(from) : json_null(), "to",
		    to ? json_string(to) : json_null(), "run", (json_int_t)run,
		    "previous_run", (json_int_t)prev);
		if (ev == NULL || regress_insert(db, run, now, kind, ev) == -1) {
			json_decref(ev);
			sqlite3_finalize(st);
			return -1;
		}
		json_decref(ev);
		n++;
	}
	sqlite3_finalize(st);
	*counts += n;
	return n;
}

/* Names registered in run a and not in run b (their keys, comma-joined). */
#define REGRESS_NAMES_ONLY_IN "SELECT name, group_concat(key, ',') FROM " \
	"(SELECT name, key FROM entries WHERE run_id=?1 AND name NOT IN " \
	"(SELECT name FROM entries WHERE run_id=?2) ORDER BY name, key) " \
	"GROUP BY name ORDER BY name"
/*
 * Keys whose source digest (the code their function depends on in the
 * library) differs between run a and run b on a device: what a release
 * changed, whether or not a verdict moved.
 */
#define REGRESS_SOURCES_CHANGED "SELECT e.name, n.key FROM sources n JOIN " \
	"sources o ON o.run_id=?2 AND o.device=n.device AND o.key=n.key JOIN " \
	"entries e ON e.run_id=?1 AND e.key=n.key WHERE n.run_id=?1 AND " \
	"n.source != '' AND o.source != '' AND n.source != o.source GROUP BY " \
	"n.key ORDER BY e.name, n.key"

/*
 * Compares `run` with the complete unrestricted run before it and records the
 * differences as events. The caller holds the write transaction. Returns the
 * number of regressions (verified -> broken or hazard), -1 on a store error;
 * `nevents` gets every event written.
 */
int
regress_run(sqlite3 *db, int64_t run, double now, int *nevents)
{
	sqlite3_stmt	*st;
	json_t		*ev;
	int64_t		 prev;
	int		 nreg = 0, n = 0;
	char		 rank[256], sql[1024];

	*nevents = 0;
	if ((prev = regress_previous(db, run)) <= 0)
		return prev < 0 ? -1 : 0;
	regress_rank_sql(rank, sizeof(rank));
	snprintf(sql, sizeof(sql), "WITH s AS (SELECT run_id, device, name, "
	    "dtype, max(%s) AS state FROM verdicts WHERE run_id IN (?1, ?2) "
	    "GROUP BY run_id, device, name, dtype) SELECT n.device, n.name, "
	    "n.dtype, o.state, n.state FROM s n JOIN s o ON o.run_id=?2 AND "
	    "o.device=n.device AND o.name=n.name AND o.dtype=n.dtype WHERE "
	    "n.run_id=?1 AND o.state != n.state AND (o.state=?3 OR n.state=?3) "
	    "ORDER BY n.name, n.dtype, n.device", rank);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, prev);
	sqlite3_bind_int(st, 3, verdict_rank(VERDICT_VERIFIED));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int		 device = sqlite3_column_int(st, 0);
		const char	*name = (const char *)sqlite3_column_text(st, 1);
		const char	*dtype = (const char *)sqlite3_column_text(st, 2);
		int		 rfrom = sqlite3_column_int(st, 3);
		int		 rto = sqlite3_column_int(st, 4);
		const char	*from = verdict_name((enum verdict)rfrom);
		const char	*to = verdict_name((enum verdict)rto);
		const char	*kind;
		int		 same;

		/* verified <-> inconclusive says nothing about the library */
		if (is_bad(rto))
			kind = "regression";
		else if (is_bad(rfrom))
			kind = "fix";
		else
			continue;
		ev = json_pack("{ss sn ss si ss ss sI sI}", "name", name, "key",
		    "dtype", dtype, "device", device, "from", from, "to", to,
		    "run", (json_int_t)run, "previous_run", (json_int_t)prev);
		if (ev == NULL)
			goto fail;
		/* nothing changed in between: the library is not deterministic */
		same = same_library(db, run, prev, device);
		json_object_set_new(ev, "same_library", json_boolean(same));
		/* the evidence is the bad side: the new run's, or the old one's */
		regress_evidence(db, is_bad(rto) ? run : prev, device, name, dtype,
		    ev);
		if (regress_insert(db, run, now, kind, ev) == -1) {
			json_decref(ev);
			goto fail;
		}
		if (is_bad(rto)) {
			nreg++;
			log_warnx("regression: %s (%s, device %d) was verified in "
			    "run %lld, %s in run %lld%s: %s %s", name, dtype, device,
			    (long long)prev, to, (long long)run, same ?
			    " of the same library" : "",
			    json_string_value(json_object_get(ev, "reason")) ?: "",
			    json_string_value(json_object_get(ev, "detail")) ?: "");
		} else
			log_info("fix: %s (%s, device %d) %s in run %lld, verified "
			    "in run %lld", name, dtype, device, from,
			    (long long)prev, (long long)run);
		json_decref(ev);
		n++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (regress_key_events(db, REGRESS_NAMES_ONLY_IN, run, prev, run, prev,
	    "new", NULL, "registered", now, &n) == -1 ||
	    regress_key_events(db, REGRESS_NAMES_ONLY_IN, prev, run, run, prev,
	    "vanished", "registered", NULL, now, &n) == -1 ||
	    regress_key_events(db, REGRESS_SOURCES_CHANGED, run, prev, run, prev,
	    "changed", NULL, NULL, now, &n) == -1)
		return -1;
	*nevents = n;
	return nreg;
 fail:
	sqlite3_finalize(st);
	return -1;
}

/* ---- /diff: two screens side by side ---------------------------------------- */

static const char *const change_names[REGRESS_NCHANGES] = {
	[REGRESS_SAME] = "same",
	[REGRESS_REGRESSION] = "regression",
	[REGRESS_FIX] = "fix",
	[REGRESS_WORSE] = "worse",
	[REGRESS_MILDER] = "milder",
	[REGRESS_CHANGED] = "changed",
	[REGRESS_NEW] = "new",
	[REGRESS_GONE] = "gone",
};

const char *
regress_change_name(enum regress_change c)
{
	return c < REGRESS_NCHANGES ? change_names[c] : "changed";
}

/* a verdict word's rank; a word outside the vocabulary ranks worst */
static int
word_rank(const char *w)
{
	enum verdict	 v;

	if (verdict_parse(w, &v) == -1)
		return verdict_rank(VERDICT_BROKEN) + 1;
	return verdict_rank(v);
}

/* a failure stored without a severity reads as critical (store 005) */
static int
sev_rank(const char *s)
{
	enum severity	 v;

	if (s == NULL || *s == '\0' || severity_parse(s, &v) == -1)
		return SEVERITY_CRITICAL;
	return v;
}

/*
 * What a key x dtype x device's move between two screens means to an
 * operator: it joined the bad verdicts (regression) or left them for
 * verified (fix); it stayed bad and got worse or milder (a higher or lower
 * verdict rank, or for broken on both sides a higher or lower severity);
 * anything else that moved (verified <-> inconclusive) is changed. NULL
 * verdicts: the key x dtype is not in that screen.
 */
enum regress_change
regress_change(const char *from, const char *from_sev, const char *to,
    const char *to_sev)
{
	int	 rf, rt, bf, bt, sf, st;

	if (from == NULL && to == NULL)
		return REGRESS_SAME;
	if (from == NULL)
		return REGRESS_NEW;
	if (to == NULL)
		return REGRESS_GONE;
	rf = word_rank(from);
	rt = word_rank(to);
	bf = is_bad(rf);
	bt = is_bad(rt);
	if (bt && !bf)
		return REGRESS_REGRESSION;
	if (bf && !bt)
		return rt == verdict_rank(VERDICT_VERIFIED) ? REGRESS_FIX :
		    REGRESS_CHANGED;
	if (rf != rt)
		return !bf ? REGRESS_CHANGED : rt > rf ? REGRESS_WORSE :
		    REGRESS_MILDER;
	if (rf != verdict_rank(VERDICT_BROKEN))
		return REGRESS_SAME;
	sf = sev_rank(from_sev);
	st = sev_rank(to_sev);
	return st > sf ? REGRESS_WORSE : st < sf ? REGRESS_MILDER : REGRESS_SAME;
}

/*
 * One screen as /ops and /diff describe it: {run, state, full, finished,
 * fingerprints: [{device, library, library_version, ...}]}; NULL when there
 * is no such run.
 */
json_t *
regress_screen(sqlite3 *db, int64_t run)
{
	sqlite3_stmt	*st;
	json_t		*o, *fps;

	if (sqlite3_prepare_v2(db, "SELECT state, full, finished FROM runs "
	    "WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return NULL;
	}
	o = json_pack("{sI ss si}", "run", (json_int_t)run, "state",
	    (const char *)sqlite3_column_text(st, 0), "full",
	    sqlite3_column_int(st, 1));
	json_object_set_new(o, "finished", sqlite3_column_type(st, 2) ==
	    SQLITE_NULL ? json_null() : json_real(sqlite3_column_double(st, 2)));
	sqlite3_finalize(st);
	fps = json_array();
	if (sqlite3_prepare_v2(db, "SELECT d.device, f.library, "
	    "f.library_version, f.library_hash, f.torch, f.triton, f.gpu_name "
	    "FROM run_devices d LEFT JOIN fingerprints f ON f.id = "
	    "d.fingerprint_id WHERE d.run_id=? ORDER BY d.device", -1, &st, NULL)
	    == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		while (sqlite3_step(st) == SQLITE_ROW)
			json_array_append_new(fps, json_pack("{si ss ss ss ss ss "
			    "ss}", "device", sqlite3_column_int(st, 0),
			    "library", (const char *)sqlite3_column_text(st, 1) ?:
			    "", "library_version", (const char *)
			    sqlite3_column_text(st, 2) ?: "", "library_hash",
			    (const char *)sqlite3_column_text(st, 3) ?: "",
			    "torch", (const char *)sqlite3_column_text(st, 4) ?:
			    "", "triton", (const char *)sqlite3_column_text(st,
			    5) ?: "", "gpu_name", (const char *)
			    sqlite3_column_text(st, 6) ?: ""));
		sqlite3_finalize(st);
	}
	json_object_set_new(o, "fingerprints", fps);
	return o;
}

/*
 * The screens /diff compares when not told: `to`, the newest complete
 * unrestricted run (else the newest complete one); `from`, the newest
 * complete unrestricted run before it that screened another fingerprint on
 * one of its devices (another library version or build, torch, driver,
 * GPU), else the complete unrestricted run before it. 0: none, -1: error.
 */
int
regress_diff_default(sqlite3 *db, int64_t *from, int64_t *to)
{
	if (*to == 0 && (*to = one_id(db, "SELECT max(id) FROM runs WHERE "
	    "state='complete' AND full=1", 0)) == 0)
		*to = one_id(db, "SELECT max(id) FROM runs WHERE "
		    "state='complete'", 0);
	if (*to <= 0)
		return (int)*to;
	if (*from == 0 && (*from = one_id(db, "SELECT max(r.id) FROM runs r "
	    "JOIN run_devices d ON d.run_id = r.id JOIN run_devices t ON "
	    "t.run_id = ?1 AND t.device = d.device WHERE r.state='complete' AND "
	    "r.full=1 AND r.id < ?1 AND d.fingerprint_id IS NOT "
	    "t.fingerprint_id", *to)) == 0)
		*from = regress_previous(db, *to);
	return *from < 0 ? -1 : *from > 0;
}

static json_t *
side_json(sqlite3_stmt *st, int col)
{
	json_t	*o;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	o = json_pack("{ss ss ss}", "verdict", (const char *)
	    sqlite3_column_text(st, col), "severity", (const char *)
	    sqlite3_column_text(st, col + 1) ?: "", "reason", (const char *)
	    sqlite3_column_text(st, col + 2) ?: "");
	json_object_set_new(o, "evidence_case", sqlite3_column_type(st,
	    col + 3) == SQLITE_NULL ? json_null() : json_integer(
	    sqlite3_column_int64(st, col + 3)));
	return o;
}

/*
 * Every key x dtype x device whose verdict (or, broken on both sides,
 * severity) differs between screens `from` and `to`, with what the move
 * means (regress_change); `gpu` < -1: every device. NULL on a store error.
 */
json_t *
regress_diff(sqlite3 *db, int64_t from, int64_t to, int gpu)
{
	static const char	*sql = "SELECT n.name, n.key, n.dtype, n.device, "
	    "o.verdict, o.severity, o.reason, o.evidence_case, n.verdict, "
	    "n.severity, n.reason, n.evidence_case FROM verdicts n LEFT JOIN "
	    "verdicts o ON o.run_id=?1 AND o.key=n.key AND o.dtype=n.dtype AND "
	    "o.device=n.device WHERE n.run_id=?2 AND (?3 < -1 OR n.device=?3) "
	    "UNION ALL SELECT o.name, o.key, o.dtype, o.device, o.verdict, "
	    "o.severity, o.reason, o.evidence_case, NULL, NULL, NULL, NULL FROM "
	    "verdicts o WHERE o.run_id=?1 AND (?3 < -1 OR o.device=?3) AND NOT "
	    "EXISTS (SELECT 1 FROM verdicts n WHERE n.run_id=?2 AND "
	    "n.key=o.key AND n.dtype=o.dtype AND n.device=o.device) "
	    "ORDER BY 1, 2, 3, 4";
	sqlite3_stmt		*st;
	json_t			*o, *changes, *counts, *a, *b;
	enum regress_change	 ch;
	int			 n[REGRESS_NCHANGES] = { 0 }, i;

	if ((a = regress_screen(db, from)) == NULL)
		return NULL;
	if ((b = regress_screen(db, to)) == NULL) {
		json_decref(a);
		return NULL;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(a);
		json_decref(b);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_int(st, 3, gpu);
	changes = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		ch = regress_change((const char *)sqlite3_column_text(st, 4),
		    (const char *)sqlite3_column_text(st, 5),
		    (const char *)sqlite3_column_text(st, 8),
		    (const char *)sqlite3_column_text(st, 9));
		n[ch]++;
		if (ch == REGRESS_SAME)
			continue;
		json_array_append_new(changes, json_pack("{ss ss ss si ss so so}",
		    "name", (const char *)sqlite3_column_text(st, 0), "key",
		    (const char *)sqlite3_column_text(st, 1), "dtype",
		    (const char *)sqlite3_column_text(st, 2), "device",
		    sqlite3_column_int(st, 3), "change", regress_change_name(ch),
		    "from", side_json(st, 4), "to", side_json(st, 8)));
	}
	sqlite3_finalize(st);
	counts = json_object();
	for (i = 0; i < REGRESS_NCHANGES; i++)
		json_object_set_new(counts, change_names[i], json_integer(n[i]));
	o = json_pack("{so so so so}", "from", a, "to", b, "counts", counts,
	    "changes", changes);
	return o;
}
