/* gemm.c - the portable micro-kernel and the GEMM driver.
 *
 * Blocking (GotoBLAS/BLIS style, with the packed B operand as the cache
 * resident block):
 *   for each K block (kc <= TFCC_KC values, TFCC_KC_PACKED with pre-packed
 *   B, balanced):
 *     for each block of B panels (kc x ncp*32 floats, ~TFCC_NC_BYTES, in L2):
 *       [B not pre-packed: pack that block into a stack buffer]
 *       for each MR-row tile of A (in L1: used for every panel of the block):
 *         A rows read in place ("direct": rows at a stride that does not
 *         alias in L1), a transposed A read in place by the k-major
 *         AVX-512 micro-kernel, or else copied into a [mr][kc] stack buffer;
 *         for each panel: micro-kernel (epilogue fused into the last K block).
 * Threads split the (batch, row tiles, panels) grid; every output element
 * is reduced in the same order whatever the split, so results are identical
 * for any thread count. */
#include "kernels_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef TFCC_KC
#define TFCC_KC 256 /* K block: an A tile (14 x kc floats) stays in L1 */
#endif
#ifndef TFCC_KC_PACKED
/* K block with pre-packed B: longer, so that C (re-read once per K block)
 * makes fewer passes; A and B stream through L1 a cache line per 16 k. */
#define TFCC_KC_PACKED 512
#endif
#ifndef TFCC_NC_BYTES
#define TFCC_NC_BYTES (512 * 1024) /* B block kept in L2 */
#endif
/* Run-time packed block of B (floats): 4 panels of a full K block. */
#define TFCC_BBUF_FLOATS (TFCC_KC * 4 * TFCC_UK_NR)
#ifndef TFCC_MC_TILES
/* Packed A tiles sharing one B block (pre-packed B): 72-84 rows, each B
 * block read from L3 once per group; fewer tiles re-read B too often
 * (docs/performance.md), so as many as the stack budget allows. */
#define TFCC_MC_TILES 6
#endif
/* The one stack buffer of a GEMM call (floats). */
#define TFCC_BUF_FLOATS                                                        \
  TFCC_MAX(TFCC_BBUF_FLOATS + TFCC_UK_MR * TFCC_KC,                            \
           TFCC_MC_TILES * TFCC_UK_MR * TFCC_KC_PACKED)
/* It lives on the caller's stack: leave 16 KiB of the budget for the rest
 * of the call. */
_Static_assert(TFCC_BUF_FLOATS * sizeof(float) + 16 * 1024 <=
                   TFCC_RT_KERNEL_STACK_BYTES,
               "the GEMM's stack buffer exceeds TFCC_RT_KERNEL_STACK_BYTES");

/* ---- portable path ------------------------------------------------------ */

float tfcc_act_scalar(float v, int32_t act, float alpha, float beta) {
  switch (act) {
  case TFCC_ACT_RELU:
    return v > 0.0f ? v : 0.0f;
  case TFCC_ACT_CLIP:
    v = v > alpha ? v : alpha;
    return v < beta ? v : beta;
  case TFCC_ACT_LEAKY_RELU:
    return v > 0.0f ? v : alpha * v;
  case TFCC_ACT_HARD_SWISH: {
    float t = v + 3.0f;
    t = t > 0.0f ? t : 0.0f;
    t = t < 6.0f ? t : 6.0f;
    return v * t / 6.0f;
  }
  case TFCC_ACT_SIGMOID:
    return 1.0f / (1.0f + expf(-v));
  default:
    return v;
  }
}

/* -DTFCC_UK_AVX512_PORTABLE: the portable AVX-512 build instead of the
 * hand-written kernel, to measure one against the other (bench/gemm). */
#ifdef TFCC_UK_AVX512_PORTABLE
#define TFCC_UK_AVX512 tfcc_uk_avx512_vec
#else
#define TFCC_UK_AVX512 tfcc_uk_avx512
#endif

