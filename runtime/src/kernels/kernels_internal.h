/* kernels_internal.h - shared pieces of the tfcc micro-kernel library.
 *
 * The one register-blocked micro-kernel (ukernel) computes an MR x 32 tile
 * (MR <= tfcc_uk_mr_for_isa(isa) <= TFCC_UK_MR) of C from
 *   - A rows at a + i*lda (+ toff[t] for tap t): "direct" A (a row-major
 *     matrix, or the pixels of an NHWC convolution, which sit at a uniform
 *     stride along an output row) or a packed [mr][kc] buffer;
 *   - one 32-wide panel of packed B ([k][32]), tap t starting at
 *     b + t*b_tap_stride;
 * accumulating over ntaps taps of kt values each. It fuses the epilogue.
 */
#ifndef TFCC_KERNELS_INTERNAL_H_
#define TFCC_KERNELS_INTERNAL_H_

#include "tfcc/tfcc_kernels.h"

#include <stddef.h>
#include <stdint.h>

#define TFCC_INTERNAL TFCC_RT_API

/* Rows of the register tile: 14 for the hand-written AVX-512 kernel (28 zmm
 * accumulators), TFCC_UK_MR_VEC for the portable one (two blocks of 6 rows:
 * on AVX2 12 ymm accumulators each, where 14 rows would be blocks of
 * 5 + 5 + 4 and a 4-row block's 8 accumulators barely cover the FMA
 * latency). The drivers tile by tfcc_uk_mr_for_isa(); TFCC_UK_MR, the
 * largest, sizes their buffers. */
#define TFCC_UK_MR 14
#ifndef TFCC_UK_MR_VEC
#define TFCC_UK_MR_VEC 12
#endif
#define TFCC_UK_NR 32 /* columns of the register tile = packed panel width */

/* flags */
#define TFCC_UK_FIRST 1 /* start from 0 (or the residual) instead of C */
#define TFCC_UK_LAST 2  /* add the bias, apply the activation */

typedef struct tfcc_uk_args {
  const float* a;
  int64_t lda;
  const int64_t* toff; /* ntaps offsets (floats) added to a; NULL: all 0 */
  int64_t ntaps;
  int64_t kt; /* K values per tap */
  const float* b;
  int64_t b_tap_stride; /* floats between taps in b */
  float* c;
  int64_t ldc;
  int64_t mr, nr; /* 1..tfcc_uk_mr_for_isa(), 1..TFCC_UK_NR */
  int32_t flags;
  const float* bias; /* at the tile's first column, or NULL */
  const float* res;  /* at the tile's origin, or NULL (only read with FIRST) */
  int64_t ldr;
  int32_t act;
  float alpha, beta;
} tfcc_uk_args;

typedef void (*tfcc_uk_fn)(const tfcc_uk_args* p);

/* ISA levels, each including the ones below: the target's baseline
 * (portable C and 4-float vectors), AVX2 + FMA (x86-64-v3), AVX-512
 * (x86-64-v4: F, DQ, BW, VL). Selected once by CPUID, capped by the
 * environment variable TFCC_KERNELS_ISA=generic|avx2|avx512 (to run a lower
 * level's kernels on a machine that has more, e.g. to measure them). */
enum { TFCC_ISA_GENERIC = 0, TFCC_ISA_AVX2 = 1, TFCC_ISA_AVX512 = 2 };
TFCC_INTERNAL int tfcc_kernels_isa(void);

/* The int8 GEMM's B packed for K x N (tfcc_rt_qgemm_pack_b) repacked for
 * K = rows * 4 (pack.c): k = i * span + t (t < span <= 4) of the packed B
 * becomes k = 4 i + t, the rest of each group zero weights; the same column
 * sums, the pairs flag of the new groups. `widened` holds
 * tfcc_rt_qgemm_packed_b_size(rows * 4, N) bytes. */
TFCC_INTERNAL void tfcc_q_qgemm_widen_rows(const int8_t* packed, int64_t K,
                                           int64_t N, int64_t rows,
                                           int64_t span, int8_t* widened);
