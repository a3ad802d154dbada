/*
 * The shape table: the shapes each probe class runs through, for the
 * catalog sweep (shape_cat_*) and the schema-driven generator (shape_gen_*),
 * side by side, and the shape arithmetic both need.  The two sets differ;
 * merging them would change the cases of one generator wholesale (a case's
 * seed is its index in its class), which is new evidence to screen, not a
 * refactoring.
 */
#include <stddef.h>

#include "case.h"

/* catalog sweep (sweep.c) */

/* odd sizes, 0-d, empty, 2-D and 3-D */
const struct shape shape_cat_same[] = {
	{ 0, { 0 } }, { 1, { 1 } }, { 1, { 7 } }, { 1, { 33 } },
	{ 1, { 1023 } }, { 1, { 4097 } }, { 1, { 0 } }, { 2, { 5, 7 } },
	{ 3, { 3, 17, 9 } },
};
const size_t	shape_cat_same_n =
    sizeof(shape_cat_same) / sizeof(shape_cat_same[0]);

/* each side broadcasts in turn, the first one included, up to rank 4 */
const struct shape shape_cat_bcast2[][2] = {
	{ { 2, { 1, 5 } }, { 2, { 4, 5 } } },
	{ { 2, { 4, 5 } }, { 2, { 1, 5 } } },
	{ { 2, { 4, 1 } }, { 2, { 1, 5 } } },
	{ { 1, { 5 } }, { 2, { 4, 5 } } },
	{ { 3, { 3, 1, 5 } }, { 3, { 1, 4, 1 } } },
	{ { 4, { 2, 1, 4, 1 } }, { 3, { 3, 1, 5 } } },
	{ { 1, { 1 } }, { 4, { 2, 3, 4, 5 } } },
	{ { 4, { 2, 3, 4, 5 } }, { 4, { 1, 3, 1, 5 } } },
	{ { 2, { 1, 33 } }, { 2, { 7, 1 } } },
	{ { 2, { 3, 1 } }, { 2, { 3, 0 } } },
};
const size_t	shape_cat_bcast2_n =
    sizeof(shape_cat_bcast2) / sizeof(shape_cat_bcast2[0]);

const struct shape shape_cat_bcast3[][3] = {
	{ { 2, { 1, 5 } }, { 2, { 4, 5 } }, { 2, { 4, 5 } } },
	{ { 2, { 4, 5 } }, { 2, { 1, 5 } }, { 2, { 4, 5 } } },
	{ { 2, { 4, 5 } }, { 2, { 4, 5 } }, { 2, { 1, 5 } } },
	{ { 2, { 4, 1 } }, { 2, { 1, 5 } }, { 1, { 5 } } },
	{ { 1, { 5 } }, { 2, { 4, 1 } }, { 1, { 1 } } },
	{ { 4, { 2, 1, 4, 1 } }, { 3, { 3, 1, 5 } }, { 3, { 1, 1, 1 } } },
	{ { 4, { 1, 3, 1, 5 } }, { 4, { 2, 1, 4, 1 } }, { 2, { 4, 5 } } },
	{ { 2, { 1, 1 } }, { 2, { 1, 1 } }, { 2, { 7, 33 } } },
};
const size_t	shape_cat_bcast3_n =
    sizeof(shape_cat_bcast3) / sizeof(shape_cat_bcast3[0]);

const struct shape shape_cat_full_red[] = {
	{ 1, { 7 } }, { 2, { 33, 65 } }, { 1, { 4097 } }, { 3, { 3, 5, 7 } },
	{ 2, { 8, 4096 } }, { 2, { 4096, 3 } }, { 4, { 2, 3, 4, 5 } },
	{ 0, { 0 } }, { 1, { 1 } },
};
const size_t	shape_cat_full_red_n =
    sizeof(shape_cat_full_red) / sizeof(shape_cat_full_red[0]);

/* schema-driven generator (generic.c) */

