/*
 * skip.c: recording cases as skipped (never run, never judged) and dropping
 * them from the queues; replaying a previous screen's skips.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opscreend.h"
#include "verdict.h"
#include "probes.h"
#include "scheduler.h"

static void	queue_drop_skipped(struct devq *, sqlite3_stmt *);

/* Prepares sql and binds the ?1..?4 of cases_skip()'s WHERE clause. */
static sqlite3_stmt *
skip_prepare(const char *sql, json_t *a)
{
	sqlite3_stmt	*st;
	const char	*dtype = json_string_value(json_object_get(a, "dtype"));

	if (sqlite3_prepare_v2(store_db(env->store), sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(a, "run")));
	sqlite3_bind_int(st, 2, json_integer_value(json_object_get(a, "device")));
	sqlite3_bind_text(st, 3, json_string_value(json_object_get(a, "key")), -1,
	    SQLITE_TRANSIENT);
	if (dtype != NULL)
		sqlite3_bind_text(st, 4, dtype, -1, SQLITE_TRANSIENT);
	return st;
}

static int	skip_last;	/* cases w_skip() recorded */

/* cases_skip()'s write, with the runners' cases as they were when asked. */
static int
w_skip(void *p)
{
	json_t		*a = p;
	sqlite3		*db = store_db(env->store);
	sqlite3_stmt	*st;
	char		 sql[4096], where[3072];
	int64_t		 run = json_integer_value(json_object_get(a, "run"));
	int		 n, s = json_integer_value(json_object_get(a, "slot"));

	snprintf(where, sizeof(where), "run_id=?1 AND device=?2 AND key=?3 AND "
	    "(?4 IS NULL OR dtype=?4) AND state='pending' AND id NOT IN (0%s)%s",
	    json_string_value(json_object_get(a, "busy")),
	    json_string_value(json_object_get(a, "cls")));
	if (store_begin(env->store) == -1)
		return pw_refused("skipping cases");
	snprintf(sql, sizeof(sql), "INSERT INTO results (case_id, status, reason, "
	    "detail, created) SELECT id, 'skipped', ?5, ?6, ?7 FROM cases WHERE "
	    "%s", where);
	if ((st = skip_prepare(sql, a)) == NULL)
		return pw_refused("skipping cases");
	sqlite3_bind_text(st, 5, json_string_value(json_object_get(a, "reason")),
	    -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, json_string_value(json_object_get(a, "detail")),
	    -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 7, json_real_value(json_object_get(a,
	    "created")));
	if (sqlite3_step(st) != SQLITE_DONE) {
		pw_note("skipping cases");
		sqlite3_finalize(st);
		store_rollback(env->store);
		return -1;
	}
	n = sqlite3_changes(db);
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "UPDATE cases SET state='skipped' WHERE %s",
	    where);
	if ((st = skip_prepare(sql, a)) == NULL)
		return pw_refused("skipping cases");
	if (sqlite3_step(st) != SQLITE_DONE) {
		pw_note("skipping cases");
		sqlite3_finalize(st);
		store_rollback(env->store);
		return -1;
	}
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "UPDATE runs SET done=done+%d WHERE id=%lld",
	    n, (long long)run);
	if (store_exec(env->store, sql) == -1 || store_commit(env->store) == -1)
		return pw_refused("skipping cases");
	skip_last = n;
	if (run != sched.cur.run_id)
		return 0;
	sched.cur.done += n;
	if (n > 0 && sqlite3_prepare_v2(db, "SELECT state FROM cases WHERE id=?",
	    -1, &st, NULL) == SQLITE_OK) {
		queue_drop_skipped(&sched.cur.q[s], st);
		queue_drop_skipped(&sched.cur.cq[s], st);
		sqlite3_finalize(st);
	}
	return 0;
}

/*
 * Records the pending cases of key (and dtype, unless NULL) on device as
 * `skipped` with reason and detail, except those a runner holds right now
 * (they finish on their own); cls narrows them (a literal SQL "AND ..."
 * clause, "" for none).  They leave the in-memory queues too.  Returns how
 * many, 0 when the store refused and the write is held (pw_write: it is
 * made, as asked now, before any case is sent), or -1 when it cannot be.
 */
int
cases_skip(int device, const char *key, const char *dtype, const char *reason,
    const char *detail, const char *cls)
{
	char		 busy[MAX_WORKERS * 24] = "";
	int		 i, j, rc, s = slot_of_device(device);
	json_t		*a;

	if (s < 0)
		return -1;
	for (i = 0, j = 0; i < env->nworkers; i++)
		if (env->workers[i].case_id && j + 24 < (int)sizeof(busy))
			j += snprintf(busy + j, sizeof(busy) - j, ",%lld",
			    (long long)env->workers[i].case_id);
	a = json_pack("{sI si si ss so ss ss ss ss sf}", "run",
	    (json_int_t)sched.cur.run_id, "slot", s, "device", device, "key", key,
	    "dtype", dtype ? json_string(dtype) : json_null(), "reason", reason,
	    "detail", detail, "cls", cls, "busy", busy, "created", now_wall());
	skip_last = 0;
	if ((rc = pw_write(w_skip, a)) == -1)
		return -1;
	return rc == 0 ? skip_last : 0;
}

/*
 * Skips in this run, before any case runs, the cases of each key that the
 * newest complete run of this library (fingerprint) on the device that
 * screened the key, among the runs `prior` admits (a SQL condition on runs
 * r; ?4 is the key budget), recorded skipped with one of `reasons` (a SQL
 * list), matched by key and spec; they are recorded with `reason` and a
 * detail from `why` (a format taking that run's id).  Returns the cases
 * skipped and their keys in *nkeys, -1 on a store error.
 */
