/*
 * The device build of libopscreen_kernels: the functions of osk.h as CUDA
 * kernels on device addresses, launched on the caller's stream, on the
 * element code of osk_core.h.  Reductions of the comparison go through
 * block partials in a caller-supplied scratch of osk_scratch_bytes(), so
 * the extra device memory is fixed whatever the tensor size.  The matmul
 * family uses cuBLAS DGEMM through one handle per device (the only global
 * mutable state).
 */
#include <pthread.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "osk_core.h"
#include "osk_common.h"

#define NT	256	/* threads of a block */
#define UNROLL	4	/* elements per thread per grid step */
#define PARTW	64	/* compare partials reduced in shared memory */
#define MAXDEV	64

struct args3 {
	struct osk_tensor t[3];
};

struct par4 {
	double v[4];
};

struct scratch {
	struct osk_cpart	parts[OSK_MAXBLOCKS];
	double			omax[OSK_MAXBLOCKS];
	double			rpart[OSK_MAXBLOCKS];	/* R (fast path) */
	struct osk_figures	res;
	uint64_t		digest;
};

static_assert(sizeof(struct scratch) <= 512 * (OSK_MAXBLOCKS + 2),
    "osk_scratch_bytes() too small");

static int
grid_for(int64_t n, int unroll)
{
	int64_t g = (n + (int64_t)NT * unroll - 1) / ((int64_t)NT * unroll);

	if (g < 1)
		g = 1;
	return g > OSK_MAXBLOCKS ? OSK_MAXBLOCKS : (int)g;
}

static int
rows_grid(int64_t rows)
{
	return rows < 65535 * 16 ? (int)(rows > 0 ? rows : 1) : 65535 * 16;
}

static int
launched(void)
{
	return cudaGetLastError() == cudaSuccess ? OSK_OK : OSK_ECUDA;
}

__device__ static int64_t
at(const struct osk_tensor &t, int contig, int64_t i)
{
	return contig ? i : osk_off(&t, i);
}

extern "C" int
osk_is_device(void)
{
	return 1;
}

/* ---- generation ----------------------------------------------------------- */

__global__ static void
k_generate(struct osk_tensor out, int contig, struct osk_genspec g,
    uint64_t key, int64_t n)
{
	int64_t i;

	for (i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	    i += (int64_t)gridDim.x * blockDim.x)
		osk_putbits(&out, at(out, contig, i),
		    osk_gen_bits(i, out.dtype, &g, key));
}

extern "C" int
osk_generate(const struct osk_tensor *out, const struct osk_genspec *g,
    uint64_t seed, uint64_t index, void *stream)
{
	int64_t n;

	if (osk_check(out) || g == NULL || g->domain < 0 ||
	    g->domain >= OSK_NDOMAIN)
		return OSK_EINVAL;
	if ((n = osk_numel(out)) == 0)
		return OSK_OK;
	k_generate<<<grid_for(n, 1), NT, 0, (cudaStream_t)stream>>>(*out,
	    osk_contiguous(out), *g, osk_gen_key(seed, index), n);
	return launched();
}

__global__ static void
k_exhaustive16(struct osk_tensor out)
{
	int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;

	if (i < 65536)
		osk_putbits(&out, osk_off(&out, i), (uint64_t)i);
}

extern "C" int
osk_exhaustive16(const struct osk_tensor *out, void *stream)
{
	if (osk_check(out) || osk_size(out->dtype) != 2 ||
	    osk_numel(out) != 65536)
		return OSK_EINVAL;
	k_exhaustive16<<<65536 / NT, NT, 0, (cudaStream_t)stream>>>(*out);
	return launched();
}

/* ---- digest ------------------------------------------------------------------- */

__global__ static void
k_digest(struct osk_tensor t, int contig, int64_t n, unsigned long long *sum)
{
	uint64_t s = 0;
	int64_t i;

	for (i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	    i += (int64_t)gridDim.x * blockDim.x)
		s += osk_digest_term(i, osk_rawbits(&t, at(t, contig, i)));
	atomicAdd(sum, (unsigned long long)s);
}

extern "C" int
osk_digest(const struct osk_tensor *t, uint64_t *res, void *scratch,
    void *stream)
{
	struct scratch *sc = (struct scratch *)scratch;
	cudaStream_t s = (cudaStream_t)stream;
	uint64_t sum = 0;
	int64_t n;

	if (osk_check(t) || res == NULL || scratch == NULL)
		return OSK_EINVAL;
	n = osk_numel(t);
	if (cudaMemsetAsync(&sc->digest, 0, sizeof(sc->digest), s) !=
	    cudaSuccess)
		return OSK_ECUDA;
	if (n > 0)
		k_digest<<<grid_for(n, 1), NT, 0, s>>>(*t, osk_contiguous(t),
		    n, (unsigned long long *)&sc->digest);
	if (cudaMemcpyAsync(&sum, &sc->digest, sizeof(sum),
	    cudaMemcpyDeviceToHost, s) != cudaSuccess ||
	    cudaStreamSynchronize(s) != cudaSuccess)
		return OSK_ECUDA;
	*res = osk_digest_final(sum, n, t->dtype);
	return launched();
}

