//===- RuntimeTest.cpp - Tests of the C runtime in compiled models --------===//
//
// A hand-written model table with fake kernels stands in for compiled code:
// "scale" (a dynamic batch, y = 2 * x) and "sum" (static shapes, s = a + b).
//
//===----------------------------------------------------------------------===//

#include "tfcc/tfcc_kernels.h"
#include "tfcc/tfcc_runtime.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

// What the kernels saw on their last call.
struct KernelLog {
  int calls = 0;
  int64_t batch = 0;
  void *arena = nullptr;
  const tfcc_context *ctx = nullptr; // the context the test is calling with
  bool arenaOk = true;
  tfcc_rt_pool *pool = nullptr; // the current pool during the call
};
KernelLog kernelLog;

void checkArena(int64_t batch, void *arena, uint64_t need) {
  ++kernelLog.calls;
  kernelLog.pool = tfcc_rt_get_current_pool();
  kernelLog.batch = batch;
  kernelLog.arena = arena;
  const tfcc_context *ctx = kernelLog.ctx;
  auto address = reinterpret_cast<uintptr_t>(arena);
  auto begin = reinterpret_cast<uintptr_t>(ctx ? ctx->arena : nullptr);
  kernelLog.arenaOk = ctx && address % 64 == 0 && address >= begin &&
                      address + need <= begin + ctx->arena_bytes;
  if (kernelLog.arenaOk) // the whole promised arena is writable
    std::memset(arena, 0xab, need);
}

const int64_t kScaleDims[] = {TFCC_DIM_DYNAMIC, 4};
const int64_t kSumDims[] = {3};
const tfcc_arg_info kScaleInputs[] = {{"x", TFCC_DTYPE_F32, 2, kScaleDims}};
const tfcc_arg_info kScaleOutputs[] = {{"y", TFCC_DTYPE_F32, 2, kScaleDims}};
const tfcc_arg_info kSumInputs[] = {{"a", TFCC_DTYPE_F32, 1, kSumDims},
                                    {"b", TFCC_DTYPE_F32, 1, kSumDims}};
const tfcc_arg_info kSumOutputs[] = {{"s", TFCC_DTYPE_F32, 1, kSumDims}};

void scaleKernel(void *const *buffers, const int64_t *dims, void *arena,
                 void * /*state*/) {
  int64_t batch = dims[0];
  checkArena(batch, arena, 100 + 50 * static_cast<uint64_t>(batch));
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < batch * 4; ++i)
    y[i] = 2 * x[i];
}

void sumKernel(void *const *buffers, const int64_t *dims, void *arena,
                 void * /*state*/) {
  int64_t batch = dims[0];
  checkArena(batch, arena, 64);
  const float *a = static_cast<const float *>(buffers[0]);
  const float *b = static_cast<const float *>(buffers[1]);
  float *s = static_cast<float *>(buffers[2]);
  for (int i = 0; i < 3; ++i)
    s[i] = a[i] + b[i];
}

// "sum" has a per-batch size that must be ignored: it has no dynamic dim.
const tfcc_entry_info kEntries[] = {
    {"scale", 1, 1, kScaleInputs, kScaleOutputs, 1, 0, 100, 50, scaleKernel},
    {"sum", 2, 1, kSumInputs, kSumOutputs, 0, 0, 64, 1000, sumKernel},
};
const tfcc_model_info kModel = {TFCC_ABI_VERSION, 2, "fake", kEntries, 0};
const tfcc_model_info kOtherModel = {TFCC_ABI_VERSION, 2, "other", kEntries, 0};
const tfcc_model_info kFutureModel = {TFCC_ABI_VERSION + 1, 2, "future",
                                      kEntries, 0};

// kModel at max_batch 8: max(100 + 50 * 8 = 500 -> 512, 64) + 64.
constexpr uint64_t kNeed8 = 512;

std::string message(const tfcc_context &ctx) {
  return tfcc_rt_context_message(&ctx);
}

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    kernelLog = KernelLog();
    kernelLog.ctx = &ctx;
    std::memset(&ctx, 0, sizeof(ctx));
    ASSERT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, sizeof(arena), 8),
              TFCC_OK)
        << message(ctx);
  }

  tfcc_status_t scale(int64_t batch, const float *in, float *out,
                      tfcc_context *context) {
    const void *inputs[] = {in};
    void *outputs[] = {out};
    return tfcc_rt_invoke(&kModel, 0, context, batch, inputs, outputs);
  }

  tfcc_status_t scale(int64_t batch) {
    return scale(batch, x.data(), y.data(), &ctx);
  }

  alignas(64) uint8_t arena[1024];
  tfcc_context ctx;
  std::vector<float> x = std::vector<float>(64 * 4, 1.5f);
  std::vector<float> y = std::vector<float>(64 * 4, 0.f);
};

