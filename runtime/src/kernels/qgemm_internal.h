/* qgemm_internal.h - the int8 GEMM's micro-kernels and epilogue, shared by
 * qgemm.c and the per-ISA files (qgemm_avx2.c, qgemm_avx512vnni.c). */
#ifndef TFCC_QGEMM_INTERNAL_H_
#define TFCC_QGEMM_INTERNAL_H_

#include "kernels_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the packed int8 weights store their column sums little endian"
#endif

#define TFCC_QMR 8 /* rows of a micro-kernel tile */
#define TFCC_QNP 2 /* panels of 16 columns per micro-kernel call */
#define TFCC_QNR_TILE (TFCC_QNP * TFCC_RT_QGEMM_NR)
/* Panels of the AVX512_VNNI fused kernel's wide tiles (8 rows x 3 panels,
 * 24 zmm accumulators): the driver gives it np up to this, with an
 * epilogue and no pooling; every other call has np <= TFCC_QNP. */
#define TFCC_QNP_WIDE 3

/* acc[i * TFCC_QNR_TILE + j] = sum over k < K of A(i, k) * B[k][j]
 * for i < mr (1..TFCC_QMR) and the np (1..TFCC_QNP; 1..TFCC_QNP_WIDE for
 * tfcc_quk_avx512vnni_fused) panels from b (packed,
 * `(K + 3) / 4` groups per panel). A(i, k) is a[i * lda + k], or, where
 * rows is not NULL (the kernels qgemm.c's quk_reads_segments names), row
 * i's K bytes in nseg segments of seg_len bytes (a multiple of 4; nseg *
 * seg_len = K) seg_stride apart from rows[i]: A(i, s * seg_len + t) =
 * rows[i][s * seg_stride + t], a convolution's kernel rows read in place
 * from the image (a and lda unused). Never reads A past k = K - 1. */
typedef struct tfcc_quk_args {
  const uint8_t* a;
  int64_t lda, mr, K;
  const int8_t* b;
  int64_t np;
  int32_t* acc;
  int64_t nseg, seg_len, seg_stride;
  const uint8_t* const* rows;
  /* The fused kernels only (qgemm.c's pooled convolution): 1 to take the
   * largest sum of each 2 x 2 window of the tile's rows (mr 4 or 8: row
   * dr * mr / 2 + u is pixel (dr, u) of window u / 2) and apply the
   * epilogue to those, rows m0, m0 + 1 of the output; 0 otherwise. */
  int32_t pool2x2;
} tfcc_quk_args;
typedef void (*tfcc_quk_fn)(const tfcc_quk_args* p);

TFCC_INTERNAL void tfcc_quk_base(const tfcc_quk_args* p);
TFCC_INTERNAL void tfcc_quk_avx2(const tfcc_quk_args* p);
TFCC_INTERNAL void tfcc_quk_avx512vnni(const tfcc_quk_args* p);
/* ---- folded uint8 epilogue ------------------------------------------------
 * For uint8 outputs without a residual and with no activation, relu or
 * clip, the AVX2 and VNNI kernels fold the epilogue's float steps into
 * per-column constants:
 *   t = float(acc - zp * colsum) * (scale / out_scale)
 *       + (bias / out_scale + out_zero_point)
 * one fma (the zero point's term starts the accumulators), then one clamp
 * to [lo, hi]: the activation's bounds times 1 / out_scale (multiplying by
 * a positive number keeps the order, so clamping after it is clamping
 * before it) plus the zero point, within [0, 255]; the conversion rounds
 * half to even. A NaN meets vmaxps' second operand, lo: as the unfolded
 * form's activation, or 0 for none. Besides the reciprocal, the folded
 * constants round once more, so a value within a few float steps of a .5
 * boundary may land one step off (tfcc_kernels.def). */
typedef struct tfcc_q_folded {
  float inv, zpo, lo, hi;
} tfcc_q_folded;

/* What tfcc_rt_qgemm_u8s8's epilogue needs (see tfcc_kernels.def). */
typedef struct tfcc_q_epilogue_args {
  int64_t N;
  const uint8_t* colsums; /* int32 little endian per column; NULL: K = 0 */
  int32_t a_zero_point;
  const float* scales;
  const float* bias;
  const float* res;
  int32_t act;
  float alpha, beta;
  float out_scale;
  int32_t out_zero_point;
  float* y_f32;
  uint8_t* y_u8;
  /* Whether the AVX2 and VNNI kernels fold the epilogue, and its constants
   * (set by the driver, qgemm.c). */
  int folded;
  tfcc_q_folded fold;
} tfcc_q_epilogue_args;

/* The VNNI kernel with the epilogue fused: rows m0 + [0, mr), columns
 * n0 + [0, nr) (nr <= 16 * np) of the outputs, written directly, for the
 * activations tfcc_q_fused_supports accepts. */
TFCC_INTERNAL void tfcc_quk_avx512vnni_fused(const tfcc_quk_args* p,
                                             const tfcc_q_epilogue_args* ep,
                                             int64_t m0, int64_t n0,
                                             int64_t nr);