tfcc_uk_fn tfcc_uk_for_isa(int isa) {
  return TFCC_FOR_ISA(isa, TFCC_UK_AVX512, tfcc_uk_avx2, tfcc_uk_base);
}

int64_t tfcc_uk_mr_for_isa(int isa) {
  return TFCC_FOR_ISA(isa, TFCC_UK_MR, TFCC_UK_MR_VEC, TFCC_UK_MR_VEC);
}

/* ---- GEMM driver -------------------------------------------------------- */

/* Rows of A from which bf16 operands take the vdpbf16ps path. */
#ifndef TFCC_GEMM_BF16_MIN_M
#define TFCC_GEMM_BF16_MIN_M 8
#endif

/* Tasks per pool thread of a small product (see tfcc_sgemm_impl). */
#define TFCC_GEMM_TASKS_PER_THREAD 4

typedef struct gemm_ctx {
  int64_t M, N, K;
  const float* A;
  int64_t lda, stride_a;
  int32_t trans_a;
  const float* B;
  int64_t ldb, stride_b;
  int32_t trans_b, b_packed;
  float* C;
  int64_t ldc, stride_c;
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  int32_t round;          /* TFCC_ACT_ROUND_* or 0 */
  tfcc_round_fn round_fn;
  int64_t tiles_m, panels;
  /* Each batch is cut into `per` tasks of about equal work along a
   * linearized order of its (row tile, panel) blocks: tile-major (a task is
   * mostly whole row tiles) or panel-major (mostly whole panels). */
  int64_t per;
  int32_t panel_major;
  tfcc_uk_fn uk;
  tfcc_uk_fn uk_kmajor; /* A^T read in place; NULL without AVX-512 */
  int64_t mr;           /* rows of uk's tile (tfcc_uk_mr_for_isa) */
  int32_t bf16;         /* bf16 operands on vdpbf16ps (gemm_range_bf16) */
} gemm_ctx;

/* Copies rows [mt, mt+mr) x columns [k0, k0+kc) of op(A) into dst [mr][kc]. */
static void pack_a_tile(const gemm_ctx* g, const float* A, int64_t mt,
                        int64_t mr, int64_t k0, int64_t kc, float* dst) {
  if (kc <= 0) /* nothing to copy (A may be NULL) */
    return;
  if (!g->trans_a) {
    for (int64_t i = 0; i < mr; ++i)
      memcpy(dst + i * kc, A + (mt + i) * g->lda + k0,
             (size_t)kc * sizeof(float));
  } else {
    for (int64_t k = 0; k < kc; ++k) {
      const float* s = A + (k0 + k) * g->lda + mt;
      for (int64_t i = 0; i < mr; ++i)
        dst[i * kc + k] = s[i];
    }
  }
}

/* The micro-kernel arguments every tile of a GEMM shares: one tap, C and the
 * residual at ldc, the activation. */
static tfcc_uk_args gemm_uk_args(const gemm_ctx* g) {
  tfcc_uk_args u;
  u.toff = NULL;
  u.ntaps = 1;
  u.b_tap_stride = 0;
  u.ldc = g->ldc;
  u.ldr = g->ldc;
  u.act = g->act;
  u.alpha = g->alpha;
  u.beta = g->beta;
  return u;
}

#if TFCC_KERNELS_HAVE_AVX512
/* K values per block of the bf16 path (even), and B panels per block: the
 * [10][128][32][2] bf16 block (160 KiB) stays in L2 while every row tile of
 * the range streams past it, each A tile converted once per block (a
 * 14 x 256 tile, 7 KiB, in L1). As many panels as the stack allows: each
 * block costs a conversion of the A rows (docs/mixed-precision.md). */
