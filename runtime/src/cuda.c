/* cuda.c - the CUDA driver, loaded at run time, and the mgpu* entry points the
 * code of a model compiled with --target=cuda calls (see cuda.h).
 *
 * C99 + POSIX (dlopen, pthread_once, a mutex): all in libc from glibc 2.34 on,
 * so a model .so still links with -lc -lm only. No CUDA header: the few driver
 * types and constants the runtime needs are declared below (their values are
 * the driver API's, cuda.h of CUDA 11 and 12).
 */
#define _POSIX_C_SOURCE 200809L

#include "cuda.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===----------------------------------------------------------------------===*
 * The driver API, as far as the runtime uses it
 *===----------------------------------------------------------------------===*/

typedef int tfcc_cu_result; /* CUresult */
typedef int tfcc_cu_device; /* CUdevice: an ordinal */
/* CUdeviceptr (64 bits where pointers are) */
#if defined(__LP64__) || defined(_WIN64)
typedef unsigned long long tfcc_cu_deviceptr;
#else
typedef unsigned int tfcc_cu_deviceptr;
#endif
/* CUcontext, CUmodule, CUfunction, CUstream, CUevent: opaque handles. */
typedef void* tfcc_cu_handle;

#define TFCC_CU_SUCCESS 0
#define TFCC_CU_ERROR_NO_DEVICE 100
#define TFCC_CU_STREAM_NON_BLOCKING 1u
#define TFCC_CU_EVENT_DISABLE_TIMING 2u
#define TFCC_CU_MEM_ATTACH_GLOBAL 1u
#define TFCC_CU_JIT_ERROR_LOG_BUFFER 5
#define TFCC_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define TFCC_CU_JIT_OPTIMIZATION_LEVEL 7
#define TFCC_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
/* Dynamic shared memory a kernel may use without opting in. */
#define TFCC_CU_DEFAULT_SHARED_MEM_BYTES (48 * 1024)

/* The functions the runtime needs, X(name, parameters); cuda.h's macros map
 * cuMemAlloc, cuMemFree, cuStreamDestroy and cuEventDestroy to these _v2
 * symbols. */
#define TFCC_CU_REQUIRED(X)                                                    \
  X(cuInit, (unsigned int flags))                                              \
  X(cuDeviceGetCount, (int* count))                                            \
  X(cuDeviceGet, (tfcc_cu_device * device, int ordinal))                       \
  X(cuDevicePrimaryCtxRetain,                                                  \
    (tfcc_cu_handle * context, tfcc_cu_device device))                         \
  X(cuCtxSetCurrent, (tfcc_cu_handle context))                                 \
  X(cuGetErrorName, (tfcc_cu_result error, const char** name))                 \
  X(cuModuleLoadData, (tfcc_cu_handle * module, const void* image))            \
  X(cuModuleLoadDataEx,                                                        \
    (tfcc_cu_handle * module, const void* image, unsigned int num_options,     \
     int* options, void** values))                                             \
  X(cuModuleUnload, (tfcc_cu_handle module))                                   \
  X(cuModuleGetFunction,                                                       \
    (tfcc_cu_handle * function, tfcc_cu_handle module, const char* name))      \
  X(cuLaunchKernel,                                                            \
    (tfcc_cu_handle function, unsigned int grid_x, unsigned int grid_y,        \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,          \
     unsigned int block_z, unsigned int shared_mem_bytes,                      \
     tfcc_cu_handle stream, void** params, void** extra))                      \
  X(cuStreamCreate, (tfcc_cu_handle * stream, unsigned int flags))             \
  X(cuStreamDestroy_v2, (tfcc_cu_handle stream))                               \
  X(cuStreamSynchronize, (tfcc_cu_handle stream))                              \
  X(cuMemAlloc_v2, (tfcc_cu_deviceptr * ptr, size_t bytes))                    \
  X(cuMemFree_v2, (tfcc_cu_deviceptr ptr))                                     \
  X(cuMemcpyAsync, (tfcc_cu_deviceptr dst, tfcc_cu_deviceptr src,              \
                    size_t bytes, tfcc_cu_handle stream))                      \
  X(cuMemsetD32Async, (tfcc_cu_deviceptr dst, unsigned int value,              \
                       size_t count, tfcc_cu_handle stream))                   \
  X(cuMemsetD16Async, (tfcc_cu_deviceptr dst, unsigned short value,            \
                       size_t count, tfcc_cu_handle stream))                   \
  X(cuEventCreate, (tfcc_cu_handle * event, unsigned int flags))               \
  X(cuEventDestroy_v2, (tfcc_cu_handle event))                                 \
  X(cuEventSynchronize, (tfcc_cu_handle event))                                \
  X(cuEventRecord, (tfcc_cu_handle event, tfcc_cu_handle stream))              \
  X(cuStreamWaitEvent,                                                         \
    (tfcc_cu_handle stream, tfcc_cu_handle event, unsigned int flags))

