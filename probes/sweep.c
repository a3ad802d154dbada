/*
 * Sweep generators: expand one catalog key into concrete CASE objects
 * (docs/protocol.md, without "id" and "name") for the probe classes
 * same_shape, broadcast, scalar, reduction, contract, empty and options
 * (with empty.c and options.c).  Every case is deterministic: its seed
 * comes from seed_case() (seed.c).
 */
#include <string.h>

#include "probes.h"
#include "case.h"
#include "schema.h"

/* The state of one (key, class, dtype) expansion. */
struct sweep {
	const struct catalog_entry	*ce;
	const char			*dtype;
	const char			*cls;
	int				 idx;	/* case index within class */
	json_t				*out;
	json_t				*cur;	/* case being built */
	int				 n;
	int				 err;
};

/* A tensor ARG of dtype (NULL: the case dtype); shape is stolen. */
static json_t *
sweep_t(struct sweep *s, json_t *shape, const char *dtype,
    enum catalog_domain dom)
{
	json_t	*t;

	if (dtype == NULL)
		dtype = s->dtype;
	if ((t = case_tensor(shape, dtype)) == NULL)
		return NULL;
	if (case_domain(t, dtype, &(struct domain){ dom, 0, 0, 0 }, s->idx,
	    0) != 0) {
		json_decref(t);
		return NULL;
	}
	return t;
}

/* A tensor of the case dtype in the entry's domain for operand i. */
static json_t *
sweep_op(struct sweep *s, json_t *shape, int i)
{
	return sweep_t(s, shape, NULL, s->ce->dom[i]);
}

/* An int64 index tensor with values in [0, high); high is never 0. */
static json_t *
sweep_index(json_t *shape, const char *dtype, int high)
{
	json_t	*t;

	if (dtype == NULL)
		dtype = "int64";
	if ((t = case_tensor(shape, dtype)) != NULL && case_domain(t, dtype,
	    &(struct domain){ 'i', 0, high, 0 }, 0, 0) != 0) {
		json_decref(t);
		t = NULL;
	}
	return t;
}

static json_t *
sweep_bool_t(json_t *shape)
{
	json_t	*t;

	if ((t = case_tensor(shape, "bool")) != NULL && case_domain(t, "bool",
	    &(struct domain){ 'b', 0, 0, 0 }, 0, 0) != 0) {
		json_decref(t);
		t = NULL;
	}
	return t;
}

/* Case assembly. */

static void
sweep_begin(struct sweep *s)
{
	s->cur = case_new(s->ce->key, s->cls, s->dtype, s->idx, s->ce->compare,
	    0);
	if (s->cur == NULL)
		s->err = 1;
}

static void
sweep_arg(struct sweep *s, json_t *a)
{
	if (a == NULL || json_array_append_new(json_object_get(s->cur,
	    "args"), a) == -1)
		s->err = 1;
}

static void
sweep_kw(struct sweep *s, const char *k, json_t *a)
{
	if (a == NULL || json_object_set_new(json_object_get(s->cur,
	    "kwargs"), k, a) == -1)
		s->err = 1;
}

static void
sweep_end(struct sweep *s)
{
	if (s->cur == NULL)
		return;
	if (json_array_append_new(s->out, s->cur) == -1)
		s->err = 1;
	s->cur = NULL;
	s->idx++;
	s->n++;
}

static void
sweep_class(struct sweep *s, enum probe_class c)
{
	s->cls = probe_class_name(c);
	s->idx = 0;
}

/* same_shape for ops whose tensor operands all have one shape */
static void
sweep_same_shape(struct sweep *s, int nops, json_t *(*extra)(struct sweep *))
{
	size_t	i;
	int	j;

	for (i = 0; i < shape_cat_same_n; i++) {
		sweep_begin(s);
		for (j = 0; j < nops; j++)
			sweep_arg(s, sweep_op(s, case_shape(&shape_cat_same[i]), j));
		if (extra != NULL)
			sweep_arg(s, extra(s));
		sweep_end(s);
	}
}

/*
 * The sizes an engine calls a fused entry point at (CAT_ENGINE): tokens per
 * call for decode (1, a batch of 16) and a prefill chunk (512), across the
 * width of a common model (Llama-3-8B: hidden 4096, MLP intermediate
 * 14336), so that what a list says (faster=, the verdict) holds where the
 * engine runs the op, not only at the probes' small shapes.
 */
static const int sweep_engine_tokens[] = { 1, 16, 512 };
#define SWEEP_ENGINE_HIDDEN	4096
#define SWEEP_ENGINE_MLP	14336

/*
 * Marks the case being built as one of an engine's sizes ("engine": true):
 * the daemon runs them on GPUs only (on the CPU a prefill-sized case took
 * past the 20 s case deadline of a loaded test run: docs/design.md, "Lists
 * that are also fast").
 */
static void
sweep_engine_mark(struct sweep *s)
{
	if (s->cur != NULL &&
	    json_object_set_new(s->cur, "engine", json_true()) != 0)
		s->err = 1;
}

static void
sweep_engine_pw(struct sweep *s, int nops)
{
	size_t	i;
	int	j;

	for (i = 0; i < sizeof(sweep_engine_tokens) /
	    sizeof(sweep_engine_tokens[0]); i++) {
		sweep_begin(s);
		for (j = 0; j < nops; j++)
			sweep_arg(s, sweep_op(s, case_dimsv(2,
			    sweep_engine_tokens[i], SWEEP_ENGINE_MLP), j));
		sweep_engine_mark(s);
		sweep_end(s);
	}
}

/*
 * 64-bit indexing (same_shape, GPU only): one bfloat16 case of 2^31 + 17
 * elements per operand.  Inputs are generated on the device by kernels/
 * ("gen": "philox"); the oracle runs on a sample of positions (every 65521st
 * and the last 4096, where an int32 index has wrapped), which is exact for
 * these elementwise same-shape ops.  The daemon drops "huge" cases on the CPU
 * and runs them on the compile runners, one at a time per runner, so that
 * screening runners never hold 16 GiB each.
 */
#define SWEEP_HUGE_N	((json_int_t)2147483648LL + 17)

static void
sweep_huge(struct sweep *s, int nops)
{
	json_t	*t;
	int	 i;

	if (strcmp(s->dtype, "bfloat16") != 0)
		return;
	sweep_begin(s);
	for (i = 0; i < nops; i++) {
		t = sweep_op(s, json_pack("[I]", SWEEP_HUGE_N), i);
		if (t != NULL)
			json_object_set_new(t, "gen", json_string("philox"));
		sweep_arg(s, t);
	}
	if (s->cur != NULL) {
		json_object_set_new(s->cur, "huge", json_true());
		json_object_set_new(s->cur, "sample", json_pack("{s:i,s:i}",
		    "every", 65521, "tail", 4096));
	}
	sweep_end(s);
}

/*
 * Data movement past 2^31 elements (GPU only, like sweep_huge): one case of
 * the family in the smallest dtype the entry sweeps (case_huge_dtype), an
 * input or the output just past 2^31 elements, made on the device by index
 * arithmetic and compared with native's output byte for byte (case_huge).
 * Inputs past 2^31 where the output is small (gather, index_select: the
 * indices reach past the int32 offsets), the output past 2^31 where
 * growing it is cheaper (stack, repeat_interleave).
 */
#define SWEEP_HALF	((1 << 30) + 8)		/* 2 x SWEEP_HALF > 2^31 */

static void
sweep_huge_move(struct sweep *s)
{
	const char	*d = case_huge_dtype(s->ce->dtypes);

	if (d == NULL || strcmp(s->dtype, d) != 0)
		return;
	sweep_begin(s);
	switch (s->ce->family) {
	case FAM_CAT:
		sweep_arg(s, case_tensors(json_pack("[o,o]",
		    sweep_op(s, json_pack("[I]", SWEEP_HUGE_N), 0),
		    sweep_op(s, case_dimsv(1, 4099), 0))));
		sweep_arg(s, case_int(0));
		break;
	case FAM_STACK:
		sweep_arg(s, case_tensors(json_pack("[o,o]",
		    sweep_op(s, case_dimsv(1, SWEEP_HALF), 0),
		    sweep_op(s, case_dimsv(1, SWEEP_HALF), 0))));
		sweep_arg(s, case_int(0));
		break;
	case FAM_GATHER:
		sweep_arg(s, sweep_op(s, case_dimsv(2, 2, SWEEP_HALF), 0));
		sweep_arg(s, case_int(1));
		sweep_arg(s, sweep_index(case_dimsv(2, 2, 4099), NULL,
		    SWEEP_HALF));
		break;
	case FAM_INDEX_SELECT:
		sweep_arg(s, sweep_op(s, case_dimsv(2, 2, SWEEP_HALF), 0));
		sweep_arg(s, case_int(1));
		sweep_arg(s, sweep_index(case_dimsv(1, 4099), NULL,
		    SWEEP_HALF));
		break;
	case FAM_REPEAT_INTERLEAVE:
		/* (2^27 + 2) x 16 = 2^31 + 32 */
		sweep_arg(s, sweep_op(s, case_dimsv(1, (1 << 27) + 2), 0));
		sweep_arg(s, case_int(16));
		sweep_arg(s, case_int(0));
		break;
	default:
		json_decref(s->cur);
		s->cur = NULL;
		return;
	}
	if (s->cur != NULL && case_huge(s->cur) != 0)
		s->err = 1;
	sweep_end(s);
}

static void
sweep_unary(struct sweep *s, unsigned classes)
{
	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		sweep_same_shape(s, 1, NULL);
		sweep_huge(s, 1);
	}
	if ((classes & PROBE_CONTRACT) && (s->ce->flags & CAT_GELU)) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_kw(s, "approximate", case_str("tanh"));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(1, 1023), 0));
		sweep_kw(s, "approximate", case_str("none"));
		sweep_end(s);
	}
}

static void
sweep_binary_pair(struct sweep *s, json_t *a, json_t *b)
{
	sweep_begin(s);
	sweep_arg(s, a);
	sweep_arg(s, b);
	sweep_end(s);
}

static void
sweep_binary(struct sweep *s, unsigned classes)
{
	const struct catalog_entry	*ce = s->ce;
	const char			*same, *other;
	size_t				 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		sweep_same_shape(s, 2, NULL);
		sweep_huge(s, 2);
		if (ce->flags & CAT_ENGINE)
			sweep_engine_pw(s, 2);
	}
	if (classes & PROBE_BROADCAST) {
		sweep_class(s, PROBE_BROADCAST);
		for (i = 0; i < shape_cat_bcast2_n; i++)
			sweep_binary_pair(s,
			    sweep_op(s, case_shape(&shape_cat_bcast2[i][0]), 0),
			    sweep_op(s, case_shape(&shape_cat_bcast2[i][1]), 1));
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		same = dtype_same_kind(s->dtype);
		other = dtype_other_kind(s->dtype, s->ce->flags & CAT_BITWISE);
		/* 0-d tensor on either side, then both */
		sweep_binary_pair(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_op(s, case_dimsv(0), 1));
		sweep_binary_pair(s, sweep_op(s, case_dimsv(0), 0),
		    sweep_op(s, case_dimsv(2, 4, 5), 1));
		sweep_binary_pair(s, sweep_op(s, case_dimsv(0), 0),
		    sweep_op(s, case_dimsv(0), 1));
		/*
		 * Promotion: a 0-d operand of the other kind (it wins a
		 * category change), a 0-d of the same kind (it must not
		 * widen the result), a dimensioned one of the same kind.
		 */
		sweep_binary_pair(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_t(s, case_dimsv(0), other, ce->dom[1]));
		sweep_binary_pair(s, sweep_t(s, case_dimsv(0), other, ce->dom[0]),
		    sweep_op(s, case_dimsv(2, 4, 5), 1));
		sweep_binary_pair(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_t(s, case_dimsv(0),
		    dtype_is_float(s->dtype) ? "float64" : same, ce->dom[1]));
		sweep_binary_pair(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_t(s, case_dimsv(1, 5), same, ce->dom[1]));
	}
	if ((classes & PROBE_CONTRACT) && (ce->flags & CAT_ALPHA) &&
	    dtype_bit(s->dtype) != DT_BOOL) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 1));
		sweep_kw(s, "alpha", case_int(2));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 4, 5), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(1, 5), 1));
		if (dtype_is_float(s->dtype))
			sweep_kw(s, "alpha", case_float(-0.5));
		else
			sweep_kw(s, "alpha", case_int(-3));
		sweep_end(s);
	}
	if ((classes & PROBE_CONTRACT) && (ce->flags & CAT_GELU)) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 1));
		sweep_kw(s, "approximate", case_str("tanh"));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(1, 1023), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(1, 1023), 1));
		sweep_kw(s, "approximate", case_str("none"));
		sweep_end(s);
	}
}

