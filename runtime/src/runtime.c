/* runtime.c - context set-up, argument checks and kernel dispatch of compiled
 * models.
 *
 * C99, libc (+ pthreads through the kernels' pool) only. The only allocations
 * are in tfcc_rt_context_create(_with_threads) (the context block and the
 * thread pool); everything else works on memory the caller hands in. See
 * tfcc_runtime.h for the contract of each function.
 *
 * A model compiled for a CUDA GPU (TFCC_MODEL_FLAG_CUDA) is the exception: its
 * arena is device memory, which the context set-up allocates through the
 * driver (src/cuda.c) and tfcc_rt_context_destroy frees.
 */
#include "tfcc/tfcc_runtime.h"

#include "tfcc/tfcc_kernels.h"

#include "profile.h"
#if !TFCC_RT_FREESTANDING
#include "cuda.h"
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/*===----------------------------------------------------------------------===*
 * Helpers
 *===----------------------------------------------------------------------===*/

#define TFCC_RT_ALIGN_MASK ((uint64_t)TFCC_ARENA_ALIGNMENT - 1u)

/* Error code a kernel reported through tfcc_rt_report_error during the
 * current call on this thread (kernels have no return value). A bare-metal
 * runtime has one thread and no thread-local storage. */
#if TFCC_RT_FREESTANDING
static int32_t tfcc_rt_kernel_error = TFCC_OK;
static const char* tfcc_rt_numerics_error = NULL;
#else
static __thread int32_t tfcc_rt_kernel_error = TFCC_OK;
/* The node tfcc_rt_report_numerics named, when its report came first. */
static __thread const char* tfcc_rt_numerics_error = NULL;
#endif

static uint64_t tfcc_rt_add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t tfcc_rt_mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

/* Rounds up to TFCC_ARENA_ALIGNMENT; UINT64_MAX stays UINT64_MAX (overflow
 * marker). */
static uint64_t tfcc_rt_round_up(uint64_t n) {
  if (n > UINT64_MAX - TFCC_RT_ALIGN_MASK) return UINT64_MAX;
  return (n + TFCC_RT_ALIGN_MASK) & ~TFCC_RT_ALIGN_MASK;
}

/* TFCC_NO_ERROR_STRINGS (a CMake option of runtime/): statuses only, every
 * message left empty, and no formatting code (vsnprintf) linked: smaller
 * firmware (docs/embedded.md). */
#if defined(TFCC_NO_ERROR_STRINGS) && !defined(TFCC_RT_NO_MESSAGES)
#define TFCC_RT_NO_MESSAGES 1
#endif
#ifdef TFCC_RT_NO_MESSAGES
#define TFCC_RT_SET_MESSAGE(ctx, ...) tfcc_rt_clear_message(ctx)
#else
#define TFCC_RT_SET_MESSAGE(ctx, ...) tfcc_rt_set_message(ctx, __VA_ARGS__)

static const char* tfcc_rt_model_name(const tfcc_model_info* m) {
  return (m && m->name) ? m->name : "(unnamed model)";
}

static const char* tfcc_rt_entry_name(const tfcc_entry_info* e) {
  return (e && e->name) ? e->name : "(unnamed entry)";
}

static const char* tfcc_rt_arg_name(const tfcc_arg_info* args, int32_t i) {
  return (args && args[i].name) ? args[i].name : "(unnamed)";
}

/* Formats into ctx->message (truncated to fit). NULL ctx: nothing to write to.
 */
static void tfcc_rt_set_message(tfcc_context* ctx, const char* format, ...) {
  va_list args;
  if (!ctx) return;
  va_start(args, format);
  vsnprintf(ctx->message, sizeof(ctx->message), format, args);
  va_end(args);
}
#endif

static void tfcc_rt_clear_message(tfcc_context* ctx) {
  if (ctx) ctx->message[0] = '\0';
}

/* Largest arena any entry of `m` needs at `max_batch`, without alignment slack.
 */
static uint64_t tfcc_rt_max_entry_arena_bytes(const tfcc_model_info* m,
                                              int64_t max_batch) {
  uint64_t need = 0;
  int32_t i;
  if (!m || !m->entries) return 0;
  for (i = 0; i < m->num_entries; ++i) {
    uint64_t bytes = tfcc_rt_entry_arena_bytes(&m->entries[i], max_batch);
    if (bytes > need) need = bytes;
  }
  return need;
}

/* Checks what init and create both check: the ABI version and max_batch. Writes
 * the message into ctx when ctx is not NULL. */
static tfcc_status_t tfcc_rt_check_model(const tfcc_model_info* m,
                                         tfcc_context* ctx, int64_t max_batch) {
  if (m->abi_version != (uint32_t)TFCC_ABI_VERSION) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "model %s was compiled for runtime ABI version %" PRIu32
                        ", but this runtime implements version %d",
                        tfcc_rt_model_name(m), m->abi_version,
                        TFCC_ABI_VERSION);
    return TFCC_FAILED_PRECONDITION;
  }
  if (m->num_entries < 0 || (m->num_entries > 0 && !m->entries)) {
    TFCC_RT_SET_MESSAGE(
        ctx, "model %s has a malformed entry table (%" PRId32 " entries)",
        tfcc_rt_model_name(m), m->num_entries);
    return TFCC_INTERNAL;
  }
  if (max_batch < 1) {
    TFCC_RT_SET_MESSAGE(
        ctx, "max_batch %" PRId64 " is out of range: it must be at least 1",
        max_batch);
    return TFCC_OUT_OF_RANGE;
  }
  return TFCC_OK;
}

