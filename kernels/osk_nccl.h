/*
 * libopscreen_nccl: the NCCL calls of several GPUs of one host (one rank a
 * process, one GPU a rank): a unique id, a communicator on the current CUDA
 * device, an all-gather of uint64 digests from host memory, and the last
 * error as text with NCCL's own explanation.  Every function returns 0 or
 * a negative OSK_NCCL_E* code and never aborts the process; the text of
 * the last failure of the calling thread is osk_nccl_error().
 */
#ifndef OSK_NCCL_H
#define OSK_NCCL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSK_NCCL_ID_BYTES	128		/* NCCL_UNIQUE_ID_BYTES */
#define OSK_NCCL_BUSID_LEN	32		/* "0000:00:00.0" and its NUL */
#define OSK_NCCL_MAX_U64	(1 << 24)	/* entries a rank gathers: 128 MiB */
#define OSK_NCCL_ERRLEN		1024

enum osk_nccl_error {
	OSK_NCCL_OK = 0, OSK_NCCL_EINVAL = -1, OSK_NCCL_ECUDA = -2,
	OSK_NCCL_ENCCL = -3, OSK_NCCL_ENOMEM = -4, OSK_NCCL_ETIMEDOUT = -5
};

/* A communicator of one rank; defined in osk_nccl.c only. */
struct osk_nccl;

int		 osk_nccl_version(void);
const char	*osk_nccl_error(void);
int		 osk_nccl_bus_id(char *, size_t);
int		 osk_nccl_unique_id(void *, size_t);
int		 osk_nccl_new(const void *, size_t, int, int, int,
		    struct osk_nccl **);
int		 osk_nccl_allgather_u64(struct osk_nccl *, const uint64_t *,
		    size_t, uint64_t *, int);
int		 osk_nccl_free(struct osk_nccl *);

#ifdef __cplusplus
}
#endif

#endif /* OSK_NCCL_H */
