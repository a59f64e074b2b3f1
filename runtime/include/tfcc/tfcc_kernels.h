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
 *  - AVX-512 code is selected at run time (CPUID); a portable C path runs
 *    everywhere else. The packed weight layout does not depend on the ISA.
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

/* Weights packed for the GEMM "B" operand: B is K x N (row-major, element
 * (k,n) at B[k*ldb+n], or when trans_b is 1, at B[n*ldb+k]). The packed form
 * is the ISA-independent layout [ceil(N/32)][K][32] floats, zero-padded in n:
 * element (k, n) lives at packed[((n / 32) * K + k) * 32 + n % 32].
 * tfcc_rt_sgemm_packed_b_size returns the number of floats
 * (ceil(N/32) * K * 32). Packing is plain C (also built into the
 * tfcc_kernel_pack library the compiler links), so compile-time and run-time
 * packing agree bit for bit. */
TFCC_RT_API int64_t tfcc_rt_sgemm_packed_b_size(int64_t K, int64_t N);
TFCC_RT_API void tfcc_rt_sgemm_pack_b(int64_t K, int64_t N, const float* B,
                                      int64_t ldb, int32_t trans_b,
                                      float* packed);

/* C[b] = epilogue(op(A[b]) @ op(B[b])) for b in [0, batch):
 *   op(A) is M x K: A[b*stride_a + m*lda + k], or A[b*stride_a + k*lda + m]
 *     when trans_a;
 *   B as described above at B + b*stride_b, or, when b_packed is 1, B points
 *     to a packed buffer (tfcc_rt_sgemm_pack_b layout; stride_b then counts
 *     floats between packed batches, 0 = shared; ldb and trans_b are ignored);
 *   C[b*stride_c + m*ldc + n]; bias has N floats (or NULL), shared by all
 *   batches; residual (or NULL) is read at residual[b*stride_c + m*ldc + n]
 *   (same layout as C); C may alias residual exactly (in-place).
 * K may be 0 (C = epilogue(0)). Nothing happens when batch, M or N is <= 0. */
TFCC_RT_API void tfcc_rt_sgemm(int64_t batch, int64_t M, int64_t N, int64_t K,
                               const float* A, int64_t lda, int64_t stride_a,
                               int32_t trans_a, const float* B, int64_t ldb,
                               int64_t stride_b, int32_t trans_b,
                               int32_t b_packed, float* C, int64_t ldc,
                               int64_t stride_c, const float* bias,
                               const float* residual, int32_t activation,
                               float alpha, float beta);

/* NHWC convolution, groups = 1: x [n, h, w, c], weights packed with
 * tfcc_rt_sgemm_pack_b from the HWIO kernel viewed as a (kh*kw*c) x oc
 * row-major matrix (K index = (i*kw + j)*c + ci), output y [n, oh, ow, oc];
 * zero padding pad_top/pad_left (bottom/right implied by oh, ow); input
 * position of output (r, s), tap (i, j):
 *   (r*stride_h - pad_top + i*dil_h, s*stride_w - pad_left + j*dil_w).
 * bias [oc] or NULL; residual [n, oh, ow, oc] or NULL (may alias y). */
TFCC_RT_API void tfcc_rt_conv2d_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c,
    const float* packed_weights, int64_t oc, int64_t kh, int64_t kw,
    int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w,
    int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow,
    const float* bias, const float* residual, int32_t activation, float alpha,
    float beta, float* y);

