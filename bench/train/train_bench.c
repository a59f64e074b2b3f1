/* Times the compiled train step of the spec's mnist_cnn_train.mlir:
 *   tfcc ../shared/spec/models/mnist_cnn_train.mlir -o DIR/mnist_cnn.so
 *   cc -O2 -IDIR bench/train/train_bench.c DIR/mnist_cnn.so -Wl,-rpath,DIR -lm
 *   ./a.out [threads] [batch] [steps]
 * Prints the median step time over `steps` steps (after 5 warm-up steps) and
 * the images/s it gives, and the first and last loss. */
#include "mnist_cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  int batch = argc > 2 ? atoi(argv[2]) : 64;
  int steps = argc > 3 ? atoi(argv[3]) : 50;
  tfcc_context* ctx = NULL;
  float* image = malloc(sizeof(float) * batch * 28 * 28);
  int32_t* label = malloc(sizeof(int32_t) * batch);
  double* times = malloc(sizeof(double) * steps);
  float loss = 0, first = 0;
  unsigned seed = 1;
  int i;
  for (i = 0; i < batch * 28 * 28; ++i) {
    seed = seed * 1103515245u + 12345u;
    image[i] = (float)((seed >> 16) & 0xff) / 255.0f;
  }
  for (i = 0; i < batch; ++i) label[i] = i % 10;
  if (mnist_cnn_create_with_threads(batch, threads, &ctx) != TFCC_OK) {
    fprintf(stderr, "create failed\n");
    return 1;
  }
  for (i = 0; i < 5; ++i) mnist_cnn_train_step(ctx, batch, image, label, &loss);
  first = loss;
  for (i = 0; i < steps; ++i) {
    double start = now_ms();
    if (mnist_cnn_train_step(ctx, batch, image, label, &loss) != TFCC_OK) {
      fprintf(stderr, "train_step failed: %s\n", ctx->message);
      return 1;
    }
    times[i] = now_ms() - start;
  }
  qsort(times, steps, sizeof(double), compare);
  printf("threads %d batch %d: median %.3f ms/step, %.0f images/s (loss %.4f -> %.4f)\n",
         threads, batch, times[steps / 2], batch * 1e3 / times[steps / 2], first,
         loss);
  mnist_cnn_destroy(ctx);
  return 0;
}
