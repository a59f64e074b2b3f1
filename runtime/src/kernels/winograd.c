/* winograd.c - Winograd F(2x2, 3x3) NHWC convolution (3x3, stride 1,
 * dilation 1, groups 1); see tfcc_rt_conv2d_winograd_f32 in tfcc_kernels.h.
 *
 * The output is cut into 2x2 tiles, numbered over (image, tile row, tile
 * column); blocks of T <= 14 consecutive tiles (one micro-kernel row tile)
 * are the unit of work:
 *   1. input transform: each tile's 4x4 input patch (zeros outside the
 *      image) becomes 16 rows V_p[tile][0..c) in a stack buffer
 *      [16][T][c];
 *   2. for each 32-wide panel of output channels, for each of the 16
 *      points: M_p = V_p U_p, one GEMM micro-kernel call (mr = T, K = c) on
 *      the compile-time packed U_p panel, into a small [16][T][32] buffer;
 *   3. output transform of that buffer with the fused epilogue (bias,
 *      residual, activation) straight into y.
 * Point-major ("stream") mode, for images of fewer than 3 * 14 tiles with
 * transformed weights larger than L2: groups of up to 28 tiles; for each
 * point p, the group's V_p (one point of the input transform), the GEMMs
 * with U_p for every panel of a chunk, each M_p added straight into the 4
 * outputs of its tile (A^T M A is linear, coefficients +-1) in a stack
 * accumulator; then the epilogue. U is streamed once per group, where the
 * block mode streams it once per block of <= 14 tiles: it pays off only when
 * the weights do not fit in L2 (docs/performance.md, "Measurements behind
 * kernel choices").
 * Threads split the tile blocks / groups (and output panels when there are
 * too few). The weights are transformed by tfcc_rt_winograd_pack (pack.c). */
#include "kernels_internal.h"

#include <string.h>

#define WG_T TFCC_UK_MR           /* tiles per block at most (any ISA) */
#define WG_V_FLOATS (32 * 1024)   /* the transformed-input buffer (128 KiB) */
#define WG_M_FLOATS (16 * WG_T * TFCC_UK_NR) /* one panel's GEMM outputs */
#ifndef WG_STREAM_TILES /* stream mode below this many tiles per image */
#define WG_STREAM_TILES (3 * WG_T)
#endif
#ifndef WG_STREAM_BYTES /* ... and above this many bytes of transformed */
#define WG_STREAM_BYTES (1 << 20) /* weights (those that miss L2) */
#endif
#define WG_S_G 28                /* stream mode: tiles per group at most */
#define WG_S_V_FLOATS (8 * 1024) /* stream mode: one point of a group's V */
#define WG_S_ACC_FLOATS (16 * 1024) /* stream mode: output accumulators */

/* Rows of B^T (and of the 2x2 output's A^T): the two taps of row a and
 * whether the second is subtracted; A^T's entries. */
const int tfcc_wg_idx[4][2] = {{0, 2}, {1, 2}, {2, 1}, {1, 3}};
const int tfcc_wg_sub[4] = {1, 0, 1, 1};
static const float g_wg_at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/* The zero "pixel" the input transform reads for the padding. */
static const float g_wg_zero[TFCC_RT_WINOGRAD_MAX_C];

typedef struct wg_ctx {
  const float* x;
  int64_t n, h, w, c;
  const float* wp;
  int64_t oc, pt, pl, oh, ow;
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  int32_t round; /* TFCC_ACT_ROUND_* or 0 */
  tfcc_round_fn round_fn;
  float* y;
  int64_t th, tw, tiles; /* tile rows / columns per image, tiles in all */
  int64_t T, nblk;       /* tiles per block, blocks */
  int64_t panels, gn;    /* output panels, panel groups */
  int64_t psize;         /* floats of one point's packed U */
  int stream;            /* point-major mode: T tiles per group */
  tfcc_uk_fn uk;
  int64_t mr; /* rows of uk's tile */
  tfcc_wg_in_fn in;
  tfcc_wg_out_fn out;
  tfcc_wg_in1_fn in1;
  tfcc_wg_acc_fn acc;
  tfcc_wg_fin_fn fin;
} wg_ctx;