/* ---- pointwise ------------------------------------------------------------------ */

__global__ static void
k_pointwise(int op, int narg, struct args3 in, struct osk_tensor out,
    struct par4 p, int64_t n)
{
	int64_t i, off[3];
	int k;

	for (i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	    i += (int64_t)gridDim.x * blockDim.x) {
		for (k = 0; k < narg; k++)
			off[k] = osk_off(&in.t[k], i);
		osk_pointwise_at(op, narg, in.t, off, &out, osk_off(&out, i),
		    p.v);
	}
}

extern "C" int
osk_pointwise(int op, int narg, const struct osk_tensor *in,
    const struct osk_tensor *out, const double *param, void *stream)
{
	struct args3 a;
	struct par4 p;
	int64_t n;
	int e, k;

	if ((e = osk_check_pointwise(op, narg, in, out, param, p.v)) != 0)
		return e;
	memset(&a, 0, sizeof(a));
	for (k = 0; k < narg; k++)
		a.t[k] = in[k];
	if ((n = osk_numel(out)) == 0)
		return OSK_OK;
	k_pointwise<<<grid_for(n, 1), NT, 0, (cudaStream_t)stream>>>(op, narg,
	    a, *out, p, n);
	return launched();
}

/* ---- row reductions: one block per row ------------------------------------------ */

__device__ static struct osk_racc
block_sweep(int sw, const struct osk_tensor &in, int64_t r, int64_t len,
    double shift, double pw, struct osk_racc *sh)
{
	struct osk_racc a = osk_racc_init(sw);
	int64_t j;
	int s;

	for (j = threadIdx.x; j < len; j += blockDim.x)
		osk_racc_add(sw, &a, osk_load(&in, osk_off(&in, r * len + j)),
		    j, shift, pw);
	sh[threadIdx.x] = a;
	__syncthreads();
	for (s = blockDim.x / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			osk_racc_merge(sw, &sh[threadIdx.x],
			    &sh[threadIdx.x + s]);
		__syncthreads();
	}
	a = sh[0];
	__syncthreads();
	return a;
}

__global__ static void
k_reduce(int op, struct osk_tensor in, struct osk_tensor out, int64_t rows,
    int64_t len, struct par4 p)
{
	__shared__ struct osk_racc sh[NT];
	struct osk_racc a1, a2;
	int64_t r;
	int sw2 = osk_plan2(op);

	for (r = blockIdx.x; r < rows; r += gridDim.x) {
		a1 = block_sweep(osk_plan1(op, p.v[0]), in, r, len, 0, p.v[0],
		    sh);
		a2 = a1;
		if (sw2 >= 0)
			a2 = block_sweep(sw2, in, r, len,
			    osk_plan_shift(op, &a1, len), p.v[0], sh);
		if (threadIdx.x == 0)
			osk_store(&out, osk_off(&out, r),
			    osk_plan_finish(op, &a1, &a2, len, p.v));
	}
}

extern "C" int
osk_reduce(int op, const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const double *param, void *stream)
{
	struct par4 p;
	int64_t rows, len;
	int e;

	if ((e = osk_check_reduce(op, in, nred, out, param, p.v, &rows,
	    &len)) != 0)
		return e;
	if (rows == 0)
		return OSK_OK;
	k_reduce<<<rows_grid(rows), NT, 0, (cudaStream_t)stream>>>(op, *in,
	    *out, rows, len, p);
	return launched();
}

__global__ static void
k_softmax(int op, struct osk_tensor in, struct osk_tensor out, int64_t rows,
    int64_t len)
{
	__shared__ struct osk_racc sh[NT];
	struct osk_racc a, s;
	double shift;
	int64_t r, j, i;

	for (r = blockIdx.x; r < rows; r += gridDim.x) {
		a = block_sweep(OSK_SW_MAX, in, r, len, 0, 0, sh);
		shift = osk_plan_shift(op, &a, len);
		s = block_sweep(OSK_SW_SUMEXP, in, r, len, shift, 0, sh);
		for (j = threadIdx.x; j < len; j += blockDim.x) {
			i = r * len + j;
			osk_store(&out, osk_off(&out, i), osk_softmax_at(op,
			    osk_load(&in, osk_off(&in, i)), shift,
			    osk_nsum_value(&s)));
		}
	}
}

/* Scans: one thread per row, sequential like the host. */
__global__ static void
k_scan(int op, struct osk_tensor in, struct osk_tensor out,
    struct osk_tensor out2, int has2, int64_t rows, int64_t len)
{
	struct osk_racc a;
	int64_t r, j, i;

	for (r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
	    r += (int64_t)gridDim.x * blockDim.x) {
		a = osk_racc_init(OSK_SW_SUM);
		for (j = 0; j < len; j++) {
			i = r * len + j;
			osk_store(&out, osk_off(&out, i), osk_scan_step(op, &a,
			    osk_load(&in, osk_off(&in, i)), j));
			if (has2)
				osk_putbits(&out2, osk_off(&out2, i),
				    osk_ibits(a.idx, out2.dtype));
		}
	}
}

