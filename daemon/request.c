/*
 * request.c: the API threads' entry points: validating a run request,
 * queueing or cancelling it on the thread's own connection, and reading
 * the state shared under sched.mtx.
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

static __thread sqlite3	*api_writer;
static pthread_key_t	 writer_key;
static pthread_once_t	 writer_once = PTHREAD_ONCE_INIT;

/* closes the thread's connection when an API thread ends */
static void
writer_close(void *db)
{
	sqlite3_close_v2(db);
}

static void
writer_key_init(void)
{
	pthread_key_create(&writer_key, writer_close);
}

static sqlite3 *
writer_conn(void)
{
	if (api_writer)
		return api_writer;
	if (sqlite3_open_v2(env->conf.database, &api_writer,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sqlite3_close_v2(api_writer);
		api_writer = NULL;
		return NULL;
	}
	pthread_once(&writer_once, writer_key_init);
	pthread_setspecific(writer_key, api_writer);
	sqlite3_busy_timeout(api_writer, 5000);
	sqlite3_exec(api_writer, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
	return api_writer;
}

/*
 * Checks req's list field with valid (1 valid, 0 unknown, -1 not known
 * yet). 0 when it is absent or valid; -1 a bad request (err says why); -4
 * a value that cannot be judged yet (err says why; the API answers 503).
 */
static int
check_list(json_t *req, const char *field, int (*valid)(const char *),
    char *err, size_t errlen)
{
	json_t	*a = json_object_get(req, field), *v;
	size_t	 i;
	int	 ok;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 1024) {
		snprintf(err, errlen, "'%s' must be an array of at most 1024 "
		    "strings", field);
		return -1;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || json_string_length(v) > 128) {
			snprintf(err, errlen, "'%s' must contain strings", field);
			return -1;
		}
		if (valid && (ok = valid(json_string_value(v))) <= 0) {
			if (ok < 0) {
				snprintf(err, errlen, "'%s': '%s' is not in the "
				    "probe catalog, and no runner has reported "
				    "the library's registration table yet "
				    "(GET /healthz says whether one could not "
				    "import it); retry", field,
				    json_string_value(v));
				return -4;
			}
			snprintf(err, errlen, "'%s': unknown value '%s'", field,
			    json_string_value(v));
			return -1;
		}
	}
	return 0;
}

static int
valid_class(const char *s)
{
	return probe_class_parse(s) > 0;
}

/*
 * An op is a catalog key or a name or key of the registration table a
 * runner reported; before any runner has reported one, a name outside the
 * catalog cannot be judged (-1): a deployment script that asks for a
 * schema-only key right after the daemon starts is told to retry, not that
 * the key does not exist.
 */
static int
valid_op(const char *s)
{
	int	 ok;

	if (catalog_has(s))
		return 1;
	pthread_mutex_lock(&sched.mtx);
	ok = json_object_get(sched.names, s) != NULL ? 1 :
	    json_object_size(sched.names) == 0 ? -1 : 0;
	pthread_mutex_unlock(&sched.mtx);
	return ok;
}

/*
 * 0 queued; -1 bad request (err says why); -2 too many queued; -3 store;
 * -4 an op that cannot be judged before a runner reports its table.
 */
