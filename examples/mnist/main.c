/* Classifies Fashion-MNIST test images with a CNN compiled ahead of time by
 * tfcc: mnist_cnn.mlir as built (its initial weights), or in the main job
 * (.ci/main.sh) the trained build of mnist_cnn_train.mlir named mnist_cnn. Includes only the header tfcc generated (and libc).
 *
 *   mnist_demo IMAGES-idx3-ubyte LABELS-idx1-ubyte [COUNT]
 *
 * Classifies every image, prints the prediction for the first COUNT (default
 * 10) and the accuracy on all, then the latency of one image at batch 1 and
 * per image at batch 64, and the instruction set the kernels ran on. */
#define _POSIX_C_SOURCE 199309L
#include "mnist_cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* const kClassNames[10] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

static uint32_t read_be32(const unsigned char* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Reads a whole IDX file; returns NULL with a message on error. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data = NULL;
  long n;
  if (!f) {
    fprintf(stderr, "mnist_demo: cannot open %s\n", path);
    return NULL;
  }
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = (unsigned char*)malloc((size_t)n);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  if (!data) fprintf(stderr, "mnist_demo: cannot read %s\n", path);
  return data;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int argmax10(const float* p) {
  int best = 0, i;
  for (i = 1; i < 10; ++i)
    if (p[i] > p[best]) best = i;
  return best;
}

int main(int argc, char** argv) {
  enum { kBatch = 64, kPixels = 28 * 28 };
  size_t image_bytes = 0, label_bytes = 0;
  unsigned char *images, *labels;
  uint32_t count, shown, i, correct = 0;
  float* input;
  float probs[kBatch * 10];
  tfcc_context* ctx = NULL;
  tfcc_status_t status;
  double start, batch1_ms, batch64_ms;
  int runs;

  if (argc < 3) {
    fprintf(stderr, "usage: %s IMAGES-idx3-ubyte LABELS-idx1-ubyte [COUNT]\n", argv[0]);
    return 2;
  }
  images = read_file(argv[1], &image_bytes);
  labels = read_file(argv[2], &label_bytes);
  if (!images || !labels) return 1;
  if (image_bytes < 16 || read_be32(images) != 0x803 || read_be32(images + 8) != 28 ||
      read_be32(images + 12) != 28 || label_bytes < 8 || read_be32(labels) != 0x801) {
    fprintf(stderr, "mnist_demo: not an uncompressed IDX image/label pair of 28x28 images\n");
    return 1;
  }
  count = read_be32(images + 4);
  if (image_bytes < 16 + (size_t)count * kPixels || label_bytes < 8 + (size_t)count) {
    fprintf(stderr, "mnist_demo: truncated IDX file\n");
    return 1;
  }
  shown = argc > 3 ? (uint32_t)atoi(argv[3]) : 10;
  if (shown > count) shown = count;
  if (count < kBatch) {
    fprintf(stderr, "mnist_demo: need at least %d images\n", kBatch);
    return 1;
  }

  /* Pixels scaled to [0, 1], NHWC with one channel. */
  input = (float*)malloc(sizeof(float) * (size_t)count * kPixels);
  if (!input) return 1;
  for (i = 0; i < count * kPixels; ++i) input[i] = images[16 + i] / 255.0f;

  status = mnist_cnn_create(kBatch, &ctx);
  if (status != TFCC_OK) {
    fprintf(stderr, "mnist_demo: %s\n", mnist_cnn_status_string(status));
    return 1;
  }

  /* Every image, in batches of kBatch (the last one partial). */
  printf("tfcc mnist_cnn on the %u Fashion-MNIST images of %s\n", count, argv[1]);
  for (i = 0; i < count; i += kBatch) {
    uint32_t n = count - i < kBatch ? count - i : kBatch, k;
    status = mnist_cnn_predict(ctx, n, input + (size_t)i * kPixels, probs);
    if (status != TFCC_OK) {
      fprintf(stderr, "mnist_demo: %s: %s\n", mnist_cnn_status_string(status), ctx->message);
      return 1;
    }
    for (k = 0; k < n; ++k) {
      int predicted = argmax10(probs + 10 * k);
      correct += predicted == labels[8 + i + k];
      if (i + k < shown)
        printf("image %4u: predicted %-11s (p=%.3f)  label %s\n", i + k,
               kClassNames[predicted], probs[10 * k + predicted],
               kClassNames[labels[8 + i + k]]);
    }
  }
  printf("accuracy on all %u images: %.2f%%\n", count, 100.0 * correct / count);

  /* Latency: simple averages over enough runs to take ~0.2 s. */
  runs = 0;
  start = now_seconds();
  do {
    mnist_cnn_predict(ctx, 1, input, probs);
    ++runs;
  } while (now_seconds() - start < 0.2);
  batch1_ms = 1e3 * (now_seconds() - start) / runs;
  runs = 0;
  start = now_seconds();
  do {
    status = mnist_cnn_predict(ctx, kBatch, input, probs);
    ++runs;
  } while (now_seconds() - start < 0.2);
  batch64_ms = 1e3 * (now_seconds() - start) / runs;
  printf("latency: %.3f ms per image at batch 1, %.3f ms per image at batch %d "
         "(1 thread, %s kernels)\n",
         batch1_ms, batch64_ms / kBatch, kBatch, mnist_cnn_kernels_isa());

  mnist_cnn_destroy(ctx);
  free(input);
  free(images);
  free(labels);
  return status == TFCC_OK ? 0 : 1;
}
