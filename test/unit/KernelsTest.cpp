//===- KernelsTest.cpp - Tests of the runtime's float32 micro-kernels -----===//
//
// Every kernel (sgemm, conv2d, Winograd conv2d, depthwise conv2d) against a
// naive double-precision reference over many shapes and options, on the
// generic, AVX2 and AVX-512 paths (each when the CPU has it; skipped by name
// otherwise), at 1 and 2 threads; every GEMM micro-kernel variant on its own;
// and the thread pool itself.
//
//===----------------------------------------------------------------------===//

#include "tfcc/tfcc_kernels.h"
#include "tfcc/tfcc_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

// Internal interface of the kernel library (runtime/src/kernels): the ISA
// hooks and the micro-kernel variants.
extern "C" {
#include "kernels_internal.h"
}
#include "KernelTestIsa.h"

namespace {

std::vector<float> randomVector(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

double actRef(double v, int act, double alpha, double beta) {
  switch (act) {
  case TFCC_ACT_RELU:
    return v > 0 ? v : 0;
  case TFCC_ACT_CLIP:
    return std::min(std::max(v, alpha), beta);
  case TFCC_ACT_LEAKY_RELU:
    return v > 0 ? v : alpha * v;
  case TFCC_ACT_HARD_SWISH:
    return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
  case TFCC_ACT_SIGMOID:
    return 1.0 / (1.0 + std::exp(-v));
  default:
    return v;
  }
}

// An expected output: the exact value and the sum of the magnitudes of what
// was added up (the scale of the rounding error).
struct Expected {
  double value = 0;
  double scale = 0;
};

// Compares `got` against `want` at `count` positions given by `index`;
// tolerance ~1e-5 relative, growing with the reduction length k.
template <typename IndexFn>
::testing::AssertionResult compareOutputs(const float *got,
                                          const std::vector<Expected> &want,
                                          IndexFn index, int64_t k) {
  double tolRel = 1e-5 * (1.0 + static_cast<double>(k) / 64.0);
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got[index(i)];
    double tol = tolRel * (want[i].scale + 1.0);
    if (!(std::fabs(g - want[i].value) <= tol)) // also catches NaN
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << want[i].value
             << " (tolerance " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

// Runs with a pool of `threads` threads current on this thread and the given
// ISA forced; restores both.
class KernelEnv {
public:
  KernelEnv(int isa, int threads) {
    tfcc_rt_kernels_force_isa(isa);
    pool_ = tfcc_rt_pool_create(threads);
    tfcc_rt_set_current_pool(pool_);
  }
  ~KernelEnv() {
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool_);
    tfcc_rt_kernels_force_isa(-1);
  }
  bool ok() const { return pool_ != nullptr; }

private:
  tfcc_rt_pool *pool_;
};

using tfcc_test::haveIsa;
using tfcc_test::kIsaNames;

// tfcc_rt_kernels_isa (the generated <p>_kernels_isa) names the level the
// kernels run at, a forced lower one included.
TEST(KernelsIsaTest, PublicNameFollowsTheLevel) {
  for (int isa = TFCC_ISA_GENERIC; isa <= TFCC_ISA_AVX512; ++isa) {
    if (!haveIsa(isa))
      continue;
    tfcc_rt_kernels_force_isa(isa);
    EXPECT_STREQ(tfcc_rt_kernels_isa(), kIsaNames[isa]);
  }
  tfcc_rt_kernels_force_isa(-1);
  EXPECT_STREQ(tfcc_rt_kernels_isa(), kIsaNames[tfcc_kernels_isa()]);
}

// The L2 size that sizes the int8 GEMM's blocks of weights (CPUID leaf
// 0x80000006) agrees with the C library's (glibc reads CPUID leaf 4 on
// Intel), wherever the latter knows it.
TEST(KernelsIsaTest, L2CacheSizeMatchesTheOs) {
  const int64_t l2 = tfcc_cpu_l2_bytes();
  EXPECT_GE(l2, 0);
#if defined(__x86_64__) && defined(_SC_LEVEL2_CACHE_SIZE)
  const long os = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (os <= 0)
    GTEST_SKIP() << "the C library does not report the L2 size";
  EXPECT_EQ(l2, int64_t(os));
#endif
}

// x rounded to a binary format of `digits` significant bits whose normal
// numbers start at 2^minExp, infinite beyond maxFinite: by scaling and
// std::nearbyint (ties to even) in double, not the kernels' bit code.
float roundToFormat(float x, int digits, int minExp, double maxFinite) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0f)
    return x;
  int e;
  std::frexp(x, &e); // |x| in [2^(e-1), 2^e)
  const int q = std::max(e - 1, minExp) - (digits - 1);
  double r = std::ldexp(std::nearbyint(std::ldexp(double(x), -q)), q);
  if (std::fabs(r) > maxFinite)
    r = std::copysign(INFINITY, r);
  return static_cast<float>(r);
}
float bf16Ref(float x) { return roundToFormat(x, 8, -126, 0x1.fep127); }
float f16Ref(float x) { return roundToFormat(x, 11, -14, 65504.0); }

// Which kernel bf16 operands take (cpu_isa.c's rule, restated from the
// CPU's vendor string): vdpbf16ps at the AVX-512 level of a CPU with
// AVX512_BF16, unless it is Intel's (slower than the f32 FMA there) or the
// testing hook decides (force: 1 wherever the CPU has it, 0 nowhere).
bool expectVdpbf16ps(int isa, int force) {
  if (isa != TFCC_ISA_AVX512 || !tfcc_kernels_has_avx512_bf16() || force == 0)
    return false;
  if (force == 1)
    return true;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  __get_cpuid(0, &a, &b, &c, &d);
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  return std::string(vendor) != "GenuineIntel";
#else
  return false;
#endif
}

// tfcc_kernels_force_vdpbf16ps for one scope.
struct ForceVdpbf16ps {
  explicit ForceVdpbf16ps(int force) { tfcc_kernels_force_vdpbf16ps(force); }
  ~ForceVdpbf16ps() { tfcc_kernels_force_vdpbf16ps(-1); }
};

// ---- sgemm ----------------------------------------------------------------

struct GemmCase {
  int64_t batch, M, N, K;
  bool transA, transB, packed, sharedB;
  bool bias, residual, inPlace;
  int act;
  int64_t padLd; // extra leading-dimension elements
  // A and B of bf16 values, TFCC_ACT_BF16_OPERANDS (vdpbf16ps on CPUs with
  // AVX512_BF16 at the AVX-512 level).
  bool bf16Operands = false;
};

std::string describe(const GemmCase &c) {
  return "batch=" + std::to_string(c.batch) + " M=" + std::to_string(c.M) +
         " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " tA=" + std::to_string(c.transA) + " tB=" + std::to_string(c.transB) +
         " packed=" + std::to_string(c.packed) +
         " sharedB=" + std::to_string(c.sharedB) +
         " bias=" + std::to_string(c.bias) +
         " res=" + std::to_string(c.residual) +
         " inplace=" + std::to_string(c.inPlace) +
         " act=" + std::to_string(c.act) + " pad=" + std::to_string(c.padLd) +
         " bf16=" + std::to_string(c.bf16Operands);
}

::testing::AssertionResult runGemm(const GemmCase &c, std::mt19937 &rng) {
  const float alpha = c.act == TFCC_ACT_CLIP ? -0.5f : 0.1f;
  const float beta = c.act == TFCC_ACT_CLIP ? 0.75f : 0.0f;
  const int64_t lda = (c.transA ? c.M : c.K) + c.padLd;
  const int64_t ldb = (c.transB ? c.K : c.N) + c.padLd;
  const int64_t ldc = c.N + c.padLd;
  const int64_t aRows = c.transA ? c.K : c.M;
  const int64_t bRows = c.transB ? c.N : c.K;
  const int64_t strideA = aRows * lda + 3;
  const int64_t strideB = bRows * ldb + 5;
  const int64_t strideC = c.M * ldc + 7;
  const int64_t bBatches = c.sharedB ? 1 : c.batch;
  std::vector<float> A = randomVector(strideA * c.batch + 1, rng);
  std::vector<float> B = randomVector(strideB * bBatches + 1, rng);
  std::vector<float> bias = randomVector(c.N, rng);
  std::vector<float> res = randomVector(strideC * c.batch + 1, rng);
  std::vector<float> C(strideC * c.batch + 1, 12345.0f);
  if (c.inPlace)
    C = res;
  if (c.bf16Operands) {
    for (float &v : A)
      v = bf16Ref(v);
    for (float &v : B)
      v = bf16Ref(v);
  }

  auto a = [&](int64_t b, int64_t m, int64_t k) -> double {
    return A[b * strideA + (c.transA ? k * lda + m : m * lda + k)];
  };
  auto bAt = [&](int64_t b, int64_t k, int64_t n) -> double {
    int64_t base = c.sharedB ? 0 : b * strideB;
    return B[base + (c.transB ? n * ldb + k : k * ldb + n)];
  };
  std::vector<Expected> want;
  want.reserve(c.batch * c.M * c.N);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        Expected e;
        for (int64_t k = 0; k < c.K; ++k) {
          double p = a(b, m, k) * bAt(b, k, n);
          e.value += p;
          e.scale += std::fabs(p);
        }
        if (c.bias) {
          e.value += bias[n];
          e.scale += std::fabs(bias[n]);
        }
        if (c.residual) {
          double r = res[b * strideC + m * ldc + n];
          e.value += r;
          e.scale += std::fabs(r);
        }
        e.value = actRef(e.value, c.act, alpha, beta);
        want.push_back(e);
      }

  std::vector<float> packed;
  const float *bArg = B.data();
  int64_t strideBArg = c.sharedB ? 0 : strideB;
  if (c.packed) {
    int64_t size = tfcc_rt_sgemm_packed_b_size(c.K, c.N);
    packed.assign(size * bBatches + 1, -7.0f);
    for (int64_t b = 0; b < bBatches; ++b)
      tfcc_rt_sgemm_pack_b(c.K, c.N, B.data() + b * strideB, ldb, c.transB,
                           packed.data() + b * size);
    bArg = packed.data();
    strideBArg = c.sharedB ? 0 : size;
  }
  tfcc_rt_sgemm(c.batch, c.M, c.N, c.K, A.data(), lda, strideA, c.transA, bArg,
                ldb, strideBArg, c.transB, c.packed, C.data(), ldc, strideC,
                c.bias ? bias.data() : nullptr,
                c.residual ? (c.inPlace ? C.data() : res.data()) : nullptr,
                c.act | (c.bf16Operands ? TFCC_ACT_BF16_OPERANDS : 0), alpha,
                beta);
  auto result = compareOutputs(
      C.data(), want,
      [&](size_t i) {
        int64_t b = i / (c.M * c.N), m = (i / c.N) % c.M, n = i % c.N;
        return b * strideC + m * ldc + n;
      },
      c.K);
  if (!result)
    return result << " [" << describe(c) << "]";
  // Nothing outside the outputs was written.
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = c.N; n < ldc; ++n) {
        float expect = c.inPlace ? res[b * strideC + m * ldc + n] : 12345.0f;
        if (C[b * strideC + m * ldc + n] != expect)
          return ::testing::AssertionFailure()
                 << "wrote past N at b=" << b << " m=" << m << " n=" << n
                 << " [" << describe(c) << "]";
      }
  return ::testing::AssertionSuccess();
}

class KernelsTest : public ::testing::TestWithParam<std::tuple<int, int>> {
protected:
  void SetUp() override {
    isa_ = std::get<0>(GetParam());
    threads_ = std::get<1>(GetParam());
    if (!haveIsa(isa_))
      GTEST_SKIP() << "the " << kIsaNames[isa_]
                   << " kernels: this CPU (or TFCC_KERNELS_ISA) lacks "
                   << kIsaNames[isa_];
  }
  void checkGemmBf16Operands();
  int isa_ = 0, threads_ = 1;
};

TEST_P(KernelsTest, GemmEdgeShapes) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(1);
  const int64_t dims[] = {1, 2, 7, 14, 15, 31, 32, 33, 100};
  for (int64_t M : dims)
    for (int64_t N : dims)
      for (int64_t K : {1, 9, 33, 100}) {
        GemmCase c{1, M, N, K, false, false, (M + N + K) % 2 == 0, false,
                   false, false, false, TFCC_ACT_NONE, 0};
        ASSERT_TRUE(runGemm(c, rng));
      }
  // Last panels 17..24 columns wide (the micro-kernel's 16 + 8 form), with
  // every epilogue input: bias, in-place residual, clipping.
  for (int64_t M : {1, 5, 14, 29})
    for (int64_t N : {17, 20, 24, 56})
      for (int64_t K : {1, 16, 97}) {
        GemmCase c{1, M, N, K, false, false, (M + K) % 2 == 0, false,
                   true, true, true, TFCC_ACT_CLIP, 0};
        ASSERT_TRUE(runGemm(c, rng)) << describe(c);
      }
}

