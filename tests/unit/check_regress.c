/*
 * check_regress.c: the comparison of two full screens on hand-built stores:
 * which changes become events, which previous run is chosen, and what each
 * event carries.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_fixture.h"

static void
exec_ok(struct store *s, const char *sql)
{
	char	*err = NULL;

	ck_assert_msg(sqlite3_exec(store_db(s), sql, NULL, NULL, &err) ==
	    SQLITE_OK, "%s: %s", sql, err ? err : "?");
}

/* One run: its entries (name:key pairs) and verdicts (device,key,name,dtype,v). */
static void
seed(struct store *s, int id, const char *state, int full)
{
	char	 sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO runs (id, state, full, created) "
	    "VALUES (%d, '%s', %d, 1)", id, state, full);
	exec_ok(s, sql);
}

static void
entry(struct store *s, int run, const char *key, const char *name)
{
	char	 sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO entries (run_id, key, name, schema, screened) VALUES (%d, '%s', '%s', "
	    "'', 1)", run, key, name);
	exec_ok(s, sql);
}

static void
verdict(struct store *s, int run, int device, const char *key,
    const char *name, const char *dtype, const char *v)
{
	char	 sql[512];

	snprintf(sql, sizeof(sql), "INSERT INTO verdicts (run_id, device, key, "
	    "name, dtype, verdict, reason, class, detail) VALUES (%d, %d, '%s', "
	    "'%s', '%s', '%s', '%s', '%s', '%s')", run, device, key, name, dtype,
	    v, strcmp(v, "verified") ? "numeric_error" : "",
	    strcmp(v, "verified") ? "elementwise" : "",
	    strcmp(v, "verified") ? "max ulp 2^20 at [3]" : "");
	exec_ok(s, sql);
}

/* The events of `run` as one array of {kind, ...json} objects, by id. */
static json_t *
events(struct store *s, int run)
{
	sqlite3_stmt	*st;
	json_t		*a = json_array(), *o;
	json_error_t	 jerr;

	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT kind, json FROM "
	    "events WHERE run_id=? ORDER BY id", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		o = json_loads((const char *)sqlite3_column_text(st, 1), 0, &jerr);
		ck_assert_ptr_nonnull(o);
		json_object_set_new(o, "kind", json_string((const char *)
		    sqlite3_column_text(st, 0)));
		json_array_append_new(a, o);
	}
	sqlite3_finalize(st);
	return a;
}

static json_t *
find(json_t *evs, const char *kind, const char *name, const char *dtype)
{
	json_t	*e;
	size_t	 i;

	json_array_foreach(evs, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "kind")), kind) &&
		    !strcmp(json_string_value(json_object_get(e, "name")), name) &&
		    (dtype == NULL || !strcmp(json_string_value(json_object_get(e,
		    "dtype")) ?: "", dtype)))
			return e;
	return NULL;
}

/*
 * Run 1: full, complete. Run 2: restricted (never the baseline). Run 3: full,
 * failed (never the baseline). Run 4: full, complete, compared with run 1.
 */
static void
seed_history(struct store *s)
{
	seed(s, 1, "complete", 1);
	entry(s, 1, "add.Tensor", "add");
	entry(s, 1, "sub.Tensor", "sub");
	entry(s, 1, "neg", "neg");
	entry(s, 1, "div.Tensor", "div");
	entry(s, 1, "div.Scalar", "div");
	entry(s, 1, "old", "old_op");
	verdict(s, 1, 0, "add.Tensor", "add", "float32", "verified");
	verdict(s, 1, 0, "add.Tensor", "add", "bfloat16", "verified");
	verdict(s, 1, 0, "sub.Tensor", "sub", "float32", "broken");
	verdict(s, 1, 0, "neg", "neg", "float32", "verified");
	verdict(s, 1, 0, "div.Tensor", "div", "float32", "verified");
	verdict(s, 1, 0, "div.Scalar", "div", "float32", "verified");
	verdict(s, 1, 1, "add.Tensor", "add", "float32", "verified");

	seed(s, 2, "complete", 0);
	entry(s, 2, "add.Tensor", "add");
	verdict(s, 2, 0, "add.Tensor", "add", "float32", "broken");
	seed(s, 3, "failed", 1);

	seed(s, 4, "complete", 1);
	entry(s, 4, "add.Tensor", "add");
	entry(s, 4, "sub.Tensor", "sub");
	entry(s, 4, "neg", "neg");
	entry(s, 4, "div.Tensor", "div");
	entry(s, 4, "div.Scalar", "div");
	entry(s, 4, "fresh", "new_op");
	verdict(s, 4, 0, "add.Tensor", "add", "float32", "broken");
	verdict(s, 4, 0, "add.Tensor", "add", "bfloat16", "verified");
	verdict(s, 4, 0, "sub.Tensor", "sub", "float32", "verified");
	verdict(s, 4, 0, "neg", "neg", "float32", "inconclusive");
	verdict(s, 4, 0, "div.Tensor", "div", "float32", "verified");
	verdict(s, 4, 0, "div.Scalar", "div", "float32", "hazard");
	verdict(s, 4, 1, "add.Tensor", "add", "float32", "verified");
}

