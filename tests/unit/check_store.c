/*
 * check_store.c: migrations, WAL, and the roll-up from (key x dtype) verdicts
 * to enable names, on hand-built stores.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_fixture.h"

static int
scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt	*st;
	int		 v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

START_TEST(migrates_once)
{
	struct store	*s = fresh();
	char		 err[256];

	ck_assert_int_eq(scalar(store_db(s), "PRAGMA user_version"), 12);
	store_close(s);
	s = store_open(path, err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(scalar(store_db(s), "PRAGMA user_version"), 12);
	/* 002 added the shrunk variant of a failing case */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('results') WHERE name='shrunk_spec'"), 1);
	/* 003 added what a shrink cost */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('results') WHERE name IN ('shrink_ms', "
	    "'shrink_cand_ms')"), 2);
	/* 004: the case whose shrink a re-screen reused */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('results') WHERE name='shrink_from'"), 1);
	/* 005: severities, a verdict's failing cases per severity */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('results') WHERE name='severity'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('verdicts') WHERE name IN ('severity', "
	    "'n_critical', 'n_loud', 'n_numerics')"), 4);
	/* 006: a key x dtype x device's verdicts in run order */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM sqlite_master "
	    "WHERE type='index' AND name='verdicts_history'"), 1);
	/* 007: carried results */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('sources') WHERE name='source'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('results') WHERE name='carried_from'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM "
	    "pragma_table_info('verdicts') WHERE name='carried_from'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM sqlite_master "
	    "WHERE name='verdicts'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "PRAGMA foreign_keys"), 1);
	cleanup(s);
}
END_TEST

START_TEST(refuses_newer_schema)
{
	struct store	*s = fresh();
	char		 err[256] = "";

	store_exec(s, "PRAGMA user_version=99");
	store_close(s);
	ck_assert_ptr_null(store_open(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "newer"));
	s = NULL;
	cleanup(s);
}
END_TEST

START_TEST(missing_directory)
{
	char	 err[256] = "";

	ck_assert_ptr_null(store_open("/nonexistent/dir/x.db", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "does not exist"));
}
END_TEST

START_TEST(fingerprint_identity)
{
	struct store	*s = fresh();
	json_t		*a = json_pack("{ss ss}", "library", "x", "torch", "2");
	json_t		*b = json_pack("{ss ss}", "torch", "2", "library", "x");
	json_t		*c = json_pack("{ss ss}", "torch", "3", "library", "x");
	char		*ha = fingerprint_hash(a), *hb = fingerprint_hash(b);
	char		*hc = fingerprint_hash(c);

	ck_assert_str_eq(ha, hb);	/* key order does not matter */
	ck_assert_str_ne(ha, hc);
	ck_assert_int_eq(store_fingerprint(s, a), store_fingerprint(s, b));
	ck_assert_int_ne(store_fingerprint(s, a), store_fingerprint(s, c));
	free(ha);
	free(hb);
	free(hc);
	json_decref(a);
	json_decref(b);
	json_decref(c);
	cleanup(s);
}
END_TEST

/* A complete run with: add (verified f32, bf16), sub (broken bf16 only),
 * div serving two keys of which one is broken, neg with an unscreened key. */
static json_t *
seed_run(struct store *s, const char *state, int full)
{
	json_t	*fp = json_pack("{ss}", "library", "demo");
	int64_t	 fpid = store_fingerprint(s, fp);
	char	 sql[4096];

	snprintf(sql, sizeof(sql),
	    "INSERT INTO runs (id, state, full, created) VALUES (1, '%s', %d, 1);"
	    "INSERT INTO run_devices VALUES (1, -1, %lld);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'add.Tensor', 'add', '', 1);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'sub.Tensor', 'sub', '', 1);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'div.Tensor', 'true_divide', '', 1);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'div.Scalar', 'true_divide', '', 1);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'neg', 'neg', '', 1);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'neg.out', 'neg', '', 0);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, spec) "
	    "VALUES (7, 1, -1, 'sub.Tensor', 'sub', 'broadcast', 'bfloat16', '{}');"
	    "INSERT INTO results (case_id, status, reason, detail, repro, created) "
	    "VALUES (7, 'fail', 'shape_mismatch', 'shape [4,5] vs [1,5]', "
	    "'print(1)', 1);"
	    "INSERT INTO verdicts (run_id, device, key, name, dtype, verdict) VALUES "
	    "(1, -1, 'add.Tensor', 'add', 'float32', 'verified'),"
	    "(1, -1, 'add.Tensor', 'add', 'bfloat16', 'verified'),"
	    "(1, -1, 'sub.Tensor', 'sub', 'float32', 'verified'),"
	    "(1, -1, 'div.Tensor', 'true_divide', 'float32', 'verified'),"
	    "(1, -1, 'div.Scalar', 'true_divide', 'float32', 'verified'),"
	    "(1, -1, 'neg', 'neg', 'float32', 'verified');"
	    "INSERT INTO verdicts (run_id, device, key, name, dtype, verdict, "
	    "reason, class, detail, evidence_case) VALUES "
	    "(1, -1, 'sub.Tensor', 'sub', 'bfloat16', 'broken', 'shape_mismatch', "
	    "'broadcast', 'shape [4,5] vs [1,5]', 7),"
	    "(1, -1, 'div.Scalar', 'true_divide', 'bfloat16', 'broken', "
	    "'numeric_error', 'scalar', 'err_ulp 9', NULL);",
	    state, full, (long long)fpid);
	ck_assert_int_eq(store_exec(s, sql), 0);
	return fp;
}

static json_t *
devices_with(json_t *fp)
{
	return json_pack("[{si so}]", "device", -1, "fingerprint",
	    fp ? json_incref(fp) : json_null());
}

