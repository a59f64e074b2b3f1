/* depthwise_u8_avx512vnni.c - the uint8 depthwise convolution's 3x3 windows
 * with AVX512_VNNI (CMakeLists gives this file -march=x86-64-v4
 * -mavx512vnni; run only when CPUID reports VNNI), for a requantized uint8
 * output with activation none, relu or clip, dilation 1, horizontal stride
 * 1 or 2 (depthwise_u8.c chooses it).
 *
 * One vpdpbusd multiplies the 3 taps of a window column for 16 channels:
 * each int32 lane holds a channel's bytes [x(row 0), x(row 1), x(row 2), 0]
 * against its weights [w(0, j), w(1, j), w(2, j), 0]. The three input rows'
 * 64 channels at one column are interleaved into 4 such vectors by byte and
 * word unpacks (8 shuffles), which leave lane L of vector k holding channels
 * 16 L + 4 k + [0, 4); the weights and the per-channel constants are built
 * in that order, and the packs of the epilogue (int32 -> int16 -> uint8,
 * also per 128-bit lane) restore the channels' order. The float kernel
 * (depthwise_u8_vec.inc) widens every tap to a float and multiplies it
 * alone: 3 to 4 times the instructions per tap.
 *
 * 32 channels (MobileNetV2's first depthwise layer, stride 1) fill a
 * vector with two adjacent pixels instead of leaving half of it empty: a
 * 64-byte load at column x holds columns x and x + 1, multiplied by the
 * weights twice over, so one accumulator holds output pixels s and s + 1.
 *
 * Taps outside the input read the input's zero point: their products
 * x_zero_point * w cancel against the start value -x_zero_point * sum(w),
 * so border pixels need no separate path. The accumulation is exact in
 * int32 (|sum| < 9 * 255 * 128 plus that start), and its float conversion
 * too (below 2^24). */
#include "qgemm_internal.h"

#include <immintrin.h>

#define INL static inline __attribute__((always_inline))

/* Pixels computed together (4 x 4 accumulators). */
#define DWV_PIX 4

/* One 64-channel block's constants, in the interleaved order. */
typedef struct {
  __m512i w[3][4];  /* column j of the window, vector k */
  __m512i start[4]; /* -x_zero_point * sum of the channel's weights */
  __m512 scale[4];  /* scale / out_scale */
  __m512 bias[4];   /* bias / out_scale */
  __mmask64 bytes;  /* the block's channels (masked loads and stores) */
} dwv_block;

/* Vectors 0..3 of 16 values (channels 16 n + [0, 16)) in the interleaved
 * order: lane L of result k is lane k of input L (a 4 x 4 transpose of
 * 128-bit lanes). */
INL void dwv_lanes(const __m512 n[4], __m512 out[4]) {
  const __m512 lo01 = _mm512_shuffle_f32x4(n[0], n[1], _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 lo23 = _mm512_shuffle_f32x4(n[2], n[3], _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 hi01 = _mm512_shuffle_f32x4(n[0], n[1], _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 hi23 = _mm512_shuffle_f32x4(n[2], n[3], _MM_SHUFFLE(3, 2, 3, 2));
  out[0] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(2, 0, 2, 0));
  out[1] = _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(3, 1, 3, 1));
  out[2] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(2, 0, 2, 0));
  out[3] = _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(3, 1, 3, 1));
}

/* 64 channels of the three rows of one window column, interleaved: vector k
 * lane L = channels 16 L + 4 k + [0, 4), each as bytes [r0, r1, r2, 0]. */
INL void dwv_interleave(__m512i r0, __m512i r1, __m512i r2, __m512i v[4]) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i p = _mm512_unpacklo_epi8(r0, r1);
  const __m512i q = _mm512_unpackhi_epi8(r0, r1);
  const __m512i r = _mm512_unpacklo_epi8(r2, zero);
  const __m512i s = _mm512_unpackhi_epi8(r2, zero);
  v[0] = _mm512_unpacklo_epi16(p, r);
  v[1] = _mm512_unpackhi_epi16(p, r);
  v[2] = _mm512_unpacklo_epi16(q, s);
  v[3] = _mm512_unpackhi_epi16(q, s);
}

/* 16 floats of channel vector n of the block (the valid ones, else 0). */
INL __m512 dwv_load16(const float* p, int64_t c0, int64_t n, int64_t valid,
                      int pairs) {
  if (pairs) /* two pixels of 32 channels: those channels twice */
    n %= 2;
  const int64_t left = valid - 16 * n;
  const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF
                      : left > 0 ? (__mmask16)((1u << left) - 1)
                                 : (__mmask16)0;
  return _mm512_maskz_loadu_ps(m, p + c0 + 16 * n);
}

