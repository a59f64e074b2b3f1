//===- CudaRuntimeTest.cpp - The runtime's CUDA support without a GPU -----===//
//
// runtime/src/cuda.c against a missing driver and against a fake one
// (fake_cuda_driver.c: libtfcc_fake_cuda.so, host memory, kernels never run),
// chosen through TFCC_CUDA_DRIVER. The runtime loads and initializes the
// driver once per process, so each test needs a process of its own: ctest
// runs every test alone (gtest_discover_tests), and a test whose scenario
// differs from the one this process already set up skips itself.
//
//===----------------------------------------------------------------------===//

#include "cuda.h"
#include "tfcc/tfcc_runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifndef TFCC_FAKE_CUDA_DRIVER
#error "TFCC_FAKE_CUDA_DRIVER must name libtfcc_fake_cuda.so"
#endif
#ifndef TFCC_FAKE_CUDA_INCOMPLETE
#error "TFCC_FAKE_CUDA_INCOMPLETE must name libtfcc_fake_cuda_incomplete.so"
#endif

// The fake driver's controls (fake_cuda_driver.c; the test links it, and the
// runtime's dlopen of the same file finds this copy).
extern "C" {
void tfcc_fake_cuda_fail(const char *function, int code);
int tfcc_fake_cuda_calls(const char *function);
void tfcc_fake_cuda_set_device_count(int count);
long tfcc_fake_cuda_live_allocations(void);
void *tfcc_fake_cuda_last_allocation(void);
const void *tfcc_fake_cuda_last_module_data(void);
void tfcc_fake_cuda_last_jit(unsigned int *num_options, intptr_t *opt_level);
void tfcc_fake_cuda_last_launch(unsigned int dims[7], void **stream,
                                void ***params);
int tfcc_fake_cuda_last_attribute_value(void);
}

