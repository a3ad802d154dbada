/*
 * sched.c: runs -> cases -> workers. The main loop is the only writer of runs,
 * cases and results; a run becomes visible to /allowlist only in the single
 * transaction that writes its verdicts and marks it complete.
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

struct sched sched = { .mtx = PTHREAD_MUTEX_INITIALIZER };

static void	case_abort(struct worker *, enum case_status, const char *,
		    const char *);
static void	case_abandon(struct worker *, int64_t, const char *,
		    const char *);

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

int
slot_of_device(int device)
{
	int	 i;

	if (device < 0)
		return 0;
	for (i = 0; i < env->ndevices; i++)
		if (env->devices[i] == device)
			return i;
	return -1;
}

int
nslots(void)
{
	return env->cpu ? 1 : env->ndevices;
}

int
device_of_slot(int slot)
{
	return env->cpu ? -1 : env->devices[slot];
}

void
sched_init(void)
{
	int	 s, k, n = 0;

	for (s = 0; s < nslots(); s++)
		for (k = 0; k < env->conf.workers_per_device +
		    env->conf.compile_workers && n < MAX_WORKERS; k++, n++) {
			memset(&env->workers[n], 0, sizeof(env->workers[n]));
			env->workers[n].slot = n;
			env->workers[n].device = device_of_slot(s);
			env->workers[n].sock = env->workers[n].errfd = -1;
			env->workers[n].state = W_DOWN;
			env->workers[n].compile =
			    k >= env->conf.workers_per_device;
		}
	env->nworkers = n;
	sched.names = json_object();
	sched.regnames = json_object();
}

/* ---- workers ------------------------------------------------------------- */

void
worker_idle(struct worker *w)
{
	free(w->repro);
	w->repro = NULL;
	w->case_id = 0;
	w->case_compile = 0;
	w->case_fcb = 0;
	w->case_in_first = 0;
	w->state = W_IDLE;
	w->deadline = 0;
}

void
worker_restart_later(struct worker *w, double delay)
{
	int	 s = slot_of_device(w->device);

	if (s >= 0) {
		pthread_mutex_lock(&sched.mtx);
		sched.restarts_total[s]++;
		pthread_mutex_unlock(&sched.mtx);
	}
	w->state = W_DOWN;
	w->next_spawn = now_mono() + delay;
}

/* Kills a runner that holds a case and has a fresh one started at once. */
void
worker_respawn(struct worker *w)
{
	shrink_clear(w);	/* a shrink in flight is dropped, unstored */
	supervise_kill(w);
	w->restarts++;
	free(w->repro);
	w->repro = NULL;
	w->case_id = 0;
	worker_restart_later(w, 0);
}

/* Waits briefly for an exiting runner so the crash report has its status. */
static void
worker_collect(struct worker *w, char *how, size_t len)
{
	int	 st, i;
	pid_t	 r = 0;

	snprintf(how, len, "runner exited");
	for (i = 0; i < 200 && w->pid > 0; i++) {
		if ((r = waitpid(w->pid, &st, WNOHANG)) != 0)
			break;
		usleep(10000);
	}
	if (r == w->pid) {
		if (WIFSIGNALED(st))
			snprintf(how, len, "runner killed by signal %d (%s)",
			    WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st))
			snprintf(how, len, "runner exited with status %d",
			    WEXITSTATUS(st));
		kill(-w->pid, SIGKILL);	/* its compile workers too */
		w->pid = 0;
	}
	supervise_kill(w);
}

/*
 * Records the case in flight on w as status (it gave no result); skip: its
 * key and dtype's remaining cases are skipped as those of a case that hung
 * or crashed (only the compile steps after a hazard).
 */
static void
case_end(struct worker *w, enum case_status status, const char *reason,
    const char *what, int skip)
{
	struct case_verdict	 v;
	char			 tail[2048];

	memset(&v, 0, sizeof(v));
	v.status = status;
	snprintf(v.reason, sizeof(v.reason), "%s", reason);
	supervise_errtail(w, tail, sizeof(tail), 20);
	snprintf(v.detail, sizeof(v.detail), "%s", what);
	v.score = 1e12;
	case_record(w->case_id, &v, NULL, tail, w->repro);
	log_warnx("case %lld: %s", (long long)w->case_id, what);
	/* a slow compile step says nothing about the key's other cases */
	if (skip)
		case_skip_siblings(w->case_id, w->device, status == CASE_HAZARD);
}