START_TEST(previous_is_last_full_complete)
{
	struct store	*s = fresh();

	seed_history(s);
	ck_assert_int_eq(regress_previous(store_db(s), 4), 1);
	ck_assert_int_eq(regress_previous(store_db(s), 1), 0);
	cleanup(s);
}
END_TEST

START_TEST(transitions_become_events)
{
	struct store	*s = fresh();
	json_t		*evs, *e;
	int		 n, nreg;

	seed_history(s);
	ck_assert_int_eq(store_begin(s), 0);
	nreg = regress_run(store_db(s), 4, 1000.0, &n);
	ck_assert_int_eq(store_commit(s), 0);
	evs = events(s, 4);
	/* add f32 on device 0, div (hazard) f32; sub fixed; new_op; old_op */
	ck_assert_int_eq(nreg, 2);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(json_array_size(evs), 5);

	e = find(evs, "regression", "add", "float32");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "device")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "from")), "verified");
	ck_assert_str_eq(json_string_value(json_object_get(e, "to")), "broken");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "run")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "previous_run")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(e, "key")),
	    "add.Tensor");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")),
	    "numeric_error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "detail")),
	    "max ulp 2^20 at [3]");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "evidence_run")),
	    4);

	/* one bad key of two is enough to regress the name */
	e = find(evs, "regression", "div", "float32");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "to")), "hazard");
	ck_assert_str_eq(json_string_value(json_object_get(e, "key")),
	    "div.Scalar");

	e = find(evs, "fix", "sub", "float32");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "from")), "broken");
	ck_assert_str_eq(json_string_value(json_object_get(e, "to")), "verified");
	/* the evidence of a fix is the old failure */
	ck_assert_int_eq(json_integer_value(json_object_get(e, "evidence_run")),
	    1);

	e = find(evs, "new", "new_op", NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "key")), "fresh");
	ck_assert(json_is_null(json_object_get(e, "device")));
	ck_assert_ptr_nonnull(find(evs, "vanished", "old_op", NULL));

	/* unchanged, other device, and verified -> inconclusive: no event */
	ck_assert_ptr_null(find(evs, "regression", "add", "bfloat16"));
	ck_assert_ptr_null(find(evs, "regression", "neg", NULL));
	ck_assert_ptr_null(find(evs, "fix", "neg", NULL));
	json_decref(evs);
	cleanup(s);
}
END_TEST