static int
has(json_t *arr, const char *name)
{
	size_t	 i;
	json_t	*v;

	json_array_foreach(arr, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) :
		    json_string_value(json_object_get(v, "name"));

		if (!strcmp(s, name))
			return 1;
	}
	return 0;
}

/* the name at position i of a list's "names", NULL past its end */
static const char *
name_at(json_t *list, size_t i)
{
	json_t	*e = json_array_get(json_object_get(list, "names"), i);

	return json_is_string(e) ? json_string_value(e) :
	    json_string_value(json_object_get(e, "name"));
}

/*
 * policy=tolerant also allows a name whose failing key x dtype verdicts are
 * all numerics (no critical or loud case); the deny-list is ordered by
 * severity, critical first, and each entry names its severity.
 */
START_TEST(rollup_policies)
{
	struct store		*s = fresh();
	json_t			*fp = seed_run(s, "complete", 1), *fps, *allow, *deny;
	json_t			*err;
	struct rollup_query	 q;
	int			 st;

	ck_assert_int_eq(store_exec(s, "UPDATE verdicts SET severity="
	    "'numerics', n_numerics=2 WHERE key='div.Scalar' AND "
	    "verdict='broken'; UPDATE verdicts SET severity='loud', n_loud=1 "
	    "WHERE key='sub.Tensor' AND verdict='broken'"), 0);
	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	fps = devices_with(fp);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(allow, "policy")),
	    "strict");
	ck_assert(!has(json_object_get(allow, "names"), "true_divide"));
	ck_assert_int_eq(json_array_size(json_object_get(allow, "tolerated")), 0);
	/* loud before numerics */
	ck_assert_str_eq(name_at(deny, 0), "sub");
	ck_assert_str_eq(name_at(deny, 1), "true_divide");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(deny, "names"), 1), "severity")), "numerics");
	json_decref(allow);
	json_decref(deny);

	q.policy = ROLLUP_TOLERANT;
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(deny, "policy")),
	    "tolerant");
	ck_assert(has(json_object_get(allow, "names"), "true_divide"));
	ck_assert(has(json_object_get(allow, "tolerated"), "true_divide"));
	ck_assert(!has(json_object_get(allow, "tolerated"), "add"));
	ck_assert(has(json_object_get(deny, "names"), "sub"));
	ck_assert(!has(json_object_get(deny, "names"), "true_divide"));
	json_decref(allow);
	json_decref(deny);

	/* one loud case beside the numerics ones: denied under both; and a
	 * critical name comes before it */
	ck_assert_int_eq(store_exec(s, "UPDATE verdicts SET n_loud=1 WHERE "
	    "key='div.Scalar' AND verdict='broken'; UPDATE verdicts SET "
	    "severity='critical', n_critical=1 WHERE key='sub.Tensor' AND "
	    "verdict='broken'"), 0);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert(!has(json_object_get(allow, "names"), "true_divide"));
	ck_assert_str_eq(name_at(deny, 0), "sub");
	ck_assert_str_eq(name_at(deny, 1), "true_divide");
	json_decref(allow);
	json_decref(deny);

	/* numerics sorts after critical whatever the names */
	ck_assert_int_eq(store_exec(s, "UPDATE verdicts SET severity='critical', "
	    "n_critical=1, n_loud=0 WHERE key='div.Scalar' AND verdict='broken'; "
	    "UPDATE verdicts SET severity='numerics', n_critical=0, n_loud=0 "
	    "WHERE key='sub.Tensor' AND verdict='broken'"), 0);
	q.policy = ROLLUP_STRICT;
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert_str_eq(name_at(deny, 0), "true_divide");
	ck_assert_str_eq(name_at(deny, 1), "sub");
	/* then the withheld the deny-list also excludes, and nothing else */
	ck_assert_int_eq(json_integer_value(json_object_get(deny, "denied")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(deny, "names")), 2 +
	    json_integer_value(json_object_get(deny, "withheld")));
	ck_assert_int_eq(json_array_size(json_object_get(deny, "names")), 2 +
	    json_array_size(json_object_get(allow, "withheld")));
	json_decref(allow);
	json_decref(deny);

	/* a verdict stored without a severity is never tolerated */
	ck_assert_int_eq(rollup_tolerated(ROLLUP_TOLERANT, "broken", "", 0, 0),
	    0);
	ck_assert_int_eq(rollup_tolerated(ROLLUP_TOLERANT, "broken", "numerics",
	    0, 0), 1);
	ck_assert_int_eq(rollup_tolerated(ROLLUP_STRICT, "broken", "numerics",
	    0, 0), 0);
	ck_assert_int_eq(rollup_tolerated(ROLLUP_TOLERANT, "hazard", "numerics",
	    0, 0), 0);
	ck_assert_int_eq(rollup_tolerated(ROLLUP_TOLERANT, "broken", "numerics",
	    1, 0), 0);
	{
		enum rollup_policy	 p;

		ck_assert_int_eq(rollup_policy_parse("tolerant", &p), 0);
		ck_assert_int_eq(p, ROLLUP_TOLERANT);
		ck_assert_int_eq(rollup_policy_parse("lenient", &p), -1);
		ck_assert_str_eq(rollup_policy_name(ROLLUP_STRICT), "strict");
	}
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

