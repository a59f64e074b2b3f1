//===- QuantizedKernelsTest.cpp - the runtime's int8 kernels --------------===//
//
// tfcc_rt_qgemm_u8s8_f32 / _u8, tfcc_rt_qgemm_pack_b, tfcc_rt_im2col_u8 and the
// uint8 depthwise convolution (tfcc_rt_depthwise_conv2d_u8s8_*) against
// definitions written here from tfcc_kernels.def: the dot products in int64,
// the epilogue in double, the requantization with std::nearbyint (round half
// to even). Every ISA level and 1 and 2 threads; every micro-kernel the
// archive carries against the same definition.
//
//===----------------------------------------------------------------------===//

#include "tfcc/tfcc_kernels.h"
#include "tfcc/tfcc_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "qgemm_internal.h"
}
#include "KernelTestIsa.h"

namespace {

using tfcc_test::haveIsa;
using tfcc_test::kIsaNames;

std::vector<uint8_t> randomU8(size_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> d(0, 255);
  std::vector<uint8_t> v(n);
  for (uint8_t &x : v)
    x = static_cast<uint8_t>(d(rng));
  return v;
}

// Weights over the whole int8 range, extremes included (-128 too, which
// symmetric quantization never makes but an ONNX file may hold), or within
// [-bound, bound].
std::vector<int8_t> randomI8(size_t n, std::mt19937 &rng, int bound = 128) {
  std::uniform_int_distribution<int> d(-bound, std::min(bound, 127));
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = static_cast<int8_t>(d(rng));
  return v;
}

std::vector<float> randomF32(size_t n, std::mt19937 &rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

// The activations' parameters in every case: clip to [-0.5, 6], leaky
// relu's slope -0.5.
constexpr float kAlpha = -0.5f, kBeta = 6.0f;

struct QGemmCase {
  int64_t M, N, K;
  int32_t aZeroPoint;
  bool bias, residual;
  int32_t act;
  bool quantizeOutput;
  int weightBound = 128; // weights in [-weightBound, weightBound]
};

// The activations of the definitions, in double.
double activation(double v, int32_t act) {
  switch (act) {
  case TFCC_ACT_RELU:
    return v > 0 ? v : 0;
  case TFCC_ACT_CLIP:
    return std::min(std::max(v, double(kAlpha)), double(kBeta));
  case TFCC_ACT_LEAKY_RELU:
    return v > 0 ? v : kAlpha * v;
  case TFCC_ACT_HARD_SWISH:
    return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
  default:
    return v;
  }
}

// Whether `got` is v requantized (scale, zero point): round(v / scale) +
// zero point by nearbyint (the default rounding mode rounds half to even),
// saturated; within 1 of it where v / scale is within 1e-3 of a .5 boundary
// (a float rounding can move it across), equal elsewhere.
::testing::AssertionResult isRequantized(uint8_t got, double v, float scale,
                                         int32_t zeroPoint) {
  double q = std::nearbyint(v / scale) + zeroPoint;
  q = std::min(std::max(q, 0.0), 255.0);
  double frac = std::fabs(v / scale - std::trunc(v / scale));
  bool nearHalf = std::fabs(frac - 0.5) < 1e-3;
  if (std::fabs(double(got) - q) <= (nearHalf ? 1.0 : 0.0))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << int(got) << ", want " << q << " (v " << v << ")";
}

// The definition: acc in int64, v in double.
double expectedValue(const QGemmCase &c, const std::vector<uint8_t> &A,
                     const std::vector<int8_t> &B,
                     const std::vector<float> &scales,
                     const std::vector<float> &bias,
                     const std::vector<float> &res, int64_t m, int64_t n) {
  int64_t acc = 0;
  for (int64_t k = 0; k < c.K; ++k)
    acc += (int64_t(A[m * c.K + k]) - c.aZeroPoint) * int64_t(B[k * c.N + n]);
  double v = double(acc) * scales[n];
  if (c.bias)
    v += bias[n];
  if (c.residual)
    v += res[m * c.N + n];
  return activation(v, c.act);
}

// Runs one case on the current ISA / pool and checks every output: float
// outputs within 1e-5 relative of the double definition (the float
// multiply-add rounds), uint8 outputs within 1 of round(v / scale) + zp
// (a float rounding can move a value across a .5 boundary), and equal to it
// away from the boundaries.
void checkQGemm(const QGemmCase &c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> A = randomU8(c.M * c.K, rng);
  std::vector<int8_t> B = randomI8(c.K * c.N, rng, c.weightBound);
  std::vector<float> scales = randomF32(c.N, rng, 1e-4f, 2e-3f);
  std::vector<float> bias = randomF32(c.N, rng, -2.0f, 2.0f);
  std::vector<float> res = randomF32(c.M * c.N, rng, -1.0f, 1.0f);
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(c.K, c.N));
  tfcc_rt_qgemm_pack_b(c.K, c.N, B.data(), packed.data());
  const float outScale = 0.02f;
  const int32_t outZeroPoint = 100;
  std::vector<float> yf(c.M * c.N, -7.0f);
  std::vector<uint8_t> yq(c.M * c.N, 7);
  if (c.quantizeOutput)
    tfcc_rt_qgemm_u8s8_u8(c.M, c.N, c.K, A.data(), c.K, c.aZeroPoint,
                          packed.data(), scales.data(),
                          c.bias ? bias.data() : nullptr,
                          c.residual ? res.data() : nullptr, c.act, kAlpha,
                          kBeta, outScale, outZeroPoint, yq.data());
  else
    tfcc_rt_qgemm_u8s8_f32(c.M, c.N, c.K, A.data(), c.K, c.aZeroPoint,
                           packed.data(), scales.data(),
                           c.bias ? bias.data() : nullptr,
                           c.residual ? res.data() : nullptr, c.act, kAlpha,
                           kBeta, yf.data());
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double want = expectedValue(c, A, B, scales, bias, res, m, n);
      int64_t i = m * c.N + n;
      if (!c.quantizeOutput) {
        ASSERT_NEAR(yf[i], want, 1e-5 * (std::fabs(want) + 1.0))
            << "M " << c.M << " N " << c.N << " K " << c.K << " at (" << m
            << ", " << n << ")";
        continue;
      }
      ASSERT_TRUE(isRequantized(yq[i], want, outScale, outZeroPoint))
          << "M " << c.M << " N " << c.N << " K " << c.K << " at (" << m << ", "
          << n << ")";
    }
}

// The parameter value of the AVX2 level with AVX-VNNI turned off.
constexpr int kAvx2WithoutAvxVnni = 3;

class QuantizedKernelsTest
    : public ::testing::TestWithParam<std::tuple<int, int>> {
protected:
  void SetUp() override {
    isa_ = std::get<0>(GetParam());
    const bool noAvxVnni = isa_ == kAvx2WithoutAvxVnni;
    if (noAvxVnni)
      isa_ = TFCC_ISA_AVX2;
    if (!haveIsa(isa_))
      GTEST_SKIP() << "this CPU lacks " << kIsaNames[isa_];
    tfcc_rt_kernels_force_isa(isa_);
    if (noAvxVnni) {
      if (!tfcc_kernels_has_avx_vnni())
        GTEST_SKIP() << "this CPU lacks AVX-VNNI: the avx2 cases ran these";
      tfcc_kernels_force_avx_vnni(0);
    }
    pool_ = tfcc_rt_pool_create(std::get<1>(GetParam()));
    ASSERT_NE(pool_, nullptr);
    tfcc_rt_set_current_pool(pool_);
  }
  void TearDown() override {
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool_);
    pool_ = nullptr;
    tfcc_rt_kernels_force_isa(-1);
    tfcc_kernels_force_avx_vnni(-1);
  }
  int isa_ = 0;
  tfcc_rt_pool *pool_ = nullptr;
};