/* Used where the driver has them: managed memory (gpu.alloc host_shared) and
 * the opt-in to more than 48 KiB of dynamic shared memory. */
#define TFCC_CU_OPTIONAL(X)                                                    \
  X(cuMemAllocManaged,                                                         \
    (tfcc_cu_deviceptr * ptr, size_t bytes, unsigned int flags))               \
  X(cuFuncSetAttribute, (tfcc_cu_handle function, int attribute, int value))   \
  X(cuDevicePrimaryCtxRelease_v2, (tfcc_cu_device device))

#define TFCC_CU_FIELD(name, params) tfcc_cu_result(*name) params;
typedef struct tfcc_cu_driver {
  TFCC_CU_REQUIRED(TFCC_CU_FIELD)
  TFCC_CU_OPTIONAL(TFCC_CU_FIELD)
} tfcc_cu_driver;
#undef TFCC_CU_FIELD

/*===----------------------------------------------------------------------===*
 * State
 *===----------------------------------------------------------------------===*/

/* Set once, by tfcc_cuda_load under pthread_once; read-only afterwards. */
static pthread_once_t tfcc_cuda_once = PTHREAD_ONCE_INIT;
static tfcc_cu_driver tfcc_cu;
static void* tfcc_cuda_library;
static const char* tfcc_cuda_library_path; /* what it was opened as */
static tfcc_cu_handle tfcc_cuda_context;   /* the device's primary context */
static int tfcc_cuda_device;               /* its ordinal */
static tfcc_status_t tfcc_cuda_init_status = TFCC_UNAVAILABLE;
static char tfcc_cuda_init_message[512];
/* 1 once the driver is initialized (atomic: the mgpu* functions read it
 * without pthread_once). */
static int tfcc_cuda_ready;
/* Set once the loading has failed: tfcc_cuda_init_message is final. */
static int tfcc_cuda_load_failed;
/* The device mgpuSetDefaultDevice chose before the initialization. */
static int tfcc_cuda_requested_device;

/* Per thread: the context is current; the first error since the last
 * tfcc_rt_cuda_take_error. */
static __thread int tfcc_cuda_current;
static __thread int tfcc_cuda_failed;
static __thread char tfcc_cuda_error[256];

/* The modules mgpuModuleLoad(JIT) loaded, by the pointer to their data. */
typedef struct tfcc_cuda_module {
  const void* data;
  tfcc_cu_handle module;
} tfcc_cuda_module;
static pthread_mutex_t tfcc_cuda_modules_lock = PTHREAD_MUTEX_INITIALIZER;
static tfcc_cuda_module* tfcc_cuda_modules;
static size_t tfcc_cuda_num_modules;
static size_t tfcc_cuda_modules_capacity;

static int tfcc_cuda_is_ready(void) {
  return __atomic_load_n(&tfcc_cuda_ready, __ATOMIC_ACQUIRE);
}

/* Formats into dst (size bytes; nothing when dst is NULL or size 0). */
static void tfcc_cuda_format(char* dst, size_t size, const char* format, ...) {
  va_list args;
  if (!dst || size == 0)
    return;
  va_start(args, format);
  vsnprintf(dst, size, format, args);
  va_end(args);
}

/* The driver's name of `error` ("CUDA_ERROR_INVALID_VALUE"), or its number. */
static const char* tfcc_cuda_error_name(tfcc_cu_result error, char* buffer,
                                        size_t size) {
  const char* name = NULL;
  if (tfcc_cu.cuGetErrorName &&
      tfcc_cu.cuGetErrorName(error, &name) == TFCC_CU_SUCCESS && name)
    return name;
  snprintf(buffer, size, "CUDA error %d", error);
  return buffer;
}

/* Records the calling thread's first error: `format` names what failed. */
static void tfcc_cuda_record(const char* format, ...) {
  va_list args;
  if (tfcc_cuda_failed)
    return;
  tfcc_cuda_failed = 1;
  va_start(args, format);
  vsnprintf(tfcc_cuda_error, sizeof(tfcc_cuda_error), format, args);
  va_end(args);
}

/* Records "<what> failed: <CUDA error name>" when `result` is an error;
 * returns 1 for success. */