// A model with state memory: two variables and an init image.
const int64_t kVarDims[] = {3};
const tfcc_variable_info kVariables[] = {
    {"w", TFCC_DTYPE_F32, 1, kVarDims, 0, 12, 1, 0},
    {"step", TFCC_DTYPE_I64, 0, nullptr, 64, 8, 0, 0},
};
struct alignas(64) StateImage {
  float w[16] = {1, 2, 3};
  int64_t step = 7;
};
const StateImage kStateInit;
const tfcc_model_info kStatefulModel = {
    TFCC_ABI_VERSION, 2, "stateful", kEntries, 0, 72, 2, 0, kVariables,
    &kStateInit};

TEST(RuntimeStateTest, InitCopiesTheImageAndVariablesAreAddressedByName) {
  // The block holds the state (72 -> 128 bytes) before the arena.
  uint64_t need = tfcc_rt_model_arena_bytes(&kStatefulModel, 2);
  EXPECT_EQ(need, tfcc_rt_model_arena_bytes(&kModel, 2) + 128);
  std::vector<uint8_t> block(need);
  tfcc_context ctx;
  ASSERT_EQ(tfcc_rt_context_init(&kStatefulModel, &ctx, block.data(),
                                 block.size(), 2),
            TFCC_OK)
      << ctx.message;
  ASSERT_NE(ctx.state, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ctx.state) % 64, 0u);
  EXPECT_EQ(static_cast<char *>(ctx.arena) - static_cast<char *>(ctx.state),
            128);
  float w[3] = {};
  ASSERT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "w", w, sizeof w),
            TFCC_OK);
  EXPECT_EQ(w[2], 3.0f);
  const float w2[3] = {4, 5, 6};
  ASSERT_EQ(tfcc_rt_set_variable(&kStatefulModel, &ctx, "w", w2, sizeof w2),
            TFCC_OK);
  ASSERT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "w", w, sizeof w),
            TFCC_OK);
  EXPECT_EQ(w[0], 4.0f);
  int64_t step = 0;
  ASSERT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "step", &step, 8),
            TFCC_OK);
  EXPECT_EQ(step, 7);

  EXPECT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "v", w, sizeof w),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ctx.message).find("no variable 'v'"),
            std::string::npos)
      << ctx.message;
  EXPECT_EQ(tfcc_rt_set_variable(&kStatefulModel, &ctx, "w", w2, 8),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ctx.message).find("has 12 bytes"), std::string::npos)
      << ctx.message;
  EXPECT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, nullptr, w, 12),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "w", nullptr, 12),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_get_variable(&kStatefulModel, nullptr, "w", w, 12),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_get_variable(&kModel, &ctx, "w", w, 12),
            TFCC_INVALID_ARGUMENT); // a context of another model

  ASSERT_EQ(tfcc_rt_reset_state(&kStatefulModel, &ctx), TFCC_OK);
  ASSERT_EQ(tfcc_rt_get_variable(&kStatefulModel, &ctx, "w", w, sizeof w),
            TFCC_OK);
  EXPECT_EQ(w[0], 1.0f);

  // A model without state: no state pointer, no variables.
  tfcc_context plain;
  std::vector<uint8_t> arena(tfcc_rt_model_arena_bytes(&kModel, 2));
  ASSERT_EQ(tfcc_rt_context_init(&kModel, &plain, arena.data(), arena.size(),
                                 2),
            TFCC_OK);
  EXPECT_EQ(plain.state, nullptr);
  EXPECT_EQ(tfcc_rt_get_variable(&kModel, &plain, "w", w, 12),
            TFCC_INVALID_ARGUMENT);
}

TEST(RuntimeLayoutTest, MatchesTheCompilersConstants) {
  if (sizeof(void *) != 8)
    GTEST_SKIP() << "layout checked for 64-bit targets";
  EXPECT_EQ(sizeof(tfcc_arg_info), 24u);
  EXPECT_EQ(offsetof(tfcc_arg_info, dims), 16u);
  EXPECT_EQ(sizeof(tfcc_entry_info), 72u);
  EXPECT_EQ(offsetof(tfcc_entry_info, resolve_dims), 64u);
  EXPECT_EQ(offsetof(tfcc_entry_info, inputs), 16u);
  EXPECT_EQ(offsetof(tfcc_entry_info, has_dynamic_batch), 32u);
  EXPECT_EQ(offsetof(tfcc_entry_info, has_named_dims), 36u);
  EXPECT_EQ(offsetof(tfcc_entry_info, arena_bytes_fixed), 40u);
  EXPECT_EQ(offsetof(tfcc_entry_info, arena_bytes_per_batch), 48u);
  EXPECT_EQ(offsetof(tfcc_entry_info, kernel), 56u);
  EXPECT_EQ(sizeof(tfcc_model_info), 96u);
  EXPECT_EQ(offsetof(tfcc_model_info, dim_flags), 88u);
  EXPECT_EQ(offsetof(tfcc_model_info, num_dims), 64u);
  EXPECT_EQ(offsetof(tfcc_model_info, dim_names), 72u);
  EXPECT_EQ(offsetof(tfcc_model_info, dim_bounds), 80u);
  EXPECT_EQ(offsetof(tfcc_model_info, name), 8u);
  EXPECT_EQ(offsetof(tfcc_model_info, weight_bytes), 24u);
  EXPECT_EQ(offsetof(tfcc_model_info, state_bytes), 32u);
  EXPECT_EQ(offsetof(tfcc_model_info, num_variables), 40u);
  EXPECT_EQ(offsetof(tfcc_model_info, variables), 48u);
  EXPECT_EQ(offsetof(tfcc_model_info, state_init), 56u);
  EXPECT_EQ(sizeof(tfcc_variable_info), 48u);
  EXPECT_EQ(offsetof(tfcc_variable_info, offset), 24u);
  EXPECT_EQ(offsetof(tfcc_variable_info, trainable), 40u);
  EXPECT_EQ(offsetof(tfcc_context, state), 16u);
  EXPECT_EQ(offsetof(tfcc_context, max_batch), 40u);
  EXPECT_EQ(offsetof(tfcc_context, num_threads), 52u);
  EXPECT_EQ(offsetof(tfcc_context, pool), 56u);
  EXPECT_EQ(offsetof(tfcc_context, message), 64u);
  EXPECT_EQ(offsetof(tfcc_context, profile), 320u);
  EXPECT_EQ(sizeof(tfcc_context), 328u);
}