/* The same for the AVX2 kernel (its epilogue in registers after the sums). */
TFCC_INTERNAL void tfcc_quk_avx2_fused(const tfcc_quk_args* p,
                                       const tfcc_q_epilogue_args* ep,
                                       int64_t m0, int64_t n0, int64_t nr);
/* The AVX2 kernel's fused epilogue on a tile's dot products (row stride
 * TFCC_QNR_TILE), and its folded form on the dot products less the zero
 * point's term (qgemm_avx2.c; also used by qgemm_avxvnni.c). */
/* The AVX2 fused kernels' pool2x2 (tfcc_quk_args) on p's tile of sums
 * (row stride TFCC_QNR_TILE): window w's largest sums into row w. Returns
 * the rows the epilogue takes: mr / 4 when p->pool2x2, else mr. */
TFCC_INTERNAL int64_t tfcc_q_avx2_pool2x2(const tfcc_quk_args* p,
                                          int32_t* sums);
TFCC_INTERNAL void tfcc_q_avx2_epilogue_tile(const tfcc_q_epilogue_args* ep,
                                             const int32_t* sums, int64_t mr,
                                             int64_t m0, int64_t n0,
                                             int64_t nr);
TFCC_INTERNAL void
tfcc_q_avx2_epilogue_tile_folded(const tfcc_q_epilogue_args* ep,
                                 const int32_t* sums, int64_t mr, int64_t m0,
                                 int64_t n0, int64_t nr);
/* The AVX2 kernel's vpmaddubsw form (qgemm_avx2.c), exact only for weights
 * packed with their pairs fitting (tfcc_q_pairs_fit), and fused; the same
 * source with AVX-VNNI's vpdpbusd (qgemm_avxvnni.c), exact for any weights,
 * and fused. */
TFCC_INTERNAL void tfcc_quk_avx2_pairs(const tfcc_quk_args* p);
TFCC_INTERNAL void tfcc_quk_avx2_pairs_fused(const tfcc_quk_args* p,
                                             const tfcc_q_epilogue_args* ep,
                                             int64_t m0, int64_t n0,
                                             int64_t nr);
TFCC_INTERNAL void tfcc_quk_avxvnni(const tfcc_quk_args* p);
TFCC_INTERNAL void tfcc_quk_avxvnni_fused(const tfcc_quk_args* p,
                                          const tfcc_q_epilogue_args* ep,
                                          int64_t m0, int64_t n0, int64_t nr);
/* pack.c's flag, the last int32 of B packed for K x N (K, N > 0): every
 * pair of weights vpmaddubsw adds fits an int16 for any A. */
static inline int tfcc_q_pairs_fit(const int8_t* packed, int64_t K, int64_t N) {
  return packed[tfcc_rt_qgemm_packed_b_size(K, N) - (int64_t)sizeof(int32_t)] ==
         1;
}
/* The activations the fused forms apply in registers (the others run the
 * portable epilogue after the micro-kernel). */
static inline int tfcc_q_fused_supports(int32_t act) {
  return act == TFCC_ACT_NONE || act == TFCC_ACT_RELU || act == TFCC_ACT_CLIP ||
         act == TFCC_ACT_LEAKY_RELU;
}

/* The im2col rows of `blocks` x 4 consecutive pixels (stride 1) of a 3x3
 * window on one channel, kernel rows r0, r1, r2 at the first pixel's window:
 * 12 bytes a pixel (the 9 taps, 3 zeros) to dst. Reads 8 bytes from each of
 * r0 + 4 * b, r1 + 4 * b, r2 + 4 * b for block b (qgemm_avx2.c: pshufb). */
TFCC_INTERNAL void tfcc_q_im2col_3x3c1_avx2(const uint8_t* r0,
                                            const uint8_t* r1,
                                            const uint8_t* r2, int64_t blocks,
                                            uint8_t* dst);

/* AVX512_VNNI (vpdpbusd on zmm) on top of the AVX-512 level (cpu_isa.c). */
TFCC_INTERNAL int tfcc_kernels_has_avx512_vnni(void);
/* AVX-VNNI (vpdpbusd on ymm, VEX) at the AVX2 level or above (cpu_isa.c). */
TFCC_INTERNAL int tfcc_kernels_has_avx_vnni(void);
/* Testing hook: 0 turns tfcc_kernels_has_avx_vnni off (the AVX2 kernels
 * without it, on a CPU that has it), -1 back to CPUID. */
TFCC_INTERNAL void tfcc_kernels_force_avx_vnni(int allow);

/* Row m, columns [n0, n0 + nr) (nr <= TFCC_QNR_TILE) from their int32 dot
 * products acc[0, nr). One portable source (qgemm_vec.inc) per level. */
#define TFCC_Q_EPILOGUE_DECL(SUFFIX)                                           \
  TFCC_INTERNAL void tfcc_q_epilogue_##SUFFIX(const tfcc_q_epilogue_args* p,   \
                                              const int32_t* acc, int64_t m,   \
                                              int64_t n0, int64_t nr);
TFCC_Q_EPILOGUE_DECL(base)
TFCC_Q_EPILOGUE_DECL(avx2)
TFCC_Q_EPILOGUE_DECL(avx512)

#endif /* TFCC_QGEMM_INTERNAL_H_ */