START_TEST(rollup_rules)
{
	struct store		*s = fresh();
	json_t			*fp = seed_run(s, "complete", 1), *fps, *allow, *deny;
	json_t			*err, *sub;
	struct rollup_query	 q;
	int			 st;

	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	fps = devices_with(fp);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert_int_eq(st, 200);
	ck_assert(has(json_object_get(allow, "names"), "add"));
	ck_assert(!has(json_object_get(allow, "names"), "sub"));
	/* one of the two keys it serves is broken: the name is denied */
	ck_assert(!has(json_object_get(allow, "names"), "true_divide"));
	ck_assert(has(json_object_get(deny, "names"), "true_divide"));
	/* a key without probes withholds the name, but does not deny it: the
	 * deny-list excludes it as withheld, after the denied */
	ck_assert(!has(json_object_get(allow, "names"), "neg"));
	ck_assert(has(json_object_get(allow, "withheld"), "neg"));
	{
		json_t	*e = NULL, *names = json_object_get(deny, "names");
		size_t	 i, nd = json_integer_value(json_object_get(deny,
		    "denied"));

		json_array_foreach(names, i, e)
			if (!strcmp(json_string_value(json_object_get(e, "name")),
			    "neg"))
				break;
		ck_assert_int_lt(i, json_array_size(names));
		ck_assert_int_ge(i, nd);
		ck_assert_str_eq(json_string_value(json_object_get(e, "verdict")),
		    "withheld");
		ck_assert(json_is_null(json_object_get(e, "severity")));
		ck_assert_str_eq(json_string_value(json_object_get(e, "reason")),
		    "withheld: no probes for this key yet");
	}
	sub = json_array_get(json_object_get(deny, "names"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(sub, "name")), "sub");
	ck_assert_str_eq(json_string_value(json_object_get(sub, "class")),
	    "broadcast");
	ck_assert_str_eq(json_string_value(json_object_get(sub, "repro")),
	    "print(1)");
	json_decref(allow);
	json_decref(deny);

	/* scoped to float32, sub and true_divide are fine */
	snprintf(q.dtypes, sizeof(q.dtypes), "float32");
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert(has(json_object_get(allow, "names"), "sub"));
	ck_assert(has(json_object_get(allow, "names"), "true_divide"));
	/* nothing denied; neg (no probes) still excluded, withheld */
	ck_assert_int_eq(json_integer_value(json_object_get(deny, "denied")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(deny, "names")), 1);
	ck_assert_str_eq(name_at(deny, 0), "neg");
	json_decref(allow);
	json_decref(deny);
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

START_TEST(rollup_fails_closed)
{
	struct store		*s = fresh();
	json_t			*fp = seed_run(s, "complete", 1), *fps, *allow, *deny;
	json_t			*err, *other = json_pack("{ss}", "library", "demo2");
	struct rollup_query	 q;
	int			 st;

	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	/* the fingerprint moved: 503 */
	fps = devices_with(other);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), -1);
	ck_assert_int_eq(st, 503);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(err,
	    "error")), "current fingerprint"));
	json_decref(err);
	/* unless stale lists are accepted */
	q.stale_ok = 1;
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), 0);
	ck_assert(json_is_true(json_object_get(allow, "stale")));
	json_decref(allow);
	json_decref(deny);
	json_decref(fps);
	/* no fingerprint known at all */
	q.stale_ok = 0;
	fps = devices_with(NULL);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), -1);
	ck_assert_int_eq(st, 503);
	json_decref(err);
	json_decref(fps);
	/* an unknown GPU */
	q.gpu = 3;
	fps = devices_with(fp);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), -1);
	ck_assert_int_eq(st, 400);
	json_decref(err);
	json_decref(fps);
	json_decref(fp);
	json_decref(other);
	cleanup(s);
}
END_TEST

START_TEST(rollup_ignores_running_and_restricted)
{
	struct store		*s = fresh();
	json_t			*fp = seed_run(s, "running", 1), *fps, *allow, *deny;
	json_t			*err;
	struct rollup_query	 q;
	int			 st;

	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	fps = devices_with(fp);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), -1);
	ck_assert_int_eq(st, 503);
	json_decref(err);
	store_exec(s, "UPDATE runs SET state='complete', full=0");
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, &allow, &deny, &st,
	    &err), -1);
	ck_assert_int_eq(st, 503);
	json_decref(err);
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

/*
 * Dtype and device scope: one complete run on GPUs 0 and 1 of one library.
 *  add: verified float32 (and bootstrap) on GPU 0; on GPU 1 only the
 *       bootstrap verdict: GPU 1 never judged it.
 *  exp: verified float32; its int32 cases all not applicable (native raises
 *       too, so no verdict row): unsupported natively, not unjudged.
 *  neg: verified float32; its bfloat16 cases have no verdict (skipped).
 *  cos: verified float32, but its bootstrap check is broken.
 */