static void
case_abort(struct worker *w, enum case_status status, const char *reason,
    const char *what)
{
	case_end(w, status, reason, what, 1);
}

void
sched_on_worker_exit(struct worker *w, const char *why)
{
	char	 how[256];
	int	 slot = slot_of_device(w->device);
	int	 was_fatal = w->state == W_DEAD && w->hello_error[0] == '\0';

	worker_collect(w, how, sizeof(how));
	if (w->shrink_try != NULL) {
		/* the case itself was recorded; only its variant died */
		shrink_abort(w);
		w->restarts++;
		free(w->repro);
		w->repro = NULL;
		w->case_id = 0;
		worker_restart_later(w, 0);
		return;
	}
	if (w->case_id && sched.cur.run_id) {
		char	 what[512];

		snprintf(what, sizeof(what), "%s during the case (%s)", how, why);
		case_abort(w, CASE_CRASH, "crash", what);
		w->restarts++;
		free(w->repro);
		w->repro = NULL;
		w->case_id = 0;
		worker_restart_later(w, 0);
		return;
	}
	free(w->repro);
	w->repro = NULL;
	w->case_id = 0;
	if (was_fatal) {
		/* a sticky device error: a fresh runner takes the next case */
		w->restarts++;
		worker_restart_later(w, 0);
		return;
	}
	if (w->hello_error[0] == '\0') {
		char	 tail[1024];

		supervise_errtail(w, tail, sizeof(tail), 5);
		snprintf(w->hello_error, sizeof(w->hello_error), "%s before it "
		    "said hello: %s", how, tail);
	}
	if (slot >= 0) {
		pthread_mutex_lock(&sched.mtx);
		snprintf(sched.err[slot], sizeof(sched.err[slot]), "%s", w->hello_error);
		pthread_mutex_unlock(&sched.mtx);
	}
	w->failures++;
	log_warnx("worker %d: %s", w->slot, w->hello_error);
	worker_restart_later(w, w->failures > 6 ? BACKOFF_MAX :
	    (double)(1 << (w->failures - 1)));
}