/* The Python scalars a Scalar overload is probed with, by flavour. */
static json_t *
sweep_scalar_value(const struct sweep *s, int i)
{
	unsigned	fl = s->ce->flags;
	int		isbool = dtype_bit(s->dtype) == DT_BOOL;

	if (fl & CAT_POW) {
		static const double pw[] = { 2, 3, 0, -1, 0.5, -1.5, 3.0 };

		if (i >= 7)
			return NULL;
		return i < 4 ? case_int((long long)pw[i]) : case_float(pw[i]);
	}
	if (fl & CAT_DIVISOR) {
		static const double dv[] = { 3, -7, 0.5, -2.5 };

		if (i >= 4)
			return NULL;
		return i < 2 ? case_int((long long)dv[i]) : case_float(dv[i]);
	}
	if (fl & CAT_BITWISE) {
		if (isbool) {
			if (i >= 3)
				return NULL;
			return i < 2 ? case_bool(i == 0) : case_int(1);
		}
		switch (i) {
		case 0:
			return case_int(90);
		case 1:
			return case_int(3);
		case 2:
			return case_bool(1);
		case 3:
			return dtype_bit(s->dtype) == DT_U8 ? case_int(15) :
			    case_int(-4);
		}
		return NULL;
	}
	/* comparisons */
	if (isbool) {
		switch (i) {
		case 0:
			return case_bool(1);
		case 1:
			return case_bool(0);
		case 2:
			return case_int(1);
		case 3:
			return case_float(0.5);
		}
		return NULL;
	}
	switch (i) {
	case 0:
		return case_int(1);
	case 1:
		return case_int(-2);
	case 2:
		return case_float(0.5);
	case 3:
		return case_float(2.0);
	}
	return NULL;
}

static json_t *
sweep_scalar_first(struct sweep *s)
{
	return sweep_scalar_value(s, 0);
}

static void
sweep_binary_scalar(struct sweep *s, unsigned classes)
{
	json_t	*v;
	int	 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		sweep_same_shape(s, 1, sweep_scalar_first);
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		for (i = 0; (v = sweep_scalar_value(s, i)) != NULL; i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
			sweep_arg(s, v);
			sweep_end(s);
		}
		/* 0-d self with an int and with a float scalar */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(0), 0));
		sweep_arg(s, sweep_scalar_value(s, 0));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(0), 0));
		sweep_arg(s, sweep_scalar_value(s, 2));
		sweep_end(s);
	}
}

static json_t *
sweep_clamp_lo(const struct sweep *s)
{
	return dtype_is_float(s->dtype) ? case_float(-0.5) : case_int(-30);
}

static json_t *
sweep_clamp_hi(const struct sweep *s)
{
	return dtype_is_float(s->dtype) ? case_float(0.75) : case_int(40);
}

static void
sweep_clamp(struct sweep *s, unsigned classes)
{
	size_t	i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < shape_cat_same_n; i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&shape_cat_same[i]), 0));
			sweep_arg(s, sweep_clamp_lo(s));
			sweep_arg(s, sweep_clamp_hi(s));
			sweep_end(s);
		}
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		/* scalars of the other kind than the tensor */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
		if (dtype_is_float(s->dtype)) {
			sweep_arg(s, case_int(-1));
			sweep_arg(s, case_int(1));
		} else {
			sweep_arg(s, case_float(-20.5));
			sweep_arg(s, case_float(30.25));
		}
		sweep_end(s);
		/* min > max: aten gives max everywhere */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
		sweep_arg(s, sweep_clamp_hi(s));
		sweep_arg(s, sweep_clamp_lo(s));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(0), 0));
		sweep_arg(s, sweep_clamp_lo(s));
		sweep_arg(s, sweep_clamp_hi(s));
		sweep_end(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		/* only min, max omitted entirely */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, sweep_clamp_lo(s));
		sweep_end(s);
		/* only max, min None positionally */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, case_none());
		sweep_arg(s, sweep_clamp_hi(s));
		sweep_end(s);
		/* only max, by keyword */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(1, 1023), 0));
		sweep_kw(s, "max", sweep_clamp_hi(s));
		sweep_end(s);
		/* only min, by keyword */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(1, 1023), 0));
		sweep_kw(s, "min", sweep_clamp_lo(s));
		sweep_end(s);
		/* both by keyword */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 7, 9), 0));
		sweep_kw(s, "min", sweep_clamp_lo(s));
		sweep_kw(s, "max", sweep_clamp_hi(s));
		sweep_end(s);
	}
}

static void
sweep_where_case(struct sweep *s, json_t *c, json_t *x, json_t *y)
{
	sweep_begin(s);
	sweep_arg(s, c);
	sweep_arg(s, x);
	sweep_arg(s, y);
	sweep_end(s);
}

static void
sweep_where(struct sweep *s, unsigned classes)
{
	const char	*same, *other;
	size_t		 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < shape_cat_same_n; i++)
			sweep_where_case(s,
			    sweep_bool_t(case_shape(&shape_cat_same[i])),
			    sweep_op(s, case_shape(&shape_cat_same[i]), 1),
			    sweep_op(s, case_shape(&shape_cat_same[i]), 2));
	}
	if (classes & PROBE_BROADCAST) {
		sweep_class(s, PROBE_BROADCAST);
		for (i = 0; i < shape_cat_bcast3_n; i++)
			sweep_where_case(s,
			    sweep_bool_t(case_shape(&shape_cat_bcast3[i][0])),
			    sweep_op(s, case_shape(&shape_cat_bcast3[i][1]), 1),
			    sweep_op(s, case_shape(&shape_cat_bcast3[i][2]), 2));
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		same = dtype_same_kind(s->dtype);
		other = dtype_other_kind(s->dtype, 0);
		sweep_where_case(s, sweep_bool_t(case_dimsv(0)),
		    sweep_op(s, case_dimsv(2, 4, 5), 1),
		    sweep_op(s, case_dimsv(2, 4, 5), 2));
		sweep_where_case(s, sweep_bool_t(case_dimsv(2, 4, 5)),
		    sweep_op(s, case_dimsv(0), 1),
		    sweep_op(s, case_dimsv(2, 4, 5), 2));
		sweep_where_case(s, sweep_bool_t(case_dimsv(2, 4, 5)),
		    sweep_op(s, case_dimsv(2, 4, 5), 1),
		    sweep_op(s, case_dimsv(0), 2));
		sweep_where_case(s, sweep_bool_t(case_dimsv(0)),
		    sweep_op(s, case_dimsv(0), 1),
		    sweep_op(s, case_dimsv(0), 2));
		/* promotion between self and other */
		sweep_where_case(s, sweep_bool_t(case_dimsv(2, 4, 5)),
		    sweep_op(s, case_dimsv(2, 4, 5), 1),
		    sweep_t(s, case_dimsv(0), other, DOM_NORMAL));
		sweep_where_case(s, sweep_bool_t(case_dimsv(2, 4, 5)),
		    sweep_t(s, case_dimsv(2, 4, 5), same, DOM_NORMAL),
		    sweep_op(s, case_dimsv(2, 4, 5), 2));
	}
}

static json_t *
sweep_fill_value(const struct sweep *s)
{
	if (dtype_bit(s->dtype) == DT_BOOL)
		return case_bool(1);
	if (dtype_is_float(s->dtype))
		return case_float(3.5);
	return case_int(7);
}

static void
sweep_masked_fill_case(struct sweep *s, json_t *self, json_t *mask, json_t *v)
{
	sweep_begin(s);
	sweep_arg(s, self);
	sweep_arg(s, mask);
	sweep_arg(s, v);
	sweep_end(s);
}

static void
sweep_masked_fill(struct sweep *s, unsigned classes)
{
	size_t	i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < shape_cat_same_n; i++)
			sweep_masked_fill_case(s,
			    sweep_op(s, case_shape(&shape_cat_same[i]), 0),
			    sweep_bool_t(case_shape(&shape_cat_same[i])),
			    sweep_fill_value(s));
	}
	if (classes & PROBE_BROADCAST) {
		/* out-of-place masked_fill broadcasts self against mask too */
		sweep_class(s, PROBE_BROADCAST);
		for (i = 0; i < shape_cat_bcast2_n; i++)
			sweep_masked_fill_case(s,
			    sweep_op(s, case_shape(&shape_cat_bcast2[i][0]), 0),
			    sweep_bool_t(case_shape(&shape_cat_bcast2[i][1])),
			    sweep_fill_value(s));
		sweep_masked_fill_case(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_bool_t(case_dimsv(1, 5)), sweep_fill_value(s));
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		if (dtype_bit(s->dtype) == DT_BOOL) {
			sweep_masked_fill_case(s,
			    sweep_op(s, case_dimsv(2, 5, 7), 0),
			    sweep_bool_t(case_dimsv(2, 5, 7)), case_bool(0));
		} else {
			sweep_masked_fill_case(s,
			    sweep_op(s, case_dimsv(2, 5, 7), 0),
			    sweep_bool_t(case_dimsv(2, 5, 7)), case_int(-2));
		}
		if (dtype_is_float(s->dtype))
			sweep_masked_fill_case(s,
			    sweep_op(s, case_dimsv(2, 5, 7), 0),
			    sweep_bool_t(case_dimsv(2, 5, 7)), case_float(-1.25));
		sweep_masked_fill_case(s, sweep_op(s, case_dimsv(0), 0),
		    sweep_bool_t(case_dimsv(2, 4, 5)), sweep_fill_value(s));
		sweep_masked_fill_case(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_bool_t(case_dimsv(0)), sweep_fill_value(s));
	}
}

/* The dtype= a reduction or scan is probed with: a widening for halves. */
static const char *
sweep_acc_dtype(const struct sweep *s)
{
	/* for integers, int32: narrower than aten's int64 default */
	return dtype_is_float(s->dtype) ? "float32" : "int32";
}

static void
sweep_reduce(struct sweep *s, unsigned classes)
{
	size_t	i;

	/*
	 * No empty input: the sum of nothing is 0 (a degenerate oracle on
	 * every reseed) and the mean of nothing is NaN.
	 */
	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < shape_cat_full_red_n; i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&shape_cat_full_red[i]), 0));
			sweep_end(s);
		}
	}
	if ((classes & PROBE_CONTRACT) && (s->ce->flags & CAT_DTYPE_KW)) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_kw(s, "dtype", case_dtype(sweep_acc_dtype(s)));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 4, 4096), 0));
		sweep_kw(s, "dtype", case_none());
		sweep_end(s);
	}
}