static int tfcc_cuda_check(tfcc_cu_result result, const char* what) {
  char number[32];
  if (result == TFCC_CU_SUCCESS)
    return 1;
  tfcc_cuda_record("%s failed: %s", what,
                   tfcc_cuda_error_name(result, number, sizeof(number)));
  return 0;
}

/* Makes the context current on this thread (once per thread). */
static tfcc_cu_result tfcc_cuda_make_current(void) {
  tfcc_cu_result result;
  if (tfcc_cuda_current)
    return TFCC_CU_SUCCESS;
  result = tfcc_cu.cuCtxSetCurrent(tfcc_cuda_context);
  if (result == TFCC_CU_SUCCESS)
    tfcc_cuda_current = 1;
  return result;
}

/* Whether an mgpu* function may call the driver: it is initialized and the
 * context current on this thread, and (unless `after_error`: functions that
 * only wait or release) the thread has no error. */
static int tfcc_cuda_enter(int after_error) {
  if (!tfcc_cuda_is_ready()) {
    tfcc_cuda_record("CUDA driver not initialized (the model's context was "
                     "not created, or its CUDA initialization failed)");
    return 0;
  }
  if (tfcc_cuda_failed && !after_error)
    return 0;
  return tfcc_cuda_check(tfcc_cuda_make_current(), "cuCtxSetCurrent");
}

/*===----------------------------------------------------------------------===*
 * Loading and initialization
 *===----------------------------------------------------------------------===*/

#define TFCC_CUDA_NEEDS_GPU                                                    \
  "this model was compiled with --target=cuda and needs an NVIDIA GPU and "    \
  "its driver"

/* Failure of driver call `call` during the initialization. */
static void tfcc_cuda_init_failed(const char* call, tfcc_cu_result result) {
  char number[32];
  tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),
                   "%s: %s failed with %s",
                   result == TFCC_CU_ERROR_NO_DEVICE
                       ? "no CUDA device"
                       : "CUDA initialization failed",
                   call, tfcc_cuda_error_name(result, number, sizeof(number)));
}

/* Resolves `name` into *slot; 0 when the library has no such symbol. */
static int tfcc_cuda_symbol(const char* name, void* slot) {
  void* address = dlsym(tfcc_cuda_library, name);
  if (!address)
    return 0;
  /* POSIX: a data pointer from dlsym converts to a function pointer. */
  memcpy(slot, &address, sizeof(address));
  return 1;
}

/* dlerror()'s text for a failed dlopen(path), without the path it usually
 * starts with. */
static const char* tfcc_cuda_dlerror(const char* path) {
  const char* error = dlerror();
  size_t n = strlen(path);
  if (!error)
    return "dlopen failed";
  if (strncmp(error, path, n) == 0 && error[n] == ':' && error[n + 1] == ' ')
    return error + n + 2;
  return error;
}

/* Opens the driver library; 0 with the message set when there is none. */
static int tfcc_cuda_open(void) {
  const char* path = getenv("TFCC_CUDA_DRIVER");
  char first_error[256];
  if (path && path[0]) {
    tfcc_cuda_library_path = path;
    tfcc_cuda_library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (tfcc_cuda_library)
      return 1;
    tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),
                     "CUDA driver not found (%s from TFCC_CUDA_DRIVER: %s); %s",
                     path, tfcc_cuda_dlerror(path), TFCC_CUDA_NEEDS_GPU);
    return 0;
  }
  tfcc_cuda_library_path = "libcuda.so.1";
  tfcc_cuda_library = dlopen(tfcc_cuda_library_path, RTLD_NOW | RTLD_LOCAL);
  if (tfcc_cuda_library)
    return 1;
  snprintf(first_error, sizeof(first_error), "%s",
           tfcc_cuda_dlerror(tfcc_cuda_library_path));
  tfcc_cuda_library_path = "libcuda.so";
  tfcc_cuda_library = dlopen(tfcc_cuda_library_path, RTLD_NOW | RTLD_LOCAL);
  if (tfcc_cuda_library)
    return 1;
  tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),
                   "CUDA driver not found (libcuda.so.1: %s); %s", first_error,
                   TFCC_CUDA_NEEDS_GPU);
  return 0;
}

/* Once per process: opens and initializes the driver, retains the primary
 * context of the device (never released: it lives as long as the process,
 * like the modules). Sets tfcc_cuda_init_status and _message. */
