/*
 * osk_gen.h: Philox4x32-10 and the counter-based input generation.
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_gen.h"
#endif

/* ---- Philox4x32-10 and generation ------------------------------------------ */

struct osk_u4 {
	uint32_t v[4];
};

OSK_HD struct osk_u4
osk_philox(uint64_t ctr_lo, uint32_t c2, uint32_t c3, uint64_t key)
{
	struct osk_u4 c;
	uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32), n0, n2;
	uint64_t p0, p1;
	int r;

	c.v[0] = (uint32_t)ctr_lo;
	c.v[1] = (uint32_t)(ctr_lo >> 32);
	c.v[2] = c2;
	c.v[3] = c3;
	for (r = 0; r < 10; r++) {
		p0 = (uint64_t)0xd2511f53u * c.v[0];
		p1 = (uint64_t)0xcd9e8d57u * c.v[2];
		n0 = (uint32_t)(p1 >> 32) ^ c.v[1] ^ k0;
		n2 = (uint32_t)(p0 >> 32) ^ c.v[3] ^ k1;
		c.v[1] = (uint32_t)p1;
		c.v[3] = (uint32_t)p0;
		c.v[0] = n0;
		c.v[2] = n2;
		k0 += 0x9e3779b9u;
		k1 += 0xbb67ae85u;
	}
	return c;
}

/* Uniform in [0, 1) with 53 random bits. */
OSK_HD double
osk_u01(uint32_t a, uint32_t b)
{
	uint64_t m = ((uint64_t)(a >> 5) << 26) | (b >> 6);

	return (double)m * OSK_2P(-53);
}

/*
 * Natural logarithm of s in (0, 1] with +, -, *, / only, so that host and
 * device agree bit for bit: s = m 2^e with m in [sqrt(1/2), sqrt(2)),
 * ln m = 2 atanh(f), f = (m - 1)/(m + 1), |f| < 0.172, 12 odd terms.
 */
OSK_HD double
osk_ln(double s)
{
	double m, f, f2, t;
	int e, k;

	m = frexp(s, &e);
	if (m < 0.70710678118654752) {
		m *= 2;
		e -= 1;
	}
	f = (m - 1) / (m + 1);
	f2 = f * f;
	t = 1.0 / 25.0;
	for (k = 11; k >= 0; k--)
		t = 1.0 / (double)(2 * k + 1) + f2 * t;
	return (double)e * 0.69314718055994531 + 2 * f * t;
}

#define OSK_TAG_NORMAL	1u
#define OSK_TAG_UNIF	2u
#define OSK_TAG_INT	3u
#define OSK_TAG_EDGE	4u
#define OSK_TAG_BITS	5u

/* Standard normal by Marsaglia's polar method; attempts draw fresh counters. */
OSK_HD double
osk_gen_normal(int64_t i, uint64_t key)
{
	struct osk_u4 r;
	double u, v, s;
	uint32_t k;

	for (k = 0; k < 64; k++) {
		r = osk_philox((uint64_t)i, k, OSK_TAG_NORMAL, key);
		u = 2 * osk_u01(r.v[0], r.v[1]) - 1;
		v = 2 * osk_u01(r.v[2], r.v[3]) - 1;
		s = u * u + v * v;
		if (s > 0 && s < 1)
			return u * sqrt(-2 * osk_ln(s) / s);
	}
	return 0;
}

/* Edge value number k (0..12) of float dtype dt. */
OSK_HD double
osk_edge_float(int dt, uint32_t k)
{
	double sub = osk_tiny(dt), nrm, big;

	switch (dt) {
	case OSK_F64:
		nrm = OSK_2P(-1022);
		big = osk_dbits(0x7fefffffffffffffULL);
		break;
	case OSK_F32:
		nrm = OSK_2P(-126);
		big = (double)osk_fbits(0x7f7fffffu);
		break;
	case OSK_F16:
		nrm = OSK_2P(-14);
		big = 65504.0;
		break;
	case OSK_BF16:
		nrm = OSK_2P(-126);
		big = ldexp(255.0, 120);
		break;
	case OSK_F8E4M3:
		nrm = OSK_2P(-6);
		big = 448.0;
		break;
	case OSK_F8E5M2:
		nrm = OSK_2P(-14);
		big = 57344.0;
		break;
	default:	/* e8m0fnu: powers of two only */
		sub = OSK_2P(-127);
		nrm = OSK_2P(-126);
		big = OSK_2P(127);
		break;
	}
	switch (k % 13) {
	case 0: return 0.0;
	case 1: return -0.0;
	case 2: return osk_inf();
	case 3: return -osk_inf();
	case 4: return osk_nan();
	case 5: return sub;
	case 6: return nrm;
	case 7: return big;
	case 8: return -sub;
	case 9: return -nrm;
	case 10: return -big;
	case 11: return 1.0;
	default: return -1.0;
	}
}

