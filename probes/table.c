/*
 * The constraint / value-domain table of the schema-driven generator:
 * data only (gentable.h says how to read an entry).  Keys the table does
 * not name and whose schema looks elementwise get the pointwise engine on
 * floats; everything else is named here.
 */
#include <stddef.h>

#include "probes.h"
#include "gentable.h"

#define F	DT_FLOATS
#define FI	(DT_FLOATS | DT_INTS)
#define FIB	(DT_FLOATS | DT_INTS | DT_BOOL)
#define IB	(DT_I8 | DT_U8 | DT_INTS | DT_BOOL)
/* what data movement is screened with beyond its ordinary dtypes */
#define EX	(DT_F8E4M3 | DT_F8E5M2 | DT_E8M0 | DT_I8 | DT_U8 | DT_C64)
#define EXB	(EX | DT_BOOL)

#define PW(m, dt, cmp, fl, args, ...) \
	{ m, GK_POINTWISE, dt, 0, cmp, fl, args, { __VA_ARGS__ }, NULL, NULL }
#define PWX(m, dt, ex, cmp, fl, args, ...) \
	{ m, GK_POINTWISE, dt, ex, cmp, fl, args, { __VA_ARGS__ }, NULL, NULL }
#define RED(m, dt, cmp, fl, args) \
	{ m, GK_REDUCE, dt, 0, cmp, fl, args, { NULL }, NULL, NULL }
#define DW(m, dt, cmp, fl, args) \
	{ m, GK_DIMWISE, dt, 0, cmp, fl, args, { NULL }, NULL, NULL }
#define RC(m, dt, ex, cmp, fl, args, ...) \
	{ m, GK_RECIPE, dt, ex, cmp, fl, args, { __VA_ARGS__ }, NULL, NULL }
#define RCL(m, dt, cmp, fl, ladder, args, ...) \
	{ m, GK_RECIPE, dt, 0, cmp, fl, args, { __VA_ARGS__ }, ladder, NULL }

#define CMPB	(GF_RET_BOOL | GF_NO_EDGE)
#define POOL	"N=2 C=3 H=10 W=9 K=3 S=2 P=1"