extern "C" int
osk_rowwise(int op, const struct osk_tensor *in, const struct osk_tensor *out,
    const struct osk_tensor *out2, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	struct osk_tensor none;
	int64_t rows, len;
	int e;

	if ((e = osk_check_rowwise(op, in, out, out2, &rows, &len)) != 0)
		return e;
	if (rows == 0 || len == 0)
		return OSK_OK;
	if (op == OSK_SOFTMAX || op == OSK_LOG_SOFTMAX) {
		k_softmax<<<rows_grid(rows), NT, 0, s>>>(op, *in, *out, rows,
		    len);
		return launched();
	}
	memset(&none, 0, sizeof(none));
	k_scan<<<grid_for(rows, 1), NT, 0, s>>>(op, *in, *out,
	    out2 != NULL ? *out2 : none, out2 != NULL, rows, len);
	return launched();
}

__global__ static void
k_normalize(struct osk_tensor in, struct osk_tensor out,
    struct osk_tensor mean, struct osk_tensor rstd, int flags, double eps,
    int rms, int64_t rows, int64_t len)
{
	__shared__ struct osk_racc sh[NT];
	struct osk_racc a;
	double mu, rs;
	int64_t r, j, i;

	for (r = blockIdx.x; r < rows; r += gridDim.x) {
		mu = 0;
		if (rms) {
			a = block_sweep(OSK_SW_SUMSQ, in, r, len, 0, 0, sh);
		} else {
			a = block_sweep(OSK_SW_SUM, in, r, len, 0, 0, sh);
			mu = osk_nsum_value(&a) / (double)len;
			a = block_sweep(OSK_SW_SUMSQDEV, in, r, len, mu, 0, sh);
		}
		rs = 1.0 / sqrt(osk_nsum_value(&a) / (double)len + eps);
		for (j = threadIdx.x; j < len; j += blockDim.x) {
			i = r * len + j;
			osk_store(&out, osk_off(&out, i),
			    (osk_load(&in, osk_off(&in, i)) - mu) * rs);
		}
		if (threadIdx.x == 0 && (flags & 1))
			osk_store(&mean, osk_off(&mean, r), mu);
		if (threadIdx.x == 0 && (flags & 2))
			osk_store(&rstd, osk_off(&rstd, r), rs);
	}
}

extern "C" int
osk_normalize(const struct osk_tensor *in, int nred,
    const struct osk_tensor *out, const struct osk_tensor *mean,
    const struct osk_tensor *rstd, double eps, int rms, void *stream)
{
	struct osk_tensor none;
	int64_t rows, len;
	int e;

	if ((e = osk_check_normalize(in, nred, out, mean, rstd, &rows,
	    &len)) != 0)
		return e;
	if (rows == 0)
		return OSK_OK;
	memset(&none, 0, sizeof(none));
	k_normalize<<<rows_grid(rows), NT, 0, (cudaStream_t)stream>>>(*in,
	    *out, mean ? *mean : none, rstd ? *rstd : none,
	    (mean != NULL) | (rstd != NULL) << 1, eps, rms, rows, len);
	return launched();
}

/* ---- gather ------------------------------------------------------------------------ */

__global__ static void
k_gather(struct osk_tensor in, int dim, struct osk_tensor idx,
    struct osk_tensor out, int64_t n)
{
	int64_t i;

	for (i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	    i += (int64_t)gridDim.x * blockDim.x)
		osk_gather_at(&in, dim, &idx, &out, i);
}

extern "C" int
osk_gather(const struct osk_tensor *in, int dim, const struct osk_tensor *idx,
    const struct osk_tensor *out, void *stream)
{
	int64_t n;
	int e;

	if ((e = osk_check_gather(in, dim, idx, out)) != 0)
		return e;
	if ((n = osk_numel(out)) == 0)
		return OSK_OK;
	k_gather<<<grid_for(n, 1), NT, 0, (cudaStream_t)stream>>>(*in, dim,
	    *idx, *out, n);
	return launched();
}

/* ---- cuBLAS DGEMM ---------------------------------------------------------------- */

static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasHandle_t handles[MAXDEV];

static cublasHandle_t
handle_for_device(void)
{
	cublasHandle_t h = NULL;
	int dev;

	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= MAXDEV)
		return NULL;
	pthread_mutex_lock(&handle_lock);
	if (handles[dev] == NULL && cublasCreate(&handles[dev]) !=
	    CUBLAS_STATUS_SUCCESS)
		handles[dev] = NULL;
	h = handles[dev];
	pthread_mutex_unlock(&handle_lock);
	return h;
}

/*
 * Row-major C[z] = A[z] (m x k) B[z] (k x n), contiguous, batch strides sa,
 * sb (0 broadcasts).  In column-major terms C^T = B^T A^T.
 */
