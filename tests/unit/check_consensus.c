/* check_consensus.c: several GPUs' split, sample and judgement (consensus.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus.h"

/* 40 keys of made-up costs: LPT keeps every GPU near the mean */
START_TEST(split_balances_and_is_deterministic)
{
	struct split_key	 k[40], again[40];
	static char		 names[40][8];
	double			 load[4], total = 0, best = 0, worst = 0;
	int			 i, g;

	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "k%02d", i);
		k[i].key = names[i];
		k[i].cost = (i * 37 % 23) + 1 + (i == 7 ? 60 : 0);
		k[i].cases = 10;
		total += k[i].cost;
	}
	memcpy(again, k, sizeof(k));
	ck_assert_int_eq(consensus_split(k, 40, 4, load), 0);
	best = worst = load[0];
	for (g = 0; g < 4; g++) {
		if (load[g] < best)
			best = load[g];
		if (load[g] > worst)
			worst = load[g];
	}
	/* the dearest key alone (61) bounds the longest GPU; otherwise within
	 * 4/3 of the mean */
	ck_assert_msg(worst <= (total / 4) * 4 / 3 + 1e-9 || worst <= 61,
	    "longest GPU %.1f, mean %.1f", worst, total / 4);
	ck_assert_msg(worst - best <= 24, "GPUs %.1f to %.1f", best, worst);
	ck_assert_int_eq(consensus_split(again, 40, 4, NULL), 0);
	for (i = 0; i < 40; i++) {
		ck_assert_int_eq(k[i].gpu, again[i].gpu);
		ck_assert(k[i].gpu >= 0 && k[i].gpu < 4);
	}
	/* one GPU: everything on it */
	ck_assert_int_eq(consensus_split(k, 40, 1, load), 0);
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(k[i].gpu, 0);
	ck_assert_int_eq(consensus_split(k, 40, 0, NULL), -1);
	ck_assert_int_eq(consensus_split(k, 40, CONSENSUS_MAX_GPUS + 1, NULL), -1);
}
END_TEST

/* A key never screened is costed by its cases at the others' mean per case. */
START_TEST(split_costs_unknown_keys_by_their_cases)
{
	struct split_key	 k[3] = {
		{ "known", 100, 10, -1 }, { "new", 0, 30, -1 },
		{ "small", 10, 10, -1 },
	};
	double			 load[2];

	ck_assert_int_eq(consensus_split(k, 3, 2, load), 0);
	/* 110 s over 20 cases: 5.5 s a case, 165 s for the new key */
	ck_assert(k[1].cost > 164.9 && k[1].cost < 165.1);
	ck_assert_int_eq(k[1].gpu, 0);		/* the dearest first */
	ck_assert_int_eq(k[0].gpu, 1);
	ck_assert_int_eq(k[2].gpu, 1);
	ck_assert(load[0] > 164.9 && load[1] > 109.9 && load[1] < 110.1);
}
END_TEST

/* The sample: never the owner, about per_mille, per replayer and run. */
START_TEST(sample_is_deterministic_and_about_its_rate)
{
	int64_t		 id;
	int		 n1 = 0, n2 = 0, both = 0, other = 0;

	for (id = 1; id <= 100000; id++) {
		int a = consensus_sampled(id, 0, 1, 42, 50);
		int b = consensus_sampled(id, 0, 2, 42, 50);

		ck_assert_int_eq(a, consensus_sampled(id, 0, 1, 42, 50));
		/* the sample is the cases of low rank (replay.c's least) */
		ck_assert_int_eq(a, consensus_rank(id, 1, 42) % 1000 < 50);
		ck_assert(consensus_rank(id, 1, 42) != consensus_rank(id, 2,
		    42));
		ck_assert_int_eq(consensus_sampled(id, 1, 1, 42, 1000), 0);
		n1 += a;
		n2 += b;
		both += a && b;
		other += a != consensus_sampled(id, 0, 1, 43, 50);
	}
	/* 5% each, independent of each other and of the other run's */
	ck_assert_msg(n1 > 4600 && n1 < 5400, "%d", n1);
	ck_assert_msg(n2 > 4600 && n2 < 5400, "%d", n2);
	ck_assert_msg(both > 150 && both < 350, "%d", both);
	ck_assert_msg(other > 8500 && other < 10500, "%d", other);
	ck_assert_int_eq(consensus_sampled(7, 0, 1, 42, 0), 0);
	ck_assert_int_eq(consensus_sampled(7, 0, 1, 42, 1000), 1);
}
END_TEST

