/* tfcc_types.h - public types shared by the tfcc runtime and generated model
 * headers.
 *
 * This text is embedded verbatim into every header tfcc generates, so it must
 * stay self-contained plain C99 (it also compiles as C++). The guard is
 * versioned with the ABI: two generated model headers can be included in one
 * translation unit.
 *
 * Layout matters: the compiler emits tfcc_model_info, tfcc_entry_info and
 * tfcc_arg_info as constants with natural C alignment (x86-64, aarch64). Change
 * a struct only together with TFCC_ABI_VERSION and the compiler's emitter.
 */
#ifndef TFCC_TYPES_H_V5
#define TFCC_TYPES_H_V5

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every runtime call. TFCC_OK is 0; the message of a failed call is
 * in tfcc_context.message. */
typedef enum tfcc_status_t {
  TFCC_OK = 0,
  /* A NULL pointer, a context of another model, a bad entry index. */
  TFCC_INVALID_ARGUMENT = 1,
  /* batch or max_batch outside the allowed range. */
  TFCC_OUT_OF_RANGE = 2,
  /* Arena too small, malloc failed, too many arguments. */
  TFCC_RESOURCE_EXHAUSTED = 3,
  /* The model was compiled for another runtime ABI version. */
  TFCC_FAILED_PRECONDITION = 4,
  /* A malformed model table (a compiler bug). */
  TFCC_INTERNAL = 5,
  /* A device the model needs (a CUDA GPU and its driver) is not there or
   * failed. */
  TFCC_UNAVAILABLE = 6
} tfcc_status_t;

/* Element types, the one list: TFCC_DTYPES(X) calls
 * X(NAME, number, bytes per element, C element type) for each; tfcc_dtype_t
 * below, the compiler's tfcc::DType and the checkpoint reader's sizes are
 * expanded from it.
 *   BOOL  1 byte, 0 or 1
 *   F16   IEEE half, raw bits in a uint16_t
 *   BF16  bfloat16, raw bits in a uint16_t
 *   U8    unsigned 8-bit integer (ui8 in the IR, ONNX uint8) */
#define TFCC_DTYPES(X)          \
  X(F32, 1, 4, float)           \
  X(I32, 2, 4, int32_t)         \
  X(I64, 3, 8, int64_t)         \
  X(BOOL, 4, 1, uint8_t)        \
  X(F16, 5, 2, uint16_t)        \
  X(BF16, 6, 2, uint16_t)       \
  X(I8, 7, 1, int8_t)           \
  X(F64, 8, 8, double)          \
  X(U8, 9, 1, uint8_t)

/* TFCC_DTYPE_F32 = 1, TFCC_DTYPE_I32 = 2, ... */
#define TFCC_DTYPE_ENUMERATOR_(name, number, bytes, ctype) \
  TFCC_DTYPE_##name = number,
typedef enum tfcc_dtype_t {
  TFCC_DTYPES(TFCC_DTYPE_ENUMERATOR_)
} tfcc_dtype_t;
#undef TFCC_DTYPE_ENUMERATOR_

/* A dynamic (batch) dimension in tfcc_arg_info.dims. */
#define TFCC_DIM_DYNAMIC (-1)
/* Named dimension k (1 <= k <= tfcc_model_info.num_dims: a dynamic dimension
 * beyond the batch, tfcc_model_info.dim_names[k - 1]) in tfcc_arg_info.dims;
 * TFCC_DIM_NAMED(0) is the batch. */
#define TFCC_DIM_NAMED(k) (-1 - (int64_t)(k))
/* Version of the structs below; tfcc_model_info.abi_version must equal it. */
#define TFCC_ABI_VERSION 5
/* Alignment of the arena a kernel receives (and of each buffer the compiler
 * places in it and of the state memory). */
#define TFCC_ARENA_ALIGNMENT 64

/* One input or output of an entry point. All pointers are to static data of the
 * model. */
typedef struct tfcc_arg_info {
  const char* name;    /* the argument's name in the model */
  int32_t dtype;       /* a tfcc_dtype_t */
  int32_t rank;        /* number of dims; 0 for a scalar */
  const int64_t* dims; /* rank dims; TFCC_DIM_DYNAMIC for the batch,
                          TFCC_DIM_NAMED(k) for named dimension k */
} tfcc_arg_info;

typedef struct tfcc_context tfcc_context;

/* Uniform signature of the compiled kernel of one entry point: buffers = inputs
 * then outputs (data pointers, row-major, dense), dims = the values of the
 * model's dimensions (dims[0] the batch, dims[k] named dimension k; 1 + num_dims
 * values, each checked against its bound), arena = scratch memory of at least
 * the entry's arena bytes for that batch, 64-byte aligned, state = the
 * context's state memory (tfcc_model_info.state_bytes, 64-byte aligned; NULL
 * when 0): the variables of a model with a training step, which its entries
 * read and its train entry updates. */
typedef void (*tfcc_kernel_fn)(void* const* buffers, const int64_t* dims,
                               void* arena, void* state);

/* The shape function of an entry whose outputs have derived dimensions
 * (TFCC_DIM_DERIVED in tfcc_model_info.dim_flags): reads the batch and the
 * named dimensions from dims and writes each derived one. */
