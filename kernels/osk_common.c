/*
 * Functions of osk.h that do not touch tensors, the same in both builds.
 */
#include <stdlib.h>
#include <string.h>

#include "osk.h"

struct osk_name {
	const char	*name;
	int		 code;
};

static const struct osk_name osk_names[] = {
	{ "copy", OSK_COPY }, { "abs", OSK_ABS }, { "neg", OSK_NEG },
	{ "exp", OSK_EXP }, { "exp2", OSK_EXP2 }, { "expm1", OSK_EXPM1 },
	{ "log", OSK_LOG }, { "log2", OSK_LOG2 }, { "log10", OSK_LOG10 },
	{ "log1p", OSK_LOG1P }, { "sqrt", OSK_SQRT }, { "rsqrt", OSK_RSQRT },
	{ "sin", OSK_SIN }, { "cos", OSK_COS }, { "tan", OSK_TAN },
	{ "tanh", OSK_TANH }, { "sinh", OSK_SINH }, { "cosh", OSK_COSH },
	{ "asin", OSK_ASIN }, { "acos", OSK_ACOS }, { "atan", OSK_ATAN },
	{ "asinh", OSK_ASINH }, { "acosh", OSK_ACOSH }, { "atanh", OSK_ATANH },
	{ "erf", OSK_ERF }, { "erfc", OSK_ERFC }, { "sigmoid", OSK_SIGMOID },
	{ "gelu", OSK_GELU }, { "gelu_tanh", OSK_GELU_TANH },
	{ "silu", OSK_SILU }, { "mish", OSK_MISH }, { "relu", OSK_RELU },
	{ "relu6", OSK_RELU6 }, { "reciprocal", OSK_RECIPROCAL },
	{ "square", OSK_SQUARE }, { "sign", OSK_SIGN }, { "floor", OSK_FLOOR },
	{ "ceil", OSK_CEIL }, { "round", OSK_ROUND }, { "trunc", OSK_TRUNC },
	{ "frac", OSK_FRAC }, { "elu", OSK_ELU },
	{ "leaky_relu", OSK_LEAKY_RELU }, { "hardtanh", OSK_HARDTANH },
	{ "hardsigmoid", OSK_HARDSIGMOID }, { "hardswish", OSK_HARDSWISH },
	{ "softplus", OSK_SOFTPLUS }, { "celu", OSK_CELU }, { "selu", OSK_SELU },
	{ "lgamma", OSK_LGAMMA }, { "clamp", OSK_CLAMP },
	{ "logical_not", OSK_LOGICAL_NOT }, { "isnan", OSK_ISNAN },
	{ "isinf", OSK_ISINF }, { "isfinite", OSK_ISFINITE },
	{ "log_sigmoid", OSK_LOGSIGMOID },
	{ "add", OSK_ADD }, { "sub", OSK_SUB }, { "rsub", OSK_RSUB },
	{ "mul", OSK_MUL }, { "div", OSK_DIV }, { "div_trunc", OSK_DIV_TRUNC },
	{ "div_floor", OSK_DIV_FLOOR }, { "floor_divide", OSK_FLOOR_DIVIDE },
	{ "pow", OSK_POW }, { "maximum", OSK_MAXIMUM },
	{ "minimum", OSK_MINIMUM }, { "fmax", OSK_FMAX }, { "fmin", OSK_FMIN },
	{ "atan2", OSK_ATAN2 }, { "hypot", OSK_HYPOT },
	{ "remainder", OSK_REMAINDER }, { "fmod", OSK_FMOD },
	{ "copysign", OSK_COPYSIGN }, { "xlogy", OSK_XLOGY },
	{ "logaddexp", OSK_LOGADDEXP }, { "logaddexp2", OSK_LOGADDEXP2 },
	{ "eq", OSK_EQ }, { "ne", OSK_NE }, { "lt", OSK_LT }, { "le", OSK_LE },
	{ "gt", OSK_GT }, { "ge", OSK_GE }, { "logical_and", OSK_LOGICAL_AND },
	{ "logical_or", OSK_LOGICAL_OR }, { "logical_xor", OSK_LOGICAL_XOR },
	{ "axpby", OSK_AXPBY },
	{ "where", OSK_WHERE }, { "addcmul", OSK_ADDCMUL },
	{ "addcdiv", OSK_ADDCDIV }, { "lerp", OSK_LERP },
	{ "clamp_t", OSK_CLAMP_T }, { "muladd", OSK_MULADD },
	{ "sum", OSK_SUM }, { "mean", OSK_MEAN }, { "prod", OSK_PROD },
	{ "amax", OSK_AMAX }, { "amin", OSK_AMIN }, { "var", OSK_VAR },
	{ "std", OSK_STD }, { "norm", OSK_NORM }, { "argmax", OSK_ARGMAX },
	{ "argmin", OSK_ARGMIN }, { "all", OSK_ALL }, { "any", OSK_ANY },
	{ "logsumexp", OSK_LOGSUMEXP }, { "count_nonzero", OSK_COUNT_NONZERO },
	{ "softmax", OSK_SOFTMAX }, { "log_softmax", OSK_LOG_SOFTMAX },
	{ "cumsum", OSK_CUMSUM }, { "cumprod", OSK_CUMPROD },
	{ "cummax", OSK_CUMMAX }, { "cummin", OSK_CUMMIN },
};