/*===----------------------------------------------------------------------===*
 * Arena sizes
 *===----------------------------------------------------------------------===*/

uint64_t tfcc_rt_entry_arena_bytes(const tfcc_entry_info* e, int64_t batch) {
  uint64_t bytes;
  if (!e) return 0;
  bytes = e->arena_bytes_fixed;
  if (e->has_dynamic_batch && batch > 0) {
    bytes = tfcc_rt_add_sat(
        bytes, tfcc_rt_mul_sat(e->arena_bytes_per_batch, (uint64_t)batch));
  }
  return tfcc_rt_round_up(bytes);
}

uint64_t tfcc_rt_model_arena_bytes(const tfcc_model_info* m,
                                   int64_t max_batch) {
  if (!m) return 0;
  return tfcc_rt_add_sat(
      tfcc_rt_add_sat(tfcc_rt_max_entry_arena_bytes(m, max_batch),
                      tfcc_rt_round_up(m->state_bytes)),
      (uint64_t)TFCC_ARENA_ALIGNMENT);
}

/*===----------------------------------------------------------------------===*
 * Contexts
 *===----------------------------------------------------------------------===*/

/* The model's state memory at `state` set to its initial image (zeros when
 * it has none). */
static void tfcc_rt_copy_initial_state(const tfcc_model_info* m, void* state) {
  if (m->state_init)
    memcpy(state, m->state_init, (size_t)m->state_bytes);
  else
    memset(state, 0, (size_t)m->state_bytes);
}

/* The context of a model whose code runs on a CUDA GPU (TFCC_MODEL_FLAG_CUDA;
 * ctx already reset by tfcc_rt_context_init): the driver initialized (once
 * per process), then a device arena of the model's planned size at max_batch
 * allocated (cuMemAlloc: 256-byte aligned, so no slack): ctx->arena is that
 * device address, freed by tfcc_rt_context_destroy. The caller's block holds
 * only the state memory of a model with a training step (host memory, as on
 * the CPU: the code copies it to the device and back in each call), so it
 * may be NULL for a model without one. */
static tfcc_status_t tfcc_rt_context_init_cuda(const tfcc_model_info* m,
                                               tfcc_context* ctx, void* block,
                                               uint64_t block_bytes,
                                               int64_t max_batch) {
#if TFCC_RT_FREESTANDING
  (void)m;
  (void)block;
  (void)block_bytes;
  (void)max_batch;
  TFCC_RT_SET_MESSAGE(ctx,
                      "model %s was compiled for a CUDA GPU: a bare-metal "
                      "runtime has no CUDA support",
                      tfcc_rt_model_name(m));
  return TFCC_UNAVAILABLE;
#else
  char message[sizeof(ctx->message)];
  uint64_t need;
  tfcc_status_t status;
  void* arena;
  void* state = NULL;
  if (m->state_bytes > 0) {
    uint64_t state_need = tfcc_rt_round_up(m->state_bytes);
    uint64_t padding =
        block ? (uint64_t)(-(uintptr_t)block) & TFCC_RT_ALIGN_MASK : 0;
    if (!block || block_bytes < padding ||
        block_bytes - padding < state_need) {
      TFCC_RT_SET_MESSAGE(ctx,
                          "the block of %" PRIu64
                          " bytes is too small for the state memory of %s "
                          "(%" PRIu64 " bytes, aligned to %d)",
                          block ? block_bytes : 0, tfcc_rt_model_name(m),
                          state_need, TFCC_ARENA_ALIGNMENT);
      return block ? TFCC_RESOURCE_EXHAUSTED : TFCC_INVALID_ARGUMENT;
    }
    state = (char*)block + padding;
  }
  status = tfcc_rt_cuda_init(message, sizeof(message));
  if (status != TFCC_OK) {
    TFCC_RT_SET_MESSAGE(ctx, "%s", message);
    return status;
  }
  need = tfcc_rt_max_entry_arena_bytes(m, max_batch);
  if (need == UINT64_MAX) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "the arena of %s at max_batch %" PRId64
                        " is too large (its size overflows)",
                        tfcc_rt_model_name(m), max_batch);
    return TFCC_RESOURCE_EXHAUSTED;
  }
  arena = tfcc_rt_cuda_alloc(need, message, sizeof(message));
  if (need > 0 && !arena) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "the device arena of %s (%" PRIu64
                        " bytes at max_batch %" PRId64 "): %s",
                        tfcc_rt_model_name(m), need, max_batch, message);
    return TFCC_RESOURCE_EXHAUSTED;
  }
  ctx->arena = arena;
  ctx->arena_bytes = need;
  if (state) {
    ctx->state = state;
    ctx->state_bytes = m->state_bytes;
    tfcc_rt_copy_initial_state(m, state);
  }
  ctx->model = m;
  ctx->max_batch = max_batch;
  return TFCC_OK;
