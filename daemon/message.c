/*
 * message.c: the runner's messages: hello (fingerprint, registered names),
 * a case's result (judged, recorded, the policies charged), first calls.
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
#include "repro.h"
#include "probes.h"
#include "scheduler.h"

static void
on_hello(struct worker *w, json_t *msg)
{
	json_t		*fp = json_object_get(msg, "fingerprint");
	json_t		*ents = json_object_get(msg, "entries");
	const char	*err = json_string_value(json_object_get(msg, "error"));
	int		 slot = slot_of_device(w->device);
	size_t		 i;
	json_t		*e;

	json_decref(w->fingerprint);
	json_decref(w->entries);
	/* a new process: none of the ops' kernels are in it (key_affinity) */
	json_decref(w->owned);
	w->owned = NULL;
	w->fingerprint = json_is_object(fp) ? json_incref(fp) : json_object();
	w->entries = json_is_array(ents) ? json_incref(ents) : json_array();
	json_decref(w->import);
	w->import = json_is_object(json_object_get(msg, "import")) ?
	    json_incref(json_object_get(msg, "import")) : NULL;
	/* a table empty on this host (every entry's condition false, nothing
	 * exported) is a fault: a complete screen of nothing vouches for
	 * nothing, and a deny-list of nothing would enable the library whole */
	if (err == NULL && json_array_size(w->entries) == 0) {
		json_t	*bye = json_pack("{ss}", "type", "bye");

		err = "it registers no operator on this host (its registration "
		    "table is empty): nothing can be screened or listed";
		/* the runner saw no error: it leaves, and the EOF path restarts
		 * it (a library fixed on disk is read again) */
		supervise_send(w->proc, bye);
		json_decref(bye);
	}
	if (err) {
		snprintf(w->hello_error, sizeof(w->hello_error),
		    "library '%s' cannot be used: %s", env->library, err);
		error("worker %d: %s", w->slot, w->hello_error);
		if (slot >= 0) {
			pthread_mutex_lock(&sched.mtx);
			snprintf(sched.err[slot], sizeof(sched.err[slot]), "%s",
			    w->hello_error);
			json_decref(sched.fp[slot]);
			sched.fp[slot] = NULL;
			fp_oldest_update();
			pthread_mutex_unlock(&sched.mtx);
			lists_changed();
		}
		w->state = W_DEAD;	/* it exits; the EOF path restarts it */
		return;
	}
	w->hello_error[0] = '\0';
	w->failures = 0;
	w->state = W_IDLE;
	log_debug("worker %d: runner pid %lld said hello", w->slot,
	    (long long)json_integer_value(json_object_get(msg, "pid")));
	{
		json_t	*cs = json_object_get(msg, "cuda_sync");
		const char *why = json_string_value(json_object_get(cs, "error"));

		if (why != NULL)
			log_warnx("worker %d: runner.cuda_sync = %s not applied, "
			    "the driver's default is in effect: %s", w->slot,
			    env->conf.cuda_sync, why);
	}
	w->deadline = 0;
	w->fp_asked = 0;
	w->fp_stale = 0;
	if (slot >= 0) {
		int	 changed;

		pthread_mutex_lock(&sched.mtx);
		sched.fp_confirmed[slot] = now_mono();
		changed = sched.fp[slot] != NULL &&
		    !json_equal(sched.fp[slot], w->fingerprint);
		if (changed) {
			pthread_mutex_unlock(&sched.mtx);
			fingerprint_changed(slot, w->fingerprint,
			    "a starting runner's hello");
			w->fp_stale = 0;	/* this one runs the new code */
			pthread_mutex_lock(&sched.mtx);
		}
		if (sched.fp[slot] == NULL ||
		    !json_equal(sched.fp[slot], w->fingerprint)) {
			json_decref(sched.fp[slot]);
			sched.fp[slot] = json_deep_copy(w->fingerprint);
			lists_changed();
			log_info("worker %d: %s %s on %s, %zu registered entries",
			    w->slot, json_string_value(json_object_get(fp, "library")),
			    json_string_value(json_object_get(fp, "library_version")),
			    json_string_value(json_object_get(fp, "gpu_name")),
			    json_array_size(w->entries));
		}
		fp_oldest_update();
		sched.err[slot][0] = '\0';
		json_array_foreach(w->entries, i, e) {
			json_object_set_new(sched.names, json_string_value(
			    json_object_get(e, "name")) ?: "", json_true());
			json_object_set_new(sched.names, json_string_value(
			    json_object_get(e, "key")) ?: "", json_true());
			if (json_string_value(json_object_get(e, "name")))
				json_object_set_new(sched.regnames,
				    json_string_value(json_object_get(e, "name")),
				    json_true());
		}
		pthread_mutex_unlock(&sched.mtx);
	}
}

static int
w_reseed(void *p)
{
	json_t		*a = p;

	if (store_case_reseed(env->store, json_integer_value(json_object_get(a,
	    "case")), json_string_value(json_object_get(a, "spec"))) == -1) {
		pw_note("regenerating a case");
		return -1;
	}
	return 0;
}

