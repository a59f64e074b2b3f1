/* tfcc_kernels.h - float32 micro-kernel library of the tfcc runtime.
 *
 * Generated code calls these C functions (the IREE "ukernel" approach) for the
 * heavy operations: GEMM / batched matmul / dense layers, NHWC convolution and
 * NHWC depthwise convolution, all with a fused epilogue (bias, residual add,
 * activation). A small persistent thread pool parallelizes each call.
 *
 * Conventions shared by every kernel:
 *  - Every argument is an integer, pointer or float scalar (no structs), so
 *    generated code may pass pointers as 64-bit integers.
 *  - Pointers need only the natural 4-byte float alignment; 64-byte aligned
 *    weights / arenas are a little faster but never required.
 *  - No kernel call mallocs. Each call uses at most TFCC_RT_KERNEL_STACK_BYTES
 *    of stack on the calling thread (and on each pool thread, whose stacks are
 *    created large enough). Threads calling kernels need that much free stack.
 *  - Kernels run on the thread-local current pool (tfcc_rt_set_current_pool),
 *    serially when it is NULL or the work is small. Results do not depend on
 *    the number of threads beyond float reassociation (in practice they are
 *    bitwise identical).
 *  - The code for the CPU's ISA level (AVX-512, AVX2 + FMA or baseline
 *    x86-64; NEON on AArch64) is selected at run time by CPUID, capped by
 *    the environment variable TFCC_KERNELS_ISA (docs/c-api.md). The packed
 *    weight layout does not depend on the ISA.
 *  - Outputs must not overlap inputs, except that C / y may alias the
 *    residual exactly (in-place residual add).
 *
 * C99, libc + pthreads only; every symbol is hidden (the archive is linked
 * statically into each model .so).
 */
#ifndef TFCC_KERNELS_H_
#define TFCC_KERNELS_H_

#include <stdint.h>

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

/* Upper bound of the stack one kernel call uses on one thread (bytes). */
#define TFCC_RT_KERNEL_STACK_BYTES (192 * 1024)

/* Epilogue, applied per output element after accumulation, in this order:
 *   v = acc + (bias ? bias[col] : 0) + (residual ? residual[same index as the
 *       output element] : 0); then the activation below.
 * alpha and beta are only read by the activations that use them. */
enum {
  TFCC_ACT_NONE = 0,
  TFCC_ACT_RELU = 1,       /* max(v, 0) */
  TFCC_ACT_CLIP = 2,       /* min(max(v, alpha), beta) */
  TFCC_ACT_LEAKY_RELU = 3, /* v > 0 ? v : alpha * v */
  TFCC_ACT_HARD_SWISH = 4, /* v * min(max(v + 3, 0), 6) / 6 */
  TFCC_ACT_SIGMOID = 5     /* 1 / (1 + exp(-v)) */
};
/* Or'ed into the activation code of tfcc_rt_sgemm, tfcc_rt_conv2d_f32,
 * tfcc_rt_conv2d_winograd_f32 and tfcc_rt_depthwise_conv2d_f32: the
 * activation's result is rounded to bf16 or f16 (to nearest even; f16
 * overflows to infinity; a NaN becomes a quiet NaN) and stored as the f32
 * holding that value, bit for bit what tfcc's f32 -> 16-bit -> f32 casts
 * give. The mixed-precision builds round each layer's output here, while
 * the tile is in cache, instead of in a pass over memory. */
enum {
  TFCC_ACT_ROUND_BF16 = 0x100,
  TFCC_ACT_ROUND_F16 = 0x200,
  TFCC_ACT_ROUND_MASK = 0x300
};
/* Or'ed into the activation code of tfcc_rt_sgemm (and the flags of
 * tfcc_rt_conv2d_filter_grad_f32, for x and dy): every value of A and
 * B is a bf16 value held in an f32 (its low 16 bits zero), as the operands
 * of a --precision=mixed_bf16 layer are. Where the CPU has AVX512_BF16 the
 * product then runs on vdpbf16ps: bf16 pairs, f32 accumulation (the exact
 * products added in another order; subnormal bf16 inputs and sums flush to
 * zero), twice the multiply-adds per instruction. Elsewhere it changes
 * nothing. The low 16 bits of an operand that breaks the promise may be
 * dropped. */
enum { TFCC_ACT_BF16_OPERANDS = 0x400 };

/* Weights packed for the GEMM "B" operand: B is K x N (row-major, element
 * (k,n) at B[k*ldb+n], or when trans_b is 1, at B[n*ldb+k]). The packed form
 * is the ISA-independent layout [ceil(N/32)][K][32] floats, zero-padded in n:
 * element (k, n) lives at packed[((n / 32) * K + k) * 32 + n % 32].
 * tfcc_rt_sgemm_packed_b_size returns the number of floats
 * (ceil(N/32) * K * 32). Packing (tfcc_rt_sgemm_pack_b) is plain C (also
 * built into the tfcc_kernel_pack library the compiler links), so
 * compile-time and run-time packing agree bit for bit. */
