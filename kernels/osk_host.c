/*
 * The host build of libopscreen_kernels: the functions of osk.h as plain
 * loops over host memory, on the element code of osk_core.h.  The stream
 * and scratch arguments are ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "osk_core.h"
#include "osk_common.h"

int
osk_is_device(void)
{
	return 0;
}

int
osk_generate(const struct osk_tensor *out, const struct osk_genspec *g,
    uint64_t seed, uint64_t index, void *stream)
{
	uint64_t key = osk_gen_key(seed, index);
	int64_t i, n;

	if (osk_check(out) || g == NULL || g->domain < 0 ||
	    g->domain >= OSK_NDOMAIN)
		return OSK_EINVAL;
	n = osk_numel(out);
	for (i = 0; i < n; i++)
		osk_putbits(out, osk_off(out, i),
		    osk_gen_bits(i, out->dtype, g, key));
	return OSK_OK;
}

int
osk_exhaustive16(const struct osk_tensor *out, void *stream)
{
	int64_t i;

	if (osk_check(out) || osk_size(out->dtype) != 2 ||
	    osk_numel(out) != 65536)
		return OSK_EINVAL;
	for (i = 0; i < 65536; i++)
		osk_putbits(out, osk_off(out, i), (uint64_t)i);
	return OSK_OK;
}

int
osk_digest(const struct osk_tensor *t, uint64_t *res, void *scratch,
    void *stream)
{
	uint64_t sum = 0;
	int64_t i, n;

	if (osk_check(t) || res == NULL)
		return OSK_EINVAL;
	n = osk_numel(t);
	for (i = 0; i < n; i++)
		sum += osk_digest_term(i, osk_rawbits(t, osk_off(t, i)));
	*res = osk_digest_final(sum, n, t->dtype);
	return OSK_OK;
}

int
osk_pointwise(int op, int narg, const struct osk_tensor *in,
    const struct osk_tensor *out, const double *param, void *stream)
{
	double p[4];
	int64_t i, n;
	int k, e;

	if ((e = osk_check_pointwise(op, narg, in, out, param, p)) != 0)
		return e;
	n = osk_numel(out);
	for (i = 0; i < n; i++) {
		int64_t off[3];

		for (k = 0; k < narg; k++)
			off[k] = osk_off(&in[k], i);
		osk_pointwise_at(op, narg, in, off, out, osk_off(out, i), p);
	}
	return OSK_OK;
}

/* One sweep of row r (logical elements r*len .. r*len+len-1). */
static struct osk_racc
sweep(int sw, const struct osk_tensor *in, int64_t r, int64_t len,
    double shift, double pw)
{
	struct osk_racc a = osk_racc_init(sw);
	int64_t j;

	for (j = 0; j < len; j++)
		osk_racc_add(sw, &a, osk_load(in, osk_off(in, r * len + j)), j,
		    shift, pw);
	return a;
}

int
osk_reduce(int op, const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const double *param, void *stream)
{
	struct osk_racc a1, a2;
	double p[4];
	int64_t rows, len, r;
	int e, sw2;

	if ((e = osk_check_reduce(op, in, nred, out, param, p, &rows,
	    &len)) != 0)
		return e;
	sw2 = osk_plan2(op);
	for (r = 0; r < rows; r++) {
		a1 = sweep(osk_plan1(op, p[0]), in, r, len, 0, p[0]);
		a2 = a1;
		if (sw2 >= 0)
			a2 = sweep(sw2, in, r, len,
			    osk_plan_shift(op, &a1, len), p[0]);
		osk_store(out, osk_off(out, r),
		    osk_plan_finish(op, &a1, &a2, len, p));
	}
	return OSK_OK;
}

int
osk_rowwise(int op, const struct osk_tensor *in, const struct osk_tensor *out,
    const struct osk_tensor *out2, void *stream)
{
	struct osk_racc a, s;
	double shift;
	int64_t rows, len, r, j, i;
	int e;

	if ((e = osk_check_rowwise(op, in, out, out2, &rows, &len)) != 0)
		return e;
	for (r = 0; r < rows; r++) {
		if (op == OSK_SOFTMAX || op == OSK_LOG_SOFTMAX) {
			a = sweep(OSK_SW_MAX, in, r, len, 0, 0);
			shift = osk_plan_shift(op, &a, len);
			s = sweep(OSK_SW_SUMEXP, in, r, len, shift, 0);
			for (j = 0; j < len; j++) {
				i = r * len + j;
				osk_store(out, osk_off(out, i),
				    osk_softmax_at(op, osk_load(in,
				    osk_off(in, i)), shift, osk_nsum_value(&s)));
			}
			continue;
		}
		a = osk_racc_init(OSK_SW_SUM);
		for (j = 0; j < len; j++) {
			i = r * len + j;
			osk_store(out, osk_off(out, i), osk_scan_step(op, &a,
			    osk_load(in, osk_off(in, i)), j));
			if (out2 != NULL)
				osk_putbits(out2, osk_off(out2, i),
				    osk_ibits(a.idx, out2->dtype));
		}
	}
	return OSK_OK;
}

