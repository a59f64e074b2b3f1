/* vec_base.c - the portable kernels (vec_common.inc, ukernel_vec.inc,
 * depthwise_vec.inc, pool_vec.inc, rowwise_vec.inc, winograd_vec.inc,
 * conv_c1_vec.inc) for the target's baseline: 4-float vectors, SSE2 on
 * x86-64 (16 registers: GEMM blocks of 6 rows x 8 columns) and NEON on
 * AArch64 (32 registers: 6 x 16). Depthwise: 4 channel vectors a block. */
#include "kernels_internal.h"

#define VEC_VL 4
#include "vec_common.inc"

#if defined(__aarch64__)
/* 32 NEON registers: 6 rows x 16 columns (24 accumulators, 4 B vectors). */
#define UKV_NV 4
#else
#define UKV_NV 2
#endif
#define UKV_MRG 6
#if TFCC_RT_FREESTANDING
/* Bare metal (Cortex-M): plain loops, small code (ukernel_small.inc). */
#define UKS_FN tfcc_uk_base
#define UKS_KMAJOR_FN tfcc_uk_base_kmajor
#include "ukernel_small.inc"
#else
#define UKV_FN tfcc_uk_base
#define UKV_KMAJOR_FN tfcc_uk_base_kmajor
#include "ukernel_vec.inc"
#endif

#define DWV_NV 4
#define DWV_FN tfcc_dw_row_base
#include "depthwise_vec.inc"

#define DWQ_FN tfcc_dwq_row_base
#include "depthwise_u8_vec.inc"

#define POOLV_FN tfcc_pool_rows_base
#include "pool_vec.inc"

#define ROWV_SUFFIX(name) name##_base
#include "rowwise_vec.inc"

#define WGV_SUFFIX(name) name##_base
#include "winograd_vec.inc"

#define C1V_FN tfcc_conv_c1_rows_base
#include "conv_c1_vec.inc"

#define PIV_SUFFIX(name) name##_base
#include "pool_indices_vec.inc"

#define ROUNDV_FN tfcc_round_base
#if TFCC_RT_FREESTANDING
#define ROUNDV_SMALL
#endif
#include "round_vec.inc"
