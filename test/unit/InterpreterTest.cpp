//===- InterpreterTest.cpp - tests of the reference interpreter -----------===//
//
// Each test parses a small graph-IR module, runs it and compares with values
// worked out by hand (the derivation is in the comment next to each literal).
// Floats must agree to 1e-6 max-norm relative error, integers exactly.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Interpreter.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Initializers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace mlir;
using tfcc::ref::ElementKind;
using tfcc::ref::Interpreter;
using tfcc::ref::Tensor;

namespace {

Tensor makeTensor(ElementKind kind, std::vector<int64_t> shape,
                  std::vector<double> data) {
  Tensor tensor;
  tensor.kind = kind;
  tensor.shape = std::move(shape);
  tensor.data = std::move(data);
  return tensor;
}
Tensor f32(std::vector<int64_t> shape, std::vector<double> data) {
  return makeTensor(ElementKind::F32, std::move(shape), std::move(data));
}
Tensor i32(std::vector<int64_t> shape, std::vector<double> data) {
  return makeTensor(ElementKind::I32, std::move(shape), std::move(data));
}
Tensor i64(std::vector<int64_t> shape, std::vector<double> data) {
  return makeTensor(ElementKind::I64, std::move(shape), std::move(data));
}
Tensor i1(std::vector<int64_t> shape, std::vector<double> data) {
  return makeTensor(ElementKind::I1, std::move(shape), std::move(data));
}

/// f32 result: same shape, max|a - b| / max|b| <= 1e-6 (max|a - b| if b is 0).
void expectNear(const Tensor &actual, const std::vector<int64_t> &shape,
                const std::vector<double> &expected) {
  ASSERT_EQ(actual.kind, ElementKind::F32);
  ASSERT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), expected.size());
  double maxError = 0.0, maxExpected = 0.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_FALSE(std::isnan(actual.data[i])) << "element " << i;
    maxError = std::max(maxError, std::fabs(actual.data[i] - expected[i]));
    maxExpected = std::max(maxExpected, std::fabs(expected[i]));
  }
  double relative = maxExpected == 0.0 ? maxError : maxError / maxExpected;
  EXPECT_LE(relative, 1e-6) << "max abs error " << maxError;
}

/// Integer or boolean result: equal kind, shape and values.
void expectExact(const Tensor &actual, ElementKind kind,
                 const std::vector<int64_t> &shape,
                 const std::vector<double> &expected) {
  EXPECT_EQ(actual.kind, kind);
  EXPECT_EQ(actual.shape, shape);
  EXPECT_EQ(actual.data, expected);
}

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  }

  /// Parses `source`, then runs `entry` on `inputs`, expecting success.
  std::vector<Tensor> run(llvm::StringRef source, llvm::StringRef entry,
                          std::vector<Tensor> inputs) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "does not parse:\n" << source.str();
    if (!module)
      return {};
    Interpreter interpreter(*module);
    FailureOr<std::vector<Tensor>> results = interpreter.run(entry, inputs);
    EXPECT_TRUE(succeeded(results)) << interpreter.error();
    return succeeded(results) ? *results : std::vector<Tensor>{};
  }

  /// Parses `source`, then runs `entry` on `inputs`, expecting failure; returns
  /// the error message.
  std::string runError(llvm::StringRef source, llvm::StringRef entry,
                       std::vector<Tensor> inputs) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "does not parse:\n" << source.str();
    if (!module)
      return {};
    Interpreter interpreter(*module);
    EXPECT_TRUE(failed(interpreter.run(entry, inputs)));
    return interpreter.error();
  }

  /// Runs a single-result function and returns its result.
  Tensor run1(llvm::StringRef source, std::vector<Tensor> inputs) {
    std::vector<Tensor> results = run(source, "f", std::move(inputs));
    EXPECT_EQ(results.size(), 1u);
    return results.empty() ? Tensor() : results[0];
  }

  MLIRContext context;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, AddBroadcasts) {
  Tensor r = run1(R"mlir(
    func.func @f(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
      %r = graph.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    })mlir",
                  {f32({2, 1}, {1, 2}), f32({3}, {10, 20, 30})});
  // [[1], [2]] + [10, 20, 30]: row i is (i + 1) + b.
  expectNear(r, {2, 3}, {11, 21, 31, 12, 22, 32});
}

TEST_F(InterpreterTest, ElementwiseRoundsToFloat) {
  Tensor r = run1(R"mlir(
    func.func @f(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {
      %r = graph.div %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      return %r : tensor<1xf32>
    })mlir",
                  {f32({1}, {1}), f32({1}, {3})});
  // 1 / 3 is stored as the nearest float, not the nearest double.
  EXPECT_EQ(r.data[0], static_cast<double>(1.0f / 3.0f));
}

TEST_F(InterpreterTest, Activations) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                                         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %0 = graph.hard_sigmoid %x : tensor<4xf32>
      %1 = graph.hard_swish %x : tensor<4xf32>
      %2 = graph.leaky_relu %x {alpha = 1.0e-01 : f32} : tensor<4xf32>
      %3 = graph.clip %x {min = -1.0 : f32, max = 2.0 : f32} : tensor<4xf32>
      %4 = graph.relu6 %x : tensor<4xf32>
      %5 = graph.gelu %x {approximate = "none"} : tensor<4xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                                      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir",
                              "f", {f32({4}, {-4, 0, 1, 7})});
  ASSERT_EQ(r.size(), 6u);
  // hard_sigmoid = relu6(x + 3) / 6: relu6(-1, 3, 4, 10) / 6 = 0, 1/2, 2/3, 1.
  expectNear(r[0], {4}, {0, 0.5, 2.0 / 3.0, 1});
  // hard_swish = x * hard_sigmoid(x) = -4*0, 0*0.5, 1*(2/3), 7*1.
  expectNear(r[1], {4}, {0, 0, 2.0 / 3.0, 7});
  // leaky_relu alpha 0.1: negative inputs times 0.1.
  expectNear(r[2], {4}, {-0.4, 0, 1, 7});
  // clip to [-1, 2].
  expectNear(r[3], {4}, {-1, 0, 1, 2});
  // relu6 = min(max(x, 0), 6).
  expectNear(r[4], {4}, {0, 0, 1, 6});
  // gelu(x) = 0.5 x (1 + erf(x / sqrt 2)): gelu(1) = 0.5 (1 + 0.6826894921)
  // = 0.8413447461; gelu(-4) = -4 * Phi(-4) = -4 * 3.167124183e-05; gelu(7) = 7
  // * Phi(7) = 7 (1 - 1.28e-12).
  expectNear(r[5], {4}, {-1.2668496733e-04, 0, 0.8413447460685429, 7});
}