START_TEST(first_screen_has_no_baseline)
{
	struct store	*s = fresh();
	int		 n = -1;

	seed(s, 1, "complete", 1);
	entry(s, 1, "add.Tensor", "add");
	verdict(s, 1, -1, "add.Tensor", "add", "float32", "broken");
	ck_assert_int_eq(regress_run(store_db(s), 1, 1000.0, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(json_array_size(events(s, 1)), 0);
	cleanup(s);
}
END_TEST

START_TEST(identical_screens_are_quiet)
{
	struct store	*s = fresh();
	int		 n = -1, r;

	for (r = 1; r <= 2; r++) {
		seed(s, r, "complete", 1);
		entry(s, r, "add.Tensor", "add");
		verdict(s, r, -1, "add.Tensor", "add", "float32", "broken");
		verdict(s, r, -1, "add.Tensor", "add", "float16", "verified");
	}
	ck_assert_int_eq(regress_run(store_db(s), 2, 1000.0, &n), 0);
	ck_assert_int_eq(n, 0);
	cleanup(s);
}
END_TEST

static void
fp_of(struct store *s, int run, int device, int fp)
{
	char	 sql[256];

	snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO fingerprints (id, "
	    "hash, json, library_hash, created) VALUES (%d, 'h%d', '{}', "
	    "'%d', 1)", fp, fp, fp);
	exec_ok(s, sql);
	snprintf(sql, sizeof(sql), "INSERT INTO run_devices (run_id, device, "
	    "fingerprint_id) VALUES (%d, %d, %d)", run, device, fp);
	exec_ok(s, sql);
}

/* "verdict reason" of (run, device 0, key, float32) */
static const char *
state_of(struct store *s, int run, const char *key)
{
	static char	 buf[128];
	sqlite3_stmt	*st;

	buf[0] = '\0';
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT verdict || ' ' "
	    "|| reason FROM verdicts WHERE run_id=? AND device=0 AND key=? AND "
	    "dtype='float32'", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int(st, 1, run);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, sizeof(buf), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/*
 * Runs 1-3 screen one library (fingerprint 1), run 4 another (2). A failure
 * of run 1 stays broken in run 2 (intermittent), is cleared by run 3 (an
 * intermittent is not carried again), and is not carried over a library
 * change; a restricted run is never the baseline.
 */
START_TEST(a_failure_is_not_cleared_by_one_clean_rescreen)
{
	struct store	*s = fresh();
	int		 r, n = -1;

	for (r = 1; r <= 5; r++) {
		seed(s, r, "complete", r != 3);
		fp_of(s, r, 0, r < 5 ? 1 : 2);
		entry(s, r, "add.Tensor", "add");
		entry(s, r, "neg", "neg");
	}
	verdict(s, 1, 0, "add.Tensor", "add", "float32", "broken");
	verdict(s, 1, 0, "neg", "neg", "float32", "verified");
	exec_ok(s, "UPDATE verdicts SET evidence_case=NULL");
	exec_ok(s, "UPDATE verdicts SET severity='numerics', n_numerics=3 "
	    "WHERE run_id=1 AND key='add.Tensor'");
	for (r = 2; r <= 5; r++) {
		verdict(s, r, 0, "add.Tensor", "add", "float32", "verified");
		verdict(s, r, 0, "neg", "neg", "float32", "verified");
	}
	/* run 4 broke neg: carried to nothing (run 5 is another library) */
	exec_ok(s, "UPDATE verdicts SET verdict='broken', reason='mismatch' "
	    "WHERE run_id=4 AND key='neg'");

	ck_assert_int_eq(regress_intermittent(store_db(s), 2), 1);
	ck_assert_str_eq(state_of(s, 2, "add.Tensor"), "broken intermittent");
	ck_assert_str_eq(state_of(s, 2, "neg"), "verified ");
	/* with run 1's severity and counts: a tolerant list judges it so */
	{
		sqlite3_stmt	*st;

		ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT "
		    "severity, n_numerics, n_critical FROM verdicts WHERE "
		    "run_id=2 AND key='add.Tensor'", -1, &st, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
		    "numerics");
		ck_assert_int_eq(sqlite3_column_int(st, 1), 3);
		ck_assert_int_eq(sqlite3_column_int(st, 2), 0);
		sqlite3_finalize(st);
	}
	/* the evidence and class are run 1's; the detail names both runs */
	{
		sqlite3_stmt	*st;

		ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT class, "
		    "detail FROM verdicts WHERE run_id=2 AND key='add.Tensor'",
		    -1, &st, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
		    "elementwise");
		ck_assert_ptr_nonnull(strstr((const char *)sqlite3_column_text(
		    st, 1), "failed in run 1 of this library"));
		ck_assert_ptr_nonnull(strstr((const char *)sqlite3_column_text(
		    st, 1), "numeric_error: max ulp 2^20 at [3]"));
		sqlite3_finalize(st);
	}
	/* and the comparison sees no fix of add between runs 1 and 2 */
	ck_assert_int_eq(regress_run(store_db(s), 2, 1000.0, &n), 0);
	ck_assert_ptr_null(find(events(s, 2), "fix", "add", NULL));

	/* run 3 is restricted: run 4's baseline is run 2, whose add was only
	 * carried: run 4 verifies it */
	ck_assert_int_eq(regress_intermittent(store_db(s), 4), 0);
	ck_assert_str_eq(state_of(s, 4, "add.Tensor"), "verified ");
	ck_assert_str_eq(state_of(s, 4, "neg"), "broken mismatch");
	/* run 5: another fingerprint, nothing carried; the regression of
	 * run 4 on the library of run 2 says it was the same library */
	ck_assert_int_eq(regress_intermittent(store_db(s), 5), 0);
	ck_assert_str_eq(state_of(s, 5, "neg"), "verified ");
	ck_assert_int_eq(regress_run(store_db(s), 4, 1000.0, &n), 1);
	ck_assert(json_is_true(json_object_get(find(events(s, 4), "regression",
	    "neg", "float32"), "same_library")));
	ck_assert_int_eq(regress_run(store_db(s), 5, 1000.0, &n), 0);
	ck_assert(json_is_false(json_object_get(find(events(s, 5), "fix",
	    "neg", "float32"), "same_library")));
	cleanup(s);
}
END_TEST

/* What each move between two screens means; unknown words fail closed. */
START_TEST(changes_are_classified)
{
	static const struct {
		const char	*from, *fsev, *to, *tsev;
		enum regress_change want;
	} t[] = {
		{ "verified", "", "verified", "", REGRESS_SAME },
		{ "verified", "", "broken", "numerics", REGRESS_REGRESSION },
		{ "verified", "", "hazard", "", REGRESS_REGRESSION },
		{ "inconclusive", "", "broken", "loud", REGRESS_REGRESSION },
		{ "broken", "critical", "verified", "", REGRESS_FIX },
		{ "hazard", "", "verified", "", REGRESS_FIX },
		{ "broken", "critical", "inconclusive", "", REGRESS_CHANGED },
		{ "verified", "", "inconclusive", "", REGRESS_CHANGED },
		{ "inconclusive", "", "verified", "", REGRESS_CHANGED },
		{ "broken", "numerics", "broken", "critical", REGRESS_WORSE },
		{ "broken", "numerics", "broken", "loud", REGRESS_WORSE },
		{ "broken", "critical", "broken", "numerics", REGRESS_MILDER },
		{ "broken", "loud", "broken", "loud", REGRESS_SAME },
		/* a failure stored without a severity reads as critical */
		{ "broken", "", "broken", "critical", REGRESS_SAME },
		{ "broken", "", "broken", "loud", REGRESS_MILDER },
		{ "hazard", "", "broken", "numerics", REGRESS_WORSE },
		{ "broken", "numerics", "hazard", "", REGRESS_MILDER },
		{ NULL, NULL, "verified", "", REGRESS_NEW },
		{ "broken", "loud", NULL, NULL, REGRESS_GONE },
		/* a word outside the vocabulary ranks worst */
		{ "verified", "", "exploded", "", REGRESS_REGRESSION },
	};
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(regress_change(t[i].from, t[i].fsev, t[i].to,
		    t[i].tsev) == t[i].want, "%zu: %s/%s -> %s/%s: %s", i,
		    t[i].from, t[i].fsev, t[i].to, t[i].tsev,
		    regress_change_name(regress_change(t[i].from, t[i].fsev,
		    t[i].to, t[i].tsev)));
	ck_assert_str_eq(regress_change_name(REGRESS_WORSE), "worse");
}
END_TEST

static json_t *
change_of(json_t *diff, const char *key, const char *dtype, int device)
{
	json_t	*c;
	size_t	 i;

	json_array_foreach(json_object_get(diff, "changes"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "key")), key) &&
		    !strcmp(json_string_value(json_object_get(c, "dtype")),
		    dtype) && json_integer_value(json_object_get(c, "device")) ==
		    device)
			return c;
	return NULL;
}

