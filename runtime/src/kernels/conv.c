/* conv.c - NHWC convolution (implicit GEMM) and depthwise convolution.
 *
 * conv2d is a GEMM with M = output pixels, N = oc, K = kh*kw*c, run by the
 * GEMM micro-kernel without an im2col buffer:
 *  - 1x1, stride 1, unpadded: a plain GEMM on the input;
 *  - otherwise each output row is cut into tiles of <= 14 pixels. Along an
 *    output row the pixels of one tap sit at a uniform stride (stride_w * c),
 *    so an interior tile reads the input in place, one kernel call summing
 *    over a group of taps (tap offsets) and a block of channels ("direct");
 *    a tile touching the zero padding (or with fewer than 16 channels) is
 *    first gathered into a small [mr][taps*channels] stack buffer, zeros
 *    included ("packed");
 *  - ring mode (>= 16 channels in one K block with horizontal padding): the
 *    input rows are copied once into zero-padded row slots on the stack, so
 *    border tiles read in place as well (copies ~4x fewer floats than
 *    gathering every border tile);
 *  - flat mode (output rows of <= 8 pixels, e.g. ResNet's 7x7 stage): tiles
 *    of up to 14 consecutive pixels of the flattened output, across rows,
 *    gathered once per K block for every panel.
 * K is blocked by (tap group, channel block) of <= TFCC_CONV_KC values; the
 * B block of each K block (<= TFCC_NC_BYTES) stays in L2 while the task's
 * rows stream past it. Threads split output rows and/or output panels. */
#include "kernels_internal.h"

#include <string.h>

#ifndef TFCC_CONV_KC
#define TFCC_CONV_KC 640
#endif
#ifndef TFCC_NC_BYTES
#define TFCC_NC_BYTES (384 * 1024)
#endif
#define TFCC_CONV_MAX_TAPS 64
#ifndef TFCC_CONV_RING_BYTES
#define TFCC_CONV_RING_BYTES (96 * 1024)
#endif
#define TFCC_CONV_RING_MAX_KH 16
#ifndef TFCC_CONV_FLAT_OW
#define TFCC_CONV_FLAT_OW 8
#endif

typedef struct conv_ctx {
  const float* x;
  int64_t n, h, w, c;
  const float* wp;
  int64_t oc, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  int32_t round; /* TFCC_ACT_ROUND_* or 0 */
  tfcc_round_fn round_fn;
  float* y;
  /* K blocking */
  int64_t taps, tg, ntg, cb, ncb;
  /* tiles along an output row */
  int64_t ntile, tile;
  /* row mode (few channels, dw == 1): a ukernel "tap" is a whole kernel row
   * (kw*c values contiguous in x and in B); K blocks are groups of rg kernel
   * rows; tiles touching the padding read a zero-padded stack patch. */
  int rowmode;
  int64_t rg, nrg;
  /* flat mode (short output rows, ow <= TFCC_CONV_FLAT_OW): tiles of <= 14
   * consecutive output pixels of the flattened n*oh*ow index, spanning rows,
   * always gathered; each tile is packed once per K block and used for every
   * panel of the (L2-sized) B block. "rows" then counts these tiles. */
  int flat;
  int64_t ftile, npix;
  /* ring mode (horizontal zero padding, all channels in one K block,
   * dil_h = 1): the input rows an output row reads are copied once into a
   * ring of kh zero-padded row slots (slotw pixels wide) on the stack, and
   * every tile reads them in place (no per-tile gathering at the borders). */
  int ring;
  int64_t slotw;
  /* task grid: row groups x panel groups */
  int64_t rows, panels, gm, gn;
  tfcc_uk_fn uk;
} conv_ctx;

/* The micro-kernel arguments every tile of a convolution shares: output
 * and residual strides, the epilogue, and the stride between taps in B. */
static inline tfcc_uk_args conv_uk_args(const conv_ctx* g,
                                        int64_t b_tap_stride) {
  tfcc_uk_args u;
  memset(&u, 0, sizeof u);
  u.ldc = g->oc;
  u.ldr = g->oc;
  u.act = g->act;
  u.alpha = g->alpha;
  u.beta = g->beta;
  u.b_tap_stride = b_tap_stride;
  return u;
}

/* K block kb of the (tap group, channel block) blocking: taps [t0, t1) and
 * channels [c0, c0 + cn). */
static inline void conv_k_block(const conv_ctx* g, int64_t kb, int64_t* t0,
                                int64_t* t1, int64_t* c0, int64_t* cn) {
  const int64_t tgi = kb / g->ncb, cbi = kb % g->ncb;
  *t0 = tgi * g->tg;
  *t1 = *t0 + g->tg < g->taps ? *t0 + g->tg : g->taps;
  *c0 = cbi * g->cb;
  *cn = *c0 + g->cb < g->c ? g->cb : g->c - *c0;
}

