/* Derived dimensions through the C interface (tools/named-dims.test): the
 * output [batch, OH, OW, 8] of tools/Inputs/derived_dims.mlir has
 * OH = (H + 2 - 3) / 2 + 1 - 2 and OW = (W - 3) / 2 + 1, computed here from
 * the model's layers, not by tfcc. */
#include "derived.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

int main(void) {
  enum { B = 2, H = 11, W = 9 };
  const int64_t oh = (H + 2 - 3) / 2 + 1 - 2, ow = (W - 3) / 2 + 1;
  float x[B * H * W * 3];
  float* y;
  int64_t dims[DERIVED_NUM_DIMS];
  tfcc_context* ctx = NULL;
  const tfcc_model_info* info = derived_info();
  size_t i;

  check(DERIVED_NUM_DIMS == 5 && DERIVED_DIM_FEATURES_1 == 3 &&
            DERIVED_DIM_FEATURES_2 == 4 && DERIVED_DIM_FEATURES_1_MAX == 18 &&
            DERIVED_DIM_FEATURES_2_MAX == 31,
        "derived dimension macros (bounds at H = 40, W = 64)");
  check(info->dim_flags[DERIVED_DIM_FEATURES_1 - 1] == TFCC_DIM_DERIVED &&
            info->dim_flags[DERIVED_DIM_H - 1] == 0 &&
            info->entries[0].resolve_dims != NULL,
        "reflective table: flags and the shape function");
  check(derived_create(B, &ctx) == TFCC_OK, "create");
  for (i = 0; i < sizeof x / sizeof x[0]; ++i)
    x[i] = (float)((int)(i * 29 % 17) - 8) / 4.0f;

  memset(dims, 0, sizeof dims);
  dims[0] = B;
  dims[DERIVED_DIM_H] = H;
  dims[DERIVED_DIM_W] = W;
  check(derived_resolve_dims(0, ctx, dims) == TFCC_OK &&
            dims[DERIVED_DIM_FEATURES_1] == oh &&
            dims[DERIVED_DIM_FEATURES_2] == ow,
        "resolve_dims gives the output's height and width");
  printf("output: [%d, %lld, %lld, 8]\n", B, (long long)dims[DERIVED_DIM_FEATURES_1],
         (long long)dims[DERIVED_DIM_FEATURES_2]);
  y = malloc(sizeof(float) * B * oh * ow * 8);
  check(derived_predict(ctx, dims, x, y) == TFCC_OK, "predict with the resolved dims");

  dims[DERIVED_DIM_FEATURES_2] = ow + 1;
  check(derived_predict(ctx, dims, x, y) == TFCC_INVALID_ARGUMENT &&
            strstr(ctx->message, "is not what the inputs of derived_predict make it") != NULL,
        "a derived dimension other than the inputs make it");
  printf("message: %s\n", ctx->message);

  dims[DERIVED_DIM_W] = 2; /* below the depthwise window: no output column */
  check(derived_resolve_dims(0, ctx, dims) == TFCC_OUT_OF_RANGE &&
            strstr(ctx->message, "too small") != NULL,
        "inputs too small for an output");
  printf("message: %s\n", ctx->message);
  dims[DERIVED_DIM_W] = 65;
  check(derived_resolve_dims(0, ctx, dims) == TFCC_OUT_OF_RANGE, "W above its bound");

  free(y);
  derived_destroy(ctx);
  printf("%d failed\n", failures);
  return failures != 0;
}
