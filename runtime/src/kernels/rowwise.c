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
} row_args;

/* The row functions of each ISA level: the AVX-512 intrinsics
 * (ukernel_avx512.c) or the portable rows (rowwise_vec.inc per level). */
typedef void (*softmax_row_fn)(const float*, int64_t, int32_t, float*);
typedef void (*layer_norm_row_fn)(const float*, int64_t, const float*,
                                  const float*, float, float*);

static softmax_row_fn softmax_row_for_isa(int isa) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  if (isa == TFCC_ISA_AVX512)
    return tfcc_softmax_row_avx512;
  if (isa == TFCC_ISA_AVX2)
    return tfcc_softmax_row_avx2;
#endif
  (void)isa;
  return tfcc_softmax_row_base;
}

static layer_norm_row_fn layer_norm_row_for_isa(int isa) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  if (isa == TFCC_ISA_AVX512)
    return tfcc_layer_norm_row_avx512;
  if (isa == TFCC_ISA_AVX2)
    return tfcc_layer_norm_row_avx2;
#endif
  (void)isa;
  return tfcc_layer_norm_row_base;
}

static void layer_norm_rows(void* ctx, int64_t begin, int64_t end,
                            int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  const layer_norm_row_fn row = layer_norm_row_for_isa(tfcc_kernels_isa());
  (void)thread;
  for (int64_t r = begin; r < end; ++r)
    row(p->x + r * p->cols, p->cols, p->gamma, p->beta, p->epsilon,
        p->y + r * p->cols);
}

static void softmax_rows(void* ctx, int64_t begin, int64_t end,
                         int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  const softmax_row_fn row = softmax_row_for_isa(tfcc_kernels_isa());
  (void)thread;
  for (int64_t r = begin; r < end; ++r)
    row(p->x + r * p->cols, p->cols, p->log_softmax, p->y + r * p->cols);
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
  run_rows(softmax_rows, &p, rows);
}
