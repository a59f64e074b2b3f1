/* tfcc_runtime.h - the runtime calls the code of a compiled model makes.
 *
 * Internal: the exported <prefix>_* functions of a model .so are thin wrappers
 * the compiler generates around these. Every symbol is hidden, so two models
 * linked into one process do not clash. C99, libc (and pthreads, for the
 * kernels' thread pool) only; nothing here mallocs except
 * tfcc_rt_context_create, tfcc_rt_context_create_with_threads and the
 * checkpoint save/load.
 *
 * Ownership: the runtime never takes ownership of anything the caller passes in
 * (model tables, arenas, input and output buffers) and keeps no pointer to
 * inputs or outputs after a call returns. Define TFCC_NO_ERROR_STRINGS (or
 * TFCC_RT_NO_MESSAGES; the CMake option TFCC_NO_ERROR_STRINGS of runtime/) to
 * compile the error strings out (tiny builds): contexts then carry an empty
 * message.
 */
#ifndef TFCC_RUNTIME_H_
#define TFCC_RUNTIME_H_

#include "tfcc/tfcc_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TFCC_RT_API
#if defined(__GNUC__) || defined(__clang__)
#define TFCC_RT_API __attribute__((visibility("hidden")))
#else
#define TFCC_RT_API
#endif
#endif

/* Most inputs + outputs one entry point may have (tfcc_rt_invoke builds its
 * argument array on the stack). */
#define TFCC_RT_MAX_ARGS 256
/* Most named dimensions (beyond the batch) a model may have. */
#define TFCC_RT_MAX_DIMS 64

/* Returns the arena bytes entry `e` needs at `batch`: arena_bytes_fixed +
 * arena_bytes_per_batch * batch (the latter only when e->has_dynamic_batch),
 * rounded up to TFCC_ARENA_ALIGNMENT. A negative batch counts as 0. Returns 0
 * for a NULL `e` and UINT64_MAX when the size overflows. Borrows `e`. */
TFCC_RT_API uint64_t tfcc_rt_entry_arena_bytes(const tfcc_entry_info* e,
                                               int64_t batch);

/* Returns the arena bytes a context of model `m` needs for batches up to
 * `max_batch`: the largest tfcc_rt_entry_arena_bytes over the entries plus
 * TFCC_ARENA_ALIGNMENT bytes of slack, so that an arena of any alignment can be
 * aligned up. Equals the generated <PREFIX>_ARENA_BYTES(max_batch). Returns 0
 * for a NULL `m` and UINT64_MAX on overflow. Borrows `m`. */
TFCC_RT_API uint64_t tfcc_rt_model_arena_bytes(const tfcc_model_info* m,
                                               int64_t max_batch);

/* Initializes `ctx` for model `m` with the caller's `arena` of `arena_bytes`
 * bytes and the largest batch any later call will use. Never mallocs and
 * creates no thread: the context runs its calls on the calling thread only
 * (num_threads = 1, pool = NULL).
 *
 * Ownership: `m` must outlive `ctx` (it is the model's static table); the
 * caller keeps ownership of `ctx` and `arena`, which must stay valid and unused
 * by anything else until the context is no longer used. The arena needs no
 * particular alignment: the context aligns it up to 64 bytes, and at most
 * tfcc_rt_model_arena_bytes(m, max_batch) bytes are ever needed (64 fewer for a
 * 64-byte aligned arena).
 *
 * Returns TFCC_OK, or, with ctx->message saying why (when ctx is not NULL)
 * and ctx left unusable:
 *   TFCC_INVALID_ARGUMENT     ctx or m is NULL, or arena is NULL but needed;
 *   TFCC_FAILED_PRECONDITION  m was compiled for another TFCC_ABI_VERSION;
 *   TFCC_INTERNAL             m has a malformed entry table;
 *   TFCC_OUT_OF_RANGE         max_batch < 1;
 *   TFCC_RESOURCE_EXHAUSTED   the arena is too small for max_batch.
 *
 * A model whose code runs on a CUDA GPU (TFCC_MODEL_FLAG_CUDA in m->flags)
 * gets an arena of device memory allocated here through the driver (src/cuda.h),
 * which tfcc_rt_context_destroy frees: call it for such a context even when it
 * comes from here. `arena` then holds only the state memory of a model with a
 * training step (host memory; the code copies it to the device and back in
 * each call); without one it may be NULL and 0. Its further statuses:
 *   TFCC_UNAVAILABLE          no CUDA driver or device, or the driver's
 *                             initialization failed (the message says which);
 *   TFCC_RESOURCE_EXHAUSTED   the device arena could not be allocated, or the
 *                             block is too small for the state memory. */
