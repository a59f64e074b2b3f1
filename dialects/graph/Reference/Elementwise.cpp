//===- Elementwise.cpp - evaluators of the elementwise graph ops ----------===//
//
// Binary ops broadcast like NumPy. Float math runs in double on the f32 and
// f64 inputs; integer math runs in int64 with two's complement wrap-around, and
// the interpreter wraps the result to the element width afterwards.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Evaluators.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref::detail {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

int64_t wrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t wrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

/// max/min that return NaN when either operand is NaN.
double nanMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
double nanMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

/// relu6; NaN stays NaN (both comparisons are false).
double relu6(double x) { return x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x); }
double hardSigmoid(double x) { return relu6(x + 3.0) / 6.0; }

//===----------------------------------------------------------------------===//
// Mapping helpers
//===----------------------------------------------------------------------===//

/// Integer part of a binary op: the result, or failure with a reason.
using IntBinaryFn = FailureOr<int64_t> (*)(int64_t, int64_t, Report &);

/// Broadcasts `lhs` and `rhs` and applies `floatFn` (f32, f64) or `intFn`
/// (integers) to each pair of elements, in row-major order of the result.
template <typename FloatFn>
FailureOr<Tensor> broadcastBinary(Operation *op, Operands operands,
                                  Report &report, FloatFn floatFn,
                                  IntBinaryFn intFn) {
  const Tensor &lhs = *operands[0], &rhs = *operands[1];
  if (lhs.kind != rhs.kind)
    return report.fail(llvm::Twine("operand element types differ: ") +
                       toString(lhs.kind) + " vs " + toString(rhs.kind));
  FailureOr<std::vector<int64_t>> shape =
      broadcastShapes(lhs.shape, rhs.shape, report);
  if (failed(shape))
    return failure();
  Tensor result = Tensor::zeros(resultKindOf(op), *shape);
  for (int64_t i = 0; i < result.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, result.shape);
    double a = lhs.data[broadcastOffset(index, lhs.shape)];
    double b = rhs.data[broadcastOffset(index, rhs.shape)];
    if (isFloatKind(lhs.kind)) {
      result.data[i] = floatFn(a, b);
      continue;
    }
    FailureOr<int64_t> value =
        intFn(static_cast<int64_t>(a), static_cast<int64_t>(b), report);
    if (failed(value))
      return failure();
    result.data[i] = static_cast<double>(*value);
  }
  return result;
}

/// Applies `fn` to each element of the float operand.
template <typename Fn>
FailureOr<Tensor> mapFloat(Operation *op, Operands operands, Report &report,
                           Fn fn) {
  const Tensor &x = *operands[0];
  if (!isFloatKind(x.kind))
    return report.fail(op->getName().getStringRef() + " expects a float, got " +
                       toString(x.kind));
  Tensor result = x;
  for (double &value : result.data)
    value = fn(value);
  return result;
}

/// Applies `floatFn` to float elements and `intFn` to integer elements.
template <typename FloatFn, typename IntFn>
FailureOr<Tensor> mapAny(Operands operands, FloatFn floatFn, IntFn intFn) {
  Tensor result = *operands[0];
  for (double &value : result.data)
    value = isFloatKind(result.kind)
                ? floatFn(value)
                : static_cast<double>(intFn(static_cast<int64_t>(value)));
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(AddOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b, Report &) -> FailureOr<int64_t> {
        return wrappingAdd(a, b);
      });
}

FailureOr<Tensor> evaluate(SubOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b, Report &) -> FailureOr<int64_t> {
        return wrappingSub(a, b);
      });
}

FailureOr<Tensor> evaluate(MulOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b, Report &) -> FailureOr<int64_t> {
        return wrappingMul(a, b);
      });
}

FailureOr<Tensor> evaluate(DivOp op, Operands operands, Report &report) {
  // Integers: truncation toward zero, like TF's Div; dividing by zero fails.
  return broadcastBinary(
      op, operands, report, [](double a, double b) { return a / b; },
      [](int64_t a, int64_t b, Report &report) -> FailureOr<int64_t> {
        if (b == 0)
          return report.fail("integer division by zero");
        if (b == -1)
          return wrappingSub(0, a); // avoids the INT64_MIN / -1 trap
        return a / b;
      });
}

