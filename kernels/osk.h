/*
 * libopscreen_kernels: input generation, fp64 oracles and the fused
 * comparison, for the device (libopscreen_kernels.so, CUDA) and the host
 * (libopscreen_kernels_host.so, plain C).  Both libraries export the same
 * functions; the device one takes device addresses, the host one host
 * addresses.  Every function returns 0 or a negative OSK_E* code.
 *
 * A tensor is described by struct osk_tensor: address, dtype, shape and
 * strides in elements (any strides, 0 included, so that broadcast and
 * expanded views need no copy).  Element i of a tensor is its i-th element
 * in row-major order of the shape (the logical order), whatever the strides.
 */
#ifndef OSK_H
#define OSK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSK_VERSION	2
#define OSK_MAXDIM	8
#define OSK_MAXBLOCKS	1024	/* block partials of one reduction */

enum osk_dtype {
	OSK_F64, OSK_F32, OSK_F16, OSK_BF16, OSK_I64, OSK_I32, OSK_I16,
	OSK_I8, OSK_U8, OSK_BOOL, OSK_F8E4M3, OSK_F8E5M2, OSK_F8E8M0,
	OSK_NDTYPE
};

enum osk_error {
	OSK_OK = 0, OSK_EINVAL = -1, OSK_EDTYPE = -2, OSK_EOP = -3,
	OSK_ECUDA = -4, OSK_ECUBLAS = -5, OSK_ENOMEM = -6
};

struct osk_tensor {
	uint64_t	data;		/* address of element 0 */
	int32_t		dtype;		/* enum osk_dtype */
	int32_t		ndim;
	int64_t		shape[OSK_MAXDIM];
	int64_t		stride[OSK_MAXDIM];	/* in elements */
};

/* Value domains of generated inputs (docs/protocol.md, Domains). */
enum osk_domain {
	OSK_DOM_NORMAL, OSK_DOM_UNIFORM, OSK_DOM_POSITIVE, OSK_DOM_NONZERO,
	OSK_DOM_INT, OSK_DOM_INDEX, OSK_DOM_BOOL, OSK_DOM_ARANGE, OSK_DOM_BITS,
	OSK_NDOMAIN
};

struct osk_genspec {
	int32_t		domain;		/* enum osk_domain */
	int32_t		pad;
	double		low, high;	/* bounds of uniform/positive/int/index */
	double		edge_rate;	/* probability of an edge value, 0..1 */
};

/*
 * Pointwise operations.  Unary ops take in[0]; binary in[0], in[1];
 * ternary in[0..2].  param[0..3] carry scalars (alpha, min/max, ...).
 */
enum osk_op {
	/* unary */
	OSK_COPY, OSK_ABS, OSK_NEG, OSK_EXP, OSK_EXP2, OSK_EXPM1, OSK_LOG,
	OSK_LOG2, OSK_LOG10, OSK_LOG1P, OSK_SQRT, OSK_RSQRT, OSK_SIN, OSK_COS,
	OSK_TAN, OSK_TANH, OSK_SINH, OSK_COSH, OSK_ASIN, OSK_ACOS, OSK_ATAN,
	OSK_ASINH, OSK_ACOSH, OSK_ATANH, OSK_ERF, OSK_ERFC, OSK_SIGMOID,
	OSK_GELU, OSK_GELU_TANH, OSK_SILU, OSK_MISH, OSK_RELU, OSK_RECIPROCAL,
	OSK_SQUARE, OSK_SIGN, OSK_FLOOR, OSK_CEIL, OSK_ROUND, OSK_TRUNC,
	OSK_FRAC, OSK_ELU, OSK_LEAKY_RELU, OSK_HARDTANH, OSK_HARDSIGMOID,
	OSK_HARDSWISH, OSK_SOFTPLUS, OSK_CELU, OSK_SELU, OSK_LGAMMA,
	OSK_CLAMP, OSK_LOGICAL_NOT, OSK_ISNAN, OSK_ISINF, OSK_ISFINITE,
	OSK_RELU6, OSK_LOGSIGMOID,
	/* binary */
	OSK_ADD = 100, OSK_SUB, OSK_MUL, OSK_DIV, OSK_DIV_TRUNC, OSK_DIV_FLOOR,
	OSK_POW, OSK_MAXIMUM, OSK_MINIMUM, OSK_FMAX, OSK_FMIN, OSK_ATAN2,
	OSK_HYPOT, OSK_REMAINDER, OSK_FMOD, OSK_COPYSIGN, OSK_XLOGY,
	OSK_LOGADDEXP, OSK_LOGADDEXP2, OSK_EQ, OSK_NE, OSK_LT, OSK_LE, OSK_GT,
	OSK_GE, OSK_RSUB, OSK_FLOOR_DIVIDE, OSK_LOGICAL_AND, OSK_LOGICAL_OR,
	OSK_LOGICAL_XOR,
	/* ternary */
	OSK_WHERE = 200, OSK_ADDCMUL, OSK_ADDCDIV, OSK_LERP, OSK_CLAMP_T,
	OSK_MULADD, OSK_AXPBY,
	/* reductions over the last nred dims */
	OSK_SUM = 300, OSK_MEAN, OSK_PROD, OSK_AMAX, OSK_AMIN, OSK_VAR,
	OSK_STD, OSK_NORM, OSK_ARGMAX, OSK_ARGMIN, OSK_ALL, OSK_ANY,
	OSK_LOGSUMEXP, OSK_COUNT_NONZERO,
	/* along the last dim, same shape out */
	OSK_SOFTMAX = 400, OSK_LOG_SOFTMAX, OSK_CUMSUM, OSK_CUMPROD,
	OSK_CUMMAX, OSK_CUMMIN
};