/* ---- portable transforms ------------------------------------------------ */

void tfcc_wg_in_generic(const float* const* s, int64_t c, float* v,
                        int64_t ps) {
  for (int64_t k = 0; k < c; ++k) {
    float t[4][4];
    for (int e = 0; e < 4; ++e) { /* B^T d */
      const float d0 = s[e][k], d1 = s[4 + e][k], d2 = s[8 + e][k],
                  d3 = s[12 + e][k];
      t[0][e] = d0 - d2;
      t[1][e] = d1 + d2;
      t[2][e] = d2 - d1;
      t[3][e] = d1 - d3;
    }
    for (int a = 0; a < 4; ++a) { /* (B^T d) B */
      v[(4 * a + 0) * ps + k] = t[a][0] - t[a][2];
      v[(4 * a + 1) * ps + k] = t[a][1] + t[a][2];
      v[(4 * a + 2) * ps + k] = t[a][2] - t[a][1];
      v[(4 * a + 3) * ps + k] = t[a][1] - t[a][3];
    }
  }
}

void tfcc_wg_out_generic(const float* m, int64_t ps, int64_t nr,
                         const float* bias, const float* res, float* y,
                         int64_t rs, int64_t cs, int rows, int cols,
                         int32_t act, float alpha, float beta) {
  for (int64_t k = 0; k < nr; ++k) {
    float s[2][4], o[2][2];
    for (int e = 0; e < 4; ++e) { /* A^T M */
      const float m0 = m[e * ps + k], m1 = m[(4 + e) * ps + k],
                  m2 = m[(8 + e) * ps + k], m3 = m[(12 + e) * ps + k];
      s[0][e] = m0 + m1 + m2;
      s[1][e] = m1 - m2 - m3;
    }
    for (int r = 0; r < 2; ++r) { /* (A^T M) A */
      o[r][0] = s[r][0] + s[r][1] + s[r][2];
      o[r][1] = s[r][1] - s[r][2] - s[r][3];
    }
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < cols; ++q) {
        const int64_t off = r * rs + q * cs + k;
        float v = o[r][q];
        if (bias)
          v += bias[k];
        if (res)
          v += res[off];
        y[off] = tfcc_act_scalar(v, act, alpha, beta);
      }
  }
}

void tfcc_wg_in1_generic(const float* const* s, int p, int64_t c, float* v) {
  const int a = p / 4, e = p % 4;
  const int i1 = tfcc_wg_idx[a][0], i2 = tfcc_wg_idx[a][1];
  const int j1 = tfcc_wg_idx[e][0], j2 = tfcc_wg_idx[e][1];
  const float* r0 = s[4 * i1 + j1];
  const float* r1 = s[4 * i1 + j2];
  const float* r2 = s[4 * i2 + j1];
  const float* r3 = s[4 * i2 + j2];
  const float sa = tfcc_wg_sub[a] ? -1.0f : 1.0f;
  const float se = tfcc_wg_sub[e] ? -1.0f : 1.0f;
  for (int64_t k = 0; k < c; ++k) { /* rows first, as in tfcc_wg_in_* */
    const float u0 = r0[k] + sa * r2[k], u1 = r1[k] + sa * r3[k];
    v[k] = u0 + se * u1;
  }
}

void tfcc_wg_acc_generic(const float* m, int64_t nr, const float* coef,
                         float* acc, int64_t lds) {
  for (int o = 0; o < 4; ++o) {
    float* d = acc + o * lds;
    if (coef[o] > 0.0f)
      for (int64_t k = 0; k < nr; ++k)
        d[k] += m[k];
    else if (coef[o] < 0.0f)
      for (int64_t k = 0; k < nr; ++k)
        d[k] -= m[k];
  }
}

void tfcc_wg_fin_generic(const float* acc, int64_t nr, const float* bias,
                         const float* res, float* y, int32_t act, float alpha,
                         float beta) {
  for (int64_t k = 0; k < nr; ++k) {
    float v = acc[k];
    if (bias)
      v += bias[k];
    if (res)
      v += res[k];
    y[k] = tfcc_act_scalar(v, act, alpha, beta);
  }
}

/* ---- driver ------------------------------------------------------------- */

