/*
 * aten schema strings, as torch prints them (`str(op._schema)`, with or
 * without the "aten::" prefix), parsed into their arguments and returns.
 * The parser takes any string: what it cannot read is an error, never a
 * crash, and the result has fixed-size storage (no allocation).
 */
#ifndef OPSCREEN_SCHEMA_H
#define OPSCREEN_SCHEMA_H

#include <stddef.h>

enum schema_type {
	SCH_TENSOR,
	SCH_SCALAR,
	SCH_INT,		/* int and SymInt */
	SCH_FLOAT,
	SCH_BOOL,
	SCH_STR,
	SCH_SCALARTYPE,
	SCH_LAYOUT,
	SCH_DEVICE,
	SCH_MEMFMT,
	SCH_GENERATOR
};

#define SCHEMA_NAME	64
#define SCHEMA_DEFAULT	64
#define SCHEMA_MAXARGS	32
#define SCHEMA_MAXRETS	8

struct schema_arg {
	enum schema_type	type;
	int			symint;		/* spelled SymInt */
	int			optional;	/* T? or T[]? : may be None */
	int			elem_optional;	/* T?[] : elements may be None */
	int			list;		/* T[] or T[N] */
	int			list_n;		/* N of T[N], 0 when unsized */
	char			alias;		/* 'a' of Tensor(a!), 0 when none */
	int			write;		/* the ! of (a!) */
	int			kwarg_only;	/* after the '*' */
	int			has_default;
	char			def[SCHEMA_DEFAULT];
	char			name[SCHEMA_NAME];
};

struct schema_ret {
	enum schema_type	type;
	int			list;
	int			optional;
	char			alias;
	int			write;
	char			name[SCHEMA_NAME];
};

struct schema {
	char			name[SCHEMA_NAME];	/* "add_" */
	char			overload[SCHEMA_NAME];	/* "Tensor", "" */
	int			nargs;
	struct schema_arg	args[SCHEMA_MAXARGS];
	int			nrets;
	struct schema_ret	rets[SCHEMA_MAXRETS];
};

/* 0 on success; -1 with a static message in *err (when not NULL). */
int		 schema_parse(const char *, struct schema *, const char **);
int		 schema_find(const struct schema *, const char *);
const char	*schema_type_name(enum schema_type);

#endif