static json_t *
seed_scoped(struct store *s)
{
	json_t	*fp = json_pack("{ss ss ss}", "library", "demo",
	    "library_version", "1.2", "gpu_name", "H200");
	int64_t	 fpid = store_fingerprint(s, fp);
	char	 sql[4096];

	snprintf(sql, sizeof(sql),
	    "INSERT INTO runs (id, state, full, created, finished) VALUES "
	    "(1, 'complete', 1, 1, 1767225600);"
	    "INSERT INTO run_devices VALUES (1, 0, %lld), (1, 1, %lld);"
	    "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (1, 'add.Tensor', 'add', '', 1),"
	    "(1, 'exp', 'exp', '', 1), (1, 'neg', 'neg', '', 1),"
	    "(1, 'cos', 'cos', '', 1);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, spec) "
	    "VALUES (1, 1, 0, 'add.Tensor', 'add', 'same_shape', 'float32', '{}'),"
	    "(2, 1, 0, 'exp', 'exp', 'same_shape', 'float32', '{}'),"
	    "(3, 1, 0, 'exp', 'exp', 'same_shape', 'int32', '{}'),"
	    "(4, 1, 0, 'exp', 'exp', 'scalar', 'int32', '{}'),"
	    "(5, 1, 0, 'neg', 'neg', 'same_shape', 'float32', '{}'),"
	    "(6, 1, 0, 'neg', 'neg', 'same_shape', 'bfloat16', '{}'),"
	    "(7, 1, 0, 'cos', 'cos', 'same_shape', 'float32', '{}'),"
	    "(8, 1, 0, 'cos', 'cos', 'bootstrap', 'any', '{}'),"
	    "(9, 1, 1, 'add.Tensor', 'add', 'bootstrap', 'any', '{}');"
	    "INSERT INTO results (case_id, status, reason, created) VALUES "
	    "(1, 'pass', 'ok', 1), (2, 'pass', 'ok', 1), (3, 'na', 'both_raise', 1),"
	    "(4, 'na', 'both_raise', 1), (5, 'pass', 'ok', 1),"
	    "(6, 'skipped', 'abandoned', 1), (7, 'pass', 'ok', 1),"
	    "(8, 'hazard', 'registration', 1), (9, 'pass', 'ok', 1);"
	    "INSERT INTO verdicts (run_id, device, key, name, dtype, verdict) VALUES "
	    "(1, 0, 'add.Tensor', 'add', 'float32', 'verified'),"
	    "(1, 0, 'add.Tensor', 'add', 'any', 'verified'),"
	    "(1, 1, 'add.Tensor', 'add', 'any', 'verified'),"
	    "(1, 0, 'exp', 'exp', 'float32', 'verified'),"
	    "(1, 0, 'neg', 'neg', 'float32', 'verified'),"
	    "(1, 0, 'cos', 'cos', 'float32', 'verified');"
	    "INSERT INTO verdicts (run_id, device, key, name, dtype, verdict, "
	    "reason, class) VALUES (1, 0, 'cos', 'cos', 'any', 'hazard', "
	    "'registration', 'bootstrap');",
	    (long long)fpid, (long long)fpid);
	ck_assert_int_eq(store_exec(s, sql), 0);
	return fp;
}

/* The withheld reasons of `name` for `dtype` that contain `text`. */
static int
withheld_for(json_t *allow, const char *name, const char *dtype,
    const char *text)
{
	json_t	*w, *r;
	size_t	 i, j;

	json_array_foreach(json_object_get(allow, "withheld"), i, w) {
		if (strcmp(json_string_value(json_object_get(w, "name")), name))
			continue;
		json_array_foreach(json_object_get(w, "reasons"), j, r)
			if ((dtype == NULL || (json_object_get(r, "dtype") &&
			    !strcmp(json_string_value(json_object_get(r, "dtype")),
			    dtype))) && strstr(json_string_value(json_object_get(r,
			    "reason")), text))
				return 1;
	}
	return 0;
}

static void
lists(struct store *s, json_t *fps, const char *dtypes, int gpu, json_t **allow,
    json_t **deny)
{
	struct rollup_query	 q;
	json_t			*err = NULL;
	int			 st;

	memset(&q, 0, sizeof(q));
	q.gpu = gpu;
	snprintf(q.dtypes, sizeof(q.dtypes), "%s", dtypes);
	ck_assert_int_eq(rollup_lists(store_db(s), &q, fps, allow, deny, &st,
	    &err), 0);
	ck_assert_int_eq(st, 200);
}

