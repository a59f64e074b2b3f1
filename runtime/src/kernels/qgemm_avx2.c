/* qgemm_avx2.c - the int8 GEMM micro-kernel for AVX2 (CMakeLists gives this
 * file -march=x86-64-v3). vpmaddubsw would add two u8 x s8 products into a
 * saturating int16 (255 * 127 * 2 > 32767), so both operands are widened to
 * int16 first and multiplied with vpmaddwd, which is exact: per group of 4 k
 * and 4 columns (16 packed bytes, widened), one vpmaddwd of the row's 4
 * values (repeated) leaves 2 partial sums per column, added pairwise at the
 * end.
 *
 * The tile's rows of A are widened once per chunk of K into a stack buffer,
 * so that a row's 4 values are one broadcast load; then blocks of 4 rows x
 * 8 columns (8 accumulators, 2 widened weight vectors) run over the chunk,
 * each widened weight feeding 4 rows. Also the epilogue (qgemm_vec.inc)
 * built for AVX2. */
#include "qgemm_internal.h"

#include <immintrin.h>
#include <string.h>

/* Groups of 4 k per chunk of A: TFCC_QMR rows x 1024 int16 = 16 KiB. */
#define QA2_CHUNK 256
/* Partial sums of one tile: 2 per column. */
#define QA2_RAW_LD (2 * TFCC_QNR_TILE)
/* Blocks of 8 columns per packed panel. */
#define QA2_OCTETS_PER_PANEL (TFCC_RT_QGEMM_NR / 8)

/* Rows [0, mr) of A, groups [g0, g0 + ng), as int16 (zero past K). */
static void widen_rows(const tfcc_quk_args* p, int64_t g0, int64_t ng,
                       int16_t* dst) {
  const int64_t k0 = 4 * g0, kn = 4 * ng;
  const int64_t valid = p->K - k0 < kn ? p->K - k0 : kn;
  for (int64_t i = 0; i < p->mr; ++i) {
    const uint8_t* a = p->a + i * p->lda + k0;
    int16_t* d = dst + i * kn;
    int64_t k = 0;
    for (; k + 16 <= valid; k += 16)
      _mm256_storeu_si256(
          (__m256i*)(d + k),
          _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(a + k))));
    for (; k < valid; ++k)
      d[k] = a[k];
    for (; k < kn; ++k)
      d[k] = 0;
  }
}

/* R rows (a constant after inlining) x the 8 columns whose packed bytes
 * start at b, over ng groups: raw partial sums (2 per column) accumulated
 * into raw (row stride QA2_RAW_LD), or started from zero. */
static inline __attribute__((always_inline)) void
qa2_block(const int R, const int16_t* a16, int64_t lda16, const int8_t* b,
          int64_t ng, int32_t* raw, int first) {
  __m256i acc[4][2];
  for (int r = 0; r < R; ++r)
    for (int h = 0; h < 2; ++h)
      acc[r][h] = first ? _mm256_setzero_si256()
                        : _mm256_loadu_si256(
                              (const __m256i*)(raw + r * QA2_RAW_LD + h * 8));
  for (int64_t g = 0; g < ng; ++g) {
    const __m256i w0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(b + g * 64)));
    const __m256i w1 = _mm256_cvtepi8_epi16(
        _mm_loadu_si128((const __m128i*)(b + g * 64 + 16)));
    for (int r = 0; r < R; ++r) {
      int64_t v;
      memcpy(&v, a16 + r * lda16 + 4 * g, sizeof v);
      const __m256i x = _mm256_set1_epi64x(v);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int h = 0; h < 2; ++h)
      _mm256_storeu_si256((__m256i*)(raw + r * QA2_RAW_LD + h * 8), acc[r][h]);
}

/* 8 int32 partial sums of columns (2 per column, 4 columns) x 2 -> the 8
 * column sums in order. */
static inline __m256i finish(__m256i lo, __m256i hi) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