// Tile and panel edges (M around 8, N around 16 and 32, K around 4),
// zero points from 0 to 255, bias and residual on and off, every
// activation (the fused VNNI epilogue's and the others), both outputs.
TEST_P(QuantizedKernelsTest, QGemmEdgeShapes) {
  const int32_t activations[] = {TFCC_ACT_NONE, TFCC_ACT_RELU, TFCC_ACT_CLIP,
                                 TFCC_ACT_LEAKY_RELU, TFCC_ACT_HARD_SWISH};
  uint32_t seed = 1;
  for (int64_t M : {1, 7, 8, 9, 17})
    for (int64_t N : {1, 15, 16, 17, 33, 64})
      for (int64_t K : {1, 3, 4, 5, 27, 64})
        for (bool q : {false, true}) {
          checkQGemm({M, N, K, int32_t(seed * 37 % 256), seed % 2 == 0,
                      seed % 3 == 0, activations[seed % 5], q},
                     seed);
          ++seed;
        }
}

// Sizes of real layers: many tasks and several B blocks (K * N above the
// driver's L2 block: half the CPU's L2, 256 KiB to 4 MiB; the last shape
// is above 4 MiB), clip activation, requantized.
TEST_P(QuantizedKernelsTest, QGemmLayerShapes) {
  checkQGemm({196, 256, 1152, 3, true, false, TFCC_ACT_CLIP, true}, 11);
  checkQGemm({49, 512, 4608, 0, true, true, TFCC_ACT_RELU, false}, 12);
  checkQGemm({9, 1040, 4608, 5, true, false, TFCC_ACT_NONE, true}, 17);
  checkQGemm({1, 1000, 512, 128, true, false, TFCC_ACT_NONE, false}, 13);
  checkQGemm({3136, 24, 144, 17, false, false, TFCC_ACT_NONE, true}, 14);
}

// Weights whose pairs fit an int16 (7-bit weights and up to |b0| + |b1| =
// 128: the AVX2 level's vpmaddubsw form) with A up to 255, where a
// saturating int16 would be off: the same shapes as above.
TEST_P(QuantizedKernelsTest, QGemmPairsFitWeights) {
  const int32_t activations[] = {TFCC_ACT_NONE, TFCC_ACT_RELU, TFCC_ACT_CLIP,
                                 TFCC_ACT_LEAKY_RELU, TFCC_ACT_HARD_SWISH};
  uint32_t seed = 500;
  for (int64_t M : {1, 8, 9, 17})
    for (int64_t N : {1, 16, 17, 33})
      for (int64_t K : {1, 3, 4, 5, 27, 64})
        for (bool q : {false, true}) {
          checkQGemm({M, N, K, int32_t(seed * 37 % 256), seed % 2 == 0,
                      seed % 3 == 0, activations[seed % 5], q, 64},
                     seed);
          ++seed;
        }
  checkQGemm({196, 256, 1152, 3, true, false, TFCC_ACT_CLIP, true, 64}, 15);
  checkQGemm({3136, 24, 144, 17, false, false, TFCC_ACT_NONE, false, 64}, 16);
}

// One pair over the bound makes the whole matrix take the widening form:
// A = 255 everywhere and a column of 127s, whose pair sums (64770) a
// saturating int16 would clip, beside columns that fit.
TEST_P(QuantizedKernelsTest, QGemmOnePairOverTheBound) {
  const int64_t M = 9, N = 20, K = 13;
  std::vector<uint8_t> A(M * K, 255);
  std::vector<int8_t> B(K * N, 64);
  for (int64_t k = 0; k < K; ++k)
    B[k * N + 17] = 127;
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(K, N));
  tfcc_rt_qgemm_pack_b(K, N, B.data(), packed.data());
  std::vector<float> scales(N, 1.0f), y(M * N);
  tfcc_rt_qgemm_u8s8_f32(M, N, K, A.data(), K, 0, packed.data(), scales.data(),
                         nullptr, nullptr, TFCC_ACT_NONE, 0, 0, y.data());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      ASSERT_EQ(y[m * N + n], 255.0f * K * (n == 17 ? 127 : 64))
          << "at (" << m << ", " << n << ")";
}

// K = 0: the products are empty, the output is the epilogue of 0.
TEST_P(QuantizedKernelsTest, QGemmZeroK) {
  std::vector<float> scales(5, 1.0f), bias = {1, -2, 3, -4, 5}, y(10);
  tfcc_rt_qgemm_u8s8_f32(2, 5, 0, nullptr, 0, 9, nullptr, scales.data(),
                         bias.data(), nullptr, TFCC_ACT_RELU, 0, 0, y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 0, 3, 0, 5, 1, 0, 3, 0, 5}));
}

// Requantization: half-way values go to the even neighbour, saturation at
// both ends, a NaN to 0 (graph.quantize's contract). One row, K = 1,
// A = 1 + zero point 0, B = 1, so v = scales[n] + bias[n].
TEST_P(QuantizedKernelsTest, QGemmRequantizes) {
  std::vector<float> bias = {0.5f, 1.5f, 2.5f, -0.5f, 1000.0f, -1000.0f,
                             NAN, 254.5f};
  const int64_t N = int64_t(bias.size());
  std::vector<int8_t> B(N, 1);
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(1, N));
  tfcc_rt_qgemm_pack_b(1, N, B.data(), packed.data());
  std::vector<float> scales(N, 0.0f);
  uint8_t a = 1;
  std::vector<uint8_t> y(N);
  tfcc_rt_qgemm_u8s8_u8(1, N, 1, &a, 1, 0, packed.data(), scales.data(),
                        bias.data(), nullptr, TFCC_ACT_NONE, 0, 0, 1.0f, 0,
                        y.data());
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 2, 2, 0, 255, 0, 0, 254}));
}

// Clip bounds beyond the requantized range, inside it, and crossed (alpha >
// beta: every value is beta), uint8 outputs without residual (where the AVX2
// level folds the clip into the requantization's clamp), whole 32-column
// tiles and a partial one, 7-bit and full-range weights.
TEST_P(QuantizedKernelsTest, QGemmClipBoundsRequantized) {
  const int64_t M = 11, N = 41, K = 21;
  const float bounds[][2] = {{0.0f, 6.0f},   {-1e30f, 1e30f}, {2.0f, 1.0f},
                             {-3.0f, -2.0f}, {-0.3f, 0.25f},  {7.0f, 9.0f}};
  std::mt19937 rng(21);
  std::vector<uint8_t> A = randomU8(M * K, rng);
  std::vector<float> scales = randomF32(N, rng, 1e-4f, 2e-3f);
  std::vector<float> bias = randomF32(N, rng, -2.0f, 2.0f);
  for (int bound : {64, 128}) {
    std::vector<int8_t> B = randomI8(K * N, rng, bound);
    std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(K, N));
    tfcc_rt_qgemm_pack_b(K, N, B.data(), packed.data());
    for (const auto &ab : bounds)
      for (float outScale : {0.02f, 0.0005f}) {
        const int32_t zp = 37, outZp = 140;
        std::vector<uint8_t> y(M * N, 7);
        tfcc_rt_qgemm_u8s8_u8(
            M, N, K, A.data(), K, zp, packed.data(), scales.data(), bias.data(),
            nullptr, TFCC_ACT_CLIP, ab[0], ab[1], outScale, outZp, y.data());
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += (int64_t(A[m * K + k]) - zp) * int64_t(B[k * N + n]);
            double v = double(acc) * scales[n] + bias[n];
            v = std::min(std::max(v, double(ab[0])), double(ab[1]));
            ASSERT_TRUE(isRequantized(y[m * N + n], v, outScale, outZp))
                << "clip [" << ab[0] << ", " << ab[1] << "] scale " << outScale
                << " weights " << bound << " at (" << m << ", " << n << ")";
          }
      }
  }
}

