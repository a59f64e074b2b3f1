/* winograd_avx512.c - AVX-512 input and output transforms of the Winograd
 * F(2x2, 3x3) convolution (winograd.c), 16 channels per vector, the channel
 * tail masked. Same arithmetic, in the same order, as the portable
 * transforms in winograd.c, so both paths round alike. */
#include "kernels_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_common.h"

TGT void tfcc_wg_in_avx512(const float* const* s, int64_t c, float* v,
                           int64_t ps) {
  for (int64_t k = 0; k < c; k += 16) {
    const __mmask16 mk = tail_mask(c - k);
    __m512 t[4][4];
#pragma unroll
    for (int e = 0; e < 4; ++e) { /* B^T d */
      const __m512 d0 = _mm512_maskz_loadu_ps(mk, s[e] + k);
      const __m512 d1 = _mm512_maskz_loadu_ps(mk, s[4 + e] + k);
      const __m512 d2 = _mm512_maskz_loadu_ps(mk, s[8 + e] + k);
      const __m512 d3 = _mm512_maskz_loadu_ps(mk, s[12 + e] + k);
      t[0][e] = _mm512_sub_ps(d0, d2);
      t[1][e] = _mm512_add_ps(d1, d2);
      t[2][e] = _mm512_sub_ps(d2, d1);
      t[3][e] = _mm512_sub_ps(d1, d3);
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) { /* (B^T d) B */
      _mm512_mask_storeu_ps(v + (4 * a + 0) * ps + k, mk,
                            _mm512_sub_ps(t[a][0], t[a][2]));
      _mm512_mask_storeu_ps(v + (4 * a + 1) * ps + k, mk,
                            _mm512_add_ps(t[a][1], t[a][2]));
      _mm512_mask_storeu_ps(v + (4 * a + 2) * ps + k, mk,
                            _mm512_sub_ps(t[a][2], t[a][1]));
      _mm512_mask_storeu_ps(v + (4 * a + 3) * ps + k, mk,
                            _mm512_sub_ps(t[a][1], t[a][3]));
    }
  }
}


TGT void tfcc_wg_out_avx512(const float* m, int64_t ps, int64_t nr,
                            const float* bias, const float* res, float* y,
                            int64_t rs, int64_t cs, int rows, int cols,
                            int32_t act, float alpha, float beta) {
  for (int64_t k = 0; k < nr; k += 16) {
    const __mmask16 mk = tail_mask(nr - k);
    __m512 s[2][4], o[2][2];
#pragma unroll
    for (int e = 0; e < 4; ++e) { /* A^T M */
      const __m512 m0 = _mm512_loadu_ps(m + e * ps + k);
      const __m512 m1 = _mm512_loadu_ps(m + (4 + e) * ps + k);
      const __m512 m2 = _mm512_loadu_ps(m + (8 + e) * ps + k);
      const __m512 m3 = _mm512_loadu_ps(m + (12 + e) * ps + k);
      s[0][e] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
      s[1][e] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) { /* (A^T M) A */
      o[r][0] = _mm512_add_ps(_mm512_add_ps(s[r][0], s[r][1]), s[r][2]);
      o[r][1] = _mm512_sub_ps(_mm512_sub_ps(s[r][1], s[r][2]), s[r][3]);
    }
    const __m512 bv =
        bias ? _mm512_maskz_loadu_ps(mk, bias + k) : _mm512_setzero_ps();
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < cols; ++q) {
        const int64_t off = r * rs + q * cs + k;
        __m512 val = o[r][q];
        if (bias)
          val = _mm512_add_ps(val, bv);
        if (res)
          val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(mk, res + off));
        val = v_act_piecewise(val, act, alpha, beta);
        _mm512_mask_storeu_ps(y + off, mk, val);
        if (act == TFCC_ACT_SIGMOID)
          for (int64_t l = 0; l < 16 && k + l < nr; ++l)
            y[off + l] = tfcc_act_scalar(y[off + l], act, alpha, beta);
      }
  }
}

INL __m512 wg_addsub(int sub, __m512 a, __m512 b) {
  return sub ? _mm512_sub_ps(a, b) : _mm512_add_ps(a, b);
}

