/* A train step built with tfcc --check-numerics (the spec MLP, prefix mlp)
 * stops at the first NaN: the status names the node, and the variables and
 * the step counter keep the values they had (the updates come last). Then a
 * finite step trains. Built with cc -std=c99 by check-numerics.test. */
#include "mlp_train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static float x[2 * 784];
static int32_t y[2] = {3, 7};
static float kernel_before[784 * 128], kernel_after[784 * 128];

int main(void) {
  tfcc_context* ctx = NULL;
  int64_t step_before = -1, step_after = -1;
  float loss = 0;
  tfcc_status_t s;
  int i, failed = 0;
  for (i = 0; i < 2 * 784; ++i) x[i] = (float)(i % 13) / 13.0f;
  if (mlp_create(2, &ctx) != TFCC_OK) return 2;
  mlp_get_variable(ctx, "hidden_kernel", kernel_before, sizeof kernel_before);
  mlp_get_variable(ctx, "train_step/step", &step_before, sizeof step_before);

  x[784 + 5] = NAN; /* sample 1 */
  s = mlp_train_step(ctx, 2, x, y, &loss);
  printf("status %d: %s\n", (int)s, ctx->message);
  mlp_get_variable(ctx, "hidden_kernel", kernel_after, sizeof kernel_after);
  mlp_get_variable(ctx, "train_step/step", &step_after, sizeof step_after);
  if (memcmp(kernel_before, kernel_after, sizeof kernel_before) != 0 ||
      step_after != step_before) {
    printf("FAIL: the failed step changed the state (step %lld -> %lld)\n",
           (long long)step_before, (long long)step_after);
    failed = 1;
  } else {
    printf("the state is unchanged\n");
  }

  x[784 + 5] = 0.5f;
  s = mlp_train_step(ctx, 2, x, y, &loss);
  mlp_get_variable(ctx, "train_step/step", &step_after, sizeof step_after);
  printf("finite step: status %d, step %lld, loss finite %d\n", (int)s,
         (long long)step_after, isfinite(loss) != 0);
  mlp_destroy(ctx);
  return failed;
}