namespace {

constexpr int kCudaOutOfMemory = 2;
constexpr int kCudaNoDevice = 100;
constexpr int kCudaLaunchFailed = 719;

const char kMissingDriver[] = "/nonexistent/libcuda.so";

// Points TFCC_CUDA_DRIVER at `path` for scenario `name`: true when this
// process runs that scenario (the first test it runs chose it).
bool useScenario(const char *name, const char *path) {
  static std::string chosen;
  if (chosen.empty()) {
    chosen = name;
    setenv("TFCC_CUDA_DRIVER", path, 1);
  }
  return chosen == name;
}

#define SCENARIO(name, path)                                                   \
  if (!useScenario(name, path))                                                \
  GTEST_SKIP() << "needs a process of its own (the driver is loaded once "     \
                  "per process): run it alone, as ctest does"

std::string takeError() {
  char message[256];
  int had = tfcc_rt_cuda_take_error(message, sizeof(message));
  EXPECT_EQ(had != 0, message[0] != '\0') << message;
  return message;
}

std::string initMessage(tfcc_status_t *status) {
  char message[256];
  std::memset(message, 'x', sizeof(message));
  *status = tfcc_rt_cuda_init(message, sizeof(message));
  EXPECT_NE(std::memchr(message, '\0', sizeof(message)), nullptr);
  return message;
}

// A model whose entry "scale" (y = 2 * x, x and y [batch, 4] float) runs its
// "device code" through the mgpu* functions as generated code does: the
// input copied into the arena (device memory), a launch, the result copied
// back. The fake's device memory is host memory and its kernels do nothing,
// so the doubling happens here on the arena, between the copies.
const int64_t kDims[] = {TFCC_DIM_DYNAMIC, 4};
const tfcc_arg_info kInputs[] = {{"x", TFCC_DTYPE_F32, 2, kDims}};
const tfcc_arg_info kOutputs[] = {{"y", TFCC_DTYPE_F32, 2, kDims}};
const char kBinary[] = "fake cubin of scale";

struct KernelSeen {
  int calls = 0;
  void *arena = nullptr;
} kernelSeen;

void scaleOnGpu(void *const *buffers, const int64_t *dims, void *arena,
                void * /*state*/) {
  ++kernelSeen.calls;
  kernelSeen.arena = arena;
  size_t count = static_cast<size_t>(dims[0]) * 4;
  size_t bytes = count * sizeof(float);
  void *stream = mgpuStreamCreate();
  void *module = mgpuModuleLoad(const_cast<char *>(kBinary), sizeof(kBinary));
  void *function = mgpuModuleGetFunction(module, "scale");
  mgpuMemcpy(arena, buffers[0], bytes, stream);
  void *params[] = {&arena};
  mgpuLaunchKernel(function, dims[0], 1, 1, 4, 1, 1, 0, stream, params, nullptr,
                   1);
  mgpuModuleUnload(module);
  if (arena)
    for (size_t i = 0; i < count; ++i)
      static_cast<float *>(arena)[i] *= 2;
  mgpuMemcpy(buffers[1], arena, bytes, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

// arena: 100 + 50 * batch bytes (max_batch 8: 500 -> 512).
const tfcc_entry_info kEntries[] = {
    {"scale", 1, 1, kInputs, kOutputs, 1, 0, 100, 50, scaleOnGpu, nullptr},
};

tfcc_model_info cudaModel(uint64_t stateBytes = 0) {
  tfcc_model_info m{};
  m.abi_version = TFCC_ABI_VERSION;
  m.num_entries = 1;
  m.name = "fake_cuda";
  m.entries = kEntries;
  m.state_bytes = stateBytes;
  m.flags = TFCC_MODEL_FLAG_CUDA;
  return m;
}

tfcc_status_t scale(const tfcc_model_info &m, tfcc_context *ctx, int64_t batch,
                    const float *x, float *y) {
  const void *inputs[] = {x};
  void *outputs[] = {y};
  return tfcc_rt_invoke(&m, 0, ctx, batch, inputs, outputs);
}

//===--- No driver ---===//

TEST(CudaNoDriver, InitNamesThePathAndTheTarget) {
  SCENARIO("missing", kMissingDriver);
  tfcc_status_t status;
  std::string message = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_NE(message.find("CUDA driver not found"), std::string::npos)
      << message;
  EXPECT_NE(
      message.find(std::string(kMissingDriver) + " from TFCC_CUDA_DRIVER: "),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("No such file"), std::string::npos) << message;
  EXPECT_NE(message.find("--target=cuda"), std::string::npos) << message;
  // Once per process: the same answer again.
  std::string again = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_EQ(again, message);
  // The status string gives the reason too: a caller of <prefix>_create has
  // no context to read the message from.
  EXPECT_EQ(std::string(tfcc_rt_status_string(TFCC_UNAVAILABLE)), message);
}

TEST(CudaNoDriver, MgpuCallsRecordThatTheDriverIsNotInitialized) {
  SCENARIO("missing", kMissingDriver);
  // Without any tfcc_rt_cuda_init in this process, then after a failed one.
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
    EXPECT_EQ(mgpuStreamCreate(), nullptr);
    std::string error = takeError();
    EXPECT_NE(error.find("CUDA driver not initialized"), std::string::npos)
        << error;
    EXPECT_EQ(takeError(), "");
    char message[64];
    EXPECT_EQ(tfcc_rt_cuda_alloc(64, message, sizeof(message)), nullptr);
    EXPECT_STREQ(message, "CUDA driver not initialized");
    tfcc_status_t status;
    initMessage(&status);
    EXPECT_EQ(status, TFCC_UNAVAILABLE);
  }
}

TEST(CudaNoDriver, ContextOfACudaModelIsUnavailable) {
  SCENARIO("missing", kMissingDriver);
  tfcc_model_info m = cudaModel();
  tfcc_context *out = reinterpret_cast<tfcc_context *>(&out);
  EXPECT_EQ(tfcc_rt_context_create(&m, 8, &out), TFCC_UNAVAILABLE);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tfcc_rt_context_create_with_threads(&m, 8, 2, &out),
            TFCC_UNAVAILABLE);
  EXPECT_EQ(out, nullptr);

  // _init has a context for the message; its arena is not needed (NULL).
  tfcc_context ctx;
  std::memset(&ctx, 0, sizeof(ctx));
  EXPECT_EQ(tfcc_rt_context_init(&m, &ctx, nullptr, 0, 8), TFCC_UNAVAILABLE);
  std::string message = tfcc_rt_context_message(&ctx);
  EXPECT_NE(message.find("CUDA driver not found"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--target=cuda"), std::string::npos) << message;
  // The failed context is unusable.
  std::vector<float> x(4, 1.f), y(4, 0.f);
  EXPECT_EQ(scale(m, &ctx, 1, x.data(), y.data()), TFCC_INVALID_ARGUMENT);
  EXPECT_EQ(kernelSeen.calls, 0);
  tfcc_rt_context_destroy(&ctx); // nothing to free
}

TEST(CudaNoDriver, TrainingStateNeedsTheCallersBlockFirst) {
  SCENARIO("missing", kMissingDriver);
  // The state memory (host) is checked before the driver is looked for.
  tfcc_model_info m = cudaModel(/*stateBytes=*/64);
  tfcc_context ctx;
  std::memset(&ctx, 0, sizeof(ctx));
  EXPECT_EQ(tfcc_rt_context_init(&m, &ctx, nullptr, 0, 8),
            TFCC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ctx.message).find("too small for the state memory"),
            std::string::npos)
      << ctx.message;
  alignas(64) char block[64];
  EXPECT_EQ(tfcc_rt_context_init(&m, &ctx, block, 32, 8),
            TFCC_RESOURCE_EXHAUSTED);
  // Room for it: then the missing driver.
  EXPECT_EQ(tfcc_rt_context_init(&m, &ctx, block, sizeof(block), 8),
            TFCC_UNAVAILABLE);
  tfcc_context *out = nullptr;
  EXPECT_EQ(tfcc_rt_context_create(&m, 8, &out), TFCC_UNAVAILABLE);
  EXPECT_EQ(out, nullptr);
}

//===--- A driver that fails to initialize or lacks a function ---===//

TEST(CudaBadDriver, NoDeviceNamesTheCudaError) {
  SCENARIO("no-device", TFCC_FAKE_CUDA_DRIVER);
  tfcc_fake_cuda_fail("cuInit", kCudaNoDevice);
  tfcc_status_t status;
  std::string message = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_EQ(message, "no CUDA device: cuInit failed with CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(tfcc_fake_cuda_calls("cuInit"), 1);
  // Once per process: not tried again, even once the fake would work.
  tfcc_fake_cuda_fail("cuInit", 0);
  initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_EQ(tfcc_fake_cuda_calls("cuInit"), 1);

  tfcc_model_info m = cudaModel();
  tfcc_context ctx;
  std::memset(&ctx, 0, sizeof(ctx));
  EXPECT_EQ(tfcc_rt_context_init(&m, &ctx, nullptr, 0, 8), TFCC_UNAVAILABLE);
  EXPECT_STREQ(ctx.message, message.c_str());
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), 0);
}

TEST(CudaBadDriver, NoDeviceCounted) {
  SCENARIO("zero-devices", TFCC_FAKE_CUDA_DRIVER);
  tfcc_fake_cuda_set_device_count(0);
  tfcc_status_t status;
  std::string message = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_NE(message.find("no CUDA device: the driver found none"),
            std::string::npos)
      << message;
  EXPECT_EQ(tfcc_fake_cuda_calls("cuDevicePrimaryCtxRetain"), 0);
}

TEST(CudaBadDriver, UnknownErrorCodeIsNumbered) {
  SCENARIO("unknown-error", TFCC_FAKE_CUDA_DRIVER);
  tfcc_fake_cuda_fail("cuDevicePrimaryCtxRetain", 12345);
  tfcc_status_t status;
  std::string message = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_EQ(message, "CUDA initialization failed: cuDevicePrimaryCtxRetain "
                     "failed with CUDA error 12345");
}

TEST(CudaBadDriver, MissingFunctionIsNamed) {
  SCENARIO("incomplete", TFCC_FAKE_CUDA_INCOMPLETE);
  tfcc_status_t status;
  std::string message = initMessage(&status);
  EXPECT_EQ(status, TFCC_UNAVAILABLE);
  EXPECT_NE(message.find("CUDA driver has no cuLaunchKernel (" +
                         std::string(TFCC_FAKE_CUDA_INCOMPLETE)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--target=cuda"), std::string::npos) << message;
}

//===--- The fake driver ---===//

// Counts calls of the fake from its construction on (the CudaFake tests
// also pass when run together in one process).
class CallCounter {
public:
  explicit CallCounter(const char *function)
      : function(function), start(tfcc_fake_cuda_calls(function)) {}
  int operator()() const { return tfcc_fake_cuda_calls(function) - start; }

private:
  const char *function;
  int start;
};

class CudaFake : public ::testing::Test {
protected:
  void SetUp() override {
    if (!useScenario("fake", TFCC_FAKE_CUDA_DRIVER))
      GTEST_SKIP() << "needs a process of its own (the driver is loaded once "
                      "per process): run it alone, as ctest does";
    tfcc_status_t status;
    std::string message = initMessage(&status);
    ASSERT_EQ(status, TFCC_OK) << message;
    EXPECT_EQ(message, "");
    ASSERT_EQ(takeError(), "");
    kernelSeen = KernelSeen();
  }
};

TEST_F(CudaFake, InitRetainsDeviceZerosContextOnce) {
  CallCounter setCurrent("cuCtxSetCurrent"), creates("cuStreamCreate"),
      destroys("cuStreamDestroy_v2");
  tfcc_status_t status;
  initMessage(&status);
  EXPECT_EQ(status, TFCC_OK);
  EXPECT_EQ(tfcc_fake_cuda_calls("cuInit"), 1);
  EXPECT_EQ(tfcc_fake_cuda_calls("cuDeviceGet"), 1);
  EXPECT_EQ(tfcc_fake_cuda_calls("cuDevicePrimaryCtxRetain"), 1);
  // No failed initialization to explain.
  EXPECT_STREQ(tfcc_rt_status_string(TFCC_UNAVAILABLE), "unavailable");
  // Current on this thread once (in SetUp), however many calls follow.
  EXPECT_GE(tfcc_fake_cuda_calls("cuCtxSetCurrent"), 1);
  mgpuStreamDestroy(mgpuStreamCreate());
  EXPECT_EQ(setCurrent(), 0);
  EXPECT_EQ(creates(), 1);
  EXPECT_EQ(destroys(), 1);
}

TEST_F(CudaFake, MemAllocAndMemcpyRoundTrip) {
  long live = tfcc_fake_cuda_live_allocations();
  std::vector<float> host(1024), back(1024, -1.f);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i) * 0.5f;
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  void *device = mgpuMemAlloc(4096, stream, false);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device, tfcc_fake_cuda_last_allocation());
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live + 1);
  mgpuMemcpy(device, host.data(), 4096, stream);
  // Elements 10..19 set to 1.0f (0x3f800000), 20..21's low halves to 0x1234.
  mgpuMemset32(static_cast<float *>(device) + 10, 0x3f800000u, 10, stream);
  mgpuMemset16(static_cast<float *>(device) + 20, 0x1234, 1, stream);
  mgpuMemcpy(back.data(), device, 4096, stream);
  mgpuStreamSynchronize(stream);
  for (size_t i = 0; i < host.size(); ++i) {
    if (i >= 10 && i < 20) {
      EXPECT_EQ(back[i], 1.f) << i;
    } else if (i == 20) {
      uint16_t low;
      std::memcpy(&low, &back[i], 2);
      EXPECT_EQ(low, 0x1234);
    } else {
      EXPECT_EQ(back[i], host[i]) << i;
    }
  }
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
  // Nothing to allocate: NULL, no error, no driver call.
  CallCounter allocs("cuMemAlloc_v2"), managedAllocs("cuMemAllocManaged");
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_EQ(allocs(), 0);
  // Host-shared (managed) memory.
  void *managed = mgpuMemAlloc(64, nullptr, true);
  EXPECT_NE(managed, nullptr);
  EXPECT_EQ(managedAllocs(), 1);
  EXPECT_EQ(allocs(), 0);
  mgpuMemFree(managed, nullptr);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
  EXPECT_EQ(takeError(), "");
}

