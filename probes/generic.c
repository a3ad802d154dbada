/*
 * Schema-driven cases (generic.h): the key's aten schema (schema.c) says
 * which arguments there are and of which type; the table (table.c,
 * gentable.h) says what kind of op it is and what its inputs must look
 * like.  A kind's engine generates the shapes of each probe class, the
 * table's specs fill in the rest, and the schema's defaults fill in what
 * neither names.  Cases are deterministic: seeds come from seed_case().
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes.h"
#include "case.h"
#include "generic.h"
#include "gentable.h"
#include "schema.h"

#define GEN_MAXVARS	24
#define GEN_MAXDIMS	8
#define GEN_VARNAME	16

/* A slice of a spec string. */
struct sp {
	const char	*p, *e;
};

struct gvar {
	char	name[GEN_VARNAME];
	long	v;
};

/* What an engine decides for one tensor operand. */
struct tov {
	int		 set;
	int		 nd, d[GEN_MAXDIMS];
	const char	*layout;
	int		 bnd, base[GEN_MAXDIMS];
	const char	*dtype;
};

struct gen {
	const char		*key;
	const struct schema	*sc;
	const struct gen_entry	*ge;
	const char		*dtype;
	const char		*cls;
	int			 idx;
	json_t			*out;
	int			 n;
	const char		*err;
	int			 inplace;
	/* the case being built */
	const char		*point;
	int			 nvars;
	struct gvar		 vars[GEN_MAXVARS];
	json_t			*eng[SCHEMA_MAXARGS];
	int			 omit[SCHEMA_MAXARGS];
	struct tov		 tov[SCHEMA_MAXARGS];
	int			 outset, outnd, outd[GEN_MAXDIMS];
	int			 kw;		/* defaulted arguments by keyword */
	int			 defaults;	/* use the entry's specs of defaulted args */
	int			 edge;		/* floating tensors in domain edge */
	const char		*force_layout;	/* on tensors of rank >= 2 */
	int			 force_first;	/* only on the first such tensor */
	int			 ladder;	/* > 0: compile ladder value */
	int			 allfalse;	/* bool masks (:b) all false */
	const char		*zvar;		/* bound to 0 (the empty class) */
};

static int
gen_fail(struct gen *g, const char *msg)
{
	if (g->err == NULL)
		g->err = msg;
	return -1;
}

/* Words of a spec string: "name=spec" separated by blanks. */

static int
sp_word(const char *s, size_t i, struct sp *w)
{
	const char	*p = s;
	size_t		 k = 0;

	if (s == NULL)
		return 0;
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return 0;
		w->p = p;
		while (*p != ' ' && *p != '\0')
			p++;
		w->e = p;
		if (k++ == i)
			return 1;
	}
}

/* The spec of name in s ("name=spec"), 1 when found. */
static int
sp_lookup(const char *s, const char *name, struct sp *out)
{
	struct sp	w;
	size_t		i, n = strlen(name);

	for (i = 0; sp_word(s, i, &w); i++) {
		if ((size_t)(w.e - w.p) > n && strncmp(w.p, name, n) == 0 &&
		    w.p[n] == '=') {
			out->p = w.p + n + 1;
			out->e = w.e;
			return 1;
		}
	}
	return 0;
}

static int
sp_is(const struct sp *s, const char *lit)
{
	size_t	n = strlen(lit);

	return (size_t)(s->e - s->p) == n && strncmp(s->p, lit, n) == 0;
}

static int
sp_peek(const struct sp *s)
{
	return s->p < s->e ? (unsigned char)*s->p : 0;
}

static int
sp_accept(struct sp *s, int ch)
{
	if (sp_peek(s) != ch)
		return 0;
	s->p++;
	return 1;
}

/* Integer expressions over the point's variables. */

static int	gen_expr(struct gen *, struct sp *, long *);

static int
gen_factor(struct gen *g, struct sp *s, long *v)
{
	char	name[GEN_VARNAME];
	size_t	n = 0;
	int	i;

	if (sp_accept(s, '-')) {
		if (gen_factor(g, s, v) == -1)
			return -1;
		*v = -*v;
		return 0;
	}
	if (sp_accept(s, '(')) {
		if (gen_expr(g, s, v) == -1)
			return -1;
		return sp_accept(s, ')') ? 0 : gen_fail(g, "')' expected");
	}
	if (isdigit(sp_peek(s))) {
		*v = 0;
		while (isdigit(sp_peek(s))) {
			*v = *v * 10 + (*s->p++ - '0');
			if (*v > (1L << 40))
				return gen_fail(g, "number too large");
		}
		return 0;
	}
	while (isupper(sp_peek(s)) || (n > 0 && isdigit(sp_peek(s)))) {
		if (n + 1 >= sizeof(name))
			return gen_fail(g, "variable name too long");
		name[n++] = *s->p++;
	}
	name[n] = '\0';
	if (n == 0)
		return gen_fail(g, "number or variable expected");
	for (i = 0; i < g->nvars; i++)
		if (strcmp(g->vars[i].name, name) == 0) {
			*v = g->vars[i].v;
			return 0;
		}
	return gen_fail(g, "undefined variable in spec");
}

static int
gen_term(struct gen *g, struct sp *s, long *v)
{
	long	r;
	int	op;

	if (gen_factor(g, s, v) == -1)
		return -1;
	while ((op = sp_peek(s)) == '*' || op == '/') {
		s->p++;
		if (gen_factor(g, s, &r) == -1)
			return -1;
		if (op == '/' && r == 0)
			return gen_fail(g, "division by zero in spec");
		*v = op == '*' ? *v * r : *v / r;
	}
	return 0;
}

static int
gen_expr(struct gen *g, struct sp *s, long *v)
{
	long	r;
	int	op;

	if (gen_term(g, s, v) == -1)
		return -1;
	while ((op = sp_peek(s)) == '+' || op == '-') {
		s->p++;
		if (gen_term(g, s, &r) == -1)
			return -1;
		*v = op == '+' ? *v + r : *v - r;
	}
	return 0;
}

/* "[e,e,...]" into d; the number of dims, -1 on error. */
static int
gen_dims(struct gen *g, struct sp *s, int *d, int max)
{
	long	v;
	int	n = 0;

	if (!sp_accept(s, '['))
		return gen_fail(g, "'[' expected");
	if (sp_accept(s, ']'))
		return 0;
	for (;;) {
		if (n >= max)
			return gen_fail(g, "too many dims");
		if (gen_expr(g, s, &v) == -1)
			return -1;
		if (v < -(1L << 30) || v > (1L << 30))
			return gen_fail(g, "dim out of range");
		d[n++] = (int)v;
		if (sp_accept(s, ']'))
			return n;
		if (!sp_accept(s, ','))
			return gen_fail(g, "',' or ']' expected");
	}
}

static int
gen_bind(struct gen *g, const char *name, size_t n, long v)
{
	int	i;

	if (n == 0 || n >= GEN_VARNAME)
		return gen_fail(g, "bad variable name");
	for (i = 0; i < g->nvars; i++)
		if (strlen(g->vars[i].name) == n &&
		    strncmp(g->vars[i].name, name, n) == 0) {
			g->vars[i].v = v;
			return 0;
		}
	if (g->nvars >= GEN_MAXVARS)
		return gen_fail(g, "too many variables");
	memcpy(g->vars[g->nvars].name, name, n);
	g->vars[g->nvars].name[n] = '\0';
	g->vars[g->nvars++].v = v;
	return 0;
}

/* Binds the VAR=e words of s (names of arguments are not variables). */
static int
gen_bind_words(struct gen *g, const char *s)
{
	struct sp	w, e;
	const char	*eq;
	size_t		i;
	long		v;
	char		name[SCHEMA_NAME];

	for (i = 0; sp_word(s, i, &w); i++) {
		if ((eq = memchr(w.p, '=', (size_t)(w.e - w.p))) == NULL)
			continue;
		if ((size_t)(eq - w.p) >= sizeof(name) || !isupper((unsigned char)*w.p))
			continue;
		memcpy(name, w.p, (size_t)(eq - w.p));
		name[eq - w.p] = '\0';
		if (schema_find(g->sc, name) != -1)
			continue;
		e.p = eq + 1;
		e.e = w.e;
		if (gen_expr(g, &e, &v) == -1)
			return -1;
		if (e.p != e.e)
			return gen_fail(g, "junk after variable value");
		if (gen_bind(g, name, (size_t)(eq - w.p), v) == -1)
			return -1;
	}
	return 0;
}

/* dtypes */

static const struct {
	const char	*code, *name;
} gen_dtcodes[] = {
	{ "f32", "float32" }, { "f64", "float64" }, { "f16", "float16" },
	{ "bf16", "bfloat16" }, { "i64", "int64" }, { "i32", "int32" },
	{ "i16", "int16" }, { "i8", "int8" }, { "u8", "uint8" },
	{ "bool", "bool" }, { "f8e4", "float8_e4m3fn" },
	{ "f8e5", "float8_e5m2" }, { "e8m0", "float8_e8m0fnu" },
	{ "c64", "complex64" },
};
#define NDTCODES	(sizeof(gen_dtcodes) / sizeof(gen_dtcodes[0]))

static const char *
gen_dtcode(struct gen *g, struct sp *s)
{
	size_t	i, n;

	if (s->e - s->p >= 4 && strncmp(s->p, "same", 4) == 0) {
		s->p += 4;
		return g->dtype;
	}
	for (i = 0; i < NDTCODES; i++) {
		n = strlen(gen_dtcodes[i].code);
		if ((size_t)(s->e - s->p) >= n &&
		    strncmp(s->p, gen_dtcodes[i].code, n) == 0 &&
		    !isalnum((unsigned char)(s->p + n < s->e ? s->p[n] : 0))) {
			s->p += n;
			return gen_dtcodes[i].name;
		}
	}
	gen_fail(g, "unknown dtype code");
	return NULL;
}