TEST_P(KernelsTest, GemmOptions) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(2);
  const int64_t dims[] = {1, 31, 33, 100};
  int i = 0;
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (bool packed : {false, true})
        for (int act = TFCC_ACT_NONE; act <= TFCC_ACT_SIGMOID; ++act) {
          ++i;
          GemmCase c{1 + i % 3,
                     dims[i % 4],
                     dims[(i / 4) % 4],
                     dims[(i / 2 + 1) % 4],
                     transA,
                     transB,
                     packed,
                     i % 5 == 0,
                     i % 2 == 0,
                     i % 3 != 0,
                     i % 6 == 1,
                     act,
                     i % 4 == 3 ? 5 : 0};
          ASSERT_TRUE(runGemm(c, rng));
        }
}

TEST_P(KernelsTest, GemmRandomShapes) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dim(1, 300), bit(0, 1), act(0, 5);
  for (int i = 0; i < 25; ++i) {
    GemmCase c{1 + (i % 4 == 0),
               dim(rng),
               dim(rng),
               dim(rng),
               bit(rng) && bit(rng),
               bit(rng) && bit(rng),
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) && bit(rng),
               act(rng),
               bit(rng) ? 0 : 3};
    ASSERT_TRUE(runGemm(c, rng));
  }
}

TEST_P(KernelsTest, GemmLargeBlocks) {
  // Several K blocks, several B blocks, power-of-two leading dimensions (the
  // A rows are copied), in-place residual across K blocks.
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(4);
  ASSERT_TRUE(runGemm({1, 130, 1100, 600, false, false, true, false, true,
                       true, true, TFCC_ACT_RELU, 0},
                      rng));
  ASSERT_TRUE(runGemm({1, 64, 512, 1024, false, false, false, false, true,
                       true, false, TFCC_ACT_NONE, 0},
                      rng));
  ASSERT_TRUE(runGemm({2, 45, 200, 700, true, true, false, false, false, true,
                       true, TFCC_ACT_HARD_SWISH, 0},
                      rng));
  // Thread splits of equal work: panel-major (M < N, a last row tile of 7
  // rows), tile-major with partial tile rows, and a GEMV-like product; the
  // in-place residual catches a block computed twice or never.
  for (const GemmCase &c : {
           GemmCase{1, 49, 160, 960, false, false, true, false, true, true,
                    true, TFCC_ACT_CLIP, 0},
           GemmCase{1, 196, 96, 576, false, false, true, false, true, true,
                    true, TFCC_ACT_NONE, 0},
           GemmCase{1, 3136, 24, 144, false, false, true, false, true, true,
                    true, TFCC_ACT_RELU, 0},
           GemmCase{1, 1, 1000, 1280, false, false, true, false, true, true,
                    true, TFCC_ACT_NONE, 0},
           GemmCase{3, 100, 70, 300, false, false, true, true, false, true,
                    true, TFCC_ACT_NONE, 0}})
    ASSERT_TRUE(runGemm(c, rng)) << describe(c);
  // B of one contiguous 32-wide panel, read in place (a 32-channel
  // convolution's filter gradient: im2col^T dy), over several K blocks.
  ASSERT_TRUE(runGemm({1, 9, 32, 5000, true, false, false, false, false,
                       false, false, TFCC_ACT_NONE, 0},
                      rng));
  // GEMV-like rows (no K blocking when A is read in place), then with rows
  // that must be copied (lda = 1024).
  ASSERT_TRUE(runGemm({1, 3, 70, 1000, false, false, true, false, true, true,
                       false, TFCC_ACT_NONE, 0},
                      rng));
  ASSERT_TRUE(runGemm({2, 2, 40, 1024, false, false, true, true, false, true,
                       true, TFCC_ACT_LEAKY_RELU, 0},
                      rng));
}

// bf16 operands (TFCC_ACT_BF16_OPERANDS): the shapes and options of the
// tests above, K odd and even, across K blocks and B blocks, every
// activation, transposed and pre-packed operands, batches, in-place
// residuals; on a CPU with AVX512_BF16 the AVX-512 level runs them on
// vdpbf16ps where the rule picks it (GemmBf16OperandsTakeTheBf16Path shows
// which), elsewhere on the f32 kernels; as the rule decides and, where
// that differs, with vdpbf16ps forced (its kernel checked on Intel's CPUs
// too).
TEST_P(KernelsTest, GemmBf16Operands) {
  for (int force : {-1, 1}) {
    if (force == 1 && expectVdpbf16ps(isa_, 1) == expectVdpbf16ps(isa_, -1))
      continue; // forcing changes nothing here
    SCOPED_TRACE("force_vdpbf16ps " + std::to_string(force));
    ForceVdpbf16ps forced(force);
    checkGemmBf16Operands();
  }
}

void KernelsTest::checkGemmBf16Operands() {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(21);
  for (int64_t M : {1, 8, 13, 14, 15, 29, 100})
    for (int64_t N : {1, 16, 17, 32, 33, 100})
      for (int64_t K : {1, 2, 9, 33, 256, 257}) {
        GemmCase c{1,
                   M,
                   N,
                   K,
                   false,
                   false,
                   (M + N + K) % 2 == 0,
                   false,
                   N % 2 == 0,
                   M % 3 == 0,
                   M % 3 == 0,
                   TFCC_ACT_NONE,
                   0,
                   true};
        ASSERT_TRUE(runGemm(c, rng));
      }
  std::uniform_int_distribution<int> dim(1, 300), bit(0, 1), act(0, 5);
  for (int i = 0; i < 40; ++i) {
    GemmCase c{1 + (i % 4 == 0),
               8 + dim(rng),
               dim(rng),
               dim(rng),
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) != 0,
               bit(rng) && bit(rng),
               act(rng),
               bit(rng) ? 0 : 3,
               true};
    ASSERT_TRUE(runGemm(c, rng));
  }
  for (const GemmCase &c :
       {GemmCase{1, 130, 1100, 600, false, false, true, false, true, true, true,
                 TFCC_ACT_RELU, 0, true},
        GemmCase{2, 45, 300, 1031, true, true, false, false, false, true, true,
                 TFCC_ACT_CLIP, 0, true},
        GemmCase{1, 64, 512, 1024, false, false, false, false, true, false,
                 false, TFCC_ACT_NONE, 0, true},
        GemmCase{3, 100, 70, 300, false, false, true, true, false, true, true,
                 TFCC_ACT_NONE, 5, true},
        GemmCase{2, 20, 40, 0, false, false, false, false, true, true, false,
                 TFCC_ACT_RELU, 0, true}})
    ASSERT_TRUE(runGemm(c, rng)) << describe(c);
}

// Which kernel ran: operands that break the bf16 promise (1 + 2^-10, not a
// bf16 value) make the vdpbf16ps path visible, as it reads only their high
// halves (1.0). It runs for 8 rows or more where expectVdpbf16ps says
// (the rule, and the testing hook both ways); otherwise the f32 kernels
// compute the exact product.
TEST_P(KernelsTest, GemmBf16OperandsTakeTheBf16Path) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  for (int force : {-1, 0, 1}) {
    ForceVdpbf16ps forced(force);
    const bool vdpbf16ps = expectVdpbf16ps(isa_, force);
    const float offBf16 = 1.0f + 0x1p-10f;
    for (int64_t M : {7, 8, 40}) {
      const int64_t N = 48, K = 64;
      std::vector<float> A(M * K, offBf16), B(K * N, 1.0f), C(M * N, -1.0f);
      tfcc_rt_sgemm(1, M, N, K, A.data(), K, 0, 0, B.data(), N, 0, 0, 0,
                    C.data(), N, 0, nullptr, nullptr, TFCC_ACT_BF16_OPERANDS,
                    0.0f, 0.0f);
      const float want = vdpbf16ps && M >= 8 ? float(K) : float(K) * offBf16;
      for (int64_t i = 0; i < M * N; ++i)
        ASSERT_EQ(C[i], want) << "M=" << M << " element " << i << " force "
                              << force << (vdpbf16ps ? " (vdpbf16ps)" : "");
    }
  }
}

TEST_P(KernelsTest, GemmZeroK) {
  KernelEnv env(isa_, threads_);
  std::mt19937 rng(5);
  ASSERT_TRUE(runGemm({2, 5, 40, 0, false, false, false, false, true, true,
                       false, TFCC_ACT_RELU, 0},
                      rng));
}

// ---- conv2d ---------------------------------------------------------------

struct ConvCase {
  int64_t n, h, w, c, oc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr;
  bool bias, residual, inPlace;
  int act;
};

// winograd: run tfcc_rt_conv2d_winograd_f32 (3x3, stride 1, dilation 1
// only) on tfcc_rt_winograd_pack's weights instead of tfcc_rt_conv2d_f32.
::testing::AssertionResult runConv(const ConvCase &c, std::mt19937 &rng,
                                   bool winograd = false) {
  const int64_t oh = (c.h + c.pt + c.pb - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
  const int64_t ow = (c.w + c.pl + c.pr - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
  std::vector<float> x = randomVector(c.n * c.h * c.w * c.c, rng);
  std::vector<float> wt = randomVector(c.kh * c.kw * c.c * c.oc, rng);
  std::vector<float> bias = randomVector(c.oc, rng);
  std::vector<float> res = randomVector(c.n * oh * ow * c.oc, rng);
  std::vector<float> y(c.n * oh * ow * c.oc, 999.0f);
  if (c.inPlace)
    y = res;
  const int64_t K = c.kh * c.kw * c.c;
  std::vector<float> packed(tfcc_rt_sgemm_packed_b_size(K, c.oc));
  tfcc_rt_sgemm_pack_b(K, c.oc, wt.data(), c.oc, 0, packed.data());
  std::vector<Expected> want;
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t s = 0; s < ow; ++s)
        for (int64_t o = 0; o < c.oc; ++o) {
          Expected e;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              int64_t yy = r * c.sh - c.pt + i * c.dh;
              int64_t xx = s * c.sw - c.pl + j * c.dw;
              if (yy < 0 || yy >= c.h || xx < 0 || xx >= c.w)
                continue;
              for (int64_t ci = 0; ci < c.c; ++ci) {
                double p = static_cast<double>(
                               x[((b * c.h + yy) * c.w + xx) * c.c + ci]) *
                           wt[((i * c.kw + j) * c.c + ci) * c.oc + o];
                e.value += p;
                e.scale += std::fabs(p);
              }
            }
          if (c.bias) {
            e.value += bias[o];
            e.scale += std::fabs(bias[o]);
          }
          if (c.residual) {
            double rv = res[((b * oh + r) * ow + s) * c.oc + o];
            e.value += rv;
            e.scale += std::fabs(rv);
          }
          e.value = actRef(e.value, c.act, 0.1, 0.0);
          want.push_back(e);
        }
  const float *resPtr =
      c.residual ? (c.inPlace ? y.data() : res.data()) : nullptr;
  if (winograd) {
    packed.assign(tfcc_rt_winograd_packed_size(c.c, c.oc), 0.0f);
    tfcc_rt_winograd_pack(c.c, c.oc, wt.data(), packed.data());
    tfcc_rt_conv2d_winograd_f32(x.data(), c.n, c.h, c.w, c.c, packed.data(),
                                c.oc, c.pt, c.pl, oh, ow,
                                c.bias ? bias.data() : nullptr, resPtr, c.act,
                                0.1f, 0.0f, y.data());
  } else {
    tfcc_rt_conv2d_f32(x.data(), c.n, c.h, c.w, c.c, packed.data(), c.oc,
                       c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.pt, c.pl, oh, ow,
                       c.bias ? bias.data() : nullptr, resPtr, c.act, 0.1f,
                       0.0f, y.data());
  }
  auto result = compareOutputs(
      y.data(), want, [](size_t i) { return static_cast<int64_t>(i); }, K);
  // Winograd: also within 1e-5 max-norm relative (the spec's tolerance of
  // `tfcc-run --compare`; measured: ~1e-6) up to ResNet's longest reduction
  // (K = 9 * 512), growing linearly beyond; the per-element tolerance above,
  // loose for long reductions, would miss e.g. a 0.1% error in one point.
  if (result && winograd) {
    double maxErr = 0, maxAbs = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      maxErr = std::max(maxErr, std::fabs(y[i] - want[i].value));
      maxAbs = std::max(maxAbs, std::fabs(want[i].value));
    }
    if (!(maxErr <= 1e-5 * (1.0 + K / 4608.0) * maxAbs))
      result = ::testing::AssertionFailure()
               << "max-norm relative error " << maxErr / maxAbs;
  }
  if (!result)
    result << (winograd ? " [winograd" : " [conv") << " n=" << c.n
           << " h=" << c.h << " w=" << c.w
           << " c=" << c.c << " oc=" << c.oc << " k=" << c.kh << "x" << c.kw
           << " s=" << c.sh << "," << c.sw << " d=" << c.dh << "," << c.dw
           << " pad=" << c.pt << "," << c.pb << "," << c.pl << "," << c.pr
           << "]";
  return result;
}

