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

} // namespace
