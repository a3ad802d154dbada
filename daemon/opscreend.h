/*
 * opscreend: per-GPU operator-correctness screening daemon.
 * This header is the table of contents: one section per file.
 */
#ifndef OPSCREEND_H
#define OPSCREEND_H

#include <sys/types.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <sqlite3.h>

#include "log.h"
#include "store.h"
#include "util.h"

#include "version.h"
#define MAX_DEVICES		16
#define MAX_WORKERS		64
#define FRAME_MAX		(16u * 1024 * 1024)	/* worker message bound */
#define ERRTAIL_MAX		4096			/* stderr kept per worker */
#define BODY_MAX		(64u * 1024)		/* HTTP request body bound */
#define QUEUED_RUNS_MAX		4
#define DEGENERATE_RETRIES	8	/* e.g. relu of one negative value */
#define CRASH_RESTARTS_MAX	1000			/* per run, then the run fails */

/* config.c */
struct config {
	char	 listen[64];
	int	 port;
	char	 database[4096];
	char	 token_file[4096];
	char	 python[4096];
	char	 runner_path[4096];
	char	 library[64];		/* auto | flag_gems | demolib | <module> */
	char	 devices[256];		/* all | cpu | cpu:N | 0,1,... */
	char	 nvml_library[4096];	/* dlopen()ed for devices = all */
	char	 gpu_host_paths[1024];	/* any of them: a host with NVIDIA GPUs */
	int	 case_deadline;		/* seconds */
	int	 cpu_case_deadline;	/* seconds, on the CPU (no JIT) */
	int	 mode_deadline;		/* seconds, a trace or graph case */
	int	 alone_factor;	/* a lost case alone: x its deadline; 0 off */
	int	 hello_deadline;	/* seconds for a runner to start */
	int	 fingerprint_period;	/* seconds between library re-checks */
	int	 workers_per_device;
	int	 compile_workers;	/* per device, only compile-class cases */
	int	 compile_budget;	/* seconds per compile-ladder step */
	double	 compile_extrapolate;	/* fit horizon, x the largest step */
	int	 shrink_max;		/* re-runs to shrink one failing case */
	double	 shrink_budget;		/* seconds one shrink may run, 0 = none */
	int	 shrink_after;		/* shrinks after the run's lists */
	double	 key_budget;		/* candidate seconds per key, 0 = none */
	double	 first_call_budget;	/* seconds per first call, 0 = none */
	double	 first_call_hold;	/* a slower one holds its siblings */
	int	 cache_autotuning;	/* TRITON_CACHE_AUTOTUNING for runners */
	int	 fail_fast;		/* a failure ends its key x dtype x class */
	int	 key_affinity;		/* a key's cases prefer one runner */
	int	 runner_pool;		/* runners forked from a pool: 1, 0, -1 auto */
	int	 speed;			/* enum verdict_speed: which cases time */
	int	 carry;			/* unchanged keys keep their results */
	int	 refresh_days;		/* every key measured afresh within */
	int	 runner_nice;		/* niceness of runners, 0..19 */
	char	 cuda_sync[16];		/* auto | spin | yield | blocking */
	double	 autotune_rep;		/* ms per autotune config, 0 = library's */
	int	 screen_on_start;
	int	 api_threads;
	int	 api_max_connections;
	int	 api_connection_timeout;	/* idle seconds */
	int	 api_max_connections_per_ip;
	int	 api_request_timeout;	/* seconds to deliver a request */
	int	 api_header_timeout;	/* seconds to deliver its head */
	int	 keep_runs;		/* [store]: complete runs kept whole */
	double	 critical_ratio;	/* [verdict]: float error over the
					 * bound past which it is critical */
	char	 default_classes[256];
	char	 modes[64];		/* runner.modes: eager[,compile][,cudagraph] */
	char	 compile_backend[64];	/* runner.compile_backend: torch.compile's */
	char	 default_dtypes[256];
	char	 default_ops[4096];	/* runner.ops: the host's op scope */
	int	 consensus_split;	/* several devices divide a full screen */
	int	 consensus_per_mille;	/* of each other device's cases replayed */
	int	 consensus_threshold;	/* suspect cases that quarantine a device */
	int	 consensus_nccl;	/* 0 no, 1 yes, 2 auto (GPUs only) */
	int	 nerrors;
};
void	 config_defaults(struct config *);
int	 config_load(struct config *, const char *path, FILE *errs);
int	 config_set(struct config *, const char *key, const char *value);
int	 config_check(const struct config *, const char *path, FILE *errs);
int	 config_listen_valid(const char *);
int	 config_listen_loopback(const char *);

/* nvml.c */
int	 nvml_device_count(const char *lib, char *why, size_t len);
int	 nvml_gpu_host(const char *paths, char *which, size_t len);

/* supervise.c: a runner process, opaque to every other file */
struct runner;
struct runner	*supervise_new(int slot, int device, int compile);
int	 supervise_spawn(struct runner *);	/* 0, 1 later, -1 failed */
void	 supervise_reap(void);
void	 supervise_kill(struct runner *);
void	 supervise_collect(struct runner *, char *how, size_t len);
int	 supervise_send(struct runner *, json_t *msg);
int	 supervise_read(struct runner *, json_t **msg);	/* 1 msg, 0 none, -1 eof/err */
void	 supervise_read_stderr(struct runner *);
void	 supervise_errtail(struct runner *, char *buf, size_t len, int lines);
int	 supervise_sock(const struct runner *);	/* -1: none */
int	 supervise_errfd(const struct runner *);	/* -1: none */

