/* depthwise_avx512.c - AVX-512 NHWC depthwise convolution, kernel width 3,
 * multiplier 1, dilation_w 1, stride_w 1 or 2 (MobileNet's layers).
 *
 * One output row at a time, pixel-major: for a group of P interior output
 * pixels, every 16-channel block in turn (so the input rows and the output
 * row are walked contiguously, which the hardware prefetchers follow). For
 * one block and one kernel row the (P-1)*sw + 3 input column vectors are each
 * loaded once and feed every output pixel of the group that uses them (up to
 * 3 FMAs per load at stride 1); the 3 weights of the kernel row sit in
 * registers. Kernel rows outside the image are skipped (a runtime row count),
 * the border pixels (columns outside the image) take a per-pixel path with a
 * clipped column range, and the activation is fused into the stores. The
 * channel tail (c % 16) is masked; a masked-off lane never reads past the
 * tensor except at the tensor's last pixel. */
#include "kernels_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_common.h"

#define DW3_MAX_KH 16
#define DW3_P 8 /* pixels per group */

typedef struct dw3_row {
  const float* xr[DW3_MAX_KH]; /* input rows in the image (pixel 0) */
  const float* wr[DW3_MAX_KH]; /* their kernel rows (tap column 0) */
  int nr;
  int64_t C;
  const float* bias;
  int32_t act;
  float alpha, beta;
} dw3_row;


/* Output pixels [s, s+P) of channels [o, o+16) (lanes mk): x points at the
 * input column of pixel s's tap 0, channel o, in row 0 of the row table
 * (offsets of the other rows are relative to it); y / res at pixel s,
 * channel o. */
INL void dw3_group(const int P, const int SW, const dw3_row* R, int64_t xoff,
                   int64_t o, __mmask16 mk, const float* res, float* y) {
  const int64_t C = R->C;
  __m512 acc[DW3_P];
  const __m512 bv =
      R->bias ? _mm512_maskz_loadu_ps(mk, R->bias + o) : _mm512_setzero_ps();
#pragma unroll
  for (int q = 0; q < P; ++q)
    acc[q] = bv;
  for (int i = 0; i < R->nr; ++i) {
    const float* x = R->xr[i] + xoff + o;
    const float* wp = R->wr[i] + o;
    const __m512 w0 = _mm512_maskz_loadu_ps(mk, wp);
    const __m512 w1 = _mm512_maskz_loadu_ps(mk, wp + C);
    const __m512 w2 = _mm512_maskz_loadu_ps(mk, wp + 2 * C);
#pragma unroll
    for (int k = 0; k < (P - 1) * SW + 3; ++k) {
      const __m512 v = _mm512_maskz_loadu_ps(mk, x + k * C);
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const int j = k - q * SW;
        if (j >= 0 && j < 3)
          acc[q] = _mm512_fmadd_ps(v, j == 0 ? w0 : j == 1 ? w1 : w2, acc[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < P; ++q) {
    __m512 v = acc[q];
    if (res)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, res + q * C));
    v = v_act_piecewise(v, R->act, R->alpha, R->beta);
    _mm512_mask_storeu_ps(y + q * C, mk, v);
  }
}

/* P pixels from s over every channel block. */
INL void dw3_pixels(const int P, const int SW, const dw3_row* R, int64_t xoff,
                    const float* res, float* y) {
  const int64_t C = R->C;
  int64_t o = 0;
  for (; o + 16 <= C; o += 16)
    dw3_group(P, SW, R, xoff, o, (__mmask16)0xffff, res ? res + o : NULL,
              y + o);
  if (o < C)
    dw3_group(P, SW, R, xoff, o, (__mmask16)((1u << (C - o)) - 1),
              res ? res + o : NULL, y + o);
}

#define DW3_FN(P, SW)                                                          \
  static TGT __attribute__((noinline)) void dw3_p##P##_s##SW(                  \
      const dw3_row* R, int64_t xoff, const float* res, float* y) {            \
    dw3_pixels(P, SW, R, xoff, res, y);                                        \
  }
#define DW3_FNS(SW)                                                            \
  DW3_FN(1, SW)                                                                \
  DW3_FN(2, SW)                                                                \
  DW3_FN(3, SW)                                                                \
  DW3_FN(4, SW)                                                                \
  DW3_FN(5, SW)                                                                \
  DW3_FN(6, SW)                                                                \
  DW3_FN(7, SW)                                                                \
  DW3_FN(8, SW)
DW3_FNS(1)
DW3_FNS(2)

typedef void (*dw3_fn)(const dw3_row*, int64_t, const float*, float*);
static const dw3_fn dw3_fns[2][DW3_P] = {
    {dw3_p1_s1, dw3_p2_s1, dw3_p3_s1, dw3_p4_s1, dw3_p5_s1, dw3_p6_s1,
     dw3_p7_s1, dw3_p8_s1},
    {dw3_p1_s2, dw3_p2_s2, dw3_p3_s2, dw3_p4_s2, dw3_p5_s2, dw3_p6_s2,
     dw3_p7_s2, dw3_p8_s2}};

