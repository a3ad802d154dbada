/*
 * scheduler.h: the scheduler's private header.  Its state is one struct
 * defined in worker.c; the files of the scheduler (one per concern) share it
 * through this header, which lists them as its table of contents (not
 * "sched.h": that name would shadow the system header pthread.h includes).
 */
#ifndef SCHEDULER_H
#define SCHEDULER_H

#include <pthread.h>

#include "opscreend.h"
#include "verdict.h"

#define NSLOTS		(MAX_DEVICES + 1)
#define BACKOFF_MAX	60.0

/* a runner slot as the scheduler sees it; its process is w->proc */
enum worker_state { W_DOWN, W_STARTING, W_IDLE, W_BUSY, W_DEAD };
struct worker {
	int		 slot;
	int		 device;		/* GPU index, -1 for cpu */
	struct runner	*proc;			/* its process (supervise.c) */
	enum worker_state state;
	int64_t		 case_id;		/* case in flight, 0 if none */
	char		*repro;			/* repro of the case in flight */
	char		*repro_inputs;		/* its inputs file's text, or NULL */
	double		 deadline;		/* monotonic seconds */
	double		 next_spawn;		/* backoff after failures */
	int		 failures;		/* consecutive start failures */
	json_t		*fingerprint;		/* from hello */
	json_t		*entries;
	json_t		*import;		/* hello's import facts, or NULL */
	char		 hello_error[1024];
	int		 restarts;
	double		 fp_asked;		/* fingerprint request in flight since */
	int		 compile;		/* takes compile-class cases only */
	int		 case_compile;		/* the case in flight is a ladder step */
	int		 case_mode;		/* ... a trace or graph case */
	int		 case_fcb;		/* first-call budget: 1 on, 2 re-measure */
	int		 case_in_first;		/* inside that first call */
	double		 case_first_t0;		/* when it started (monotonic) */
	char		 case_dtype[32];	/* the case's dtype */
	char		 case_key[128];		/* its aten key */
	double		 case_t0;		/* when it was sent (monotonic) */
	/* shrinking a failing case (shrink_try != NULL while one is in flight) */
	json_t		*shrink_best;		/* smallest variant failing alike */
	json_t		*shrink_try;		/* the variant in flight */
	char		*shrink_repro;		/* shrink_best's repro */
	char		*shrink_repro_inputs;	/* and its inputs file's text */
	char		 shrink_reason[48];
	int		 shrink_idx, shrink_left, shrink_runs, shrunk;
	int64_t		 shrink_case;
	double		 shrink_t0;		/* when the shrink started */
	double		 shrink_cand_ms;	/* its variants' candidate first calls */
	int64_t		 shrink_tail;		/* the run after whose lists it
						 * shrinks (sched.tail_run), 0 none */
	int		 fp_stale;		/* library changed: restart when idle */
	json_t		*owned;			/* runner.key_affinity: the ops its
						 * process ran (reset at hello) */
	int		 replay;		/* 1 + the consensus phase's item in
						 * flight (replay.c), 0: none */
	int		 nccl;			/* in the phase's communicator step
						 * (gather.c) */
	int64_t		 alone;			/* a lost case run again alone
						 * (alone.c): its id in flight,
						 * -id while a fresh runner
						 * starts for it, 0 none */
	char		 alone_first[600];	/* how that case was lost */
};

/* one run of the consensus phase: a sampled case on a device (replay.c) */
struct replay_item {
	int64_t	 case_id;
	int	 device;
	int	 attempt;	/* 0 another device's, 1 the owner's second */
	int	 state;		/* 0 to send, 1 in flight, 2 done */
};

struct devq {
	int	 device;
	int64_t	*ids;
	int	*kix;		/* each case's key in cur.keys, -1: never waits */
	size_t	 head, len, cap;
	int	 expanded;
	int	 resume;	/* cases stored before a restart: check, queue */
};

/* the run in progress */
struct sched_run {
	int64_t		 run_id;
	int		 full;
	unsigned	 classes;
	json_t		*dtypes;	/* array or NULL */
	json_t		*ops;		/* array or NULL */
	struct devq	 q[NSLOTS];
	struct devq	 cq[NSLOTS];	/* compile-class cases, own runners */
	int		 nq;
	int64_t		 total, done;
	double		 started;
	double		 count_t0;	/* the rate counts from here ... */
	int64_t		 count_done0;	/* ... with this many cases done */
	double		 store_s;	/* time spent writing case results */
	int		 resumed;	/* after a restart (sched_resume) */
	int		 carry;		/* the request did not say carry: false */
	json_t		*keys;		/* key names of the queues' kix */
	/* several devices (split.c, replay.c) */
	int		 split_decided;
	json_t		*split;		/* key -> owner device; NULL: each
					 * device screens every key */
	int		 alone_none;	/* no lost case waits to run alone
					 * (alone.c; reset when one may be) */
	int		 consensus;	/* the phase: 0 not begun, 1 running,
					 * 2 judged */
	double		 consensus_t0;
	struct replay_item *rp;
	size_t		 rp_n, rp_cap, rp_left;
	/* its NCCL communicator step (gather.c) */
	int		 nccl_state;
	int		 pinned;	/* NCCL's pinning check is over */
	int		 nccl_pin;	/* the step in progress is that check */
	int		 nccl_w[NSLOTS];	/* each rank's worker */
	int		 nccl_left;	/* ranks yet to answer */
	json_t		*nccl_values;	/* each rank's digests */
	size_t		 nccl_width;
	json_t		*nccl_done;	/* each rank's answer */
};