// A model's weights: uploaded by the first call that reads them, the same
// device copy for every later call (and another address, another copy).
TEST_F(CudaFake, WeightsAreUploadedOnce) {
  static const float weights[256] = {1.f, 2.f, 3.f, 4.f};
  static const float others[8] = {5.f};
  CallCounter allocs("cuMemAlloc_v2"), copies("cuMemcpyAsync");
  long live = tfcc_fake_cuda_live_allocations();
  uint64_t host = reinterpret_cast<uintptr_t>(weights);
  uint64_t device = tfcc_rt_cuda_weight(host, sizeof(weights));
  ASSERT_NE(device, 0u);
  EXPECT_NE(device, host);
  EXPECT_EQ(
      std::memcmp(reinterpret_cast<void *>(device), weights, sizeof(weights)),
      0);
  EXPECT_EQ(tfcc_rt_cuda_weight(host, sizeof(weights)), device);
  EXPECT_EQ(allocs(), 1);
  EXPECT_EQ(copies(), 1);
  uint64_t other =
      tfcc_rt_cuda_weight(reinterpret_cast<uintptr_t>(others), sizeof(others));
  EXPECT_NE(other, device);
  EXPECT_EQ(allocs(), 2);
  // Kept for the process.
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live + 2);
  EXPECT_EQ(takeError(), "");

  // A failed upload: 0, the error recorded, nothing cached.
  static const float third[4] = {};
  tfcc_fake_cuda_fail("cuMemAlloc_v2", 2);
  EXPECT_EQ(
      tfcc_rt_cuda_weight(reinterpret_cast<uintptr_t>(third), sizeof(third)),
      0u);
  tfcc_fake_cuda_fail("cuMemAlloc_v2", 0);
  EXPECT_EQ(takeError(), "cuMemAlloc of 16 bytes of weights failed: "
                         "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_NE(
      tfcc_rt_cuda_weight(reinterpret_cast<uintptr_t>(third), sizeof(third)),
      0u);
  EXPECT_EQ(takeError(), "");
}

