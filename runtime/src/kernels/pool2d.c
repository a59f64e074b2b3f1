/* pool2d.c - NHWC max / average pooling with implicit padding.
 *
 * One task per output row (batch, r), split across the current pool, with
 * the channels (contiguous in NHWC) in vector lanes: the portable rows
 * (pool_vec.inc, compiled per ISA level in vec_<isa>.c) or the AVX-512
 * intrinsics below, selected at run time like the other kernels. Padding is
 * never materialized: taps outside the input are skipped, which is what TF's
 * max pooling (padding ignored) and average pooling with SAME (divide by the
 * real elements) mean; mode TFCC_POOL_AVG_WINDOW divides by the full window
 * instead (ONNX count_include_pad = 1, zero padding).
 */
#include "kernels_internal.h"

#include <float.h>
#include <string.h>

typedef tfcc_pool_args pool_args;

#if TFCC_KERNELS_HAVE_AVX512
#include <immintrin.h>
#define POOL_AVX512 __attribute__((target("avx512f,avx512vl,fma")))

/* acc folded with v for max pooling: vmaxps returns its second operand on a
 * NaN, so a NaN v is taken explicitly (a NaN in a window gives NaN). */
POOL_AVX512 static inline __m512 pool_max512(__m512 acc, __m512 v) {
  return _mm512_mask_mov_ps(_mm512_max_ps(v, acc),
                            _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

/* Output pixel s of a row (image xb, window rows [i_lo, i_hi) inside). */
POOL_AVX512 static inline void pool_pixel_avx512(const pool_args* p,
                                                 const float* xb, float* yrow,
                                                 int64_t r0, int64_t i_lo,
                                                 int64_t i_hi, int64_t s,
                                                 int is_max, __m512 init) {
  const int64_t c = p->c;
  const int64_t s0 = s * p->sw - p->pl;
  const int64_t j_lo = TFCC_MAX(0, -s0), j_hi = TFCC_MIN(p->kw, p->w - s0);
  float* out = yrow + s * c;
  const float scale = tfcc_pool_scale(p, i_hi - i_lo, j_hi - j_lo);
  for (int64_t k = 0; k < c; k += 16) {
    const __mmask16 m =
        c - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (c - k)) - 1);
    __m512 acc = init;
    for (int64_t i = i_lo; i < i_hi; ++i) {
      const float* in = xb + ((r0 + i) * p->w + s0) * c + k;
      for (int64_t j = j_lo; j < j_hi; ++j) {
        const __m512 v = _mm512_maskz_loadu_ps(m, in + j * c);
        acc = is_max ? pool_max512(acc, v) : _mm512_add_ps(acc, v);
      }
    }
    if (!is_max)
      acc = _mm512_mul_ps(acc, _mm512_set1_ps(scale));
    _mm512_mask_storeu_ps(out + k, m, acc);
  }
}

/* The arithmetic of pool_vec.inc, in the same tap order, with each 16-channel
 * block of an output pixel kept in a register over the taps and the last
 * block masked; max pooling's whole 2x2 windows in line, as there. */
POOL_AVX512 static void pool_rows_avx512(void* ctx, int64_t begin, int64_t end,
                                         int32_t thread) {
  const pool_args* p = (const pool_args*)ctx;
  const int64_t c = p->c;
  const int is_max = p->mode == TFCC_POOL_MAX;
  const __m512 init = _mm512_set1_ps(is_max ? -FLT_MAX * 2.0f : 0.0f);
  (void)thread;
  int64_t s_begin = 0, s_end = 0;
  tfcc_pool_whole_2x2(is_max && c % 16 == 0, p->kh, p->kw, p->w, p->sw, p->pl,
                      p->ow, &s_begin, &s_end);
  for (int64_t task = begin; task < end; ++task) {
    const int64_t b = task / p->oh, r = task % p->oh;
    const int64_t r0 = r * p->sh - p->pt;
    const int64_t i_lo = TFCC_MAX(0, -r0), i_hi = TFCC_MIN(p->kh, p->h - r0);
    const float* xb = p->x + b * p->h * p->w * c;
    float* yrow = p->y + (b * p->oh + r) * p->ow * c;
    int64_t s = 0;
    if (i_hi - i_lo == 2 && s_end > s_begin) {
      for (; s < s_begin; ++s)
        pool_pixel_avx512(p, xb, yrow, r0, i_lo, i_hi, s, is_max, init);
      const int64_t rs = p->w * c, step = p->sw * c;
      const float* in = xb + (r0 * p->w + s * p->sw - p->pl) * c;
      for (; s < s_end; ++s, in += step) {
        float* out = yrow + s * c;
        for (int64_t k = 0; k < c; k += 16) {
          __m512 acc = pool_max512(init, _mm512_loadu_ps(in + k));
          acc = pool_max512(acc, _mm512_loadu_ps(in + c + k));
          acc = pool_max512(acc, _mm512_loadu_ps(in + rs + k));
          acc = pool_max512(acc, _mm512_loadu_ps(in + rs + c + k));
          _mm512_storeu_ps(out + k, acc);
        }
      }
    }
    for (; s < p->ow; ++s)
      pool_pixel_avx512(p, xb, yrow, r0, i_lo, i_hi, s, is_max, init);
  }
}
#endif