/* Winograd F(2x2, 3x3) NHWC convolution for 3x3 kernels, stride 1,
 * dilation 1, groups 1: y = the convolution tfcc_rt_conv2d_f32 computes with
 * kh = kw = 3 and unit strides and dilations (same padding, bias, residual
 * and activation conventions), with 16/36 of its multiply-adds. Each 2x2
 * block of outputs reads a 4x4 input patch d; per input channel
 * V = B^T d B (16 transform points), then for each point p one GEMM
 * M_p = V_p U_p over the input channels, and the outputs A^T M A, followed by
 * the epilogue. The weights are transformed and packed by
 * tfcc_rt_winograd_pack from the HWIO kernel [3][3][c][oc]: U = G g G^T per
 * (ci, co) (computed in double, rounded once), stored as 16 matrices [c][oc]
 * in the tfcc_rt_sgemm_pack_b layout, point p = 4 * row + column at
 * packed + p * tfcc_rt_sgemm_packed_b_size(c, oc); tfcc_rt_winograd_packed_size
 * is the total in floats (16/9 of the direct kernel's). Plain C (in the
 * tfcc_kernel_pack library too, like tfcc_rt_sgemm_pack_b): the compiler
 * transforms constant weights once; variable ones (a train step's) are
 * transformed by a call per step into an arena buffer (3x3x32x64: ~13 us).
 * Requires 1 <= c <= TFCC_RT_WINOGRAD_MAX_C (the transformed input tiles live
 * on the stack). Rounding: relative error a few times that of the direct
 * kernel (the transforms add at most 9 terms exactly representable in
 * float). */
#define TFCC_RT_WINOGRAD_MAX_C 2048
TFCC_RT_API int64_t tfcc_rt_winograd_packed_size(int64_t c, int64_t oc);
TFCC_RT_API void tfcc_rt_winograd_pack(int64_t c, int64_t oc,
                                       const float* hwio, float* packed);
TFCC_RT_API void tfcc_rt_conv2d_winograd_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c,
    const float* packed_weights, int64_t oc, int64_t pad_top,
    int64_t pad_left, int64_t oh, int64_t ow, const float* bias,
    const float* residual, int32_t activation, float alpha, float beta,
    float* y);
/* The rule the compiler lowers by: 1 when a 3x3, stride 1, dilation 1,
 * groups 1 f32 convolution with these sizes (per image; input h x w x c,
 * output oh x ow x oc) should use tfcc_rt_conv2d_winograd_f32 rather than
 * tfcc_rt_conv2d_f32, else 0 (see pack.c for the measurements behind it). */
TFCC_RT_API int32_t tfcc_rt_conv2d_winograd_preferred(int64_t h, int64_t w,
                                                      int64_t c, int64_t oc,
                                                      int64_t oh, int64_t ow);

/* NHWC depthwise convolution: weights [kh, kw, c * m] (the TF [kh,kw,c,m]
 * kernel, unpacked), output y [n, oh, ow, c * m]; output channel ci*m + mi
 * reads input channel ci; same padding / epilogue conventions as
 * tfcc_rt_conv2d_f32 (bias [c*m], residual [n, oh, ow, c*m]). */
TFCC_RT_API void tfcc_rt_depthwise_conv2d_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c,
    const float* weights, int64_t m, int64_t kh, int64_t kw, int64_t stride_h,
    int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t pad_top,
    int64_t pad_left, int64_t oh, int64_t ow, const float* bias,
    const float* residual, int32_t activation, float alpha, float beta,
    float* y);

/* NHWC pooling, x [n, h, w, c] -> y [n, oh, ow, c], window kh x kw, strides,
 * implicit padding pad_top / pad_left (bottom / right implied by oh, ow):
 * output (r, s) covers input rows r*stride_h - pad_top + [0, kh) and columns
 * s*stride_w - pad_left + [0, kw). Modes: TFCC_POOL_MAX (taps outside the
 * input are ignored), TFCC_POOL_AVG (mean of the taps inside the input: TF
 * SAME), TFCC_POOL_AVG_WINDOW (sum of the taps inside / (kh * kw): zero
 * padding counted, ONNX count_include_pad). */
enum { TFCC_POOL_MAX = 0, TFCC_POOL_AVG = 1, TFCC_POOL_AVG_WINDOW = 2 };
TFCC_RT_API void tfcc_rt_pool2d_f32(const float* x, int64_t n, int64_t h,
                                    int64_t w, int64_t c, int64_t kh,
                                    int64_t kw, int64_t stride_h,
                                    int64_t stride_w, int64_t pad_top,
                                    int64_t pad_left, int64_t oh, int64_t ow,
                                    int32_t mode, float* y);

