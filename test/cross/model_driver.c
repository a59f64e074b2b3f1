/* model_driver.c - runs a tfcc model linked statically (tfcc --emit=obj), through
 * nothing but the header tfcc wrote, on any target: the cross-compiled model
 * tests (test/cross/models.sh) build it per model with
 *   -DTFCC_MODEL_HEADER='"NAME.h"' -DTFCC_PREFIX=NAME
 * and run it under qemu-user.
 *
 *   model_driver INPUTS.bin OUTPUTS.bin BATCH [ENTRY]
 *
 * INPUTS.bin holds the entry's inputs (raw, row-major, concatenated in
 * argument order) for that batch; the outputs are written the same way.
 * Exits 0 on success, 1 with the context's message when a call fails, 2 on
 * bad arguments or files. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include TFCC_MODEL_HEADER

#define TFCC_CAT2(a, b) a##b
#define TFCC_CAT(a, b) TFCC_CAT2(a, b)
#define MODEL_FN(suffix) TFCC_CAT(TFCC_PREFIX, suffix)

static size_t dtype_bytes(int32_t dtype) {
  switch (dtype) {
  case TFCC_DTYPE_F64:
  case TFCC_DTYPE_I64:
    return 8;
  case TFCC_DTYPE_F32:
  case TFCC_DTYPE_I32:
    return 4;
  case TFCC_DTYPE_F16:
  case TFCC_DTYPE_BF16:
    return 2;
  default:
    return 1;
  }
}

/* Bytes of `a` with every dynamic dimension at `batch` (the models driven
 * here have no named dimensions). */
static size_t arg_bytes(const tfcc_arg_info* a, int64_t batch) {
  size_t n = dtype_bytes(a->dtype);
  for (int32_t i = 0; i < a->rank; ++i)
    n *= (size_t)(a->dims[i] < 0 ? batch : a->dims[i]);
  return n;
}

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    fprintf(stderr, "usage: model_driver INPUTS.bin OUTPUTS.bin BATCH [ENTRY]\n");
    return 2;
  }
  const int64_t batch = atoll(argv[3]);
  const int32_t entry = argc == 5 ? atoi(argv[4]) : 0;
  const tfcc_model_info* info = MODEL_FN(_info)();
  if (entry < 0 || entry >= info->num_entries) {
    fprintf(stderr, "model_driver: no entry %d\n", (int)entry);
    return 2;
  }
  const tfcc_entry_info* e = &info->entries[entry];
  void** in = calloc((size_t)e->num_inputs + 1, sizeof(void*));
  void** out = calloc((size_t)e->num_outputs + 1, sizeof(void*));
  FILE* f = fopen(argv[1], "rb");
  if (!in || !out || !f) {
    fprintf(stderr, "model_driver: cannot read %s\n", argv[1]);
    return 2;
  }
  for (int32_t i = 0; i < e->num_inputs; ++i) {
    size_t bytes = arg_bytes(&e->inputs[i], batch);
    in[i] = malloc(bytes ? bytes : 1);
    if (!in[i] || fread(in[i], 1, bytes, f) != bytes) {
      fprintf(stderr, "model_driver: %s is shorter than the inputs\n", argv[1]);
      return 2;
    }
  }
  if (fgetc(f) != EOF) {
    fprintf(stderr, "model_driver: %s is longer than the inputs\n", argv[1]);
    return 2;
  }
  fclose(f);
  for (int32_t i = 0; i < e->num_outputs; ++i) {
    size_t bytes = arg_bytes(&e->outputs[i], batch);
    out[i] = calloc(bytes ? bytes : 1, 1);
    if (!out[i])
      return 2;
  }
  tfcc_context* ctx = NULL;
  tfcc_status_t s = MODEL_FN(_create)(batch, &ctx);
  if (s != TFCC_OK) {
    fprintf(stderr, "model_driver: create failed: status %d\n", (int)s);
    return 1;
  }
  s = MODEL_FN(_invoke)(entry, ctx, batch, (const void* const*)in, out);
  if (s != TFCC_OK) {
    fprintf(stderr, "model_driver: invoke failed: %s\n", ctx->message);
    return 1;
  }
  f = fopen(argv[2], "wb");
  if (!f)
    return 2;
  for (int32_t i = 0; i < e->num_outputs; ++i) {
    size_t bytes = arg_bytes(&e->outputs[i], batch);
    if (fwrite(out[i], 1, bytes, f) != bytes)
      return 2;
  }
  if (fclose(f))
    return 2;
  MODEL_FN(_destroy)(ctx);
  return 0;
}