TEST_F(InterpreterTest, GeluTanhApproximation) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %r = graph.gelu %x {approximate = "tanh"} : tensor<2xf32>
      return %r : tensor<2xf32>
    })mlir",
                  {f32({2}, {0, 1})});
  // 0.5 * 1 * (1 + tanh(sqrt(2/pi) * (1 + 0.044715))) = 0.5 * (1 +
  // tanh(0.8335594)) = 0.8411919906.
  expectNear(r, {2}, {0, 0.8411919906082768});
}

TEST_F(InterpreterTest, NaNPropagates) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
      %0 = graph.relu %x : tensor<2xf32>
      %1 = graph.maximum %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %2 = graph.reduce_max %x {axes = [0]} : (tensor<2xf32>) -> tensor<f32>
      return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
    })mlir",
                              "f", {f32({2}, {NAN, -1}), f32({2}, {5, 5})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(std::isnan(r[0].data[0]));
  EXPECT_EQ(r[0].data[1], 0.0);
  EXPECT_TRUE(std::isnan(r[1].data[0]));
  EXPECT_EQ(r[1].data[1], 5.0);
  EXPECT_TRUE(std::isnan(r[2].data[0]));
}

TEST_F(InterpreterTest, CastTruncatesTowardZero) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<4xf32>, %b: tensor<2xi1>, %i: tensor<3xi32>)
        -> (tensor<4xi32>, tensor<2xf32>, tensor<3xi1>) {
      %0 = graph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
      %1 = graph.cast %b : (tensor<2xi1>) -> tensor<2xf32>
      %2 = graph.cast %i : (tensor<3xi32>) -> tensor<3xi1>
      return %0, %1, %2 : tensor<4xi32>, tensor<2xf32>, tensor<3xi1>
    })mlir",
                              "f",
                              {f32({4}, {1.7, -1.7, 2.5, -0.5}),
                               i1({2}, {1, 0}), i32({3}, {0, 3, -2})});
  ASSERT_EQ(r.size(), 3u);
  expectExact(r[0], ElementKind::I32, {4},
              {1, -1, 2, 0});    // trunc(1.7), trunc(-1.7), ...
  expectNear(r[1], {2}, {1, 0}); // true -> 1, false -> 0
  expectExact(r[2], ElementKind::I1, {3}, {0, 1, 1}); // x != 0
}

TEST_F(InterpreterTest, F64KeepsDoublePrecision) {
  // 1 + 1e-10 is 1 in f32; f64 results are not rounded to float, and casts
  // between f64 and f32 round only on the way to f32.
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%a: tensor<2xf64>, %b: tensor<2xf64>)
        -> (tensor<2xf64>, tensor<2xf32>, tensor<2xf64>) {
      %c = graph.constant dense<[1.0e-10, 0.1]> : tensor<2xf64>
      %0 = graph.add %a, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
      %1 = graph.cast %0 : (tensor<2xf64>) -> tensor<2xf32>
      %2 = graph.mul %a, %b : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
      return %0, %1, %2 : tensor<2xf64>, tensor<2xf32>, tensor<2xf64>
    })mlir",
                              "f",
                              {makeTensor(ElementKind::F64, {2}, {1, 0.2}),
                               makeTensor(ElementKind::F64, {2}, {3, 1e-300})});
  ASSERT_EQ(r.size(), 3u);
  expectExact(r[0], ElementKind::F64, {2}, {1.0 + 1e-10, 0.2 + 0.1});
  expectExact(r[1], ElementKind::F32, {2},
              {1.0, static_cast<double>(static_cast<float>(0.2 + 0.1))});
  expectExact(r[2], ElementKind::F64, {2}, {3, 0.2 * 1e-300});
}

TEST_F(InterpreterTest, CompareAndSelect) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x3xf32>) {
      %c = graph.compare %a, %b {predicate = "ge"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
      %s = graph.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      return %c, %s : tensor<2x3xi1>, tensor<2x3xf32>
    })mlir",
          "f", {f32({2, 3}, {1, 5, 3, 4, 2, 6}), f32({3}, {2, 2, 3})});
  ASSERT_EQ(r.size(), 2u);
  // a >= b with b = [2, 2, 3] on each row: [1>=2, 5>=2, 3>=3], [4>=2, 2>=2,
  // 6>=3].
  expectExact(r[0], ElementKind::I1, {2, 3}, {0, 1, 1, 1, 1, 1});
  // select(c, a, b) = max(a, b) here.
  expectNear(r[1], {2, 3}, {2, 5, 3, 4, 2, 6});
}

constexpr const char *kIntegerModule = R"mlir(
  func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
    %0 = graph.add %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %1 = graph.div %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %2 = graph.pow %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %3 = graph.neg %a : tensor<3xi32>
    return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
  }
)mlir";

TEST_F(InterpreterTest, IntegerArithmeticIsExactAndWraps) {
  std::vector<Tensor> r =
      run(kIntegerModule, "f",
          {i32({3}, {2147483647, 7, -7}), i32({3}, {1, 2, 2})});
  ASSERT_EQ(r.size(), 4u);
  // 2^31 - 1 + 1 wraps to -2^31; 7 + 2; -7 + 2.
  expectExact(r[0], ElementKind::I32, {3}, {-2147483648.0, 9, -5});
  // Division truncates toward zero: 7 / 2 = 3, -7 / 2 = -3.
  expectExact(r[1], ElementKind::I32, {3}, {2147483647, 3, -3});
  // (2^31 - 1)^1, 7^2, (-7)^2.
  expectExact(r[2], ElementKind::I32, {3}, {2147483647, 49, 49});
  expectExact(r[3], ElementKind::I32, {3}, {-2147483647, -7, 7});
  std::string error =
      runError(kIntegerModule, "f", {i32({3}, {1, 2, 3}), i32({3}, {1, 0, 1})});
  EXPECT_EQ(error.rfind("integer division by zero at loc(", 0), 0u) << error;
}