// The uint8 im2col against its definition: padding holds pad_value, the
// row tail up to ldc zeros. Geometries: strided and dilated with padding
// (taps one by one), unit dilation (a kernel row's taps copied at once,
// wide and thin inputs).
void checkIm2col(int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
                 int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                 int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                 int64_t extraTail = 4) {
  std::mt19937 rng(5);
  const int64_t oh = (h + pt + pb - (dh * (kh - 1) + 1)) / sh + 1;
  const int64_t ow = (w + pl + pr - (dw * (kw - 1) + 1)) / sw + 1;
  const int64_t K = kh * kw * c, ldc = (K + 3) / 4 * 4 + extraTail;
  std::vector<uint8_t> x = randomU8(n * h * w * c, rng);
  std::vector<uint8_t> cols(n * oh * ow * ldc, 99);
  tfcc_rt_im2col_u8(x.data(), n, h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, oh,
                    ow, 77, ldc, cols.data());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t s = 0; s < ow; ++s) {
        const uint8_t *row = cols.data() + ((b * oh + r) * ow + s) * ldc;
        int64_t i = 0;
        for (int64_t ki = 0; ki < kh; ++ki)
          for (int64_t kj = 0; kj < kw; ++kj)
            for (int64_t ch = 0; ch < c; ++ch, ++i) {
              int64_t y = r * sh - pt + ki * dh, xx = s * sw - pl + kj * dw;
              uint8_t want = (y < 0 || y >= h || xx < 0 || xx >= w)
                                 ? 77
                                 : x[((b * h + y) * w + xx) * c + ch];
              ASSERT_EQ(row[i], want) << "pixel (" << b << ", " << r << ", "
                                      << s << ") element " << i;
            }
        for (; i < ldc; ++i)
          ASSERT_EQ(row[i], 0) << "row tail, element " << i;
      }
}

