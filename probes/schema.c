/*
 * A parser of aten schema strings (schema.h): a recursive-descent reader
 * over a cursor that never walks past the terminating NUL.
 *
 *   schema  := [ns "::"] name ["." overload] "(" [arg {"," arg}] ")"
 *              "->" returns
 *   arg     := "*" | type name ["=" default]
 *   type    := ident ["?"] [alias] ["[" [N] "]" ["?"]]
 *   alias   := "(" letter ["!"] [" -> *"] ")"
 *   returns := ret | "(" [ret {"," ret}] ")"
 *   ret     := type [name]
 */
#include <ctype.h>
#include <string.h>

#include "schema.h"

struct cur {
	const char	*p;
	const char	*err;
};

static const struct {
	const char		*name;
	enum schema_type	 type;
	int			 symint;
} schema_types[] = {
	{ "Tensor", SCH_TENSOR, 0 },
	{ "Scalar", SCH_SCALAR, 0 },
	{ "int", SCH_INT, 0 },
	{ "SymInt", SCH_INT, 1 },
	{ "float", SCH_FLOAT, 0 },
	{ "bool", SCH_BOOL, 0 },
	{ "str", SCH_STR, 0 },
	{ "ScalarType", SCH_SCALARTYPE, 0 },
	{ "Layout", SCH_LAYOUT, 0 },
	{ "Device", SCH_DEVICE, 0 },
	{ "MemoryFormat", SCH_MEMFMT, 0 },
	{ "Generator", SCH_GENERATOR, 0 },
};
#define NTYPES	(sizeof(schema_types) / sizeof(schema_types[0]))