TEST_F(InterpreterTest, ModTakesTheDivisorsSignOrTheDividends) {
  constexpr const char *kModModule = R"mlir(
    func.func @f(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
      %0 = graph.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
      %1 = graph.mod %a, %b {fmod = true} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
      return %0, %1 : tensor<4xi64>, tensor<4xi64>
    }
  )mlir";
  std::vector<Tensor> r = run(
      kModModule, "f", {i64({4}, {7, -7, 7, -7}), i64({4}, {3, 3, -3, -3})});
  ASSERT_EQ(r.size(), 2u);
  // Python: 7 % 3 = 1, -7 % 3 = 2, 7 % -3 = -2, -7 % -3 = -1.
  expectExact(r[0], ElementKind::I64, {4}, {1, 2, -2, -1});
  // C fmod: 1, -1, 1, -1.
  expectExact(r[1], ElementKind::I64, {4}, {1, -1, 1, -1});
  std::string error = runError(
      kModModule, "f", {i64({4}, {1, 2, 3, 4}), i64({4}, {1, 1, 0, 1})});
  EXPECT_EQ(error.rfind("integer remainder by zero at loc(", 0), 0u) << error;
}

TEST_F(InterpreterTest, DenseResourceConstantsAndVariables) {
  std::vector<Tensor> r = run(R"mlir(
    module {
      graph.variable @v : tensor<2xf32> = dense_resource<blob_v>
      func.func @f() -> (tensor<2xf32>, tensor<2xi32>) {
        %v = graph.read @v : tensor<2xf32>
        %c = graph.constant dense_resource<blob_c> : tensor<2xi32>
        return %v, %c : tensor<2xf32>, tensor<2xi32>
      }
    }
    {-#
      dialect_resources: {
        builtin: {
          blob_v: "0x040000000000803F00000040",
          blob_c: "0x0400000005000000FDFFFFFF"
        }
      }
    #-}
  )mlir",
                              "f", {});
  ASSERT_EQ(r.size(), 2u);
  // Alignment word 4, then little-endian 0x3F800000 = 1.0f, 0x40000000 = 2.0f.
  expectNear(r[0], {2}, {1, 2});
  // 0x00000005 = 5, 0xFFFFFFFD = -3.
  expectExact(r[1], ElementKind::I32, {2}, {5, -3});
}

//===----------------------------------------------------------------------===//
// Matrix products and convolutions
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Matmul) {
  std::vector<Tensor> r = run(
      R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %at: tensor<3x2xf32>,
                 %bt: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %1 = graph.matmul %at, %b {transpose_a = true} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %2 = graph.matmul %a, %bt {transpose_b = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
      return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
      "f",
      {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 2}, {7, 8, 9, 10, 11, 12}),
       f32({3, 2}, {1, 4, 2, 5, 3, 6}), f32({2, 3}, {7, 9, 11, 8, 10, 12})});
  ASSERT_EQ(r.size(), 3u);
  // [[1,2,3],[4,5,6]] @ [[7,8],[9,10],[11,12]]:
  // 1*7+2*9+3*11 = 58, 1*8+2*10+3*12 = 64, 4*7+5*9+6*11 = 139, 4*8+5*10+6*12 =
  // 154.
  expectNear(r[0], {2, 2}, {58, 64, 139, 154});
  // The same product with a stored transposed, then with b stored transposed.
  expectNear(r[1], {2, 2}, {58, 64, 139, 154});
  expectNear(r[2], {2, 2}, {58, 64, 139, 154});
}

TEST_F(InterpreterTest, MatmulBroadcastsRank2Rhs) {
  Tensor r = run1(R"mlir(
    func.func @f(%a: tensor<2x1x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x1x2xf32> {
      %r = graph.matmul %a, %b : (tensor<2x1x2xf32>, tensor<2x2xf32>) -> tensor<2x1x2xf32>
      return %r : tensor<2x1x2xf32>
    })mlir",
                  {f32({2, 1, 2}, {1, 2, 3, 4}), f32({2, 2}, {5, 6, 7, 8})});
  // batch 0: [1, 2] @ [[5, 6], [7, 8]] = [1*5+2*7, 1*6+2*8] = [19, 22];
  // batch 1: [3, 4] @ same = [3*5+4*7, 3*6+4*8] = [43, 50].
  expectNear(r, {2, 1, 2}, {19, 22, 43, 50});
}

constexpr const char *kConvModule = R"mlir(
  func.func @valid(%x: tensor<1x3x3x1xf32>, %k: tensor<2x2x1x1xf32>, %b: tensor<1xf32>) -> tensor<1x2x2x1xf32> {
    %r = graph.conv2d %x, %k, %b {padding = "valid"} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
    return %r : tensor<1x2x2x1xf32>
  }
  func.func @same_stride2(%x: tensor<1x3x3x1xf32>, %k: tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32> {
    %r = graph.conv2d %x, %k {strides = [2, 2], padding = "same"} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
    return %r : tensor<1x2x2x1xf32>
  }
)mlir";

