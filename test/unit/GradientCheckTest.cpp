//===- GradientCheckTest.cpp - tfcc-autodiff against finite differences ---===//
//
// For every differentiable op: a tiny f64 model loss = reduce_sum(op(params)
// * w) with the params as trainable variables and w random weights. The
// autodiff pass makes a train step with SGD (learning rate 1, no momentum),
// so one step of the reference interpreter changes each parameter by minus
// its gradient; that gradient is compared with central finite differences
// of the loss (interpreter, double precision):
//   - f64 ops: h = 1e-6, max-norm relative error <= 1e-6;
//   - the losses, whose result is tensor<f32> (rounded): a 5-point stencil
//     with h = 1e-2, relative error <= 1e-3.
// Then: the optimizers against their formulas, clipping, batch-norm moving
// statistics, the dropout mask against its documented generator, and the
// spec's training models whose loss must fall over steps on a fixed batch.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/Reference/Interpreter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

using namespace mlir;
using ::tfcc::ref::ElementKind;
using ::tfcc::ref::Interpreter;
using ::tfcc::ref::Tensor;

namespace {

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text;
}

std::string tensorType(const std::vector<int64_t> &shape,
                       const std::string &element = "f64") {
  return "tensor<" + shapeText(shape) + element + ">";
}

/// A nested dense literal of `values` with `shape`.
std::string denseLiteral(const std::vector<int64_t> &shape,
                         const std::vector<double> &values) {
  std::ostringstream os;
  os.precision(17);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  std::function<void(size_t, int64_t)> emit = [&](size_t dim, int64_t base) {
    if (dim == shape.size()) {
      double v = values[base];
      if (v == std::floor(v))
        os << static_cast<int64_t>(v) << ".0";
      else
        os << v;
      return;
    }
    os << "[";
    for (int64_t i = 0; i < shape[dim]; ++i) {
      if (i)
        os << ", ";
      emit(dim + 1, base + i * strides[dim]);
    }
    os << "]";
  };
  os << "dense<";
  emit(0, 0);
  os << ">";
  return os.str();
}

/// Deterministic random values: magnitudes in [lo, hi], random signs unless
/// `positive`.
std::vector<double> randomValues(std::mt19937_64 &rng, int64_t n, double lo,
                                 double hi, bool positive) {
  std::uniform_real_distribution<double> magnitude(lo, hi);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i) {
    double v = magnitude(rng);
    values.push_back(positive || sign(rng) ? v : -v);
  }
  return values;
}

struct Param {
  std::vector<int64_t> shape;
  double lo = 0.1, hi = 1.0;
  bool positive = false;
};

/// One gradient check: `body` computes %y (type `yShape` f64, or
/// tensor<f32> when `lossResult`) from %p0, %p1, ... (the params).
/// `trainBody`, when set, is the training-mode form of the op that the
/// autodiff pass differentiates while the finite differences run `body`
/// (batch_norm: `body` writes out the batch-statistics formula).
struct Case {
  std::string name;
  std::vector<Param> params;
  std::string body;
  std::vector<int64_t> yShape;
  bool lossResult = false;
  std::string trainBody;
};

class GradientCheckTest : public ::testing::Test {
protected:
  GradientCheckTest() {
    context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  }

