/*
 * Shrinking a failing case: the next smaller variant of a CASE.  Every
 * distinct dimension size found in the case's tensors (shape, the base of an
 * expanded layout, out= buffers, tensor lists) that has a smaller size of its
 * compile class is a candidate; shrink_next() returns the case with every
 * occurrence of the idx-th largest such size halved within its class, in
 * tensor shapes and in int lists that hold the same value (normalized_shape,
 * sizes), so that related dimensions stay related.
 *
 * The class is what a JIT compiler specializes an integer argument on:
 * Triton compiles one kernel for sizes divisible by 16, another for 1 and
 * another for the rest.  A size divisible by 16 halves to the next lower
 * multiple of 16 (128 -> 64 -> 32 -> 16, not below), any other to half of it
 * kept off 1 and off multiples of 16 (33 -> 17 -> 8 -> 4 -> 2, 3 -> 2).  So
 * a variant runs the failing case's compiled kernels (in the runner that ran
 * it, from its in-process cache) and a library that autotunes every shape
 * only benchmarks again: the cold screen of 2026-11-30 spent 1,900
 * runner-s on variants' first calls, 50-105 s per variant of mm, mv, addmv,
 * the convolutions and var, when halving moved a size out of its class
 * (33 -> 16, 3 -> 1; commit 21575f4).  The repro stays on the kernel that failed.
 *
 * The scheduler keeps a variant only when it still fails the same way, so a
 * variant that changes the op's meaning costs a re-run, never a wrong repro.
 */
#include <stdlib.h>
#include <string.h>

#include "probes.h"

#define SHRINK_MAXSIZES	64

static int
shrink_is_tensorish(const char *t)
{
	return t != NULL && (!strcmp(t, "tensor") || !strcmp(t, "out"));
}

/* The next smaller size of v's compile class, v itself when there is none. */
static long long
shrink_to(long long v)
{
	long long	 h = v / 2;

	if (v <= 1)
		return v;
	if (v % 16 == 0)
		return h >= 16 ? h - h % 16 : v;
	if (h % 16 == 0)
		h++;
	if (h <= 1)
		h = 2;
	return h < v ? h : v;
}

static void
shrink_add(long long *sizes, int *n, long long v)
{
	int	 i;

	if (shrink_to(v) == v)
		return;
	for (i = 0; i < *n; i++)
		if (sizes[i] == v)
			return;
	if (*n < SHRINK_MAXSIZES)
		sizes[(*n)++] = v;
}

static void
shrink_collect_dims(const json_t *dims, long long *sizes, int *n)
{
	const json_t	*d;
	size_t		 i;

	json_array_foreach(dims, i, d)
		if (json_is_integer(d))
			shrink_add(sizes, n, json_integer_value(d));
}

/* Whether ARG is, or holds, a view of a base (the views class). */
static int
shrink_has_view(const json_t *arg)
{
	const char	*t = json_string_value(json_object_get(arg, "t"));
	const json_t	*v;
	size_t		 i;

	if (json_object_get(arg, "view") != NULL)
		return 1;
	if (t != NULL && !strcmp(t, "tensors"))
		json_array_foreach(json_object_get(arg, "v"), i, v)
			if (shrink_has_view(v))
				return 1;
	return 0;
}

static void
shrink_collect(const json_t *arg, long long *sizes, int *n)
{
	const char	*t = json_string_value(json_object_get(arg, "t"));
	const json_t	*v;
	size_t		 i;

	if (shrink_is_tensorish(t)) {
		shrink_collect_dims(json_object_get(arg, "shape"), sizes, n);
		shrink_collect_dims(json_object_get(arg, "base"), sizes, n);
	} else if (t != NULL && !strcmp(t, "tensors"))
		json_array_foreach(json_object_get(arg, "v"), i, v)
			shrink_collect(v, sizes, n);
}

static void
shrink_dims(json_t *dims, long long from, long long to)
{
	json_t	*d;
	size_t	 i;

	json_array_foreach(dims, i, d)
		if (json_is_integer(d) && json_integer_value(d) == from)
			json_array_set_new(dims, i, json_integer(to));
}

static void
shrink_arg(json_t *arg, long long from, long long to)
{
	const char	*t = json_string_value(json_object_get(arg, "t"));
	json_t		*v;
	size_t		 i;

	if (shrink_is_tensorish(t)) {
		shrink_dims(json_object_get(arg, "shape"), from, to);
		shrink_dims(json_object_get(arg, "base"), from, to);
	} else if (t != NULL && !strcmp(t, "ints"))
		shrink_dims(json_object_get(arg, "v"), from, to);
	else if (t != NULL && !strcmp(t, "tensors"))
		json_array_foreach(json_object_get(arg, "v"), i, v)
			shrink_arg(v, from, to);
}

static int
shrink_cmp_desc(const void *a, const void *b)
{
	long long	 x = *(const long long *)a, y = *(const long long *)b;

	return (x < y) - (x > y);
}

/* The distinct sizes > 1 of the case's tensors, largest first. */
int
shrink_sizes(const json_t *case_spec, long long *sizes, int max)
{
	long long	 all[SHRINK_MAXSIZES];
	const json_t	*a;
	const char	*k;
	size_t		 i;
	int		 n = 0;

	/*
	 * A view's base and ops are sized for its shape: halving one without
	 * the other makes no view, so a views case is its own smallest.
	 */
	json_array_foreach(json_object_get(case_spec, "args"), i, a)
		if (shrink_has_view(a))
			return 0;
	json_object_foreach((json_t *)json_object_get(case_spec, "kwargs"), k, a)
		if (shrink_has_view(a))
			return 0;
	json_array_foreach(json_object_get(case_spec, "args"), i, a)
		shrink_collect(a, all, &n);
	json_object_foreach((json_t *)json_object_get(case_spec, "kwargs"), k, a)
		shrink_collect(a, all, &n);
	qsort(all, n, sizeof(all[0]), shrink_cmp_desc);
	if (n > max)
		n = max;
	memcpy(sizes, all, n * sizeof(all[0]));
	return n;
}

/*
 * The idx-th variant of case_spec (a new reference), NULL when there is
 * none: idx runs over the sizes largest first.
 */
json_t *
shrink_next(const json_t *case_spec, int idx)
{
	long long	 sizes[SHRINK_MAXSIZES], from;
	json_t		*c, *a;
	const char	*k;
	size_t		 i;
	int		 n;

	if (!json_is_object(case_spec) || idx < 0)
		return NULL;
	n = shrink_sizes(case_spec, sizes, SHRINK_MAXSIZES);
	if (idx >= n)
		return NULL;
	from = sizes[idx];
	if ((c = json_deep_copy(case_spec)) == NULL)
		return NULL;
	json_array_foreach(json_object_get(c, "args"), i, a)
		shrink_arg(a, from, shrink_to(from));
	json_object_foreach(json_object_get(c, "kwargs"), k, a)
		shrink_arg(a, from, shrink_to(from));
	return c;
}

/* The number of elements over the case's tensors: smaller is simpler. */
long long
shrink_weight(const json_t *case_spec)
{
	long long	 sizes[SHRINK_MAXSIZES], w = 0;
	int		 i, n;

	n = shrink_sizes(case_spec, sizes, SHRINK_MAXSIZES);
	for (i = 0; i < n; i++)
		w += sizes[i];
	return w;
}
