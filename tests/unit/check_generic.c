/*
 * Unit tests for the schema-driven generator (probes/schema.c,
 * probes/generic.c, probes/table.c): the schema parser on real and
 * malformed strings, determinism, the validity of every generated case,
 * class and dtype filters, the empty and options classes, and the
 * coverage of FlagGems 5.0.2's table
 * (tests/data/flag_gems-5.0.2-entries.json, read from the repository root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <jansson.h>

#include "probes.h"
#include "generic.h"
#include "schema.h"

#define ENTRIES	"tests/data/flag_gems-5.0.2-entries.json"

static json_t *
entries(void)
{
	json_error_t	 e;
	json_t		*a = json_load_file(ENTRIES, 0, &e);

	ck_assert_msg(json_is_array(a), "%s: %s", ENTRIES, e.text);
	return a;
}

static const char *
field(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

START_TEST(parse_real)
{
	struct schema	 sc;
	const char	*err = NULL;

	ck_assert_int_eq(schema_parse("topk(Tensor self, SymInt k, int dim=-1, "
	    "bool largest=True, bool sorted=True) -> (Tensor values, Tensor "
	    "indices)", &sc, &err), 0);
	ck_assert_str_eq(sc.name, "topk");
	ck_assert_str_eq(sc.overload, "");
	ck_assert_int_eq(sc.nargs, 5);
	ck_assert_int_eq(sc.args[1].type, SCH_INT);
	ck_assert(sc.args[1].symint);
	ck_assert(sc.args[2].has_default);
	ck_assert_str_eq(sc.args[2].def, "-1");
	ck_assert_int_eq(sc.nrets, 2);
	ck_assert_str_eq(sc.rets[1].name, "indices");

	ck_assert_int_eq(schema_parse("aten::add_.Tensor(Tensor(a!) self, "
	    "Tensor other, *, Scalar alpha=1) -> Tensor(a!)", &sc, &err), 0);
	ck_assert_str_eq(sc.name, "add_");
	ck_assert_str_eq(sc.overload, "Tensor");
	ck_assert_int_eq(sc.args[0].alias, 'a');
	ck_assert(sc.args[0].write);
	ck_assert(!sc.args[1].write);
	ck_assert(sc.args[2].kwarg_only);
	ck_assert_int_eq(sc.args[2].type, SCH_SCALAR);
	ck_assert(sc.rets[0].write);

	ck_assert_int_eq(schema_parse("arcsinh.out(Tensor self, *, "
	    "Tensor(a!) out) -> Tensor(a!)", &sc, &err), 0);
	ck_assert(sc.args[1].kwarg_only && sc.args[1].write);

	ck_assert_int_eq(schema_parse("index_put(Tensor self, Tensor?[] indices,"
	    " Tensor values, bool accumulate=False) -> Tensor", &sc, &err), 0);
	ck_assert(sc.args[1].list && sc.args[1].elem_optional);
	ck_assert(!sc.args[1].optional);

	ck_assert_int_eq(schema_parse("sum.dim_IntList(Tensor self, int[1]? dim,"
	    " bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", &sc,
	    &err), 0);
	ck_assert(sc.args[1].list && sc.args[1].optional);
	ck_assert_int_eq(sc.args[1].list_n, 1);
	ck_assert_int_eq(sc.args[3].type, SCH_SCALARTYPE);

	ck_assert_int_eq(schema_parse("conv2d.padding(Tensor input, Tensor "
	    "weight, Tensor? bias=None, SymInt[2] stride=[1, 1], str padding="
	    "\"valid\", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
	    &sc, &err), 0);
	ck_assert_str_eq(sc.args[3].def, "[1, 1]");
	ck_assert_str_eq(sc.args[4].def, "\"valid\"");
	ck_assert_int_eq(sc.nargs, 7);

	ck_assert_int_eq(schema_parse("_assert_async(Tensor self) -> ()", &sc,
	    &err), 0);
	ck_assert_int_eq(sc.nrets, 0);
	ck_assert_int_eq(schema_parse("copysign(Scalar a, Scalar b) -> float",
	    &sc, &err), 0);
	ck_assert_int_eq(sc.rets[0].type, SCH_FLOAT);
	ck_assert_int_eq(schema_parse("native_group_norm_backward(Tensor g, "
	    "bool[3] output_mask, Generator? generator=None, Device? device=None,"
	    " MemoryFormat? memory_format=None, Layout? layout=None) -> "
	    "(Tensor, Tensor, Tensor)", &sc, &err), 0);
	ck_assert_int_eq(sc.args[1].type, SCH_BOOL);
	ck_assert_int_eq(sc.args[1].list_n, 3);
	ck_assert_int_eq(sc.args[2].type, SCH_GENERATOR);
	ck_assert_int_eq(sc.nrets, 3);
}
END_TEST

static const char *const malformed[] = {
	"", "(", ")", "->", "foo", "foo(", "foo()", "foo() ->", "foo(Tensor",
	"foo(Tensor x", "foo(Tensor x) -> ", "foo(Tensor x) Tensor",
	"foo(Blah x) -> Tensor", "foo(Tensor x=[1,2) -> Tensor",
	"foo(Tensor x=\"a) -> Tensor", "foo(Tensor x, Tensor x) -> Tensor",
	"foo(*, *, Tensor x) -> Tensor", "foo(Tensor(a! x) -> Tensor",
	"foo(int[99999999999] x) -> Tensor",
	"foo(Tensor x=) -> Tensor", "foo(,) -> Tensor", "foo(Tensor) -> Tensor",
	"foo(Tensor x) -> Tensor junk more",
	"foo.(Tensor x) -> Tensor", "::foo(Tensor x) -> Tensor",
	"foo(Tensor x) -> (Tensor", "foo(Tensor x) -> (Tensor,)",
};

START_TEST(parse_malformed)
{
	struct schema	 sc;
	const char	*err;
	size_t		 i;

	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		err = NULL;
		ck_assert_msg(schema_parse(malformed[i], &sc, &err) == -1,
		    "parsed: %s", malformed[i]);
		ck_assert_msg(err != NULL, "no message: %s", malformed[i]);
	}
	ck_assert_int_eq(schema_parse(NULL, &sc, &err), -1);
	ck_assert_int_eq(generic_supports("x", "foo(", &err), 0);
	ck_assert_ptr_nonnull(err);
}
END_TEST

/* Every real schema mutated: the parser answers, never crashes. */
START_TEST(parse_fuzz)
{
	json_t		*a = entries(), *e;
	struct schema	 sc;
	const char	*s, *err;
	char		 buf[1024];
	unsigned	 x = 12345;
	size_t		 i, n;
	int		 k, ok = 0;

	json_array_foreach(a, i, e) {
		s = field(e, "schema");
		if (*s == '\0')
			continue;
		ck_assert_msg(schema_parse(s, &sc, &err) == 0, "%s: %s", s, err);
		ok++;
		for (k = 0; k < 20; k++) {
			n = strlen(s) < sizeof(buf) - 1 ? strlen(s) :
			    sizeof(buf) - 1;
			memcpy(buf, s, n);
			buf[n] = '\0';
			x = x * 1103515245u + 12345u;
			if (k % 2 == 0)
				buf[(x >> 8) % n] = (char)(x >> 16);
			else
				buf[(x >> 8) % n] = '\0';
			(void)schema_parse(buf, &sc, &err);
			(void)generic_supports(field(e, "key"), buf, &err);
		}
	}
	ck_assert_int_eq(ok, 426);
	json_decref(a);
}
END_TEST

