/*
 * policy.c: the scheduler's rules, decided from facts: fail-fast.
 * Nothing here reads the store, the clock or a runner;
 * tests/unit/check_policy.c covers each rule.
 */
#include <string.h>

#include "policy.h"

/*
 * The classes that end at their first failure of a key and dtype.  Contract
 * cases each check a rule of their own (out=, in-place, keywords, output
 * dtype) and always all run; compile and bootstrap cases are not judged
 * that way.
 */
int
policy_fail_fast_class(const char *cls)
{
	static const char *const ends[] = { "same_shape", "broadcast",
	    "scalar", "noncontig", "reduction", "accumulation", "dtype_exotic",
	    "edge_values", "random" };
	size_t	 i;

	for (i = 0; cls != NULL && i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(cls, ends[i]))
			return 1;
	return 0;
}

enum fail_fast_decision
policy_fail_fast(const struct fail_fast_facts *f)
{
	if (!f->enabled || f->key == NULL || f->dtype == NULL ||
	    !policy_fail_fast_class(f->cls))
		return FAIL_FAST_NONE;
	return FAIL_FAST_CUT_CLASS;
}
