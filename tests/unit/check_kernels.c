/*
 * Unit tests for kernels/ on the host build: dtype casts as torch rounds
 * them, oracles against hand-computed values, generation bit for bit
 * against golden digests, comparison figures on crafted inputs with the
 * definitions of probes/opscreen_runner/figures.py.
 *
 * make -f Makefile -f kernels/kernels.mk build/check_kernels
 */
#include <math.h>
#include <string.h>
#include <check.h>

#include "osk_core.h"

#define EPS	1e-15

static struct osk_tensor
tensor(void *data, int dtype, int ndim, const int64_t *shape)
{
	struct osk_tensor t;
	int64_t s = 1;
	int d;

	memset(&t, 0, sizeof(t));
	t.data = (uint64_t)(uintptr_t)data;
	t.dtype = dtype;
	t.ndim = ndim;
	for (d = ndim - 1; d >= 0; d--) {
		t.shape[d] = shape[d];
		t.stride[d] = s;
		s *= shape[d];
	}
	return t;
}

static struct osk_tensor
vec(void *data, int dtype, int64_t n)
{
	return tensor(data, dtype, 1, &n);
}

static uint16_t
bf16(double v)
{
	return (uint16_t)osk_to_small(v, OSK_BF16);
}

/* ---- casts ---------------------------------------------------------------- */

START_TEST(test_round_to)
{
	/* ties to even, via float32 first as torch casts float64 */
	ck_assert_double_eq(osk_round_to(1 + ldexp(1, -8), OSK_BF16), 1.0);
	ck_assert_double_eq(osk_round_to(1 + 3 * ldexp(1, -8), OSK_BF16),
	    1 + ldexp(1, -6));
	ck_assert_double_eq(osk_round_to(1.0 / 3, OSK_BF16), 0.333984375);
	ck_assert_double_eq(osk_round_to(65519.0, OSK_F16), 65504.0);
	ck_assert(isinf(osk_round_to(65520.0, OSK_F16)));
	ck_assert_double_eq(osk_round_to(ldexp(1, -25), OSK_F16), 0.0);
	ck_assert_double_eq(osk_round_to(ldexp(3, -26), OSK_F16), ldexp(1, -24));
	ck_assert_double_eq(osk_round_to(464.0, OSK_F8E4M3), 448.0);
	ck_assert(isnan(osk_round_to(470.0, OSK_F8E4M3)));
	ck_assert(isnan(osk_round_to(INFINITY, OSK_F8E4M3)));
	ck_assert_double_eq(osk_round_to(ldexp(1, -10), OSK_F8E4M3), 0.0);
	ck_assert(isinf(osk_round_to(61440.0, OSK_F8E5M2)));
	ck_assert_double_eq(osk_round_to(5.0, OSK_F8E8M0), 4.0);
	ck_assert_double_eq(osk_round_to(6.0, OSK_F8E8M0), 8.0);
	ck_assert_double_eq(osk_round_to(0.75, OSK_F8E8M0), 1.0);
	ck_assert_uint_eq(osk_to_small(0.0, OSK_F8E8M0), 0);
	ck_assert_uint_eq(osk_to_small(-0.0, OSK_F16), 0x8000);
	ck_assert_uint_eq(osk_to_small(1.0, OSK_F8E4M3), 0x38);
	ck_assert_uint_eq(osk_to_small(-2.0, OSK_F8E5M2), 0xc0);
}
END_TEST

START_TEST(test_decode_all_16bit)
{
	uint32_t b;
	double v;

	/* every finite fp16 and bf16 pattern round-trips through the cast */
	for (b = 0; b < 65536; b++) {
		v = osk_from_small(b, OSK_F16);
		if (isfinite(v))
			ck_assert_uint_eq(osk_to_small(v, OSK_F16), b);
		v = osk_from_small(b, OSK_BF16);
		if (isfinite(v))
			ck_assert_uint_eq(osk_to_small(v, OSK_BF16), b);
	}
	for (b = 0; b < 256; b++) {
		v = osk_from_small(b, OSK_F8E4M3);
		if (!isnan(v))
			ck_assert_uint_eq(osk_to_small(v, OSK_F8E4M3), b);
		v = osk_from_small(b, OSK_F8E5M2);
		if (isfinite(v))
			ck_assert_uint_eq(osk_to_small(v, OSK_F8E5M2), b);
	}
}
END_TEST

/* ---- oracles ------------------------------------------------------------- */