static json_t *
expand_all(const json_t *a, unsigned classes, const json_t *dtypes)
{
	json_t		*out = json_array(), *e;
	size_t		 i;

	json_array_foreach(a, i, e)
		if (!catalog_has(field(e, "key")) &&
		    generic_supports(field(e, "key"), field(e, "schema"), NULL))
			ck_assert_int_ge(generic_expand(field(e, "key"),
			    field(e, "schema"), classes, dtypes, out),
			    classes == PROBE_ALL && dtypes == NULL ? 1 : 0);
	return out;
}

START_TEST(deterministic)
{
	json_t	*a = entries(), *x, *y;
	char	*sx, *sy;

	x = expand_all(a, PROBE_ALL, NULL);
	y = expand_all(a, PROBE_ALL, NULL);
	sx = json_dumps(x, JSON_COMPACT);
	sy = json_dumps(y, JSON_COMPACT);
	ck_assert_ptr_nonnull(sx);
	ck_assert_str_eq(sx, sy);
	ck_assert_int_gt(json_array_size(x), 5000);
	free(sx);
	free(sy);
	json_decref(x);
	json_decref(y);
	json_decref(a);
}
END_TEST

/* A shape: at most 8 non-negative integer sizes. */
static int
valid_shape(const json_t *s)
{
	size_t	i, n = json_array_size(s);

	for (i = 0; json_is_array(s) && n <= 8 && i < n; i++)
		if (json_integer_value(json_array_get(s, i)) < 0 ||
		    !json_is_integer(json_array_get(s, i)))
			break;
	return json_is_array(s) && n <= 8 && i == n;
}

static void
check_arg(const char *key, const json_t *arg, int *outs)
{
	const char	*t = field(arg, "t"), *dom;
	const json_t	*v;
	size_t		 i;

	ck_assert_msg(t != NULL, "%s: ARG without t", key);
	if (strcmp(t, "tensor") == 0 || strcmp(t, "out") == 0) {
		ck_assert_msg(valid_shape(json_object_get(arg, "shape")),
		    "%s: bad shape", key);
		ck_assert_msg(dtype_valid(field(arg, "dtype")), "%s: dtype", key);
		if (strcmp(t, "out") == 0) {
			(*outs)++;
			return;
		}
		dom = field(arg, "domain");
		ck_assert_msg(dom != NULL, "%s: tensor without domain", key);
		if (strcmp(dom, "index") == 0)
			ck_assert_int_gt(json_integer_value(json_object_get(arg,
			    "high")), 0);
		if (json_object_get(arg, "low") != NULL)
			ck_assert(json_number_value(json_object_get(arg, "low")) <
			    json_number_value(json_object_get(arg, "high")));
	} else if (strcmp(t, "tensors") == 0) {
		json_array_foreach(json_object_get(arg, "v"), i, v)
			check_arg(key, v, outs);
	} else {
		ck_assert_msg(strstr(" int float bool ints none str dtype device "
		    "memory_format ", t) != NULL, "%s: ARG type %s", key, t);
	}
}

