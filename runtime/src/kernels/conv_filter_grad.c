/* conv_filter_grad.c - the kernel gradient of a stride-1, dilation-1 NHWC
 * convolution without an im2col matrix:
 *   dk[i][j][ci][o] = sum over (b, r, s) of x[b][r + i][s + j][ci] * dy[b][r][s][o]
 * with x already padded (h >= oh + kh - 1, w >= ow + kw - 1).
 *
 * For one kernel row i, the rows (j, ci) of dk form a GEMM dk_i = A_i^T dy
 * whose A_i element (m = j * c + ci, pixel (b, r, s)) sits at
 * x + ((b * h + r + i) * w + s) * c + m: along m contiguous, along s at
 * stride c, and each output row (b, r) starts at its own offset. That is the
 * k-major micro-kernel's tap form: one tap per output row (ow values of K at
 * stride c), tap offsets in a small table, so x is read in place where the
 * im2col lowering wrote and re-read a kh * kw times larger matrix. dy is
 * packed per K block (whole output rows) into 32-column panels, once per
 * task for all its row tiles; with exactly 32 output channels its rows
 * already are that layout and it is read in place. Every output element is reduced in the same
 * order whatever the thread split.
 *
 * With TFCC_ACT_BF16_OPERANDS (x and dy hold bf16 values: a mixed_bf16 train
 * step) on AVX512_BF16 the same blocks are converted to bf16 pairs, x's tile
 * k-major, and multiplied with vdpbf16ps (gemm_bf16_avx512.c).
 */
#include "kernels_internal.h"

#include <string.h>

enum {
  kKBlock = 256,          /* K values (pixels) per block, whole rows */
  kBFloats = 256 * 4 * 32 /* packed dy block: 4 panels of kKBlock */
};

typedef struct filter_grad_ctx {
  tfcc_uk_fn uk; /* the k-major micro-kernel of the ISA level */
  int32_t bf16;  /* bf16 operands on vdpbf16ps (filter_grad_range_bf16) */
  int64_t mr;    /* rows of its tile */
  const float* x;
  const float* dy;
  float* dk;
  int64_t n, h, w, c, kh, kw, oh, ow, co;
  int64_t m_row;         /* kw * c: dk rows per kernel row */
  int64_t tiles_row;     /* MR tiles per kernel row */
  int64_t tiles, panels; /* kh * tiles_row; ceil(co / 32) */
  int64_t gm, gn;        /* task grid */
} filter_grad_ctx;

/* Output rows [tap0, tap0 + ntaps) of a K block: where each starts in x
 * (offsets of the micro-kernel's taps). */
static void block_taps(const filter_grad_ctx* g, int64_t tap0, int64_t ntaps,
                       int64_t* toff) {
  for (int64_t t = 0; t < ntaps; ++t) {
    int64_t b = (tap0 + t) / g->oh, r = (tap0 + t) % g->oh;
    toff[t] = (b * g->h + r) * g->w * g->c;
  }
}

static void filter_grad_range(const filter_grad_ctx* g, int64_t t0, int64_t t1,
                              int64_t q0, int64_t q1) {
  float bbuf[kBFloats] __attribute__((aligned(64)));
  int64_t toff[kKBlock];
  const int64_t taps = g->n * g->oh; /* output rows */
  const int64_t rows_per_block = TFCC_MAX((int64_t)1, kKBlock / g->ow);
  const int64_t nblocks = (taps + rows_per_block - 1) / rows_per_block;
  const int64_t max_panels =
      TFCC_MAX((int64_t)1, kBFloats / (rows_per_block * g->ow * TFCC_UK_NR));
  tfcc_uk_args u;
  memset(&u, 0, sizeof(u));
  u.toff = toff;
  u.kt = g->ow;
  u.lda = g->c;
  u.b_tap_stride = g->ow * TFCC_UK_NR;
  u.ldc = g->co;
  u.ldr = g->co;
  u.act = TFCC_ACT_NONE;
  for (int64_t kb = 0; kb < nblocks; ++kb) {
    const int64_t tap0 = kb * rows_per_block;
    const int64_t ntaps = TFCC_MIN(rows_per_block, taps - tap0);
    const int64_t kc = ntaps * g->ow;
    block_taps(g, tap0, ntaps, toff);
    u.ntaps = ntaps;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nblocks - 1 ? TFCC_UK_LAST : 0);
    for (int64_t qb = q0; qb < q1; qb += max_panels) {
      const int64_t qe = TFCC_MIN(q1, qb + max_panels);
      const float* bblock = g->dy + tap0 * g->ow * TFCC_UK_NR; /* in place */
      if (g->co != TFCC_UK_NR) {
        tfcc_pack_b_block(g->co, g->dy, g->co, 0, tap0 * g->ow, kc, qb,
                          qe - qb, bbuf);
        bblock = bbuf;
      }
      for (int64_t tile = t0; tile < t1; ++tile) {
        const int64_t i = tile / g->tiles_row;
        const int64_t mt = (tile % g->tiles_row) * g->mr;
        u.mr = TFCC_MIN(g->mr, g->m_row - mt);
        u.a = g->x + i * g->w * g->c + mt;
        for (int64_t q = qb; q < qe; ++q) {
          const int64_t n0 = q * TFCC_UK_NR;
          u.nr = TFCC_MIN((int64_t)TFCC_UK_NR, g->co - n0);
          u.b = bblock + (q - qb) * kc * TFCC_UK_NR;
          u.c = g->dk + (i * g->m_row + mt) * g->co + n0;
          g->uk(&u);
        }
      }
    }
  }
}

