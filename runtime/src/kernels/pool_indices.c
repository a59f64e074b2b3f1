/* pool_indices.c - max pooling that records its argmax, and the gradient
 * that scatters through the record (graph.max_pool2d_with_indices,
 * graph.max_pool2d_grad_indices).
 *
 * A train step pools in the forward pass and needs each window's first
 * maximum again in the backward pass; re-reading the pooling input then
 * (tfcc_rt_max_pool2d_grad_f32) streams a tensor that has long left the
 * caches. Recording the tap (one byte per pooled value) while pooling makes
 * the backward pass read only that record and dy. The tap rule is
 * max_pool2d_grad's (pool_grad.c): the first maximum in row-major tap
 * order, a NaN counting as the maximum (the first NaN wins), padded taps
 * never chosen; with positive_only a maximum not above zero records -1 (the
 * ReLU gradient's mask). One task is one image.
 */
#include "kernels_internal.h"

#include <string.h>

enum { kBlock = 64 };

typedef tfcc_pool_indices_args pool_indices_args;

/* The valid tap ranges of output (r, s). */
#define TFCC_WINDOW_RANGE                                                     \
  int64_t r0 = r * p->sh - p->pt, s0 = s * p->sw - p->pl;                     \
  int64_t i_lo = TFCC_MAX(0, -r0), i_hi = TFCC_MIN(p->kh, p->h - r0);         \
  int64_t j_lo = TFCC_MAX(0, -s0), j_hi = TFCC_MIN(p->kw, p->w - s0);

void tfcc_pool_indices_clear_dx(const tfcc_pool_indices_args* p, float* dxb) {
  if (p->disjoint)
    tfcc_pool_zero_uncovered(dxb, p->h, p->w, p->c, p->kh, p->kw, p->oh,
                             p->ow);
  else
    memset(dxb, 0, sizeof(float) * (size_t)(p->h * p->w * p->c));
}

#if TFCC_KERNELS_HAVE_AVX512
#include "avx512_common.h"


TGT static void indices_avx512(void* ctx, int64_t begin, int64_t end,
                               int32_t thread) {
  const pool_indices_args* p = (const pool_indices_args*)ctx;
  const __m512 zero = _mm512_setzero_ps();
  int64_t b, r, s, i, j, k;
  (void)thread;
  for (b = begin; b < end; ++b) {
    const float* xb = p->x + b * p->h * p->w * p->c;
    for (r = 0; r < p->oh; ++r)
      for (s = 0; s < p->ow; ++s) {
        TFCC_WINDOW_RANGE
        int64_t out = ((b * p->oh + r) * p->ow + s) * p->c;
        if (i_lo >= i_hi || j_lo >= j_hi) { /* no real tap */
          for (k = 0; k < p->c; ++k) {
            p->y[out + k] = 0.0f;
            p->taps[out + k] = -1;
          }
          continue;
        }
        for (k = 0; k < p->c; k += 16) {
          const __mmask16 m = tail_mask(p->c - k);
          const float* first = xb + ((r0 + i_lo) * p->w + s0 + j_lo) * p->c + k;
          __m512 best = _mm512_maskz_loadu_ps(m, first);
          __m512i tap = _mm512_set1_epi32((int32_t)(i_lo * p->kw + j_lo));
          for (i = i_lo; i < i_hi; ++i)
            for (j = j_lo; j < j_hi; ++j) {
              if (i == i_lo && j == j_lo) continue;
              __m512 v = _mm512_maskz_loadu_ps(
                  m, xb + ((r0 + i) * p->w + s0 + j) * p->c + k);
              __mmask16 take = _mm512_mask_cmp_ps_mask(
                  _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q), v, best,
                  _CMP_NLE_UQ); /* best real and (v > best or v NaN) */
              best = _mm512_mask_mov_ps(best, take, v);
              tap = _mm512_mask_mov_epi32(
                  tap, take, _mm512_set1_epi32((int32_t)(i * p->kw + j)));
            }
          if (p->positive_only)
            tap = _mm512_mask_mov_epi32(
                _mm512_set1_epi32(-1),
                _mm512_cmp_ps_mask(best, zero, _CMP_GT_OQ), tap);
          _mm512_mask_storeu_ps(p->y + out + k, m, best);
          _mm_mask_storeu_epi8(p->taps + out + k, m, _mm512_cvtepi32_epi8(tap));
        }
      }
  }
}