TFCC_RT_API int64_t tfcc_rt_sgemm_packed_b_size(int64_t K, int64_t N);

/* Winograd F(2x2, 3x3) (tfcc_rt_conv2d_winograd_f32): each 2x2 block of
 * outputs reads a 4x4 input patch d; per input channel V = B^T d B (16
 * transform points), then for each point p one GEMM M_p = V_p U_p over the
 * input channels, and the outputs A^T M A, followed by the epilogue: 16/36
 * of the direct kernel's multiply-adds. tfcc_rt_winograd_pack transforms the
 * HWIO kernel [3][3][c][oc]: U = G g G^T per (ci, co) (computed in double,
 * rounded once), stored as 16 matrices [c][oc] in the tfcc_rt_sgemm_pack_b
 * layout, point p = 4 * row + column at
 * packed + p * tfcc_rt_sgemm_packed_b_size(c, oc); tfcc_rt_winograd_packed_size
 * is the total in floats (16/9 of the direct kernel's). Plain C (in the
 * tfcc_kernel_pack library too): the compiler transforms constant weights
 * once; variable ones (a train step's) are transformed by a call per step
 * into an arena buffer (3x3x32x64: ~13 us). The transformed input tiles live
 * on the stack, hence TFCC_RT_WINOGRAD_MAX_C. Rounding: relative error a few
 * times that of the direct kernel (the transforms add at most 9 terms
 * exactly representable in float). */
#define TFCC_RT_WINOGRAD_MAX_C 2048
TFCC_RT_API int64_t tfcc_rt_winograd_packed_size(int64_t c, int64_t oc);
/* The rule the compiler lowers by: 1 when a 3x3, stride 1, dilation 1,
 * groups 1 f32 convolution with these sizes (per image; input h x w x c,
 * output oh x ow x oc) should use tfcc_rt_conv2d_winograd_f32 rather than
 * tfcc_rt_conv2d_f32, else 0 (see pack.c for the measurements behind it). */
TFCC_RT_API int32_t tfcc_rt_conv2d_winograd_preferred(int64_t h, int64_t w,
                                                      int64_t c, int64_t oc,
                                                      int64_t oh, int64_t ow);

/* The int8 GEMM's packed B (tfcc_rt_qgemm_pack_b): panels of
 * TFCC_RT_QGEMM_NR = 16 columns (the last zero padded), each holding K
 * rounded up to a multiple of 4 (zero padded) as groups of 4: byte
 * (p, g, j, t) = B[4g + t][16p + j] at ((p * groups + g) * 16 + j) * 4 + t,
 * which is what one vpdpbusd multiplies by 4 broadcast bytes of A; then the
 * column sums sum_k B[k][n] as int32 (little endian, 16 per panel); last
 * one int32 (little endian), 1 when every pair (4g, 4g+1), (4g+2, 4g+3) of
 * a column has |B[k][n]| + |B[k+1][n]| <= 128 (so that vpmaddubsw's int16
 * pair sums cannot saturate: the AVX2 kernel then uses it), else 0. Size in
 * bytes; 0 when K or N is <= 0. */
#define TFCC_RT_QGEMM_NR 16
TFCC_RT_API int64_t tfcc_rt_qgemm_packed_b_size(int64_t K, int64_t N);

/* The fused int8 convolution (tfcc_rt_qconv2d_u8s8_*) gathers each task's
 * rows on its stack: rows of at most TFCC_RT_QCONV_MAX_LDC bytes (a 3x3
 * window of 455 channels); the compiler uses the separate tfcc_rt_im2col_u8
 * beyond it, and where the packed weights exceed
 * TFCC_RT_QCONV_FUSED_MAX_B_BYTES (the GEMM's L2 block: beyond it a task's
 * rows would be gathered once per block of weights). */
#define TFCC_RT_QCONV_MAX_LDC 4096
#define TFCC_RT_QCONV_FUSED_MAX_B_BYTES (256 * 1024)

/* The max pooling the int8 convolution takes (pool_h x pool_w windows):
 * a task's tile of TFCC_RT_QCONV_POOL_TILE_ROWS output pixels holds
 * pool_h rows of whole windows, so pool_h divides it and pool_w divides
 * its share of a row (2 x 2: two windows of 2 x 2 pixels). */
