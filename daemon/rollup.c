/*
 * rollup.c: from (key x dtype) verdicts to the library's own enable names.
 * A name is allowed only when every key it serves is verified in scope on every
 * device in scope; lists come only from complete, unrestricted runs of the
 * current fingerprint (fail-closed), unless the caller accepts stale ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"

static int
dtype_in_scope(const char *scope, const char *dtype)
{
	const char	*p = scope;
	size_t		 n = strlen(dtype);

	/* "any": a finding about the entry itself (bootstrap), every dtype's */
	if (scope[0] == '\0' || strcmp(dtype, "any") == 0)
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

static char *
repro_of(sqlite3 *db, int64_t case_id)
{
	sqlite3_stmt	*st;
	char		*r = NULL;

	if (sqlite3_prepare_v2(db, "SELECT repro FROM results WHERE case_id=?",
	    -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, case_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		r = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return r;
}

/* Adds this device's judgement of every name to `names`. */
static int
rollup_device(sqlite3 *db, int64_t run, int device, const char *scope,
    json_t *names)
{
	sqlite3_stmt	*st;
	json_t		*n, *k;
	const char	*name, *key;
	void		*it;

	if (sqlite3_prepare_v2(db, "SELECT key, name, screened FROM entries "
	    "WHERE run_id=?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = name_get(names, (const char *)sqlite3_column_text(st, 1));
		k = json_object_get(json_object_get(n, "keys"),
		    (const char *)sqlite3_column_text(st, 0));
		if (k == NULL) {
			k = json_pack("{sb si si}", "screened",
			    sqlite3_column_int(st, 2), "rows", 0, "in_scope", 0);
			json_object_set_new(json_object_get(n, "keys"),
			    (const char *)sqlite3_column_text(st, 0), k);
		}
	}
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(db, "SELECT key, name, dtype, verdict, reason, "
	    "class, detail, evidence_case, first_call_ms, steady_ms, "
	    "(SELECT r.shrunk_spec IS NOT NULL FROM results r WHERE r.case_id = "
	    "v.evidence_case) FROM verdicts v WHERE run_id=? AND device=? "
	    "ORDER BY key, dtype", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char	*dtype = (const char *)sqlite3_column_text(st, 2);
		const char	*verdict = (const char *)sqlite3_column_text(st, 3);

		key = (const char *)sqlite3_column_text(st, 0);
		n = name_get(names, (const char *)sqlite3_column_text(st, 1));
		k = json_object_get(json_object_get(n, "keys"), key);
		if (k == NULL) {
			k = json_pack("{sb si si}", "screened", 1, "rows", 0,
			    "in_scope", 0);
			json_object_set_new(json_object_get(n, "keys"), key, k);
		}
		/* a bootstrap check alone does not make a key judged */
		if (strcmp(dtype, "any") != 0)
			json_object_set_new(k, "rows", json_integer(
			    json_integer_value(json_object_get(k, "rows")) + 1));
		if (!dtype_in_scope(scope, dtype))
			continue;
		json_object_set_new(k, "in_scope", json_integer(
		    json_integer_value(json_object_get(k, "in_scope")) + 1));
		if (!strcmp(verdict, "verified")) {
			json_object_set_new(n, "verified", json_integer(
			    json_integer_value(json_object_get(n, "verified")) + 1));
			continue;
		}
		{
			json_t	*ev = json_pack("{ss ss si ss ss ss ss}", "key", key,
			    "dtype", dtype, "device", device, "verdict", verdict,
			    "reason", (const char *)sqlite3_column_text(st, 4),
			    "class", (const char *)sqlite3_column_text(st, 5),
			    "detail", (const char *)sqlite3_column_text(st, 6));

			if (sqlite3_column_type(st, 7) != SQLITE_NULL)
				json_object_set_new(ev, "case", json_integer(
				    sqlite3_column_int64(st, 7)));
			json_object_set_new(ev, "shrunk", json_boolean(
			    sqlite3_column_int(st, 10)));
			json_object_set_new(ev, "run", json_integer(run));
			json_array_append_new(json_object_get(n,
			    strcmp(verdict, "inconclusive") ? "deny" : "withheld"),
			    ev);
		}
	}
	sqlite3_finalize(st);

	/* Keys that were never judged keep their name off the allow-list. */
	it = json_object_iter(names);
	while (it) {
		name = json_object_iter_key(it);
		n = json_object_iter_value(it);
		json_object_foreach(json_object_get(n, "keys"), key, k) {
			const char	*why = NULL;

			if (!json_is_true(json_object_get(k, "screened")))
				why = "no probes for this key yet";
			else if (json_integer_value(json_object_get(k, "rows")) == 0)
				why = "no case of this key could be judged";
			if (why)
				json_array_append_new(json_object_get(n,
				    "withheld"), json_pack("{ss ss si sI}", "key",
				    key, "reason", why, "device", device, "run",
				    (json_int_t)run));
		}
		it = json_object_iter_next(names, it);
	}
	(void)name;
	return 0;
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
	json_t		*withheld = json_array(), *n;
	size_t		 i, nn = 0, j;
	const char	**keys = NULL, *name;
	int		 any_stale = 0, stale, ndev = 0;
	int64_t		 run;

	*allow = *deny = *err = NULL;
	*status = 200;
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
		json_array_append_new(runs, json_pack("{si sI sb}", "device",
		    device, "run", (json_int_t)run, "stale", stale));
		if (rollup_device(db, run, device, q->dtypes, names) == -1) {
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
			json_t	*worst = json_array_get(dn, 0), *e;
			size_t	 x;
			char	*repro;
			int	 hazard = 1;

			/* the evidence shown first: a shrunk case when there is one */
			json_array_foreach(dn, x, e)
				if (json_is_true(json_object_get(e, "shrunk"))) {
					worst = e;
					break;
				}

			/* hazard only when nothing about the name is broken */
			json_array_foreach(dn, x, e)
				if (strcmp(json_string_value(json_object_get(e,
				    "verdict")), "hazard") != 0)
					hazard = 0;
			ev = json_pack("{ss ss sO sO sO sO}", "name", keys[j],
			    "verdict", hazard ? "hazard" : "broken",
			    "reason", json_object_get(worst, "reason"),
			    "class", json_object_get(worst, "class"),
			    "detail", json_object_get(worst, "detail"),
			    "evidence", dn);
			if (json_object_get(worst, "case") &&
			    (repro = repro_of(db, json_integer_value(
			    json_object_get(worst, "case")))) != NULL) {
				json_object_set_new(ev, "repro", json_string(repro));
				free(repro);
			}
			json_array_append_new(denied, ev);
		} else if (json_array_size(wn))
			json_array_append_new(withheld, json_pack("{ss sO}",
			    "name", keys[j], "reasons", wn));
		else if (json_integer_value(json_object_get(n, "verified")) > 0)
			json_array_append_new(allowed, json_string(keys[j]));
	}
	*allow = json_pack("{sO sO sb ss}", "names", allowed, "withheld",
	    withheld, "stale", any_stale, "dtypes", q->dtypes[0] ? q->dtypes :
	    "all");
	json_object_set(*allow, "runs", runs);
	*deny = json_pack("{sO sb ss}", "names", denied, "stale", any_stale,
	    "dtypes", q->dtypes[0] ? q->dtypes : "all");
	json_object_set(*deny, "runs", runs);
	json_object_set_new(*deny, "library_hazards", library_hazards(db, runs));
 out:
	free(keys);
	json_decref(names);
	json_decref(runs);
	json_decref(allowed);
	json_decref(denied);
	json_decref(withheld);
	return *status == 200 ? 0 : -1;
}