TEST(RuntimeArenaTest, EntryFormula) {
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[0], 1), 192u); // 150
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[0], 2), 256u); // 200
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[0], 0), 128u); // 100
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[0], -5), 128u);
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[1], 1), 64u);
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[1], 1000),
            64u); // static: no per-batch part
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(nullptr, 1), 0u);
  EXPECT_EQ(tfcc_rt_entry_arena_bytes(&kEntries[0], INT64_MAX), UINT64_MAX);
}

TEST(RuntimeArenaTest, ModelFormula) {
  EXPECT_EQ(tfcc_rt_model_arena_bytes(&kModel, 8), kNeed8 + 64);
  EXPECT_EQ(tfcc_rt_model_arena_bytes(&kModel, 1), 192u + 64);
  EXPECT_EQ(tfcc_rt_model_arena_bytes(nullptr, 8), 0u);
  EXPECT_EQ(tfcc_rt_model_arena_bytes(&kModel, INT64_MAX), UINT64_MAX);
  const tfcc_model_info empty = {TFCC_ABI_VERSION, 0, "empty", nullptr, 0};
  EXPECT_EQ(tfcc_rt_model_arena_bytes(&empty, 8), 64u);
}

TEST_F(RuntimeTest, RunsDynamicEntry) {
  for (int i = 0; i < 12; ++i)
    x[i] = static_cast<float>(i) - 3.f;
  ASSERT_EQ(scale(3), TFCC_OK) << message(ctx);
  EXPECT_EQ(message(ctx), "");
  EXPECT_EQ(kernelLog.calls, 1);
  EXPECT_EQ(kernelLog.batch, 3);
  EXPECT_EQ(kernelLog.arena, ctx.arena);
  EXPECT_TRUE(kernelLog.arenaOk);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y[i], 2.f * (static_cast<float>(i) - 3.f)) << i;
  EXPECT_EQ(y[12], 0.f); // nothing written past batch 3
  EXPECT_EQ(scale(8), TFCC_OK) << message(ctx);
  EXPECT_TRUE(kernelLog.arenaOk);
}

TEST_F(RuntimeTest, StaticEntryIgnoresBatch) {
  const float a[] = {1, 2, 3}, b[] = {10, 20, 30};
  float s[3] = {0, 0, 0};
  const void *inputs[] = {a, b};
  void *outputs[] = {s};
  for (int64_t batch : {int64_t{0}, int64_t{-1}, int64_t{1000}}) {
    ASSERT_EQ(tfcc_rt_invoke(&kModel, 1, &ctx, batch, inputs, outputs), TFCC_OK)
        << message(ctx);
    EXPECT_EQ(kernelLog.batch, 1);
    EXPECT_TRUE(kernelLog.arenaOk);
  }
  EXPECT_EQ(s[0], 11.f);
  EXPECT_EQ(s[2], 33.f);
}

TEST_F(RuntimeTest, SuccessClearsAnEarlierMessage) {
  EXPECT_EQ(scale(0), TFCC_OUT_OF_RANGE);
  EXPECT_NE(message(ctx), "");
  EXPECT_EQ(scale(1), TFCC_OK);
  EXPECT_EQ(message(ctx), "");
}