/* The highest level this archive carries: every level by default. tfcc
 * --cpu links an archive built with -DTFCC_KERNELS_MAX_ISA=1 (AVX2) or 0
 * (baseline) instead, so that a model pinned to a CPU holds no code of a
 * higher level; tfcc_kernels_isa() never returns more. A level's code is
 * compiled in when TFCC_KERNELS_HAVE_<level> is 1 (x86-64 only). */
#ifndef TFCC_KERNELS_MAX_ISA
#define TFCC_KERNELS_MAX_ISA 2
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    TFCC_KERNELS_MAX_ISA >= 1
#define TFCC_KERNELS_HAVE_AVX2 1
#else
#define TFCC_KERNELS_HAVE_AVX2 0
#endif
#if TFCC_KERNELS_HAVE_AVX2 && TFCC_KERNELS_MAX_ISA >= 2
#define TFCC_KERNELS_HAVE_AVX512 1
#else
#define TFCC_KERNELS_HAVE_AVX512 0
#endif
/* `isa` is AVX-512 and this archive has its code: a constant 0 otherwise,
 * so the AVX-512 functions a branch names are not referenced. */
#define TFCC_IS_AVX512(isa) (TFCC_KERNELS_HAVE_AVX512 && (isa) == TFCC_ISA_AVX512)
/* The variant of a kernel for `isa`: the AVX-512 one, the AVX2 build of its
 * portable source, or the baseline build, among those the archive carries
 * (the others are not named, so not linked). */
#if TFCC_KERNELS_HAVE_AVX512
#define TFCC_FOR_ISA(isa, avx512, avx2, base)                                  \
  ((isa) == TFCC_ISA_AVX512 ? (avx512)                                         \
   : (isa) == TFCC_ISA_AVX2 ? (avx2)                                           \
                            : (base))
#elif TFCC_KERNELS_HAVE_AVX2
#define TFCC_FOR_ISA(isa, avx512, avx2, base)                                  \
  ((isa) >= TFCC_ISA_AVX2 ? (avx2) : (base))
#else
#define TFCC_FOR_ISA(isa, avx512, avx2, base) ((void)(isa), (base))
#endif
/* Testing hook: -1 = auto (CPUID), else force an ISA (never one the CPU
 * lacks: a level above the detected one is not honoured). */
TFCC_INTERNAL void tfcc_rt_kernels_force_isa(int isa);

/* Max pooling windows that tile the input (stride == window, no padding,
 * every window inside), so each input position belongs to at most one; and
 * zeroing the rows and columns of one image's dx [h, w, c] that such
 * windows leave uncovered. Shared by pool_grad.c and pool_indices.c. */
TFCC_INTERNAL int tfcc_pool_windows_disjoint(int64_t h, int64_t w, int64_t kh,
                                             int64_t kw, int64_t sh,
                                             int64_t sw, int64_t pt,
                                             int64_t pl, int64_t oh,
                                             int64_t ow);
TFCC_INTERNAL void tfcc_pool_zero_uncovered(float* dx, int64_t h, int64_t w,
                                            int64_t c, int64_t kh, int64_t kw,
                                            int64_t oh, int64_t ow);

/* The GEMM micro-kernel of each ISA level: tfcc_uk_base, tfcc_uk_avx2 and
 * tfcc_uk_avx512_vec are one source (ukernel_vec.inc) compiled per level
 * (vec_<isa>.c);
 * tfcc_uk_avx512 is hand-written with intrinsics (ukernel_avx512.c), faster
 * than the portable form there (docs/performance.md). */
