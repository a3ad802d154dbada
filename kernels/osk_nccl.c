/*
 * libopscreen_nccl (osk_nccl.h): NCCL for several GPUs of one host, one rank
 * a process.  Communicators are non-blocking and polled against a deadline,
 * so a rank that never comes, or dies, costs the caller a timeout and an
 * error instead of a hang; the text of a failure carries NCCL's own
 * explanation (ncclGetLastError), such as its refusal of two ranks on one GPU.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "osk_nccl.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 14, 0)
#error "osk_nccl.c needs NCCL 2.14 or later (non-blocking communicators)"
#endif

#define POLL_NS		100000	/* between two polls of a communicator */
#define FINALIZE_MS	30000	/* a finalize's wait before an abort */

_Static_assert(sizeof(ncclUniqueId) == OSK_NCCL_ID_BYTES,
    "OSK_NCCL_ID_BYTES is not NCCL_UNIQUE_ID_BYTES");

struct osk_nccl {
	ncclComm_t	 comm;		/* NULL once aborted */
	cudaStream_t	 stream;
	int		 nranks;
	int		 rank;
	int		 device;
	char		 bus[OSK_NCCL_BUSID_LEN];
};

/* The text of the calling thread's last failure. */
static __thread char errbuf[OSK_NCCL_ERRLEN];

/* Sets the thread's error text; returns e. */
static int
fail(int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return e;
}

/*
 * A failed NCCL call: NCCL's text for r and its last warning, which names
 * the cause ("invalid usage" alone does not).  Returns OSK_NCCL_ENCCL.
 */
static int
fail_nccl(ncclResult_t r, ncclComm_t comm, const char *what)
{
	const char *last;

	last = ncclGetLastError(comm);
	if (last != NULL && *last != '\0')
		return fail(OSK_NCCL_ENCCL, "%s: %s: %s", what,
		    ncclGetErrorString(r), last);
	return fail(OSK_NCCL_ENCCL, "%s: %s", what, ncclGetErrorString(r));
}

/* A failed CUDA call, its error cleared; returns OSK_NCCL_ECUDA. */
static int
fail_cuda(cudaError_t e, const char *what)
{
	(void)cudaGetLastError();
	return fail(OSK_NCCL_ECUDA, "%s: %s (%s)", what, cudaGetErrorString(e),
	    cudaGetErrorName(e));
}

/* Monotonic milliseconds. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The deadline timeout_ms from now; 0 (none) for a timeout of 0. */
static long long
deadline(int timeout_ms)
{
	return timeout_ms > 0 ? now_ms() + timeout_ms : 0;
}

static void
pause_poll(void)
{
	struct timespec ts = { 0, POLL_NS };

	(void)nanosleep(&ts, NULL);
}

/*
 * Waits until the communicator's last operation is no longer in progress
 * or the deadline passes.  Returns 0, or the failure with its text.
 */
static int
settle(ncclComm_t comm, long long end, const char *what)
{
	ncclResult_t r, st;

	for (;;) {
		if ((r = ncclCommGetAsyncError(comm, &st)) != ncclSuccess)
			return fail_nccl(r, comm, what);
		if (st == ncclSuccess)
			return OSK_NCCL_OK;
		if (st != ncclInProgress)
			return fail_nccl(st, comm, what);
		if (end != 0 && now_ms() >= end)
			return fail(OSK_NCCL_ETIMEDOUT,
			    "%s: still in progress at the deadline (a rank missing?)",
			    what);
		pause_poll();
	}
}

/*
 * Waits for the communicator's stream, watching the communicator for a
 * peer's failure.  Returns 0, or the failure with its text.
 */
static int
drain(struct osk_nccl *c, long long end, const char *what)
{
	cudaError_t e;
	ncclResult_t r, st;

	for (;;) {
		if ((e = cudaStreamQuery(c->stream)) == cudaSuccess)
			return OSK_NCCL_OK;
		if (e != cudaErrorNotReady)
			return fail_cuda(e, what);
		if ((r = ncclCommGetAsyncError(c->comm, &st)) != ncclSuccess)
			return fail_nccl(r, c->comm, what);
		if (st != ncclSuccess && st != ncclInProgress)
			return fail_nccl(st, c->comm, what);
		if (end != 0 && now_ms() >= end)
			return fail(OSK_NCCL_ETIMEDOUT,
			    "%s: not done at the deadline (a rank missing?)", what);
		pause_poll();
	}
}

/* Aborts the communicator after a failure; its kernels stop. */
static void
abort_comm(struct osk_nccl *c)
{
	if (c->comm != NULL)
		(void)ncclCommAbort(c->comm);
	c->comm = NULL;
}