START_TEST(test_pointwise)
{
	double x[4] = { 0, 1, -2, 0.5 }, y[4], out[4];
	double p[4] = { 1, 1, 0, 0 };
	struct osk_tensor in[2], o;
	int64_t shape[2] = { 2, 4 };
	double big[8];
	int i;

	in[0] = vec(x, OSK_F64, 4);
	o = vec(out, OSK_F64, 4);
	ck_assert_int_eq(osk_pointwise(OSK_EXP, 1, in, &o, p, NULL), 0);
	ck_assert_double_eq_tol(out[1], M_E, EPS);
	ck_assert_int_eq(osk_pointwise(OSK_GELU, 1, in, &o, p, NULL), 0);
	ck_assert_double_eq_tol(out[1], 0.8413447460685429, EPS);
	ck_assert_double_eq_tol(out[2], -0.0455002638963584, EPS);
	ck_assert_int_eq(osk_pointwise(OSK_SIGMOID, 1, in, &o, p, NULL), 0);
	ck_assert_double_eq(out[0], 0.5);
	for (i = 0; i < 4; i++)
		y[i] = 10 * (i + 1);
	in[1] = vec(y, OSK_F64, 4);
	p[0] = 0.5;	/* add alpha */
	ck_assert_int_eq(osk_pointwise(OSK_ADD, 2, in, &o, p, NULL), 0);
	ck_assert_double_eq(out[2], -2 + 15);
	/* broadcast: x as a [1, 4] row expanded over 2 rows (stride 0) */
	in[0] = tensor(x, OSK_F64, 2, shape);
	in[0].stride[0] = 0;
	in[1] = tensor(big, OSK_F64, 2, shape);
	for (i = 0; i < 8; i++)
		big[i] = i;
	o = tensor(big, OSK_F64, 2, shape);
	p[0] = 1;
	ck_assert_int_eq(osk_pointwise(OSK_MUL, 2, in, &o, p, NULL), 0);
	ck_assert_double_eq(big[5], 5 * 1.0);
	ck_assert_double_eq(big[6], 6 * -2.0);
	/* arity checked */
	ck_assert_int_eq(osk_pointwise(OSK_MUL, 1, in, &o, p, NULL), OSK_EOP);
	/* bf16 input, integer semantics of the torch ops */
	{
		uint16_t h[2] = { bf16(2.5), bf16(-2.5) };

		in[0] = vec(h, OSK_BF16, 2);
		o = vec(out, OSK_F64, 2);
		ck_assert_int_eq(osk_pointwise(OSK_ROUND, 1, in, &o, p, NULL),
		    0);
		ck_assert_double_eq(out[0], 2.0);
		ck_assert_double_eq(out[1], -2.0);
	}
}
END_TEST

START_TEST(test_reduce)
{
	double x[6] = { 1, 5, 3, 5, -1, 2 }, out[2], p[4] = { 1, 0, 0, 0 };
	int64_t shape[2] = { 2, 3 }, two = 2, idx[2];
	struct osk_tensor in = tensor(x, OSK_F64, 2, shape);
	struct osk_tensor o = tensor(out, OSK_F64, 1, &two);
	struct osk_tensor oi = tensor(idx, OSK_I64, 1, &two);

	ck_assert_int_eq(osk_reduce(OSK_SUM, &in, 1, &o, p, NULL), 0);
	ck_assert_double_eq(out[0], 9);
	ck_assert_double_eq(out[1], 6);
	ck_assert_int_eq(osk_reduce(OSK_VAR, &in, 1, &o, p, NULL), 0);
	ck_assert_double_eq_tol(out[0], 4, EPS);	/* mean 3, (4+4+0)/2 */
	ck_assert_double_eq_tol(out[1], 9, EPS);	/* mean 2, (9+9+0)/2 */
	/* argmax: the first of tied maxima */
	ck_assert_int_eq(osk_reduce(OSK_ARGMAX, &in, 1, &oi, p, NULL), 0);
	ck_assert_int_eq(idx[0], 1);
	ck_assert_int_eq(idx[1], 0);
	/* reduce dim 0 through a transposed view: rows are columns */
	in.shape[0] = 3; in.shape[1] = 2; in.stride[0] = 1; in.stride[1] = 3;
	o.shape[0] = 3;
	{
		double col[3];

		o.data = (uint64_t)(uintptr_t)col;
		ck_assert_int_eq(osk_reduce(OSK_AMAX, &in, 1, &o, p, NULL), 0);
		ck_assert_double_eq(col[0], 5);
		ck_assert_double_eq(col[1], 5);
		ck_assert_double_eq(col[2], 3);
	}
	{
		double z[2] = { 0, 0 }, r;
		struct osk_tensor zt = vec(z, OSK_F64, 2), rt;
		int64_t none = 0;

		rt = tensor(&r, OSK_F64, 0, &none);
		ck_assert_int_eq(osk_reduce(OSK_LOGSUMEXP, &zt, 1, &rt, p,
		    NULL), 0);
		ck_assert_double_eq_tol(r, M_LN2, EPS);
	}
}
END_TEST

START_TEST(test_compensated_sum)
{
	static double x[1000002];
	double r;
	int64_t none = 0;
	struct osk_tensor t = vec(x, OSK_F64, 1000002), o;
	int i;

	x[0] = 1e16;
	for (i = 1; i <= 1000000; i++)
		x[i] = 1.0;
	x[1000001] = -1e16;
	o = tensor(&r, OSK_F64, 0, &none);
	ck_assert_int_eq(osk_reduce(OSK_SUM, &t, 1, &o, NULL, NULL), 0);
	ck_assert_double_eq(r, 1e6);
}
END_TEST