/*
 * Runs 1 and 2 screen library 1, run 3 (restricted) and run 4 library 2:
 * by default /diff compares run 4 with run 2, the newest full screen of
 * another fingerprint, and lists every key x dtype x device that moved,
 * with what the move means; with one fingerprint only, the previous full
 * screen; a device filter keeps one device's rows.
 */
START_TEST(diff_of_two_fingerprints)
{
	struct store	*s = fresh();
	int64_t		 from = 0, to = 0;
	json_t		*d, *c;
	int		 r;

	ck_assert_int_eq(regress_diff_default(store_db(s), &from, &to), 0);
	for (r = 1; r <= 4; r++) {
		seed(s, r, "complete", r != 3);
		fp_of(s, r, 0, r < 3 ? 1 : 2);
		fp_of(s, r, 1, r < 3 ? 1 : 2);
	}
	verdict(s, 2, 0, "add.Tensor", "add", "float32", "verified");
	verdict(s, 2, 0, "neg", "neg", "float32", "broken");
	verdict(s, 2, 0, "exp", "exp", "float32", "broken");
	verdict(s, 2, 0, "cos", "cos", "float32", "verified");
	verdict(s, 2, 1, "add.Tensor", "add", "float32", "verified");
	verdict(s, 2, 0, "gone", "gone", "float32", "verified");
	exec_ok(s, "UPDATE verdicts SET severity='numerics' WHERE run_id=2 AND "
	    "key='exp'");
	verdict(s, 4, 0, "add.Tensor", "add", "float32", "broken");
	verdict(s, 4, 0, "neg", "neg", "float32", "verified");
	verdict(s, 4, 0, "exp", "exp", "float32", "broken");
	verdict(s, 4, 0, "cos", "cos", "float32", "verified");
	verdict(s, 4, 1, "add.Tensor", "add", "float32", "verified");
	verdict(s, 4, 0, "new", "new", "float32", "verified");
	exec_ok(s, "UPDATE verdicts SET severity='critical' WHERE run_id=4 AND "
	    "verdict='broken'");

	ck_assert_int_eq(regress_diff_default(store_db(s), &from, &to), 1);
	ck_assert_int_eq(to, 4);
	ck_assert_int_eq(from, 2);
	d = regress_diff(store_db(s), from, to, -2);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(json_array_size(json_object_get(d, "changes")), 5);
	c = change_of(d, "add.Tensor", "float32", 0);
	ck_assert_str_eq(json_string_value(json_object_get(c, "change")),
	    "regression");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(c,
	    "to"), "severity")), "critical");
	ck_assert_str_eq(json_string_value(json_object_get(change_of(d, "neg",
	    "float32", 0), "change")), "fix");
	ck_assert_str_eq(json_string_value(json_object_get(change_of(d, "exp",
	    "float32", 0), "change")), "worse");
	ck_assert_str_eq(json_string_value(json_object_get(change_of(d, "new",
	    "float32", 0), "change")), "new");
	ck_assert(json_is_null(json_object_get(change_of(d, "new", "float32",
	    0), "from")));
	ck_assert_str_eq(json_string_value(json_object_get(change_of(d, "gone",
	    "float32", 0), "change")), "gone");
	ck_assert_ptr_null(change_of(d, "cos", "float32", 0));
	ck_assert_ptr_null(change_of(d, "add.Tensor", "float32", 1));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(d,
	    "counts"), "same")), 2);
	c = json_array_get(json_object_get(json_object_get(d, "to"),
	    "fingerprints"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(c, "device")), 0);
	json_decref(d);

	/* device 1 only: nothing moved there */
	d = regress_diff(store_db(s), from, to, 1);
	ck_assert_int_eq(json_array_size(json_object_get(d, "changes")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(d,
	    "counts"), "same")), 1);
	json_decref(d);

	/* one fingerprint only: the previous full screen */
	from = 0;
	to = 2;
	ck_assert_int_eq(regress_diff_default(store_db(s), &from, &to), 1);
	ck_assert_int_eq(from, 1);
	/* a run that does not exist is no side */
	ck_assert_ptr_null(regress_diff(store_db(s), 99, 4, -2));
	cleanup(s);
}
END_TEST