/* The tile's partial sums (2 per column, row stride QA2_RAW_LD) into raw. */
static void quk_raw(const tfcc_quk_args* p, int32_t* raw) {
  int16_t a16[TFCC_QMR * QA2_CHUNK * 4] __attribute__((aligned(32)));
  const int64_t groups = (p->K + 3) / 4;
  const int64_t octets = p->np * QA2_OCTETS_PER_PANEL;
  for (int64_t g0 = 0; g0 < groups; g0 += QA2_CHUNK) {
    const int64_t ng = groups - g0 < QA2_CHUNK ? groups - g0 : QA2_CHUNK;
    widen_rows(p, g0, ng, a16);
    const int first = g0 == 0;
    for (int64_t o = 0; o < octets; ++o) {
      /* Octet o: panel o / 2, its columns 8 * (o % 2) on. */
      const int8_t* b = p->b + (o / QA2_OCTETS_PER_PANEL) * groups * 64 +
                        g0 * 64 + (o % QA2_OCTETS_PER_PANEL) * 32;
      for (int64_t i = 0; i < p->mr; i += 4) {
        const int16_t* a = a16 + i * 4 * ng;
        int32_t* r = raw + i * QA2_RAW_LD + o * 16;
        switch (p->mr - i < 4 ? p->mr - i : 4) {
        case 1:
          qa2_block(1, a, 4 * ng, b, ng, r, first);
          break;
        case 2:
          qa2_block(2, a, 4 * ng, b, ng, r, first);
          break;
        case 3:
          qa2_block(3, a, 4 * ng, b, ng, r, first);
          break;
        default:
          qa2_block(4, a, 4 * ng, b, ng, r, first);
          break;
        }
      }
    }
  }
}

/* Column sums of row i's octet o (8 columns) from raw. */
static inline __m256i octet_sums(const int32_t* raw, int64_t i, int64_t o) {
  const int32_t* r = raw + i * QA2_RAW_LD + o * 16;
  return finish(_mm256_loadu_si256((const __m256i*)r),
                _mm256_loadu_si256((const __m256i*)(r + 8)));
}

void tfcc_quk_avx2(const tfcc_quk_args* p) {
  int32_t raw[TFCC_QMR * QA2_RAW_LD] __attribute__((aligned(32)));
  quk_raw(p, raw);
  for (int64_t i = 0; i < p->mr; ++i)
    for (int64_t o = 0; o < p->np * QA2_OCTETS_PER_PANEL; ++o)
      _mm256_storeu_si256((__m256i*)(p->acc + i * TFCC_QNR_TILE + o * 8),
                          octet_sums(raw, i, o));
}

/* What the fused epilogue holds for a whole tile, in registers: locals,
 * so that the output's byte stores (which may alias anything) do not make
 * every octet re-read the arguments, and 1 / out_scale is divided once. */
typedef struct epilogue_regs {
  __m256 alpha, beta, inv_scale, qmin, qmax; /* alpha, beta: the activation's */
  __m256i out_zp;
  const float* res;
  float* y_f32;
  uint8_t* y_u8;
  int64_t N;
} epilogue_regs;

/* qgemm_vec.inc's epilogue on 8 columns in registers (the same operations
 * in the same order) up to the activation; ACT is a constant after
 * inlining. */
static inline __attribute__((always_inline)) __m256
epilogue_value(const epilogue_regs* r, const int32_t ACT, __m256i acc,
               __m256i zp_sums, __m256 scale, __m256 bias, int has_bias,
               __m256i mask, int64_t m, int64_t n) {
  __m256 v =
      _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(acc, zp_sums)), scale);
  if (has_bias)
    v = _mm256_add_ps(v, bias);
  if (r->res)
    v = _mm256_add_ps(v, _mm256_maskload_ps(r->res + m * r->N + n, mask));
  switch (ACT) {
  case TFCC_ACT_RELU:
    /* v > 0 ? v : 0, a NaN to 0 as there. */
    v = _mm256_and_ps(v, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ));
    break;
  case TFCC_ACT_CLIP:
    v = _mm256_blendv_ps(r->alpha, v, _mm256_cmp_ps(v, r->alpha, _CMP_GT_OQ));
    v = _mm256_blendv_ps(r->beta, v, _mm256_cmp_ps(v, r->beta, _CMP_LT_OQ));
    break;
  case TFCC_ACT_LEAKY_RELU:
    v = _mm256_blendv_ps(_mm256_mul_ps(v, r->alpha), v,
                         _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ));
    break;
  default:
    break;
  }
  return v;
}

/* v times 1 / scale, clamped to [-512, 512] (vmaxps gives its second
 * operand for a NaN: -512, then 0), rounded half to even by the conversion,
 * plus the zero point: in [-512 + zp, 512 + zp], which the unsigned
 * saturating packs after it (int32 -> uint16 -> uint8) clamp to [0, 255]. */
static inline __attribute__((always_inline)) __m256i
requantize(const epilogue_regs* r, __m256 v) {
  __m256 t = _mm256_mul_ps(v, r->inv_scale);
  t = _mm256_min_ps(_mm256_max_ps(t, r->qmin), r->qmax);
  return _mm256_add_epi32(_mm256_cvtps_epi32(t), r->out_zp);
}