START_TEST(valid_cases)
{
	static const char *const cmp[] = { "float", "exact", "sort", "topk",
	    "shape_only", "stat" };
	json_t		*a = entries(), *out, *c, *v;
	const char	*key, *cls, *m;
	size_t		 i, j, k;
	int		 outs, found;

	out = expand_all(a, PROBE_ALL, NULL);
	json_array_foreach(out, i, c) {
		key = field(c, "key");
		ck_assert_ptr_nonnull(key);
		ck_assert(json_object_get(c, "id") == NULL);
		ck_assert(json_object_get(c, "name") == NULL);
		cls = field(c, "class");
		ck_assert_msg(cls && probe_class_parse(cls) > 0 &&
		    strcmp(cls, "bootstrap") != 0, "%s: class", key);
		ck_assert(dtype_valid(field(c, "dtype")));
		ck_assert(json_is_integer(json_object_get(c, "seed")));
		ck_assert(json_integer_value(json_object_get(c, "seed")) >= 0);
		for (found = 0, k = 0; k < sizeof(cmp) / sizeof(cmp[0]); k++)
			found |= strcmp(field(c, "compare"), cmp[k]) == 0;
		ck_assert_msg(found, "%s: compare", key);
		ck_assert(json_is_array(json_object_get(c, "args")));
		ck_assert(json_is_object(json_object_get(c, "kwargs")));
		outs = 0;
		json_array_foreach(json_object_get(c, "args"), j, v)
			check_arg(key, v, &outs);
		ck_assert_msg(outs == 0, "%s: positional out buffer", key);
		json_object_foreach(json_object_get(c, "kwargs"), m, v)
			check_arg(key, v, &outs);
		m = field(c, "mutates");
		if (json_is_true(json_object_get(c, "inplace")))
			ck_assert(m != NULL && strcmp(m, "self") == 0);
		if (outs > 0)
			ck_assert_msg(m != NULL && strcmp(m, "out") == 0,
			    "%s: out buffer but mutates %s", key, m);
		if (strcmp(cls, "random") == 0)
			ck_assert_str_eq(field(c, "compare"), "stat");
		if (strcmp(cls, "compile") == 0)
			ck_assert(json_is_object(json_object_get(c, "ladder")));
	}
	json_decref(out);
	json_decref(a);
}
END_TEST

START_TEST(filters)
{
	json_t		*a = entries(), *out, *dt, *c;
	size_t		 i;
	unsigned	 seen = 0;

	out = expand_all(a, PROBE_BROADCAST | PROBE_EDGE_VALUES, NULL);
	json_array_foreach(out, i, c) {
		seen |= (unsigned)probe_class_parse(field(c, "class"));
		ck_assert(seen == (seen & (PROBE_BROADCAST | PROBE_EDGE_VALUES)));
	}
	ck_assert_uint_eq(seen, PROBE_BROADCAST | PROBE_EDGE_VALUES);
	json_decref(out);
	dt = json_pack("[s]", "bfloat16");
	out = json_array();
	json_array_foreach(a, i, c)
		if (!catalog_has(field(c, "key")))
			generic_expand(field(c, "key"), field(c, "schema"),
			    PROBE_ALL, dt, out);
	ck_assert_int_gt(json_array_size(out), 1000);
	json_array_foreach(out, i, c)
		ck_assert_str_eq(field(c, "dtype"), "bfloat16");
	json_decref(out);
	json_decref(dt);
	/* a failure leaves out as it was */
	out = json_pack("[i]", 7);
	ck_assert_int_eq(generic_expand("nosuch", "nosuch(Tensor x) -> "
	    "Tensor junk more", PROBE_ALL, NULL, out), -1);
	ck_assert_int_eq(json_array_size(out), 1);
	dt = json_pack("[s]", "int8");
	ck_assert_int_eq(generic_expand("abs_", "abs_(Tensor(a!) self) -> "
	    "Tensor(a!)", PROBE_ALL, dt, out), 0);
	json_decref(dt);
	json_decref(out);
	json_decref(a);
}
END_TEST

/* What the classes contain for a few keys the screen relies on. */
START_TEST(class_contents)
{
	json_t		*out = json_array(), *c, *dt = json_pack("[s]", "float16");
	size_t		 i;
	int		 n;

	n = generic_expand("add_.Tensor", "add_.Tensor(Tensor(a!) self, "
	    "Tensor other, *, Scalar alpha=1) -> Tensor(a!)", PROBE_BROADCAST,
	    NULL, out);
	ck_assert_int_gt(n, 0);
	json_array_foreach(out, i, c) {
		ck_assert(json_is_true(json_object_get(c, "inplace")));
		ck_assert_str_eq(field(c, "mutates"), "self");
	}
	json_array_clear(out);
	n = generic_expand("topk_like.out", "exp.out(Tensor self, *, "
	    "Tensor(a!) out) -> Tensor(a!)", PROBE_CONTRACT, NULL, out);
	ck_assert_int_gt(n, 0);
	json_array_clear(out);
	n = generic_expand("one_hot", "one_hot(Tensor self, int "
	    "num_classes=-1) -> Tensor", PROBE_COMPILE, NULL, out);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
	    json_array_get(out, 3), "ladder"), "value")), 4096);
	json_array_clear(out);
	n = generic_expand("var.correction", "var.correction(Tensor self, "
	    "int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) "
	    "-> Tensor", PROBE_ACCUMULATION, dt, out);
	ck_assert_int_ge(n, 3);
	json_decref(dt);
	json_decref(out);
}
END_TEST