FailureOr<Tensor> evaluate(ModOp op, Operands operands, Report &report) {
  // fmod: the sign of the dividend (C's fmod); else that of the divisor.
  auto truncated = [](int64_t a, int64_t b,
                      Report &report) -> FailureOr<int64_t> {
    if (b == 0)
      return report.fail("integer remainder by zero");
    if (b == -1)
      return int64_t(0); // avoids the INT64_MIN % -1 trap
    return a % b;
  };
  auto floored = [](int64_t a, int64_t b,
                    Report &report) -> FailureOr<int64_t> {
    if (b == 0)
      return report.fail("integer remainder by zero");
    if (b == -1)
      return int64_t(0);
    int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
  };
  auto floats = [](double a, double b) { return std::fmod(a, b); };
  if (op.getFmod())
    return broadcastBinary(op, operands, report, floats, truncated);
  return broadcastBinary(op, operands, report, floats, floored);
}

FailureOr<Tensor> evaluate(MaximumOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, nanMax,
      [](int64_t a, int64_t b, Report &) -> FailureOr<int64_t> {
        return std::max(a, b);
      });
}

FailureOr<Tensor> evaluate(MinimumOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, nanMin,
      [](int64_t a, int64_t b, Report &) -> FailureOr<int64_t> {
        return std::min(a, b);
      });
}

FailureOr<Tensor> evaluate(PowOp op, Operands operands, Report &report) {
  return broadcastBinary(
      op, operands, report, [](double a, double b) { return std::pow(a, b); },
      [](int64_t base, int64_t exponent, Report &report) -> FailureOr<int64_t> {
        if (exponent < 0)
          return report.fail(
              "integers to negative integer powers are not allowed");
        int64_t result = 1;
        for (; exponent > 0; exponent >>= 1) {
          if (exponent & 1)
            result = wrappingMul(result, base);
          base = wrappingMul(base, base);
        }
        return result;
      });
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(NegOp, Operands operands, Report &) {
  return mapAny(
      operands, [](double x) { return -x; },
      [](int64_t x) { return wrappingSub(0, x); });
}

FailureOr<Tensor> evaluate(AbsOp, Operands operands, Report &) {
  return mapAny(
      operands, [](double x) { return std::fabs(x); },
      [](int64_t x) { return x < 0 ? wrappingSub(0, x) : x; });
}

FailureOr<Tensor> evaluate(SquareOp, Operands operands, Report &) {
  return mapAny(
      operands, [](double x) { return x * x; },
      [](int64_t x) { return wrappingMul(x, x); });
}

FailureOr<Tensor> evaluate(ExpOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::exp(x); });
}

FailureOr<Tensor> evaluate(LogOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::log(x); });
}

FailureOr<Tensor> evaluate(SqrtOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::sqrt(x); });
}

FailureOr<Tensor> evaluate(RsqrtOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report,
                  [](double x) { return 1.0 / std::sqrt(x); });
}

FailureOr<Tensor> evaluate(TanhOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::tanh(x); });
}

FailureOr<Tensor> evaluate(SigmoidOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report,
                  [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

FailureOr<Tensor> evaluate(ErfOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::erf(x); });
}

FailureOr<Tensor> evaluate(FloorOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::floor(x); });
}

FailureOr<Tensor> evaluate(CeilOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, [](double x) { return std::ceil(x); });
}

FailureOr<Tensor> evaluate(MathOp op, Operands operands, Report &report) {
  switch (op.getFunction()) {
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering)                \
  case MathFunction::Name:                                                     \
    return mapFloat(op, operands, report, [](double x) { return reference; });
#include "dialects/graph/IR/MathFunctions.def"
  }
  llvm_unreachable("graph.math verifies its function");
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(ReluOp op, Operands operands, Report &report) {
  // NaN < 0 is false: relu(NaN) = NaN.
  return mapFloat(op, operands, report,
                  [](double x) { return x < 0.0 ? 0.0 : x; });
}

