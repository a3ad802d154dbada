/*
 * Element-level code shared by the device and the host builds, one header a
 * section, included below in dependency order: dtypes and bits
 * (osk_dtype.h), counter-based generation (osk_gen.h), fp64 pointwise math
 * (osk_math.h), row reductions (osk_reduce.h), comparison (osk_compare.h)
 * and the drivers' reduction plans (osk_plan.h).  Written in the common subset of C99 and CUDA
 * C++ so that gcc compiles it for the host and nvcc for both sides; OSK_HD
 * marks every function __host__ __device__ under nvcc.
 *
 * Generation must give the same bytes on the host and on any GPU, so it uses
 * only integer arithmetic, +, -, *, / and sqrt (all correctly rounded in
 * IEEE double on both sides) and never a library transcendental; both builds
 * compile with floating-point contraction off (-ffp-contract=off,
 * -fmad=false) so that no fused multiply-add changes a rounding.
 */
#ifndef OSK_CORE_H
#define OSK_CORE_H

#include <math.h>
#include <stdint.h>

#include "osk.h"

#ifdef __CUDACC__
#define OSK_HD	static __host__ __device__ inline
#else
#define OSK_HD	static inline
#endif

#define OSK_2P(e)	ldexp(1.0, (e))

#include "osk_dtype.h"
#include "osk_gen.h"
#include "osk_math.h"
#include "osk_reduce.h"
#include "osk_compare.h"
#include "osk_plan.h"

#endif /* OSK_CORE_H */
