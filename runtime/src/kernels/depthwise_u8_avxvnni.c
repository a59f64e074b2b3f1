/* depthwise_u8_avxvnni.c - the uint8 depthwise convolution's 3x3 windows
 * with AVX-VNNI (depthwise_u8_vnni.inc on ymm: 32 channels per block).
 * Without byte masks, a column of the last block loads 32 bytes whole where
 * they lie inside the input (the bytes past its channels meet zero weights)
 * and through a copy at the input's end; its stores go through a copy.
 * CMakeLists gives this file -march=x86-64-v3 -mavxvnni; it runs only where
 * CPUID reports AVX-VNNI. */
#include "qgemm_internal.h"

#include <immintrin.h>
#include <string.h>

#define DV_INL static inline __attribute__((always_inline))
#define DV_PFX _mm256_
#define DV_CH 32
#define DV_PAIRS 0
#define DV_FN tfcc_dwq_rows_avxvnni

typedef __m256i dv_i;
typedef __m256 dv_f;
typedef int64_t dv_mask; /* the bytes a load or store touches: 0..32 */

DV_INL dv_i dv_zero(void) { return _mm256_setzero_si256(); }
DV_INL dv_i dv_dot(dv_i acc, dv_i u8, dv_i s8) {
  return _mm256_dpbusd_avx_epi32(acc, u8, s8);
}
DV_INL dv_i dv_and(dv_i a, dv_i b) { return _mm256_and_si256(a, b); }
DV_INL dv_i dv_or(dv_i a, dv_i b) { return _mm256_or_si256(a, b); }
DV_INL dv_f dv_as_f(dv_i a) { return _mm256_castsi256_ps(a); }
DV_INL dv_i dv_as_i(dv_f a) { return _mm256_castps_si256(a); }

/* Lane L of out[k] = lane k % 2 of n[2 L + k / 2]: channels 8 n + [0, 8)
 * into 16 L + 4 k + [0, 4). */
DV_INL void dv_lanes(const dv_f n[4], dv_f out[4]) {
  out[0] = _mm256_permute2f128_ps(n[0], n[2], 0x20);
  out[1] = _mm256_permute2f128_ps(n[0], n[2], 0x31);
  out[2] = _mm256_permute2f128_ps(n[1], n[3], 0x20);
  out[3] = _mm256_permute2f128_ps(n[1], n[3], 0x31);
}

/* 8 floats from p, the first `left` of them (else 0). */
DV_INL dv_f dv_loadf(const float* p, int64_t left) {
  if (left >= 8)
    return _mm256_loadu_ps(p);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m = _mm256_cmpgt_epi32(
      _mm256_set1_epi32((int32_t)(left > 0 ? left : 0)), lanes);
  return _mm256_maskload_ps(p, m);
}

DV_INL dv_mask dv_block_bytes(int64_t valid) { return valid; }
DV_INL dv_mask dv_no_bytes(void) { return 0; }

/* The first m bytes of p (32 where they all lie before end, the rest
 * meeting zero weights), the others zx. */
DV_INL dv_i dv_load_bytes(dv_i zx, dv_mask m, const uint8_t* p,
                          const uint8_t* end) {
  if (m == 0)
    return zx;
  if (m == 32 || end - p >= 32)
    return _mm256_loadu_si256((const __m256i*)p);
  uint8_t buf[32];
  _mm256_storeu_si256((__m256i*)buf, zx);
  memcpy(buf, p, (size_t)m);
  return _mm256_loadu_si256((const __m256i*)buf);
}

DV_INL void dv_store_bytes(uint8_t* o, dv_mask m, dv_i v) {
  if (m == 32) {
    _mm256_storeu_si256((__m256i*)o, v);
    return;
  }
  uint8_t buf[32];
  _mm256_storeu_si256((__m256i*)buf, v);
  memcpy(o, buf, (size_t)m);
}

#include "depthwise_u8_vnni.inc"