#define TFCC_RT_QCONV_POOL_TILE_ROWS 8
#define TFCC_RT_QCONV_POOL_SUPPORTED(ph, pw)                                   \
  ((ph) >= 1 && (pw) >= 1 && (ph) * (pw) >= 2 &&                               \
   (ph) <= TFCC_RT_QCONV_POOL_TILE_ROWS &&                                     \
   TFCC_RT_QCONV_POOL_TILE_ROWS % (ph) == 0 &&                                 \
   (pw) <= TFCC_RT_QCONV_POOL_TILE_ROWS / (ph) &&                              \
   (TFCC_RT_QCONV_POOL_TILE_ROWS / (ph)) % (pw) == 0)

/* The uint8 depthwise convolution's packed weights: (taps + 1) * c floats
 * (tfcc_rt_depthwise_u8s8_pack); 0 when taps or c is <= 0. It accumulates in
 * float, exact while every partial sum of (x - zero point) * w stays below
 * 2^24: up to TFCC_RT_DWQ_MAX_TAPS taps (255 * 128 * 512 < 2^24). */
#define TFCC_RT_DWQ_MAX_TAPS 512
TFCC_RT_API int64_t tfcc_rt_depthwise_u8s8_packed_size(int64_t taps,
                                                       int64_t c);

/* Modes of tfcc_rt_pool2d_f32. */
enum { TFCC_POOL_MAX = 0, TFCC_POOL_AVG = 1, TFCC_POOL_AVG_WINDOW = 2 };

/* The kernels generated code calls, one prototype per entry of
 * tfcc_kernels.def (where each is described). */
#define TFCC_KERNEL_CTYPE_I64 int64_t
#define TFCC_KERNEL_CTYPE_I32 int32_t
#define TFCC_KERNEL_CTYPE_F32 float
#define TFCC_KERNEL_CTYPE_IN_F32 const float*
#define TFCC_KERNEL_CTYPE_OUT_F32 float*
#define TFCC_KERNEL_CTYPE_IN_I8 const int8_t*
#define TFCC_KERNEL_CTYPE_OUT_I8 int8_t*
#define TFCC_KERNEL_CTYPE_IN_U8 const uint8_t*
#define TFCC_KERNEL_CTYPE_OUT_U8 uint8_t*
#define TFCC_KERNEL_CTYPE_OUT_I64 int64_t*
/* Each TFCC_ARG adds ", type name"; TFCC_KERNEL_PARAMS drops the first comma
 * (the ~ placeholder takes it). */
#define TFCC_KERNEL_TAIL_(first, ...) __VA_ARGS__
#define TFCC_KERNEL_PARAMS_(list) TFCC_KERNEL_TAIL_ list
#define TFCC_ARG(type, name) , TFCC_KERNEL_CTYPE_##type name
#define TFCC_KERNEL(name, params) \
  TFCC_RT_API void name(TFCC_KERNEL_PARAMS_((~ params)));
#include "tfcc_kernels.def"
#undef TFCC_KERNEL
#undef TFCC_ARG

/* Thread pool. Created once (the only place that mallocs), never creates
 * threads per call: num_threads - 1 persistent workers (the calling thread is
 * the other one) that spin briefly after each job, then sleep on a futex. */
typedef struct tfcc_rt_pool tfcc_rt_pool;
/* num_threads >= 1; 1 creates no thread; NULL on failure (or num_threads < 1). */
TFCC_RT_API tfcc_rt_pool* tfcc_rt_pool_create(int32_t num_threads);
/* Joins the workers and frees the pool. NULL is a no-op. The pool must not be
 * in use (nor current on any thread that will still call kernels). */
TFCC_RT_API void tfcc_rt_pool_destroy(tfcc_rt_pool* pool);
/* 1 for NULL. */
TFCC_RT_API int32_t tfcc_rt_pool_num_threads(const tfcc_rt_pool* pool);
/* The pool kernels on this thread use (thread-local; NULL = run serially).
 * The runtime's invoke sets it around each call. */
TFCC_RT_API void tfcc_rt_set_current_pool(tfcc_rt_pool* pool);
TFCC_RT_API tfcc_rt_pool* tfcc_rt_get_current_pool(void);
/* Runs fn(ctx, begin, end, thread_index) over [0, n) split into chunks across
 * the current pool's threads (the calling thread works too, as thread 0);
 * every index is covered exactly once; returns when all are done. Nested
 * calls (from inside fn), calls without a current pool, and calls while the
 * pool is busy with another thread's job run serially: fn(ctx, 0, n, t). */
TFCC_RT_API void tfcc_rt_parallel_for(
    int64_t n, void (*fn)(void* ctx, int64_t begin, int64_t end, int32_t thread),
    void* ctx);

#ifdef __cplusplus
}
#endif

#endif /* TFCC_KERNELS_H_ */