int
osk_version(void)
{
	return OSK_VERSION;
}

const char *
osk_strerror(int e)
{
	switch (e) {
	case OSK_OK: return "ok";
	case OSK_EINVAL: return "invalid argument";
	case OSK_EDTYPE: return "unsupported dtype";
	case OSK_EOP: return "unknown operation";
	case OSK_ECUDA: return "CUDA error";
	case OSK_ECUBLAS: return "cuBLAS error";
	case OSK_ENOMEM: return "out of memory";
	default: return "unknown error";
	}
}

/* The code of an operation name, or OSK_EOP. */
int
osk_op_code(const char *name)
{
	size_t i;

	if (name == NULL)
		return OSK_EOP;
	for (i = 0; i < sizeof(osk_names) / sizeof(osk_names[0]); i++)
		if (strcmp(osk_names[i].name, name) == 0)
			return osk_names[i].code;
	return OSK_EOP;
}

/* Device scratch a comparison needs: block partials and the result. */
size_t
osk_scratch_bytes(void)
{
	return 512 * (OSK_MAXBLOCKS + 2);
}

/* ---- the sort oracle (host memory; both libraries export it) ------------- */

/* torch's order: NaN above every number; -1, 0, 1 */
static int
osk_sort_cmp(double a, double b)
{
	int	an = a != a, bn = b != b;

	if (an || bn)
		return an - bn;
	return (a > b) - (a < b);
}

/* Stable merge sort of idx[0..n) by x[idx[i]], tmp holding n entries. */
static void
osk_msort(const double *x, int64_t *idx, int64_t *tmp, int64_t n, int desc)
{
	int64_t	 h = n / 2, i = 0, j = h, k = 0;
	int	 c;

	if (n < 2)
		return;
	osk_msort(x, idx, tmp, h, desc);
	osk_msort(x, idx + h, tmp, n - h, desc);
	while (i < h && j < n) {
		c = osk_sort_cmp(x[idx[j]], x[idx[i]]);
		/* take the right element only when it strictly goes first */
		if (desc ? c > 0 : c < 0)
			tmp[k++] = idx[j++];
		else
			tmp[k++] = idx[i++];
	}
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, (size_t)n * sizeof(*idx));
}

/*
 * Each of `rows` contiguous rows of n doubles sorted stably, ascending or
 * descending, NaN as the largest value (torch's order); vals and idx get the
 * sorted values and their positions in the row.  Host memory in both
 * libraries: sorting is exact, so the oracle need not run on the device.
 */
int
osk_sort_rows(const double *x, int64_t rows, int64_t n, int descending,
    double *vals, int64_t *idx)
{
	int64_t	*tmp, r, i;

	if (rows < 0 || n < 0 || (rows * n > 0 && (x == NULL || vals == NULL ||
	    idx == NULL)))
		return OSK_EINVAL;
	if (rows == 0 || n == 0)
		return OSK_OK;
	if ((tmp = malloc((size_t)n * sizeof(*tmp))) == NULL)
		return OSK_ENOMEM;
	for (r = 0; r < rows; r++) {
		const double	*row = x + r * n;
		int64_t		*ix = idx + r * n;

		for (i = 0; i < n; i++)
			ix[i] = i;
		osk_msort(row, ix, tmp, n, descending);
		for (i = 0; i < n; i++)
			vals[r * n + i] = row[ix[i]];
	}
	free(tmp);
	return OSK_OK;
}
