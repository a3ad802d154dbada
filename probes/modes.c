/*
 * The deployment modes' classes (docs/protocol.md, "Trace and graph"):
 * trace runs a case under torch.compile(fullgraph=True), graph captures it
 * in a CUDA graph and replays it on new inputs.  Like views, they are
 * derived from cases the key's generator already builds (modes_derive), so
 * that every mode case holds arguments the op is known to take: per dtype
 * the first case of the engine-shaped classes (and, for the dtypes only
 * dtype_exotic screens, of that class) whose tensors are plain (no
 * layout, view or generated data) and at least 2 in every dim (a size of 0
 * or 1 is its own specialisation under torch.compile), else the first plain
 * one.  A trace case also carries "dynamic": the arguments of a second case
 * of the same signature (the same arguments with tensors of the same ranks)
 * and other sizes, which the runner calls through one dynamic=True compile.
 */
#include <string.h>

#include "probes.h"
#include "case.h"

/*
 * 1 when ARG a (any kind) is plain, 2 when it is also "wide" (every tensor
 * of rank >= 1, every size >= 2); 0 when it is a tensor a mode case cannot
 * take.
 */
static int
modes_arg(const json_t *a)
{
	const char	*t;
	const json_t	*sh, *x;
	size_t		 i;
	int		 r = 2, q;

	if (!json_is_object(a))
		return 2;
	t = json_string_value(json_object_get(a, "t"));
	if (t != NULL && strcmp(t, "tensors") == 0) {
		json_array_foreach(json_object_get(a, "v"), i, x)
			if ((q = modes_arg(x)) < r)
				r = q;
		return r;
	}
	if (t == NULL || (strcmp(t, "tensor") != 0 && strcmp(t, "out") != 0))
		return 2;
	if (json_object_get(a, "layout") != NULL ||
	    json_object_get(a, "gen") != NULL ||
	    json_object_get(a, "view") != NULL)
		return 0;
	sh = json_object_get(a, "shape");
	if (!json_is_array(sh))
		return 0;
	if (json_array_size(sh) == 0)
		r = 1;
	json_array_foreach(sh, i, x)
		if (!json_is_integer(x) || json_integer_value(x) < 2)
			r = 1;
	return r;
}

/* modes_arg over every argument of case c, 0 for a case no mode takes */
static int
modes_case(const json_t *c)
{
	const char	*cls = json_string_value(json_object_get(c, "class"));
	const char	*cmp = json_string_value(json_object_get(c, "compare"));
	const json_t	*a;
	const char	*k;
	size_t		 i;
	int		 r = 2, q;

	if (cls == NULL || (probe_class_parse(cls) & PROBE_MODES_SOURCES) == 0 ||
	    json_is_true(json_object_get(c, "huge")) ||
	    (cmp != NULL && (strcmp(cmp, "stat") == 0 ||
	    strcmp(cmp, "bootstrap") == 0)))
		return 0;
	json_array_foreach(json_object_get(c, "args"), i, a)
		if ((q = modes_arg(a)) < r)
			r = q;
	json_object_foreach((json_t *)json_object_get(c, "kwargs"), k, a)
		if ((q = modes_arg(a)) < r)
			r = q;
	return r;
}

static int	modes_kw_same(const json_t *, const json_t *, int *);

/*
 * Whether ARGs a and b have one signature: the same kind, tensors of the
 * same rank and dtype, other values equal (an int list or a dim is a
 * constant to torch.compile: another value compiles again, as it must).
 * *differ is set when a tensor's sizes differ.
 */
static int
modes_same_sig(const json_t *a, const json_t *b, int *differ)
{
	const char	*ta, *tb, *k;
	const json_t	*x, *y;
	size_t		 i;

	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		json_array_foreach(a, i, x)
			if (!modes_same_sig(x, json_array_get(b, i), differ))
				return 0;
		return 1;
	}
	if (!json_is_object(a) || !json_is_object(b))
		return json_equal(a, b);
	ta = json_string_value(json_object_get(a, "t"));
	tb = json_string_value(json_object_get(b, "t"));
	if (ta == NULL || tb == NULL)
		return json_equal(a, b);
	if (strcmp(ta, tb) != 0)
		return 0;
	if (strcmp(ta, "tensor") == 0 || strcmp(ta, "out") == 0) {
		x = json_object_get(a, "shape");
		y = json_object_get(b, "shape");
		if (json_array_size(x) != json_array_size(y) ||
		    !json_equal(json_object_get(a, "dtype"),
		    json_object_get(b, "dtype")))
			return 0;
		if (!json_equal(x, y))
			*differ = 1;
		return 1;
	}
	if (strcmp(ta, "tensors") == 0)
		return modes_same_sig(json_object_get(a, "v"),
		    json_object_get(b, "v"), differ);
	json_object_foreach((json_t *)a, k, x)
		if (!json_equal(x, json_object_get(b, k)))
			return 0;
	return json_object_size(a) == json_object_size(b);
}

