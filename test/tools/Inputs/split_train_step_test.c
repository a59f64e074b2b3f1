/* The halves of a train step (tfcc --split-train-step) train as the step
 * does: one context runs mnist_cnn_train_step, another
 * mnist_cnn_compute_gradients then mnist_cnn_apply_gradients, on the same
 * batches; after 10 steps every variable (weights, batch-norm statistics,
 * Adam slots, the step counter) agrees to 1e-5 of its largest magnitude, and
 * so does each step's loss. The spec CNN has batch norm, dropout and Adam. */
#include "mnist_cnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 32
#define STEPS 10

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
  failures += !ok;
}

int main(void) {
  tfcc_context *whole = NULL, *halves = NULL;
  float* image = malloc(sizeof(float) * BATCH * 28 * 28);
  int32_t label[BATCH];
  float* gradients = malloc(sizeof(float) * 121962);
  float statistics[64];
  unsigned seed = 7;
  int step, i, v;
  double worst_loss = 0;
  int64_t counter = -1;
  const tfcc_model_info* info;
  if (mnist_cnn_create(BATCH, &whole) != TFCC_OK ||
      mnist_cnn_create(BATCH, &halves) != TFCC_OK) {
    printf("FAIL: create\n");
    return 1;
  }
  for (step = 0; step < STEPS; ++step) {
    float loss_whole = 0, loss_halves = 0;
    for (i = 0; i < BATCH * 28 * 28; ++i) {
      seed = seed * 1103515245u + 12345u;
      image[i] = (float)((seed >> 16) & 0xff) / 255.0f;
    }
    for (i = 0; i < BATCH; ++i) label[i] = (i * 7 + step) % 10;
    if (mnist_cnn_train_step(whole, BATCH, image, label, &loss_whole) !=
            TFCC_OK ||
        mnist_cnn_compute_gradients(halves, BATCH, image, label, &loss_halves,
                                    gradients, statistics) != TFCC_OK ||
        mnist_cnn_apply_gradients(halves, 1, gradients, statistics,
                                  &counter) != TFCC_OK) {
      printf("FAIL: step %d: %s%s\n", step, whole->message, halves->message);
      return 1;
    }
    if (fabs(loss_whole - loss_halves) > worst_loss)
      worst_loss = fabs(loss_whole - loss_halves);
  }
  check(worst_loss <= 1e-5, "the losses agree");
  check(counter == STEPS, "apply_gradients returns the step counter");
  info = whole->model;
  for (v = 0; v < info->num_variables; ++v) {
    const tfcc_variable_info* var = &info->variables[v];
    const char* a = (const char*)whole->state + var->offset;
    const char* b = (const char*)halves->state + var->offset;
    char what[160];
    if (var->dtype == TFCC_DTYPE_F32) {
      const float *x = (const float*)a, *y = (const float*)b;
      uint64_t n = var->bytes / 4, k;
      double largest = 0, diff = 0;
      for (k = 0; k < n; ++k) {
        if (fabs(x[k]) > largest) largest = fabs(x[k]);
        if (fabs(x[k] - y[k]) > diff) diff = fabs(x[k] - y[k]);
      }
      snprintf(what, sizeof what, "%s agrees (max diff %.3g, largest %.3g)",
               var->name, diff, largest);
      check(diff <= 1e-5 * (largest > 0 ? largest : 1), what);
    } else {
      snprintf(what, sizeof what, "%s is equal", var->name);
      check(memcmp(a, b, var->bytes) == 0, what);
    }
  }
  printf("%d failed\n", failures);
  mnist_cnn_destroy(whole);
  mnist_cnn_destroy(halves);
  free(image);
  free(gradients);
  return failures != 0;
}