TEST_F(RuntimeTest, RejectsNullContext) {
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, nullptr, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsNullModel) {
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  EXPECT_EQ(tfcc_rt_invoke(nullptr, 0, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "model info is NULL");
}

TEST_F(RuntimeTest, RejectsContextOfAnotherModel) {
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  EXPECT_EQ(tfcc_rt_invoke(&kOtherModel, 0, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "context was initialized for model fake, not other");
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsUninitializedContext) {
  tfcc_context fresh;
  std::memset(&fresh, 0, sizeof(fresh));
  EXPECT_EQ(scale(1, x.data(), y.data(), &fresh), TFCC_INVALID_ARGUMENT);
  EXPECT_NE(message(fresh).find("not initialized"), std::string::npos)
      << message(fresh);
}

TEST_F(RuntimeTest, RejectsBadEntryIndex) {
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 2, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx),
            "entry index 2 is out of range: model fake has 2 entries");
  EXPECT_EQ(tfcc_rt_invoke(&kModel, -1, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(message(ctx).find("entry index -1"), std::string::npos);
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsNullInput) {
  EXPECT_EQ(scale(1, nullptr, y.data(), &ctx), TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "input 'x' of fake_scale is NULL");
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, &ctx, 1, nullptr, nullptr),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "the inputs array of fake_scale is NULL");
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsNullOutput) {
  EXPECT_EQ(scale(1, x.data(), nullptr, &ctx), TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "output 'y' of fake_scale is NULL");
  const float a[3] = {}, b[3] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {nullptr};
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 1, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "output 's' of fake_sum is NULL");
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsBatchBelowOne) {
  EXPECT_EQ(scale(0), TFCC_OUT_OF_RANGE);
  EXPECT_NE(message(ctx).find("batch 0 is out of range"), std::string::npos)
      << message(ctx);
  EXPECT_EQ(scale(-3), TFCC_OUT_OF_RANGE);
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsBatchAboveMax) {
  EXPECT_EQ(scale(9), TFCC_OUT_OF_RANGE);
  EXPECT_NE(message(ctx).find("batch 9 exceeds the declared maximum 8"),
            std::string::npos)
      << message(ctx);
  EXPECT_EQ(kernelLog.calls, 0);
}

TEST_F(RuntimeTest, RejectsArenaShrunkAfterInit) {
  ctx.arena_bytes = 192; // enough for batch 1 only
  EXPECT_EQ(scale(1), TFCC_OK);
  EXPECT_EQ(scale(2), TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(
      message(ctx),
      "arena of 192 bytes is too small: fake_scale needs 256 bytes at batch 2");
}

TEST_F(RuntimeTest, RejectsMalformedEntries) {
  static const tfcc_entry_info entries[] = {
      {"nokernel", 0, 0, nullptr, nullptr, 0, 0, 0, 0, nullptr},
      {"huge", 300, 0, nullptr, nullptr, 0, 0, 0, 0, scaleKernel},
  };
  static const tfcc_model_info model = {TFCC_ABI_VERSION, 2, "bad", entries, 0};
  tfcc_context bad;
  ASSERT_EQ(tfcc_rt_context_init(&model, &bad, nullptr, 0, 1), TFCC_OK)
      << message(bad);
  EXPECT_EQ(tfcc_rt_invoke(&model, 0, &bad, 1, nullptr, nullptr),
            TFCC_INTERNAL);
  EXPECT_NE(message(bad).find("kernel NULL"), std::string::npos)
      << message(bad);
  EXPECT_EQ(tfcc_rt_invoke(&model, 1, &bad, 1, nullptr, nullptr),
            TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(
      message(bad),
      "entry bad_huge has 300 arguments: the runtime supports at most 256");
}

TEST(RuntimeInitTest, AlignsAnUnalignedArena) {
  alignas(64) static uint8_t arena[kNeed8 + 64];
  tfcc_context ctx;
  ASSERT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena + 1, kNeed8 + 63, 8),
            TFCC_OK)
      << message(ctx);
  EXPECT_EQ(ctx.arena, arena + 64);
  EXPECT_EQ(ctx.arena_bytes, kNeed8);
  EXPECT_EQ(ctx.max_batch, 8);
  EXPECT_EQ(ctx.owns_arena, 0);
  EXPECT_EQ(ctx.model, &kModel);
  // The documented size always suffices, whatever the alignment.
  for (int offset = 0; offset < 64; ++offset)
    EXPECT_EQ(
        tfcc_rt_context_init(&kModel, &ctx, arena + offset,
                             tfcc_rt_model_arena_bytes(&kModel, 8) - offset, 8),
        TFCC_OK)
        << "offset " << offset << ": " << message(ctx);
}

TEST(RuntimeInitTest, RejectsArenaTooSmall) {
  alignas(64) static uint8_t arena[kNeed8 + 64];
  tfcc_context ctx;
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, kNeed8, 8), TFCC_OK);
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, 100, 8),
            TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(
      message(ctx),
      "arena of 100 bytes is too small: fake needs 512 bytes at max_batch 8");
  EXPECT_EQ(ctx.model, nullptr); // unusable after a failed init
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena + 1, kNeed8, 8),
            TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(
      message(ctx),
      "arena of 512 bytes is too small: fake needs 575 bytes at max_batch "
      "8 (63 of them to align the arena to 64 bytes)");
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena + 1, 10, 8),
            TFCC_RESOURCE_EXHAUSTED);
}

TEST(RuntimeInitTest, RejectsBadArguments) {
  alignas(64) static uint8_t arena[kNeed8];
  tfcc_context ctx;
  EXPECT_EQ(tfcc_rt_context_init(&kModel, nullptr, arena, sizeof(arena), 8),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_context_init(nullptr, &ctx, arena, sizeof(arena), 8),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "model info is NULL");
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, nullptr, 4096, 8),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(message(ctx), "arena is NULL: fake needs 576 bytes at max_batch 8");
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, sizeof(arena), 0),
            TFCC_OUT_OF_RANGE);
  EXPECT_EQ(message(ctx), "max_batch 0 is out of range: it must be at least 1");
  EXPECT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, sizeof(arena), -4),
            TFCC_OUT_OF_RANGE);
}