int
osk_normalize(const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const struct osk_tensor *mean,
    const struct osk_tensor *rstd, double eps, int rms, void *stream)
{
	struct osk_racc a;
	double mu, rs, x;
	int64_t rows, len, r, j, i;
	int e;

	if ((e = osk_check_normalize(in, nred, out, mean, rstd, &rows,
	    &len)) != 0)
		return e;
	for (r = 0; r < rows; r++) {
		mu = 0;
		if (rms) {
			a = sweep(OSK_SW_SUMSQ, in, r, len, 0, 0);
		} else {
			a = sweep(OSK_SW_SUM, in, r, len, 0, 0);
			mu = osk_nsum_value(&a) / (double)len;
			a = sweep(OSK_SW_SUMSQDEV, in, r, len, mu, 0);
		}
		rs = 1.0 / sqrt(osk_nsum_value(&a) / (double)len + eps);
		for (j = 0; j < len; j++) {
			i = r * len + j;
			x = osk_load(in, osk_off(in, i));
			osk_store(out, osk_off(out, i), (x - mu) * rs);
		}
		if (mean != NULL)
			osk_store(mean, osk_off(mean, r), mu);
		if (rstd != NULL)
			osk_store(rstd, osk_off(rstd, r), rs);
	}
	return OSK_OK;
}

int
osk_gather(const struct osk_tensor *in, int dim, const struct osk_tensor *idx,
    const struct osk_tensor *out, void *stream)
{
	int64_t i, n;
	int e;

	if ((e = osk_check_gather(in, dim, idx, out)) != 0)
		return e;
	n = osk_numel(out);
	for (i = 0; i < n; i++)
		osk_gather_at(in, dim, idx, out, i);
	return OSK_OK;
}

int
osk_dgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const double *a,
    int64_t sa, const double *b, int64_t sb, double *c, void *stream)
{
	int64_t z, i, j, l;
	double s;

	if (batch < 0 || m < 0 || n < 0 || k < 0 ||
	    (batch > 0 && m > 0 && n > 0 && (!a || !b || !c)))
		return OSK_EINVAL;
	for (z = 0; z < batch; z++)
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++) {
				s = 0;
				for (l = 0; l < k; l++)
					s += a[z * sa + i * k + l] *
					    b[z * sb + l * n + j];
				c[(z * m + i) * n + j] = s;
			}
	return OSK_OK;
}

/* The first pass: max |O| over finite O, and R for fast dtype dt (>= 0). */
static void
oracle_pass(const struct osk_tensor *o, int64_t n, int dt, double *omax,
    double *R)
{
	int64_t i;

	for (i = 0; i < n; i++)
		osk_opass(omax, R, osk_load(o, osk_off(o, i)), dt);
}

int
osk_compare_float2(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int dt, const struct osk_tol *tol, int flags,
    struct osk_figures *res, void *scratch, void *stream)
{
	struct osk_cpart part;
	struct osk_fconst k;
	struct osk_tol zero;
	uint64_t cb, nb;
	double ov;
	int64_t i, cnt;
	int e, fast, dig = flags & OSK_CMP_DIGEST;

	if ((e = osk_check_compare(c, n, o, res, 1, dt)) != 0)
		return e;
	if (tol == NULL) {
		memset(&zero, 0, sizeof(zero));
		tol = &zero;
	}
	cnt = osk_numel(o);
	fast = osk_fast_ok(c, n, o, dt, flags);
	osk_cpart_init(&part);
	oracle_pass(o, cnt, fast ? dt : -1, &part.omax, &part.R);
	k = osk_fconst_of(part.omax, tol);
	for (i = 0; i < cnt; i++) {
		if (!fast) {
			osk_compare_float_at(&part, c, n, o, osk_off(c, i),
			    osk_off(n, i), osk_off(o, i), i, dt, part.omax,
			    tol, dig);
			continue;
		}
		cb = osk_rawbits(c, osk_off(c, i));
		nb = osk_rawbits(n, osk_off(n, i));
		ov = osk_load(o, osk_off(o, i));
		/* the device takes plain positions by groups of 16 bytes */
		if (osk_fast_plain(cb, nb, ov, dt))
			osk_compare_plain_at(&part, i, cb, nb, ov, dt, &k);
		else
			osk_compare_fast_at(&part, i, cb, nb, ov, dt, &k);
		if (dig)
			osk_digest_pair(&part, i, cb, nb);
	}
	if (fast)
		osk_fast_done(&part);
	osk_figures_out(res, &part, cnt, c->dtype, n->dtype, 0);
	osk_float_out(res, c, n, o, fast, flags);
	return OSK_OK;
}

int
osk_compare_float(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int dt, const struct osk_tol *tol,
    struct osk_figures *res, void *scratch, void *stream)
{
	return osk_compare_float2(c, n, o, dt, tol, OSK_CMP_DIGEST, res,
	    scratch, stream);
}

int
osk_compare_exact(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, struct osk_figures *res, void *scratch,
    void *stream)
{
	struct osk_cpart part;
	int64_t i, cnt;
	int e;

	if ((e = osk_check_compare(c, n, o, res, 0, 0)) != 0)
		return e;
	cnt = osk_numel(o);
	osk_cpart_init(&part);
	for (i = 0; i < cnt; i++)
		osk_compare_exact_at(&part, c, n, o, i);
	osk_figures_out(res, &part, cnt, c->dtype, n->dtype, 1);
	return OSK_OK;
}

int
osk_compare_index(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *inp, int dim, const struct osk_tensor *values,
    struct osk_figures *res, void *scratch, void *stream)
{
	struct osk_cpart part;
	int64_t i, cnt;
	int e;

	if ((e = osk_check_index(c, n, inp, dim, values, res)) != 0)
		return e;
	cnt = osk_numel(values);
	osk_cpart_init(&part);
	for (i = 0; i < cnt; i++)
		osk_compare_index_at(&part, c, n, inp, dim, values, i);
	osk_figures_out(res, &part, cnt, c->dtype, n->dtype, 1);
	return OSK_OK;
}