static int
gen_dom_parse(struct gen *g, struct sp *s, struct domain *d)
{
	int	c = sp_peek(s);

	if (c == 0 || strchr("nuwpzstaqbrikeohd", c) == NULL)
		return gen_fail(g, "unknown domain code");
	s->p++;
	d->code = (char)c;
	if (c == 'i') {
		if (!sp_accept(s, '(') || gen_expr(g, s, &d->hi) == -1 ||
		    !sp_accept(s, ')'))
			return gen_fail(g, "i(e) expected");
	} else if (c == 'k') {
		if (!sp_accept(s, '(') || gen_expr(g, s, &d->lo) == -1 ||
		    !sp_accept(s, ',') || gen_expr(g, s, &d->hi) == -1 ||
		    !sp_accept(s, ')') || d->hi <= d->lo)
			return gen_fail(g, "k(lo,hi) expected");
	}
	d->keep = sp_accept(s, '!');
	return 0;
}

static json_t *
gen_dimlist(const int *d, int n)
{
	return case_ints(case_dims(d, n));
}

/* The Python scalar standing for domain code c with the case dtype. */
static json_t *
gen_scalar_dom(const struct gen *g, int c)
{
	unsigned	bit = dtype_bit(g->dtype);

	if (c == 'b' || bit == DT_BOOL)
		return case_bool(1);
	if (!dtype_is_floating(g->dtype) && !dtype_is_complex(g->dtype)) {
		switch (c) {
		case 'p':
			return case_int(2);
		case 's':
		case 't':
		case 'a':
		case 'q':
			return case_int(1);
		default:
			return case_int(3);
		}
	}
	switch (c) {
	case 'u':
		return case_float(0.5);
	case 'w':
	case 'z':
		return case_float(-2.5);
	case 'p':
		return case_float(1.5);
	case 's':
	case 't':
	case 'i':
	case 'k':
	case 'r':
		return case_int(1);
	case 'a':
		return case_float(0.25);
	case 'q':
		return case_float(0.3);
	case 'h':
		return case_float(0.05);
	default:
		return case_float(0.75);
	}
}

/* The i-th value of a Scalar operand in the scalar class, NULL past the end. */
static json_t *
gen_scalar_var(const struct gen *g, int c, int i)
{
	static const double	z[] = { 3, -7, 0.5, -2.5 };
	static const double	p[] = { 2, 3, 0.5, 1.5 };
	static const double	s[] = { 1, -2, 0.5, 2.0 };
	static const double	n[] = { 2, -3, 0.5, -1.25 };
	const double		*v = c == 'z' ? z : c == 'p' ? p :
				    (c == 's' || c == 't') ? s : n;
	unsigned		 bit = dtype_bit(g->dtype);
	int			 fl = dtype_is_floating(g->dtype);

	if (bit == DT_BOOL) {
		/* an in-place bool self cannot hold an integer result */
		if (i >= (g->inplace ? 2 : 3))
			return NULL;
		return i == 2 ? case_int(1) : case_bool(i == 0);
	}
	if (g->ge->flags & GF_INT_SCALAR) {
		if (i >= 3)
			return NULL;
		if (i == 2)
			return case_bool(1);
		return case_int(bit == DT_U8 ? 5 + i : (long long)v[i] * 3);
	}
	if (i >= 5 || (i == 4 && c != 's' && c != 'n'))
		return NULL;
	if (i == 4)
		return case_bool(1);
	if (i >= 2 && !fl && g->inplace)
		return NULL;	/* an integer self cannot hold a float result */
	if (bit == DT_U8 && v[i] < 0)
		return case_int(1);
	return i < 2 ? case_int((long long)v[i]) : case_float(v[i]);
}

/* Tensors */

static int
gen_is_out(const struct schema_arg *a)
{
	return a->type == SCH_TENSOR && a->write && a->kwarg_only;
}

/* The spec of argument ai: the point's override, then the entry's. */
static int
gen_spec(const struct gen *g, int ai, struct sp *s)
{
	const struct schema_arg	*a = &g->sc->args[ai];
	int			 always;

	if (sp_lookup(g->point, a->name, s)) {
		sp_accept(s, '!');
		return 1;
	}
	if (!sp_lookup(g->ge->args, a->name, s))
		return 0;
	always = sp_accept(s, '!');
	/*
	 * A tensor the table names is an operand; the table's values of
	 * other defaulted arguments are for contract cases, unless marked
	 * '!' (always passed).
	 */
	if (a->has_default && !g->defaults && a->type != SCH_TENSOR && !always)
		return 0;
	return 1;
}

/* Whether spec s (of a tensor) gives a shape of its own. */
static int
sp_has_shape(const struct sp *s)
{
	return s->p < s->e && (*s->p == '[' || *s->p == '{');
}

static json_t *
gen_tensor(struct gen *g, int ai, struct sp s, int is_out, int outn)
{
	const struct tov	*tv = ai >= 0 ? &g->tov[ai] : NULL;
	struct domain		 dom = { 'n', 0, 0, 0 };
	const char		*dtype = NULL, *layout = NULL;
	int			 d[GEN_MAXDIMS], nd = -1, base[GEN_MAXDIMS];
	int			 bnd = -1, i;
	json_t			*t;

	if (sp_peek(&s) == '[' && (nd = gen_dims(g, &s, d, GEN_MAXDIMS)) == -1)
		return NULL;
	while (s.p < s.e) {
		if (sp_accept(&s, ':')) {
			if (gen_dom_parse(g, &s, &dom) == -1)
				return NULL;
		} else if (sp_accept(&s, '@')) {
			if ((dtype = gen_dtcode(g, &s)) == NULL)
				return NULL;
		} else if (sp_accept(&s, '^')) {
			switch (sp_peek(&s)) {
			case 't':
				layout = "transposed";
				break;
			case 's':
				layout = "sliced";
				break;
			case 'c':
				layout = "channels_last";
				break;
			case 'x':
				layout = "expanded";
				break;
			default:
				gen_fail(g, "unknown layout code");
				return NULL;
			}
			s.p++;
			if (*layout == 'e' && (bnd = gen_dims(g, &s, base,
			    GEN_MAXDIMS)) == -1)
				return NULL;
		} else {
			gen_fail(g, "junk in tensor spec");
			return NULL;
		}
	}
	if (nd < 0 && tv != NULL && tv->set) {
		nd = tv->nd;
		memcpy(d, tv->d, sizeof(d));
		if (tv->layout != NULL) {
			layout = tv->layout;
			bnd = tv->bnd;
			memcpy(base, tv->base, sizeof(base));
		}
		if (tv->dtype != NULL)
			dtype = tv->dtype;
	}
	if (nd < 0 && is_out && g->outset) {
		nd = g->outnd;
		memcpy(d, g->outd, sizeof(d));
	}
	if (nd < 0) {
		gen_fail(g, "tensor without a shape");
		return NULL;
	}
	for (i = 0; i < nd; i++)
		if (d[i] < 0) {
			gen_fail(g, "negative size");
			return NULL;
		}
	if (is_out) {
		if (dtype == NULL) {
			if (outn > 0 || (g->ge->flags & GF_RET_LONG) ||
			    ((g->ge->flags & GF_INT_WIDEN) &&
			    !dtype_is_floating(g->dtype)))
				dtype = "int64";
			else if (g->ge->flags & GF_RET_BOOL)
				dtype = "bool";
			else if ((g->ge->flags & GF_RET_FLOAT) &&
			    !dtype_is_floating(g->dtype))
				dtype = "float32";
			else
				dtype = g->dtype;
		}
		return json_pack("{s:s,s:o,s:s}", "t", "out", "shape",
		    case_dims(d, nd), "dtype", dtype);
	}
	if (dtype == NULL)
		dtype = dom.code == 'i' ? "int64" : dom.code == 'b' ? "bool" :
		    g->dtype;
	/* a mask that selects nothing: 0 is false */
	if (g->allfalse && dom.code == 'b')
		dom = (struct domain){ 'k', 0, 1, 0 };
	if (layout == NULL && g->force_layout != NULL && nd >= 2) {
		layout = g->force_layout;
		if (g->force_first)
			g->force_layout = NULL;
	}
	t = case_tensor(case_dims(d, nd), dtype);
	if (t == NULL || case_domain(t, dtype, &dom, g->idx, g->edge) != 0)
		goto err;
	if (layout != NULL && json_object_set_new(t, "layout",
	    json_string(layout)) != 0)
		goto err;
	if (bnd >= 0 && layout != NULL && strcmp(layout, "expanded") == 0 &&
	    json_object_set_new(t, "base",
	    case_dims(base, bnd)) != 0)
		goto err;
	return t;
 err:
	json_decref(t);
	gen_fail(g, "out of memory");
	return NULL;
}

/* "{spec,spec,...}": a list of tensors (or Nones). */
static json_t *
gen_tensor_list(struct gen *g, struct sp s)
{
	struct sp	 el;
	json_t		*v, *t;
	int		 depth;

	if (!sp_accept(&s, '{') || s.e == s.p || s.e[-1] != '}') {
		gen_fail(g, "'{...}' expected");
		return NULL;
	}
	s.e--;
	if ((v = json_array()) == NULL)
		return NULL;
	while (s.p < s.e) {
		el.p = s.p;
		for (depth = 0; s.p < s.e; s.p++) {
			if (*s.p == '[' || *s.p == '(')
				depth++;
			else if (*s.p == ']' || *s.p == ')')
				depth--;
			else if (*s.p == ',' && depth == 0)
				break;
		}
		el.e = s.p;
		sp_accept(&s, ',');
		t = sp_is(&el, "~") ? case_tag("none") :
		    gen_tensor(g, -1, el, 0, 0);
		if (t == NULL || json_array_append_new(v, t) != 0) {
			json_decref(v);
			return NULL;
		}
	}
	return case_tensors(v);
}

static json_t *
gen_number(struct gen *g, struct sp s, int scalar)
{
	char	buf[48], *end;
	size_t	n = (size_t)(s.e - s.p);
	double	v;
	long	iv;

	if (scalar && sp_is(&s, "T"))
		return case_bool(1);
	if (scalar && sp_is(&s, "F"))
		return case_bool(0);
	if (scalar && sp_peek(&s) == ':' && s.e - s.p >= 2)
		return gen_scalar_dom(g, s.p[1]);
	if (n == 0 || n >= sizeof(buf)) {
		gen_fail(g, "bad number");
		return NULL;
	}
	memcpy(buf, s.p, n);
	buf[n] = '\0';
	if (strpbrk(buf, ".en") != NULL || !scalar) {
		v = strtod(buf, &end);
		if (*end != '\0') {
			gen_fail(g, "bad number");
			return NULL;
		}
		return case_float(v);
	}
	if (gen_expr(g, &s, &iv) == -1 || s.p != s.e) {
		gen_fail(g, "bad integer");
		return NULL;
	}
	return case_int(iv);
}