START_TEST(rollup_dtype_scope)
{
	struct store	*s = fresh();
	json_t		*fp = seed_scoped(s), *fps, *allow, *deny, *names;

	fps = json_pack("[{si sO}]", "device", 0, "fingerprint", fp);
	/* a dtype never screened: the bootstrap verdict does not stand in */
	lists(s, fps, "float64", 0, &allow, &deny);
	ck_assert_int_eq(json_array_size(json_object_get(allow, "names")), 0);
	ck_assert(withheld_for(allow, "add", "float64", "float64 was never "
	    "screened"));
	ck_assert(withheld_for(allow, "exp", "float64", "never screened"));
	/* the bootstrap finding is about the key, whatever the scope */
	ck_assert(has(json_object_get(deny, "names"), "cos"));
	json_decref(allow);
	json_decref(deny);

	/* int32 cases all not applicable: exp supports it not, and passes */
	lists(s, fps, "float32,int32", 0, &allow, &deny);
	names = json_object_get(allow, "names");
	ck_assert(has(names, "exp"));
	ck_assert(!has(names, "add"));	/* add has no int32 case at all */
	ck_assert(withheld_for(allow, "add", "int32", "never screened"));
	ck_assert(has(names, "neg") == 0);
	ck_assert(!has(names, "cos"));
	json_decref(allow);
	json_decref(deny);

	/* only not-applicable dtypes in scope: nothing vouches for exp */
	lists(s, fps, "int32", 0, &allow, &deny);
	ck_assert(!has(json_object_get(allow, "names"), "exp"));
	ck_assert(withheld_for(allow, "exp", NULL, "supported natively"));
	json_decref(allow);
	json_decref(deny);

	/* unscoped: every dtype the run screened for the key, bfloat16 for neg */
	lists(s, fps, "", 0, &allow, &deny);
	names = json_object_get(allow, "names");
	ck_assert(has(names, "add"));
	ck_assert(has(names, "exp"));
	ck_assert(!has(names, "neg"));
	ck_assert(withheld_for(allow, "neg", "bfloat16", "no verdict for "
	    "bfloat16: 1 of its 1 cases"));
	ck_assert(!has(names, "cos"));
	json_decref(allow);
	json_decref(deny);

	/* float32 alone: neg's unjudged bfloat16 is out of scope */
	lists(s, fps, "float32", 0, &allow, &deny);
	ck_assert(has(json_object_get(allow, "names"), "neg"));
	ck_assert(has(json_object_get(allow, "names"), "add"));
	json_decref(allow);
	json_decref(deny);
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

START_TEST(rollup_device_scope)
{
	struct store	*s = fresh();
	json_t		*fp = seed_scoped(s), *fps, *allow, *deny;

	fps = json_pack("[{si sO} {si sO}]", "device", 0, "fingerprint", fp,
	    "device", 1, "fingerprint", fp);
	lists(s, fps, "float32", 0, &allow, &deny);
	ck_assert(has(json_object_get(allow, "names"), "add"));
	json_decref(allow);
	json_decref(deny);
	/* GPU 1 judged nothing of add: GPU 0's verdicts do not vouch for it */
	lists(s, fps, "float32", 1, &allow, &deny);
	ck_assert(!has(json_object_get(allow, "names"), "add"));
	ck_assert(withheld_for(allow, "add", NULL, "could be judged"));
	json_decref(allow);
	json_decref(deny);
	/* every device: withheld too, though GPU 0 listed it first */
	lists(s, fps, "float32", -1, &allow, &deny);
	ck_assert(!has(json_object_get(allow, "names"), "add"));
	ck_assert(withheld_for(allow, "add", NULL, "could be judged"));
	json_decref(allow);
	json_decref(deny);
	lists(s, fps, "", -1, &allow, &deny);
	ck_assert(!has(json_object_get(allow, "names"), "add"));
	json_decref(allow);
	json_decref(deny);
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

START_TEST(rollup_provenance)
{
	struct store	*s = fresh();
	json_t		*fp = seed_scoped(s), *fps, *allow, *deny, *l, *r;
	int		 i;

	fps = json_pack("[{si sO}]", "device", 0, "fingerprint", fp);
	lists(s, fps, "", 0, &allow, &deny);
	for (i = 0; i < 2; i++) {
		l = i ? deny : allow;
		ck_assert_str_eq(json_string_value(json_object_get(l, "policy")),
		    "strict");
		ck_assert_str_eq(json_string_value(json_object_get(l, "mode")),
		    "eager");
		r = json_array_get(json_object_get(l, "runs"), 0);
		ck_assert_int_eq(json_integer_value(json_object_get(r, "run")), 1);
		ck_assert_str_eq(json_string_value(json_object_get(r,
		    "completed")), "2026-01-01T00:00:00Z");
		ck_assert_str_eq(json_string_value(json_object_get(r, "library")),
		    "demo");
		ck_assert_str_eq(json_string_value(json_object_get(r,
		    "library_version")), "1.2");
		ck_assert_str_eq(json_string_value(json_object_get(r, "gpu_name")),
		    "H200");
		ck_assert_ptr_nonnull(json_object_get(r, "gpu_uuid"));
		ck_assert_ptr_nonnull(json_object_get(r, "library_hash"));
		ck_assert_ptr_nonnull(json_object_get(r, "driver"));
	}
	json_decref(allow);
	json_decref(deny);
	json_decref(fps);
	json_decref(fp);
	cleanup(s);
}
END_TEST

/*
 * Start-up after a stop: the newest run left 'running' is kept for resuming
 * (older leftovers fail), and its counts are recounted from what the store
 * holds whatever the runs row said.
 */
START_TEST(interrupted_runs_kept_and_recounted)
{
	struct store	*s = fresh();
	int64_t		 total = -1, done = -1;

	ck_assert_int_eq(store_exec(s,
	    "INSERT INTO runs (id, state, created, total, done) VALUES "
	    "(1, 'running', 1, 0, 0), (2, 'complete', 1, 0, 0), "
	    "(3, 'running', 1, 9, 7), (4, 'queued', 1, 0, 0);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, spec, "
	    "state) VALUES (1, 3, -1, 'k', 'n', 'same_shape', 'float32', '{}', "
	    "'done'), (2, 3, -1, 'k', 'n', 'same_shape', 'float32', '{}', "
	    "'skipped'), (3, 3, -1, 'k', 'n', 'same_shape', 'float32', '{}', "
	    "'pending'), (4, 3, -1, 'k', 'n', 'same_shape', 'float32', '{}', "
	    "'pending'), (5, 1, -1, 'k', 'n', 'same_shape', 'float32', '{}', "
	    "'done');"
	    "INSERT INTO results (case_id, status, reason, created) VALUES "
	    "(1, 'pass', 'ok', 1), (2, 'skipped', 'key_budget', 1), "
	    "(5, 'pass', 'ok', 1);"), 0);
	ck_assert_int_eq(store_interrupt_stale_runs(s, 3), 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM runs WHERE "
	    "id=1 AND state='failed' AND error='opscreend stopped during the "
	    "run'"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT group_concat(state, ',') "
	    "= 'failed,complete,running,queued' FROM (SELECT state FROM runs "
	    "ORDER BY id)"), 1);
	ck_assert_int_eq(store_run_recount(s, 3, &total, &done), 0);
	ck_assert_int_eq(total, 4);
	ck_assert_int_eq(done, 2);
	ck_assert_int_eq(scalar(store_db(s), "SELECT total * 10 + done FROM runs "
	    "WHERE id=3"), 42);
	ck_assert_int_eq(store_run_recount(s, 99, &total, &done), -1);
	/* no run kept: every one left running fails */
	ck_assert_int_eq(store_interrupt_stale_runs(s, 0), 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM runs WHERE "
	    "state='running'"), 0);
	cleanup(s);
}
END_TEST