#endif
}

#if !TFCC_RT_FREESTANDING
/* Whether ctx's arena is device memory the runtime allocated. */
static int tfcc_rt_context_on_cuda(const tfcc_context* ctx) {
  return ctx->model && (ctx->model->flags & TFCC_MODEL_FLAG_CUDA);
}
#endif

tfcc_status_t tfcc_rt_context_init(const tfcc_model_info* m, tfcc_context* ctx,
                                   void* arena, uint64_t arena_bytes,
                                   int64_t max_batch) {
  tfcc_status_t status;
  uint64_t need;
  uint64_t state_need;
  uint64_t padding = 0;
  if (!ctx) return TFCC_INVALID_ARGUMENT;

  /* Leave a failed context unusable: invoke then reports it as not initialized.
   */
  ctx->model = NULL;
  ctx->arena = NULL;
  ctx->arena_bytes = 0;
  ctx->state = NULL;
  ctx->state_bytes = 0;
  ctx->max_batch = 0;
  ctx->owns_arena = 0;
  ctx->num_threads = 1;
  ctx->pool = NULL;
  ctx->profile = NULL;
  tfcc_rt_clear_message(ctx);

  if (!m) {
    TFCC_RT_SET_MESSAGE(ctx, "model info is NULL");
    return TFCC_INVALID_ARGUMENT;
  }
  status = tfcc_rt_check_model(m, ctx, max_batch);
  if (status != TFCC_OK) return status;
  if (m->flags & TFCC_MODEL_FLAG_CUDA)
    return tfcc_rt_context_init_cuda(m, ctx, arena, arena_bytes, max_batch);

  /* The state memory comes first in the block, then the arena. */
  state_need = tfcc_rt_round_up(m->state_bytes);
  need = tfcc_rt_add_sat(tfcc_rt_max_entry_arena_bytes(m, max_batch),
                         state_need);
  if (need > 0 && !arena) {
    TFCC_RT_SET_MESSAGE(
        ctx, "arena is NULL: %s needs %" PRIu64 " bytes at max_batch %" PRId64,
        tfcc_rt_model_name(m), tfcc_rt_add_sat(need, TFCC_ARENA_ALIGNMENT),
        max_batch);
    return TFCC_INVALID_ARGUMENT;
  }
  if (arena) {
    padding = (uint64_t)(-(uintptr_t)arena) & TFCC_RT_ALIGN_MASK;
    if (arena_bytes < padding || arena_bytes - padding < need) {
      if (padding > 0) {
        TFCC_RT_SET_MESSAGE(
            ctx,
            "arena of %" PRIu64 " bytes is too small: %s needs %" PRIu64
            " bytes at max_batch %" PRId64 " (%" PRIu64
            " of them to align the arena to %d bytes)",
            arena_bytes, tfcc_rt_model_name(m), tfcc_rt_add_sat(need, padding),
            max_batch, padding, TFCC_ARENA_ALIGNMENT);
      } else {
        TFCC_RT_SET_MESSAGE(
            ctx,
            "arena of %" PRIu64 " bytes is too small: %s needs %" PRIu64
            " bytes at max_batch %" PRId64,
            arena_bytes, tfcc_rt_model_name(m), need, max_batch);
      }
      return TFCC_RESOURCE_EXHAUSTED;
    }
    ctx->arena = (char*)arena + padding + state_need;
    ctx->arena_bytes = arena_bytes - padding - state_need;
    if (m->state_bytes > 0) {
      ctx->state = (char*)arena + padding;
      ctx->state_bytes = m->state_bytes;
      tfcc_rt_copy_initial_state(m, ctx->state);
    }
  }
  ctx->model = m;
  ctx->max_batch = max_batch;
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_context_create(const tfcc_model_info* m,
                                     int64_t max_batch,
                                     tfcc_context** out_ctx) {
  return tfcc_rt_context_create_with_threads(m, max_batch, 1, out_ctx);
}

tfcc_status_t tfcc_rt_context_create_with_threads(const tfcc_model_info* m,
                                                  int64_t max_batch,
                                                  int32_t num_threads,
                                                  tfcc_context** out_ctx) {
  tfcc_status_t status;
  uint64_t total;
  tfcc_context* ctx;
  tfcc_rt_pool* pool = NULL;
  if (!out_ctx) return TFCC_INVALID_ARGUMENT;
  *out_ctx = NULL;
  if (!m || num_threads < 1) return TFCC_INVALID_ARGUMENT;
  status = tfcc_rt_check_model(m, NULL, max_batch);
  if (status != TFCC_OK) return status;

#if TFCC_RT_FREESTANDING
  /* No allocator on a bare-metal target: the caller's memory, through
   * <prefix>_init, is the only arena (docs/embedded.md). */
  (void)total;
  (void)ctx;
  (void)pool;
  return TFCC_FAILED_PRECONDITION;
#else
  /* One block: the context, then an arena with room to align it up (a
   * model on a CUDA GPU: the context and its state memory only, its arena is
   * device memory). */
  total = tfcc_rt_add_sat(
      (uint64_t)sizeof(tfcc_context),
      (m->flags & TFCC_MODEL_FLAG_CUDA)
          ? (m->state_bytes > 0 ? tfcc_rt_add_sat(
                                      tfcc_rt_round_up(m->state_bytes),
                                      (uint64_t)TFCC_ARENA_ALIGNMENT)
                                : 0)
          : tfcc_rt_model_arena_bytes(m, max_batch));
  if (total == UINT64_MAX || total > (uint64_t)SIZE_MAX)
    return TFCC_RESOURCE_EXHAUSTED;
  ctx = (tfcc_context*)malloc((size_t)total);
  if (!ctx) return TFCC_RESOURCE_EXHAUSTED;

  status = tfcc_rt_context_init(m, ctx, (char*)ctx + sizeof(tfcc_context),
                                total - sizeof(tfcc_context), max_batch);
  if (status != TFCC_OK) {
    free(ctx);
    return status;
  }
  /* The workers start last: a failure above has no threads to join. */
  if (num_threads > 1) {
    pool = tfcc_rt_pool_create(num_threads);
    if (!pool) {
      if (tfcc_rt_context_on_cuda(ctx)) tfcc_rt_cuda_free(ctx->arena);
      free(ctx);
      return TFCC_RESOURCE_EXHAUSTED;
    }
  }
  ctx->owns_arena = 1;
  ctx->num_threads = num_threads;
  ctx->pool = pool;
  tfcc_rt_profile_from_env(ctx);
  *out_ctx = ctx;
  return TFCC_OK;
#endif
}

void tfcc_rt_context_destroy(tfcc_context* ctx) {
  if (!ctx) return;
#if !TFCC_RT_FREESTANDING
  /* The device arena of a CUDA model's context, from _init too. */
  if (tfcc_rt_context_on_cuda(ctx) && ctx->arena) {
    tfcc_rt_cuda_free(ctx->arena);
    ctx->arena = NULL;
    ctx->arena_bytes = 0;
  }
#endif
  if (!ctx->owns_arena) return;
#if !TFCC_RT_FREESTANDING
  tfcc_rt_profile_release(ctx);
  tfcc_rt_pool_destroy((tfcc_rt_pool*)ctx->pool);
  free(ctx);
#endif
}

/*===----------------------------------------------------------------------===*
 * State memory (variables)
 *===----------------------------------------------------------------------===*/

/* Checks that ctx is an initialized context of m (message into ctx). */
static tfcc_status_t tfcc_rt_check_context(const tfcc_model_info* m,
                                           tfcc_context* ctx) {
  if (!ctx) return TFCC_INVALID_ARGUMENT;
  if (!m) {
    TFCC_RT_SET_MESSAGE(ctx, "model info is NULL");
    return TFCC_INVALID_ARGUMENT;
  }
  if (!ctx->model) {
    TFCC_RT_SET_MESSAGE(
        ctx,
        "context is not initialized for model %s: call %s_init or "
        "%s_create first (and check its status)",
        tfcc_rt_model_name(m), tfcc_rt_model_name(m), tfcc_rt_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  if (ctx->model != m) {
    TFCC_RT_SET_MESSAGE(ctx, "context was initialized for model %s, not %s",
                        tfcc_rt_model_name(ctx->model), tfcc_rt_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  return TFCC_OK;
}

/* strcmp(a, b) == 0, in the runtime: a bare-metal build needs nothing from
 * the C library but memcpy, memset and the math functions (and vsnprintf for
 * messages, unless TFCC_NO_ERROR_STRINGS). */
static int tfcc_rt_names_equal(const char* a, const char* b) {
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

/* The variable called `name` with its size checked against `bytes`. */
static tfcc_status_t tfcc_rt_find_variable(const tfcc_model_info* m,
                                           tfcc_context* ctx, const char* name,
                                           const void* data, uint64_t bytes,
                                           const char* what,
                                           const tfcc_variable_info** out) {
  int32_t i;
  tfcc_status_t status = tfcc_rt_check_context(m, ctx);
  (void)what; /* in messages only */
  if (status != TFCC_OK) return status;
  if (!name) {
    TFCC_RT_SET_MESSAGE(ctx, "%s_%s_variable: the variable name is NULL",
                        tfcc_rt_model_name(m), what);
    return TFCC_INVALID_ARGUMENT;
  }
  for (i = 0; i < m->num_variables; ++i) {
    const tfcc_variable_info* v = &m->variables[i];
    if (!v->name || !tfcc_rt_names_equal(v->name, name)) continue;
    if (!data) {
      TFCC_RT_SET_MESSAGE(ctx, "%s_%s_variable('%s'): the data pointer is NULL",
                          tfcc_rt_model_name(m), what, name);
      return TFCC_INVALID_ARGUMENT;
    }
    if (bytes != v->bytes) {
      TFCC_RT_SET_MESSAGE(ctx,
                          "%s_%s_variable('%s'): %" PRIu64
                          " bytes given, the variable has %" PRIu64 " bytes",
                          tfcc_rt_model_name(m), what, name, bytes, v->bytes);
      return TFCC_INVALID_ARGUMENT;
    }
    if (!ctx->state || v->offset + v->bytes > ctx->state_bytes) {
      TFCC_RT_SET_MESSAGE(ctx, "%s: variable '%s' lies outside the state",
                          tfcc_rt_model_name(m), name);
      return TFCC_INTERNAL;
    }
    *out = v;
    return TFCC_OK;
  }
  TFCC_RT_SET_MESSAGE(ctx, "%s_%s_variable: model %s has no variable '%s'%s",
                      tfcc_rt_model_name(m), what, tfcc_rt_model_name(m), name,
                      m->num_variables == 0
                          ? " (it has no state: only models with a training "
                            "step keep variables)"
                          : "");
  return TFCC_INVALID_ARGUMENT;
}

tfcc_status_t tfcc_rt_get_variable(const tfcc_model_info* m, tfcc_context* ctx,
                                   const char* name, void* out,
                                   uint64_t bytes) {
  const tfcc_variable_info* v = NULL;
  tfcc_status_t status =
      tfcc_rt_find_variable(m, ctx, name, out, bytes, "get", &v);
  if (status != TFCC_OK) return status;
  memcpy(out, (const char*)ctx->state + v->offset, (size_t)v->bytes);
  tfcc_rt_clear_message(ctx);
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_set_variable(const tfcc_model_info* m, tfcc_context* ctx,
                                   const char* name, const void* value,
                                   uint64_t bytes) {
  const tfcc_variable_info* v = NULL;
  tfcc_status_t status =
      tfcc_rt_find_variable(m, ctx, name, value, bytes, "set", &v);
  if (status != TFCC_OK) return status;
  memcpy((char*)ctx->state + v->offset, value, (size_t)v->bytes);
  tfcc_rt_clear_message(ctx);
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_reset_state(const tfcc_model_info* m,
                                  tfcc_context* ctx) {
  tfcc_status_t status = tfcc_rt_check_context(m, ctx);
  if (status != TFCC_OK) return status;
  if (ctx->state && m->state_bytes > 0)
    tfcc_rt_copy_initial_state(m, ctx->state);
  tfcc_rt_clear_message(ctx);
  return TFCC_OK;
}

/*===----------------------------------------------------------------------===*
 * Invocation
 *===----------------------------------------------------------------------===*/

/* Which named dimensions (1..num_dims) the arguments of `e` use: used[k] = 1.
 * Returns 0, or 1 when a dim names a dimension the model does not have. */
static int tfcc_rt_named_dims_used(const tfcc_model_info* m,
                                   const tfcc_entry_info* e, uint8_t* used) {
  int32_t group, i, j;
  for (group = 0; group < 2; ++group) {
    const tfcc_arg_info* args = group ? e->outputs : e->inputs;
    int32_t count = group ? e->num_outputs : e->num_inputs;
    for (i = 0; i < count; ++i) {
      if (!args || args[i].rank < 0 || (args[i].rank > 0 && !args[i].dims))
        return 1;
      for (j = 0; j < args[i].rank; ++j) {
        int64_t d = args[i].dims[j];
        if (d >= TFCC_DIM_DYNAMIC) continue;
        if (-1 - d > m->num_dims) return 1;
        used[-1 - d] = 1;
      }
    }
  }
  return 0;
}

/* The entry `entry_index` of `m`, after the context check. */
static tfcc_status_t tfcc_rt_find_entry(const tfcc_model_info* m,
                                        int32_t entry_index, tfcc_context* ctx,
                                        const tfcc_entry_info** e) {
  tfcc_status_t status = tfcc_rt_check_context(m, ctx);
  if (status != TFCC_OK) return status;
  if (entry_index < 0 || entry_index >= m->num_entries) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "entry index %" PRId32
                        " is out of range: model %s has %" PRId32 " entries",
                        entry_index, tfcc_rt_model_name(m), m->num_entries);
    return TFCC_INVALID_ARGUMENT;
  }
  *e = &m->entries[entry_index];
  return TFCC_OK;
}

static int tfcc_rt_dim_is_derived(const tfcc_model_info* m, int32_t k) {
  return m->dim_flags && (m->dim_flags[k - 1] & TFCC_DIM_DERIVED) != 0;
}

/* The values the kernel of `e` gets (values[0] the batch, 1 when the entry
 * has none; values[k] named dimension k, 1 when unused; derived dimensions
 * computed): each dimension the entry uses checked against its bound.
 * used[k] = 1 for the named dimensions the entry uses. */
static tfcc_status_t tfcc_rt_entry_dims(const tfcc_model_info* m,
                                        const tfcc_entry_info* e,
                                        tfcc_context* ctx, const int64_t* dims,
                                        int64_t* values, uint8_t* used) {
  int64_t batch;
  int32_t i, any_used;
  if (m->num_dims < 0 || m->num_dims > TFCC_RT_MAX_DIMS ||
      (m->num_dims > 0 && (!m->dim_names || !m->dim_bounds))) {
    TFCC_RT_SET_MESSAGE(ctx, "model %s has a malformed table (%" PRId32
                        " named dimensions)",
                        tfcc_rt_model_name(m), m->num_dims);
    return TFCC_INTERNAL;
  }
  memset(used, 0, 1 + TFCC_RT_MAX_DIMS);
  if (tfcc_rt_named_dims_used(m, e, used)) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "entry %s_%s has a malformed table (an argument's "
                        "dims)",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
    return TFCC_INTERNAL;
  }
  any_used = e->has_dynamic_batch || e->has_named_dims;
  for (i = 1; i <= m->num_dims; ++i) any_used |= used[i];
  if (!dims && any_used) {
    TFCC_RT_SET_MESSAGE(ctx, "the dims array of %s_%s is NULL",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
    return TFCC_INVALID_ARGUMENT;
  }
  for (i = 1; i <= m->num_dims; ++i) {
    values[i] = 1;
    if (!used[i] || tfcc_rt_dim_is_derived(m, i)) continue;
    if (dims[i] < 1 || dims[i] > m->dim_bounds[i - 1]) {
      TFCC_RT_SET_MESSAGE(
          ctx,
          "dimension %s = %" PRId64 " is out of range for %s_%s: it must "
          "be in [1, %" PRId64 "] (its bound at compile time)",
          m->dim_names[i - 1] ? m->dim_names[i - 1] : "(unnamed)", dims[i],
          tfcc_rt_model_name(m), tfcc_rt_entry_name(e), m->dim_bounds[i - 1]);
      return TFCC_OUT_OF_RANGE;
    }
    values[i] = dims[i];
  }
  batch = e->has_dynamic_batch ? dims[0] : 1;
  if (e->has_dynamic_batch) {
    if (batch < 1) {
      TFCC_RT_SET_MESSAGE(ctx,
                          "batch %" PRId64
                          " is out of range for %s_%s: it must be at "
                          "least 1",
                          batch, tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
      return TFCC_OUT_OF_RANGE;
    }
    if (batch > ctx->max_batch) {
      TFCC_RT_SET_MESSAGE(
          ctx,
          "batch %" PRId64 " exceeds the declared maximum %" PRId64
          " of the context (%s_%s)",
          batch, ctx->max_batch, tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
      return TFCC_OUT_OF_RANGE;
    }
  }
  values[0] = batch;
  if (e->resolve_dims) {
    e->resolve_dims(values);
    for (i = 1; i <= m->num_dims; ++i) {
      if (!used[i] || !tfcc_rt_dim_is_derived(m, i) || values[i] >= 1)
        continue;
      TFCC_RT_SET_MESSAGE(
          ctx,
          "the inputs of %s_%s are too small: they make output dimension %s "
          "= %" PRId64,
          tfcc_rt_model_name(m), tfcc_rt_entry_name(e),
          m->dim_names[i - 1] ? m->dim_names[i - 1] : "(unnamed)", values[i]);
      return TFCC_OUT_OF_RANGE;
    }
  }
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_resolve_dims(const tfcc_model_info* m,
                                   int32_t entry_index, tfcc_context* ctx,
                                   int64_t* dims) {
  int64_t values[1 + TFCC_RT_MAX_DIMS];
  uint8_t used[1 + TFCC_RT_MAX_DIMS];
  const tfcc_entry_info* e;
  int32_t i;
  tfcc_status_t status = tfcc_rt_find_entry(m, entry_index, ctx, &e);
  if (status != TFCC_OK) return status;
  status = tfcc_rt_entry_dims(m, e, ctx, dims, values, used);
  if (status != TFCC_OK) return status;
  for (i = 1; i <= m->num_dims; ++i)
    if (tfcc_rt_dim_is_derived(m, i) && used[i])
      dims[i] = values[i];
  tfcc_rt_clear_message(ctx);
  return TFCC_OK;
}

tfcc_status_t tfcc_rt_invoke(const tfcc_model_info* m, int32_t entry_index,
                             tfcc_context* ctx, int64_t batch,
                             const void* const* inputs, void* const* outputs) {
  tfcc_status_t status = tfcc_rt_check_context(m, ctx);
  if (status != TFCC_OK) return status;
  if (entry_index >= 0 && entry_index < m->num_entries &&
      m->entries[entry_index].has_named_dims) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "entry %s_%s has dimensions beyond the batch: call "
                        "%s_invoke_dims (or the entry's function) with their "
                        "values",
                        tfcc_rt_model_name(m),
                        tfcc_rt_entry_name(&m->entries[entry_index]),
                        tfcc_rt_model_name(m));
    return TFCC_INVALID_ARGUMENT;
  }
  return tfcc_rt_invoke_dims(m, entry_index, ctx, &batch, inputs, outputs);
}

tfcc_status_t tfcc_rt_invoke_dims(const tfcc_model_info* m,
                                  int32_t entry_index, tfcc_context* ctx,
                                  const int64_t* dims,
                                  const void* const* inputs,
                                  void* const* outputs) {
  void* buffers[TFCC_RT_MAX_ARGS];
  int64_t values[1 + TFCC_RT_MAX_DIMS];
  uint8_t used[1 + TFCC_RT_MAX_DIMS];
  const tfcc_entry_info* e;
  tfcc_rt_pool* previous_pool;
  uint64_t need;
  int64_t batch;
  int32_t i;
  tfcc_status_t status = tfcc_rt_find_entry(m, entry_index, ctx, &e);
  if (status != TFCC_OK) return status;
  if (!e->kernel || e->num_inputs < 0 || e->num_outputs < 0) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "entry %s_%s has a malformed table (kernel %s, %" PRId32
                        " inputs, %" PRId32 " outputs)",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e),
                        e->kernel ? "set" : "NULL", e->num_inputs,
                        e->num_outputs);
    return TFCC_INTERNAL;
  }
  if ((int64_t)e->num_inputs + e->num_outputs > TFCC_RT_MAX_ARGS) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "entry %s_%s has %" PRId64
                        " arguments: the runtime supports at "
                        "most %d",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e),
                        (int64_t)e->num_inputs + e->num_outputs,
                        TFCC_RT_MAX_ARGS);
    return TFCC_RESOURCE_EXHAUSTED;
  }
  if (e->num_inputs > 0 && !inputs) {
    TFCC_RT_SET_MESSAGE(ctx, "the inputs array of %s_%s is NULL",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
    return TFCC_INVALID_ARGUMENT;
  }
  if (e->num_outputs > 0 && !outputs) {
    TFCC_RT_SET_MESSAGE(ctx, "the outputs array of %s_%s is NULL",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
    return TFCC_INVALID_ARGUMENT;
  }
  for (i = 0; i < e->num_inputs; ++i) {
    if (!inputs[i]) {
      TFCC_RT_SET_MESSAGE(ctx, "input '%s' of %s_%s is NULL",
                          tfcc_rt_arg_name(e->inputs, i), tfcc_rt_model_name(m),
                          tfcc_rt_entry_name(e));
      return TFCC_INVALID_ARGUMENT;
    }
    /* The kernel signature is uniform; it never writes through an input. */
    buffers[i] = (void*)(uintptr_t)inputs[i];
  }
  for (i = 0; i < e->num_outputs; ++i) {
    if (!outputs[i]) {
      TFCC_RT_SET_MESSAGE(ctx, "output '%s' of %s_%s is NULL",
                          tfcc_rt_arg_name(e->outputs, i),
                          tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
      return TFCC_INVALID_ARGUMENT;
    }
    buffers[e->num_inputs + i] = outputs[i];
  }

  status = tfcc_rt_entry_dims(m, e, ctx, dims, values, used);
  if (status != TFCC_OK) return status;
  /* A derived dimension the caller gives must be what the inputs make it:
   * the outputs were sized with it. */
  for (i = 1; i <= m->num_dims; ++i) {
    if (!tfcc_rt_dim_is_derived(m, i) || !used[i])
      continue;
    if (dims[i] != values[i]) {
      TFCC_RT_SET_MESSAGE(
          ctx,
          "dimension %s = %" PRId64 " is not what the inputs of %s_%s make it "
          "(%" PRId64 "): %s_resolve_dims gives the derived dimensions",
          m->dim_names[i - 1] ? m->dim_names[i - 1] : "(unnamed)", dims[i],
          tfcc_rt_model_name(m), tfcc_rt_entry_name(e), values[i],
          tfcc_rt_model_name(m));
      return TFCC_INVALID_ARGUMENT;
    }
  }
  batch = values[0];
  need = tfcc_rt_entry_arena_bytes(e, batch);
  if (need > ctx->arena_bytes || (need > 0 && !ctx->arena)) {
    TFCC_RT_SET_MESSAGE(ctx,
                        "arena of %" PRIu64
                        " bytes is too small: %s_%s needs %" PRIu64
                        " bytes at batch %" PRId64,
                        ctx->arena_bytes, tfcc_rt_model_name(m),
                        tfcc_rt_entry_name(e), need, batch);
    return TFCC_RESOURCE_EXHAUSTED;
  }

  /* The kernels of this call run on the context's pool (NULL: serially on
   * this thread). The caller's own current pool is restored afterwards, so a
   * model called from inside another pool's job, or from a thread that set a
   * pool itself, leaves it as it was. */
  previous_pool = tfcc_rt_get_current_pool();
  tfcc_rt_set_current_pool((tfcc_rt_pool*)ctx->pool);
  tfcc_rt_kernel_error = TFCC_OK;
  tfcc_rt_numerics_error = NULL;
#if !TFCC_RT_FREESTANDING
  if (m->flags & TFCC_MODEL_FLAG_CUDA)
    (void)tfcc_rt_cuda_take_error(NULL, 0); /* none left from before */
#endif
  tfcc_rt_profile_call_begin(ctx, e->name);
  e->kernel(buffers, values, ctx->arena, ctx->state);
  tfcc_rt_profile_call_end(ctx, batch);
  tfcc_rt_set_current_pool(previous_pool);
#if !TFCC_RT_FREESTANDING
  /* A failed CUDA call of the model's code (src/cuda.c records the first;
   * the code's later device calls did nothing). */
  if (m->flags & TFCC_MODEL_FLAG_CUDA) {
    char message[sizeof(ctx->message)];
    if (tfcc_rt_cuda_take_error(message, sizeof(message))) {
      tfcc_rt_kernel_error = TFCC_OK;
      tfcc_rt_numerics_error = NULL;
      TFCC_RT_SET_MESSAGE(ctx, "%s_%s: %s (the outputs are not valid)",
                          tfcc_rt_model_name(m), tfcc_rt_entry_name(e),
                          message);
      return TFCC_UNAVAILABLE;
    }
  }
#endif
  if (tfcc_rt_kernel_error != TFCC_OK) {
    tfcc_status_t error = (tfcc_status_t)tfcc_rt_kernel_error;
    tfcc_rt_kernel_error = TFCC_OK;
    if (tfcc_rt_numerics_error) {
      TFCC_RT_SET_MESSAGE(ctx, "%s_%s: %s " TFCC_RT_NONFINITE_TEXT " (tfcc "
                          "--check-numerics; the outputs are not valid)",
                          tfcc_rt_model_name(m), tfcc_rt_entry_name(e),
                          tfcc_rt_numerics_error);
      tfcc_rt_numerics_error = NULL;
      return error;
    }
    TFCC_RT_SET_MESSAGE(ctx, "%s_%s: an index or label is out of range, or "
                        "a dynamic dimension too small for a window or "
                        "pad, or two that must agree differ (the outputs "
                        "are not valid)",
                        tfcc_rt_model_name(m), tfcc_rt_entry_name(e));
    return error;
  }
  tfcc_rt_clear_message(ctx);
  return TFCC_OK;
}

void tfcc_rt_report_error(int32_t code) {
  if (tfcc_rt_kernel_error == TFCC_OK)
    tfcc_rt_kernel_error = code;
}

void tfcc_rt_report_numerics(const char* node) {
  if (tfcc_rt_kernel_error != TFCC_OK) return;
  tfcc_rt_kernel_error = TFCC_INVALID_ARGUMENT;
  tfcc_rt_numerics_error = node;
}

/*===----------------------------------------------------------------------===*
 * Messages
 *===----------------------------------------------------------------------===*/

const char* tfcc_rt_status_string(tfcc_status_t s) {
  switch (s) {
    case TFCC_OK:
      return "ok";
    case TFCC_INVALID_ARGUMENT:
      return "invalid argument";
    case TFCC_OUT_OF_RANGE:
      return "out of range";
    case TFCC_RESOURCE_EXHAUSTED:
      return "resource exhausted";
    case TFCC_FAILED_PRECONDITION:
      return "failed precondition";
    case TFCC_INTERNAL:
      return "internal";
    case TFCC_UNAVAILABLE: {
#if !TFCC_RT_FREESTANDING
      /* The reason, when the CUDA driver failed to load in this process. */
      const char* why = tfcc_rt_cuda_init_failure();
      if (why) return why;
#endif
      return "unavailable";
    }
  }
  return "unknown status";
}

const char* tfcc_rt_context_message(const tfcc_context* ctx) {
  return ctx ? ctx->message : "";
}

/*===----------------------------------------------------------------------===*
 * Support for generated code
 *===----------------------------------------------------------------------===*/

typedef struct tfcc_rt_strided_view {
  char* data; /* aligned pointer + offset, in bytes */
  const int64_t* sizes;
  const int64_t* strides;
} tfcc_rt_strided_view;

static tfcc_rt_strided_view tfcc_rt_view_of(const tfcc_rt_unranked_memref* m,
                                            int64_t elem_size) {
  tfcc_rt_strided_view v;
  char* const* pointers = (char* const*)m->descriptor;
  const int64_t* fields = (const int64_t*)(pointers + 2);
  v.data = pointers[1] + fields[0] * elem_size;
  v.sizes = fields + 1;
  v.strides = fields + 1 + m->rank;
  return v;
}

void memrefCopy(int64_t elem_size, tfcc_rt_unranked_memref* src,
                tfcc_rt_unranked_memref* dst) {
  int64_t rank = src->rank, d, outer = 1, chunk = elem_size, inner_rank;
  tfcc_rt_strided_view s = tfcc_rt_view_of(src, elem_size);
  tfcc_rt_strided_view t = tfcc_rt_view_of(dst, elem_size);
  int64_t index[16] = {0};
  int64_t contiguous = 1;
  if (rank > 16) return; /* the compiler never emits copies of rank > 16 */
  for (d = 0; d < rank; ++d)
    if (s.sizes[d] == 0) return;
  /* The innermost dims that are dense in both buffers move as one memcpy
   * (a pad's interior row, a whole buffer): element by element is slow. */
  inner_rank = rank;
  for (d = rank - 1; d >= 0; --d) {
    if (s.sizes[d] != 1 &&
        (s.strides[d] != contiguous || t.strides[d] != contiguous))
      break;
    contiguous *= s.sizes[d];
    inner_rank = d;
  }
  chunk = contiguous * elem_size;
  for (d = 0; d < inner_rank; ++d) outer *= s.sizes[d];
  while (outer-- > 0) {
    int64_t src_offset = 0, dst_offset = 0;
    for (d = 0; d < inner_rank; ++d) {
      src_offset += index[d] * s.strides[d];
      dst_offset += index[d] * t.strides[d];
    }
    memcpy(t.data + dst_offset * elem_size, s.data + src_offset * elem_size,
           (size_t)chunk);
    for (d = inner_rank - 1; d >= 0; --d) {
      if (++index[d] < s.sizes[d]) break;
      index[d] = 0;
    }
  }
}