static json_t *
gen_from_spec(struct gen *g, int ai, struct sp s)
{
	const struct schema_arg	*a = &g->sc->args[ai];
	int			 d[GEN_MAXDIMS * 2], n;
	long			 v;

	if (sp_is(&s, "~"))
		return case_tag("none");
	switch (a->type) {
	case SCH_TENSOR:
		if (a->list)
			return gen_tensor_list(g, s);
		return gen_tensor(g, ai, s, gen_is_out(a), 0);
	case SCH_SCALAR:
		return gen_number(g, s, 1);
	case SCH_FLOAT:
		if (a->list)
			break;
		return gen_number(g, s, 0);
	case SCH_INT:
		if (a->list) {
			if ((n = gen_dims(g, &s, d, GEN_MAXDIMS * 2)) == -1)
				return NULL;
			return gen_dimlist(d, n);
		}
		if (gen_expr(g, &s, &v) == -1)
			return NULL;
		return case_int(v);
	case SCH_BOOL:
		if (a->list) {
			if ((n = gen_dims(g, &s, d, GEN_MAXDIMS)) == -1)
				return NULL;
			/* aten takes 0/1 for bool[N] */
			return gen_dimlist(d, n);
		}
		return case_bool(sp_is(&s, "1"));
	case SCH_STR:
		if (s.e - s.p < 2 || *s.p != '\'' || s.e[-1] != '\'')
			break;
		return json_pack("{s:s,s:s%}", "t", "str", "v", s.p + 1,
		    (size_t)(s.e - s.p - 2));
	case SCH_SCALARTYPE:
		return case_dtype(gen_dtcode(g, &s));
	case SCH_MEMFMT:
		return json_pack("{s:s,s:s}", "t", "memory_format", "v",
		    sp_is(&s, "cl") ? "channels_last" : sp_is(&s, "pf") ?
		    "preserve_format" : "contiguous_format");
	case SCH_DEVICE:
		return case_tag("device");
	default:
		break;
	}
	gen_fail(g, "spec does not fit the argument type");
	return NULL;
}

static int
gen_has_device(const struct schema *sc)
{
	int	i;

	for (i = 0; i < sc->nargs; i++)
		if (sc->args[i].type == SCH_DEVICE)
			return 1;
	return 0;
}

/*
 * The ARG of an argument neither the engine nor the table names: 1 with
 * *arg set, 0 when it is not passed, -1 when nothing fits.
 */
static int
gen_default(struct gen *g, int ai, json_t **arg)
{
	const struct schema_arg	*a = &g->sc->args[ai];
	struct sp		 none = { "", "" };

	*arg = NULL;
	if (gen_is_out(a)) {
		*arg = gen_tensor(g, ai, none, 1, strcmp(a->name,
		    "indices") == 0);
		return *arg != NULL ? 1 : -1;
	}
	if (a->type == SCH_TENSOR && !a->list && g->tov[ai].set) {
		*arg = gen_tensor(g, ai, none, 0, 0);
		return *arg != NULL ? 1 : -1;
	}
	switch (a->type) {
	case SCH_DEVICE:
		*arg = case_tag("device");
		return 1;
	case SCH_SCALARTYPE:
		if (!a->optional || gen_has_device(g->sc)) {
			*arg = case_dtype(g->dtype);
			return 1;
		}
		break;
	default:
		break;
	}
	if (a->has_default)
		return 0;
	if (a->optional) {
		*arg = case_tag("none");
		return 1;
	}
	switch (a->type) {
	case SCH_SCALAR:
		*arg = gen_scalar_dom(g, 'n');
		return 1;
	case SCH_INT:
		if (a->list)
			break;
		*arg = case_int(1);
		return 1;
	case SCH_FLOAT:
		*arg = case_float(0.5);
		return 1;
	case SCH_BOOL:
		if (a->list)
			break;
		*arg = case_bool(0);
		return 1;
	default:
		break;
	}
	gen_fail(g, "a required argument has no spec");
	return -1;
}

/* Case assembly */

static void
gen_reset(struct gen *g)
{
	int	i;

	for (i = 0; i < SCHEMA_MAXARGS; i++) {
		json_decref(g->eng[i]);
		g->eng[i] = NULL;
		g->omit[i] = 0;
		memset(&g->tov[i], 0, sizeof(g->tov[i]));
	}
	g->outset = 0;
	g->kw = 0;
	g->defaults = g->ge->kind == GK_RECIPE;
	g->edge = 0;
	g->force_layout = NULL;
	g->force_first = 0;
	g->ladder = 0;
	g->allfalse = 0;
	g->zvar = NULL;
	g->point = NULL;
}

/* The probe class a point word names, -1 when it names none. */
static int
gen_word_class(const struct sp *w)
{
	char	buf[32];
	size_t	n = (size_t)(w->e - w->p);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, w->p, n);
	buf[n] = '\0';
	return probe_class_parse(buf);
}

/* The class of a point: its class word, else same_shape. */
static unsigned
gen_point_class(const char *point)
{
	struct sp	w;
	size_t		i;
	int		c;

	for (i = 0; sp_word(point, i, &w); i++)
		if ((c = gen_word_class(&w)) > 0)
			return (unsigned)c;
	return PROBE_SAME_SHAPE;
}

/* Whether a point has the word "huge": a 2^31-element case (case_huge). */
static int
gen_point_huge(const char *point)
{
	struct sp	w;
	size_t		i;

	for (i = 0; sp_word(point, i, &w); i++)
		if (sp_is(&w, "huge"))
			return 1;
	return 0;
}

static int
gen_point_flags(struct gen *g, const char *point)
{
	struct sp	w;
	size_t		i;

	for (i = 0; sp_word(point, i, &w); i++) {
		if (memchr(w.p, '=', (size_t)(w.e - w.p)) != NULL)
			continue;
		if (sp_is(&w, "kw"))
			g->kw = 1;
		else if (sp_is(&w, "defaults"))
			g->defaults = 1;
		else if (!sp_is(&w, "huge") && gen_word_class(&w) < 0)
			return gen_fail(g, "unknown word in point");
	}
	return 0;
}

/* Emits the case described by the engine's state and g->point. */
static int
gen_emit(struct gen *g)
{
	const struct schema_arg	*a;
	json_t			*c, *args, *kwargs, *arg;
	struct sp		 s;
	int			 i, bykw = 0, r, mut_out = 0;

	g->nvars = 0;
	if (gen_point_flags(g, g->point) == -1 ||
	    gen_bind_words(g, g->ge->args) == -1 ||
	    gen_bind_words(g, g->point) == -1)
		return -1;
	if (g->ladder > 0 && gen_bind(g, "V", 1, g->ladder) == -1)
		return -1;
	if (g->zvar != NULL && gen_bind(g, g->zvar, strlen(g->zvar), 0) == -1)
		return -1;
	c = case_new(g->key, g->cls, g->dtype, g->idx, strcmp(g->cls,
	    "random") == 0 ? "stat" : g->ge->compare, g->inplace);
	if (c == NULL)
		return gen_fail(g, "out of memory");
	args = json_object_get(c, "args");
	kwargs = json_object_get(c, "kwargs");
	for (i = 0; i < g->sc->nargs; i++) {
		a = &g->sc->args[i];
		arg = NULL;
		if (g->eng[i] != NULL) {
			arg = json_incref(g->eng[i]);
			r = 1;
		} else if (g->omit[i]) {
			r = 0;
		} else if (gen_spec(g, i, &s)) {
			r = sp_is(&s, "-") ? 0 : 1;
			if (r == 1 && (arg = gen_from_spec(g, i, s)) == NULL)
				r = -1;
		} else
			r = gen_default(g, i, &arg);
		if (r == -1)
			goto err;
		if (r == 0) {
			bykw = 1;
			continue;
		}
		if (gen_is_out(a))
			mut_out = 1;
		if (a->kwarg_only || bykw || (g->kw && a->has_default)) {
			bykw = 1;
			if (json_object_set_new(kwargs, a->name, arg) != 0)
				goto err;
		} else if (json_array_append_new(args, arg) != 0)
			goto err;
	}
	if ((g->inplace || mut_out) && json_object_set_new(c, "mutates",
	    json_string(g->inplace ? "self" : "out")) != 0)
		goto err;
	if (g->ladder > 0 && json_object_set_new(c, "ladder",
	    json_pack("{s:s,s:i}", "param", g->ge->ladder, "value",
	    g->ladder)) != 0)
		goto err;
	if (g->point != NULL && gen_point_huge(g->point) && case_huge(c) != 0)
		goto err;
	if (json_array_append_new(g->out, c) != 0)
		return gen_fail(g, "out of memory");
	g->idx++;
	g->n++;
	return 0;
 err:
	json_decref(c);
	return gen_fail(g, "cannot build an argument");
}

static void
gen_class(struct gen *g, enum probe_class c)
{
	g->cls = probe_class_name(c);
	g->idx = 0;
}

static void
gen_set_shape(struct tov *t, int nd, const int *d)
{
	memset(t, 0, sizeof(*t));
	t->set = 1;
	t->nd = nd;
	memcpy(t->d, d, (size_t)nd * sizeof(int));
}

static void
gen_set_out(struct gen *g, int nd, const int *d)
{
	g->outset = 1;
	g->outnd = nd;
	memcpy(g->outd, d, (size_t)nd * sizeof(int));
}

/* Tensor operands: required tensors, and optional ones the table names. */
static int
gen_operands(struct gen *g, int *ops)
{
	const struct schema_arg	*a;
	struct sp		 s;
	int			 i, n = 0, has;

	for (i = 0; i < g->sc->nargs; i++) {
		a = &g->sc->args[i];
		if (a->type != SCH_TENSOR || a->list || gen_is_out(a))
			continue;
		has = sp_lookup(g->point, a->name, &s) ||
		    sp_lookup(g->ge->args, a->name, &s);
		if (!has && (a->optional || a->has_default))
			continue;
		if (has && (sp_is(&s, "~") || sp_is(&s, "-") ||
		    sp_has_shape(&s)))
			continue;
		ops[n++] = i;
	}
	return n;
}

