/*
 * probes/: probe classes, the catalog of screened aten keys, dtypes, and the
 * generators that turn a (key, class, dtype) into concrete CASE objects
 * (docs/protocol.md); the daemon calls probe_expand() and seed_reseed().
 * Everything here is pure data generation: no I/O, no global state.
 */
#ifndef OPSCREEN_PROBES_H
#define OPSCREEN_PROBES_H

#include <stddef.h>
#include <jansson.h>

enum probe_class {
	PROBE_SAME_SHAPE = 1 << 0,
	PROBE_BROADCAST = 1 << 1,
	PROBE_SCALAR = 1 << 2,
	PROBE_REDUCTION = 1 << 3,
	PROBE_CONTRACT = 1 << 4,
	PROBE_NONCONTIG = 1 << 5,
	PROBE_ACCUMULATION = 1 << 6,
	PROBE_DTYPE_EXOTIC = 1 << 7,
	PROBE_EDGE_VALUES = 1 << 8,
	PROBE_COMPILE = 1 << 9,
	PROBE_BOOTSTRAP = 1 << 10,
	PROBE_RANDOM = 1 << 11,
	PROBE_VIEWS = 1 << 12,		/* in-place / out= on views with gaps */
	PROBE_EMPTY = 1 << 13,		/* zero-size dims, empty index tensors */
	PROBE_OPTIONS = 1 << 14,	/* every optional argument set explicitly */
	PROBE_TRACE = 1 << 15,		/* under torch.compile(fullgraph=True) */
	PROBE_GRAPH = 1 << 16		/* captured in a CUDA graph, replayed */
};
#define PROBE_NCLASSES	17
/* the classes the hand-written catalog families sweep themselves */
#define PROBE_CATALOG	(PROBE_SAME_SHAPE | PROBE_BROADCAST | PROBE_SCALAR | \
			 PROBE_REDUCTION | PROBE_CONTRACT)
#define PROBE_ALL	((1u << PROBE_NCLASSES) - 1)
/*
 * The deployment modes' classes (modes.c): a screen runs them when
 * runner.modes (or a run's classes) asks; the others are the eager screen.
 */
#define PROBE_MODES	(PROBE_TRACE | PROBE_GRAPH)
#define PROBE_EAGER	(PROBE_ALL & ~PROBE_MODES)
/*
 * the classes the mode cases are derived from (probes/modes.c): those whose
 * cases stand for the op as an engine calls it, and dtype_exotic's, the only
 * cases of the dtypes beyond the key's usual ones (fp8, e8m0, complex, int8):
 * without them such a dtype had no mode verdict, and its name no place in a
 * mode's list (FlagGems 5.0.2's _to_copy, resolve_conj and resolve_neg on an
 * H200, 2026-12-05), nor did the screen say whether the compiler takes it
 */
#define PROBE_MODES_SOURCES	(PROBE_SAME_SHAPE | PROBE_REDUCTION | \
				 PROBE_CONTRACT | PROBE_DTYPE_EXOTIC)

/* How the sweep builds arguments for a key. */
enum catalog_family {
	FAM_UNARY,		/* op(self) */
	FAM_BINARY,		/* op(self, other) on tensors */
	FAM_BINARY_SCALAR,	/* op(self, Scalar) */
	FAM_CLAMP,
	FAM_WHERE,
	FAM_MASKED_FILL,
	FAM_REDUCE,		/* full reduction: sum, mean */
	FAM_REDUCE_DIM,		/* sum.dim_IntList, mean.dim, amax */
	FAM_SCAN,		/* cumsum */
	FAM_SOFTMAX,
	FAM_SORT,
	FAM_TOPK,
	FAM_MM,
	FAM_BMM,
	FAM_ADDMM,
	FAM_RMS_NORM,
	FAM_LAYER_NORM,
	FAM_NATIVE_LAYER_NORM,	/* every argument positional, optional = None */
	FAM_GATHER,
	FAM_INDEX_SELECT,
	FAM_CAT,
	FAM_STACK,
	FAM_NONZERO,
	FAM_BINCOUNT,
	FAM_REPEAT_INTERLEAVE,
	FAM_ADD_RMS_NORM,	/* fused::fused_add_rms_norm(x, residual, shape, w, eps);
				 * with CAT_BIAS skip_layer_norm's (..., w, b, eps) */
	FAM_MOE_SUM,		/* fused::moe_sum(input [T, K, H], output [T, H]) */
	FAM_TOPK_SOFTMAX,	/* fused::topk_softmax(gating [T, E], k, renormalize) */
	FAM_ROTARY		/* fused::apply_rotary_pos_emb(q, k, cos, sin, pos) */
};

