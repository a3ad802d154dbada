/*
 * queue.c: the per-device queues of a run's cases, the order keys take in
 * them, which case is ready next, and sending a case to a runner.
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

int
op_requested(const char *key, const char *name)
{
	return sched.cur.ops == NULL || ops_have(sched.cur.ops, key, name);
}

static int
queue_push(struct devq *q, int64_t id, int k)
{
	if (q->len == q->cap) {
		size_t	 nc = q->cap ? q->cap * 2 : 1024;
		int64_t	*ni = realloc(q->ids, nc * sizeof(*ni));
		int	*nk;

		if (ni == NULL)
			return -1;
		q->ids = ni;
		if ((nk = realloc(q->kix, nc * sizeof(*nk))) == NULL)
			return -1;
		q->kix = nk;
		q->cap = nc;
	}
	q->kix[q->len] = k;
	q->ids[q->len++] = id;
	return 0;
}

/* Puts id (key index k) back at the head of q. */
int
queue_unshift(struct devq *q, int64_t id, int k)
{
	if (q->head == 0) {
		if (queue_push(q, id, k) == -1)
			return -1;
		memmove(&q->ids[1], &q->ids[0], (q->len - 1) * sizeof(*q->ids));
		memmove(&q->kix[1], &q->kix[0], (q->len - 1) * sizeof(*q->kix));
	} else
		q->head--;
	q->ids[q->head] = id;
	q->kix[q->head] = k;
	return 0;
}

/* The index of key in cur.keys, added when new. */
static int
key_index(const char *key, json_t *ix)
{
	json_t	*v = json_object_get(ix, key);

	if (v != NULL)
		return (int)json_integer_value(v);
	json_array_append_new(sched.cur.keys, json_string(key));
	json_object_set_new(ix, key, json_integer(json_array_size(sched.cur.keys) -
	    1));
	return (int)json_array_size(sched.cur.keys) - 1;
}

/*
 * The device's queues in round-robin order over keys (the i-th case of every
 * key before the (i+1)-th of any): a library whose costly first calls
 * (autotuning, long compiles) cluster in a few keys spreads them over the
 * screen instead of holding every runner at once, and a key's dtypes and
 * classes alternate.
 */
int
queue_interleave(int slot)
{
	struct store_cursor	*cur;
	struct store_queued	 c;
	struct devq	*q = &sched.cur.q[slot], *cq = &sched.cur.cq[slot];
	int		 own = env->conf.compile_workers > 0;
	json_t		*ix, *v;
	size_t		 i;

	/*
	 * Round-robin over keys: the i-th case of every key before the (i+1)-th
	 * of any.  Within a key its dtypes stay in blocks (a key cut by
	 * runner.key_budget keeps the dtypes it finished judged on all their
	 * cases) and within a dtype the classes take turns, so a cut key has
	 * had each of its classes probed.  Compile ladders and 2^31-element
	 * cases go to the compile runners, the ladders largest step first (the
	 * largest steps of all ladders, round-robin, then the next): the
	 * slowest steps start at once instead of setting the screen's end.
	 */
	if ((cur = store_queue_cursor(env->store, sched.cur.run_id,
	    q->device)) == NULL)
		return -1;
	q->len = q->head = 0;
	cq->len = cq->head = 0;
	if (sched.cur.keys == NULL)
		sched.cur.keys = json_array();
	ix = json_object();
	json_array_foreach(sched.cur.keys, i, v)
		json_object_set_new(ix, json_string_value(v), json_integer(i));
	while (store_queue_next(cur, &c))
		if (queue_push(own && c.compile_runner ? cq : q, c.id,
		    c.compile ? -1 : key_index(c.key, ix)) == -1) {
			store_cursor_free(cur);
			json_decref(ix);
			return -1;
		}
	store_cursor_free(cur);
	json_decref(ix);
	return 0;
}

/* A ladder step is killed at twice its budget: long enough to measure it. */
int
compile_deadline(void)
{
	return 2 * env->conf.compile_budget;
}

/* An eager case's deadline on this host's devices (seconds). */
int
case_deadline(void)
{
	return env->cpu ? env->conf.cpu_case_deadline : env->conf.case_deadline;
}

