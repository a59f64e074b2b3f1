/* ukernel_vec_avx512.c - the portable GEMM micro-kernel (ukernel_vec.inc)
 * compiled for x86-64-v4 (AVX-512; -march=x86-64-v4 from CMakeLists). 32 zmm
 * registers: 14 rows x 32 columns a block (28 accumulators). Measured against
 * the hand-written tfcc_uk_avx512 (ukernel_avx512.c), which AVX-512 machines
 * use: see docs/performance.md. */
#include "kernels_internal.h"

#define UKV_VL 16
#define UKV_NV 2
#define UKV_MRG 14
#define UKV_FN tfcc_uk_avx512_vec
#include "ukernel_vec.inc"
