/*
 * Which generator builds a key's cases: the hand-written catalog (catalog.c,
 * sweep.c) for the keys it knows, the schema-driven generator (generic.c)
 * for the others and for the classes a catalog family does not sweep; the
 * views class (views.c) and the modes' classes (modes.c) from the cases of
 * the others.
 */
#include <string.h>

#include "probes.h"
#include "generic.h"

/* Whether key gets cases: from the catalog, else from its schema. */
int
probe_supported(const char *key, const char *schema, const char **why)
{
	if (catalog_has(key)) {
		if (why != NULL)
			*why = NULL;
		return 1;
	}
	return generic_supports(key, schema ? schema : "", why);
}

/* The cases of every class but views. */
static int
probe_expand_direct(const char *key, const char *schema, unsigned classes,
    const json_t *dtypes, json_t *out)
{
	unsigned	rest;
	size_t		before;
	int		n, g;

	if (!json_is_array(out))
		return -1;
	if (!catalog_has(key))
		return generic_expand(key, schema ? schema : "", classes, dtypes,
		    out);
	before = json_array_size(out);
	if ((n = sweep_expand(key, classes, dtypes, out)) < 0)
		return -1;
	/*
	 * The classes the hand-written families do not sweep come from the
	 * schema-driven generator, when it knows the key.
	 */
	rest = classes & PROBE_ALL & ~sweep_classes(key);
	if (rest && schema != NULL && generic_supports(key, schema, NULL)) {
		if ((g = generic_expand(key, schema, rest, dtypes, out)) < 0) {
			/* leave out as it was: a half-expanded key is worse than none */
			while (json_array_size(out) > before)
				json_array_remove(out, json_array_size(out) - 1);
			return -1;
		}
		n += g;
	}
	return n;
}

/*
 * The classes whose cases the views class is made from: the written
 * tensors of same_shape (pointwise, the table's points), reduction
 * (reductions and scans with out=) and random (in-place fills).
 */
#define PROBE_VIEWS_SOURCES	(PROBE_SAME_SHAPE | PROBE_REDUCTION | \
				 PROBE_RANDOM)

int
probe_expand(const char *key, const char *schema, unsigned classes,
    const json_t *dtypes, json_t *out)
{
	json_t	*src;
	size_t	 before;
	int	 n, v;

	if (!json_is_array(out))
		return -1;
	before = json_array_size(out);
	if ((n = probe_expand_direct(key, schema, classes & ~(PROBE_VIEWS |
	    PROBE_MODES), dtypes, out)) < 0 || !(classes & (PROBE_VIEWS |
	    PROBE_MODES)))
		return n;
	if ((src = json_array()) == NULL)
		goto err;
	/* views from their own sources, the modes from theirs */
	if ((v = probe_expand_direct(key, schema, PROBE_VIEWS_SOURCES |
	    PROBE_MODES_SOURCES, dtypes, src)) >= 0)
		v = 0;
	if (v >= 0 && (classes & PROBE_VIEWS)) {
		json_t		*vsrc = json_array();
		const json_t	*c;
		size_t		 i;

		json_array_foreach(src, i, c)
			if (probe_class_parse(json_string_value(json_object_get(
			    c, "class"))) & PROBE_VIEWS_SOURCES)
				json_array_append(vsrc, (json_t *)c);
		v = vsrc == NULL ? -1 : views_derive(vsrc, out);
		json_decref(vsrc);
	}
	if (v >= 0 && (classes & PROBE_MODES)) {
		int	 m = modes_derive(src, classes, out);

		v = m < 0 ? -1 : v + m;
	}
	json_decref(src);
	if (v < 0)
		goto err;
	return n + v;
 err:
	while (json_array_size(out) > before)
		json_array_remove(out, json_array_size(out) - 1);
	return -1;
}
