/*
 * verdict.c: the verdict rule (DESIGN.md, "Verdict rules").  The candidate
 * and native outputs are each measured against the fp64 oracle by the
 * runner; here the candidate is allowed twice the native error, with a floor
 * of 2R (absolute) and 1 ULP, so a library is never blamed for being as
 * accurate as PyTorch and never excused for being worse than rounding.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"

/*
 * The severity a failure of this reason has whatever its figures say; the
 * measured ones (numeric_error, nonfinite_mismatch, nondeterministic, a
 * raise that faulted the device) start here as critical and are lowered by
 * what measured them.  A reason not listed is critical: fail closed.
 */
static enum severity
reason_severity(const char *reason)
{
	static const struct {
		const char	*reason;
		enum severity	 sev;
	} fixed[] = {
		{ "raises", SEVERITY_LOUD },
		{ "numeric_error", SEVERITY_CRITICAL },
		{ "nonfinite_mismatch", SEVERITY_CRITICAL },
		{ "mismatch", SEVERITY_CRITICAL },
		{ "shape_mismatch", SEVERITY_CRITICAL },
		{ "dtype_mismatch", SEVERITY_CRITICAL },
		{ "alias_mismatch", SEVERITY_CRITICAL },
		{ "wrong_distribution", SEVERITY_CRITICAL },
		{ "nondeterministic", SEVERITY_CRITICAL },
		{ "reads_outside_inputs", SEVERITY_CRITICAL },
		{ "writes_outside_inputs", SEVERITY_CRITICAL },
		{ "writes_outside_view", SEVERITY_CRITICAL },
	};
	size_t	 i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(reason, fixed[i].reason))
			return fixed[i].sev;
	return SEVERITY_CRITICAL;
}

static void	verdict_trace(const json_t *, struct case_verdict *);

static void
verdict_set(struct case_verdict *v, enum case_status st, const char *reason,
    double score, const char *fmt, ...)
{
	va_list	ap;

	v->status = st;
	snprintf(v->reason, sizeof(v->reason), "%s", reason);
	v->score = score;
	v->severity = st == CASE_FAIL ? reason_severity(reason) : SEVERITY_NONE;
	v->detail[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(v->detail, sizeof(v->detail), fmt, ap);
		va_end(ap);
	}
}

/* A number field; -1 when absent, null or not a number. */
static int
verdict_num(const json_t *o, const char *k, double *out)
{
	const json_t	*x = json_object_get(o, k);

	if (!json_is_number(x))
		return -1;
	*out = json_number_value(x);
	return 0;
}

