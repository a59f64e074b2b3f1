/* qgemm.c - the int8 GEMM (u8 x s8 -> s32) driver, its portable
 * micro-kernel and the uint8 im2col of the int8 convolution.
 *
 * B is pre-packed (tfcc_rt_qgemm_pack_b): panels of 16 columns, K in
 * groups of 4 bytes. The driver cuts B into blocks of panels that stay in
 * L2 and the rows of A into tiles of up to TFCC_QMR rows; a task is one
 * (block, tile) pair, consecutive tasks share a block. The micro-kernel of
 * the ISA (VNNI vpdpbusd, AVX2 vpmaddubsw where the weights' pairs fit an
 * int16 or else widening vpmaddwd, or plain C) writes the
 * int32 dot products of a tile x up to TFCC_QNP panels to a stack buffer;
 * the epilogue (qgemm_vec.inc) subtracts A's zero point times B's column
 * sums, scales, adds bias and residual, applies the activation and writes
 * float32 or requantized uint8; the AVX2 and VNNI kernels fold it for
 * uint8 outputs without a residual (qgemm_internal.h, fold_epilogue below).
 * The int8 convolution (tfcc_rt_qconv2d_u8s8_*) is the same driver with
 * its tiles' rows of A read in place from the image, a kernel row per
 * segment, where the micro-kernel reads segments (qconv2d_direct below),
 * or else gathered by its tasks from the image (the im2col below) on their
 * stack: no rows buffer, one parallel call.
 * Integer accumulation is exact, so results do not depend on the thread
 * count; the float epilogue may round differently between ISA levels. */
#include "qgemm_internal.h"

#include <string.h>

/* -DTFCC_QNP_WIDE_ENABLED=0: the AVX512_VNNI kernel's 2-panel tiles only
 * (to measure the wide ones against them). */
#ifndef TFCC_QNP_WIDE_ENABLED
#define TFCC_QNP_WIDE_ENABLED 1
#endif

/* The block of packed B kept in L2 while every row tile streams past it:
 * half the CPU's L2 (the rest for the A rows and C), within [256 KiB,
 * 4 MiB] (at least TFCC_RT_QCONV_FUSED_MAX_B_BYTES: the fused convolution
 * gathers its rows once), 256 KiB where the size is unknown. Each
 * block re-reads all of A, so a larger one reads A fewer times
 * (docs/quantization.md). -DTFCC_QGEMM_BLOCK_BYTES=n fixes it (tuning). */
static int64_t qgemm_block_bytes(void) {
#ifdef TFCC_QGEMM_BLOCK_BYTES
  return TFCC_QGEMM_BLOCK_BYTES;
#else
  const int64_t l2 = tfcc_cpu_l2_bytes();
  return TFCC_MIN(TFCC_MAX(l2 / 2, TFCC_RT_QCONV_FUSED_MAX_B_BYTES),
                  4 * 1024 * 1024);
#endif
}

/* ---- portable path ------------------------------------------------------ */

/* Four bytes of a row from k = 4g on, zero past K (no read past the row). */
static inline void load_group(const uint8_t* a, int64_t g, int64_t K,
                              uint8_t out[4]) {
  int64_t k0 = 4 * g;
  for (int t = 0; t < 4; ++t)
    out[t] = k0 + t < K ? a[k0 + t] : 0;
}

/* The 4 activations of a group (k = 4g .. 4g + 3) in the form the target's
 * dot product takes, and that dot product with a column's 4 packed weights
 * added to an accumulator. */
#if defined(__ARM_FEATURE_DSP)
/* ARM's DSP extension (Cortex-M4/M7, ARMv7-A), as CMSIS-NN computes it: the
 * group and a column's weights are one 32-bit word each; UXTB16 / SXTB16
 * widen bytes 0 and 2 (and, rotated, 1 and 3) into two 16-bit halves, and
 * each SMLAD adds two 16 x 16-bit products: 4 multiply-adds in 6
 * instructions, exact (|product| <= 255 * 128), so the sums equal the
 * portable form's. */
#include <arm_acle.h>

typedef struct {
  int16x2_t a02, a13;
} quk_group;

static inline quk_group group_of(const uint8_t bytes[4]) {
  uint32_t x;
  memcpy(&x, bytes, 4);
  quk_group g = {(int16x2_t)__uxtb16(x), (int16x2_t)__uxtb16(__ror(x, 8))};
  return g;
}

static inline int32_t group_dot(quk_group g, const int8_t* w4, int32_t acc) {
  uint32_t w;
  memcpy(&w, w4, 4);
  acc = __smlad(g.a02, __sxtb16(w), acc);
  return __smlad(g.a13, __sxtb16(__ror(w, 8)), acc);
}
#else
typedef struct {
  uint8_t a[4];
} quk_group;

static inline quk_group group_of(const uint8_t bytes[4]) {
  quk_group g;
  memcpy(g.a, bytes, 4);
  return g;
}

static inline int32_t group_dot(quk_group g, const int8_t* w4, int32_t acc) {
  for (int t = 0; t < 4; ++t)
    acc += (int32_t)g.a[t] * (int32_t)w4[t];
  return acc;
}
#endif

void tfcc_quk_base(const tfcc_quk_args* p) {
  int64_t groups = (p->K + 3) / 4;
  for (int64_t i = 0; i < p->mr; ++i) {
    int32_t* acc = p->acc + i * TFCC_QNR_TILE;
    for (int64_t j = 0; j < p->np * TFCC_RT_QGEMM_NR; ++j)
      acc[j] = 0;
    const uint8_t* a = p->a + i * p->lda;
    for (int64_t g = 0; g < groups; ++g) {
      uint8_t av[4];
      load_group(a, g, p->K, av);
      const quk_group group = group_of(av);
      for (int64_t q = 0; q < p->np; ++q) {
        const int8_t* b = p->b + (q * groups + g) * TFCC_RT_QGEMM_NR * 4;
        int32_t* aq = acc + q * TFCC_RT_QGEMM_NR;
        for (int64_t j = 0; j < TFCC_RT_QGEMM_NR; ++j)
          aq[j] = group_dot(group, b + j * 4, aq[j]);
      }
    }
  }
}

#define QV_SUFFIX(name) name##_base
#include "qgemm_vec.inc"
#undef QV_SUFFIX

/* ---- dispatch ------------------------------------------------------------ */

typedef void (*tfcc_q_epilogue_fn)(const tfcc_q_epilogue_args*, const int32_t*,
                                   int64_t, int64_t, int64_t);

static tfcc_quk_fn quk_for_isa(int isa) {
#if TFCC_KERNELS_HAVE_AVX512
  if (isa == TFCC_ISA_AVX512 && tfcc_kernels_has_avx512_vnni())
    return tfcc_quk_avx512vnni;
#endif
#if TFCC_KERNELS_HAVE_AVX2
  if (isa >= TFCC_ISA_AVX2)
    return tfcc_kernels_has_avx_vnni() ? tfcc_quk_avxvnni : tfcc_quk_avx2;
#endif
  (void)isa;
  return tfcc_quk_base;
}

/* The micro-kernel for B packed for K x N: the AVX2 level's vpmaddubsw form
 * where the weights allow it exactly (pack.c's flag). */
static tfcc_quk_fn quk_for_packed_b(const int8_t* packed_b, int64_t K,
                                    int64_t N) {
  tfcc_quk_fn uk = quk_for_isa(tfcc_kernels_isa());
#if TFCC_KERNELS_HAVE_AVX2
  if (uk == tfcc_quk_avx2 && K > 0 && tfcc_q_pairs_fit(packed_b, K, N))
    uk = tfcc_quk_avx2_pairs;
#else
  (void)packed_b, (void)K, (void)N;
#endif
  return uk;
}