/* The 16 input rows of the tile's 4x4 patch (g_wg_zero outside the image). */
static void wg_tile_src(const wg_ctx* g, int64_t tile, const float** src) {
  const int64_t per = g->th * g->tw, b = tile / per, rem = tile % per;
  const int64_t y0 = 2 * (rem / g->tw) - g->pt;
  const int64_t x0 = 2 * (rem % g->tw) - g->pl;
  const int64_t h = g->h, w = g->w, c = g->c;
  const float* xb = g->x + b * h * w * c;
  for (int a = 0; a < 4; ++a)
    for (int e = 0; e < 4; ++e) {
      const int64_t yy = y0 + a, xx = x0 + e;
      src[4 * a + e] = yy >= 0 && yy < h && xx >= 0 && xx < w
                           ? xb + (yy * w + xx) * c
                           : g_wg_zero;
    }
}

/* Micro-kernel arguments of one point GEMM: K = c packed channels, a
 * 32-wide scratch C written whole (no accumulation, no epilogue). */
static tfcc_uk_args wg_point_uk_args(int64_t c) {
  tfcc_uk_args u;
  memset(&u, 0, sizeof u);
  u.lda = c;
  u.kt = c;
  u.ntaps = 1;
  u.ldc = TFCC_UK_NR;
  u.flags = TFCC_UK_FIRST | TFCC_UK_LAST;
  u.act = TFCC_ACT_NONE;
  return u;
}

/* Stream mode: tile groups [G0, G1), output panels [q0, q1). */
static void wg_range_stream(const wg_ctx* g, int64_t G0, int64_t G1,
                            int64_t q0, int64_t q1) {
  float v[WG_S_V_FLOATS] __attribute__((aligned(64)));
  float mt[WG_S_G * TFCC_UK_NR] __attribute__((aligned(64)));
  float acc[WG_S_ACC_FLOATS] __attribute__((aligned(64)));
  const float* src[WG_S_G][16];
  const int64_t c = g->c, oc = g->oc, T = g->T;
  const int64_t per = g->th * g->tw;
  /* panels per chunk: the group's 4 outputs per tile fit in acc */
  const int64_t nch = TFCC_MAX(1, WG_S_ACC_FLOATS / (T * 4 * TFCC_UK_NR));
  const int64_t lds = nch * TFCC_UK_NR, ldt = 4 * lds;
  tfcc_uk_args u = wg_point_uk_args(c);
  for (int64_t grp = G0; grp < G1; ++grp) {
    const int64_t t0 = grp * T;
    const int64_t nt = g->tiles - t0 < T ? g->tiles - t0 : T;
    const int64_t nrt = (nt + g->mr - 1) / g->mr; /* row tiles */
    for (int64_t i = 0; i < nt; ++i)
      wg_tile_src(g, t0 + i, src[i]);
    for (int64_t qa = q0; qa < q1; qa += nch) {
      const int64_t qb = qa + nch < q1 ? qa + nch : q1;
      for (int64_t i = 0; i < nt; ++i)
        memset(acc + i * ldt, 0, (size_t)ldt * sizeof(float));
      for (int p = 0; p < 16; ++p) {
        const int a = p / 4, e = p % 4;
        const float coef[4] = {g_wg_at[0][a] * g_wg_at[0][e],
                               g_wg_at[0][a] * g_wg_at[1][e],
                               g_wg_at[1][a] * g_wg_at[0][e],
                               g_wg_at[1][a] * g_wg_at[1][e]};
        for (int64_t i = 0; i < nt; ++i)
          g->in1(src[i], p, c, v + i * c);
        for (int64_t q = qa; q < qb; ++q) {
          const int64_t n0 = q * TFCC_UK_NR;
          const int64_t nr = oc - n0 < TFCC_UK_NR ? oc - n0 : TFCC_UK_NR;
          u.nr = nr;
          u.b = g->wp + p * g->psize + q * c * TFCC_UK_NR;
          for (int64_t rt = 0; rt < nrt; ++rt) { /* balanced row tiles */
            const int64_t i0 = rt * nt / nrt, i1 = (rt + 1) * nt / nrt;
            u.mr = i1 - i0;
            u.a = v + i0 * c;
            u.c = mt + i0 * TFCC_UK_NR;
            g->uk(&u);
          }
          for (int64_t i = 0; i < nt; ++i)
            g->acc(mt + i * TFCC_UK_NR, nr, coef,
                   acc + i * ldt + (q - qa) * TFCC_UK_NR, lds);
        }
      }
      for (int64_t i = 0; i < nt; ++i) {
        const int64_t tile = t0 + i, b = tile / per, rem = tile % per;
        const int64_t r0 = 2 * (rem / g->tw), s0 = 2 * (rem % g->tw);
        for (int o = 0; o < 4; ++o) {
          const int64_t r = r0 + o / 2, sc = s0 + o % 2;
          if (r >= g->oh || sc >= g->ow)
            continue;
          const int64_t pix = (b * g->oh + r) * g->ow + sc;
          for (int64_t q = qa; q < qb; ++q) {
            const int64_t n0 = q * TFCC_UK_NR;
            const int64_t nr = oc - n0 < TFCC_UK_NR ? oc - n0 : TFCC_UK_NR;
            const int64_t off = pix * oc + n0;
            g->fin(acc + i * ldt + o * lds + (q - qa) * TFCC_UK_NR, nr,
                   g->bias ? g->bias + n0 : NULL,
                   g->res ? g->res + off : NULL, g->y + off, g->act,
                   g->alpha, g->beta);
            if (g->round)
              g->round_fn(g->y + off, 0, 1, nr, g->round);
          }
        }
      }
    }
  }
}

