/* qgemm_avx512vnni.c - the int8 GEMM micro-kernel with AVX512_VNNI
 * (CMakeLists gives this file -march=x86-64-v4 -mavx512vnni; run only when
 * CPUID reports VNNI): per group of 4 k, one 64-byte load per panel and one
 * vpdpbusd per (row, panel) with the row's 4 bytes broadcast as its u8
 * operand. Up to 8 rows x 2 panels (16 zmm accumulators), or x 3 panels
 * in the fused form (24: 11 loads per 24 vpdpbusd). The fused form
 * applies the epilogue (qgemm_vec.inc's arithmetic, or the folded one of
 * qgemm_internal.h) to the accumulators in registers and writes the
 * outputs. */
#include "qgemm_internal.h"

#include <immintrin.h>
#include <string.h>

/* The valid lanes of a 16-column panel with `cols` columns left (none
 * for cols <= 0). */
static inline __mmask16 panel_mask(int64_t cols) {
  return cols >= 16 ? (__mmask16)0xFFFF
         : cols > 0 ? (__mmask16)((1u << cols) - 1)
                    : (__mmask16)0;
}

/* The epilogue of qgemm_vec.inc on the accumulators of row m (columns n0
 * + [0, 16) of panel q, `mask` the valid ones), in registers. Activations
 * none, relu, clip and leaky relu only (tfcc_q_fused_supports). */
static inline __attribute__((always_inline)) void
epilogue_vnni(const tfcc_q_epilogue_args* ep, __m512i acc, __m512i zp_sums,
              __m512 scale, __m512 bias, int64_t m, int64_t n0,
              __mmask16 mask) {
  __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc, zp_sums)),
                             scale, bias);
  if (ep->res)
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, ep->res + m * ep->N + n0));
  switch (ep->act) {
  case TFCC_ACT_RELU:
    v = _mm512_max_ps(v, _mm512_setzero_ps());
    break;
  case TFCC_ACT_CLIP:
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(ep->alpha)),
                      _mm512_set1_ps(ep->beta));
    break;
  case TFCC_ACT_LEAKY_RELU: {
    __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LE_OQ);
    v = _mm512_mask_mul_ps(v, neg, v, _mm512_set1_ps(ep->alpha));
    break;
  }
  default:
    break;
  }
  if (ep->y_f32) {
    _mm512_mask_storeu_ps(ep->y_f32 + m * ep->N + n0, mask, v);
    return;
  }
  /* As qgemm_vec.inc: v times 1 / scale clamped to [-512, 512] (vmaxps gives
   * its second operand for a NaN, so a NaN becomes -512, then 0), rounded half
   * to even by the conversion, plus the zero point, saturated to [0, 255]. */
  __m512 t = _mm512_mul_ps(v, _mm512_set1_ps(1.0f / ep->out_scale));
  t = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(-512.0f)),
                    _mm512_set1_ps(512.0f));
  __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(t),
                               _mm512_set1_epi32(ep->out_zero_point));
  q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_setzero_si512()),
                       _mm512_set1_epi32(255));
  _mm512_mask_cvtepi32_storeu_epi8(ep->y_u8 + m * ep->N + n0, mask, q);
}

/* The folded uint8 epilogue (qgemm_internal.h) of a row's accumulators,
 * which started at -zp * colsum: one fma with the folded scale and offset,
 * one clamp to [lo, hi] (within [0, 255]), the conversion (half to even),
 * bytes. A whole row of two panels is one 32-byte store. */
static inline __attribute__((always_inline)) void
folded_row(const int NP, const __m512i acc[TFCC_QNP_WIDE],
           const __m512 scale[TFCC_QNP_WIDE],
           const __m512 offset[TFCC_QNP_WIDE], __m512 lo, __m512 hi, uint8_t* y,
           int64_t nr) {
  __m128i bytes[TFCC_QNP_WIDE];
#pragma clang loop unroll(full)
  for (int q = 0; q < NP; ++q) {
    __m512 t = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[q]), scale[q], offset[q]);
    t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
    bytes[q] = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(t));
  }
  if (NP >= 2 && nr == 16 * NP) {
    _mm256_storeu_si256((__m256i*)y, _mm256_set_m128i(bytes[1], bytes[0]));
    if (NP == 3)
      _mm_storeu_si128((__m128i*)(y + 32), bytes[2]);
    return;
  }
#pragma clang loop unroll(full)
  for (int q = 0; q < NP; ++q) {
    int64_t cols = nr - 16 * q;
    if (cols <= 0)
      break;
    __mmask16 mask = panel_mask(cols);
    _mm_mask_storeu_epi8(y + 16 * q, mask, bytes[q]);
  }
}