TEST_F(InterpreterTest, Conv2DValidWithBias) {
  // x = [[1,2,3],[4,5,6],[7,8,9]], k = [[1,2],[3,4]]: out[i][j] = x[i][j] +
  // 2 x[i][j+1] + 3 x[i+1][j] + 4 x[i+1][j+1] + 0.5:
  // 1+4+12+20 = 37, 2+6+15+24 = 47, 4+10+21+32 = 67, 5+12+24+36 = 77.
  std::vector<Tensor> r =
      run(kConvModule, "valid",
          {f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
           f32({2, 2, 1, 1}, {1, 2, 3, 4}), f32({1}, {0.5})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {1, 2, 2, 1}, {37.5, 47.5, 67.5, 77.5});
}

TEST_F(InterpreterTest, Conv2DSameStride2PadsBottomRight) {
  // in 3, stride 2: out = ceil(3/2) = 2, total padding = (2-1)*2 + 2 - 3 = 1,
  // all of it after. Windows start at rows/cols 0 and 2:
  // (0,0) = 37 as above; (0,1) = x[0][2]*1 + x[1][2]*3 = 3 + 18 = 21;
  // (1,0) = x[2][0]*1 + x[2][1]*2 = 7 + 16 = 23; (1,1) = x[2][2]*1 = 9.
  std::vector<Tensor> r = run(kConvModule, "same_stride2",
                              {f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                               f32({2, 2, 1, 1}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {1, 2, 2, 1}, {37, 21, 23, 9});
}

TEST_F(InterpreterTest, Conv2DGrouped) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32> {
      %r = graph.conv2d %x, %k {groups = 2} : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32>
      return %r : tensor<1x1x1x4xf32>
    })mlir",
                  {f32({1, 1, 1, 4}, {1, 2, 3, 4}),
                   f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
  // k[ci][o] = [[1,2,3,4],[5,6,7,8]]; outputs 0,1 read channels 0,1 (x = 1, 2),
  // outputs 2,3 read channels 2,3 (x = 3, 4):
  // o0 = 1*1 + 2*5 = 11, o1 = 1*2 + 2*6 = 14, o2 = 3*3 + 4*7 = 37, o3 = 3*4 +
  // 4*8 = 44.
  expectNear(r, {1, 1, 1, 4}, {11, 14, 37, 44});
}

TEST_F(InterpreterTest, Conv2DDilated) {
  Tensor r =
      run1(R"mlir(
    func.func @f(%x: tensor<1x1x5x1xf32>, %k: tensor<1x2x1x1xf32>) -> tensor<1x1x3x1xf32> {
      %r = graph.conv2d %x, %k {dilations = [1, 2]} : (tensor<1x1x5x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x3x1xf32>
      return %r : tensor<1x1x3x1xf32>
    })mlir",
           {f32({1, 1, 5, 1}, {1, 2, 3, 4, 5}), f32({1, 2, 1, 1}, {1, 10})});
  // Taps two apart: out[j] = x[j] + 10 x[j+2] = 1+30, 2+40, 3+50.
  expectNear(r, {1, 1, 3, 1}, {31, 42, 53});
}

TEST_F(InterpreterTest, DepthwiseConv2DMultiplier2) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<1x1x2x2xf32>, %k: tensor<1x2x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x1x1x4xf32> {
      %r = graph.depthwise_conv2d %x, %k, %b : (tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>, tensor<4xf32>) -> tensor<1x1x1x4xf32>
      return %r : tensor<1x1x1x4xf32>
    })mlir",
                  {f32({1, 1, 2, 2}, {1, 2, 3, 4}),
                   f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                   f32({4}, {1, 2, 3, 4})});
  // Pixels (c0, c1): w0 = (1, 2), w1 = (3, 4). k[w][c][m]: w0: c0 (1, 2), c1
  // (3, 4); w1: c0 (5, 6), c1 (7, 8). Output channel c*2 + m: (c0,m0) = 1*1 +
  // 3*5 = 16, (c0,m1) = 1*2 + 3*6 = 20, (c1,m0) = 2*3 + 4*7 = 34, (c1,m1) = 2*4
  // + 4*8 = 40; plus bias 1, 2, 3, 4.
  expectNear(r, {1, 1, 1, 4}, {17, 22, 37, 44});
}

TEST_F(InterpreterTest, Dense) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
      %r = graph.dense %x, %k, %b : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
      return %r : tensor<2x2xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                   f32({3, 2}, {7, 8, 9, 10, 11, 12}), f32({2}, {0.5, -1})});
  // The matmul above (58, 64, 139, 154) plus bias [0.5, -1].
  expectNear(r, {2, 2}, {58.5, 63, 139.5, 153});
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, MaxPoolSameIgnoresPadding) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<1x3x3x1xf32>) -> tensor<1x2x2x1xf32> {
      %r = graph.max_pool2d %x {window = [2, 2], strides = [2, 2], padding = "same"} : (tensor<1x3x3x1xf32>) -> tensor<1x2x2x1xf32>
      return %r : tensor<1x2x2x1xf32>
    })mlir",
                  {f32({1, 3, 3, 1}, {-1, -2, -3, -4, -5, -6, -7, -8, -9})});
  // Padding of 1 at the bottom/right; windows {-1,-2,-4,-5}, {-3,-6}, {-7,-8},
  // {-9}. Zero padding would have given 0 for the last three.
  expectNear(r, {1, 2, 2, 1}, {-1, -3, -7, -9});
}

TEST_F(InterpreterTest, AvgPoolSameDividesByRealCount) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<1x3x3x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>) {
      %0 = graph.avg_pool2d %x {window = [2, 2], padding = "same"} : (tensor<1x3x3x1xf32>) -> tensor<1x2x2x1xf32>
      %1 = graph.avg_pool2d %x {window = [3, 3], strides = [1, 1], padding = "same"} : (tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
      return %0, %1 : tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>
    })mlir",
          "f", {f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_EQ(r.size(), 2u);
  // Strides default to the window: (1+2+4+5)/4 = 3, (3+6)/2 = 4.5, (7+8)/2
  // = 7.5, 9/1.
  expectNear(r[0], {1, 2, 2, 1}, {3, 4.5, 7.5, 9});
  // 3x3 windows centred on each pixel, padding 1 on each side:
  // corners: (1+2+4+5)/4 = 3, (2+3+5+6)/4 = 4, (4+5+7+8)/4 = 6, (5+6+8+9)/4 =
  // 7; edges: (1+2+3+4+5+6)/6 = 3.5, (1+2+4+5+7+8)/6 = 4.5, (2+3+5+6+8+9)/6
  // = 5.5, (4+5+6+7+8+9)/6 = 6.5; centre 45/9 = 5.
  expectNear(r[1], {1, 3, 3, 1}, {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
}

TEST_F(InterpreterTest, GlobalPools) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
      %0 = graph.global_avg_pool2d %x : (tensor<1x2x2x2xf32>) -> tensor<1x2xf32>
      %1 = graph.global_max_pool2d %x : (tensor<1x2x2x2xf32>) -> tensor<1x2xf32>
      return %0, %1 : tensor<1x2xf32>, tensor<1x2xf32>
    })mlir",
          "f", {f32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40})});
  ASSERT_EQ(r.size(), 2u);
  // Channel 0 holds 1..4, channel 1 holds 10..40.
  expectNear(r[0], {1, 2}, {2.5, 25});
  expectNear(r[1], {1, 2}, {4, 40});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ResizeNearest) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> {
      %r = graph.resize %x {size = [4, 4], mode = "nearest"} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
      return %r : tensor<1x4x4x1xf32>
    })mlir",
                  {f32({1, 2, 2, 1}, {1, 2, 3, 4})});
  // scale 0.5, src = floor((dst + 0.5) * 0.5) = floor(0.25, 0.75, 1.25, 1.75) =
  // 0, 0, 1, 1.
  expectNear(r, {1, 4, 4, 1}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST_F(InterpreterTest, ResizeBilinearHalfPixel) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> {
      %r = graph.resize %x {size = [4, 4], mode = "bilinear"} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
      return %r : tensor<1x4x4x1xf32>
    })mlir",
                  {f32({1, 2, 2, 1}, {1, 2, 3, 4})});
  // src = (dst + 0.5) * 0.5 - 0.5 = -0.25, 0.25, 0.75, 1.25; clamped to [0, 1]
  // the weight of index 1 is 0, 0.25, 0.75, 1 on each axis. With x =
  // [[1,2],[3,4]] the result is 1 + wc + 2 wr (wc, wr the column and row
  // weights).
  expectNear(r, {1, 4, 4, 1},
             {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3,
              3.25, 3.75, 4});
}

