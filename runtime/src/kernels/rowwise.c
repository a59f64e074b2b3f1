/* rowwise.c - row-wise kernels: layer normalization and (log-)softmax over
 * the last, contiguous axis.
 *
 * One task per row, split across the current pool when there is enough work.
 * Portable path: float accumulations in row order, like the lowering they
 * replace, libm's expf. AVX-512 path (chosen at run time, ukernel_avx512.c):
 * 16-lane vectors, sums in two vector accumulators, a polynomial exp.
 * Softmax subtracts the row maximum first (no overflow).
 */
#include "kernels_internal.h"

#include <math.h>

typedef struct row_args {
  const float* x;
  int64_t cols;
  const float* gamma;
  const float* beta;
  float epsilon;
  int32_t log_softmax;
  float* y;
} row_args;

#define TFCC_LAYER_NORM_BODY                                                  \
  const row_args* p = (const row_args*)ctx;                                   \
  int64_t row, k, n = p->cols;                                                \
  (void)thread;                                                               \
  for (row = begin; row < end; ++row) {                                       \
    const float* x = p->x + row * n;                                          \
    float* y = p->y + row * n;                                                \
    float sum = 0.0f, sq = 0.0f, mean, inv;                                   \
    for (k = 0; k < n; ++k) sum += x[k];                                      \
    mean = sum / (float)n;                                                    \
    for (k = 0; k < n; ++k) {                                                 \
      float d = x[k] - mean;                                                  \
      sq += d * d;                                                            \
    }                                                                         \
    inv = 1.0f / sqrtf(sq / (float)n + p->epsilon);                           \
    for (k = 0; k < n; ++k)                                                   \
      y[k] = (x[k] - mean) * inv * (p->gamma ? p->gamma[k] : 1.0f) +          \
             (p->beta ? p->beta[k] : 0.0f);                                   \
  }

#define TFCC_SOFTMAX_BODY                                                     \
  const row_args* p = (const row_args*)ctx;                                   \
  int64_t row, k, n = p->cols;                                                \
  (void)thread;                                                               \
  for (row = begin; row < end; ++row) {                                       \
    const float* x = p->x + row * n;                                          \
    float* y = p->y + row * n;                                                \
    float max = x[0], sum = 0.0f;                                             \
    for (k = 1; k < n; ++k) max = x[k] > max ? x[k] : max;                    \
    for (k = 0; k < n; ++k) {                                                 \
      float e = expf(x[k] - max);                                             \
      sum += e;                                                               \
      if (!p->log_softmax) y[k] = e;                                          \
    }                                                                         \
    if (p->log_softmax) {                                                     \
      float shift = max + logf(sum);                                          \
      for (k = 0; k < n; ++k) y[k] = x[k] - shift;                            \
    } else {                                                                  \
      float inv = 1.0f / sum;                                                 \
      for (k = 0; k < n; ++k) y[k] *= inv;                                    \
    }                                                                         \
  }

static void layer_norm_rows_generic(void* ctx, int64_t begin, int64_t end,
                                    int32_t thread) {
  TFCC_LAYER_NORM_BODY
}
static void softmax_rows_generic(void* ctx, int64_t begin, int64_t end,
                                 int32_t thread) {
  TFCC_SOFTMAX_BODY
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define TFCC_ROW_AVX512 1
static void layer_norm_rows_avx512(void* ctx, int64_t begin, int64_t end,
                                   int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  (void)thread;
  for (int64_t row = begin; row < end; ++row)
    tfcc_layer_norm_row_avx512(p->x + row * p->cols, p->cols, p->gamma,
                               p->beta, p->epsilon, p->y + row * p->cols);
}
static void softmax_rows_avx512(void* ctx, int64_t begin, int64_t end,
                                int32_t thread) {
  const row_args* p = (const row_args*)ctx;
  (void)thread;
  for (int64_t row = begin; row < end; ++row)
    tfcc_softmax_row_avx512(p->x + row * p->cols, p->cols, p->log_softmax,
                            p->y + row * p->cols);
}
#endif

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
  void (*fn)(void*, int64_t, int64_t, int32_t) = layer_norm_rows_generic;
  if (rows <= 0 || cols <= 0) return;
  p.x = x;
  p.cols = cols;
  p.gamma = gamma;
  p.beta = beta;
  p.epsilon = epsilon;
  p.log_softmax = 0;
  p.y = y;
#ifdef TFCC_ROW_AVX512
  if (tfcc_kernels_isa() == TFCC_ISA_AVX512) fn = layer_norm_rows_avx512;
#endif
  run_rows(fn, &p, rows);
}

void tfcc_rt_softmax_f32(const float* x, int64_t rows, int64_t cols,
                         int32_t log_softmax, float* y) {
  row_args p;
  void (*fn)(void*, int64_t, int64_t, int32_t) = softmax_rows_generic;
  if (rows <= 0 || cols <= 0) return;
  p.x = x;
  p.cols = cols;
  p.gamma = NULL;
  p.beta = NULL;
  p.epsilon = 0.0f;
  p.log_softmax = log_softmax;
  p.y = y;
#ifdef TFCC_ROW_AVX512
  if (tfcc_kernels_isa() == TFCC_ISA_AVX512) fn = softmax_rows_avx512;
#endif
  run_rows(fn, &p, rows);
}