static void
verdict_shape_str(const json_t *shape, char *buf, size_t len)
{
	const json_t	*d;
	size_t		 i, off = 0;
	int		 n;

	buf[0] = '\0';
	n = snprintf(buf, len, "[");
	off = n > 0 ? (size_t)n : 0;
	json_array_foreach(shape, i, d) {
		if (off >= len)
			break;
		n = snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
		    (long long)json_integer_value(d));
		off += n > 0 ? (size_t)n : 0;
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

static int
verdict_shape_ok(const json_t *shape)
{
	const json_t	*d;
	size_t		 i;

	if (!json_is_array(shape))
		return 0;
	json_array_foreach(shape, i, d)
		if (!json_is_integer(d) || json_integer_value(d) < 0)
			return 0;
	return 1;
}

static double
verdict_max(double a, double b)
{
	return a > b ? a : b;
}

/* The ratio err/allowed; an error where nothing is allowed is very bad. */
static double
verdict_ratio(double err, double allowed)
{
	if (allowed > 0)
		return err / allowed;
	return err > 0 ? VERDICT_SCORE_NOFLOOR : 0;
}

/*
 * A float error's severity from its ratios to the rule's bound (error /
 * allowed) on the measures that failed it: numerics within critical_ratio,
 * critical past it.  With both measures over their bound the smaller ratio
 * decides: a result truly far off is far off on both, while the absolute
 * floor 2R of a case of a few elements can sit far below the dtype's
 * rounding error (one 0-d output rounded within 0.05 ULP gives 2R = 0.1
 * ULP, so 2 ULP off reads as 20 times the bound there and 2 times on the
 * ULP measure).
 */
static enum severity
verdict_float_severity(int bad_a, double ra, int bad_u, double ru,
    double critical_ratio)
{
	double	 x;

	if (bad_a && bad_u)
		x = ra < ru ? ra : ru;
	else
		x = bad_a ? ra : ru;
	return x > critical_ratio ? SEVERITY_CRITICAL : SEVERITY_NUMERICS;
}

/*
 * The rule's bounds on one float OUT's errors: err_abs within max(2x
 * native's, 2R), err_ulp within max(2x native's, 1); where every finite
 * oracle value is 0 only err_abs is bounded (*allow_u is inf).  -1 when the
 * OUT lacks the figures.  A repro carries them (daemon/repro.c).
 */
int
verdict_float_bound(const json_t *out, double *allow_a, double *allow_u)
{
	double	ea_n, eu_n, r, omax;

	if (verdict_num(out, "err_abs_n", &ea_n) == -1 ||
	    verdict_num(out, "R", &r) == -1)
		return -1;
	*allow_a = verdict_max(2 * ea_n, 2 * r);
	if (verdict_num(out, "oracle_max", &omax) == -1 || !isfinite(omax) ||
	    omax <= 0) {
		*allow_u = INFINITY;
		return 0;
	}
	if (verdict_num(out, "err_ulp_n", &eu_n) == -1)
		return -1;
	*allow_u = verdict_max(2 * eu_n, 1);
	return 0;
}

static int
verdict_float(const json_t *out, size_t i, long long numel,
    double critical_ratio, struct case_verdict *v)
{
	double	ea_c, ea_n, eu_c, eu_n, r, omax, nf_c, nf_n = 0, nf_as = 0;
	double	allow_a, allow_u, ra, ru, nf_in = -1;
	int	bad_a, bad_u;

	if (numel == 0) {
		verdict_set(v, CASE_PASS, "ok", 0, NULL);
		return 0;
	}
	/*
	 * The oracle first: if it is all zeros or has no finite value, a
	 * comparison proves nothing and the inputs must be regenerated.
	 */
	if (json_object_get(out, "oracle_max") == NULL)
		return -1;
	/*
	 * NaN/inf where round_D(O) has none, or none where it has them, is a
	 * failure whatever the finite values say: an all-NaN or all-inf oracle
	 * (edge values through a matmul or a norm) still judges positions.
	 */
	if (verdict_num(out, "nonfinite_mismatch_c", &nf_c) == -1)
		return -1;
	verdict_num(out, "nonfinite_mismatch_n", &nf_n);
	/*
	 * Positions where the candidate returns exactly native's value are
	 * what PyTorch gives in D (an overflow the exact result does not have,
	 * a default that depends on D): a finding about PyTorch, not a fault.
	 */
	verdict_num(out, "nonfinite_as_native_c", &nf_as);
	if (nf_c - nf_as > 0) {
		/*
		 * Numerics when every such position is one where an input of
		 * the output's shape is NaN/inf (NaN handling, a sign of an
		 * inf); critical where the inputs are finite, or where the
		 * runner could not say (no input maps onto the output).
		 */
		verdict_num(out, "nonfinite_at_input_c", &nf_in);
		verdict_set(v, CASE_FAIL, "nonfinite_mismatch",
		    VERDICT_SCORE_NONFINITE + nf_c - nf_as,
		    "out%zu: %.0f positions where NaN/inf differ from the "
		    "oracle and from native (native: %.0f)%s", i, nf_c - nf_as,
		    nf_n, nf_in == nf_c - nf_as ? ", each where an input is "
		    "NaN/inf" : "");
		if (nf_in == nf_c - nf_as)
			v->severity = SEVERITY_NUMERICS;
		return 0;
	}
	if (nf_c > 0)
		v->native_inaccurate = 1;
	/* null: no oracle value is finite */
	if (verdict_num(out, "oracle_max", &omax) == -1 || !isfinite(omax) ||
	    omax <= 0) {
		/*
		 * Every finite O is 0 (or none is finite): the ULP measure has
		 * no scale, but a candidate off the exact zeros by more than
		 * native is wrong. Only a candidate that matches proves
		 * nothing (a kernel returning zeros would too): degenerate.
		 */
		if (verdict_num(out, "err_abs_c", &ea_c) == 0 &&
		    verdict_num(out, "err_abs_n", &ea_n) == 0 &&
		    verdict_num(out, "R", &r) == 0 &&
		    ea_c > verdict_max(2 * ea_n, 2 * r)) {
			ra = verdict_ratio(ea_c, verdict_max(2 * ea_n, 2 * r));
			verdict_set(v, CASE_FAIL, "numeric_error", ra,
			    "out%zu: err_abs %.6g > max(2*err_abs_n=%.6g, "
			    "2R=%.6g) where every finite oracle value is 0", i,
			    ea_c, 2 * ea_n, 2 * r);
			v->severity = verdict_float_severity(1, ra, 0, 0,
			    critical_ratio);
			return 0;
		}
		verdict_set(v, CASE_DEGENERATE, "degenerate_oracle", 0,
		    "out%zu: oracle max|O| is 0 or not finite over %lld "
		    "elements", i, numel);
		return 0;
	}
	if (verdict_num(out, "err_abs_c", &ea_c) == -1 ||
	    verdict_num(out, "err_abs_n", &ea_n) == -1 ||
	    verdict_num(out, "err_ulp_c", &eu_c) == -1 ||
	    verdict_num(out, "err_ulp_n", &eu_n) == -1 ||
	    verdict_num(out, "R", &r) == -1)
		return -1;
	if (ea_n > 8 * r)
		v->native_inaccurate = 1;
	verdict_float_bound(out, &allow_a, &allow_u);
	bad_a = ea_c > allow_a;
	bad_u = eu_c > allow_u;
	ra = verdict_ratio(ea_c, allow_a);
	ru = verdict_ratio(eu_c, allow_u);
	if (!bad_a && !bad_u) {
		verdict_set(v, CASE_PASS, "ok", verdict_max(ra, ru),
		    "out%zu: err_abs %.6g <= %.6g, err_ulp %.4g <= %.4g", i,
		    ea_c, allow_a, eu_c, allow_u);
		return 0;
	}
	if (bad_u && (!bad_a || ru >= ra))
		verdict_set(v, CASE_FAIL, "numeric_error", verdict_max(ra, ru),
		    "out%zu: err_ulp %.4g > max(2*err_ulp_n=%.4g, 1)%s", i,
		    eu_c, 2 * eu_n, bad_a ? "; err_abs too" : "");
	else
		verdict_set(v, CASE_FAIL, "numeric_error", verdict_max(ra, ru),
		    "out%zu: err_abs %.6g > max(2*err_abs_n=%.6g, 2R=%.6g)%s",
		    i, ea_c, 2 * ea_n, 2 * r, bad_u ? "; err_ulp too" : "");
	v->severity = verdict_float_severity(bad_a, ra, bad_u, ru,
	    critical_ratio);
	return 0;
}

static int
verdict_exact(const json_t *out, size_t i, const char *kind, long long numel,
    struct case_verdict *v)
{
	const json_t	*first;
	double		 m_c, m_n = 0;
	char		 where[64] = "";

	if (verdict_num(out, "mismatch_c", &m_c) == -1) {
		if (numel == 0) {
			verdict_set(v, CASE_PASS, "ok", 0, NULL);
			return 0;
		}
		return -1;
	}
	verdict_num(out, "mismatch_n", &m_n);
	if (m_n > 0)
		v->native_inaccurate = 1;
	if (m_c <= 0) {
		verdict_set(v, CASE_PASS, "ok", 0, NULL);
		return 0;
	}
	first = json_object_get(out, "first_bad_c");
	if (json_is_array(first)) {
		memcpy(where, ", first at ", 11);
		verdict_shape_str(first, where + 11, sizeof(where) - 11);
	}
	verdict_set(v, CASE_FAIL, "mismatch",
	    1.0 + 1000.0 * m_c / (numel > 0 ? (double)numel : 1.0),
	    "out%zu (%s): %.0f of %lld positions differ from the oracle%s "
	    "(native: %.0f)", i, kind, m_c, numel, where, m_n);
	return 0;
}

/*
 * Random ops: the runner reports the p-value of its goodness-of-fit test on
 * the candidate's and native's samples.  The candidate fails when its sample
 * is rejected at VERDICT_STAT_ALPHA; when native's is rejected too the test itself is not
 * trusted on this case.
 */
static int
verdict_stat(const json_t *out, size_t i, struct case_verdict *v)
{
	const char	*test;
	double		 p_c, p_n = 1, alpha;

	/* the level is ours; a runner's "alpha" (older results) is not read */
	alpha = VERDICT_STAT_ALPHA;
	if (verdict_num(out, "p_c", &p_c) == -1)
		return -1;
	verdict_num(out, "p_n", &p_n);
	test = json_string_value(json_object_get(out, "test"));
	if (test == NULL)
		test = "test";
	if (p_c >= alpha) {
		verdict_set(v, CASE_PASS, "ok", 0, "out%zu: %s p=%.3g >= %.3g",
		    i, test, p_c, alpha);
		return 0;
	}
	if (p_n < alpha) {
		verdict_set(v, CASE_ERROR, "stat_unreliable", 0, "out%zu: %s "
		    "rejects native's samples too (p=%.3g, candidate %.3g)", i,
		    test, p_n, p_c);
		return 0;
	}
	verdict_set(v, CASE_FAIL, "wrong_distribution",
	    1.0 + (p_c > 0 ? -log10(p_c) : 400.0), "out%zu: %s rejects the "
	    "candidate's samples, p=%.3g < alpha=%.3g (native p=%.3g)", i, test,
	    p_c, alpha, p_n);
	return 0;
}

/*
 * Registration-table sanity (class bootstrap): the key must be an aten
 * operator and enabling the name must put a kernel under it; otherwise the
 * library's own table promises what only_enable() cannot deliver.
 */
static int
verdict_bootstrap(const json_t *out, struct case_verdict *v)
{
	const json_t	*res = json_object_get(out, "resolves");
	const json_t	*reg = json_object_get(out, "registers");
	const char	*why = json_string_value(json_object_get(out, "detail"));

	if (!json_is_boolean(res) || !json_is_boolean(reg))
		return -1;
	if (json_is_false(res))
		verdict_set(v, CASE_HAZARD, "unresolvable_key", 1, "the "
		    "registration table names a key that is not an aten operator "
		    "here%s%s", why ? ": " : "", why ? why : "");
	else if (json_is_false(reg))
		verdict_set(v, CASE_HAZARD, "not_registered", 1, "enabling the "
		    "name leaves the key's dispatch table unchanged");
	else
		verdict_set(v, CASE_PASS, "ok", 0, NULL);
	return 0;
}

static long long
verdict_numel(const json_t *shape)
{
	const json_t	*d;
	size_t		 i;
	long long	 n = 1;

	json_array_foreach(shape, i, d)
		n *= json_integer_value(d);
	return n;
}

/* Judges one OUT; -1 when it lacks what its kind requires. */
static int
verdict_out(const json_t *out, size_t i, int oracle_failed,
    double critical_ratio, struct case_verdict *v)
{
	const json_t	*cand, *nat, *cs, *ns, *jn;
	const char	*cd, *nd, *kind;
	char		 a[128], b[128];
	long long	 numel;

	memset(v, 0, sizeof(*v));
	kind = json_string_value(json_object_get(out, "kind"));
	if (kind != NULL && strcmp(kind, "bootstrap") == 0)
		return verdict_bootstrap(out, v);
	cand = json_object_get(out, "cand");
	nat = json_object_get(out, "native");
	/* one side returned fewer outputs than the other */
	if (json_is_null(cand) != json_is_null(nat)) {
		verdict_set(v, CASE_FAIL, "shape_mismatch", VERDICT_SCORE_SHAPE,
		    "out%zu: %s returned no such output", i,
		    json_is_null(cand) ? "candidate" : "native");
		return 0;
	}
	cs = json_object_get(cand, "shape");
	ns = json_object_get(nat, "shape");
	cd = json_string_value(json_object_get(cand, "dtype"));
	nd = json_string_value(json_object_get(nat, "dtype"));
	kind = json_string_value(json_object_get(out, "kind"));
	if (!verdict_shape_ok(cs) || !verdict_shape_ok(ns) || cd == NULL ||
	    nd == NULL || kind == NULL)
		return -1;
	if (!json_equal((json_t *)cs, (json_t *)ns)) {
		verdict_shape_str(cs, a, sizeof(a));
		verdict_shape_str(ns, b, sizeof(b));
		verdict_set(v, CASE_FAIL, "shape_mismatch", VERDICT_SCORE_SHAPE,
		    "out%zu: shape %s, native %s", i, a, b);
		return 0;
	}
	if (strcmp(cd, nd) != 0) {
		verdict_set(v, CASE_FAIL, "dtype_mismatch", VERDICT_SCORE_SHAPE,
		    "out%zu: dtype %s, native %s", i, cd, nd);
		return 0;
	}
	if (strcmp(kind, "shape_only") == 0) {
		verdict_set(v, CASE_PASS, "ok", 0, NULL);
		return 0;
	}
	if (oracle_failed && strcmp(kind, "stat") != 0) {
		verdict_set(v, CASE_ERROR, "harness_error", 0,
		    "out%zu: no oracle to compare with", i);
		return 0;
	}
	jn = json_object_get(out, "numel");
	numel = json_is_integer(jn) ? json_integer_value(jn) : verdict_numel(ns);
	/* a grouped routing's weights and expert ids (docs/protocol.md, OUT) */
	if (strcmp(kind, "float") == 0 || strcmp(kind, "routed_weights") == 0)
		return verdict_float(out, i, numel, critical_ratio, v);
	if (strcmp(kind, "stat") == 0)
		return verdict_stat(out, i, v);
	if (strcmp(kind, "exact") == 0 || strcmp(kind, "sort_values") == 0 ||
	    strcmp(kind, "sort_indices") == 0 || strcmp(kind, "routed_ids") == 0)
		return verdict_exact(out, i, kind, numel, v);
	return -1;
}

/* Which of a call's outputs is its evidence: fail, then error, then degenerate. */
static int
status_rank(enum case_status st)
{
	switch (st) {
	case CASE_FAIL:
		return 3;
	case CASE_ERROR:
		return 2;
	case CASE_DEGENERATE:
		return 1;
	default:
		return 0;
	}
}

/* The compile budget a compile-class case carries (ladder.budget_ms). */
double
verdict_case_budget(const json_t *case_spec)
{
	double	b;

	if (verdict_num(json_object_get(case_spec, "ladder"), "budget_ms",
	    &b) == 0 && b > 0)
		return b;
	return VERDICT_COMPILE_BUDGET_MS;
}

/* Whether a case of class cls times its speed (VERDICT_SPEED_CALLS). */
int
verdict_speed_class(const char *cls)
{
	static const char *const timed[] = { "same_shape", "reduction",
	    "contract", "accumulation" };
	size_t	i;

	for (i = 0; cls != NULL && i < sizeof(timed) / sizeof(timed[0]); i++)
		if (strcmp(cls, timed[i]) == 0)
			return 1;
	return 0;
}

/*
 * Adds the steady-call gate (VERDICT_STEADY_*) and the speed calls
 * (VERDICT_SPEED_CALLS, by runner.speed and the case's class) to a case
 * spec being sent.
 */
void
verdict_case_steady(json_t *case_spec, enum verdict_speed mode)
{
	int	timed = mode == VERDICT_SPEED_ALL || (mode ==
		    VERDICT_SPEED_ENGINE && verdict_speed_class(
		    json_string_value(json_object_get(case_spec, "class"))));

	json_object_set_new(case_spec, "steady", json_pack("{si sf si}", "calls",
	    VERDICT_STEADY_CALLS, "max_ms", VERDICT_STEADY_MAX_MS, "speed",
	    timed ? VERDICT_SPEED_CALLS : 0));
}

/* A correct compile-class case is still a hazard when its first call ran long. */
static void
verdict_compile(const json_t *case_spec, const json_t *result,
    struct case_verdict *v)
{
	const json_t	*ladder = json_object_get(case_spec, "ladder");
	const char	*param;
	double		 ms, budget, value = 0;

	if (!json_is_object(ladder) || verdict_num(json_object_get(result,
	    "times"), "cand_first_ms", &ms) == -1)
		return;
	budget = verdict_case_budget(case_spec);
	param = json_string_value(json_object_get(ladder, "param"));
	verdict_num(ladder, "value", &value);
	if (ms > budget)
		verdict_set(v, CASE_HAZARD, "compile_time", ms / budget,
		    "first call with %s=%g took %.1f s, over the %.0f s budget",
		    param ? param : "param", value, ms / 1e3, budget / 1e3);
}

/* Whether an input ARG (a tensor, a list of them) holds an element; *n counts tensors. */
static int
verdict_arg_has(const json_t *a, int *n)
{
	const char	*kind = json_string_value(json_object_get(a, "t"));
	const json_t	*t;
	size_t		 j;

	if (kind == NULL)
		return 0;
	if (strcmp(kind, "tensor") == 0) {
		(*n)++;
		return verdict_numel(json_object_get(a, "shape")) > 0;
	}
	if (strcmp(kind, "tensors") == 0)
		json_array_foreach(json_object_get(a, "v"), j, t)
			if (verdict_arg_has(t, n))
				return 1;
	return 0;
}

/*
 * Whether the case has tensor inputs and none of them holds an element
 * (out= buffers aside): its oracle is the op's answer for nothing (a sum
 * of 0, a mean of NaN), which no regeneration of the inputs can change.
 */
static int
verdict_inputs_empty(const json_t *case_spec)
{
	const json_t	*a;
	const char	*k;
	size_t		 i;
	int		 n = 0;

	json_array_foreach(json_object_get(case_spec, "args"), i, a)
		if (verdict_arg_has(a, &n))
			return 0;
	json_object_foreach((json_t *)json_object_get(case_spec, "kwargs"), k,
	    a)
		if (verdict_arg_has(a, &n))
			return 0;
	return n > 0;
}

static int
verdict_malformed(struct case_verdict *v, const char *why)
{
	verdict_set(v, CASE_ERROR, "harness_error", 0, "malformed result: %s",
	    why);
	return -1;
}

/*
 * Whether a is worse evidence than b: a failure over an error over a
 * degenerate oracle, then the more severe, then the larger score.
 */
static int
verdict_worse(const struct case_verdict *a, const struct case_verdict *b)
{
	if (status_rank(a->status) != status_rank(b->status))
		return status_rank(a->status) > status_rank(b->status);
	if (a->severity != b->severity)
		return a->severity > b->severity;
	return a->score > b->score;
}

/* The worst of a call's outputs; -1 when one lacks its figures. */
static int
verdict_outputs(const json_t *outs, int oracle_failed, double critical_ratio,
    struct case_verdict *v, int *ni)
{
	struct case_verdict	 ov;
	const json_t		*out;
	size_t			 i;

	verdict_set(v, CASE_PASS, "ok", 0, json_array_size(outs) == 0 ?
	    "no output to compare" : NULL);
	json_array_foreach(outs, i, out) {
		if (verdict_out(out, i, oracle_failed, critical_ratio, &ov) ==
		    -1)
			return -1;
		*ni |= ov.native_inaccurate;
		if (verdict_worse(&ov, v))
			*v = ov;
	}
	return 0;
}

/*
 * The runner calls the candidate again on the same inputs (the steady-state
 * calls) and reports the figures of the last call when its bits differ from
 * the first call's.  A call that fails where another passed is a kernel
 * whose result depends on the call (a race, a stale buffer, state left by
 * an earlier launch): broken, reason "nondeterministic", with the failing
 * call's evidence and its severity (a later call a few ULP off is
 * numerics, as the first would be).  Both failing: the worse one, noted as
 * differing.
 */
static int
verdict_repeat(const json_t *rep, int oracle_failed, double critical_ratio,
    struct case_verdict *v)
{
	struct case_verdict	 rv;
	const json_t		*outs = json_object_get(rep, "outputs");
	json_int_t		 call = json_integer_value(json_object_get(rep,
				    "call"));
	char			 was[sizeof(v->detail)];
	enum severity		 sev = v->severity;
	int			 ni = 0;

	if (!json_is_array(outs))
		return -1;
	if (verdict_outputs(outs, oracle_failed, critical_ratio, &rv, &ni) ==
	    -1)
		return -1;
	if (v->status == CASE_PASS && rv.status == CASE_FAIL) {
		verdict_set(v, CASE_FAIL, "nondeterministic", rv.score,
		    "call %lld on the same inputs: %s (call 1 passed)",
		    (long long)call, rv.detail);
		v->severity = rv.severity;
	} else if (v->status == CASE_FAIL && rv.status == CASE_PASS) {
		snprintf(was, sizeof(was), "%s", v->detail);
		verdict_set(v, CASE_FAIL, "nondeterministic", v->score,
		    "call 1: %s (call %lld on the same inputs passed)", was,
		    (long long)call);
		v->severity = sev;
	} else if (v->status == CASE_FAIL && rv.status == CASE_FAIL) {
		if (verdict_worse(&rv, v))
			*v = rv;
		snprintf(was, sizeof(was), "%s", v->detail);
		snprintf(v->detail, sizeof(v->detail), "%s (calls 1 and %lld "
		    "on the same inputs gave different outputs)", was,
		    (long long)call);
	}
	return 0;
}

/*
 * After calls that all gave the same bits, the runner calls the candidate on
 * copies of the inputs placed between guard regions holding the dtype's
 * lowest (then highest) finite value ("guard"). An output that changed
 * there, while an unguarded call still gave the first call's bits, and that
 * fails the rule against the oracle, depends on memory outside the inputs:
 * broken (reads_outside_inputs) whatever the first call gave, since in
 * another process that memory holds something else. An output that changed
 * but is still within the rule is no finding, as for the repeat rule: a
 * kernel that read the poison (the dtype's extreme value) would be far off,
 * while float atomics that sum in another order beside other memory change
 * only the last bits (on the H200, embedding_backward, scatter.reduce and
 * embedding_dense_backward moved by 0.5-1 ULP; screens of 2026-12-01 at
 * 2c2664f, commit c8146d5). A guard that was overwritten: broken (writes_outside_inputs).
 */
static int
verdict_guard(const json_t *g, int oracle_failed, double critical_ratio,
    struct case_verdict *v)
{
	struct case_verdict	 gv;
	const json_t		*outs = json_object_get(g, "outputs");
	const char		*side = json_string_value(json_object_get(g,
				    "poison"));
	char			 was[sizeof(v->detail)], then[sizeof(v->detail)];
	int			 ni = 0, reads, writes;

	snprintf(was, sizeof(was), "%s", v->status == CASE_FAIL ? v->detail :
	    "");
	side = side != NULL && strcmp(side, "high") == 0 ? "highest" :
	    "lowest";
	then[0] = '\0';
	if (json_is_array(outs) && json_array_size(outs) > 0) {
		if (verdict_outputs(outs, oracle_failed, critical_ratio, &gv,
		    &ni) == -1)
			return -1;
		if (gv.status == CASE_FAIL)
			snprintf(then, sizeof(then), " (then %s)", gv.detail);
	}
	/*
	 * The runner reports what it saw: "intact" (every guard still holds
	 * the poison), "changed" (the output's bits differ from the first
	 * call's) and "reproduced" (the same guarded call again gave the same
	 * changed bits and an unguarded call still the first call's).  A
	 * result without them (older runners) carries the flags themselves.
	 */
	if (json_is_boolean(json_object_get(g, "intact")))
		writes = json_is_false(json_object_get(g, "intact"));
	else
		writes = json_is_true(json_object_get(g, "writes"));
	if (json_is_boolean(json_object_get(g, "changed")))
		reads = json_is_true(json_object_get(g, "changed")) &&
		    json_is_true(json_object_get(g, "reproduced"));
	else
		reads = json_is_true(json_object_get(g, "reads"));
	if (reads && then[0] != '\0')
		verdict_set(v, CASE_FAIL, "reads_outside_inputs",
		    VERDICT_SCORE_SHAPE, "its output changed when the memory "
		    "next to its inputs held their dtype's %s value%s: it reads "
		    "outside its inputs%s%s", side, then, was[0] ?
		    "; unguarded: " : "", was);
	else if (writes)
		verdict_set(v, CASE_FAIL, "writes_outside_inputs",
		    VERDICT_SCORE_SHAPE, "it overwrote the memory next to its "
		    "inputs (their dtype's %s value)%s%s", side, was[0] ?
		    "; unguarded: " : "", was);
	return 0;
}

/*
 * views class: the elements of the written view's base outside the view
 * that each call changed ("outside_view_changed", docs/protocol.md).  The
 * view's own elements were judged as the output; a candidate that changed
 * any other byte of the base wrote outside the view: broken, whatever the
 * output.  Native doing so makes the case not applicable (aten resizing or
 * reallocating the buffer, say): nothing to hold the library to.
 */
static void
verdict_views(const json_t *ov, struct case_verdict *v)
{
	json_int_t	c, n, first;
	char		was[sizeof(v->detail)];

	c = json_integer_value(json_object_get(ov, "c"));
	n = json_integer_value(json_object_get(ov, "n"));
	if (n > 0) {
		verdict_set(v, CASE_NA, "not_applicable", 0, "native wrote %lld "
		    "elements of the base outside the view", (long long)n);
		return;
	}
	if (c <= 0)
		return;
	snprintf(was, sizeof(was), "%s", v->status == CASE_FAIL ? v->detail :
	    "");
	first = json_integer_value(json_object_get(ov, "first_c"));
	verdict_set(v, CASE_FAIL, "writes_outside_view", VERDICT_SCORE_SHAPE,
	    "wrote %lld element%s outside the view (first at storage offset "
	    "%lld)%s%s", (long long)c, c == 1 ? "" : "s", (long long)first,
	    was[0] ? "; in the view: " : "", was);
}

/*
 * One case's verdict; a failure's severity compares float errors with
 * critical_ratio times the rule's bound ([verdict] critical_ratio).
 */
int
verdict_case(const json_t *case_spec, const json_t *result,
    double critical_ratio, struct case_verdict *v)
{
	const json_t		*outs, *alias, *chk, *rep;
	const char		*st, *msg, *mut;
	int			 ni = 0, oracle_failed;

	memset(v, 0, sizeof(*v));
	if (!json_is_object(result))
		return verdict_malformed(v, "not an object");
	if ((st = json_string_value(json_object_get(result, "status"))) == NULL)
		return verdict_malformed(v, "no status");

	if (strcmp(st, "harness_error") == 0) {
		msg = json_string_value(json_object_get(result, "harness_error"));
		verdict_set(v, CASE_ERROR, "harness_error", 0, "%s",
		    msg ? msg : "runner failed");
		return 0;
	}
	if (strcmp(st, "cand_error") == 0) {
		msg = json_string_value(json_object_get(result, "cand_error"));
		/*
		 * Out of device memory says more about the runners sharing the
		 * GPU than about the library (a 2^31-element case needs 16 GiB):
		 * not judged, never broken.
		 */
		if (msg != NULL && (strncmp(msg, "OutOfMemoryError", 16) == 0 ||
		    strstr(msg, "CUDA out of memory") != NULL)) {
			verdict_set(v, CASE_ERROR, "out_of_memory", 0, "%s", msg);
			return 0;
		}
		verdict_set(v, CASE_FAIL, "raises", VERDICT_SCORE_SHAPE, "%s",
		    msg ? msg : "candidate raised");
		/* a raise that left the device unusable is a device fault */
		if (json_is_true(json_object_get(result, "fatal")))
			v->severity = SEVERITY_CRITICAL;
		return 0;
	}
	if (strcmp(st, "both_error") == 0) {
		msg = json_string_value(json_object_get(result, "native_error"));
		verdict_set(v, CASE_NA, "not_applicable", 0, "%s",
		    msg ? msg : "both raised");
		return 0;
	}
	if (strcmp(st, "native_error") == 0) {
		msg = json_string_value(json_object_get(result, "native_error"));
		verdict_set(v, CASE_NA, "native_raises", 0, "%s",
		    msg ? msg : "native raised");
		return 0;
	}
	if (strcmp(st, "skipped") == 0) {
		/*
		 * Not run: a 2^31-element case the device could not hold when
		 * it came (the runner's memory gate, "needs X GiB, Y GiB
		 * free"), or a case the device cannot run at all (skip_kind
		 * "device": a CUDA graph on the CPU).  Nothing was measured:
		 * inconclusive, never broken.
		 */
		msg = json_string_value(json_object_get(result, "skip_reason"));
		verdict_set(v, CASE_SKIPPED, json_is_string(json_object_get(
		    result, "skip_kind")) && strcmp(json_string_value(
		    json_object_get(result, "skip_kind")), "device") == 0 ?
		    "needs_device" : "insufficient_memory", 0, "%s",
		    msg ? msg : "the runner did not run it");
		return 0;
	}
	if (strcmp(st, "ok") != 0)
		return verdict_malformed(v, "unknown status");

	/*
	 * The runner reports a failed fp64 oracle with status ok and no
	 * figures: shapes and dtypes can still be judged, values cannot.
	 */
	oracle_failed = json_object_get(result, "oracle_error") != NULL;
	outs = json_object_get(result, "outputs");
	if (!json_is_array(outs))
		return verdict_malformed(v, "no outputs");
	/*
	 * An op that returns nothing (_assert_async, a check) passes when it
	 * did not raise where native did not; an in-place or out= op must
	 * still return what it wrote (below).
	 */
	if (verdict_outputs(outs, oracle_failed, critical_ratio, v, &ni) == -1)
		return verdict_malformed(v, "output lacks figures");
	v->native_inaccurate = ni;
	rep = json_object_get(result, "repeat");
	if (json_is_object(rep) && verdict_repeat(rep, oracle_failed,
	    critical_ratio, v) == -1)
		return verdict_malformed(v, "repeated call's output lacks figures");
	if (json_is_object(json_object_get(result, "guard")) &&
	    verdict_guard(json_object_get(result, "guard"), oracle_failed,
	    critical_ratio, v) == -1)
		return verdict_malformed(v, "guarded call's output lacks figures");
	if (v->status == CASE_ERROR && oracle_failed &&
	    (msg = json_string_value(json_object_get(result, "oracle_error"))))
		snprintf(v->detail, sizeof(v->detail), "oracle raised: %s", msg);

	/*
	 * kernels/ and torch's fp64 oracles disagree beyond fp64 rounding: no
	 * verdict rests on either (an oracle fault, never silently resolved).
	 */
	chk = json_object_get(result, "oracle_check");
	if (json_is_object(chk)) {
		char	why[sizeof(v->detail)];

		if (verdict_oracle_agree(chk, why, sizeof(why)) == 0) {
			verdict_set(v, CASE_ERROR, "oracle_fault", 0, "%s", why);
			return 0;
		}
	}

	/*
	 * A degenerate oracle of inputs without elements is the exact answer
	 * (the empty class: a sum over an empty dim), judged as it is.
	 */
	if (v->status == CASE_DEGENERATE && verdict_inputs_empty(case_spec))
		verdict_set(v, CASE_PASS, "ok", 0, "no input holds an element: "
		    "the candidate matches the oracle's %s", v->detail);

	/* in-place and out= ops must return the tensor they wrote, as aten */
	alias = json_object_get(result, "alias_c");
	mut = json_string_value(json_object_get(case_spec, "mutates"));
	if (mut == NULL && json_is_true(json_object_get(case_spec, "inplace")))
		mut = "self";
	if (mut != NULL && json_is_false(alias) && v->status != CASE_FAIL)
		verdict_set(v, CASE_FAIL, "alias_mismatch", VERDICT_SCORE_SHAPE,
		    "%s call returned a new tensor, not its %s argument",
		    strcmp(mut, "out") ? "in-place" : "out=", mut);
	if (json_is_object(json_object_get(result, "outside_view_changed")))
		verdict_views(json_object_get(result, "outside_view_changed"), v);
	if (v->status == CASE_PASS)
		verdict_compile(case_spec, result, v);
	if (v->status == CASE_PASS &&
	    json_is_object(json_object_get(result, "trace")))
		verdict_trace(json_object_get(result, "trace"), v);
	return 0;
}

/*
 * A trace case's dynamic=True compile over two shapes of one rank
 * (RESULT "trace", docs/protocol.md): more compiles than
 * VERDICT_TRACE_COMPILES and than native's over the same shapes is a
 * recompile hazard (an engine that compiles dynamically recompiles per
 * shape); a dynamic compile that raises where native's does not is a raise
 * (loud). What native also does is not the library's.
 */
static void
verdict_trace(const json_t *tr, struct case_verdict *v)
{
	const json_t	*dc = json_object_get(tr, "dynamic_compiles");
	const json_t	*nc = json_object_get(tr, "native_dynamic_compiles");
	json_int_t	 n, allowed = VERDICT_TRACE_COMPILES;

	if (json_is_string(dc)) {
		if (json_is_string(nc))
			return;
		verdict_set(v, CASE_FAIL, "raises", VERDICT_SCORE_SHAPE,
		    "torch.compile(dynamic=True): %s", json_string_value(dc));
		return;
	}
	if (!json_is_integer(dc))
		return;
	n = json_integer_value(dc);
	if (json_is_integer(nc) && json_integer_value(nc) > allowed)
		allowed = json_integer_value(nc);
	if (n > allowed)
		verdict_set(v, CASE_HAZARD, "recompiles", 0, "torch.compile("
		    "dynamic=True) compiled %lld times over two shapes of one "
		    "rank (allowed: %lld, native's or %d)", (long long)n,
		    (long long)allowed, VERDICT_TRACE_COMPILES);
}

/*
 * The runner's cross-check of the two fp64 oracles (kernels/ and torch's):
 * per output, "nonfinite" (positions where NaN/inf differ, -1 for another
 * shape), "max_rel" (max |a - b| / (|b| + max|b|) over positions finite in
 * both) and "max_abs".  1 they agree, 0 not (why gets the evidence).  A
 * check without "diffs" (older runners, or kernels/ failing: "error") is
 * read by its own "ok".
 */
int
verdict_oracle_agree(const json_t *chk, char *why, size_t len)
{
	const json_t	*diffs = json_object_get(chk, "diffs"), *d;
	const char	*msg;
	double		 rel, nf, ab;
	size_t		 i;

	if (!json_is_array(diffs)) {
		if (!json_is_false(json_object_get(chk, "ok")))
			return 1;
		msg = json_string_value(json_object_get(chk, "detail"));
		snprintf(why, len, "%s", msg ? msg :
		    "the two fp64 oracles disagree");
		return 0;
	}
	if ((msg = json_string_value(json_object_get(chk, "detail"))) != NULL) {
		/* another number of outputs: nothing to compare */
		snprintf(why, len, "%s", msg);
		return 0;
	}
	json_array_foreach(diffs, i, d) {
		if (verdict_num(d, "nonfinite", &nf) == -1 ||
		    verdict_num(d, "max_rel", &rel) == -1)
			rel = INFINITY, nf = -1;
		ab = INFINITY;
		verdict_num(d, "max_abs", &ab);
		if (nf == 0 && rel <= VERDICT_ORACLE_REL)
			continue;
		snprintf(why, len, "output %zu: kernels/ and torch fp64 oracles "
		    "differ by %.3g (%.0f nan/inf positions differ; relative "
		    "%.3g > 2^-40)", i, ab, nf, rel);
		return 0;
	}
	return 1;
}

const char *
case_status_name(enum case_status st)
{
	switch (st) {
	case CASE_PASS:
		return "pass";
	case CASE_FAIL:
		return "fail";
	case CASE_NA:
		return "na";
	case CASE_DEGENERATE:
		return "degenerate";
	case CASE_ERROR:
		return "error";
	case CASE_TIMEOUT:
		return "timeout";
	case CASE_CRASH:
		return "crash";
	case CASE_HAZARD:
		return "hazard";
	case CASE_SKIPPED:
		return "skipped";
	}
	return "error";
}

/*
 * A stored results.status back to its enum.  An unknown word is an error
 * (inconclusive, never verified): fail closed; "skipped" is a status of its
 * own, folded as inconclusive because nothing was measured.
 */
enum case_status
case_status_parse(const char *s)
{
	static const enum case_status all[] = { CASE_PASS, CASE_FAIL, CASE_NA,
	    CASE_DEGENERATE, CASE_ERROR, CASE_TIMEOUT, CASE_CRASH,
	    CASE_HAZARD, CASE_SKIPPED };
	size_t	 i;

	if (s == NULL)
		return CASE_ERROR;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, case_status_name(all[i])))
			return all[i];
	return CASE_ERROR;
}