/* Two whole rows (two panels, 32 columns each) of the folded epilogue,
 * packed: the upper clamp in float (so that the conversion cannot
 * overflow), the conversion, two saturating packs (negatives to 0), one
 * dword permute into row order, the lower clamp on the bytes (lo8: the
 * lower of lo and hi rounded as the conversion rounds; rounding is
 * monotone, so clamping before or after it is the same, and a NaN,
 * converted to INT_MIN, packed to 0, ends at lo8 as in folded_row). 23
 * instructions where two folded_rows take 34. */
static inline __attribute__((always_inline)) void
folded_row_pair(const __m512i acc0[TFCC_QNP], const __m512i acc1[TFCC_QNP],
                const __m512 scale[TFCC_QNP], const __m512 offset[TFCC_QNP],
                __m512 hi, __m512i lo8, uint8_t* y0, uint8_t* y1) {
  __m512i q[4];
#pragma clang loop unroll(full)
  for (int r = 0; r < 4; ++r) {
    const __m512i a = r < 2 ? acc0[r & 1] : acc1[r & 1];
    __m512 t =
        _mm512_fmadd_ps(_mm512_cvtepi32_ps(a), scale[r & 1], offset[r & 1]);
    q[r] = _mm512_cvtps_epi32(_mm512_min_ps(hi, t));
  }
  /* Per 128-bit lane k: dwords row0[4k..], row0[16 + 4k..], row1[4k..],
   * row1[16 + 4k..] (4 bytes each). */
  const __m512i bytes = _mm512_packus_epi16(_mm512_packus_epi32(q[0], q[1]),
                                            _mm512_packus_epi32(q[2], q[3]));
  const __m512i order =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i rows =
      _mm512_max_epu8(_mm512_permutexvar_epi32(order, bytes), lo8);
  _mm256_storeu_si256((__m256i*)y0, _mm512_castsi512_si256(rows));
  _mm256_storeu_si256((__m256i*)y1, _mm512_extracti64x4_epi64(rows, 1));
}

/* Groups of 4 k ahead at which the panels of B are prefetched into L1: a
 * tile over a long K streams its two panels (K * 32 bytes) from L2, which
 * the hardware prefetchers of Intel's cores did not keep up with
 * (docs/quantization.md). Past the end of B a prefetch is harmless. */
#ifndef TFCC_QB_PREFETCH
#define TFCC_QB_PREFETCH 16
#endif

/* Group gg of B (g of A, from the rows at a[i] + off): every row's 4 bytes
 * broadcast, one vpdpbusd per (row, panel). */
static inline __attribute__((always_inline)) void
vnni_group(const int MR, const int NP, __m512i acc[TFCC_QMR][TFCC_QNP_WIDE],
           const uint8_t* const a[TFCC_QMR], int64_t off, const int8_t* b0,
           const int8_t* b1, const int8_t* b2, int64_t gg) {
  _mm_prefetch((const char*)(b0 + (gg + TFCC_QB_PREFETCH) * 64), _MM_HINT_T0);
  if (NP > 1)
    _mm_prefetch((const char*)(b1 + (gg + TFCC_QB_PREFETCH) * 64), _MM_HINT_T0);
  if (NP > 2)
    _mm_prefetch((const char*)(b2 + (gg + TFCC_QB_PREFETCH) * 64), _MM_HINT_T0);
  __m512i w0 = _mm512_loadu_si512(b0 + gg * 64);
  __m512i w1 = NP > 1 ? _mm512_loadu_si512(b1 + gg * 64) : w0;
  __m512i w2 = NP > 2 ? _mm512_loadu_si512(b2 + gg * 64) : w0;
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    int32_t v;
    memcpy(&v, a[i] + off, 4);
    __m512i x = _mm512_set1_epi32(v);
    acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
    if (NP > 1)
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
    if (NP > 2)
      acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], x, w2);
  }
}

/* SEG: A through p->rows in segments (qgemm_internal.h), a constant of each
 * inlined copy so that the GEMM's loop is as before. POOL (MR 4 or 8, with
 * ep): the epilogue on the largest sum of each 2 x 2 window of rows
 * (tfcc_quk_args' pool2x2), MR / 4 output rows from m0. */