/* One tile's micro-kernel calls over output panels [qb, qe): the tile's
 * first output pixel `pix`, its K block at offset `koff` of each panel's K
 * values; `u` holds the A side (a, mr, taps) already. */
static inline void run_panels(const conv_ctx* g, tfcc_uk_args* u, int64_t pix,
                              int64_t qb, int64_t qe, int64_t K,
                              int64_t koff) {
  const int64_t oc = g->oc;
  for (int64_t q = qb; q < qe; ++q) {
    const int64_t n0 = q * TFCC_UK_NR;
    u->nr = oc - n0 < TFCC_UK_NR ? oc - n0 : TFCC_UK_NR;
    u->b = g->wp + (q * K + koff) * TFCC_UK_NR;
    u->c = g->y + pix * oc + n0;
    u->res = g->res ? g->res + pix * oc + n0 : NULL;
    u->bias = g->bias ? g->bias + n0 : NULL;
    g->uk(u);
  }
  if (g->round && (u->flags & TFCC_UK_LAST)) {
    const int64_t n0 = qb * TFCC_UK_NR;
    g->round_fn(g->y + pix * oc + n0, oc, u->mr,
                TFCC_MIN(qe * TFCC_UK_NR, oc) - n0, g->round);
  }
}

static inline void copy_floats(float* d, const float* s, int64_t n) {
  if (n >= 32) {
    memcpy(d, s, (size_t)n * sizeof(float));
  } else {
    for (int64_t k = 0; k < n; ++k)
      d[k] = s[k];
  }
}

static inline void zero_floats(float* d, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    d[k] = 0.0f;
}

/* Gathers taps [t0, t1) x channels [c0, c0+cn) of the output pixel whose
 * first tap reads input (y0, xi) into d (zeros for the padding). */
static void pack_pixel(const conv_ctx* g, const float* xb, int64_t y0,
                       int64_t xi, int64_t t0, int64_t t1, int64_t c0,
                       int64_t cn, float* d) {
  const int64_t h = g->h, w = g->w, c = g->c, kw = g->kw, dw = g->dw;
  const int contiguous = cn == c && dw == 1; /* a tap row is one run */
  for (int64_t t = t0; t < t1;) {
    const int64_t ti = t / kw, tj = t % kw;
    const int64_t yy = y0 + ti * g->dh;
    const int64_t te = (ti + 1) * kw < t1 ? (ti + 1) * kw : t1; /* row end */
    if (yy < 0 || yy >= h) {
      zero_floats(d, (te - t) * cn);
      d += (te - t) * cn;
      t = te;
      continue;
    }
    const float* xr = xb + yy * w * c + c0;
    if (contiguous) {
      const int64_t xa = xi + tj, xe = xi + tj + (te - t); /* [xa, xe) */
      const int64_t va = xa < 0 ? 0 : xa, ve = xe > w ? w : xe;
      if (va >= ve) {
        zero_floats(d, (xe - xa) * c);
      } else {
        zero_floats(d, (va - xa) * c);
        copy_floats(d + (va - xa) * c, xr + va * c, (ve - va) * c);
        zero_floats(d + (ve - xa) * c, (xe - ve) * c);
      }
      d += (te - t) * c;
      t = te;
      continue;
    }
    for (; t < te; ++t, d += cn) {
      const int64_t xx = xi + (t % kw) * dw;
      if (xx >= 0 && xx < w)
        copy_floats(d, xr + xx * c, cn);
      else
        zero_floats(d, cn);
    }
  }
}