/* The NCCL version loaded (2.28.9 is 22809), or OSK_NCCL_ENCCL. */
int
osk_nccl_version(void)
{
	ncclResult_t r;
	int v;

	if ((r = ncclGetVersion(&v)) != ncclSuccess)
		return fail_nccl(r, NULL, "ncclGetVersion");
	return v;
}

/* The text of the calling thread's last failure ("" before any). */
const char *
osk_nccl_error(void)
{
	return errbuf;
}

/*
 * The PCI bus id of the current CUDA device into buf (at least
 * OSK_NCCL_BUSID_LEN bytes).  Returns the device's index, or a failure.
 */
int
osk_nccl_bus_id(char *buf, size_t len)
{
	cudaError_t e;
	int dev;

	if (buf == NULL || len < OSK_NCCL_BUSID_LEN)
		return fail(OSK_NCCL_EINVAL, "bus id: a buffer of %d bytes is needed",
		    OSK_NCCL_BUSID_LEN);
	if (len > INT_MAX)
		len = INT_MAX;
	if ((e = cudaGetDevice(&dev)) != cudaSuccess)
		return fail_cuda(e, "cudaGetDevice");
	if ((e = cudaDeviceGetPCIBusId(buf, (int)len, dev)) != cudaSuccess)
		return fail_cuda(e, "cudaDeviceGetPCIBusId");
	return dev;
}

/*
 * A new unique id, OSK_NCCL_ID_BYTES into buf, for every rank of one
 * communicator.  Needs no GPU.  Returns 0 or a failure.
 */
int
osk_nccl_unique_id(void *buf, size_t len)
{
	ncclUniqueId id;
	ncclResult_t r;

	if (buf == NULL || len < sizeof(id))
		return fail(OSK_NCCL_EINVAL, "unique id: a buffer of %zu bytes is needed",
		    sizeof(id));
	if ((r = ncclGetUniqueId(&id)) != ncclSuccess)
		return fail_nccl(r, NULL, "ncclGetUniqueId");
	memcpy(buf, &id, sizeof(id));
	return OSK_NCCL_OK;
}

/*
 * Rank `rank` of `nranks` joins the communicator of unique id `id` (len
 * OSK_NCCL_ID_BYTES) on the current CUDA device, waiting at most
 * timeout_ms (0: no limit) for every rank.  Returns 0 with the
 * communicator in *out, or a failure (*out NULL): NCCL refuses two ranks
 * on one GPU here.
 */
int
osk_nccl_new(const void *id, size_t len, int nranks, int rank, int timeout_ms,
    struct osk_nccl **out)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclUniqueId uid;
	struct osk_nccl *c;
	char what[160];
	cudaError_t e;
	ncclResult_t r;
	int rc;

	if (out == NULL)
		return fail(OSK_NCCL_EINVAL, "communicator: no place for it");
	*out = NULL;
	if (id == NULL || len != sizeof(uid))
		return fail(OSK_NCCL_EINVAL,
		    "communicator: a unique id is %zu bytes, not %zu",
		    sizeof(uid), len);
	if (nranks < 1 || rank < 0 || rank >= nranks || timeout_ms < 0)
		return fail(OSK_NCCL_EINVAL, "communicator: rank %d of %d, timeout %d ms",
		    rank, nranks, timeout_ms);
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return fail(OSK_NCCL_ENOMEM, "communicator: out of memory");
	c->nranks = nranks;
	c->rank = rank;
	if ((e = cudaGetDevice(&c->device)) != cudaSuccess) {
		rc = fail_cuda(e, "cudaGetDevice");
		goto err;
	}
	if ((e = cudaDeviceGetPCIBusId(c->bus, sizeof(c->bus), c->device)) !=
	    cudaSuccess) {
		rc = fail_cuda(e, "cudaDeviceGetPCIBusId");
		goto err;
	}
	if ((e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) !=
	    cudaSuccess) {
		rc = fail_cuda(e, "cudaStreamCreateWithFlags");
		goto err;
	}
	(void)snprintf(what, sizeof(what),
	    "ncclCommInitRankConfig (rank %d of %d on cuda device %d, bus %s)",
	    rank, nranks, c->device, c->bus);
	memcpy(&uid, id, sizeof(uid));
	cfg.blocking = 0;
	r = ncclCommInitRankConfig(&c->comm, nranks, uid, rank, &cfg);
	if (r != ncclSuccess && r != ncclInProgress) {
		rc = fail_nccl(r, NULL, what);
		goto err;
	}
	if ((rc = settle(c->comm, deadline(timeout_ms), what)) != OSK_NCCL_OK)
		goto err;
	*out = c;
	return OSK_NCCL_OK;

