/*
 * osk_math.h: fp64 pointwise math (the oracles' element functions).
 * Part of osk_core.h, which includes it (OSK_HD and the headers are there).
 */
#ifndef OSK_CORE_H
#error "include osk_core.h, not osk_math.h"
#endif

/* ---- fp64 pointwise math ------------------------------------------------------ */

OSK_HD int
osk_arity(int op)
{
	if (op == OSK_AXPBY)
		return 2;
	if (op >= OSK_WHERE)
		return 3;
	if (op >= OSK_ADD)
		return 2;
	return 1;
}

OSK_HD double
osk_clamp(double x, double lo, double hi, int flags)
{
	if (osk_isnan(x))
		return x;
	if ((flags & 1) && (osk_isnan(lo) || x < lo))
		x = lo;
	if ((flags & 2) && (osk_isnan(hi) || x > hi))
		x = hi;
	return x;
}

OSK_HD double
osk_unary(int op, double x, const double *p)
{
	switch (op) {
	case OSK_COPY: return x;
	case OSK_ABS: return osk_fabs(x);
	case OSK_NEG: return -x;
	case OSK_EXP: return exp(x);
	case OSK_EXP2: return exp2(x);
	case OSK_EXPM1: return expm1(x);
	case OSK_LOG: return log(x);
	case OSK_LOG2: return log2(x);
	case OSK_LOG10: return log10(x);
	case OSK_LOG1P: return log1p(x);
	case OSK_SQRT: return sqrt(x);
	case OSK_RSQRT: return 1.0 / sqrt(x);
	case OSK_SIN: return sin(x);
	case OSK_COS: return cos(x);
	case OSK_TAN: return tan(x);
	case OSK_TANH: return tanh(x);
	case OSK_SINH: return sinh(x);
	case OSK_COSH: return cosh(x);
	case OSK_ASIN: return asin(x);
	case OSK_ACOS: return acos(x);
	case OSK_ATAN: return atan(x);
	case OSK_ASINH: return asinh(x);
	case OSK_ACOSH: return acosh(x);
	case OSK_ATANH: return atanh(x);
	case OSK_ERF: return erf(x);
	case OSK_ERFC: return erfc(x);
	case OSK_SIGMOID: return 1.0 / (1.0 + exp(-x));
	case OSK_GELU: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
	case OSK_GELU_TANH:
		return 0.5 * x * (1.0 + tanh(0.79788456080286535588 *
		    (x + 0.044715 * x * x * x)));
	case OSK_SILU: return x / (1.0 + exp(-x));
	case OSK_MISH: return x * tanh(log1p(exp(x)));
	case OSK_RELU: return osk_isnan(x) || x > 0 ? x : 0.0;
	case OSK_RELU6: return osk_clamp(x, 0.0, 6.0, 3);
	case OSK_RECIPROCAL: return 1.0 / x;
	case OSK_SQUARE: return x * x;
	case OSK_SIGN: return (double)((0 < x) - (x < 0));
	case OSK_FLOOR: return floor(x);
	case OSK_CEIL: return ceil(x);
	case OSK_ROUND: return rint(x);
	case OSK_TRUNC: return trunc(x);
	case OSK_FRAC: return x - trunc(x);
	case OSK_ELU:	/* alpha, scale, input_scale */
		return x > 0 ? x * p[1] : expm1(x * p[2]) * p[0] * p[1];
	case OSK_LEAKY_RELU: return x > 0 ? x : x * p[0];
	case OSK_HARDTANH: return osk_clamp(x, p[0], p[1], 3);
	case OSK_HARDSIGMOID: return osk_clamp(x + 3.0, 0.0, 6.0, 3) / 6.0;
	case OSK_HARDSWISH: return x * osk_clamp(x + 3.0, 0.0, 6.0, 3) / 6.0;
	case OSK_SOFTPLUS:	/* beta, threshold */
		return x * p[0] > p[1] ? x : log1p(exp(x * p[0])) / p[0];
	case OSK_CELU: return x > 0 ? x : p[0] * expm1(x / p[0]);
	case OSK_SELU:
		return 1.0507009873554804934 * (x > 0 ? x :
		    1.6732632423543772848 * expm1(x));
	case OSK_LGAMMA: return lgamma(x);
	case OSK_CLAMP: return osk_clamp(x, p[0], p[1], (int)p[2]);
	case OSK_LOGICAL_NOT: return x == 0 ? 1.0 : 0.0;
	case OSK_ISNAN: return osk_isnan(x) ? 1.0 : 0.0;
	case OSK_ISINF: return osk_isinf(x) ? 1.0 : 0.0;
	case OSK_ISFINITE: return osk_isfinite(x) ? 1.0 : 0.0;
	case OSK_LOGSIGMOID:
		return (x < 0 ? x : 0.0) - log1p(exp(-osk_fabs(x)));
	default: return osk_nan();
	}
}