extern "C" int
osk_dgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const double *a,
    int64_t sa, const double *b, int64_t sb, double *c, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	const double one = 1.0, zero = 0.0;
	cublasHandle_t h;
	cublasStatus_t st;

	if (batch < 0 || m < 0 || n < 0 || k < 0)
		return OSK_EINVAL;
	if (batch == 0 || m == 0 || n == 0)
		return OSK_OK;
	if (a == NULL || b == NULL || c == NULL)
		return OSK_EINVAL;
	if (k == 0)
		return cudaMemsetAsync(c, 0, sizeof(double) * batch * m * n,
		    s) == cudaSuccess ? OSK_OK : OSK_ECUDA;
	if ((h = handle_for_device()) == NULL)
		return OSK_ECUBLAS;
	pthread_mutex_lock(&handle_lock);
	st = cublasSetStream(h, s);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = cublasDgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_N,
		    n, m, k, &one, b, n, sb, a, k, sa, &zero, c, n, m * n,
		    batch);
	pthread_mutex_unlock(&handle_lock);
	return st == CUBLAS_STATUS_SUCCESS ? OSK_OK : OSK_ECUBLAS;
}

/* ---- fused comparison ----------------------------------------------------------------- */

/* Merges every thread's partial into sh[0] (PARTW slots, NT threads). */
__device__ static void
block_merge_parts(struct osk_cpart *mine, struct osk_cpart *sh)
{
	int t = threadIdx.x, k, s;

	if (t < PARTW)
		sh[t] = *mine;
	__syncthreads();
	for (k = 1; k < (int)blockDim.x / PARTW; k++) {
		if (t / PARTW == k)
			osk_cpart_merge(&sh[t % PARTW], mine);
		__syncthreads();
	}
	for (s = PARTW / 2; s > 0; s >>= 1) {
		if (t < s)
			osk_cpart_merge(&sh[t], &sh[t + s]);
		__syncthreads();
	}
}

/* Max over a block of every thread's m, in thread 0's return value. */
__device__ static double
block_max(double m, double *sh)
{
	int s;

	sh[threadIdx.x] = m;
	__syncthreads();
	for (s = NT / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s && sh[threadIdx.x + s] > sh[threadIdx.x])
			sh[threadIdx.x] = sh[threadIdx.x + s];
		__syncthreads();
	}
	m = sh[0];
	__syncthreads();
	return m;
}

/*
 * First pass: max|O| over finite O and, for fast dtype rdt (>= 0), R; one
 * partial of each per block.
 */
__global__ static void
k_omax(struct osk_tensor o, int contig, int64_t n, int rdt, double *part,
    double *rpart)
{
	__shared__ double sh[NT];
	int64_t base, i;
	double m = 0, r = 0;
	int u;

	for (base = blockIdx.x * (int64_t)NT * UNROLL + threadIdx.x; base < n;
	    base += (int64_t)gridDim.x * NT * UNROLL) {
#pragma unroll
		for (u = 0; u < UNROLL; u++) {
			i = base + (int64_t)u * NT;
			if (i < n)
				osk_opass(&m, &r, osk_load(&o, at(o, contig, i)),
				    rdt);
		}
	}
	m = block_max(m, sh);
	r = block_max(r, sh);
	if (threadIdx.x == 0) {
		part[blockIdx.x] = m;
		rpart[blockIdx.x] = r;
	}
}

/* The same over a contiguous float64 O at a 16-byte aligned address. */
template <int DT>
__global__ static void __launch_bounds__(NT)
k_omax_vec(const double2 *__restrict__ o, int64_t n, double *part,
    double *rpart)
{
	__shared__ double sh[NT];
	int64_t i, np = n / 2, half = (int64_t)gridDim.x * NT;
	double m = 0, r = 0;
	double2 a, b;

	for (i = blockIdx.x * (int64_t)NT + threadIdx.x; i < np;
	    i += 2 * half) {
		a = __ldcs(o + i);
		if (i + half < np) {
			b = __ldcs(o + i + half);
			osk_opass(&m, &r, b.x, DT);
			osk_opass(&m, &r, b.y, DT);
		}
		osk_opass(&m, &r, a.x, DT);
		osk_opass(&m, &r, a.y, DT);
	}
	if (blockIdx.x == 0 && threadIdx.x == 0 && (n & 1))
		osk_opass(&m, &r, ((const double *)o)[n - 1], DT);
	m = block_max(m, sh);
	r = block_max(r, sh);
	if (threadIdx.x == 0) {
		part[blockIdx.x] = m;
		rpart[blockIdx.x] = r;
	}
}

/* The maximum of the first pass's partials, in every thread of the block. */
__device__ static double
parts_max(const double *part, int nparts, double *sh)
{
	double m = 0;
	int u;

	for (u = threadIdx.x; u < nparts; u += NT)
		if (part[u] > m)
			m = part[u];
	return block_max(m, sh);
}

struct contig3 {
	int c, n, o;
};

/* ALL: every tensor contiguous (the common case: no index arithmetic). */
template <int ALL>
__global__ static void
k_cmp_float(struct osk_tensor c, struct osk_tensor n, struct osk_tensor o,
    struct contig3 cg, int64_t cnt, int dt, struct osk_tol tol, int dig,
    struct scratch *sc, int nparts)
{
	__shared__ struct osk_cpart sh[PARTW];
	__shared__ double dsh[NT];
	struct osk_cpart mine;
	int64_t base, i;
	double omax = parts_max(sc->omax, nparts, dsh);
	int u;

