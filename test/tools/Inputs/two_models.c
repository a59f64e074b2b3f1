/* Two models' objects (tfcc --emit=obj) in one program (test/tools/tfcc-emit.test): each
 * carries its own runtime, local to it, so they link side by side. Runs both on zeros and
 * prints the sum of each softmax output row (1 when the model ran). */
#include <stdio.h>

#include "cnn.h"
#include "mlp2.h"

int main(void) {
  static float image[28 * 28], features[784], cnn_out[10], mlp_out[10];
  tfcc_context* a = NULL;
  tfcc_context* b = NULL;
  if (cnn_create(1, &a) != TFCC_OK || mlp2_create(1, &b) != TFCC_OK) return 1;
  if (cnn_predict(a, 1, image, cnn_out) != TFCC_OK) return 2;
  if (mlp2_predict(b, 1, features, mlp_out) != TFCC_OK) return 3;
  float sa = 0, sb = 0;
  for (int i = 0; i < 10; ++i) {
    sa += cnn_out[i];
    sb += mlp_out[i];
  }
  printf("cnn %.4f mlp2 %.4f\n", sa, sb);
  cnn_destroy(a);
  mlp2_destroy(b);
  return 0;
}