TFCC_INTERNAL void tfcc_uk_base(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_uk_avx2(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_uk_avx512_vec(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_uk_avx512(const tfcc_uk_args* p);
/* The micro-kernel the GEMM, convolution and Winograd drivers use at `isa`,
 * and the rows of its tile (<= TFCC_UK_MR). */
TFCC_INTERNAL tfcc_uk_fn tfcc_uk_for_isa(int isa);
TFCC_INTERNAL int64_t tfcc_uk_mr_for_isa(int isa);
/* The same with A k-major: element (i, k) of tap t at
 * a[toff[t] + k * lda + i]. tfcc_uk_avx512_kmajor is hand-written (only
 * called when tfcc_kernels_isa() is AVX-512); the others are the portable
 * kernel's k-major build (ukernel_vec.inc). */
TFCC_INTERNAL void tfcc_uk_avx512_kmajor(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_uk_avx2_kmajor(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_uk_base_kmajor(const tfcc_uk_args* p);

/* bf16 operands on AVX512_BF16 (gemm_bf16_avx512.c), the GEMM of
 * TFCC_ACT_BF16_OPERANDS: the operands' high halves (their bf16 values) are
 * packed per block, an A tile as [mr][kp] and a B block as 32-wide panels
 * [kp/2][32][2] (kp = kc rounded up to even, zero padded), so that one
 * vdpbf16ps multiplies a row's k pair by 16 columns' pairs.
 * tfcc_uk_avx512_bf16 takes tfcc_uk_args with `a` and `b` pointing at those
 * uint16_t buffers, lda = kp, kt = kp / 2 pairs, one tap; the epilogue is
 * the f32 micro-kernel's. Called only where
 * tfcc_kernels_has_avx512_bf16(). */
TFCC_INTERNAL int tfcc_kernels_has_avx512_bf16(void);
/* Whether bf16 operands run on tfcc_uk_avx512_bf16: where the CPU has
 * AVX512_BF16 and vdpbf16ps is faster than the f32 FMA there (not on
 * Intel's cores, cpu_isa.c). Testing hook: tfcc_kernels_force_vdpbf16ps(1)
 * uses it wherever the CPU has it, 0 nowhere, -1 back to the rule. */
TFCC_INTERNAL int tfcc_kernels_use_vdpbf16ps(void);
TFCC_INTERNAL void tfcc_kernels_force_vdpbf16ps(int use);
/* The CPU's level-2 cache in bytes (CPUID), 0 where unknown (cpu_isa.c). */
TFCC_INTERNAL int64_t tfcc_cpu_l2_bytes(void);
TFCC_INTERNAL void tfcc_uk_avx512_bf16(const tfcc_uk_args* p);
/* Rows [0, mr) x columns [0, kc) of op(A) from `a`, its element (0, 0):
 * (i, k) at a[i * lda + k], or at a[k * lda + i] when trans_a. */
TFCC_INTERNAL void tfcc_bf16_pack_a(const float* a, int64_t lda,
                                    int32_t trans_a, int64_t mr, int64_t kc,
                                    uint16_t* dst);
/* The filter gradient's k-major A on AVX512_BF16 (conv_filter_grad.c): an A
 * tile as k pairs [kp/2][ld] dwords (dword i of a pair: row i's two bf16
 * values), read by tfcc_uk_avx512_bf16_kmajor with lda = ld (dwords), kt =
 * kp / 2, one tap. Columns [0, mr) of K values k at
 * a + toff[k / kt] + (k % kt) * ldk, k < kc. */
TFCC_INTERNAL void tfcc_uk_avx512_bf16_kmajor(const tfcc_uk_args* p);
TFCC_INTERNAL void tfcc_bf16_pack_a_taps(const float* a, int64_t ldk,
                                         const int64_t* toff, int64_t kt,
                                         int64_t kc, int64_t mr, int64_t ld,
                                         uint32_t* dst);
/* Rows [k0, k0+kc) and panels [p0, p0+np) of B (K x N as tfcc_rt_sgemm
 * takes it: pre-packed when b_packed). */
TFCC_INTERNAL void tfcc_bf16_pack_b(const float* B, int64_t ldb,
                                    int32_t trans_b, int32_t b_packed,
                                    int64_t K, int64_t N, int64_t k0,
                                    int64_t kc, int64_t p0, int64_t np,
                                    uint16_t* dst);

/* Packs rows [k0, k0+kc) and panels [p0, p0+np) of B (K x N, see
 * tfcc_rt_sgemm_pack_b) into dst as [np][kc][32], zero padded in n. */
TFCC_INTERNAL void tfcc_pack_b_block(int64_t N, const float* B, int64_t ldb,
                                     int32_t trans_b, int64_t k0, int64_t kc,
                                     int64_t p0, int64_t np, float* dst);

/* Scalar epilogue (the portable path and the references use the same math). */
TFCC_INTERNAL float tfcc_act_scalar(float v, int32_t act, float alpha,
                                    float beta);

/* NHWC pooling rows [begin, end) (row = b * oh + r) of `ctx`, a
 * tfcc_pool_args (pool2d.c); mode TFCC_POOL_*. */
typedef struct tfcc_pool_args {
  const float* x;
  const float* x_end; /* x + n * h * w * c */
  int64_t h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
  int32_t mode;
  float* y;
} tfcc_pool_args;
/* One portable source (pool_vec.inc) per ISA level. */
TFCC_INTERNAL void tfcc_pool_rows_base(void* ctx, int64_t begin, int64_t end,
                                       int32_t thread);
TFCC_INTERNAL void tfcc_pool_rows_avx2(void* ctx, int64_t begin, int64_t end,
                                       int32_t thread);

/* Max pooling that records its taps and the gradient through the record
 * (pool_indices.c): images [begin, end) of `ctx`, a tfcc_pool_indices_args.
 * The portable vector forms (pool_indices_vec.inc) per ISA level. */
typedef struct tfcc_pool_indices_args {
  const float* x;
  const float* dy;
  const int8_t* taps_in;
  int64_t h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
  int32_t positive_only;
  int disjoint; /* windows tile the input: dx written once */
  float* y;
  int8_t* taps;
  float* dx;
} tfcc_pool_indices_args;
/* dx = 0 where no window writes: the uncovered borders of disjoint windows,
 * else all of it (overlapping windows accumulate). dxb: one image's dx. */
TFCC_INTERNAL void tfcc_pool_indices_clear_dx(const tfcc_pool_indices_args* p,
                                              float* dxb);
TFCC_INTERNAL void tfcc_pool_indices_base(void* ctx, int64_t begin,
                                          int64_t end, int32_t thread);
TFCC_INTERNAL void tfcc_pool_indices_avx2(void* ctx, int64_t begin,
                                          int64_t end, int32_t thread);
TFCC_INTERNAL void tfcc_pool_grad_indices_base(void* ctx, int64_t begin,
                                               int64_t end, int32_t thread);
TFCC_INTERNAL void tfcc_pool_grad_indices_avx2(void* ctx, int64_t begin,
                                               int64_t end, int32_t thread);

/* Depthwise: one output row (b, r) of every channel. */
typedef struct tfcc_dw_args {
  const float* x;
  int64_t h, w, c;
  const float* wt;
  int64_t m, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  float* y;
} tfcc_dw_args;
TFCC_INTERNAL void tfcc_dw_row_generic(const tfcc_dw_args* p, int64_t b,
                                       int64_t r);
TFCC_INTERNAL void tfcc_dw_row_avx512(const tfcc_dw_args* p, int64_t b,
                                      int64_t r);
/* m = 1 only: one portable source (depthwise_vec.inc) per ISA level. */
TFCC_INTERNAL void tfcc_dw_row_base(const tfcc_dw_args* p, int64_t b,
                                    int64_t r);
TFCC_INTERNAL void tfcc_dw_row_avx2(const tfcc_dw_args* p, int64_t b,
                                    int64_t r);
/* AVX-512, kw = 3, m = 1, dil_w = 1, stride_w 1 or 2, kh <= 16, activation
 * none / relu / clip / leaky relu / hard swish (depthwise_avx512.c). */
TFCC_INTERNAL void tfcc_dw3_row_avx512(const tfcc_dw_args* p, int64_t b,
                                       int64_t r);
/* Flat output rows [R0, R1) (R = b * oh + r) with the same kernel, two rows
 * at a time where both are interior and sh = sw, kh = 3, dil_h = 1. */
TFCC_INTERNAL void tfcc_dw3_rows_avx512(const tfcc_dw_args* p, int64_t R0,
                                        int64_t R1);

/* uint8 depthwise convolution (depthwise_u8.c): one output row (b, r) of
 * every channel. wt [kh * kw][c] and wsum [c] are the packed weights
 * (tfcc_rt_depthwise_u8s8_pack); zx is x's zero point; the output is y_f32,
 * or y_u8 requantized with rcp = 1 / out_scale and zpo = its zero point. */
typedef struct tfcc_dwq_args {
  const uint8_t* x;
  int64_t h, w, c;
  const float* wt;
  const float* wsum;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
  float zx;
  const float* scales;
  const float* bias;
  int32_t act;
  float alpha, beta, rcp, zpo;
  float* y_f32;
  uint8_t* y_u8;
} tfcc_dwq_args;
/* One portable source (depthwise_u8_vec.inc) per ISA level. */
TFCC_INTERNAL void tfcc_dwq_row_base(const tfcc_dwq_args* p, int64_t b,
                                     int64_t r);
TFCC_INTERNAL void tfcc_dwq_row_avx2(const tfcc_dwq_args* p, int64_t b,
                                     int64_t r);
TFCC_INTERNAL void tfcc_dwq_row_avx512(const tfcc_dwq_args* p, int64_t b,
                                       int64_t r);
/* Output rows [begin, end) (R = b * oh + r) of 3x3 windows on vpdpbusd
 * (depthwise_u8_vnni.inc): uint8 output, activation none, relu or clip,
 * dilation 1, horizontal stride 1 or 2; zmm with AVX512_VNNI, ymm with
 * AVX-VNNI. */
#if TFCC_KERNELS_HAVE_AVX512
TFCC_INTERNAL void tfcc_dwq_rows_avx512vnni(const tfcc_dwq_args* p,
                                            int64_t begin, int64_t end);
#endif
#if TFCC_KERNELS_HAVE_AVX2
TFCC_INTERNAL void tfcc_dwq_rows_avxvnni(const tfcc_dwq_args* p, int64_t begin,
                                         int64_t end);
#endif
/* Channel ch of output pixel (b, r, s), in plain C (the channels after the
 * last whole vector). */
TFCC_INTERNAL void tfcc_dwq_scalar(const tfcc_dwq_args* p, int64_t b,
                                   int64_t r, int64_t s, int64_t ch);

/* Convolution with one input channel, few output channels (oc <= 8),
 * stride_w = dil_w = 1 (AVX-512 only): 16 output pixels per vector lane
 * set, oc accumulators per 16 pixels, transposed to NHWC in registers. */
#define TFCC_C1_MAX_OC 8
#define TFCC_C1_MAX_KW 16
typedef struct tfcc_c1_args {
  const float* x; /* [n][h][w] */
  int64_t h, w, kh, kw, sh, dh, pt, pl, oh, ow, oc;
  const float* wp; /* packed B: tap k, channel o at wp[k*32 + o] */
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  float* y;
} tfcc_c1_args;
TFCC_INTERNAL void tfcc_conv_c1_rows_avx512(const tfcc_c1_args* p, int64_t R0,
                                            int64_t R1);
/* The same rows from one portable source (conv_c1_vec.inc) per ISA level. */
TFCC_INTERNAL void tfcc_conv_c1_rows_base(const tfcc_c1_args* p, int64_t R0,
                                          int64_t R1);
TFCC_INTERNAL void tfcc_conv_c1_rows_avx2(const tfcc_c1_args* p, int64_t R0,
                                          int64_t R1);

/* One row of softmax / log-softmax and of layer normalization (AVX-512;
 * exp by the polynomial of the kernels' sigmoid, sums in 32 lanes). */
TFCC_INTERNAL void tfcc_softmax_row_avx512(const float* x, int64_t n,
                                           int32_t log_softmax, float* y);
TFCC_INTERNAL void tfcc_layer_norm_row_avx512(const float* x, int64_t n,
                                              const float* gamma,
                                              const float* beta, float epsilon,
                                              float* y);
/* The same rows from one portable source (rowwise_vec.inc) per ISA level. */
TFCC_INTERNAL void tfcc_softmax_row_base(const float* x, int64_t n,
                                         int32_t log_softmax, float* y);
TFCC_INTERNAL void tfcc_softmax_row_avx2(const float* x, int64_t n,
                                         int32_t log_softmax, float* y);
TFCC_INTERNAL void tfcc_layer_norm_row_base(const float* x, int64_t n,
                                            const float* gamma,
                                            const float* beta, float epsilon,
                                            float* y);
TFCC_INTERNAL void tfcc_layer_norm_row_avx2(const float* x, int64_t n,
                                            const float* gamma,
                                            const float* beta, float epsilon,
                                            float* y);

/* Winograd F(2x2, 3x3) transforms (winograd.c, winograd_avx512.c).
 * Input: src[4*a + e] points to the c channels of patch pixel (a, e) (a
 * zero row for the padding); writes V = B^T d B, point p's c values at
 * v + p * pstride. Output: point p's nr values at m + p * pstride; writes
 * the rows x cols (1..2 each) outputs A^T M A + bias (+ residual), then the
 * activation, pixel (r, s) at y + r * rs + s * cs (res: same offsets; may
 * alias y). */
TFCC_INTERNAL void tfcc_wg_in_generic(const float* const* src, int64_t c,
                                      float* v, int64_t pstride);
TFCC_INTERNAL void tfcc_wg_in_avx512(const float* const* src, int64_t c,
                                     float* v, int64_t pstride);
typedef void (*tfcc_wg_in_fn)(const float* const*, int64_t, float*, int64_t);
TFCC_INTERNAL void tfcc_wg_out_generic(const float* m, int64_t pstride,
                                       int64_t nr, const float* bias,
                                       const float* res, float* y, int64_t rs,
                                       int64_t cs, int rows, int cols,
                                       int32_t act, float alpha, float beta);
TFCC_INTERNAL void tfcc_wg_out_avx512(const float* m, int64_t pstride,
                                      int64_t nr, const float* bias,
                                      const float* res, float* y, int64_t rs,
                                      int64_t cs, int rows, int cols,
                                      int32_t act, float alpha, float beta);
typedef void (*tfcc_wg_out_fn)(const float*, int64_t, int64_t, const float*,
                               const float*, float*, int64_t, int64_t, int,
                               int, int32_t, float, float);
/* Point-major pieces (few tiles per image, see winograd.c): one point p
 * of one tile's input transform (reads 4 of the 16 src rows, same rounding
 * as tfcc_wg_in_*); acc[o * lds + k] += coef[o] * m[k] for the 4 outputs o
 * of a tile with coef[o] != 0 (coef[o] is -1, 0 or 1), k < nr; and the
 * epilogue y[k] = act(acc[k] + bias[k] (+ res[k])) for k < nr. */
TFCC_INTERNAL void tfcc_wg_in1_generic(const float* const* src, int p,
                                       int64_t c, float* v);
TFCC_INTERNAL void tfcc_wg_in1_avx512(const float* const* src, int p,
                                      int64_t c, float* v);
typedef void (*tfcc_wg_in1_fn)(const float* const*, int, int64_t, float*);
TFCC_INTERNAL void tfcc_wg_acc_generic(const float* m, int64_t nr,
                                       const float* coef, float* acc,
                                       int64_t lds);
TFCC_INTERNAL void tfcc_wg_acc_avx512(const float* m, int64_t nr,
                                      const float* coef, float* acc,
                                      int64_t lds);
typedef void (*tfcc_wg_acc_fn)(const float*, int64_t, const float*, float*,
                               int64_t);
TFCC_INTERNAL void tfcc_wg_fin_generic(const float* acc, int64_t nr,
                                       const float* bias, const float* res,
                                       float* y, int32_t act, float alpha,
                                       float beta);
TFCC_INTERNAL void tfcc_wg_fin_avx512(const float* acc, int64_t nr,
                                      const float* bias, const float* res,
                                      float* y, int32_t act, float alpha,
                                      float beta);
typedef void (*tfcc_wg_fin_fn)(const float*, int64_t, const float*,
                               const float*, float*, int32_t, float, float);
/* Rows of B^T (and of the 2x2 output's A^T): the two taps of row a and
 * whether the second is subtracted (winograd.c). */
TFCC_INTERNAL extern const int tfcc_wg_idx[4][2];
TFCC_INTERNAL extern const int tfcc_wg_sub[4];
/* The five transforms from one portable source (winograd_vec.inc) per ISA
 * level, suffixes _base and _avx2. */
#define TFCC_WG_VEC_DECLS(SUFFIX)                                              \
  TFCC_INTERNAL void tfcc_wg_in_##SUFFIX(const float* const* src, int64_t c,   \
                                         float* v, int64_t pstride);           \
  TFCC_INTERNAL void tfcc_wg_out_##SUFFIX(                                     \
      const float* m, int64_t pstride, int64_t nr, const float* bias,          \
      const float* res, float* y, int64_t rs, int64_t cs, int rows, int cols,  \
      int32_t act, float alpha, float beta);                                   \
  TFCC_INTERNAL void tfcc_wg_in1_##SUFFIX(const float* const* src, int p,      \
                                          int64_t c, float* v);                \
  TFCC_INTERNAL void tfcc_wg_acc_##SUFFIX(const float* m, int64_t nr,          \
                                          const float* coef, float* acc,       \
                                          int64_t lds);                        \
  TFCC_INTERNAL void tfcc_wg_fin_##SUFFIX(                                     \
      const float* acc, int64_t nr, const float* bias, const float* res,       \
      float* y, int32_t act, float alpha, float beta);