static void conv_range(const conv_ctx* g, int64_t R0, int64_t R1, int64_t q0,
                       int64_t q1) {
  float abuf[TFCC_UK_MR * TFCC_CONV_KC];
  int64_t toff[TFCC_CONV_MAX_TAPS];
  int64_t poff[TFCC_CONV_MAX_TAPS];
  const int64_t h = g->h, w = g->w, c = g->c, kh = g->kh, kw = g->kw;
  const int64_t ow = g->ow, K = g->taps * c;
  const int64_t nkb = g->ntg * g->ncb;
  tfcc_uk_args u = conv_uk_args(g, c * TFCC_UK_NR);
  for (int64_t kb = 0; kb < nkb; ++kb) {
    int64_t t0, t1, c0, cn;
    conv_k_block(g, kb, &t0, &t1, &c0, &cn);
    const int64_t nt = t1 - t0;
    const int64_t kc = nt * cn;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t ti = t / kw, tj = t % kw;
      toff[t - t0] = (ti * g->dh * w + tj * g->dw) * c;
      poff[t - t0] = (t - t0) * cn;
    }
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nkb - 1 ? TFCC_UK_LAST : 0);
    int64_t ncp = TFCC_NC_BYTES / (kc * TFCC_UK_NR * 4);
    if (ncp < 1)
      ncp = 1;
    for (int64_t qb = q0; qb < q1; qb += ncp) {
      const int64_t qe = qb + ncp < q1 ? qb + ncp : q1;
      for (int64_t R = R0; R < R1; ++R) {
        const int64_t b = R / g->oh, r = R % g->oh;
        const int64_t y0 = r * g->sh - g->pt;
        const int row_in = y0 >= 0 && y0 + (kh - 1) * g->dh < h;
        const float* xb = g->x + b * h * w * c;
        for (int64_t ti = 0; ti < g->ntile; ++ti) {
          const int64_t s0 = ti * g->tile;
          if (s0 >= ow)
            break;
          const int64_t mr = ow - s0 < g->tile ? ow - s0 : g->tile;
          const int64_t x0 = s0 * g->sw - g->pl;
          const int64_t xl = (s0 + mr - 1) * g->sw - g->pl + (kw - 1) * g->dw;
          const int inside = row_in && x0 >= 0 && xl < w;
          if (inside && cn >= 16) {
            u.a = xb + (y0 * w + x0) * c + c0;
            u.lda = g->sw * c;
            u.toff = toff;
            u.ntaps = nt;
            u.kt = cn;
          } else {
            for (int64_t i = 0; i < mr; ++i)
              pack_pixel(g, xb, y0, x0 + i * g->sw, t0, t1, c0, cn,
                         abuf + i * kc);
            u.a = abuf;
            u.lda = kc;
            if (cn == c) { /* taps contiguous in A and in B: one long tap */
              u.toff = NULL;
              u.ntaps = 1;
              u.kt = kc;
            } else {
              u.toff = poff;
              u.ntaps = nt;
              u.kt = cn;
            }
          }
          u.mr = mr;
          const int64_t pix = R * ow + s0;
          run_panels(g, &u, pix, qb, qe, K, t0 * c + c0);
        }
      }
    }
  }
}

/* Row mode: see conv_ctx. */
static void conv_range_rows(const conv_ctx* g, int64_t R0, int64_t R1,
                            int64_t q0, int64_t q1) {
  float patch[TFCC_UK_MR * TFCC_CONV_KC];
  int64_t toff[TFCC_CONV_MAX_TAPS];
  int64_t poff[TFCC_CONV_MAX_TAPS];
  const int64_t h = g->h, w = g->w, c = g->c, kh = g->kh, kw = g->kw;
  const int64_t sw = g->sw, dh = g->dh;
  const int64_t ow = g->ow, K = g->taps * c, kt = kw * c;
  tfcc_uk_args u = conv_uk_args(g, kt * TFCC_UK_NR);
  u.kt = kt;
  u.lda = sw * c;
  for (int64_t kb = 0; kb < g->nrg; ++kb) {
    const int64_t i0 = kb * g->rg, i1 = TFCC_MIN(kh, i0 + g->rg);
    const int64_t nt = i1 - i0;
    for (int64_t i = i0; i < i1; ++i)
      toff[i - i0] = (i - i0) * dh * w * c;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) |
              (kb == g->nrg - 1 ? TFCC_UK_LAST : 0);
    int64_t ncp = TFCC_NC_BYTES / (nt * kt * TFCC_UK_NR * 4);
    if (ncp < 1)
      ncp = 1;
    for (int64_t qb = q0; qb < q1; qb += ncp) {
      const int64_t qe = qb + ncp < q1 ? qb + ncp : q1;
      for (int64_t R = R0; R < R1; ++R) {
        const int64_t b = R / g->oh, r = R % g->oh;
        const int64_t y0 = r * g->sh - g->pt + i0 * dh; /* first row read */
        const int row_in = y0 >= 0 && y0 + (nt - 1) * dh < h;
        const float* xb = g->x + b * h * w * c;
        for (int64_t ti = 0; ti < g->ntile; ++ti) {
          const int64_t s0 = ti * g->tile;
          if (s0 >= ow)
            break;
          const int64_t mr = ow - s0 < g->tile ? ow - s0 : g->tile;
          const int64_t x0 = s0 * sw - g->pl;
          const int64_t span = (mr - 1) * sw + kw; /* input columns read */
          if (row_in && x0 >= 0 && x0 + span <= w) {
            u.a = xb + (y0 * w + x0) * c;
            u.toff = toff;
          } else {
            /* zero-padded copy of the nt input rows this tile reads */
            const int64_t va = TFCC_MAX(x0, 0), ve = TFCC_MIN(x0 + span, w);
            for (int64_t i = 0; i < nt; ++i) {
              float* d = patch + i * span * c;
              const int64_t yy = y0 + i * dh;
              poff[i] = i * span * c;
              if (yy < 0 || yy >= h || va >= ve) {
                memset(d, 0, (size_t)(span * c) * sizeof(float));
                continue;
              }
              if (va > x0)
                memset(d, 0, (size_t)((va - x0) * c) * sizeof(float));
              memcpy(d + (va - x0) * c, xb + (yy * w + va) * c,
                     (size_t)((ve - va) * c) * sizeof(float));
              if (x0 + span > ve)
                memset(d + (ve - x0) * c, 0,
                       (size_t)((x0 + span - ve) * c) * sizeof(float));
            }
            u.a = patch;
            u.toff = poff;
          }
          u.ntaps = nt;
          u.mr = mr;
          const int64_t pix = R * ow + s0;
          run_panels(g, &u, pix, qb, qe, K, i0 * kt);
        }
      }
    }
  }
}

