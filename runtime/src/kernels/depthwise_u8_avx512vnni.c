/* depthwise_u8_avx512vnni.c - the uint8 depthwise convolution's 3x3 windows
 * with AVX512_VNNI (depthwise_u8_vnni.inc on zmm: 64 channels per block,
 * masked loads and stores for the last block and the padding, pairs of
 * 32-channel pixels). CMakeLists gives this file -march=x86-64-v4
 * -mavx512vnni; it runs only where CPUID reports VNNI. */
#include "qgemm_internal.h"

#include <immintrin.h>

#define DV_INL static inline __attribute__((always_inline))
#define DV_PFX _mm512_
#define DV_CH 64
#define DV_PAIRS 1
#define DV_FN tfcc_dwq_rows_avx512vnni

typedef __m512i dv_i;
typedef __m512 dv_f;
typedef __mmask64 dv_mask; /* the bytes a load or store touches */

DV_INL dv_i dv_zero(void) { return _mm512_setzero_si512(); }
DV_INL dv_i dv_dot(dv_i acc, dv_i u8, dv_i s8) {
  return _mm512_dpbusd_epi32(acc, u8, s8);
}
DV_INL dv_i dv_and(dv_i a, dv_i b) { return _mm512_and_si512(a, b); }
DV_INL dv_i dv_or(dv_i a, dv_i b) { return _mm512_or_si512(a, b); }
DV_INL dv_f dv_as_f(dv_i a) { return _mm512_castsi512_ps(a); }
DV_INL dv_i dv_as_i(dv_f a) { return _mm512_castps_si512(a); }

/* Lane L of out[k] = lane k of n[L] (a 4 x 4 transpose of 128-bit lanes). */
DV_INL void dv_lanes(const dv_f n[4], dv_f out[4]) {
  const dv_f lo01 = _mm512_shuffle_f32x4(n[0], n[1], _MM_SHUFFLE(1, 0, 1, 0));
  const dv_f lo23 = _mm512_shuffle_f32x4(n[2], n[3], _MM_SHUFFLE(1, 0, 1, 0));
  const dv_f hi01 = _mm512_shuffle_f32x4(n[0], n[1], _MM_SHUFFLE(3, 2, 3, 2));
  const dv_f hi23 = _mm512_shuffle_f32x4(n[2], n[3], _MM_SHUFFLE(3, 2, 3, 2));
  out[0] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(2, 0, 2, 0));
  out[1] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(3, 1, 3, 1));
  out[2] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(2, 0, 2, 0));
  out[3] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(3, 1, 3, 1));
}

/* 16 floats from p, the first `left` of them (else 0). */
DV_INL dv_f dv_loadf(const float* p, int64_t left) {
  const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF
                      : left > 0 ? (__mmask16)((1u << left) - 1)
                                 : (__mmask16)0;
  return _mm512_maskz_loadu_ps(m, p);
}

DV_INL dv_mask dv_block_bytes(int64_t valid) {
  return valid >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << valid) - 1);
}
DV_INL dv_mask dv_no_bytes(void) { return 0; }
/* The low and high 32 bytes, for pairs of pixels. */
DV_INL dv_mask dv_pair_bytes(int low, int high) {
  return (low ? (__mmask64)0xFFFFFFFFu : 0) |
         (high ? (__mmask64)0xFFFFFFFFu << 32 : 0);
}

/* The bytes m of p, the others zx (a masked load: no fault past them). */
DV_INL dv_i dv_load_bytes(dv_i zx, dv_mask m, const uint8_t* p,
                          const uint8_t* end) {
  (void)end;
  return _mm512_mask_loadu_epi8(zx, m, p);
}

DV_INL void dv_store_bytes(uint8_t* o, dv_mask m, dv_i v) {
  _mm512_mask_storeu_epi8(o, m, v);
}

#include "depthwise_u8_vnni.inc"
