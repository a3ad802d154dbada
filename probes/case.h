/*
 * The case builder both generators use (the catalog sweep, sweep.c, and the
 * schema-driven generator, generic.c): a CASE's skeleton, its ARGs
 * (docs/protocol.md), the value domains of tensors, and the one shape type
 * with the shape tables of the probe classes (shape.c).
 */
#ifndef OPSCREEN_CASE_H
#define OPSCREEN_CASE_H

#include <stddef.h>
#include <jansson.h>

struct schema;

/* A tensor shape of rank 0 to 4, as data. */
struct shape {
	int	nd;
	int	d[4];
};

/*
 * A value domain: a code (enum catalog_domain's letters, which are the
 * table's codes in gentable.h) and the bounds of i(e) and k(lo,hi).
 */
struct domain {
	int	code;
	long	lo, hi;
	int	keep;	/* '!': the domain holds in the edge_values class too */
};

/* case.c: each constructor returns a new reference or NULL */
json_t	*case_new(const char *, const char *, const char *, int, const char *,
	    int);
json_t	*case_int(long long);
json_t	*case_float(double);
json_t	*case_bool(int);
json_t	*case_none(void);
json_t	*case_tag(const char *);
json_t	*case_str(const char *);
json_t	*case_dtype(const char *);
json_t	*case_ints(json_t *);
json_t	*case_tensors(json_t *);
json_t	*case_dims(const int *, int);
json_t	*case_dimsv(int, ...);
json_t	*case_shape(const struct shape *);
json_t	*case_tensor(json_t *, const char *);
int	 case_domain(json_t *, const char *, const struct domain *, int, int);

/* tensors of this many elements or more in a case_huge() case are "arange" */
#define CASE_HUGE_GEN_MIN	((json_int_t)1 << 24)
const char *case_huge_dtype(unsigned);
int	 case_huge(json_t *);
int	 case_each_dtype(const json_t *, int (*)(const json_t *, size_t,
	    const char *, void *, json_t *), void *, json_t *);

/* shape.c: the shape table, by generator and class */
extern const struct shape	shape_cat_same[];
extern const size_t		shape_cat_same_n;
extern const struct shape	shape_cat_bcast2[][2];
extern const size_t		shape_cat_bcast2_n;
extern const struct shape	shape_cat_bcast3[][3];
extern const size_t		shape_cat_bcast3_n;
extern const struct shape	shape_cat_full_red[];
extern const size_t		shape_cat_full_red_n;
extern const struct shape	shape_gen_same[];
extern const size_t		shape_gen_same_n;
extern const struct shape	shape_gen_bcast2[][2];
extern const size_t		shape_gen_bcast2_n;
extern const struct shape	shape_gen_bcast3[][3];
extern const size_t		shape_gen_bcast3_n;
extern const struct shape	shape_gen_full_red[];
extern const size_t		shape_gen_full_red_n;
int	 shape_broadcast(const struct shape *const *, int, int *);
int	 shape_dim_size(const struct shape *, int);

/* empty.c: the empty class's operand shapes and derived cases */
int	 empty_pointwise(int, int, int, struct shape *);
int	 empty_derived(const struct schema *, const json_t *, const json_t *);

/* options.c: the options class from a template case and its schema */
int	 options_expand(const struct schema *, const json_t *, const json_t *,
	    int *, json_t *);

#endif