START_TEST(test_rowwise_and_norm)
{
	double x[3] = { 0, log(3.0), 1 }, out[3], mean, rstd;
	int64_t idx[4];
	double y[4] = { 1, 3, 3, 2 }, cm[4];
	struct osk_tensor in = vec(x, OSK_F64, 2), o = vec(out, OSK_F64, 2);
	struct osk_tensor m, r, i2;
	int64_t one = 1;

	ck_assert_int_eq(osk_rowwise(OSK_SOFTMAX, &in, &o, NULL, NULL), 0);
	ck_assert_double_eq_tol(out[0], 0.25, EPS);
	ck_assert_double_eq_tol(out[1], 0.75, EPS);
	ck_assert_int_eq(osk_rowwise(OSK_LOG_SOFTMAX, &in, &o, NULL, NULL), 0);
	ck_assert_double_eq_tol(out[0], log(0.25), EPS);
	/* cummax takes the last of equal maxima, as torch */
	in = vec(y, OSK_F64, 4);
	o = vec(cm, OSK_F64, 4);
	i2 = vec(idx, OSK_I64, 4);
	ck_assert_int_eq(osk_rowwise(OSK_CUMMAX, &in, &o, &i2, NULL), 0);
	ck_assert_double_eq(cm[3], 3);
	ck_assert_int_eq(idx[1], 1);
	ck_assert_int_eq(idx[2], 2);
	ck_assert_int_eq(idx[3], 2);
	ck_assert_int_eq(osk_rowwise(OSK_CUMSUM, &in, &o, NULL, NULL), 0);
	ck_assert_double_eq(cm[3], 9);
	/* layer norm of [1, 2, 3]: mean 2, var 2/3 */
	x[0] = 1; x[1] = 2; x[2] = 3;
	in = vec(x, OSK_F64, 3);
	o = vec(out, OSK_F64, 3);
	m = tensor(&mean, OSK_F64, 1, &one);
	r = tensor(&rstd, OSK_F64, 1, &one);
	ck_assert_int_eq(osk_normalize(&in, 1, &o, &m, &r, 0.0, 0, NULL), 0);
	ck_assert_double_eq_tol(mean, 2, EPS);
	ck_assert_double_eq_tol(rstd, sqrt(1.5), EPS);
	ck_assert_double_eq_tol(out[2], sqrt(1.5), EPS);
	/* rms norm: mean square 14/3 */
	ck_assert_int_eq(osk_normalize(&in, 1, &o, NULL, &r, 0.0, 1, NULL), 0);
	ck_assert_double_eq_tol(out[0], 1 / sqrt(14.0 / 3), EPS);
}
END_TEST

START_TEST(test_dgemm_gather)
{
	double a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 7, 8, 9, 10, 11, 12 };
	double c[4], src[6] = { 10, 11, 12, 20, 21, 22 }, out[4];
	int64_t ix[4] = { 2, 0, 1, 1 }, shape[2] = { 2, 2 }, sshape[2] = { 2, 3 };
	struct osk_tensor in, idx, o;

	ck_assert_int_eq(osk_dgemm(1, 2, 2, 3, a, 0, b, 0, c, NULL), 0);
	ck_assert_double_eq(c[0], 58);
	ck_assert_double_eq(c[1], 64);
	ck_assert_double_eq(c[2], 139);
	ck_assert_double_eq(c[3], 154);
	in = tensor(src, OSK_F64, 2, sshape);
	idx = tensor(ix, OSK_I64, 2, shape);
	o = tensor(out, OSK_F64, 2, shape);
	ck_assert_int_eq(osk_gather(&in, 1, &idx, &o, NULL), 0);
	ck_assert_double_eq(out[0], 12);
	ck_assert_double_eq(out[1], 10);
	ck_assert_double_eq(out[2], 21);
	ck_assert_double_eq(out[3], 21);
}
END_TEST

/* ---- generation -------------------------------------------------------------- */

static uint64_t
gen_digest(int domain, int dtype, double lo, double hi, double rate)
{
	static unsigned char buf[8000];
	struct osk_genspec g;
	struct osk_tensor t = vec(buf, dtype, 1000);
	uint64_t d;

	memset(&g, 0, sizeof(g));
	g.domain = domain;
	g.low = lo;
	g.high = hi;
	g.edge_rate = rate;
	ck_assert_int_eq(osk_generate(&t, &g, 1234567, 3, NULL), 0);
	ck_assert_int_eq(osk_digest(&t, &d, NULL, NULL), 0);
	return d;
}

