/*
 * The verdict rule: one RESULT (docs/protocol.md) judged against its CASE,
 * then the cases of one (key, dtype) folded into verified / broken /
 * inconclusive.  The runner reports figures; only this file decides.
 */
#ifndef OPSCREEN_VERDICT_H
#define OPSCREEN_VERDICT_H

#include <stddef.h>
#include <jansson.h>

enum case_status {
	CASE_PASS,
	CASE_FAIL,
	CASE_NA,
	CASE_DEGENERATE,
	CASE_ERROR,
	CASE_TIMEOUT,
	CASE_CRASH,
	CASE_HAZARD,		/* compile time over budget; bootstrap finding */
	CASE_SKIPPED		/* not run (a budget, fail-fast, a hung sibling) */
};

/*
 * The one verdict vocabulary, in rank order (worse is higher): a key x dtype
 * is verified, inconclusive, hazard or broken (verdict_fold_result); a name
 * is withheld from the allow-list when a key of it is inconclusive or was
 * never judged.  A name's state is the worst of its keys'.  Served as
 * "verdict_vocabulary" in the /allowlist and /denylist JSON
 * (docs/protocol.md); tools/report_full.py and web/app.js read it.
 */
enum verdict {
	VERDICT_VERIFIED,
	VERDICT_WITHHELD,
	VERDICT_INCONCLUSIVE,
	VERDICT_HAZARD,
	VERDICT_BROKEN
};
#define VERDICT_NVERDICTS	5

/*
 * Decisions taken here on the runner's raw facts (docs/protocol.md):
 * random ops fail when the candidate's p-value is below VERDICT_STAT_ALPHA
 * (the false-alarm rate per case of a correct library); the two fp64 oracles
 * agree when no NaN/inf position differs and every |a - b| is within
 * VERDICT_ORACLE_REL * (|b| + max|b|): 2^-40 leaves room for another
 * summation order and libm, 2^17 times below a float32 ULP.
 */
#define VERDICT_STAT_ALPHA	1e-4
#define VERDICT_ORACLE_REL	0x1p-40

/* compile class: the budget when the case does not carry one */
#define VERDICT_COMPILE_BUDGET_MS	60000.0
#define VERDICT_LADDER_MAX		16

/*
 * The candidate's steady-state calls after its first (their timing, the
 * repeat rule, the guard), sent with every case as "steady" (calls, max_ms;
 * docs/protocol.md): the runner ends them after one call when the first
 * call and that one each took max_ms or more (the op itself is slow, and
 * the case must end inside its deadline).  The gate acts inside the runner,
 * between calls, so the daemon sends it instead of judging it afterwards.
 */
#define VERDICT_STEADY_CALLS	3
#define VERDICT_STEADY_MAX_MS	500.0

/*
 * The steady-state speed of native and the candidate (lists' faster=),
 * timed after the steady calls, sent in "steady" as "speed": the timed
 * calls per side (after one untimed), VERDICT_SPEED_CALLS or 0, by
 * runner.speed: every case (all, the default), the cases of the classes
 * that call the op as an engine does (engine: same_shape, reduction,
 * contract, accumulation; verdict_speed_class), or none (off).  On the
 * H200 (a warm screen of 60 keys, 2026-12-03) the engine classes' timings
 * cost 2.6% of the runner time.
 */
#define VERDICT_SPEED_CALLS	5

/*
 * A trace case's documented compile count: one dynamic=True compile of
 * the op serves two shapes of the same rank whose sizes are all 2 or more
 * (sizes 0 and 1 are specialised by torch.compile, so the probes avoid
 * them); more, beyond native's own count, is a recompile hazard.
 */
#define VERDICT_TRACE_COMPILES	1
enum verdict_speed { VERDICT_SPEED_ALL, VERDICT_SPEED_ENGINE, VERDICT_SPEED_OFF };
int		 verdict_speed_class(const char *cls);

