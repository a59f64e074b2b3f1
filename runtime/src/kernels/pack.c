/* pack.c - the ISA-independent packed weight layouts (the GEMM B operand,
 * Winograd, the int8 GEMM and the int8 depthwise convolution).
 *
 * Plain C with no ISA-specific code: the compiler links this file (library
 * tfcc_kernel_pack) to pack constant weights at compile time, and the runtime
 * uses the same code, so both agree exactly (packing only copies floats). */
#include "kernels_internal.h"

#include <stdlib.h>
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

/* ---- Winograd F(2x2, 3x3) weights --------------------------------------- */

int64_t tfcc_rt_winograd_packed_size(int64_t c, int64_t oc) {
  return 16 * tfcc_rt_sgemm_packed_b_size(c, oc);
}

/* U = G g G^T per (ci, co) with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2;
 * 0 0 1], in double, rounded once. Also the run-time transform of variable
 * weights (once per train step), so written to vectorize: a 32-wide output
 * panel at a time, the rows of G applied as sums (halving is exact), with
 * the floats of a scalar loop over (ci, co) (bit for bit on random weights;
 * the loop's 0 * g terms aside, which could flip the sign of a zero or make
 * a NaN of an infinite weight). */
void tfcc_rt_winograd_pack(int64_t c, int64_t oc, const float* hwio,
                           float* packed) {
  const int64_t psize = tfcc_rt_sgemm_packed_b_size(c, oc);
  if (psize <= 0)
    return;
  const int64_t panels = (oc + TFCC_UK_NR - 1) / TFCC_UK_NR;
  for (int64_t q = 0; q < panels; ++q) {
    const int64_t co0 = q * TFCC_UK_NR;
    const int64_t nn = oc - co0 < TFCC_UK_NR ? oc - co0 : TFCC_UK_NR;
    for (int64_t ci = 0; ci < c; ++ci) {
      double g[3][3][TFCC_UK_NR], t[4][3][TFCC_UK_NR];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const float* s = hwio + ((i * 3 + j) * c + ci) * oc + co0;
          int64_t l = 0;
          for (; l < nn; ++l)
            g[i][j][l] = s[l];
          for (; l < TFCC_UK_NR; ++l)
            g[i][j][l] = 0.0;
        }
      for (int j = 0; j < 3; ++j) /* t = G g */
        for (int l = 0; l < TFCC_UK_NR; ++l) {
          const double g0 = g[0][j][l], g1 = g[1][j][l], g2 = g[2][j][l];
          t[0][j][l] = g0;
          t[1][j][l] = 0.5 * ((g0 + g1) + g2);
          t[2][j][l] = 0.5 * ((g0 - g1) + g2);
          t[3][j][l] = g2;
        }
      float* d = packed + (q * c + ci) * TFCC_UK_NR;
      for (int a = 0; a < 4; ++a) /* U = t G^T */
        for (int l = 0; l < TFCC_UK_NR; ++l) {
          const double t0 = t[a][0][l], t1 = t[a][1][l], t2 = t[a][2][l];
          d[(a * 4 + 0) * psize + l] = (float)t0;
          d[(a * 4 + 1) * psize + l] = (float)(0.5 * ((t0 + t1) + t2));
          d[(a * 4 + 2) * psize + l] = (float)(0.5 * ((t0 - t1) + t2));
          d[(a * 4 + 3) * psize + l] = (float)t2;
        }
    }
  }
}

/* The lowering rule, from timing both kernels (docs/performance.md,
 * "Measurements behind kernel choices"): Winograd wins on 3x3 layers with
 * enough channels and output pixels; on tiny outputs a 2x2 tile computes
 * too few outputs for its 16/9 larger weights, and with few channels the
 * transforms cost as much as the multiply-adds they save. Hence: at least
 * 32 input and output channels and at least 16 output pixels per image. h
 * and w do not matter beyond the output size. */
int32_t tfcc_rt_conv2d_winograd_preferred(int64_t h, int64_t w, int64_t c,
                                          int64_t oc, int64_t oh, int64_t ow) {
  (void)h;
  (void)w;
  if (c < 32 || c > TFCC_RT_WINOGRAD_MAX_C || oc < 32 || oh < 1 || ow < 1)
    return 0;
  return oh * ow >= 16;
}

/* ---- int8 GEMM weights -------------------------------------------------- */

/* v as 4 bytes little endian whatever the host, so the layout is the
 * target's. */
static void store_le32(int8_t* dst, uint32_t v) {
  for (int b = 0; b < 4; ++b)
    dst[b] = (int8_t)(uint8_t)(v >> (8 * b));
}

