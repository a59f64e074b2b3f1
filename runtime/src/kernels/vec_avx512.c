/* vec_avx512.c - the portable GEMM micro-kernel (vec_common.inc,
 * ukernel_vec.inc) compiled for x86-64-v4 (AVX-512; -march=x86-64-v4 from
 * CMakeLists): 32 zmm registers, 14 rows x 32 columns a block (28
 * accumulators). AVX-512 machines run the hand-written kernel instead
 * (ukernel_avx512.c), faster there (docs/performance.md); this one is
 * tested (MicroKernelTest) and measured against it. Also the int8 GEMM's
 * epilogue (qgemm_vec.inc). */
#include "kernels_internal.h"

#define VEC_VL 16
#include "vec_common.inc"

#define UKV_NV 2
#define UKV_MRG 14
#define UKV_FN tfcc_uk_avx512_vec
#include "ukernel_vec.inc"

#define DWQ_FN tfcc_dwq_row_avx512
#include "depthwise_u8_vec.inc"

#include "qgemm_internal.h"
#define QV_SUFFIX(name) name##_avx512
#include "qgemm_vec.inc"

#define ROUNDV_FN tfcc_round_avx512
#include "round_vec.inc"