TFCC_RT_API tfcc_status_t tfcc_rt_context_init(const tfcc_model_info* m,
                                               tfcc_context* ctx, void* arena,
                                               uint64_t arena_bytes,
                                               int64_t max_batch);

/* Allocates (with malloc) a context and an arena large enough for
 * `max_batch`, in one block, and initializes it as tfcc_rt_context_init does
 * (owns_arena = 1). The same as tfcc_rt_context_create_with_threads with one
 * thread: no thread is created.
 *
 * Ownership: on TFCC_OK the caller owns *out_ctx and releases it with
 * tfcc_rt_context_destroy; `m` must outlive it. *out_ctx is set to NULL first
 * and stays NULL on failure (nothing to free).
 *
 * Returns TFCC_OK, or (no message: there is no context):
 *   TFCC_INVALID_ARGUMENT     m or out_ctx is NULL;
 *   TFCC_FAILED_PRECONDITION  ABI version mismatch;
 *   TFCC_INTERNAL             m has a malformed entry table;
 *   TFCC_OUT_OF_RANGE         max_batch < 1;
 *   TFCC_RESOURCE_EXHAUSTED   the size overflows or malloc failed;
 * and for a model on a CUDA GPU those tfcc_rt_context_init adds for it
 * (TFCC_UNAVAILABLE without a usable GPU: the block then holds the context
 * and the state memory only, the arena being device memory). */
TFCC_RT_API tfcc_status_t tfcc_rt_context_create(const tfcc_model_info* m,
                                                 int64_t max_batch,
                                                 tfcc_context** out_ctx);

/* Like tfcc_rt_context_create, and the context's calls run their kernels on
 * `num_threads` threads: the calling thread plus num_threads - 1 persistent
 * workers of a thread pool (tfcc_rt_pool_create in tfcc_kernels.h) created
 * here, owned by the context (ctx->pool) and joined by
 * tfcc_rt_context_destroy. Calls create no thread. num_threads = 1 creates no
 * pool (ctx->pool = NULL). Workers spin briefly after each parallel loop, then
 * sleep; each has a stack of at least TFCC_RT_KERNEL_STACK_BYTES.
 *
 * Returns what tfcc_rt_context_create returns, and:
 *   TFCC_INVALID_ARGUMENT     num_threads < 1;
 *   TFCC_RESOURCE_EXHAUSTED   the pool could not be created (its threads or
 *                             memory); nothing is left allocated. */
TFCC_RT_API tfcc_status_t tfcc_rt_context_create_with_threads(
    const tfcc_model_info* m, int64_t max_batch, int32_t num_threads,
    tfcc_context** out_ctx);

/* Frees what tfcc_rt_context_create(_with_threads) allocated, joining the
 * context's pool workers first. NULL-safe. A context from
 * tfcc_rt_context_init (owns_arena = 0) is left untouched: its memory is the
 * caller's; except that the device arena of a model on a CUDA GPU is freed
 * (ctx->arena set to NULL) whichever call set the context up. The context
 * must not be running a call. */
TFCC_RT_API void tfcc_rt_context_destroy(tfcc_context* ctx);