int64_t tfcc_rt_qgemm_packed_b_size(int64_t K, int64_t N) {
  if (K <= 0 || N <= 0)
    return 0;
  int64_t panels = (N + TFCC_RT_QGEMM_NR - 1) / TFCC_RT_QGEMM_NR;
  int64_t groups = (K + 3) / 4;
  return panels * TFCC_RT_QGEMM_NR * (groups * 4 + (int64_t)sizeof(int32_t)) +
         (int64_t)sizeof(int32_t);
}

/* The byte of the int8 GEMM's packed B holding k = 4 g + t of column j of
 * panel p, `groups` groups of 4 k per panel. */
static int64_t qgemm_packed_at(int64_t groups, int64_t p, int64_t g, int64_t j,
                               int64_t t) {
  return ((p * groups + g) * TFCC_RT_QGEMM_NR + j) * 4 + t;
}

/* Whether the two pairs of weights of a packed group of 4 that int16 lanes
 * of vpmaddubsw add, (4g, 4g+1) and (4g+2, 4g+3), have |b0| + |b1| <= 128:
 * then 255 * (|b0| + |b1|) <= 32640 never saturates and the AVX2 kernel's
 * vpmaddubsw form is exact. */
static int qgemm_group_pairs_fit(const int8_t q[4]) {
  return abs(q[0]) + abs(q[1]) <= 128 && abs(q[2]) + abs(q[3]) <= 128;
}

void tfcc_rt_qgemm_pack_b(int64_t K, int64_t N, const int8_t* B,
                          int8_t* packed) {
  if (K <= 0 || N <= 0)
    return;
  int64_t panels = (N + TFCC_RT_QGEMM_NR - 1) / TFCC_RT_QGEMM_NR;
  int64_t groups = (K + 3) / 4;
  int8_t* sums = packed + panels * groups * TFCC_RT_QGEMM_NR * 4;
  int32_t pairs_fit = 1; /* every group's (qgemm_group_pairs_fit) */
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t j = 0; j < TFCC_RT_QGEMM_NR; ++j) {
      int64_t n = p * TFCC_RT_QGEMM_NR + j;
      int32_t sum = 0;
      for (int64_t g = 0; g < groups; ++g) {
        int8_t* q = packed + qgemm_packed_at(groups, p, g, j, 0);
        for (int64_t t = 0; t < 4; ++t) {
          int64_t k = 4 * g + t;
          int8_t v = (n < N && k < K) ? B[k * N + n] : 0;
          q[t] = v;
          sum += v;
        }
        if (!qgemm_group_pairs_fit(q))
          pairs_fit = 0;
      }
      store_le32(sums + (p * TFCC_RT_QGEMM_NR + j) * 4, (uint32_t)sum);
    }
  }
  store_le32(sums + panels * TFCC_RT_QGEMM_NR * 4, (uint32_t)pairs_fit);
}

void tfcc_q_qgemm_widen_rows(const int8_t* packed, int64_t K, int64_t N,
                             int64_t rows, int64_t span, int8_t* widened) {
  const int64_t panels = (N + TFCC_RT_QGEMM_NR - 1) / TFCC_RT_QGEMM_NR;
  const int64_t groups = (K + 3) / 4;
  int32_t pairs_fit = 1;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < TFCC_RT_QGEMM_NR; ++j) {
        int8_t* q = widened + qgemm_packed_at(rows, p, i, j, 0);
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t k = i * span + t;
          q[t] = t < span ? packed[qgemm_packed_at(groups, p, k / 4, j, k % 4)]
                          : 0;
        }
        if (!qgemm_group_pairs_fit(q))
          pairs_fit = 0;
      }
  /* The same column sums (zeros added), then the flag. */
  int8_t* sums = widened + panels * rows * TFCC_RT_QGEMM_NR * 4;
  memcpy(sums, packed + panels * groups * TFCC_RT_QGEMM_NR * 4,
         (size_t)(panels * TFCC_RT_QGEMM_NR * 4));
  store_le32(sums + panels * TFCC_RT_QGEMM_NR * 4, (uint32_t)pairs_fit);
}

/* The uint8 depthwise convolution's weights (depthwise_u8.c): floats, then
 * each channel's sum. */
int64_t tfcc_rt_depthwise_u8s8_packed_size(int64_t taps, int64_t c) {
  if (taps <= 0 || c <= 0)
    return 0;
  return (taps + 1) * c;
}

void tfcc_rt_depthwise_u8s8_pack(int64_t taps, int64_t c,
                                 const int8_t* weights, float* packed) {
  if (taps <= 0 || c <= 0)
    return;
  float* sums = packed + taps * c;
  for (int64_t ch = 0; ch < c; ++ch)
    sums[ch] = 0.0f;
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t ch = 0; ch < c; ++ch) {
      packed[t * c + ch] = (float)weights[t * c + ch];
      sums[ch] += (float)weights[t * c + ch];
    }
}