err:
	abort_comm(c);
	if (c->stream != NULL)
		(void)cudaStreamDestroy(c->stream);
	free(c);
	return rc;
}

/*
 * Every rank's n uint64 of `in` (host memory) into `out` (host memory,
 * nranks * n, rank r's at r * n), through device buffers and the
 * communicator's stream, synchronised before it returns; every rank calls
 * it with the same n.  A failure or timeout_ms passing (0: no limit)
 * aborts the communicator, whose later calls fail.  Returns 0 or a failure.
 */
int
osk_nccl_allgather_u64(struct osk_nccl *c, const uint64_t *in, size_t n,
    uint64_t *out, int timeout_ms)
{
	void *sbuf = NULL, *rbuf = NULL;
	size_t bytes;
	long long end;
	cudaError_t e;
	ncclResult_t r;
	int prev = -1, rc;

	if (c == NULL || (n > 0 && (in == NULL || out == NULL)) || timeout_ms < 0)
		return fail(OSK_NCCL_EINVAL, "all-gather: invalid argument");
	if (c->comm == NULL)
		return fail(OSK_NCCL_EINVAL,
		    "all-gather: the communicator was aborted by an earlier failure");
	if (n > OSK_NCCL_MAX_U64)
		return fail(OSK_NCCL_EINVAL, "all-gather: %zu entries, more than %d",
		    n, OSK_NCCL_MAX_U64);
	if (n == 0)
		return OSK_NCCL_OK;
	end = deadline(timeout_ms);
	bytes = n * sizeof(uint64_t);
	if ((e = cudaGetDevice(&prev)) != cudaSuccess)
		return fail_cuda(e, "cudaGetDevice");
	if (prev != c->device && (e = cudaSetDevice(c->device)) != cudaSuccess)
		return fail_cuda(e, "cudaSetDevice");
	if ((e = cudaMalloc(&sbuf, bytes)) != cudaSuccess ||
	    (e = cudaMalloc(&rbuf, bytes * c->nranks)) != cudaSuccess) {
		rc = fail_cuda(e, "cudaMalloc");
		goto out;
	}
	if ((e = cudaMemcpyAsync(sbuf, in, bytes, cudaMemcpyHostToDevice,
	    c->stream)) != cudaSuccess) {
		rc = fail_cuda(e, "cudaMemcpyAsync");
		goto out;
	}
	r = ncclAllGather(sbuf, rbuf, n, ncclUint64, c->comm, c->stream);
	if (r != ncclSuccess && r != ncclInProgress) {
		rc = fail_nccl(r, c->comm, "ncclAllGather");
		abort_comm(c);
		goto out;
	}
	if ((rc = settle(c->comm, end, "ncclAllGather")) != OSK_NCCL_OK) {
		abort_comm(c);
		goto out;
	}
	if ((e = cudaMemcpyAsync(out, rbuf, bytes * c->nranks,
	    cudaMemcpyDeviceToHost, c->stream)) != cudaSuccess) {
		rc = fail_cuda(e, "cudaMemcpyAsync");
		abort_comm(c);
		goto out;
	}
	if ((rc = drain(c, end, "ncclAllGather")) != OSK_NCCL_OK) {
		abort_comm(c);
		goto out;
	}
	rc = OSK_NCCL_OK;

out:
	(void)cudaFree(rbuf);
	(void)cudaFree(sbuf);
	if (prev >= 0 && prev != c->device)
		(void)cudaSetDevice(prev);
	return rc;
}

/*
 * Finalizes and destroys the communicator (aborts it where finalizing
 * fails or takes over FINALIZE_MS) and frees c.  Returns 0 or the
 * finalize's failure; c is freed either way.
 */
int
osk_nccl_free(struct osk_nccl *c)
{
	ncclResult_t r;
	int rc = OSK_NCCL_OK;

	if (c == NULL)
		return OSK_NCCL_OK;
	if (c->comm != NULL) {
		r = ncclCommFinalize(c->comm);
		if (r != ncclSuccess && r != ncclInProgress)
			rc = fail_nccl(r, c->comm, "ncclCommFinalize");
		else
			rc = settle(c->comm, deadline(FINALIZE_MS),
			    "ncclCommFinalize");
		if (rc != OSK_NCCL_OK)
			abort_comm(c);
		else if ((r = ncclCommDestroy(c->comm)) != ncclSuccess &&
		    r != ncclInProgress)
			rc = fail_nccl(r, NULL, "ncclCommDestroy");
		c->comm = NULL;
	}
	if (c->stream != NULL)
		(void)cudaStreamDestroy(c->stream);
	free(c);
	return rc;
}