/*
 * runner.key_affinity: the op a key belongs to, into buf: the key up to its
 * first '.', without a trailing '_' (add.Tensor, add_.Tensor and add.out
 * are add's; they share its kernels).
 */
static void
key_op(const char *key, char *buf, size_t len)
{
	size_t	n = strcspn(key, ".");

	if (n > 0 && key[n - 1] == '_')
		n--;
	snprintf(buf, len, "%.*s", (int)n, key);
}

/* Sends spec (borrowed; gets "id") to w as case id and arms the deadline. */
int
case_send(struct worker *w, int64_t id, json_t *spec)
{
	json_t	*msg;
	int	 rc, compile, fcb, cls;

	compile = json_is_string(json_object_get(spec, "class")) &&
	    !strcmp(json_string_value(json_object_get(spec, "class")),
	    "compile");
	fcb = compile || w->shrink_try != NULL ? 0 : fc_mode(w, id, spec);
	/*
	 * a ladder step is stopped once its first call is over the budget; a
	 * first call under runner.first_call_budget is stopped at the budget;
	 * a first call of any case may hold its key and dtype
	 * (runner.first_call_hold)
	 */
	if (fcb > 0 || compile || (env->conf.first_call_hold > 0 &&
	    w->shrink_try == NULL))
		json_object_set_new(spec, "first_call_notify", json_true());
	if (fcb == 2)
		json_object_set_new(spec, "cold", json_true());
	verdict_case_steady(spec, env->conf.speed);
	/* a split run: the owner's digest, for the consensus phase */
	if (sched.cur.split != NULL)
		json_object_set_new(spec, "digest", json_true());
	json_object_set_new(spec, "id", json_integer(id));
	msg = json_pack("{ss sO}", "type", "case", "case", spec);
	rc = supervise_send(w->proc, msg);
	json_decref(msg);
	if (rc == -1)
		return -1;
	w->state = W_BUSY;
	w->case_id = id;
	w->case_compile = compile;
	if (env->conf.key_affinity && !w->compile && json_is_string(
	    json_object_get(spec, "key"))) {
		char	op[128];

		key_op(json_string_value(json_object_get(spec, "key")), op,
		    sizeof(op));
		if (w->owned == NULL)
			w->owned = json_object();
		json_object_set_new(w->owned, op, json_true());
	}
	w->case_fcb = fcb;
	w->case_in_first = 0;
	snprintf(w->case_key, sizeof(w->case_key), "%s", json_string_value(
	    json_object_get(spec, "key")) ?: "");
	snprintf(w->case_dtype, sizeof(w->case_dtype), "%s", json_string_value(
	    json_object_get(spec, "dtype")) ?: "");
	w->case_t0 = now_mono();
	w->deadline = now_mono() + (compile ? compile_deadline() :
	    case_deadline());
	/*
	 * A deployment mode's case compiles (torch.compile, or the warm-up of
	 * a CUDA graph's capture): the first Inductor compile of a fresh
	 * runner took 22.7-40.1 s on a 2-core CPU (docs/design.md,
	 * "Deployment modes and the library's entry points"), past the CPU's
	 * case deadline.  It has runner.mode_deadline.
	 */
	cls = probe_class_parse(json_string_value(json_object_get(spec,
	    "class")));
	if ((w->case_mode = cls > 0 && (cls & PROBE_MODES)) != 0)
		w->deadline = now_mono() + env->conf.mode_deadline;
	return 0;
}

int
case_dispatch(struct worker *w, int64_t id)
{
	json_t		*spec;
	int		 rc;

	if ((spec = store_case_spec(env->store, id, NULL)) == NULL)
		return -1;
	rc = case_send(w, id, spec);
	json_decref(spec);
	return rc;
}

/* Case id's dtype into buf; -1 when it is not stored. */
static int
stored_dtype(int64_t id, char *buf, size_t len)
{
	return store_case_dtype(env->store, id, buf, len);
}

/* Whether the runner whose ops are `owned` has run key k's op. */
static int
key_owned(const json_t *owned, int k)
{
	const char	*key = json_string_value(json_array_get(sched.cur.keys, k));
	char		 op[128];

	if (key == NULL)
		return 0;
	key_op(key, op, sizeof(op));
	return json_object_get(owned, op) != NULL;
}