/*
 * The dtypes a bool self is promoted against in the scalar class, as one
 * string ("float32,int32"): every tensor operand that is not bool.
 */
static void
promo_dtypes(const json_t *cases, char *buf, size_t len)
{
	const json_t	*c, *a;
	const char	*d;
	size_t		 i, j;
	int		 f32 = 0, i32 = 0, other = 0;

	json_array_foreach(cases, i, c)
		json_array_foreach(json_object_get(c, "args"), j, a) {
			if ((d = field(a, "dtype")) == NULL || strcmp(d, "bool") == 0)
				continue;
			if (strcmp(d, "float32") == 0)
				f32 = 1;
			else if (strcmp(d, "int32") == 0)
				i32 = 1;
			else
				other = 1;
		}
	snprintf(buf, len, "%s%s%s", f32 ? "float32," : "", i32 ? "int32," : "",
	    other ? "other," : "");
}

/*
 * Both generators promote a bool self against the same dtypes (one rule,
 * dtype_same_kind and dtype_other_kind): eq.Tensor from the catalog,
 * ne.Tensor from its schema.
 */
START_TEST(bool_promotion)
{
	json_t	*dt = json_pack("[s]", "bool"), *cat = json_array(),
		*gen = json_array();
	char	 a[64], b[64];

	ck_assert_int_gt(probe_expand("eq.Tensor", NULL, PROBE_SCALAR, dt, cat),
	    0);
	ck_assert_int_gt(generic_expand("ne.Tensor", "ne.Tensor(Tensor self, "
	    "Tensor other) -> Tensor", PROBE_SCALAR, dt, gen), 0);
	promo_dtypes(cat, a, sizeof(a));
	promo_dtypes(gen, b, sizeof(b));
	ck_assert_str_eq(a, "float32,int32,");
	ck_assert_str_eq(b, a);
	json_decref(dt);
	json_decref(cat);
	json_decref(gen);
}
END_TEST

/*
 * Where view `view` (docs/protocol.md, Views) of a tensor of sizes `shape`
 * puts its elements in the storage of its contiguous base, marked in used
 * (one byte per base element, at most max): the ops are applied to the
 * base's sizes, strides and offset, each checked against the sizes it
 * applies to.  Returns the base's numel, -1 when a view does not fit.
 */
static long long
view_place(const json_t *view, const json_t *shape, unsigned char *used,
    long long max)
{
	const json_t	*base = json_object_get(view, "base"), *op;
	long long	 sz[8], st[8], off = 0, n = 1, idx[8], pos, a, b, c, k;
	long long	 total = 1;
	const char	*what;
	size_t		 i, nd = json_array_size(base);
	int		 j;

	if (!json_is_array(base) || nd == 0 || nd > 8 ||
	    json_array_size(shape) != nd ||
	    !json_is_array(json_object_get(view, "ops")))
		return -1;
	for (j = (int)nd - 1; j >= 0; j--) {
		sz[j] = json_integer_value(json_array_get(base, j));
		if (sz[j] < 1)
			return -1;
		st[j] = n;
		n *= sz[j];
	}
	if (n > max)
		return -1;
	json_array_foreach(json_object_get(view, "ops"), i, op) {
		what = json_string_value(json_array_get(op, 0));
		a = json_integer_value(json_array_get(op, 1));
		b = json_integer_value(json_array_get(op, 2));
		c = json_integer_value(json_array_get(op, 3));
		if (what == NULL || a < 0 || a >= (long long)nd)
			return -1;
		if (strcmp(what, "transpose") == 0 && json_array_size(op) == 3) {
			if (b < 0 || b >= (long long)nd)
				return -1;
			k = sz[a], sz[a] = sz[b], sz[b] = k;
			k = st[a], st[a] = st[b], st[b] = k;
		} else if (strcmp(what, "narrow") == 0 && json_array_size(op) == 4) {
			if (b < 0 || c < 1 || b + c > sz[a])
				return -1;
			off += b * st[a];
			sz[a] = c;
		} else if (strcmp(what, "slice") == 0 && json_array_size(op) == 5) {
			k = json_integer_value(json_array_get(op, 4));
			if (b < 0 || c > sz[a] || b >= c || k < 1)
				return -1;
			off += b * st[a];
			sz[a] = (c - b + k - 1) / k;
			st[a] *= k;
		} else
			return -1;
	}
	for (j = 0; j < (int)nd; j++) {
		if (sz[j] != json_integer_value(json_array_get(shape, j)))
			return -1;
		total *= sz[j];
		idx[j] = 0;
	}
	/* every element of the view, in order: distinct and inside the base */
	for (k = 0; k < total; k++) {
		for (pos = off, j = 0; j < (int)nd; j++)
			pos += idx[j] * st[j];
		if (pos < 0 || pos >= n || used[pos])
			return -1;
		used[pos] = 1;
		for (j = (int)nd - 1; j >= 0 && ++idx[j] == sz[j]; j--)
			idx[j] = 0;
	}
	return n;
}