OSK_HD int64_t
osk_edge_int(int dt, uint32_t k)
{
	int64_t lo, hi;

	switch (dt) {
	case OSK_I64:
		lo = (int64_t)0x8000000000000000ULL;
		hi = 0x7fffffffffffffffLL;
		break;
	case OSK_I32: lo = -2147483647 - 1; hi = 2147483647; break;
	case OSK_I16: lo = -32768; hi = 32767; break;
	case OSK_I8: lo = -128; hi = 127; break;
	case OSK_U8: lo = 0; hi = 255; break;
	default: lo = 0; hi = 1; break;
	}
	switch (k % 5) {
	case 0: return 0;
	case 1: return 1;
	case 2: return dt == OSK_BOOL ? 0 : -1;
	case 3: return lo;
	default: return hi;
	}
}

OSK_HD uint64_t
osk_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* The stream key of an argument: seed * 1000 + index, as inputs.py seeds it. */
OSK_HD uint64_t
osk_gen_key(uint64_t seed, uint64_t index)
{
	return seed * 1000 + index;
}

/* Bits of generated element i of a tensor of dtype dt. */
OSK_HD uint64_t
osk_gen_bits(int64_t i, int dt, const struct osk_genspec *g, uint64_t key)
{
	struct osk_u4 r;
	double v = 0, lo = g->low, hi = g->high;
	int64_t iv;
	uint64_t span;

	if (g->edge_rate > 0) {
		r = osk_philox((uint64_t)i, 0, OSK_TAG_EDGE, key);
		if (osk_u01(r.v[0], r.v[1]) < g->edge_rate) {
			if (osk_isfloat(dt))
				return osk_dbits_to(osk_edge_float(dt,
				    r.v[2] % 13), dt);
			return osk_ibits(osk_edge_int(dt, r.v[2] % 5), dt);
		}
	}
	switch (g->domain) {
	case OSK_DOM_NORMAL:
		v = osk_gen_normal(i, key);
		break;
	case OSK_DOM_NONZERO:
		v = osk_gen_normal(i, key);
		if (osk_fabs(v) < 0.25)
			v = v < 0 ? -(0.25 + osk_fabs(v)) : 0.25 + osk_fabs(v);
		break;
	case OSK_DOM_UNIFORM: case OSK_DOM_POSITIVE:
		r = osk_philox((uint64_t)i, 0, OSK_TAG_UNIF, key);
		v = osk_u01(r.v[0], r.v[1]) * (hi - lo) + lo;
		break;
	case OSK_DOM_INT: case OSK_DOM_INDEX:
		if (g->domain == OSK_DOM_INDEX)
			lo = 0;
		r = osk_philox((uint64_t)i, 0, OSK_TAG_INT, key);
		span = (uint64_t)((int64_t)hi - (int64_t)lo);
		iv = (int64_t)lo + (int64_t)osk_mulhi64(((uint64_t)r.v[0] <<
		    32) | r.v[1], span);
		if (!osk_isfloat(dt))
			return osk_ibits(iv, dt);
		v = (double)iv;
		break;
	case OSK_DOM_BOOL:
		r = osk_philox((uint64_t)i, 0, OSK_TAG_INT, key);
		v = (double)(r.v[0] >> 31);
		break;
	case OSK_DOM_ARANGE:
		if (!osk_isfloat(dt))
			return osk_ibits(i, dt);
		v = (double)i;
		break;
	default:	/* OSK_DOM_BITS: every bit pattern, bool 0/1 */
		r = osk_philox((uint64_t)i, 0, OSK_TAG_BITS, key);
		if (dt == OSK_BOOL)
			return r.v[0] >> 31;
		return ((uint64_t)r.v[0] << 32 | r.v[1]) >>
		    (64 - 8 * osk_size(dt));
	}
	return osk_dbits_to(v, dt);
}