/* Runs entry `entry_index` of model `m`: checks the arguments, then calls the
 * entry's kernel with the inputs, then the outputs, the batch (1 for an entry
 * without a dynamic dim, whose `batch` argument is ignored) and the context's
 * 64-byte aligned arena. During the kernel, the calling thread's current pool
 * (tfcc_rt_set_current_pool) is ctx->pool, so the compute kernels run on the
 * context's threads (serially when it is NULL); the caller's previous current
 * pool is restored before returning. The calling thread needs
 * TFCC_RT_KERNEL_STACK_BYTES of free stack.
 *
 * Ownership: borrows everything. `inputs` holds num_inputs pointers to dense
 * row-major data the kernel only reads; `outputs` holds num_outputs pointers
 * the kernel fills. All are owned by the caller and must be sized for `batch`.
 *
 * Returns TFCC_OK (ctx->message set to ""), or, with ctx->message saying why
 * (unless ctx is NULL):
 *   TFCC_INVALID_ARGUMENT    ctx or m NULL, ctx not initialized for m,
 *                            entry_index out of range, an input or output
 *                            pointer (or the inputs/outputs array) NULL;
 *   TFCC_OUT_OF_RANGE        dynamic entry with batch < 1 or batch >
 *                            ctx->max_batch;
 *   TFCC_RESOURCE_EXHAUSTED  the context's arena is too small for batch, or
 *                            the entry has more than TFCC_RT_MAX_ARGS
 *                            arguments;
 *   TFCC_INTERNAL            the entry has no kernel or negative argument
 *                            counts;
 *   TFCC_UNAVAILABLE         (a model on a CUDA GPU) a CUDA call of the
 *                            model's code failed: the message names the first
 *                            and its CUDA error; the outputs are not valid.
 * An entry with dimensions beyond the batch (has_named_dims) is refused with
 * TFCC_INVALID_ARGUMENT: it takes their values (tfcc_rt_invoke_dims). */
TFCC_RT_API tfcc_status_t tfcc_rt_invoke(const tfcc_model_info* m,
                                         int32_t entry_index, tfcc_context* ctx,
                                         int64_t batch,
                                         const void* const* inputs,
                                         void* const* outputs);

/* tfcc_rt_invoke with the values of the model's dimensions: dims[0] is the
 * batch, dims[k] named dimension k (1 <= k <= m->num_dims). Each dimension
 * the entry uses must be in [1, its bound] (the batch: [1, ctx->max_batch]),
 * else TFCC_OUT_OF_RANGE naming it; the others are not read. dims may be
 * NULL for an entry without dynamic dimensions. A derived dimension must hold
 * what tfcc_rt_resolve_dims gives (TFCC_INVALID_ARGUMENT otherwise). */
/* Fills the derived dimensions of entry `entry_index` (TFCC_DIM_DERIVED: an
 * output's size computed from the others) in dims from dims[0] and the named
 * dimensions, checked as tfcc_rt_invoke_dims checks them; the caller then
 * sizes the outputs. TFCC_OUT_OF_RANGE also when the inputs are too small for
 * an output (a derived dimension below 1). */
TFCC_RT_API tfcc_status_t tfcc_rt_resolve_dims(const tfcc_model_info* m,
                                               int32_t entry_index,
                                               tfcc_context* ctx,
                                               int64_t* dims);

TFCC_RT_API tfcc_status_t tfcc_rt_invoke_dims(const tfcc_model_info* m,
                                              int32_t entry_index,
                                              tfcc_context* ctx,
                                              const int64_t* dims,
                                              const void* const* inputs,
                                              void* const* outputs);

/* Copies variable `name` of the state memory of `ctx` (a model with a
 * training step) to `out`, which holds `bytes` bytes: exactly the variable's
 * size (tfcc_variable_info.bytes). TFCC_INVALID_ARGUMENT for an unknown name,
 * a NULL name or pointer, or a wrong size (the message states the expected
 * size); the state is left unchanged on error. */