struct sweep_dimcase {
	struct shape	sh;
	int			nd;	/* -1: dim=None */
	int			d[3];
	int			keepdim;
};

static const struct sweep_dimcase sweep_dim_red[] = {
	{ { 3, { 3, 5, 7 } }, 1, { 0 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { 1 }, 1 },
	{ { 3, { 3, 5, 7 } }, 1, { 2 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { -1 }, 1 },
	{ { 3, { 3, 5, 7 } }, 1, { -2 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { -3 }, 1 },
	{ { 3, { 3, 5, 7 } }, 2, { 0, 2 }, 0 },
	{ { 3, { 3, 5, 7 } }, 2, { -1, 0 }, 1 },
	{ { 3, { 3, 5, 7 } }, 0, { 0 }, 0 },		/* dim=[]: full */
	{ { 3, { 3, 5, 7 } }, 3, { 0, 1, 2 }, 1 },
	{ { 2, { 8, 4096 } }, 1, { -1 }, 0 },
	{ { 2, { 4096, 8 } }, 1, { 0 }, 0 },
	{ { 3, { 3, 4096, 5 } }, 1, { 1 }, 1 },
	{ { 0, { 0 } }, 0, { 0 }, 0 },
};
#define NDIMRED	(sizeof(sweep_dim_red) / sizeof(sweep_dim_red[0]))

static json_t *
sweep_dimlist(int nd, const int *d)
{
	return case_ints(case_dims(d, nd));
}

static void
sweep_reduce_dim(struct sweep *s, unsigned classes)
{
	const struct sweep_dimcase	*dc;
	size_t				 i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NDIMRED; i++) {
			dc = &sweep_dim_red[i];
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&dc->sh), 0));
			sweep_arg(s, sweep_dimlist(dc->nd, dc->d));
			sweep_arg(s, case_bool(dc->keepdim));
			sweep_end(s);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		if (s->ce->flags & CAT_DIM_NONE) {
			/* dim=None, keepdim omitted */
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
			sweep_arg(s, case_none());
			sweep_end(s);
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(3, 3, 5, 7), 0));
			sweep_arg(s, case_none());
			sweep_arg(s, case_bool(1));
			sweep_end(s);
		} else {
			/* amax: dim and keepdim both defaulted */
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
			sweep_end(s);
		}
		/* keepdim by keyword, dim given positionally */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(3, 3, 5, 7), 0));
		sweep_arg(s, sweep_dimlist(1, (const int []){ 1 }));
		sweep_kw(s, "keepdim", case_bool(1));
		sweep_end(s);
		/* keepdim omitted */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(3, 3, 5, 7), 0));
		sweep_arg(s, sweep_dimlist(1, (const int []){ -1 }));
		sweep_end(s);
		if (s->ce->flags & CAT_DTYPE_KW) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(2, 8, 4096), 0));
			sweep_arg(s, sweep_dimlist(1, (const int []){ -1 }));
			sweep_kw(s, "dtype", case_dtype(sweep_acc_dtype(s)));
			sweep_end(s);
		}
	}
}

/* dim sweeps shared by cumsum, softmax: every dim, long rows, 0-d */
static const struct sweep_dimcase sweep_dim_each[] = {
	{ { 3, { 3, 5, 7 } }, 1, { 0 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { 1 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { 2 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { -1 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { -2 }, 0 },
	{ { 3, { 3, 5, 7 } }, 1, { -3 }, 0 },
	{ { 2, { 4, 4096 } }, 1, { -1 }, 0 },
	{ { 2, { 4096, 4 } }, 1, { 0 }, 0 },
	{ { 3, { 3, 4096, 3 } }, 1, { 1 }, 0 },
	{ { 1, { 1023 } }, 1, { 0 }, 0 },
	{ { 0, { 0 } }, 1, { 0 }, 0 },
	{ { 2, { 0, 5 } }, 1, { 1 }, 0 },
};
#define NDIMEACH	(sizeof(sweep_dim_each) / sizeof(sweep_dim_each[0]))

static void
sweep_scan(struct sweep *s, unsigned classes)
{
	size_t	i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NDIMEACH; i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s,
			    case_shape(&sweep_dim_each[i].sh), 0));
			sweep_arg(s, case_int(sweep_dim_each[i].d[0]));
			sweep_end(s);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 8, 1023), 0));
		sweep_arg(s, case_int(-1));
		sweep_kw(s, "dtype", case_dtype(sweep_acc_dtype(s)));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 8, 1023), 0));
		sweep_kw(s, "dim", case_int(1));
		sweep_end(s);
	}
}

static void
sweep_softmax(struct sweep *s, unsigned classes)
{
	size_t	i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NDIMEACH; i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s,
			    case_shape(&sweep_dim_each[i].sh), 0));
			sweep_arg(s, case_int(sweep_dim_each[i].d[0]));
			sweep_arg(s, case_bool(0));
			sweep_end(s);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 8, 1023), 0));
		sweep_kw(s, "dim", case_int(-1));
		sweep_kw(s, "half_to_float", case_bool(0));
		sweep_end(s);
		/*
		 * No half_to_float=True: the fp64 oracle cannot take it (aten
		 * allows it for float16 input only), so it could only ever be
		 * a harness error.
		 */
	}
}

struct sweep_sortcase {
	struct shape	sh;
	int			dim;
	int			flag;	/* descending / largest */
	int			ties;
	int			k;
};

static const struct sweep_sortcase sweep_sorts[] = {
	{ { 3, { 3, 5, 7 } }, 0, 0, 0, 2 },
	{ { 3, { 3, 5, 7 } }, 1, 1, 0, 2 },
	{ { 3, { 3, 5, 7 } }, 2, 0, 0, 2 },
	{ { 3, { 3, 5, 7 } }, -1, 1, 0, 2 },
	{ { 3, { 3, 5, 7 } }, -2, 0, 0, 2 },
	{ { 3, { 3, 5, 7 } }, -3, 1, 0, 2 },
	{ { 2, { 4, 4096 } }, -1, 0, 0, 8 },
	{ { 2, { 4, 4096 } }, -1, 1, 0, 100 },
	{ { 2, { 4096, 3 } }, 0, 1, 0, 5 },
	{ { 2, { 33, 65 } }, -1, 1, 1, 10 },
	{ { 1, { 1023 } }, 0, 0, 1, 1023 },
	{ { 1, { 1 } }, 0, 1, 0, 1 },
	{ { 2, { 5, 7 } }, -1, 1, 0, 0 },
};
#define NSORTS	(sizeof(sweep_sorts) / sizeof(sweep_sorts[0]))

static void
sweep_sort(struct sweep *s, unsigned classes)
{
	const struct sweep_sortcase	*sc;
	int				 stable = s->ce->flags & CAT_STABLE;
	size_t				 i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NSORTS; i++) {
			sc = &sweep_sorts[i];
			sweep_begin(s);
			sweep_arg(s, sweep_t(s, case_shape(&sc->sh), NULL,
			    sc->ties ? DOM_SMALLINT : s->ce->dom[0]));
			if (stable) {
				sweep_kw(s, "stable", case_bool(1));
				sweep_kw(s, "dim", case_int(sc->dim));
				sweep_kw(s, "descending", case_bool(sc->flag));
			} else {
				sweep_arg(s, case_int(sc->dim));
				sweep_arg(s, case_bool(sc->flag));
			}
			sweep_end(s);
		}
		/* 0-d and empty inputs */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(0), 0));
		if (stable)
			sweep_kw(s, "stable", case_bool(1));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 3, 0), 0));
		if (stable)
			sweep_kw(s, "stable", case_bool(0));
		sweep_end(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_t(s, case_dimsv(2, 33, 65), NULL,
		    DOM_SMALLINT));
		/* stable has no default: it may be None but not omitted */
		if (stable)
			sweep_kw(s, "stable", case_none());
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		if (stable)
			sweep_kw(s, "stable", case_bool(0));
		sweep_kw(s, "descending", case_bool(1));
		sweep_end(s);
	}
}

static void
sweep_topk(struct sweep *s, unsigned classes)
{
	const struct sweep_sortcase	*sc;
	size_t				 i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NSORTS; i++) {
			sc = &sweep_sorts[i];
			sweep_begin(s);
			sweep_arg(s, sweep_t(s, case_shape(&sc->sh), NULL,
			    sc->ties ? DOM_SMALLINT : s->ce->dom[0]));
			sweep_arg(s, case_int(sc->k));
			sweep_arg(s, case_int(sc->dim));
			sweep_arg(s, case_bool(!sc->flag));
			sweep_arg(s, case_bool(1));
			sweep_end(s);
		}
	}
	/*
	 * The compile ladder (issue 3): k is a constexpr of the library's
	 * kernel, so each step is a fresh compile; rows of 8192 take every k.
	 */
	if ((classes & PROBE_COMPILE) && dtype_is_float(s->dtype)) {
		static const int	 ks[] = { 8, 64, 512, 4096 };

		sweep_class(s, PROBE_COMPILE);
		for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_dimsv(2, 4, 8192), 0));
			sweep_arg(s, case_int(ks[i]));
			if (s->cur != NULL)
				json_object_set_new(s->cur, "ladder", json_pack(
				    "{s:s,s:i}", "param", "k", "value", ks[i]));
			sweep_end(s);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, case_int(4));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, case_int(4));
		sweep_kw(s, "largest", case_bool(0));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 65, 33), 0));
		sweep_arg(s, case_int(3));
		sweep_kw(s, "dim", case_int(0));
		sweep_kw(s, "sorted", case_bool(1));
		sweep_end(s);
	}
}

/* m x k x n */
static const int sweep_mm_sizes[][3] = {
	{ 1, 1, 1 }, { 7, 33, 5 }, { 64, 128, 32 }, { 257, 129, 65 },
	{ 0, 5, 3 }, { 5, 3, 0 },
};
#define NMM	(sizeof(sweep_mm_sizes) / sizeof(sweep_mm_sizes[0]))

/* long k, where accumulation in the storage dtype shows */
static const int sweep_mm_long[][3] = {
	{ 16, 4096, 16 }, { 1, 4096, 1 }, { 3, 4097, 5 },
};
#define NMMLONG	(sizeof(sweep_mm_long) / sizeof(sweep_mm_long[0]))

static void
sweep_mm_case(struct sweep *s, int b, const int *mkn)
{
	sweep_begin(s);
	if (b < 0) {
		sweep_arg(s, sweep_op(s, case_dimsv(2, mkn[0], mkn[1]), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(2, mkn[1], mkn[2]), 1));
	} else {
		sweep_arg(s, sweep_op(s, case_dimsv(3, b, mkn[0], mkn[1]), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(3, b, mkn[1], mkn[2]), 1));
	}
	sweep_end(s);
}

static void	sweep_addmm_case(struct sweep *, json_t *, const int *);

/* Sets the layout of the tensor arg at position i of the case being built. */
static void
sweep_layout(struct sweep *s, size_t i, const char *layout)
{
	json_t	*a = s->cur ? json_array_get(json_object_get(s->cur, "args"), i) :
	    NULL;

	if (a != NULL)
		json_object_set_new(a, "layout", json_string(layout));
}

/*
 * noncontig for the matmul family: column-major (transposed) operands, a
 * row-strided (sliced) one, and both column-major: the layouts a model's
 * weights and activations arrive in (w.t(), views into larger buffers).
 */