TFCC_WG_VEC_DECLS(base)
TFCC_WG_VEC_DECLS(avx2)

/* The epilogue's rounding (TFCC_ACT_ROUND_*): rows x cols floats at p,
 * rows ld apart, rounded in place to bf16 / f16 (round_vec.inc, one source
 * per ISA level). The drivers take the flag off the activation code they
 * pass down and round each tile, row or block of the output right after
 * the kernel writes it (still in cache). */
TFCC_INTERNAL void tfcc_round_base(float* p, int64_t ld, int64_t rows,
                                   int64_t cols, int32_t round);
TFCC_INTERNAL void tfcc_round_avx2(float* p, int64_t ld, int64_t rows,
                                   int64_t cols, int32_t round);
TFCC_INTERNAL void tfcc_round_avx512(float* p, int64_t ld, int64_t rows,
                                     int64_t cols, int32_t round);
typedef void (*tfcc_round_fn)(float*, int64_t, int64_t, int64_t, int32_t);
#define TFCC_ROUND_FOR_ISA(isa)                                                \
  TFCC_FOR_ISA(isa, tfcc_round_avx512, tfcc_round_avx2, tfcc_round_base)

/* GEMM core used by tfcc_rt_sgemm and the 1x1 convolution. */
TFCC_INTERNAL void tfcc_sgemm_impl(int64_t batch, int64_t M, int64_t N,
                                   int64_t K, const float* A, int64_t lda,
                                   int64_t stride_a, int32_t trans_a,
                                   const float* B, int64_t ldb,
                                   int64_t stride_b, int32_t trans_b,
                                   int32_t b_packed, float* C, int64_t ldc,
                                   int64_t stride_c, const float* bias,
                                   const float* residual, int32_t act,
                                   float alpha, float beta);