static inline __attribute__((always_inline)) void
quk_vnni(const tfcc_quk_args* p, const int MR_IN, const int NP, const int SEG,
         const int POOL, const tfcc_q_epilogue_args* ep, int64_t m0, int64_t n0,
         int64_t nr) {
  const int MR = MR_IN;
  int64_t K = p->K, full = K / 4, groups = (K + 3) / 4;
  const int8_t* b0 = p->b;
  const int8_t* b1 = p->b + groups * 64;
  const int8_t* b2 = p->b + 2 * groups * 64;
  const uint8_t* a[TFCC_QMR];
  __m512i acc[TFCC_QMR][TFCC_QNP_WIDE];
  /* The folded epilogue's accumulators start at -zp * colsum (exact). */
  const int folded = ep && ep->folded;
  __m512i init[TFCC_QNP_WIDE];
#pragma clang loop unroll(full)
  for (int q = 0; q < NP; ++q)
    init[q] = folded ? _mm512_mullo_epi32(
                           _mm512_loadu_si512(ep->colsums + 4 * (n0 + 16 * q)),
                           _mm512_set1_epi32(-ep->a_zero_point))
                     : _mm512_setzero_si512();
    /* Loops over rows and panels fully unrolled (MR, NP are constants of
     * each inlined copy), so the accumulators live in registers. */
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    a[i] = SEG ? p->rows[i] : p->a + i * p->lda;
    /* Opaque: LLVM would derive each row from the previous one by lda in
     * the loop (7 adds a group); as separate bases every broadcast is one
     * indexed load, as in the segmented loop (fewer uops a vpdpbusd, which
     * counts when the core's other thread is busy). */
    __asm__("" : "+r"(a[i]));
#pragma clang loop unroll(full)
    for (int q = 0; q < NP; ++q)
      acc[i][q] = init[q];
  }
  if (SEG) {
    /* Whole groups only: seg_len is a multiple of 4. */
    const int64_t seg_groups = p->seg_len / 4;
    int64_t gg = 0;
    for (int64_t s = 0; s < p->nseg; ++s) {
      const int64_t off = s * p->seg_stride;
      for (int64_t g = 0; g < seg_groups; ++g, ++gg)
        vnni_group(MR, NP, acc, a, off + 4 * g, b0, b1, b2, gg);
    }
  } else {
    for (int64_t g = 0; g < full; ++g)
      vnni_group(MR, NP, acc, a, 4 * g, b0, b1, b2, g);
  }
  if (!SEG && full < groups) { /* the last 1-3 k: bytes past K are 0 */
    __m512i w0 = _mm512_loadu_si512(b0 + full * 64);
    __m512i w1 = NP > 1 ? _mm512_loadu_si512(b1 + full * 64) : w0;
    __m512i w2 = NP > 2 ? _mm512_loadu_si512(b2 + full * 64) : w0;
    /* A masked load reads none of the bytes past K (no fault either). */
    __mmask16 tail = (__mmask16)((1u << (K - 4 * full)) - 1);
#pragma clang loop unroll(full)
    for (int i = 0; i < MR; ++i) {
      __m512i x =
          _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8(tail, a[i] + 4 * full));
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
      if (NP > 1)
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
      if (NP > 2)
        acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], x, w2);
    }
  }
  /* Window w's rows: 2w, 2w + 1 of the first half, the same of the
   * second; its largest sums into row w (rows read before written). */
  const int OR = POOL ? MR / 4 : MR; /* rows the epilogue writes */
  if (POOL) {
#pragma clang loop unroll(full)
    for (int w = 0; w < MR / 4; ++w)
#pragma clang loop unroll(full)
      for (int q = 0; q < NP; ++q)
        acc[w][q] =
            _mm512_max_epi32(_mm512_max_epi32(acc[2 * w][q], acc[2 * w + 1][q]),
                             _mm512_max_epi32(acc[MR / 2 + 2 * w][q],
                                              acc[MR / 2 + 2 * w + 1][q]));
  }
  if (!ep) { /* np <= TFCC_QNP here: p->acc's rows hold TFCC_QNR_TILE */
#pragma clang loop unroll(full)
    for (int i = 0; i < MR; ++i)
#pragma clang loop unroll(full)
      for (int q = 0; q < (NP < TFCC_QNP ? NP : TFCC_QNP); ++q)
        _mm512_storeu_si512(p->acc + i * TFCC_QNR_TILE + q * 16, acc[i][q]);
    return;
  }
  if (folded) {
    const tfcc_q_folded f = ep->fold;
    __m512 scale[TFCC_QNP_WIDE], offset[TFCC_QNP_WIDE];
#pragma clang loop unroll(full)
    for (int q = 0; q < NP; ++q) {
      int64_t cols = nr - 16 * q;
      __mmask16 mask = panel_mask(cols);
      int64_t n = n0 + 16 * q;
      const __m512 inv = _mm512_set1_ps(f.inv);
      scale[q] =
          _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, ep->scales + n), inv);
      const __m512 bias = ep->bias ? _mm512_maskz_loadu_ps(mask, ep->bias + n)
                                   : _mm512_setzero_ps();
      offset[q] =
          _mm512_add_ps(_mm512_mul_ps(bias, inv), _mm512_set1_ps(f.zpo));
    }
    const __m512 lo = _mm512_set1_ps(f.lo), hi = _mm512_set1_ps(f.hi);
    /* A local: the byte stores may alias *ep. */
    const int64_t N = ep->N;
    uint8_t* y = ep->y_u8 + m0 * N + n0;
    if (NP == 2 && nr == 32 && OR > 1) {
      /* Crossed bounds (lo > hi) give hi, as folded_row's order does. */
      const __m512i lo8 = _mm512_set1_epi8(
          (char)_mm_cvtss_si32(_mm_set_ss(f.lo < f.hi ? f.lo : f.hi)));
#pragma clang loop unroll(full)
      for (int j = 0; j < OR / 2; ++j)
        folded_row_pair(acc[2 * j], acc[2 * j + 1], scale, offset, hi, lo8,
                        y + 2 * j * N, y + (2 * j + 1) * N);
      if (OR % 2)
        folded_row(NP, acc[OR - 1], scale, offset, lo, hi, y + (OR - 1) * N,
                   nr);
      return;
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < OR; ++i)
      folded_row(NP, acc[i], scale, offset, lo, hi, y + i * N, nr);
    return;
  }