static struct replay
replay(int ngpu, int owner, const uint64_t *d, const int *ok)
{
	struct replay	 r;
	int		 g;

	memset(&r, 0, sizeof(r));
	r.case_id = 1;
	r.ngpu = ngpu;
	r.owner = owner;
	for (g = 0; g < ngpu; g++) {
		r.have[g] = 1;
		r.digest[g] = d[g];
		r.oracle_ok[g] = ok[g];
	}
	return r;
}

START_TEST(judge_two_gpus)
{
	struct replay_judgement	 j;
	struct replay		 r;
	uint64_t		 same[2] = { 7, 7 }, diff[2] = { 7, 9 };
	int			 pp[2] = { 1, 1 }, pf[2] = { 1, 0 }, ff[2] = { 0, 0 };

	r = replay(2, 0, same, pp);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_AGREE);
	/* the same wrong bits on both: the library's defect, not a GPU's */
	r = replay(2, 0, same, ff);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_AGREE);
	/* GPU 1's output fails the oracle where GPU 0's passes */
	r = replay(2, 0, diff, pf);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_SUSPECT);
	ck_assert_uint_eq(j.suspects, 2u);
	/* both within the rule (an atomic's order): not a fault */
	r = replay(2, 0, diff, pp);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_WITHIN_RULE);
	ck_assert_uint_eq(j.suspects, 0);
	r = replay(2, 0, diff, ff);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_UNRESOLVED);
	/* the owner's own two runs differ: nondeterministic, nobody suspect */
	r = replay(2, 0, diff, pf);
	r.have_again = 1;
	r.owner_again = 8;
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_NONDETERMINISTIC);
	ck_assert_uint_eq(j.suspects, 0);
	/* a GPU that did not run it is not counted */
	r = replay(2, 0, diff, pf);
	r.have[1] = 0;
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_AGREE);
}
END_TEST

START_TEST(judge_three_or_more_takes_the_minority)
{
	struct replay_judgement	 j;
	struct replay		 r;
	uint64_t		 one[3] = { 5, 5, 6 }, split4[4] = { 1, 1, 2, 2 };
	uint64_t		 all3[3] = { 1, 2, 3 };
	int			 ppp[4] = { 1, 1, 1, 1 }, fff[4] = { 0, 0, 0, 0 };
	int			 ppf[3] = { 1, 1, 0 };

	r = replay(3, 1, one, ppp);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_SUSPECT);
	ck_assert_uint_eq(j.suspects, 4u);	/* GPU 2 */
	r = replay(3, 1, one, fff);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_SUSPECT);
	ck_assert_uint_eq(j.suspects, 4u);
	/* the oracle first: the failing one even were it the majority */
	r = replay(3, 0, all3, ppf);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_SUSPECT);
	ck_assert_uint_eq(j.suspects, 4u);
	/* no strict majority: unresolved */
	r = replay(4, 0, split4, ppp);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_UNRESOLVED);
	r = replay(3, 0, all3, ppp);
	consensus_judge(&r, &j);
	ck_assert_int_eq(j.outcome, REPLAY_UNRESOLVED);
}
END_TEST

/* A GPU is quarantined at `threshold` suspect cases. */
START_TEST(quarantine_counts_suspect_cases)
{
	struct replay_judgement	 j[5] = {
		{ REPLAY_SUSPECT, 2u }, { REPLAY_AGREE, 0 },
		{ REPLAY_SUSPECT, 2u | 4u }, { REPLAY_NONDETERMINISTIC, 0 },
		{ REPLAY_WITHIN_RULE, 0 },
	};
	int			 c[CONSENSUS_MAX_GPUS];

	ck_assert_uint_eq(consensus_quarantine(j, 5, 3, 1, c), 2u | 4u);
	ck_assert_int_eq(c[0], 0);
	ck_assert_int_eq(c[1], 2);
	ck_assert_int_eq(c[2], 1);
	ck_assert_uint_eq(consensus_quarantine(j, 5, 3, 2, NULL), 2u);
	ck_assert_uint_eq(consensus_quarantine(j, 2, 3, 0, NULL), 2u);
	ck_assert_str_eq(replay_outcome_name(REPLAY_WITHIN_RULE), "within_rule");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("consensus");
	TCase	*t = tcase_create("consensus");
	SRunner	*r;
	int	 failed;

	tcase_add_test(t, split_balances_and_is_deterministic);
	tcase_add_test(t, split_costs_unknown_keys_by_their_cases);
	tcase_add_test(t, sample_is_deterministic_and_about_its_rate);
	tcase_add_test(t, judge_two_gpus);
	tcase_add_test(t, judge_three_or_more_takes_the_minority);
	tcase_add_test(t, quarantine_counts_suspect_cases);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