START_TEST(test_generation_golden)
{
	/* golden digests: any change to the generator changes case bytes */
	ck_assert_uint_eq(gen_digest(OSK_DOM_NORMAL, OSK_F32, 0, 0, 0),
	    0x251d9f1ef5d46e5cULL);
	ck_assert_uint_eq(gen_digest(OSK_DOM_UNIFORM, OSK_BF16, -1, 1, 0),
	    0x7378bbe3b0e926e8ULL);
	ck_assert_uint_eq(gen_digest(OSK_DOM_INT, OSK_I32, -100, 100, 0),
	    0x9a5b71a4137a7a9dULL);
	ck_assert_uint_eq(gen_digest(OSK_DOM_NORMAL, OSK_F16, 0, 0, 0.5),
	    0xae83ba6893d13c85ULL);
	ck_assert_uint_eq(gen_digest(OSK_DOM_BITS, OSK_F8E4M3, 0, 0, 0),
	    0xf9d7fbcf2c1f01d2ULL);
	ck_assert_uint_eq(gen_digest(OSK_DOM_INDEX, OSK_I64, 0, 1000, 0),
	    0x0a19dfeba3487f4eULL);
}
END_TEST

START_TEST(test_generation_values)
{
	float x[4];
	int32_t k[1000];
	struct osk_genspec g;
	struct osk_tensor t = vec(x, OSK_F32, 4);
	int i;

	memset(&g, 0, sizeof(g));
	g.domain = OSK_DOM_NORMAL;
	ck_assert_int_eq(osk_generate(&t, &g, 1234567, 3, NULL), 0);
	ck_assert_float_eq(x[0], -1.0403919219970703f);
	g.domain = OSK_DOM_INT;
	g.low = -3;
	g.high = 3;
	t = vec(k, OSK_I32, 1000);
	ck_assert_int_eq(osk_generate(&t, &g, 9, 0, NULL), 0);
	for (i = 0; i < 1000; i++)
		ck_assert(k[i] >= -3 && k[i] < 3);
	/* ln without libm: agrees with log() to a few ulp */
	ck_assert_double_eq_tol(osk_ln(0.3), log(0.3), 4e-16);
	ck_assert_double_eq_tol(osk_ln(1e-300), log(1e-300), 1e-12);
}
END_TEST

START_TEST(test_digest_strides)
{
	double a[6] = { 1, 2, 3, 4, 5, 6 }, at[6] = { 1, 4, 2, 5, 3, 6 };
	int64_t shape[2] = { 2, 3 }, tshape[2] = { 3, 2 };
	struct osk_tensor c = tensor(a, OSK_F64, 2, shape);
	struct osk_tensor v = tensor(at, OSK_F64, 2, tshape);
	uint64_t d1, d2;

	/* at viewed transposed holds the same logical [2, 3] tensor */
	v.shape[0] = 2; v.shape[1] = 3; v.stride[0] = 1; v.stride[1] = 2;
	ck_assert_int_eq(osk_digest(&c, &d1, NULL, NULL), 0);
	ck_assert_int_eq(osk_digest(&v, &d2, NULL, NULL), 0);
	ck_assert_uint_eq(d1, d2);
	a[5] = 7;
	ck_assert_int_eq(osk_digest(&c, &d2, NULL, NULL), 0);
	ck_assert_uint_ne(d1, d2);
}
END_TEST

/* ---- comparison ----------------------------------------------------------------- */

START_TEST(test_compare_float)
{
	double o[5], third = 1.0 / 3;
	uint16_t c[5], n[5];
	struct osk_tensor tc, tn, to;
	struct osk_figures f;
	struct osk_tol tol = { 0, 1.5 };

	o[0] = 1; o[1] = ldexp(1, -12); o[2] = NAN; o[3] = INFINITY;
	o[4] = third;
	c[0] = bf16(1 + ldexp(1, -7));			/* 1 ulp at 1 */
	c[1] = bf16(ldexp(1, -12) + ldexp(1, -16));	/* 2 ulp at the floor */
	c[2] = bf16(NAN);
	c[3] = bf16(1.0);				/* inf missed */
	c[4] = bf16(third);
	n[0] = bf16(1); n[1] = bf16(ldexp(1, -12)); n[2] = bf16(NAN);
	n[3] = bf16(INFINITY); n[4] = bf16(third);
	tc = vec(c, OSK_BF16, 5);
	tn = vec(n, OSK_BF16, 5);
	to = vec(o, OSK_F64, 5);
	ck_assert_int_eq(osk_compare_float(&tc, &tn, &to, OSK_BF16, &tol, &f,
	    NULL, NULL), 0);
	ck_assert_double_eq(f.oracle_max, 1.0);
	ck_assert_double_eq(f.R, 0.333984375 - third);
	ck_assert_double_eq(f.c.err_abs, ldexp(1, -7));
	/* ULP at max(|O_1|, 2^-10 max|O|) = 2^-10: 2^(-9-8) */
	ck_assert_double_eq(f.c.err_ulp, 2.0);
	ck_assert_int_eq(f.c.worst_index, 0);
	ck_assert_int_eq(f.c.nonfinite, 1);
	ck_assert_int_eq(f.c.over_tol, 2);	/* the 2-ulp and the inf */
	ck_assert_int_eq(f.c.first_bad, 1);
	ck_assert_double_eq(f.n.err_abs, 0.333984375 - third);
	ck_assert_int_eq(f.n.nonfinite, 0);
	ck_assert_double_eq_tol(f.n.err_ulp, (0.333984375 - third) /
	    ldexp(1, -9), 1e-15);
	/* figures need D floating */
	ck_assert_int_eq(osk_compare_float(&tc, &tn, &to, OSK_I32, NULL, &f,
	    NULL, NULL), OSK_EDTYPE);
}
END_TEST

