/*
 * rollup.c: from (key x dtype) verdicts to the library's own enable names.
 * A name is allowed only when every key it serves is verified in scope on every
 * device in scope; lists come only from complete, unrestricted runs of the
 * current fingerprint (fail-closed), unless the caller accepts stale ones.
 * policy=tolerant also allows a key x dtype whose failures are all numerics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscreend.h"
#include "verdict.h"

static int
dtype_in_scope(const char *scope, const char *dtype)
{
	const char	*p = scope;
	size_t		 n = strlen(dtype);

	if (scope[0] == '\0')
		return 1;
	while (p && *p) {
		if (!strncmp(p, dtype, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
		if ((p = strchr(p, ',')) != NULL)
			p++;
	}
	return 0;
}

/* The complete unrestricted run that serves `device`: >0, 0 none, -1 error. */
static int64_t
serving_run(sqlite3 *db, int device, json_t *fp, int stale_ok, int *stale)
{
	sqlite3_stmt	*st;
	char		*hash = NULL;
	int64_t		 id = 0;

	*stale = 0;
	if (fp && json_is_object(fp) && (hash = fingerprint_hash(fp)) != NULL) {
		if (sqlite3_prepare_v2(db, "SELECT r.id FROM runs r JOIN "
		    "run_devices d ON d.run_id = r.id JOIN fingerprints f ON "
		    "f.id = d.fingerprint_id WHERE r.state='complete' AND r.full=1 "
		    "AND d.device=? AND f.hash=? ORDER BY r.id DESC LIMIT 1", -1,
		    &st, NULL) != SQLITE_OK) {
			free(hash);
			return -1;
		}
		sqlite3_bind_int(st, 1, device);
		sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		free(hash);
	}
	if (id == 0 && stale_ok) {
		if (sqlite3_prepare_v2(db, "SELECT r.id FROM runs r JOIN "
		    "run_devices d ON d.run_id = r.id WHERE r.state='complete' AND "
		    "r.full=1 AND d.device=? ORDER BY r.id DESC LIMIT 1", -1, &st,
		    NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_int(st, 1, device);
		if (sqlite3_step(st) == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			*stale = 1;
		}
		sqlite3_finalize(st);
	}
	return id;
}

static const char *const policy_names[ROLLUP_NPOLICIES] = {
	[ROLLUP_STRICT] = "strict",
	[ROLLUP_TOLERANT] = "tolerant",
};

const char *
rollup_policy_name(enum rollup_policy p)
{
	return (unsigned)p < ROLLUP_NPOLICIES ? policy_names[p] : "strict";
}

/* 0 and *p set, or -1 for a word that names no policy. */
int
rollup_policy_parse(const char *s, enum rollup_policy *p)
{
	int	 i;

	for (i = 0; s != NULL && i < ROLLUP_NPOLICIES; i++)
		if (!strcmp(s, policy_names[i])) {
			*p = (enum rollup_policy)i;
			return 0;
		}
	return -1;
}

/*
 * Whether policy lets a key x dtype verdict count as verified: under
 * tolerant, a broken one whose evidence is numerics and which has no
 * critical or loud failing case (its failures are all numerics).  A
 * verdict stored without a severity is never tolerated.
 */
int
rollup_tolerated(enum rollup_policy policy, const char *verdict,
    const char *severity, int n_critical, int n_loud)
{
	return policy == ROLLUP_TOLERANT && verdict != NULL && severity != NULL &&
	    !strcmp(verdict, "broken") && !strcmp(severity, "numerics") &&
	    n_critical == 0 && n_loud == 0;
}

/* A stored verdict's severity: a broken one without a known word is critical. */
static enum severity
row_severity(enum verdict vd, const char *word)
{
	enum severity	 s;

	if (vd != VERDICT_BROKEN)
		return SEVERITY_NONE;
	if (severity_parse(word, &s) == -1 || s == SEVERITY_NONE)
		return SEVERITY_CRITICAL;
	return s;
}

static json_t *
name_get(json_t *names, const char *name)
{
	json_t	*o = json_object_get(names, name);

	if (o == NULL) {
		o = json_pack("{s{} s[] s[] si}", "keys", "deny", "withheld",
		    "verified", 0);
		json_object_set_new(names, name, o);
	}
	return o;
}

/* Case case_id's repro; *file: whether it reads an inputs file beside it. */
static char *
repro_of(sqlite3 *db, int64_t case_id, int *file)
{
	sqlite3_stmt	*st;
	char		*r = NULL;

	*file = 0;
	if (sqlite3_prepare_v2(db, "SELECT repro, repro_inputs IS NOT NULL FROM "
	    "results WHERE case_id=?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, case_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		r = strdup((const char *)sqlite3_column_text(st, 0));
		*file = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return r;
}

static json_t *
key_get(json_t *keys, const char *key, const char *name, int screened)
{
	json_t	*k = json_object_get(keys, key);

	if (k == NULL) {
		k = json_pack("{ss sb si s{} s{}}", "name", name, "screened",
		    screened, "rows", 0, "judged", "cases");
		json_object_set_new(keys, key, k);
	}
	return k;
}

/*
 * Why `dtype` keeps key `k` off the list, or NULL when it does not: judged
 * (its verdict row decided already), or not supported natively (every case of
 * it not applicable: native raises too, so verdict_fold_result wrote no row).
 * Anything else was never judged: never screened, or cases without a verdict.
 */
static const char *
dtype_unjudged(json_t *k, const char *dtype, char *why, size_t len)
{
	json_t	*c = json_object_get(json_object_get(k, "cases"), dtype);
	int64_t	 n, na;

	if (json_object_get(json_object_get(k, "judged"), dtype))
		return NULL;
	if (c == NULL) {
		snprintf(why, len, "%s was never screened for this key", dtype);
		return why;
	}
	n = json_integer_value(json_array_get(c, 0));
	na = json_integer_value(json_array_get(c, 1));
	if (n > 0 && na == n)
		return NULL;
	snprintf(why, len, "no verdict for %s: %lld of its %lld cases have no "
	    "result that judges it", dtype, (long long)(n - na), (long long)n);
	return why;
}

static void
withhold(json_t *names, const char *name, const char *key, const char *dtype,
    const char *why, int device, int64_t run)
{
	json_t	*w = json_pack("{ss ss si sI}", "key", key, "reason", why,
	    "device", device, "run", (json_int_t)run);

	if (dtype != NULL)
		json_object_set_new(w, "dtype", json_string(dtype));
	json_array_append_new(json_object_get(name_get(names, name), "withheld"),
	    w);
}

/*
 * faster=RATIO: a key x dtype the policy allows counts only when its
 * slowest passing case ran at RATIO times native's speed or more
 * (verdicts.speed_ratio `r` over `cases` cases, 0: none measured); one
 * without a measured speed withholds its name (fail closed: an unmeasured
 * op is not known to be fast). The name keeps its slowest ratio ("speed").
 */
static void
speed_check(json_t *n, json_t *names, const char *name, const char *key,
    const char *dtype, double r, int cases, double faster, int device,
    int64_t run)
{
	double		 was;
	char		 why[160];
	json_t		*sp = json_object_get(n, "speed");

	if (cases <= 0) {
		withhold(names, name, key, dtype, "no steady-state speed measured "
		    "(faster= needs one)", device, run);
		return;
	}
	was = json_real_value(sp);
	if (sp == NULL || r < was)
		json_object_set_new(n, "speed", json_real(r));
	if (r < faster) {
		snprintf(why, sizeof(why), "%.3g x native's speed at its slowest "
		    "screened case, under faster=%g", r, faster);
		withhold(names, name, key, dtype, why, device, run);
	}
}

static const char *const rollup_mode_names[] = { "eager", "compile",
    "cudagraph" };
/* the class whose cases a mode's verdict folds (probes/modes.c) */
static const char *const rollup_mode_classes[] = { "", "trace", "graph" };

const char *
rollup_mode_name(enum rollup_mode m)
{
	return (unsigned)m < 3 ? rollup_mode_names[m] : "eager";
}

int
rollup_mode_parse(const char *w, enum rollup_mode *m)
{
	int	 i;

	for (i = 0; i < 3; i++)
		if (w != NULL && strcmp(w, rollup_mode_names[i]) == 0) {
			*m = (enum rollup_mode)i;
			return 0;
		}
	return -1;
}

/*
 * mode=compile|cudagraph: a key x dtype allowed eagerly counts only when
 * its verdict in the mode (the five columns from `col`: verdict, reason,
 * detail, severity, case) is verified (tolerant: or broken by numerics
 * only). Not screened in the mode, or inconclusive there: the name is
 * withheld (fail closed); broken or a hazard there: denied, with the mode's
 * evidence.
 */
static void
mode_check(sqlite3_stmt *st, int col, enum rollup_mode mode,
    enum rollup_policy policy, json_t *n, json_t *names, const char *name,
    const char *key, const char *dtype, int device, int64_t run)
{
	const char	*mv = (const char *)sqlite3_column_text(st, col);
	const char	*sevw = (const char *)sqlite3_column_text(st, col + 3);
	enum verdict	 vd;
	enum severity	 sev;
	char		 why[512];
	json_t		*ev;

	if (mv == NULL) {
		snprintf(why, sizeof(why), "not screened in mode %s (runner.modes, "
		    "or no case of it applies)", rollup_mode_name(mode));
		withhold(names, name, key, dtype, why, device, run);
		return;
	}
	if (verdict_parse(mv, &vd) == -1)
		vd = VERDICT_BROKEN;
	if (vd == VERDICT_VERIFIED)
		return;
	if (vd == VERDICT_BROKEN && policy == ROLLUP_TOLERANT && sevw != NULL &&
	    strcmp(sevw, "numerics") == 0) {
		json_object_set_new(n, "tolerated", json_true());
		return;
	}
	if (vd == VERDICT_INCONCLUSIVE || vd == VERDICT_WITHHELD) {
		snprintf(why, sizeof(why), "inconclusive in mode %s: %s",
		    rollup_mode_name(mode), (const char *)sqlite3_column_text(st,
		    col + 1));
		withhold(names, name, key, dtype, why, device, run);
		return;
	}
	sev = vd == VERDICT_HAZARD ? SEVERITY_NONE : sevw == NULL ||
	    severity_parse(sevw, &sev) == -1 || sev == SEVERITY_NONE ?
	    SEVERITY_CRITICAL : sev;
	ev = json_pack("{ss ss si ss ss ss ss ss si si si sb sI}", "key", key,
	    "dtype", dtype, "device", device, "verdict", mv, "reason",
	    (const char *)sqlite3_column_text(st, col + 1), "class",
	    rollup_mode_classes[mode], "detail", (const char *)
	    sqlite3_column_text(st, col + 2), "mode", rollup_mode_name(mode),
	    "n_critical", sev == SEVERITY_CRITICAL, "n_loud",
	    sev == SEVERITY_LOUD, "n_numerics", sev == SEVERITY_NUMERICS,
	    "shrunk", 0, "run", (json_int_t)run);
	if (ev == NULL)
		return;
	if (sqlite3_column_type(st, col + 4) != SQLITE_NULL)
		json_object_set_new(ev, "case", json_integer(
		    sqlite3_column_int64(st, col + 4)));
	json_object_set_new(ev, "severity", sev == SEVERITY_NONE ? json_null() :
	    json_string(severity_name(sev)));
	json_array_append_new(json_object_get(name_get(names, name), "deny"), ev);
}

/*
 * The host's op scope (runner.ops) that run screened device with: its
 * "scope" event's ops (run.c), NULL when it screened every entry.
 */
static json_t *
scope_ops(sqlite3 *db, int64_t run, int device)
{
	sqlite3_stmt	*st;
	json_t		*ops = NULL, *ev;

	if (sqlite3_prepare_v2(db, "SELECT json FROM events WHERE run_id=? AND "
	    "kind='scope' ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	while (ops == NULL && sqlite3_step(st) == SQLITE_ROW)
		if ((ev = json_loads((const char *)sqlite3_column_text(st, 0), 0,
		    NULL)) != NULL) {
			if (json_integer_value(json_object_get(ev, "device")) ==
			    device && json_is_array(json_object_get(ev, "ops")))
				ops = json_incref(json_object_get(ev, "ops"));
			json_decref(ev);
		}
	sqlite3_finalize(st);
	return ops;
}

/*
 * Adds this device's judgement of every name to `names`: from this device's
 * own verdicts and cases only, so that one device's screen never vouches for
 * another's.  Every dtype of the scope (unscoped: every dtype the run screened
 * for the key) must be judged for every key; the bootstrap verdict (dtype
 * "any") can deny a key but never counts as a judged dtype.  Under policy
 * tolerant a verdict rollup_tolerated() accepts counts as verified and
 * marks its name "tolerated".
 */
static int
rollup_device(sqlite3 *db, int64_t run, int device, const char *scope,
    enum rollup_policy policy, double faster, enum rollup_mode mode,
    int deterministic, json_t *names)
{
	sqlite3_stmt	*st;
	json_t		*n, *k, *keys = json_object(), *dt, *ops;
	const char	*key, *dtype;
	char		 why[256], buf[256], *tok, *p, *save;
	int		 rc = -1;

	ops = scope_ops(db, run, device);

	if (sqlite3_prepare_v2(db, "SELECT key, name, screened FROM entries "
	    "WHERE run_id=?", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		name_get(names, (const char *)sqlite3_column_text(st, 1));
		key_get(keys, (const char *)sqlite3_column_text(st, 0),
		    (const char *)sqlite3_column_text(st, 1),
		    sqlite3_column_int(st, 2));
	}
	sqlite3_finalize(st);

	/* what the run screened on this device, and what came out not applicable */
	if (sqlite3_prepare_v2(db, "SELECT c.key, c.name, c.dtype, count(*), "
	    "sum(r.status IS 'na') FROM cases c LEFT JOIN results r ON "
	    "r.case_id = c.id WHERE c.run_id=? AND c.device=? AND c.dtype != "
	    "'any' GROUP BY c.key, c.dtype", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	while (sqlite3_step(st) == SQLITE_ROW) {
		k = key_get(keys, (const char *)sqlite3_column_text(st, 0),
		    (const char *)sqlite3_column_text(st, 1), 1);
		json_object_set_new(json_object_get(k, "cases"),
		    (const char *)sqlite3_column_text(st, 2), json_pack("[II]",
		    (json_int_t)sqlite3_column_int64(st, 3),
		    (json_int_t)sqlite3_column_int64(st, 4)));
	}
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(db, "SELECT key, name, dtype, verdict, reason, "
	    "class, detail, evidence_case, first_call_ms, steady_ms, "
	    "(SELECT r.shrunk_spec IS NOT NULL FROM results r WHERE r.case_id = "
	    "v.evidence_case), severity, n_critical, n_loud, n_numerics, "
	    "speed_ratio, speed_cases, compile_verdict, compile_reason, "
	    "compile_detail, compile_severity, compile_case, cudagraph_verdict, "
	    "cudagraph_reason, cudagraph_detail, cudagraph_severity, "
	    "cudagraph_case, nondeterministic FROM "
	    "verdicts v WHERE run_id=? AND device=? ORDER BY key, dtype", -1,
	    &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char	*verdict = (const char *)sqlite3_column_text(st, 3);
		const char	*sevw = (const char *)sqlite3_column_text(st, 11);
		enum verdict	 vd;
		enum severity	 sev;
		int		 any, ncrit, nloud;

		key = (const char *)sqlite3_column_text(st, 0);
		dtype = (const char *)sqlite3_column_text(st, 2);
		n = name_get(names, (const char *)sqlite3_column_text(st, 1));
		k = key_get(keys, key, (const char *)sqlite3_column_text(st, 1),
		    1);
		/* a bootstrap check is about the entry, not about any dtype */
		any = strcmp(dtype, "any") == 0;
		if (!any) {
			json_object_set_new(k, "rows", json_integer(
			    json_integer_value(json_object_get(k, "rows")) + 1));
			json_object_set_new(json_object_get(k, "judged"), dtype,
			    json_true());
		}
		if (!any && !dtype_in_scope(scope, dtype))
			continue;
		/* a word outside the vocabulary is denied: fail closed */
		if (verdict_parse(verdict, &vd) == -1)
			vd = VERDICT_BROKEN;
		ncrit = sqlite3_column_int(st, 12);
		nloud = sqlite3_column_int(st, 13);
		if (vd == VERDICT_VERIFIED || rollup_tolerated(policy, verdict,
		    sevw, ncrit, nloud)) {
			if (!any)
				json_object_set_new(n, "verified", json_integer(
				    json_integer_value(json_object_get(n,
				    "verified")) + 1));
			if (vd != VERDICT_VERIFIED)
				json_object_set_new(n, "tolerated", json_true());
			if (!any && faster > 0)
				speed_check(n, names, (const char *)
				    sqlite3_column_text(st, 1), key, dtype,
				    sqlite3_column_double(st, 15),
				    sqlite3_column_type(st, 15) == SQLITE_NULL ?
				    0 : sqlite3_column_int(st, 16), faster,
				    device, run);
			if (!any && mode != ROLLUP_EAGER)
				mode_check(st, 17 + 5 * (mode - 1), mode, policy,
				    n, names, (const char *)sqlite3_column_text(
				    st, 1), key, dtype, device, run);
			if (!any && deterministic && sqlite3_column_int(st,
			    27) > 0) {
				snprintf(why, sizeof(why), "nondeterministic: %d "
				    "case(s) gave other output bits on a second "
				    "call with the same inputs (deterministic=1)",
				    sqlite3_column_int(st, 27));
				withhold(names, (const char *)sqlite3_column_text(
				    st, 1), key, dtype, why, device, run);
			}
			continue;
		}
		sev = row_severity(vd, sevw);
		{
			json_t	*ev = json_pack("{ss ss si ss ss ss ss si si si}",
			    "key", key, "dtype", dtype, "device", device,
			    "verdict", verdict,
			    "reason", (const char *)sqlite3_column_text(st, 4),
			    "class", (const char *)sqlite3_column_text(st, 5),
			    "detail", (const char *)sqlite3_column_text(st, 6),
			    "n_critical", ncrit, "n_loud", nloud, "n_numerics",
			    sqlite3_column_int(st, 14));

			if (sqlite3_column_type(st, 7) != SQLITE_NULL)
				json_object_set_new(ev, "case", json_integer(
				    sqlite3_column_int64(st, 7)));
			json_object_set_new(ev, "shrunk", json_boolean(
			    sqlite3_column_int(st, 10)));
			json_object_set_new(ev, "severity", sev == SEVERITY_NONE ?
			    json_null() : json_string(severity_name(sev)));
			json_object_set_new(ev, "run", json_integer(run));
			json_array_append_new(json_object_get(n,
			    vd == VERDICT_INCONCLUSIVE ? "withheld" : "deny"),
			    ev);
		}
	}
	sqlite3_finalize(st);

	/* Keys and dtypes that were never judged keep their name off the list. */
	json_object_foreach(keys, key, k) {
		const char	*name = json_string_value(json_object_get(k, "name"));

		if (!json_is_true(json_object_get(k, "screened"))) {
			withhold(names, name, key, NULL, "no probes for this key "
			    "yet", device, run);
			continue;
		}
		if (ops != NULL && !ops_have(ops, key, name)) {
			withhold(names, name, key, NULL, "not screened: outside "
			    "the host's op scope (runner.ops)", device, run);
			continue;
		}
		if (json_integer_value(json_object_get(k, "rows")) == 0) {
			withhold(names, name, key, NULL, "no case of this key "
			    "could be judged", device, run);
			continue;
		}
		if (scope[0] == '\0') {
			json_object_foreach(json_object_get(k, "cases"), dtype, dt)
				if (dtype_unjudged(k, dtype, why, sizeof(why)))
					withhold(names, name, key, dtype, why,
					    device, run);
			continue;
		}
		snprintf(buf, sizeof(buf), "%s", scope);
		save = NULL;
		for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL)
			if (dtype_unjudged(k, tok, why, sizeof(why)))
				withhold(names, name, key, tok, why, device, run);
	}
	rc = 0;
 out:
	json_decref(ops);
	json_decref(keys);
	return rc;
}

/*
 * The refusal of a device that run's consensus phase quarantined (its
 * output differed from the other devices' on the same inputs; db/010), or
 * NULL. An error reading it refuses too: fail closed.
 */
static json_t *
quarantined(sqlite3 *db, int64_t run, int device)
{
	sqlite3_stmt	*st;
	json_t		*o = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT detail, evidence_case, "
	    "suspect_cases, sampled_cases FROM quarantine WHERE run_id=? AND "
	    "device=?", -1, &st, NULL) != SQLITE_OK)
		return json_pack("{ss}", "error", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		o = json_pack("{ss si sI ss si si sI}", "error", "this device is "
		    "quarantined: the consensus phase of its last screen found "
		    "it computing differently from the host's other devices on "
		    "the same inputs; nothing is served for it until a later "
		    "screen clears it", "device", device, "run", (json_int_t)run,
		    "why", (const char *)sqlite3_column_text(st, 0),
		    "suspect_cases", sqlite3_column_int(st, 2),
		    "sampled_cases", sqlite3_column_int(st, 3), "case",
		    (json_int_t)sqlite3_column_int64(st, 1));
	else if (rc != SQLITE_DONE)
		o = json_pack("{ss}", "error", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return o;
}

/* Library-wide bootstrap findings of the serving runs (events). */
static json_t *
library_hazards(sqlite3 *db, json_t *runs)
{
	sqlite3_stmt	*st;
	json_t		*out = json_array(), *r, *ev;
	json_error_t	 jerr;
	size_t		 i;

	if (sqlite3_prepare_v2(db, "SELECT json FROM events WHERE run_id=? AND "
	    "kind='bootstrap_hazard' ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return out;
	json_array_foreach(runs, i, r) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(r,
		    "run")));
		while (sqlite3_step(st) == SQLITE_ROW)
			if ((ev = json_loads((const char *)sqlite3_column_text(st,
			    0), 0, &jerr)) != NULL) {
				json_object_set(ev, "run", json_object_get(r,
				    "run"));
				json_array_append_new(out, ev);
			}
	}
	sqlite3_finalize(st);
	return out;
}

/*
 * Where a device's list comes from: the run, when it completed, and the
 * fingerprint it screened (the run's own, not the current one: with stale=ok
 * they differ).  NULL on a store error.
 */
static json_t *
run_provenance(sqlite3 *db, int64_t run, int device)
{
	static const char	*fields[] = { "library", "library_version",
	    "library_hash", "torch", "triton", "cuda", "driver", "gpu_name",
	    "gpu_uuid" };
	sqlite3_stmt		*st;
	json_t			*o;
	char			 when[32] = "";
	size_t			 i;

	if (sqlite3_prepare_v2(db, "SELECT r.finished, f.library, "
	    "f.library_version, f.library_hash, f.torch, f.triton, f.cuda, "
	    "f.driver, f.gpu_name, f.gpu_uuid FROM runs r LEFT JOIN run_devices "
	    "d ON d.run_id = r.id AND d.device=? LEFT JOIN fingerprints f ON "
	    "f.id = d.fingerprint_id WHERE r.id=?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int(st, 1, device);
	sqlite3_bind_int64(st, 2, run);
	o = json_pack("{si sI}", "device", device, "run", (json_int_t)run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			double		 t = sqlite3_column_double(st, 0);
			time_t		 s = (time_t)t;
			struct tm	 tm;

			if (gmtime_r(&s, &tm) != NULL)
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
				    &tm);
			json_object_set_new(o, "completed_unix", json_real(t));
		}
		json_object_set_new(o, "completed", json_string(when));
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			json_object_set_new(o, fields[i], json_string(
			    sqlite3_column_text(st, 1 + i) ? (const char *)
			    sqlite3_column_text(st, 1 + i) : ""));
	}
	sqlite3_finalize(st);
	/* which keys' verdicts were carried from an earlier screen, and from
	 * which run (the one that measured them) */
	if (sqlite3_prepare_v2(db, "SELECT key, max(carried_from), count(*) = "
	    "count(carried_from) FROM verdicts WHERE run_id=? AND device=? "
	    "GROUP BY key ORDER BY key", -1, &st, NULL) == SQLITE_OK) {
		json_t	*carried = json_array();
		int	 measured = 0;

		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int(st, 2, device);
		while (sqlite3_step(st) == SQLITE_ROW)
			if (sqlite3_column_int(st, 2))
				json_array_append_new(carried, json_pack(
				    "{ss sI}", "key", (const char *)
				    sqlite3_column_text(st, 0), "run",
				    (json_int_t)sqlite3_column_int64(st, 1)));
			else
				measured++;
		sqlite3_finalize(st);
		json_object_set_new(o, "measured_keys", json_integer(measured));
		json_object_set_new(o, "carried_keys", json_integer(
		    json_array_size(carried)));
		json_object_set_new(o, "carried", carried);
	}
	return o;
}

/*
 * A withheld name as the deny-list excludes it: the verdict "withheld"
 * ("inconclusive" when a verdict of the scope was), no severity, the first
 * reason, and every reason.
 */
static json_t *
excluded_withheld(json_t *w)
{
	json_t		*rs = json_object_get(w, "reasons"), *r;
	json_t		*r0 = json_array_get(rs, 0), *cls;
	const char	*verdict = "withheld", *why, *detail;
	char		 reason[512];
	size_t		 k;

	json_array_foreach(rs, k, r)
		if (json_string_value(json_object_get(r, "verdict")) &&
		    !strcmp(json_string_value(json_object_get(r, "verdict")),
		    "inconclusive"))
			verdict = "inconclusive";
	why = json_string_value(json_object_get(r0, "reason"));
	snprintf(reason, sizeof(reason), "withheld: %s", why ? why :
	    "not verified in this scope");
	cls = json_object_get(r0, "class");
	detail = json_string_value(json_object_get(r0, "detail"));
	return json_pack("{sO ss sn ss sO ss sO}", "name", json_object_get(w,
	    "name"), "verdict", verdict, "severity", "reason", reason, "class",
	    json_is_string(cls) ? cls : json_null(), "detail", detail ? detail :
	    "", "reasons", rs);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
rollup_lists(sqlite3 *db, const struct rollup_query *q, json_t *fps,
    json_t **allow, json_t **deny, int *status, json_t **err)
{
	json_t		*names = json_object(), *d, *fp, *runs = json_array();
	json_t		*allowed = json_array(), *denied = json_array();
	json_t		*withheld = json_array(), *n, *rd;
	json_t		*tolerated = json_array(), *by_sev[VERDICT_NSEVERITIES];
	json_t		*speeds = json_object(), *qd;
	size_t		 i, nn = 0, j, ndenied;
	const char	**keys = NULL, *name;
	int		 any_stale = 0, stale, ndev = 0;
	int64_t		 run;

	*allow = *deny = *err = NULL;
	*status = 200;
	for (i = 0; i < VERDICT_NSEVERITIES; i++)
		by_sev[i] = json_array();
	json_array_foreach(fps, i, d) {
		int	 device = json_integer_value(json_object_get(d, "device"));

		if (q->gpu >= 0 && device != q->gpu)
			continue;
		ndev++;
		fp = json_object_get(d, "fingerprint");
		run = serving_run(db, device, fp, q->stale_ok, &stale);
		if (run < 0) {
			*status = 500;
			*err = json_pack("{ss}", "error", sqlite3_errmsg(db));
			goto out;
		}
		if (run == 0) {
			*status = 503;
			if (!json_is_object(fp))
				*err = json_pack("{ss si ss}", "error", "the current "
				    "library fingerprint is not known yet, so no "
				    "verified list can be served", "device", device,
				    "why", json_string_value(json_object_get(d,
				    "error")) ?: "the runner has not reported yet");
			else
				*err = json_pack("{ss si sO}", "error", "no complete "
				    "screen for the current fingerprint (add "
				    "stale=ok to accept the last complete one)",
				    "device", device, "fingerprint", fp);
			goto out;
		}
		any_stale |= stale;
		if ((rd = run_provenance(db, run, device)) == NULL) {
			*status = 500;
			*err = json_pack("{ss}", "error", sqlite3_errmsg(db));
			goto out;
		}
		json_object_set_new(rd, "stale", json_boolean(stale));
		json_array_append_new(runs, rd);
		if ((qd = quarantined(db, run, device)) != NULL) {
			/* its screen computed differently: nothing it vouches */
			*status = 503;
			*err = qd;
			goto out;
		}
		if (rollup_device(db, run, device, q->dtypes, q->policy,
		    q->faster, q->mode, q->deterministic, names) == -1) {
			*status = 500;
			*err = json_pack("{ss}", "error", sqlite3_errmsg(db));
			goto out;
		}
	}
	if (ndev == 0) {
		*status = 400;
		*err = json_pack("{ss si}", "error", "no such device", "gpu", q->gpu);
		goto out;
	}

	nn = json_object_size(names);
	keys = calloc(nn ? nn : 1, sizeof(*keys));
	i = 0;
	json_object_foreach(names, name, n)
		keys[i++] = name;
	qsort(keys, nn, sizeof(*keys), cmp_str);
	for (j = 0; j < nn; j++) {
		json_t	*dn, *wn, *ev;

		n = json_object_get(names, keys[j]);
		dn = json_object_get(n, "deny");
		wn = json_object_get(n, "withheld");
		if (json_array_size(dn)) {
			json_t	*worst = NULL, *e;
			size_t	 x;
			char	*repro;
			int	 file;
			enum verdict	 vn = VERDICT_HAZARD, ve;
			enum severity	 sn = SEVERITY_NONE, se;

			/* the name's verdict and severity: the worst of its
			 * evidence's */
			json_array_foreach(dn, x, e) {
				if (verdict_parse(json_string_value(
				    json_object_get(e, "verdict")), &ve) == -1)
					ve = VERDICT_BROKEN;
				if (verdict_rank(ve) > verdict_rank(vn))
					vn = ve;
				if (severity_parse(json_string_value(
				    json_object_get(e, "severity")), &se) == 0 &&
				    se > sn)
					sn = se;
			}
			/* the evidence shown first: of the most severe, a shrunk
			 * case when there is one */
			json_array_foreach(dn, x, e) {
				if (severity_parse(json_string_value(
				    json_object_get(e, "severity")), &se) == -1)
					se = SEVERITY_NONE;
				if (se != sn)
					continue;
				if (worst == NULL)
					worst = e;
				if (json_is_true(json_object_get(e, "shrunk"))) {
					worst = e;
					break;
				}
			}
			if (worst == NULL)
				worst = json_array_get(dn, 0);
			ev = json_pack("{ss ss so sO sO sO sO}", "name", keys[j],
			    "verdict", verdict_name(vn), "severity",
			    sn == SEVERITY_NONE ? json_null() :
			    json_string(severity_name(sn)),
			    "reason", json_object_get(worst, "reason"),
			    "class", json_object_get(worst, "class"),
			    "detail", json_object_get(worst, "detail"),
			    "evidence", dn);
			if (json_object_get(worst, "case") &&
			    (repro = repro_of(db, json_integer_value(
			    json_object_get(worst, "case")), &file)) != NULL) {
				json_object_set_new(ev, "repro", json_string(repro));
				free(repro);
				/* its inputs, a file beside it (db/012) */
				if (file)
					json_object_set_new(ev, "repro_inputs",
					    json_sprintf("/cases/%lld/inputs",
					    (long long)json_integer_value(
					    json_object_get(worst, "case"))));
			}
			json_array_append_new(by_sev[sn], ev);
		} else if (json_array_size(wn))
			json_array_append_new(withheld, json_pack("{ss sO}",
			    "name", keys[j], "reasons", wn));
		else if (json_integer_value(json_object_get(n, "verified")) > 0) {
			json_array_append_new(allowed, json_string(keys[j]));
			if (q->faster > 0 && json_object_get(n, "speed"))
				json_object_set(speeds, keys[j],
				    json_object_get(n, "speed"));
			if (json_is_true(json_object_get(n, "tolerated")))
				json_array_append_new(tolerated,
				    json_string(keys[j]));
		} else
			/* every dtype of the scope not applicable to every key */
			json_array_append_new(withheld, json_pack("{ss s[{ss}]}",
			    "name", keys[j], "reasons", "reason", "no dtype of the "
			    "scope is supported natively by its keys"));
	}
	/* denied: critical first, then loud, numerics, hazards; by name */
	for (i = VERDICT_NSEVERITIES; i-- > 0; )
		json_array_extend(denied, by_sev[i]);
	ndenied = json_array_size(denied);
	/* the deny-list excludes every name the allow-list does not hold (fail
	 * closed: `enable(unused=...)` and every engine blacklist read it):
	 * after the denied, each withheld name with its reasons */
	json_array_foreach(withheld, i, n)
		json_array_append_new(denied, excluded_withheld(n));
	*allow = json_pack("{sO sO sO sb ss ss ss}", "names", allowed,
	    "withheld", withheld, "tolerated", tolerated, "stale", any_stale,
	    "dtypes", q->dtypes[0] ? q->dtypes : "all", "policy",
	    rollup_policy_name(q->policy), "mode", rollup_mode_name(q->mode));
	json_object_set(*allow, "runs", runs);
	if (q->faster > 0) {
		/* each allowed name's slowest case, as native/candidate */
		json_object_set_new(*allow, "faster", json_real(q->faster));
		json_object_set(*allow, "speed", speeds);
	}
	json_object_set_new(*allow, "verdict_vocabulary", verdict_vocabulary());
	*deny = json_pack("{sO sI sI sb ss ss ss}", "names", denied, "denied",
	    (json_int_t)ndenied, "withheld", (json_int_t)json_array_size(
	    withheld), "stale", any_stale, "dtypes", q->dtypes[0] ? q->dtypes :
	    "all", "policy", rollup_policy_name(q->policy), "mode",
	    rollup_mode_name(q->mode));
	json_object_set(*deny, "runs", runs);
	if (q->faster > 0)
		json_object_set_new(*deny, "faster", json_real(q->faster));
	json_object_set_new(*deny, "library_hazards", library_hazards(db, runs));
	json_object_set_new(*deny, "verdict_vocabulary", verdict_vocabulary());
	json_object_set_new(*deny, "severity_vocabulary", severity_vocabulary());
 out:
	for (i = 0; i < VERDICT_NSEVERITIES; i++)
		json_decref(by_sev[i]);
	json_decref(tolerated);
	json_decref(speeds);
	free(keys);
	json_decref(names);
	json_decref(runs);
	json_decref(allowed);
	json_decref(denied);
	json_decref(withheld);
	return *status == 200 ? 0 : -1;
}
