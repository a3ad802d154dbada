/*
 * run.c: a run's life: activate a queued run, expand its cases per device,
 * finish it (verdicts and lists in one transaction), fail or cancel it.
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

void
progress_update(const char *state)
{
	json_t	*p;
	int	 s;

	p = json_pack("{sI ss sI sI sf sf sI}", "run", (json_int_t)
	    sched.cur.run_id, "state", state, "total", (json_int_t)
	    sched.cur.total, "done", (json_int_t)sched.cur.done, "started",
	    sched.cur.started, "count_t0", sched.cur.count_t0, "count_done0",
	    (json_int_t)sched.cur.count_done0);
	for (s = 0; s < sched.cur.nq; s++)
		if (!sched.cur.q[s].expanded)
			json_object_set_new(p, "waiting_for_runner", json_true());
	if (sched.cur.resumed)
		json_object_set_new(p, "resumed", json_true());
	pthread_mutex_lock(&sched.mtx);
	if (sched.progress == NULL || json_integer_value(json_object_get(
	    sched.progress, "run")) != sched.cur.run_id || strcmp(state,
	    json_string_value(json_object_get(sched.progress, "state")) ?: ""))
		sched.progress_turns++;
	json_decref(sched.progress);
	sched.progress = p;
	pthread_mutex_unlock(&sched.mtx);
}

void
run_clear(void)
{
	int	 s;

	for (s = 0; s < NSLOTS; s++) {
		free(sched.cur.q[s].ids);
		free(sched.cur.cq[s].ids);
		free(sched.cur.q[s].kix);
		free(sched.cur.cq[s].kix);
	}
	json_decref(sched.cur.keys);
	json_decref(sched.cur.split);
	free(sched.cur.rp);
	json_decref(sched.cur.nccl_values);
	json_decref(sched.cur.nccl_done);
	json_decref(sched.cur.dtypes);
	json_decref(sched.cur.ops);
	memset(&sched.cur, 0, sizeof(sched.cur));
	json_decref(sched.shrunk);
	sched.shrunk = NULL;
	json_decref(sched.spent);
	sched.spent = NULL;
	json_decref(sched.fc);
	sched.fc = NULL;
	json_decref(sched.confirm);
	sched.confirm = NULL;
	for (s = 0; s < sched.nworkers; s++)
		sched.workers[s].alone = 0;	/* its lost cases: alone.c */
	for (s = 0; s < NSLOTS; s++) {
		json_decref(sched.prior[s]);
		sched.prior[s] = NULL;
	}
}

void
run_fail(const char *why)
{
	int	 i;

	log_warnx("run %lld failed: %s", (long long)sched.cur.run_id, why);
	for (i = 0; i < sched.nworkers; i++)
		if (sched.workers[i].state == W_BUSY) {
			worker_kill(&sched.workers[i]);
			free(sched.workers[i].repro);
			sched.workers[i].repro = NULL;
			sched.workers[i].replay = sched.workers[i].nccl = 0;
		}
	run_end(sched.cur.run_id, "failed", why);
	progress_update("failed");
	run_clear();
	lists_changed();
}

/*
 * runner.classes and runner.dtypes are the operator's own scope for this host:
 * a run that asks for no narrower scope screens that, and it still counts as
 * the host's full screen (it serves lists and is compared for regressions).
 */
static unsigned
conf_classes(void)
{
	char		 buf[sizeof(env->conf.default_classes)], *p, *tok;
	char		*save = NULL;
	unsigned	 m = 0;
	int		 c;

	snprintf(buf, sizeof(buf), "%s", env->conf.default_classes);
	for (p = buf; (tok = strtok_r(p, ", ", &save)) != NULL; p = NULL)
		if ((c = probe_class_parse(tok)) > 0)
			m |= c;
		else
			log_warnx("runner.classes: unknown class '%s' ignored", tok);
	return m;
}

/*
 * The classes of runner.modes' deployment modes beyond eager: compile is
 * the trace class, cudagraph the graph class (probes/modes.c). They run
 * when runner.classes is empty (every class) or names them.
 */
static unsigned
conf_modes(void)
{
	unsigned	 m = 0;

	if (strstr(env->conf.modes, "compile") != NULL)
		m |= PROBE_TRACE;
	if (strstr(env->conf.modes, "cudagraph") != NULL)
		m |= PROBE_GRAPH;
	return m;
}