/* Whether the micro-kernel reads A in segments (tfcc_quk_args' rows). */
static int quk_reads_segments(tfcc_quk_fn uk) {
#if TFCC_KERNELS_HAVE_AVX512
  if (uk == tfcc_quk_avx512vnni)
    return 1;
#endif
#if TFCC_KERNELS_HAVE_AVX2
  if (uk == tfcc_quk_avxvnni || uk == tfcc_quk_avx2_pairs)
    return 1;
#endif
  (void)uk;
  return 0;
}

static tfcc_q_epilogue_fn epilogue_for_isa(int isa) {
  return TFCC_FOR_ISA(isa, tfcc_q_epilogue_avx512, tfcc_q_epilogue_avx2,
                      tfcc_q_epilogue_base);
}

/* ---- driver -------------------------------------------------------------- */

/* Sets ep->folded and ep->fold (qgemm_internal.h) from the other fields. */
static void fold_epilogue(tfcc_q_epilogue_args* ep) {
  ep->folded = 0;
  if (ep->y_f32 || ep->res || !ep->colsums)
    return;
  if (ep->act != TFCC_ACT_NONE && ep->act != TFCC_ACT_RELU &&
      ep->act != TFCC_ACT_CLIP)
    return;
  tfcc_q_folded f;
  f.inv = 1.0f / ep->out_scale;
  if (!(f.inv > 0.0f && f.inv <= 3.4e38f)) /* a positive, finite reciprocal */
    return;
  if (ep->act == TFCC_ACT_CLIP &&
      !(ep->alpha == ep->alpha && ep->beta == ep->beta)) /* a NaN bound */
    return;
  f.zpo = (float)ep->out_zero_point;
  float lo, hi;
  tfcc_u8_act_bounds(ep->act, ep->alpha, ep->beta, f.inv, f.zpo, &lo, &hi);
  /* The kernels' fma adds the zero point: bounds on t + zpo, in [0, 255]. */
  f.lo = lo + f.zpo;
  f.hi = hi + f.zpo;
  ep->fold = f;
  ep->folded = 1;
}

/* The im2col below: its geometry, and the GEMM rows of pixels
 * [m0, m0 + count) to dst. */
typedef struct im2col_ctx im2col_ctx;
static void im2col_pixels(const im2col_ctx* p, int64_t m0, int64_t count,
                          uint8_t* dst);

/* The convolution read in place (qconv2d_direct below): the A row of
 * output pixel (b, r, s) is its window's first tap in `image`, each window
 * kh kernel rows read as `seg` bytes (kw * c, or 4 for a thinner row),
 * row_bytes apart (the segments of tfcc_quk_args). */
typedef struct qconv_direct {
  const uint8_t* image;
  int64_t image_bytes, row_bytes; /* of one batch item, of one image row */
  int64_t c, kh, kw, sh, sw, oh, ow, seg;
} qconv_direct;

/* The A rows of pixels [m0, m0 + mr) (m = (b * oh + r) * ow + s). */
static void qconv_direct_rows(const qconv_direct* d, int64_t m0, int64_t mr,
                              const uint8_t* rows[TFCC_QMR]) {
  /* Two divisions a tile; the pixels step by column, row, image. */
  const int64_t row = m0 / d->ow, s0 = m0 - row * d->ow;
  const int64_t b = row / d->oh, r = row - b * d->oh;
  const int64_t step = d->sw * d->c, row_step = d->sh * d->row_bytes;
  const uint8_t* image = d->image + b * d->image_bytes;
  const uint8_t* line = image + r * row_step;
  for (int64_t i = 0, s = s0, rr = r; i < mr; ++i) {
    rows[i] = line + s * step;
    if (++s == d->ow) {
      s = 0;
      if (++rr == d->oh) {
        rr = 0;
        image += d->image_bytes;
        line = image;
      } else {
        line += row_step;
      }
    }
  }
}

/* The most pixels (tile rows) of a pooled task. */
#define TFCC_QCONV_POOL_MAX_ROWS 256

/* The max pooling after the convolution (tfcc_rt_qconv2d_u8s8_*'s pool_h x
 * pool_w): output (b, i, j) is the largest of the convolution's outputs
 * (i * ph + dr, j * pw + u), dr < ph, u < pw. The outputs (windows) are
 * taken in their flat order, per_task to a task and per_tile to a
 * micro-kernel tile, across pooled rows and images alike: a tile holds ph
 * rows of v = windows * pw pixels, tile row dr * v + t * pw + u being
 * pixel (dr, u) of its t-th window. A task gathers each of its pooled
 * rows' window rows once (one run of pixels per convolution row), or
 * points at the pixels read in place. The tile's sums are pooled, then the
 * epilogue runs on the largest: the same as pooling its outputs, as the
 * epilogue never decreases when a sum grows (the kernel's condition). */
typedef struct qconv_pool {
  int64_t ph, pw;
  int64_t oh, ow;   /* the convolution's output */
  int64_t ohp, owp; /* the pooling's */
  int64_t per_tile; /* windows in a full micro-kernel tile */
  int64_t per_task; /* windows in a task (a multiple of per_tile) */
} qconv_pool;

#ifndef TFCC_QCONV_POOL_GATHER_BYTES
/* The most bytes of gathered rows a pooled task holds on its stack. */
#define TFCC_QCONV_POOL_GATHER_BYTES (16 * 1024)
#endif

/* lda: the bytes of a gathered row (0 when read in place: a task is one
 * tile, as the unpooled convolution's). Gathered rows: whole pooled rows,
 * the fewest that make whole tiles (each convolution row one gather: their
 * per-call cost is what a short run pays), where they fit
 * TFCC_QCONV_POOL_GATHER_BYTES; else one tile. */
static qconv_pool qconv_pool_of(int64_t ph, int64_t pw, int64_t oh, int64_t ow,
                                int64_t lda) {
  qconv_pool p;
  p.ph = ph, p.pw = pw, p.oh = oh, p.ow = ow;
  p.ohp = oh / ph, p.owp = ow / pw;
  p.per_tile = TFCC_QMR / ph / pw;
  p.per_task = p.per_tile;
  if (lda > 0 && p.owp > 0) {
    int64_t rows = p.per_tile; /* per_tile / gcd(owp, per_tile) */
    while (rows > 1 && (rows / 2) * p.owp % p.per_tile == 0)
      rows /= 2;
    const int64_t windows = rows * p.owp;
    if (windows * ph * pw * lda <= TFCC_QCONV_POOL_GATHER_BYTES &&
        windows * ph * pw <= TFCC_QCONV_POOL_MAX_ROWS)
      p.per_task = windows;
  }
  return p;
}

typedef struct qgemm_ctx {
  int64_t M, K, groups, panels;
  const uint8_t* A;
  int64_t lda;
  /* The fused convolution's input (A is then NULL): each task gathers its
   * tile's rows, lda bytes each, on its stack. */
  const im2col_ctx* gather;
  /* Or the convolution read in place (A is then NULL too). */
  const qconv_direct* direct;
  /* A max pooling after it (one of gather, direct is set), or NULL: each
   * `fused` kernel pools 2 x 2 windows (tfcc_quk_args' pool2x2). */
  const qconv_pool* pool;
  int64_t nseg, seg_len, seg_stride;
  const int8_t* B;
  int64_t tile_rows, tiles, block_panels;
  tfcc_quk_fn uk;
  tfcc_q_epilogue_fn epilogue;
  /* The VNNI kernel with the epilogue in registers, or NULL. */
  void (*fused)(const tfcc_quk_args*, const tfcc_q_epilogue_args*, int64_t,
                int64_t, int64_t);
  /* Whether `fused` takes TFCC_QNP_WIDE panels (qgemm_tile; K > 0). */
  int wide;
  tfcc_q_epilogue_args ep;
} qgemm_ctx;

/* The micro-kernel's arguments for mr rows (at a, lda apart, or at rows
 * in segments) times panel p and the np - 1 after it. */
