/* ukernel_vec_base.c - the portable GEMM micro-kernel (ukernel_vec.inc) for
 * the target's baseline: 4-float vectors (SSE2 on x86-64, NEON on AArch64;
 * 16 registers assumed), 6 rows x 8 columns a register block. */
#include "kernels_internal.h"

#define UKV_VL 4
#define UKV_NV 2
#define UKV_MRG 6
#define UKV_FN tfcc_uk_base
#include "ukernel_vec.inc"