#if TFCC_KERNELS_HAVE_AVX512
/* filter_grad_range on vdpbf16ps: per K block and block of panels, dy's
 * block as bf16 pair panels, then per row tile x's tile as k pairs. */
static void filter_grad_range_bf16(const filter_grad_ctx* g, int64_t t0,
                                   int64_t t1, int64_t q0, int64_t q1) {
  enum { kPairLd = 16 }; /* dwords per k pair of an A tile (mr <= 16) */
  uint16_t bbuf[kBFloats] __attribute__((aligned(64)));
  uint32_t abuf[(kBFloats / TFCC_UK_NR / 2 + 1) * kPairLd]
      __attribute__((aligned(64)));
  int64_t toff[kKBlock];
  const int64_t taps = g->n * g->oh; /* output rows */
  const int64_t rows_per_block = TFCC_MAX((int64_t)1, kKBlock / g->ow);
  const int64_t nblocks = (taps + rows_per_block - 1) / rows_per_block;
  tfcc_uk_args u;
  memset(&u, 0, sizeof(u));
  u.ntaps = 1;
  u.lda = kPairLd;
  u.ldc = g->co;
  u.ldr = g->co;
  u.act = TFCC_ACT_NONE;
  for (int64_t kb = 0; kb < nblocks; ++kb) {
    const int64_t tap0 = kb * rows_per_block;
    const int64_t ntaps = TFCC_MIN(rows_per_block, taps - tap0);
    const int64_t kc = ntaps * g->ow, kp = (kc + 1) & ~(int64_t)1;
    const int64_t max_panels =
        TFCC_MAX((int64_t)1, kBFloats / (kp * TFCC_UK_NR));
    block_taps(g, tap0, ntaps, toff);
    u.kt = kp / 2;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nblocks - 1 ? TFCC_UK_LAST : 0);
    for (int64_t qb = q0; qb < q1; qb += max_panels) {
      const int64_t qe = TFCC_MIN(q1, qb + max_panels);
      tfcc_bf16_pack_b(g->dy, g->co, 0, 0, taps * g->ow, g->co, tap0 * g->ow,
                       kc, qb, qe - qb, bbuf);
      for (int64_t tile = t0; tile < t1; ++tile) {
        const int64_t i = tile / g->tiles_row;
        const int64_t mt = (tile % g->tiles_row) * g->mr;
        u.mr = TFCC_MIN(g->mr, g->m_row - mt);
        tfcc_bf16_pack_a_taps(g->x + i * g->w * g->c + mt, g->c, toff, g->ow,
                              kc, u.mr, kPairLd, abuf);
        u.a = (const float*)(const void*)abuf;
        for (int64_t q = qb; q < qe; ++q) {
          const int64_t n0 = q * TFCC_UK_NR;
          u.nr = TFCC_MIN((int64_t)TFCC_UK_NR, g->co - n0);
          u.b = (const float*)(const void*)(bbuf + (q - qb) * kp * TFCC_UK_NR);
          u.c = g->dk + (i * g->m_row + mt) * g->co + n0;
          tfcc_uk_avx512_bf16_kmajor(&u);
        }
      }
    }
  }
}
#endif