TFCC_RT_API tfcc_status_t tfcc_rt_get_variable(const tfcc_model_info* m,
                                               tfcc_context* ctx,
                                               const char* name, void* out,
                                               uint64_t bytes);

/* Overwrites variable `name` with `bytes` bytes from `value`; errors as
 * tfcc_rt_get_variable. */
TFCC_RT_API tfcc_status_t tfcc_rt_set_variable(const tfcc_model_info* m,
                                               tfcc_context* ctx,
                                               const char* name,
                                               const void* value,
                                               uint64_t bytes);

/* Copies the initial image (tfcc_model_info.state_init) into the state of
 * `ctx`: every variable, slot and the step counter back to their initial
 * values. */
TFCC_RT_API tfcc_status_t tfcc_rt_reset_state(const tfcc_model_info* m,
                                              tfcc_context* ctx);

/* The checkpoint format version written and read (runtime/checkpoint.fbs;
 * tfcc --weights reads the same). */
#define TFCC_CHECKPOINT_FORMAT_VERSION 2u

/* Checkpoints (src/checkpoint.c; format: runtime/checkpoint.fbs, a
 * FlatBuffers file with identifier "TFCK", format version 1, the model name
 * and every variable of the state: name, dtype, shape, trainable flag and raw
 * little-endian values).
 *
 * tfcc_rt_save_checkpoint writes the state of `ctx` to `path` + ".tmp", flushes
 * it (fsync on POSIX) and renames it over `path`, so `path` is never a partly
 * written file. It mallocs one buffer of the file's size (freed on return).
 * Returns TFCC_OK, or with ctx->message saying why: TFCC_INVALID_ARGUMENT for
 * a NULL path, a context of another model, a model without state or an I/O
 * error (the message has the errno text; the temporary file is removed);
 * TFCC_RESOURCE_EXHAUSTED when malloc fails or the disk is full. */
TFCC_RT_API tfcc_status_t tfcc_rt_save_checkpoint(const tfcc_model_info* m,
                                                  tfcc_context* ctx,
                                                  const char* path);

/* Reads the checkpoint at `path` (into one malloc'd buffer, freed on return)
 * and, only when all of it is valid, copies every variable into the state of
 * `ctx`: the bounds of every offset and length, the file identifier, the
 * format version, the model name (= m->name), every variable known, none
 * twice, none missing, the same dtype, shape and byte count as the model's,
 * and the CRC-32C of its data.
 * Otherwise returns TFCC_INVALID_ARGUMENT (TFCC_RESOURCE_EXHAUSTED when malloc
 * fails) with ctx->message saying why, and leaves the state unchanged. */
TFCC_RT_API tfcc_status_t tfcc_rt_load_checkpoint(const tfcc_model_info* m,
                                                  tfcc_context* ctx,
                                                  const char* path);

/* tfcc_rt_load_checkpoint from the `size` bytes at `data` (borrowed). */
TFCC_RT_API tfcc_status_t tfcc_rt_load_checkpoint_buffer(
    const tfcc_model_info* m, tfcc_context* ctx, const void* data,
    uint64_t size);

/* CRC-32C (Castagnoli) of the `size` bytes at `data`, continuing from `crc`
 * (0 to start): the checksum of each variable in a checkpoint. */
TFCC_RT_API uint32_t tfcc_rt_crc32c(uint32_t crc, const void* data,
                                    uint64_t size);

/* Returns a short static name of `s` ("ok", "invalid argument", ...), "unknown
 * status" for codes outside tfcc_status_t. Never NULL; the caller must not free
 * it. */
TFCC_RT_API const char* tfcc_rt_status_string(tfcc_status_t s);

/* The instruction-set level of the kernels this process runs: "avx512",
 * "avx2" or "generic" (the target's baseline: SSE2 on x86-64, NEON on
 * AArch64). Chosen once per process from the CPU, capped by the level the
 * runtime archive was built for and by the TFCC_KERNELS_ISA environment
 * variable (docs/c-api.md). Never NULL; static. */