#pragma clang loop unroll(full)
  for (int q = 0; q < NP; ++q) {
    int64_t cols = nr - 16 * q; /* >= 1: np covers nr */
    __mmask16 mask = panel_mask(cols);
    int64_t n = n0 + 16 * q;
    __m512i zp_sums = _mm512_setzero_si512();
    if (ep->colsums)
      zp_sums = _mm512_mullo_epi32(
          _mm512_maskz_loadu_epi32(mask, ep->colsums + 4 * n),
          _mm512_set1_epi32(ep->a_zero_point));
    __m512 scale = _mm512_maskz_loadu_ps(mask, ep->scales + n);
    __m512 bias = ep->bias ? _mm512_maskz_loadu_ps(mask, ep->bias + n)
                           : _mm512_setzero_ps();
#pragma clang loop unroll(full)
    for (int i = 0; i < OR; ++i)
      epilogue_vnni(ep, acc[i][q], zp_sums, scale, bias, m0 + i, n, mask);
  }
}

/* The inlined copy for MR rows, POOL, and the tile's segments and panels
 * (3: with an epilogue and no pooling only, as qgemm.c gives them). */
#define QUK_SELECT(MR, POOL)                                                   \
  if (p->rows) {                                                               \
    if (!POOL && p->np > 2)                                                    \
      quk_vnni(p, MR, 3, 1, POOL, ep, m0, n0, nr);                             \
    else if (p->np > 1)                                                        \
      quk_vnni(p, MR, 2, 1, POOL, ep, m0, n0, nr);                             \
    else                                                                       \
      quk_vnni(p, MR, 1, 1, POOL, ep, m0, n0, nr);                             \
  } else if (!POOL && p->np > 2) {                                             \
    quk_vnni(p, MR, 3, 0, POOL, ep, m0, n0, nr);                               \
  } else if (p->np > 1) {                                                      \
    quk_vnni(p, MR, 2, 0, POOL, ep, m0, n0, nr);                               \
  } else {                                                                     \
    quk_vnni(p, MR, 1, 0, POOL, ep, m0, n0, nr);                               \
  }                                                                            \
  return;
#define QUK_CASE(MR)                                                           \
  case MR:                                                                     \
    QUK_SELECT(MR, 0)
/* With the pooled tiles (with an epilogue). */
#define QUK_POOL_CASE(MR)                                                      \
  case MR:                                                                     \
    if (p->pool2x2 && ep) {                                                    \
      QUK_SELECT(MR, 1)                                                        \
    }                                                                          \
    QUK_SELECT(MR, 0)

/* ep NULL: the int32 sums to p->acc; else the epilogue's outputs. */
static void quk_dispatch(const tfcc_quk_args* p, const tfcc_q_epilogue_args* ep,
                         int64_t m0, int64_t n0, int64_t nr) {
  _Static_assert(TFCC_QMR == 8 && TFCC_QNP == 2, "cases below");
  switch (p->mr) {
    QUK_CASE(1)
    QUK_CASE(2)
    QUK_CASE(3)
    QUK_POOL_CASE(4)
    QUK_CASE(5)
    QUK_CASE(6)
    QUK_CASE(7)
    QUK_POOL_CASE(8)
  default:
    return;
  }
}

void tfcc_quk_avx512vnni(const tfcc_quk_args* p) {
  quk_dispatch(p, NULL, 0, 0, 0);
}

void tfcc_quk_avx512vnni_fused(const tfcc_quk_args* p,
                               const tfcc_q_epilogue_args* ep, int64_t m0,
                               int64_t n0, int64_t nr) {
  quk_dispatch(p, ep, m0, n0, nr);
}
