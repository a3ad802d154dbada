/*
 * osk_compare.h: comparison against the oracle, and its fast float path.
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_compare.h"
#endif

/* ---- comparison --------------------------------------------------------------- */

struct osk_cacc {
	double	err_abs, err_ulp, wd, wx, wo;
	int64_t	worst, nonfinite, bad, first_bad;
	uint64_t digest;
};

OSK_HD void
osk_cacc_init(struct osk_cacc *a)
{
	a->err_abs = a->err_ulp = a->wx = a->wo = 0;
	a->wd = -1;
	a->worst = -1;
	a->nonfinite = a->bad = 0;
	a->first_bad = -1;
	a->digest = 0;
}

OSK_HD int
osk_nonfinite_differs(double x, double o)
{
	if (osk_isnan(x) != osk_isnan(o))
		return 1;
	if (osk_isinf(x) || osk_isinf(o))
		return !(osk_isinf(x) && osk_isinf(o) && (x > 0) == (o > 0));
	return 0;
}

/* ulp_D(max(|o|, floor)) as figures.py computes it. */
OSK_HD double
osk_ulp_at(double absO, double floor_, int p, double tiny)
{
	double mag = absO > floor_ ? absO : floor_, u;
	int e;

	if (!(mag > 0))
		return tiny;
	/*
	 * frexp's exponent from the bits when mag is a normal double, and the
	 * power of two from the bits when it is a normal one: the same values
	 * frexp/ldexp give, without two library calls per element.
	 */
	e = (int)((osk_bitsd(mag) >> 52) & 0x7ff);
	if (e != 0 && e != 0x7ff && e - 1022 - p >= -1022) {
		u = OSK_P2N(e - 1022 - p);
		return u > tiny ? u : tiny;
	}
	(void)frexp(mag, &e);
	u = ldexp(1.0, e - p);
	return u > tiny ? u : tiny;
}

OSK_HD void
osk_bad(struct osk_cacc *a, int64_t i)
{
	a->bad++;
	if (a->first_bad < 0 || i < a->first_bad)
		a->first_bad = i;
}

/* One float position: x against oracle o, ro = round_D(o), ulp = its ULP. */
OSK_HD void
osk_cacc_float(struct osk_cacc *a, int64_t i, double x, double o, double ro,
    double ulp, const struct osk_tol *tol)
{
	/* NaN/inf positions against round_D(O): overflow in D is correct */
	int nf = osk_nonfinite_differs(x, ro);
	double d = osk_isfinite(o) && osk_isfinite(x) ? osk_fabs(x - o) : 0.0;
	double r = d / ulp;

	a->nonfinite += nf;
	if (d > a->err_abs)
		a->err_abs = d;
	if (r > a->err_ulp)
		a->err_ulp = r;
	if (d > a->wd || (d == a->wd && i < a->worst)) {
		a->wd = d;
		a->worst = i;
		a->wx = x;
		a->wo = o;
	}
	if (nf || (tol->abs > 0 && d > tol->abs) || (tol->ulp > 0 &&
	    r > tol->ulp))
		osk_bad(a, i);
}

/*
 * Exact: x (bits of dtype xdt) against the oracle's value (bits ob of dtype
 * odt) cast to D = ddt, NaN equal to NaN (figures.py exact_figures).
 */
OSK_HD void
osk_cacc_exact(struct osk_cacc *a, int64_t i, uint64_t xb, int xdt,
    uint64_t ob, int odt, int ddt)
{
	double x, r;
	int64_t ov;
	int eq;

	if (osk_isfloat(ddt)) {
		x = osk_value(xb, xdt);
		r = osk_round_to(osk_isfloat(odt) ? osk_value(ob, odt) :
		    (double)osk_ivalue(ob, odt), ddt);
		eq = x == r || (osk_isnan(x) && osk_isnan(r));
	} else {
		ov = osk_isfloat(odt) ?
		    osk_ivalue(osk_dbits_to(osk_value(ob, odt), ddt), ddt) :
		    osk_ivalue(osk_ibits(osk_ivalue(ob, odt), ddt), ddt);
		eq = osk_isfloat(xdt) ? osk_value(xb, xdt) == (double)ov :
		    osk_ivalue(xb, xdt) == ov;
	}
	if (!eq)
		osk_bad(a, i);
}