static void dwv_block_of(const tfcc_dwq_args* p, int64_t c0, int pairs,
                         dwv_block* blk) {
  const int64_t C = p->c;
  const int64_t valid = C - c0 < 64 ? C - c0 : 64;
  blk->bytes =
      valid >= 64 || pairs ? ~(__mmask64)0 : (((__mmask64)1 << valid) - 1);
  /* Weights (integers in [-128, 127], stored as floats): tap (i, j) of
   * channel c at wt[(3 i + j) C + c]; each channel's three rows of column j
   * go to one int32 lane's bytes 0..2. */
  for (int j = 0; j < 3; ++j) {
    __m512 nat[4];
    for (int n = 0; n < 4; ++n) {
      __m512i d = _mm512_setzero_si512();
      for (int i = 0; i < 3; ++i) {
        const __m512i w = _mm512_cvtps_epi32(
            dwv_load16(p->wt + (3 * i + j) * C, c0, n, valid, pairs));
        d = _mm512_or_si512(
            d, _mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(0xFF)),
                                 8 * i));
      }
      nat[n] = _mm512_castsi512_ps(d);
    }
    __m512 out[4];
    dwv_lanes(nat, out);
    for (int k = 0; k < 4; ++k)
      blk->w[j][k] = _mm512_castps_si512(out[k]);
  }
  const __m512i zx = _mm512_set1_epi32((int32_t)p->zx);
  const __m512 rcp = _mm512_set1_ps(p->rcp);
  __m512 sums[4], scales[4], biases[4];
  for (int n = 0; n < 4; ++n) {
    const __m512i wsum =
        _mm512_cvtps_epi32(dwv_load16(p->wsum, c0, n, valid, pairs));
    sums[n] = _mm512_castsi512_ps(
        _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(zx, wsum)));
    /* dwq_fold's: scale and bias times 1 / out_scale */
    scales[n] = _mm512_mul_ps(dwv_load16(p->scales, c0, n, valid, pairs), rcp);
    biases[n] =
        p->bias ? _mm512_mul_ps(dwv_load16(p->bias, c0, n, valid, pairs), rcp)
                : _mm512_setzero_ps();
  }
  __m512 out[4];
  dwv_lanes(sums, out);
  for (int k = 0; k < 4; ++k)
    blk->start[k] = _mm512_castps_si512(out[k]);
  dwv_lanes(scales, blk->scale);
  dwv_lanes(biases, blk->bias);
}

/* The epilogue's constants (depthwise_u8_vec.inc's dwq_epilogue). */
typedef struct {
  __m512 lo, hi, magic, magic_minus_zpo;
} dwv_epilogue;

/* Output pixel o's 64 channels from its accumulators: t = acc * scale + bias
 * (both / out_scale), clamped to the activation's and the range's bounds,
 * rounded half to even by 1.5 * 2^23, plus the zero point; packed back into
 * the channels' order. */
INL void dwv_store(const dwv_block* blk, const dwv_epilogue* e,
                   const __m512i acc[4], uint8_t* o, __mmask64 bytes) {
  __m512i q[4];
  for (int k = 0; k < 4; ++k) {
    __m512 t = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[k]), blk->scale[k],
                               blk->bias[k]);
    t = _mm512_min_ps(_mm512_max_ps(t, e->lo), e->hi);
    t = _mm512_sub_ps(_mm512_add_ps(t, e->magic), e->magic_minus_zpo);
    q[k] = _mm512_cvtps_epi32(t);
  }
  const __m512i w01 = _mm512_packs_epi32(q[0], q[1]);
  const __m512i w23 = _mm512_packs_epi32(q[2], q[3]);
  (void)blk;
  _mm512_mask_storeu_epi8(o, bytes, _mm512_packus_epi16(w01, w23));
}

/* The rows of one output row's window, or NULL for a row in the padding. */
typedef struct {
  const uint8_t* row[3];
  int64_t w, c;
  int pairs; /* 32 channels: a vector holds columns x and x + 1 */
  __m512i zx;
  __mmask64 bytes;
} dwv_rows;

/* The bytes of column x (and x + 1 with pairs) inside the input. */
INL __mmask64 dwv_inside(const dwv_rows* r, int64_t x) {
  if (!r->pairs)
    return x >= 0 && x < r->w ? r->bytes : 0;
  return (x >= 0 && x < r->w ? (__mmask64)0xFFFFFFFFu : 0) |
         (x + 1 >= 0 && x + 1 < r->w ? (__mmask64)0xFFFFFFFFu << 32 : 0);
}

/* Column x of the window rows, interleaved; the input's zero point where x
 * or a row lies in the padding (a masked load keeps it there). */