static inline tfcc_quk_args quk_args(const qgemm_ctx* c, const uint8_t* a,
                                     const uint8_t* const* rows, int64_t nseg,
                                     int64_t seg_len, int64_t seg_stride,
                                     int64_t mr, int64_t p, int64_t np,
                                     int32_t* acc) {
  tfcc_quk_args args = {
      .a = a,
      .lda = c->lda,
      .mr = mr,
      .K = c->K,
      .b = c->B + p * c->groups * TFCC_RT_QGEMM_NR * 4,
      .np = np,
      .acc = acc,
      .nseg = nseg,
      .seg_len = seg_len,
      .seg_stride = seg_stride,
      .rows = rows,
      .pool2x2 = 0,
  };
  return args;
}

/* Rows [m0, m0 + mr) (mr <= TFCC_QMR) at a_tile times the panels
 * [p0, p1). */
static void qgemm_tile(const qgemm_ctx* c, const uint8_t* a_tile,
                       const uint8_t* const* rows, int64_t m0, int64_t mr,
                       int64_t p0, int64_t p1) {
  int32_t acc[TFCC_QMR * TFCC_QNR_TILE];
  for (int64_t p = p0, np; p < p1; p += np) {
    /* Wide tiles where the kernel has them, but 4 panels as 2 + 2 (a tile
     * of one panel has a third of the products per load). */
    np = c->wide && p1 - p >= TFCC_QNP_WIDE && p1 - p != 4
             ? TFCC_QNP_WIDE
             : TFCC_MIN(TFCC_QNP, p1 - p);
    int64_t n0 = p * TFCC_RT_QGEMM_NR;
    int64_t nr = TFCC_MIN(np * TFCC_RT_QGEMM_NR, c->ep.N - n0);
    if (c->K == 0) { /* empty products; A and B may be NULL */
      memset(acc, 0, sizeof acc);
      for (int64_t i = 0; i < mr; ++i)
        c->epilogue(&c->ep, acc + i * TFCC_QNR_TILE, m0 + i, n0, nr);
      continue;
    }
    tfcc_quk_args a = quk_args(c, a_tile, rows, c->nseg, c->seg_len,
                               c->seg_stride, mr, p, np, acc);
    if (c->fused) {
      c->fused(&a, &c->ep, m0, n0, nr);
      continue;
    }
    c->uk(&a);
    for (int64_t i = 0; i < mr; ++i)
      c->epilogue(&c->ep, acc + i * TFCC_QNR_TILE, m0 + i, n0, nr);
  }
}

/* A pooled tile (qconv_pool): mr = ph * v rows of `windows` windows, at
 * rows (in nseg segments as tfcc_quk_args') or else lda apart from a,
 * times the panels [p0, p1); the pooled outputs are rows m_out, m_out + 1,
 * ... of y. */
static inline __attribute__((always_inline)) void
qgemm_tile_pooled(const qgemm_ctx* c, const uint8_t* a_tile,
                  const uint8_t* const* rows, int64_t nseg, int64_t seg_len,
                  int64_t seg_stride, int64_t v, int64_t windows, int64_t m_out,
                  int64_t p0, int64_t p1) {
  const qconv_pool* pl = c->pool;
  const int64_t ph = pl->ph, pw = pl->pw, mr = ph * v;
  int32_t acc[TFCC_QMR * TFCC_QNR_TILE];
  int32_t top[TFCC_QNR_TILE];
  /* 2 x 2 windows pooled by the fused kernel (in registers with
   * AVX512_VNNI), which then runs its own epilogue. */
  const int in_kernel =
      c->fused && c->K > 0 && ph == 2 && pw == 2 && (mr == 4 || mr == 8);
  for (int64_t p = p0; p < p1; p += TFCC_QNP) {
    const int64_t n0 = p * TFCC_RT_QGEMM_NR;
    const int64_t np = TFCC_MIN(TFCC_QNP, p1 - p);
    const int64_t nr = TFCC_MIN(np * TFCC_RT_QGEMM_NR, c->ep.N - n0);
    if (c->K == 0) { /* empty products; A and B may be NULL */
      memset(acc, 0, sizeof acc);
    } else {
      tfcc_quk_args a =
          quk_args(c, a_tile, rows, nseg, seg_len, seg_stride, mr, p, np, acc);
      a.pool2x2 = in_kernel;
      if (in_kernel) {
        c->fused(&a, &c->ep, m_out, n0, nr);
        continue;
      }
      c->uk(&a);
    }
    for (int64_t w = 0; w < windows; ++w) {
      memcpy(top, acc + w * pw * TFCC_QNR_TILE, sizeof top);
      for (int64_t dr = 0; dr < ph; ++dr)
        for (int64_t u = 0; u < pw; ++u) {
          const int32_t* row = acc + (dr * v + w * pw + u) * TFCC_QNR_TILE;
          for (int64_t j = 0; j < TFCC_QNR_TILE; ++j)
            top[j] = row[j] > top[j] ? row[j] : top[j];
        }
      c->epilogue(&c->ep, top, m_out + w, n0, nr);
    }
  }
}

/* Pooled task: block * tiles + tile, the windows [tile * per_task, ...)
 * in flat order (qconv_pool), their rows gathered into `gathered` (per
 * pooled row, ph runs of their windows' pixels) or read in place. */
static void qgemm_task_pooled(const qgemm_ctx* c, int64_t task,
                              uint8_t* gathered) {
  const qconv_pool* pl = c->pool;
  const int64_t ph = pl->ph, pw = pl->pw;
  const int64_t block = task / c->tiles, tile = task % c->tiles;
  const int64_t p0 = block * c->block_panels;
  const int64_t p1 = TFCC_MIN(c->panels, p0 + c->block_panels);
  const int64_t per_image = pl->ohp * pl->owp;
  const int64_t w0 = tile * pl->per_task;
  const int64_t w1 =
      TFCC_MIN(w0 + pl->per_task, c->M / (pl->oh * pl->ow) * per_image);
  /* Window w's pixel (dr, 0): first[(w - w0) * ph + dr]; pixel u is
   * `step` bytes further. */
  const uint8_t* first[TFCC_QCONV_POOL_MAX_ROWS];
  const int64_t step = c->direct ? c->direct->sw * c->direct->c : c->lda;
  for (int64_t w = w0, off = 0; w < w1;) {
    const int64_t b = w / per_image, rest = w - b * per_image;
    const int64_t i = rest / pl->owp, j = rest - i * pl->owp;
    const int64_t count = TFCC_MIN(pl->owp - j, w1 - w); /* in this row */
    for (int64_t dr = 0; dr < ph; ++dr) {
      const int64_t r = i * ph + dr;
      if (c->direct) {
        const qconv_direct* d = c->direct;
        const uint8_t* pixel = d->image + b * d->image_bytes +
                               r * d->sh * d->row_bytes + j * pw * step;
        for (int64_t t = 0; t < count; ++t)
          first[(w - w0 + t) * ph + dr] = pixel + t * pw * step;
        continue;
      }
      uint8_t* dst = gathered + off * c->lda;
      im2col_pixels(c->gather, (b * pl->oh + r) * pl->ow + j * pw, count * pw,
                    dst);
      for (int64_t t = 0; t < count; ++t)
        first[(w - w0 + t) * ph + dr] = dst + t * pw * step;
      off += count * pw;
    }
    w += count;
  }
  /* Gathered rows: read through row pointers in one segment by the
   * kernels that can, else copied into a tile in order. */
  const int by_pointer = c->direct || quk_reads_segments(c->uk);
  _Alignas(64)
      uint8_t in_order[c->gather && !by_pointer ? TFCC_QMR * c->lda : 1];
  for (int64_t t0 = w0; t0 < w1; t0 += pl->per_tile) {
    const int64_t windows = TFCC_MIN(pl->per_tile, w1 - t0);
    const int64_t v = windows * pw;
    const uint8_t* rows[TFCC_QMR];
    for (int64_t dr = 0; dr < ph; ++dr)
      for (int64_t t = 0; t < windows; ++t)
        for (int64_t u = 0; u < pw; ++u) {
          const uint8_t* pixel = first[(t0 - w0 + t) * ph + dr] + u * step;
          const int64_t row = dr * v + t * pw + u;
          if (by_pointer)
            rows[row] = pixel;
          else
            memcpy(in_order + row * c->lda, pixel, (size_t)c->lda);
        }
    if (c->direct)
      qgemm_tile_pooled(c, NULL, rows, c->nseg, c->seg_len, c->seg_stride, v,
                        windows, t0, p0, p1);
    else if (by_pointer)
      qgemm_tile_pooled(c, NULL, rows, 1, c->lda, 0, v, windows, t0, p0, p1);
    else
      qgemm_tile_pooled(c, in_order, NULL, 0, 0, 0, v, windows, t0, p0, p1);
  }
}

