/*
 * Element-level code shared by the device and the host builds: dtype
 * conversions, counter-based generation, fp64 pointwise math, reduction and
 * comparison accumulators.  Written in the common subset of C99 and CUDA
 * C++ so that gcc compiles it for the host and nvcc for both sides; OSK_HD
 * marks every function __host__ __device__ under nvcc.
 *
 * Generation must give the same bytes on the host and on any GPU, so it uses
 * only integer arithmetic, +, -, *, / and sqrt (all correctly rounded in
 * IEEE double on both sides) and never a library transcendental; both builds
 * compile with floating-point contraction off (-ffp-contract=off,
 * -fmad=false) so that no fused multiply-add changes a rounding.
 */
#ifndef OSK_CORE_H
#define OSK_CORE_H

#include <math.h>
#include <stdint.h>

#include "osk.h"

#ifdef __CUDACC__
#define OSK_HD	static __host__ __device__ inline
#else
#define OSK_HD	static inline
#endif

#define OSK_2P(e)	ldexp(1.0, (e))

/* ---- bits ---------------------------------------------------------------- */

OSK_HD double
osk_dbits(uint64_t b)
{
	union { uint64_t u; double d; } x;

	x.u = b;
	return x.d;
}

OSK_HD uint64_t
osk_bitsd(double d)
{
	union { uint64_t u; double d; } x;

	x.d = d;
	return x.u;
}

OSK_HD float
osk_fbits(uint32_t b)
{
	union { uint32_t u; float f; } x;

	x.u = b;
	return x.f;
}

OSK_HD uint32_t
osk_bitsf(float f)
{
	union { uint32_t u; float f; } x;

	x.f = f;
	return x.u;
}

OSK_HD double
osk_nan(void)
{
	return osk_dbits(0x7ff8000000000000ULL);
}

OSK_HD double
osk_inf(void)
{
	return osk_dbits(0x7ff0000000000000ULL);
}