/* Whether a call is too small to gain from a second thread: the estimated
 * single-thread time (flops at gflops GFLOP/s plus bytes streamed at
 * ~50 GB/s) is under TFCC_SERIAL_US microseconds (a parallel call costs
 * ~1-2 us of hand-off and join, more when the worker has to be woken). */
#ifndef TFCC_SERIAL_US
#define TFCC_SERIAL_US 12.0
#endif
static inline int tfcc_small_work(double flops, double gflops, double bytes) {
  return flops / (gflops * 1e3) + bytes / 5e4 < TFCC_SERIAL_US;
}

#define TFCC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TFCC_MAX(a, b) ((a) > (b) ? (a) : (b))

/* The output columns [*s_begin, *s_end) whose kh x kw pooling windows are
 * whole 2x2 ones inside an input row of width w (s * sw - pl in
 * [0, w - 2]), taken in line by the pooling kernels; an empty range unless
 * `eligible` and the window is 2x2. */
static inline void tfcc_pool_whole_2x2(int eligible, int64_t kh, int64_t kw,
                                       int64_t w, int64_t sw, int64_t pl,
                                       int64_t ow, int64_t* s_begin,
                                       int64_t* s_end) {
  *s_begin = *s_end = 0;
  if (!eligible || kh != 2 || kw != 2 || w + pl < 2)
    return;
  *s_begin = TFCC_MIN(ow, (pl + sw - 1) / sw);
  *s_end = TFCC_MAX(*s_begin, TFCC_MIN(ow, (w - 2 + pl) / sw + 1));
}