FailureOr<Tensor> evaluate(Relu6Op op, Operands operands, Report &report) {
  return mapFloat(op, operands, report, relu6);
}

FailureOr<Tensor> evaluate(HardSigmoidOp op, Operands operands,
                           Report &report) {
  return mapFloat(op, operands, report, hardSigmoid);
}

FailureOr<Tensor> evaluate(HardSwishOp op, Operands operands, Report &report) {
  return mapFloat(op, operands, report,
                  [](double x) { return x * hardSigmoid(x); });
}

FailureOr<Tensor> evaluate(GeluOp op, Operands operands, Report &report) {
  StringRef approximate = op.getApproximate();
  if (approximate == "none")
    return mapFloat(op, operands, report, [](double x) {
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    });
  if (approximate == "tanh")
    return mapFloat(op, operands, report, [](double x) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    });
  return report.fail("unknown gelu approximation '" + approximate + "'");
}

FailureOr<Tensor> evaluate(LeakyReluOp op, Operands operands, Report &report) {
  double alpha = op.getAlpha().convertToFloat();
  return mapFloat(op, operands, report,
                  [alpha](double x) { return x > 0.0 ? x : alpha * x; });
}

FailureOr<Tensor> evaluate(ClipOp op, Operands operands, Report &report) {
  double lo = op.getMin().convertToFloat(), hi = op.getMax().convertToFloat();
  // NaN fails both comparisons and stays NaN.
  return mapFloat(op, operands, report, [lo, hi](double x) {
    return x < lo ? lo : (x > hi ? hi : x);
  });
}

FailureOr<Tensor> evaluate(DropoutOp, Operands operands, Report &) {
  return *operands[0]; // inference: identity
}

//===----------------------------------------------------------------------===//
// Type conversion, comparison and selection
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(CastOp op, Operands operands, Report &) {
  const Tensor &x = *operands[0];
  Tensor result = x;
  result.kind = resultKindOf(op);
  for (double &value : result.data) {
    switch (result.kind) {
    case ElementKind::F32:
    case ElementKind::F64:
    case ElementKind::F16:
    case ElementKind::BF16:
      break; // integers and 0/1 booleans convert exactly, then round to float
    case ElementKind::I1:
      value = value != 0.0 ? 1.0 : 0.0; // NaN != 0: true
      break;
    case ElementKind::I32:
    case ElementKind::I64:
    case ElementKind::I8:
    case ElementKind::UI8: {
      if (!isFloatKind(x.kind))
        break; // integer to integer: wraps to the width afterwards
      // Float to integer: truncate toward zero; NaN gives 0 and values out
      // of range saturate (compiled code does the same for i8 and ui8 and
      // leaves both undefined for i32 and i64).
      IntegerRange range = integerRangeOf(result.kind);
      if (std::isnan(value))
        value = 0.0;
      else
        value = std::min(std::max(std::trunc(value), range.lowest),
                         range.highest);
      break;
    }
    }
  }
  return result;
}

namespace {

/// For each element of x (operand 0), the index of its scale and zero point
/// (operands 1 and 2): 0 per tensor, its index along `axis` per axis.
FailureOr<std::vector<int64_t>>
quantizationIndices(Operands operands, int64_t axis, Report &report) {
  const Tensor &x = *operands[0], &scale = *operands[1],
               &zeroPoint = *operands[2];
  if (scale.shape != zeroPoint.shape || scale.rank() > 1)
    return report.fail("scale " + shapeToString(scale.shape) +
                       " and zero point " + shapeToString(zeroPoint.shape) +
                       " must be one scalar or one 1-D shape");
  std::vector<int64_t> indices(x.numElements(), 0);
  if (scale.rank() == 0)
    return indices;
  FailureOr<int64_t> a = normalizeAxis(axis, x.rank(), report);
  if (failed(a))
    return failure();
  if (scale.shape[0] != x.shape[*a])
    return report.fail("per-axis scale " + shapeToString(scale.shape) +
                       " does not match dimension " + std::to_string(*a) +
                       " of " + shapeToString(x.shape));
  int64_t inner = 1;
  for (int64_t d = *a + 1; d < x.rank(); ++d)
    inner *= x.shape[d];
  for (int64_t i = 0; i < x.numElements(); ++i)
    indices[i] = (i / inner) % x.shape[*a];
  return indices;
}

} // namespace

