/* The C interface of a model with named dimensions (tools/named-dims.test):
 * the header's dimension macros, entries taking `dims`, outputs sized by
 * them, and the statuses of dimensions out of range. The relu entry's
 * expected output is computed here, not by tfcc. */
#include "named.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

int main(void) {
  enum { B = 2, H = 9, W = 7 };
  float x[B * H * W * 3], r[B * H * W * 3], g[B * 8];
  int64_t dims[NAMED_NUM_DIMS];
  tfcc_context* ctx = NULL;
  const tfcc_model_info* info = named_info();
  size_t i;

  check(NAMED_NUM_DIMS == 3 && NAMED_DIM_H == 1 && NAMED_DIM_W == 2 &&
            NAMED_DIM_H_MAX == 40 && NAMED_DIM_W_MAX == 64,
        "dimension macros");
  check(info->num_dims == 2 && strcmp(info->dim_names[0], "H") == 0 &&
            strcmp(info->dim_names[1], "W") == 0 && info->dim_bounds[0] == 40 &&
            info->dim_bounds[1] == 64,
        "reflective table: names and bounds");
  check(info->entries[0].inputs[0].dims[1] == TFCC_DIM_NAMED(NAMED_DIM_H) &&
            info->entries[0].inputs[0].dims[2] == TFCC_DIM_NAMED(NAMED_DIM_W) &&
            info->entries[0].inputs[0].dims[0] == TFCC_DIM_DYNAMIC &&
            info->entries[0].has_named_dims == 1,
        "reflective table: input dims");
  check(named_create(B, &ctx) == TFCC_OK, "create");

  for (i = 0; i < sizeof x / sizeof x[0]; ++i)
    x[i] = (float)((int)(i * 37 % 23) - 11) / 8.0f;
  dims[0] = B;
  dims[NAMED_DIM_H] = H;
  dims[NAMED_DIM_W] = W;
  memset(r, 0xff, sizeof r);
  check(named_features(ctx, dims, x, r) == TFCC_OK, "features at [2, 9, 7, 3]");
  {
    int same = 1;
    for (i = 0; i < sizeof x / sizeof x[0]; ++i)
      same &= r[i] == (x[i] > 0 ? x[i] : 0.0f);
    check(same, "features is relu(x) at [2, 9, 7, 3]");
  }
  check(named_predict(ctx, dims, x, g) == TFCC_OK, "predict at [2, 9, 7, 3]");

  dims[NAMED_DIM_W] = 65;
  check(named_predict(ctx, dims, x, g) == TFCC_OUT_OF_RANGE &&
            strstr(ctx->message, "dimension W = 65 is out of range") != NULL,
        "W above its bound");
  printf("message: %s\n", ctx->message);
  dims[NAMED_DIM_W] = W;
  dims[NAMED_DIM_H] = 0;
  check(named_predict(ctx, dims, x, g) == TFCC_OUT_OF_RANGE, "H of 0");
  dims[NAMED_DIM_H] = 2; /* too small for the model's windows */
  check(named_predict(ctx, dims, x, g) == TFCC_OUT_OF_RANGE &&
            strstr(ctx->message, "too small for a window") != NULL,
        "H too small for a window");
  dims[NAMED_DIM_H] = H;
  dims[0] = B + 1;
  check(named_predict(ctx, dims, x, g) == TFCC_OUT_OF_RANGE, "batch above max_batch");
  {
    const void* in[1] = {x};
    void* out[1] = {g};
    check(named_invoke(0, ctx, 1, in, out) == TFCC_INVALID_ARGUMENT &&
              strstr(ctx->message, "named_invoke_dims") != NULL,
          "invoke without the dims");
    printf("message: %s\n", ctx->message);
    dims[0] = B;
    check(named_invoke_dims(0, ctx, dims, in, out) == TFCC_OK, "invoke_dims");
  }
  named_destroy(ctx);
  printf("%d failed\n", failures);
  return failures != 0;
}
