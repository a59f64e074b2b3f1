/* Checkpoints of a compiled training model (mlp_small.h from
 * train_mlp_small.mlir; mlp_adam.h for "another model"):
 *   c_api_ckpt_test roundtrip DIR  trains 3 steps, saves DIR/a.tfck (and the
 *       checkpoint of mlp_adam as DIR/adam.tfck), trains 3 more; then resets,
 *       loads, trains 3 more: the losses, every variable and predict equal
 *       the uninterrupted run's, bit for bit; then the error paths (missing
 *       file, unwritable path, a directory, another model).
 *   c_api_ckpt_test load FILE      loads FILE into a trained context and
 *       prints the status, the message, whether the state is unchanged on
 *       failure, and the step counter.
 * Prints one line per check and "N failed". */
#include "mlp_adam.h"
#include "mlp_small.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what, const char* detail) {
  printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? " -- " : "",
         detail ? detail : "");
  if (!ok) ++failures;
}

static uint8_t arena_a[MLP_SMALL_ARENA_BYTES(4)];
static uint8_t arena_b[MLP_SMALL_ARENA_BYTES(4)];
static uint8_t arena_adam[MLP_ADAM_ARENA_BYTES(4)];
static float x[4 * 8];
static int32_t y[4] = {0, 1, 2, 3};

/* Copies every variable of ctx (in table order) into buf. */
static size_t snapshot(tfcc_context* ctx, uint8_t* buf) {
  const tfcc_model_info* info = mlp_small_info();
  size_t n = 0;
  int i;
  for (i = 0; i < info->num_variables; ++i) {
    const tfcc_variable_info* v = &info->variables[i];
    if (mlp_small_get_variable(ctx, v->name, buf + n, v->bytes) != TFCC_OK)
      check(0, "get_variable", ctx->message);
    n += (size_t)v->bytes;
  }
  return n;
}

static void train(tfcc_context* ctx, int steps, float* losses) {
  int i;
  for (i = 0; i < steps; ++i)
    if (mlp_small_train_step(ctx, 4, x, y, &losses[i]) != TFCC_OK)
      check(0, "train_step", ctx->message);
}

