/*
 * Unit tests for probes/catalog.c and probes/sweep.c: every key expands,
 * every case is a valid protocol CASE, expansions are deterministic, and the
 * sweeps contain the probes the screen relies on (the empty and options
 * classes with empty.c and options.c among them).
 *
 * cc -std=c11 -Wall -Wextra -Werror -Iprobes -Idaemon -o build/check_sweep \
 *     tests/unit/check_sweep.c probes/catalog.c probes/sweep.c \
 *     $(pkg-config --cflags --libs check jansson) -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <jansson.h>

#include "probes.h"
#include "schema.h"

static const char *const required[] = {
	"abs", "add.Tensor", "amax", "bincount", "bitwise_and.Tensor", "clamp",
	"cos", "cumsum", "div.Tensor", "eq.Tensor", "eq.Scalar", "exp",
	"gather", "ge.Tensor", "gelu", "index_select", "lt.Tensor",
	"masked_fill.Scalar", "maximum", "mean", "mean.dim", "minimum", "mm",
	"mul.Tensor", "neg", "nonzero", "pow.Tensor_Scalar",
	"pow.Tensor_Tensor", "reciprocal", "relu", "remainder.Tensor",
	"repeat_interleave.self_int", "rms_norm", "rsqrt", "sigmoid", "silu",
	"sin", "_softmax", "sort", "sqrt", "stack", "sub.Tensor", "sum",
	"sum.dim_IntList", "topk", "where.self", "cat", "bmm", "addmm",
	"layer_norm", "div.Scalar", "sort.stable", "ge.Scalar", "lt.Scalar",
	"bitwise_and.Scalar",
};

static json_t *
expand(const char *key, unsigned classes, const char *dtype)
{
	json_t	*out = json_array(), *dt = NULL;
	int	 n;

	if (dtype != NULL)
		dt = json_pack("[s]", dtype);
	n = probe_expand(key, NULL, classes, dt, out);
	json_decref(dt);
	ck_assert_int_ge(n, 0);
	ck_assert_int_eq((int)json_array_size(out), n);
	return out;
}

static int
valid_shape(const json_t *s)
{
	const json_t	*d;
	size_t		 i;

	if (!json_is_array(s) || json_array_size(s) > 8)
		return 0;
	json_array_foreach(s, i, d)
		if (!json_is_integer(d) || json_integer_value(d) < 0)
			return 0;
	return 1;
}

static long long
numel(const json_t *s)
{
	const json_t	*d;
	size_t		 i;
	long long	 n = 1;

	json_array_foreach(s, i, d)
		n *= json_integer_value(d);
	return n;
}

/* One ARG against the protocol's table; returns a reason or NULL. */
static const char *
arg_invalid(const json_t *a)
{
	static const char *const domains[] = { "normal", "uniform",
	    "positive", "nonzero", "int", "index", "bool", "arange" };
	const char	*t, *dom, *dt;
	const json_t	*v, *e, *lo, *hi;
	size_t		 i;
	int		 ok;

	if (!json_is_object(a))
		return "arg not an object";
	if ((t = json_string_value(json_object_get(a, "t"))) == NULL)
		return "no t";
	v = json_object_get(a, "v");
	if (!strcmp(t, "tensor")) {
		if (!valid_shape(json_object_get(a, "shape")))
			return "bad shape";
		dt = json_string_value(json_object_get(a, "dtype"));
		if (dt == NULL || !dtype_valid(dt))
			return "bad dtype";
		dom = json_string_value(json_object_get(a, "domain"));
		if (dom == NULL)
			return "no domain";
		for (ok = 0, i = 0; i < sizeof(domains) / sizeof(domains[0]); i++)
			ok |= !strcmp(dom, domains[i]);
		if (!ok)
			return "unknown domain";
		lo = json_object_get(a, "low");
		hi = json_object_get(a, "high");
		if ((lo && !json_is_number(lo)) || (hi && !json_is_number(hi)))
			return "bad low/high";
		if (lo && hi && json_number_value(lo) >= json_number_value(hi))
			return "empty range";
		if (!strcmp(dom, "index") &&
		    (!json_is_integer(hi) || json_integer_value(hi) < 1))
			return "index without high";
		if (!strcmp(dom, "bool") && strcmp(dt, "bool"))
			return "bool domain on non-bool";
		/* int [0, 1) on a bool: a mask that selects nothing */
		if (!strcmp(dt, "bool") && strcmp(dom, "bool") &&
		    (strcmp(dom, "int") || !lo || json_number_value(lo) != 0 ||
		    !hi || json_number_value(hi) != 1))
			return "bool tensor without bool domain";
		if (!dtype_is_float(dt) && strcmp(dt, "bool") &&
		    strcmp(dom, "int") && strcmp(dom, "index") &&
		    strcmp(dom, "arange"))
			return "integer tensor with a float domain";
		return NULL;
	}
	if (!strcmp(t, "tensors")) {
		if (!json_is_array(v) || json_array_size(v) == 0)
			return "bad tensors";
		json_array_foreach(v, i, e) {
			if (strcmp(json_string_value(json_object_get(e, "t")),
			    "tensor"))
				return "tensors element not a tensor";
			if (arg_invalid(e))
				return arg_invalid(e);
		}
		return NULL;
	}
	if (!strcmp(t, "int"))
		return json_is_integer(v) ? NULL : "bad int";
	if (!strcmp(t, "float"))
		return json_is_real(v) ? NULL : "bad float";
	if (!strcmp(t, "bool"))
		return json_is_boolean(v) ? NULL : "bad bool";
	if (!strcmp(t, "ints")) {
		if (!json_is_array(v))
			return "bad ints";
		json_array_foreach(v, i, e)
			if (!json_is_integer(e))
				return "bad ints element";
		return NULL;
	}
	if (!strcmp(t, "none"))
		return NULL;
	if (!strcmp(t, "str"))
		return json_is_string(v) ? NULL : "bad str";
	if (!strcmp(t, "dtype"))
		return json_is_string(v) && dtype_valid(json_string_value(v)) ?
		    NULL : "bad dtype arg";
	return "unknown t";
}