TFCC_RT_API const char* tfcc_rt_kernels_isa(void);

/* Returns the message of the last call on `ctx` (borrowed from ctx, valid until
 * the next call on it); "" for NULL. Never NULL. */
TFCC_RT_API const char* tfcc_rt_context_message(const tfcc_context* ctx);

/* Called by generated code when a kernel finds invalid data it cannot index
 * (a gather index or a label out of range; code = TFCC_OUT_OF_RANGE). The
 * kernel clamps and finishes; tfcc_rt_invoke then returns `code` with a
 * message. The first code reported in a call wins. */
TFCC_RT_API void tfcc_rt_report_error(int32_t code);

/* Called by the code of a model built with tfcc --check-numerics after an op
 * whose output holds a NaN or an infinity: `node` is a static string naming
 * it ("node 'conv1' (graph.conv2d)"). The call then returns
 * TFCC_INVALID_ARGUMENT with a message naming the node, unless an earlier
 * report in the call came first (the first report wins). */
TFCC_RT_API void tfcc_rt_report_numerics(const char* node);

/* What that message says after the node: tools recognize the failure by it
 * (compiler/CompiledModel.cpp). */
#define TFCC_RT_NONFINITE_TEXT "produced NaN or Inf"

/* Profiling (src/profile.c, docs/profiling.md). tfcc_rt_profile_start makes
 * `ctx` record one span per call and one per kernel or fused loop nest of the
 * call (named by the model's node names); tfcc_rt_profile_stop writes them to
 * `path` as a Chrome trace (JSON; NULL: discards them) and stops. Both
 * TFCC_INVALID_ARGUMENT for a context of another model; stop
 * TFCC_FAILED_PRECONDITION when not profiling, TFCC_INVALID_ARGUMENT when the
 * file cannot be written (the message has the errno text; profiling goes
 * on). start on a profiling context starts over. Recording mallocs; a
 * bare-metal runtime has no profiler (TFCC_FAILED_PRECONDITION). A context
 * made by tfcc_rt_context_create(_with_threads) while the environment
 * variable TFCC_PROFILE names a file profiles from the start and writes the
 * file when destroyed (the n-th such context of a process, n >= 2, writes
 * "<stem>.n<extension>"). */
TFCC_RT_API tfcc_status_t tfcc_rt_profile_start(const tfcc_model_info* m,
                                                tfcc_context* ctx);
TFCC_RT_API tfcc_status_t tfcc_rt_profile_stop(const tfcc_model_info* m,
                                               tfcc_context* ctx,
                                               const char* path);

/* What generated code calls around each op (passes/ProfileSpans.cpp) while
 * tfcc_rt_profiling_active, the number of contexts profiling in this model's
 * copy of the runtime, is not 0: `name` is the node's name, `kind` the kernel
 * or kind of loop nest, both static strings. */
TFCC_RT_API extern int32_t tfcc_rt_profiling_active;
TFCC_RT_API void tfcc_rt_profile_begin(const char* name, const char* kind);
TFCC_RT_API void tfcc_rt_profile_end(void);

/* A strided buffer as MLIR passes it to memrefCopy: {rank, descriptor}, the
 * descriptor being {allocated, aligned, offset, sizes[rank], strides[rank]}
 * with offset, sizes and strides in elements. */
typedef struct tfcc_rt_unranked_memref {
  int64_t rank;
  void* descriptor;
} tfcc_rt_unranked_memref;

/* Copies `src` to `dst` (same sizes, any strides, rank <= 16): the function
 * MLIR's memref.copy lowers to for non-contiguous buffers. */
TFCC_RT_API void memrefCopy(int64_t elem_size, tfcc_rt_unranked_memref* src,
                            tfcc_rt_unranked_memref* dst);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFCC_RUNTIME_H_ */