/* One octet's outputs: `valid` lanes (mask: all bits set) are written. F32
 * is a constant after inlining. */
static inline __attribute__((always_inline)) void
epilogue_store(const epilogue_regs* r, const int F32, __m256 v, __m256i mask,
               int64_t valid, int64_t m, int64_t n) {
  if (F32) {
    /* A masked store is microcoded on AMD cores (several times a plain
     * one's cost): only for the last, partial octet. */
    if (valid == 8)
      _mm256_storeu_ps(r->y_f32 + m * r->N + n, v);
    else
      _mm256_maskstore_ps(r->y_f32 + m * r->N + n, mask, v);
    return;
  }
  const __m256i q = requantize(r, v);
  __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(q),
                               _mm256_extracti128_si256(q, 1));
  w = _mm_packus_epi16(w, w);
  uint8_t* y = r->y_u8 + m * r->N + n;
  if (valid == 8) {
    _mm_storel_epi64((__m128i*)y, w);
  } else {
    uint8_t bytes[16];
    _mm_storeu_si128((__m128i*)bytes, w);
    memcpy(y, bytes, (size_t)valid);
  }
}

/* 2 octets of int32 values -> 16 bytes in column order (packus_epi32
 * interleaves the 128-bit halves: q0 lo, q1 lo | q0 hi, q1 hi). */
static inline __attribute__((always_inline)) __m128i pack16(__m256i q0,
                                                            __m256i q1) {
  const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(q0, q1), 0xD8);
  return _mm_packus_epi16(_mm256_castsi256_si128(p),
                          _mm256_extracti128_si256(p, 1));
}

/* Two whole octets as uint8: one pack sequence and one 16-byte store. */
static inline __attribute__((always_inline)) void
epilogue_store_u8x16(const epilogue_regs* r, __m256 v0, __m256 v1, int64_t m,
                     int64_t n) {
  _mm_storeu_si128((__m128i*)(r->y_u8 + m * r->N + n),
                   pack16(requantize(r, v0), requantize(r, v1)));
}

/* ---- folded uint8 epilogue (qgemm_internal.h) ------------------------------
 * Half the instructions of the unfolded form on the small-K 1x1
 * convolutions (MobileNetV2's expansions), where the epilogue costs more
 * than the dot products. */

/* 8 columns' requantized int32 values (before the packs) from their dot
 * products with the zero point's term taken away. */
static inline __attribute__((always_inline)) __m256i
folded_value(__m256i acc, __m256 scale, __m256 offset, __m256 lo, __m256 hi) {
  __m256 t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), scale, offset);
  t = _mm256_min_ps(_mm256_max_ps(t, lo), hi);
  return _mm256_cvtps_epi32(t);
}

/* Column constants of the octet at column n (mask: the valid lanes). */
static inline __attribute__((always_inline)) void
folded_columns(const tfcc_q_epilogue_args* ep, const tfcc_q_folded* f,
               int64_t n, __m256i mask, __m256* scale, __m256* offset) {
  const __m256 inv = _mm256_set1_ps(f->inv);
  *scale = _mm256_mul_ps(_mm256_maskload_ps(ep->scales + n, mask), inv);
  const __m256 bias =
      ep->bias ? _mm256_maskload_ps(ep->bias + n, mask) : _mm256_setzero_ps();
  *offset = _mm256_add_ps(_mm256_mul_ps(bias, inv), _mm256_set1_ps(f->zpo));
}