	osk_cpart_init(&mine);
	mine.omax = omax;
	for (base = blockIdx.x * (int64_t)NT * UNROLL + threadIdx.x; base < cnt;
	    base += (int64_t)gridDim.x * NT * UNROLL) {
#pragma unroll
		for (u = 0; u < UNROLL; u++) {
			i = base + (int64_t)u * NT;
			if (i < cnt)
				osk_compare_float_at(&mine, &c, &n, &o,
				    ALL ? i : at(c, cg.c, i),
				    ALL ? i : at(n, cg.n, i),
				    ALL ? i : at(o, cg.o, i), i, dt, omax, &tol,
				    dig);
		}
	}
	block_merge_parts(&mine, sh);
	if (threadIdx.x == 0)
		sc->parts[blockIdx.x] = sh[0];
}

/*
 * The fast path: D = DT a template parameter, so the dtype dispatch folds
 * away; DIG: the digests; TOL: a tolerance is set.  Each thread takes one
 * group of 16 bytes of C and of N (G elements) and the G float64 of O per
 * grid step, in increasing index order (osk_fast_side needs it); the last
 * cnt % G elements go to thread 0 of block 0 after its groups.  A group
 * whose every position is plain (osk_fast_plain: the usual case) takes
 * osk_compare_plain_at, any other osk_compare_fast_at.
 */
template <int DT>
struct fast_dt {
	static constexpr int SZ = DT == OSK_F64 ? 8 : DT == OSK_F32 ? 4 : 2;
	static constexpr int G = 16 / SZ;
	/* exponent field of the element format */
	static constexpr uint32_t EXP = DT == OSK_F64 ? 0x7ff00000u :
	    DT == OSK_F32 ? 0x7f800000u : DT == OSK_F16 ? 0x7c00u : 0x7f80u;
};

/* Bits of element j of a 16-byte group of SZ-byte elements. */
template <int SZ>
__device__ __forceinline__ static uint64_t
lane(const uint4 &v, int j)
{
	uint32_t w[4] = { v.x, v.y, v.z, v.w };

	if (SZ == 8)
		return w[2 * j] | (uint64_t)w[2 * j + 1] << 32;
	if (SZ == 4)
		return w[j];
	return (w[j / 2] >> (16 * (j & 1))) & 0xffffu;
}

template <int SZ>
__device__ __forceinline__ static uint64_t
elem(const void *p, int64_t i)
{
	if (SZ == 8)
		return ((const uint64_t *)p)[i];
	if (SZ == 4)
		return ((const uint32_t *)p)[i];
	return ((const uint16_t *)p)[i];
}

/* Every position of a group plain (osk_fast_plain), from the bits at once. */
template <int DT>
__device__ __forceinline__ static bool
group_plain(const uint4 &c, const uint4 &n, const double2 *o)
{
	typedef fast_dt<DT> F;
	const uint32_t w[8] = { c.x, c.y, c.z, c.w, n.x, n.y, n.z, n.w };
	/* high word of 2^osk_fast_emax(DT): |O| below it */
	const uint32_t ohi = (uint32_t)(1023 + osk_fast_emax(DT)) << 20;
	uint32_t m = 0, a = 0;
	int j;

#pragma unroll
	for (j = 0; j < F::G / 2; j++) {
		m = max(m, (uint32_t)__double2hiint(o[j].x) & 0x7fffffffu);
		m = max(m, (uint32_t)__double2hiint(o[j].y) & 0x7fffffffu);
	}
#pragma unroll
	for (j = 0; j < 8; j++) {
		if (F::SZ == 2)
			a = __vmaxu2(a, w[j] & 0x7fff7fffu);
		else if (F::SZ == 4)
			a = max(a, w[j] & 0x7fffffffu);
		else if (j & 1)		/* high words of float64 */
			a = max(a, w[j] & 0x7fffffffu);
	}
	if (F::SZ == 2)
		a = max(a & 0xffffu, a >> 16);
	return m < ohi && a < F::EXP;
}

/* A thread's partial (max|O| and R of the first pass) and constants. */
__device__ static struct osk_fconst
fast_start(struct osk_cpart *mine, const struct scratch *sc, int nparts,
    double *dsh, const struct osk_tol *tol)
{
	osk_cpart_init(mine);
	mine->omax = parts_max(sc->omax, nparts, dsh);
	mine->R = parts_max(sc->rpart, nparts, dsh);
	return osk_fconst_of(mine->omax, tol);
}

/* The block's partial from every thread's. */
__device__ static void
fast_end(struct osk_cpart *mine, struct osk_cpart *sh, struct scratch *sc)
{
	osk_fast_done(mine);
	block_merge_parts(mine, sh);
	if (threadIdx.x == 0)
		sc->parts[blockIdx.x] = sh[0];
}

/* The G positions of group g, by the plain or the full element code. */
template <int DT, int PLAIN>
__device__ __forceinline__ static void
group_at(struct osk_cpart *p, int64_t g, const uint4 &cv, const uint4 &nv,
    const double2 *ov, const struct osk_fconst *k)
{
	typedef fast_dt<DT> F;
	double x;
	int j;

#pragma unroll
	for (j = 0; j < F::G; j++) {
		x = j & 1 ? ov[j / 2].y : ov[j / 2].x;
		if (PLAIN)
			osk_compare_plain_at(p, g * F::G + j, lane<F::SZ>(cv, j),
			    lane<F::SZ>(nv, j), x, DT, k);
		else
			osk_compare_fast_at(p, g * F::G + j, lane<F::SZ>(cv, j),
			    lane<F::SZ>(nv, j), x, DT, k);
	}
}