/* Whether the table fixes the dtype of tensor argument ai (masks, indices). */
static int
gen_fixed_dtype(struct gen *g, int ai)
{
	struct sp	s;
	const char	*p;

	if (!sp_lookup(g->ge->args, g->sc->args[ai].name, &s))
		return 0;
	for (p = s.p; p < s.e; p++)
		if (*p == '@' || (*p == ':' && p + 1 < s.e &&
		    strchr("ibk", p[1]) != NULL))
			return 1;
	return 0;
}

static int
gen_find_out(const struct schema *sc)
{
	int	i;

	for (i = 0; i < sc->nargs; i++)
		if (gen_is_out(&sc->args[i]))
			return i;
	return -1;
}

/* How one operand of a pointwise case is built. */
struct opd {
	const struct shape	*sh;
	const char		*layout;
	const struct shape	*base;	/* of an expanded layout */
	const char		*dtype;	/* NULL: the spec's or the case's */
};

static int
gen_pw_case(struct gen *g, const int *ops, int nops, const struct opd *od)
{
	const struct shape	*sh[SCHEMA_MAXARGS];
	struct tov		*t;
	int			 i, d[GEN_MAXDIMS], nd;

	for (i = 0; i < nops; i++) {
		t = &g->tov[ops[i]];
		gen_set_shape(t, od[i].sh->nd, od[i].sh->d);
		t->layout = od[i].layout;
		t->dtype = od[i].dtype;
		if (od[i].base != NULL) {
			t->bnd = od[i].base->nd;
			memcpy(t->base, od[i].base->d, sizeof(od[i].base->d));
		}
		sh[i] = od[i].sh;
	}
	if ((nd = shape_broadcast(sh, nops, d)) >= 0)
		gen_set_out(g, nd, d);
	return gen_emit(g);
}

/* Every operand of shape sh. */
static int
gen_pw_all(struct gen *g, const int *ops, int nops, const struct shape *sh)
{
	struct opd	od[SCHEMA_MAXARGS];
	int		i;

	memset(od, 0, sizeof(od));
	for (i = 0; i < nops; i++)
		od[i].sh = sh;
	return gen_pw_case(g, ops, nops, od);
}

/* An in-place integer self cannot hold the float a 0-d float operand makes. */
static const char *
gen_other_kind(const struct gen *g)
{
	int	int_only = (g->ge->flags & GF_INT_SCALAR) != 0;

	if (g->inplace && !int_only && !dtype_is_floating(g->dtype) &&
	    dtype_bit(g->dtype) != DT_BOOL)
		return NULL;
	return dtype_other_kind(g->dtype, int_only);
}

/* The first Scalar argument without a default, -1 when none. */
static int
gen_scalar_operand(const struct schema *sc)
{
	int	i;

	for (i = 0; i < sc->nargs; i++)
		if (sc->args[i].type == SCH_SCALAR && !sc->args[i].has_default &&
		    !sc->args[i].optional && !sc->args[i].list)
			return i;
	return -1;
}

static int
gen_scalar_code(struct gen *g, int ai)
{
	struct sp	s;

	if (sp_lookup(g->ge->args, g->sc->args[ai].name, &s) &&
	    (sp_accept(&s, '!'), sp_peek(&s) == ':') && s.e - s.p >= 2)
		return s.p[1];
	return 'n';
}

static const struct shape gen_full = { 2, { 4, 5 } }, gen_zero = { 0, { 0 } };

/* Python scalars of every kind for the Scalar operand, 0-d self. */
static int
gen_pw_scalar_arg(struct gen *g, const int *ops, int nops, int si)
{
	json_t	*v;
	int	 i, code = gen_scalar_code(g, si);

	for (i = 0; (v = gen_scalar_var(g, code, i)) != NULL; i++) {
		gen_reset(g);
		g->eng[si] = v;
		if (gen_pw_all(g, ops, nops, &gen_full) == -1)
			return -1;
	}
	for (i = 0; i < 3; i += 2) {
		gen_reset(g);
		if ((g->eng[si] = gen_scalar_var(g, code, i)) == NULL)
			continue;
		if (gen_pw_all(g, ops, nops, &gen_zero) == -1)
			return -1;
	}
	return 0;
}

static int
gen_pw_scalar(struct gen *g, const int *ops, int nops)
{
	struct opd	 od[SCHEMA_MAXARGS];
	const char	*other;
	int		 si, i, k, pk;

	if ((si = gen_scalar_operand(g->sc)) >= 0 &&
	    gen_pw_scalar_arg(g, ops, nops, si) == -1)
		return -1;
	if (nops < 2 || (g->ge->flags & GF_NO_BCAST))
		return 0;
	memset(od, 0, sizeof(od));
	/* a 0-d operand in each place, then all of them */
	for (i = 0; i <= nops; i++) {
		if (i == 0 && g->inplace)
			continue;
		gen_reset(g);
		for (k = 0; k < nops; k++)
			od[k].sh = (k == i || i == nops) ? &gen_zero : &gen_full;
		if (gen_pw_case(g, ops, nops, od) == -1)
			return -1;
	}
	/*
	 * No promotion where the result could not be stored: an out= buffer
	 * of the case dtype, an in-place bool self.
	 */
	if ((g->ge->flags & GF_NO_PROMOTE) || gen_find_out(g->sc) >= 0 ||
	    (g->inplace && dtype_bit(g->dtype) == DT_BOOL))
		return 0;
	for (pk = nops - 1; pk > 0 && gen_fixed_dtype(g, ops[pk]); pk--)
		;
	if (pk == 0 && (g->inplace || gen_fixed_dtype(g, ops[0])))
		return 0;
	for (k = 0; k < nops; k++)
		od[k].sh = &gen_full;
	/* a 0-d operand of the other kind wins, one of the same kind does not */
	if ((other = gen_other_kind(g)) != NULL) {
		gen_reset(g);
		od[pk].sh = &gen_zero;
		od[pk].dtype = other;
		if (gen_pw_case(g, ops, nops, od) == -1)
			return -1;
	}
	gen_reset(g);
	od[pk].sh = &gen_full;
	od[pk].dtype = dtype_same_kind(g->dtype);
	return gen_pw_case(g, ops, nops, od);
}

static const struct shape gen_nc = { 2, { 17, 33 } }, gen_nc_row = { 2, { 1, 33 } },
    gen_nc_col = { 2, { 17, 1 } }, gen_edge1 = { 1, { 1031 } },
    gen_edge2 = { 2, { 33, 17 } }, gen_ex = { 2, { 5, 4 } };

static int
gen_pw_noncontig(struct gen *g, const int *ops, int nops)
{
	struct opd	od[SCHEMA_MAXARGS];
	int		k;

	memset(od, 0, sizeof(od));
	for (k = 0; k < nops; k++) {
		od[k].sh = &gen_nc;
		od[k].layout = "transposed";
	}
	gen_reset(g);
	if (gen_pw_case(g, ops, nops, od) == -1)
		return -1;
	for (k = 0; k < nops; k++)
		od[k].layout = k == 0 ? "sliced" : NULL;
	gen_reset(g);
	if (gen_pw_case(g, ops, nops, od) == -1)
		return -1;
	/* stride 0: the others along rows, or self along columns */
	for (k = 0; k < nops; k++) {
		od[k].layout = (k > 0 || nops == 1) ? "expanded" : NULL;
		od[k].base = nops == 1 ? &gen_nc_col : &gen_nc_row;
	}
	if (nops == 1 && g->inplace)
		return 0;
	gen_reset(g);
	return gen_pw_case(g, ops, nops, od);
}

/* Passes the table's values of defaulted arguments, positionally and by keyword. */
static int
gen_contract_defaults(struct gen *g, void (*setup)(struct gen *))
{
	const struct schema_arg	*a;
	struct sp		 s;
	int			 i, any = 0;

	for (i = 0; i < g->sc->nargs; i++) {
		a = &g->sc->args[i];
		if (a->has_default && a->type != SCH_TENSOR &&
		    sp_lookup(g->ge->args, a->name, &s))
			any = 1;
	}
	if (!any)
		return 0;
	for (i = 0; i < 2; i++) {
		gen_reset(g);
		setup(g);
		g->defaults = 1;
		g->kw = i;
		if (gen_emit(g) == -1)
			return -1;
	}
	return 0;
}

/* out= with the right shape and an empty one that aten resizes. */
static int
gen_contract_out(struct gen *g, void (*setup)(struct gen *))
{
	int	oi = gen_find_out(g->sc);

	if (oi < 0)
		return 0;
	gen_reset(g);
	setup(g);
	if (gen_emit(g) == -1)
		return -1;
	gen_reset(g);
	setup(g);
	g->outnd = 1;
	g->outd[0] = 0;
	return gen_emit(g);
}

static void
gen_pw_setup(struct gen *g)
{
	int	ops[SCHEMA_MAXARGS], n, i;

	n = gen_operands(g, ops);
	for (i = 0; i < n; i++)
		gen_set_shape(&g->tov[ops[i]], 2, (const int []){ 5, 6 });
	gen_set_out(g, 2, (const int []){ 5, 6 });
}

static int
gen_skip_shape(const struct gen *g, const struct shape *sh)
{
	int	i;

	if (sh->nd == 0 && (g->ge->flags & GF_NO_0D))
		return 1;
	for (i = 0; i < sh->nd; i++)
		if (sh->d[i] == 0 && (g->ge->flags & GF_NO_EMPTY))
			return 1;
	return 0;
}

static int
gen_pw_broadcast(struct gen *g, const int *ops, int nops)
{
	struct opd		 od[SCHEMA_MAXARGS];
	const struct shape	*sh[3];
	size_t			 i, n = nops == 2 ? shape_gen_bcast2_n : shape_gen_bcast3_n;
	int			 k, d[GEN_MAXDIMS], nd;

	memset(od, 0, sizeof(od));
	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++)
			sh[k] = nops == 2 ? &shape_gen_bcast2[i][k < 2 ? k : 1] :
			    &shape_gen_bcast3[i][k];
		if ((nd = shape_broadcast(sh, nops < 3 ? nops : 3, d)) < 0)
			continue;
		/* an in-place self must already have the result's shape */
		if (g->inplace && (sh[0]->nd != nd ||
		    memcmp(sh[0]->d, d, (size_t)nd * sizeof(int)) != 0))
			continue;
		if (gen_skip_shape(g, sh[0]) || gen_skip_shape(g, sh[1]))
			continue;
		for (k = 0; k < nops; k++)
			od[k].sh = sh[k < 3 ? k : 2];
		gen_reset(g);
		if (gen_pw_case(g, ops, nops, od) == -1)
			return -1;
	}
	return 0;
}