static const char *const verdict_names[VERDICT_NVERDICTS] = {
	[VERDICT_VERIFIED] = "verified",
	[VERDICT_WITHHELD] = "withheld",
	[VERDICT_INCONCLUSIVE] = "inconclusive",
	[VERDICT_HAZARD] = "hazard",
	[VERDICT_BROKEN] = "broken",
};

const char *
verdict_name(enum verdict v)
{
	if ((unsigned)v >= VERDICT_NVERDICTS)
		return verdict_names[VERDICT_BROKEN];
	return verdict_names[v];
}

/* Higher is worse; the enum is declared in rank order. */
int
verdict_rank(enum verdict v)
{
	if ((unsigned)v >= VERDICT_NVERDICTS)
		return VERDICT_BROKEN;
	return (int)v;
}

/* The index of word s in names[0..n), -1 when absent (or s NULL). */
static int
vocab_index(const char *const *names, int n, const char *s)
{
	int	 i;

	for (i = 0; s != NULL && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* 0 and *v set, or -1 for a word outside the vocabulary. */
int
verdict_parse(const char *s, enum verdict *v)
{
	int	 i = vocab_index(verdict_names, VERDICT_NVERDICTS, s);

	if (i == -1)
		return -1;
	*v = (enum verdict)i;
	return 0;
}

/* [{"name", "rank"}, ...] in rank order: what the dashboard and tools read. */
json_t *
verdict_vocabulary(void)
{
	json_t	*a = json_array();
	int	 i;

	for (i = 0; i < VERDICT_NVERDICTS; i++)
		json_array_append_new(a, json_pack("{ss si}", "name",
		    verdict_names[i], "rank", verdict_rank((enum verdict)i)));
	return a;
}

void
verdict_fold_init(struct verdict_fold *f)
{
	memset(f, 0, sizeof(*f));
}

/*
 * The severity of a case verdict: a failure's own (one without, from an
 * older store, is critical: fail closed), critical for a crash or a hang,
 * none for anything that is not a failure.
 */
enum severity
verdict_severity(const struct case_verdict *v)
{
	switch (v->status) {
	case CASE_FAIL:
		return v->severity != SEVERITY_NONE ? v->severity :
		    SEVERITY_CRITICAL;
	case CASE_TIMEOUT:
	case CASE_CRASH:
		return SEVERITY_CRITICAL;
	default:
		return SEVERITY_NONE;
	}
}

static const char *const severity_names[VERDICT_NSEVERITIES] = {
	[SEVERITY_NONE] = "",
	[SEVERITY_NUMERICS] = "numerics",
	[SEVERITY_LOUD] = "loud",
	[SEVERITY_CRITICAL] = "critical",
};

/* "" for SEVERITY_NONE: what results.severity holds for a case that passed */
const char *
severity_name(enum severity s)
{
	if ((unsigned)s >= VERDICT_NSEVERITIES)
		return severity_names[SEVERITY_CRITICAL];
	return severity_names[s];
}

/* 0 and *s set, or -1 for a word outside the vocabulary ("" is none). */
int
severity_parse(const char *w, enum severity *s)
{
	int	 i = vocab_index(severity_names, VERDICT_NSEVERITIES, w);

	if (i == -1)
		return -1;
	*s = (enum severity)i;
	return 0;
}

/* [{"name", "rank"}, ...] of the failing severities, mildest first. */
json_t *
severity_vocabulary(void)
{
	json_t	*a = json_array();
	int	 i;

	for (i = SEVERITY_NUMERICS; i < VERDICT_NSEVERITIES; i++)
		json_array_append_new(a, json_pack("{ss si}", "name",
		    severity_names[i], "rank", i));
	return a;
}

void
verdict_fold_add(struct verdict_fold *f, long long case_id,
    const char *probe_class, const struct case_verdict *v)
{
	double		score = v->score;
	enum severity	sev = verdict_severity(v);
	int		tier = 0;

	f->n++;
	switch (v->status) {
	case CASE_PASS:
		f->pass++;
		break;
	case CASE_FAIL:
		f->fail++;
		tier = 3;
		break;
	case CASE_NA:
		f->na++;
		break;
	case CASE_DEGENERATE:
		f->degenerate++;
		tier = 1;
		break;
	case CASE_ERROR:
		f->error++;
		tier = 1;
		break;
	case CASE_TIMEOUT:
		f->timeout++;
		tier = 3;
		score = VERDICT_SCORE_HANG;
		break;
	case CASE_CRASH:
		f->crash++;
		tier = 3;
		score = VERDICT_SCORE_HANG;
		break;
	case CASE_HAZARD:
		f->hazard++;
		tier = 2;	/* below broken, above inconclusive */
		break;
	case CASE_SKIPPED:
		f->skipped++;
		tier = 1;	/* nothing measured: inconclusive */
		break;
	}
	if (v->native_inaccurate)
		f->native_inaccurate++;
	if (tier == 3)
		f->nsev[sev]++;
	/*
	 * A broken case outranks any inconclusive one, whatever its score;
	 * among broken ones the most severe, then the largest score.
	 */
	if (tier == 0 || tier < f->worst_tier)
		return;
	if (tier == f->worst_tier && (sev < f->worst_severity ||
	    (sev == f->worst_severity && score <= f->worst_score)))
		return;
	f->worst_tier = tier;
	f->worst_severity = sev;
	f->worst_score = score;
	f->worst_case = case_id;
	snprintf(f->worst_reason, sizeof(f->worst_reason), "%s",
	    v->reason[0] ? v->reason : case_status_name(v->status));
	snprintf(f->worst_class, sizeof(f->worst_class), "%s",
	    probe_class ? probe_class : "");
	snprintf(f->worst_detail, sizeof(f->worst_detail), "%s", v->detail);
}

/* One step of a compile ladder: parameter value and first-call time. */
void
verdict_fold_ladder(struct verdict_fold *f, long long case_id, double value,
    double first_ms, double budget_ms)
{
	if (f->nladder >= VERDICT_LADDER_MAX || !(value > 0) ||
	    !(first_ms >= 0))
		return;
	f->ladder_v[f->nladder] = value;
	f->ladder_ms[f->nladder] = first_ms;
	if (f->nladder == 0 || value > f->ladder_v[f->ladder_top]) {
		f->ladder_top = f->nladder;
		f->ladder_case = case_id;
	}
	f->nladder++;
	f->ladder_budget_ms = budget_ms;
}

/*
 * Fits first-call time as a power law ms = a * value^b through the steps
 * (least squares in log-log) and says whether it crosses budget_ms before
 * extrapolate times the largest step.  *at gets the predicted ms there.
 * 1 hazard, 0 not, -1 too few steps (two distinct values are needed).
 */
int
verdict_ladder_hazard(const double *v, const double *ms, int n,
    double budget_ms, double extrapolate, double *at)
{
	double	sx = 0, sy = 0, sxx = 0, sxy = 0, vmax = 0, vmin = 0, x, y;
	double	b, a, pred;
	int	i, m = 0;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0) || !(ms[i] > 0))
			continue;
		x = log(v[i]);
		y = log(ms[i]);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		if (m == 0 || v[i] > vmax)
			vmax = v[i];
		if (m == 0 || v[i] < vmin)
			vmin = v[i];
		m++;
	}
	if (m < 2 || vmax <= vmin)
		return -1;
	b = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	a = (sy - b * sx) / m;
	if (extrapolate < 1)
		extrapolate = 1;
	pred = exp(a + b * log(vmax * extrapolate));
	if (at != NULL)
		*at = pred;
	return pred > budget_ms;
}