static void
check_case(const json_t *c, const char *key, const char *dtype)
{
	const char	*cmp, *why;
	const json_t	*a, *seed;
	json_t		*back;
	char		*s;
	size_t		 i;
	const char	*k;

	ck_assert(json_is_object(c));
	ck_assert_ptr_null(json_object_get(c, "id"));
	ck_assert_ptr_null(json_object_get(c, "name"));
	ck_assert_str_eq(json_string_value(json_object_get(c, "key")), key);
	ck_assert_str_eq(json_string_value(json_object_get(c, "dtype")), dtype);
	ck_assert_int_gt(probe_class_parse(json_string_value(
	    json_object_get(c, "class"))), 0);
	seed = json_object_get(c, "seed");
	ck_assert(json_is_integer(seed));
	ck_assert_int_ge(json_integer_value(seed), 0);
	ck_assert_int_lt(json_integer_value(seed), 2147483648LL);
	cmp = json_string_value(json_object_get(c, "compare"));
	ck_assert_ptr_nonnull(cmp);
	ck_assert(!strcmp(cmp, "float") || !strcmp(cmp, "exact") ||
	    !strcmp(cmp, "sort") || !strcmp(cmp, "topk") ||
	    !strcmp(cmp, "routing") || !strcmp(cmp, "shape_only"));
	ck_assert(json_is_false(json_object_get(c, "inplace")));
	ck_assert(json_is_array(json_object_get(c, "args")));
	ck_assert(json_is_object(json_object_get(c, "kwargs")));
	json_array_foreach(json_object_get(c, "args"), i, a) {
		why = arg_invalid(a);
		ck_assert_msg(why == NULL, "%s %s arg %zu: %s", key, dtype, i,
		    why);
	}
	json_object_foreach((json_t *)json_object_get(c, "kwargs"), k, a) {
		why = arg_invalid(a);
		ck_assert_msg(why == NULL, "%s %s kwarg %s: %s", key, dtype, k,
		    why);
	}
	/* valid JSON: it survives a dump and a load unchanged */
	s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_ptr_nonnull(s);
	back = json_loads(s, 0, NULL);
	ck_assert_ptr_nonnull(back);
	ck_assert(json_equal(back, (json_t *)c));
	json_decref(back);
	free(s);
}

START_TEST(catalog_required)
{
	size_t	i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		ck_assert_msg(catalog_has(required[i]), "missing %s",
		    required[i]);
	ck_assert_uint_ge(catalog_count(), sizeof(required) /
	    sizeof(required[0]));
	ck_assert_ptr_null(catalog_key(catalog_count()));
	ck_assert(!catalog_has("no_such_op"));
	ck_assert(!catalog_has(NULL));
	ck_assert_ptr_null(catalog_dtypes("no_such_op"));
	ck_assert(dtype_valid("bfloat16"));
	ck_assert(dtype_valid("float8_e4m3fn"));
	ck_assert(!dtype_valid("float4_e2m1"));
	ck_assert(!dtype_valid(NULL));
}
END_TEST

START_TEST(catalog_dtype_sets)
{
	json_t	*d;
	char	*s;

	d = catalog_dtypes("bitwise_and.Tensor");
	s = json_dumps(d, JSON_COMPACT);
	ck_assert_str_eq(s,
	    "[\"int64\",\"int32\",\"int8\",\"uint8\",\"bool\"]");
	free(s);
	json_decref(d);
	d = catalog_dtypes("bincount");
	ck_assert_uint_eq(json_array_size(d), 1);
	ck_assert_str_eq(json_string_value(json_array_get(d, 0)), "int64");
	json_decref(d);
	d = catalog_dtypes("sqrt");
	ck_assert_uint_eq(json_array_size(d), 3);
	json_decref(d);
	d = catalog_dtypes("where.self");
	ck_assert_uint_eq(json_array_size(d), 6);
	json_decref(d);
}
END_TEST

START_TEST(classes)
{
	static const char *const names[] = { "same_shape", "broadcast",
	    "scalar", "reduction", "contract" };
	size_t	i;

	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(probe_class_parse(names[i]), 1 << i);
		ck_assert_str_eq(probe_class_name(1 << i), names[i]);
	}
	ck_assert_int_eq(probe_class_parse("bogus"), -1);
	ck_assert_int_eq(probe_class_parse(NULL), -1);
}
END_TEST

START_TEST(every_key_expands)
{
	json_t		*dts, *out, *c, *tot;
	const char	*key, *dt;
	size_t		 i, j, k;
	int		 verbose = getenv("SWEEP_COUNTS") != NULL;

	tot = json_object();
	for (i = 0; i < catalog_count(); i++) {
		key = catalog_key(i);
		dts = catalog_dtypes(key);
		ck_assert_uint_gt(json_array_size(dts), 0);
		for (j = 0; j < json_array_size(dts); j++) {
			dt = json_string_value(json_array_get(dts, j));
			ck_assert(dtype_valid(dt));
			out = expand(key, PROBE_ALL, dt);
			ck_assert_msg(json_array_size(out) > 0, "%s %s: 0 cases",
			    key, dt);
			/*
			 * modest: a CPU screen of the catalog stays minutes
			 * (add.Tensor, the largest: 29 cases, 4 empty, 4
			 * options)
			 */
			ck_assert_msg(json_array_size(out) <= 40,
			    "%s %s: %zu cases", key, dt, json_array_size(out));
			json_array_foreach(out, k, c)
				check_case(c, key, dt);
			if (verbose)
				printf("%-28s %-9s %zu\n", key, dt,
				    json_array_size(out));
			json_object_set_new(tot, dt, json_integer(
			    json_integer_value(json_object_get(tot, dt)) +
			    (json_int_t)json_array_size(out)));
			json_decref(out);
		}
		json_decref(dts);
	}
	if (verbose) {
		char	*s = json_dumps(tot, JSON_SORT_KEYS);

		printf("total per dtype: %s\n", s);
		free(s);
	}
	json_decref(tot);
}
END_TEST

START_TEST(deterministic)
{
	json_t	*a, *b;
	char	*sa, *sb;
	size_t	 i;

	for (i = 0; i < catalog_count(); i++) {
		a = expand(catalog_key(i), PROBE_ALL, NULL);
		b = expand(catalog_key(i), PROBE_ALL, NULL);
		sa = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
		sb = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
		ck_assert_str_eq(sa, sb);
		free(sa);
		free(sb);
		json_decref(a);
		json_decref(b);
	}
	/* a filtered expansion gives the same cases as the full one */
	a = expand("add.Tensor", PROBE_BROADCAST, "float16");
	b = expand("add.Tensor", PROBE_ALL, "float16");
	ck_assert_uint_gt(json_array_size(a), 0);
	for (i = 0; i < json_array_size(b); i++)
		if (!strcmp(json_string_value(json_object_get(
		    json_array_get(b, i), "class")), "broadcast"))
			break;
	ck_assert(json_equal(json_array_get(a, 0), json_array_get(b, i)));
	json_decref(a);
	json_decref(b);
	ck_assert_uint_eq(seed_case("add.Tensor", "broadcast", "float16", 0),
	    seed_case("add.Tensor", "broadcast", "float16", 0));
	ck_assert_uint_ne(seed_case("add.Tensor", "broadcast", "float16", 0),
	    seed_case("add.Tensor", "broadcast", "float16", 1));
	ck_assert_uint_ne(seed_case("add.Tensor", "broadcast", "float16", 0),
	    seed_case("add.Tensor", "broadcast", "bfloat16", 0));
}
END_TEST