TEST_F(CudaFake, ModuleIsLoadedOncePerBinary) {
  static const char binaryA[] = "cubin A";
  static const char binaryB[] = "cubin B";
  CallCounter loads("cuModuleLoadData"), jitLoads("cuModuleLoadDataEx");
  void *a1 = mgpuModuleLoad(const_cast<char *>(binaryA), sizeof(binaryA));
  ASSERT_NE(a1, nullptr);
  EXPECT_EQ(tfcc_fake_cuda_last_module_data(), binaryA);
  mgpuModuleUnload(a1);
  void *a2 = mgpuModuleLoad(const_cast<char *>(binaryA), sizeof(binaryA));
  EXPECT_EQ(a2, a1);
  mgpuModuleUnload(a2);
  EXPECT_EQ(loads(), 1);
  EXPECT_EQ(tfcc_fake_cuda_calls("cuModuleUnload"), 0);
  void *b = mgpuModuleLoad(const_cast<char *>(binaryB), sizeof(binaryB));
  EXPECT_NE(b, nullptr);
  EXPECT_NE(b, a1);
  EXPECT_EQ(loads(), 2);
  // From another thread too: the cache is the process's.
  void *fromThread = nullptr;
  std::thread([&] {
    fromThread = mgpuModuleLoad(const_cast<char *>(binaryA), sizeof(binaryA));
  }).join();
  EXPECT_EQ(fromThread, a1);
  EXPECT_EQ(loads(), 2);

  // PTX through the driver's JIT, at the optimization level asked for.
  static const char ptx[] = ".version 8.0";
  void *jit = mgpuModuleLoadJIT(const_cast<char *>(ptx), 3);
  EXPECT_NE(jit, nullptr);
  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(ptx), 3), jit);
  EXPECT_EQ(jitLoads(), 1);
  unsigned int numOptions = 0;
  intptr_t optLevel = 0;
  tfcc_fake_cuda_last_jit(&numOptions, &optLevel);
  EXPECT_EQ(numOptions, 3u);
  EXPECT_EQ(optLevel, 3);
  EXPECT_EQ(takeError(), "");

  // A JIT failure carries the JIT's log; nothing is cached.
  static const char badPtx[] = "not ptx";
  tfcc_fake_cuda_fail("cuModuleLoadDataEx", 218);
  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(badPtx), 2), nullptr);
  EXPECT_EQ(takeError(), "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX "
                         "(JIT log: ptxas fatal: fake)");
  tfcc_fake_cuda_fail("cuModuleLoadDataEx", 0);
  EXPECT_NE(mgpuModuleLoadJIT(const_cast<char *>(badPtx), 2), nullptr);
  EXPECT_EQ(jitLoads(), 3);
}

