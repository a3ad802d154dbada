/*
 * store.h: the store's table of contents.  Every SQL statement the daemon's
 * scheduler runs is behind one of these functions: C values and structs in,
 * C values, structs or JSON out.  The writing functions take the main
 * loop's connection (struct store); a transaction is the caller's
 * (store_begin .. store_commit), so that what must be written together is.
 * The store depends on nothing of the daemon but the log and the clocks.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <sqlite3.h>

/* store.c: the connections, migrations, transactions, health */
struct store;
struct store_cursor;		/* the rows of one query, read in turn */
struct store_health {
	int	 degraded;		/* a write was refused or is still held */
	char	 error[256];		/* the last refusal */
	size_t	 pending_writes;	/* held in memory, retried */
	double	 since;			/* wall-clock, degraded since; 0 if not */
	int64_t	 write_failures;	/* refusals since start-up */
};
void		 store_health(struct store_health *);
void		 store_health_set(const struct store_health *);
struct store	*store_open(const char *path, char *err, size_t errlen);
void		 store_close(struct store *);
sqlite3		*store_db(struct store *);
sqlite3		*store_reader(const char *path);	/* thread-local, read-only */
void		 store_cursor_free(struct store_cursor *);
int		 store_begin(struct store *);
int		 store_commit(struct store *);
int		 store_rollback(struct store *);
int		 store_exec(struct store *, const char *sql);
int		 store_step_once(sqlite3_stmt *);	/* step, finalize: 0 done, -1 not */
int		 store_step_changed(struct store *, sqlite3_stmt *);	/* 1 one row changed, 0 none, -1 */
const char	*store_errmsg(struct store *);	/* the last statement's error */
int		 store_damaged(struct store *);	/* the last error: a damaged file */
int		 store_check(struct store *, char *err, size_t errlen);
int64_t		 store_fingerprint(struct store *, json_t *fp);
char		*fingerprint_hash(json_t *fp);	/* caller frees */
/* for the store's files: sql prepared once per connection, reset, unbound */
sqlite3_stmt	*store_stmt(struct store *, const char *sql);
struct store_cursor	*store_cursor_new(struct store *, const char *sql);
sqlite3_stmt	*store_cursor_stmt(struct store_cursor *);

/* store_run.c: the runs table and the devices of a run */
struct store_run {
	int64_t	 id;
	char	*request;		/* JSON text; the caller frees it */
	int	 full;
	double	 started;		/* or created, when it never started */
};
int	 store_run_next_queued(struct store *, struct store_run *);
int	 store_run_resumable(struct store *, struct store_run *);
int	 store_run_start(struct store *, int64_t run, double started);
int	 store_run_set_state(struct store *, int64_t run, const char *state,
	    const char *err, double finished);
int	 store_run_cancel_pending(struct store *, int64_t run);
int	 store_run_total_add(struct store *, int64_t run, int64_t n);
int	 store_run_done_add(struct store *, int64_t run, int64_t n);
int	 store_runs_queued(struct store *, int *queued, int *queued_full);
int64_t	 store_run_queue(struct store *, const char *request, int full,
	    double created);
int	 store_run_state(struct store *, int64_t run, char *state, size_t len);
int	 store_run_cancel_queued(struct store *, int64_t run, double finished);
int	 store_interrupt_stale_runs(struct store *, int64_t keep);
int	 store_run_recount(struct store *, int64_t run, int64_t *total,
	    int64_t *done);
int	 store_run_device_set(struct store *, int64_t run, int device,
	    int64_t fingerprint_id);
int	 store_run_devices(struct store *, int64_t run, int *devices, int max);
int	 store_run_device_fingerprint(struct store *, int64_t run, int device,
	    char *hash, size_t len, json_t **fp);
int	 store_run_tail_interrupted(struct store *, int64_t *run);
int	 store_run_compile(sqlite3 *, int64_t run, double *compile_s,
	    int *firsts);
int	 store_prune(struct store *, int keep, int64_t *pruned);

/* store_case.c: the entries, cases and results of a run */
/*
 * The pending cases of a run that a skip takes: those of key on device,
 * narrowed by the fields set; store_cases_skip binds them as parameters.
 */