int
sched_queue_run(json_t *req, int64_t *run_id, char *err, size_t errlen)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	const char	*k;
	json_t		*v;
	char		*js;
	int		 full, rc = -3, queued = 0, bad;

	json_object_foreach(req, k, v)
		if (strcmp(k, "ops") && strcmp(k, "classes") && strcmp(k,
		    "dtypes") && strcmp(k, "reason")) {
			snprintf(err, errlen, "unknown field '%s' (expected ops, "
			    "classes, dtypes)", k);
			return -1;
		}
	if ((bad = check_list(req, "classes", valid_class, err, errlen)) < 0 ||
	    (bad = check_list(req, "dtypes", dtype_valid, err, errlen)) < 0 ||
	    (bad = check_list(req, "ops", valid_op, err, errlen)) < 0)
		return bad;
	if ((v = json_object_get(req, "reason")) && !json_is_string(v)) {
		snprintf(err, errlen, "'reason' must be a string");
		return -1;
	}
	full = json_array_size(json_object_get(req, "ops")) == 0 &&
	    json_array_size(json_object_get(req, "classes")) == 0 &&
	    json_array_size(json_object_get(req, "dtypes")) == 0;
	if ((db = writer_conn()) == NULL) {
		snprintf(err, errlen, "store unavailable");
		return -3;
	}
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "store busy: %s", sqlite3_errmsg(db));
		return -3;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs WHERE "
	    "state='queued'", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			queued = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (queued >= QUEUED_RUNS_MAX) {
		snprintf(err, errlen, "%d runs already queued", queued);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -2;
	}
	js = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
	if (sqlite3_prepare_v2(db, "INSERT INTO runs (state, request, full, "
	    "created) VALUES ('queued', ?, ?, ?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, js ? js : "{}", -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, full);
		sqlite3_bind_double(st, 3, now_wall());
		if (sqlite3_step(st) == SQLITE_DONE) {
			*run_id = sqlite3_last_insert_rowid(db);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	free(js);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
		main_wakeup();
		return 0;
	}
	snprintf(err, errlen, "store: %s", sqlite3_errmsg(db));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -3;
}

/* 0 cancelled (or cancelling); -1 no such run; -2 already finished. */
int
sched_cancel_run(int64_t id, char *err, size_t errlen)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	char		 state[32] = "";

	if ((db = writer_conn()) == NULL) {
		snprintf(err, errlen, "store unavailable");
		return -3;
	}
	if (sqlite3_prepare_v2(db, "SELECT state FROM runs WHERE id=?", -1, &st,
	    NULL) != SQLITE_OK)
		return -3;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(state, sizeof(state), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (state[0] == '\0') {
		snprintf(err, errlen, "no run %lld", (long long)id);
		return -1;
	}
	if (!strcmp(state, "queued")) {
		if (sqlite3_prepare_v2(db, "UPDATE runs SET state='cancelled', "
		    "finished=?, error='cancelled through the API' WHERE id=? AND "
		    "state='queued'", -1, &st, NULL) != SQLITE_OK)
			return -3;
		sqlite3_bind_double(st, 1, now_wall());
		sqlite3_bind_int64(st, 2, id);
		sqlite3_step(st);
		sqlite3_finalize(st);
		if (sqlite3_changes(db) == 1)
			return 0;
	}
	if (!strcmp(state, "running") || !strcmp(state, "queued")) {
		pthread_mutex_lock(&sched.mtx);
		sched.cancel_req = id;
		pthread_mutex_unlock(&sched.mtx);
		main_wakeup();
		return 0;
	}
	snprintf(err, errlen, "run %lld is already %s", (long long)id, state);
	return -2;
}

json_t *
sched_progress(void)
{
	json_t	*p;

	pthread_mutex_lock(&sched.mtx);
	p = sched.progress ? json_deep_copy(sched.progress) : NULL;
	pthread_mutex_unlock(&sched.mtx);
	return p;
}

/*
 * {"devices": [{"device": 0, "fingerprint": {...} | null, "error": "..."}]}
 */
json_t *
sched_current_fingerprints(void)
{
	json_t	*a = json_array(), *o;
	int	 s;

	pthread_mutex_lock(&sched.mtx);
	for (s = 0; s < nslots(); s++) {
		o = json_pack("{si}", "device", device_of_slot(s));
		json_object_set_new(o, "fingerprint", sched.fp[s] ?
		    json_deep_copy(sched.fp[s]) : json_null());
		if (sched.prev_fp[s])
			json_object_set_new(o, "previous_fingerprint",
			    json_deep_copy(sched.prev_fp[s]));
		if (sched.err[s][0])
			json_object_set_new(o, "error", json_string(sched.err[s]));
		json_array_append_new(a, o);
	}
	pthread_mutex_unlock(&sched.mtx);
	return a;
}

/* Runner respawns per device slot since start-up, for /metrics. */
void
sched_counters(int64_t *restarts, int n)
{
	int	 s;

	pthread_mutex_lock(&sched.mtx);
	for (s = 0; s < n && s < NSLOTS; s++)
		restarts[s] = sched.restarts_total[s];
	pthread_mutex_unlock(&sched.mtx);
}

/*
 * Every enable name a runner's hello has reported since start-up, sorted, for
 * the deny bodies served when no list can be (they exclude every name); NULL
 * while no runner has reported a table.  Names of an older table stay: to
 * exclude a name the library no longer has does nothing.
 */
json_t *
sched_registered_names(void)
{
	json_t		*a = NULL, *v;
	const char	*name;

	pthread_mutex_lock(&sched.mtx);
	if (json_object_size(sched.regnames) > 0) {
		a = json_array();
		json_object_foreach(sched.regnames, name, v)
			json_array_append_new(a, json_string(name));
	}
	pthread_mutex_unlock(&sched.mtx);
	return a;
}

/*
 * For /allowlist, from an API thread, without waiting: when a device's
 * fingerprint has gone unconfirmed for the period, ask the main loop for a
 * re-check (it asks an idle runner) and answer from the last confirmation.
 * 0 when that is older than the period plus a case deadline (the longest a
 * healthy runner stays busy): the library may have changed unseen.
 */
int
sched_fingerprint_fresh(void)
{
	double	 period = env->conf.fingerprint_period, t, oldest, wanted;
	double	 grace = env->conf.case_deadline + 5;

	if (period <= 0)
		return 1;
	t = now_mono();
	/* no lock: the main loop may hold sched.mtx through a store write */
	__atomic_load(&sched.fp_oldest, &oldest, __ATOMIC_ACQUIRE);
	__atomic_load(&sched.fp_wanted, &wanted, __ATOMIC_RELAXED);
	/* one wake-up per 50 ms, not one per request: the ask is the same */
	if (t - oldest >= period && t - wanted >= 0.05) {
		__atomic_store(&sched.fp_wanted, &t, __ATOMIC_RELEASE);
		main_wakeup();
	}
	return t - oldest < period + grace;
}
