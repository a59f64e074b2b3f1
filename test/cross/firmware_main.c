/* firmware_main.c - a bare-metal program that runs one model compiled with
 * tfcc --target=thumbv7em-none-eabihf --emit=obj, through nothing but the
 * generated header, on inputs compiled into it, and prints every output value
 * (semihosting's stdout) -- test/cross/cortex-m.sh builds it per model with
 *   -DTFCC_MODEL_HEADER='"NAME.h"' -DTFCC_PREFIX=NAME
 *   -DMODEL_ARENA_BYTES=NAME_ARENA_BYTES -DBATCH=N
 * and a generated C file defining model_input (the entry's float32 inputs,
 * concatenated). No malloc: the context and the arena are static. Exits 0
 * when the model ran, 1 with the context's message otherwise. */
#include <stdint.h>
#include <stdio.h>

#include TFCC_MODEL_HEADER

#define TFCC_CAT2(a, b) a##b
#define TFCC_CAT(a, b) TFCC_CAT2(a, b)
#define MODEL_FN(suffix) TFCC_CAT(TFCC_PREFIX, suffix)

/* The largest output this program holds, in floats. */
#define MAX_OUTPUT_FLOATS 4096
#define MAX_ARGS 8

extern const float model_input[];
extern const uint32_t model_input_floats;

static uint8_t arena[MODEL_ARENA_BYTES(BATCH)] __attribute__((aligned(64)));
static tfcc_context ctx;
static float outputs[MAX_OUTPUT_FLOATS];

/* Elements of `a` with the batch dimension at BATCH. */
static uint32_t elements(const tfcc_arg_info* a) {
  uint32_t n = 1;
  for (int32_t i = 0; i < a->rank; ++i)
    n *= (uint32_t)(a->dims[i] < 0 ? BATCH : a->dims[i]);
  return n;
}

int main(void) {
  const tfcc_entry_info* e = &MODEL_FN(_info)()->entries[0];
  const void* in[MAX_ARGS];
  void* out[MAX_ARGS];
  uint32_t used = 0, count[MAX_ARGS];
  if (e->num_inputs > MAX_ARGS || e->num_outputs > MAX_ARGS) {
    printf("too many arguments\n");
    return 1;
  }
  for (int32_t i = 0; i < e->num_inputs; ++i) {
    if (e->inputs[i].dtype != TFCC_DTYPE_F32) {
      printf("input %d is not float32\n", (int)i);
      return 1;
    }
    in[i] = model_input + used;
    used += elements(&e->inputs[i]);
  }
  if (used != model_input_floats) {
    printf("the inputs hold %u floats, the entry takes %u\n",
           (unsigned)model_input_floats, (unsigned)used);
    return 1;
  }
  used = 0;
  for (int32_t i = 0; i < e->num_outputs; ++i) {
    count[i] = elements(&e->outputs[i]);
    if (e->outputs[i].dtype != TFCC_DTYPE_F32 ||
        used + count[i] > MAX_OUTPUT_FLOATS) {
      printf("output %d is not float32 or too large\n", (int)i);
      return 1;
    }
    out[i] = outputs + used;
    used += count[i];
  }
  tfcc_status_t s = MODEL_FN(_init)(&ctx, arena, sizeof arena, BATCH);
  if (s == TFCC_OK)
    s = MODEL_FN(_invoke)(0, &ctx, BATCH, in, out);
  if (s != TFCC_OK) {
    printf("status %d: %s\n", (int)s, ctx.message);
    return 1;
  }
  for (uint32_t i = 0; i < used; ++i)
    printf("%.9g\n", (double)outputs[i]);
  return 0;
}