OSK_HD void
osk_cacc_merge(struct osk_cacc *a, const struct osk_cacc *b)
{
	if (b->err_abs > a->err_abs)
		a->err_abs = b->err_abs;
	if (b->err_ulp > a->err_ulp)
		a->err_ulp = b->err_ulp;
	if (b->worst >= 0 && (b->wd > a->wd || (b->wd == a->wd &&
	    b->worst < a->worst))) {
		a->wd = b->wd;
		a->worst = b->worst;
		a->wx = b->wx;
		a->wo = b->wo;
	}
	a->nonfinite += b->nonfinite;
	a->bad += b->bad;
	if (b->first_bad >= 0 && (a->first_bad < 0 ||
	    b->first_bad < a->first_bad))
		a->first_bad = b->first_bad;
	a->digest += b->digest;
}

/* Block partial of a comparison. */
struct osk_cpart {
	double		omax, R;
	struct osk_cacc	c, n;
};

OSK_HD void
osk_cpart_init(struct osk_cpart *p)
{
	p->omax = p->R = 0;
	osk_cacc_init(&p->c);
	osk_cacc_init(&p->n);
}

OSK_HD void
osk_cpart_merge(struct osk_cpart *a, const struct osk_cpart *b)
{
	if (b->omax > a->omax)
		a->omax = b->omax;
	if (b->R > a->R)
		a->R = b->R;
	osk_cacc_merge(&a->c, &b->c);
	osk_cacc_merge(&a->n, &b->n);
}

OSK_HD void
osk_side_out(struct osk_side *s, const struct osk_cacc *a, int64_t numel,
    int dt, int exact)
{
	s->err_abs = a->err_abs;
	s->err_ulp = a->err_ulp;
	s->worst_x = a->wx;
	s->worst_o = a->wo;
	s->worst_index = a->worst;
	s->nonfinite = a->nonfinite;
	s->mismatch = exact ? a->bad : 0;
	s->over_tol = exact ? 0 : a->bad;
	s->first_bad = a->first_bad;
	s->digest = osk_digest_final(a->digest, numel, dt);
}

/* ---- fast float comparison ------------------------------------------------------ */

/*
 * The float comparison when C and N have the dtype D of the figures
 * (float64, float32, float16 or bfloat16) and O is float64: the figures of
 * osk_cacc_float, bit for bit, with D a parameter that the device build
 * passes as a compile-time constant (every switch on it folds away), from
 * bits and without a library call or a division per element.  The host
 * build runs the same functions with D at run time.
 */
OSK_HD int
osk_fast_dtype(int dt)
{
	return dt == OSK_F64 || dt == OSK_F32 || dt == OSK_F16 ||
	    dt == OSK_BF16;
}

/* log2 of osk_tiny(dt). */
OSK_HD int
osk_tiny_exp(int dt)
{
	switch (dt) {
	case OSK_F64: return -1074;
	case OSK_F32: return -149;
	case OSK_F16: return -24;
	case OSK_BF16: return -133;
	case OSK_F8E4M3: return -9;
	case OSK_F8E5M2: return -16;
	default: return -127;
	}
}

/*
 * A finite float16 (bits h) as a double, without a branch: the exponent and
 * mantissa fields moved to float32's places read as a float32 2^-112 times
 * the value (subnormals too); the product by 2^112 is exact.
 */
OSK_HD double
osk_f16_finite(uint32_t h)
{
	return (double)osk_fbits(osk_bitsf(osk_fbits((h & 0x7fffu) << 13) *
	    osk_fbits(0x77800000u)) | (h & 0x8000u) << 16);
}

/* float16 bits -> double, as osk_from_small (a NaN keeps its payload). */
OSK_HD double
osk_f16_value(uint32_t h)
{
	if ((h & 0x7fffu) >= 0x7c00u)	/* inf, NaN */
		return (double)osk_fbits((h & 0x8000u) << 16 | 0x7f800000u |
		    (h & 0x3ffu) << 13);
	return osk_f16_finite(h);
}

/* The value of raw bits b of fast dtype dt. */
OSK_HD double
osk_fast_value(uint64_t b, int dt)
{
	switch (dt) {
	case OSK_F64: return osk_dbits(b);
	case OSK_F32: return (double)osk_fbits((uint32_t)b);
	case OSK_BF16: return (double)osk_fbits((uint32_t)b << 16);
	default: return osk_f16_value((uint32_t)b);
	}
}

/* osk_fast_value of bits known to be finite. */
OSK_HD double
osk_fast_fvalue(uint64_t b, int dt)
{
	return dt == OSK_F16 ? osk_f16_finite((uint32_t)b) :
	    osk_fast_value(b, dt);
}

/*
 * round_D(o) of osk_round_to for a fast dtype: through float32 as torch
 * casts, then bfloat16 by rounding the low 16 bits of the float32 to
 * nearest even (subnormals and the carry into inf included), float16 by
 * rint at the format's quantum (an exact power-of-two scaling).
 */