/* Tasks [begin, end): task = block * tiles + tile, a tile being tile_rows
 * rows of A (gathered first for the fused convolution), cut into micro-kernel
 * tiles of TFCC_QMR. */
static void qgemm_task(void* vctx, int64_t begin, int64_t end, int32_t thread) {
  (void)thread;
  const qgemm_ctx* c = (const qgemm_ctx*)vctx;
  /* At most 8 * TFCC_QMR * 64 or TFCC_QMR * TFCC_RT_QCONV_MAX_LDC bytes
   * (qconv2d's tile_rows). */
  _Alignas(64)
      uint8_t gathered[c->gather && c->lda > 0 ? c->tile_rows * c->lda : 1];
  for (int64_t task = begin; task < end; ++task) {
    if (c->pool) {
      qgemm_task_pooled(c, task, gathered);
      continue;
    }
    int64_t block = task / c->tiles, tile = task % c->tiles;
    int64_t p0 = block * c->block_panels;
    int64_t p1 = TFCC_MIN(c->panels, p0 + c->block_panels);
    int64_t m_begin = tile * c->tile_rows;
    int64_t m_end = TFCC_MIN(c->M, m_begin + c->tile_rows);
    if (c->direct) { /* tile_rows = TFCC_QMR */
      const uint8_t* rows[TFCC_QMR];
      qconv_direct_rows(c->direct, m_begin, m_end - m_begin, rows);
      qgemm_tile(c, NULL, rows, m_begin, m_end - m_begin, p0, p1);
      continue;
    }
    const uint8_t* a = c->A ? c->A + m_begin * c->lda : gathered;
    if (c->gather)
      im2col_pixels(c->gather, m_begin, m_end - m_begin, gathered);
    for (int64_t m0 = m_begin; m0 < m_end; m0 += TFCC_QMR)
      qgemm_tile(c, a + (m0 - m_begin) * c->lda, NULL, m0,
                 TFCC_MIN(TFCC_QMR, m_end - m0), p0, p1);
  }
}

/* Both entry points: exactly one of y_f32 / y_u8 is set. */
static void qgemm(int64_t M, int64_t N, int64_t K, const uint8_t* A,
                  int64_t lda, int32_t a_zero_point, const int8_t* packed_b,
                  const float* scales, const float* bias, const float* residual,
                  int32_t activation, float alpha, float beta, float out_scale,
                  int32_t out_zero_point, float* y_f32, uint8_t* y_u8,
                  const im2col_ctx* gather, const qconv_direct* direct,
                  const qconv_pool* max_pool) {
  if (M <= 0 || N <= 0)
    return;
  qgemm_ctx c;
  c.uk = quk_for_packed_b(packed_b, K, N);
  c.fused = NULL;
  c.wide = 0;
#if TFCC_KERNELS_HAVE_AVX512
  if (c.uk == tfcc_quk_avx512vnni && tfcc_q_fused_supports(activation)) {
    c.fused = tfcc_quk_avx512vnni_fused;
    c.wide = K > 0 && TFCC_QNP_WIDE_ENABLED;
  }
#endif
#if TFCC_KERNELS_HAVE_AVX2
  if (c.uk == tfcc_quk_avxvnni && tfcc_q_fused_supports(activation))
    c.fused = tfcc_quk_avxvnni_fused;
  if (c.uk == tfcc_quk_avx2_pairs && tfcc_q_fused_supports(activation))
    c.fused = tfcc_quk_avx2_pairs_fused;
  if (c.uk == tfcc_quk_avx2 && tfcc_q_fused_supports(activation))
    c.fused = tfcc_quk_avx2_fused;
#endif
  c.epilogue = epilogue_for_isa(tfcc_kernels_isa());
  c.M = M;
  c.K = K < 0 ? 0 : K;
  c.groups = (c.K + 3) / 4;
  c.panels = (N + TFCC_RT_QGEMM_NR - 1) / TFCC_RT_QGEMM_NR;
  c.A = A;
  c.lda = lda;
  c.gather = gather;
  c.direct = direct;
  c.pool = max_pool;
  c.nseg = direct ? direct->kh : 0;
  c.seg_len = direct ? direct->seg : 0;
  c.seg_stride = direct ? direct->row_bytes : 0;
  c.B = packed_b;
  /* A gathered tile of short rows spans several micro-kernel tiles: the
   * gather's per-call cost is then shared (rows of 12 bytes: 8 x 8). */
  c.tile_rows =
      TFCC_QMR * (gather && lda > 0 ? TFCC_MAX(1, TFCC_MIN(8, 512 / lda)) : 1);
  c.tiles = (M + c.tile_rows - 1) / c.tile_rows;
  if (max_pool) { /* M = images * oh * ow; tile_rows: the gathered rows */
    const int64_t windows =
        M / (max_pool->oh * max_pool->ow) * max_pool->ohp * max_pool->owp;
    c.tile_rows = max_pool->ph * max_pool->per_task * max_pool->pw;
    c.tiles = (windows + max_pool->per_task - 1) / max_pool->per_task;
  }
  /* Column sums: int32 little endian after the panels (pack.c). */
  const uint8_t* sums =
      c.K > 0 ? (const uint8_t*)(packed_b +
                                 c.panels * c.groups * TFCC_RT_QGEMM_NR * 4)
              : NULL;
  c.ep = (tfcc_q_epilogue_args){
      .N = N,
      .colsums = sums,
      .a_zero_point = a_zero_point,
      .scales = scales,
      .bias = bias,
      .res = residual,
      .act = activation,
      .alpha = alpha,
      .beta = beta,
      .out_scale = out_scale,
      .out_zero_point = out_zero_point,
      .y_f32 = y_f32,
      .y_u8 = y_u8,
  };
  fold_epilogue(&c.ep);
  /* Blocks of panels that fit L2, smaller when there are too few row tiles
   * to give every thread work. */
  int64_t panel_bytes = c.groups * TFCC_RT_QGEMM_NR * 4;
  int64_t bp = panel_bytes > 0 ? qgemm_block_bytes() / panel_bytes : c.panels;
  tfcc_rt_pool* pool = tfcc_rt_get_current_pool();
  int64_t threads = pool ? tfcc_rt_pool_num_threads(pool) : 1;
  double macs = (double)M * (double)N * (double)c.K;
  int serial =
      threads <= 1 ||
      tfcc_small_work(2.0 * macs, 200.0,
                      (double)M * c.K + (double)c.panels * panel_bytes);
  if (!serial && c.tiles < 4 * threads) {
    int64_t want = (4 * threads + c.tiles - 1) / c.tiles;
    bp = TFCC_MIN(bp, (c.panels + want - 1) / want);
  }
  bp = (bp + TFCC_QNP - 1) / TFCC_QNP * TFCC_QNP;
  if (bp < TFCC_QNP)
    bp = TFCC_QNP;
  c.block_panels = bp;
  int64_t tasks = (c.panels + bp - 1) / bp * c.tiles;
  if (serial)
    qgemm_task(&c, 0, tasks, 0);
  else
    tfcc_rt_parallel_for(tasks, qgemm_task, &c);
}

