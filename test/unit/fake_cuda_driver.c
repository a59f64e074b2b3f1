/* fake_cuda_driver.c - a stand-in for libcuda in the tests of the runtime's
 * CUDA support (CudaRuntimeTest.cpp; runtime/src/cuda.c loads it through
 * TFCC_CUDA_DRIVER).
 *
 * Implements the driver functions the runtime calls on host memory: device
 * addresses are malloc'ed pointers, copies are memcpy, kernels never run.
 * Records the calls (tfcc_fake_cuda_calls), the last module load and launch,
 * and makes any function fail with a chosen CUresult on request
 * (tfcc_fake_cuda_fail). Plain C, one test thread at a time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  kMaxFunctions = 64,
};

typedef struct FakeCounter {
  const char *name;
  int calls;
  CUresult fail; /* returned by every call while not 0 */
} FakeCounter;

static FakeCounter counters[kMaxFunctions];
static int num_counters;
static int device_count = 1;
static long live_allocations;
static CUdeviceptr last_allocation;
static const void *last_module_data;
static unsigned int last_num_options;
static intptr_t last_opt_level;
static unsigned int last_launch[7]; /* grid x y z, block x y z, smem */
static void *last_launch_stream;
static void **last_launch_params;
static int last_attribute_value;
static uintptr_t next_handle = 0x1000;

static FakeCounter *counter(const char *name) {
  int i;
  for (i = 0; i < num_counters; ++i)
    if (strcmp(counters[i].name, name) == 0)
      return &counters[i];
  if (num_counters == kMaxFunctions)
    abort();
  counters[num_counters].name = name;
  return &counters[num_counters++];
}

/* Counts a call of `name`; its forced error, or 0. */
static CUresult enter(const char *name) {
  FakeCounter *c = counter(name);
  ++c->calls;
  return c->fail;
}

static void *new_handle(void) {
  next_handle += 0x10;
  return (void *)next_handle;
}

/*===--- Control (for the tests) ---===*/

/* Every later call of `function` ("cuMemAlloc_v2") returns `code` (0: works
 * again). `function` must be a static string. */
FAKE_API void tfcc_fake_cuda_fail(const char *function, int code) {
  counter(function)->fail = code;
}

/* For tools run under the fake (test/tools/cuda.test): the environment
 * variable TFCC_FAKE_CUDA_FAIL=NAME=CODE makes NAME fail with CODE from the
 * start, and TFCC_FAKE_CUDA_REPORT=1 prints the counts of module loads,
 * launches and copies, the allocations left, the module unloads and the
 * primary context releases, on stderr at exit. */
static char fail_name[64];

static void report_calls(void) {
  fprintf(stderr,
          "fake cuda: %d module loads, %d launches, %d copies, %ld "
          "allocations left, %d module unloads, %d context releases\n",
          counter("cuModuleLoadData")->calls +
              counter("cuModuleLoadDataEx")->calls,
          counter("cuLaunchKernel")->calls, counter("cuMemcpyAsync")->calls,
          live_allocations, counter("cuModuleUnload")->calls,
          counter("cuDevicePrimaryCtxRelease_v2")->calls);
}

__attribute__((constructor)) static void read_environment(void) {
  const char *fail = getenv("TFCC_FAKE_CUDA_FAIL");
  const char *equals = fail ? strchr(fail, '=') : NULL;
  const char *report = getenv("TFCC_FAKE_CUDA_REPORT");
  if (equals && (size_t)(equals - fail) < sizeof(fail_name)) {
    memcpy(fail_name, fail, (size_t)(equals - fail));
    fail_name[equals - fail] = '\0';
    tfcc_fake_cuda_fail(fail_name, atoi(equals + 1));
  }
  if (report && strcmp(report, "1") == 0)
    atexit(report_calls);
}

/* Calls of `function` so far. */
FAKE_API int tfcc_fake_cuda_calls(const char *function) {
  return counter(function)->calls;
}

FAKE_API void tfcc_fake_cuda_set_device_count(int count) {
  device_count = count;
}

