/* pack.c - the ISA-independent packed layout of the GEMM B operand.
 *
 * Plain C with no ISA-specific code: the compiler links this file (library
 * tfcc_kernel_pack) to pack constant weights at compile time, and the runtime
 * uses the same code, so both agree exactly (packing only copies floats). */
#include "kernels_internal.h"

#include <string.h>

int64_t tfcc_rt_sgemm_packed_b_size(int64_t K, int64_t N) {
  if (K <= 0 || N <= 0)
    return 0;
  return (N + TFCC_UK_NR - 1) / TFCC_UK_NR * K * TFCC_UK_NR;
}

void tfcc_pack_b_block(int64_t N, const float* B, int64_t ldb, int32_t trans_b,
                       int64_t k0, int64_t kc, int64_t p0, int64_t np,
                       float* dst) {
  for (int64_t p = 0; p < np; ++p) {
    int64_t n0 = (p0 + p) * TFCC_UK_NR;
    int64_t nn = N - n0 < TFCC_UK_NR ? N - n0 : TFCC_UK_NR;
    float* d = dst + p * kc * TFCC_UK_NR;
    if (!trans_b) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* s = B + (k0 + k) * ldb + n0;
        float* dk = d + k * TFCC_UK_NR;
        if (nn == TFCC_UK_NR) {
          memcpy(dk, s, TFCC_UK_NR * sizeof(float));
        } else {
          int64_t j = 0;
          for (; j < nn; ++j)
            dk[j] = s[j];
          for (; j < TFCC_UK_NR; ++j)
            dk[j] = 0.0f;
        }
      }
    } else {
      /* B[n*ldb + k]: read 32 rows of B in k order. */
      for (int64_t k = 0; k < kc; ++k) {
        float* dk = d + k * TFCC_UK_NR;
        const float* s = B + n0 * ldb + k0 + k;
        int64_t j = 0;
        for (; j < nn; ++j)
          dk[j] = s[j * ldb];
        for (; j < TFCC_UK_NR; ++j)
          dk[j] = 0.0f;
      }
    }
  }
}

void tfcc_rt_sgemm_pack_b(int64_t K, int64_t N, const float* B, int64_t ldb,
                          int32_t trans_b, float* packed) {
  if (K <= 0 || N <= 0)
    return;
  tfcc_pack_b_block(N, B, ldb, trans_b, 0, K, 0,
                    (N + TFCC_UK_NR - 1) / TFCC_UK_NR, packed);
}