OSK_HD int
osk_isnan(double x)
{
	return (osk_bitsd(x) & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL;
}

OSK_HD int
osk_isinf(double x)
{
	return (osk_bitsd(x) & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL;
}

OSK_HD int
osk_isfinite(double x)
{
	return (osk_bitsd(x) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL;
}

OSK_HD double
osk_fabs(double x)
{
	return osk_dbits(osk_bitsd(x) & 0x7fffffffffffffffULL);
}

/* ---- dtypes -------------------------------------------------------------- */

OSK_HD int
osk_size(int dt)
{
	switch (dt) {
	case OSK_F64: case OSK_I64:
		return 8;
	case OSK_F32: case OSK_I32:
		return 4;
	case OSK_F16: case OSK_BF16: case OSK_I16:
		return 2;
	default:
		return 1;
	}
}

OSK_HD int
osk_isfloat(int dt)
{
	return dt == OSK_F64 || dt == OSK_F32 || dt == OSK_F16 ||
	    dt == OSK_BF16 || dt == OSK_F8E4M3 || dt == OSK_F8E5M2 ||
	    dt == OSK_F8E8M0;
}

/* Significand precision p and smallest subnormal (figures.py PRECISION). */
OSK_HD int
osk_prec(int dt)
{
	switch (dt) {
	case OSK_F64: return 53;
	case OSK_F32: return 24;
	case OSK_F16: return 11;
	case OSK_BF16: return 8;
	case OSK_F8E4M3: return 4;
	case OSK_F8E5M2: return 3;
	default: return 1;
	}
}

/* 2^e for a normal double exponent (-1022 <= e <= 1023), from its bits. */
#define OSK_P2N(e)	osk_dbits((uint64_t)(1023 + (e)) << 52)

OSK_HD double
osk_tiny(int dt)
{
	/* from bits, not ldexp: it is called once per compared element */
	switch (dt) {
	case OSK_F64: return osk_dbits(1);	/* 2^-1074 */
	case OSK_F32: return OSK_P2N(-149);
	case OSK_F16: return OSK_P2N(-24);
	case OSK_BF16: return OSK_P2N(-133);
	case OSK_F8E4M3: return OSK_P2N(-9);
	case OSK_F8E5M2: return OSK_P2N(-16);
	default: return OSK_P2N(-127);
	}
}

/* ---- small floating formats ------------------------------------------------ */

/* Decodes sign, biased exponent field e, mantissa m of a binary format. */
OSK_HD double
osk_decode_fmt(uint32_t b, int mbits, int ebits, int bias, int has_inf)
{
	uint32_t m = b & ((1u << mbits) - 1);
	uint32_t e = (b >> mbits) & ((1u << ebits) - 1);
	int neg = (b >> (mbits + ebits)) & 1;
	double v;

	if (e == (1u << ebits) - 1 && has_inf)
		v = m ? osk_nan() : osk_inf();
	else if (!has_inf && e == (1u << ebits) - 1 && m == (1u << mbits) - 1)
		v = osk_nan();	/* e4m3fn: S.1111.111 is the only NaN */
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - mbits);
	else
		v = ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
	return neg ? -v : v;
}

/*
 * Rounds a finite float to nearest even at mbits stored mantissa bits with
 * minimum normal exponent emin; the result is exact in double.
 */
OSK_HD double
osk_round_fmt(double x, int mbits, int emin)
{
	double q;
	int e;

	if (x == 0)
		return x;
	(void)frexp(osk_fabs(x), &e);
	e -= 1;
	if (e < emin)
		e = emin;
	q = OSK_2P(e - mbits);
	return rint(x / q) * q;
}

/* Encodes a value already representable in the format (no NaN, no inf). */
OSK_HD uint32_t
osk_encode_fmt(double v, int mbits, int ebits, int bias)
{
	uint32_t sign = osk_bitsd(v) >> 63, f, m;
	double a = osk_fabs(v);
	int e;

	sign <<= mbits + ebits;
	if (a == 0)
		return sign;
	(void)frexp(a, &e);
	e -= 1;
	if (e < 1 - bias) {
		m = (uint32_t)(a / OSK_2P(1 - bias - mbits));
		return sign | m;
	}
	f = (uint32_t)(e + bias);
	m = (uint32_t)(a / OSK_2P(e - mbits)) - (1u << mbits);
	return sign | (f << mbits) | m;
}

struct osk_fmt {
	int	mbits, ebits, bias, has_inf;
	double	maxfin;
	uint32_t inf, nan;
};

OSK_HD struct osk_fmt
osk_fmt_of(int dt)
{
	struct osk_fmt f;

	switch (dt) {
	case OSK_F16:
		f.mbits = 10; f.ebits = 5; f.bias = 15; f.has_inf = 1;
		f.maxfin = 65504.0; f.inf = 0x7c00; f.nan = 0x7e00;
		break;
	case OSK_BF16:
		f.mbits = 7; f.ebits = 8; f.bias = 127; f.has_inf = 1;
		f.maxfin = ldexp(255.0, 120); f.inf = 0x7f80; f.nan = 0x7fc0;
		break;
	case OSK_F8E5M2:
		f.mbits = 2; f.ebits = 5; f.bias = 15; f.has_inf = 1;
		f.maxfin = 57344.0; f.inf = 0x7c; f.nan = 0x7f;
		break;
	default:	/* OSK_F8E4M3: no infinity, overflow is NaN */
		f.mbits = 3; f.ebits = 4; f.bias = 7; f.has_inf = 0;
		f.maxfin = 448.0; f.inf = 0x7f; f.nan = 0x7f;
		break;
	}
	return f;
}

/* float -> e8m0fnu, as c10's fp8e8m0fnu_from_fp32_value (sign dropped). */
OSK_HD uint32_t
osk_to_e8m0(float x)
{
	uint32_t b = osk_bitsf(x), e = (b >> 23) & 0xff;
	uint32_t g = (b & 0x400000) != 0, r = (b & 0x200000) != 0;
	uint32_t s = (b & 0x1fffff) != 0, lsb = e > 0;

	if (e == 0xff)
		return e;
	if (g && (r || s || lsb))
		e++;
	return e;
}

/*
 * double -> bits of a 16- or 8-bit float, the way torch casts a float64
 * tensor: first to float32 (round to nearest), then to the format.
 */
OSK_HD uint32_t
osk_to_small(double d, int dt)
{
	float x = (float)d;
	double v;
	struct osk_fmt f;
	uint32_t sign;

	if (dt == OSK_F8E8M0)
		return osk_to_e8m0(x);
	f = osk_fmt_of(dt);
	sign = (osk_bitsf(x) >> 31) << (f.mbits + f.ebits);
	if (osk_isnan(x))
		return sign | f.nan;
	if (osk_isinf(x))
		return sign | f.inf;
	v = osk_round_fmt((double)x, f.mbits, 1 - f.bias);
	if (osk_fabs(v) > f.maxfin)
		return sign | f.inf;
	return osk_encode_fmt(v, f.mbits, f.ebits, f.bias);
}

OSK_HD double
osk_from_small(uint32_t b, int dt)
{
	struct osk_fmt f;

	if (dt == OSK_F8E8M0)
		return b == 0xff ? osk_nan() : OSK_2P((int)b - 127);
	if (dt == OSK_BF16)
		return (double)osk_fbits(b << 16);
	f = osk_fmt_of(dt);
	return osk_decode_fmt(b, f.mbits, f.ebits, f.bias, f.has_inf);
}

/* round_D(x): the nearest value of dtype dt, as torch's x.to(D).to(f64). */
OSK_HD double
osk_round_to(double x, int dt)
{
	switch (dt) {
	case OSK_F64:
		return x;
	case OSK_F32:
		return (double)(float)x;
	case OSK_F16: case OSK_BF16: case OSK_F8E4M3: case OSK_F8E5M2:
	case OSK_F8E8M0:
		return osk_from_small(osk_to_small(x, dt), dt);
	default:
		return x;
	}
}

/* ---- element access -------------------------------------------------------- */

OSK_HD int64_t
osk_numel(const struct osk_tensor *t)
{
	int64_t n = 1;
	int d;

	for (d = 0; d < t->ndim; d++)
		n *= t->shape[d];
	return n;
}

/* Offset in elements of logical element i. */
OSK_HD int64_t
osk_off(const struct osk_tensor *t, int64_t i)
{
	int64_t off = 0;
	int d;

	for (d = t->ndim - 1; d >= 0; d--) {
		off += (i % t->shape[d]) * t->stride[d];
		i /= t->shape[d];
	}
	return off;
}

OSK_HD int
osk_contiguous(const struct osk_tensor *t)
{
	int64_t s = 1;
	int d;

	for (d = t->ndim - 1; d >= 0; d--) {
		if (t->shape[d] != 1 && t->stride[d] != s)
			return 0;
		s *= t->shape[d];
	}
	return 1;
}

/* Raw bits of the element at offset off, zero-extended. */
OSK_HD uint64_t
osk_rawbits(const struct osk_tensor *t, int64_t off)
{
	switch (osk_size(t->dtype)) {
	case 8:
		return ((const uint64_t *)(uintptr_t)t->data)[off];
	case 4:
		return ((const uint32_t *)(uintptr_t)t->data)[off];
	case 2:
		return ((const uint16_t *)(uintptr_t)t->data)[off];
	default:
		return ((const uint8_t *)(uintptr_t)t->data)[off];
	}
}

/* The value of raw bits b of dtype dt, in double. */
OSK_HD double
osk_value(uint64_t b, int dt)
{
	switch (dt) {
	case OSK_F64: return osk_dbits(b);
	case OSK_F32: return (double)osk_fbits((uint32_t)b);
	case OSK_I64: return (double)(int64_t)b;
	case OSK_I32: return (double)(int32_t)(uint32_t)b;
	case OSK_I16: return (double)(int16_t)(uint16_t)b;
	case OSK_I8: return (double)(int8_t)(uint8_t)b;
	case OSK_U8: return (double)(uint8_t)b;
	case OSK_BOOL: return b != 0 ? 1.0 : 0.0;
	default: return osk_from_small((uint32_t)b, dt);
	}
}

OSK_HD int64_t
osk_ivalue(uint64_t b, int dt)
{
	switch (dt) {
	case OSK_I64: return (int64_t)b;
	case OSK_I32: return (int32_t)(uint32_t)b;
	case OSK_I16: return (int16_t)(uint16_t)b;
	case OSK_I8: return (int8_t)(uint8_t)b;
	case OSK_U8: return (uint8_t)b;
	case OSK_BOOL: return b != 0;
	default: {
		double v = osk_value(b, dt);

		if (!(osk_fabs(v) < 9.2e18))
			return 0;
		return (int64_t)v;
	}
	}
}

OSK_HD double
osk_load(const struct osk_tensor *t, int64_t off)
{
	return osk_value(osk_rawbits(t, off), t->dtype);
}

OSK_HD void
osk_putbits(const struct osk_tensor *t, int64_t off, uint64_t b)
{
	switch (osk_size(t->dtype)) {
	case 8:
		((uint64_t *)(uintptr_t)t->data)[off] = b;
		break;
	case 4:
		((uint32_t *)(uintptr_t)t->data)[off] = (uint32_t)b;
		break;
	case 2:
		((uint16_t *)(uintptr_t)t->data)[off] = (uint16_t)b;
		break;
	default:
		((uint8_t *)(uintptr_t)t->data)[off] = (uint8_t)b;
		break;
	}
}

/* Bits of integer v in integer dtype dt (two's complement wrap; bool: v != 0). */
OSK_HD uint64_t
osk_ibits(int64_t v, int dt)
{
	if (dt == OSK_BOOL)
		return v != 0;
	return (uint64_t)v;
}

/* Bits of double v in dtype dt, as torch's float64 -> dt cast. */
OSK_HD uint64_t
osk_dbits_to(double v, int dt)
{
	switch (dt) {
	case OSK_F64:
		return osk_bitsd(v);
	case OSK_F32:
		return osk_bitsf((float)v);
	case OSK_F16: case OSK_BF16: case OSK_F8E4M3: case OSK_F8E5M2:
	case OSK_F8E8M0:
		return osk_to_small(v, dt);
	case OSK_BOOL:
		return v != 0;
	default:
		if (!(osk_fabs(v) < 9.2e18))
			return 0;
		return osk_ibits((int64_t)v, dt);
	}
}

OSK_HD void
osk_store(const struct osk_tensor *t, int64_t off, double v)
{
	osk_putbits(t, off, osk_dbits_to(v, t->dtype));
}

/* ---- digest ---------------------------------------------------------------- */

OSK_HD uint64_t
osk_mix(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z;
}

/*
 * The digest of a tensor is the sum (mod 2^64) over logical elements i of
 * mix(mix(i + 1) ^ bits_i), xor mix(numel ^ dtype << 56): independent of
 * strides and of the order in which the terms are added.
 */
OSK_HD uint64_t
osk_digest_term(int64_t i, uint64_t bits)
{
	return osk_mix(osk_mix((uint64_t)i + 1) ^ bits);
}

OSK_HD uint64_t
osk_digest_final(uint64_t sum, int64_t numel, int dt)
{
	return sum ^ osk_mix((uint64_t)numel ^ ((uint64_t)dt << 56));
}

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

/* ---- fp64 pointwise math ------------------------------------------------------ */

OSK_HD int
osk_arity(int op)
{
	if (op == OSK_AXPBY)
		return 2;
	if (op >= OSK_WHERE)
		return 3;
	if (op >= OSK_ADD)
		return 2;
	return 1;
}

OSK_HD double
osk_clamp(double x, double lo, double hi, int flags)
{
	if (osk_isnan(x))
		return x;
	if ((flags & 1) && (osk_isnan(lo) || x < lo))
		x = lo;
	if ((flags & 2) && (osk_isnan(hi) || x > hi))
		x = hi;
	return x;
}

OSK_HD double
osk_unary(int op, double x, const double *p)
{
	switch (op) {
	case OSK_COPY: return x;
	case OSK_ABS: return osk_fabs(x);
	case OSK_NEG: return -x;
	case OSK_EXP: return exp(x);
	case OSK_EXP2: return exp2(x);
	case OSK_EXPM1: return expm1(x);
	case OSK_LOG: return log(x);
	case OSK_LOG2: return log2(x);
	case OSK_LOG10: return log10(x);
	case OSK_LOG1P: return log1p(x);
	case OSK_SQRT: return sqrt(x);
	case OSK_RSQRT: return 1.0 / sqrt(x);
	case OSK_SIN: return sin(x);
	case OSK_COS: return cos(x);
	case OSK_TAN: return tan(x);
	case OSK_TANH: return tanh(x);
	case OSK_SINH: return sinh(x);
	case OSK_COSH: return cosh(x);
	case OSK_ASIN: return asin(x);
	case OSK_ACOS: return acos(x);
	case OSK_ATAN: return atan(x);
	case OSK_ASINH: return asinh(x);
	case OSK_ACOSH: return acosh(x);
	case OSK_ATANH: return atanh(x);
	case OSK_ERF: return erf(x);
	case OSK_ERFC: return erfc(x);
	case OSK_SIGMOID: return 1.0 / (1.0 + exp(-x));
	case OSK_GELU: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
	case OSK_GELU_TANH:
		return 0.5 * x * (1.0 + tanh(0.79788456080286535588 *
		    (x + 0.044715 * x * x * x)));
	case OSK_SILU: return x / (1.0 + exp(-x));
	case OSK_MISH: return x * tanh(log1p(exp(x)));
	case OSK_RELU: return osk_isnan(x) || x > 0 ? x : 0.0;
	case OSK_RELU6: return osk_clamp(x, 0.0, 6.0, 3);
	case OSK_RECIPROCAL: return 1.0 / x;
	case OSK_SQUARE: return x * x;
	case OSK_SIGN: return (double)((0 < x) - (x < 0));
	case OSK_FLOOR: return floor(x);
	case OSK_CEIL: return ceil(x);
	case OSK_ROUND: return rint(x);
	case OSK_TRUNC: return trunc(x);
	case OSK_FRAC: return x - trunc(x);
	case OSK_ELU:	/* alpha, scale, input_scale */
		return x > 0 ? x * p[1] : expm1(x * p[2]) * p[0] * p[1];
	case OSK_LEAKY_RELU: return x > 0 ? x : x * p[0];
	case OSK_HARDTANH: return osk_clamp(x, p[0], p[1], 3);
	case OSK_HARDSIGMOID: return osk_clamp(x + 3.0, 0.0, 6.0, 3) / 6.0;
	case OSK_HARDSWISH: return x * osk_clamp(x + 3.0, 0.0, 6.0, 3) / 6.0;
	case OSK_SOFTPLUS:	/* beta, threshold */
		return x * p[0] > p[1] ? x : log1p(exp(x * p[0])) / p[0];
	case OSK_CELU: return x > 0 ? x : p[0] * expm1(x / p[0]);
	case OSK_SELU:
		return 1.0507009873554804934 * (x > 0 ? x :
		    1.6732632423543772848 * expm1(x));
	case OSK_LGAMMA: return lgamma(x);
	case OSK_CLAMP: return osk_clamp(x, p[0], p[1], (int)p[2]);
	case OSK_LOGICAL_NOT: return x == 0 ? 1.0 : 0.0;
	case OSK_ISNAN: return osk_isnan(x) ? 1.0 : 0.0;
	case OSK_ISINF: return osk_isinf(x) ? 1.0 : 0.0;
	case OSK_ISFINITE: return osk_isfinite(x) ? 1.0 : 0.0;
	case OSK_LOGSIGMOID:
		return (x < 0 ? x : 0.0) - log1p(exp(-osk_fabs(x)));
	default: return osk_nan();
	}
}

/* Floor division as torch's div_floor_floating. */
OSK_HD double
osk_div_floor(double a, double b)
{
	double mod, div, fl;

	if (b == 0)
		return a / b;
	mod = fmod(a, b);
	div = (a - mod) / b;
	if (mod != 0 && (b < 0) != (mod < 0))
		div -= 1.0;
	if (div == 0)
		return copysign(0.0, a / b);
	fl = floor(div);
	if (div - fl > 0.5)
		fl += 1.0;
	return fl;
}

OSK_HD double
osk_binary(int op, double a, double b, const double *p)
{
	double m;

	switch (op) {
	case OSK_ADD: return a + p[0] * b;
	case OSK_SUB: return a - p[0] * b;
	case OSK_RSUB: return b - p[0] * a;
	case OSK_MUL: return a * b;
	case OSK_DIV: return a / b;
	case OSK_DIV_TRUNC: return trunc(a / b);
	case OSK_DIV_FLOOR: case OSK_FLOOR_DIVIDE: return osk_div_floor(a, b);
	case OSK_POW: return pow(a, b);
	case OSK_MAXIMUM:
		return osk_isnan(a) || osk_isnan(b) ? osk_nan() : a > b ? a : b;
	case OSK_MINIMUM:
		return osk_isnan(a) || osk_isnan(b) ? osk_nan() : a < b ? a : b;
	case OSK_FMAX: return fmax(a, b);
	case OSK_FMIN: return fmin(a, b);
	case OSK_ATAN2: return atan2(a, b);
	case OSK_HYPOT: return hypot(a, b);
	case OSK_FMOD: return fmod(a, b);
	case OSK_REMAINDER:
		m = fmod(a, b);
		if (m != 0 && (b < 0) != (m < 0))
			m += b;
		return m;
	case OSK_COPYSIGN: return copysign(a, b);
	case OSK_XLOGY:
		if (osk_isnan(b))
			return b;
		return a == 0 ? 0.0 : a * log(b);
	case OSK_LOGADDEXP:
		if (osk_isinf(a) && a == b)
			return a;
		m = a > b ? a : b;
		return m + log1p(exp(-osk_fabs(a - b)));
	case OSK_LOGADDEXP2:
		if (osk_isinf(a) && a == b)
			return a;
		m = a > b ? a : b;
		return m + log1p(exp2(-osk_fabs(a - b))) /
		    0.69314718055994530942;
	case OSK_EQ: return a == b;
	case OSK_NE: return a != b;
	case OSK_LT: return a < b;
	case OSK_LE: return a <= b;
	case OSK_GT: return a > b;
	case OSK_GE: return a >= b;
	case OSK_LOGICAL_AND: return (a != 0) && (b != 0);
	case OSK_LOGICAL_OR: return (a != 0) || (b != 0);
	case OSK_LOGICAL_XOR: return (a != 0) != (b != 0);
	case OSK_AXPBY:	/* beta * a + alpha * b; beta 0 ignores a */
		return p[0] == 0 ? p[1] * b : p[0] * a + p[1] * b;
	default: return osk_nan();
	}
}

OSK_HD double
osk_ternary(int op, double a, double b, double c, const double *p)
{
	switch (op) {
	case OSK_WHERE: return a != 0 ? b : c;
	case OSK_ADDCMUL: return a + p[0] * b * c;
	case OSK_ADDCDIV: return a + p[0] * (b / c);
	case OSK_LERP:
		return osk_fabs(c) < 0.5 ? a + c * (b - a) :
		    b - (b - a) * (1.0 - c);
	case OSK_CLAMP_T: return osk_clamp(a, b, c, (int)p[2]);
	case OSK_MULADD: return a * b + c;
	default: return osk_nan();
	}
}

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

#endif /* OSK_CORE_H */