TEST_F(CudaFake, LaunchForwardsGridBlockAndParameters) {
  static const char binary[] = "cubin";
  CallCounter setAttribute("cuFuncSetAttribute"), launches("cuLaunchKernel");
  void *module = mgpuModuleLoad(const_cast<char *>(binary), sizeof(binary));
  void *function = mgpuModuleGetFunction(module, "kernel");
  ASSERT_NE(function, nullptr);
  void *stream = mgpuStreamCreate();
  int a = 1;
  float b = 2;
  void *params[] = {&a, &b};
  mgpuLaunchKernel(function, 2, 3, 4, 32, 8, 1, 128, stream, params, nullptr,
                   2);
  unsigned int dims[7];
  void *seenStream = nullptr;
  void **seenParams = nullptr;
  tfcc_fake_cuda_last_launch(dims, &seenStream, &seenParams);
  const unsigned int expected[7] = {2, 3, 4, 32, 8, 1, 128};
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(dims[i], expected[i]) << i;
  EXPECT_EQ(seenStream, stream);
  EXPECT_EQ(seenParams, params);
  EXPECT_EQ(setAttribute(), 0);
  EXPECT_EQ(launches(), 1);
  EXPECT_EQ(takeError(), "");

  // Over 48 KiB of shared memory: the kernel opts in first.
  mgpuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 64 * 1024, stream, params,
                   nullptr, 2);
  EXPECT_EQ(setAttribute(), 1);
  EXPECT_EQ(tfcc_fake_cuda_last_attribute_value(), 64 * 1024);
  EXPECT_EQ(launches(), 2);

  // A dimension that does not fit the driver's unsigned int: no launch.
  mgpuLaunchKernel(function, -1, 1, 1, 1, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(launches(), 2);
  std::string error = takeError();
  EXPECT_NE(error.find("mgpuLaunchKernel: grid -1x1x1, block 1x1x1"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;

  // A failed launch names the call and the CUDA error.
  tfcc_fake_cuda_fail("cuLaunchKernel", 1);
  mgpuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(takeError(), "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE");
  tfcc_fake_cuda_fail("cuLaunchKernel", 0);

  tfcc_fake_cuda_fail("cuModuleGetFunction", 500);
  EXPECT_EQ(mgpuModuleGetFunction(module, "missing"), nullptr);
  EXPECT_EQ(takeError(),
            "cuModuleGetFunction('missing') failed: CUDA_ERROR_NOT_FOUND");
  tfcc_fake_cuda_fail("cuModuleGetFunction", 0);
  mgpuStreamDestroy(stream);
}

TEST_F(CudaFake, AfterAnErrorNothingIsWrittenThroughAFailedAllocation) {
  long live = tfcc_fake_cuda_live_allocations();
  void *stream = mgpuStreamCreate();
  tfcc_fake_cuda_fail("cuMemAlloc_v2", kCudaOutOfMemory);
  void *device = mgpuMemAlloc(256, stream, false);
  EXPECT_EQ(device, nullptr);
  tfcc_fake_cuda_fail("cuMemAlloc_v2", 0);

  // The thread's later calls that compute, copy, allocate or load do
  // nothing; a second failure does not replace the first.
  CallCounter copies("cuMemcpyAsync"), sets("cuMemsetD32Async"),
      allocs("cuMemAlloc_v2"), launches("cuLaunchKernel"),
      syncs("cuStreamSynchronize"), destroys("cuStreamDestroy_v2");
  std::vector<float> host(64, 3.f);
  mgpuMemcpy(device, host.data(), 256, stream);
  mgpuMemset32(device, 0, 64, stream);
  EXPECT_EQ(mgpuMemAlloc(256, stream, false), nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(kBinary), 1), nullptr);
  mgpuLaunchKernel(reinterpret_cast<void *>(0x10), 1, 1, 1, 1, 1, 1, 0, stream,
                   nullptr, nullptr, 0);
  EXPECT_EQ(copies(), 0);
  EXPECT_EQ(sets(), 0);
  EXPECT_EQ(allocs(), 0);
  EXPECT_EQ(launches(), 0);
  // Those that only wait or release still run (no leak, no copy left
  // running into the caller's buffers).
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(syncs(), 1);
  EXPECT_EQ(destroys(), 1);

  EXPECT_EQ(takeError(),
            "cuMemAlloc of 256 bytes failed: CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(takeError(), ""); // cleared
  // Cleared, the thread works again.
  device = mgpuMemAlloc(256, nullptr, false);
  EXPECT_NE(device, nullptr);
  mgpuMemcpy(device, host.data(), 256, nullptr);
  EXPECT_EQ(copies(), 1);
  EXPECT_EQ(static_cast<float *>(device)[63], 3.f);
  mgpuMemFree(device, nullptr);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
  EXPECT_EQ(takeError(), "");
}

TEST_F(CudaFake, ErrorsAndTheCurrentContextArePerThread) {
  CallCounter setCurrent("cuCtxSetCurrent"), events("cuEventCreate");
  std::string threadError;
  std::thread([&] {
    tfcc_fake_cuda_fail("cuStreamCreate", 1);
    EXPECT_EQ(mgpuStreamCreate(), nullptr);
    tfcc_fake_cuda_fail("cuStreamCreate", 0);
    EXPECT_EQ(mgpuEventCreate(), nullptr); // after the error: nothing
    char message[128];
    EXPECT_EQ(tfcc_rt_cuda_take_error(message, sizeof(message)), 1);
    threadError = message;
    void *event = mgpuEventCreate();
    EXPECT_NE(event, nullptr);
    mgpuEventDestroy(event);
  }).join();
  EXPECT_EQ(threadError, "cuStreamCreate failed: CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(events(), 1);
  // The new thread made the context current once; this one has no error.
  EXPECT_EQ(setCurrent(), 1);
  EXPECT_EQ(takeError(), "");
  mgpuEventDestroy(mgpuEventCreate());
  EXPECT_EQ(setCurrent(), 1);

  // A failing cuCtxSetCurrent on a new thread is that thread's error.
  std::thread([&] {
    tfcc_fake_cuda_fail("cuCtxSetCurrent", 1);
    EXPECT_EQ(mgpuStreamCreate(), nullptr);
    tfcc_fake_cuda_fail("cuCtxSetCurrent", 0);
    char message[128];
    EXPECT_EQ(tfcc_rt_cuda_take_error(message, sizeof(message)), 1);
    threadError = message;
  }).join();
  EXPECT_EQ(threadError, "cuCtxSetCurrent failed: CUDA_ERROR_INVALID_VALUE");
  // Only one device: another one is an error once the context exists.
  mgpuSetDefaultDevice(0);
  EXPECT_EQ(takeError(), "");
  mgpuSetDefaultDevice(1);
  EXPECT_NE(takeError().find("mgpuSetDefaultDevice(1)"), std::string::npos);
}

// A model with a training step: its state memory is host memory in the
// context's block, holding the initial image; the arena is device memory.
TEST_F(CudaFake, TrainingStateIsHostMemory) {
  static const float image[16] = {1.f, 2.f, 3.f};
  tfcc_model_info m = cudaModel(sizeof(image));
  m.state_init = image;
  long live = tfcc_fake_cuda_live_allocations();
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create(&m, 8, &ctx), TFCC_OK);
  ASSERT_NE(ctx->state, nullptr);
  EXPECT_EQ(ctx->state_bytes, sizeof(image));
  EXPECT_EQ(std::memcmp(ctx->state, image, sizeof(image)), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ctx->state) % 64, 0u);
  // The state is inside the context's own block, the arena is not.
  EXPECT_GT(static_cast<char *>(ctx->state), reinterpret_cast<char *>(ctx));
  EXPECT_EQ(ctx->arena, tfcc_fake_cuda_last_allocation());
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live + 1);
  tfcc_rt_context_destroy(ctx);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);

  // From _init: the caller's block holds the state, aligned up.
  alignas(64) char block[64 + 64];
  tfcc_context own;
  std::memset(&own, 0, sizeof(own));
  ASSERT_EQ(tfcc_rt_context_init(&m, &own, block + 1, sizeof(block) - 1, 8),
            TFCC_OK);
  EXPECT_EQ(own.state, block + 64);
  EXPECT_EQ(std::memcmp(own.state, image, sizeof(image)), 0);
  tfcc_rt_context_destroy(&own);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
}