/* Gradient of TFCC_POOL_MAX pooling with the same geometry: dx [n, h, w, c]
 * = 0, then dy [n, oh, ow, c] of each window is added to the window's first
 * maximum (row-major taps, per channel; a NaN counts as the maximum; taps
 * outside the input never win). With positive_only != 0 only a maximum
 * greater than zero receives its gradient (the gradient of a ReLU that
 * produced x, fused in). dx must not alias x or dy. */
TFCC_RT_API void tfcc_rt_max_pool2d_grad_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
    int64_t kw, int64_t stride_h, int64_t stride_w, int64_t pad_top,
    int64_t pad_left, int64_t oh, int64_t ow, int32_t positive_only,
    const float* dy, float* dx);

/* Max pooling with the geometry of tfcc_rt_pool2d_f32 that also records, per
 * pooled value, the tap i * kw + j of the window's first maximum as
 * tfcc_rt_max_pool2d_grad_f32 picks it (int8; -1 with positive_only when that
 * maximum is not above zero). The gradient from such a record: dx [n, h, w, c]
 * = 0, then each dy is added at its window's recorded tap. kh * kw <= 127. */
TFCC_RT_API void tfcc_rt_max_pool2d_indices_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
    int64_t kw, int64_t stride_h, int64_t stride_w, int64_t pad_top,
    int64_t pad_left, int64_t oh, int64_t ow, int32_t positive_only, float* y,
    int8_t* taps);
TFCC_RT_API void tfcc_rt_max_pool2d_grad_indices_f32(
    const int8_t* taps, const float* dy, int64_t n, int64_t h, int64_t w,
    int64_t c, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow, float* dx);

/* Kernel gradient of a stride-1, dilation-1, groups-1 NHWC convolution:
 * dk [kh, kw, c, co] = sum over (b, r, s) of x[b, r + i, s + j, :]^T dy[b, r, s, :]
 * with x [n, h, w, c] already padded (h >= oh + kh - 1, w >= ow + kw - 1) and
 * dy [n, oh, ow, co]. Reads x in place (no im2col matrix). */
TFCC_RT_API void tfcc_rt_conv2d_filter_grad_f32(
    const float* x, int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
    int64_t kw, const float* dy, int64_t oh, int64_t ow, int64_t co,
    float* dk);

/* Training batch norm over x viewed as [rows, c] (channels innermost).
 * moments [2, c]: row 0 the mean of each channel, row 1 the biased variance
 * mean((x - mean)^2) (one pass over x minus its first row).
 * sums [2, c]: row 0 the sum of dy, row 1 the sum of dy * (x - mean), mean
 * being row 0 of `moments`. Results do not depend on the thread count. */
TFCC_RT_API void tfcc_rt_channel_moments_f32(const float* x, int64_t rows,
                                             int64_t c, float* moments);
TFCC_RT_API void tfcc_rt_batch_norm_grad_sums_f32(const float* x,
                                                  const float* dy,
                                                  const float* moments,
                                                  int64_t rows, int64_t c,
                                                  float* sums);

/* Row-wise kernels over the last, contiguous axis of a [rows, cols] tensor.
 * Layer normalization: y = (x - mean) / sqrt(var + epsilon) * gamma + beta
 * with the biased variance of each row; gamma / beta have cols floats, or
 * are NULL (1 / 0). Softmax: y = exp(x - max) / sum, or with log_softmax = 1,
 * y = x - max - log(sum). y may alias x exactly. */
TFCC_RT_API void tfcc_rt_layer_norm_f32(const float* x, int64_t rows,
                                        int64_t cols, const float* gamma,
                                        const float* beta, float epsilon,
                                        float* y);
TFCC_RT_API void tfcc_rt_softmax_f32(const float* x, int64_t rows,
                                     int64_t cols, int32_t log_softmax,
                                     float* y);

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
