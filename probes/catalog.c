/*
 * The catalog of aten overloads opscreen knows how to probe: for each key its
 * schema, the argument family the sweep uses, the dtypes aten accepts and the
 * value domains that keep the op well defined (no sqrt of negatives, no
 * division by zero, indices in range).
 */
#include <string.h>

#include "probes.h"

#define D3(a, b, c)	{ DOM_##a, DOM_##b, DOM_##c }
#define DN		D3(NORMAL, NORMAL, NORMAL)

/*
 * Comparison ops draw small integers (also for float dtypes) so that
 * equalities actually occur and every value is exact in bf16, which keeps
 * the fp64 oracle and the dtype's own comparison in agreement.
 */
static const struct catalog_entry catalog_table[] = {
	{ "_softmax", "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
	  FAM_SOFTMAX, DT_FLOATS, DN, "float", 0 },
	{ "abs", "abs(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "add.Tensor", "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, DN, "float", CAT_ALPHA },
	{ "addmm", "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
	  FAM_ADDMM, DT_FLOATS, DN, "float", 0 },
	{ "amax", "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
	  FAM_REDUCE_DIM, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "bincount", "bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor",
	  FAM_BINCOUNT, DT_I64, DN, "float", 0 },
	{ "bitwise_and.Scalar", "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
	  FAM_BINARY_SCALAR, DT_I8 | DT_U8 | DT_INTS | DT_BOOL, DN, "exact",
	  CAT_BITWISE },
	{ "bitwise_and.Tensor", "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_I8 | DT_U8 | DT_INTS | DT_BOOL, DN, "exact", CAT_BITWISE },
	{ "bmm", "bmm(Tensor self, Tensor mat2) -> Tensor",
	  FAM_BMM, DT_FLOATS, DN, "float", 0 },
	{ "cat", "cat(Tensor[] tensors, int dim=0) -> Tensor",
	  FAM_CAT, DT_FLOATS | DT_INTS | DT_BOOL, DN, "exact", 0 },
	{ "clamp", "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
	  FAM_CLAMP, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "cos", "cos(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(UNIFORM, NORMAL, NORMAL), "float", 0 },
	{ "cumsum", "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
	  FAM_SCAN, DT_FLOATS | DT_INTS, DN, "float", CAT_DTYPE_KW },
	{ "div.Scalar", "div.Scalar(Tensor self, Scalar other) -> Tensor",
	  FAM_BINARY_SCALAR, DT_FLOATS | DT_INTS, DN, "float", CAT_DIVISOR },
	{ "div.Tensor", "div.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, D3(NORMAL, NONZERO, NORMAL), "float",
	  CAT_DIVISOR },
	{ "eq.Scalar", "eq.Scalar(Tensor self, Scalar other) -> Tensor",
	  FAM_BINARY_SCALAR, DT_FLOATS | DT_INTS | DT_BOOL,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "eq.Tensor", "eq.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS | DT_BOOL,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "exp", "exp(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(UNIFORM, NORMAL, NORMAL), "float", 0 },
	/*
	 * The library's own entry points (fused::NAME: the runner calls the
	 * library's function NAME, and the reference of the same schema,
	 * probes/opscreen_runner/references.py, as native and as the fp64
	 * oracle).
	 */
	{ "fused::apply_rotary_pos_emb", "apply_rotary_pos_emb(Tensor q, Tensor k, Tensor cos, Tensor sin, Tensor? position_ids=None, bool rotary_interleaved=False, bool inplace=False) -> (Tensor, Tensor)",
	  FAM_ROTARY, DT_FLOATS, DN, "float", CAT_ENGINE },
	{ "fused::fused_add_rms_norm", "fused_add_rms_norm(Tensor x, Tensor residual, int[] normalized_shape, Tensor weight, float eps=1e-05) -> (Tensor, Tensor)",
	  FAM_ADD_RMS_NORM, DT_FLOATS, DN, "float", CAT_ENGINE },
	{ "fused::moe_sum", "moe_sum(Tensor input, Tensor output) -> Tensor",
	  FAM_MOE_SUM, DT_FLOATS, DN, "float", CAT_ENGINE },
	{ "fused::skip_layer_norm", "skip_layer_norm(Tensor x, Tensor residual, int[] normalized_shape, Tensor weight, Tensor bias, float eps=1e-05) -> Tensor",
	  FAM_ADD_RMS_NORM, DT_FLOATS, DN, "float", CAT_ENGINE | CAT_BIAS },
	{ "fused::gelu_and_mul", "gelu_and_mul(Tensor x, Tensor y, str approximate='none') -> Tensor",
	  FAM_BINARY, DT_FLOATS, DN, "float", CAT_GELU | CAT_ENGINE },
	{ "fused::silu_and_mul", "silu_and_mul(Tensor A, Tensor B) -> Tensor",
	  FAM_BINARY, DT_FLOATS, DN, "float", CAT_ENGINE },
	{ "fused::silu_and_mul_out", "silu_and_mul_out(Tensor A, Tensor B) -> Tensor",
	  FAM_BINARY, DT_FLOATS, DN, "float", CAT_ENGINE },
	{ "fused::topk_softmax", "topk_softmax(Tensor gating_output, int topk, bool renormalize=False) -> (Tensor, Tensor, Tensor)",
	  FAM_TOPK_SOFTMAX, DT_FLOATS, DN, "routing", CAT_ENGINE },
	{ "gather", "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
	  FAM_GATHER, DT_FLOATS | DT_INTS, DN, "exact", 0 },
	{ "ge.Scalar", "ge.Scalar(Tensor self, Scalar other) -> Tensor",
	  FAM_BINARY_SCALAR, DT_FLOATS | DT_INTS,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "ge.Tensor", "ge.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "gelu", "gelu(Tensor self, *, str approximate='none') -> Tensor",
	  FAM_UNARY, DT_FLOATS, DN, "float", CAT_GELU },
	{ "index_select", "index_select(Tensor self, int dim, Tensor index) -> Tensor",
	  FAM_INDEX_SELECT, DT_FLOATS | DT_INTS, DN, "exact", 0 },
	{ "layer_norm", "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
	  FAM_LAYER_NORM, DT_FLOATS, DN, "float", 0 },
	{ "native_layer_norm", "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
	  FAM_NATIVE_LAYER_NORM, DT_FLOATS, DN, "float", 0 },
	{ "lt.Scalar", "lt.Scalar(Tensor self, Scalar other) -> Tensor",
	  FAM_BINARY_SCALAR, DT_FLOATS | DT_INTS,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "lt.Tensor", "lt.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS,
	  D3(SMALLINT, SMALLINT, SMALLINT), "exact", 0 },
	{ "masked_fill.Scalar", "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
	  FAM_MASKED_FILL, DT_FLOATS | DT_INTS | DT_BOOL, DN, "exact", 0 },
	{ "maximum", "maximum(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "mean", "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
	  FAM_REDUCE, DT_FLOATS, DN, "float", CAT_DTYPE_KW },
	{ "mean.dim", "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
	  FAM_REDUCE_DIM, DT_FLOATS, DN, "float", CAT_DTYPE_KW | CAT_DIM_NONE },
	{ "minimum", "minimum(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "mm", "mm(Tensor self, Tensor mat2) -> Tensor",
	  FAM_MM, DT_FLOATS, DN, "float", 0 },
	{ "mul.Tensor", "mul.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "neg", "neg(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS | DT_INTS, DN, "float", 0 },
	{ "nonzero", "nonzero(Tensor self) -> Tensor",
	  FAM_NONZERO, DT_FLOATS | DT_INTS | DT_BOOL, D3(TRI, TRI, TRI), "exact", 0 },
	{ "pow.Tensor_Scalar", "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
	  FAM_BINARY_SCALAR, DT_FLOATS, D3(POSITIVE, NORMAL, NORMAL), "float",
	  CAT_POW },
	{ "pow.Tensor_Tensor", "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
	  FAM_BINARY, DT_FLOATS, D3(POSITIVE, UNIFORM, NORMAL), "float", 0 },
	{ "reciprocal", "reciprocal(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(NONZERO, NORMAL, NORMAL), "float", 0 },
	{ "relu", "relu(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, DN, "float", 0 },
	{ "remainder.Tensor", "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, D3(WIDE, NONZERO, NORMAL), "float",
	  CAT_DIVISOR },
	{ "repeat_interleave.self_int", "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
	  FAM_REPEAT_INTERLEAVE, DT_FLOATS | DT_INTS, DN, "exact", 0 },
	{ "rms_norm", "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
	  FAM_RMS_NORM, DT_FLOATS, DN, "float", 0 },
	{ "rsqrt", "rsqrt(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(POSITIVE, NORMAL, NORMAL), "float", 0 },
	{ "sigmoid", "sigmoid(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, DN, "float", 0 },
	{ "silu", "silu(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, DN, "float", 0 },
	{ "sin", "sin(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(UNIFORM, NORMAL, NORMAL), "float", 0 },
	{ "sort", "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
	  FAM_SORT, DT_FLOATS | DT_INTS, DN, "sort", 0 },
	{ "sort.stable", "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
	  FAM_SORT, DT_FLOATS | DT_INTS, DN, "sort", CAT_STABLE },
	{ "sqrt", "sqrt(Tensor self) -> Tensor",
	  FAM_UNARY, DT_FLOATS, D3(POSITIVE, NORMAL, NORMAL), "float", 0 },
	{ "stack", "stack(Tensor[] tensors, int dim=0) -> Tensor",
	  FAM_STACK, DT_FLOATS | DT_INTS | DT_BOOL, DN, "exact", 0 },
	{ "sub.Tensor", "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
	  FAM_BINARY, DT_FLOATS | DT_INTS, DN, "float", CAT_ALPHA },
	{ "sum", "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
	  FAM_REDUCE, DT_FLOATS | DT_INTS, DN, "float", CAT_DTYPE_KW },
	{ "sum.dim_IntList", "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
	  FAM_REDUCE_DIM, DT_FLOATS | DT_INTS, DN, "float",
	  CAT_DTYPE_KW | CAT_DIM_NONE },
	{ "topk", "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
	  FAM_TOPK, DT_FLOATS | DT_INTS, DN, "topk", 0 },
	{ "where.self", "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
	  FAM_WHERE, DT_FLOATS | DT_INTS | DT_BOOL, DN, "exact", 0 },
};

#define CATALOG_N	(sizeof(catalog_table) / sizeof(catalog_table[0]))

const struct catalog_entry *
catalog_find(const char *key)
{
	size_t	i;

	if (key == NULL)
		return NULL;
	for (i = 0; i < CATALOG_N; i++)
		if (strcmp(catalog_table[i].key, key) == 0)
			return &catalog_table[i];
	return NULL;
}

int
catalog_has(const char *key)
{
	return catalog_find(key) != NULL;
}

size_t
catalog_count(void)
{
	return CATALOG_N;
}

const char *
catalog_key(size_t i)
{
	if (i >= CATALOG_N)
		return NULL;
	return catalog_table[i].key;
}

json_t *
catalog_dtypes(const char *key)
{
	const struct catalog_entry	*ce;
	json_t				*a;
	unsigned			 bit;

	if ((ce = catalog_find(key)) == NULL)
		return NULL;
	if ((a = json_array()) == NULL)
		return NULL;
	for (bit = 1; bit != 0 && bit <= DT_LAST; bit <<= 1) {
		if ((ce->dtypes & bit) == 0)
			continue;
		if (json_array_append_new(a, json_string(dtype_name(bit))) == -1)
			goto err;
	}
	return a;
 err:
	json_decref(a);
	return NULL;
}