const struct gen_entry gen_table[] = {
	/* unary pointwise: domains and dtypes */
	PW("abs", FI, "float", 0, NULL, NULL),
	PW("absolute", FI, "float", 0, NULL, NULL),
	PW("neg", FI, "float", 0, NULL, NULL),
	PW("square", FI, "float", 0, NULL, NULL),
	PW("acos", F, "float", 0, "self=:a", NULL),
	PW("asin", F, "float", 0, "self=:a", NULL),
	PW("atanh", F, "float", 0, "self=:a", NULL),
	PW("arctanh", F, "float", 0, "self=:a", NULL),
	PW("cosh", F, "float", 0, "self=:u", NULL),
	PW("sinh", F, "float", 0, "self=:u", NULL),
	PW("exp", F, "float", 0, "self=:u", NULL),
	PW("exp2", F, "float", 0, "self=:u", NULL),
	PW("expm1", F, "float", 0, "self=:u", NULL),
	PW("log", F, "float", 0, "self=:p", NULL),
	PW("log10", F, "float", 0, "self=:p", NULL),
	PW("log1p", F, "float", 0, "self=:p", NULL),
	PW("digamma", F, "float", 0, "self=:p", NULL),
	PW("sqrt", F, "float", 0, "self=:p", NULL),
	PW("rsqrt", F, "float", 0, "self=:p", NULL),
	PW("reciprocal", F, "float", 0, "self=:z", NULL),
	PW("logit", F, "float", 0, "self=:q eps=1e-6", NULL),
	PW("i0", F, "float", 0, "self=:u", NULL),
	PW("special_i1", F, "float", 0, "self=:u", NULL),
	PW("special_i0e", F, "float", 0, "self=:u", NULL),
	PW("relu", F, "float", 0, NULL, NULL),
	PW("celu", F, "float", 0, "alpha=2.0", NULL),
	PW("elu", F, "float", 0, "alpha=0.5 scale=2 input_scale=1.5", NULL),
	PW("softplus", F, "float", 0, "beta=2 threshold=1", NULL),
	PW("softshrink", F, "float", 0, "lambd=0.25", NULL),
	PW("gelu", F, "float", 0, "approximate='tanh'", NULL),
	PW("gelu_backward", F, "float", 0, "approximate='tanh'", NULL),
	PW("threshold", FI, "float", 0, "threshold=:n value=:p", NULL),
	PW("threshold_backward", F, "float", 0, NULL, NULL),
	PW("nan_to_num", F, "float", 0, "nan=0.5 posinf=100.0 neginf=-100.0",
	    NULL),
	PW("conj_physical", F, "float", 0, NULL, NULL),
	PWX("sgn", F, DT_C64, "float", 0, NULL, NULL),
	PW("bitwise_not", IB, "exact", GF_NO_EDGE, NULL, NULL),
	PW("logical_not", FIB, "exact", CMPB, NULL, NULL),
	PW("isfinite", F, "exact", GF_RET_BOOL, NULL, NULL),
	PW("isinf", F, "exact", GF_RET_BOOL, NULL, NULL),
	PW("isnan", F, "exact", GF_RET_BOOL, NULL, NULL),
	PW("isneginf", F, "exact", GF_RET_BOOL, NULL, NULL),
	PW("signbit", F, "exact", GF_RET_BOOL, NULL, NULL),
	PW("clamp_min", FI, "float", 0, "min=:n", NULL),
	PW("clamp", FI, "float", 0, "min=!:a max=!:p", NULL),
	PW("clip", FI, "float", 0, "min=!:a max=!:p", NULL),
	PW("clamp.Tensor", FI, "float", 0, "min=:n max=:n", NULL),
	PW("polar", DT_F32, "float", GF_NO_PROMOTE, "abs=:p angle=:u", NULL),

	/* binary and ternary pointwise */
	PW("add", FI, "float", 0, "alpha=2", NULL),
	PW("sub", FI, "float", 0, "alpha=2", NULL),
	PW("mul", FI, "float", 0, NULL, NULL),
	PW("div", FI, "float", GF_RET_FLOAT, "other=:z", NULL),
	PW("div.Tensor_mode", FI, "float", 0, "other=:z rounding_mode='floor'",
	    "contract rounding_mode='trunc'", "contract rounding_mode=~"),
	PW("div.Scalar_mode", FI, "float", 0, "other=:z rounding_mode='trunc'",
	    "contract rounding_mode='floor'", "contract rounding_mode=~"),
	PW("divide", FI, "float", GF_RET_FLOAT, "other=:z", NULL),
	PW("divide.Tensor_mode", FI, "float", 0,
	    "other=:z rounding_mode='floor'", "contract rounding_mode='trunc'"),
	PW("divide.Scalar_mode", FI, "float", 0,
	    "other=:z rounding_mode='trunc'", "contract rounding_mode='floor'"),
	PW("true_divide", FI, "float", GF_RET_FLOAT, "other=:z", NULL),
	PW("floor_divide", FI, "float", 0, "self=:w other=:z", NULL),
	PW("remainder", FI, "float", 0, "self=:w other=:z", NULL),
	PW("pow", F, "float", 0, "self=:p exponent=:u", NULL),
	PW("copysign.out", F, "float", 0, NULL, NULL),
	RC("copysign", F, 0, "float", 0, NULL,
	    "a=1.5 b=-2.0", "a=-3 b=0.5", "a=2 b=-0.0"),
	PW("atan2", F, "float", 0, NULL, NULL),
	PW("hypot", F, "float", 0, NULL, NULL),
	PW("logaddexp", F, "float", 0, NULL, NULL),
	PW("fmin", FI, "float", 0, NULL, NULL),
	PW("maximum", FI, "float", 0, NULL, NULL),
	PW("minimum", FI, "float", 0, NULL, NULL),
	PW("bitwise_and", IB, "exact", GF_INT_SCALAR | GF_NO_EDGE, NULL, NULL),
	PW("bitwise_or", IB, "exact", GF_INT_SCALAR | GF_NO_EDGE, NULL, NULL),
	PW("__or__", IB, "exact", GF_INT_SCALAR | GF_NO_EDGE, NULL, NULL),
	PW("__ior__", IB, "exact", GF_INT_SCALAR | GF_NO_EDGE, NULL, NULL),
	PW("logical_and", FIB, "exact", CMPB, "self=:t other=:t", NULL),
	PW("logical_or", FIB, "exact", CMPB, "self=:t other=:t", NULL),
	PW("logical_xor", FIB, "exact", CMPB, "self=:t other=:t", NULL),
	PW("eq", FIB, "exact", CMPB, "self=:s other=:s", NULL),
	PW("ne", FIB, "exact", CMPB, "self=:s other=:s", NULL),
	PW("gt", FI, "exact", CMPB, "self=:s other=:s", NULL),
	PW("ge", FI, "exact", CMPB, "self=:s other=:s", NULL),
	PW("lt", FI, "exact", CMPB, "self=:s other=:s", NULL),
	PW("le", FI, "exact", CMPB, "self=:s other=:s", NULL),
	PW("greater", FI, "exact", CMPB, "self=:s other=:s", NULL),
	PW("isclose", F, "exact", GF_RET_BOOL | GF_NO_PROMOTE,
	    "rtol=0.001 atol=0.01 equal_nan=1", NULL),
	PW("allclose", F, "exact", GF_NO_EDGE | GF_NO_PROMOTE,
	    "rtol=0.001 atol=0.01 equal_nan=1", NULL),
	PW("equal", FIB, "exact", GF_NO_EDGE | GF_NO_BCAST,
	    "self=:s other=:s", NULL),
	PW("addcmul", FI, "float", 0, "value=2", NULL),
	PW("addcdiv", F, "float", 0, "tensor2=:z value=0.5", NULL),
	PW("lerp", F, "float", GF_NO_PROMOTE, "weight=:q", NULL),
	PW("where.self_out", FIB, "exact", 0, "condition=:b@bool", NULL),
	PW("masked_fill", FIB, "exact", 0, "mask=:b@bool", NULL),
	PW("masked_fill.Tensor", FIB, "exact", 0, "mask=:b@bool value=[]",
	    NULL),
	PW("masked_select", FIB, "exact", 0, "mask=:b@bool", NULL),
	PWX("fill", FIB, EX, "exact", 0, NULL, NULL),
	PWX("fill.Tensor", FIB, EX, "exact", 0, "value=[]", NULL),
	PWX("fill.Tensor_out", FIB, EX, "exact", 0, "value=[]", NULL),
	PWX("zero", FIB, EX, "exact", 0, NULL, NULL),
	PW("mse_loss", F, "float", GF_NO_PROMOTE, "reduction=0", NULL),
	PW("soft_margin_loss", F, "float", GF_NO_PROMOTE | GF_NO_BCAST,
	    "target=:t reduction=2", NULL),
	PW("margin_ranking_loss", F, "float", GF_NO_PROMOTE,
	    "target=:t margin=0.5 reduction=0", NULL),
	RC("nll_loss_forward", F, 0, "float", 0,
	    "self=[N,C] target=[N]:i(C) weight=~ reduction=1 ignore_index=-100",
	    "N=5 C=7", "reduction=0 N=9 C=3", "weight=[C]:p reduction=2 N=4 C=6",
	    "ignore_index=1 N=33 C=4", "self=[C] target=[]:i(C) N=1 C=5",
	    "accumulation N=65536 C=4"),
	RC("nll_loss_backward", F, 0, "float", 0,
	    "grad_output=[] self=[N,C] target=[N]:i(C) weight=~ reduction=1 "
	    "ignore_index=-100 total_weight=[]:p",
	    "N=5 C=7", "reduction=0 grad_output=[N] N=9 C=3",
	    "weight=[C]:p reduction=2 N=4 C=6", "ignore_index=1 N=33 C=4"),
	RC("nll_loss2d_forward", F, 0, "float", 0,
	    "self=[N,C,H,W] target=[N,H,W]:i(C) weight=~ reduction=1 "
	    "ignore_index=-100",
	    "N=2 C=5 H=4 W=3", "reduction=0 N=3 C=3 H=5 W=5",
	    "weight=[C]:p reduction=2 N=2 C=4 H=3 W=7", "ignore_index=1 N=1 C=3 H=9 W=9"),
	RC("nll_loss2d_backward", F, 0, "float", GF_NO_NONCONTIG,
	    "grad_output=[] self=[N,C,H,W] target=[N,H,W]:i(C) weight=~ "
	    "reduction=1 ignore_index=-100 total_weight=[]:p",
	    "N=2 C=5 H=4 W=3", "reduction=0 grad_output=[N,H,W] N=3 C=3 H=5 W=5",
	    "weight=[C]:p reduction=2 N=2 C=4 H=3 W=7"),
	RC("rrelu_with_noise_backward", F, 0, "float", 0,
	    "grad_output=[A,B] self=[A,B] noise=[A,B]:p lower=0.125 "
	    "upper=0.25 training=0 self_is_result=0",
	    "A=5 B=33", "A=1 B=1031", "training=1 A=4 B=9"),
	RC("elu_backward", F, 0, "float", 0,
	    "grad_output=[A,B] alpha=1.0 scale=1.0 input_scale=1.0 "
	    "is_result=0 self_or_result=[A,B]",
	    "A=5 B=33", "A=1 B=1031", "is_result=1 alpha=0.5 A=4 B=9"),
	RC("prelu", F, 0, "float", 0, "self=[N,C,L] weight=[C]",
	    "N=2 C=5 L=33", "N=1 C=1 L=1031", "weight=[1] N=3 C=4 L=7"),

	/* reductions */
	RED("all", FIB, "exact", GF_NO_ACCUM | GF_NO_EDGE, "self=:t"),
	RED("any", FIB, "exact", GF_NO_ACCUM | GF_NO_EDGE, "self=:t"),
	RED("_is_all_true", DT_BOOL, "exact", GF_NO_ACCUM, "self=:b@bool"),
	RED("count_nonzero", FIB, "exact", GF_NO_ACCUM | GF_RET_LONG,
	    "self=:t"),
	RED("argmax", FI, "exact", GF_NO_EMPTY | GF_NO_ACCUM | GF_RET_LONG,
	    NULL),
	RED("argmin", FI, "exact", GF_NO_EMPTY | GF_NO_ACCUM | GF_RET_LONG,
	    NULL),
	RED("aminmax", FI, "float", GF_NO_EMPTY | GF_NO_ACCUM, NULL),
	RED("max", FI, "float", GF_NO_EMPTY | GF_NO_ACCUM, NULL),
	RED("min", FI, "float", GF_NO_EMPTY | GF_NO_ACCUM, NULL),
	RED("max.dim", F, "float", GF_NO_EMPTY | GF_NO_ACCUM, NULL),
	RED("min.dim", F, "float", GF_NO_EMPTY | GF_NO_ACCUM, NULL),
	RED("prod", FI, "float", GF_INT_WIDEN, "self=:o"),
	RED("sum", FI, "float", GF_INT_WIDEN, NULL),
	RED("linalg_vector_norm", F, "float", 0, "ord=1"),
	RED("std", F, "float", 0, "correction=0"),
	RED("var", F, "float", 0, "correction=0 unbiased=0"),
	RED("var_mean", F, "float", 0, "correction=0"),
	RC("trace", FI, 0, "float", 0, "self=[A,B]",
	    "A=5 B=7", "A=33 B=33", "A=1 B=1", "accumulation A=4096 B=4096",
	    "A=0 B=3"),
	RC("quantile", DT_F32, 0, "float", GF_NO_EDGE,
	    "self=[A,B] q=[K]:q dim=1 keepdim=0 interpolation='nearest'",
	    "A=5 B=33 K=3", "A=1 B=1031 K=1", "dim=~ A=4 B=9 K=5",
	    "dim=0 keepdim=1 A=7 B=3 K=2"),

	/* softmax and scans */
	DW("_log_softmax", F, "float", 0, NULL),
	DW("_safe_softmax", F, "float", 0, NULL),
	DW("_softmax_backward_data", F, "float", 0, "output=:q"),
	DW("_log_softmax_backward_data", F, "float", 0, NULL),
	DW("cummax", F, "float", GF_NO_ACCUM, NULL),
	DW("cummin", F, "float", GF_NO_ACCUM, NULL),
	DW("cumsum", FI, "float", GF_INT_WIDEN, NULL),
	RC("glu", F, 0, "float", 0, "self=[A,2*B] dim=-1",
	    "A=5 B=16", "A=1 B=513", "dim=0 self=[2*A,B] A=3 B=7",
	    "dim=1 self=[A,2*B,C] A=2 B=3 C=4"),
	/* the library's TransformerEngine-style gated units (fused::, their
	 * references in probes/opscreen_runner/references.py): the last dim
	 * is the activation's input, then the gate; engine-sized rows too */
#define GLU_SIZES "A=5 B=16", "A=1 B=513", "A=7 B=1", \
	    "input=[A,B,2*C] A=2 B=3 C=40", "A=128 B=5504"
	RC("fused::swiglu", F, 0, "float", 0, "input=[A,2*B]", GLU_SIZES),
	RC("fused::geglu", F, 0, "float", 0, "input=[A,2*B]", GLU_SIZES),
	RC("fused::reglu", F, 0, "float", 0, "input=[A,2*B]", GLU_SIZES),
#undef GLU_SIZES
	/* their backward: the output's gradient, the input */
#define DGLU_SIZES "A=5 B=16", "A=1 B=513", "A=7 B=1", \
	    "grad_output=[A,B,C] input=[A,B,2*C] A=2 B=3 C=40", "A=128 B=5504"
	RC("fused::dswiglu", F, 0, "float", 0,
	    "grad_output=[A,B] input=[A,2*B]", DGLU_SIZES),
	RC("fused::dgeglu", F, 0, "float", 0,
	    "grad_output=[A,B] input=[A,2*B]", DGLU_SIZES),
	RC("fused::dreglu", F, 0, "float", 0,
	    "grad_output=[A,B] input=[A,2*B]", DGLU_SIZES),
#undef DGLU_SIZES
	/* vLLM's sampler penalties (in place on the logits): sequences of a
	 * vocabulary, masks of the tokens seen, one penalty per sequence */
	RC("fused::apply_repetition_penalties", F, 0, "float", 0,
	    "logits=[S,V] prompt_mask=[S,V]:b@bool output_mask=[S,V]:b@bool "
	    "repetition_penalties=[S]:p",
	    "S=4 V=1000", "S=3 V=1025", "S=1 V=32000", "S=8 V=151936"),
	/*
	 * DeepSeek-V3's grouped routing (vLLM's grouped_topk, FlagGems' 5.0.2
	 * signature): experts in n_group groups, the topk_group groups of the
	 * best two-expert sums chosen, the top k experts of those; the bias
	 * picks, the scores weigh.  Judged tie-aware in fp64 (compare
	 * grouped_routing): small integers make tied groups and experts.
	 * DeepSeek-V3's 256 experts in 8 groups, top 4 groups, top 8, over
	 * decode and prefill token counts.
	 */
	RC("fused::grouped_topk", F, 0, "grouped_routing", GF_NO_EDGE,
	    "scores=[T,E] n_group=G topk_group=TG topk=K renormalize=1 "
	    "routed_scaling_factor=2.5 bias=[E] scoring_func=1",
	    "T=7 E=16 G=4 TG=2 K=4", "T=5 E=128 G=8 TG=4 K=8",
	    "T=3 E=96 G=3 TG=1 K=5",
	    "T=33 E=64 G=8 TG=3 K=6 scores=[T,E]:p scoring_func=0 "
	    "renormalize=0 routed_scaling_factor=1.0",
	    "T=9 E=32 G=4 TG=2 K=4 scores=[T,E]:s bias=[E]:t",
	    "T=6 E=64 G=8 TG=3 K=6 scores=[T,E]:t bias=[E]:t renormalize=0",
	    "T=1 E=256 G=8 TG=4 K=8", "T=16 E=256 G=8 TG=4 K=8",
	    "T=512 E=256 G=8 TG=4 K=8"),
	/*
	 * vLLM's KV-cache writes (in place on the caches): each token's key and
	 * value to the slot slot_mapping gives it; random slots, a slot's
	 * later tokens made padding (-1) by the call convention (references.py,
	 * _unique_slots), so a case holds scattered slots and padding.  Not
	 * noncontig: vLLM's own kernels take each token's heads contiguous.
	 */
#define KV_ARGS(c) "key=[T,H,D] value=[T,H,D] " c \
	    " slot_mapping=[T]:i(NB*BS)@i64 kv_cache_dtype='auto' " \
	    "k_scale=[1]:p@f32 v_scale=[1]:p@f32"
#define KV_SIZES "T=7 H=2 D=64 NB=4 BS=16", "T=33 H=4 D=128 NB=3 BS=16", \
	    "T=5 H=3 D=80 NB=3 BS=8", "T=1 H=8 D=128 NB=2 BS=16", \
	    "T=256 H=8 D=128 NB=64 BS=16"
	RC("fused::reshape_and_cache_flash", F, 0, "exact",
	    GF_NO_EDGE | GF_NO_NONCONTIG,
	    KV_ARGS("key_cache=[NB,BS,H,D] value_cache=[NB,BS,H,D]"), KV_SIZES),
	RC("fused::reshape_and_cache", F, 0, "exact", GF_NO_EDGE | GF_NO_NONCONTIG,
	    KV_ARGS("key_cache=[NB,H,D/8,BS,8] value_cache=[NB,H,D,BS]"),
	    KV_SIZES),
#undef KV_SIZES
#undef KV_ARGS
	/* MLA's: the compressed kv and the rotary part in one row (DeepSeek:
	 * 512 + 64) */
	RC("fused::concat_and_cache_mla", F, 0, "exact",
	    GF_NO_EDGE | GF_NO_NONCONTIG,
	    "kv_c=[T,R] k_pe=[T,P] kv_cache=[NB,BS,R+P] "
	    "slot_mapping=[T]:i(NB*BS)@i64 kv_cache_dtype='auto' scale=[1]:p@f32",
	    "T=7 R=512 P=64 NB=4 BS=16", "T=33 R=128 P=16 NB=3 BS=16",
	    "T=1 R=512 P=64 NB=2 BS=64", "T=5 R=1024 P=64 NB=2 BS=8",
	    "T=256 R=512 P=64 NB=32 BS=16"),
	/*
	 * vLLM's fused MoE (unquantised, SiLU; fused_experts_impl returns the
	 * output, outplace_fused_experts too, inplace_fused_experts writes it
	 * into hidden_states): T tokens of width H through their KT experts
	 * of E (random ids, repeats in a row included: their sum), w1 gate
	 * and up [E,2N,H], w2 [E,H,N].  Not noncontig: vLLM's and FlagGems'
	 * assert contiguous hidden states and weights.
	 */
#define MOE_SIZES "T=7 E=8 N=64 H=128 KT=2", "T=33 E=16 N=96 H=64 KT=4", \
	    "T=1 E=64 N=256 H=512 KT=8", "T=64 E=64 N=256 H=512 KT=8", \
	    "T=5 E=4 N=80 H=136 KT=1", \
	    "accumulation T=3 E=2 N=16 H=16384 KT=2"
#define MOE_ARGS "hidden_states=[T,H] w1=[E,2*N,H] w2=[E,H,N] " \
	    "topk_weights=[T,KT]:p@f32 topk_ids=[T,KT]:i(E)@i32"
	RC("fused::fused_experts_impl", F, 0, "float",
	    GF_NO_EDGE | GF_NO_NONCONTIG, MOE_ARGS, MOE_SIZES),
	RC("fused::outplace_fused_experts", F, 0, "float",
	    GF_NO_EDGE | GF_NO_NONCONTIG, MOE_ARGS, MOE_SIZES),
	RC("fused::inplace_fused_experts", F, 0, "float",
	    GF_NO_EDGE | GF_NO_NONCONTIG, MOE_ARGS, MOE_SIZES),
#undef MOE_ARGS
#undef MOE_SIZES
	/*
	 * The fused MoE's GEMM launchers (vLLM's invoke_fused_moe_kernel,
	 * unquantised): the first GEMM (A the tokens, top_k the routing's, C
	 * [T,KT,N]) and the second (A one row per token and expert, top_k 1,
	 * the routing weights applied); tile configs of vLLM's tuned files
	 * (grouped, decode with fewer tokens than a block), K and N not
	 * multiples of the tiles.  The token blocks are opscreen's alignment
	 * (references.py, _moe_blocks).  Contiguous, as vLLM allocates them
	 */
#define MOE_GEMM "A=[T,H] B=[E,N,H] C=[T,KT,N] topk_weights=[T,KT]:p@f32 " \
	    "topk_ids=[T,KT]:i(E)@i32 mul_routed_weight=0 top_k=KT " \
	    "block_size_m=BM block_size_n=BN block_size_k=BK group_size_m=G"
#define MOE_GEMM_SIZES "T=7 KT=2 E=8 H=128 N=96 BM=16 BN=32 BK=64 G=1", \
	    "T=64 KT=8 E=16 H=256 N=256 BM=64 BN=64 BK=32 G=8", \
	    "T=1 KT=8 E=32 H=1024 N=256 BM=16 BN=64 BK=64 G=1", \
	    "T=33 KT=4 E=4 H=100 N=50 BM=32 BN=32 BK=64 G=1", \
	    "A=[T*KT,N] B=[E,H,N] C=[T,KT,H] mul_routed_weight=1 top_k=1 " \
	    "T=33 KT=4 E=8 N=128 H=192 BM=16 BN=64 BK=32 G=1"
	RC("fused::invoke_fused_moe_triton_kernel", F, 0, "float",
	    GF_NO_EDGE | GF_NO_NONCONTIG | GF_NO_OPTIONS, MOE_GEMM,
	    MOE_GEMM_SIZES),
	RC("fused::dispatch_fused_moe_kernel", F, 0, "float",
	    GF_NO_EDGE | GF_NO_NONCONTIG | GF_NO_OPTIONS, MOE_GEMM,
	    MOE_GEMM_SIZES),
#undef MOE_GEMM
#undef MOE_GEMM_SIZES
	/* the fused MoE's token alignment: positions by expert, each run
	 * padded to the block size (compared in the canonical order of
	 * references.py, _aligned: the order within a run is the kernel's) */
	RC("fused::moe_align_block_size", DT_I32, 0, "exact",
	    GF_NO_EDGE | GF_NO_NONCONTIG | GF_NO_OPTIONS,
	    "topk_ids=[T,KT]:i(E)@i32 block_size=BS num_experts=E",
	    "T=7 KT=2 E=8 BS=16", "T=33 KT=6 E=64 BS=16",
	    "T=1 KT=8 E=256 BS=16", "T=512 KT=8 E=256 BS=64",
	    "T=4096 KT=8 E=64 BS=128", "T=5 KT=1 E=3 BS=1"),
	/* the same alignment into three buffers the caller gives (vLLM's
	 * sizes, uninitialised), returning nothing (references.py,
	 * _aligned_buffers) */
	RC("fused::moe_align_block_size_triton", DT_I32, 0, "exact",
	    GF_NO_EDGE | GF_NO_NONCONTIG | GF_NO_OPTIONS,
	    "topk_ids=[T,KT]:i(E)@i32 block_size=BS num_experts=E",
	    "T=7 KT=2 E=8 BS=16", "T=33 KT=6 E=64 BS=16",
	    "T=1 KT=8 E=256 BS=16", "T=512 KT=8 E=256 BS=64",
	    "T=4096 KT=8 E=64 BS=128", "T=5 KT=1 E=3 BS=1"),
	RC("glu_backward", F, 0, "float", 0,
	    "grad_output=[A,B] self=[A,2*B] dim=1",
	    "A=5 B=16", "A=1 B=513", "dim=0 grad_output=[A,B] self=[2*A,B] A=3 B=7"),

	/* matrix products */
	RC("dot", F, 0, "float", 0, "self=[N] tensor=[N]",
	    "N=7", "N=1", "N=4097", "N=0", "accumulation N=65536"),
	RC("vdot", F, 0, "float", 0, "self=[N] other=[N]",
	    "N=7", "N=1", "N=4097", "accumulation N=65536"),
	RC("mv", F, 0, "float", 0, "self=[M,K] vec=[K]",
	    "M=7 K=33", "M=1 K=1", "M=65 K=4097", "M=0 K=5",
	    "accumulation M=4 K=65536"),
	RC("addmv", F, 0, "float", 0, "self=[M] mat=[M,K] vec=[K] out=[M] "
	    "beta=0.5 alpha=2",
	    "M=7 K=33", "M=1 K=1", "M=65 K=4097", "self=[1] M=9 K=5",
	    "contract kw defaults M=5 K=9", "accumulation M=4 K=65536"),
	RC("addr", F, 0, "float", 0, "self=[M,N] vec1=[M] vec2=[N] "
	    "beta=0.5 alpha=2",
	    "M=7 N=33", "M=1 N=1", "self=[N] M=5 N=9", "contract defaults M=5 N=9"),
	RC("addmm.out", F, 0, "float", 0, "self=[M,N] mat1=[M,K] mat2=[K,N] "
	    "out=[M,N] beta=0.5 alpha=2",
	    "M=7 K=33 N=5", "M=1 K=1 N=1", "M=64 K=128 N=32", "self=[N] M=9 K=5 N=3",
	    "contract kw defaults M=5 K=9 N=3", "accumulation M=4 K=65536 N=4"),
	RC("mm.out", F, 0, "float", 0, "self=[M,K] mat2=[K,N] out=[M,N]",
	    "M=7 K=33 N=5", "M=1 K=1 N=1", "M=64 K=128 N=32",
	    "accumulation M=4 K=65536 N=4"),
	RC("bmm.out", F, 0, "float", 0,
	    "self=[B,M,K] mat2=[B,K,N] out=[B,M,N]",
	    "B=3 M=7 K=33 N=5", "B=1 M=1 K=1 N=1", "B=2 M=64 K=128 N=32",
	    "accumulation B=2 M=4 K=65536 N=4"),
	RC("baddbmm", F, 0, "float", 0,
	    "self=[B,M,N] batch1=[B,M,K] batch2=[B,K,N] beta=0.5 alpha=2",
	    "B=3 M=7 K=33 N=5", "B=1 M=1 K=1 N=1", "self=[N] B=2 M=4 K=9 N=3",
	    "contract kw defaults B=2 M=5 K=9 N=3",
	    "accumulation B=2 M=4 K=65536 N=4"),
	RC("kron", F, 0, "float", 0, "self=[A,B] other=[C,D]",
	    "A=2 B=3 C=4 D=5", "A=1 B=1 C=7 D=1", "other=[C] A=3 B=2 C=4"),
	RC("_grouped_mm", DT_BF16, 0, "float", GF_NO_EDGE | GF_NO_NONCONTIG,
	    "self=[G,M,K] mat2=[G,K,N]",
	    "G=2 M=16 K=32 N=16", "G=4 M=32 K=64 N=48"),

	/*
	 * normalisation; GF_NO_EMPTY: aten's CPU weight-norm and batch-norm
	 * backward kernels die of SIGFPE on an empty batch, its batch norm
	 * raises; GF_NO_OPTIONS: weight norm's dim fixes g's shape (another
	 * dim aborts the process) (torch 2.11)
	 */
	RC("native_batch_norm", F, 0, "float", GF_NO_EMPTY,
	    "input=[N,C,H,W] weight=[C] bias=[C] running_mean=[C] "
	    "running_var=[C]:p training=1 momentum=0.1 eps=1e-5",
	    "N=2 C=3 H=5 W=7", "training=0 N=4 C=5 H=3 W=3",
	    "weight=~ bias=~ N=3 C=4 H=1 W=9",
	    "input=[N,C,L] N=5 C=6 L=17",
	    "accumulation N=16 C=4 H=64 W=64"),
	RC("native_batch_norm_backward", F, 0, "float", GF_NO_EMPTY,
	    "grad_out=[N,C,H,W] input=[N,C,H,W] weight=[C] running_mean=[C] "
	    "running_var=[C]:p save_mean=[C] save_invstd=[C]:p train=1 "
	    "eps=1e-5 output_mask=[1,1,1]",
	    "N=2 C=3 H=5 W=7", "train=0 N=4 C=5 H=3 W=3",
	    "output_mask=[1,0,0] weight=~ N=3 C=4 H=1 W=9"),
	RC("native_group_norm", F, 0, "float", GF_NO_NONCONTIG,
	    "input=[B,CH,H,W] weight=[CH] bias=[CH] N=B C=CH HxW=H*W group=G "
	    "eps=1e-5",
	    "B=2 CH=6 H=5 W=7 G=3", "B=1 CH=4 H=1 W=33 G=4",
	    "weight=~ bias=~ B=3 CH=8 H=4 W=4 G=2",
	    "accumulation B=2 CH=4 H=256 W=256 G=2"),
	RC("native_group_norm_backward", F, 0, "float", 0,
	    "grad_out=[B,CH,H,W] input=[B,CH,H,W] mean=[B,G] rstd=[B,G]:p "
	    "weight=[CH] N=B C=CH HxW=H*W group=G output_mask=[1,1,1]",
	    "B=2 CH=6 H=5 W=7 G=3", "B=1 CH=4 H=1 W=33 G=4",
	    "B=3 CH=8 H=4 W=4 G=2"),
	RC("native_layer_norm_backward", F, 0, "float", 0,
	    "grad_out=[A,B,D] input=[A,B,D] normalized_shape=[D] "
	    "mean=[A,B,1] rstd=[A,B,1]:p weight=[D] bias=[D] "
	    "output_mask=[1,1,1]",
	    "A=2 B=3 D=33", "A=1 B=1 D=4097", "A=4 B=5 D=7",
	    "A=3 B=2 D=65"),
	/* the library's own weight_norm (fused::): dim 0, the last, a middle one */
	RC("fused::weight_norm", F, 0, "float", GF_NO_EMPTY | GF_NO_OPTIONS,
	    "v=[O,I] g=[O,1] dim=0",
	    "O=5 I=33", "O=1 I=1031", "dim=1 g=[1,I] O=7 I=9",
	    "v=[O,I,K] g=[1,I,1] dim=1 O=3 I=4 K=5",
	    "v=[O,I,K] g=[O,1,1] dim=-3 O=64 I=32 K=3"),
	/*
	 * the library's cross_entropy_loss: class indices (a vocabulary-sized
	 * row too) or probabilities, per-class weights, an ignored class,
	 * label smoothing, every reduction (the options class tries the
	 * table's values)
	 */
	RC("fused::cross_entropy_loss", F, 0, "float", GF_NO_EDGE,
	    "inp=[N,C] target=[N]:i(C)@i64 reduction='sum' ignore_index=1 "
	    "label_smoothing=0.1",
	    "N=8 C=10", "N=1 C=32000", "N=33 C=7 reduction='none'",
	    "inp=[N,C,D] target=[N,D]:i(C)@i64 N=2 C=5 D=9",
	    "weight=[C]:p N=16 C=12 reduction='mean'",
	    "target=[N,C]:q ignore_index=-100 N=6 C=11",
	    "ignore_index=-100 N=4 C=3"),
	/* instance_norm over each sample's channels, the input's own stats
	 * (GF_NO_EMPTY: aten's raises on an empty batch or channel) */
	RC("fused::instance_norm", F, 0, "float", GF_NO_OPTIONS | GF_NO_EMPTY,
	    "input=[N,C,L] weight=[C] bias=[C] running_mean=~ running_var=~ "
	    "use_input_stats=1 momentum=0.1 eps=1e-5",
	    "N=2 C=3 L=17", "input=[N,C,H,W] N=2 C=4 H=5 W=7",
	    "weight=~ bias=~ N=3 C=2 L=1025", "N=1 C=1 L=65536",
	    "input=[N,C,H,W] N=1 C=64 H=32 W=32"),
	RC("fused::outer", F, 0, "float", 0, "inp=[M] weight=[N]",
	    "M=7 N=33", "M=1 N=1", "M=1025 N=3", "M=0 N=5"),
	/*
	 * RWKV's channel mix: a ReLU-squared key (small integers here, a sixth
	 * of them 0, as the kernel skips zero rows) times the value matrix; K
	 * not a power of two included, RWKV-7 1.5B's 8192 x 2048, and a long
	 * accumulation
	 */
	RC("fused::rwkv_mm_sparsity", F, 0, "float", 0, "k=[K]:s v=[K,N]",
	    "K=7 N=33", "K=512 N=16", "K=1 N=1", "K=8192 N=2048",
	    "accumulation K=65536 N=4"),
	/*
	 * RWKV-7's key mixing: per token, k scaled by 1 + (a - 1) * ka and
	 * k * kk normalised within each of H heads of N channels (RWKV-7's
	 * head size 64; N not a power of two too); one token as a 1-D k
	 */
	/*
	 * DeepSeek's mHC after a layer: hc residual streams of width H, each
	 * the layer's output scaled plus the streams mixed (float32 mixes);
	 * hc = 4 (FlagGems' own kernel for it) and others
	 */
	RC("fused::mhc_post", F, 0, "float", GF_NO_OPTIONS,
	    "x=[N,H] residual=[N,HC,H] post_layer_mix=[N,HC,1]@f32 "
	    "comb_res_mix=[N,HC,HC]@f32",
	    "N=7 HC=4 H=256", "N=1 HC=4 H=7168", "N=33 HC=2 H=100",
	    "N=5 HC=3 H=4096", "post_layer_mix=[N,HC]@f32 N=3 HC=4 H=64"),
	/*
	 * mHC before a layer: the hc streams mixed by fn (small weights, as a
	 * model's) into the layer's input and the post and combination mixes;
	 * the residual in bfloat16 (the models' and FlagGems' contract),
	 * float32 weights; hc = 4 (FlagGems' own kernel for it) and others,
	 * DeepSeek's and GLM's hidden 4096, token counts in each of FlagGems'
	 * buckets, tokens with outer dims
	 */
	RC("fused::mhc_pre", DT_BF16, 0, "float", GF_NO_OPTIONS,
	    "residual=[N,HC,H] fn=[HC*(HC+2),HC*H]:h@f32 hc_scale=[3]:h@f32 "
	    "hc_base=[HC*(HC+2)]:h@f32 rms_eps=1e-6 hc_pre_eps=1e-6 "
	    "hc_sinkhorn_eps=1e-6 hc_post_mult_value=2.0 sinkhorn_repeat=20",
	    "N=7 HC=4 H=256", "N=1 HC=4 H=4096", "N=600 HC=4 H=128",
	    "N=5 HC=2 H=100", "N=3 HC=3 H=64",
	    "residual=[2,3,HC,H] N=6 HC=4 H=64"),
	/*
	 * DeepSeek-V3.2's sparse-attention indexer: each row's top-k positions
	 * within its window [start, end); its index_topk of 2048 over 8K and
	 * 64K-token contexts, windows shorter than k (decode: -1 padding),
	 * ties (small integers), windows past the row
	 */
	RC("fused::bucket_sort_topk", F, 0, "exact", GF_NO_OPTIONS | GF_NO_EMPTY,
	    "inputs=[B,S] starts=[B]:i(1)@i32 ends=[B]:k(S,S+1)@i32 topk=K",
	    "B=3 S=100 K=16", "B=4 S=8192 K=2048", "B=2 S=65536 K=2048",
	    "starts=[B]:i(S/2)@i32 ends=[B]:k(S/2,S+1)@i32 B=5 S=3000 K=256",
	    "ends=[B]:k(1,K)@i32 B=4 S=4096 K=2048",
	    "inputs=[B,S]:s B=3 S=5000 K=100",
	    "ends=[B]:k(S,2*S)@i32 B=2 S=300 K=64"),
	/*
	 * Gated DeltaNet's recurrence (Qwen3-Next) as vLLM decodes with it:
	 * one token a sequence (cu_seqlens), each sequence's state in the
	 * cache slot its index names (every other slot: a strided index
	 * tensor), written back in place; Qwen3-Next's heads (16 key, 32
	 * value, 128 x 128), a head size that is not a power of two, beta per
	 * channel, no L2 norm, and speculative decoding (three tokens a
	 * sequence, a slot a token, the accepted token's state read)
	 */
	RC("fused::fused_recurrent_gated_delta_rule_fwd", F, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY,
	    "q=[1,N,H,K] k=[1,N,H,K]:h v=[1,N,HV,V] g=[1,N,HV]:h beta=[1,N,HV]:q "
	    "scale=0.125 initial_state=[2*N,HV,K,V]@f32 inplace_final_state=1 "
	    "cu_seqlens=[N+1]:r@i32 ssm_state_indices=[N]:r@i32^s "
	    "use_qk_l2norm_in_kernel=1",
	    "N=4 H=2 HV=4 K=32 V=32", "N=8 H=16 HV=32 K=128 V=128",
	    "N=3 H=1 HV=2 K=100 V=48", "beta=[1,N,HV,V]:q N=4 H=2 HV=4 K=32 V=32",
	    "use_qk_l2norm_in_kernel=0 N=5 H=2 HV=2 K=64 V=64",
	    "q=[N,3,H,K] k=[N,3,H,K] v=[N,3,HV,V] g=[N,3,HV]:h beta=[N,3,HV]:q "
	    "cu_seqlens=~ ssm_state_indices=[N,3]:r@i32 num_accepted_tokens=[N]:k(1,4)@i32 "
	    "initial_state=[3*N,HV,K,V]@f32 N=2 H=2 HV=4 K=32 V=32"),
	/*
	 * The same recurrence over whole sequences, as vLLM prefills with it
	 * (FLA's chunked kernels, chunks of 64 tokens): rows of the batch or
	 * cu_seqlens' spans, each from its initial state, the final states
	 * returned; lengths across a chunk's edge, Qwen3-Next's heads
	 */
	RC("fused::chunk_gated_delta_rule_fwd", F, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY,
	    "q=[B,T,H,K] k=[B,T,H,K]:h v=[B,T,HV,V] g=[B,T,HV]:h beta=[B,T,HV]:q "
	    "scale=0.125 initial_state=[B,HV,K,V]@f32 output_final_state=1",
	    "B=2 T=100 H=2 HV=4 K=32 V=32", "B=1 T=64 H=1 HV=1 K=64 V=64",
	    "B=1 T=130 H=16 HV=32 K=128 V=128", "B=3 T=7 H=2 HV=2 K=100 V=48",
	    "q=[1,N,H,K] k=[1,N,H,K]:h v=[1,N,HV,V] g=[1,N,HV]:h beta=[1,N,HV]:q "
	    "initial_state=[N,HV,K,V]@f32 cu_seqlens=[N+1]:r@i64 N=5 H=2 HV=4 K=32 V=32"),
	/*
	 * vLLM's W8A8 product into the output buffer c: fp8 (e4m3) a row-major
	 * and b column-major (b's K a multiple of 16, as the kernels require),
	 * float32 scales per token and channel, per tensor, per 128-wide block
	 * (DeepSeek's checkpoints), with a bias, int8; DeepSeek-V3's decode
	 * and prefill widths
	 */
	RC("fused::cutlass_scaled_mm", DT_BF16 | DT_F16, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY | GF_NO_NONCONTIG,
	    "c=[M,N] a=[M,K]:u@f8e4 b=[K,N]:u@f8e4^t a_scale=[M,1]:q!@f32 "
	    "b_scale=[1,N]:q!@f32",
	    "M=7 K=128 N=64", "a_scale=[1]:q!@f32 b_scale=[1]:q!@f32 M=33 K=256 N=128",
	    "bias=[N] M=16 K=64 N=48",
	    "a_scale=[M,K/128]:q!@f32 b_scale=[K/128,N/128]:q!@f32 M=5 K=256 N=256",
	    "a_scale=[M,K/128]:q!@f32 b_scale=[K/128,N/128]:q!@f32 M=1 K=7168 N=2048",
	    "M=64 K=4096 N=1024",
	    "a=[M,K]:s@i8 b=[K,N]:s@i8^t M=8 K=64 N=32"),
	/*
	 * mHC's Sinkhorn backward (FlagGems' conjugate gradients and its own
	 * torch version): doubly stochastic R (the forward's fixed points)
	 * and an upstream gradient, float32; 4 streams (its own kernel) and
	 * others, the default iteration count and more; no strided cases (a
	 * slice of a generated matrix is not doubly stochastic)
	 */
	RC("fused::mhc_bwd", DT_F32, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EDGE | GF_NO_NONCONTIG,
	    "out=[S,NN,NN]:d dout=[S,NN,NN]",
	    "S=7 NN=4", "S=4096 NN=4", "S=65 NN=4", "S=5 NN=3", "S=3 NN=8",
	    "cg_iters=20 S=9 NN=4"),
	RC("fused::mhc_bwd_ref", DT_F32, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EDGE | GF_NO_NONCONTIG,
	    "out=[S,NN,NN]:d dout=[S,NN,NN]",
	    "S=7 NN=4", "S=65 NN=4", "S=5 NN=3", "cg_iters=20 S=9 NN=4"),
	/*
	 * DeepSeek's sparse attention with an attention sink: each query's
	 * top-k kv rows (keys and values at once), all heads; T not a multiple
	 * of the kernel's 64-row block, -1 slots and rows named twice, and
	 * DeepSeek-V3.2's 64 heads of 512 over 2048 picked of 4096 rows.
	 * bfloat16 only (the kernel's contract: it stores bfloat16); no edge
	 * values (FlashMLA's documentation puts NaN in kv outside its
	 * contract)
	 */
	RC("fused::sparse_attn_triton", DT_BF16, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY | GF_NO_EDGE,
	    "q=[B,M,H,D] kv=[B,N,D] attn_sink=[H]@f32 topk_idxs=[B,M,T]:i(N)@i32 "
	    "softmax_scale=0.125",
	    "B=1 M=4 H=16 D=64 N=128 T=64", "B=2 M=3 H=16 D=128 N=300 T=100",
	    "topk_idxs=[B,M,T]:k(-1,N)@i32 B=2 M=5 H=32 D=64 N=64 T=128",
	    "softmax_scale=0.0442 B=1 M=2 H=64 D=512 N=4096 T=2048",
	    "B=1 M=1 H=16 D=64 N=16 T=1"),
	/*
	 * FlashMLA's decode over a paged MLA cache (DeepSeek-V3: one kv head
	 * of 576, values its first 512, pages of 64): 16 heads (TP8) and 128,
	 * two query tokens (MTP's speculative decoding, causal), heads not a
	 * multiple of the kernel's block, an 8K context, a smaller geometry
	 * with pages of 16; random page tables (pages shared between rows
	 * included); every context at least s_q long
	 */
	RC("fused::flash_mla", DT_BF16 | DT_F16, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY | GF_NO_EDGE,
	    "q=[B,S,H,D] block_table=[B,MB]:i(NB)@i32 blocked_k=[NB,BS,1,D] "
	    "max_seqlen_pad=MB*BS block_size=BS b=B s_q=S "
	    "cache_seqlens=[B]:k(S,MB*BS+1)@i32 h_q=H h_kv=1 d=D dv=V causal=1",
	    "B=4 S=1 H=16 D=576 V=512 NB=40 BS=64 MB=8",
	    "B=2 S=1 H=128 D=576 V=512 NB=64 BS=64 MB=32",
	    "B=3 S=2 H=16 D=576 V=512 NB=16 BS=64 MB=4",
	    "B=1 S=1 H=20 D=576 V=512 NB=8 BS=64 MB=4",
	    "B=1 S=1 H=16 D=576 V=512 NB=128 BS=64 MB=128",
	    "B=5 S=1 H=16 D=192 V=128 NB=12 BS=16 MB=6"),
	/*
	 * FlashMLA's sparse prefill (DeepSeek-V3.2): each token's top-k kv
	 * rows of one 576-wide head (or 512), 64 or 128 query heads (its
	 * contract), values 512; invalid slots (-1 and past kv), an attention
	 * sink, per-token top-k lengths (0: a query with no row), index_topk
	 * 2048 over 8K rows.  Contiguous, bfloat16: the kernel asserts both
	 */
	RC("fused::flash_mla_sparse_fwd", DT_BF16, 0, "float",
	    GF_NO_OPTIONS | GF_NO_EMPTY | GF_NO_EDGE | GF_NO_NONCONTIG,
	    "q=[S,H,DQ] kv=[N,1,DQ] indices=[S,1,T]:i(N)@i32 sm_scale=0.0417 "
	    "d_v=512",
	    "S=4 H=64 DQ=576 N=256 T=64",
	    "indices=[S,1,T]:k(-1,N+16)@i32 S=3 H=128 DQ=576 N=300 T=128",
	    "attn_sink=[H]@f32 S=5 H=64 DQ=576 N=128 T=64",
	    "topk_length=[S]:k(0,T+1)@i32 S=6 H=64 DQ=576 N=200 T=96",
	    "S=3 H=64 DQ=512 N=64 T=32", "S=2 H=128 DQ=576 N=8192 T=2048"),
	/* Sinkhorn's normalisation of mHC's mixing logits */
	RC("fused::sinkhorn_forward", F, 0, "float", GF_NO_OPTIONS,
	    "M=[B,NN,NN] iters=20", "B=7 NN=4", "B=1 NN=16", "B=4096 NN=4",
	    "M=[NN,NN] iters=3 NN=8"),
	RC("fused::rwkv_ka_fusion", F, 0, "float", GF_NO_OPTIONS,
	    "k=[T,H*N] kk=[H*N] a=[T,H*N]:q ka=[H*N]:q heads=H head_size=N",
	    "T=7 H=4 N=64", "T=33 H=2 N=16", "T=3 H=3 N=24", "T=1 H=32 N=64",
	    "k=[H*N] a=[H*N]:q T=1 H=32 N=64", "T=1024 H=32 N=64"),
	RC("_weight_norm_interface", F, 0, "float", GF_NO_EMPTY | GF_NO_OPTIONS,
	    "v=[O,I] g=[O,1] dim=0",
	    "O=5 I=33", "O=1 I=1031", "dim=1 g=[1,I] O=7 I=9"),
	RC("_weight_norm_interface_backward", F, 0, "float",
	    GF_NO_NONCONTIG | GF_NO_EMPTY | GF_NO_OPTIONS,
	    "grad_w=[O,I] saved_v=[O,I] saved_g=[O,1] saved_norms=[O,1]:p dim=0",
	    "O=5 I=33", "O=1 I=1031"),

	/* convolution, pooling, resampling, padding */
	RC("conv1d", F, 0, "float", 0,
	    "input=[N,C,L] weight=[O,C/G,K] bias=[O] stride=[S] padding=[P] "
	    "dilation=[D] groups=G",
	    "N=2 C=4 L=33 O=6 K=3 S=1 P=1 D=1 G=1",
	    "N=1 C=6 L=17 O=4 K=5 S=2 P=0 D=2 G=2",
	    "bias=~ N=3 C=3 L=9 O=3 K=1 S=1 P=0 D=1 G=3",
	    "input=[C,L] N=1 C=4 L=11 O=2 K=3 S=1 P=2 D=1 G=1",
	    "contract stride=- padding=- dilation=- groups=- N=2 C=3 L=12 O=4 "
	    "K=3 S=1 P=0 D=1 G=1"),
	RC("conv1d.padding", F, 0, "float", 0,
	    "input=[N,C,L] weight=[O,C/G,K] bias=[O] padding='same' "
	    "dilation=[D] groups=G",
	    "N=2 C=4 L=33 O=6 K=3 D=1 G=1", "N=1 C=6 L=17 O=4 K=4 D=2 G=2",
	    "padding='valid' N=2 C=3 L=12 O=3 K=3 D=1 G=1"),
	RC("conv2d", F, 0, "float", 0,
	    "input=[N,C,H,W] weight=[O,C/G,K,K] bias=[O] stride=[S,S] "
	    "padding=[P,P] dilation=[D,D] groups=G",
	    "N=2 C=4 H=9 W=11 O=6 K=3 S=1 P=1 D=1 G=1",
	    "N=1 C=6 H=16 W=16 O=4 K=5 S=2 P=0 D=1 G=2",
	    "bias=~ N=2 C=3 H=7 W=7 O=3 K=3 S=1 P=2 D=2 G=3",
	    "input=[N,C,H,W]^c N=2 C=8 H=8 W=8 O=16 K=3 S=1 P=1 D=1 G=1",
	    "input=[C,H,W] N=1 C=3 H=8 W=6 O=2 K=1 S=1 P=0 D=1 G=1",
	    "contract stride=- padding=- dilation=- groups=- N=2 C=3 H=6 W=6 "
	    "O=4 K=3 S=1 P=0 D=1 G=1"),
	RC("conv2d.padding", F, 0, "float", 0,
	    "input=[N,C,H,W] weight=[O,C/G,K,K] bias=[O] padding='same' "
	    "dilation=[D,D] groups=G",
	    "N=2 C=4 H=9 W=11 O=6 K=3 D=1 G=1",
	    "N=1 C=6 H=12 W=10 O=4 K=4 D=2 G=2",
	    "padding='valid' N=2 C=3 H=8 W=8 O=3 K=3 D=1 G=1"),
	RC("conv3d", F, 0, "float", 0,
	    "input=[N,C,T,H,W] weight=[O,C/G,K,K,K] bias=[O] stride=[S,S,S] "
	    "padding=[P,P,P] dilation=[1,1,1] groups=G",
	    "N=2 C=4 T=5 H=6 W=7 O=6 K=3 S=1 P=1 G=1",
	    "N=1 C=4 T=8 H=8 W=8 O=2 K=2 S=2 P=0 G=2",
	    "bias=~ N=1 C=3 T=3 H=5 W=5 O=3 K=1 S=1 P=0 G=3"),
	RC("conv3d.padding", F, 0, "float", 0,
	    "input=[N,C,T,H,W] weight=[O,C/G,K,K,K] bias=[O] padding='same' "
	    "groups=G",
	    "N=2 C=4 T=5 H=6 W=7 O=6 K=3 G=1",
	    "padding='valid' N=1 C=4 T=6 H=6 W=6 O=2 K=3 G=2"),
	RC("_conv_depthwise2d", F, 0, "float", GF_CUDA_ONLY,
	    "self=[N,C,H,W] weight=[C,1,K,K] kernel_size=[K,K] bias=[C] "
	    "stride=[S,S] padding=[P,P] dilation=[1,1]",
	    "N=2 C=4 H=9 W=11 K=3 S=1 P=1", "N=1 C=3 H=16 W=16 K=5 S=2 P=0",
	    "bias=~ N=2 C=8 H=7 W=7 K=3 S=1 P=2"),
	RC("avg_pool2d", F, 0, "float", 0,
	    "self=[N,C,H,W] kernel_size=[K,K] stride=[S,S] padding=[P,P] "
	    "ceil_mode=1 count_include_pad=0 divisor_override=3",
	    POOL, "N=1 C=4 H=16 W=16 K=2 S=2 P=0", "self=[C,H,W] N=1 C=2 H=7 W=7 K=3 S=1 P=1",
	    "contract defaults " POOL, "contract stride=- padding=- N=2 C=3 H=8 W=8 K=2 S=2 P=0",
	    "accumulation N=2 C=4 H=256 W=256 K=16 S=16 P=0"),
	RC("avg_pool2d_backward", F, 0, "float", 0,
	    "grad_output=[N,C,(H+2*P-K)/S+1,(W+2*P-K)/S+1] self=[N,C,H,W] "
	    "kernel_size=[K,K] stride=[S,S] padding=[P,P] ceil_mode=0 "
	    "count_include_pad=1 divisor_override=~",
	    POOL, "N=1 C=4 H=16 W=16 K=2 S=2 P=0",
	    "count_include_pad=0 divisor_override=5 N=2 C=2 H=7 W=7 K=3 S=1 P=1"),
	RC("max_pool2d_with_indices", F, 0, "float", 0,
	    "self=[N,C,H,W] kernel_size=[K,K] stride=[S,S] padding=[P,P] "
	    "dilation=[1,1] ceil_mode=1",
	    POOL, "N=1 C=4 H=16 W=16 K=2 S=2 P=0", "self=[C,H,W] N=1 C=2 H=7 W=7 K=3 S=1 P=1",
	    "dilation=[2,2] N=2 C=3 H=11 W=11 K=3 S=1 P=1",
	    "contract defaults " POOL,
	    "contract stride=- padding=- dilation=- N=2 C=3 H=8 W=8 K=2 S=2 P=0"),
	RC("max_pool2d_backward", F, 0, "float", 0,
	    "grad_output=[N,C,(H+2*P-K)/S+1,(W+2*P-K)/S+1] self=[N,C,H,W] "
	    "kernel_size=[K,K] stride=[S,S] padding=[P,P] dilation=[1,1] "
	    "ceil_mode=0",
	    POOL, "N=1 C=4 H=16 W=16 K=2 S=2 P=0"),
	RC("upsample_nearest1d", F, 0, "float", 0,
	    "self=[N,C,L] output_size=[OL]", "N=2 C=3 L=7 OL=15",
	    "N=1 C=4 L=16 OL=8", "N=2 C=2 L=5 OL=5"),
	RC("_upsample_nearest_exact1d", F, 0, "float", 0,
	    "self=[N,C,L] output_size=[OL]", "N=2 C=3 L=7 OL=15",
	    "N=1 C=4 L=16 OL=8"),
	RC("upsample_nearest2d", F, 0, "float", 0,
	    "self=[N,C,H,W] output_size=[OH,OW]", "N=2 C=3 H=7 W=5 OH=15 OW=11",
	    "N=1 C=4 H=16 W=16 OH=8 OW=12", "self=[N,C,H,W]^c N=2 C=8 H=4 W=4 OH=8 OW=8"),
	RC("upsample_nearest3d", F, 0, "float", 0,
	    "self=[N,C,T,H,W] output_size=[OT,OH,OW]",
	    "N=2 C=3 T=3 H=4 W=5 OT=6 OH=8 OW=7", "N=1 C=2 T=8 H=8 W=8 OT=4 OH=4 OW=4"),
	RC("upsample_linear1d", F, 0, "float", 0,
	    "self=[N,C,L] output_size=[OL] align_corners=0",
	    "N=2 C=3 L=7 OL=15", "align_corners=1 N=1 C=4 L=16 OL=8",
	    "N=2 C=2 L=1 OL=5"),
	RC("upsample_bicubic2d", F, 0, "float", 0,
	    "self=[N,C,H,W] output_size=[OH,OW] align_corners=0",
	    "N=2 C=3 H=7 W=5 OH=15 OW=11", "align_corners=1 N=1 C=4 H=16 W=16 OH=8 OW=12"),
	RC("_upsample_bicubic2d_aa", F, 0, "float", 0,
	    "self=[N,C,H,W] output_size=[OH,OW] align_corners=0",
	    "N=2 C=3 H=7 W=5 OH=15 OW=11", "align_corners=1 N=1 C=4 H=16 W=16 OH=8 OW=12",
	    "N=1 C=2 H=32 W=32 OH=7 OW=9"),
	RC("_upsample_bicubic2d_aa_backward", F, 0, "float", 0,
	    "grad_output=[N,C,OH,OW] output_size=[OH,OW] input_size=[N,C,H,W] "
	    "align_corners=0",
	    "N=2 C=3 H=7 W=5 OH=15 OW=11", "align_corners=1 N=1 C=4 H=16 W=16 OH=8 OW=12"),
	RC("constant_pad_nd", FIB, EX, "exact", 0, "self=[A,B] pad=[1,2] value=2",
	    "A=5 B=7", "pad=[0,1,2,0] A=3 B=4", "pad=[-1,2] A=4 B=6",
	    "self=[A,B,C] pad=[1,1,1,1,1,1] A=2 B=3 C=4", "contract value=- A=3 B=5",
	    "huge A=32768 B=65536"),
	RC("pad", F, 0, "float", 0,
	    "self=[N,C,H,W] pad=[1,2,2,1] mode='constant' value=1.5",
	    "N=2 C=3 H=5 W=7", "mode='reflect' value=~ N=1 C=2 H=6 W=6",
	    "mode='replicate' value=~ N=2 C=2 H=4 W=5",
	    "mode='circular' value=~ N=1 C=3 H=5 W=5",
	    "contract mode=- value=- N=2 C=2 H=3 W=3", "huge N=1 C=1 H=32766 W=65536"),
	RC("reflection_pad1d", F, 0, "float", 0,
	    "self=[N,C,L] padding=[P,Q] out=[N,C,L+P+Q]",
	    "N=2 C=3 L=9 P=2 Q=3", "self=[C,L] out=[C,L+P+Q] N=1 C=4 L=5 P=4 Q=0",
	    "N=1 C=2 L=1031 P=7 Q=7"),
	RC("reflection_pad2d", F, 0, "float", 0,
	    "self=[N,C,H,W] padding=[P,Q,Q,P] out=[N,C,H+P+Q,W+P+Q]",
	    "N=2 C=3 H=9 W=8 P=2 Q=3", "N=1 C=4 H=5 W=5 P=4 Q=0"),
	RC("replication_pad1d", F, 0, "float", 0,
	    "self=[N,C,L] padding=[P,Q] out=[N,C,L+P+Q]",
	    "N=2 C=3 L=9 P=2 Q=3", "self=[C,L] out=[C,L+P+Q] N=1 C=4 L=5 P=7 Q=0"),
	RC("replication_pad3d", F, 0, "float", 0,
	    "self=[N,C,D,H,W] padding=[P,Q,Q,P,P,P]",
	    "N=2 C=3 D=4 H=5 W=6 P=1 Q=2", "N=1 C=2 D=3 H=3 W=3 P=3 Q=0"),
	RC("pixel_unshuffle", FIB, EX, "exact", 0,
	    "self=[N,C,H*R,W*R] downscale_factor=R out=[N,C*R*R,H,W]",
	    "N=2 C=3 H=4 W=5 R=2", "N=1 C=1 H=3 W=3 R=3",
	    "self=[C,H*R,W*R] out=[C*R*R,H,W] N=1 C=2 H=2 W=2 R=4"),

	/* index, gather, scatter */
	RC("index.Tensor", FIB, EX, "exact", 0, "self=[A,B,C]",
	    "indices={[K]:i(A)} A=5 B=4 C=3 K=7",
	    "indices={~,[K]:i(B)} A=5 B=4 C=3 K=6",
	    "indices={[K]:i(A),[K]:i(B)} A=5 B=4 C=3 K=9",
	    "indices={[A,B]:b} A=5 B=4 C=3",
	    "indices={[K,1]:i(A),[1,L]:i(B)} A=6 B=7 C=2 K=3 L=4",
	    "indices={[K]:i(A)@i32} A=5 B=4 C=3 K=7"),
	RC("index_put", FI, EXB, "float", 0,
	    "self=[A,B] indices={[K]:r@i64} values=[K,B] accumulate=0",
	    "A=7 B=5 K=4", "values=[B] A=6 B=3 K=6",
	    "indices={[K]:i(A)} accumulate=1 A=5 B=4 K=17",
	    "indices={[A,B]:b} values=[] A=5 B=4",
	    "indices={~,[K]:r@i64} values=[A,K] A=3 B=8 K=5",
	    "contract accumulate=- A=7 B=5 K=4"),
	RC("_index_put_impl", FI, 0, "float", 0,
	    "self=[A,B] indices={[K]:r@i64} values=[K,B] accumulate=0 unsafe=0",
	    "A=7 B=5 K=4", "indices={[K]:i(A)} accumulate=1 A=5 B=4 K=17"),
	RC("index_add", FI, 0, "float", 0,
	    "self=[A,B] dim=0 index=[K]:i(A) source=[K,B] alpha=2",
	    "A=7 B=5 K=4", "dim=1 index=[K]:i(B) source=[A,K] A=5 B=6 K=9",
	    "index=[K]:i(A)@i32 A=9 B=3 K=2", "self=[A] source=[K] A=33 K=100",
	    "contract defaults A=7 B=5 K=4", "contract kw defaults A=6 B=3 K=8"),
	RC("scatter.src", FI, EXB, "exact", 0,
	    "self=[A,B] dim=1 index=[A,1]:i(B) src=[A,2]",
	    "A=5 B=7", "dim=0 index=[1,B]:i(A) src=[2,B] A=6 B=4",
	    "dim=-1 A=9 B=1", "huge A=32769 B=65536"),
	RC("scatter.reduce", F, 0, "float", 0,
	    "self=[A,B] dim=1 index=[A,K]:i(B) src=[A,K] reduce='add'",
	    "A=5 B=7 K=4", "reduce='multiply' src=[A,K]:o A=6 B=4 K=3",
	    "dim=0 index=[K,B]:i(A) src=[K,B] A=4 B=5 K=8"),
	RC("scatter_add", F, 0, "float", 0,
	    "self=[A,B] dim=1 index=[A,K]:i(B) src=[A,K]",
	    "A=5 B=7 K=4", "dim=0 index=[K,B]:i(A) src=[K,B] A=4 B=5 K=8",
	    "src=[A,K+2] A=3 B=6 K=5"),
	RC("gather_backward", F, 0, "float", 0,
	    "grad=[A,K] self=[A,B] dim=1 index=[A,K]:i(B) sparse_grad=0",
	    "A=5 B=7 K=4", "dim=0 grad=[K,B] index=[K,B]:i(A) A=4 B=5 K=8"),
	RC("select_scatter", FIB, EX, "exact", 0,
	    "self=[A,B,C] src=[B,C] dim=0 index=1",
	    "A=3 B=4 C=5", "dim=2 src=[A,B] index=-1 A=3 B=4 C=5",
	    "dim=1 src=[A,C] index=0 A=2 B=1 C=7"),
	/* GF_NO_OPTIONS: dim, start, end and step fix src's shape */
	RC("slice_scatter", FIB, EX, "exact", GF_NO_OPTIONS,
	    "self=[A,B] src=[A,4] dim=1 start=1 end=9 step=2",
	    "A=3 B=10", "dim=0 src=[2,B] start=~ end=2 step=1 A=5 B=3",
	    "contract dim=- start=- end=- step=- src=[A,B] A=4 B=6"),
	RC("masked_scatter", FI, EXB, "exact", 0,
	    "self=[A,B] mask=[A,B]:b@bool source=[A*B]",
	    "A=5 B=7", "mask=[B]:b@bool A=4 B=6", "source=[A*B+5] A=3 B=3"),
	RC("embedding", F, 0, "exact", 0,
	    "weight=[V,D] indices=[A,B]:i(V)",
	    "V=10 D=7 A=3 B=5", "V=1000 D=64 A=2 B=33",
	    "indices=[A]:i(V)@i32 V=5 D=3 A=9",
	    "contract padding_idx=2 V=10 D=7 A=3 B=5"),
	RC("embedding_backward", F, 0, "float", 0,
	    "grad=[A,B,D] indices=[A,B]:i(V) num_weights=V padding_idx=-1 "
	    "scale_grad_by_freq=0 sparse=0",
	    "V=10 D=7 A=3 B=5", "padding_idx=2 V=100 D=16 A=2 B=33",
	    "scale_grad_by_freq=1 V=5 D=3 A=4 B=9"),
	RC("embedding_dense_backward", F, 0, "float", 0,
	    "grad_output=[A,B,D] indices=[A,B]:i(V) num_weights=V "
	    "padding_idx=-1 scale_grad_by_freq=0",
	    "V=10 D=7 A=3 B=5", "padding_idx=2 V=100 D=16 A=2 B=33",
	    "scale_grad_by_freq=1 V=5 D=3 A=4 B=9"),
	RCL("one_hot", DT_I64, "exact", 0, "num_classes",
	    "self=[A,B]:i(K) num_classes=K",
	    "A=3 B=5 K=7", "self=[A]:i(K) A=100 K=2", "A=0 B=3 K=4",
	    "compile self=[A]:i(V) num_classes=V A=64",
	    "contract num_classes=- self=[A]:i(K) A=9 K=6"),
	RC("isin.Tensor_Tensor", FI, 0, "exact", 0,
	    "elements=[A,B]:s test_elements=[K]:s",
	    "A=5 B=7 K=3", "A=1 B=1 K=1", "test_elements=[K,2]:s A=9 B=4 K=3",
	    "contract invert=1 A=5 B=7 K=3", "contract kw assume_unique=1 "
	    "test_elements=[K]:r A=5 B=7 K=4"),
	RC("isin.Tensor_Scalar", FI, 0, "exact", 0,
	    "elements=[A,B]:s test_element=1",
	    "A=5 B=7", "test_element=-2 A=1 B=33", "contract invert=1 A=5 B=7"),
	RC("isin.Scalar_Tensor", FI, 0, "exact", 0,
	    "element=1 test_elements=[K]:s",
	    "K=7", "element=-2 K=33", "contract invert=1 K=5"),
	/* GF_NO_OPTIONS: dim fixes the length of repeats */
	RC("repeat_interleave.self_Tensor", FI, 0, "exact", GF_NO_OPTIONS,
	    "self=[A,B] repeats=[A]:k(0,4)@i64 dim=0",
	    "A=5 B=3", "dim=1 repeats=[B]:k(0,4)@i64 A=3 B=6",
	    "dim=~ repeats=[A*B]:k(0,3)@i64 A=4 B=2",
	    "repeats=[1]:k(1,4)@i64 A=4 B=3"),
	RC("repeat_interleave.Tensor", DT_I64, 0, "exact", 0,
	    "repeats=[N]:k(0,5)", "N=7", "N=1", "N=1000"),
	RC("_unique2", FI, 0, "exact", GF_NO_NONCONTIG,
	    "self=[N]:s sorted=1 return_inverse=1 return_counts=1",
	    "N=33", "self=[A,B]:s N=1 A=4 B=9", "N=0", "N=4097"),
	RC("unique_consecutive", FI, 0, "exact", GF_NO_NONCONTIG,
	    "self=[N]:t return_inverse=1 return_counts=1 dim=~",
	    "N=33", "N=1", "self=[A,B]:t dim=0 A=9 B=2 N=1",
	    "contract return_inverse=- return_counts=- dim=- N=17"),

	/* data movement and shape */
	RC("_to_copy", FIB, EXB, "exact", 0, "self=[A,B]",
	    "A=5 B=7", "dtype=f32 A=4 B=9", "dtype=bf16 A=33 B=3",
	    "dtype=i32 self=[A,B]:s A=4 B=4", "dtype=bool A=3 B=3",
	    "contract dtype=- A=5 B=7", "contract memory_format=cf A=2 B=3"),
	RC("copy", FIB, EXB, "exact", 0, "self=[A,B] src=[A,B]",
	    "A=5 B=7", "src=[B] A=4 B=6", "src=[A,B]@f32 A=3 B=33",
	    "src=[A,B]@bf16 A=1 B=1031", "contract non_blocking=1 A=4 B=4",
	    "huge src=[B] A=32769 B=65536"),
	RC("alias_copy", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7", "A=0 B=3"),
	RC("clone", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7", "A=0 B=3",
	    "self=[A,B]^t A=33 B=17", "contract memory_format=cf A=2 B=3",
	    "huge A=32769 B=65536"),
	RC("lift_fresh_copy", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7", "A=1 B=1031"),
	RC("resolve_conj", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7"),
	RC("resolve_neg", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7"),
	RC("contiguous", FIB, EXB, "exact", 0, "self=[A,B]", "A=5 B=7",
	    "self=[A,B]^t A=33 B=17", "self=[N,C,H,W]^c N=2 C=3 H=4 W=5 A=1 B=1",
	    "contract memory_format=cl self=[N,C,H,W] N=2 C=3 H=4 W=5 A=1 B=1",
	    "huge self=[A,B]^t A=32769 B=65536"),
	RC("t_copy", FIB, EXB, "exact", 0, "self=[A,B] out=[B,A]",
	    "A=5 B=7", "self=[A] out=[A] A=9 B=1", "A=1 B=1031"),
	RC("flip", FIB, EXB, "exact", 0, "self=[A,B,C] dims=[0,2]",
	    "A=3 B=4 C=5", "dims=[-1] A=2 B=3 C=1031", "dims=[] A=3 B=2 C=2",
	    "dims=[0,1,2] A=1 B=7 C=3"),
	RC("roll", FIB, EX, "exact", 0, "self=[A,B] shifts=[2] dims=[1]",
	    "A=5 B=7", "shifts=[1,-3] dims=[0,1] A=4 B=6",
	    "shifts=[3] dims=- A=3 B=5", "shifts=[100] dims=[0] A=7 B=2"),
	RCL("repeat", FIB, "exact", 0, "repeats",
	    "self=[A,B] repeats=[2,3]",
	    "A=5 B=7", "repeats=[2,1,3] A=4 B=3", "repeats=[1,1] A=3 B=3",
	    "repeats=[0,2] A=3 B=4", "compile repeats=[1,V] A=2 B=3",
	    "huge repeats=[1,2] A=16385 B=65536"),
	RCL("tile", FIB, "exact", 0, "dims",
	    "self=[A,B] dims=[2,3]",
	    "A=5 B=7", "dims=[3] A=4 B=3", "dims=[2,1,2] A=3 B=3",
	    "compile dims=[1,V] A=2 B=3"),
	RC("hstack", FIB, EX, "exact", 0, "tensors={[A,B],[A,C]}",
	    "A=3 B=4 C=5", "tensors={[A],[B],[C]} A=3 B=1 C=7",
	    "tensors={[A,B],[A,0],[A,C]} A=2 B=3 C=1"),
	RC("vstack", FIB, EX, "exact", 0, "tensors={[A,C],[B,C]}",
	    "A=3 B=4 C=5", "tensors={[C],[C],[C]} A=1 B=1 C=7",
	    "tensors={[A,C],[0,C],[B,C]} A=2 B=3 C=1"),
	RC("diag", FIB, EX, "exact", 0, "self=[N] diagonal=0",
	    "N=7", "self=[A,B] A=5 B=7 N=1", "diagonal=2 N=4",
	    "diagonal=-1 self=[A,B] A=6 B=3 N=1"),
	RC("diag_embed", FIB, EX, "exact", 0, "self=[A,B] offset=1",
	    "A=3 B=5", "offset=-2 A=2 B=4", "contract offset=- dim1=0 dim2=2 A=3 B=4"),
	RC("tril", FIB, EX, "exact", 0, "self=[A,B] diagonal=0",
	    "A=5 B=7", "diagonal=2 A=6 B=4", "diagonal=-1 self=[C,A,B] A=3 B=3 C=2",
	    "contract diagonal=- A=9 B=9"),
	RC("triu", FIB, EX, "exact", 0, "self=[A,B] diagonal=0",
	    "A=5 B=7", "diagonal=2 A=6 B=4", "diagonal=-1 self=[C,A,B] A=3 B=3 C=2",
	    "contract diagonal=- A=9 B=9"),
	RC("diagonal_backward", F, 0, "exact", 0,
	    "grad_output=[C,M] input_sizes=[A,B,C] offset=0 dim1=0 dim2=1",
	    "A=4 B=6 C=3 M=4", "offset=1 grad_output=[C,M] A=4 B=6 C=3 M=4",
	    "dim1=2 dim2=0 offset=-1 grad_output=[B,M] A=5 B=2 C=3 M=2"),
	RC("select_backward", F, 0, "exact", 0,
	    "grad_output=[B,C] input_sizes=[A,B,C] dim=0 index=1",
	    "A=3 B=4 C=5", "dim=2 grad_output=[A,B] index=-1 A=3 B=4 C=5"),
	RC("slice_backward", F, 0, "exact", 0,
	    "grad_output=[A,4] input_sizes=[A,B] dim=1 start=1 end=9 step=2",
	    "A=3 B=10", "dim=0 grad_output=[2,B] start=0 end=2 step=1 A=5 B=3"),
	RC("unfold_backward", F, 0, "float", 0,
	    "grad_in=[A,(B-S)/T+1,S] input_sizes=[A,B] dim=1 size=S step=T",
	    "A=3 B=10 S=4 T=2", "A=2 B=9 S=3 T=3", "A=2 B=7 S=3 T=1"),
	RC("trace", FI, 0, "float", 0, "self=[A,B]", "A=5 B=7"),

	/* factories */
	RCL("arange", FI, "float", GF_NO_EDGE, "end", "end=N",
	    "N=10", "N=1000", "end=2.5 N=1", "N=0", "compile end=V N=1"),
	RC("arange.start", FI, 0, "float", GF_NO_EDGE, "start=2 end=N",
	    "N=10", "N=1000", "start=-3 end=4.5 N=1"),
	RC("arange.start_step", FI, 0, "float", GF_NO_EDGE,
	    "start=-3 end=N step=2", "N=10", "N=1000", "step=-1 start=5 end=-5 N=1",
	    "start=0 end=N step=3 N=100"),
	RCL("linspace", F, "float", GF_NO_EDGE, "steps",
	    "start=-2.5 end=4.0 steps=N", "N=10", "N=1", "N=1000", "N=0",
	    "compile steps=V N=1"),
	RCL("logspace", F, "float", GF_NO_EDGE, "steps",
	    "start=-2.0 end=2.0 steps=N base=2.0", "N=10", "N=1", "N=1000",
	    "contract defaults N=7", "compile steps=V N=1"),
	RCL("eye", FIB, "exact", GF_NO_EDGE, "n", "n=N", "N=5", "N=1", "N=0",
	    "N=100", "compile n=V N=1"),
	RC("eye.m", FIB, 0, "exact", GF_NO_EDGE, "n=N m=M", "N=5 M=7", "N=1 M=1",
	    "N=0 M=3", "N=100 M=3"),
	RCL("full", FIB, "exact", GF_NO_EDGE, "size", "size=[A,B] fill_value=3",
	    "A=5 B=7", "fill_value=-2.5 A=1 B=1031", "size=[] A=1 B=1",
	    "fill_value=T A=3 B=0", "contract dtype=- fill_value=1.5 A=2 B=3",
	    "compile size=[V,V] A=1 B=1"),
	RC("full_like", FIB, EX, "exact", GF_NO_EDGE, "self=[A,B] fill_value=3",
	    "A=5 B=7", "fill_value=-2.5 A=1 B=1031", "fill_value=T A=3 B=0",
	    "contract dtype=- A=2 B=3", "contract memory_format=pf self=[A,B]^t A=5 B=3"),
	RCL("ones", FIB, "exact", GF_NO_EDGE, "size", "size=[A,B]",
	    "A=5 B=7", "size=[] A=1 B=1", "A=3 B=0", "compile size=[V,V] A=1 B=1"),
	RCL("zeros", FIB, "exact", GF_NO_EDGE, "size", "size=[A,B]",
	    "A=5 B=7", "size=[] A=1 B=1", "A=3 B=0", "compile size=[V,V] A=1 B=1"),
	RC("ones_like", FIB, EX, "exact", GF_NO_EDGE, "self=[A,B]",
	    "A=5 B=7", "A=3 B=0", "contract dtype=- A=2 B=3",
	    "contract memory_format=pf self=[A,B]^t A=5 B=3"),
	RC("zeros_like", FIB, EX, "exact", GF_NO_EDGE, "self=[A,B]",
	    "A=5 B=7", "A=3 B=0", "contract dtype=- A=2 B=3",
	    "contract memory_format=pf self=[A,B]^t A=5 B=3"),

	/* random: samples, judged by statistics */
	RC("bernoulli.float", F, 0, "float", 0, "self=[512,256] p=0.3",
	    "random", "random p=0.9", "random self=[1024,1024] p=0.5"),
	RC("exponential", F, 0, "float", 0, "self=[512,256] lambd=2.0",
	    "random", "random lambd=0.5"),
	RC("uniform", F, 0, "float", 0, "self=[512,256] from=-2.0 to=3.0",
	    "random", "random from=0.0 to=1.0"),
	RC("normal", F, 0, "float", 0, "self=[512,256] mean=1.0 std=2.0",
	    "random", "random mean=-3.0 std=0.5"),
	RC("normal.Tensor_float", F, 0, "float", 0,
	    "mean=[512,256]:u std=2.0", "random", "random std=0.25"),
	RC("normal.Tensor_Tensor", F, 0, "float", 0,
	    "mean=[512,256]:u std=[512,256]:p", "random",
	    "random std=[256]:p"),
	RC("normal.float_Tensor", F, 0, "float", 0,
	    "mean=1.5 std=[512,256]:p", "random", "random mean=-2.0"),
	RC("multinomial", F, 0, "float", 0,
	    "self=[R,C]:p num_samples=S replacement=1",
	    "random R=64 C=32 S=2048", "random replacement=0 R=4096 C=64 S=32",
	    "random self=[C]:p R=1 C=1000 S=131072"),
	RC("native_dropout", F, 0, "float", 0, "input=[512,256] p=0.3 train=1",
	    "random", "random p=0.9", "random train=~"),
	RC("rand", F, 0, "float", 0, "size=[512,256]", "random",
	    "random size=[131072]"),
	RC("randn", F, 0, "float", 0, "size=[512,256]", "random",
	    "random size=[131072]"),
	RC("rand_like", F, 0, "float", 0, "self=[512,256]", "random",
	    "random self=[512,256]^t"),
	RC("randn_like", F, 0, "float", 0, "self=[512,256]", "random",
	    "random self=[512,256]^t"),
	RC("randperm", DT_I64 | DT_I32 | DT_F32, 0, "float", 0, "n=N",
	    "random N=131072", "random N=200000"),
	RC("native_dropout_backward", F, 0, "float", 0,
	    "grad_output=[A,B] mask=[A,B]:b@bool scale=1.5",
	    "A=5 B=33", "A=1 B=1031", "scale=1.0 A=0 B=3"),

	/* odds and ends */
	RC("_assert_async", FIB, 0, "shape_only", GF_NO_NONCONTIG | GF_NO_EDGE,
	    "self=[]:p", "", "self=[1]:p"),
	RC("_functional_sym_constrain_range_for_size", DT_F32, 0, "shape_only",
	    GF_NO_NONCONTIG | GF_NO_EDGE, "size=4 min=0 max=8 dep_token=[]",
	    "", "min=~ max=~"),
	RC("_flash_attention_forward", DT_F16 | DT_BF16, 0, "float",
	    GF_CUDA_ONLY | GF_NO_NONCONTIG,
	    "query=[B,L,H,D] key=[B,S,H,D] value=[B,S,H,D] cum_seq_q=~ "
	    "cum_seq_k=~ max_q=L max_k=S dropout_p=0.0 is_causal=0 "
	    "return_debug_mask=0",
	    "B=2 L=64 S=64 H=4 D=64", "is_causal=1 B=1 L=128 S=128 H=2 D=128",
	    "B=2 L=17 S=33 H=3 D=32", "scale=0.5 B=1 L=64 S=64 H=2 D=64"),
};

const size_t gen_table_n = sizeof(gen_table) / sizeof(gen_table[0]);