static void
sweep_mm_noncontig(struct sweep *s, int addmm, int batched)
{
	static const struct {
		const char	*a, *b;
	} lay[] = {
		{ "contiguous", "transposed" }, { "transposed", "contiguous" },
		{ "transposed", "transposed" }, { "sliced", "contiguous" },
	};
	const int	*m = sweep_mm_sizes[2];
	size_t		 i, off = addmm ? 1 : 0;

	sweep_class(s, PROBE_NONCONTIG);
	for (i = 0; i < sizeof(lay) / sizeof(lay[0]); i++) {
		if (addmm) {
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]),
			    0), m);
		} else {
			sweep_begin(s);
			if (batched) {
				sweep_arg(s, sweep_op(s, case_dimsv(3, 2, m[0],
				    m[1]), 0));
				sweep_arg(s, sweep_op(s, case_dimsv(3, 2, m[1],
				    m[2]), 1));
			} else {
				sweep_arg(s, sweep_op(s, case_dimsv(2, m[0], m[1]),
				    0));
				sweep_arg(s, sweep_op(s, case_dimsv(2, m[1], m[2]),
				    1));
			}
		}
		sweep_layout(s, off, lay[i].a);
		sweep_layout(s, off + 1, lay[i].b);
		sweep_end(s);
	}
}

static void
sweep_mm(struct sweep *s, unsigned classes, int batched)
{
	static const int	bs[] = { 1, 3, 2, 2, 2, 1 };
	size_t			i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NMM; i++)
			sweep_mm_case(s, batched ? bs[i] : -1, sweep_mm_sizes[i]);
		if (batched)
			sweep_mm_case(s, 0, sweep_mm_sizes[1]);
	}
	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NMMLONG; i++)
			sweep_mm_case(s, batched ? 2 : -1, sweep_mm_long[i]);
	}
	if (classes & PROBE_NONCONTIG)
		sweep_mm_noncontig(s, 0, batched);
}

static void
sweep_addmm_case(struct sweep *s, json_t *self, const int *mkn)
{
	sweep_begin(s);
	sweep_arg(s, self);
	sweep_arg(s, sweep_op(s, case_dimsv(2, mkn[0], mkn[1]), 1));
	sweep_arg(s, sweep_op(s, case_dimsv(2, mkn[1], mkn[2]), 2));
}

static void
sweep_addmm(struct sweep *s, unsigned classes)
{
	const int	*m;
	size_t		 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NMM; i++) {
			m = sweep_mm_sizes[i];
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]),
			    0), m);
			sweep_end(s);
		}
	}
	if (classes & PROBE_BROADCAST) {
		sweep_class(s, PROBE_BROADCAST);
		for (i = 1; i < 3; i++) {
			m = sweep_mm_sizes[i];
			sweep_addmm_case(s, sweep_op(s, case_dimsv(1, m[2]), 0), m);
			sweep_end(s);
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, 1, m[2]),
			    0), m);
			sweep_end(s);
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], 1),
			    0), m);
			sweep_end(s);
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, 1, 1), 0),
			    m);
			sweep_end(s);
		}
	}
	if (classes & PROBE_SCALAR) {
		sweep_class(s, PROBE_SCALAR);
		m = sweep_mm_sizes[1];
		sweep_addmm_case(s, sweep_op(s, case_dimsv(0), 0), m);
		sweep_end(s);
		sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]), 0), m);
		sweep_kw(s, "beta", case_int(2));
		sweep_kw(s, "alpha", case_int(-1));
		sweep_end(s);
	}
	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NMMLONG; i++) {
			m = sweep_mm_long[i];
			sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]),
			    0), m);
			sweep_end(s);
		}
	}
	if (classes & PROBE_NONCONTIG)
		sweep_mm_noncontig(s, 1, 0);
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		m = sweep_mm_sizes[2];
		sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]), 0), m);
		sweep_kw(s, "beta", case_float(0.5));
		sweep_kw(s, "alpha", case_float(2.0));
		sweep_end(s);
		sweep_addmm_case(s, sweep_op(s, case_dimsv(2, m[0], m[2]), 0), m);
		sweep_kw(s, "beta", case_float(-1.5));
		sweep_end(s);
		sweep_addmm_case(s, sweep_op(s, case_dimsv(1, m[2]), 0), m);
		sweep_kw(s, "alpha", case_float(0.25));
		sweep_end(s);
	}
}

/* (input shape, number of trailing normalized dims) */
static const struct sweep_dimcase sweep_norms[] = {
	{ { 2, { 4, 33 } }, 1, { 0 }, 0 },
	{ { 3, { 2, 7, 64 } }, 1, { 0 }, 0 },
	{ { 3, { 2, 5, 6 } }, 2, { 0 }, 0 },
	{ { 2, { 3, 4096 } }, 1, { 0 }, 0 },
	{ { 1, { 4097 } }, 1, { 0 }, 0 },
	{ { 2, { 5, 3 } }, 1, { 0 }, 0 },
	{ { 2, { 0, 8 } }, 1, { 0 }, 0 },
};
#define NNORMS	(sizeof(sweep_norms) / sizeof(sweep_norms[0]))

static json_t *
sweep_norm_shape(const struct sweep_dimcase *nc)
{
	struct shape	tail;
	int			i;

	tail.nd = nc->nd;
	for (i = 0; i < nc->nd; i++)
		tail.d[i] = nc->sh.d[nc->sh.nd - nc->nd + i];
	return case_shape(&tail);
}

/* Every argument positionally: input, normalized_shape, weight, (bias,) eps */
static void
sweep_norm_case(struct sweep *s, const struct sweep_dimcase *nc, int layer)
{
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 1));
	if (layer)
		sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 2));
	sweep_arg(s, case_float(layer ? 1e-5 : 1e-6));
	sweep_end(s);
}

static void
sweep_norm(struct sweep *s, unsigned classes, int layer)
{
	const struct sweep_dimcase	*nc;
	size_t				 i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NNORMS; i++)
			sweep_norm_case(s, &sweep_norms[i], layer);
	}
	if (!(classes & PROBE_CONTRACT))
		return;
	sweep_class(s, PROBE_CONTRACT);
	nc = &sweep_norms[1];
	/* every optional argument omitted */
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_end(s);
	/* weight only */
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 1));
	sweep_end(s);
	/* eps by keyword, weight omitted */
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_kw(s, "eps", case_float(1e-3));
	sweep_end(s);
	if (!layer) {
		/* eps=None explicitly: aten uses the dtype's epsilon */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
		sweep_arg(s, case_ints(sweep_norm_shape(nc)));
		sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 1));
		sweep_arg(s, case_none());
		sweep_end(s);
		return;
	}
	/* bias without weight */
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_arg(s, case_none());
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 2));
	sweep_end(s);
	/* every argument given, cudnn_enable=False */
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 1));
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 2));
	sweep_arg(s, case_float(1e-5));
	sweep_arg(s, case_bool(0));
	sweep_end(s);
}

/*
 * A residual add fused into an RMS norm (an engine's fused_add_rms_norm):
 * x, residual (both written), normalized_shape, weight, eps; every shape of
 * the norms, then eps by its default.
 */
static void
sweep_add_norm_case(struct sweep *s, const struct sweep_dimcase *nc, int eps,
    const char *layout, int engine)
{
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
	sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 1));
	if (layout != NULL) {
		sweep_layout(s, 0, layout);
		sweep_layout(s, 1, layout);
	}
	sweep_arg(s, case_ints(sweep_norm_shape(nc)));
	sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 2));
	if (s->ce->flags & CAT_BIAS)
		sweep_arg(s, sweep_op(s, sweep_norm_shape(nc), 2));
	if (eps)
		sweep_arg(s, case_float(1e-6));
	if (engine)
		sweep_engine_mark(s);
	sweep_end(s);
}

/*
 * An MoE layer's sum over its top-k experts' outputs into a buffer:
 * input [tokens, k, hidden], output [tokens, hidden] (written).
 */
static const int sweep_moe[][3] = {
	{ 3, 2, 64 }, { 7, 8, 128 }, { 5, 1, 33 }, { 2, 4, 4097 },
	{ 1, 8, 4096 }, { 16, 8, 4096 }, { 512, 2, 4096 }	/* engine sizes */
};

/*
 * Rotary position embedding on q and k (grouped-query: 8 query heads, 2 key
 * heads) of head dim d, cos and sin tables of `seq` positions by d / 2, a
 * position per token; the engine sizes (1, 16, 512 tokens at Llama-3-8B's
 * head dim 128, 4096 positions) with CAT_ENGINE.
 */
static const int sweep_ropes[][3] = {	/* tokens, head dim, positions */
	{ 7, 64, 64 }, { 3, 128, 33 }, { 16, 32, 16 },
	{ 1, 128, 4096 }, { 16, 128, 4096 }, { 512, 128, 4096 }
};

static void
sweep_rope_case(struct sweep *s, const int *r, int interleaved, int engine)
{
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_dimsv(3, r[0], 8, r[1]), 0));
	sweep_arg(s, sweep_op(s, case_dimsv(3, r[0], 2, r[1]), 1));
	sweep_arg(s, sweep_op(s, case_dimsv(2, r[2], r[1] / 2), 2));
	sweep_arg(s, sweep_op(s, case_dimsv(2, r[2], r[1] / 2), 2));
	sweep_arg(s, sweep_index(case_dimsv(1, r[0]), "int64", r[2]));
	if (interleaved)
		sweep_kw(s, "rotary_interleaved", case_bool(1));
	if (engine)
		sweep_engine_mark(s);
	sweep_end(s);
}

static void
sweep_rope(struct sweep *s, unsigned classes)
{
	size_t	i, n = sizeof(sweep_ropes) / sizeof(sweep_ropes[0]);

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < n; i++) {
			if (i >= 3 && !(s->ce->flags & CAT_ENGINE))
				break;
			sweep_rope_case(s, sweep_ropes[i], 0, i >= 3);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		/* GPT-J's interleaved pairs */
		sweep_rope_case(s, sweep_ropes[0], 1, 0);
		/* no position ids: q, k (batch, seq, heads, dim), positions 0.. */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(4, 2, 5, 8, 64), 0));
		sweep_arg(s, sweep_op(s, case_dimsv(4, 2, 5, 2, 64), 1));
		sweep_arg(s, sweep_op(s, case_dimsv(2, 64, 32), 2));
		sweep_arg(s, sweep_op(s, case_dimsv(2, 64, 32), 2));
		sweep_end(s);
	}
}

static void
sweep_moe_case(struct sweep *s, const int *tkh, const char *layout, int engine)
{
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_dimsv(3, tkh[0], tkh[1], tkh[2]), 0));
	if (layout != NULL)
		sweep_layout(s, 0, layout);
	sweep_arg(s, sweep_op(s, case_dimsv(2, tkh[0], tkh[2]), 1));
	if (engine)
		sweep_engine_mark(s);
	sweep_end(s);
}

static void
sweep_moe_sum(struct sweep *s, unsigned classes)
{
	size_t	i, n = sizeof(sweep_moe) / sizeof(sweep_moe[0]);

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < n; i++) {
			if (i >= 4 && !(s->ce->flags & CAT_ENGINE))
				break;
			sweep_moe_case(s, sweep_moe[i], NULL, i >= 4);
		}
	}
	/* the experts' outputs interleaved: the hidden dim strided */
	if (classes & PROBE_NONCONTIG) {
		sweep_class(s, PROBE_NONCONTIG);
		sweep_moe_case(s, sweep_moe[1], "transposed", 0);
		sweep_moe_case(s, sweep_moe[3], "transposed", 0);
	}
}