TEST_F(CudaFake, ContextArenaIsDeviceMemory) {
  tfcc_model_info m = cudaModel();
  long live = tfcc_fake_cuda_live_allocations();
  CallCounter loads("cuModuleLoadData");
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create(&m, 8, &ctx), TFCC_OK);
  ASSERT_NE(ctx, nullptr);
  // The model's planned arena at max_batch 8 (100 + 50 * 8 -> 512), from
  // cuMemAlloc, not in the malloc'ed block.
  EXPECT_EQ(ctx->arena, tfcc_fake_cuda_last_allocation());
  EXPECT_EQ(ctx->arena_bytes, 512u);
  EXPECT_EQ(ctx->owns_arena, 1);
  EXPECT_EQ(ctx->state, nullptr);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live + 1);

  std::vector<float> x(8 * 4), y(8 * 4, -1.f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i);
  ASSERT_EQ(scale(m, ctx, 8, x.data(), y.data()), TFCC_OK) << ctx->message;
  EXPECT_EQ(kernelSeen.calls, 1);
  EXPECT_EQ(kernelSeen.arena, ctx->arena);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], 2 * x[i]) << i;
  // The model's binary: loaded by the first call of the process at most.
  EXPECT_LE(loads(), 1);
  // The batch is still checked against max_batch.
  EXPECT_EQ(scale(m, ctx, 9, x.data(), y.data()), TFCC_OUT_OF_RANGE);
  tfcc_rt_context_destroy(ctx);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);

  // With threads: the pool and the device arena, both released.
  ASSERT_EQ(tfcc_rt_context_create_with_threads(&m, 2, 2, &ctx), TFCC_OK);
  EXPECT_EQ(ctx->arena_bytes, 256u); // 100 + 50 * 2 -> 256
  EXPECT_EQ(scale(m, ctx, 2, x.data(), y.data()), TFCC_OK) << ctx->message;
  tfcc_rt_context_destroy(ctx);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);

  // _init: the caller's arena is not needed; _destroy frees the device arena
  // (and leaves the caller's context memory alone).
  tfcc_context local;
  std::memset(&local, 0, sizeof(local));
  ASSERT_EQ(tfcc_rt_context_init(&m, &local, nullptr, 0, 4), TFCC_OK)
      << local.message;
  EXPECT_EQ(local.arena, tfcc_fake_cuda_last_allocation());
  EXPECT_EQ(local.arena_bytes, 320u); // 100 + 50 * 4 -> 320
  EXPECT_EQ(local.owns_arena, 0);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live + 1);
  EXPECT_EQ(scale(m, &local, 4, x.data(), y.data()), TFCC_OK) << local.message;
  tfcc_rt_context_destroy(&local);
  EXPECT_EQ(local.arena, nullptr);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
  EXPECT_EQ(loads(), 1);
  EXPECT_EQ(tfcc_fake_cuda_last_module_data(), kBinary);
  EXPECT_EQ(takeError(), "");
}