static int
gen_pointwise(struct gen *g, unsigned classes)
{
	int	ops[SCHEMA_MAXARGS], nops, fl = dtype_is_floating(g->dtype);
	size_t	i;

	gen_reset(g);
	nops = gen_operands(g, ops);
	if (nops == 0)
		return gen_fail(g, "pointwise op without tensor operands");
	if (classes & PROBE_SAME_SHAPE) {
		gen_class(g, PROBE_SAME_SHAPE);
		for (i = 0; i < shape_gen_same_n; i++) {
			if (gen_skip_shape(g, &shape_gen_same[i]))
				continue;
			gen_reset(g);
			if (gen_pw_all(g, ops, nops, &shape_gen_same[i]) == -1)
				return -1;
		}
	}
	if ((classes & PROBE_BROADCAST) && nops >= 2 &&
	    !(g->ge->flags & GF_NO_BCAST)) {
		gen_class(g, PROBE_BROADCAST);
		if (gen_pw_broadcast(g, ops, nops) == -1)
			return -1;
	}
	if (classes & PROBE_SCALAR) {
		gen_class(g, PROBE_SCALAR);
		if (gen_pw_scalar(g, ops, nops) == -1)
			return -1;
	}
	if ((classes & PROBE_NONCONTIG) && !(g->ge->flags & GF_NO_NONCONTIG)) {
		gen_class(g, PROBE_NONCONTIG);
		if (gen_pw_noncontig(g, ops, nops) == -1)
			return -1;
	}
	if ((classes & PROBE_EDGE_VALUES) && fl && !(g->ge->flags & GF_NO_EDGE)) {
		gen_class(g, PROBE_EDGE_VALUES);
		gen_reset(g);
		g->edge = 1;
		if (gen_pw_all(g, ops, nops, &gen_edge1) == -1)
			return -1;
		gen_reset(g);
		g->edge = 1;
		if (gen_pw_all(g, ops, nops, &gen_edge2) == -1)
			return -1;
	}
	if (classes & PROBE_CONTRACT) {
		gen_class(g, PROBE_CONTRACT);
		if (gen_contract_out(g, gen_pw_setup) == -1 ||
		    gen_contract_defaults(g, gen_pw_setup) == -1)
			return -1;
	}
	if (classes & PROBE_DTYPE_EXOTIC) {
		gen_class(g, PROBE_DTYPE_EXOTIC);
		gen_reset(g);
		if (gen_pw_all(g, ops, nops, &gen_ex) == -1)
			return -1;
		gen_reset(g);
		g->force_layout = "transposed";
		if (gen_pw_all(g, ops, nops, &gen_ex) == -1)
			return -1;
	}
	return 0;
}

/* Reductions */

enum { DIM_PASS, DIM_NONE, DIM_OMIT };

struct redcase {
	struct shape	sh;
	int		mode;		/* DIM_ */
	int		nd, d[3];	/* dims when DIM_PASS */
	int		keep;		/* -1: not passed */
};

static int
gen_red_emit(struct gen *g, int self, const struct redcase *rc,
    const char *layout, const struct shape *base)
{
	const struct schema_arg	*da;
	int			 di = schema_find(g->sc, "dim");
	int			 ki = schema_find(g->sc, "keepdim");
	int			 red[GEN_MAXDIMS] = { 0 }, o[GEN_MAXDIMS];
	int			 i, x, no = 0, all;

	gen_set_shape(&g->tov[self], rc->sh.nd, rc->sh.d);
	g->tov[self].layout = layout;
	if (base != NULL) {
		g->tov[self].bnd = base->nd;
		memcpy(g->tov[self].base, base->d, sizeof(base->d));
	}
	all = di < 0 || rc->mode != DIM_PASS || rc->nd == 0;
	if (di >= 0) {
		da = &g->sc->args[di];
		if (rc->mode == DIM_NONE)
			g->eng[di] = case_tag("none");
		else if (rc->mode == DIM_OMIT)
			g->omit[di] = 1;
		else if (da->list)
			g->eng[di] = gen_dimlist(rc->d, rc->nd);
		else
			g->eng[di] = case_int(rc->d[0]);
	}
	if (ki >= 0 && rc->keep >= 0)
		g->eng[ki] = case_bool(rc->keep);
	for (i = 0; !all && i < rc->nd; i++) {
		x = rc->d[i] < 0 ? rc->d[i] + rc->sh.nd : rc->d[i];
		if (x >= 0 && x < GEN_MAXDIMS)
			red[x] = 1;
	}
	for (i = 0; i < rc->sh.nd; i++) {
		if (all || red[i]) {
			if (rc->keep == 1)
				o[no++] = 1;
		} else
			o[no++] = rc->sh.d[i];
	}
	gen_set_out(g, no, o);
	return gen_emit(g);
}

static const struct redcase gen_red_dims[] = {
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 0 }, 0 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 1 }, 1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 2 }, 0 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { -1 }, 1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { -3 }, 0 },
	{ { 2, { 8, 4096 } }, DIM_PASS, 1, { -1 }, 0 },
	{ { 2, { 4096, 8 } }, DIM_PASS, 1, { 0 }, 1 },
	{ { 1, { 1023 } }, DIM_PASS, 1, { 0 }, 0 },
	{ { 0, { 0 } }, DIM_PASS, 1, { 0 }, 0 },
};
#define NREDDIMS	(sizeof(gen_red_dims) / sizeof(gen_red_dims[0]))

static const struct redcase gen_red_multi[] = {
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 2, { 0, 2 }, 0 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 2, { -1, 0 }, 1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 3, { 0, 1, 2 }, 0 },
};
#define NREDMULTI	(sizeof(gen_red_multi) / sizeof(gen_red_multi[0]))

static const struct redcase gen_red_acc[] = {
	{ { 2, { 16, 65536 } }, DIM_PASS, 1, { -1 }, 0 },
	{ { 2, { 65536, 16 } }, DIM_PASS, 1, { 0 }, 0 },
	{ { 3, { 8, 16384, 8 } }, DIM_PASS, 1, { 1 }, 1 },
};
#define NREDACC	(sizeof(gen_red_acc) / sizeof(gen_red_acc[0]))

/* How a full reduction is asked for: dim omitted, dim=None, or no dim at all. */
static int
gen_red_fullmode(const struct gen *g)
{
	int	di = schema_find(g->sc, "dim");

	if (di < 0)
		return DIM_OMIT;
	if (g->sc->args[di].has_default)
		return DIM_OMIT;
	if (g->sc->args[di].optional)
		return DIM_NONE;
	return -1;
}

static int
gen_red_self(const struct gen *g)
{
	int	i;

	for (i = 0; i < g->sc->nargs; i++)
		if (g->sc->args[i].type == SCH_TENSOR && !g->sc->args[i].list)
			return i;
	return -1;
}

static int
gen_red_one(struct gen *g, const struct shape *sh, int mode, int nd,
    const int *d, int keep, const char *layout, const struct shape *base)
{
	struct redcase	rc;
	int		self = gen_red_self(g);

	memset(&rc, 0, sizeof(rc));
	rc.sh = *sh;
	rc.mode = mode;
	rc.nd = nd;
	memcpy(rc.d, d, (size_t)nd * sizeof(int));
	rc.keep = keep;
	gen_reset(g);
	return gen_red_emit(g, self, &rc, layout, base);
}

static void
gen_red_setup(struct gen *g)
{
	int	di = schema_find(g->sc, "dim"), self = gen_red_self(g);

	gen_set_shape(&g->tov[self], 3, (const int []){ 3, 5, 7 });
	if (di >= 0 && g->sc->args[di].list)
		g->eng[di] = gen_dimlist((const int []){ 1 }, 1);
	else if (di >= 0)
		g->eng[di] = case_int(1);
	if (di >= 0)
		gen_set_out(g, 2, (const int []){ 3, 7 });
	else
		gen_set_out(g, 0, NULL);
}

static int
gen_red_cases(struct gen *g, const struct redcase *rc, size_t n, int list_only)
{
	int	di = schema_find(g->sc, "dim"), self = gen_red_self(g);
	size_t	i;

	for (i = 0; i < n; i++) {
		if (gen_skip_shape(g, &rc[i].sh) ||
		    (rc[i].sh.nd == 0 && (rc[i].d[0] != 0 && rc[i].d[0] != -1)))
			continue;
		if (list_only && (di < 0 || !g->sc->args[di].list))
			continue;
		gen_reset(g);
		if (gen_red_emit(g, self, &rc[i], NULL, NULL) == -1)
			return -1;
	}
	return 0;
}

/* dtype= (a widening for floats, int64 for integers) by keyword */
static int
gen_dtype_kw(struct gen *g, void (*setup)(struct gen *))
{
	int	ti = schema_find(g->sc, "dtype");

	/* an out= buffer of the case dtype would not take the wider result */
	if (ti < 0 || g->sc->args[ti].type != SCH_SCALARTYPE ||
	    dtype_bit(g->dtype) == DT_BOOL || gen_find_out(g->sc) >= 0)
		return 0;
	gen_reset(g);
	setup(g);
	g->eng[ti] = case_dtype(dtype_is_floating(g->dtype) ? "float32" :
	    "int64");
	return gen_emit(g);
}

