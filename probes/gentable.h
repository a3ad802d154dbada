/*
 * The constraint / value-domain table of the schema-driven generator
 * (table.c, data only; generic.c reads it).  An entry describes the inputs
 * of one op or op family, never its expected outcome.
 *
 * Matching: the key itself ("div_.Tensor_mode"), then the schema's base
 * name with the overload ("div.Tensor_mode"), then the schema name
 * ("div_"), then the base name ("div"): a trailing '_' is the in-place
 * form of the same op.
 *
 * Argument specs ("args" and the points) are "name=spec" words; how a spec
 * reads depends on the argument's schema type:
 *
 *   any        ~ None     - not passed (later arguments go by keyword)
 *   Tensor     [e,...] shape (absent: the kind's generated operand shape)
 *              :D domain  n normal, u [-4,4), w [-10,10), p [0.5,2),
 *                         z nonzero, s small ints [-3,3), t {-1,0,1},
 *                         a (-0.95,0.95), q (0.05,0.95), o [0.9,1.1),
 *                         h [-0.1,0.1) (small weights), d doubly
 *                         stochastic (last two dims), e edge values, b bool,
 *                         r arange, i(e) index [0,e), k(e,e) ints [lo,hi)
 *                         D! keeps D in the edge_values class (scales:
 *                         a NaN, infinite or zero quantisation scale is
 *                         the quantiser's fault, not the kernel's, and
 *                         with one the order in which a kernel applies
 *                         it decides where NaN and inf fall)
 *              @T dtype   same f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool
 *              ^L layout  t transposed, s sliced, c channels_last,
 *                         x[e,...] expanded from that base
 *   Tensor[]   {spec,spec,...} (elements may be ~ for Tensor?[])
 *   out=       a Tensor spec with a shape: the out= buffer
 *   int        e        int[]  [e,...]     float  number
 *   bool       1 | 0    str    'text'     Scalar number (int unless it
 *              has '.' or 'e'), T/F, or :D (a value in that domain)
 *   ScalarType T (as above)    MemoryFormat cf | pf | cl     Device dev
 *
 * e is an integer expression over + - * / ( ) and the point's variables
 * (upper-case words, bound in the point as VAR=e).  A point is one case:
 * optional words first (a probe class name; "kw": every defaulted argument
 * that is passed goes by keyword), then VAR=e bindings and name=spec
 * overrides of the entry's args.
 */
#ifndef OPSCREEN_GENTABLE_H
#define OPSCREEN_GENTABLE_H

enum gen_kind {
	GK_POINTWISE,	/* elementwise over broadcastable tensor operands */
	GK_REDUCE,	/* reductions: dim / keepdim / dtype from the schema */
	GK_DIMWISE,	/* softmax and scans: same-shape tensors, one int dim */
	GK_RECIPE,	/* the entry's points only */
	GK_NONE		/* known, deliberately without cases: why says why */
};

/* gen_entry.flags */
#define GF_RET_BOOL	(1u << 0)	/* output is bool (out= buffers) */
#define GF_RET_LONG	(1u << 1)	/* output is int64 */
#define GF_RET_FLOAT	(1u << 2)	/* integer inputs give a float output */
#define GF_NO_EDGE	(1u << 3)	/* no edge_values class */
#define GF_NO_EMPTY	(1u << 4)	/* empty inputs are an error (or a crash) in aten */
#define GF_NO_0D	(1u << 5)	/* 0-d inputs are an error in aten */
#define GF_INT_SCALAR	(1u << 6)	/* Scalar operands integer/bool only */
#define GF_NO_BCAST	(1u << 7)	/* operands must have equal shapes */
#define GF_NO_ACCUM	(1u << 8)	/* no accumulation class */
#define GF_NO_PROMOTE	(1u << 9)	/* operands must share one dtype */
#define GF_NO_NONCONTIG	(1u << 10)	/* no automatic noncontig cases */
#define GF_CUDA_ONLY	(1u << 11)	/* aten has no CPU kernel */
#define GF_INT_WIDEN	(1u << 12)	/* integer inputs give an int64 output */
#define GF_NO_OPTIONS	(1u << 13)	/* no automatic options class: the
					   arguments fix each other (its
					   "options" points only) */

#define GEN_MAXPOINTS	12

struct gen_entry {
	const char	*match;
	enum gen_kind	 kind;
	unsigned	 dtypes;	/* DT_ bits of the ordinary classes */
	unsigned	 exotic;	/* extra DT_ bits for dtype_exotic */
	const char	*compare;
	unsigned	 flags;
	const char	*args;		/* name=spec words, NULL: none */
	const char	*points[GEN_MAXPOINTS];
	const char	*ladder;	/* compile ladder over this arg (var V) */
	const char	*why;		/* GK_NONE: the reason */
};

/* table.c */
extern const struct gen_entry	gen_table[];
extern const size_t		gen_table_n;

#endif