TEST_P(QuantizedKernelsTest, Im2col) {
  checkIm2col(2, 7, 6, 3, 3, 2, 2, 1, 1, 2, 1, 1, 1, 1);
  checkIm2col(1, 9, 9, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0);
  checkIm2col(2, 8, 8, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1);
  checkIm2col(1, 11, 10, 3, 7, 7, 2, 2, 1, 1, 3, 3, 2, 2);
  // Narrow kernel rows (at most 4 bytes: 4-byte moves whose spare bytes the
  // next row or the tail overwrites), rows padded only to a multiple of 4:
  // one channel 3x3 with padding, 4x3 strided (the last kernel row copied
  // exactly, the row has no spare bytes; without padding, the last pixel's
  // last kernel row ends before the image does), two channels 3x2; two
  // images, so reads near the first image's end cross into the second.
  checkIm2col(2, 9, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0);
  checkIm2col(2, 7, 9, 1, 4, 3, 1, 2, 1, 1, 1, 0, 2, 1, 0);
  checkIm2col(2, 7, 10, 1, 4, 3, 1, 2, 1, 1, 0, 0, 0, 0, 0);
  checkIm2col(2, 6, 5, 2, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0);
  checkIm2col(1, 5, 5, 1, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  // Three 3-byte kernel rows gathered in registers (narrow_3x3_pixel),
  // whose 4-byte loads read a byte past each kernel row: without padding
  // (the last pixel of each image ends where the image does and takes the
  // exact path), strided, and a 3x1 window on a one-pixel-wide RGB image
  // (rows of 3 bytes: no pixel may take the 4-byte loads at its last row).
  checkIm2col(2, 9, 9, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  checkIm2col(2, 8, 9, 1, 3, 3, 2, 2, 1, 1, 0, 1, 0, 0, 0);
  checkIm2col(2, 4, 1, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  // The same at stride 1 in blocks of 4 pixels (pshufb at the AVX2 level,
  // 8-byte loads): the seed CNN's padded 28x28 layer, widths that leave 1-3
  // pixels after the blocks, with and without padding (the last pixels'
  // 8-byte reads would pass the image's end: the 4-byte path takes them).
  checkIm2col(2, 28, 28, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0);
  checkIm2col(2, 6, 13, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0);
  checkIm2col(2, 5, 15, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  checkIm2col(1, 4, 10, 1, 3, 3, 1, 1, 1, 1, 0, 1, 0, 1, 0);
  // Kernel rows of 8 to 16 bytes inside the input, 16-byte moves whose
  // spare bytes the next kernel row overwrites (im2col_pixels_rows16): an
  // RGB 3x3 stride-2 first layer with padding, the same without padding
  // (the last pixels' reads near each image's end take the exact path),
  // 16-byte rows dilated along h, 8-byte rows with a longer row tail,
  // 15-byte rows.
  checkIm2col(2, 9, 11, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0);
  checkIm2col(2, 6, 7, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  checkIm2col(1, 6, 8, 4, 2, 4, 1, 2, 2, 1, 0, 1, 0, 1, 0);
  checkIm2col(2, 5, 6, 2, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1);
  checkIm2col(1, 5, 4, 5, 3, 3, 1, 1, 1, 1, 1, 0, 1, 0, 0);
}

// The fused int8 convolution (tfcc_rt_qconv2d_u8s8_*) against its
// definition: the dot product of each output pixel's window (padding taps
// holding the zero point, so adding nothing) with the weights' column, in
// int64, then the epilogue as checkQGemm's. The weights are [ldc, N]
// (rows past kh*kw*c zero), packed for K = ldc as the kernel takes them.
struct QConvCase {
  int64_t n, h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, N;
  int64_t extraLdc; // ldc = kh*kw*c rounded up to 4, plus this
  int32_t zeroPoint, act;
  bool bias, residual, quantizeOutput;
  int weightBound = 128; // weights in [-bound, bound]
  int64_t ph = 1, pw = 1; // the max pooling after it (1 x 1: none)
};

void checkQConv(const QConvCase &k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t oh = (k.h + k.pt + k.pb - (k.dh * (k.kh - 1) + 1)) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - (k.dw * (k.kw - 1) + 1)) / k.sw + 1;
  const int64_t K = k.kh * k.kw * k.c, ldc = (K + 3) / 4 * 4 + k.extraLdc;
  const int64_t M = k.n * oh * ow, N = k.N;
  const int64_t ohp = oh / k.ph, owp = ow / k.pw, outputs = k.n * ohp * owp;
  std::vector<uint8_t> x = randomU8(k.n * k.h * k.w * k.c, rng);
  std::vector<int8_t> B = randomI8(K * N, rng, k.weightBound);
  B.resize(ldc * N, 0);
  std::vector<float> scales = randomF32(N, rng, 1e-4f, 2e-3f);
  std::vector<float> bias = randomF32(N, rng, -2.0f, 2.0f);
  std::vector<float> res = randomF32(M * N, rng, -1.0f, 1.0f);
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(ldc, N));
  tfcc_rt_qgemm_pack_b(ldc, N, B.data(), packed.data());
  const float outScale = 0.02f;
  const int32_t outZeroPoint = 100;
  // One element past the outputs, which nothing may write.
  std::vector<float> yf(outputs * N + 1, -7.0f);
  std::vector<uint8_t> yq(outputs * N + 1, 7);
  const float *b = k.bias ? bias.data() : nullptr;
  const float *r = k.residual ? res.data() : nullptr;
  if (k.quantizeOutput)
    tfcc_rt_qconv2d_u8s8_u8(x.data(), k.n, k.h, k.w, k.c, k.kh, k.kw, k.sh,
                            k.sw, k.dh, k.dw, k.pt, k.pl, oh, ow, k.ph, k.pw,
                            ldc, k.zeroPoint, packed.data(), N, scales.data(),
                            b, r, k.act, kAlpha, kBeta, outScale, outZeroPoint,
                            yq.data());
  else
    tfcc_rt_qconv2d_u8s8_f32(x.data(), k.n, k.h, k.w, k.c, k.kh, k.kw, k.sh,
                             k.sw, k.dh, k.dw, k.pt, k.pl, oh, ow, k.ph, k.pw,
                             ldc, k.zeroPoint, packed.data(), N, scales.data(),
                             b, r, k.act, kAlpha, kBeta, yf.data());
  ASSERT_EQ(yf.back(), -7.0f) << "wrote past the output";
  ASSERT_EQ(yq.back(), 7) << "wrote past the output";
  // The convolution's outputs in double, then (pooled) each window's
  // largest: the kernel pools the int32 sums before its epilogue, which is
  // the same for these scales (> 0) and activations (non-decreasing).
  std::vector<double> ref(M * N);
  for (int64_t bi = 0; bi < k.n; ++bi)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t s = 0; s < ow; ++s)
        for (int64_t n = 0; n < N; ++n) {
          const int64_t m = (bi * oh + y) * ow + s;
          int64_t acc = 0;
          for (int64_t i = 0; i < k.kh; ++i)
            for (int64_t j = 0; j < k.kw; ++j) {
              int64_t yy = y * k.sh - k.pt + i * k.dh;
              int64_t xx = s * k.sw - k.pl + j * k.dw;
              if (yy < 0 || yy >= k.h || xx < 0 || xx >= k.w)
                continue;
              for (int64_t ch = 0; ch < k.c; ++ch)
                acc += (int64_t(x[((bi * k.h + yy) * k.w + xx) * k.c + ch]) -
                        k.zeroPoint) *
                       B[((i * k.kw + j) * k.c + ch) * N + n];
            }
          double v = double(acc) * scales[n];
          if (k.bias)
            v += bias[n];
          if (k.residual)
            v += res[m * N + n];
          ref[m * N + n] = activation(v, k.act);
        }
  for (int64_t bi = 0; bi < k.n; ++bi)
    for (int64_t y = 0; y < ohp; ++y)
      for (int64_t s = 0; s < owp; ++s)
        for (int64_t n = 0; n < N; ++n) {
          const int64_t m = (bi * ohp + y) * owp + s;
          double v = -HUGE_VAL;
          for (int64_t dy = 0; dy < k.ph; ++dy)
            for (int64_t dx = 0; dx < k.pw; ++dx)
              v = std::max(
                  v, ref[((bi * oh + y * k.ph + dy) * ow + s * k.pw + dx) * N +
                         n]);
          if (!k.quantizeOutput) {
            ASSERT_NEAR(yf[m * N + n], v, 1e-5 * (std::fabs(v) + 1.0))
                << "pixel " << m << " column " << n;
            continue;
          }
          ASSERT_TRUE(isRequantized(yq[m * N + n], v, outScale, outZeroPoint))
              << "pixel " << m << " column " << n;
        }
}

// Geometries of each gather path (a one-channel 3x3 window gathered in
// registers, in tiles of 64 rows; padded strided RGB; wide rows of 288
// bytes; a dilated window on a thin input with a longer row than its taps;
// strided 1x1), several images, output rows that split tiles, both outputs,
// bias and residual, the activations.
TEST_P(QuantizedKernelsTest, QConv2dFused) {
  const QConvCase cases[] = {
      {1,    28,    28,  1, 3, 3,  1, 1, 1,
       1,    0,     0,   0, 0, 32, 0, 3, TFCC_ACT_RELU,
       true, false, true},
      {2,    9,    11,   3, 3, 3,  2, 2,   1,
       1,    1,    1,    1, 1, 17, 0, 128, TFCC_ACT_CLIP,
       true, true, false},
      {1,     7,     7,   32, 3, 3,  1, 1, 1,
       1,     1,     1,   1,  1, 40, 0, 0, TFCC_ACT_NONE,
       false, false, true},
      {2,    8,     8,    2, 2, 2, 1, 1,   2,
       2,    0,     1,    1, 0, 5, 4, 255, TFCC_ACT_LEAKY_RELU,
       true, false, false},
      {3,    6,    6,   5, 1, 1,  2, 2, 1,
       1,    0,    0,   0, 0, 16, 0, 9, TFCC_ACT_HARD_SWISH,
       true, true, true},
  };
  uint32_t seed = 11;
  for (const QConvCase &k : cases)
    checkQConv(k, seed++);
}

// Geometries of the convolution read in place (channels a multiple of 4,
// no dilation; qgemm.c's qconv2d_direct): padded (the seed CNN's second
// layer), strided and padded, in place without padding (a 5x5 window, the
// input wider and taller than the windows read), images copied two at a
// time, an image over the copy limit (copied in two bands of output rows),
// an output row whose windows are over it (the gathered path instead),
// weights the vpmaddubsw kernel takes exactly, 1x1 windows strided in
// place and padded (one segment); output rows longer and shorter than a
// tile.
TEST_P(QuantizedKernelsTest, QConv2dInPlace) {
  const QConvCase cases[] = {
      {1,    14,    14,  32, 3, 3,  1, 1, 1,
       1,    1,     1,   1,  1, 64, 0, 3, TFCC_ACT_RELU,
       true, false, true},
      {2,    9,    10,   8, 3, 3,  2, 2,   1,
       1,    1,    1,    1, 1, 20, 0, 128, TFCC_ACT_CLIP,
       true, true, false},
      {1,     12,    13,  4, 5, 5,  2, 2, 1,
       1,     0,     0,   0, 0, 33, 0, 9, TFCC_ACT_NONE,
       false, false, true},
      {3,    30,   30,  32, 3, 3,  1, 1,  1,
       1,    1,    1,   1,  1, 16, 0, 77, TFCC_ACT_LEAKY_RELU,
       true, true, true},
      {1,    46,    46,  32, 3, 3, 1, 1, 1,
       1,    1,     1,   1,  1, 8, 0, 5, TFCC_ACT_RELU,
       true, false, true},
      {2,    7,     11,   16, 3, 3,  1, 2,   1,
       1,    0,     1,    2,  1, 40, 0, 200, TFCC_ACT_RELU,
       true, false, true, 64},
      {1, 3,  700,           32,    3,     3,   1, 1, 1, 1, 1, 1, 1, 1, 8,
       0, 50, TFCC_ACT_NONE, false, false, true},
      {2,    9,     9,   8, 1, 1,  2, 2,  1,
       1,    0,     0,   0, 0, 24, 0, 17, TFCC_ACT_RELU,
       true, false, true},
      {1,     5,    6,    4, 1, 1,  1, 1,  1,
       1,     1,    1,    1, 1, 16, 0, 60, TFCC_ACT_NONE,
       false, true, false},
      // Thin kernel rows (fewer than 4 bytes) with padding read as 4
      // against repacked weights: one channel 3x3 padded (the seed CNN's
      // first layer with padding), a strided 3x2 window, 3 channels 1 wide
      // with vpmaddubsw weights; 2 channels 2 wide (4 bytes: no
      // repacking); 5 bytes (the gather); weights over the repacking limit
      // (the gather). Without padding they take the gather (QConv2dFused).
      {2,    28,    28,  1, 3, 3,  1, 1, 1,
       1,    1,     1,   1, 1, 32, 0, 3, TFCC_ACT_RELU,
       true, false, true},
      {1,    9,    8,    1, 3, 2,  2, 2,   1,
       1,    1,    0,    1, 1, 20, 0, 128, TFCC_ACT_CLIP,
       true, true, false},
      {2,     5,     6,    3, 2, 1,  1, 1,  1,
       1,     0,     0,    1, 0, 17, 0, 90, TFCC_ACT_NONE,
       false, false, true, 64},
      {1,    6,     7,   2, 2, 2,  1, 1,  1,
       1,    1,     1,   0, 0, 16, 0, 40, TFCC_ACT_RELU,
       true, false, true},
      {1,    6,     6,   1, 5, 5,  1, 1,  1,
       1,    2,     2,   2, 2, 16, 0, 40, TFCC_ACT_RELU,
       true, false, true},
      {1,     4,     4,   1, 3, 3,    1, 1,  1,
       1,     1,     1,   1, 1, 1400, 0, 40, TFCC_ACT_NONE,
       false, false, true},
  };
  uint32_t seed = 31;
  for (const QConvCase &k : cases)
    checkQConv(k, seed++);
}

// The convolution with a max pooling after it (pool_h x pool_w windows,
// strides the same): each window's largest output. The seed CNN's layers
// (one channel 3x3 gathered, 26 -> 13: a last tile of one window; 13x13x32
// read in place, 11 -> 5: the last row and column unused), padded images
// copied two at a time, an image in bands (rounded to whole windows), the
// gathered paths with several images, windows of 1 x 2, 2 x 1, 4 x 2,
// 1 x 8 and 8 x 1, sizes that leave rows and columns over, both outputs.
TEST_P(QuantizedKernelsTest, QConv2dPooled) {
  QConvCase cases[] = {
      {1,    28,    28,  1, 3, 3,  1, 1, 1,
       1,    0,     0,   0, 0, 32, 0, 3, TFCC_ACT_RELU,
       true, false, true},
      {1,    13,    13,  32, 3, 3,  1, 1,   1,
       1,    0,     0,   0,  0, 64, 0, 127, TFCC_ACT_RELU,
       true, false, true},
      {3,    30,    30,   32, 3, 3,  1, 1,  1,
       1,    1,     1,    1,  1, 16, 0, 77, TFCC_ACT_CLIP,
       true, false, false},
      {1,    46,    46,  32, 3, 3, 1, 1, 1,
       1,    1,     1,   1,  1, 8, 0, 5, TFCC_ACT_RELU,
       true, false, true},
      {2,     9,     11,  3, 3, 3,  1, 1,   1,
       1,     1,     1,   1, 1, 17, 0, 128, TFCC_ACT_NONE,
       false, false, true},
      {2,    8,     9,    2, 2, 2,  1, 1,   2,
       2,    0,     1,    1, 0, 40, 4, 255, TFCC_ACT_RELU,
       true, false, false},
      {1,    17,    19,  8, 3, 3,  1, 1, 1,
       1,    1,     1,   1, 1, 33, 0, 9, TFCC_ACT_CLIP,
       true, false, true},
      {2,    16,    16,  8, 1, 1,  1, 1,  1,
       1,    0,     0,   0, 0, 24, 0, 17, TFCC_ACT_RELU,
       true, false, true},
      {1,     12,    20,  4, 3, 3,  1, 1,  1,
       1,     1,     1,   1, 1, 16, 0, 60, TFCC_ACT_NONE,
       false, false, true},
      {1,    20,    9,    4, 3, 3,  1, 1,  1,
       1,    1,     1,    1, 1, 16, 0, 60, TFCC_ACT_RELU,
       true, false, false},
  };
  const int64_t windows[][2] = {{2, 2}, {2, 2}, {2, 2}, {2, 2}, {2, 2},
                                {2, 1}, {1, 2}, {4, 2}, {1, 8}, {8, 1}};
  static_assert(std::size(cases) == std::size(windows));
  uint32_t seed = 71;
  for (size_t i = 0; i < std::size(cases); ++i) {
    cases[i].ph = windows[i][0];
    cases[i].pw = windows[i][1];
    SCOPED_TRACE("case " + std::to_string(i));
    checkQConv(cases[i], seed++);
  }
}

// Pooling windows the tiles cannot hold (3 x 3, 2 x 3, 16 x 1, 1 x 5), a
// pooling with a residual, and an image smaller than one window: nothing is
// written (the compiler never makes such a call).
TEST_P(QuantizedKernelsTest, QConv2dPooledRefusesGeometry) {
  std::vector<uint8_t> x(6 * 6 * 4, 1);
  const int64_t K = 36, N = 16;
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(K, N));
  tfcc_rt_qgemm_pack_b(K, N, std::vector<int8_t>(K * N, 1).data(),
                       packed.data());
  const std::vector<float> scales(N, 1.0f), residual(4 * 4 * N, 0.0f);
  const int64_t geometry[][3] = {{3, 3, 0}, {2, 3, 0}, {16, 1, 0},
                                 {1, 5, 0}, {2, 2, 1}, {8, 1, 0}};
  for (const auto &g : geometry) {
    std::vector<uint8_t> y(4 * 4 * N, 7);
    tfcc_rt_qconv2d_u8s8_u8(x.data(), 1, 6, 6, 4, 3, 3, 1, 1, 1, 1, 0, 0, 4, 4,
                            g[0], g[1], K, 0, packed.data(), N, scales.data(),
                            nullptr, g[2] ? residual.data() : nullptr,
                            TFCC_ACT_NONE, 0.0f, 0.0f, 1.0f, 0, y.data());
    EXPECT_EQ(y, std::vector<uint8_t>(4 * 4 * N, 7))
        << "pool " << g[0] << " x " << g[1] << (g[2] ? " residual" : "");
  }
}

// Rows shorter than the window or longer than TFCC_RT_QCONV_MAX_LDC: the
// kernel writes nothing (the compiler never makes such a call).
TEST_P(QuantizedKernelsTest, QConv2dRefusesRowLengths) {
  std::vector<uint8_t> x(4 * 4 * 2, 1);
  std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(20, 1));
  tfcc_rt_qgemm_pack_b(20, 1, std::vector<int8_t>(20, 1).data(), packed.data());
  const float scale = 1.0f;
  for (int64_t ldc : {int64_t{16}, int64_t{TFCC_RT_QCONV_MAX_LDC + 4}}) {
    std::vector<uint8_t> y(4, 7);
    tfcc_rt_qconv2d_u8s8_u8(x.data(), 1, 4, 4, 2, 3, 3, 1, 1, 1, 1, 0, 0, 2, 2,
                            1, 1, ldc, 0, packed.data(), 1, &scale, nullptr,
                            nullptr, TFCC_ACT_NONE, 0.0f, 0.0f, 1.0f, 0,
                            y.data());
    EXPECT_EQ(y, std::vector<uint8_t>(4, 7)) << "ldc " << ldc;
  }
}