/*
 * After the last case: a compile ladder whose fitted growth crosses its
 * budget within extrapolate times its largest step is a hazard too.
 */
void
verdict_fold_finish(struct verdict_fold *f, double extrapolate)
{
	struct case_verdict	v;
	double			at = 0;
	int			top = f->ladder_top;

	if (f->nladder < 2 || verdict_ladder_hazard(f->ladder_v, f->ladder_ms,
	    f->nladder, f->ladder_budget_ms, extrapolate, &at) != 1)
		return;
	memset(&v, 0, sizeof(v));
	v.status = CASE_HAZARD;
	snprintf(v.reason, sizeof(v.reason), "compile_growth");
	v.score = at / f->ladder_budget_ms;
	snprintf(v.detail, sizeof(v.detail), "first-call time grows to a "
	    "predicted %.1f s at %g (x%g the largest step, %g: %.1f s); budget "
	    "%.0f s", at / 1e3, f->ladder_v[top] * extrapolate, extrapolate,
	    f->ladder_v[top], f->ladder_ms[top] / 1e3,
	    f->ladder_budget_ms / 1e3);
	f->n--;		/* not a case of its own */
	verdict_fold_add(f, f->ladder_case, "compile", &v);
}

const char *
verdict_fold_result(const struct verdict_fold *f, char *reason, size_t len)
{
	const char	*res, *why;

	if (f->fail + f->timeout + f->crash > 0) {
		res = verdict_name(VERDICT_BROKEN);
		why = f->worst_reason;
	} else if (f->hazard > 0) {
		res = verdict_name(VERDICT_HAZARD);
		why = f->worst_reason;
	} else if (f->error + f->skipped > 0 ||
	    (f->degenerate > 0 && f->pass == 0)) {
		/*
		 * A case whose oracle stayed degenerate through every
		 * regeneration (the exact answer is 0 or NaN: var of one
		 * element, trace of an empty matrix, edge values through a
		 * convolution) judged nothing; the other cases decide, and
		 * with none passed the key x dtype is inconclusive.
		 */
		res = verdict_name(VERDICT_INCONCLUSIVE);
		why = f->worst_reason;
	} else if (f->pass > 0) {
		res = verdict_name(VERDICT_VERIFIED);
		why = "ok";
	} else {
		res = NULL;
		why = "not_applicable";
	}
	if (reason != NULL && len > 0)
		snprintf(reason, len, "%s", why);
	return res;
}