TEST_P(KernelsTest, Conv2d) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(6);
  const ConvCase cases[] = {
      // n  h   w   c   oc kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {2, 9, 11, 20, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true, false, 0},
      {1, 12, 12, 17, 33, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, false, true, true, 4},
      {1, 10, 9, 32, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, true, true, 2},
      {3, 7, 5, 24, 70, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, true, false, false, 3},
      {1, 23, 21, 3, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, true, false, false, 1},
      {1, 6, 6, 64, 31, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, false, false, false, 5},
      {1, 30, 17, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {1, 9, 9, 700, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 0},
      {2, 5, 8, 128, 40, 3, 3, 1, 2, 1, 1, 0, 2, 1, 0, true, false, false, 0},
      {1, 12, 12, 8, 8, 5, 3, 1, 1, 1, 1, 2, 2, 1, 1, false, false, false, 0},
      {1, 4, 40, 16, 16, 1, 9, 1, 1, 1, 1, 0, 0, 4, 4, true, false, false, 0},
      {1, 3, 3, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
  };
  for (const ConvCase &c : cases)
    ASSERT_TRUE(runConv(c, rng));
}

TEST_P(KernelsTest, Conv2dRingAndFlat) {
  // Ring mode (>= 16 channels in one K block, horizontal padding, dil_h 1:
  // zero-padded input rows in a stack ring read in place) and flat mode
  // (output rows of <= 8 pixels: 14-pixel tiles across rows and images).
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(12);
  const ConvCase cases[] = {
      // n  h   w   c   oc kh kw sh sw dh dw pt pb pl pr bias res inpl act
      // ring: stride 1 and 2, asymmetric pads, batches, tap groups, kh 5,
      // dilation in w, right padding only, oc tails
      {2, 11, 20, 16, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {3, 12, 17, 24, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {1, 10, 19, 64, 64, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, false, true, true, 0},
      {1, 9, 18, 128, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {2, 9, 16, 256, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {1, 12, 15, 32, 48, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, true, false, false, 4},
      {1, 8, 21, 16, 16, 3, 3, 1, 1, 1, 2, 1, 1, 2, 2, true, false, false, 3},
      {1, 6, 16, 20, 24, 3, 3, 1, 1, 1, 1, 0, 0, 0, 2, true, true, true, 5},
      {1, 4, 30, 96, 16, 1, 1, 1, 2, 1, 1, 0, 0, 1, 1, true, false, false, 0},
      // too wide for the ring: the gathering path
      {1, 5, 150, 64, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      // flat: 7x7 and 4x4 outputs, channel blocks, several images, 1x1 s2
      {1, 7, 7, 512, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {2, 14, 14, 64, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {3, 8, 8, 40, 50, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, false, true, true, 0},
      {1, 5, 6, 700, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {1, 4, 4, 400, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {2, 6, 6, 16, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, true, true, false, 3},
  };
  for (const ConvCase &c : cases)
    ASSERT_TRUE(runConv(c, rng));
}

TEST_P(KernelsTest, Conv2dFewChannels) {
  // Few input channels (row mode: a whole kernel row per micro-kernel tap,
  // zero-padded patches at the borders) and one input channel with few
  // output channels (vectorized over output pixels).
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(9);
  const ConvCase cases[] = {
      // n  h   w   c   oc kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 32, 32, 1, 6, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {1, 14, 14, 6, 16, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {2, 28, 28, 1, 32, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {2, 13, 13, 32, 64, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {1, 29, 31, 3, 32, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, true, false, false, 2},
      {1, 40, 37, 3, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, true, true, false, 1},
      {1, 30, 40, 15, 20, 11, 11, 1, 1, 1, 1, 5, 5, 5, 5, true, true, true, 3},
      {1, 17, 19, 4, 40, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, false, false, false, 4},
      {1, 20, 21, 2, 24, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, true, false, false, 5},
      {1, 20, 21, 5, 24, 3, 2, 1, 2, 1, 1, 0, 1, 1, 0, true, true, false, 0},
      {3, 9, 50, 1, 13, 3, 5, 1, 1, 1, 1, 1, 1, 2, 2, true, true, false, 1},
      {1, 19, 23, 1, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {1, 19, 23, 1, 3, 3, 3, 1, 1, 1, 2, 1, 1, 2, 2, true, false, false, 1},
      {1, 5, 7, 8, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 2},
  };
  for (const ConvCase &c : cases)
    ASSERT_TRUE(runConv(c, rng));
  // One input channel, 1..8 output channels: output widths around the
  // 16-pixel blocks, padding on every side, strides and dilation in h,
  // residual (also in place) and every activation.
  int i = 0;
  for (int64_t oc = 1; oc <= 8; ++oc)
    for (int64_t w : {3, 16, 17, 33, 70}) {
      ++i;
      const int64_t k = 1 + 2 * (i % 3), p = i % 4 == 0 ? 0 : k / 2 + i % 2;
      ConvCase c{1 + i % 2, 6 + i % 5, w, 1, oc, k, k + (i % 2) * 2,
                 1 + (i % 3 == 2), 1, 1 + (i % 5 == 4), 1, p, p, p,
                 p + (i % 7 == 3), i % 4 != 1, i % 3 == 0, i % 6 == 0, i % 6};
      ASSERT_TRUE(runConv(c, rng));
    }
}

TEST_P(KernelsTest, Conv2dWinograd) {
  // Winograd F(2x2, 3x3) (3x3, stride 1, dilation 1) against the double
  // reference: output sizes odd and even (the last 2x2 tile row / column
  // partly outside), same / valid / asymmetric padding, channel counts off
  // the 16-lane vectors and 32-wide panels, batches, bias / residual (also
  // in place) / every activation, blocks that span images, few blocks (the
  // threads then split panels), large c (fewer tiles per block), and both
  // modes: tile blocks, and point-major (< 42 tiles per image and
  // 64 * c * oc > 1 MiB).
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(21);
  const ConvCase cases[] = {
      // n  h   w   c   oc kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 8, 8, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 1},
      {2, 9, 11, 20, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 0},
      {1, 10, 13, 17, 33, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {1, 11, 12, 64, 70, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, false, true, true, 1},
      {3, 7, 7, 48, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 1},
      {2, 30, 17, 48, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {1, 8, 8, 64, 160, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {1, 14, 14, 128, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 3},
      {2, 6, 5, 700, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 4},
      {1, 3, 4, 2048, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true, false, 5},
      {3, 1, 1, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {1, 3, 3, 1, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, false, false, false, 0},
      {2, 12, 9, 16, 33, 3, 3, 1, 1, 1, 1, 2, 1, 0, 3, false, false, false, 4},
      {1, 17, 15, 35, 50, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 5},
      {1, 20, 19, 24, 40, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false, false, 1},
      {1, 16, 15, 64, 70, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, false, true, true, 1},
      // point-major
      {2, 7, 7, 160, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 1},
      {1, 9, 6, 300, 80, 3, 3, 1, 1, 1, 1, 0, 2, 1, 0, true, false, false, 2},
      {3, 5, 5, 600, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true, false, 5},
      {1, 4, 5, 2048, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 3},
  };
  for (const ConvCase &c : cases)
    ASSERT_TRUE(runConv(c, rng, /*winograd=*/true));
}

// ---- depthwise ------------------------------------------------------------

struct DwCase {
  int64_t n, h, w, c, m, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr;
  bool bias, residual, inPlace;
  int act;
};

::testing::AssertionResult runDw(const DwCase &c, std::mt19937 &rng) {
  const int64_t oh = (c.h + c.pt + c.pb - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
  const int64_t ow = (c.w + c.pl + c.pr - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
  const int64_t C = c.c * c.m;
  std::vector<float> x = randomVector(c.n * c.h * c.w * c.c, rng);
  std::vector<float> wt = randomVector(c.kh * c.kw * C, rng);
  std::vector<float> bias = randomVector(C, rng);
  std::vector<float> res = randomVector(c.n * oh * ow * C, rng);
  std::vector<float> y(c.n * oh * ow * C, 999.0f);
  if (c.inPlace)
    y = res;
  std::vector<Expected> want;
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t s = 0; s < ow; ++s)
        for (int64_t o = 0; o < C; ++o) {
          Expected e;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              int64_t yy = r * c.sh - c.pt + i * c.dh;
              int64_t xx = s * c.sw - c.pl + j * c.dw;
              if (yy < 0 || yy >= c.h || xx < 0 || xx >= c.w)
                continue;
              double p = static_cast<double>(
                             x[((b * c.h + yy) * c.w + xx) * c.c + o / c.m]) *
                         wt[(i * c.kw + j) * C + o];
              e.value += p;
              e.scale += std::fabs(p);
            }
          if (c.bias) {
            e.value += bias[o];
            e.scale += std::fabs(bias[o]);
          }
          if (c.residual) {
            double rv = res[((b * oh + r) * ow + s) * C + o];
            e.value += rv;
            e.scale += std::fabs(rv);
          }
          e.value = actRef(e.value, c.act, 0.0, 6.0);
          want.push_back(e);
        }
  tfcc_rt_depthwise_conv2d_f32(
      x.data(), c.n, c.h, c.w, c.c, wt.data(), c.m, c.kh, c.kw, c.sh, c.sw,
      c.dh, c.dw, c.pt, c.pl, oh, ow, c.bias ? bias.data() : nullptr,
      c.residual ? (c.inPlace ? y.data() : res.data()) : nullptr, c.act, 0.0f,
      6.0f, y.data());
  auto result = compareOutputs(
      y.data(), want, [](size_t i) { return static_cast<int64_t>(i); },
      c.kh * c.kw);
  if (!result)
    result << " [dw n=" << c.n << " h=" << c.h << " w=" << c.w << " c=" << c.c
           << " m=" << c.m << " k=" << c.kh << "x" << c.kw << " s=" << c.sh
           << "," << c.sw << " d=" << c.dh << "," << c.dw << " pad=" << c.pt
           << "," << c.pb << "," << c.pl << "," << c.pr << "]";
  return result;
}

TEST_P(KernelsTest, Depthwise) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(7);
  const DwCase cases[] = {
      // n  h   w   c  m kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 12, 13, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {2, 11, 10, 40, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true, false, 0},
      {1, 9, 14, 19, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true, true, 1},
      {1, 8, 8, 7, 3, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, true, false, false, 4},
      {1, 15, 16, 16, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, true, false, false, 5},
      {1, 10, 20, 33, 1, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, true, false, false, 3},
      {1, 4, 4, 5, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, false, false, false, 0},
      {1, 3, 3, 24, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {2, 7, 30, 20, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, false, 0},
      {1, 28, 28, 48, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 2},
      // 3x3 multiplier 1 (registers hold the taps; rows split by channels)
      {1, 7, 7, 960, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {1, 14, 14, 88, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 4},
      {2, 9, 10, 37, 1, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, false, true, false, 1},
      {1, 2, 1, 20, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 5},
      {1, 6, 11, 16, 1, 3, 3, 1, 3, 1, 1, 0, 0, 2, 2, true, false, false, 3},
      {1, 5, 13, 33, 1, 3, 3, 2, 1, 1, 1, 2, 0, 0, 0, true, true, false, 0},
  };
  for (const DwCase &c : cases)
    ASSERT_TRUE(runDw(c, rng));
}

// The 3-wide (kw = 3, m = 1) row kernel: every width 1..20 (interior groups
// of 1..8 pixels, borders on either side), channel counts with and without a
// 16-lane tail, strides 1 / 2, asymmetric and zero padding, tall kernels, and
// the cases it must leave to the other paths (dilation 2, m = 2, sigmoid).
TEST_P(KernelsTest, Depthwise3Wide) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(11);
  const int64_t chans[] = {1, 7, 16, 24, 40};
  for (int64_t w = 1; w <= 20; ++w)
    for (int64_t s = 1; s <= 2; ++s) {
      const int64_t c = chans[(w + s) % 5];
      const int act = static_cast<int>((w * 2 + s) % 6);
      const bool res = w % 3 != 0, inpl = w % 3 == 1;
      const DwCase k = {1 + w % 2, 4 + w % 3, w, c, 1, 3, 3, s, s, 1, 1, 1,
                        1, 1, 1, w % 4 != 0, res, inpl, act};
      ASSERT_TRUE(runDw(k, rng));
    }
  const DwCase cases[] = {
      // n  h   w   c  m kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 6, 17, 24, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, true, false, 2},
      {1, 6, 17, 40, 1, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, true, false, false, 1},
      {1, 9, 19, 7, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, true, true, true, 3},
      {1, 9, 19, 24, 1, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, true, false, false, 2},
      {1, 7, 15, 12, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 4},
      {1, 12, 12, 17, 1, 5, 3, 2, 1, 1, 1, 2, 2, 1, 1, false, true, true, 0},
      {1, 6, 12, 40, 1, 1, 3, 1, 2, 1, 1, 0, 0, 1, 1, true, false, false, 5},
      {1, 5, 16, 16, 1, 3, 3, 1, 1, 1, 1, 2, 2, 3, 3, true, false, false, 2},
      {1, 56, 56, 144, 1, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, true, false, false, 2},
  };
  for (const DwCase &c : cases)
    ASSERT_TRUE(runDw(c, rng));
}

// ---- row-wise: softmax, log-softmax, layer norm -------------------------

// Row lengths around the 16- and 32-lane steps of the vector path, inputs
// spread wide enough that exp spans many orders of magnitude, several rows
// (split across threads when large).
TEST_P(KernelsTest, RowwiseSoftmaxLayerNorm) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(13);
  const int64_t lens[] = {1, 2, 15, 16, 17, 31, 32, 33, 47, 100, 128, 256, 1000};
  for (int64_t n : lens)
    for (int64_t rows : {1, 3, 600}) {
      if (rows * n > 300000)
        continue;
      std::vector<float> x = randomVector(rows * n, rng);
      for (float &v : x)
        v *= 20.0f;
      std::vector<float> g = randomVector(n, rng), b = randomVector(n, rng);
      std::vector<float> y(rows * n, 999.0f);
      for (int logSm = 0; logSm <= 1; ++logSm) {
        tfcc_rt_softmax_f32(x.data(), rows, n, logSm, y.data());
        for (int64_t r = 0; r < rows; ++r) {
          const float *xr = x.data() + r * n;
          double mx = xr[0], sum = 0;
          for (int64_t k = 1; k < n; ++k)
            mx = std::max(mx, static_cast<double>(xr[k]));
          for (int64_t k = 0; k < n; ++k)
            sum += std::exp(xr[k] - mx);
          for (int64_t k = 0; k < n; ++k) {
            double want = logSm ? xr[k] - mx - std::log(sum)
                                : std::exp(xr[k] - mx) / sum;
            // exp's relative error grows with |x - max| (rounding of the
            // float difference)
            double tol = logSm ? 2e-6 * (std::fabs(want) + 1.0)
                               : want * (2e-6 + 2e-7 * (mx - xr[k])) + 1e-30;
            ASSERT_NEAR(y[r * n + k], want, tol)
                << (logSm ? "log_softmax" : "softmax") << " n=" << n
                << " row " << r << " col " << k;
          }
        }
      }
      for (int affine = 0; affine < 3; ++affine) {
        const float *gp = affine >= 1 ? g.data() : nullptr;
        const float *bp = affine == 2 ? b.data() : nullptr;
        tfcc_rt_layer_norm_f32(x.data(), rows, n, gp, bp, 1e-5f, y.data());
        for (int64_t r = 0; r < rows; ++r) {
          const float *xr = x.data() + r * n;
          double mean = 0, var = 0;
          for (int64_t k = 0; k < n; ++k)
            mean += xr[k];
          mean /= n;
          for (int64_t k = 0; k < n; ++k)
            var += (xr[k] - mean) * (xr[k] - mean);
          const double inv = 1.0 / std::sqrt(var / n + 1e-5);
          double amax = 0; // float rounding of x - mean, scaled by inv
          for (int64_t k = 0; k < n; ++k)
            amax = std::max(amax, std::fabs(static_cast<double>(xr[k])));
          for (int64_t k = 0; k < n; ++k) {
            const double gk = gp ? gp[k] : 1.0;
            double want = (xr[k] - mean) * inv * gk + (bp ? bp[k] : 0.0);
            double tol = 1e-5 * (std::fabs(want) + 1.0) +
                         1e-6 * amax * inv * std::fabs(gk);
            ASSERT_NEAR(y[r * n + k], want, tol)
                << "layer_norm n=" << n << " row " << r << " col " << k;
          }
        }
      }
    }
}

// ---- pooling ----------------------------------------------------------------

// Max and average pooling (padding skipped; average over the real taps or
// the whole window) against a direct loop: channel counts around the 16-lane
// blocks, strides, asymmetric padding, windows larger than the stride.
TEST_P(KernelsTest, Pool2d) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(14);
  struct Case {
    int64_t n, h, w, c, kh, kw, sh, sw, pt, pb, pl, pr;
  };
  const Case cases[] = {
      {64, 26, 26, 32, 2, 2, 2, 2, 0, 0, 0, 0},
      {2, 11, 11, 64, 2, 2, 2, 2, 0, 0, 0, 0},
      {1, 9, 10, 17, 3, 3, 2, 2, 1, 1, 1, 1},
      {3, 7, 8, 5, 3, 2, 1, 2, 1, 0, 0, 1},
      {1, 112, 112, 64, 3, 3, 2, 2, 1, 1, 1, 1},
      {2, 5, 5, 40, 5, 5, 1, 1, 2, 2, 2, 2},
      {1, 4, 6, 33, 2, 3, 3, 1, 0, 1, 1, 0},
      // Fewer channels than a vector (LeNet-5's 6; 1, 2, 3), and a tail of a
      // wider one (12): whole-vector loads past the pixel, stores the next
      // pixel overwrites, the row's last pixels and the tensor's end.
      {16, 28, 28, 6, 2, 2, 2, 2, 0, 0, 0, 0}, // parallel (>= 65536 taps)
      {3, 9, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1},
      {2, 5, 9, 1, 2, 2, 2, 1, 0, 1, 0, 1},
      {1, 6, 5, 2, 3, 2, 1, 1, 0, 0, 1, 0},
      {2, 8, 8, 3, 2, 2, 2, 2, 0, 0, 0, 0},
      {2, 10, 10, 12, 2, 2, 2, 2, 0, 0, 0, 0},
      // Whole 2x2 windows taken in line between padded ones: overlapping
      // (stride 1) with padding on every side, strided with the first
      // window padded.
      {2, 7, 9, 48, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 6, 7, 16, 2, 2, 2, 2, 1, 0, 1, 0},
  };
  for (const Case &c : cases)
    for (int mode : {TFCC_POOL_MAX, TFCC_POOL_AVG, TFCC_POOL_AVG_WINDOW}) {
      const int64_t oh = (c.h + c.pt + c.pb - c.kh) / c.sh + 1;
      const int64_t ow = (c.w + c.pl + c.pr - c.kw) / c.sw + 1;
      std::vector<float> x = randomVector(c.n * c.h * c.w * c.c, rng);
      std::vector<float> y(c.n * oh * ow * c.c, 999.0f);
      tfcc_rt_pool2d_f32(x.data(), c.n, c.h, c.w, c.c, c.kh, c.kw, c.sh, c.sw,
                         c.pt, c.pl, oh, ow, mode, y.data());
      for (int64_t b = 0; b < c.n; ++b)
        for (int64_t r = 0; r < oh; ++r)
          for (int64_t s = 0; s < ow; ++s)
            for (int64_t k = 0; k < c.c; ++k) {
              double acc = mode == TFCC_POOL_MAX ? -1e300 : 0.0;
              int64_t count = 0;
              for (int64_t i = 0; i < c.kh; ++i)
                for (int64_t j = 0; j < c.kw; ++j) {
                  const int64_t yy = r * c.sh - c.pt + i,
                                xx = s * c.sw - c.pl + j;
                  if (yy < 0 || yy >= c.h || xx < 0 || xx >= c.w)
                    continue;
                  const double v = x[((b * c.h + yy) * c.w + xx) * c.c + k];
                  acc = mode == TFCC_POOL_MAX ? std::max(acc, v) : acc + v;
                  ++count;
                }
              if (mode == TFCC_POOL_AVG)
                acc /= static_cast<double>(count);
              else if (mode == TFCC_POOL_AVG_WINDOW)
                acc /= static_cast<double>(c.kh * c.kw);
              const double got = y[((b * oh + r) * ow + s) * c.c + k];
              ASSERT_NEAR(got, acc, 1e-6)
                  << "mode " << mode << " h=" << c.h << " w=" << c.w
                  << " c=" << c.c << " k=" << c.kh << "x" << c.kw << " at " << b
                  << "," << r << "," << s << "," << k;
            }
    }
}

// A NaN in a max pooling window gives NaN wherever the window takes it (the
// interpreter's and graph.max_pool2d's rule): at each tap, and the channel
// counts of each path (fewer than a vector, whole vectors: the whole 2x2
// windows in line, a tail).
TEST_P(KernelsTest, MaxPoolPropagatesNaN) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  for (int64_t c : {1, 6, 8, 16, 17, 32, 40})
    for (int tap = 0; tap < 4; ++tap) {
      // 1 x 2 x 4 x c: two output pixels of 2 x 2 windows; NaN in pixel 0's
      // window only (at tap `tap`), channel c - 1
      std::vector<float> x(8 * c);
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i % 7);
      const int64_t pix[4] = {0, 1, 4, 5}; // pixel 0's taps, row-major
      x[pix[tap] * c + c - 1] = std::nanf("");
      std::vector<float> y(2 * c, 999.0f);
      tfcc_rt_pool2d_f32(x.data(), 1, 2, 4, c, 2, 2, 2, 2, 0, 0, 1, 2,
                         TFCC_POOL_MAX, y.data());
      EXPECT_TRUE(std::isnan(y[c - 1])) << "c " << c << " tap " << tap;
      for (int64_t k = 0; k < c - 1; ++k)
        EXPECT_FALSE(std::isnan(y[k])) << "c " << c << " channel " << k;
      for (int64_t k = c; k < 2 * c; ++k)
        EXPECT_FALSE(std::isnan(y[k])) << "c " << c << " pixel 1 " << k;
    }
}

// ---- max pooling gradient --------------------------------------------------

struct PoolGradCase {
  int64_t n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
};

// The rule of graph.max_pool2d_grad written out directly: per window and
// channel, the first real tap (row-major) that is a NaN or greater than the
// best so far, unless the best is already a NaN.
// The pooled values: the window maximum over real taps, a NaN winning.
std::vector<float> maxPoolRef(const PoolGradCase &c,
                              const std::vector<float> &x) {
  std::vector<float> y(c.n * c.oh * c.ow * c.c);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t r = 0; r < c.oh; ++r)
      for (int64_t s = 0; s < c.ow; ++s)
        for (int64_t k = 0; k < c.c; ++k) {
          bool any = false;
          float best = 0;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              int64_t yy = r * c.sh - c.pt + i, z = s * c.sw - c.pl + j;
              if (yy < 0 || yy >= c.h || z < 0 || z >= c.w)
                continue;
              float v = x[((b * c.h + yy) * c.w + z) * c.c + k];
              if (!any || (!std::isnan(best) && (std::isnan(v) || v > best)))
                best = v;
              any = true;
            }
          y[((b * c.oh + r) * c.ow + s) * c.c + k] = best;
        }
  return y;
}

// With positiveOnly, the ReLU gradient's mask (x > 0) applies as well.
std::vector<double> maxPoolGradRef(const PoolGradCase &c,
                                   const std::vector<float> &x,
                                   const std::vector<float> &dy,
                                   bool positiveOnly) {
  std::vector<double> dx(x.size(), 0.0);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t r = 0; r < c.oh; ++r)
      for (int64_t s = 0; s < c.ow; ++s)
        for (int64_t k = 0; k < c.c; ++k) {
          int64_t bestAt = -1;
          float best = 0;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              int64_t y = r * c.sh - c.pt + i, z = s * c.sw - c.pl + j;
              if (y < 0 || y >= c.h || z < 0 || z >= c.w)
                continue;
              int64_t at = ((b * c.h + y) * c.w + z) * c.c + k;
              float v = x[at];
              if (bestAt < 0 || (!std::isnan(best) && (std::isnan(v) || v > best))) {
                bestAt = at;
                best = v;
              }
            }
          if (bestAt >= 0 && (!positiveOnly || x[bestAt] > 0.0f))
            dx[bestAt] += dy[((b * c.oh + r) * c.ow + s) * c.c + k];
        }
  return dx;
}

// Overlapping windows (stride < window), implicit padding on every side,
// disjoint windows (stride == window) that leave rows and columns uncovered,
// channel counts around the kernel's 64-channel blocks, ties (inputs on a
// coarse grid) and NaNs, and a batch large enough to run in parallel; each
// with and without positive_only (the fused ReLU mask; zeros are on the grid),
// and both from x and through the taps the forward pool records
// (tfcc_rt_max_pool2d_indices_f32, whose pooled values are checked too).
TEST_P(KernelsTest, MaxPool2dGrad) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(11);
  const PoolGradCase cases[] = {
      // n  h   w   c kh kw sh sw pt pl oh ow
      {2, 26, 26, 32, 2, 2, 2, 2, 0, 0, 13, 13},
      {1, 11, 11, 64, 2, 2, 2, 2, 0, 0, 5, 5},
      {3, 9, 10, 70, 3, 3, 2, 2, 1, 1, 5, 5},
      {1, 7, 8, 5, 3, 3, 1, 1, 1, 1, 7, 8},
      {2, 6, 9, 130, 3, 2, 1, 2, 0, 1, 4, 5},
      {1, 5, 5, 3, 5, 5, 1, 1, 2, 2, 5, 5},
      {8, 26, 26, 32, 2, 2, 2, 2, 0, 0, 13, 13},
      // disjoint windows leaving a row and columns uncovered
      {2, 7, 9, 20, 3, 3, 3, 3, 0, 0, 2, 2},
      {1, 5, 7, 17, 2, 3, 2, 3, 0, 0, 2, 2},
  };
  for (const PoolGradCase &c : cases) {
    std::vector<float> x(c.n * c.h * c.w * c.c), dy(c.n * c.oh * c.ow * c.c);
    std::uniform_int_distribution<int> level(-3, 3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float &v : x)
      v = 0.25f * static_cast<float>(level(rng));
    for (size_t i = 0; i < x.size(); i += 37)
      x[i] = NAN;
    for (float &v : dy)
      v = u(rng);
    for (int positiveOnly = 0; positiveOnly < 2; ++positiveOnly) {
      std::vector<double> want = maxPoolGradRef(c, x, dy, positiveOnly);
      // Directly from x, and through the taps the forward pool records.
      for (int recorded = 0; recorded < 2; ++recorded) {
        std::vector<float> dx(x.size(), 123.0f); // the kernel must clear it
        if (!recorded) {
          tfcc_rt_max_pool2d_grad_f32(x.data(), c.n, c.h, c.w, c.c, c.kh, c.kw,
                                      c.sh, c.sw, c.pt, c.pl, c.oh, c.ow,
                                      positiveOnly, dy.data(), dx.data());
        } else {
          std::vector<float> y(dy.size(), 7.0f);
          std::vector<int8_t> taps(dy.size(), 99);
          tfcc_rt_max_pool2d_indices_f32(x.data(), c.n, c.h, c.w, c.c, c.kh,
                                         c.kw, c.sh, c.sw, c.pt, c.pl, c.oh,
                                         c.ow, positiveOnly, y.data(),
                                         taps.data());
          std::vector<float> wantY = maxPoolRef(c, x);
          for (size_t i = 0; i < y.size(); ++i)
            ASSERT_TRUE(y[i] == wantY[i] ||
                        (std::isnan(y[i]) && std::isnan(wantY[i])))
                << "pooled value " << i << ": " << y[i] << " vs " << wantY[i];
          tfcc_rt_max_pool2d_grad_indices_f32(
              taps.data(), dy.data(), c.n, c.h, c.w, c.c, c.kh, c.kw, c.sh,
              c.sw, c.pt, c.pl, c.oh, c.ow, dx.data());
        }
        for (size_t i = 0; i < dx.size(); ++i)
          ASSERT_NEAR(dx[i], want[i], 1e-6 * (1.0 + std::fabs(want[i])))
              << "n=" << c.n << " h=" << c.h << " w=" << c.w << " c=" << c.c
              << " window " << c.kh << "x" << c.kw << " positive_only "
              << positiveOnly << " recorded taps " << recorded << " element "
              << i;
      }
    }
  }
}

// ---- convolution kernel gradient without im2col ------------------------------

// tfcc_rt_conv2d_filter_grad_f32 with `flags` against double sums with a
// bound from the sum of |terms|: 3x3 over 32 -> 64 channels (the train step's
// conv2), one input channel, a 3x1 and a 1x2 window, odd channel counts
// around the 14-row tiles and 32-column panels, rows wider than a K block
// (ow 299), and a batch large enough to split. `toValue` makes each input.
void checkConv2dFilterGrad(int32_t flags, float (*toValue)(float)) {
  struct Case {
    int64_t n, h, w, c, kh, kw, co;
  };
  const Case cases[] = {{2, 13, 13, 32, 3, 3, 64}, {1, 6, 7, 3, 2, 3, 5},
                        {3, 28, 28, 1, 3, 3, 32}, {2, 5, 40, 70, 3, 1, 40},
                        {1, 3, 300, 4, 1, 2, 33}, {16, 13, 13, 32, 3, 3, 64}};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const Case &k : cases) {
    int64_t oh = k.h - k.kh + 1, ow = k.w - k.kw + 1;
    std::vector<float> x(k.n * k.h * k.w * k.c), dy(k.n * oh * ow * k.co);
    for (float &v : x)
      v = toValue(u(rng));
    for (float &v : dy)
      v = toValue(u(rng));
    std::vector<float> dk(k.kh * k.kw * k.c * k.co, 123.0f);
    tfcc_rt_conv2d_filter_grad_f32(x.data(), k.n, k.h, k.w, k.c, k.kh, k.kw,
                                   dy.data(), oh, ow, k.co, dk.data(), flags);
    for (int64_t i = 0; i < k.kh; ++i)
      for (int64_t j = 0; j < k.kw; ++j)
        for (int64_t ci = 0; ci < k.c; ++ci)
          for (int64_t o = 0; o < k.co; ++o) {
            double want = 0, magnitude = 0;
            for (int64_t b = 0; b < k.n; ++b)
              for (int64_t r = 0; r < oh; ++r)
                for (int64_t s = 0; s < ow; ++s) {
                  double t = double(x[((b * k.h + r + i) * k.w + s + j) * k.c + ci]) *
                             dy[((b * oh + r) * ow + s) * k.co + o];
                  want += t;
                  magnitude += std::fabs(t);
                }
            float got = dk[((i * k.kw + j) * k.c + ci) * k.co + o];
            ASSERT_NEAR(got, want, 1e-6 * magnitude + 1e-6)
                << "flags " << flags << " n=" << k.n << " h=" << k.h
                << " w=" << k.w << " c=" << k.c << " window " << k.kh << "x"
                << k.kw << " co=" << k.co << " at " << i << "," << j << ","
                << ci << "," << o;
          }
  }
}

TEST_P(KernelsTest, Conv2dFilterGrad) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  checkConv2dFilterGrad(0, [](float v) { return v; });
}

// With TFCC_ACT_BF16_OPERANDS (x and dy hold bf16 values): the exact products
// of the bf16 values summed in f32, the same cases; on AVX512_BF16 through
// vdpbf16ps where the rule picks it and where forced
// (Conv2dFilterGradBf16OperandsTakeTheBf16Path shows which), elsewhere on
// the f32 kernels.
TEST_P(KernelsTest, Conv2dFilterGradBf16Operands) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  for (int force : {-1, 1}) {
    if (force == 1 && expectVdpbf16ps(isa_, 1) == expectVdpbf16ps(isa_, -1))
      continue; // forcing changes nothing here
    SCOPED_TRACE("force_vdpbf16ps " + std::to_string(force));
    ForceVdpbf16ps forced(force);
    checkConv2dFilterGrad(TFCC_ACT_BF16_OPERANDS, [](float v) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
      std::memcpy(&v, &bits, 4);
      return v;
    });
  }
}

// The flag's promise broken on purpose (x holds 1 + 2^-10, not a bf16
// value): vdpbf16ps multiplies the high halves (1.0), the f32 kernels the
// values themselves, so the sums tell which path ran.
TEST_P(KernelsTest, Conv2dFilterGradBf16OperandsTakeTheBf16Path) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  for (int force : {-1, 0, 1}) {
    ForceVdpbf16ps forced(force);
    const bool vdpbf16ps = expectVdpbf16ps(isa_, force);
    const float offBf16 = 1.0f + 0x1p-10f;
    const int64_t n = 2, h = 8, w = 8, c = 16, kh = 3, kw = 3, co = 48;
    const int64_t oh = h - kh + 1, ow = w - kw + 1;
    std::vector<float> x(n * h * w * c, offBf16), dy(n * oh * ow * co, 1.0f),
        dk(kh * kw * c * co, -1.0f);
    tfcc_rt_conv2d_filter_grad_f32(x.data(), n, h, w, c, kh, kw, dy.data(), oh,
                                   ow, co, dk.data(), TFCC_ACT_BF16_OPERANDS);
    const float count = float(n * oh * ow);
    const float want = vdpbf16ps ? count : count * offBf16;
    for (size_t i = 0; i < dk.size(); ++i)
      ASSERT_EQ(dk[i], want) << "element " << i << " force " << force
                             << (vdpbf16ps ? " (vdpbf16ps)" : "");
  }
}

// ---- training batch norm reductions -----------------------------------------

// Against double two-pass sums: channel counts past the kernel's stack groups
// (4096 doubles of partials) and its 64-channel tiles, row counts around its
// 64-row runs and 16 blocks, data offset from zero by 4 to 1000 (a large
// mean would make an unshifted one-pass variance lose its digits), and the
// same bits with 1 and 2 threads.
TEST_P(KernelsTest, BatchNormTrainReductions) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::pair<int64_t, int64_t> shapes[] = {
      {1, 3}, {63, 5}, {65, 70}, {43264, 32}, {1000, 300}, {40, 2100}, {0, 4}};
  for (auto [rows, c] : shapes) {
    std::vector<float> x(rows * c), dy(rows * c);
    for (int64_t i = 0; i < rows * c; ++i) {
      int64_t k = i % c; // channels 0, 5, 10, ... sit near 1000
      x[i] = 4.0f + 0.5f * static_cast<float>(k % 7) +
             (k % 5 == 0 ? 1000.0f : 0.0f) + normal(rng);
      dy[i] = normal(rng) * 1e-3f;
    }
    std::vector<float> moments(2 * c, 7.0f), sums(2 * c, 7.0f);
    std::vector<float> moments1, sums1;
    for (int threads : {threads_, 1}) {
      KernelEnv env(isa_, threads);
      ASSERT_TRUE(env.ok());
      tfcc_rt_channel_moments_f32(x.data(), rows, c, moments.data());
      tfcc_rt_batch_norm_grad_sums_f32(x.data(), dy.data(), moments.data(),
                                       rows, c, sums.data());
      if (moments1.empty()) {
        moments1 = moments;
        sums1 = sums;
      }
    }
    EXPECT_EQ(moments, moments1) << "rows " << rows << " c " << c
                                 << ": the thread count changed the moments";
    EXPECT_EQ(sums, sums1) << "rows " << rows << " c " << c;
    for (int64_t k = 0; k < c; ++k) {
      double sum = 0, squares = 0, sumDy = 0, sumDyXc = 0;
      for (int64_t r = 0; r < rows; ++r)
        sum += x[r * c + k];
      double mean = rows ? sum / rows : 0.0;
      for (int64_t r = 0; r < rows; ++r) {
        double d = x[r * c + k] - mean, g = dy[r * c + k];
        squares += d * d;
        sumDy += g;
        sumDyXc += g * (x[r * c + k] - double(moments[k]));
      }
      double variance = rows ? squares / rows : 0.0;
      ASSERT_NEAR(moments[k], mean, 1e-6 * (1.0 + std::fabs(mean)))
          << "mean, rows " << rows << " c " << c << " channel " << k;
      ASSERT_NEAR(moments[c + k], variance, 1e-5 * (1.0 + variance))
          << "variance, rows " << rows << " c " << c << " channel " << k;
      // The sums scale with sqrt(rows) * |dy| (random signs).
      double scale = 1e-3 * std::sqrt(double(rows) + 1.0);
      ASSERT_NEAR(sums[k], sumDy, 1e-5 * scale)
          << "sum dy, rows " << rows << " c " << c << " channel " << k;
      ASSERT_NEAR(sums[c + k], sumDyXc, 1e-5 * scale)
          << "sum dy * (x - mean), rows " << rows << " c " << c
          << " channel " << k;
    }
  }
}