  OwningOpRef<ModuleOp> parseAndDifferentiate(const std::string &source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "parse failed:\n" << source;
      return module;
    }
    PassManager pm(&context);
    pm.addPass(mlir::tfcc::createAutodiff());
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "tfcc-autodiff failed:\n" << source;
      return nullptr;
    }
    return module;
  }

  /// The module of `c` with initial parameter values `values` and weights.
  std::string moduleText(const Case &c,
                         const std::vector<std::vector<double>> &values,
                         const std::vector<double> &weights) {
    std::ostringstream os;
    os << "module @check {\n";
    for (size_t i = 0; i < c.params.size(); ++i)
      os << "  graph.variable @p" << i << " : "
         << tensorType(c.params[i].shape) << " = "
         << denseLiteral(c.params[i].shape, values[i]) << "\n";
    auto function = [&](const std::string &name, const std::string &body) {
      os << "  func.func " << name << "() -> tensor<f64> {\n";
      for (size_t i = 0; i < c.params.size(); ++i)
        os << "    %p" << i << " = graph.read @p" << i << " : "
           << tensorType(c.params[i].shape) << "\n";
      os << body << "\n";
      if (c.lossResult) {
        os << "    %s = graph.cast %y : (tensor<f32>) -> tensor<f64>\n";
      } else {
        std::string yType = tensorType(c.yShape);
        os << "    %w = graph.constant " << denseLiteral(c.yShape, weights)
           << " : " << yType << "\n";
        os << "    %yw = graph.mul %y, %w : (" << yType << ", " << yType
           << ") -> " << yType << "\n";
        os << "    %s = graph.reduce_sum %yw {axes = [";
        for (size_t d = 0; d < c.yShape.size(); ++d)
          os << (d ? ", " : "") << d;
        os << "]} : (" << yType << ") -> tensor<f64>\n";
      }
      os << "    return %s : tensor<f64>\n  }\n";
    };
    function("@f", c.body);
    function("@g", c.trainBody.empty() ? c.body : c.trainBody);
    os << "  func.func @loss() -> tensor<f32> {\n"
          "    %s = func.call @g() : () -> tensor<f64>\n"
          "    %c = graph.cast %s : (tensor<f64>) -> tensor<f32>\n"
          "    return %c : tensor<f32>\n  }\n"
          "  graph.train_step @train {loss = @loss, optimizer = "
          "#graph.sgd<learning_rate = 1.0>}\n}\n";
    return os.str();
  }

  void check(const Case &c) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(std::hash<std::string>()(c.name) & 0xffff);
    std::vector<std::vector<double>> values;
    for (const Param &p : c.params)
      values.push_back(
          randomValues(rng, count(p.shape), p.lo, p.hi, p.positive));
    std::vector<double> weights =
        randomValues(rng, count(c.yShape), 0.5, 1.5, false);
    std::string source = moduleText(c, values, weights);
    OwningOpRef<ModuleOp> module = parseAndDifferentiate(source);
    ASSERT_TRUE(module);
    Interpreter interpreter(*module);

    // Gradient from one SGD step with learning rate 1: g = old - new.
    ASSERT_TRUE(succeeded(interpreter.run("train", {}))) << interpreter.error();
    std::vector<std::vector<double>> gradients;
    for (size_t i = 0; i < c.params.size(); ++i) {
      FailureOr<Tensor> updated = interpreter.variable("p" + std::to_string(i));
      ASSERT_TRUE(succeeded(updated));
      std::vector<double> g(values[i].size());
      for (size_t k = 0; k < g.size(); ++k)
        g[k] = values[i][k] - updated->data[k];
      gradients.push_back(std::move(g));
    }
    interpreter.resetVariables();

    auto lossAt = [&](size_t i, size_t k, double delta) {
      Tensor value = *interpreter.variable("p" + std::to_string(i));
      value.data[k] = values[i][k] + delta;
      EXPECT_TRUE(succeeded(
          interpreter.setVariable("p" + std::to_string(i), value)));
      FailureOr<std::vector<Tensor>> result = interpreter.run("f", {});
      EXPECT_TRUE(succeeded(result)) << interpreter.error();
      value.data[k] = values[i][k];
      EXPECT_TRUE(succeeded(
          interpreter.setVariable("p" + std::to_string(i), value)));
      return succeeded(result) ? result->front().data[0] : NAN;
    };
    double h = c.lossResult ? 1e-2 : 1e-6;
    double tolerance = c.lossResult ? 1e-3 : 1e-6;
    for (size_t i = 0; i < c.params.size(); ++i) {
      double maxError = 0, maxExpected = 0;
      for (size_t k = 0; k < values[i].size(); ++k) {
        double fd;
        if (c.lossResult)
          fd = (-lossAt(i, k, 2 * h) + 8 * lossAt(i, k, h) -
                8 * lossAt(i, k, -h) + lossAt(i, k, -2 * h)) /
               (12 * h);
        else
          fd = (lossAt(i, k, h) - lossAt(i, k, -h)) / (2 * h);
        maxError = std::max(maxError, std::fabs(gradients[i][k] - fd));
        maxExpected = std::max(maxExpected, std::fabs(fd));
      }
      double relative = maxExpected == 0 ? maxError : maxError / maxExpected;
      EXPECT_LE(relative, tolerance)
          << "parameter p" << i << ": max abs error " << maxError
          << ", max |gradient| " << maxExpected;
      EXPECT_GT(maxExpected, 0.0)
          << "parameter p" << i << " has no gradient in\n" << source;
    }
  }

  MLIRContext context;
};

// A unary op `op` (with `attrs`) of a [2, 3] parameter.
Case unary(const std::string &op, const std::string &attrs = "",
           Param param = Param{{2, 3}}) {
  std::string type = tensorType(param.shape);
  return Case{op + attrs,
              {param},
              "    %y = graph." + op + " %p0 " + attrs + " : " + type,
              param.shape};
}

// A binary op of params with shapes `a` and `b` broadcasting to `y`.
Case binary(const std::string &op, Param a, Param b,
            std::vector<int64_t> y) {
  return Case{op + shapeText(a.shape) + shapeText(b.shape),
              {a, b},
              "    %y = graph." + op + " %p0, %p1 : (" + tensorType(a.shape) +
                  ", " + tensorType(b.shape) + ") -> " + tensorType(y),
              y};
}

TEST_F(GradientCheckTest, BroadcastingBinaries) {
  check(binary("add", {{2, 3}}, {{3}}, {2, 3}));
  check(binary("sub", {{2, 1}}, {{1, 3}}, {2, 3}));
  check(binary("mul", {{2, 3}}, {{2, 1}}, {2, 3}));
  check(binary("div", {{2, 3}}, {{3}, 0.5, 2.0, true}, {2, 3}));
  check(binary("maximum", {{2, 3}}, {{2, 3}}, {2, 3}));
  check(binary("minimum", {{2, 3}}, {{3}}, {2, 3}));
  check(binary("pow", {{2, 3}, 0.5, 2.0, true}, {{2, 3}}, {2, 3}));
}

TEST_F(GradientCheckTest, UnaryOps) {
  Param positive{{2, 3}, 0.5, 2.0, true};
  Param wide{{2, 3}, 0.1, 8.0};
  Param mid{{2, 3}, 0.1, 5.0};
  for (const char *op : {"neg", "abs", "exp", "square", "tanh", "sigmoid",
                         "relu", "erf"})
    check(unary(op));
  check(unary("log", "", positive));
  check(unary("sqrt", "", positive));
  check(unary("rsqrt", "", positive));
  check(unary("relu6", "", wide));
  check(unary("hard_sigmoid", "", mid));
  check(unary("hard_swish", "", mid));
  check(unary("gelu", "{approximate = \"none\"}", mid));
  check(unary("gelu", "{approximate = \"tanh\"}", mid));
  check(unary("leaky_relu", "{alpha = 3.0e-01 : f32}"));
  check(unary("clip", "{min = -5.0e-01 : f32, max = 5.0e-01 : f32}"));
  check(unary("softmax", "{axis = -1}"));
  check(unary("softmax", "{axis = 0}"));
  check(unary("log_softmax", "{axis = -1}"));
  check(unary("log_softmax", "{axis = 0}"));
}