/* Ring mode: see conv_ctx. */
static void conv_range_ring(const conv_ctx* g, int64_t R0, int64_t R1,
                            int64_t q0, int64_t q1) {
  float ring[TFCC_CONV_RING_BYTES / sizeof(float)] __attribute__((aligned(64)));
  int64_t toff[TFCC_CONV_MAX_TAPS];
  int64_t tag[TFCC_CONV_RING_MAX_KH + 1];
  const float* rowp[TFCC_CONV_RING_MAX_KH];
  const int64_t h = g->h, w = g->w, c = g->c, kh = g->kh, kw = g->kw;
  const int64_t ow = g->ow, K = g->taps * c;
  const int64_t slotf = g->slotw * c;
  /* slots 0..kh-1 hold input rows (row yy of image b in slot yy % kh, its
   * padding columns zero), slot kh is the zero row above/below the image */
  memset(ring, 0, (size_t)((kh + 1) * slotf) * sizeof(float));
  for (int64_t i = 0; i <= kh; ++i)
    tag[i] = -1;
  tfcc_uk_args u = conv_uk_args(g, c * TFCC_UK_NR);
  u.lda = g->sw * c;
  u.kt = c;
  for (int64_t kb = 0; kb < g->ntg; ++kb) {
    const int64_t t0 = kb * g->tg;
    const int64_t t1 = t0 + g->tg < g->taps ? t0 + g->tg : g->taps;
    const int64_t nt = t1 - t0;
    const int64_t i0 = t0 / kw, i1 = (t1 - 1) / kw + 1; /* kernel rows */
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) |
              (kb == g->ntg - 1 ? TFCC_UK_LAST : 0);
    u.ntaps = nt;
    int64_t ncp = TFCC_NC_BYTES / (nt * c * TFCC_UK_NR * 4);
    if (ncp < 1)
      ncp = 1;
    for (int64_t qb = q0; qb < q1; qb += ncp) {
      const int64_t qe = qb + ncp < q1 ? qb + ncp : q1;
      for (int64_t R = R0; R < R1; ++R) {
        const int64_t b = R / g->oh, r = R % g->oh;
        const int64_t y0 = r * g->sh - g->pt;
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t yy = y0 + i;
          if (yy < 0 || yy >= h) {
            rowp[i] = ring + kh * slotf;
            continue;
          }
          const int64_t sl = yy % kh, key = b * h + yy;
          float* d = ring + sl * slotf;
          if (tag[sl] != key) {
            memcpy(d + g->pl * c, g->x + key * w * c,
                   (size_t)(w * c) * sizeof(float));
            tag[sl] = key;
          }
          rowp[i] = d;
        }
        for (int64_t t = t0; t < t1; ++t)
          toff[t - t0] = (rowp[t / kw] - ring) + (t % kw) * g->dw * c;
        u.toff = toff;
        for (int64_t ti = 0; ti < g->ntile; ++ti) {
          const int64_t s0 = ti * g->tile;
          if (s0 >= ow)
            break;
          const int64_t mr = ow - s0 < g->tile ? ow - s0 : g->tile;
          /* pixel s0's first tap column, in slot coordinates */
          u.a = ring + s0 * g->sw * c;
          u.mr = mr;
          const int64_t pix = R * ow + s0;
          run_panels(g, &u, pix, qb, qe, K, t0 * c);
        }
      }
    }
  }
}

