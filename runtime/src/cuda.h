/* cuda.h - the runtime's CUDA support (src/cuda.c): the driver, loaded at run
 * time, and the entry points the code of a model compiled with --target=cuda
 * calls (MLIR's gpu-to-llvm lowering).
 *
 * Internal to the runtime, like tfcc_runtime.h: every symbol is hidden, so each
 * model .so has its own copy (the archive is linked into it) and two models in
 * one process do not clash. Hosted builds only (not on bare metal).
 *
 * The driver (libcuda) is not linked: it is opened with dlopen once per
 * process, on the first tfcc_rt_cuda_init, from the path in the environment
 * variable TFCC_CUDA_DRIVER if set, else libcuda.so.1, else libcuda.so. Its
 * types are declared here as opaque pointers and integers, so the runtime
 * builds without the CUDA toolkit. Device 0's primary context is retained and
 * made current on each thread that calls in (once per thread).
 *
 * Errors: the mgpu* functions never abort or print. A failed driver call is
 * recorded as the calling thread's first error ("cuLaunchKernel failed:
 * CUDA_ERROR_INVALID_VALUE"); after it, the thread's mgpu* calls that compute,
 * copy, allocate or load do nothing (those returning a pointer return NULL, so
 * a failed allocation is never written through), while those that only wait
 * or release (stream and event synchronize and destroy, mgpuMemFree) still
 * run, so that a failed call leaks no device memory and leaves no copy into
 * the caller's buffers running after it returns. tfcc_rt_cuda_take_error
 * reads and clears the error (tfcc_rt_invoke does after each CUDA kernel).
 */
#ifndef TFCC_RT_CUDA_H_
#define TFCC_RT_CUDA_H_

#include "tfcc/tfcc_runtime.h"

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the driver, initializes it and makes device 0's primary context
 * current on this thread; the loading and initialization happen once per
 * process (later calls return the first one's outcome). Returns TFCC_OK, or
 * TFCC_UNAVAILABLE with `message` (message_size bytes, NUL-terminated,
 * truncated to fit; may be NULL) saying why: no driver (the path and the
 * loader's error), a driver without one of the functions the runtime calls,
 * no device, or the failing call with its CUDA error name. */
TFCC_RT_API tfcc_status_t tfcc_rt_cuda_init(char* message, size_t message_size);

/* Why the driver could not be loaded or initialized (tfcc_rt_cuda_init's
 * message), once that has failed in this process; NULL before and after a
 * success. tfcc_rt_status_string gives it for TFCC_UNAVAILABLE, so that a
 * caller of <prefix>_create (which has no context to read a message from)
 * learns the reason too. */
TFCC_RT_API const char* tfcc_rt_cuda_init_failure(void);

/* The device copy of `bytes` bytes of weights at `host_address` (a model's
 * constant data), uploaded by the first call for that address and kept for
 * the process; its device address, or 0 after recording the thread's error
 * (or when the thread already has one). The code of a model compiled with
 * --target=cuda calls it for each weight it reads (tfcc-gpu-device-buffers);
 * addresses as integers, as that code passes them. */
TFCC_RT_API uint64_t tfcc_rt_cuda_weight(uint64_t host_address, uint64_t bytes);

/* Returns 1 and copies the calling thread's first error since the last call
 * into `message` (truncated; may be NULL), then clears it; 0 (and `message`
 * "") when there was none. */
TFCC_RT_API int tfcc_rt_cuda_take_error(char* message, size_t message_size);

/* Device memory for a context's arena (cuMemAlloc: at least 256-byte
 * aligned). Returns NULL for 0 bytes (no message) and on failure (the driver
 * not initialized or cuMemAlloc failing: `message` says why). Does not touch
 * the thread's mgpu* error. */
TFCC_RT_API void* tfcc_rt_cuda_alloc(uint64_t bytes, char* message,
                                     size_t message_size);
/* Frees what tfcc_rt_cuda_alloc returned; NULL is a no-op. */
TFCC_RT_API void tfcc_rt_cuda_free(void* ptr);

/* The functions MLIR 19's gpu-to-llvm lowering calls, with the signatures of
 * mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp. Pointers are the driver's
 * handles (CUstream, CUevent, CUmodule, CUfunction) and device addresses. */
TFCC_RT_API void* mgpuStreamCreate(void);
TFCC_RT_API void mgpuStreamDestroy(void* stream);
TFCC_RT_API void mgpuStreamSynchronize(void* stream);
TFCC_RT_API void mgpuStreamWaitEvent(void* stream, void* event);
TFCC_RT_API void* mgpuEventCreate(void);
TFCC_RT_API void mgpuEventDestroy(void* event);
TFCC_RT_API void mgpuEventSynchronize(void* event);
TFCC_RT_API void mgpuEventRecord(void* event, void* stream);
/* size_bytes 0: NULL, no error. is_host_shared: managed memory
 * (cuMemAllocManaged, where the driver has it). The stream is not used. */
TFCC_RT_API void* mgpuMemAlloc(uint64_t size_bytes, void* stream,
                               bool is_host_shared);
TFCC_RT_API void mgpuMemFree(void* ptr, void* stream);
TFCC_RT_API void mgpuMemcpy(void* dst, void* src, size_t size_bytes,
                            void* stream);
TFCC_RT_API void mgpuMemset32(void* dst, unsigned int value, size_t count,
                              void* stream);
TFCC_RT_API void mgpuMemset16(void* dst, unsigned short value, size_t count,
                              void* stream);
/* Loaded once per process for each `data` pointer (the model's static
 * binary): later calls with the same pointer return the same module, and
 * mgpuModuleUnload does nothing (the generated code loads and unloads the
 * module around every launch). size is not used. */
TFCC_RT_API void* mgpuModuleLoad(void* data, size_t size);
/* The same, from PTX compiled by the driver at optimization level opt_level
 * (cuModuleLoadDataEx; the JIT's error log is in the error message). */
TFCC_RT_API void* mgpuModuleLoadJIT(void* data, int opt_level);
TFCC_RT_API void mgpuModuleUnload(void* module);
TFCC_RT_API void* mgpuModuleGetFunction(void* module, const char* name);
/* Dimensions outside [0, UINT_MAX] are an error (no launch). params_count is
 * not used. */
TFCC_RT_API void mgpuLaunchKernel(void* function, intptr_t grid_x,
                                  intptr_t grid_y, intptr_t grid_z,
                                  intptr_t block_x, intptr_t block_y,
                                  intptr_t block_z, int32_t shared_mem_bytes,
                                  void* stream, void** params, void** extra,
                                  size_t params_count);
/* The device the driver's initialization selects, when called before it;
 * afterwards another device than the selected one is an error (one device
 * per process). */
TFCC_RT_API void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFCC_RT_CUDA_H_ */