START_TEST(seeds_distinct)
{
	json_t	*out, *seen;
	char	 buf[32];
	size_t	 i, k;

	for (i = 0; i < catalog_count(); i++) {
		out = expand(catalog_key(i), PROBE_ALL, NULL);
		seen = json_object();
		for (k = 0; k < json_array_size(out); k++) {
			snprintf(buf, sizeof(buf), "%lld", (long long)
			    json_integer_value(json_object_get(
			    json_array_get(out, k), "seed")));
			ck_assert_msg(json_object_get(seen, buf) == NULL,
			    "%s: seed %s twice", catalog_key(i), buf);
			json_object_set_new(seen, buf, json_true());
		}
		json_decref(seen);
		json_decref(out);
	}
}
END_TEST

START_TEST(filters)
{
	json_t	*out = json_array(), *dt;

	ck_assert_int_eq(probe_expand("no_such_op", NULL, PROBE_ALL, NULL, out), -1);
	dt = json_pack("[s]", "bool");
	ck_assert_int_eq(probe_expand("sqrt", NULL, PROBE_ALL, dt, out), 0);
	json_decref(dt);
	ck_assert_int_eq(probe_expand("add.Tensor", NULL, PROBE_REDUCTION, NULL,
	    out), 0);
	ck_assert_int_eq(probe_expand("add.Tensor", NULL, 0, NULL, out), 0);
	ck_assert_uint_eq(json_array_size(out), 0);
	/* appends, does not replace */
	ck_assert_int_gt(probe_expand("neg", NULL, PROBE_SAME_SHAPE, NULL, out), 0);
	dt = json_pack("[s]", "float32");
	ck_assert_int_gt(probe_expand("neg", NULL, PROBE_SAME_SHAPE, dt, out), 0);
	json_decref(dt);
	/* 9 shapes per dtype, and the bfloat16 64-bit-indexing case */
	ck_assert_uint_eq(json_array_size(out), 5 * 9 + 1 + 9);
	json_decref(out);
}
END_TEST

START_TEST(huge_case)
{
	json_t		*out = json_array(), *c, *a;
	size_t		 i, n = 0;

	ck_assert_int_gt(probe_expand("mul.Tensor", NULL, PROBE_SAME_SHAPE, NULL,
	    out), 0);
	json_array_foreach(out, i, c) {
		if (!json_is_true(json_object_get(c, "huge")))
			continue;
		n++;
		/* bfloat16 only, every operand 2^31 + 17 long, made on the device */
		ck_assert_str_eq(json_string_value(json_object_get(c, "dtype")),
		    "bfloat16");
		ck_assert_uint_eq(json_array_size(json_object_get(c, "args")), 2);
		a = json_array_get(json_object_get(c, "args"), 1);
		ck_assert(json_integer_value(json_array_get(json_object_get(a,
		    "shape"), 0)) == 2147483648LL + 17);
		ck_assert_str_eq(json_string_value(json_object_get(a, "gen")),
		    "philox");
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_object_get(c, "sample"), "tail")), 4096);
	}
	ck_assert_uint_eq(n, 1);
	json_decref(out);
}
END_TEST

/*
 * Data movement past 2^31 elements: one case per family, in the smallest
 * dtype the entry sweeps, whose largest input or whose output holds more
 * than 2^31 elements; the large tensors made by index arithmetic ("gen":
 * "arange", distinct starts), the small ones (indices) as usual.
 */
static const struct {
	const char	*key, *schema;
	char		 grows;	/* i: an input is huge; s stack, r repeat, n
				 * repeat_interleave, p pad: the output is */
} huge_movers[] = {
	{ "cat", NULL, 'i' },
	{ "stack", NULL, 's' },
	{ "gather", NULL, 'i' },
	{ "index_select", NULL, 'i' },
	{ "repeat_interleave.self_int", NULL, 'n' },
	{ "copy_", "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) "
	    "-> Tensor(a!)", 'i' },
	{ "clone", "clone(Tensor self, *, MemoryFormat? memory_format=None) -> "
	    "Tensor", 'i' },
	{ "contiguous", "contiguous(Tensor(a) self, *, MemoryFormat "
	    "memory_format=0) -> Tensor(a)", 'i' },
	{ "repeat", "repeat(Tensor self, SymInt[] repeats) -> Tensor", 'r' },
	{ "constant_pad_nd", "constant_pad_nd(Tensor self, SymInt[] pad, Scalar "
	    "value=0) -> Tensor", 'p' },
	{ "pad", "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? "
	    "value=None) -> Tensor", 'p' },
	{ "scatter.src", "scatter.src(Tensor self, int dim, Tensor index, Tensor "
	    "src) -> Tensor", 'i' },
};

/* The tensors of a case's ARGs, lists flattened, in order. */
static void
huge_tensors(const json_t *a, json_t *into)
{
	const json_t	*v;
	size_t		 i;
	const char	*t = json_string_value(json_object_get(a, "t"));

	if (t != NULL && !strcmp(t, "tensor"))
		json_array_append(into, (json_t *)a);
	else if (t != NULL && !strcmp(t, "tensors"))
		json_array_foreach(json_object_get(a, "v"), i, v)
			huge_tensors(v, into);
}

/* Elements of the output by the family's rule (grows != 'i'). */
static long long
huge_out_numel(const json_t *c, char grows, const json_t *ts)
{
	const json_t	*args = json_object_get(c, "args"), *self, *p, *d;
	long long	 n = numel(json_object_get(json_array_get(ts, 0),
			    "shape")), m;
	size_t		 i, nd;

	self = json_object_get(json_array_get(ts, 0), "shape");
	switch (grows) {
	case 's':
		return n * (long long)json_array_size(ts);
	case 'r':
		json_array_foreach(json_object_get(json_array_get(args, 1),
		    "v"), i, d)
			n *= json_integer_value(d);
		return n;
	case 'n':
		return n * json_integer_value(json_object_get(
		    json_array_get(args, 1), "v"));
	case 'p':
		/* pad = [lo, hi] per dim from the last one */
		p = json_object_get(json_array_get(args, 1), "v");
		nd = json_array_size(self);
		for (m = 1, i = 0; i < nd; i++) {
			long long	e = json_integer_value(json_array_get(
					    self, i));
			size_t		k = nd - 1 - i;

			if (2 * k + 1 < json_array_size(p))
				e += json_integer_value(json_array_get(p,
				    2 * k)) + json_integer_value(
				    json_array_get(p, 2 * k + 1));
			m *= e;
		}
		return m;
	}
	return 0;
}

