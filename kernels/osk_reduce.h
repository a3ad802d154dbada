/*
 * osk_reduce.h: row reductions (accumulators of the reduction oracles).
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_reduce.h"
#endif

/* ---- row reductions ----------------------------------------------------------- */

/* Sweeps over a row; each folds elements into a struct osk_racc. */
enum osk_sweep {
	OSK_SW_SUM, OSK_SW_SUMSQDEV, OSK_SW_SUMEXP, OSK_SW_PROD, OSK_SW_MAX,
	OSK_SW_MIN, OSK_SW_SUMABS, OSK_SW_SUMPOW, OSK_SW_MAXABS, OSK_SW_MINABS,
	OSK_SW_NONZERO, OSK_SW_ALL, OSK_SW_ANY, OSK_SW_SUMSQ
};

struct osk_racc {
	double	s, c;		/* Neumaier sum and compensation; or value */
	int64_t	idx;		/* index of the max/min, -1 when empty */
};

OSK_HD struct osk_racc
osk_racc_init(int sw)
{
	struct osk_racc a;

	a.c = 0;
	a.idx = -1;
	switch (sw) {
	case OSK_SW_PROD: case OSK_SW_ALL: a.s = 1; break;
	case OSK_SW_MINABS: a.s = osk_inf(); break;
	default: a.s = 0; break;
	}
	return a;
}

/* Neumaier: s + x with the rounding error kept in c. */
OSK_HD void
osk_nsum(struct osk_racc *a, double x)
{
	double t = a->s + x;

	if (osk_fabs(a->s) >= osk_fabs(x))
		a->c += (a->s - t) + x;
	else
		a->c += (x - t) + a->s;
	a->s = t;
}

OSK_HD double
osk_nsum_value(const struct osk_racc *a)
{
	return osk_isfinite(a->s) ? a->s + a->c : a->s;
}

/* max/min with NaN winning and the first index on ties. */
OSK_HD int
osk_takes(int sw, double am, int64_t ai, double bm, int64_t bi)
{
	int an = osk_isnan(am), bn = osk_isnan(bm);

	if (bi < 0)
		return 0;
	if (ai < 0)
		return 1;
	if (an != bn)
		return bn;
	if (an || am == bm)
		return bi < ai;
	return sw == OSK_SW_MAX ? bm > am : bm < am;
}

OSK_HD void
osk_racc_add(int sw, struct osk_racc *a, double x, int64_t j, double shift,
    double pw)
{
	double ax = osk_fabs(x);

	switch (sw) {
	case OSK_SW_SUM: osk_nsum(a, x); break;
	case OSK_SW_SUMSQDEV: osk_nsum(a, (x - shift) * (x - shift)); break;
	case OSK_SW_SUMEXP: osk_nsum(a, exp(x - shift)); break;
	case OSK_SW_SUMSQ: osk_nsum(a, x * x); break;
	case OSK_SW_SUMABS: osk_nsum(a, ax); break;
	case OSK_SW_SUMPOW: osk_nsum(a, pow(ax, pw)); break;
	case OSK_SW_NONZERO: osk_nsum(a, x != 0 ? 1.0 : 0.0); break;
	case OSK_SW_PROD: a->s *= x; break;
	case OSK_SW_MAX: case OSK_SW_MIN:
		if (osk_takes(sw, a->s, a->idx, x, j)) {
			a->s = x;
			a->idx = j;
		}
		break;
	case OSK_SW_MAXABS:
		if (osk_isnan(ax) || ax > a->s)
			a->s = osk_isnan(a->s) ? a->s : ax;
		break;
	case OSK_SW_MINABS:
		if (osk_isnan(ax) || ax < a->s)
			a->s = osk_isnan(a->s) ? a->s : ax;
		break;
	case OSK_SW_ALL: a->s = a->s != 0 && x != 0; break;
	case OSK_SW_ANY: a->s = a->s != 0 || x != 0; break;
	}
}

OSK_HD void
osk_racc_merge(int sw, struct osk_racc *a, const struct osk_racc *b)
{
	switch (sw) {
	case OSK_SW_PROD: a->s *= b->s; break;
	case OSK_SW_MAX: case OSK_SW_MIN:
		if (osk_takes(sw, a->s, a->idx, b->s, b->idx)) {
			a->s = b->s;
			a->idx = b->idx;
		}
		break;
	case OSK_SW_MAXABS: case OSK_SW_MINABS:
		osk_racc_add(sw, a, b->s, 0, 0, 0);
		break;
	case OSK_SW_ALL: a->s = a->s != 0 && b->s != 0; break;
	case OSK_SW_ANY: a->s = a->s != 0 || b->s != 0; break;
	default:
		osk_nsum(a, b->s);
		a->c += b->c;
		break;
	}
}