/* Allocations not freed yet, and the address of the last. */
FAKE_API long tfcc_fake_cuda_live_allocations(void) { return live_allocations; }
FAKE_API void *tfcc_fake_cuda_last_allocation(void) {
  return (void *)(uintptr_t)last_allocation;
}

FAKE_API const void *tfcc_fake_cuda_last_module_data(void) {
  return last_module_data;
}

/* cuModuleLoadDataEx's options: their count and the optimization level. */
FAKE_API void tfcc_fake_cuda_last_jit(unsigned int *num_options,
                                      intptr_t *opt_level) {
  *num_options = last_num_options;
  *opt_level = last_opt_level;
}

/* The last launch: grid x, y, z, block x, y, z, shared memory bytes. */
FAKE_API void tfcc_fake_cuda_last_launch(unsigned int dims[7], void **stream,
                                         void ***params) {
  memcpy(dims, last_launch, sizeof(last_launch));
  *stream = last_launch_stream;
  *params = last_launch_params;
}

FAKE_API int tfcc_fake_cuda_last_attribute_value(void) {
  return last_attribute_value;
}

/*===--- The driver API ---===*/

FAKE_API CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case 0:
    *name = "CUDA_SUCCESS";
    return 0;
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  case 2:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return 0;
  case 3:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    return 0;
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case 200:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return 0;
  case 218:
    *name = "CUDA_ERROR_INVALID_PTX";
    return 0;
  case 400:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return 0;
  case 500:
    *name = "CUDA_ERROR_NOT_FOUND";
    return 0;
  case 719:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    return 0;
  }
  *name = NULL; /* as the driver does for an unknown code */
  return 1;
}

FAKE_API CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return 1;
  return enter("cuInit");
}

FAKE_API CUresult cuDeviceGetCount(int *count) {
  CUresult r = enter("cuDeviceGetCount");
  if (r)
    return r;
  *count = device_count;
  return 0;
}

FAKE_API CUresult cuDeviceGet(int *device, int ordinal) {
  CUresult r = enter("cuDeviceGet");
  if (r)
    return r;
  if (ordinal < 0 || ordinal >= device_count)
    return 101;
  *device = ordinal;
  return 0;
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  CUresult r = enter("cuDevicePrimaryCtxRetain");
  if (r)
    return r;
  *context = (void *)(uintptr_t)(0xc0de0000u + (unsigned)device);
  return 0;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return enter("cuDevicePrimaryCtxRelease_v2");
}

FAKE_API CUresult cuCtxSetCurrent(void *context) {
  CUresult r = enter("cuCtxSetCurrent");
  if (r)
    return r;
  return context ? 0 : 1;
}

FAKE_API CUresult cuModuleLoadData(void **module, const void *image) {
  CUresult r = enter("cuModuleLoadData");
  if (r)
    return r;
  if (!image)
    return 1;
  last_module_data = image;
  *module = new_handle();
  return 0;
}

FAKE_API CUresult cuModuleLoadDataEx(void **module, const void *image,
                                     unsigned int num_options, int *options,
                                     void **values) {
  unsigned int i;
  CUresult r = enter("cuModuleLoadDataEx");
  last_num_options = num_options;
  last_opt_level = -1;
  for (i = 0; i < num_options; ++i) {
    if (options[i] == 7)
      last_opt_level = (intptr_t)values[i];
    /* Write the error log as the driver's JIT does. */
    if (r && options[i] == 5)
      strcpy((char *)values[i], "ptxas fatal: fake");
  }
  if (r)
    return r;
  if (!image)
    return 1;
  last_module_data = image;
  *module = new_handle();
  return 0;
}

FAKE_API CUresult cuModuleUnload(void *module) {
  (void)module;
  return enter("cuModuleUnload");
}

FAKE_API CUresult cuModuleGetFunction(void **function, void *module,
                                      const char *name) {
  CUresult r = enter("cuModuleGetFunction");
  if (r)
    return r;
  if (!module || !name)
    return 400;
  *function = new_handle();
  return 0;
}

/* Built once more without cuLaunchKernel (libtfcc_fake_cuda_incomplete.so):
 * a driver that lacks a function the runtime needs. */