START_TEST(huge_movers_cases)
{
	json_t		*out, *again, *c, *ts, *t, *dt;
	const char	*gen, *dtype;
	char		*sa, *sb;
	size_t		 i, k, j, n;
	long long	 big, bytes;
	int		 starts;

	for (k = 0; k < sizeof(huge_movers) / sizeof(huge_movers[0]); k++) {
		out = json_array();
		again = json_array();
		ck_assert_int_gt(probe_expand(huge_movers[k].key,
		    huge_movers[k].schema, PROBE_ALL, NULL, out), 0);
		ck_assert_int_gt(probe_expand(huge_movers[k].key,
		    huge_movers[k].schema, PROBE_ALL, NULL, again), 0);
		sa = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
		sb = json_dumps(again, JSON_COMPACT | JSON_SORT_KEYS);
		ck_assert_str_eq(sa, sb);
		free(sa);
		free(sb);
		n = 0;
		json_array_foreach(out, i, c) {
			if (!json_is_true(json_object_get(c, "huge")) ||
			    json_object_get(c, "oracle") == NULL)
				continue;
			n++;
			ck_assert_str_eq(json_string_value(json_object_get(c,
			    "oracle")), "native");
			ck_assert_str_eq(json_string_value(json_object_get(c,
			    "class")), "same_shape");
			dtype = json_string_value(json_object_get(c, "dtype"));
			ck_assert_msg(!strcmp(dtype, "bool") || !strcmp(dtype,
			    "int8") || !strcmp(dtype, "uint8") || !strcmp(dtype,
			    "float16"), "%s: %s", huge_movers[k].key, dtype);
			ts = json_array();
			json_array_foreach(json_object_get(c, "args"), j, t)
				huge_tensors(t, ts);
			big = bytes = 0;
			starts = 0;
			json_array_foreach(ts, j, t) {
				long long	m = numel(json_object_get(t,
						    "shape"));

				big = m > big ? m : big;
				bytes += m * (strcmp(dtype, "float16") ? 1 : 2);
				gen = json_string_value(json_object_get(t,
				    "gen"));
				if (m < (1LL << 24)) {
					ck_assert_ptr_null(gen);
					continue;
				}
				ck_assert_str_eq(gen, "arange");
				ck_assert_int_eq(json_integer_value(
				    json_object_get(t, "mod")), strcmp(dtype,
				    "bool") ? 251 : 3);
				ck_assert_int_eq(json_integer_value(
				    json_object_get(t, "start")), starts++);
			}
			if (huge_movers[k].grows == 'i')
				ck_assert_msg(big > 2147483648LL, "%s: %lld",
				    huge_movers[k].key, big);
			else
				ck_assert_msg(huge_out_numel(c, huge_movers[k].
				    grows, ts) > 2147483648LL, "%s: output %lld",
				    huge_movers[k].key, huge_out_numel(c,
				    huge_movers[k].grows, ts));
			/* inputs of a few GiB at most */
			ck_assert_msg(bytes <= (5LL << 30), "%s: %lld bytes",
			    huge_movers[k].key, bytes);
			json_decref(ts);
		}
		ck_assert_msg(n == 1, "%s: %zu huge cases", huge_movers[k].key,
		    n);
		json_decref(out);
		json_decref(again);
		/* one dtype: none in another */
		out = json_array();
		dt = json_pack("[s]", "float32");
		probe_expand(huge_movers[k].key, huge_movers[k].schema,
		    PROBE_ALL, dt, out);
		json_array_foreach(out, i, c)
			ck_assert(!json_is_true(json_object_get(c, "huge")));
		json_decref(dt);
		json_decref(out);
	}
}
END_TEST

/* The broadcast of two shapes, or NULL when incompatible. */
static json_t *
bshape(const json_t *a, const json_t *b)
{
	size_t		 na = json_array_size(a), nb = json_array_size(b);
	size_t		 n = na > nb ? na : nb, i;
	json_t		*r = json_array();
	long long	 x, y;

	for (i = 0; i < n; i++) {
		x = i + na >= n ? json_integer_value(json_array_get(a,
		    i + na - n)) : 1;
		y = i + nb >= n ? json_integer_value(json_array_get(b,
		    i + nb - n)) : 1;
		if (x != y && x != 1 && y != 1) {
			json_decref(r);
			return NULL;
		}
		json_array_append_new(r, json_integer(x == 1 ? y : x));
	}
	return r;
}

static const json_t *
argshape(const json_t *c, size_t i)
{
	return json_object_get(json_array_get(json_object_get(c, "args"), i),
	    "shape");
}

/* For each operand position < nops: some broadcast case expands it. */
static void
check_each_broadcasts(const char *key, size_t nops)
{
	json_t		*out, *c, *r, *t;
	size_t		 k, i;
	int		 seen[3] = { 0, 0, 0 };

	out = expand(key, PROBE_BROADCAST, "float32");
	ck_assert_uint_gt(json_array_size(out), 0);
	json_array_foreach(out, k, c) {
		r = json_deep_copy(argshape(c, 0));
		for (i = 1; i < nops; i++) {
			t = bshape(r, argshape(c, i));
			ck_assert_msg(t != NULL, "%s: incompatible shapes",
			    key);
			json_decref(r);
			r = t;
		}
		for (i = 0; i < nops; i++)
			if (!json_equal(r, (json_t *)argshape(c, i)))
				seen[i] = 1;
		json_decref(r);
	}
	for (i = 0; i < nops; i++)
		ck_assert_msg(seen[i], "%s: operand %zu never broadcasts", key,
		    i);
	json_decref(out);
}

START_TEST(broadcast_first_operand)
{
	check_each_broadcasts("add.Tensor", 2);
	check_each_broadcasts("mul.Tensor", 2);
	check_each_broadcasts("remainder.Tensor", 2);
	check_each_broadcasts("eq.Tensor", 2);
	check_each_broadcasts("where.self", 3);
	check_each_broadcasts("masked_fill.Scalar", 2);
}
END_TEST

START_TEST(broadcast_rank4)
{
	json_t	*out, *c;
	size_t	 k;
	int	 r4 = 0;

	out = expand("sub.Tensor", PROBE_BROADCAST, "bfloat16");
	json_array_foreach(out, k, c)
		if (json_array_size(argshape(c, 0)) == 4 ||
		    json_array_size(argshape(c, 1)) == 4)
			r4 = 1;
	ck_assert(r4);
	json_decref(out);
}
END_TEST

START_TEST(contract_clamp)
{
	json_t		*out, *c, *args, *kw;
	size_t		 k;
	int		 no_max = 0, no_min = 0;

	out = expand("clamp", PROBE_CONTRACT, "float16");
	json_array_foreach(out, k, c) {
		args = json_object_get(c, "args");
		kw = json_object_get(c, "kwargs");
		if (json_array_size(args) == 2 &&
		    json_object_get(kw, "max") == NULL)
			no_max = 1;
		if (json_array_size(args) == 1 &&
		    json_object_get(kw, "min") == NULL &&
		    json_object_get(kw, "max") != NULL)
			no_min = 1;
	}
	ck_assert(no_max);
	ck_assert(no_min);
	json_decref(out);
}
END_TEST