template <int DT, int DIG>
__device__ __forceinline__ static void
digest_at(struct osk_cpart *p, int64_t i, uint64_t cb, uint64_t nb)
{
	if (DIG)
		osk_digest_pair(p, i, cb, nb);
}

template <int DT, int DIG, int TOL>
__global__ static void __launch_bounds__(NT)
k_cmp_fast(const uint4 *__restrict__ c, const uint4 *__restrict__ n,
    const double2 *__restrict__ o, int64_t cnt, struct osk_tol tol,
    struct scratch *sc, int nparts)
{
	typedef fast_dt<DT> F;
	__shared__ struct osk_cpart sh[PARTW];
	__shared__ double dsh[NT];
	struct osk_cpart mine;
	struct osk_fconst k;
	int64_t g, ng = cnt / F::G, i;
	double2 ov[F::G / 2];
	uint4 cv, nv;
	int j;

	k = fast_start(&mine, sc, nparts, dsh, &tol);
	k.tol = TOL;
	for (g = blockIdx.x * (int64_t)NT + threadIdx.x; g < ng;
	    g += (int64_t)gridDim.x * NT) {
		cv = __ldcs(c + g);
		nv = __ldcs(n + g);
#pragma unroll
		for (j = 0; j < F::G / 2; j++)
			ov[j] = __ldcs(o + g * (F::G / 2) + j);
		if (group_plain<DT>(cv, nv, ov))
			group_at<DT, 1>(&mine, g, cv, nv, ov, &k);
		else
			group_at<DT, 0>(&mine, g, cv, nv, ov, &k);
#pragma unroll
		for (j = 0; j < F::G; j++)
			digest_at<DT, DIG>(&mine, g * F::G + j,
			    lane<F::SZ>(cv, j), lane<F::SZ>(nv, j));
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		for (i = ng * F::G; i < cnt; i++) {
			osk_compare_fast_at(&mine, i, elem<F::SZ>(c, i),
			    elem<F::SZ>(n, i), ((const double *)o)[i], DT, &k);
			digest_at<DT, DIG>(&mine, i, elem<F::SZ>(c, i),
			    elem<F::SZ>(n, i));
		}
	fast_end(&mine, sh, sc);
}

/* The fast element code on any strides (one element per thread step). */
template <int DT>
__global__ static void __launch_bounds__(NT)
k_cmp_fast_strided(struct osk_tensor c, struct osk_tensor n,
    struct osk_tensor o, struct contig3 cg, int64_t cnt, struct osk_tol tol,
    int dig, struct scratch *sc, int nparts)
{
	constexpr int SZ = fast_dt<DT>::SZ;
	__shared__ struct osk_cpart sh[PARTW];
	__shared__ double dsh[NT];
	const void *cp = (const void *)(uintptr_t)c.data;
	const void *np = (const void *)(uintptr_t)n.data;
	const double *op = (const double *)(uintptr_t)o.data;
	struct osk_cpart mine;
	struct osk_fconst k;
	uint64_t cb, nb;
	int64_t i;

	k = fast_start(&mine, sc, nparts, dsh, &tol);
	for (i = blockIdx.x * (int64_t)NT + threadIdx.x; i < cnt;
	    i += (int64_t)gridDim.x * NT) {
		cb = elem<SZ>(cp, at(c, cg.c, i));
		nb = elem<SZ>(np, at(n, cg.n, i));
		osk_compare_fast_at(&mine, i, cb, nb, op[at(o, cg.o, i)], DT,
		    &k);
		if (dig)
			osk_digest_pair(&mine, i, cb, nb);
	}
	fast_end(&mine, sh, sc);
}

/*
 * Blocks for `threads` threads of work: no more than fit on the device at
 * once (a grid-stride loop gains nothing from a second wave), at most
 * OSK_MAXBLOCKS.
 */
template <class K>
static int
grid_resident(K kern, int64_t threads)
{
	int64_t g = (threads + NT - 1) / NT, cap = OSK_MAXBLOCKS;
	int dev, sms, per;

	if (cudaGetDevice(&dev) == cudaSuccess &&
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
	    dev) == cudaSuccess &&
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, NT,
	    0) == cudaSuccess && (int64_t)per * sms > 0)
		cap = (int64_t)per * sms;
	else
		(void)cudaGetLastError();	/* keep the default */
	if (cap > OSK_MAXBLOCKS)
		cap = OSK_MAXBLOCKS;
	return g < 1 ? 1 : g > cap ? (int)cap : (int)g;
}

static int
aligned16(const struct osk_tensor *t)
{
	return (t->data & 15) == 0;
}

/* The first pass for the fast path of D = DT: max|O| and R. */
template <int DT>
static int
launch_opass(const struct osk_tensor *o, int contig, int64_t cnt,
    struct scratch *sc, cudaStream_t s)
{
	int g;