START_TEST(test_compare_exact_and_index)
{
	int64_t o[4] = { 1, -1, 300, 4 };
	int32_t c[4] = { 1, -1, 300, 5 }, n[4] = { 1, -1, 300, 4 };
	float fc[3] = { NAN, 1, 2 }, fn[3] = { NAN, 1, 3 };
	double fo[3] = { NAN, 1, 2 };
	float inp[4] = { 3, 1, 3, 2 }, vals[4] = { 3, 3, 2, 1 };
	int64_t ic[4] = { 2, 0, 3, 1 }, in_[4] = { 0, 1, 3, 1 };
	struct osk_tensor tc, tn, to, ti, tv;
	struct osk_figures f;

	tc = vec(c, OSK_I32, 4);
	tn = vec(n, OSK_I32, 4);
	to = vec(o, OSK_I64, 4);
	ck_assert_int_eq(osk_compare_exact(&tc, &tn, &to, &f, NULL, NULL), 0);
	ck_assert_int_eq(f.c.mismatch, 1);
	ck_assert_int_eq(f.c.first_bad, 3);
	ck_assert_int_eq(f.n.mismatch, 0);
	/* NaN equals NaN */
	tc = vec(fc, OSK_F32, 3);
	tn = vec(fn, OSK_F32, 3);
	to = vec(fo, OSK_F64, 3);
	ck_assert_int_eq(osk_compare_exact(&tc, &tn, &to, &f, NULL, NULL), 0);
	ck_assert_int_eq(f.c.mismatch, 0);
	ck_assert_int_eq(f.n.mismatch, 1);
	/* ties: candidate swaps the two 3s (fine); native points 1 at a 1 */
	tc = vec(ic, OSK_I64, 4);
	tn = vec(in_, OSK_I64, 4);
	ti = vec(inp, OSK_F32, 4);
	tv = vec(vals, OSK_F32, 4);
	ck_assert_int_eq(osk_compare_index(&tc, &tn, &ti, 0, &tv, &f, NULL,
	    NULL), 0);
	ck_assert_int_eq(f.c.mismatch, 0);
	ck_assert_int_eq(f.n.mismatch, 1);
	ck_assert_int_eq(f.n.first_bad, 1);
}
END_TEST

/* The ULP from exponent bits equals frexp/ldexp's on every kind of double. */
START_TEST(test_ulp_bits_equal_frexp)
{
	static const int	 dts[] = { OSK_F64, OSK_F32, OSK_F16, OSK_BF16,
	    OSK_F8E4M3, OSK_F8E5M2 };
	uint64_t		 x = 0x9e3779b97f4a7c15ULL;
	size_t			 k;
	int			 i, e, p;
	double			 mag, tiny, ref, got;

	for (k = 0; k < sizeof(dts) / sizeof(dts[0]); k++) {
		p = osk_prec(dts[k]);
		tiny = osk_tiny(dts[k]);
		ck_assert(tiny == ldexp(1.0, dts[k] == OSK_F64 ? -1074 :
		    dts[k] == OSK_F32 ? -149 : dts[k] == OSK_F16 ? -24 :
		    dts[k] == OSK_BF16 ? -133 : dts[k] == OSK_F8E4M3 ? -9 : -16));
		for (i = 0; i < 200000; i++) {
			/* xorshift: every exponent, subnormals and zero included */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			mag = osk_dbits(x & 0x7fefffffffffffffULL);
			if (i % 7 == 0)
				mag = osk_dbits(x & 0x000fffffffffffffULL);
			got = osk_ulp_at(mag, 0.0, p, tiny);
			if (!(mag > 0))
				ref = tiny;
			else {
				(void)frexp(mag, &e);
				ref = ldexp(1.0, e - p);
				ref = ref > tiny ? ref : tiny;
			}
			ck_assert_msg(got == ref, "p %d mag %a: %a != %a", p, mag,
			    got, ref);
		}
	}
}
END_TEST

/* ---- fast float comparison ---------------------------------------------------- */

static const int fast_dts[] = { OSK_F64, OSK_F32, OSK_F16, OSK_BF16 };
#define NFAST	(int)(sizeof(fast_dts) / sizeof(fast_dts[0]))

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int
same_double(double a, double b)
{
	return osk_bitsd(a) == osk_bitsd(b) || (isnan(a) && isnan(b));
}