START_TEST(contract_optional)
{
	json_t		*out, *c, *args;
	size_t		 k;
	int		 bare = 0, dimnone = 0, alpha = 0;

	out = expand("rms_norm", PROBE_CONTRACT, "bfloat16");
	json_array_foreach(out, k, c)
		if (json_array_size(json_object_get(c, "args")) == 2 &&
		    json_object_size(json_object_get(c, "kwargs")) == 0)
			bare = 1;
	ck_assert(bare);
	json_decref(out);

	bare = 0;
	out = expand("layer_norm", PROBE_CONTRACT, "float32");
	json_array_foreach(out, k, c)
		if (json_array_size(json_object_get(c, "args")) == 2 &&
		    json_object_size(json_object_get(c, "kwargs")) == 0)
			bare = 1;
	ck_assert(bare);
	json_decref(out);

	out = expand("sum.dim_IntList", PROBE_CONTRACT, "float16");
	json_array_foreach(out, k, c) {
		args = json_object_get(c, "args");
		if (!strcmp(json_string_value(json_object_get(json_array_get(
		    args, 1), "t")), "none"))
			dimnone = 1;
	}
	ck_assert(dimnone);
	json_decref(out);

	out = expand("add.Tensor", PROBE_CONTRACT, "int32");
	json_array_foreach(out, k, c)
		if (json_object_get(json_object_get(c, "kwargs"), "alpha"))
			alpha = 1;
	ck_assert(alpha);
	json_decref(out);
}
END_TEST

static int
norm_dim(int dim, size_t nd)
{
	if (nd == 0)
		return 0;
	return dim < 0 ? dim + (int)nd : dim;
}

/* gather / index_select: index "high" is within the indexed dim */
static void
check_index_high(const char *key)
{
	json_t		*out, *c, *args, *kw, *self, *ix, *dimv;
	long long	 size, high;
	size_t		 k, nd;
	int		 dim;

	out = expand(key, PROBE_ALL, NULL);
	json_array_foreach(out, k, c) {
		args = json_object_get(c, "args");
		kw = json_object_get(c, "kwargs");
		self = json_array_get(args, 0);
		dimv = json_array_size(args) > 1 ? json_array_get(args, 1) :
		    json_object_get(kw, "dim");
		ix = json_array_size(args) > 2 ? json_array_get(args, 2) :
		    json_object_get(kw, "index");
		ck_assert_ptr_nonnull(dimv);
		ck_assert_ptr_nonnull(ix);
		ck_assert_str_eq(json_string_value(json_object_get(ix,
		    "domain")), "index");
		nd = json_array_size(json_object_get(self, "shape"));
		dim = norm_dim((int)json_integer_value(json_object_get(dimv,
		    "v")), nd);
		size = nd == 0 ? 1 : json_integer_value(json_array_get(
		    json_object_get(self, "shape"), dim));
		high = json_integer_value(json_object_get(ix, "high"));
		/* into a dim of size 0 only an empty index is in range */
		ck_assert_msg(high >= 1 && (high <= size || numel(
		    json_object_get(ix, "shape")) == 0),
		    "%s: index high %lld, dim size %lld", key, high, size);
		if (!strcmp(key, "gather"))
			ck_assert_str_eq(json_string_value(json_object_get(ix,
			    "dtype")), "int64");
	}
	json_decref(out);
}

START_TEST(index_domains)
{
	json_t		*out, *c, *a;
	size_t		 k;

	check_index_high("gather");
	check_index_high("index_select");
	/* bincount: non-negative integers */
	out = expand("bincount", PROBE_ALL, NULL);
	json_array_foreach(out, k, c) {
		a = json_array_get(json_object_get(c, "args"), 0);
		ck_assert_str_eq(json_string_value(json_object_get(a, "domain")),
		    "index");
		ck_assert_str_eq(json_string_value(json_object_get(a, "dtype")),
		    "int64");
	}
	json_decref(out);
}
END_TEST

/* Domains that keep the op defined: positive bases, nonzero divisors. */
static void
check_domain(const char *key, size_t argi)
{
	json_t		*out, *c, *a;
	const char	*dom;
	size_t		 k;
	double		 lo, hi;

	out = expand(key, PROBE_ALL, NULL);
	json_array_foreach(out, k, c) {
		a = json_array_get(json_object_get(c, "args"), argi);
		if (strcmp(json_string_value(json_object_get(a, "t")), "tensor"))
			continue;
		dom = json_string_value(json_object_get(a, "domain"));
		if (!strcmp(dom, "positive") || !strcmp(dom, "nonzero"))
			continue;
		ck_assert_msg(!strcmp(dom, "int"), "%s: domain %s", key, dom);
		lo = json_number_value(json_object_get(a, "low"));
		hi = json_number_value(json_object_get(a, "high"));
		/* [lo, hi) excludes 0 */
		ck_assert_msg(lo > 0 || hi <= 0, "%s: int range [%g,%g)", key,
		    lo, hi);
	}
	json_decref(out);
}

START_TEST(value_domains)
{
	check_domain("sqrt", 0);
	check_domain("rsqrt", 0);
	check_domain("pow.Tensor_Scalar", 0);
	check_domain("pow.Tensor_Tensor", 0);
	check_domain("reciprocal", 0);
	check_domain("div.Tensor", 1);
	check_domain("remainder.Tensor", 1);
}
END_TEST

START_TEST(reseed)
{
	json_t	*out, *c, *r1, *r1b, *r2;

	out = expand("cumsum", PROBE_REDUCTION, "bfloat16");
	c = json_array_get(out, 0);
	r1 = seed_reseed(c, 1);
	r1b = seed_reseed(c, 1);
	r2 = seed_reseed(c, 2);
	ck_assert(json_equal(r1, r1b));
	ck_assert(!json_equal(r1, c));
	ck_assert(!json_equal(r1, r2));
	ck_assert_int_lt(json_integer_value(json_object_get(r1, "seed")),
	    2147483648LL);
	json_object_set(r1, "seed", json_object_get(c, "seed"));
	ck_assert(json_equal(r1, c));
	ck_assert_ptr_null(seed_reseed(NULL, 1));
	json_decref(r1);
	json_decref(r1b);
	json_decref(r2);
	json_decref(out);

	/* edge-value tensors get half the special values per regeneration */
	out = json_array();
	ck_assert_int_gt(probe_expand("exp", "exp(Tensor self) -> Tensor",
	    PROBE_EDGE_VALUES, NULL, out), 0);
	c = json_array_get(out, 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(c, "args"), 0), "domain")), "edge");
	r1 = seed_reseed(c, 1);
	r2 = seed_reseed(c, 3);
	ck_assert_double_eq(json_real_value(json_object_get(json_array_get(
	    json_object_get(r1, "args"), 0), "edge_frac")), 0.25);
	ck_assert_double_eq(json_real_value(json_object_get(json_array_get(
	    json_object_get(r2, "args"), 0), "edge_frac")), 0.0625);
	ck_assert_ptr_null(json_object_get(json_array_get(json_object_get(c,
	    "args"), 0), "edge_frac"));
	json_decref(r1);
	json_decref(r2);
	json_decref(out);
}
END_TEST