/* API threads read through store_reader: it cannot write, whatever it runs */
START_TEST(reader_cannot_write)
{
	struct store	*s = fresh();
	sqlite3		*r = store_reader(path);
	int		 rc;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(scalar(r, "SELECT count(*) FROM runs"), 0);
	rc = sqlite3_exec(r, "INSERT INTO runs (state, request, full, created) "
	    "VALUES ('queued', '{}', 1, 0)", NULL, NULL, NULL);
	ck_assert_int_ne(rc, SQLITE_OK);
	/* read-only however it is asked: a pragma cannot lift it */
	sqlite3_exec(r, "PRAGMA query_only=OFF", NULL, NULL, NULL);
	rc = sqlite3_exec(r, "UPDATE runs SET state='failed'", NULL, NULL, NULL);
	ck_assert_int_eq(rc & 0xff, SQLITE_READONLY);
	ck_assert_int_eq(sqlite3_db_readonly(r, "main"), 1);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM runs"), 0);
	cleanup(s);
}
END_TEST

/* the runs a request queues and cancels, through the typed functions */
START_TEST(runs_queue_and_cancel)
{
	struct store	*s = fresh();
	struct store_run r;
	char		 state[32];
	int		 queued, full;
	int64_t		 a, b;

	ck_assert_int_eq(store_runs_queued(s, &queued, &full), 0);
	ck_assert_int_eq(queued, 0);
	ck_assert_int_gt(a = store_run_queue(s, "{}", 1, 1.0), 0);
	ck_assert_int_gt(b = store_run_queue(s, "{\"ops\":[\"abs\"]}", 0, 2.0),
	    a);
	ck_assert_int_eq(store_runs_queued(s, &queued, &full), 0);
	ck_assert_int_eq(queued, 2);
	ck_assert_int_eq(full, 1);
	ck_assert_int_eq(store_run_next_queued(s, &r), 1);
	ck_assert_int_eq(r.id, a);
	ck_assert_str_eq(r.request, "{}");
	free(r.request);
	ck_assert_int_eq(store_run_cancel_queued(s, a, 3.0), 1);
	ck_assert_int_eq(store_run_cancel_queued(s, a, 3.0), 0);
	ck_assert_int_eq(store_run_state(s, a, state, sizeof(state)), 1);
	ck_assert_str_eq(state, "cancelled");
	ck_assert_int_eq(store_run_state(s, 99, state, sizeof(state)), 0);
	ck_assert_int_eq(store_run_start(s, b, 4.0), 1);
	ck_assert_int_eq(store_run_start(s, b, 4.0), 0);
	ck_assert_int_eq(store_run_resumable(s, &r), 1);
	ck_assert_int_eq(r.id, b);
	free(r.request);
	cleanup(s);
}
END_TEST

static int64_t
fp_env(struct store *s, const char *version, const char *torch,
    const char *uuid)
{
	json_t	*fp = json_pack("{ss ss ss ss ss ss ss ss}", "library", "demo",
	    "library_version", version, "library_hash", version, "torch", torch,
	    "triton", "3.6", "driver", "580", "gpu_uuid", uuid, "python", "3.12");
	int64_t	 id = store_fingerprint(s, fp);

	json_decref(fp);
	return id;
}

/*
 * The screen a run carries from: the newest complete full screen on the
 * same device whose environment (library name, torch, triton, CUDA,
 * driver, GPU, Python) equals the run's; another library version is fine.
 */
START_TEST(carry_source_is_the_same_environment)
{
	struct store	*s = fresh();
	int64_t		 a = fp_env(s, "0.1", "2.11", "GPU-a");
	int64_t		 b = fp_env(s, "0.2", "2.11", "GPU-a");
	int64_t		 c = fp_env(s, "0.1", "2.12", "GPU-a");
	int64_t		 d = fp_env(s, "0.2", "2.11", "GPU-b");
	char		 sql[1024];
	int		 same = -1;

	snprintf(sql, sizeof(sql),
	    "INSERT INTO runs (id, state, full, created) VALUES "
	    "(1, 'complete', 1, 1), (2, 'complete', 1, 2), (3, 'complete', 0, 3),"
	    "(4, 'complete', 1, 4), (5, 'running', 1, 5), (10, 'running', 1, 10);"
	    "INSERT INTO run_devices VALUES (1, 0, %lld), (2, 0, %lld), "
	    "(3, 0, %lld), (4, 1, %lld), (5, 0, %lld);", (long long)a,
	    (long long)c, (long long)a, (long long)a, (long long)a);
	ck_assert_int_eq(store_exec(s, sql), 0);
	/* run 2 has another torch, 3 is restricted, 4 another device, 5 runs */
	ck_assert_int_eq(store_carry_source(s, 10, 0, b, &same), 1);
	ck_assert_int_eq(same, 0);
	ck_assert_int_eq(store_carry_source(s, 10, 0, a, &same), 1);
	ck_assert_int_eq(same, 1);
	ck_assert_int_eq(store_carry_source(s, 10, 0, c, &same), 2);
	/* another GPU: nothing to carry from */
	ck_assert_int_eq(store_carry_source(s, 10, 0, d, &same), 0);
	ck_assert_int_eq(store_carry_source(s, 10, 1, b, &same), 4);
	/* only screens before the run */
	ck_assert_int_eq(store_carry_source(s, 1, 0, a, &same), 0);
	cleanup(s);
}
END_TEST