/* odd sizes, 0-d, empty, rank 1 to 4 */
const struct shape shape_gen_same[] = {
	{ 0, { 0 } }, { 1, { 1 } }, { 1, { 6 } }, { 1, { 1031 } },
	{ 1, { 0 } }, { 2, { 4, 9 } }, { 3, { 3, 17, 5 } },
	{ 4, { 2, 3, 4, 5 } },
};
const size_t	shape_gen_same_n =
    sizeof(shape_gen_same) / sizeof(shape_gen_same[0]);

const struct shape shape_gen_bcast2[][2] = {
	{ { 2, { 1, 6 } }, { 2, { 5, 6 } } },
	{ { 2, { 5, 6 } }, { 2, { 1, 6 } } },
	{ { 2, { 5, 1 } }, { 2, { 1, 6 } } },
	{ { 3, { 3, 5, 6 } }, { 1, { 6 } } },
	{ { 3, { 3, 1, 6 } }, { 3, { 1, 5, 1 } } },
	{ { 3, { 4, 1, 3 } }, { 4, { 2, 1, 5, 1 } } },
	{ { 4, { 2, 3, 4, 5 } }, { 1, { 1 } } },
	{ { 4, { 2, 3, 4, 5 } }, { 4, { 2, 1, 4, 1 } } },
	{ { 2, { 7, 1 } }, { 2, { 7, 0 } } },
};
const size_t	shape_gen_bcast2_n =
    sizeof(shape_gen_bcast2) / sizeof(shape_gen_bcast2[0]);

const struct shape shape_gen_bcast3[][3] = {
	{ { 2, { 5, 6 } }, { 2, { 1, 6 } }, { 2, { 5, 1 } } },
	{ { 2, { 1, 6 } }, { 2, { 5, 6 } }, { 2, { 5, 6 } } },
	{ { 2, { 5, 6 } }, { 2, { 5, 6 } }, { 1, { 6 } } },
	{ { 2, { 5, 1 } }, { 1, { 6 } }, { 3, { 2, 1, 1 } } },
	{ { 4, { 2, 3, 4, 5 } }, { 3, { 3, 1, 5 } }, { 4, { 2, 1, 4, 1 } } },
	{ { 3, { 3, 1, 6 } }, { 3, { 1, 5, 1 } }, { 1, { 1 } } },
};
const size_t	shape_gen_bcast3_n =
    sizeof(shape_gen_bcast3) / sizeof(shape_gen_bcast3[0]);

/* full reductions: dim omitted (or None where it has no default) */
const struct shape shape_gen_full_red[] = {
	{ 1, { 7 } }, { 2, { 33, 65 } }, { 3, { 3, 5, 7 } }, { 1, { 4097 } },
	{ 4, { 2, 3, 4, 5 } }, { 0, { 0 } }, { 1, { 0 } },
};
const size_t	shape_gen_full_red_n =
    sizeof(shape_gen_full_red) / sizeof(shape_gen_full_red[0]);

/* The broadcast shape of n shapes into d; its rank, -1 if incompatible. */
int
shape_broadcast(const struct shape *const *s, int n, int *d)
{
	int	nd = 0, i, k, x, y;

	for (i = 0; i < n; i++)
		if (s[i]->nd > nd)
			nd = s[i]->nd;
	for (k = 0; k < nd; k++) {
		d[k] = 1;
		for (i = 0; i < n; i++) {
			y = k - (nd - s[i]->nd);
			if (y < 0)
				continue;
			x = s[i]->d[y];
			if (x == d[k] || x == 1)
				continue;
			if (d[k] != 1)
				return -1;
			d[k] = x;
		}
	}
	return nd;
}

/* The size of dim in sh; a 0-d tensor indexes like a 1-element one. */
int
shape_dim_size(const struct shape *sh, int dim)
{
	if (sh->nd == 0)
		return 1;
	if (dim < 0)
		dim += sh->nd;
	return sh->d[dim];
}