/* One border pixel: input column x0 + j for tap columns j in [j0, j1). */
static TGT __attribute__((noinline)) void dw3_border(const dw3_row* R,
                                                     int64_t x0, int64_t j0,
                                                     int64_t j1,
                                                     const float* res,
                                                     float* y) {
  const int64_t C = R->C;
  for (int64_t o = 0; o < C; o += 16) {
    const __mmask16 mk =
        C - o >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - o)) - 1);
    __m512 a =
        R->bias ? _mm512_maskz_loadu_ps(mk, R->bias + o) : _mm512_setzero_ps();
    for (int i = 0; i < R->nr; ++i)
      for (int64_t j = j0; j < j1; ++j)
        a = _mm512_fmadd_ps(
            _mm512_maskz_loadu_ps(mk, R->xr[i] + (x0 + j) * C + o),
            _mm512_maskz_loadu_ps(mk, R->wr[i] + j * C + o), a);
    if (res)
      a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(mk, res + o));
    _mm512_mask_storeu_ps(y + o, mk, v_act_piecewise(a, R->act, R->alpha, R->beta));
  }
}

/* Two output rows r, r+1 (stride sh = sw = SW, dil_h 1, kh 3, every kernel
 * row of both inside the image), pixels [s, s+P) of channels [o, o+16): the
 * SW + 3 input rows from x (row stride rs) are each loaded once per column;
 * the 9 weights sit in registers. */
INL void dw3_group2(const int P, const int SW, const dw3_row* R,
                    const float* x, int64_t rs, int64_t o, __mmask16 mk,
                    const float* res, float* y, int64_t ys) {
  const int64_t C = R->C;
  __m512 a0[DW3_P], a1[DW3_P], wv[9];
  const __m512 bv =
      R->bias ? _mm512_maskz_loadu_ps(mk, R->bias + o) : _mm512_setzero_ps();
#pragma unroll
  for (int q = 0; q < P; ++q)
    a0[q] = a1[q] = bv;
#pragma unroll
  for (int t = 0; t < 9; ++t)
    wv[t] = _mm512_maskz_loadu_ps(mk, R->wr[0] + t * C + o);
  x += o;
#pragma unroll
  for (int k = 0; k < SW + 3; ++k) {
#pragma unroll
    for (int c = 0; c < (P - 1) * SW + 3; ++c) {
      const __m512 v = _mm512_maskz_loadu_ps(mk, x + k * rs + c * C);
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const int j = c - q * SW;
        if (j < 0 || j >= 3)
          continue;
        if (k < 3)
          a0[q] = _mm512_fmadd_ps(v, wv[k * 3 + j], a0[q]);
        if (k >= SW && k - SW < 3)
          a1[q] = _mm512_fmadd_ps(v, wv[(k - SW) * 3 + j], a1[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < P; ++q) {
    __m512 v0 = a0[q], v1 = a1[q];
    if (res) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(mk, res + q * C));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(mk, res + ys + q * C));
    }
    v0 = v_act_piecewise(v0, R->act, R->alpha, R->beta);
    v1 = v_act_piecewise(v1, R->act, R->alpha, R->beta);
    _mm512_mask_storeu_ps(y + q * C, mk, v0);
    _mm512_mask_storeu_ps(y + ys + q * C, mk, v1);
  }
}

INL void dw3_pixels2(const int P, const int SW, const dw3_row* R,
                     const float* x, int64_t rs, const float* res, float* y,
                     int64_t ys) {
  const int64_t C = R->C;
  int64_t o = 0;
  for (; o + 16 <= C; o += 16)
    dw3_group2(P, SW, R, x, rs, o, (__mmask16)0xffff, res ? res + o : NULL,
               y + o, ys);
  if (o < C)
    dw3_group2(P, SW, R, x, rs, o, (__mmask16)((1u << (C - o)) - 1),
               res ? res + o : NULL, y + o, ys);
}

#define DW3_FN2(P, SW)                                                         \
  static TGT __attribute__((noinline)) void dw3_q##P##_s##SW(                  \
      const dw3_row* R, const float* x, int64_t rs, const float* res,          \
      float* y, int64_t ys) {                                                  \
    dw3_pixels2(P, SW, R, x, rs, res, y, ys);                                  \
  }
#define DW3_FNS2(SW)                                                           \
  DW3_FN2(1, SW)                                                               \
  DW3_FN2(2, SW)                                                               \
  DW3_FN2(3, SW)                                                               \
  DW3_FN2(4, SW)                                                               \
  DW3_FN2(5, SW)                                                               \
  DW3_FN2(6, SW)                                                               \
  DW3_FN2(7, SW)                                                               \
  DW3_FN2(8, SW)
DW3_FNS2(1)
DW3_FNS2(2)

typedef void (*dw3_fn2)(const dw3_row*, const float*, int64_t, const float*,
                        float*, int64_t);
