/*
 * abandon.c: stopping a runner that holds a case: killed and started again
 * at once, and the cases of a hung key and dtype that other runners hold
 * abandoned (recorded as skipped).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"
#include "scheduler.h"

/* Kills a runner that holds a case and has a fresh one started at once. */
void
worker_respawn(struct worker *w)
{
	shrink_clear(w);	/* a shrink in flight is dropped, unstored */
	replay_lost(w, "cancelled");
	w->nccl = 0;
	w->alone = 0;
	worker_kill(w);
	w->restarts++;
	worker_repro_clear(w);
	w->case_id = 0;
	worker_restart_later(w, 0);
}

static int
same_key_dtype(int64_t a, int64_t b)
{
	return store_cases_same_key_dtype(env->store, a, b);
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
	case_record_as(id, &v, "skipped", "skipped", NULL, NULL, NULL, NULL);
}

/* Stops the cases of case id's key and dtype that runners other than w hold. */
void
abandon_siblings(struct worker *w, int64_t id, const char *reason,
    const char *why)
{
	int	i;

	for (i = 0; i < sched.nworkers; i++) {
		struct worker	*o = &sched.workers[i];

		if (o != w && o->state == W_BUSY && o->case_id &&
		    same_key_dtype(o->case_id, id))
			case_abandon(o, id, reason, why);
	}
}