static void
on_result(struct worker *w, json_t *msg)
{
	struct case_verdict	 v;
	json_t			*spec = NULL, *ns;
	int			 attempt = 0;
	int64_t			 id = json_integer_value(json_object_get(msg, "id"));

	if (w->state != W_BUSY || id != w->case_id) {
		log_warnx("worker %d: result for case %lld, expected %lld; ignored",
		    w->slot, (long long)id, (long long)w->case_id);
		return;
	}
	if (w->alone > 0) {
		alone_result(w, msg);
		return;
	}
	if (w->shrink_try != NULL) {
		shrink_result(w, msg);
		return;
	}
	if (w->replay) {
		replay_result(w, msg);
		return;
	}
	spec = store_case_spec(env->store, id, &attempt);
	if (spec == NULL) {
		/* unjudged: it runs again once the store answers */
		pw_note("reading a case");
		error("case %lld: spec not found (%s); queued again", (long long)id,
		    pw_error());
		case_requeue(w, id);
		pw_fault();
		return;
	}
	verdict_case(spec, msg, env->conf.critical_ratio, &v);
	repro_take(&w->repro, &w->repro_inputs, msg, &v);
	if (v.status == CASE_DEGENERATE && attempt < DEGENERATE_RETRIES) {
		/* A degenerate oracle is never a pass: regenerate the inputs. */
		char	*s;

		ns = seed_reseed(spec, attempt + 1);
		if (ns && (s = json_dumps(ns, JSON_COMPACT | JSON_SORT_KEYS))) {
			int	 rc;

			rc = pw_write(w_reseed, json_pack("{sI so}", "case",
			    (json_int_t)id, "spec", json_string_nocheck(s)));
			free(s);
			json_decref(ns);
			json_decref(spec);
			/*
			 * Not stored: the case waits in its queue, sent from
			 * its stored spec once the store has it (a degenerate
			 * oracle is regenerated, never counted).
			 */
			if (rc != 0)
				case_requeue(w, id);
			else {
				worker_idle(w);
				case_dispatch(w, id);
			}
			return;
		}
		json_decref(ns);
	}
	/* which runner ran it, stored with the figures */
	json_object_set_new(msg, "runner", json_pack("{s:i,s:s}", "slot",
	    w->slot, "role", w->compile ? "compile" : "screen"));
	case_record(id, &v, msg, NULL, w->repro, w->repro_inputs);
	log_debug("case %lld: %s %s", (long long)id, case_status_name(v.status),
	    v.detail);
	if (w->case_fcb == 2) {
		/* measured again within the budget: no budget for its
		 * key and dtype from now on */
		log_info("case %lld (%s %s): measured again, first call "
		    "%.1f s", (long long)id, w->case_key, w->case_dtype,
		    jnum(json_object_get(msg, "times"), "cand_first_ms") / 1e3);
		fc_confirm_end(id, FC_EXEMPT);
	}
	/* the case's key and class from its spec, its device the runner's */
	key_budget_charge(w->device, spec, jnum(json_object_get(msg, "times"),
	    "cand_first_ms"));
	if (v.status == CASE_FAIL)
		fail_fast_cut(w->device, spec, id, severity_name(
		    verdict_severity(&v)));
	/* runner.shrink_after: the run's evidence shrinks after its lists */
	if (!env->conf.shrink_after && v.status == CASE_FAIL &&
	    shrink_wanted(w->device, spec, json_is_true(json_object_get(msg,
	    "fatal")), v.score) &&
	    !shrink_reuse(w->device, id, &v)) {
		json_object_del(spec, "id");
		shrink_start(w, id, spec, &v);
		json_decref(spec);
		return;
	}
	json_decref(spec);
	worker_idle(w);
	if (json_is_true(json_object_get(msg, "fatal")))
		w->state = W_DEAD;	/* it exits after a sticky device error */
}

void
sched_on_message(struct worker *w, json_t *msg)
{
	const char	*type = json_string_value(json_object_get(msg, "type"));

	if (type == NULL)
		log_warnx("worker %d: message without a type", w->slot);
	else if (!strcmp(type, "hello"))
		on_hello(w, msg);
	else if (!strcmp(type, "started")) {
		worker_repro_clear(w);
		w->repro = json_string_value(json_object_get(msg, "repro")) ?
		    strdup(json_string_value(json_object_get(msg, "repro"))) : NULL;
		w->repro_inputs = json_string_value(json_object_get(msg,
		    "repro_inputs")) ? strdup(json_string_value(json_object_get(
		    msg, "repro_inputs"))) : NULL;
	} else if (!strcmp(type, "result"))
		on_result(w, msg);
	else if (!strcmp(type, "first_call") || !strcmp(type, "first_done"))
		on_first_call(w, msg, !strcmp(type, "first_call"));
	else if (!strcmp(type, "fingerprint"))
		on_fingerprint(w, msg);
	else if (!strcmp(type, "nccl_uid") || !strcmp(type, "nccl_done"))
		gather_message(w, msg, !strcmp(type, "nccl_done"));
	else if (!strcmp(type, "multirank_done"))
		gather_multirank(w, msg);
	else
		log_warnx("worker %d: unknown message type '%s'", w->slot, type);
}