TEST_F(InterpreterTest, ResizeWithoutHalfPixelCenters) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<1x1x2x1xf32>) -> (tensor<1x1x4x1xf32>, tensor<1x1x4x1xf32>) {
      %0 = graph.resize %x {size = [1, 4], mode = "bilinear", half_pixel_centers = false} : (tensor<1x1x2x1xf32>) -> tensor<1x1x4x1xf32>
      %1 = graph.resize %x {size = [1, 4], mode = "nearest", half_pixel_centers = false} : (tensor<1x1x2x1xf32>) -> tensor<1x1x4x1xf32>
      return %0, %1 : tensor<1x1x4x1xf32>, tensor<1x1x4x1xf32>
    })mlir",
                              "f", {f32({1, 1, 2, 1}, {1, 2})});
  ASSERT_EQ(r.size(), 2u);
  // Legacy mapping src = dst * 0.5 = 0, 0.5, 1, 1.5 (upper index clamped to 1).
  expectNear(r[0], {1, 1, 4, 1}, {1, 1.5, 2, 2});
  expectNear(r[1], {1, 1, 4, 1}, {1, 1, 2, 2}); // floor(src)
}

TEST_F(InterpreterTest, SliceWithStridesAndEnd) {
  std::vector<double> x(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i; // x[i][j] = 6 i + j
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
      %r = graph.slice %x {starts = [1, 0], limits = [3, -1], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    })mlir",
                  {f32({4, 6}, x)});
  // Rows 1, 2; columns 0, 2, 4 (limit -1 = 6).
  expectNear(r, {2, 3}, {6, 8, 10, 12, 14, 16});
}

TEST_F(InterpreterTest, Pad) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> tensor<3x5xf32> {
      %r = graph.pad %x {pads = [1, 0, 0, 2], value = 5.0e-01 : f32} : (tensor<2x3xf32>) -> tensor<3x5xf32>
      return %r : tensor<3x5xf32>
    })mlir",
                  {f32({2, 3}, {1, 2, 3, 4, 5, 6})});
  // One row of 0.5 above, two columns of 0.5 on the right.
  expectNear(r, {3, 5},
             {0.5, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 0.5, 0.5, 4, 5, 6, 0.5, 0.5});
}

TEST_F(InterpreterTest, ReshapeTransposeConcat) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x4xf32>) {
      %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %1 = graph.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %2 = graph.concat %x, %y {axis = 1} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
      return %0, %1, %2 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x4xf32>
    })mlir",
          "f", {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1}, {7, 8})});
  ASSERT_EQ(r.size(), 3u);
  expectNear(r[0], {3, 2}, {1, 2, 3, 4, 5, 6}); // row-major order unchanged
  expectNear(r[1], {3, 2}, {1, 4, 2, 5, 3, 6}); // x^T
  expectNear(r[2], {2, 4}, {1, 2, 3, 7, 4, 5, 6, 8}); // y appended to each row
}

TEST_F(InterpreterTest, Transpose3D) {
  std::vector<double> x(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i; // x[a][b][c] = 12 a + 4 b + c
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
      %r = graph.transpose %x {perm = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      return %r : tensor<4x2x3xf32>
    })mlir",
                  {f32({2, 3, 4}, x)});
  // y[c][a][b] = x[a][b][c] = 12 a + 4 b + c.
  std::vector<double> expected;
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b)
        expected.push_back(12 * a + 4 * b + c);
  expectNear(r, {4, 2, 3}, expected);
}

constexpr const char *kGatherModule = R"mlir(
  func.func @rows(%t: tensor<4x2xf32>, %i: tensor<3xi32>) -> tensor<3x2xf32> {
    %r = graph.gather %t, %i : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32> loc("embedding")
    return %r : tensor<3x2xf32>
  }
  func.func @columns(%t: tensor<2x3xf32>, %i: tensor<2xi32>) -> tensor<2x2xf32> {
    %r = graph.gather %t, %i {axis = 1} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
    return %r : tensor<2x2xf32>
  }
)mlir";

TEST_F(InterpreterTest, Gather) {
  std::vector<Tensor> r =
      run(kGatherModule, "rows",
          {f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}), i32({3}, {2, 0, 3})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {3, 2}, {20, 21, 0, 1, 30, 31}); // rows 2, 0, 3
  r = run(kGatherModule, "columns",
          {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2}, {2, 0})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {2, 2}, {3, 1, 6, 4}); // columns 2, 0
}

TEST_F(InterpreterTest, GatherOutOfRangeIsAnError) {
  std::string error =
      runError(kGatherModule, "rows",
               {f32({4, 2}, std::vector<double>(8, 0)), i32({3}, {0, 4, 1})});
  EXPECT_EQ(error, "gather index 4 out of range [0, 4) at loc(\"embedding\")");
  error =
      runError(kGatherModule, "rows",
               {f32({4, 2}, std::vector<double>(8, 0)), i32({3}, {0, -1, 1})});
  EXPECT_NE(error.find("gather index -1 out of range [0, 4)"),
            std::string::npos)
      << error;
}

constexpr const char *kGatherElementsModule = R"mlir(
  func.func @pick(%d: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
    %r = graph.gather_elements %d, %i {axis = 1} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32> loc("pick")
    return %r : tensor<2x2xf32>
  }
  func.func @rows(%d: tensor<3x2xf32>, %i: tensor<2x2xi32>) -> tensor<2x2xf32> {
    %r = graph.gather_elements %d, %i : (tensor<3x2xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
    return %r : tensor<2x2xf32>
  }
)mlir";