/* round_D from bits equals the frexp/rint/encode/decode chain. */
START_TEST(test_fast_round_equals_round_to)
{
	static const double edges[] = { 0.0, -0.0, 1.0, 65504.0, 65519.99,
	    65520.0, -65520.0, 65536.0, 3.4028234663852886e38,
	    3.4028235677973366e38, 3.4028235677973362e38, 3.39e38, 1e39,
	    -1e300, 5.960464477539063e-08, 2.9802322387695312e-08,
	    2.9802322387695315e-08, 8.96831017167883e-44, 9.2e-41, 1.4e-45,
	    7e-46, 1e-320, 4.9406564584124654e-324 };
	uint64_t x = 0x243f6a8885a308d3ULL;
	double v, a, b;
	int k, i, j;

	for (k = 0; k < NFAST; k++) {
		for (i = 0; i < (int)(sizeof(edges) / sizeof(edges[0])); i++)
			for (j = -2; j <= 2; j++) {
				/* the edge and its neighbours, both signs */
				v = osk_dbits(osk_bitsd(edges[i]) + j);
				if (j < 0 && edges[i] == 0)
					continue;
				a = osk_fast_round(v, fast_dts[k]);
				b = osk_round_to(v, fast_dts[k]);
				ck_assert_msg(same_double(a, b), "dt %d %a: %a != %a",
				    fast_dts[k], v, a, b);
				a = osk_fast_round(-v, fast_dts[k]);
				b = osk_round_to(-v, fast_dts[k]);
				ck_assert_msg(same_double(a, b), "dt %d %a: %a != %a",
				    fast_dts[k], -v, a, b);
			}
		for (i = 0; i < 400000; i++) {
			xorshift(&x);
			/* any double; every other one near float range */
			v = osk_dbits(i & 1 ? x : (x & 0x800fffffffffffffULL) |
			    (uint64_t)(1023 - 160 + (int)((x >> 52) % 300)) << 52);
			a = osk_fast_round(v, fast_dts[k]);
			b = osk_round_to(v, fast_dts[k]);
			ck_assert_msg(same_double(a, b), "dt %d %a: %a != %a",
			    fast_dts[k], v, a, b);
		}
	}
}
END_TEST

/* Every 16-bit pattern decodes as osk_value does (a NaN as a NaN). */
START_TEST(test_fast_value_all_16bit)
{
	uint32_t b;
	double a, v;

	for (b = 0; b < 65536; b++) {
		a = osk_fast_value(b, OSK_F16);
		v = osk_value(b, OSK_F16);
		ck_assert_msg(same_double(a, v), "f16 %04x", b);
		if (isfinite(v))
			ck_assert(osk_bitsd(osk_fast_fvalue(b, OSK_F16)) ==
			    osk_bitsd(v));
		ck_assert(same_double(osk_fast_value(b, OSK_BF16),
		    osk_value(b, OSK_BF16)));
	}
	ck_assert(osk_bitsd(osk_fast_value(0x3fd5555555555555ULL, OSK_F64)) ==
	    0x3fd5555555555555ULL);
	ck_assert_double_eq(osk_fast_value(osk_bitsf(0.1f), OSK_F32), 0.1f);
}
END_TEST

/* A plain position updates a partial as the full fast element code does. */
START_TEST(test_plain_equals_full)
{
	struct osk_cpart p1, p2;
	struct osk_fconst c;
	struct osk_tol tol = { 1e-3, 3.0 };
	uint64_t x = 0x13198a2e03707344ULL, cb, nb;
	double ov;
	int k, i, t;

	for (k = 0; k < NFAST; k++)
		for (t = 0; t < 3; t++) {
			/* floor 2^-10 max|O|: none, 2^-11, 2^-1000 */
			c = osk_fconst_of(t == 0 ? 0.0 : t == 1 ? 0.5 :
			    ldexp(1, -990), &tol);
			if (t == 2)
				c.tol = c.ta = c.tu = 0, c.ta = c.tu =
				    osk_inf();
			osk_cpart_init(&p1);
			osk_cpart_init(&p2);
			for (i = 0; i < 20000; i++) {
				xorshift(&x);
				ov = ldexp((double)(int32_t)x, (int)((x >> 40) %
				    (fast_dts[k] == OSK_F16 ? 40 : 200)) -
				    (fast_dts[k] == OSK_F64 ? 1100 : 150));
				if (i % 5 == 0)
					ov = 0;
				cb = osk_dbits_to(ov * (1 + ldexp((double)(x %
				    7), -9)), fast_dts[k]);
				nb = osk_dbits_to(i % 3 ? ov : -ov, fast_dts[k]);
				if (!osk_fast_plain(cb, nb, ov, fast_dts[k]))
					continue;
				osk_compare_plain_at(&p1, i, cb, nb, ov,
				    fast_dts[k], &c);
				osk_compare_fast_at(&p2, i, cb, nb, ov,
				    fast_dts[k], &c);
			}
			p1.R = p2.R;
			ck_assert_msg(memcmp(&p1, &p2, sizeof(p1)) == 0,
			    "dt %d floor %d", fast_dts[k], t);
			ck_assert(p1.c.worst >= 0);
		}
}
END_TEST

