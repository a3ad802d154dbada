/*
 * osk_dtype.h: bits, dtypes, the small floating formats, element access and the tensor digest.
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_dtype.h"
#endif

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