TEST_F(InterpreterTest, GatherElements) {
  // d = [[1, 2, 3], [4, 5, 6]]; along axis 1 row r picks d[r][i[r][c]].
  std::vector<Tensor> r =
      run(kGatherElementsModule, "pick",
          {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {2, 0, 1, 1})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {2, 2}, {3, 1, 5, 5});
  // Along axis 0 (a 2x2 corner of a 3x2 table): column c picks d[i[r][c]][c].
  r = run(kGatherElementsModule, "rows",
          {f32({3, 2}, {10, 11, 20, 21, 30, 31}), i32({2, 2}, {2, 0, 1, 2})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {2, 2}, {30, 11, 20, 31});
}

TEST_F(InterpreterTest, GatherElementsOutOfRangeIsAnError) {
  std::string error = runError(
      kGatherElementsModule, "pick",
      {f32({2, 3}, std::vector<double>(6, 0)), i64({2, 2}, {0, 3, 1, 1})});
  EXPECT_EQ(error, "gather index 3 out of range [0, 3) at loc(\"pick\")");
}

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Reductions) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>) {
      %0 = graph.reduce_mean %x {axes = [-1], keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %1 = graph.reduce_mean %x {axes = [0]} : (tensor<2x3xf32>) -> tensor<3xf32>
      %2 = graph.reduce_sum %x {axes = [0, 1]} : (tensor<2x3xf32>) -> tensor<f32>
      %3 = graph.reduce_max %x {axes = [1]} : (tensor<2x3xf32>) -> tensor<2xf32>
      %4 = graph.reduce_min %x {axes = [-2]} : (tensor<2x3xf32>) -> tensor<3xf32>
      return %0, %1, %2, %3, %4 : tensor<2x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>
    })mlir",
                              "f", {f32({2, 3}, {1, 2, 3, 4, 5, 9})});
  ASSERT_EQ(r.size(), 5u);
  expectNear(r[0], {2, 1}, {2, 6});     // (1+2+3)/3, (4+5+9)/3
  expectNear(r[1], {3}, {2.5, 3.5, 6}); // column means
  expectNear(r[2], {}, {24});           // everything
  expectNear(r[3], {2}, {3, 9});        // row maxima
  expectNear(r[4], {3}, {1, 2, 3});     // column minima
}

TEST_F(InterpreterTest, ArgmaxFirstIndexWinsTies) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x4xf32>) -> tensor<2xi32> {
      %r = graph.argmax %x {axis = -1} : (tensor<2x4xf32>) -> tensor<2xi32>
      return %r : tensor<2xi32>
    })mlir",
                  {f32({2, 4}, {1, 3, 3, 2, 5, 5, 5, 5})});
  expectExact(r, ElementKind::I32, {2}, {1, 0});
}

TEST_F(InterpreterTest, SoftmaxAndLogSoftmax) {
  std::vector<Tensor> r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = graph.softmax %x {axis = -1} : tensor<2x3xf32>
      %1 = graph.log_softmax %x {axis = -1} : tensor<2x3xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
                              "f", {f32({2, 3}, {1, 2, 3, 1000, 1001, 1002})});
  ASSERT_EQ(r.size(), 2u);
  // x - max = [-2, -1, 0]: exp = 0.1353352832, 0.3678794412, 1, sum s
  // = 1.5032147244; softmax = exp / s; log_softmax = (x - max) - log(s), log(s)
  // = 0.4076059644. The second row differs by a constant (1000 would overflow
  // exp without the max).
  const std::vector<double> p = {0.09003057317038046, 0.24472847105479764,
                                 0.6652409557748218};
  const std::vector<double> lp = {-2.4076059644443806, -1.4076059644443804,
                                  -0.4076059644443804};
  expectNear(r[0], {2, 3}, {p[0], p[1], p[2], p[0], p[1], p[2]});
  expectNear(r[1], {2, 3}, {lp[0], lp[1], lp[2], lp[0], lp[1], lp[2]});
  EXPECT_NEAR(r[0].data[0] + r[0].data[1] + r[0].data[2], 1.0, 1e-6);
}

TEST_F(InterpreterTest, SoftmaxAlongAxis0) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %r = graph.softmax %x {axis = 0} : tensor<2x2xf32>
      return %r : tensor<2x2xf32>
    })mlir",
                  {f32({2, 2}, {0, 5, 0, 5})});
  // Each column holds two equal values: 1/2 each.
  expectNear(r, {2, 2}, {0.5, 0.5, 0.5, 0.5});
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, LayerNorm) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<1x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>,
                 %x3: tensor<1x2x2xf32>, %g2: tensor<2x2xf32>, %b2: tensor<2x2xf32>)
        -> (tensor<1x4xf32>, tensor<1x2x2xf32>) {
      %0 = graph.layer_norm %x, %g, %b {epsilon = 2.75 : f32} : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
      %1 = graph.layer_norm %x3, %g2, %b2 {axis = 1, epsilon = 2.75 : f32} : (tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
      return %0, %1 : tensor<1x4xf32>, tensor<1x2x2xf32>
    })mlir",
          "f",
          {f32({1, 4}, {1, 2, 3, 4}), f32({4}, {1, 2, 1, 1}),
           f32({4}, {0, 0, 0, 0.5}), f32({1, 2, 2}, {1, 2, 3, 4}),
           f32({2, 2}, {1, 2, 1, 1}), f32({2, 2}, {0, 0, 0, 0.5})});
  ASSERT_EQ(r.size(), 2u);
  // mean 2.5, biased variance (2.25+0.25+0.25+2.25)/4 = 1.25, sqrt(1.25 + 2.75)
  // = 2: normalized [-0.75, -0.25, 0.25, 0.75], times gamma [1,2,1,1], plus
  // beta [0,0,0,0.5].
  expectNear(r[0], {1, 4}, {-0.75, -0.5, 0.25, 1.25});
  // axis = 1 of a rank-3 tensor normalizes the last two axes together: same
  // numbers.
  expectNear(r[1], {1, 2, 2}, {-0.75, -0.5, 0.25, 1.25});
}