/* The keys a device may carry: its own digests, against its own. */
START_TEST(carry_keys_are_per_device)
{
	struct store		*s = fresh();
	struct store_cursor	*c;
	struct store_carry_key	 k;
	char			 got[256] = "";
	int			 dev;

	ck_assert_int_eq(store_exec(s,
	    "INSERT INTO runs (id, state, full, created) VALUES "
	    "(1, 'complete', 1, 1), (2, 'running', 1, 2);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, spec) "
	    "VALUES (1, 1, 0, 'mm', 'mm', 'same_shape', 'float32', '{}'),"
	    "(2, 1, 1, 'mm', 'mm', 'same_shape', 'float32', '{}'),"
	    "(3, 2, 0, 'mm', 'mm', 'same_shape', 'float32', '{}'),"
	    "(4, 2, 1, 'mm', 'mm', 'same_shape', 'float32', '{}'),"
	    "(5, 2, 0, 'neg', 'neg', 'same_shape', 'float32', '{}');"
	    "INSERT INTO results (case_id, status, reason, created) VALUES "
	    "(1, 'pass', 'ok', 100), (2, 'pass', 'ok', 200);"
	    /* device 1 (another architecture) loads another mm that changed */
	    "INSERT INTO sources VALUES (1, 0, 'mm', 'hopper'), (1, 1, 'mm', "
	    "'ampere1'), (2, 0, 'mm', 'hopper'), (2, 1, 'mm', 'ampere2'), "
	    "(2, 0, 'neg', '');"), 0);
	for (dev = 0; dev <= 1; dev++) {
		c = store_carry_keys(s, 2, dev, 1);
		ck_assert_ptr_nonnull(c);
		while (store_carry_keys_next(c, &k) == 1)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
			    "%d:%s=%d@%.0f ", dev, k.key, k.unchanged, k.measured);
		store_cursor_free(c);
	}
	ck_assert_str_eq(got, "0:mm=1@100 0:neg=0@0 1:mm=0@200 ");
	cleanup(s);
}
END_TEST

/*
 * store.keep_runs: the runs before the keep-th newest complete one lose their
 * cases and results, except evidence, carry and shrink origins; runs and
 * verdicts stay; the served run and everything after the cutoff stay.
 */
START_TEST(prune_keeps_what_is_read)
{
	struct store	*s = fresh();
	int64_t		 n = -1;

	/*
	 * runs 1-3 complete full, 4 failed, 5 complete full, 6 complete
	 * restricted; each with cases 10r+1..10r+3 on device 0, results
	 */
	ck_assert_int_eq(store_exec(s,
	    "INSERT INTO runs (id, state, full, created) VALUES "
	    "(1, 'complete', 1, 1), (2, 'complete', 1, 2), (3, 'complete', 1, 3), "
	    "(4, 'failed', 1, 4), (5, 'complete', 1, 5), (6, 'complete', 0, 6);"
	    "INSERT INTO run_devices (run_id, device) VALUES (1, 0), (2, 0), "
	    "(3, 0), (4, 0), (5, 0), (6, 0);"
	    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r "
	    "WHERE x < 6), k(y) AS (SELECT 1 UNION ALL SELECT y + 1 FROM k WHERE "
	    "y < 3) INSERT INTO cases (id, run_id, device, key, name, class, "
	    "dtype, spec, state) SELECT 10 * x + y, x, 0, 'k' || y, 'k' || y, "
	    "'same_shape', 'float32', '{}', 'done' FROM r, k;"
	    "INSERT INTO results (case_id, status, reason, created, figures, repro) "
	    "SELECT id, 'pass', 'ok', 1, '{}', 'x' FROM cases;"
	    /* run 1's case 11 is the evidence of its verdict */
	    "INSERT INTO verdicts (run_id, device, key, name, dtype, verdict, "
	    "evidence_case) VALUES (1, 0, 'k1', 'k1', 'float32', 'broken', 11);"
	    /* run 5's case 51 carries run 2's case 22 */
	    "UPDATE results SET carried_from = 22 WHERE case_id = 51;"
	    /* run 22 was itself carried from run 1's 13: an origin's origin */
	    "UPDATE results SET carried_from = 13 WHERE case_id = 22;"
	    /* a shrink reused from run 3 */
	    "UPDATE results SET shrink_from = 33 WHERE case_id = 52;"), 0);
	/* fewer complete runs than kept: nothing goes */
	ck_assert_int_eq(store_prune(s, 10, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM cases"), 18);
	/* keep 0: every run */
	ck_assert_int_eq(store_prune(s, 0, &n), 0);
	ck_assert_int_eq(n, 0);
	/*
	 * keep 2: the cutoff is run 5 (the second newest complete), so runs 5
	 * and 6 stay whole and 1-4 lose what nothing reads: case 11 is
	 * evidence, 22 a carry origin, 13 that origin's own, 33 a shrink's
	 */
	ck_assert_int_eq(store_prune(s, 2, &n), 0);
	{
		sqlite3_stmt	*st;

		ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT "
		    "group_concat(id) FROM (SELECT id FROM cases ORDER BY id)", -1,
		    &st, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
		    "11,13,22,33,51,52,53,61,62,63");
		sqlite3_finalize(st);
	}
	ck_assert_int_eq(n, 8);
	/* results went with their cases; runs and verdicts stayed */
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM results"), 10);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM runs"), 6);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM verdicts"), 1);
	/* again: nothing more */
	ck_assert_int_eq(store_prune(s, 2, &n), 0);
	ck_assert_int_eq(n, 0);
	cleanup(s);
}
END_TEST

/*
 * A lost case run alone (store_alone.c): the next one is the least lost
 * case of the run and device not run alone; reproduced, its detail says
 * so; given a result, its siblings skipped after it (reason 'skipped', not
 * an earlier run's skip_replay, not another key's or dtype's) are pending.
 */
