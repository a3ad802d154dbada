/*
 * The options class, for both generators: a template case of the key (a
 * generator's ordinary call) and its aten schema give one case per optional
 * argument (a default, or a type that may be None) and value, with that
 * argument set explicitly and every other argument as in the template.  The
 * values come from the schema (its default, None where allowed, the
 * template's rank for dims) and the rule table below, by argument name and
 * type: each argument's values in turn, never their cross product.
 */
#include <stdlib.h>
#include <string.h>

#include "probes.h"
#include "case.h"
#include "schema.h"

/* opt_rule.flags */
#define OPT_SHAPE	(1u << 0)	/* changes the output's shape or dtype */

/*
 * Value words: "~" None (where the type may be None), "D" the schema's
 * default, "dims" every dim of the template's first tensor (-1 first; for
 * a list also []), "dtypes" the dtypes a result may be asked in, "mf" the
 * memory formats, else a literal of the argument's type (123, 0.5, inf,
 * 'text', 0/1 for bool).  A rule with `requires` applies only where the
 * schema has that argument too; `clear` is set to None along with any value
 * but the rule's first (pad's value= goes with mode='constant' only).
 */
struct opt_rule {
	const char	*name;		/* NULL: any name */
	int		 type;		/* enum schema_type, -1: any */
	const char	*requires;
	const char	*values;
	const char	*clear;
	unsigned	 flags;
};

static const struct opt_rule opt_rules[] = {
	{ "dim", SCH_INT, NULL, "~ dims", NULL, OPT_SHAPE },
	{ "keepdim", SCH_BOOL, NULL, "0 1", NULL, OPT_SHAPE },
	{ "dtype", SCH_SCALARTYPE, NULL, "~ dtypes", NULL, OPT_SHAPE },
	{ "reduction", SCH_INT, NULL, "0 1 2", NULL, OPT_SHAPE },
	{ "memory_format", SCH_MEMFMT, NULL, "~ D mf", NULL, 0 },
	{ "approximate", SCH_STR, NULL, "'none' 'tanh'", NULL, 0 },
	{ "rounding_mode", SCH_STR, NULL, "~ 'trunc' 'floor'", NULL, 0 },
	{ "mode", SCH_STR, "pad", "'constant' 'reflect' 'replicate' "
	    "'circular'", "value", 0 },
	{ "padding", SCH_STR, NULL, "'same' 'valid'", NULL, 0 },
	{ "interpolation", SCH_STR, NULL, "'linear' 'lower' 'higher' "
	    "'midpoint' 'nearest'", NULL, 0 },
	{ "side", SCH_STR, NULL, "'left' 'right'", NULL, 0 },
	/* the scale factors of a BLAS-like update and of a binary op */
	{ "beta", SCH_SCALAR, "alpha", "D 0 2 -0.5", NULL, 0 },
	{ "alpha", SCH_SCALAR, "beta", "D 0 2 -0.5", NULL, 0 },
	{ "alpha", SCH_SCALAR, "other", "D 0 2 -0.5", NULL, 0 },
	{ "value", SCH_SCALAR, "tensor1", "D 0 2 -0.5", NULL, 0 },
	{ "value", SCH_SCALAR, "pad", "D 2 -0.5", NULL, 0 },
	{ "correction", SCH_SCALAR, NULL, "~ 0 1 2", NULL, 0 },
	{ "eps", SCH_FLOAT, NULL, "~ D 1e-05 0.1", NULL, 0 },
	{ "ord", SCH_SCALAR, NULL, "~ D 0 1 2 3 0.5 inf -inf", NULL, 0 },
	{ "p", SCH_SCALAR, NULL, "~ D 0 1 2 3 0.5 inf -inf", NULL, 0 },
	{ "scales", SCH_FLOAT, NULL, "~ 2.0 0.5", NULL, 0 },
	{ "scales_d", SCH_FLOAT, NULL, "~ 2.0 0.5", NULL, 0 },
	{ "scales_h", SCH_FLOAT, NULL, "~ 2.0 0.5", NULL, 0 },
	{ "scales_w", SCH_FLOAT, NULL, "~ 2.0 0.5", NULL, 0 },
	{ "diagonal", SCH_INT, NULL, "D -1 1", NULL, 0 },
	{ "offset", SCH_INT, NULL, "D -1 1", NULL, 0 },
	/*
	 * sorted=False leaves the order of the result unspecified, and
	 * assume_unique=True the result itself where the inputs repeat
	 * (the templates' do): either value would judge what aten leaves
	 * open.  half_to_float=True has no fp64 oracle.
	 */
	{ "sorted", SCH_BOOL, NULL, "1", NULL, 0 },
	{ "assume_unique", SCH_BOOL, NULL, "0", NULL, 0 },
	{ "half_to_float", SCH_BOOL, NULL, "0", NULL, 0 },
	{ NULL, SCH_BOOL, NULL, "~ 0 1", NULL, 0 },
	{ NULL, -1, NULL, "~ D", NULL, 0 },
};
#define NOPTRULES	(sizeof(opt_rules) / sizeof(opt_rules[0]))