// The uint8 depthwise convolution against its definition (acc in int64 over
// the taps inside x, v in double, requantized with nearbyint), with the
// weights packed by tfcc_rt_depthwise_u8s8_pack.
struct DepthwiseU8Case {
  int64_t n, h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int32_t xZeroPoint;
  bool bias;
  int32_t act;
  bool quantizeOutput;
  float alpha = kAlpha, beta = kBeta; // the clip's bounds
};

void checkDepthwiseU8(const DepthwiseU8Case &k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t oh = (k.h + k.pt + k.pb - (k.dh * (k.kh - 1) + 1)) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - (k.dw * (k.kw - 1) + 1)) / k.sw + 1;
  const int64_t taps = k.kh * k.kw, C = k.c;
  std::vector<uint8_t> x = randomU8(k.n * k.h * k.w * C, rng);
  std::vector<int8_t> wt = randomI8(taps * C, rng);
  std::vector<float> scales = randomF32(C, rng, 1e-4f, 2e-3f);
  std::vector<float> bias = randomF32(C, rng, -2.0f, 2.0f);
  std::vector<float> packed(tfcc_rt_depthwise_u8s8_packed_size(taps, C));
  tfcc_rt_depthwise_u8s8_pack(taps, C, wt.data(), packed.data());
  const float outScale = 0.02f;
  const int32_t outZeroPoint = 100;
  const int64_t outputs = k.n * oh * ow * C;
  std::vector<float> yf(outputs, -7.0f);
  std::vector<uint8_t> yq(outputs, 7);
  const float *b = k.bias ? bias.data() : nullptr;
  if (k.quantizeOutput)
    tfcc_rt_depthwise_conv2d_u8s8_u8(
        x.data(), k.n, k.h, k.w, C, k.xZeroPoint, packed.data(), k.kh, k.kw,
        k.sh, k.sw, k.dh, k.dw, k.pt, k.pl, oh, ow, scales.data(), b, k.act,
        k.alpha, k.beta, outScale, outZeroPoint, yq.data());
  else
    tfcc_rt_depthwise_conv2d_u8s8_f32(
        x.data(), k.n, k.h, k.w, C, k.xZeroPoint, packed.data(), k.kh, k.kw,
        k.sh, k.sw, k.dh, k.dw, k.pt, k.pl, oh, ow, scales.data(), b, k.act,
        k.alpha, k.beta, yf.data());
  for (int64_t bi = 0; bi < k.n; ++bi)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t s = 0; s < ow; ++s)
        for (int64_t ch = 0; ch < C; ++ch) {
          int64_t acc = 0;
          for (int64_t i = 0; i < k.kh; ++i)
            for (int64_t j = 0; j < k.kw; ++j) {
              int64_t yy = r * k.sh - k.pt + i * k.dh;
              int64_t xx = s * k.sw - k.pl + j * k.dw;
              if (yy < 0 || yy >= k.h || xx < 0 || xx >= k.w)
                continue;
              acc += (int64_t(x[((bi * k.h + yy) * k.w + xx) * C + ch]) -
                      k.xZeroPoint) *
                     wt[(i * k.kw + j) * C + ch];
            }
          double v = double(acc) * scales[ch] + (k.bias ? bias[ch] : 0.0);
          v = k.act == TFCC_ACT_CLIP
                  ? std::min(std::max(v, double(k.alpha)), double(k.beta))
                  : activation(v, k.act);
          const int64_t o = ((bi * oh + r) * ow + s) * C + ch;
          if (!k.quantizeOutput) {
            ASSERT_NEAR(yf[o], v, 1e-5 * (std::fabs(v) + 1.0))
                << "c " << C << " kernel " << k.kh << "x" << k.kw << " stride "
                << k.sh << "x" << k.sw << " at (" << bi << ", " << r << ", "
                << s << ", " << ch << ")";
            continue;
          }
          ASSERT_TRUE(isRequantized(yq[o], v, outScale, outZeroPoint))
              << "c " << C << " kernel " << k.kh << "x" << k.kw << " stride "
              << k.sh << "x" << k.sw << " at (" << bi << ", " << r << ", " << s
              << ", " << ch << ")";
        }
}