/* Flat mode: see conv_ctx. Tiles [T0, T1) of ftile pixels, panels [q0, q1). */
static void conv_range_flat(const conv_ctx* g, int64_t T0, int64_t T1,
                            int64_t q0, int64_t q1) {
  float abuf[TFCC_UK_MR * TFCC_CONV_KC];
  int64_t poff[TFCC_CONV_MAX_TAPS];
  const int64_t h = g->h, w = g->w, c = g->c;
  const int64_t ow = g->ow, K = g->taps * c;
  const int64_t nkb = g->ntg * g->ncb;
  tfcc_uk_args u = conv_uk_args(g, c * TFCC_UK_NR);
  for (int64_t kb = 0; kb < nkb; ++kb) {
    int64_t t0, t1, c0, cn;
    conv_k_block(g, kb, &t0, &t1, &c0, &cn);
    const int64_t nt = t1 - t0;
    const int64_t kc = nt * cn;
    for (int64_t t = t0; t < t1; ++t)
      poff[t - t0] = (t - t0) * cn;
    u.flags = (kb == 0 ? TFCC_UK_FIRST : 0) | (kb == nkb - 1 ? TFCC_UK_LAST : 0);
    if (cn == c) { /* taps contiguous in A and in B: one long tap */
      u.toff = NULL;
      u.ntaps = 1;
      u.kt = kc;
    } else {
      u.toff = poff;
      u.ntaps = nt;
      u.kt = cn;
    }
    u.a = abuf;
    u.lda = kc;
    /* the whole panel range as one B block when it fits in L2 */
    int64_t ncp = (2 * TFCC_NC_BYTES) / (kc * TFCC_UK_NR * 4);
    if (ncp < 1)
      ncp = 1;
    for (int64_t qb = q0; qb < q1; qb += ncp) {
      const int64_t qe = qb + ncp < q1 ? qb + ncp : q1;
      for (int64_t T = T0; T < T1; ++T) {
        const int64_t P0 = T * g->ftile;
        const int64_t mr = g->npix - P0 < g->ftile ? g->npix - P0 : g->ftile;
        for (int64_t i = 0; i < mr; ++i) {
          const int64_t P = P0 + i, R = P / ow, s = P % ow;
          const int64_t b = R / g->oh, r = R % g->oh;
          pack_pixel(g, g->x + b * h * w * c, r * g->sh - g->pt,
                     s * g->sw - g->pl, t0, t1, c0, cn, abuf + i * kc);
        }
        u.mr = mr;
        run_panels(g, &u, P0, qb, qe, K, t0 * c + c0);
      }
    }
  }
}

/* Output rows per rounded chunk of the row-wise kernels (one-channel and
 * depthwise convolutions): one, so that it is rounded in L1 (two rows of
 * MobileNetV2's widest depthwise layer are 43 KiB). */
#define TFCC_ROUND_ROWS 1

typedef struct c1_ctx {
  tfcc_c1_args a;
  void (*rows)(const tfcc_c1_args*, int64_t, int64_t);
  int32_t round; /* TFCC_ACT_ROUND_* or 0 */
  tfcc_round_fn round_fn;
} c1_ctx;

static void c1_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const c1_ctx* c = (const c1_ctx*)ctx;
  (void)thread;
  if (!c->round) {
    c->rows(&c->a, begin, end);
    return;
  }
  const int64_t row = c->a.ow * c->a.oc;
  for (int64_t r = begin; r < end; r += TFCC_ROUND_ROWS) {
    const int64_t e = TFCC_MIN(end, r + TFCC_ROUND_ROWS);
    c->rows(&c->a, r, e);
    c->round_fn(c->a.y + r * row, row, e - r, row, c->round);
  }
}

static void conv_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const conv_ctx* g = (const conv_ctx*)ctx;
  (void)thread;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t mg = t / g->gn, ng = t % g->gn;
    const int64_t R0 = mg * g->rows / g->gm, R1 = (mg + 1) * g->rows / g->gm;
    const int64_t q0 = ng * g->panels / g->gn, q1 = (ng + 1) * g->panels / g->gn;
    if (R0 < R1 && q0 < q1)
      (g->flat      ? conv_range_flat
       : g->ring    ? conv_range_ring
       : g->rowmode ? conv_range_rows
                    : conv_range)(g, R0, R1, q0, q1);
  }
}