	if (contig && aligned16(o)) {
		g = grid_resident(k_omax_vec<DT>, cnt / 4);
		k_omax_vec<DT><<<g, NT, 0, s>>>((const double2 *)(uintptr_t)
		    o->data, cnt, sc->omax, sc->rpart);
		return g;
	}
	g = grid_for(cnt, UNROLL);
	k_omax<<<g, NT, 0, s>>>(*o, contig, cnt, DT, sc->omax, sc->rpart);
	return g;
}

template <int DT, int DIG, int TOL>
static int
launch_contig(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int64_t cnt, struct osk_tol tol,
    struct scratch *sc, int nparts, cudaStream_t s)
{
	int g = grid_resident(k_cmp_fast<DT, DIG, TOL>, cnt / fast_dt<DT>::G);

	k_cmp_fast<DT, DIG, TOL><<<g, NT, 0, s>>>(
	    (const uint4 *)(uintptr_t)c->data,
	    (const uint4 *)(uintptr_t)n->data,
	    (const double2 *)(uintptr_t)o->data, cnt, tol, sc, nparts);
	return g;
}

/*
 * Both passes of the fast path for D = DT; returns the number of partials
 * of the second.
 */
template <int DT>
static int
launch_fast(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, struct contig3 cg, int64_t cnt,
    struct osk_tol tol, int dig, struct scratch *sc, cudaStream_t s)
{
	int g1 = launch_opass<DT>(o, cg.o, cnt, sc, s), g;
	int tl = tol.abs > 0 || tol.ulp > 0;

	if (cg.c && cg.n && cg.o && aligned16(c) && aligned16(n) &&
	    aligned16(o)) {
		if (dig)
			return tl ? launch_contig<DT, 1, 1>(c, n, o, cnt, tol,
			    sc, g1, s) : launch_contig<DT, 1, 0>(c, n, o, cnt,
			    tol, sc, g1, s);
		return tl ? launch_contig<DT, 0, 1>(c, n, o, cnt, tol, sc, g1,
		    s) : launch_contig<DT, 0, 0>(c, n, o, cnt, tol, sc, g1, s);
	}
	g = grid_resident(k_cmp_fast_strided<DT>, cnt);
	k_cmp_fast_strided<DT><<<g, NT, 0, s>>>(*c, *n, *o, cg, cnt, tol, dig,
	    sc, g1);
	return g;
}

static int
launch_fast_dt(int dt, const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, struct contig3 cg, int64_t cnt,
    struct osk_tol tol, int dig, struct scratch *sc, cudaStream_t s)
{
	switch (dt) {
	case OSK_F64:
		return launch_fast<OSK_F64>(c, n, o, cg, cnt, tol, dig, sc, s);
	case OSK_F32:
		return launch_fast<OSK_F32>(c, n, o, cg, cnt, tol, dig, sc, s);
	case OSK_F16:
		return launch_fast<OSK_F16>(c, n, o, cg, cnt, tol, dig, sc, s);
	default:
		return launch_fast<OSK_BF16>(c, n, o, cg, cnt, tol, dig, sc, s);
	}
}

__global__ static void
k_cmp_exact(struct osk_tensor c, struct osk_tensor n, struct osk_tensor o,
    int64_t cnt, struct scratch *sc)
{
	__shared__ struct osk_cpart sh[PARTW];
	struct osk_cpart mine;
	int64_t i;

	osk_cpart_init(&mine);
	for (i = blockIdx.x * (int64_t)NT + threadIdx.x; i < cnt;
	    i += (int64_t)gridDim.x * NT)
		osk_compare_exact_at(&mine, &c, &n, &o, i);
	block_merge_parts(&mine, sh);
	if (threadIdx.x == 0)
		sc->parts[blockIdx.x] = sh[0];
}

__global__ static void
k_cmp_index(struct osk_tensor c, struct osk_tensor n, struct osk_tensor inp,
    int dim, struct osk_tensor values, int64_t cnt, struct scratch *sc)
{
	__shared__ struct osk_cpart sh[PARTW];
	struct osk_cpart mine;
	int64_t i;

	osk_cpart_init(&mine);
	for (i = blockIdx.x * (int64_t)NT + threadIdx.x; i < cnt;
	    i += (int64_t)gridDim.x * NT)
		osk_compare_index_at(&mine, &c, &n, &inp, dim, &values, i);
	block_merge_parts(&mine, sh);
	if (threadIdx.x == 0)
		sc->parts[blockIdx.x] = sh[0];
}

/*
 * Merges the block partials into sc->res.  Every merge is order-independent
 * (max, min index, counts, wrapping sums), so the figures are deterministic.
 */
__global__ static void
k_cmp_final(struct scratch *sc, int nparts, int64_t cnt, int cdt, int ndt,
    int exact, struct args3 t, int fast, int flags)
{
	__shared__ struct osk_cpart sh[PARTW];
	struct osk_cpart mine;
	int k;

	osk_cpart_init(&mine);
	for (k = threadIdx.x; k < nparts; k += NT)
		osk_cpart_merge(&mine, &sc->parts[k]);
	block_merge_parts(&mine, sh);
	if (threadIdx.x != 0)
		return;
	osk_figures_out(&sc->res, &sh[0], cnt, cdt, ndt, exact);
	if (!exact)
		osk_float_out(&sc->res, &t.t[0], &t.t[1], &t.t[2], fast, flags);
}

