/* vec_avx2.c - the portable kernels (vec_common.inc, ukernel_vec.inc,
 * depthwise_vec.inc, pool_vec.inc, rowwise_vec.inc, winograd_vec.inc,
 * conv_c1_vec.inc) compiled for x86-64-v3 (AVX2 + FMA; CMakeLists gives this
 * file -march=x86-64-v3), selected at run time. GEMM: 16 ymm registers, 6
 * rows x 16 columns a block (12 accumulators, 2 B vectors, 1 broadcast), two
 * column passes per 32-wide panel. Depthwise: 4 channel vectors a block. */
#include "kernels_internal.h"

#define VEC_VL 8
#include "vec_common.inc"

#define UKV_NV 2
#define UKV_MRG 6
#define UKV_PREFETCH 16
#define UKV_FN tfcc_uk_avx2
#define UKV_KMAJOR_FN tfcc_uk_avx2_kmajor
#include "ukernel_vec.inc"

#define DWV_NV 4
#define DWV_PIX 8
#define DWV_FN tfcc_dw_row_avx2
#include "depthwise_vec.inc"

#define DWQ_PIX 8
#define DWQ_FN tfcc_dwq_row_avx2
#include "depthwise_u8_vec.inc"

#define POOLV_FN tfcc_pool_rows_avx2
#include "pool_vec.inc"

#define ROWV_SUFFIX(name) name##_avx2
#include "rowwise_vec.inc"

#define WGV_SUFFIX(name) name##_avx2
#include "winograd_vec.inc"

#define C1V_FN tfcc_conv_c1_rows_avx2
#include "conv_c1_vec.inc"

#define PIV_SUFFIX(name) name##_avx2
#include "pool_indices_vec.inc"

#define ROUNDV_FN tfcc_round_avx2
#include "round_vec.inc"