static int
modes_kw_same(const json_t *a, const json_t *b, int *differ)
{
	const char	*k;
	const json_t	*x, *y;

	json_object_foreach((json_t *)a, k, x) {
		if ((y = json_object_get(b, k)) == NULL ||
		    !modes_same_sig(x, y, differ))
			return 0;
	}
	return json_object_size(a) == json_object_size(b);
}

/* Cases a and b take one signature with other tensor sizes. */
static int
modes_partner(const json_t *a, const json_t *b)
{
	const json_t	*ka = json_object_get(a, "kwargs");
	const json_t	*kb = json_object_get(b, "kwargs");
	int		 differ = 0;

	if (!modes_same_sig(json_object_get(a, "args"),
	    json_object_get(b, "args"), &differ))
		return 0;
	if ((ka == NULL) != (kb == NULL) ||
	    (ka != NULL && !modes_kw_same(ka, kb, &differ)))
		return 0;
	return differ;
}

/* Appends source case c as a case of class cls (index idx). */
static int
modes_emit(const json_t *c, enum probe_class cls, int idx,
    const json_t *dyn, json_t *out)
{
	const char	*key = json_string_value(json_object_get(c, "key"));
	const char	*dtype = json_string_value(json_object_get(c, "dtype"));
	json_t		*v;
	int		 e = 0;

	if (key == NULL || dtype == NULL || (v = json_deep_copy(c)) == NULL)
		return -1;
	e |= json_object_set_new(v, "class", json_string(
	    probe_class_name(cls)));
	e |= json_object_set_new(v, "seed", json_integer((json_int_t)
	    seed_case(key, probe_class_name(cls), dtype, idx)));
	if (dyn != NULL) {
		json_t	*kw = json_object_get(dyn, "kwargs");

		e |= json_object_set_new(v, "dynamic", json_pack("{s:O,s:o}",
		    "args", json_object_get(dyn, "args"), "kwargs",
		    kw != NULL ? json_incref(kw) : json_object()));
	}
	if (e || json_array_append_new(out, v) != 0) {
		json_decref(v);
		return -1;
	}
	return 0;
}

/* The mode cases of one dtype: one per class asked for. */
static int
modes_dtype(const json_t *src, size_t from, const char *dtype,
    unsigned classes, json_t *out)
{
	const json_t	*c, *prim = NULL, *loose = NULL, *dyn = NULL;
	const char	*dt;
	size_t		 i;
	int		 q, n = 0;

	/* prim is the first wide case: its partner can only come after it */
	for (i = from; i < json_array_size(src); i++) {
		c = json_array_get(src, i);
		dt = json_string_value(json_object_get(c, "dtype"));
		if (dt == NULL || strcmp(dt, dtype) != 0 ||
		    (q = modes_case(c)) == 0)
			continue;
		if (loose == NULL)
			loose = c;
		if (q != 2)
			continue;
		if (prim == NULL)
			prim = c;
		else if (dyn == NULL && modes_partner(prim, c))
			dyn = c;
	}
	if (prim == NULL)
		prim = loose;
	if (prim == NULL)
		return 0;
	if ((classes & PROBE_TRACE) &&
	    modes_emit(prim, PROBE_TRACE, n++, dyn, out) == -1)
		return -1;
	if ((classes & PROBE_GRAPH) &&
	    modes_emit(prim, PROBE_GRAPH, n++, NULL, out) == -1)
		return -1;
	return n;
}

static int
modes_dtype_each(const json_t *src, size_t from, const char *dtype, void *arg,
    json_t *out)
{
	return modes_dtype(src, from, dtype, *(const unsigned *)arg, out);
}

/*
 * Appends to out the cases of the mode classes in `classes` derived from
 * the cases in src (of one key, any classes and dtypes); returns the
 * number appended, -1 on error (out may hold some of them).
 */
int
modes_derive(const json_t *src, unsigned classes, json_t *out)
{
	if ((classes & PROBE_MODES) == 0)
		return json_is_array(out) ? 0 : -1;
	return case_each_dtype(src, modes_dtype_each, &classes, out);
}