struct case_filter {
	int		 device;
	const char	*key;
	const char	*dtype;		/* NULL: any */
	const char	*cls;		/* this class only, NULL: any */
	const char	*not_cls;	/* any class but this, NULL: any */
	int64_t		 id;		/* this case only, 0: any */
	int64_t		 like_run;	/* > 0: only the specs that run skipped */
	const char	*like_reasons[2];	/* with one of these (NULL: none) */
};
/* one case's outcome; a NULL text or a negative time is stored as NULL */
struct store_result {
	int64_t		 case_id;
	const char	*status;
	const char	*reason;
	const char	*detail;
	double		 score;
	int		 native_inaccurate;
	const char	*figures;
	const char	*errtail;
	const char	*repro;
	const char	*repro_inputs;	/* its inputs file's text, or NULL */
	const char	*severity;	/* a failure's, "" otherwise */
	double		 ms[3];		/* candidate first, steady, native */
	double		 created;
};
/* a case of queue order (store_queue_next) */
struct store_queued {
	int64_t		 id;
	int		 compile_runner;	/* a compile step or a 2^31 case */
	int		 compile;		/* a compile-ladder step */
	const char	*key;			/* valid until the next row */
};
int	 store_entry_add(struct store *, int64_t run, const char *key,
	    const char *name, const char *schema, int screened);
int	 store_source_add(struct store *, int64_t run, int device,
	    const char *key, const char *source);
int	 store_case_add(struct store *, int64_t run, int device,
	    const char *key, const char *name, const char *cls,
	    const char *dtype, const char *spec);
json_t	*store_case_spec(struct store *, int64_t id, int *attempt);
char	*store_case_spec_text(struct store *, int64_t id);	/* caller frees */
int	 store_case_dtype(struct store *, int64_t id, char *dtype, size_t len);
int	 store_case_key_dtype(struct store *, int64_t id, char *key,
	    size_t klen, char *dtype, size_t dlen);
int	 store_case_state(struct store *, int64_t id, char *state, size_t len);
int	 store_case_set_state(struct store *, int64_t id, const char *state);
int	 store_case_reseed(struct store *, int64_t id, const char *spec);
int	 store_cases_same_key_dtype(struct store *, int64_t a, int64_t b);
int	 store_cases_skip(struct store *, int64_t run, const struct case_filter *,
	    const int64_t *busy, size_t nbusy, const char *reason,
	    const char *detail, double created);
json_t	*store_prior_skips(struct store *, int64_t run, int device,
	    int64_t fingerprint_id, double budget, const char *const like[2],
	    const char *setting);
struct store_cursor *store_queue_cursor(struct store *, int64_t run,
	    int device);
int	 store_queue_next(struct store_cursor *, struct store_queued *);
int	 store_result_add(struct store *, const struct store_result *);
int	 store_result_shrink(struct store *, int64_t case_id, int runs,
	    const char *shrunk_spec, const char *repro, const char *inputs,
	    double ms, double cand_ms);
int	 store_result_reuse(struct store *, int64_t case_id, int64_t from,
	    const char *shrunk_spec, const char *repro, const char *inputs);
json_t	*store_shrinks_prior(struct store *, int64_t run, int device);
json_t	*store_shrink_pending(struct store *, int64_t run);
json_t	*store_failed_classes(struct store *, int64_t run, int device);
json_t	*store_key_accounts(struct store *, int64_t run, int device);

/* store_carry.c: what a screen carries from an earlier one */
struct store_carry_key {
	const char	*key;		/* valid until the next row */
	int		 unchanged;	/* the same source digest there */
	double		 measured;	/* its oldest measurement there, 0 none */
	int		 unsettled;	/* a verdict of it there is broken
					 * "intermittent" */
};
struct store_carry_case {
	int64_t		 case_id;	/* this run's pending case */
	const char	*spec;		/* its spec (valid until the next row) */
	int64_t		 from;		/* the earlier case of the same spec */
	const char	*status;	/* its stored result's status ... */
	const char	*figures;	/* ... and figures (NULL: none) */
};
int64_t	 store_carry_source(struct store *, int64_t run, int device,
	    int64_t fingerprint_id, int *same_library);
struct store_cursor *store_carry_keys(struct store *, int64_t run, int device,
	    int64_t source);
int	 store_carry_keys_next(struct store_cursor *, struct store_carry_key *);
struct store_cursor *store_carry_cases(struct store *, int64_t run,
	    int device, int64_t source, const char *keys_json);