void tfcc_rt_qgemm_u8s8_f32(int64_t M, int64_t N, int64_t K, const uint8_t* A,
                            int64_t lda, int32_t a_zero_point,
                            const int8_t* packed_b, const float* scales,
                            const float* bias, const float* residual,
                            int32_t activation, float alpha, float beta,
                            float* y) {
  qgemm(M, N, K, A, lda, a_zero_point, packed_b, scales, bias, residual,
        activation, alpha, beta, 1.0f, 0, y, NULL, NULL, NULL, NULL);
}

void tfcc_rt_qgemm_u8s8_u8(int64_t M, int64_t N, int64_t K, const uint8_t* A,
                           int64_t lda, int32_t a_zero_point,
                           const int8_t* packed_b, const float* scales,
                           const float* bias, const float* residual,
                           int32_t activation, float alpha, float beta,
                           float out_scale, int32_t out_zero_point,
                           uint8_t* y) {
  qgemm(M, N, K, A, lda, a_zero_point, packed_b, scales, bias, residual,
        activation, alpha, beta, out_scale, out_zero_point, NULL, y, NULL, NULL,
        NULL);
}

/* ---- im2col -------------------------------------------------------------- */

struct im2col_ctx {
  const uint8_t* x;
  int64_t h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
  uint8_t pad;
  int64_t ldc;
  uint8_t* cols;
};

/* The few bytes of a tap row of a thin input, copied or filled inline: a
 * libc call costs more than the copy (and a byte loop would be turned into
 * one), so 8 bytes at a time, then a tail of single stores. */
static inline void tail_bytes(uint8_t* dst, const uint8_t* src, uint8_t v,
                              int64_t n) {
  /* clang-format off */
  switch (n) {
  case 7: dst[6] = src ? src[6] : v; __attribute__((fallthrough));
  case 6: dst[5] = src ? src[5] : v; __attribute__((fallthrough));
  case 5: dst[4] = src ? src[4] : v; __attribute__((fallthrough));
  case 4: dst[3] = src ? src[3] : v; __attribute__((fallthrough));
  case 3: dst[2] = src ? src[2] : v; __attribute__((fallthrough));
  case 2: dst[1] = src ? src[1] : v; __attribute__((fallthrough));
  case 1: dst[0] = src ? src[0] : v; __attribute__((fallthrough));
  default: break;
  }
  /* clang-format on */
}

/* n bytes: from 4 on, two copies of a power of two that overlap in the
 * middle (no loop, no tail). */
static inline void copy_bytes(uint8_t* dst, const uint8_t* src, int64_t n) {
  if (n > 128) {
    memcpy(dst, src, (size_t)n);
  } else if (n >= 64) {
    memcpy(dst, src, 64);
    memcpy(dst + n - 64, src + n - 64, 64);
  } else if (n >= 32) {
    memcpy(dst, src, 32);
    memcpy(dst + n - 32, src + n - 32, 32);
  } else if (n >= 16) {
    memcpy(dst, src, 16);
    memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    tail_bytes(dst, src, 0, n);
  }
}

static inline void fill_bytes(uint8_t* dst, uint8_t v, int64_t n) {
  if (n >= 64) {
    memset(dst, v, (size_t)n);
    return;
  }
  uint64_t word = 0x0101010101010101ull * v;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    memcpy(dst + i, &word, 8);
  tail_bytes(dst + i, NULL, v, n - i);
}

/* Kernel rows the narrow and 16-byte gathers keep pointers to. */
#define IM2COL_NARROW_MAX_KH 16

/* The pixel's taps of one kernel row, x0 .. x0 + kw - 1 (some outside the
 * input: pad), one by one. */
static inline void taps_one_by_one(const im2col_ctx* p, const uint8_t* xrow,
                                   int64_t x0, uint8_t* d) {
  const int64_t c = p->c;
  for (int64_t j = 0; j < p->kw; ++j, d += c) {
    int64_t x = x0 + j * p->dw;
    if (x < 0 || x >= p->w)
      fill_bytes(d, p->pad, c);
    else
      memcpy(d, xrow + x * c, (size_t)c);
  }
}

/* The run of pixels from s on (at most s1 - s; window column x0 on, sw
 * apart) whose window lies inside the input row and whose read of `bytes`
 * bytes at row + x0 * c ends inside the image: the pixels a gather may
 * move with wide loads and no bounds checks. */
static inline int64_t im2col_run_inside(const im2col_ctx* p, const uint8_t* row,
                                        int64_t bytes, const uint8_t* image_end,
                                        int64_t x0, int64_t s, int64_t s1) {
  const int64_t spare = image_end - row - bytes; /* may be < 0 */
  /* No division for one channel or stride 1 (it cost more than a 3x3
   * one-channel gather of a short row). */
  const int64_t last_x0 =
      spare < 0 ? -1 : TFCC_MIN(p->w - p->kw, p->c == 1 ? spare : spare / p->c);
  if (last_x0 < x0)
    return 0;
  const int64_t steps = p->sw == 1 ? last_x0 - x0 : (last_x0 - x0) / p->sw;
  return TFCC_MIN(s1 - s, steps + 1);
}

/* The kernel rows of pixels whose window lies inside the input, each of
 * 8 to 16 bytes (a 3x3 window of 3 channels: 9, the first layer of an RGB
 * model): one 16-byte copy each, in order, the bytes past a kernel row
 * overwritten by the next one's, the last kernel row copied exactly; no
 * bounds checks per kernel row. rows[i] is kernel row i's input row. */
static void im2col_pixels_rows16(const im2col_ctx* p,
                                 const uint8_t* const* rows, int64_t x0,
                                 int64_t count, uint8_t* dst) {
  const int64_t c = p->c, kh = p->kh, span = p->kw * c, ldc = p->ldc;
  const int64_t step = p->sw * c, tail = ldc - kh * span;
  for (int64_t t = 0; t < count; ++t, dst += ldc) {
    const int64_t off = x0 * c + t * step;
    uint8_t* d = dst;
    for (int64_t i = 0; i + 1 < kh; ++i, d += span)
      memcpy(d, rows[i] + off, 16);
    copy_bytes(d, rows[kh - 1] + off, span);
    fill_bytes(d + span, 0, tail);
  }
}

/* Pixels [s0, s1) of output row `row` (a (b, r) pair) to dst (pixel s0's
 * GEMM row), pixel by pixel. With unit dilation along w, the kw taps of a
 * kernel row are kw * c contiguous bytes of the input: one copy when inside
 * it (inline up to 128 bytes: a 7x7 window of 3 channels copies 21 bytes a
 * kernel row). For wide inputs (c >= 16) and windows whose rows span 8
 * bytes or more. */