/* 4 octets of int32 values -> 32 bytes in column order. */
static inline __attribute__((always_inline)) __m256i
pack32(__m256i q0, __m256i q1, __m256i q2, __m256i q3) {
  /* Each pack interleaves the 128-bit halves; one dword permute undoes
   * both. */
  const __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(q0, q1),
                                        _mm256_packus_epi32(q2, q3));
  return _mm256_permutevar8x32_epi32(w,
                                     _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The folded epilogue over a tile's dot products less the zero point's
 * term (row stride TFCC_QNR_TILE). */
void tfcc_q_avx2_epilogue_tile_folded(const tfcc_q_epilogue_args* ep,
                                      const int32_t* sums, int64_t mr,
                                      int64_t m0, int64_t n0, int64_t nr) {
  const tfcc_q_folded f = ep->fold;
  const __m256 lo = _mm256_set1_ps(f.lo), hi = _mm256_set1_ps(f.hi);
  const __m256i all = _mm256_set1_epi32(-1);
  /* Locals: the byte stores below may alias *ep. */
  const int64_t N = ep->N;
  uint8_t* y = ep->y_u8 + m0 * N + n0;
  int64_t o = 0;
  if (nr == TFCC_QNR_TILE) { /* whole tile rows: one 32-byte store each */
    __m256 sc[4], off[4];
    for (int q = 0; q < 4; ++q)
      folded_columns(ep, &f, n0 + 8 * q, all, &sc[q], &off[q]);
    for (int64_t i = 0; i < mr; ++i) {
      const int32_t* row = sums + i * TFCC_QNR_TILE;
      __m256i q[4];
      for (int k = 0; k < 4; ++k)
        q[k] = folded_value(_mm256_loadu_si256((const __m256i*)(row + 8 * k)),
                            sc[k], off[k], lo, hi);
      _mm256_storeu_si256((__m256i*)(y + i * N),
                          pack32(q[0], q[1], q[2], q[3]));
    }
    return;
  }
  for (; (o + 2) * 8 <= nr; o += 2) {
    __m256 sc0, sc1, off0, off1;
    folded_columns(ep, &f, n0 + 8 * o, all, &sc0, &off0);
    folded_columns(ep, &f, n0 + 8 * o + 8, all, &sc1, &off1);
    for (int64_t i = 0; i < mr; ++i) {
      const int32_t* row = sums + i * TFCC_QNR_TILE + o * 8;
      const __m256i q0 = folded_value(_mm256_loadu_si256((const __m256i*)row),
                                      sc0, off0, lo, hi);
      const __m256i q1 = folded_value(
          _mm256_loadu_si256((const __m256i*)(row + 8)), sc1, off1, lo, hi);
      _mm_storeu_si128((__m128i*)(y + i * N + o * 8), pack16(q0, q1));
    }
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; o * 8 < nr; ++o) {
    const int64_t valid = nr - o * 8 < 8 ? nr - o * 8 : 8;
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)valid), lane);
    __m256 sc, off;
    folded_columns(ep, &f, n0 + 8 * o, mask, &sc, &off);
    for (int64_t i = 0; i < mr; ++i) {
      const __m256i q =
          folded_value(_mm256_loadu_si256(
                           (const __m256i*)(sums + i * TFCC_QNR_TILE + o * 8)),
                       sc, off, lo, hi);
      uint8_t bytes[16];
      _mm_storeu_si128((__m128i*)bytes, pack16(q, q));
      memcpy(y + i * N + o * 8, bytes, (size_t)valid);
    }
  }
}

/* The fused epilogue over a tile's column sums (row stride TFCC_QNR_TILE),
 * for one activation and output type. */