OSK_HD double
osk_fast_round(double o, int dt)
{
	uint32_t u;
	double x, v;
	int e;

	switch (dt) {
	case OSK_F64:
		return o;
	case OSK_F32:
		return (double)(float)o;
	case OSK_BF16:
		u = osk_bitsf((float)o);
		if ((u & 0x7fffffffu) > 0x7f800000u)
			return o;	/* NaN */
		u = (u + 0x7fffu + ((u >> 16) & 1)) & 0xffff0000u;
		return (double)osk_fbits(u);
	default:	/* OSK_F16 */
		x = (double)(float)o;
		if (!osk_isfinite(x) || x == 0)
			return x;
		e = (int)((osk_bitsd(x) >> 52) & 0x7ff) - 1023;
		if (e < -14)
			e = -14;
		v = rint(x * OSK_P2N(10 - e)) * OSK_P2N(e - 10);
		return osk_fabs(v) > 65504.0 ? copysign(osk_inf(), x) : v;
	}
}

/*
 * k with ulp_D(mag) = 2^k, as osk_ulp_at gives it (mag >= 0 and finite):
 * 2^(e - p) with e frexp's exponent, at least tiny; a zero or subnormal mag
 * (biased exponent 0) gives k = -1022 - p, below every dtype's tiny.
 */
OSK_HD int
osk_fast_ulpexp(double mag, int dt)
{
	int k = (int)(osk_bitsd(mag) >> 52) - 1022 - osk_prec(dt);
	int t = osk_tiny_exp(dt);

	return k < t ? t : k;
}

/*
 * d / 2^k, correctly rounded: d times 2^-k, the same value, where 2^-k is a
 * double (every dtype but float64, whose tiny is 2^-1074).
 */
OSK_HD double
osk_fast_ulps(double d, int k, int dt)
{
	if (osk_tiny_exp(dt) >= -1023 || k >= -1023)
		return d * OSK_P2N(-k);
	return d / osk_dbits((uint64_t)1 << (k + 1074));
}

/* 0 finite, 1 NaN, 2 +inf, 3 -inf: osk_nonfinite_differs is "classes differ". */
OSK_HD int
osk_fclass(double v)
{
	uint64_t b = osk_bitsd(v), a = b & 0x7fffffffffffffffULL;

	if (a < 0x7ff0000000000000ULL)
		return 0;
	return a > 0x7ff0000000000000ULL ? 1 : 2 + (int)(b >> 63);
}

/*
 * Below 2^osk_fast_emax(dt) in magnitude a double rounds to a finite value
 * of dt (float64: every finite double).
 */
OSK_HD int
osk_fast_emax(int dt)
{
	switch (dt) {
	case OSK_F64: return 1024;
	case OSK_F16: return 15;
	default: return 127;	/* float32, bfloat16 */
	}
}

/* Per-comparison constants of the fast path. */
struct osk_fconst {
	double	floor_;		/* 2^-10 max|O| */
	double	ta, tu;		/* tolerances, inf when disabled */
	int	tol;		/* either enabled */
};

OSK_HD struct osk_fconst
osk_fconst_of(double omax, const struct osk_tol *tol)
{
	struct osk_fconst k;

	k.floor_ = omax * (1.0 / 1024.0);
	k.ta = tol->abs > 0 ? tol->abs : osk_inf();
	k.tu = tol->ulp > 0 ? tol->ulp : osk_inf();
	k.tol = tol->abs > 0 || tol->ulp > 0;
	return k;
}

/*
 * The first pass over one oracle value: max|O| over finite O and, for a
 * fast dtype dt (dt < 0: not asked), R = max |round_D(O) - O| over finite
 * O with round_D(O) finite.  The fast path takes R from here.
 */
OSK_HD void
osk_opass(double *omax, double *R, double o, int dt)
{
	double r;

	if (!osk_isfinite(o))
		return;
	if (osk_fabs(o) > *omax)
		*omax = osk_fabs(o);
	if (dt < 0)
		return;
	r = osk_fast_round(o, dt);
	if (osk_isfinite(r) && osk_fabs(r - o) > *R)
		*R = osk_fabs(r - o);
}

OSK_HD void
osk_bad_at(struct osk_cacc *a, int64_t i)
{
	a->bad++;
	if (a->first_bad < 0)
		a->first_bad = i;
}

/*
 * One side of one position.  Positions must come to one accumulator in
 * increasing order (a thread's own positions), so that the first position
 * of the worst error and of a bad position are the first seen.  The side
 * keeps the worst error in wd only (err_abs follows in osk_fast_done) and
 * its index; worst_x/worst_o are read back from that index afterwards
 * (osk_fill_worst).
 */
