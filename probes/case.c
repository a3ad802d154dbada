/*
 * The case builder (case.h): CASE skeletons, ARG constructors and the
 * mapping of a value domain onto the protocol's domain fields for a
 * tensor's dtype, for both generators, so that a case means the same
 * whichever generator built it.
 */
#include <stdarg.h>
#include <string.h>

#include "probes.h"
#include "case.h"

/*
 * A case of key without arguments yet: "args" and "kwargs" are empty, the
 * seed is seed_case() of (key, class, dtype, index).
 */
json_t *
case_new(const char *key, const char *cls, const char *dtype, int idx,
    const char *compare, int inplace)
{
	unsigned	seed;

	seed = seed_case(key, cls, dtype, idx);
	return json_pack("{s:s,s:s,s:s,s:I,s:[],s:{},s:s,s:b}",
	    "key", key, "class", cls, "dtype", dtype,
	    "seed", (json_int_t)seed, "args", "kwargs",
	    "compare", compare, "inplace", inplace);
}

/* {"t": t} with "v": v (stolen) when v is not NULL */
static json_t *
case_arg(const char *t, json_t *v)
{
	json_t	*a;

	if ((a = json_object()) == NULL ||
	    json_object_set_new(a, "t", json_string(t)) != 0 ||
	    (v != NULL && json_object_set_new(a, "v", v) != 0)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *
case_int(long long v)
{
	return case_arg("int", json_integer((json_int_t)v));
}

json_t *
case_float(double v)
{
	return case_arg("float", json_real(v));
}

json_t *
case_bool(int v)
{
	return case_arg("bool", json_boolean(v));
}

json_t *
case_none(void)
{
	return case_arg("none", NULL);
}

/* An ARG of type t without a value: "none", "device". */
json_t *
case_tag(const char *t)
{
	return case_arg(t, NULL);
}

json_t *
case_str(const char *v)
{
	return json_pack("{s:s,s:s}", "t", "str", "v", v);
}

json_t *
case_dtype(const char *v)
{
	return json_pack("{s:s,s:s}", "t", "dtype", "v", v);
}

/* {"t":"ints"} from a dims array (stolen) */
json_t *
case_ints(json_t *dims)
{
	return json_pack("{s:s,s:o}", "t", "ints", "v", dims);
}

/* {"t":"tensors"} from an array of tensor ARGs (stolen) */
json_t *
case_tensors(json_t *list)
{
	return json_pack("{s:s,s:o}", "t", "tensors", "v", list);
}

/* A JSON array of the n integers d. */
json_t *
case_dims(const int *d, int n)
{
	json_t	*a = json_array();
	int	 i;

	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_integer(d[i])) != 0) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

/* case_dims() of its nd int arguments */
json_t *
case_dimsv(int nd, ...)
{
	va_list	ap;
	int	d[8], i;

	if (nd < 0 || nd > (int)(sizeof(d) / sizeof(d[0])))
		return NULL;
	va_start(ap, nd);
	for (i = 0; i < nd; i++)
		d[i] = va_arg(ap, int);
	va_end(ap);
	return case_dims(d, nd);
}

json_t *
case_shape(const struct shape *sh)
{
	return case_dims(sh->d, sh->nd);
}

/*
 * A tensor ARG without its domain; shape is stolen. Draw 2: the runner
 * draws the normal and uniform values of a floating dtype of at most 32
 * bits in float32 (docs/protocol.md, Domains); a case stored without it is
 * drawn in float64, as it was when it was stored.
 */
json_t *
case_tensor(json_t *shape, const char *dtype)
{
	return json_pack("{s:s,s:o,s:s,s:i}", "t", "tensor", "shape", shape,
	    "dtype", dtype, "draw", 2);
}

static int
case_range(json_t *t, const char *name, double lo, double hi, int integral)
{
	int	r = 0;

	r |= json_object_set_new(t, "domain", json_string(name));
	if (integral) {
		r |= json_object_set_new(t, "low", json_integer((json_int_t)lo));
		r |= json_object_set_new(t, "high", json_integer((json_int_t)hi));
	} else {
		r |= json_object_set_new(t, "low", json_real(lo));
		r |= json_object_set_new(t, "high", json_real(hi));
	}
	return r;
}

static int
case_plain(json_t *t, const char *name)
{
	return json_object_set_new(t, "domain", json_string(name));
}

/*
 * Maps domain d onto the protocol's domain fields of tensor t for dtype (an
 * integer tensor never gets "normal"); edge puts floating tensors in the
 * edge-value domain, unless the table marks the domain as kept (d->keep).
 * Integer divisors alternate in sign with parity (the
 * case index), because the "int" domain is one interval and cannot exclude
 * zero from the middle.
 */
int
case_domain(json_t *t, const char *dtype, const struct domain *d, int parity,
    int edge)
{
	unsigned	bit = dtype_bit(dtype);
	int		fl = dtype_is_floating(dtype) || dtype_is_complex(dtype);
	int		u = bit == DT_U8;

	if (d->code == 'i')
		return json_object_set_new(t, "domain", json_string("index")) |
		    json_object_set_new(t, "high",
		    json_integer(d->hi > 0 ? d->hi : 1));
	if (d->code == 'k')
		return case_range(t, "int", d->lo, d->hi, 1);
	if (d->code == 'r')
		return case_plain(t, "arange");
	if (d->code == 'b' || bit == DT_BOOL)
		return case_plain(t, "bool");
	if (bit == DT_E8M0)
		return case_plain(t, "positive");
	if (edge && fl && !d->keep)
		return case_plain(t, "edge");
	switch (d->code) {
	case 'u':
		return fl ? case_range(t, "uniform", -4, 4, 0) :
		    case_range(t, "int", u ? 0 : -4, 4, 1);
	case 'w':
		return fl ? case_range(t, "uniform", -10, 10, 0) :
		    case_range(t, "int", u ? 0 : -100, 100, 1);
	case 'p':
		return fl ? case_plain(t, "positive") :
		    case_range(t, "int", 1, 10, 1);
	case 'z':
		if (fl)
			return case_plain(t, "nonzero");
		if (u || parity % 2 == 0)
			return case_range(t, "int", 1, 50, 1);
		return case_range(t, "int", -50, 0, 1);
	case 's':
		return case_range(t, "int", u ? 0 : -3, 3, 1);
	case 't':
		return case_range(t, "int", u ? 0 : -1, 2, 1);
	case 'a':
		return fl ? case_range(t, "uniform", -0.95, 0.95, 0) :
		    case_range(t, "int", 0, 1, 1);
	case 'q':
		return fl ? case_range(t, "uniform", 0.05, 0.95, 0) :
		    case_range(t, "int", 0, 2, 1);
	case 'e':
		return fl ? case_plain(t, "edge") : case_range(t, "int", -3, 3, 1);
	case 'd':	/* doubly stochastic (mHC's Sinkhorn outputs) */
		return fl ? case_plain(t, "stochastic") :
		    case_range(t, "int", 0, 2, 1);
	case 'h':	/* small weights (mHC's mixing matrices) */
		return fl ? case_range(t, "uniform", -0.1, 0.1, 0) :
		    case_range(t, "int", u ? 0 : -1, 2, 1);
	case 'o':
		return fl ? case_range(t, "uniform", 0.9, 1.1, 0) :
		    case_range(t, "int", u ? 0 : -1, 2, 1);
	default:
		return fl ? case_plain(t, "normal") :
		    case_range(t, "int", u ? 0 : -100, u ? 200 : 100, 1);
	}
}

/*
 * Data movement past 2^31 elements (docs/protocol.md, "64-bit indexing"):
 * the dtype a key's 2^31-element case takes is the smallest its entry
 * sweeps, one-byte numbers first (2^31 elements of it are 2 GiB), NULL
 * when it sweeps none of them.
 */
const char *
case_huge_dtype(unsigned dtypes)
{
	static const unsigned	order[] = { DT_I8, DT_U8, DT_BOOL, DT_F16,
				    DT_BF16 };
	size_t			i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (dtypes & order[i])
			return dtype_name(order[i]);
	return NULL;
}

static json_int_t
case_numel(const json_t *t)
{
	const json_t	*d;
	json_int_t	 n = 1;
	size_t		 i;

	json_array_foreach(json_object_get(t, "shape"), i, d)
		n *= json_integer_value(d);
	return n;
}

/* Marks the large tensors of one ARG (a list's elements too). */
static int
case_huge_arg(json_t *a, int *ordinal)
{
	const char	*t = json_string_value(json_object_get(a, "t"));
	json_t		*v;
	size_t		 i;
	int		 r = 0;

	if (t != NULL && strcmp(t, "tensors") == 0) {
		json_array_foreach(json_object_get(a, "v"), i, v)
			r |= case_huge_arg(v, ordinal);
		return r;
	}
	if (t == NULL || strcmp(t, "tensor") != 0 ||
	    case_numel(a) < CASE_HUGE_GEN_MIN)
		return 0;
	t = json_string_value(json_object_get(a, "dtype"));
	r |= json_object_set_new(a, "gen", json_string("arange"));
	r |= json_object_set_new(a, "start", json_integer((*ordinal)++));
	r |= json_object_set_new(a, "mod", json_integer(t != NULL &&
	    strcmp(t, "bool") == 0 ? 3 : 251));
	return r;
}

/*
 * Makes c a 2^31-element data-movement case: "huge": true, "oracle":
 * "native" (the op moves values, computes none: native's output is the
 * exact answer, compared byte for byte on the device), and every tensor of
 * CASE_HUGE_GEN_MIN elements or more "gen": "arange", element i of its
 * storage holding (start + i) mod m, m 251 (3 for bool), start the tensor's
 * ordinal (two operands never hold the same bytes): the runner makes it on
 * the device by index arithmetic, a repro does the same in a line, and a
 * read at another position (an int32 offset that wrapped) shows, since
 * 2^31 is no multiple of m.  Index tensors stay small and random.
 */
int
case_huge(json_t *c)
{
	json_t		*a;
	const char	*k;
	size_t		 i;
	int		 r = 0, ordinal = 0;

	json_array_foreach(json_object_get(c, "args"), i, a)
		r |= case_huge_arg(a, &ordinal);
	json_object_foreach(json_object_get(c, "kwargs"), k, a)
		r |= case_huge_arg(a, &ordinal);
	r |= json_object_set_new(c, "huge", json_true());
	r |= json_object_set_new(c, "oracle", json_string("native"));
	return r ? -1 : 0;
}

/*
 * For the classes derived from a key's other cases (views.c, modes.c): calls
 * fn(src, i, dtype, arg, out) once per dtype of the cases in src, i the
 * index of that dtype's first case.  Returns the sum of what fn returned,
 * -1 as soon as one returns -1 (out may hold some of its cases).
 */
int
case_each_dtype(const json_t *src, int (*fn)(const json_t *, size_t,
    const char *, void *, json_t *), void *arg, json_t *out)
{
	const json_t	*c;
	const char	*dt, *seen;
	size_t		 i, j;
	int		 n = 0, m;

	if (!json_is_array(src) || !json_is_array(out))
		return -1;
	json_array_foreach(src, i, c) {
		if ((dt = json_string_value(json_object_get(c, "dtype"))) ==
		    NULL)
			continue;
		for (j = 0; j < i; j++) {
			seen = json_string_value(json_object_get(
			    json_array_get(src, j), "dtype"));
			if (seen != NULL && strcmp(seen, dt) == 0)
				break;
		}
		if (j < i)
			continue;	/* the dtype's cases are made */
		if ((m = fn(src, i, dt, arg, out)) == -1)
			return -1;
		n += m;
	}
	return n;
}