TEST(RuntimeInitTest, AcceptsNoArenaWhenNoneIsNeeded) {
  static const tfcc_entry_info entries[] = {
      {"noop", 0, 0, nullptr, nullptr, 0, 0, 0, 0, sumKernel}};
  static const tfcc_model_info model = {TFCC_ABI_VERSION, 1, "tiny", entries,
                                        0};
  tfcc_context ctx;
  EXPECT_EQ(tfcc_rt_context_init(&model, &ctx, nullptr, 0, 1), TFCC_OK)
      << message(ctx);
}

TEST(RuntimeInitTest, RejectsAbiMismatch) {
  alignas(64) static uint8_t arena[1024];
  tfcc_context ctx;
  EXPECT_EQ(tfcc_rt_context_init(&kFutureModel, &ctx, arena, sizeof(arena), 8),
            TFCC_FAILED_PRECONDITION);
  EXPECT_EQ(message(ctx),
            "model future was compiled for runtime ABI version " +
                std::to_string(TFCC_ABI_VERSION + 1) +
                ", but this runtime implements version " +
                std::to_string(TFCC_ABI_VERSION));
  tfcc_context *created = reinterpret_cast<tfcc_context *>(&ctx);
  EXPECT_EQ(tfcc_rt_context_create(&kFutureModel, 8, &created),
            TFCC_FAILED_PRECONDITION);
  EXPECT_EQ(created, nullptr);
}

TEST(RuntimeCreateTest, CreatesAndDestroys) {
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create(&kModel, 64, &ctx), TFCC_OK);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(ctx->owns_arena, 1);
  EXPECT_EQ(ctx->max_batch, 64);
  EXPECT_EQ(ctx->num_threads, 1);
  EXPECT_EQ(ctx->pool, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ctx->arena) % 64, 0u);
  EXPECT_GE(ctx->arena_bytes, tfcc_rt_entry_arena_bytes(&kEntries[0], 64));
  EXPECT_EQ(tfcc_rt_context_message(ctx), std::string());

  kernelLog = KernelLog();
  kernelLog.ctx = ctx;
  std::vector<float> x(64 * 4, 0.25f), y(64 * 4, 0.f);
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 64, inputs, outputs), TFCC_OK);
  EXPECT_TRUE(kernelLog.arenaOk);
  EXPECT_EQ(y[255], 0.5f);
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 65, inputs, outputs),
            TFCC_OUT_OF_RANGE);
  EXPECT_NE(std::string(tfcc_rt_context_message(ctx))
                .find("batch 65 exceeds the declared "
                      "maximum 64"),
            std::string::npos);
  tfcc_rt_context_destroy(ctx);
  tfcc_rt_context_destroy(nullptr);
}

TEST(RuntimeCreateTest, ReportsFailuresWithNullContext) {
  tfcc_context dummy;
  tfcc_context *ctx = &dummy;
  EXPECT_EQ(tfcc_rt_context_create(&kModel, 0, &ctx), TFCC_OUT_OF_RANGE);
  EXPECT_EQ(ctx, nullptr);
  ctx = &dummy;
  EXPECT_EQ(tfcc_rt_context_create(nullptr, 8, &ctx), TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(tfcc_rt_context_create(&kModel, 8, nullptr), TFCC_INVALID_ARGUMENT);
  ctx = &dummy;
  EXPECT_EQ(tfcc_rt_context_create(&kModel, INT64_MAX, &ctx),
            TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(ctx, nullptr);
}

TEST(RuntimeCreateTest, InitUsesOneThread) {
  alignas(64) static uint8_t arena[1024];
  tfcc_context ctx;
  std::memset(&ctx, 0x5a, sizeof ctx);
  ASSERT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, sizeof(arena), 8),
            TFCC_OK);
  EXPECT_EQ(ctx.num_threads, 1);
  EXPECT_EQ(ctx.pool, nullptr);
}

TEST(RuntimeCreateTest, RejectsThreadCountBelowOne) {
  tfcc_context dummy;
  for (int32_t threads : {0, -1, INT32_MIN}) {
    tfcc_context *ctx = &dummy;
    EXPECT_EQ(tfcc_rt_context_create_with_threads(&kModel, 8, threads, &ctx),
              TFCC_INVALID_ARGUMENT)
        << threads;
    EXPECT_EQ(ctx, nullptr);
  }
  // The other checks still apply with a valid thread count.
  tfcc_context *ctx = &dummy;
  EXPECT_EQ(tfcc_rt_context_create_with_threads(&kModel, 0, 2, &ctx),
            TFCC_OUT_OF_RANGE);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(tfcc_rt_context_create_with_threads(&kFutureModel, 8, 2, &ctx),
            TFCC_FAILED_PRECONDITION);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(tfcc_rt_context_create_with_threads(nullptr, 8, 2, &ctx),
            TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(tfcc_rt_context_create_with_threads(&kModel, 8, 2, nullptr),
            TFCC_INVALID_ARGUMENT);
}

TEST(RuntimeCreateTest, OneThreadCreatesNoPool) {
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create_with_threads(&kModel, 8, 1, &ctx), TFCC_OK);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(ctx->num_threads, 1);
  EXPECT_EQ(ctx->pool, nullptr);
  tfcc_rt_context_destroy(ctx);
}