static void im2col_span_wide(const im2col_ctx* p, int64_t row, int64_t s0,
                             int64_t s1, uint8_t* dst) {
  const int64_t c = p->c, K = p->kh * p->kw * c, span = p->kw * c;
  int64_t b = row / p->oh, r = row % p->oh;
  const uint8_t* xb = p->x + b * p->h * p->w * c;
  /* Kernel rows of 8 to 16 bytes, all inside the input: runs of pixels by
   * im2col_pixels_rows16, as far as their 16-byte reads stay in the image. */
  const uint8_t* rows[IM2COL_NARROW_MAX_KH];
  int rows16 = p->dw == 1 && span >= 8 && span <= 16 && p->kh >= 2 &&
               p->kh <= IM2COL_NARROW_MAX_KH;
  for (int64_t i = 0; rows16 && i < p->kh; ++i) {
    const int64_t y = r * p->sh - p->pt + i * p->dh;
    if (y < 0 || y >= p->h)
      rows16 = 0;
    else
      rows[i] = xb + y * p->w * c;
  }
  for (int64_t s = s0; s < s1; ++s, dst += p->ldc) {
    int64_t x0 = s * p->sw - p->pl;
    int inside_w = x0 >= 0 && x0 + (p->kw - 1) * p->dw < p->w;
    if (rows16 && inside_w) {
      /* the 16-byte reads: of every kernel row but the last */
      const int64_t run = im2col_run_inside(p, rows[p->kh - 2], 16,
                                            xb + p->h * p->w * c, x0, s, s1);
      if (run > 0) {
        im2col_pixels_rows16(p, rows, x0, run, dst);
        s += run - 1;
        dst += (run - 1) * p->ldc;
        continue;
      }
    }
    uint8_t* d = dst;
    for (int64_t i = 0; i < p->kh; ++i) {
      int64_t y = r * p->sh - p->pt + i * p->dh;
      if (y < 0 || y >= p->h) {
        fill_bytes(d, p->pad, span);
        d += span;
        continue;
      }
      const uint8_t* xrow = xb + y * p->w * c;
      if (inside_w && p->dw == 1) {
        copy_bytes(d, xrow + x0 * c, span);
        d += span;
        continue;
      }
      taps_one_by_one(p, xrow, x0, d);
      d += span;
    }
    fill_bytes(d, 0, p->ldc - K);
  }
}

/* The same pixels for narrow windows (unit dilation along w, a kernel row of
 * at most 4 bytes: one channel, 3x3 or 4x4) with the geometry in locals:
 * a kernel row inside the input is one 4-byte load and store, in order,
 * each store's bytes past the row overwritten by the next kernel row's or
 * the zero tail (a third faster than the tap-by-tap gather below, see
 * docs/quantization.md). */

/* A pixel of three 3-byte kernel rows (a one-channel 3x3 window, the usual
 * first layer of a grey-image model) in a 12-byte GEMM row, all inside the
 * input: gathered in registers and written with one 8-byte and one 4-byte
 * store, the 3 tail bytes zero (2.5x faster than the kernel row by kernel
 * row moves below, docs/quantization.md). Each 4-byte load reads one byte
 * past its kernel row: the caller keeps that byte inside the image. */
static inline void narrow_3x3_pixel(const uint8_t* r0, const uint8_t* r1,
                                    const uint8_t* r2, uint8_t* d) {
  uint32_t a, b, c;
  memcpy(&a, r0, 4);
  memcpy(&b, r1, 4);
  memcpy(&c, r2, 4);
  const uint64_t lo = (uint64_t)(a & 0xFFFFFFu) |
                      (uint64_t)(b & 0xFFFFFFu) << 24 | (uint64_t)c << 48;
  const uint32_t hi = (c >> 16) & 0xFFu;
  memcpy(d, &lo, 8);
  memcpy(d + 8, &hi, 4);
}

static void im2col_span_narrow(const im2col_ctx* p, int64_t row, int64_t s0,
                               int64_t s1, uint8_t* dst) {
  const int64_t c = p->c, kh = p->kh, kw = p->kw, span = kw * c;
  const int64_t K = kh * span, ldc = p->ldc, sw = p->sw;
  const int64_t h = p->h, w = p->w, pl = p->pl;
  const uint8_t pad = p->pad;
  /* Whether the last kernel row's 4-byte store stays inside the row. */
  const int last_wide = K - span + 4 <= ldc;
  const int64_t b = row / p->oh, r = row % p->oh;
  const uint8_t* xb = p->x + b * h * w * c;
  const uint8_t* image_end = xb + h * w * c;
  /* Each kernel row's input row, or NULL where it is padding. */
  const uint8_t* rows[IM2COL_NARROW_MAX_KH];
  for (int64_t i = 0; i < kh; ++i) {
    const int64_t y = r * p->sh - p->pt + i * p->dh;
    rows[i] = y >= 0 && y < h ? xb + y * w * c : NULL;
  }
  const int rows_3x3 =
      kh == 3 && span == 3 && ldc == 12 && rows[0] && rows[1] && rows[2];
  for (int64_t s = s0; s < s1; ++s, dst += ldc) {
    const int64_t x0 = s * sw - pl;
    const int inside_w = x0 >= 0 && x0 + kw - 1 < w;
    if (rows_3x3 && inside_w) {
      /* The run of pixels from s on whose windows (and the byte past
       * them) are inside the image, without per-pixel checks. */
      const int64_t run =
          im2col_run_inside(p, rows[2], 4, image_end, x0, s, s1);
      const int64_t step = sw * c;
      const uint8_t *r0 = rows[0] + x0 * c, *r1 = rows[1] + x0 * c,
                    *r2 = rows[2] + x0 * c;
      int64_t t = 0;
#if TFCC_KERNELS_HAVE_AVX2
      /* Blocks of 4 pixels in vectors, as far as their 8-byte loads stay
       * in the image (one channel: step 1). */
      if (step == 1 && tfcc_kernels_isa() >= TFCC_ISA_AVX2) {
        const int64_t blocks =
            im2col_run_inside(p, rows[2], 8, image_end, x0, s, s1) / 4;
        tfcc_q_im2col_3x3c1_avx2(r0, r1, r2, blocks, dst);
        t = 4 * blocks;
        r0 += t, r1 += t, r2 += t;
      }
#endif
      for (; t < run; ++t, r0 += step, r1 += step, r2 += step)
        narrow_3x3_pixel(r0, r1, r2, dst + t * 12);
      if (run > 0) {
        s += run - 1;
        dst += (run - 1) * ldc;
        continue;
      }
    }
    uint8_t* d = dst;
    for (int64_t i = 0; i < kh; ++i, d += span) {
      if (!rows[i]) {
        fill_bytes(d, pad, span);
      } else if (!inside_w) {
        taps_one_by_one(p, rows[i], x0, d);
      } else {
        const uint8_t* src = rows[i] + x0 * c;
        if (src + 4 <= image_end && (i + 1 < kh || last_wide))
          memcpy(d, src, 4);
        else
          tail_bytes(d, src, 0, span);
      }
    }
    fill_bytes(d, 0, ldc - K);
  }
}

/* The same pixels tap by tap, for thin inputs (c < 16) whose kernel rows
 * are neither narrow nor 8 bytes or more: for tap (i, j) the pixels whose
 * input column is inside the image form one range of s, read at a fixed
 * stride (no per-pixel bounds checks; one channel is a strided byte
 * gather). */
static void im2col_span_thin(const im2col_ctx* p, int64_t row, int64_t s0,
                             int64_t s1, uint8_t* dst) {
  const int64_t c = p->c, K = p->kh * p->kw * c, ldc = p->ldc;
  int64_t b = row / p->oh, r = row % p->oh;
  const uint8_t* xb = p->x + b * p->h * p->w * c;
  dst -= s0 * ldc; /* indexed by s below */
  if (ldc > K)
    for (int64_t s = s0; s < s1; ++s)
      fill_bytes(dst + s * ldc + K, 0, ldc - K);
  for (int64_t i = 0; i < p->kh; ++i) {
    int64_t y = r * p->sh - p->pt + i * p->dh;
    for (int64_t j = 0; j < p->kw; ++j) {
      uint8_t* d = dst + (i * p->kw + j) * c;
      if (y < 0 || y >= p->h) {
        for (int64_t s = s0; s < s1; ++s)
          fill_bytes(d + s * ldc, p->pad, c);
        continue;
      }
      /* x = s * sw - pl + j * dw inside [0, w) for s in [lo, hi). */
      int64_t x0 = j * p->dw - p->pl;
      int64_t lo = x0 >= 0 ? 0 : (-x0 + p->sw - 1) / p->sw;
      int64_t hi = p->w - 1 - x0 < 0 ? 0 : (p->w - 1 - x0) / p->sw + 1;
      lo = TFCC_MIN(TFCC_MAX(lo, s0), s1);
      hi = TFCC_MAX(TFCC_MIN(hi, s1), lo);
      for (int64_t s = s0; s < lo; ++s)
        fill_bytes(d + s * ldc, p->pad, c);
      for (int64_t s = hi; s < s1; ++s)
        fill_bytes(d + s * ldc, p->pad, c);
      const uint8_t* src = xb + (y * p->w + x0) * c;
      if (c == 1) {
        for (int64_t s = lo; s < hi; ++s)
          d[s * ldc] = src[s * p->sw];
      } else {
        for (int64_t s = lo; s < hi; ++s)
          copy_bytes(d + s * ldc, src + s * p->sw * c, c);
      }
    }
  }
}