#ifndef TFCC_KC_BF16
#define TFCC_KC_BF16 256
#endif
#ifndef TFCC_NCP_BF16
#define TFCC_NCP_BF16 10
#endif
_Static_assert(TFCC_KC_BF16 % 2 == 0, "TFCC_KC_BF16 counts k pairs");
_Static_assert((TFCC_NCP_BF16 * TFCC_UK_NR + TFCC_UK_MR) * TFCC_KC_BF16 * 2 +
                       16 * 1024 <=
                   TFCC_RT_KERNEL_STACK_BYTES,
               "the bf16 GEMM's buffers exceed TFCC_RT_KERNEL_STACK_BYTES");

/* gemm_range with bf16 operands (TFCC_ACT_BF16_OPERANDS on AVX512_BF16):
 * for each K block and block of B panels, the B block converted once, then
 * every row tile: A tile converted, one bf16 micro-kernel call per panel.
 * The same reduction order whatever the thread split. */
static void gemm_range_bf16(const gemm_ctx* g, int64_t bi, int64_t r0,
                            int64_t r1, int64_t q0, int64_t q1) {
  uint16_t bbuf[TFCC_NCP_BF16 * TFCC_KC_BF16 * TFCC_UK_NR]
      __attribute__((aligned(64)));
  uint16_t abuf[TFCC_UK_MR * TFCC_KC_BF16] __attribute__((aligned(64)));
  const int64_t K = g->K, N = g->N;
  /* A and B may be NULL when K is 0: then point at a buffer, never read */
  const float* A = g->A ? g->A + bi * g->stride_a : (const float*)(void*)abuf;
  const float* B = g->B ? g->B + bi * g->stride_b : (const float*)(void*)bbuf;
  float* C = g->C + bi * g->stride_c;
  const float* R = g->res ? g->res + bi * g->stride_c : NULL;
  const int64_t nkb = K > 0 ? (K + TFCC_KC_BF16 - 1) / TFCC_KC_BF16 : 1;
  /* balanced blocks, each but the last of an even length */
  const int64_t kcs = K > 0 ? (((K + nkb - 1) / nkb) + 1) & ~(int64_t)1 : 0;
  tfcc_uk_args u = gemm_uk_args(g);
  for (int64_t kb = 0; kb < nkb; ++kb) {
    const int64_t k0 = kb * kcs;
    const int64_t kc = K - k0 < kcs ? K - k0 : kcs;
    const int64_t kp = (kc + 1) & ~(int64_t)1;
    u.kt = kp / 2;
    u.lda = kp;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nkb - 1 ? TFCC_UK_LAST : 0);
    for (int64_t qb = q0; qb < q1; qb += TFCC_NCP_BF16) {
      const int64_t qe = TFCC_MIN(qb + TFCC_NCP_BF16, q1);
      if (kc > 0)
        tfcc_bf16_pack_b(B, g->ldb, g->trans_b, g->b_packed, K, N, k0, kc, qb,
                         qe - qb, bbuf);
      for (int64_t mt = r0; mt < r1; mt += g->mr) {
        const int64_t mr = TFCC_MIN(g->mr, r1 - mt);
        if (kc > 0)
          tfcc_bf16_pack_a(g->trans_a ? A + k0 * g->lda + mt
                                      : A + mt * g->lda + k0,
                           g->lda, g->trans_a, mr, kc, abuf);
        /* the next tile's rows start arriving while this one computes */
        if (!g->trans_a && kc > 0 && mt + g->mr < r1)
          for (int64_t i = 0; i < TFCC_MIN(g->mr, r1 - mt - g->mr); ++i)
            for (int64_t k = 0; k < kc; k += 16)
              __builtin_prefetch(A + (mt + g->mr + i) * g->lda + k0 + k, 0, 2);
        u.a = (const float*)(const void*)abuf;
        u.mr = mr;
        for (int64_t q = qb; q < qe; ++q) {
          const int64_t n0 = q * TFCC_UK_NR;
          u.nr = TFCC_MIN(N - n0, TFCC_UK_NR);
          u.b = (const float*)(const void*)(bbuf + (q - qb) * kp * TFCC_UK_NR);
          u.c = C + mt * g->ldc + n0;
          u.res = R ? R + mt * g->ldc + n0 : NULL;
          u.bias = g->bias ? g->bias + n0 : NULL;
          tfcc_uk_avx512_bf16(&u);
        }
        if (g->round && (u.flags & TFCC_UK_LAST)) {
          const int64_t n0 = qb * TFCC_UK_NR;
          g->round_fn(C + mt * g->ldc + n0, g->ldc, mr,
                      TFCC_MIN(qe * TFCC_UK_NR, N) - n0, g->round);
        }
      }
    }
  }
}
#endif