void tfcc_rt_conv2d_f32(const float* x, int64_t n, int64_t h, int64_t w,
                        int64_t c, const float* packed_weights, int64_t oc,
                        int64_t kh, int64_t kw, int64_t stride_h,
                        int64_t stride_w, int64_t dil_h, int64_t dil_w,
                        int64_t pad_top, int64_t pad_left, int64_t oh,
                        int64_t ow, const float* bias, const float* residual,
                        int32_t activation, float alpha, float beta, float* y) {
  if (n <= 0 || oh <= 0 || ow <= 0 || oc <= 0)
    return;
  const int32_t round = activation & TFCC_ACT_ROUND_MASK;
  if (c <= 0 || kh <= 0 || kw <= 0) { /* empty reduction: epilogue of 0 */
    tfcc_sgemm_impl(1, n * oh * ow, oc, 0, x, 0, 0, 0, packed_weights, 0, 0, 0,
                    1, y, oc, 0, bias, residual, activation, alpha, beta);
    return;
  }
  if (kh == 1 && kw == 1 && stride_h == 1 && stride_w == 1 && pad_top == 0 &&
      pad_left == 0 && oh == h && ow == w) {
    tfcc_sgemm_impl(1, n * h * w, oc, c, x, c, 0, 0, packed_weights, 0, 0, 0,
                    1, y, oc, 0, bias, residual, activation, alpha, beta);
    return;
  }
  const double flops =
      2.0 * (double)(n * oh * ow) * (double)oc * (double)(kh * kw * c);
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  const int isa = tfcc_kernels_isa();
  const double bytes =
      4.0 * ((double)(n * h * w * c) + (double)(n * oh * ow * oc) +
             (double)(kh * kw * c) * (double)oc);
  const int serial = threads <= 1 || tfcc_small_work(flops, 100.0, bytes);
  if (c == 1 && oc <= TFCC_C1_MAX_OC && stride_w == 1 && dil_w == 1 &&
      kw <= TFCC_C1_MAX_KW) {
    /* one input channel, few output channels: vectorized over pixels */
    c1_ctx cc;
    tfcc_c1_args a;
    a.x = x;
    a.h = h;
    a.w = w;
    a.kh = kh;
    a.kw = kw;
    a.sh = stride_h;
    a.dh = dil_h;
    a.pt = pad_top;
    a.pl = pad_left;
    a.oh = oh;
    a.ow = ow;
    a.oc = oc;
    a.wp = packed_weights;
    a.bias = bias;
    a.res = residual;
    a.act = activation & ~TFCC_ACT_ROUND_MASK;
    a.alpha = alpha;
    a.beta = beta;
    a.y = y;
    cc.a = a;
    cc.rows = TFCC_FOR_ISA(isa, tfcc_conv_c1_rows_avx512,
                           tfcc_conv_c1_rows_avx2, tfcc_conv_c1_rows_base);
    cc.round = round;
    cc.round_fn = TFCC_ROUND_FOR_ISA(isa);
    if (serial || n * oh == 1)
      c1_task(&cc, 0, n * oh, 0);
    else
      tfcc_rt_parallel_for(n * oh, c1_task, &cc);
    return;
  }
  conv_ctx g;
  g.x = x;
  g.n = n;
  g.h = h;
  g.w = w;
  g.c = c;
  g.wp = packed_weights;
  g.oc = oc;
  g.kh = kh;
  g.kw = kw;
  g.sh = stride_h;
  g.sw = stride_w;
  g.dh = dil_h;
  g.dw = dil_w;
  g.pt = pad_top;
  g.pl = pad_left;
  g.oh = oh;
  g.ow = ow;
  g.bias = bias;
  g.res = residual;
  g.act = activation & ~TFCC_ACT_ROUND_MASK;
  g.round = round;
  g.round_fn = TFCC_ROUND_FOR_ISA(isa);
  g.alpha = alpha;
  g.beta = beta;
  g.y = y;
  g.uk = tfcc_uk_for_isa(isa);
  g.taps = kh * kw;
  g.panels = (oc + TFCC_UK_NR - 1) / TFCC_UK_NR;
  g.npix = n * oh * ow;
  /* Flat mode for short output rows (a row tile would leave most of the
   * register tile's rows unused) of at least 16 channels: K blocks sized so
   * that the B block of every panel fits in ~2 * TFCC_NC_BYTES. */
  g.flat = ow <= TFCC_CONV_FLAT_OW && c >= 16 && g.npix > ow;
  int64_t kcmax = TFCC_CONV_KC;
  if (g.flat) {
    kcmax = (2 * TFCC_NC_BYTES) / (g.panels * TFCC_UK_NR * 4);
    kcmax = TFCC_MAX(128, TFCC_MIN(kcmax, TFCC_CONV_KC));
  }
  if (c >= kcmax) {
    g.tg = 1;
    g.ncb = (c + kcmax - 1) / kcmax;
    g.cb = (c + g.ncb - 1) / g.ncb;
  } else {
    g.cb = c;
    g.ncb = 1;
    g.tg = kcmax / c;
  }
  if (g.tg > TFCC_CONV_MAX_TAPS)
    g.tg = TFCC_CONV_MAX_TAPS;
  if (g.tg > g.taps)
    g.tg = g.taps;
  g.ntg = (g.taps + g.tg - 1) / g.tg;
  g.tg = (g.taps + g.ntg - 1) / g.ntg; /* balance the tap groups */
  /* A row of at most TFCC_UK_MR pixels is one tile at any level: split in
   * two (14 -> 7 + 7 at 12 rows), its register blocks would have 3-4 rows. */
  const int64_t uk_mr = tfcc_uk_mr_for_isa(isa);
  const int64_t mr = ow <= TFCC_UK_MR ? TFCC_UK_MR : uk_mr;
  g.ntile = (ow + mr - 1) / mr;
  g.tile = (ow + g.ntile - 1) / g.ntile;
  /* Row mode for few channels (where per-tap runs would be short). */
  g.rowmode = 0;
  g.rg = g.nrg = 0;
  if (c < 16 && dil_w == 1 && kw * c <= TFCC_CONV_KC &&
      kh <= TFCC_CONV_MAX_TAPS) {
    g.rg = TFCC_MIN(kh, TFCC_CONV_KC / (kw * c));
    g.nrg = (kh + g.rg - 1) / g.rg;
    g.rg = (kh + g.nrg - 1) / g.nrg;
    const int64_t span = (g.tile - 1) * stride_w + kw;
    g.rowmode = g.rg * span * c <= TFCC_UK_MR * TFCC_CONV_KC;
  }
  g.rows = n * oh;
  g.ftile = 0;
  g.ring = 0;
  g.slotw = 0;
  if (!g.flat && !g.rowmode && g.ncb == 1 && c >= 16 && dil_h == 1 &&
      kh <= TFCC_CONV_RING_MAX_KH) {
    /* input columns [-pl, w + pr) that the output row reads */
    const int64_t pr = TFCC_MAX(
        0, (ow - 1) * stride_w - pad_left + (kw - 1) * dil_w - (w - 1));
    g.slotw = pad_left + w + pr;
    g.ring = (pad_left > 0 || pr > 0) &&
             (kh + 1) * g.slotw * c * (int64_t)sizeof(float) <=
                 TFCC_CONV_RING_BYTES;
  }
  if (g.flat) {
    g.rowmode = 0;
    const int64_t nft = (g.npix + uk_mr - 1) / uk_mr;
    g.ftile = (g.npix + nft - 1) / nft;
    g.rows = (g.npix + g.ftile - 1) / g.ftile;
    g.ntile = 1;
  }
  g.gm = 1;
  g.gn = 1;
  if (serial) {
    conv_task(&g, 0, 1, 0);
    return;
  }
  const int64_t want = 2 * (int64_t)threads;
  const int64_t tiles = g.rows * g.ntile;
  if (tiles >= 8 * want || ((g.flat || g.ring) && g.rows >= want)) {
    /* rows (flat: tiles) split: in flat and ring mode a panel split would
     * gather or copy the same input rows once per task. 4 tasks per thread
     * when the rows allow, so that the pool can move the last ones of a
     * thread that falls behind (docs/performance.md). */
    g.gm = TFCC_MIN(tiles >= 16 * want ? 2 * want : want, g.rows);
  } else {
    g.gn = TFCC_MIN(want, g.panels);
    g.gm = TFCC_MAX(1, TFCC_MIN(g.rows, (want + g.gn - 1) / g.gn));
  }
  tfcc_rt_parallel_for(g.gm * g.gn, conv_task, &g);
}