/* Pixels [s0, s1) of output row `row` to dst, by the path that suits the
 * geometry. */
static void im2col_span(const im2col_ctx* p, int64_t row, int64_t s0,
                        int64_t s1, uint8_t* dst) {
  if (p->dw == 1 && p->kw * p->c <= 4 && p->kh <= IM2COL_NARROW_MAX_KH)
    im2col_span_narrow(p, row, s0, s1, dst);
  else if (p->c >= 16 || (p->dw == 1 && p->kw * p->c >= 8))
    im2col_span_wide(p, row, s0, s1, dst);
  else
    im2col_span_thin(p, row, s0, s1, dst);
}

/* The GEMM rows of pixels [m0, m0 + count) (m = (b * oh + r) * ow + s) to
 * dst, ldc bytes apart: the rows a task of the fused convolution
 * multiplies. */
static void im2col_pixels(const im2col_ctx* p, int64_t m0, int64_t count,
                          uint8_t* dst) {
  int64_t row = m0 / p->ow, s = m0 % p->ow;
  while (count > 0) {
    const int64_t n = TFCC_MIN(count, p->ow - s);
    im2col_span(p, row, s, s + n, dst);
    dst += n * p->ldc;
    count -= n;
    ++row;
    s = 0;
  }
}

static void im2col_rows(void* vctx, int64_t begin, int64_t end,
                        int32_t thread) {
  (void)thread;
  const im2col_ctx* p = (const im2col_ctx*)vctx;
  for (int64_t row = begin; row < end; ++row)
    im2col_span(p, row, 0, p->ow, p->cols + row * p->ow * p->ldc);
}

void tfcc_rt_im2col_u8(const uint8_t* x, int64_t n, int64_t h, int64_t w,
                       int64_t c, int64_t kh, int64_t kw, int64_t stride_h,
                       int64_t stride_w, int64_t dil_h, int64_t dil_w,
                       int64_t pad_top, int64_t pad_left, int64_t oh,
                       int64_t ow, int32_t pad_value, int64_t ldc,
                       uint8_t* cols) {
  if (n <= 0 || oh <= 0 || ow <= 0)
    return;
  /* clang-format off */
  im2col_ctx ctx = {x, h, w, c, kh, kw, stride_h, stride_w, dil_h, dil_w,
                    pad_top, pad_left, oh, ow, (uint8_t)pad_value, ldc, cols};
  /* clang-format on */
  double bytes = (double)n * oh * ow * ldc;
  if (tfcc_small_work(0.0, 1.0, 2.0 * bytes))
    im2col_rows(&ctx, 0, n * oh, 0);
  else
    tfcc_rt_parallel_for(n * oh, im2col_rows, &ctx);
}

#ifndef TFCC_QCONV_DIRECT_COPY_BYTES
/* The most bytes of padded input qconv2d_direct copies per GEMM call. */
#define TFCC_QCONV_DIRECT_COPY_BYTES (64 * 1024)
#endif

/* Window rows [r0, r0 + rows) of images [b0, b0 + nb) of x, columns
 * [0, wp) (window row 0 is input row -pad_top, column 0 input column
 * -pad_left), the zero point where they are padding: rows of wp * c bytes,
 * image after image. */
static void qconv_pad_copy(const im2col_ctx* p, int64_t b0, int64_t nb,
                           int64_t r0, int64_t rows, int64_t wp, uint8_t* dst) {
  const int64_t c = p->c, pl = p->pl;
  /* The columns that hold input: [x_lo, x_hi) of the copy's wp. */
  const int64_t x_lo = TFCC_MIN(pl, wp);
  const int64_t x_hi = TFCC_MAX(x_lo, TFCC_MIN(wp, pl + p->w));
  for (int64_t b = b0; b < b0 + nb; ++b)
    for (int64_t r = r0; r < r0 + rows; ++r, dst += wp * c) {
      const int64_t y = r - p->pt;
      if (y < 0 || y >= p->h) {
        memset(dst, p->pad, (size_t)(wp * c));
        continue;
      }
      memset(dst, p->pad, (size_t)(x_lo * c));
      memcpy(dst + x_lo * c, p->x + ((b * p->h + y) * p->w + x_lo - pl) * c,
             (size_t)((x_hi - x_lo) * c));
      memset(dst + x_hi * c, p->pad, (size_t)((wp - x_hi) * c));
    }
}

#ifndef TFCC_QCONV_REPACK_BYTES
/* The most weight bytes (K x N) qconv2d_direct repacks for thin rows. */
#define TFCC_QCONV_REPACK_BYTES (16 * 1024)
#endif

/* The copy, the plain and repacked thin-row weights (the packed form: at
 * most ~1.3x the plain one), and the rest of the call. */
_Static_assert(TFCC_QCONV_DIRECT_COPY_BYTES + 3 * TFCC_QCONV_REPACK_BYTES +
                       16 * 1024 <=
                   TFCC_RT_KERNEL_STACK_BYTES,
               "qconv2d_direct's buffers exceed TFCC_RT_KERNEL_STACK_BYTES");

/* The convolution with A read in place from the image by a micro-kernel
 * that reads its rows in segments (one per kernel row): no im2col. Where
 * the windows reach padding, the windows' rows are copied with their
 * padding first, TFCC_QCONV_DIRECT_COPY_BYTES at most at a time: whole
 * images, or bands of output rows of one image, a GEMM call each. Kernel
 * rows of fewer than 4 bytes (one channel: a grey image's first layer) are
 * read as 4 (the next bytes, times weights repacked with zeros there) where
 * the windows reach padding, from the copy (the last pixel's read passes
 * its window). Returns 0, having done nothing, where the geometry or the
 * micro-kernel does not allow it: dilation, kernel rows of more than 4
 * bytes that are not a multiple of 4 (segments of whole groups), thin rows
 * without padding, rows padded past the window, one output row's windows
 * over the copy limit, thin-row weights over TFCC_QCONV_REPACK_BYTES. */