// 3x3 windows (the vector path's blocks of pixels, its border pixels, both
// strides, dilation) and other windows, channel counts around the vector
// widths (4, 8, 16), the AVX512_VNNI kernel's 64-channel blocks (64, 70,
// 130) and pairs of 32-channel pixels (32, odd and even widths) and the
// scalar tail, zero points 0..255, bias on and off, every
// activation, both outputs.
TEST_P(QuantizedKernelsTest, DepthwiseU8) {
  const int32_t activations[] = {TFCC_ACT_NONE, TFCC_ACT_RELU, TFCC_ACT_CLIP,
                                 TFCC_ACT_LEAKY_RELU, TFCC_ACT_HARD_SWISH};
  struct Geometry {
    int64_t h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  };
  const Geometry geometries[] = {
      {9, 23, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  // MobileNet's, stride 1
      {10, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, // MobileNet's, stride 2
      {7, 40, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},  // no padding: blocks only
      {8, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},   // dilated
      {6, 7, 3, 3, 1, 2, 1, 1, 0, 1, 2, 1},   // uneven padding and strides
      {9, 11, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2},  // 5x5
      {5, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},   // 1x1
      {4, 13, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},  // 1x7
      {2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   // smaller than the window
  };
  uint32_t seed = 900;
  for (const Geometry &g : geometries)
    for (int64_t c : {1, 3, 8, 16, 17, 32, 40, 64, 70, 130})
      for (bool q : {false, true}) {
        checkDepthwiseU8({seed % 3 == 0 ? 2 : 1, g.h, g.w, c, g.kh, g.kw, g.sh,
                          g.sw, g.dh, g.dw, g.pt, g.pl, g.pb, g.pr,
                          int32_t(seed * 37 % 256), seed % 2 == 0,
                          activations[seed % 5], q},
                         seed);
        ++seed;
      }
  // A MobileNetV2 layer: many rows, so both threads take some.
  checkDepthwiseU8({1, 56, 56, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, true,
                    TFCC_ACT_CLIP, true},
                   7);
}

// Clip bounds past, inside and crossing the uint8 range (scale 0.02, zero
// point 100: [-2, 3.1]), both outputs: a clip wholly below the range
// saturates to 0, wholly above to 255, a crossed one (alpha > beta) is beta.
// 19 channels: the vector path and the scalar tail.
TEST_P(QuantizedKernelsTest, DepthwiseU8ClipBounds) {
  const float bounds[][2] = {{-10.0f, -3.0f}, {7.0f, 9.0f},   {2.0f, 1.0f},
                             {-0.3f, 0.25f},  {-1e30f, 1e30f}, {-5.0f, 5.0f}};
  uint32_t seed = 900;
  for (const auto &ab : bounds)
    for (bool q : {true, false}) {
      DepthwiseU8Case k{1,  9,  9,    19,     3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
                        37, true, TFCC_ACT_CLIP, q};
      k.alpha = ab[0];
      k.beta = ab[1];
      checkDepthwiseU8(k, seed++);
    }
}

// The extremes, where an inexact float sum would show: x = 0 with zero
// point 255 and weights -128 (each product -255 * -128 = 32640) over a 22 x
// 23 window (506 taps, within TFCC_RT_DWQ_MAX_TAPS), scale 1: acc =
// 16,515,840,
// exact as a float only because each partial sum is an integer below 2^24.
TEST_P(QuantizedKernelsTest, DepthwiseU8LargestSums) {
  const int64_t kh = 22, kw = 23, taps = kh * kw, C = 19;
  ASSERT_LE(taps, TFCC_RT_DWQ_MAX_TAPS);
  std::vector<uint8_t> x(kh * kw * C, 0);
  std::vector<int8_t> wt(taps * C, -128);
  std::vector<float> packed(tfcc_rt_depthwise_u8s8_packed_size(taps, C));
  tfcc_rt_depthwise_u8s8_pack(taps, C, wt.data(), packed.data());
  std::vector<float> scales(C, 1.0f), y(C, 0.0f);
  tfcc_rt_depthwise_conv2d_u8s8_f32(
      x.data(), 1, kh, kw, C, 255, packed.data(), kh, kw, 1, 1, 1, 1, 0, 0, 1,
      1, scales.data(), nullptr, TFCC_ACT_NONE, 0, 0, y.data());
  for (int64_t ch = 0; ch < C; ++ch)
    ASSERT_EQ(y[ch], 255.0f * 128.0f * taps) << "channel " << ch;
}

// The packed layout: the weights as floats, then each channel's sum.
// 8-bit max pooling against its definition (the largest tap inside the
// input; the type's lowest value for a window with none), uint8 and int8:
// channel counts below, at and past a 16-byte vector, windows clipped by the
// implicit padding, a window wholly in the padding, and enough work to split.
void checkMaxPool8Bit(int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh,
                      int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                      int64_t pl, int64_t pb, int64_t pr, bool isSigned) {
  std::mt19937 rng(static_cast<uint32_t>(h * 131 + c * 7 + kh + isSigned));
  const int64_t oh = (h + pt + pb - kh) / sh + 1;
  const int64_t ow = (w + pl + pr - kw) / sw + 1;
  std::vector<uint8_t> x = randomU8(n * h * w * c, rng);
  std::vector<uint8_t> y(n * oh * ow * c, 0x5a);
  tfcc_rt_max_pool2d_i8(x.data(), n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow,
                        isSigned ? 1 : 0, y.data());
  auto value = [&](uint8_t v) -> int {
    return isSigned ? static_cast<int>(static_cast<int8_t>(v)) : v;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t s = 0; s < ow; ++s)
        for (int64_t k = 0; k < c; ++k) {
          int want = isSigned ? -128 : 0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t yy = r * sh - pt + i, xx = s * sw - pl + j;
              if (yy >= 0 && yy < h && xx >= 0 && xx < w)
                want =
                    std::max(want, value(x[((b * h + yy) * w + xx) * c + k]));
            }
          ASSERT_EQ(value(y[((b * oh + r) * ow + s) * c + k]), want)
              << (isSigned ? "int8" : "uint8") << " c " << c << " at (" << b
              << ", " << r << ", " << s << ", " << k << ")";
        }
}

TEST_P(QuantizedKernelsTest, MaxPool8Bit) {
  for (bool isSigned : {false, true}) {
    checkMaxPool8Bit(2, 7, 6, 3, 2, 2, 2, 2, 0, 0, 1, 0, isSigned);
    checkMaxPool8Bit(1, 9, 11, 19, 3, 3, 2, 2, 1, 1, 1, 1, isSigned);
    checkMaxPool8Bit(1, 8, 8, 32, 2, 2, 2, 2, 0, 0, 0, 0, isSigned);
    checkMaxPool8Bit(1, 4, 4, 16, 2, 2, 2, 2, 0, 0, 2, 2, isSigned);
    checkMaxPool8Bit(2, 56, 56, 64, 3, 3, 2, 2, 1, 1, 1, 1, isSigned);
    // Whole 2x2 windows in line between padded ones: overlapping (stride 1)
    // with padding on every side, strided with the first window padded.
    checkMaxPool8Bit(2, 7, 9, 48, 2, 2, 1, 1, 1, 1, 1, 1, isSigned);
    checkMaxPool8Bit(1, 6, 7, 16, 2, 2, 2, 2, 1, 1, 0, 0, isSigned);
    checkMaxPool8Bit(1, 3, 1, 16, 2, 2, 1, 1, 0, 1, 0, 0, isSigned);
  }
}

TEST(QuantizedDepthwise, PackLayout) {
  const std::vector<int8_t> wt = {1, -2, 3, 127, -128, 5};
  EXPECT_EQ(tfcc_rt_depthwise_u8s8_packed_size(2, 3), 9);
  EXPECT_EQ(tfcc_rt_depthwise_u8s8_packed_size(0, 3), 0);
  std::vector<float> packed(9, -1.0f);
  tfcc_rt_depthwise_u8s8_pack(2, 3, wt.data(), packed.data());
  EXPECT_EQ(packed, (std::vector<float>{1, -2, 3, 127, -128, 5, 128, -130, 8}));
}

// Every ISA level, and the AVX2 level without AVX-VNNI where the CPU has it
// (its vpmaddubsw and widening kernels), at 1 and 2 threads.
INSTANTIATE_TEST_SUITE_P(
    IsaThreads, QuantizedKernelsTest,
    ::testing::Combine(::testing::Values(0, 1, 2, kAvx2WithoutAvxVnni),
                       ::testing::Values(1, 2)),
    [](const ::testing::TestParamInfo<std::tuple<int, int>> &info) {
      if (std::get<0>(info.param) == kAvx2WithoutAvxVnni)
        return "avx2_no_avx_vnni_" + std::to_string(std::get<1>(info.param)) +
               "threads";
      return tfcc_test::isaThreadsName(info);
    });

// Each micro-kernel the archive carries and the CPU runs, against int64 dot
// products: every tile height and panel count, K with and without a tail.
struct MicroKernel {
  const char *name;
  tfcc_quk_fn fn;
  bool available;
  int weightBound; // the weights it is exact for: [-bound, bound]
  bool readsSegments; // tfcc_quk_args' nseg > 1
};

std::vector<MicroKernel> microKernels() {
  std::vector<MicroKernel> v = {{"base", tfcc_quk_base, true, 128, false}};
#if TFCC_KERNELS_HAVE_AVX2
  v.push_back({"avx2", tfcc_quk_avx2, haveIsa(TFCC_ISA_AVX2), 128, false});
  // The vpmaddubsw form: pairs with |b0| + |b1| <= 128.
  v.push_back(
      {"avx2_pairs", tfcc_quk_avx2_pairs, haveIsa(TFCC_ISA_AVX2), 64, true});
  // vpdpbusd on ymm: exact for any weights.
  v.push_back({"avxvnni", tfcc_quk_avxvnni,
               haveIsa(TFCC_ISA_AVX2) && tfcc_kernels_has_avx_vnni(), 128,
               true});
#endif
#if TFCC_KERNELS_HAVE_AVX512
  v.push_back({"avx512vnni", tfcc_quk_avx512vnni,
               haveIsa(TFCC_ISA_AVX512) && tfcc_kernels_has_avx512_vnni(), 128,
               true});
#endif
  return v;
}

TEST(QuantizedMicroKernels, MatchTheDefinition) {
  std::mt19937 rng(3);
  int ran = 0;
  for (const MicroKernel &uk : microKernels()) {
    if (!uk.available) {
      std::printf("skipped micro-kernel %s: this CPU lacks it\n", uk.name);
      continue;
    }
    ++ran;
    for (int64_t K : {1, 4, 6, 31, 128, 1030, 2053})
      for (int64_t mr = 1; mr <= TFCC_QMR; ++mr)
        for (int64_t np = 1; np <= TFCC_QNP; ++np) {
          const int64_t N = np * TFCC_RT_QGEMM_NR, lda = K + 3;
          // A exactly mr rows long (the last one K bytes): a read past K
          // shows under ASan.
          std::vector<uint8_t> A = randomU8((mr - 1) * lda + K, rng);
          std::vector<int8_t> B = randomI8(K * N, rng, uk.weightBound);
          std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(K, N));
          tfcc_rt_qgemm_pack_b(K, N, B.data(), packed.data());
          std::vector<int32_t> acc(TFCC_QMR * TFCC_QNR_TILE, -1);
          tfcc_quk_args a = {};
          a.a = A.data();
          a.lda = lda;
          a.mr = mr;
          a.K = K;
          a.b = packed.data();
          a.np = np;
          a.acc = acc.data();
          uk.fn(&a);
          for (int64_t i = 0; i < mr; ++i)
            for (int64_t j = 0; j < N; ++j) {
              int64_t want = 0;
              for (int64_t k = 0; k < K; ++k)
                want += int64_t(A[i * lda + k]) * B[k * N + j];
              ASSERT_EQ(acc[i * TFCC_QNR_TILE + j], want)
                  << uk.name << " K " << K << " mr " << mr << " np " << np
                  << " at (" << i << ", " << j << ")";
            }
        }
  }
  EXPECT_GE(ran, 1);
}

// The kernels that read A in segments (the convolution read in place):
// row i's K bytes are nseg runs of seg_len bytes, seg_stride apart, from
// rows[i] (rows `lda` apart but the last, 3 bytes after the one before it,
// which ends exactly at the buffer's end: a read past it shows under ASan;
// one past another segment reads bytes left at 255 or another row's, a
// wrong sum).
TEST(QuantizedMicroKernels, ReadSegments) {
  std::mt19937 rng(5);
  int ran = 0;
  struct Shape {
    int64_t nseg, segLen, gap, lda;
  };
  const Shape shapes[] = {{3, 96, 352, 32},
                          {2, 4, 12, 8},
                          {5, 40, 200, 16},
                          {3, 12, 20, 4},
                          {1, 64, 0, 16}};
  for (const MicroKernel &uk : microKernels()) {
    if (!uk.readsSegments)
      continue;
    if (!uk.available) {
      std::printf("skipped micro-kernel %s: this CPU lacks it\n", uk.name);
      continue;
    }
    ++ran;
    for (const Shape &sh : shapes)
      for (int64_t mr = 1; mr <= TFCC_QMR; ++mr)
        for (int64_t np = 1; np <= TFCC_QNP; ++np) {
          const int64_t K = sh.nseg * sh.segLen, N = np * TFCC_RT_QGEMM_NR;
          const int64_t stride = sh.segLen + sh.gap;
          const int64_t last = mr == 1 ? 0 : (mr - 2) * sh.lda + 3;
          std::vector<uint8_t> A(last + (sh.nseg - 1) * stride + sh.segLen,
                                 255);
          std::vector<int64_t> start(mr);
          std::vector<const uint8_t *> rows(mr);
          for (int64_t i = 0; i < mr; ++i) {
            start[i] = i + 1 < mr ? i * sh.lda : last;
            rows[i] = A.data() + start[i];
          }
          auto at = [&](int64_t i, int64_t k) -> uint8_t & {
            return A[start[i] + k / sh.segLen * stride + k % sh.segLen];
          };
          for (int64_t i = 0; i < mr; ++i)
            for (int64_t k = 0; k < K; ++k)
              at(i, k) = uint8_t(rng() % 251);
          std::vector<int8_t> B = randomI8(K * N, rng, uk.weightBound);
          std::vector<int8_t> packed(tfcc_rt_qgemm_packed_b_size(K, N));
          tfcc_rt_qgemm_pack_b(K, N, B.data(), packed.data());
          std::vector<int32_t> acc(TFCC_QMR * TFCC_QNR_TILE, -1);
          tfcc_quk_args a = {};
          a.mr = mr;
          a.K = K;
          a.b = packed.data();
          a.np = np;
          a.acc = acc.data();
          a.nseg = sh.nseg;
          a.seg_len = sh.segLen;
          a.seg_stride = stride;
          a.rows = rows.data();
          uk.fn(&a);
          for (int64_t i = 0; i < mr; ++i)
            for (int64_t j = 0; j < N; ++j) {
              int64_t want = 0;
              for (int64_t k = 0; k < K; ++k)
                want += int64_t(at(i, k)) * B[k * N + j];
              ASSERT_EQ(acc[i * TFCC_QNR_TILE + j], want)
                  << uk.name << " nseg " << sh.nseg << " seg_len " << sh.segLen
                  << " mr " << mr << " np " << np << " at (" << i << ", " << j
                  << ")";
            }
        }
  }
  // Targets without one (AArch64, Arm, the scalar build) gather the rows.
  if (ran == 0)
    GTEST_SKIP() << "no micro-kernel of this target reads segments";
}

// The packed layout (tfcc_kernels.h) byte by byte, column sums included.
TEST(QuantizedMicroKernels, PackLayout) {
  std::mt19937 rng(4);
  const int64_t K = 7, N = 19, groups = 2, panels = 2;
  std::vector<int8_t> B = randomI8(K * N, rng);
  ASSERT_EQ(tfcc_rt_qgemm_packed_b_size(K, N),
            panels * 16 * (groups * 4 + 4) + 4);
  std::vector<int8_t> p(tfcc_rt_qgemm_packed_b_size(K, N));
  tfcc_rt_qgemm_pack_b(K, N, B.data(), p.data());
  for (int64_t n = 0; n < panels * 16; ++n) {
    int32_t sum = 0;
    for (int64_t k = 0; k < groups * 4; ++k) {
      int8_t want = (n < N && k < K) ? B[k * N + n] : 0;
      sum += want;
      EXPECT_EQ(p[(((n / 16) * groups + k / 4) * 16 + n % 16) * 4 + k % 4],
                want);
    }
    int32_t got;
    std::memcpy(&got, p.data() + panels * groups * 64 + 4 * n, 4);
    EXPECT_EQ(got, sum) << "column " << n;
  }
}

// The flag after the column sums: 1 exactly when every pair (4g, 4g+1),
// (4g+2, 4g+3) of every column has |b0| + |b1| <= 128. Pairs at the
// bound and just over it, in the last column and in a K tail.
TEST(QuantizedMicroKernels, PairsFitFlag) {
  const int64_t K = 6, N = 17;
  auto flag = [&](const std::vector<int8_t> &B) {
    std::vector<int8_t> p(tfcc_rt_qgemm_packed_b_size(K, N));
    tfcc_rt_qgemm_pack_b(K, N, B.data(), p.data());
    int32_t f;
    std::memcpy(&f, p.data() + p.size() - 4, 4);
    return f;
  };
  std::vector<int8_t> B(K * N, 64);
  EXPECT_EQ(flag(B), 1); // 64 + 64
  B[2 * N + 16] = 65;    // k = 2, 3 of the last column: 65 + 64
  EXPECT_EQ(flag(B), 0);
  B[2 * N + 16] = 64;
  B[4 * N + 3] = -128; // the K tail's pair (k = 4, 5): 128 + 64
  EXPECT_EQ(flag(B), 0);
  B[5 * N + 3] = 0; // 128 + 0
  EXPECT_EQ(flag(B), 1);
  B[1 * N + 0] = 127; // k = 0, 1: 64 + 127
  EXPECT_EQ(flag(B), 0);
  B[0 * N + 0] = 1; // 1 + 127
  EXPECT_EQ(flag(B), 1);
}

} // namespace