/* How far past the first ready case a runner looks for one of its keys. */
#define AFFINITY_WINDOW	512

/*
 * Whether the case at q's position j waits (1), is held (2: taken only
 * when nothing else is ready) or goes (0).  A case waits while its key
 * waits for its cases in flight (key_budget_wait) or while a case of its
 * key and dtype waits to be measured again (fc_pending); it is held while
 * a first call of its key and dtype runs past the hold (fc_slow).
 * memo[k]: 0 not known yet, 1 the key waits, 2 it goes, 3 some dtype of
 * it waits or is held (valid for one dispatch pass).
 */
static int
case_waits(const struct devq *q, size_t j, unsigned char *memo)
{
	const char	*key;
	char		 dtype[32];
	int		 k;

	if ((k = q->kix[j]) < 0 || memo == NULL)
		return 0;
	if (fc_confirm(q->ids[j]))
		return 0;		/* a re-measure never waits */
	key = json_string_value(json_array_get(sched.cur.keys, k));
	if (memo[k] == 0)
		memo[k] = key_budget_wait(q->device, key) ? 1 :
		    fc_pending(q->device, key, NULL) ||
		    fc_slow(q->device, key, NULL) ? 3 : 2;
	if (memo[k] == 2)
		return 0;
	/* a dtype of the key waits for its re-measure, not the others */
	if (memo[k] == 3 && stored_dtype(q->ids[j], dtype, sizeof(dtype)) == 0 &&
	    !fc_pending(q->device, key, dtype))
		return fc_slow(q->device, key, dtype) ? 2 : 0;
	return 1;
}

/*
 * The position in q of the first case, from its head, that need not wait,
 * moved to the head; 0 when every queued case waits.  A held case is
 * taken when nothing else is ready.  With `owned` (runner.key_affinity:
 * the ops the runner's process has run, whose kernels it holds compiled,
 * loaded and tuned) a ready case of one of them within AFFINITY_WINDOW
 * past the first ready case is taken before it.
 */
int
queue_ready(struct devq *q, unsigned char *memo, const json_t *owned)
{
	size_t		 j, held = q->len, end;
	int		 k, w;

	for (j = q->head; j < q->len; j++) {
		if ((w = case_waits(q, j, memo)) == 0)
			break;
		if (w == 2 && held == q->len)
			held = j;
	}
	if (j == q->len && held != q->len)
		j = held;	/* held, but better than an idle runner */
	if (j == q->len)
		return 0;
	if (json_object_size(owned) > 0 && j != held && (k = q->kix[j]) >= 0 &&
	    !key_owned(owned, k)) {
		size_t	 i;

		end = q->len - j > AFFINITY_WINDOW ? j + AFFINITY_WINDOW : q->len;
		for (i = j + 1; i < end; i++)
			if (q->kix[i] >= 0 && key_owned(owned, q->kix[i]) &&
			    case_waits(q, i, memo) == 0) {
				j = i;
				break;
			}
	}
	k = q->kix[j];
	if (j != q->head) {	/* keep the order of the cases passed over */
		int64_t	 id = q->ids[j];

		memmove(&q->ids[q->head + 1], &q->ids[q->head],
		    (j - q->head) * sizeof(*q->ids));
		memmove(&q->kix[q->head + 1], &q->kix[q->head],
		    (j - q->head) * sizeof(*q->kix));
		q->ids[q->head] = id;
		q->kix[q->head] = k;
	}
	return 1;
}

int
key_position(const char *key)
{
	size_t	i;

	for (i = 0; i < json_array_size(sched.cur.keys); i++)
		if (!strcmp(json_string_value(json_array_get(sched.cur.keys, i)), key))
			return (int)i;
	return -1;
}

/* The case w holds goes back to the head of its queue; w is idle. */
void
case_requeue(struct worker *w, int64_t id)
{
	int	 s = slot_of_device(w->device), compile = w->case_compile;
	char	 key[sizeof(w->case_key)];

	snprintf(key, sizeof(key), "%s", w->case_key);
	worker_idle(w);
	if (s < 0 || queue_unshift(compile ? &sched.cur.cq[s] : &sched.cur.q[s], id,
	    compile ? -1 : key_position(key)) == -1)
		error("case %lld: cannot queue it again; its run cannot complete",
		    (long long)id);
}
