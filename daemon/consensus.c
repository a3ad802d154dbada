/*
 * consensus.c: split a full screen among the GPUs of one host, pick the
 * cases each GPU replays of the others', and judge the digests they
 * gather. Pure (consensus.h; check_consensus).
 */
#include <stdlib.h>
#include <string.h>

#include "consensus.h"

static int
split_cmp(const void *a, const void *b)
{
	const struct split_key	*x = *(const struct split_key *const *)a;
	const struct split_key	*y = *(const struct split_key *const *)b;

	if (x->cost != y->cost)		/* the dearest first */
		return x->cost > y->cost ? -1 : 1;
	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/*
 * Each key's cases go to one GPU (a key's first calls compile once there,
 * and its fail-fast and key budget stay per key): longest processing time
 * first, the dearest key to the GPU with the least work so far (ties: the
 * lowest index), which keeps the longest GPU within 4/3 of the best split.
 * A key of unknown cost is costed at the mean cost per case of the keys
 * with one (1 s per case when none has). Deterministic: the same keys and
 * costs give the same split on every daemon. `load` (ngpu entries, may be
 * NULL) gets each GPU's total. Returns -1 on bad arguments.
 */
int
consensus_split(struct split_key *k, size_t n, int ngpu, double *load)
{
	struct split_key	**order;
	double			 per_case = 0, sum = 0, l[CONSENSUS_MAX_GPUS];
	size_t			 i, ncases = 0;
	int			 g, best;

	if (ngpu < 1 || ngpu > CONSENSUS_MAX_GPUS || (n > 0 && k == NULL))
		return -1;
	for (i = 0; i < n; i++)
		if (k[i].cost > 0 && k[i].cases > 0) {
			sum += k[i].cost;
			ncases += k[i].cases;
		}
	per_case = ncases > 0 ? sum / ncases : 1.0;
	if ((order = calloc(n ? n : 1, sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (!(k[i].cost > 0))
			k[i].cost = per_case * (k[i].cases > 0 ? k[i].cases : 1);
		order[i] = &k[i];
	}
	qsort(order, n, sizeof(*order), split_cmp);
	for (g = 0; g < ngpu; g++)
		l[g] = 0;
	for (i = 0; i < n; i++) {
		for (best = 0, g = 1; g < ngpu; g++)
			if (l[g] < l[best])
				best = g;
		order[i]->gpu = best;
		l[best] += order[i]->cost;
	}
	free(order);
	if (load != NULL)
		for (g = 0; g < ngpu; g++)
			load[g] = l[g];
	return 0;
}

/* splitmix64's finaliser: every input bit moves every output bit */
uint64_t
consensus_hash(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * A case's place in GPU `replayer`'s sample of a run: a hash of the case,
 * the replayer and the run. The sample is the cases whose rank is below
 * per_mille / 1000 of the range; a key none of whose cases falls there
 * gets its case of least rank (replay.c).
 */
uint64_t
consensus_rank(int64_t case_id, int replayer, uint64_t run_seed)
{
	return consensus_hash((uint64_t)case_id ^ consensus_hash(run_seed ^
	    ((uint64_t)(unsigned)replayer << 32)));
}

/*
 * Whether GPU `replayer` replays the case `owner` screened: per_mille of
 * the cases, a different sample for each replayer and each run (run_seed),
 * the same on every daemon that asks; never on its owner.
 */
int
consensus_sampled(int64_t case_id, int owner, int replayer, uint64_t run_seed,
    unsigned per_mille)
{
	if (replayer == owner || per_mille == 0)
		return 0;
	if (per_mille >= 1000)
		return 1;
	return consensus_rank(case_id, replayer, run_seed) % 1000 < per_mille;
}

/*
 * What one sampled case says. The owner's two runs differing make it
 * nondeterministic (no GPU is suspected: the kernel differs from run to
 * run on one GPU). Otherwise, GPUs that differ are judged by the oracle:
 * where some outputs fail the rule and others pass, the failing GPUs are
 * suspect; where all pass (or all fail), with three GPUs or more the GPUs
 * outside the one largest group of equal digests are suspect when that
 * group is a strict majority, else it is unresolved; with two, both passing
 * is a difference within the rule and both failing unresolved.
 */
void
consensus_judge(const struct replay *r, struct replay_judgement *j)
{
	uint64_t	 first = 0;
	int		 g, h, n = 0, same = 1, pass = 0, fail = 0, big = 0;
	int		 bigat = -1, size, tie = 0;

	memset(j, 0, sizeof(*j));
	for (g = 0; g < r->ngpu && g < CONSENSUS_MAX_GPUS; g++) {
		if (!r->have[g])
			continue;
		if (n++ == 0)
			first = r->digest[g];
		else if (r->digest[g] != first)
			same = 0;
		if (r->oracle_ok[g])
			pass++;
		else
			fail++;
	}
	if (r->have_again && r->owner >= 0 && r->owner < CONSENSUS_MAX_GPUS &&
	    r->have[r->owner] && r->owner_again != r->digest[r->owner]) {
		j->outcome = REPLAY_NONDETERMINISTIC;
		return;
	}
	if (n < 2 || same) {
		j->outcome = REPLAY_AGREE;
		return;
	}
	if (pass > 0 && fail > 0) {
		for (g = 0; g < r->ngpu && g < CONSENSUS_MAX_GPUS; g++)
			if (r->have[g] && !r->oracle_ok[g])
				j->suspects |= 1u << g;
		j->outcome = REPLAY_SUSPECT;
		return;
	}
	if (n == 2) {
		j->outcome = pass ? REPLAY_WITHIN_RULE : REPLAY_UNRESOLVED;
		return;
	}
	/* three or more, all on one side of the rule: the minority */
	for (g = 0; g < r->ngpu && g < CONSENSUS_MAX_GPUS; g++) {
		if (!r->have[g])
			continue;
		for (size = 0, h = 0; h < r->ngpu && h < CONSENSUS_MAX_GPUS; h++)
			size += r->have[h] && r->digest[h] == r->digest[g];
		if (size > big) {
			big = size;
			bigat = g;
			tie = 0;
		} else if (size == big && r->digest[g] != r->digest[bigat])
			tie = 1;
	}
	if (tie || 2 * big <= n) {
		j->outcome = REPLAY_UNRESOLVED;
		return;
	}
	for (g = 0; g < r->ngpu && g < CONSENSUS_MAX_GPUS; g++)
		if (r->have[g] && r->digest[g] != r->digest[bigat])
			j->suspects |= 1u << g;
	j->outcome = REPLAY_SUSPECT;
}

/*
 * The GPUs to quarantine: those that `threshold` or more judged cases
 * suspect (counts[g], when given, gets each GPU's number).
 */
unsigned
consensus_quarantine(const struct replay_judgement *j, size_t n, int ngpu,
    int threshold, int counts[CONSENSUS_MAX_GPUS])
{
	int	 c[CONSENSUS_MAX_GPUS] = { 0 }, g;
	unsigned q = 0;
	size_t	 i;

	for (i = 0; i < n; i++)
		if (j[i].outcome == REPLAY_SUSPECT)
			for (g = 0; g < ngpu && g < CONSENSUS_MAX_GPUS; g++)
				if (j[i].suspects & (1u << g))
					c[g]++;
	for (g = 0; g < ngpu && g < CONSENSUS_MAX_GPUS; g++) {
		if (c[g] >= (threshold < 1 ? 1 : threshold))
			q |= 1u << g;
		if (counts != NULL)
			counts[g] = c[g];
	}
	return q;
}

const char *
replay_outcome_name(enum replay_outcome o)
{
	switch (o) {
	case REPLAY_AGREE:
		return "agree";
	case REPLAY_NONDETERMINISTIC:
		return "nondeterministic";
	case REPLAY_WITHIN_RULE:
		return "within_rule";
	case REPLAY_SUSPECT:
		return "suspect";
	case REPLAY_UNRESOLVED:
		return "unresolved";
	}
	return "unresolved";
}
