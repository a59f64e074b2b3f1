/* qgemm_avx2.c - the int8 GEMM micro-kernel for AVX2 (CMakeLists gives this
 * file -march=x86-64-v3). vpmaddubsw would add two u8 x s8 products into a
 * saturating int16 (255 * 127 * 2 > 32767), so both operands are widened to
 * int16 first and multiplied with vpmaddwd, which is exact: per group of 4 k
 * and 4 columns, one 256-bit vpmaddwd of the row's 4 values (repeated) by
 * the 16 weights leaves 2 partial sums per column, added pairwise at the
 * end. Rows two at a time, each with 4 accumulators per panel. Also the
 * epilogue (qgemm_vec.inc) built for AVX2. */
#include "qgemm_internal.h"

#include <immintrin.h>
#include <string.h>

/* The row's 4 bytes from k = 4g as int16, repeated in the 4 64-bit lanes;
 * bytes past K are 0 (never read). */
static inline __m256i row_group(const uint8_t* a, int64_t g, int64_t K) {
  int32_t v = 0;
  if (4 * g + 4 <= K)
    memcpy(&v, a + 4 * g, 4);
  else
    memcpy(&v, a + 4 * g, (size_t)(K - 4 * g));
  __m128i w = _mm_cvtepu8_epi16(_mm_cvtsi32_si128(v));
  return _mm256_broadcastq_epi64(w);
}

/* 8 int32 partial sums of columns (2 per column, 4 columns) x 2 -> the 8
 * column sums in order. */
static inline __m256i finish(__m256i lo, __m256i hi) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

static inline __attribute__((always_inline)) void
quk_rows(const tfcc_quk_args* p, int64_t i0, const int R) {
  int64_t groups = (p->K + 3) / 4;
  for (int64_t q = 0; q < p->np; ++q) {
    const int8_t* b = p->b + q * groups * 64;
    __m256i acc[2][4];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 4; ++j)
        acc[r][j] = _mm256_setzero_si256();
    for (int64_t g = 0; g < groups; ++g) {
      __m256i w[4];
      for (int j = 0; j < 4; ++j)
        w[j] = _mm256_cvtepi8_epi16(
            _mm_loadu_si128((const __m128i*)(b + g * 64 + j * 16)));
      for (int r = 0; r < R; ++r) {
        __m256i x = row_group(p->a + (i0 + r) * p->lda, g, p->K);
        for (int j = 0; j < 4; ++j)
          acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(x, w[j]));
      }
    }
    for (int r = 0; r < R; ++r) {
      int32_t* out = p->acc + (i0 + r) * TFCC_QNR_TILE + q * 16;
      _mm256_storeu_si256((__m256i*)out, finish(acc[r][0], acc[r][1]));
      _mm256_storeu_si256((__m256i*)(out + 8), finish(acc[r][2], acc[r][3]));
    }
  }
}

void tfcc_quk_avx2(const tfcc_quk_args* p) {
  int64_t i = 0;
  for (; i + 2 <= p->mr; i += 2)
    quk_rows(p, i, 2);
  if (i < p->mr)
    quk_rows(p, i, 1);
}

#define QV_SUFFIX(name) name##_avx2
#include "qgemm_vec.inc"