START_TEST(reduction_sweeps)
{
	json_t		*out, *c, *a;
	size_t		 k;
	int		 dims[8] = { 0 }, keep[2] = { 0, 0 }, full = 0, long_last = 0,
			 long_inner = 0;
	long long	 d, n;
	const json_t	*sh;

	out = expand("sum.dim_IntList", PROBE_REDUCTION, "float16");
	json_array_foreach(out, k, c) {
		a = json_array_get(json_object_get(c, "args"), 1);
		sh = argshape(c, 0);
		keep[json_is_true(json_object_get(json_array_get(
		    json_object_get(c, "args"), 2), "v"))] = 1;
		n = json_array_size(json_object_get(a, "v"));
		if (n == 0)
			full = 1;
		if (n == 1) {
			d = json_integer_value(json_array_get(
			    json_object_get(a, "v"), 0));
			if (json_array_size(sh) == 3 && d >= -3 && d <= 2)
				dims[d + 3] = 1;
			if (json_integer_value(json_array_get(sh, d < 0 ?
			    d + (long long)json_array_size(sh) : d)) == 4096) {
				if (d == -1 || d == (long long)
				    json_array_size(sh) - 1)
					long_last = 1;
				else
					long_inner = 1;
			}
		}
	}
	for (k = 0; k < 6; k++)
		ck_assert_msg(dims[k], "dim %d not swept", (int)k - 3);
	ck_assert(keep[0] && keep[1]);
	ck_assert(full);
	ck_assert(long_last);
	ck_assert(long_inner);
	json_decref(out);
	(void)numel;
}
END_TEST

START_TEST(shrink_halves_sizes)
{
	json_t		*c, *n1, *n2, *n3;
	long long	 sizes[8];
	int		 n;

	/* layer_norm-like: input [4,4096], normalized_shape [4096], weight [4096] */
	c = json_pack("{s:s,s:[{s:s,s:[i,i],s:s},{s:s,s:[i]},{s:s,s:[i],s:s}],"
	    "s:{s:{s:s,s:[i,i],s:s,s:[i,i]}}}", "key", "x",
	    "args", "t", "tensor", "shape", 4, 4096, "dtype", "float32",
	    "t", "ints", "v", 4096,
	    "t", "tensor", "shape", 4096, "dtype", "float32",
	    "kwargs", "out", "t", "tensor", "shape", 4, 4096, "dtype", "float32",
	    "base", 1, 4096);
	n = shrink_sizes(c, sizes, 8);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(sizes[0], 4096);
	ck_assert_int_eq(sizes[1], 4);
	n1 = shrink_next(c, 0);
	ck_assert_ptr_nonnull(n1);
	/* every 4096 became 2048, in shapes, the int list and the base */
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n1, "args"), 0), "shape"), 1)), 2048);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n1, "args"), 1), "v"), 0)), 2048);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n1, "args"), 2), "shape"), 0)), 2048);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_object_get(json_object_get(n1, "kwargs"), "out"), "base"), 1)),
	    2048);
	ck_assert(shrink_weight(n1) < shrink_weight(c));
	/* the second size: 4 -> 2 and nothing else */
	n2 = shrink_next(c, 1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n2, "args"), 0), "shape"), 0)), 2);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n2, "args"), 0), "shape"), 1)), 4096);
	/* past the last size: none; the input is not modified */
	ck_assert_ptr_null(shrink_next(c, 2));
	ck_assert_ptr_null(shrink_next(NULL, 0));
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(c, "args"), 0), "shape"), 1)), 4096);
	/* sizes of 1 and 0-d tensors give nothing to shrink */
	n3 = json_pack("{s:[{s:s,s:[i,i],s:s},{s:s,s:[],s:s}]}", "args", "t",
	    "tensor", "shape", 1, 1, "dtype", "float32", "t", "tensor", "shape",
	    "dtype", "float32");
	ck_assert_ptr_null(shrink_next(n3, 0));
	json_decref(n1);
	json_decref(n2);
	json_decref(n3);
	json_decref(c);
}
END_TEST

/*
 * The views class: catalog keys write no tensor, so they get none; the
 * derivation (views.c) takes any generator's cases, so a catalog case that
 * writes its first argument gets the same views as a schema-made one, and
 * only the written tensor's memory differs from the case it came from.
 */
START_TEST(views_from_catalog_cases)
{
	json_t		*src, *keep, *out, *c, *back, *a;
	const char	*dt, *prev = NULL;
	size_t		 i, k;
	int		 n, idx = 0, ndt = 0;
	long long	 sizes[8];

	for (i = 0; i < catalog_count(); i++) {
		out = expand(catalog_key(i), PROBE_VIEWS, NULL);
		ck_assert_uint_eq(json_array_size(out), 0);
		json_decref(out);
	}
	src = expand("neg", PROBE_SAME_SHAPE, NULL);
	out = json_array();
	ck_assert_int_eq(views_derive(src, out), 0);	/* nothing written */
	json_array_foreach(src, i, c)
		json_object_set_new(c, "mutates", json_string("self"));
	keep = json_deep_copy(src);
	n = views_derive(src, out);
	ck_assert(json_equal(src, keep));	/* the sources stay as they were */
	ck_assert_int_eq(n, (int)json_array_size(out));
	json_array_foreach(out, i, c) {
		dt = json_string_value(json_object_get(c, "dtype"));
		if (prev == NULL || strcmp(prev, dt) != 0) {
			idx = 0;
			ndt++;
		}
		prev = dt;
		ck_assert_str_eq(json_string_value(json_object_get(c, "class")),
		    "views");
		ck_assert_uint_eq(json_integer_value(json_object_get(c, "seed")),
		    seed_case("neg", "views", dt, idx++));
		ck_assert_int_le(idx, 5);
		a = json_array_get(json_object_get(c, "args"), 0);
		ck_assert(json_is_object(json_object_get(a, "view")));
		/* a views case is its own smallest: no size to halve */
		ck_assert_int_eq(shrink_sizes(c, sizes, 8), 0);
		ck_assert_ptr_null(shrink_next(c, 0));
		/* without its view, class and seed: one of the sources */
		back = json_deep_copy(c);
		json_object_del(json_array_get(json_object_get(back, "args"), 0),
		    "view");
		json_object_set_new(back, "class", json_string("same_shape"));
		json_array_foreach(src, k, a) {
			json_object_set(back, "seed", json_object_get(a, "seed"));
			if (json_equal(back, a))
				break;
		}
		ck_assert_msg(k < json_array_size(src), "views case %zu comes "
		    "from no source", i);
		json_decref(back);
	}
	/* neg: 5 dtypes, a rank-2 and a rank-1 shape each: 5 views */
	ck_assert_int_eq(ndt, 5);
	ck_assert_int_eq(n, 5 * 5);
	/* the same sources, the same cases */
	json_array_clear(keep);
	ck_assert_int_eq(views_derive(src, keep), n);
	ck_assert(json_equal(keep, out));
	json_decref(keep);
	json_decref(out);
	json_decref(src);
}
END_TEST

/* A size halves within its compile class: divisible by 16, or neither 1 nor
 * divisible by 16; 16 and 2 are the smallest of theirs. */
