/* check_policy.c: the scheduler's rules (policy.c), each from its facts. */
#include <check.h>
#include <stdlib.h>

#include "policy.h"

static enum fail_fast_decision
ff(int enabled, const char *key, const char *dtype, const char *cls)
{
	struct fail_fast_facts	 f = { enabled, key, dtype, cls };

	return policy_fail_fast(&f);
}

START_TEST(fail_fast_cuts_a_judged_class)
{
	static const char *const cut[] = { "same_shape", "broadcast", "scalar",
	    "noncontig", "reduction", "accumulation", "dtype_exotic",
	    "edge_values", "random" };
	size_t	 i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		ck_assert_int_eq(ff(1, "add", "float32", cut[i]),
		    FAIL_FAST_CUT_CLASS);
		ck_assert_int_eq(policy_fail_fast_class(cut[i]), 1);
	}
}
END_TEST

START_TEST(fail_fast_off_cuts_nothing)
{
	ck_assert_int_eq(ff(0, "add", "float32", "same_shape"), FAIL_FAST_NONE);
}
END_TEST

/* contract cases each check a rule of their own; compile and bootstrap
 * cases are not judged by first failure */
START_TEST(fail_fast_spares_other_classes)
{
	static const char *const keep[] = { "contract", "compile", "bootstrap",
	    "", "Same_shape", "same_shape ", "same" };
	size_t	 i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		ck_assert_int_eq(ff(1, "add", "float32", keep[i]),
		    FAIL_FAST_NONE);
		ck_assert_int_eq(policy_fail_fast_class(keep[i]), 0);
	}
	ck_assert_int_eq(policy_fail_fast_class(NULL), 0);
}
END_TEST

START_TEST(fail_fast_needs_key_dtype_and_class)
{
	ck_assert_int_eq(ff(1, NULL, "float32", "same_shape"), FAIL_FAST_NONE);
	ck_assert_int_eq(ff(1, "add", NULL, "same_shape"), FAIL_FAST_NONE);
	ck_assert_int_eq(ff(1, "add", "float32", NULL), FAIL_FAST_NONE);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("policy");
	TCase	*t = tcase_create("fail_fast");
	SRunner	*r;
	int	 failed;

	tcase_add_test(t, fail_fast_cuts_a_judged_class);
	tcase_add_test(t, fail_fast_off_cuts_nothing);
	tcase_add_test(t, fail_fast_spares_other_classes);
	tcase_add_test(t, fail_fast_needs_key_dtype_and_class);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