static const dw3_fn2 dw3_fns2[2][DW3_P] = {
    {dw3_q1_s1, dw3_q2_s1, dw3_q3_s1, dw3_q4_s1, dw3_q5_s1, dw3_q6_s1,
     dw3_q7_s1, dw3_q8_s1},
    {dw3_q1_s2, dw3_q2_s2, dw3_q3_s2, dw3_q4_s2, dw3_q5_s2, dw3_q6_s2,
     dw3_q7_s2, dw3_q8_s2}};

static TGT void dw3_setup(const tfcc_dw_args* p, int64_t b, int64_t r,
                          dw3_row* R) {
  const int64_t h = p->h, w = p->w, C = p->c;
  R->C = C;
  R->bias = p->bias;
  R->act = p->act;
  R->alpha = p->alpha;
  R->beta = p->beta;
  R->nr = 0;
  const int64_t y0 = r * p->sh - p->pt;
  const float* xb = p->x + b * h * w * C;
  for (int64_t i = 0; i < p->kh; ++i) {
    const int64_t yy = y0 + i * p->dh;
    if (yy < 0 || yy >= h)
      continue;
    R->xr[R->nr] = xb + yy * w * C;
    R->wr[R->nr] = p->wt + i * 3 * C;
    ++R->nr;
  }
}

/* One output row (pair = 0) or rows r, r+1 (pair = 1, see dw3_group2). */
static TGT void dw3_rows(const tfcc_dw_args* p, int64_t b, int64_t r,
                         int pair) {
  const int64_t w = p->w, C = p->c, sw = p->sw, pl = p->pl, ow = p->ow;
  dw3_row R[2];
  dw3_setup(p, b, r, &R[0]);
  if (pair)
    dw3_setup(p, b, r + 1, &R[1]);
  int64_t s_lo, s_hi; /* interior columns */
  tfcc_dw3_interior(w, sw, pl, ow, &s_lo, &s_hi);
  const int64_t orow = (b * p->oh + r) * ow, ys = ow * C;
  float* yrow = p->y + orow * C;
  const float* rrow = p->res ? p->res + orow * C : NULL;
  for (int e = 0; e <= pair; ++e) {
    float* yr = yrow + e * ys;
    const float* rr = rrow ? rrow + e * ys : NULL;
    for (int64_t s = 0; s < ow; ++s) {
      if (s == s_lo)
        s = s_hi;
      if (s >= ow)
        break;
      const int64_t x0 = s * sw - pl;
      const int64_t j0 = TFCC_MAX(0, -x0), j1 = TFCC_MIN(3, w - x0);
      dw3_border(&R[e], x0, j0, TFCC_MAX(j0, j1), rr ? rr + s * C : NULL,
                 yr + s * C);
    }
  }
  int64_t s = s_lo;
  if (pair) {
    const dw3_fn2* fns = dw3_fns2[sw - 1];
    const int64_t rs = w * C;
    for (; s < s_hi; s += DW3_P) {
      const int64_t np = TFCC_MIN(DW3_P, s_hi - s);
      fns[np - 1](&R[0], R[0].xr[0] + (s * sw - pl) * C, rs,
                  rrow ? rrow + s * C : NULL, yrow + s * C, ys);
    }
  } else {
    const dw3_fn* fns = dw3_fns[sw - 1];
    for (; s < s_hi; s += DW3_P) {
      const int64_t np = TFCC_MIN(DW3_P, s_hi - s);
      fns[np - 1](&R[0], (s * sw - pl) * C, rrow ? rrow + s * C : NULL,
                  yrow + s * C);
    }
  }
}

TGT void tfcc_dw3_row_avx512(const tfcc_dw_args* p, int64_t b, int64_t r) {
  dw3_rows(p, b, r, 0);
}

TGT void tfcc_dw3_rows_avx512(const tfcc_dw_args* p, int64_t R0, int64_t R1) {
  const int64_t oh = p->oh;
  const int pairs = p->sh == p->sw && p->kh == 3 && p->dh == 1;
  for (int64_t R = R0; R < R1;) {
    const int64_t b = R / oh, r = R % oh;
    const int64_t y0 = r * p->sh - p->pt;
    if (pairs && R + 1 < R1 && r + 1 < oh && y0 >= 0 &&
        y0 + p->sh + 2 < p->h) {
      dw3_rows(p, b, r, 1);
      R += 2;
    } else {
      dw3_rows(p, b, r, 0);
      R += 1;
    }
  }
}

#else /* not x86-64: never selected */
void tfcc_dw3_row_avx512(const tfcc_dw_args* p, int64_t b, int64_t r) {
  tfcc_dw_row_generic(p, b, r);
}
void tfcc_dw3_rows_avx512(const tfcc_dw_args* p, int64_t R0, int64_t R1) {
  for (int64_t R = R0; R < R1; ++R)
    tfcc_dw_row_generic(p, R / p->oh, R % p->oh);
}
#endif