/*
 * A key whose source digest differs between two full screens is a
 * `changed` event, verdicts moved or not; a key without a digest (a runner
 * that could not follow it) says nothing.
 */
START_TEST(changed_sources_are_events)
{
	struct store	*s = fresh();
	json_t		*evs, *e;
	int		 n = -1, r;

	for (r = 1; r <= 2; r++) {
		seed(s, r, "complete", 1);
		entry(s, r, "add.Tensor", "add");
		entry(s, r, "neg", "neg");
		entry(s, r, "abs", "abs");
		verdict(s, r, -1, "add.Tensor", "add", "float32", "verified");
	}
	exec_ok(s, "INSERT INTO sources VALUES (1, 0, 'add.Tensor', 'a1'), "
	    "(2, 0, 'add.Tensor', 'a2'), (1, 0, 'neg', 'n'), (2, 0, 'neg', 'n'), "
	    "(1, 0, 'abs', ''), (2, 0, 'abs', 'x'), (1, 1, 'neg', 'n'), "
	    "(2, 1, 'neg', 'n')");
	ck_assert_int_eq(regress_run(store_db(s), 2, 1000.0, &n), 0);
	ck_assert_int_eq(n, 1);
	evs = events(s, 2);
	ck_assert_int_eq(json_array_size(evs), 1);
	e = json_array_get(evs, 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "changed");
	ck_assert_str_eq(json_string_value(json_object_get(e, "key")), "add.Tensor");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "previous_run")), 1);
	json_decref(evs);
	cleanup(s);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("regress");
	TCase	*t = tcase_create("regress");
	SRunner	*r;
	int	 failed;

	log_init(0, 0);
	tcase_add_test(t, previous_is_last_full_complete);
	tcase_add_test(t, transitions_become_events);
	tcase_add_test(t, first_screen_has_no_baseline);
	tcase_add_test(t, identical_screens_are_quiet);
	tcase_add_test(t, a_failure_is_not_cleared_by_one_clean_rescreen);
	tcase_add_test(t, changes_are_classified);
	tcase_add_test(t, diff_of_two_fingerprints);
	tcase_add_test(t, changed_sources_are_events);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
