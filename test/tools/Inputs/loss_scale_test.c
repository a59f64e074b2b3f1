/* Dynamic loss scaling of a --precision=mixed_f16 train step (mlp_small.h
 * from train_mlp_small.mlir): the scale starts at 2^15 and is a variable; a
 * step whose gradients overflow (inputs of 1e30, infinite in float16)
 * leaves the weights, the optimizer slots and the step counter as they were
 * and halves the scale; finite steps train and count. Also the mixed_bf16
 * build (BF16 defined), which has no loss scale and trains. The scale is
 * saved in checkpoints (argv[1]: a path to write one). Prints one line per
 * check and "N failed". */
#include "mlp_small.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what, const char* detail) {
  printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? " -- " : "",
         detail ? detail : "");
  if (!ok) ++failures;
}

static int has_variable(const char* name) {
  const tfcc_model_info* info = mlp_small_info();
  int i;
  for (i = 0; i < info->num_variables; ++i)
    if (strcmp(info->variables[i].name, name) == 0) return 1;
  return 0;
}

int main(int argc, char** argv) {
  tfcc_context* heap = NULL;
  tfcc_context* other = NULL;
  float x[4 * 8], huge[4 * 8], loss = 0.0f, scale = 0.0f;
  float kernel0[8 * 16], kernel1[8 * 16], kernel2[8 * 16];
  float slot1[8 * 16], slot2[8 * 16];
  int32_t y[4] = {0, 1, 2, 3};
  int64_t step = -1, good = -1;
  int i;
  tfcc_status_t s;

  for (i = 0; i < 4 * 8; ++i) {
    x[i] = (float)((i * 37 % 17) - 8) / 8.0f;
    huge[i] = 1e30f;
  }
  s = mlp_small_create(4, &heap);
  check(s == TFCC_OK && heap, "create", heap ? heap->message : NULL);
  if (!heap) return 1;
  s = mlp_small_get_variable(heap, "hidden_kernel", kernel0, sizeof kernel0);
  check(s == TFCC_OK, "get the initial weights", heap->message);
  s = mlp_small_train_step(heap, 4, x, y, &loss);
  check(s == TFCC_OK && isfinite(loss), "a finite step", heap->message);
  mlp_small_get_variable(heap, "hidden_kernel", kernel1, sizeof kernel1);
  check(memcmp(kernel0, kernel1, sizeof kernel0) != 0, "it trains", NULL);
#ifdef BF16
  check(!has_variable("train_step/loss_scale"), "bf16 has no loss scale", NULL);
  (void)huge, (void)kernel2, (void)slot1, (void)slot2, (void)scale, (void)good;
  (void)step, (void)other, (void)argc, (void)argv;
#else
  check(has_variable("train_step/loss_scale") &&
            has_variable("train_step/good_steps"),
        "the loss scale and the finite-step count are variables", NULL);
  s = mlp_small_get_variable(heap, "train_step/loss_scale", &scale, sizeof scale);
  check(s == TFCC_OK && scale == 32768.0f, "the scale starts at 2^15", heap->message);
  mlp_small_get_variable(heap, "train_step/good_steps", &good, sizeof good);
  check(good == 1, "one finite step counted", NULL);
  mlp_small_get_variable(heap, "hidden_kernel/momentum", slot1, sizeof slot1);

  /* Overflow: the step is skipped, the scale halves. */
  s = mlp_small_train_step(heap, 4, huge, y, &loss);
  check(s == TFCC_OK, "an overflowing step runs", heap->message);
  mlp_small_get_variable(heap, "hidden_kernel", kernel2, sizeof kernel2);
  check(memcmp(kernel1, kernel2, sizeof kernel1) == 0,
        "the weights are unchanged by it", NULL);
  mlp_small_get_variable(heap, "hidden_kernel/momentum", slot2, sizeof slot2);
  check(memcmp(slot1, slot2, sizeof slot1) == 0,
        "the optimizer slot is unchanged by it", NULL);
  mlp_small_get_variable(heap, "train_step/step", &step, sizeof step);
  check(step == 1, "the step counter is unchanged by it", NULL);
  mlp_small_get_variable(heap, "train_step/loss_scale", &scale, sizeof scale);
  check(scale == 16384.0f, "the scale halves", NULL);

  /* The scale travels in checkpoints. */
  if (argc > 1) {
    s = mlp_small_save_checkpoint(heap, argv[1]);
    check(s == TFCC_OK, "save a checkpoint", heap->message);
    s = mlp_small_create(4, &other);
    if (s == TFCC_OK) {
      s = mlp_small_load_checkpoint(other, argv[1]);
      check(s == TFCC_OK, "load it into a new context", other->message);
      scale = 0.0f;
      mlp_small_get_variable(other, "train_step/loss_scale", &scale, sizeof scale);
      check(scale == 16384.0f, "the loaded context has the halved scale", NULL);
      mlp_small_destroy(other);
    }
  }
  mlp_small_get_variable(heap, "train_step/good_steps", &good, sizeof good);
  check(good == 0, "the finite-step count restarts", NULL);

  /* Training goes on at the new scale. */
  s = mlp_small_train_step(heap, 4, x, y, &loss);
  check(s == TFCC_OK && isfinite(loss), "a finite step after it", heap->message);
  mlp_small_get_variable(heap, "hidden_kernel", kernel2, sizeof kernel2);
  check(memcmp(kernel1, kernel2, sizeof kernel1) != 0, "it trains again", NULL);
  mlp_small_get_variable(heap, "train_step/step", &step, sizeof step);
  mlp_small_get_variable(heap, "train_step/loss_scale", &scale, sizeof scale);
  check(step == 2 && scale == 16384.0f, "counted, the scale kept", NULL);

  /* After 2000 finite steps in a row the scale doubles. */
  good = 1999;
  s = mlp_small_set_variable(heap, "train_step/good_steps", &good, sizeof good);
  check(s == TFCC_OK, "set the finite-step count to 1999", heap->message);
  mlp_small_train_step(heap, 4, x, y, &loss);
  mlp_small_get_variable(heap, "train_step/loss_scale", &scale, sizeof scale);
  mlp_small_get_variable(heap, "train_step/good_steps", &good, sizeof good);
  check(scale == 32768.0f && good == 0, "the 2000th finite step doubles the scale",
        NULL);
#endif
  mlp_small_destroy(heap);
  printf("%d failed\n", failures);
  return failures != 0;
}