static int
gen_reduce(struct gen *g, unsigned classes)
{
	int	di = schema_find(g->sc, "dim"), full = gen_red_fullmode(g);
	int	ki = schema_find(g->sc, "keepdim"), fl = dtype_is_floating(g->dtype);
	int	half = (dtype_bit(g->dtype) & (DT_F16 | DT_BF16)) != 0;
	size_t	i;

	if (gen_red_self(g) < 0)
		return gen_fail(g, "reduction without a tensor");
	if (classes & PROBE_REDUCTION) {
		gen_class(g, PROBE_REDUCTION);
		for (i = 0; full >= 0 && i < shape_gen_full_red_n; i++) {
			if (gen_skip_shape(g, &shape_gen_full_red[i]))
				continue;
			if (gen_red_one(g, &shape_gen_full_red[i], full, 0, NULL,
			    ki >= 0 ? (int)(i % 2) : -1, NULL, NULL) == -1)
				return -1;
		}
		if (di >= 0 && (gen_red_cases(g, gen_red_dims, NREDDIMS, 0) == -1 ||
		    gen_red_cases(g, gen_red_multi, NREDMULTI, 1) == -1))
			return -1;
	}
	if ((classes & PROBE_ACCUMULATION) && half &&
	    !(g->ge->flags & GF_NO_ACCUM)) {
		gen_class(g, PROBE_ACCUMULATION);
		if (full >= 0 && gen_red_one(g, &(struct shape){ 1, { 1 << 20 } },
		    full, 0, NULL, -1, NULL, NULL) == -1)
			return -1;
		if (di >= 0 && gen_red_cases(g, gen_red_acc, NREDACC, 0) == -1)
			return -1;
		if (di < 0 && gen_red_one(g, &(struct shape){ 2, { 16, 65536 } },
		    full, 0, NULL, -1, NULL, NULL) == -1)
			return -1;
	}
	if ((classes & PROBE_NONCONTIG) && !(g->ge->flags & GF_NO_NONCONTIG)) {
		gen_class(g, PROBE_NONCONTIG);
		if (gen_red_one(g, &(struct shape){ 2, { 33, 65 } },
		    di >= 0 ? DIM_PASS : full, di >= 0, (const int []){ -1 },
		    -1, "transposed", NULL) == -1 ||
		    gen_red_one(g, &(struct shape){ 2, { 33, 65 } },
		    di >= 0 ? DIM_PASS : full, di >= 0, (const int []){ 0 },
		    -1, "sliced", NULL) == -1 ||
		    gen_red_one(g, &(struct shape){ 2, { 33, 65 } },
		    di >= 0 ? DIM_PASS : full, di >= 0, (const int []){ 0 },
		    -1, "expanded", &(struct shape){ 2, { 1, 65 } }) == -1)
			return -1;
	}
	if ((classes & PROBE_EDGE_VALUES) && fl && !(g->ge->flags & GF_NO_EDGE)) {
		gen_class(g, PROBE_EDGE_VALUES);
		gen_reset(g);
		g->edge = 1;
		if (full >= 0 && gen_red_emit(g, gen_red_self(g),
		    &(struct redcase){ { 1, { 1031 } }, full, 0, { 0 }, -1 },
		    NULL, NULL) == -1)
			return -1;
		gen_reset(g);
		g->edge = 1;
		if (di >= 0 && gen_red_emit(g, gen_red_self(g),
		    &(struct redcase){ { 2, { 33, 17 } }, DIM_PASS, 1, { -1 },
		    -1 }, NULL, NULL) == -1)
			return -1;
	}
	if (classes & PROBE_CONTRACT) {
		gen_class(g, PROBE_CONTRACT);
		if (di >= 0 || ki >= 0) {
			gen_reset(g);
			gen_red_setup(g);
			if (ki >= 0) {
				g->eng[ki] = case_bool(1);
				if (di >= 0)
					gen_set_out(g, 3, (const int []){ 3, 1, 7 });
				else
					gen_set_out(g, 3, (const int []){ 1, 1, 1 });
			}
			g->kw = 1;
			if (gen_emit(g) == -1)
				return -1;
		}
		if (gen_dtype_kw(g, gen_red_setup) == -1 ||
		    gen_contract_out(g, gen_red_setup) == -1 ||
		    gen_contract_defaults(g, gen_red_setup) == -1)
			return -1;
	}
	if (classes & PROBE_DTYPE_EXOTIC) {
		gen_class(g, PROBE_DTYPE_EXOTIC);
		if (gen_red_one(g, &gen_ex, di >= 0 ? DIM_PASS : full,
		    di >= 0, (const int []){ -1 }, -1, NULL, NULL) == -1)
			return -1;
	}
	return 0;
}

/* Dim-wise ops: softmax, scans; every tensor operand has one shape. */

static const struct redcase gen_dw[] = {
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 0 }, -1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 1 }, -1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { 2 }, -1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { -1 }, -1 },
	{ { 3, { 3, 5, 7 } }, DIM_PASS, 1, { -2 }, -1 },
	{ { 2, { 4, 4096 } }, DIM_PASS, 1, { -1 }, -1 },
	{ { 2, { 4096, 4 } }, DIM_PASS, 1, { 0 }, -1 },
	{ { 1, { 1023 } }, DIM_PASS, 1, { 0 }, -1 },
	{ { 0, { 0 } }, DIM_PASS, 1, { 0 }, -1 },
	{ { 2, { 0, 5 } }, DIM_PASS, 1, { 1 }, -1 },
};
#define NDW	(sizeof(gen_dw) / sizeof(gen_dw[0]))

static const struct redcase gen_dw_acc[] = {
	{ { 2, { 16, 65536 } }, DIM_PASS, 1, { -1 }, -1 },
	{ { 2, { 65536, 16 } }, DIM_PASS, 1, { 0 }, -1 },
};

static int
gen_dw_emit(struct gen *g, const struct redcase *rc, const char *layout,
    int edge)
{
	int	ops[SCHEMA_MAXARGS], nops, i, di = schema_find(g->sc, "dim");

	gen_reset(g);
	g->edge = edge;
	nops = gen_operands(g, ops);
	if (nops == 0 || di < 0)
		return gen_fail(g, "dim-wise op without a tensor or a dim");
	for (i = 0; i < nops; i++) {
		gen_set_shape(&g->tov[ops[i]], rc->sh.nd, rc->sh.d);
		g->tov[ops[i]].layout = layout;
	}
	gen_set_out(g, rc->sh.nd, rc->sh.d);
	g->eng[di] = case_int(rc->d[0]);
	return gen_emit(g);
}

static void
gen_dw_setup(struct gen *g)
{
	int	ops[SCHEMA_MAXARGS], nops, i;

	nops = gen_operands(g, ops);
	for (i = 0; i < nops; i++)
		gen_set_shape(&g->tov[ops[i]], 2, (const int []){ 8, 1023 });
	gen_set_out(g, 2, (const int []){ 8, 1023 });
	if ((i = schema_find(g->sc, "dim")) >= 0)
		g->eng[i] = case_int(1);
}

static int
gen_dimwise(struct gen *g, unsigned classes)
{
	int	half = (dtype_bit(g->dtype) & (DT_F16 | DT_BF16)) != 0;
	size_t	i;

	if (classes & PROBE_REDUCTION) {
		gen_class(g, PROBE_REDUCTION);
		for (i = 0; i < NDW; i++)
			if (!gen_skip_shape(g, &gen_dw[i].sh) &&
			    gen_dw_emit(g, &gen_dw[i], NULL, 0) == -1)
				return -1;
	}
	if ((classes & PROBE_ACCUMULATION) && half &&
	    !(g->ge->flags & GF_NO_ACCUM)) {
		gen_class(g, PROBE_ACCUMULATION);
		for (i = 0; i < 2; i++)
			if (gen_dw_emit(g, &gen_dw_acc[i], NULL, 0) == -1)
				return -1;
	}
	if ((classes & PROBE_NONCONTIG) && !(g->ge->flags & GF_NO_NONCONTIG)) {
		gen_class(g, PROBE_NONCONTIG);
		if (gen_dw_emit(g, &(struct redcase){ { 2, { 33, 65 } },
		    DIM_PASS, 1, { -1 }, -1 }, "transposed", 0) == -1 ||
		    gen_dw_emit(g, &(struct redcase){ { 2, { 33, 65 } },
		    DIM_PASS, 1, { 0 }, -1 }, "sliced", 0) == -1)
			return -1;
	}
	if ((classes & PROBE_EDGE_VALUES) && dtype_is_floating(g->dtype) &&
	    !(g->ge->flags & GF_NO_EDGE)) {
		gen_class(g, PROBE_EDGE_VALUES);
		if (gen_dw_emit(g, &(struct redcase){ { 2, { 33, 17 } },
		    DIM_PASS, 1, { -1 }, -1 }, NULL, 1) == -1)
			return -1;
	}
	if (classes & PROBE_CONTRACT) {
		gen_class(g, PROBE_CONTRACT);
		gen_reset(g);
		gen_dw_setup(g);
		g->kw = 1;
		if (gen_emit(g) == -1 || gen_dtype_kw(g, gen_dw_setup) == -1 ||
		    gen_contract_out(g, gen_dw_setup) == -1 ||
		    gen_contract_defaults(g, gen_dw_setup) == -1)
			return -1;
	}
	if (classes & PROBE_DTYPE_EXOTIC) {
		gen_class(g, PROBE_DTYPE_EXOTIC);
		if (gen_dw_emit(g, &(struct redcase){ { 2, { 5, 4 } },
		    DIM_PASS, 1, { -1 }, -1 }, NULL, 0) == -1)
			return -1;
	}
	return 0;
}

/* The table's points, and the classes derived from the first one. */

/* A point of a kind with an engine starts from the engine's contract shapes. */
static void
gen_point_setup(struct gen *g, const char *point)
{
	gen_reset(g);
	g->point = point;
	switch (g->ge->kind) {
	case GK_POINTWISE:
		gen_pw_setup(g);
		break;
	case GK_REDUCE:
		gen_red_setup(g);
		break;
	case GK_DIMWISE:
		gen_dw_setup(g);
		break;
	default:
		break;
	}
}

static int
gen_point(struct gen *g, const char *point)
{
	gen_point_setup(g, point);
	return gen_emit(g);
}

static int
gen_ladder(struct gen *g, const char *first)
{
	static const int	v[] = { 8, 64, 512, 4096 };
	size_t			i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		gen_point_setup(g, first);
		g->ladder = v[i];
		if (gen_emit(g) == -1)
			return -1;
	}
	return 0;
}