/* What the values of one argument depend on in the template. */
struct opt_ctx {
	const struct schema	*sc;
	const char		*dtype;
	int			 nd;		/* rank of the first tensor */
	int			 has_out;	/* the template writes an out= */
	int			 inplace;
	int			 passes[SCHEMA_MAXARGS];	/* a tensor */
};

static const struct opt_rule *
opt_rule(const struct schema *sc, const struct schema_arg *a)
{
	const struct opt_rule	*r;
	size_t			 i;

	for (i = 0; i < NOPTRULES; i++) {
		r = &opt_rules[i];
		if (r->name != NULL && strcmp(r->name, a->name) != 0)
			continue;
		if (r->type != -1 && r->type != (int)a->type)
			continue;
		if (r->requires != NULL && schema_find(sc, r->requires) < 0)
			continue;
		return r;
	}
	return &opt_rules[NOPTRULES - 1];
}

/* The rank of the template's first tensor (a list's first element). */
static int
opt_rank(const json_t *tmpl)
{
	const json_t	*a, *l;
	size_t		 i;

	json_array_foreach(json_object_get(tmpl, "args"), i, a) {
		l = json_object_get(a, "t");
		if (json_is_string(l) && strcmp(json_string_value(l),
		    "tensors") == 0)
			a = json_array_get(json_object_get(a, "v"), 0);
		l = json_object_get(a, "t");
		if (json_is_string(l) && strcmp(json_string_value(l),
		    "tensor") == 0)
			return (int)json_array_size(json_object_get(a, "shape"));
	}
	return 0;
}

/* Which arguments the template passes a tensor for. */
static void
opt_passed(struct opt_ctx *x, const json_t *tmpl)
{
	const json_t	*v;
	const char	*t;
	int		 i;

	for (i = 0; i < x->sc->nargs; i++) {
		v = json_object_get(json_object_get(tmpl, "kwargs"),
		    x->sc->args[i].name);
		if (v == NULL && !x->sc->args[i].kwarg_only)
			v = json_array_get(json_object_get(tmpl, "args"),
			    (size_t)i);
		t = json_string_value(json_object_get(v, "t"));
		x->passes[i] = t != NULL && strcmp(t, "none") != 0;
	}
}

static int
opt_writes_out(const json_t *tmpl)
{
	const json_t	*a;
	const char	*k;

	json_object_foreach((json_t *)json_object_get(tmpl, "kwargs"), k, a) {
		if (strcmp(json_string_value(json_object_get(a, "t")) ?
		    json_string_value(json_object_get(a, "t")) : "", "out") == 0)
			return 1;
	}
	return 0;
}