struct sched {
	struct sched_run cur;
	struct worker	 workers[MAX_WORKERS];
	int		 nworkers;
	/* Shared with API threads, under mtx. */
	pthread_mutex_t	 mtx;
	json_t		*fp[NSLOTS];		/* fingerprint per device slot */
	char		 err[NSLOTS][1024];	/* why a slot has no runner */
	json_t		*names;			/* object: name -> 1, key -> 1 */
	json_t		*regnames;		/* object: enable name -> 1 */
	json_t		*shrunk;		/* "dev|key" -> best score shrunk */
	json_t		*spent;			/* "dev|key" -> candidate seconds */
	json_t		*prior[NSLOTS];		/* spec -> the library's last shrink */
	/*
	 * runner.shrink_after: the completed run whose failing cases are
	 * being shrunk (0: none), its shrinks not yet started and the counts
	 * its shrinks_done event reports.
	 */
	int64_t		 tail_run;
	json_t		*tail;	/* [{case, device, spec (parsed), reason, ...}] */
	int		 tail_n, tail_inflight, tail_shrunk, tail_runs;
	int		 tail_stopped;		/* dropped: a new run or library */
	double		 tail_t0;
	int		 tail_resumed;		/* taken up after a restart */
	int64_t		 tail_resume;		/* a restart's run to take up */
	json_t		*fc;			/* "dev|key|dtype" -> FC_* */
	json_t		*confirm;		/* "id" -> re-measure [dev, key, dtype] */
	int64_t		 cancel_req;
	json_t		*progress;		/* snapshot for /runs */
	unsigned	 progress_turns;	/* changes of its run or state */
	int64_t		 restarts_total[NSLOTS];	/* runner respawns */
	json_t		*prev_fp[NSLOTS];	/* the fingerprint before a change */
	double		 fp_confirmed[NSLOTS];	/* when a runner last reported it */
	/*
	 * Read by API threads without mtx (__atomic): /allowlist's freshness
	 * check takes no lock the main loop holds.  fp_oldest is the least
	 * fp_confirmed over slots with a fingerprint (INFINITY: none), kept
	 * by fp_oldest_update() under mtx.
	 */
	double		 fp_oldest;
	double		 fp_wanted;		/* an API thread asked for a look */
};
extern struct sched sched;

/* a first call's state per device x key x dtype (sched.fc; firstcall.c) */
#define FC_PENDING	1
#define FC_EXEMPT	2
#define FC_CUT		3

/* fingerprint.c */
void	 fp_oldest_update(void);		/* with sched.mtx held */

/* worker.c */
int	 slot_of_device(int device);
int	 nslots(void);
int	 device_of_slot(int slot);
void	 worker_idle(struct worker *w);
void	 worker_repro_clear(struct worker *w);
void	 worker_restart_later(struct worker *w, double delay);
void	 worker_kill(struct worker *w);

/* record.c */
int	 run_add_event(int64_t run_id, const char *kind, json_t *obj);
double	 jnum(json_t *o, const char *k);
void	 pw_note(const char *what);
int	 pw_refused(const char *what);
void	 pw_fault(void);
void	 pw_ok(void);
void	 pw_flush(void);
int	 pw_write(int (*fn)(void *), json_t *args);
int	 pw_ready(void);
const char	*pw_error(void);
int	 pw_retry_later(const char *what);
int	 case_record_as(int64_t case_id, const struct case_verdict *v,
	    const char *status, const char *state, json_t *result,
	    const char *errtail, const char *repro, const char *inputs);
int	 case_record(int64_t case_id, const struct case_verdict *v,
	    json_t *result, const char *errtail, const char *repro,
	    const char *inputs);
int	 case_record_alone(int64_t case_id, const struct case_verdict *v,
	    json_t *result, const char *repro, const char *inputs,
	    const char *first);
int	 run_end(int64_t run, const char *state, const char *why);
int	 run_event(int64_t run, const char *kind, json_t *ev);
int	 run_set_state(int64_t id, const char *state, const char *err);