static int roundtrip(const char* dir) {
  tfcc_context a, b, adam;
  static uint8_t snap_a[MLP_SMALL_STATE_BYTES], snap_b[MLP_SMALL_STATE_BYTES];
  static uint8_t state_before[MLP_SMALL_STATE_BYTES];
  float loss_a[6], loss_b[6], pa[16], pb[16], adam_loss;
  char path[1024], adam_path[1024], bad[1024];
  size_t n;
  int64_t step = -1;
  tfcc_status_t s;

  snprintf(path, sizeof path, "%s/a.tfck", dir);
  snprintf(adam_path, sizeof adam_path, "%s/adam.tfck", dir);
  check(mlp_small_init(&a, arena_a, sizeof arena_a, 4) == TFCC_OK, "init a", a.message);
  check(mlp_small_init(&b, arena_b, sizeof arena_b, 4) == TFCC_OK, "init b", b.message);

  /* The uninterrupted run: 3 steps, save, 3 steps. */
  train(&a, 3, loss_a);
  s = mlp_small_save_checkpoint(&a, path);
  check(s == TFCC_OK, "save_checkpoint", a.message);
  train(&a, 3, loss_a + 3);
  n = snapshot(&a, snap_a);
  mlp_small_predict(&a, 4, x, pa);

  /* Another context: train differently, reset, load, continue. */
  train(&b, 2, loss_b);
  s = mlp_small_reset_state(&b);
  s = mlp_small_load_checkpoint(&b, path);
  check(s == TFCC_OK && b.message[0] == '\0', "load_checkpoint", b.message);
  mlp_small_get_variable(&b, "train_step/step", &step, sizeof step);
  check(step == 3, "the step counter is restored", NULL);
  train(&b, 3, loss_b + 3);
  snapshot(&b, snap_b);
  mlp_small_predict(&b, 4, x, pb);
  check(memcmp(loss_a + 3, loss_b + 3, 3 * sizeof(float)) == 0,
        "the losses after loading equal the uninterrupted run's", NULL);
  check(memcmp(snap_a, snap_b, n) == 0,
        "every variable, slot and the step equal the uninterrupted run's", NULL);
  check(memcmp(pa, pb, sizeof pa) == 0, "predict equals the uninterrupted run's",
        NULL);
  printf("loss after step 4: %.6f\n", (double)loss_b[3]);

  /* A checkpoint of another model (mlp_adam, same weight names). */
  check(mlp_adam_init(&adam, arena_adam, sizeof arena_adam, 4) == TFCC_OK,
        "init mlp_adam", adam.message);
  mlp_adam_train_step(&adam, 4, x, y, &adam_loss);
  check(mlp_adam_save_checkpoint(&adam, adam_path) == TFCC_OK,
        "save mlp_adam's checkpoint", adam.message);
  memcpy(state_before, b.state, MLP_SMALL_STATE_BYTES);
  s = mlp_small_load_checkpoint(&b, adam_path);
  check(s == TFCC_INVALID_ARGUMENT &&
            strstr(b.message, "is a checkpoint of model 'mlp_adam', not mlp_small"),
        "another model's checkpoint is rejected", b.message);
  check(memcmp(state_before, b.state, MLP_SMALL_STATE_BYTES) == 0,
        "the state is unchanged", NULL);

  /* I/O errors. */
  snprintf(bad, sizeof bad, "%s/missing.tfck", dir);
  s = mlp_small_load_checkpoint(&b, bad);
  check(s == TFCC_INVALID_ARGUMENT && strstr(b.message, "No such file"),
        "a missing file", b.message);
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.tfck", dir);
  s = mlp_small_save_checkpoint(&b, bad);
  check(s == TFCC_INVALID_ARGUMENT && strstr(b.message, "cannot create") &&
            strstr(b.message, "No such file"),
        "an unwritable path", b.message);
  s = mlp_small_save_checkpoint(&b, dir);
  check(s == TFCC_INVALID_ARGUMENT && strstr(b.message, "cannot rename"),
        "a directory in the way", b.message);
  s = mlp_small_save_checkpoint(&b, NULL);
  check(s == TFCC_INVALID_ARGUMENT, "a NULL path", b.message);
  s = mlp_small_load_checkpoint(NULL, path);
  check(s == TFCC_INVALID_ARGUMENT, "a NULL context", NULL);
  check(memcmp(state_before, b.state, MLP_SMALL_STATE_BYTES) == 0,
        "the state is unchanged after every error", NULL);
  printf("%d failed\n", failures);
  return failures != 0;
}

static int load(const char* path) {
  tfcc_context ctx;
  static uint8_t before[MLP_SMALL_STATE_BYTES];
  float losses[2];
  int64_t step = -1;
  tfcc_status_t s;
  mlp_small_init(&ctx, arena_a, sizeof arena_a, 4);
  train(&ctx, 2, losses);
  memcpy(before, ctx.state, MLP_SMALL_STATE_BYTES);
  s = mlp_small_load_checkpoint(&ctx, path);
  printf("status: %s\nmessage: %s\n", mlp_small_status_string(s), ctx.message);
  if (s != TFCC_OK)
    printf("state unchanged: %s\n",
           memcmp(before, ctx.state, MLP_SMALL_STATE_BYTES) == 0 ? "yes" : "NO");
  mlp_small_get_variable(&ctx, "train_step/step", &step, sizeof step);
  printf("step: %lld\n", (long long)step);
  return 0;
}

int main(int argc, char** argv) {
  int i;
  for (i = 0; i < 4 * 8; ++i) x[i] = (float)((i * 37 % 17) - 8) / 8.0f;
  if (argc == 3 && strcmp(argv[1], "roundtrip") == 0) return roundtrip(argv[2]);
  if (argc == 3 && strcmp(argv[1], "load") == 0) return load(argv[2]);
  fprintf(stderr, "usage: %s roundtrip DIR | load FILE\n", argv[0]);
  return 2;
}