static int
gen_points(struct gen *g, unsigned classes)
{
	const struct gen_entry	*ge = g->ge;
	const char		*first = NULL;
	unsigned		 c, have = 0;
	int			 half, fl, recipe = ge->kind == GK_RECIPE;
	size_t			 i, k;

	half = (dtype_bit(g->dtype) & (DT_F16 | DT_BF16)) != 0;
	fl = dtype_is_floating(g->dtype);
	for (i = 0; i < GEN_MAXPOINTS && ge->points[i] != NULL; i++) {
		c = gen_point_class(ge->points[i]);
		have |= c;
		/* a 2^31-element point is never the template of others */
		if (first == NULL && c == PROBE_SAME_SHAPE &&
		    !gen_point_huge(ge->points[i]))
			first = ge->points[i];
	}
	for (k = 0; k < PROBE_NCLASSES; k++) {
		c = 1u << k;
		if (!(classes & c) || !(have & c))
			continue;
		if (c == PROBE_ACCUMULATION && !half)
			continue;
		/* after the class's own cases: gen_empty(), gen_options() */
		if (c == PROBE_EMPTY || c == PROBE_OPTIONS)
			continue;
		gen_class(g, (enum probe_class)c);
		for (i = 0; i < GEN_MAXPOINTS && ge->points[i] != NULL; i++) {
			if (gen_point_class(ge->points[i]) != c)
				continue;
			/* 2^31 elements in one dtype only: the smallest */
			if (gen_point_huge(ge->points[i]) && (case_huge_dtype(
			    ge->dtypes) == NULL || strcmp(g->dtype,
			    case_huge_dtype(ge->dtypes)) != 0))
				continue;
			/* a compile point is the template of a ladder over V */
			if ((c == PROBE_COMPILE ? gen_ladder(g, ge->points[i]) :
			    gen_point(g, ge->points[i])) == -1)
				return -1;
		}
	}
	if (!recipe || first == NULL)
		return 0;
	if ((classes & PROBE_NONCONTIG) && !(have & PROBE_NONCONTIG) &&
	    !(ge->flags & GF_NO_NONCONTIG)) {
		gen_class(g, PROBE_NONCONTIG);
		gen_reset(g);
		g->point = first;
		g->force_layout = "transposed";
		if (gen_emit(g) == -1)
			return -1;
		gen_reset(g);
		g->point = first;
		g->force_layout = "sliced";
		g->force_first = 1;
		if (gen_emit(g) == -1)
			return -1;
	}
	if ((classes & PROBE_EDGE_VALUES) && fl && !(have & PROBE_EDGE_VALUES) &&
	    !(ge->flags & GF_NO_EDGE) && strcmp(ge->compare, "float") == 0) {
		gen_class(g, PROBE_EDGE_VALUES);
		gen_reset(g);
		g->point = first;
		g->edge = 1;
		if (gen_emit(g) == -1)
			return -1;
	}
	if ((classes & PROBE_CONTRACT) && gen_find_out(g->sc) >= 0) {
		gen_class(g, PROBE_CONTRACT);
		gen_reset(g);
		g->point = first;
		gen_set_out(g, 1, (const int []){ 0 });
		g->eng[gen_find_out(g->sc)] = json_pack("{s:s,s:[i],s:s}",
		    "t", "out", "shape", 0, "dtype", g->dtype);
		if (gen_emit(g) == -1)
			return -1;
	}
	if ((classes & PROBE_DTYPE_EXOTIC) && !(have & PROBE_DTYPE_EXOTIC)) {
		gen_class(g, PROBE_DTYPE_EXOTIC);
		if (gen_point(g, first) == -1)
			return -1;
	}
	if ((classes & PROBE_COMPILE) && ge->ladder != NULL &&
	    !(have & PROBE_COMPILE)) {
		gen_class(g, PROBE_COMPILE);
		if (gen_ladder(g, first) == -1)
			return -1;
	}
	return 0;
}

/*
 * The empty class: a zero-size dimension in each tensor operand in turn
 * (empty.c), reductions over an empty dim and over a non-empty dim of an
 * empty tensor, masks that select nothing; a recipe gets its first point
 * with each of its sizes set to 0 in turn, where that keeps every index in
 * range (empty_derived).
 */

/* Whether a tensor the table or the point names is a bool mask (:b). */
static int
gen_has_mask(const struct gen *g, const char *point)
{
	const struct schema_arg	*a;
	struct sp		 s;
	const char		*p;
	int			 i;

	for (i = 0; i < g->sc->nargs; i++) {
		a = &g->sc->args[i];
		if (a->type != SCH_TENSOR || (!sp_lookup(point, a->name, &s) &&
		    !sp_lookup(g->ge->args, a->name, &s)))
			continue;
		for (p = s.p; p + 1 < s.e; p++)
			if (p[0] == ':' && p[1] == 'b')
				return 1;
	}
	return 0;
}

/*
 * A mask that selects nothing, where the output is compared exactly (a
 * float output of an all-false mask is often all zeros: an oracle that
 * says nothing).
 */
static int
gen_empty_mask(struct gen *g, void (*setup)(struct gen *), const char *point)
{
	if (strcmp(g->ge->compare, "exact") != 0 || !gen_has_mask(g, point))
		return 0;
	gen_reset(g);
	if (setup != NULL)
		setup(g);
	g->point = point;
	g->allfalse = 1;
	return gen_emit(g);
}

static int
gen_pw_empty(struct gen *g)
{
	struct opd		 od[SCHEMA_MAXARGS];
	struct shape		 sh[SCHEMA_MAXARGS];
	const struct shape	*shp[SCHEMA_MAXARGS];
	int			 ops[SCHEMA_MAXARGS], nops, i, k, nd;
	int			 d[GEN_MAXDIMS];

	gen_reset(g);
	if ((nops = gen_operands(g, ops)) == 0)
		return 0;
	memset(od, 0, sizeof(od));
	for (i = 0; empty_pointwise(nops, i, (g->ge->flags & GF_NO_BCAST) != 0,
	    sh); i++) {
		for (k = 0; k < nops; k++)
			od[k].sh = shp[k] = &sh[k];
		/* an in-place self must already have the result's shape */
		nd = shape_broadcast(shp, nops, d);
		if (g->inplace && (nd != sh[0].nd ||
		    memcmp(d, sh[0].d, (size_t)nd * sizeof(int)) != 0))
			continue;
		gen_reset(g);
		if (gen_pw_case(g, ops, nops, od) == -1)
			return -1;
	}
	return gen_empty_mask(g, gen_pw_setup, NULL);
}

/* Whether a reduction over rc's dims reduces a zero-size dim. */
static int
gen_red_over_empty(const struct redcase *rc)
{
	int	i, x;

	for (i = 0; i < rc->nd; i++) {
		x = rc->d[i] < 0 ? rc->d[i] + rc->sh.nd : rc->d[i];
		if (x >= 0 && x < rc->sh.nd && rc->sh.d[x] == 0)
			return 1;
	}
	return 0;
}

static const struct redcase gen_red_empty_cases[] = {
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { 1 }, 0 },	/* over the empty dim */
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { 1 }, 1 },
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { 0 }, 0 },	/* an empty result */
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { -1 }, 1 },
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 2, { 0, 1 }, 0 },
};
#define NREDEMPTY	(sizeof(gen_red_empty_cases) / sizeof(gen_red_empty_cases[0]))

/*
 * An op that raises on an empty reduction (argmax, max) still takes a
 * reduction over a non-empty dim of an empty tensor: its result is empty.
 */
static int
gen_red_empty(struct gen *g)
{
	static const struct shape	 sh = { 3, { 3, 0, 5 } };
	struct redcase			 rc;
	int				 di = schema_find(g->sc, "dim");
	int				 ki = schema_find(g->sc, "keepdim");
	int				 full = gen_red_fullmode(g);
	int				 noempty = g->ge->flags & GF_NO_EMPTY;
	int				 self = gen_red_self(g);
	size_t				 i;

	if (self < 0)
		return gen_fail(g, "reduction without a tensor");
	if (full >= 0 && !noempty && gen_red_one(g, &sh, full, 0, NULL,
	    ki >= 0 ? 0 : -1, NULL, NULL) == -1)
		return -1;
	for (i = 0; di >= 0 && i < NREDEMPTY; i++) {
		rc = gen_red_empty_cases[i];
		if ((noempty && gen_red_over_empty(&rc)) ||
		    (rc.nd > 1 && !g->sc->args[di].list))
			continue;
		if (ki < 0)
			rc.keep = -1;
		gen_reset(g);
		if (gen_red_emit(g, self, &rc, NULL, NULL) == -1)
			return -1;
	}
	return 0;
}

static const struct redcase gen_dw_empty_cases[] = {
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { 1 }, -1 },
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { -1 }, -1 },
	{ { 3, { 3, 0, 5 } }, DIM_PASS, 1, { 0 }, -1 },
};

static int
gen_dw_empty(struct gen *g)
{
	size_t	i;

	for (i = 0; i < sizeof(gen_dw_empty_cases) /
	    sizeof(gen_dw_empty_cases[0]); i++)
		if (gen_dw_emit(g, &gen_dw_empty_cases[i], NULL, 0) == -1)
			return -1;
	return 0;
}

/*
 * Emits into a scratch array; 0 with the case in *c (a reference the
 * scratch holds), 1 when the case cannot be built (g->err cleared), -1 on
 * error.  The case keeps its index: gen_keep() counts it in.
 */
static int
gen_try(struct gen *g, json_t *scratch, json_t **c)
{
	json_t	*save = g->out;
	int	 r;

	g->out = scratch;
	r = gen_emit(g);
	g->out = save;
	if (r == -1) {
		if (g->err != NULL && strcmp(g->err, "out of memory") == 0)
			return -1;
		g->err = NULL;
		return 1;
	}
	g->idx--;
	g->n--;
	*c = json_array_get(scratch, json_array_size(scratch) - 1);
	return 0;
}

static int
gen_keep(struct gen *g, json_t *c)
{
	if (json_array_append(g->out, c) != 0)
		return gen_fail(g, "out of memory");
	g->idx++;
	g->n++;
	return 0;
}

static int
gen_recipe_empty(struct gen *g, const char *first)
{
	char	 names[GEN_MAXVARS][GEN_VARNAME];
	json_t	*scratch, *base, *z;
	int	 nv, i, r;

	if ((scratch = json_array()) == NULL)
		return gen_fail(g, "out of memory");
	gen_reset(g);
	g->point = first;
	if ((r = gen_try(g, scratch, &base)) != 0) {
		json_decref(scratch);
		return r == 1 ? 0 : -1;
	}
	nv = g->nvars;
	for (i = 0; i < nv; i++)
		memcpy(names[i], g->vars[i].name, GEN_VARNAME);
	for (i = 0; i < nv; i++) {
		gen_reset(g);
		g->point = first;
		g->zvar = names[i];
		if ((r = gen_try(g, scratch, &z)) == -1)
			goto err;
		if (r == 0 && empty_derived(g->sc, base, z) &&
		    gen_keep(g, z) == -1)
			goto err;
	}
	json_decref(scratch);
	return gen_empty_mask(g, NULL, first);
 err:
	json_decref(scratch);
	return -1;
}