/*
 * Value domains by meaning; case_domain() (case.c) maps them to the
 * protocol's domain fields for the tensor's dtype (an integer tensor never
 * gets "normal").  The values are the letters of the schema table's domain
 * codes (gentable.h), so one mapping serves both generators.
 */
enum catalog_domain {
	DOM_NORMAL = 'n',
	DOM_UNIFORM = 'u',	/* [-4, 4): exp and friends stay finite in fp16 */
	DOM_WIDE = 'w',		/* [-10, 10): remainder dividends */
	DOM_POSITIVE = 'p',	/* sqrt, rsqrt, pow bases */
	DOM_NONZERO = 'z',	/* divisors */
	DOM_SMALLINT = 's',	/* integers in [-3, 3): ties and equalities */
	DOM_TRI = 't'		/* -1, 0, 1: zeros for nonzero() */
};

/* dtype bits, in the order catalog_dtypes() reports them */
#define DT_F32		(1u << 0)
#define DT_F16		(1u << 1)
#define DT_BF16		(1u << 2)
#define DT_F64		(1u << 3)
#define DT_I64		(1u << 4)
#define DT_I32		(1u << 5)
#define DT_I16		(1u << 6)
#define DT_I8		(1u << 7)
#define DT_U8		(1u << 8)
#define DT_BOOL		(1u << 9)
#define DT_F8E4M3	(1u << 10)	/* float8_e4m3fn */
#define DT_F8E5M2	(1u << 11)	/* float8_e5m2 */
#define DT_E8M0		(1u << 12)	/* float8_e8m0fnu */
#define DT_C64		(1u << 13)	/* complex64 */
#define DT_LAST		DT_C64
#define DT_EXOTIC	(DT_F8E4M3 | DT_F8E5M2 | DT_E8M0 | DT_C64)
#define DT_FLOATS	(DT_F32 | DT_F16 | DT_BF16)
#define DT_INTS		(DT_I32 | DT_I64)

/* catalog_entry.flags */
#define CAT_ALPHA	(1u << 0)	/* takes alpha= (add, sub) */
#define CAT_DIVISOR	(1u << 1)	/* second operand must be nonzero */
#define CAT_POW		(1u << 2)	/* Scalar is an exponent */
#define CAT_BITWISE	(1u << 3)	/* integer/bool scalars only */
#define CAT_DTYPE_KW	(1u << 4)	/* takes dtype= */
#define CAT_DIM_NONE	(1u << 5)	/* dim is int[1]? : None is legal */
#define CAT_STABLE	(1u << 6)	/* sort.stable: stable= is required */
#define CAT_GELU	(1u << 7)	/* approximate= */
#define CAT_ENGINE	(1u << 8)	/* also at engines' decode and prefill sizes */
#define CAT_BIAS	(1u << 9)	/* a norm that takes a bias after its weight */

struct catalog_entry {
	const char		*key;
	const char		*schema;
	enum catalog_family	 family;
	unsigned		 dtypes;
	enum catalog_domain	 dom[3];	/* per tensor operand */
	const char		*compare;
	unsigned		 flags;
};

/* probe.c */
int		 probe_supported(const char *, const char *, const char **);
int		 probe_expand(const char *, const char *, unsigned, const json_t *,
		    json_t *);

/* views.c */
int		 views_derive(const json_t *, json_t *);

/* modes.c */
int		 modes_derive(const json_t *, unsigned, json_t *);

/* probe_class.c */
const char	*probe_class_name(enum probe_class);
int		 probe_class_parse(const char *);

/* catalog.c */
int		 catalog_has(const char *);
size_t		 catalog_count(void);
const char	*catalog_key(size_t);
const struct catalog_entry *catalog_find(const char *);
json_t		*catalog_dtypes(const char *);

/* dtype.c */
unsigned	 dtype_bit(const char *);
int		 dtype_valid(const char *);
const char	*dtype_name(unsigned);
int		 dtype_is_float(const char *);
int		 dtype_is_floating(const char *);
int		 dtype_is_complex(const char *);
int		 dtype_wanted(const json_t *, const char *);
const char	*dtype_same_kind(const char *);
const char	*dtype_other_kind(const char *, int);

/* sweep.c */
unsigned	 sweep_classes(const char *);
int		 sweep_expand(const char *, unsigned, const json_t *, json_t *);

/* seed.c */
unsigned	 seed_case(const char *, const char *, const char *, int);
json_t		*seed_reseed(const json_t *, int);

/* shrink.c */
int		 shrink_sizes(const json_t *, long long *, int);
json_t		*shrink_next(const json_t *, int);
long long	 shrink_weight(const json_t *);

#endif