/* ---- depthwise ---------------------------------------------------------- */

void tfcc_dw_row_generic(const tfcc_dw_args* p, int64_t b, int64_t r) {
  const int64_t C = p->c * p->m;
  const int64_t y0 = r * p->sh - p->pt;
  const int64_t orow = (b * p->oh + r) * p->ow;
  for (int64_t s = 0; s < p->ow; ++s) {
    const int64_t x0 = s * p->sw - p->pl;
    float* yo = p->y + (orow + s) * C;
    const float* ro = p->res ? p->res + (orow + s) * C : NULL;
    for (int64_t o = 0; o < C; ++o) {
      const int64_t ci = o / p->m;
      float acc = p->bias ? p->bias[o] : 0.0f;
      for (int64_t i = 0; i < p->kh; ++i) {
        const int64_t yy = y0 + i * p->dh;
        if (yy < 0 || yy >= p->h)
          continue;
        for (int64_t j = 0; j < p->kw; ++j) {
          const int64_t xx = x0 + j * p->dw;
          if (xx < 0 || xx >= p->w)
            continue;
          acc += p->x[((b * p->h + yy) * p->w + xx) * p->c + ci] *
                 p->wt[(i * p->kw + j) * C + o];
        }
      }
      if (ro)
        acc += ro[o];
      yo[o] = tfcc_act_scalar(acc, p->act, p->alpha, p->beta);
    }
  }
}