START_TEST(alone_next_reproduced_unskip)
{
	struct store	*s = fresh();
	char		 first[128] = "";
	json_t		*again, *counts;

	ck_assert_int_eq(store_exec(s,
	    "INSERT INTO runs (id, state, full, created) VALUES (1, 'running', "
	    "1, 1);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, "
	    "spec, state) VALUES "
	    "(1, 1, 0, 'tanh', 'tanh', 'same_shape', 'float32', '{}', 'done'),"
	    "(2, 1, 0, 'tanh', 'tanh', 'same_shape', 'float32', '{}', 'skipped'),"
	    "(3, 1, 0, 'tanh', 'tanh', 'compile', 'float32', '{}', 'skipped'),"
	    "(4, 1, 0, 'tanh', 'tanh', 'same_shape', 'float32', '{}', 'skipped'),"
	    "(5, 1, 0, 'tanh', 'tanh', 'same_shape', 'float16', '{}', 'skipped'),"
	    "(6, 1, 0, 'rsqrt', 'rsqrt', 'same_shape', 'float32', '{}', 'done'),"
	    "(7, 1, 1, 'tanh', 'tanh', 'same_shape', 'float32', '{}', 'done');"
	    "INSERT INTO results (case_id, status, reason, detail, created) "
	    "VALUES (1, 'timeout', 'timeout', 'no result within 8 s', 1),"
	    "(2, 'skipped', 'skipped', 'not run: case 1 hung', 1),"
	    "(3, 'skipped', 'skipped', 'not run: case 1 hung', 1),"
	    "(4, 'skipped', 'skip_replay', 'an earlier run', 1),"
	    "(5, 'skipped', 'skipped', 'another dtype', 1),"
	    "(6, 'crash', 'crash', 'killed by signal 6', 1),"
	    "(7, 'pass', 'ok', '', 1);"), 0);
	ck_assert_int_eq(store_alone_next(s, 1, 0, first, sizeof(first)), 1);
	ck_assert_str_eq(first, "timeout: no result within 8 s");
	ck_assert_int_eq(store_alone_next(s, 1, 1, first, sizeof(first)), 0);
	/* case 6 reproduced: marked, said, no longer next */
	ck_assert_int_eq(store_alone_reproduced(s, 6, "reproduced alone: x"), 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM results "
	    "WHERE case_id = 6 AND alone = 'reproduced' AND detail = 'killed "
	    "by signal 6; reproduced alone: x'"), 1);
	/* case 1's result alone (the caller replaced it) */
	ck_assert_int_eq(store_exec(s, "UPDATE results SET status = 'pass' "
	    "WHERE case_id = 1"), 0);
	again = store_alone_unskip(s, 1, "timeout: no result within 8 s");
	ck_assert_ptr_nonnull(again);
	ck_assert_int_eq(json_array_size(again), 2);
	ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(again,
	    0), 0)), 2);
	ck_assert(json_is_false(json_array_get(json_array_get(again, 0), 1)));
	ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(again,
	    1), 0)), 3);
	ck_assert(json_is_true(json_array_get(json_array_get(again, 1), 1)));
	ck_assert_str_eq(json_string_value(json_array_get(json_array_get(again,
	    1), 3)), "tanh");
	json_decref(again);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM cases WHERE "
	    "state = 'pending'"), 2);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM results "
	    "WHERE case_id IN (2, 3)"), 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM results "
	    "WHERE case_id IN (4, 5) AND status = 'skipped'"), 2);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM results "
	    "WHERE case_id = 1 AND alone = 'not_reproduced' AND alone_detail = "
	    "'timeout: no result within 8 s'"), 1);
	ck_assert_int_eq(store_alone_next(s, 1, 0, first, sizeof(first)), 0);
	counts = store_alone_counts(store_db(s), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(counts,
	    "reproduced")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(counts,
	    "not_reproduced")), 1);
	json_decref(counts);
	cleanup(s);
}
END_TEST

/* The run the lists serve is kept whatever keep_runs says. */
START_TEST(prune_keeps_the_served_run)
{
	struct store	*s = fresh();
	int64_t		 n = -1;

	/* run 1 the only full screen; 2-4 restricted runs after it */
	ck_assert_int_eq(store_exec(s,
	    "INSERT INTO runs (id, state, full, created) VALUES "
	    "(1, 'complete', 1, 1), (2, 'complete', 0, 2), (3, 'complete', 0, 3), "
	    "(4, 'complete', 0, 4);"
	    "INSERT INTO run_devices (run_id, device) VALUES (1, 0), (2, 0), "
	    "(3, 0), (4, 0);"
	    "INSERT INTO cases (id, run_id, device, key, name, class, dtype, spec) "
	    "VALUES (1, 1, 0, 'k', 'k', 'same_shape', 'float32', '{}'), "
	    "(2, 2, 0, 'k', 'k', 'same_shape', 'float32', '{}');"), 0);
	ck_assert_int_eq(store_prune(s, 1, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(scalar(store_db(s), "SELECT count(*) FROM cases"), 2);
	cleanup(s);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("store");
	TCase	*t = tcase_create("store");
	SRunner	*r;
	int	 failed;

	log_init(0, 0);
	tcase_add_test(t, migrates_once);
	tcase_add_test(t, refuses_newer_schema);
	tcase_add_test(t, missing_directory);
	tcase_add_test(t, fingerprint_identity);
	tcase_add_test(t, rollup_rules);
	tcase_add_test(t, rollup_policies);
	tcase_add_test(t, rollup_fails_closed);
	tcase_add_test(t, rollup_ignores_running_and_restricted);
	tcase_add_test(t, rollup_dtype_scope);
	tcase_add_test(t, rollup_device_scope);
	tcase_add_test(t, rollup_provenance);
	tcase_add_test(t, interrupted_runs_kept_and_recounted);
	tcase_add_test(t, reader_cannot_write);
	tcase_add_test(t, runs_queue_and_cancel);
	tcase_add_test(t, carry_source_is_the_same_environment);
	tcase_add_test(t, carry_keys_are_per_device);
	tcase_add_test(t, prune_keeps_what_is_read);
	tcase_add_test(t, prune_keeps_the_served_run);
	tcase_add_test(t, alone_next_reproduced_unskip);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
