/* pool_grad.c - the gradient of NHWC max pooling (graph.max_pool2d_grad).
 *
 * dx = 0, then each window's dy goes to the window's first maximum in
 * row-major tap order, per channel; a NaN counts as the maximum (the first
 * NaN wins), taps outside the input (implicit padding) never do. This is the
 * interpreter's rule (docs/autodiff.md). With positive_only, a maximum that
 * is not greater than zero gets nothing: the ReLU gradient fused in. Windows overlap when the stride is
 * below the window, so one task is one image: tasks never write the same dx.
 * Per output position the channels are processed in blocks of kBlock with the
 * running maximum and its tap in small arrays, so the inner loops over
 * channels vectorize (AVX-512 clone selected at run time).
 * When the windows tile the input without overlap or padding (stride equal
 * to the window, the usual 2x2/2 pooling) every dx element belongs to at most
 * one window: dx is written once, with no clearing pass and no
 * read-modify-write, and only the rows and columns no window covers are
 * zeroed. That halves the memory traffic of the common case.
 */
#include "kernels_internal.h"

#include <string.h>

enum { kBlock = 64 };

typedef struct max_pool_grad_args {
  const float* x;
  const float* dy;
  int64_t h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
  int32_t positive_only;
  float* dx;
} max_pool_grad_args;