/*
 * How wrong a failing case is (docs/design.md, "Severity"), in rank order:
 * critical (silently wrong: a wrong shape, dtype or alias, exact outputs
 * that differ, a float error past VERDICT_CRITICAL_RATIO times the rule's
 * bound, NaN/inf where the inputs are finite, memory outside the inputs or
 * a view touched, a wrong distribution, a crash, a device fault, a hang),
 * loud (raises where native succeeds) and numerics (a float error above
 * the bound and within the ratio; NaN/inf that differ only where an input
 * is non-finite).  The fold's evidence is its most severe failing case;
 * fail-fast cuts only at a critical one; policy=tolerant lists allow names
 * whose failures are all numerics.
 */
enum severity {
	SEVERITY_NONE,		/* not a failure */
	SEVERITY_NUMERICS,
	SEVERITY_LOUD,
	SEVERITY_CRITICAL
};
#define VERDICT_NSEVERITIES	4
/* [verdict] critical_ratio's default: float error over the bound, x */
#define VERDICT_CRITICAL_RATIO	16.0

/* scores for picking a broken op's evidence */
#define VERDICT_SCORE_SHAPE	1e9	/* shape/dtype mismatch, raises */
#define VERDICT_SCORE_NONFINITE	1e8
#define VERDICT_SCORE_NOFLOOR	1e6	/* error where the allowance is 0 */
#define VERDICT_SCORE_HANG	1e12	/* timeout, crash */

struct case_verdict {
	enum case_status status;
	/*
	 * "ok" "numeric_error" "shape_mismatch" "dtype_mismatch"
	 * "nonfinite_mismatch" "mismatch" "alias_mismatch" "raises"
	 * "writes_outside_view" "not_applicable" "native_raises"
	 * "degenerate_oracle" "harness_error" "timeout" "crash"
	 */
	char		 reason[48];
	char		 detail[512];	/* human evidence */
	double		 score;		/* err/allowed, or a VERDICT_SCORE_ */
	int		 native_inaccurate;
	enum severity	 severity;	/* a failing case's; verdict_severity */
};

struct verdict_fold {
	int		 n, pass, fail, na, degenerate, error, timeout, crash;
	int		 skipped;
	double		 worst_score;
	long long	 worst_case;
	char		 worst_reason[48];
	char		 worst_class[24];
	char		 worst_detail[512];
	enum severity	 worst_severity;	/* of a broken fold's evidence */
	int		 nsev[VERDICT_NSEVERITIES];	/* failing cases per
						 * severity */
	int		 worst_tier;	/* 0 none, 1 inconclusive, 2 hazard, 3 broken */
	int		 native_inaccurate;	/* cases that recorded it */
	int		 hazard;
	/* compile ladder steps: parameter value, first-call ms */
	int		 nladder;
	double		 ladder_v[VERDICT_LADDER_MAX];
	double		 ladder_ms[VERDICT_LADDER_MAX];
	double		 ladder_budget_ms;
	int		 ladder_top;	/* index of the largest step */
	long long	 ladder_case;	/* its case: the hazard's evidence */
};

/* verdict.c */
int		 verdict_case(const json_t *, const json_t *, double,
		    struct case_verdict *);
enum severity	 verdict_severity(const struct case_verdict *);
const char	*severity_name(enum severity);
int		 severity_parse(const char *, enum severity *);
json_t		*severity_vocabulary(void);
const char	*case_status_name(enum case_status);
int		 verdict_oracle_agree(const json_t *, char *, size_t);
int		 verdict_float_bound(const json_t *, double *, double *);
enum case_status case_status_parse(const char *);
const char	*verdict_name(enum verdict);
int		 verdict_rank(enum verdict);
int		 verdict_parse(const char *, enum verdict *);
json_t		*verdict_vocabulary(void);
void		 verdict_fold_init(struct verdict_fold *);
void		 verdict_fold_add(struct verdict_fold *, long long,
		    const char *, const struct case_verdict *);
double		 verdict_case_budget(const json_t *);
void		 verdict_case_steady(json_t *, enum verdict_speed);
void		 verdict_fold_ladder(struct verdict_fold *, long long, double,
		    double, double);
int		 verdict_ladder_hazard(const double *, const double *, int,
		    double, double, double *);
void		 verdict_fold_finish(struct verdict_fold *, double);
const char	*verdict_fold_result(const struct verdict_fold *, char *,
		    size_t);

#endif