/*
 * MoE routing (fused::topk_softmax): T tokens' gating logits over E experts,
 * the top k of their softmax. E up to 128 takes the library's many-rows
 * path, above it one row per program (FlagGems 5.0.2); small integers make
 * ties, where any of the tied experts is right. The engine sizes: 1, 16
 * and 512 tokens over DeepSeek-V3's 256 experts, top 8.
 */
static const int sweep_routes[][3] = {	/* tokens, experts, k */
	{ 7, 8, 2 }, { 33, 64, 6 }, { 5, 128, 8 }, { 3, 256, 8 }, { 4, 160, 1 },
	{ 1, 256, 8 }, { 16, 256, 8 }, { 512, 256, 8 }	/* engine sizes */
};

static void
sweep_route_case(struct sweep *s, const int *r, int renorm, int ties,
    const char *layout, int engine)
{
	sweep_begin(s);
	sweep_arg(s, sweep_t(s, case_dimsv(2, r[0], r[1]), NULL,
	    ties ? DOM_SMALLINT : s->ce->dom[0]));
	if (layout != NULL)
		sweep_layout(s, 0, layout);
	sweep_arg(s, case_int(r[2]));
	if (renorm)
		sweep_kw(s, "renormalize", case_bool(1));
	if (engine)
		sweep_engine_mark(s);
	sweep_end(s);
}

static void
sweep_topk_softmax(struct sweep *s, unsigned classes)
{
	size_t	i, n = sizeof(sweep_routes) / sizeof(sweep_routes[0]);

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < n; i++) {
			if (i >= 5 && !(s->ce->flags & CAT_ENGINE))
				break;
			sweep_route_case(s, sweep_routes[i], 0, 0, NULL, i >= 5);
		}
		sweep_route_case(s, sweep_routes[1], 1, 0, NULL, 0);
		sweep_route_case(s, sweep_routes[3], 1, 0, NULL, 0);
		sweep_route_case(s, sweep_routes[1], 0, 1, NULL, 0);
		sweep_route_case(s, sweep_routes[3], 1, 1, NULL, 0);
	}
	/* the logits a view of a larger buffer: rows strided */
	if (classes & PROBE_NONCONTIG) {
		sweep_class(s, PROBE_NONCONTIG);
		sweep_route_case(s, sweep_routes[0], 0, 0, "transposed", 0);
		sweep_route_case(s, sweep_routes[2], 1, 0, "transposed", 0);
	}
}

static void
sweep_add_norm(struct sweep *s, unsigned classes)
{
	size_t	i;

	if (classes & PROBE_REDUCTION) {
		sweep_class(s, PROBE_REDUCTION);
		for (i = 0; i < NNORMS; i++)
			sweep_add_norm_case(s, &sweep_norms[i], 1, NULL, 0);
		/* an engine's decode and prefill sizes (CAT_ENGINE) */
		for (i = 0; (s->ce->flags & CAT_ENGINE) && i <
		    sizeof(sweep_engine_tokens) / sizeof(sweep_engine_tokens[0]);
		    i++) {
			struct sweep_dimcase	 nc = { { 2, {
			    sweep_engine_tokens[i], SWEEP_ENGINE_HIDDEN } }, 1,
			    { 0 }, 0 };

			sweep_add_norm_case(s, &nc, 1, NULL, 1);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_add_norm_case(s, &sweep_norms[1], 0, NULL, 0);
	}
	/*
	 * x and residual strided (an engine's views into a larger buffer): an
	 * in-place kernel must write the caller's tensors, not copies of them
	 */
	if (classes & PROBE_NONCONTIG) {
		sweep_class(s, PROBE_NONCONTIG);
		sweep_add_norm_case(s, &sweep_norms[1], 1, "transposed", 0);
	}
}

/* native_layer_norm: the optional tensors are positional, None when absent. */
static void
sweep_native_layer_norm(struct sweep *s, unsigned classes)
{
	const struct sweep_dimcase	*nc;
	int				 w, b;

	/* layer_norm's reduction cases already pass every argument positionally */
	sweep_norm(s, classes & PROBE_REDUCTION, 1);
	if (!(classes & PROBE_CONTRACT))
		return;
	sweep_class(s, PROBE_CONTRACT);
	nc = &sweep_norms[1];
	for (w = 0; w < 2; w++)
		for (b = 0; b < 2; b++) {
			if (w && b)
				continue;	/* the reduction class has it */
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&nc->sh), 0));
			sweep_arg(s, case_ints(sweep_norm_shape(nc)));
			sweep_arg(s, w ? sweep_op(s, sweep_norm_shape(nc), 1) :
			    case_none());
			sweep_arg(s, b ? sweep_op(s, sweep_norm_shape(nc), 2) :
			    case_none());
			sweep_arg(s, case_float(1e-3));
			sweep_end(s);
		}
}

/* (self shape, dim, index shape) */
struct sweep_gathercase {
	struct shape	self;
	int			dim;
	struct shape	index;
};

static const struct sweep_gathercase sweep_gathers[] = {
	{ { 3, { 5, 7, 9 } }, 0, { 3, { 3, 7, 9 } } },
	{ { 3, { 5, 7, 9 } }, 1, { 3, { 5, 4, 9 } } },
	{ { 3, { 5, 7, 9 } }, 2, { 3, { 5, 7, 20 } } },
	{ { 3, { 5, 7, 9 } }, -1, { 3, { 2, 3, 4 } } },
	{ { 3, { 5, 7, 9 } }, -3, { 3, { 1, 1, 1 } } },
	{ { 1, { 4097 } }, 0, { 1, { 1023 } } },
	{ { 0, { 0 } }, 0, { 0, { 0 } } },
	{ { 3, { 5, 7, 9 } }, 0, { 3, { 0, 7, 9 } } },
	{ { 2, { 33, 1023 } }, 1, { 2, { 33, 64 } } },
};
#define NGATHERS	(sizeof(sweep_gathers) / sizeof(sweep_gathers[0]))

static void
sweep_gather(struct sweep *s, unsigned classes)
{
	const struct sweep_gathercase	*g;
	size_t				 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NGATHERS; i++) {
			g = &sweep_gathers[i];
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&g->self), 0));
			sweep_arg(s, case_int(g->dim));
			sweep_arg(s, sweep_index(case_shape(&g->index), NULL,
			    shape_dim_size(&g->self, g->dim)));
			sweep_end(s);
		}
		sweep_huge_move(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, case_int(1));
		sweep_arg(s, sweep_index(case_dimsv(2, 33, 65), NULL, 65));
		sweep_kw(s, "sparse_grad", case_bool(0));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_kw(s, "dim", case_int(0));
		sweep_kw(s, "index", sweep_index(case_dimsv(2, 40, 65), NULL,
		    33));
		sweep_end(s);
	}
}

static const struct sweep_gathercase sweep_selects[] = {
	{ { 3, { 5, 7, 9 } }, 0, { 1, { 4 } } },
	{ { 3, { 5, 7, 9 } }, 1, { 1, { 20 } } },
	{ { 3, { 5, 7, 9 } }, 2, { 1, { 3 } } },
	{ { 3, { 5, 7, 9 } }, -1, { 1, { 9 } } },
	{ { 3, { 5, 7, 9 } }, -2, { 1, { 1 } } },
	{ { 1, { 4097 } }, 0, { 1, { 1023 } } },
	{ { 2, { 33, 65 } }, 0, { 0, { 0 } } },
	{ { 0, { 0 } }, 0, { 1, { 1 } } },
	{ { 3, { 5, 7, 9 } }, 1, { 1, { 0 } } },
};
#define NSELECTS	(sizeof(sweep_selects) / sizeof(sweep_selects[0]))

static void
sweep_index_select(struct sweep *s, unsigned classes)
{
	const struct sweep_gathercase	*g;
	size_t				 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NSELECTS; i++) {
			g = &sweep_selects[i];
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&g->self), 0));
			sweep_arg(s, case_int(g->dim));
			sweep_arg(s, sweep_index(case_shape(&g->index), NULL,
			    shape_dim_size(&g->self, g->dim)));
			sweep_end(s);
		}
		sweep_huge_move(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		/* aten takes an int32 index as well */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_arg(s, case_int(1));
		sweep_arg(s, sweep_index(case_dimsv(1, 17), "int32", 65));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 33, 65), 0));
		sweep_kw(s, "dim", case_int(0));
		sweep_kw(s, "index", sweep_index(case_dimsv(1, 40), NULL, 33));
		sweep_end(s);
	}
}

/* A tensors ARG of n tensors of the case dtype, shapes from sh. */
static json_t *
sweep_list(struct sweep *s, int n, const struct shape *sh, int same)
{
	json_t	*l;
	int	 i;

	if ((l = json_array()) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		json_array_append_new(l, sweep_op(s,
		    case_shape(same ? &sh[0] : &sh[i]), 0));
	return case_tensors(l);
}

struct sweep_catcase {
	int			n;
	struct shape	sh[3];
	int			dim;
};

static const struct sweep_catcase sweep_cats[] = {
	{ 3, { { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } } }, 0 },
	{ 3, { { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } } }, 1 },
	{ 3, { { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } } }, 2 },
	{ 3, { { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } }, { 3, { 3, 5, 7 } } }, -1 },
	{ 3, { { 2, { 2, 5 } }, { 2, { 3, 5 } }, { 2, { 1, 5 } } }, 0 },
	{ 3, { { 2, { 4, 1 } }, { 2, { 4, 7 } }, { 2, { 4, 33 } } }, -1 },
	{ 1, { { 1, { 7 } } }, 0 },
	{ 2, { { 2, { 0, 5 } }, { 2, { 3, 5 } } }, 0 },
	{ 2, { { 1, { 4097 } }, { 1, { 1023 } } }, 0 },
	{ 2, { { 4, { 2, 3, 4, 5 } }, { 4, { 2, 3, 1, 5 } } }, 2 },
};
#define NCATS	(sizeof(sweep_cats) / sizeof(sweep_cats[0]))

static void
sweep_cat(struct sweep *s, unsigned classes)
{
	const struct sweep_catcase	*c;
	json_t				*l;
	size_t				 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NCATS; i++) {
			c = &sweep_cats[i];
			sweep_begin(s);
			sweep_arg(s, sweep_list(s, c->n, c->sh, 0));
			sweep_arg(s, case_int(c->dim));
			sweep_end(s);
		}
		sweep_huge_move(s);
	}
	if (classes & PROBE_SCALAR) {
		/* mixed dtypes promote */
		sweep_class(s, PROBE_SCALAR);
		sweep_begin(s);
		l = json_array();
		json_array_append_new(l, sweep_op(s, case_dimsv(2, 3, 5), 0));
		json_array_append_new(l, sweep_t(s, case_dimsv(2, 2, 5),
		    dtype_same_kind(s->dtype), DOM_NORMAL));
		sweep_arg(s, case_tensors(l));
		sweep_arg(s, case_int(0));
		sweep_end(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_list(s, 2, sweep_cats[0].sh, 1));
		sweep_end(s);
		/* the documented legacy case: 1-D empty tensors are skipped */
		sweep_begin(s);
		sweep_arg(s, sweep_list(s, 2, (const struct shape []){
		    { 1, { 0 } }, { 2, { 3, 5 } } }, 0));
		sweep_arg(s, case_int(1));
		sweep_end(s);
	}
}

