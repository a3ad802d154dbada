/*
 * split.c: a full screen on a host of several devices divides its keys among
 * them (docs/design.md, "Several GPUs"): each key's cases on one device, its
 * owner, chosen by consensus_split from each key's runner time in the last
 * complete full screen. The division is stored with the run (run_split), so
 * a restarted daemon expands the same way, and the consensus phase
 * (replay.c) then checks each device's share on the others.
 */
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "consensus.h"
#include "scheduler.h"

/* A device's runner that has reported its registration table, or NULL. */
static struct worker *
table_of(int device)
{
	int	 i;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*w = &sched.workers[i];

		if (w->device == device && w->entries != NULL &&
		    (w->state == W_IDLE || w->state == W_BUSY))
			return w;
	}
	return NULL;
}

/* The requested keys of a runner's table, as an object key -> 1. */
static json_t *
requested_keys(const struct worker *w)
{
	json_t	*keys = json_object(), *e;
	size_t	 i;

	json_array_foreach(w->entries, i, e) {
		const char	*key = json_string_value(json_object_get(e, "key"));
		const char	*name = json_string_value(json_object_get(e, "name"));

		if (key != NULL && name != NULL && op_requested(key, name))
			json_object_set_new(keys, key, json_true());
	}
	return keys;
}

/* Divides the keys and stores the division; -1 the store refused. */
static int
split_make(json_t *keys)
{
	struct split_key	*k;
	json_t			*costs = json_object(), *map = json_object(), *v, *c;
	const char		*key;
	double			 load[CONSENSUS_MAX_GPUS];
	size_t			 n = 0, i;
	int			 s, known = 0;

	if ((k = calloc(json_object_size(keys) + 1, sizeof(*k))) == NULL ||
	    store_key_costs(env->store, sched.cur.run_id, costs) == -1)
		goto fail;
	json_object_foreach(keys, key, v) {
		k[n].key = key;
		k[n].cases = 1;
		if ((c = json_object_get(costs, key)) != NULL) {
			k[n].cost = json_number_value(c);
			known++;
		}
		n++;
	}
	if (consensus_split(k, n, sched.cur.nq, load) == -1)
		goto fail;
	if (store_begin(env->store) == -1)
		goto fail;
	for (i = 0; i < n; i++) {
		int	 dev = device_of_slot(k[i].gpu);

		if (store_split_add(env->store, sched.cur.run_id, k[i].key, dev,
		    k[i].cost) == -1) {
			store_rollback(env->store);
			goto fail;
		}
		json_object_set_new(map, k[i].key, json_integer(dev));
	}
	if (store_run_set_split(env->store, sched.cur.run_id, 1) == -1 ||
	    store_commit(env->store) == -1) {
		store_rollback(env->store);
		goto fail;
	}
	for (s = 0; s < sched.cur.nq; s++)
		log_info("run %lld: device %d screens %.0f s of the %zu keys' "
		    "runner time (%d keys costed from the last full screen)",
		    (long long)sched.cur.run_id, device_of_slot(s), load[s], n,
		    known);
	sched.cur.split = map;
	free(k);
	json_decref(costs);
	return 0;
 fail:
	free(k);
	json_decref(costs);
	json_decref(map);
	return -1;
}

/*
 * Whether two devices run the same library on the same model of GPU: their
 * fingerprints equal but for the GPU's UUID. One device's verdict vouches
 * for another only then (an H200's screen says nothing of an A100's).
 */
static int
same_setup(int a, int b)
{
	json_t	*x = json_deep_copy(table_of(a)->fingerprint);
	json_t	*y = json_deep_copy(table_of(b)->fingerprint);
	int	 eq;

	json_object_del(x, "gpu_uuid");
	json_object_del(y, "gpu_uuid");
	eq = json_equal(x, y);
	json_decref(x);
	json_decref(y);
	return eq;
}

/*
 * Two devices whose runners report one GPU (the same gpu_uuid) were pinned
 * wrong: a split screen would measure that GPU twice and the other never.
 * The run fails with both devices named; -1 then, else 0.
 */
static int
same_gpu(void)
{
	const char	*u, *v;
	char		 why[512];
	int		 s, t;

	for (s = 0; s < sched.cur.nq; s++) {
		u = json_string_value(json_object_get(table_of(device_of_slot(
		    s))->fingerprint, "gpu_uuid"));
		for (t = s + 1; u != NULL && *u && t < sched.cur.nq; t++) {
			v = json_string_value(json_object_get(table_of(
			    device_of_slot(t))->fingerprint, "gpu_uuid"));
			if (v == NULL || strcmp(u, v) != 0)
				continue;
			snprintf(why, sizeof(why), "host pinning failure: the "
			    "runners of devices %d and %d both report GPU %s",
			    device_of_slot(s), device_of_slot(t), u);
			run_fail(why);
			return -1;
		}
	}
	return 0;
}

/*
 * Whether the current run's keys are divided: 1 decided (sched.cur.split
 * set for a split run, NULL for one that every device screens in full),
 * 0 waiting for every device's table, -1 the store refused (again after the
 * back-off). A run is split when it is full, the host has two devices or
 * more, [consensus] split is on and every device reported the same keys;
 * a run already split (restarted daemon) keeps its stored division.
 */
int
split_decide(void)
{
	json_t	*map = NULL, *keys = NULL, *other;
	int	 s, same = 1, rc;

	if (sched.cur.split_decided)
		return 1;
	if (!sched.cur.full || sched.cur.nq < 2 || !env->conf.consensus_split) {
		sched.cur.split_decided = 1;
		return 1;
	}
	if (store_split_load(env->store, sched.cur.run_id, &map) == -1)
		return pw_retry_later("reading a run's division");
	if (json_object_size(map) > 0) {
		sched.cur.split = map;
		sched.cur.split_decided = 1;
		return 1;
	}
	json_decref(map);
	for (s = 0; s < sched.cur.nq; s++)
		if (table_of(device_of_slot(s)) == NULL)
			return 0;
	/* NCCL says whether the runners are on GPUs of their own (gather.c) */
	if ((rc = gather_pincheck()) != 0 || sched.cur.run_id == 0)
		return 1 - (sched.cur.run_id != 0);	/* waits, or failed */
	if (same_gpu() == -1)
		return 1;		/* the run failed: nothing to split */
	keys = requested_keys(table_of(device_of_slot(0)));
	for (s = 1; s < sched.cur.nq && same; s++) {
		other = requested_keys(table_of(device_of_slot(s)));
		same = json_equal(keys, other) && same_setup(device_of_slot(0),
		    device_of_slot(s));
		json_decref(other);
	}
	if (!same) {
		log_warnx("run %lld: the devices differ (GPU model, driver, "
		    "library or its registered keys); each device screens every "
		    "key itself", (long long)sched.cur.run_id);
		json_decref(keys);
		sched.cur.split_decided = 1;
		return 1;
	}
	if (split_make(keys) == -1) {
		json_decref(keys);
		return pw_retry_later("storing a run's division");
	}
	json_decref(keys);
	sched.cur.split_decided = 1;
	return 1;
}

/* Whether device screens key in the current run. */
int
split_owns(int device, const char *key)
{
	json_t	*o;

	if (sched.cur.split == NULL)
		return 1;
	/* a key of no division (one device's table only): its own device */
	if ((o = json_object_get(sched.cur.split, key)) == NULL)
		return 1;
	return json_integer_value(o) == device;
}
