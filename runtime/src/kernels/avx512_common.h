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

/* exp(x) for x in [-88, 88]: Cody-Waite range reduction + degree-6
 * polynomial (~1-2 ulp), then scaling by 2^n. */
INL __m512 v_exp(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)),
                    _mm512_set1_ps(88.3f));
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500E-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894E-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459E-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201E-1f));
  __m512 r2 = _mm512_mul_ps(r, r);
  p = _mm512_fmadd_ps(p, r2, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

INL __m512 v_act(__m512 v, int32_t act, float alpha, float beta) {
  if (act == TFCC_ACT_SIGMOID) {
    __m512 e = v_exp(_mm512_sub_ps(_mm512_setzero_ps(), v));
    return _mm512_div_ps(_mm512_set1_ps(1.0f),
                         _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  }
  return v_act_piecewise(v, act, alpha, beta);
}

/* X(1) X(2) ... X(14): each row count of a GEMM micro-kernel's tile, for
 * the per-MR functions and their tables. */
#define TFCC_UK_ROW_COUNTS(X)                                                  \
  X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14)
_Static_assert(TFCC_UK_MR == 14, "TFCC_UK_ROW_COUNTS lists 1..TFCC_UK_MR");

/* The tile of a GEMM micro-kernel (f32 and bf16 operands alike): the
 * columns of C it writes (m0 | m1, of nr) and what it adds to, C from the
 * previous K block or the residual (`prev`, rows ldp apart; NULL: nothing). */
typedef struct uk_tile {
  const float* prev;
  int64_t ldp;
  __mmask16 m0, m1;
} uk_tile;

/* The accumulators start from zero; what the tile adds to is prefetched now
 * and added at the end, so its cache misses overlap the products. NH:
 * 16-float halves computed, 1 or 2, or 3 for 16 + 8 columns. */
INL uk_tile uk_prologue(const int MR, const int NH, const tfcc_uk_args* p) {
  uk_tile t;
  const int64_t nr = p->nr;
  t.m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
  t.m1 = nr >= 32 ? 0xffff : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1) : 0;
  t.prev = NULL;
  t.ldp = p->ldc;
  if (!(p->flags & TFCC_UK_FIRST)) {
    t.prev = p->c;
  } else if (p->res) {
    t.prev = p->res;
    t.ldp = p->ldr;
  }
  if (t.prev) {
#pragma unroll
    for (int i = 0; i < MR; ++i) {
      _mm_prefetch((const char*)(t.prev + i * t.ldp), _MM_HINT_T0);
      _mm_prefetch(
          (const char*)(t.prev + i * t.ldp + (NH == 3 ? 23 : 16 * NH - 1)),
          _MM_HINT_T0);
    }
  }
  return t;
}

/* The GEMM micro-kernels' ending (f32 and bf16 operands alike) on an MR x
 * 32 tile of accumulators (NH: 16-float halves computed, 1 or 2, or 3 for 16
 * + 8 columns in c2): add what the tile continues; with TFCC_UK_LAST add
 * the bias and apply the activation; store the tile's columns. */
INL void uk_epilogue(const int MR, const int NH, __m512* c0, __m512* c1,
                     __m256* c2, const uk_tile* t, const tfcc_uk_args* p) {
  float* c = p->c;
  const int64_t ldc = p->ldc, ldp = t->ldp;
  const float* prev = t->prev;
  const __mmask16 m0 = t->m0, m1 = t->m1;
  if (prev) {
#pragma unroll
    for (int i = 0; i < MR; ++i) {
      c0[i] = _mm512_add_ps(c0[i], _mm512_maskz_loadu_ps(m0, prev + i * ldp));
      if (NH == 2)
        c1[i] = _mm512_add_ps(c1[i],
                              _mm512_maskz_loadu_ps(m1, prev + i * ldp + 16));
      if (NH == 3)
        c2[i] = _mm256_add_ps(
            c2[i], _mm256_maskz_loadu_ps((__mmask8)m1, prev + i * ldp + 16));
    }
  }
  if (p->flags & TFCC_UK_LAST) {
    if (p->bias) {
      __m512 bb0 = _mm512_maskz_loadu_ps(m0, p->bias);
      __m512 bb1 = NH == 2 ? _mm512_maskz_loadu_ps(m1, p->bias + 16) : bb0;
      __m256 bb2 = NH == 3 ? _mm256_maskz_loadu_ps((__mmask8)m1, p->bias + 16)
                           : _mm256_setzero_ps();
#pragma unroll
      for (int i = 0; i < MR; ++i) {
        c0[i] = _mm512_add_ps(c0[i], bb0);
        if (NH == 2)
          c1[i] = _mm512_add_ps(c1[i], bb1);
        if (NH == 3)
          c2[i] = _mm256_add_ps(c2[i], bb2);
      }
    }
    const int32_t act = p->act;
    if (act != TFCC_ACT_NONE) {
      const float al = p->alpha, be = p->beta;
#pragma unroll
      for (int i = 0; i < MR; ++i) {
        c0[i] = v_act(c0[i], act, al, be);
        if (NH == 2)
          c1[i] = v_act(c1[i], act, al, be);
        if (NH == 3)
          c2[i] = _mm512_castps512_ps256(
              v_act(_mm512_castps256_ps512(c2[i]), act, al, be));
      }
    }
  }
#pragma unroll
  for (int i = 0; i < MR; ++i) {
    _mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
    if (NH == 2)
      _mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
    if (NH == 3)
      _mm256_mask_storeu_ps(c + i * ldc + 16, (__mmask8)m1, c2[i]);
  }
}

#endif