// ---- the epilogue's rounding to bf16 / f16 (TFCC_ACT_ROUND_*) -------------

uint32_t bitsOf(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

// rounded[i] is exact[i] rounded by ref, bit for bit (any NaN for a NaN).
::testing::AssertionResult roundedAs(const std::vector<float> &exact,
                                     const std::vector<float> &rounded,
                                     float (*ref)(float)) {
  for (size_t i = 0; i < exact.size(); ++i) {
    const float want = ref(exact[i]);
    if (bitsOf(want) != bitsOf(rounded[i]) &&
        !(std::isnan(want) && std::isnan(rounded[i])))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << exact[i] << " rounded to "
             << rounded[i] << ", want " << want;
  }
  return ::testing::AssertionSuccess();
}

// Runs `run(activation, y)` plain and with each rounding flag: the rounded
// outputs are the plain ones rounded (the flag changes nothing else).
template <typename Run>
::testing::AssertionResult checkRounding(const char *what, size_t size,
                                         int act, Run run) {
  std::vector<float> exact(size, 999.0f);
  run(act, exact);
  const std::pair<int, float (*)(float)> modes[] = {
      {TFCC_ACT_ROUND_BF16, bf16Ref}, {TFCC_ACT_ROUND_F16, f16Ref}};
  for (const auto &[flag, ref] : modes) {
    std::vector<float> rounded(size, 999.0f);
    run(act | flag, rounded);
    auto result = roundedAs(exact, rounded, ref);
    if (!result)
      return result << " [" << what << ", "
                    << (flag == TFCC_ACT_ROUND_BF16 ? "bf16" : "f16")
                    << ", activation " << act << "]";
  }
  return ::testing::AssertionSuccess();
}

std::vector<float> scaledRandom(size_t n, float scale, std::mt19937 &rng) {
  std::vector<float> v = randomVector(n, rng);
  for (float &x : v)
    x *= scale;
  return v;
}

// Each kernel's paths (GEMM tile orders and K blocks, convolution row, ring,
// flat, one-channel and 1x1 modes, both Winograd modes, the depthwise row
// kernels), inputs scaled so that f16 also meets its subnormals (1e-4) and
// overflows (300: outputs past 65504).
TEST_P(KernelsTest, EpilogueRounding) {
  KernelEnv env(isa_, threads_);
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(17);
  struct Gemm {
    int64_t batch, M, N, K;
    int32_t transA, packed;
    float scale;
    int act;
  };
  const Gemm gemms[] = {{1, 37, 70, 50, 0, 1, 1.0f, 1},
                        {2, 3, 40, 300, 0, 0, 1e4f, 0},
                        {1, 29, 45, 64, 1, 0, 1e-4f, 3},
                        {1, 20, 33, 0, 0, 1, 1.0f, 4},
                        {1, 150, 96, 700, 0, 1, 1.0f, 2}};
  for (const Gemm &g : gemms) {
    std::vector<float> a = scaledRandom(g.batch * g.M * g.K, g.scale, rng);
    std::vector<float> b = randomVector(g.K * g.N, rng);
    std::vector<float> bias = randomVector(g.N, rng);
    std::vector<float> res = randomVector(g.batch * g.M * g.N, rng);
    std::vector<float> packed(tfcc_rt_sgemm_packed_b_size(g.K, g.N));
    tfcc_rt_sgemm_pack_b(g.K, g.N, b.data(), g.N, 0, packed.data());
    const int64_t lda = g.transA ? g.M : g.K;
    ASSERT_TRUE(checkRounding(
        "sgemm", res.size(), g.act, [&](int act, std::vector<float> &y) {
          tfcc_rt_sgemm(g.batch, g.M, g.N, g.K, a.data(), lda, g.M * g.K,
                        g.transA, g.packed ? packed.data() : b.data(), g.N, 0,
                        0, g.packed, y.data(), g.N, g.M * g.N, bias.data(),
                        res.data(), act, 0.0f, 6.0f);
        }))
        << "M=" << g.M << " N=" << g.N << " K=" << g.K;
  }
  const ConvCase convs[] = {
      // n  h   w   c   oc kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {2, 9, 11, 20, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true, false, 2},
      {1, 30, 17, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 1},
      {1, 23, 21, 3, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, true, false, false, 1},
      {2, 5, 8, 128, 40, 3, 3, 1, 2, 1, 1, 0, 2, 1, 0, true, false, false, 0},
      {1, 10, 9, 32, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, true, true, 2},
      {2, 14, 13, 1, 8, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, true, false, false, 1},
      {1, 9, 9, 700, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 5},
  };
  const float scales[] = {1.0f, 1e4f, 1e-4f};
  int caseIndex = 0;
  for (const ConvCase &c : convs) {
    const float scale = scales[caseIndex++ % 3];
    const int64_t oh = (c.h + c.pt + c.pb - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
    const int64_t ow = (c.w + c.pl + c.pr - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
    std::vector<float> x = scaledRandom(c.n * c.h * c.w * c.c, scale, rng);
    std::vector<float> wt = randomVector(c.kh * c.kw * c.c * c.oc, rng);
    std::vector<float> bias = randomVector(c.oc, rng);
    std::vector<float> res = randomVector(c.n * oh * ow * c.oc, rng);
    const int64_t K = c.kh * c.kw * c.c;
    std::vector<float> packed(tfcc_rt_sgemm_packed_b_size(K, c.oc));
    tfcc_rt_sgemm_pack_b(K, c.oc, wt.data(), c.oc, 0, packed.data());
    ASSERT_TRUE(checkRounding(
        "conv2d", res.size(), c.act, [&](int act, std::vector<float> &y) {
          if (c.inPlace)
            y = res;
          tfcc_rt_conv2d_f32(x.data(), c.n, c.h, c.w, c.c, packed.data(), c.oc,
                             c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.pt, c.pl, oh,
                             ow, c.bias ? bias.data() : nullptr,
                             c.residual ? (c.inPlace ? y.data() : res.data())
                                        : nullptr,
                             act, 0.1f, 0.0f, y.data());
        }))
        << "conv case " << caseIndex;
  }
  // Blocks of tiles (12x12) and point-major groups (8x8, 160 -> 128).
  const ConvCase winograds[] = {
      {2, 12, 12, 32, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false, 1},
      {1, 8, 8, 160, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true, true, 0},
  };
  for (const ConvCase &c : winograds) {
    const int64_t oh = c.h, ow = c.w;
    std::vector<float> x = scaledRandom(c.n * c.h * c.w * c.c, 30.0f, rng);
    std::vector<float> wt = randomVector(9 * c.c * c.oc, rng);
    std::vector<float> bias = randomVector(c.oc, rng);
    std::vector<float> res = randomVector(c.n * oh * ow * c.oc, rng);
    std::vector<float> packed(tfcc_rt_winograd_packed_size(c.c, c.oc));
    tfcc_rt_winograd_pack(c.c, c.oc, wt.data(), packed.data());
    ASSERT_TRUE(checkRounding(
        "winograd", res.size(), c.act, [&](int act, std::vector<float> &y) {
          if (c.inPlace)
            y = res;
          tfcc_rt_conv2d_winograd_f32(
              x.data(), c.n, c.h, c.w, c.c, packed.data(), c.oc, c.pt, c.pl,
              oh, ow, bias.data(), c.inPlace ? y.data() : res.data(), act,
              0.0f, 0.0f, y.data());
        }))
        << "winograd " << c.h << "x" << c.w << " " << c.c << "->" << c.oc;
  }
  const DwCase dws[] = {
      // n  h   w   c  m kh kw sh sw dh dw pt pb pl pr bias res inpl act
      {1, 12, 13, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 2},
      {2, 11, 10, 40, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true, false, 0},
      {1, 9, 14, 19, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true, true, 1},
      {1, 10, 20, 33, 1, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, true, false, false, 3},
      {1, 7, 7, 960, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false, 2},
  };
  caseIndex = 0;
  for (const DwCase &c : dws) {
    const float scale = scales[caseIndex++ % 3];
    const int64_t oh = (c.h + c.pt + c.pb - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
    const int64_t ow = (c.w + c.pl + c.pr - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
    const int64_t C = c.c * c.m;
    std::vector<float> x = scaledRandom(c.n * c.h * c.w * c.c, scale, rng);
    std::vector<float> wt = randomVector(c.kh * c.kw * C, rng);
    std::vector<float> bias = randomVector(C, rng);
    std::vector<float> res = randomVector(c.n * oh * ow * C, rng);
    ASSERT_TRUE(checkRounding(
        "depthwise", res.size(), c.act, [&](int act, std::vector<float> &y) {
          if (c.inPlace)
            y = res;
          tfcc_rt_depthwise_conv2d_f32(
              x.data(), c.n, c.h, c.w, c.c, wt.data(), c.m, c.kh, c.kw, c.sh,
              c.sw, c.dh, c.dw, c.pt, c.pl, oh, ow,
              c.bias ? bias.data() : nullptr,
              c.residual ? (c.inPlace ? y.data() : res.data()) : nullptr, act,
              0.0f, 6.0f, y.data());
        }))
        << "depthwise case " << caseIndex;
  }
}

// The rounding functions of every level the CPU has, against the reference
// on the edges (ties, the largest finite values and the first that
// overflow, f16's subnormals and their ties, f32's subnormals, signed
// zeros, infinities, NaNs) and on random bit patterns of every exponent;
// rows and a row stride, tails shorter than a vector.
TEST(EpilogueRounding, EdgesAndRandomBits) {
  std::vector<float> edges = {0.0f,
                              -0.0f,
                              1.0f,
                              1.0f + 0x1p-8f,
                              1.0f + 3 * 0x1p-8f,
                              1.0f + 0x1p-11f,
                              1.0f + 3 * 0x1p-11f,
                              -1.0f - 0x1p-9f,
                              65504.0f,
                              65519.99f,
                              65520.0f,
                              -65520.0f,
                              0x1.fep127f,
                              0x1.fefffep127f,
                              0x1.ff0000p127f,
                              3.4028235e38f,
                              0x1p-14f,
                              0x1p-14f - 0x1p-26f,
                              0x1p-25f,
                              3 * 0x1p-25f,
                              5 * 0x1p-25f,
                              0x1p-26f,
                              -7 * 0x1p-26f,
                              0x1p-130f,
                              0x1.234p-140f,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              -NAN};
  std::mt19937 rng(19);
  for (int i = 0; i < 20000; ++i) {
    uint32_t u = static_cast<uint32_t>(rng());
    float v;
    std::memcpy(&v, &u, 4);
    edges.push_back(v);
  }
  const struct {
    int isa;
    void (*fn)(float *, int64_t, int64_t, int64_t, int32_t);
  } levels[] = {
    {TFCC_ISA_GENERIC, tfcc_round_base},
#if defined(__x86_64__)
    {TFCC_ISA_AVX2, tfcc_round_avx2},
    {TFCC_ISA_AVX512, tfcc_round_avx512},
#endif
  };
  for (const auto &level : levels) {
    if (!haveIsa(level.isa))
      continue;
    const std::pair<int, float (*)(float)> modes[] = {
        {TFCC_ACT_ROUND_BF16, bf16Ref}, {TFCC_ACT_ROUND_F16, f16Ref}};
    for (const auto &[flag, ref] : modes) {
      // As rows of 23 values 29 apart (the gaps must stay unchanged).
      const int64_t cols = 23, ld = 29;
      const int64_t rows = static_cast<int64_t>(edges.size()) / cols;
      std::vector<float> data(rows * ld, 5.0f);
      std::vector<float> exact, want;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          data[r * ld + k] = edges[r * cols + k];
      level.fn(data.data(), ld, rows, cols, flag);
      std::vector<float> got;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < cols; ++k) {
          exact.push_back(edges[r * cols + k]);
          got.push_back(data[r * ld + k]);
        }
        for (int64_t k = cols; k < ld && r * ld + k < rows * ld; ++k)
          ASSERT_EQ(data[r * ld + k], 5.0f) << "gap overwritten, row " << r;
      }
      EXPECT_TRUE(roundedAs(exact, got, ref))
          << kIsaNames[level.isa]
          << (flag == TFCC_ACT_ROUND_BF16 ? " bf16" : " f16");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(IsaThreads, KernelsTest,
                         tfcc_test::isaThreadsValues(),
                         tfcc_test::isaThreadsName);

// ---- micro-kernel variants --------------------------------------------------

// Every compiled GEMM micro-kernel against the definition (kernels_internal.h)
// in double: tiles of every height and width, one and three taps, A row-major
// or (the filter gradient's kernels) k-major with a leading dimension, continuing C or the residual, the
// bias and each activation. The drivers above only reach the variant their
// ISA selects; this reaches the others (the portable AVX-512 form).
struct MicroKernel {
  const char *name;
  int isa; // the level it needs
  tfcc_uk_fn fn;
  bool kmajor; // A element (i, k) of tap t at a[toff[t] + k * lda + i]
};

const MicroKernel kMicroKernels[] = {
    {"base", TFCC_ISA_GENERIC, tfcc_uk_base, false},
    {"base_kmajor", TFCC_ISA_GENERIC, tfcc_uk_base_kmajor, true},
#if defined(__x86_64__)
    {"avx2", TFCC_ISA_AVX2, tfcc_uk_avx2, false},
    {"avx2_kmajor", TFCC_ISA_AVX2, tfcc_uk_avx2_kmajor, true},
    {"avx512_vec", TFCC_ISA_AVX512, tfcc_uk_avx512_vec, false},
    {"avx512", TFCC_ISA_AVX512, tfcc_uk_avx512, false},
    {"avx512_kmajor", TFCC_ISA_AVX512, tfcc_uk_avx512_kmajor, true},
#endif
};

void PrintTo(const MicroKernel &uk, std::ostream *os) { *os << uk.name; }

class MicroKernelTest : public ::testing::TestWithParam<MicroKernel> {};

TEST_P(MicroKernelTest, MatchesTheDefinition) {
  const MicroKernel &uk = GetParam();
  if (!haveIsa(uk.isa))
    GTEST_SKIP() << "micro-kernel " << uk.name << ": this CPU (or "
                 << "TFCC_KERNELS_ISA) lacks " << kIsaNames[uk.isa];
  std::mt19937 rng(7);
  const int acts[] = {TFCC_ACT_NONE, TFCC_ACT_RELU, TFCC_ACT_CLIP,
                      TFCC_ACT_LEAKY_RELU, TFCC_ACT_HARD_SWISH,
                      TFCC_ACT_SIGMOID};
  int cases = 0;
  for (int64_t mr = 1; mr <= TFCC_UK_MR; ++mr)
    for (int64_t nr : {1, 5, 8, 15, 16, 17, 24, 31, 32}) {
      int variant = cases++;
      // Some with a long k (the full register blocks' steady state).
      const int64_t ntaps = variant % 3 == 0 ? 3 : 1;
      const int64_t kt = variant % 7 == 0 ? 100 + variant % 61 : 5 + variant % 11;
      // Row-major A: rows of ntaps * kt (+3) floats, tap t at column t * kt;
      // k-major A: columns of mr (+3) floats, tap t at column t * kt.
      const int64_t lda = uk.kmajor ? mr + 3 : ntaps * kt + 3, ldc = 40,
                    ldr = 37;
      const int act = acts[variant % 6];
      const bool first = variant % 4 != 1, useRes = variant % 4 == 2;
      const bool last = variant % 5 != 3, useBias = variant % 2 == 0;
      const float alpha = act == TFCC_ACT_CLIP ? -0.5f : 0.1f;
      const float beta = act == TFCC_ACT_CLIP ? 0.5f : 0.0f;
      std::vector<float> a =
          randomVector(uk.kmajor ? ntaps * kt * lda : mr * lda, rng);
      std::vector<float> b = randomVector(ntaps * kt * TFCC_UK_NR, rng);
      for (int64_t t = 0; t < ntaps; ++t) // packed B: zero past nr
        for (int64_t k = 0; k < kt; ++k)
          for (int64_t j = nr; j < TFCC_UK_NR; ++j)
            b[(t * kt + k) * TFCC_UK_NR + j] = 0.0f;
      std::vector<float> c = randomVector(mr * ldc, rng), c0 = c;
      std::vector<float> res = randomVector(mr * ldr, rng);
      std::vector<float> bias = randomVector(TFCC_UK_NR, rng);
      std::vector<int64_t> toff;
      for (int64_t t = 0; t < ntaps; ++t)
        toff.push_back(uk.kmajor ? t * kt * lda : t * kt);
      tfcc_uk_args p = {};
      p.a = a.data();
      p.lda = lda;
      p.toff = ntaps > 1 ? toff.data() : nullptr;
      p.ntaps = ntaps;
      p.kt = kt;
      p.b = b.data();
      p.b_tap_stride = kt * TFCC_UK_NR;
      p.c = c.data();
      p.ldc = ldc;
      p.mr = mr;
      p.nr = nr;
      p.flags = (first ? TFCC_UK_FIRST : 0) | (last ? TFCC_UK_LAST : 0);
      p.bias = useBias ? bias.data() : nullptr;
      p.res = useRes ? res.data() : nullptr;
      p.ldr = ldr;
      p.act = act;
      p.alpha = alpha;
      p.beta = beta;
      uk.fn(&p);
      for (int64_t i = 0; i < mr; ++i)
        for (int64_t j = 0; j < ldc; ++j) {
          float got = c[i * ldc + j];
          if (j >= nr) { // outside the tile: untouched
            ASSERT_EQ(got, c0[i * ldc + j])
                << uk.name << " wrote column " << j << " of a " << mr << "x"
                << nr << " tile";
            continue;
          }
          double v = !first ? c0[i * ldc + j] : useRes ? res[i * ldr + j] : 0;
          double scale = std::fabs(v);
          for (int64_t t = 0; t < ntaps; ++t)
            for (int64_t k = 0; k < kt; ++k) {
              double term = double(a[uk.kmajor ? toff[t] + k * lda + i
                                               : i * lda + toff[t] + k]) *
                            b[(t * kt + k) * TFCC_UK_NR + j];
              v += term;
              scale += std::fabs(term);
            }
          if (last) {
            if (useBias)
              v += bias[j];
            v = actRef(v, act, alpha, beta);
          }
          ASSERT_NEAR(got, v, 1e-5 * (scale + 1.0))
              << uk.name << " tile " << mr << "x" << nr << " row " << i
              << " column " << j << " taps " << ntaps << " kt " << kt
              << " act " << act << " first " << first << " last " << last
              << " bias " << useBias << " res " << useRes;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, MicroKernelTest, ::testing::ValuesIn(kMicroKernels),
    [](const ::testing::TestParamInfo<MicroKernel> &info) {
      return std::string(info.param.name);
    });

// The comparison really detects a wrong result (the tests can fail).
TEST(KernelsCheck, ComparisonCatchesErrors) {
  std::vector<Expected> want(4);
  std::vector<float> got(4, 0.0f);
  for (int i = 0; i < 4; ++i) {
    want[i].value = i;
    want[i].scale = 1.0 + i;
    got[i] = static_cast<float>(i);
  }
  auto id = [](size_t i) { return static_cast<int64_t>(i); };
  EXPECT_TRUE(compareOutputs(got.data(), want, id, 10));
  got[2] += 1e-3f;
  EXPECT_FALSE(compareOutputs(got.data(), want, id, 10));
  got[2] = NAN;
  EXPECT_FALSE(compareOutputs(got.data(), want, id, 10));
}

TEST(KernelsCheck, PackLayout) {
  // element (k, n) at packed[((n / 32) * K + k) * 32 + n % 32], zero padded
  const int64_t K = 3, N = 40;
  std::vector<float> B(K * N), Bt(N * K);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      Bt[n * K + k] = B[k * N + n] = static_cast<float>(k * 100 + n);
  ASSERT_EQ(tfcc_rt_sgemm_packed_b_size(K, N), 2 * K * 32);
  std::vector<float> p(2 * K * 32, -1.0f), pt(2 * K * 32, -1.0f);
  tfcc_rt_sgemm_pack_b(K, N, B.data(), N, 0, p.data());
  tfcc_rt_sgemm_pack_b(K, N, Bt.data(), K, 1, pt.data());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < 64; ++n) {
      float want = n < N ? static_cast<float>(k * 100 + n) : 0.0f;
      EXPECT_EQ(p[((n / 32) * K + k) * 32 + n % 32], want);
      EXPECT_EQ(pt[((n / 32) * K + k) * 32 + n % 32], want);
    }
}

// Also with bf16 operands (vdpbf16ps where the CPU has AVX512_BF16), whose
// tasks split differently.
TEST(KernelsCheck, ThreadCountDoesNotChangeResults) {
  for (int32_t flags : {0, int32_t(TFCC_ACT_BF16_OPERANDS)}) {
    std::mt19937 rng(8);
    const int64_t M = 200, N = 450, K = 700;
    std::vector<float> A = randomVector(M * K, rng),
                       B = randomVector(K * N, rng);
    if (flags)
      for (std::vector<float> *v : {&A, &B})
        for (float &x : *v)
          x = bf16Ref(x);
    std::vector<float> C1(M * N), C2(M * N);
    tfcc_rt_sgemm(1, M, N, K, A.data(), K, 0, 0, B.data(), N, 0, 0, 0,
                  C1.data(), N, 0, nullptr, nullptr, flags, 0, 0);
    tfcc_rt_pool *pool = tfcc_rt_pool_create(2);
    ASSERT_NE(pool, nullptr);
    tfcc_rt_set_current_pool(pool);
    tfcc_rt_sgemm(1, M, N, K, A.data(), K, 0, 0, B.data(), N, 0, 0, 0,
                  C2.data(), N, 0, nullptr, nullptr, flags, 0, 0);
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool);
    EXPECT_EQ(0, std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(float)))
        << "flags " << flags;
  }
}

// 1 and 2 threads give the same bits.
void expectWinogradThreadsAgree(int64_t n, int64_t h, int64_t w, int64_t c,
                                int64_t oc) {
  std::mt19937 rng(22);
  std::vector<float> x = randomVector(n * h * w * c, rng);
  std::vector<float> wt = randomVector(9 * c * oc, rng);
  std::vector<float> bias = randomVector(oc, rng);
  std::vector<float> packed(tfcc_rt_winograd_packed_size(c, oc));
  tfcc_rt_winograd_pack(c, oc, wt.data(), packed.data());
  std::vector<float> y1(n * h * w * oc), y2(n * h * w * oc);
  tfcc_rt_conv2d_winograd_f32(x.data(), n, h, w, c, packed.data(), oc, 1, 1, h,
                              w, bias.data(), nullptr, TFCC_ACT_RELU, 0, 0,
                              y1.data());
  tfcc_rt_pool *pool = tfcc_rt_pool_create(2);
  ASSERT_NE(pool, nullptr);
  tfcc_rt_set_current_pool(pool);
  tfcc_rt_conv2d_winograd_f32(x.data(), n, h, w, c, packed.data(), oc, 1, 1, h,
                              w, bias.data(), nullptr, TFCC_ACT_RELU, 0, 0,
                              y2.data());
  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(pool);
  EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)));
}

// Both modes: tile blocks (19x21: 110 tiles per image) and point-major
// (7x7: 16 tiles per image, 64 * c * oc > 1 MiB; threads split panels).
class WinogradThreads : public ::testing::TestWithParam<int64_t> {};

TEST_P(WinogradThreads, CountDoesNotChangeResults) {
  const int64_t h = GetParam(), w = h + 2 * (h > 10);
  expectWinogradThreadsAgree(2, h, w, h > 10 ? 40 : 160, h > 10 ? 72 : 130);
}

INSTANTIATE_TEST_SUITE_P(BlocksAndPointMajor, WinogradThreads,
                         ::testing::Values(19, 7));

TEST(WinogradThreadsOddBlocks, CountDoesNotChangeResults) {
  // 14x14x256: 49 tiles in 7 blocks, which 2 threads cannot share evenly, so
  // each block's panels are split too.
  expectWinogradThreadsAgree(1, 14, 14, 256, 64);
  // The same against the direct definition (a block's panels computed by
  // different tasks must still cover every output channel once).
  KernelEnv env(/*isa=*/-1, /*threads=*/2); // the CPU's own ISA
  ASSERT_TRUE(env.ok());
  std::mt19937 rng(23);
  ConvCase c{1, 14, 14, 256, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
             true, true, true, 1};
  ASSERT_TRUE(runConv(c, rng, /*winograd=*/true));
}

TEST(KernelsCheck, WinogradRule) {
  // ResNet-18's 3x3 stride-1 layers all use Winograd (7x7 in point-major
  // mode); outputs of fewer than 16 pixels and few channels stay on the
  // direct kernel.
  EXPECT_EQ(1, tfcc_rt_conv2d_winograd_preferred(56, 56, 64, 64, 56, 56));
  EXPECT_EQ(1, tfcc_rt_conv2d_winograd_preferred(28, 28, 128, 128, 28, 28));
  EXPECT_EQ(1, tfcc_rt_conv2d_winograd_preferred(14, 14, 256, 256, 14, 14));
  EXPECT_EQ(1, tfcc_rt_conv2d_winograd_preferred(7, 7, 512, 512, 7, 7));
  EXPECT_EQ(0, tfcc_rt_conv2d_winograd_preferred(3, 3, 512, 512, 3, 3));
  EXPECT_EQ(0, tfcc_rt_conv2d_winograd_preferred(28, 28, 16, 16, 28, 28));
  EXPECT_EQ(0, tfcc_rt_conv2d_winograd_preferred(28, 28, 1, 32, 26, 26));
  EXPECT_EQ(0, tfcc_rt_conv2d_winograd_preferred(
                   8, 8, TFCC_RT_WINOGRAD_MAX_C + 1, 64, 8, 8));
}

// ---- thread pool ----------------------------------------------------------

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> badThread{0};
  int threads = 1;
  explicit Coverage(size_t n) : hits(n) {}
};

void countFn(void *ctx, int64_t begin, int64_t end, int32_t thread) {
  auto *cov = static_cast<Coverage *>(ctx);
  if (thread < 0 || thread >= cov->threads)
    cov->badThread++;
  for (int64_t i = begin; i < end; ++i)
    cov->hits[i]++;
}

TEST(ThreadPool, CoversEachIndexOnce) {
  for (int threads : {1, 2, 3, 4}) {
    tfcc_rt_pool *pool = tfcc_rt_pool_create(threads);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(tfcc_rt_pool_num_threads(pool), threads);
    tfcc_rt_set_current_pool(pool);
    EXPECT_EQ(tfcc_rt_get_current_pool(), pool);
    for (int64_t n : {0, 1, 2, 3, 5, 7, 16, 100, 1000, 4097}) {
      for (int rep = 0; rep < 20; ++rep) {
        Coverage cov(n);
        cov.threads = threads;
        tfcc_rt_parallel_for(n, countFn, &cov);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(cov.hits[i].load(), 1)
              << "threads=" << threads << " n=" << n << " i=" << i;
        ASSERT_EQ(cov.badThread.load(), 0);
      }
    }
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool);
  }
}