/* run.c */
void	 progress_update(const char *state);
void	 run_clear(void);
void	 run_fail(const char *why);
void	 run_load(int64_t id, const char *request, int full);
int	 run_activate(void);
int	 run_expand(int slot, struct worker *w);
int	 run_finish(void);
void	 run_log_lists(void);
void	 run_cancel_now(void);

/* queue.c */
int	 op_requested(const char *key, const char *name);
int	 queue_unshift(struct devq *q, int64_t id, int k);
int	 queue_interleave(int slot);
int	 compile_deadline(void);
int	 case_deadline(void);
int	 case_send(struct worker *w, int64_t id, json_t *spec);
int	 case_dispatch(struct worker *w, int64_t id);
int	 queue_ready(struct devq *q, unsigned char *memo, const json_t *owned);
int	 key_position(const char *key);
void	 case_requeue(struct worker *w, int64_t id);

/* alone.c */
int	 alone_poll(void);
void	 alone_result(struct worker *w, json_t *msg);
void	 alone_lost(struct worker *w, const char *how);
void	 alone_requeue(const json_t *cases);

/* carry.c */
int64_t	 carry_replay(int slot, int64_t fingerprint_id);

/* skip.c */
/* struct case_filter: store.h */
int	 cases_skip(const struct case_filter *, const char *reason,
	    const char *detail);
struct replay_decision;
int	 prior_skips_replay(int slot, int64_t fpid,
	    const struct replay_decision *d, const char *why, int *nkeys);
int	 skip_replay(int slot, int64_t fpid);
void	 case_skip_siblings(int64_t case_id, int device, int compile_only);

/* fail_fast.c */
void	 fail_fast_cut(int device, const json_t *spec, int64_t id,
	    const char *severity);
int	 fail_fast_resume(int slot);

/* key_budget.c */
void	 key_budget_cut(int device, const char *key, double spent);
double	 key_budget_add(int device, const char *key, double spent);
int	 key_budget_over(int device, const char *key);
int	 key_budget_wait(int device, const char *key);
void	 key_budget_charge(int device, const json_t *spec, double first_ms);
int	 budget_replay(int slot, int64_t fpid, int rule, double budget,
	    const char *when);
int	 key_budget_replay(int slot, int64_t fpid);

/* fc.c */
int	 fc_slow(int device, const char *key, const char *dtype);
int	 fc_confirm(int64_t id);
void	 fc_confirm_add(int64_t id, int device, const char *key,
	    const char *dtype);
void	 fc_confirm_end(int64_t id, int state);
int	 fc_pending(int device, const char *key, const char *dtype);
int	 fc_mode(const struct worker *w, int64_t id, const json_t *spec);

/* abandon.c */
void	 worker_respawn(struct worker *w);
void	 abandon_siblings(struct worker *w, int64_t id, const char *reason,
	    const char *why);

/* firstcall.c */
void	 first_call_over(struct worker *w);
void	 on_first_call(struct worker *w, json_t *msg, int starts);
int	 first_call_budget_replay(int slot, int64_t fpid);

/* shrinkrun.c */
int	 shrink_mark(int device, const char *key, double score);
int	 shrink_wanted(int device, const json_t *spec, int fatal,
	    double score);
void	 shrink_clear(struct worker *w);
int	 shrink_prior_load(int slot);
int	 shrink_reuse(int device, int64_t id, const struct case_verdict *v);
void	 shrink_start(struct worker *w, int64_t id, json_t *spec,
	    const struct case_verdict *v);
void	 shrink_result(struct worker *w, json_t *msg);
void	 shrink_abort(struct worker *w);
int	 shrink_tail_load(int64_t run);
void	 shrink_tail_poll(void);
void	 shrink_tail_stop(const char *why);
void	 shrink_tail_interrupted(void);

/* fingerprint.c */
void	 queue_full_screen(const char *reason);
void	 fingerprint_changed(int slot, json_t *fp, const char *seen);
void	 on_fingerprint(struct worker *w, json_t *msg);
void	 fingerprint_poll(double t);

/* request.c */
void	 request_init(void);			/* on the main loop's thread */

/* split.c */
int	 split_decide(void);
int	 split_owns(int device, const char *key);

/* replay.c */
int	 replay_poll(void);
void	 replay_result(struct worker *w, json_t *msg);
void	 replay_lost(struct worker *w, const char *status);

/* gather.c */
#define NCCL_TIMEOUT_S	120
int	 gather_poll(void);
int	 gather_pincheck(void);
void	 gather_message(struct worker *w, json_t *msg, int done);
void	 gather_lost(struct worker *w, const char *how);
void	 gather_multirank(struct worker *w, json_t *msg);
int	 gather_deadline_s(void);

/* resume.c */
int	 run_resume_device(int slot, struct worker *w);
int	 run_device_same_library(int64_t run, int device, json_t *fp,
	    json_t **was);

#endif