void tfcc_rt_pool2d_f32(const float* x, int64_t n, int64_t h, int64_t w,
                        int64_t c, int64_t kh, int64_t kw, int64_t stride_h,
                        int64_t stride_w, int64_t pad_top, int64_t pad_left,
                        int64_t oh, int64_t ow, int32_t mode, float* y) {
  pool_args p;
  void (*rows)(void*, int64_t, int64_t, int32_t);
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0) return;
  p.x = x;
  p.x_end = x + n * h * w * c;
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
  p.mode = mode;
  p.y = y;
  rows = TFCC_FOR_ISA(tfcc_kernels_isa(), pool_rows_avx512, tfcc_pool_rows_avx2,
                      tfcc_pool_rows_base);
  /* Rows are cheap: serial below ~64k taps * channels of work. */
  if (n * oh * ow * kh * kw * c < 65536)
    rows(&p, 0, n * oh, 0);
  else
    tfcc_rt_parallel_for(n * oh, rows, &p);
}

/* ---- 8-bit max pooling ---------------------------------------------------
 * Per output pixel, 16 channels (contiguous) at a time fold over the window's
 * taps in one 16-byte vector (pmaxub on every x86-64, umax on NEON), the
 * last c % 16 channels one at a time. int8 goes through the same unsigned
 * maximum with the sign bit flipped on the way in and out, which maps
 * -128..127 onto 0..255 in order. */
typedef uint8_t pool_u8x16 __attribute__((vector_size(16)));

static inline pool_u8x16 pool_u8_max(pool_u8x16 a, pool_u8x16 b) {
  const pool_u8x16 m = (pool_u8x16)(a > b);
  return (a & m) | (b & ~m);
}

typedef struct pool_i8_args {
  const uint8_t* x;
  int64_t h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
  uint8_t flip;
  uint8_t* y;
} pool_i8_args;

/* Output pixel s of row r (image xb, window rows [i_lo, i_hi) inside). */
static inline void pool_i8_pixel(const pool_i8_args* p, const uint8_t* xb,
                                 uint8_t* yrow, int64_t r0, int64_t i_lo,
                                 int64_t i_hi, int64_t s, pool_u8x16 flips) {
  const int64_t c = p->c;
  const uint8_t flip = p->flip;
  const int64_t s0 = s * p->sw - p->pl;
  const int64_t j_lo = TFCC_MAX(0, -s0), j_hi = TFCC_MIN(p->kw, p->w - s0);
  uint8_t* out = yrow + s * c;
  /* the window's first tap inside the input, and its extent */
  const uint8_t* first = xb + ((r0 + i_lo) * p->w + s0 + j_lo) * c;
  const int64_t rows = i_hi - i_lo, cols = j_hi - j_lo, rs = p->w * c;
  int64_t k = 0;
  for (; k + 16 <= c; k += 16) {
    pool_u8x16 acc = {0}; /* the lowest value, flipped */
    for (int64_t i = 0; i < rows; ++i) {
      const uint8_t* in = first + i * rs + k;
      for (int64_t j = 0; j < cols; ++j, in += c) {
        pool_u8x16 v;
        memcpy(&v, in, sizeof v);
        acc = pool_u8_max(acc, v ^ flips);
      }
    }
    acc ^= flips;
    memcpy(out + k, &acc, sizeof acc);
  }
  for (; k < c; ++k) {
    uint8_t acc = 0;
    for (int64_t i = i_lo; i < i_hi; ++i)
      for (int64_t j = j_lo; j < j_hi; ++j) {
        const uint8_t v =
            (uint8_t)(xb[((r0 + i) * p->w + s0 + j) * c + k] ^ flip);
        acc = acc > v ? acc : v;
      }
    out[k] = (uint8_t)(acc ^ flip);
  }
}