TEST(ThreadPool, ManySmallJobs) {
  tfcc_rt_pool *pool = tfcc_rt_pool_create(2);
  ASSERT_NE(pool, nullptr);
  tfcc_rt_set_current_pool(pool);
  Coverage cov(8);
  cov.threads = 2;
  for (int rep = 0; rep < 20000; ++rep)
    tfcc_rt_parallel_for(8, countFn, &cov);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(cov.hits[i].load(), 20000);
  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(pool);
}

TEST(ThreadPool, ShutsDownWithWorkersSpinningOrAsleep) {
  // Destroyed right after a job (its workers still finishing their share or
  // spinning for the next job), after they went to sleep, and before any
  // job: every destroy joins its threads and returns, 2000 times.
  for (int rep = 0; rep < 2000; ++rep) {
    int threads = 2 + rep % 3;
    tfcc_rt_pool *pool = tfcc_rt_pool_create(threads);
    ASSERT_NE(pool, nullptr);
    if (rep % 7 != 6) {
      tfcc_rt_set_current_pool(pool);
      Coverage cov(64);
      cov.threads = threads;
      tfcc_rt_parallel_for(64, countFn, &cov);
      for (int i = 0; i < 64; ++i)
        ASSERT_EQ(cov.hits[i].load(), 1) << "rep " << rep;
      tfcc_rt_set_current_pool(nullptr);
      if (rep % 50 == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(2)); // asleep
    }
    tfcc_rt_pool_destroy(pool);
  }
}

