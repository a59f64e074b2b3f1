/* The training C API of a model with a graph.train_step (mlp_small.h from
 * train_mlp_small.mlir): state memory, train_step, get/set/reset of
 * variables and their error paths. Prints one line per check and
 * "N failed". */
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

static uint8_t arena[MLP_SMALL_ARENA_BYTES(4) + 1];

int main(void) {
  const tfcc_model_info* info = mlp_small_info();
  tfcc_context ctx;
  tfcc_context* heap = NULL;
  float x[4 * 8], probs_before[4 * 4], probs_after[4 * 4], loss[6];
  float kernel0[8 * 16], kernel[8 * 16], zeros[8 * 16];
  int32_t y[4] = {0, 1, 2, 3};
  int64_t step = -1;
  int i, differs = 0, have_step = 0, have_slot = 0;
  tfcc_status_t s;

  for (i = 0; i < 4 * 8; ++i) x[i] = (float)((i * 37 % 17) - 8) / 8.0f;
  memset(zeros, 0, sizeof zeros);

  check(info->abi_version == TFCC_ABI_VERSION, "abi version", NULL);
  check(info->state_bytes == MLP_SMALL_STATE_BYTES && MLP_SMALL_STATE_BYTES > 0,
        "state bytes in the table and the header", NULL);
  for (i = 0; i < info->num_variables; ++i) {
    const tfcc_variable_info* v = &info->variables[i];
    if (strcmp(v->name, "train_step/step") == 0)
      have_step = v->dtype == TFCC_DTYPE_I64 && v->rank == 0 && !v->trainable;
    if (strcmp(v->name, "hidden_kernel/momentum") == 0)
      have_slot = v->rank == 2 && v->dims[0] == 8 && v->dims[1] == 16 &&
                  !v->trainable;
    if (v->offset % 64 != 0 || v->offset + v->bytes > info->state_bytes)
      check(0, "variable offsets are 64-aligned and inside the state", v->name);
  }
  check(have_step, "the step counter is in the variable table", NULL);
  check(have_slot, "the momentum slot is in the variable table", NULL);

  /* Static memory, odd alignment: init copies the initial image. */
  s = mlp_small_init(&ctx, arena + 1, sizeof arena - 1, 4);
  check(s == TFCC_OK, "init with a static block", ctx.message);
  check(ctx.state != NULL && ((uintptr_t)ctx.state % 64) == 0,
        "the state is 64-byte aligned", NULL);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", kernel0, sizeof kernel0);
  check(s == TFCC_OK, "get_variable", ctx.message);
  s = mlp_small_get_variable(&ctx, "train_step/step", &step, sizeof step);
  check(s == TFCC_OK && step == 0, "the step counter starts at 0", ctx.message);

  s = mlp_small_predict(&ctx, 4, x, probs_before);
  check(s == TFCC_OK, "predict before training", ctx.message);
  for (i = 0; i < 6; ++i) {
    s = mlp_small_train_step(&ctx, 4, x, y, &loss[i]);
    if (s != TFCC_OK) break;
  }
  check(s == TFCC_OK, "six train steps", ctx.message);
  check(loss[5] < loss[0], "the loss decreases", NULL);
  s = mlp_small_get_variable(&ctx, "train_step/step", &step, sizeof step);
  check(s == TFCC_OK && step == 6, "the step counter counts steps", ctx.message);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", kernel, sizeof kernel);
  check(s == TFCC_OK && memcmp(kernel, kernel0, sizeof kernel) != 0,
        "training changes the weights", ctx.message);
  s = mlp_small_predict(&ctx, 4, x, probs_after);
  for (i = 0; i < 16; ++i)
    if (fabsf(probs_after[i] - probs_before[i]) > 1e-6f) differs = 1;
  check(s == TFCC_OK && differs, "predict reads the trained weights", ctx.message);

  /* set_variable, then reset_state. */
  s = mlp_small_set_variable(&ctx, "hidden_kernel", zeros, sizeof zeros);
  check(s == TFCC_OK, "set_variable", ctx.message);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", kernel, sizeof kernel);
  check(s == TFCC_OK && memcmp(kernel, zeros, sizeof kernel) == 0,
        "get_variable sees set_variable", ctx.message);
  s = mlp_small_reset_state(&ctx);
  check(s == TFCC_OK, "reset_state", ctx.message);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", kernel, sizeof kernel);
  check(s == TFCC_OK && memcmp(kernel, kernel0, sizeof kernel) == 0,
        "reset_state restores the initial weights", ctx.message);
  s = mlp_small_get_variable(&ctx, "train_step/step", &step, sizeof step);
  check(s == TFCC_OK && step == 0, "reset_state restores the step", ctx.message);
  s = mlp_small_predict(&ctx, 4, x, probs_after);
  check(s == TFCC_OK && memcmp(probs_after, probs_before, sizeof probs_after) == 0,
        "predict after reset_state equals predict before training", ctx.message);

  /* Error paths: each returns TFCC_INVALID_ARGUMENT and leaves the state. */
  s = mlp_small_get_variable(&ctx, "no_such_variable", kernel, sizeof kernel);
  check(s == TFCC_INVALID_ARGUMENT && strstr(ctx.message, "no variable 'no_such_variable'"),
        "unknown name", ctx.message);
  s = mlp_small_set_variable(&ctx, "hidden_kernel", zeros, 100);
  check(s == TFCC_INVALID_ARGUMENT && strstr(ctx.message, "512 bytes"),
        "wrong byte count (the message states the size)", ctx.message);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", kernel, sizeof kernel);
  check(s == TFCC_OK && memcmp(kernel, kernel0, sizeof kernel) == 0,
        "a failed set_variable leaves the state", ctx.message);
  s = mlp_small_get_variable(&ctx, NULL, kernel, sizeof kernel);
  check(s == TFCC_INVALID_ARGUMENT, "NULL name", ctx.message);
  s = mlp_small_get_variable(&ctx, "hidden_kernel", NULL, sizeof kernel);
  check(s == TFCC_INVALID_ARGUMENT, "NULL data", ctx.message);
  s = mlp_small_get_variable(NULL, "hidden_kernel", kernel, sizeof kernel);
  check(s == TFCC_INVALID_ARGUMENT, "NULL context", NULL);
  s = mlp_small_reset_state(NULL);
  check(s == TFCC_INVALID_ARGUMENT, "reset_state of a NULL context", NULL);
  s = mlp_small_train_step(&ctx, 4, x, y, NULL);
  check(s == TFCC_INVALID_ARGUMENT, "train_step with a NULL loss", ctx.message);
  s = mlp_small_train_step(&ctx, 5, x, y, &loss[0]);
  check(s == TFCC_OUT_OF_RANGE, "train_step beyond max_batch", ctx.message);

  /* A malloc'ed context has its own state. */
  s = mlp_small_create(2, &heap);
  check(s == TFCC_OK && heap->state != NULL && heap->state != ctx.state,
        "create allocates a state", NULL);
  if (s == TFCC_OK) {
    s = mlp_small_train_step(heap, 2, x, y, &loss[0]);
    check(s == TFCC_OK, "train_step on a created context", heap->message);
    s = mlp_small_get_variable(&ctx, "train_step/step", &step, sizeof step);
    check(s == TFCC_OK && step == 0, "contexts do not share state", ctx.message);
    mlp_small_destroy(heap);
  }

  printf("%d failed\n", failures);
  return failures != 0;
}