typedef struct dw_ctx {
  tfcc_dw_args a;
  void (*row)(const tfcc_dw_args*, int64_t, int64_t);
  void (*rows)(const tfcc_dw_args*, int64_t, int64_t); /* or NULL */
  int32_t round; /* TFCC_ACT_ROUND_* or 0 */
  tfcc_round_fn round_fn;
} dw_ctx;

/* Output rows [R0, R1) (R = b * oh + r). */
static void dw_rows(const dw_ctx* d, int64_t R0, int64_t R1) {
  if (d->rows) {
    d->rows(&d->a, R0, R1);
    return;
  }
  for (int64_t R = R0; R < R1; ++R)
    d->row(&d->a, R / d->a.oh, R % d->a.oh);
}

static void dw_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const dw_ctx* d = (const dw_ctx*)ctx;
  (void)thread;
  if (!d->round) {
    dw_rows(d, begin, end);
    return;
  }
  const int64_t row = d->a.ow * d->a.c * d->a.m;
  /* AVX-512's rows kernel computes two rows at a time */
  const int64_t chunk = d->rows ? 2 * TFCC_ROUND_ROWS : TFCC_ROUND_ROWS;
  for (int64_t R = begin; R < end; R += chunk) {
    const int64_t e = TFCC_MIN(end, R + chunk);
    dw_rows(d, R, e);
    d->round_fn(d->a.y + R * row, row, e - R, row, d->round);
  }
}

void tfcc_rt_depthwise_conv2d_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c,
    const float* weights, int64_t m, int64_t kh, int64_t kw, int64_t stride_h,
    int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t pad_top,
    int64_t pad_left, int64_t oh, int64_t ow, const float* bias,
    const float* residual, int32_t activation, float alpha, float beta,
    float* y) {
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0 || m <= 0)
    return;
  dw_ctx d;
  d.a.x = x;
  d.a.h = h;
  d.a.w = w;
  d.a.c = c;
  d.a.wt = weights;
  d.a.m = m;
  d.a.kh = kh;
  d.a.kw = kw;
  d.a.sh = stride_h;
  d.a.sw = stride_w;
  d.a.dh = dil_h;
  d.a.dw = dil_w;
  d.a.pt = pad_top;
  d.a.pl = pad_left;
  d.a.oh = oh;
  d.a.ow = ow;
  d.a.bias = bias;
  d.a.res = residual;
  d.a.act = activation & ~TFCC_ACT_ROUND_MASK;
  d.a.alpha = alpha;
  d.a.beta = beta;
  d.a.y = y;
  /* the AVX-512 path handles m <= 16 (16 output lanes span <= 16 inputs),
   * the portable vector ones m = 1 */
  const int isa = tfcc_kernels_isa();
  d.round = activation & TFCC_ACT_ROUND_MASK;
  d.round_fn = TFCC_ROUND_FOR_ISA(isa);
  d.row = m == 1 ? TFCC_FOR_ISA(isa, tfcc_dw_row_avx512, tfcc_dw_row_avx2,
                                tfcc_dw_row_base)
          : TFCC_IS_AVX512(isa) && m <= 16 ? tfcc_dw_row_avx512
                                           : tfcc_dw_row_generic;
  d.rows = NULL;
#if TFCC_KERNELS_HAVE_AVX512
  if (isa == TFCC_ISA_AVX512 && m == 1 && kw == 3 && dil_w == 1 &&
      (stride_w == 1 || stride_w == 2) && kh >= 1 && kh <= 16 &&
      d.a.act != TFCC_ACT_SIGMOID) {
    d.row = tfcc_dw3_row_avx512;
    d.rows = tfcc_dw3_rows_avx512;
  }
#endif
  const double flops = 2.0 * (double)(n * oh * ow) * (double)(c * m) *
                       (double)(kh > 0 && kw > 0 ? kh * kw : 1);
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  const double bytes = 4.0 * ((double)(n * h * w * c) +
                              2.0 * (double)(n * oh * ow * c * m));
  if (threads <= 1 || n * oh == 1 || tfcc_small_work(flops, 40.0, bytes)) {
    dw_task(&d, 0, n * oh, 0);
    return;
  }
  tfcc_rt_parallel_for(n * oh, dw_task, &d);
}