TEST(ThreadPool, JobsOfChangingSizeRunEachIndexOnce) {
  // Back-to-back jobs whose size grows and shrinks, on more threads than
  // cores: a worker preempted between jobs must never run an index of the
  // next job under the previous one's claim (a double run, or a done count
  // past n that hangs the submitter).
  tfcc_rt_pool *pool = tfcc_rt_pool_create(3);
  ASSERT_NE(pool, nullptr);
  tfcc_rt_set_current_pool(pool);
  Coverage small(2), large(64);
  small.threads = large.threads = 3;
  const int reps = 50000;
  for (int rep = 0; rep < reps; ++rep) {
    tfcc_rt_parallel_for(2, countFn, &small);
    tfcc_rt_parallel_for(64, countFn, &large);
  }
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(small.hits[i].load(), reps);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(large.hits[i].load(), reps);
  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(pool);
}

struct FirstChunks {
  int threads = 2;
  std::atomic<int> entered{0};
  std::vector<std::atomic<int64_t>> first; // first index each thread ran
  explicit FirstChunks(int t) : threads(t), first(t) {
    for (auto &f : first)
      f = -1;
  }
};

void firstChunkFn(void *ctx, int64_t begin, int64_t end, int32_t thread) {
  (void)end;
  auto *fc = static_cast<FirstChunks *>(ctx);
  int64_t none = -1;
  if (fc->first[thread].compare_exchange_strong(none, begin)) {
    // Hold every thread in its first chunk until all have one, so none can
    // finish its share and steal before the others start.
    fc->entered++;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (fc->entered.load() < fc->threads &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
}

TEST(ThreadPool, EachThreadStartsOnItsOwnShare) {
  // Thread i starts at the i-th fraction of [0, n) in every job (later
  // layers split the same way then read what the same thread wrote, from
  // its own cache); only a thread with nothing left takes from the others,
  // from the back of their shares.
  for (int threads : {2, 3, 4}) {
    tfcc_rt_pool *pool = tfcc_rt_pool_create(threads);
    ASSERT_NE(pool, nullptr);
    tfcc_rt_set_current_pool(pool);
    for (int64_t n : {8, 100, 1000}) {
      FirstChunks fc(threads);
      tfcc_rt_parallel_for(n, firstChunkFn, &fc);
      ASSERT_EQ(fc.entered.load(), threads) << "threads=" << threads;
      for (int i = 0; i < threads; ++i) {
        const double share = double(n) / threads;
        EXPECT_NEAR(double(fc.first[i].load()), i * share, share / 2)
            << "threads=" << threads << " n=" << n << " thread " << i;
      }
    }
    tfcc_rt_set_current_pool(nullptr);
    tfcc_rt_pool_destroy(pool);
  }
}

struct Nested {
  Coverage inner{50 * 30};
  std::atomic<int> outerHits{0};
};

void outerFn(void *ctx, int64_t begin, int64_t end, int32_t thread) {
  (void)thread;
  auto *nested = static_cast<Nested *>(ctx);
  for (int64_t r = begin; r < end; ++r) {
    nested->outerHits++;
    // A nested call runs serially on this thread; hits row r's 30 slots.
    struct Row {
      Nested *n;
      int64_t r;
    } row{nested, r};
    tfcc_rt_parallel_for(
        30,
        [](void *c, int64_t b, int64_t e, int32_t) {
          auto *rw = static_cast<Row *>(c);
          for (int64_t i = b; i < e; ++i)
            rw->n->inner.hits[rw->r * 30 + i]++;
        },
        &row);
  }
}

TEST(ThreadPool, NestedCallsRunSerially) {
  tfcc_rt_pool *pool = tfcc_rt_pool_create(2);
  ASSERT_NE(pool, nullptr);
  tfcc_rt_set_current_pool(pool);
  Nested nested;
  tfcc_rt_parallel_for(50, outerFn, &nested);
  EXPECT_EQ(nested.outerHits.load(), 50);
  for (int i = 0; i < 50 * 30; ++i)
    ASSERT_EQ(nested.inner.hits[i].load(), 1) << i;
  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(pool);
}

TEST(ThreadPool, NullAndSingleThread) {
  tfcc_rt_pool_destroy(nullptr);
  EXPECT_EQ(tfcc_rt_pool_num_threads(nullptr), 1);
  EXPECT_EQ(tfcc_rt_pool_create(0), nullptr);
  tfcc_rt_set_current_pool(nullptr);
  EXPECT_EQ(tfcc_rt_get_current_pool(), nullptr);
  Coverage cov(10);
  tfcc_rt_parallel_for(10, countFn, &cov); // no pool: serial
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(cov.hits[i].load(), 1);
  tfcc_rt_pool *one = tfcc_rt_pool_create(1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(tfcc_rt_pool_num_threads(one), 1);
  tfcc_rt_set_current_pool(one);
  Coverage cov1(10);
  tfcc_rt_parallel_for(10, countFn, &cov1);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(cov1.hits[i].load(), 1);
  tfcc_rt_set_current_pool(nullptr);
  tfcc_rt_pool_destroy(one);
}

} // namespace

//===----------------------------------------------------------------------===//
// Top-k selection
//===----------------------------------------------------------------------===//

/// The k best indices of `row` by a stable sort (the oracle): larger or
/// smaller first, equal values in index order, NaN after every number.
std::vector<int64_t> topKBySort(const std::vector<float> &row, int64_t k,
                                bool largest) {
  std::vector<int64_t> order(row.size());
  for (size_t j = 0; j < row.size(); ++j)
    order[j] = static_cast<int64_t>(j);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    float va = row[a], vb = row[b];
    if (std::isnan(va) || std::isnan(vb))
      return !std::isnan(va) && std::isnan(vb);
    return largest ? va > vb : va < vb;
  });
  order.resize(k);
  return order;
}