// invoke makes the context's pool current during the kernel only, and
// restores whatever pool the calling thread had, also after a failed call.
TEST(RuntimeCreateTest, InvokeRunsKernelsOnTheContextsPool) {
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create_with_threads(&kModel, 8, 2, &ctx), TFCC_OK);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(ctx->num_threads, 2);
  ASSERT_NE(ctx->pool, nullptr);
  EXPECT_EQ(tfcc_rt_pool_num_threads(static_cast<tfcc_rt_pool *>(ctx->pool)),
            2);
  EXPECT_EQ(ctx->owns_arena, 1);
  EXPECT_EQ(ctx->max_batch, 8);
  EXPECT_EQ(tfcc_rt_context_message(ctx), std::string());

  std::vector<float> x(8 * 4, 0.25f), y(8 * 4, 0.f);
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  ASSERT_EQ(tfcc_rt_get_current_pool(), nullptr);
  kernelLog = KernelLog();
  kernelLog.ctx = ctx;
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 8, inputs, outputs), TFCC_OK);
  EXPECT_EQ(kernelLog.calls, 1);
  EXPECT_EQ(kernelLog.pool, ctx->pool);
  EXPECT_TRUE(kernelLog.arenaOk);
  EXPECT_EQ(y[31], 0.5f);
  EXPECT_EQ(tfcc_rt_get_current_pool(), nullptr);

  // A pool the caller made current survives the call.
  tfcc_rt_pool *own = tfcc_rt_pool_create(1);
  ASSERT_NE(own, nullptr);
  tfcc_rt_set_current_pool(own);
  kernelLog.pool = nullptr;
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 8, inputs, outputs), TFCC_OK);
  EXPECT_EQ(kernelLog.pool, ctx->pool);
  EXPECT_EQ(tfcc_rt_get_current_pool(), own);

  // A one-thread context runs its kernels serially (no current pool).
  tfcc_context *serial = nullptr;
  ASSERT_EQ(tfcc_rt_context_create(&kModel, 8, &serial), TFCC_OK);
  kernelLog.ctx = serial;
  kernelLog.pool = own;
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, serial, 8, inputs, outputs), TFCC_OK);
  EXPECT_EQ(kernelLog.pool, nullptr);
  EXPECT_EQ(tfcc_rt_get_current_pool(), own);

  // A call rejected before the kernel leaves the current pool alone.
  EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 9, inputs, outputs),
            TFCC_OUT_OF_RANGE);
  EXPECT_EQ(tfcc_rt_get_current_pool(), own);

  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(own);
  tfcc_rt_context_destroy(serial);
  tfcc_rt_context_destroy(ctx);
}

// Contexts with pools come and go without leaking threads or memory (run
// under a sanitizer or valgrind to see it), and several may coexist.
TEST(RuntimeCreateTest, ContextsWithPoolsCoexist) {
  std::vector<tfcc_context *> contexts;
  for (int32_t threads = 2; threads <= 5; ++threads) {
    tfcc_context *ctx = nullptr;
    ASSERT_EQ(tfcc_rt_context_create_with_threads(&kModel, 4, threads, &ctx),
              TFCC_OK);
    EXPECT_EQ(ctx->num_threads, threads);
    EXPECT_EQ(
        tfcc_rt_pool_num_threads(static_cast<tfcc_rt_pool *>(ctx->pool)),
        threads);
    contexts.push_back(ctx);
  }
  std::vector<float> x(4 * 4, 1.0f), y(4 * 4, 0.f);
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  for (tfcc_context *ctx : contexts) {
    kernelLog = KernelLog();
    kernelLog.ctx = ctx;
    EXPECT_EQ(tfcc_rt_invoke(&kModel, 0, ctx, 4, inputs, outputs), TFCC_OK);
    EXPECT_EQ(kernelLog.pool, ctx->pool);
    EXPECT_EQ(y[15], 2.0f);
  }
  for (tfcc_context *ctx : contexts)
    tfcc_rt_context_destroy(ctx);
}

TEST(RuntimeCreateTest, DestroyLeavesCallerContextsAlone) {
  alignas(64) static uint8_t arena[1024];
  tfcc_context ctx;
  ASSERT_EQ(tfcc_rt_context_init(&kModel, &ctx, arena, sizeof(arena), 8),
            TFCC_OK);
  tfcc_rt_context_destroy(&ctx); // must not free stack memory
  EXPECT_EQ(ctx.model, &kModel);
  EXPECT_EQ(ctx.arena, arena);
}

