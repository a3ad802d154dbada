/*
 * The empty class's rules, for both generators: the operand shapes with a
 * zero-size dimension in each input position in turn, and the check that a
 * case made by setting one of a recipe's sizes to 0 is an empty case whose
 * indices stay in range (an index into a dim of size 0 is out of range, a
 * device-side assert on a GPU, unless the index tensor itself is empty).
 */
#include <string.h>

#include "probes.h"
#include "case.h"
#include "schema.h"

/*
 * The i-th set of nops operand shapes: operand p has a zero-size dim 0 of
 * a 5 x 6 shape while the others have 1 there (they broadcast against it;
 * with same, every operand has it), then every operand 5 x 0, then every
 * operand 2 x 0 x 3.  1 with sh[0..nops) set, 0 past the end.
 */
int
empty_pointwise(int nops, int i, int same, struct shape *sh)
{
	int	sets = same ? 3 : nops + 2, p = same ? 0 : i, k;

	if (nops < 1 || i < 0 || i >= sets)
		return 0;
	for (k = 0; k < nops; k++) {
		if (i == sets - 1)
			sh[k] = (struct shape){ 3, { 2, 0, 3 } };
		else if (i == sets - 2)
			sh[k] = (struct shape){ 2, { 5, 0 } };
		else
			sh[k] = (struct shape){ 2, { k == p || same ? 0 : 1, 6 } };
	}
	return 1;
}

static const char *
empty_t(const json_t *a)
{
	const char	*t = json_string_value(json_object_get(a, "t"));

	return t ? t : "";
}

static long long
empty_numel(const json_t *a)
{
	const json_t	*d;
	long long	 n = 1;
	size_t		 i;

	json_array_foreach(json_object_get(a, "shape"), i, d)
		n *= json_integer_value(d);
	return n;
}

static int
empty_is_tensor(const json_t *a)
{
	return strcmp(empty_t(a), "tensor") == 0 || strcmp(empty_t(a),
	    "out") == 0;
}

/* An integer tensor whose values index a dim (an arange indexes by position). */
static int
empty_indexes(const json_t *a)
{
	const char	*d = json_string_value(json_object_get(a, "domain"));

	return d != NULL && (strcmp(d, "index") == 0 || strcmp(d, "arange") == 0);
}

struct empty_facts {
	int	zero_in;	/* an input tensor holds no element */
	int	zero_size;	/* a size argument asks for no element */
	int	zeroed;		/* tensors with a dim newly 0 */
	int	leading;	/* one of them in its dim 0 */
	int	bad;		/* a difference no zero size explains */
};

/* Which dims of b are 0 where a's are not. */
static void
empty_newly_zero(const json_t *a, const json_t *b, struct empty_facts *f)
{
	const json_t	*sa = json_object_get(a, "shape");
	const json_t	*sb = json_object_get(b, "shape");
	size_t		 i;
	int		 any = 0;

	if (json_array_size(sa) != json_array_size(sb))
		return;
	for (i = 0; i < json_array_size(sb); i++)
		if (json_integer_value(json_array_get(sb, i)) == 0 &&
		    json_integer_value(json_array_get(sa, i)) != 0) {
			any = 1;
			if (i == 0)
				f->leading = 1;
		}
	f->zeroed += any;
}

/* Tensors a (base) and b (zeroed) of one argument position. */
static void
empty_tensor(const json_t *a, const json_t *b, struct empty_facts *f)
{
	json_t	*x, *y;

	if (!empty_is_tensor(a) || !empty_is_tensor(b)) {
		f->bad = 1;
		return;
	}
	if (empty_numel(b) == 0 && strcmp(empty_t(b), "out") != 0)
		f->zero_in = 1;
	empty_newly_zero(a, b, f);
	/* an index into a dim whose size changed: only with no index at all */
	if (empty_indexes(b) && empty_numel(b) > 0 &&
	    (strcmp(json_string_value(json_object_get(b, "domain")),
	    "arange") == 0 || !json_equal(json_object_get(a, "high"),
	    json_object_get(b, "high"))))
		f->bad = 1;
	/* the rest of the spec is the same */
	x = json_deep_copy(a);
	y = json_deep_copy(b);
	if (x == NULL || y == NULL) {
		f->bad = 1;
	} else {
		json_object_del(x, "shape");
		json_object_del(y, "shape");
		json_object_del(x, "base");
		json_object_del(y, "base");
		if (empty_indexes(b) && empty_numel(b) == 0) {
			json_object_del(x, "high");
			json_object_del(y, "high");
		}
		if (!json_equal(x, y))
			f->bad = 1;
	}
	json_decref(x);
	json_decref(y);
}

/* One argument, by its schema name (NULL: unknown). */
static void
empty_arg(const char *name, const json_t *a, const json_t *b,
    struct empty_facts *f)
{
	const json_t	*x;
	size_t		 i;

	if (a == NULL || b == NULL) {
		f->bad = 1;
		return;
	}
	if (strcmp(empty_t(a), "tensors") == 0 && strcmp(empty_t(b),
	    "tensors") == 0) {
		if (json_array_size(json_object_get(a, "v")) !=
		    json_array_size(json_object_get(b, "v"))) {
			f->bad = 1;
			return;
		}
		json_array_foreach(json_object_get(a, "v"), i, x) {
			if (strcmp(empty_t(x), "none") == 0)
				continue;
			empty_tensor(x, json_array_get(json_object_get(b, "v"),
			    i), f);
		}
		return;
	}
	if (empty_is_tensor(a)) {
		empty_tensor(a, b, f);
		return;
	}
	if (json_equal((json_t *)a, (json_t *)b))
		return;
	/* a factory's size= with a zero in it asks for an empty result */
	if (name != NULL && strcmp(name, "size") == 0 &&
	    strcmp(empty_t(b), "ints") == 0) {
		json_array_foreach(json_object_get(b, "v"), i, x)
			if (json_integer_value(x) == 0)
				f->zero_size = 1;
		return;
	}
	f->bad = 1;
}

/*
 * Whether zeroed, the case base with one of its sizes set to 0, is an empty
 * case: only tensor shapes (and a factory's size=) differ, an input tensor
 * or the asked-for size holds no element, and every index tensor that still
 * holds indices indexes a dim of the size it had.  The size must be a
 * leading dim (a batch, an index count) or one that tensors share (a
 * contracted K): aten takes those empty, and rejects most empty channel or
 * spatial dims of a single tensor ("non-empty 4D tensor expected").
 */
int
empty_derived(const struct schema *sc, const json_t *base,
    const json_t *zeroed)
{
	struct empty_facts	 f = { 0, 0, 0, 0, 0 };
	const json_t		*aa = json_object_get(base, "args");
	const json_t		*ba = json_object_get(zeroed, "args");
	const json_t		*ak = json_object_get(base, "kwargs");
	const json_t		*bk = json_object_get(zeroed, "kwargs");
	const json_t		*v;
	const char		*k;
	size_t			 i;

	if (json_array_size(aa) != json_array_size(ba) ||
	    json_object_size(ak) != json_object_size(bk))
		return 0;
	json_array_foreach(aa, i, v)
		empty_arg((int)i < sc->nargs ? sc->args[i].name : NULL, v,
		    json_array_get(ba, i), &f);
	json_object_foreach((json_t *)ak, k, v)
		empty_arg(k, v, json_object_get(bk, k), &f);
	if (f.bad || (!f.zero_in && !f.zero_size))
		return 0;
	return f.zero_size || f.leading || f.zeroed >= 2;
}
