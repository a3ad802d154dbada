/*
 * The views class (docs/protocol.md, "Views"): in-place and out= cases whose
 * written tensor is a view with gaps into a larger base.  They are derived
 * from cases the key's generator already builds (views_derive), so that the
 * catalog's keys and the schema table's get them alike and every view holds
 * arguments the op is known to take; only the written tensor's memory (and,
 * for one kind, that of same-shaped inputs) changes.
 */
#include <string.h>

#include "probes.h"
#include "case.h"

#define VIEWS_MAXRANK	8
#define VIEWS_MAXDIM	(1 << 20)
/* a view's base is about 2^rank times its numel: random ops' 512 x 256 fit */
#define VIEWS_MAXNUMEL	(1 << 17)

/*
 * The views of one written tensor: every other element along each dim, the
 * last dim narrowed at an offset, the last two dims transposed then sliced,
 * and a window into a base larger in every dim.  Each keeps elements of the
 * base before and after the view, so a kernel that writes from the base's
 * start, or a contiguous block from the view's first element, shows.
 */
enum views_kind {
	VK_STEP,
	VK_NARROW,
	VK_TSLICE,
	VK_WINDOW
};

/* The ARG case c writes: args[0] in place, kwargs.out for out=, else NULL. */
static json_t *
views_written(const json_t *c)
{
	const char	*m = json_string_value(json_object_get(c, "mutates"));

	if (m == NULL && json_is_true(json_object_get(c, "inplace")))
		m = "self";
	if (m == NULL)
		return NULL;
	if (strcmp(m, "self") == 0)
		return json_array_get(json_object_get(c, "args"), 0);
	if (strcmp(m, "out") == 0)
		return json_object_get(json_object_get(c, "kwargs"), "out");
	return NULL;
}

/*
 * The rank of tensor (or out=) ARG a when a view can stand for it, with its
 * sizes in d; 0 when not: a layout of its own, made on the device, a 0-d or
 * empty tensor, a single element (no gaps), or too large.
 */
static int
views_shape(const json_t *a, const char *want, int *d)
{
	const char	*t = json_string_value(json_object_get(a, "t"));
	const json_t	*sh = json_object_get(a, "shape"), *x;
	long long	 n = 1, v;
	size_t		 i;

	if (t == NULL || strcmp(t, want) != 0 ||
	    json_object_get(a, "layout") != NULL ||
	    json_object_get(a, "gen") != NULL ||
	    json_object_get(a, "view") != NULL)
		return 0;
	if (!json_is_array(sh) || json_array_size(sh) == 0 ||
	    json_array_size(sh) > VIEWS_MAXRANK)
		return 0;
	json_array_foreach(sh, i, x) {
		if (!json_is_integer(x))
			return 0;
		v = json_integer_value(x);
		if (v < 1 || v > VIEWS_MAXDIM)
			return 0;
		d[i] = (int)v;
		n *= v;
	}
	if (n < 2 || n > VIEWS_MAXNUMEL)
		return 0;
	return (int)json_array_size(sh);
}

static int
views_written_shape(const json_t *c, int *d)
{
	const json_t	*w = views_written(c);
	int		 r;

	if (w == NULL || json_is_true(json_object_get(c, "huge")))
		return 0;
	if ((r = views_shape(w, "tensor", d)) == 0)
		r = views_shape(w, "out", d);
	return r;
}

static int
views_op(json_t *ops, json_t *op)
{
	return op == NULL || json_array_append_new(ops, op) != 0 ? -1 : 0;
}

/* {"base": [...], "ops": [...]} of kind k for a view of sizes d[r] */
static json_t *
views_spec(const int *d, int r, enum views_kind k)
{
	json_t	*ops;
	int	 base[VIEWS_MAXRANK], i, e = 0;

	if ((ops = json_array()) == NULL)
		return NULL;
	memcpy(base, d, (size_t)r * sizeof(int));
	switch (k) {
	case VK_STEP:
		for (i = 0; i < r; i++) {
			base[i] = 2 * d[i] + 1;
			e |= views_op(ops, json_pack("[s,i,i,i,i]", "slice", i,
			    1, 2 * d[i], 2));
		}
		break;
	case VK_NARROW:
		base[r - 1] = d[r - 1] + 5;
		e |= views_op(ops, json_pack("[s,i,i,i]", "narrow", r - 1, 3,
		    d[r - 1]));
		break;
	case VK_TSLICE:
		base[r - 2] = d[r - 1];
		base[r - 1] = 2 * d[r - 2] + 1;
		e |= views_op(ops, json_pack("[s,i,i]", "transpose", r - 2,
		    r - 1));
		e |= views_op(ops, json_pack("[s,i,i,i,i]", "slice", r - 2, 1,
		    2 * d[r - 2], 2));
		break;
	case VK_WINDOW:
		for (i = 0; i < r; i++) {
			base[i] = d[i] + 4;
			e |= views_op(ops, json_pack("[s,i,i,i]", "narrow", i, 2,
			    d[i]));
		}
		break;
	}
	if (e) {
		json_decref(ops);
		return NULL;
	}
	return json_pack("{s:o,s:o}", "base", case_dims(base, r), "ops", ops);
}