TEST_F(InterpreterTest, BatchNormInference) {
  Tensor r = run1(R"mlir(
    func.func @f(%x: tensor<2x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2x2xf32> {
      %r = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0 : f32} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
      return %r : tensor<2x2xf32>
    })mlir",
                  {f32({2, 2}, {1, 2, 3, 4}), f32({2}, {2, 1}),
                   f32({2}, {0, 1}), f32({2}, {1, 2}), f32({2}, {3, 0})});
  // channel 0: (x - 1) / sqrt(3 + 1) * 2 + 0 = x - 1 -> 0, 2;
  // channel 1: (x - 2) / sqrt(0 + 1) * 1 + 1 = x - 1 -> 1, 3.
  expectNear(r, {2, 2}, {0, 1, 2, 3});
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

constexpr const char *kLossModule = R"mlir(
  func.func @sparse(%l: tensor<2x3xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %r = graph.sparse_softmax_cross_entropy %l, %y : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
    return %r : tensor<f32>
  }
  func.func @dense(%l: tensor<2x3xf32>, %p: tensor<2x3xf32>) -> tensor<f32> {
    %r = graph.softmax_cross_entropy %l, %p : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
    return %r : tensor<f32>
  }
  func.func @mse(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<f32> {
    %r = graph.mean_squared_error %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
    return %r : tensor<f32>
  }
)mlir";

TEST_F(InterpreterTest, SparseSoftmaxCrossEntropy) {
  std::vector<Tensor> r =
      run(kLossModule, "sparse",
          {f32({2, 3}, {1, 2, 3, 1, 2, 3}), i32({2}, {2, 0})});
  ASSERT_EQ(r.size(), 1u);
  // -log_softmax([1, 2, 3]) = [2.4076059644, 1.4076059644, 0.4076059644];
  // labels 2 and 0 pick 0.4076059644 and 2.4076059644, mean 1.4076059644.
  expectNear(r[0], {}, {1.4076059644443806});
  std::string error =
      runError(kLossModule, "sparse",
               {f32({2, 3}, {1, 2, 3, 1, 2, 3}), i32({2}, {2, 3})});
  EXPECT_NE(error.find("label 3 out of range [0, 3)"), std::string::npos)
      << error;
}

TEST_F(InterpreterTest, SoftmaxCrossEntropy) {
  std::vector<Tensor> r = run(
      kLossModule, "dense",
      {f32({2, 3}, {1, 2, 3, 0, 0, 0}), f32({2, 3}, {0, 0, 1, 0.5, 0.5, 0})});
  ASSERT_EQ(r.size(), 1u);
  // Row 0: -log_softmax([1,2,3])[2] = 0.4076059644; row 1: uniform logits,
  // -log(1/3) = 1.0986122887 whatever the targets; mean 0.7531091266.
  expectNear(r[0], {}, {0.7531091265562451});
}

TEST_F(InterpreterTest, MeanSquaredError) {
  std::vector<Tensor> r =
      run(kLossModule, "mse",
          {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {1, 1, 1, 1})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {}, {3.5}); // (0 + 1 + 4 + 9) / 4
}

//===----------------------------------------------------------------------===//
// Functions, variables, constants, dynamic shapes and input checks
//===----------------------------------------------------------------------===//

constexpr const char *kCallModule = R"mlir(
  func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = func.call @twice(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %z = graph.mul %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %z : tensor<2xf32>
  }
)mlir";

TEST_F(InterpreterTest, CallsPrivateFunction) {
  Tensor r = run1(kCallModule, {f32({2}, {1, 3})});
  expectNear(r, {2}, {4, 36}); // (2x)^2
  std::string error = runError(kCallModule, "twice", {f32({2}, {1, 3})});
  EXPECT_EQ(error, "no public function 'twice' in the module");
}

constexpr const char *kVariableModule = R"mlir(
  module @m {
    graph.variable @w : tensor<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>
    graph.variable @b : tensor<2xf32> = dense<5.0e-01>
    graph.variable @ones : tensor<3xf32> = #graph.init<"ones">
    graph.variable @g : tensor<3x4xf32> = #graph.init<"glorot_uniform", seed = 7>
    func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
      %w = graph.read @w : tensor<2x2xf32>
      %b = graph.read @b : tensor<2xf32>
      %y = graph.dense %x, %w, %b : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
      return %y : tensor<?x2xf32>
    }
    func.func @inits() -> (tensor<3xf32>, tensor<3x4xf32>, tensor<2xi32>) {
      %o = graph.read @ones : tensor<3xf32>
      %g = graph.read @g : tensor<3x4xf32>
      %c = graph.constant dense<[7, -8]> : tensor<2xi32>
      return %o, %g, %c : tensor<3xf32>, tensor<3x4xf32>, tensor<2xi32>
    }
  }
)mlir";

TEST_F(InterpreterTest, VariablesAndDynamicBatch) {
  // y = x @ [[1, 2], [3, 4]] + 0.5, at batch sizes 1 and 3.
  std::vector<Tensor> r =
      run(kVariableModule, "predict", {f32({1, 2}, {1, 1})});
  ASSERT_EQ(r.size(), 1u);
  expectNear(r[0], {1, 2}, {4.5, 6.5}); // [1+3, 2+4] + 0.5
  r = run(kVariableModule, "predict", {f32({3, 2}, {1, 0, 0, 1, 2, 2})});
  ASSERT_EQ(r.size(), 1u);
  // [1, 0] -> [1, 2]; [0, 1] -> [3, 4]; [2, 2] -> [8, 12]; each + 0.5.
  expectNear(r[0], {3, 2}, {1.5, 2.5, 3.5, 4.5, 8.5, 12.5});
}

TEST_F(InterpreterTest, InitializersMatchTheSharedGenerator) {
  std::vector<Tensor> r = run(kVariableModule, "inits", {});
  ASSERT_EQ(r.size(), 3u);
  expectNear(r[0], {3}, {1, 1, 1});
  // The glorot values are those of the one shared generator, bit for bit.
  std::vector<float> expected(12);
  graph::generateInitializer("glorot_uniform", 7, std::nullopt, {3, 4},
                             expected);
  ASSERT_EQ(r[1].shape, (std::vector<int64_t>{3, 4}));
  for (size_t i = 0; i < 12; ++i)
    EXPECT_EQ(r[1].data[i], static_cast<double>(expected[i]))
        << "element " << i;
  expectExact(r[2], ElementKind::I32, {2}, {7, -8}); // graph.constant
}

