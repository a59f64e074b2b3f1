//===- c_api.cpp - libFuzzer harness: the generated C API -----------------===//
//
// A compiled model (test/tools/Inputs/train_mlp_small.mlir: predict, loss and
// a train step with state) called the way careless C code calls it: fuzzed
// max_batch, arena size and alignment (or NULL), thread counts, entry
// indices, batches, NULL inputs and outputs, variable names and sizes, input
// values (labels out of range, NaNs). Every buffer ends at a guard page, so
// a model reading or writing past what the header promises faults (the
// model's code is not instrumented). Each status must be the one the header
// documents for those arguments.
//
//===----------------------------------------------------------------------===//

#include "mlp_small.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace {

[[noreturn]] void fail(const std::string &what, const tfcc_context *ctx) {
  std::fprintf(stderr, "c_api: %s (message: %s)\n", what.c_str(),
               ctx ? ctx->message : "");
  std::abort();
}

// `bytes` bytes that end right before an inaccessible page.
class GuardedBuffer {
public:
  explicit GuardedBuffer(uint64_t bytes) : bytes(bytes) {
    long page = sysconf(_SC_PAGESIZE);
    mapped = (bytes + 2 * page - 1) / page * page;
    base = static_cast<uint8_t *>(mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base == MAP_FAILED)
      fail("mmap failed", nullptr);
    mprotect(base + mapped - page, page, PROT_NONE);
    data = base + mapped - page - bytes;
  }
  ~GuardedBuffer() { munmap(base, mapped); }
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  uint8_t *data;
  uint64_t bytes;

private:
  uint8_t *base;
  uint64_t mapped;
};

int64_t fuzzedBatch(FuzzedDataProvider &fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
  case 0: return std::numeric_limits<int64_t>::min();
  case 1: return std::numeric_limits<int64_t>::max();
  case 2: return fdp.ConsumeIntegral<int64_t>();
  case 3: return fdp.ConsumeIntegralInRange<int64_t>(-2, 0);
  default: return fdp.ConsumeIntegralInRange<int64_t>(1, 6);
  }
}

// Bytes of one argument at `batch` (dynamic dims are the batch).
uint64_t argBytes(const tfcc_arg_info &arg, int64_t batch) {
  uint64_t n = 1;
  for (int32_t d = 0; d < arg.rank; ++d)
    n *= arg.dims[d] == TFCC_DIM_DYNAMIC ? uint64_t(batch) : uint64_t(arg.dims[d]);
  uint64_t element = 0;
  switch (arg.dtype) {
#define TFCC_FUZZ_DTYPE_BYTES(name, number, bytes, ctype)                       \
  case TFCC_DTYPE_##name:                                                      \
    element = bytes;                                                           \
    break;
    TFCC_DTYPES(TFCC_FUZZ_DTYPE_BYTES)
#undef TFCC_FUZZ_DTYPE_BYTES
  }
  return n * element;
}

// One call of a fuzzed entry; checks the status against the header.
void fuzzInvoke(FuzzedDataProvider &fdp, tfcc_context *ctx, int64_t maxBatch) {
  const tfcc_model_info *info = mlp_small_info();
  int32_t entry = fdp.ConsumeIntegralInRange<int32_t>(-1, info->num_entries);
  int64_t batch = fuzzedBatch(fdp);
  bool entryOk = entry >= 0 && entry < info->num_entries;
  const tfcc_entry_info *e = entryOk ? &info->entries[entry] : nullptr;
  bool batchOk = !e || !e->has_dynamic_batch || (batch >= 1 && batch <= maxBatch);
  // Buffers for the batch when it is valid, else one element's worth: the
  // call must refuse before touching them.
  int64_t sized = batchOk ? batch : 1;
  std::vector<std::unique_ptr<GuardedBuffer>> buffers;
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  bool anyNull = false;
  auto make = [&](const tfcc_arg_info &arg, bool isInput) -> void * {
    if (fdp.ConsumeProbability<float>() < 0.05f) {
      anyNull = true;
      return nullptr;
    }
    buffers.push_back(std::make_unique<GuardedBuffer>(argBytes(arg, sized)));
    GuardedBuffer &b = *buffers.back();
    if (isInput) {
      std::vector<uint8_t> bytes = fdp.ConsumeBytes<uint8_t>(b.bytes);
      if (!bytes.empty())
        std::memcpy(b.data, bytes.data(), bytes.size());
      std::memset(b.data + bytes.size(), 0, b.bytes - bytes.size());
    }
    return b.data;
  };
  if (e) {
    for (int32_t i = 0; i < e->num_inputs; ++i)
      inputs.push_back(make(e->inputs[i], true));
    for (int32_t i = 0; i < e->num_outputs; ++i)
      outputs.push_back(make(e->outputs[i], false));
  }
  bool nullArrays = fdp.ConsumeProbability<float>() < 0.03f;
  tfcc_status_t s = mlp_small_invoke(entry, ctx, batch,
                                     nullArrays ? nullptr : inputs.data(),
                                     nullArrays ? nullptr : outputs.data());
  bool shouldFail = !entryOk || anyNull || (nullArrays && e &&
                                            (e->num_inputs || e->num_outputs));
  if (shouldFail && s == TFCC_OK)
    fail("invoke accepted an invalid entry index or a NULL pointer", ctx);
  if (!shouldFail && !batchOk && s != TFCC_OUT_OF_RANGE)
    fail("invoke with batch " + std::to_string(batch) + " of max " +
             std::to_string(maxBatch) + " returned " +
             mlp_small_status_string(s),
         ctx);
  // A valid call succeeds, or reports a label out of range (clamped).
  if (!shouldFail && batchOk && s != TFCC_OK && s != TFCC_OUT_OF_RANGE)
    fail(std::string("a valid call returned ") + mlp_small_status_string(s), ctx);
}