/* A number of the argument's type; NULL when the word is not one. */
static json_t *
opt_number(const struct opt_ctx *x, const struct schema_arg *a,
    const char *w, int literal)
{
	char	*end;
	double	 v;
	long	 iv;
	int	 integral = strpbrk(w, ".en") == NULL;

	if (strcmp(w, "inf") == 0 || strcmp(w, "-inf") == 0)
		return a->type == SCH_INT ? NULL :
		    json_pack("{s:s,s:s}", "t", "float", "v", w);
	if (a->type == SCH_INT || (a->type == SCH_SCALAR && integral)) {
		iv = strtol(w, &end, 10);
		if (*end != '\0' || end == w)
			return NULL;
		/* a bool tensor takes no other number */
		if (literal && a->type == SCH_SCALAR &&
		    dtype_bit(x->dtype) == DT_BOOL)
			return NULL;
		return case_int(iv);
	}
	v = strtod(w, &end);
	if (*end != '\0' || end == w)
		return NULL;
	/* an integer tensor takes no float factor */
	if (literal && a->type == SCH_SCALAR && !dtype_is_floating(x->dtype))
		return NULL;
	return case_float(v);
}

/* An int list from "[1, 2]", "[]" or a bare number (int[2] padding=0). */
static json_t *
opt_int_list(const struct schema_arg *a, const char *w)
{
	json_t	*l;
	char	*end;
	long	 v;
	int	 i, n;

	if ((l = json_array()) == NULL)
		return NULL;
	if (*w != '[') {
		v = strtol(w, &end, 10);
		if (*end != '\0' || end == w)
			goto err;
		n = a->list_n > 0 ? a->list_n : 1;
		for (i = 0; i < n; i++)
			json_array_append_new(l, json_integer(v));
		return case_ints(l);
	}
	for (w++;;) {
		while (*w == ' ')
			w++;
		if (*w == ']')
			return case_ints(l);
		v = strtol(w, &end, 10);
		if (end == w)
			goto err;
		json_array_append_new(l, json_integer(v));
		for (w = end; *w == ' '; w++)
			;
		if (*w == ',')
			w++;
		else if (*w != ']')
			goto err;
	}
 err:
	json_decref(l);
	return NULL;
}

static json_t *
opt_memfmt(const char *v)
{
	return json_pack("{s:s,s:s}", "t", "memory_format", "v", v);
}

/* The schema's default as an ARG; NULL when it is None or unreadable. */
static json_t *
opt_default(const struct opt_ctx *x, const struct schema_arg *a)
{
	const char	*d = a->def;
	size_t		 n = strlen(d);
	char		 buf[SCHEMA_DEFAULT];

	if (!a->has_default || strcmp(d, "None") == 0)
		return NULL;
	switch (a->type) {
	case SCH_BOOL:
		if (a->list)
			return NULL;
		if (strcmp(d, "True") == 0 || strcmp(d, "False") == 0)
			return case_bool(*d == 'T');
		return NULL;
	case SCH_STR:
		if (n < 2 || (*d != '\'' && *d != '"') || d[n - 1] != *d)
			return NULL;
		memcpy(buf, d + 1, n - 2);
		buf[n - 2] = '\0';
		return case_str(buf);
	case SCH_MEMFMT:
		if (strcmp(d, "0") == 0 || strcmp(d, "contiguous_format") == 0)
			return opt_memfmt("contiguous_format");
		if (strcmp(d, "preserve_format") == 0)
			return opt_memfmt("preserve_format");
		return NULL;
	case SCH_INT:
		if (a->list)
			return opt_int_list(a, d);
		return opt_number(x, a, d, 0);
	case SCH_FLOAT:
	case SCH_SCALAR:
		if (a->list)
			return NULL;
		return opt_number(x, a, d, 0);
	default:
		return NULL;
	}
}

static int
opt_add(json_t *vals, json_t *v)
{
	const json_t	*o;
	size_t		 i;

	if (v == NULL)
		return 0;
	json_array_foreach(vals, i, o)
		if (json_equal((json_t *)o, v)) {
			json_decref(v);
			return 0;
		}
	return json_array_append_new(vals, v);
}

