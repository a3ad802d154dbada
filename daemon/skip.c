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
#include "policy.h"

static void	queue_drop_skipped(struct devq *, sqlite3_stmt *);

/*
 * cases_skip()'s WHERE clause: its struct case_filter as bound parameters
 * ?1..?4 and ?8..?14 (skip_prepare), ?5..?7 left to the statement.
 */
#define SKIP_WHERE \
	"run_id=?1 AND device=?2 AND key=?3 AND (?4 IS NULL OR dtype=?4) AND " \
	"state='pending' AND id NOT IN (SELECT value FROM json_each(?8)) AND " \
	"(?9 IS NULL OR class = ?9) AND (?10 IS NULL OR class != ?10) AND " \
	"(?11 = 0 OR id = ?11) AND (?12 = 0 OR spec IN (SELECT p.spec FROM " \
	"cases p JOIN results pr ON pr.case_id = p.id WHERE p.run_id=?12 AND " \
	"p.device=?2 AND p.key=?3 AND p.state='skipped' AND pr.reason IN " \
	"(?13, ?14)))"

static void
skip_bind_text(sqlite3_stmt *st, int i, json_t *a, const char *k)
{
	const char	*v = json_string_value(json_object_get(a, k));

	if (v != NULL)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Prepares sql and binds the parameters of SKIP_WHERE from a. */
static sqlite3_stmt *
skip_prepare(const char *sql, json_t *a)
{
	sqlite3_stmt	*st;
	char		*busy;

	if (sqlite3_prepare_v2(store_db(env->store), sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(a, "run")));
	sqlite3_bind_int(st, 2, json_integer_value(json_object_get(a, "device")));
	skip_bind_text(st, 3, a, "key");
	skip_bind_text(st, 4, a, "dtype");
	busy = json_dumps(json_object_get(a, "busy"), JSON_COMPACT);
	sqlite3_bind_text(st, 8, busy ? busy : "[]", -1, SQLITE_TRANSIENT);
	free(busy);
	skip_bind_text(st, 9, a, "cls");
	skip_bind_text(st, 10, a, "not_cls");
	sqlite3_bind_int64(st, 11, json_integer_value(json_object_get(a, "id")));
	sqlite3_bind_int64(st, 12, json_integer_value(json_object_get(a,
	    "like_run")));
	skip_bind_text(st, 13, a, "reason0");
	skip_bind_text(st, 14, a, "reason1");
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
	char		 sql[128];
	int64_t		 run = json_integer_value(json_object_get(a, "run"));
	int		 n, s = json_integer_value(json_object_get(a, "slot"));

	if (store_begin(env->store) == -1)
		return pw_refused("skipping cases");
	if ((st = skip_prepare("INSERT INTO results (case_id, status, reason, "
	    "detail, created) SELECT id, 'skipped', ?5, ?6, ?7 FROM cases WHERE "
	    SKIP_WHERE, a)) == NULL)
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
	if ((st = skip_prepare("UPDATE cases SET state='skipped' WHERE "
	    SKIP_WHERE, a)) == NULL)
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
 * Records the pending cases f takes as `skipped` with reason and detail,
 * except those a runner holds right now (they finish on their own).  They
 * leave the in-memory queues too.  Returns how many, 0 when the store
 * refused and the write is held (pw_write: it is made, as asked now, before
 * any case is sent), or -1 when it cannot be.
 */
int
cases_skip(const struct case_filter *f, const char *reason,
    const char *detail)
{
	int		 i, rc, s = slot_of_device(f->device);
	json_t		*a, *busy;

	if (s < 0)
		return -1;
	busy = json_array();
	for (i = 0; i < env->nworkers; i++)
		if (env->workers[i].case_id)
			json_array_append_new(busy, json_integer(
			    env->workers[i].case_id));
	a = json_pack("{sI si si ss so ss ss so so so sI sI so so sf}", "run",
	    (json_int_t)sched.cur.run_id, "slot", s, "device", f->device, "key",
	    f->key, "dtype", f->dtype ? json_string(f->dtype) : json_null(),
	    "reason", reason, "detail", detail, "busy", busy, "cls",
	    f->cls ? json_string(f->cls) : json_null(), "not_cls",
	    f->not_cls ? json_string(f->not_cls) : json_null(), "id",
	    (json_int_t)f->id, "like_run", (json_int_t)f->like_run, "reason0",
	    f->like_reasons[0] ? json_string(f->like_reasons[0]) : json_null(),
	    "reason1", f->like_reasons[1] ? json_string(f->like_reasons[1]) :
	    json_null(), "created", now_wall());
	skip_last = 0;
	if ((rc = pw_write(w_skip, a)) == -1)
		return -1;
	return rc == 0 ? skip_last : 0;
}

/*
 * Skips in this run, before any case runs, the cases of each key that the
 * newest complete run of this library (fingerprint) on the device that
 * screened the key, among the runs d admits (d->setting: those screened
 * under the same d->budget), recorded skipped with one of d->like, matched
 * by key and spec; they are recorded with d->reason and a detail from
 * `why` (a format taking that run's id).  Returns the cases skipped and
 * their keys in *nkeys, -1 on a store error.
 */
int
prior_skips_replay(int slot, int64_t fpid, const struct replay_decision *d,
    const char *why, int *nkeys)
{
	sqlite3		*db = store_db(env->store);
	sqlite3_stmt	*st;
	int		 device = sched.cur.q[slot].device, n = 0, k;
	char		 sql[1024], detail[256];
	json_t		*keys, *v;
	size_t		 i;

	*nkeys = 0;
	snprintf(sql, sizeof(sql), "WITH prior AS (SELECT r.id FROM runs r JOIN "
	    "run_devices d ON d.run_id = r.id WHERE r.state = 'complete' AND "
	    "r.id != ?1 AND d.device = ?2 AND d.fingerprint_id = ?3 AND (?7 IS "
	    "NULL OR EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.id AND "
	    "e.kind = 'run_complete' AND json_extract(e.json, '$.' || ?7) = "
	    "?4))), "
	    "latest AS (SELECT c.key, max(c.run_id) AS run FROM cases c WHERE "
	    "c.run_id IN prior AND c.device = ?2 GROUP BY c.key) SELECT l.key, "
	    "l.run FROM latest l WHERE EXISTS (SELECT 1 FROM cases p JOIN "
	    "results pr ON pr.case_id = p.id WHERE p.run_id = l.run AND p.state "
	    "= 'skipped' AND p.device = ?2 AND p.key = l.key AND p.class != "
	    "'compile' AND pr.reason IN (?5, ?6))");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, sched.cur.run_id);
	sqlite3_bind_int(st, 2, device);
	sqlite3_bind_int64(st, 3, fpid);
	sqlite3_bind_double(st, 4, d->budget);
	for (k = 0; k < 2; k++)
		if (d->like[k] != NULL)
			sqlite3_bind_text(st, 5 + k, d->like[k], -1,
			    SQLITE_STATIC);
	if (d->setting != NULL)
		sqlite3_bind_text(st, 7, d->setting, -1, SQLITE_STATIC);
	keys = json_array();
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(keys, json_pack("[sI]", (const char *)
		    sqlite3_column_text(st, 0), (json_int_t)
		    sqlite3_column_int64(st, 1)));
	sqlite3_finalize(st);
	json_array_foreach(keys, i, v) {
		long long	 prev = json_integer_value(json_array_get(v, 1));

		struct case_filter	 f = { .device = device,
		    .key = json_string_value(json_array_get(v, 0)),
		    .not_cls = "compile", .like_run = prev,
		    .like_reasons = { d->like[0], d->like[1] } };

		snprintf(detail, sizeof(detail), why, prev);
		if ((k = cases_skip(&f, d->reason, detail)) == -1) {
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
	struct replay_decision	 d = policy_replay(REPLAY_SKIPS, 0);
	int			 n, nkeys;

	if (!d.replay)
		return 0;
	n = prior_skips_replay(slot, fpid, &d, "not run: run %lld of this "
	    "library skipped it after a case of its key and dtype hung or "
	    "crashed; a re-screen of one library keeps its coverage", &nkeys);
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
	struct case_filter	 f = { .device = device,
			    .cls = compile_only ? "compile" : NULL };
	char			 key[256] = "", dtype[32] = "", detail[160];
	int			 n;

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
	f.key = key;
	f.dtype = dtype;
	n = cases_skip(&f, "skipped", detail);
	if (n > 0)
		log_info("skipped %d remaining cases of %s/%s on device %d", n,
		    key, dtype, device);
}
