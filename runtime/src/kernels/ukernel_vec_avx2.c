/* ukernel_vec_avx2.c - the portable GEMM micro-kernel (ukernel_vec.inc)
 * compiled for x86-64-v3 (AVX2 + FMA; CMakeLists gives this file
 * -march=x86-64-v3), selected at run time. 16 ymm registers: 6 rows x 16
 * columns a block (12 accumulators, 2 B vectors, 1 broadcast), two column
 * passes per 32-wide panel. */
#include "kernels_internal.h"

#define UKV_VL 8
#define UKV_NV 2
#define UKV_MRG 6
#define UKV_FN tfcc_uk_avx2
#include "ukernel_vec.inc"
