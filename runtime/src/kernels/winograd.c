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
 * Threads split the tile blocks (and output panels when there are too few
 * blocks). The weights are transformed by tfcc_rt_winograd_pack (pack.c). */
#include "kernels_internal.h"

#include <string.h>

#define WG_T TFCC_UK_MR           /* tiles per block at most */
#define WG_V_FLOATS (32 * 1024)   /* the transformed-input buffer (128 KiB) */
#define WG_M_FLOATS (16 * WG_T * TFCC_UK_NR) /* one panel's GEMM outputs */

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
  float* y;
  int64_t th, tw, tiles; /* tile rows / columns per image, tiles in all */
  int64_t T, nblk;       /* tiles per block, blocks */
  int64_t panels, gn;    /* output panels, panel groups */
  int64_t psize;         /* floats of one point's packed U */
  tfcc_uk_fn uk;
  tfcc_wg_in_fn in;
  tfcc_wg_out_fn out;
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

/* ---- driver ------------------------------------------------------------- */

/* Tile blocks [B0, B1), output panels [q0, q1). */
static void wg_range(const wg_ctx* g, int64_t B0, int64_t B1, int64_t q0,
                     int64_t q1) {
  float v[WG_V_FLOATS] __attribute__((aligned(64)));
  float mb[WG_M_FLOATS] __attribute__((aligned(64)));
  const float* src[16];
  const int64_t h = g->h, w = g->w, c = g->c, oc = g->oc, T = g->T;
  const int64_t per = g->th * g->tw;
  const int64_t vps = T * c;                /* V point stride */
  const int64_t mps = WG_T * TFCC_UK_NR;    /* M point stride */
  tfcc_uk_args u;
  memset(&u, 0, sizeof u);
  u.lda = c;
  u.kt = c;
  u.ntaps = 1;
  u.ldc = TFCC_UK_NR;
  u.flags = TFCC_UK_FIRST | TFCC_UK_LAST;
  u.act = TFCC_ACT_NONE;
  for (int64_t blk = B0; blk < B1; ++blk) {
    const int64_t t0 = blk * T;
    const int64_t nt = g->tiles - t0 < T ? g->tiles - t0 : T;
    for (int64_t i = 0; i < nt; ++i) {
      const int64_t tile = t0 + i, b = tile / per, rem = tile % per;
      const int64_t y0 = 2 * (rem / g->tw) - g->pt;
      const int64_t x0 = 2 * (rem % g->tw) - g->pl;
      const float* xb = g->x + b * h * w * c;
      for (int a = 0; a < 4; ++a)
        for (int e = 0; e < 4; ++e) {
          const int64_t yy = y0 + a, xx = x0 + e;
          src[4 * a + e] = yy >= 0 && yy < h && xx >= 0 && xx < w
                               ? xb + (yy * w + xx) * c
                               : g_wg_zero;
        }
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
      }
    }
  }
}

static void wg_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const wg_ctx* g = (const wg_ctx*)ctx;
  (void)thread;
  if (g->gn == 1) {
    wg_range(g, begin, end, 0, g->panels);
    return;
  }
  for (int64_t t = begin; t < end; ++t) {
    const int64_t blk = t / g->gn, ng = t % g->gn;
    const int64_t q0 = ng * g->panels / g->gn;
    const int64_t q1 = (ng + 1) * g->panels / g->gn;
    if (q0 < q1)
      wg_range(g, blk, blk + 1, q0, q1);
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
  g.act = activation;
  g.alpha = alpha;
  g.beta = beta;
  g.y = y;
  g.th = (oh + 1) / 2;
  g.tw = (ow + 1) / 2;
  g.tiles = n * g.th * g.tw;
  int64_t tmax = WG_V_FLOATS / (16 * c);
  tmax = TFCC_MAX(1, TFCC_MIN(tmax, WG_T));
  g.nblk = (g.tiles + tmax - 1) / tmax;
  g.T = (g.tiles + g.nblk - 1) / g.nblk; /* balanced blocks */
  g.panels = (oc + TFCC_UK_NR - 1) / TFCC_UK_NR;
  g.psize = tfcc_rt_sgemm_packed_b_size(c, oc);
  g.gn = 1;
  const int isa = tfcc_kernels_isa();
  g.uk = isa == TFCC_ISA_AVX512 ? tfcc_uk_avx512 : tfcc_uk_generic;
  g.in = isa == TFCC_ISA_AVX512 ? tfcc_wg_in_avx512 : tfcc_wg_in_generic;
  g.out = isa == TFCC_ISA_AVX512 ? tfcc_wg_out_avx512 : tfcc_wg_out_generic;
  const double flops = 2.0 * 16.0 * (double)g.tiles * (double)c * (double)oc;
  const double bytes =
      4.0 * ((double)(n * h * w * c) + (double)(n * oh * ow * oc) +
             16.0 * (double)c * (double)oc);
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  if (threads <= 1 || tfcc_small_work(flops, 100.0, bytes)) {
    wg_range(&g, 0, g.nblk, 0, g.panels);
    return;
  }
  const int64_t want = 2 * (int64_t)threads;
  if (g.nblk < want)
    g.gn = TFCC_MIN(g.panels, (want + g.nblk - 1) / g.nblk);
  tfcc_rt_parallel_for(g.nblk * g.gn, wg_task, &g);
}