/* dim: -1, then 0 .. nd-1; a list also [] (every dim) first. */
static int
opt_dims(const struct opt_ctx *x, const struct schema_arg *a, json_t *vals)
{
	int	i, n = x->nd > 0 ? x->nd : 1, r = 0;

	if (a->list)
		r |= opt_add(vals, case_ints(json_array()));
	for (i = -1; i < n; i++)
		r |= opt_add(vals, a->list ? case_ints(json_pack("[i]", i)) :
		    case_int(i));
	return r;
}

/*
 * dtype=: the input's own and float32 for a floating input (no narrowing,
 * which norms refuse; float64 has no rounding to judge by: its oracle is
 * native itself), int64 and float32 for integer and bool inputs; an
 * in-place op only its own.
 */
static int
opt_dtypes(const struct opt_ctx *x, json_t *vals)
{
	int	r = 0;

	if (x->inplace)
		return opt_add(vals, case_dtype(x->dtype));
	if (dtype_is_float(x->dtype))
		r |= opt_add(vals, case_dtype(x->dtype));
	else if (dtype_is_floating(x->dtype))
		return 0;	/* fp8: no dtype= to ask for */
	else
		r |= opt_add(vals, case_dtype("int64"));
	return r | opt_add(vals, case_dtype("float32"));
}

static int
opt_memfmts(const struct opt_ctx *x, const struct schema_arg *a,
    json_t *vals)
{
	int	r = 0;

	r |= opt_add(vals, opt_memfmt("contiguous_format"));
	/* preserve_format is for the ops that copy (clone, _like, to) */
	if (a->optional)
		r |= opt_add(vals, opt_memfmt("preserve_format"));
	if (x->nd == 4)
		r |= opt_add(vals, opt_memfmt("channels_last"));
	return r;
}

/* One value word of a rule into vals. */
static int
opt_word(const struct opt_ctx *x, const struct schema_arg *a,
    const char *w, json_t *vals)
{
	size_t	n = strlen(w);
	char	buf[64];

	if (strcmp(w, "~") == 0)
		return a->optional ? opt_add(vals, case_none()) : 0;
	if (strcmp(w, "D") == 0)
		return opt_add(vals, opt_default(x, a));
	if (strcmp(w, "dims") == 0)
		return opt_dims(x, a, vals);
	if (strcmp(w, "dtypes") == 0)
		return opt_dtypes(x, vals);
	if (strcmp(w, "mf") == 0)
		return opt_memfmts(x, a, vals);
	if (a->list)
		return 0;
	switch (a->type) {
	case SCH_STR:
		if (n < 2 || n - 2 >= sizeof(buf) || *w != '\'' ||
		    w[n - 1] != '\'')
			return -1;
		memcpy(buf, w + 1, n - 2);
		buf[n - 2] = '\0';
		return opt_add(vals, case_str(buf));
	case SCH_BOOL:
		return opt_add(vals, case_bool(*w == '1'));
	case SCH_INT:
	case SCH_FLOAT:
	case SCH_SCALAR:
		return opt_add(vals, opt_number(x, a, w, 1));
	default:
		return -1;
	}
}

/* Every value of argument ai: the rule's words, then the table's extra. */
static int
opt_values(const struct opt_ctx *x, const struct opt_rule *r, int ai,
    const json_t *extra, json_t *vals)
{
	const struct schema_arg	*a = &x->sc->args[ai];
	const char		*p = r->values, *e;
	char			 w[64];
	size_t			 n;
	json_t			*v;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		for (e = p; *e != ' ' && *e != '\0'; e++)
			;
		if ((n = (size_t)(e - p)) == 0)
			break;
		if (n >= sizeof(w))
			return -1;
		memcpy(w, p, n);
		w[n] = '\0';
		if (opt_word(x, a, w, vals) != 0)
			return -1;
		p = e;
	}
	v = json_object_get(extra, a->name);
	if (v != NULL && opt_add(vals, json_deep_copy(v)) != 0)
		return -1;
	return 0;
}