#define TFCC_MAX_POOL_GRAD_BODY                                               \
  const max_pool_grad_args* p = (const max_pool_grad_args*)ctx;               \
  float best[kBlock];                                                         \
  int32_t best_tap[kBlock];                                                   \
  int64_t b, r, s, i, j, k, k0;                                               \
  (void)thread;                                                               \
  for (b = begin; b < end; ++b) {                                             \
    const float* xb = p->x + b * p->h * p->w * p->c;                          \
    float* dxb = p->dx + b * p->h * p->w * p->c;                              \
    memset(dxb, 0, sizeof(float) * (size_t)(p->h * p->w * p->c));             \
    for (r = 0; r < p->oh; ++r) {                                             \
      int64_t r0 = r * p->sh - p->pt;                                         \
      int64_t i_lo = TFCC_MAX(0, -r0), i_hi = TFCC_MIN(p->kh, p->h - r0);     \
      for (s = 0; s < p->ow; ++s) {                                           \
        int64_t s0 = s * p->sw - p->pl;                                       \
        int64_t j_lo = TFCC_MAX(0, -s0), j_hi = TFCC_MIN(p->kw, p->w - s0);   \
        const float* g = p->dy + ((b * p->oh + r) * p->ow + s) * p->c;        \
        for (k0 = 0; k0 < p->c; k0 += kBlock) {                               \
          int64_t kn = TFCC_MIN(kBlock, p->c - k0);                           \
          for (k = 0; k < kn; ++k) {                                          \
            best[k] = 0.0f;                                                   \
            best_tap[k] = -1;                                                 \
          }                                                                   \
          for (i = i_lo; i < i_hi; ++i)                                       \
            for (j = j_lo; j < j_hi; ++j) {                                   \
              const float* in = xb + ((r0 + i) * p->w + (s0 + j)) * p->c + k0; \
              int32_t tap = (int32_t)(i * p->kw + j);                         \
              for (k = 0; k < kn; ++k) {                                      \
                float v = in[k], m = best[k];                                 \
                int take = best_tap[k] < 0 ||                                 \
                           (m == m && (v != v || v > m));                     \
                best[k] = take ? v : m;                                       \
                best_tap[k] = take ? tap : best_tap[k];                       \
              }                                                               \
            }                                                                 \
          if (p->positive_only)                                               \
            for (k = 0; k < kn; ++k)                                          \
              best_tap[k] = best[k] > 0.0f ? best_tap[k] : -1;                \
          for (i = i_lo; i < i_hi; ++i)                                       \
            for (j = j_lo; j < j_hi; ++j) {                                   \
              float* out = dxb + ((r0 + i) * p->w + (s0 + j)) * p->c + k0;    \
              int32_t tap = (int32_t)(i * p->kw + j);                         \
              for (k = 0; k < kn; ++k)                                        \
                out[k] += best_tap[k] == tap ? g[k0 + k] : 0.0f;              \
            }                                                                 \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }

int tfcc_pool_windows_disjoint(int64_t h, int64_t w, int64_t kh, int64_t kw,
                               int64_t sh, int64_t sw, int64_t pt, int64_t pl,
                               int64_t oh, int64_t ow) {
  return sh == kh && sw == kw && pt == 0 && pl == 0 && kh >= 1 && kw >= 1 &&
         oh * kh <= h && ow * kw <= w;
}

void tfcc_pool_zero_uncovered(float* dx, int64_t h, int64_t w, int64_t c,
                              int64_t kh, int64_t kw, int64_t oh, int64_t ow) {
  const int64_t row = w * c, covered_w = ow * kw;
  int64_t r;
  if (covered_w < w)
    for (r = 0; r < oh * kh; ++r)
      memset(dx + r * row + covered_w * c, 0,
             sizeof(float) * (size_t)((w - covered_w) * c));
  if (oh * kh < h)
    memset(dx + oh * kh * row, 0, sizeof(float) * (size_t)((h - oh * kh) * row));
}

/* The disjoint case: sh == kh, sw == kw, no padding, every window inside;
 * the uncovered rows and columns are zeroed first, the rest written once. */
#define TFCC_MAX_POOL_GRAD_DISJOINT_BODY                                      \
  const max_pool_grad_args* p = (const max_pool_grad_args*)ctx;               \
  float best[kBlock];                                                         \
  int32_t best_tap[kBlock];                                                   \
  int64_t b, r, s, i, j, k, k0;                                               \
  const int64_t row = p->w * p->c;                                            \
  (void)thread;                                                               \
  for (b = begin; b < end; ++b) {                                             \
    const float* xb = p->x + b * p->h * row;                                  \
    float* dxb = p->dx + b * p->h * row;                                      \
    tfcc_pool_zero_uncovered(dxb, p->h, p->w, p->c, p->kh, p->kw, p->oh,      \
                             p->ow);                                          \
    for (r = 0; r < p->oh; ++r) {                                             \
      for (s = 0; s < p->ow; ++s) {                                           \
        const float* g = p->dy + ((b * p->oh + r) * p->ow + s) * p->c;        \
        for (k0 = 0; k0 < p->c; k0 += kBlock) {                               \
          int64_t kn = TFCC_MIN(kBlock, p->c - k0);                           \
          const float* first = xb + (r * p->kh * p->w + s * p->kw) * p->c + k0; \
          for (k = 0; k < kn; ++k) {                                          \
            best[k] = first[k];                                               \
            best_tap[k] = 0;                                                  \
          }                                                                   \
          for (i = 0; i < p->kh; ++i)                                         \
            for (j = 0; j < p->kw; ++j) {                                     \
              const float* in = first + (i * p->w + j) * p->c;                \
              int32_t tap = (int32_t)(i * p->kw + j);                         \
              for (k = 0; k < kn; ++k) {                                      \
                float v = in[k], m = best[k];                                 \
                int take = m == m && (v != v || v > m);                       \
                best[k] = take ? v : m;                                       \
                best_tap[k] = take ? tap : best_tap[k];                       \
              }                                                               \
            }                                                                 \
          if (p->positive_only)                                               \
            for (k = 0; k < kn; ++k)                                          \
              best_tap[k] = best[k] > 0.0f ? best_tap[k] : -1;                \
          for (i = 0; i < p->kh; ++i)                                         \
            for (j = 0; j < p->kw; ++j) {                                     \
              float* out = dxb + ((r * p->kh + i) * p->w + s * p->kw + j) *   \
                                     p->c + k0;                               \
              int32_t tap = (int32_t)(i * p->kw + j);                         \
              for (k = 0; k < kn; ++k)                                        \
                out[k] = best_tap[k] == tap ? g[k0 + k] : 0.0f;               \
            }                                                                 \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }

static void max_pool_grad_disjoint_generic(void* ctx, int64_t begin,
                                           int64_t end, int32_t thread) {
  TFCC_MAX_POOL_GRAD_DISJOINT_BODY
}

static void max_pool_grad_generic(void* ctx, int64_t begin, int64_t end,
                                  int32_t thread) {
  TFCC_MAX_POOL_GRAD_BODY
}

#if TFCC_KERNELS_HAVE_AVX512
__attribute__((target("avx512f,avx512vl,fma"))) static void
max_pool_grad_avx512(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  TFCC_MAX_POOL_GRAD_BODY
}
#include "avx512_common.h"

/* The disjoint case with intrinsics: per window and 16 channels, the
 * running maximum and its tap stay in registers (a zmm and a mask-selected
 * zmm of tap ids), and each tap's dx is one masked select of dy. */
TGT static void max_pool_grad_disjoint_avx512(void* ctx, int64_t begin,
                                              int64_t end, int32_t thread) {
  const max_pool_grad_args* p = (const max_pool_grad_args*)ctx;
  const int64_t c = p->c, kh = p->kh, kw = p->kw, row = p->w * c;
  const __m512 zero = _mm512_setzero_ps();
  int64_t b, r, s, i, j, k;
  (void)thread;
  for (b = begin; b < end; ++b) {
    const float* xb = p->x + b * p->h * row;
    float* dxb = p->dx + b * p->h * row;
    tfcc_pool_zero_uncovered(dxb, p->h, p->w, c, kh, kw, p->oh, p->ow);
    for (r = 0; r < p->oh; ++r) {
      for (s = 0; s < p->ow; ++s) {
        const float* g = p->dy + ((b * p->oh + r) * p->ow + s) * c;
        const float* first = xb + (r * kh * p->w + s * kw) * c;
        float* out0 = dxb + (r * kh * p->w + s * kw) * c;
        for (k = 0; k < c; k += 16) {
          const __mmask16 m = tail_mask(c - k);
          __m512 best = _mm512_maskz_loadu_ps(m, first + k);
          __m512i tap = _mm512_setzero_si512();
          for (i = 0; i < kh; ++i)
            for (j = 0; j < kw; ++j) {
              if (i == 0 && j == 0) continue;
              __m512 v = _mm512_maskz_loadu_ps(m, first + (i * p->w + j) * c + k);
              /* take: best is not NaN and (v is NaN or v > best) */
              __mmask16 ordered = _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q);
              __mmask16 take = _mm512_mask_cmp_ps_mask(
                  ordered, v, best, _CMP_NLE_UQ); /* v > best or unordered */
              best = _mm512_mask_mov_ps(best, take, v);
              tap = _mm512_mask_mov_epi32(
                  tap, take, _mm512_set1_epi32((int32_t)(i * kw + j)));
            }
          if (p->positive_only)
            tap = _mm512_mask_mov_epi32(
                _mm512_set1_epi32(-1),
                _mm512_cmp_ps_mask(best, zero, _CMP_GT_OQ), tap);
          const __m512 gv = _mm512_maskz_loadu_ps(m, g + k);
          for (i = 0; i < kh; ++i)
            for (j = 0; j < kw; ++j) {
              __mmask16 hit = _mm512_cmpeq_epi32_mask(
                  tap, _mm512_set1_epi32((int32_t)(i * kw + j)));
              _mm512_mask_storeu_ps(out0 + (i * p->w + j) * c + k, m,
                                    _mm512_maskz_mov_ps(hit, gv));
            }
        }
      }
    }
  }
}
#endif

void tfcc_rt_max_pool2d_grad_f32(const float* x, int64_t n, int64_t h,
                                 int64_t w, int64_t c, int64_t kh, int64_t kw,
                                 int64_t stride_h, int64_t stride_w,
                                 int64_t pad_top, int64_t pad_left, int64_t oh,
                                 int64_t ow, int32_t positive_only,
                                 const float* dy, float* dx) {
  max_pool_grad_args p;
  void (*images)(void*, int64_t, int64_t, int32_t) = max_pool_grad_generic;
  int disjoint = tfcc_pool_windows_disjoint(h, w, kh, kw, stride_h, stride_w,
                                            pad_top, pad_left, oh, ow);
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0) return;
  p.x = x;
  p.dy = dy;
  p.h = h;
  p.w = w;
  p.c = c;
  p.kh = kh;
  p.kw = kw;
  p.sh = stride_h;
  p.sw = stride_w;
  p.pt = pad_top;
  p.pl = pad_left;
  p.oh = oh;
  p.ow = ow;
  p.positive_only = positive_only;
  p.dx = dx;
#if TFCC_KERNELS_HAVE_AVX512
  if (disjoint) images = max_pool_grad_disjoint_generic;
  if (tfcc_kernels_isa() == TFCC_ISA_AVX512)
    images = disjoint ? max_pool_grad_disjoint_avx512 : max_pool_grad_avx512;
#else
  if (disjoint) images = max_pool_grad_disjoint_generic;
#endif
  if (n * h * w * c < 65536)
    images(&p, 0, n, 0);
  else
    tfcc_rt_parallel_for(n, images, &p);
}