static void tfcc_cuda_load(void) {
  tfcc_cu_result result;
  tfcc_cu_device device = 0;
  int count = 0;
  if (!tfcc_cuda_open()) {
    __atomic_store_n(&tfcc_cuda_load_failed, 1, __ATOMIC_RELEASE);
    return;
  }
#define TFCC_CU_RESOLVE(name, params)                                          \
  if (!tfcc_cuda_symbol(#name, &tfcc_cu.name)) {                               \
    tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),   \
                     "CUDA driver has no " #name                               \
                     " (%s: too old a driver, or not a CUDA driver); %s",      \
                     tfcc_cuda_library_path, TFCC_CUDA_NEEDS_GPU);             \
    goto fail;                                                                 \
  }
  TFCC_CU_REQUIRED(TFCC_CU_RESOLVE)
#undef TFCC_CU_RESOLVE
#define TFCC_CU_RESOLVE_OPTIONAL(name, params)                                 \
  (void)tfcc_cuda_symbol(#name, &tfcc_cu.name);
  TFCC_CU_OPTIONAL(TFCC_CU_RESOLVE_OPTIONAL)
#undef TFCC_CU_RESOLVE_OPTIONAL

  result = tfcc_cu.cuInit(0);
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_init_failed("cuInit", result);
    goto fail;
  }
  result = tfcc_cu.cuDeviceGetCount(&count);
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_init_failed("cuDeviceGetCount", result);
    goto fail;
  }
  tfcc_cuda_device =
      __atomic_load_n(&tfcc_cuda_requested_device, __ATOMIC_RELAXED);
  if (count < 1) {
    tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),
                     "no CUDA device: the driver found none; %s",
                     TFCC_CUDA_NEEDS_GPU);
    goto fail;
  }
  if (tfcc_cuda_device < 0 || tfcc_cuda_device >= count) {
    tfcc_cuda_format(tfcc_cuda_init_message, sizeof(tfcc_cuda_init_message),
                     "no CUDA device %d: the driver found %d", tfcc_cuda_device,
                     count);
    goto fail;
  }
  result = tfcc_cu.cuDeviceGet(&device, tfcc_cuda_device);
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_init_failed("cuDeviceGet", result);
    goto fail;
  }
  result = tfcc_cu.cuDevicePrimaryCtxRetain(&tfcc_cuda_context, device);
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_init_failed("cuDevicePrimaryCtxRetain", result);
    goto fail;
  }
  tfcc_cuda_init_status = TFCC_OK;
  tfcc_cuda_init_message[0] = '\0';
  __atomic_store_n(&tfcc_cuda_ready, 1, __ATOMIC_RELEASE);
  return;

fail:
  memset(&tfcc_cu, 0, sizeof(tfcc_cu));
  dlclose(tfcc_cuda_library);
  tfcc_cuda_library = NULL;
  __atomic_store_n(&tfcc_cuda_load_failed, 1, __ATOMIC_RELEASE);
}

const char* tfcc_rt_cuda_init_failure(void) {
  return __atomic_load_n(&tfcc_cuda_load_failed, __ATOMIC_ACQUIRE)
             ? tfcc_cuda_init_message
             : NULL;
}

tfcc_status_t tfcc_rt_cuda_init(char* message, size_t message_size) {
  char number[32];
  tfcc_cu_result result;
  if (pthread_once(&tfcc_cuda_once, tfcc_cuda_load) != 0) {
    tfcc_cuda_format(message, message_size,
                     "CUDA initialization failed: pthread_once failed");
    return TFCC_UNAVAILABLE;
  }
  if (tfcc_cuda_init_status != TFCC_OK) {
    tfcc_cuda_format(message, message_size, "%s", tfcc_cuda_init_message);
    return tfcc_cuda_init_status;
  }
  result = tfcc_cuda_make_current();
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_format(message, message_size, "cuCtxSetCurrent failed: %s",
                     tfcc_cuda_error_name(result, number, sizeof(number)));
    return TFCC_UNAVAILABLE;
  }
  tfcc_cuda_format(message, message_size, "%s", "");
  return TFCC_OK;
}

int tfcc_rt_cuda_take_error(char* message, size_t message_size) {
  if (!tfcc_cuda_failed) {
    tfcc_cuda_format(message, message_size, "%s", "");
    return 0;
  }
  tfcc_cuda_format(message, message_size, "%s", tfcc_cuda_error);
  tfcc_cuda_failed = 0;
  tfcc_cuda_error[0] = '\0';
  return 1;
}