TEST_F(CudaFake, FailedDeviceCallFailsTheInvoke) {
  tfcc_model_info m = cudaModel();
  tfcc_context *ctx = nullptr;
  ASSERT_EQ(tfcc_rt_context_create(&m, 8, &ctx), TFCC_OK);
  std::vector<float> x(4, 1.f), y(4, -1.f);
  CallCounter copies("cuMemcpyAsync"), creates("cuStreamCreate"),
      destroys("cuStreamDestroy_v2");
  tfcc_fake_cuda_fail("cuLaunchKernel", kCudaLaunchFailed);
  EXPECT_EQ(scale(m, ctx, 1, x.data(), y.data()), TFCC_UNAVAILABLE);
  EXPECT_STREQ(ctx->message, "fake_cuda_scale: cuLaunchKernel failed: "
                             "CUDA_ERROR_LAUNCH_FAILED (the outputs are not "
                             "valid)");
  // The copy to the input went; the copy back after the failure did not.
  EXPECT_EQ(copies(), 1);
  EXPECT_EQ(y[0], -1.f);
  // The stream was still released; the error was taken by the invoke.
  EXPECT_EQ(creates(), 1);
  EXPECT_EQ(destroys(), 1);
  EXPECT_EQ(takeError(), "");

  tfcc_fake_cuda_fail("cuLaunchKernel", 0);
  EXPECT_EQ(scale(m, ctx, 1, x.data(), y.data()), TFCC_OK) << ctx->message;
  EXPECT_EQ(y[0], 2.f);
  EXPECT_STREQ(ctx->message, "");

  // An error left on the thread from outside a call is not the call's.
  tfcc_fake_cuda_fail("cuStreamCreate", 1);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  tfcc_fake_cuda_fail("cuStreamCreate", 0);
  EXPECT_EQ(scale(m, ctx, 1, x.data(), y.data()), TFCC_OK) << ctx->message;
  tfcc_rt_context_destroy(ctx);
}

TEST_F(CudaFake, DeviceArenaOutOfMemory) {
  tfcc_model_info m = cudaModel();
  long live = tfcc_fake_cuda_live_allocations();
  tfcc_fake_cuda_fail("cuMemAlloc_v2", kCudaOutOfMemory);
  tfcc_context *ctx = nullptr;
  EXPECT_EQ(tfcc_rt_context_create(&m, 8, &ctx), TFCC_RESOURCE_EXHAUSTED);
  EXPECT_EQ(ctx, nullptr);
  tfcc_context local;
  std::memset(&local, 0, sizeof(local));
  EXPECT_EQ(tfcc_rt_context_init(&m, &local, nullptr, 0, 8),
            TFCC_RESOURCE_EXHAUSTED);
  EXPECT_STREQ(local.message,
               "the device arena of fake_cuda (512 bytes at max_batch 8): "
               "cuMemAlloc of 512 bytes failed: CUDA_ERROR_OUT_OF_MEMORY");
  tfcc_fake_cuda_fail("cuMemAlloc_v2", 0);
  EXPECT_EQ(tfcc_fake_cuda_live_allocations(), live);
  // The context's allocation is not the mgpu* functions' error.
  EXPECT_EQ(takeError(), "");
}

} // namespace