/*
 * A comma list of the configuration as a JSON array of its words, NULL when
 * it has none; with valid, a word it refuses is logged (`what` names it)
 * and left out.
 */
static json_t *
conf_list(const char *list, const char *what, int (*valid)(const char *))
{
	char	 buf[sizeof(env->conf.default_ops)], *p, *tok, *save = NULL;
	json_t	*a = json_array();

	snprintf(buf, sizeof(buf), "%s", list);
	for (p = buf; (tok = strtok_r(p, ", ", &save)) != NULL; p = NULL)
		if (valid == NULL || valid(tok))
			json_array_append_new(a, json_string(tok));
		else
			log_warnx("%s '%s' ignored", what, tok);
	if (json_array_size(a) == 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *
conf_dtypes(void)
{
	return conf_list(env->conf.default_dtypes, "runner.dtypes: unknown dtype",
	    dtype_valid);
}

/*
 * runner.ops: the keys and names this host screens (an engine's ops); the
 * library's other entries get no case, so no list allows them (rollup.c
 * withholds a key without a case of the serving run). NULL: every entry.
 */
static json_t *
conf_ops(void)
{
	return conf_list(env->conf.default_ops, "runner.ops", NULL);
}

/*
 * Makes run id (its stored request and full flag) the current run: its scope
 * and one queue per device, none expanded yet.
 */
void
run_load(int64_t id, const char *request, int full)
{
	json_t		*req, *cls, *v;
	json_error_t	 jerr;
	size_t		 i;
	int		 s;

	run_clear();
	sched.cur.run_id = id;
	sched.cur.full = full;
	if (request == NULL || (req = json_loads(request, 0, &jerr)) == NULL)
		req = json_object();
	sched.cur.classes = 0;
	cls = json_object_get(req, "classes");
	json_array_foreach(cls, i, v) {
		int	 c = probe_class_parse(json_string_value(v));

		if (c > 0)
			sched.cur.classes |= c;
	}
	if (sched.cur.classes == 0)
		sched.cur.classes = conf_classes();
	if (sched.cur.classes == 0)
		sched.cur.classes = PROBE_EAGER | conf_modes();
	if ((v = json_object_get(req, "dtypes")) && json_array_size(v))
		sched.cur.dtypes = json_incref(v);
	else
		sched.cur.dtypes = conf_dtypes();
	if ((v = json_object_get(req, "ops")) && json_array_size(v))
		sched.cur.ops = json_incref(v);
	else
		sched.cur.ops = conf_ops();
	sched.cur.carry = !json_is_false(json_object_get(req, "carry"));
	json_decref(req);
	sched.cur.nq = nslots();
	for (s = 0; s < sched.cur.nq; s++)
		sched.cur.q[s].device = device_of_slot(s);
}

int
run_activate(void)
{
	struct store_run	 r;
	int			 rc;

	if ((rc = store_run_next_queued(env->store, &r)) == -1)
		return pw_retry_later("starting a run");
	if (rc == 0)
		return 0;
	run_load(r.id, r.request, r.full);
	free(r.request);
	sched.cur.started = now_wall();
	sched.cur.count_t0 = sched.cur.started;
	sched.cur.count_done0 = 0;
	/*
	 * Only a run still queued: a cancel between the read above and here
	 * cancelled it in the store, and an unconditional write would run it
	 * anyway (seen under load in test_restricted_run_and_cancel).
	 */
	if ((rc = store_run_start(env->store, sched.cur.run_id,
	    sched.cur.started)) == -1) {
		/* still queued in the store: started after the back-off */
		pw_note("starting a run");
		run_clear();
		pw_fault();
		return -1;
	}
	pw_ok();
	if (rc == 0) {
		log_info("run %lld was cancelled before it started",
		    (long long)sched.cur.run_id);
		run_clear();
		return 0;
	}
	log_info("run %lld started", (long long)sched.cur.run_id);
	progress_update("running");
	return 1;
}

/*
 * Turns the registration table a runner reported into cases for its device.
 * -1 the store refused (nothing stored; try again after pw's back-off), -2
 * stored but not queued (out of memory).
 */
int
run_expand(int slot, struct worker *w)
{
	struct devq	*q = &sched.cur.q[slot];
	json_t		*e, *cases, *c, *op, *seen = NULL;
	size_t		 i, j;
	int64_t		 fpid, n = 0;
	int		 erc;
	char		*spec;

	/* a device's cases without its library's fingerprint cannot serve */
	if ((fpid = store_fingerprint(env->store, w->fingerprint)) <= 0)
		return pw_retry_later("storing a fingerprint");
	if (store_begin(env->store) == -1)
		return pw_retry_later("expanding a run");
	if (store_run_device_set(env->store, sched.cur.run_id, q->device,
	    fpid) == -1)
		goto fail;
	if ((seen = json_object()) == NULL)
		goto fail;
	/*
	 * the host's op scope (a full run's ops are runner.ops: a request
	 * that names ops is never full), with the cases it chose: rollup.c
	 * names it as the reason a name outside it is withheld
	 */
	if (sched.cur.full && sched.cur.ops != NULL) {
		json_t	*ev = json_pack("{si sO}", "device", q->device, "ops",
		    sched.cur.ops);

		erc = ev == NULL ? -1 : run_add_event(sched.cur.run_id, "scope",
		    ev);
		json_decref(ev);
		if (erc == -1)
			goto fail;
	}
	json_array_foreach(w->entries, i, e) {
		const char	*key = json_string_value(json_object_get(e, "key"));
		const char	*name = json_string_value(json_object_get(e, "name"));
		const char	*schema = json_string_value(json_object_get(e,
		    "schema"));

		if (key == NULL || name == NULL)
			continue;
		if (store_entry_add(env->store, sched.cur.run_id, key, name,
		    schema, probe_supported(key, schema, NULL)) == -1 ||
		    store_source_add(env->store, sched.cur.run_id, q->device,
		    key, json_string_value(json_object_get(e, "source"))) == -1)
			goto fail;
		if (!op_requested(key, name))
			continue;
		json_object_set_new(seen, key, json_true());
		json_object_set_new(seen, name, json_true());
		/* a split run: another device screens it (split.c) */
		if (!split_owns(q->device, key))
			continue;
		cases = json_array();
		/* every entry, probed or not, gets its registration checked */
		if ((sched.cur.classes & PROBE_BOOTSTRAP) && json_array_append_new(cases,
		    json_pack("{ss ss ss si s[] s{} ss}", "key", key, "class",
		    "bootstrap", "dtype", "any", "seed", 0, "args", "kwargs",
		    "compare", "bootstrap")) == -1) {
			json_decref(cases);
			goto fail;
		}
		if (probe_supported(key, schema, NULL) && probe_expand(key,
		    schema, sched.cur.classes, sched.cur.dtypes, cases) < 0) {
			json_decref(cases);
			continue;
		}
		json_array_foreach(cases, j, c) {
			const char	*cls = json_string_value(
			    json_object_get(c, "class"));
			json_t		*ladder = json_object_get(c, "ladder");
			int		 compile = cls && !strcmp(cls, "compile");

			/*
			 * 2^31-element cases and an engine's sizes are for
			 * GPUs, not the CPU demo
			 */
			if (env->cpu && (json_is_true(json_object_get(c,
			    "huge")) || json_is_true(json_object_get(c,
			    "engine"))))
				continue;
			json_object_set_new(c, "name", json_string(name));
			/* the budget is part of the stored case: verdicts replay */
			if (compile && json_is_object(ladder))
				json_object_set_new(ladder, "budget_ms",
				    json_real(env->conf.compile_budget * 1e3));
			/*
			 * so is a trace case's backend, where it is not the
			 * default (a case without one compiles with Inductor):
			 * a case of another backend is another case, never
			 * carried from this one's results
			 */
			if (cls != NULL && !strcmp(cls, "trace") &&
			    strcmp(env->conf.compile_backend, "inductor") != 0)
				json_object_set_new(c, "backend", json_string(
				    env->conf.compile_backend));
			if ((spec = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS)) ==
			    NULL) {
				json_decref(cases);
				goto fail;
			}
			erc = store_case_add(env->store, sched.cur.run_id,
			    q->device, key, name, json_string_value(
			    json_object_get(c, "class")), json_string_value(
			    json_object_get(c, "dtype")), spec);
			free(spec);
			if (erc == -1) {
				json_decref(cases);
				goto fail;
			}
			n++;
		}
		json_decref(cases);
	}
	/*
	 * bootstrap, library-wide: importing the library initialised CUDA, so a
	 * process that imports it before choosing its GPU lands on device 0.
	 */
	if ((sched.cur.classes & PROBE_BOOTSTRAP) && w->import != NULL &&
	    json_is_true(json_object_get(w->import, "cuda_initialized"))) {
		json_t	*ev = json_pack("{si ss sO}", "device", q->device,
		    "finding", "importing the library initialises CUDA",
		    "import", w->import);

		erc = run_add_event(sched.cur.run_id, "bootstrap_hazard", ev);
		json_decref(ev);
		if (erc == -1)
			goto fail;
	}
	if (store_run_total_add(env->store, sched.cur.run_id, n) == -1)
		goto fail;
	if (store_commit(env->store) == -1)
		goto fail;
	pw_ok();
	/* a name of the scope that is no entry of this library screens nothing */
	json_array_foreach(sched.cur.ops, i, op)
		if (json_object_get(seen, json_string_value(op)) == NULL)
			log_warnx("run %lld: '%s' of the run's ops (runner.ops or "
			    "the request) is no key or name of the library on "
			    "device %d; nothing is screened for it",
			    (long long)sched.cur.run_id, json_string_value(op),
			    q->device);
	json_decref(seen);
	sched.cur.total += n;
	/* the unchanged keys' results, before the queues take what is left */
	if (fpid > 0)
		carry_replay(slot, fpid);
	if (queue_interleave(slot) == -1) {
		/* stored: expanding again would store them twice */
		q->len = q->head = 0;
		sched.cur.cq[slot].len = sched.cur.cq[slot].head = 0;
		return -2;
	}
	q->expanded = 1;
	log_info("run %lld: %lld cases for device %d (-1 = cpu)",
	    (long long)sched.cur.run_id, (long long)n, q->device);
	if (fpid > 0 && key_budget_replay(slot, fpid) == -1)
		error("run %lld: cannot replay an earlier run's key_budget cuts; "
		    "the keys are charged from zero", (long long)sched.cur.run_id);
	if (fpid > 0 && skip_replay(slot, fpid) == -1)
		error("run %lld: cannot replay an earlier run's skipped cases; "
		    "they run", (long long)sched.cur.run_id);
	if (fpid > 0 && first_call_budget_replay(slot, fpid) == -1)
		error("run %lld: cannot replay an earlier run's first-call "
		    "cuts; the cases run", (long long)sched.cur.run_id);
	if (fpid > 0 && shrink_prior_load(slot) == -1)
		error("run %lld: cannot read earlier runs' shrinks; every "
		    "failing case shrinks anew", (long long)sched.cur.run_id);
	return 0;
 fail:
	json_decref(seen);
	/* nothing of the device stored: expanded again after the back-off */
	pw_note("expanding a run");
	store_rollback(env->store);
	pw_fault();
	q->len = q->head = 0;
	sched.cur.cq[slot].len = sched.cur.cq[slot].head = 0;
	return -1;
}

/*
 * Retention after a run completed (store_prune): a failure is logged and
 * dropped, never held (the next complete run prunes again), so it cannot
 * stop the scheduler, on a full disk least of all.
 */
static int
w_prune(void *p)
{
	int64_t	 n = 0;

	(void)p;
	if (store_begin(env->store) == -1)
		goto fail;
	if (store_prune(env->store, env->conf.keep_runs, &n) == -1 ||
	    store_commit(env->store) == -1) {
		store_rollback(env->store);
		goto fail;
	}
	if (n > 0)
		log_info("store: %lld cases of the runs before the newest %d "
		    "complete ones pruned (store.keep_runs)", (long long)n,
		    env->conf.keep_runs);
	return 0;
 fail:
	log_warnx("store: pruning the older runs failed; the next complete run "
	    "tries again");
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* 0 trace (compile), 1 graph (cudagraph), -1 an eager class */
static int
mode_of_class(const char *cls)
{
	int	 c = probe_class_parse(cls);

	return c == PROBE_TRACE ? STORE_MODE_COMPILE : c == PROBE_GRAPH ?
	    STORE_MODE_CUDAGRAPH : -1;
}

/*
 * A key x dtype's verdict in one mode from its fold: none (NULL) when no
 * case of the mode was screened or none applied (native cannot run in the
 * mode either); else as an eager verdict is folded.
 */
static void
mode_verdict(struct verdict_fold *fm, struct store_mode_verdict *mv,
    char *reason, size_t len)
{
	memset(mv, 0, sizeof(*mv));
	if (fm->n == 0)
		return;
	verdict_fold_finish(fm, 0);
	if ((mv->verdict = verdict_fold_result(fm, reason, len)) == NULL)
		return;
	mv->reason = reason;
	if (strcmp(mv->verdict, "verified") != 0) {
		mv->detail = fm->worst_detail;
		mv->severity = severity_name(fm->worst_severity);
		mv->evidence_case = fm->worst_case;
	}
}

/*
 * Folds the run's case results into verdicts and marks it complete.  -1 the
 * store refused (the run stays running; tried again after pw's back-off);
 * -2 refused to complete: a case of the run has no stored result.
 */
int
run_finish(void)
{
	struct store_cursor	*sel = NULL;
	struct store_fold_row	 row;
	struct store_verdict	 sv;
	struct verdict_fold f, fm[2];	/* eager; compile, cudagraph */
	struct case_verdict v;
	char		 gkey[512] = "", key[512], reason[256];
	char		 mreason[2][256];
	int		 mi;
	char		 g_dev_key[256] = "", g_name[256] = "", g_dtype[32] = "";
	int		 g_dev = 0, rc, nverified = 0, nbroken = 0, ninc = 0;
	double		 firsts[4096], steadies[4096];
	double		 speed_min = -1;	/* the slowest passing case's
						 * native/candidate ratio */
	int		 nt = 0, have = 0, nreg = 0, nevents = 0, erc;
	int		 nspeed = 0, nnondet = 0;
	int64_t		 unstored, carried = 0;	/* -1: a case was measured */

	if (store_begin(env->store) == -1)
		return pw_retry_later("finishing a run");
	/*
	 * A run completes only when each of its cases has a stored result: a
	 * case without one was never judged, and its key would be folded from
	 * the others alone (verified on part of its cases).  Checked in the
	 * transaction that completes the run.
	 */
	if ((unstored = store_run_unstored(env->store, sched.cur.run_id)) == -1)
		goto fail;
	if (unstored > 0) {
		error("run %lld: %lld cases have no stored result; the run is not "
		    "completed", (long long)sched.cur.run_id, (long long)unstored);
		store_rollback(env->store);
		return -2;
	}
	if ((sel = store_fold_cursor(env->store, sched.cur.run_id)) == NULL)
		goto fail;
	verdict_fold_init(&f);
	verdict_fold_init(&fm[0]);
	verdict_fold_init(&fm[1]);
	for (;;) {
		if ((rc = store_fold_next(sel, &row)) == 1)
			snprintf(key, sizeof(key), "%d|%s|%s", row.device,
			    row.key, row.dtype);
		if (have && (rc != 1 || strcmp(key, gkey) != 0)) {
			const char	*res;

			verdict_fold_finish(&f, env->conf.compile_extrapolate);
			res = verdict_fold_result(&f, reason, sizeof(reason));

			if (res != NULL) {
				memset(&sv, 0, sizeof(sv));
				sv.run = sched.cur.run_id;
				sv.device = g_dev;
				sv.key = g_dev_key;
				sv.name = g_name;
				sv.dtype = g_dtype;
				sv.verdict = res;
				sv.reason = reason;
				if (strcmp(res, "verified") != 0) {
					sv.cls = f.worst_class;
					sv.detail = f.worst_detail;
					sv.evidence_case = f.worst_case;
					sv.severity = severity_name(
					    f.worst_severity);
				} else {
					sv.cls = "";
					sv.detail = "";
				}
				sv.cases = f.n;
				sv.passed = f.pass;
				sv.n_critical = f.nsev[SEVERITY_CRITICAL];
				sv.n_loud = f.nsev[SEVERITY_LOUD];
				sv.n_numerics = f.nsev[SEVERITY_NUMERICS];
				sv.carried_from = carried > 0 ? carried : 0;
				sv.first_call_ms = sv.steady_ms = -1;
				if (nt > 0) {
					qsort(firsts, nt, sizeof(double),
					    cmp_double);
					qsort(steadies, nt, sizeof(double),
					    cmp_double);
					/* the worst first call is the compile */
					sv.first_call_ms = firsts[nt - 1];
					sv.steady_ms = steadies[nt / 2];
				}
				sv.speed_ratio = nspeed > 0 ? speed_min : -1;
				sv.speed_cases = nspeed;
				sv.nondeterministic = nnondet;
				for (mi = 0; mi < 2; mi++)
					mode_verdict(&fm[mi], &sv.mode[mi],
					    mreason[mi], sizeof(mreason[mi]));
				if (store_verdict_add(env->store, &sv) == -1)
					goto fail;
				if (!strcmp(res, "verified"))
					nverified++;
				else if (!strcmp(res, "inconclusive"))
					ninc++;
				else
					nbroken++;
			}
			verdict_fold_init(&f);
			verdict_fold_init(&fm[0]);
			verdict_fold_init(&fm[1]);
			nt = 0;
			nspeed = 0;
			nnondet = 0;
			speed_min = -1;
			have = 0;
			carried = 0;
		}
		if (rc != 1)
			break;
		if (!have) {
			snprintf(gkey, sizeof(gkey), "%s", key);
			g_dev = row.device;
			snprintf(g_dev_key, sizeof(g_dev_key), "%s", row.key);
			snprintf(g_name, sizeof(g_name), "%s", row.name);
			snprintf(g_dtype, sizeof(g_dtype), "%s", row.dtype);
			have = 1;
		}
		memset(&v, 0, sizeof(v));
		v.status = case_status_parse(row.status);
		snprintf(v.reason, sizeof(v.reason), "%s", row.reason);
		snprintf(v.detail, sizeof(v.detail), "%s", row.detail);
		v.score = row.score;
		v.native_inaccurate = row.native_inaccurate;
		/* none or unknown: verdict_severity reads a failure as critical */
		if (severity_parse(row.severity, &v.severity) == -1)
			v.severity = SEVERITY_NONE;
		nnondet += row.nondeterministic != 0;
		if (row.carried_run <= 0)
			carried = -1;
		else if (carried >= 0 && row.carried_run > carried)
			carried = row.carried_run;
		/* a deployment mode's case folds into that mode's verdict */
		if ((mi = mode_of_class(row.cls)) >= 0) {
			verdict_fold_add(&fm[mi], row.case_id, row.cls, &v);
			continue;
		}
		verdict_fold_add(&f, row.case_id, row.cls, &v);
		/* speed: passing cases with both medians (lists' faster=) */
		if (v.status == CASE_PASS && row.has_speed &&
		    row.speed_cand_ms > 0 && row.speed_native_ms >= 0) {
			double	 r = row.speed_native_ms / row.speed_cand_ms;

			if (nspeed == 0 || r < speed_min)
				speed_min = r;
			nspeed++;
		}
		/* ladder steps that ran (pass or over budget) feed the fit */
		if (row.has_ladder && row.has_first &&
		    (v.status == CASE_PASS || v.status == CASE_HAZARD))
			verdict_fold_ladder(&f, row.case_id, row.ladder_value,
			    row.cand_first_ms, row.ladder_budget_ms < 0 ?
			    VERDICT_COMPILE_BUDGET_MS : row.ladder_budget_ms);
		if (row.has_first && nt < 4096) {
			firsts[nt] = row.cand_first_ms;
			steadies[nt] = row.cand_steady_ms;
			nt++;
		}
	}
	store_cursor_free(sel);
	sel = NULL;
	if (rc == -1)
		goto fail;
	if (sched.cur.full) {
		int	 k = regress_intermittent(store_db(env->store), sched.cur.run_id);

		if (k == -1)
			goto fail;
		nverified -= k;
		nbroken += k;
	}
	/* a split run: each device's lists get the others' verdicts */
	if (sched.cur.split != NULL && store_verdicts_share(env->store,
	    sched.cur.run_id) == -1)
		goto fail;
	{
		char	 why[512];

		/* a run completes only on a whole store: its lists come from it */
		if (store_check(env->store, why, sizeof(why)) == -1) {
			set_store_damaged(why);
			goto fail;
		}
	}
	if (run_set_state(sched.cur.run_id, "complete", NULL) == -1)
		goto fail;
	{
		/*
		 * key_budget: what a later run of the library replays;
		 * compile_s and first_calls: GET /runs/{id}'s compile bound,
		 * summed over every result's figures once, here
		 */
		double	 compile_s;
		int	 firsts;
		json_t	*ev;

		if (store_run_compile(store_db(env->store), sched.cur.run_id,
		    &compile_s, &firsts) == -1)
			goto fail;
		ev = json_pack("{si si si sI sf sf sf sf si sf si}", "verified",
		    nverified, "broken", nbroken, "inconclusive", ninc, "cases",
		    (json_int_t)sched.cur.done, "store_s", sched.cur.store_s, "wall_s",
		    sched.cur.started > 0 ? now_wall() - sched.cur.started : 0.0,
		    "key_budget", env->conf.key_budget, "first_call_budget",
		    env->conf.first_call_budget, "cores", cpu_count(),
		    "compile_s", compile_s, "first_calls", firsts);

		erc = run_add_event(sched.cur.run_id, "run_complete", ev);
		json_decref(ev);
		if (erc == -1)
			goto fail;
	}
	/* in the same transaction: the lists and their changes appear together */
	if (sched.cur.full && (nreg = regress_run(store_db(env->store), sched.cur.run_id, now_wall(),
	    &nevents)) == -1)
		goto fail;
	if (store_commit(env->store) == -1)
		goto fail;
	pw_ok();
	/* store.keep_runs: the older runs' cases go, in a write of its own */
	if (env->conf.keep_runs > 0)
		(void)pw_write(w_prune, json_object());
	log_info("run %lld complete: %lld cases in %.1f s; key x dtype verdicts: "
	    "%d verified, %d broken, %d inconclusive",
	    (long long)sched.cur.run_id, (long long)sched.cur.done,
	    now_wall() - sched.cur.started, nverified, nbroken, ninc);
	if (nevents)
		log_info("run %lld: %d changes against the previous full screen, "
		    "%d of them regressions (GET /regressions)",
		    (long long)sched.cur.run_id, nevents, nreg);
	return 0;
 fail:
	pw_note("finishing a run");
	store_cursor_free(sel);
	store_rollback(env->store);
	pw_fault();
	return -1;
}

/* Logs the lists a newcomer wants to see at the end of a screen. */
void
run_log_lists(void)
{
	struct rollup_query	 q;
	json_t			*allow = NULL, *deny = NULL, *err = NULL, *fps;
	json_t			*v;
	int			 status;
	size_t			 i;
	char			 line[4096];
	size_t			 off;

	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	fps = sched_current_fingerprints();
	if (rollup_lists(store_db(env->store), &q, fps, &allow, &deny, &status,
	    &err) == 0) {
		off = snprintf(line, sizeof(line), "allow-list (%zu):",
		    json_array_size(json_object_get(allow, "names")));
		json_array_foreach(json_object_get(allow, "names"), i, v)
			if (off < sizeof(line) - 64)
				off += snprintf(line + off, sizeof(line) - off,
				    " %s", json_string_value(v));
		log_info("%s", line);
		/* the denied one per line; the withheld the deny-list also
		 * excludes, on one */
		off = snprintf(line, sizeof(line), "withheld (%lld):", (long long)
		    json_integer_value(json_object_get(deny, "withheld")));
		json_array_foreach(json_object_get(deny, "names"), i, v) {
			if ((json_int_t)i >= json_integer_value(json_object_get(
			    deny, "denied"))) {
				if (off < sizeof(line) - 64)
					off += snprintf(line + off, sizeof(line) -
					    off, " %s", json_string_value(
					    json_object_get(v, "name")));
				continue;
			}
			log_info("deny-list: %s (%s, %s): %s",
			    json_string_value(json_object_get(v, "name")),
			    json_string_value(json_object_get(v, "reason")),
			    json_string_value(json_object_get(v, "class")) ?: "-",
			    json_string_value(json_object_get(v, "detail")) ?: "");
		}
		if (json_integer_value(json_object_get(deny, "withheld")) > 0)
			log_info("%s", line);
	}
	json_decref(allow);
	json_decref(deny);
	json_decref(err);
	json_decref(fps);
}

void
run_cancel_now(void)
{
	int	 i;

	for (i = 0; i < sched.nworkers; i++)
		if (sched.workers[i].state == W_BUSY)
			worker_respawn(&sched.workers[i]);
	run_end(sched.cur.run_id, "cancelled", "cancelled through the API");
	log_info("run %lld cancelled", (long long)sched.cur.run_id);
	progress_update("cancelled");
	run_clear();
	lists_changed();
}
