/* depthwise_u8.c - the uint8 depthwise convolution (tfcc_kernels.def):
 * u8 input, int8 weights, exact accumulation, the int8 GEMM's float
 * epilogue and requantization.
 *
 * The weights are packed once as floats with each channel's weight sum
 * (tfcc_rt_depthwise_u8s8_pack), and the taps accumulate in float: every
 * product (x - z) * w and every partial sum is an integer of magnitude below
 * 2^24 (TFCC_RT_DWQ_MAX_TAPS), so float sums are exact and equal the int32
 * ones, whatever the order, and each tap is one widening load and one
 * multiply-add, as in the float kernel. (The packing is in pack.c, which the
 * compiler links to pack constant weights.) Rows of the output are the tasks;
 * each row is one function of the ISA level (depthwise_u8_vec.inc), except
 * where the CPU has VNNI: 3x3 windows with a uint8 output then take the
 * integer kernel (depthwise_u8_vnni.inc), which multiplies a window
 * column's three taps in one vpdpbusd. */
#include "kernels_internal.h"
#include "qgemm_internal.h"

/* graph.quantize of v, as the int8 GEMM's epilogue (qgemm_vec.inc) computes
 * it: times the reciprocal, rounded half to even, plus the zero point,
 * saturated; a NaN to 0. Clamped to [-zpo, 255 - zpo] before the rounding,
 * which equals saturating after it (and keeps the rounding by 1.5 * 2^23
 * exact), as depthwise_u8_vec.inc computes it. */
static uint8_t dwq_quantize(float v, float rcp, float zpo) {
  float t = v * rcp;
  t = t > -zpo ? t : -zpo;
  t = t < 255.0f - zpo ? t : 255.0f - zpo;
  t = (t + 12582912.0f) - 12582912.0f;
  t = t + zpo;
  return (uint8_t)(int32_t)t;
}

void tfcc_dwq_scalar(const tfcc_dwq_args* p, int64_t b, int64_t r, int64_t s,
                     int64_t ch) {
  const int64_t C = p->c;
  const int64_t y0 = r * p->sh - p->pt, x0 = s * p->sw - p->pl;
  float acc = 0.0f;
  for (int64_t i = 0; i < p->kh; ++i) {
    const int64_t yy = y0 + i * p->dh;
    if (yy < 0 || yy >= p->h)
      continue;
    for (int64_t j = 0; j < p->kw; ++j) {
      const int64_t xx = x0 + j * p->dw;
      if (xx < 0 || xx >= p->w)
        continue;
      acc += ((float)p->x[((b * p->h + yy) * p->w + xx) * C + ch] - p->zx) *
             p->wt[(i * p->kw + j) * C + ch];
    }
  }
  float v = acc * p->scales[ch];
  if (p->bias)
    v = v + p->bias[ch];
  v = tfcc_act_scalar(v, p->act, p->alpha, p->beta);
  const int64_t o = ((b * p->oh + r) * p->ow + s) * C + ch;
  if (p->y_u8)
    p->y_u8[o] = dwq_quantize(v, p->rcp, p->zpo);
  else
    p->y_f32[o] = v;
}

typedef struct dwq_ctx {
  tfcc_dwq_args a;
  void (*row)(const tfcc_dwq_args*, int64_t, int64_t);
  /* A kernel taking a range of rows at once, or NULL. */
  void (*rows)(const tfcc_dwq_args*, int64_t, int64_t);
} dwq_ctx;

/* Output rows [begin, end) (R = b * oh + r). */
static void dwq_task(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  const dwq_ctx* d = (const dwq_ctx*)ctx;
  (void)thread;
  if (d->rows) {
    d->rows(&d->a, begin, end);
    return;
  }
  for (int64_t R = begin; R < end; ++R)
    d->row(&d->a, R / d->a.oh, R % d->a.oh);
}

