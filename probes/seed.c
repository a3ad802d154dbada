/*
 * Case seeds: a case's seed is an FNV-1a hash of (key, class, dtype, index),
 * so two expansions produce byte-identical cases and a case can be
 * regenerated from its id alone; a regenerated case (a degenerate oracle)
 * hashes its old seed and the attempt instead of the index.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "probes.h"

#define FNV_OFFSET	2166136261u
#define FNV_PRIME	16777619u

static uint32_t
seed_fnv(uint32_t h, const void *p, size_t len)
{
	const unsigned char	*b = p;
	size_t			 i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= FNV_PRIME;
	}
	return h;
}

static uint32_t
seed_fnv_int(uint32_t h, uint32_t v)
{
	unsigned char	b[4];

	/* fixed byte order, so seeds do not depend on the host */
	b[0] = v & 0xff;
	b[1] = (v >> 8) & 0xff;
	b[2] = (v >> 16) & 0xff;
	b[3] = (v >> 24) & 0xff;
	return seed_fnv(h, b, sizeof(b));
}

static uint32_t
seed_fnv_names(const char *key, const char *cls, const char *dtype)
{
	uint32_t	h = FNV_OFFSET;

	/* the NULs separate the fields, so ("ab","c") != ("a","bc") */
	h = seed_fnv(h, key, strlen(key) + 1);
	h = seed_fnv(h, cls, strlen(cls) + 1);
	h = seed_fnv(h, dtype, strlen(dtype) + 1);
	return h;
}

/* FNV-1a of (key, class, dtype, index), below 2^31 so seed*1000 fits. */
unsigned
seed_case(const char *key, const char *cls, const char *dtype, int index)
{
	uint32_t	h;

	h = seed_fnv_names(key, cls, dtype);
	h = seed_fnv_int(h, (uint32_t)index);
	return h & 0x7fffffffu;
}

/*
 * Edge-value tensors get half as many special values on each regeneration:
 * a NaN among the ~100 inputs of every output of a convolution or a norm
 * makes the whole output NaN whatever the seed, and only sparser special
 * values leave finite results to judge.
 */
static int
seed_thin_edges(json_t *args, int attempt)
{
	json_t	*a;
	size_t	 i;

	json_array_foreach(args, i, a) {
		if (!json_is_object(a) || !json_is_string(json_object_get(a,
		    "domain")) || strcmp(json_string_value(json_object_get(a,
		    "domain")), "edge") != 0)
			continue;
		if (json_object_set_new(a, "edge_frac",
		    json_real(ldexp(0.5, -(attempt < 30 ? attempt : 30)))) == -1)
			return -1;
	}
	return 0;
}

json_t *
seed_reseed(const json_t *case_spec, int attempt)
{
	json_t		*c;
	const char	*key, *cls, *dtype;
	uint32_t	 h, old;

	if (!json_is_object(case_spec))
		return NULL;
	key = json_string_value(json_object_get(case_spec, "key"));
	cls = json_string_value(json_object_get(case_spec, "class"));
	dtype = json_string_value(json_object_get(case_spec, "dtype"));
	if (key == NULL || cls == NULL || dtype == NULL)
		return NULL;
	old = (uint32_t)json_integer_value(json_object_get(case_spec, "seed"));
	h = seed_fnv_names(key, cls, dtype);
	h = seed_fnv_int(h, old);
	h = seed_fnv_int(h, (uint32_t)attempt);
	h &= 0x7fffffffu;
	if (h == old)
		h = (h + 1) & 0x7fffffffu;
	if ((c = json_deep_copy(case_spec)) == NULL)
		return NULL;
	if (json_object_set_new(c, "seed", json_integer(h)) == -1 ||
	    seed_thin_edges(json_object_get(c, "args"), attempt) == -1) {
		json_decref(c);
		return NULL;
	}
	return c;
}
