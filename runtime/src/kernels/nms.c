/* nms.c - greedy non-maximum suppression (ONNX NonMaxSuppression).
 *
 * No scratch memory: each class picks its boxes in rank order (score
 * descending, box index ascending) by scanning for the best candidate ranked
 * below the last pick, keeping it unless a kept box overlaps it above the
 * threshold. The kept boxes of the class are the rows written so far, so
 * the overlap test reads them back from `selected`. O(n * kept) per class.
 */
#include "kernels_internal.h"

/* Corners [ymin, xmin, ymax, xmax] of a box. */
static void corners(const float* box, int32_t center_point_box, float c[4]) {
  if (center_point_box) {
    float half_w = box[2] / 2.0f, half_h = box[3] / 2.0f;
    c[0] = box[1] - half_h;
    c[1] = box[0] - half_w;
    c[2] = box[1] + half_h;
    c[3] = box[0] + half_w;
  } else {
    c[0] = box[0] < box[2] ? box[0] : box[2];
    c[1] = box[1] < box[3] ? box[1] : box[3];
    c[2] = box[0] < box[2] ? box[2] : box[0];
    c[3] = box[1] < box[3] ? box[3] : box[1];
  }
}

/* Whether IoU(a, b) > threshold; a box of no area suppresses nothing. */
static int overlaps_above(const float a[4], const float b[4], float threshold) {
  float ih = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
  float iw = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
  if (ih <= 0.0f || iw <= 0.0f) return 0;
  float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0.0f || area_b <= 0.0f) return 0;
  float inter = ih * iw, uni = area_a + area_b - inter;
  return uni > 0.0f && inter / uni > threshold;
}

/* Whether box i ranks below box j (score descending, then index). */
static int ranks_below(const float* score, int64_t i, int64_t j) {
  return score[i] < score[j] || (score[i] == score[j] && i > j);
}

void tfcc_rt_non_max_suppression_f32(const float* boxes, const float* scores,
                                     int64_t batches, int64_t classes,
                                     int64_t n, int64_t max_per_class,
                                     float iou_threshold,
                                     float score_threshold,
                                     int32_t has_score_threshold,
                                     int32_t center_point_box,
                                     int64_t* selected) {
  int64_t per_class = max_per_class < n ? max_per_class : n;
  int64_t rows = batches * classes * per_class, out = 0;
  if (per_class > 0) {
    for (int64_t b = 0; b < batches; ++b) {
      const float* batch_boxes = boxes + b * n * 4;
      for (int64_t c = 0; c < classes; ++c) {
        const float* score = scores + (b * classes + c) * n;
        int64_t first = out, last = -1;
        while (out - first < per_class) {
          int64_t best = -1;
          for (int64_t i = 0; i < n; ++i) {
            if (score[i] != score[i]) continue; /* NaN is never a candidate */
            if (has_score_threshold && !(score[i] > score_threshold)) continue;
            if (last >= 0 && !ranks_below(score, i, last)) continue;
            if (best < 0 || ranks_below(score, best, i)) best = i;
          }
          if (best < 0) break;
          last = best;
          float box[4];
          corners(batch_boxes + best * 4, center_point_box, box);
          int suppressed = 0;
          for (int64_t k = first; k < out && !suppressed; ++k) {
            float kept[4];
            const float* kept_box = batch_boxes + selected[k * 3 + 2] * 4;
            corners(kept_box, center_point_box, kept);
            suppressed = overlaps_above(kept, box, iou_threshold);
          }
          if (suppressed) continue;
          selected[out * 3] = b;
          selected[out * 3 + 1] = c;
          selected[out * 3 + 2] = best;
          ++out;
        }
      }
    }
  }
  for (int64_t k = out * 3; k < rows * 3; ++k) selected[k] = -1;
}