static void dwq_run(const uint8_t* x, int64_t n, int64_t h, int64_t w,
                    int64_t c, int32_t x_zero_point,
                    const float* packed_weights, int64_t kh, int64_t kw,
                    int64_t stride_h, int64_t stride_w, int64_t dil_h,
                    int64_t dil_w, int64_t pad_top, int64_t pad_left,
                    int64_t oh, int64_t ow, const float* scales,
                    const float* bias, int32_t activation, float alpha,
                    float beta, float out_scale, int32_t out_zero_point,
                    float* y_f32, uint8_t* y_u8) {
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0 || kh <= 0 || kw <= 0)
    return;
  dwq_ctx d;
  d.a.x = x;
  d.a.h = h;
  d.a.w = w;
  d.a.c = c;
  d.a.wt = packed_weights;
  d.a.wsum = packed_weights + kh * kw * c;
  d.a.kh = kh;
  d.a.kw = kw;
  d.a.sh = stride_h;
  d.a.sw = stride_w;
  d.a.dh = dil_h;
  d.a.dw = dil_w;
  d.a.pt = pad_top;
  d.a.pl = pad_left;
  d.a.oh = oh;
  d.a.ow = ow;
  d.a.zx = (float)x_zero_point;
  d.a.scales = scales;
  d.a.bias = bias;
  d.a.act = activation;
  d.a.alpha = alpha;
  d.a.beta = beta;
  d.a.rcp = y_u8 ? 1.0f / out_scale : 0.0f;
  d.a.zpo = (float)out_zero_point;
  d.a.y_f32 = y_f32;
  d.a.y_u8 = y_u8;
  const int isa = tfcc_kernels_isa();
  d.row = TFCC_FOR_ISA(isa, tfcc_dwq_row_avx512, tfcc_dwq_row_avx2,
                       tfcc_dwq_row_base);
  d.rows = NULL;
  /* MobileNet's windows with VNNI: one vpdpbusd per window column. */
  const int vnni_window =
      y_u8 && kh == 3 && kw == 3 && dil_h == 1 && dil_w == 1 &&
      (stride_w == 1 || stride_w == 2) &&
      (activation == TFCC_ACT_NONE || activation == TFCC_ACT_RELU ||
       activation == TFCC_ACT_CLIP);
  (void)vnni_window; /* no VNNI kernels off x86-64 */
#if TFCC_KERNELS_HAVE_AVX512
  if (vnni_window && isa == TFCC_ISA_AVX512 && tfcc_kernels_has_avx512_vnni())
    d.rows = tfcc_dwq_rows_avx512vnni;
#endif
#if TFCC_KERNELS_HAVE_AVX2
  if (vnni_window && !d.rows && tfcc_kernels_has_avx_vnni())
    d.rows = tfcc_dwq_rows_avxvnni;
#endif
  const double flops =
      2.0 * (double)(n * oh * ow) * (double)c * (double)(kh * kw);
  const double bytes =
      (double)(n * h * w * c) + (y_u8 ? 1.0 : 4.0) * (double)(n * oh * ow * c);
  const int32_t threads = tfcc_rt_pool_num_threads(tfcc_rt_get_current_pool());
  if (threads <= 1 || n * oh == 1 || tfcc_small_work(flops, 40.0, bytes)) {
    dwq_task(&d, 0, n * oh, 0);
    return;
  }
  tfcc_rt_parallel_for(n * oh, dwq_task, &d);
}

void tfcc_rt_depthwise_conv2d_u8s8_f32(
    const uint8_t* x, int64_t n, int64_t h, int64_t w, int64_t c,
    int32_t x_zero_point, const float* packed_weights, int64_t kh, int64_t kw,
    int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w,
    int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow,
    const float* scales, const float* bias, int32_t activation, float alpha,
    float beta, float* y) {
  dwq_run(x, n, h, w, c, x_zero_point, packed_weights, kh, kw, stride_h,
          stride_w, dil_h, dil_w, pad_top, pad_left, oh, ow, scales, bias,
          activation, alpha, beta, 1.0f, 0, y, NULL);
}

void tfcc_rt_depthwise_conv2d_u8s8_u8(
    const uint8_t* x, int64_t n, int64_t h, int64_t w, int64_t c,
    int32_t x_zero_point, const float* packed_weights, int64_t kh, int64_t kw,
    int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w,
    int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow,
    const float* scales, const float* bias, int32_t activation, float alpha,
    float beta, float out_scale, int32_t out_zero_point, uint8_t* y) {
  dwq_run(x, n, h, w, c, x_zero_point, packed_weights, kh, kw, stride_h,
          stride_w, dil_h, dil_w, pad_top, pad_left, oh, ow, scales, bias,
          activation, alpha, beta, out_scale, out_zero_point, NULL, y);
}