INL void dwv_column(const dwv_rows* r, int64_t x, __m512i v[4]) {
  __m512i in[3];
  const __mmask64 inside = dwv_inside(r, x);
  for (int i = 0; i < 3; ++i)
    in[i] = r->row[i]
                ? _mm512_mask_loadu_epi8(r->zx, inside, r->row[i] + x * r->c)
                : r->zx;
  dwv_interleave(in[0], in[1], in[2], v);
}

/* NPIX output vectors (pixels, or pairs of pixels) from input column x0,
 * SW columns apart, stored `step` bytes apart (the last one's bytes
 * `last`); NPIX and SW constants after inlining. Each column is
 * interleaved once and multiplied into every output it is a tap of. */
INL void dwv_pixels(const int NPIX, const int SW, const dwv_block* blk,
                    const dwv_epilogue* e, const dwv_rows* r, int64_t x0,
                    uint8_t* o, int64_t step, __mmask64 last) {
  __m512i acc[DWV_PIX][4];
  for (int q = 0; q < NPIX; ++q)
    for (int k = 0; k < 4; ++k)
      acc[q][k] = blk->start[k];
  for (int col = 0; col < (NPIX - 1) * SW + 3; ++col) {
    __m512i v[4];
    dwv_column(r, x0 + col, v);
    for (int q = 0; q < NPIX; ++q) {
      const int j = col - q * SW;
      if (j >= 0 && j < 3)
        for (int k = 0; k < 4; ++k)
          acc[q][k] = _mm512_dpbusd_epi32(acc[q][k], v[k], blk->w[j][k]);
    }
  }
  for (int q = 0; q < NPIX; ++q)
    dwv_store(blk, e, acc[q], o + q * step, q == NPIX - 1 ? last : blk->bytes);
}

INL void dwv_row(const int SW, const tfcc_dwq_args* p, const dwv_block* blk,
                 const dwv_epilogue* e, dwv_rows* r, int64_t b, int64_t row,
                 int64_t c0) {
  const int64_t y0 = row * p->sh - p->pt;
  const uint8_t* xb = p->x + b * p->h * p->w * p->c + c0;
  for (int i = 0; i < 3; ++i)
    r->row[i] =
        y0 + i >= 0 && y0 + i < p->h ? xb + (y0 + i) * p->w * p->c : NULL;
  uint8_t* o = p->y_u8 + ((b * p->oh + row) * p->ow) * p->c + c0;
  const int64_t C = p->c, ow = p->ow, pl = p->pl;
  const __mmask64 all = blk->bytes;
  int64_t s = 0;
  if (r->pairs) { /* stride 1: pairs of pixels 2 columns apart */
    for (; s + 2 * DWV_PIX <= ow; s += 2 * DWV_PIX)
      dwv_pixels(DWV_PIX, 2, blk, e, r, s - pl, o + s * C, 2 * C, all);
    for (; s < ow; s += 2)
      dwv_pixels(1, 2, blk, e, r, s - pl, o + s * C, 2 * C,
                 s + 1 < ow ? all : (__mmask64)0xFFFFFFFFu);
    return;
  }
  for (; s + DWV_PIX <= ow; s += DWV_PIX)
    dwv_pixels(DWV_PIX, SW, blk, e, r, s * SW - pl, o + s * C, C, all);
  for (; s < ow; ++s)
    dwv_pixels(1, SW, blk, e, r, s * SW - pl, o + s * C, C, all);
}

void tfcc_dwq_rows_avx512vnni(const tfcc_dwq_args* p, int64_t begin,
                              int64_t end) {
  float lo, hi;
  tfcc_u8_act_bounds(p->act, p->alpha, p->beta, p->rcp, p->zpo, &lo, &hi);
  const dwv_epilogue e = {_mm512_set1_ps(lo), _mm512_set1_ps(hi),
                          _mm512_set1_ps(12582912.0f),
                          _mm512_set1_ps(12582912.0f - p->zpo)};
  dwv_rows r;
  r.w = p->w;
  r.c = p->c;
  r.pairs = p->c == 32 && p->sw == 1;
  r.zx = _mm512_set1_epi8((char)(int32_t)p->zx);
  /* Channel blocks outside the rows: a block's constants are built once per
   * call, and its three input rows stay in L1 between output rows. */
  for (int64_t c0 = 0; c0 < p->c; c0 += 64) {
    dwv_block blk;
    dwv_block_of(p, c0, r.pairs, &blk);
    r.bytes = blk.bytes;
    for (int64_t R = begin; R < end; ++R) {
      if (p->sw == 1)
        dwv_row(1, p, &blk, &e, &r, R / p->oh, R % p->oh, c0);
      else
        dwv_row(2, p, &blk, &e, &r, R / p->oh, R % p->oh, c0);
    }
  }
}
