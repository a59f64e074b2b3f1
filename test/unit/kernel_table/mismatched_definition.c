/* A definition of a table kernel whose parameter differs from its entry in
 * tfcc_kernels.def (cols is int32_t here, int64_t in the table): must not
 * compile, as a kernel source with that mistake would not (check.sh). */
#include "tfcc/tfcc_kernels.h"

void tfcc_rt_softmax_f32(const float* x, int64_t rows, int32_t cols,
                         int32_t log_softmax, float* y) {
  (void)x, (void)rows, (void)cols, (void)log_softmax, (void)y;
}
