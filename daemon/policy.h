/*
 * policy.h: the scheduler's rules as pure functions: facts in (plain
 * structs, an explicit `now`), a decision out; no SQL, no runners, no
 * globals.  The scheduler gathers the facts and applies the decision.
 */
#ifndef POLICY_H
#define POLICY_H

#include <stddef.h>

/* runner.fail_fast: what a failing case does to its key x dtype x class */
struct fail_fast_facts {
	int		 enabled;	/* runner.fail_fast */
	const char	*key;		/* the failed case's, NULL: unknown */
	const char	*dtype;
	const char	*cls;		/* its probe class */
	const char	*severity;	/* its severity (verdict.c's word):
					 * critical, loud, numerics; NULL or
					 * "": unknown */
};
enum fail_fast_decision {
	FAIL_FAST_NONE,		/* its class's other cases run */
	FAIL_FAST_CUT_CLASS	/* they are skipped (reason fail_fast) */
};
enum fail_fast_decision policy_fail_fast(const struct fail_fast_facts *);
int	 policy_fail_fast_class(const char *cls);

/* runner.key_budget: candidate seconds per device x key */
struct key_budget_facts {
	double		 budget;	/* runner.key_budget, <= 0: none */
	double		 spent;		/* the key's account so far, seconds */
	const double	*sent;		/* when each of its cases in flight was
					 * sent (monotonic seconds) */
	size_t		 nsent;
	double		 now;		/* monotonic seconds */
};
enum key_budget_decision {
	KEY_BUDGET_RUN,		/* the key starts its next case */
	KEY_BUDGET_WAIT,	/* it waits for its cases in flight to end */
	KEY_BUDGET_CUT		/* over, nothing in flight: the rest is not run */
};
enum key_budget_decision policy_key_budget(const struct key_budget_facts *);
double	 policy_key_budget_charge(double budget, const char *key,
	    const char *cls, double first_ms);

/* runner.first_call_budget: how a case's first candidate call is run */
struct first_call_facts {
	double		 budget;	/* runner.first_call_budget, <= 0: none */
	double		 deadline;	/* the case deadline on its device, s */
	const char	*key;		/* the case's, NULL: unknown */
	const char	*dtype;
	const char	*cls;
	int		 huge;		/* a 2^31-element case */
	int		 remeasure;	/* it is queued to be measured again */
	int		 exempt;	/* its key x dtype's re-measure came in
					 * within the budget */
};
enum first_call_mode {
	FIRST_CALL_FREE = 0,		/* no budget */
	FIRST_CALL_BUDGET = 1,		/* stopped at the budget */
	FIRST_CALL_REMEASURE = 2	/* measured again into an empty cache */
};
enum first_call_mode policy_first_call_mode(const struct first_call_facts *);

/* runner.first_call_budget: a first call that ran past the budget */
struct fc_over_facts {
	enum first_call_mode mode;	/* how the case was sent (case_fcb):
					 * under the budget or its re-measure */
	int		 slot;		/* its device has a queue slot */
	int		 pending;	/* a re-measure of its key and dtype is
					 * queued or in flight (read only under
					 * the budget, with a slot) */
	double		 budget;	/* runner.first_call_budget, seconds */
};
enum fc_over_action {
	FC_OVER_DROP,		/* the runner is restarted, nothing queued */
	FC_OVER_WAIT,		/* queued again behind that re-measure */
	FC_OVER_REMEASURE,	/* queued for its re-measure; the key and
				 * dtype's other first calls in flight stop
				 * and wait for it */
	FC_OVER_CUT		/* over twice: it and the key and dtype's
				 * correctness cases are skipped, its
				 * siblings in flight abandoned */
};
struct fc_over_decision {
	enum fc_over_action action;
	double		 charge;	/* seconds charged to the key's
					 * runner.key_budget account */
};
struct fc_over_decision policy_first_call_over(const struct fc_over_facts *);

/* runner.first_call_hold: a slow first call holds its key (and dtype) */
struct first_call_hold_facts {
	double		 hold;		/* runner.first_call_hold, <= 0: none */
	const double	*started;	/* when each first call of the key (and
					 * dtype) in flight on a screening
					 * runner started (re-measures aside) */
	size_t		 nstarted;
	double		 now;		/* monotonic seconds */
};
enum first_call_hold_decision {
	FIRST_CALL_GO,		/* the key and dtype starts its next case */
	FIRST_CALL_HOLD		/* it starts none until that call ends */
};
enum first_call_hold_decision policy_first_call_hold(
	    const struct first_call_hold_facts *);

/* a previous screen's cuts replayed before any case of a run runs */
enum replay_rule {
	REPLAY_SKIPS,			/* after a hang or a crash */
	REPLAY_KEY_BUDGET,		/* runner.key_budget */
	REPLAY_FIRST_CALL_BUDGET	/* runner.first_call_budget */
};
struct replay_decision {
	int		 replay;	/* 0: nothing is cut in advance */
	const char	*setting;	/* the prior run must have had the same
					 * runner.<setting>, NULL: any run */
	double		 budget;	/* the value it must have had */
	const char	*like[2];	/* the reasons of the prior skips replayed
					 * (NULL: none) */
	const char	*reason;	/* the reason this run records */
};
struct replay_decision policy_replay(enum replay_rule, double budget);

/*
 * runner.carry and runner.refresh_days: which keys of a screen keep the
 * results of an earlier screen on the same device and environment
 */
struct carry_key {
	const char	*key;
	int		 unchanged;	/* its source digest is that screen's */
	double		 measured;	/* wall seconds: its oldest carried
					 * measurement there */
	int		 carry;		/* out: 1 carried, 0 measured now */
	int		 unsettled;	/* broken "intermittent" there: a
					 * failure no clean screen cleared */
};
struct carry_facts {
	int		 enabled;	/* runner.carry, and the run did not
					 * ask for carry: false */
	int		 same_library;	/* that screen had this library's
					 * fingerprint (nothing changed) */
	int		 refresh_days;	/* runner.refresh_days, >= 1 */
	double		 now;		/* wall seconds */
};
size_t	 policy_carry(const struct carry_facts *, struct carry_key *, size_t);

/*
 * A runner's CPU threads (OMP_NUM_THREADS: torch's intra-op pool): the
 * daemon's CPUs shared out over its runners, at least one each
 */
int	 policy_runner_threads(int cores, int runners);

#endif