int
prior_skips_replay(int slot, int64_t fpid, const char *prior, double budget,
    const char *reasons, const char *reason, const char *why, int *nkeys)
{
	sqlite3		*db = store_db(env->store);
	sqlite3_stmt	*st;
	int		 device = sched.cur.q[slot].device, n = 0, k;
	char		 sql[1024], detail[256], cls[384];
	json_t		*keys, *v;
	size_t		 i;

	*nkeys = 0;
	snprintf(sql, sizeof(sql), "WITH prior AS (SELECT r.id FROM runs r JOIN "
	    "run_devices d ON d.run_id = r.id WHERE r.state = 'complete' AND "
	    "r.id != ?1 AND d.device = ?2 AND d.fingerprint_id = ?3 AND (%s)), "
	    "latest AS (SELECT c.key, max(c.run_id) AS run FROM cases c WHERE "
	    "c.run_id IN prior AND c.device = ?2 GROUP BY c.key) SELECT l.key, "
	    "l.run FROM latest l WHERE EXISTS (SELECT 1 FROM cases p JOIN "
	    "results pr ON pr.case_id = p.id WHERE p.run_id = l.run AND p.state "
	    "= 'skipped' AND p.device = ?2 AND p.key = l.key AND p.class != "
	    "'compile' AND pr.reason IN (%s))", prior, reasons);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, sched.cur.run_id);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, fpid);
	sqlite3_bind_double(st, 4, budget);
	keys = json_array();
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(keys, json_pack("[sI]", (const char *)
		    sqlite3_column_text(st, 0), (json_int_t)
		    sqlite3_column_int64(st, 1)));
	sqlite3_finalize(st);
	json_array_foreach(keys, i, v) {
		long long	 prev = json_integer_value(json_array_get(v, 1));

		snprintf(detail, sizeof(detail), why, prev);
		snprintf(cls, sizeof(cls), " AND class != 'compile' AND spec IN "
		    "(SELECT p.spec FROM cases p JOIN results pr ON pr.case_id = "
		    "p.id WHERE p.run_id=%lld AND p.device=?2 AND p.key=?3 AND "
		    "p.state='skipped' AND pr.reason IN (%s))", prev, reasons);
		if ((k = cases_skip(device, json_string_value(json_array_get(v,
		    0)), NULL, reason, detail, cls)) == -1) {
			json_decref(keys);
			return -1;
		}
		n += k;
		*nkeys += k > 0;
	}
	json_decref(keys);
	return n;
}

/*
 * One library, one coverage, for hangs and crashes too: the cases that the
 * newest complete run of this library (any budget) that screened a key
 * skipped because a case of their key and dtype hung or crashed (or that it
 * skipped again for that reason) are skipped in this one before any case
 * runs, with reason `skip_replay`.  The case that hung runs again.  Without
 * it a re-screen runs cases the earlier screen never reached: the cold
 * screen's mm.out fp32 case autotuned past its deadline, its siblings were
 * skipped, and the warm screen ran one of them cold (a new shape, 201 s of
 * autotuning), longer than the whole warm screen's other cases.  Unlike the
 * skips it replays, a `skip_replay` case enters the key and dtype's verdict
 * as inconclusive: a key and dtype whose other cases now pass is not
 * verified on part of its cases.  Returns the cases skipped, -1 on a store
 * error.
 */
int
skip_replay(int slot, int64_t fpid)
{
	int	n, nkeys;

	n = prior_skips_replay(slot, fpid, "1", 0, "'skipped', 'skip_replay'",
	    "skip_replay", "not run: run %lld of this library skipped it after "
	    "a case of its key and dtype hung or crashed; a re-screen of one "
	    "library keeps its coverage", &nkeys);
	if (n > 0)
		log_info("run %lld: device %d (-1 = cpu): %d cases of %d keys "
		    "not run, as the library's last run of each skipped them "
		    "after a hang or crash", (long long)sched.cur.run_id,
		    sched.cur.q[slot].device, n, nkeys);
	return n;
}

/*
 * After a case of (key, dtype) hung or crashed, its remaining cases on that
 * device are recorded as skipped rather than each waiting out a deadline or
 * crashing a runner: one bad op never dominates a run.
 */
static void
queue_drop_skipped(struct devq *q, sqlite3_stmt *st)
{
	size_t	 i, j;

	for (i = q->head, j = q->head; i < q->len; i++) {
		int	 keep = 1;

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, q->ids[i]);
		if (sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)
		    sqlite3_column_text(st, 0), "skipped"))
			keep = 0;
		if (keep) {
			q->kix[j] = q->kix[i];
			q->ids[j++] = q->ids[i];
		}
	}
	q->len = j;
}

void
case_skip_siblings(int64_t case_id, int device, int compile_only)
{
	sqlite3_stmt	*st;
	char		 key[256] = "", dtype[32] = "", detail[160];
	int		 n;

	if (sqlite3_prepare_v2(store_db(env->store), "SELECT key, dtype FROM "
	    "cases WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, case_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(key, sizeof(key), "%s", sqlite3_column_text(st, 0));
		snprintf(dtype, sizeof(dtype), "%s", sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (key[0] == '\0')
		return;
	snprintf(detail, sizeof(detail), "not run: case %lld of this key and "
	    "dtype hung or crashed", (long long)case_id);
	n = cases_skip(device, key, dtype, "skipped", detail, compile_only ?
	    " AND class='compile'" : "");
	if (n > 0)
		log_info("skipped %d remaining cases of %s/%s on device %d", n,
		    key, dtype, device);
}