/* What a pooling window's fold is multiplied by: 1 for max pooling,
 * 1 / (kh * kw) for TFCC_POOL_AVG_WINDOW, else 1 / the taps inside the input
 * (rows x cols of them; 0 for a window with none). */
static inline float tfcc_pool_scale(const tfcc_pool_args* p, int64_t rows,
                                    int64_t cols) {
  if (p->mode == TFCC_POOL_MAX)
    return 1.0f;
  const int64_t count =
      p->mode == TFCC_POOL_AVG_WINDOW ? p->kh * p->kw : rows * cols;
  return count > 0 ? 1.0f / (float)count : 0.0f;
}

/* The interior output columns [*lo, *hi) of a depthwise row with a 3-wide
 * window (dilation 1, stride sw, left pad pl): those whose taps
 * s * sw - pl + [0, 3) all lie inside [0, w), taken without bounds checks
 * (depthwise_avx512.c, depthwise_vec.inc). */
static inline void tfcc_dw3_interior(int64_t w, int64_t sw, int64_t pl,
                                     int64_t ow, int64_t* lo, int64_t* hi) {
  int64_t s_lo = pl > 0 ? (pl + sw - 1) / sw : 0;
  int64_t s_hi = w - 3 + pl;
  s_hi = s_hi < 0 ? 0 : s_hi / sw + 1;
  s_hi = TFCC_MIN(s_hi, ow);
  s_lo = TFCC_MIN(s_lo, ow);
  *lo = s_lo;
  *hi = TFCC_MAX(s_hi, s_lo);
}