OSK_HD void
osk_fast_side(struct osk_cacc *a, int64_t i, double x, double o, int fo,
    int rclass, int k, int dt, const struct osk_fconst *c)
{
	int nf = osk_fclass(x) != rclass;
	double d = fo && osk_isfinite(x) ? osk_fabs(x - o) : 0.0;
	double r = osk_fast_ulps(d, k, dt);

	a->nonfinite += nf;
	if (d > a->wd) {
		a->wd = d;
		a->worst = i;
	}
	if (r > a->err_ulp)
		a->err_ulp = r;
	if (nf || d > c->ta || r > c->tu)
		osk_bad_at(a, i);
}

/*
 * Any position: raw bits cb, nb of C and N (dtype dt), oracle value ov.
 * Also folds R (which the first pass gives too: max is idempotent).
 */
OSK_HD void
osk_compare_fast_at(struct osk_cpart *p, int64_t i, uint64_t cb, uint64_t nb,
    double ov, int dt, const struct osk_fconst *c)
{
	int fo = osk_isfinite(ov), k, rc;
	double ao = fo ? osk_fabs(ov) : 0.0, r = osk_fast_round(ov, dt), dr;

	k = osk_fast_ulpexp(ao > c->floor_ ? ao : c->floor_, dt);
	dr = osk_fabs(r - ov);
	if (fo && osk_isfinite(r) && dr > p->R)
		p->R = dr;
	rc = osk_fclass(r);
	osk_fast_side(&p->c, i, osk_fast_value(cb, dt), ov, fo, rc, k, dt, c);
	osk_fast_side(&p->n, i, osk_fast_value(nb, dt), ov, fo, rc, k, dt, c);
}

/*
 * A plain position: |O| below 2^osk_fast_emax(D) (so O and round_D(O) are
 * finite), C and N finite.  Then osk_compare_fast_at reduces to this: no
 * NaN/inf mismatch, d = |x - O|, and R comes from the first pass.
 */
OSK_HD int
osk_fast_plain(uint64_t cb, uint64_t nb, double ov, int dt)
{
	return osk_fabs(ov) < OSK_P2N(osk_fast_emax(dt)) &&
	    osk_isfinite(osk_fast_value(cb, dt)) &&
	    osk_isfinite(osk_fast_value(nb, dt));
}

OSK_HD void
osk_plain_side(struct osk_cacc *a, int64_t i, double x, double o,
    double scale, const struct osk_fconst *c)
{
	double d = osk_fabs(x - o), r = d * scale;

	if (d > a->wd) {
		a->wd = d;
		a->worst = i;
	}
	if (r > a->err_ulp)
		a->err_ulp = r;
	if (c->tol && (d > c->ta || r > c->tu))
		osk_bad_at(a, i);
}

OSK_HD void
osk_compare_plain_at(struct osk_cpart *p, int64_t i, uint64_t cb,
    uint64_t nb, double ov, int dt, const struct osk_fconst *c)
{
	double ao = osk_fabs(ov), scale;
	int k = osk_fast_ulpexp(ao > c->floor_ ? ao : c->floor_, dt);

	if (osk_tiny_exp(dt) < -1023 && k < -1023) {
		/* float64 ulp below 2^-1023: no exact reciprocal */
		osk_compare_fast_at(p, i, cb, nb, ov, dt, c);
		return;
	}
	scale = OSK_P2N(-k);
	osk_plain_side(&p->c, i, osk_fast_fvalue(cb, dt), ov, scale, c);
	osk_plain_side(&p->n, i, osk_fast_fvalue(nb, dt), ov, scale, c);
}

/* After an accumulator's last fast position: err_abs is the worst error. */
OSK_HD void
osk_fast_done(struct osk_cpart *p)
{
	if (p->c.wd > p->c.err_abs)
		p->c.err_abs = p->c.wd;
	if (p->n.wd > p->n.err_abs)
		p->n.err_abs = p->n.wd;
}

/* The digest terms of position i of both sides (osk_digest_term). */
OSK_HD void
osk_digest_pair(struct osk_cpart *p, int64_t i, uint64_t cb, uint64_t nb)
{
	uint64_t m = osk_mix((uint64_t)i + 1);

	p->c.digest += osk_mix(m ^ cb);
	p->n.digest += osk_mix(m ^ nb);
}

/* Position (coordinates of logical i in idx's shape) with dim replaced by k. */
OSK_HD int64_t
osk_gather_off(const struct osk_tensor *inp, const struct osk_tensor *shape_of,
    int64_t i, int dim, int64_t k)
{
	int64_t off = 0, c;
	int d;

	for (d = shape_of->ndim - 1; d >= 0; d--) {
		c = i % shape_of->shape[d];
		i /= shape_of->shape[d];
		off += (d == dim ? k : c) * inp->stride[d];
	}
	return off;
}