/* Sets argument ai of case c to v (stolen): where the template passes it. */
static int
opt_place(json_t *c, const struct schema *sc, int ai, json_t *v)
{
	const struct schema_arg	*a = &sc->args[ai];
	json_t			*args = json_object_get(c, "args");
	json_t			*kwargs = json_object_get(c, "kwargs");
	size_t			 n = json_array_size(args);

	if (v == NULL)
		return -1;
	if (json_object_get(kwargs, a->name) != NULL || a->kwarg_only ||
	    (size_t)ai > n)
		return json_object_set_new(kwargs, a->name, v);
	if ((size_t)ai == n)
		return json_array_append_new(args, v);
	return json_array_set_new(args, (size_t)ai, v);
}

/* Whether argument ai gets options cases at all. */
static int
opt_wanted(const struct opt_ctx *x, int ai, const struct opt_rule *r)
{
	const struct schema_arg	*a = &x->sc->args[ai];

	if (!a->has_default && !a->optional)
		return 0;
	switch (a->type) {
	case SCH_TENSOR:
		/*
		 * An optional operand the template leaves out, explicitly None
		 * (dropping one it passes changes what the others must be:
		 * running_mean without running_var, a weight a mask asks for);
		 * out= is the contract class's.
		 */
		return !a->write && !a->list && !x->passes[ai];
	case SCH_GENERATOR:
	case SCH_DEVICE:
	case SCH_LAYOUT:
		return 0;
	default:
		break;
	}
	/* a factory's dtype and pin_memory are its case's dtype and device */
	if (strcmp(a->name, "pin_memory") == 0)
		return 0;
	if (a->type == SCH_SCALARTYPE && schema_find(x->sc, "device") >= 0)
		return 0;
	/* an out= buffer has the template's shape and dtype */
	if ((r->flags & OPT_SHAPE) && x->has_out)
		return 0;
	return 1;
}

int
options_expand(const struct schema *sc, const json_t *tmpl,
    const json_t *extra, int *idx, json_t *out)
{
	const struct opt_rule	*r;
	struct opt_ctx		 x;
	const char		*key, *dtype;
	json_t			*vals = NULL, *c, *v;
	size_t			 k;
	int			 ai, ci, n = 0;

	key = json_string_value(json_object_get(tmpl, "key"));
	dtype = json_string_value(json_object_get(tmpl, "dtype"));
	if (sc == NULL || key == NULL || dtype == NULL || !json_is_array(out))
		return -1;
	memset(&x, 0, sizeof(x));
	x.sc = sc;
	x.dtype = dtype;
	x.nd = opt_rank(tmpl);
	x.has_out = opt_writes_out(tmpl);
	x.inplace = json_is_true(json_object_get(tmpl, "inplace"));
	opt_passed(&x, tmpl);
	for (ai = 0; ai < sc->nargs; ai++) {
		r = opt_rule(sc, &sc->args[ai]);
		if (!opt_wanted(&x, ai, r))
			continue;
		json_decref(vals);
		if ((vals = json_array()) == NULL ||
		    opt_values(&x, r, ai, extra, vals) == -1)
			goto err;
		json_array_foreach(vals, k, v) {
			if ((c = json_deep_copy(tmpl)) == NULL)
				goto err;
			if (json_object_set_new(c, "class",
			    json_string("options")) != 0 ||
			    json_object_set_new(c, "seed", json_integer(
			    seed_case(key, "options", dtype, *idx))) != 0 ||
			    opt_place(c, sc, ai, json_incref(v)) != 0 ||
			    (r->clear != NULL && k > 0 &&
			    (ci = schema_find(sc, r->clear)) >= 0 &&
			    sc->args[ci].optional &&
			    opt_place(c, sc, ci, case_none()) != 0)) {
				json_decref(c);
				goto err;
			}
			if (json_array_append_new(out, c) != 0)
				goto err;
			(*idx)++;
			n++;
		}
	}
	json_decref(vals);
	return n;
 err:
	json_decref(vals);
	return -1;
}
