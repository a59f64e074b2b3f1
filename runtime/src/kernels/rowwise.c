/* rowwise.c - row-wise kernels: layer normalization and (log-)softmax over
 * the last, contiguous axis.
 *
 * One task per row, split across the current pool when there is enough work.
 * Each row runs the function of the ISA level (chosen at run time): the
 * AVX-512 intrinsics (ukernel_avx512.c) or the portable vector rows
 * (rowwise_vec.inc, per level): sums in two vector accumulators, a
 * polynomial exp. Softmax subtracts the row maximum first (no overflow).
 */
#include "kernels_internal.h"


typedef struct row_args {
  const float* x;
  int64_t cols;
  const float* gamma;
  const float* beta;
  float epsilon;
  int32_t log_softmax;
  float* y;
  /* The row function of the ISA level (the AVX-512 intrinsics of
   * ukernel_avx512.c or rowwise_vec.inc per level), chosen once per call. */
  void (*softmax_row)(const float*, int64_t, int32_t, float*);
  void (*layer_norm_row)(const float*, int64_t, const float*, const float*,
                         float, float*);
} row_args;

static void layer_norm_rows(void* ctx, int64_t begin, int64_t end,
                            int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  (void)thread;
  for (int64_t r = begin; r < end; ++r)
    p->layer_norm_row(p->x + r * p->cols, p->cols, p->gamma, p->beta,
                      p->epsilon, p->y + r * p->cols);
}

static void softmax_rows(void* ctx, int64_t begin, int64_t end,
                         int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  (void)thread;
  for (int64_t r = begin; r < end; ++r)
    p->softmax_row(p->x + r * p->cols, p->cols, p->log_softmax,
                   p->y + r * p->cols);
}

static void run_rows(void (*fn)(void*, int64_t, int64_t, int32_t),
                     row_args* p, int64_t rows) {
  /* Split only when the rows add up to real work (~50 us single-threaded). */
  if (rows < 2 || rows * p->cols < (1 << 16))
    fn(p, 0, rows, 0);
  else
    tfcc_rt_parallel_for(rows, fn, p);
}

void tfcc_rt_layer_norm_f32(const float* x, int64_t rows, int64_t cols,
                            const float* gamma, const float* beta,
                            float epsilon, float* y) {
  row_args p;
  if (rows <= 0 || cols <= 0) return;
  p.x = x;
  p.cols = cols;
  p.gamma = gamma;
  p.beta = beta;
  p.epsilon = epsilon;
  p.log_softmax = 0;
  p.y = y;
  p.layer_norm_row = TFCC_FOR_ISA(tfcc_kernels_isa(), tfcc_layer_norm_row_avx512,
                                  tfcc_layer_norm_row_avx2,
                                  tfcc_layer_norm_row_base);
  run_rows(layer_norm_rows, &p, rows);
}

void tfcc_rt_softmax_f32(const float* x, int64_t rows, int64_t cols,
                         int32_t log_softmax, float* y) {
  row_args p;
  if (rows <= 0 || cols <= 0) return;
  p.x = x;
  p.cols = cols;
  p.gamma = NULL;
  p.beta = NULL;
  p.epsilon = 0.0f;
  p.log_softmax = log_softmax;
  p.y = y;
  p.softmax_row = TFCC_FOR_ISA(tfcc_kernels_isa(), tfcc_softmax_row_avx512,
                               tfcc_softmax_row_avx2, tfcc_softmax_row_base);
  run_rows(softmax_rows, &p, rows);
}