static void
skip_ws(struct cur *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

static int
fail(struct cur *c, const char *msg)
{
	if (c->err == NULL)
		c->err = msg;
	return -1;
}

static int
accept(struct cur *c, char ch)
{
	skip_ws(c);
	if (*c->p != ch)
		return 0;
	c->p++;
	return 1;
}

static int
is_ident(int ch, int first)
{
	if (ch == '_' || isalpha((unsigned char)ch))
		return 1;
	return !first && isdigit((unsigned char)ch);
}

/* An identifier into buf (size len); -1 when none or too long. */
static int
ident(struct cur *c, char *buf, size_t len)
{
	size_t	n = 0;

	skip_ws(c);
	if (!is_ident(*c->p, 1))
		return fail(c, "identifier expected");
	while (is_ident(c->p[n], 0))
		n++;
	if (n >= len)
		return fail(c, "identifier too long");
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	return 0;
}

const char *
schema_type_name(enum schema_type t)
{
	size_t	i;

	for (i = 0; i < NTYPES; i++)
		if (schema_types[i].type == t && !schema_types[i].symint)
			return schema_types[i].name;
	return "?";
}

/* "(a!)", "(a)", "(a -> *)", "(a! -> a|b)": letter and write flag */
static int
alias_annot(struct cur *c, char *alias, int *write)
{
	if (!accept(c, '('))
		return 0;
	skip_ws(c);
	if (!isalpha((unsigned char)*c->p))
		return fail(c, "alias set expected");
	*alias = *c->p++;
	if (accept(c, '!'))
		*write = 1;
	while (*c->p != '\0' && *c->p != ')' && *c->p != ',')
		c->p++;
	if (!accept(c, ')'))
		return fail(c, "unterminated alias annotation");
	return 0;
}

/* The common type part of arguments and returns. */
struct ptype {
	enum schema_type	type;
	int			symint, optional, elem_optional, list, list_n;
	char			alias;
	int			write;
};

static int
parse_type(struct cur *c, struct ptype *t)
{
	char	name[SCHEMA_NAME];
	size_t	i;
	long	n;

	memset(t, 0, sizeof(*t));
	if (ident(c, name, sizeof(name)) == -1)
		return -1;
	for (i = 0; i < NTYPES; i++)
		if (strcmp(name, schema_types[i].name) == 0)
			break;
	if (i == NTYPES)
		return fail(c, "unknown argument type");
	t->type = schema_types[i].type;
	t->symint = schema_types[i].symint;
	if (accept(c, '?'))
		t->optional = 1;
	if (alias_annot(c, &t->alias, &t->write) == -1)
		return -1;
	if (accept(c, '[')) {
		t->list = 1;
		t->elem_optional = t->optional;
		t->optional = 0;
		skip_ws(c);
		n = 0;
		while (isdigit((unsigned char)*c->p)) {
			n = n * 10 + (*c->p++ - '0');
			if (n > 64)
				return fail(c, "list size too large");
		}
		t->list_n = (int)n;
		if (!accept(c, ']'))
			return fail(c, "']' expected");
		if (accept(c, '?'))
			t->optional = 1;
	}
	if (t->alias == 0 && alias_annot(c, &t->alias, &t->write) == -1)
		return -1;
	return 0;
}

/* A default value: everything up to ',' or ')' outside brackets/quotes. */
static int
parse_default(struct cur *c, char *buf, size_t len)
{
	const char	*s;
	char		 q = 0;
	int		 depth = 0;
	size_t		 n;

	skip_ws(c);
	s = c->p;
	for (; *c->p != '\0'; c->p++) {
		if (q) {
			if (*c->p == q)
				q = 0;
			continue;
		}
		if (*c->p == '"' || *c->p == '\'')
			q = *c->p;
		else if (*c->p == '[' || *c->p == '(')
			depth++;
		else if (*c->p == ']' || (*c->p == ')' && depth > 0))
			depth--;
		else if (depth == 0 && (*c->p == ',' || *c->p == ')'))
			break;
		if (depth < 0)
			return fail(c, "unbalanced default");
	}
	if (q || depth != 0)
		return fail(c, "unterminated default");
	n = (size_t)(c->p - s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0)
		return fail(c, "empty default");
	if (n >= len)
		return fail(c, "default too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

static int
parse_arg(struct cur *c, struct schema *sc, int kwonly)
{
	struct schema_arg	*a;
	struct ptype		 t;
	int			 i;

	if (sc->nargs >= SCHEMA_MAXARGS)
		return fail(c, "too many arguments");
	a = &sc->args[sc->nargs];
	memset(a, 0, sizeof(*a));
	if (parse_type(c, &t) == -1)
		return -1;
	a->type = t.type;
	a->symint = t.symint;
	a->optional = t.optional;
	a->elem_optional = t.elem_optional;
	a->list = t.list;
	a->list_n = t.list_n;
	a->alias = t.alias;
	a->write = t.write;
	a->kwarg_only = kwonly;
	if (ident(c, a->name, sizeof(a->name)) == -1)
		return -1;
	for (i = 0; i < sc->nargs; i++)
		if (strcmp(sc->args[i].name, a->name) == 0)
			return fail(c, "duplicate argument name");
	if (accept(c, '=')) {
		if (parse_default(c, a->def, sizeof(a->def)) == -1)
			return -1;
		a->has_default = 1;
	}
	sc->nargs++;
	return 0;
}

static int
parse_args(struct cur *c, struct schema *sc)
{
	int	kwonly = 0;

	if (!accept(c, '('))
		return fail(c, "'(' expected");
	if (accept(c, ')'))
		return 0;
	for (;;) {
		if (accept(c, '*')) {
			if (kwonly)
				return fail(c, "second '*'");
			kwonly = 1;
		} else if (parse_arg(c, sc, kwonly) == -1)
			return -1;
		if (accept(c, ')'))
			return 0;
		if (!accept(c, ','))
			return fail(c, "',' or ')' expected");
	}
}

static int
parse_ret(struct cur *c, struct schema *sc)
{
	struct schema_ret	*r;
	struct ptype		 t;

	if (sc->nrets >= SCHEMA_MAXRETS)
		return fail(c, "too many returns");
	r = &sc->rets[sc->nrets];
	memset(r, 0, sizeof(*r));
	if (parse_type(c, &t) == -1)
		return -1;
	r->type = t.type;
	r->list = t.list;
	r->optional = t.optional;
	r->alias = t.alias;
	r->write = t.write;
	skip_ws(c);
	if (is_ident(*c->p, 1) && ident(c, r->name, sizeof(r->name)) == -1)
		return -1;
	sc->nrets++;
	return 0;
}

static int
parse_rets(struct cur *c, struct schema *sc)
{
	if (!accept(c, '-') || *c->p != '>')
		return fail(c, "'->' expected");
	c->p++;
	if (!accept(c, '('))
		return parse_ret(c, sc);
	if (accept(c, ')'))
		return 0;
	for (;;) {
		if (parse_ret(c, sc) == -1)
			return -1;
		if (accept(c, ')'))
			return 0;
		if (!accept(c, ','))
			return fail(c, "',' or ')' expected in returns");
	}
}

int
schema_parse(const char *s, struct schema *sc, const char **err)
{
	struct cur	c = { s, NULL };
	char		name[SCHEMA_NAME];

	if (sc == NULL)
		return -1;
	memset(sc, 0, sizeof(*sc));
	if (s == NULL) {
		fail(&c, "no schema");
		goto bad;
	}
	if (ident(&c, name, sizeof(name)) == -1)
		goto bad;
	if (c.p[0] == ':' && c.p[1] == ':') {
		c.p += 2;
		if (ident(&c, name, sizeof(name)) == -1)
			goto bad;
	}
	memcpy(sc->name, name, sizeof(name));
	if (*c.p == '.') {
		c.p++;
		if (ident(&c, sc->overload, sizeof(sc->overload)) == -1)
			goto bad;
	}
	if (parse_args(&c, sc) == -1 || parse_rets(&c, sc) == -1)
		goto bad;
	skip_ws(&c);
	if (*c.p != '\0') {
		fail(&c, "trailing characters");
		goto bad;
	}
	return 0;
 bad:
	if (err != NULL)
		*err = c.err;
	return -1;
}

/* The index of the argument called name, -1 when there is none. */
int
schema_find(const struct schema *sc, const char *name)
{
	int	i;

	for (i = 0; i < sc->nargs; i++)
		if (strcmp(sc->args[i].name, name) == 0)
			return i;
	return -1;
}