TGT void tfcc_wg_in1_avx512(const float* const* s, int p, int64_t c,
                            float* v) {
  const int a = p / 4, e = p % 4;
  const int i1 = tfcc_wg_idx[a][0], i2 = tfcc_wg_idx[a][1];
  const int j1 = tfcc_wg_idx[e][0], j2 = tfcc_wg_idx[e][1];
  const float* r0 = s[4 * i1 + j1];
  const float* r1 = s[4 * i1 + j2];
  const float* r2 = s[4 * i2 + j1];
  const float* r3 = s[4 * i2 + j2];
  const int sa = tfcc_wg_sub[a], se = tfcc_wg_sub[e];
  for (int64_t k = 0; k < c; k += 16) { /* rows first, as tfcc_wg_in_* */
    const __mmask16 mk = tail_mask(c - k);
    const __m512 u0 = wg_addsub(sa, _mm512_maskz_loadu_ps(mk, r0 + k),
                                _mm512_maskz_loadu_ps(mk, r2 + k));
    const __m512 u1 = wg_addsub(sa, _mm512_maskz_loadu_ps(mk, r1 + k),
                                _mm512_maskz_loadu_ps(mk, r3 + k));
    _mm512_mask_storeu_ps(v + k, mk, wg_addsub(se, u0, u1));
  }
}

TGT void tfcc_wg_acc_avx512(const float* m, int64_t nr, const float* coef,
                            float* acc, int64_t lds) {
  for (int64_t k = 0; k < nr; k += 16) {
    const __mmask16 mk = tail_mask(nr - k);
    const __m512 mv = _mm512_maskz_loadu_ps(mk, m + k);
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      if (coef[o] == 0.0f)
        continue;
      float* d = acc + o * lds + k;
      const __m512 dv = _mm512_maskz_loadu_ps(mk, d);
      _mm512_mask_storeu_ps(d, mk, wg_addsub(coef[o] < 0.0f, dv, mv));
    }
  }
}

TGT void tfcc_wg_fin_avx512(const float* acc, int64_t nr, const float* bias,
                            const float* res, float* y, int32_t act,
                            float alpha, float beta) {
  for (int64_t k = 0; k < nr; k += 16) {
    const __mmask16 mk = tail_mask(nr - k);
    __m512 val = _mm512_maskz_loadu_ps(mk, acc + k);
    if (bias)
      val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(mk, bias + k));
    if (res)
      val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(mk, res + k));
    val = v_act_piecewise(val, act, alpha, beta);
    _mm512_mask_storeu_ps(y + k, mk, val);
    if (act == TFCC_ACT_SIGMOID)
      for (int64_t l = 0; l < 16 && k + l < nr; ++l)
        y[k + l] = tfcc_act_scalar(y[k + l], act, alpha, beta);
  }
}

#else /* not x86-64: never selected */
void tfcc_wg_in_avx512(const float* const* s, int64_t c, float* v,
                       int64_t ps) {
  tfcc_wg_in_generic(s, c, v, ps);
}
void tfcc_wg_out_avx512(const float* m, int64_t ps, int64_t nr,
                        const float* bias, const float* res, float* y,
                        int64_t rs, int64_t cs, int rows, int cols,
                        int32_t act, float alpha, float beta) {
  tfcc_wg_out_generic(m, ps, nr, bias, res, y, rs, cs, rows, cols, act, alpha,
                      beta);
}
void tfcc_wg_in1_avx512(const float* const* s, int p, int64_t c, float* v) {
  tfcc_wg_in1_generic(s, p, c, v);
}
void tfcc_wg_acc_avx512(const float* m, int64_t nr, const float* coef,
                        float* acc, int64_t lds) {
  tfcc_wg_acc_generic(m, nr, coef, acc, lds);
}
void tfcc_wg_fin_avx512(const float* acc, int64_t nr, const float* bias,
                        const float* res, float* y, int32_t act, float alpha,
                        float beta) {
  tfcc_wg_fin_generic(acc, nr, bias, res, y, act, alpha, beta);
}
#endif