TEST(RuntimeStatusTest, NamesEveryStatus) {
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_OK), "ok");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_INVALID_ARGUMENT),
               "invalid argument");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_OUT_OF_RANGE), "out of range");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_RESOURCE_EXHAUSTED),
               "resource exhausted");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_FAILED_PRECONDITION),
               "failed precondition");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_INTERNAL), "internal");
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_UNAVAILABLE), "unavailable");
  // (7 lies inside the enum's range of values, so the cast is well defined.)
  EXPECT_STREQ(tfcc_rt_status_string(static_cast<tfcc_status_t>(7)),
               "unknown status");
}

TEST(RuntimeStatusTest, MessageOfNullContextIsEmpty) {
  EXPECT_STREQ(tfcc_rt_context_message(nullptr), "");
}

} // namespace

//===----------------------------------------------------------------------===//
// Named dimensions (beyond the batch)
//===----------------------------------------------------------------------===//

namespace {

// An entry x [batch, W] -> y [batch, W] with W named dimension 1 (bound 5);
// the kernel records the dims it got.
int64_t seenDims[2];
void widthKernel(void *const * /*buffers*/, const int64_t *dims,
                 void * /*arena*/, void * /*state*/) {
  seenDims[0] = dims[0];
  seenDims[1] = dims[1];
}
const int64_t kWidthDims[] = {TFCC_DIM_DYNAMIC, TFCC_DIM_NAMED(1)};
const tfcc_arg_info kWidthArgs[] = {{"x", TFCC_DTYPE_F32, 2, kWidthDims}};
const tfcc_arg_info kWidthOutputs[] = {{"y", TFCC_DTYPE_F32, 2, kWidthDims}};
const tfcc_entry_info kWidthEntries[] = {
    {"widths", 1, 1, kWidthArgs, kWidthOutputs, 1, 1, 0, 64, widthKernel}};
const char *const kWidthNames[] = {"W"};
const int64_t kWidthBounds[] = {5};
const tfcc_model_info kWidthModel = {
    TFCC_ABI_VERSION, 1, "named", kWidthEntries, 0, 0, 0, 0, nullptr,
    nullptr,          1, 0,       kWidthNames,   kWidthBounds};

class NamedDimsTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::memset(&ctx, 0, sizeof(ctx));
    ASSERT_EQ(tfcc_rt_context_init(&kWidthModel, &ctx, arena, sizeof(arena), 4),
              TFCC_OK)
        << message(ctx);
    seenDims[0] = seenDims[1] = -7;
  }
  tfcc_status_t call(const int64_t *dims) {
    const void *inputs[] = {x};
    void *outputs[] = {y};
    return tfcc_rt_invoke_dims(&kWidthModel, 0, &ctx, dims, inputs, outputs);
  }
  alignas(64) uint8_t arena[1024];
  tfcc_context ctx;
  float x[20] = {}, y[20] = {};
};

TEST_F(NamedDimsTest, TheKernelGetsTheBatchAndEachDimension) {
  const int64_t dims[] = {4, 5};
  ASSERT_EQ(call(dims), TFCC_OK) << message(ctx);
  EXPECT_EQ(seenDims[0], 4);
  EXPECT_EQ(seenDims[1], 5);
}

TEST_F(NamedDimsTest, ADimensionOutsideItsBoundIsRefusedByName) {
  for (int64_t w : {int64_t(0), int64_t(6), int64_t(-1)}) {
    const int64_t dims[] = {1, w};
    EXPECT_EQ(call(dims), TFCC_OUT_OF_RANGE) << w;
    EXPECT_NE(message(ctx).find("dimension W = " + std::to_string(w) +
                                " is out of range for named_widths: it must "
                                "be in [1, 5]"),
              std::string::npos)
        << message(ctx);
    EXPECT_EQ(seenDims[0], -7) << "the kernel ran";
  }
  const int64_t bigBatch[] = {5, 2};
  EXPECT_EQ(call(bigBatch), TFCC_OUT_OF_RANGE);
  EXPECT_NE(message(ctx).find("batch 5 exceeds the declared maximum 4"),
            std::string::npos)
      << message(ctx);
}

TEST_F(NamedDimsTest, TheBatchOnlyCallAndNullDimsAreRefused) {
  const void *inputs[] = {x};
  void *outputs[] = {y};
  EXPECT_EQ(tfcc_rt_invoke(&kWidthModel, 0, &ctx, 1, inputs, outputs),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(message(ctx).find("entry named_widths has dimensions beyond the "
                              "batch: call named_invoke_dims"),
            std::string::npos)
      << message(ctx);
  EXPECT_EQ(call(nullptr), TFCC_INVALID_ARGUMENT);
  EXPECT_NE(message(ctx).find("the dims array of named_widths is NULL"),
            std::string::npos)
      << message(ctx);
  EXPECT_EQ(seenDims[0], -7) << "the kernel ran";
}

TEST_F(NamedDimsTest, ADimBeyondTheTableIsAMalformedTable) {
  const int64_t badDims[] = {TFCC_DIM_DYNAMIC, TFCC_DIM_NAMED(2)};
  const tfcc_arg_info args[] = {{"x", TFCC_DTYPE_F32, 2, badDims}};
  const tfcc_entry_info entries[] = {
      {"bad", 1, 0, args, nullptr, 1, 1, 0, 64, widthKernel}};
  tfcc_model_info model = kWidthModel;
  model.entries = entries;
  tfcc_context other;
  std::memset(&other, 0, sizeof(other));
  ASSERT_EQ(tfcc_rt_context_init(&model, &other, arena, sizeof(arena), 4),
            TFCC_OK);
  const int64_t dims[] = {1, 1, 1};
  const void *inputs[] = {x};
  EXPECT_EQ(tfcc_rt_invoke_dims(&model, 0, &other, dims, inputs, nullptr),
            TFCC_INTERNAL);
  EXPECT_EQ(seenDims[0], -7) << "the kernel ran";
}

} // namespace