/* Rows [r0, r1) (in one batch) and panels [q0, q1). */
static void gemm_range(const gemm_ctx* g, int64_t bi, int64_t r0, int64_t r1,
                       int64_t q0, int64_t q1) {
#if TFCC_KERNELS_HAVE_AVX512
  if (g->bf16) {
    gemm_range_bf16(g, bi, r0, r1, q0, q1);
    return;
  }
#endif
  /* Pre-packed B: up to TFCC_MC_TILES packed A tiles (one K block), so that
   * each B block loaded into L2 serves several tiles and A is copied once
   * per K block. Run-time packed B: the B block, then one A tile. */
  float buf[TFCC_BUF_FLOATS] __attribute__((aligned(64)));
  const int64_t K = g->K, N = g->N;
  /* A and B may be NULL when K is 0: then point at a buffer, never read */
  const float* A = g->A ? g->A + bi * g->stride_a : buf;
  const float* B = g->B ? g->B + bi * g->stride_b : buf;
  float* C = g->C + bi * g->stride_c;
  const float* R = g->res ? g->res + bi * g->stride_c : NULL;
  /* A rows in place unless transposed or at a stride that aliases in L1. */
  const int direct =
      !g->trans_a && ((g->lda * 4) % 2048 != 0 || r1 - r0 == 1);
  /* A few rows (GEMV-like, bandwidth bound on B): no K blocking, so every
   * panel of pre-packed B is one long sequential stream. Depends on M only,
   * never on the thread split. */
  const int64_t kmax = g->b_packed && g->M <= 4 && direct ? TFCC_MAX(K, 1)
                       : g->b_packed                       ? TFCC_KC_PACKED
                                                           : TFCC_KC;
  const int64_t nkb = K > 0 ? (K + kmax - 1) / kmax : 1;
  const int64_t kcs = K > 0 ? (K + nkb - 1) / nkb : 0;
  /* A transposed (op(A) = A^T, A stored K x M): read in place by the
   * k-major micro-kernel (the MR values of one k are adjacent) instead of
   * transposing tiles, unless its rows alias in L1. */
  const int kmajor =
      g->trans_a && g->uk_kmajor && (g->lda * 4) % 2048 != 0;
  const int64_t group = g->b_packed && !direct && !kmajor ? TFCC_MC_TILES : 1;
  /* A B of exactly one panel with contiguous rows (e.g. dy of a 32-channel
   * convolution in its filter gradient) is already in the packed layout. */
  const int b_in_place = !g->b_packed && !g->trans_b && N == TFCC_UK_NR &&
                         g->ldb == TFCC_UK_NR;
  float* const bbuf = buf;
  float* const abuf = g->b_packed ? buf : buf + TFCC_BBUF_FLOATS;
  tfcc_uk_args u = gemm_uk_args(g);
  for (int64_t kb = 0; kb < nkb; ++kb) {
    const int64_t k0 = kb * kcs;
    const int64_t kc = K - k0 < kcs ? K - k0 : kcs;
    const int64_t tsz = g->mr * kc; /* floats of one packed A tile */
    u.kt = kc;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nkb - 1 ? TFCC_UK_LAST : 0);
    int64_t ncp;
    if (g->b_packed) {
      ncp = TFCC_NC_BYTES / (TFCC_MAX(kc, 1) * TFCC_UK_NR * 4);
    } else {
      ncp = TFCC_BBUF_FLOATS / (TFCC_MAX(kc, 1) * TFCC_UK_NR);
    }
    if (ncp < 1)
      ncp = 1;
    /* A read in place and B packed at run time: each B block is packed
     * once for all the row tiles instead of once per tile. */
    const int b_outer = !g->b_packed && !b_in_place && (direct || kmajor);
    for (int64_t qo = q0; qo < q1; qo += b_outer ? ncp : q1 - qo) {
      const int64_t qo_end = b_outer && qo + ncp < q1 ? qo + ncp : q1;
      if (b_outer && kc > 0)
        tfcc_pack_b_block(N, B, g->ldb, g->trans_b, k0, kc, qo, qo_end - qo,
                          bbuf);
      for (int64_t mg = r0; mg < r1; mg += group * g->mr) {
        const int64_t mge =
            mg + group * g->mr < r1 ? mg + group * g->mr : r1;
        if (group > 1)
          for (int64_t mt = mg; mt < mge; mt += g->mr)
            pack_a_tile(g, A, mt, TFCC_MIN(g->mr, mge - mt), k0, kc,
                        abuf + (mt - mg) / g->mr * tsz);
        for (int64_t qb = qo; qb < qo_end; qb += ncp) {
          const int64_t qe = qb + ncp < qo_end ? qb + ncp : qo_end;
          if (!g->b_packed && !b_in_place && !b_outer && kc > 0)
            tfcc_pack_b_block(N, B, g->ldb, g->trans_b, k0, kc, qb, qe - qb,
                              bbuf);
          for (int64_t mt = mg; mt < mge; mt += g->mr) {
            const int64_t mr = mge - mt < g->mr ? mge - mt : g->mr;
            if (direct) {
              u.a = A + mt * g->lda + k0;
              u.lda = g->lda;
            } else if (kmajor) {
              u.a = A + k0 * g->lda + mt;
              u.lda = g->lda;
            } else if (group > 1) {
              u.a = abuf + (mt - mg) / g->mr * tsz;
              u.lda = kc;
            } else {
              pack_a_tile(g, A, mt, mr, k0, kc, abuf);
              u.a = abuf;
              u.lda = kc;
            }
            u.mr = mr;
            for (int64_t q = qb; q < qe; ++q) {
              const int64_t n0 = q * TFCC_UK_NR;
              u.nr = N - n0 < TFCC_UK_NR ? N - n0 : TFCC_UK_NR;
              u.b = g->b_packed  ? B + (q * K + k0) * TFCC_UK_NR
                    : b_in_place ? B + k0 * TFCC_UK_NR
                                 : bbuf + (q - qb) * kc * TFCC_UK_NR;
              u.c = C + mt * g->ldc + n0;
              u.res = R ? R + mt * g->ldc + n0 : NULL;
              u.bias = g->bias ? g->bias + n0 : NULL;
              (kmajor ? g->uk_kmajor : g->uk)(&u);
            }
          }
          /* the rows and panels just finished, in one call */
          if (g->round && (u.flags & TFCC_UK_LAST)) {
            const int64_t n0 = qb * TFCC_UK_NR;
            const int64_t n1 = TFCC_MIN(qe * TFCC_UK_NR, N);
            g->round_fn(C + mg * g->ldc + n0, g->ldc, mge - mg, n1 - n0,
                        g->round);
          }
        }
      }
    }
  }
}