static inline __attribute__((always_inline)) void
epilogue_tile_as(const tfcc_q_epilogue_args* ep, const int32_t ACT,
                 const int F32, const int32_t* sums, int64_t mr, int64_t m0,
                 int64_t n0, int64_t nr) {
  epilogue_regs r;
  r.alpha = _mm256_set1_ps(ep->alpha);
  r.beta = _mm256_set1_ps(ep->beta);
  r.inv_scale = _mm256_set1_ps(F32 ? 1.0f : 1.0f / ep->out_scale);
  r.qmin = _mm256_set1_ps(-512.0f);
  r.qmax = _mm256_set1_ps(512.0f);
  r.out_zp = _mm256_set1_epi32(ep->out_zero_point);
  r.res = ep->res;
  r.y_f32 = ep->y_f32;
  r.y_u8 = ep->y_u8;
  r.N = ep->N;
  const float* scales = ep->scales;
  const float* biases = ep->bias;
  const uint8_t* colsums = ep->colsums;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i zp = _mm256_set1_epi32(ep->a_zero_point);
  const __m256i all = _mm256_set1_epi32(-1);
  const int has_bias = biases != NULL;
  int64_t o = 0;
  /* uint8 outputs: two whole octets at a time share their packs and store. */
  for (; !F32 && (o + 2) * 8 <= nr; o += 2) {
    const int64_t n = n0 + o * 8;
    const __m256i zs0 = _mm256_mullo_epi32(
        zp, _mm256_loadu_si256((const __m256i*)(colsums + 4 * n)));
    const __m256i zs1 = _mm256_mullo_epi32(
        zp, _mm256_loadu_si256((const __m256i*)(colsums + 4 * n + 32)));
    const __m256 sc0 = _mm256_loadu_ps(scales + n);
    const __m256 sc1 = _mm256_loadu_ps(scales + n + 8);
    const __m256 b0 =
        has_bias ? _mm256_loadu_ps(biases + n) : _mm256_setzero_ps();
    const __m256 b1 =
        has_bias ? _mm256_loadu_ps(biases + n + 8) : _mm256_setzero_ps();
    for (int64_t i = 0; i < mr; ++i) {
      const int32_t* row = sums + i * TFCC_QNR_TILE + o * 8;
      const __m256 v0 =
          epilogue_value(&r, ACT, _mm256_loadu_si256((const __m256i*)row), zs0,
                         sc0, b0, has_bias, all, m0 + i, n);
      const __m256 v1 =
          epilogue_value(&r, ACT, _mm256_loadu_si256((const __m256i*)(row + 8)),
                         zs1, sc1, b1, has_bias, all, m0 + i, n + 8);
      epilogue_store_u8x16(&r, v0, v1, m0 + i, n);
    }
  }
  for (; o * 8 < nr; ++o) {
    const int64_t n = n0 + o * 8;
    const int64_t valid = nr - o * 8 < 8 ? nr - o * 8 : 8;
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)valid), lane);
    /* Column sums exist for every padded column of a panel (pack.c). */
    const __m256i zp_sums = _mm256_mullo_epi32(
        zp, _mm256_loadu_si256((const __m256i*)(colsums + 4 * n)));
    const __m256 scale = _mm256_maskload_ps(scales + n, mask);
    const __m256 bias =
        has_bias ? _mm256_maskload_ps(biases + n, mask) : _mm256_setzero_ps();
    for (int64_t i = 0; i < mr; ++i)
      epilogue_store(
          &r, F32,
          epilogue_value(&r, ACT,
                         _mm256_loadu_si256((
                             const __m256i*)(sums + i * TFCC_QNR_TILE + o * 8)),
                         zp_sums, scale, bias, has_bias, mask, m0 + i, n),
          mask, valid, m0 + i, n);
  }
}

#define EPILOGUE_FOR_ACT(F32)                                                  \
  switch (ep->act) {                                                           \
  case TFCC_ACT_RELU:                                                          \
    epilogue_tile_as(ep, TFCC_ACT_RELU, F32, sums, mr, m0, n0, nr);            \
    break;                                                                     \
  case TFCC_ACT_CLIP:                                                          \
    epilogue_tile_as(ep, TFCC_ACT_CLIP, F32, sums, mr, m0, n0, nr);            \
    break;                                                                     \
  case TFCC_ACT_LEAKY_RELU:                                                    \
    epilogue_tile_as(ep, TFCC_ACT_LEAKY_RELU, F32, sums, mr, m0, n0, nr);      \
    break;                                                                     \
  default:                                                                     \
    epilogue_tile_as(ep, TFCC_ACT_NONE, F32, sums, mr, m0, n0, nr);            \
    break;                                                                     \
  }

/* The fused epilogue (tfcc_q_fused_supports' activations), specialized per
 * activation and output type. */
void tfcc_q_avx2_epilogue_tile(const tfcc_q_epilogue_args* ep,
                               const int32_t* sums, int64_t mr, int64_t m0,
                               int64_t n0, int64_t nr) {
  if (ep->y_f32) {
    EPILOGUE_FOR_ACT(1)
  } else {
    EPILOGUE_FOR_ACT(0)
  }
}
#undef EPILOGUE_FOR_ACT

int64_t tfcc_q_avx2_pool2x2(const tfcc_quk_args* p, int32_t* sums) {
  const int64_t mr = p->mr, np = p->np, half = mr / 2;
  if (!p->pool2x2)
    return mr;
  for (int64_t w = 0; w < mr / 4; ++w)
    for (int64_t j = 0; j < np * TFCC_RT_QGEMM_NR; j += 8) {
#define QA2_ROW(r)                                                             \
  _mm256_loadu_si256((const __m256i*)(sums + (r)*TFCC_QNR_TILE + j))
      const __m256i top = _mm256_max_epi32(
          _mm256_max_epi32(QA2_ROW(2 * w), QA2_ROW(2 * w + 1)),
          _mm256_max_epi32(QA2_ROW(half + 2 * w), QA2_ROW(half + 2 * w + 1)));
#undef QA2_ROW
      _mm256_storeu_si256((__m256i*)(sums + w * TFCC_QNR_TILE + j), top);
    }
  return mr / 4;
}