#ifndef FAKE_CUDA_WITHOUT_LAUNCH
FAKE_API CUresult cuLaunchKernel(void *function, unsigned int gx,
                                 unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int smem,
                                 void *stream, void **params, void **extra) {
  CUresult r = enter("cuLaunchKernel");
  (void)extra;
  if (r)
    return r;
  if (!function)
    return 400;
  last_launch[0] = gx;
  last_launch[1] = gy;
  last_launch[2] = gz;
  last_launch[3] = bx;
  last_launch[4] = by;
  last_launch[5] = bz;
  last_launch[6] = smem;
  last_launch_stream = stream;
  last_launch_params = params;
  return 0;
}
#endif

FAKE_API CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  CUresult r = enter("cuFuncSetAttribute");
  (void)function;
  if (r)
    return r;
  if (attribute != 8)
    return 1;
  last_attribute_value = value;
  return 0;
}

FAKE_API CUresult cuStreamCreate(void **stream, unsigned int flags) {
  CUresult r = enter("cuStreamCreate");
  (void)flags;
  if (r)
    return r;
  *stream = new_handle();
  return 0;
}

FAKE_API CUresult cuStreamDestroy_v2(void *stream) {
  (void)stream;
  return enter("cuStreamDestroy_v2");
}

FAKE_API CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  return enter("cuStreamSynchronize");
}

FAKE_API CUresult cuStreamWaitEvent(void *stream, void *event,
                                    unsigned int flags) {
  (void)stream;
  (void)event;
  (void)flags;
  return enter("cuStreamWaitEvent");
}

FAKE_API CUresult cuEventCreate(void **event, unsigned int flags) {
  CUresult r = enter("cuEventCreate");
  (void)flags;
  if (r)
    return r;
  *event = new_handle();
  return 0;
}

FAKE_API CUresult cuEventDestroy_v2(void *event) {
  (void)event;
  return enter("cuEventDestroy_v2");
}

FAKE_API CUresult cuEventSynchronize(void *event) {
  (void)event;
  return enter("cuEventSynchronize");
}

FAKE_API CUresult cuEventRecord(void *event, void *stream) {
  (void)event;
  (void)stream;
  return enter("cuEventRecord");
}

static CUresult allocate(const char *name, CUdeviceptr *ptr, size_t bytes) {
  void *p;
  CUresult r = enter(name);
  if (r)
    return r;
  if (bytes == 0)
    return 1; /* as the driver does */
  p = calloc(1, bytes); /* zeroed: no kernel runs, so host-side checks of
                           kernel results read a fixed value */
  if (!p)
    return 2;
  ++live_allocations;
  last_allocation = (CUdeviceptr)(uintptr_t)p;
  *ptr = last_allocation;
  return 0;
}

FAKE_API CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  return allocate("cuMemAlloc_v2", ptr, bytes);
}

FAKE_API CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes,
                                    unsigned int flags) {
  if (flags != 1)
    return 1;
  return allocate("cuMemAllocManaged", ptr, bytes);
}

FAKE_API CUresult cuMemFree_v2(CUdeviceptr ptr) {
  CUresult r = enter("cuMemFree_v2");
  if (r)
    return r;
  if (!ptr)
    return 1;
  free((void *)(uintptr_t)ptr);
  --live_allocations;
  return 0;
}

FAKE_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                void *stream) {
  CUresult r = enter("cuMemcpyAsync");
  (void)stream;
  if (r)
    return r;
  if (bytes > 0 && (!dst || !src))
    return 1;
  if (bytes > 0)
    memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}

FAKE_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value,
                                   size_t count, void *stream) {
  size_t i;
  CUresult r = enter("cuMemsetD32Async");
  (void)stream;
  if (r)
    return r;
  for (i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return 0;
}

FAKE_API CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                   size_t count, void *stream) {
  size_t i;
  CUresult r = enter("cuMemsetD16Async");
  (void)stream;
  if (r)
    return r;
  for (i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 2 * i, &value, 2);
  return 0;
}