/* The first block of task k of g->per in the linearized order: where the
 * k-th fraction of the batch's work (rows x panels, the last row tile
 * weighing its rows) begins, rounded to a block boundary. */
static int64_t gemm_split_point(const gemm_ctx* g, int64_t k) {
  const int64_t M = g->M, P = g->panels, T = g->tiles_m;
  const int64_t w = k * (M * P) / g->per;
  if (g->panel_major) {
    const int64_t q = w / M, rows = w - q * M;
    int64_t t = (rows + g->mr / 2) / g->mr;
    if (t > T)
      t = T;
    return q * T + t;
  }
  if (k >= g->per)
    return T * P;
  if (M >= 2 * g->per * g->mr) {
    /* Tasks of 2+ tile rows split at whole rows: a part of a row would
     * stream its B blocks for that one row tile. */
    const int64_t t = (w + g->mr * P / 2) / (g->mr * P);
    return (t < T ? t : T) * P;
  }
  const int64_t full = (T - 1) * g->mr * P; /* work of all but the last tile */
  int64_t t, q;
  if (w < full) {
    t = w / (g->mr * P);
    q = (w - t * g->mr * P + g->mr / 2) / g->mr;
  } else {
    const int64_t last = M - (T - 1) * g->mr;
    t = T - 1;
    q = (w - full + last / 2) / last;
  }
  return t * P + (q < P ? q : P);
}