void tfcc_quk_avx2_fused(const tfcc_quk_args* p, const tfcc_q_epilogue_args* ep,
                         int64_t m0, int64_t n0, int64_t nr) {
  int32_t sums[TFCC_QMR * TFCC_QNR_TILE] __attribute__((aligned(32)));
  tfcc_quk_args a = *p;
  a.acc = sums;
  tfcc_quk_avx2(&a);
  /* Pooled first: the zero point's term is the same down a column. */
  const int64_t rows = tfcc_q_avx2_pool2x2(p, sums);
  if (!ep->folded) {
    tfcc_q_avx2_epilogue_tile(ep, sums, rows, m0, n0, nr);
    return;
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < p->np * TFCC_RT_QGEMM_NR; ++j) {
      int32_t colsum;
      memcpy(&colsum, ep->colsums + 4 * (n0 + j), sizeof colsum);
      sums[i * TFCC_QNR_TILE + j] -= ep->a_zero_point * colsum;
    }
  tfcc_q_avx2_epilogue_tile_folded(ep, sums, rows, m0, n0, nr);
}

/* ---- vpmaddubsw form (qgemm_pairs.inc) ------------------------------------
 * For weights whose packed pairs fit (tfcc_q_pairs_fit): one vpmaddubsw
 * multiplies 4 broadcast bytes of a row of A by 8 columns x 4 k of packed
 * B into int16 pair sums, exact since |b0| + |b1| <= 128; vpmaddwd by ones
 * adds each column's two pairs into int32. That is 32 products per
 * 3 instructions, against the widening form's 16 per 2 plus the widening,
 * and A is read in place (no int16 copy). */
#define QP_SUFFIX(name) name##_avx2_pairs
#define QP_DOT(acc, x, b)                                                      \
  _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(x, b),          \
                                          _mm256_set1_epi16(1)))
#include "qgemm_pairs.inc"
#undef QP_DOT
#undef QP_SUFFIX

#define QV_SUFFIX(name) name##_avx2
#include "qgemm_vec.inc"

/* ---- im2col of a one-channel 3x3 window ----------------------------------
 * 4 pixels (48 bytes: pixel t at bytes 12t .. 12t + 11, tap (i, j) at 3i +
 * j) from two registers: kernel rows 0 and 1 (8 bytes each) and row 2.
 * Each 16 output bytes are one pshufb of each register, or-ed (index -1
 * writes a zero). */
#define Z (-1)
/* Output bytes [16v, 16v + 16) from rows 0 | 1 (bytes 0-7 | 8-15) */
static const int8_t im2col_from01[3][16] = {
    {0, 1, 2, 8, 9, 10, Z, Z, Z, Z, Z, Z, 1, 2, 3, 9},
    {10, 11, Z, Z, Z, Z, Z, Z, 2, 3, 4, 10, 11, 12, Z, Z},
    {Z, Z, Z, Z, 3, 4, 5, 11, 12, 13, Z, Z, Z, Z, Z, Z},
};
/* and from row 2 (bytes 0-7). */
static const int8_t im2col_from2[3][16] = {
    {Z, Z, Z, Z, Z, Z, 0, 1, 2, Z, Z, Z, Z, Z, Z, Z},
    {Z, Z, 1, 2, 3, Z, Z, Z, Z, Z, Z, Z, Z, Z, 2, 3},
    {4, Z, Z, Z, Z, Z, Z, Z, Z, Z, 3, 4, 5, Z, Z, Z},
};
#undef Z

void tfcc_q_im2col_3x3c1_avx2(const uint8_t* r0, const uint8_t* r1,
                              const uint8_t* r2, int64_t blocks, uint8_t* dst) {
  __m128i m01[3], m2[3];
  for (int v = 0; v < 3; ++v) {
    m01[v] = _mm_loadu_si128((const __m128i*)im2col_from01[v]);
    m2[v] = _mm_loadu_si128((const __m128i*)im2col_from2[v]);
  }
  for (int64_t b = 0; b < blocks; ++b, dst += 48) {
    const __m128i x01 =
        _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i*)(r0 + 4 * b)),
                           _mm_loadl_epi64((const __m128i*)(r1 + 4 * b)));
    const __m128i x2 = _mm_loadl_epi64((const __m128i*)(r2 + 4 * b));
    for (int v = 0; v < 3; ++v)
      _mm_storeu_si128((__m128i*)(dst + 16 * v),
                       _mm_or_si128(_mm_shuffle_epi8(x01, m01[v]),
                                    _mm_shuffle_epi8(x2, m2[v])));
  }
}
