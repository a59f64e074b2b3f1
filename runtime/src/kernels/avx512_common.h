/* avx512_common.h - the helpers every AVX-512 kernel file shares: the
 * target attribute, 16-lane tail masks and the piecewise epilogue
 * activations. Include only inside a file's x86-64 section. */
#ifndef TFCC_RUNTIME_KERNELS_AVX512_COMMON_H
#define TFCC_RUNTIME_KERNELS_AVX512_COMMON_H

#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))
#define INL static inline __attribute__((always_inline)) TGT

/* The first min(left, 16) lanes. */
INL __mmask16 tail_mask(int64_t left) {
  return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

/* The activations made of compares, min/max and multiplies (TFCC_ACT_*);
 * any other (none, sigmoid) returns v unchanged for the caller to apply. */
INL __m512 v_act_piecewise(__m512 v, int32_t act, float alpha, float beta) {
  switch (act) {
  case TFCC_ACT_RELU:
    return _mm512_max_ps(v, _mm512_setzero_ps());
  case TFCC_ACT_CLIP:
    return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(alpha)),
                         _mm512_set1_ps(beta));
  case TFCC_ACT_LEAKY_RELU: {
    __mmask16 pos = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_mov_ps(_mm512_mul_ps(v, _mm512_set1_ps(alpha)), pos, v);
  }
  case TFCC_ACT_HARD_SWISH: {
    __m512 t = _mm512_add_ps(v, _mm512_set1_ps(3.0f));
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_setzero_ps()),
                      _mm512_set1_ps(6.0f));
    return _mm512_div_ps(_mm512_mul_ps(v, t), _mm512_set1_ps(6.0f));
  }
  default:
    return v;
  }
}

#endif
