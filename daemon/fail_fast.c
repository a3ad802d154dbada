/*
 * fail_fast.c: a failure ends its key x dtype x class: the rest of those
 * cases are skipped, also after a restart.
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

/*
 * runner.fail_fast: a critical failure ends its key, dtype and probe class
 * on its device (a loud or numerics one does not: policy_fail_fast). The class's pending cases of that key and dtype are recorded
 * `skipped` with reason `fail_fast` and stay out of the fold (the key x
 * dtype is broken by the failure). Every other class of the key and dtype
 * still runs to its first failure, so each class's pass/fail for a key and
 * dtype is what running all its cases would give; what is lost is the
 * count of failing cases past the first (the classes: policy.c). Measured
 * reason: in the cold whole-table screen of 2026-11-30
 * (commit 1f71dd5), the cases that
 * started after a case of their key, dtype and class had failed took 2,304
 * of its 17,305 case and shrink runner-s (counted 2026-12-01, commit
 * 02ae157).  fail_fast_cut skips the rest of spec's key x dtype x class
 * after its case id failed with that severity.
 */
void
fail_fast_cut(int device, const json_t *spec, int64_t id, const char *severity)
{
	const char	*key = json_string_value(json_object_get(spec, "key"));
	const char	*dtype = json_string_value(json_object_get(spec, "dtype"));
	const char	*cls = json_string_value(json_object_get(spec, "class"));
	struct fail_fast_facts f = { env->conf.fail_fast, key, dtype, cls,
			    severity };
	struct case_filter	 cf = { .device = device, .key = key,
			    .dtype = dtype, .cls = cls };
	char		 detail[200];
	int		 n;

	if (policy_fail_fast(&f) != FAIL_FAST_CUT_CLASS)
		return;
	snprintf(detail, sizeof(detail), "not run: case %lld of this key, dtype "
	    "and class failed, critical (runner.fail_fast)", (long long)id);
	n = cases_skip(&cf, "fail_fast", detail);
	if (n > 0)
		log_debug("case %lld (%s %s %s) failed: %d cases of its class not "
		    "run", (long long)id, key, dtype, cls, n);
	else if (n == -1)
		error("case %lld: cannot record the fail_fast skips of its class",
		    (long long)id);
}

/*
 * A resumed run: the classes that failed critically before the stop skip
 * their pending cases now, as they would have at the failure.
 */
int
fail_fast_resume(int slot)
{
	json_t		*todo, *spec;
	size_t		 i;
	int		 device = sched.cur.q[slot].device;

	if (!env->conf.fail_fast)
		return 0;
	if ((todo = store_failed_classes(env->store, sched.cur.run_id,
	    device)) == NULL)
		return -1;
	/* after the read: a cut writes */
	json_array_foreach(todo, i, spec)
		fail_fast_cut(device, spec, json_integer_value(json_object_get(
		    spec, "id")), json_string_value(json_object_get(spec,
		    "severity")));
	json_decref(todo);
	return 0;
}
