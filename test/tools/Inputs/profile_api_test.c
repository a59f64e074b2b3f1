/* Profiles the seed CNN through its generated header: the error statuses of
 * <prefix>_profile_start / _profile_stop, then a trace of three calls on a
 * context of the caller's memory written to argv[1] (read back by
 * test/tools/profiling/profile_test.py). Built with
 * cc -std=c99 -Wall -Wextra -Werror -pedantic. */
#include "mnist_cnn.h"

#include <stdio.h>
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

static unsigned char arena[MNIST_CNN_ARENA_BYTES(2)];
static float image[2 * 28 * 28];
static float probs[2 * 10];

int main(int argc, char** argv) {
  tfcc_context ctx;
  tfcc_context* other = NULL;
  tfcc_status_t s;
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: profile_api_test TRACE.json\n");
    return 2;
  }
  for (i = 0; i < 2 * 28 * 28; ++i) image[i] = (float)(i % 7) / 7.0f;

  s = mnist_cnn_profile_start(NULL);
  expect(s == TFCC_INVALID_ARGUMENT, "start with a NULL context", NULL);
  s = mnist_cnn_init(&ctx, arena, sizeof arena, 2);
  expect(s == TFCC_OK, "init", ctx.message);
  s = mnist_cnn_profile_stop(&ctx, argv[1]);
  expect(s == TFCC_FAILED_PRECONDITION && strstr(ctx.message, "not profiling"),
         "stop before start", ctx.message);

  s = mnist_cnn_profile_start(&ctx);
  expect(s == TFCC_OK, "start", ctx.message);
  /* Calls before a second start are dropped: the trace has three calls. */
  s = mnist_cnn_predict(&ctx, 1, image, probs);
  expect(s == TFCC_OK, "a call before starting over", ctx.message);
  s = mnist_cnn_profile_start(&ctx);
  expect(s == TFCC_OK, "start again (over)", ctx.message);
  for (i = 0; i < 3; ++i) {
    s = mnist_cnn_predict(&ctx, i == 2 ? 2 : 1, image, probs);
    expect(s == TFCC_OK, "a profiled call", ctx.message);
  }
  s = mnist_cnn_profile_stop(&ctx, "/nonexistent-folder/trace.json");
  expect(s == TFCC_INVALID_ARGUMENT &&
             strstr(ctx.message, "cannot write the profile"),
         "stop to a file that cannot be written", ctx.message);
  s = mnist_cnn_profile_stop(&ctx, argv[1]);
  expect(s == TFCC_OK, "stop writes the trace", ctx.message);
  s = mnist_cnn_profile_stop(&ctx, argv[1]);
  expect(s == TFCC_FAILED_PRECONDITION, "stop twice", ctx.message);
  s = mnist_cnn_predict(&ctx, 1, image, probs);
  expect(s == TFCC_OK, "a call after stopping", ctx.message);

  /* A heap context: stop(NULL) discards; destroy frees a profiling one. */
  s = mnist_cnn_create(1, &other);
  expect(s == TFCC_OK, "create", NULL);
  s = mnist_cnn_profile_start(other);
  expect(s == TFCC_OK, "start on a heap context", other->message);
  s = mnist_cnn_predict(other, 1, image, probs);
  expect(s == TFCC_OK, "a profiled call on it", other->message);
  s = mnist_cnn_profile_stop(other, NULL);
  expect(s == TFCC_OK, "stop discarding the spans", other->message);
  s = mnist_cnn_profile_start(other);
  expect(s == TFCC_OK, "start once more", other->message);
  mnist_cnn_destroy(other);

  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