/* pool.c */
void	 pool_init(void);
void	 pool_poll(void);
void	 pool_stop(void);
int	 pool_fd(void);			/* -1: none */
pid_t	 pool_pid(void);
unsigned pool_spawned(void);
int	 pool_spawn(const char *python, char *const envp[], int errfd,
	    int sockfd, pid_t *pid);

/* sched.c: struct worker is the scheduler's (scheduler.h) */
struct worker;
void	 sched_init(void);
int	 sched_nworkers(void);
struct worker	*sched_worker(int i);
struct runner	*sched_runner(struct worker *);
void	 sched_deadlines(double t);		/* sched_on_deadline where due */
int64_t	 sched_resume(int *full);		/* start-up: the interrupted run */
void	 sched_poll(void);			/* main-loop step: dispatch, reap, deadlines */
void	 sched_on_message(struct worker *, json_t *msg);
void	 sched_on_worker_exit(struct worker *, const char *why);
void	 sched_on_deadline(struct worker *);
double	 sched_next_deadline(void);
int	 sched_queue_run(json_t *request, int64_t *run_id, char *err, size_t errlen);
int	 sched_cancel_run(int64_t run_id, char *err, size_t errlen);
void	 sched_requests(void);			/* main loop: the API's writes */
json_t	*sched_progress(void);			/* live progress of the current run */
unsigned sched_progress_turns(void);		/* its run or state changed */
json_t	*sched_current_fingerprints(void);	/* per device, NULL when not known */
void	 sched_counters(int64_t *restarts, int n);	/* per device slot */
int	 sched_fingerprint_fresh(void);		/* 0: not re-checked in time */
void	 set_fault(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 set_store_damaged(const char *why);
json_t	*sched_registered_names(void);		/* NULL: no table known yet */

/* regress.c */
enum regress_change {
	REGRESS_SAME,
	REGRESS_REGRESSION,	/* joined the bad verdicts (hazard, broken) */
	REGRESS_FIX,		/* left them for verified */
	REGRESS_WORSE,		/* bad on both sides, a worse verdict or severity */
	REGRESS_MILDER,
	REGRESS_CHANGED,	/* e.g. verified <-> inconclusive */
	REGRESS_NEW,		/* only in the newer screen */
	REGRESS_GONE		/* only in the older one */
};
#define REGRESS_NCHANGES	8
int64_t	 regress_previous(sqlite3 *, int64_t run);
int	 regress_run(sqlite3 *, int64_t run, double now, int *nevents);
int	 regress_intermittent(sqlite3 *, int64_t run);
enum regress_change regress_change(const char *from, const char *from_sev,
	    const char *to, const char *to_sev);
const char *regress_change_name(enum regress_change);
json_t	*regress_screen(sqlite3 *, int64_t run);
int	 regress_diff_default(sqlite3 *, int64_t *from, int64_t *to);
json_t	*regress_diff(sqlite3 *, int64_t from, int64_t to, int gpu);

/* metrics.c */
char	*metrics_render(sqlite3 *, size_t *len);	/* caller frees */

/* verdict.c: see verdict.h */

/* rollup.c */
/*
 * Which failures deny a name: strict, every one (the default); tolerant,
 * all but a key x dtype whose failing cases are all numerics (verdict.h).
 */
enum rollup_policy {
	ROLLUP_STRICT,
	ROLLUP_TOLERANT
};
#define ROLLUP_NPOLICIES	2
/*
 * The deployment mode a list is for: eager calls, torch.compile (the trace
 * class) or CUDA graphs (the graph class); a name is allowed in a mode only
 * where it is verified eagerly and in the mode.
 */
enum rollup_mode { ROLLUP_EAGER, ROLLUP_COMPILE, ROLLUP_CUDAGRAPH };
struct rollup_query {
	char	 dtypes[256];		/* comma list, empty = what each key had */
	int	 gpu;			/* -1 = every device */
	int	 stale_ok;
	enum rollup_policy policy;	/* 0: strict */
	double	 faster;		/* > 0: faster=RATIO (native/candidate
					 * at every passing case), 0: off */
	enum rollup_mode mode;		/* 0: eager */
	int	 deterministic;		/* 1: leave out names with a
					 * nondeterministic key x dtype */
};
const char *rollup_mode_name(enum rollup_mode);
int	 rollup_mode_parse(const char *, enum rollup_mode *);
const char *rollup_policy_name(enum rollup_policy);
int	 rollup_policy_parse(const char *, enum rollup_policy *);
int	 rollup_tolerated(enum rollup_policy, const char *verdict,
	    const char *severity, int n_critical, int n_loud);
int	 rollup_lists(sqlite3 *, const struct rollup_query *, json_t *current_fps,
	    json_t **allow, json_t **deny, int *http_status, json_t **err);

/* api.c */
int	 api_start(void);
void	 api_stop(void);

/* web.c */
const char *web_asset(const char *url, const char **ctype);

/* env.c: the daemon's one state struct */
struct opscreend {
	struct config	 conf;
	struct store	*store;
	int		 wakefd[2];	/* api threads -> main loop */
	int		 devices[MAX_DEVICES];
	int		 ndevices;	/* 0 with cpu = 1 */
	int		 cpu;
	char		 library[64];
	char		 token[256];	/* NUL-padded to its end (api.c) */
	char		 fault[512];	/* why nothing may be screened nor served */
	int		 lockfd;	/* the database's lock, held for life */
	volatile int	 quit;
	volatile int	 reload;	/* SIGHUP: check the configuration */
	const char	*config_path;
	char	       **overrides;	/* -o section.key=value, in order */
	int		 noverrides;
	double		 started;
};
extern struct opscreend *env;
void	 env_wakeup(void);			/* the main loop polls again */

#endif
