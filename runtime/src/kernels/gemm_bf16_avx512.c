/* gemm_bf16_avx512.c - the GEMM of bf16 operands on AVX512_BF16
 * (TFCC_ACT_BF16_OPERANDS; CMakeLists gives this file -march=x86-64-v4
 * -mavx512bf16, and its code runs only where CPUID reports AVX512_BF16).
 *
 * The operands are f32 arrays holding bf16 values, so packing takes each
 * value's high half (exact) into the layouts kernels_internal.h describes.
 * Micro-kernel: an MR x 32 tile (MR <= 14, 28 zmm accumulators); per k pair
 * two 64-byte loads of the B panel (16 columns' pairs each) and, per row,
 * the row's pair broadcast as one dword and two vdpbf16ps: the multiply-adds
 * of two k per instruction, where an FMA does one. */
#include "kernels_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_common.h"

#include <string.h>

#define TGT_BF16                                                               \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,avx512bf16")))

/* ---- packing -------------------------------------------------------------- */

/* Word i of the result: the high half of float i of (lo, hi), i < 32. */
INL __m512i high_halves(__m512 lo, __m512 hi) {
  const __m512i odd = _mm512_set_epi16(
      63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29,
      27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_permutex2var_epi16(_mm512_castps_si512(lo), odd,
                                   _mm512_castps_si512(hi));
}

/* Dword j: (high half of r0[j], high half of r1[j]), the k pair of column j. */
INL __m512i pair_words(__m512 r0, __m512 r1) {
  return _mm512_mask_blend_epi16(0xAAAAAAAAu,
                                 _mm512_srli_epi32(_mm512_castps_si512(r0), 16),
                                 _mm512_castps_si512(r1));
}

TGT void tfcc_bf16_pack_a(const float* a, int64_t lda, int32_t trans_a,
                          int64_t mr, int64_t kc, uint16_t* dst) {
  const int64_t kp = (kc + 1) & ~(int64_t)1;
  for (int64_t i = 0; i < mr; ++i) {
    uint16_t* d = dst + i * kp;
    if (!trans_a) {
      const float* row = a + i * lda;
      for (int64_t k = 0; k < kp; k += 32) {
        const __mmask16 m0 = tail_mask(kc - k);
        const __mmask16 m1 = tail_mask(kc - k - 16 > 0 ? kc - k - 16 : 0);
        const __m512 v0 = _mm512_maskz_loadu_ps(m0, row + k);
        const __m512 v1 = _mm512_maskz_loadu_ps(m1, row + k + 16);
        const int64_t left = kp - k;
        const __mmask32 ms =
            left >= 32 ? 0xffffffffu : (__mmask32)((1u << left) - 1);
        _mm512_mask_storeu_epi16(d + k, ms, high_halves(v0, v1));
      }
    } else {
      int64_t k = 0;
      for (; k < kc; ++k) {
        uint32_t bits;
        memcpy(&bits, a + k * lda + i, sizeof bits);
        d[k] = (uint16_t)(bits >> 16);
      }
      for (; k < kp; ++k)
        d[k] = 0;
    }
  }
}

TGT void tfcc_bf16_pack_b(const float* B, int64_t ldb, int32_t trans_b,
                          int32_t b_packed, int64_t K, int64_t N, int64_t k0,
                          int64_t kc, int64_t p0, int64_t np, uint16_t* dst) {
  const int64_t kp = (kc + 1) & ~(int64_t)1;
  float rows[2][TFCC_UK_NR] __attribute__((aligned(64)));
  for (int64_t p = 0; p < np; ++p) {
    const int64_t n0 = (p0 + p) * TFCC_UK_NR;
    const int64_t nn = N - n0 < TFCC_UK_NR ? N - n0 : TFCC_UK_NR;
    const __mmask16 m0 = tail_mask(nn);
    const __mmask16 m1 = tail_mask(nn > 16 ? nn - 16 : 0);
    uint16_t* d = dst + p * kp * TFCC_UK_NR;
    for (int64_t k = 0; k < kc; k += 2) {
      const int two = k + 1 < kc;
      __m512 r[2][2]; /* [row k, k+1][columns 0-15, 16-31] */
      for (int t = 0; t < 2; ++t) {
        if (t == 1 && !two) {
          r[1][0] = r[1][1] = _mm512_setzero_ps();
        } else if (b_packed) {
          /* [ceil(N/32)][K][32], zero padded */
          const float* s = B + ((p0 + p) * K + k0 + k + t) * TFCC_UK_NR;
          r[t][0] = _mm512_loadu_ps(s);
          r[t][1] = _mm512_loadu_ps(s + 16);
        } else if (!trans_b) {
          const float* s = B + (k0 + k + t) * ldb + n0;
          r[t][0] = _mm512_maskz_loadu_ps(m0, s);
          r[t][1] = _mm512_maskz_loadu_ps(m1, s + 16);
        } else {
          const float* s = B + n0 * ldb + k0 + k + t;
          int64_t j = 0;
          for (; j < nn; ++j)
            rows[t][j] = s[j * ldb];
          for (; j < TFCC_UK_NR; ++j)
            rows[t][j] = 0.0f;
          r[t][0] = _mm512_load_ps(rows[t]);
          r[t][1] = _mm512_load_ps(rows[t] + 16);
        }
      }
      uint16_t* dk = d + k * TFCC_UK_NR;
      _mm512_storeu_si512(dk, pair_words(r[0][0], r[1][0]));
      _mm512_storeu_si512(dk + 32, pair_words(r[0][1], r[1][1]));
    }
  }
}

/* Columns [0, mr) of a k-major A whose K values come in taps (the filter
 * gradient's: value k at a + toff[k / kt] + (k % kt) * ldk), as k pairs:
 * dword i of pair k / 2 at dst[(k / 2) * ld + i]. */
TGT void tfcc_bf16_pack_a_taps(const float* a, int64_t ldk,
                               const int64_t* toff, int64_t kt, int64_t kc,
                               int64_t mr, int64_t ld, uint32_t* dst) {
  const __mmask16 m = tail_mask(mr);
  /* k = t * kt + s, walked without dividing */
  int64_t t = 0, s = 0;
  for (int64_t k = 0; k < kc; k += 2) {
    const __m512 r0 = _mm512_maskz_loadu_ps(m, a + toff[t] + s * ldk);
    if (++s == kt) {
      s = 0;
      ++t;
    }
    __m512 r1 = _mm512_setzero_ps();
    if (k + 1 < kc) {
      r1 = _mm512_maskz_loadu_ps(m, a + toff[t] + s * ldk);
      if (++s == kt) {
        s = 0;
        ++t;
      }
    }
    _mm512_mask_storeu_epi32(dst + (k / 2) * ld, m, pair_words(r0, r1));
  }
}

/* ---- micro-kernel --------------------------------------------------------- */

/* NH: 16-column halves computed, 1 (nr <= 16) or 2. KMAJOR: A as k pairs of
 * rows, row i's pair k the dword a[k * lda + i] (the filter gradient's), so a
 * pair's rows are one contiguous run; else rows of pairs, a[i * lda + 2k]. */
static inline __attribute__((always_inline)) TGT_BF16 void
ukb_body(const int MR, const int NH, const int KMAJOR, const tfcc_uk_args* p) {
  __m512 c0[TFCC_UK_MR], c1[TFCC_UK_MR];
  __m256 unused[1];
  const uk_tile tile = uk_prologue(MR, NH, p);
#pragma unroll
  for (int i = 0; i < MR; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  const uint16_t* a = (const uint16_t*)(const void*)p->a;
  const uint16_t* b = (const uint16_t*)(const void*)p->b;
  const int64_t lda = p->lda, kt = p->kt;
  /* Two row bases keep the addressing to base + index*scale forms. */
  const uint16_t* pa = a;
  const uint16_t* pb = a + 7 * lda;
  for (int64_t k = 0; k < kt; ++k) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh b1 =
        NH == 2 ? (__m512bh)_mm512_loadu_si512(b + 32) : b0;
    b += 64;
#pragma unroll
    for (int i = 0; i < MR; ++i) {
      const uint16_t* pair = KMAJOR ? a + 2 * (k * lda + i)
                             : i < 7 ? pa + i * lda + 2 * k
                                     : pb + (i - 7) * lda + 2 * k;
      int32_t bits;
      memcpy(&bits, pair, sizeof bits);
      const __m512bh av = (__m512bh)_mm512_set1_epi32(bits);
      c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
      if (NH == 2)
        c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
    }
  }
  uk_epilogue(MR, NH, c0, c1, unused, &tile, p);
}

/* A micro-kernel per row count, column halves (NH) and A layout (KMAJOR). */
#define UKB_FN(NAME, MR, NH, KMAJOR)                                           \
  static TGT_BF16 __attribute__((noinline)) void NAME(const tfcc_uk_args* p) { \
    ukb_body(MR, NH, KMAJOR, p);                                               \
  }
#define UKB(MR)                                                                \
  UKB_FN(ukb_##MR, MR, 2, 0)                                                   \
  UKB_FN(ukb_##MR##h, MR, 1, 0)                                                \
  UKB_FN(ukbk_##MR, MR, 2, 1)                                                  \
  UKB_FN(ukbk_##MR##h, MR, 1, 1)
TFCC_UK_ROW_COUNTS(UKB)

#define UKB_FULL(MR) ukb_##MR,
#define UKB_HALF(MR) ukb_##MR##h,
#define UKBK_FULL(MR) ukbk_##MR,
#define UKBK_HALF(MR) ukbk_##MR##h,

TGT_BF16 void tfcc_uk_avx512_bf16(const tfcc_uk_args* p) {
  static const tfcc_uk_fn full[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UKB_FULL)};
  static const tfcc_uk_fn half[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UKB_HALF)};
  (p->nr <= 16 ? half : full)[p->mr - 1](p);
}

TGT_BF16 void tfcc_uk_avx512_bf16_kmajor(const tfcc_uk_args* p) {
  static const tfcc_uk_fn full[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UKBK_FULL)};
  static const tfcc_uk_fn half[TFCC_UK_MR] = {TFCC_UK_ROW_COUNTS(UKBK_HALF)};
  (p->nr <= 16 ? half : full)[p->mr - 1](p);
}

#endif