TEST_F(GradientCheckTest, FloorAndCeilHaveZeroGradient) {
  // d/dp sum((floor(p) + ceil(p) + p) * w) = w.
  check(Case{"floor_ceil",
             {{{2, 3}}},
             "    %f = graph.floor %p0 : tensor<2x3xf64>\n"
             "    %c = graph.ceil %p0 : tensor<2x3xf64>\n"
             "    %a = graph.add %f, %c : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>\n"
             "    %y = graph.add %a, %p0 : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>",
             {2, 3}});
}

TEST_F(GradientCheckTest, CastAndSelect) {
  // The f64 -> f32 -> f64 round trip rounds (finite differences cannot see
  // through it); its gradient is the identity: exactly w.
  Case c{"cast",
         {{{2, 3}}},
         "    %a = graph.cast %p0 : (tensor<2x3xf64>) -> tensor<2x3xf32>\n"
         "    %y = graph.cast %a : (tensor<2x3xf32>) -> tensor<2x3xf64>",
         {2, 3}};
  std::vector<double> p = {0.5, -0.25, 1.0, 2.0, -1.5, 0.75};
  std::vector<double> w = {1.0, -2.0, 0.5, 3.0, 0.25, -1.0};
  OwningOpRef<ModuleOp> module = parseAndDifferentiate(moduleText(c, {p}, w));
  ASSERT_TRUE(module);
  Interpreter interpreter(*module);
  ASSERT_TRUE(succeeded(interpreter.run("train", {}))) << interpreter.error();
  Tensor updated = *interpreter.variable("p0");
  for (size_t k = 0; k < p.size(); ++k)
    EXPECT_EQ(p[k] - updated.data[k], w[k]) << k;

  check(Case{"select_broadcast",
             {{{2, 3}}, {{3}}},
             "    %z = graph.constant dense<0.0> : tensor<f64>\n"
             "    %c = graph.compare %p0, %z {predicate = \"gt\"} : (tensor<2x3xf64>, tensor<f64>) -> tensor<2x3xi1>\n"
             "    %y = graph.select %c, %p0, %p1 : (tensor<2x3xi1>, tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>",
             {2, 3}});
}

TEST_F(GradientCheckTest, MatmulAndDense) {
  auto matmul = [](std::vector<int64_t> a, std::vector<int64_t> b,
                   std::vector<int64_t> y, const std::string &attrs) {
    return Case{"matmul" + attrs + shapeText(a),
                {{a}, {b}},
                "    %y = graph.matmul %p0, %p1 " + attrs + " : (" +
                    tensorType(a) + ", " + tensorType(b) + ") -> " +
                    tensorType(y),
                y};
  };
  check(matmul({3, 4}, {4, 5}, {3, 5}, ""));
  check(matmul({2, 3, 4}, {4, 5}, {2, 3, 5}, ""));
  check(matmul({4, 3}, {4, 5}, {3, 5}, "{transpose_a = true}"));
  check(matmul({3, 4}, {5, 4}, {3, 5}, "{transpose_b = true}"));
  check(matmul({2, 4, 3}, {2, 5, 4}, {2, 3, 5},
               "{transpose_a = true, transpose_b = true}"));
  check(Case{"dense3d",
             {{{2, 3, 4}}, {{4, 5}}, {{5}}},
             "    %y = graph.dense %p0, %p1, %p2 : (tensor<2x3x4xf64>, tensor<4x5xf64>, tensor<5xf64>) -> tensor<2x3x5xf64>",
             {2, 3, 5}});
  check(Case{"dense2d",
             {{{3, 4}}, {{4, 2}}},
             "    %y = graph.dense %p0, %p1 : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>",
             {3, 2}});
}

Case conv(const std::string &op, std::vector<int64_t> x,
          std::vector<int64_t> k, std::vector<int64_t> y,
          const std::string &attrs, bool bias) {
  std::vector<Param> params = {{x}, {k}};
  std::string operands = "%p0, %p1", types = tensorType(x) + ", " + tensorType(k);
  if (bias) {
    params.push_back({{y.back()}});
    operands += ", %p2";
    types += ", " + tensorType({y.back()});
  }
  return Case{op + attrs, params,
              "    %y = graph." + op + " " + operands + " " + attrs + " : (" +
                  types + ") -> " + tensorType(y),
              y};
}

TEST_F(GradientCheckTest, Convolutions) {
  check(conv("conv2d", {2, 5, 5, 3}, {3, 3, 3, 4}, {2, 3, 3, 4},
             "{padding = \"valid\"}", true));
  check(conv("conv2d", {1, 6, 5, 2}, {3, 2, 2, 3}, {1, 3, 3, 3},
             "{padding = \"same\", strides = [2, 2]}", false));
  check(conv("conv2d", {1, 6, 6, 2}, {3, 3, 2, 2}, {1, 6, 6, 2},
             "{padding = \"same\", dilations = [2, 2]}", true));
  check(conv("conv2d", {1, 5, 5, 4}, {3, 3, 2, 6}, {1, 3, 5, 6},
             "{padding = \"same\", strides = [2, 1], groups = 2}", true));
  check(conv("depthwise_conv2d", {2, 5, 5, 3}, {3, 3, 3, 2}, {2, 3, 3, 6},
             "{padding = \"same\", strides = [2, 2]}", true));
  check(conv("depthwise_conv2d", {1, 6, 6, 2}, {2, 2, 2, 1}, {1, 4, 4, 2},
             "{padding = \"valid\", dilations = [2, 2]}", false));
}

