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
};
enum fail_fast_decision {
	FAIL_FAST_NONE,		/* its class's other cases run */
	FAIL_FAST_CUT_CLASS	/* they are skipped (reason fail_fast) */
};
enum fail_fast_decision policy_fail_fast(const struct fail_fast_facts *);
int	 policy_fail_fast_class(const char *cls);

#endif