/* Tile blocks [B0, B1), output panels [q0, q1). */
static void wg_range(const wg_ctx* g, int64_t B0, int64_t B1, int64_t q0,
                     int64_t q1) {
  float v[WG_V_FLOATS] __attribute__((aligned(64)));
  float mb[WG_M_FLOATS] __attribute__((aligned(64)));
  const float* src[16];
  const int64_t c = g->c, oc = g->oc, T = g->T;
  const int64_t per = g->th * g->tw;
  const int64_t vps = T * c;                /* V point stride */
  const int64_t mps = WG_T * TFCC_UK_NR;    /* M point stride */
  tfcc_uk_args u = wg_point_uk_args(c);
  for (int64_t blk = B0; blk < B1; ++blk) {
    const int64_t t0 = blk * T;
    const int64_t nt = g->tiles - t0 < T ? g->tiles - t0 : T;
    for (int64_t i = 0; i < nt; ++i) {
      wg_tile_src(g, t0 + i, src);
      g->in(src, c, v + i * c, vps);
    }
    u.mr = nt;
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t n0 = q * TFCC_UK_NR;
      const int64_t nr = oc - n0 < TFCC_UK_NR ? oc - n0 : TFCC_UK_NR;
      u.nr = nr;
      for (int p = 0; p < 16; ++p) {
        u.a = v + p * vps;
        u.b = g->wp + p * g->psize + q * c * TFCC_UK_NR;
        u.c = mb + p * mps;
        g->uk(&u);
      }
      for (int64_t i = 0; i < nt; ++i) {
        const int64_t tile = t0 + i, b = tile / per, rem = tile % per;
        const int64_t r0 = 2 * (rem / g->tw), s0 = 2 * (rem % g->tw);
        const int rows = g->oh - r0 < 2 ? 1 : 2;
        const int cols = g->ow - s0 < 2 ? 1 : 2;
        const int64_t off = ((b * g->oh + r0) * g->ow + s0) * oc + n0;
        g->out(mb + i * TFCC_UK_NR, mps, nr, g->bias ? g->bias + n0 : NULL,
               g->res ? g->res + off : NULL, g->y + off, g->ow * oc, oc, rows,
               cols, g->act, g->alpha, g->beta);
        if (g->round)
          for (int r = 0; r < rows; ++r)
            g->round_fn(g->y + off + r * g->ow * oc, oc, cols, nr, g->round);
      }
    }
  }
}