TEST_F(GradientCheckTest, Pooling) {
  auto pool = [](const std::string &op, std::vector<int64_t> x,
                 std::vector<int64_t> y, const std::string &attrs) {
    return Case{op + attrs,
                {{x}},
                "    %y = graph." + op + " %p0 " + attrs + " : (" +
                    tensorType(x) + ") -> " + tensorType(y),
                y};
  };
  check(pool("max_pool2d", {1, 5, 5, 2}, {1, 2, 2, 2},
             "{window = [2, 2], strides = [2, 2]}"));
  check(pool("max_pool2d", {1, 5, 5, 2}, {1, 3, 3, 2},
             "{window = [3, 3], strides = [2, 2], padding = \"same\"}"));
  check(pool("avg_pool2d", {1, 5, 5, 2}, {1, 3, 3, 2},
             "{window = [3, 3], strides = [2, 2], padding = \"same\"}"));
  check(pool("avg_pool2d", {1, 5, 5, 2}, {1, 4, 4, 2},
             "{window = [2, 2], strides = [1, 1]}"));
  check(pool("global_avg_pool2d", {2, 3, 3, 4}, {2, 4}, ""));
  check(pool("global_max_pool2d", {2, 3, 3, 4}, {2, 4}, ""));
}

TEST_F(GradientCheckTest, Normalization) {
  // Training-mode batch_norm: finite differences of the written-out formula
  // with batch statistics over [0, 1, 2] (biased variance).
  std::string stats =
      "    %mean = graph.reduce_mean %p0 {axes = [0, 1, 2]} : (tensor<2x2x2x3xf64>) -> tensor<3xf64>\n"
      "    %c = graph.sub %p0, %mean : (tensor<2x2x2x3xf64>, tensor<3xf64>) -> tensor<2x2x2x3xf64>\n"
      "    %sq = graph.square %c : tensor<2x2x2x3xf64>\n"
      "    %var = graph.reduce_mean %sq {axes = [0, 1, 2]} : (tensor<2x2x2x3xf64>) -> tensor<3xf64>\n"
      "    %eps = graph.constant dense<1.0000000474974513e-03> : tensor<f64>\n"
      "    %ve = graph.add %var, %eps : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>\n"
      "    %r = graph.rsqrt %ve : tensor<3xf64>\n"
      "    %n = graph.mul %c, %r : (tensor<2x2x2x3xf64>, tensor<3xf64>) -> tensor<2x2x2x3xf64>\n"
      "    %s1 = graph.mul %n, %p1 : (tensor<2x2x2x3xf64>, tensor<3xf64>) -> tensor<2x2x2x3xf64>\n"
      "    %y = graph.add %s1, %p2 : (tensor<2x2x2x3xf64>, tensor<3xf64>) -> tensor<2x2x2x3xf64>";
  std::string bn =
      "    %m = graph.constant dense<[0.5, -0.5, 0.25]> : tensor<3xf64>\n"
      "    %v = graph.constant dense<[2.0, 0.5, 1.0]> : tensor<3xf64>\n"
      "    %y = graph.batch_norm %p0, %p1, %p2, %m, %v {epsilon = 1.0e-03 : f32} : (tensor<2x2x2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x2x2x3xf64>";
  check(Case{"batch_norm", {{{2, 2, 2, 3}}, {{3}}, {{3}}}, stats,
             {2, 2, 2, 3}, false, bn});
  check(Case{"layer_norm_last",
             {{{2, 3, 4}}, {{4}}, {{4}}},
             "    %y = graph.layer_norm %p0, %p1, %p2 {axis = -1, epsilon = 1.0e-03 : f32} : (tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>",
             {2, 3, 4}});
  check(Case{"layer_norm_two_axes",
             {{{2, 3, 4}}, {{3, 4}}, {{3, 4}}},
             "    %y = graph.layer_norm %p0, %p1, %p2 {axis = 1, epsilon = 1.0e-03 : f32} : (tensor<2x3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<2x3x4xf64>",
             {2, 3, 4}});
}

TEST_F(GradientCheckTest, Losses) {
  check(Case{"sparse_softmax_cross_entropy",
             {{{3, 4}, 0.1, 2.0}},
             "    %labels = graph.constant dense<[2, 0, 3]> : tensor<3xi32>\n"
             "    %y = graph.sparse_softmax_cross_entropy %p0, %labels : (tensor<3x4xf64>, tensor<3xi32>) -> tensor<f32>",
             {},
             true});
  check(Case{"softmax_cross_entropy",
             {{{3, 4}, 0.1, 2.0}, {{3, 4}, 0.1, 1.0, true}},
             "    %y = graph.softmax_cross_entropy %p0, %p1 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<f32>",
             {},
             true});
  check(Case{"mean_squared_error",
             {{{2, 3}}, {{2, 3}}},
             "    %y = graph.mean_squared_error %p0, %p1 : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f32>",
             {},
             true});
}