/* The uint8 requantization with the activation folded in (the int8 GEMM's
 * and the uint8 depthwise kernel's): bounds [*lo, *hi] on t = v * rcp (rcp
 * = 1 / out_scale > 0) such that clamping t to them, rounding and adding
 * the zero point zpo equals activation act (none, relu, clip alpha..beta)
 * then requantization to [0, 255]. A positive multiply keeps the order, so
 * the activation's bounds times rcp clamp as the activation does; both
 * bounds lie in [-zpo, 255 - zpo], so even a clip below or above the
 * representable range (or crossed, alpha > beta: min(max(t, lo), hi) is
 * hi) yields an in-range value. A NaN bound is no bound. */
static inline void tfcc_u8_act_bounds(int32_t act, float alpha, float beta,
                                      float rcp, float zpo, float* lo,
                                      float* hi) {
  const float lowest = -zpo, highest = 255.0f - zpo;
  float l = lowest, h = highest;
  if (act == TFCC_ACT_RELU || act == TFCC_ACT_CLIP) {
    const float a = act == TFCC_ACT_RELU ? 0.0f : alpha * rcp;
    l = a > l ? a : l;
    l = l < highest ? l : highest;
    if (act == TFCC_ACT_CLIP) {
      const float b = beta * rcp;
      h = b < h ? b : h;
      h = h > lowest ? h : lowest;
    }
  }
  *lo = l;
  *hi = h;
}

#endif /* TFCC_KERNELS_INTERNAL_H_ */
