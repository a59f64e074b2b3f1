/* Drives two compiled models through their generated headers only: every
 * error status of the C API, then a correct call. Built with
 * cc -std=c99 -Wall -Wextra -Werror -pedantic by c-api.test. */
#include "mlp.h"
#include "mnist_cnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void expect(int ok, const char* what, const char* detail) {
  if (ok) {
    ++passed;
    printf("PASS: %s\n", what);
  } else {
    ++failed;
    printf("FAIL: %s (%s)\n", what, detail ? detail : "");
  }
}

static unsigned char arena[MNIST_CNN_ARENA_BYTES(4)];
static float image[4 * 28 * 28];
static float probs[4 * 10];
static float serial_probs[4 * 10];
static float x784[4 * 784];
static float logits[4 * 10];
static float serial_logits[4 * 10];

/* Largest |a[i] - b[i]|; 1e30 when either side has a NaN. */
static float max_diff(const float* a, const float* b, int n) {
  float d = 0;
  int i;
  for (i = 0; i < n; ++i) {
    if (a[i] != a[i] || b[i] != b[i]) return 1e30f;
    if (fabsf(a[i] - b[i]) > d) d = fabsf(a[i] - b[i]);
  }
  return d;
}

int main(void) {
  tfcc_context ctx, small, mlp_ctx;
  tfcc_context* heap = NULL;
  tfcc_context* threaded = NULL;
  const tfcc_model_info* info = mnist_cnn_info();
  tfcc_status_t s;
  int i, j;

  /* The kernels' instruction set: a level's name, the one TFCC_KERNELS_ISA
   * asks for when c-api.test sets EXPECT_KERNELS_ISA beside it. */
  {
    const char* isa = mnist_cnn_kernels_isa();
    const char* want = getenv("EXPECT_KERNELS_ISA");
    expect(strcmp(isa, "avx512") == 0 || strcmp(isa, "avx2") == 0 || strcmp(isa, "generic") == 0,
           "kernels_isa names a level", isa);
    expect(!want || strcmp(isa, want) == 0, "kernels_isa follows TFCC_KERNELS_ISA", isa);
  }

  /* The reflective table. */
  expect(info->abi_version == TFCC_ABI_VERSION && strcmp(info->name, "mnist_cnn") == 0 &&
             info->num_entries == 1 && strcmp(info->entries[0].name, "predict") == 0,
         "info names the model and its entry", info->name);
  expect(info->entries[0].num_inputs == 1 && strcmp(info->entries[0].inputs[0].name, "image") == 0 &&
             info->entries[0].inputs[0].rank == 4 &&
             info->entries[0].inputs[0].dims[0] == TFCC_DIM_DYNAMIC &&
             info->entries[0].inputs[0].dims[1] == 28 &&
             info->entries[0].inputs[0].dtype == TFCC_DTYPE_F32 &&
             strcmp(info->entries[0].outputs[0].name, "probs") == 0,
         "info describes the arguments", NULL);
  expect(MNIST_CNN_WEIGHT_BYTES == 4 * (288 + 32 + 18432 + 64 + 102400 + 64 + 640 + 10),
         "weight bytes", NULL);

  /* Context initialization errors. */
  s = mnist_cnn_init(NULL, arena, sizeof arena, 4);
  expect(s == TFCC_INVALID_ARGUMENT, "init with a NULL context", mnist_cnn_status_string(s));
  s = mnist_cnn_init(&small, arena, 64, 4);
  expect(s == TFCC_RESOURCE_EXHAUSTED && strstr(small.message, "too small") != NULL,
         "init with a too-small arena", small.message);
  s = mnist_cnn_init(&small, arena, sizeof arena, 0);
  expect(s == TFCC_OUT_OF_RANGE, "init with max_batch 0", small.message);
  s = mnist_cnn_init(&small, NULL, sizeof arena, 4);
  expect(s == TFCC_INVALID_ARGUMENT, "init with a NULL arena", small.message);

  s = mnist_cnn_init(&ctx, arena, sizeof arena, 4);
  expect(s == TFCC_OK, "init with the header's arena size", ctx.message);

  /* Call errors. */
  s = mnist_cnn_predict(NULL, 1, image, probs);
  expect(s == TFCC_INVALID_ARGUMENT, "predict with a NULL context", NULL);
  s = mnist_cnn_predict(&ctx, 1, NULL, probs);
  expect(s == TFCC_INVALID_ARGUMENT && strstr(ctx.message, "image") != NULL,
         "predict with a NULL input names it", ctx.message);
  s = mnist_cnn_predict(&ctx, 1, image, NULL);
  expect(s == TFCC_INVALID_ARGUMENT && strstr(ctx.message, "probs") != NULL,
         "predict with a NULL output names it", ctx.message);
  s = mnist_cnn_predict(&ctx, 5, image, probs);
  expect(s == TFCC_OUT_OF_RANGE && strstr(ctx.message, "5") != NULL,
         "predict above the declared maximum batch", ctx.message);
  s = mnist_cnn_predict(&ctx, 0, image, probs);
  expect(s == TFCC_OUT_OF_RANGE, "predict with batch 0", ctx.message);
  s = mlp_init(&mlp_ctx, arena, sizeof arena, 4);
  expect(s == TFCC_OK, "a second model shares the process", mlp_ctx.message);
  s = mnist_cnn_predict(&mlp_ctx, 1, image, probs);
  expect(s == TFCC_INVALID_ARGUMENT && strstr(mlp_ctx.message, "mlp") != NULL,
         "predict with another model's context", mlp_ctx.message);

  /* A correct call: each row of probabilities sums to 1. */
  for (i = 0; i < 4 * 28 * 28; ++i) image[i] = (float)((i * 7) % 255) / 255.0f;
  s = mnist_cnn_init(&ctx, arena, sizeof arena, 4);
  s = s == TFCC_OK ? mnist_cnn_predict(&ctx, 4, image, probs) : s;
  expect(s == TFCC_OK && ctx.message[0] == '\0', "predict at batch 4", ctx.message);
  for (i = 0; i < 4; ++i) {
    float sum = 0;
    for (j = 0; j < 10; ++j) sum += probs[i * 10 + j];
    expect(fabsf(sum - 1.0f) < 1e-5f, "probabilities sum to 1", NULL);
  }

  /* The malloc convenience. */
  s = mnist_cnn_create(0, &heap);
  expect(s == TFCC_OUT_OF_RANGE && heap == NULL, "create with max_batch 0", NULL);
  s = mnist_cnn_create(2, &heap);
  expect(s == TFCC_OK && heap != NULL, "create", NULL);
  s = mnist_cnn_predict(heap, 2, image, probs);
  expect(s == TFCC_OK, "predict on a created context", heap ? heap->message : NULL);
  mnist_cnn_destroy(heap);
  mnist_cnn_destroy(NULL);

  /* Threads: a context with a pool of 2 threads computes what a 1-thread
   * context computes (the kernels split work, not reductions). */
  heap = NULL;
  s = mnist_cnn_create(4, &heap);
  expect(s == TFCC_OK && heap->num_threads == 1 && heap->pool == NULL,
         "create makes a 1-thread context without a pool", NULL);
  s = s == TFCC_OK ? mnist_cnn_predict(heap, 4, image, serial_probs) : s;
  expect(s == TFCC_OK, "predict on a 1-thread context", heap ? heap->message : NULL);
  s = mnist_cnn_create_with_threads(4, 0, &threaded);
  expect(s == TFCC_INVALID_ARGUMENT && threaded == NULL,
         "create_with_threads with 0 threads", mnist_cnn_status_string(s));
  s = mnist_cnn_create_with_threads(4, -2, &threaded);
  expect(s == TFCC_INVALID_ARGUMENT && threaded == NULL,
         "create_with_threads with -2 threads", mnist_cnn_status_string(s));
  s = mnist_cnn_create_with_threads(0, 2, &threaded);
  expect(s == TFCC_OUT_OF_RANGE && threaded == NULL,
         "create_with_threads with max_batch 0", mnist_cnn_status_string(s));
  s = mnist_cnn_create_with_threads(4, 2, NULL);
  expect(s == TFCC_INVALID_ARGUMENT, "create_with_threads with a NULL out_ctx",
         mnist_cnn_status_string(s));
  s = mnist_cnn_create_with_threads(4, 2, &threaded);
  expect(s == TFCC_OK && threaded != NULL && threaded->num_threads == 2 &&
             threaded->pool != NULL,
         "create_with_threads with 2 threads", mnist_cnn_status_string(s));
  for (i = 0; i < 3 && s == TFCC_OK; ++i) { /* the pool is reused by every call */
    memset(probs, 0, sizeof probs);
    s = mnist_cnn_predict(threaded, 4, image, probs);
    expect(s == TFCC_OK && threaded->message[0] == '\0', "predict on 2 threads",
           threaded ? threaded->message : NULL);
    expect(max_diff(probs, serial_probs, 4 * 10) <= 1e-6f,
           "2 threads agree with 1 thread", NULL);
  }
  s = mnist_cnn_predict(threaded, 5, image, probs);
  expect(s == TFCC_OUT_OF_RANGE, "a 2-thread context checks the batch", threaded->message);
  mnist_cnn_destroy(threaded);
  mnist_cnn_destroy(heap);

  /* The second model, with 3 threads, next to the first one's context. */
  for (i = 0; i < 4 * 784; ++i) x784[i] = (float)((i * 13) % 101) / 101.0f - 0.5f;
  threaded = NULL;
  s = mlp_predict(&mlp_ctx, 4, x784, serial_logits);
  expect(s == TFCC_OK, "mlp on 1 thread", mlp_ctx.message);
  s = mlp_create_with_threads(4, 3, &threaded);
  expect(s == TFCC_OK && threaded->num_threads == 3, "mlp create_with_threads", NULL);
  s = s == TFCC_OK ? mlp_predict(threaded, 4, x784, logits) : s;
  expect(s == TFCC_OK && max_diff(logits, serial_logits, 4 * 10) <= 1e-6f,
         "mlp on 3 threads agrees with 1 thread", threaded ? threaded->message : NULL);
  mlp_destroy(threaded);
  expect(strcmp(mnist_cnn_status_string(TFCC_OUT_OF_RANGE), "out of range") == 0,
         "status strings", mnist_cnn_status_string(TFCC_OUT_OF_RANGE));

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