static const struct sweep_catcase sweep_stacks[] = {
	{ 3, { { 2, { 3, 5 } } }, 0 },
	{ 3, { { 2, { 3, 5 } } }, 1 },
	{ 3, { { 2, { 3, 5 } } }, 2 },
	{ 3, { { 2, { 3, 5 } } }, -1 },
	{ 3, { { 2, { 3, 5 } } }, -3 },
	{ 3, { { 0, { 0 } } }, 0 },
	{ 2, { { 1, { 1023 } } }, -1 },
	{ 1, { { 1, { 7 } } }, 0 },
	{ 2, { { 2, { 0, 5 } } }, 1 },
	{ 2, { { 4, { 2, 3, 1, 5 } } }, 4 },
};
#define NSTACKS	(sizeof(sweep_stacks) / sizeof(sweep_stacks[0]))

static void
sweep_stack(struct sweep *s, unsigned classes)
{
	const struct sweep_catcase	*c;
	size_t				 i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < NSTACKS; i++) {
			c = &sweep_stacks[i];
			sweep_begin(s);
			sweep_arg(s, sweep_list(s, c->n, c->sh, 1));
			sweep_arg(s, case_int(c->dim));
			sweep_end(s);
		}
		sweep_huge_move(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_list(s, 2, sweep_stacks[0].sh, 1));
		sweep_end(s);
	}
}

static void
sweep_nonzero(struct sweep *s, unsigned classes)
{
	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		sweep_same_shape(s, 1, NULL);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(4, 2, 3, 4, 5), 0));
		sweep_end(s);
	}
}

static void
sweep_bincount(struct sweep *s, unsigned classes)
{
	static const int	sz[][2] = {
		{ 1000, 10 }, { 4097, 100 }, { 1, 1 }, { 7, 3 }, { 0, 1 },
	};
	size_t			i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_index(case_dimsv(1, sz[i][0]),
			    s->dtype, sz[i][1]));
			sweep_end(s);
		}
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		/* minlength above the largest value, by keyword */
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 100), s->dtype, 10));
		sweep_kw(s, "minlength", case_int(20));
		sweep_end(s);
		/* weights None positionally, minlength positionally */
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 100), s->dtype, 10));
		sweep_arg(s, case_none());
		sweep_arg(s, case_int(5));
		sweep_end(s);
		/* float weights: the output takes a floating dtype */
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 1000), s->dtype, 10));
		sweep_arg(s, sweep_t(s, case_dimsv(1, 1000), "float32",
		    DOM_POSITIVE));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 33), s->dtype, 7));
		sweep_kw(s, "weights", sweep_t(s, case_dimsv(1, 33), "float64",
		    DOM_NORMAL));
		sweep_end(s);
		/* empty input with minlength: minlength zeros */
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 0), s->dtype, 1));
		sweep_kw(s, "minlength", case_int(5));
		sweep_end(s);
	}
}

static void
sweep_repeat_interleave(struct sweep *s, unsigned classes)
{
	static const struct {
		struct shape	sh;
		int			r;
		int			dim;	/* 99: omitted */
	} ri[] = {
		{ { 2, { 5, 7 } }, 3, 99 },
		{ { 2, { 5, 7 } }, 3, 0 },
		{ { 2, { 5, 7 } }, 2, 1 },
		{ { 3, { 3, 5, 7 } }, 4, -1 },
		{ { 2, { 5, 7 } }, 1, 0 },
		{ { 2, { 5, 7 } }, 0, 1 },
		{ { 0, { 0 } }, 4, 99 },
		{ { 2, { 0, 5 } }, 2, 0 },
		{ { 1, { 4097 } }, 2, 0 },
	};
	size_t	i;

	if (classes & PROBE_SAME_SHAPE) {
		sweep_class(s, PROBE_SAME_SHAPE);
		for (i = 0; i < sizeof(ri) / sizeof(ri[0]); i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&ri[i].sh), 0));
			sweep_arg(s, case_int(ri[i].r));
			if (ri[i].dim != 99)
				sweep_arg(s, case_int(ri[i].dim));
			sweep_end(s);
		}
		sweep_huge_move(s);
	}
	if (classes & PROBE_CONTRACT) {
		sweep_class(s, PROBE_CONTRACT);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
		sweep_arg(s, case_int(3));
		sweep_arg(s, case_int(0));
		sweep_kw(s, "output_size", case_int(15));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
		sweep_arg(s, case_int(2));
		sweep_arg(s, case_none());
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 5, 7), 0));
		sweep_arg(s, case_int(2));
		sweep_kw(s, "dim", case_int(1));
		sweep_end(s);
	}
}

/*
 * dtype_exotic for the data-movement families: values are moved, not
 * computed, so every dtype aten moves must come through bit for bit (fp8
 * e4m3fn/e5m2, e8m0fnu, int8, uint8, bool, complex64), whatever the dtypes
 * the op computes in.  A dtype native cannot move either is not applicable.
 */
static const unsigned	sweep_exotic_dtypes[] = {
	DT_F8E4M3, DT_F8E5M2, DT_E8M0, DT_I8, DT_U8, DT_BOOL, DT_C64
};

/* e8m0 holds powers of two only: case_domain() gives it "positive" */
static json_t *
sweep_xt(const char *dtype, json_t *shape)
{
	json_t	*t;

	if ((t = case_tensor(shape, dtype)) != NULL && case_domain(t, dtype,
	    &(struct domain){ DOM_NORMAL, 0, 0, 0 }, 0, 0) != 0) {
		json_decref(t);
		t = NULL;
	}
	return t;
}

static int
sweep_is_mover(enum catalog_family f)
{
	return f == FAM_CAT || f == FAM_STACK || f == FAM_GATHER ||
	    f == FAM_INDEX_SELECT || f == FAM_WHERE || f == FAM_MASKED_FILL;
}

/* One or two cases of a data-movement family in the exotic s->dtype. */
static void
sweep_exotic(struct sweep *s)
{
	const char	*d = s->dtype;

	sweep_class(s, PROBE_DTYPE_EXOTIC);
	sweep_begin(s);
	switch (s->ce->family) {
	case FAM_CAT:
	case FAM_STACK:
		sweep_arg(s, case_tensors(json_pack("[o,o]",
		    sweep_xt(d, case_dimsv(2, 3, 5)),
		    sweep_xt(d, s->ce->family == FAM_CAT ? case_dimsv(2, 2, 5) :
		    case_dimsv(2, 3, 5)))));
		sweep_arg(s, case_int(s->ce->family == FAM_CAT ? 0 : 1));
		break;
	case FAM_GATHER:
		sweep_arg(s, sweep_xt(d, case_dimsv(2, 4, 6)));
		sweep_arg(s, case_int(1));
		sweep_arg(s, sweep_index(case_dimsv(2, 4, 3), NULL, 6));
		break;
	case FAM_INDEX_SELECT:
		sweep_arg(s, sweep_xt(d, case_dimsv(2, 5, 7)));
		sweep_arg(s, case_int(0));
		sweep_arg(s, sweep_index(case_dimsv(1, 4), NULL, 5));
		break;
	case FAM_WHERE:
		sweep_arg(s, sweep_bool_t(case_dimsv(2, 4, 5)));
		sweep_arg(s, sweep_xt(d, case_dimsv(2, 4, 5)));
		sweep_arg(s, sweep_xt(d, case_dimsv(2, 4, 5)));
		break;
	case FAM_MASKED_FILL:
		sweep_arg(s, sweep_xt(d, case_dimsv(2, 4, 5)));
		sweep_arg(s, sweep_bool_t(case_dimsv(2, 4, 5)));
		sweep_arg(s, dtype_bit(d) == DT_BOOL ? case_bool(1) : case_int(1));
		break;
	default:
		break;
	}
	if (s->cur != NULL)
		json_object_set_new(s->cur, "compare", json_string("exact"));
	sweep_end(s);
}

/*
 * noncontig for the data-movement families: the moved tensor transposed
 * (column-major) and row-strided (a view into a wider buffer); an index or
 * mask stays contiguous.
 */
static void
sweep_mover_noncontig(struct sweep *s)
{
	static const char	*lays[] = { "transposed", "sliced" };
	size_t			 i;
	json_t			*t;

	sweep_class(s, PROBE_NONCONTIG);
	for (i = 0; i < 2; i++) {
		sweep_begin(s);
		switch (s->ce->family) {
		case FAM_CAT:
		case FAM_STACK:
			t = sweep_op(s, case_dimsv(2, 6, 5), 0);
			json_object_set_new(t, "layout", json_string(lays[i]));
			sweep_arg(s, case_tensors(json_pack("[o,o]", t,
			    sweep_op(s, case_dimsv(2, 6, 5), 0))));
			sweep_arg(s, case_int(1));
			break;
		case FAM_GATHER:
			sweep_arg(s, sweep_op(s, case_dimsv(2, 6, 8), 0));
			sweep_layout(s, 0, lays[i]);
			sweep_arg(s, case_int(1));
			sweep_arg(s, sweep_index(case_dimsv(2, 6, 3), NULL, 8));
			break;
		case FAM_INDEX_SELECT:
			sweep_arg(s, sweep_op(s, case_dimsv(2, 7, 9), 0));
			sweep_layout(s, 0, lays[i]);
			sweep_arg(s, case_int(i));
			sweep_arg(s, sweep_index(case_dimsv(1, 4), NULL, 7));
			break;
		default:
			break;
		}
		sweep_end(s);
	}
}

/*
 * The empty class for the catalog families: a zero-size dim in each
 * operand in turn (empty.c's sets), reductions, scans and sorts over an
 * empty dim and over a non-empty dim of an empty tensor, empty
 * contractions, empty index tensors and repeat counts, masks that select
 * nothing.  An index into a dim of size 0 is out of range: such an index
 * tensor is itself empty.
 */

/* A tensor of dtype whose every element is 0 (false for a bool mask). */
static json_t *
sweep_zero_t(json_t *shape, const char *dtype)
{
	json_t	*t;

	if ((t = case_tensor(shape, dtype)) != NULL && case_domain(t, dtype,
	    &(struct domain){ 'k', 0, 1, 0 }, 0, 0) != 0) {
		json_decref(t);
		t = NULL;
	}
	return t;
}

/* Operand k of nops of the elementwise families; a mask or condition is bool. */
static json_t *
sweep_empty_operand(struct sweep *s, const struct shape *sh, int k)
{
	enum catalog_family	f = s->ce->family;

	if ((f == FAM_WHERE && k == 0) || (f == FAM_MASKED_FILL && k == 1))
		return sweep_bool_t(case_shape(sh));
	return sweep_op(s, case_shape(sh), k);
}

/* The arguments after the tensors of the elementwise families. */
static void
sweep_empty_rest(struct sweep *s)
{
	switch (s->ce->family) {
	case FAM_BINARY_SCALAR:
		sweep_arg(s, sweep_scalar_value(s, 0));
		break;
	case FAM_CLAMP:
		sweep_arg(s, sweep_clamp_lo(s));
		sweep_arg(s, sweep_clamp_hi(s));
		break;
	case FAM_MASKED_FILL:
		sweep_arg(s, sweep_fill_value(s));
		break;
	default:
		break;
	}
}

static void
sweep_empty_pw(struct sweep *s, int nops)
{
	struct shape	sh[3];
	int		i, k;

	for (i = 0; empty_pointwise(nops, i, 0, sh); i++) {
		sweep_begin(s);
		for (k = 0; k < nops; k++)
			sweep_arg(s, sweep_empty_operand(s, &sh[k], k));
		sweep_empty_rest(s);
		sweep_end(s);
	}
	/* a mask or condition with no true element */
	if (s->ce->family == FAM_WHERE) {
		sweep_where_case(s, sweep_zero_t(case_dimsv(2, 4, 5), "bool"),
		    sweep_op(s, case_dimsv(2, 4, 5), 1),
		    sweep_op(s, case_dimsv(2, 4, 5), 2));
	} else if (s->ce->family == FAM_MASKED_FILL) {
		sweep_masked_fill_case(s, sweep_op(s, case_dimsv(2, 4, 5), 0),
		    sweep_zero_t(case_dimsv(2, 4, 5), "bool"),
		    sweep_fill_value(s));
	}
}