/* Floor division as torch's div_floor_floating. */
OSK_HD double
osk_div_floor(double a, double b)
{
	double mod, div, fl;

	if (b == 0)
		return a / b;
	mod = fmod(a, b);
	div = (a - mod) / b;
	if (mod != 0 && (b < 0) != (mod < 0))
		div -= 1.0;
	if (div == 0)
		return copysign(0.0, a / b);
	fl = floor(div);
	if (div - fl > 0.5)
		fl += 1.0;
	return fl;
}

OSK_HD double
osk_binary(int op, double a, double b, const double *p)
{
	double m;

	switch (op) {
	case OSK_ADD: return a + p[0] * b;
	case OSK_SUB: return a - p[0] * b;
	case OSK_RSUB: return b - p[0] * a;
	case OSK_MUL: return a * b;
	case OSK_DIV: return a / b;
	case OSK_DIV_TRUNC: return trunc(a / b);
	case OSK_DIV_FLOOR: case OSK_FLOOR_DIVIDE: return osk_div_floor(a, b);
	case OSK_POW: return pow(a, b);
	case OSK_MAXIMUM:
		return osk_isnan(a) || osk_isnan(b) ? osk_nan() : a > b ? a : b;
	case OSK_MINIMUM:
		return osk_isnan(a) || osk_isnan(b) ? osk_nan() : a < b ? a : b;
	case OSK_FMAX: return fmax(a, b);
	case OSK_FMIN: return fmin(a, b);
	case OSK_ATAN2: return atan2(a, b);
	case OSK_HYPOT: return hypot(a, b);
	case OSK_FMOD: return fmod(a, b);
	case OSK_REMAINDER:
		m = fmod(a, b);
		if (m != 0 && (b < 0) != (m < 0))
			m += b;
		return m;
	case OSK_COPYSIGN: return copysign(a, b);
	case OSK_XLOGY:
		if (osk_isnan(b))
			return b;
		return a == 0 ? 0.0 : a * log(b);
	case OSK_LOGADDEXP:
		if (osk_isinf(a) && a == b)
			return a;
		m = a > b ? a : b;
		return m + log1p(exp(-osk_fabs(a - b)));
	case OSK_LOGADDEXP2:
		if (osk_isinf(a) && a == b)
			return a;
		m = a > b ? a : b;
		return m + log1p(exp2(-osk_fabs(a - b))) /
		    0.69314718055994530942;
	case OSK_EQ: return a == b;
	case OSK_NE: return a != b;
	case OSK_LT: return a < b;
	case OSK_LE: return a <= b;
	case OSK_GT: return a > b;
	case OSK_GE: return a >= b;
	case OSK_LOGICAL_AND: return (a != 0) && (b != 0);
	case OSK_LOGICAL_OR: return (a != 0) || (b != 0);
	case OSK_LOGICAL_XOR: return (a != 0) != (b != 0);
	case OSK_AXPBY:	/* beta * a + alpha * b; beta 0 ignores a */
		return p[0] == 0 ? p[1] * b : p[0] * a + p[1] * b;
	default: return osk_nan();
	}
}

OSK_HD double
osk_ternary(int op, double a, double b, double c, const double *p)
{
	switch (op) {
	case OSK_WHERE: return a != 0 ? b : c;
	case OSK_ADDCMUL: return a + p[0] * b * c;
	case OSK_ADDCDIV: return a + p[0] * (b / c);
	case OSK_LERP:
		return osk_fabs(c) < 0.5 ? a + c * (b - a) :
		    b - (b - a) * (1.0 - c);
	case OSK_CLAMP_T: return osk_clamp(a, b, c, (int)p[2]);
	case OSK_MULADD: return a * b + c;
	default: return osk_nan();
	}
}