TEST(TopKKernel, MatchesAStableSort) {
  std::mt19937 rng(19);
  // Few distinct values (many ties), ascending and descending rows (the
  // insertion's worst and best cases) and NaN.
  std::uniform_int_distribution<int> small(0, 4);
  for (int64_t cols : {1, 2, 7, 64, 300}) {
    for (int pattern = 0; pattern < 4; ++pattern) {
      const int64_t rows = 3;
      std::vector<float> x(rows * cols);
      for (int64_t i = 0; i < rows * cols; ++i) {
        int64_t j = i % cols;
        x[i] = pattern == 0   ? static_cast<float>(small(rng))
               : pattern == 1 ? static_cast<float>(j)
               : pattern == 2
                   ? static_cast<float>(-j)
                   : (j % 5 == 3 ? NAN : static_cast<float>(small(rng)));
      }
      for (int64_t k : {int64_t(1), cols / 2, cols}) {
        if (k < 1)
          continue;
        for (int largest = 0; largest <= 1; ++largest) {
          std::vector<int64_t> got(rows * k, -1);
          tfcc_rt_top_k_indices_f32(x.data(), rows, cols, k, largest,
                                    got.data());
          for (int64_t r = 0; r < rows; ++r) {
            std::vector<float> row(x.begin() + r * cols,
                                   x.begin() + (r + 1) * cols);
            std::vector<int64_t> want = topKBySort(row, k, largest);
            std::vector<int64_t> gotRow(got.begin() + r * k,
                                        got.begin() + (r + 1) * k);
            ASSERT_EQ(gotRow, want)
                << "cols " << cols << " pattern " << pattern << " k " << k
                << " largest " << largest << " row " << r;
          }
        }
      }
    }
  }
}

TEST(TopKKernel, LeavesTheOutputAloneOutsideItsDomain) {
  float x[3] = {1, 2, 3};
  int64_t out[4] = {-7, -7, -7, -7};
  tfcc_rt_top_k_indices_f32(x, 1, 3, 4, 1, out); // k > cols
  tfcc_rt_top_k_indices_f32(x, 1, 3, 0, 1, out); // k = 0
  tfcc_rt_top_k_indices_f32(x, 0, 3, 2, 1, out); // no rows
  for (int64_t v : out)
    EXPECT_EQ(v, -7);
}