static void
sweep_empty_reduce(struct sweep *s)
{
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_dimsv(1, 0), 0));
	sweep_end(s);
	sweep_begin(s);
	sweep_arg(s, sweep_op(s, case_dimsv(3, 3, 0, 5), 0));
	sweep_end(s);
	if (s->ce->flags & CAT_DTYPE_KW) {
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 2, 0), 0));
		sweep_kw(s, "dtype", case_dtype(sweep_acc_dtype(s)));
		sweep_end(s);
	}
}

/* over the empty dim (keepdim either way), over another, all, several */
static const struct sweep_dimcase sweep_dim_empty[] = {
	{ { 3, { 3, 0, 5 } }, 1, { 1 }, 0 },
	{ { 3, { 3, 0, 5 } }, 1, { 1 }, 1 },
	{ { 3, { 3, 0, 5 } }, 1, { 0 }, 0 },
	{ { 3, { 3, 0, 5 } }, 1, { -1 }, 1 },
	{ { 3, { 3, 0, 5 } }, 0, { 0 }, 0 },
	{ { 3, { 3, 0, 5 } }, 2, { 0, 1 }, 0 },
};
#define NDIMEMPTY	(sizeof(sweep_dim_empty) / sizeof(sweep_dim_empty[0]))

static void
sweep_empty_reduce_dim(struct sweep *s)
{
	const struct sweep_dimcase	*dc;
	size_t				 i;

	for (i = 0; i < NDIMEMPTY; i++) {
		dc = &sweep_dim_empty[i];
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_shape(&dc->sh), 0));
		sweep_arg(s, sweep_dimlist(dc->nd, dc->d));
		sweep_arg(s, case_bool(dc->keepdim));
		sweep_end(s);
	}
}

/* scans and softmax: along the empty dim, along another, a 1-D empty */
static void
sweep_empty_dimwise(struct sweep *s)
{
	static const int	dims[] = { 1, -1, 0 };
	size_t			i;

	for (i = 0; i <= sizeof(dims) / sizeof(dims[0]); i++) {
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, i < 3 ? case_dimsv(3, 3, 0, 5) :
		    case_dimsv(1, 0), 0));
		sweep_arg(s, case_int(i < 3 ? dims[i] : 0));
		if (s->ce->family == FAM_SOFTMAX)
			sweep_arg(s, case_bool(0));
		sweep_end(s);
	}
}

static void
sweep_empty_sort(struct sweep *s)
{
	static const struct {
		struct shape	sh;
		int		k, dim;
	} tk[] = {
		{ { 3, { 3, 0, 5 } }, 0, 1 },	/* along the empty dim */
		{ { 2, { 0, 5 } }, 2, -1 },	/* an empty batch */
		{ { 2, { 4, 5 } }, 0, -1 },	/* k = 0: an empty result */
		{ { 1, { 0 } }, 0, 0 },
	};
	int	stable = s->ce->flags & CAT_STABLE;
	size_t	i;

	for (i = 0; i < sizeof(tk) / sizeof(tk[0]); i++) {
		if (s->ce->family == FAM_SORT && tk[i].sh.nd == 2 &&
		    tk[i].sh.d[0] != 0)
			continue;	/* a sort has no k */
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_shape(&tk[i].sh), 0));
		if (s->ce->family == FAM_TOPK) {
			sweep_arg(s, case_int(tk[i].k));
			sweep_arg(s, case_int(tk[i].dim));
			sweep_arg(s, case_bool(1));
			sweep_arg(s, case_bool(1));
		} else if (stable) {
			sweep_kw(s, "stable", case_bool(1));
			sweep_kw(s, "dim", case_int(tk[i].dim));
			sweep_kw(s, "descending", case_bool(i % 2));
		} else {
			sweep_arg(s, case_int(tk[i].dim));
			sweep_arg(s, case_bool(i % 2));
		}
		sweep_end(s);
	}
}

/* m x k x n: an empty contraction (a result of zeros), rows, columns, all */
static const int sweep_mm_empty[][3] = {
	{ 5, 0, 3 }, { 0, 4, 3 }, { 5, 4, 0 }, { 0, 0, 0 },
};
#define NMMEMPTY	(sizeof(sweep_mm_empty) / sizeof(sweep_mm_empty[0]))

static void
sweep_empty_mm(struct sweep *s)
{
	const int	*m;
	size_t		 i;

	for (i = 0; i < NMMEMPTY; i++) {
		m = sweep_mm_empty[i];
		switch (s->ce->family) {
		case FAM_MM:
			sweep_mm_case(s, -1, m);
			break;
		case FAM_BMM:
			sweep_mm_case(s, i == NMMEMPTY - 1 ? 0 : 2, i ==
			    NMMEMPTY - 1 ? sweep_mm_sizes[1] : m);
			break;
		default:
			/* self broadcast along the empty rows */
			sweep_addmm_case(s, sweep_op(s, i == 1 ?
			    case_dimsv(1, m[2]) : case_dimsv(2, m[0], m[2]), 0), m);
			sweep_end(s);
			break;
		}
	}
}

static const struct sweep_dimcase sweep_norm_empty[] = {
	{ { 2, { 0, 8 } }, 1, { 0 }, 0 },
	{ { 3, { 2, 0, 8 } }, 1, { 0 }, 0 },
	{ { 3, { 0, 3, 8 } }, 2, { 0 }, 0 },
};

static void
sweep_empty_norm(struct sweep *s, int layer)
{
	size_t	i;

	for (i = 0; i < sizeof(sweep_norm_empty) / sizeof(sweep_norm_empty[0]);
	    i++)
		sweep_norm_case(s, &sweep_norm_empty[i], layer);
}

static const struct sweep_gathercase sweep_gather_empty[] = {
	{ { 3, { 5, 7, 9 } }, 1, { 3, { 5, 0, 9 } } },	/* an empty index */
	{ { 3, { 5, 0, 9 } }, 0, { 3, { 3, 0, 9 } } },
	{ { 3, { 5, 0, 9 } }, 1, { 3, { 5, 0, 9 } } },	/* along the empty dim */
	{ { 2, { 0, 7 } }, 1, { 2, { 0, 3 } } },
};

static const struct sweep_gathercase sweep_select_empty[] = {
	{ { 3, { 5, 0, 9 } }, 0, { 1, { 4 } } },
	{ { 3, { 5, 0, 9 } }, 1, { 1, { 0 } } },	/* along the empty dim */
	{ { 3, { 5, 7, 9 } }, 2, { 1, { 0 } } },	/* an empty index */
	{ { 2, { 0, 7 } }, 1, { 1, { 3 } } },
};

static void
sweep_empty_index(struct sweep *s)
{
	const struct sweep_gathercase	*g = s->ce->family == FAM_GATHER ?
					    sweep_gather_empty : sweep_select_empty;
	size_t				 i;

	for (i = 0; i < 4; i++) {
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_shape(&g[i].self), 0));
		sweep_arg(s, case_int(g[i].dim));
		sweep_arg(s, sweep_index(case_shape(&g[i].index), NULL,
		    shape_dim_size(&g[i].self, g[i].dim)));
		sweep_end(s);
	}
}

static const struct sweep_catcase sweep_cat_empty[] = {
	{ 2, { { 2, { 3, 5 } }, { 2, { 0, 5 } } }, 0 },
	{ 2, { { 2, { 3, 0 } }, { 2, { 3, 0 } } }, 1 },
	{ 2, { { 2, { 3, 5 } }, { 2, { 3, 0 } } }, 1 },
	{ 2, { { 2, { 0, 5 } }, { 2, { 0, 5 } } }, 1 },
	{ 2, { { 3, { 2, 0, 4 } }, { 3, { 2, 0, 4 } } }, 0 },
};

static const struct sweep_catcase sweep_stack_empty[] = {
	{ 2, { { 2, { 0, 5 } } }, 0 },
	{ 2, { { 2, { 3, 0 } } }, -1 },
	{ 3, { { 3, { 2, 0, 4 } } }, 1 },
};

static void
sweep_empty_list(struct sweep *s)
{
	int	stack = s->ce->family == FAM_STACK;
	size_t	i, n = stack ? 3 : 5;
	const struct sweep_catcase	*c;

	for (i = 0; i < n; i++) {
		c = stack ? &sweep_stack_empty[i] : &sweep_cat_empty[i];
		sweep_begin(s);
		sweep_arg(s, sweep_list(s, c->n, c->sh, stack));
		sweep_arg(s, case_int(c->dim));
		sweep_end(s);
	}
}

static void
sweep_empty_misc(struct sweep *s)
{
	switch (s->ce->family) {
	case FAM_NONZERO:
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(2, 0, 5), 0));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_op(s, case_dimsv(3, 3, 0, 5), 0));
		sweep_end(s);
		/* nothing nonzero: an empty result */
		sweep_begin(s);
		sweep_arg(s, sweep_zero_t(case_dimsv(2, 4, 5), s->dtype));
		sweep_end(s);
		break;
	case FAM_BINCOUNT:
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 0), s->dtype, 1));
		sweep_arg(s, sweep_t(s, case_dimsv(1, 0), "float32",
		    DOM_POSITIVE));
		sweep_end(s);
		sweep_begin(s);
		sweep_arg(s, sweep_index(case_dimsv(1, 0), s->dtype, 1));
		sweep_arg(s, case_none());
		sweep_arg(s, case_int(4));
		sweep_end(s);
		break;
	case FAM_REPEAT_INTERLEAVE: {
		static const struct {
			struct shape	sh;
			int		r, dim;	/* 99: omitted */
		} ri[] = {
			{ { 3, { 3, 0, 5 } }, 2, 1 },
			{ { 3, { 3, 0, 5 } }, 3, 0 },
			{ { 2, { 0, 5 } }, 2, 99 },
			{ { 2, { 4, 5 } }, 0, 0 },	/* no repeat: empty */
		};
		size_t	i;

		for (i = 0; i < sizeof(ri) / sizeof(ri[0]); i++) {
			sweep_begin(s);
			sweep_arg(s, sweep_op(s, case_shape(&ri[i].sh), 0));
			sweep_arg(s, case_int(ri[i].r));
			if (ri[i].dim != 99)
				sweep_arg(s, case_int(ri[i].dim));
			sweep_end(s);
		}
		break;
	}
	default:
		break;
	}
}