/* Figures of one compared tensor (c: candidate, n: native). */
struct osk_side {
	double		err_abs;	/* max |x - O| over finite O and x */
	double		err_ulp;	/* max |x - O| / ulp_D(max(|O_i|, 2^-10 max|O|)) */
	double		worst_x;	/* x at worst_index */
	double		worst_o;	/* O at worst_index */
	int64_t		worst_index;	/* first index of err_abs, -1 if none */
	int64_t		nonfinite;	/* NaN/+inf/-inf position mismatches */
	int64_t		mismatch;	/* exact kinds: positions != oracle */
	int64_t		over_tol;	/* float: positions over a tolerance */
	int64_t		first_bad;	/* first such position, -1 if none */
	uint64_t	digest;		/* osk_digest of x (0: not asked) */
};

struct osk_figures {
	double		R;		/* max |round_D(O) - O| */
	double		oracle_max;	/* max |O| over finite O */
	int64_t		numel;
	struct osk_side	c, n;
};

/*
 * Flags of osk_compare_float2.  osk_compare_float is osk_compare_float2 with
 * OSK_CMP_DIGEST.  Without OSK_CMP_GENERIC, C and N of dtype D (float64,
 * float32, float16, bfloat16) against a float64 O take the fast path (the
 * dtype a compile-time constant on the device, 16-byte loads where every
 * tensor is contiguous and aligned); any other combination, and every one
 * with OSK_CMP_GENERIC, the per-element dtype dispatch.  Same figures.
 */
#define OSK_CMP_DIGEST	1	/* the digests of C and N (else both 0) */
#define OSK_CMP_GENERIC	2	/* the per-element dispatch only (tests) */

/* Tolerance that counts a float position as bad (0 disables a measure). */
struct osk_tol {
	double		abs;
	double		ulp;
};

int	osk_version(void);
int	osk_is_device(void);
const char *osk_strerror(int);
int	osk_op_code(const char *);
size_t	osk_scratch_bytes(void);
/* sort oracle: host memory in both libraries (see osk_common.c) */
int	osk_sort_rows(const double *, int64_t, int64_t, int, double *,
	    int64_t *);

int	osk_generate(const struct osk_tensor *, const struct osk_genspec *,
	    uint64_t, uint64_t, void *);
int	osk_exhaustive16(const struct osk_tensor *, void *);
int	osk_digest(const struct osk_tensor *, uint64_t *, void *, void *);

int	osk_pointwise(int, int, const struct osk_tensor *,
	    const struct osk_tensor *, const double *, void *);
int	osk_reduce(int, const struct osk_tensor *, int,
	    const struct osk_tensor *, const double *, void *);
int	osk_rowwise(int, const struct osk_tensor *, const struct osk_tensor *,
	    const struct osk_tensor *, void *);
int	osk_normalize(const struct osk_tensor *, int,
	    const struct osk_tensor *, const struct osk_tensor *,
	    const struct osk_tensor *, double, int, void *);
int	osk_gather(const struct osk_tensor *, int, const struct osk_tensor *,
	    const struct osk_tensor *, void *);
int	osk_dgemm(int64_t, int64_t, int64_t, int64_t, const double *,
	    int64_t, const double *, int64_t, double *, void *);

int	osk_compare_float(const struct osk_tensor *, const struct osk_tensor *,
	    const struct osk_tensor *, int, const struct osk_tol *,
	    struct osk_figures *, void *, void *);
int	osk_compare_float2(const struct osk_tensor *,
	    const struct osk_tensor *, const struct osk_tensor *, int,
	    const struct osk_tol *, int, struct osk_figures *, void *, void *);
int	osk_compare_exact(const struct osk_tensor *, const struct osk_tensor *,
	    const struct osk_tensor *, struct osk_figures *, void *, void *);
int	osk_compare_index(const struct osk_tensor *, const struct osk_tensor *,
	    const struct osk_tensor *, int, const struct osk_tensor *,
	    struct osk_figures *, void *, void *);

#ifdef __cplusplus
}
#endif

#endif /* OSK_H */
