/* top_k.c - the indices of the k best elements of each row.
 *
 * A stable selection per row: the kept indices stay sorted best first in
 * `indices` itself (no scratch memory); each element that beats the worst
 * kept one is inserted after the kept ones it does not beat, so equal values
 * keep their index order (ONNX TopK's tie rule). O(cols * k) at worst (an
 * ascending row for largest = 1), O(cols) when few elements beat the k-th.
 * NaN is never selected over a number, and a row of NaN keeps index order.
 */
#include "kernels_internal.h"

/* Whether a beats b: larger (largest) or smaller; NaN beats nothing and
 * every number beats NaN. */
static int beats(float a, float b, int32_t largest) {
  if (a != a) return 0;
  if (b != b) return 1;
  return largest ? a > b : a < b;
}

void tfcc_rt_top_k_indices_f32(const float* x, int64_t rows, int64_t cols,
                               int64_t k, int32_t largest, int64_t* indices) {
  if (rows <= 0 || k <= 0 || cols < k) return;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    int64_t* kept = indices + r * k;
    int64_t count = 0;
    for (int64_t j = 0; j < cols; ++j) {
      float v = row[j];
      if (count == k && !beats(v, row[kept[k - 1]], largest)) continue;
      /* The first kept position v beats: binary search (the kept values are
       * ordered best first, so "v beats kept[p]" is false then true). */
      int64_t lo = 0, hi = count;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (beats(v, row[kept[mid]], largest))
          hi = mid;
        else
          lo = mid + 1;
      }
      int64_t last = count < k ? count : k - 1;
      for (int64_t p = last; p > lo; --p) kept[p] = kept[p - 1];
      kept[lo] = j;
      if (count < k) ++count;
    }
  }
}