static long long
shrink_once(long long v)
{
	json_t		*c, *n;
	long long	 r;

	c = json_pack("{s:[{s:s,s:[I],s:s}]}", "args", "t", "tensor", "shape",
	    (json_int_t)v, "dtype", "float32");
	n = shrink_next(c, 0);
	r = n == NULL ? v : json_integer_value(json_array_get(json_object_get(
	    json_array_get(json_object_get(n, "args"), 0), "shape"), 0));
	json_decref(n);
	json_decref(c);
	return r;
}

START_TEST(shrink_keeps_the_compile_class)
{
	static const long long	 in[] = { 128, 64, 48, 32, 16, 4097, 2049, 33,
	    17, 8, 5, 3, 2, 1, 0 };
	static const long long	 out[] = { 64, 32, 16, 16, 16, 2049, 1025, 17,
	    8, 4, 2, 2, 2, 1, 0 };
	size_t	 i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		long long	 r = shrink_once(in[i]);

		ck_assert_msg(r == out[i], "%lld -> %lld, want %lld", in[i], r,
		    out[i]);
		if (r != in[i])
			ck_assert((r % 16 == 0) == (in[i] % 16 == 0) && r != 1);
	}
}
END_TEST

START_TEST(exotic_movers)
{
	json_t		*out = json_array(), *c, *dt;
	size_t		 i, n = 0;

	/* cat moves every dtype: one case per exotic dtype, compared exactly */
	ck_assert_int_gt(probe_expand("cat", NULL, PROBE_DTYPE_EXOTIC, NULL,
	    out), 0);
	json_array_foreach(out, i, c) {
		ck_assert_str_eq(json_string_value(json_object_get(c, "class")),
		    "dtype_exotic");
		ck_assert_str_eq(json_string_value(json_object_get(c, "compare")),
		    "exact");
		n++;
	}
	ck_assert_uint_eq(n, 7);
	/* the dtype filter applies; a computing family gets none */
	json_array_clear(out);
	dt = json_pack("[s]", "float8_e8m0fnu");
	ck_assert_int_eq(probe_expand("gather", NULL, PROBE_DTYPE_EXOTIC, dt,
	    out), 1);
	ck_assert_int_eq(probe_expand("neg", NULL, PROBE_DTYPE_EXOTIC, dt, out),
	    0);
	json_decref(dt);
	json_decref(out);
}
END_TEST

/*
 * The mode classes cover the dtypes only dtype_exotic screens: gather's
 * e8m0 case gets a trace and a graph case of its own, with the exotic
 * case's arguments, and asking for the modes alone adds no exotic case.
 */
START_TEST(exotic_modes)
{
	json_t		*out = json_array(), *ex = json_array(), *c, *dt;
	size_t		 i, n = 0;

	dt = json_pack("[s]", "float8_e8m0fnu");
	ck_assert_int_eq(probe_expand("gather", NULL, PROBE_DTYPE_EXOTIC, dt,
	    ex), 1);
	ck_assert_int_eq(probe_expand("gather", NULL, PROBE_TRACE | PROBE_GRAPH,
	    dt, out), 2);
	json_array_foreach(out, i, c) {
		const char *cls = json_string_value(json_object_get(c, "class"));

		ck_assert(strcmp(cls, "trace") == 0 || strcmp(cls, "graph") == 0);
		ck_assert_str_eq(json_string_value(json_object_get(c, "dtype")),
		    "float8_e8m0fnu");
		ck_assert(json_equal(json_object_get(c, "args"),
		    json_object_get(json_array_get(ex, 0), "args")));
		n++;
	}
	ck_assert_uint_eq(n, 2);
	/* a computing family has no exotic case, so no mode case either */
	json_array_clear(out);
	ck_assert_int_eq(probe_expand("neg", NULL, PROBE_TRACE | PROBE_GRAPH, dt,
	    out), 0);
	json_decref(dt);
	json_decref(ex);
	json_decref(out);
}
END_TEST

/*
 * The empty class: an input with a zero-size dim, a mask or input that
 * holds no true or nonzero element (the int domain [0, 1)), or a result
 * asked to be empty (k = 0, repeats = 0).
 */
static int
arg_has_zero_dim(const json_t *a)
{
	const char	*t = json_string_value(json_object_get(a, "t"));
	const json_t	*d, *e;
	size_t		 i, j;

	if (t != NULL && strcmp(t, "tensors") == 0) {
		json_array_foreach(json_object_get(a, "v"), j, e)
			if (arg_has_zero_dim(e))
				return 1;
		return 0;
	}
	if (t == NULL || strcmp(t, "tensor") != 0)
		return 0;
	json_array_foreach(json_object_get(a, "shape"), i, d)
		if (json_integer_value(d) == 0)
			return 1;
	return 0;
}

static int
arg_selects_nothing(const json_t *a)
{
	const char	*t = json_string_value(json_object_get(a, "t"));
	const char	*dom = json_string_value(json_object_get(a, "domain"));

	return t != NULL && strcmp(t, "tensor") == 0 && dom != NULL &&
	    strcmp(dom, "int") == 0 &&
	    json_integer_value(json_object_get(a, "low")) == 0 &&
	    json_integer_value(json_object_get(a, "high")) == 1;
}

/* The ARG of the schema argument `name` in case c, NULL when not passed. */
static const json_t *
case_arg(const json_t *c, const char *key, const char *name)
{
	const struct catalog_entry	*ce = catalog_find(key);
	struct schema			 sc;
	const json_t			*v;
	int				 i;

	if ((v = json_object_get(json_object_get(c, "kwargs"), name)) != NULL)
		return v;
	ck_assert_ptr_nonnull(ce);
	ck_assert_int_eq(schema_parse(ce->schema, &sc, NULL), 0);
	if ((i = schema_find(&sc, name)) < 0)
		return NULL;
	return json_array_get(json_object_get(c, "args"), (size_t)i);
}

static int
case_is_empty(const json_t *c, const char *key, int *zero_dim)
{
	const json_t	*a, *k;
	const char	*n;
	size_t		 i;
	int		 any = 0;

	*zero_dim = 0;
	json_array_foreach(json_object_get(c, "args"), i, a) {
		*zero_dim |= arg_has_zero_dim(a);
		any |= arg_selects_nothing(a);
	}
	json_object_foreach(json_object_get(c, "kwargs"), n, a) {
		*zero_dim |= arg_has_zero_dim(a);
		any |= arg_selects_nothing(a);
	}
	k = case_arg(c, key, "k");
	if (k == NULL)
		k = case_arg(c, key, "repeats");
	if (k == NULL)
		k = case_arg(c, key, "topk");	/* a routing's top k */
	if (k != NULL && json_integer_value(json_object_get(k, "v")) == 0)
		any = 1;
	return *zero_dim || any;
}