/* Checks the view of ARG a, if any, of a case that writes w: 1 if a view. */
static int
check_view(const char *key, const json_t *a, const json_t *w,
    unsigned char *used, long long max)
{
	const json_t	*view = json_object_get(a, "view");
	long long	 n, first, last, i;

	if (view == NULL)
		return 0;
	/* an out= buffer is a view only where it is the one written */
	if (!strcmp(field(a, "t"), "out"))
		ck_assert_msg(a == w, "%s: a view on an out= buffer the op does "
		    "not write", key);
	else
		ck_assert_msg(!strcmp(field(a, "t"), "tensor"), "%s: view on %s",
		    key, field(a, "t"));
	ck_assert(json_object_get(a, "layout") == NULL);
	memset(used, 0, (size_t)max);
	n = view_place(view, json_object_get(a, "shape"), used, max);
	ck_assert_msg(n > 0, "%s: a view that does not fit its base", key);
	/* base elements before or after the view, and gaps or an offset */
	for (first = 0; first < n && !used[first]; first++)
		;
	for (last = n - 1; last >= 0 && !used[last]; last--)
		;
	ck_assert_msg(first > 0 || last < n - 1, "%s: the view covers its base",
	    key);
	for (i = first; i < last && used[i]; i++)
		;
	ck_assert_msg(i < last || first > 0, "%s: neither gaps nor an offset",
	    key);
	return 1;
}

/* Checks one views case; returns the number of views it carries. */
static int
check_views_case(const json_t *c, unsigned char *used, long long max)
{
	const char	*key = field(c, "key"), *m = field(c, "mutates"), *k;
	const json_t	*w, *a;
	size_t		 j;
	int		 views = 0;

	ck_assert_str_eq(field(c, "class"), "views");
	ck_assert_msg(m != NULL && (!strcmp(m, "self") || !strcmp(m, "out")),
	    "%s: a views case that writes nothing", key);
	w = !strcmp(m, "self") ? json_array_get(json_object_get(c, "args"), 0) :
	    json_object_get(json_object_get(c, "kwargs"), "out");
	ck_assert_msg(json_object_get(w, "view") != NULL,
	    "%s: the written tensor is no view", key);
	ck_assert(json_object_get(c, "huge") == NULL);
	json_array_foreach(json_object_get(c, "args"), j, a)
		views += check_view(key, a, w, used, max);
	json_object_foreach((json_t *)json_object_get(c, "kwargs"), k, a)
		views += check_view(key, a, w, used, max);
	return views;
}

START_TEST(views_cases)
{
	json_t		*a = entries(), *e, *x, *y, *per;
	const json_t	*c;
	unsigned char	*used;
	const long long	 max = 1 << 21;
	const char	*key, *sch;
	char		 kd[160];
	size_t		 i, j;
	int		 total = 0, writes = 0, reads = 0, mut, v;

	ck_assert_ptr_nonnull(used = malloc((size_t)max));
	per = json_object();
	json_array_foreach(a, i, e) {
		key = field(e, "key");
		sch = field(e, "schema");
		x = json_array();
		y = json_array();
		if (probe_expand(key, sch, PROBE_VIEWS, NULL, x) < 0) {
			json_decref(x);
			json_decref(y);
			continue;
		}
		/* deterministic: the same expansion twice, the same cases */
		ck_assert_int_eq(probe_expand(key, sch, PROBE_VIEWS, NULL, y),
		    (int)json_array_size(x));
		ck_assert(json_equal(x, y));
		mut = strstr(sch, "Tensor(a!)") != NULL;
		ck_assert_msg(json_array_size(x) == 0 || mut,
		    "%s: views cases for an op that writes no tensor", key);
		json_array_foreach(x, j, c) {
			v = check_views_case(c, used, max);
			writes++;
			reads += v - 1;
			snprintf(kd, sizeof(kd), "%s %s", key, field(c, "dtype"));
			json_object_set_new(per, kd, json_integer(1 +
			    json_integer_value(json_object_get(per, kd))));
			/* the seed is the views class's own */
			ck_assert_uint_eq(json_integer_value(json_object_get(c,
			    "seed")), seed_case(key, "views", field(c, "dtype"),
			    (int)json_integer_value(json_object_get(per, kd)) - 1));
		}
		total += (int)json_array_size(x);
		json_decref(x);
		json_decref(y);
	}
	/* a handful per key and dtype */
	json_object_foreach(per, key, e)
		ck_assert_msg(json_integer_value(e) <= 5, "%s: %lld views cases",
		    key, (long long)json_integer_value(e));
	ck_assert_int_gt(total, 1000);
	ck_assert_int_eq(writes, total);
	ck_assert_int_gt(reads, 0);
	/* in-place and out= keys of every kind get them */
	ck_assert(json_object_get(per, "add_.Tensor float32") != NULL);
	ck_assert(json_object_get(per, "mm.out bfloat16") != NULL);
	ck_assert(json_object_get(per, "cumsum.out float16") != NULL);
	ck_assert(json_object_get(per, "index_put_ float32") != NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(per,
	    "add_.Tensor float32")), 5);
	json_decref(per);
	free(used);
	json_decref(a);
}
END_TEST

