/* batch_norm.c - the per-channel reductions of training batch norm, over x
 * viewed as [rows, c] with the channels innermost:
 *   graph.moments               mean and biased variance, in one pass over
 *                               x - shift with shift = the first row (a
 *                               sample, so |mean - shift| is of the order of
 *                               the deviation and var = E[(x - shift)^2] -
 *                               (mean - shift)^2 loses about one bit);
 *   graph.batch_norm_grad_sums  sum of dy and of dy * (x - mean) (one pass).
 *
 * The rows are split into a fixed number of blocks that depends on the shape
 * only, never on the thread count, so every thread count gives the same
 * bits. A block sums runs of kRun rows in float (vectorized across channels)
 * and adds each run to a double accumulator; the blocks' partials are added
 * in block order in double. Channels go in groups whose partials fit a stack
 * buffer: nothing is allocated.
 */
#include "kernels_internal.h"

enum {
  kRun = 64,       /* rows summed in float before going to double */
  kTile = 64,      /* channels per inner loop */
  kMaxBlocks = 16, /* row blocks (tasks) */
  kPartial = 4096  /* doubles of per-block partials on the stack */
};

typedef enum { SUM_SHIFTED_AND_SQUARES, SUM_DY_AND_DY_XC } sums_mode;

typedef struct channel_sums_args {
  const float* x;
  const float* dy;   /* SUM_DY_AND_DY_XC */
  const float* mean; /* per channel: the shift, or the mean */
  int64_t rows, c;
  int64_t c0, cn; /* this channel group */
  int64_t block_rows;
  sums_mode mode;
  int nout;        /* 2 */
  double* partial; /* [block][nout][cn] */
} channel_sums_args;

static void sum_block(const channel_sums_args* p, int64_t block) {
  int64_t r0 = block * p->block_rows;
  int64_t r1 = TFCC_MIN(p->rows, r0 + p->block_rows);
  double* part = p->partial + block * p->nout * p->cn;
  int64_t t0, r, rr, k;
  for (t0 = 0; t0 < p->cn; t0 += kTile) {
    int64_t tn = TFCC_MIN((int64_t)kTile, p->cn - t0);
    int64_t col = p->c0 + t0;
    const float* m = p->mean ? p->mean + col : 0;
    double d0[kTile], d1[kTile];
    float f0[kTile], f1[kTile];
    for (k = 0; k < tn; ++k) d0[k] = d1[k] = 0.0;
    for (r = r0; r < r1; r += kRun) {
      int64_t re = TFCC_MIN(r1, r + kRun);
      for (k = 0; k < tn; ++k) f0[k] = f1[k] = 0.0f;
      switch (p->mode) {
        case SUM_SHIFTED_AND_SQUARES:
          for (rr = r; rr < re; ++rr) {
            const float* xr = p->x + rr * p->c + col;
            for (k = 0; k < tn; ++k) {
              float d = xr[k] - m[k];
              f0[k] += d;
              f1[k] += d * d;
            }
          }
          break;
        case SUM_DY_AND_DY_XC:
          for (rr = r; rr < re; ++rr) {
            const float* xr = p->x + rr * p->c + col;
            const float* g = p->dy + rr * p->c + col;
            for (k = 0; k < tn; ++k) {
              f0[k] += g[k];
              f1[k] += g[k] * (xr[k] - m[k]);
            }
          }
          break;
      }
      for (k = 0; k < tn; ++k) {
        d0[k] += f0[k];
        d1[k] += f1[k];
      }
    }
    for (k = 0; k < tn; ++k) {
      part[t0 + k] = d0[k];
      if (p->nout == 2) part[p->cn + t0 + k] = d1[k];
    }
  }
}

static void sum_blocks(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  int64_t b;
  (void)thread;
  for (b = begin; b < end; ++b) sum_block((const channel_sums_args*)ctx, b);
}

/* out[o * c + k] = sum over rows of term o of channel k, scaled by `scale`. */
static void channel_sums(channel_sums_args* p, double scale, float* out) {
  double partial[kPartial];
  int64_t blocks, group, k, b, o;
  if (p->rows <= 0 || p->c <= 0) {
    for (k = 0; k < p->nout * p->c; ++k) out[k] = 0.0f;
    return;
  }
  blocks = TFCC_MIN((int64_t)kMaxBlocks, (p->rows + kRun - 1) / kRun);
  p->block_rows = (p->rows + blocks - 1) / blocks;
  blocks = (p->rows + p->block_rows - 1) / p->block_rows;
  group = kPartial / (p->nout * blocks);
  p->partial = partial;
  for (p->c0 = 0; p->c0 < p->c; p->c0 += group) {
    p->cn = TFCC_MIN(group, p->c - p->c0);
    if (p->rows * p->cn < 32768)
      sum_blocks(p, 0, blocks, 0);
    else
      tfcc_rt_parallel_for(blocks, sum_blocks, p);
    for (o = 0; o < p->nout; ++o)
      for (k = 0; k < p->cn; ++k) {
        double s = 0.0;
        for (b = 0; b < blocks; ++b) s += partial[(b * p->nout + o) * p->cn + k];
        out[o * p->c + p->c0 + k] = (float)(s * scale);
      }
  }
}

void tfcc_rt_channel_moments_f32(const float* x, int64_t rows, int64_t c,
                                 float* moments) {
  channel_sums_args p = {0};
  double inverse = rows > 0 ? 1.0 / (double)rows : 0.0;
  int64_t k;
  p.x = x;
  p.rows = rows;
  p.c = c;
  p.nout = 2;
  p.mode = SUM_SHIFTED_AND_SQUARES;
  p.mean = x; /* the shift: row 0 */
  /* Row 0: E[x - shift]; row 1: E[(x - shift)^2]. */
  channel_sums(&p, inverse, moments);
  for (k = 0; k < c && rows > 0; ++k) {
    double d = moments[k], squares = moments[c + k];
    double variance = squares - d * d;
    moments[k] = (float)((double)x[k] + d);
    moments[c + k] = (float)(variance > 0.0 ? variance : 0.0);
  }
}

void tfcc_rt_batch_norm_grad_sums_f32(const float* x, const float* dy,
                                      const float* moments, int64_t rows,
                                      int64_t c, float* sums) {
  channel_sums_args p = {0};
  p.x = x;
  p.dy = dy;
  p.mean = moments;
  p.rows = rows;
  p.c = c;
  p.nout = 2;
  p.mode = SUM_DY_AND_DY_XC;
  channel_sums(&p, 1.0, sums);
}