TEST_F(GradientCheckTest, DataMovement) {
  check(Case{"reshape",
             {{{2, 3, 4}}},
             "    %y = graph.reshape %p0 : (tensor<2x3x4xf64>) -> tensor<4x6xf64>",
             {4, 6}});
  check(Case{"transpose",
             {{{2, 3, 4}}},
             "    %y = graph.transpose %p0 {perm = [2, 0, 1]} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>",
             {4, 2, 3}});
  check(Case{"concat",
             {{{2, 3}}, {{2, 2}}},
             "    %y = graph.concat %p0, %p1, %p0 {axis = -1} : (tensor<2x3xf64>, tensor<2x2xf64>, tensor<2x3xf64>) -> tensor<2x8xf64>",
             {2, 8}});
  check(Case{"slice",
             {{{4, 5}}},
             "    %y = graph.slice %p0 {starts = [1, 1], limits = [3, -1]} : (tensor<4x5xf64>) -> tensor<2x4xf64>",
             {2, 4}});
  check(Case{"strided_slice",
             {{{5, 6}}},
             "    %y = graph.slice %p0 {starts = [1, 0], limits = [-1, 5], strides = [2, 2]} : (tensor<5x6xf64>) -> tensor<2x3xf64>",
             {2, 3}});
  check(Case{"pad",
             {{{2, 3}}},
             "    %y = graph.pad %p0 {pads = [1, 0, 2, 1], value = 5.0e-01 : f32} : (tensor<2x3xf64>) -> tensor<3x6xf64>",
             {3, 6}});
  auto resize = [](std::vector<int64_t> x, std::vector<int64_t> y,
                   const std::string &attrs) {
    return Case{"resize" + attrs + shapeText(x),
                {{x}},
                "    %y = graph.resize %p0 " + attrs + " : (" + tensorType(x) +
                    ") -> " + tensorType(y),
                y};
  };
  check(resize({1, 2, 3, 2}, {1, 4, 5, 2}, "{size = [4, 5], mode = \"nearest\"}"));
  check(resize({1, 5, 4, 1}, {1, 3, 3, 1},
               "{size = [3, 3], mode = \"nearest\", half_pixel_centers = false}"));
  check(resize({1, 3, 3, 2}, {1, 5, 4, 2}, "{size = [5, 4], mode = \"bilinear\"}"));
  check(resize({1, 5, 5, 1}, {1, 3, 2, 1},
               "{size = [3, 2], mode = \"bilinear\", half_pixel_centers = false}"));
  check(Case{"gather_rows",
             {{{5, 3}}},
             "    %i = graph.constant dense<[0, 2, 2, 4]> : tensor<4xi32>\n"
             "    %y = graph.gather %p0, %i : (tensor<5x3xf64>, tensor<4xi32>) -> tensor<4x3xf64>",
             {4, 3}});
  check(Case{"gather_axis1",
             {{{3, 5}}},
             "    %i = graph.constant dense<[[1, 1], [4, 0]]> : tensor<2x2xi64>\n"
             "    %y = graph.gather %p0, %i {axis = 1} : (tensor<3x5xf64>, tensor<2x2xi64>) -> tensor<3x2x2xf64>",
             {3, 2, 2}});
}

TEST_F(GradientCheckTest, Reductions) {
  auto reduce = [](const std::string &op, const std::string &attrs,
                   std::vector<int64_t> y) {
    return Case{op + attrs,
                {{{2, 3, 4}}},
                "    %y = graph." + op + " %p0 " + attrs +
                    " : (tensor<2x3x4xf64>) -> " + tensorType(y),
                y};
  };
  check(reduce("reduce_sum", "{axes = [1]}", {2, 4}));
  check(reduce("reduce_sum", "{axes = [0, 2], keep_dims = true}", {1, 3, 1}));
  check(reduce("reduce_mean", "{axes = [0, -1]}", {3}));
  check(reduce("reduce_max", "{axes = [1]}", {2, 4}));
  check(reduce("reduce_min", "{axes = [-1], keep_dims = true}", {2, 3, 1}));
}

TEST_F(GradientCheckTest, FanOutAccumulates) {
  // p0 used three times: y = p0 * p0 + tanh(p0) @ p1.
  check(Case{"fan_out",
             {{{3, 3}}, {{3, 3}}},
             "    %a = graph.mul %p0, %p0 : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>\n"
             "    %t = graph.tanh %p0 : tensor<3x3xf64>\n"
             "    %m = graph.matmul %t, %p1 : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>\n"
             "    %y = graph.add %a, %m : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>",
             {3, 3}});
}

//===----------------------------------------------------------------------===//
// Optimizers, clipping, batch-norm statistics, dropout
//===----------------------------------------------------------------------===//

Tensor f64Tensor(std::vector<int64_t> shape, std::vector<double> data) {
  Tensor t;
  t.kind = ElementKind::F64;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

/// loss = sum(w * c) over f64 variables @w (and @v with `second`): the
/// gradient of w is exactly c.
std::string linearModel(const std::string &optimizer,
                        const std::string &clip = "") {
  return "module @lin {\n"
         "  graph.variable @w : tensor<3xf64> = dense<[0.5, -1.0, 2.0]>\n"
         "  graph.variable @v : tensor<1xf64> = dense<[1.5]>\n"
         "  func.func @loss() -> tensor<f32> {\n"
         "    %w = graph.read @w : tensor<3xf64>\n"
         "    %v = graph.read @v : tensor<1xf64>\n"
         "    %c = graph.constant dense<[3.0, 0.0, -1.0]> : tensor<3xf64>\n"
         "    %m = graph.mul %w, %c : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>\n"
         "    %n = graph.mul %v, %v : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>\n"
         "    %a = graph.add %m, %n : (tensor<3xf64>, tensor<1xf64>) -> tensor<3xf64>\n"
         "    %s = graph.reduce_sum %a {axes = [0]} : (tensor<3xf64>) -> tensor<f64>\n"
         "    %l = graph.cast %s : (tensor<f64>) -> tensor<f32>\n"
         "    return %l : tensor<f32>\n  }\n"
         "  graph.train_step @train {loss = @loss, optimizer = " +
         optimizer + clip + "}\n}\n";
}

void expectClose(const std::vector<double> &actual,
                 const std::vector<double> &expected, double tolerance,
                 const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i],
                tolerance * std::max(1.0, std::fabs(expected[i])))
        << what << " element " << i;
}