TGT static void grad_indices_avx512(void* ctx, int64_t begin, int64_t end,
                                    int32_t thread) {
  const pool_indices_args* p = (const pool_indices_args*)ctx;
  int64_t b, r, s, i, j, k;
  (void)thread;
  for (b = begin; b < end; ++b) {
    float* dxb = p->dx + b * p->h * p->w * p->c;
    tfcc_pool_indices_clear_dx(p, dxb);
    for (r = 0; r < p->oh; ++r)
      for (s = 0; s < p->ow; ++s) {
        TFCC_WINDOW_RANGE
        int64_t at = ((b * p->oh + r) * p->ow + s) * p->c;
        for (k = 0; k < p->c; k += 16) {
          const __mmask16 m = tail_mask(p->c - k);
          const __m512 g = _mm512_maskz_loadu_ps(m, p->dy + at + k);
          const __m512i t = _mm512_cvtepi8_epi32(
              _mm_maskz_loadu_epi8(m, p->taps_in + at + k));
          for (i = i_lo; i < i_hi; ++i)
            for (j = j_lo; j < j_hi; ++j) {
              float* out = dxb + ((r0 + i) * p->w + (s0 + j)) * p->c + k;
              __mmask16 hit = _mm512_cmpeq_epi32_mask(
                  t, _mm512_set1_epi32((int32_t)(i * p->kw + j)));
              __m512 v = _mm512_maskz_mov_ps(hit, g);
              if (!p->disjoint)
                v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, out));
              _mm512_mask_storeu_ps(out, m, v);
            }
        }
      }
  }
}
#endif

/* `images`: the variant of the ISA level (TFCC_FOR_ISA): the AVX-512 one
 * above, or the portable vector form (pool_indices_vec.inc) per level. */
static void run_images(pool_indices_args* p, int64_t n,
                       void (*images)(void*, int64_t, int64_t, int32_t)) {
  p->disjoint = tfcc_pool_windows_disjoint(p->h, p->w, p->kh, p->kw, p->sh,
                                           p->sw, p->pt, p->pl, p->oh, p->ow);
  if (n * p->h * p->w * p->c < 65536)
    images(p, 0, n, 0);
  else
    tfcc_rt_parallel_for(n, images, p);
}

/* The pooling geometry both entry points take. */
static void set_geometry(pool_indices_args* p, int64_t h, int64_t w, int64_t c,
                         int64_t kh, int64_t kw, int64_t stride_h,
                         int64_t stride_w, int64_t pad_top, int64_t pad_left,
                         int64_t oh, int64_t ow) {
  memset(p, 0, sizeof(*p));
  p->h = h;
  p->w = w;
  p->c = c;
  p->kh = kh;
  p->kw = kw;
  p->sh = stride_h;
  p->sw = stride_w;
  p->pt = pad_top;
  p->pl = pad_left;
  p->oh = oh;
  p->ow = ow;
}


void tfcc_rt_max_pool2d_indices_f32(const float* x, int64_t n, int64_t h,
                                    int64_t w, int64_t c, int64_t kh,
                                    int64_t kw, int64_t stride_h,
                                    int64_t stride_w, int64_t pad_top,
                                    int64_t pad_left, int64_t oh, int64_t ow,
                                    int32_t positive_only, float* y,
                                    int8_t* taps) {
  pool_indices_args p;
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0) return;
  set_geometry(&p, h, w, c, kh, kw, stride_h, stride_w, pad_top, pad_left, oh,
               ow);
  p.x = x;
  p.positive_only = positive_only;
  p.y = y;
  p.taps = taps;
  run_images(&p, n,
             TFCC_FOR_ISA(tfcc_kernels_isa(), indices_avx512,
                          tfcc_pool_indices_avx2, tfcc_pool_indices_base));
}

void tfcc_rt_max_pool2d_grad_indices_f32(const int8_t* taps, const float* dy,
                                         int64_t n, int64_t h, int64_t w,
                                         int64_t c, int64_t kh, int64_t kw,
                                         int64_t stride_h, int64_t stride_w,
                                         int64_t pad_top, int64_t pad_left,
                                         int64_t oh, int64_t ow, float* dx) {
  pool_indices_args p;
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0) return;
  set_geometry(&p, h, w, c, kh, kw, stride_h, stride_w, pad_top, pad_left, oh,
               ow);
  p.taps_in = taps;
  p.dy = dy;
  p.dx = dx;
  run_images(&p, n,
             TFCC_FOR_ISA(tfcc_kernels_isa(), grad_indices_avx512,
                          tfcc_pool_grad_indices_avx2,
                          tfcc_pool_grad_indices_base));
}