/* Crafted values of O (and C, N from them) that reach every branch. */
static void
crafted(int dt, int64_t n, double *o, void *c, void *nat, uint64_t seed)
{
	uint64_t x = seed;
	double v, w;
	int64_t i;
	int sz = osk_size(dt);

	for (i = 0; i < n; i++) {
		xorshift(&x);
		v = ((double)(int64_t)x) * ldexp(1, -63) * 3;	/* N(0,1)-ish */
		switch (i % 23) {
		case 1: v = NAN; break;
		case 2: v = INFINITY; break;
		case 3: v = -INFINITY; break;
		case 4: v = 0.0; break;
		case 5: v = 1e-9; break;		/* below the ULP floor */
		case 6: v = dt == OSK_F16 ? 70000.0 : 3.5e38; break; /* to inf */
		case 7: v = dt == OSK_F16 ? 40000.0 : 2e38; break; /* 2^emax up */
		case 8: v = 1e-310; break;		/* subnormal double */
		case 9:	/* below 2^emax, rounds to inf in D */
			v = dt == OSK_F16 ? 65530.0 : 3.4028236e38;
			break;
		default: break;
		}
		o[i] = v;
		w = v * (1 + ldexp(1, -9));
		switch (i % 29) {
		case 1: w = NAN; break;			/* NaN where O is not */
		case 2: w = -INFINITY; break;
		case 9: w = v; break;
		case 11: w = 1e-300; break;
		default: break;
		}
		if (i == 10 || i == 40)			/* a tie of the worst */
			w = v + 1000, o[i] = v;
		if (i == 9)		/* finite where round_D(O) is inf */
			w = 1000.0;
		if (i == 12)		/* |C - O| = 2^-7 = 1 ulp: tolerance ties */
			o[i] = 1.0, w = 1.0 + ldexp(1, -7);
		osk_putbits(&(struct osk_tensor){ .data = (uintptr_t)c,
		    .dtype = dt }, i, osk_dbits_to(w, dt));
		osk_putbits(&(struct osk_tensor){ .data = (uintptr_t)nat,
		    .dtype = dt }, i, osk_dbits_to(i % 31 == 3 ? NAN : i == 9 ?
		    -1000.0 : v, dt));
		(void)sz;
	}
}

static void
fast_vs_generic(const struct osk_tensor *tc, const struct osk_tensor *tn,
    const struct osk_tensor *to, int dt, const struct osk_tol *tol,
    const char *what)
{
	struct osk_figures a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(osk_compare_float2(tc, tn, to, dt, tol,
	    OSK_CMP_DIGEST, &a, NULL, NULL), 0);
	ck_assert_int_eq(osk_compare_float2(tc, tn, to, dt, tol,
	    OSK_CMP_DIGEST | OSK_CMP_GENERIC, &b, NULL, NULL), 0);
	ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0,
	    "%s dt %d: R %a/%a abs %a/%a ulp %a/%a worst %ld/%ld nf %ld/%ld "
	    "bad %ld/%ld first %ld/%ld", what, dt, a.R, b.R, a.c.err_abs,
	    b.c.err_abs, a.c.err_ulp, b.c.err_ulp, (long)a.c.worst_index,
	    (long)b.c.worst_index, (long)a.c.nonfinite, (long)b.c.nonfinite,
	    (long)a.c.over_tol, (long)b.c.over_tol, (long)a.c.first_bad,
	    (long)b.c.first_bad);
	/* without the digest flag: the same figures, digests 0 */
	ck_assert_int_eq(osk_compare_float2(tc, tn, to, dt, tol, 0, &b, NULL,
	    NULL), 0);
	ck_assert(b.c.digest == 0 && b.n.digest == 0);
	b.c.digest = a.c.digest;
	b.n.digest = a.n.digest;
	ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "%s dt %d: no digest",
	    what, dt);
}