void* tfcc_rt_cuda_alloc(uint64_t bytes, char* message, size_t message_size) {
  char number[32];
  tfcc_cu_result result;
  tfcc_cu_deviceptr ptr = 0;
  tfcc_cuda_format(message, message_size, "%s", "");
  if (bytes == 0)
    return NULL;
  if (!tfcc_cuda_is_ready()) {
    tfcc_cuda_format(message, message_size, "CUDA driver not initialized");
    return NULL;
  }
  if (bytes > (uint64_t)SIZE_MAX) {
    tfcc_cuda_format(message, message_size,
                     "cuMemAlloc of %" PRIu64 " bytes: too large", bytes);
    return NULL;
  }
  result = tfcc_cuda_make_current();
  if (result != TFCC_CU_SUCCESS) {
    tfcc_cuda_format(message, message_size, "cuCtxSetCurrent failed: %s",
                     tfcc_cuda_error_name(result, number, sizeof(number)));
    return NULL;
  }
  result = tfcc_cu.cuMemAlloc_v2(&ptr, (size_t)bytes);
  if (result != TFCC_CU_SUCCESS || ptr == 0) {
    tfcc_cuda_format(message, message_size,
                     "cuMemAlloc of %" PRIu64 " bytes failed: %s", bytes,
                     result != TFCC_CU_SUCCESS
                         ? tfcc_cuda_error_name(result, number, sizeof(number))
                         : "it returned address 0");
    return NULL;
  }
  return (void*)(uintptr_t)ptr;
}

void tfcc_rt_cuda_free(void* ptr) {
  if (!ptr || !tfcc_cuda_is_ready())
    return;
  if (tfcc_cuda_make_current() != TFCC_CU_SUCCESS)
    return;
  (void)tfcc_cu.cuMemFree_v2((tfcc_cu_deviceptr)(uintptr_t)ptr);
}

/*===----------------------------------------------------------------------===*
 * Streams and events
 *===----------------------------------------------------------------------===*/

void* mgpuStreamCreate(void) {
  tfcc_cu_handle stream = NULL;
  if (!tfcc_cuda_enter(0))
    return NULL;
  if (!tfcc_cuda_check(
          tfcc_cu.cuStreamCreate(&stream, TFCC_CU_STREAM_NON_BLOCKING),
          "cuStreamCreate"))
    return NULL;
  return stream;
}