/* Elements of a tensor ARG; -1 for other ARGs. */
static long long
arg_numel(const json_t *a)
{
	const json_t	*d;
	size_t		 i;
	long long	 n = 1;

	if (field(a, "t") == NULL || strcmp(field(a, "t"), "tensor") != 0)
		return -1;
	json_array_foreach(json_object_get(a, "shape"), i, d)
		n *= json_integer_value(d);
	return n;
}

/* Per ARG of an empty case: a zero-size dim, a mask that selects nothing. */
static void
empty_facts(const json_t *a, int *zero, int *nothing, int *empty_index)
{
	const json_t	*e, *d;
	size_t		 i;
	const char	*dom = field(a, "domain");

	if (field(a, "t") != NULL && strcmp(field(a, "t"), "tensors") == 0) {
		json_array_foreach(json_object_get(a, "v"), i, e)
			empty_facts(e, zero, nothing, empty_index);
		return;
	}
	if (arg_numel(a) < 0)
		return;
	json_array_foreach(json_object_get(a, "shape"), i, d)
		if (json_integer_value(d) == 0)
			*zero = 1;
	if (dom != NULL && strcmp(dom, "int") == 0 &&
	    json_integer_value(json_object_get(a, "low")) == 0 &&
	    json_integer_value(json_object_get(a, "high")) == 1)
		*nothing = 1;
	if (dom != NULL && (strcmp(dom, "index") == 0 ||
	    strcmp(dom, "int") == 0) && arg_numel(a) == 0)
		*empty_index = 1;
}

/* The cases of one key and class from its schema in the table. */
static json_t *
expand_key(const json_t *a, const char *key, unsigned classes)
{
	json_t		*out = json_array(), *e;
	size_t		 i;

	json_array_foreach(a, i, e)
		if (strcmp(field(e, "key"), key) == 0)
			ck_assert_int_gt(generic_expand(key, field(e, "schema"),
			    classes, NULL, out), 0);
	ck_assert_msg(json_array_size(out) > 0, "%s: no cases", key);
	return out;
}

/*
 * Whether an empty case of key has in its positional ARG ai a mask that
 * selects nothing (fact 1) or an empty index or repeat tensor (fact 2).
 */
static int
some_empty_case(const json_t *a, const char *key, size_t ai, int fact)
{
	json_t	*out = expand_key(a, key, PROBE_EMPTY);
	size_t	 i;
	int	 zero, nothing, eix, any = 0;

	for (i = 0; i < json_array_size(out); i++) {
		zero = nothing = eix = 0;
		empty_facts(json_array_get(json_object_get(json_array_get(out, i),
		    "args"), ai), &zero, &nothing, &eix);
		any |= fact == 1 ? nothing : eix;
	}
	json_decref(out);
	return any;
}

/*
 * The empty class: every case has an input with a zero-size dim, a mask
 * that selects nothing, or a factory size= with a 0 in it; the keys the
 * screen relies on get what the class is for.
 */
START_TEST(empty_class)
{
	json_t		*a = entries(), *out, *c, *v, *e;
	const char	*k;
	size_t		 i, j, k0;
	int		 zero, nothing, eix, any, reduce;

	out = expand_all(a, PROBE_EMPTY, NULL);
	ck_assert_int_gt(json_array_size(out), 2000);
	json_array_foreach(out, i, c) {
		ck_assert_str_eq(field(c, "class"), "empty");
		zero = nothing = eix = any = 0;
		json_array_foreach(json_object_get(c, "args"), j, v) {
			empty_facts(v, &zero, &nothing, &eix);
			any |= arg_numel(v) >= 0;
		}
		json_object_foreach(json_object_get(c, "kwargs"), k, v) {
			empty_facts(v, &zero, &nothing, &eix);
			any |= arg_numel(v) >= 0;
		}
		/* a factory (no tensor input): a size with a 0 in it */
		json_array_foreach(json_object_get(c, "args"), j, v)
			if (!any && field(v, "t") && !strcmp(field(v, "t"),
			    "ints"))
				json_array_foreach(json_object_get(v, "v"), k0, e)
					zero |= json_integer_value(e) == 0;
		ck_assert_msg(zero || nothing, "%s: empty case %zu without a "
		    "zero-size input or a mask that selects nothing",
		    field(c, "key"), i);
	}
	json_decref(out);

	/* an all-false mask: masked_select gives an empty result */
	ck_assert(some_empty_case(a, "masked_select", 1, 1));
	/* empty index and repeat tensors, from the recipes' sizes */
	ck_assert(some_empty_case(a, "index_add", 2, 2));
	ck_assert(some_empty_case(a, "repeat_interleave.self_Tensor", 1, 2));
	/*
	 * A reduction over the empty dim where aten reduces nothing to its
	 * identity (sum); where it raises (argmax), only over the other dims.
	 */
	out = expand_key(a, "sum.dim_IntList", PROBE_EMPTY);
	e = json_pack("{s:s,s:[i]}", "t", "ints", "v", 1);
	for (any = 0, i = 0; i < json_array_size(out); i++) {
		c = json_array_get(out, i);
		v = json_array_get(json_object_get(c, "args"), 1);
		any |= json_equal(v, e);
	}
	ck_assert(any);
	json_decref(e);
	json_decref(out);
	out = expand_key(a, "argmax", PROBE_EMPTY);
	json_array_foreach(out, i, c) {
		v = json_object_get(json_object_get(c, "kwargs"), "dim");
		if (v == NULL)
			v = json_array_get(json_object_get(c, "args"), 1);
		reduce = (int)json_integer_value(json_object_get(v, "v"));
		ck_assert(field(v, "t") && strcmp(field(v, "t"), "int") == 0);
		ck_assert_int_ne(reduce, 1);
	}
	json_decref(out);
	/* the table's crashes of aten on an empty batch get no case */
	json_array_foreach(a, i, c)
		if (strcmp(field(c, "key"), "_weight_norm_interface") == 0) {
			out = json_array();
			ck_assert_int_eq(generic_expand(field(c, "key"),
			    field(c, "schema"), PROBE_EMPTY, NULL, out), 0);
			json_decref(out);
		}
	json_decref(a);
}
END_TEST