static int
same_key_dtype(int64_t a, int64_t b)
{
	sqlite3_stmt	*st;
	int		 same = 0;

	if (sqlite3_prepare_v2(store_db(env->store), "SELECT count(*) FROM cases "
	    "x, cases y WHERE x.id=? AND y.id=? AND x.key=y.key AND "
	    "x.dtype=y.dtype AND x.device=y.device", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	if (sqlite3_step(st) == SQLITE_ROW)
		same = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return same;
}

/* A case another runner holds while its sibling hung: stop it, say so. */
static void
case_abandon(struct worker *w, int64_t hung, const char *reason,
    const char *why)
{
	struct case_verdict	 v;
	int64_t			 id = w->case_id;

	if (w->case_compile)
		return;		/* a ladder step: it has its own deadline */
	if (w->shrink_try != NULL) {
		/* shrinking a recorded case: stop it, the record stands */
		shrink_abort(w);
		worker_respawn(w);
		return;
	}
	worker_respawn(w);
	memset(&v, 0, sizeof(v));
	v.status = CASE_NA;	/* no repro kept */
	snprintf(v.reason, sizeof(v.reason), "%s", reason);
	snprintf(v.detail, sizeof(v.detail), "abandoned: case %lld of this key "
	    "and dtype %s", (long long)hung, why);
	case_record_as(id, &v, "skipped", "skipped", NULL, NULL, NULL);
}

/* Stops the cases of case id's key and dtype that runners other than w hold. */
void
abandon_siblings(struct worker *w, int64_t id, const char *reason,
    const char *why)
{
	int	i;

	for (i = 0; i < env->nworkers; i++) {
		struct worker	*o = &env->workers[i];

		if (o != w && o->state == W_BUSY && o->case_id &&
		    same_key_dtype(o->case_id, id))
			case_abandon(o, id, reason, why);
	}
}

void
sched_on_deadline(struct worker *w)
{
	char	 what[256];
	int64_t	 hung = w->case_id;

	if (w->state == W_BUSY && w->shrink_try != NULL) {
		log_info("case %lld: a shrunk variant hung; shrinking stopped",
		    (long long)w->case_id);
		shrink_abort(w);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_fcb &&
	    w->case_in_first) {
		first_call_over(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_compile &&
	    w->case_in_first) {
		/*
		 * Past the budget the step is a hazard whatever it takes
		 * more: it is not run on to twice the budget, which on a
		 * host whose cores all compile only delays the rest (the
		 * 42-op screen's topk k=4096 steps took 86-101 s).
		 */
		snprintf(what, sizeof(what), "first call still running after "
		    "%d s, the budget (runner.compile_budget); stopped",
		    env->conf.compile_budget);
		/* the smaller steps still run: they measure the growth */
		case_end(w, CASE_HAZARD, "compile_time", what, 0);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id && w->case_compile) {
		snprintf(what, sizeof(what), "compile step gave no result within "
		    "%d s (budget %d s); runner process group killed",
		    compile_deadline(), env->conf.compile_budget);
		case_abort(w, CASE_HAZARD, "compile_timeout", what);
		worker_respawn(w);
	} else if (w->state == W_BUSY && w->case_id) {
		snprintf(what, sizeof(what), "no result within the %d s case "
		    "deadline; runner process group killed", w->device < 0 ?
		    env->conf.cpu_case_deadline : env->conf.case_deadline);
		case_abort(w, CASE_TIMEOUT, "timeout", what);
		worker_respawn(w);
		/* its siblings on other runners would each wait out a deadline */
		abandon_siblings(w, hung, "skipped", "hung");
	} else if (w->state == W_STARTING) {
		snprintf(w->hello_error, sizeof(w->hello_error), "runner did not "
		    "start within %d s", env->conf.hello_deadline);
		supervise_kill(w);
		sched_on_worker_exit(w, "start deadline");
	}
}

double
sched_next_deadline(void)
{
	double	 t = 0;
	int	 i;

	for (i = 0; i < env->nworkers; i++) {
		struct worker	*w = &env->workers[i];
		double		 d = 0;

		if ((w->state == W_BUSY || w->state == W_STARTING) && w->deadline)
			d = w->deadline;
		else if (w->state == W_DOWN)
			d = w->next_spawn;
		if (d > 0 && (t == 0 || d < t))
			t = d;
	}
	return t;
}

void
sched_poll(void)
{
	double	 t = now_mono();
	int	 i, s, busy, rc;
	int64_t	 creq;
	unsigned char	*memo;

	for (i = 0; i < env->nworkers; i++) {
		struct worker	*w = &env->workers[i];

		if (w->state == W_DOWN && t >= w->next_spawn) {
			if (supervise_spawn(w) == -1) {
				w->failures++;
				snprintf(w->hello_error, sizeof(w->hello_error),
				    "cannot start runner '%s'", env->conf.python);
				s = slot_of_device(w->device);
				pthread_mutex_lock(&sched.mtx);
				snprintf(sched.err[s], sizeof(sched.err[s]), "%s",
				    w->hello_error);
				pthread_mutex_unlock(&sched.mtx);
				worker_restart_later(w, w->failures > 6 ?
				    BACKOFF_MAX : (double)(1 << (w->failures - 1)));
			}
		}
	}
	fingerprint_poll(t);
	pthread_mutex_lock(&sched.mtx);
	creq = sched.cancel_req;
	sched.cancel_req = 0;
	pthread_mutex_unlock(&sched.mtx);
	if (creq && creq == sched.cur.run_id)
		run_cancel_now();
	/*
	 * While the store holds back a write, nothing new starts: the cases
	 * in flight end, their records wait behind it, and no run completes
	 * without every case stored (pw above).
	 */
	pw_flush();
	if (!pw_ready())
		return;
	if (sched.cur.run_id == 0 && run_activate() <= 0)
		return;

	for (s = 0; s < sched.cur.nq; s++) {
		struct devq	*q = &sched.cur.q[s];

		if (q->expanded)
			continue;
		for (i = 0; i < env->nworkers; i++) {
			struct worker	*w = &env->workers[i];

			if (w->device != q->device)
				continue;
			if (w->state == W_IDLE && w->entries && q->resume) {
				if ((rc = run_resume_device(s, w)) == -1)
					run_fail("cannot queue the resumed run's "
					    "cases");
				if (rc != 0)
					return;
				break;
			}
			if (w->state == W_IDLE && w->entries) {
				if ((rc = run_expand(s, w)) == -2) {
					run_fail("cannot queue the run's cases");
					return;
				}
				if (rc == -1)
					return;	/* again after the back-off */
				break;
			}
		}
		if (!q->expanded) {
			/* A library that cannot be imported fails the run. */
			for (i = 0; i < env->nworkers; i++) {
				struct worker	*w = &env->workers[i];

				if (w->device == q->device && w->failures >= 3 &&
				    w->hello_error[0]) {
					run_fail(w->hello_error);
					return;
				}
			}
		}
	}

	memo = sched.cur.keys != NULL ?
	    calloc(json_array_size(sched.cur.keys) + 1, 1) : NULL;
	for (i = 0; i < env->nworkers; i++) {
		struct worker	*w = &env->workers[i];
		struct devq	*q;

		if (w->state != W_IDLE)
			continue;
		s = slot_of_device(w->device);
		q = w->compile ? &sched.cur.cq[s] : &sched.cur.q[s];
		/*
		 * A compile runner whose ladders are all dispatched screens
		 * ordinary cases: the ladders are queued at the start, largest
		 * step first, and ended in 91 s of a 21-minute whole-table
		 * screen, after which six runners sat idle. Screening runners
		 * never take a ladder step (each step's cold-cache timing).
		 */
		if (w->compile && q->head >= q->len)
			q = &sched.cur.q[s];
		while (sched.cur.q[s].expanded && q->head < q->len &&
		    queue_ready(q, memo)) {
			int64_t	 id = q->ids[q->head++];

			if (case_dispatch(w, id) == 0)
				break;
			log_warnx("worker %d: cannot send case %lld", w->slot,
			    (long long)id);
			q->head--;
			supervise_kill(w);
			worker_restart_later(w, 1);
			break;
		}
	}
	free(memo);

	busy = 0;
	for (i = 0; i < env->nworkers; i++)
		if (env->workers[i].state == W_BUSY)
			busy = 1;
	for (s = 0; s < sched.cur.nq; s++)
		if (!sched.cur.q[s].expanded || sched.cur.q[s].head < sched.cur.q[s].len ||
		    sched.cur.cq[s].head < sched.cur.cq[s].len)
			busy = 1;
	progress_update("running");
	if (!busy) {
		int64_t	 id = sched.cur.run_id;

		if ((rc = run_finish()) == -2)
			run_fail("a case of the run has no stored result");
		else if (rc == -1)
			;	/* again after the back-off; nothing served */
		else {
			progress_update("complete");
			run_clear();
			api_invalidate();
			run_log_lists();
		}
		(void)id;
	}
}

/* ---- API-thread entry points --------------------------------------------- */

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
	double	 period = env->conf.fingerprint_period, t, oldest;
	double	 grace = env->conf.case_deadline + 5;
	int	 s, due = 0, wake = 0;

	if (period <= 0)
		return 1;
	t = now_mono();
	oldest = t;
	pthread_mutex_lock(&sched.mtx);
	for (s = 0; s < nslots(); s++)
		if (sched.fp[s]) {
			if (t - sched.fp_confirmed[s] >= period)
				due = 1;
			if (sched.fp_confirmed[s] < oldest)
				oldest = sched.fp_confirmed[s];
		}
	/* one wake-up per 50 ms, not one per request: the ask is the same */
	if (due && t - sched.fp_wanted >= 0.05) {
		sched.fp_wanted = t;
		wake = 1;
	}
	pthread_mutex_unlock(&sched.mtx);
	if (wake)
		main_wakeup();
	return t - oldest < period + grace;
}