int	 store_carry_cases_next(struct store_cursor *, struct store_carry_case *);
int	 store_result_carry(struct store *, int64_t to, int64_t from,
	    const struct store_result *judged);

/* store_event.c: the events table */
int	 store_event_add(struct store *, int64_t run, const char *kind,
	    json_t *obj, double created);

/* store_verdict.c: folding a run's results into its verdicts */
/* a stored result, as a run's fold reads it (store_fold_next) */
struct store_fold_row {
	int		 device;
	const char	*key, *name, *dtype, *cls;	/* until the next row */
	int64_t		 case_id;
	const char	*status, *reason, *detail, *severity;
	double		 score;
	int		 native_inaccurate;
	int		 has_first;	/* the candidate's times were stored */
	double		 cand_first_ms, cand_steady_ms;
	int		 has_ladder;	/* a compile-ladder step */
	double		 ladder_value;
	double		 ladder_budget_ms;	/* < 0: not stored */
	int64_t		 carried_run;	/* the run that measured a carried
					 * result, 0: measured in this run */
	int		 has_speed;	/* RESULT's speed was stored */
	double		 speed_native_ms, speed_cand_ms;
	int		 nondeterministic;	/* its output bits differed
						 * between two calls (db/010) */
};
/* a key x dtype verdict; a NULL text or a negative time is stored as NULL */
struct store_verdict {
	int64_t		 run;
	int		 device;
	const char	*key, *name, *dtype, *verdict, *reason;
	const char	*cls, *detail;
	int64_t		 evidence_case;	/* 0: none */
	int		 cases, passed;
	double		 first_call_ms, steady_ms;
	const char	*severity;	/* the evidence's, NULL: none */
	int		 n_critical, n_loud, n_numerics;	/* failing cases */
	int64_t		 carried_from;	/* every case carried from that run
					 * (the newest of them), 0: measured */
	double		 speed_ratio;	/* min native/candidate over passing
					 * cases; < 0: none */
	int		 speed_cases;
	int		 nondeterministic;	/* cases whose bits differed */
	/*
	 * The deployment modes' verdicts (STORE_MODE_COMPILE: the trace
	 * class, STORE_MODE_CUDAGRAPH: graph): verdict NULL when the run
	 * screened no case of the mode (or none applied); db/009.
	 */
	struct store_mode_verdict {
		const char	*verdict, *reason, *detail, *severity;
		int64_t		 evidence_case;	/* 0: none */
	} mode[2];
};
#define STORE_MODE_COMPILE	0
#define STORE_MODE_CUDAGRAPH	1
int64_t	 store_run_unstored(struct store *, int64_t run);
struct store_cursor *store_fold_cursor(struct store *, int64_t run);
int	 store_fold_next(struct store_cursor *, struct store_fold_row *);
int	 store_verdict_add(struct store *, const struct store_verdict *);

/* store_consensus.c: several GPUs of one host (db/010) */
int	 store_split_load(struct store *, int64_t run, json_t **map);
int	 store_split_add(struct store *, int64_t run, const char *key,
	    int device, double cost);
int	 store_run_set_split(struct store *, int64_t run, int split);
int	 store_key_costs(struct store *, int64_t run, json_t *costs);
struct store_cursor *store_replay_candidates(struct store *, int64_t run);
int	 store_replay_have(struct store *, int64_t case_id, int device,
	    int attempt);
int	 store_replay_add(struct store *, int64_t run, int64_t case_id,
	    int device, int attempt, const char *status, const char *digest,
	    int oracle_ok, double created);
struct store_cursor *store_replay_cursor(struct store *, int64_t run);
int	 store_replay_outcome(struct store *, int64_t case_id,
	    const char *outcome);
int	 store_quarantine_add(struct store *, int64_t run, int device,
	    int suspect, int sampled, int64_t evidence_case, const char *detail);
int64_t	 store_verdicts_share(struct store *, int64_t run);

/* store_alone.c: a lost case run again alone (db/011, alone.c) */
int64_t	 store_alone_next(struct store *, int64_t run, int device,
	    char *first, size_t len);
int	 store_alone_reproduced(struct store *, int64_t case_id,
	    const char *how);
json_t	*store_alone_unskip(struct store *, int64_t case_id,
	    const char *first);
json_t	*store_alone_counts(sqlite3 *, int64_t run);

#endif