TEST_F(GradientCheckTest, AdamMatchesItsFormula) {
  OwningOpRef<ModuleOp> module = parseAndDifferentiate(linearModel(
      "#graph.adam<learning_rate = 1.0e-01, beta1 = 0.8, beta2 = 0.95, "
      "epsilon = 1.0e-03>"));
  ASSERT_TRUE(module);
  Interpreter interpreter(*module);
  // Gradients: w -> c = [3, 0, -1] (constant), v -> 3 * (2 v) (v is
  // broadcast over 3 elements).
  std::vector<double> w = {0.5, -1.0, 2.0}, c = {3.0, 0.0, -1.0};
  double v = 1.5;
  std::vector<double> mw(3, 0), vw(3, 0);
  double mv = 0, vv = 0;
  for (int t = 1; t <= 3; ++t) {
    ASSERT_TRUE(succeeded(interpreter.run("train", {}))) << interpreter.error();
    double lrT = 0.1 * std::sqrt(1 - std::pow(0.95, t)) / (1 - std::pow(0.8, t));
    for (int i = 0; i < 3; ++i) {
      mw[i] = 0.8 * mw[i] + (1 - 0.8) * c[i];
      vw[i] = 0.95 * vw[i] + (1 - 0.95) * c[i] * c[i];
      w[i] -= lrT * mw[i] / (std::sqrt(vw[i]) + 1e-3);
    }
    double gv = 6 * v;
    mv = 0.8 * mv + (1 - 0.8) * gv;
    vv = 0.95 * vv + (1 - 0.95) * gv * gv;
    v -= lrT * mv / (std::sqrt(vv) + 1e-3);
    expectClose(interpreter.variable("w")->data, w, 1e-12, "w");
    expectClose(interpreter.variable("v")->data, {v}, 1e-12, "v");
    expectClose(interpreter.variable("w/adam_m")->data, mw, 1e-12, "m");
    expectClose(interpreter.variable("w/adam_v")->data, vw, 1e-12, "v");
  }
  Tensor step = *interpreter.variable("train/step");
  EXPECT_EQ(step.kind, ElementKind::I64);
  EXPECT_EQ(step.data, std::vector<double>{3});
}

TEST_F(GradientCheckTest, SgdMomentumAndNesterov) {
  for (bool nesterov : {false, true}) {
    OwningOpRef<ModuleOp> module = parseAndDifferentiate(linearModel(
        std::string("#graph.sgd<learning_rate = 1.0e-01, momentum = 0.5, "
                    "nesterov = ") +
        (nesterov ? "true" : "false") + ">"));
    ASSERT_TRUE(module);
    Interpreter interpreter(*module);
    std::vector<double> w = {0.5, -1.0, 2.0}, c = {3.0, 0.0, -1.0}, m(3, 0);
    for (int t = 0; t < 3; ++t) {
      ASSERT_TRUE(succeeded(interpreter.run("train", {})));
      // m = momentum m - lr g; w += m, or momentum m - lr g (Nesterov).
      for (int i = 0; i < 3; ++i) {
        m[i] = 0.5 * m[i] - 0.1 * c[i];
        w[i] += nesterov ? 0.5 * m[i] - 0.1 * c[i] : m[i];
      }
      expectClose(interpreter.variable("w")->data, w, 1e-12,
                  nesterov ? "nesterov w" : "momentum w");
      expectClose(interpreter.variable("w/momentum")->data, m, 1e-12, "m");
    }
  }
}

TEST_F(GradientCheckTest, ClipByGlobalNorm) {
  // Gradients [3, 0, -1] and [6 * 1.5 = 9]: global norm sqrt(91) > 2, so
  // each is scaled by 2 / sqrt(91); plain SGD with lr 1.
  OwningOpRef<ModuleOp> module = parseAndDifferentiate(
      linearModel("#graph.sgd<learning_rate = 1.0>", ", clip_norm = 2.0 : f32"));
  ASSERT_TRUE(module);
  Interpreter interpreter(*module);
  ASSERT_TRUE(succeeded(interpreter.run("train", {})));
  double scale = 2.0 / std::sqrt(91.0);
  expectClose(interpreter.variable("w")->data,
              {0.5 - 3 * scale, -1.0, 2.0 + scale}, 1e-12, "w");
  expectClose(interpreter.variable("v")->data, {1.5 - 9 * scale}, 1e-12, "v");
  // Below the norm nothing changes: clip_norm = 100.
  module = parseAndDifferentiate(
      linearModel("#graph.sgd<learning_rate = 1.0>", ", clip_norm = 1.0e+02 : f32"));
  ASSERT_TRUE(module);
  Interpreter unclipped(*module);
  ASSERT_TRUE(succeeded(unclipped.run("train", {})));
  expectClose(unclipped.variable("w")->data, {0.5 - 3, -1.0, 2.0 + 1}, 1e-12,
              "w");
}