typedef void (*tfcc_resolve_dims_fn)(int64_t* dims);

/* tfcc_model_info.dim_flags: an output dimension computed from the others
 * (a convolution's output width), not given by the caller. */
#define TFCC_DIM_DERIVED 1

/* One entry point (a public function of the model). */
typedef struct tfcc_entry_info {
  const char* name; /* entry name in the model, e.g. "predict" */
  int32_t num_inputs;
  int32_t num_outputs;
  const tfcc_arg_info* inputs;  /* num_inputs elements */
  const tfcc_arg_info* outputs; /* num_outputs elements */
  /* 1 when some input/output dim is TFCC_DIM_DYNAMIC. */
  int32_t has_dynamic_batch;
  /* 1 when some input/output dim is a named dimension (TFCC_DIM_NAMED(k),
   * k >= 1): the entry is called with the dims' values (tfcc_rt_invoke_dims). */
  int32_t has_named_dims;
  /* Arena bytes needed = fixed + per_batch * batch, rounded up to 64 (per_batch
   * counts only when has_dynamic_batch is 1). */
  uint64_t arena_bytes_fixed;
  uint64_t arena_bytes_per_batch;
  tfcc_kernel_fn kernel;
  /* Computes the entry's derived dimensions; NULL when it has none. */
  tfcc_resolve_dims_fn resolve_dims;
} tfcc_entry_info;

/* One variable in the state memory of a model with a training step
 * (trainable weights, non-trainable variables, optimizer slots, the step
 * counter). */
typedef struct tfcc_variable_info {
  const char* name;    /* the variable's symbol, e.g. "dense/kernel" */
  int32_t dtype;       /* a tfcc_dtype_t */
  int32_t rank;        /* number of dims; 0 for a scalar */
  const int64_t* dims; /* rank dims (all static) */
  uint64_t offset;     /* byte offset in the state memory (64-aligned) */
  uint64_t bytes;      /* size in bytes */
  int32_t trainable;   /* 1 for a weight the train step updates by gradient */
  int32_t reserved;
} tfcc_variable_info;

/* tfcc_model_info.flags: the model's code runs on a CUDA GPU (tfcc
 * --target=cuda). Its arena is device memory the runtime allocates when the
 * context is set up (the caller's arena is then not used), and setting up a
 * context needs the GPU's driver (TFCC_UNAVAILABLE without it). */
#define TFCC_MODEL_FLAG_CUDA 1

/* The reflective table of a compiled model (static storage in the model). */
typedef struct tfcc_model_info {
  uint32_t abi_version; /* TFCC_ABI_VERSION it was compiled for */
  int32_t num_entries;
  const char* name;               /* the model's name, e.g. "mnist_cnn" */
  const tfcc_entry_info* entries; /* num_entries elements */
  uint64_t weight_bytes;          /* bytes of weights in read-only data */
  /* State memory (models with a training step; 0 / NULL otherwise): its
   * size, the variables in it and its initial image (state_bytes bytes). */
  uint64_t state_bytes;
  int32_t num_variables;
  /* 1 + the index of the entry that updates the state memory (the train
   * step: tools that share a model between callers refuse it); 0 when no
   * entry does. */
  int32_t train_entry;
  const tfcc_variable_info* variables; /* num_variables elements */
  const void* state_init;
  /* Dynamic dimensions beyond the batch (docs/c-api.md, "Dimensions"): their
   * names, largest values (fixed at compile time: the arena is planned for
   * them) and flags (TFCC_DIM_DERIVED); num_dims elements each, NULL when 0. */
  int32_t num_dims;
  /* TFCC_MODEL_FLAG_* bits. */
  int32_t flags;
  const char* const* dim_names;
  const int64_t* dim_bounds;
  const int32_t* dim_flags;
} tfcc_model_info;

/* A context: the caller-provided arena, the declared maximum batch and the
 * number of threads calls use. Public so it can live in static memory (no
 * malloc needed). Fill it only with <prefix>_init, <prefix>_create or
 * <prefix>_create_with_threads; read message after a failed call. A context
 * runs one call at a time: use one context per calling thread. */
struct tfcc_context {
  const tfcc_model_info* model; /* the model it was initialized for */
  void* arena;                  /* 64-byte aligned start of the usable arena */
  /* The model's state memory (variables of a model with a training step),
   * 64-byte aligned, at the start of the caller's block, before the arena;
   * NULL when the model has none. */
  void* state;
  uint64_t state_bytes;
  uint64_t arena_bytes;         /* usable bytes from arena on */
  int64_t max_batch;            /* largest batch a call may use */
  int32_t owns_arena; /* 1 when <prefix>_create(_with_threads) allocated it */
  /* Threads the kernels of a call use, the calling thread included: 1 = only
   * the calling thread (no pool, no thread created). */
  int32_t num_threads;
  /* The runtime's thread pool (num_threads - 1 persistent workers), created by
   * <prefix>_create_with_threads and freed by <prefix>_destroy; NULL when
   * num_threads is 1. */
  void* pool;
  char message[256]; /* "" after success, else what went wrong */
  /* The spans of <prefix>_profile_start .. _profile_stop (a runtime-private
   * record); NULL when the context is not profiling. */
  void* profile;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFCC_TYPES_H_V5 */