START_TEST(empty_class)
{
	json_t		*out, *c;
	const char	*key;
	size_t		 i, k;
	int		 zd, zero_dims, nothing = 0;

	for (i = 0; i < catalog_count(); i++) {
		key = catalog_key(i);
		out = expand(key, PROBE_EMPTY, NULL);
		ck_assert_msg(json_array_size(out) > 0, "%s: no empty case", key);
		zero_dims = 0;
		json_array_foreach(out, k, c) {
			ck_assert_str_eq(json_string_value(json_object_get(c,
			    "class")), "empty");
			ck_assert_msg(case_is_empty(c, key, &zd), "%s: empty "
			    "case %zu has no zero-size input, no mask that "
			    "selects nothing and no empty result", key, k);
			zero_dims += zd;
			nothing += !zd;
		}
		/* every key: a zero-size dim in an input */
		ck_assert_msg(zero_dims > 0, "%s: no zero-size input", key);
		json_decref(out);
	}
	/* all-false masks and conditions, nonzero of zeros, k and repeats 0 */
	ck_assert_int_gt(nothing, 0);
}
END_TEST

/* Whether argument i (schema sc) is one the options class sets. */
static int
optional_arg(const struct schema *sc, int i)
{
	const struct schema_arg	*a = &sc->args[i];

	if (!a->has_default && !a->optional)
		return 0;
	return a->type != SCH_TENSOR && a->type != SCH_GENERATOR &&
	    a->type != SCH_DEVICE && a->type != SCH_LAYOUT &&
	    strcmp(a->name, "pin_memory") != 0;
}

/* Whether some case of out passes `name` with the ARG json (a JSON text). */
static int
sets(const json_t *out, const char *key, const char *name, const char *arg)
{
	json_t		*want = json_loads(arg, 0, NULL);
	const json_t	*c, *v;
	size_t		 k;
	int		 found = 0;

	ck_assert_ptr_nonnull(want);
	json_array_foreach(out, k, c)
		if ((v = case_arg(c, key, name)) != NULL &&
		    json_equal((json_t *)v, want))
			found = 1;
	json_decref(want);
	return found;
}

START_TEST(options_class)
{
	struct schema	 sc;
	json_t		*out, *c;
	const char	*key;
	size_t		 i, k;
	int		 a, any, nkeys = 0;

	for (i = 0; i < catalog_count(); i++) {
		key = catalog_key(i);
		ck_assert_int_eq(schema_parse(catalog_find(key)->schema, &sc,
		    NULL), 0);
		for (any = 0, a = 0; a < sc.nargs; a++)
			any |= optional_arg(&sc, a);
		out = expand(key, PROBE_OPTIONS, NULL);
		ck_assert_msg((json_array_size(out) > 0) == (any != 0),
		    "%s: %zu options cases", key, json_array_size(out));
		nkeys += any != 0;
		/* each optional argument set explicitly in some case */
		for (a = 0; a < sc.nargs; a++) {
			if (!optional_arg(&sc, a))
				continue;
			for (any = 0, k = 0; k < json_array_size(out); k++)
				any |= case_arg(json_array_get(out, k), key,
				    sc.args[a].name) != NULL;
			ck_assert_msg(any, "%s: no options case sets %s", key,
			    sc.args[a].name);
		}
		json_array_foreach(out, k, c)
			ck_assert_str_eq(json_string_value(json_object_get(c,
			    "class")), "options");
		json_decref(out);
	}
	ck_assert_int_ge(nkeys, 15);

	/* the values: dim None / () / negative / each, keepdim, dtype= */
	out = expand("mean.dim", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "mean.dim", "dim", "{\"t\":\"none\"}"));
	ck_assert(sets(out, "mean.dim", "dim", "{\"t\":\"ints\",\"v\":[]}"));
	ck_assert(sets(out, "mean.dim", "dim", "{\"t\":\"ints\",\"v\":[-1]}"));
	ck_assert(sets(out, "mean.dim", "dim", "{\"t\":\"ints\",\"v\":[2]}"));
	ck_assert(!sets(out, "mean.dim", "dim", "{\"t\":\"ints\",\"v\":[3]}"));
	ck_assert(sets(out, "mean.dim", "keepdim", "{\"t\":\"bool\",\"v\":true}"));
	ck_assert(sets(out, "mean.dim", "keepdim",
	    "{\"t\":\"bool\",\"v\":false}"));
	ck_assert(sets(out, "mean.dim", "dtype",
	    "{\"t\":\"dtype\",\"v\":\"float32\"}"));
	json_decref(out);
	out = expand("sum", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "sum", "dtype", "{\"t\":\"dtype\",\"v\":\"int64\"}"));
	json_decref(out);
	out = expand("gelu", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "gelu", "approximate",
	    "{\"t\":\"str\",\"v\":\"tanh\"}"));
	ck_assert(sets(out, "gelu", "approximate",
	    "{\"t\":\"str\",\"v\":\"none\"}"));
	json_decref(out);
	out = expand("addmm", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "addmm", "beta", "{\"t\":\"int\",\"v\":0}"));
	ck_assert(sets(out, "addmm", "alpha", "{\"t\":\"float\",\"v\":-0.5}"));
	json_decref(out);
	/* sorted=False leaves the order open: never asked for */
	out = expand("topk", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "topk", "largest", "{\"t\":\"bool\",\"v\":false}"));
	ck_assert(!sets(out, "topk", "sorted", "{\"t\":\"bool\",\"v\":false}"));
	json_decref(out);
	out = expand("sort.stable", PROBE_OPTIONS, NULL);
	ck_assert(sets(out, "sort.stable", "stable", "{\"t\":\"none\"}"));
	ck_assert(sets(out, "sort.stable", "stable",
	    "{\"t\":\"bool\",\"v\":false}"));
	json_decref(out);
}
END_TEST


static Suite *
sweep_suite(void)
{
	Suite	*s = suite_create("sweep");
	TCase	*tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, catalog_required);
	tcase_add_test(tc, catalog_dtype_sets);
	tcase_add_test(tc, classes);
	tcase_add_test(tc, every_key_expands);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, seeds_distinct);
	tcase_add_test(tc, filters);
	tcase_add_test(tc, broadcast_first_operand);
	tcase_add_test(tc, broadcast_rank4);
	tcase_add_test(tc, contract_clamp);
	tcase_add_test(tc, contract_optional);
	tcase_add_test(tc, index_domains);
	tcase_add_test(tc, value_domains);
	tcase_add_test(tc, reseed);
	tcase_add_test(tc, reduction_sweeps);
	tcase_add_test(tc, shrink_halves_sizes);
	tcase_add_test(tc, shrink_keeps_the_compile_class);
	tcase_add_test(tc, huge_case);
	tcase_add_test(tc, huge_movers_cases);
	tcase_add_test(tc, exotic_movers);
	tcase_add_test(tc, exotic_modes);
	tcase_add_test(tc, views_from_catalog_cases);
	tcase_add_test(tc, empty_class);
	tcase_add_test(tc, options_class);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(sweep_suite());
	int	 nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