void fuzzVariables(FuzzedDataProvider &fdp, tfcc_context *ctx) {
  const tfcc_model_info *info = mlp_small_info();
  std::string name;
  int32_t known = fdp.ConsumeIntegralInRange<int32_t>(-1, info->num_variables - 1);
  name = known >= 0 ? info->variables[known].name : fdp.ConsumeRandomLengthString(40);
  name = name.c_str(); // what the C API sees: up to the first NUL
  const tfcc_variable_info *v = nullptr;
  for (int32_t i = 0; i < info->num_variables; ++i)
    if (name == info->variables[i].name)
      v = &info->variables[i];
  uint64_t bytes = v && fdp.ConsumeBool() ? v->bytes
                                          : fdp.ConsumeIntegralInRange<uint64_t>(0, 4096);
  GuardedBuffer buffer(bytes);
  bool set = fdp.ConsumeBool();
  tfcc_status_t s =
      set ? mlp_small_set_variable(ctx, name.c_str(), buffer.data, bytes)
          : mlp_small_get_variable(ctx, name.c_str(), buffer.data, bytes);
  bool valid = v && bytes == v->bytes;
  if (valid != (s == TFCC_OK))
    fail("get/set_variable '" + name + "' with " + std::to_string(bytes) +
             " bytes returned " + mlp_small_status_string(s),
         ctx);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  int64_t maxBatch = fuzzedBatch(fdp);
  tfcc_context *ctx = nullptr;
  tfcc_context local;
  std::unique_ptr<GuardedBuffer> arena;
  if (fdp.ConsumeBool()) {
    // Caller-provided arena: exact, short or long, any alignment, or NULL.
    uint64_t needed = maxBatch >= 1 && maxBatch <= 6 ? MLP_SMALL_ARENA_BYTES(maxBatch) : 4096;
    int64_t delta = fdp.ConsumeIntegralInRange<int64_t>(-130, 130);
    uint64_t bytes = delta < 0 && uint64_t(-delta) > needed ? 0 : needed + delta;
    unsigned misalign = fdp.ConsumeIntegralInRange<unsigned>(0, 63);
    bool null = fdp.ConsumeProbability<float>() < 0.05f;
    arena = std::make_unique<GuardedBuffer>(bytes + misalign);
    void *block = null ? nullptr : arena->data + misalign;
    tfcc_status_t s = mlp_small_init(&local, block, bytes, maxBatch);
    // The documented bound: ARENA_BYTES(max_batch) - 64 plus the bytes that
    // align the block to 64.
    uint64_t padding = (64 - reinterpret_cast<uintptr_t>(block) % 64) % 64;
    bool big = maxBatch >= 1 && maxBatch <= 6 &&
               bytes + 64 >= MLP_SMALL_ARENA_BYTES(maxBatch) + padding;
    // Past 6 the arena is far too small (4226 bytes at most): any refusal.
    // (max_batch is checked first: whether the arena is needed depends on it.)
    tfcc_status_t expected = maxBatch < 1   ? TFCC_OUT_OF_RANGE
                             : null         ? TFCC_INVALID_ARGUMENT
                             : maxBatch > 6 ? (s == TFCC_OK ? TFCC_INTERNAL : s)
                             : big          ? TFCC_OK
                                            : TFCC_RESOURCE_EXHAUSTED;
    if (s != expected)
      fail("init(max_batch " + std::to_string(maxBatch) + ", " +
               std::to_string(bytes) + " bytes, misaligned by " +
               std::to_string(misalign) + ") returned " +
               mlp_small_status_string(s),
           &local);
    if (s != TFCC_OK)
      return 0;
    ctx = &local;
  } else {
    if (maxBatch > 6)
      maxBatch = 6; // keep the allocation small
    int32_t threads = fdp.ConsumeIntegralInRange<int32_t>(-1, 3);
    tfcc_status_t s = mlp_small_create_with_threads(maxBatch, threads, &ctx);
    bool valid = maxBatch >= 1 && threads >= 1;
    if (valid != (s == TFCC_OK))
      fail("create_with_threads(" + std::to_string(maxBatch) + ", " +
               std::to_string(threads) + ") returned " +
               mlp_small_status_string(s),
           ctx);
    if (s != TFCC_OK) {
      if (ctx)
        fail("a failed create left a context", nullptr);
      return 0;
    }
  }
  while (fdp.remaining_bytes() > 0) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: fuzzVariables(fdp, ctx); break;
    case 1:
      if (mlp_small_reset_state(ctx) != TFCC_OK)
        fail("reset_state failed", ctx);
      break;
    default: fuzzInvoke(fdp, ctx, maxBatch); break;
    }
  }
  if (ctx != &local)
    mlp_small_destroy(ctx);
  return 0;
}