/* Row tiles [t0, t1) x panels [q0, q1) of batch bi. */
static void gemm_block(const gemm_ctx* g, int64_t bi, int64_t t0, int64_t t1,
                       int64_t q0, int64_t q1) {
  const int64_t r0 = t0 * g->mr;
  const int64_t r1 = t1 * g->mr < g->M ? t1 * g->mr : g->M;
  if (r0 < r1 && q0 < q1)
    gemm_range(g, bi, r0, r1, q0, q1);
}

/* Blocks [u0, u1) of the linearized order: a partial line, whole lines and
 * a partial line (a line is one row tile, or one panel when panel-major). */
static void gemm_blocks(const gemm_ctx* g, int64_t bi, int64_t u0, int64_t u1) {
  const int64_t len = g->panel_major ? g->tiles_m : g->panels;
  int64_t a0 = u0 / len, b0 = u0 % len;
  const int64_t a1 = u1 / len, b1 = u1 % len;
  /* (major line, minor range) -> tiles x panels */
#define GEMM_LINES(a, ae, b, be)                                             \
  (g->panel_major ? gemm_block(g, bi, (b), (be), (a), (ae))                   \
                  : gemm_block(g, bi, (a), (ae), (b), (be)))
  if (a0 == a1) {
    GEMM_LINES(a0, a0 + 1, b0, b1);
    return;
  }
  if (b0 > 0) {
    GEMM_LINES(a0, a0 + 1, b0, len);
    ++a0;
  }
  if (a0 < a1)
    GEMM_LINES(a0, a1, 0, len);
  if (b1 > 0)
    GEMM_LINES(a1, a1 + 1, 0, b1);
#undef GEMM_LINES
}

static void gemm_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const gemm_ctx* g = (const gemm_ctx*)ctx;
  (void)thread;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t bi = t / g->per, k = t % g->per;
    gemm_blocks(g, bi, gemm_split_point(g, k), gemm_split_point(g, k + 1));
  }
}

