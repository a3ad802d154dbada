/*
 * osk_plan.h: reduction plans shared by the host and device drivers.
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_plan.h"
#endif

/* ---- reduction plans shared by the host and device drivers ---------------- */

/* The first sweep of reduction op (norm order pw). */
OSK_HD int
osk_plan1(int op, double pw)
{
	switch (op) {
	case OSK_PROD: return OSK_SW_PROD;
	case OSK_AMAX: case OSK_ARGMAX: case OSK_LOGSUMEXP: case OSK_SOFTMAX:
	case OSK_LOG_SOFTMAX:
		return OSK_SW_MAX;
	case OSK_AMIN: case OSK_ARGMIN: return OSK_SW_MIN;
	case OSK_ALL: return OSK_SW_ALL;
	case OSK_ANY: return OSK_SW_ANY;
	case OSK_COUNT_NONZERO: return OSK_SW_NONZERO;
	case OSK_NORM:
		if (pw == 2) return OSK_SW_SUMSQ;
		if (pw == 1) return OSK_SW_SUMABS;
		if (pw == 0) return OSK_SW_NONZERO;
		if (osk_isinf(pw)) return pw > 0 ? OSK_SW_MAXABS : OSK_SW_MINABS;
		return OSK_SW_SUMPOW;
	default: return OSK_SW_SUM;	/* sum, mean, var, std */
	}
}

/* The second sweep, or -1. */
OSK_HD int
osk_plan2(int op)
{
	switch (op) {
	case OSK_VAR: case OSK_STD: return OSK_SW_SUMSQDEV;
	case OSK_LOGSUMEXP: case OSK_SOFTMAX: case OSK_LOG_SOFTMAX:
		return OSK_SW_SUMEXP;
	default: return -1;
	}
}

/* The shift the second sweep subtracts: the mean, or the finite max. */
OSK_HD double
osk_plan_shift(int op, const struct osk_racc *a, int64_t len)
{
	if (op == OSK_VAR || op == OSK_STD)
		return osk_nsum_value(a) / (double)len;
	return osk_isinf(a->s) ? 0.0 : a->s;
}

/* The value of a reduction from its sweeps; p[0] is correction or order. */
OSK_HD double
osk_plan_finish(int op, const struct osk_racc *a1, const struct osk_racc *a2,
    int64_t len, const double *p)
{
	double s = osk_nsum_value(a1), v;

	switch (op) {
	case OSK_SUM: case OSK_COUNT_NONZERO: return s;
	case OSK_MEAN: return s / (double)len;
	case OSK_PROD: case OSK_AMAX: case OSK_AMIN: case OSK_ALL: case OSK_ANY:
		return a1->s;
	case OSK_ARGMAX: case OSK_ARGMIN: return (double)a1->idx;
	case OSK_VAR: case OSK_STD:
		if (len == 0)	/* aten: the mean of nothing is NaN, so is this */
			return osk_nan();
		v = osk_nsum_value(a2) / ((double)len - p[0]);
		return op == OSK_STD ? sqrt(v) : v;
	case OSK_LOGSUMEXP:
		return log(osk_nsum_value(a2)) + osk_plan_shift(op, a1, len);
	case OSK_NORM:
		if (p[0] == 2) return sqrt(s);
		if (p[0] == 1 || p[0] == 0) return s;
		if (osk_isinf(p[0])) return a1->s;
		return pow(s, 1.0 / p[0]);
	default: return osk_nan();
	}
}

/* Softmax / log_softmax of x from the row's max m and sum of exp(x - shift). */
OSK_HD double
osk_softmax_at(int op, double x, double shift, double sum)
{
	if (op == OSK_SOFTMAX)
		return exp(x - shift) / sum;
	return x - shift - log(sum);
}

/* Cumulative ops: fold x (position j) into state a, return the output. */
OSK_HD double
osk_scan_step(int op, struct osk_racc *a, double x, int64_t j)
{
	switch (op) {
	case OSK_CUMSUM:
		osk_nsum(a, x);
		return osk_nsum_value(a);
	case OSK_CUMPROD:
		a->s = j == 0 ? x : a->s * x;
		return a->s;
	default:	/* cummax/cummin as torch: x >= m (<=) or x NaN takes */
		if (j == 0 || osk_isnan(x) || (!osk_isnan(a->s) &&
		    (op == OSK_CUMMAX ? x >= a->s : x <= a->s))) {
			a->s = x;
			a->idx = j;
		}
		return a->s;
	}
}