/* Whether some case of out passes argument ai (schema sc) as want. */
static int
sets(const json_t *out, const struct schema *sc, int ai, const char *want)
{
	json_t		*w = want ? json_loads(want, 0, NULL) : NULL;
	const json_t	*c, *v;
	size_t		 k;
	int		 found = 0;

	json_array_foreach(out, k, c) {
		v = json_object_get(json_object_get(c, "kwargs"),
		    sc->args[ai].name);
		if (v == NULL)
			v = json_array_get(json_object_get(c, "args"), (size_t)ai);
		if (v != NULL && (w == NULL || json_equal((json_t *)v, w)))
			found = 1;
	}
	json_decref(w);
	return found;
}

static int
opt_arg(const struct schema *sc, int i)
{
	const struct schema_arg	*a = &sc->args[i];

	return (a->has_default || a->optional) && a->type != SCH_TENSOR &&
	    a->type != SCH_GENERATOR && a->type != SCH_DEVICE &&
	    a->type != SCH_LAYOUT && strcmp(a->name, "pin_memory") != 0;
}

/* An argument whose values change the result's shape or dtype. */
static int
shape_arg(const struct schema_arg *a)
{
	return !strcmp(a->name, "dim") || !strcmp(a->name, "keepdim") ||
	    !strcmp(a->name, "dtype") || !strcmp(a->name, "reduction");
}

/*
 * The options class: for every key with options cases, each optional
 * argument is set explicitly in some case (not a factory's dtype, not the
 * shape of an out= buffer); the values come from the schema and the rules.
 */
START_TEST(options_class)
{
	struct schema	 sc;
	json_t		*a = entries(), *out, *e;
	const char	*key;
	size_t		 i;
	int		 ai, has_out, factory, nkeys = 0;

	json_array_foreach(a, i, e) {
		key = field(e, "key");
		if (catalog_has(key) || !generic_supports(key, field(e,
		    "schema"), NULL))
			continue;
		ck_assert_int_eq(schema_parse(field(e, "schema"), &sc, NULL), 0);
		out = json_array();
		ck_assert_int_ge(generic_expand(key, field(e, "schema"),
		    PROBE_OPTIONS, NULL, out), 0);
		if (json_array_size(out) == 0) {
			json_decref(out);
			continue;
		}
		nkeys++;
		has_out = factory = 0;
		for (ai = 0; ai < sc.nargs; ai++) {
			has_out |= sc.args[ai].write && sc.args[ai].kwarg_only;
			factory |= sc.args[ai].type == SCH_DEVICE;
		}
		for (ai = 0; ai < sc.nargs; ai++) {
			if (!opt_arg(&sc, ai) || (has_out &&
			    shape_arg(&sc.args[ai])) || (factory &&
			    sc.args[ai].type == SCH_SCALARTYPE))
				continue;
			ck_assert_msg(sets(out, &sc, ai, NULL), "%s: no options "
			    "case sets %s", key, sc.args[ai].name);
		}
		json_decref(out);
	}
	ck_assert_int_gt(nkeys, 100);

	/* values: reduction, padding modes, scale factors, p, dtype= */
	out = expand_key(a, "mse_loss", PROBE_OPTIONS);
	schema_parse("mse_loss(Tensor self, Tensor target, int reduction=1) "
	    "-> Tensor", &sc, NULL);
	ck_assert(sets(out, &sc, 2, "{\"t\":\"int\",\"v\":0}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"int\",\"v\":2}"));
	json_decref(out);
	out = expand_key(a, "pad", PROBE_OPTIONS);
	schema_parse("pad(Tensor self, SymInt[] pad, str mode=\"constant\", "
	    "float? value=None) -> Tensor", &sc, NULL);
	ck_assert(sets(out, &sc, 2, "{\"t\":\"str\",\"v\":\"reflect\"}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"str\",\"v\":\"circular\"}"));
	ck_assert(sets(out, &sc, 3, "{\"t\":\"none\"}"));
	json_decref(out);
	out = expand_key(a, "upsample_nearest2d", PROBE_OPTIONS);
	schema_parse("upsample_nearest2d(Tensor self, SymInt[2] output_size, "
	    "float? scales_h=None, float? scales_w=None) -> Tensor", &sc, NULL);
	ck_assert(sets(out, &sc, 2, "{\"t\":\"float\",\"v\":2.0}"));
	ck_assert(sets(out, &sc, 3, "{\"t\":\"none\"}"));
	json_decref(out);
	out = expand_key(a, "linalg_vector_norm", PROBE_OPTIONS);
	schema_parse("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? "
	    "dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
	    &sc, NULL);
	ck_assert(sets(out, &sc, 1, "{\"t\":\"float\",\"v\":\"inf\"}"));
	ck_assert(sets(out, &sc, 1, "{\"t\":\"int\",\"v\":1}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"none\"}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"ints\",\"v\":[]}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"ints\",\"v\":[-1]}"));
	ck_assert(sets(out, &sc, 4, "{\"t\":\"dtype\",\"v\":\"float32\"}"));
	json_decref(out);
	out = expand_key(a, "div.Tensor_mode", PROBE_OPTIONS);
	schema_parse("div.Tensor_mode(Tensor self, Tensor other, *, str? "
	    "rounding_mode) -> Tensor", &sc, NULL);
	ck_assert(sets(out, &sc, 2, "{\"t\":\"none\"}"));
	ck_assert(sets(out, &sc, 2, "{\"t\":\"str\",\"v\":\"trunc\"}"));
	json_decref(out);
	out = expand_key(a, "_to_copy", PROBE_OPTIONS);
	schema_parse("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? "
	    "layout=None, Device? device=None, bool? pin_memory=None, bool "
	    "non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
	    &sc, NULL);
	ck_assert(sets(out, &sc, 6, "{\"t\":\"memory_format\",\"v\":"
	    "\"preserve_format\"}"));
	ck_assert(!sets(out, &sc, 4, NULL));	/* pin_memory: the device's */
	json_decref(out);
	/* assume_unique=True on inputs that repeat: never asked for */
	out = expand_key(a, "isin.Tensor_Tensor", PROBE_OPTIONS);
	schema_parse("isin.Tensor_Tensor(Tensor elements, Tensor test_elements,"
	    " *, bool assume_unique=False, bool invert=False) -> Tensor", &sc,
	    NULL);
	ck_assert(!sets(out, &sc, 2, "{\"t\":\"bool\",\"v\":true}"));
	ck_assert(sets(out, &sc, 3, "{\"t\":\"bool\",\"v\":true}"));
	json_decref(out);
	json_decref(a);
}
END_TEST