TEST_F(InterpreterTest, DynamicBatchReduction) {
  const char *source = R"mlir(
    func.func @f(%x: tensor<?x3xf32>) -> tensor<?xf32> {
      %r = graph.reduce_sum %x {axes = [1]} : (tensor<?x3xf32>) -> tensor<?xf32>
      return %r : tensor<?xf32>
    })mlir";
  expectNear(run1(source, {f32({1, 3}, {1, 2, 3})}), {1}, {6});
  expectNear(run1(source, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}), {2}, {6, 15});
}

constexpr const char *kPredictModule = R"mlir(
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %r = graph.relu %x : tensor<?x4xf32>
    return %r : tensor<?x4xf32>
  }
)mlir";

TEST_F(InterpreterTest, InputShapeMismatchIsAnError) {
  EXPECT_EQ(runError(kPredictModule, "predict",
                     {f32({2, 3}, std::vector<double>(6, 0))}),
            "input 0 of 'predict' has shape [2, 3], expected [?, 4]");
  EXPECT_EQ(runError(kPredictModule, "predict",
                     {f32({8}, std::vector<double>(8, 0))}),
            "input 0 of 'predict' has shape [8], expected [?, 4]");
  EXPECT_EQ(runError(kPredictModule, "predict", {i32({1, 4}, {0, 0, 0, 0})}),
            "input 0 of 'predict' has element type i32, expected f32");
  EXPECT_EQ(runError(kPredictModule, "predict", {f32({1, 4}, {0, 0})}),
            "input 0 of 'predict' has 2 values for shape [1, 4]");
  EXPECT_EQ(runError(kPredictModule, "predict", {}),
            "'predict' takes 1 inputs, got 0");
  EXPECT_EQ(runError(kPredictModule, "missing", {}),
            "no public function 'missing' in the module");
}

//===----------------------------------------------------------------------===//
// The models of the contract (shared/spec/models)
//===----------------------------------------------------------------------===//

/// Deterministic inputs for an argument type: dynamic dims become 2, f32 in
/// [-1, 1), integers in [0, 4) (valid labels and gather indices of ops.mlir),
/// booleans alternating.
Tensor syntheticInput(RankedTensorType type, unsigned salt) {
  std::vector<int64_t> shape;
  for (int64_t dim : type.getShape())
    shape.push_back(ShapedType::isDynamic(dim) ? 2 : dim);
  ElementKind kind = *tfcc::ref::elementKindOf(type.getElementType());
  Tensor tensor = Tensor::zeros(kind, shape);
  uint32_t state = 12345u + salt * 7919u;
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    uint32_t bits = state >> 8;
    if (kind == ElementKind::F32)
      tensor.data[i] = static_cast<float>(bits / 8388608.0 - 1.0);
    else if (kind == ElementKind::I1)
      tensor.data[i] = i % 2;
    else
      tensor.data[i] = bits % 4;
  }
  return tensor;
}

class SpecModelsTest : public InterpreterTest {
protected:
  OwningOpRef<ModuleOp> parseModel(const std::string &name) {
    std::string path = std::string(TFCC_SPEC_MODELS_DIR) + "/" + name;
    if (!std::ifstream(path).good())
      return nullptr;
    return parseSourceFile<ModuleOp>(path, &context);
  }
};

TEST_F(SpecModelsTest, EveryFunctionOfOpsEvaluates) {
  OwningOpRef<ModuleOp> module = parseModel("ops.mlir");
  if (!module)
    GTEST_SKIP() << "ops.mlir not found in " << TFCC_SPEC_MODELS_DIR;
  Interpreter interpreter(*module);
  int count = 0;
  for (func::FuncOp func : module->getOps<func::FuncOp>()) {
    std::vector<Tensor> inputs;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      inputs.push_back(syntheticInput(llvm::cast<RankedTensorType>(type), i));
    FailureOr<std::vector<Tensor>> results =
        interpreter.run(func.getSymName(), inputs);
    EXPECT_TRUE(succeeded(results))
        << func.getSymName().str() << ": " << interpreter.error();
    ++count;
  }
  EXPECT_GT(count, 60);
}

TEST_F(SpecModelsTest, ModelsGiveProbabilities) {
  for (const char *name : {"mlp.mlir", "mnist_cnn.mlir"}) {
    OwningOpRef<ModuleOp> module = parseModel(name);
    if (!module)
      GTEST_SKIP() << name << " not found in " << TFCC_SPEC_MODELS_DIR;
    auto predict = module->lookupSymbol<func::FuncOp>("predict");
    ASSERT_TRUE(predict);
    Interpreter interpreter(*module);
    Tensor input = syntheticInput(
        llvm::cast<RankedTensorType>(predict.getArgumentTypes()[0]), 0);
    FailureOr<std::vector<Tensor>> results =
        interpreter.run("predict", {input});
    ASSERT_TRUE(succeeded(results)) << name << ": " << interpreter.error();
    const Tensor &probs = (*results)[0];
    ASSERT_EQ(probs.shape, (std::vector<int64_t>{2, 10})) << name;
    for (int n = 0; n < 2; ++n) {
      double sum = 0.0;
      for (int j = 0; j < 10; ++j)
        sum += probs.data[n * 10 + j];
      EXPECT_NEAR(sum, 1.0, 1e-5) << name << " row " << n;
    }
  }
}

TEST_F(InterpreterTest, PadReflectAndEdge) {
  std::vector<Tensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>) {
      %0 = graph.pad %x {pads = [1, 0, 2, 1], mode = "reflect"} : (tensor<2x3xf32>) -> tensor<3x6xf32>
      %1 = graph.pad %x {pads = [1, 0, 2, 1], mode = "edge", value = 9.0 : f32} : (tensor<2x3xf32>) -> tensor<3x6xf32>
      return %0, %1 : tensor<3x6xf32>, tensor<3x6xf32>
    })mlir",
          "f", {f32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 2u);
  // Reflect: result row -1 reads row 1; columns -2, -1 read 2, 1 and column 3
  // reads 1, so a row [a, b, c] becomes [c, b, a, b, c, b].
  expectNear(r[0], {3, 6},
             {6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
  // Edge (value ignored): row -1 reads row 0; [a, b, c] -> [a, a, a, b, c, c].
  expectNear(r[1], {3, 6},
             {1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6});
}

} // namespace