static void wg_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const wg_ctx* g = (const wg_ctx*)ctx;
  void (*range)(const wg_ctx*, int64_t, int64_t, int64_t, int64_t) =
      g->stream ? wg_range_stream : wg_range;
  (void)thread;
  if (g->gn == 1) {
    range(g, begin, end, 0, g->panels);
    return;
  }
  for (int64_t t = begin; t < end; ++t) {
    const int64_t blk = t / g->gn, ng = t % g->gn;
    const int64_t q0 = ng * g->panels / g->gn;
    const int64_t q1 = (ng + 1) * g->panels / g->gn;
    if (q0 < q1)
      range(g, blk, blk + 1, q0, q1);
  }
}

void tfcc_rt_conv2d_winograd_f32(const float* x, int64_t n, int64_t h,
                                 int64_t w, int64_t c,
                                 const float* packed_weights, int64_t oc,
                                 int64_t pad_top, int64_t pad_left, int64_t oh,
                                 int64_t ow, const float* bias,
                                 const float* residual, int32_t activation,
                                 float alpha, float beta, float* y) {
  if (n <= 0 || oh <= 0 || ow <= 0 || oc <= 0 || c <= 0 ||
      c > TFCC_RT_WINOGRAD_MAX_C)
    return;
  wg_ctx g;
  g.x = x;
  g.n = n;
  g.h = h;
  g.w = w;
  g.c = c;
  g.wp = packed_weights;
  g.oc = oc;
  g.pt = pad_top;
  g.pl = pad_left;
  g.oh = oh;
  g.ow = ow;
  g.bias = bias;
  g.res = residual;
  g.act = activation & ~TFCC_ACT_ROUND_MASK;
  g.round = activation & TFCC_ACT_ROUND_MASK;
  g.alpha = alpha;
  g.beta = beta;
  g.y = y;
  g.th = (oh + 1) / 2;
  g.tw = (ow + 1) / 2;
  g.tiles = n * g.th * g.tw;
  g.stream = g.th * g.tw < WG_STREAM_TILES &&
             64.0 * (double)c * (double)oc > (double)WG_STREAM_BYTES;
  const int isa = tfcc_kernels_isa();
  g.uk = tfcc_uk_for_isa(isa);
  g.mr = tfcc_uk_mr_for_isa(isa);
  g.round_fn = TFCC_ROUND_FOR_ISA(isa);
  int64_t tmax = g.stream ? WG_S_V_FLOATS / c : WG_V_FLOATS / (16 * c);
  tmax = TFCC_MAX(1, TFCC_MIN(tmax, g.stream ? WG_S_G : g.mr));
  g.nblk = (g.tiles + tmax - 1) / tmax;
  g.T = (g.tiles + g.nblk - 1) / g.nblk; /* balanced blocks */
  g.panels = (oc + TFCC_UK_NR - 1) / TFCC_UK_NR;
  g.psize = tfcc_rt_sgemm_packed_b_size(c, oc);
  g.gn = 1;
#define WG_PICK(NAME)                                                          \
  TFCC_FOR_ISA(isa, tfcc_wg_##NAME##_avx512, tfcc_wg_##NAME##_avx2,            \
               tfcc_wg_##NAME##_base)
  g.in = WG_PICK(in);
  g.out = WG_PICK(out);
  g.in1 = WG_PICK(in1);
  g.acc = WG_PICK(acc);
  g.fin = WG_PICK(fin);
#undef WG_PICK
  const double flops = 2.0 * 16.0 * (double)g.tiles * (double)c * (double)oc;
  const double bytes =
      4.0 * ((double)(n * h * w * c) + (double)(n * oh * ow * oc) +
             16.0 * (double)c * (double)oc);
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  if (threads <= 1 || tfcc_small_work(flops, 100.0, bytes)) {
    wg_task(&g, 0, g.nblk, 0);
    return;
  }
  const int64_t want = 2 * (int64_t)threads;
  if (g.nblk < want)
    g.gn = TFCC_MIN(g.panels, (want + g.nblk - 1) / g.nblk);
  else if (g.nblk % threads != 0 && g.nblk < 8 * (int64_t)threads)
    /* few blocks that do not divide among the threads (ResNet-18's 14x14
     * stage: 7 blocks, 4 + 3): split each block's panels too, at the cost
     * of one more input transform per block */
    g.gn = TFCC_MIN(g.panels, threads);
  tfcc_rt_parallel_for(g.nblk * g.gn, wg_task, &g);
}
