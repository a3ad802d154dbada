/*
 * Argument checks (host side of both builds: they read descriptors only)
 * and the per-position work of each entry point, shared by the host loops
 * and the device kernels.
 */
#ifndef OSK_COMMON_H
#define OSK_COMMON_H

#include <stddef.h>

#include "osk_core.h"

#define OSK_HOST	static inline

OSK_HOST int
osk_check(const struct osk_tensor *t)
{
	int d;

	if (t == NULL || t->ndim < 0 || t->ndim > OSK_MAXDIM ||
	    t->dtype < 0 || t->dtype >= OSK_NDTYPE)
		return OSK_EINVAL;
	for (d = 0; d < t->ndim; d++)
		if (t->shape[d] < 0)
			return OSK_EINVAL;
	if (t->data == 0 && osk_numel(t) > 0)
		return OSK_EINVAL;
	return OSK_OK;
}

OSK_HOST int
osk_same_shape(const struct osk_tensor *a, const struct osk_tensor *b)
{
	int d;

	if (a->ndim != b->ndim)
		return 0;
	for (d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return 0;
	return 1;
}

/* Every input has out's shape (broadcast inputs come as stride-0 views). */
OSK_HOST int
osk_check_pointwise(int op, int narg, const struct osk_tensor *in,
    const struct osk_tensor *out, const double *param, double *p)
{
	int k;

	if (narg < 1 || narg > 3 || narg != osk_arity(op) || in == NULL ||
	    osk_check(out))
		return narg == osk_arity(op) ? OSK_EINVAL : OSK_EOP;
	for (k = 0; k < narg; k++)
		if (osk_check(&in[k]) || !osk_same_shape(&in[k], out))
			return OSK_EINVAL;
	for (k = 0; k < 4; k++)
		p[k] = param != NULL ? param[k] : 0;
	return OSK_OK;
}

/* rows = product of the leading dims, len = product of the last nred. */
OSK_HOST int
osk_rows(const struct osk_tensor *in, int nred, int64_t *rows, int64_t *len)
{
	int d;

	if (osk_check(in) || nred < 0 || nred > in->ndim)
		return OSK_EINVAL;
	*rows = *len = 1;
	for (d = 0; d < in->ndim; d++) {
		if (d < in->ndim - nred)
			*rows *= in->shape[d];
		else
			*len *= in->shape[d];
	}
	return OSK_OK;
}

OSK_HOST int
osk_check_reduce(int op, const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const double *param, double *p,
    int64_t *rows, int64_t *len)
{
	int k;

	if (op < OSK_SUM || op > OSK_COUNT_NONZERO)
		return OSK_EOP;
	if (osk_rows(in, nred, rows, len) || osk_check(out) ||
	    osk_numel(out) != *rows)
		return OSK_EINVAL;
	for (k = 0; k < 4; k++)
		p[k] = param != NULL ? param[k] : 0;
	return OSK_OK;
}

OSK_HOST int
osk_check_rowwise(int op, const struct osk_tensor *in,
    const struct osk_tensor *out, const struct osk_tensor *out2,
    int64_t *rows, int64_t *len)
{
	if (op < OSK_SOFTMAX || op > OSK_CUMMIN)
		return OSK_EOP;
	if (osk_rows(in, in->ndim > 0, rows, len) || osk_check(out) ||
	    !osk_same_shape(in, out))
		return OSK_EINVAL;
	if (out2 != NULL && (osk_check(out2) || !osk_same_shape(in, out2) ||
	    osk_isfloat(out2->dtype)))
		return OSK_EINVAL;
	return OSK_OK;
}

OSK_HOST int
osk_check_normalize(const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const struct osk_tensor *mean,
    const struct osk_tensor *rstd, int64_t *rows, int64_t *len)
{
	if (osk_rows(in, nred, rows, len) || osk_check(out) ||
	    !osk_same_shape(in, out))
		return OSK_EINVAL;
	if (mean != NULL && (osk_check(mean) || osk_numel(mean) != *rows))
		return OSK_EINVAL;
	if (rstd != NULL && (osk_check(rstd) || osk_numel(rstd) != *rows))
		return OSK_EINVAL;
	return OSK_OK;
}

OSK_HOST int
osk_check_gather(const struct osk_tensor *in, int dim,
    const struct osk_tensor *idx, const struct osk_tensor *out)
{
	if (osk_check(in) || osk_check(idx) || osk_check(out) ||
	    in->ndim != idx->ndim || !osk_same_shape(idx, out) ||
	    osk_isfloat(idx->dtype) || dim < 0 || (dim >= in->ndim &&
	    in->ndim > 0))
		return OSK_EINVAL;
	return OSK_OK;
}

OSK_HOST int
osk_check_compare(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, const struct osk_figures *res, int isfloat,
    int dt)
{
	if (osk_check(c) || osk_check(n) || osk_check(o) || res == NULL ||
	    !osk_same_shape(c, o) || !osk_same_shape(n, o))
		return OSK_EINVAL;
	if (isfloat && (!osk_isfloat(dt) || dt == OSK_F8E8M0))
		return OSK_EDTYPE;
	return OSK_OK;
}

OSK_HOST int
osk_check_index(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *inp, int dim, const struct osk_tensor *values,
    const struct osk_figures *res)
{
	if (osk_check(c) || osk_check(n) || osk_check(inp) ||
	    osk_check(values) || res == NULL || !osk_same_shape(c, values) ||
	    !osk_same_shape(n, values) || inp->ndim != values->ndim ||
	    osk_isfloat(c->dtype) || osk_isfloat(n->dtype) || dim < 0 ||
	    (dim >= inp->ndim && inp->ndim > 0))
		return OSK_EINVAL;
	return OSK_OK;
}

/* ---- per-position work ------------------------------------------------------- */

OSK_HD void
osk_pointwise_at(int op, int narg, const struct osk_tensor *in,
    const int64_t *off, const struct osk_tensor *out, int64_t ooff,
    const double *p)
{
	int k, intpath = !osk_isfloat(out->dtype) &&
	    (op == OSK_COPY || op == OSK_WHERE);
	double v[3];

	for (k = op == OSK_WHERE; k < narg && intpath; k++)
		if (osk_isfloat(in[k].dtype))
			intpath = 0;
	if (intpath) {
		k = op == OSK_WHERE ? (osk_load(&in[0], off[0]) != 0 ? 1 :
		    2) : 0;
		osk_putbits(out, ooff, osk_ibits(osk_ivalue(osk_rawbits(&in[k],
		    off[k]), in[k].dtype), out->dtype));
		return;
	}
	for (k = 0; k < narg; k++)
		v[k] = osk_load(&in[k], off[k]);
	if (narg == 1)
		v[0] = osk_unary(op, v[0], p);
	else if (narg == 2)
		v[0] = osk_binary(op, v[0], v[1], p);
	else
		v[0] = osk_ternary(op, v[0], v[1], v[2], p);
	osk_store(out, ooff, v[0]);
}

OSK_HD void
osk_gather_at(const struct osk_tensor *in, int dim,
    const struct osk_tensor *idx, const struct osk_tensor *out, int64_t i)
{
	int64_t k = osk_ivalue(osk_rawbits(idx, osk_off(idx, i)), idx->dtype);
	int64_t size = in->ndim > 0 ? in->shape[dim] : 1, src, o;

	o = osk_off(out, i);
	if (k < 0 || k >= size) {
		osk_store(out, o, osk_nan());
		return;
	}
	src = osk_gather_off(in, idx, i, dim, k);
	if (out->dtype == in->dtype)
		osk_putbits(out, o, osk_rawbits(in, src));
	else if (!osk_isfloat(out->dtype) && !osk_isfloat(in->dtype))
		osk_putbits(out, o, osk_ibits(osk_ivalue(osk_rawbits(in, src),
		    in->dtype), out->dtype));
	else
		osk_store(out, o, osk_load(in, src));
}

OSK_HD void
osk_compare_float_at(struct osk_cpart *part, const struct osk_tensor *c,
    const struct osk_tensor *n, const struct osk_tensor *o, int64_t oc,
    int64_t on, int64_t oo, int64_t i, int dt, double omax,
    const struct osk_tol *tol, int digest)
{
	double ov = osk_load(o, oo), r, ulp;
	uint64_t cb = osk_rawbits(c, oc), nb = osk_rawbits(n, on);
	int fo = osk_isfinite(ov);

	/* omax * 2^-10 is ldexp(omax, -10): both are correctly rounded */
	ulp = osk_ulp_at(fo ? osk_fabs(ov) : 0.0, omax * (1.0 / 1024.0),
	    osk_prec(dt), osk_tiny(dt));
	r = osk_round_to(ov, dt);
	if (fo && osk_isfinite(r) && osk_fabs(r - ov) > part->R)
		part->R = osk_fabs(r - ov);
	osk_cacc_float(&part->c, i, osk_value(cb, c->dtype), ov, r, ulp, tol);
	osk_cacc_float(&part->n, i, osk_value(nb, n->dtype), ov, r, ulp, tol);
	if (digest)
		osk_digest_pair(part, i, cb, nb);
}

/* C, N and O take the fast path of osk_compare_fast_at. */
OSK_HD int
osk_fast_ok(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int dt, int flags)
{
	return !(flags & OSK_CMP_GENERIC) && osk_fast_dtype(dt) &&
	    c->dtype == dt && n->dtype == dt && o->dtype == OSK_F64;
}

/* worst_x and worst_o of a side from its worst index (the fast path). */
OSK_HD void
osk_fill_worst(struct osk_side *s, const struct osk_tensor *x,
    const struct osk_tensor *o)
{
	if (s->worst_index < 0)
		return;
	s->worst_x = osk_load(x, osk_off(x, s->worst_index));
	s->worst_o = osk_load(o, osk_off(o, s->worst_index));
}

OSK_HD void
osk_compare_exact_at(struct osk_cpart *part, const struct osk_tensor *c,
    const struct osk_tensor *n, const struct osk_tensor *o, int64_t i)
{
	uint64_t cb = osk_rawbits(c, osk_off(c, i));
	uint64_t nb = osk_rawbits(n, osk_off(n, i));
	uint64_t ob = osk_rawbits(o, osk_off(o, i));

	osk_cacc_exact(&part->c, i, cb, c->dtype, ob, o->dtype, n->dtype);
	osk_cacc_exact(&part->n, i, nb, n->dtype, ob, o->dtype, n->dtype);
	osk_digest_pair(part, i, cb, nb);
}

/* Tie-aware: index x[i] is right when inp at it equals values[i]. */
OSK_HD void
osk_index_side(struct osk_cacc *a, const struct osk_tensor *x,
    const struct osk_tensor *inp, int dim, const struct osk_tensor *values,
    uint64_t vb, int64_t i)
{
	uint64_t xb = osk_rawbits(x, osk_off(x, i)), gb;
	int64_t k = osk_ivalue(xb, x->dtype);
	int64_t size = inp->ndim > 0 ? inp->shape[dim] : 1;

	a->digest += osk_digest_term(i, xb);
	if (k < 0 || k >= size) {
		osk_bad(a, i);
		return;
	}
	gb = osk_rawbits(inp, osk_gather_off(inp, values, i, dim, k));
	osk_cacc_exact(a, i, gb, inp->dtype, vb, values->dtype, inp->dtype);
}

OSK_HD void
osk_compare_index_at(struct osk_cpart *part, const struct osk_tensor *c,
    const struct osk_tensor *n, const struct osk_tensor *inp, int dim,
    const struct osk_tensor *values, int64_t i)
{
	uint64_t vb = osk_rawbits(values, osk_off(values, i));

	osk_index_side(&part->c, c, inp, dim, values, vb, i);
	osk_index_side(&part->n, n, inp, dim, values, vb, i);
}

OSK_HD void
osk_figures_out(struct osk_figures *res, const struct osk_cpart *part,
    int64_t numel, int cdt, int ndt, int exact)
{
	res->R = part->R;
	res->oracle_max = part->omax;
	res->numel = numel;
	osk_side_out(&res->c, &part->c, numel, cdt, exact);
	osk_side_out(&res->n, &part->n, numel, ndt, exact);
}

/* The float figures' last touches: worst values of the fast path, digests. */
OSK_HD void
osk_float_out(struct osk_figures *res, const struct osk_tensor *c,
    const struct osk_tensor *n, const struct osk_tensor *o, int fast,
    int flags)
{
	if (fast) {
		osk_fill_worst(&res->c, c, o);
		osk_fill_worst(&res->n, n, o);
	}
	if (!(flags & OSK_CMP_DIGEST))
		res->c.digest = res->n.digest = 0;
}

#endif /* OSK_COMMON_H */