static void
sweep_empty(struct sweep *s)
{
	size_t	i;

	sweep_class(s, PROBE_EMPTY);
	switch (s->ce->family) {
	case FAM_UNARY:
	case FAM_BINARY_SCALAR:
	case FAM_CLAMP:
		sweep_empty_pw(s, 1);
		break;
	case FAM_BINARY:
	case FAM_MASKED_FILL:
		sweep_empty_pw(s, 2);
		break;
	case FAM_WHERE:
		sweep_empty_pw(s, 3);
		break;
	case FAM_REDUCE:
		sweep_empty_reduce(s);
		break;
	case FAM_REDUCE_DIM:
		sweep_empty_reduce_dim(s);
		break;
	case FAM_SCAN:
	case FAM_SOFTMAX:
		sweep_empty_dimwise(s);
		break;
	case FAM_SORT:
	case FAM_TOPK:
		sweep_empty_sort(s);
		break;
	case FAM_MM:
	case FAM_BMM:
	case FAM_ADDMM:
		sweep_empty_mm(s);
		break;
	case FAM_RMS_NORM:
		sweep_empty_norm(s, 0);
		break;
	case FAM_ADD_RMS_NORM:
		for (i = 0; i < sizeof(sweep_norm_empty) /
		    sizeof(sweep_norm_empty[0]); i++)
			sweep_add_norm_case(s, &sweep_norm_empty[i], 1, NULL, 0);
		break;
	case FAM_ROTARY: {
		static const int	 r[3] = { 0, 64, 64 };	/* no tokens */

		sweep_rope_case(s, r, 0, 0);
		break;
	}
	case FAM_MOE_SUM: {
		/* no tokens, no experts (a sum of none: zeros), no hidden */
		static const int	 e[][3] = { { 0, 2, 64 }, { 3, 0, 64 },
					    { 3, 2, 0 } };

		for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
			sweep_moe_case(s, e[i], NULL, 0);
		break;
	}
	case FAM_TOPK_SOFTMAX: {
		/* no tokens; k = 0 */
		static const int	 e[][3] = { { 0, 64, 6 }, { 3, 8, 0 } };

		for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
			sweep_route_case(s, e[i], 0, 0, NULL, 0);
		break;
	}
	case FAM_LAYER_NORM:
	case FAM_NATIVE_LAYER_NORM:
		sweep_empty_norm(s, 1);
		break;
	case FAM_GATHER:
	case FAM_INDEX_SELECT:
		sweep_empty_index(s);
		break;
	case FAM_CAT:
	case FAM_STACK:
		sweep_empty_list(s);
		break;
	default:
		sweep_empty_misc(s);
		break;
	}
}

static void
sweep_one(struct sweep *s, unsigned classes)
{
	switch (s->ce->family) {
	case FAM_UNARY:
		sweep_unary(s, classes);
		break;
	case FAM_BINARY:
		sweep_binary(s, classes);
		break;
	case FAM_BINARY_SCALAR:
		sweep_binary_scalar(s, classes);
		break;
	case FAM_CLAMP:
		sweep_clamp(s, classes);
		break;
	case FAM_WHERE:
		sweep_where(s, classes);
		break;
	case FAM_MASKED_FILL:
		sweep_masked_fill(s, classes);
		break;
	case FAM_REDUCE:
		sweep_reduce(s, classes);
		break;
	case FAM_REDUCE_DIM:
		sweep_reduce_dim(s, classes);
		break;
	case FAM_SCAN:
		sweep_scan(s, classes);
		break;
	case FAM_SOFTMAX:
		sweep_softmax(s, classes);
		break;
	case FAM_SORT:
		sweep_sort(s, classes);
		break;
	case FAM_TOPK:
		sweep_topk(s, classes);
		break;
	case FAM_MM:
		sweep_mm(s, classes, 0);
		break;
	case FAM_BMM:
		sweep_mm(s, classes, 1);
		break;
	case FAM_ADDMM:
		sweep_addmm(s, classes);
		break;
	case FAM_RMS_NORM:
		sweep_norm(s, classes, 0);
		break;
	case FAM_ADD_RMS_NORM:
		sweep_add_norm(s, classes);
		break;
	case FAM_MOE_SUM:
		sweep_moe_sum(s, classes);
		break;
	case FAM_TOPK_SOFTMAX:
		sweep_topk_softmax(s, classes);
		break;
	case FAM_ROTARY:
		sweep_rope(s, classes);
		break;
	case FAM_LAYER_NORM:
		sweep_norm(s, classes, 1);
		break;
	case FAM_NATIVE_LAYER_NORM:
		sweep_native_layer_norm(s, classes);
		break;
	case FAM_GATHER:
		sweep_gather(s, classes);
		break;
	case FAM_INDEX_SELECT:
		sweep_index_select(s, classes);
		break;
	case FAM_CAT:
		sweep_cat(s, classes);
		break;
	case FAM_STACK:
		sweep_stack(s, classes);
		break;
	case FAM_NONZERO:
		sweep_nonzero(s, classes);
		break;
	case FAM_BINCOUNT:
		sweep_bincount(s, classes);
		break;
	case FAM_REPEAT_INTERLEAVE:
		sweep_repeat_interleave(s, classes);
		break;
	}
}

/*
 * The options class (options.c) from the catalog's schema: the template is
 * one ordinary case of the family, the class and index below (the first
 * 2-D or 3-D case that passes every argument the family passes).
 */
static const struct {
	enum catalog_family	f;
	enum probe_class	c;
	size_t			i;
} sweep_templates[] = {
	{ FAM_UNARY, PROBE_SAME_SHAPE, 7 },
	{ FAM_BINARY, PROBE_SAME_SHAPE, 7 },
	{ FAM_CLAMP, PROBE_SAME_SHAPE, 7 },
	{ FAM_REDUCE, PROBE_REDUCTION, 3 },
	{ FAM_REDUCE_DIM, PROBE_REDUCTION, 1 },
	{ FAM_SCAN, PROBE_REDUCTION, 0 },
	{ FAM_SORT, PROBE_REDUCTION, 0 },
	{ FAM_TOPK, PROBE_CONTRACT, 0 },
	{ FAM_ADDMM, PROBE_SAME_SHAPE, 1 },
	{ FAM_RMS_NORM, PROBE_REDUCTION, 1 },
	{ FAM_ADD_RMS_NORM, PROBE_REDUCTION, 1 },
	{ FAM_ROTARY, PROBE_SAME_SHAPE, 0 },
	{ FAM_TOPK_SOFTMAX, PROBE_REDUCTION, 1 },
	{ FAM_LAYER_NORM, PROBE_REDUCTION, 1 },
	{ FAM_NATIVE_LAYER_NORM, PROBE_REDUCTION, 1 },
	{ FAM_GATHER, PROBE_SAME_SHAPE, 0 },
	{ FAM_CAT, PROBE_SAME_SHAPE, 0 },
	{ FAM_STACK, PROBE_SAME_SHAPE, 0 },
	{ FAM_BINCOUNT, PROBE_SAME_SHAPE, 0 },
	{ FAM_REPEAT_INTERLEAVE, PROBE_SAME_SHAPE, 1 },
};

/* Case i of class c of the family, built aside; NULL when there is none. */
static json_t *
sweep_template(struct sweep *s, enum probe_class c, size_t i)
{
	json_t		*scratch, *save = s->out, *t;
	const char	*cls = s->cls;
	int		 idx = s->idx, n = s->n;

	if ((scratch = json_array()) == NULL)
		return NULL;
	s->out = scratch;
	sweep_one(s, c);
	s->out = save;
	s->cls = cls;
	s->idx = idx;
	s->n = n;
	t = json_incref(json_array_get(scratch, i));
	json_decref(scratch);
	return t;
}

static void
sweep_options(struct sweep *s)
{
	struct schema	 sc;
	json_t		*tmpl = NULL;
	size_t		 i;
	int		 n;

	for (i = 0; i < sizeof(sweep_templates) / sizeof(sweep_templates[0]);
	    i++)
		if (sweep_templates[i].f == s->ce->family)
			break;
	if (i == sizeof(sweep_templates) / sizeof(sweep_templates[0]))
		return;		/* no optional argument */
	if (schema_parse(s->ce->schema, &sc, NULL) == -1 ||
	    (tmpl = sweep_template(s, sweep_templates[i].c,
	    sweep_templates[i].i)) == NULL) {
		s->err = 1;
		return;
	}
	sweep_class(s, PROBE_OPTIONS);
	if ((n = options_expand(&sc, tmpl, NULL, &s->idx, s->out)) < 0)
		s->err = 1;
	else
		s->n += n;
	json_decref(tmpl);
}

/*
 * The classes beyond the catalog's five that a family sweeps itself (or
 * that make no sense for it): probe_expand() does not ask the schema-driven
 * generator for them.  Its pointwise reading of the matmul, bincount and
 * where schemas builds arguments aten rejects.
 */
static unsigned
sweep_own_classes(enum catalog_family f)
{
	switch (f) {
	case FAM_MM:
	case FAM_BMM:
	case FAM_ADDMM:
		return PROBE_NONCONTIG | PROBE_EDGE_VALUES | PROBE_DTYPE_EXOTIC;
	case FAM_TOPK:
		return PROBE_COMPILE;
	case FAM_BINCOUNT:
	case FAM_WHERE:
		return PROBE_NONCONTIG | PROBE_EDGE_VALUES;
	case FAM_CAT:
	case FAM_STACK:
	case FAM_GATHER:
	case FAM_INDEX_SELECT:
		return PROBE_DTYPE_EXOTIC | PROBE_NONCONTIG;
	case FAM_MASKED_FILL:
		return PROBE_DTYPE_EXOTIC;
	case FAM_ADD_RMS_NORM:
		return PROBE_NONCONTIG;
	case FAM_ROTARY:
	case FAM_MOE_SUM:	/* the schema reads as pointwise: it is not */
	case FAM_TOPK_SOFTMAX:
		return PROBE_NONCONTIG | PROBE_EDGE_VALUES |
		    PROBE_DTYPE_EXOTIC | PROBE_ACCUMULATION;
	default:
		return 0;
	}
}

/* The classes the catalog sweeps key in, itself or by declining them. */
unsigned
sweep_classes(const char *key)
{
	const struct catalog_entry	*ce;

	if ((ce = catalog_find(key)) == NULL)
		return 0;
	return PROBE_CATALOG | PROBE_EMPTY | PROBE_OPTIONS |
	    sweep_own_classes(ce->family);
}

int
sweep_expand(const char *key, unsigned classes, const json_t *dtypes,
    json_t *out)
{
	struct sweep	s;
	unsigned	bit;
	size_t		before;

	memset(&s, 0, sizeof(s));
	if (!json_is_array(out) || (s.ce = catalog_find(key)) == NULL)
		return -1;
	if (dtypes != NULL && !json_is_array(dtypes))
		return -1;
	s.out = out;
	before = json_array_size(out);
	classes &= PROBE_ALL;
	for (bit = 1; bit != 0 && bit <= DT_LAST; bit <<= 1) {
		if ((s.ce->dtypes & bit) == 0)
			continue;
		s.dtype = dtype_name(bit);
		if (!dtype_wanted(dtypes, s.dtype))
			continue;
		sweep_one(&s, classes);
		if ((classes & PROBE_NONCONTIG) && (s.ce->family == FAM_CAT ||
		    s.ce->family == FAM_STACK || s.ce->family == FAM_GATHER ||
		    s.ce->family == FAM_INDEX_SELECT))
			sweep_mover_noncontig(&s);
		if (classes & PROBE_EMPTY)
			sweep_empty(&s);
		if (classes & PROBE_OPTIONS)
			sweep_options(&s);
		if (s.err)
			goto err;
	}
	if ((classes & PROBE_DTYPE_EXOTIC) && sweep_is_mover(s.ce->family)) {
		size_t	 k;

		for (k = 0; k < sizeof(sweep_exotic_dtypes) /
		    sizeof(sweep_exotic_dtypes[0]); k++) {
			s.dtype = dtype_name(sweep_exotic_dtypes[k]);
			if (!dtype_wanted(dtypes, s.dtype))
				continue;
			sweep_exotic(&s);
			if (s.err)
				goto err;
		}
	}
	return s.n;
 err:
	/* leave out as it was: a half-expanded key is worse than none */
	json_decref(s.cur);
	while (json_array_size(out) > before)
		json_array_remove(out, json_array_size(out) - 1);
	return -1;
}