FailureOr<Tensor> evaluate(QuantizeOp op, Operands operands, Report &report) {
  const Tensor &x = *operands[0], &scale = *operands[1],
               &zeroPoint = *operands[2];
  FailureOr<std::vector<int64_t>> indices =
      quantizationIndices(operands, op.getAxis(), report);
  if (failed(indices))
    return failure();
  Tensor y = Tensor::zeros(resultKindOf(op), x.shape);
  IntegerRange range = integerRangeOf(y.kind);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t at = (*indices)[i];
    // f32 division, then rounding half to even (the default rounding mode).
    float quotient = static_cast<float>(x.data[i]) /
                     static_cast<float>(scale.data[at]);
    double value = std::nearbyint(static_cast<double>(quotient)) +
                   zeroPoint.data[at];
    y.data[i] = std::isnan(value)
                    ? range.lowest
                    : std::min(std::max(value, range.lowest), range.highest);
  }
  return y;
}

FailureOr<Tensor> evaluate(DequantizeOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &scale = *operands[1],
               &zeroPoint = *operands[2];
  FailureOr<std::vector<int64_t>> indices =
      quantizationIndices(operands, op.getAxis(), report);
  if (failed(indices))
    return failure();
  Tensor y = Tensor::zeros(ElementKind::F32, x.shape);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t at = (*indices)[i];
    // As ONNX: both converted to f32, subtracted and multiplied in f32.
    float difference = static_cast<float>(x.data[i]) -
                       static_cast<float>(zeroPoint.data[at]);
    y.data[i] = difference * static_cast<float>(scale.data[at]);
  }
  return y;
}

FailureOr<Tensor> evaluate(CompareOp op, Operands operands, Report &report) {
  StringRef predicate = op.getPredicate();
  bool (*compare)(double, double) = nullptr;
  if (predicate == "eq")
    compare = [](double a, double b) { return a == b; };
  else if (predicate == "ne")
    compare = [](double a, double b) { return a != b; };
  else if (predicate == "lt")
    compare = [](double a, double b) { return a < b; };
  else if (predicate == "le")
    compare = [](double a, double b) { return a <= b; };
  else if (predicate == "gt")
    compare = [](double a, double b) { return a > b; };
  else if (predicate == "ge")
    compare = [](double a, double b) { return a >= b; };
  else
    return report.fail("unknown compare predicate '" + predicate + "'");

  const Tensor &lhs = *operands[0], &rhs = *operands[1];
  FailureOr<std::vector<int64_t>> shape =
      broadcastShapes(lhs.shape, rhs.shape, report);
  if (failed(shape))
    return failure();
  Tensor result = Tensor::zeros(ElementKind::I1, *shape);
  for (int64_t i = 0; i < result.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, result.shape);
    result.data[i] = compare(lhs.data[broadcastOffset(index, lhs.shape)],
                             rhs.data[broadcastOffset(index, rhs.shape)]);
  }
  return result;
}

FailureOr<Tensor> evaluate(SelectOp op, Operands operands, Report &report) {
  const Tensor &cond = *operands[0], &lhs = *operands[1], &rhs = *operands[2];
  FailureOr<std::vector<int64_t>> shape =
      broadcastShapes(cond.shape, lhs.shape, report);
  if (failed(shape))
    return failure();
  shape = broadcastShapes(*shape, rhs.shape, report);
  if (failed(shape))
    return failure();
  Tensor result = Tensor::zeros(resultKindOf(op), *shape);
  for (int64_t i = 0; i < result.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, result.shape);
    result.data[i] = cond.data[broadcastOffset(index, cond.shape)] != 0.0
                         ? lhs.data[broadcastOffset(index, lhs.shape)]
                         : rhs.data[broadcastOffset(index, rhs.shape)];
  }
  return result;
}

} // namespace tfcc::ref::detail