static int qconv2d_direct(const im2col_ctx* p, int64_t n, int64_t ph,
                          int64_t pw, const int8_t* packed_b, int64_t N,
                          const float* scales, const float* bias,
                          const float* residual, int32_t activation,
                          float alpha, float beta, float out_scale,
                          int32_t out_zero_point, float* y_f32, uint8_t* y_u8) {
  const int64_t c = p->c, oh = p->oh, ow = p->ow, span = p->kw * c;
  const int thin = span < 4;
  const int64_t seg = thin ? 4 : span, K = p->kh * seg;
  if (p->dh != 1 || p->dw != 1 || seg % 4 != 0 ||
      p->ldc != (thin ? (p->kh * span + 3) / 4 * 4 : K) ||
      (thin && K * N > TFCC_QCONV_REPACK_BYTES))
    return 0;
  /* The window rows and columns the outputs read. */
  const int64_t hp = (oh - 1) * p->sh + p->kh, wp = (ow - 1) * p->sw + p->kw;
  const int inside = p->pt == 0 && p->pl == 0 && hp <= p->h && wp <= p->w;
  /* Thin rows without padding: the gather's vector path is faster than
   * the copy and the one-group segments (3.2-3.6 against 3.4-3.9 us for a
   * 26x26 one-channel 3x3 layer, EMR); with padding, its border pixels go
   * tap by tap and the copy is faster (5.7-6.3 against 3.9-4.3 us, 28x28).
   * Decided before the weights are widened, which that path never reads. */
  if (thin && inside)
    return 0;
  _Alignas(64) int8_t repacked[thin ? tfcc_rt_qgemm_packed_b_size(K, N) : 1];
  if (thin) {
    /* Kernel row i's span bytes from (i, j, channel) order, widened to 4. */
    tfcc_q_qgemm_widen_rows(packed_b, p->ldc, N, p->kh, span, repacked);
    packed_b = repacked;
  }
  if (!quk_reads_segments(quk_for_packed_b(packed_b, K, N)))
    return 0;
  const int in_place = inside;
  const int64_t row_bytes = wp * c, image_bytes = hp * row_bytes;
  qconv_direct d = {p->x,  p->h * p->w * c, p->w * c, c,  p->kh, p->kw,
                    p->sh, p->sw,           oh,       ow, seg};
  const int pooled = ph != 1 || pw != 1;
  qconv_pool pool = qconv_pool_of(ph, pw, oh, ow, 0);
  if (in_place) {
    qgemm(n * oh * ow, N, K, NULL, p->sw * c, p->pad, packed_b, scales, bias,
          residual, activation, alpha, beta, out_scale, out_zero_point, y_f32,
          y_u8, NULL, &d, pooled ? &pool : NULL);
    return 1;
  }
  /* Whole images per copy, or else bands of `band` output rows (whole
   * windows' rows when pooled). */
  const int64_t images = TFCC_QCONV_DIRECT_COPY_BYTES / image_bytes;
  int64_t band =
      images > 0
          ? oh
          : (TFCC_QCONV_DIRECT_COPY_BYTES / row_bytes - p->kh) / p->sh + 1;
  if (images == 0)
    band = band / ph * ph;
  if (band < 1)
    return 0;
  const int64_t per_copy = TFCC_MAX(images, 1);
  /* Thin rows: the last window's last kernel row reads seg - span bytes
   * past the copy (times zero weights; set, so that they are defined). */
  const int64_t slack = seg - span;
  _Alignas(64)
      uint8_t copy[(images > 0 ? TFCC_MIN(n, images) * image_bytes
                               : ((band - 1) * p->sh + p->kh) * row_bytes) +
                   slack];
  d.image = copy;
  d.row_bytes = row_bytes;
  for (int64_t b0 = 0; b0 < n; b0 += per_copy) {
    const int64_t nb = TFCC_MIN(per_copy, n - b0);
    for (int64_t r0 = 0; r0 < oh; r0 += band) {
      const int64_t rows = TFCC_MIN(band, oh - r0);
      const int64_t window_rows = (rows - 1) * p->sh + p->kh;
      /* The band's first output (pooled: its first pooled row's). */
      const int64_t m0 =
          pooled ? (b0 * pool.ohp + r0 / ph) * pool.owp : (b0 * oh + r0) * ow;
      qconv_pad_copy(p, b0, nb, r0 * p->sh, window_rows, wp, copy);
      memset(copy + nb * window_rows * row_bytes, p->pad, (size_t)slack);
      d.image_bytes = window_rows * row_bytes;
      d.oh = rows;
      pool = qconv_pool_of(ph, pw, rows, ow, 0);
      qgemm(nb * rows * ow, N, K, NULL, p->sw * c, p->pad, packed_b, scales,
            bias, residual ? residual + m0 * N : NULL, activation, alpha, beta,
            out_scale, out_zero_point, y_f32 ? y_f32 + m0 * N : NULL,
            y_u8 ? y_u8 + m0 * N : NULL, NULL, &d, pooled ? &pool : NULL);
    }
  }
  return 1;
}

/* The convolution with the im2col fused into the GEMM's tasks (no cols
 * buffer: each task gathers its tile's rows into L1 on its stack, and one
 * parallel call does both). */
static void qconv2d(const uint8_t* x, int64_t n, int64_t h, int64_t w,
                    int64_t c, int64_t kh, int64_t kw, int64_t stride_h,
                    int64_t stride_w, int64_t dil_h, int64_t dil_w,
                    int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow,
                    int64_t ph, int64_t pw, int64_t ldc, int32_t x_zero_point,
                    const int8_t* packed_b, int64_t N, const float* scales,
                    const float* bias, const float* residual,
                    int32_t activation, float alpha, float beta,
                    float out_scale, int32_t out_zero_point, float* y_f32,
                    uint8_t* y_u8) {
  _Static_assert(TFCC_QMR * TFCC_RT_QCONV_MAX_LDC + 4096 <=
                     TFCC_RT_KERNEL_STACK_BYTES,
                 "the gathered rows exceed TFCC_RT_KERNEL_STACK_BYTES");
  if (n <= 0 || oh <= 0 || ow <= 0 || ldc < kh * kw * c ||
      ldc > TFCC_RT_QCONV_MAX_LDC)
    return;
  const int pooled = ph != 1 || pw != 1;
  if (pooled &&
      (!TFCC_RT_QCONV_POOL_SUPPORTED(ph, pw) || residual || oh < ph || ow < pw))
    return;
  /* clang-format off */
  im2col_ctx ctx = {x, h, w, c, kh, kw, stride_h, stride_w, dil_h, dil_w,
                    pad_top, pad_left, oh, ow, (uint8_t)x_zero_point, ldc,
                    NULL};
  /* clang-format on */
  if (qconv2d_direct(&ctx, n, ph, pw, packed_b, N, scales, bias, residual,
                     activation, alpha, beta, out_scale, out_zero_point, y_f32,
                     y_u8))
    return;
  const qconv_pool pool = qconv_pool_of(ph, pw, oh, ow, ldc);
  qgemm(n * oh * ow, N, ldc, NULL, ldc, x_zero_point, packed_b, scales, bias,
        residual, activation, alpha, beta, out_scale, out_zero_point, y_f32,
        y_u8, &ctx, NULL, pooled ? &pool : NULL);
}

void tfcc_rt_qconv2d_u8s8_f32(const uint8_t* x, int64_t n, int64_t h, int64_t w,
                              int64_t c, int64_t kh, int64_t kw,
                              int64_t stride_h, int64_t stride_w, int64_t dil_h,
                              int64_t dil_w, int64_t pad_top, int64_t pad_left,
                              int64_t oh, int64_t ow, int64_t pool_h,
                              int64_t pool_w, int64_t ldc, int32_t x_zero_point,
                              const int8_t* packed_b, int64_t N,
                              const float* scales, const float* bias,
                              const float* residual, int32_t activation,
                              float alpha, float beta, float* y) {
  qconv2d(x, n, h, w, c, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
          pad_left, oh, ow, pool_h, pool_w, ldc, x_zero_point, packed_b, N,
          scales, bias, residual, activation, alpha, beta, 1.0f, 0, y, NULL);
}

void tfcc_rt_qconv2d_u8s8_u8(
    const uint8_t* x, int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
    int64_t kw, int64_t stride_h, int64_t stride_w, int64_t dil_h,
    int64_t dil_w, int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow,
    int64_t pool_h, int64_t pool_w, int64_t ldc, int32_t x_zero_point,
    const int8_t* packed_b, int64_t N, const float* scales, const float* bias,
    const float* residual, int32_t activation, float alpha, float beta,
    float out_scale, int32_t out_zero_point, uint8_t* y) {
  qconv2d(x, n, h, w, c, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
          pad_left, oh, ow, pool_h, pool_w, ldc, x_zero_point, packed_b, N,
          scales, bias, residual, activation, alpha, beta, out_scale,
          out_zero_point, NULL, y);
}