TEST_F(GradientCheckTest, BatchNormMovingStatistics) {
  OwningOpRef<ModuleOp> module = parseAndDifferentiate(R"mlir(
module @bn {
  graph.variable @gamma : tensor<2xf64> = dense<1.0>
  graph.variable @beta : tensor<2xf64> = dense<0.0>
  graph.variable @mean : tensor<2xf64> = dense<[0.5, -0.5]> {trainable = false}
  graph.variable @variance : tensor<2xf64> = dense<[1.0, 2.0]> {trainable = false}
  func.func @loss(%x: tensor<?x2xf64>) -> tensor<f32> {
    %g = graph.read @gamma : tensor<2xf64>
    %b = graph.read @beta : tensor<2xf64>
    %m = graph.read @mean : tensor<2xf64>
    %v = graph.read @variance : tensor<2xf64>
    %n = graph.batch_norm %x, %g, %b, %m, %v {momentum = 0.9 : f32}
        : (tensor<?x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
    %s = graph.reduce_sum %n {axes = [0, 1]} : (tensor<?x2xf64>) -> tensor<f64>
    %l = graph.cast %s : (tensor<f64>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<>}
}
)mlir");
  ASSERT_TRUE(module);
  Interpreter interpreter(*module);
  Tensor x = f64Tensor({4, 2}, {1, 2, 3, -2, 5, 0, -1, 4});
  ASSERT_TRUE(succeeded(interpreter.run("train", {x}))) << interpreter.error();
  // Batch mean [2, 1], biased variance [5, 5]; momentum is the f32 0.9.
  double momentum = static_cast<double>(0.9f);
  expectClose(interpreter.variable("mean")->data,
              {0.5 * momentum + 2 * (1 - momentum),
               -0.5 * momentum + 1 * (1 - momentum)},
              1e-12, "moving mean");
  expectClose(interpreter.variable("variance")->data,
              {1.0 * momentum + 5 * (1 - momentum),
               2.0 * momentum + 5 * (1 - momentum)},
              1e-12, "moving variance");
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

TEST_F(GradientCheckTest, DropoutMaskFollowsTheDocumentedGenerator) {
  // loss = sum(dropout(x)) with x = 0 and SGD lr 1: the gradient (minus
  // the update) is the mask, 0 or 1 / (1 - rate) per element, drawn from
  // (seed, step) as docs/autodiff.md says.
  OwningOpRef<ModuleOp> module = parseAndDifferentiate(R"mlir(
module @drop {
  graph.variable @x : tensor<4x250xf64> = dense<0.0>
  func.func @loss() -> tensor<f32> {
    %x = graph.read @x : tensor<4x250xf64>
    %d = graph.dropout %x {rate = 0.3 : f32, seed = 5} : tensor<4x250xf64>
    %s = graph.reduce_sum %d {axes = [0, 1]} : (tensor<4x250xf64>) -> tensor<f64>
    %l = graph.cast %s : (tensor<f64>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 1.0>}
}
)mlir");
  ASSERT_TRUE(module);
  Interpreter interpreter(*module);
  double rate = static_cast<double>(0.3f), kept = 1.0 / (1.0 - rate);
  std::vector<double> previous(1000, 0.0);
  int changed = 0;
  for (uint64_t step = 0; step < 2; ++step) {
    ASSERT_TRUE(succeeded(interpreter.run("train", {})));
    std::vector<double> now = interpreter.variable("x")->data;
    uint64_t key = splitmix64(5 * 0x9E3779B97F4A7C15ull + step);
    int dropped = 0;
    for (uint64_t i = 0; i < 1000; ++i) {
      double u = double(splitmix64(key + i) >> 40) * 0x1.0p-24;
      double mask = u >= rate ? kept : 0.0;
      ASSERT_EQ(previous[i] - now[i], mask) << "step " << step << " element " << i;
      dropped += mask == 0.0;
    }
    EXPECT_NEAR(dropped, 300, 60) << "step " << step;
    if (step == 1)
      for (uint64_t i = 0; i < 1000; ++i)
        changed += (previous[i] - now[i] == 0.0) != (0.0 - previous[i] == 0.0);
    previous = now;
  }
  EXPECT_GT(changed, 100) << "the mask must change with the step";
}

TEST_F(GradientCheckTest, DynamicBatchMatchesStaticBatch) {
  // The same model with a `?` and with a static batch: the rules for
  // dynamic shapes (element_count, broadcast_like, reshapes with `?`) must
  // give the same gradients.
  auto model = [](const std::string &b) {
    std::string x = "tensor<" + b + "x4x4x2xf64>", c = "tensor<" + b + "x4x4x3xf64>";
    return "module @dyn {\n"
           "  graph.variable @k : tensor<3x3x2x3xf64> = #graph.init<\"glorot_uniform\", seed = 3>\n"
           "  graph.variable @gamma : tensor<3xf64> = dense<[1.0, 0.5, 2.0]>\n"
           "  graph.variable @beta : tensor<3xf64> = dense<[0.1, 0.0, -0.1]>\n"
           "  graph.variable @mean : tensor<3xf64> = dense<0.0> {trainable = false}\n"
           "  graph.variable @var : tensor<3xf64> = dense<1.0> {trainable = false}\n"
           "  graph.variable @w : tensor<3x2xf64> = #graph.init<\"glorot_uniform\", seed = 4>\n"
           "  func.func @loss(%x: " + x + ", %t: tensor<" + b + "x2xf64>) -> tensor<f32> {\n"
           "    %k = graph.read @k : tensor<3x3x2x3xf64>\n"
           "    %g = graph.read @gamma : tensor<3xf64>\n"
           "    %be = graph.read @beta : tensor<3xf64>\n"
           "    %m = graph.read @mean : tensor<3xf64>\n"
           "    %v = graph.read @var : tensor<3xf64>\n"
           "    %c = graph.conv2d %x, %k {padding = \"same\"} : (" + x + ", tensor<3x3x2x3xf64>) -> " + c + "\n"
           "    %n = graph.batch_norm %c, %g, %be, %m, %v : (" + c + ", tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> " + c + "\n"
           "    %r = graph.tanh %n : " + c + "\n"
           "    %p = graph.max_pool2d %r {window = [2, 2]} : (" + c + ") -> tensor<" + b + "x2x2x3xf64>\n"
           "    %q = graph.global_avg_pool2d %p : (tensor<" + b + "x2x2x3xf64>) -> tensor<" + b + "x3xf64>\n"
           "    %s = graph.softmax %q : tensor<" + b + "x3xf64>\n"
           "    %w = graph.read @w : tensor<3x2xf64>\n"
           "    %d = graph.dense %s, %w : (tensor<" + b + "x3xf64>, tensor<3x2xf64>) -> tensor<" + b + "x2xf64>\n"
           "    %l = graph.mean_squared_error %d, %t : (tensor<" + b + "x2xf64>, tensor<" + b + "x2xf64>) -> tensor<f32>\n"
           "    return %l : tensor<f32>\n  }\n"
           "  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 1.0>}\n}\n";
  };
  std::mt19937_64 rng(7);
  Tensor x = f64Tensor({3, 4, 4, 2}, randomValues(rng, 96, 0.1, 1.0, false));
  Tensor t = f64Tensor({3, 2}, randomValues(rng, 6, 0.1, 1.0, false));
  std::vector<std::vector<double>> results[2];
  for (int i = 0; i < 2; ++i) {
    OwningOpRef<ModuleOp> module = parseAndDifferentiate(model(i ? "3" : "?"));
    ASSERT_TRUE(module);
    Interpreter interpreter(*module);
    ASSERT_TRUE(succeeded(interpreter.run("train", {x, t})))
        << interpreter.error();
    for (const char *name : {"k", "gamma", "beta", "mean", "var", "w"})
      results[i].push_back(interpreter.variable(name)->data);
  }
  for (size_t v = 0; v < results[0].size(); ++v)
    expectClose(results[0][v], results[1][v], 1e-12, "variable " + std::to_string(v));
}

//===----------------------------------------------------------------------===//
// The spec's training models
//===----------------------------------------------------------------------===//

/// Parses a model of shared/spec/models, runs tfcc-autodiff and `steps`
/// train steps on one fixed synthetic batch; returns the losses.
std::vector<double> trainSpecModel(MLIRContext &context, const std::string &file,
                                   Tensor images, unsigned steps) {
  std::string path = std::string(TFCC_SPEC_MODELS_DIR) + "/" + file;
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(path, sourceMgr, &context);
  if (!module) {
    ADD_FAILURE() << "cannot parse " << path;
    return {};
  }
  PassManager pm(&context);
  pm.addPass(mlir::tfcc::createAutodiff());
  if (failed(pm.run(*module))) {
    ADD_FAILURE() << "tfcc-autodiff failed on " << path;
    return {};
  }
  int64_t batch = images.shape[0];
  Tensor labels;
  labels.kind = ElementKind::I32;
  labels.shape = {batch};
  for (int64_t i = 0; i < batch; ++i)
    labels.data.push_back(double((i * 7 + 3) % 10));
  Interpreter interpreter(*module);
  FailureOr<std::vector<Tensor>> losses =
      interpreter.runSteps("train_step", {images, labels}, steps);
  if (failed(losses)) {
    ADD_FAILURE() << interpreter.error();
    return {};
  }
  std::vector<double> values;
  std::ostringstream os;
  for (const Tensor &loss : *losses) {
    values.push_back(loss.data[0]);
    os << " " << loss.data[0];
  }
  std::printf("%s losses:%s\n", file.c_str(), os.str().c_str());
  return values;
}

Tensor syntheticImages(std::vector<int64_t> shape) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> pixel(0.0, 1.0);
  Tensor t;
  t.kind = ElementKind::F32;
  t.shape = shape;
  for (int64_t i = 0; i < count(shape); ++i)
    t.data.push_back(pixel(rng));
  return t;
}

TEST_F(GradientCheckTest, MlpTrainLossFalls) {
  std::vector<double> losses = trainSpecModel(
      context, "mlp_train.mlir", syntheticImages({8, 784}), 15);
  ASSERT_EQ(losses.size(), 15u);
  // Adam at 1e-3 on one batch of 8 random images with fixed labels.
  EXPECT_GT(losses.front(), 1.5);
  EXPECT_LT(losses.back(), 0.6 * losses.front());
  for (size_t i = 1; i < losses.size(); ++i)
    EXPECT_LT(losses[i], losses[i - 1]) << "step " << i;
}

TEST_F(GradientCheckTest, MnistCnnTrainLossFalls) {
  std::vector<double> losses = trainSpecModel(
      context, "mnist_cnn_train.mlir", syntheticImages({4, 28, 28, 1}), 8);
  ASSERT_EQ(losses.size(), 8u);
  // Dropout makes single steps noisy; the trend must be down.
  EXPECT_LT(losses.back(), 0.8 * losses.front());
  EXPECT_LT(losses[6] + losses[7], losses[0] + losses[1]);
}

} // namespace
