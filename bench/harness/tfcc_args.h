/* Argument sizes from a tfcc model's info table, shared by the tfcc harnesses
 * (tfcc_bench.c, ../train/tfcc_train_harness.c). Include after
 * "tfcc/tfcc_types.h". */
#ifndef TFCC_BENCH_TFCC_ARGS_H
#define TFCC_BENCH_TFCC_ARGS_H

#include <stddef.h>
#include <stdint.h>

static size_t dtype_bytes(int32_t dtype) {
  switch (dtype) {
    case TFCC_DTYPE_F32: case TFCC_DTYPE_I32: return 4;
    case TFCC_DTYPE_I64: case TFCC_DTYPE_F64: return 8;
    case TFCC_DTYPE_F16: case TFCC_DTYPE_BF16: return 2;
    default: return 1;
  }
}

/* Bytes of argument `a` with every dynamic dim set to `batch`. */
static size_t arg_bytes(const tfcc_arg_info* a, int64_t batch) {
  size_t n = dtype_bytes(a->dtype);
  for (int32_t i = 0; i < a->rank; ++i)
    n *= (size_t)(a->dims[i] == TFCC_DIM_DYNAMIC ? batch : a->dims[i]);
  return n;
}

#endif
