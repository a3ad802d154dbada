/*
 * consensus.h: several GPUs of one host (docs/design.md, "Several GPUs").
 * Which GPU screens which key, which cases each GPU replays of the others'
 * screens, and what a disagreement between their outputs means. Pure:
 * facts in, decisions out; check_consensus holds every rule. The runners'
 * NCCL all-gather of the digests (kernels/) and the store around them are
 * not part of it.
 */
#ifndef CONSENSUS_H
#define CONSENSUS_H

#include <stddef.h>
#include <stdint.h>

#define CONSENSUS_MAX_GPUS	16

/* one key of a full screen, to be screened on one GPU */
struct split_key {
	const char	*key;
	double		 cost;	/* its runner time in the last screen, <= 0:
				 * unknown (then its cases at the mean cost
				 * per case of the keys that have one) */
	int		 cases;
	int		 gpu;	/* out */
};
int	 consensus_split(struct split_key *, size_t, int ngpu, double *load);

/* whether GPU `replayer` replays a case that GPU `owner` screened */
uint64_t consensus_hash(uint64_t);
uint64_t consensus_rank(int64_t case_id, int replayer, uint64_t run_seed);
int	 consensus_sampled(int64_t case_id, int owner, int replayer,
	    uint64_t run_seed, unsigned per_mille);

/* one sampled case: the 64-bit digest of each GPU's output on the same
 * inputs, and whether that output passes the oracle's rule */
struct replay {
	int64_t		 case_id;
	int		 owner;		/* the GPU that screened it */
	int		 ngpu;
	int		 have[CONSENSUS_MAX_GPUS];	/* that GPU ran it */
	uint64_t	 digest[CONSENSUS_MAX_GPUS];
	int		 oracle_ok[CONSENSUS_MAX_GPUS];
	int		 have_again;	/* the owner ran it twice */
	uint64_t	 owner_again;	/* the owner's second digest */
};
enum replay_outcome {
	REPLAY_AGREE,		/* every digest the same */
	REPLAY_NONDETERMINISTIC,/* the owner's two runs differ */
	REPLAY_WITHIN_RULE,	/* GPUs differ, every output passes the rule */
	REPLAY_SUSPECT,		/* `suspects` computed differently */
	REPLAY_UNRESOLVED	/* they differ and nothing says which is wrong */
};
struct replay_judgement {
	enum replay_outcome	 outcome;
	unsigned		 suspects;	/* bit g: GPU g */
};
void	 consensus_judge(const struct replay *, struct replay_judgement *);
unsigned consensus_quarantine(const struct replay_judgement *, size_t,
	    int ngpu, int threshold, int counts[CONSENSUS_MAX_GPUS]);
const char *replay_outcome_name(enum replay_outcome);

#endif