/* The fast path gives the generic path's figures, bit for bit. */
START_TEST(test_compare_fast_equals_generic)
{
	enum { N = 4099 };
	static double o[N], o2[2 * N];
	static uint64_t c[N], nat[N], n2[2 * N];
	const struct osk_tol tols[] = { { 0, 0 }, { 1e-2, 2.0 }, { 0, 1.5 },
	    { 0x1p-7, 0 }, { 0, 1.0 } };
	struct osk_tensor tc, tn, to, tn2, to2;
	int64_t i, shape[2] = { 2, 2 };
	int k, t, m;

	for (k = 0; k < NFAST; k++)
		for (m = 0; m < 3; m++) {
			crafted(fast_dts[k], N, o, c, nat, 0x9e37 + m);
			if (m == 2)	/* max|O| tiny: ULPs below 2^-1023 */
				for (i = 0; i < N; i++)
					if (isfinite(o[i]))
						o[i] = ldexp(fabs(o[i]) > 8 ? 1.0 :
						    o[i], -1000);
			tc = vec(c, fast_dts[k], N);
			tn = vec(nat, fast_dts[k], N);
			to = vec(o, OSK_F64, N);
			for (t = 0; t < 5; t++)
				fast_vs_generic(&tc, &tn, &to, fast_dts[k], &tols[t],
				    "contiguous");
			/* N and O strided: every other element of a buffer */
			for (i = 0; i < N; i++) {
				o2[2 * i] = o[i];
				o2[2 * i + 1] = 12345.0;
				memcpy((char *)n2 + 2 * i * osk_size(fast_dts[k]),
				    (char *)nat + i * osk_size(fast_dts[k]),
				    osk_size(fast_dts[k]));
			}
			tn2 = tn;
			tn2.data = (uintptr_t)n2;
			tn2.stride[0] = 2;
			to2 = to;
			to2.data = (uintptr_t)o2;
			to2.stride[0] = 2;
			fast_vs_generic(&tc, &tn2, &to2, fast_dts[k], &tols[1],
			    "strided");
		}
	/* C of another dtype than D: the generic path, still right */
	crafted(OSK_F32, N, o, c, nat, 7);
	tc = vec(c, OSK_F32, N);
	crafted(OSK_BF16, N, o, n2, nat, 7);
	tn = vec(nat, OSK_BF16, N);
	to = vec(o, OSK_F64, N);
	fast_vs_generic(&tc, &tn, &to, OSK_BF16, &tols[0], "mixed");
	/* empty and 2x2 */
	tc = tensor(c, OSK_F32, 2, shape);
	tn = tensor(nat, OSK_F32, 2, shape);
	to = tensor(o, OSK_F64, 2, shape);
	fast_vs_generic(&tc, &tn, &to, OSK_F32, &tols[0], "2x2");
	shape[0] = 0;
	tc = tensor(c, OSK_F32, 2, shape);
	tn = tensor(nat, OSK_F32, 2, shape);
	to = tensor(o, OSK_F64, 2, shape);
	fast_vs_generic(&tc, &tn, &to, OSK_F32, &tols[0], "empty");
}
END_TEST

/* Stable, NaN largest, -0 and 0 equal: torch's sort order, by hand. */
START_TEST(test_sort_rows)
{
	double		 x[] = { 3, NAN, 1, 1, -0.0, 0.0 }, v[6];
	int64_t		 ix[6], i;
	const int64_t	 up[] = { 4, 5, 2, 3, 0, 1 }, down[] = { 1, 0, 2, 3, 4, 5 };

	ck_assert_int_eq(osk_sort_rows(x, 1, 6, 0, v, ix), 0);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(ix[i], up[i]);
	ck_assert(v[0] == 0 && signbit(v[0]) && v[4] == 3 && isnan(v[5]));
	ck_assert_int_eq(osk_sort_rows(x, 1, 6, 1, v, ix), 0);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(ix[i], down[i]);
	/* two rows of three */
	ck_assert_int_eq(osk_sort_rows(x, 2, 3, 0, v, ix), 0);
	ck_assert(v[0] == 1 && v[1] == 3 && isnan(v[2]));
	ck_assert_int_eq(ix[3], 1);
	ck_assert_int_eq(osk_sort_rows(x, 1, 0, 0, v, ix), 0);
	ck_assert_int_eq(osk_sort_rows(NULL, 1, 2, 0, v, ix), OSK_EINVAL);
}
END_TEST

static Suite *
kernels_suite(void)
{
	Suite *s = suite_create("kernels");
	TCase *tc = tcase_create("host");

	/*
	 * Several tests walk every 16-bit pattern or millions of values: about
	 * 1 s each alone, several on a loaded 2-core CI machine; Check's 4 s
	 * default timed them out there. The timeout only guards against hangs.
	 */
	tcase_set_timeout(tc, 120);

	tcase_add_test(tc, test_round_to);
	tcase_add_test(tc, test_decode_all_16bit);
	tcase_add_test(tc, test_pointwise);
	tcase_add_test(tc, test_reduce);
	tcase_add_test(tc, test_compensated_sum);
	tcase_add_test(tc, test_rowwise_and_norm);
	tcase_add_test(tc, test_dgemm_gather);
	tcase_add_test(tc, test_generation_golden);
	tcase_add_test(tc, test_generation_values);
	tcase_add_test(tc, test_digest_strides);
	tcase_add_test(tc, test_compare_float);
	tcase_add_test(tc, test_compare_exact_and_index);
	tcase_add_test(tc, test_ulp_bits_equal_frexp);
	tcase_add_test(tc, test_fast_round_equals_round_to);
	tcase_add_test(tc, test_fast_value_all_16bit);
	tcase_add_test(tc, test_plain_equals_full);
	tcase_add_test(tc, test_compare_fast_equals_generic);
	tcase_add_test(tc, test_sort_rows);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(kernels_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