void mgpuStreamDestroy(void* stream) {
  if (!stream || !tfcc_cuda_enter(1))
    return;
  tfcc_cuda_check(tfcc_cu.cuStreamDestroy_v2(stream), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void* stream) {
  if (!tfcc_cuda_enter(1))
    return;
  tfcc_cuda_check(tfcc_cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void* stream, void* event) {
  if (!tfcc_cuda_enter(0))
    return;
  tfcc_cuda_check(tfcc_cu.cuStreamWaitEvent(stream, event, 0),
                  "cuStreamWaitEvent");
}

void* mgpuEventCreate(void) {
  tfcc_cu_handle event = NULL;
  if (!tfcc_cuda_enter(0))
    return NULL;
  if (!tfcc_cuda_check(
          tfcc_cu.cuEventCreate(&event, TFCC_CU_EVENT_DISABLE_TIMING),
          "cuEventCreate"))
    return NULL;
  return event;
}

void mgpuEventDestroy(void* event) {
  if (!event || !tfcc_cuda_enter(1))
    return;
  tfcc_cuda_check(tfcc_cu.cuEventDestroy_v2(event), "cuEventDestroy");
}

void mgpuEventSynchronize(void* event) {
  if (!event || !tfcc_cuda_enter(1))
    return;
  tfcc_cuda_check(tfcc_cu.cuEventSynchronize(event), "cuEventSynchronize");
}

void mgpuEventRecord(void* event, void* stream) {
  if (!tfcc_cuda_enter(0))
    return;
  tfcc_cuda_check(tfcc_cu.cuEventRecord(event, stream), "cuEventRecord");
}

/*===----------------------------------------------------------------------===*
 * Memory
 *===----------------------------------------------------------------------===*/

void* mgpuMemAlloc(uint64_t size_bytes, void* stream, bool is_host_shared) {
  char what[64];
  tfcc_cu_deviceptr ptr = 0;
  tfcc_cu_result result;
  (void)stream;
  if (size_bytes == 0)
    return NULL;
  if (!tfcc_cuda_enter(0))
    return NULL;
  if (size_bytes > (uint64_t)SIZE_MAX) {
    tfcc_cuda_record("mgpuMemAlloc of %" PRIu64 " bytes: too large",
                     size_bytes);
    return NULL;
  }
  if (is_host_shared) {
    if (!tfcc_cu.cuMemAllocManaged) {
      tfcc_cuda_record("mgpuMemAlloc of %" PRIu64
                       " bytes of managed memory: the CUDA driver has no "
                       "cuMemAllocManaged",
                       size_bytes);
      return NULL;
    }
    snprintf(what, sizeof(what), "cuMemAllocManaged of %" PRIu64 " bytes",
             size_bytes);
    result = tfcc_cu.cuMemAllocManaged(&ptr, (size_t)size_bytes,
                                       TFCC_CU_MEM_ATTACH_GLOBAL);
  } else {
    snprintf(what, sizeof(what), "cuMemAlloc of %" PRIu64 " bytes", size_bytes);
    result = tfcc_cu.cuMemAlloc_v2(&ptr, (size_t)size_bytes);
  }
  if (!tfcc_cuda_check(result, what))
    return NULL;
  return (void*)(uintptr_t)ptr;
}

void mgpuMemFree(void* ptr, void* stream) {
  (void)stream;
  if (!ptr || !tfcc_cuda_enter(1))
    return;
  tfcc_cuda_check(tfcc_cu.cuMemFree_v2((tfcc_cu_deviceptr)(uintptr_t)ptr),
                  "cuMemFree");
}

void mgpuMemcpy(void* dst, void* src, size_t size_bytes, void* stream) {
  if (!tfcc_cuda_enter(0))
    return;
  tfcc_cuda_check(tfcc_cu.cuMemcpyAsync((tfcc_cu_deviceptr)(uintptr_t)dst,
                                        (tfcc_cu_deviceptr)(uintptr_t)src,
                                        size_bytes, stream),
                  "cuMemcpyAsync");
}

void mgpuMemset32(void* dst, unsigned int value, size_t count, void* stream) {
  if (!tfcc_cuda_enter(0))
    return;
  tfcc_cuda_check(tfcc_cu.cuMemsetD32Async((tfcc_cu_deviceptr)(uintptr_t)dst,
                                           value, count, stream),
                  "cuMemsetD32Async");
}

void mgpuMemset16(void* dst, unsigned short value, size_t count, void* stream) {
  if (!tfcc_cuda_enter(0))
    return;
  tfcc_cuda_check(tfcc_cu.cuMemsetD16Async((tfcc_cu_deviceptr)(uintptr_t)dst,
                                           value, count, stream),
                  "cuMemsetD16Async");
}

/*===----------------------------------------------------------------------===*
 * Modules and launches
 *===----------------------------------------------------------------------===*/

/* The module loaded from `data` (NULL when none yet); lock held. */
static tfcc_cu_handle tfcc_cuda_cached_module(const void* data) {
  size_t i;
  for (i = 0; i < tfcc_cuda_num_modules; ++i)
    if (tfcc_cuda_modules[i].data == data)
      return tfcc_cuda_modules[i].module;
  return NULL;
}

/* Remembers `module` for `data`; lock held. Without memory for the table the
 * module is simply not cached (loaded again next time, never unloaded). */
static void tfcc_cuda_cache_module(const void* data, tfcc_cu_handle module) {
  if (tfcc_cuda_num_modules == tfcc_cuda_modules_capacity) {
    size_t capacity =
        tfcc_cuda_modules_capacity ? 2 * tfcc_cuda_modules_capacity : 8;
    tfcc_cuda_module* grown = (tfcc_cuda_module*)realloc(
        tfcc_cuda_modules, capacity * sizeof(tfcc_cuda_module));
    if (!grown)
      return;
    tfcc_cuda_modules = grown;
    tfcc_cuda_modules_capacity = capacity;
  }
  tfcc_cuda_modules[tfcc_cuda_num_modules].data = data;
  tfcc_cuda_modules[tfcc_cuda_num_modules].module = module;
  ++tfcc_cuda_num_modules;
}

/* mgpuModuleLoad (jit 0) and mgpuModuleLoadJIT. */
static void* tfcc_cuda_load_module(const void* data, int jit, int opt_level) {
  tfcc_cu_handle module;
  tfcc_cu_result result;
  if (!tfcc_cuda_enter(0))
    return NULL;
  pthread_mutex_lock(&tfcc_cuda_modules_lock);
  module = tfcc_cuda_cached_module(data);
  if (module) {
    pthread_mutex_unlock(&tfcc_cuda_modules_lock);
    return module;
  }
  if (jit) {
    char log[4096];
    int options[3] = {TFCC_CU_JIT_ERROR_LOG_BUFFER,
                      TFCC_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                      TFCC_CU_JIT_OPTIMIZATION_LEVEL};
    void* values[3];
    log[0] = '\0';
    values[0] = log;
    values[1] = (void*)(uintptr_t)sizeof(log);
    values[2] = (void*)(intptr_t)opt_level;
    result = tfcc_cu.cuModuleLoadDataEx(&module, data, 3, options, values);
    if (result != TFCC_CU_SUCCESS && log[0]) {
      char number[32];
      log[sizeof(log) - 1] = '\0';
      tfcc_cuda_record("cuModuleLoadDataEx failed: %s (JIT log: %s)",
                       tfcc_cuda_error_name(result, number, sizeof(number)),
                       log);
    }
    tfcc_cuda_check(result, "cuModuleLoadDataEx");
  } else {
    result = tfcc_cu.cuModuleLoadData(&module, data);
    tfcc_cuda_check(result, "cuModuleLoadData");
  }
  if (result != TFCC_CU_SUCCESS)
    module = NULL;
  if (module)
    tfcc_cuda_cache_module(data, module);
  pthread_mutex_unlock(&tfcc_cuda_modules_lock);
  return module;
}

/*===----------------------------------------------------------------------===*
 * Weights
 *===----------------------------------------------------------------------===*/

/* The device copies of the weights, by host address: uploaded by the first
 * call that uses each, kept for the process (like the modules). */
typedef struct tfcc_cuda_weight_copy {
  uint64_t host;
  uint64_t bytes;
  uint64_t device;
} tfcc_cuda_weight_copy;
static pthread_mutex_t tfcc_cuda_weights_lock = PTHREAD_MUTEX_INITIALIZER;
static tfcc_cuda_weight_copy* tfcc_cuda_weights;
static size_t tfcc_cuda_num_weights;
static size_t tfcc_cuda_weights_capacity;

uint64_t tfcc_rt_cuda_weight(uint64_t host_address, uint64_t bytes) {
  char what[80];
  tfcc_cu_deviceptr device = 0;
  size_t i;
  if (bytes == 0 || !tfcc_cuda_enter(0))
    return 0;
  pthread_mutex_lock(&tfcc_cuda_weights_lock);
  for (i = 0; i < tfcc_cuda_num_weights; ++i)
    if (tfcc_cuda_weights[i].host == host_address &&
        tfcc_cuda_weights[i].bytes == bytes) {
      device = tfcc_cuda_weights[i].device;
      pthread_mutex_unlock(&tfcc_cuda_weights_lock);
      return device;
    }
  if (tfcc_cuda_num_weights == tfcc_cuda_weights_capacity) {
    size_t capacity =
        tfcc_cuda_weights_capacity ? 2 * tfcc_cuda_weights_capacity : 16;
    tfcc_cuda_weight_copy* grown = (tfcc_cuda_weight_copy*)realloc(
        tfcc_cuda_weights, capacity * sizeof(*grown));
    if (!grown) {
      pthread_mutex_unlock(&tfcc_cuda_weights_lock);
      tfcc_cuda_record("the table of weights on the device: out of memory");
      return 0;
    }
    tfcc_cuda_weights = grown;
    tfcc_cuda_weights_capacity = capacity;
  }
  snprintf(what, sizeof(what), "cuMemAlloc of %" PRIu64 " bytes of weights",
           bytes);
  if (bytes > (uint64_t)SIZE_MAX ||
      !tfcc_cuda_check(tfcc_cu.cuMemAlloc_v2(&device, (size_t)bytes), what)) {
    pthread_mutex_unlock(&tfcc_cuda_weights_lock);
    return 0;
  }
  /* On the legacy stream, then waited for: the copy is complete before any
   * kernel that reads it runs. */
  if (!tfcc_cuda_check(tfcc_cu.cuMemcpyAsync(device,
                                             (tfcc_cu_deviceptr)host_address,
                                             (size_t)bytes, NULL),
                       "cuMemcpyAsync of weights") ||
      !tfcc_cuda_check(tfcc_cu.cuStreamSynchronize(NULL),
                       "cuStreamSynchronize after copying weights")) {
    tfcc_cu.cuMemFree_v2(device);
    pthread_mutex_unlock(&tfcc_cuda_weights_lock);
    return 0;
  }
  tfcc_cuda_weights[tfcc_cuda_num_weights].host = host_address;
  tfcc_cuda_weights[tfcc_cuda_num_weights].bytes = bytes;
  tfcc_cuda_weights[tfcc_cuda_num_weights].device = device;
  ++tfcc_cuda_num_weights;
  pthread_mutex_unlock(&tfcc_cuda_weights_lock);
  return device;
}

/* The library this runtime is linked into is unloaded (dlclose, or the
 * process exits): the device copies of the weights, the modules and the
 * hold on the primary context go back to the driver, so that a program
 * that loads and unloads models does not keep their device memory. Errors
 * are ignored: at exit the driver may be shutting down already (its calls
 * then return CUDA_ERROR_DEINITIALIZED). */
__attribute__((destructor)) static void tfcc_cuda_unload(void) {
  size_t i;
  if (__atomic_load_n(&tfcc_cuda_ready, __ATOMIC_ACQUIRE)) {
    (void)tfcc_cu.cuCtxSetCurrent(tfcc_cuda_context);
    for (i = 0; i < tfcc_cuda_num_weights; ++i)
      (void)tfcc_cu.cuMemFree_v2(tfcc_cuda_weights[i].device);
    for (i = 0; i < tfcc_cuda_num_modules; ++i)
      (void)tfcc_cu.cuModuleUnload(tfcc_cuda_modules[i].module);
    if (tfcc_cu.cuDevicePrimaryCtxRelease_v2) {
      tfcc_cu_device device;
      if (tfcc_cu.cuDeviceGet(&device, tfcc_cuda_device) == TFCC_CU_SUCCESS)
        (void)tfcc_cu.cuDevicePrimaryCtxRelease_v2(device);
    }
  }
  free(tfcc_cuda_weights);
  tfcc_cuda_weights = NULL;
  tfcc_cuda_num_weights = tfcc_cuda_weights_capacity = 0;
  free(tfcc_cuda_modules);
  tfcc_cuda_modules = NULL;
  tfcc_cuda_num_modules = tfcc_cuda_modules_capacity = 0;
}

void* mgpuModuleLoad(void* data, size_t size) {
  (void)size;
  return tfcc_cuda_load_module(data, 0, 0);
}

void* mgpuModuleLoadJIT(void* data, int opt_level) {
  return tfcc_cuda_load_module(data, 1, opt_level);
}

void mgpuModuleUnload(void* module) {
  /* Cached for the process (mgpuModuleLoad). */
  (void)module;
}

void* mgpuModuleGetFunction(void* module, const char* name) {
  char what[160];
  tfcc_cu_handle function = NULL;
  if (!tfcc_cuda_enter(0))
    return NULL;
  snprintf(what, sizeof(what), "cuModuleGetFunction('%s')",
           name ? name : "(null)");
  if (!tfcc_cuda_check(tfcc_cu.cuModuleGetFunction(&function, module, name),
                       what))
    return NULL;
  return function;
}

static int tfcc_cuda_dim_ok(intptr_t d) {
  return d >= 0 && (uintmax_t)d <= UINT_MAX;
}

void mgpuLaunchKernel(void* function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t shared_mem_bytes, void* stream,
                      void** params, void** extra, size_t params_count) {
  (void)params_count;
  if (!tfcc_cuda_enter(0))
    return;
  if (!tfcc_cuda_dim_ok(grid_x) || !tfcc_cuda_dim_ok(grid_y) ||
      !tfcc_cuda_dim_ok(grid_z) || !tfcc_cuda_dim_ok(block_x) ||
      !tfcc_cuda_dim_ok(block_y) || !tfcc_cuda_dim_ok(block_z) ||
      shared_mem_bytes < 0) {
    tfcc_cuda_record("mgpuLaunchKernel: grid %" PRIdPTR "x%" PRIdPTR
                     "x%" PRIdPTR ", block %" PRIdPTR "x%" PRIdPTR "x%" PRIdPTR
                     ", %" PRId32 " bytes of shared memory: out of range",
                     grid_x, grid_y, grid_z, block_x, block_y, block_z,
                     shared_mem_bytes);
    return;
  }
  /* More dynamic shared memory than the default needs the kernel's opt-in
   * (as MLIR's wrapper does; the launch fails where the device has less). */
  if (shared_mem_bytes > TFCC_CU_DEFAULT_SHARED_MEM_BYTES &&
      tfcc_cu.cuFuncSetAttribute &&
      !tfcc_cuda_check(tfcc_cu.cuFuncSetAttribute(
                           function,
                           TFCC_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           shared_mem_bytes),
                       "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
    return;
  tfcc_cuda_check(tfcc_cu.cuLaunchKernel(
                      function, (unsigned int)grid_x, (unsigned int)grid_y,
                      (unsigned int)grid_z, (unsigned int)block_x,
                      (unsigned int)block_y, (unsigned int)block_z,
                      (unsigned int)shared_mem_bytes, stream, params, extra),
                  "cuLaunchKernel");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (!tfcc_cuda_is_ready()) {
    __atomic_store_n(&tfcc_cuda_requested_device, (int)device,
                     __ATOMIC_RELAXED);
    return;
  }
  if (device != tfcc_cuda_device)
    tfcc_cuda_record("mgpuSetDefaultDevice(%" PRId32
                     "): the runtime's CUDA context is on device %d (one "
                     "device per process)",
                     device, tfcc_cuda_device);
}
