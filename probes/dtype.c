/*
 * The dtypes opscreen knows: their names, the DT_ bits that stand for them
 * in masks (probes.h), and the kinds the case builders ask about.
 */
#include <string.h>

#include "probes.h"









/* in DT_ bit order */
static const char *const dtype_names[] = {
	"float32", "float16", "bfloat16", "float64", "int64", "int32",
	"int16", "int8", "uint8", "bool", "float8_e4m3fn", "float8_e5m2",
	"float8_e8m0fnu", "complex64"
};
#define DTYPE_N	(sizeof(dtype_names) / sizeof(dtype_names[0]))

unsigned
dtype_bit(const char *name)
{
	size_t	i;

	if (name == NULL)
		return 0;
	for (i = 0; i < DTYPE_N; i++)
		if (strcmp(name, dtype_names[i]) == 0)
			return 1u << i;
	return 0;
}

int
dtype_valid(const char *name)
{
	return dtype_bit(name) != 0;
}

/* The name of a single DT_ bit, NULL when bit is not exactly one dtype. */
const char *
dtype_name(unsigned bit)
{
	size_t	i;

	for (i = 0; i < DTYPE_N; i++)
		if (bit == (1u << i))
			return dtype_names[i];
	return NULL;
}

int
dtype_is_float(const char *name)
{
	return (dtype_bit(name) & (DT_FLOATS | DT_F64)) != 0;
}

/* Any floating format: the fp8 storage formats and e8m0 included. */
int
dtype_is_floating(const char *name)
{
	return (dtype_bit(name) & (DT_FLOATS | DT_F64 | DT_F8E4M3 |
	    DT_F8E5M2 | DT_E8M0)) != 0;
}

int
dtype_is_complex(const char *name)
{
	return dtype_bit(name) == DT_C64;
}

/* Whether dtype `name` is in the requested list (NULL: every dtype). */
int
dtype_wanted(const json_t *dtypes, const char *name)
{
	size_t	 i;
	json_t	*v;

	if (dtypes == NULL)
		return 1;
	json_array_foreach(dtypes, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

/*
 * For type-promotion probes: a dtype of the same kind as d but different
 * (a 0-d operand of it must not widen the result).  bool has no other dtype
 * of its kind; it gets int32, and dtype_other_kind() float32, so that a
 * bool self meets both category changes, to the integers and to floats.
 */
const char *
dtype_same_kind(const char *d)
{
	switch (dtype_bit(d)) {
	case DT_F32:
		return "float16";
	case DT_F16:
		return "bfloat16";
	case DT_BF16:
		return "float16";
	case DT_I64:
		return "int32";
	case DT_BOOL:
		return "int32";
	default:
		return "int64";
	}
}

/*
 * A dtype of another kind than d (a 0-d operand of it wins the category
 * change); int_only: for ops that take integers and bool only.
 */
const char *
dtype_other_kind(const char *d, int int_only)
{
	if (dtype_bit(d) == DT_BOOL)
		return int_only ? "int64" : "float32";
	if (int_only)
		return "bool";
	return dtype_is_floating(d) ? "int64" : "float32";
}