/* The first same_shape point of the entry, NULL when it has none. */
static const char *
gen_first_point(const struct gen_entry *ge)
{
	size_t	i;

	for (i = 0; i < GEN_MAXPOINTS && ge->points[i] != NULL; i++)
		if (gen_point_class(ge->points[i]) == PROBE_SAME_SHAPE)
			return ge->points[i];
	return NULL;
}

/* The table's own points of class c, after the class's generated cases. */
static int
gen_points_of(struct gen *g, unsigned c)
{
	size_t	i;

	for (i = 0; i < GEN_MAXPOINTS && g->ge->points[i] != NULL; i++)
		if (gen_point_class(g->ge->points[i]) == c &&
		    gen_point(g, g->ge->points[i]) == -1)
			return -1;
	return 0;
}

static int
gen_empty(struct gen *g)
{
	const char	*first = gen_first_point(g->ge);
	int		 r = 0;

	gen_class(g, PROBE_EMPTY);
	switch (g->ge->kind) {
	case GK_POINTWISE:
		if (!(g->ge->flags & GF_NO_EMPTY))
			r = gen_pw_empty(g);
		break;
	case GK_REDUCE:
		r = gen_red_empty(g);
		break;
	case GK_DIMWISE:
		if (!(g->ge->flags & GF_NO_EMPTY))
			r = gen_dw_empty(g);
		break;
	case GK_RECIPE:
		if (first != NULL && !(g->ge->flags & GF_NO_EMPTY))
			r = gen_recipe_empty(g, first);
		break;
	case GK_NONE:
		break;
	}
	if (r == -1)
		return -1;
	return gen_points_of(g, PROBE_EMPTY);
}

/*
 * The options class (options.c): the template is the contract class's
 * setup (a recipe: its first point), the table's values of the defaulted
 * arguments are values too.
 */
static int
gen_options(struct gen *g)
{
	const struct schema_arg	*a;
	const char		*first = gen_first_point(g->ge);
	json_t			*scratch, *tmpl, *extra, *v;
	struct sp		 s;
	int			 i, r;

	gen_class(g, PROBE_OPTIONS);
	if ((g->ge->kind == GK_RECIPE && first == NULL) ||
	    (g->ge->flags & GF_NO_OPTIONS))
		return gen_points_of(g, PROBE_OPTIONS);
	if ((scratch = json_array()) == NULL || (extra = json_object()) ==
	    NULL) {
		json_decref(scratch);
		return gen_fail(g, "out of memory");
	}
	gen_point_setup(g, g->ge->kind == GK_RECIPE ? first : NULL);
	if ((r = gen_try(g, scratch, &tmpl)) != 0) {
		json_decref(scratch);
		json_decref(extra);
		return r == 1 ? gen_points_of(g, PROBE_OPTIONS) : -1;
	}
	for (i = 0; i < g->sc->nargs; i++) {
		a = &g->sc->args[i];
		if (a->type == SCH_TENSOR || (!a->has_default && !a->optional) ||
		    !sp_lookup(g->ge->args, a->name, &s))
			continue;
		sp_accept(&s, '!');
		if (sp_is(&s, "-"))
			continue;
		if ((v = gen_from_spec(g, i, s)) == NULL) {
			g->err = NULL;
			continue;
		}
		json_object_set_new(extra, a->name, v);
	}
	r = options_expand(g->sc, tmpl, extra, &g->idx, g->out);
	json_decref(scratch);
	json_decref(extra);
	if (r < 0)
		return gen_fail(g, "cannot build the options cases");
	g->n += r;
	return gen_points_of(g, PROBE_OPTIONS);
}

/* Lookup */

/* A guess for keys the table does not know: a pointwise op on floats. */
static const struct gen_entry gen_guess = {
	"(schema)", GK_POINTWISE, DT_FLOATS, 0, "float", 0, NULL, { NULL },
	NULL, NULL
};

static int
gen_looks_pointwise(const struct schema *sc)
{
	const struct schema_arg	*a;
	int			 i, tensors = 0;

	if (sc->nrets != 1 || sc->rets[0].type != SCH_TENSOR || sc->rets[0].list)
		return 0;
	for (i = 0; i < sc->nargs; i++) {
		a = &sc->args[i];
		if (a->list || a->type == SCH_STR)
			return 0;
		if (a->type == SCH_TENSOR && !a->optional)
			tensors++;
		else if (a->type != SCH_TENSOR && a->type != SCH_SCALAR &&
		    !a->has_default)
			return 0;
	}
	return tensors > 0;
}

static const struct gen_entry *
gen_match(const char *name)
{
	size_t	i;

	for (i = 0; i < gen_table_n; i++)
		if (strcmp(gen_table[i].match, name) == 0)
			return &gen_table[i];
	return NULL;
}

static const struct gen_entry *
gen_lookup(const char *key, const struct schema *sc)
{
	const struct gen_entry	*ge;
	char			 base[SCHEMA_NAME], buf[2 * SCHEMA_NAME + 2];
	size_t			 n;

	if ((ge = gen_match(key)) != NULL)
		return ge;
	n = strlen(sc->name);
	memcpy(base, sc->name, n + 1);
	/* add_ is add in place; __ior__ stays itself */
	if (n > 1 && base[n - 1] == '_' && base[n - 2] != '_')
		base[n - 1] = '\0';
	if (sc->overload[0] != '\0') {
		snprintf(buf, sizeof(buf), "%s.%s", base, sc->overload);
		if ((ge = gen_match(buf)) != NULL)
			return ge;
	}
	if ((ge = gen_match(sc->name)) != NULL || (ge = gen_match(base)) != NULL)
		return ge;
	return gen_looks_pointwise(sc) ? &gen_guess : NULL;
}

static int
gen_run(struct gen *g, unsigned classes)
{
	switch (g->ge->kind) {
	case GK_POINTWISE:
		if (gen_pointwise(g, classes) == -1)
			return -1;
		break;
	case GK_REDUCE:
		if (gen_reduce(g, classes) == -1)
			return -1;
		break;
	case GK_DIMWISE:
		if (gen_dimwise(g, classes) == -1)
			return -1;
		break;
	case GK_RECIPE:
		break;
	case GK_NONE:
		return gen_fail(g, g->ge->why);
	}
	if (gen_points(g, classes) == -1)
		return -1;
	if ((classes & PROBE_EMPTY) && gen_empty(g) == -1)
		return -1;
	if ((classes & PROBE_OPTIONS) && gen_options(g) == -1)
		return -1;
	return 0;
}

/* Expands into out; -1 with g->err set (out may hold partial cases). */
static int
gen_expand(struct gen *g, const char *key, const char *schema,
    unsigned classes, const json_t *dtypes, json_t *out,
    struct schema *sc)
{
	unsigned	bit, mask, cls;
	const char	*perr = NULL;

	memset(g, 0, sizeof(*g));
	g->key = key;
	g->sc = sc;
	g->out = out;
	if (key == NULL || schema == NULL || *schema == '\0')
		return gen_fail(g, "no aten schema for this key in this torch");
	if (schema_parse(schema, sc, &perr) == -1)
		return gen_fail(g, perr ? perr : "schema does not parse");
	if ((g->ge = gen_lookup(key, sc)) == NULL)
		return gen_fail(g, "no table entry, and the schema alone does "
		    "not say how to build its inputs");
	if (g->ge->kind == GK_NONE)
		return gen_fail(g, g->ge->why);
	g->inplace = sc->nargs > 0 && sc->args[0].write &&
	    !sc->args[0].kwarg_only;
	if (dtypes != NULL && !json_is_array(dtypes))
		return gen_fail(g, "dtypes must be an array");
	mask = g->ge->dtypes | g->ge->exotic;
	for (bit = 1; bit != 0 && bit <= DT_LAST; bit <<= 1) {
		if (!(mask & bit) || !dtype_wanted(dtypes, dtype_name(bit)))
			continue;
		g->dtype = dtype_name(bit);
		if (g->inplace && (g->ge->flags & GF_RET_FLOAT) &&
		    !dtype_is_floating(g->dtype))
			continue;
		cls = (g->ge->dtypes & bit) ? classes & ~PROBE_DTYPE_EXOTIC :
		    classes & PROBE_DTYPE_EXOTIC;
		if (cls != 0 && gen_run(g, cls) == -1)
			return -1;
	}
	return g->n;
}

/* Drops the engine's argument references. */
static void
gen_reset_final(struct gen *g)
{
	int	i;

	for (i = 0; i < SCHEMA_MAXARGS; i++) {
		json_decref(g->eng[i]);
		g->eng[i] = NULL;
	}
}

int
generic_supports(const char *key, const char *schema, const char **why)
{
	struct gen	 g;
	struct schema	 sc;
	json_t		*out;
	int		 r;

	if ((out = json_array()) == NULL) {
		if (why != NULL)
			*why = "out of memory";
		return 0;
	}
	r = gen_expand(&g, key, schema, PROBE_ALL, NULL, out, &sc);
	gen_reset_final(&g);
	json_decref(out);
	if (r <= 0) {
		if (why != NULL)
			*why = r == 0 ? "no cases for any dtype" : g.err;
		return 0;
	}
	if (why != NULL)
		*why = NULL;
	return 1;
}

int
generic_expand(const char *key, const char *schema, unsigned classes,
    const json_t *dtypes, json_t *out)
{
	struct gen	g;
	struct schema	sc;
	size_t		before;
	int		r;

	if (!json_is_array(out))
		return -1;
	before = json_array_size(out);
	r = gen_expand(&g, key, schema, classes & PROBE_ALL, dtypes, out, &sc);
	gen_reset_final(&g);
	if (r == -1) {
		/* leave out as it was: a half-expanded key is worse than none */
		while (json_array_size(out) > before)
			json_array_remove(out, json_array_size(out) - 1);
	}
	return r;
}