/*
 * Runs the final merge and copies the figures to the host; t (C, N, O),
 * fast and flags: the float comparison's last touches (osk_float_out).
 */
static int
finish(struct scratch *sc, int nparts, int64_t cnt, int cdt, int ndt,
    int exact, const struct args3 *t, int fast, int flags,
    struct osk_figures *res, cudaStream_t s)
{
	struct args3 none;

	memset(&none, 0, sizeof(none));
	k_cmp_final<<<1, NT, 0, s>>>(sc, nparts, cnt, cdt, ndt, exact,
	    t != NULL ? *t : none, fast, flags);
	if (cudaGetLastError() != cudaSuccess ||
	    cudaMemcpyAsync(res, &sc->res, sizeof(*res),
	    cudaMemcpyDeviceToHost, s) != cudaSuccess ||
	    cudaStreamSynchronize(s) != cudaSuccess)
		return OSK_ECUDA;
	return OSK_OK;
}

extern "C" int
osk_compare_float2(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int dt, const struct osk_tol *tol, int flags,
    struct osk_figures *res, void *scratch, void *stream)
{
	struct scratch *sc = (struct scratch *)scratch;
	cudaStream_t s = (cudaStream_t)stream;
	struct contig3 cg;
	struct osk_tol t;
	struct args3 a;
	int64_t cnt;
	int e, g1, g, fast, dig = (flags & OSK_CMP_DIGEST) != 0;

	if ((e = osk_check_compare(c, n, o, res, 1, dt)) != 0)
		return e;
	if (sc == NULL)
		return OSK_EINVAL;
	memset(&t, 0, sizeof(t));
	if (tol != NULL)
		t = *tol;
	cnt = osk_numel(o);
	cg.c = osk_contiguous(c);
	cg.n = osk_contiguous(n);
	cg.o = osk_contiguous(o);
	fast = osk_fast_ok(c, n, o, dt, flags);
	if (fast) {
		g = launch_fast_dt(dt, c, n, o, cg, cnt, t, dig, sc, s);
	} else {
		/* pass 1: max|O|; pass 2: every figure */
		g1 = grid_for(cnt, UNROLL);
		k_omax<<<g1, NT, 0, s>>>(*o, cg.o, cnt, -1, sc->omax,
		    sc->rpart);
		g = grid_for(cnt, UNROLL);
		if (cg.c && cg.n && cg.o)
			k_cmp_float<1><<<g, NT, 0, s>>>(*c, *n, *o, cg, cnt, dt,
			    t, dig, sc, g1);
		else
			k_cmp_float<0><<<g, NT, 0, s>>>(*c, *n, *o, cg, cnt, dt,
			    t, dig, sc, g1);
	}
	if (cudaGetLastError() != cudaSuccess)
		return OSK_ECUDA;
	a.t[0] = *c;
	a.t[1] = *n;
	a.t[2] = *o;
	return finish(sc, g, cnt, c->dtype, n->dtype, 0, &a, fast, flags,
	    res, s);
}

extern "C" int
osk_compare_float(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, int dt, const struct osk_tol *tol,
    struct osk_figures *res, void *scratch, void *stream)
{
	return osk_compare_float2(c, n, o, dt, tol, OSK_CMP_DIGEST, res,
	    scratch, stream);
}

extern "C" int
osk_compare_exact(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *o, struct osk_figures *res, void *scratch,
    void *stream)
{
	struct scratch *sc = (struct scratch *)scratch;
	cudaStream_t s = (cudaStream_t)stream;
	int64_t cnt;
	int e, g;

	if ((e = osk_check_compare(c, n, o, res, 0, 0)) != 0)
		return e;
	if (sc == NULL)
		return OSK_EINVAL;
	cnt = osk_numel(o);
	g = grid_for(cnt, 1);
	k_cmp_exact<<<g, NT, 0, s>>>(*c, *n, *o, cnt, sc);
	if (cudaGetLastError() != cudaSuccess)
		return OSK_ECUDA;
	return finish(sc, g, cnt, c->dtype, n->dtype, 1, NULL, 0,
	    OSK_CMP_DIGEST, res, s);
}

extern "C" int
osk_compare_index(const struct osk_tensor *c, const struct osk_tensor *n,
    const struct osk_tensor *inp, int dim, const struct osk_tensor *values,
    struct osk_figures *res, void *scratch, void *stream)
{
	struct scratch *sc = (struct scratch *)scratch;
	cudaStream_t s = (cudaStream_t)stream;
	int64_t cnt;
	int e, g;

	if ((e = osk_check_index(c, n, inp, dim, values, res)) != 0)
		return e;
	if (sc == NULL)
		return OSK_EINVAL;
	cnt = osk_numel(values);
	g = grid_for(cnt, 1);
	k_cmp_index<<<g, NT, 0, s>>>(*c, *n, *inp, dim, *values, cnt, sc);
	if (cudaGetLastError() != cudaSuccess)
		return OSK_ECUDA;
	return finish(sc, g, cnt, c->dtype, n->dtype, 1, NULL, 0,
	    OSK_CMP_DIGEST, res, s);
}