/*
 * The edge_values class puts floating operands in the edge domain, except
 * those whose table domain is kept ('!'): cutlass_scaled_mm's quantisation
 * scales stay in (0.05, 0.95) while its fp8 operands get NaN and the rest.
 */
START_TEST(edge_kept_domain)
{
	json_t		*out = json_array(), *c, *a;
	size_t		 i, j;
	int		 n, edge = 0, kept = 0;
	const char	*name;

	n = generic_expand("fused::cutlass_scaled_mm", "cutlass_scaled_mm("
	    "Tensor c, Tensor a, Tensor b, Tensor a_scale, Tensor b_scale, "
	    "Tensor? bias=None) -> ()", PROBE_EDGE_VALUES, NULL, out);
	ck_assert_int_gt(n, 0);
	json_array_foreach(out, i, c) {
		ck_assert_str_eq(field(c, "class"), "edge_values");
		json_array_foreach(json_object_get(c, "args"), j, a) {
			if (j < 1 || j > 4)
				continue;
			name = field(a, "domain");
			ck_assert_ptr_nonnull(name);
			if (j <= 2) {
				ck_assert_str_eq(name, "edge");
				edge++;
			} else {
				ck_assert_str_eq(name, "uniform");
				ck_assert(json_real_value(json_object_get(a,
				    "low")) >= 0.05);
				kept++;
			}
		}
	}
	ck_assert_int_eq(edge, kept);
	ck_assert_int_gt(kept, 0);
	json_decref(out);
}
END_TEST

START_TEST(coverage)
{
	json_t		*a = entries(), *e;
	const char	*why;
	size_t		 i;
	int		 sup = 0, noschema = 0;

	ck_assert_int_eq(json_array_size(a), 434);
	json_array_foreach(a, i, e) {
		if (probe_supported(field(e, "key"), field(e, "schema"), &why))
			sup++;
		else {
			ck_assert_ptr_nonnull(why);
			noschema += *field(e, "schema") == '\0';
		}
	}
	ck_assert_int_eq(noschema, 8);
	ck_assert_msg(sup * 100 >= 95 * 434, "%d of 434 supported", sup);
	json_decref(a);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("generic");
	TCase	*tc = tcase_create("core");
	SRunner	*sr;
	int	 nf;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, parse_real);
	tcase_add_test(tc, parse_malformed);
	tcase_add_test(tc, parse_fuzz);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, valid_cases);
	tcase_add_test(tc, filters);
	tcase_add_test(tc, class_contents);
	tcase_add_test(tc, bool_promotion);
	tcase_add_test(tc, coverage);
	tcase_add_test(tc, views_cases);
	tcase_add_test(tc, empty_class);
	tcase_add_test(tc, options_class);
	tcase_add_test(tc, edge_kept_domain);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