static void filter_grad_task(void* ctx, int64_t begin, int64_t end,
                             int32_t thread) {
  const filter_grad_ctx* g = (const filter_grad_ctx*)ctx;
  (void)thread;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t mg = t / g->gn, ng = t % g->gn;
    const int64_t t0 = mg * g->tiles / g->gm, t1 = (mg + 1) * g->tiles / g->gm;
    const int64_t q0 = ng * g->panels / g->gn,
                  q1 = (ng + 1) * g->panels / g->gn;
    if (t0 >= t1 || q0 >= q1) continue;
#if TFCC_KERNELS_HAVE_AVX512
    if (g->bf16) {
      filter_grad_range_bf16(g, t0, t1, q0, q1);
      continue;
    }
#endif
    filter_grad_range(g, t0, t1, q0, q1);
  }
}

/* Output rows too long for one K block: the same sums, plain loops. */
static void filter_grad_generic(const filter_grad_ctx* g) {
  int64_t b, r, s, i, j, ci, o;
  memset(g->dk, 0, sizeof(float) * (size_t)(g->kh * g->m_row * g->co));
  for (b = 0; b < g->n; ++b)
    for (r = 0; r < g->oh; ++r)
      for (s = 0; s < g->ow; ++s) {
        const float* d = g->dy + ((b * g->oh + r) * g->ow + s) * g->co;
        for (i = 0; i < g->kh; ++i)
          for (j = 0; j < g->kw; ++j) {
            const float* xr =
                g->x + ((b * g->h + r + i) * g->w + s + j) * g->c;
            float* out = g->dk + (i * g->kw + j) * g->c * g->co;
            for (ci = 0; ci < g->c; ++ci)
              for (o = 0; o < g->co; ++o) out[ci * g->co + o] += xr[ci] * d[o];
          }
      }
}

void tfcc_rt_conv2d_filter_grad_f32(const float* x, int64_t n, int64_t h,
                                    int64_t w, int64_t c, int64_t kh,
                                    int64_t kw, const float* dy, int64_t oh,
                                    int64_t ow, int64_t co, float* dk,
                                    int32_t flags) {
  filter_grad_ctx g;
  int64_t tasks, threads;
  if (kh <= 0 || kw <= 0 || c <= 0 || co <= 0) return;
  g.x = x;
  g.dy = dy;
  g.dk = dk;
  g.n = n;
  g.h = h;
  g.w = w;
  g.c = c;
  g.kh = kh;
  g.kw = kw;
  g.oh = oh;
  g.ow = ow;
  g.co = co;
  g.m_row = kw * c;
  const int isa = tfcc_kernels_isa();
  g.mr = tfcc_uk_mr_for_isa(isa);
  g.tiles_row = (g.m_row + g.mr - 1) / g.mr;
  g.tiles = kh * g.tiles_row;
  g.panels = (co + TFCC_UK_NR - 1) / TFCC_UK_NR;
  if (n <= 0 || oh <= 0 || ow <= 0) {
    memset(dk, 0, sizeof(float) * (size_t)(kh * kw * c * co));
    return;
  }
  g.uk = TFCC_FOR_ISA(isa, tfcc_uk_avx512_kmajor, tfcc_uk_avx2_kmajor,
                      tfcc_uk_base_kmajor);
  g.bf16 = (flags & TFCC_ACT_BF16_OPERANDS) && TFCC_IS_AVX512(isa) &&
           tfcc_kernels_use_vdpbf16ps();
  /* The micro-kernel's tap form needs a whole output row per K block. */
  if (ow * TFCC_UK_NR > kBFloats) {
    filter_grad_generic(&g);
    return;
  }
  /* Panels split first (each task packs dy for its panels once per K
   * block), then row tiles. */
  threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  g.gn = TFCC_MIN(g.panels, threads);
  g.gm = TFCC_MIN(g.tiles, TFCC_MAX((int64_t)1, threads / g.gn));
  tasks = g.gm * g.gn;
  if (tasks == 1 || n * oh * ow * c * co < 65536)
    filter_grad_task(&g, 0, tasks, 0);
  else
    tfcc_rt_parallel_for(tasks, filter_grad_task, &g);
}