void tfcc_sgemm_impl(int64_t batch, int64_t M, int64_t N, int64_t K,
                     const float* A, int64_t lda, int64_t stride_a,
                     int32_t trans_a, const float* B, int64_t ldb,
                     int64_t stride_b, int32_t trans_b, int32_t b_packed,
                     float* C, int64_t ldc, int64_t stride_c, const float* bias,
                     const float* residual, int32_t act, float alpha,
                     float beta) {
  if (batch <= 0 || M <= 0 || N <= 0)
    return;
  if (K < 0)
    K = 0;
  gemm_ctx g;
  g.M = M;
  g.N = N;
  g.K = K;
  g.A = A;
  g.lda = lda;
  g.stride_a = stride_a;
  g.trans_a = trans_a;
  g.B = B;
  g.ldb = ldb;
  g.stride_b = stride_b;
  g.trans_b = trans_b;
  g.b_packed = b_packed;
  g.C = C;
  g.ldc = ldc;
  g.stride_c = stride_c;
  g.bias = bias;
  g.res = residual;
  g.act = act & ~(TFCC_ACT_ROUND_MASK | TFCC_ACT_BF16_OPERANDS);
  g.round = act & TFCC_ACT_ROUND_MASK;
  g.alpha = alpha;
  g.beta = beta;
  const int isa = tfcc_kernels_isa();
  g.round_fn = TFCC_ROUND_FOR_ISA(isa);
  g.uk = tfcc_uk_for_isa(isa);
  g.mr = tfcc_uk_mr_for_isa(isa);
  g.uk_kmajor = TFCC_IS_AVX512(isa) ? tfcc_uk_avx512_kmajor : NULL;
  /* bf16 operands: on vdpbf16ps where the CPU has it and it is the faster
   * one, unless A has so few rows that converting B (once per call)
   * outweighs the faster products. */
  g.bf16 = (act & TFCC_ACT_BF16_OPERANDS) && M >= TFCC_GEMM_BF16_MIN_M &&
           TFCC_IS_AVX512(isa) && tfcc_kernels_use_vdpbf16ps();
  g.tiles_m = (M + g.mr - 1) / g.mr;
  g.panels = (N + TFCC_UK_NR - 1) / TFCC_UK_NR;
  g.per = 1;
  g.panel_major = 0;
  const double flops = 2.0 * (double)batch * (double)M * (double)N * (double)K;
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  const double bytes =
      4.0 * (double)batch *
      ((double)M * (double)K + 2.0 * (double)M * (double)N +
       (b_packed && stride_b == 0 && batch > 1 ? 1.0 / (double)batch : 1.0) *
           (double)K * (double)N);
  if (threads <= 1 || tfcc_small_work(flops, 100.0, bytes)) {
    for (int64_t bi = 0; bi < batch; ++bi)
      gemm_range(&g, bi, 0, M, 0, g.panels);
    return;
  }
  /* Tasks of equal work, so that the pool's per-thread runs of them are
   * equal too (a grid of whole tiles x whole panels was not: 3 panels split
   * 1 + 2). Several per thread unless the batch alone gives them, so that a
   * thread that is late can have its last ones taken; big products keep 2
   * per thread (each task re-reads B). Tile-major (a thread reads its
   * share of A and all of B) unless B outweighs A and C together; then
   * panel-major (its share of B, all of A). Tile-major also keeps a
   * thread's rows where the layers before and after, split by rows too, have
   * theirs: a panel split leaves half of every row of C in the other
   * thread's cache for the next layer to fetch. */
  /* bf16 operands: one task per thread, as each task converts the B blocks
   * of its panels (every panel, tile-major) once. */
  const int64_t want =
      (g.bf16 ? 1 : flops > 2e8 ? 2 : TFCC_GEMM_TASKS_PER_THREAD) *
      (int64_t)threads;
  if (batch < want)
    g.per = TFCC_MIN((want + batch - 1) / batch, g.tiles_m * g.panels);
  g.panel_major = (double)K * (double)N > (double)M * (double)(K + N);
  tfcc_rt_parallel_for(batch * g.per, gemm_task, &g);
}

void tfcc_rt_sgemm(int64_t batch, int64_t M, int64_t N, int64_t K,
                   const float* A, int64_t lda, int64_t stride_a,
                   int32_t trans_a, const float* B, int64_t ldb,
                   int64_t stride_b, int32_t trans_b, int32_t b_packed,
                   float* C, int64_t ldc, int64_t stride_c, const float* bias,
                   const float* residual, int32_t activation, float alpha,
                   float beta) {
  tfcc_sgemm_impl(batch, M, N, K, A, lda, stride_a, trans_a, B, ldb, stride_b,
                  trans_b, b_packed, C, ldc, stride_c, bias, residual,
                  activation, alpha, beta);
}