/* Pixels [s_begin, s_end) of a row whose windows are whole 2x2 ones (the
 * usual pooling) inside the input, every channel in vectors: the four taps
 * in line and no bounds per pixel (pool_i8_pixel spends more on them than
 * on the maximum at 32 channels; docs/quantization.md). */
static void pool_i8_whole_2x2(const pool_i8_args* p, const uint8_t* xrow,
                              uint8_t* yrow, int64_t s_begin, int64_t s_end,
                              pool_u8x16 flips) {
  const int64_t c = p->c, rs = p->w * c, step = p->sw * c;
  const uint8_t* in = xrow + (s_begin * p->sw - p->pl) * c;
  for (int64_t s = s_begin; s < s_end; ++s, in += step) {
    uint8_t* out = yrow + s * c;
    for (int64_t k = 0; k < c; k += 16) {
      pool_u8x16 v00, v01, v10, v11;
      memcpy(&v00, in + k, sizeof v00);
      memcpy(&v01, in + c + k, sizeof v01);
      memcpy(&v10, in + rs + k, sizeof v10);
      memcpy(&v11, in + rs + c + k, sizeof v11);
      pool_u8x16 acc = pool_u8_max(pool_u8_max(v00 ^ flips, v01 ^ flips),
                                   pool_u8_max(v10 ^ flips, v11 ^ flips));
      acc ^= flips;
      memcpy(out + k, &acc, sizeof acc);
    }
  }
}

static void pool_i8_rows(void* ctx, int64_t begin, int64_t end,
                         int32_t thread) {
  const pool_i8_args* p = (const pool_i8_args*)ctx;
  const int64_t c = p->c;
  pool_u8x16 flips;
  memset(&flips, p->flip, sizeof flips);
  (void)thread;
  /* The pixels whose windows are whole 2x2 ones: s0 = s * sw - pl in
   * [0, w - 2]. */
  int64_t s_begin = 0, s_end = 0;
  tfcc_pool_whole_2x2(c % 16 == 0, p->kh, p->kw, p->w, p->sw, p->pl, p->ow,
                      &s_begin, &s_end);
  for (int64_t task = begin; task < end; ++task) {
    const int64_t b = task / p->oh, r = task % p->oh;
    const int64_t r0 = r * p->sh - p->pt;
    const int64_t i_lo = TFCC_MAX(0, -r0), i_hi = TFCC_MIN(p->kh, p->h - r0);
    const uint8_t* xb = p->x + b * p->h * p->w * c;
    uint8_t* yrow = p->y + (b * p->oh + r) * p->ow * c;
    int64_t s = 0;
    if (i_hi - i_lo == 2 && s_end > s_begin) {
      for (; s < s_begin; ++s)
        pool_i8_pixel(p, xb, yrow, r0, i_lo, i_hi, s, flips);
      pool_i8_whole_2x2(p, xb + r0 * p->w * c, yrow, s_begin, s_end, flips);
      s = s_end;
    }
    for (; s < p->ow; ++s)
      pool_i8_pixel(p, xb, yrow, r0, i_lo, i_hi, s, flips);
  }
}

void tfcc_rt_max_pool2d_i8(const uint8_t* x, int64_t n, int64_t h, int64_t w,
                           int64_t c, int64_t kh, int64_t kw, int64_t stride_h,
                           int64_t stride_w, int64_t pad_top, int64_t pad_left,
                           int64_t oh, int64_t ow, int32_t is_signed,
                           uint8_t* y) {
  pool_i8_args p;
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0)
    return;
  p.x = x;
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
  p.flip = is_signed ? 0x80 : 0;
  p.y = y;
  /* a byte tap costs a quarter of a float one: serial below ~256k */
  if (n * oh * ow * kh * kw * c < 262144)
    pool_i8_rows(&p, 0, n * oh, 0);
  else
    tfcc_rt_parallel_for(n * oh, pool_i8_rows, &p);
}