//===----------------------------------------------------------------------===//
// Support for generated code
//===----------------------------------------------------------------------===//

namespace {

void outOfRangeKernel(void *const *buffers, const int64_t *dims,
                      void *arena, void * /*state*/) {
  (void)buffers;
  (void)dims;
  (void)arena;
  tfcc_rt_report_error(TFCC_OUT_OF_RANGE);
  tfcc_rt_report_error(TFCC_INTERNAL); // the first report wins
}

const tfcc_entry_info kReportingEntries[] = {
    {"lookup", 2, 1, kSumInputs, kSumOutputs, 0, 0, 64, 0, outOfRangeKernel},
    {"sum", 2, 1, kSumInputs, kSumOutputs, 0, 0, 64, 0, sumKernel},
};
const tfcc_model_info kReportingModel = {TFCC_ABI_VERSION, 2, "table",
                                         kReportingEntries, 0};

} // namespace

TEST(RuntimeKernelErrorTest, ReportedErrorBecomesTheStatus) {
  alignas(64) uint8_t arena[256];
  tfcc_context ctx;
  ASSERT_EQ(tfcc_rt_context_init(&kReportingModel, &ctx, arena, sizeof arena, 1),
            TFCC_OK);
  kernelLog = KernelLog();
  kernelLog.ctx = &ctx;
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, s[3] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {s};
  EXPECT_EQ(tfcc_rt_invoke(&kReportingModel, 0, &ctx, 1, inputs, outputs),
            TFCC_OUT_OF_RANGE);
  EXPECT_NE(std::string(ctx.message).find("table_lookup: an index or label is "
                                          "out of range"),
            std::string::npos)
      << ctx.message;
  // The report does not leak into the next call.
  EXPECT_EQ(tfcc_rt_invoke(&kReportingModel, 1, &ctx, 1, inputs, outputs),
            TFCC_OK);
  EXPECT_EQ(s[2], 9.0f);
  EXPECT_STREQ(ctx.message, "");
}

TEST(RuntimeKernelErrorTest, ReportedErrorRestoresTheCurrentPool) {
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create_with_threads(&kReportingModel, 1, 2, &ctx),
            TFCC_OK);
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, s[3] = {};
  const void *inputs[] = {a, b};
  void *outputs[] = {s};
  ASSERT_EQ(tfcc_rt_get_current_pool(), nullptr);
  EXPECT_EQ(tfcc_rt_invoke(&kReportingModel, 0, ctx, 1, inputs, outputs),
            TFCC_OUT_OF_RANGE);
  EXPECT_EQ(tfcc_rt_get_current_pool(), nullptr);
  tfcc_rt_context_destroy(ctx);
}

namespace {

/// A rank-2 descriptor as MLIR lays it out.
struct Descriptor2D {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

} // namespace

TEST(RuntimeMemrefCopyTest, CopiesStridedBuffers) {
  // Source: the 2x3 window at row 1, column 1 of a 4x5 row-major matrix.
  float source[20];
  for (int i = 0; i < 20; ++i)
    source[i] = float(i);
  Descriptor2D src = {source, source, 1 * 5 + 1, {2, 3}, {5, 1}};
  // Destination: a 2x3 buffer stored column-major (strides 1, 2).
  float dest[6] = {};
  Descriptor2D dst = {dest, dest, 0, {2, 3}, {1, 2}};
  tfcc_rt_unranked_memref srcRef = {2, &src}, dstRef = {2, &dst};
  memrefCopy(sizeof(float), &srcRef, &dstRef);
  // dest[r + 2c] = source[(1 + r) * 5 + 1 + c]
  const float expected[6] = {6, 11, 7, 12, 8, 13};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(dest[i], expected[i]) << "element " << i;
}

TEST(RuntimeMemrefCopyTest, CopiesScalars) {
  float source = 4.5f, dest = 0.0f;
  struct {
    float *allocated, *aligned;
    int64_t offset;
  } src = {&source, &source, 0}, dst = {&dest, &dest, 0};
  tfcc_rt_unranked_memref srcRef = {0, &src}, dstRef = {0, &dst};
  memrefCopy(sizeof(float), &srcRef, &dstRef);
  EXPECT_EQ(dest, 4.5f);
}