/* Gives tensor ARG a of sizes d[r] (when it has them) a copy of view. */
static int
views_also(json_t *a, const int *d, int r, const json_t *view)
{
	int	e[VIEWS_MAXRANK];

	if (views_shape(a, "tensor", e) != r ||
	    memcmp(d, e, (size_t)r * sizeof(int)) != 0)
		return 0;
	return json_object_set_new(a, "view", json_deep_copy(view));
}

/* Appends the views case of kind k made from source case c, index idx. */
static int
views_emit(const json_t *c, enum views_kind k, int idx, json_t *out)
{
	const char	*key = json_string_value(json_object_get(c, "key"));
	const char	*dtype = json_string_value(json_object_get(c, "dtype"));
	json_t		*v, *w, *view, *a;
	const char	*name;
	size_t		 i;
	int		 d[VIEWS_MAXRANK], r, e = 0;

	if (key == NULL || dtype == NULL || (v = json_deep_copy(c)) == NULL)
		return -1;
	w = views_written(v);
	r = views_written_shape(v, d);
	if (r == 0 || (k == VK_TSLICE && r < 2) ||
	    (view = views_spec(d, r, k)) == NULL) {
		json_decref(v);
		return -1;
	}
	e |= json_object_set_new(v, "class", json_string(probe_class_name(
	    PROBE_VIEWS)));
	e |= json_object_set_new(v, "seed", json_integer((json_int_t)
	    seed_case(key, probe_class_name(PROBE_VIEWS), dtype, idx)));
	/* inputs that are only read are views too in the transposed kind */
	if (k == VK_TSLICE) {
		json_array_foreach(json_object_get(v, "args"), i, a)
			if (a != w)
				e |= views_also(a, d, r, view);
		json_object_foreach(json_object_get(v, "kwargs"), name, a)
			if (a != w)
				e |= views_also(a, d, r, view);
	}
	e |= json_object_set_new(w, "view", view);
	if (e) {
		json_decref(v);
		return -1;
	}
	return json_array_append_new(out, v) == 0 ? 0 : -1;
}

/*
 * The views cases of one dtype from the source cases of that dtype: four
 * kinds on the first written tensor of rank >= 2 (one whose every size is
 * at least 2 when there is one), every other element on the first of rank
 * 1; at most five cases.
 */
static int
views_dtype(const json_t *src, size_t from, const char *dtype, json_t *out)
{
	static const enum views_kind	 kinds[] = { VK_STEP, VK_NARROW,
					    VK_TSLICE, VK_WINDOW };
	const json_t			*c, *prim = NULL, *loose = NULL;
	const json_t			*line = NULL;
	const char			*dt;
	size_t				 i, k;
	int				 d[VIEWS_MAXRANK], r, j, all2, n = 0;

	for (i = from; i < json_array_size(src); i++) {
		c = json_array_get(src, i);
		dt = json_string_value(json_object_get(c, "dtype"));
		if (dt == NULL || strcmp(dt, dtype) != 0 ||
		    (r = views_written_shape(c, d)) == 0)
			continue;
		if (r == 1) {
			if (line == NULL)
				line = c;
			continue;
		}
		for (all2 = 1, j = 0; j < r; j++)
			all2 &= d[j] >= 2;
		if (all2 && prim == NULL)
			prim = c;
		if (loose == NULL)
			loose = c;
	}
	if (prim == NULL)
		prim = loose;
	for (k = 0; prim != NULL && k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (views_emit(prim, kinds[k], n++, out) == -1)
			return -1;
	if (line != NULL && views_emit(line, VK_STEP, n++, out) == -1)
		return -1;
	return n;
}

static int
views_dtype_each(const json_t *src, size_t from, const char *dtype, void *arg,
    json_t *out)
{
	(void)arg;
	return views_dtype(src, from, dtype, out);
}

/*
 * Appends to out the views cases derived from the cases in src (of one key,
 * any classes and dtypes; those that write no tensor are passed over);
 * returns the number appended, -1 on error (out may hold some of them).
 */
int
views_derive(const json_t *src, json_t *out)
{
	return case_each_dtype(src, views_dtype_each, NULL, out);
}
